//! Loads, stores, atomics and address conversions (PTX ISA 9.0 sections 9.7.9.8-9.9 `ld`/`st`,
//! 9.7.9.19-20 `cvta`/`isspacep`, 9.7.13.5-6 `atom`/`red`, 6.4 "Operand addressing"). Every
//! access is checked: it must fall inside one allocation (global), the CTA's shared memory, the
//! thread's local memory or a parameter buffer, and be aligned to its full size (vectors
//! included). Atomics of a warp are applied lane by lane in lane order.

use super::alu::sext;
use super::fp::Fmt;
use super::step::{fault, lanes, mask, Ctx, Res, WARP};
use super::FaultKind;
use crate::ir::mods::SubOp;
use crate::ir::{AddrBase, Flags, Op, Operand, Space, Type};
use crate::mem::{self, Generic, MemFault, LOCAL_WINDOW, PARAM_WINDOW, SHARED_WINDOW};

/// Where one access lands.
#[derive(Debug, Clone, Copy)]
enum Target {
    Global(u64),
    Shared(u64),
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
        Op::Mapa => {
            // A cluster of one CTA: the mapped address is the address itself.
            for lane in lanes(cx.active) {
                let a = cx.src(1, lane, Type::U64);
                cx.dst(0, lane, a);
            }
            Ok(())
        }
        Op::Getctarank => {
            for lane in lanes(cx.active) {
                cx.dst(0, lane, 0);
            }
            Ok(())
        }
        _ => Ok(()),
    }
}

