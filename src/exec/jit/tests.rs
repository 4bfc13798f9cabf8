//! The compiled code against the interpreter's fast forms: random stretches of every form with a
//! fragment, over register files of edge values and random bits, entered at a random
//! instruction for a random count, for a whole warp and for one with inactive lanes; every
//! register of every lane must come out as `fast::exec` leaves it, instruction by instruction.

use super::super::fast::{exec, FOp, Fast, IntOp, Key, Rel, Src, Widen};
use super::super::lanes::WARP;
use super::{compile, Code, Jit};
use crate::ir::mods::Cmp;
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

/// Runs `forms[from..from + count]` through compiled code.
fn compiled(
    jit: &mut Jit,
    forms: &[Fast],
    regs: &mut [u64],
    (from, count): (usize, usize),
    mask: u32,
) {
    let partial = mask != u32::MAX;
    let Code::Ready(f) = compile(jit, forms, partial) else {
        panic!("Cranelift refused {forms:?}: {:?}", jit.last_refusal);
    };
    // SAFETY: every register the forms name is below REGS, and `regs` holds REGS rows.
    unsafe {
        f(
            regs.as_mut_ptr(),
            from as u64,
            count as u64,
            u64::from(mask),
        )
    };
}

#[test]
fn compiled_stretches_leave_the_registers_the_fast_forms_leave() {
    let Some(mut jit) = Jit::new(0) else {
        eprintln!("no Cranelift backend for this host: nothing to compare");
        return;
    };
    let mut r = ChaCha8Rng::seed_from_u64(17);
    for trial in 0..1500 {
        let n = r.gen_range(1..10);
        let forms: Vec<Fast> = (0..n)
            .map(|_| form(&mut r))
            .filter(|&f| super::lower::lowerable(f, jit.fma))
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
        let regs: Vec<u64> = (0..REGS as usize * WARP).map(|_| value(&mut r)).collect();
        let mut want = regs.clone();
        for &f in &forms[from..from + count] {
            if mask != 0 {
                exec(f, &mut want, mask);
            }
        }
        let mut got = regs.clone();
        compiled(&mut jit, &forms, &mut got, (from, count), mask);
        assert_eq!(
            got, want,
            "trial {trial}: {forms:?} from {from}, {count} instructions, mask {mask:#x}"
        );
    }
}

#[test]
fn every_form_kind_compiles() {
    let Some(mut jit) = Jit::new(0) else {
        return;
    };
    let mut r = ChaCha8Rng::seed_from_u64(3);
    for _ in 0..400 {
        let f = form(&mut r);
        if super::lower::lowerable(f, jit.fma) {
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
