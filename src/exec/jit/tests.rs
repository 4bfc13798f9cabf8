//! The compiled code against the interpreter's fast forms: random stretches of every form with a
//! fragment and of loads and stores of shared and global memory, over register files of edge
//! values, random bits and addresses (inside, outside, misaligned, colliding, across two global
//! allocations, into a read-only one), entered at a random instruction for a random count, for a
//! whole warp and for one with inactive lanes; every register of every lane and every byte of
//! shared and global memory must come out as `fast::exec` and `memfast.rs` leave them,
//! instruction by instruction, and the code must stop before the first access the interpreter
//! declines. Registers have widths, as in a program: the even ones are `.b32` and hold
//! zero-extended values (what every writer keeps, and `lower.rs` relies on), the odd ones
//! `.b64`; a form reads and writes registers of the widths its instruction names, and every
//! `.b32` register must still be zero-extended after both runs.

use super::super::fast::{exec, Ext, FOp, Fast, IntOp, Key, Rel, Src, Widen};
use super::super::lanes::WARP;
use super::super::memfast::{unwatched, Reach};
use super::{compile, Code, Jit};
use crate::ir::mods::Cmp;
use crate::mem::Global;
use rand::{Rng, SeedableRng};
use rand_chacha::ChaCha8Rng;

pub(super) const REGS: u32 = 8;

/// Whether register `r` is a `.b32` one (else `.b64`).
pub(super) fn narrow(r: u32) -> bool {
    r.is_multiple_of(2)
}

/// A random register of `width` bits, from `low` up.
fn reg(r: &mut ChaCha8Rng, width: u32, low: u32) -> u32 {
    let first = u32::from(width == 64);
    2 * r.gen_range(low.saturating_sub(first).div_ceil(2)..REGS / 2) + first
}

/// A register file's value for register `reg`: `v` cut to the register's width.
pub(super) fn fit(reg: usize, v: u64) -> u64 {
    match narrow(reg as u32) {
        true => v & 0xffff_ffff,
        false => v,
    }
}

/// Whether every `.b32` register of `regs` holds a zero-extended value in every lane.
pub(super) fn zero_extended(regs: &[u64]) -> bool {
    regs.chunks(WARP)
        .enumerate()
        .all(|(r, row)| !narrow(r as u32) || row.iter().all(|&v| v >> 32 == 0))
}

const INT_OPS: [IntOp; 15] = [
    IntOp::Add,
    IntOp::Sub,
    IntOp::MulLo,
    IntOp::MulHiS,
    IntOp::MulHiU,
    IntOp::And,
    IntOp::Or,
    IntOp::Xor,
    IntOp::Shl,
    IntOp::ShrU,
    IntOp::ShrS,
    IntOp::MinS,
    IntOp::MinU,
    IntOp::MaxS,
    IntOp::MaxU,
];

const CMPS: [Cmp; 18] = [
    Cmp::Eq,
    Cmp::Ne,
    Cmp::Lt,
    Cmp::Lo,
    Cmp::Le,
    Cmp::Ls,
    Cmp::Gt,
    Cmp::Hi,
    Cmp::Ge,
    Cmp::Hs,
    Cmp::Equ,
    Cmp::Neu,
    Cmp::Ltu,
    Cmp::Leu,
    Cmp::Gtu,
    Cmp::Geu,
    Cmp::Num,
    Cmp::Nan,
];

/// A value worth testing: an edge of some width or format, a shift count, or random bits.
pub(super) fn value(r: &mut ChaCha8Rng) -> u64 {
    const EDGES: [u64; 16] = [
        0,
        1,
        31,
        32,
        63,
        64,
        0x7fff_ffff,
        0x8000_0000,
        0xffff_ffff,
        0x1_0000_0000,
        u64::MAX,
        1 << 63,
        0x7fc0_0000,
        0xff80_0000,
        0x0000_0001,
        0x3f80_0000,
    ];
    match r.gen_range(0..4) {
        0 => EDGES[r.gen_range(0..EDGES.len())],
        1 => u64::from(r.gen::<u32>()),
        2 => r.gen_range(0..80),
        _ => r.gen(),
    }
}

