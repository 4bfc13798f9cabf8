//! Control flow and CTA barriers (PTX ISA 9.0 sections 9.7.12 "Control Flow Instructions" and
//! 9.7.13.1 "bar, barrier"): branches split a group by its guard, calls push a frame with its own
//! registers and parameter space, `ret`/`exit` retire lanes, `bar.sync` parks a group until the
//! barrier's thread count is reached (exited threads count as arrived).

use super::layout::func_of;
use super::step::{
    expected, fault, lanes, Cluster, Cta, Group, Machine, Res, RetRec, Wait, MAX_CALL_DEPTH, WARP,
};
use super::FaultKind;
use crate::ir::{Function, Instr, Module, Op, Operand, Symbol};

impl<'m> Machine<'m> {
    #[allow(clippy::too_many_arguments)]
    pub(crate) fn control(
        &mut self,
        cl: &mut Cluster,
        ci: usize,
        wi: usize,
        gi: usize,
        ins: &Instr,
        func: &'m Function,
        active: u32,
    ) -> Res<()> {
        let cta = &mut cl.ctas[ci];
        let g = cta.warps[wi].groups[gi].clone();
        let ops = func.ops(ins);
        match ins.op {
            Op::Bra => {
                let Some(Operand::Label(target)) = ops.first().copied() else {
                    return Err(fault(
                        FaultKind::Unsupported,
                        "branch without a label target",
                    ));
                };
                branch(cta, wi, gi, active, |_| target);
                if target <= g.pc && active != 0 {
                    self.back_edge(cl, (ci, wi), g.pc, target)?;
                }
            }
            Op::BrxIdx => {
                let Some(Operand::Targets(t)) = ops.get(1).copied() else {
                    return Err(fault(
                        FaultKind::Unsupported,
                        "brx.idx needs a .branchtargets list",
                    ));
                };
                let (_, range) = func.target_lists[t as usize].clone();
                let targets = func.sub_ops(range);
                let frame = &cta.warps[wi].frames[g.frame as usize];
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
            Op::Exit => self.retire(cl, ci, wi, gi, active)?,
            Op::Ret => {
                if active != 0 {
                    if active != g.mask {
                        split(cta, wi, gi, active, g.pc + 1);
                    }
                    let gi = cta.warps[wi]
                        .groups
                        .iter()
                        .position(|x| x.mask == active && x.pc == g.pc)
                        .unwrap_or(gi);
                    self.do_ret(cl, ci, wi, gi, active)?;
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
            Op::Call => self.call(cl, ci, wi, gi, ins, func, active)?,
            Op::Bar | Op::Barrier => self.barrier(cta, wi, gi, ins, func)?,
            _ => cta.warps[wi].groups[gi].pc += 1,
        }
        Ok(())
    }
}

/// Moves the lanes of `active` to their targets, the others past the branch.
pub(crate) fn branch(
    cta: &mut Cta,
    wi: usize,
    gi: usize,
    active: u32,
    target: impl Fn(usize) -> u32,
) {
    let warp = &mut cta.warps[wi];
    let g = warp.groups[gi].clone();
    let mut dests: Vec<(u32, u32)> = Vec::new();
    let fall = g.mask & !active;
    if fall != 0 {
        dests.push((g.pc + 1, fall));
    }
    for lane in lanes(active) {
        let t = target(lane);
        match dests.iter_mut().find(|(pc, _)| *pc == t) {
            Some(d) => d.1 |= 1 << lane,
            None => dests.push((t, 1 << lane)),
        }
    }
    let (first, rest) = dests
        .split_first()
        .map_or(((g.pc + 1, g.mask), &[][..]), |(f, r)| (*f, r));
    warp.groups[gi].pc = first.0;
    warp.groups[gi].mask = first.1;
    for &(pc, mask) in rest {
        warp.groups.push(Group {
            mask,
            pc,
            ..g.clone()
        });
    }
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
            let thread = (group * 4 + lag) as u32 * super::step::WARP as u32;
            let why = format!("warp {lag} of the warpgroup exited without executing it");
            Err(super::step::warpgroup_fault(site, thread, why))
        }
    }
}

impl<'m> Machine<'m> {
    /// `exit`, or `ret` from the kernel: the lanes are done.
    fn retire(
        &mut self,
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
        if let Some(hb) = self.hb.as_mut() {
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
                let cluster = self.grid.cluster_ctas() > 1;
                // Its own asynchronous operations, and its peers', may still use its memory.
                hb.ops_at_exit(&self.engine, site, cluster);
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
            let released = try_release(self.m, cta, b);
            self.woken += u64::from(!released.is_empty());
            if let (Some(hb), false) = (self.hb.as_mut(), released.is_empty()) {
                hb.bar_release(cta.rank, b as usize, &released, all);
            }
        }
        if self.trace.enabled && warp_done {
            let w = &cta.warps[wi];
            self.trace.push(crate::trace::Event {
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
        self.progress += 1;
        self.release_cluster_barrier(cl);
        self.rendezvous(cl, ci, wi)?;
        Ok(())
    }

    pub(crate) fn do_ret(
        &mut self,
        cl: &mut Cluster,
        ci: usize,
        wi: usize,
        gi: usize,
        active: u32,
    ) -> Res<()> {
        let g = cl.ctas[ci].warps[wi].groups[gi].clone();
        let Some(rec) = g.stack.last().cloned() else {
            return self.retire(cl, ci, wi, gi, active);
        };
        let cta = &mut cl.ctas[ci];
        let warp = &mut cta.warps[wi];
        let callee = g.frame as usize;
        let caller = rec.frame as usize;
        // Copy return values into the caller's `retval` variables.
        if let Some(range) = rec.rets {
            let cf = &self.m.functions[warp.frames[caller].func.0 as usize];
            let targets: Vec<Operand> = cf.sub_ops(range).to_vec();
            let callee_fid = warp.frames[callee].func.0 as usize;
            for (i, t) in targets.iter().enumerate() {
                let Some(&src_off) = self.layout.ret_off[callee_fid].get(i) else {
                    continue;
                };
                let size = self.m.functions[callee_fid].rets[i].size as usize;
                let dst_off = match *t {
                    Operand::Sym(Symbol::Var(v), k) => {
                        self.layout.var_addr[v.0 as usize] as usize + k as usize
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
        let still_used = warp.groups.iter().any(|x| {
            x.frame as usize == callee || x.stack.iter().any(|r| r.frame as usize == callee)
        });
        if !still_used {
            let fr = &mut warp.frames[callee];
            fr.live = false;
            if fr.local_base + fr.local_size == warp.local_top {
                warp.local_top = fr.local_base;
            }
        }
        Ok(())
    }

    #[allow(clippy::too_many_arguments)]
    fn call(
        &mut self,
        cl: &mut Cluster,
        ci: usize,
        wi: usize,
        gi: usize,
        ins: &Instr,
        func: &'m Function,
        mut active: u32,
    ) -> Res<()> {
        let cta = &mut cl.ctas[ci];
        let g = cta.warps[wi].groups[gi].clone();
        if active == 0 {
            cta.warps[wi].groups[gi].pc += 1;
            return Ok(());
        }
        if active != g.mask {
            split(cta, wi, gi, active, g.pc + 1);
        }
        let ops = func.ops(ins);
        // call (rets), target, (args) [, prototype]: the first list is returns only if two lists.
        let lists: Vec<usize> = ops
            .iter()
            .enumerate()
            .filter(|(_, o)| matches!(o, Operand::List(_)))
            .map(|(i, _)| i)
            .collect();
        let (rets, args, target_idx) = match (lists.as_slice(), ops.first()) {
            ([r, a, ..], _) => (Some(*r), Some(*a), r + 1),
            ([l], Some(Operand::List(_))) => (Some(*l), None, l + 1),
            ([l], _) => (None, Some(*l), 0),
            ([], _) => (None, None, 0),
        };
        let frame = &cta.warps[wi].frames[g.frame as usize];
        let target = match ops.get(target_idx) {
            Some(Operand::Sym(Symbol::Func(f), _)) => *f,
            Some(Operand::Reg(r)) => {
                let reg = r.0 as usize;
                let first = frame.regs[reg * WARP + lanes(active).next().unwrap_or(0)];
                let same = lanes(active)
                    .filter(|&l| frame.regs[reg * WARP + l] == first)
                    .fold(0u32, |m, l| m | 1 << l);
                if same != active {
                    // Lanes calling different functions: these call now, the others stay at the
                    // call and make theirs next (the warp serialises the targets).
                    split(cta, wi, gi, same, g.pc);
                    active = same;
                }
                func_of(first, self.m).ok_or_else(|| {
                    fault(
                        FaultKind::Memory,
                        format!("indirect call through {first:#x}, which is no function"),
                    )
                })?
            }
            _ => {
                return Err(fault(
                    FaultKind::Unsupported,
                    "call without a function target",
                ))
            }
        };
        let callee = &self.m.functions[target.0 as usize];
        let ret_range = rets.and_then(|i| match ops[i] {
            Operand::List(r) => Some(r),
            _ => None,
        });
        let arg_ops: Vec<Operand> = match args.map(|i| ops[i]) {
            Some(Operand::List(r)) => func.sub_ops(r).to_vec(),
            _ => Vec::new(),
        };
        if !callee.defined {
            return self.builtin(
                cl, ci, wi, gi, func, callee, target, &arg_ops, ret_range, active,
            );
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
        let new = self.new_frame_for(warp, target)?;
        // Copy arguments from the caller's param variables into the callee's parameters.
        for (i, a) in arg_ops.iter().enumerate() {
            let Some(&dst_off) = self.layout.param_off[target.0 as usize].get(i) else {
                break;
            };
            let size = callee.params[i].size as usize;
            for lane in lanes(active) {
                let (src_frame, dst_frame) = two(&mut warp.frames, g.frame as usize, new as usize);
                let bytes: Vec<u8> = match *a {
                    Operand::Sym(Symbol::Var(v), k) => {
                        let off = lane * src_frame.param_size
                            + self.layout.var_addr[v.0 as usize] as usize
                            + k as usize;
                        src_frame
                            .params
                            .get(off..off + size)
                            .map(<[u8]>::to_vec)
                            .unwrap_or_default()
                    }
                    Operand::Reg(r) => src_frame.regs[r.0 as usize * WARP + lane].to_le_bytes()
                        [..size.min(8)]
                        .to_vec(),
                    Operand::Imm(v) => v.to_le_bytes()[..size.min(8)].to_vec(),
                    _ => Vec::new(),
                };
                let off = lane * dst_frame.param_size + dst_off as usize;
                if let Some(d) = dst_frame.params.get_mut(off..off + bytes.len()) {
                    d.copy_from_slice(&bytes);
                }
            }
        }
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

    fn barrier(
        &mut self,
        cta: &mut Cta,
        wi: usize,
        gi: usize,
        ins: &Instr,
        func: &'m Function,
    ) -> Res<()> {
        use crate::ir::mods::SubOp;
        let ops = func.ops(ins);
        let g = cta.warps[wi].groups[gi].clone();
        let frame = &cta.warps[wi].frames[g.frame as usize];
        let first = lanes(g.mask).next().unwrap_or(0);
        let val = |o: Option<&Operand>| -> Option<u64> {
            match o? {
                Operand::Reg(r) => Some(frame.regs[r.0 as usize * WARP + first]),
                Operand::Imm(v) => Some(*v as u64),
                _ => None,
            }
        };
        let is_red = ins.mods.sub == Some(SubOp::Red);
        // bar.red.op.type d, a{, b}, {!}c   |   bar.sync a{, b}   |   bar.arrive a, b
        let (a_idx, b_idx) = if is_red {
            (1, if ops.len() == 4 { Some(2) } else { None })
        } else {
            (0, Some(1))
        };
        let id = val(ops.get(a_idx)).unwrap_or(0);
        if id as usize >= cta.bars.len() {
            return Err(fault(
                FaultKind::Trap,
                format!("barrier {id} does not exist (0 to 15)"),
            ));
        }
        let count = b_idx.and_then(|i| val(ops.get(i))).unwrap_or(0) as u32;
        let b = &cta.bars[id as usize];
        if let Some(hb) = self.hb.as_mut() {
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
        b.arrived += g.mask.count_ones();
        if is_red {
            if let Some(c) = ops.last() {
                for lane in lanes(g.mask) {
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
        }
        if ins.mods.sub == Some(SubOp::Arrive) {
            cta.warps[wi].groups[gi].pc += 1;
        } else {
            cta.warps[wi].groups[gi].wait = Wait::Bar(id as u8);
        }
        let all = cta.bars[id as usize].expected == 0;
        let released = try_release(self.m, cta, id as u8);
        self.woken += u64::from(!released.is_empty());
        if let (Some(hb), false) = (self.hb.as_mut(), released.is_empty()) {
            hb.bar_release(cta.rank, id as usize, &released, all);
        }
        Ok(())
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

/// Splits lanes `active` out of group `gi` into their own group; the rest go to `rest_pc`
/// later (they stay at the current pc, to continue after the split-off lanes).
/// Keeps the lanes of `active` in group `gi`; the others become a group of their own at
/// `rest_pc`, waiting as `gi` waited.
pub(crate) fn split(cta: &mut Cta, wi: usize, gi: usize, active: u32, rest_pc: u32) {
    let warp = &mut cta.warps[wi];
    let g = warp.groups[gi].clone();
    let rest = g.mask & !active;
    if rest == 0 {
        return;
    }
    warp.groups[gi].mask = active;
    warp.groups.push(Group {
        mask: rest,
        pc: rest_pc,
        ..g
    });
}

fn two<T>(v: &mut [T], a: usize, b: usize) -> (&mut T, &mut T) {
    assert_ne!(a, b, "two distinct frames");
    if a < b {
        let (x, y) = v.split_at_mut(b);
        (&mut x[a], &mut y[0])
    } else {
        let (x, y) = v.split_at_mut(a);
        (&mut y[0], &mut x[b])
    }
}
