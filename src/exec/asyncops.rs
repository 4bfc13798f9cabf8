//! Asynchronous copies (PTX ISA 9.0 section 9.7.9.25): non-bulk `cp.async` with its async-groups
//! (`commit_group`, `wait_group`, `wait_all`, `cp.async.mbarrier.arrive`), bulk copies and
//! reductions (`cp.async.bulk`, `cp.reduce.async.bulk`, 9.7.9.25.4) with bulk groups
//! (9.7.9.25.6), prefetches, and the remote `st.async`/`red.async` (9.7.9.12, 9.7.13.7);
//! tensor copies (9.7.9.25.5) are in `tensorops.rs`. Each
//! instruction becomes one transaction of the copy engine (`mem::copy`) per warp-wide issue,
//! with one piece per lane (non-bulk) or per chunk (bulk, tensor); address ranges, sizes and
//! alignment are checked here, at issue, so that a fault names the issuing instruction.

use super::addr::{address, check_align, lane_fault, mem_fault, shared_loc, thread_of, Target};
use super::ctx::Ctx;
use super::fault::FaultKind;
use super::fault::Res;
use super::hazard::CopySlot;
use super::lanes::{lanes, WARP};
use super::park::{record, Settle};
use super::warp::AsyncWait;
use super::warp::{LaneGroups, WarpAsync};
use crate::ir::mods::SubOp;
use crate::ir::{Flags, Op, Operand, Space, Type};
use crate::latency::OpClass;
use crate::mem::copy::Engine;
use crate::mem::copy::{ArriveOn, Completion, Issuer, Loc, Notice, OpId, OpSpec, Seg, Spaces};
use crate::mem::hb::Vc;
use crate::mem::{self};
use crate::trace::What;

/// Bulk copies land in pieces of this many bytes (partial data is visible to early readers).
pub(super) const CHUNK: u32 = 256;

/// Asynchronous operations and groups a thread may leave pending: operations issued since its
/// last commit or `cp.async.mbarrier.arrive`, committed groups no wait has retired, and their
/// operations. A real pipeline keeps a few stages of a few copies each; a loop that never
/// commits or waits would otherwise make ptxrun remember every copy it issued.
pub const MAX_PENDING: usize = 1024;

/// `uncommitted` lists are first pruned of completed operations at this length.
const PRUNE_AT: usize = 64;

impl LaneGroups {
    /// Operations and groups the thread leaves pending (see [`MAX_PENDING`]).
    pub(super) fn pending(&self) -> usize {
        self.untracked + self.groups.len() + self.groups.iter().map(Vec::len).sum::<usize>()
    }

    /// An operation the thread issued joins its uncommitted ones. Once the list is long, the
    /// completed ones are pruned (amortised: the next pruning waits until it doubles), so a
    /// thread that tracks its copies with `cp.async.mbarrier.arrive` and never commits keeps
    /// only what is in flight.
    fn push(&mut self, op: OpId, engine: &Engine) {
        self.uncommitted.push(op);
        self.untracked += 1;
        if self.uncommitted.len() > self.prune_at.max(PRUNE_AT) {
            prune(&mut self.uncommitted, engine);
            self.prune_at = 2 * self.uncommitted.len();
        }
    }
}

/// Drops the completed operations of a list but the newest: a thread's operations of one kind
/// complete on its warp's clocks in issue order, so the newest one's completion epochs cover
/// the others' for a wait that observes it, and whether the list is complete does not change.
fn prune(list: &mut Vec<OpId>, engine: &Engine) {
    let newest = list
        .iter()
        .copied()
        .filter(|&o| engine.is_complete(o))
        .max();
    list.retain(|&o| !engine.is_complete(o) || Some(o) == newest);
}

/// Adds an operation the executing lanes issued to their (bulk or non-bulk) uncommitted ones;
/// a lane that leaves more than [`MAX_PENDING`] operations and groups pending is a fault.
pub(super) fn track(cx: &mut Ctx<'_, '_>, op: OpId, bulk: bool) -> Res<()> {
    let active = cx.active;
    for lane in lanes(active) {
        let engine = &*cx.engine;
        let w = cx.asy.get_or_insert_with(|| Box::new(WarpAsync::default()));
        let g = if bulk {
            &mut w.bulk[lane]
        } else {
            &mut w.cp[lane]
        };
        g.push(op, engine);
        too_many(cx, lane, bulk)?;
    }
    Ok(())
}

