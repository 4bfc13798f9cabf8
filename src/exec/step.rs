//! The scheduler and the dispatcher (see `mod.rs` for the model): the loop that runs one
//! cluster (or cooperative grid) — picking a warp and a quantum with the seeded scheduler,
//! moving the clock to the next asynchronous event when every warp waits, reporting deadlocks
//! — and the execution of one instruction by a lane group: guard, trace, checker watches, the
//! warp-wide fast form where there is one, else the family that handles the opcode. The top of
//! the executor's layers below `cdp.rs`/`grid.rs`: it calls the families and the parked waits
//! (`park.rs`), and nothing below calls it.

use super::config::Scheduler;
use super::ctx::Ctx;
use super::fast::Fast;
use super::fault::{at, fault, with_cta, Fault, FaultKind, Res};
use super::lanes::WARP;
use super::machine::{Machine, WarpRef, WATCH_EVERY};
use super::memfast::Reach;
use super::park::Settle;
use super::route::{route, Family, Route};
use super::warp::{Cluster, Frame, Wait, Warp};
use crate::ir::{Flags, FuncId, Instr, Op};
use crate::trace::{Event, What};

/// Runs the cluster whose first CTA is `first`, the grid's `index`-th: its CTAs' warps
/// interleave under one scheduler and one clock, seeded from the run's seed and `index`.
pub fn run_cluster<'m>(mc: &mut Machine<'m>, first: [u32; 3], index: u64) -> Res<()> {
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
            Some((ci, wi)) if listed_at == mc.woken => relist(&mut runnable, &cl, ci, wi),
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
        let (ci, wi) = runnable[mc.sched.pick(runnable.len())];
        last_run = Some((ci, wi));
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

/// Runs, for at most `budget` instructions, the warp-wide arithmetic fast forms (`fast.rs`)
/// that follow one another from the pc of warp `wi` of CTA `ci`, when the warp is one lane
/// group, and the fast loads and stores among them when no checker must see them
/// (`memfast.rs`): how many it ran (0 when the next instruction is not one). The result is
/// exactly what [`step`] and [`run_quantum`] give instruction by instruction (the counters, the
/// clock, the guard, the fast form, the spin detector's news of a store, the asynchronous
/// events that fall due), but the bookkeeping is done once for the whole stretch: how far the
/// stretch may go is known before it starts (the budget, the step limit, the next cancel check
/// and the first asynchronous event that falls due, all fixed while only registers and plain
/// memory change; the engine reads memory only when an event falls due), so the loop itself
/// only reads the guard and runs the form. It stops before an instruction that would reach the
/// step limit or the cancel check, before anything traced or watched, before an access the fast
/// path declines, and when an asynchronous event falls due (after handling it), so that `step`
/// handles those as always.
fn straight_run(
    mc: &mut Machine<'_>,
    cl: &mut Cluster,
    (ci, wi): (usize, usize),
    budget: u32,
) -> Res<u32> {
    let mut ran = straight_forms(mc, cl, (ci, wi), budget)?;
    if mc.hb.is_none() {
        return Ok(ran);
    }
    // A checked run goes on through the fast loads and stores the checker sees.
    while ran < budget {
        match watched_access(mc, cl, (ci, wi)) {
            Some(form) if checked_access(mc, cl, (ci, wi), form)? => ran += 1,
            _ => break,
        }
        ran += straight_forms(mc, cl, (ci, wi), budget - ran)?;
    }
    Ok(ran)
}

/// The fast load or store at the pc of warp `wi` of CTA `ci`, when the warp could run it in a
/// straight run (one lane group, ready, nothing traced or watched) but for the checker.
fn watched_access(mc: &Machine<'_>, cl: &Cluster, (ci, wi): (usize, usize)) -> Option<Fast> {
    let w = &cl.ctas[ci].warps[wi];
    let [g] = &w.groups[..] else { return None };
    let wgmma_watch = w.asy.as_ref().is_some_and(|a| a.wg.watching());
    if g.wait != Wait::Ready || mc.trace.instructions || wgmma_watch {
        return None;
    }
    let func = w.frames[g.frame as usize].func.0 as usize;
    let form = *mc.fast.get(func)?.get(g.pc as usize)?;
    form.is_mem().then_some(form)
}

/// The arithmetic forms (and, with no checker, the loads and stores) of [`straight_run`]: how
/// many it ran.
fn straight_forms(
    mc: &mut Machine<'_>,
    cl: &mut Cluster,
    (ci, wi): (usize, usize),
    budget: u32,
) -> Res<u32> {
    let Cluster { ctas, smem, .. } = cl;
    let rank = ctas[ci].rank as usize;
    let Warp {
        groups,
        frames,
        clock,
        steps,
        asy,
        ..
    } = &mut ctas[ci].warps[wi];
    let [g] = &mut groups[..] else {
        return Ok(0);
    };
    let wgmma_watch = mc.hb.is_some() && asy.as_ref().is_some_and(|a| a.wg.watching());
    if g.wait != Wait::Ready || mc.trace.instructions || wgmma_watch {
        return Ok(0);
    }
    let frame = &mut frames[g.frame as usize];
    let func = &mc.m.functions[frame.func.0 as usize];
    let Some(fast) = mc.fast.get(frame.func.0 as usize) else {
        return Ok(0);
    };
    // Loads and stores join straight runs when no checker watches them (with one,
    // `straight_run` runs them one by one).
    let with_mem = mc.hb.is_none();
    let pc0 = g.pc as usize;
    if !fast.get(pc0).is_some_and(|&f| straight(f, with_mem)) {
        return Ok(0);
    }
    let limit = Stretch {
        done: mc.stats.warp_instructions,
        max_steps: mc.max_steps,
        now: mc.now,
        clock: *clock,
        cycles: mc.instruction_cycles,
        event: mc.engine.next_time(),
    };
    let most = limit.most(budget);
    let end = (pc0 + most as usize).min(fast.len()).min(func.code.len());
    let lanes = Lanes {
        func: frame.func.0 as usize,
        forms: fast,
        code: &func.code,
        mask: g.mask,
    };
    let mem = with_mem.then_some(Reach {
        global: &mut mc.global,
        shared: &mut smem[rank].bytes,
    });
    let run = run_forms(mc.jit.as_deref_mut(), lanes, mem, frame, pc0..end);
    let (ran, threads) = (run.ran, run.threads);
    if ran == 0 {
        return Ok(0);
    }
    // The spin detector hears of the last store, as `step` tells it of each.
    if let Some(j) = run.last_store {
        mc.spin
            .effect(mc.stats.warp_instructions + u64::from(j) + 1);
    }
    mc.stats.warp_instructions += u64::from(ran);
    *steps += u64::from(ran);
    g.last = *steps;
    g.pc += ran;
    let cycles = u64::from(ran).saturating_mul(mc.instruction_cycles);
    charge(&mut mc.stats, clock, cycles, threads);
    // `most` stopped the run at the first instruction after which an event falls due.
    if event_due(&mut mc.now, &mc.engine, *clock) {
        super::park::pump(mc, cl)?;
    }
    Ok(ran)
}

/// Runs the fast load or store `form` at the pc of warp `wi` of CTA `ci` (one lane group, ready)
/// with the checker watching, exactly as [`step`] would: `false`, having changed nothing, when
/// `step` must run it (a limit or the cancel check falls on it, or the fast path declines it).
fn checked_access(
    mc: &mut Machine<'_>,
    cl: &mut Cluster,
    (ci, wi): (usize, usize),
    form: Fast,
) -> Res<bool> {
    let warp = &cl.ctas[ci].warps[wi];
    let limit = Stretch {
        done: mc.stats.warp_instructions,
        max_steps: mc.max_steps,
        now: mc.now,
        clock: warp.clock,
        cycles: mc.instruction_cycles,
        event: mc.engine.next_time(),
    };
    if limit.most(1) == 0 {
        return Ok(false);
    }
    let g = &warp.groups[0];
    let (pc, frame) = (g.pc, &warp.frames[g.frame as usize]);
    let (m, fid) = (mc.m, frame.func);
    let func = &m.functions[fid.0 as usize];
    let ins = &func.code[pc as usize];
    let active = guarded(ins, frame, g.mask);
    if active != 0 {
        let w = WarpRef::new((ci, wi, 0), ins, func, active);
        let first = warp.index * WARP as u32 + active.trailing_zeros();
        let done = super::memfast::access(mc, cl, w, form)
            .map_err(|f| with_cta(at(f, fid, pc, first), cl.ctas[ci].id))?;
        if !done {
            return Ok(false);
        }
    }
    // What `step` counts for it.
    mc.stats.warp_instructions += 1;
    if active != 0 && form.is_store() {
        mc.spin.effect(mc.stats.warp_instructions);
    }
    let warp = &mut cl.ctas[ci].warps[wi];
    warp.steps += 1;
    let g = &mut warp.groups[0];
    g.last = warp.steps;
    g.pc += 1;
    let threads = u64::from(active.count_ones());
    charge(
        &mut mc.stats,
        &mut warp.clock,
        mc.instruction_cycles,
        threads,
    );
    if event_due(&mut mc.now, &mc.engine, warp.clock) {
        super::park::pump(mc, cl)?;
    }
    Ok(true)
}

/// Whether a fast form belongs in a straight run: arithmetic, and loads and stores `with_mem`
/// (not the general path).
#[inline(always)]
fn straight(form: Fast, with_mem: bool) -> bool {
    form != Fast::Slow && !form.reads_launch() && (with_mem || !form.is_mem())
}

/// The code a straight run runs: function `func`'s fast forms and instructions, for a warp of
/// lanes `mask`.
struct Lanes<'a> {
    func: usize,
    forms: &'a [Fast],
    code: &'a [Instr],
    mask: u32,
}

