//! Loads, stores, atomics and address conversions (PTX ISA 9.0 sections 9.7.9.8-9.9 `ld`/`st`,
//! 9.7.9.19-20 `cvta`/`isspacep`, 9.7.13.5-6 `atom`/`red`, 6.4 "Operand addressing"). Every
//! access is checked: it must fall inside one allocation (global), the CTA's shared memory, the
//! thread's local memory or a parameter buffer, and be aligned to its full size (vectors
//! included). Atomics of a warp are applied lane by lane in lane order.

use super::alu::sext;
use super::ctx::Ctx;
use super::step::{fault, lanes, mask, Res, WARP};
use super::FaultKind;
use crate::ir::mods::SubOp;
use crate::ir::{AddrBase, Flags, Op, Operand, Space, Type};
use crate::mem::{self, Generic, MemFault, LOCAL_WINDOW, PARAM_WINDOW, SHARED_WINDOW};

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

pub fn exec(cx: &mut Ctx<'_, '_>) -> Res<()> {
    match cx.ins.op {
        Op::Ld | Op::Ldu => load(cx),
        Op::St => store(cx),
        Op::Atom | Op::Red => atomic(cx),
        Op::Cvta => cvta(cx),
        Op::Isspacep => isspacep(cx),
        Op::Mapa => mapa(cx),
        Op::Getctarank => {
            for lane in lanes(cx.active) {
                let a = cx.src(1, lane, Type::U64);
                let rank = match cx.ins.mods.space {
                    Some(Space::Shared | Space::SharedCluster) => {
                        mem::cluster_addr(a, cx.cluster_rank()).0
                    }
                    _ => match mem::classify(a) {
                        Generic::Shared(o) => mem::cluster_addr(o, cx.cluster_rank()).0,
                        _ => cx.cluster_rank(),
                    },
                };
                cx.dst(0, lane, u64::from(rank));
            }
            Ok(())
        }
        _ => Ok(()),
    }
}

