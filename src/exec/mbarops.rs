//! mbarrier instructions (PTX ISA 9.0 section 9.7.13.15: `init`, `inval`, `expect_tx`,
//! `complete_tx`, `arrive`, `arrive_drop`, `test_wait`, `try_wait`, `pending_count`) over the
//! object model of `mem::mbarrier`, and the cluster barrier (9.7.13.4 `barrier.cluster`). Lanes
//! of a warp act one after another in lane order; an arrival that completes a phase lets the
//! next lane arrive on the new phase, as it would on hardware. A wait that cannot complete parks
//! its lanes (`park.rs`) until the object changes.

use super::addr::{address, lane_fault, shared_loc};
use super::ctx::Ctx;
use super::fault::FaultKind;
use super::fault::{fault, Res};
use super::lanes::lanes;
use super::machine::{Machine, WarpRef};
use super::park::{lanes_where, record, Settle};
use super::warp::Cluster;
use super::warp::{AsyncWait, WaitFor};
use crate::ir::mods::{Sem, SubOp};
use crate::ir::{Flags, Op, Space, Type};
use crate::mem::copy::{Notice, OpId};
use crate::mem::hb::Vc;
use crate::mem::mbarrier::{MbarError, Mbarrier};
use crate::trace::{Place, What};

/// The (rank, offset) of the mbarrier at `addr` in `space` (generic if `None`): 8-byte aligned
/// and inside shared memory.
pub(crate) fn mbar_loc(
    cx: &Ctx<'_, '_>,
    space: Option<Space>,
    addr: u64,
    lane: usize,
) -> Res<(u32, u64)> {
    let (r, o) = shared_loc(cx, space, addr, 8, lane)?;
    if !o.is_multiple_of(8) {
        return Err(lane_fault(
            cx,
            lane,
            FaultKind::Misaligned,
            format!("an mbarrier object must be 8-byte aligned (shared+{o:#x})"),
        ));
    }
    Ok((r, o))
}

/// Runs `f` on the initialized mbarrier at (rank, off) and mirrors its new state into memory.
pub(crate) fn with_mbar<T>(
    cx: &mut Ctx<'_, '_>,
    rank: u32,
    off: u64,
    lane: usize,
    f: impl FnOnce(&mut Mbarrier) -> Result<T, MbarError>,
) -> Res<T> {
    // A use must be ordered after the mbarrier.init (a barrier or cluster barrier between them).
    let init = cx.smem[rank as usize]
        .mbars
        .get(&(off as u32))
        .and_then(|b| b.init);
    let site = cx.site(lane);
    let what = cx.ins.op.name();
    if let (Some((e, f, pc)), Some(hb)) = (init, cx.hb.as_mut()) {
        if !hb.warp(site.rank, site.warp).vc.covers(e) {
            hb.report(
                crate::check::HazardKind::UninitializedMbarrier,
                site,
                crate::check::Msg::text(format!("`{what}` on the mbarrier at shared+{off:#x}, whose mbarrier.init at line ")).related_line().then(" is not ordered before it"),
                "order the initialization before every use: mbarrier.init, then fence.mbarrier_init / bar.sync (or the cluster barrier) before other threads touch it",
                format!("shared+{off:#x} (8 bytes)"),
                Some((f, pc, "the mbarrier.init".into())),
            );
        }
    }
    let smem = &mut cx.smem[rank as usize];
    let Some(b) = smem.mbars.get_mut(&(off as u32)) else {
        let what = cx.ins.op.name();
        return Err(lane_fault(
            cx,
            lane,
            FaultKind::Hazard(crate::check::HazardKind::UninitializedMbarrier),
            format!(
                "`{what}` on shared+{off:#x}{}, where no mbarrier is initialized (mbarrier.init it first; after mbarrier.inval it must be initialized again)",
                if rank == cx.rank { String::new() } else { format!(" of CTA rank {rank}") }
            ),
        ));
    };
    match f(b) {
        Ok(v) => {
            smem.sync_mbar(off as u32);
            Ok(v)
        }
        Err(e) => Err(lane_fault(
            cx,
            lane,
            FaultKind::Hazard(e.kind()),
            e.to_string(),
        )),
    }
}

