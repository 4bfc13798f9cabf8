//! The warp rendezvous (PTX ISA 9.0 sections 9.7.9.6 `shfl.sync`, 9.7.13.7-13 `vote`,
//! `match`, `redux`, 9.7.13.3 `bar.warp.sync`, 9.7.14.5.15-16 `ldmatrix`/`stmatrix`, and the
//! `.sync.aligned` matrix instructions): a lane group at a warp-synchronous instruction whose
//! member lanes are not all there parks; when the parked groups cover every member mask they
//! execute together (`warpops.rs` and `matrix.rs` compute the results). Warpgroup-aligned
//! instructions (`wgmma.mma_async`, `setmaxnreg`) must be executed by every warp of their
//! warpgroup, and `.sync.aligned` ones by every live lane of the warp, else `divergent-aligned`.
//! Works on the machine state through `WarpRef`; called by the
//! dispatcher (`step.rs`) and by `control.rs` when exiting lanes complete a rendezvous.

use super::ctx::Ctx;
use super::fault::{at, fault, warpgroup_fault, FaultKind, Res};
use super::lanes::WARP;
use super::machine::{Machine, WarpRef};
use super::warp::{live_lanes, AsyncWait, Cluster, Cta, Wait};
use super::warpgroup::Site;
use crate::ir::{Function, Instr, Op, Type};

/// A warp-synchronous operation: run now if every member lane is here, else park and try
/// the rendezvous.
pub(crate) fn collective<'m>(mc: &mut Machine<'m>, cl: &mut Cluster, w: WarpRef<'m>) -> Res<()> {
    let WarpRef {
        ci,
        wi,
        gi,
        ins,
        active,
        ..
    } = w;
    // Lanes whose guard is false do not execute the instruction: they move past it, and the
    // others meet at it as a group of their own (else the rendezvous, which works on group
    // masks, would run it for them).
    let grp = &cl.ctas[ci].warps[wi].groups[gi];
    if active != grp.mask {
        let pc = grp.pc;
        super::warp::branch(&mut cl.ctas[ci], wi, gi, active, |_| pc);
        return Ok(());
    }
    let live = live_lanes(&cl.ctas[ci], wi);
    let sets = {
        let cx = Ctx::new(mc, cl, w);
        super::warpops::member_sets(&cx)
    };
    // Lanes whose member set is all here go on; the others wait for theirs (the two tiles
    // of a 16-lane partition do not wait for each other).
    let ready = sets
        .iter()
        .filter(|&&(_, member)| member & live & !active == 0)
        .fold(0u32, |m, &(only, _)| m | only);
    if ready != active && ready != 0 {
        let pc = cl.ctas[ci].warps[wi].groups[gi].pc;
        super::warp::split(&mut cl.ctas[ci], wi, gi, ready, pc);
        return collective(mc, cl, w.with_active(ready));
    }
    if ready == active {
        if active != 0 {
            if matches!(ins.op, Op::WgmmaMmaAsync | Op::WgmmaMmaAsyncSp) {
                let mut cx = Ctx::new(mc, cl, w);
                if super::wgmma::must_stall(&mut cx)? {
                    // Too many operations in flight: the issue waits for one to complete.
                    cl.ctas[ci].warps[wi].groups[gi].wait = Wait::Async(AsyncWait::Groups);
                    return Ok(());
                }
                warpgroup_issue(mc, &mut cl.ctas[ci], wi, gi, "wgmma.mma_async")?;
            }
            let mut cx = Ctx::new(mc, cl, w);
            if super::matrix::is_matrix(ins.op) {
                let mut rows = [[0u64; super::mma::ROW_SLOTS]; WARP];
                super::matrix::gather(&cx, &mut rows);
                super::matrix::exec(&mut cx, &rows, active)?;
            } else {
                super::warpops::exec(&mut cx)?;
            }
            for &(only, member) in &sets {
                converged(mc, cl, ci, wi, ins, member & active | only);
            }
        }
        cl.ctas[ci].warps[wi].groups[gi].pc += 1;
        return Ok(());
    }
    cl.ctas[ci].warps[wi].groups[gi].wait = Wait::WarpSync;
    rendezvous(mc, cl, ci, wi)
}

