//! `cvt` and `cvt.pack` (PTX ISA 9.0 section 9.7.9.21): integer widening and narrowing (with
//! `.sat`), integer to float and float to float with a rounding mode, float to integer with an
//! integer rounding mode (saturating, NaN to 0), float rounding to an integral value
//! (`cvt.rni.f32.f32`), and the packed half forms (`cvt.rn.f16x2.f32 d, a, b`: `a` in the upper
//! half). Rounding goes through `rustc_apfloat` so every mode is exact.

use super::alu::as_i128;
use super::ctx::Ctx;
use super::fault::fault;
use super::fault::FaultKind;
use super::fault::Res;
use super::fp::{round_of, Fmt};
use super::lanes::{lanes, mask};
use super::narrow;
use crate::ir::cvt::{self, CvtError, CvtForm};
use crate::ir::mods::Rounding;
use crate::ir::{Flags, Mods, Type};
use rustc_apfloat::ieee::{BFloat, Double, Half, Single};
use rustc_apfloat::{Float, FloatConvert, Round};

fn is_fp(t: Type) -> bool {
    matches!(
        t,
        Type::F16 | Type::Bf16 | Type::F32 | Type::F64 | Type::F16x2 | Type::Bf16x2
    )
}

pub fn exec(cx: &mut Ctx<'_, '_>) -> Res<()> {
    let mods = cx.ins.mods;
    if cx.ins.op == crate::ir::Op::CvtPack {
        return pack(cx);
    }
    let form = match cvt::form(&mods, cx.ops.len()) {
        Ok(form) => form,
        Err(e) => {
            let what = crate::ir::print_instr(cx.m, cx.func, cx.pc);
            let what = what.split_whitespace().next().unwrap_or("cvt").to_string();
            let (CvtError::NotExecutable(why) | CvtError::Illegal(why)) = e;
            return Err(fault(
                FaultKind::Unsupported,
                format!("`{what}` is not supported by ptxrun yet: {why}"),
            ));
        }
    };
    let (Some(dt), Some(st)) = (mods.types[0], mods.types[1]) else {
        return Ok(());
    };
    let two = matches!(
        form,
        CvtForm::HalfPairFromF32 { .. } | CvtForm::F8PairFromF32 { .. }
    );
    for lane in lanes(cx.active) {
        let a = cx.src(1, lane, st);
        let b = if two { cx.src(2, lane, st) } else { 0 };
        cx.dst(0, lane, apply(form, &mods, dt, st, a, b));
    }
    Ok(())
}