/// The fault of a lane that leaves more than [`MAX_PENDING`] operations and groups pending.
fn too_many(cx: &mut Ctx<'_, '_>, lane: usize, bulk: bool) -> Res<()> {
    let n = groups(cx, bulk)[lane].pending();
    if n <= MAX_PENDING {
        return Ok(());
    }
    let name = cx.ins.op.name();
    let wait = if bulk {
        "cp.async.bulk.wait_group"
    } else {
        "cp.async.wait_group"
    };
    Err(lane_fault(
        cx,
        lane,
        FaultKind::Limit,
        format!("{name}: the thread has {n} asynchronous operations and groups pending (issued since its last commit_group or cp.async.mbarrier.arrive, or in committed groups no {wait} has retired); ptxrun keeps at most {MAX_PENDING} per thread"),
    ))
}

/// Who issues the current instruction, for the engine.
pub(crate) fn issuer(cx: &Ctx<'_, '_>, lanes: u32) -> Issuer {
    let (line, cuda) = cx.func.lines_at(cx.pc);
    Issuer {
        rank: cx.rank,
        cta: cx.cta,
        warp: cx.warp_index,
        lanes,
        func: cx.frame.func.0,
        pc: cx.pc,
        line,
        cuda,
    }
}

/// The (non-bulk or bulk) async-group state of the warp's lanes.
pub(super) fn groups<'a>(cx: &'a mut Ctx<'_, '_>, bulk: bool) -> &'a mut [LaneGroups; WARP] {
    let w = cx.asy.get_or_insert_with(|| Box::new(WarpAsync::default()));
    if bulk {
        &mut w.bulk
    } else {
        &mut w.cp
    }
}

/// Checks that `len` bytes at global `addr` are mapped (writable if `write`).
fn global_range(cx: &mut Ctx<'_, '_>, addr: u64, len: u64, write: bool, lane: usize) -> Res<()> {
    if len == 0 {
        return Ok(());
    }
    let r = if write {
        cx.global.write(addr, len as usize).map(|_| ())
    } else {
        cx.global.read(addr, len as usize).map(|_| ())
    };
    r.map_err(|e| mem_fault(e, thread_of(cx, lane)))
}

/// Issues `segs` as one operation, pieces starting where `pieces` says, through `staging`.
pub(super) fn issue(
    cx: &mut Ctx<'_, '_>,
    class: OpClass,
    (segs, pieces, staging): (Vec<Seg>, Vec<u32>, Vec<u8>),
    completion: Completion,
    reduce: Option<(SubOp, Type)>,
    lanes: u32,
) -> OpId {
    issue_with(
        cx,
        class,
        (segs, pieces, staging),
        completion,
        (reduce, None),
        lanes,
    )
}

/// [`issue`], for a tensor copy through an f32 map with that map's element rules.
pub(super) fn issue_with(
    cx: &mut Ctx<'_, '_>,
    class: OpClass,
    (segs, pieces, staging): (Vec<Seg>, Vec<u32>, Vec<u8>),
    completion: Completion,
    (reduce, f32): (Option<(SubOp, Type)>, Option<crate::mem::copy::F32Rules>),
    lanes: u32,
) -> OpId {
    let on_chip = segs
        .iter()
        .all(|s| !matches!(s.src, Loc::Global(_)) && !matches!(s.dst, Loc::Global(_)));
    let kind = cx.ins.op;
    let slot = match cx.hb.as_mut() {
        Some(hb) => hb.copy_slot(
            (cx.rank, cx.warp_index),
            class,
            completion == Completion::Group,
        ),
        None => CopySlot::default(),
    };
    let tx_phases = match &completion {
        Completion::Mbarrier(t) => t
            .iter()
            .map(|&(r, o, _)| {
                cx.smem
                    .get(r as usize)
                    .and_then(|s| s.mbars.get(&o))
                    .map(|b| b.phase)
            })
            .collect(),
        _ => Vec::new(),
    };
    let spec = OpSpec {
        class,
        kind,
        segs,
        pieces,
        staging,
        completion,
        reduce,
        f32,
        issuer: issuer(cx, lanes),
        on_chip,
        tx_phases,
        slot,
    };
    let now = cx.clock;
    let op = cx.engine.issue(spec, now, cx.trace, cx.global);
    let site = cx.site(lanes.trailing_zeros().min(31) as usize);
    if let Some(hb) = cx.hb.as_mut() {
        hb.op_issue(&*cx.engine, &*cx.global, op, site, lanes);
    }
    op
}

