//! Integer scalar semantics (PTX ISA 9.0 sections 9.7.1 "Integer Arithmetic Instructions",
//! 9.7.2 "Extended-Precision Integer Arithmetic", 9.7.7.1-2 `set`/`setp` on integers): values are
//! bit patterns read at the instruction's width and sign. The width-dependent operations
//! (`mul.hi`, `mul.wide`, `mad`, `min`/`max`) are written once in a template and instantiated
//! for 8-, 16-, 32- and 64-bit words ([`w8`], [`w16`], [`w32`], [`w64`]), so the warp-wide fast
//! forms run the same code as the general handler on host integers of the instruction's width.

use crate::ir::mods::Cmp;
use crate::ir::Type;

/// The low `bits` bits set.
#[inline(always)]
pub fn mask(bits: u32) -> u64 {
    if bits >= 64 {
        u64::MAX
    } else {
        (1u64 << bits) - 1
    }
}

/// Sign-extends the low `bits` of `v`.
#[inline(always)]
pub fn sext(v: u64, bits: u32) -> i64 {
    if bits >= 64 {
        v as i64
    } else {
        ((v << (64 - bits)) as i64) >> (64 - bits)
    }
}

/// `v` read as type `t`: sign-extended for signed types, zero-extended otherwise.
pub fn as_i128(v: u64, t: Type) -> i128 {
    let bits = t.size() * 8;
    if t.is_signed() {
        i128::from(sext(v, bits))
    } else {
        i128::from(v & mask(bits))
    }
}

/// A value of type `t` as it lands in a register at least as wide: sign- or zero-extended.
pub fn extend(v: u64, t: Type) -> u64 {
    let bits = t.size() * 8;
    if t.is_signed() {
        sext(v, bits) as u64
    } else {
        v & mask(bits)
    }
}

/// `v` clamped to the range of type `t` (`.sat` of `cvt`, `cvt.pack`).
pub fn saturate(v: i128, t: Type) -> i128 {
    let bits = t.size() * 8;
    if t.is_signed() {
        v.clamp(-(1i128 << (bits - 1)), (1i128 << (bits - 1)) - 1)
    } else {
        v.clamp(0, (1i128 << bits) - 1)
    }
}

/// `v` clamped to the s32 range: the `.sat` of `add`, `sub`, `mad.hi`, `mad24`.
#[inline]
pub fn sat_s32(v: i128) -> u64 {
    v.clamp(i128::from(i32::MIN), i128::from(i32::MAX)) as u64
}

/// The six integer relations (`lo`/`ls`/`hi`/`hs` are `lt`/`le`/`gt`/`ge` read unsigned).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Rel {
    Eq,
    Ne,
    Lt,
    Le,
    Gt,
    Ge,
}

impl Rel {
    /// The integer relation of a comparison operator; None for the float-only ones.
    pub fn of(cmp: Cmp) -> Option<Rel> {
        Some(match cmp {
            Cmp::Eq => Rel::Eq,
            Cmp::Ne => Rel::Ne,
            Cmp::Lt | Cmp::Lo => Rel::Lt,
            Cmp::Le | Cmp::Ls => Rel::Le,
            Cmp::Gt | Cmp::Hi => Rel::Gt,
            Cmp::Ge | Cmp::Hs => Rel::Ge,
            Cmp::Equ
            | Cmp::Neu
            | Cmp::Ltu
            | Cmp::Leu
            | Cmp::Gtu
            | Cmp::Geu
            | Cmp::Num
            | Cmp::Nan => return None,
        })
    }
}

/// Whether `a rel b`; with `rel` a constant it folds to one host comparison.
#[inline(always)]
pub(crate) fn holds<T: Ord>(rel: Rel, a: T, b: T) -> bool {
    match rel {
        Rel::Eq => a == b,
        Rel::Ne => a != b,
        Rel::Lt => a < b,
        Rel::Le => a <= b,
        Rel::Gt => a > b,
        Rel::Ge => a >= b,
    }
}

