//! Forms of the memory instructions' data operands, and of atomics (PTX ISA 9.0 sections
//! 9.7.9.8-9 `ld`/`st`, 9.7.13.5 `atom`, 9.7.13.6 `red`), as ptxas 13.0 checks them at load:
//! - a data operand holds as many registers as the vector qualifier says (`{...}` of exactly
//!   N for `.vN`; one register, or a brace list of one, without it);
//! - `.min`/`.max` atomics take integers or 16-bit floats only;
//! - vector atomics (sm_90) are `.add` of `.v2`/`.v4` `.f32`, and `.add`/`.min`/`.max` `.noftz`
//!   of `.v2`/`.v4`/`.v8` `.f16`/`.bf16` or `.v2`/`.v4` `.f16x2`/`.bf16x2`, on global memory.

use super::mods::{Flags, SubOp};
use super::{Instr, Op, OpRange, Operand, Space, Type};

/// The operand positions of `ins`'s data (registers loaded, stored or combined), if it has any.
fn data_positions(ins: &Instr) -> &'static [usize] {
    match ins.op {
        Op::Ld | Op::Ldu => &[0],
        Op::St | Op::Red => &[1],
        Op::Atom if ins.mods.sub == Some(SubOp::Cas) => &[0, 2, 3],
        Op::Atom => &[0, 2],
        _ => &[],
    }
}

/// The first data operand of `ins` whose register count is not the vector qualifier's, with
/// what it should hold.
pub(super) fn data_width(
    ins: &Instr,
    ops: &[Operand],
    len: impl Fn(OpRange) -> usize,
) -> Option<(usize, String)> {
    let want = usize::from(ins.mods.vec.max(1));
    for &k in data_positions(ins) {
        let have = match ops.get(k) {
            Some(Operand::Vector(r)) => len(*r),
            Some(_) => 1,
            None => continue,
        };
        if have != want {
            let what = match want {
                1 => "one register (no `.vN`)".to_string(),
                n => format!("a brace list of {n} registers (`.v{n}`)"),
            };
            return Some((k, what));
        }
    }
    None
}

/// Why `ins` (an `atom` or `red`) is not an atomic PTX has, if it is not.
pub(super) fn atomic_form(ins: &Instr) -> Option<&'static str> {
    let m = &ins.mods;
    let op = m.sub.unwrap_or(SubOp::Add);
    let half = matches!(
        m.ty(),
        Some(Type::F16 | Type::Bf16 | Type::F16x2 | Type::Bf16x2)
    );
    if matches!(op, SubOp::Min | SubOp::Max) && m.ty().is_some_and(|t| t.is_float()) && !half {
        return Some(".min and .max take integers, .f16, .bf16, .f16x2 or .bf16x2");
    }
    if m.vec <= 1 {
        return None;
    }
    if !matches!(m.space, None | Some(Space::Global)) {
        return Some("vector atomics are on global memory only (.global or a generic address)");
    }
    match m.ty() {
        Some(Type::F32) => {
            if op != SubOp::Add {
                return Some("a vector of .f32 takes .add only");
            }
            if m.has(Flags::NOFTZ) {
                return Some("a vector of .f32 takes no .noftz");
            }
            (m.vec > 4).then_some(".f32 vectors are .v2 or .v4")
        }
        Some(_) if half => {
            if !matches!(op, SubOp::Add | SubOp::Min | SubOp::Max) {
                return Some("a vector of 16-bit floats takes .add, .min or .max");
            }
            if !m.has(Flags::NOFTZ) {
                return Some("a vector of 16-bit floats needs .noftz");
            }
            let packed = matches!(m.ty(), Some(Type::F16x2 | Type::Bf16x2));
            (packed && m.vec > 4).then_some("packed (.f16x2, .bf16x2) vectors are .v2 or .v4")
        }
        _ => Some("vector atomics take .f32, .f16, .bf16, .f16x2 or .bf16x2"),
    }
}
