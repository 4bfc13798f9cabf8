//! Control flow and CTA barriers (PTX ISA 9.0 sections 9.7.12 "Control Flow Instructions" and
//! 9.7.13.1 "bar, barrier"): branches split a group by its guard, calls push a frame with its own
//! registers and parameter space, `ret`/`exit` retire lanes, `bar.sync` parks a group until the
//! barrier's thread count is reached (exited threads count as arrived).

use super::fault::FaultKind;
use super::fault::{fault, Res};
use super::lanes::{lanes, WARP};
use super::layout::{func_of, Layout};
use super::machine::{Machine, WarpRef};
use super::warp::{
    branch, branch_to, expected, split, two, Cluster, Cta, RetRec, Wait, Warp, MAX_CALL_DEPTH,
};
use crate::ir::{FuncId, Function, Instr, Module, Op, Operand, Symbol};

/// A control-flow instruction or barrier executed by the group of `w`.
#[inline]
pub(crate) fn control<'m>(mc: &mut Machine<'m>, cl: &mut Cluster, w: WarpRef<'m>) -> Res<()> {
    match w.ins.op {
        // The most frequent by far (every loop's back-edge): kept out of the large function.
        Op::Bra => bra(mc, cl, w),
        _ => other(mc, cl, w),
    }
}

/// `bra` to a label: the active lanes go to it, the others on; a backward branch taken is
/// where spin loops are sampled (`stuck.rs`).
fn bra<'m>(mc: &mut Machine<'m>, cl: &mut Cluster, w: WarpRef<'m>) -> Res<()> {
    let ((ci, wi, gi), active) = (w.at(), w.active);
    let Some(Operand::Label(target)) = w.func.ops(w.ins).first().copied() else {
        return Err(fault(
            FaultKind::Unsupported,
            "branch without a label target",
        ));
    };
    let pc = cl.ctas[ci].warps[wi].groups[gi].pc;
    branch_to(&mut cl.ctas[ci], wi, gi, active, target);
    if target <= pc && active != 0 {
        super::stuck::back_edge(mc, cl, (ci, wi), pc, target)?;
    }
    Ok(())
}

/// Every control instruction but `bra`.
fn other<'m>(mc: &mut Machine<'m>, cl: &mut Cluster, w: WarpRef<'m>) -> Res<()> {
    let ((ci, wi, gi), ins, func, active) = (w.at(), w.ins, w.func, w.active);
    let cta = &mut cl.ctas[ci];
    let ops = func.ops(ins);
    // Only the pc, mask and frame of the group: cloning it (its call stack, its timeouts)
    // costs more than most of these instructions.
    let g = &cta.warps[wi].groups[gi];
    let (pc, mask, frame) = (g.pc, g.mask, g.frame);
    match ins.op {
        Op::BrxIdx => {
            let Some(Operand::Targets(t)) = ops.get(1).copied() else {
                return Err(fault(
                    FaultKind::Unsupported,
                    "brx.idx needs a .branchtargets list",
                ));
            };
            let (_, range) = func.target_lists[t as usize].clone();
            let targets = func.sub_ops(range);
            let frame = &cta.warps[wi].frames[frame as usize];
            let mut per_lane = [0u32; WARP];
            for lane in lanes(active) {
                let idx = match ops[0] {
                    Operand::Reg(r) => frame.regs[r.0 as usize * WARP + lane],
                    Operand::Imm(v) => v as u64,
                    _ => 0,
                };
                match targets.get(idx as usize) {
                    Some(Operand::Label(l)) => per_lane[lane] = *l,
                    _ => {
                        return Err(fault(
                            FaultKind::Trap,
                            format!(
                                "brx.idx index {idx} is outside its {} targets",
                                targets.len()
                            ),
                        ))
                    }
                }
            }
            branch(cta, wi, gi, active, |lane| per_lane[lane]);
        }
        Op::Exit => retire(mc, cl, ci, wi, gi, active)?,
        Op::Ret => {
            if active != 0 {
                if active != mask {
                    split(cta, wi, gi, active, pc + 1);
                }
                let gi = cta.warps[wi]
                    .groups
                    .iter()
                    .position(|x| x.mask == active && x.pc == pc)
                    .unwrap_or(gi);
                do_ret(mc, cl, ci, wi, gi, active)?;
            } else {
                cta.warps[wi].groups[gi].pc += 1;
            }
        }
        Op::Trap | Op::Brkpt if active != 0 => {
            return Err(fault(
                FaultKind::Trap,
                format!("`{}` executed", ins.op.name()),
            ));
        }
        Op::Trap | Op::Brkpt | Op::BarWarpSync => cta.warps[wi].groups[gi].pc += 1,
        Op::Call => call(mc, cl, w)?,
        Op::Bar | Op::Barrier => barrier(mc, cta, wi, gi, ins, func)?,
        _ => cta.warps[wi].groups[gi].pc += 1,
    }
    Ok(())
}

