//! Generic addresses that name a variable (PTX ISA 9.0 section 6.4.1 "Generic Addressing" and
//! 5.1.6 "Parameter State Space"): a memory instruction with no state space reaches a shared or
//! local variable it names at the variable's generic address (`exec/addr.rs`), but ptxas refuses
//! one that names a `.param` or `.const` variable or parameter ("State space mismatch between
//! instruction and address"; measured for `ld`, `ldu`, `st`, `atom` and `red`), and so does the
//! GPU's driver (`CUDA_ERROR_INVALID_PTX`). So is a tensor copy's map operand that names one (a
//! `.global` variable there is taken, as in `ld`). ptxrun refuses the same at load, rather than
//! reading some other space (`docs/launch/param-space.md`).

use super::opcode::Op;
use super::types::Space;
use super::{AddrBase, Instr, Operand, Symbol};
use crate::diag::Diag;
use crate::parse::ast;

/// Refuses a generic `ld`/`ldu`/`st`/`atom`/`red`, or a tensor copy's map operand, that names a
/// `.param` or `.const` variable or parameter; `space_of` gives a variable's state space.
pub(super) fn check_generic_names(
    ins: &Instr,
    ops: &[Operand],
    pool: &[Operand],
    src: &ast::Instr<'_>,
    space_of: &dyn Fn(Symbol) -> Option<Space>,
) -> Result<(), Diag> {
    let memory = matches!(ins.op, Op::Ld | Op::Ldu | Op::St | Op::Atom | Op::Red);
    let tensor = matches!(
        ins.op,
        Op::CpAsyncBulkTensor | Op::CpReduceAsyncBulkTensor | Op::CpAsyncBulkPrefetchTensor
    );
    for (k, o) in ops.iter().enumerate() {
        let named = match *o {
            Operand::Addr(AddrBase::Sym(s), _) if memory && ins.mods.space.is_none() => s,
            // `[tensorMap, {c0, ...}]`: the map's generic address first.
            Operand::AddrList(r) if tensor => {
                let first = pool.get(r.start as usize..r.start as usize + r.len as usize);
                match first.and_then(|items| items.first()) {
                    Some(&Operand::Sym(s, _)) => s,
                    _ => continue,
                }
            }
            _ => continue,
        };
        let Some(space) = not_generic(named, space_of) else {
            continue;
        };
        let span = src.operands.get(k).map_or(src.span.clone(), |o| o.span());
        let conv = match space {
            "`.const`" => "`cvta.const`",
            _ => "`cvta.param`",
        };
        return Err(Diag::error(
            "ir::state-space",
            format!(
                "`{}` takes a generic address here, but names a {space} variable: ptxas refuses \
                 it (state space mismatch)",
                src.opcode.text
            ),
        )
        .label(span, format!("a {space} name"))
        .help(format!(
            "name its state space in the instruction, or take its generic address with {conv} first"
        )));
    }
    Ok(())
}

/// The state space of `s` when a generic address may not name it.
fn not_generic(s: Symbol, space_of: &dyn Fn(Symbol) -> Option<Space>) -> Option<&'static str> {
    match s {
        Symbol::Param(_) | Symbol::Ret(_) => Some("`.param`"),
        Symbol::Var(_) => match space_of(s)? {
            Space::Param | Space::ParamEntry | Space::ParamFunc => Some("`.param`"),
            Space::Const => Some("`.const`"),
            _ => None,
        },
        Symbol::Func(_) => None,
    }
}
