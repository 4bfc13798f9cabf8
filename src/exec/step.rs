//! The machine: clusters of CTAs, warps, lane groups and call frames, the scheduling loop of a
//! cluster, and the dispatch of one instruction to its family's handler. See `mod.rs` for the
//! model; waiting and waking (async waits, mbarriers, deadlocks) live in `park.rs`.

use super::ctx::Ctx;
use super::layout::Layout;
use super::park::AsyncWait;
use super::warpgroup::{Participation, Site};
use super::{Fault, FaultKind, Grid, Options, Scheduler, Stats};
use crate::ir::{FuncId, Function, Instr, Module, Op, OpRange, Type};
use crate::mem::copy::{Engine, OpId};
use crate::mem::{Global, Smem};
use crate::trace::{Event, Trace, What};
use std::collections::VecDeque;

/// Warps' worth of lanes.
pub const WARP: usize = 32;
/// Named barriers per CTA (`bar.sync 0..15`).
pub const BARRIERS: usize = 16;
/// Local memory (stack) a thread may use, bytes.
pub const MAX_LOCAL_BYTES: u64 = 512 * 1024;
/// Calls deeper than this are a fault (runaway recursion).
pub const MAX_CALL_DEPTH: usize = 1024;

pub(crate) type Res<T> = Result<T, Box<Fault>>;

/// How often (in warp instructions) a cluster running beside others asks its watch.
pub const WATCH_EVERY: u64 = 1 << 20;

/// Asked, with the warp instructions run so far, while a cluster runs beside others whether it
/// must stop (`grid.rs`).
pub(crate) type Watch = Box<dyn Fn(&Global, u64) -> bool + Send>;

/// What a machine leaves when it is done.
pub(crate) struct Finish {
    pub global: Global,
    pub stdout: String,
    pub printf_truncated: Option<super::PrintfTruncated>,
    pub stats: Stats,
    pub trace: Trace,
    pub hazards: Vec<super::Hazard>,
    /// Hazards in grids launched from the device, their threads' coordinates filled in.
    pub child_hazards: Vec<super::Hazard>,
}

pub(crate) struct Machine<'m> {
    pub m: &'m Module,
    pub entry: FuncId,
    pub grid: Grid,
    pub layout: Layout,
    pub global: Global,
    pub kparams: Vec<u8>,
    pub sched: Scheduler,
    /// The run's seed; each cluster's scheduler is seeded from it and the cluster's index.
    pub seed: u64,
    /// While clusters run on several threads: asked every [`WATCH_EVERY`] warp instructions
    /// whether this cluster has read what another one wrote (`grid.rs`); `true` stops it.
    pub watch: Option<Watch>,
    pub max_steps: u64,
    /// Set from another thread to stop the run (`Options::cancel`).
    pub cancel: Option<std::sync::Arc<std::sync::atomic::AtomicBool>>,
    /// `Options::deadline` and `Options::meter`, looked at with `cancel`.
    pub deadline: Option<std::time::Instant>,
    pub meter: std::sync::Arc<crate::mem::budget::Meter>,
    pub instruction_cycles: u64,
    /// Device `printf` output, and device `malloc`'s heap.
    pub stdout: super::printf::Fifo,
    pub stats: Stats,
    pub heap: super::printf::Heap,
    pub layout_error: Option<String>,
    pub engine: Engine,
    pub trace: Trace,
    /// The running cluster's clock: the furthest any of its warps has run. Asynchronous events
    /// due at or before it have happened.
    pub now: u64,
    /// Counts every change that could end a wait (an mbarrier changed, an operation completed,
    /// a barrier opened, a thread exited): a wait that timed out once at the same count cannot
    /// be helped by timing out again.
    pub progress: u64,
    /// Counts the times groups of warps other than the running one were made ready (a barrier
    /// opened, an operation completed, a wait timed out): the scheduler's list of runnable
    /// warps is rebuilt whole only then, and otherwise updated for the warp that ran.
    pub woken: u64,
    /// The earliest deadline of a parked `mbarrier.try_wait` (`u64::MAX`: none).
    pub next_deadline: u64,
    /// The happens-before checker, unless checking is off.
    pub hb: Option<super::hazard::Checker>,
    /// Per function, the fast form of each instruction (`fast.rs`); empty when turned off.
    pub fast: Vec<Vec<super::fast::Fast>>,
    /// Proves spin loops endless (`spin.rs`).
    pub spin: super::spin::Spin,
    /// Bytes of trace charged to the memory budget so far.
    pub trace_charged: u64,
    /// Device-side launches and the device runtime's state (`cdp.rs`).
    pub cdp: super::cdp::Cdp,
}

/// What one trace event is counted as in the memory budget: the event and its text.
const TRACE_EVENT_BYTES: u64 = 2 * std::mem::size_of::<Event>() as u64;

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Wait {
    Ready,
    /// Waiting at `bar.sync`/`bar.red` on this barrier.
    Bar(u8),
    /// Parked at a warp-synchronous operation until its member lanes arrive.
    WarpSync,
    /// Parked at an asynchronous wait; woken to execute the instruction again.
    Async(AsyncWait),
}

#[derive(Debug, Clone)]
pub(crate) struct RetRec {
    pub frame: u32,
    pub pc: u32,
    /// The caller's return-value operands `(retval0, ...)`.
    pub rets: Option<OpRange>,
}

#[derive(Debug, Clone)]
pub(crate) struct Group {
    pub mask: u32,
    pub pc: u32,
    pub frame: u32,
    pub stack: Vec<RetRec>,
    pub wait: Wait,
    /// The warp's step count when this group last ran (for fairness between groups).
    pub last: u64,
    /// Woken by a timeout: a `try_wait`/`test_wait` it executes now returns false.
    pub timed_out: bool,
    /// Waits (by instruction index) that already timed out at progress count `.0`: a wait
    /// times out once per progress count, so a loop around it ends in a deadlock report.
    pub timeouts: (u64, Vec<u32>),
    /// When the group started waiting at its current instruction (for traces).
    pub since: Option<u64>,
    /// A parked `mbarrier.try_wait` returns false at this cycle if its phase has not completed.
    pub deadline: Option<u64>,
    /// The mbarrier wait (instruction index) whose last execution returned false for this group.
    pub spin: Option<u32>,
}

impl Group {
    pub fn new(mask: u32, pc: u32, frame: u32) -> Group {
        Group {
            mask,
            pc,
            frame,
            stack: Vec::new(),
            wait: Wait::Ready,
            last: 0,
            timed_out: false,
            timeouts: (0, Vec::new()),
            since: None,
            deadline: None,
            spin: None,
        }
    }
}

