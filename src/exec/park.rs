//! Waiting and waking (PTX ISA 9.0 sections 9.7.9.25.3.3 `cp.async.wait_group`, 9.7.9.25.6.2
//! `cp.async.bulk.wait_group`, 9.7.13.15.16 `mbarrier.test_wait/try_wait`, 9.7.13.4
//! `barrier.cluster`). A lane group whose wait cannot complete is parked, not re-executed: it
//! sleeps until something it waits for changes (one of its warp's operations completes, the
//! mbarrier it waits on changes, the cluster barrier opens), then executes the instruction
//! again. A `try_wait` may legally return true later than its time limit, so it waits for the
//! phase; when nothing at all can happen any more (no ready warp, nothing in flight) every
//! parked `test_wait`/`try_wait` is woken once to return false, and if that changes nothing,
//! the run is a deadlock, reported with what every warp waits for.

use super::ctx::Ctx;
use super::fault::{at, fault, with_cta, Res};
use super::fault::{Fault, FaultKind};
use super::lanes::{lanes, WARP};
use super::machine::{Machine, WarpRef};
use super::warp::{AsyncWait, WaitFor};
use super::warp::{Cluster, Wait};
use crate::ir::FuncId;
use crate::mem::copy::{EngineError, Notice, OpId, Spaces};
use crate::trace::{Event, What};

/// What an asynchronous or waiting instruction decided for its active lanes.
#[derive(Debug, Default)]
pub(crate) struct Settle {
    /// Lanes that are done; the other active lanes park on `wait`.
    pub done: u32,
    pub wait: Option<AsyncWait>,
    /// For a wait: how to name it in traces, what the finished lanes observed, their result.
    pub what: Option<String>,
    pub observed: Vec<OpId>,
    pub result: bool,
    /// Objects the instruction changed: their waiters wake.
    pub notices: Vec<Notice>,
    /// An `mbarrier.try_wait`: the parked lanes return false this many cycles after they
    /// started waiting, unless the phase completes first.
    pub time_limit: Option<u64>,
    /// An mbarrier wait: whether some finished lane's result was false (the group polls).
    pub returned_false: Option<bool>,
}

impl Settle {
    /// Every active lane is done.
    pub fn all(active: u32) -> Settle {
        Settle {
            done: active,
            ..Settle::default()
        }
    }
}

/// Records a trace event at the instruction `cx` executes.
pub(crate) fn record(cx: &mut Ctx<'_, '_>, what: What) {
    if !cx.trace.enabled {
        return;
    }
    let (line, cuda) = cx.func.lines_at(cx.pc);
    let ev = Event {
        cycle: cx.clock,
        cta: cx.cta,
        warp: Some(cx.warp_index),
        lanes: cx.active,
        line,
        cuda,
        what,
    };
    cx.trace.push(ev);
}

/// Applies `s` to group `w`: finished and predicated-off lanes move past the instruction,
/// the rest park at it.
pub(crate) fn settle(mc: &mut Machine<'_>, cl: &mut Cluster, w: WarpRef<'_>, s: Settle) {
    let ((ci, wi, gi), active) = (w.at(), w.active);
    let id = cl.ctas[ci].id;
    let warp = &mut cl.ctas[ci].warps[wi];
    let clock = warp.clock;
    let index = warp.index;
    let g = &mut warp.groups[gi];
    g.timed_out = false;
    if let (Some(what), true) = (&s.what, s.done != 0 && mc.trace.enabled) {
        let f = &mc.m.functions[warp.frames[g.frame as usize].func.0 as usize];
        let (line, cuda) = f.lines_at(g.pc);
        mc.trace.push(Event {
            cycle: clock,
            cta: id,
            warp: Some(index),
            lanes: s.done,
            line,
            cuda,
            what: What::Wait {
                what: what.clone(),
                since: g.since.unwrap_or(clock.saturating_sub(1)),
                observed: s.observed.clone(),
                result: s.result,
            },
        });
    }
    if let Some(f) = s.returned_false {
        g.spin = f.then_some(g.pc);
    }
    let park = active & !s.done;
    match s.wait {
        Some(w) if park != 0 => {
            if park != g.mask {
                let mut moving = g.clone();
                moving.mask = g.mask & !park;
                moving.pc += 1;
                moving.since = None;
                moving.deadline = None;
                g.mask = park;
                warp.groups.push(moving);
            }
            let g = &mut warp.groups[gi];
            g.wait = Wait::Async(w);
            let since = *g.since.get_or_insert(clock);
            g.deadline = s.time_limit.map(|l| since.saturating_add(l));
            if let Some(d) = g.deadline {
                mc.next_deadline = mc.next_deadline.min(d);
            }
        }
        _ => {
            g.pc += 1;
            g.since = None;
            g.deadline = None;
        }
    }
    wake(mc, cl, &s.notices);
}