/// `cp.async.ca|cg.shared{::cta}.global [dst], [src], cp-size{, src-size | ignore-src}{, policy}`.
pub(super) fn cp_async(cx: &mut Ctx<'_, '_>) -> Res<Settle> {
    let nops = cx.ops.len() - usize::from(cx.ins.mods.has(Flags::CACHE_HINT));
    let mut segs = Vec::new();
    let mut pieces = Vec::new();
    let mut stage = 0u32;
    for lane in lanes(cx.active) {
        let dst = address(cx, 0, lane);
        let src = address(cx, 1, lane);
        let cp = cx.src(2, lane, Type::U32) as u32;
        if !matches!(cp, 4 | 8 | 16) {
            return Err(lane_fault(
                cx,
                lane,
                FaultKind::Trap,
                format!("cp.async copies 4, 8 or 16 bytes, not {cp}"),
            ));
        }
        let n = if nops >= 4 {
            match cx.ops[3] {
                Operand::Reg(r) if cx.func.regs[r.0 as usize].ty == Type::Pred => {
                    if cx.reg(r, lane) != 0 {
                        0
                    } else {
                        cp
                    }
                }
                Operand::NotPred(r) => {
                    if cx.reg(r, lane) == 0 {
                        0
                    } else {
                        cp
                    }
                }
                _ => cx.src(3, lane, Type::U32) as u32,
            }
        } else {
            cp
        };
        if n > cp {
            return Err(lane_fault(
                cx,
                lane,
                FaultKind::Trap,
                format!("cp.async src-size {n} exceeds its cp-size {cp}"),
            ));
        }
        let (rank, off) = shared_loc(cx, Some(Space::Shared), dst, u64::from(cp), lane)?;
        check_align(cx, dst, u64::from(cp), lane, Target::Shared(rank, off))?;
        if n > 0 {
            check_align(cx, src, u64::from(cp), lane, Target::Global(src))?;
            global_range(cx, src, u64::from(n), false, lane)?;
        }
        pieces.push(segs.len() as u32);
        if n > 0 {
            segs.push(Seg {
                src: Loc::Global(src),
                dst: Loc::Shared { rank, off },
                len: n,
                stage,
            });
        }
        if n < cp {
            segs.push(Seg {
                src: Loc::Fill,
                dst: Loc::Shared {
                    rank,
                    off: off + u64::from(n),
                },
                len: cp - n,
                stage: stage + n,
            });
        }
        stage += cp;
    }
    let active = cx.active;
    let op = issue(
        cx,
        OpClass::CpAsync,
        (segs, pieces, vec![0; stage as usize]),
        Completion::Group,
        None,
        active,
    );
    track(cx, op, false)?;
    Ok(Settle::all(active))
}

/// `cp.async.commit_group` / `cp.async.bulk.commit_group`: each lane's uncommitted operations
/// become a new group (possibly empty).
pub(super) fn commit(cx: &mut Ctx<'_, '_>, bulk: bool) -> Res<Settle> {
    let active = cx.active;
    let mut ops: Vec<OpId> = Vec::new();
    let g = groups(cx, bulk);
    for lane in lanes(active) {
        let group = std::mem::take(&mut g[lane].uncommitted);
        for &o in &group {
            if !ops.contains(&o) {
                ops.push(o);
            }
        }
        g[lane].groups.push_back(group);
        g[lane].untracked = 0;
        g[lane].prune_at = 0;
    }
    for lane in lanes(active) {
        too_many(cx, lane, bulk)?;
    }
    record(cx, What::Commit { bulk, ops });
    Ok(Settle::all(active))
}

