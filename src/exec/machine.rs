//! The machine: one launch's state over all its clusters (the module, the grid, global memory,
//! the copy engine, the checker, the trace, counters and budgets, the device runtime's state),
//! making CTAs and call frames, and the [`WarpRef`] handle naming the lane group that executes
//! an instruction. Everything above it (operand access in `ctx.rs`, the instruction families,
//! the scheduler in `step.rs`) works on this state; nothing here calls up.

use super::config::{Grid, Options, Scheduler, Stats};
use super::fast::Fast;
use super::fault::{fault, with_cta, Fault, FaultKind, Hazard, Res};
use super::heap::{Fifo, Heap};
use super::lanes::WARP;
use super::layout::{Layout, MAX_SHARED_BYTES};
use super::warp::{Barrier, Cluster, Cta, Frame, Group, Warp, BARRIERS};
use crate::ir::{FuncId, Function, Instr, Module};
use crate::mem::copy::Engine;
use crate::mem::{Global, Smem};
use crate::trace::{Event, Trace};
use std::collections::{BTreeMap, BTreeSet};

/// Local memory (stack) a thread may use, bytes.
pub const MAX_LOCAL_BYTES: u64 = 512 * 1024;

/// How often (in warp instructions) a cluster running beside others asks its watch.
pub const WATCH_EVERY: u64 = 1 << 20;

/// Asked, with the warp instructions run so far, while a cluster runs beside others whether it
/// must stop (`grid.rs`).
pub(crate) type Watch = Box<dyn Fn(&Global, u64) -> bool + Send>;

/// What a machine leaves when it is done.
pub(crate) struct Finish {
    pub global: Global,
    pub stdout: String,
    pub printf_truncated: Option<super::config::PrintfTruncated>,
    pub stats: Stats,
    pub trace: Trace,
    pub hazards: Vec<super::fault::Hazard>,
    /// Hazards in grids launched from the device, their threads' coordinates filled in.
    pub child_hazards: Vec<super::fault::Hazard>,
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
    pub stdout: super::heap::Fifo,
    pub stats: Stats,
    pub heap: super::heap::Heap,
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
    /// The JIT of straight runs of fast forms (`jit/`), unless turned off.
    pub jit: Option<Box<super::jit::Jit>>,
    /// Proves spin loops endless (`spin.rs`).
    pub spin: super::spin::Spin,
    /// Bytes of trace charged to the memory budget so far.
    pub trace_charged: u64,
    /// Device-side launches and the device runtime's state (`cdp.rs`).
    pub cdp: super::machine::Cdp,
}

/// What one trace event is counted as in the memory budget: the event and its text.
const TRACE_EVENT_BYTES: u64 = 2 * std::mem::size_of::<Event>() as u64;

/// A launch made from the device and not yet run (`devrt.rs`).
pub(crate) struct Child {
    pub(crate) entry: FuncId,
    pub(crate) grid: Grid,
    pub(crate) kparams: Vec<u8>,
    pub(crate) order: InStream,
}

/// Where queued work stands among its grid's other work, and what it starts knowing.
#[derive(Clone)]
pub(crate) struct InStream {
    /// Queued into `cudaStreamTailLaunch`: it runs after everything else the grid queued.
    pub(crate) tail: bool,
    /// The stream it runs in order in: its handle and the queuing CTA's coordinates (`None`:
    /// fire-and-forget or tail).
    pub(crate) stream: Option<(u64, [u32; 3])>,
    /// What it starts knowing, with a checker: the queuing thread's clock, then the
    /// completion of what it waits for (`check::grids`).
    pub(crate) start: Option<crate::mem::hb::Vc>,
}

/// A device-side `cudaMemcpyAsync` or `cudaMemsetAsync` not yet run (`devrt.rs`): `bytes`
/// bytes to global address `dst`, from global address `src` or all one byte.
pub(crate) struct DeviceCopy {
    pub(crate) dst: u64,
    pub(crate) src: CopySource,
    pub(crate) bytes: u64,
    pub(crate) order: InStream,
    /// The call that queued it: function and instruction index (where its hazards point).
    pub(crate) call: (u32, u32),
}

