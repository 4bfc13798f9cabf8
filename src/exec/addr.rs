//! Addresses and the memory an instruction reaches (PTX ISA 9.0 sections 5.1 "State Spaces",
//! 6.4 "Addresses as Operands", 9.7.9.x the generic-address rules of `ld`/`st`/`cvta`): an
//! address operand's value, the state space and CTA it lands in ([`Target`]), alignment and
//! bounds checks with their faults, reads and writes through a target, the shared-memory
//! location of an mbarrier or an asynchronous copy, and the per-lane address ranges the checker
//! is shown ([`Ranges`]). Shared by every family that touches memory; above `ctx.rs`, below
//! the families.

use super::ctx::Ctx;
use super::fault::FaultKind;
use super::fault::{fault, Res};
use super::lanes::WARP;
use crate::ir::{AddrBase, Operand, Space, Type};
use crate::mem::{self, Generic, MemFault, PARAM_WINDOW};

/// Where one access lands.
#[derive(Debug, Clone, Copy)]
pub(crate) enum Target {
    Global(u64),
    /// The shared memory of the cluster's CTA `rank`, at an offset.
    Shared(u32, u64),
    Local(u64),
    KernelParam(u64),
    FrameParam(u64),
}

/// The address an operand names for `lane`, in the instruction's state space.
pub(crate) fn address(cx: &Ctx<'_, '_>, k: usize, lane: usize) -> u64 {
    match cx.ops.get(k) {
        Some(Operand::Addr(base, off)) => {
            let b = match *base {
                AddrBase::None => 0,
                AddrBase::Reg(r) => cx.reg(r, lane),
                AddrBase::Sym(s) => cx.sym_addr(s, lane),
            };
            b.wrapping_add(*off as u64)
        }
        Some(o) => cx.value(o, lane, Type::U64),
        None => 0,
    }
}

pub(crate) fn target(cx: &Ctx<'_, '_>, space: Option<Space>, addr: u64) -> Target {
    match space {
        Some(Space::Global | Space::Const) => Target::Global(addr),
        Some(Space::Shared) => Target::Shared(cx.rank, addr & 0xffff_ffff),
        Some(Space::SharedCluster) => {
            let (r, o) = cx.cluster_target(addr & 0xffff_ffff);
            Target::Shared(r, o)
        }
        Some(Space::Local) => Target::Local(addr),
        Some(Space::Param | Space::ParamEntry | Space::ParamFunc) => {
            if addr >= PARAM_WINDOW {
                Target::KernelParam(addr - PARAM_WINDOW)
            } else {
                Target::FrameParam(addr)
            }
        }
        _ => match mem::classify(addr) {
            Generic::Global(a) => Target::Global(a),
            Generic::Shared(o) => {
                let (r, o) = cx.cluster_target(o);
                Target::Shared(r, o)
            }
            Generic::Local(o) => Target::Local(o),
            Generic::Param(o) => {
                let _ = cx;
                Target::KernelParam(o)
            }
        },
    }
}

pub(crate) fn describe(t: Target) -> String {
    match t {
        Target::Global(a) => format!("global {a:#x}"),
        Target::Shared(r, o) => format!("shared+{o:#x} of CTA rank {r}"),
        Target::Local(o) => format!("local+{o:#x}"),
        Target::KernelParam(o) | Target::FrameParam(o) => format!("param+{o:#x}"),
    }
}

pub(crate) fn mem_fault(e: MemFault, thread: usize) -> Box<super::fault::Fault> {
    let mut f = fault(FaultKind::Memory, e.message);
    f.linear_thread = Some(thread as u32);
    f
}

/// A CTA rank for a message; [`Ctx::to_unit`]'s out-of-range index is no rank.
pub(crate) fn rank_text(r: u32) -> String {
    if r == u32::MAX {
        "a CTA outside the cluster".into()
    } else {
        format!("CTA rank {r}")
    }
}

pub(crate) fn no_cta(cx: &Ctx<'_, '_>, r: u32) -> MemFault {
    MemFault {
        message: format!(
            "shared::cluster access to {}, but the cluster has {} CTAs",
            rank_text(r),
            cx.cluster_ctas()
        ),
    }
}

