//! The video instructions (PTX ISA 9.0 section 9.7.16) as the H100 computes them: the scalar
//! `vadd`, `vsub`, `vabsdiff`, `vmin`, `vmax`, `vshl`, `vshr`, `vset` with their secondary
//! operation or merge ([`scalar`]), `vmad` ([`mad`]) and the SIMD `vadd2` .. `vset4` ([`simd`]).
//! The ISA describes these with 33- and 34-bit intermediates; sm_90 has no video unit, and
//! ptxas emulates each form with ordinary integer instructions, so what is written here is what
//! the H100 was measured to give (docs/numerics/video: every form over adversarial and random
//! operands, no mismatch). The forms themselves are decoded in `ir::video`.

use super::ctx::Ctx;
use super::step::{fault, lanes, Res};
use super::FaultKind;
use crate::ir::mods::{Cmp, SubOp};
use crate::ir::video::{self, Part, Second, VForm, VOp, VSel};
use crate::ir::{Op, Operand, Type};

pub fn handles(op: Op) -> bool {
    video::is_video(op)
}

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

fn compare(c: Cmp, a: i64, b: i64) -> bool {
    match c {
        Cmp::Eq => a == b,
        Cmp::Ne => a != b,
        Cmp::Lt => a < b,
        Cmp::Le => a <= b,
        Cmp::Gt => a > b,
        _ => a >= b,
    }
}

/// The main operation on two extended operands (`vavrg` rounds half away from zero).
fn primary(f: &VForm, a: i64, b: i64) -> i128 {
    let (a, b) = (i128::from(a), i128::from(b));
    match f.op {
        VOp::Add => a + b,
        VOp::Sub => a - b,
        VOp::Absdiff => (a - b).abs(),
        VOp::Min => a.min(b),
        VOp::Max => a.max(b),
        VOp::Avrg if a + b >= 0 => (a + b + 1) >> 1,
        VOp::Avrg => (a + b) >> 1,
        VOp::Shl | VOp::Shr => {
            let n = if f.clamp { b.min(32) } else { b & 31 };
            if f.op == VOp::Shl {
                a << n
            } else {
                a >> n
            }
        }
        VOp::Set(c) => i128::from(compare(c, a as i64, b as i64)),
        VOp::Mad => a * b,
    }
}

/// The bits of `part` replaced by `v` in `c`.
fn merge(p: Part, v: u32, c: u32) -> u32 {
    let (shift, m) = match p {
        Part::Word => return v,
        Part::Byte(i) => (8 * u32::from(i), 0xff),
        Part::Half(i) => (16 * u32::from(i), 0xffff),
    };
    (c & !(m << shift)) | ((v & m) << shift)
}

/// A scalar video instruction other than `vmad`: `d = op2(sat(a op b), c)` or the merge of
/// `sat(a op b)` into c's part.
pub fn scalar(f: &VForm, a: u32, asel: Part, b: u32, bsel: Part, c: u32) -> u32 {
    let ta = part(a, asel, f.a_signed);
    let tb = part(b, bsel, f.b_signed && !matches!(f.op, VOp::Shl | VOp::Shr));
    let tmp = primary(f, ta, tb);
    let bits = match f.second {
        Second::Merge(Part::Byte(_)) => 8,
        Second::Merge(Part::Half(_)) => 16,
        _ => 32,
    };
    let tmp = if f.sat {
        clamp_bits(tmp, bits, f.d_signed)
    } else {
        tmp
    };
    let cx = i128::from(part(c, Part::Word, f.d_signed));
    match f.second {
        Second::Op(SubOp::Add) => (tmp + cx) as u32,
        Second::Op(SubOp::Min) => tmp.min(cx) as u32,
        Second::Op(SubOp::Max) => tmp.max(cx) as u32,
        Second::Merge(p) => merge(p, tmp as u32, c),
        _ => tmp as u32,
    }
}

/// `vmad`: `(a*b) + c` with the negations folded as the ISA describes (negating the product or
/// c, `.po` adding one), then `.shr7`/`.shr15` and `.sat`.
pub fn mad(
    f: &VForm,
    (a, asel, na): (u32, Part, bool),
    (b, bsel, nb): (u32, Part, bool),
    (c, nc): (u32, bool),
) -> u32 {
    let ta = i128::from(part(a, asel, f.a_signed));
    let tb = i128::from(part(b, bsel, f.b_signed));
    let neg_ab = na ^ nb;
    let signed = f.a_signed || f.b_signed || neg_ab || nc;
    let mut tmp = ta * tb;
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
    let c128 = i128::from(part(c, Part::Word, signed));
    let r = (tmp + c128 + lsb) >> f.shift;
    let r = if f.sat { clamp_bits(r, 32, signed) } else { r };
    r as u32
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
pub fn simd(f: &VForm, a: u32, asel: VSel, b: u32, bsel: VSel, c: u32) -> u32 {
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
        let t = primary(f, ta, tb);
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

/// One video instruction for every active lane.
pub fn exec(cx: &mut Ctx<'_, '_>) -> Res<()> {
    let f = video::form(cx.ins.op, &cx.ins.mods, cx.ops)
        .map_err(|why| fault(FaultKind::Unsupported, format!("video instruction: {why}")))?;
    let sel = |k: usize| cx.ops.get(k).map(video::sel_of).unwrap_or_default();
    let (sa, sb, sc) = (sel(1), sel(2), sel(3));
    let part_of = |s: VSel| video::scalar_part(s).unwrap_or(Part::Word);
    let Some(&(Operand::Reg(dst) | Operand::VReg(dst, _))) = cx.ops.first() else {
        return Err(fault(
            FaultKind::Unsupported,
            "video instruction without a register result",
        ));
    };
    for lane in lanes(cx.active) {
        let a = raw(cx, 1, lane);
        let b = raw(cx, 2, lane);
        let c = raw(cx, 3, lane);
        let d = match (f.op, f.width) {
            (VOp::Mad, _) => mad(
                &f,
                (a, part_of(sa), sa.negated()),
                (b, part_of(sb), sb.negated()),
                (c, sc.negated()),
            ),
            (_, 1) => scalar(&f, a, part_of(sa), b, part_of(sb), c),
            _ => simd(&f, a, sa, b, sb, c),
        };
        cx.set_reg(dst, lane, u64::from(d));
    }
    Ok(())
}

/// Operand `k` as 32 bits, without the negation a `NegReg` would apply (video operands carry it
/// as a flag).
fn raw(cx: &Ctx<'_, '_>, k: usize, lane: usize) -> u32 {
    match cx.ops.get(k) {
        Some(&Operand::NegReg(r)) => cx.reg(r, lane) as u32,
        _ => cx.src(k, lane, Type::U32) as u32,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

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
        assert_eq!(merge(Part::Half(1), 0x1234_5678, 0xaabb_ccdd), 0x5678_ccdd);
    }
}
