//! Translation of a function's instructions into fast forms (`fast.rs`), once per launch, as
//! wasmi translates before it executes. An instruction gets a fast form only when every operand
//! is a plain register of the width the instruction reads, or an immediate, and no modifier
//! changes the result (saturation, carry, flush-to-zero, another rounding, contraction, a
//! predicate combiner, a memory-order semantic, a vector); everything else is [`Fast::Slow`] and
//! runs through the general handlers.

use super::fast::{Ext, FOp, Fast, IntOp, Key, Rel, Src, Src32, Widen};
use crate::ir::mods::{Cmp, Rounding, SubOp};
use crate::ir::{AddrBase, Flags, Function, Instr, Module, Op, Operand, Space, Symbol, Type};

/// The fast forms of a function's instructions, parallel to its code. `var_addr` is the
/// launch's layout of variables (a `[smem + 4]` address becomes a constant).
pub(crate) fn translate(m: &Module, f: &Function, var_addr: &[u64]) -> Vec<Fast> {
    f.code
        .iter()
        .map(|i| {
            let form = match i.op {
                // The general handlers refuse `.b128` (unsupported) by name.
                _ if i.is_b128() => None,
                Op::Ld if i.mods.space == Some(Space::Param) => param_form(f, i),
                Op::Ld | Op::St => mem_form(m, f, i, var_addr),
                Op::Cvta => cvta_form(f, i),
                _ => form(m, f, i, var_addr),
            };
            form.unwrap_or(Fast::Slow)
        })
        .collect()
}

/// `cvta` between the generic space and one whose window is a constant (`memops::cvta`): the
/// window added or taken away, nothing for `.global` or at 32 bits (every window lies above
/// bit 32).
fn cvta_form(f: &Function, i: &Instr) -> Option<Fast> {
    let md = i.mods;
    if md.flags.0 & !Flags::TO.0 != 0 || md.sem.is_some() || md.vec > 1 {
        return None;
    }
    let ops = f.ops(i);
    let w = int_width(md.ty()?)?;
    if ops.len() != 2 {
        return None;
    }
    let (d, a) = (dst(f, ops.first(), w)?, isrc(f, ops.get(1), w)?);
    md.space?;
    let window = crate::mem::cvta_window(md.space);
    if w == 4 || window == 0 {
        return Some(Fast::Mov { d, a });
    }
    let op = if md.has(Flags::TO) {
        IntOp::Sub
    } else {
        IntOp::Add
    };
    Some(Fast::I64 {
        op,
        d,
        a,
        b: Src::Imm(window),
    })
}

/// `ld.param` of one scalar kernel parameter (at a constant offset in it) in a kernel: its
/// offset in the parameter buffer, and the register it fills as `memops::load` fills it
/// (sign-extended for a signed type, cut to the register's width).
fn param_form(f: &Function, i: &Instr) -> Option<Fast> {
    let md = i.mods;
    if !f.is_entry || md.flags != Flags::NONE || md.sem.is_some() || md.vec > 1 {
        return None;
    }
    let t = md.ty()?;
    let ops = f.ops(i);
    let (Some(&Operand::Reg(r)), Some(&Operand::Addr(AddrBase::Sym(Symbol::Param(p)), off))) =
        (ops.first(), ops.get(1))
    else {
        return None;
    };
    let off = u64::from(f.params.get(p as usize)?.offset).checked_add_signed(off)?;
    Some(Fast::Param {
        d: r.0,
        off: u32::try_from(off).ok()?,
        w: u8::try_from(t.size()).ok()?,
        ext: Ext {
            wide: reg_width(f, r)? as u8,
            signed: t.is_signed(),
        },
    })
}

