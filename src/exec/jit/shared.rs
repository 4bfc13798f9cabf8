//! A load or store of the CTA's shared memory in compiled code (PTX ISA 9.0 sections 9.7.9.8-9
//! `ld`/`st`, the shapes [`MemAccess`] names): what `memfast.rs` does for the same fast
//! form, in two loops over the warp. The first checks every active lane's address, two lanes at
//! a time: the low 32 bits of the base register plus the offset (a shared window address),
//! aligned to the access's size and ending inside shared memory. If one fails, the code leaves
//! before the instruction, having changed nothing, and the interpreter takes it (a fault, or
//! the general path). The second moves each lane's elements, one lane at a time in lane order
//! (so of two lanes storing to one word the higher wins, as in the interpreter): a load puts
//! zero-extended 4-byte or 8-byte words in the destination rows, a store writes the low bytes
//! of its registers (or immediate). A lane's address is read before its destinations are
//! written, so a destination that is also the base register gives what the interpreter gives.
//! A partial warp's inactive lanes touch nothing: they read at offset 0 (inside: `Jit::run`
//! runs these stretches only on shared memory of at least [`ROOM`] bytes) and write back what
//! they read, and keep their registers.

use super::super::fast::Src;
use super::lower::{MemAccess, ROW};
use super::Rows;
use cranelift_codegen::ir::condcodes::IntCC;
use cranelift_codegen::ir::types::{I64, I64X2};
use cranelift_codegen::ir::{Block, Endianness, InstBuilder, MemFlagsData, StackSlot, Type, Value};
use cranelift_frontend::FunctionBuilder;

/// The least shared memory a stretch with loads runs on: the largest access.
pub(super) const ROOM: usize = 16;

/// Lanes a load's moving loop handles per iteration.
const LANES: i64 = 4;

/// The memory an access reaches, its address and length: the CTA's shared memory (the
/// function's parameters), or a global allocation (`global.rs`) whose address is `base`; and the
/// block that leaves the function when an access declines. A shared address is the low 32 bits
/// of a register plus an offset, and its offset into the memory; a global one is 64 bits, its
/// offset the distance from `base`.
#[derive(Clone, Copy)]
pub(super) struct Region {
    pub ptr: Value,
    pub len: Value,
    pub bail: Block,
    pub base: Option<Value>,
}

/// Register rows: in bounds (checked before the call).
fn rows_flags() -> MemFlagsData {
    MemFlagsData::new().with_notrap()
}

/// Shared memory: in bounds (checked by the first loop), little-endian as the interpreter's
/// `from_le_bytes`.
fn mem_flags() -> MemFlagsData {
    MemFlagsData::new()
        .with_notrap()
        .with_endianness(Endianness::Little)
}

/// Emits access `ld` at the builder's position (the instruction's head), leaving the builder
/// after it.
pub(super) fn emit(b: &mut FunctionBuilder<'_>, rows: Rows, ld: MemAccess, sh: Region) {
    let bad = check(b, rows, Window::of(ld), sh, None);
    let fine = b.create_block();
    b.ins().brif(bad, sh.bail, &[], fine, &[]);
    b.switch_to_block(fine);
    move_lanes(b, rows, ld, sh, Lanes::Computed);
}

/// The bytes every lane's accesses cover: `extent` bytes from the low 32 bits of register
/// `base` (or 0) plus `off`, which must be a multiple of `align`.
#[derive(Clone, Copy)]
pub(super) struct Window {
    pub base: Option<u32>,
    pub off: u64,
    pub align: i64,
    pub extent: i64,
}

impl Window {
    /// The window of one access: its own bytes.
    pub fn of(ld: MemAccess) -> Window {
        Window {
            base: ld.base,
            off: ld.off,
            align: ld.bytes,
            extent: ld.bytes,
        }
    }
}

