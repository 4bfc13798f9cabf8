//! Execution: one launch of one kernel (PTX ISA 9.0 chapter 2 "Programming Model" and 3
//! "PTX Machine Model"). A grid of CTAs, each CTA a set of warps of 32 lanes; every warp keeps
//! its lanes in *groups* that share a program counter, split at divergent branches and merged
//! again where their PCs meet (Volta+ independent thread scheduling: a group may wait at a
//! barrier while another group of the same warp runs on). An instruction is executed once for a
//! whole group, over registers laid out per register and then per lane (structure of arrays).
//!
//! CTAs are grouped into clusters (PTX ISA 9.0 section 2.2.1): the CTAs of a cluster run
//! together, their warps interleaved by one scheduler, and share distributed shared memory and
//! the cluster barrier; clusters do not interact and run one after another. A cooperative
//! launch (`coop.rs`) is the exception: its CTAs may wait for each other, so the whole grid runs
//! as one unit.
//!
//! Scheduling is deterministic: a ChaCha generator seeded from the launch's seed picks the next
//! warp of a cluster and how many instructions it runs, and a virtual clock counts cycles;
//! nothing depends on wall time or hash order. Asynchronous operations (`cp.async`, bulk and
//! tensor copies, `st.async`) go to the copy engine (`mem::copy`) with times from the latency
//! model; when every warp waits, the clock jumps to the next asynchronous event.
//!
//! The families of instructions live in `alu.rs` (integer, logic, bit manipulation), `fp.rs`
//! (floating point), `cvt.rs` (conversions), `memops.rs` (loads, stores, atomics, addresses),
//! `warpops.rs` (shuffles, votes, reductions), `matrix.rs` (`ldmatrix`/`stmatrix`), `control.rs` (branches, calls, barriers),
//! `video.rs` (the video instructions), `asyncops.rs` (asynchronous copies and their groups), `tensorops.rs` (tensor copies), `tmapedit.rs`
//! (tensor maps edited on the device), `texops.rs` (textures and surfaces), `mbarops.rs` (mbarriers and the
//! cluster barrier), `printf.rs` (device `printf`, `malloc`) and `cdp.rs` (device-side launches); `park.rs` parks and wakes waiting lane
//! groups and reports deadlocks. The hottest instructions also have warp-wide fast forms
//! (`fast.rs`, chosen once per launch by `translate.rs`; loads and stores in `memfast.rs`) that
//! compute the same bits over whole register rows.

mod alu;
mod asyncops;
#[cfg(test)]
mod campaign;
mod cdp;
mod control;
mod coop;
#[cfg(test)]
mod coverage_tests;
mod ctx;
mod cvt;
mod fast;
mod fp;
mod grid;
mod hazard;
mod layout;
mod matrix;
mod mbarops;
mod memfast;
mod memops;
mod mma;
mod mma_quad;
mod mma_sp;
mod narrow;
mod park;
mod policy;
mod printf;
mod scopes;
mod sfu;
mod spin;
mod stbulk;
mod step;
mod tcore;
mod tensorops;
mod texops;
mod tmapedit;
mod translate;
mod video;
mod warpgroup;
mod warpops;
mod wgmma;
mod wgmma_sp;
mod wmma;

use crate::ir::{FuncId, Module};
use crate::latency::LatencyModel;
use crate::mem::Global;
use crate::trace::Trace;
use rand::{Rng, SeedableRng};
use rand_chacha::ChaCha8Rng;
use std::fmt;

pub use layout::Layout;

/// How to run.
pub struct Options {
    pub seed: u64,
    /// Stop with a fault after this many warp-instructions (guards against endless loops).
    pub max_steps: u64,
    /// Cycles the virtual clock advances per instruction a warp executes.
    pub instruction_cycles: u64,
    /// When asynchronous operations read, land and complete.
    pub latency: Box<dyn LatencyModel>,
    /// Record a trace; with every instruction too.
    pub trace: bool,
    pub trace_instructions: bool,
    /// Write the trace there as it is made, instead of keeping it in the outcome.
    pub trace_to: Option<crate::trace::TraceSink>,
    /// Check happens-before (hazards); off for speed with `--no-check`.
    pub check: bool,
    /// Run the hot instructions through their warp-wide fast forms (`fast.rs`); off only to
    /// compare them with the general handlers.
    pub fast: bool,
    /// Threads to run clusters on (`grid.rs`): results are the same as with one.
    pub jobs: usize,
    /// Set from another thread to stop the run with an `interrupted` fault (a Python caller's
    /// Ctrl-C); looked at every [`CANCEL_EVERY`] warp instructions.
    pub cancel: Option<std::sync::Arc<std::sync::atomic::AtomicBool>>,
    /// Stop the run with a `timeout` fault at this instant (`--timeout`).
    pub deadline: Option<std::time::Instant>,
    /// The run's memory budget: what it allocates as it goes is charged here, and going over
    /// stops it with a `memory-limit` fault.
    pub meter: std::sync::Arc<crate::mem::budget::Meter>,
    /// Device `malloc`'s heap (`cudaLimitMallocHeapSize`) and the `printf` FIFO
    /// (`cudaLimitPrintfFifoSize`), bytes.
    pub malloc_heap_bytes: u64,
    pub printf_fifo_bytes: u64,
}