fn trace_mbar(cx: &mut Ctx<'_, '_>, action: &'static str, rank: u32, off: u64, count: i64) {
    if !cx.trace.enabled {
        return;
    }
    let (phase, pending, tx) = cx.smem[rank as usize]
        .mbars
        .get(&(off as u32))
        .map_or((0, 0, 0), |b| (b.phase, b.pending, b.tx));
    let addr = if rank == cx.rank {
        Place::Shared(off)
    } else {
        Place::PeerMbarrier { rank, off }
    };
    record(
        cx,
        What::Mbarrier {
            action,
            addr,
            count,
            phase,
            pending,
            tx,
            op: None,
        },
    );
}

pub(crate) fn exec(cx: &mut Ctx<'_, '_>) -> Res<Settle> {
    match cx.ins.op {
        Op::MbarrierInit => init(cx),
        Op::MbarrierInval => inval(cx),
        Op::MbarrierExpectTx | Op::MbarrierCompleteTx => tx(cx),
        Op::MbarrierArrive | Op::MbarrierArriveDrop => arrive(cx),
        Op::MbarrierTestWait | Op::MbarrierTryWait => wait(cx),
        Op::MbarrierPendingCount => {
            for lane in lanes(cx.active) {
                let token = cx.src(1, lane, Type::B64);
                cx.dst(0, lane, u64::from(Mbarrier::token_pending(token)));
            }
            Ok(Settle::all(cx.active))
        }
        _ => Err(fault(
            FaultKind::Unsupported,
            format!("`{}` is not an mbarrier instruction", cx.ins.op.name()),
        )),
    }
}

fn init(cx: &mut Ctx<'_, '_>) -> Res<Settle> {
    let mut notices = Vec::new();
    for lane in lanes(cx.active) {
        let a = address(cx, 0, lane);
        let (rank, off) = mbar_loc(cx, cx.ins.mods.space, a, lane)?;
        let count = cx.src(1, lane, Type::U32);
        let mut b = Mbarrier::new(count as u32).map_err(|_| {
            lane_fault(
                cx,
                lane,
                FaultKind::Hazard(crate::check::HazardKind::MbarrierMisuse),
                format!("mbarrier.init with count {count}: the count must be in 1..=2^20-1"),
            )
        })?;
        let in_use = cx.smem[rank as usize]
            .mbars
            .get(&(off as u32))
            .is_some_and(|old| old.pending != old.expected || old.tx != 0);
        let site = cx.site(lane);
        if let Some(hb) = cx.hb.as_mut() {
            b.agent = hb.new_agent();
            b.init = Some((hb.warp(site.rank, site.warp).now(), site.func, site.pc));
            if in_use {
                hb.report(
                    crate::check::HazardKind::MbarrierMisuse,
                    site,
                    format!("mbarrier.init of shared+{off:#x}, an mbarrier whose current phase is under way (arrivals or transactions pending)"),
                    "initialize an mbarrier once, or mbarrier.inval it after its last phase completed before initializing it again",
                    format!("shared+{off:#x} (8 bytes)"),
                    None,
                );
            }
        }
        let smem = &mut cx.smem[rank as usize];
        smem.mbars.insert(off as u32, b);
        smem.sync_mbar(off as u32);
        notices.push(Notice::Mbar {
            rank,
            off: off as u32,
        });
        trace_mbar(cx, "init", rank, off, count as i64);
    }
    Ok(Settle {
        notices,
        ..Settle::all(cx.active)
    })
}

fn inval(cx: &mut Ctx<'_, '_>) -> Res<Settle> {
    let mut notices = Vec::new();
    for lane in lanes(cx.active) {
        let a = address(cx, 0, lane);
        let (rank, off) = mbar_loc(cx, cx.ins.mods.space, a, lane)?;
        with_mbar(cx, rank, off, lane, |_| Ok(()))?;
        trace_mbar(cx, "inval", rank, off, 0);
        let smem = &mut cx.smem[rank as usize];
        smem.mbars.remove(&(off as u32));
        smem.sync_mbar(off as u32);
        notices.push(Notice::Mbar {
            rank,
            off: off as u32,
        });
    }
    Ok(Settle {
        notices,
        ..Settle::all(cx.active)
    })
}