/// Wakes the groups that wait on what `notices` name.
pub(crate) fn wake(mc: &mut Machine<'_>, cl: &mut Cluster, notices: &[Notice]) {
    if notices.is_empty() {
        return;
    }
    mc.progress += 1;
    mc.woken += 1;
    let now = mc.now;
    for cta in &mut cl.ctas {
        for w in &mut cta.warps {
            let mut woke = false;
            for g in &mut w.groups {
                let Wait::Async(aw) = g.wait else { continue };
                let hit = notices.iter().any(|n| match (*n, aw) {
                    (Notice::Op { rank, warp }, AsyncWait::Groups) => {
                        rank == cta.rank && warp == w.index
                    }
                    (
                        Notice::Mbar { rank, off },
                        AsyncWait::Mbar {
                            rank: r, off: o, ..
                        },
                    ) => rank == r && off == o,
                    _ => false,
                });
                if hit {
                    g.wait = Wait::Ready;
                    woke = true;
                }
            }
            if woke {
                w.clock = w.clock.max(now);
            }
        }
    }
}

/// Wakes every group parked on the cluster barrier.
pub(crate) fn wake_cluster_barrier(mc: &mut Machine<'_>, cl: &mut Cluster) {
    mc.progress += 1;
    mc.woken += 1;
    let now = mc.now;
    for cta in &mut cl.ctas {
        for w in &mut cta.warps {
            for g in &mut w.groups {
                if g.wait == Wait::Async(AsyncWait::Cluster) {
                    g.wait = Wait::Ready;
                    w.clock = w.clock.max(now);
                }
            }
        }
    }
}

/// Runs the asynchronous events due by now, and wakes who they concern.
pub(crate) fn pump(mc: &mut Machine<'_>, cl: &mut Cluster) -> Res<()> {
    if mc.engine.next_time().is_none_or(|t| t > mc.now) {
        return Ok(());
    }
    let mut notices = Vec::new();
    let mut sp = Spaces {
        global: &mut mc.global,
        smem: &mut cl.smem,
    };
    let r = mc
        .engine
        .advance(mc.now, &mut sp, &mut mc.trace, &mut notices);
    wake(mc, cl, &notices);
    r.map_err(|e| engine_fault(&e))
}

/// The cluster's warps are done: operations still in flight complete, and an mbarrier left
/// with a negative tx-count received bytes that no expect-tx announced.
pub(crate) fn drain(mc: &mut Machine<'_>, cl: &mut Cluster) -> Res<()> {
    let mut notices = Vec::new();
    let mut sp = Spaces {
        global: &mut mc.global,
        smem: &mut cl.smem,
    };
    let last = mc
        .engine
        .drain(&mut sp, &mut mc.trace, &mut notices)
        .map_err(|e| engine_fault(&e))?;
    mc.now = mc.now.max(last);
    mc.stats.cycles = mc.stats.cycles.max(mc.now);
    let Some(hb) = mc.hb.as_mut() else {
        return Ok(());
    };
    for (rank, smem) in cl.smem.iter().enumerate() {
        for (&off, b) in &smem.mbars {
            let Some(&op) = b.phase_ops.last() else {
                continue;
            };
            if b.tx >= 0 {
                continue;
            }
            let Some(iss) = mc.engine.op(op).map(|o| o.issuer()) else {
                continue;
            };
            let site = super::hazard::Site {
                func: iss.func,
                pc: iss.pc,
                rank: iss.rank,
                cta: iss.cta,
                warp: iss.warp,
                lane: iss.lanes.trailing_zeros().min(31),
            };
            hb.report(
                crate::check::HazardKind::TxCountUnderflow,
                site,
                format!(
                    "the mbarrier at shared+{off:#x} of CTA rank {rank} ends the kernel with tx-count {}: its copies delivered {} bytes that no expect-tx announced (an earlier phase completed before all of its bytes arrived)",
                    b.tx, -b.tx
                ),
                "announce every byte a phase's copies deliver (mbarrier.arrive.expect_tx / expect_tx with the total)",
                format!("shared+{off:#x} (8 bytes)"),
                None,
            );
        }
    }
    Ok(())
}

/// Wakes the parked `mbarrier.try_wait`s whose time limit has passed (they return false)
/// and finds the next deadline.
pub(crate) fn expire(mc: &mut Machine<'_>, cl: &mut Cluster) {
    let (now, mut next) = (mc.now, u64::MAX);
    for cta in &mut cl.ctas {
        for w in &mut cta.warps {
            for g in &mut w.groups {
                let Some(d) = g.deadline else { continue };
                if !matches!(g.wait, Wait::Async(AsyncWait::Mbar { .. })) {
                    continue;
                }
                if d <= now {
                    g.wait = Wait::Ready;
                    g.timed_out = true;
                    g.deadline = None;
                    w.clock = w.clock.max(d);
                    mc.woken += 1;
                } else {
                    next = next.min(d);
                }
            }
        }
    }
    mc.next_deadline = next;
}

