//! Conversions (PTX ISA 9.0 section 9.7.9.21 `cvt`, 9.7.9.22 `cvt.pack`, 4.5 "Rounding
//! Modifiers"): integer widening and narrowing (with `.sat`), integer to float and float to float
//! with a rounding mode, float to integer with an integer rounding mode (saturating; NaN as the
//! H100 converts it), float rounding to an integral value (`cvt.rni.f32.f32`), and the packed
//! half and 8-bit forms (`cvt.rn.f16x2.f32 d, a, b`: `a` in the upper half). Rounding goes
//! through `rustc_apfloat` so every mode is exact; the float rules (`.ftz`, `.sat`, canonical
//! NaN) are those of `float.rs`, the narrow formats those of `narrow.rs`.

use super::float::{ftz, is_fp, round_of, sat, with_fmt, Fmt};
use super::int::{as_i128, extend, mask, saturate};
use super::narrow;
use crate::ir::cvt::CvtForm;
use crate::ir::mods::Rounding;
use crate::ir::{Flags, Mods, Type};
use rustc_apfloat::{Float, FloatConvert, Round};

/// One lane of `cvt` of form `form` (decoded from `mods`): sources `a` and (pair forms) `b`.
pub fn apply(form: CvtForm, mods: &Mods, dt: Type, st: Type, a: u64, b: u64) -> u64 {
    let relu = mods.has(Flags::RELU);
    match form {
        CvtForm::Scalar => convert(a, st, dt, mods),
        CvtForm::HalfPairFromF32 { half } => {
            // cvt.rn.f16x2.f32 d, a, b: d = {cvt(a) in the upper half, cvt(b) in the lower}.
            let lo = convert(b, st, half, mods) & 0xffff;
            (convert(a, st, half, mods) << 16) | lo
        }
        CvtForm::Tf32FromF32 => {
            let rnd = mods.rnd.unwrap_or(Rounding::Rn);
            let sf = mods.has(Flags::SATFINITE);
            u64::from(narrow::tf32_from_f32(a as u32, rnd, relu, sf))
        }
        CvtForm::F8PairFromF32 { f8 } => {
            let f8 = f8_of(f8);
            let hi = narrow::f8_from_f32(a as u32, f8, relu);
            let lo = narrow::f8_from_f32(b as u32, f8, relu);
            u64::from(u16::from(hi) << 8 | u16::from(lo))
        }
        CvtForm::F8PairFromF16x2 { f8 } => {
            let f8 = f8_of(f8);
            let hi = narrow::f8_from_f16((a >> 16) as u16, f8, relu);
            let lo = narrow::f8_from_f16(a as u16, f8, relu);
            u64::from(u16::from(hi) << 8 | u16::from(lo))
        }
        CvtForm::F16x2FromF8Pair { f8 } => {
            let f8 = f8_of(f8);
            let hi = narrow::f16_from_f8((a >> 8) as u8, f8, relu);
            let lo = narrow::f16_from_f8(a as u8, f8, relu);
            u64::from(u32::from(hi) << 16 | u32::from(lo))
        }
    }
}

fn f8_of(t: Type) -> narrow::F8 {
    if t == Type::E5m2x2 {
        narrow::F8::E5m2
    } else {
        narrow::F8::E4m3
    }
}

/// Converts one value of type `st` to type `dt`.
pub fn convert(v: u64, st: Type, dt: Type, mods: &Mods) -> u64 {
    let flush = mods.has(Flags::FTZ);
    match (is_fp(st), is_fp(dt)) {
        (false, false) => int_to_int(v, st, dt, mods.has(Flags::SAT)),
        (false, true) => {
            let df = Fmt::of(dt);
            let out = from_int(df, as_i128(v, st), round_of(mods.rnd));
            if mods.has(Flags::SAT) {
                sat(df, out)
            } else {
                out
            }
        }
        (true, false) => {
            let f = Fmt::of(st);
            to_int(f, if flush { ftz(f, v) } else { v }, dt, mods.rnd)
        }
        (true, true) => {
            let sf = Fmt::of(st);
            float_from_float(sf, Fmt::of(dt), if flush { ftz(sf, v) } else { v }, mods)
        }
    }
}

