//! Conversions to and from the narrow float formats of `cvt` (PTX ISA 9.0 section 9.7.9.21,
//! 5.2.5.1 "Alternate floating-point data formats"): tf32 (an f32 with a 10-bit fraction, kept
//! in f32 layout), and the 8-bit e4m3 (bias 7, no infinity, 0x7f NaN, largest finite 448) and
//! e5m2 (bias 15, IEEE-like, largest finite 57344). Every function is pure and works on bits, so
//! the interpreter and the exhaustive hardware campaign (`benches/cvt-campaign`) run the same
//! code; the special cases (NaN, infinity, -0 under `.relu`, saturation) are those measured on an
//! H100, noted where the ISA text is silent.

use crate::ir::mods::Rounding;

/// An 8-bit float format.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum F8 {
    E4m3,
    E5m2,
}

impl F8 {
    /// Fraction bits.
    fn mbits(self) -> u32 {
        match self {
            F8::E4m3 => 3,
            F8::E5m2 => 2,
        }
    }
    /// Exponent of the smallest normal number.
    fn emin(self) -> i32 {
        match self {
            F8::E4m3 => -6,
            F8::E5m2 => -14,
        }
    }
    /// The largest finite magnitude's encoding.
    fn max_finite(self) -> u8 {
        match self {
            F8::E4m3 => 0x7e,
            F8::E5m2 => 0x7b,
        }
    }
    /// The NaN the hardware writes.
    fn nan(self) -> u8 {
        0x7f
    }
    fn is_nan(self, b: u8) -> bool {
        match self {
            F8::E4m3 => b & 0x7f == 0x7f,
            F8::E5m2 => b & 0x7f > 0x7c,
        }
    }
    fn is_inf(self, b: u8) -> bool {
        self == F8::E5m2 && b & 0x7f == 0x7c
    }
}

/// A finite nonzero magnitude `sig * 2^exp`.
#[derive(Debug, Clone, Copy)]
struct Exact {
    sig: u64,
    exp: i32,
}

/// `x` rounded to nearest, ties to even, at a quantum of `2^q`: the integer multiple of it.
fn round_half_even(x: Exact, q: i32) -> u64 {
    let shift = q - x.exp;
    if shift <= 0 {
        return x.sig << (-shift).min(63);
    }
    if shift >= 64 {
        return 0;
    }
    let (n, rest) = (x.sig >> shift, x.sig & ((1u64 << shift) - 1));
    let half = 1u64 << (shift - 1);
    if rest > half || (rest == half && n & 1 == 1) {
        n + 1
    } else {
        n
    }
}

/// Encodes the magnitude `x` in a small format (`mbits` fraction bits, smallest normal exponent
/// `emin`), rounding to nearest even; the result's magnitude bits, possibly past the largest
/// finite encoding (the caller saturates).
fn encode_small(x: Exact, mbits: u32, emin: i32) -> u32 {
    // The exponent of x's leading bit, and the format's exponent for it.
    let lead = x.exp + 63 - x.sig.leading_zeros() as i32;
    let e = lead.max(emin);
    let mut n = round_half_even(x, e - mbits as i32);
    let mut e = e;
    if n >> (mbits + 1) != 0 {
        n >>= 1;
        e += 1;
    }
    if n >> mbits == 0 {
        return n as u32; // subnormal (or zero)
    }
    let field = (e - emin + 1) as u32;
    (field << mbits) | (n as u32 & ((1 << mbits) - 1))
}

/// An IEEE value: its sign, NaN or infinity, or its magnitude (None for zero).
struct Unpacked {
    neg: bool,
    nan: bool,
    inf: bool,
    mag: Option<Exact>,
}

/// Unpacks the IEEE format of `ebits` exponent and `mbits` fraction bits (f32: 8, 23; f16: 5, 10).
fn unpack(v: u64, ebits: u32, mbits: u32) -> Unpacked {
    let (emax, bias) = ((1u64 << ebits) - 1, (1i32 << (ebits - 1)) - 1);
    let (e, m) = ((v >> mbits) & emax, v & ((1 << mbits) - 1));
    let lowest = 1 - bias - mbits as i32; // the exponent of the smallest subnormal's bit
    let mag = match e {
        0 if m == 0 => None,
        0 => Some(Exact {
            sig: m,
            exp: lowest,
        }),
        _ => Some(Exact {
            sig: m | 1 << mbits,
            exp: lowest + e as i32 - 1,
        }),
    };
    Unpacked {
        neg: v >> (ebits + mbits) & 1 != 0,
        nan: e == emax && m != 0,
        inf: e == emax && m == 0,
        mag,
    }
}

/// `cvt.rn.satfinite{.relu}.{e4m3,e5m2}` of one unpacked value.
fn to_f8(x: Unpacked, f8: F8, relu: bool) -> u8 {
    if x.nan {
        return f8.nan();
    }
    if relu && x.neg {
        return 0;
    }
    let sign = if x.neg { 0x80 } else { 0 };
    if x.inf {
        return sign | f8.max_finite();
    }
    let Some(mag) = x.mag else { return sign };
    let bits = encode_small(mag, f8.mbits(), f8.emin()).min(u32::from(f8.max_finite()));
    sign | bits as u8
}

/// `cvt.rn.satfinite{.relu}.{e4m3x2,e5m2x2}.f32`: one f32 to one byte.
pub fn f8_from_f32(v: u32, f8: F8, relu: bool) -> u8 {
    to_f8(unpack(v.into(), 8, 23), f8, relu)
}