/// An `ld`/`st` of `.shared` or `.global` with a plain address: a 4- or 8-byte scalar, a
/// `.v2`/`.v4` of them of at most 16 bytes between registers of the element's width, or one
/// element of 1 or 2 bytes. One element in braces (`ld.global.b8 {%rs1}`, as Triton writes
/// it) is the element.
fn mem_form(m: &Module, f: &Function, i: &Instr, var_addr: &[u64]) -> Option<Fast> {
    let md = i.mods;
    if md.flags != Flags::NONE || md.sem.is_some() || i.ops.len != 2 {
        return None;
    }
    let n = md.vec.max(1);
    let global = match md.space? {
        Space::Shared => false,
        Space::Global => true,
        _ => return None,
    };
    let t = md.ty()?;
    let w = t.size();
    let narrow = w < 4 && n == 1;
    if !narrow && ((w != 4 && w != 8) || !matches!(n, 1 | 2 | 4) || w * u32::from(n) > 16) {
        return None;
    }
    let (base, off) = plain_address(m, f, i, global, var_addr)?;
    let ops = f.ops(i);
    let data = if i.op == Op::Ld { &ops[0] } else { &ops[1] };
    let w8 = w as u8;
    if n > 1 {
        let regs = vector_regs(f, data, n, w)?;
        return Some(if i.op == Op::Ld {
            Fast::Ld {
                global,
                w: w8,
                n,
                ext: Ext::plain(w8),
                d: regs,
                base,
                off,
            }
        } else {
            Fast::StV {
                global,
                w: w8,
                n,
                v: regs,
                base,
                off,
            }
        });
    }
    let data = match *data {
        Operand::Vector(r) => match f.sub_ops(r) {
            [one] => one,
            _ => return None,
        },
        ref d => d,
    };
    if i.op == Op::Ld {
        let (d, ext) = if narrow {
            narrow_dst(f, data, t)?
        } else {
            (dst(f, Some(data), w)?, Ext::plain(w8))
        };
        return Some(Fast::Ld {
            global,
            w: w8,
            n: 1,
            ext,
            d: [d, 0, 0, 0],
            base,
            off,
        });
    }
    let v = if narrow {
        narrow_src(f, data, t)?
    } else {
        store_src(f, data, t)?
    };
    Some(Fast::St {
        global,
        w: w8,
        v,
        base,
        off,
    })
}

/// The `n` registers of a vector operand, each a register of `w` bytes (no sink, no immediate).
fn vector_regs(f: &Function, data: &Operand, n: u8, w: u32) -> Option<[u32; 4]> {
    let Operand::Vector(r) = *data else {
        return None;
    };
    let elems = f.sub_ops(r);
    if elems.len() != usize::from(n) {
        return None;
    }
    let mut regs = [0u32; 4];
    for (k, e) in elems.iter().enumerate() {
        regs[k] = dst(f, Some(e), w)?;
    }
    Some(regs)
}

/// The value a 4- or 8-byte store of type `t` writes: a register of its width, or a literal of
/// an integer or `.f32` type.
fn store_src(f: &Function, data: &Operand, t: Type) -> Option<Src> {
    let w = t.size();
    if t == Type::F32 {
        fsrc(f, Some(data))
    } else if int_width(t).is_some() {
        isrc(f, Some(data), w)
    } else {
        match *data {
            Operand::Reg(r) if reg_width(f, r) == Some(w) => Some(Src::Reg(r.0)),
            _ => None,
        }
    }
}

/// The register a load of one 1- or 2-byte element of type `t` fills, of any width at least
/// the element's, and how: sign- or zero-extended as `memops::load` does ([`Ext`]).
fn narrow_dst(f: &Function, data: &Operand, t: Type) -> Option<(u32, Ext)> {
    let Operand::Reg(r) = *data else {
        return None;
    };
    let wide = reg_width(f, r).filter(|&x| x >= t.size())? as u8;
    let ext = Ext {
        wide,
        signed: t.is_signed(),
    };
    Some((r.0, ext))
}

/// The value a store of one 1- or 2-byte element of type `t` writes: the low bytes of a
/// register at least as wide, or of an integer literal.
fn narrow_src(f: &Function, data: &Operand, t: Type) -> Option<Src> {
    use Type::{B16, B8, S16, S8, U16, U8};
    let w = t.size();
    match *data {
        Operand::Reg(r) if reg_width(f, r).is_some_and(|x| x >= w) => Some(Src::Reg(r.0)),
        Operand::Imm(v) if matches!(t, B8 | U8 | S8 | B16 | U16 | S16) => {
            Some(Src::Imm(cut(v as u64, w)))
        }
        _ => None,
    }
}

/// The address of a load or store whose fast form `mem_form` may build: a register (its low
/// bits for shared memory) or none, and an offset; a variable of the access's space is its
/// launch address.
fn plain_address(
    m: &Module,
    f: &Function,
    i: &Instr,
    global: bool,
    var_addr: &[u64],
) -> Option<(Option<u32>, u64)> {
    let ops = f.ops(i);
    let addr = if i.op == Op::Ld {
        ops.get(1)?
    } else {
        ops.first()?
    };
    match *addr {
        Operand::Addr(AddrBase::Reg(r), off) => {
            reg_width(f, r)?;
            Some((Some(r.0), off as u64))
        }
        Operand::Addr(AddrBase::None, off) => Some((None, off as u64)),
        Operand::Addr(AddrBase::Sym(Symbol::Var(v)), off) => {
            let var = m.vars.get(v.0 as usize)?;
            let space = if global { Space::Global } else { Space::Shared };
            (var.space == space).then_some(())?;
            Some((None, var_addr.get(v.0 as usize)?.wrapping_add(off as u64)))
        }
        _ => None,
    }
}

