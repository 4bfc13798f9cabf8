//! The forms of `cvt` (PTX ISA 9.0 section 9.7.9.21), decided once from the decoded modifiers:
//! which conversion an instruction is, whether PTX allows it at all, and whether ptxrun
//! executes it. The ISA's syntax block lists these forms:
//!
//! ```text
//! cvt{.irnd}{.ftz}{.sat}.dtype.atype                       d, a;      // scalar
//! cvt{.frnd}{.ftz}{.sat}.dtype.atype                       d, a;      // scalar
//! cvt.frnd2{.relu}{.satfinite}.{f16,bf16}.f32              d, a;      // scalar, frnd2 = rn | rz
//! cvt.frnd2{.relu}{.satfinite}.{f16x2,bf16x2}.f32          d, a, b;   // a in the upper half
//! cvt.rna{.satfinite}.tf32.f32                             d, a;
//! cvt.frnd2{.satfinite}{.relu}.tf32.f32                    d, a;      // .satfinite: sm_100
//! cvt.rn.satfinite{.relu}.{e4m3x2,e5m2x2}.f32              d, a, b;   // a in the upper byte
//! cvt.rn.satfinite{.relu}.{e4m3x2,e5m2x2}.f16x2            d, a;
//! cvt.rn{.relu}.f16x2.{e4m3x2,e5m2x2}                      d, a;
//! cvt.rs..., cvt.*.{e2m1x2,e2m3x2,e3m2x2,ue8m0x2}, f8x4    (sm_100 and later)
//! ```
//!
//! Every form ptxrun executes was compared with an H100 over all inputs of its narrow side
//! (`benches/cvt-campaign`). The sm_100 forms cannot be run on that hardware, so they decode
//! (the module loads) but are not executable: reaching one is an `unsupported` error naming the
//! form, never a conversion to something close.

use super::mods::{Flags, Mods, Rounding};
use super::types::Type;

/// What a `cvt` instruction converts.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum CvtForm {
    /// One value between integer types and the IEEE formats f16, bf16, f32, f64.
    Scalar,
    /// Two f32 values to `f16x2`/`bf16x2` (`half` is f16 or bf16).
    HalfPairFromF32 { half: Type },
    /// One f32 value to tf32 (an f32 bit pattern with the low 13 bits clear).
    Tf32FromF32,
    /// Two f32 values to `e4m3x2`/`e5m2x2` (`f8` is the pair type).
    F8PairFromF32 { f8: Type },
    /// The two halves of an `f16x2` to `e4m3x2`/`e5m2x2`.
    F8PairFromF16x2 { f8: Type },
    /// An `e4m3x2`/`e5m2x2` pair to `f16x2`.
    F16x2FromF8Pair { f8: Type },
}