pub(crate) fn read(
    cx: &Ctx<'_, '_>,
    t: Target,
    lane: usize,
    out: &mut [u8],
) -> Result<(), MemFault> {
    let n = out.len();
    if let Target::Local(o) = t {
        return cx.local[lane].read(o, out);
    }
    let src: &[u8] = match t {
        Target::Global(a) => cx.global.read(a, n)?,
        Target::Shared(r, o) => match cx.smem.get(r as usize) {
            Some(s) => mem::slice(&s.bytes, "shared", o, n)?,
            None => return Err(no_cta(cx, r)),
        },
        Target::Local(_) => unreachable!("read above"),
        Target::KernelParam(o) => mem::slice(cx.kparams, "kernel parameter", o, n)?,
        Target::FrameParam(o) => {
            let size = cx.frame.param_size;
            let region = &cx.frame.params[lane * size..(lane + 1) * size];
            mem::slice(region, "parameter", o, n)?
        }
    };
    out.copy_from_slice(src);
    Ok(())
}

pub(crate) fn write(
    cx: &mut Ctx<'_, '_>,
    t: Target,
    lane: usize,
    data: &[u8],
) -> Result<(), MemFault> {
    let n = data.len();
    if let Target::Local(o) = t {
        let before = cx.local[lane].made();
        cx.local[lane].write(o, data)?;
        let made = cx.local[lane].made() - before;
        if made > 0 {
            // Going over stops the run at its next look at the meter.
            cx.meter
                .charge((made * crate::mem::local::PAGE) as u64, || {
                    "local memory".to_string()
                });
        }
        return Ok(());
    }
    let dst: &mut [u8] = match t {
        Target::Global(a) => cx.global.write(a, n)?,
        Target::Shared(r, o) => {
            if cx.smem.get(r as usize).is_none() {
                return Err(no_cta(cx, r));
            }
            mem::slice_mut(&mut cx.smem[r as usize].bytes, "shared", o, n)?
        }
        Target::Local(_) => unreachable!("written above"),
        Target::KernelParam(_) => {
            return Err(MemFault {
                message: "store to the read-only kernel parameter space".into(),
            })
        }
        Target::FrameParam(o) => {
            let size = cx.frame.param_size;
            let region = &mut cx.frame.params[lane * size..(lane + 1) * size];
            mem::slice_mut(region, "parameter", o, n)?
        }
    };
    dst.copy_from_slice(data);
    Ok(())
}

pub(crate) fn thread_of(cx: &Ctx<'_, '_>, lane: usize) -> usize {
    cx.warp_index as usize * WARP + lane
}

pub(crate) fn check_align(
    cx: &Ctx<'_, '_>,
    addr: u64,
    size: u64,
    lane: usize,
    t: Target,
) -> Res<()> {
    check_peer_alive(cx, t, lane)?;
    if !addr.is_multiple_of(size) {
        let mut f = fault(
            FaultKind::Misaligned,
            format!(
                "misaligned {size}-byte access at {} (address {addr:#x})",
                describe_with(cx, t)
            ),
        );
        f.linear_thread = Some(thread_of(cx, lane) as u32);
        return Err(f);
    }
    Ok(())
}

/// A CTA's shared memory exists only while the CTA runs (PTX ISA 9.0 5.1.5.1 "Shared State
/// Space": distributed shared memory is accessible while the owning CTA is active); the H100
/// fails the launch when a peer accesses it after the CTA exited. Faults with the contract's
/// `dsmem-access-after-exit` for an access of `t` in an exited peer CTA.
pub(crate) fn check_peer_alive(cx: &Ctx<'_, '_>, t: Target, lane: usize) -> Res<()> {
    let Target::Shared(r, o) = t else {
        return Ok(());
    };
    if r == cx.rank || !cx.smem.get(r as usize).is_some_and(|s| s.exited) {
        return Ok(());
    }
    let mut f = fault(
        FaultKind::Hazard(crate::check::HazardKind::DsmemAccessAfterExit),
        format!(
            "access to shared+{o:#x} of CTA rank {r}, which has exited: its shared memory no longer exists (the H100 fails the launch); keep every CTA of the cluster running until its peers are done with its shared memory (barrier.cluster.arrive + wait, cluster.sync(), before it exits)"
        ),
    );
    f.linear_thread = Some(thread_of(cx, lane) as u32);
    Err(f)
}

