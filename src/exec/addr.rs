//! Addresses and the memory an instruction reaches (PTX ISA 9.0 sections 5.1 "State Spaces",
//! 6.4 "Addresses as Operands", 9.7.9.x the generic-address rules of `ld`/`st`/`cvta`): an
//! address operand's value, the state space and CTA it lands in ([`Target`]), alignment and
//! bounds checks with their faults, reads and writes through a target, the shared-memory
//! location of an mbarrier or an asynchronous copy (what the checker is shown of an access is
//! `shown.rs`'s). Shared by every family that touches memory; above `ctx.rs`, below the
//! families.

use super::ctx::Ctx;
use super::fault::FaultKind;
use super::fault::{fault, Res};
use super::lanes::WARP;
use crate::ir::{AddrBase, Operand, Space, Symbol, Type};
use crate::mem::{self, Generic, MemFault, FRAME_PARAM_BASE};

/// Where one access lands.
#[derive(Debug, Clone, Copy)]
pub(crate) enum Target {
    Global(u64),
    /// The shared memory of the cluster's CTA `rank`, at an offset.
    Shared(u32, u64),
    Local(u64),
    KernelParam(u64),
    FrameParam(u64),
}

/// The address an operand names for `lane`, in the instruction's state space: a generic
/// instruction (no state space) that names a shared or local variable reaches it at its
/// generic address, as ptxas builds it (measured on an H200: `docs/launch/param-space.md`;
/// `.param` and `.const` names there are load errors, `ir/generic.rs`).
pub(crate) fn address(cx: &Ctx<'_, '_>, k: usize, lane: usize) -> u64 {
    match cx.ops.get(k) {
        Some(Operand::Addr(base, off)) => {
            let b = match *base {
                AddrBase::None => 0,
                AddrBase::Reg(r) => cx.reg(r, lane),
                AddrBase::Sym(s) => cx.sym_addr(s, lane).wrapping_add(generic_window(cx, s)),
            };
            b.wrapping_add(*off as u64)
        }
        Some(o) => cx.value(o, lane, Type::U64),
        None => 0,
    }
}

/// What a generic instruction adds to the address of variable `s` it names: the window of a
/// shared or local variable; nothing for the others or in an instruction with a state space.
fn generic_window(cx: &Ctx<'_, '_>, s: Symbol) -> u64 {
    match s {
        Symbol::Var(v) if cx.ins.mods.space.is_none() => {
            match cx.m.vars.get(v.0 as usize).map(|v| v.space) {
                Some(sp @ (Space::Shared | Space::SharedCluster | Space::Local)) => {
                    mem::cvta_window(Some(sp))
                }
                _ => 0,
            }
        }
        _ => 0,
    }
}

pub(crate) fn target(cx: &Ctx<'_, '_>, space: Option<Space>, addr: u64) -> Target {
    match space {
        Some(Space::Global | Space::Const) => Target::Global(addr),
        Some(Space::Shared) => Target::Shared(cx.rank, addr & 0xffff_ffff),
        Some(Space::SharedCluster) => {
            let (r, o) = cx.cluster_target(addr & 0xffff_ffff);
            Target::Shared(r, o)
        }
        Some(Space::Local) => Target::Local(addr),
        // A frame's `.param` addresses start at `FRAME_PARAM_BASE`; below it, a kernel
        // parameter's offset (a generic address here is out of its bounds: `read` says so).
        Some(Space::Param | Space::ParamEntry | Space::ParamFunc) => {
            match addr.checked_sub(FRAME_PARAM_BASE) {
                Some(o) if o < FRAME_PARAM_BASE => Target::FrameParam(o),
                _ => Target::KernelParam(addr),
            }
        }
        _ => match mem::classify(addr) {
            Generic::Global(a) => Target::Global(a),
            Generic::Shared(o) => {
                let (r, o) = cx.cluster_target(o);
                Target::Shared(r, o)
            }
            Generic::Local(o) => Target::Local(o),
            Generic::Param(o) => {
                let _ = cx;
                Target::KernelParam(o)
            }
        },
    }
}

pub(crate) fn describe(t: Target) -> String {
    match t {
        Target::Global(a) => format!("global {a:#x}"),
        Target::Shared(r, o) => format!("shared+{o:#x} of CTA rank {r}"),
        Target::Local(o) => format!("local+{o:#x}"),
        Target::KernelParam(o) | Target::FrameParam(o) => format!("param+{o:#x}"),
    }
}

pub(crate) fn mem_fault(e: MemFault, thread: usize) -> Box<super::fault::Fault> {
    let mut f = fault(FaultKind::Memory, e.message);
    f.linear_thread = Some(thread as u32);
    f
}

