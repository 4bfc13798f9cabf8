//! The scheduler and the dispatcher (see `mod.rs` for the model): the loop that runs one
//! cluster (or cooperative grid) — picking a warp and a quantum with the seeded scheduler,
//! moving the clock to the next asynchronous event when every warp waits, reporting deadlocks
//! — and the execution of one instruction by a lane group: guard, trace, checker watches, the
//! warp-wide fast form where there is one, else the family that handles the opcode. A quantum
//! runs what it can as straight runs (`straight.rs`) and the rest here, one instruction at a
//! time. The top of the executor's layers below `cdp.rs`/`grid.rs`: it calls the families,
//! straight runs and the parked waits (`park.rs`), and nothing below calls it.

use super::config::Scheduler;
use super::ctx::Ctx;
use super::fast::Fast;
use super::fault::{at, fault, with_cta, Fault, FaultKind, Res};
use super::lanes::WARP;
use super::machine::{Machine, WarpRef, WATCH_EVERY};
use super::park::Settle;
use super::route::{route, Family, Route};
use super::straight::{charge, event_due, guarded, straight_run};
use super::warp::{Cluster, Wait, Warp};
use crate::ir::{Flags, FuncId, Op};
use crate::trace::{Event, What};

/// Runs the cluster whose first CTA is `first`, the grid's `index`-th: its CTAs' warps
/// interleave under one scheduler and one clock, seeded from the run's seed and `index`.
pub fn run_cluster<'m>(mc: &mut Machine<'m>, first: [u32; 3], index: u64) -> Res<()> {
    let ran = run_cluster_warps(mc, first, index);
    if ran.is_err() {
        if let Some(hb) = mc.hb.as_mut() {
            hb.run_stopped();
        }
    }
    ran
}

/// [`run_cluster`], until every warp exits or the run stops.
fn run_cluster_warps<'m>(mc: &mut Machine<'m>, first: [u32; 3], index: u64) -> Res<()> {
    let (mut cl, shared_bytes) = mc.new_cluster(first)?;
    begin_cluster(mc, &cl, index, shared_bytes);
    let mut next_watch = mc.stats.warp_instructions + WATCH_EVERY;
    let mut runnable: Vec<(usize, usize)> = Vec::new();
    // The wake count the list was last built at, and the warp that ran since.
    let (mut listed_at, mut last_run) = (u64::MAX, None);
    mc.next_deadline = u64::MAX;
    loop {
        super::park::pump(mc, &mut cl)?;
        if mc.now >= mc.next_deadline {
            super::park::expire(mc, &mut cl);
        }
        // A cooperative grid holds thousands of warps: scanning them all for every pick
        // would make a run quadratic in its size.
        match last_run.take() {
            Some((i, ci, wi)) if listed_at == mc.woken => relist(&mut runnable, &cl, i, ci, wi),
            _ => {
                list_runnable(&cl, &mut runnable);
                listed_at = mc.woken;
            }
        }
        debug_assert_eq!(runnable, {
            let mut all = Vec::new();
            list_runnable(&cl, &mut all);
            all
        });
        if runnable.is_empty() {
            match idle(mc, &mut cl)? {
                true => return Ok(()),
                false => continue,
            }
        }
        if mc.stats.warp_instructions >= next_watch {
            next_watch = mc.stats.warp_instructions + WATCH_EVERY;
            watch(mc, &cl)?;
        }
        let i = mc.sched.pick(runnable.len());
        let (ci, wi) = runnable[i];
        last_run = Some((i, ci, wi));
        run_quantum(mc, &mut cl, ci, wi)?;
    }
}

