//! Texture and surface objects (what `cudaCreateTextureObject` / `cudaCreateSurfaceObject`
//! make; PTX ISA 9.0 section 5.3 "Texture Sampler and Surface Types", 9.7.10) and the sampling
//! arithmetic of an H100, as measured (`scripts/probes/tex_probe.cu`, results in
//! `docs/launch/textures.md`).
//!
//! An object's texels live in a device buffer, densely, x fastest, then y, then z or the layer
//! (a `pitch` may space the rows). Sampling, as the H100 does it:
//! - Coordinates: NaN and subnormal ones read as 0. A normalized coordinate is cut to 21 to 23
//!   fraction bits (rounding down) and then scaled by the size (`scale_normalized`).
//! - A coordinate `c` picks texel `floor(c)` (point), or
//!   texels `i = floor(c - 0.5)` and `i + 1` with weight `k / 256` on the second, where
//!   `k = round-half-up(frac(c - 0.5) * 256)` (0..=256). In 2D the four weights are
//!   `w11 = round-half-up(k*l/256)`, `w10 = k - w11`, `w01 = l - w11`,
//!   `w00 = 256 - k - l + w11`. A 1D texture is filtered as one row of a 2D one sampled at
//!   y = 0, so the row above is the border when the second axis is in border mode.
//! - Float texels are blended exactly as this: subnormals flushed to zero; every texel with a
//!   nonzero weight truncated toward zero to a multiple of `2^(E - 28)`, `E` the largest binary
//!   exponent (`frexp`) among them; the weighted sum rounded to f32 to nearest, ties away
//!   from zero; a subnormal result flushed; a NaN texel gives `0x7FFFFFFF`. Half texels have
//!   their own path (`blend_half`).
//! - Address modes: clamp, wrap and mirror (normalized coordinates only: unnormalized ones
//!   clamp), border (the border colour, converted to the texel format for normalized reads:
//!   `border_texel`). Layers clamp as unsigned (a negative layer is the last). Missing
//!   channels read as 0.
//! - Unsigned/signed normalized reads divide by 2^n - 1 (f32, correctly rounded); signed ones
//!   clamp at -1. Linear filtering of u8, u16 and s16 read as normalized floats widens texels
//!   to 16 bits (u8: `v * 257`), sums them with the weights, rounds half up to 16 bits and
//!   divides in f32; s8 texels are summed raw and the sum scaled once (`blend_s8`).
//! - 3D linear filtering weighs the two z slices as two mipmap levels (`mem::trilinear`).
//!
//! - Mipmaps (`tex.level`, measured on an H200, `scripts/probes/mip_cube_probe.cu`): level `l`
//!   is `max(1, size >> l)` texels along each axis, its coordinates scaled by that size. The
//!   level of a lod: `floor(lod * 256) / 256` (NaN: 0), plus the bias truncated toward zero to
//!   1/256, clamped to `[min, min(max, levels - 1)]`; point mipmap filtering takes the nearest
//!   level (halves up), linear the two around it with the fraction as the weight (of 256).
//!   Blending levels (and trilinear filtering): `mem::trilinear`.
//! - Cube maps (`tex.cube`): six faces, sampled as 2D normalized textures on the face the
//!   direction picks (`exec::texcube`); no filtering across face edges.
//!
//! The rules of half, s8, 3D, border-mode and non-power-of-two filtering were measured on an
//! H200 (`scripts/probes/tex_linear_probe.cu`, four rounds, and the `fit_*.py` scripts beside
//! it). What was not measured is an `unsupported` error, never an approximation
//! (`linear_unsupported`, `level_blend_unsupported`, `gather_unsupported`): among others blends
//! of levels outside clamp mode or of other formats than f32 and u8 read as normalized floats,
//! and 1D trilinear filtering. `tex.grad`'s level is `mem::gradlod`.

use crate::ir::Type;

/// A channel's storage format.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Chan {
    U8,
    S8,
    U16,
    S16,
    U32,
    S32,
    F16,
    F32,
}

impl Chan {
    pub fn of(t: Type) -> Option<Chan> {
        Some(match t {
            Type::U8 => Chan::U8,
            Type::S8 => Chan::S8,
            Type::U16 => Chan::U16,
            Type::S16 => Chan::S16,
            Type::U32 => Chan::U32,
            Type::S32 => Chan::S32,
            Type::F16 => Chan::F16,
            Type::F32 => Chan::F32,
            _ => return None,
        })
    }

    pub fn bytes(self) -> usize {
        match self {
            Chan::U8 | Chan::S8 => 1,
            Chan::U16 | Chan::S16 | Chan::F16 => 2,
            Chan::U32 | Chan::S32 | Chan::F32 => 4,
        }
    }

    pub fn is_float(self) -> bool {
        matches!(self, Chan::F16 | Chan::F32)
    }
}

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum AddrMode {
    Wrap,
    Clamp,
    Mirror,
    Border,
}

impl AddrMode {
    pub fn parse(s: &str) -> Option<AddrMode> {
        Some(match s {
            "wrap" => AddrMode::Wrap,
            "clamp" => AddrMode::Clamp,
            "mirror" => AddrMode::Mirror,
            "border" => AddrMode::Border,
            _ => return None,
        })
    }
}

