//! Fences and the instructions that are hints to the hardware (PTX ISA 9.0 sections 9.7.13.4
//! `membar`/`fence`, including the proxy fences `fence.proxy.async`, `fence.proxy.tensormap`,
//! `fence.mbarrier_init`; 9.7.13.x `nanosleep`, `pmevent`, `griddepcontrol`, `discard`,
//! `applypriority`). Nothing changes in memory: a fence orders the executing thread's accesses
//! for the happens-before checker, and the proxy fences are recorded in the trace.

use super::addr::address;
use super::ctx::Ctx;
use super::fault::Res;
use super::park::record;
use crate::ir::Op::*;
use crate::trace::What;

/// A fence or hint executed by the lanes of `cx`.
pub(crate) fn exec(cx: &mut Ctx<'_, '_>) -> Res<()> {
    let ins = cx.ins;
    let (rank, warp) = (cx.rank, cx.warp_index);
    use crate::ir::mods::Sem;
    if ins.op == FenceProxyTensormap && ins.mods.sem == Some(Sem::Acquire) {
        // fence.proxy.tensormap::generic.acquire [addr], size: the user of a
        // tensor map acquires those bytes for the tensor-map proxy.
        let lane = cx.active.trailing_zeros().min(31) as usize;
        let a = address(cx, 0, lane);
        let size = cx
            .ops
            .get(1)
            .map_or(128, |o| cx.value(o, lane, crate::ir::Type::U32));
        let g = match crate::mem::classify(a) {
            crate::mem::Generic::Global(g) => g,
            _ => a,
        };
        if let Some(hb) = cx.hb.as_mut() {
            hb.tensormap_acquire(rank, warp, g, size);
        }
    }
    if let Some(hb) = cx.hb.as_mut() {
        use super::hazard::{FENCE_GLOBAL, FENCE_SHARED};
        use crate::ir::Space;
        match ins.op {
            // fence.mbarrier_init.release.cluster releases prior mbarrier.init
            // (CUTLASS: init, this fence, then a relaxed cluster barrier).
            // An acquire-only fence releases nothing (reads acquire anyway).
            Fence if ins.mods.sem == Some(Sem::Acquire) => {}
            Membar | Fence | FenceMbarrierInit => {
                hb.warp(rank, warp).fence(super::scopes::of(&ins))
            }
            // fence.proxy.tensormap::generic.{release,acquire}: the writer of
            // a tensor map releases it to the tensor-map proxy, its user
            // acquires the 128 bytes at an address.
            FenceProxyTensormap if ins.mods.sem != Some(Sem::Acquire) => {
                hb.tensormap_release(rank, warp)
            }
            FenceProxyAsync => {
                let spaces = match ins.mods.space {
                    Some(Space::Shared | Space::SharedCluster) => FENCE_SHARED,
                    Some(Space::Global) => FENCE_GLOBAL,
                    _ => FENCE_SHARED | FENCE_GLOBAL,
                };
                hb.proxy_fence(rank, warp, spaces);
            }
            // fence.proxy.async::generic.{release,acquire}: a proxy fence that
            // also releases (or acquires) like an ordinary fence.
            FenceProxyAsyncGeneric => {
                hb.warp(rank, warp).fence(super::scopes::of(&ins));
                hb.proxy_fence(rank, warp, FENCE_SHARED | FENCE_GLOBAL);
            }
            _ => {}
        }
    }
    if matches!(
        ins.op,
        FenceProxyAsync | FenceProxyAsyncGeneric | FenceMbarrierInit | FenceProxyTensormap
    ) {
        let kind = crate::ir::print_instr(cx.m, cx.func, cx.pc);
        record(cx, What::Fence { kind });
    }
    Ok(())
}