#[derive(Debug, Clone)]
pub(crate) struct Frame {
    pub func: FuncId,
    /// `regs[r * 32 + lane]`: one u64 per lane per register.
    pub regs: Vec<u64>,
    /// Parameter frame, `params[lane * size ..]`.
    pub params: Vec<u8>,
    pub param_size: usize,
    pub local_base: u64,
    pub local_size: u64,
    /// Carry flag of `add.cc`/`addc`, one bit per lane.
    pub carry: u32,
    pub live: bool,
}

/// One thread's async-groups: operations issued but not committed, then committed groups,
/// oldest first (PTX ISA 9.0 section 9.7.9.25.1.1). Completed uncommitted operations are pruned
/// (`asyncops`), so the lists follow what is in flight.
#[derive(Debug, Clone, Default)]
pub(crate) struct LaneGroups {
    pub uncommitted: Vec<OpId>,
    pub groups: VecDeque<Vec<OpId>>,
    /// Operations issued since the thread's last commit or `cp.async.mbarrier.arrive`: nothing
    /// tracks them yet.
    pub untracked: usize,
    /// `uncommitted` is pruned when it grows past this.
    pub prune_at: usize,
}

/// The async-group state of a warp's lanes: non-bulk `cp.async` and bulk groups are separate.
#[derive(Debug, Clone, Default)]
pub(crate) struct WarpAsync {
    pub cp: [LaneGroups; WARP],
    pub bulk: [LaneGroups; WARP],
    /// `wgmma.mma_async` groups (warp-wide) and what the checker follows of them.
    pub wg: super::wgmma::WarpWgmma,
}

#[derive(Debug, Clone)]
pub(crate) struct Warp {
    pub index: u32,
    pub exited: u32,
    pub groups: Vec<Group>,
    pub frames: Vec<Frame>,
    pub local: Vec<crate::mem::local::Local>,
    pub local_top: u64,
    pub clock: u64,
    /// Instructions this warp has executed.
    pub steps: u64,
    pub asy: Option<Box<WarpAsync>>,
    /// Per lane: the cluster-barrier phase it last arrived in (`u32::MAX`: none pending).
    pub cluster_phase: [u32; WARP],
}

#[derive(Debug, Clone, Copy, Default)]
pub(crate) struct Barrier {
    pub arrived: u32,
    /// Thread count this phase waits for; 0 = every thread of the CTA.
    pub expected: u32,
    pub popc: u32,
    pub all: bool,
    pub any: bool,
}

pub(crate) struct Cta {
    pub id: [u32; 3],
    /// Rank in the cluster (index into `Cluster::ctas` and `Cluster::smem`).
    pub rank: u32,
    pub warps: Vec<Warp>,
    pub bars: [Barrier; BARRIERS],
    pub nthreads: u32,
    pub exited: u32,
    /// Per warpgroup, the warpgroup-aligned instructions its warps executed (made on first use).
    pub warpgroups: Vec<Participation>,
}

/// The CTAs of one cluster, which run together: they share distributed shared memory and the
/// cluster barrier (PTX ISA 9.0 section 2.2.1 "Cluster of Cooperative Thread Arrays").
pub(crate) struct Cluster {
    pub ctas: Vec<Cta>,
    pub smem: Vec<Smem>,
    /// `barrier.cluster`: completed phases, and threads arrived in the current one.
    pub cbar_phase: u32,
    pub cbar_arrived: u32,
}

impl Cluster {
    /// Threads of the cluster that have not exited.
    pub fn live_threads(&self) -> u32 {
        self.ctas.iter().map(|c| c.nthreads - c.exited).sum()
    }
}

impl<'m> Machine<'m> {
    pub fn new(
        m: &'m Module,
        entry: FuncId,
        grid: &Grid,
        mut global: Global,
        kparams: Vec<u8>,
        opts: Options,
    ) -> Self {
        let (layout, layout_error) = match Layout::new(m, entry, &mut global) {
            Ok(l) => (l, None),
            Err(e) => (
                Layout {
                    var_addr: vec![0; m.vars.len()],
                    static_shared: 0,
                    dynamic_offset: 0,
                    local_size: vec![0; m.functions.len()],
                    param_size: vec![0; m.functions.len()],
                    param_off: vec![Vec::new(); m.functions.len()],
                    ret_off: vec![Vec::new(); m.functions.len()],
                },
                Some(e),
            ),
        };
        let fast = if opts.fast {
            m.functions
                .iter()
                .map(|f| super::translate::translate(m, f, &layout.var_addr))
                .collect()
        } else {
            Vec::new()
        };
        Machine {
            m,
            entry,
            grid: grid.clone(),
            layout,
            global,
            kparams,
            sched: Scheduler::new(opts.seed),
            seed: opts.seed,
            watch: None,
            max_steps: opts.max_steps,
            cancel: opts.cancel,
            deadline: opts.deadline,
            meter: std::sync::Arc::clone(&opts.meter),
            instruction_cycles: opts.instruction_cycles.max(1),
            stdout: super::printf::Fifo::new(opts.printf_fifo_bytes),
            stats: Stats::default(),
            heap: super::printf::Heap::new(opts.malloc_heap_bytes),
            layout_error,
            engine: Engine::new(opts.latency, opts.check),
            trace: {
                let mut t = Trace::new(opts.trace, opts.trace_instructions);
                if let Some(sink) = opts.trace_to.filter(|_| opts.trace) {
                    t.stream_to(sink, &m.files);
                }
                t
            },
            now: 0,
            progress: 0,
            woken: 0,
            next_deadline: u64::MAX,
            hb: opts
                .check
                .then(|| super::hazard::Checker::new(m, std::sync::Arc::clone(&opts.meter))),
            fast,
            spin: super::spin::Spin::default(),
            trace_charged: 0,
            cdp: super::cdp::Cdp::default(),
        }
    }

    pub fn finish(mut self) -> Finish {
        let mut hazards = std::mem::take(&mut self.cdp.root_hazards);
        hazards.extend(
            self.hb
                .as_mut()
                .map(|h| h.take_hazards())
                .unwrap_or_default(),
        );
        self.engine_counts();
        self.trace.close();
        let (stdout, printf_truncated) = self.stdout.take();
        Finish {
            global: self.global,
            stdout,
            printf_truncated,
            stats: self.stats,
            trace: self.trace,
            hazards,
            child_hazards: std::mem::take(&mut self.cdp.child_hazards),
        }
    }

