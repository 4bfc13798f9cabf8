//! The approximate instructions as an H100 computes them (PTX ISA 9.0 section 9.7.3: `rcp`,
//! `rsqrt`, `sqrt`, `ex2` `.approx`, `div.approx`, `div.full`; 9.7.4 for the half forms).
//!
//! ptxas turns each into one instruction of the special function unit (MUFU.RCP, .RSQ, .SQRT,
//! .EX2, .EX2.F16, ...) plus, for the forms without `.ftz` and for `div`, a few ordinary f32
//! instructions around it that scale subnormal or huge operands (read from the SASS of sm_90;
//! [`rcp`], [`rsqrt`], ... reproduce those sequences). The MUFU results themselves come from
//! tables measured on an H100 over each function's base domain (`docs/numerics/approx`): the
//! reciprocal over [1, 2), square root and reciprocal square root over [1, 4), 2^x over the
//! 2^-23 grid of [0, 1) for positive and negative arguments, the half-precision forms over all
//! 65,536 inputs. Everything else follows from exponent rules that the campaign checked over all
//! 2^32 inputs of every f32 form, bit for bit.

use std::sync::OnceLock;

/// A measured table: packed (2-bit differences with checkpoints) or plain.
enum Table {
    Packed {
        /// The value at every 64th index.
        base: Vec<u32>,
        /// Per block of 64 values, the differences (minus `offset`) of values 1..63 as 2-bit
        /// fields at bits 2j..2j+2.
        fields: Vec<u128>,
        offset: i32,
    },
    Plain(Vec<u32>),
    /// Smoothly varying f32 values: each predicted from the two before it (see
    /// [`smooth_next`]), stored as 2-bit codes of the difference (-1, 0, +1, escape); per block
    /// of [`SMOOTH_BLOCK`] the first two values and where its escapes start.
    Smooth {
        starts: Vec<[u32; 2]>,
        codes: Vec<u64>,
        escape_at: Vec<u32>,
        escapes: Vec<i32>,
    },
}

/// The value after `a`, `b` (f32 bits) given the difference code or escaped difference `d`:
/// the prediction 2b - a is computed in f64 and rounded to f32, as the table writer did.
fn smooth_next(a: u32, b: u32, d: i32) -> u32 {
    let p = 2.0 * f64::from(f32::from_bits(b)) - f64::from(f32::from_bits(a));
    (p as f32).to_bits().wrapping_add(d as u32)
}

/// Values per block of a smooth table: a lookup decodes at most this many.
const SMOOTH_BLOCK: usize = 32;

const EVEN_BITS: u128 = 0x5555_5555_5555_5555_5555_5555_5555_5555;

impl Table {
    /// Decodes one of `sfu/*.zz` (written by `docs/numerics/approx/make-tables.py`).
    fn load(zz: &[u8]) -> Table {
        let raw = miniz_oxide::inflate::decompress_to_vec_zlib(zz).expect("embedded table");
        let word = |at: usize| u32::from_le_bytes(raw[at..at + 4].try_into().unwrap());
        let (count, kind, offset, first) = (word(0) as usize, raw[4], word(5) as i32, word(9));
        let payload = &raw[13..];
        if kind == 3 {
            return Table::smooth(count, first, payload);
        }
        if kind == 4 {
            let v = payload
                .chunks_exact(4)
                .map(|c| u32::from_le_bytes(c.try_into().unwrap()));
            return Table::Plain(v.collect());
        }
        let field = |i: usize| u32::from((payload[i / 4] >> (2 * (i % 4))) & 3);
        let blocks = count.div_ceil(64);
        let (mut base, mut fields) = (Vec::with_capacity(blocks), vec![0u128; blocks]);
        let mut value = first;
        for i in 0..count {
            if i > 0 {
                let f = field(i - 1);
                value = value.wrapping_add(f).wrapping_add(offset as u32);
                if i % 64 != 0 {
                    fields[i / 64] |= u128::from(f) << (2 * (i % 64));
                }
            }
            if i % 64 == 0 {
                base.push(value);
            }
        }
        Table::Packed {
            base,
            fields,
            offset,
        }
    }

