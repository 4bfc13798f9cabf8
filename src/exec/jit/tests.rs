//! The compiled code against the interpreter's fast forms: random stretches of every form with a
//! fragment and of shared-memory loads and stores, over register files of edge values, random
//! bits and addresses (inside, outside, misaligned, colliding), entered at a random instruction
//! for a random count, for a whole warp and for one with inactive lanes; every register of
//! every lane and every byte of shared memory must come out as `fast::exec` and `memfast.rs`
//! leave them, instruction by instruction, and the code must stop before the first access the
//! interpreter declines.

use super::super::fast::{exec, FOp, Fast, IntOp, Key, Rel, Src, Widen};
use super::super::lanes::WARP;
use super::super::memfast::{unwatched, Reach};
use super::{compile, Code, Jit};
use crate::ir::mods::Cmp;
use crate::mem::Global;
use rand::{Rng, SeedableRng};
use rand_chacha::ChaCha8Rng;

const REGS: u32 = 8;

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
fn value(r: &mut ChaCha8Rng) -> u64 {
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
        true => Src::Reg(r.gen_range(0..REGS)),
        false => {
            let v = value(r);
            Src::Imm(if width == 32 { v & 0xffff_ffff } else { v })
        }
    }
}

/// A random form with a fragment (every kind, every operator).
fn form(r: &mut ChaCha8Rng) -> Fast {
    let d = r.gen_range(0..REGS);
    let (s32, s64) = (
        |r: &mut ChaCha8Rng| src(r, 32),
        |r: &mut ChaCha8Rng| src(r, 64),
    );
    match r.gen_range(0..13) {
        0 => Fast::I32 {
            op: INT_OPS[r.gen_range(0..15)],
            d,
            a: s32(r),
            b: s32(r),
        },
        1 => Fast::I64 {
            op: INT_OPS[r.gen_range(0..15)],
            d,
            a: s64(r),
            b: s64(r),
        },
        2 => Fast::MulWide {
            signed: r.gen(),
            d,
            a: s32(r),
            b: s32(r),
        },
        3 => Fast::Mad32 {
            d,
            a: s32(r),
            b: s32(r),
            c: s32(r),
        },
        4 => Fast::Mad64 {
            d,
            a: s64(r),
            b: s64(r),
            c: s64(r),
        },
        5 => Fast::MadWide {
            signed: r.gen(),
            d,
            a: s32(r),
            b: s32(r),
            c: s64(r),
        },
        6 => {
            let key = [Key::S32, Key::U32, Key::S64, Key::U64][r.gen_range(0..4)];
            let rel = [Rel::Eq, Rel::Ne, Rel::Lt, Rel::Le, Rel::Gt, Rel::Ge][r.gen_range(0..6)];
            Fast::Setp {
                key,
                rel,
                d,
                a: s64(r),
                b: s64(r),
            }
        }
        7 => Fast::Selp {
            d,
            a: s64(r),
            b: s64(r),
            p: r.gen_range(0..REGS),
        },
        8 => Fast::Mov { d, a: s64(r) },
        9 => {
            let w = [Widen::Zext, Widen::Sext, Widen::Trunc][r.gen_range(0..3)];
            Fast::Cvt { w, d, a: s64(r) }
        }
        10 => {
            let op = [FOp::Add, FOp::Sub, FOp::Mul][r.gen_range(0..3)];
            Fast::F32 {
                op,
                d,
                a: s32(r),
                b: s32(r),
            }
        }
        11 => Fast::Fma32 {
            d,
            a: s32(r),
            b: s32(r),
            c: s32(r),
        },
        _ => Fast::SetpF32 {
            cmp: CMPS[r.gen_range(0..18)],
            d,
            a: s32(r),
            b: s32(r),
        },
    }
}

/// Bytes of the shared memory loads read in these tests.
const SHARED: usize = 256;

