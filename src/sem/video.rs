//! The video instructions' semantics (PTX ISA 9.0 section 9.7.16) as the H100 computes them:
//! the scalar `vadd`, `vsub`, `vabsdiff`, `vmin`, `vmax`, `vshl`, `vshr`, `vset` with their
//! secondary operation or merge ([`scalar`], [`shift`]), `vmad` ([`mad`]) and the SIMD `vadd2` ..
//! `vset4` ([`simd`]), one lane at a time ([`one`]). The ISA describes these with 33- and 34-bit
//! intermediates; sm_90 has no video unit, and ptxas emulates each form with ordinary integer
//! instructions, so what is written here is what the H100 was measured to give
//! (docs/numerics/video: every form over adversarial and random operands, no mismatch). The
//! forms themselves are decoded in `ir::video`; [`Kind`] routes a form to its path, so the main
//! operation of [`scalar`]/[`simd`] cannot be a shift or `vmad`.

use super::int::{holds, Rel};
use crate::ir::mods::SubOp;
use crate::ir::video::{Part, Second, VForm, VOp, VSel};

/// `v`'s part `p`, sign- or zero-extended.
pub fn part(v: u32, p: Part, signed: bool) -> i64 {
    let (x, bits) = match p {
        Part::Word => (v, 32),
        Part::Byte(i) => ((v >> (8 * u32::from(i))) & 0xff, 8),
        Part::Half(i) => ((v >> (16 * u32::from(i))) & 0xffff, 16),
    };
    if signed {
        i64::from(((x << (32 - bits)) as i32) >> (32 - bits))
    } else {
        i64::from(x)
    }
}

/// `v` clamped to the range of a `bits`-wide signed or unsigned integer.
fn clamp_bits(v: i128, bits: u32, signed: bool) -> i128 {
    if signed {
        v.clamp(-(1 << (bits - 1)), (1 << (bits - 1)) - 1)
    } else {
        v.clamp(0, (1 << bits) - 1)
    }
}

/// The low 32 bits of `v`, sign-extended.
fn sext32(v: i128) -> i128 {
    i128::from(v as u32 as i32)
}

/// The main operations of the scalar and SIMD forms: the video operations other than the
/// shifts and `vmad`, which have paths of their own ([`Kind`]).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Primary {
    Add,
    Sub,
    Absdiff,
    Min,
    Max,
    Avrg,
    /// `vset`: the integer relation (ir::video decodes only eq, ne, lt, le, gt, ge).
    Set(Rel),
}

/// How a video operation runs: a main operation (scalar or SIMD), a shift, or `vmad`.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Kind {
    Primary(Primary),
    /// `vshl` (true) or `vshr`.
    Shift(bool),
    Mad,
}

impl Kind {
    /// The path of `op`; None for a `vset` whose comparison is not an integer relation.
    pub fn of(op: VOp) -> Option<Kind> {
        Some(match op {
            VOp::Add => Kind::Primary(Primary::Add),
            VOp::Sub => Kind::Primary(Primary::Sub),
            VOp::Absdiff => Kind::Primary(Primary::Absdiff),
            VOp::Min => Kind::Primary(Primary::Min),
            VOp::Max => Kind::Primary(Primary::Max),
            VOp::Avrg => Kind::Primary(Primary::Avrg),
            VOp::Set(c) => Kind::Primary(Primary::Set(Rel::of(c)?)),
            VOp::Shl => Kind::Shift(true),
            VOp::Shr => Kind::Shift(false),
            VOp::Mad => Kind::Mad,
        })
    }
}

/// The main operation on two extended operands, exactly (`vavrg` rounds half away from zero;
/// `vset` gives 0 or 1).
fn primary(op: Primary, a: i64, b: i64) -> i128 {
    let (a, b) = (i128::from(a), i128::from(b));
    match op {
        Primary::Add => a + b,
        Primary::Sub => a - b,
        Primary::Absdiff => (a - b).abs(),
        Primary::Min => a.min(b),
        Primary::Max => a.max(b),
        Primary::Avrg if a + b >= 0 => (a + b + 1) >> 1,
        Primary::Avrg => (a + b) >> 1,
        Primary::Set(rel) => i128::from(holds(rel, a, b)),
    }
}

/// `v` written into c's part: a byte takes v's low byte, `.h0` v's low half, and `.h1` v's
/// HIGH half in place (measured; the ISA shifts the low half up).
fn merge(p: Part, v: u32, c: u32) -> u32 {
    match p {
        Part::Word => v,
        Part::Byte(i) => {
            let shift = 8 * u32::from(i);
            (c & !(0xff << shift)) | ((v & 0xff) << shift)
        }
        Part::Half(0) => (c & 0xffff_0000) | (v & 0xffff),
        Part::Half(_) => (c & 0xffff) | (v & 0xffff_0000),
    }
}