/// A mipmapped object's levels and its sampler's mipmap settings (`cudaTextureDesc`'s
/// `mipmapFilterMode`, `mipmapLevelBias`, `min/maxMipmapLevelClamp`), lods in 1/256 of a level.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Mips {
    /// Levels the object holds (1: not mipmapped).
    pub levels: u32,
    /// Linear filtering between levels.
    pub linear: bool,
    /// The bias, truncated toward zero to 1/256 (measured).
    pub bias: i32,
    pub min: u32,
    pub max: u32,
}

impl Mips {
    pub const NONE: Mips = Mips {
        levels: 1,
        linear: false,
        bias: 0,
        min: 0,
        max: 0,
    };

    /// The level a lod picks and the weight (of 256) of the next one, as the H200 does it
    /// (measured on 40,000 lods, 8 sampler settings, 1D and 2D: no mismatch).
    pub fn select(&self, lod: f32) -> (u32, u32) {
        let l = if lod.is_nan() {
            0.0
        } else {
            f64::from(lod).clamp(-1e7, 1e7)
        };
        self.select_fixed((l * 256.0).floor() as i64)
    }

    /// [`Mips::select`] of a lod already in 1/256 of a level (`tex.grad`'s, measured:
    /// `mem::gradlod`); `i64::MIN` and `i64::MAX` are the infinities.
    pub fn select_fixed(&self, lod256: i64) -> (u32, u32) {
        // Never past the last level (the launch refuses a minimum beyond it).
        let top = self.max.min(self.levels.saturating_sub(1) * 256);
        let q = lod256
            .saturating_add(i64::from(self.bias))
            .clamp(i64::from(self.min.min(top)), i64::from(top)) as u32;
        if self.linear {
            (q >> 8, q & 255)
        } else {
            ((q + 128) >> 8, 0)
        }
    }
}

/// One texture or surface object.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct TexObject {
    pub surface: bool,
    /// Global address of texel (0, 0, 0) (set when the launch places the buffer).
    pub base: u64,
    pub chan: Chan,
    pub channels: u8,
    /// Width, height, depth (1 where the geometry has fewer dimensions).
    pub size: [u32; 3],
    /// Spatial dimensions: 1..3.
    pub ndim: u8,
    /// Layers of a layered object.
    pub layers: Option<u32>,
    /// Bytes from one row to the next.
    pub pitch: u64,
    pub linear: bool,
    pub normalized: bool,
    pub address: [AddrMode; 3],
    /// `cudaReadModeNormalizedFloat`.
    pub read_float: bool,
    /// The border colour's f32 bits, per channel.
    pub border: [u32; 4],
    /// A cube map: six `size[0]` x `size[0]` faces, one after another.
    pub cube: bool,
    pub mips: Mips,
}

impl TexObject {
    /// Bytes of one texel.
    pub fn elem_bytes(&self) -> u64 {
        (self.chan.bytes() * usize::from(self.channels)) as u64
    }

    /// Bytes from the first texel to the end of the last.
    pub fn extent(&self) -> u64 {
        if self.mips.levels > 1 {
            return self.level_base(self.mips.levels);
        }
        let faces = if self.cube { 6 } else { 1 };
        let slices = u64::from(self.size[2]) * u64::from(self.layers.unwrap_or(faces));
        let rows = u64::from(self.size[1]) * slices;
        (rows - 1) * self.pitch + u64::from(self.size[0]) * self.elem_bytes()
    }

    /// Byte offset of texel (x, y, z or layer or face) of level 0, all in range.
    pub fn offset(&self, x: u32, y: u32, z: u32) -> u64 {
        let row = u64::from(z) * u64::from(self.size[1]) + u64::from(y);
        row * self.pitch + u64::from(x) * self.elem_bytes()
    }

    /// The size of level `l`: `max(1, size >> l)` along each axis the object has.
    pub fn level_size(&self, l: u32) -> [u32; 3] {
        let mut s = self.size;
        for n in s.iter_mut().take(usize::from(self.ndim)) {
            *n = n.checked_shr(l).unwrap_or(0).max(1);
        }
        s
    }

    /// Byte offset of level `l` (levels are dense, one after another).
    fn level_base(&self, l: u32) -> u64 {
        (0..l)
            .map(|k| {
                self.level_size(k)
                    .iter()
                    .map(|&n| u64::from(n))
                    .product::<u64>()
            })
            .sum::<u64>()
            * self.elem_bytes()
    }

    /// Byte offset of texel (x, y, z or layer) of level `l`, all in range.
    pub fn offset_at(&self, l: u32, x: u32, y: u32, z: u32) -> u64 {
        if l == 0 {
            return self.offset(x, y, z);
        }
        let s = self.level_size(l);
        let row = u64::from(z) * u64::from(s[1]) + u64::from(y);
        self.level_base(l) + (row * u64::from(s[0]) + u64::from(x)) * self.elem_bytes()
    }
}