/// A fault for an access by the current instruction at `addr`, which resolved to `t`, a space
/// the instruction does not operate on (`allowed` names those it does). Atomics take global or
/// shared memory only (PTX ISA 9.0 `atom`/`red`: a generic address must fall within .global or
/// .shared), `ldmatrix`/`stmatrix` shared only; anything else is undefined behaviour, which the
/// H100 reports as an illegal address.
pub(crate) fn wrong_space(
    cx: &Ctx<'_, '_>,
    addr: u64,
    t: Target,
    lane: usize,
    allowed: &str,
) -> Box<super::fault::Fault> {
    let space = match t {
        Target::Global(_) => "global",
        Target::Shared(..) => "shared",
        Target::Local(_) => "local",
        Target::KernelParam(_) | Target::FrameParam(_) => "parameter",
    };
    let name = crate::ir::print_opcode(cx.func, cx.pc);
    let mut f = fault(
        FaultKind::Memory,
        format!(
            "`{name}` at address {addr:#x}, which is {space} memory ({}): it operates on {allowed} only",
            describe(t)
        ),
    );
    f.linear_thread = Some(thread_of(cx, lane) as u32);
    f
}

pub(crate) fn describe_with(cx: &Ctx<'_, '_>, t: Target) -> String {
    match t {
        Target::Global(a) => cx.global.describe(a),
        other => describe(other),
    }
}

/// The element registers of the data operand `k` (a register or a `{...}` vector).
pub(crate) fn elems(cx: &Ctx<'_, '_>, k: usize) -> Vec<Operand> {
    match cx.ops.get(k) {
        Some(Operand::Vector(r)) => cx.func.sub_ops(*r).to_vec(),
        Some(o) => vec![*o],
        None => Vec::new(),
    }
}

/// Tells the happens-before checker about an access of shared or global memory; `atomic` for
/// atomics and for loads and stores with a memory-order semantic (`.volatile` counts as
/// `.relaxed`), which do not race with each other. Stores over a live mbarrier are misuse.
pub(crate) fn checked(
    cx: &mut Ctx<'_, '_>,
    tg: Target,
    lane: usize,
    len: usize,
    (write, read): (bool, bool),
    atomic: bool,
    lanes: &[(u64, u64, u32)],
) {
    use super::hazard::Region;
    use crate::ir::mods::Sem;
    let region = match tg {
        Target::Global(a) => Region::Global(a),
        Target::Shared(r, o) => Region::Shared(r, o),
        _ => return,
    };
    let site = cx.site(lane);
    let sem = match cx.ins.mods.sem {
        Some(Sem::Volatile | Sem::Mmio | Sem::Weak) => None,
        s => s,
    };
    let scope = crate::check::scopes::reach(crate::check::scopes::of(&cx.ins), cx.cluster_ctas());
    let Some(hb) = cx.hb.as_mut() else { return };
    let access = super::hazard::Access {
        region,
        len,
        write,
        strong: atomic.then_some(scope),
        lanes,
    };
    hb.access(&*cx.engine, &*cx.global, site, access);
    if atomic {
        let mask = match lanes {
            [] => 1 << lane,
            ls => ls.iter().fold(0u32, |m, l| m | 1 << (l.2 & 31)),
        };
        hb.atomic_sync(site, region, (write, read), (sem, scope), mask);
    }
    if let (true, Target::Shared(r, o)) = (write, tg) {
        let live = cx.smem.get(r as usize).and_then(|s| {
            s.mbars
                .range(o.saturating_sub(7) as u32..(o + len as u64) as u32)
                .next()
                .map(|(k, _)| *k)
        });
        if let Some(k) = live {
            let what = if atomic {
                "an atomic"
            } else {
                "an ordinary store"
            };
            hb.report(
                crate::check::HazardKind::MbarrierMisuse,
                site,
                format!("{what} writes shared+{o:#x}, which holds the live mbarrier at shared+{k:#x}"),
                "touch an mbarrier object only through mbarrier instructions; mbarrier.inval it before reusing its memory",
                super::hazard::describe(&*cx.global, region, len, r),
                None,
            );
        }
    }
}

