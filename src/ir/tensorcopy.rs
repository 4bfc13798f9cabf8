//! The operand forms of the tensor copies (PTX ISA 9.0 section 9.7.9.25.5: `cp.async.bulk.tensor`,
//! `cp.reduce.async.bulk.tensor`, `cp.async.bulk.prefetch.tensor`) in their load modes, as ptxas
//! 13.0 checks them for sm_90a: `.im2col` and `.im2col_no_offs` need 3 to 5 dimensions; loads and
//! prefetches take `.im2col` with one 16-bit im2col offset per spatial dimension (a brace list of
//! `dims - 2` registers or constants, after the mbarrier of a load), never `.im2col_no_offs`;
//! stores and reductions take `.im2col_no_offs` and never `.im2col`.

use super::mods::Flags;
use super::opcode::Op;
use super::{Operand, RegInfo};
use crate::ir::Space;

/// What is wrong with a tensor copy's form, as ptxas says it; `None` for a form it accepts.
pub(super) fn form(
    op: Op,
    mods: &super::Mods,
    ops: &[Operand],
    regs: &[RegInfo],
    pool: &[Operand],
) -> Option<&'static str> {
    let im2col = mods.has(Flags::IM2COL);
    let no_offs = mods.has(Flags::IM2COL_NO_OFFS);
    if (im2col || no_offs) && !(3..=5).contains(&mods.dim) {
        return Some("the im2col modes take 3 to 5 dimensions");
    }
    let to_global = op == Op::CpReduceAsyncBulkTensor || mods.space == Some(Space::Global);
    let offsets_at = match op {
        Op::CpAsyncBulkPrefetchTensor => 1,
        _ if to_global => {
            return im2col.then_some(
                "stores and reductions take .im2col_no_offs, not .im2col (which needs offsets)",
            );
        }
        _ => 3,
    };
    if no_offs {
        return Some("loads and prefetches take .im2col (with offsets), not .im2col_no_offs");
    }
    let want = if im2col { usize::from(mods.dim) - 2 } else { 0 };
    let got: Vec<Operand> = match ops.get(offsets_at) {
        Some(Operand::Vector(v)) => pool
            .get(v.start as usize..v.start as usize + usize::from(v.len))
            .map(<[Operand]>::to_vec)
            .unwrap_or_default(),
        _ => Vec::new(),
    };
    if got.len() != want {
        return Some(if im2col {
            "an .im2col copy takes one im2col offset per spatial dimension (dims - 2 of them, in braces)"
        } else {
            "only .im2col copies take im2col offsets"
        });
    }
    let sixteen = |o: &Operand| match o {
        Operand::Reg(r) => regs.get(r.0 as usize).is_some_and(|i| i.ty.size() == 2),
        Operand::Imm(v) => (0..=0xffff).contains(v),
        _ => false,
    };
    if !got.iter().all(sixteen) {
        return Some("im2col offsets are 16-bit registers or constants");
    }
    None
}
