//! Integer arithmetic, logic, shifts, bit manipulation, selection and moves over the active
//! lanes (PTX ISA 9.0 sections 9.7.1 "Integer Arithmetic", with the `.u16x2`/`.s16x2` halves of
//! add, min and max, 9.7.2 "Extended-Precision", 9.7.7 "Comparison and Selection", 9.7.8 "Logic
//! and Shift", 9.7.9.1-3 `mov`/`prmt`). Values travel as u64 bit patterns; each handler reads
//! its operands at the instruction's width and sign and computes with the pure functions of
//! `sem/int.rs` and `sem/bits.rs`, the ones the warp-wide fast forms (`fast.rs`) call. The
//! opcode is decoded once per execution into a family ([`Arith`], [`Logic`]) whose lane loop
//! matches it exhaustively.

use super::ctx::Ctx;
use super::fault::FaultKind;
use super::fault::{fault, Res};
use super::lanes::lanes;
use crate::ir::mods::{BoolOp, Cmp, SubOp};
use crate::ir::{Flags, Mods, Op, Operand, Type};
use crate::sem::bits::{self, Shift};
use crate::sem::int::{self, as_i128, mask, sat_s32, MulPart, Packed};
pub use crate::sem::int::{int_cmp, sext};

pub fn handles(op: Op) -> bool {
    use Op::*;
    matches!(
        op,
        Add | Sub
            | Addc
            | Subc
            | Mul
            | Mad
            | Madc
            | Mul24
            | Mad24
            | Sad
            | Div
            | Rem
            | Abs
            | Neg
            | Min
            | Max
            | Popc
            | Clz
            | Bfind
            | Fns
            | Brev
            | Bfe
            | Bfi
            | Szext
            | Bmsk
            | Dp4a
            | Dp2a
            | And
            | Or
            | Xor
            | Not
            | Cnot
            | Lop3
            | Shf
            | Shl
            | Shr
            | Mov
            | Prmt
            | Setp
            | Set
            | Selp
            | Slct
    )
}

pub fn exec(cx: &mut Ctx<'_, '_>) -> Res<()> {
    let t = cx.ty();
    let mods = cx.ins.mods;
    let op = cx.ins.op;
    match op {
        Op::Mov => return mov(cx),
        Op::Setp | Op::Set => return setp(cx),
        Op::Addc | Op::Subc | Op::Madc => return carry_ops(cx),
        Op::Add | Op::Sub | Op::Mad if mods.has(Flags::CC) => return carry_ops(cx),
        Op::Add | Op::Min | Op::Max if matches!(t, Type::S16x2 | Type::U16x2) => return packed(cx),
        Op::Mul | Op::Mad => return products(cx),
        Op::Selp | Op::Slct => return select(cx),
        _ => {}
    }
    let m = mask(t.size() * 8);
    if let Some(k) = Arith::of(op) {
        return lanewise(cx, m, |l| arith(k, l));
    }
    if let Some(k) = Logic::of(op) {
        // The counts and positions are 32-bit results whatever the source width.
        let counts = matches!(k, Logic::Popc | Logic::Clz | Logic::Bfind | Logic::Fns);
        return lanewise(cx, if counts { 0xffff_ffff } else { m }, |l| logic(k, l));
    }
    Err(fault(
        FaultKind::Unsupported,
        format!("integer instruction {op:?} has no per-lane semantics"),
    ))
}

/// One lane's operands: `a`, `b`, `c`, `d` (sources 1 to 4) read at the type `t`.
struct Lane {
    a: u64,
    b: u64,
    c: u64,
    d: u64,
    /// The shift count (source 2 read as u32).
    n: u32,
    t: Type,
    bits: u32,
    mods: Mods,
}

/// Runs `f` on every active lane and writes its result cut by `cut`.
fn lanewise(cx: &mut Ctx<'_, '_>, cut: u64, f: impl Fn(&Lane) -> u64) -> Res<()> {
    let t = cx.ty();
    let bits = t.size() * 8;
    let mods = cx.ins.mods;
    let wants_d = matches!(cx.ins.op, Op::Bfi | Op::Lop3);
    let wants_n = matches!(cx.ins.op, Op::Shl | Op::Shr);
    for lane in lanes(cx.active) {
        let l = Lane {
            a: cx.src(1, lane, t),
            b: cx.src(2, lane, t),
            c: cx.src(3, lane, t),
            d: if wants_d { cx.src(4, lane, t) } else { 0 },
            n: if wants_n {
                (cx.src(2, lane, Type::U32) & 0xffff_ffff) as u32
            } else {
                0
            },
            t,
            bits,
            mods,
        };
        cx.dst(0, lane, f(&l) & cut);
    }
    Ok(())
}