/// When the last warp of a warpgroup exits: every warp must have executed the same
/// warpgroup-aligned instructions (a warp that skipped one is `divergent-aligned` there).
fn warpgroup_done(cta: &Cta, wi: usize) -> Res<()> {
    let group = cta.warps[wi].index as usize / 4;
    let Some(log) = cta.warpgroups.get(group) else {
        return Ok(());
    };
    let members = cta.warps.iter().filter(|w| w.index as usize / 4 == group);
    if members.clone().any(|w| !w.groups.is_empty()) {
        return Ok(());
    }
    match log.finished() {
        None => Ok(()),
        Some((site, lag)) => {
            let thread = (group * 4 + lag) as u32 * super::lanes::WARP as u32;
            let why = format!("warp {lag} of the warpgroup exited without executing it");
            Err(super::fault::warpgroup_fault(site, thread, why))
        }
    }
}

/// `exit`, or `ret` from the kernel: the lanes are done.
fn retire<'m>(
    mc: &mut Machine<'m>,
    cl: &mut Cluster,
    ci: usize,
    wi: usize,
    gi: usize,
    active: u32,
) -> Res<()> {
    let cta = &mut cl.ctas[ci];
    let warp = &mut cta.warps[wi];
    let exit_at = (
        warp.frames[warp.groups[gi].frame as usize].func,
        warp.groups[gi].pc,
    );
    warp.groups[gi].mask &= !active;
    if warp.groups[gi].mask == 0 {
        warp.groups.remove(gi);
    } else {
        warp.groups[gi].pc += 1;
    }
    warp.exited |= active;
    let warp_done = warp.groups.is_empty();
    cta.exited += active.count_ones();
    let cta_done = cta.exited >= cta.nthreads;
    if cta_done {
        if let Some(s) = cl.smem.get_mut(cta.rank as usize) {
            s.exited = true;
        }
    }
    if let Some(hb) = mc.hb.as_mut() {
        hb.exit(cta.rank, warp.index);
        if cta_done {
            let cta = &cl.ctas[ci];
            let site = super::hazard::Site {
                func: exit_at.0 .0,
                pc: exit_at.1,
                rank: cta.rank,
                cta: cta.id,
                warp: cta.warps[wi].index,
                lane: active.trailing_zeros(),
            };
            let cluster = mc.grid.cluster_ctas() > 1;
            // Its own asynchronous operations, and its peers', may still use its memory.
            hb.ops_at_exit(&mc.engine, site, cluster);
            if cluster {
                let mut ids = vec![[0u32; 3]; cl.ctas.len()];
                for c in &cl.ctas {
                    if let Some(slot) = ids.get_mut(c.rank as usize) {
                        *slot = c.id;
                    }
                }
                hb.cta_exited(site, &ids);
            }
        }
    }
    let cta = &mut cl.ctas[ci];
    // Exited threads count as arrived: a barrier may now be complete.
    for b in 0..cta.bars.len() as u8 {
        let all = cta.bars[b as usize].expected == 0;
        let released = try_release(mc.m, cta, b);
        mc.woken += u64::from(!released.is_empty());
        if let (Some(hb), false) = (mc.hb.as_mut(), released.is_empty()) {
            hb.bar_release(cta.rank, b as usize, &released, all);
        }
    }
    if mc.trace.enabled && warp_done {
        let w = &cta.warps[wi];
        mc.trace.push(crate::trace::Event {
            cycle: w.clock,
            cta: cta.id,
            warp: Some(w.index),
            lanes: w.exited,
            line: 0,
            cuda: None,
            what: crate::trace::What::WarpExit,
        });
    }
    if warp_done {
        warpgroup_done(&cl.ctas[ci], wi)?;
    }
    // Exited threads no longer hold up the cluster barrier or a warp-synchronous rendezvous.
    mc.progress += 1;
    super::mbarops::release_cluster_barrier(mc, cl);
    super::collective::rendezvous(mc, cl, ci, wi)?;
    Ok(())
}

