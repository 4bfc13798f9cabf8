//! Where the checker's findings happen and what they touch: the instruction and thread of an
//! access ([`Site`]), the memory it touches ([`Region`], a global address or an offset in one
//! CTA's shared memory, PTX ISA 9.0 5.1 "State Spaces"), one warp instruction's access
//! ([`Access`]), and how reports name them. The CTA rank of an agent ([`place_in`]) is what
//! scopes are measured by (PTX ISA 9.0 8.5 "Scope").

use super::scopes::{Place, Scope};
use crate::mem::hb::Agent;
use crate::mem::Global;

/// Where an access happens: the instruction, and the thread that executes it.
#[derive(Debug, Clone, Copy)]
pub(crate) struct Site {
    pub func: u32,
    pub pc: u32,
    pub rank: u32,
    pub cta: [u32; 3],
    pub warp: u32,
    pub lane: u32,
}

/// The memory an access touches.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Region {
    Global(u64),
    /// A CTA's shared memory (rank) at an offset.
    Shared(u32, u64),
}

/// An access of memory by one warp instruction, as the checker sees it.
#[derive(Debug, Clone, Copy)]
pub(crate) struct Access<'l> {
    /// The `len` bytes of `region` the instruction touches.
    pub region: Region,
    pub len: usize,
    pub write: bool,
    /// The scope of an atomic or other strong access (`None`: an ordinary one).
    pub strong: Option<Scope>,
    /// The lanes' accesses (start, end, lane), for reports (empty: the site's lane made all of
    /// it).
    pub lanes: &'l [(u64, u64, u32)],
    /// An ordinary store none of whose lanes changed a byte: each stored the bytes the memory
    /// held (a kept write, `mem::stamp`).
    pub kept: bool,
}

/// The word a region byte belongs to, as atomics and observations key it.
pub(super) fn word_key(r: Region) -> (u32, u64) {
    match r {
        Region::Global(a) => (0, a & !3),
        Region::Shared(rank, o) => (rank + 1, o & !3),
    }
}

/// The CTA rank whose warps' agents start at the greatest of `starts` not above `agent`, if
/// `agent` is below `end`.
pub(super) fn place_in(starts: &[Agent], end: Agent, agent: Agent) -> Place {
    match starts.first() {
        Some(&first) if first <= agent && agent < end => {
            Some(starts.partition_point(|&a| a <= agent) as u32 - 1)
        }
        _ => None,
    }
}

/// The region `delta` bytes further.
pub(super) fn region_at(r: Region, delta: u64) -> Region {
    match r {
        Region::Global(a) => Region::Global(a + delta),
        Region::Shared(rank, o) => Region::Shared(rank, o + delta),
    }
}

/// A region's address, as the memory instructions' ranges key it.
pub(super) fn addr_key(r: Region) -> u64 {
    match r {
        Region::Global(a) => a,
        Region::Shared(_, o) => o,
    }
}

/// `buffer+offset (n bytes)` or `shared+offset (n bytes)` for reports; `own` is the accessing
/// CTA's rank.
pub(crate) fn describe(global: &Global, region: Region, len: usize, own: u32) -> String {
    match region {
        Region::Global(a) => format!("{} ({len} bytes)", global.describe(a)),
        Region::Shared(r, o) if r == own => format!("shared+{o:#x} ({len} bytes)"),
        Region::Shared(r, o) => format!("shared+{o:#x} of CTA rank {r} ({len} bytes)"),
    }
}
