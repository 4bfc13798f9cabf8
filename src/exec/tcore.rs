//! Tensor-core arithmetic as pure functions: one element of `D = A x B + C` from a row of A, a
//! column of B and an element of C, for every element type `mma` takes (PTX ISA 9.0 section
//! 9.7.14.5.14 gives the operation; the ISA leaves the floating-point rounding open).
//!
//! The floating-point model is the Hopper one measured by Fasi, Higham, Mikaitis and Pranesh
//! (2021) and by MMA-Sim (Xie et al., arXiv 2511.10909): each product is exact; the products and
//! C are aligned to the largest exponent among them (a product's exponent is the sum of its
//! factors' exponents, before normalisation; a zero term counts as 2^-133, or 2^-21 for an f16
//! result: MMA-Sim's e_zero) and each is truncated
//! toward zero to 25 bits after that binary point; the sum is exact; it is normalised once, into
//! f32 rounding toward zero or into f16 rounding to nearest even. A NaN anywhere (or inf x 0,
//! or inf - inf) gives the canonical NaN, otherwise an infinite product or C gives that
//! infinity. tf32 operands lose their low 13 bits. The fp8 forms are what ptxas makes of them
//! on sm_90 (two f16 steps and an add, see [`f8_dot`]). Every form is compared with an H100 over
//! random and adversarial operands (`docs/numerics/mma`). Integer forms are exact, wrapping to
//! 32 bits or, with `.satfinite`, saturating. `.f64` forms are a chain of fused multiply-adds in
//! k order (rounded as `.rz`/`.rm`/`.rp` say, or to nearest). The sm_70 `m8n8k4` `.f16` form,
//! which sm_90 lacks, is the f32 emulation ptxas compiles it to ([`quad_dot`]).

use crate::ir::mma::Elem;

/// Fraction bits kept after the largest exponent when the terms are aligned (Hopper).
const ALIGN_BITS: i32 = 25;

/// A decoded floating-point operand.
#[derive(Debug, Clone, Copy, PartialEq)]
enum Val {
    Nan,
    Inf(bool),
    /// `(-1)^neg * sig * 2^(exp - frac)`: `sig` holds the significand with `frac` fraction
    /// bits (below 1.0 for subnormals, 0 for zeros), `exp` the exponent of its units bit.
    Fin {
        neg: bool,
        sig: u64,
        frac: i32,
        exp: i32,
    },
}

/// (fraction bits, exponent bias, whether the all-ones exponent is inf/NaN) of a float format.
fn format(e: Elem) -> (i32, i32, u32, bool) {
    // (frac, bias, exponent bits, ieee specials)
    match e {
        Elem::F16 => (10, 15, 5, true),
        Elem::Bf16 => (7, 127, 8, true),
        Elem::Tf32 => (10, 127, 8, true),
        Elem::F32 => (23, 127, 8, true),
        Elem::E4m3 => (3, 7, 4, false),
        Elem::E5m2 => (2, 15, 5, true),
        _ => (0, 0, 0, true),
    }
}

/// Decodes the low bits of `bits` as an element of float format `e`.
fn decode(bits: u64, e: Elem) -> Val {
    let (frac, bias, ebits, ieee) = format(e);
    // tf32 is read from an f32 register; the unit ignores the low 13 bits.
    let bits = if e == Elem::Tf32 { bits >> 13 } else { bits };
    let width = 1 + ebits + frac as u32;
    let neg = bits >> (width - 1) & 1 != 0;
    let field = (bits >> frac) & ((1 << ebits) - 1);
    let man = bits & ((1 << frac) - 1);
    let all_ones = (1 << ebits) - 1;
    if ieee && field == all_ones {
        return if man == 0 { Val::Inf(neg) } else { Val::Nan };
    }
    if !ieee && field == all_ones && man == (1 << frac) - 1 {
        return Val::Nan; // e4m3: S.1111.111
    }
    let min_exp = 1 - bias;
    if field == 0 {
        let exp = if man == 0 { -126 } else { min_exp };
        return Val::Fin {
            neg,
            sig: man,
            frac,
            exp,
        };
    }
    Val::Fin {
        neg,
        sig: man | (1 << frac),
        frac,
        exp: field as i32 - bias,
    }
}

