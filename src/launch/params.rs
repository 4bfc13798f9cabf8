//! A launch file's `[[params]]`, one per kernel parameter in `.param` order: device buffers
//! (declared with their length and contents, or a pointer to a buffer another entry declares),
//! scalars (one value or several in a row), tensor maps, and by-value structs. A struct is laid
//! out as PTX declares it (`.param .align N .b8 name[SIZE]`, PTX ISA 9.0 section 5.1.6.1): its
//! bytes (`bytes`, else zero) with fields at byte offsets, each field itself a parameter entry
//! (a buffer address, a scalar, a tensor map, a nested struct). Sizes are checked against the
//! kernel's parameters by the facade (`api::Kernel::prepare`), which knows them.

use super::raw::{RawParam, MAP_KEYS, TEX_KEYS};
use super::{
    err, init_buffer, scalar_bytes, Im2colShape, Inputs, LaunchError, LaunchParam, MapShape,
    TensorMapDesc, MAX_BUFFER_BYTES,
};
use crate::ir::Type;
use std::collections::BTreeSet;

/// The most bytes a by-value struct may have, its `bytes` included (PTX kernel parameters total
/// at most 32764 bytes).
pub const MAX_STRUCT_BYTES: u64 = 1 << 16;
/// Nesting of structs in structs.
const MAX_DEPTH: usize = 8;

/// Turns `[[params]]` into parameters; `name` is the launch file, for messages.
pub(super) fn load(
    raw: &[RawParam],
    src: &mut Inputs<'_>,
    name: &str,
) -> Result<Vec<LaunchParam>, LaunchError> {
    let mut p = Params {
        src,
        declared: BTreeSet::new(),
    };
    let params = raw
        .iter()
        .enumerate()
        .map(|(i, r)| p.param(r, &format!("{name}: params[{i}]"), 0))
        .collect::<Result<Vec<_>, _>>()?;
    for (i, lp) in params.iter().enumerate() {
        check_references(lp, &p.declared, &format!("{name}: params[{i}]"))?;
    }
    Ok(params)
}

struct Params<'s, 'a> {
    src: &'s mut Inputs<'a>,
    /// Buffers declared so far (a name is declared once).
    declared: BTreeSet<String>,
}

impl Params<'_, '_> {
    /// One entry; `depth` is how many structs hold it.
    fn param(
        &mut self,
        p: &RawParam,
        field: &str,
        depth: usize,
    ) -> Result<LaunchParam, LaunchError> {
        match (depth, p.offset) {
            (0, Some(_)) => {
                return err(format!(
                    "{field}.offset: only a field of a struct takes `offset`"
                ))
            }
            (1.., None) => {
                return err(format!(
                    "{field}.offset: missing (bytes from the start of the struct)"
                ))
            }
            _ => {}
        }
        if p.fields.is_some() || p.bytes.is_some() {
            return self.structure(p, field, depth);
        }
        if let Some(name) = p.texture.as_ref().or(p.surface.as_ref()) {
            let object = super::texture::object(p, field)?;
            let created = self.created(p, name, field, object.1)?;
            return Ok(LaunchParam::Texture {
                buffer: name.clone(),
                created,
                object: object.0,
            });
        }
        if let Some(name) = &p.tensormap {
            if let Some((k, _)) = p.keys()[TEX_KEYS..].iter().find(|(_, set)| *set) {
                return err(format!(
                    "{field}.{k}: only a `texture` or `surface` parameter takes `{k}`"
                ));
            }
            return self.tensormap(p, name, field);
        }
        if let Some((k, _)) = p.keys()[MAP_KEYS..].iter().find(|(_, set)| *set) {
            return err(format!(
                "{field}.{k}: only a `tensormap`, `texture` or `surface` parameter takes `{k}`"
            ));
        }
        match &p.buffer {
            Some(b) => self.buffer(p, b, field),
            None => {
                let ty = p.ty(field)?;
                let Some(v) = &p.value else {
                    return err(format!(
                        "{field}: a scalar needs `value` (or give `buffer` for a buffer)"
                    ));
                };
                Ok(LaunchParam::Scalar {
                    ty,
                    bytes: scalar_list(v, ty, &format!("{field}.value"))?,
                })
            }
        }
    }