/// The step limit unless told otherwise: 2^28 warp instructions, a few seconds to a minute of
/// interpreting (the largest sample needs 5 million; a 1024^3 SGEMM about 100 million). A
/// loop that spins on memory nobody writes ends much sooner, as a deadlock (`spin.rs`).
pub const DEFAULT_MAX_STEPS: u64 = 1 << 28;

/// CUDA's default `cudaLimitMallocHeapSize`: 8 MiB (CUDA C++ Programming Guide, "Dynamic
/// Global Memory Allocation and Operations", "Heap Memory Allocation").
pub const MALLOC_HEAP_BYTES: u64 = 8 << 20;
/// CUDA's default `cudaLimitPrintfFifoSize`: 1 MiB (CUDA C++ Programming Guide, "Formatted
/// Output", "Limitations").
pub const PRINTF_FIFO_BYTES: u64 = 1 << 20;

/// How often (in warp instructions, a power of two) a run looks at `Options::cancel`.
pub const CANCEL_EVERY: u64 = 1 << 12;

impl Default for Options {
    fn default() -> Self {
        Options {
            seed: 0,
            max_steps: DEFAULT_MAX_STEPS,
            instruction_cycles: 1,
            latency: Box::new(crate::latency::Immediate),
            trace: false,
            trace_instructions: false,
            trace_to: None,
            check: true,
            fast: true,
            jobs: 1,
            cancel: None,
            deadline: None,
            meter: std::sync::Arc::new(crate::mem::budget::Meter::unlimited()),
            malloc_heap_bytes: MALLOC_HEAP_BYTES,
            printf_fifo_bytes: PRINTF_FIFO_BYTES,
        }
    }
}

/// What a launch needs besides the module.
#[derive(Debug, Clone)]
pub struct Grid {
    pub grid: [u32; 3],
    pub block: [u32; 3],
    pub dynamic_shared_bytes: u32,
    /// CTAs per cluster (`[1, 1, 1]` without clusters); each grid dimension is a multiple.
    pub cluster: [u32; 3],
    /// The launch asked for clusters (`%is_explicit_cluster`).
    pub explicit_cluster: bool,
    /// A cooperative launch (`cudaLaunchCooperativeKernel`): every CTA is resident at once, so
    /// the whole grid runs as one scheduling unit, and `%envreg1:%envreg2` hold the address of
    /// the grid workspace `this_grid().sync()` counts arrivals in (0 otherwise).
    pub cooperative: Option<u64>,
    /// The launch's texture and surface objects; handle `h` is `objects[h - 1]`.
    pub objects: Vec<crate::mem::texture::TexObject>,
}

impl Grid {
    /// CTAs per cluster.
    pub fn cluster_ctas(&self) -> u32 {
        self.cluster.iter().product()
    }

    /// The CTAs one scheduling unit runs together: a cluster, or a cooperative launch's grid.
    pub fn unit(&self) -> [u32; 3] {
        if self.cooperative.is_some() {
            self.grid
        } else {
            self.cluster
        }
    }
}

/// The kind of a kernel fault (exit code 1).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum FaultKind {
    Memory,
    Trap,
    Deadlock,
    StepLimit,
    /// The caller asked the run to stop (`Options::cancel`).
    Interrupted,
    /// The run reached `Options::deadline`.
    Timeout,
    /// The run needed more memory than its budget (`Options::meter`): bad input, exit 2.
    MemoryLimit,
    /// The kernel left more pending than ptxrun keeps for a thread (asynchronous copies no wait
    /// or arrive-on tracks): memory stays bounded by the launch, not by its running time.
    Limit,
    Unsupported,
    Misaligned,
    /// Undefined behaviour of one of the contract's hazard kinds (`tx-count-underflow`, ...).
    Hazard(crate::check::HazardKind),
}

impl FaultKind {
    pub fn name(self) -> &'static str {
        match self {
            FaultKind::Memory => "out-of-bounds",
            FaultKind::Trap => "trap",
            FaultKind::Deadlock => "deadlock",
            FaultKind::StepLimit => "step-limit",
            FaultKind::Interrupted => "interrupted",
            FaultKind::Timeout => "timeout",
            FaultKind::MemoryLimit => "memory-limit",
            FaultKind::Limit => "resource-limit",
            FaultKind::Unsupported => "unsupported",
            FaultKind::Misaligned => "misaligned",
            FaultKind::Hazard(kind) => kind.as_str(),
        }
    }
}