/// A texel position along one axis after the address mode: an index, or the border.
pub fn resolve(mode: AddrMode, normalized: bool, i: i64, n: u32) -> Option<u32> {
    let n = i64::from(n);
    let mode = match mode {
        // Measured: wrap and mirror clamp unnormalized coordinates.
        AddrMode::Wrap | AddrMode::Mirror if !normalized => AddrMode::Clamp,
        m => m,
    };
    let j = match mode {
        AddrMode::Clamp => i.clamp(0, n - 1),
        AddrMode::Wrap => i.rem_euclid(n),
        AddrMode::Mirror => {
            let m = i.rem_euclid(2 * n);
            if m < n {
                m
            } else {
                2 * n - 1 - m
            }
        }
        AddrMode::Border if i < 0 || i >= n => return None,
        AddrMode::Border => i,
    };
    Some(j as u32)
}

/// A coordinate in texel space (normalized ones scaled by the size). A NaN coordinate is 0, and
/// so is a subnormal one (measured: -1e-40 reads texel 0 in border mode, not the border).
pub fn texel_coord(c: f32, normalized: bool, n: u32) -> f64 {
    let c = if c.is_nan() || c.is_subnormal() {
        0.0
    } else {
        f64::from(c)
    };
    if normalized {
        c * f64::from(n)
    } else {
        c
    }
}

/// Fraction bits of a normalized coordinate whose precision follows `n` texels: 21 up to 8192
/// texels, 22 up to 65536, 23 above (measured on an H200 for 27 sizes from 3 to 131072,
/// `scripts/probes/fit_sizes2.py`). In 2D and 3D, x and y take the precision of the largest
/// size, z that of its own (round four of the probe: 3 x 9000, 9000 x 3, 100 x 20000,
/// 3 x 3 x 9000, 9000 x 3 x 3).
pub fn fraction_bits(n: u32) -> i32 {
    let bits = 32 - n.max(1).wrapping_sub(1).leading_zeros() as i32;
    21 + (bits - 11).max(0) / 3
}

/// A normalized coordinate `x` (NaN and subnormals already 0) in texel space on an axis of `n`
/// texels, as the unit computes it for point and linear filtering (measured): `x` is cut to
/// `fraction_bits(largest)` fraction bits, rounding down, before it is scaled by the size (the
/// precision comes from `largest`, see `fraction_bits`); exact f64 arithmetic
/// throughout. Wrap and mirror keep the fraction of one or two periods (the same texels as
/// folding the indices after; infinities read as 0), the other modes saturate far outside.
pub fn scale_normalized(x: f64, n: u32, largest: u32, mode: AddrMode) -> f64 {
    let one = f64::from(1u32 << fraction_bits(largest));
    let xs = x * one;
    let xf = match mode {
        AddrMode::Wrap => xs.floor().rem_euclid(one),
        AddrMode::Mirror => xs.floor().rem_euclid(2.0 * one),
        AddrMode::Clamp | AddrMode::Border => xs.clamp(-4.0 * one, 4.0 * one).floor(),
    };
    let xf = if xf.is_nan() { 0.0 } else { xf };
    xf * f64::from(n) / one
}

/// Beyond any texture on either side (sizes are below 2^17).
const FAR: f64 = (1u64 << 40) as f64;

/// The pair of texels of linear filtering along one axis and the weight `k` (of 256) of the
/// second. Saturates far outside any texture (where every mode gives the same texels).
pub fn lerp_pos(c: f64) -> (i64, u32) {
    let b = c - 0.5;
    let f = b.floor();
    // 0..=256; 0 for an infinite coordinate (the texels are those of the nearest edge).
    let k = (((b - f) * 256.0 + 0.5).floor() as u32).min(256);
    (f.clamp(-FAR, FAR) as i64, k)
}

/// The first texel of a gather (`tld4`) along one axis: the coordinate is rounded to 1/256 of a
/// texel first, so a weight that rounds up to a whole texel moves the footprint (measured).
pub fn gather_pos(c: f64) -> i64 {
    let (i, k) = lerp_pos(c);
    if k == 256 {
        i + 1
    } else {
        i
    }
}

/// The point-sampled texel along one axis.
pub fn point_pos(c: f64) -> i64 {
    c.floor().clamp(-FAR, FAR) as i64
}

/// The four weights (of 256) of 2D linear filtering: texels (i, j), (i+1, j), (i, j+1),
/// (i+1, j+1).
pub fn weights_2d(k: u32, l: u32) -> [u32; 4] {
    let w11 = (k * l + 128) >> 8;
    [256 + w11 - k - l, k - w11, l - w11, w11]
}