    /// `buffer = NAME`: with `len`, a new buffer; without, the address of one declared by
    /// another entry.
    fn buffer(&mut self, p: &RawParam, b: &str, field: &str) -> Result<LaunchParam, LaunchError> {
        if p.value.is_some() {
            return err(format!("{field}: a buffer takes `init`, not `value`"));
        }
        let Some(len) = p.len else {
            if p.init.is_some() {
                return err(format!(
                    "{field}.init: give `len` too to declare the buffer here"
                ));
            }
            return Ok(LaunchParam::Pointer {
                buffer: b.to_string(),
            });
        };
        let (ty, data) = self.declare(p, b, len, field, "buffer")?;
        Ok(LaunchParam::Buffer {
            name: b.to_string(),
            ty,
            data,
        })
    }

    /// Declares buffer `name` of `len` elements of the entry's `type`, filled from its `init`;
    /// `key` names the entry's key that named it, for messages.
    fn declare(
        &mut self,
        p: &RawParam,
        name: &str,
        len: u64,
        field: &str,
        key: &str,
    ) -> Result<(Type, Vec<u8>), LaunchError> {
        let ty = if key == "tensormap" {
            p.map_ty(field)?.0
        } else {
            p.ty(field)?
        };
        if !self.declared.insert(name.to_string()) {
            return err(format!("{field}.{key}: buffer `{name}` is declared twice"));
        }
        let bytes = len.saturating_mul(u64::from(ty.size()));
        if bytes > MAX_BUFFER_BYTES {
            return err(format!("{field}.len: {bytes} bytes is too large"));
        }
        let data = init_buffer(self.src, p.init.as_ref(), ty, len, &format!("{field}.init"))?;
        Ok((ty, data))
    }

    /// The buffer a texture or surface entry declares (with `len` or `init`; `len` defaults to
    /// `texels` elements of `type`), or `None` when it names one declared elsewhere.
    fn created(
        &mut self,
        p: &RawParam,
        name: &str,
        field: &str,
        texels: u64,
    ) -> Result<Option<(Type, Vec<u8>)>, LaunchError> {
        if p.len.is_none() && p.init.is_none() {
            return Ok(None);
        }
        let key = if p.surface.is_some() {
            "surface"
        } else {
            "texture"
        };
        let len = p.len.unwrap_or(texels);
        self.declare(p, name, len, field, key).map(Some)
    }

    /// A by-value struct: `bytes` (else zeros), then each field at its offset.
    fn structure(
        &mut self,
        p: &RawParam,
        field: &str,
        depth: usize,
    ) -> Result<LaunchParam, LaunchError> {
        if let Some((k, _)) = p.keys().iter().find(|(_, set)| *set) {
            return err(format!(
                "{field}.{k}: a struct takes `bytes` and `fields`, not `{k}` (give `{k}` to one of its fields)"
            ));
        }
        if depth >= MAX_DEPTH {
            return err(format!("{field}: structs nest at most {MAX_DEPTH} deep"));
        }
        let bytes = match &p.bytes {
            None => Vec::new(),
            Some(v) => self.struct_bytes(v, &format!("{field}.bytes"))?,
        };
        let mut fields = Vec::new();
        for (i, f) in p.fields.iter().flatten().enumerate() {
            let at = format!("{field}.fields[{i}]");
            let lp = self.param(f, &at, depth + 1)?;
            fields.push((f.offset.unwrap_or(0), lp));
        }
        Ok(LaunchParam::Struct { bytes, fields })
    }

    /// A struct's initial bytes: a file, or a list of byte values.
    fn struct_bytes(&mut self, v: &toml::Value, field: &str) -> Result<Vec<u8>, LaunchError> {
        match v {
            toml::Value::String(s) => {
                let path = self.src.dir.join(s);
                let (real, raw) = self
                    .src
                    .access
                    .read(&path, field, MAX_STRUCT_BYTES)
                    .map_err(LaunchError)?;
                self.src.read.push(real);
                Ok(raw)
            }
            toml::Value::Array(a) if a.len() as u64 <= MAX_STRUCT_BYTES => a
                .iter()
                .enumerate()
                .map(|(i, b)| match b {
                    toml::Value::Integer(x) if (0..=255).contains(x) => Ok(*x as u8),
                    _ => err(format!("{field}[{i}]: expected a byte, 0 to 255")),
                })
                .collect(),
            _ => err(format!(
                "{field}: expected a file name or a list of at most {MAX_STRUCT_BYTES} byte values"
            )),
        }
    }

