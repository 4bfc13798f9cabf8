//! Floating point (PTX ISA 9.0 sections 9.7.3 "Floating-Point Instructions", 9.7.4 "Half
//! Precision", 9.7.7 comparisons). Exact operations follow IEEE 754 with the instruction's
//! rounding mode: round-to-nearest f32/f64 uses the host's IEEE arithmetic, every other mode and
//! every half type goes through `rustc_apfloat`, a software float that implements all of them.
//! NVIDIA results that differ from plain IEEE are modelled: a NaN result is the canonical NaN,
//! `.ftz` flushes subnormal inputs and results to signed zero, `.sat` clamps to [0, 1] with NaN
//! to 0, `min`/`max` return the non-NaN operand. Approximate instructions (`.approx`: `rcp`,
//! `sqrt`, `rsqrt`, `sin`, `cos`, `lg2`, `ex2`, `tanh`, `div`) use the host's correctly rounded
//! or libm results, which lie within the maximum errors PTX documents for them.

use super::alu::write_compare;
use super::ctx::Ctx;
use super::fault::Res;
use super::lanes::lanes;
use super::sfu::{self, HalfOp};
use crate::ir::mods::{Cmp, Rounding, SubOp};
use crate::ir::{Flags, Mods, Op, Type};
use rustc_apfloat::ieee::{BFloat, Double, Half, Single};
use rustc_apfloat::{Float, Round};

pub fn handles(op: Op, mods: &Mods) -> bool {
    use Op::*;
    let float = |t: Option<Type>| t.is_some_and(is_fp);
    match op {
        Fma | Rcp | Sqrt | Rsqrt | Sin | Cos | Lg2 | Ex2 | Tanh | Testp | Copysign => true,
        Add | Sub | Mul | Mad | Div | Abs | Neg | Min | Max | Setp => float(mods.ty()),
        Set => float(mods.types[1]),
        _ => false,
    }
}