/// The secondary operation on the (saturated) 32-bit result `r` and c. `.min`/`.max` compare
/// `x`, the 64-bit value ptxas holds for the result, with c extended by the result's sign:
/// signed, or unsigned over 64 bits (so a negative `x` is above every c).
fn secondary(op2: SubOp, signed: bool, r: u32, x: i128, c: u32) -> u32 {
    let (x, y) = if signed {
        (x, i128::from(c as i32))
    } else {
        (i128::from(x as u64), i128::from(c))
    };
    match op2 {
        SubOp::Add => r.wrapping_add(c),
        SubOp::Min if x < y => r,
        SubOp::Max if x > y => r,
        _ => c,
    }
}

/// A scalar `vadd`, `vsub`, `vabsdiff`, `vmin`, `vmax` or `vset` as ptxas 13 lowers it for
/// sm_90 (measured on the H100; docs/numerics/video). The exact result t of the operation is
/// then: merged into c's part, saturated to the part as an unsigned 32-bit value (a negative or
/// wider t saturates to the part's maximum); or saturated to 32 bits (`.s32` clamps, `.u32`
/// only raises negatives to 0 and otherwise keeps t's low 32 bits), then combined with c.
pub fn scalar(
    f: &VForm,
    op: Primary,
    (a, asel): (u32, Part),
    (b, bsel): (u32, Part),
    c: u32,
) -> u32 {
    let t = primary(op, part(a, asel, f.a_signed), part(b, bsel, f.b_signed));
    // `vset`'s result is unsigned, but c is compared with the sign of its first source.
    let signed = if matches!(op, Primary::Set(_)) {
        f.a_signed
    } else {
        f.d_signed
    };
    if let Second::Merge(p) = f.second {
        let r = if f.sat {
            let wide = if t >> 32 != 0 { u32::MAX } else { t as u32 };
            let max = match p {
                Part::Byte(_) => 0xff >> u32::from(signed),
                _ => 0xffff >> u32::from(signed),
            };
            wide.min(max)
        } else {
            t as u32
        };
        return merge(p, r, c);
    }
    let r = match (f.sat, signed) {
        (true, true) => clamp_bits(t, 32, true) as u32,
        (true, false) if t < 0 => 0,
        _ => t as u32,
    };
    let Second::Op(op2) = f.second else {
        return r;
    };
    // ptxas adds and subtracts in 32 bits and sign-extends; the other results stay exact
    // (below zero raised to 0 by `.u32.sat`).
    let addsub = matches!(op, Primary::Add | Primary::Sub);
    let x = match (f.sat, signed, addsub) {
        (true, false, false) => t.max(0),
        (true, _, _) => sext32(i128::from(r)),
        (false, _, true) => sext32(t),
        (false, _, false) => t,
    };
    secondary(op2, signed, r, x, c)
}

/// `vshl`/`vshr`: a's part shifted over 64 bits by b's part (`.clamp`: at most 32; `.wrap`:
/// modulo 32). `.sat` clamps the result's low 34 bits, sign-extended, to the destination type;
/// a merge takes the (saturated) result's part without saturating to the part.
pub fn shift(f: &VForm, left: bool, (a, asel): (u32, Part), (b, bsel): (u32, Part), c: u32) -> u32 {
    let ta = part(a, asel, f.a_signed);
    let n = part(b, bsel, false);
    let n = if f.clamp { n.min(32) } else { n & 31 } as u32;
    let t64 = if left { ta.wrapping_shl(n) } else { ta >> n };
    let t34 = i128::from((t64 << 30) >> 30);
    let r = if f.sat {
        clamp_bits(t34, 32, f.d_signed) as u32
    } else {
        t64 as u32
    };
    match f.second {
        Second::Merge(p) => merge(p, r, c),
        Second::Op(op2) => {
            let x = if f.sat {
                sext32(i128::from(r))
            } else {
                i128::from(t64)
            };
            secondary(op2, f.d_signed, r, x, c)
        }
        _ => r,
    }
}

/// `vmad`: `(a*b) + c` as ptxas lowers it: a whole-word source is multiplied as signed whatever
/// its type (a byte or half follows its type), c is sign-extended, the negations fold as the
/// ISA describes (negating the product or c, `.po` adding one); `.shr7`/`.shr15` shift the 64-bit
/// sum arithmetically when the result is signed (a signed source or a negation), logically
/// otherwise, and `.sat` clamps it to the result's type.
pub fn mad(
    f: &VForm,
    (a, asel, na): (u32, Part, bool),
    (b, bsel, nb): (u32, Part, bool),
    (c, nc): (u32, bool),
) -> u32 {
    let ta = part(a, asel, f.a_signed || asel == Part::Word);
    let tb = part(b, bsel, f.b_signed || bsel == Part::Word);
    let neg_ab = na ^ nb;
    let signed = f.a_signed || f.b_signed || neg_ab || nc;
    let mut tmp = ta.wrapping_mul(tb);
    let mut c = c;
    let mut lsb = 0;
    if f.po {
        lsb = 1;
    } else if neg_ab {
        tmp = !tmp;
        lsb = 1;
    } else if nc {
        c = !c;
        lsb = 1;
    }
    let t = tmp.wrapping_add(i64::from(c as i32)).wrapping_add(lsb);
    let t = if signed {
        t >> f.shift
    } else {
        ((t as u64) >> f.shift) as i64
    };
    if f.sat {
        clamp_bits(i128::from(t), 32, signed) as u32
    } else {
        t as u32
    }
}

