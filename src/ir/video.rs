//! The forms of the video instructions (PTX ISA 9.0 section 9.7.16): the scalar `vadd`, `vsub`,
//! `vabsdiff`, `vmin`, `vmax`, `vshl`, `vshr`, `vmad`, `vset` (9.7.16.1) and the SIMD `vadd2` ..
//! `vset2` and `vadd4` .. `vset4` (9.7.16.2-3). [`form`] reads an instruction's modifiers and
//! operands into a [`VForm`] or says, as ptxas 13 does for sm_90a, why it is no form: operand
//! counts, which operand may carry which selector (`%r2.b1`, `%r2.h10`, `%r2.b7654`, a
//! destination mask `%r4.b320`), negation, `.sat` with `.add`, `vshl`'s required `.clamp` or
//! `.wrap`. A selector is kept in the operand as a [`VSel`]; the arithmetic is `exec::video`.

use super::mods::{Cmp, Flags, Mods, SubOp};
use super::opcode::Op;
use super::types::Type;
use super::Operand;

/// An operand's selector as written: up to four digits after `b` or `h`, plus negation.
/// Bits 0..12: digit `i` (in written order) at bits `3i..3i+3`; 12..15: digit count (0: none);
/// 15: `h` (else `b`); 16: negated (`-%r1.b0`).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub struct VSel(pub u32);

impl VSel {
    pub const NEG: VSel = VSel(1 << 16);

    /// `b1`, `h10`, `b7654`: a letter and one to four digits 0..7.
    pub fn parse(s: &str) -> Option<VSel> {
        let (half, digits) = match s.as_bytes().split_first()? {
            (b'b', d) => (false, d),
            (b'h', d) => (true, d),
            _ => return None,
        };
        if digits.is_empty()
            || digits.len() > 4
            || !digits.iter().all(|d| (b'0'..=b'7').contains(d))
        {
            return None;
        }
        let mut v = (digits.len() as u32) << 12 | u32::from(half) << 15;
        for (i, d) in digits.iter().enumerate() {
            v |= u32::from(d - b'0') << (3 * i);
        }
        Some(VSel(v))
    }

    pub fn negated(self) -> bool {
        self.0 & Self::NEG.0 != 0
    }

    pub fn with_neg(self) -> VSel {
        VSel(self.0 | Self::NEG.0)
    }

    /// The digits in written order, empty when there is no selector.
    pub fn digits(self) -> Vec<u8> {
        let n = (self.0 >> 12) & 7;
        (0..n).map(|i| ((self.0 >> (3 * i)) & 7) as u8).collect()
    }

    pub fn is_half(self) -> bool {
        self.0 & (1 << 15) != 0
    }

    /// Whether a selector is written (negation aside).
    pub fn present(self) -> bool {
        (self.0 >> 12) & 7 != 0
    }

    /// The selector as written (`.b1`), empty when none.
    pub fn text(self) -> String {
        if !self.present() {
            return String::new();
        }
        let d: String = self.digits().iter().map(|d| char::from(b'0' + d)).collect();
        format!(".{}{d}", if self.is_half() { 'h' } else { 'b' })
    }
}

/// A part of a 32-bit word that a scalar selector names.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Part {
    Word,
    Byte(u8),
    Half(u8),
}

/// The operation of a video instruction.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum VOp {
    Add,
    Sub,
    Absdiff,
    Min,
    Max,
    Avrg,
    Shl,
    Shr,
    Mad,
    Set(Cmp),
}

/// What follows the main operation.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Second {
    /// `d, a, b` (or `d, a, b, c` with neither `.op2` nor a destination selector).
    None,
    /// Scalar `.add`/`.min`/`.max` with c; SIMD `.add` (accumulate).
    Op(SubOp),
    /// Scalar `d.dsel, a, b, c`: the part of c the result replaces.
    Merge(Part),
    /// SIMD merge: the mask of elements written (bit i: element i), the others from c.
    Mask(u8),
    /// SIMD `.add`: c plus the masked elements.
    Accumulate(u8),
}