/// `cp.async.wait_group N`, `cp.async.wait_all`, `cp.async.bulk.wait_group{.read} N`: a lane is
/// done when at most N of its most recent groups are pending (with `.read`: have not finished
/// reading their sources).
pub(super) fn wait_groups(cx: &mut Ctx<'_, '_>, bulk: bool) -> Settle {
    let all = cx.ins.op == Op::CpAsyncWaitAll;
    if all {
        // wait_all = commit_group + wait_group 0 (committing again on a re-execution only
        // adds an empty, complete group).
        let active = cx.active;
        let g = groups(cx, false);
        for lane in lanes(active) {
            let group = std::mem::take(&mut g[lane].uncommitted);
            g[lane].groups.push_back(group);
        }
    }
    let read_only = bulk && cx.ins.mods.has(Flags::READ);
    let first = lanes(cx.active).next().unwrap_or(0);
    let n = if all {
        0
    } else {
        cx.src(0, first, Type::U32) as usize
    };
    let active = cx.active;
    let mut done = 0u32;
    let mut observed: Vec<OpId> = Vec::new();
    let w = cx.asy.get_or_insert_with(|| Box::new(WarpAsync::default()));
    let lanes_state = if bulk { &mut w.bulk } else { &mut w.cp };
    for lane in lanes(active) {
        let st = &mut lanes_state[lane];
        // Only the groups beyond the N most recent are waited for: a newer group that happens
        // to be complete is not observed (its writes are not yet visible to the thread).
        let waited = st.groups.len().saturating_sub(n);
        if read_only {
            let read = st
                .groups
                .iter()
                .take(waited)
                .take_while(|g| g.iter().all(|&o| cx.engine.is_read(o)))
                .count();
            if read == waited {
                done |= 1 << lane;
                for &o in st.groups.iter().take(waited).flatten() {
                    if !observed.contains(&o) {
                        observed.push(o);
                    }
                }
            }
            continue;
        }
        while st.groups.len() > n
            && st
                .groups
                .front()
                .is_some_and(|g| g.iter().all(|&o| cx.engine.is_complete(o)))
        {
            if let Some(g) = st.groups.pop_front() {
                for o in g {
                    if !observed.contains(&o) {
                        observed.push(o);
                    }
                }
            }
        }
        if st.groups.len() <= n {
            done |= 1 << lane;
        }
    }
    // The lanes wait as one: the hardware stalls the warp on a wait, so lanes whose groups are
    // done wait for the others rather than go on alone (waiting longer is always allowed). A
    // split would leave the warp diverged where real code expects it converged: Triton's
    // epilogue has an elected lane's TMA store, then `cp.async.bulk.wait_group 0`, `bar.sync`
    // and `wgmma.wait_group.sync.aligned` in every lane.
    if done != active {
        done = 0;
    }
    // The waiting warp observed these completions (and, for `.read`, the end of their reads).
    if let Some(hb) = cx.hb.as_mut() {
        let (rank, warp) = (cx.rank, cx.warp_index);
        hb.groups_observed(&*cx.engine, (rank, warp), &observed, read_only);
    }
    // Named for traces only: no string is made for every wait of an untraced run.
    let what = cx.trace.enabled.then(|| match cx.ins.op {
        Op::CpAsyncWaitAll => "cp.async.wait_all".to_string(),
        Op::CpAsyncWaitGroup => format!("cp.async.wait_group {n}"),
        _ if read_only => format!("cp.async.bulk.wait_group.read {n}"),
        _ => format!("cp.async.bulk.wait_group {n}"),
    });
    Settle {
        done,
        wait: Some(AsyncWait::Groups),
        what,
        observed,
        result: true,
        ..Settle::default()
    }
}

