//! One `[[params]]` entry of a launch file as serde reads it, before it is checked: every key
//! any kind of entry takes (buffer, scalar, tensor map, struct, texture or surface object), and
//! which of them are set. `launch::params` turns entries into kernel arguments and
//! `launch::texture` builds texture and surface objects from them; both read this shape, so it
//! sits below them.

use super::{err, parse_type, LaunchError};
use crate::ir::Type;
use crate::mem::tensormap::F32Mode;
use serde::Deserialize;

/// Where the tensor-map keys start in [`RawParam::keys`].
pub(super) const MAP_KEYS: usize = 6;
/// Where the texture and surface keys start in [`RawParam::keys`].
pub(super) const TEX_KEYS: usize = 19;
#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
pub(super) struct RawParam {
    pub(super) buffer: Option<String>,
    #[serde(rename = "type")]
    pub(super) ty: Option<String>,
    pub(super) len: Option<u64>,
    pub(super) init: Option<toml::Value>,
    pub(super) value: Option<toml::Value>,
    /// A CUDA tensor map over the named buffer (the arguments of `cuTensorMapEncodeTiled`).
    pub(super) tensormap: Option<String>,
    pub(super) dims: Option<Vec<u64>>,
    pub(super) strides: Option<Vec<u64>>,
    #[serde(rename = "box")]
    pub(super) boxdim: Option<Vec<u32>>,
    pub(super) element_strides: Option<Vec<u32>>,
    pub(super) swizzle: Option<String>,
    pub(super) oob_fill: Option<String>,
    pub(super) interleave: Option<String>,
    pub(super) l2_promotion: Option<String>,
    /// `tile` (default, `cuTensorMapEncodeTiled`) or `im2col` (`cuTensorMapEncodeIm2col`, with
    /// the four keys below instead of `box`).
    pub(super) mode: Option<String>,
    pub(super) lower_corner: Option<Vec<i32>>,
    pub(super) upper_corner: Option<Vec<i32>>,
    pub(super) channels_per_pixel: Option<u32>,
    pub(super) pixels_per_column: Option<u32>,
    /// A by-value struct: its bytes (a file or a list of byte values), and its fields.
    pub(super) bytes: Option<toml::Value>,
    pub(super) fields: Option<Vec<RawParam>>,
    /// A field's place in its struct, in bytes.
    pub(super) offset: Option<u64>,
    /// A texture or surface object over the named buffer (see `launch/texture.rs`).
    pub(super) texture: Option<String>,
    pub(super) surface: Option<String>,
    pub(super) channels: Option<u8>,
    pub(super) layers: Option<u32>,
    pub(super) pitch: Option<u64>,
    pub(super) resource: Option<String>,
    pub(super) filter: Option<String>,
    pub(super) address: Option<toml::Value>,
    pub(super) normalized: Option<bool>,
    pub(super) read: Option<String>,
    pub(super) border: Option<Vec<f32>>,
    /// A cube map (six square faces) and a mipmapped texture's levels and mipmap sampler.
    pub(super) cubemap: Option<bool>,
    pub(super) levels: Option<u32>,
    pub(super) mipmap_filter: Option<String>,
    pub(super) lod_bias: Option<f32>,
    pub(super) min_lod: Option<f32>,
    pub(super) max_lod: Option<f32>,
}

impl RawParam {
    /// The keys set, by name, of those that only some kinds of entry take; from index
    /// [`MAP_KEYS`] on, those only a `tensormap` entry takes.
    pub(super) fn keys(&self) -> [(&'static str, bool); 36] {
        [
            ("buffer", self.buffer.is_some()),
            ("type", self.ty.is_some()),
            ("len", self.len.is_some()),
            ("init", self.init.is_some()),
            ("value", self.value.is_some()),
            ("tensormap", self.tensormap.is_some()),
            ("dims", self.dims.is_some()),
            ("strides", self.strides.is_some()),
            ("box", self.boxdim.is_some()),
            ("element_strides", self.element_strides.is_some()),
            ("swizzle", self.swizzle.is_some()),
            ("oob_fill", self.oob_fill.is_some()),
            ("interleave", self.interleave.is_some()),
            ("l2_promotion", self.l2_promotion.is_some()),
            ("mode", self.mode.is_some()),
            ("lower_corner", self.lower_corner.is_some()),
            ("upper_corner", self.upper_corner.is_some()),
            ("channels_per_pixel", self.channels_per_pixel.is_some()),
            ("pixels_per_column", self.pixels_per_column.is_some()),
            ("texture", self.texture.is_some()),
            ("surface", self.surface.is_some()),
            ("channels", self.channels.is_some()),
            ("layers", self.layers.is_some()),
            ("pitch", self.pitch.is_some()),
            ("resource", self.resource.is_some()),
            ("filter", self.filter.is_some()),
            ("address", self.address.is_some()),
            ("normalized", self.normalized.is_some()),
            ("read", self.read.is_some()),
            ("border", self.border.is_some()),
            ("cubemap", self.cubemap.is_some()),
            ("levels", self.levels.is_some()),
            ("mipmap_filter", self.mipmap_filter.is_some()),
            ("lod_bias", self.lod_bias.is_some()),
            ("min_lod", self.min_lod.is_some()),
            ("max_lod", self.max_lod.is_some()),
        ]
    }

    pub(super) fn ty(&self, field: &str) -> Result<Type, LaunchError> {
        match &self.ty {
            Some(t) => parse_type(t, &format!("{field}.type")),
            None => err(format!(
                "{field}.type: missing (u8 i8 u16 i16 u32 i32 u64 i64 f16 bf16 f32 f64)"
            )),
        }
    }

    /// A tensor map's type: also `f32_ftz`, `tf32` and `tf32_ftz` (f32 data, `F32Mode`).
    pub(super) fn map_ty(&self, field: &str) -> Result<(Type, F32Mode), LaunchError> {
        match self.ty.as_deref().and_then(F32Mode::parse) {
            Some(m) => Ok((Type::F32, m)),
            None => Ok((self.ty(field)?, F32Mode::Plain)),
        }
    }
}