/// The most terms one fused sum takes: 32 products (fp8 is split before) and C.
const MAX_TERMS: usize = 33;

/// One term of the fused sum: sign, integer significand, fraction bits, exponent.
type Term = (bool, u64, i32, i32);

/// Sums the terms as the tensor core does and returns the exact aligned sum `s` with the scale
/// `e`: the result is `s * 2^e`.
///
/// The sum is exact in 64 bits: a term's significand is below `2^(frac + 2)` (a product of two
/// significands below `2^(f + 1)`, or C's), and it is shifted up by at most `align - frac`
/// (its exponent is at most the largest), so each aligned term is below `2^(align + 2)`, at
/// most 2^27, and 33 of them below 2^33.
fn fused_sum(terms: &[Term], align: i32) -> (i128, i32) {
    let max_e = terms.iter().map(|t| t.3).max().unwrap_or(-126);
    let s: i64 = terms.iter().map(|t| aligned(t, align, max_e)).sum();
    (i128::from(s), max_e - align)
}

/// A term aligned to the largest exponent `max_e` with `align` fraction bits kept after it,
/// truncated toward zero ([`fused_sum`]), with its sign.
#[inline(always)]
fn aligned(&(neg, sig, frac, exp): &Term, align: i32, max_e: i32) -> i64 {
    debug_assert!(sig < 1 << (frac + 2) && align <= 25);
    let shift = align - frac + exp - max_e;
    let mag = if shift >= 0 {
        (sig << shift) as i64
    } else if shift > -64 {
        (sig >> -shift) as i64
    } else {
        0
    };
    if neg {
        -mag
    } else {
        mag
    }
}

/// The term of the product of two finite elements `x` and `y` (a zero product takes part in
/// the alignment at `zero_exp`).
#[inline(always)]
fn product_term((n1, s1, f1, e1): Term, (n2, s2, f2, e2): Term, zero_exp: i32) -> Term {
    let e = if s1 == 0 || s2 == 0 {
        zero_exp
    } else {
        e1 + e2
    };
    (n1 != n2, s1 * s2, f1 + f2, e)
}

/// The exponent a zero term takes part in the alignment with, for a D of type `d_ty` (MMA-Sim's
/// e_zero for Hopper; measured with wgmma: f32 results in the subnormal range).
fn zero_exp(d_ty: Elem) -> i32 {
    if d_ty == Elem::F16 {
        -21
    } else {
        -133
    }
}

/// C as a term (a zero at [`zero_exp`]), `None` for an infinity or a NaN.
#[inline(always)]
fn c_term(c: &Val, d_ty: Elem) -> Option<Term> {
    let (neg, sig, frac, exp) = finite(c)?;
    Some((neg, sig, frac, if sig == 0 { zero_exp(d_ty) } else { exp }))
}

/// A finite value as a term, `None` for an infinity or a NaN.
#[inline(always)]
fn finite(v: &Val) -> Option<Term> {
    match *v {
        Val::Fin {
            neg,
            sig,
            frac,
            exp,
        } => Some((neg, sig, frac, exp)),
        _ => None,
    }
}

/// `|s| * 2^e` (s != 0) in an IEEE format with `frac` fraction bits and exponent bias `bias`,
/// rounded toward zero (`nearest` false) or to nearest even; overflow gives infinity.
fn normalise(s: i128, e: i32, frac: i32, bias: i32, nearest: bool) -> u64 {
    let neg = s < 0;
    let mag = s.unsigned_abs();
    let top = 127 - mag.leading_zeros() as i32; // bit index of the leading one
    let min_exp = 1 - bias;
    let exp = (top + e).max(min_exp);
    // Keep the bits from 2^(exp - frac) upward.
    let drop = exp - frac - e;
    let (mut kept, rest_half, rest_sticky) = if drop <= 0 {
        (mag << -drop, false, false)
    } else if drop >= 128 {
        (0, false, mag != 0)
    } else {
        let half = 1u128 << (drop - 1);
        let rest = mag & ((1u128 << drop) - 1);
        (mag >> drop, rest & half != 0, rest & (half - 1) != 0)
    };
    if nearest && rest_half && (rest_sticky || kept & 1 == 1) {
        kept += 1;
    }
    if kept == 0 {
        return 0; // a result that rounds to zero is +0 (measured: f16 underflow)
    }
    let ebits = if bias == 15 { 5 } else { 8 };
    let width = 1 + ebits + frac;
    let sign = u64::from(neg) << (width - 1);
    let inf = sign | (((1u64 << ebits) - 1) << frac);
    // `kept` holds 1.f * 2^frac (or less for subnormals); a carry may add one bit.
    let mut exp = exp;
    if kept >> (frac + 1) != 0 {
        kept >>= 1;
        exp += 1;
    }
    if exp + bias >= (1 << ebits) - 1 {
        return inf;
    }
    let field = if kept >> frac == 0 { 0 } else { exp + bias };
    let man = (kept as u64) & ((1u64 << frac) - 1);
    sign | ((field as u64) << frac) | man
}

