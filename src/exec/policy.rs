//! `createpolicy` (PTX ISA 9.0, "Data Movement and Conversion Instructions: createpolicy"):
//! each lane's 64-bit L2 eviction policy, with the H100's bits (`ir::policy`, decoded when the
//! module loaded). The range form
//! stops as `unsupported`: its encoding of the address window was not modelled.

use super::ctx::Ctx;
use super::fault::FaultKind;
use super::fault::{fault, Res};
use super::lanes::lanes;
use crate::ir::policy::{fractional, Policy};
use crate::ir::Type;

pub(super) fn exec(cx: &mut Ctx<'_, '_>) -> Res<()> {
    let text = cx.func.srcs[cx.pc as usize].raw.as_deref().unwrap_or("");
    // Lowering refuses a `createpolicy` its words do not decode (`ir::createpolicy-form`), so
    // the error is the table's defect, not the kernel's: it stops the run, naming it.
    let policy = cx.func.form(cx.pc).policy().map_err(|why| {
        fault(
            FaultKind::Unsupported,
            format!("`{text}` is not supported by ptxrun: {why}"),
        )
    })?;
    for lane in lanes(cx.active) {
        let v = match policy {
            Policy::Fractional { top } => {
                let one = 1.0f32.to_bits();
                let f = if cx.ops.len() > 1 {
                    cx.src(1, lane, Type::F32) as u32
                } else {
                    one
                };
                fractional(top, f)
            }
            Policy::Cvt => cx.src(1, lane, Type::B64),
            Policy::Range => {
                return Err(fault(
                    FaultKind::Unsupported,
                    format!(
                        "`{text}` is not supported by ptxrun yet: the H100's encoding of a \
                         range-based policy's address window was not modelled (the \
                         fractional and cvt forms are)"
                    ),
                ))
            }
        };
        cx.dst(0, lane, v);
    }
    Ok(())
}