/// The shared and global accesses of one warp instruction, merged into ranges: the lanes of a
/// warp are one agent for the checker, so a coalesced access is checked as one range.
/// `N` is the most pieces one instruction accesses: one per lane for loads and stores, more for
/// the matrix loads (`ldmatrix .x4 .trans`: 4 matrices x 2 halves per lane).
pub(crate) struct Ranges<const N: usize = WARP> {
    /// Each piece's (start, end, lane), in the order added until `check` sorts them.
    pieces: [(u64, u64, u32); N],
    /// Each piece's region: 0 global, 1 + rank shared.
    regions: [u32; N],
    n: usize,
}

impl<const N: usize> Ranges<N> {
    pub(crate) fn new() -> Self {
        Ranges {
            pieces: [(0, 0, 0); N],
            regions: [0; N],
            n: 0,
        }
    }

    pub(crate) fn add(&mut self, tg: Target, len: usize, lane: usize) {
        let (region, start) = match tg {
            Target::Global(a) => (0, a),
            Target::Shared(rank, o) => (rank + 1, o),
            _ => return,
        };
        debug_assert!(self.n < N, "more accessed pieces than Ranges holds");
        if self.n < N {
            self.pieces[self.n] = (start, start + len as u64, lane as u32);
            self.regions[self.n] = region;
            self.n += 1;
        }
    }

    /// Sorts the pieces by (region, start, end, lane), then checks each region's
    /// ([`check_sorted`]).
    pub(crate) fn check(mut self, cx: &mut Ctx<'_, '_>, access: (bool, bool), atomic: bool) {
        let n = self.n;
        let Some(&region) = self.regions.first().filter(|_| n > 0) else {
            return;
        };
        if self.regions[..n].iter().all(|&r| r == region) {
            let rs = &mut self.pieces[..n];
            // Coalesced and broadcast accesses come in order already.
            if !rs.is_sorted() {
                rs.sort_unstable();
            }
        } else {
            self.sort_mixed();
        }
        let (rs, regions) = (&self.pieces[..n], &self.regions[..n]);
        let mut i = 0;
        while i < n {
            let j = i + regions[i..]
                .iter()
                .take_while(|&&r| r == regions[i])
                .count();
            check_sorted(cx, regions[i], &rs[i..j], access, atomic);
            i = j;
        }
    }

    /// Sorts pieces of several regions by (region, start, end, lane).
    fn sort_mixed(&mut self) {
        let n = self.n;
        let mut all: Vec<(u32, u64, u64, u32)> = (self.regions[..n].iter())
            .zip(&self.pieces[..n])
            .map(|(&r, p)| (r, p.0, p.1, p.2))
            .collect();
        all.sort_unstable();
        for (k, (r, s, e, l)) in all.into_iter().enumerate() {
            self.regions[k] = r;
            self.pieces[k] = (s, e, l);
        }
    }
}

/// Checks one warp instruction's pieces `(start, end, lane)` of one region (0 global, 1 + rank
/// shared), sorted: overlapping or adjacent pieces merge into one range, checked once, as made
/// by its lowest lane.
pub(crate) fn check_sorted(
    cx: &mut Ctx<'_, '_>,
    region: u32,
    rs: &[(u64, u64, u32)],
    access: (bool, bool),
    atomic: bool,
) {
    let mut i = 0;
    while i < rs.len() {
        let (start, mut end, mut lane) = rs[i];
        let mut j = i + 1;
        while j < rs.len() && rs[j].0 <= end {
            end = end.max(rs[j].1);
            lane = lane.min(rs[j].2);
            j += 1;
        }
        let tg = match region {
            0 => Target::Global(start),
            r => Target::Shared(r - 1, start),
        };
        let span = (end - start) as usize;
        checked(cx, tg, lane as usize, span, access, atomic, &rs[i..j]);
        i = j;
    }
}