/// The width in bytes a register holds, if it is a plain scalar of a non-predicate type.
fn reg_width(f: &Function, r: crate::ir::RegId) -> Option<u32> {
    let info = f.regs.get(r.0 as usize)?;
    (info.vec == 1 && info.ty != Type::Pred).then(|| info.ty.size())
}

fn is_pred(f: &Function, r: crate::ir::RegId) -> bool {
    f.regs
        .get(r.0 as usize)
        .is_some_and(|i| i.ty == Type::Pred && i.vec == 1)
}

/// A destination register of `width` bytes.
fn dst(f: &Function, o: Option<&Operand>, width: u32) -> Option<u32> {
    match o? {
        Operand::Reg(r) if reg_width(f, *r) == Some(width) => Some(r.0),
        _ => None,
    }
}

/// An integer source read at `width` bytes.
fn isrc(f: &Function, o: Option<&Operand>, width: u32) -> Option<Src> {
    match *o? {
        Operand::Reg(r) if reg_width(f, r) == Some(width) => Some(Src::Reg(r.0)),
        Operand::Imm(v) => Some(Src::Imm(cut(v as u64, width))),
        _ => None,
    }
}

/// An `f32` source: a register, or a literal as the general handler converts it.
fn fsrc(f: &Function, o: Option<&Operand>) -> Option<Src> {
    match *o? {
        Operand::Reg(r) if reg_width(f, r) == Some(4) => Some(Src::Reg(r.0)),
        Operand::F32(b) => Some(Src::Imm(u64::from(b))),
        Operand::Imm(v) => Some(Src::Imm(u64::from((v as f32).to_bits()))),
        _ => None,
    }
}

/// The address of variable `v` plus `off` read at `width` bytes (`mov %r, smem`: nvcc takes a
/// shared array's address so in every kernel's prologue): a constant of the launch's layout,
/// as `Ctx::sym_addr` computes it, except for `.local` variables (each frame has its own).
fn var_src(m: &Module, v: crate::ir::VarId, off: i64, var_addr: &[u64], width: u32) -> Option<Src> {
    let space = m.vars.get(v.0 as usize)?.space;
    if space == Space::Local {
        return None;
    }
    let a =
        (var_addr.get(v.0 as usize)? + crate::mem::var_space_base(space)).wrapping_add(off as u64);
    Some(Src::Imm(cut(a, width)))
}

fn cut(v: u64, width: u32) -> u64 {
    if width >= 8 {
        v
    } else {
        v & ((1u64 << (width * 8)) - 1)
    }
}

fn int_width(t: Type) -> Option<u32> {
    match t {
        Type::B32 | Type::U32 | Type::S32 => Some(4),
        Type::B64 | Type::U64 | Type::S64 => Some(8),
        _ => None,
    }
}

/// The width of an integer `mov`: as [`int_width`], and 16-bit registers too (`mov.u16 %rs1, 0`,
/// as Triton zeroes a load's destination before a guarded load).
fn mov_width(t: Type) -> Option<u32> {
    match t {
        Type::B16 | Type::U16 | Type::S16 => Some(2),
        _ => int_width(t),
    }
}

fn form(module: &Module, f: &Function, i: &Instr, var_addr: &[u64]) -> Option<Fast> {
    let m = i.mods;
    if m.flags != Flags::NONE || m.bool_op.is_some() || m.sem.is_some() || m.vec > 1 {
        return None;
    }
    let ops = f.ops(i);
    let t = m.ty()?;
    let o = |k: usize| ops.get(k);
    if t == Type::F32 {
        return float_form(f, i, ops);
    }
    if t == Type::Pred {
        return pred_logic(f, i, ops);
    }
    match i.op {
        Op::Cvt => {
            let st = m.types[1]?;
            let (dw, sw) = (int_width(t)?, int_width(st)?);
            if m.rnd.is_some() || ops.len() != 2 {
                return None;
            }
            let w = match (dw, sw) {
                (8, 4) if st.is_signed() => Widen::Sext,
                (8, 4) => Widen::Zext,
                (4, 8) => Widen::Trunc,
                _ => return None,
            };
            Some(Fast::Cvt {
                w,
                d: dst(f, o(0), dw)?,
                a: isrc(f, o(1), sw)?,
            })
        }
        Op::Mov => {
            let w = mov_width(t)?;
            if ops.len() != 2 {
                return None;
            }
            let a = match *o(1)? {
                Operand::Sym(Symbol::Var(v), off) => var_src(module, v, off, var_addr, w)?,
                Operand::Special(s) => {
                    return Some(Fast::Special {
                        s,
                        d: dst(f, o(0), w)?,
                    })
                }
                _ => isrc(f, o(1), w)?,
            };
            Some(Fast::Mov {
                d: dst(f, o(0), w)?,
                a,
            })
        }
        _ => int_form(f, i, ops, int_width(t)?, t.is_signed()),
    }
}