/// Starts a cluster's run: the previous cluster's trace and operations are done with, the
/// engine, spin detector, scheduler and clock start afresh, and the checker and the trace see
/// the cluster's warps.
fn begin_cluster(mc: &mut Machine<'_>, cl: &Cluster, index: u64, shared_bytes: u64) {
    // The previous cluster's trace is complete (streamed traces write it now), and of its
    // operations only those the shadow still names matter.
    mc.trace.end_segment();
    if let Some(hb) = &mc.hb {
        mc.engine.forget_done_if_full(|| hb.named_ops());
    }
    mc.engine.reset(index);
    mc.spin.reset(mc.stats.warp_instructions);
    mc.sched = Scheduler::new(crate::latency::cluster_seed(mc.seed, index));
    mc.now = 0;
    if let Some(hb) = &mut mc.hb {
        let warps: Vec<usize> = cl.ctas.iter().map(|c| c.warps.len()).collect();
        // A cooperative launch's CTAs are clusters of their own: named by their index.
        let coop = mc.grid.cooperative.is_some();
        let names = cl
            .ctas
            .iter()
            .map(|c| match coop {
                true => format!("CTA {:?}", c.id),
                false => format!("CTA rank {}", c.rank),
            })
            .collect();
        hb.start_cluster(&warps, shared_bytes as usize, names);
    }
    if mc.trace.enabled {
        for cta in &cl.ctas {
            for w in &cta.warps {
                mc.trace.push(Event {
                    cycle: 0,
                    cta: cta.id,
                    warp: Some(w.index),
                    lanes: w.groups.first().map_or(0, |g| g.mask),
                    line: 0,
                    cuda: None,
                    what: What::WarpStart,
                });
            }
        }
    }
}

/// No warp of the cluster can run: `true` when every thread has exited (the cluster is
/// done), `false` when the clock moved to the next asynchronous event or a parked wait timed
/// out; otherwise the deadlock.
fn idle(mc: &mut Machine<'_>, cl: &mut Cluster) -> Res<bool> {
    if cl
        .ctas
        .iter()
        .all(|c| c.warps.iter().all(|w| w.groups.is_empty()))
    {
        mc.count_local(cl);
        // Operations still in flight complete (a bulk store nobody waited for).
        super::park::drain(mc, cl)?;
        // A cluster shorter than the look-at interval still answers to the budget.
        return match mc.stop_asked() {
            Some(f) => Err(with_cta(f, cl.ctas[0].id)),
            None => Ok(true),
        };
    }
    let next = mc
        .engine
        .next_time()
        .map_or(mc.next_deadline, |t| t.min(mc.next_deadline));
    if next != u64::MAX {
        mc.now = mc.now.max(next);
        return Ok(false);
    }
    if super::park::time_out(mc, cl) {
        return Ok(false);
    }
    let id = cl.ctas[0].id;
    Err(with_cta(super::park::deadlock(mc, cl), id))
}

/// Asks the watch of a cluster running beside others whether it must stop.
fn watch(mc: &Machine<'_>, cl: &Cluster) -> Res<()> {
    if mc
        .watch
        .as_ref()
        .is_some_and(|w| w(&mc.global, mc.stats.warp_instructions))
    {
        let f = fault(
            FaultKind::StepLimit,
            "stopped while running beside other clusters",
        );
        return Err(with_cta(f, cl.ctas[0].id));
    }
    Ok(())
}

/// Runs warp `wi` of CTA `ci` for the scheduler's quantum of instructions, or until none of
/// its groups is ready.
fn run_quantum(mc: &mut Machine<'_>, cl: &mut Cluster, ci: usize, wi: usize) -> Res<()> {
    let mut left = mc.sched.quantum();
    while left > 0 {
        left -= straight_run(mc, cl, (ci, wi), left)?;
        if left == 0 {
            break;
        }
        left -= 1;
        let Some(g) = pick_group(&cl.ctas[ci].warps[wi]) else {
            break;
        };
        let warp = &mut cl.ctas[ci].warps[wi];
        warp.steps += 1;
        warp.groups[g].last = warp.steps;
        step(mc, cl, ci, wi, g).map_err(|f| with_cta(f, cl.ctas[ci].id))?;
        merge_groups(&mut cl.ctas[ci].warps[wi]);
        if event_due(&mut mc.now, &mc.engine, cl.ctas[ci].warps[wi].clock) {
            super::park::pump(mc, cl)?;
        }
    }
    Ok(())
}