    /// Decodes a kind-3 payload (the second value, codes, escapes) into blocks.
    fn smooth(count: usize, first: u32, payload: &[u8]) -> Table {
        let word = |at: usize| u32::from_le_bytes(payload[at..at + 4].try_into().unwrap());
        let second = word(0);
        let code_bytes = (count - 2).div_ceil(4);
        let codes_of = &payload[4..4 + code_bytes];
        let n_esc = word(4 + code_bytes) as usize;
        let escapes: Vec<i32> = (0..n_esc)
            .map(|k| word(8 + code_bytes + 4 * k) as i32)
            .collect();
        const B: usize = SMOOTH_BLOCK;
        let blocks = count.div_ceil(B);
        let mut t = (
            vec![[0u32; 2]; blocks],
            vec![0u64; blocks],
            vec![0u32; blocks],
        );
        let (mut a, mut b, mut used) = (first, second, 0usize);
        for i in 0..count {
            let v = match i {
                0 => first,
                1 => second,
                _ => {
                    let c = (codes_of[(i - 2) / 4] >> (2 * ((i - 2) % 4))) & 3;
                    t.1[i / B] |= u64::from(c) << (2 * (i % B));
                    let d = if c == 3 {
                        used += 1;
                        escapes[used - 1]
                    } else {
                        i32::from(c) - 1
                    };
                    smooth_next(a, b, d)
                }
            };
            // A block's escapes start after those of its first two values.
            match i % B {
                0 => t.0[i / B][0] = v,
                1 => {
                    t.0[i / B][1] = v;
                    t.2[i / B] = used as u32;
                }
                _ => {}
            }
            (a, b) = (b, v);
        }
        Table::Smooth {
            starts: t.0,
            codes: t.1,
            escape_at: t.2,
            escapes,
        }
    }

    fn get(&self, i: usize) -> u32 {
        match self {
            Table::Plain(v) => v[i],
            Table::Smooth {
                starts,
                codes,
                escape_at,
                escapes,
            } => {
                let (blk, k) = (i / SMOOTH_BLOCK, i % SMOOTH_BLOCK);
                let [mut a, mut b] = starts[blk];
                if k == 0 {
                    return a;
                }
                let mut esc = escape_at[blk] as usize;
                for j in 2..=k {
                    let c = (codes[blk] >> (2 * j)) & 3;
                    let d = if c == 3 {
                        esc += 1;
                        escapes[esc - 1]
                    } else {
                        c as i32 - 1
                    };
                    (a, b) = (b, smooth_next(a, b, d));
                }
                b
            }
            Table::Packed {
                base,
                fields,
                offset,
            } => {
                let (b, k) = (i / 64, (i % 64) as u32);
                // Fields 1..=k sit at bits 2..2k+2.
                let mask = if k == 0 {
                    0
                } else {
                    (u128::MAX >> (128 - 2 * k)) << 2
                };
                let w = fields[b] & mask;
                let sum = (w & EVEN_BITS).count_ones() + 2 * (w & !EVEN_BITS).count_ones();
                base[b]
                    .wrapping_add(sum)
                    .wrapping_add((*offset as u32).wrapping_mul(k))
            }
        }
    }
}

macro_rules! table {
    ($name:ident, $file:literal) => {
        fn $name() -> &'static Table {
            static T: OnceLock<Table> = OnceLock::new();
            T.get_or_init(|| Table::load(include_bytes!(concat!("sfu/", $file))))
        }
    };
}

table!(rcp_table, "rcp.zz");
table!(rsq_table, "rsq.zz");
table!(sqrt_table, "sqrt.zz");
table!(ex2_pos_table, "ex2p.zz");
table!(ex2_neg_table, "ex2n.zz");
table!(lg2_lo_table, "lg2lo.zz");
table!(lg2_hi_table, "lg2hi.zz");
table!(rcp64_table, "rcp64.zz");
table!(rsq64_table, "rsq64.zz");
table!(sin_table, "sin.zz");
table!(cos_table, "cos.zz");
table!(tanh_table, "tanh.zz");
table!(ex2_f16_table, "ex2_f16.zz");
table!(ex2_bf16_table, "ex2_bf16.zz");
table!(tanh_f16_table, "tanh_f16.zz");
table!(tanh_bf16_table, "tanh_bf16.zz");

const SIGN: u32 = 0x8000_0000;
const INF: u32 = 0x7f80_0000;
const NAN: u32 = 0x7fff_ffff;

fn exp_field(x: u32) -> i32 {
    ((x >> 23) & 0xff) as i32
}