pub(crate) fn do_ret<'m>(
    mc: &mut Machine<'m>,
    cl: &mut Cluster,
    ci: usize,
    wi: usize,
    gi: usize,
    active: u32,
) -> Res<()> {
    let g = cl.ctas[ci].warps[wi].groups[gi].clone();
    let Some(rec) = g.stack.last().cloned() else {
        return retire(mc, cl, ci, wi, gi, active);
    };
    let cta = &mut cl.ctas[ci];
    let warp = &mut cta.warps[wi];
    let callee = g.frame as usize;
    let caller = rec.frame as usize;
    // Copy return values into the caller's `retval` variables.
    if let Some(range) = rec.rets {
        let cf = &mc.m.functions[warp.frames[caller].func.0 as usize];
        let targets: Vec<Operand> = cf.sub_ops(range).to_vec();
        let callee_fid = warp.frames[callee].func.0 as usize;
        for (i, t) in targets.iter().enumerate() {
            let Some(&src_off) = mc.layout.ret_off[callee_fid].get(i) else {
                continue;
            };
            let size = mc.m.functions[callee_fid].rets[i].size as usize;
            let dst_off = match *t {
                Operand::Sym(Symbol::Var(v), k) => {
                    mc.layout.var_addr[v.0 as usize] as usize + k as usize
                }
                _ => continue,
            };
            for lane in lanes(active) {
                let (a, b) = two(&mut warp.frames, callee, caller);
                let src = lane * a.param_size + src_off as usize;
                let dst = lane * b.param_size + dst_off;
                if src + size <= a.params.len() && dst + size <= b.params.len() {
                    b.params[dst..dst + size].copy_from_slice(&a.params[src..src + size]);
                }
            }
        }
    }
    let grp = &mut warp.groups[gi];
    grp.stack.pop();
    grp.frame = rec.frame;
    grp.pc = rec.pc;
    // Free the callee's frame once no group uses it.
    let still_used = warp
        .groups
        .iter()
        .any(|x| x.frame as usize == callee || x.stack.iter().any(|r| r.frame as usize == callee));
    if !still_used {
        let fr = &mut warp.frames[callee];
        fr.live = false;
        if fr.local_base + fr.local_size == warp.local_top {
            warp.local_top = fr.local_base;
        }
    }
    Ok(())
}

/// `call`: a builtin (a function declared, not defined: `printf.rs`), or a new frame for the
/// callee with the arguments copied in; lanes calling different functions through a register
/// call one after another.
fn call<'m>(mc: &mut Machine<'m>, cl: &mut Cluster, w: WarpRef<'m>) -> Res<()> {
    let WarpRef {
        ci,
        wi,
        gi,
        ins,
        func,
        mut active,
    } = w;
    let cta = &mut cl.ctas[ci];
    let g = cta.warps[wi].groups[gi].clone();
    if active == 0 {
        cta.warps[wi].groups[gi].pc += 1;
        return Ok(());
    }
    if active != g.mask {
        split(cta, wi, gi, active, g.pc + 1);
    }
    // Which operands are the returns, the target and the arguments was decoded at load.
    let form = func
        .form(g.pc)
        .call()
        .map_err(|why| fault(FaultKind::Unsupported, format!("`call`: {why}")))?;
    let target_op = func.ops(ins).get(usize::from(form.target));
    let target = call_target(mc.m, cta, (wi, gi), target_op, &mut active)?;
    let callee = &mc.m.functions[target.0 as usize];
    let ret_range = form.rets;
    let arg_ops: &[Operand] = form.args.map_or(&[], |r| func.sub_ops(r));
    if !callee.defined {
        let w = w.with_active(active);
        return super::printf::builtin(mc, cl, w, callee, arg_ops, ret_range);
    }
    if g.stack.len() >= MAX_CALL_DEPTH {
        return Err(fault(
            FaultKind::Memory,
            format!("calls nested deeper than {MAX_CALL_DEPTH} (runaway recursion?)"),
        ));
    }
    let warp = &mut cta.warps[wi];
    let gi = warp
        .groups
        .iter()
        .position(|x| x.mask == active && x.pc == g.pc)
        .unwrap_or(gi);
    let new = mc.new_frame_for(warp, target)?;
    let frames = (g.frame as usize, new as usize);
    copy_args(&mc.layout, warp, frames, (target, callee), arg_ops, active);
    let grp = &mut warp.groups[gi];
    grp.stack.push(RetRec {
        frame: g.frame,
        pc: g.pc + 1,
        rets: ret_range,
    });
    grp.frame = new;
    grp.pc = 0;
    Ok(())
}