/// A CTA rank for a message; [`Ctx::to_unit`]'s out-of-range index is no rank.
pub(crate) fn rank_text(r: u32) -> String {
    if r == u32::MAX {
        "a CTA outside the cluster".into()
    } else {
        format!("CTA rank {r}")
    }
}

pub(crate) fn no_cta(cx: &Ctx<'_, '_>, r: u32) -> MemFault {
    MemFault {
        message: format!(
            "shared::cluster access to {}, but the cluster has {} CTAs",
            rank_text(r),
            cx.cluster_ctas()
        ),
    }
}

pub(crate) fn read(
    cx: &Ctx<'_, '_>,
    t: Target,
    lane: usize,
    out: &mut [u8],
) -> Result<(), MemFault> {
    let n = out.len();
    if let Target::Local(o) = t {
        return cx.local[lane].read(o, out);
    }
    let src: &[u8] = match t {
        Target::Global(a) => cx.global.read(a, n)?,
        Target::Shared(r, o) => match cx.smem.get(r as usize) {
            Some(s) => mem::slice(&s.bytes, "shared", o, n)?,
            None => return Err(no_cta(cx, r)),
        },
        Target::Local(_) => unreachable!("read above"),
        Target::KernelParam(o) if matches!(mem::classify(o), Generic::Param(_)) => {
            return Err(MemFault {
                message: format!(
                    "a `.param` access at the generic address {o:#x}: `cvta.to.param` gives the \
                     kernel parameter's `.param` address (undefined; an H200 returned zeros when measured)"
                ),
            })
        }
        Target::KernelParam(o) => mem::slice(cx.kparams, "kernel parameter", o, n)?,
        Target::FrameParam(o) => {
            let size = cx.frame.param_size;
            let region = &cx.frame.params[lane * size..(lane + 1) * size];
            mem::slice(region, "parameter", o, n)?
        }
    };
    out.copy_from_slice(src);
    Ok(())
}

pub(crate) fn write(
    cx: &mut Ctx<'_, '_>,
    t: Target,
    lane: usize,
    data: &[u8],
) -> Result<(), MemFault> {
    let n = data.len();
    if let Target::Local(o) = t {
        let before = cx.local[lane].made();
        cx.local[lane].write(o, data)?;
        let made = cx.local[lane].made() - before;
        if made > 0 {
            // Going over stops the run at its next look at the meter.
            cx.meter
                .charge((made * crate::mem::local::PAGE) as u64, || {
                    "local memory".to_string()
                });
        }
        return Ok(());
    }
    let dst: &mut [u8] = match t {
        Target::Global(a) => cx.global.write(a, n)?,
        Target::Shared(r, o) => {
            if cx.smem.get(r as usize).is_none() {
                return Err(no_cta(cx, r));
            }
            mem::slice_mut(&mut cx.smem[r as usize].bytes, "shared", o, n)?
        }
        Target::Local(_) => unreachable!("written above"),
        Target::KernelParam(_) => {
            return Err(MemFault {
                message: "store to the read-only kernel parameter space".into(),
            })
        }
        Target::FrameParam(o) => {
            let size = cx.frame.param_size;
            let region = &mut cx.frame.params[lane * size..(lane + 1) * size];
            mem::slice_mut(region, "parameter", o, n)?
        }
    };
    dst.copy_from_slice(data);
    Ok(())
}

pub(crate) fn thread_of(cx: &Ctx<'_, '_>, lane: usize) -> usize {
    cx.warp_index as usize * WARP + lane
}

pub(crate) fn check_align(
    cx: &Ctx<'_, '_>,
    addr: u64,
    size: u64,
    lane: usize,
    t: Target,
) -> Res<()> {
    check_peer_alive(cx, t, lane)?;
    if !addr.is_multiple_of(size) {
        let mut f = fault(
            FaultKind::Misaligned,
            format!(
                "misaligned {size}-byte access at {} (address {addr:#x})",
                describe_with(cx, t)
            ),
        );
        f.linear_thread = Some(thread_of(cx, lane) as u32);
        return Err(f);
    }
    Ok(())
}

