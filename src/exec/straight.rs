//! Straight runs (see `mod.rs` for the model): a warp that is one lane group runs the
//! warp-wide fast forms that follow one another (`fast.rs`), through the JIT's compiled code
//! where it has some (`jit/`), with the bookkeeping of `step.rs` done once per run; the run goes
//! on through a branch all its lanes take or none does, through the fast loads and stores
//! (`memfast.rs`) with no checker, and with one through each load and store it shows the
//! checker. Every instruction gives exactly what `step.rs`, one instruction at a time, gives:
//! the same counters, clock, spin-detector news and asynchronous events. Above the families and
//! `park.rs`/`stuck.rs`; only `step.rs` imports it.

use super::fast::Fast;
use super::fault::{at, with_cta, Res};
use super::lanes::WARP;
use super::machine::{Machine, WarpRef};
use super::memfast::Reach;
use super::warp::{Cluster, Frame, Group, Wait, Warp, WarpAsync};
use crate::ir::{Instr, Op, Operand};

/// Runs, for at most `budget` instructions, the warp-wide arithmetic fast forms (`fast.rs`)
/// that follow one another from the pc of warp `wi` of CTA `ci`, when the warp is one lane
/// group, and the fast loads and stores among them when no checker must see them
/// (`memfast.rs`): how many it ran (0 when the next instruction is not one). The result is
/// exactly what `step.rs` gives instruction by instruction (the counters, the
/// clock, the guard, the fast form, the spin detector's news of a store, the asynchronous
/// events that fall due), but the bookkeeping is done once for the whole stretch: how far the
/// stretch may go is known before it starts (the budget, the step limit, the next cancel check
/// and the first asynchronous event that falls due, all fixed while only registers and plain
/// memory change; the engine reads memory only when an event falls due), so the loop itself
/// only reads the guard and runs the form. It stops before an instruction that would reach the
/// step limit or the cancel check, before anything traced or watched, before an access the fast
/// path declines, and when an asynchronous event falls due (after handling it), so that `step.rs`
/// handles those as always.
pub(super) fn straight_run(
    mc: &mut Machine<'_>,
    cl: &mut Cluster,
    (ci, wi): (usize, usize),
    budget: u32,
) -> Res<u32> {
    let mut ran = straight_forms(mc, cl, (ci, wi), budget)?;
    // The run goes on through a branch every lane takes or none does, and with a checker
    // through the fast loads and stores it sees, each run as `step` would run it.
    while ran < budget {
        let done = match onward(mc, cl, (ci, wi)) {
            Some(Onward::Branch) => uniform_branch(mc, cl, (ci, wi))?,
            Some(Onward::Access(form)) => checked_access(mc, cl, (ci, wi), form)?,
            None => false,
        };
        if !done {
            break;
        }
        ran += 1;
        ran += match lone_form(mc, cl, (ci, wi), budget - ran)? {
            Some(one) => one,
            None => straight_forms(mc, cl, (ci, wi), budget - ran)?,
        };
    }
    Ok(ran)
}

/// With a checker, what `straight_forms` would run after an access it sees, when that is
/// little: nothing (`Some(0)`: the next instruction is another access, a branch, or the warp
/// cannot run straight), or one arithmetic form before the next access (`ld; fma; ld`, the
/// inner loop of a tiled GEMM), run here as `straight_forms` would run it but without the JIT's
/// bookkeeping, for there is no stretch to compile (`Some(1)`); `None` for a longer run, which
/// is `straight_forms`' to make. Out of line, so that `straight_forms` is built as it was.
#[inline(never)]
fn lone_form(
    mc: &mut Machine<'_>,
    cl: &mut Cluster,
    (ci, wi): (usize, usize),
    budget: u32,
) -> Res<Option<u32>> {
    if mc.hb.is_none() {
        return Ok(None);
    }
    let w = &mut cl.ctas[ci].warps[wi];
    let [g] = &mut w.groups[..] else {
        return Ok(Some(0));
    };
    if !may_run_straight(mc, g, &w.asy) {
        return Ok(Some(0));
    }
    let frame = &mut w.frames[g.frame as usize];
    let func = &mc.m.functions[frame.func.0 as usize];
    let Some(fast) = mc.fast.get(frame.func.0 as usize) else {
        return Ok(Some(0));
    };
    let pc = g.pc as usize;
    let (Some(&form), Some(ins)) = (fast.get(pc), func.code.get(pc)) else {
        return Ok(Some(0));
    };
    if !straight(form, false) || budget == 0 {
        return Ok(Some(0));
    }
    if fast.get(pc + 1).is_some_and(|&f| straight(f, false)) {
        return Ok(None);
    }
    if Stretch::of(mc, w.clock).most(1) == 0 {
        return Ok(Some(0));
    }
    let active = guarded(ins, frame, g.mask);
    if active != 0 {
        super::fast::exec(form, &mut frame.regs, active);
    }
    g.pc += 1;
    let clock = count_one(mc, cl, (ci, wi), active);
    after_one(mc, cl, clock)?;
    Ok(Some(1))
}