/// One lane of `cvt` of form `form` (decoded from `mods`): sources `a` and (pair forms) `b`.
pub(super) fn apply(form: CvtForm, mods: &Mods, dt: Type, st: Type, a: u64, b: u64) -> u64 {
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
    let ftz = mods.has(Flags::FTZ);
    let sat = mods.has(Flags::SAT);
    match (is_fp(st), is_fp(dt)) {
        (false, false) => int_to_int(v, st, dt, sat),
        (false, true) => {
            let x = as_i128(v, st);
            let r = round_of(mods.rnd);
            let out = from_int(Fmt::of(dt), x, r);
            if sat {
                saturate(Fmt::of(dt), out)
            } else {
                out
            }
        }
        (true, false) => {
            let f = Fmt::of(st);
            let v = if ftz && f.is_subnormal(v) {
                v & f.sign()
            } else {
                v
            };
            to_int(f, v, dt, mods.rnd)
        }
        (true, true) => {
            let (sf, df) = (Fmt::of(st), Fmt::of(dt));
            let v = if ftz && sf.is_subnormal(v) {
                v & sf.sign()
            } else {
                v
            };
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
            if ftz && df.is_subnormal(out) {
                out &= df.sign();
            }
            if sat {
                out = saturate(df, out);
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
    }
}

fn int_to_int(v: u64, st: Type, dt: Type, sat: bool) -> u64 {
    let dbits = dt.size() * 8;
    let x = as_i128(v, st);
    let x = if sat {
        let (lo, hi) = if dt.is_signed() {
            (-(1i128 << (dbits - 1)), (1i128 << (dbits - 1)) - 1)
        } else {
            (0, (1i128 << dbits) - 1)
        };
        x.clamp(lo, hi)
    } else {
        x
    };
    extend(x as u64, dt)
}

/// A value of type `dt` as it lands in a register at least as wide: sign- or zero-extended.
fn extend(v: u64, dt: Type) -> u64 {
    let bits = dt.size() * 8;
    if dt.is_signed() {
        super::alu::sext(v, bits) as u64
    } else {
        v & mask(bits)
    }
}

fn saturate(f: Fmt, v: u64) -> u64 {
    if f.is_nan(v) {
        return 0;
    }
    let x = f.to_f64(v);
    if x <= 0.0 {
        0
    } else if x > 1.0 {
        f.encode_f64(1.0)
    } else {
        v
    }
}

macro_rules! with_fmt {
    ($f:expr, $T:ident => $body:expr) => {
        match $f {
            Fmt::H => {
                type $T = Half;
                $body
            }
            Fmt::B => {
                type $T = BFloat;
                $body
            }
            Fmt::S => {
                type $T = Single;
                $body
            }
            Fmt::D => {
                type $T = Double;
                $body
            }
        }
    };
}

fn from_int(f: Fmt, x: i128, r: Round) -> u64 {
    with_fmt!(f, T => T::from_i128_r(x, r).value.to_bits() as u64)
}

fn round_integral(f: Fmt, v: u64, r: Round) -> u64 {
    let r = if r == Round::NearestTiesToEven {
        Round::NearestTiesToEven
    } else {
        r
    };
    with_fmt!(f, T => {
        let x = T::from_bits(u128::from(v));
        let out = x.round_to_integral(r).value.to_bits() as u64;
        if f.is_nan(out) { f.canonical_nan() } else { out }
    })
}

/// A NaN converted to or from f64 keeps its sign and the top of its payload, quieted.
fn convert_nan(sf: Fmt, df: Fmt, v: u64) -> u64 {
    let mbits = |f: Fmt| match f {
        Fmt::H => 10,
        Fmt::B => 7,
        Fmt::S => 23,
        Fmt::D => 52,
    };
    let (sm, dm) = (mbits(sf), mbits(df));
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
    macro_rules! conv {
        ($S:ty) => {{
            let x = <$S>::from_bits(u128::from(v));
            match df {
                Fmt::H => FloatConvert::<Half>::convert_r(x, r, &mut loses)
                    .value
                    .to_bits() as u64,
                Fmt::B => FloatConvert::<BFloat>::convert_r(x, r, &mut loses)
                    .value
                    .to_bits() as u64,
                Fmt::S => FloatConvert::<Single>::convert_r(x, r, &mut loses)
                    .value
                    .to_bits() as u64,
                Fmt::D => FloatConvert::<Double>::convert_r(x, r, &mut loses)
                    .value
                    .to_bits() as u64,
            }
        }};
    }
    match sf {
        Fmt::H => conv!(Half),
        Fmt::B => conv!(BFloat),
        Fmt::S => conv!(Single),
        Fmt::D => conv!(Double),
    }
}

/// Float to integer: round by the integer rounding mode (default: toward zero), saturate to the
/// destination's range, NaN to 0.
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
    let (lo, hi) = if dt.is_signed() {
        (-(1i128 << (dbits - 1)), (1i128 << (dbits - 1)) - 1)
    } else {
        (0, (1i128 << dbits) - 1)
    };
    let x = with_fmt!(f, T => {
        let x = T::from_bits(u128::from(v));
        let rounded = x.round_to_integral(r).value;
        let mut exact = false;
        rounded.to_i128_r(128, Round::TowardZero, &mut exact).value
    });
    extend(x.clamp(lo, hi) as u64, dt)
}

/// `cvt.pack.sat.u8.s32.b32 d, a, b, c` and the 16-bit forms: saturate a and b to the narrow type
/// and pack them above the low bits of c.
fn pack(cx: &mut Ctx<'_, '_>) -> Res<()> {
    let mods = cx.ins.mods;
    let (Some(dt), Some(st)) = (mods.types[0], mods.types[1]) else {
        return Ok(());
    };
    let bits = dt.size() * 8;
    for lane in lanes(cx.active) {
        let a = int_to_int(cx.src(1, lane, st), st, dt, true) & mask(bits);
        let b = int_to_int(cx.src(2, lane, st), st, dt, true) & mask(bits);
        let v = if cx.ops.len() >= 4 {
            let c = cx.src(3, lane, Type::B32);
            (c << (2 * bits)) | (a << bits) | b
        } else {
            (a << bits) | b
        };
        cx.dst(0, lane, v & 0xffff_ffff);
    }
    Ok(())
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
