//! What a launch is given and gives back: the run's options, the grid's shape, the counters
//! and the outcome, and the seeded scheduler's choices (PTX ISA 9.0 chapter 2 "Programming
//! Model" for the grid, clusters and cooperative launches). Below the machine state; imports
//! only `fault.rs`.

use super::fault::{Fault, Hazard};
use crate::latency::LatencyModel;
use crate::mem::Global;
use crate::trace::Trace;
use rand::{Rng, SeedableRng};
use rand_chacha::ChaCha8Rng;

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
    /// Compile a straight run of fast forms (`jit/`) once the interpreter has run its
    /// instructions this many times each on average; `None`: interpret everything. Outputs,
    /// reports and traces are the same.
    pub jit: Option<u32>,
    /// Check invariants the fast paths rely on as the run goes (slower; tests only): a broken
    /// one panics (`jit::Jit::verify`).
    pub verify: bool,
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

/// How many times, on average, the interpreter runs the arithmetic instructions of a straight
/// run before the JIT (`jit/`) compiles it, unless the options say otherwise: about what
/// compiling costs (see `jit/mod.rs`, which weighs loads and stores more), so code that runs
/// less is never compiled and hot loops soon are.
pub const JIT_AFTER: u32 = 4000;

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
            jit: Some(JIT_AFTER),
            verify: false,
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

/// The first CTA of every cluster, in launch order (x fastest); of a cooperative launch, whose
/// CTAs all run together, the first CTA alone.
pub(crate) fn origins(grid: &Grid) -> Vec<[u32; 3]> {
    let c = grid.unit().map(|d| d.max(1) as usize);
    let mut out = Vec::new();
    for z in (0..grid.grid[2]).step_by(c[2]) {
        for y in (0..grid.grid[1]).step_by(c[1]) {
            for x in (0..grid.grid[0]).step_by(c[0]) {
                out.push([x, y, z]);
            }
        }
    }
    out
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
