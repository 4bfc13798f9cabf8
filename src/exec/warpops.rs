//! Warp-wide communication (PTX ISA 9.0 sections 9.7.9.6 `shfl.sync`, 9.7.13.7-13 `vote`,
//! `match`, `activemask`, `redux`, `elect`, 9.7.13.3 `bar.warp.sync`). A `.sync` operation waits
//! for every non-exited lane of its member mask to execute a `.sync` operation with that mask,
//! at any instruction (sm_70+ hardware rendezvous across program counters; nvcc's unrolled loops
//! rely on it). A group whose member lanes are elsewhere parks; when the parked groups cover
//! every member mask, they execute together: inputs gathered from each group's own instruction,
//! one result computed over all lanes, written back to each group.

use super::alu::sext;
use super::ctx::Ctx;
use super::fault::Res;
use super::lanes::{lanes, WARP};
use crate::ir::mods::SubOp;
use crate::ir::{Flags, Op, Operand, Type};

/// One lane's inputs: the value, the shuffle's lane/offset and clamp operands.
#[derive(Clone, Copy, Default)]
pub(crate) struct In {
    pub a: u64,
    pub b: u64,
    pub c: u64,
}

/// Index of the member-mask operand.
pub(crate) fn member_operand(op: Op, nops: usize) -> usize {
    match op {
        Op::BarWarpSync => 0,
        Op::Elect => 1,
        Op::Shfl => nops.saturating_sub(1),
        _ => 2,
    }
}

/// The lanes of this group by the member mask each names: every lane reads its own operand, so
/// lanes of one group can meet in different sets (the two 16-lane tiles of
/// `tiled_partition<16>` at one `redux.sync`). Matrix instructions, `activemask` and `vote`
/// without `.sync` are the whole warp's.
pub(crate) fn member_sets(cx: &Ctx<'_, '_>) -> Vec<(u32, u32)> {
    let whole = super::matrix::is_matrix(cx.ins.op)
        || cx.ins.op == Op::Activemask
        || (cx.ins.op == Op::Vote && !cx.ins.mods.has(Flags::SYNC));
    let k = member_operand(cx.ins.op, cx.ops.len());
    if whole || cx.ops.get(k).is_none() {
        return vec![(cx.active, u32::MAX)];
    }
    let mut sets: Vec<(u32, u32)> = Vec::new();
    for lane in lanes(cx.active) {
        let m = cx.src(k, lane, Type::B32) as u32;
        match sets.iter_mut().find(|s| s.1 == m) {
            Some(s) => s.0 |= 1 << lane,
            None => sets.push((1 << lane, m)),
        }
    }
    sets
}

/// Reads this group's inputs into `inputs`.
pub(crate) fn gather(cx: &Ctx<'_, '_>, inputs: &mut [In; WARP]) {
    let t = match cx.ins.op {
        Op::Vote => Type::Pred,
        _ => cx.ty(),
    };
    for lane in lanes(cx.active) {
        inputs[lane] = In {
            a: cx.src(1, lane, t),
            b: cx.src(2, lane, Type::B32),
            c: cx.src(3, lane, Type::B32),
        };
    }
}

/// Results per lane: the destination value and the predicate of a `d|p` pair.
pub(crate) type Out = [(u64, bool); WARP];

/// Computes an operation over the lanes `present` (each lane's member mask is `member`).
pub(crate) fn compute(
    op: Op,
    sub: Option<SubOp>,
    ty: Type,
    inputs: &[In; WARP],
    present: u32,
    member: u32,
) -> Out {
    let mut out = [(0u64, false); WARP];
    let set = present & member;
    // The instructions whose result is the same for every lane.
    let uniform = match op {
        Op::Shfl => return shfl(sub.unwrap_or(SubOp::Idx), inputs, present),
        Op::Match => return matched(sub, inputs, present, set),
        Op::Vote => vote(sub, inputs, set),
        Op::Redux => redux(sub, ty, inputs, set),
        Op::Activemask => u64::from(present),
        Op::Elect => {
            let leader = set.trailing_zeros() as usize;
            for lane in lanes(present) {
                out[lane] = (leader as u64, lane == leader);
            }
            return out;
        }
        _ => return out,
    };
    for lane in lanes(present) {
        out[lane] = (uniform, false);
    }
    out
}