fn src(r: &mut ChaCha8Rng, width: u32) -> Src {
    match r.gen_bool(0.7) {
        true => Src::Reg(reg(r, width, 0)),
        false => {
            let v = value(r);
            Src::Imm(if width == 32 { v & 0xffff_ffff } else { v })
        }
    }
}

/// A random form with a fragment (every kind, every operator), its registers of the widths
/// the instruction names (a predicate in any register: it holds 0 or 1).
pub(super) fn form(r: &mut ChaCha8Rng) -> Fast {
    let (d32, d64, p) = (reg(r, 32, 0), reg(r, 64, 0), r.gen_range(0..REGS));
    let (s32, s64) = (
        |r: &mut ChaCha8Rng| src(r, 32),
        |r: &mut ChaCha8Rng| src(r, 64),
    );
    let op = INT_OPS[r.gen_range(0..15)];
    let shift = matches!(op, IntOp::Shl | IntOp::ShrU | IntOp::ShrS);
    match r.gen_range(0..14) {
        0 => Fast::I32 {
            op,
            d: d32,
            a: s32(r),
            b: s32(r),
        },
        // Shift counts are `.u32` whatever the shifted type.
        1 => Fast::I64 {
            op,
            d: d64,
            a: s64(r),
            b: if shift { s32(r) } else { s64(r) },
        },
        2 => Fast::MulWide {
            signed: r.gen(),
            d: d64,
            a: s32(r),
            b: s32(r),
        },
        3 => Fast::Mad32 {
            d: d32,
            a: s32(r),
            b: s32(r),
            c: s32(r),
        },
        4 => Fast::Mad64 {
            d: d64,
            a: s64(r),
            b: s64(r),
            c: s64(r),
        },
        5 => Fast::MadWide {
            signed: r.gen(),
            d: d64,
            a: s32(r),
            b: s32(r),
            c: s64(r),
        },
        6 => setp(r, p),
        7 => {
            let w = [32, 64][r.gen_range(0..2)];
            Fast::Selp {
                d: reg(r, w, 0),
                a: src(r, w),
                b: src(r, w),
                p,
            }
        }
        8 => {
            let w = [32, 64][r.gen_range(0..2)];
            Fast::Mov {
                d: reg(r, w, 0),
                a: src(r, w),
            }
        }
        9 => cvt(r),
        10 => {
            let op = [FOp::Add, FOp::Sub, FOp::Mul][r.gen_range(0..3)];
            Fast::F32 {
                op,
                d: d32,
                a: s32(r),
                b: s32(r),
            }
        }
        11 => Fast::Fma32 {
            d: d32,
            a: s32(r),
            b: s32(r),
            c: s32(r),
        },
        12 => Fast::Prmt {
            d: d32,
            a: s32(r),
            b: s32(r),
            // Any selector (the upper half is ignored), sign-replicating nibbles included.
            c: Src::Imm(u64::from(r.gen::<u32>())),
        },
        _ => Fast::SetpF32 {
            cmp: CMPS[r.gen_range(0..18)],
            d: p,
            a: s32(r),
            b: s32(r),
        },
    }
}

/// A random integer `setp` into predicate `p`, its sources of the width its type names.
fn setp(r: &mut ChaCha8Rng, p: u32) -> Fast {
    let key = [Key::S32, Key::U32, Key::S64, Key::U64][r.gen_range(0..4)];
    let rel = [Rel::Eq, Rel::Ne, Rel::Lt, Rel::Le, Rel::Gt, Rel::Ge][r.gen_range(0..6)];
    let w = if matches!(key, Key::S32 | Key::U32) {
        32
    } else {
        64
    };
    Fast::Setp {
        key,
        rel,
        d: p,
        a: src(r, w),
        b: src(r, w),
    }
}