/// A kernel fault, with the instruction and thread where it happened.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Fault {
    pub kind: FaultKind,
    pub message: String,
    /// Function and instruction index, when one instruction is at fault.
    pub at: Option<(FuncId, u32)>,
    pub cta: [u32; 3],
    pub thread: [u32; 3],
    /// The faulting thread's index within its CTA, before it becomes `thread`.
    pub linear_thread: Option<u32>,
}

impl fmt::Display for Fault {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&self.message)
    }
}

/// A hazard the happens-before checker found: undefined behaviour at an instruction, related
/// to another (the conflicting access or the asynchronous operation).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Hazard {
    /// The contract's hazard kind (`read-before-complete`, ...).
    pub kind: crate::check::HazardKind,
    pub message: String,
    /// The usual fix.
    pub help: String,
    /// The offending access: function and instruction index.
    pub at: (FuncId, u32),
    pub cta: [u32; 3],
    pub thread: [u32; 3],
    /// The thread's index within its CTA, before it becomes `thread`.
    pub linear_thread: u32,
    /// `buffer+offset (n bytes)` or `shared+offset (n bytes)`.
    pub address: String,
    pub related: Vec<Related>,
    /// How many times this (kind, instruction, related instruction) occurred.
    pub count: u64,
    /// `Error` for undefined behaviour; `Warning` for what the memory model defines but is
    /// usually unintended (a plain read that races only with atomic writes).
    pub severity: crate::diag::Severity,
}

/// The other side of a hazard.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Related {
    pub at: (FuncId, u32),
    pub label: String,
}

/// Counters of a run.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct Stats {
    pub thread_instructions: u64,
    pub warp_instructions: u64,
    pub cycles: u64,
    /// The most asynchronous operations in flight at once (whole records in the copy engine),
    /// and the summaries of completed ones kept for the checker at the end: the engine's
    /// memory is proportional to these, not to the run's length.
    pub peak_ops_in_flight: u64,
    pub op_summaries: u64,
    /// The most local memory a cluster's threads made (the pages they wrote: local memory is
    /// allocated lazily), bytes.
    pub peak_local_bytes: u64,
}

/// The state after a run: memory (to read outputs from), printed text, counters, the trace,
/// and the fault that stopped it, if any.
#[derive(Debug)]
pub struct Outcome {
    pub global: Global,
    pub stdout: String,
    pub stats: Stats,
    pub fault: Option<Fault>,
    pub trace: Trace,
    /// The latency model's name.
    pub latency: String,
    /// Hazards the checker found (the run goes on after a hazard).
    pub hazards: Vec<Hazard>,
    /// How many threads ran the clusters: 1 unless `Options::jobs` allowed more and the clusters
    /// did not interact (`grid.rs`). Nothing else in the outcome depends on it.
    pub threads: usize,
    /// Set when device `printf` produced more than the FIFO holds.
    pub printf_truncated: Option<PrintfTruncated>,
}

/// Device `printf` output beyond the FIFO (`Options::printf_fifo_bytes`): CUDA drops a call
/// that does not fit; ptxrun keeps the calls in order until the first that does not fit, and
/// drops it and every later one.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct PrintfTruncated {
    pub fifo_bytes: u64,
    /// Bytes of formatted output dropped.
    pub dropped_bytes: u64,
}

pub use coop::{resident_ctas, SMS};
pub use grid::run;

/// How many instructions of a module have a warp-wide fast form, of how many (`fast.rs`).
pub fn fast_coverage(m: &Module) -> (usize, usize) {
    let var_addr = vec![0; m.vars.len()];
    m.functions
        .iter()
        .flat_map(|f| translate::translate(m, f, &var_addr))
        .fold((0, 0), |(n, t), f| {
            (n + usize::from(f != fast::Fast::Slow), t + 1)
        })
}

/// Sign-extends the low `bits` of `v` (for reports).
pub fn sext_pub(v: u64, bits: u32) -> i64 {
    alu::sext(v, bits)
}

/// The scheduler's choices, from one seeded generator.
pub(crate) struct Scheduler {
    rng: ChaCha8Rng,
}

impl Scheduler {
    pub fn new(seed: u64) -> Self {
        Scheduler {
            rng: ChaCha8Rng::seed_from_u64(seed),
        }
    }

    /// Index of the next warp among `n` runnable ones.
    pub fn pick(&mut self, n: usize) -> usize {
        if n <= 1 {
            0
        } else {
            self.rng.gen_range(0..n)
        }
    }

    /// How many instructions the picked warp runs before the next choice.
    pub fn quantum(&mut self) -> u32 {
        self.rng.gen_range(1..=32)
    }
}