/// The blend of float texels with integer weights summing to 256, as the H100 computes it.
/// `in_footprint` marks the texels whose own axis weights are all nonzero: a NaN or infinity
/// among them reaches the result even where the combined 2D weight rounds to 0 (measured).
pub fn blend(texels: &[f32], weights: &[u32], in_footprint: &[bool]) -> f32 {
    let specials = texels
        .iter()
        .zip(in_footprint)
        .filter(|(t, &p)| p && !t.is_finite())
        .map(|(t, _)| *t);
    if specials.clone().any(f32::is_nan) {
        return f32::from_bits(0x7FFF_FFFF);
    }
    let infs: Vec<f32> = specials.collect();
    if let Some(&first) = infs.first() {
        return if infs.iter().all(|&x| x == first) {
            first
        } else {
            f32::from_bits(0x7FFF_FFFF)
        };
    }
    let mut terms: [(f32, u32); 4] = [(0.0, 0); 4];
    let mut n = 0;
    for (&t, &w) in texels.iter().zip(weights) {
        if w > 0 && n < 4 {
            let t = if t.is_subnormal() {
                0.0f32.copysign(t)
            } else {
                t
            };
            terms[n] = (t, w);
            n += 1;
        }
    }
    let terms = &terms[..n];
    if terms.iter().all(|(t, _)| *t == 0.0) {
        // -0 only when every texel of the footprint is (flushed to) -0, those of weight 0
        // included (measured: a footprint texel of weight 0 holding -1e9 makes it +0).
        let negative_zero = |t: f32| t == 0.0 || t.is_subnormal();
        let all_neg = texels
            .iter()
            .zip(in_footprint)
            .filter(|(_, &p)| p)
            .all(|(&t, _)| negative_zero(t) && t.is_sign_negative());
        return if all_neg { -0.0 } else { 0.0 };
    }
    // Exponent of the largest texel, as frexp gives it (value = m * 2^e, 0.5 <= |m| < 1).
    let e = terms
        .iter()
        .filter(|(t, _)| *t != 0.0)
        .map(|(t, _)| frexp_exp(*t))
        .max()
        .unwrap_or(0);
    // Each texel as a multiple of 2^(e - 28), truncated toward zero: |t| < 2^e, so the
    // integer has at most 28 bits; times a weight of at most 9 bits, summed over 4: < 2^39.
    let mut acc: i64 = 0;
    for &(t, w) in terms {
        let q = scaled_trunc(t, 28 - e);
        acc += q * i64::from(w);
    }
    // The value is acc * 2^(e - 28 - 8).
    round_to_f32(acc, e - 36)
}

pub(crate) fn frexp_exp(t: f32) -> i32 {
    let bits = t.to_bits();
    let biased = ((bits >> 23) & 0xff) as i32;
    biased - 126
}

/// trunc(t * 2^s) for a normal (or zero) f32 `t`.
pub(crate) fn scaled_trunc(t: f32, s: i32) -> i64 {
    if t == 0.0 {
        return 0;
    }
    let bits = t.to_bits();
    let mant = i64::from((bits & 0x7f_ffff) | 0x80_0000);
    // t = mant * 2^(exp - 150)
    let exp = ((bits >> 23) & 0xff) as i32 - 150 + s;
    let mag = if exp >= 0 {
        mant << exp.min(40)
    } else if exp > -40 {
        mant >> -exp
    } else {
        0
    };
    if t < 0.0 {
        -mag
    } else {
        mag
    }
}

/// `acc * 2^p` rounded to f32: to nearest, ties away from zero; subnormal results flushed to
/// zero, overflow to infinity.
pub(crate) fn round_to_f32(acc: i64, p: i32) -> f32 {
    if acc == 0 {
        return 0.0;
    }
    let neg = acc < 0;
    let mut m = acc.unsigned_abs();
    let mut p = p;
    let bits = 64 - m.leading_zeros() as i32;
    if bits > 24 {
        let drop = bits - 24;
        let half = 1u64 << (drop - 1);
        let rest = m & ((1u64 << drop) - 1);
        m >>= drop;
        if rest >= half {
            m += 1;
        }
        p += drop;
        if m == 1 << 24 {
            m >>= 1;
            p += 1;
        }
    }
    // value = m * 2^p, m < 2^24
    let v = (m as f64) * 2f64.powi(p);
    let f = v as f32; // exact: m has at most 24 bits (or overflow to inf)
    let f = if f.is_subnormal() { 0.0 } else { f };
    if neg {
        -f
    } else {
        f
    }
}

/// A texel's channel `ch` as the result register holds it: f32 bits (float formats, or any
/// format read as normalized float), else the integer (sign- or zero-extended).
pub fn channel(obj: &TexObject, texel: &[u8], ch: usize) -> u32 {
    if ch >= usize::from(obj.channels) {
        return 0;
    }
    let b = obj.chan.bytes();
    let at = &texel[ch * b..(ch + 1) * b];
    let u = at
        .iter()
        .rev()
        .fold(0u32, |acc, &x| (acc << 8) | u32::from(x));
    let unorm = |max: f32| (u as f32 / max).to_bits();
    let snorm = |v: i32, max: f32| (v as f32 / max).max(-1.0).to_bits();
    match (obj.chan, obj.read_float) {
        (Chan::F32, _) => u,
        (Chan::F16, _) => half::f16::from_bits(u as u16).to_f32().to_bits(),
        (Chan::U8, true) => unorm(255.0),
        (Chan::U16, true) => unorm(65535.0),
        (Chan::S8, true) => snorm(i32::from(u as u8 as i8), 127.0),
        (Chan::S16, true) => snorm(i32::from(u as u16 as i16), 32767.0),
        (Chan::S8, false) => u as u8 as i8 as i32 as u32,
        (Chan::S16, false) => u as u16 as i16 as i32 as u32,
        _ => u,
    }
}

/// Whether results come back as f32 (else as integers).
pub fn returns_float(obj: &TexObject) -> bool {
    obj.chan.is_float() || obj.read_float
}

