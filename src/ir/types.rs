//! Scalar types, state spaces and special registers (PTX ISA 9.0 section 5.1 "State Spaces",
//! 5.2 "Types", 10 "Special Registers"): small `Copy` enums with their spellings.

use std::fmt;

/// The fundamental and packed types of PTX (section 5.2.1, 5.2.5 and the mma element types).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub enum Type {
    Pred,
    B1,
    B8,
    B16,
    B32,
    B64,
    B128,
    U4,
    U8,
    U16,
    U32,
    U64,
    S4,
    S8,
    S16,
    S32,
    S64,
    F16,
    F16x2,
    Bf16,
    Bf16x2,
    Tf32,
    F32,
    F64,
    E4m3,
    E5m2,
    E4m3x2,
    E5m2x2,
    E4m3x4,
    E5m2x4,
    S16x2,
    U16x2,
    U8x4,
    S8x4,
    F32x2,
    /// Blackwell narrow formats (two values packed): fp4, fp6 and the scale type.
    E2m1x2,
    E2m3x2,
    E3m2x2,
    Ue8m0x2,
}

/// Every type with its spelling; the one table both decoding and printing use.
const TYPE_NAMES: &[(Type, &str)] = &[
    (Type::Pred, "pred"),
    (Type::B1, "b1"),
    (Type::B8, "b8"),
    (Type::B16, "b16"),
    (Type::B32, "b32"),
    (Type::B64, "b64"),
    (Type::B128, "b128"),
    (Type::U4, "u4"),
    (Type::U8, "u8"),
    (Type::U16, "u16"),
    (Type::U32, "u32"),
    (Type::U64, "u64"),
    (Type::S4, "s4"),
    (Type::S8, "s8"),
    (Type::S16, "s16"),
    (Type::S32, "s32"),
    (Type::S64, "s64"),
    (Type::F16, "f16"),
    (Type::F16x2, "f16x2"),
    (Type::Bf16, "bf16"),
    (Type::Bf16x2, "bf16x2"),
    (Type::Tf32, "tf32"),
    (Type::F32, "f32"),
    (Type::F64, "f64"),
    (Type::E4m3, "e4m3"),
    (Type::E5m2, "e5m2"),
    (Type::E4m3x2, "e4m3x2"),
    (Type::E5m2x2, "e5m2x2"),
    (Type::E4m3x4, "e4m3x4"),
    (Type::E5m2x4, "e5m2x4"),
    (Type::S16x2, "s16x2"),
    (Type::U16x2, "u16x2"),
    (Type::U8x4, "u8x4"),
    (Type::S8x4, "s8x4"),
    (Type::F32x2, "f32x2"),
    (Type::E2m1x2, "e2m1x2"),
    (Type::E2m3x2, "e2m3x2"),
    (Type::E3m2x2, "e3m2x2"),
    (Type::Ue8m0x2, "ue8m0x2"),
];

impl Type {
    /// Parses a type name without its dot (`u32`).
    pub fn parse(s: &str) -> Option<Type> {
        TYPE_NAMES.iter().find(|(_, n)| *n == s).map(|(t, _)| *t)
    }

    pub fn name(self) -> &'static str {
        TYPE_NAMES
            .iter()
            .find(|(t, _)| *t == self)
            .map_or("?", |(_, n)| n)
    }

    /// Size in bytes as stored in a register or memory; sub-byte types round up to one byte.
    pub fn size(self) -> u32 {
        use Type::*;
        match self {
            Pred | B1 | U4 | S4 | B8 | U8 | S8 | E4m3 | E5m2 | E2m1x2 => 1,
            B16 | U16 | S16 | F16 | Bf16 | E4m3x2 | E5m2x2 | E2m3x2 | E3m2x2 | Ue8m0x2 => 2,
            B32 | U32 | S32 | F32 | F16x2 | Bf16x2 | Tf32 | E4m3x4 | E5m2x4 | S16x2 | U16x2
            | U8x4 | S8x4 => 4,
            B64 | U64 | S64 | F64 | F32x2 => 8,
            B128 => 16,
        }
    }

    pub fn is_float(self) -> bool {
        use Type::*;
        matches!(
            self,
            F16 | F16x2 | Bf16 | Bf16x2 | Tf32 | F32 | F64 | F32x2 | E4m3 | E5m2 | E4m3x2 | E5m2x2
        )
    }

    pub fn is_signed(self) -> bool {
        matches!(
            self,
            Type::S4 | Type::S8 | Type::S16 | Type::S32 | Type::S64 | Type::S16x2 | Type::S8x4
        )
    }

    pub fn is_bits(self) -> bool {
        matches!(
            self,
            Type::B1 | Type::B8 | Type::B16 | Type::B32 | Type::B64 | Type::B128
        )
    }
}

impl fmt::Display for Type {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, ".{}", self.name())
    }
}

