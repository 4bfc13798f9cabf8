//! Compiled loops against the interpreter's straight run (`edge.rs`): random loop bodies of
//! every form with a fragment, closed by a `bra` guarded by a predicate that a `setp` at the end
//! of the body computes from a per-lane counter (the same in every lane, or not: then the lanes
//! diverge and the branch is the interpreter's), entered at a random instruction for a random
//! count with a random allowance of back edges. Registers, the count run, where the call
//! stopped and the edges it took must come out as running the body instruction by instruction,
//! the branch taken only when every lane takes it, and only while edges are allowed.

use super::super::fast::{exec, Fast, IntOp, Key, Rel, Src};
use super::super::lanes::WARP;
use super::super::spin::EdgeRule;
use super::edge::{Edge, Lap};
use super::tests::{call, fit, form, value, zero_extended, REGS};
use super::{compile, Code, Jit};
use crate::ir::{Guard, RegId};
use crate::mem::Global;
use rand::{Rng, SeedableRng};
use rand_chacha::ChaCha8Rng;

/// The counter and the predicate the loop's branch reads; the random forms write neither.
const COUNTER: u32 = 0;
const PRED: u32 = REGS - 1;

/// A loop body: random forms, then the counter stepped down and the predicate set from it.
fn body(r: &mut ChaCha8Rng, fma: bool, negated: bool) -> Vec<Fast> {
    let n = r.gen_range(0..8);
    let mut forms: Vec<Fast> = (0..n)
        .map(|_| form(r))
        .filter(|&f| super::lower::lowerable(f, fma, false))
        .filter(|&f| !matches!(super::lower::sources(f).1, Some(COUNTER | PRED)))
        .collect();
    forms.push(Fast::I32 {
        op: IntOp::Add,
        d: COUNTER,
        a: Src::Reg(COUNTER),
        b: Src::Imm(0xffff_ffff),
    });
    // `@%p bra` loops while the counter is not zero; `@!%p bra` while it is not zero either.
    let rel = if negated { Rel::Eq } else { Rel::Ne };
    forms.push(Fast::Setp {
        key: Key::U32,
        rel,
        d: PRED,
        a: Src::Reg(COUNTER),
        b: Src::Imm(0),
    });
    forms
}

/// Runs the loop `forms` (back edge to `target`, guard `negated` or not) instruction by
/// instruction from `from` for at most `count`, taking at most `max` edges: how many ran, where
/// it stopped (`forms.len()`: at the branch) and the edges taken.
fn interpreted(
    forms: &[Fast],
    (target, negated): (usize, bool),
    regs: &mut [u64],
    (from, count, max): (usize, usize, u64),
) -> (usize, usize, u64) {
    let (mut pc, mut ran, mut edges) = (from, 0, 0);
    while ran < count {
        if pc == forms.len() {
            let row = &regs[PRED as usize * WARP..][..WARP];
            let all = row.iter().all(|&p| (p != 0) != negated);
            if edges == max || !all {
                break;
            }
            (pc, edges) = (target, edges + 1);
        } else {
            exec(forms[pc], regs, u32::MAX);
            pc += 1;
        }
        ran += 1;
    }
    (ran, pc, edges)
}

#[test]
fn compiled_loops_take_the_back_edges_the_interpreter_takes() {
    let Some(mut jit) = Jit::new(0, false) else {
        eprintln!("no Cranelift backend for this host: nothing to compare");
        return;
    };
    let mut r = ChaCha8Rng::seed_from_u64(41);
    let (mut looped, mut diverged, mut capped) = (0, 0, 0);
    for trial in 0..1500 {
        let negated = r.gen();
        let forms = body(&mut r, jit.fma, negated);
        let target = r.gen_range(0..forms.len());
        let edge = Edge {
            target: target as u32,
            guard: Some(Guard {
                reg: RegId(PRED),
                negated,
            }),
        };
        let Code::Ready(f) = compile(&mut jit, &forms, false, Some(edge)) else {
            panic!("Cranelift refused {forms:?}: {:?}", jit.last_refusal);
        };
        let mut regs: Vec<u64> = (0..REGS as usize * WARP)
            .map(|k| fit(k / WARP, value(&mut r)))
            .collect();
        // The counter: one small count for every lane, or (rarely) one lane's differs.
        let n = r.gen_range(1..6u64);
        for lane in 0..WARP {
            regs[COUNTER as usize * WARP + lane] = n;
        }
        if r.gen_bool(0.2) {
            regs[COUNTER as usize * WARP + r.gen_range(0..WARP)] = n + 1;
        }
        let from = r.gen_range(0..forms.len());
        let count = r.gen_range(1..120);
        let max = [0, 1, 2, u64::MAX][r.gen_range(0..4)];
        let mut want = regs.clone();
        let (ran, at, edges) =
            interpreted(&forms, (target, negated), &mut want, (from, count, max));
        let (mut global, mut shared) = (Global::default(), vec![0u8; super::shared::ROOM]);
        let mem = (&mut regs[..], &mut shared[..], &mut global);
        let got = call(f, mem, (from, count, max), u32::MAX);
        assert_eq!(
            got, ran,
            "trial {trial}: {forms:?} from {from} count {count} max {max}"
        );
        assert!(regs == want, "trial {trial}: registers differ");
        assert!(
            zero_extended(&regs),
            "trial {trial}: a .b32 register widened"
        );
        let lap = Lap {
            from,
            len: forms.len(),
            target,
        };
        assert_eq!(
            lap.after(&EdgeRule::NONE, 0, got),
            (at, 0),
            "trial {trial}: where it stopped"
        );
        looped += usize::from(edges > 0);
        diverged += usize::from(at == forms.len() && ran < count && edges < max);
        capped += usize::from(edges == max && max > 0 && ran < count);
    }
    // The trials are seeded: each way out happens.
    assert!(
        looped > 300 && diverged > 100 && capped > 50,
        "{looped} {diverged} {capped}"
    );
}