/// The address an operand names for `lane`, in the instruction's state space.
fn address(cx: &Ctx<'_, '_>, k: usize, lane: usize) -> u64 {
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

fn target(cx: &Ctx<'_, '_>, space: Option<Space>, addr: u64) -> Target {
    match space {
        Some(Space::Global | Space::Const) => Target::Global(addr),
        Some(Space::Shared | Space::SharedCluster) => Target::Shared(addr & 0xffff_ffff),
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
            Generic::Shared(o) => Target::Shared(o),
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
        Target::Shared(o) => format!("shared+{o:#x}"),
        Target::Local(o) => format!("local+{o:#x}"),
        Target::KernelParam(o) | Target::FrameParam(o) => format!("param+{o:#x}"),
    }
}

fn mem_fault(e: MemFault, thread: usize) -> Box<super::Fault> {
    let mut f = fault(FaultKind::Memory, e.message);
    f.linear_thread = Some(thread as u32);
    f
}

fn read(cx: &Ctx<'_, '_>, t: Target, lane: usize, out: &mut [u8]) -> Result<(), MemFault> {
    let n = out.len();
    let src: &[u8] = match t {
        Target::Global(a) => cx.global.read(a, n)?,
        Target::Shared(o) => mem::slice(cx.shared, "shared", o, n)?,
        Target::Local(o) => mem::slice(&cx.local[lane], "local", o, n)?,
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

fn write(cx: &mut Ctx<'_, '_>, t: Target, lane: usize, data: &[u8]) -> Result<(), MemFault> {
    let n = data.len();
    let dst: &mut [u8] = match t {
        Target::Global(a) => cx.global.write(a, n)?,
        Target::Shared(o) => mem::slice_mut(cx.shared, "shared", o, n)?,
        Target::Local(o) => mem::slice_mut(&mut cx.local[lane], "local", o, n)?,
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

fn thread_of(cx: &Ctx<'_, '_>, lane: usize) -> usize {
    cx.warp_index as usize * WARP + lane
}

fn check_align(cx: &Ctx<'_, '_>, addr: u64, size: u64, lane: usize, t: Target) -> Res<()> {
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

fn describe_with(cx: &Ctx<'_, '_>, t: Target) -> String {
    match t {
        Target::Global(a) => cx.global.describe(a),
        other => describe(other),
    }
}

/// The element registers of the data operand `k` (a register or a `{...}` vector).
fn elems(cx: &Ctx<'_, '_>, k: usize) -> Vec<Operand> {
    match cx.ops.get(k) {
        Some(Operand::Vector(r)) => cx.func.sub_ops(*r).to_vec(),
        Some(o) => vec![*o],
        None => Vec::new(),
    }
}

fn load(cx: &mut Ctx<'_, '_>) -> Res<()> {
    let t = cx.ty();
    let esize = t.size() as usize;
    let regs = elems(cx, 0);
    let n = regs.len().max(1);
    let space = cx.ins.mods.space;
    let mut buf = [0u8; 128];
    for lane in lanes(cx.active) {
        let addr = address(cx, 1, lane);
        let tg = target(cx, space, addr);
        check_align(cx, addr, (esize * n) as u64, lane, tg)?;
        let bytes = &mut buf[..esize * n];
        read(cx, tg, lane, bytes).map_err(|e| mem_fault(e, thread_of(cx, lane)))?;
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
    Ok(())
}

fn store(cx: &mut Ctx<'_, '_>) -> Res<()> {
    let t = cx.ty();
    let esize = t.size() as usize;
    let vals = elems(cx, 1);
    let n = vals.len().max(1);
    let space = cx.ins.mods.space;
    let mut buf = [0u8; 128];
    for lane in lanes(cx.active) {
        let addr = address(cx, 0, lane);
        let tg = target(cx, space, addr);
        check_align(cx, addr, (esize * n) as u64, lane, tg)?;
        for (i, v) in vals.iter().enumerate() {
            let x = cx.value(v, lane, t);
            mem::write_le(&mut buf[i * esize..(i + 1) * esize], x);
        }
        write(cx, tg, lane, &buf[..esize * n]).map_err(|e| mem_fault(e, thread_of(cx, lane)))?;
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
        check_align(cx, addr, esize as u64, lane, tg)?;
        let mut buf = [0u8; 8];
        read(cx, tg, lane, &mut buf[..esize]).map_err(|e| mem_fault(e, thread_of(cx, lane)))?;
        let old = mem::read_le(&buf[..esize]);
        let b = cx.src(b_k, lane, t) & mask(bits);
        let new = match op {
            SubOp::Add => add(t, old, b),
            SubOp::Min | SubOp::Max => minmax(t, op == SubOp::Max, old, b),
            SubOp::Inc => {
                if old >= b {
                    0
                } else {
                    old + 1
                }
            }
            SubOp::Dec => {
                if old == 0 || old > b {
                    b
                } else {
                    old - 1
                }
            }
            SubOp::And => old & b,
            SubOp::Or => old | b,
            SubOp::Xor => old ^ b,
            SubOp::Exch => b,
            SubOp::Cas => {
                let c = cx.src(3, lane, t) & mask(bits);
                if old == b {
                    c
                } else {
                    old
                }
            }
            _ => old,
        };
        mem::write_le(&mut buf[..esize], new);
        write(cx, tg, lane, &buf[..esize]).map_err(|e| mem_fault(e, thread_of(cx, lane)))?;
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

fn add(t: Type, a: u64, b: u64) -> u64 {
    match t {
        Type::F32 => u64::from((f32::from_bits(a as u32) + f32::from_bits(b as u32)).to_bits()),
        Type::F64 => (f64::from_bits(a) + f64::from_bits(b)).to_bits(),
        Type::F16 | Type::Bf16 => half_add(Fmt::of(t), a, b),
        Type::F16x2 | Type::Bf16x2 => {
            let f = Fmt::of(t);
            (half_add(f, a >> 16, b >> 16) << 16) | half_add(f, a & 0xffff, b & 0xffff)
        }
        _ => a.wrapping_add(b) & mask(t.size() * 8),
    }
}

fn half_add(f: Fmt, a: u64, b: u64) -> u64 {
    // The exact sum of two halves is representable in f64; one rounding to the half format.
    let v = f.encode_f64(f.to_f64(a) + f.to_f64(b));
    if f.is_nan(v) {
        f.canonical_nan()
    } else {
        v
    }
}

fn minmax(t: Type, max: bool, a: u64, b: u64) -> u64 {
    let bits = t.size() * 8;
    if t.is_float() {
        let f = Fmt::of(t);
        let (x, y) = (f.to_f64(a), f.to_f64(b));
        return if f.is_nan(b) || (if max { x >= y } else { x <= y }) {
            a
        } else {
            b
        };
    }
    let (x, y) = if t.is_signed() {
        (i128::from(sext(a, bits)), i128::from(sext(b, bits)))
    } else {
        (i128::from(a), i128::from(b))
    };
    let keep_a = if max { x >= y } else { x <= y };
    if keep_a {
        a
    } else {
        b
    }
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
