//! Floating point over the active lanes (PTX ISA 9.0 sections 9.7.3 "Floating-Point
//! Instructions", 9.7.4 "Half Precision", 9.7.7 comparisons). The arithmetic itself, its
//! rounding modes and the NVIDIA rules (canonical NaN, `.ftz`, `.sat`, `min`/`max` on NaN,
//! ordered and unordered comparisons) are the pure functions of `sem/float.rs`, shared with the
//! warp-wide fast forms; here each lane applies them in the order the hardware does (flush the
//! inputs, compute, NaN rule, `.relu`, flush the result, saturate), packed half pairs one half at
//! a time. Approximate instructions (`.approx`: `rcp`, `sqrt`, `rsqrt`, `sin`, `cos`, `lg2`,
//! `ex2`, `tanh`, `div`) run on the special function unit's model (`sfu.rs`).

use super::alu::write_compare;
use super::ctx::Ctx;
use super::fault::Res;
use super::lanes::lanes;
use super::sfu::{self, HalfOp};
use crate::ir::mods::Cmp;
use crate::ir::{Flags, Mods, Op, Type};
use crate::sem::float::{
    binop, compare_bits, ftz, is_fp, minmax, nan_result, sat, sqrt, testp, Bin, MinMax,
};
pub(crate) use crate::sem::float::{fma, round_of, Fmt};

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
    let flush = mods.has(Flags::FTZ);
    let (a, b, c) = if flush {
        (ftz(f, a), ftz(f, b), ftz(f, c))
    } else {
        (a, b, c)
    };
    if let Some(v) = special_function(op, f, mods, a, b, flush) {
        return v;
    }
    let mut v = exact(op, f, mods, a, b, c);
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

/// The operation itself, before the NaN rule and the result modifiers; 0 for an instruction
/// that is not float arithmetic (`handles` routes none here).
fn exact(op: Op, f: Fmt, mods: &Mods, a: u64, b: u64, c: u64) -> u64 {
    let r = round_of(mods.rnd);
    let minmax_of = |max| MinMax {
        max,
        xorsign: mods.has(Flags::XORSIGN),
        abs: mods.has(Flags::ABS),
        nan: mods.has(Flags::NAN),
    };
    match op {
        Op::Add => binop(f, Bin::Add, a, b, r),
        Op::Sub => binop(f, Bin::Sub, a, b, r),
        Op::Mul => binop(f, Bin::Mul, a, b, r),
        Op::Div => binop(f, Bin::Div, a, b, r),
        Op::Fma | Op::Mad => fma(f, a, b, c, r),
        Op::Abs => a & !f.sign(),
        Op::Neg => a ^ f.sign(),
        Op::Min => minmax(f, minmax_of(false), a, b),
        Op::Max => minmax(f, minmax_of(true), a, b),
        Op::Copysign => (b & !f.sign()) | (a & f.sign()),
        Op::Rcp => binop(f, Bin::Div, f.encode_f64(1.0), a, r),
        Op::Sqrt if mods.has(Flags::APPROX) => f.encode_f64(f.to_f64(a).sqrt()),
        Op::Sqrt => sqrt(f, a, r),
        Op::Rsqrt => f.encode_f64(1.0 / f.to_f64(a).sqrt()),
        Op::Sin => f.encode_f64(f.to_f64(a).sin()),
        Op::Cos => f.encode_f64(f.to_f64(a).cos()),
        Op::Lg2 => f.encode_f64(f.to_f64(a).log2()),
        Op::Ex2 => f.encode_f64(f.to_f64(a).exp2()),
        Op::Tanh => f.encode_f64(f.to_f64(a).tanh()),
        _ => 0,
    }
}

pub fn exec(cx: &mut Ctx<'_, '_>) -> Res<()> {
    let op = cx.ins.op;
    if op == Op::Setp || op == Op::Set {
        return setp(cx);
    }
    if op == Op::Testp {
        return test(cx);
    }
    let t = cx.ty();
    if cx.ins.mods.has(Flags::CONTRACTED) {
        return contracted(cx, t);
    }
    let (f, mods) = (Fmt::of(t), cx.ins.mods);
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

/// `setp`/`set` on floats; the packed half forms compare each half on its own.
fn setp(cx: &mut Ctx<'_, '_>) -> Res<()> {
    let (mods, op) = (cx.ins.mods, cx.ins.op);
    // `set` has the destination type first and the compared type second.
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
        if !packed {
            let r = compare_bits(f, cmp, a, b);
            write_compare(cx, lane, r);
            continue;
        }
        // setp.f16x2 p|q: p for the low halves, q for the high halves.
        let lo = compare_bits(f, cmp, a & 0xffff, b & 0xffff);
        let hi = compare_bits(f, cmp, a >> 16, b >> 16);
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
    }
    Ok(())
}

/// `testp`: a predicate of the operand's class (false for a sub-operation that is no test).
fn test(cx: &mut Ctx<'_, '_>) -> Res<()> {
    let t = cx.ty();
    let f = Fmt::of(t);
    let sub = cx.ins.mods.sub;
    for lane in lanes(cx.active) {
        let a = cx.src(1, lane, t);
        let r = sub.and_then(|s| testp(f, s, a)).unwrap_or(false);
        cx.dst(0, lane, u64::from(r));
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
    fn nan_results_are_canonical() {
        let m = Mods::default();
        let inf = u64::from(f32::INFINITY.to_bits());
        assert_eq!(scalar(Op::Sub, Fmt::S, &m, inf, inf, 0), 0x7fff_ffff);
    }
}
