//! Bit manipulation and shifts (PTX ISA 9.0 sections 9.7.1.15-24 `popc`, `clz`, `bfind`, `fns`,
//! `brev`, `bfe`, `bfi`, `szext`, `bmsk`, 9.7.8 "Logic and Shift Instructions" `lop3`, `shf`,
//! `shl`, `shr`, and 9.7.9.7 `prmt`). Values are bit patterns of `bits`-wide registers; shift
//! counts are unsigned 32-bit, and a count at or past the width gives 0 (or the sign, for `shr.s`).
//! The shifts are written once per width in a template ([`w16`], [`w32`], [`w64`]), which both
//! the general handler and the warp-wide fast forms call.

use super::int::{by_width, mask, sext};
use crate::ir::mods::SubOp;

/// `shl`, `shr.u`, `shr.s` on `$u`-bit words (signed view `$s`).
macro_rules! shifts {
    ($name:ident, $u:ty, $s:ty, $bits:literal) => {
        #[doc = concat!("Shifts of ", stringify!($bits), "-bit words.")]
        pub mod $name {
            /// `shl`: 0 once the count reaches the width.
            #[inline(always)]
            pub fn shl(a: $u, n: u32) -> $u {
                if n >= $bits {
                    0
                } else {
                    a << n
                }
            }
            /// `shr.u`/`shr.b`: 0 once the count reaches the width.
            #[inline(always)]
            pub fn shr_u(a: $u, n: u32) -> $u {
                if n >= $bits {
                    0
                } else {
                    a >> n
                }
            }
            /// `shr.s`: the sign fills every bit once the count reaches the width.
            #[inline(always)]
            pub fn shr_s(a: $u, n: u32) -> $u {
                ((a as $s) >> n.min($bits - 1)) as $u
            }
        }
    };
}

shifts!(w8, u8, i8, 8);
shifts!(w16, u16, i16, 16);
shifts!(w32, u32, i32, 32);
shifts!(w64, u64, i64, 64);

/// The shift direction and kind of `shl`/`shr`.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Shift {
    Left,
    RightU,
    RightS,
}

/// `shl`/`shr` of a `bits`-wide `a` by `n`.
pub fn shift(kind: Shift, a: u64, n: u32, bits: u32) -> u64 {
    macro_rules! at {
        ($w:ident, $u:ty) => {{
            let a = a as $u;
            u64::from(match kind {
                Shift::Left => $w::shl(a, n),
                Shift::RightU => $w::shr_u(a, n),
                Shift::RightS => $w::shr_s(a, n),
            })
        }};
    }
    by_width!(bits, at)
}

/// `popc`.
pub fn popc(a: u64, bits: u32) -> u64 {
    u64::from((a & mask(bits)).count_ones())
}

/// `clz`.
pub fn clz(a: u64, bits: u32) -> u64 {
    u64::from((a & mask(bits)).leading_zeros() - (64 - bits))
}

/// `brev`.
pub fn brev(a: u64, bits: u32) -> u64 {
    (a & mask(bits)).reverse_bits() >> (64 - bits)
}

/// `bfind`: the position of the most significant bit not equal to the sign (of a set bit, for
/// unsigned), or 0xffffffff; `.shiftamt` counts from the top instead.
pub fn bfind(a: u64, bits: u32, signed: bool, shiftamt: bool) -> u64 {
    let m = mask(bits);
    let v = if signed && sext(a, bits) < 0 {
        !a & m
    } else {
        a & m
    };
    if v == 0 {
        return 0xffff_ffff;
    }
    let pos = 63 - u64::from(v.leading_zeros());
    if shiftamt {
        u64::from(bits) - 1 - pos
    } else {
        pos
    }
}

/// `bfe`: extract `len` bits at `pos`, sign-extending from the field's top bit if signed.
pub fn bfe(a: u64, b: u64, c: u64, bits: u32, signed: bool) -> u64 {
    let (pos, len) = (b & 0xff, c & 0xff);
    let msb = u64::from(bits) - 1;
    let sbit = if !signed || len == 0 {
        0
    } else {
        (a >> (pos + len - 1).min(msb)) & 1
    };
    let mut d = 0u64;
    for i in 0..u64::from(bits) {
        let bit = if i < len && pos + i <= msb {
            (a >> (pos + i)) & 1
        } else {
            sbit
        };
        d |= bit << i;
    }
    d
}

