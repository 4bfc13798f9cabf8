//! Floating-point scalar semantics (PTX ISA 9.0 sections 9.7.3 "Floating-Point Instructions",
//! 9.7.4 "Half Precision Floating-Point Instructions", 9.7.7.1 `setp` on floats, 4.5
//! "Rounding Modifiers"). Values are raw bit patterns of a format ([`Fmt`]). Exact operations
//! follow IEEE 754 with the instruction's rounding mode: round-to-nearest f32/f64 uses the host's
//! IEEE arithmetic, every other mode and every half type `rustc_apfloat`, a software float that
//! implements all of them. The NVIDIA departures from plain IEEE live here once: the canonical
//! NaN of an f32/half result and the f64 NaN propagation ([`nan_result`]), `.ftz` ([`ftz`]),
//! `.sat` ([`sat`]), `min`/`max` returning the non-NaN operand ([`minmax`]), and the ordered and
//! unordered comparisons ([`compare`]).

use crate::ir::mods::{Cmp, Rounding};
use crate::ir::{Op, Type};
use rustc_apfloat::{Float, Round};

/// Whether `t` is one of the float types the arithmetic instructions take.
pub(crate) fn is_fp(t: Type) -> bool {
    matches!(
        t,
        Type::F16 | Type::F16x2 | Type::Bf16 | Type::Bf16x2 | Type::F32 | Type::F64
    )
}

/// The canonical NaN an NVIDIA f32 operation returns for any NaN result.
pub(crate) const NAN_F32: u32 = 0x7fff_ffff;

/// The scalar format of a (possibly packed) float type.
#[derive(Clone, Copy, PartialEq, Eq, Debug)]
pub enum Fmt {
    H,
    B,
    S,
    D,
}

impl Fmt {
    pub fn of(t: Type) -> Fmt {
        match t {
            Type::F16 | Type::F16x2 => Fmt::H,
            Type::Bf16 | Type::Bf16x2 => Fmt::B,
            Type::F64 => Fmt::D,
            _ => Fmt::S,
        }
    }
    pub fn bits(self) -> u32 {
        match self {
            Fmt::H | Fmt::B => 16,
            Fmt::S => 32,
            Fmt::D => 64,
        }
    }
    /// The NaN NVIDIA hardware produces.
    pub fn canonical_nan(self) -> u64 {
        match self {
            Fmt::H => 0x7fff,
            Fmt::B => 0x7fff,
            Fmt::S => u64::from(NAN_F32),
            Fmt::D => 0x7fff_ffff_ffff_ffff,
        }
    }
    /// (exponent mask, mantissa mask)
    fn exp_mask(self) -> (u64, u64) {
        match self {
            Fmt::H => (0x7c00, 0x03ff),
            Fmt::B => (0x7f80, 0x007f),
            Fmt::S => (0x7f80_0000, 0x007f_ffff),
            Fmt::D => (0x7ff0_0000_0000_0000, 0x000f_ffff_ffff_ffff),
        }
    }
    /// Fraction bits.
    pub fn mbits(self) -> u32 {
        match self {
            Fmt::H => 10,
            Fmt::B => 7,
            Fmt::S => 23,
            Fmt::D => 52,
        }
    }
    pub fn sign(self) -> u64 {
        1 << (self.bits() - 1)
    }
    pub fn is_nan(self, v: u64) -> bool {
        let (e, m) = self.exp_mask();
        v & e == e && v & m != 0
    }
    pub fn is_inf(self, v: u64) -> bool {
        let (e, m) = self.exp_mask();
        v & e == e && v & m == 0
    }
    pub fn is_subnormal(self, v: u64) -> bool {
        let (e, m) = self.exp_mask();
        v & e == 0 && v & m != 0
    }
    pub fn to_f64(self, v: u64) -> f64 {
        match self {
            Fmt::H => half::f16::from_bits(v as u16).to_f64(),
            Fmt::B => half::bf16::from_bits(v as u16).to_f64(),
            Fmt::S => f64::from(f32::from_bits(v as u32)),
            Fmt::D => f64::from_bits(v),
        }
    }
    /// `x` rounded to this format, to nearest even.
    pub fn encode_f64(self, x: f64) -> u64 {
        match self {
            Fmt::H => u64::from(half::f16::from_f64(x).to_bits()),
            Fmt::B => u64::from(half::bf16::from_f64(x).to_bits()),
            Fmt::S => u64::from((x as f32).to_bits()),
            Fmt::D => x.to_bits(),
        }
    }
}

