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
//! The files form one-way layers, each importing only the layers below it:
//! - bottom: `lanes.rs` (warp width, lane masks), `fault.rs` (faults, hazards), `config.rs`
//!   (options, grid, counters, outcome, the seeded scheduler), and plain state or tables that
//!   import nothing above them: `layout.rs`, `warpgroup.rs`, `hazard.rs` (the hooks of the
//!   checker, which lives in `crate::check` and never imports `exec`), `heap.rs` (printf FIFO, malloc heap), `spin.rs` (spin-loop state), `wgstate.rs`
//!   (a warp's wgmma groups), `fast.rs`/`translate.rs` (warp-wide fast forms), `coop.rs`
//!   (resident CTAs of a cooperative launch), `narrow.rs`, `sfu.rs`;
//! - the machine state: `warp.rs` (clusters, CTAs, warps, lane groups, frames, barriers, what a
//!   parked group waits for) and `machine.rs` (one launch's state, CTA and frame creation, the
//!   `WarpRef` handle of an executing lane group);
//! - `ctx.rs` (an instruction's operands, registers and special registers) and `addr.rs`
//!   (addresses, alignment, bounds, shared-memory locations), `shown.rs` (what the checker is
//!   shown of an access: its pieces and ranges); `park.rs` parks and wakes lane groups and
//!   reports deadlocks, `stuck.rs` proves spin loops endless;
//! - the instruction families, each a handler over a `Ctx` (or the machine and a `WarpRef`):
//!   `alu.rs`, `fp.rs`, `cvt.rs`, `video.rs`, `memops.rs`, `memfast.rs`, `fence.rs`,
//!   `warpops.rs`, `matrix.rs` with `mma*.rs`/`wmma.rs`/`wgmma*.rs`/`tcore.rs`, `asyncops.rs`,
//!   `mbarops.rs`, `tensorops.rs`, `tmapedit.rs`, `texops.rs`, `stbulk.rs`, `policy.rs`;
//!   `collective.rs` (the warp rendezvous), `devrt.rs` (the device runtime), `printf.rs`
//!   (builtins: printf, malloc, assert), `control.rs` (branches, calls, barriers);
//! - straight runs `straight.rs`; the scheduler and dispatcher `step.rs`; `cdp.rs` (grids launched from the device),
//!   and `grid.rs` (the launch, on one or several threads); this file last, which no file
//!   imports.
//!
//! The hottest instructions have warp-wide fast forms (`fast.rs`, chosen once per launch by
//! `translate.rs`; loads and stores in `memfast.rs`) that compute the same bits over whole
//! register rows.

mod addr;
mod alu;
mod asyncops;
#[cfg(test)]
mod campaign;
mod cdp;
mod collective;
mod config;
mod control;
mod coop;
#[cfg(test)]
mod coverage_tests;
mod ctx;
mod cudaerr;
mod cvt;
mod devrt;
mod fast;
mod fault;
mod fence;
mod fp;
mod grid;
mod hazard;
mod heap;
mod jit;
mod lanes;
mod launchval;
mod layout;
mod machine;
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
mod products;
mod route;
mod sfu;
mod shown;
mod spin;
mod stbulk;
mod step;
mod straight;
mod stuck;
mod tcore;
mod tensorops;
mod texcube;
mod texops;
mod tmapedit;
mod translate;
mod video;
mod warp;
mod warpgroup;
mod warpops;
mod wgmma;
mod wgmma_sp;
mod wgstate;
mod wmma;

pub use config::{
    Grid, Options, Outcome, DEFAULT_MAX_STEPS, JIT_AFTER, MALLOC_HEAP_BYTES, PRINTF_FIFO_BYTES,
};
pub use coop::{resident_ctas, SMS};
pub use fault::{Fault, FaultKind, Hazard};
pub use grid::run;

/// Sign-extends the low `bits` of `v` (for reports).
pub fn sext_pub(v: u64, bits: u32) -> i64 {
    alu::sext(v, bits)
}