/// What [`run_forms`] did: instructions run, the thread instructions they count, and the index
/// (in the run) of the last store among them.
struct Run {
    ran: u32,
    threads: u64,
    last_store: Option<u32>,
}

/// Runs the straight forms of `pcs` (stopping before any other) on `frame`'s registers, through
/// the JIT's compiled code where it has some, else form by form; loads and stores reach `mem`
/// (with none, they are not straight). A memory form the fast path declines (a fault, another
/// allocation) ends the run before it, for `step` to run.
fn run_forms(
    mut jit: Option<&mut super::jit::Jit>,
    l: Lanes<'_>,
    mut mem: Option<Reach<'_>>,
    frame: &mut Frame,
    pcs: std::ops::Range<usize>,
) -> Run {
    let (mut pc, end) = (pcs.start, pcs.end);
    let (mut threads, mut last_store) = (0u64, None);
    // Below this pc, the JIT has said to interpret.
    let mut interpret_to = pc;
    while pc < end {
        // The instruction that ends the run (a branch, a barrier) is no JIT's business.
        if !straight(l.forms[pc], mem.is_some()) {
            break;
        }
        if let Some(jit) = jit.as_deref_mut().filter(|_| pc >= interpret_to) {
            let at = super::jit::At {
                func: l.func,
                forms: l.forms,
                code: l.code,
                pc,
                most: end - pc,
                mask: l.mask,
            };
            let (shared, global): (&mut [u8], _) = match mem.as_mut() {
                Some(m) => (m.shared, Some(&mut *m.global)),
                None => (&mut [], None),
            };
            match jit.run(at, &mut frame.regs, shared, global) {
                super::jit::Ran::Compiled(c) => {
                    if let Some(j) = c.last_store {
                        last_store = Some((pc + j - pcs.start) as u32);
                    }
                    threads += c.ran as u64 * u64::from(l.mask.count_ones());
                    pc += c.ran;
                    if !c.declined {
                        continue;
                    }
                    // The access after them is the interpreter's (which may decline it too).
                    interpret_to = (pc + 1).min(end);
                }
                super::jit::Ran::Interpret(n) => interpret_to = (pc + n).min(end),
            }
        }
        // Without a JIT, everything is interpreted.
        let stop = match jit {
            Some(_) => interpret_to.max(pc + 1),
            None => end,
        };
        let (ran, t) = interpret(&l, frame, pc..stop);
        pc += ran;
        threads += t;
        if pc == stop {
            continue;
        }
        // The arithmetic stopped at something else: a load or store, or the run's end.
        let form = l.forms[pc];
        if !form.is_mem() || mem.is_none() {
            break;
        }
        let Some(active) = mem_form(mem.as_mut(), &l.code[pc], form, frame, l.mask) else {
            break;
        };
        if active != 0 && form.is_store() {
            last_store = Some((pc - pcs.start) as u32);
        }
        threads += u64::from(active.count_ones());
        pc += 1;
    }
    Run {
        ran: (pc - pcs.start) as u32,
        threads,
        last_store,
    }
}