/// One element of a floating-point `mma` with f16/bf16/tf32/fp8 operands: `c` and the result
/// in `d_ty` (f32 or f16; PTX has C and D of one type). `a` and `b` hold k elements each.
pub fn float_dot(a: &[u64], b: &[u64], ab: (Elem, Elem), c: u64, d_ty: Elem) -> u64 {
    fused_dot(a, b, ab, c, d_ty, (ALIGN_BITS, 23))
}

/// [`float_dot`] with C of type `c.1` (f16 or f32), D of type `d_ty`, as ptxas compiles
/// `wmma.mma` with D and C of different types (read from its SASS, measured on the H100): an f16
/// C is widened to f32 first (`HADD2.F32`, exact: a subnormal f16 becomes a normal f32 and
/// aligns as one); an f16 D from an f32 C is the f32 result rounded to nearest even
/// (`F2FP.F16.F32`).
pub fn float_dot_mixed(a: &[u64], b: &[u64], ab: (Elem, Elem), c: (u64, Elem), d_ty: Elem) -> u64 {
    mixed(c, d_ty, |c, d_ty| float_dot(a, b, ab, c, d_ty))
}

/// An A or B element decoded once, for the many dot products it takes part in (a row of A
/// meets every column of B).
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Decoded(Val);

/// The low bits of `bits` as an element of float format `e`, decoded once.
pub fn decode_elem(bits: u64, e: Elem) -> Decoded {
    Decoded(decode(bits, e))
}

/// [`float_dot_mixed`] of elements decoded beforehand (`decode_elem` with A's and B's types).
pub fn float_dot_mixed_decoded(a: &[Decoded], b: &[Decoded], c: (u64, Elem), d_ty: Elem) -> u64 {
    mixed(c, d_ty, |c, d_ty| {
        fused_rows((a, b), |d| &d.0, c, d_ty, (ALIGN_BITS, 23))
    })
}

/// C of type `c.1` and D of type `d_ty` around `dot(C as the sum takes it, the sum's type)`.
#[inline(always)]
fn mixed(c: (u64, Elem), d_ty: Elem, dot: impl Fn(u64, Elem) -> u64) -> u64 {
    match (c.1, d_ty) {
        (Elem::F16, Elem::F32) => dot(f32_of_f16(c.0), Elem::F32),
        (Elem::F32, Elem::F16) => f16_of_f32(dot(c.0, Elem::F32)),
        _ => dot(c.0, d_ty),
    }
}

/// f16 bits widened to f32 bits (exact).
fn f32_of_f16(v: u64) -> u64 {
    u64::from(half::f16::from_bits(v as u16).to_f32().to_bits())
}

/// f32 bits rounded to the nearest f16, a NaN canonical (0x7fff).
fn f16_of_f32(v: u64) -> u64 {
    let x = f32::from_bits(v as u32);
    if x.is_nan() {
        0x7fff
    } else {
        u64::from(half::f16::from_f32(x).to_bits())
    }
}