/// `t` (a positive normal table value) with its exponent field moved by `shift`; below the
/// normal range the unit flushes to zero, above it gives infinity.
fn rescale(t: u32, shift: i32) -> u32 {
    let e = exp_field(t) + shift;
    if e <= 0 {
        0
    } else if e >= 255 {
        INF
    } else {
        (e as u32) << 23 | (t & 0x7f_ffff)
    }
}

/// MUFU.RCP: 1/x, subnormal inputs and results flushed.
pub fn mufu_rcp(x: u32) -> u32 {
    let (s, e, m) = (x & SIGN, exp_field(x), x & 0x7f_ffff);
    match e {
        0 => s | INF,
        255 if m != 0 => NAN,
        255 => s,
        _ => s | rescale(rcp_table().get(m as usize), 127 - e),
    }
}

/// The table index and exponent shift of a square-root-like function of a positive normal x:
/// x = 1.m * 2^odd * 4^half.
fn sqrt_index(x: u32) -> (usize, i32) {
    let unbiased = exp_field(x) - 127;
    let odd = unbiased & 1;
    (
        ((odd as u32) << 23 | (x & 0x7f_ffff)) as usize,
        (unbiased - odd) / 2,
    )
}

/// MUFU.RSQ: 1/sqrt(x), subnormal inputs flushed.
pub fn mufu_rsq(x: u32) -> u32 {
    let (s, e, m) = (x & SIGN, exp_field(x), x & 0x7f_ffff);
    match e {
        0 => s | INF,
        _ if s != 0 => NAN,
        255 if m != 0 => NAN,
        255 => 0,
        _ => {
            let (i, half) = sqrt_index(x);
            rescale(rsq_table().get(i), -half)
        }
    }
}

/// MUFU.SQRT: sqrt(x), subnormal inputs flushed.
pub fn mufu_sqrt(x: u32) -> u32 {
    let (s, e, m) = (x & SIGN, exp_field(x), x & 0x7f_ffff);
    match e {
        0 => s,
        _ if s != 0 => NAN,
        255 if m != 0 => NAN,
        255 => INF,
        _ => {
            let (i, half) = sqrt_index(x);
            rescale(sqrt_table().get(i), half)
        }
    }
}

/// MUFU.EX2: 2^x. The unit truncates |x| to a multiple of 2^-23, then scales a table value of
/// the fraction (one table for positive, one for negative x) by the integer part.
pub fn mufu_ex2(x: u32) -> u32 {
    let (neg, e, m) = (x & SIGN != 0, exp_field(x), x & 0x7f_ffff);
    if e == 255 {
        return match (m, neg) {
            (0, false) => INF,
            (0, true) => 0,
            _ => NAN,
        };
    }
    if e >= 127 + 8 {
        return if neg { 0 } else { INF };
    }
    let sig = if e == 0 { 0 } else { u64::from(m | 0x80_0000) };
    let shift = e - 127;
    let q = if shift >= 0 {
        sig << shift
    } else {
        sig >> (-shift).min(63)
    };
    let (int, frac) = ((q >> 23) as i32, (q & 0x7f_ffff) as usize);
    if neg {
        rescale(ex2_neg_table().get(frac), -int)
    } else {
        rescale(ex2_pos_table().get(frac), int)
    }
}

/// `v` rounded toward zero to f32 (bits).
fn round_toward_zero(v: f64) -> u32 {
    let r = v as f32;
    if f64::from(r).abs() > v.abs() {
        r.to_bits() - 1
    } else {
        r.to_bits()
    }
}

/// MUFU.LG2: log2(x) for x = 1.m * 2^e. The unit adds e to a fixed-point log2 of the
/// significand and truncates: for e = 0 the table of [1, 2) itself, for e > 0 that value plus
/// e, for e < 0 the table of [0.5, 1) (which carries the low bits negative results need) plus
/// e + 1, each rounded toward zero; subnormal inputs are flushed.
pub fn mufu_lg2(x: u32) -> u32 {
    let (s, e, m) = (x & SIGN, exp_field(x), (x & 0x7f_ffff) as usize);
    match e {
        0 => 0xff80_0000,
        _ if s != 0 => NAN,
        255 if m != 0 => NAN,
        255 => INF,
        127 => lg2_hi_table().get(m),
        _ if e > 127 => {
            let t = f64::from(f32::from_bits(lg2_hi_table().get(m)));
            round_toward_zero(f64::from(e - 127) + t)
        }
        _ => {
            let t = f64::from(f32::from_bits(lg2_lo_table().get(m)));
            round_toward_zero(f64::from(e - 126) + t)
        }
    }
}