/// State spaces (section 5.1), with the `::cta` / `::cluster` / `::entry` sub-qualifiers.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub enum Space {
    Reg,
    Sreg,
    Const,
    Global,
    Local,
    Param,
    ParamEntry,
    ParamFunc,
    /// `.shared` and `.shared::cta`: the executing CTA's shared memory.
    Shared,
    /// `.shared::cluster`: any CTA's shared memory in the cluster.
    SharedCluster,
    Tex,
}

impl Space {
    /// The space whose discriminant is `i`.
    pub fn from_index(i: u8) -> Option<Space> {
        SPACE_NAMES.iter().map(|p| p.0).find(|s| *s as u8 == i)
    }
}

const SPACE_NAMES: &[(Space, &str)] = &[
    (Space::Reg, "reg"),
    (Space::Sreg, "sreg"),
    (Space::Const, "const"),
    (Space::Global, "global"),
    (Space::Local, "local"),
    (Space::Param, "param"),
    (Space::ParamEntry, "param::entry"),
    (Space::ParamFunc, "param::func"),
    (Space::Shared, "shared"),
    (Space::Shared, "shared::cta"),
    (Space::SharedCluster, "shared::cluster"),
    (Space::Tex, "tex"),
];

impl Space {
    pub fn parse(s: &str) -> Option<Space> {
        SPACE_NAMES.iter().find(|(_, n)| *n == s).map(|(t, _)| *t)
    }

    pub fn name(self) -> &'static str {
        match self {
            Space::Shared => "shared::cta",
            other => SPACE_NAMES
                .iter()
                .find(|(t, _)| *t == other)
                .map_or("?", |(_, n)| n),
        }
    }
}

impl fmt::Display for Space {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, ".{}", self.name())
    }
}

/// Special registers (section 10). The component (`.x`, `.y`, `.z`) is kept separately.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum Sreg {
    Tid,
    Ntid,
    Laneid,
    Warpid,
    Nwarpid,
    Ctaid,
    Nctaid,
    Smid,
    Nsmid,
    Gridid,
    IsExplicitCluster,
    Clusterid,
    Nclusterid,
    ClusterCtaid,
    ClusterNctaid,
    ClusterCtarank,
    ClusterNctarank,
    LanemaskEq,
    LanemaskLe,
    LanemaskLt,
    LanemaskGe,
    LanemaskGt,
    Clock,
    ClockHi,
    Clock64,
    Globaltimer,
    GlobaltimerLo,
    GlobaltimerHi,
    TotalSmemSize,
    AggrSmemSize,
    DynamicSmemSize,
    ReservedSmemOffsetBegin,
    ReservedSmemOffsetEnd,
    ReservedSmemOffsetCap,
    CurrentGraphExec,
    /// `%envreg0` .. `%envreg31`
    Envreg(u8),
    /// `%pm0` .. `%pm7` and `%pm0_64` ..
    Pm(u8),
    /// `%reserved_smem_offset_0`, `_1`: shared memory the driver reserves (cooperative groups).
    ReservedSmemOffset(u8),
}

const SREG_NAMES: &[(Sreg, &str, bool)] = &[
    // (register, name, takes an .x/.y/.z component)
    (Sreg::Tid, "tid", true),
    (Sreg::Ntid, "ntid", true),
    (Sreg::Laneid, "laneid", false),
    (Sreg::Warpid, "warpid", false),
    (Sreg::Nwarpid, "nwarpid", false),
    (Sreg::Ctaid, "ctaid", true),
    (Sreg::Nctaid, "nctaid", true),
    (Sreg::Smid, "smid", false),
    (Sreg::Nsmid, "nsmid", false),
    (Sreg::Gridid, "gridid", false),
    (Sreg::IsExplicitCluster, "is_explicit_cluster", false),
    (Sreg::Clusterid, "clusterid", true),
    (Sreg::Nclusterid, "nclusterid", true),
    (Sreg::ClusterCtaid, "cluster_ctaid", true),
    (Sreg::ClusterNctaid, "cluster_nctaid", true),
    (Sreg::ClusterCtarank, "cluster_ctarank", false),
    (Sreg::ClusterNctarank, "cluster_nctarank", false),
    (Sreg::LanemaskEq, "lanemask_eq", false),
    (Sreg::LanemaskLe, "lanemask_le", false),
    (Sreg::LanemaskLt, "lanemask_lt", false),
    (Sreg::LanemaskGe, "lanemask_ge", false),
    (Sreg::LanemaskGt, "lanemask_gt", false),
    (Sreg::Clock, "clock", false),
    (Sreg::ClockHi, "clock_hi", false),
    (Sreg::Clock64, "clock64", false),
    (Sreg::Globaltimer, "globaltimer", false),
    (Sreg::GlobaltimerLo, "globaltimer_lo", false),
    (Sreg::GlobaltimerHi, "globaltimer_hi", false),
    (Sreg::TotalSmemSize, "total_smem_size", false),
    (Sreg::AggrSmemSize, "aggr_smem_size", false),
    (Sreg::DynamicSmemSize, "dynamic_smem_size", false),
    (
        Sreg::ReservedSmemOffsetBegin,
        "reserved_smem_offset_begin",
        false,
    ),
    (
        Sreg::ReservedSmemOffsetEnd,
        "reserved_smem_offset_end",
        false,
    ),
    (
        Sreg::ReservedSmemOffsetCap,
        "reserved_smem_offset_cap",
        false,
    ),
    (Sreg::CurrentGraphExec, "current_graph_exec", false),
];