/// One element of an fp8 `wgmma` (e4m3/e5m2, k = 32, one group): the terms are aligned with
/// only 13 fraction bits kept, and an f32 result is truncated to 13 fraction bits (e8m13); an
/// f16 result is rounded to nearest even (MMA-Sim's Hopper model, compared with the H100 in
/// `docs/numerics/wgmma`).
pub fn f8_wgmma_dot(a: &[u64], b: &[u64], ab: (Elem, Elem), c: u64, d_ty: Elem) -> u64 {
    fused_dot(a, b, ab, c, d_ty, (13, 13))
}

/// The fused dot product with `align` fraction bits kept after the largest exponent and `frac`
/// fraction bits in an f32 result (23, or 13 for fp8 `wgmma`).
fn fused_dot(a: &[u64], b: &[u64], ab: (Elem, Elem), c: u64, d_ty: Elem, fmt: (i32, i32)) -> u64 {
    let pairs = a
        .iter()
        .zip(b)
        .map(|(&x, &y)| (decode(x, ab.0), decode(y, ab.1)));
    fused_pairs(pairs, c, d_ty, fmt)
}

/// [`fused_dot`] of the decoded pairs (A's element, B's element) of a row and a column.
#[inline(always)]
fn fused_pairs(
    pairs: impl Iterator<Item = (Val, Val)>,
    c: u64,
    d_ty: Elem,
    (align, f32_frac): (i32, i32),
) -> u64 {
    let d_f16 = d_ty == Elem::F16;
    let nan = if d_f16 { 0x7fff } else { 0x7fff_ffff };
    let zero_exp = zero_exp(d_ty);
    // At most 32 products (f16/bf16 take 16, tf32 8, fp8 is split first); C is one more term.
    let mut terms = [(false, 0u64, 0i32, 0i32); MAX_TERMS];
    let mut count = 0;
    let mut push = |t: Term| {
        if let Some(slot) = terms.get_mut(count) {
            *slot = t;
            count += 1;
        }
    };
    let (mut pos_inf, mut neg_inf, mut is_nan) = (false, false, false);
    let mut note_inf = |neg: bool| {
        if neg {
            neg_inf = true
        } else {
            pos_inf = true
        }
    };
    for pair in pairs {
        match pair {
            (Val::Nan, _) | (_, Val::Nan) => is_nan = true,
            (Val::Inf(p), Val::Inf(q)) => note_inf(p != q),
            (Val::Inf(p), Val::Fin { neg, sig, .. }) | (Val::Fin { neg, sig, .. }, Val::Inf(p)) => {
                if sig == 0 {
                    is_nan = true
                } else {
                    note_inf(p != neg)
                }
            }
            (x, y) => {
                if let (Some(x), Some(y)) = (finite(&x), finite(&y)) {
                    push(product_term(x, y, zero_exp))
                }
            }
        }
    }
    match decode(c, d_ty) {
        Val::Nan => is_nan = true,
        Val::Inf(neg) => note_inf(neg),
        v => {
            if let Some(t) = c_term(&v, d_ty) {
                push(t)
            }
        }
    }
    if is_nan || (pos_inf && neg_inf) {
        return nan;
    }
    let (frac, bias) = if d_f16 { (10, 15) } else { (23, 127) };
    if pos_inf || neg_inf {
        return normalise_inf(neg_inf, frac, bias);
    }
    finish(fused_sum(&terms[..count], align), d_ty, f32_frac)
}

/// The fused sum `s * 2^e` as a D of type `d_ty` (f32 results keep `f32_frac` fraction bits).
fn finish((s, e): (i128, i32), d_ty: Elem, f32_frac: i32) -> u64 {
    let d_f16 = d_ty == Elem::F16;
    let (frac, bias) = if d_f16 { (10, 15) } else { (23, 127) };
    if s == 0 {
        return 0;
    }
    if !d_f16 && f32_frac < 23 {
        // Truncated to `f32_frac` bits, with f32's exponent range, then widened.
        return normalise(s, e, f32_frac, bias, false) << (23 - f32_frac);
    }
    normalise(s, e, frac, bias, d_f16)
}