/// The index into the sine and cosine tables of an argument `t` in revolutions: the fraction
/// of |t| truncated to 25 bits (subnormal t is flushed: index 0).
fn revolution_index(t: u32) -> usize {
    let e = exp_field(t);
    let sig = if e == 0 {
        0
    } else {
        u64::from(t & 0x7f_ffff | 0x80_0000)
    };
    let shift = e - 125;
    let q = if shift >= 0 {
        if shift > 40 {
            0
        } else {
            sig << shift
        }
    } else {
        sig >> (-shift).min(63)
    };
    (q & ((1 << 25) - 1)) as usize
}

/// MUFU.SIN / MUFU.COS of `t` revolutions: tables of a whole revolution at 2^-25, sine odd
/// and cosine even in the sign of t.
fn mufu_sincos(t: u32, cos: bool) -> u32 {
    if exp_field(t) == 255 {
        return NAN;
    }
    let q = revolution_index(t);
    if cos {
        cos_table().get(q)
    } else {
        sin_table().get(q) ^ (t & SIGN)
    }
}

/// `sin.approx{.ftz}.f32` / `cos.approx{.ftz}.f32`: the argument times 1/(2 pi) rounded
/// toward zero (FMUL.RZ by 0x3e22f983, the same sequence with and without `.ftz`), then the unit.
pub fn sincos(x: u32, cos: bool) -> u32 {
    let t = f64::from(f32_of(x)) * f64::from(f32_of(0x3e22_f983));
    let t = if t.is_nan() {
        NAN
    } else {
        round_toward_zero(t)
    };
    mufu_sincos(t, cos)
}

/// Per exponent field 119..=129 (|x| in [2^-8, 8)), the number of low fraction bits MUFU.TANH
/// ignores; below that range it returns x, above it +-1.
const TANH_GRAIN: [u32; 11] = [6, 6, 6, 5, 5, 4, 4, 4, 3, 2, 3];

/// `tanh.approx.f32` (MUFU.TANH): odd; x itself below 2^-8, +-1 from 8 on, a table of the
/// quantized magnitude between.
pub fn tanh(x: u32) -> u32 {
    let (s, e) = (x & SIGN, exp_field(x));
    match e {
        255 if x & 0x7f_ffff != 0 => NAN,
        0..=118 => x,
        130.. => s | 0x3f80_0000,
        _ => {
            let k = (e - 119) as usize;
            let base: usize = TANH_GRAIN[..k].iter().map(|g| (1usize << 23) >> g).sum();
            let i = base + ((x & 0x7f_ffff) >> TANH_GRAIN[k]) as usize;
            s | tanh_table().get(i)
        }
    }
}

fn f32_of(b: u32) -> f32 {
    f32::from_bits(b)
}

/// The canonical NaN for any NaN, as the hardware's FMUL writes.
fn canonical(v: u32) -> u32 {
    if v & !SIGN > INF {
        NAN
    } else {
        v
    }
}

/// FMUL.FTZ: a product with subnormal operands and result flushed to zero (sign kept).
fn fmul_ftz(a: u32, b: u32) -> u32 {
    let flush = |v: u32| if v & INF == 0 { v & SIGN } else { v };
    canonical(flush((f32_of(flush(a)) * f32_of(flush(b))).to_bits()))
}

fn fmul(a: u32, b: u32) -> u32 {
    canonical((f32_of(a) * f32_of(b)).to_bits())
}

/// `|x| < 2^-126` as FSETP.GEU's negation: false for NaN.
fn tiny(x: u32) -> bool {
    x & !SIGN < 0x0080_0000
}

/// `|x| > 2^126`, false for NaN.
fn huge(x: u32) -> bool {
    let a = x & !SIGN;
    a > 0x7e80_0000 && a <= INF
}

const TWO_24: u32 = 0x4b80_0000;
const QUARTER: u32 = 0x3e80_0000;

/// The high word of an f64 table value for a positive normal input's high word, with the
/// exponent (11 bits) moved by `shift`: flushed below the normal range, infinite above.
fn rescale64(t: u32, shift: i32) -> u32 {
    let e = ((t >> 20) & 0x7ff) as i32 + shift;
    if e <= 0 {
        0
    } else if e >= 0x7ff {
        0x7ff0_0000
    } else {
        (e as u32) << 20 | (t & 0xf_ffff)
    }
}