/// A normalized texel channel widened to 16 bits as the filter does (measured): u8 by bit
/// replication (`v * 257`), u16 and s16 as they are; and the divisor back to [0, 1] / [-1, 1].
pub fn widen16(obj: &TexObject, texel: &[u8], ch: usize) -> (i64, f32) {
    if ch >= usize::from(obj.channels) {
        return (0, 1.0);
    }
    let b = obj.chan.bytes();
    let at = &texel[ch * b..(ch + 1) * b];
    match obj.chan {
        Chan::U8 => (i64::from(at[0]) * 257, 65535.0),
        Chan::S16 => (i64::from(i16::from_le_bytes([at[0], at[1]])), 32767.0),
        _ => (i64::from(u16::from_le_bytes([at[0], at[1]])), 65535.0),
    }
}

/// Linear filtering of u8, u16 or s16 texels read as normalized floats, as the H100 does it
/// (measured): the texels widened to 16 bits, summed with the integer weights, rounded to a
/// 16-bit value (half up), divided in f32 and clamped at -1.
pub fn blend_normalized(obj: &TexObject, texels: &[[u8; 16]], weights: &[u32], ch: usize) -> f32 {
    if obj.chan == Chan::S8 {
        if ch >= usize::from(obj.channels) {
            return 0.0;
        }
        return blend_s8(texels, weights, ch);
    }
    let mut acc: i64 = 0;
    let mut den = 1.0;
    for (t, &w) in texels.iter().zip(weights) {
        let (v, d) = widen16(obj, t, ch);
        acc += v * i64::from(w);
        den = d;
    }
    let q = (acc + 128).div_euclid(256);
    (q as f32 / den).max(-1.0)
}

/// Linear filtering of s8 texels read as normalized floats (measured on an H200, every pair of
/// values at random weights, `scripts/probes/fit_s8.py`): the raw values are blended, and the
/// sum `p` (of 256ths) converted once, `q = floor((258 p + 32 floor(p / 4096) + 128) / 256)`,
/// divided by 32767 in f32 and clamped at -1. Widening each texel first (as u8 is) misses 19%.
fn blend_s8(texels: &[[u8; 16]], weights: &[u32], ch: usize) -> f32 {
    let p: i64 = texels
        .iter()
        .zip(weights)
        .map(|(t, &w)| i64::from(t[ch] as i8) * i64::from(w))
        .sum();
    let q = (258 * p + ((p >> 12) << 5) + 128) >> 8;
    (q as f32 / 32767.0).max(-1.0)
}

/// The blend of half texels (raw bits) with integer weights summing to 256, as an H200 computes
/// it (measured: 1,048,576 1D and 262,144 2D samples of random halves with every class, and
/// 4,662 chosen pairs; `scripts/probes/fit_half.py`, `fit_round2.py`). Its own fixed-point
/// path: each texel of nonzero weight an integer multiple of 2^-24 (subnormals kept), truncated
/// toward zero to 15 significant bits of the largest; the weighted sum rounded to a half (11
/// bits, none finer than 2^-24), ties away from zero, with the sum's sign. A NaN in the
/// footprint, or infinities of both signs, give the half NaN 0x7FFF; equal infinities
/// themselves. A sum of exactly zero is -0 when every texel of nonzero weight is -0, else +0.
pub fn blend_half(texels: &[u16], weights: &[u32], in_footprint: &[bool]) -> f32 {
    let nan = f32::from_bits(0x7FFF_E000);
    let foot: Vec<u16> = texels
        .iter()
        .zip(in_footprint)
        .filter(|(_, &p)| p)
        .map(|(&h, _)| h)
        .collect();
    if foot.iter().any(|&h| h & 0x7fff > 0x7c00) {
        return nan;
    }
    let mut infs = foot.iter().filter(|&&h| h & 0x7fff == 0x7c00);
    if let Some(&first) = infs.next() {
        return match infs.all(|&h| h == first) {
            true => half::f16::from_bits(first).to_f32(),
            false => nan,
        };
    }
    let fixed = |h: u16| -> i64 {
        let (e, m) = ((h >> 10) & 0x1f, i64::from(h & 0x3ff));
        let mag = if e == 0 { m } else { (m | 1024) << (e - 1) };
        if h & 0x8000 != 0 {
            -mag
        } else {
            mag
        }
    };
    let weighted: Vec<(i64, i64, u16)> = texels
        .iter()
        .zip(weights)
        .filter(|(_, &w)| w > 0)
        .map(|(&h, &w)| (fixed(h), i64::from(w), h))
        .collect();
    let bits = weighted
        .iter()
        .map(|(m, ..)| 64 - m.unsigned_abs().leading_zeros())
        .max()
        .unwrap_or(0);
    let drop = bits.saturating_sub(15);
    let s: i64 = weighted
        .iter()
        .map(|&(m, w, _)| w * m.signum() * ((m.unsigned_abs() >> drop << drop) as i64))
        .sum();
    if s == 0 {
        let all_negative_zero = weighted.iter().all(|&(.., h)| h == 0x8000);
        return if all_negative_zero { -0.0 } else { 0.0 };
    }
    // |s| * 2^-32 to 11 significant bits, the last of them no finer than 2^-24: the shift is
    // at least 8.
    let mag = s.unsigned_abs();
    let lsb = (64 - mag.leading_zeros() as i32 - 32 - 11).max(-24);
    let shift = lsb + 32;
    let q = (mag + (1 << (shift - 1))) >> shift;
    let v = (q as f64 * 2f64.powi(lsb)) as f32;
    if s < 0 {
        -v
    } else {
        v
    }
}