/// The arithmetic of this file that reads a, b, c at one type.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Arith {
    Add,
    Sub,
    Mul24,
    Mad24,
    Sad,
    Div,
    Rem,
    Abs,
    Neg,
    Min,
    Max,
    Dp4a,
    Dp2a,
}

impl Arith {
    fn of(op: Op) -> Option<Arith> {
        Some(match op {
            Op::Add => Arith::Add,
            Op::Sub => Arith::Sub,
            Op::Mul24 => Arith::Mul24,
            Op::Mad24 => Arith::Mad24,
            Op::Sad => Arith::Sad,
            Op::Div => Arith::Div,
            Op::Rem => Arith::Rem,
            Op::Abs => Arith::Abs,
            Op::Neg => Arith::Neg,
            Op::Min => Arith::Min,
            Op::Max => Arith::Max,
            Op::Dp4a => Arith::Dp4a,
            Op::Dp2a => Arith::Dp2a,
            _ => return None,
        })
    }
}

fn arith(k: Arith, l: &Lane) -> u64 {
    let (a, b, c, t, bits) = (l.a, l.b, l.c, l.t, l.bits);
    let sat = l.mods.has(Flags::SAT);
    let hi = l.mods.sub == Some(SubOp::Hi);
    let (sa, sb) = (as_i128(a, t), as_i128(b, t));
    match k {
        Arith::Add if sat => sat_s32(sa + sb),
        Arith::Add => a.wrapping_add(b),
        Arith::Sub if sat => sat_s32(sa - sb),
        Arith::Sub => a.wrapping_sub(b),
        Arith::Mul24 => int::mul24(a, b, t.is_signed(), hi),
        Arith::Mad24 => {
            let r = int::mul24(a, b, t.is_signed(), hi);
            if sat {
                sat_s32(i128::from(sext(r, 32)) + i128::from(sext(c, 32)))
            } else {
                r.wrapping_add(c)
            }
        }
        Arith::Sad => ((sa - sb).unsigned_abs() as u64).wrapping_add(c),
        Arith::Div => int::div(a, b, t),
        Arith::Rem => int::rem(a, b, t),
        Arith::Abs => sext(a, bits).wrapping_abs() as u64,
        Arith::Neg => a.wrapping_neg(),
        Arith::Min | Arith::Max => {
            let r = int::min_max(a, b, bits, t.is_signed(), k == Arith::Max);
            if l.mods.has(Flags::RELU) && t.is_signed() && sext(r, bits) < 0 {
                0
            } else {
                r
            }
        }
        Arith::Dp4a => {
            let tb = l.mods.types[1].unwrap_or(t);
            int::dp4a(a, b, c, t.is_signed(), tb.is_signed())
        }
        Arith::Dp2a => {
            let tb = l.mods.types[1].unwrap_or(t);
            int::dp2a(a, b, c, (t.is_signed(), tb.is_signed()), hi)
        }
    }
}

/// Bit manipulation, logic and shifts.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Logic {
    Popc,
    Clz,
    Bfind,
    Fns,
    Brev,
    Bfe,
    Bfi,
    Szext,
    Bmsk,
    And,
    Or,
    Xor,
    Not,
    Cnot,
    Lop3,
    Shf,
    Shl,
    Shr,
    Prmt,
}

impl Logic {
    fn of(op: Op) -> Option<Logic> {
        Some(match op {
            Op::Popc => Logic::Popc,
            Op::Clz => Logic::Clz,
            Op::Bfind => Logic::Bfind,
            Op::Fns => Logic::Fns,
            Op::Brev => Logic::Brev,
            Op::Bfe => Logic::Bfe,
            Op::Bfi => Logic::Bfi,
            Op::Szext => Logic::Szext,
            Op::Bmsk => Logic::Bmsk,
            Op::And => Logic::And,
            Op::Or => Logic::Or,
            Op::Xor => Logic::Xor,
            Op::Not => Logic::Not,
            Op::Cnot => Logic::Cnot,
            Op::Lop3 => Logic::Lop3,
            Op::Shf => Logic::Shf,
            Op::Shl => Logic::Shl,
            Op::Shr => Logic::Shr,
            Op::Prmt => Logic::Prmt,
            _ => return None,
        })
    }
}