/// `rcp.approx.ftz.f64` (MUFU.RCP64H): reads only the high word of x (sign, exponent, top 20
/// fraction bits) and writes only the high word of the result; the low word is zero, a NaN
/// result is 0x7fffffff_00000000.
pub fn rcp64(x: u64) -> u64 {
    let hi = (x >> 32) as u32;
    let (s, e, m) = (hi & SIGN, ((hi >> 20) & 0x7ff) as i32, hi & 0xf_ffff);
    let r = match e {
        0 => s | 0x7ff0_0000,
        0x7ff if m != 0 => NAN,
        0x7ff => s,
        _ => s | rescale64(rcp64_table().get(m as usize), 1023 - e),
    };
    u64::from(r) << 32
}

/// `rsqrt.approx.ftz.f64` (MUFU.RSQ64H): the high word only, as [`rcp64`].
pub fn rsqrt64(x: u64) -> u64 {
    let hi = (x >> 32) as u32;
    let (s, e, m) = (hi & SIGN, ((hi >> 20) & 0x7ff) as i32, hi & 0xf_ffff);
    let r = match e {
        0 => s | 0x7ff0_0000,
        _ if s != 0 => NAN,
        0x7ff if m != 0 => NAN,
        0x7ff => 0,
        _ => {
            let unbiased = e - 1023;
            let odd = unbiased & 1;
            let i = ((odd as u32) << 20 | m) as usize;
            rescale64(rsq64_table().get(i), -(unbiased - odd) / 2)
        }
    };
    u64::from(r) << 32
}

/// `rsqrt.approx.f64` without `.ftz`: ptxas refines MUFU.RSQ64H once (sm_90 SASS): with
/// y = RSQ64H(x) and e = fma(x, -y*y, 1), the result is fma(fma(e, 0.375, 0.5), y*e, y). Zero
/// gives +-infinity, negative numbers the default NaN, infinity +0, a NaN itself quieted, and a
/// subnormal x is scaled by 2^54 first and the result by 2^27.
pub fn rsqrt64_refined(x: u64) -> u64 {
    let hi = (x >> 32) as u32;
    let refine = |v: f64| {
        let y = f64::from_bits(rsqrt64(v.to_bits()));
        let e = v.mul_add(-(y * y), 1.0);
        e.mul_add(0.375, 0.5).mul_add(y * e, y)
    };
    if hi.wrapping_sub(0x0010_0000) < 0x7fe0_0000 {
        return refine(f64::from_bits(x)).to_bits();
    }
    let v = f64::from_bits(x);
    let sign = x & (1 << 63);
    if v == 0.0 {
        sign | 0x7ff0_0000_0000_0000
    } else if v.is_nan() {
        x | 0x0008_0000_0000_0000
    } else if sign != 0 {
        0xfff8_0000_0000_0000
    } else if v.is_infinite() {
        0
    } else {
        (refine(v * 18_014_398_509_481_984.0) * 134_217_728.0).to_bits()
    }
}

/// `rcp.approx{.ftz}.f32`.
pub fn rcp(x: u32, ftz: bool) -> u32 {
    if ftz {
        return mufu_rcp(x);
    }
    let scale = if huge(x) {
        QUARTER
    } else if tiny(x) {
        TWO_24
    } else {
        0x3f80_0000
    };
    fmul(scale, mufu_rcp(fmul(x, scale)))
}

/// `rsqrt.approx{.ftz}.f32`: a subnormal input is scaled by 2^24 and the result by 2^12.
pub fn rsqrt(x: u32, ftz: bool) -> u32 {
    if ftz || !tiny(x) {
        return mufu_rsq(x);
    }
    fmul(mufu_rsq(fmul(x, TWO_24)), 0x4580_0000)
}

/// `sqrt.approx{.ftz}.f32`: a subnormal input is scaled by 2^24 and the result by 2^-12.
pub fn sqrt(x: u32, ftz: bool) -> u32 {
    if ftz || !tiny(x) {
        return mufu_sqrt(x);
    }
    fmul(mufu_sqrt(fmul(x, TWO_24)), 0x3980_0000)
}

/// `ex2.approx{.ftz}.f32`: below -126 the argument is halved and the result squared, so
/// subnormal results survive.
pub fn ex2(x: u32, ftz: bool) -> u32 {
    let below = f32_of(x) < -126.0;
    if ftz || !below {
        return mufu_ex2(x);
    }
    let r = mufu_ex2(fmul(x, 0x3f00_0000));
    fmul(r, r)
}

