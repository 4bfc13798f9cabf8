//! Contraction of `mul` into a following `add`/`sub`, as ptxas does it. The PTX ISA (9.7.3.1
//! `add`, 9.7.3.3 `mul`) lets the code generator fuse a multiply and an add that carry no rounding
//! modifier into one fused multiply-add, and ptxas does: an H100 returned the single-rounding
//! result for `mul.f64` followed by `sub.f64` in nvcc output. To give the bytes the hardware gives,
//! the IR records the same fusion where it is unambiguous: inside one basic block, an unguarded
//! `mul.f32`/`mul.f64` without `.rn`/`.sat` whose result register is written once and read once,
//! by an unguarded `add`/`sub` of the same type without `.rn`/`.sat`, with neither multiplicand
//! written in between. The add then executes as `fma(a, b, ±c)` (`exec/fp.rs`).

use super::{Flags, Function, Op, Operand, RegId, Type};

pub fn contract(f: &mut Function) {
    let n = f.regs.len();
    let mut uses = vec![0u32; n];
    let mut defs = vec![0u32; n];
    for ins in &f.code {
        let ops = f.ops(ins);
        for (k, o) in ops.iter().enumerate() {
            let count = if k == 0 && writes_first(ins.op) {
                &mut defs
            } else {
                &mut uses
            };
            each_reg(f, o, &mut |r| count[r.0 as usize] += 1);
        }
        if let Some(g) = ins.guard {
            uses[g.reg.0 as usize] += 1;
        }
    }
    let mut block_start = vec![false; f.code.len() + 1];
    for (_, i) in &f.labels {
        if let Some(b) = block_start.get_mut(*i as usize) {
            *b = true;
        }
    }
    let mut found = Vec::new();
    for (j, add) in f.code.iter().enumerate() {
        if !matches!(add.op, Op::Add | Op::Sub) || !eligible(add) {
            continue;
        }
        let ops = f.ops(add);
        for k in [1usize, 2] {
            let Some(&Operand::Reg(r)) = ops.get(k) else {
                continue;
            };
            if uses[r.0 as usize] != 1 || defs[r.0 as usize] != 1 {
                continue;
            }
            if let Some(i) = defining_mul(f, j, r, &block_start) {
                let mul = &f.code[i];
                if mul.mods.ty() == add.mods.ty()
                    && mul.mods.has(Flags::FTZ) == add.mods.has(Flags::FTZ)
                {
                    found.push((j, i as u32));
                    break;
                }
            }
        }
    }
    for (j, i) in found {
        f.code[j].mods.flags = f.code[j].mods.flags | Flags::CONTRACTED;
        f.contractions.push((j as u32, i));
    }
}

fn eligible(ins: &super::Instr) -> bool {
    ins.guard.is_none()
        && ins.mods.rnd.is_none()
        && !ins.mods.has(Flags::SAT)
        && matches!(ins.mods.ty(), Some(Type::F32 | Type::F64))
}

/// The index of the `mul` that defines `r` for the add at `j`, searching back within the block.
fn defining_mul(f: &Function, j: usize, r: RegId, block_start: &[bool]) -> Option<usize> {
    let mut i = j;
    while i > 0 && !block_start[i] {
        i -= 1;
        let ins = &f.code[i];
        if is_control(ins.op) {
            return None;
        }
        let ops = f.ops(ins);
        if writes_first(ins.op) && ops.first() == Some(&Operand::Reg(r)) {
            if ins.op != Op::Mul || !eligible(ins) {
                return None;
            }
            // The multiplicands must still hold their values at the add.
            let srcs: Vec<RegId> = ops[1..]
                .iter()
                .filter_map(|o| {
                    if let Operand::Reg(x) = o {
                        Some(*x)
                    } else {
                        None
                    }
                })
                .collect();
            let clobbered = f.code[i + 1..j].iter().any(|between| {
                writes_first(between.op)
                    && matches!(f.ops(between).first(), Some(Operand::Reg(x)) if srcs.contains(x))
            });
            return (!clobbered).then_some(i);
        }
    }
    None
}

fn is_control(op: Op) -> bool {
    matches!(
        op,
        Op::Bra | Op::BrxIdx | Op::Call | Op::Ret | Op::Exit | Op::Trap | Op::Bar | Op::Barrier
    )
}

/// Whether operand 0 is a result (the rest are sources).
fn writes_first(op: Op) -> bool {
    !matches!(
        op,
        Op::St
            | Op::StBulk
            | Op::Red
            | Op::StAsync
            | Op::RedAsync
            | Op::Bra
            | Op::BrxIdx
            | Op::Call
            | Op::Bar
            | Op::Barrier
    ) && !op.name().starts_with("cp.")
        && !op.name().starts_with("mbarrier.")
}

/// Every register operand `o` names (sources, destinations, address bases, lists).
pub(crate) fn each_reg(f: &Function, o: &Operand, visit: &mut impl FnMut(RegId)) {
    match *o {
        Operand::Reg(r) | Operand::NotPred(r) | Operand::NegReg(r) | Operand::VReg(r, _) => {
            visit(r)
        }
        Operand::Pair(a, b) => {
            a.into_iter().chain(b).for_each(&mut *visit);
        }
        Operand::Addr(crate::ir::AddrBase::Reg(r), _) => visit(r),
        Operand::Vector(range) | Operand::AddrList(range) | Operand::List(range) => {
            for inner in f.sub_ops(range) {
                each_reg(f, inner, visit);
            }
        }
        _ => {}
    }
}
