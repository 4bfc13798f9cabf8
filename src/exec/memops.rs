//! Loads, stores, atomics and address conversions (PTX ISA 9.0 sections 9.7.9.8-9.9 `ld`/`st`,
//! 9.7.9.19-20 `cvta`/`isspacep`, 9.7.13.5-6 `atom`/`red`, 6.4 "Operand addressing"). Every
//! access is checked: it must fall inside one allocation (global), the CTA's shared memory, the
//! thread's local memory or a parameter buffer, and be aligned to its full size (vectors
//! included). Atomics of a warp are applied lane by lane in lane order.

use super::addr::{
    address, check_align, elems, mem_fault, read, target, thread_of, write, wrong_space, Target,
};
use super::alu::sext;
use super::ctx::Ctx;
use super::fault::FaultKind;
use super::fault::{fault, Res};
use super::lanes::{lanes, mask};
use super::shown::{checked, Ranges};
use crate::ir::mods::SubOp;
use crate::ir::{Flags, Op, Operand, Space, Type};
use crate::mem::{self, Generic, SHARED_WINDOW};

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
    // Whether every lane stored the bytes memory held (a kept write, for the checker).
    let (watched, atomic) = (cx.hb.is_some(), strong(cx));
    let mut kept = watched && !atomic;
    for lane in lanes(cx.active) {
        let addr = address(cx, 0, lane);
        let tg = target(cx, space, addr);
        check_align(cx, addr, (esize * n) as u64, lane, tg)?;
        for (i, v) in vals.iter().enumerate() {
            let x = cx.value(v, lane, t);
            mem::write_le(&mut buf[i * esize..(i + 1) * esize], x);
        }
        let bytes = &buf[..esize * n];
        kept = kept && held(cx, tg, bytes.len()) == Some(bytes);
        write(cx, tg, lane, bytes).map_err(|e| mem_fault(e, thread_of(cx, lane)))?;
        ranges.add(tg, esize * n, lane);
    }
    if watched {
        ranges.check_store(cx, (true, false), atomic, kept);
    }
    Ok(())
}

/// The `n` bytes of global or shared memory a store to `tg` is about to overwrite (without
/// logging a read: `--jobs`' access logs record what the kernel did); `None` elsewhere.
fn held<'c>(cx: &'c Ctx<'_, '_>, tg: Target, n: usize) -> Option<&'c [u8]> {
    match tg {
        Target::Global(a) => {
            let (i, off) = cx.global.locate(a, n as u64).ok()?;
            cx.global.allocs[i].data.get(off..off + n)
        }
        Target::Shared(r, o) => cx.smem.get(r as usize)?.bytes.get(o as usize..)?.get(..n),
        _ => None,
    }
}

/// `atom` and `red`, scalar or vector (`.v2`/`.v4`/`.v8` of f32, f16, bf16, f16x2, bf16x2 on
/// global memory, sm_90): a vector's elements are applied one after another, each as the
/// scalar form of its type (atomic per element, as section 9.7.13.5 promises no more).
fn atomic(cx: &mut Ctx<'_, '_>) -> Res<()> {
    let t = cx.ty();
    let esize = t.size() as usize;
    let is_red = cx.ins.op == Op::Red;
    let (addr_k, b_k) = if is_red { (0, 1) } else { (1, 2) };
    let (srcs, dsts) = (elems(cx, b_k), if is_red { &[] } else { elems(cx, 0) });
    // Decoding checked that each data operand holds `.vN`'s count (ir::atomform).
    let n = usize::from(cx.ins.mods.vec.max(1));
    let space = cx.ins.mods.space;
    let op = cx.ins.mods.sub.unwrap_or(SubOp::Add);
    let bits = esize as u32 * 8;
    for lane in lanes(cx.active) {
        let addr = address(cx, addr_k, lane);
        let tg = target(cx, space, addr);
        let global = matches!(tg, Target::Global(_));
        if !matches!(tg, Target::Global(_) | Target::Shared(..)) || (n > 1 && !global) {
            let allowed = if n > 1 {
                "global memory (a vector atomic)"
            } else {
                "global and shared memory"
            };
            return Err(wrong_space(cx, addr, tg, lane, allowed));
        }
        check_align(cx, addr, (esize * n) as u64, lane, tg)?;
        let mut buf = [0u8; 16];
        let bytes = &mut buf[..esize * n];
        read(cx, tg, lane, bytes).map_err(|e| mem_fault(e, thread_of(cx, lane)))?;
        for i in 0..n {
            let at = i * esize..(i + 1) * esize;
            let old = mem::read_le(&bytes[at.clone()]);
            let b = match srcs.get(i) {
                Some(o) if n > 1 => cx.value(o, lane, t),
                _ => cx.src(b_k, lane, t),
            } & mask(bits);
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
                SubOp::Add if t == Type::F32 && global => {
                    u64::from(mem::reduce::add_f32(old as u32, b as u32, true))
                }
                op => mem::reduce::combine(op, t, old, b),
            };
            mem::write_le(&mut bytes[at], new);
            if !is_red {
                let v = if t.is_signed() {
                    sext(old, bits) as u64
                } else {
                    old
                };
                match dsts.get(i) {
                    Some(Operand::Reg(r)) if n > 1 => cx.set_reg(*r, lane, v),
                    Some(_) if n > 1 => {}
                    _ => cx.dst(0, lane, v),
                }
            }
        }
        write(cx, tg, lane, bytes).map_err(|e| mem_fault(e, thread_of(cx, lane)))?;
        if cx.hb.is_some() {
            checked(
                &mut cx.watch(),
                tg,
                lane,
                esize * n,
                (true, !is_red),
                true,
                &[],
            );
        }
    }
    Ok(())
}

fn cvta(cx: &mut Ctx<'_, '_>) -> Res<()> {
    let to = cx.ins.mods.has(Flags::TO);
    let window = mem::cvta_window(cx.ins.mods.space);
    for lane in lanes(cx.active) {
        let a = cx.src(1, lane, Type::U64);
        let v = if to {
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
