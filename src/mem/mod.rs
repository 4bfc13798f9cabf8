//! Memory: the state spaces a kernel reads and writes (PTX ISA 9.0 section 5.1 "State Spaces"
//! and 6.4.1 "Generic Addressing"). Global memory is a set of allocations, each 256-byte aligned
//! like `cudaMalloc` and separated by unmapped gaps so that running off the end of a buffer is a
//! fault that names the buffer; `.const` and module `.global` variables are allocations too.
//! Shared memory is one byte array per CTA, local memory one per thread. Generic addresses map
//! the shared, local and kernel-parameter windows onto fixed ranges that no allocation uses, so
//! `cvta` is arithmetic and a generic access finds its space from the address alone.
//!
//! Distributed shared memory (9.0 section 5.1.5.1 "Shared State Space", `shared::cluster`): an
//! address below [`CLUSTER_STRIDE`] is the executing CTA's own; above it, bits 24 and up name a
//! CTA of the cluster (rank + 1) and the low 24 bits the offset in its shared memory. `mapa`
//! makes such addresses; generic addresses carry them inside the shared window.
//!
//! The asynchronous copy engine is `copy.rs`, the mbarrier object `mbarrier.rs`, the CUDA tensor
//! map `tensormap.rs`, texture and surface objects and their sampling arithmetic `texture.rs`
//! (blends of two planes `trilinear.rs`, `tex.grad`'s level `gradlod.rs`),
//! and read-modify-write arithmetic `reduce.rs`; the happens-before checker's
//! vector clocks are `hb.rs` and its shadow memory `shadow.rs`.

pub mod budget;
pub mod copy;
pub mod gradlod;
pub mod hb;
pub mod im2col;
pub mod local;
pub mod mbarrier;
pub mod reduce;
pub mod shadow;
pub mod stamp;
pub mod tensormap;
pub mod texture;
pub mod trilinear;

use std::collections::BTreeMap;
use std::fmt;

/// Where global allocations start. Like CUDA's, addresses are large and 256-byte aligned.
pub const GLOBAL_BASE: u64 = 0x7f00_0000_0000;
/// Generic window of the executing CTA's shared memory: generic = WINDOW + shared offset.
pub const SHARED_WINDOW: u64 = 0x0001_0000_0000_0000;
/// Generic window of the executing thread's local memory.
pub const LOCAL_WINDOW: u64 = 0x0002_0000_0000_0000;
/// Generic window of the kernel parameter buffer (`cvta.param`, `__grid_constant__`). A kernel
/// parameter's own `.param` address (what `mov` of its name gives) is its offset in the buffer,
/// as on the GPU (measured on an H200: `docs/launch/param-space.md`).
pub const PARAM_WINDOW: u64 = 0x0003_0000_0000_0000;
/// Where the `.param` addresses of a function's parameters and return values, and of the
/// `.param` variables a body declares for its calls, start: above every kernel parameter's offset
/// (at most 32 KiB) and below 2^32, so that a `.param` access knows the kernel's parameters from
/// the frame's by the address alone, at 32 bits too. Not generic: no window maps it (as on the
/// GPU, where these live in registers or the stack).
pub const FRAME_PARAM_BASE: u64 = 0x8000_0000;
/// Size of each window.
pub const WINDOW_SIZE: u64 = 1 << 32;

/// What a variable of `space` adds to its layout offset to make its own-space address: the
/// frame's `.param` base for `.param` variables (call arguments), nothing for the others (a
/// `.local` variable's frame base is the frame's, not a constant).
pub fn var_space_base(space: crate::ir::Space) -> u64 {
    use crate::ir::Space;
    match space {
        Space::Param | Space::ParamEntry | Space::ParamFunc => FRAME_PARAM_BASE,
        _ => 0,
    }
}

/// What `cvta` (PTX ISA 9.0 section 9.7.9, `cvta`) adds to an address of `space` to make it generic,
/// and `cvta.to` takes away: the space's window; nothing for global memory.
pub fn cvta_window(space: Option<crate::ir::Space>) -> u64 {
    use crate::ir::Space;
    match space {
        Some(Space::Shared | Space::SharedCluster) => SHARED_WINDOW,
        Some(Space::Local) => LOCAL_WINDOW,
        Some(Space::Param | Space::ParamEntry) => PARAM_WINDOW,
        _ => 0,
    }
}

/// Gap left unmapped after each allocation.
const GAP: u64 = 256;
/// Shared-memory addresses of other CTAs of a cluster: `(rank + 1) * CLUSTER_STRIDE + offset`.
pub const CLUSTER_STRIDE: u64 = 1 << 24;