/// What a straight run may go on through (see [`straight_run`]).
enum Onward {
    Branch,
    Access(Fast),
}

/// What the instruction at the pc of warp `wi` of CTA `ci` is to a straight run that stopped
/// before it, when the warp could go on (one lane group, ready, nothing traced or watched).
fn onward(mc: &Machine<'_>, cl: &Cluster, (ci, wi): (usize, usize)) -> Option<Onward> {
    let w = &cl.ctas[ci].warps[wi];
    let [g] = &w.groups[..] else { return None };
    if !may_run_straight(mc, g, &w.asy) {
        return None;
    }
    let func = w.frames[g.frame as usize].func.0 as usize;
    let form = *mc.fast.get(func)?.get(g.pc as usize)?;
    if form.is_mem() {
        return mc.hb.is_some().then_some(Onward::Access(form));
    }
    let ins = mc.m.functions[func].code.get(g.pc as usize)?;
    (ins.op == Op::Bra).then_some(Onward::Branch)
}

/// Whether a warp whose one lane group is `g` and whose asynchronous state is `asy` may run
/// straight: ready, with nothing traced instruction by instruction, and no `wgmma` whose
/// registers the checker watches.
fn may_run_straight(mc: &Machine<'_>, g: &Group, asy: &Option<Box<WarpAsync>>) -> bool {
    let wgmma_watch = mc.hb.is_some() && asy.as_ref().is_some_and(|a| a.wg.watching());
    g.wait == Wait::Ready && !mc.trace.instructions && !wgmma_watch
}

/// Whether warp `wi` of CTA `ci` may run one more instruction in its straight run: no limit,
/// cancel check or asynchronous event falls on it (see [`Stretch`]).
fn one_more(mc: &Machine<'_>, cl: &Cluster, (ci, wi): (usize, usize)) -> bool {
    Stretch::of(mc, cl.ctas[ci].warps[wi].clock).most(1) == 1
}

/// Runs the `bra` at the pc of warp `wi` of CTA `ci` (one lane group, ready) when every active
/// lane takes it or none does, exactly as `step.rs` and `control::bra` would: `false`, having
/// changed nothing, when the lanes diverge or `step` must run it for another reason.
fn uniform_branch(mc: &mut Machine<'_>, cl: &mut Cluster, (ci, wi): (usize, usize)) -> Res<bool> {
    if !one_more(mc, cl, (ci, wi)) {
        return Ok(false);
    }
    let warp = &cl.ctas[ci].warps[wi];
    let g = &warp.groups[0];
    let (pc, mask, frame) = (g.pc, g.mask, &warp.frames[g.frame as usize]);
    let (m, fid) = (mc.m, frame.func);
    let func = &m.functions[fid.0 as usize];
    let ins = &func.code[pc as usize];
    let active = guarded(ins, frame, mask);
    let Some(Operand::Label(target)) = func.ops(ins).first().copied() else {
        return Ok(false);
    };
    if active != 0 && active != mask {
        return Ok(false);
    }
    let first = warp.index * WARP as u32 + (active | mask).trailing_zeros();
    let counted = count_one(mc, cl, (ci, wi), active);
    super::warp::branch_to(&mut cl.ctas[ci], wi, 0, active, target);
    if target <= pc && active != 0 {
        super::stuck::back_edge(mc, cl, (ci, wi), pc, target)
            .map_err(|f| with_cta(at(f, fid, pc, first), cl.ctas[ci].id))?;
    }
    after_one(mc, cl, counted)?;
    Ok(true)
}