    /// Records the local memory the cluster's threads made (touched pages) in the run's counters,
    /// and gives it back to the budget.
    fn count_local(&mut self, cl: &Cluster) {
        // Pages are never taken back while a cluster runs: those made are those held.
        let made: usize = cl
            .ctas
            .iter()
            .flat_map(|c| &c.warps)
            .flat_map(|w| &w.local)
            .map(crate::mem::local::Local::made)
            .sum();
        let bytes = (made * crate::mem::local::PAGE) as u64;
        self.stats.peak_local_bytes = self.stats.peak_local_bytes.max(bytes);
        // The cluster's local memory goes with it: its pages leave the budget.
        self.meter.release(bytes);
    }

    /// Records the copy engine's counts in the run's counters.
    fn engine_counts(&mut self) {
        let (_, peak, kept) = self.engine.counts();
        self.stats.peak_ops_in_flight = peak as u64;
        self.stats.op_summaries = kept as u64;
    }

    pub(crate) fn new_frame_for(&self, warp: &mut Warp, func: FuncId) -> Res<u32> {
        let f = &self.m.functions[func.0 as usize];
        let local_size = self.layout.local_size[func.0 as usize];
        let param_size = self.layout.param_size[func.0 as usize] as usize;
        let base = warp.local_top.next_multiple_of(16);
        if base + local_size > MAX_LOCAL_BYTES {
            return Err(fault(
                FaultKind::Memory,
                format!(
                    "local memory of a thread exceeds {MAX_LOCAL_BYTES} bytes (deep recursion?)"
                ),
            ));
        }
        warp.local_top = base + local_size;
        for l in &mut warp.local {
            l.grow(warp.local_top);
        }
        let frame = Frame {
            func,
            regs: vec![0; f.regs.len() * WARP],
            params: vec![0; param_size * WARP],
            param_size,
            local_base: base,
            local_size,
            carry: 0,
            live: true,
        };
        match warp.frames.iter().position(|fr| !fr.live) {
            Some(i) => {
                warp.frames[i] = frame;
                Ok(i as u32)
            }
            None => {
                warp.frames.push(frame);
                Ok(warp.frames.len() as u32 - 1)
            }
        }
    }

    /// A fresh CTA with every warp at the entry.
    fn new_cta(&self, id: [u32; 3], rank: u32) -> Res<Cta> {
        let [bx, by, bz] = self.grid.block;
        let nthreads = bx * by * bz;
        let mut cta = Cta {
            id,
            rank,
            warps: Vec::new(),
            bars: [Barrier::default(); BARRIERS],
            nthreads,
            exited: 0,
            warpgroups: Vec::new(),
        };
        let nwarps = nthreads.div_ceil(WARP as u32);
        for w in 0..nwarps {
            let lanes = (nthreads - w * WARP as u32).min(WARP as u32);
            let valid = if lanes == 32 {
                u32::MAX
            } else {
                (1u32 << lanes) - 1
            };
            let mut warp = Warp {
                index: w,
                exited: 0,
                groups: Vec::new(),
                frames: Vec::new(),
                local: vec![crate::mem::local::Local::default(); WARP],
                local_top: 0,
                clock: 0,
                steps: 0,
                asy: None,
                cluster_phase: [u32::MAX; WARP],
            };
            let frame = self
                .new_frame_for(&mut warp, self.entry)
                .map_err(|f| with_cta(f, id))?;
            warp.groups.push(Group::new(valid, 0, frame));
            cta.warps.push(warp);
        }
        Ok(cta)
    }