/// Where a [`DeviceCopy`]'s bytes come from.
pub(crate) enum CopySource {
    Global(u64),
    Byte(u8),
}

/// Work a grid queued from the device, run in stream order after it (`cdp.rs`).
pub(crate) enum Queued {
    Grid(Child),
    Copy(DeviceCopy),
}

impl Queued {
    /// Whether it runs after everything else the grid queued (a tail launch or copy).
    pub(crate) fn tail(&self) -> bool {
        self.order().tail
    }

    pub(crate) fn order(&self) -> &InStream {
        match self {
            Queued::Grid(c) => &c.order,
            Queued::Copy(c) => &c.order,
        }
    }

    pub(crate) fn order_mut(&mut self) -> &mut InStream {
        match self {
            Queued::Grid(c) => &mut c.order,
            Queued::Copy(c) => &mut c.order,
        }
    }
}

/// The device runtime's state over one host launch and its descendants.
#[derive(Default)]
pub(crate) struct Cdp {
    /// Parameter buffers handed out and not yet launched, by address.
    pub(crate) buffers: BTreeMap<u64, (FuncId, Grid)>,
    /// The running grid's launches and copies, in the order it made them.
    pub(crate) queued: Vec<Queued>,
    /// Launches and copies queued and not yet started, over every running grid.
    pub(crate) pending: usize,
    /// The global address of `cudaGetErrorString`'s strings, once a call asked for them.
    pub(crate) error_strings: Option<u64>,
    /// The running grid's nesting depth (the host's grid: 0).
    pub(crate) depth: u32,
    /// Device-launched grids run so far (each seeds its clusters' schedulers).
    pub(crate) grids: u64,
    /// Per thread (CTA, linear thread index): the last error a device runtime call set.
    pub(crate) errors: BTreeMap<([u32; 3], u32), u64>,
    pub(crate) streams: BTreeSet<u64>,
    pub(crate) next_stream: u64,
    /// Layouts and fast forms of the kernels not running now, by function index.
    pub(crate) layouts: BTreeMap<u32, (Layout, Vec<Vec<Fast>>)>,
    /// The host grid's hazards, taken before its children's checkers replace its own.
    pub root_hazards: Vec<Hazard>,
    /// Hazards in device-launched grids, with their threads' coordinates.
    pub child_hazards: Vec<Hazard>,
}

/// The lane group executing an instruction: CTA `ci` of the running unit, its warp `wi`, the
/// warp's lane group `gi`, the instruction and its function, and the lanes whose guard holds.
/// Every handler that works on the machine state takes this handle.
#[derive(Clone, Copy)]
pub(crate) struct WarpRef<'m> {
    pub ci: usize,
    pub wi: usize,
    pub gi: usize,
    pub ins: &'m Instr,
    pub func: &'m Function,
    pub active: u32,
}

impl<'m> WarpRef<'m> {
    /// Lane group `at` = (CTA, warp, group) executing `ins` of `func` with lanes `active`.
    pub fn new(at: (usize, usize, usize), ins: &'m Instr, func: &'m Function, active: u32) -> Self {
        let (ci, wi, gi) = at;
        WarpRef {
            ci,
            wi,
            gi,
            ins,
            func,
            active,
        }
    }