/// A `shared::cluster` address split into (rank, offset); `own` is the executing CTA's rank.
pub fn cluster_addr(addr: u64, own: u32) -> (u32, u64) {
    let hi = addr / CLUSTER_STRIDE;
    if hi == 0 {
        (own, addr)
    } else {
        (
            (hi - 1).min(u64::from(u32::MAX)) as u32,
            addr % CLUSTER_STRIDE,
        )
    }
}

/// The `shared::cluster` address of offset `off` in the shared memory of CTA `rank`.
pub fn cluster_encode(rank: u32, off: u64) -> u64 {
    (u64::from(rank) + 1) * CLUSTER_STRIDE + off % CLUSTER_STRIDE
}

/// One CTA's shared memory and the mbarrier objects that live in it (keyed by offset).
#[derive(Debug, Clone, Default)]
pub struct Smem {
    pub bytes: Vec<u8>,
    pub mbars: BTreeMap<u32, mbarrier::Mbarrier>,
    /// Every thread of the CTA has exited: its shared memory no longer exists for its peers.
    pub exited: bool,
}

impl Smem {
    pub fn new(size: usize) -> Self {
        Smem {
            bytes: vec![0; size],
            mbars: BTreeMap::new(),
            exited: false,
        }
    }

    /// Mirrors the state of the mbarrier at `off` into its 8 bytes.
    pub fn sync_mbar(&mut self, off: u32) {
        let v = self.mbars.get(&off).map_or(0, mbarrier::Mbarrier::encode);
        if let Some(b) = self.bytes.get_mut(off as usize..off as usize + 8) {
            write_le(b, v);
        }
    }
}

/// An access that misses every allocation, or breaks alignment.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct MemFault {
    pub message: String,
}

impl fmt::Display for MemFault {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&self.message)
    }
}

#[derive(Debug, Clone)]
pub struct Alloc {
    pub name: String,
    pub base: u64,
    pub data: Vec<u8>,
    pub readonly: bool,
}

/// Device global memory (and `.const`, which is read-only global memory here).
#[derive(Debug, Default)]
pub struct Global {
    /// Sorted by base address.
    pub allocs: Vec<Alloc>,
    next: u64,
    /// The byte ranges accessed, while clusters run on several threads (`exec::grid` proves from
    /// them that the clusters did not interact). A clone does not log.
    pub log: Option<std::sync::Mutex<AccessLog>>,
}

impl Clone for Global {
    fn clone(&self) -> Self {
        Global {
            allocs: self.allocs.clone(),
            next: self.next,
            log: None,
        }
    }
}

impl Global {
    /// A clone, or `None` when the host cannot allocate its bytes (a launch's buffers can be
    /// gigabytes: a failed copy is an error for the caller to report, not an abort).
    pub fn try_clone(&self) -> Option<Global> {
        let mut allocs = Vec::new();
        allocs.try_reserve_exact(self.allocs.len()).ok()?;
        for a in &self.allocs {
            let mut data = Vec::new();
            data.try_reserve_exact(a.data.len()).ok()?;
            data.extend_from_slice(&a.data);
            allocs.push(Alloc {
                name: a.name.clone(),
                base: a.base,
                data,
                readonly: a.readonly,
            });
        }
        Some(Global {
            allocs,
            next: self.next,
            log: None,
        })
    }
}

/// Byte ranges `[start, end)` of global memory read and written, in access order with
/// neighbours merged; [`AccessLog::normalize`] sorts and merges them.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct AccessLog {
    pub reads: Vec<(u64, u64)>,
    pub writes: Vec<(u64, u64)>,
}

impl AccessLog {
    fn add(v: &mut Vec<(u64, u64)>, start: u64, end: u64) {
        if let Some(last) = v.last_mut() {
            if start <= last.1 && end >= last.0 {
                *last = (last.0.min(start), last.1.max(end));
                return;
            }
        }
        // Scattered accesses would grow the list with every access; merged, it stays within
        // the number of bytes that exist, so compact whenever it has doubled.
        if v.len() >= COMPACT_FROM && v.len().is_power_of_two() {
            merge(v);
        }
        v.push((start, end));
    }

    pub fn read(&mut self, start: u64, end: u64) {
        Self::add(&mut self.reads, start, end);
    }

    pub fn write(&mut self, start: u64, end: u64) {
        Self::add(&mut self.writes, start, end);
    }

    /// Sorts both lists and merges overlapping or touching ranges.
    pub fn normalize(&mut self) {
        merge(&mut self.reads);
        merge(&mut self.writes);
    }
}

/// Length from which an [`AccessLog`] list is compacted as it grows.
const COMPACT_FROM: usize = 1 << 12;