/// The border colour as a texel of this object's format, for objects read as normalized floats
/// (measured on an H200, 288 colours, `scripts/probes/fit_round2.py`): each channel's magnitude,
/// at most 1, truncated to `n` fraction bits, then to the nearest of `max` steps, ties down;
/// negative colours read 0 (unsigned formats) or the negated step (s16). Point sampling and
/// linear filtering both read this texel. `None` where that is not measured: other formats, a
/// NaN or infinite colour, and u8 colours where the bits kept (10 to 17 fit the data) would
/// matter.
pub fn border_texel(obj: &TexObject) -> Option<[u8; 16]> {
    let (bits, max): (&[u32], u64) = match obj.chan {
        Chan::U8 => (&[10, 11, 12, 13, 14, 15, 16, 17], 255),
        Chan::U16 => (&[20], 65535),
        Chan::S16 => (&[19], 32767),
        _ => return None,
    };
    if !obj.read_float {
        return None;
    }
    let bytes = obj.chan.bytes();
    let mut t = [0u8; 16];
    for (ch, &b) in obj
        .border
        .iter()
        .enumerate()
        .take(usize::from(obj.channels))
    {
        let c = f32::from_bits(b);
        if !c.is_finite() {
            return None;
        }
        if c.is_sign_negative() && obj.chan != Chan::S16 {
            // Unsigned formats read 0 for any negative colour.
            continue;
        }
        let a = f64::from(c.abs().min(1.0));
        let step = |n: u32| {
            let f = (a * f64::from(1u32 << n)).floor() as u64;
            (f * max + (1 << (n - 1)) - 1) >> n
        };
        let q = step(bits[0]);
        if bits.iter().any(|&n| step(n) != q) {
            return None;
        }
        let v = if c.is_sign_negative() {
            -(q as i64)
        } else {
            q as i64
        };
        t[ch * bytes..(ch + 1) * bytes].copy_from_slice(&v.to_le_bytes()[..bytes]);
    }
    Some(t)
}

/// Why linear filtering between the mipmap levels of this object (with `spatial` coordinates)
/// is not modelled, if it is not (`mem::trilinear` has what was measured).
pub fn level_blend_unsupported(obj: &TexObject, spatial: usize) -> Option<&'static str> {
    if obj.address[..spatial].iter().any(|m| *m != AddrMode::Clamp) {
        return Some("linear filtering between mipmap levels in other address modes than clamp (not measured)");
    }
    if !(obj.chan == Chan::F32 || obj.read_float && obj.chan == Chan::U8) {
        return Some("linear filtering between mipmap levels of texels other than f32 and u8 read as normalized floats (not measured)");
    }
    if obj.linear && spatial != 2 {
        return Some("trilinear filtering of a 1D texture (not measured)");
    }
    if obj.linear && obj.size[..spatial].iter().any(|n| !n.is_power_of_two()) {
        return Some("trilinear filtering over a size that is not a power of two (not measured)");
    }
    None
}

/// Whether the object's coordinates on its first `spatial` axes come out of the unit's cut to
/// fixed point (`scale_normalized`) as if scaled exactly: unnormalized ones, and normalized
/// ones over powers of two up to 4096.
fn exactly_scaled(obj: &TexObject, spatial: usize) -> bool {
    let exact = |n: &u32| n.is_power_of_two() && *n <= 4096;
    !obj.normalized || obj.size[..spatial].iter().all(exact)
}

/// Why `tld4` on this object is not modelled, if it is not: gathers were measured with
/// normalized coordinates over powers of two up to 4096 only (where the coordinate's cut to
/// fixed point changes nothing) and with f32 border colours.
pub fn gather_unsupported(obj: &TexObject) -> Option<&'static str> {
    if !exactly_scaled(obj, usize::from(obj.ndim)) {
        return Some("`tld4` with normalized coordinates over a size that is not a power of two up to 4096 (not measured)");
    }
    if obj.chan != Chan::F32 && obj.border != [0; 4] && obj.address.contains(&AddrMode::Border) {
        return Some("`tld4` of a border colour in another format than f32 (not measured)");
    }
    None
}