/// Completes a warp-synchronous rendezvous if the parked groups cover every member mask.
pub(crate) fn rendezvous<'m>(
    mc: &mut Machine<'m>,
    cl: &mut Cluster,
    ci: usize,
    wi: usize,
) -> Res<()> {
    use super::warpops::{compute, gather, member_sets, scatter, In};
    let warp = &cl.ctas[ci].warps[wi];
    let parked: Vec<usize> = (0..warp.groups.len())
        .filter(|&g| warp.groups[g].wait == Wait::WarpSync)
        .collect();
    if parked.is_empty() {
        return Ok(());
    }
    let live = live_lanes(&cl.ctas[ci], wi);
    let union = parked.iter().fold(0u32, |m, &g| m | warp.groups[g].mask);
    // Each parked group's lanes by member set, and which of them have every member here.
    let mut members = Vec::new();
    for &g in &parked {
        let (ins, func, mask) = mc.group_instr(&cl.ctas[ci], wi, g);
        let cx = Ctx::new(
            mc,
            cl,
            WarpRef {
                ci,
                wi,
                gi: g,
                ins,
                func,
                active: mask,
            },
        );
        let sets: Vec<(u32, u32)> = member_sets(&cx)
            .into_iter()
            .filter(|&(_, member)| member & live & !union == 0)
            .collect();
        let ready = sets.iter().fold(0u32, |m, &(only, _)| m | only);
        members.push((ins, func, mask, sets, ready));
    }
    if members.iter().all(|m| m.4 == 0) {
        return Ok(());
    }
    if super::matrix::is_matrix(members[0].0.op) {
        if members.iter().any(|m| m.4 != m.2) {
            return Ok(());
        }
        let members: Vec<_> = members
            .into_iter()
            .map(|(i, f, m, _, _)| (i, f, m, u32::MAX))
            .collect();
        return matrix_rendezvous(mc, cl, ci, wi, &parked, &members, union);
    }
    // Gather every parked group's inputs; then each set of lanes whose members are all here
    // gets the result over its member mask (groups at a different kind of operation,
    // undefined behaviour, get their own), and goes on. Lanes still waiting for members of
    // their set stay parked, as a group of their own.
    let mut inputs = [In::default(); WARP];
    for (k, &g) in parked.iter().enumerate() {
        let (ins, func, mask, _, _) = &members[k];
        let cx = Ctx::new(
            mc,
            cl,
            WarpRef {
                ci,
                wi,
                gi: g,
                ins,
                func,
                active: *mask,
            },
        );
        gather(&cx, &mut inputs);
    }
    for (k, &g) in parked.iter().enumerate() {
        let (ins, func, mask, sets, ready) = &members[k];
        if *ready == 0 {
            continue;
        }
        if ready != mask {
            let pc = cl.ctas[ci].warps[wi].groups[g].pc;
            super::warp::split(&mut cl.ctas[ci], wi, g, *ready, pc);
        }
        let ty = ins.mods.ty().unwrap_or(Type::B32);
        let mut cx = Ctx::new(
            mc,
            cl,
            WarpRef {
                ci,
                wi,
                gi: g,
                ins,
                func,
                active: *ready,
            },
        );
        for &(only, member) in sets {
            let out = compute(ins.op, ins.mods.sub, ty, &inputs, union, member);
            scatter(&mut cx, &out, only);
        }
        let grp = &mut cl.ctas[ci].warps[wi].groups[g];
        grp.wait = Wait::Ready;
        grp.pc += 1;
    }
    for (ins, _, _, sets, _) in &members {
        for &(only, member) in sets {
            converged(mc, cl, ci, wi, ins, member & union | only);
        }
    }
    Ok(())
}

/// Lanes `lanes` executed the warp collective `ins` together. The ones the memory model
/// says synchronise the participating threads (`bar.warp.sync`, and `shfl`, `vote`,
/// `match`, `redux` with `.sync`) order their accesses for the checker.
pub(crate) fn converged<'m>(
    mc: &mut Machine<'m>,
    cl: &Cluster,
    ci: usize,
    wi: usize,
    ins: &Instr,
    lanes: u32,
) {
    let syncs = match ins.op {
        Op::BarWarpSync => true,
        Op::Shfl | Op::Vote | Op::Match | Op::Redux => ins.mods.has(crate::ir::Flags::SYNC),
        _ => false,
    };
    if let (true, Some(hb)) = (syncs, mc.hb.as_mut()) {
        let cta = &cl.ctas[ci];
        hb.warp_converge(cta.rank, cta.warps[wi].index, lanes);
    }
}