/// `mapa`: the address of the same variable in CTA `b` of the cluster (PTX ISA 9.0 section
/// 9.7.9.21), as a `shared::cluster` address or, without a state space, a generic one.
fn mapa(cx: &mut Ctx<'_, '_>) -> Res<()> {
    let n = cx.cluster.iter().product::<u32>();
    for lane in lanes(cx.active) {
        let a = cx.src(1, lane, Type::U64);
        let b = cx.src(2, lane, Type::U32) as u32;
        if b >= n {
            let mut f = fault(
                FaultKind::Memory,
                format!("mapa to CTA rank {b}, but the cluster has {n} CTAs"),
            );
            f.linear_thread = Some(cx.thread_of(lane));
            return Err(f);
        }
        let v = match cx.ins.mods.space {
            Some(Space::Shared | Space::SharedCluster) => {
                mem::cluster_encode(b, mem::cluster_addr(a, cx.rank).1)
            }
            _ => match mem::classify(a) {
                Generic::Shared(o) => {
                    SHARED_WINDOW + mem::cluster_encode(b, mem::cluster_addr(o, cx.rank).1)
                }
                _ => a,
            },
        };
        let v = if cx.ty().size() == 4 {
            v & 0xffff_ffff
        } else {
            v
        };
        cx.dst(0, lane, v);
    }
    Ok(())
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

fn describe(t: Target) -> String {
    match t {
        Target::Global(a) => format!("global {a:#x}"),
        Target::Shared(r, o) => format!("shared+{o:#x} of CTA rank {r}"),
        Target::Local(o) => format!("local+{o:#x}"),
        Target::KernelParam(o) | Target::FrameParam(o) => format!("param+{o:#x}"),
    }
}

pub(crate) fn mem_fault(e: MemFault, thread: usize) -> Box<super::Fault> {
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

fn no_cta(cx: &Ctx<'_, '_>, r: u32) -> MemFault {
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
) -> Box<super::Fault> {
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
fn checked(
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
    let scope = super::scopes::reach(super::scopes::of(&cx.ins), cx.cluster_ctas());
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
    /// (region: 0 global or 1 + rank, start, end, first lane).
    r: [(u32, u64, u64, u32); N],
    n: usize,
}

impl<const N: usize> Ranges<N> {
    pub(crate) fn new() -> Self {
        Ranges {
            r: [(0, 0, 0, 0); N],
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
            self.r[self.n] = (region, start, start + len as u64, lane as u32);
            self.n += 1;
        }
    }

    /// Sorts and merges overlapping or adjacent ranges of one region, then checks each.
    pub(crate) fn check(mut self, cx: &mut Ctx<'_, '_>, access: (bool, bool), atomic: bool) {
        let rs = &mut self.r[..self.n];
        // Coalesced and broadcast accesses come in order already.
        if !rs.is_sorted() {
            rs.sort_unstable();
        }
        let mut i = 0;
        while i < rs.len() {
            let (region, start, mut end, mut lane) = rs[i];
            let mut j = i + 1;
            while j < rs.len() && rs[j].0 == region && rs[j].1 <= end {
                end = end.max(rs[j].2);
                lane = lane.min(rs[j].3);
                j += 1;
            }
            let tg = match region {
                0 => Target::Global(start),
                r => Target::Shared(r - 1, start),
            };
            let mut lanes = [(0u64, 0u64, 0u32); N];
            for (k, x) in rs[i..j].iter().enumerate() {
                lanes[k] = (x.1, x.2, x.3);
            }
            let span = (end - start) as usize;
            checked(cx, tg, lane as usize, span, access, atomic, &lanes[..j - i]);
            i = j;
        }
    }
}

/// Whether a load or store with these modifiers is a strong (atomic-like) access.
fn strong(cx: &Ctx<'_, '_>) -> bool {
    use crate::ir::mods::Sem;
    matches!(cx.ins.mods.sem, Some(s) if s != Sem::Weak)
}

fn load(cx: &mut Ctx<'_, '_>) -> Res<()> {
    let t = cx.ty();
    let esize = t.size() as usize;
    let regs = elems(cx, 0);
    let n = regs.len().max(1);
    let space = cx.ins.mods.space;
    let mut buf = [0u8; 128];
    let mut ranges: Ranges = Ranges::new();
    for lane in lanes(cx.active) {
        let addr = address(cx, 1, lane);
        let tg = target(cx, space, addr);
        check_align(cx, addr, (esize * n) as u64, lane, tg)?;
        let bytes = &mut buf[..esize * n];
        read(cx, tg, lane, bytes).map_err(|e| mem_fault(e, thread_of(cx, lane)))?;
        ranges.add(tg, esize * n, lane);
        for (i, r) in regs.iter().enumerate() {
            let raw = mem::read_le(&bytes[i * esize..(i + 1) * esize]);
            let v = if t.is_signed() {
                sext(raw, esize as u32 * 8) as u64
            } else {
                raw
            };
            if let Operand::Reg(reg) = r {
                cx.set_reg(*reg, lane, v);
            }
        }
    }
    if cx.hb.is_some() {
        let atomic = strong(cx);
        ranges.check(cx, (false, true), atomic);
    }
    Ok(())
}

fn store(cx: &mut Ctx<'_, '_>) -> Res<()> {
    let t = cx.ty();
    let esize = t.size() as usize;
    let vals = elems(cx, 1);
    let n = vals.len().max(1);
    let space = cx.ins.mods.space;
    let mut buf = [0u8; 128];
    let mut ranges: Ranges = Ranges::new();
    for lane in lanes(cx.active) {
        let addr = address(cx, 0, lane);
        let tg = target(cx, space, addr);
        check_align(cx, addr, (esize * n) as u64, lane, tg)?;
        for (i, v) in vals.iter().enumerate() {
            let x = cx.value(v, lane, t);
            mem::write_le(&mut buf[i * esize..(i + 1) * esize], x);
        }
        write(cx, tg, lane, &buf[..esize * n]).map_err(|e| mem_fault(e, thread_of(cx, lane)))?;
        ranges.add(tg, esize * n, lane);
    }
    if cx.hb.is_some() {
        let atomic = strong(cx);
        ranges.check(cx, (true, false), atomic);
    }
    Ok(())
}

fn atomic(cx: &mut Ctx<'_, '_>) -> Res<()> {
    let t = cx.ty();
    let esize = t.size() as usize;
    let is_red = cx.ins.op == Op::Red;
    let (addr_k, b_k) = if is_red { (0, 1) } else { (1, 2) };
    let space = cx.ins.mods.space;
    let op = cx.ins.mods.sub.unwrap_or(SubOp::Add);
    let bits = esize as u32 * 8;
    for lane in lanes(cx.active) {
        let addr = address(cx, addr_k, lane);
        let tg = target(cx, space, addr);
        if !matches!(tg, Target::Global(_) | Target::Shared(..)) {
            return Err(wrong_space(cx, addr, tg, lane, "global and shared memory"));
        }
        check_align(cx, addr, esize as u64, lane, tg)?;
        let mut buf = [0u8; 8];
        read(cx, tg, lane, &mut buf[..esize]).map_err(|e| mem_fault(e, thread_of(cx, lane)))?;
        let old = mem::read_le(&buf[..esize]);
        let b = cx.src(b_k, lane, t) & mask(bits);
        let new = match op {
            SubOp::Cas => {
                let c = cx.src(3, lane, t) & mask(bits);
                if old == b {
                    c
                } else {
                    old
                }
            }
            // `.add.f32` on global memory flushes subnormals (measured on the H100).
            SubOp::Add if t == Type::F32 && matches!(tg, Target::Global(_)) => {
                u64::from(mem::reduce::add_f32(old as u32, b as u32, true))
            }
            op => mem::reduce::combine(op, t, old, b),
        };
        mem::write_le(&mut buf[..esize], new);
        write(cx, tg, lane, &buf[..esize]).map_err(|e| mem_fault(e, thread_of(cx, lane)))?;
        if cx.hb.is_some() {
            checked(cx, tg, lane, esize, (true, !is_red), true, &[]);
        }
        if !is_red {
            let v = if t.is_signed() {
                sext(old, bits) as u64
            } else {
                old
            };
            cx.dst(0, lane, v);
        }
    }
    Ok(())
}

fn cvta(cx: &mut Ctx<'_, '_>) -> Res<()> {
    let to = cx.ins.mods.has(Flags::TO);
    let window = match cx.ins.mods.space {
        Some(Space::Shared | Space::SharedCluster) => SHARED_WINDOW,
        Some(Space::Local) => LOCAL_WINDOW,
        Some(Space::Param | Space::ParamEntry) => PARAM_WINDOW,
        _ => 0,
    };
    for lane in lanes(cx.active) {
        let a = cx.src(1, lane, Type::U64);
        let v = if window == PARAM_WINDOW {
            // Kernel-parameter addresses already carry the window.
            a
        } else if to {
            a.wrapping_sub(window)
        } else {
            a.wrapping_add(window)
        };
        let v = if cx.ty().size() == 4 {
            v & 0xffff_ffff
        } else {
            v
        };
        cx.dst(0, lane, v);
    }
    Ok(())
}

fn isspacep(cx: &mut Ctx<'_, '_>) -> Res<()> {
    for lane in lanes(cx.active) {
        let a = cx.src(1, lane, Type::U64);
        let g = mem::classify(a);
        let r = match cx.ins.mods.space {
            Some(Space::Global) => matches!(g, Generic::Global(_)),
            Some(Space::Shared | Space::SharedCluster) => matches!(g, Generic::Shared(_)),
            Some(Space::Local) => matches!(g, Generic::Local(_)),
            Some(Space::Param | Space::ParamEntry) => matches!(g, Generic::Param(_)),
            Some(Space::Const) => matches!(g, Generic::Global(a) if cx.global.is_readonly(a)),
            _ => false,
        };
        cx.dst(0, lane, u64::from(r));
    }
    Ok(())
}