/// Counts one warp instruction of `active` lanes, run by warp `wi` of CTA `ci` in a straight
/// run, as `step.rs` counts it; returns the warp's clock after it.
fn count_one(mc: &mut Machine<'_>, cl: &mut Cluster, (ci, wi): (usize, usize), active: u32) -> u64 {
    mc.stats.warp_instructions += 1;
    let warp = &mut cl.ctas[ci].warps[wi];
    warp.steps += 1;
    warp.groups[0].last = warp.steps;
    let threads = u64::from(active.count_ones());
    charge(
        &mut mc.stats,
        &mut warp.clock,
        mc.instruction_cycles,
        threads,
    );
    warp.clock
}

/// After one instruction of a straight run, as after a step of `step.rs`: the asynchronous
/// events that fall due by the warp's `clock`.
fn after_one(mc: &mut Machine<'_>, cl: &mut Cluster, clock: u64) -> Res<()> {
    if event_due(&mut mc.now, &mc.engine, clock) {
        super::park::pump(mc, cl)?;
    }
    Ok(())
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
    if !may_run_straight(mc, g, asy) {
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
    let most = Stretch::of(mc, *clock).most(budget);
    // A loop's back edges that hang detection would only count or pass (`jit/edge.rs`),
    // worked out only when compiled code is about to loop.
    let (spin, engine) = (&mc.spin, &mc.engine);
    let facts = (mc.stats.warp_instructions, mc.progress, mc.next_deadline);
    let edges = move || super::stuck::edge_rule((spin, engine), facts, (ci, wi));
    let lanes = Lanes {
        func: frame.func.0 as usize,
        forms: fast,
        code: &func.code,
        operands: &func.operands,
        mask: g.mask,
        edges: &edges,
    };
    let mem = with_mem.then_some(Reach {
        global: &mut mc.global,
        shared: &mut smem[rank].bytes,
    });
    let run = run_forms(
        mc.jit.as_deref_mut(),
        lanes,
        mem,
        frame,
        (pc0, most as usize),
    );
    let (ran, threads) = (run.ran, run.threads);
    if ran == 0 {
        return Ok(0);
    }
    super::stuck::count_edges(mc, (ci, wi), run.counted);
    // The spin detector hears of the last store, as `step` tells it of each.
    if let Some(j) = run.last_store {
        mc.spin
            .effect(mc.stats.warp_instructions + u64::from(j) + 1);
    }
    mc.stats.warp_instructions += u64::from(ran);
    *steps += u64::from(ran);
    g.last = *steps;
    g.pc = run.pc as u32;
    let cycles = u64::from(ran).saturating_mul(mc.instruction_cycles);
    charge(&mut mc.stats, clock, cycles, threads);
    // `most` stopped the run at the first instruction after which an event falls due.
    if event_due(&mut mc.now, &mc.engine, *clock) {
        super::park::pump(mc, cl)?;
    }
    Ok(ran)
}

/// Runs the fast load or store `form` at the pc of warp `wi` of CTA `ci` (one lane group, ready)
/// with the checker watching, exactly as `step.rs` would: `false`, having changed nothing, when
/// `step` must run it (a limit or the cancel check falls on it, or the fast path declines it).
fn checked_access(
    mc: &mut Machine<'_>,
    cl: &mut Cluster,
    (ci, wi): (usize, usize),
    form: Fast,
) -> Res<bool> {
    if !one_more(mc, cl, (ci, wi)) {
        return Ok(false);
    }
    let warp = &cl.ctas[ci].warps[wi];
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
    let clock = count_one(mc, cl, (ci, wi), active);
    if active != 0 && form.is_store() {
        mc.spin.effect(mc.stats.warp_instructions);
    }
    cl.ctas[ci].warps[wi].groups[0].pc += 1;
    after_one(mc, cl, clock)?;
    Ok(true)
}

/// Whether a fast form belongs in a straight run: arithmetic, and loads and stores `with_mem`
/// (not the general path).
#[inline(always)]
fn straight(form: Fast, with_mem: bool) -> bool {
    form != Fast::Slow && !form.reads_launch() && (with_mem || !form.is_mem())
}

/// The code a straight run runs: function `func`'s fast forms, instructions and operands, for a
/// warp of lanes `mask`, and which back edges compiled code may take.
struct Lanes<'a> {
    func: usize,
    forms: &'a [Fast],
    code: &'a [Instr],
    operands: &'a [Operand],
    mask: u32,
    edges: &'a dyn Fn() -> super::spin::EdgeRule,
}