/// [`fused_pairs`] of a row and a column decoded beforehand, where every element and C are
/// finite (the common case): the terms are not stored but made twice, once to find the largest
/// exponent and once to sum them aligned to it, exactly as [`fused_sum`] sums them. Anything
/// else (an infinity or NaN, more than 32 products) goes to `fused_pairs`.
#[inline(always)]
fn fused_rows<T>(
    (a, b): (&[T], &[T]),
    val: impl Fn(&T) -> &Val + Copy,
    c: u64,
    d_ty: Elem,
    fmt: (i32, i32),
) -> u64 {
    let zero_exp = zero_exp(d_ty);
    let term = |x: &T, y: &T| Some(product_term(finite(val(x))?, finite(val(y))?, zero_exp));
    // The largest exponent among the products, or `None` if one is not finite.
    let max_product_e = a
        .iter()
        .zip(b)
        .try_fold(i32::MIN, |m, (x, y)| term(x, y).map(|t| m.max(t.3)));
    let c_term = c_term(&decode(c, d_ty), d_ty).filter(|_| a.len() < MAX_TERMS);
    let (Some(max_product_e), Some(c_term)) = (max_product_e, c_term) else {
        let pairs = a.iter().zip(b).map(|(x, y)| (*val(x), *val(y)));
        return fused_pairs(pairs, c, d_ty, fmt);
    };
    let (align, max_e) = (fmt.0, max_product_e.max(c_term.3));
    let s = a
        .iter()
        .zip(b)
        .fold(aligned(&c_term, align, max_e), |s, (x, y)| {
            s + term(x, y).map_or(0, |t| aligned(&t, align, max_e))
        });
    finish((i128::from(s), max_e - align), d_ty, fmt.1)
}

fn normalise_inf(neg: bool, frac: i32, bias: i32) -> u64 {
    let ebits = if bias == 15 { 5 } else { 8 };
    (u64::from(neg) << (ebits + frac)) | (((1u64 << ebits) - 1) << frac as u32)
}

/// The value of an integer `mma` element of type `e` (its low bits in `v`): s8/s4 sign-extended,
/// u8/u4 and `.b1` as they are.
pub fn int_value(v: u64, e: Elem) -> i32 {
    let (bits, signed) = int_kind(e);
    int_of(v, bits, signed)
}

/// The width and signedness of integer element type `e` (`.b1` is one unsigned bit).
pub fn int_kind(e: Elem) -> (u32, bool) {
    match e {
        Elem::S8 => (8, true),
        Elem::S4 => (4, true),
        Elem::U8 => (8, false),
        Elem::U4 => (4, false),
        _ => (1, false),
    }
}

/// The low `bits` bits of `v` (1 to 31) as a signed or unsigned integer ([`int_value`] with the
/// type worked out once, for a loop over elements).
#[inline(always)]
pub fn int_of(v: u64, bits: u32, signed: bool) -> i32 {
    let up = 32 - bits;
    match signed {
        true => ((v as i32) << up) >> up,
        false => ((v as u32) << up >> up) as i32,
    }
}

/// One element of an integer `mma`: `a` and `b` hold k element values (`int_value`), `c` an s32;
/// `b1` is `Some(xor)` for the `.b1` forms (`popc` of AND or XOR) and None for products.
#[inline(always)]
pub fn int_dot(a: &[i32], b: &[i32], b1: Option<bool>, c: u64, satfinite: bool) -> u64 {
    // Element values are within [-128, 255] (`int_value`): a product's magnitude is at most
    // 255 * 255, so the sum of up to 32,768 products is exact in 32 bits (the longest K of any
    // form is 256), and a vector unit adds eight at a time.
    debug_assert!(a.len() <= 32_768);
    let terms: i32 = match b1 {
        Some(true) => a.iter().zip(b).map(|(x, y)| x ^ y).sum(),
        Some(false) => a.iter().zip(b).map(|(x, y)| x & y).sum(),
        None => a.iter().zip(b).map(|(&x, &y)| x * y).sum(),
    };
    int_finish(terms, c, satfinite)
}

/// An integer `mma` element from the sum of its `terms` (exact in 32 bits, see [`int_dot`])
/// and C: the s32 sum, clamped with `.satfinite`, else wrapped.
#[inline(always)]
pub fn int_finish(terms: i32, c: u64, satfinite: bool) -> u64 {
    let sum = i64::from(c as u32 as i32) + i64::from(terms);
    let r = if satfinite {
        sum.clamp(i64::from(i32::MIN), i64::from(i32::MAX)) as i32
    } else {
        sum as i32
    };
    u64::from(r as u32)
}