/// The pieces of a warp access of `w` bytes per lane at offsets `at` from `base` (the lanes of
/// `active`), sorted by (start, lane) as [`check_sorted`] takes them, one per start (lanes that
/// access the same bytes are one piece, the lowest lane's: the checker takes a word as made by
/// the first piece that covers it, and reports name that lane), into `out`; returns how many.
/// Each offset is below 2^58 (an offset into one allocation or a CTA's shared memory).
/// Coalesced and broadcast accesses are in order already, a warp whose two halves access
/// the same bytes (a row read by each half) is its first half, and one whose halves each
/// access one address is a piece per half without a loop; anything else is sorted.
pub(crate) fn sorted_pieces(
    at: &[usize; WARP],
    base: u64,
    w: u64,
    active: u32,
    out: &mut [(u64, u64, u32); WARP],
) -> usize {
    let mut keys = [0u64; WARP];
    let mut n = 0;
    if active == u32::MAX {
        // A whole warp: every lane, without a branch per lane (the loops vectorise).
        for (lane, (k, &a)) in keys.iter_mut().zip(at).enumerate() {
            *k = (a as u64) << 5 | lane as u64;
        }
        let (lo, hi) = keys.split_at(WARP / 2);
        let halves = lo
            .iter()
            .zip(hi)
            .fold(true, |ok, (a, b)| ok & (a >> 5 == b >> 5));
        // Each half at one address (a warp of two rows reading one element per row, as a
        // tiled GEMM's `As[ty][k]`): a piece per half, its first lane's, in address order. The
        // ends are compared first, so a coalesced half is told at once.
        let one = |h: &[u64]| {
            h[0] >> 5 == h[h.len() - 1] >> 5
                && h.iter().fold(true, |ok, k| ok & (k >> 5 == h[0] >> 5))
        };
        if one(lo) && (halves || one(hi)) {
            let piece = |k: u64| (base + (k >> 5), base + (k >> 5) + w, (k & 31) as u32);
            let (a, b) = (piece(lo[0]), piece(hi[0]));
            return match (halves, a.0 < b.0) {
                (true, _) => {
                    out[0] = a;
                    1
                }
                (false, true) => {
                    (out[0], out[1]) = (a, b);
                    2
                }
                (false, false) => {
                    (out[0], out[1]) = (b, a);
                    2
                }
            };
        }
        n = if halves { WARP / 2 } else { WARP };
    } else {
        for lane in super::lanes::lanes(active) {
            keys[n] = (at[lane] as u64) << 5 | lane as u64;
            n += 1;
        }
    }
    let keys = &mut keys[..n];
    // (Pairs zipped, not `windows`: the comparisons vectorise.)
    let (earlier, later) = (&keys[..n.saturating_sub(1)], &keys[1..]);
    if !earlier
        .iter()
        .zip(later)
        .fold(true, |ok, (a, b)| ok & (a <= b))
    {
        keys.sort_unstable();
    }
    let mut made = 0;
    let mut last = u64::MAX;
    for &k in keys.iter() {
        if k >> 5 != last {
            last = k >> 5;
            let start = base + last;
            out[made] = (start, start + w, (k & 31) as u32);
            made += 1;
        }
    }
    made
}

/// A fault of kind `kind` at lane `lane` of the executing group, naming its thread.
pub(crate) fn lane_fault(
    cx: &Ctx<'_, '_>,
    lane: usize,
    kind: FaultKind,
    msg: String,
) -> Box<super::fault::Fault> {
    let mut f = fault(kind, msg);
    f.linear_thread = Some(thread_of(cx, lane) as u32);
    f
}