/// A random load or store of shared memory of a shape the JIT compiles, at a register (or none)
/// plus an offset that is mostly aligned and small.
fn access(r: &mut ChaCha8Rng) -> Fast {
    let (w, n) = [(4, 1), (4, 2), (4, 4), (8, 1), (8, 2)][r.gen_range(0..5)];
    let off = match r.gen_range(0..6) {
        0 => r.gen_range(0..SHARED as u64 + 32),
        1 => u64::MAX - 15,
        _ => r.gen_range(0..8) * 16,
    };
    let regs = [0; 4].map(|_| r.gen_range(0..REGS));
    let base = r.gen_bool(0.8).then(|| r.gen_range(0..REGS));
    let global = false;
    match r.gen_range(0..3) {
        0 => Fast::Ld {
            global,
            w,
            n,
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

/// Runs `forms[from..from + count]` through compiled code, loads reading `shared`: how many ran.
fn compiled(
    jit: &mut Jit,
    forms: &[Fast],
    (regs, shared): (&mut [u64], &mut [u8]),
    (from, count): (usize, usize),
    mask: u32,
) -> usize {
    let partial = mask != u32::MAX;
    let Code::Ready(f) = compile(jit, forms, partial) else {
        panic!("Cranelift refused {forms:?}: {:?}", jit.last_refusal);
    };
    assert!(shared.len() >= super::shared::ROOM);
    // SAFETY: every register the forms name is below REGS, and `regs` holds REGS rows; shared
    // memory is at least `ROOM` bytes.
    unsafe {
        f(
            regs.as_mut_ptr(),
            from as u64,
            count as u64,
            u64::from(mask),
            shared.as_mut_ptr(),
            shared.len() as u64,
        ) as usize
    }
}

/// Runs `forms[from..from + count]` as the interpreter's straight run does: how many ran
/// before a load it declines.
fn interpreted(forms: &[Fast], (regs, shared): (&mut [u64], &mut [u8]), mask: u32) -> usize {
    let mut global = Global::new();
    for (i, &f) in forms.iter().enumerate() {
        if f.is_mem() {
            let mem = Reach {
                global: &mut global,
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
    for trial in 0..3000 {
        let n = r.gen_range(1..10);
        let with_mem = trial % 2 == 1;
        let forms: Vec<Fast> = (0..n)
            .map(|_| match with_mem && r.gen_bool(0.4) {
                true => access(&mut r),
                false => form(&mut r),
            })
            .filter(|&f| super::lower::lowerable(f, jit.fma, true))
            .collect();
        if forms.is_empty() {
            continue;
        }
        let from = r.gen_range(0..forms.len());
        let count = r.gen_range(1..=forms.len() - from);
        let mask = match r.gen_range(0..3) {
            0 => u32::MAX,
            1 => r.gen(),
            _ => 1 << r.gen_range(0..32),
        };
        let regs: Vec<u64> = (0..REGS as usize * WARP)
            .map(|_| match with_mem {
                true => address(&mut r),
                false => value(&mut r),
            })
            .collect();
        // The interpreter runs no instruction for a warp without lanes.
        let mask = mask.max(1);
        let (mut want, mut want_mem) = (regs.clone(), shared.clone());
        let ran = interpreted(&forms[from..from + count], (&mut want, &mut want_mem), mask);
        let (mut got, mut got_mem) = (regs.clone(), shared.clone());
        let got_ran = compiled(
            &mut jit,
            &forms,
            (&mut got, &mut got_mem),
            (from, count),
            mask,
        );
        let what =
            format!("trial {trial}: {forms:?} from {from}, {count} instructions, mask {mask:#x}");
        assert_eq!(got_ran, ran, "{what}");
        assert_eq!(got, want, "{what}");
        assert!(got_mem == want_mem, "shared memory differs: {what}");
    }
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
                    matches!(compile(&mut jit, &[f], partial), Code::Ready(_)),
                    "{f:?} (partial: {partial}): {:?}",
                    jit.last_refusal
                );
            }
        }
    }
}