/// `shfl.sync.{up,down,bfly,idx}`: each lane's source lane within its segment, and whether
/// that lane was in range (else the lane keeps its own value).
fn shfl(mode: SubOp, inputs: &[In; WARP], present: u32) -> Out {
    let mut out = [(0u64, false); WARP];
    for lane in lanes(present) {
        let In { b, c, .. } = inputs[lane];
        let b = (b & 0x1f) as i32;
        let cval = (c & 0x1f) as i32;
        let seg = ((c >> 8) & 0x1f) as i32;
        let l = lane as i32;
        let max_lane = (l & seg) | (cval & !seg);
        let min_lane = l & seg;
        let (j, pval) = match mode {
            SubOp::Up => (l - b, l - b >= max_lane),
            SubOp::Down => (l + b, l + b <= max_lane),
            SubOp::Bfly => (l ^ b, (l ^ b) <= max_lane),
            _ => {
                let j = min_lane | (b & !seg);
                (j, j <= max_lane)
            }
        };
        let j = if pval { j } else { l };
        out[lane] = (inputs[(j as usize) & 31].a, pval);
    }
    out
}

/// `vote.sync.{ballot,all,any,uni}` over the lanes of `set`.
fn vote(sub: Option<SubOp>, inputs: &[In; WARP], set: u32) -> u64 {
    let ballot = lanes(set)
        .filter(|&l| inputs[l].a != 0)
        .fold(0u32, |m, l| m | 1 << l);
    match sub {
        Some(SubOp::Ballot) => u64::from(ballot),
        Some(SubOp::All) => u64::from(ballot == set),
        Some(SubOp::Any) => u64::from(ballot != 0),
        Some(SubOp::Uni) => u64::from(ballot == set || ballot == 0),
        _ => 0,
    }
}

/// `match.sync.{any,all}`: the lanes of `set` holding each lane's value.
fn matched(sub: Option<SubOp>, inputs: &[In; WARP], present: u32, set: u32) -> Out {
    let mut out = [(0u64, false); WARP];
    let first = inputs[set.trailing_zeros() as usize & 31].a;
    let all_equal = lanes(set).all(|l| inputs[l].a == first);
    for lane in lanes(present) {
        out[lane] = match sub {
            Some(SubOp::All) => (if all_equal { u64::from(set) } else { 0 }, all_equal),
            _ => (
                u64::from(
                    lanes(set)
                        .filter(|&l| inputs[l].a == inputs[lane].a)
                        .fold(0u32, |m, l| m | 1 << l),
                ),
                false,
            ),
        };
    }
    out
}

/// `redux.sync` over the 32-bit values of the lanes of `set`.
fn redux(sub: Option<SubOp>, ty: Type, inputs: &[In; WARP], set: u32) -> u64 {
    let vals: Vec<u64> = lanes(set).map(|l| inputs[l].a & 0xffff_ffff).collect();
    let key = |v: u64| {
        if ty.is_signed() {
            sext(v, 32)
        } else {
            v as i64
        }
    };
    match sub {
        Some(SubOp::Add) => vals.iter().fold(0u64, |a, v| a.wrapping_add(*v)) & 0xffff_ffff,
        Some(SubOp::Min) => vals.iter().copied().min_by_key(|v| key(*v)).unwrap_or(0),
        Some(SubOp::Max) => vals.iter().copied().max_by_key(|v| key(*v)).unwrap_or(0),
        Some(SubOp::And) => vals.iter().fold(0xffff_ffff, |a, v| a & v),
        Some(SubOp::Or) => vals.iter().fold(0, |a, v| a | v),
        Some(SubOp::Xor) => vals.iter().fold(0, |a, v| a ^ v),
        _ => 0,
    }
}

/// Writes this group's results, for its lanes in `only`.
pub(crate) fn scatter(cx: &mut Ctx<'_, '_>, out: &Out, only: u32) {
    if cx.ins.op == Op::BarWarpSync {
        return;
    }
    for lane in lanes(cx.active & only) {
        let (d, p) = out[lane];
        match cx.ops.first().copied() {
            Some(Operand::Pair(a, b)) => {
                if let Some(a) = a {
                    cx.set_reg(a, lane, d);
                }
                if let Some(b) = b {
                    cx.set_reg(b, lane, u64::from(p));
                }
            }
            _ => cx.dst(0, lane, d),
        }
    }
}

/// Executes an operation whose lanes (and every lane of their member sets) are all in this
/// group: each set of lanes naming one member mask gets the result over that mask.
pub fn exec(cx: &mut Ctx<'_, '_>) -> Res<()> {
    let mut inputs = [In::default(); WARP];
    gather(cx, &mut inputs);
    for (only, member) in member_sets(cx) {
        let out = compute(
            cx.ins.op,
            cx.ins.mods.sub,
            cx.ty(),
            &inputs,
            cx.active,
            member,
        );
        scatter(cx, &out, only);
    }
    Ok(())
}