/// Integer comparison of two extended values (float comparisons are `float::compare`); a
/// float-only operator is false.
pub fn int_cmp(cmp: Cmp, a: i128, b: i128) -> bool {
    Rel::of(cmp).is_some_and(|rel| holds(rel, a, b))
}

/// How a warp-wide integer comparison reads its operands.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Key {
    S32,
    U32,
    S64,
    U64,
}

/// A register value mapped to a key that compares as unsigned 64-bit exactly as the value
/// compares read by `key` (signed keys have their sign bit flipped).
#[inline(always)]
pub(crate) fn order_key(key: Key, v: u64) -> u64 {
    const SIGN: u64 = 1 << 63;
    match key {
        Key::S32 => (sext(v, 32) as u64) ^ SIGN,
        Key::U32 => v & 0xffff_ffff,
        Key::S64 => v ^ SIGN,
        Key::U64 => v,
    }
}

/// The width-dependent integer operations on `$u`-bit words (signed view `$s`, double width
/// `$wu`/`$ws`). Every function is the meaning of the instruction on its register width.
macro_rules! width {
    ($name:ident, $u:ty, $s:ty, $wu:ty, $ws:ty, $bits:literal) => {
        #[doc = concat!("Integer operations on ", stringify!($bits), "-bit words.")]
        // One template for every width: not every width has a caller of every operation.
        #[allow(dead_code)]
        pub mod $name {
            /// `mul.hi.u`: the high half of the unsigned product.
            #[inline(always)]
            pub fn mul_hi_u(a: $u, b: $u) -> $u {
                ((<$wu>::from(a) * <$wu>::from(b)) >> $bits) as $u
            }
            /// `mul.hi.s`: the high half of the signed product.
            #[inline(always)]
            pub fn mul_hi_s(a: $u, b: $u) -> $u {
                ((<$ws>::from(a as $s) * <$ws>::from(b as $s)) >> $bits) as $u
            }
            /// `mul.wide.u`: the whole unsigned product.
            #[inline(always)]
            pub fn mul_wide_u(a: $u, b: $u) -> $wu {
                <$wu>::from(a) * <$wu>::from(b)
            }
            /// `mul.wide.s`: the whole signed product.
            #[inline(always)]
            pub fn mul_wide_s(a: $u, b: $u) -> $wu {
                (<$ws>::from(a as $s) * <$ws>::from(b as $s)) as $wu
            }
            /// `mad.lo`: the low half of `a * b + c`, wrapping.
            #[inline(always)]
            pub fn mad_lo(a: $u, b: $u, c: $u) -> $u {
                a.wrapping_mul(b).wrapping_add(c)
            }
            /// `mad.wide.u`: `a * b + c` on the double width, wrapping.
            #[inline(always)]
            pub fn mad_wide_u(a: $u, b: $u, c: $wu) -> $wu {
                mul_wide_u(a, b).wrapping_add(c)
            }
            /// `mad.wide.s`: `a * b + c` on the double width, signed product, wrapping.
            #[inline(always)]
            pub fn mad_wide_s(a: $u, b: $u, c: $wu) -> $wu {
                mul_wide_s(a, b).wrapping_add(c)
            }
            /// `min.s`.
            #[inline(always)]
            pub fn min_s(a: $u, b: $u) -> $u {
                (a as $s).min(b as $s) as $u
            }
            /// `max.s`.
            #[inline(always)]
            pub fn max_s(a: $u, b: $u) -> $u {
                (a as $s).max(b as $s) as $u
            }
        }
    };
}

width!(w8, u8, i8, u16, i16, 8);
width!(w16, u16, i16, u32, i32, 16);
width!(w32, u32, i32, u64, i64, 32);
width!(w64, u64, i64, u128, i128, 64);

/// Calls the macro `$at!(module, word)` with the width template's module and host word of a
/// `bits`-wide register value (`w8`/`u8` .. `w64`/`u64`, resolved where it is invoked: the
/// templates of `int.rs` and `bits.rs` share the names); 64 bits for anything wider.
macro_rules! by_width {
    ($bits:expr, $at:ident) => {
        match $bits {
            8 => $at!(w8, u8),
            16 => $at!(w16, u16),
            32 => $at!(w32, u32),
            _ => $at!(w64, u64),
        }
    };
}
pub(crate) use by_width;