/// Runs `$body` with `$T` the `rustc_apfloat` type of format `$f`.
macro_rules! with_fmt {
    ($f:expr, $T:ident => $body:expr) => {
        match $f {
            Fmt::H => {
                type $T = rustc_apfloat::ieee::Half;
                $body
            }
            Fmt::B => {
                type $T = rustc_apfloat::ieee::BFloat;
                $body
            }
            Fmt::S => {
                type $T = rustc_apfloat::ieee::Single;
                $body
            }
            Fmt::D => {
                type $T = rustc_apfloat::ieee::Double;
                $body
            }
        }
    };
}
pub(crate) use with_fmt;

/// The IEEE rounding of a PTX rounding modifier (none: to nearest even).
pub fn round_of(r: Option<Rounding>) -> Round {
    match r {
        Some(Rounding::Rz | Rounding::Rzi) => Round::TowardZero,
        Some(Rounding::Rm | Rounding::Rmi) => Round::TowardNegative,
        Some(Rounding::Rp | Rounding::Rpi) => Round::TowardPositive,
        Some(Rounding::Rna) => Round::NearestTiesToAway,
        _ => Round::NearestTiesToEven,
    }
}

/// The binary arithmetic operations.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Bin {
    Add,
    Sub,
    Mul,
    Div,
}

/// `x op y` on host floats, round to nearest even (IEEE: what `.rn` asks for).
#[inline(always)]
fn host_bin<T>(op: Bin, x: T, y: T) -> T
where
    T: std::ops::Add<Output = T>
        + std::ops::Sub<Output = T>
        + std::ops::Mul<Output = T>
        + std::ops::Div<Output = T>,
{
    match op {
        Bin::Add => x + y,
        Bin::Sub => x - y,
        Bin::Mul => x * y,
        Bin::Div => x / y,
    }
}

/// An f32 result as the hardware writes it: any NaN is the canonical NaN.
#[inline(always)]
pub fn canon_f32(x: f32) -> u32 {
    if x.is_nan() {
        NAN_F32
    } else {
        x.to_bits()
    }
}

/// `add`/`sub`/`mul`/`div.rn.f32` without `.ftz`/`.sat`: the bits the hardware writes.
#[inline(always)]
pub fn bin_rn_f32(op: Bin, a: u32, b: u32) -> u32 {
    canon_f32(host_bin(op, f32::from_bits(a), f32::from_bits(b)))
}

/// `fma.rn.f32` without `.ftz`/`.sat`: rounded once, NaN canonical.
#[inline(always)]
pub fn fma_rn_f32(a: u32, b: u32, c: u32) -> u32 {
    canon_f32(f32::from_bits(a).mul_add(f32::from_bits(b), f32::from_bits(c)))
}

/// `a op b` in format `f` with rounding `r` (NaN results as IEEE gives them; see [`nan_result`]).
pub fn binop(f: Fmt, op: Bin, a: u64, b: u64, r: Round) -> u64 {
    if r == Round::NearestTiesToEven {
        match f {
            Fmt::S => {
                return u64::from(
                    host_bin(op, f32::from_bits(a as u32), f32::from_bits(b as u32)).to_bits(),
                )
            }
            Fmt::D => return host_bin(op, f64::from_bits(a), f64::from_bits(b)).to_bits(),
            Fmt::H | Fmt::B => {}
        }
    }
    with_fmt!(f, T => {
        let (x, y) = (T::from_bits(u128::from(a)), T::from_bits(u128::from(b)));
        let v = match op {
            Bin::Add => x.add_r(y, r).value,
            Bin::Sub => x.sub_r(y, r).value,
            Bin::Mul => x.mul_r(y, r).value,
            Bin::Div => x.div_r(y, r).value,
        };
        v.to_bits() as u64
    })
}

