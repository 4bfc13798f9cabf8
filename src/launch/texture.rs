//! A launch file's texture and surface objects: `texture = "buffer"` or `surface = "buffer"`
//! with the object's shape and sampler, as `cudaCreateTextureObject` and
//! `cudaCreateSurfaceObject` take them (a CUDA array's or pitched buffer's texels, densely, x
//! fastest). The kernel receives an 8-byte handle. [`TexSpec`] is the one place these are
//! checked, for launch files and for the Python package.

use super::raw::RawParam;
use super::{err, LaunchError};
use crate::ir::Type;
use crate::mem::texture::{AddrMode, Chan, Mips, TexObject};

/// Largest size per dimension (an H100's `maxTexture1D`/`2D` width is 131072).
const MAX_SIZE: u64 = 1 << 17;

/// A texture or surface object as a user describes it, before any checks.
#[derive(Debug, Clone)]
pub struct TexSpec<'a> {
    pub surface: bool,
    /// The channel type.
    pub ty: Type,
    pub channels: u8,
    /// Width, height, depth: 1 to 3 sizes.
    pub dims: Vec<u64>,
    pub layers: Option<u32>,
    /// Bytes from row to row; default dense.
    pub pitch: Option<u64>,
    /// `array` or `linear` (a 1D `cudaResourceTypeLinear` buffer).
    pub resource: &'a str,
    /// `point` or `linear`.
    pub filter: &'a str,
    /// One mode for every dimension, or one per dimension (the rest `clamp`).
    pub address: Vec<&'a str>,
    pub normalized: bool,
    /// `element` or `normalized-float`.
    pub read: &'a str,
    pub border: Option<Vec<f32>>,
    /// A cube map: `dims = [w, w]`, six faces one after another (+x, -x, +y, -y, +z, -z).
    pub cubemap: bool,
    pub mips: MipSpec<'a>,
}

/// A mipmapped texture's levels (dense, level 0 first, level `l` of `max(1, size >> l)` texels
/// per axis) and its mipmap sampler settings, as `cudaTextureDesc` has them.
#[derive(Debug, Clone)]
pub struct MipSpec<'a> {
    pub levels: u32,
    /// `point` or `linear`.
    pub filter: &'a str,
    pub bias: f32,
    pub min: f32,
    /// Default: the last level.
    pub max: Option<f32>,
}

impl Default for MipSpec<'_> {
    fn default() -> Self {
        MipSpec {
            levels: 1,
            filter: "point",
            bias: 0.0,
            min: 0.0,
            max: None,
        }
    }
}

impl MipSpec<'_> {
    /// The sampler state of an object of level-0 size `size`. Errors start with the key.
    fn build(&self, size: &[u64]) -> Result<Mips, String> {
        let most = 64 - size.iter().max().copied().unwrap_or(1).leading_zeros();
        if self.levels == 0 || self.levels > most {
            return Err(format!(".levels: 1 to {most} for these dims"));
        }
        let linear = match self.filter {
            "point" => false,
            "linear" => true,
            f => return Err(format!(".mipmap_filter: `point` or `linear`, not `{f}`")),
        };
        let set =
            self.filter != "point" || self.bias != 0.0 || self.min != 0.0 || self.max.is_some();
        if self.levels == 1 && set {
            return Err(": mipmap settings need `levels`".into());
        }
        let last = (self.levels - 1) as f32;
        let max = self.max.unwrap_or(last);
        // Only clamps on 1/256 of a level were measured (the unit the H200 selects levels in).
        let in_256ths = |v: f32, key: &str| -> Result<u32, String> {
            let q = v * 256.0;
            if !(0.0..=65536.0).contains(&q) || q.fract() != 0.0 {
                return Err(format!(".{key}: a level from 0 in steps of 1/256, not {v}"));
            }
            Ok(q as u32)
        };
        let (min, max) = (in_256ths(self.min, "min_lod")?, in_256ths(max, "max_lod")?);
        if min > max || self.min > last {
            return Err(".min_lod: more than max_lod or than the last level".into());
        }
        if !self.bias.is_finite() {
            return Err(".lod_bias: not a finite number".into());
        }
        Ok(Mips {
            levels: self.levels,
            linear,
            bias: (f64::from(self.bias) * 256.0).trunc().clamp(-1e6, 1e6) as i32,
            min,
            max,
        })
    }
}