/// A CTA's shared memory exists only while the CTA runs (PTX ISA 9.0 5.1.5.1 "Shared State
/// Space": distributed shared memory is accessible while the owning CTA is active); the H100
/// fails the launch when a peer accesses it after the CTA exited. Faults with the contract's
/// `dsmem-access-after-exit` for an access of `t` in an exited peer CTA.
pub(crate) fn check_peer_alive(cx: &Ctx<'_, '_>, t: Target, lane: usize) -> Res<()> {
    let Target::Shared(r, o) = t else {
        return Ok(());
    };
    if r == cx.rank || !cx.smem.get(r as usize).is_some_and(|s| s.exited) {
        return Ok(());
    }
    let mut f = fault(
        FaultKind::Hazard(crate::check::HazardKind::DsmemAccessAfterExit),
        format!(
            "access to shared+{o:#x} of CTA rank {r}, which has exited: its shared memory no longer exists (the H100 fails the launch); keep every CTA of the cluster running until its peers are done with its shared memory (barrier.cluster.arrive + wait, cluster.sync(), before it exits)"
        ),
    );
    f.linear_thread = Some(thread_of(cx, lane) as u32);
    Err(f)
}

/// A fault for an access by the current instruction at `addr`, which resolved to `t`, a space
/// the instruction does not operate on (`allowed` names those it does). Atomics take global or
/// shared memory only (PTX ISA 9.0 `atom`/`red`: a generic address must fall within .global or
/// .shared), `ldmatrix`/`stmatrix` shared only; anything else is undefined behaviour, which the
/// H100 reports as an illegal address.
pub(crate) fn wrong_space(
    cx: &Ctx<'_, '_>,
    addr: u64,
    t: Target,
    lane: usize,
    allowed: &str,
) -> Box<super::fault::Fault> {
    let space = match t {
        Target::Global(_) => "global",
        Target::Shared(..) => "shared",
        Target::Local(_) => "local",
        Target::KernelParam(_) | Target::FrameParam(_) => "parameter",
    };
    let name = crate::ir::print_opcode(cx.func, cx.pc);
    let mut f = fault(
        FaultKind::Memory,
        format!(
            "`{name}` at address {addr:#x}, which is {space} memory ({}): it operates on {allowed} only",
            describe(t)
        ),
    );
    f.linear_thread = Some(thread_of(cx, lane) as u32);
    f
}

pub(crate) fn describe_with(cx: &Ctx<'_, '_>, t: Target) -> String {
    match t {
        Target::Global(a) => cx.global.describe(a),
        other => describe(other),
    }
}

/// The element registers of the data operand `k` (a register or a `{...}` vector).
pub(crate) fn elems<'m>(cx: &Ctx<'_, 'm>, k: usize) -> &'m [Operand] {
    let (func, ops) = (cx.func, cx.ops);
    match ops.get(k) {
        Some(Operand::Vector(r)) => func.sub_ops(*r),
        Some(o) => std::slice::from_ref(o),
        None => &[],
    }
}

/// A fault of kind `kind` at lane `lane` of the executing group, naming its thread.
pub(crate) fn lane_fault(
    cx: &Ctx<'_, '_>,
    lane: usize,
    kind: FaultKind,
    msg: String,
) -> Box<super::fault::Fault> {
    let mut f = fault(kind, msg);
    f.linear_thread = Some(thread_of(cx, lane) as u32);
    f
}

/// A shared-memory address of `space` (`.shared::cta`/`.shared::cluster`) as (rank, offset),
/// checked against the CTA's shared memory for `len` bytes.
pub(crate) fn shared_loc(
    cx: &Ctx<'_, '_>,
    space: Option<Space>,
    addr: u64,
    len: u64,
    lane: usize,
) -> Res<(u32, u64)> {
    let t = match space {
        Some(Space::Shared | Space::SharedCluster) => target(cx, space, addr),
        _ => match mem::classify(addr) {
            Generic::Shared(_) => target(cx, None, addr),
            _ => {
                return Err(lane_fault(
                    cx,
                    lane,
                    FaultKind::Memory,
                    format!("{addr:#x} is not a shared-memory address"),
                ))
            }
        },
    };
    check_peer_alive(cx, t, lane)?;
    let Target::Shared(r, o) = t else {
        unreachable!("shared targets only")
    };
    let size = cx.smem.get(r as usize).map(|s| s.bytes.len() as u64);
    match size {
        Some(n) if o.checked_add(len).is_some_and(|e| e <= n) => Ok((r, o)),
        Some(n) => Err(lane_fault(
            cx,
            lane,
            FaultKind::Memory,
            format!("{len}-byte asynchronous access at shared+{o:#x} of CTA rank {} is outside its {n} bytes", cx.to_real(r)),
        )),
        None => Err(lane_fault(
            cx,
            lane,
            FaultKind::Memory,
            format!(
                "{} is not in the cluster ({} CTAs)",
                rank_text(r),
                cx.cluster_ctas()
            ),
        )),
    }
}