/// The fast form of an integer instruction of `w` bytes (`signed` for the `.s` types).
fn int_form(f: &Function, i: &Instr, ops: &[Operand], w: u32, signed: bool) -> Option<Fast> {
    let m = i.mods;
    let o = |k: usize| ops.get(k);
    let two = |op: IntOp| -> Option<Fast> {
        if ops.len() != 3 {
            return None;
        }
        let (d, a) = (dst(f, o(0), w)?, isrc(f, o(1), w)?);
        // Shift amounts are .u32 whatever the shifted type.
        let bw = if matches!(op, IntOp::Shl | IntOp::ShrU | IntOp::ShrS) {
            4
        } else {
            w
        };
        let b = isrc(f, o(2), bw)?;
        Some(if w == 4 {
            Fast::I32 { op, d, a, b }
        } else {
            Fast::I64 { op, d, a, b }
        })
    };
    match (i.op, m.sub) {
        (Op::Add, None) => two(IntOp::Add),
        (Op::Sub, None) => two(IntOp::Sub),
        (Op::Mul, Some(SubOp::Lo)) => two(IntOp::MulLo),
        (Op::Mul, Some(SubOp::Hi)) if signed => two(IntOp::MulHiS),
        (Op::Mul, Some(SubOp::Hi)) => two(IntOp::MulHiU),
        (Op::Mul, Some(SubOp::Wide)) if w == 4 && ops.len() == 3 => Some(Fast::MulWide {
            signed,
            d: dst(f, o(0), 8)?,
            a: isrc(f, o(1), 4)?,
            b: isrc(f, o(2), 4)?,
        }),
        (Op::Mad, Some(SubOp::Lo)) if ops.len() == 4 => {
            let (d, a, b, c) = (
                dst(f, o(0), w)?,
                isrc(f, o(1), w)?,
                isrc(f, o(2), w)?,
                isrc(f, o(3), w)?,
            );
            Some(if w == 4 {
                Fast::Mad32 { d, a, b, c }
            } else {
                Fast::Mad64 { d, a, b, c }
            })
        }
        (Op::Mad, Some(SubOp::Wide)) if w == 4 && ops.len() == 4 => Some(Fast::MadWide {
            signed,
            d: dst(f, o(0), 8)?,
            a: isrc(f, o(1), 4)?,
            b: isrc(f, o(2), 4)?,
            c: isrc(f, o(3), 8)?,
        }),
        (Op::Div | Op::Rem, None) if ops.len() == 3 => Some(Fast::Div {
            t: match (w, signed) {
                (4, true) => Type::S32,
                (4, false) => Type::U32,
                (_, true) => Type::S64,
                (_, false) => Type::U64,
            },
            rem: i.op == Op::Rem,
            d: dst(f, o(0), w)?,
            a: isrc(f, o(1), w)?,
            b: isrc(f, o(2), w)?,
        }),
        (Op::Bfi, None) if ops.len() == 5 => Some(Fast::Bfi {
            bits: (w * 8) as u8,
            d: dst(f, o(0), w)?,
            a: isrc(f, o(1), w)?,
            b: isrc(f, o(2), w)?,
            pos: src32(f, o(3))?,
            len: src32(f, o(4))?,
        }),
        (Op::And, None) => two(IntOp::And),
        (Op::Or, None) => two(IntOp::Or),
        (Op::Xor, None) => two(IntOp::Xor),
        (Op::Shl, None) => two(IntOp::Shl),
        (Op::Shr, None) if signed => two(IntOp::ShrS),
        (Op::Shr, None) => two(IntOp::ShrU),
        (Op::Min, None) if signed => two(IntOp::MinS),
        (Op::Min, None) => two(IntOp::MinU),
        (Op::Max, None) if signed => two(IntOp::MaxS),
        (Op::Max, None) => two(IntOp::MaxU),
        (Op::Setp, None) if ops.len() == 3 => int_setp(f, ops, m.cmp?, w, signed),
        (Op::Prmt, None) if w == 4 && ops.len() == 4 => Some(Fast::Prmt {
            d: dst(f, o(0), 4)?,
            a: isrc(f, o(1), 4)?,
            b: isrc(f, o(2), 4)?,
            c: isrc(f, o(3), 4)?,
        }),
        (Op::Selp, None) if ops.len() == 4 => Some(Fast::Selp {
            d: dst(f, o(0), w)?,
            a: isrc(f, o(1), w)?,
            b: isrc(f, o(2), w)?,
            p: match o(3)? {
                Operand::Reg(p) if is_pred(f, *p) => p.0,
                _ => return None,
            },
        }),
        _ => None,
    }
}