/// One element of an `.f64` `mma`: fused multiply-adds in k order, starting from `c` (the
/// H100's DMMA). A NaN result is the first NaN among the step's b, accumulator and a, quieted
/// (DFMA looks at a, c, b; measured with one NaN in every row of A and column of B), or the
/// default NaN 0xfff8000000000000 for an invalid operation.
pub fn f64_dot(a: &[u64], b: &[u64], c: u64) -> u64 {
    f64_chain(a, b, c, |x, y, acc| {
        f64::from_bits(x)
            .mul_add(f64::from_bits(y), f64::from_bits(acc))
            .to_bits()
    })
}

/// One element of `.f64` `mma`/`wmma.mma` with a rounding modifier (`r`: `.rz`, `.rm`, `.rp`):
/// fused multiply-adds in k order from `c`, each rounded by `r` (ptxas turns these into a
/// chain of `DFMA`s: the DMMA unit rounds to nearest only); NaNs as in [`f64_dot`].
pub fn f64_dot_rounded(a: &[u64], b: &[u64], c: u64, r: rustc_apfloat::Round) -> u64 {
    f64_chain(a, b, c, |x, y, acc| {
        super::fp::fma(super::fp::Fmt::D, x, y, acc, r)
    })
}

/// The chain of fused steps `acc = step(a_k, b_k, acc)` from `c`, with the DMMA's NaN rule: a NaN
/// step gives the first NaN among b, the accumulator and a, quieted, or the default NaN.
fn f64_chain(a: &[u64], b: &[u64], c: u64, step: impl Fn(u64, u64, u64) -> u64) -> u64 {
    let is_nan = |v: u64| v & 0x7fff_ffff_ffff_ffff > 0x7ff0_0000_0000_0000;
    a.iter().zip(b).fold(c, |acc, (&x, &y)| {
        let v = step(x, y, acc);
        if !is_nan(v) {
            return v;
        }
        match [y, acc, x].into_iter().find(|&v| is_nan(v)) {
            Some(v) => v | 1 << 51,
            None => 0xfff8_0000_0000_0000,
        }
    })
}

/// One element of the sm_70 `mma.m8n8k4` `.f16` form (k = 4) on the H100, which has no
/// `HMMA.884`: ptxas emulates it with f32 arithmetic (SASS read with cuobjdump, measured on the
/// H100). The f16 operands are widened to f32 (`HADD2.F32`), so each product is exact; with an
/// f32 D the products are summed in k order from +0 (`FFMA`, each sum rounded to nearest even)
/// and C (of type `c.1`, widened) is added last (`FADD`); with an f16 D the two pair sums
/// `p0 + p1` and `p2 + p3` are formed first, C is added to the first and the second then, and
/// the f32 result is rounded to the nearest f16 (`F2FP`). A NaN is canonical.
pub fn quad_dot(a: &[u64], b: &[u64], c: (u64, Elem), d_ty: Elem) -> u64 {
    let h = |v: u64| half::f16::from_bits(v as u16).to_f32();
    let mut p = [0f32; 4];
    for (k, (&x, &y)) in p.iter_mut().zip(a.iter().zip(b)) {
        *k = h(x) * h(y); // f16 x f16 fits an f32 exactly
    }
    let c = if c.1 == Elem::F16 {
        h(c.0)
    } else {
        f32::from_bits(c.0 as u32)
    };
    if d_ty == Elem::F16 {
        let r = (c + (p[0] + p[1])) + (p[2] + p[3]);
        return f16_of_f32(u64::from(r.to_bits()));
    }
    // The first FFMA adds +0, which turns a -0 product into +0.
    let s = (((0.0f32 + p[0]) + p[1]) + p[2]) + p[3];
    let r = s + c;
    if r.is_nan() {
        0x7fff_ffff
    } else {
        u64::from(r.to_bits())
    }
}