/// Float to float (or to an integral value of the same format), then `.ftz`, `.sat`,
/// `.satfinite` and `.relu` on the result.
fn float_from_float(sf: Fmt, df: Fmt, v: u64, mods: &Mods) -> u64 {
    let integral = matches!(
        mods.rnd,
        Some(Rounding::Rni | Rounding::Rzi | Rounding::Rmi | Rounding::Rpi)
    );
    let mut out = if integral {
        round_integral(sf, v, round_of(mods.rnd))
    } else {
        float_to_float(sf, df, v, round_of(mods.rnd))
    };
    if integral && df.is_nan(out) {
        out = df.canonical_nan();
    }
    if mods.has(Flags::FTZ) {
        out = ftz(df, out);
    }
    if mods.has(Flags::SAT) {
        out = sat(df, out);
    }
    if mods.has(Flags::SATFINITE) && df.is_inf(out) {
        // Only f32 -> f16/bf16 takes .satfinite (ir::cvt checks it).
        out = narrow::satfinite_half(out, if df == Fmt::H { 0x7c00 } else { 0x7f80 });
    }
    if mods.has(Flags::RELU) && out & df.sign() != 0 {
        out = if df.is_nan(out) {
            df.canonical_nan()
        } else {
            0
        };
    }
    out
}

/// Integer to integer: sign- or zero-extended from `st`, cut (or with `sat` clamped) to `dt`,
/// and extended to the register by `dt`'s sign.
pub fn int_to_int(v: u64, st: Type, dt: Type, sat: bool) -> u64 {
    let x = as_i128(v, st);
    let x = if sat { saturate(x, dt) } else { x };
    extend(x as u64, dt)
}

/// `cvt.pack.sat`: a and b saturated to the narrow `dt` and packed above the low bits of c
/// (`c` None for the two-source form), in 32 bits.
pub fn pack(a: u64, b: u64, c: Option<u64>, st: Type, dt: Type) -> u64 {
    let bits = dt.size() * 8;
    let a = int_to_int(a, st, dt, true) & mask(bits);
    let b = int_to_int(b, st, dt, true) & mask(bits);
    let v = match c {
        Some(c) => (c << (2 * bits)) | (a << bits) | b,
        None => (a << bits) | b,
    };
    v & 0xffff_ffff
}

fn from_int(f: Fmt, x: i128, r: Round) -> u64 {
    with_fmt!(f, T => T::from_i128_r(x, r).value.to_bits() as u64)
}

fn round_integral(f: Fmt, v: u64, r: Round) -> u64 {
    with_fmt!(f, T => {
        let x = T::from_bits(u128::from(v));
        let out = x.round_to_integral(r).value.to_bits() as u64;
        if f.is_nan(out) { f.canonical_nan() } else { out }
    })
}

/// A NaN converted to or from f64 keeps its sign and the top of its payload, quieted.
fn convert_nan(sf: Fmt, df: Fmt, v: u64) -> u64 {
    let (sm, dm) = (sf.mbits(), df.mbits());
    let payload = v & mask(sm);
    let p = if sm >= dm {
        payload >> (sm - dm)
    } else {
        payload << (dm - sm)
    };
    let sign = if v & sf.sign() != 0 { df.sign() } else { 0 };
    let exp = mask(df.bits() - 1) & !mask(dm);
    sign | exp | p | (1 << (dm - 1))
}

