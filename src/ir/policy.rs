//! `createpolicy` (PTX ISA 9.0, "Data Movement and Conversion Instructions:
//! createpolicy"): a 64-bit L2 cache eviction policy for the `.L2::cache_hint` forms of loads,
//! stores and copies.
//!
//! ```text
//! createpolicy.fractional.L2::primary{.L2::secondary}.b64 policy{, fraction};
//! createpolicy.range{.global}.L2::primary{.L2::secondary}.b64 policy, [a], primary-size, total-size;
//! createpolicy.cvt.L2.b64 policy, access-property;
//! primary = evict_last | evict_normal | evict_first | evict_unchanged;  secondary = evict_first | evict_unchanged
//! ```
//!
//! The ISA calls the value opaque, but a kernel can store it, so ptxrun gives the H100's bits,
//! measured (`docs/numerics/createpolicy.md`): a fractional policy is `0x1` in bits 60-63, the
//! primary priority in bits 57-58 (unchanged 0, first 1, last 2, normal 3), bit 56 set for a
//! secondary `evict_first`, and the fraction quantised to 4 bits in 52-55: the f32 product
//! `fraction x 15.99` (rounded to nearest) truncated to an integer and clamped to 0..15, with
//! NaN and negative fractions 0 (the default fraction is 1.0). `cvt` returns its operand. The
//! range form's encoding of the address window was not modelled: it loads but stops as
//! `unsupported`.

/// A decoded `createpolicy`.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Policy {
    /// A fraction-based policy: bits 56-63 of the value (the priorities).
    Fractional { top: u8 },
    /// A range-based policy (not executable).
    Range,
    /// A CUDA access property converted.
    Cvt,
}

/// Decodes a `createpolicy` opcode (e.g. `createpolicy.fractional.L2::evict_last.b64`; the
/// name may be left out), or says why ptxas would reject it.
pub fn form(words: &str) -> Result<Policy, &'static str> {
    let words = words.strip_prefix("createpolicy.").unwrap_or(words);
    let mut w: Vec<&str> = words.split('.').collect();
    if w.pop() != Some("b64") {
        return Err("the policy is a .b64 value: the form ends with .b64");
    }
    let kind = if w.is_empty() { "" } else { w.remove(0) };
    if kind == "cvt" {
        return match w[..] {
            ["L2"] => Ok(Policy::Cvt),
            _ => Err("the conversion form is createpolicy.cvt.L2.b64"),
        };
    }
    if kind == "range" && w.first() == Some(&"global") {
        w.remove(0);
    }
    fn priority<'w>(word: Option<&&'w str>) -> Option<&'w str> {
        word.and_then(|s| s.strip_prefix("L2::"))
    }
    let primary = match priority(w.first()) {
        Some("evict_unchanged") => 0,
        Some("evict_first") => 1,
        Some("evict_last") => 2,
        Some("evict_normal") => 3,
        _ => return Err("a primary priority comes first: .L2::evict_last, .L2::evict_normal, .L2::evict_first or .L2::evict_unchanged"),
    };
    let secondary_first = match (w.len(), priority(w.get(1))) {
        (1, _) | (2, Some("evict_unchanged")) => 0,
        (2, Some("evict_first")) => 1,
        _ => return Err("the secondary priority is .L2::evict_first or .L2::evict_unchanged"),
    };
    match kind {
        "fractional" => Ok(Policy::Fractional {
            top: 0x10 | primary << 1 | secondary_first,
        }),
        "range" => Ok(Policy::Range),
        _ => Err("createpolicy is .fractional, .range or .cvt"),
    }
}

/// The operands each form takes (the policy first): (least, most).
pub fn operand_count(p: Policy) -> (usize, usize) {
    match p {
        Policy::Fractional { .. } => (1, 2),
        Policy::Range => (4, 4),
        Policy::Cvt => (2, 2),
    }
}

/// The value of a fraction-based policy with priorities `top` and `fraction` (f32 bits).
pub fn fractional(top: u8, fraction: u32) -> u64 {
    let scaled = f32::from_bits(fraction) * 15.99;
    // `as` saturates (NaN to 0), as the H100's conversion does.
    let q = (scaled as u32).min(15);
    u64::from(top) << 56 | u64::from(q) << 52
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn priorities_and_fractions_encode_as_the_h100_does() {
        // Values read on the GPU (docs/numerics/createpolicy.md).
        let last = form("fractional.L2::evict_last.b64").unwrap();
        assert_eq!(last, Policy::Fractional { top: 0x14 });
        assert_eq!(
            form("fractional.L2::evict_normal.L2::evict_first.b64"),
            Ok(Policy::Fractional { top: 0x17 })
        );
        assert_eq!(
            form("fractional.L2::evict_unchanged.L2::evict_unchanged.b64"),
            Ok(Policy::Fractional { top: 0x10 })
        );
        let half = 0.5f32.to_bits();
        assert_eq!(fractional(0x14, 1.0f32.to_bits()), 0x14f0_0000_0000_0000);
        assert_eq!(fractional(0x14, half), 0x1470_0000_0000_0000);
        assert_eq!(fractional(0x12, 0.1f32.to_bits()), 0x1210_0000_0000_0000);
        // The first fraction of each step: 0x3d80147f gives 1, the float before it 0.
        assert_eq!(fractional(0x10, 0x3d80_147f), 0x1010_0000_0000_0000);
        assert_eq!(fractional(0x10, 0x3d80_147e), 0x1000_0000_0000_0000);
        for bits in [0x7fc0_0000, 0xbf80_0000, 0x8000_0000, 0xff80_0000] {
            assert_eq!(fractional(0x14, bits), 0x1400_0000_0000_0000, "{bits:#x}");
        }
        for bits in [0x7f80_0000, 0x4000_0000, 0x3f80_0001] {
            assert_eq!(fractional(0x14, bits), 0x14f0_0000_0000_0000, "{bits:#x}");
        }
    }

    #[test]
    fn forms_ptxas_rejects_are_errors() {
        assert_eq!(form("cvt.L2.b64"), Ok(Policy::Cvt));
        assert_eq!(
            form("range.global.L2::evict_last.L2::evict_first.b64"),
            Ok(Policy::Range)
        );
        for bad in [
            "fractional.b64",
            "fractional.L2::evict_last",
            "fractional.L2::evict_last.L2::evict_last.b64",
            "fractional.L2::evict_first.L2::evict_first.L2::evict_first.b64",
            "cvt.b64",
            "global.L2::evict_last.b64",
            "fractional.global.L2::evict_last.b64",
        ] {
            assert!(form(bad).is_err(), "{bad}");
        }
    }
}
