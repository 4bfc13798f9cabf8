//! Vector atomics (PTX ISA 9.0 sections 9.7.13.5 `atom` and 9.7.13.6 `red`, sm_90): only
//! `.add` of `.v2`/`.v4` `.f32`, and `.add`/`.min`/`.max` `.noftz` of `.v2`/`.v4`/`.v8`
//! `.f16`/`.bf16` or `.v2`/`.v4` `.f16x2`/`.bf16x2`, on global memory (`.global` or a generic
//! address). ptxas rejects every other vector atomic; so does this, at decode time.

use super::mods::{Flags, SubOp};
use super::{Instr, Space, Type};

/// Why `ins` (an `atom` or `red` with `.v2` or wider) is not a vector atomic PTX has, if it is not.
pub(super) fn vector_atomic_form(ins: &Instr) -> Option<&'static str> {
    let m = &ins.mods;
    if !matches!(m.space, None | Some(Space::Global)) {
        return Some("vector atomics are on global memory only (.global or a generic address)");
    }
    let op = m.sub.unwrap_or(SubOp::Add);
    match m.ty() {
        Some(Type::F32) => {
            if op != SubOp::Add {
                return Some("a vector of .f32 takes .add only");
            }
            (m.vec > 4).then_some(".f32 vectors are .v2 or .v4")
        }
        Some(Type::F16 | Type::Bf16 | Type::F16x2 | Type::Bf16x2) => {
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