fn float_to_float(sf: Fmt, df: Fmt, v: u64, r: Round) -> u64 {
    if sf == df {
        return v;
    }
    if sf.is_nan(v) {
        // Measured on an H100: conversions to or from f64 keep the payload's top bits; between
        // f32 and the half formats the result is the canonical NaN.
        let keeps = sf == Fmt::D || df == Fmt::D || (sf == Fmt::B && df == Fmt::S);
        return if keeps {
            convert_nan(sf, df, v)
        } else {
            df.canonical_nan()
        };
    }
    let mut loses = false;
    with_fmt!(sf, S => {
        let x = S::from_bits(u128::from(v));
        with_fmt!(df, D => {
            FloatConvert::<D>::convert_r(x, r, &mut loses).value.to_bits() as u64
        })
    })
}

/// Float to integer: round by the integer rounding mode (default: toward zero), saturate to the
/// destination's range, NaN as measured.
fn to_int(f: Fmt, v: u64, dt: Type, rnd: Option<Rounding>) -> u64 {
    let dbits = dt.size() * 8;
    if f.is_nan(v) {
        // Measured on an H100: NaN converts to the top-bit pattern (0x80000000,
        // 0x8000000000000000) from f64 and into 64-bit integers; to 0 otherwise.
        return if f == Fmt::D || dbits == 64 {
            1u64 << (dbits - 1)
        } else {
            0
        };
    }
    let r = match rnd {
        None => Round::TowardZero,
        r => round_of(r),
    };
    let x = with_fmt!(f, T => {
        let x = T::from_bits(u128::from(v));
        let rounded = x.round_to_integral(r).value;
        let mut exact = false;
        rounded.to_i128_r(128, Round::TowardZero, &mut exact).value
    });
    extend(saturate(x, dt) as u64, dt)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn m(r: Option<Rounding>) -> Mods {
        Mods {
            rnd: r,
            ..Mods::default()
        }
    }

    #[test]
    fn float_to_int_saturates_and_rounds() {
        let v = u64::from((-2.5f32).to_bits());
        assert_eq!(
            convert(v, Type::F32, Type::S32, &m(Some(Rounding::Rni))) as u32 as i32,
            -2
        );
        assert_eq!(
            convert(v, Type::F32, Type::S32, &m(Some(Rounding::Rmi))) as u32 as i32,
            -3
        );
        assert_eq!(convert(v, Type::F32, Type::U32, &m(Some(Rounding::Rzi))), 0);
        let big = u64::from(1e20f32.to_bits());
        assert_eq!(
            convert(big, Type::F32, Type::S32, &m(Some(Rounding::Rzi))),
            0x7fff_ffff
        );
        assert_eq!(
            convert(0x7fc0_0000, Type::F32, Type::S32, &m(Some(Rounding::Rzi))),
            0
        );
    }

    #[test]
    fn int_to_float_rounding() {
        let v = 16_777_217u64; // 2^24 + 1
        assert_eq!(
            convert(v, Type::U32, Type::F32, &m(Some(Rounding::Rn))) as u32,
            16_777_216f32.to_bits()
        );
        assert_eq!(
            convert(v, Type::U32, Type::F32, &m(Some(Rounding::Rp))) as u32,
            16_777_218f32.to_bits()
        );
    }

    #[test]
    fn narrowing_and_widening() {
        assert_eq!(
            convert(0xff, Type::S8, Type::S32, &Mods::default()) as u32,
            0xffff_ffff
        );
        assert_eq!(
            convert(0x1_0000_0005, Type::U64, Type::U32, &Mods::default()),
            5
        );
        let sat = Mods {
            flags: Flags::SAT,
            ..Mods::default()
        };
        assert_eq!(convert(300, Type::S32, Type::U8, &sat), 255);
        assert_eq!(pack(300, 0xffff_ffff, None, Type::S32, Type::U8), 0xff00);
    }

    #[test]
    fn float_to_half() {
        let v = u64::from(1.0f32.to_bits());
        assert_eq!(
            convert(v, Type::F32, Type::F16, &m(Some(Rounding::Rn))),
            0x3c00
        );
        assert_eq!(
            convert(0x3c00, Type::F16, Type::F32, &Mods::default()) as u32,
            1.0f32.to_bits()
        );
    }
}