/// A random `cvt` between 32 and 64 bits: widening a `.b32` source, or truncating a `.b64`.
fn cvt(r: &mut ChaCha8Rng) -> Fast {
    match [Widen::Zext, Widen::Sext, Widen::Trunc][r.gen_range(0..3)] {
        Widen::Trunc => Fast::Cvt {
            w: Widen::Trunc,
            d: reg(r, 32, 0),
            a: src(r, 64),
        },
        w => Fast::Cvt {
            w,
            d: reg(r, 64, 0),
            a: src(r, 32),
        },
    }
}

/// Bytes of the shared memory loads read in these tests.
const SHARED: usize = 256;

/// A random load or store of shared memory of a shape the JIT compiles, at a register (or none)
/// plus an offset that is mostly aligned and small.
fn access(r: &mut ChaCha8Rng) -> Fast {
    let shape = [(4, 1), (4, 2), (4, 4), (8, 1), (8, 2)][r.gen_range(0..5)];
    let off = match r.gen_range(0..6) {
        0 => r.gen_range(0..SHARED as u64 + 32),
        1 => u64::MAX - 15,
        _ => r.gen_range(0..8) * 16,
    };
    let base = r.gen_bool(0.8).then(|| r.gen_range(0..REGS));
    // Global addresses: the same offsets from the writable allocation, the read-only one after
    // it, or the gap between them (registers hold offsets near shared memory's).
    let global = r.gen_bool(0.4);
    let off = match global {
        true => [GLOBAL_BASE, READ_ONLY, GLOBAL_BASE + SHARED as u64][r.gen_range(0..3)]
            .wrapping_add(off),
        false => off,
    };
    access_with(r, (shape, global), base, off, 0)
}

/// Where the writable global allocation of the tests begins, and the read-only one.
const GLOBAL_BASE: u64 = crate::mem::GLOBAL_BASE;
const READ_ONLY: u64 = GLOBAL_BASE + 2 * SHARED as u64;

/// Global memory of the tests: `SHARED` writable bytes at `GLOBAL_BASE`, as many read-only at
/// `READ_ONLY`, random.
fn global_memory(r: &mut ChaCha8Rng) -> Global {
    let mut g = Global::new();
    for (name, readonly, at) in [("w", false, GLOBAL_BASE), ("r", true, READ_ONLY)] {
        let bytes = (0..SHARED).map(|_| r.gen()).collect();
        assert_eq!(g.alloc(name, bytes, readonly), at);
    }
    g
}

/// A random load or store (of global memory if `global`) of `w`-byte elements, `n` of them,
/// at `base` plus `off`, its registers (but the base: any width) `w` bytes wide, from `low`
/// up.
fn access_with(
    r: &mut ChaCha8Rng,
    ((w, n), global): ((u8, u8), bool),
    base: Option<u32>,
    off: u64,
    low: u32,
) -> Fast {
    let regs = [0; 4].map(|_| reg(r, u32::from(w) * 8, low));
    match r.gen_range(0..3) {
        0 => Fast::Ld {
            global,
            w,
            n,
            ext: Ext::plain(w),
            d: regs,
            base,
            off,
        },
        1 if n == 1 => Fast::St {
            global,
            w,
            v: src(r, u32::from(w) * 8),
            base,
            off,
        },
        _ => Fast::StV {
            global,
            w,
            n,
            v: regs,
            base,
            off,
        },
    }
}

/// An access through register 0 or 1 (rarely none) at a multiple of its size, mostly near
/// the others, sometimes past the end of shared memory, misaligned or below zero: what makes
/// groups (`groups.rs`) whose window is inside, or not while some members are.
fn grouped_access(r: &mut ChaCha8Rng) -> Fast {
    let shape = [(4, 1), (4, 2), (4, 4), (8, 1), (8, 2)][r.gen_range(0..5)];
    let bytes = u64::from(shape.0 * shape.1);
    let off = match r.gen_range(0..10) {
        0 => r.gen_range(0..SHARED as u64 + 32),
        1 => u64::MAX - 15,
        2 | 3 => r.gen_range(0..12) * bytes,
        _ => r.gen_range(0..4) * bytes,
    };
    let base = match r.gen_range(0..10) {
        0 => None,
        k => Some(k % 2),
    };
    // Loads mostly leave the base registers alone, as a tile's loads do.
    let low = if r.gen_bool(0.9) { 2 } else { 0 };
    access_with(r, (shape, false), base, off, low)
}