/// One element of an fp8 `mma` (e4m3/e5m2). The H100 has no fp8 `mma.sync`: ptxas widens the
/// operands to f16 (exactly), runs two f16 tensor-core steps, the first over the k with
/// `k % 4 < 2` from zero, the second over the rest on top of it, both in D's type, and adds C
/// last with an ordinary rounded-to-nearest add (FADD, or HADD2 for f16).
pub fn f8_dot(a: &[u64], b: &[u64], ab: (Elem, Elem), c: u64, d_ty: Elem) -> u64 {
    use super::narrow::{f16_from_f8, F8};
    let widen = |v: u64, e: Elem| {
        let f8 = if e == Elem::E4m3 { F8::E4m3 } else { F8::E5m2 };
        u64::from(f16_from_f8(v as u8, f8, false))
    };
    // k <= 32: each half holds at most 16 (a, b) pairs, widened to f16.
    let mut halves = [[[0u64; 16]; 2]; 2];
    let mut len = [0usize; 2];
    for (i, (&x, &y)) in a.iter().zip(b).enumerate().take(32) {
        let h = usize::from(i % 4 >= 2);
        halves[h][0][len[h]] = widen(x, ab.0);
        halves[h][1][len[h]] = widen(y, ab.1);
        len[h] += 1;
    }
    let f16s = (Elem::F16, Elem::F16);
    let half = |h: usize, acc: u64| {
        float_dot(
            &halves[h][0][..len[h]],
            &halves[h][1][..len[h]],
            f16s,
            acc,
            d_ty,
        )
    };
    let both = half(1, half(0, 0));
    add_rn(c, both, d_ty)
}