/// Element `i` of a SIMD source: the selector's digit for it names a half (or byte) of the
/// 64-bit pair `{b, a}` (a in the low half); written order is highest element first.
fn element(pair: u64, digits: &[u8], width: u8, i: usize, signed: bool) -> i64 {
    let bits = 32 / u32::from(width);
    let d = digits.get(usize::from(width) - 1 - i).copied().unwrap_or(0);
    let x = (pair >> (u32::from(d) * bits)) & ((1 << bits) - 1);
    if signed {
        ((x << (64 - bits)) as i64) >> (64 - bits)
    } else {
        x as i64
    }
}

/// A SIMD video instruction (`vadd2` .. `vset4`): per element the operation and `.sat`, then the
/// merge into c under the destination mask or (`.add`) c plus the masked elements.
pub fn simd(f: &VForm, op: Primary, (a, asel): (u32, VSel), (b, bsel): (u32, VSel), c: u32) -> u32 {
    let w = f.width;
    let bits = 32 / u32::from(w);
    let pair = u64::from(b) << 32 | u64::from(a);
    let defaults: (&[u8], &[u8]) = if w == 2 {
        (&[1, 0], &[3, 2])
    } else {
        (&[3, 2, 1, 0], &[7, 6, 5, 4])
    };
    let (da, db) = (asel.digits(), bsel.digits());
    let da = if da.is_empty() { defaults.0 } else { &da };
    let db = if db.is_empty() { defaults.1 } else { &db };
    let emask = (1u32 << bits).wrapping_sub(1);
    let mut merged = 0u32;
    let mut acc = i128::from(c);
    let mask = match f.second {
        Second::Mask(m) | Second::Accumulate(m) => m,
        _ => 0,
    };
    for i in 0..usize::from(w) {
        let ta = element(pair, da, w, i, f.a_signed);
        let tb = element(pair, db, w, i, f.b_signed);
        let t = primary(op, ta, tb);
        let t = if f.sat {
            clamp_bits(t, bits, f.d_signed)
        } else {
            t
        };
        let shift = bits * i as u32;
        let on = mask & (1 << i) != 0;
        let v = if on {
            t as u32 & emask
        } else {
            (c >> shift) & emask
        };
        merged |= v << shift;
        if on {
            acc += t;
        }
    }
    match f.second {
        Second::Accumulate(_) => acc as u32,
        _ => merged,
    }
}

