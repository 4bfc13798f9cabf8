//! `cvt` and `cvt.pack` over the active lanes (PTX ISA 9.0 sections 9.7.9.21-22): the form,
//! decoded from the modifiers when the module loaded (`ir::cvt`), is read from the function's
//! form table, each lane's value converted by the pure functions of `sem/cvt.rs`
//! (integer widening and narrowing, int/float conversions with every rounding mode, the packed
//! half and 8-bit forms), and a form ptxrun does not run yet is refused by name.

use super::ctx::Ctx;
use super::fault::fault;
use super::fault::FaultKind;
use super::fault::Res;
use super::lanes::lanes;
use crate::ir::cvt::{CvtError, CvtForm};
use crate::ir::Type;
pub(super) use crate::sem::cvt::apply;
use crate::sem::cvt::pack as pack_lane;

pub fn exec(cx: &mut Ctx<'_, '_>) -> Res<()> {
    let mods = cx.ins.mods;
    if cx.ins.op == crate::ir::Op::CvtPack {
        return pack(cx);
    }
    let form = match cx.func.form(cx.pc).cvt() {
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

/// `cvt.pack.sat.u8.s32.b32 d, a, b, c` and the 16-bit forms: saturate a and b to the narrow type
/// and pack them above the low bits of c.
fn pack(cx: &mut Ctx<'_, '_>) -> Res<()> {
    let mods = cx.ins.mods;
    let (Some(dt), Some(st)) = (mods.types[0], mods.types[1]) else {
        return Ok(());
    };
    let has_c = cx.ops.len() >= 4;
    for lane in lanes(cx.active) {
        let (a, b) = (cx.src(1, lane, st), cx.src(2, lane, st));
        let c = has_c.then(|| cx.src(3, lane, Type::B32));
        cx.dst(0, lane, pack_lane(a, b, c, st, dt));
    }
    Ok(())
}