    /// A `tensormap = "buffer"` entry: the map's shape, and the buffer when it declares one.
    fn tensormap(
        &mut self,
        p: &RawParam,
        name: &str,
        field: &str,
    ) -> Result<LaunchParam, LaunchError> {
        let (ty, f32_mode) = p.map_ty(field)?;
        if p.buffer.is_some() || p.value.is_some() {
            return err(format!(
                "{field}: a tensormap entry takes no `buffer` or `value` (`tensormap` names its buffer)"
            ));
        }
        let Some(dims) = p.dims.clone() else {
            return err(format!(
                "{field}.dims: missing (elements per dimension, innermost first)"
            ));
        };
        let im2col = match p.mode.as_deref().unwrap_or("tile") {
            "tile" => None,
            "im2col" => Some(im2col_shape(p, field)?),
            other => return err(format!("{field}.mode: `{other}` (use tile or im2col)")),
        };
        if im2col.is_none() {
            let im2col_keys = &p.keys()[MAP_KEYS + 9..TEX_KEYS];
            if let Some((k, _)) = im2col_keys.iter().find(|(_, set)| *set) {
                return err(format!(
                    "{field}.{k}: only an im2col map (`mode = \"im2col\"`) takes `{k}`"
                ));
            }
        }
        let boxdim = match (&p.boxdim, &im2col) {
            (Some(b), _) => b.clone(),
            (None, Some(_)) => Vec::new(),
            (None, None) => return err(format!("{field}.box: missing (box size per dimension)")),
        };
        let shape = MapShape {
            elem: ty,
            f32_mode,
            dims,
            strides: p.strides.clone(),
            boxdim,
            element_strides: p.element_strides.clone(),
            swizzle: p.swizzle.as_deref().unwrap_or("none"),
            oob_fill: p.oob_fill.as_deref().unwrap_or("zero"),
            interleave: p.interleave.as_deref().unwrap_or("none"),
            l2_promotion: p.l2_promotion.as_deref().unwrap_or("none"),
            im2col,
        };
        let desc = TensorMapDesc::new(shape).map_err(|e| LaunchError(format!("{field}{e}")))?;
        let created = match p.len {
            Some(len) => Some(self.declare(p, name, len, field, "tensormap")?),
            None if p.init.is_some() => {
                return err(format!(
                    "{field}.init: give `len` too to declare the buffer here"
                ))
            }
            None => None,
        };
        Ok(LaunchParam::TensorMap {
            buffer: name.to_string(),
            created,
            map: desc,
        })
    }
}

/// The `cuTensorMapEncodeIm2col` keys of an im2col `tensormap` entry.
fn im2col_shape(p: &RawParam, field: &str) -> Result<Im2colShape, LaunchError> {
    let missing = |k: &str, what: &str| err(format!("{field}.{k}: missing ({what})"));
    let Some(lower) = p.lower_corner.clone() else {
        return missing("lower_corner", "pixelBoxLowerCorner, W first");
    };
    let Some(upper) = p.upper_corner.clone() else {
        return missing("upper_corner", "pixelBoxUpperCorner, W first");
    };
    let Some(channels) = p.channels_per_pixel else {
        return missing(
            "channels_per_pixel",
            "channels of each pixel a load gathers",
        );
    };
    let Some(pixels) = p.pixels_per_column else {
        return missing("pixels_per_column", "pixels a load gathers");
    };
    Ok(Im2colShape {
        lower,
        upper,
        channels,
        pixels,
    })
}

/// One scalar, or a list of them laid out one after another.
fn scalar_list(v: &toml::Value, ty: Type, field: &str) -> Result<Vec<u8>, LaunchError> {
    match v {
        toml::Value::Array(a) if a.is_empty() => err(format!("{field}: an empty list")),
        toml::Value::Array(a) => {
            let mut out = Vec::new();
            for (i, x) in a.iter().enumerate() {
                out.extend(scalar_bytes(x, ty, &format!("{field}[{i}]"))?);
            }
            Ok(out)
        }
        _ => scalar_bytes(v, ty, field),
    }
}

/// Every pointer and tensor map names a declared buffer.
fn check_references(
    lp: &LaunchParam,
    declared: &BTreeSet<String>,
    field: &str,
) -> Result<(), LaunchError> {
    let (key, name) = match lp {
        LaunchParam::Pointer { buffer } => ("buffer", buffer),
        LaunchParam::TensorMap {
            buffer,
            created: None,
            ..
        } => ("tensormap", buffer),
        LaunchParam::Texture {
            buffer,
            created: None,
            object,
        } => (if object.surface { "surface" } else { "texture" }, buffer),
        LaunchParam::Struct { fields, .. } => {
            for (i, (_, f)) in fields.iter().enumerate() {
                check_references(f, declared, &format!("{field}.fields[{i}]"))?;
            }
            return Ok(());
        }
        _ => return Ok(()),
    };
    if declared.contains(name) {
        return Ok(());
    }
    err(format!(
        "{field}.{key}: no buffer named `{name}` (declare it with `buffer = \"{name}\"` and `len` in another entry, or give `len` here)"
    ))
}
