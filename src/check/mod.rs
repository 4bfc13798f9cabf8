//! The hazard checker (PTX ISA 9.0 chapter 8 "Memory Consistency Model", 9.7.9.25.1
//! "Completion Mechanisms for Asynchronous Copy Operations", 9.7.13.15 mbarrier): the contract's
//! hazard kinds as a typed enum ([`HazardKind`]), the happens-before checker the executor calls
//! ([`Checker`]: accesses, asynchronous issues, synchronising events), its rules in files by
//! concern, and the one report place that turns findings into [`Hazard`]s. It uses the memory
//! layer's clocks and shadows (`mem::hb`, `mem::shadow`) and the IR, never the executor.
//!
//! Files: `kind.rs` (hazard kinds), `state.rs` (the checker's clocks and shadows, agents and
//! places), `site.rs` (where an access happens and what it touches), `scopes.rs` (memory
//! scopes), `races.rs` (threads' accesses), `copies.rs` (asynchronous operations at issue),
//! `proxies.rs` (proxy fences), `grids.rs` (the grids of a launch tree), `sync.rs` (barriers, atomics, warp collectives), `exits.rs`
//! (a CTA's shared memory at its exit), `unused.rs` (racy reads whose value no warp uses),
//! `report.rs` (dedupe, messages, help, severity),
//! `slot.rs` (what the checker keeps of an asynchronous operation, carried by the copy engine).
//!
//! The checker follows the run, joining vector clocks at every synchronising event, and checks
//! every access of shared and global memory against the shadow of the bytes it touches (`mem::hb`,
//! `mem::shadow`). An asynchronous operation is checked when it is issued, as a read of its
//! sources and a write of its destinations spanning issue to completion, so the verdict never
//! depends on when the copy happened to land (the latency model). The rules, each a hazard kind
//! of `../shared/contract.md`:
//!
//! - a read of bytes an asynchronous operation writes, not ordered after its completion:
//!   `read-before-complete`; a write to them: `write-before-complete`;
//! - an asynchronous write to bytes a read not ordered before its issue reads:
//!   `async-write-after-read`;
//! - a write (or another operation's write) to bytes an operation reads, not ordered after it
//!   finished reading: `source-modified-before-complete`;
//! - a bulk or tensor operation (async proxy) that reads or overwrites bytes last written by an
//!   ordinary store whose writer did not execute `fence.proxy.async` after it, ordered before
//!   the issue: `missing-proxy-fence` (non-bulk `cp.async` and `st.async` are generic-proxy
//!   operations and need none; reads need none, so the CUTLASS consumer release is clean);
//! - two ordinary accesses of different warps, one a write, unordered: `data-race` (atomic,
//!   volatile and relaxed/acquire/release accesses do not race with each other); severity
//!   `warning` when a plain read meets only an atomic write (the memory model defines the value
//!   read: a CAS loop's first guess), when a plain store wrote the bytes memory held (a kept
//!   write), or when the reading warp never uses the value read (`unused.rs`), `error`
//!   otherwise;
//! - a peer CTA's access to a CTA's shared memory not ordered before that CTA exits, or an
//!   asynchronous operation's access to it (its own bulk store, a copy into it, a peer's
//!   `st.async`) whose end no thread of the CTA observed before the exit:
//!   `dsmem-access-after-exit` (PTX ISA 5.1.5.1; accesses after the exit stop the run in
//!   `memops`);
//! - a tensor copy using a tensor map that ordinary stores wrote to global memory with no
//!   `fence.proxy.tensormap::generic` release by the writer and acquire by the user after it:
//!   `missing-tensormap-proxy-fence` (9.7.12.4).
//!
//! Each distinct (kind, instruction, related instruction) is reported once with a count.

mod copies;
mod exits;
mod grids;
mod kind;
mod proxies;
mod races;
mod report;
pub(crate) mod scopes;
mod site;
pub(crate) mod slot;
mod state;
mod sync;
mod unused;

pub(crate) use grids::GridId;
pub use kind::HazardKind;
pub(crate) use proxies::{FENCE_GLOBAL, FENCE_SHARED};
pub use report::Hazard;
pub(crate) use report::{HazardKey, Msg};
pub(crate) use site::{describe, Access, Region, Site};
pub(crate) use slot::CopySlot;
pub(crate) use state::{Checker, DeviceCopy};