/// A 32-bit source as [`Src32`]: a register of 4 bytes, or an immediate cut to 32 bits.
fn src32(f: &Function, o: Option<&Operand>) -> Option<Src32> {
    Some(match isrc(f, o, 4)? {
        Src::Reg(r) => Src32::Reg(r),
        Src::Imm(v) => Src32::Imm(v as u32),
    })
}

/// `and`/`or`/`xor` of two predicate registers (Triton combines its masks so): predicates hold
/// 0 or 1 (`Ctx::set_reg`), which the 64-bit bitwise operations keep.
fn pred_logic(f: &Function, i: &Instr, ops: &[Operand]) -> Option<Fast> {
    let op = match i.op {
        Op::And => IntOp::And,
        Op::Or => IntOp::Or,
        Op::Xor => IntOp::Xor,
        _ => return None,
    };
    let pred = |k: usize| pred_dst(f, ops.get(k));
    (ops.len() == 3).then_some(())?;
    Some(Fast::I64 {
        op,
        d: pred(0)?,
        a: Src::Reg(pred(1)?),
        b: Src::Reg(pred(2)?),
    })
}

/// The fast form of an integer `setp` of `w` bytes.
fn int_setp(f: &Function, ops: &[Operand], cmp: Cmp, w: u32, signed: bool) -> Option<Fast> {
    let rel = Rel::of(cmp)?;
    let key = match (w, signed) {
        (4, true) => Key::S32,
        (4, false) => Key::U32,
        (_, true) => Key::S64,
        (_, false) => Key::U64,
    };
    Some(Fast::Setp {
        key,
        rel,
        d: pred_dst(f, ops.first())?,
        a: isrc(f, ops.get(1), w)?,
        b: isrc(f, ops.get(2), w)?,
    })
}

fn pred_dst(f: &Function, o: Option<&Operand>) -> Option<u32> {
    match o? {
        Operand::Reg(r) if is_pred(f, *r) => Some(r.0),
        _ => None,
    }
}

fn float_form(f: &Function, i: &Instr, ops: &[Operand]) -> Option<Fast> {
    let m = i.mods;
    if !matches!(m.rnd, None | Some(Rounding::Rn)) || m.sub.is_some() {
        return None;
    }
    let o = |k: usize| ops.get(k);
    let bin = |op: FOp| -> Option<Fast> {
        (ops.len() == 3).then_some(())?;
        Some(Fast::F32 {
            op,
            d: dst(f, o(0), 4)?,
            a: fsrc(f, o(1))?,
            b: fsrc(f, o(2))?,
        })
    };
    match i.op {
        Op::Add => bin(FOp::Add),
        Op::Sub => bin(FOp::Sub),
        Op::Mul => bin(FOp::Mul),
        // `fma.rn.f32`; `mad.f32` without a rounding is not fused the same way on every target.
        Op::Fma if m.rnd == Some(Rounding::Rn) && ops.len() == 4 => Some(Fast::Fma32 {
            d: dst(f, o(0), 4)?,
            a: fsrc(f, o(1))?,
            b: fsrc(f, o(2))?,
            c: fsrc(f, o(3))?,
        }),
        Op::Mov if ops.len() == 2 && m.rnd.is_none() => Some(Fast::Mov {
            d: dst(f, o(0), 4)?,
            a: fsrc(f, o(1))?,
        }),
        Op::Setp if ops.len() == 3 && m.rnd.is_none() => Some(Fast::SetpF32 {
            cmp: m.cmp?,
            d: pred_dst(f, o(0))?,
            a: fsrc(f, o(1))?,
            b: fsrc(f, o(2))?,
        }),
        _ => None,
    }
}