/// `mbarrier.expect_tx` / `mbarrier.complete_tx` `[addr], txCount`.
fn tx(cx: &mut Ctx<'_, '_>) -> Res<Settle> {
    let expect = cx.ins.op == Op::MbarrierExpectTx;
    let mut notices = Vec::new();
    for lane in lanes(cx.active) {
        let a = address(cx, 0, lane);
        let (rank, off) = mbar_loc(cx, cx.ins.mods.space, a, lane)?;
        let n = cx.src(1, lane, Type::U32);
        if expect {
            with_mbar(cx, rank, off, lane, |b| b.expect_tx(n))?;
        } else {
            with_mbar(cx, rank, off, lane, |b| b.complete_tx(n, None))?;
        }
        notices.push(Notice::Mbar {
            rank,
            off: off as u32,
        });
        let action = if expect { "expect_tx" } else { "complete_tx" };
        trace_mbar(cx, action, rank, off, n as i64);
    }
    Ok(Settle {
        notices,
        ..Settle::all(cx.active)
    })
}

/// `mbarrier.arrive{.expect_tx}{.noComplete}` and `arrive_drop`: `state, [addr]{, count | tx}`.
fn arrive(cx: &mut Ctx<'_, '_>) -> Res<Settle> {
    let m = cx.ins.mods;
    let drop = cx.ins.op == Op::MbarrierArriveDrop;
    let expect = m.has(Flags::EXPECT_TX);
    let no_complete = m.has(Flags::NO_COMPLETE);
    let has_third = cx.ops.len() >= 3;
    let mut notices = Vec::new();
    for lane in lanes(cx.active) {
        let a = address(cx, 1, lane);
        let (rank, off) = mbar_loc(cx, m.space, a, lane)?;
        let third = has_third.then(|| cx.src(2, lane, Type::U32));
        let (count, tx) = match (expect, third) {
            (true, Some(t)) => (1, Some(t)),
            (false, Some(c)) => (c, None),
            (_, None) => (1, None),
        };
        if count == 0 || count > u64::from(crate::mem::mbarrier::COUNT_MAX) {
            return Err(lane_fault(
                cx,
                lane,
                FaultKind::Hazard(crate::check::HazardKind::MbarrierMisuse),
                format!("arrival count {count} is outside 1..=2^20-1"),
            ));
        }
        // Arrivals release the warp's clock (`.release` is the default; `.relaxed` releases only
        // what the warp's last fence did).
        let (wrank, warp) = (cx.rank, cx.warp_index);
        let release = cx.hb.as_mut().map(|hb| {
            let w = hb.warp(wrank, warp);
            if m.sem == Some(Sem::Relaxed) {
                // What fences of the arrival's scope released (.cta unless it names .cluster).
                let scope = match cx.ins.mods.scope {
                    Some(crate::ir::mods::Scope::Cluster) => crate::mem::hb::Scope::Cluster,
                    _ => crate::mem::hb::Scope::Cta,
                };
                w.fenced(scope).clone()
            } else {
                w.vc.clone()
            }
        });
        let r = with_mbar(cx, rank, off, lane, |b| {
            if let Some(vc) = &release {
                b.release(vc);
            }
            if let Some(t) = tx {
                b.expect_tx(t)?;
            }
            b.arrive(count as u32, drop, no_complete)
        })?;
        if let (Some(hb), Some(_)) = (cx.hb.as_mut(), &release) {
            hb.warp(wrank, warp).tick();
        }
        cx.dst(0, lane, r.token);
        notices.push(Notice::Mbar {
            rank,
            off: off as u32,
        });
        if let Some(t) = tx {
            trace_mbar(cx, "expect_tx", rank, off, t as i64);
        }
        let action = if drop { "arrive_drop" } else { "arrive" };
        trace_mbar(cx, action, rank, off, count as i64);
        if r.completed {
            trace_mbar(cx, "phase-complete", rank, off, 0);
        }
    }
    Ok(Settle {
        notices,
        ..Settle::all(cx.active)
    })
}

/// `mbarrier.test_wait{.parity}` / `try_wait{.parity}` `p, [addr], state|parity{, hint}`.
/// What the lanes of a wait found: which lanes' phases have completed, the first lane's
/// target, where the first incomplete lane parks, what the completed phases released and the
/// operations they observed.
struct Observed {
    ok: u32,
    first_want: Option<WaitFor>,
    park_on: Option<AsyncWait>,
    acquired: Vc,
    ops: Vec<OpId>,
}