/// Why a `cvt` cannot run.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum CvtError {
    /// PTX does not allow this combination (ptxas rejects it).
    Illegal(&'static str),
    /// A valid form ptxrun does not execute; the text says why.
    NotExecutable(&'static str),
}

fn is_int(t: Type) -> bool {
    matches!(
        t,
        Type::U8 | Type::U16 | Type::U32 | Type::U64 | Type::S8 | Type::S16 | Type::S32 | Type::S64
    )
}

fn is_ieee(t: Type) -> bool {
    matches!(t, Type::F16 | Type::Bf16 | Type::F32 | Type::F64)
}

fn is_f8_pair(t: Type) -> bool {
    matches!(t, Type::E4m3x2 | Type::E5m2x2)
}

const SM100: &str =
    "an sm_100 conversion; ptxrun executes only forms it has checked against an H100";

/// Classifies `cvt` with modifiers `m` and `nops` operands (destination included).
pub fn form(m: &Mods, nops: usize) -> Result<CvtForm, CvtError> {
    let (Some(dt), Some(st)) = (m.types[0], m.types[1]) else {
        return Err(CvtError::Illegal(
            "cvt takes a destination and a source type",
        ));
    };
    let relu = m.has(Flags::RELU);
    let satfinite = m.has(Flags::SATFINITE);
    let rn = m.rnd == Some(Rounding::Rn);
    let frnd2 = matches!(m.rnd, Some(Rounding::Rn | Rounding::Rz));
    let illegal = |why: &'static str| Err(CvtError::Illegal(why));
    if m.rnd == Some(Rounding::Rs) {
        return Err(CvtError::NotExecutable(SM100));
    }
    let narrow_sm100 = |t: Type| {
        matches!(
            t,
            Type::E2m1x2
                | Type::E2m3x2
                | Type::E3m2x2
                | Type::Ue8m0x2
                | Type::E4m3x4
                | Type::E5m2x4
        )
    };
    if narrow_sm100(dt) || narrow_sm100(st) {
        return Err(CvtError::NotExecutable(SM100));
    }
    match (dt, st) {
        (Type::Tf32, Type::F32) => {
            if nops != 2 {
                return illegal("takes one source");
            }
            match m.rnd {
                Some(Rounding::Rna) if !relu => Ok(CvtForm::Tf32FromF32),
                Some(Rounding::Rn | Rounding::Rz) if satfinite => {
                    Err(CvtError::NotExecutable(SM100))
                }
                Some(Rounding::Rn | Rounding::Rz) => Ok(CvtForm::Tf32FromF32),
                _ => illegal("tf32 needs .rna, or .rn/.rz"),
            }
        }
        (Type::F16x2 | Type::Bf16x2, Type::F32) => {
            let half = if dt == Type::F16x2 {
                Type::F16
            } else {
                Type::Bf16
            };
            match (nops, frnd2) {
                (3, true) => Ok(CvtForm::HalfPairFromF32 { half }),
                (3, false) => illegal("the rounding is .rn or .rz"),
                _ => illegal("takes two f32 sources, packed with the first in the upper half"),
            }
        }
        (d, Type::F32 | Type::F16x2) if is_f8_pair(d) => {
            let want = if st == Type::F32 { 3 } else { 2 };
            if !rn || !satfinite {
                illegal("fp8 results need .rn.satfinite")
            } else if nops != want {
                illegal("wrong number of sources")
            } else if st == Type::F32 {
                Ok(CvtForm::F8PairFromF32 { f8: d })
            } else {
                Ok(CvtForm::F8PairFromF16x2 { f8: d })
            }
        }
        (Type::F16x2, s) if is_f8_pair(s) => {
            if !rn || satfinite || nops != 2 {
                illegal("the form is cvt.rn{.relu}.f16x2.e4m3x2/e5m2x2 d, a")
            } else {
                Ok(CvtForm::F16x2FromF8Pair { f8: s })
            }
        }
        (d, s) if (is_int(d) || is_ieee(d)) && (is_int(s) || is_ieee(s)) => {
            if nops != 2 {
                return illegal("takes one source");
            }
            // .relu and .satfinite belong to the f32 -> f16/bf16 form only.
            let narrowing_half = matches!(d, Type::F16 | Type::Bf16) && s == Type::F32;
            if (relu || satfinite) && !(narrowing_half && frnd2) {
                return Err(CvtError::NotExecutable(
                    ".relu/.satfinite outside cvt.rn/rz.f16/bf16.f32",
                ));
            }
            Ok(CvtForm::Scalar)
        }
        _ => Err(CvtError::NotExecutable(
            "a type combination ptxrun does not convert",
        )),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::ir::opcode::decode;

    fn f(op: &str, nops: usize) -> Result<CvtForm, CvtError> {
        form(&decode(op, 0).unwrap().mods, nops)
    }

    #[test]
    fn the_forms_nvcc_emits_decode() {
        assert_eq!(f("cvt.rna.tf32.f32", 2), Ok(CvtForm::Tf32FromF32));
        assert_eq!(f("cvt.rz.relu.tf32.f32", 2), Ok(CvtForm::Tf32FromF32));
        assert_eq!(
            f("cvt.rn.satfinite.relu.e4m3x2.f32", 3),
            Ok(CvtForm::F8PairFromF32 { f8: Type::E4m3x2 })
        );
        assert_eq!(
            f("cvt.rn.satfinite.e5m2x2.f16x2", 2),
            Ok(CvtForm::F8PairFromF16x2 { f8: Type::E5m2x2 })
        );
        assert_eq!(
            f("cvt.rn.relu.f16x2.e4m3x2", 2),
            Ok(CvtForm::F16x2FromF8Pair { f8: Type::E4m3x2 })
        );
        assert_eq!(
            f("cvt.rz.satfinite.bf16x2.f32", 3),
            Ok(CvtForm::HalfPairFromF32 { half: Type::Bf16 })
        );
        assert_eq!(f("cvt.rn.relu.satfinite.f16.f32", 2), Ok(CvtForm::Scalar));
        assert_eq!(f("cvt.rzi.s32.f64", 2), Ok(CvtForm::Scalar));
    }

    #[test]
    fn sm100_forms_are_not_executable_and_malformed_ones_illegal() {
        for (op, n) in [
            ("cvt.rn.satfinite.e2m1x2.f32", 3),
            ("cvt.rn.satfinite.tf32.f32", 2),
            ("cvt.rs.relu.satfinite.f16x2.f32", 4),
            ("cvt.rn.f16x2.e3m2x2", 2),
        ] {
            assert!(matches!(f(op, n), Err(CvtError::NotExecutable(_))), "{op}");
        }
        assert!(matches!(
            f("cvt.rn.e4m3x2.f32", 3),
            Err(CvtError::Illegal(_))
        ));
        assert!(matches!(f("cvt.tf32.f32", 2), Err(CvtError::Illegal(_))));
        assert!(matches!(
            f("cvt.rn.f16x2.f32", 2),
            Err(CvtError::Illegal(_))
        ));
    }
}