/// `a * b + c`, rounded once.
pub(crate) fn fma(f: Fmt, a: u64, b: u64, c: u64, r: Round) -> u64 {
    if r == Round::NearestTiesToEven {
        match f {
            Fmt::S => {
                let (x, y, z) = (a as u32, b as u32, c as u32);
                let v = f32::from_bits(x).mul_add(f32::from_bits(y), f32::from_bits(z));
                return u64::from(v.to_bits());
            }
            Fmt::D => {
                return f64::from_bits(a)
                    .mul_add(f64::from_bits(b), f64::from_bits(c))
                    .to_bits()
            }
            Fmt::H | Fmt::B => {}
        }
    }
    with_fmt!(f, T => {
        let x = T::from_bits(u128::from(a));
        let (y, z) = (T::from_bits(u128::from(b)), T::from_bits(u128::from(c)));
        x.mul_add_r(y, z, r).value.to_bits() as u64
    })
}

/// `sqrt(a)` with rounding `r`: the nearest root, then one step by the sign of `a - s*s`,
/// computed where it is exact (f64 for f32 roots; scaled into the normal range for tiny f64).
pub fn sqrt(f: Fmt, a: u64, r: Round) -> u64 {
    match f {
        Fmt::S => {
            let v = f32::from_bits(a as u32);
            let s = v.sqrt();
            if !s.is_finite() || s == 0.0 || r == Round::NearestTiesToEven {
                return u64::from(s.to_bits());
            }
            let res = f64::from(v) - f64::from(s) * f64::from(s);
            u64::from(step_f32(s, res, r).to_bits())
        }
        Fmt::D => {
            let v = f64::from_bits(a);
            if v > 0.0 && v < f64::from_bits(0x0830_0000_0000_0000) {
                // Tiny: scale by 2^1000 (even), take the root, scale back by 2^-500 exactly.
                let scaled = sqrt(
                    Fmt::D,
                    (v * f64::from_bits(0x7e70_0000_0000_0000)).to_bits(),
                    r,
                );
                return (f64::from_bits(scaled) * f64::from_bits(0x20b0_0000_0000_0000)).to_bits();
            }
            let s = v.sqrt();
            if !s.is_finite() || s == 0.0 || r == Round::NearestTiesToEven {
                return s.to_bits();
            }
            let res = (-s).mul_add(s, v);
            let out = match r {
                Round::TowardPositive if res > 0.0 => next_up64(s),
                Round::TowardNegative | Round::TowardZero if res < 0.0 => next_down64(s),
                _ => s,
            };
            out.to_bits()
        }
        // Half formats: the f64 root rounded once is exact to nearest.
        Fmt::H | Fmt::B => f.encode_f64(f.to_f64(a).sqrt()),
    }
}

fn step_f32(s: f32, res: f64, r: Round) -> f32 {
    match r {
        Round::TowardPositive if res > 0.0 => f32::from_bits(s.to_bits() + 1),
        Round::TowardNegative | Round::TowardZero if res < 0.0 => f32::from_bits(s.to_bits() - 1),
        _ => s,
    }
}

fn next_up64(x: f64) -> f64 {
    f64::from_bits(x.to_bits() + 1)
}

fn next_down64(x: f64) -> f64 {
    f64::from_bits(x.to_bits() - 1)
}

/// `.ftz`: flushes a subnormal to signed zero.
#[inline]
pub fn ftz(f: Fmt, v: u64) -> u64 {
    if f.is_subnormal(v) {
        v & f.sign()
    } else {
        v
    }
}

