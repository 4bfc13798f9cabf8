//! The video instructions over the active lanes (PTX ISA 9.0 section 9.7.16): the form,
//! decoded when the module loaded (`ir::video`), is read from the function's form table, routed once per execution ([`Kind`]), and each lane computed by the
//! pure functions of `sem/video.rs`, which model what the H100 was measured to give.

use super::ctx::Ctx;
use super::fault::FaultKind;
use super::fault::{fault, Res};
use super::lanes::lanes;
use crate::ir::video::{self, Part, VSel};
use crate::ir::{Op, Operand, Type};
use crate::sem::video::{one, Kind};

pub fn handles(op: Op) -> bool {
    video::is_video(op)
}

/// One video instruction for every active lane.
pub fn exec(cx: &mut Ctx<'_, '_>) -> Res<()> {
    let f = *(cx.func.form(cx.pc).video())
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
    // An immediate past 32 bits loads (ptxas takes it) but what ptxas makes of it is unmeasured.
    if let Some(Operand::Imm(v)) = cx.ops.iter().skip(1).find(
        |o| matches!(o, Operand::Imm(v) if !(i64::from(i32::MIN)..=i64::from(u32::MAX)).contains(v)),
    ) {
        return Err(fault(
            FaultKind::Unsupported,
            format!("video instruction with the immediate {v}, wider than 32 bits"),
        ));
    }
    let kind = Kind::of(f.op).ok_or_else(|| {
        fault(
            FaultKind::Unsupported,
            format!("video instruction: the comparison of {:?}", f.op),
        )
    })?;
    for lane in lanes(cx.active) {
        let a = raw(cx, 1, lane);
        let b = raw(cx, 2, lane);
        let c = raw(cx, 3, lane);
        let d = one(&f, kind, [(a, sa), (b, sb), (c, sc)], part_of);
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