    /// The same instruction executed by lanes `active` only.
    pub fn with_active(self, active: u32) -> WarpRef<'m> {
        WarpRef { active, ..self }
    }

    /// The group's place in the running unit: (CTA, warp, lane group) indices.
    pub fn at(&self) -> (usize, usize, usize) {
        (self.ci, self.wi, self.gi)
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
            stdout: Fifo::new(opts.printf_fifo_bytes),
            stats: Stats::default(),
            heap: Heap::new(opts.malloc_heap_bytes),
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
            jit: match opts.fast {
                // Compiled loads are not seen by a checker: only without one.
                true => opts
                    .jit
                    .and_then(|after| super::jit::Jit::new(after, !opts.check))
                    .map(|mut j| {
                        j.verify = opts.verify;
                        Box::new(j)
                    }),
                false => None,
            },
            fast,
            spin: super::spin::Spin::default(),
            trace_charged: 0,
            cdp: Cdp::default(),
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
    pub(crate) fn count_local(&mut self, cl: &Cluster) {
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
    pub(crate) fn engine_counts(&mut self) {
        let (_, peak, kept) = self.engine.counts();
        self.stats.peak_ops_in_flight = peak as u64;
        self.stats.op_summaries = kept as u64;
    }

    pub(crate) fn new_frame_for(&self, warp: &mut Warp, func: FuncId) -> Res<u32> {
        let f = &self.m.functions[func.0 as usize];
        let local_size = self.layout.local_size[func.0 as usize];
        let param_bytes = self.layout.param_size[func.0 as usize];
        // Parameters and call-site `.param` variables live in a thread's stack on the GPU:
        // bounded as local memory is (a declared 4 GiB argument is a fault, not 128 GiB asked
        // of the host for a warp).
        if param_bytes > MAX_LOCAL_BYTES {
            return Err(fault(
                FaultKind::Memory,
                format!(
                    "the .param space of `{}` ({param_bytes} bytes a thread) exceeds the {MAX_LOCAL_BYTES} bytes of local memory a thread may use",
                    f.name
                ),
            ));
        }
        let param_size = param_bytes as usize;
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

    /// The cluster (or cooperative grid) whose first CTA is `first`, with its shared memories,
    /// and the shared memory bytes of each CTA.
    pub(crate) fn new_cluster(&self, first: [u32; 3]) -> Res<(Cluster, u64)> {
        if let Some(e) = &self.layout_error {
            return Err(with_cta(fault(FaultKind::Memory, e.clone()), first));
        }
        let shared_bytes = self.layout.cta_shared_bytes(self.grid.dynamic_shared_bytes);
        if shared_bytes > MAX_SHARED_BYTES {
            let why = format!("the launch needs {shared_bytes} bytes of shared memory; an sm_90 CTA has at most {MAX_SHARED_BYTES}");
            return Err(with_cta(fault(FaultKind::Memory, why), first));
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
        Ok((cl, shared_bytes))
    }

    /// A fresh CTA with every warp at the entry.
    pub(crate) fn new_cta(&self, id: [u32; 3], rank: u32) -> Res<Cta> {
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

    /// Charges the trace held since the last look to the memory budget (an instruction trace
    /// grows by an event per instruction: `--trace-instructions` of a long run would otherwise
    /// take gigabytes), and gives back what a streamed trace has written out.
    pub(crate) fn charge_trace(&mut self) {
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
    pub(crate) fn stop_asked(&self) -> Option<Box<Fault>> {
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

    /// (function, pc, first thread) of a parked group.
    pub(crate) fn group_site(&self, cta: &Cta, wi: usize, g: usize) -> (FuncId, u32, u32) {
        let w = &cta.warps[wi];
        let grp = &w.groups[g];
        let first = w.index * WARP as u32 + grp.mask.trailing_zeros();
        (w.frames[grp.frame as usize].func, grp.pc, first)
    }

    pub(crate) fn group_instr(
        &self,
        cta: &Cta,
        wi: usize,
        g: usize,
    ) -> (&'m Instr, &'m Function, u32) {
        let w = &cta.warps[wi];
        let grp = &w.groups[g];
        let func = &self.m.functions[w.frames[grp.frame as usize].func.0 as usize];
        (&func.code[grp.pc as usize], func, grp.mask)
    }

    /// The handle of lane group `gi` of warp `wi` of CTA `ci` at the instruction it is at (a
    /// parked one, say), every lane of the group active.
    pub(crate) fn group_ref(&self, cl: &Cluster, ci: usize, wi: usize, gi: usize) -> WarpRef<'m> {
        let (ins, func, active) = self.group_instr(&cl.ctas[ci], wi, gi);
        WarpRef::new((ci, wi, gi), ins, func, active)
    }
}