/// A register value for the loads of `forms` to use as an address: mostly an aligned offset
/// into (or just past) shared memory, sometimes misaligned, far out or with high bits set (only
/// the low 32 bits are a shared address).
fn address(r: &mut ChaCha8Rng) -> u64 {
    match r.gen_range(0..10) {
        0 => r.gen_range(0..SHARED as u64 + 64),
        1 => value(r),
        2 => (r.gen::<u64>() << 32) | (r.gen_range(0..SHARED as u64 / 16) * 16),
        _ => r.gen_range(0..SHARED as u64 / 16) * 16,
    }
}

/// A register's lanes as a program sets them for an access: one address for every lane, or
/// one address plus (or, rarely, less) 4 or 8 bytes a lane, near the start of shared memory
/// (and, with a global access's offset, of a global allocation: lanes going down run below
/// it while the first is inside).
fn address_row(r: &mut ChaCha8Rng) -> [u64; WARP] {
    let start: u64 = r.gen_range(0..4) * 16;
    let stride: i64 = [0, 4, 8, 0, 4, 8, -4, -8][r.gen_range(0..8)];
    std::array::from_fn(|lane| start.wrapping_add_signed(lane as i64 * stride))
}

/// Runs `forms[from..from + count]` through compiled code, accesses reaching `shared` and
/// `global`: how many ran.
fn compiled(
    jit: &mut Jit,
    forms: &[Fast],
    (regs, shared, global): (&mut [u64], &mut [u8], &mut Global),
    (from, count): (usize, usize),
    mask: u32,
) -> usize {
    let partial = mask != u32::MAX;
    let Code::Ready(f) = compile(jit, forms, partial, None) else {
        panic!("Cranelift refused {forms:?}: {:?}", jit.last_refusal);
    };
    call(f, (regs, shared, global), (from, count, 0), mask)
}

/// Calls the compiled stretch `f` from `from` for `count` instructions and at most `edges` back
/// edges: how many ran. Its forms must name registers below REGS only.
pub(super) fn call(
    f: super::StretchFn,
    (regs, shared, global): (&mut [u64], &mut [u8], &mut Global),
    (from, count, edges): (usize, usize, u64),
    mask: u32,
) -> usize {
    assert!(shared.len() >= super::shared::ROOM);
    assert!(regs.len() >= REGS as usize * WARP);
    let mut env = super::global::Env::new(global);
    // SAFETY: every register the forms name is below REGS, and `regs` holds REGS rows; shared
    // memory is at least `ROOM` bytes; `env` holds global memory, which nothing else touches.
    unsafe {
        f(
            regs.as_mut_ptr(),
            from as u64,
            count as u64,
            u64::from(mask),
            shared.as_mut_ptr(),
            shared.len() as u64,
            &mut env,
            edges,
        ) as usize
    }
}

/// Runs `forms[from..from + count]` as the interpreter's straight run does: how many ran
/// before a load it declines.
fn interpreted(
    forms: &[Fast],
    (regs, shared, global): (&mut [u64], &mut [u8], &mut Global),
    mask: u32,
) -> usize {
    for (i, &f) in forms.iter().enumerate() {
        if f.is_mem() {
            let mem = Reach {
                global: &mut *global,
                shared,
            };
            if !unwatched(mem, regs, f, mask) {
                return i;
            }
        } else {
            exec(f, regs, mask);
        }
    }
    forms.len()
}

