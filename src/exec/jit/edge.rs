//! A loop's back edge in compiled code (issue 17; PTX ISA 9.0 section 9.7.12.1, `bra`). A
//! stretch whose next instruction is a `bra` back to one of its own instructions is a loop
//! body: the call of a whole warp's variant goes round it while every lane takes the branch
//! (unguarded, or its guard predicate true in all 32 lanes, or false with `@!`), the count
//! allows, and the straight run's [`EdgeRule`] lets the edge pass without `stuck::back_edge`
//! (hang detection samples a warp's state at some back edges; those the interpreter takes).
//! The branch counts as one instruction, as `straight.rs` counts a uniform branch; the caller
//! learns where the call stopped and how many edges it took from the count alone ([`Lap`]).
//! Without this, every quantum that crossed a loop's back edge left compiled code, ran the
//! branch through the interpreter and entered again.
//!
//! A stretch with loads or stores never loops here (its calls report the last store by
//! position in the stretch), nor does a warp with inactive lanes (its branch may diverge).

use super::super::spin::EdgeRule;
use super::lower::ROW;
use crate::ir::{Guard, Instr, Op, Operand};
use cranelift_codegen::ir::condcodes::IntCC;
use cranelift_codegen::ir::types::{I64, I64X2};
use cranelift_codegen::ir::{Block, InstBuilder, MemFlagsData, Value};
use cranelift_frontend::{FunctionBuilder, Variable};

/// The branch that closes a stretch into a loop: `bra` to the stretch's instruction `target`
/// (counted from its start), with the branch's guard, if any.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) struct Edge {
    pub target: u32,
    pub guard: Option<Guard>,
}

impl Edge {
    /// The back edge closing the stretch `start..end` of `code` (operands in `operands`), if
    /// the instruction at `end` is one.
    pub(super) fn of(
        code: &[Instr],
        operands: &[Operand],
        start: usize,
        end: usize,
    ) -> Option<Edge> {
        let ins = code.get(end)?;
        if ins.op != Op::Bra {
            return None;
        }
        let first = ins.ops.start as usize;
        let ops = operands.get(first..first + usize::from(ins.ops.len))?;
        let Some(&Operand::Label(t)) = ops.first() else {
            return None;
        };
        let t = t as usize;
        (start..end).contains(&t).then(|| Edge {
            target: (t - start) as u32,
            guard: ins.guard,
        })
    }
}

/// One call of a looping stretch of `len` instructions, entered at its instruction `from`,
/// whose back edge goes to `target`: the branch is the call's `first()`-th instruction, and
/// then one in every `period()`.
#[derive(Debug, Clone, Copy)]
pub(super) struct Lap {
    pub from: usize,
    pub len: usize,
    pub target: usize,
}

impl Lap {
    fn first(&self) -> u64 {
        (self.len - self.from) as u64 + 1
    }

    fn period(&self) -> u64 {
        (self.len - self.target) as u64 + 1
    }

    /// How many edges the call may take, its first instruction being the straight run's
    /// `done + 1`-th, under `rule`.
    pub fn allowed(&self, rule: &EdgeRule, done: u64) -> u64 {
        rule.allowed(done + self.first(), self.period())
    }

    /// After the call ran `ran` instructions (its first the run's `done + 1`-th): where it
    /// stopped (an index in the stretch; `len` is the branch), and how many of the edges it
    /// took `rule` counts.
    pub fn after(&self, rule: &EdgeRule, done: u64, ran: usize) -> (usize, u64) {
        let rest = self.len - self.from;
        if ran <= rest {
            return (self.from + ran, 0);
        }
        let (q, p) = ((ran - rest - 1) as u64, self.period());
        let edges = 1 + q / p;
        let at = self.target + (q % p) as usize;
        (at, rule.counted(done + self.first(), p, edges))
    }
}

/// Emits, at the builder's position (after the stretch's last instruction, its count taken
/// from `left`), the back edge `e`: counted as one more instruction and edge when an
/// instruction is left, fewer than `max` edges were taken and every lane takes the branch, then
/// on to `head` (the target's code) if the count allows more; else to `exit`, the branch not
/// run.
pub(super) fn emit(
    b: &mut FunctionBuilder<'_>,
    regs: Value,
    (left, edges, max): (Variable, Variable, Value),
    e: Edge,
    (head, exit): (Block, Block),
) {
    let n = b.use_var(left);
    let room = b.create_block();
    b.ins().brif(n, room, &[], exit, &[]);
    b.switch_to_block(room);
    let k = b.use_var(edges);
    let under = b.ins().icmp(IntCC::UnsignedLessThan, k, max);
    let check = b.create_block();
    b.ins().brif(under, check, &[], exit, &[]);
    b.switch_to_block(check);
    let go = b.create_block();
    match e.guard {
        Some(g) => {
            let all = every_lane_takes(b, regs, g.reg.0, g.negated);
            b.ins().brif(all, go, &[], exit, &[]);
        }
        None => {
            b.ins().jump(go, &[]);
        }
    }
    b.switch_to_block(go);
    let n = b.ins().iadd_imm_s(n, -1);
    b.def_var(left, n);
    let k = b.ins().iadd_imm_s(k, 1);
    b.def_var(edges, k);
    // The branch may have been the count's last instruction.
    b.ins().brif(n, head, &[], exit, &[]);
}

/// Whether all 32 lanes of predicate register `r` let the branch be taken (a lane takes it when
/// its predicate is not zero, or, `negated`, when it is): no lane refuses.
fn every_lane_takes(b: &mut FunctionBuilder<'_>, regs: Value, r: u32, negated: bool) -> Value {
    let flags = MemFlagsData::new().with_notrap();
    let zero = b.ins().iconst(I64, 0);
    let zero = b.ins().splat(I64X2, zero);
    let mut refuse: Option<Value> = None;
    for pair in 0..16 {
        let v = b.ins().load(I64X2, flags, regs, r as i32 * ROW + pair * 16);
        // A lane refuses with a zero predicate, or a non-zero one under `@!`.
        let no = match negated {
            true => v,
            false => b.ins().icmp(IntCC::Equal, v, zero),
        };
        refuse = Some(match refuse {
            Some(acc) => b.ins().bor(acc, no),
            None => no,
        });
    }
    let any = b.ins().vany_true(refuse.unwrap_or(zero));
    b.ins().icmp_imm_u(IntCC::Equal, any, 0)
}