/// Executes one instruction of group `gi` of warp `wi` of CTA `ci`.
#[inline(always)]
fn step<'m>(mc: &mut Machine<'m>, cl: &mut Cluster, ci: usize, wi: usize, gi: usize) -> Res<()> {
    mc.stats.warp_instructions += 1;
    let warp = &mut cl.ctas[ci].warps[wi];
    let warp_index = warp.index;
    let g = &warp.groups[gi];
    let (pc, mask) = (g.pc, g.mask);
    let fid = warp.frames[g.frame as usize].func;
    let func = &mc.m.functions[fid.0 as usize];
    let first = warp.index * WARP as u32 + mask.trailing_zeros();
    check_limits(mc).map_err(|f| at(f, fid, pc, first))?;
    let Some(ins) = func.code.get(pc as usize) else {
        // Falling off the end of a function is `ret`.
        return super::control::do_ret(mc, cl, ci, wi, gi, mask).map_err(|f| at(f, fid, pc, first));
    };
    let active = guarded(ins, &warp.frames[g.frame as usize], mask);
    charge(
        &mut mc.stats,
        &mut warp.clock,
        mc.instruction_cycles,
        u64::from(active.count_ones()),
    );
    let w = WarpRef::new((ci, wi, gi), ins, func, active);
    if mc.trace.instructions && active != 0 {
        trace_instr(mc, cl, w, pc);
    }
    if active != 0 && mc.hb.is_some() {
        watch_wgmma(mc, cl, w, (fid, pc));
    }
    let effect = if active != 0 {
        super::spin::effect(ins)
    } else {
        super::spin::Effect::None
    };
    if effect == super::spin::Effect::Always {
        mc.spin.effect(mc.stats.warp_instructions);
    }
    let first = if active != 0 {
        warp_index * WARP as u32 + active.trailing_zeros()
    } else {
        first
    };
    if let Some(&form) = mc.fast.get(fid.0 as usize).and_then(|c| c.get(pc as usize)) {
        if fast_form(mc, cl, w, form).map_err(|f| at(f, fid, pc, first))? {
            return Ok(());
        }
    }
    dispatch(mc, cl, w).map_err(|f| at(f, fid, pc, first))?;
    if !matches!(
        effect,
        super::spin::Effect::None | super::spin::Effect::Always
    ) {
        super::stuck::note_atomic(mc, cl, (ci, wi, gi), ins, active);
    }
    Ok(())
}

/// The step limit, and every [`CANCEL_EVERY`](super::config::CANCEL_EVERY) warp instructions
/// the caller's cancel, the deadline and the memory budget (the trace is charged to it then).
#[inline]
fn check_limits(mc: &mut Machine<'_>) -> Res<()> {
    if mc.stats.warp_instructions > mc.max_steps {
        return Err(fault(
            FaultKind::StepLimit,
            format!(
                "the step limit ({} warp instructions) was reached here (--max-steps raises it)",
                mc.max_steps
            ),
        ));
    }
    if mc
        .stats
        .warp_instructions
        .is_multiple_of(super::config::CANCEL_EVERY)
    {
        mc.charge_trace();
        if let Some(f) = mc.stop_asked() {
            return Err(f);
        }
    }
    Ok(())
}

/// Records the instruction `w` executes in an instruction trace.
fn trace_instr(mc: &mut Machine<'_>, cl: &Cluster, w: WarpRef<'_>, pc: u32) {
    let (line, cuda) = w.func.lines_at(pc);
    let text = crate::ir::print_instr(mc.m, w.func, pc);
    let cta = &cl.ctas[w.ci];
    let warp = &cta.warps[w.wi];
    mc.trace.push(Event {
        cycle: warp.clock,
        cta: cta.id,
        warp: Some(warp.index),
        lanes: w.active,
        line,
        cuda,
        what: What::Instr { text },
    });
}