#[test]
fn compiled_stretches_leave_the_registers_the_fast_forms_leave() {
    let Some(mut jit) = Jit::new(0, true) else {
        eprintln!("no Cranelift backend for this host: nothing to compare");
        return;
    };
    let mut r = ChaCha8Rng::seed_from_u64(17);
    let shared: Vec<u8> = (0..SHARED).map(|_| r.gen()).collect();
    let mem = (shared, global_memory(&mut r));
    let mut global = 0;
    for trial in 0..3000 {
        let n = r.gen_range(1..10);
        let with_mem = trial % 2 == 1;
        let forms: Vec<Fast> = (0..n)
            .map(|_| match with_mem && r.gen_bool(0.4) {
                true => access(&mut r),
                false => form(&mut r),
            })
            .collect();
        let mask = match r.gen_range(0..3) {
            0 => u32::MAX,
            1 => r.gen(),
            _ => 1 << r.gen_range(0..32),
        };
        if let Compared::Global = compare(&mut jit, &mut r, (forms, mask), &mem, trial) {
            global += 1;
        }
    }
    // Compiled code moves global memory (the trials are seeded: 76 of them).
    assert!(global > 50, "only {global} trials moved global memory");
}

/// Accesses through one register checked once (`groups.rs`): mostly whole warps, at offsets
/// that put a group's window inside, or outside while some of its members are inside.
#[test]
fn accesses_through_one_register_stop_where_the_interpreter_stops() {
    let Some(mut jit) = Jit::new(0, true) else {
        return;
    };
    let mut r = ChaCha8Rng::seed_from_u64(29);
    let shared: Vec<u8> = (0..SHARED).map(|_| r.gen()).collect();
    let mem = (shared, global_memory(&mut r));
    let (mut moved, mut early) = (0, 0);
    for trial in 0..3000 {
        let n = r.gen_range(2..12);
        let forms: Vec<Fast> = (0..n)
            .map(|_| match r.gen_bool(0.75) {
                true => grouped_access(&mut r),
                false => form(&mut r),
            })
            .collect();
        let mask = match r.gen_range(0..4) {
            0 => r.gen(),
            _ => u32::MAX,
        };
        match compare(&mut jit, &mut r, (forms, mask), &mem, trial) {
            Compared::Moved => moved += 1,
            Compared::Early => early += 1,
            Compared::Other | Compared::Global => {}
        }
    }
    // Both ways are taken (the trials are seeded: 142 and 26 of them).
    assert!(moved > 120, "only {moved} trials moved a grouped access");
    assert!(
        early > 10,
        "only {early} trials stopped at a group's window"
    );
}