fn logic(k: Logic, l: &Lane) -> u64 {
    let (a, b, c, t, bits) = (l.a, l.b, l.c, l.t, l.bits);
    let clamp = l.mods.sub == Some(SubOp::Clamp);
    match k {
        Logic::Popc => bits::popc(a, bits),
        Logic::Clz => bits::clz(a, bits),
        Logic::Bfind => bits::bfind(a, bits, t.is_signed(), l.mods.has(Flags::SHIFTAMT)),
        Logic::Fns => bits::fns(a as u32, b as u32, c as i32),
        Logic::Brev => bits::brev(a, bits),
        Logic::Bfe => bits::bfe(a, b, c, bits, t.is_signed()),
        Logic::Bfi => bits::bfi(a, b, c, l.d, bits),
        Logic::Szext => bits::szext(a, b, clamp, t.is_signed()),
        Logic::Bmsk => bits::bmsk(a, b, clamp),
        Logic::And => a & b,
        Logic::Or => a | b,
        Logic::Xor => a ^ b,
        Logic::Not => !a,
        Logic::Cnot => u64::from(a & mask(bits) == 0),
        Logic::Lop3 => bits::lop3(a, b, c, l.d as u8, bits),
        Logic::Shf => {
            let clamp = clamp || l.mods.sub2 == Some(SubOp::Clamp);
            bits::shf(a, b, c, clamp, l.mods.sub == Some(SubOp::L))
        }
        Logic::Shl => bits::shift(Shift::Left, a, l.n, bits),
        Logic::Shr if t.is_signed() => bits::shift(Shift::RightS, a, l.n, bits),
        Logic::Shr => bits::shift(Shift::RightU, a, l.n, bits),
        Logic::Prmt => bits::prmt(a as u32, b as u32, c as u32, l.mods.sub),
    }
}

/// `add`, `min`, `max` on `.u16x2`/`.s16x2`.
fn packed(cx: &mut Ctx<'_, '_>) -> Res<()> {
    let op = match cx.ins.op {
        Op::Add => Packed::Add,
        Op::Min => Packed::Min,
        _ => Packed::Max,
    };
    let signed = cx.ty() == Type::S16x2;
    let relu = cx.ins.mods.has(Flags::RELU);
    let m = mask(cx.ty().size() * 8);
    lanewise(cx, m, |l| {
        int::packed16x2(op, signed, relu, l.a as u32, l.b as u32)
    })
}

/// `mul` and `mad` (`.lo`, `.hi`, `.wide`; `mad.hi.sat` on s32).
fn products(cx: &mut Ctx<'_, '_>) -> Res<()> {
    let t = cx.ty();
    let bits = t.size() * 8;
    let mods = cx.ins.mods;
    let part = match mods.sub {
        Some(SubOp::Hi) => MulPart::Hi,
        Some(SubOp::Wide) => MulPart::Wide,
        _ => MulPart::Lo,
    };
    let m = if part == MulPart::Wide {
        mask(bits * 2)
    } else {
        mask(bits)
    };
    let mad = cx.ins.op == Op::Mad;
    let ct = if part == MulPart::Wide {
        double_width(t)
    } else {
        t
    };
    for lane in lanes(cx.active) {
        let (a, b) = (cx.src(1, lane, t), cx.src(2, lane, t));
        let prod = int::mul(a, b, bits, t.is_signed(), part);
        let r = if !mad {
            prod
        } else if part == MulPart::Hi && mods.has(Flags::SAT) {
            let c = cx.src(3, lane, ct);
            sat_s32(i128::from(sext(prod, bits)) + as_i128(c, t))
        } else {
            prod.wrapping_add(cx.src(3, lane, ct))
        };
        cx.dst(0, lane, r & m);
    }
    Ok(())
}

/// `selp` (by a predicate) and `slct` (by the sign of a third operand, `.ftz` for an f32 one).
fn select(cx: &mut Ctx<'_, '_>) -> Res<()> {
    let t = cx.ty();
    let m = mask(t.size() * 8);
    let mods = cx.ins.mods;
    let by_pred = cx.ins.op == Op::Selp;
    let ct = mods.types[1].unwrap_or(Type::S32);
    for lane in lanes(cx.active) {
        let (a, b) = (cx.src(1, lane, t), cx.src(2, lane, t));
        let first = if by_pred {
            cx.src(3, lane, Type::Pred) != 0
        } else {
            let sel = cx.src(3, lane, ct);
            if ct == Type::F32 {
                let f = f32::from_bits(sel as u32);
                let f = if mods.has(Flags::FTZ) && f.is_subnormal() {
                    0.0
                } else {
                    f
                };
                f >= 0.0 || (f == 0.0)
            } else {
                sext(sel, 32) >= 0
            }
        };
        cx.dst(0, lane, if first { a } else { b } & m);
    }
    Ok(())
}

fn double_width(t: Type) -> Type {
    match t {
        Type::U16 => Type::U32,
        Type::S16 => Type::S32,
        Type::U32 => Type::U64,
        Type::S32 => Type::S64,
        other => other,
    }
}