/// Sorts `v` and merges its overlapping or touching ranges, in place.
fn merge(v: &mut Vec<(u64, u64)>) {
    v.sort_unstable();
    let mut n = 0;
    for i in 0..v.len() {
        let (a, b) = v[i];
        if n > 0 && a <= v[n - 1].1 {
            v[n - 1].1 = v[n - 1].1.max(b);
        } else {
            v[n] = (a, b);
            n += 1;
        }
    }
    v.truncate(n);
}

impl Global {
    pub fn new() -> Self {
        Global {
            allocs: Vec::new(),
            next: GLOBAL_BASE,
            log: None,
        }
    }

    /// Adds an allocation and returns its address.
    pub fn alloc(&mut self, name: &str, data: Vec<u8>, readonly: bool) -> u64 {
        let base = self.next;
        let len = data.len() as u64;
        self.next = (base + len.max(1) + GAP).next_multiple_of(256);
        self.allocs.push(Alloc {
            name: name.to_string(),
            base,
            data,
            readonly,
        });
        base
    }

    /// Gives the bytes of the allocation at `addr` back (device `free`): the entry stays, so
    /// allocation indices do not move, with no bytes, so every later access is out of bounds
    /// and names it as freed. Returns its index.
    pub fn release(&mut self, addr: u64) -> Option<usize> {
        let i = self.allocs.binary_search_by_key(&addr, |a| a.base).ok()?;
        let a = &mut self.allocs[i];
        a.data = Vec::new();
        a.name.push_str(" (freed)");
        Some(i)
    }

    pub fn by_name(&self, name: &str) -> Option<&Alloc> {
        self.allocs.iter().find(|a| a.name == name)
    }

    /// The allocation (index) and offset of `len` bytes at `addr`.
    pub fn locate(&self, addr: u64, len: u64) -> Result<(usize, usize), MemFault> {
        let i = self.allocs.partition_point(|a| a.base <= addr);
        if i > 0 {
            let a = &self.allocs[i - 1];
            let end = a.base + a.data.len() as u64;
            if addr >= a.base && addr.saturating_add(len) <= end {
                return Ok((i - 1, (addr - a.base) as usize));
            }
            if addr < end + GAP {
                return Err(MemFault {
                    message: format!(
                        "{len}-byte access at `{}`+{} runs past its end ({} bytes)",
                        a.name,
                        addr - a.base,
                        a.data.len()
                    ),
                });
            }
        }
        Err(MemFault {
            message: format!("{len}-byte access at global address {addr:#x} hits no allocation"),
        })
    }

    /// Bytes of all allocations.
    pub fn size(&self) -> usize {
        self.allocs.iter().map(|a| a.data.len()).sum()
    }

    /// A readable slice of `len` bytes at `addr`.
    pub fn read(&self, addr: u64, len: usize) -> Result<&[u8], MemFault> {
        let (i, off) = self.locate(addr, len as u64)?;
        self.note_read(addr, len as u64);
        Ok(&self.allocs[i].data[off..off + len])
    }

    /// Records a read of `[addr, addr + len)` when accesses are logged.
    pub fn note_read(&self, addr: u64, len: u64) {
        if let Some(l) = &self.log {
            l.lock()
                .unwrap_or_else(|e| e.into_inner())
                .read(addr, addr + len);
        }
    }

    /// Records a write of `[addr, addr + len)` when accesses are logged.
    pub fn note_write(&self, addr: u64, len: u64) {
        if let Some(l) = &self.log {
            l.lock()
                .unwrap_or_else(|e| e.into_inner())
                .write(addr, addr + len);
        }
    }

    pub fn write(&mut self, addr: u64, len: usize) -> Result<&mut [u8], MemFault> {
        let (i, off) = self.locate(addr, len as u64)?;
        self.note_write(addr, len as u64);
        let a = &mut self.allocs[i];
        if a.readonly {
            return Err(MemFault {
                message: format!("write to read-only `{}` (a .const variable)", a.name),
            });
        }
        Ok(&mut a.data[off..off + len])
    }

    /// Writable bytes even of a read-only allocation: for laying out initial data.
    pub fn write_init(&mut self, addr: u64, len: usize) -> Result<&mut [u8], MemFault> {
        let (i, off) = self.locate(addr, len as u64)?;
        self.note_write(addr, len as u64);
        Ok(&mut self.allocs[i].data[off..off + len])
    }

    /// Whether `addr` lies in a read-only (`.const`) allocation.
    pub fn is_readonly(&self, addr: u64) -> bool {
        self.locate(addr, 1)
            .is_ok_and(|(i, _)| self.allocs[i].readonly)
    }

    /// `buffer+offset` for a global address, for reports.
    pub fn describe(&self, addr: u64) -> String {
        match self.named(addr) {
            Some((name, off)) => format!("{name}+{off:#x}"),
            None => format!("global {addr:#x}"),
        }
    }