/// The first loop: whether some active lane's window is misaligned or not inside the memory
/// (an `i8`, nonzero then). With `stash`, each lane's address in memory (the memory's address
/// plus the window's offset) is kept there, at the lane's offset in a row, for
/// [`Lanes::Stashed`] moves.
pub(super) fn check(
    b: &mut FunctionBuilder<'_>,
    rows: Rows,
    win: Window,
    sh: Region,
    stash: Option<StackSlot>,
) -> Value {
    let stash = stash.map(|slot| (slot, sh.ptr));
    let bad = b.declare_var(I64X2);
    let zeros = splat(b, 0);
    b.def_var(bad, zeros);
    // The last offset a window may start at. Shared memory is far below 2^63 bytes and
    // addresses are 32-bit, so signed comparisons of the 64-bit lanes are exact. A global
    // allocation holds at least the access (`global.rs`) and far less than 2^63 bytes: an
    // address below it, or 2^63 or more above, has a negative offset. (Cranelift's x86-64
    // backend lowers no unsigned comparison of 64-bit vector lanes.)
    let last = b.ins().iadd_imm_s(sh.len, -win.extent);
    let last = b.ins().splat(I64X2, last);
    let below = sh.base.map(|_| splat(b, 0));
    let global = sh.base.map(|g| b.ins().splat(I64X2, g));
    let misaligned = splat(b, win.align - 1);
    let ptr = stash.map(|(_, ptr)| b.ins().splat(I64X2, ptr));
    let (body, o, at) = super::loop_head(b, rows);
    let mut acc = b.use_var(bad);
    for u in 0..super::UNROLL {
        let a = match win.base {
            Some(r) => b
                .ins()
                .load(I64X2, rows_flags(), at, r as i32 * ROW + (u * 16) as i32),
            None => splat(b, 0),
        };
        let (a, rel) = address(b, a, win.off, I64X2, global);
        let mis = b.ins().band(a, misaligned);
        let out = b.ins().icmp(IntCC::SignedGreaterThan, rel, last);
        let out = match below {
            Some(zero) => {
                let neg = b.ins().icmp(IntCC::SignedLessThan, rel, zero);
                b.ins().bor(out, neg)
            }
            None => out,
        };
        let wrong = b.ins().bor(mis, out);
        let wrong = match rows.keep {
            Some(slot) => {
                let k = super::lane_mask(b, slot, o, u * 16, I64X2);
                b.ins().band(wrong, k)
            }
            None => wrong,
        };
        acc = b.ins().bor(acc, wrong);
        if let (Some((slot, _)), Some(ptr)) = (stash, ptr) {
            let p = b.ins().iadd(rel, ptr);
            let s = b.ins().stack_addr(I64, slot, 0);
            let s = b.ins().iadd(s, o);
            b.ins()
                .store(MemFlagsData::trusted(), p, s, (u * 16) as i32);
        }
    }
    b.def_var(bad, acc);
    super::loop_back(b, rows.off, o, super::UNROLL * 16, body);
    let acc = b.use_var(bad);
    b.ins().vany_true(acc)
}

/// Where a move finds each lane's address in memory.
#[derive(Clone, Copy)]
pub(super) enum Lanes {
    /// From the access's base register and offset.
    Computed,
    /// In a stash [`check`] filled (a window's start): the access's bytes begin `delta` bytes
    /// after the lane's stashed address.
    Stashed { slot: StackSlot, delta: i32 },
}

/// The second loop: each lane's elements between memory and its rows, [`LANES`] lanes an
/// iteration.
pub(super) fn move_lanes(
    b: &mut FunctionBuilder<'_>,
    rows: Rows,
    ld: MemAccess,
    sh: Region,
    from: Lanes,
) {
    let (body, o, at) = super::loop_head(b, rows);
    let stash = match from {
        Lanes::Stashed { slot, .. } => {
            let s = b.ins().stack_addr(I64, slot, 0);
            Some(b.ins().iadd(s, o))
        }
        Lanes::Computed => None,
    };
    let delta = match from {
        Lanes::Stashed { delta, .. } => delta,
        Lanes::Computed => 0,
    };
    for u in 0..LANES {
        let lane = (u * 8) as i32;
        let active = rows
            .keep
            .map(|slot| super::lane_mask(b, slot, o, i64::from(lane), I64));
        let p = match stash {
            Some(s) => b.ins().load(I64, MemFlagsData::trusted(), s, lane),
            None => {
                let a = match ld.base {
                    Some(r) => b.ins().load(I64, rows_flags(), at, r as i32 * ROW + lane),
                    None => b.ins().iconst(I64, 0),
                };
                let (_, rel) = address(b, a, ld.off, I64, sh.base);
                // An inactive lane reads at 0 (inside: `ROOM`, or the global allocation holds
                // the access), and changes nothing.
                let rel = match active {
                    Some(m) => b.ins().band(rel, m),
                    None => rel,
                };
                b.ins().iadd(sh.ptr, rel)
            }
        };
        let lane_at = Lane {
            at,
            lane,
            p,
            active,
        };
        for (k, &v) in ld.vals[..usize::from(ld.n)].iter().enumerate() {
            let el = delta + (k * usize::from(ld.ew)) as i32;
            match ld.store {
                false => load_element(b, lane_at, ld.ew, el, v),
                true => store_element(b, lane_at, ld.ew, el, v),
            }
        }
    }
    super::loop_back(b, rows.off, o, LANES * 8, body);
}