/// Runs the instruction's warp-wide fast form (`fast.rs`, `memfast.rs`, `launchval.rs`);
/// `false` when it has none, or a memory or parameter form declined (the general handler runs
/// it).
#[inline]
fn fast_form<'m>(mc: &mut Machine<'m>, cl: &mut Cluster, w: WarpRef<'m>, form: Fast) -> Res<bool> {
    if form.is_mem() && w.active != 0 {
        let done = super::memfast::access(mc, cl, w, form)?;
        if done {
            cl.ctas[w.ci].warps[w.wi].groups[w.gi].pc += 1;
        }
        return Ok(done);
    }
    if form == Fast::Slow {
        return Ok(false);
    }
    if form.reads_launch() && w.active != 0 && !super::launchval::run(mc, cl, w, form) {
        return Ok(false);
    }
    let warp = &mut cl.ctas[w.ci].warps[w.wi];
    let fi = warp.groups[w.gi].frame as usize;
    if w.active != 0 {
        super::fast::exec(form, &mut warp.frames[fi].regs, w.active);
    }
    warp.groups[w.gi].pc += 1;
    Ok(true)
}

/// Executes the instruction of `w` by its [`Route`] (`route.rs`, the one table from opcode to
/// handler).
fn dispatch<'m>(mc: &mut Machine<'m>, cl: &mut Cluster, w: WarpRef<'m>) -> Res<()> {
    let ((ci, wi, gi), ins, active) = (w.at(), w.ins, w.active);
    let family = match route(ins.op) {
        Route::Collective => return super::collective::collective(mc, cl, w),
        Route::CollectiveIfSync if ins.mods.flags.contains(Flags::SYNC) => {
            return super::collective::collective(mc, cl, w)
        }
        Route::CollectiveIfSync => Some(Family::Warp),
        Route::Control => return super::control::control(mc, cl, w),
        Route::Async => return async_instr(mc, cl, w),
        Route::WgmmaSync => {
            super::collective::whole_warp(mc, cl, w)?;
            return async_instr(mc, cl, w);
        }
        Route::ClusterBarrier => return super::mbarops::cluster_barrier(mc, cl, w),
        // A register-allocation hint (PTX ISA 9.0, miscellaneous instructions: setmaxnreg):
        // virtual registers do not change; the whole warp must execute it together.
        Route::Setmaxnreg => {
            super::collective::whole_warp(mc, cl, w)?;
            if active != 0 {
                super::collective::warpgroup_issue(mc, cl, w, "setmaxnreg")?;
            }
            None
        }
        Route::Family(f) => Some(f),
    };
    if let (Some(f), true) = (family, active != 0) {
        run_family(&mut Ctx::new(mc, cl, w), f)?;
    }
    cl.ctas[ci].warps[wi].groups[gi].pc += 1;
    Ok(())
}

/// Runs an instruction of a per-lane family for the lanes of `cx`.
fn run_family(cx: &mut Ctx<'_, '_>, family: Family) -> Res<()> {
    if cx.ins.is_b128() {
        // Registers hold 64 bits: a 128-bit value would lose its high half.
        let what = crate::ir::print_opcode(cx.func, cx.pc);
        return Err(fault(
            FaultKind::Unsupported,
            format!("`{what}` is not supported by ptxrun yet: 128-bit (`.b128`) values"),
        ));
    }
    match family {
        Family::Memory => super::memops::exec(cx),
        Family::Warp => super::warpops::exec(cx),
        Family::TensormapEdit => super::tmapedit::exec(cx),
        Family::StBulk => super::stbulk::exec(cx),
        Family::Texture => super::texops::exec(cx),
        Family::Convert => super::cvt::exec(cx),
        Family::WmmaMove => super::wmma::load_store(cx),
        Family::Policy => super::policy::exec(cx),
        Family::Fence => super::fence::exec(cx),
        Family::Arithmetic => arithmetic(cx),
        Family::Unsupported => Err(unsupported(cx, cx.ins.op)),
    }
}