/// One lane: the sources with their selectors, `part_of` a scalar selector's part.
pub fn one(f: &VForm, kind: Kind, src: [(u32, VSel); 3], part_of: impl Fn(VSel) -> Part) -> u32 {
    let [(a, sa), (b, sb), (c, sc)] = src;
    match kind {
        Kind::Shift(left) => shift(f, left, (a, part_of(sa)), (b, part_of(sb)), c),
        Kind::Mad => mad(
            f,
            (a, part_of(sa), sa.negated()),
            (b, part_of(sb), sb.negated()),
            (c, sc.negated()),
        ),
        Kind::Primary(op) if f.width == 1 => scalar(f, op, (a, part_of(sa)), (b, part_of(sb)), c),
        Kind::Primary(op) => simd(f, op, (a, sa), (b, sb), c),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::ir::opcode::decode;
    use crate::ir::video;
    use crate::ir::Operand;
    use crate::ir::RegId;

    /// One instruction on one lane: `text` is `opcode d, a, b[, c]` with registers named
    /// `%d`, `%a`, `%b`, `%c` (selectors and `-` allowed).
    fn run1(text: &str, a: u32, b: u32, c: u32) -> u32 {
        let (opcode, rest) = text.split_once(' ').unwrap();
        let dec = decode(opcode, 0).unwrap();
        let ops: Vec<Operand> = rest
            .trim_end_matches(';')
            .split(',')
            .enumerate()
            .map(|(k, w)| {
                let w = w.trim();
                let (neg, w) = w.strip_prefix('-').map_or((false, w), |x| (true, x));
                let sel = w
                    .split_once('.')
                    .map_or(VSel::default(), |(_, s)| VSel::parse(s).unwrap());
                let sel = if neg { sel.with_neg() } else { sel };
                Operand::VReg(RegId(k as u32), sel)
            })
            .collect();
        let f = video::form(dec.op, &dec.mods, &ops).unwrap();
        let sel = |k: usize| ops.get(k).map(video::sel_of).unwrap_or_default();
        let srcs = [(a, sel(1)), (b, sel(2)), (c, sel(3))];
        one(&f, Kind::of(f.op).unwrap(), srcs, |s| {
            video::scalar_part(s).unwrap()
        })
    }

    /// Where the H100 departs from the ISA's description (measured in the campaign of
    /// docs/numerics/video; the first vectors are lanes it ran).
    #[test]
    fn the_h100s_departures_from_the_isa() {
        // `.u32.sat` on an add raises negatives to 0 but keeps the low 32 bits of a sum past 2^32.
        assert_eq!(
            run1(
                "vadd.u32.u32.u32.sat %d, %a, %b.b2",
                0xffff_ffff,
                0x00ff_0000,
                0
            ),
            0xfe
        );
        assert_eq!(run1("vsub.u32.u32.u32.sat %d, %a.b0, %b", 1, 2, 0), 0);
        // Saturating into a byte treats a negative result as huge.
        assert_eq!(
            run1(
                "vsub.u32.u32.u32.sat %d.b0, %a, %b.b2, %c",
                0,
                0x00ff_0000,
                0xfedc_ba98
            ),
            0xfedc_baff
        );
        assert_eq!(
            run1("vsub.s32.s32.s32.sat %d.b1, %a.b0, %b.b0, %c", 0, 5, 0),
            0x7f00
        );
        // `.h1` receives the result's high half.
        assert_eq!(
            run1(
                "vmax.u32.u32.u32 %d.h1, %a.b1, %b, %c",
                0,
                0x7fff_ffff,
                0x7f7f_7f7f
            ),
            0x7fff_7f7f
        );
        // `.min` compares an add's 32-bit sum sign-extended, unsigned: 2^31 is above c.
        assert_eq!(
            run1(
                "vadd.u32.u32.u32.min %d, %a.b1, %b, %c",
                0,
                0x8000_0000,
                0xff80_7f01
            ),
            0xff80_7f01
        );
        // vmad multiplies whole words as signed and sign-extends c, then shifts logically.
        assert_eq!(
            run1("vmad.u32.u32.u32.shr7 %d, %a, %b.b2, %c", 0, 1, 0xffff_0000),
            0xffff_fe00
        );
        // A shift's merge takes the saturated word's byte, without saturating to the byte.
        assert_eq!(
            run1(
                "vshl.u32.u32.u32.sat.clamp %d.b0, %a, %b.b2, %c",
                1,
                0x1f1f_1f1f,
                0x8000_0000
            ),
            0x8000_0000
        );
        assert_eq!(
            run1("vshl.u32.u32.u32.sat.clamp %d, %a, %b", 1, 32, 0),
            0xffff_ffff
        );
    }

    #[test]
    fn simd_forms_follow_the_isa() {
        assert_eq!(
            run1(
                "vavrg2.s32.s32.s32 %d, %a, %b, %c",
                0xfffd_0003,
                0x0000_0000,
                0
            ),
            0xfffe_0002
        );
        assert_eq!(
            run1(
                "vabsdiff4.u32.u32.u32.add %d, %a, %b, %c",
                0x0102_0304,
                0x0403_0201,
                10
            ),
            18
        );
        assert_eq!(
            run1(
                "vset4.u32.u32.lt %d.b20, %a, %b, %c",
                0x0001_0001,
                0x0102_0102,
                0xaabb_ccdd
            ),
            0xaa01_cc01
        );
        assert_eq!(
            run1(
                "vadd2.u32.u32.u32.sat %d, %a.h32, %b.h10, %c",
                0xffff,
                0xffff_0001,
                0
            ),
            0xffff_ffff
        );
    }

    #[test]
    fn parts_extend_by_sign() {
        assert_eq!(part(0x0000_8000, Part::Half(0), true), -32768);
        assert_eq!(part(0x0000_8000, Part::Half(0), false), 32768);
        assert_eq!(part(0x80_00_00_00, Part::Byte(3), true), -128);
        assert_eq!(part(0xffff_ffff, Part::Word, false), 0xffff_ffff);
    }

    #[test]
    fn merge_replaces_one_part() {
        assert_eq!(merge(Part::Byte(1), 0x1234, 0xaabb_ccdd), 0xaabb_34dd);
        assert_eq!(merge(Part::Half(0), 0x1234_5678, 0xaabb_ccdd), 0xaabb_5678);
        // `.h1` takes the result's high half in place (H100).
        assert_eq!(merge(Part::Half(1), 0x1234_5678, 0xaabb_ccdd), 0x1234_ccdd);
    }
}