    /// Runs the cluster whose first CTA is `first`, the grid's `index`-th: its CTAs' warps
    /// interleave under one scheduler and one clock, seeded from the run's seed and `index`.
    pub fn run_cluster(&mut self, first: [u32; 3], index: u64) -> Res<()> {
        if let Some(e) = &self.layout_error {
            return Err(with_cta(fault(FaultKind::Memory, e.clone()), first));
        }
        let shared_bytes = self.layout.cta_shared_bytes(self.grid.dynamic_shared_bytes);
        if shared_bytes > super::layout::MAX_SHARED_BYTES {
            return Err(with_cta(fault(FaultKind::Memory, format!("the launch needs {shared_bytes} bytes of shared memory; an sm_90 CTA has at most {}", super::layout::MAX_SHARED_BYTES)), first));
        }
        let [cx, cy, cz] = self.grid.unit();
        let mut cl = Cluster {
            ctas: Vec::new(),
            smem: Vec::new(),
            cbar_phase: 0,
            cbar_arrived: 0,
        };
        for z in 0..cz {
            for y in 0..cy {
                for x in 0..cx {
                    let id = [first[0] + x, first[1] + y, first[2] + z];
                    let rank = x + y * cx + z * cx * cy;
                    cl.ctas.push(self.new_cta(id, rank)?);
                    cl.smem.push(Smem::new(shared_bytes as usize));
                }
            }
        }
        // The previous cluster's trace is complete (streamed traces write it now), and of its
        // operations only those the shadow still names matter.
        self.trace.end_segment();
        if let Some(hb) = &self.hb {
            self.engine.forget_done_if_full(|| hb.named_ops());
        }
        self.engine.reset(index);
        self.spin.reset(self.stats.warp_instructions);
        self.sched = Scheduler::new(crate::latency::cluster_seed(self.seed, index));
        self.now = 0;
        let mut next_watch = self.stats.warp_instructions + WATCH_EVERY;
        if let Some(hb) = &mut self.hb {
            let warps: Vec<usize> = cl.ctas.iter().map(|c| c.warps.len()).collect();
            // A cooperative launch's CTAs are clusters of their own: named by their index.
            let coop = self.grid.cooperative.is_some();
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
        if self.trace.enabled {
            for cta in &cl.ctas {
                for w in &cta.warps {
                    self.trace.push(Event {
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
        let mut runnable: Vec<(usize, usize)> = Vec::new();
        // The wake count the list was last built at, and the warp that ran since.
        let (mut listed_at, mut last_run) = (u64::MAX, None);
        self.next_deadline = u64::MAX;
        loop {
            self.pump(&mut cl)?;
            if self.now >= self.next_deadline {
                self.expire(&mut cl);
            }
            // A cooperative grid holds thousands of warps: scanning them all for every pick
            // would make a run quadratic in its size.
            match last_run.take() {
                Some((ci, wi)) if listed_at == self.woken => relist(&mut runnable, &cl, ci, wi),
                _ => {
                    list_runnable(&cl, &mut runnable);
                    listed_at = self.woken;
                }
            }
            debug_assert_eq!(runnable, {
                let mut all = Vec::new();
                list_runnable(&cl, &mut all);
                all
            });
            if runnable.is_empty() {
                if cl
                    .ctas
                    .iter()
                    .all(|c| c.warps.iter().all(|w| w.groups.is_empty()))
                {
                    self.count_local(&cl);
                    // Operations still in flight complete (a bulk store nobody waited for).
                    self.drain(&mut cl)?;
                    // A cluster shorter than the look-at interval still answers to the budget.
                    return match self.stop_asked() {
                        Some(f) => Err(with_cta(f, cl.ctas[0].id)),
                        None => Ok(()),
                    };
                }
                let next = self
                    .engine
                    .next_time()
                    .map_or(self.next_deadline, |t| t.min(self.next_deadline));
                if next != u64::MAX {
                    self.now = self.now.max(next);
                    continue;
                }
                if self.time_out(&mut cl) {
                    continue;
                }
                let id = cl.ctas[0].id;
                return Err(with_cta(self.deadlock(&cl), id));
            }
            if self.stats.warp_instructions >= next_watch {
                next_watch = self.stats.warp_instructions + WATCH_EVERY;
                if self
                    .watch
                    .as_ref()
                    .is_some_and(|w| w(&self.global, self.stats.warp_instructions))
                {
                    let f = fault(
                        FaultKind::StepLimit,
                        "stopped while running beside other clusters",
                    );
                    return Err(with_cta(f, cl.ctas[0].id));
                }
            }
            let (ci, wi) = runnable[self.sched.pick(runnable.len())];
            last_run = Some((ci, wi));
            let quantum = self.sched.quantum();
            for _ in 0..quantum {
                let Some(g) = pick_group(&cl.ctas[ci].warps[wi]) else {
                    break;
                };
                let warp = &mut cl.ctas[ci].warps[wi];
                warp.steps += 1;
                warp.groups[g].last = warp.steps;
                let id = cl.ctas[ci].id;
                self.step(&mut cl, ci, wi, g).map_err(|f| with_cta(f, id))?;
                merge_groups(&mut cl.ctas[ci].warps[wi]);
                self.now = self.now.max(cl.ctas[ci].warps[wi].clock);
                if self.engine.next_time().is_some_and(|t| t <= self.now) {
                    self.pump(&mut cl)?;
                }
            }
        }
    }

    /// Charges the trace held since the last look to the memory budget (an instruction trace
    /// grows by an event per instruction: `--trace-instructions` of a long run would otherwise
    /// take gigabytes), and gives back what a streamed trace has written out.
    fn charge_trace(&mut self) {
        let held = self.trace.events.len() as u64 * TRACE_EVENT_BYTES;
        if held < self.trace_charged {
            self.meter.release(self.trace_charged - held);
            self.trace_charged = held;
        } else if held > self.trace_charged {
            let more = held - self.trace_charged;
            if self
                .meter
                .charge(more, || "the trace (--trace)".to_string())
            {
                self.trace_charged = held;
            }
        }
    }

    /// Whether the run must stop now: the caller cancelled it, its deadline passed, or it went
    /// over its memory budget.
    fn stop_asked(&self) -> Option<Box<Fault>> {
        if self
            .cancel
            .as_ref()
            .is_some_and(|c| c.load(std::sync::atomic::Ordering::Relaxed))
        {
            return Some(fault(
                FaultKind::Interrupted,
                "the run was interrupted here",
            ));
        }
        if self
            .deadline
            .is_some_and(|d| std::time::Instant::now() >= d)
        {
            return Some(fault(
                FaultKind::Timeout,
                "the run reached its --timeout here",
            ));
        }
        self.meter.exceeded().map(|why| {
            let hint = if why.contains("shadow") {
                "--memory-limit raises it; --no-check needs no shadow"
            } else {
                "--memory-limit raises it"
            };
            fault(
                FaultKind::MemoryLimit,
                format!("the run went over its memory budget here: {why} ({hint})"),
            )
        })
    }

    /// Executes one instruction of group `gi` of warp `wi` of CTA `ci`.
    fn step(&mut self, cl: &mut Cluster, ci: usize, wi: usize, gi: usize) -> Res<()> {
        self.stats.warp_instructions += 1;
        let warp = &mut cl.ctas[ci].warps[wi];
        let warp_index = warp.index;
        let g = &warp.groups[gi];
        let (pc, mask) = (g.pc, g.mask);
        let fid = warp.frames[g.frame as usize].func;
        let func = &self.m.functions[fid.0 as usize];
        let first = warp.index * WARP as u32 + mask.trailing_zeros();
        if self.stats.warp_instructions > self.max_steps {
            let f = fault(
                FaultKind::StepLimit,
                format!(
                    "the step limit ({} warp instructions) was reached here (--max-steps raises it)",
                    self.max_steps
                ),
            );
            return Err(at(f, fid, pc, first));
        }
        if self
            .stats
            .warp_instructions
            .is_multiple_of(super::CANCEL_EVERY)
        {
            self.charge_trace();
            if let Some(f) = self.stop_asked() {
                return Err(at(f, fid, pc, first));
            }
        }
        let Some(ins) = func.code.get(pc as usize).copied() else {
            // Falling off the end of a function is `ret`.
            return self
                .do_ret(cl, ci, wi, gi, mask)
                .map_err(|f| at(f, fid, pc, first));
        };
        // Saturates: a library caller may pass any `instruction_cycles` (the facade caps it).
        warp.clock = warp.clock.saturating_add(self.instruction_cycles);
        self.stats.cycles = self.stats.cycles.max(warp.clock);
        let frame = &warp.frames[g.frame as usize];
        let active = match ins.guard {
            None => mask,
            Some(gd) => {
                let mut m = 0u32;
                for lane in lanes(mask) {
                    if (frame.regs[gd.reg.0 as usize * WARP + lane] != 0) != gd.negated {
                        m |= 1 << lane;
                    }
                }
                m
            }
        };
        self.stats.thread_instructions += u64::from(active.count_ones());
        if self.trace.instructions && active != 0 {
            let src = func.srcs.get(pc as usize);
            let text = crate::ir::print_instr(self.m, func, pc);
            let cycle = warp.clock;
            self.trace.push(Event {
                cycle,
                cta: cl.ctas[ci].id,
                warp: Some(warp_index),
                lanes: active,
                line: src.map_or(0, |s| s.line),
                cuda: src.and_then(|s| s.loc).map(|(f, l, _)| (f, l)),
                what: What::Instr { text },
            });
        }
        if active != 0 && self.hb.is_some() {
            self.watch_wgmma(cl, ci, (wi, gi), &ins, func, (fid, pc), active);
        }
        let effect = if active != 0 {
            super::spin::effect(&ins)
        } else {
            super::spin::Effect::None
        };
        if effect == super::spin::Effect::Always {
            self.spin.effect(self.stats.warp_instructions);
        }
        if let Some(&form) = self
            .fast
            .get(fid.0 as usize)
            .and_then(|c| c.get(pc as usize))
        {
            if form.is_mem() && active != 0 {
                let done = {
                    let mut cx = self.ctx(cl, ci, wi, gi, &ins, func, active);
                    super::memfast::access(&mut cx, form)
                };
                let first = warp_index * WARP as u32 + active.trailing_zeros();
                if done.map_err(|f| at(f, fid, pc, first))? {
                    cl.ctas[ci].warps[wi].groups[gi].pc += 1;
                    return Ok(());
                }
            } else if form != super::fast::Fast::Slow {
                let warp = &mut cl.ctas[ci].warps[wi];
                let fi = warp.groups[gi].frame as usize;
                if active != 0 {
                    super::fast::exec(form, &mut warp.frames[fi].regs, active);
                }
                warp.groups[gi].pc += 1;
                return Ok(());
            }
        }
        let first = if active != 0 {
            warp_index * WARP as u32 + active.trailing_zeros()
        } else {
            first
        };
        self.dispatch(cl, ci, wi, gi, &ins, func, active)
            .map_err(|f| at(f, fid, pc, first))?;
        if !matches!(
            effect,
            super::spin::Effect::None | super::spin::Effect::Always
        ) {
            self.note_atomic(cl, (ci, wi, gi), &ins, active);
        }
        Ok(())
    }

    #[allow(clippy::too_many_arguments)]
    fn dispatch(
        &mut self,
        cl: &mut Cluster,
        ci: usize,
        wi: usize,
        gi: usize,
        ins: &Instr,
        func: &'m Function,
        active: u32,
    ) -> Res<()> {
        use Op::*;
        if super::warpops::is_collective(ins.op, ins.mods.flags) {
            return self.collective(cl, ci, wi, gi, ins, func, active);
        }
        match ins.op {
            Bra | BrxIdx | Call | Ret | Exit | Trap | Brkpt | Bar | Barrier | BarWarpSync => {
                return self.control(cl, ci, wi, gi, ins, func, active);
            }
            CpAsync
            | CpAsyncCommitGroup
            | CpAsyncWaitGroup
            | CpAsyncWaitAll
            | CpAsyncMbarrierArrive
            | CpAsyncBulk
            | CpReduceAsyncBulk
            | CpAsyncBulkPrefetch
            | CpAsyncBulkTensor
            | CpReduceAsyncBulkTensor
            | CpAsyncBulkPrefetchTensor
            | CpAsyncBulkCommitGroup
            | CpAsyncBulkWaitGroup
            | StAsync
            | RedAsync
            | MbarrierInit
            | MbarrierInval
            | MbarrierExpectTx
            | MbarrierCompleteTx
            | MbarrierArrive
            | MbarrierArriveDrop
            | MbarrierTestWait
            | MbarrierTryWait
            | MbarrierPendingCount => {
                return self.async_instr(cl, ci, wi, gi, ins, func, active);
            }
            WgmmaFence | WgmmaCommitGroup | WgmmaWaitGroup => {
                self.whole_warp(cl, ci, wi, gi, ins, func, active)?;
                return self.async_instr(cl, ci, wi, gi, ins, func, active);
            }
            BarrierCluster => return self.cluster_barrier(cl, ci, wi, gi, ins, active),
            // A register-allocation hint (PTX ISA 9.0, miscellaneous instructions: setmaxnreg):
            // virtual registers do not change; the whole warp must execute it together.
            Setmaxnreg => {
                self.whole_warp(cl, ci, wi, gi, ins, func, active)?;
                if active != 0 {
                    self.warpgroup_issue(&mut cl.ctas[ci], wi, gi, "setmaxnreg")?;
                }
                cl.ctas[ci].warps[wi].groups[gi].pc += 1;
                return Ok(());
            }
            _ => {}
        }
        if active != 0 {
            let mut cx = self.ctx(cl, ci, wi, gi, ins, func, active);
            if ins.is_b128() {
                // Registers hold 64 bits: a 128-bit value would lose its high half.
                let what = crate::ir::print_opcode(func, cx.pc);
                return Err(fault(
                    FaultKind::Unsupported,
                    format!("`{what}` is not supported by ptxrun yet: 128-bit (`.b128`) values"),
                ));
            }
            match ins.op {
                Ld | Ldu | St | Atom | Red | Cvta | Isspacep | Prefetch | Prefetchu | Mapa
                | Getctarank => super::memops::exec(&mut cx)?,
                Shfl | Vote | Match | Redux | Activemask | Elect => super::warpops::exec(&mut cx)?,
                TensormapReplace | TensormapCpFenceproxy => super::tmapedit::exec(&mut cx)?,
                StBulk => super::stbulk::exec(&mut cx)?,
                Tex | Tld4 | Txq | Suld | Sust | Sured | Suq => super::texops::exec(&mut cx)?,
                Cvt | CvtPack => super::cvt::exec(&mut cx)?,
                WmmaLoad | WmmaStore => super::wmma::load_store(&mut cx)?,
                Createpolicy => super::policy::exec(&mut cx)?,
                Membar
                | Fence
                | FenceProxyAlias
                | FenceProxyAsync
                | FenceProxyAsyncGeneric
                | FenceProxyTensormap
                | FenceMbarrierInit
                | Nanosleep
                | Pmevent
                | Griddepcontrol
                | Discard
                | Applypriority => {
                    let (rank, warp) = (cx.rank, cx.warp_index);
                    use crate::ir::mods::Sem;
                    if ins.op == FenceProxyTensormap && ins.mods.sem == Some(Sem::Acquire) {
                        // fence.proxy.tensormap::generic.acquire [addr], size: the user of a
                        // tensor map acquires those bytes for the tensor-map proxy.
                        let lane = cx.active.trailing_zeros().min(31) as usize;
                        let a = super::memops::address(&cx, 0, lane);
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
                                hb.warp(rank, warp).fence(super::scopes::of(ins))
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
                                hb.warp(rank, warp).fence(super::scopes::of(ins));
                                hb.proxy_fence(rank, warp, FENCE_SHARED | FENCE_GLOBAL);
                            }
                            _ => {}
                        }
                    }
                    if matches!(
                        ins.op,
                        FenceProxyAsync
                            | FenceProxyAsyncGeneric
                            | FenceMbarrierInit
                            | FenceProxyTensormap
                    ) {
                        let kind = crate::ir::print_instr(cx.m, func, cx.pc);
                        super::park::record(&mut cx, What::Fence { kind });
                    }
                }
                op if super::fp::handles(op, &ins.mods) => super::fp::exec(&mut cx)?,
                op if super::alu::handles(op) => super::alu::exec(&mut cx)?,
                op if super::video::handles(op) => super::video::exec(&mut cx)?,
                op => {
                    let what = func
                        .srcs
                        .get(cx.pc as usize)
                        .and_then(|s| s.raw.clone())
                        .unwrap_or_else(|| op.name().to_string());
                    // multimem reaches one address on every GPU of a multicast object.
                    let why = match op {
                        Multimem => {
                            ": it needs a multicast object over several GPUs, and ptxrun models one"
                        }
                        _ => " yet",
                    };
                    return Err(fault(
                        FaultKind::Unsupported,
                        format!("`{what}` is not supported by ptxrun{why}"),
                    ));
                }
            }
        }
        cl.ctas[ci].warps[wi].groups[gi].pc += 1;
        Ok(())
    }

    /// A warp-synchronous operation: run now if every member lane is here, else park and try
    /// the rendezvous.
    #[allow(clippy::too_many_arguments)]
    fn collective(
        &mut self,
        cl: &mut Cluster,
        ci: usize,
        wi: usize,
        gi: usize,
        ins: &Instr,
        func: &'m Function,
        active: u32,
    ) -> Res<()> {
        // Lanes whose guard is false do not execute the instruction: they move past it, and the
        // others meet at it as a group of their own (else the rendezvous, which works on group
        // masks, would run it for them).
        let grp = &cl.ctas[ci].warps[wi].groups[gi];
        if active != grp.mask {
            let pc = grp.pc;
            super::control::branch(&mut cl.ctas[ci], wi, gi, active, |_| pc);
            return Ok(());
        }
        let live = live_lanes(&cl.ctas[ci], wi);
        let sets = {
            let cx = self.ctx(cl, ci, wi, gi, ins, func, active);
            super::warpops::member_sets(&cx)
        };
        // Lanes whose member set is all here go on; the others wait for theirs (the two tiles
        // of a 16-lane partition do not wait for each other).
        let ready = sets
            .iter()
            .filter(|&&(_, member)| member & live & !active == 0)
            .fold(0u32, |m, &(only, _)| m | only);
        if ready != active && ready != 0 {
            let pc = cl.ctas[ci].warps[wi].groups[gi].pc;
            super::control::split(&mut cl.ctas[ci], wi, gi, ready, pc);
            return self.collective(cl, ci, wi, gi, ins, func, ready);
        }
        if ready == active {
            if active != 0 {
                if matches!(ins.op, Op::WgmmaMmaAsync | Op::WgmmaMmaAsyncSp) {
                    let mut cx = self.ctx(cl, ci, wi, gi, ins, func, active);
                    if super::wgmma::must_stall(&mut cx)? {
                        // Too many operations in flight: the issue waits for one to complete.
                        cl.ctas[ci].warps[wi].groups[gi].wait = Wait::Async(AsyncWait::Groups);
                        return Ok(());
                    }
                    self.warpgroup_issue(&mut cl.ctas[ci], wi, gi, "wgmma.mma_async")?;
                }
                let mut cx = self.ctx(cl, ci, wi, gi, ins, func, active);
                if super::matrix::is_matrix(ins.op) {
                    let mut rows = [[0u64; super::mma::ROW_SLOTS]; WARP];
                    super::matrix::gather(&cx, &mut rows);
                    super::matrix::exec(&mut cx, &rows, active)?;
                } else {
                    super::warpops::exec(&mut cx)?;
                }
                for &(only, member) in &sets {
                    self.converged(cl, ci, wi, ins, member & active | only);
                }
            }
            cl.ctas[ci].warps[wi].groups[gi].pc += 1;
            return Ok(());
        }
        cl.ctas[ci].warps[wi].groups[gi].wait = Wait::WarpSync;
        self.rendezvous(cl, ci, wi)
    }

    /// Completes a warp-synchronous rendezvous if the parked groups cover every member mask.
    pub(crate) fn rendezvous(&mut self, cl: &mut Cluster, ci: usize, wi: usize) -> Res<()> {
        use super::warpops::{compute, gather, member_sets, scatter, In};
        let warp = &cl.ctas[ci].warps[wi];
        let parked: Vec<usize> = (0..warp.groups.len())
            .filter(|&g| warp.groups[g].wait == Wait::WarpSync)
            .collect();
        if parked.is_empty() {
            return Ok(());
        }
        let live = live_lanes(&cl.ctas[ci], wi);
        let union = parked.iter().fold(0u32, |m, &g| m | warp.groups[g].mask);
        // Each parked group's lanes by member set, and which of them have every member here.
        let mut members = Vec::new();
        for &g in &parked {
            let (ins, func, mask) = self.group_instr(&cl.ctas[ci], wi, g);
            let cx = self.ctx(cl, ci, wi, g, &ins, func, mask);
            let sets: Vec<(u32, u32)> = member_sets(&cx)
                .into_iter()
                .filter(|&(_, member)| member & live & !union == 0)
                .collect();
            let ready = sets.iter().fold(0u32, |m, &(only, _)| m | only);
            members.push((ins, func, mask, sets, ready));
        }
        if members.iter().all(|m| m.4 == 0) {
            return Ok(());
        }
        if super::matrix::is_matrix(members[0].0.op) {
            if members.iter().any(|m| m.4 != m.2) {
                return Ok(());
            }
            let members: Vec<_> = members
                .into_iter()
                .map(|(i, f, m, _, _)| (i, f, m, u32::MAX))
                .collect();
            return self.matrix_rendezvous(cl, ci, wi, &parked, &members, union);
        }
        // Gather every parked group's inputs; then each set of lanes whose members are all here
        // gets the result over its member mask (groups at a different kind of operation,
        // undefined behaviour, get their own), and goes on. Lanes still waiting for members of
        // their set stay parked, as a group of their own.
        let mut inputs = [In::default(); WARP];
        for (k, &g) in parked.iter().enumerate() {
            let (ins, func, mask, _, _) = &members[k];
            let cx = self.ctx(cl, ci, wi, g, ins, func, *mask);
            gather(&cx, &mut inputs);
        }
        for (k, &g) in parked.iter().enumerate() {
            let (ins, func, mask, sets, ready) = &members[k];
            if *ready == 0 {
                continue;
            }
            if ready != mask {
                let pc = cl.ctas[ci].warps[wi].groups[g].pc;
                super::control::split(&mut cl.ctas[ci], wi, g, *ready, pc);
            }
            let ty = ins.mods.ty().unwrap_or(Type::B32);
            let mut cx = self.ctx(cl, ci, wi, g, ins, func, *ready);
            for &(only, member) in sets {
                let out = compute(ins.op, ins.mods.sub, ty, &inputs, union, member);
                scatter(&mut cx, &out, only);
            }
            let grp = &mut cl.ctas[ci].warps[wi].groups[g];
            grp.wait = Wait::Ready;
            grp.pc += 1;
        }
        for (ins, _, _, sets, _) in &members {
            for &(only, member) in sets {
                self.converged(cl, ci, wi, ins, member & union | only);
            }
        }
        Ok(())
    }

    /// Lanes `lanes` executed the warp collective `ins` together. The ones the memory model
    /// says synchronise the participating threads (`bar.warp.sync`, and `shfl`, `vote`,
    /// `match`, `redux` with `.sync`) order their accesses for the checker.
    fn converged(&mut self, cl: &Cluster, ci: usize, wi: usize, ins: &Instr, lanes: u32) {
        let syncs = match ins.op {
            Op::BarWarpSync => true,
            Op::Shfl | Op::Vote | Op::Match | Op::Redux => ins.mods.has(crate::ir::Flags::SYNC),
            _ => false,
        };
        if let (true, Some(hb)) = (syncs, self.hb.as_mut()) {
            let cta = &cl.ctas[ci];
            hb.warp_converge(cta.rank, cta.warps[wi].index, lanes);
        }
    }

    /// The parked groups of a warp met at `ldmatrix`/`stmatrix`: every group's row addresses
    /// are gathered, then each group loads or stores its own lanes' data.
    fn matrix_rendezvous(
        &mut self,
        cl: &mut Cluster,
        ci: usize,
        wi: usize,
        parked: &[usize],
        members: &[(Instr, &'m Function, u32, u32)],
        union: u32,
    ) -> Res<()> {
        let mut rows = [[0u64; super::mma::ROW_SLOTS]; WARP];
        for (&g, (ins, func, mask, _)) in parked.iter().zip(members) {
            // mma reads every lane's registers: the groups must be at the same instruction.
            let reads_all = matches!(
                ins.op,
                Op::Mma
                    | Op::MmaSp
                    | Op::MmaSpOrdered
                    | Op::WmmaMma
                    | Op::WgmmaMmaAsync
                    | Op::WgmmaMmaAsyncSp
            );
            let same = ins.op == members[0].0.op && (!reads_all || *ins == members[0].0);
            if !same {
                return Err(fault(
                    FaultKind::Hazard(crate::check::HazardKind::DivergentAligned),
                    format!(
                        "lanes of one warp meet at `{}` and `{}`: a .sync.aligned instruction must be \
                         executed by the whole warp together",
                        members[0].0.op.name(),
                        ins.op.name()
                    ),
                ));
            }
            let cx = self.ctx(cl, ci, wi, g, ins, func, *mask);
            super::matrix::gather(&cx, &mut rows);
        }
        for (&g, (ins, func, mask, _)) in parked.iter().zip(members) {
            // A fault belongs to the parked instruction, not to whichever group completed the
            // rendezvous (a lane exiting, say).
            let site = self.group_site(&cl.ctas[ci], wi, g);
            let mut cx = self.ctx(cl, ci, wi, g, ins, func, *mask);
            super::matrix::exec(&mut cx, &rows, union)
                .map_err(|f| at(f, site.0, site.1, site.2))?;
            let grp = &mut cl.ctas[ci].warps[wi].groups[g];
            grp.wait = Wait::Ready;
            grp.pc += 1;
        }
        Ok(())
    }

    /// A `.sync.aligned` instruction that is not warp-wide in the rendezvous sense (`wgmma.fence`,
    /// `commit_group`, `wait_group`, `setmaxnreg`) must still be executed by every live lane of
    /// the warp: otherwise a `divergent-aligned` hazard, reported at the `.sync.aligned`
    /// instruction where the other lanes wait if there is one (they never reconverged), else here.
    #[allow(clippy::too_many_arguments)]
    fn whole_warp(
        &mut self,
        cl: &mut Cluster,
        ci: usize,
        wi: usize,
        gi: usize,
        ins: &Instr,
        func: &'m Function,
        active: u32,
    ) -> Res<()> {
        let missing = live_lanes(&cl.ctas[ci], wi) & !active;
        if missing == 0 || active == 0 {
            return Ok(());
        }
        let warp = &cl.ctas[ci].warps[wi];
        let parked =
            (0..warp.groups.len()).find(|&g| g != gi && warp.groups[g].wait == Wait::WarpSync);
        if let Some(g) = parked {
            let (fid, pc, first) = self.group_site(&cl.ctas[ci], wi, g);
            let (other, _, mask) = self.group_instr(&cl.ctas[ci], wi, g);
            let line = func
                .srcs
                .get(warp.groups[gi].pc as usize)
                .map_or(0, |s| s.line);
            let mut f = fault(
                FaultKind::Hazard(crate::check::HazardKind::DivergentAligned),
                format!(
                    "`{}` is .sync.aligned, but lanes {:#010x} of the warp went on to `{}` at line \
                     {line} without executing it",
                    other.op.name(),
                    active & !mask,
                    ins.op.name()
                ),
            );
            f.linear_thread = Some(first);
            return Err(at(f, fid, pc, first));
        }
        let cx = self.ctx(cl, ci, wi, gi, ins, func, active);
        Err(super::mma::partial_warp(&cx, missing, "part"))
    }

    /// A warp executes a warpgroup-aligned instruction (`wgmma.mma_async`, `setmaxnreg`): the
    /// four warps of its warpgroup must execute the same ones (`divergent-aligned` at the one
    /// where they part, or a warpgroup of fewer warps); a `setmaxnreg` must also be ordered after
    /// the previous one of every other warp of the group.
    fn warpgroup_issue(
        &mut self,
        cta: &mut Cta,
        wi: usize,
        gi: usize,
        name: &'static str,
    ) -> Res<()> {
        let (fid, pc, first) = self.group_site(cta, wi, gi);
        let index = cta.warps[wi].index as usize;
        let (group, w) = (index / 4, index % 4);
        let present = (cta.warps.len() - 4 * group).min(4);
        if cta.warpgroups.len() <= group {
            cta.warpgroups.resize(group + 1, Default::default());
        }
        let log = &mut cta.warpgroups[group];
        let site = Site {
            at: (fid.0, pc),
            name,
        };
        if let Some((site, why)) = log.issue(w, present, site) {
            return Err(warpgroup_fault(site, first, why));
        }
        let Some(hb) = self.hb.as_mut().filter(|_| name == "setmaxnreg") else {
            return Ok(());
        };
        let clock = hb.warp(cta.rank, index as u32);
        let Some(v) = log.setmaxnreg(w, clock.now(), &clock.vc) else {
            return Ok(());
        };
        let why = format!(
            "warp {w} of the warpgroup executed it again with no synchronization after warp {v}'s \
             previous `setmaxnreg` (the ISA asks all warps of the warpgroup to synchronize, with \
             `bar.sync` for example, between two of them)"
        );
        Err(warpgroup_fault(site, first, why))
    }

    /// Shows an instruction to the warp's `wgmma` register watch (`wgmma::watch`), reporting
    /// what it finds.
    #[allow(clippy::too_many_arguments)]
    fn watch_wgmma(
        &mut self,
        cl: &mut Cluster,
        ci: usize,
        (wi, gi): (usize, usize),
        ins: &Instr,
        func: &Function,
        (fid, pc): (FuncId, u32),
        active: u32,
    ) {
        let cta = &mut cl.ctas[ci];
        let (rank, id) = (cta.rank, cta.id);
        let warp = &mut cta.warps[wi];
        let frame = (fid.0, warp.groups[gi].frame);
        let Some(asy) = warp.asy.as_mut().filter(|a| a.wg.watching()) else {
            return;
        };
        let Some((kind, message, at, label, help)) =
            super::wgmma::watch(&mut asy.wg, func, frame, ins, pc)
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
        if let Some(hb) = self.hb.as_mut() {
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

    /// (function, pc, first thread) of a parked group.
    fn group_site(&self, cta: &Cta, wi: usize, g: usize) -> (FuncId, u32, u32) {
        let w = &cta.warps[wi];
        let grp = &w.groups[g];
        let first = w.index * WARP as u32 + grp.mask.trailing_zeros();
        (w.frames[grp.frame as usize].func, grp.pc, first)
    }

    fn group_instr(&self, cta: &Cta, wi: usize, g: usize) -> (Instr, &'m Function, u32) {
        let w = &cta.warps[wi];
        let grp = &w.groups[g];
        let func = &self.m.functions[w.frames[grp.frame as usize].func.0 as usize];
        let ins = func.code[grp.pc as usize];
        (ins, func, grp.mask)
    }

    #[allow(clippy::too_many_arguments)]
    pub(crate) fn ctx<'a>(
        &'a mut self,
        cl: &'a mut Cluster,
        ci: usize,
        wi: usize,
        gi: usize,
        ins: &Instr,
        func: &'m Function,
        active: u32,
    ) -> Ctx<'a, 'm> {
        let cta = &mut cl.ctas[ci];
        let (id, rank) = (cta.id, cta.rank);
        let warp = &mut cta.warps[wi];
        let g = &warp.groups[gi];
        let (pc, timed_out, spinning) = (g.pc, g.timed_out, g.spin == Some(g.pc));
        let fidx = g.frame as usize;
        Ctx {
            m: self.m,
            layout: &self.layout,
            func,
            ins: *ins,
            ops: func.ops(ins),
            pc,
            active,
            global: &mut self.global,
            kparams: &self.kparams,
            smem: &mut cl.smem,
            rank,
            local: &mut warp.local,
            frame: &mut warp.frames[fidx],
            depth: fidx as u32,
            cta: id,
            warp_index: warp.index,
            clock: warp.clock,
            grid: &self.grid,
            is_kernel: func.is_entry,
            cluster: self.grid.cluster,
            explicit_cluster: self.grid.explicit_cluster,
            engine: &mut self.engine,
            trace: &mut self.trace,
            asy: &mut warp.asy,
            timed_out,
            spinning,
            hb: self.hb.as_mut(),
            meter: &self.meter,
        }
    }
}

pub fn mask(bits: u32) -> u64 {
    if bits >= 64 {
        u64::MAX
    } else {
        (1u64 << bits) - 1
    }
}

/// The lanes of a mask, lowest first.
pub fn lanes(mut m: u32) -> impl Iterator<Item = usize> {
    std::iter::from_fn(move || {
        if m == 0 {
            None
        } else {
            let l = m.trailing_zeros() as usize;
            m &= m - 1;
            Some(l)
        }
    })
}

pub fn fault(kind: FaultKind, message: impl Into<String>) -> Box<Fault> {
    Box::new(Fault {
        kind,
        message: message.into(),
        at: None,
        cta: [0; 3],
        thread: [0; 3],
        linear_thread: None,
    })
}

pub(crate) fn at(mut f: Box<Fault>, func: FuncId, pc: u32, thread: u32) -> Box<Fault> {
    if f.at.is_none() {
        f.at = Some((func, pc));
    }
    f.linear_thread.get_or_insert(thread);
    f
}

/// The `divergent-aligned` fault of a warpgroup-aligned instruction the warps of a warpgroup
/// did not execute together, located at its site.
pub(crate) fn warpgroup_fault(site: Site, thread: u32, why: String) -> Box<Fault> {
    let (func, pc) = site.at;
    let f = fault(
        FaultKind::Hazard(crate::check::HazardKind::DivergentAligned),
        format!(
            "`{}` is .sync.aligned over the warpgroup, but {why}",
            site.name
        ),
    );
    at(f, FuncId(func), pc, thread)
}

pub(crate) fn with_cta(mut f: Box<Fault>, id: [u32; 3]) -> Box<Fault> {
    f.cta = id;
    f
}

/// A ready group that has not run for this many of its warp's steps runs next.
const STARVATION_STEPS: u64 = 256;

/// The group to run next: the one furthest behind (lowest PC), so that divergent paths of
/// structured code meet again at their join point; but a group left waiting too long runs
/// first, so that one group spinning on a value another group of its warp will write (a lock,
/// a flag) cannot starve it: Volta's independent thread scheduling guarantees that progress.
fn pick_group(w: &Warp) -> Option<usize> {
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

/// Lanes of warp `wi` that exist and have not exited.
pub(crate) fn live_lanes(cta: &Cta, wi: usize) -> u32 {
    let w = &cta.warps[wi];
    let n = cta
        .nthreads
        .saturating_sub(w.index * WARP as u32)
        .min(WARP as u32);
    let exist = if n >= 32 { u32::MAX } else { (1u32 << n) - 1 };
    exist & !w.exited
}

/// Threads barrier `b` waits for in its current phase.
pub(crate) fn expected(cta: &Cta, b: u8) -> u32 {
    match cta.bars[b as usize].expected {
        0 => cta.nthreads - cta.exited,
        n => n,
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