/// Interprets the arithmetic fast forms of `pcs`, stopping before any other: how many ran, and
/// the thread instructions they count.
#[inline(always)]
fn interpret(l: &Lanes<'_>, frame: &mut Frame, pcs: std::ops::Range<usize>) -> (usize, u64) {
    let mut threads = 0u64;
    let mut pc = pcs.start;
    while pc < pcs.end {
        let (form, ins) = (l.forms[pc], &l.code[pc]);
        if !straight(form, false) {
            break;
        }
        debug_assert_eq!(super::spin::effect(ins), super::spin::Effect::None);
        let active = match ins.guard {
            None => l.mask,
            Some(_) => guarded(ins, frame, l.mask),
        };
        threads += u64::from(active.count_ones());
        if active != 0 {
            super::fast::exec(form, &mut frame.regs, active);
        }
        pc += 1;
    }
    (pc - pcs.start, threads)
}

/// Runs the load or store `ins` (fast form `form`) of a straight run reaching `mem` for the
/// lanes of `mask` its guard lets through: those lanes, or `None` when the general path must
/// run it. Out of line: the loop around it stays small for the arithmetic forms.
#[inline(never)]
fn mem_form(
    mem: Option<&mut Reach<'_>>,
    ins: &Instr,
    form: Fast,
    frame: &mut Frame,
    mask: u32,
) -> Option<u32> {
    let active = guarded(ins, frame, mask);
    if active != 0 {
        let m = mem?;
        let reach = Reach {
            global: m.global,
            shared: m.shared,
        };
        if !super::memfast::unwatched(reach, &mut frame.regs, form, active) {
            return None;
        }
    }
    Some(active)
}