/// `cp.async.mbarrier.arrive{.noinc}.shared{::cta}.b64 [mbar]`: an arrive-on that fires when all
/// the lane's prior `cp.async` operations complete; without `.noinc` the pending count is raised
/// by one first, so the arrive-on does not count as one of the phase's expected arrivals.
pub(super) fn cp_async_arrive(cx: &mut Ctx<'_, '_>) -> Res<Settle> {
    let noinc = cx.ins.mods.has(Flags::NOINC);
    let mut pending: Vec<ArriveOn> = Vec::new();
    // What the arrive-on releases: this warp's clock now, with every `cp.async` it issued so
    // far complete (a superset of each lane's prior operations).
    let (rank, warp) = (cx.rank, cx.warp_index);
    let release = match cx.hb.as_mut() {
        Some(hb) => {
            let issued = hb.warp(rank, warp).cp_issued;
            hb.arrive_on_release(rank, warp, issued)
        }
        None => Vc::new(),
    };
    let space = cx.ins.mods.space;
    for lane in lanes(cx.active) {
        let a = address(cx, 0, lane);
        let (rank, off) = super::mbarops::mbar_loc(cx, space, a, lane)?;
        if !noinc {
            super::mbarops::with_mbar(cx, rank, off, lane, |b| b.add_pending())?;
        }
        let st = &mut groups(cx, false)[lane];
        // The arrive-on tracks the thread's prior copies from now on.
        st.untracked = 0;
        let st = &*st;
        let mut waiting: Vec<OpId> = st
            .uncommitted
            .iter()
            .chain(st.groups.iter().flatten())
            .copied()
            .collect();
        waiting.retain(|&o| !cx.engine.is_complete(o));
        waiting.sort_unstable();
        waiting.dedup();
        match pending
            .iter_mut()
            .find(|p| p.rank == rank && p.off == off as u32 && p.waiting == waiting)
        {
            Some(p) => {
                p.count += 1;
                p.issuer.lanes |= 1 << lane;
            }
            None => pending.push(ArriveOn {
                rank,
                off: off as u32,
                count: 1,
                waiting,
                issuer: issuer(cx, 1 << lane),
                release: release.clone(),
            }),
        }
    }
    let mut notices = Vec::new();
    let clock = cx.clock;
    for a in pending {
        notices.push(Notice::Mbar {
            rank: a.rank,
            off: a.off,
        });
        if let Some(now) = cx.engine.arrive_on(a) {
            let mut sp = Spaces {
                global: cx.global,
                smem: cx.smem,
            };
            crate::mem::copy::arrive(&mut sp, &now, None, clock, cx.trace, &mut notices)
                .map_err(|e| super::park::engine_fault(&e))?;
        }
    }
    Ok(Settle {
        notices,
        ..Settle::all(cx.active)
    })
}

/// The mbarrier operand `k` of a copy whose destination is in CTA `dst_rank`, as its shared
/// offset: a `shared::cluster` address, which must name the destination's CTA.
pub(super) fn copy_mbar(cx: &Ctx<'_, '_>, k: usize, lane: usize, dst_rank: u32) -> Res<u32> {
    let a = address(cx, k, lane);
    let (r, o) = super::mbarops::mbar_loc(cx, Some(Space::SharedCluster), a, lane)?;
    if r != dst_rank {
        return Err(lane_fault(
            cx,
            lane,
            FaultKind::Trap,
            format!(
                "the mbarrier (CTA rank {r}) must be in the destination's CTA (rank {dst_rank})"
            ),
        ));
    }
    Ok(o as u32)
}

/// Checks that every CTA of `ranks` has `len` bytes of shared memory at `off`, and adds their
/// complete-tx targets (the mbarrier at `mbar` of each).
pub(super) fn multicast_targets(
    cx: &Ctx<'_, '_>,
    ranks: &[u32],
    (off, len): (u64, u64),
    mbar: u32,
    lane: usize,
    targets: &mut Vec<(u32, u32, u64)>,
) -> Res<()> {
    for &rk in ranks {
        let a = mem::cluster_encode(cx.to_real(rk), off);
        shared_loc(cx, Some(Space::SharedCluster), a, len, lane)?;
        targets.push((rk, mbar, len));
    }
    Ok(())
}