/// One decoded video instruction.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct VForm {
    pub op: VOp,
    /// 1 (scalar), 2 or 4 (SIMD elements).
    pub width: u8,
    pub d_signed: bool,
    pub a_signed: bool,
    pub b_signed: bool,
    pub sat: bool,
    pub second: Second,
    /// `vshl`/`vshr`: `.clamp` (else `.wrap`).
    pub clamp: bool,
    /// `vmad`: `.shr7`/`.shr15` (0 when none) and `.po`.
    pub shift: u8,
    pub po: bool,
}

/// Whether `op` is a video instruction.
pub fn is_video(op: Op) -> bool {
    kind(op, Some(Cmp::Eq)).is_some()
}

/// The operation and width (1, 2 or 4 elements) of a video opcode; `vset`s need their comparison.
fn kind(op: Op, cmp: Option<Cmp>) -> Option<(VOp, u8)> {
    use Op::*;
    let set = |c: Option<Cmp>| c.map(VOp::Set);
    Some(match op {
        Vadd => (VOp::Add, 1),
        Vsub => (VOp::Sub, 1),
        Vabsdiff => (VOp::Absdiff, 1),
        Vmin => (VOp::Min, 1),
        Vmax => (VOp::Max, 1),
        Vshl => (VOp::Shl, 1),
        Vshr => (VOp::Shr, 1),
        Vmad => (VOp::Mad, 1),
        Vset => (set(cmp)?, 1),
        Vadd2 => (VOp::Add, 2),
        Vsub2 => (VOp::Sub, 2),
        Vavrg2 => (VOp::Avrg, 2),
        Vabsdiff2 => (VOp::Absdiff, 2),
        Vmin2 => (VOp::Min, 2),
        Vmax2 => (VOp::Max, 2),
        Vset2 => (set(cmp)?, 2),
        Vadd4 => (VOp::Add, 4),
        Vsub4 => (VOp::Sub, 4),
        Vavrg4 => (VOp::Avrg, 4),
        Vabsdiff4 => (VOp::Absdiff, 4),
        Vmin4 => (VOp::Min, 4),
        Vmax4 => (VOp::Max, 4),
        Vset4 => (set(cmp)?, 4),
        _ => return None,
    })
}

/// An operand's register selector (none for immediates and plain registers).
pub fn sel_of(o: &Operand) -> VSel {
    match *o {
        Operand::VReg(_, s) => s,
        Operand::NegReg(_) => VSel::NEG,
        _ => VSel::default(),
    }
}

/// The part a scalar selector names (`b0`..`b3`, `h0`, `h1`), `Word` when none.
pub fn scalar_part(s: VSel) -> Option<Part> {
    if !s.present() {
        return Some(Part::Word);
    }
    match (s.is_half(), s.digits().as_slice()) {
        (false, [d @ 0..=3]) => Some(Part::Byte(*d)),
        (true, [d @ 0..=1]) => Some(Part::Half(*d)),
        _ => None,
    }
}

/// A SIMD destination mask (`.h0`, `.h1`, `.h10`; `.b0` .. `.b3210`: distinct digits, highest
/// first) as element bits; all elements when none.
fn simd_mask(s: VSel, width: u8) -> Option<u8> {
    if !s.present() {
        return Some(if width == 2 { 0b11 } else { 0b1111 });
    }
    let d = s.digits();
    let top = if width == 2 { 1 } else { 3 };
    let ok = s.is_half() == (width == 2)
        && d.iter().all(|&x| x <= top)
        && d.windows(2).all(|w| w[0] > w[1]);
    ok.then(|| d.iter().fold(0u8, |m, &x| m | 1 << x))
}

/// A SIMD source selector: `.hxy` (x, y in 0..3) for two elements, `.bxyzw` (0..7) for four.
fn simd_source_ok(s: VSel, width: u8) -> bool {
    let d = s.digits();
    !s.present()
        || (s.is_half() == (width == 2)
            && d.len() == usize::from(width)
            && d.iter().all(|&x| x < 2 * width))
}

fn typ(t: Option<Type>) -> Result<bool, String> {
    match t {
        Some(Type::U32) => Ok(false),
        Some(Type::S32) => Ok(true),
        Some(t) => Err(format!("its types are `.u32` or `.s32`, not `{t}`")),
        None => Err("it needs its types (`.u32` or `.s32`)".into()),
    }
}