/// `cvt.rn.satfinite{.relu}.{e4m3x2,e5m2x2}.f16x2`: one f16 to one byte.
pub fn f8_from_f16(v: u16, f8: F8, relu: bool) -> u8 {
    to_f8(unpack(v.into(), 5, 10), f8, relu)
}

/// `cvt.rn{.relu}.f16x2.{e4m3x2,e5m2x2}`: one byte to an f16 (exact: f16 holds every value).
pub fn f16_from_f8(b: u8, f8: F8, relu: bool) -> u16 {
    if f8.is_nan(b) {
        return 0x7fff;
    }
    let neg = b & 0x80 != 0;
    if relu && neg {
        return 0;
    }
    let sign = if neg { 0x8000 } else { 0 };
    if f8.is_inf(b) {
        return sign | 0x7c00;
    }
    let (mbits, emin) = (f8.mbits(), f8.emin());
    let field = u32::from(b & 0x7f) >> mbits;
    let frac = u64::from(b) & ((1 << mbits) - 1);
    let x = match field {
        0 if frac == 0 => return sign,
        0 => Exact {
            sig: frac,
            exp: emin - mbits as i32,
        },
        _ => Exact {
            sig: frac | 1 << mbits,
            exp: emin + field as i32 - 1 - mbits as i32,
        },
    };
    sign | encode_small(x, 10, -14) as u16
}

/// `cvt.{rna{.satfinite}, rn{.relu}, rz{.relu}}.tf32.f32`: the f32 bit pattern rounded at bit
/// 13 (the tf32 fraction is the top 10 of f32's 23 bits), low 13 bits clear.
///
/// Measured on an H100 over all 2^32 inputs, where the ISA says nothing: `.rna` keeps a NaN's
/// sign and payload and truncates it (so 0x7f800001 becomes infinity), and its `.satfinite`
/// takes one tf32 unit (0x2000) off any result whose exponent is all ones, so infinities and
/// overflows become the largest finite value but NaNs stay NaNs one unit lower. `.rn`/`.rz` turn
/// every NaN into 0x7fffe000.
pub fn tf32_from_f32(v: u32, rnd: Rounding, relu: bool, satfinite: bool) -> u32 {
    const LOW: u32 = (1 << 13) - 1;
    const EXP: u32 = 0x7f80_0000;
    let sign = v & 0x8000_0000;
    let mag = v & 0x7fff_ffff;
    if rnd == Rounding::Rna {
        let r = if mag >= EXP {
            v & !LOW
        } else {
            sign | ((mag + (1 << 12)) & !LOW)
        };
        return if satfinite && r & 0x7fff_ffff >= EXP {
            r - 0x2000
        } else {
            r
        };
    }
    if mag > EXP {
        return 0x7fff_e000;
    }
    if relu && sign != 0 {
        return 0;
    }
    let rounded = match rnd {
        _ if mag == EXP => mag,
        Rounding::Rn => (mag + 0xfff + ((mag >> 13) & 1)) & !LOW,
        _ => mag & !LOW,
    };
    // .rn/.rz with .satfinite are sm_100 forms, not executed (ir::cvt).
    sign | rounded
}

/// `.satfinite` on an f16/bf16 result (`half_bits` 16-bit pattern, `exp_mask` its exponent
/// field): infinities become the largest finite value of their sign; NaN stays.
pub fn satfinite_half(bits: u64, exp_mask: u64) -> u64 {
    let mag = bits & 0x7fff;
    if mag == exp_mask {
        (bits & 0x8000) | (exp_mask - 1)
    } else {
        bits
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn tf32_rounds_at_bit_13() {
        let one = 1.0f32.to_bits();
        assert_eq!(tf32_from_f32(one, Rounding::Rna, false, false), one);
        assert_eq!(
            tf32_from_f32(one | 0x1000, Rounding::Rna, false, false),
            one + 0x2000
        );
        assert_eq!(tf32_from_f32(one | 0x1000, Rounding::Rn, false, false), one);
        assert_eq!(tf32_from_f32(one | 0x1fff, Rounding::Rz, false, false), one);
        assert_eq!(
            tf32_from_f32(0x7f7f_ffff, Rounding::Rna, false, true),
            0x7f7f_e000
        );
    }

    #[test]
    fn f8_round_trip_and_saturation() {
        for f8 in [F8::E4m3, F8::E5m2] {
            for b in 0..=255u8 {
                if f8.is_nan(b) || f8.is_inf(b) {
                    continue;
                }
                let h = f16_from_f8(b, f8, false);
                assert_eq!(f8_from_f16(h, f8, false), b, "{f8:?} {b:#x}");
                let f = half::f16::from_bits(h).to_f32().to_bits();
                assert_eq!(f8_from_f32(f, f8, false), b, "{f8:?} {b:#x}");
            }
        }
        assert_eq!(f8_from_f32(1000.0f32.to_bits(), F8::E4m3, false), 0x7e);
        assert_eq!(f8_from_f32((-1e9f32).to_bits(), F8::E5m2, false), 0xfb);
        assert_eq!(f8_from_f32((-1.0f32).to_bits(), F8::E4m3, true), 0);
        // 1 + 1/16 is halfway between e4m3's 1 and 1.125: ties to even.
        assert_eq!(f8_from_f32(1.0625f32.to_bits(), F8::E4m3, false), 0x38);
    }
}
