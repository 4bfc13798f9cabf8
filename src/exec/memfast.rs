//! Loads and stores of whole warps (PTX ISA 9.0 section 9.7.9.8-9 `ld`/`st`): the fast forms
//! `fast.rs` gives 4- and 8-byte `ld`/`st` of `.shared` and `.global` with a plain address,
//! scalar or `.v2`/`.v4` (each lane's vector one access of its whole size, aligned to it).
//! All active lanes' addresses are computed first; if every one is aligned and inside the CTA's
//! shared memory (or inside one global allocation, writable for stores), the lanes' values move
//! straight between register rows and memory, in lane order as the general path moves them. Any
//! other case (a fault, a second allocation, a read-only buffer) returns `false` and the general
//! handler (`memops.rs`) runs the instruction, so faults and their messages are its own. The
//! checker sees the same merged ranges the general path gives it, sorted without a sort where
//! the lanes come in order (`shown::sorted_pieces`).

use super::fast::{row, Fast, Src};
use super::fault::Res;
use super::lanes::{lanes, WARP};
use super::machine::{Machine, WarpRef};
use super::shown::{check_sorted, sorted_pieces, Watch};
use super::warp::Cluster;
use crate::mem::Global;

/// The shape of a fast access: global (else shared), bytes per element `ew`, bytes per lane
/// `w` (`n` elements), the address register and offset, and whether it stores.
#[derive(Clone, Copy)]
struct Shape {
    global: bool,
    ew: usize,
    w: u64,
    base: Option<u32>,
    off: u64,
    store: bool,
}

impl Shape {
    fn of(form: Fast) -> Option<Shape> {
        let (global, w, n, base, off, store) = match form {
            Fast::Ld {
                global,
                w,
                n,
                base,
                off,
                ..
            } => (global, w, n, base, off, false),
            Fast::St {
                global,
                w,
                base,
                off,
                ..
            } => (global, w, 1, base, off, true),
            Fast::StV {
                global,
                w,
                n,
                base,
                off,
                ..
            } => (global, w, n, base, off, true),
            _ => return None,
        };
        // Each lane accesses `w` bytes per element, `n` elements: 1, 2, 4, 8 or 16 bytes in
        // all, as `translate.rs` builds them (anything else goes the general way).
        let bytes = u64::from(w) * u64::from(n);
        if !matches!(w, 1 | 2 | 4 | 8) || !bytes.is_power_of_two() {
            return None;
        }
        Some(Shape {
            global,
            ew: usize::from(w),
            w: bytes,
            base,
            off,
            store,
        })
    }
}

/// Runs a fast load or store for the lanes of `w`; `Ok(false)` when the general path must run
/// it instead. Only the checker needs the instruction's whole context (`Ctx`): the access
/// itself reads the warp's registers and the memory it reaches.
pub(crate) fn access<'m>(
    mc: &mut Machine<'m>,
    cl: &mut Cluster,
    w: WarpRef<'m>,
    form: Fast,
) -> Res<bool> {
    let Cluster { ctas, smem, .. } = cl;
    let cta = &mut ctas[w.ci];
    let rank = cta.rank as usize;
    let warp = &mut cta.warps[w.wi];
    let regs = &mut warp.frames[warp.groups[w.gi].frame as usize].regs;
    let mem = Reach {
        global: &mut mc.global,
        shared: &mut smem[rank].bytes,
    };
    if mc.hb.is_none() {
        return Ok(moved::<false>(mem, regs, form, w.active).is_some());
    }
    let Some((s, at, alloc, kept)) = moved::<true>(mem, regs, form, w.active) else {
        return Ok(false);
    };
    let at = Landed {
        at: &at,
        alloc,
        rank: rank as u32,
    };
    check(mc, cl, w, s, at, kept);
    Ok(true)
}

/// The memory a warp's fast access can reach: global memory, and its CTA's shared memory.
pub(crate) struct Reach<'a> {
    pub global: &'a mut Global,
    pub shared: &'a mut [u8],
}

/// Runs a fast load or store for the lanes of `active` that no checker watches (a straight run
/// of `step.rs` without one): `false` when the general path must run it instead.
#[inline]
pub(crate) fn unwatched(mem: Reach<'_>, regs: &mut [u64], form: Fast, active: u32) -> bool {
    moved::<false>(mem, regs, form, active).is_some()
}