fn is_fp(t: Type) -> bool {
    matches!(
        t,
        Type::F16 | Type::F16x2 | Type::Bf16 | Type::Bf16x2 | Type::F32 | Type::F64
    )
}

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
            Fmt::S => 0x7fff_ffff,
            Fmt::D => 0x7fff_ffff_ffff_ffff,
        }
    }
    fn exp_mask(self) -> (u64, u64) {
        // (exponent mask, mantissa mask)
        match self {
            Fmt::H => (0x7c00, 0x03ff),
            Fmt::B => (0x7f80, 0x007f),
            Fmt::S => (0x7f80_0000, 0x007f_ffff),
            Fmt::D => (0x7ff0_0000_0000_0000, 0x000f_ffff_ffff_ffff),
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

pub fn round_of(r: Option<Rounding>) -> Round {
    match r {
        Some(Rounding::Rz | Rounding::Rzi) => Round::TowardZero,
        Some(Rounding::Rm | Rounding::Rmi) => Round::TowardNegative,
        Some(Rounding::Rp | Rounding::Rpi) => Round::TowardPositive,
        Some(Rounding::Rna) => Round::NearestTiesToAway,
        _ => Round::NearestTiesToEven,
    }
}

#[derive(Clone, Copy)]
enum Bin {
    Add,
    Sub,
    Mul,
    Div,
}

macro_rules! via_ap {
    ($fmt:expr, $T:ty, |$x:ident, $y:ident, $z:ident| $body:expr, $a:expr, $b:expr, $c:expr) => {{
        let $x = <$T>::from_bits(u128::from($a));
        let $y = <$T>::from_bits(u128::from($b));
        let $z = <$T>::from_bits(u128::from($c));
        ($body).to_bits() as u64
    }};
}

/// `a op b` in format `f` with rounding `r`.
fn binop(f: Fmt, op: Bin, a: u64, b: u64, r: Round) -> u64 {
    if r == Round::NearestTiesToEven {
        match f {
            Fmt::S => {
                let (x, y) = (f32::from_bits(a as u32), f32::from_bits(b as u32));
                let v = match op {
                    Bin::Add => x + y,
                    Bin::Sub => x - y,
                    Bin::Mul => x * y,
                    Bin::Div => x / y,
                };
                return u64::from(v.to_bits());
            }
            Fmt::D => {
                let (x, y) = (f64::from_bits(a), f64::from_bits(b));
                let v = match op {
                    Bin::Add => x + y,
                    Bin::Sub => x - y,
                    Bin::Mul => x * y,
                    Bin::Div => x / y,
                };
                return v.to_bits();
            }
            _ => {}
        }
    }
    macro_rules! go {
        ($T:ty) => {
            via_ap!(
                f,
                $T,
                |x, y, _z| match op {
                    Bin::Add => x.add_r(y, r).value,
                    Bin::Sub => x.sub_r(y, r).value,
                    Bin::Mul => x.mul_r(y, r).value,
                    Bin::Div => x.div_r(y, r).value,
                },
                a,
                b,
                0u64
            )
        };
    }
    match f {
        Fmt::H => go!(Half),
        Fmt::B => go!(BFloat),
        Fmt::S => go!(Single),
        Fmt::D => go!(Double),
    }
}

/// `a * b + c`, rounded once.
pub(crate) fn fma(f: Fmt, a: u64, b: u64, c: u64, r: Round) -> u64 {
    if r == Round::NearestTiesToEven {
        match f {
            Fmt::S => {
                return u64::from(
                    f32::from_bits(a as u32)
                        .mul_add(f32::from_bits(b as u32), f32::from_bits(c as u32))
                        .to_bits(),
                )
            }
            Fmt::D => {
                return f64::from_bits(a)
                    .mul_add(f64::from_bits(b), f64::from_bits(c))
                    .to_bits()
            }
            _ => {}
        }
    }
    macro_rules! go {
        ($T:ty) => {
            via_ap!(f, $T, |x, y, z| x.mul_add_r(y, z, r).value, a, b, c)
        };
    }
    match f {
        Fmt::H => go!(Half),
        Fmt::B => go!(BFloat),
        Fmt::S => go!(Single),
        Fmt::D => go!(Double),
    }
}

/// `sqrt(a)` with rounding `r`: the nearest root, then one step by the sign of `a - s*s`,
/// computed where it is exact (f64 for f32 roots; scaled into the normal range for tiny f64).
fn sqrt(f: Fmt, a: u64, r: Round) -> u64 {
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
        _ => f.encode_f64(f.to_f64(a).sqrt()),
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

/// Flushes a subnormal to signed zero.
fn ftz(f: Fmt, v: u64) -> u64 {
    if f.is_subnormal(v) {
        v & f.sign()
    } else {
        v
    }
}

fn sat(f: Fmt, v: u64) -> u64 {
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

pub fn float_cmp(f: Fmt, cmp: Cmp, a: u64, b: u64) -> bool {
    let nan = f.is_nan(a) || f.is_nan(b);
    let (x, y) = (f.to_f64(a), f.to_f64(b));
    match cmp {
        Cmp::Eq => !nan && x == y,
        Cmp::Ne => !nan && x != y,
        Cmp::Lt | Cmp::Lo => !nan && x < y,
        Cmp::Le | Cmp::Ls => !nan && x <= y,
        Cmp::Gt | Cmp::Hi => !nan && x > y,
        Cmp::Ge | Cmp::Hs => !nan && x >= y,
        Cmp::Equ => nan || x == y,
        Cmp::Neu => nan || x != y,
        Cmp::Ltu => nan || x < y,
        Cmp::Leu => nan || x <= y,
        Cmp::Gtu => nan || x > y,
        Cmp::Geu => nan || x >= y,
        Cmp::Num => !nan,
        Cmp::Nan => nan,
    }
}

/// `min`/`max` (IEEE 754-2019 minimumNumber semantics, -0 below +0), following the ISA's
/// pseudocode: `.xorsign` takes the sign of a ^ b first, `.abs` then compares magnitudes, and a
/// non-NaN result (even one chosen because the other operand was NaN) gets that sign.
fn minmax(f: Fmt, max: bool, a: u64, b: u64, mods: &Mods) -> u64 {
    let xorsign = mods.has(Flags::XORSIGN);
    let sign_of_xor = (a ^ b) & f.sign();
    let (a, b) = if xorsign && mods.has(Flags::ABS) {
        (a & !f.sign(), b & !f.sign())
    } else {
        (a, b)
    };
    let with_sign = |r: u64| {
        if xorsign {
            (r & !f.sign()) | sign_of_xor
        } else {
            r
        }
    };
    let (na, nb) = (f.is_nan(a), f.is_nan(b));
    if na || nb {
        if mods.has(Flags::NAN) || (na && nb) {
            return f.canonical_nan();
        }
        return with_sign(if na { b } else { a });
    }
    let (x, y) = (f.to_f64(a), f.to_f64(b));
    let (neg_a, neg_b) = (a & f.sign() != 0, b & f.sign() != 0);
    let a_first = if x == y {
        // -0 < +0
        if max {
            !neg_a || neg_b
        } else {
            neg_a || !neg_b
        }
    } else if max {
        x > y
    } else {
        x < y
    };
    with_sign(if a_first { a } else { b })
}

/// The NaN an arithmetic instruction returns. Measured on an H100: f32 and the half formats
/// return the canonical NaN (abs and neg included); f64 returns the first NaN operand, quieted,
/// and the negative default NaN 0xfff8000000000000 when the operation itself is invalid.
fn nan_result(f: Fmt, a: u64, b: u64, c: u64, op: Op) -> u64 {
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

/// The approximate instructions, which run on the special function unit (`sfu.rs`): the result
/// as the H100 writes it (its NaNs included), or None for every other instruction.
fn special_function(op: Op, f: Fmt, mods: &Mods, a: u64, b: u64, ftz: bool) -> Option<u64> {
    let approx = mods.has(Flags::APPROX);
    let (a32, b32) = (a as u32, b as u32);
    let v = match (op, f) {
        (Op::Div, Fmt::S) if approx || mods.has(Flags::FULL) => {
            sfu::div(a32, b32, mods.has(Flags::FULL), ftz)
        }
        (Op::Rcp, Fmt::S) if approx => sfu::rcp(a32, ftz),
        (Op::Rcp, Fmt::D) if approx => return Some(sfu::rcp64(a)),
        (Op::Sqrt, Fmt::S) if approx => sfu::sqrt(a32, ftz),
        (Op::Rsqrt, Fmt::S) => sfu::rsqrt(a32, ftz),
        (Op::Rsqrt, Fmt::D) if ftz => return Some(sfu::rsqrt64(a)),
        (Op::Rsqrt, Fmt::D) => return Some(sfu::rsqrt64_refined(a)),
        (Op::Ex2, Fmt::S) => sfu::ex2(a32, ftz),
        (Op::Lg2, Fmt::S) => sfu::lg2(a32, ftz),
        (Op::Sin, Fmt::S) => sfu::sincos(a32, false),
        (Op::Cos, Fmt::S) => sfu::sincos(a32, true),
        (Op::Tanh, Fmt::S) => sfu::tanh(a32),
        (Op::Ex2, Fmt::H) => u32::from(sfu::half(HalfOp::Ex2F16, a as u16)),
        (Op::Ex2, Fmt::B) => u32::from(sfu::half(HalfOp::Ex2Bf16, a as u16)),
        (Op::Tanh, Fmt::H) => u32::from(sfu::half(HalfOp::TanhF16, a as u16)),
        (Op::Tanh, Fmt::B) => u32::from(sfu::half(HalfOp::TanhBf16, a as u16)),
        _ => return None,
    };
    Some(u64::from(v))
}

/// One scalar lane of an arithmetic instruction, on raw bits of format `f`.
pub(super) fn scalar(op: Op, f: Fmt, mods: &Mods, a: u64, b: u64, c: u64) -> u64 {
    let r = round_of(mods.rnd);
    let flush = mods.has(Flags::FTZ);
    let (a, b, c) = if flush {
        (ftz(f, a), ftz(f, b), ftz(f, c))
    } else {
        (a, b, c)
    };
    if let Some(v) = special_function(op, f, mods, a, b, flush) {
        return v;
    }
    let abs = |v: u64| v & !f.sign();
    let mut v = match op {
        Op::Add => binop(f, Bin::Add, a, b, r),
        Op::Sub => binop(f, Bin::Sub, a, b, r),
        Op::Mul => binop(f, Bin::Mul, a, b, r),
        Op::Div => binop(f, Bin::Div, a, b, r),
        Op::Fma | Op::Mad => fma(f, a, b, c, r),
        Op::Abs => abs(a),
        Op::Neg => a ^ f.sign(),
        Op::Min => minmax(f, false, a, b, mods),
        Op::Max => minmax(f, true, a, b, mods),
        Op::Copysign => (b & !f.sign()) | (a & f.sign()),
        Op::Rcp => binop(f, Bin::Div, f.encode_f64(1.0), a, r),
        Op::Sqrt => {
            if mods.has(Flags::APPROX) {
                f.encode_f64(f.to_f64(a).sqrt())
            } else {
                sqrt(f, a, r)
            }
        }
        Op::Rsqrt => f.encode_f64(1.0 / f.to_f64(a).sqrt()),
        Op::Sin => f.encode_f64(f.to_f64(a).sin()),
        Op::Cos => f.encode_f64(f.to_f64(a).cos()),
        Op::Lg2 => f.encode_f64(f.to_f64(a).log2()),
        Op::Ex2 => f.encode_f64(f.to_f64(a).exp2()),
        Op::Tanh => f.encode_f64(f.to_f64(a).tanh()),
        _ => 0,
    };
    if f.is_nan(v) && op != Op::Copysign {
        v = nan_result(f, a, b, c, op);
    }
    if mods.has(Flags::RELU) && (v & f.sign() != 0 && !f.is_nan(v)) {
        v = 0;
    }
    if mods.has(Flags::RELU) && f.is_nan(v) && f != Fmt::S {
        v = f.canonical_nan();
    }
    if flush {
        v = ftz(f, v);
    }
    if mods.has(Flags::SAT) {
        v = sat(f, v);
    }
    v
}

pub fn exec(cx: &mut Ctx<'_, '_>) -> Res<()> {
    let mods = cx.ins.mods;
    let op = cx.ins.op;
    if op == Op::Setp || op == Op::Set {
        let t = if op == Op::Set {
            mods.types[1].unwrap_or(Type::F32)
        } else {
            cx.ty()
        };
        let f = Fmt::of(t);
        let cmp = mods.cmp.unwrap_or(Cmp::Eq);
        let packed = matches!(t, Type::F16x2 | Type::Bf16x2);
        for lane in lanes(cx.active) {
            let (mut a, mut b) = (cx.src(1, lane, t), cx.src(2, lane, t));
            if mods.has(Flags::FTZ) {
                a = ftz(f, a);
                b = ftz(f, b);
            }
            if packed {
                // setp.f16x2 p|q: p for the low halves, q for the high halves.
                let lo = float_cmp(f, cmp, a & 0xffff, b & 0xffff);
                let hi = float_cmp(f, cmp, a >> 16, b >> 16);
                if op == Op::Set {
                    // Per half: 1.0 in the destination's float format, or all ones for integers.
                    let one: u64 = match mods.ty() {
                        Some(Type::F16x2) => 0x3c00,
                        Some(Type::Bf16x2) => 0x3f80,
                        _ => 0xffff,
                    };
                    let v = (if lo { one } else { 0 }) | (if hi { one << 16 } else { 0 });
                    cx.dst(0, lane, v);
                } else if let Some(crate::ir::Operand::Pair(p, q)) = cx.ops.first().copied() {
                    if let Some(p) = p {
                        cx.set_reg(p, lane, u64::from(lo));
                    }
                    if let Some(q) = q {
                        cx.set_reg(q, lane, u64::from(hi));
                    }
                }
            } else {
                let r = float_cmp(f, cmp, a, b);
                write_compare(cx, lane, r);
            }
        }
        return Ok(());
    }
    let t = cx.ty();
    let f = Fmt::of(t);
    if op == Op::Testp {
        for lane in lanes(cx.active) {
            let a = cx.src(1, lane, t);
            let r = match mods.sub {
                Some(SubOp::Finite) => !f.is_nan(a) && !f.is_inf(a),
                Some(SubOp::Infinite) => f.is_inf(a),
                Some(SubOp::Number) => !f.is_nan(a),
                Some(SubOp::NotANumber) => f.is_nan(a),
                // The ISA counts +0 and -0 as normal numbers.
                Some(SubOp::Normal) => !f.is_nan(a) && !f.is_inf(a) && !f.is_subnormal(a),
                Some(SubOp::Subnormal) => f.is_subnormal(a),
                _ => false,
            };
            cx.dst(0, lane, u64::from(r));
        }
        return Ok(());
    }
    if mods.has(Flags::CONTRACTED) {
        return contracted(cx, t);
    }
    let packed = matches!(t, Type::F16x2 | Type::Bf16x2);
    for lane in lanes(cx.active) {
        let a = cx.src(1, lane, t);
        let b = cx.src(2, lane, t);
        let c = cx.src(3, lane, t);
        let v = if packed {
            let lo = scalar(op, f, &mods, a & 0xffff, b & 0xffff, c & 0xffff);
            let hi = scalar(
                op,
                f,
                &mods,
                (a >> 16) & 0xffff,
                (b >> 16) & 0xffff,
                (c >> 16) & 0xffff,
            );
            (hi << 16) | lo
        } else {
            scalar(op, f, &mods, a, b, c)
        };
        cx.dst(0, lane, v);
    }
    Ok(())
}

/// An `add`/`sub` fused with the `mul` that feeds it (see `ir/contract.rs`): one rounding.
fn contracted(cx: &mut Ctx<'_, '_>, t: Type) -> Res<()> {
    let f = Fmt::of(t);
    let pc = cx.pc;
    let Ok(k) = cx.func.contractions.binary_search_by_key(&pc, |(a, _)| *a) else {
        return Ok(());
    };
    let mul = &cx.func.code[cx.func.contractions[k].1 as usize];
    let mul_ops = cx.func.ops(mul);
    let mul_dst = mul_ops[0];
    let mods = cx.ins.mods;
    let sub = cx.ins.op == Op::Sub;
    let mul_first = cx.ops.get(1) == Some(&mul_dst);
    for lane in lanes(cx.active) {
        let ma = cx.value(&mul_ops[1], lane, t);
        let mb = cx.value(&mul_ops[2], lane, t);
        let other = cx.src(if mul_first { 2 } else { 1 }, lane, t);
        let (ma, c) = match (sub, mul_first) {
            (false, _) => (ma, other),
            (true, true) => (ma, other ^ f.sign()), // a*b - c
            (true, false) => (ma ^ f.sign(), other), // c - a*b
        };
        let v = scalar(Op::Fma, f, &Mods { rnd: None, ..mods }, ma, mb, c);
        cx.dst(0, lane, v);
    }
    Ok(())
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
    fn nan_results_are_canonical() {
        let m = Mods::default();
        let inf = u64::from(f32::INFINITY.to_bits());
        assert_eq!(scalar(Op::Sub, Fmt::S, &m, inf, inf, 0), 0x7fff_ffff);
    }

    #[test]
    fn min_prefers_numbers_and_negative_zero() {
        let m = Mods::default();
        let nan = 0x7fc0_0000u64;
        let one = u64::from(1.0f32.to_bits());
        assert_eq!(minmax(Fmt::S, false, nan, one, &m), one);
        assert_eq!(minmax(Fmt::S, false, 0x8000_0000, 0, &m), 0x8000_0000);
        assert_eq!(minmax(Fmt::S, true, 0x8000_0000, 0, &m), 0);
    }

    #[test]
    fn directed_sqrt() {
        let two = u64::from(2.0f32.to_bits());
        let rn = sqrt(Fmt::S, two, Round::NearestTiesToEven);
        let rz = sqrt(Fmt::S, two, Round::TowardZero);
        let rp = sqrt(Fmt::S, two, Round::TowardPositive);
        assert!(rz <= rn && rn <= rp && rp - rz == 1);
    }
}