/// The sub-operation words of a video instruction, by kind.
struct Subs {
    op2: Option<SubOp>,
    mode: Option<SubOp>,
    shift: u8,
    po: bool,
}

fn subs(mods: &Mods) -> Result<Subs, String> {
    let mut s = Subs {
        op2: None,
        mode: None,
        shift: 0,
        po: false,
    };
    for w in [mods.sub, mods.sub2].into_iter().flatten() {
        let twice = match w {
            SubOp::Add | SubOp::Min | SubOp::Max => s.op2.replace(w).is_some(),
            SubOp::Clamp | SubOp::Wrap => s.mode.replace(w).is_some(),
            SubOp::Shr7 => std::mem::replace(&mut s.shift, 7) != 0,
            SubOp::Shr15 => std::mem::replace(&mut s.shift, 15) != 0,
            _ => std::mem::replace(&mut s.po, true),
        };
        if twice {
            return Err("a modifier of the same kind is written twice".into());
        }
    }
    Ok(s)
}

/// The types: three (d, a, b) or, for `vset`, two (a, b; d is unsigned), each `.u32`/`.s32`.
fn types(mods: &Mods, is_set: bool) -> Result<(bool, bool, bool), String> {
    let n = if is_set { 2 } else { 3 };
    if mods.type_count() != n {
        return Err(format!("it takes {n} types"));
    }
    let t = |i: usize| typ(mods.types[i]);
    Ok(if is_set {
        (false, t(0)?, t(1)?)
    } else {
        (t(0)?, t(1)?, t(2)?)
    })
}

/// Decodes a video instruction, or says why ptxas rejects it.
pub fn form(op: Op, mods: &Mods, ops: &[Operand]) -> Result<VForm, String> {
    let (vop, width) = kind(op, mods.cmp).ok_or("it needs a comparison (`.eq` .. `.ge`)")?;
    if let Some(c) = mods.cmp {
        if !matches!(c, Cmp::Eq | Cmp::Ne | Cmp::Lt | Cmp::Le | Cmp::Gt | Cmp::Ge) {
            return Err(format!("`{c}` is not a comparison of video instructions"));
        }
    }
    let is_set = matches!(vop, VOp::Set(_));
    let (d_signed, a_signed, b_signed) = types(mods, is_set)?;
    let sat = mods.has(Flags::SAT);
    let sub = subs(mods)?;
    if sub.mode.is_some() && !matches!(vop, VOp::Shl | VOp::Shr) {
        return Err("`.clamp`/`.wrap` belong to `vshl` and `vshr`".into());
    }
    if (sub.shift != 0 || sub.po) && vop != VOp::Mad {
        return Err("`.shr7`, `.shr15` and `.po` belong to `vmad`".into());
    }
    if is_set && sat {
        return Err("`.sat` is not a modifier of comparisons".into());
    }
    let srcs_ok = ops.iter().skip(1).all(|o| {
        matches!(
            o,
            Operand::Reg(_) | Operand::VReg(..) | Operand::NegReg(_) | Operand::Imm(_)
        )
    });
    if ops.len() < 3 || !matches!(ops[0], Operand::Reg(_) | Operand::VReg(..)) || !srcs_ok {
        return Err("its operands are 32-bit registers or integer constants".into());
    }
    let sels: Vec<VSel> = ops.iter().map(sel_of).collect();
    if vop != VOp::Mad && sels.iter().any(|s| s.negated()) {
        return Err("it takes no negated operand".into());
    }
    if sels[0].negated() || sels.get(3).is_some_and(|s| s.present()) {
        return Err("the destination is not negated and c takes no selector".into());
    }
    let mut f = VForm {
        op: vop,
        width,
        d_signed,
        a_signed,
        b_signed,
        sat,
        second: Second::None,
        clamp: sub.mode == Some(SubOp::Clamp),
        shift: sub.shift,
        po: sub.po,
    };
    if width == 1 {
        scalar_form(&mut f, sub.op2, sub.mode, &sels)?;
    } else {
        simd_form(&mut f, sub.op2, &sels, ops)?;
    }
    Ok(f)
}