/// Nothing can run and nothing is in flight: wakes the parked mbarrier waits that have not
/// timed out since the last change, so that they return false. Returns whether any woke.
pub(crate) fn time_out(mc: &mut Machine<'_>, cl: &mut Cluster) -> bool {
    let mut any = false;
    for cta in &mut cl.ctas {
        for w in &mut cta.warps {
            for g in &mut w.groups {
                if !matches!(g.wait, Wait::Async(AsyncWait::Mbar { .. })) {
                    continue;
                }
                if g.timeouts.0 != mc.progress {
                    g.timeouts = (mc.progress, Vec::new());
                }
                if g.timeouts.1.contains(&g.pc) {
                    continue;
                }
                g.timeouts.1.push(g.pc);
                g.wait = Wait::Ready;
                g.timed_out = true;
                w.clock = w.clock.max(mc.now);
                any = true;
                mc.woken += 1;
            }
        }
    }
    any
}

/// The deadlock report: every blocked group, where it waits and for what.
pub(crate) fn deadlock(mc: &Machine<'_>, cl: &Cluster) -> Box<Fault> {
    let mut waits = Vec::new();
    let mut first: Option<(FuncId, u32, u32, [u32; 3])> = None;
    for cta in &cl.ctas {
        for w in &cta.warps {
            for g in &w.groups {
                if g.wait == Wait::Ready {
                    continue;
                }
                let fid = w.frames[g.frame as usize].func;
                let f = &mc.m.functions[fid.0 as usize];
                let src = f.srcs.get(g.pc as usize);
                let line = src.map_or(0, |s| s.line);
                let cuda = src
                    .and_then(|s| s.loc)
                    .map_or(String::new(), |(file, l, _)| {
                        format!(", CUDA {}:{l}", mc.m.file(file).unwrap_or("?"))
                    });
                let who = format!(
                    "CTA {:?} warp {} lanes {:#010x} (line {line}{cuda})",
                    cta.id, w.index, g.mask
                );
                first.get_or_insert((
                    fid,
                    g.pc,
                    w.index * WARP as u32 + g.mask.trailing_zeros(),
                    cta.id,
                ));
                waits.push(match g.wait {
                    Wait::Bar(b) => format!(
                        "{who} waits at barrier {b}: {} of {} threads arrived",
                        cta.bars[b as usize].arrived,
                        super::warp::expected(cta, b)
                    ),
                    Wait::WarpSync => format!(
                        "{who} waits at a warp-synchronous instruction for lanes of its member mask that never arrive"
                    ),
                    Wait::Async(AsyncWait::Groups) => {
                        format!("{who} waits for its async-groups to complete")
                    }
                    Wait::Async(AsyncWait::Cluster) => format!(
                        "{who} waits at barrier.cluster.wait: {} of {} threads arrived",
                        cl.cbar_arrived,
                        cl.live_threads()
                    ),
                    Wait::Async(AsyncWait::Mbar { rank, off, want }) => {
                        mbar_wait_text(cl, &who, rank, off, want)
                    }
                    Wait::Ready => String::new(),
                });
            }
        }
    }
    let mut f = fault(
        FaultKind::Deadlock,
        format!(
            "deadlock: no thread can make progress and no asynchronous operation is in flight; {}",
            waits.join("; ")
        ),
    );
    if let Some((fid, pc, thread, cta)) = first {
        f = with_cta(at(f, fid, pc, thread), cta);
    }
    f
}

fn mbar_wait_text(cl: &Cluster, who: &str, rank: u32, off: u32, want: WaitFor) -> String {
    let wanted = match want {
        WaitFor::Parity(p) => format!("parity {p} (the completion of a phase with parity {p})"),
        WaitFor::Phase(n) => format!("the completion of phase {n} (its state token)"),
    };
    match cl
        .smem
        .get(rank as usize)
        .and_then(|s| s.mbars.get(&off))
    {
        Some(b) => {
            let done = match b.phase {
                0 => "no phase has completed yet".to_string(),
                n => format!(
                    "the phase that completed last was {} (parity {})",
                    n - 1,
                    (n - 1) & 1
                ),
            };
            format!(
                "{who} waits on the mbarrier at shared+{off:#x} of CTA rank {rank} for {wanted}, but {done}; its current phase {} (parity {}) has {} of {} arrivals pending and tx-count {}, and no warp can still arrive",
                b.phase,
                b.phase & 1,
                b.pending,
                b.expected,
                b.tx
            )
        }
        None => format!(
            "{who} waits on shared+{off:#x} of CTA rank {rank} for {wanted}, where no mbarrier is initialized"
        ),
    }
}

/// An error of the async engine as a kernel fault at the instruction that issued the operation.
pub(crate) fn engine_fault(e: &EngineError) -> Box<Fault> {
    let iss = e.issuer;
    let mut f = fault(FaultKind::Hazard(e.kind), e.message.clone());
    f.at = Some((FuncId(iss.func), iss.pc));
    f.cta = iss.cta;
    f.linear_thread = Some(iss.warp * WARP as u32 + iss.lanes.trailing_zeros().min(31));
    f
}

/// The lanes in `m` for which `f` holds.
pub(crate) fn lanes_where(m: u32, mut f: impl FnMut(usize) -> bool) -> u32 {
    lanes(m).filter(|&l| f(l)).fold(0, |acc, l| acc | 1 << l)
}