/// The CTAs of `ctaMask` (operand `k`), or the destination's alone.
pub(super) fn multicast_ranks(
    cx: &Ctx<'_, '_>,
    k: usize,
    lane: usize,
    dst_rank: u32,
) -> Res<Vec<u32>> {
    if !cx.ins.mods.has(Flags::MULTICAST) {
        return Ok(vec![dst_rank]);
    }
    let mask = cx.src(k, lane, Type::U16) as u32 & 0xffff;
    let n = cx.cluster_ctas();
    if mask == 0 || mask >> n != 0 {
        return Err(lane_fault(
            cx,
            lane,
            FaultKind::Trap,
            format!("ctaMask {mask:#06x} names CTAs outside the cluster of {n}"),
        ));
    }
    Ok((0..n)
        .filter(|r| mask & (1 << r) != 0)
        .map(|r| cx.to_unit(r))
        .collect())
}

/// `cp.async.bulk` and `cp.reduce.async.bulk` in every direction.
pub(super) fn bulk(cx: &mut Ctx<'_, '_>) -> Res<Settle> {
    let m = cx.ins.mods;
    let reduce = (cx.ins.op == Op::CpReduceAsyncBulk)
        .then(|| (m.sub.unwrap_or(SubOp::Add), m.ty().unwrap_or(Type::B32)));
    let to_global = m.space == Some(Space::Global);
    let mut segs = Vec::new();
    let mut pieces = Vec::new();
    let mut stage = 0u32;
    let mut targets: Vec<(u32, u32, u64)> = Vec::new();
    let active = cx.active;
    for lane in lanes(active) {
        let dst = address(cx, 0, lane);
        let src = address(cx, 1, lane);
        let size = cx.src(2, lane, Type::U32);
        if !size.is_multiple_of(16) || !dst.is_multiple_of(16) || !src.is_multiple_of(16) {
            return Err(lane_fault(
                cx,
                lane,
                FaultKind::Misaligned,
                format!(
                    "bulk copies need 16-byte aligned addresses and a size that is a multiple of 16 (dst {dst:#x}, src {src:#x}, size {size})"
                ),
            ));
        }
        let (src_loc, dst_ranks, dst_off) = if to_global {
            let (r, o) = shared_loc(cx, Some(Space::Shared), src, size, lane)?;
            global_range(cx, dst, size, true, lane)?;
            (Loc::Shared { rank: r, off: o }, Vec::new(), dst)
        } else {
            let (r, o) = shared_loc(cx, Some(Space::SharedCluster), dst, size, lane)?;
            let src_loc = if m.space2() == Some(Space::Global) {
                global_range(cx, src, size, false, lane)?;
                Loc::Global(src)
            } else {
                let (sr, so) = shared_loc(cx, Some(Space::Shared), src, size, lane)?;
                Loc::Shared { rank: sr, off: so }
            };
            // [dst], [src], size, [mbar] {, ctaMask} {, policy}
            let ranks = multicast_ranks(cx, 4, lane, r)?;
            let mo = copy_mbar(cx, 3, lane, r)?;
            multicast_targets(cx, &ranks, (o, size), mo, lane, &mut targets)?;
            (src_loc, ranks, o)
        };
        let mut k = 0u64;
        while k < size {
            let len = (size - k).min(u64::from(CHUNK)) as u32;
            pieces.push(segs.len() as u32);
            let src_at = match src_loc {
                Loc::Global(a) => Loc::Global(a + k),
                Loc::Shared { rank, off } => Loc::Shared { rank, off: off + k },
                Loc::Fill => Loc::Fill,
            };
            if to_global {
                segs.push(Seg {
                    src: src_at,
                    dst: Loc::Global(dst_off + k),
                    len,
                    stage,
                });
            }
            for &rk in &dst_ranks {
                segs.push(Seg {
                    src: src_at,
                    dst: Loc::Shared {
                        rank: rk,
                        off: dst_off + k,
                    },
                    len,
                    stage,
                });
            }
            stage += len;
            k += u64::from(len);
        }
    }
    let bulk_group = to_global || m.has(Flags::BULK_GROUP);
    let completion = if bulk_group {
        Completion::Group
    } else {
        Completion::Mbarrier(merge_targets(targets))
    };
    let class = if reduce.is_some() {
        OpClass::BulkReduce
    } else {
        OpClass::Bulk
    };
    let op = issue(
        cx,
        class,
        (segs, pieces, vec![0; stage as usize]),
        completion,
        reduce,
        active,
    );
    if bulk_group {
        track(cx, op, true)?;
    }
    Ok(Settle::all(active))
}