/// An arithmetic instruction: floating point when its types are (`fp.rs`), else integer
/// (`alu.rs`), or video (`video.rs`).
fn arithmetic(cx: &mut Ctx<'_, '_>) -> Res<()> {
    let op = cx.ins.op;
    if super::fp::handles(op, &cx.ins.mods) {
        super::fp::exec(cx)
    } else if super::alu::handles(op) {
        super::alu::exec(cx)
    } else if super::video::handles(op) {
        super::video::exec(cx)
    } else {
        Err(unsupported(cx, op))
    }
}

/// The fault of an instruction ptxrun does not run.
fn unsupported(cx: &Ctx<'_, '_>, op: Op) -> Box<Fault> {
    let what = cx
        .func
        .srcs
        .get(cx.pc as usize)
        .and_then(|s| s.raw.clone())
        .unwrap_or_else(|| op.name().to_string());
    // multimem reaches one address on every GPU of a multicast object.
    let why = match op {
        Op::Multimem => ": it needs a multicast object over several GPUs, and ptxrun models one",
        _ => " yet",
    };
    fault(
        FaultKind::Unsupported,
        format!("`{what}` is not supported by ptxrun{why}"),
    )
}

/// Shows an instruction to the warp's `wgmma` register watch (`wgmma::watch`), reporting
/// what it finds.
fn watch_wgmma<'m>(
    mc: &mut Machine<'m>,
    cl: &mut Cluster,
    w: WarpRef<'m>,
    (fid, pc): (FuncId, u32),
) {
    let ((ci, wi, gi), ins, func, active) = (w.at(), w.ins, w.func, w.active);
    let cta = &mut cl.ctas[ci];
    let (rank, id) = (cta.rank, cta.id);
    let warp = &mut cta.warps[wi];
    let frame = (fid.0, warp.groups[gi].frame);
    let Some(asy) = warp.asy.as_mut().filter(|a| a.wg.watching()) else {
        return;
    };
    let Some((kind, message, at, label, help)) =
        super::wgstate::watch(&mut asy.wg, func, frame, ins, pc)
    else {
        return;
    };
    let site = super::hazard::Site {
        func: fid.0,
        pc,
        rank,
        cta: id,
        warp: warp.index,
        lane: active.trailing_zeros(),
    };
    if let Some(hb) = mc.hb.as_mut() {
        hb.report(
            kind,
            site,
            message,
            help,
            String::new(),
            Some((fid.0, at, label.to_string())),
        );
    }
}

/// A ready group that has not run for this many of its warp's steps runs next.
const STARVATION_STEPS: u64 = 256;

/// The group to run next: the one furthest behind (lowest PC), so that divergent paths of
/// structured code meet again at their join point; but a group left waiting too long runs
/// first, so that one group spinning on a value another group of its warp will write (a lock,
/// a flag) cannot starve it: Volta's independent thread scheduling guarantees that progress.
fn pick_group(w: &Warp) -> Option<usize> {
    // One group (the common case: no divergence) is the one to run if it is ready.
    if let [g] = &w.groups[..] {
        return (g.wait == Wait::Ready).then_some(0);
    }
    let ready = || {
        w.groups
            .iter()
            .enumerate()
            .filter(|(_, g)| g.wait == Wait::Ready)
    };
    if let Some((i, _)) = ready()
        .filter(|(_, g)| w.steps - g.last > STARVATION_STEPS)
        .min_by_key(|(_, g)| g.last)
    {
        return Some(i);
    }
    ready()
        .min_by_key(|(_, g)| (g.stack.is_empty(), g.pc))
        .map(|(i, _)| i)
}