/// `mul`'s product of two `bits`-wide values, as `.lo`, `.hi` or `.wide` asks (`wide` and `hi`
/// exclusive), unmasked above the result's width.
pub fn mul(a: u64, b: u64, bits: u32, signed: bool, part: MulPart) -> u64 {
    macro_rules! at {
        ($w:ident, $u:ty) => {{
            let (x, y) = (a as $u, b as $u);
            match (part, signed) {
                (MulPart::Lo, _) => u64::from(x.wrapping_mul(y)),
                (MulPart::Hi, false) => u64::from($w::mul_hi_u(x, y)),
                (MulPart::Hi, true) => u64::from($w::mul_hi_s(x, y)),
                (MulPart::Wide, false) => $w::mul_wide_u(x, y) as u64,
                (MulPart::Wide, true) => $w::mul_wide_s(x, y) as u64,
            }
        }};
    }
    by_width!(bits, at)
}

/// Which part of a product `mul`/`mad` keep.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum MulPart {
    Lo,
    Hi,
    Wide,
}

/// Signed or unsigned `min`/`max` of two `bits`-wide values.
pub fn min_max(a: u64, b: u64, bits: u32, signed: bool, max: bool) -> u64 {
    macro_rules! at {
        ($w:ident, $u:ty) => {{
            let (x, y) = (a as $u, b as $u);
            u64::from(match (signed, max) {
                (false, false) => x.min(y),
                (false, true) => x.max(y),
                (true, false) => $w::min_s(x, y),
                (true, true) => $w::max_s(x, y),
            })
        }};
    }
    by_width!(bits, at)
}

/// Which of the packed operations of [`packed16x2`].
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Packed {
    Add,
    Min,
    Max,
}

/// `add`, `min` and `max` on `.u16x2`/`.s16x2` (PTX ISA 9.0 sections 9.7.1.1, 9.7.1.10-11): each
/// half on its own, wrapping; `.relu` (signed only) raises a negative half to 0.
pub fn packed16x2(op: Packed, signed: bool, relu: bool, a: u32, b: u32) -> u64 {
    let mut d = 0u32;
    for shift in [0, 16] {
        let (x, y) = ((a >> shift) as u16, (b >> shift) as u16);
        let (x, y) = if signed {
            (i32::from(x as i16), i32::from(y as i16))
        } else {
            (i32::from(x), i32::from(y))
        };
        let r = match op {
            Packed::Add => x + y,
            Packed::Min => x.min(y),
            Packed::Max => x.max(y),
        };
        let r = if relu { r.max(0) } else { r };
        d |= (r as u32 & 0xffff) << shift;
    }
    u64::from(d)
}

/// `div` of type `t`: division by zero is undefined; the hardware's pattern is all ones.
pub fn div(a: u64, b: u64, t: Type) -> u64 {
    let bits = t.size() * 8;
    let m = mask(bits);
    if b & m == 0 {
        m
    } else if t.is_signed() {
        sext(a, bits).wrapping_div(sext(b, bits)) as u64
    } else {
        (a & m) / (b & m)
    }
}

/// `rem` of type `t`: by zero it returns `a`.
pub fn rem(a: u64, b: u64, t: Type) -> u64 {
    let bits = t.size() * 8;
    let m = mask(bits);
    if b & m == 0 {
        a
    } else if t.is_signed() {
        sext(a, bits).wrapping_rem(sext(b, bits)) as u64
    } else {
        (a & m) % (b & m)
    }
}

/// `mul24.lo`/`.hi`: the 48-bit product of the low 24 bits; `.hi` keeps bits 16..48.
pub fn mul24(a: u64, b: u64, signed: bool, hi: bool) -> u64 {
    let low24 = |v: u64| {
        if signed {
            i128::from(sext(v, 24))
        } else {
            i128::from(v & 0xff_ffff)
        }
    };
    let p = low24(a) * low24(b);
    if hi {
        (p >> 16) as u64
    } else {
        p as u64
    }
}