/// Sums complete-tx bytes per mbarrier.
pub(super) fn merge_targets(t: Vec<(u32, u32, u64)>) -> Vec<(u32, u32, u64)> {
    let mut out: Vec<(u32, u32, u64)> = Vec::new();
    for (r, o, b) in t {
        match out.iter_mut().find(|x| x.0 == r && x.1 == o) {
            Some(x) => x.2 += b,
            None => out.push((r, o, b)),
        }
    }
    out
}

/// `st.async` / `red.async` `[remote], value, [remote mbarrier]`: a store or reduction into
/// another CTA's shared memory that performs complete-tx of its bytes on that CTA's mbarrier.
pub(super) fn st_async(cx: &mut Ctx<'_, '_>) -> Res<Settle> {
    let m = cx.ins.mods;
    let t = m.ty().unwrap_or(Type::B32);
    let es = t.size();
    let vals = super::addr::elems(cx, 1);
    let bytes = es * vals.len().max(1) as u32;
    let reduce = (cx.ins.op == Op::RedAsync).then(|| (m.sub.unwrap_or(SubOp::Add), t));
    let active = cx.active;
    let mut segs = Vec::new();
    let mut pieces = Vec::new();
    let mut staging = Vec::new();
    let mut targets = Vec::new();
    for lane in lanes(active) {
        let a = address(cx, 0, lane);
        let (r, o) = shared_loc(cx, Some(Space::SharedCluster), a, u64::from(bytes), lane)?;
        check_align(cx, a, u64::from(bytes), lane, Target::Shared(r, o))?;
        let mo = copy_mbar(cx, 2, lane, r)?;
        pieces.push(segs.len() as u32);
        let stage = staging.len() as u32;
        for v in vals {
            let x = cx.value(v, lane, t);
            staging.extend_from_slice(&x.to_le_bytes()[..es as usize]);
        }
        segs.push(Seg {
            src: Loc::Fill,
            dst: Loc::Shared { rank: r, off: o },
            len: bytes,
            stage,
        });
        targets.push((r, mo, u64::from(bytes)));
    }
    issue(
        cx,
        OpClass::Remote,
        (segs, pieces, staging),
        Completion::Mbarrier(merge_targets(targets)),
        reduce,
        active,
    );
    Ok(Settle::all(active))
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::latency::Immediate;
    use crate::mem::copy::Completion;
    use crate::mem::{Global, Smem};
    use crate::trace::Trace;

    /// A 4-byte global-to-shared copy tracked by the issuing thread's async-group.
    fn copy(src: u64) -> OpSpec {
        crate::mem::copy::test_spec(OpClass::CpAsync, Op::CpAsync, src, 0, 4, Completion::Group)
    }

    /// A thread that never commits (its copies tracked by arrive-ons) keeps a bounded list of
    /// uncommitted operations: what is in flight plus one completed one, however long it runs,
    /// so scanning it (every `cp.async.mbarrier.arrive` does) costs the same each time.
    #[test]
    fn uncommitted_lists_keep_what_is_in_flight() {
        let mut g = Global::new();
        let a = g.alloc("x", vec![1; 4], false);
        let mut smem = vec![Smem::new(16)];
        let mut e = Engine::new(Box::new(Immediate), false);
        let mut tr = Trace::default();
        let mut lane = LaneGroups::default();
        let mut longest = 0;
        for now in 0..10_000u64 {
            let op = e.issue(copy(a), now, &mut tr, &g);
            lane.push(op, &e);
            longest = longest.max(lane.uncommitted.len());
            let mut sp = Spaces {
                global: &mut g,
                smem: &mut smem,
            };
            e.advance(now, &mut sp, &mut tr, &mut Vec::new()).unwrap();
        }
        assert!(longest <= PRUNE_AT + 1, "{longest}");
        assert_eq!(lane.untracked, 10_000, "nothing tracked them");
        assert_eq!(e.counts(), (0, 1, 0), "no records left behind");
    }
}