fn mov(cx: &mut Ctx<'_, '_>) -> Res<()> {
    let t = cx.ty();
    let ops = cx.ops;
    let elem_bits = |cx: &Ctx<'_, '_>, n: usize| -> u32 { (cx.ty().size() * 8) / n as u32 };
    for lane in lanes(cx.active) {
        match (ops.first(), ops.get(1)) {
            // Pack: mov.b64 %rd, {%r1, %r2} (first element lowest).
            (Some(Operand::Reg(_)), Some(Operand::Vector(r))) => {
                let elems = cx.func.sub_ops(*r).to_vec();
                let w = elem_bits(cx, elems.len());
                let mut v = 0u64;
                for (i, e) in elems.iter().enumerate() {
                    v |= (cx.value(e, lane, t) & mask(w)) << (w * i as u32);
                }
                cx.dst(0, lane, v);
            }
            // Unpack: mov.b64 {%r1, %r2}, %rd.
            (Some(Operand::Vector(r)), Some(src)) => {
                let elems = cx.func.sub_ops(*r).to_vec();
                let w = elem_bits(cx, elems.len());
                let v = cx.value(src, lane, t);
                for (i, e) in elems.iter().enumerate() {
                    if let Operand::Reg(reg) = e {
                        cx.set_reg(*reg, lane, (v >> (w * i as u32)) & mask(w));
                    }
                }
            }
            _ => {
                let v = cx.src(1, lane, t);
                cx.dst(0, lane, v);
            }
        }
    }
    Ok(())
}

/// Combines a comparison with the `.and`/`.or`/`.xor` predicate operand and writes `setp`/`set`.
pub fn write_compare(cx: &mut Ctx<'_, '_>, lane: usize, result: bool) {
    let mods = cx.ins.mods;
    let nops = cx.ops.len();
    let (tv, fv) = match mods.bool_op {
        Some(op) if nops >= 4 => {
            let c = cx.src(3, lane, Type::Pred) != 0;
            let f = |x: bool| match op {
                BoolOp::And => x && c,
                BoolOp::Or => x || c,
                BoolOp::Xor => x ^ c,
            };
            (f(result), f(!result))
        }
        _ => (result, !result),
    };
    if cx.ins.op == Op::Set {
        let dt = mods.ty().unwrap_or(Type::U32);
        let v = match dt {
            Type::F32 => u64::from(if tv { 1.0f32.to_bits() } else { 0 }),
            _ => {
                if tv {
                    0xffff_ffff
                } else {
                    0
                }
            }
        };
        cx.dst(0, lane, v);
        return;
    }
    match cx.ops.first().copied() {
        Some(Operand::Pair(p, q)) => {
            if let Some(p) = p {
                cx.set_reg(p, lane, u64::from(tv));
            }
            if let Some(q) = q {
                cx.set_reg(q, lane, u64::from(fv));
            }
        }
        _ => cx.dst(0, lane, u64::from(tv)),
    }
}

fn setp(cx: &mut Ctx<'_, '_>) -> Res<()> {
    // `set` has the destination type first and the compared type second.
    let t = if cx.ins.op == Op::Set {
        cx.ins.mods.types[1].unwrap_or(Type::U32)
    } else {
        cx.ty()
    };
    let cmp = cx.ins.mods.cmp.unwrap_or(Cmp::Eq);
    for lane in lanes(cx.active) {
        let a = as_i128(cx.src(1, lane, t), t);
        let b = as_i128(cx.src(2, lane, t), t);
        let r = int_cmp(cmp, a, b);
        write_compare(cx, lane, r);
    }
    Ok(())
}

/// `add.cc`, `addc`, `sub.cc`, `subc`, `mad.cc`, `madc`: 32/64-bit arithmetic through the carry flag.
fn carry_ops(cx: &mut Ctx<'_, '_>) -> Res<()> {
    let t = cx.ty();
    let bits = t.size() * 8;
    let mods = cx.ins.mods;
    let op = match cx.ins.op {
        Op::Add | Op::Addc => int::CarryOp::Add,
        Op::Sub | Op::Subc => int::CarryOp::Sub,
        _ => int::CarryOp::Mad {
            hi: mods.sub == Some(SubOp::Hi),
        },
    };
    let set_cc = mods.has(Flags::CC);
    let use_cc = matches!(cx.ins.op, Op::Addc | Op::Subc | Op::Madc);
    let is_mad = matches!(op, int::CarryOp::Mad { .. });
    for lane in lanes(cx.active) {
        let cin = use_cc && (cx.frame.carry >> lane) & 1 == 1;
        let (a, b) = (cx.src(1, lane, t), cx.src(2, lane, t));
        let c = if is_mad { cx.src(3, lane, t) } else { 0 };
        let (r, cout) = int::with_carry(op, (a, b, c), bits, cin);
        cx.dst(0, lane, r);
        if set_cc {
            if cout {
                cx.frame.carry |= 1 << lane;
            } else {
                cx.frame.carry &= !(1 << lane);
            }
        }
    }
    Ok(())
}