/// Byte `i` of `v`, extended by sign or not.
fn byte(v: u64, i: u32, signed: bool) -> i128 {
    let b = (v >> (8 * i)) & 0xff;
    if signed {
        i128::from(sext(b, 8))
    } else {
        i128::from(b)
    }
}

/// `dp4a`: the four byte products of a and b added to the 32-bit c.
pub fn dp4a(a: u64, b: u64, c: u64, a_signed: bool, b_signed: bool) -> u64 {
    let mut acc = i128::from(sext(c, 32));
    for i in 0..4 {
        acc += byte(a, i, a_signed) * byte(b, i, b_signed);
    }
    acc as u64
}

/// `dp2a.lo`/`.hi`: the two 16-bit halves of a times bytes 0-1 (`.hi`: 2-3) of b, plus c.
pub fn dp2a(a: u64, b: u64, c: u64, (a_signed, b_signed): (bool, bool), hi: bool) -> u64 {
    let mut acc = i128::from(sext(c, 32));
    for i in 0..2 {
        let x = if a_signed {
            i128::from(sext(a >> (16 * i), 16))
        } else {
            i128::from((a >> (16 * i)) & 0xffff)
        };
        acc += x * byte(b, i + if hi { 2 } else { 0 }, b_signed);
    }
    acc as u64
}

/// `add.cc`/`addc`/`sub.cc`/`subc`/`mad.cc`/`madc` on `bits`-wide a, b (and c for `mad`): the
/// result and the carry out. `sub` computes `a - b - borrow`, CC.CF holding the borrow out.
pub fn with_carry(op: CarryOp, (a, b, c): (u64, u64, u64), bits: u32, cin: bool) -> (u64, bool) {
    let m = mask(bits);
    let (a, b, c) = (u128::from(a & m), u128::from(b & m), u128::from(c & m));
    let cin = u128::from(cin);
    match op {
        CarryOp::Add => {
            let s = a + b + cin;
            (s as u64 & m, (s >> bits) & 1 == 1)
        }
        CarryOp::Sub => {
            let s = a.wrapping_sub(b).wrapping_sub(cin);
            (s as u64 & m, a < b + cin)
        }
        CarryOp::Mad { hi } => {
            let p = a * b;
            let part = if hi { p >> bits } else { p & u128::from(m) };
            let s = part + c + cin;
            (s as u64 & m, (s >> bits) & 1 == 1)
        }
    }
}

/// The operations that go through the carry flag.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum CarryOp {
    Add,
    Sub,
    Mad { hi: bool },
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn products_by_width() {
        assert_eq!(w32::mul_hi_s(0xffff_ffff, 2), 0xffff_ffff);
        assert_eq!(w32::mul_hi_u(0xffff_ffff, 2), 1);
        assert_eq!(w32::mul_wide_s(0xffff_ffff, 3), (-3i64) as u64);
        assert_eq!(mul(0xffff, 0xffff, 16, true, MulPart::Hi), 0);
        assert_eq!(mul(0xffff, 0xffff, 16, false, MulPart::Wide), 0xfffe_0001);
    }

    #[test]
    fn comparisons_by_key() {
        let (m1, one) = (u64::from(u32::MAX), 1u64);
        assert!(holds(
            Rel::Lt,
            order_key(Key::S32, m1),
            order_key(Key::S32, one)
        ));
        assert!(holds(
            Rel::Gt,
            order_key(Key::U32, m1),
            order_key(Key::U32, one)
        ));
        assert!(!int_cmp(Cmp::Ltu, -1, 1));
    }

    #[test]
    fn carries() {
        assert_eq!(
            with_carry(CarryOp::Add, (u64::from(u32::MAX), 1, 0), 32, false),
            (0, true)
        );
        assert_eq!(
            with_carry(CarryOp::Sub, (0, 1, 0), 32, false),
            (0xffff_ffff, true)
        );
    }
}