/// A special register with its component (0 = x, 1 = y, 2 = z, 3 = w or none).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub struct SpecialReg {
    pub reg: Sreg,
    pub comp: u8,
}

impl SpecialReg {
    /// Parses `%tid.x`, `%clock64`, `%envreg3`; `None` if the name is no special register.
    /// A vector register named without its component (`%tid`) is rejected: nvcc never writes it.
    pub fn parse(text: &str) -> Option<SpecialReg> {
        let body = text.strip_prefix('%')?;
        let (name, comp) = match body.rsplit_once('.') {
            Some((n, c)) => (n, Some(c)),
            None => (body, None),
        };
        let comp = match comp {
            None => None,
            Some("x") => Some(0),
            Some("y") => Some(1),
            Some("z") => Some(2),
            Some(_) => return None,
        };
        if let Some(&(reg, _, vector)) = SREG_NAMES.iter().find(|(_, n, _)| *n == name) {
            return match (vector, comp) {
                (true, Some(c)) => Some(SpecialReg { reg, comp: c }),
                (false, None) => Some(SpecialReg { reg, comp: 3 }),
                _ => None,
            };
        }
        let numbered = |prefix: &str, max: u8| -> Option<u8> {
            let n: u8 = name
                .strip_prefix(prefix)?
                .trim_end_matches("_64")
                .parse()
                .ok()?;
            (n <= max && comp.is_none()).then_some(n)
        };
        if let Some(n) = numbered("envreg", 31) {
            return Some(SpecialReg {
                reg: Sreg::Envreg(n),
                comp: 3,
            });
        }
        if let Some(n) = numbered("reserved_smem_offset_", 7) {
            return Some(SpecialReg {
                reg: Sreg::ReservedSmemOffset(n),
                comp: 3,
            });
        }
        numbered("pm", 7).map(|n| SpecialReg {
            reg: Sreg::Pm(n),
            comp: 3,
        })
    }

    /// Whether the register is 64 bits wide (`%clock64`, `%globaltimer`, ...).
    pub fn is_64bit(self) -> bool {
        matches!(
            self.reg,
            Sreg::Clock64 | Sreg::Globaltimer | Sreg::Gridid | Sreg::CurrentGraphExec | Sreg::Pm(_)
        )
    }
}

impl fmt::Display for SpecialReg {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self.reg {
            Sreg::Envreg(n) => write!(f, "%envreg{n}"),
            Sreg::Pm(n) => write!(f, "%pm{n}"),
            Sreg::ReservedSmemOffset(n) => write!(f, "%reserved_smem_offset_{n}"),
            r => {
                let name = SREG_NAMES
                    .iter()
                    .find(|(x, _, _)| *x == r)
                    .map_or("?", |(_, n, _)| n);
                match self.comp {
                    0 => write!(f, "%{name}.x"),
                    1 => write!(f, "%{name}.y"),
                    2 => write!(f, "%{name}.z"),
                    _ => write!(f, "%{name}"),
                }
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn type_names_round_trip() {
        for (t, n) in TYPE_NAMES {
            assert_eq!(Type::parse(n), Some(*t));
            assert_eq!(t.name(), *n);
        }
        assert_eq!(Type::parse("u33"), None);
    }

    #[test]
    fn special_registers() {
        assert_eq!(
            SpecialReg::parse("%tid.x"),
            Some(SpecialReg {
                reg: Sreg::Tid,
                comp: 0
            })
        );
        assert_eq!(
            SpecialReg::parse("%cluster_ctaid.z"),
            Some(SpecialReg {
                reg: Sreg::ClusterCtaid,
                comp: 2
            })
        );
        assert_eq!(
            SpecialReg::parse("%laneid").map(|s| s.to_string()),
            Some("%laneid".into())
        );
        assert_eq!(
            SpecialReg::parse("%envreg31").map(|s| s.reg),
            Some(Sreg::Envreg(31))
        );
        assert_eq!(SpecialReg::parse("%envreg32"), None);
        assert_eq!(
            SpecialReg::parse("%reserved_smem_offset_1").map(|s| s.reg),
            Some(Sreg::ReservedSmemOffset(1))
        );
        assert_eq!(SpecialReg::parse("%tid"), None);
        assert_eq!(SpecialReg::parse("%laneid.x"), None);
        assert_eq!(SpecialReg::parse("%r1"), None);
        assert!(SpecialReg::parse("%clock64").unwrap().is_64bit());
    }
}