    /// The allocation `addr` is in (or in the gap just past) and its offset there: what
    /// [`Global::describe`] writes as `NAME+0xOFF`.
    pub fn named(&self, addr: u64) -> Option<(&str, u64)> {
        let i = self.allocs.partition_point(|a| a.base <= addr);
        let a = &self.allocs[i.checked_sub(1)?];
        (addr < a.base + a.data.len() as u64 + GAP).then(|| (a.name.as_str(), addr - a.base))
    }
}

/// A flat byte space (shared memory of a CTA, local memory of a thread, a parameter buffer).
pub fn slice<'a>(mem: &'a [u8], space: &str, off: u64, len: usize) -> Result<&'a [u8], MemFault> {
    match usize::try_from(off)
        .ok()
        .filter(|o| o.checked_add(len).is_some_and(|e| e <= mem.len()))
    {
        Some(o) => Ok(&mem[o..o + len]),
        None => Err(MemFault {
            message: format!(
                "{len}-byte {space} access at offset {off:#x} is outside its {} bytes",
                mem.len()
            ),
        }),
    }
}

pub fn slice_mut<'a>(
    mem: &'a mut [u8],
    space: &str,
    off: u64,
    len: usize,
) -> Result<&'a mut [u8], MemFault> {
    let n = mem.len();
    match usize::try_from(off)
        .ok()
        .filter(|o| o.checked_add(len).is_some_and(|e| e <= n))
    {
        Some(o) => Ok(&mut mem[o..o + len]),
        None => Err(MemFault {
            message: format!(
                "{len}-byte {space} access at offset {off:#x} is outside its {n} bytes"
            ),
        }),
    }
}

/// Which space a generic address falls in.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Generic {
    Global(u64),
    Shared(u64),
    Local(u64),
    Param(u64),
}

pub fn classify(addr: u64) -> Generic {
    let window = |base: u64| addr.checked_sub(base).filter(|o| *o < WINDOW_SIZE);
    if let Some(o) = window(SHARED_WINDOW) {
        Generic::Shared(o)
    } else if let Some(o) = window(LOCAL_WINDOW) {
        Generic::Local(o)
    } else if let Some(o) = window(PARAM_WINDOW) {
        Generic::Param(o)
    } else {
        Generic::Global(addr)
    }
}

pub fn read_le(b: &[u8]) -> u64 {
    let mut v = [0u8; 8];
    let n = b.len().min(8);
    v[..n].copy_from_slice(&b[..n]);
    u64::from_le_bytes(v)
}

pub fn write_le(b: &mut [u8], v: u64) {
    let n = b.len().min(8);
    b[..n].copy_from_slice(&v.to_le_bytes()[..n]);
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn access_logs_merge_neighbours_and_stay_bounded() {
        let mut log = AccessLog::default();
        log.write(0, 4);
        log.write(4, 8);
        log.write(2, 6);
        assert_eq!(log.writes, [(0, 8)]);
        // Scattered accesses over 1000 distinct words, a hundred times over: compaction keeps
        // the list near the number of distinct ranges, not the number of accesses.
        for round in 0..100u64 {
            for i in 0..1000u64 {
                let w = (i * 7919 + round) % 1000;
                log.read(1000 + w * 16, 1000 + w * 16 + 4);
            }
        }
        assert!(
            log.reads.len() <= 2 * 1000 + COMPACT_FROM,
            "{}",
            log.reads.len()
        );
        log.normalize();
        assert_eq!(log.reads.len(), 1000);
        assert_eq!(log.reads[0], (1000, 1004));
    }

    #[test]
    fn allocations_are_aligned_and_separated() {
        let mut g = Global::new();
        let a = g.alloc("a", vec![1; 10], false);
        let b = g.alloc("b", vec![2; 300], false);
        assert_eq!(a % 256, 0);
        assert_eq!(b % 256, 0);
        assert!(b >= a + 10 + GAP);
        assert_eq!(g.read(a + 9, 1).unwrap(), &[1]);
        let e = g.read(a + 8, 4).unwrap_err();
        assert!(
            e.message.contains("`a`+8 runs past its end"),
            "{}",
            e.message
        );
        assert!(g.read(b - 1, 1).is_err());
        assert_eq!(g.describe(b + 5), "b+0x5");
    }

    #[test]
    fn generic_windows() {
        assert_eq!(classify(SHARED_WINDOW + 16), Generic::Shared(16));
        assert_eq!(classify(LOCAL_WINDOW), Generic::Local(0));
        assert_eq!(classify(GLOBAL_BASE), Generic::Global(GLOBAL_BASE));
    }
}
