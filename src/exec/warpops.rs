//! Warp-wide communication (PTX ISA 9.0 sections 9.7.9.6 `shfl.sync`, 9.7.13.7-13 `vote`,
//! `match`, `activemask`, `redux`, `elect`): values move between the lanes of the executing
//! group. Lanes named by a member mask but not executing with the group read as the value their
//! register holds (the ISA leaves this undefined).

use super::alu::sext;
use super::step::{lanes, Ctx, Res, WARP};
use crate::ir::mods::SubOp;
use crate::ir::{Flags, Op, Operand, Type};

pub fn exec(cx: &mut Ctx<'_, '_>) -> Res<()> {
    match cx.ins.op {
        Op::Shfl => shfl(cx),
        Op::Vote => vote(cx),
        Op::Match => matching(cx),
        Op::Redux => redux(cx),
        Op::Activemask => {
            let m = cx.active;
            for lane in lanes(cx.active) {
                cx.dst(0, lane, u64::from(m));
            }
            Ok(())
        }
        Op::Elect => {
            let member = member_mask(cx, 1);
            let leader = (cx.active & member).trailing_zeros() as usize;
            for lane in lanes(cx.active) {
                write_pair(cx, lane, leader as u64, lane == leader);
            }
            Ok(())
        }
        _ => Ok(()),
    }
}

fn member_mask(cx: &Ctx<'_, '_>, k: usize) -> u32 {
    let first = lanes(cx.active).next().unwrap_or(0);
    match cx.ops.get(k) {
        Some(_) => cx.src(k, first, Type::B32) as u32,
        None => u32::MAX,
    }
}

/// Writes `d` (and `p` of a `d|p` pair) for `lane`.
fn write_pair(cx: &mut Ctx<'_, '_>, lane: usize, d: u64, p: bool) {
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

fn shfl(cx: &mut Ctx<'_, '_>) -> Res<()> {
    let vals: Vec<u64> = (0..WARP).map(|l| cx.src(1, l, Type::B32)).collect();
    let mode = cx.ins.mods.sub.unwrap_or(SubOp::Idx);
    let mut out = Vec::new();
    for lane in lanes(cx.active) {
        let b = (cx.src(2, lane, Type::B32) & 0x1f) as i32;
        let c = cx.src(3, lane, Type::B32) as u32;
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
        out.push((lane, vals[(j as usize) & 31], pval));
    }
    for (lane, v, p) in out {
        write_pair(cx, lane, v, p);
    }
    Ok(())
}

fn vote(cx: &mut Ctx<'_, '_>) -> Res<()> {
    let member = if cx.ins.mods.has(Flags::SYNC) {
        member_mask(cx, 2)
    } else {
        u32::MAX
    };
    let set = cx.active & member;
    let mut ballot = 0u32;
    for lane in lanes(set) {
        if cx.src(1, lane, Type::Pred) != 0 {
            ballot |= 1 << lane;
        }
    }
    let r = match cx.ins.mods.sub {
        Some(SubOp::Ballot) => u64::from(ballot),
        Some(SubOp::All) => u64::from(ballot == set),
        Some(SubOp::Any) => u64::from(ballot != 0),
        Some(SubOp::Uni) => u64::from(ballot == set || ballot == 0),
        _ => 0,
    };
    for lane in lanes(cx.active) {
        cx.dst(0, lane, r);
    }
    Ok(())
}

fn matching(cx: &mut Ctx<'_, '_>) -> Res<()> {
    let t = cx.ty();
    let member = member_mask(cx, 2);
    let set = cx.active & member;
    let vals: Vec<u64> = (0..WARP).map(|l| cx.src(1, l, t)).collect();
    let all_equal = lanes(set).all(|l| vals[l] == vals[set.trailing_zeros() as usize]);
    for lane in lanes(cx.active) {
        match cx.ins.mods.sub {
            Some(SubOp::All) => {
                let d = if all_equal { u64::from(set) } else { 0 };
                write_pair(cx, lane, d, all_equal);
            }
            _ => {
                let same = lanes(set)
                    .filter(|&l| vals[l] == vals[lane])
                    .fold(0u32, |m, l| m | 1 << l);
                cx.dst(0, lane, u64::from(same));
            }
        }
    }
    Ok(())
}

fn redux(cx: &mut Ctx<'_, '_>) -> Res<()> {
    let t = cx.ty();
    let member = member_mask(cx, 2);
    let set = cx.active & member;
    let vals: Vec<u64> = lanes(set).map(|l| cx.src(1, l, t) & 0xffff_ffff).collect();
    let signed = t.is_signed();
    let key = |v: u64| {
        if signed {
            i64::from(sext(v, 32) as i32)
        } else {
            v as i64
        }
    };
    let r = match cx.ins.mods.sub {
        Some(SubOp::Add) => vals.iter().fold(0u64, |a, v| a.wrapping_add(*v)) & 0xffff_ffff,
        Some(SubOp::Min) => vals.iter().copied().min_by_key(|v| key(*v)).unwrap_or(0),
        Some(SubOp::Max) => vals.iter().copied().max_by_key(|v| key(*v)).unwrap_or(0),
        Some(SubOp::And) => vals.iter().fold(0xffff_ffff, |a, v| a & v),
        Some(SubOp::Or) => vals.iter().fold(0, |a, v| a | v),
        Some(SubOp::Xor) => vals.iter().fold(0, |a, v| a ^ v),
        _ => 0,
    };
    for lane in lanes(cx.active) {
        cx.dst(0, lane, r);
    }
    Ok(())
}