/// `bfi`: `len` low bits of `a` inserted into `b` at `pos` (bits past the width dropped).
pub fn bfi(a: u64, b: u64, pos: u64, len: u64, bits: u32) -> u64 {
    let (pos, len, bits) = (pos & 0xff, len & 0xff, u64::from(bits));
    if pos >= bits {
        return b;
    }
    // The field: bits `pos..pos + n` (at most `bits`, at most 64), all taken from `a` at once.
    let n = len.min(bits - pos);
    let field = if n == 0 { 0 } else { u64::MAX >> (64 - n) } << pos;
    (b & !field) | ((a << pos) & field)
}

/// `szext.mode`: the low `b` bits of `a` sign- or zero-extended (`.clamp`: count at most 32;
/// `.wrap`: modulo 32).
pub fn szext(a: u64, b: u64, clamp: bool, signed: bool) -> u64 {
    let n = if clamp {
        (b & 0xffff_ffff).min(32)
    } else {
        b & 31
    };
    if n == 0 {
        0
    } else if signed {
        sext(a, n as u32) as u64
    } else {
        a & mask(n as u32)
    }
}

/// `bmsk.mode`: `b` ones from bit `a`, in 32 bits.
pub fn bmsk(a: u64, b: u64, clamp: bool) -> u64 {
    let (pos, w) = if clamp {
        ((a & 0xffff_ffff).min(32), (b & 0xffff_ffff).min(32))
    } else {
        (a & 31, b & 31)
    };
    (mask(w as u32) << pos) & 0xffff_ffff
}

/// `lop3`: each result bit the entry of `lut` indexed by the bits of a, b, c.
pub fn lop3(a: u64, b: u64, c: u64, lut: u8, bits: u32) -> u64 {
    let mut r = 0u64;
    for i in 0..bits {
        let idx = (((a >> i) & 1) << 2) | (((b >> i) & 1) << 1) | ((c >> i) & 1);
        r |= u64::from((lut >> idx) & 1) << i;
    }
    r
}

/// `shf.l`/`shf.r`: the funnel shift of the 64-bit `{b, a}` by `c` (`.clamp`: at most 32,
/// `.wrap`: modulo 32), keeping the high (`.l`) or low (`.r`) word (unmasked).
pub fn shf(a: u64, b: u64, c: u64, clamp: bool, left: bool) -> u64 {
    let n = if clamp {
        (c & 0xffff_ffff).min(32)
    } else {
        c & 31
    };
    let both = ((b & 0xffff_ffff) << 32) | (a & 0xffff_ffff);
    if left {
        (both << n) >> 32
    } else {
        both >> n
    }
}

/// `fns`: the position of the `offset`-th set bit of `mask` from `base`, or 0xffffffff.
pub fn fns(mask: u32, base: u32, offset: i32) -> u64 {
    let base = base.min(31) as i32;
    if offset == 0 {
        // The ISA: offset 0 asks whether the base bit itself is set.
        return if mask >> base & 1 == 1 {
            base as u64
        } else {
            0xffff_ffff
        };
    }
    let mut count = 0;
    if offset > 0 {
        let mut i = base;
        while i < 32 {
            if mask >> i & 1 == 1 {
                count += 1;
                if count == offset {
                    return i as u64;
                }
            }
            i += 1;
        }
    } else {
        let mut i = base;
        while i >= 0 {
            if mask >> i & 1 == 1 {
                count += 1;
                if count == -offset {
                    return i as u64;
                }
            }
            i -= 1;
        }
    }
    0xffff_ffff
}