/// Runs the lowerable `forms` of a trial, with lanes `mask`, entered at a random instruction for a
/// random count on registers of addresses (with accesses) or values, compiled and interpreted:
/// registers, shared and global memory and the count run must agree, except that compiled code
/// may stop earlier, before a grouped access whose group's window is not inside
/// ([`window_fails`]).
fn compare(
    jit: &mut Jit,
    r: &mut ChaCha8Rng,
    (forms, mask): (Vec<Fast>, u32),
    (shared, global): &(Vec<u8>, Global),
    trial: usize,
) -> Compared {
    let fma = jit.fma;
    let forms: Vec<Fast> = forms
        .into_iter()
        .filter(|&f| super::lower::lowerable(f, fma, true))
        .collect();
    if forms.is_empty() {
        return Compared::Other;
    }
    let from = r.gen_range(0..forms.len());
    let count = r.gen_range(1..=forms.len() - from);
    let with_mem = forms.iter().any(|f| f.is_mem());
    let regs: Vec<u64> = (0..REGS as usize)
        .flat_map(|k| match (with_mem, r.gen_bool(0.7)) {
            (true, true) => address_row(r).map(|v| fit(k, v)),
            (true, false) => [(); WARP].map(|_| fit(k, address(r))),
            (false, _) => [(); WARP].map(|_| fit(k, value(r))),
        })
        .collect();
    // The interpreter runs no instruction for a warp without lanes.
    let mask = mask.max(1);
    let (mut got, mut got_mem, mut got_global) = (regs.clone(), shared.clone(), global.clone());
    let got_ran = compiled(
        jit,
        &forms,
        (&mut got, &mut got_mem, &mut got_global),
        (from, count),
        mask,
    );
    let (mut want, mut want_mem, mut want_global) = (regs.clone(), shared.clone(), global.clone());
    let mut ran = interpreted(
        &forms[from..from + count],
        (&mut want, &mut want_mem, &mut want_global),
        mask,
    );
    let what =
        format!("trial {trial}: {forms:?} from {from}, {count} instructions, mask {mask:#x}");
    let early = got_ran < ran;
    if early {
        (want, want_mem, want_global) = (regs.clone(), shared.clone(), global.clone());
        ran = interpreted(
            &forms[from..from + got_ran],
            (&mut want, &mut want_mem, &mut want_global),
            mask,
        );
        let at = from + got_ran;
        assert!(
            window_fails(&forms, at, &want, mask),
            "stopped early: {what}"
        );
    }
    assert_eq!(got_ran, ran, "{what}");
    assert_eq!(got, want, "{what}");
    assert!(
        zero_extended(&got),
        "a .b32 register not zero-extended: {what}"
    );
    assert!(got_mem == want_mem, "shared memory differs: {what}");
    for (g, w) in got_global.allocs.iter().zip(&want_global.allocs) {
        assert!(g.data == w.data, "global memory differs: {what}");
    }
    let (_, members) = super::groups::plan(&forms);
    let grouped = members[from..from + got_ran].iter().any(Option::is_some);
    let global_moved = forms[from..from + got_ran]
        .iter()
        .any(|&f| super::lower::MemAccess::of(f).is_some_and(|m| m.global));
    match (early, mask == u32::MAX && grouped) {
        (true, _) => Compared::Early,
        (false, true) => Compared::Moved,
        (false, false) if global_moved => Compared::Global,
        (false, false) => Compared::Other,
    }
}

/// What a trial of [`compare`] showed of groups: compiled code moved a grouped access, stopped
/// at a group whose window is not inside, or neither; and if neither, whether it moved global
/// memory.
enum Compared {
    Moved,
    Early,
    Global,
    Other,
}

/// Whether `forms[k]` is an access of a whole warp's group (`groups.rs`) whose window is not
/// inside for some lane: some member of the group, run in this call or not, would be declined
/// with the registers `regs` it reads (none writes the group's register between its members).
fn window_fails(forms: &[Fast], k: usize, regs: &[u64], mask: u32) -> bool {
    let (_, members) = super::groups::plan(forms);
    let Some(g) = members[k].filter(|_| mask == u32::MAX).map(|m| m.group) else {
        return false;
    };
    let declined = |f: Fast| {
        let a = super::lower::MemAccess::of(f).expect("a member is an access");
        let bytes = a.bytes as u64;
        (0..WARP).any(|lane| {
            let base = a.base.map_or(0, |r| regs[r as usize * WARP + lane]);
            let at = base.wrapping_add(a.off) & 0xffff_ffff;
            !at.is_multiple_of(bytes) || at + bytes > SHARED as u64
        })
    };
    (0..forms.len())
        .filter(|&j| members[j].is_some_and(|m| m.group == g))
        .any(|j| declined(forms[j]))
}

#[test]
fn every_form_kind_compiles() {
    let Some(mut jit) = Jit::new(0, true) else {
        return;
    };
    let mut r = ChaCha8Rng::seed_from_u64(3);
    for i in 0..500 {
        let f = match i % 5 {
            0 => access(&mut r),
            _ => form(&mut r),
        };
        if super::lower::lowerable(f, jit.fma, true) {
            for partial in [false, true] {
                assert!(
                    matches!(compile(&mut jit, &[f], partial, None), Code::Ready(_)),
                    "{f:?} (partial: {partial}): {:?}",
                    jit.last_refusal
                );
            }
        }
    }
}