/// Lands the access of `form` for the lanes of `active` and moves their values (logging the
/// global ranges while clusters run on several threads): its shape, each lane's offset, the
/// global allocation (none for shared memory) and, for the checker (`WATCHED`), whether a
/// store left every byte as it was (a kept write: `mem::stamp`); `None`, having changed
/// nothing, when the general path must run it.
#[inline(always)]
fn moved<const WATCHED: bool>(
    mem: Reach<'_>,
    regs: &mut [u64],
    form: Fast,
    active: u32,
) -> Option<(Shape, [usize; WARP], Option<usize>, bool)> {
    let s = Shape::of(form)?;
    let mut addr = match s.base {
        Some(r) => row(regs, Src::Reg(r)),
        None => [0; WARP],
    };
    for a in &mut addr {
        *a = a.wrapping_add(s.off);
    }
    let mut at = [0usize; WARP];
    let alloc = landing(mem.global, mem.shared.len(), s, &addr, active, &mut at)?;
    if let (true, Some(log)) = (s.global, &mem.global.log) {
        let mut log = log.lock().unwrap_or_else(|e| e.into_inner());
        for lane in lanes(active) {
            if s.store {
                log.write(addr[lane], addr[lane] + s.w);
            } else {
                log.read(addr[lane], addr[lane] + s.w);
            }
        }
    }
    let bytes: &mut [u8] = match alloc {
        Some(i) => &mut mem.global.allocs[i].data,
        None => mem.shared,
    };
    let kept = WATCHED && s.store && held(bytes, regs, form, &at, s.ew, active);
    move_values(bytes, regs, form, &at, s.ew, active);
    Some((s, at, alloc, kept))
}

/// Whether every lane of `active` of the store `form` stores the bytes `mem` holds at `at`
/// (so that storing them in lane order changes nothing). Only checked runs ask.
fn held(mem: &[u8], regs: &[u64], form: Fast, at: &[usize; WARP], ew: usize, active: u32) -> bool {
    match form {
        Fast::St { v, .. } => {
            let vals = row(regs, v);
            all_held(mem, at, ew, active, 1, |lane, _| vals[lane])
        }
        Fast::StV { v, n, .. } => all_held(mem, at, ew, active, usize::from(n), |lane, k| {
            regs[v[k] as usize * WARP + lane]
        }),
        _ => false,
    }
}

/// Whether, for each lane of `active`, the `n` elements of `ew` bytes `elem(lane, k)` equal the
/// bytes of `mem` at `at[lane] + k * ew`.
#[inline(always)]
fn all_held(
    mem: &[u8],
    at: &[usize; WARP],
    ew: usize,
    active: u32,
    n: usize,
    elem: impl Fn(usize, usize) -> u64,
) -> bool {
    lanes(active).all(|lane| {
        (0..n).all(|k| {
            let o = at[lane] + k * ew;
            mem[o..o + ew] == elem(lane, k).to_le_bytes()[..ew]
        })
    })
}

/// Where the lanes of a fast access landed: each lane's offset into the global allocation
/// `alloc`, or into the shared memory of CTA rank `rank` when none.
struct Landed<'a> {
    at: &'a [usize; WARP],
    alloc: Option<usize>,
    rank: u32,
}

/// Shows the checker a fast access that landed at `l`: its pieces, sorted, of one region. Kept
/// out of line, so the unchecked path stays as small as it was.
#[inline(never)]
fn check<'m>(
    mc: &mut Machine<'m>,
    cl: &mut Cluster,
    w: WarpRef<'m>,
    s: Shape,
    l: Landed<'_>,
    kept: bool,
) {
    let (base, region) = match l.alloc {
        Some(i) => (mc.global.allocs[i].base, 0),
        None => (0, l.rank + 1),
    };
    let mut pieces = [(0u64, 0u64, 0u32); WARP];
    let n = sorted_pieces(l.at, base, s.w, w.active, &mut pieces);
    let access = (s.store, !s.store);
    let mut watch = Watch::of(mc, cl, w);
    watch.kept = kept;
    check_sorted(&mut watch, region, &pieces[..n], access, false);
}

/// Where the lanes of `active` land: the global allocation (none for the CTA's shared memory,
/// `shared_len` bytes) and each lane's byte offset into it (`at`), after checking every lane;
/// `None` when one is misaligned, out of bounds, in another allocation or stores to a read-only
/// one.
fn landing(
    global: &Global,
    shared_len: usize,
    s: Shape,
    addr: &[u64; WARP],
    active: u32,
    at: &mut [usize; WARP],
) -> Option<Option<usize>> {
    let w = s.w;
    let (alloc, base, limit) = if s.global {
        let first = addr[active.trailing_zeros() as usize];
        let (i, _) = global.locate(first, w).ok()?;
        let a = &global.allocs[i];
        if s.store && a.readonly {
            return None;
        }
        (Some(i), a.base, a.data.len() as u64)
    } else {
        (None, 0, shared_len as u64)
    };
    // Shared addresses are the low 32 bits (a shared window address).
    let keep = if s.global { u64::MAX } else { 0xffff_ffff };
    let outside = offsets(addr, keep, (base, limit), w, at);
    (outside & active == 0).then_some(alloc)
}

