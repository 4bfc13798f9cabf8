//! A launch file's texture and surface objects: `texture = "buffer"` or `surface = "buffer"`
//! with the object's shape and sampler, as `cudaCreateTextureObject` and
//! `cudaCreateSurfaceObject` take them (a CUDA array's or pitched buffer's texels, densely, x
//! fastest). The kernel receives an 8-byte handle.

use super::params::RawParam;
use super::{err, LaunchError};
use crate::mem::texture::{AddrMode, Chan, TexObject};

/// Largest size per dimension (an H100's `maxTexture1D`/`2D` width is 131072).
const MAX_SIZE: u64 = 1 << 17;

/// The object an entry describes (its `base` still 0), and how many channel values its texels
/// hold (the default `len` of a buffer it declares).
pub(super) fn object(p: &RawParam, field: &str) -> Result<(TexObject, u64), LaunchError> {
    let surface = p.surface.is_some();
    if p.texture.is_some() && surface {
        return err(format!("{field}: give `texture` or `surface`, not both"));
    }
    for (k, set) in p.keys() {
        let ok = matches!(
            k,
            "type" | "len" | "init" | "dims" | "channels" | "layers" | "pitch"
        ) || matches!(k, "texture" | "surface")
            || (!surface
                && matches!(
                    k,
                    "resource" | "filter" | "address" | "normalized" | "read" | "border"
                ));
        if set && !ok {
            let what = if surface { "a surface" } else { "a texture" };
            return err(format!("{field}.{k}: {what} does not take `{k}`"));
        }
    }
    let ty = p.ty(field)?;
    let Some(chan) = Chan::of(ty) else {
        return err(format!(
            "{field}.type: textures hold u8 i8 u16 i16 u32 i32 f16 f32 channels, not {ty}"
        ));
    };
    let channels = p.channels.unwrap_or(1);
    if ![1, 2, 4].contains(&channels) {
        return err(format!("{field}.channels: 1, 2 or 4, not {channels}"));
    }
    let Some(dims) = p.dims.clone().filter(|d| (1..=3).contains(&d.len())) else {
        return err(format!(
            "{field}.dims: missing or not 1 to 3 sizes (width, height, depth)"
        ));
    };
    if let Some(d) = dims.iter().find(|&&d| d == 0 || d > MAX_SIZE) {
        return err(format!("{field}.dims: {d} is not 1 to {MAX_SIZE}"));
    }
    let layers = p.layers;
    if layers == Some(0) || layers.is_some_and(|l| u64::from(l) > 2048) {
        return err(format!("{field}.layers: 1 to 2048"));
    }
    if layers.is_some() && dims.len() == 3 {
        return err(format!("{field}.layers: layered objects are 1D or 2D"));
    }
    let mut size = [1u32; 3];
    for (s, d) in size.iter_mut().zip(&dims) {
        *s = *d as u32;
    }
    let elem = chan.bytes() as u64 * u64::from(channels);
    let row = u64::from(size[0]) * elem;
    let pitch = p.pitch.unwrap_or(row);
    if pitch < row {
        return err(format!(
            "{field}.pitch: {pitch} is less than a row ({row} bytes)"
        ));
    }
    let mut o = TexObject {
        surface,
        base: 0,
        chan,
        channels,
        size,
        ndim: dims.len() as u8,
        layers,
        pitch,
        linear: false,
        normalized: p.normalized.unwrap_or(false),
        address: [AddrMode::Clamp; 3],
        read_float: false,
        border: [0; 4],
    };
    sampler(p, field, &mut o)?;
    let texels = o.extent().div_ceil(chan.bytes() as u64);
    Ok((o, texels))
}

/// The texture-only keys: resource, filter, address modes, read mode, border colour.
fn sampler(p: &RawParam, field: &str, o: &mut TexObject) -> Result<(), LaunchError> {
    match p.resource.as_deref().unwrap_or("array") {
        "array" => {}
        // cudaResourceTypeLinear (tex1Dfetch): integer coordinates, zero outside (measured).
        "linear" => {
            if o.ndim != 1 || o.layers.is_some() {
                return err(format!("{field}.resource: a linear resource is 1D"));
            }
            o.address = [AddrMode::Border; 3];
        }
        r => return err(format!("{field}.resource: `array` or `linear`, not `{r}`")),
    }
    o.linear = match p.filter.as_deref().unwrap_or("point") {
        "point" => false,
        "linear" => true,
        f => return err(format!("{field}.filter: `point` or `linear`, not `{f}`")),
    };
    if let Some(a) = &p.address {
        let modes: Vec<&str> = match a {
            toml::Value::String(s) => vec![s.as_str(); 3],
            toml::Value::Array(v) => v.iter().filter_map(|x| x.as_str()).collect(),
            _ => Vec::new(),
        };
        if modes.is_empty() || modes.len() > 3 {
            return err(format!(
                "{field}.address: a mode or a list of up to 3 (wrap clamp mirror border)"
            ));
        }
        for (i, m) in modes.iter().enumerate() {
            o.address[i] = AddrMode::parse(m).ok_or_else(|| {
                LaunchError(format!(
                    "{field}.address: `{m}` is not wrap, clamp, mirror or border"
                ))
            })?;
        }
    }
    o.read_float = match p.read.as_deref().unwrap_or("element") {
        "element" => false,
        "normalized-float" if matches!(o.chan, Chan::U8 | Chan::S8 | Chan::U16 | Chan::S16) => true,
        "normalized-float" => {
            return err(format!(
                "{field}.read: normalized-float reads 8- and 16-bit integer channels only"
            ))
        }
        r => {
            return err(format!(
                "{field}.read: `element` or `normalized-float`, not `{r}`"
            ))
        }
    };
    if o.linear && !o.chan.is_float() && !o.read_float {
        return err(format!(
            "{field}.filter: linear filtering needs float channels or `read = \"normalized-float\"` (CUDA refuses it too)"
        ));
    }
    if let Some(b) = &p.border {
        if b.len() != 4 {
            return err(format!("{field}.border: four values (r, g, b, a)"));
        }
        for (d, v) in o.border.iter_mut().zip(b) {
            *d = v.to_bits();
        }
    }
    Ok(())
}