/// A shared-memory address of `space` (`.shared::cta`/`.shared::cluster`) as (rank, offset),
/// checked against the CTA's shared memory for `len` bytes.
pub(crate) fn shared_loc(
    cx: &Ctx<'_, '_>,
    space: Option<Space>,
    addr: u64,
    len: u64,
    lane: usize,
) -> Res<(u32, u64)> {
    let t = match space {
        Some(Space::Shared | Space::SharedCluster) => target(cx, space, addr),
        _ => match mem::classify(addr) {
            Generic::Shared(_) => target(cx, None, addr),
            _ => {
                return Err(lane_fault(
                    cx,
                    lane,
                    FaultKind::Memory,
                    format!("{addr:#x} is not a shared-memory address"),
                ))
            }
        },
    };
    check_peer_alive(cx, t, lane)?;
    let Target::Shared(r, o) = t else {
        unreachable!("shared targets only")
    };
    let size = cx.smem.get(r as usize).map(|s| s.bytes.len() as u64);
    match size {
        Some(n) if o.checked_add(len).is_some_and(|e| e <= n) => Ok((r, o)),
        Some(n) => Err(lane_fault(
            cx,
            lane,
            FaultKind::Memory,
            format!("{len}-byte asynchronous access at shared+{o:#x} of CTA rank {} is outside its {n} bytes", cx.to_real(r)),
        )),
        None => Err(lane_fault(
            cx,
            lane,
            FaultKind::Memory,
            format!(
                "{} is not in the cluster ({} CTAs)",
                rank_text(r),
                cx.cluster_ctas()
            ),
        )),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The general path of [`sorted_pieces`] (keys, a sort when needed, one piece a start).
    fn sorted_generally(
        at: &[usize; WARP],
        base: u64,
        w: u64,
        active: u32,
    ) -> Vec<(u64, u64, u32)> {
        let mut keys: Vec<u64> = (0..WARP)
            .filter(|l| active >> l & 1 != 0)
            .map(|l| (at[l] as u64) << 5 | l as u64)
            .collect();
        keys.sort_unstable();
        keys.dedup_by_key(|k| *k >> 5);
        keys.iter()
            .map(|k| (base + (k >> 5), base + (k >> 5) + w, (k & 31) as u32))
            .collect()
    }

    #[test]
    fn pieces_are_sorted_lanes_one_per_start() {
        let mut patterns: Vec<[usize; WARP]> = Vec::new();
        for w in [1usize, 2, 4, 8, 16] {
            patterns.push(std::array::from_fn(|l| 64 + l * w));
            patterns.push(std::array::from_fn(|l| 64 + (l % 16) * w));
            patterns.push(std::array::from_fn(|l| 64 + (31 - l) * w));
            patterns.push(std::array::from_fn(|l| 64 + (l ^ 1) * w));
            // A row with one lane off, and one half a row, the other another.
            patterns.push(std::array::from_fn(|l| {
                64 + l * w + usize::from(l == 7) * w
            }));
            patterns.push(std::array::from_fn(|l| 64 + (l % 16) * w + (l / 16) * 4096));
        }
        patterns.push([100; WARP]);
        // Each half one address, the upper half's above the lower's or below it.
        patterns.push(std::array::from_fn(|l| 100 + (l / 16) * 8));
        patterns.push(std::array::from_fn(|l| 108 - (l / 16) * 8));
        patterns.push(std::array::from_fn(|l| 100 + usize::from(l == 31) * 4));
        // SplitMix64-style scrambles: most distinct, some repeated.
        let mut x = 0x9e37_79b9_7f4a_7c15u64;
        for _ in 0..200 {
            patterns.push(std::array::from_fn(|_| {
                x = x.wrapping_add(0x9e37_79b9_7f4a_7c15);
                ((x ^ (x >> 29)) % 48) as usize * 4
            }));
        }
        for at in &patterns {
            for w in [1u64, 4, 8, 16] {
                for active in [u32::MAX, 0xffff, 0x8000_0001] {
                    let mut out = [(0, 0, 0); WARP];
                    let n = sorted_pieces(at, 1 << 20, w, active, &mut out);
                    assert_eq!(
                        out[..n],
                        sorted_generally(at, 1 << 20, w, active)[..],
                        "{at:?} w {w}"
                    );
                }
            }
        }
    }
}