/// What [`run_forms`] did: instructions run, the pc after them, the thread instructions they
/// count, the index (in the run) of the last store among them, and the back edges compiled code
/// took that hang detection counts.
struct Run {
    ran: u32,
    pc: usize,
    threads: u64,
    last_store: Option<u32>,
    counted: u64,
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
    (pc0, most): (usize, usize),
) -> Run {
    let limit = l.forms.len().min(l.code.len());
    let (mut pc, mut ran) = (pc0, 0usize);
    let (mut threads, mut last_store, mut counted) = (0u64, None, 0u64);
    // Below this pc, the JIT has said to interpret.
    let mut interpret_to = pc;
    while ran < most && pc < limit {
        // The instruction that ends the run (a branch, a barrier) is no JIT's business, unless
        // compiled code takes it as a loop's back edge.
        if !straight(l.forms[pc], mem.is_some()) {
            break;
        }
        if let Some(jit) = jit.as_deref_mut().filter(|_| pc >= interpret_to) {
            let at = super::jit::At {
                func: l.func,
                forms: l.forms,
                code: l.code,
                operands: l.operands,
                pc,
                most: most - ran,
                mask: l.mask,
                done: ran as u64,
                edges: l.edges,
            };
            let (shared, global): (&mut [u8], _) = match mem.as_mut() {
                Some(m) => (m.shared, Some(&mut *m.global)),
                None => (&mut [], None),
            };
            match jit.run(at, &mut frame.regs, shared, global) {
                super::jit::Ran::Compiled(c) => {
                    if let Some(j) = c.last_store {
                        last_store = Some((ran + j) as u32);
                    }
                    threads += c.ran as u64 * u64::from(l.mask.count_ones());
                    (pc, ran) = (c.next, ran + c.ran);
                    counted += c.counted;
                    if !c.declined {
                        continue;
                    }
                    // The access after them is the interpreter's (which may decline it too).
                    interpret_to = pc + 1;
                }
                super::jit::Ran::Interpret(n) => interpret_to = pc + n,
            }
        }
        // Without a JIT, everything is interpreted.
        let stop = match jit {
            Some(_) => interpret_to.max(pc + 1),
            None => limit,
        };
        let stop = stop.min(pc + (most - ran)).min(limit);
        let (r, t) = interpret(&l, frame, pc..stop);
        (pc, ran) = (pc + r, ran + r);
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
            last_store = Some(ran as u32);
        }
        threads += u64::from(active.count_ones());
        (pc, ran) = (pc + 1, ran + 1);
    }
    Run {
        ran: ran as u32,
        pc,
        threads,
        last_store,
        counted,
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
    /// The bounds of a straight run of a warp whose clock is `clock`, as the machine stands.
    fn of(mc: &Machine<'_>, clock: u64) -> Self {
        Stretch {
            done: mc.stats.warp_instructions,
            max_steps: mc.max_steps,
            now: mc.now,
            clock,
            cycles: mc.instruction_cycles,
            event: mc.engine.next_time(),
        }
    }

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
pub(super) fn event_due(now: &mut u64, engine: &crate::mem::copy::Engine, clock: u64) -> bool {
    *now = (*now).max(clock);
    engine.next_time().is_some_and(|t| t <= *now)
}

/// What executed warp instructions cost (one, or a straight run's): the warp's clock moves on
/// by their `cycles` (saturating: a library caller may pass any `instruction_cycles`, the
/// facade caps it), and the run's cycle and thread-instruction (`threads`) counters follow.
#[inline(always)]
pub(super) fn charge(stats: &mut super::config::Stats, clock: &mut u64, cycles: u64, threads: u64) {
    *clock = clock.saturating_add(cycles);
    stats.cycles = stats.cycles.max(*clock);
    stats.thread_instructions += threads;
}

/// The lanes of `mask` whose guard predicate lets them execute `ins`. Every lane's predicate is
/// read, without a branch per lane, and the mask applied after.
#[inline]
pub(super) fn guarded(ins: &Instr, frame: &Frame, mask: u32) -> u32 {
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