/// Each lane of a wait looks at its mbarrier's phase, in lane order.
fn observe(cx: &mut Ctx<'_, '_>) -> Res<Observed> {
    let parity = cx.ins.mods.has(Flags::PARITY);
    let mut seen = Observed {
        ok: 0,
        first_want: None,
        park_on: None,
        // What the completed phases the wait observes released (`.acquire` is the default).
        acquired: Vc::new(),
        ops: Vec::new(),
    };
    for lane in lanes(cx.active) {
        let a = address(cx, 1, lane);
        let (rank, off) = mbar_loc(cx, cx.ins.mods.space, a, lane)?;
        let v = cx.src(2, lane, Type::B64);
        let w = if parity {
            WaitFor::Parity(v as u32 & 1)
        } else {
            WaitFor::Phase(Mbarrier::token_phase(v))
        };
        seen.first_want.get_or_insert(w);
        let done = with_mbar(cx, rank, off, lane, |b| {
            Ok(match w {
                WaitFor::Parity(p) => b.parity_done(p),
                WaitFor::Phase(_) => b.token_done(v),
            })
        })?;
        if done {
            seen.ok |= 1 << lane;
            if let Some(b) = cx.smem[rank as usize].mbars.get(&(off as u32)) {
                let phase_vc = match w {
                    WaitFor::Parity(p) => b.parity_clock(p),
                    WaitFor::Phase(t) => b.phase_clock(t),
                };
                if let Some(v) = phase_vc {
                    seen.acquired.join(v);
                }
                for &o in &b.last_ops {
                    if !seen.ops.contains(&o) {
                        seen.ops.push(o);
                    }
                }
            }
        } else if seen.park_on.is_none() {
            seen.park_on = Some(AsyncWait::Mbar {
                rank,
                off: off as u32,
                want: w,
            });
        }
    }
    Ok(seen)
}

fn wait(cx: &mut Ctx<'_, '_>) -> Res<Settle> {
    let seen = observe(cx)?;
    let (active, ok) = (cx.active, seen.ok);
    // Waits acquire what the observed phase released (`.relaxed` ones too: ptxrun does not
    // report a missing acquire).
    let (wrank, warp) = (cx.rank, cx.warp_index);
    if let Some(hb) = cx.hb.as_mut() {
        hb.warp(wrank, warp).acquire(&seen.acquired, ok);
    }
    // Which lanes finish now, and when the others give up. A wait woken because its time limit
    // passed or nothing else could happen returns false. `test_wait` never blocks; `try_wait`
    // blocks until the phase completes or the latency model's time limit passes (the H100's
    // limit; `adversarial` gives none: false at once). A wait polled in a loop that returned
    // false last time parks until the mbarrier changes: the same as a warp scheduled late.
    let incomplete = active & !ok;
    let is_try = cx.ins.op == Op::MbarrierTryWait;
    let limit = cx.engine.try_wait_limit();
    let (done, time_limit) = if cx.timed_out || incomplete == 0 {
        (active, None)
    } else if cx.spinning {
        (ok, None)
    } else if is_try && limit > 0 {
        (ok, Some(limit))
    } else {
        (active, None)
    };
    for lane in lanes(done) {
        cx.dst(0, lane, u64::from(ok & (1 << lane) != 0));
    }
    // Named for traces only: no string is made for every wait of an untraced run.
    let what = cx.trace.enabled.then(|| {
        let target = match seen.first_want {
            Some(WaitFor::Parity(p)) => format!(" (parity {p})"),
            Some(WaitFor::Phase(n)) => format!(" (phase {n})"),
            None => String::new(),
        };
        format!("{}{target}", crate::ir::print_opcode(cx.func, cx.pc))
    });
    Ok(Settle {
        done,
        wait: seen.park_on,
        what,
        observed: seen.ops,
        result: done == ok,
        notices: Vec::new(),
        time_limit,
        returned_false: (done != 0).then_some(done & !ok != 0),
    })
}