impl TexSpec<'_> {
    /// The object (its `base` still 0) and how many channel values its texels hold. Errors
    /// start with the key at fault: `.channels: ...`.
    pub fn build(&self) -> Result<(TexObject, u64), String> {
        let Some(chan) = Chan::of(self.ty) else {
            return Err(format!(
                ".type: textures hold u8 i8 u16 i16 u32 i32 f16 f32 channels, not {}",
                self.ty
            ));
        };
        let channels = self.channels;
        if ![1, 2, 4].contains(&channels) {
            return Err(format!(".channels: 1, 2 or 4, not {channels}"));
        }
        let dims = &self.dims;
        if !(1..=3).contains(&dims.len()) {
            return Err(".dims: 1 to 3 sizes (width, height, depth)".into());
        }
        if let Some(d) = dims.iter().find(|&&d| d == 0 || d > MAX_SIZE) {
            return Err(format!(".dims: {d} is not 1 to {MAX_SIZE}"));
        }
        // CUDA's 3D arrays (cudaDeviceProp::maxTexture3D on Hopper).
        if dims.len() == 3 && dims.iter().any(|&d| d > 16384) {
            return Err(".dims: a 3D texture or surface is at most 16384 on each axis".into());
        }
        let layers = self.layers;
        if layers == Some(0) || layers.is_some_and(|l| l > 2048) {
            return Err(".layers: 1 to 2048".into());
        }
        if layers.is_some() && dims.len() == 3 {
            return Err(".layers: layered objects are 1D or 2D".into());
        }
        let mut size = [1u32; 3];
        for (s, d) in size.iter_mut().zip(dims) {
            *s = *d as u32;
        }
        let elem = chan.bytes() as u64 * u64::from(channels);
        let row = u64::from(size[0]) * elem;
        let pitch = self.pitch.unwrap_or(row);
        if pitch < row || pitch > MAX_SIZE * 16 {
            return Err(format!(
                ".pitch: {pitch} is less than a row ({row} bytes) or too large"
            ));
        }
        let mut o = TexObject {
            surface: self.surface,
            base: 0,
            chan,
            channels,
            size,
            ndim: dims.len() as u8,
            layers,
            pitch,
            linear: false,
            normalized: self.normalized,
            address: [AddrMode::Clamp; 3],
            read_float: false,
            border: [0; 4],
            cube: self.cubemap,
            mips: Mips::NONE,
        };
        self.sampler(&mut o)?;
        self.shape(&mut o)?;
        let texels = o.extent().div_ceil(chan.bytes() as u64);
        Ok((o, texels))
    }

    /// Cube maps and mipmaps: what the H200 was measured on (`docs/launch/textures.md`).
    fn shape(&self, o: &mut TexObject) -> Result<(), String> {
        let mipmapped = self.mips.levels > 1;
        if (self.cubemap || mipmapped) && self.surface {
            return Err(".surface: cube-map and mipmapped surfaces are not modelled".into());
        }
        if self.cubemap {
            if self.dims.len() != 2 || self.dims[0] != self.dims[1] || o.layers.is_some() {
                return Err(".cubemap: dims = [w, w] (square faces), no layers".into());
            }
            if !self.dims[0].is_power_of_two() {
                return Err(
                    ".cubemap: faces of a power-of-two width (only those were measured)".into(),
                );
            }
            if mipmapped {
                return Err(".cubemap: mipmapped cube maps are not modelled".into());
            }
            // The H200 ignores `normalized` for cube maps (measured in clamp mode).
            if !o.normalized && o.address[..2].iter().any(|m| *m != AddrMode::Clamp) {
                return Err(".normalized: a cube map in other modes than clamp is measured with normalized = true only".into());
            }
            o.normalized = true;
        }
        if mipmapped {
            if self.dims.len() > 2 || o.layers.is_some() || self.resource != "array" {
                return Err(".levels: mipmaps of 1D and 2D arrays only (3D and layered ones are not modelled)".into());
            }
            if self.pitch.is_some() {
                return Err(".pitch: mipmap levels are dense".into());
            }
            if !o.normalized {
                return Err(
                    ".normalized: mipmaps were measured with normalized coordinates only".into(),
                );
            }
        }
        o.mips = self.mips.build(&self.dims)?;
        Ok(())
    }

    /// The texture-only settings: resource, filter, address modes, read mode, border colour.
    fn sampler(&self, o: &mut TexObject) -> Result<(), String> {
        o.linear = match self.filter {
            "point" => false,
            "linear" => true,
            f => return Err(format!(".filter: `point` or `linear`, not `{f}`")),
        };
        if self.address.is_empty() || self.address.len() > 3 {
            return Err(".address: a mode or a list of up to 3 (wrap clamp mirror border)".into());
        }
        // One mode is every dimension's; a shorter list leaves the rest `clamp`.
        for i in 0..3 {
            let m = match self.address.len() {
                1 => self.address[0],
                _ => self.address.get(i).copied().unwrap_or("clamp"),
            };
            o.address[i] = AddrMode::parse(m)
                .ok_or_else(|| format!(".address: `{m}` is not wrap, clamp, mirror or border"))?;
        }
        match self.resource {
            "array" => {}
            // cudaResourceTypeLinear (tex1Dfetch): integer coordinates, zero outside (measured).
            "linear" => {
                if o.ndim != 1 || o.layers.is_some() {
                    return Err(".resource: a linear resource is 1D".into());
                }
                o.address = [AddrMode::Border; 3];
                if o.linear {
                    return Err(".filter: a linear resource is read by `tex1Dfetch`, which does not filter (use `point`)".into());
                }
            }
            r => return Err(format!(".resource: `array` or `linear`, not `{r}`")),
        }
        o.read_float = match self.read {
            "element" => false,
            "normalized-float" if matches!(o.chan, Chan::U8 | Chan::S8 | Chan::U16 | Chan::S16) => {
                true
            }
            "normalized-float" => {
                return Err(
                    ".read: normalized-float reads 8- and 16-bit integer channels only".into(),
                )
            }
            r => return Err(format!(".read: `element` or `normalized-float`, not `{r}`")),
        };
        if o.linear && !o.chan.is_float() && !o.read_float {
            return Err(".filter: linear filtering needs float channels or `read = \"normalized-float\"` (CUDA refuses it too)".into());
        }
        if let Some(b) = &self.border {
            if b.len() != 4 {
                return Err(".border: four values (r, g, b, a)".into());
            }
            for (d, v) in o.border.iter_mut().zip(b) {
                *d = v.to_bits();
            }
        }
        Ok(())
    }
}

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
            "type"
                | "len"
                | "init"
                | "dims"
                | "channels"
                | "layers"
                | "pitch"
                | "texture"
                | "surface"
        ) || (!surface
            && matches!(
                k,
                "resource"
                    | "filter"
                    | "address"
                    | "normalized"
                    | "read"
                    | "border"
                    | "cubemap"
                    | "levels"
                    | "mipmap_filter"
                    | "lod_bias"
                    | "min_lod"
                    | "max_lod"
            ));
        if set && !ok {
            let what = if surface { "a surface" } else { "a texture" };
            return err(format!("{field}.{k}: {what} does not take `{k}`"));
        }
    }
    let address: Vec<&str> = match &p.address {
        None => vec!["clamp"],
        Some(toml::Value::String(s)) => vec![s.as_str()],
        Some(toml::Value::Array(v)) => v.iter().map(|x| x.as_str().unwrap_or("?")).collect(),
        Some(_) => Vec::new(),
    };
    let spec = TexSpec {
        surface,
        ty: p.ty(field)?,
        channels: p.channels.unwrap_or(1),
        dims: p.dims.clone().unwrap_or_default(),
        layers: p.layers,
        pitch: p.pitch,
        resource: p.resource.as_deref().unwrap_or("array"),
        filter: p.filter.as_deref().unwrap_or("point"),
        address,
        normalized: p.normalized.unwrap_or(false),
        read: p.read.as_deref().unwrap_or("element"),
        border: p.border.clone(),
        cubemap: p.cubemap.unwrap_or(false),
        mips: MipSpec {
            levels: p.levels.unwrap_or(1),
            filter: p.mipmap_filter.as_deref().unwrap_or("point"),
            bias: p.lod_bias.unwrap_or(0.0),
            min: p.min_lod.unwrap_or(0.0),
            max: p.max_lod,
        },
    };
    spec.build().map_err(|e| LaunchError(format!("{field}{e}")))
}