/// `.sat`: clamps to [+0, 1], NaN and -0 to +0.
pub fn sat(f: Fmt, v: u64) -> u64 {
    if f.is_nan(v) {
        return 0;
    }
    let x = f.to_f64(v);
    if x < 0.0 || (x == 0.0 && v & f.sign() != 0) {
        0
    } else if x > 1.0 {
        f.encode_f64(1.0)
    } else {
        v
    }
}

/// A float comparison of `setp`/`set` (PTX ISA 9.0 section 9.7.7.1): the ordered relations are
/// false when either operand is NaN, the `u` forms true; `num`/`nan` test for NaN. Generic over
/// the host float type so the fast form compares f32 rows and the general path f64 values; with
/// `cmp` a constant it folds to one host comparison.
#[inline(always)]
pub fn compare<T: PartialOrd + Copy>(cmp: Cmp, x: T, y: T) -> bool {
    let nan = || x.partial_cmp(&y).is_none();
    match cmp {
        Cmp::Eq => x == y,
        Cmp::Ne => !nan() && x != y,
        Cmp::Lt | Cmp::Lo => x < y,
        Cmp::Le | Cmp::Ls => x <= y,
        Cmp::Gt | Cmp::Hi => x > y,
        Cmp::Ge | Cmp::Hs => x >= y,
        Cmp::Equ => nan() || x == y,
        Cmp::Neu => x != y,
        Cmp::Ltu => nan() || x < y,
        Cmp::Leu => nan() || x <= y,
        Cmp::Gtu => nan() || x > y,
        Cmp::Geu => nan() || x >= y,
        Cmp::Num => !nan(),
        Cmp::Nan => nan(),
    }
}

/// [`compare`] on raw bits of format `f`.
pub fn compare_bits(f: Fmt, cmp: Cmp, a: u64, b: u64) -> bool {
    compare(cmp, f.to_f64(a), f.to_f64(b))
}

/// The modifiers of a float `min`/`max`.
#[derive(Clone, Copy, Debug, Default)]
pub struct MinMax {
    pub max: bool,
    /// `.xorsign`: the result takes the sign of a ^ b.
    pub xorsign: bool,
    /// `.abs` (with `.xorsign`): compare magnitudes.
    pub abs: bool,
    /// `.NaN`: a NaN operand makes the result NaN.
    pub nan: bool,
}

/// `min`/`max` (IEEE 754-2019 minimumNumber semantics, -0 below +0), following the ISA's
/// pseudocode: `.xorsign` takes the sign of a ^ b first, `.abs` then compares magnitudes, and a
/// non-NaN result (even one chosen because the other operand was NaN) gets that sign.
pub fn minmax(f: Fmt, m: MinMax, a: u64, b: u64) -> u64 {
    let sign_of_xor = (a ^ b) & f.sign();
    let (a, b) = if m.xorsign && m.abs {
        (a & !f.sign(), b & !f.sign())
    } else {
        (a, b)
    };
    let with_sign = |r: u64| {
        if m.xorsign {
            (r & !f.sign()) | sign_of_xor
        } else {
            r
        }
    };
    let (na, nb) = (f.is_nan(a), f.is_nan(b));
    if na || nb {
        if m.nan || (na && nb) {
            return f.canonical_nan();
        }
        return with_sign(if na { b } else { a });
    }
    let (x, y) = (f.to_f64(a), f.to_f64(b));
    let (neg_a, neg_b) = (a & f.sign() != 0, b & f.sign() != 0);
    let a_first = if x == y {
        // -0 < +0
        if m.max {
            !neg_a || neg_b
        } else {
            neg_a || !neg_b
        }
    } else if m.max {
        x > y
    } else {
        x < y
    };
    with_sign(if a_first { a } else { b })
}