/// The function a call of group `gi` of warp `wi` reaches: a symbol, or a register's address.
/// Lanes calling different functions through a register: those calling the first lane's call
/// now (`active` shrinks to them), the others stay at the call and make theirs next (the warp
/// serialises the targets).
fn call_target(
    m: &Module,
    cta: &mut Cta,
    (wi, gi): (usize, usize),
    target: Option<&Operand>,
    active: &mut u32,
) -> Res<FuncId> {
    match target {
        Some(Operand::Sym(Symbol::Func(f), _)) => Ok(*f),
        Some(Operand::Reg(r)) => {
            let g = &cta.warps[wi].groups[gi];
            let (frame, pc) = (g.frame as usize, g.pc);
            let regs = &cta.warps[wi].frames[frame].regs;
            let reg = r.0 as usize;
            let first = regs[reg * WARP + lanes(*active).next().unwrap_or(0)];
            let same = lanes(*active)
                .filter(|&l| regs[reg * WARP + l] == first)
                .fold(0u32, |m, l| m | 1 << l);
            if same != *active {
                split(cta, wi, gi, same, pc);
                *active = same;
            }
            func_of(first, m).ok_or_else(|| {
                fault(
                    FaultKind::Memory,
                    format!("indirect call through {first:#x}, which is no function"),
                )
            })
        }
        _ => Err(fault(
            FaultKind::Unsupported,
            "call without a function target",
        )),
    }
}

/// Copies the arguments `args` from the caller's frame (its param variables, registers or
/// immediates) into the parameters of the callee's new frame, for the lanes of `active`.
fn copy_args(
    layout: &Layout,
    warp: &mut Warp,
    (caller, new): (usize, usize),
    (target, callee): (FuncId, &Function),
    args: &[Operand],
    active: u32,
) {
    for (i, a) in args.iter().enumerate() {
        let Some(&dst_off) = layout.param_off[target.0 as usize].get(i) else {
            break;
        };
        let size = callee.params[i].size as usize;
        for lane in lanes(active) {
            let (src_frame, dst_frame) = two(&mut warp.frames, caller, new);
            let bytes: Vec<u8> = match *a {
                Operand::Sym(Symbol::Var(v), k) => {
                    let off = lane * src_frame.param_size
                        + layout.var_addr[v.0 as usize] as usize
                        + k as usize;
                    src_frame
                        .params
                        .get(off..off + size)
                        .map(<[u8]>::to_vec)
                        .unwrap_or_default()
                }
                Operand::Reg(r) => {
                    src_frame.regs[r.0 as usize * WARP + lane].to_le_bytes()[..size.min(8)].to_vec()
                }
                Operand::Imm(v) => v.to_le_bytes()[..size.min(8)].to_vec(),
                _ => Vec::new(),
            };
            let off = lane * dst_frame.param_size + dst_off as usize;
            if let Some(d) = dst_frame.params.get_mut(off..off + bytes.len()) {
                d.copy_from_slice(&bytes);
            }
        }
    }
}

fn barrier<'m>(
    mc: &mut Machine<'m>,
    cta: &mut Cta,
    wi: usize,
    gi: usize,
    ins: &Instr,
    func: &'m Function,
) -> Res<()> {
    use crate::ir::mods::SubOp;
    let ops = func.ops(ins);
    let g = &cta.warps[wi].groups[gi];
    let (pc, mask, frame) = (g.pc, g.mask, g.frame);
    // Which operands are the barrier and the thread count was decoded at load.
    let form = func.form(pc).bar().map_err(|why| {
        fault(
            FaultKind::Unsupported,
            format!("`{}`: {why}", ins.op.name()),
        )
    })?;
    let frame = &cta.warps[wi].frames[frame as usize];
    let first = lanes(mask).next().unwrap_or(0);
    let val = |o: Option<&Operand>| -> Option<u64> {
        match o? {
            Operand::Reg(r) => Some(frame.regs[r.0 as usize * WARP + first]),
            Operand::Imm(v) => Some(*v as u64),
            _ => None,
        }
    };
    let id = val(ops.get(usize::from(form.id))).unwrap_or(0);
    if id as usize >= cta.bars.len() {
        return Err(fault(
            FaultKind::Trap,
            format!("barrier {id} does not exist (0 to 15)"),
        ));
    }
    let count = form
        .count
        .and_then(|k| val(ops.get(usize::from(k))))
        .unwrap_or(0) as u32;
    if let Some(hb) = mc.hb.as_mut() {
        check_arrival(hb, cta, (wi, &cta.warps[wi].groups[gi]), id, count);
    }
    let b = &mut cta.bars[id as usize];
    if count != 0 && !count.is_multiple_of(32) {
        return Err(fault(
            FaultKind::Trap,
            format!("barrier thread count {count} is not a multiple of 32"),
        ));
    }
    if b.arrived == 0 {
        b.expected = count;
        b.popc = 0;
        b.all = true;
        b.any = false;
    }
    b.arrived += mask.count_ones();
    if let (true, Some(c)) = (form.red, ops.last()) {
        vote(b, c, frame, mask);
    }
    if ins.mods.sub == Some(SubOp::Arrive) {
        cta.warps[wi].groups[gi].pc += 1;
    } else {
        cta.warps[wi].groups[gi].wait = Wait::Bar(id as u8);
    }
    let all = cta.bars[id as usize].expected == 0;
    let released = try_release(mc.m, cta, id as u8);
    mc.woken += u64::from(!released.is_empty());
    if let (Some(hb), false) = (mc.hb.as_mut(), released.is_empty()) {
        hb.bar_release(cta.rank, id as usize, &released, all);
    }
    Ok(())
}