/// The parked groups of a warp met at `ldmatrix`/`stmatrix`: every group's row addresses
/// are gathered, then each group loads or stores its own lanes' data.
pub(crate) fn matrix_rendezvous<'m>(
    mc: &mut Machine<'m>,
    cl: &mut Cluster,
    ci: usize,
    wi: usize,
    parked: &[usize],
    members: &[(&'m Instr, &'m Function, u32, u32)],
    union: u32,
) -> Res<()> {
    let mut rows = [[0u64; super::mma::ROW_SLOTS]; WARP];
    for (&g, (ins, func, mask, _)) in parked.iter().zip(members) {
        // mma reads every lane's registers: the groups must be at the same instruction.
        let reads_all = matches!(
            ins.op,
            Op::Mma
                | Op::MmaSp
                | Op::MmaSpOrdered
                | Op::WmmaMma
                | Op::WgmmaMmaAsync
                | Op::WgmmaMmaAsyncSp
        );
        let same = ins.op == members[0].0.op && (!reads_all || *ins == members[0].0);
        if !same {
            return Err(fault(
                FaultKind::Hazard(crate::check::HazardKind::DivergentAligned),
                format!(
                    "lanes of one warp meet at `{}` and `{}`: a .sync.aligned instruction must be \
                     executed by the whole warp together",
                    members[0].0.op.name(),
                    ins.op.name()
                ),
            ));
        }
        let cx = Ctx::new(
            mc,
            cl,
            WarpRef {
                ci,
                wi,
                gi: g,
                ins,
                func,
                active: *mask,
            },
        );
        super::matrix::gather(&cx, &mut rows);
    }
    for (&g, (ins, func, mask, _)) in parked.iter().zip(members) {
        // A fault belongs to the parked instruction, not to whichever group completed the
        // rendezvous (a lane exiting, say).
        let site = mc.group_site(&cl.ctas[ci], wi, g);
        let mut cx = Ctx::new(
            mc,
            cl,
            WarpRef {
                ci,
                wi,
                gi: g,
                ins,
                func,
                active: *mask,
            },
        );
        super::matrix::exec(&mut cx, &rows, union).map_err(|f| at(f, site.0, site.1, site.2))?;
        let grp = &mut cl.ctas[ci].warps[wi].groups[g];
        grp.wait = Wait::Ready;
        grp.pc += 1;
    }
    Ok(())
}

/// A `.sync.aligned` instruction that is not warp-wide in the rendezvous sense (`wgmma.fence`,
/// `commit_group`, `wait_group`, `setmaxnreg`) must still be executed by every live lane of
/// the warp: otherwise a `divergent-aligned` hazard, reported at the `.sync.aligned`
/// instruction where the other lanes wait if there is one (they never reconverged), else here.
pub(crate) fn whole_warp<'m>(mc: &mut Machine<'m>, cl: &mut Cluster, w: WarpRef<'m>) -> Res<()> {
    let WarpRef {
        ci,
        wi,
        gi,
        ins,
        func,
        active,
    } = w;
    let missing = live_lanes(&cl.ctas[ci], wi) & !active;
    if missing == 0 || active == 0 {
        return Ok(());
    }
    let warp = &cl.ctas[ci].warps[wi];
    let parked = (0..warp.groups.len()).find(|&g| g != gi && warp.groups[g].wait == Wait::WarpSync);
    if let Some(g) = parked {
        let (fid, pc, first) = mc.group_site(&cl.ctas[ci], wi, g);
        let (other, _, mask) = mc.group_instr(&cl.ctas[ci], wi, g);
        let line = func
            .srcs
            .get(warp.groups[gi].pc as usize)
            .map_or(0, |s| s.line);
        let mut f = fault(
            FaultKind::Hazard(crate::check::HazardKind::DivergentAligned),
            format!(
                "`{}` is .sync.aligned, but lanes {:#010x} of the warp went on to `{}` at line \
                 {line} without executing it",
                other.op.name(),
                active & !mask,
                ins.op.name()
            ),
        );
        f.linear_thread = Some(first);
        return Err(at(f, fid, pc, first));
    }
    let cx = Ctx::new(mc, cl, w);
    Err(super::mma::partial_warp(&cx, missing, "part"))
}

/// A warp executes a warpgroup-aligned instruction (`wgmma.mma_async`, `setmaxnreg`): the
/// four warps of its warpgroup must execute the same ones (`divergent-aligned` at the one
/// where they part, or a warpgroup of fewer warps); a `setmaxnreg` must also be ordered after
/// the previous one of every other warp of the group.
pub(crate) fn warpgroup_issue<'m>(
    mc: &mut Machine<'m>,
    cta: &mut Cta,
    wi: usize,
    gi: usize,
    name: &'static str,
) -> Res<()> {
    let (fid, pc, first) = mc.group_site(cta, wi, gi);
    let index = cta.warps[wi].index as usize;
    let (group, w) = (index / 4, index % 4);
    let present = (cta.warps.len() - 4 * group).min(4);
    if cta.warpgroups.len() <= group {
        cta.warpgroups.resize(group + 1, Default::default());
    }
    let log = &mut cta.warpgroups[group];
    let site = Site {
        at: (fid.0, pc),
        name,
    };
    if let Some((site, why)) = log.issue(w, present, site) {
        return Err(warpgroup_fault(site, first, why));
    }
    let Some(hb) = mc.hb.as_mut().filter(|_| name == "setmaxnreg") else {
        return Ok(());
    };
    let clock = hb.warp(cta.rank, index as u32);
    let Some(v) = log.setmaxnreg(w, clock.now(), &clock.vc) else {
        return Ok(());
    };
    let why = format!(
        "warp {w} of the warpgroup executed it again with no synchronization after warp {v}'s \
         previous `setmaxnreg` (the ISA asks all warps of the warpgroup to synchronize, with \
         `bar.sync` for example, between two of them)"
    );
    Err(warpgroup_fault(site, first, why))
}
