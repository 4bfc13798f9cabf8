//! What the happens-before checker is shown of a warp's access of shared or global memory:
//! the instruction's [`Watch`] (where it is, its memory-order semantic and
//! scope, made once per instruction), each lane's bytes as pieces, sorted and merged into ranges
//! (one per contiguous run, made by its lowest lane: the checker sees a coalesced access as one
//! range), and each range told to the checker ([`checked`]), with stores over a live mbarrier
//! reported as misuse. PTX ISA 9.0 sections 8 (the memory consistency model: what the checker
//! orders) and 9.7.9 (the data-movement instructions whose accesses it is shown).

use super::addr::Target;
use super::ctx::Ctx;
use super::lanes::WARP;
use crate::mem;

/// What the checker needs of the warp instruction an access belongs to ([`checked`]): where it
/// is (all but the lane of its [`Site`](super::hazard::Site)), its memory-order semantic and the
/// scope it reaches, and the checker with the state it reads. Made once per instruction, from a
/// [`Ctx`] ([`Ctx::watch`]) or, on the fast path, without building one ([`Watch::of`]).
pub(crate) struct Watch<'a> {
    func: u32,
    pc: u32,
    rank: u32,
    cta: [u32; 3],
    warp: u32,
    /// `.volatile`, `.mmio` and `.weak` count as none (`.volatile` is `.relaxed`).
    sem: Option<crate::ir::mods::Sem>,
    scope: crate::check::scopes::Scope,
    hb: Option<&'a mut super::hazard::Checker>,
    /// The instruction is an ordinary store none of whose lanes changed a byte (a kept write:
    /// `mem::stamp`).
    pub(crate) kept: bool,
    engine: &'a mem::copy::Engine,
    global: &'a mem::Global,
    smem: &'a [mem::Smem],
}

impl<'a> Watch<'a> {
    /// The watch of `ins` (of function `func`, at `pc`) run by warp `warp` of the CTA `cta`
    /// at cluster rank `rank`.
    fn new(
        (func, pc): (u32, u32),
        (rank, cta, warp): (u32, [u32; 3], u32),
        ins: &crate::ir::Instr,
        cluster_ctas: u32,
        hb: Option<&'a mut super::hazard::Checker>,
        (engine, global, smem): (&'a mem::copy::Engine, &'a mem::Global, &'a [mem::Smem]),
    ) -> Self {
        use crate::ir::mods::Sem;
        let sem = match ins.mods.sem {
            Some(Sem::Volatile | Sem::Mmio | Sem::Weak) => None,
            s => s,
        };
        let scope = crate::check::scopes::of(ins);
        Watch {
            func,
            pc,
            rank,
            cta,
            warp,
            sem,
            scope: crate::check::scopes::reach(scope, cluster_ctas),
            hb,
            kept: false,
            engine,
            global,
            smem,
        }
    }

    /// The watch of the instruction of `w`, without a [`Ctx`].
    pub(crate) fn of(
        mc: &'a mut super::machine::Machine<'_>,
        cl: &'a super::warp::Cluster,
        w: super::machine::WarpRef<'_>,
    ) -> Self {
        let (ci, wi, gi) = w.at();
        let cta = &cl.ctas[ci];
        let warp = &cta.warps[wi];
        let g = &warp.groups[gi];
        let func = warp.frames[g.frame as usize].func.0;
        let cluster_ctas = mc.grid.cluster_ctas();
        Watch::new(
            (func, g.pc),
            (cta.rank, cta.id, warp.index),
            w.ins,
            cluster_ctas,
            mc.hb.as_mut(),
            (&mc.engine, &mc.global, &cl.smem),
        )
    }

    /// The site of the instruction's lane `lane`.
    fn site(&self, lane: usize) -> super::hazard::Site {
        super::hazard::Site {
            func: self.func,
            pc: self.pc,
            rank: self.rank,
            cta: self.cta,
            warp: self.warp,
            lane: lane as u32,
        }
    }
}

impl Ctx<'_, '_> {
    /// What the checker needs of this instruction ([`Watch`]).
    pub(crate) fn watch(&mut self) -> Watch<'_> {
        let cluster_ctas = self.cluster_ctas();
        Watch::new(
            (self.frame.func.0, self.pc),
            (self.rank, self.cta, self.warp_index),
            &self.ins,
            cluster_ctas,
            self.hb.as_deref_mut(),
            (&*self.engine, &*self.global, &*self.smem),
        )
    }
}

/// Tells the happens-before checker about an access of shared or global memory; `atomic` for
/// atomics and for loads and stores with a memory-order semantic (`.volatile` counts as
/// `.relaxed`), which do not race with each other. Stores over a live mbarrier are misuse.
pub(crate) fn checked(
    wt: &mut Watch<'_>,
    tg: Target,
    lane: usize,
    len: usize,
    (write, read): (bool, bool),
    atomic: bool,
    lanes: &[(u64, u64, u32)],
) {
    use super::hazard::Region;
    let region = match tg {
        Target::Global(a) => Region::Global(a),
        Target::Shared(r, o) => Region::Shared(r, o),
        _ => return,
    };
    let site = wt.site(lane);
    let (sem, scope, kept) = (wt.sem, wt.scope, wt.kept);
    let Some(hb) = wt.hb.as_deref_mut() else {
        return;
    };
    let access = super::hazard::Access {
        region,
        len,
        write,
        strong: atomic.then_some(scope),
        lanes,
        kept,
    };
    hb.access(wt.engine, wt.global, site, access);
    if atomic {
        let mask = match lanes {
            [] => 1 << lane,
            ls => ls.iter().fold(0u32, |m, l| m | 1 << (l.2 & 31)),
        };
        hb.atomic_sync(site, region, (write, read), (sem, scope), mask);
    }
    if let (true, Target::Shared(r, o)) = (write, tg) {
        let live = wt.smem.get(r as usize).and_then(|s| {
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
                super::hazard::describe(wt.global, region, len, r),
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
    pub(crate) fn check(self, cx: &mut Ctx<'_, '_>, access: (bool, bool), atomic: bool) {
        self.check_store(cx, access, atomic, false);
    }

    /// [`Ranges::check`] of an access that may be a store none of whose lanes changed a byte
    /// (`kept`).
    pub(crate) fn check_store(
        mut self,
        cx: &mut Ctx<'_, '_>,
        access: (bool, bool),
        atomic: bool,
        kept: bool,
    ) {
        let wt = &mut cx.watch();
        wt.kept = kept;
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
            check_sorted(wt, regions[i], &rs[i..j], access, atomic);
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
    wt: &mut Watch<'_>,
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
        checked(wt, tg, lane as usize, span, access, atomic, &rs[i..j]);
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
    // The piece of a key (offset << 5 | lane).
    let piece = |k: u64| (base + (k >> 5), base + (k >> 5) + w, (k & 31) as u32);
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
            out[made] = piece(k);
            made += 1;
        }
    }
    made
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