/// Merges groups that stand at the same place of the same call.
fn merge_groups(w: &mut Warp) {
    let mut i = 0;
    while i < w.groups.len() {
        let mut j = i + 1;
        while j < w.groups.len() {
            let (a, b) = (&w.groups[i], &w.groups[j]);
            if a.pc == b.pc
                && a.frame == b.frame
                && a.wait == b.wait
                && a.wait == Wait::Ready
                && a.timed_out == b.timed_out
                && a.stack.len() == b.stack.len()
            {
                let m = b.mask;
                w.groups[i].mask |= m;
                w.groups.swap_remove(j);
            } else {
                j += 1;
            }
        }
        i += 1;
    }
}

/// Every warp of the unit with a group ready to run, in (CTA, warp) order.
fn list_runnable(cl: &Cluster, out: &mut Vec<(usize, usize)>) {
    out.clear();
    for (ci, cta) in cl.ctas.iter().enumerate() {
        for (wi, w) in cta.warps.iter().enumerate() {
            if w.groups.iter().any(|g| g.wait == Wait::Ready) {
                out.push((ci, wi));
            }
        }
    }
}

/// Updates the runnable list for warp `wi` of CTA `ci`, the one that ran (the list's `i`-th: it
/// was picked from it), when no other warp was woken: it may have parked or exited.
fn relist(list: &mut Vec<(usize, usize)>, cl: &Cluster, i: usize, ci: usize, wi: usize) {
    let ready = cl.ctas[ci].warps[wi]
        .groups
        .iter()
        .any(|g| g.wait == Wait::Ready);
    debug_assert_eq!(list[i], (ci, wi));
    if !ready {
        list.remove(i);
    }
}

/// Asynchronous copies, their groups and waits, and mbarrier instructions: each returns a
/// [`Settle`] that moves finished lanes on and parks waiting ones.
pub(crate) fn async_instr<'m>(mc: &mut Machine<'m>, cl: &mut Cluster, w: WarpRef<'m>) -> Res<()> {
    let (ins, active) = (w.ins, w.active);
    let s = {
        let mut cx = Ctx::new(mc, cl, w);
        if active == 0 {
            Settle::all(0)
        } else {
            match ins.op {
                Op::CpAsync => super::asyncops::cp_async(&mut cx)?,
                Op::CpAsyncCommitGroup => super::asyncops::commit(&mut cx, false)?,
                Op::CpAsyncBulkCommitGroup => super::asyncops::commit(&mut cx, true)?,
                Op::CpAsyncWaitGroup | Op::CpAsyncWaitAll => {
                    super::asyncops::wait_groups(&mut cx, false)
                }
                Op::CpAsyncBulkWaitGroup => super::asyncops::wait_groups(&mut cx, true),
                Op::CpAsyncMbarrierArrive => super::asyncops::cp_async_arrive(&mut cx)?,
                Op::CpAsyncBulk | Op::CpReduceAsyncBulk => super::asyncops::bulk(&mut cx)?,
                Op::CpAsyncBulkTensor | Op::CpReduceAsyncBulkTensor => {
                    super::tensorops::tensor(&mut cx)?
                }
                Op::CpAsyncBulkPrefetch | Op::CpAsyncBulkPrefetchTensor => Settle::all(active),
                Op::StAsync | Op::RedAsync => super::asyncops::st_async(&mut cx)?,
                Op::WgmmaFence => super::wgmma::fence(&mut cx),
                Op::WgmmaCommitGroup => super::wgmma::commit(&mut cx)?,
                Op::WgmmaWaitGroup => super::wgmma::wait(&mut cx)?,
                _ => super::mbarops::exec(&mut cx)?,
            }
        }
    };
    super::park::settle(mc, cl, w, s);
    Ok(())
}