/// What bounds a straight run before it starts: the warp instructions done so far, the step
/// limit, the cluster's clock, the warp's clock and its cycles per instruction, and the time of
/// the next asynchronous event (none of which a fast form changes).
struct Stretch {
    done: u64,
    max_steps: u64,
    now: u64,
    clock: u64,
    cycles: u64,
    event: Option<u64>,
}

impl Stretch {
    /// How many instructions a straight run may execute within `budget`: up to the first after
    /// which an asynchronous event falls due, at most. Instruction `j`, counted
    /// from one, is the run's `done + j`-th: it may run while that number is within the step
    /// limit and not a multiple of the cancel interval; after it the warp's clock is
    /// `clock + j * cycles` and the cluster's `max(now, that)`, and the event at `t` is due once
    /// that reaches `t`.
    fn most(&self, budget: u32) -> u32 {
        let every = super::config::CANCEL_EVERY;
        let to_cancel = every - 1 - self.done % every;
        let to_limit = self.max_steps.saturating_sub(self.done);
        let mut most = u64::from(budget).min(to_cancel).min(to_limit);
        let due = self.event.map(|t| {
            let first = self.clock.saturating_add(self.cycles);
            if t <= self.now.max(first) {
                1
            } else {
                (t - self.clock).div_ceil(self.cycles.max(1))
            }
        });
        if let Some(j) = due {
            most = most.min(j);
        }
        most as u32
    }
}

/// After a warp instruction: the cluster's clock `now` catches up with the warp's `clock`, and
/// whether an asynchronous event falls due by then (the caller pumps the engine).
#[inline(always)]
fn event_due(now: &mut u64, engine: &crate::mem::copy::Engine, clock: u64) -> bool {
    *now = (*now).max(clock);
    engine.next_time().is_some_and(|t| t <= *now)
}

/// What executed warp instructions cost (one, or a straight run's): the warp's clock moves on
/// by their `cycles` (saturating: a library caller may pass any `instruction_cycles`, the
/// facade caps it), and the run's cycle and thread-instruction (`threads`) counters follow.
#[inline(always)]
fn charge(stats: &mut super::config::Stats, clock: &mut u64, cycles: u64, threads: u64) {
    *clock = clock.saturating_add(cycles);
    stats.cycles = stats.cycles.max(*clock);
    stats.thread_instructions += threads;
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

/// The lanes of `mask` whose guard predicate lets them execute `ins`. Every lane's predicate is
/// read, without a branch per lane, and the mask applied after.
#[inline]
fn guarded(ins: &Instr, frame: &Frame, mask: u32) -> u32 {
    let Some(gd) = ins.guard else {
        return mask;
    };
    let preds = frame.regs[gd.reg.0 as usize * WARP..][..WARP].try_into();
    let set = preds.map_or(0, true_lanes);
    match gd.negated {
        true => !set & mask,
        false => set & mask,
    }
}

/// The lanes whose predicate value is true (not zero). Built for baseline x86-64 the loop
/// compares one lane at a time (SSE2 has no 64-bit compare); a copy built with AVX2, chosen at
/// run time, compares four lanes to an instruction.
#[multiversion::multiversion(targets("x86_64+avx+avx2"))]
fn true_lanes(preds: &[u64; WARP]) -> u32 {
    let mut set = 0u32;
    for (lane, &p) in preds.iter().enumerate() {
        set |= u32::from(p != 0) << lane;
    }
    set
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

/// Updates the runnable list for warp `wi` of CTA `ci`, the one that ran, when no other warp
/// was woken: it may have parked, exited or divided.
fn relist(list: &mut Vec<(usize, usize)>, cl: &Cluster, ci: usize, wi: usize) {
    let ready = cl.ctas[ci].warps[wi]
        .groups
        .iter()
        .any(|g| g.wait == Wait::Ready);
    match list.binary_search(&(ci, wi)) {
        Ok(i) if !ready => {
            list.remove(i);
        }
        Err(i) if ready => list.insert(i, (ci, wi)),
        _ => {}
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