/// One lane of an access: its registers' lane at `at + lane` (plus a row), its memory at `p`,
/// and for a partial warp whether it is active (all ones or zero).
#[derive(Clone, Copy)]
struct Lane {
    at: Value,
    lane: i32,
    p: Value,
    active: Option<Value>,
}

/// Element `el` bytes in (of `ew` bytes) into register `d` of the lane.
fn load_element(b: &mut FunctionBuilder<'_>, l: Lane, ew: u8, el: i32, d: Src) {
    let Src::Reg(d) = d else { return };
    let v = match ew {
        4 => b.ins().uload32(mem_flags(), l.p, el),
        _ => b.ins().load(I64, mem_flags(), l.p, el),
    };
    let dst = d as i32 * ROW + l.lane;
    let v = match l.active {
        Some(m) => {
            let old = b.ins().load(I64, rows_flags(), l.at, dst);
            keep_where(b, m, v, old)
        }
        None => v,
    };
    b.ins().store(rows_flags(), v, l.at, dst);
}

/// The low `ew` bytes of `v` (the lane's register, or an immediate) stored at element `el`.
fn store_element(b: &mut FunctionBuilder<'_>, l: Lane, ew: u8, el: i32, v: Src) {
    let v = match v {
        Src::Reg(r) => b
            .ins()
            .load(I64, rows_flags(), l.at, r as i32 * ROW + l.lane),
        Src::Imm(x) => b.ins().iconst(I64, x as i64),
    };
    let v = match l.active {
        Some(m) => {
            let old = match ew {
                4 => b.ins().uload32(mem_flags(), l.p, el),
                _ => b.ins().load(I64, mem_flags(), l.p, el),
            };
            keep_where(b, m, v, old)
        }
        None => v,
    };
    match ew {
        4 => b.ins().istore32(mem_flags(), v, l.p, el),
        _ => b.ins().store(mem_flags(), v, l.p, el),
    };
}

/// `new` where `m` is all ones, `old` where it is zero.
fn keep_where(b: &mut FunctionBuilder<'_>, m: Value, new: Value, old: Value) -> Value {
    let new = b.ins().band(new, m);
    let old = b.ins().band_not(old, m);
    b.ins().bor(new, old)
}

/// The address `base + off` (wrapping as the interpreter's) and its offset into the memory: a
/// shared window address is its low 32 bits, which are the offset; a global one's offset is
/// its distance from the allocation's address `global` (`ty`: one lane, `I64`, or two,
/// `I64X2`, and `global` of that type).
fn address(
    b: &mut FunctionBuilder<'_>,
    base: Value,
    off: u64,
    ty: Type,
    global: Option<Value>,
) -> (Value, Value) {
    let a = if ty == I64X2 {
        let o = splat(b, off as i64);
        b.ins().iadd(base, o)
    } else {
        b.ins().iadd_imm_s(base, off as i64)
    };
    if let Some(g) = global {
        return (a, b.ins().isub(a, g));
    }
    let a = if ty == I64X2 {
        let low = splat(b, 0xffff_ffff);
        b.ins().band(a, low)
    } else {
        b.ins().band_imm_u(a, 0xffff_ffff)
    };
    (a, a)
}

fn splat(b: &mut FunctionBuilder<'_>, v: i64) -> Value {
    let s = b.ins().iconst(I64, v);
    b.ins().splat(I64X2, s)
}