/// `lg2.approx{.ftz}.f32`: a subnormal input is scaled by 2^24 and 24 subtracted.
pub fn lg2(x: u32, ftz: bool) -> u32 {
    if ftz || !tiny(x) {
        return mufu_lg2(x);
    }
    canonical((f32_of(mufu_lg2(fmul(x, TWO_24))) + -24.0).to_bits())
}

/// `div.approx{.ftz}.f32` and `div.full{.ftz}.f32`: a times the reciprocal of b, with b (and a
/// alike) scaled into the reciprocal's range first: `.full` scales a huge b by 1/4, and both
/// forms without `.ftz` a subnormal b by 2^24.
pub fn div(a: u32, b: u32, full: bool, ftz: bool) -> u32 {
    let (mut a, mut b) = (a, b);
    if ftz {
        if full && huge(b) {
            a = fmul_ftz(a, QUARTER);
            b = fmul_ftz(b, QUARTER);
        }
        return fmul_ftz(a, mufu_rcp(b));
    }
    if full && huge(b) {
        a = fmul(a, QUARTER);
        b = fmul(b, QUARTER);
    }
    if tiny(b) {
        a = fmul(a, TWO_24);
        b = fmul(b, TWO_24);
    }
    if full {
        fmul(mufu_rcp(b), a)
    } else {
        fmul(a, mufu_rcp(b))
    }
}

/// The half-precision MUFU forms: `ex2.approx.f16`, `ex2.approx.ftz.bf16`, `tanh.approx.f16`,
/// `tanh.approx.bf16` (and their x2 forms, half by half).
pub fn half(op: HalfOp, x: u16) -> u16 {
    let t = match op {
        HalfOp::Ex2F16 => ex2_f16_table(),
        HalfOp::Ex2Bf16 => ex2_bf16_table(),
        HalfOp::TanhF16 => tanh_f16_table(),
        HalfOp::TanhBf16 => tanh_bf16_table(),
    };
    t.get(usize::from(x)) as u16
}

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum HalfOp {
    Ex2F16,
    Ex2Bf16,
    TanhF16,
    TanhBf16,
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn tables_decode_to_their_measured_ends() {
        // MUFU.RCP(1) = 1 and MUFU.RCP(2 - 2^-23) = 0x3f000001 (measured).
        assert_eq!(mufu_rcp(0x3f80_0000), 0x3f80_0000);
        assert_eq!(mufu_rcp(0x3fff_ffff), 0x3f00_0001);
        assert_eq!(mufu_rcp(0x3f80_0001), 0x3f7f_fffe);
        assert_eq!(mufu_ex2(0x3f80_0000), 0x4000_0000);
        assert_eq!(mufu_ex2(0), 0x3f80_0000);
        assert_eq!(mufu_rsq(0x4080_0000), 0x3f00_0000);
    }

    #[test]
    fn packed_lookup_matches_a_sequential_decode() {
        let t = rcp_table();
        let mut prev = t.get(0);
        for i in 1..5000 {
            let v = t.get(i);
            assert!(prev.wrapping_sub(v) <= 2, "{i}: {prev:#x} -> {v:#x}");
            prev = v;
        }
    }
}

#[cfg(test)]
mod smooth_tests {
    use super::*;

    /// Random access into a smooth table agrees with decoding it from the start, across block
    /// boundaries and escapes (the two first values of a block may be escapes themselves).
    #[test]
    fn smooth_lookup_matches_a_sequential_decode() {
        let t = lg2_hi_table();
        let Table::Smooth { escapes, .. } = t else {
            panic!("lg2hi is a smooth table")
        };
        assert!(!escapes.is_empty());
        let (mut a, mut b) = (t.get(0), t.get(1));
        for i in 2..200_000 {
            let v = t.get(i);
            // Monotone and close to its prediction, or an escape: never a wild value.
            let p = smooth_next(a, b, 0);
            assert!(v >= b, "{i}");
            assert!(v.abs_diff(p) < 1 << 22, "{i}: {v:#x} vs {p:#x}");
            (a, b) = (b, v);
        }
        assert_eq!(mufu_lg2(0x3f80_0000), 0);
        assert_eq!(mufu_lg2(0x4000_0000), 0x3f80_0000);
    }
}