/// For the checker, group `g` of warp `wi` arriving at barrier `id` for `count` threads: a count
/// unlike the one the barrier's current phase started with is `barrier-misuse`.
fn check_arrival(
    hb: &mut super::hazard::Checker,
    cta: &Cta,
    (wi, g): (usize, &super::warp::Group),
    id: u64,
    count: u32,
) {
    let b = &cta.bars[id as usize];
    let w = &cta.warps[wi];
    let site = super::hazard::Site {
        func: w.frames[g.frame as usize].func.0,
        pc: g.pc,
        rank: cta.rank,
        cta: cta.id,
        warp: w.index,
        lane: g.mask.trailing_zeros().min(31),
    };
    if b.arrived > 0 && b.expected != count {
        let show = |n: u32| {
            if n == 0 {
                "all threads of the CTA".to_string()
            } else {
                format!("{n} threads")
            }
        };
        hb.report(
            crate::check::HazardKind::BarrierMisuse,
            site,
            format!(
                "barrier {id} is awaited for {} here, but its current phase was started for {}",
                show(count),
                show(b.expected)
            ),
            "every thread that arrives at one phase of a named barrier must give the same thread count",
            format!("barrier {id}"),
            None,
        );
    }
    hb.bar_arrive(cta.rank, w.index, id as usize);
}

/// `bar.red`: each lane of `mask` votes its predicate `c` into the barrier's reductions.
fn vote(b: &mut super::warp::Barrier, c: &Operand, frame: &super::warp::Frame, mask: u32) {
    for lane in lanes(mask) {
        let bit = match *c {
            Operand::Reg(r) => frame.regs[r.0 as usize * WARP + lane] != 0,
            Operand::NotPred(r) => frame.regs[r.0 as usize * WARP + lane] == 0,
            Operand::Imm(v) => v != 0,
            _ => false,
        };
        b.popc += u32::from(bit);
        b.all &= bit;
        b.any |= bit;
    }
}

/// Completes barrier `b` if enough threads arrived: every group waiting on it moves on, and
/// `bar.red` destinations receive the reduction over all arriving threads. Returns the warps it
/// released (for the checker), empty if the barrier is still waiting.
fn try_release(m: &Module, cta: &mut Cta, b: u8) -> Vec<u32> {
    use crate::ir::mods::{BoolOp, SubOp};
    let bar = cta.bars[b as usize];
    let mut released = Vec::new();
    if bar.arrived == 0 || bar.arrived < expected(cta, b) {
        return released;
    }
    cta.bars[b as usize].arrived = 0;
    for w in &mut cta.warps {
        if w.groups.iter().any(|g| g.wait == Wait::Bar(b)) {
            released.push(w.index);
        }
        for g in w.groups.iter_mut().filter(|g| g.wait == Wait::Bar(b)) {
            g.wait = Wait::Ready;
            let frame = &mut w.frames[g.frame as usize];
            let f = &m.functions[frame.func.0 as usize];
            if let Some(ins) = f.code.get(g.pc as usize) {
                if ins.mods.sub == Some(SubOp::Red) {
                    let result = match (ins.mods.sub2, ins.mods.bool_op) {
                        (Some(SubOp::Popc), _) => u64::from(bar.popc),
                        (Some(SubOp::And), _) | (_, Some(BoolOp::And)) => u64::from(bar.all),
                        _ => u64::from(bar.any),
                    };
                    if let Some(Operand::Reg(r)) = f.ops(ins).first() {
                        for lane in lanes(g.mask) {
                            frame.regs[r.0 as usize * WARP + lane] = result;
                        }
                    }
                }
            }
            g.pc += 1;
        }
    }
    released
}