/// `prmt`: byte permute of {b, a} by the selector `c` (default mode and the named modes).
pub fn prmt(a: u32, b: u32, c: u32, mode: Option<SubOp>) -> u64 {
    let x = (u64::from(b) << 32) | u64::from(a);
    let bytes: [u8; 8] = x.to_le_bytes();
    let pick = |sel: u32| -> u8 {
        let v = bytes[(sel & 7) as usize];
        if sel & 8 != 0 {
            if v & 0x80 != 0 {
                0xff
            } else {
                0
            }
        } else {
            v
        }
    };
    let s = c & 3;
    let sels: [u32; 4] = match mode {
        None => [c & 0xf, (c >> 4) & 0xf, (c >> 8) & 0xf, (c >> 12) & 0xf],
        Some(SubOp::F4e) => [s, s + 1, s + 2, s + 3].map(|v| v & 7),
        // b4e: bytes s, s-1, s-2, s-3 (mod 8), as the ISA's table lists them.
        Some(SubOp::B4e) => [s + 8, s + 7, s + 6, s + 5].map(|v| v & 7),
        Some(SubOp::Rc8) => [s; 4],
        Some(SubOp::Ecl) => [s, s.max(1), s.max(2), 3],
        Some(SubOp::Ecr) => [0, s.min(1), s.min(2), s],
        Some(SubOp::Rc16) => {
            let lo = (c & 1) * 2;
            [lo, lo + 1, lo, lo + 1]
        }
        _ => [0, 1, 2, 3],
    };
    let mut r = 0u32;
    for (i, sel) in sels.iter().enumerate() {
        let v = if mode.is_none() {
            pick(*sel)
        } else {
            bytes[*sel as usize]
        };
        r |= u32::from(v) << (8 * i);
    }
    u64::from(r)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn bfe_matches_the_isa_pseudocode() {
        assert_eq!(bfe(0xf0, 4, 4, 32, false), 0xf);
        assert_eq!(bfe(0xf0, 4, 4, 32, true), 0xffff_ffff);
        assert_eq!(bfe(0x80, 4, 0, 32, true), 0);
        assert_eq!(
            bfe(0x8000_0000, 31, 200, 32, true) & 0xffff_ffff,
            0xffff_ffff
        );
    }

    /// The ISA's pseudocode for `bfi`, bit by bit.
    fn bfi_by_bits(a: u64, b: u64, pos: u64, len: u64, bits: u32) -> u64 {
        let (pos, len) = (pos & 0xff, len & 0xff);
        let mut f = b;
        for i in 0..len {
            if pos + i < u64::from(bits) {
                f = (f & !(1 << (pos + i))) | (((a >> i) & 1) << (pos + i));
            }
        }
        f
    }

    #[test]
    fn bfi_matches_the_isa_pseudocode_at_every_position_and_length() {
        let mut x = 0x9e37_79b9_7f4a_7c15u64;
        for bits in [32, 64] {
            for pos in (0..300).chain([0x1ff, 0x100, 0xffff_ff20]) {
                for len in (0..70).chain([0xff, 0x100, 0x1_0000_0003]) {
                    x ^= x << 13;
                    x ^= x >> 7;
                    x ^= x << 17;
                    let (a, b) = (x, x.rotate_left(29) ^ 0x5555_5555_5555_5555);
                    assert_eq!(
                        bfi(a, b, pos, len, bits),
                        bfi_by_bits(a, b, pos, len, bits),
                        "bfi.b{bits} pos {pos} len {len}"
                    );
                }
            }
        }
    }

    #[test]
    fn prmt_default_and_sign_replicate() {
        assert_eq!(prmt(0x0403_0201, 0x0807_0605, 0x3210, None), 0x0403_0201);
        assert_eq!(prmt(0x0403_0201, 0x0807_0605, 0x7654, None), 0x0807_0605);
        assert_eq!(prmt(0x0000_0080, 0, 0x8888, None), 0xffff_ffff);
    }

    #[test]
    fn fns_finds_the_nth_bit() {
        assert_eq!(fns(0b1011, 0, 1), 0);
        assert_eq!(fns(0b1011, 0, 3), 3);
        assert_eq!(fns(0b1011, 3, -2), 1);
        assert_eq!(fns(0, 0, 1), 0xffff_ffff);
    }

    #[test]
    fn shifts_past_the_width() {
        assert_eq!(w32::shl(1, 32), 0);
        assert_eq!(w32::shr_s(0x8000_0000, 40), 0xffff_ffff);
        assert_eq!(shift(Shift::RightU, 0x8000, 15, 16), 1);
        assert_eq!(shift(Shift::RightS, 0x8000, 99, 16), 0xffff);
    }
}