/// The NaN an arithmetic instruction returns. Measured on an H100: f32 and the half formats
/// return the canonical NaN (abs and neg included); f64 returns the first NaN operand, quieted,
/// and the negative default NaN 0xfff8000000000000 when the operation itself is invalid.
pub fn nan_result(f: Fmt, a: u64, b: u64, c: u64, op: Op) -> u64 {
    if f != Fmt::D {
        return f.canonical_nan();
    }
    let quiet = 1u64 << 51;
    let inputs: &[u64] = match op {
        // Measured with every pairing of a signaling and a quiet NaN: fma looks at a, c, b.
        Op::Fma | Op::Mad => &[a, c, b],
        Op::Abs
        | Op::Neg
        | Op::Rcp
        | Op::Sqrt
        | Op::Rsqrt
        | Op::Sin
        | Op::Cos
        | Op::Lg2
        | Op::Ex2
        | Op::Tanh => &[a],
        _ => &[a, b],
    };
    match inputs.iter().find(|x| f.is_nan(**x)) {
        Some(x) if op == Op::Abs => (x | quiet) & !f.sign(),
        Some(x) if op == Op::Neg => (x | quiet) ^ f.sign(),
        Some(x) => x | quiet,
        None => 0xfff8_0000_0000_0000,
    }
}

/// `testp.op` (PTX ISA 9.0 section 9.7.3.3); None for a sub-operation that is not a test.
pub fn testp(f: Fmt, sub: crate::ir::mods::SubOp, a: u64) -> Option<bool> {
    use crate::ir::mods::SubOp;
    Some(match sub {
        SubOp::Finite => !f.is_nan(a) && !f.is_inf(a),
        SubOp::Infinite => f.is_inf(a),
        SubOp::Number => !f.is_nan(a),
        SubOp::NotANumber => f.is_nan(a),
        // The ISA counts +0 and -0 as normal numbers.
        SubOp::Normal => !f.is_nan(a) && !f.is_inf(a) && !f.is_subnormal(a),
        SubOp::Subnormal => f.is_subnormal(a),
        _ => return None,
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn directed_rounding_of_a_sum() {
        let one = u64::from(1.0f32.to_bits());
        let tiny = u64::from(1e-10f32.to_bits());
        assert_eq!(
            binop(Fmt::S, Bin::Add, one, tiny, Round::NearestTiesToEven),
            one
        );
        assert_eq!(
            binop(Fmt::S, Bin::Add, one, tiny, Round::TowardPositive),
            one + 1
        );
        assert_eq!(binop(Fmt::S, Bin::Add, one, tiny, Round::TowardZero), one);
    }

    #[test]
    fn min_prefers_numbers_and_negative_zero() {
        let (min, max) = (
            MinMax::default(),
            MinMax {
                max: true,
                ..MinMax::default()
            },
        );
        let nan = 0x7fc0_0000u64;
        let one = u64::from(1.0f32.to_bits());
        assert_eq!(minmax(Fmt::S, min, nan, one), one);
        assert_eq!(minmax(Fmt::S, min, 0x8000_0000, 0), 0x8000_0000);
        assert_eq!(minmax(Fmt::S, max, 0x8000_0000, 0), 0);
    }

    #[test]
    fn directed_sqrt() {
        let two = u64::from(2.0f32.to_bits());
        let rn = sqrt(Fmt::S, two, Round::NearestTiesToEven);
        let rz = sqrt(Fmt::S, two, Round::TowardZero);
        let rp = sqrt(Fmt::S, two, Round::TowardPositive);
        assert!(rz <= rn && rn <= rp && rp - rz == 1);
    }

    #[test]
    fn comparisons_are_false_or_true_on_nan() {
        let nan = f32::NAN;
        assert!(!compare(Cmp::Lt, nan, 1.0) && compare(Cmp::Ltu, nan, 1.0));
        assert!(!compare(Cmp::Ne, nan, 1.0) && compare(Cmp::Neu, nan, 1.0));
        assert!(compare(Cmp::Nan, 1.0, nan) && !compare(Cmp::Num, 1.0, nan));
        assert!(compare(Cmp::Eq, 0.0f32, -0.0) && compare(Cmp::Ge, 2.0, 1.0));
    }
}