fn scalar_form(
    f: &mut VForm,
    op2: Option<SubOp>,
    mode: Option<SubOp>,
    sels: &[VSel],
) -> Result<(), String> {
    let n = sels.len();
    if sels[1..3].iter().any(|s| scalar_part(*s).is_none()) {
        return Err("a scalar source selector is `.b0`..`.b3`, `.h0` or `.h1`".into());
    }
    let dsel =
        scalar_part(sels[0]).ok_or("a destination selector is `.b0`..`.b3`, `.h0` or `.h1`")?;
    if f.op == VOp::Mad {
        if n != 4 || op2.is_some() || sels[0].present() {
            return Err("`vmad` is `d, {-}a{.asel}, {-}b{.bsel}, {-}c`".into());
        }
        if f.po && sels.iter().any(|s| s.negated()) {
            return Err("`.po` takes no negated operand".into());
        }
        if (sels[1].negated() ^ sels[2].negated()) && sels[3].negated() {
            return Err("negation is of a xor b, or of c, not both".into());
        }
        return Ok(());
    }
    if matches!(f.op, VOp::Shl | VOp::Shr) {
        if mode.is_none() {
            return Err("`vshl`/`vshr` need one of `.clamp`, `.wrap`".into());
        }
        if f.b_signed {
            return Err("the shift count's type is `.u32`".into());
        }
    }
    f.second = match (n, op2, dsel) {
        (3, None, Part::Word) | (4, None, Part::Word) => Second::None,
        (4, Some(o), Part::Word) => Second::Op(o),
        (4, None, p) => Second::Merge(p),
        (3, _, Part::Word) => return Err("a secondary operation needs c".into()),
        (3, _, _) => return Err("a destination selector needs c".into()),
        (4, Some(_), _) => {
            return Err(
                "a destination selector and a secondary operation exclude each other".into(),
            )
        }
        _ => return Err(format!("it takes 3 or 4 operands, found {n}")),
    };
    Ok(())
}

fn simd_form(
    f: &mut VForm,
    op2: Option<SubOp>,
    sels: &[VSel],
    ops: &[Operand],
) -> Result<(), String> {
    if ops.len() != 4 {
        return Err(format!("it takes 4 operands, found {}", ops.len()));
    }
    if ops[1..].iter().any(|o| matches!(o, Operand::Imm(_))) {
        return Err("its sources are registers".into());
    }
    if !simd_source_ok(sels[1], f.width) || !simd_source_ok(sels[2], f.width) {
        return Err(if f.width == 2 {
            "a source selector is `.hxy`, x and y in 0..3".into()
        } else {
            "a source selector is `.bxyzw`, each digit in 0..7".into()
        });
    }
    let mask = simd_mask(sels[0], f.width).ok_or(if f.width == 2 {
        "the destination mask is `.h0`, `.h1` or `.h10`"
    } else {
        "the destination mask is `.b0` .. `.b3210` (distinct digits, highest first)"
    })?;
    f.second = match op2 {
        None => Second::Mask(mask),
        Some(SubOp::Add) if f.sat => return Err("`.sat` and `.add` exclude each other".into()),
        Some(SubOp::Add) => Second::Accumulate(mask),
        Some(o) => {
            return Err(format!(
                "`.{}` is no secondary operation of SIMD video instructions",
                o.name()
            ))
        }
    };
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn selectors_round_trip() {
        for s in ["b0", "h1", "h10", "b7654", "b3210", "h03"] {
            assert_eq!(VSel::parse(s).unwrap().text(), format!(".{s}"));
        }
        assert!(VSel::parse("b8").is_none() && VSel::parse("x").is_none());
        assert!(VSel::parse("b01234").is_none());
        assert!(!VSel::default().present());
        assert_eq!(VSel::parse("b320").unwrap().digits(), vec![3, 2, 0]);
    }

    #[test]
    fn masks_are_descending() {
        let m = |s: &str, w| simd_mask(VSel::parse(s).unwrap(), w);
        assert_eq!(m("b320", 4), Some(0b1101));
        assert_eq!(m("b01", 4), None);
        assert_eq!(m("h10", 2), Some(0b11));
        assert_eq!(m("h01", 2), None);
        assert_eq!(m("h2", 2), None);
    }
}