/// `barrier.cluster.arrive{.release|.relaxed}` and `barrier.cluster.wait{.acquire}`: every
/// non-exited thread of the cluster arrives, then waits for the phase it arrived in.
pub(crate) fn cluster_barrier(mc: &mut Machine<'_>, cl: &mut Cluster, w: WarpRef<'_>) -> Res<()> {
    let warp = &cl.ctas[w.ci].warps[w.wi];
    let is_wait = w.ins.mods.sub == Some(SubOp::Wait);
    let arrived = lanes_where(w.active, |l| warp.cluster_phase[l] != u32::MAX);
    let misuse = FaultKind::Hazard(crate::check::HazardKind::BarrierMisuse);
    let why = if mc.grid.cooperative.is_some() {
        // The scheduling unit is the whole grid, and its one barrier would count every CTA.
        Some((
            FaultKind::Unsupported,
            "barrier.cluster in a cooperative launch (ptxrun runs its one-CTA clusters as one unit)",
        ))
    } else if is_wait && arrived != w.active {
        Some((
            misuse,
            "barrier.cluster.wait by a thread that did not barrier.cluster.arrive first",
        ))
    } else if !is_wait && arrived != 0 {
        Some((
            misuse,
            "barrier.cluster.arrive twice without a barrier.cluster.wait between",
        ))
    } else {
        None
    };
    if let Some((kind, msg)) = why {
        let mut f = fault(kind, msg.to_string());
        f.linear_thread = Some(warp.index * 32 + w.active.trailing_zeros().min(31));
        return Err(f);
    }
    if is_wait {
        cluster_wait(mc, cl, w);
    } else {
        cluster_arrive(mc, cl, w);
    }
    Ok(())
}

/// `barrier.cluster.wait`: the lanes whose arrival's phase has completed go on, the others
/// park until it does.
fn cluster_wait(mc: &mut Machine<'_>, cl: &mut Cluster, w: WarpRef<'_>) {
    let phase = cl.cbar_phase;
    let warp = &mut cl.ctas[w.ci].warps[w.wi];
    let done = lanes_where(w.active, |l| warp.cluster_phase[l] < phase);
    for l in lanes(done) {
        warp.cluster_phase[l] = u32::MAX;
    }
    if done != 0 {
        mc.trace.push(cluster_event(cl, w, "cluster-wait"));
        if let (Some(hb), false) = (mc.hb.as_mut(), w.ins.mods.sem == Some(Sem::Relaxed)) {
            let cta = &cl.ctas[w.ci];
            hb.cluster_wait(cta.rank, cta.warps[w.wi].index, done);
        }
    }
    let s = Settle {
        done,
        wait: Some(AsyncWait::Cluster),
        ..Settle::default()
    };
    super::park::settle(mc, cl, w, s);
}

/// `barrier.cluster.arrive`: the lanes arrive on the current phase and go on.
fn cluster_arrive(mc: &mut Machine<'_>, cl: &mut Cluster, w: WarpRef<'_>) {
    let phase = cl.cbar_phase;
    let warp = &mut cl.ctas[w.ci].warps[w.wi];
    for l in lanes(w.active) {
        warp.cluster_phase[l] = phase;
    }
    warp.groups[w.gi].pc += 1;
    cl.cbar_arrived += w.active.count_ones();
    mc.trace.push(cluster_event(cl, w, "cluster-arrive"));
    if let Some(hb) = mc.hb.as_mut() {
        let relaxed = w.ins.mods.sem == Some(Sem::Relaxed);
        let cta = &cl.ctas[w.ci];
        hb.cluster_arrive(cta.rank, cta.warps[w.wi].index, relaxed);
    }
    release_cluster_barrier(mc, cl);
}

/// The trace event of group `w`'s lanes at the cluster barrier.
fn cluster_event(cl: &Cluster, w: WarpRef<'_>, action: &'static str) -> crate::trace::Event {
    let cta = &cl.ctas[w.ci];
    let warp = &cta.warps[w.wi];
    crate::trace::Event {
        cycle: warp.clock,
        cta: cta.id,
        warp: Some(warp.index),
        lanes: w.active,
        line: 0,
        cuda: None,
        what: What::Barrier { action, id: 0 },
    }
}

/// Completes the cluster barrier's phase once every live thread arrived.
pub(crate) fn release_cluster_barrier(mc: &mut Machine<'_>, cl: &mut Cluster) {
    if cl.cbar_arrived > 0 && cl.cbar_arrived >= cl.live_threads() {
        cl.cbar_phase += 1;
        cl.cbar_arrived = 0;
        if let Some(hb) = mc.hb.as_mut() {
            hb.cluster_complete();
        }
        super::park::wake_cluster_barrier(mc, cl);
    }
}