/// Each lane's offset `at` into the memory at `base..base + limit` for an access of `w` bytes at
/// `addr & keep`, and the lanes whose access is misaligned or does not fit. Every lane is
/// computed, without a branch per lane, so the loop vectorises; it is built also for x86-64-v3
/// (AVX2 compares 64-bit lanes), chosen at run time as `fast::exec` is. Accesses are 4, 8 or 16
/// bytes (`Shape::of`): alignment is a mask, not a division.
#[multiversion::multiversion(targets("x86_64+avx+avx2+bmi1+bmi2+fma+lzcnt+popcnt+movbe"))]
fn offsets(
    addr: &[u64; WARP],
    keep: u64,
    (base, limit): (u64, u64),
    w: u64,
    at: &mut [usize; WARP],
) -> u32 {
    // An aligned access fits when it starts at most `w` bytes before the end: one unsigned
    // compare per lane (none fits a memory shorter than `w`).
    let last = limit.checked_sub(w);
    let last_start = last.unwrap_or(0);
    let mut outside = 0u32;
    for (lane, (at, &a)) in at.iter_mut().zip(addr).enumerate() {
        let a = a & keep;
        let o = a.wrapping_sub(base);
        // `&`, not `&&`: no branch per lane.
        let fits = (a & (w - 1) == 0) & (o <= last_start);
        outside |= u32::from(!fits) << lane;
        *at = o as usize;
    }
    match last {
        Some(_) => outside,
        None => u32::MAX,
    }
}

/// Runs `f` for each lane of `active`, lowest first: a plain count when every lane is active
/// (the common case, which the compiler unrolls), else lane by lane.
#[inline(always)]
fn each_lane(active: u32, f: impl FnMut(usize)) {
    if active == u32::MAX {
        (0..WARP).for_each(f);
    } else {
        lanes(active).for_each(f);
    }
}

/// Moves the lanes' values between their register rows and `mem` at `at`, in lane order.
fn move_values(
    mem: &mut [u8],
    regs: &mut [u64],
    form: Fast,
    at: &[usize; WARP],
    ew: usize,
    active: u32,
) {
    // Each element size has its own loop, with copies of a fixed size: a copy of a variable
    // length is a call per lane, and an 8-byte load of bytes just stored one by one stalls
    // (store forwarding fails): `perf` put the two at a fifth of imma_gemm's time.
    match form {
        Fast::St { v, w, .. } => {
            let vals = row(regs, v);
            store_by_size(usize::from(w), mem, |lane, _| vals[lane], 1, at, active);
        }
        Fast::StV { v, n, .. } => {
            let (v, n) = (&v[..usize::from(n)], usize::from(n));
            let elem = |lane: usize, k: usize| regs[v[k] as usize * WARP + lane];
            store_by_size(ew, mem, elem, n, at, active);
        }
        Fast::Ld { d, n, ext, .. } => {
            // Element by element: a register named twice gets the later element, as in lane
            // order. Elements of 4 or 8 bytes fill registers of their width; one of 1 or 2
            // bytes is extended as `ext` says (`Shape::of`).
            for (k, &r) in d[..usize::from(n)].iter().enumerate() {
                let dst = &mut regs[r as usize * WARP..][..WARP];
                let k = k * ew;
                match ew {
                    4 => each_lane(active, |lane| {
                        dst[lane] = u64::from(u32::from_le_bytes(bytes(mem, at[lane] + k)));
                    }),
                    8 => each_lane(active, |lane| {
                        dst[lane] = u64::from_le_bytes(bytes(mem, at[lane] + k));
                    }),
                    2 => each_lane(active, |lane| {
                        let raw = u16::from_le_bytes(bytes(mem, at[lane] + k));
                        dst[lane] = ext.fill(u64::from(raw), 2);
                    }),
                    _ => each_lane(active, |lane| {
                        dst[lane] = ext.fill(u64::from(mem[at[lane] + k]), 1);
                    }),
                }
            }
        }
        _ => {}
    }
}

/// [`store_lanes`] with elements of `size` bytes (1, 2, 4 or 8), each size its own loop.
#[inline(always)]
fn store_by_size(
    size: usize,
    mem: &mut [u8],
    elem: impl Fn(usize, usize) -> u64,
    n: usize,
    at: &[usize; WARP],
    active: u32,
) {
    match size {
        1 => store_lanes::<1>(mem, elem, n, at, active),
        2 => store_lanes::<2>(mem, elem, n, at, active),
        4 => store_lanes::<4>(mem, elem, n, at, active),
        _ => store_lanes::<8>(mem, elem, n, at, active),
    }
}

/// Stores, for each lane of `active` in lane order, `n` elements of `N` bytes (the low bytes of
/// `elem(lane, k)`) at `at[lane] + k * N`.
#[inline(always)]
fn store_lanes<const N: usize>(
    mem: &mut [u8],
    elem: impl Fn(usize, usize) -> u64,
    n: usize,
    at: &[usize; WARP],
    active: u32,
) {
    each_lane(active, |lane| {
        for k in 0..n {
            let o = at[lane] + k * N;
            let x = elem(lane, k).to_le_bytes();
            mem[o..o + N].copy_from_slice(&x[..N]);
        }
    });
}

/// The `N` bytes of `mem` at `o`.
#[inline(always)]
fn bytes<const N: usize>(mem: &[u8], o: usize) -> [u8; N] {
    let mut x = [0; N];
    x.copy_from_slice(&mem[o..o + N]);
    x
}