/// Why linear filtering of this object is not modelled, if it is not.
pub fn linear_unsupported(obj: &TexObject, spatial: usize) -> Option<&'static str> {
    let normalized8or16 =
        obj.read_float && matches!(obj.chan, Chan::U8 | Chan::S8 | Chan::U16 | Chan::S16);
    if !matches!(obj.chan, Chan::F32 | Chan::F16) && !normalized8or16 {
        return Some("linear filtering of texels that are not floats or 8/16-bit integers read as normalized floats");
    }
    // What the 3D and border measurements covered: f32 texels and u8 read as normalized floats.
    let f32_or_u8 = obj.chan == Chan::F32 || obj.read_float && obj.chan == Chan::U8;
    let modes = &obj.address[..spatial];
    if obj.layers.is_some() && !exactly_scaled(obj, spatial) {
        return Some("linear filtering of a layered texture with normalized coordinates over a size that is not a power of two up to 4096 (the unit's coordinate precision was not measured on layered textures)");
    }
    if spatial == 3 && !f32_or_u8 {
        return Some("3D linear filtering of texels other than f32 and u8 read as normalized floats (not measured)");
    }
    // A 1D texture is filtered as one row of a 2D one, whose second axis's mode decides
    // whether the row above is the border (measured).
    let row_border = spatial == 1 && obj.address[1] == AddrMode::Border;
    if modes.contains(&AddrMode::Border) || row_border {
        if obj.mips.levels > 1 {
            return Some("linear filtering of a mipmapped texture in border mode (not measured)");
        }
        if obj.layers.is_some() || obj.cube {
            return Some(
                "linear filtering of a layered texture or cube map in border mode (not measured)",
            );
        }
        if !f32_or_u8 {
            return Some("linear filtering in border mode of texels other than f32 and u8 read as normalized floats (not measured)");
        }
        let odd = |&b: &u32| {
            let c = f32::from_bits(b);
            !c.is_finite() || c.is_subnormal()
        };
        if obj.border[..usize::from(obj.channels)].iter().any(odd) {
            return Some(
                "linear filtering with an infinite, NaN or subnormal border colour (not measured)",
            );
        }
    }
    None
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn weights_follow_the_measured_rounding() {
        assert_eq!(lerp_pos(0.5), (0, 0));
        assert_eq!(lerp_pos(1.5 - 1.0 / 512.0), (0, 256));
        assert_eq!(lerp_pos(0.25), (-1, 192));
        assert_eq!(lerp_pos(1e30).1, 0);
        assert_eq!(lerp_pos(f64::INFINITY).1, 0);
        assert_eq!(weights_2d(54, 192), [51, 13, 151, 41]);
        assert_eq!(weights_2d(0, 0), [256, 0, 0, 0]);
    }

    #[test]
    fn blend_truncates_small_texels_to_the_largest_exponent() {
        // Measured on the H100 (probe B_lin): k = 252, t0 = 12.044498, t1 = 1.617775e-7.
        let (t0, t1) = (f32::from_bits(0x4140_b644), f32::from_bits(0x342d_b510));
        let all = [true; 4];
        assert_eq!(blend(&[t0, t1], &[4, 252], &all).to_bits(), 0x3e40_b64c);
        // A subnormal texel is flushed, keeping its sign.
        assert_eq!(
            blend(&[-3e-39, 0.5], &[256, 0], &[true, false]).to_bits(),
            0x8000_0000
        );
        assert_eq!(
            blend(&[f32::NAN, 1.0], &[128, 128], &all).to_bits(),
            0x7FFF_FFFF
        );
        assert_eq!(blend(&[1.0, 3.0], &[128, 128], &all), 2.0);
        // Measured (filter_adversarial, sample 2324): k = 251, l = 10 gives texel (i, j+1) a
        // weight of 0, but its infinity still reaches the result.
        let t = [278.110_7, -0.498_498, f32::INFINITY, 0.000_514_394_3];
        assert_eq!(blend(&t, &weights_2d(251, 10), &all), f32::INFINITY);
    }

    /// A 1D object of two texels of one channel, linear, read as normalized floats.
    fn two_texels(chan: Chan) -> TexObject {
        TexObject {
            surface: false,
            base: 0,
            chan,
            channels: 1,
            size: [2, 1, 1],
            ndim: 1,
            layers: None,
            pitch: 2,
            linear: true,
            normalized: false,
            address: [AddrMode::Clamp; 3],
            read_float: true,
            border: [0; 4],
            cube: false,
            mips: Mips::NONE,
        }
    }

    #[test]
    fn normalized_texels_blend_at_16_bits() {
        let mut o = two_texels(Chan::U8);
        let t = |b: &[u8]| {
            let mut x = [0u8; 16];
            x[..b.len()].copy_from_slice(b);
            x
        };
        // A texel's own value at its centre: 1/255.
        assert_eq!(
            blend_normalized(&o, &[t(&[1]), t(&[9])], &[256, 0], 0),
            1.0 / 255.0
        );
        // 200*257 and 7*257 at k = 77: (179*51400 + 77*1799 + 128) / 256 = 36481 (half up).
        let r = blend_normalized(&o, &[t(&[200]), t(&[7])], &[179, 77], 0);
        assert_eq!(r, 36481.0 / 65535.0);
        o.chan = Chan::S16;
        let min = i16::MIN.to_le_bytes();
        assert_eq!(
            blend_normalized(&o, &[t(&min), t(&min)], &[128, 128], 0),
            -1.0
        );
    }

    #[test]
    fn levels_follow_the_measured_selection() {
        let m = |linear, bias, min, max| Mips {
            levels: 7,
            linear,
            bias,
            min,
            max,
        };
        // Point: the nearest level, halves up; NaN is 0, infinity the last level.
        let p = m(false, 0, 0, 6 * 256);
        assert_eq!(p.select(0.5), (1, 0));
        assert_eq!(p.select(0.499), (0, 0));
        assert_eq!(p.select(f32::NAN), (0, 0));
        assert_eq!(p.select(f32::INFINITY), (6, 0));
        assert_eq!(p.select(-3.0), (0, 0));
        // Measured with a bias of -0.7 (-179/256 after truncation): level 1 from 1.19921875.
        let b = m(false, -179, 0, 6 * 256);
        assert_eq!(b.select(307.0 / 256.0), (1, 0));
        assert_eq!(b.select(1.198_242_2), (0, 0));
        // Linear, bias 0.3 (76/256), clamped to [1.25, 4.5]: lod 0.95703125 gives 1.25390625.
        let l = m(true, 76, 320, 1152);
        assert_eq!(l.select(245.0 / 256.0), (1, 65));
        assert_eq!(l.select(0.956), (1, 64));
        assert_eq!(l.select(9.0), (4, 128));
        // The maximum clamp stops at the last level.
        assert_eq!(m(true, 0, 0, 20 * 256).select(8.0), (6, 0));
    }

    #[test]
    fn mirror_and_wrap_fold_indices() {
        assert_eq!(resolve(AddrMode::Mirror, true, -1, 4), Some(0));
        assert_eq!(resolve(AddrMode::Mirror, true, 4, 4), Some(3));
        assert_eq!(resolve(AddrMode::Wrap, true, -1, 4), Some(3));
        assert_eq!(resolve(AddrMode::Wrap, false, -1, 4), Some(0));
        assert_eq!(resolve(AddrMode::Border, true, 4, 4), None);
    }

    #[test]
    fn normalized_coordinates_are_cut_to_fixed_point() {
        for (n, bits) in [
            (3, 21),
            (8192, 21),
            (8193, 22),
            (65536, 22),
            (65537, 23),
            (131072, 23),
        ] {
            assert_eq!(fraction_bits(n), bits, "{n}");
        }
        // Measured class (probe p2_clamp_7): the f32 above 1/7 times 7 is above 1, but cut to 21
        // bits first it is below: point sampling reads texel 0.
        let x = f64::from(1.0f32 / 7.0);
        assert!(x * 7.0 >= 1.0);
        assert!(scale_normalized(x, 7, 7, AddrMode::Clamp) < 1.0);
        // Over a power of two up to 4096 the cut changes no texel and no weight.
        let c = scale_normalized(x, 4096, 4096, AddrMode::Clamp);
        assert_eq!(lerp_pos(c), lerp_pos(x * 4096.0));
        assert_eq!(point_pos(c), point_pos(x * 4096.0));
        assert_eq!(scale_normalized(-0.25, 4, 4, AddrMode::Wrap), 3.0);
        assert_eq!(scale_normalized(f64::INFINITY, 7, 7, AddrMode::Wrap), 0.0);
        assert_eq!(
            scale_normalized(f64::NEG_INFINITY, 7, 7, AddrMode::Clamp),
            -28.0
        );
    }

    #[test]
    fn half_texels_blend_in_their_own_fixed_point() {
        let all = [true; 2];
        // Measured (probe h1): a tiny negative sum keeps its sign.
        assert_eq!(
            blend_half(&[0x0305, 0x8277], &[115, 141], &all).to_bits(),
            0x8000_0000
        );
        // Measured (probe h3): opposite infinities, cancellation, negative zeros.
        assert_eq!(
            blend_half(&[0x7c00, 0xfc00], &[128, 128], &all).to_bits(),
            0x7FFF_E000
        );
        assert_eq!(
            blend_half(&[0x3c00, 0xbc00], &[128, 128], &all).to_bits(),
            0
        );
        assert_eq!(
            blend_half(&[0x8000, 0x8000], &[128, 128], &all).to_bits(),
            0x8000_0000
        );
        // A whole weight returns the texel, subnormals included.
        assert_eq!(
            blend_half(&[0x0001, 0x3c00], &[256, 0], &all),
            2f32.powi(-24)
        );
        // 1 and 2 halfway: 1.5 exactly.
        assert_eq!(blend_half(&[0x3c00, 0x4000], &[128, 128], &all), 1.5);
    }

    #[test]
    fn s8_texels_blend_before_they_are_converted() {
        let t = |v: i8| {
            let mut x = [0u8; 16];
            x[0] = v as u8;
            x
        };
        let one = |v: i8| blend_s8(&[t(v), t(0)], &[256, 0], 0);
        // Measured: 1 reads 258/32767 (not 1/127), 64 reads 16513/32767, -65 -16771/32767.
        assert_eq!(one(1), 258.0 / 32767.0);
        assert_eq!(one(64), 16513.0 / 32767.0);
        assert_eq!(one(-65), -16771.0 / 32767.0);
        assert_eq!(one(-128), -1.0);
    }

    #[test]
    fn border_colours_become_texels_of_the_format() {
        let o = |chan: Chan, c: f32| TexObject {
            address: [AddrMode::Border; 3],
            border: [c.to_bits(); 4],
            ..two_texels(chan)
        };
        let v = |chan: Chan, c: f32| {
            border_texel(&o(chan, c)).map(|t| i16::from_le_bytes([t[0], t[1]]))
        };
        // Measured (bc_colours): ties go down; the colour is cut before it is rounded.
        assert_eq!(v(Chan::U8, 0.5).map(|x| x & 0xff), Some(127));
        assert_eq!(v(Chan::U16, 0.5), Some(32767));
        assert_eq!(v(Chan::S16, -0.5), Some(-16383));
        assert_eq!(v(Chan::U16, 0.001), Some(65));
        assert_eq!(v(Chan::U8, -1.0).map(|x| x & 0xff), Some(0));
        assert_eq!(v(Chan::U8, f32::NAN), None);
        assert_eq!(v(Chan::F16, 0.5), None);
    }
}