/// `c + x` in f32 or f16, rounded to nearest even, subnormals kept, a NaN canonical.
fn add_rn(c: u64, x: u64, ty: Elem) -> u64 {
    if ty == Elem::F16 {
        let v = |b: u64| half::f16::from_bits(b as u16).to_f64();
        let r = v(c) + v(x); // exact: f16 sums fit a double
        return if r.is_nan() {
            0x7fff
        } else {
            u64::from(half::f16::from_f64(r).to_bits())
        };
    }
    let r = f32::from_bits(c as u32) + f32::from_bits(x as u32);
    if r.is_nan() {
        0x7fff_ffff
    } else {
        u64::from(r.to_bits())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn h(x: f32) -> u64 {
        u64::from(half::f16::from_f32(x).to_bits())
    }

    #[test]
    fn exact_sums_are_exact() {
        let a = [h(1.5), h(2.0), h(-0.25)];
        let b = [h(2.0), h(0.5), h(4.0)];
        let d = float_dot(
            &a,
            &b,
            (Elem::F16, Elem::F16),
            u64::from(1.0f32.to_bits()),
            Elem::F32,
        );
        assert_eq!(f32::from_bits(d as u32), 4.0);
    }

    #[test]
    fn small_terms_are_truncated_after_25_bits() {
        // 1 + 2^-26 loses the small term; 1 + 2^-25 keeps it, then f32 truncates it away.
        let one = h(1.0);
        let tiny = h(2f32.powi(-13));
        let d = float_dot(
            &[one, tiny],
            &[one, tiny],
            (Elem::F16, Elem::F16),
            0,
            Elem::F32,
        );
        assert_eq!(d, u64::from(1.0f32.to_bits()));
        // -(small) truncates toward zero: 1 - 2^-26 is 1 (the term vanishes).
        let d = float_dot(
            &[one, tiny | 0x8000],
            &[one, tiny],
            (Elem::F16, Elem::F16),
            0,
            Elem::F32,
        );
        assert_eq!(d, u64::from(1.0f32.to_bits()));
    }

    #[test]
    fn specials() {
        let inf = 0x7c00;
        let d = float_dot(
            &[inf, h(0.0)],
            &[h(1.0), inf],
            (Elem::F16, Elem::F16),
            0,
            Elem::F32,
        );
        assert_eq!(d, 0x7fff_ffff);
        let d = float_dot(&[inf], &[h(-1.0)], (Elem::F16, Elem::F16), 0, Elem::F16);
        assert_eq!(d, 0xfc00);
    }

    /// The sm_70 m8n8k4 emulation: f32 FMA steps in k order from +0, C added last; an f16 D
    /// from two pair sums, rounded twice (the first FFMA adds +0: a -0 product gives +0).
    #[test]
    fn quad_dot_is_ptxas_f32_emulation() {
        let f32b = |x: f32| u64::from(x.to_bits());
        let neg0 = h(-0.0);
        let d = quad_dot(
            &[neg0, 0, 0, 0],
            &[h(1.0); 4],
            (f32b(-0.0), Elem::F32),
            Elem::F32,
        );
        assert_eq!(d, 0, "+0 + (-0) products, then + (-0) C");
        // 2^-24 is lost in f32 against 1 (one step at a time), though the exact sum is 1 + 2^-23.
        let tiny = h(2f32.powi(-12));
        let d = quad_dot(
            &[h(1.0), tiny, tiny, 0],
            &[h(1.0), tiny, tiny, 0],
            (0, Elem::F32),
            Elem::F32,
        );
        assert_eq!(d, f32b(1.0));
        // f16 D: (C + (p0 + p1)) + (p2 + p3) in f32, then to nearest f16.
        let d = quad_dot(
            &[h(1.0), h(2f32.powi(-11)), 0, 0],
            &[h(1.0), h(1.0), 0, 0],
            (h(0.0), Elem::F16),
            Elem::F16,
        );
        assert_eq!(d, h(1.0), "1 + 2^-11 ties to even in f16");
        let nan = quad_dot(&[0x7c00, 0, 0, 0], &[0, 0, 0, 0], (0, Elem::F32), Elem::F32);
        assert_eq!(nan, 0x7fff_ffff);
    }

    /// wmma f16 with mixed types: an f16 C widened to f32 first, an f16 D rounded from f32.
    #[test]
    fn mixed_types_widen_c_or_round_d() {
        let ab = (Elem::F16, Elem::F16);
        let sub = 0x0001; // the smallest f16 subnormal, 2^-24
        let d = float_dot_mixed(&[h(1.0)], &[h(1.0)], ab, (sub, Elem::F16), Elem::F32);
        assert_eq!(d, u64::from((1.0f32 + 2f32.powi(-24)).to_bits()));
        let c = u64::from((1.0f32 + 2f32.powi(-11)).to_bits());
        let d = float_dot_mixed(&[0], &[0], ab, (c, Elem::F32), Elem::F16);
        assert_eq!(d, h(1.0));
    }

    /// `.rz`/`.rm`/`.rp` f64: each fused step rounded in its direction.
    #[test]
    fn rounded_f64_steps() {
        use rustc_apfloat::Round;
        let one = 1.0f64.to_bits();
        let third = (1.0f64 / 3.0).to_bits();
        let three = 3.0f64.to_bits();
        // 1/3 * 3 - 1 is exact (fused): 2^-54 below; every direction gives the same.
        let r = f64_dot_rounded(&[third], &[three], (-1.0f64).to_bits(), Round::TowardZero);
        assert_eq!(f64::from_bits(r), -(2f64.powi(-54)));
        let up = f64_dot_rounded(
            &[one],
            &[one],
            2f64.powi(-60).to_bits(),
            Round::TowardPositive,
        );
        assert_eq!(up, 1.0f64.to_bits() + 1);
        let down = f64_dot_rounded(
            &[one],
            &[one],
            2f64.powi(-60).to_bits(),
            Round::TowardNegative,
        );
        assert_eq!(down, one);
        assert_eq!(f64_dot(&[one], &[one], 2f64.powi(-60).to_bits()), one);
    }

    #[test]
    fn integers_wrap_or_saturate() {
        let big = u64::from(i32::MAX as u32);
        assert_eq!(int_dot(&[1], &[1], None, big, false), 0x8000_0000);
        assert_eq!(int_dot(&[1], &[1], None, big, true), big);
        assert_eq!(
            int_dot(
                &[int_value(0xf, Elem::S4)],
                &[int_value(0x2, Elem::U4)],
                None,
                0,
                false
            ),
            (-2i32) as u32 as u64
        );
        assert_eq!(int_dot(&[1, 1], &[1, 0], Some(true), 0, false), 1);
    }
}
