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
use super::warp::{live_lanes, AsyncWait, Cluster, Wait};
use super::warpgroup::Site;
use crate::ir::{Op, Type};

/// A warp-synchronous operation: run now if every member lane is here, else park and try
/// the rendezvous.
pub(crate) fn collective<'m>(mc: &mut Machine<'m>, cl: &mut Cluster, w: WarpRef<'m>) -> Res<()> {
    let (ci, wi, gi) = w.at();
    let active = w.active;
    // Lanes whose guard is false do not execute the instruction: they move past it, and the
    // others meet at it as a group of their own (else the rendezvous, which works on group
    // masks, would run it for them).
    let grp = &cl.ctas[ci].warps[wi].groups[gi];
    if active != grp.mask {
        let pc = grp.pc;
        super::warp::branch_to(&mut cl.ctas[ci], wi, gi, active, pc);
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
        if active != 0 && !run_together(mc, cl, w, &sets)? {
            return Ok(());
        }
        cl.ctas[ci].warps[wi].groups[gi].pc += 1;
        return Ok(());
    }
    cl.ctas[ci].warps[wi].groups[gi].wait = Wait::WarpSync;
    rendezvous(mc, cl, ci, wi)
}

/// Every member lane of group `w` is in it: executes the operation for them. `false` when a
/// `wgmma.mma_async` must wait for an earlier one to complete first (the group parks at it).
fn run_together<'m>(
    mc: &mut Machine<'m>,
    cl: &mut Cluster,
    w: WarpRef<'m>,
    sets: &[(u32, u32)],
) -> Res<bool> {
    if matches!(w.ins.op, Op::WgmmaMmaAsync | Op::WgmmaMmaAsyncSp) {
        let mut cx = Ctx::new(mc, cl, w);
        if super::wgmma::must_stall(&mut cx)? {
            // Too many operations in flight: the issue waits for one to complete.
            cl.ctas[w.ci].warps[w.wi].groups[w.gi].wait = Wait::Async(AsyncWait::Groups);
            return Ok(false);
        }
        warpgroup_issue(mc, cl, w, "wgmma.mma_async")?;
    }
    let mut cx = Ctx::new(mc, cl, w);
    if super::matrix::is_matrix(w.ins.op) {
        let mut rows = [[0u64; super::mma::ROW_SLOTS]; WARP];
        super::matrix::gather(&cx, &mut rows);
        super::matrix::exec(&mut cx, &rows, w.active)?;
    } else {
        super::warpops::exec(&mut cx)?;
    }
    for &(only, member) in sets {
        converged(mc, cl, w, member & w.active | only);
    }
    Ok(true)
}

/// A group parked at a warp-synchronous rendezvous: its handle (every lane of the group), its
/// lanes by member set (only, member), and those of its lanes whose members are all here.
struct Member<'m> {
    at: WarpRef<'m>,
    sets: Vec<(u32, u32)>,
    ready: u32,
}

/// Completes a warp-synchronous rendezvous if the parked groups cover every member mask.
pub(crate) fn rendezvous(mc: &mut Machine<'_>, cl: &mut Cluster, ci: usize, wi: usize) -> Res<()> {
    let warp = &cl.ctas[ci].warps[wi];
    let parked: Vec<usize> = (0..warp.groups.len())
        .filter(|&g| warp.groups[g].wait == Wait::WarpSync)
        .collect();
    if parked.is_empty() {
        return Ok(());
    }
    let union = parked.iter().fold(0u32, |m, &g| m | warp.groups[g].mask);
    let members = members(mc, cl, ci, wi, &parked, union);
    if members.iter().all(|m| m.ready == 0) {
        return Ok(());
    }
    if super::matrix::is_matrix(members[0].at.ins.op) {
        if members.iter().any(|m| m.ready != m.at.active) {
            return Ok(());
        }
        let groups: Vec<WarpRef> = members.iter().map(|m| m.at).collect();
        return matrix_rendezvous(mc, cl, &groups, union);
    }
    exchange(mc, cl, &members, union);
    for m in &members {
        for &(only, member) in &m.sets {
            converged(mc, cl, m.at, member & union | only);
        }
    }
    Ok(())
}

/// Each parked group's lanes by member set, and which of them have every member here (among
/// the parked lanes `union` or exited).
fn members<'m>(
    mc: &mut Machine<'m>,
    cl: &mut Cluster,
    ci: usize,
    wi: usize,
    parked: &[usize],
    union: u32,
) -> Vec<Member<'m>> {
    let live = live_lanes(&cl.ctas[ci], wi);
    let mut members = Vec::new();
    for &g in parked {
        let at = mc.group_ref(cl, ci, wi, g);
        let cx = Ctx::new(mc, cl, at);
        let sets: Vec<(u32, u32)> = super::warpops::member_sets(&cx)
            .into_iter()
            .filter(|&(_, member)| member & live & !union == 0)
            .collect();
        let ready = sets.iter().fold(0u32, |m, &(only, _)| m | only);
        members.push(Member { at, sets, ready });
    }
    members
}

/// Gathers every parked group's inputs; then each set of lanes whose members are all here
/// gets the result over its member mask (groups at a different kind of operation, undefined
/// behaviour, get their own), and goes on. Lanes still waiting for members of their set stay
/// parked, as a group of their own.
fn exchange<'m>(mc: &mut Machine<'m>, cl: &mut Cluster, members: &[Member<'m>], union: u32) {
    use super::warpops::{compute, gather, scatter, In};
    let mut inputs = [In::default(); WARP];
    for m in members {
        let cx = Ctx::new(mc, cl, m.at);
        gather(&cx, &mut inputs);
    }
    for m in members {
        if m.ready == 0 {
            continue;
        }
        let (ci, wi, g) = m.at.at();
        if m.ready != m.at.active {
            let pc = cl.ctas[ci].warps[wi].groups[g].pc;
            super::warp::split(&mut cl.ctas[ci], wi, g, m.ready, pc);
        }
        let ins = m.at.ins;
        let ty = ins.mods.ty().unwrap_or(Type::B32);
        let mut cx = Ctx::new(mc, cl, m.at.with_active(m.ready));
        for &(only, member) in &m.sets {
            let out = compute(ins.op, ins.mods.sub, ty, &inputs, union, member);
            scatter(&mut cx, &out, only);
        }
        let grp = &mut cl.ctas[ci].warps[wi].groups[g];
        grp.wait = Wait::Ready;
        grp.pc += 1;
    }
}

/// Lanes `lanes` of group `w`'s warp executed its warp collective together. The ones the
/// memory model says synchronise the participating threads (`bar.warp.sync`, and `shfl`,
/// `vote`, `match`, `redux` with `.sync`) order their accesses for the checker.
pub(crate) fn converged(mc: &mut Machine<'_>, cl: &Cluster, w: WarpRef<'_>, lanes: u32) {
    let ins = w.ins;
    let syncs = match ins.op {
        Op::BarWarpSync => true,
        Op::Shfl | Op::Vote | Op::Match | Op::Redux => ins.mods.has(crate::ir::Flags::SYNC),
        _ => false,
    };
    if let (true, Some(hb)) = (syncs, mc.hb.as_mut()) {
        let cta = &cl.ctas[w.ci];
        hb.warp_converge(cta.rank, cta.warps[w.wi].index, lanes);
    }
}

/// The parked groups of a warp met at `ldmatrix`/`stmatrix` (or another `.sync.aligned`
/// matrix instruction): every group's row addresses are gathered, then each group loads or
/// stores its own lanes' data.
pub(crate) fn matrix_rendezvous<'m>(
    mc: &mut Machine<'m>,
    cl: &mut Cluster,
    groups: &[WarpRef<'m>],
    union: u32,
) -> Res<()> {
    let mut rows = [[0u64; super::mma::ROW_SLOTS]; WARP];
    let first = groups[0].ins;
    for &w in groups {
        // mma reads every lane's registers: the groups must be at the same instruction.
        let reads_all = !matches!(w.ins.op, Op::Ldmatrix | Op::Stmatrix | Op::Movmatrix);
        let same = w.ins.op == first.op && (!reads_all || *w.ins == *first);
        if !same {
            return Err(fault(
                FaultKind::Hazard(crate::check::HazardKind::DivergentAligned),
                format!(
                    "lanes of one warp meet at `{}` and `{}`: a .sync.aligned instruction must be \
                     executed by the whole warp together",
                    first.op.name(),
                    w.ins.op.name()
                ),
            ));
        }
        let cx = Ctx::new(mc, cl, w);
        super::matrix::gather(&cx, &mut rows);
    }
    for &w in groups {
        let (ci, wi, g) = w.at();
        // A fault belongs to the parked instruction, not to whichever group completed the
        // rendezvous (a lane exiting, say).
        let site = mc.group_site(&cl.ctas[ci], wi, g);
        let mut cx = Ctx::new(mc, cl, w);
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
    let (ci, wi, gi) = w.at();
    let active = w.active;
    let missing = live_lanes(&cl.ctas[ci], wi) & !active;
    if missing == 0 || active == 0 {
        return Ok(());
    }
    let warp = &cl.ctas[ci].warps[wi];
    let parked = (0..warp.groups.len()).find(|&g| g != gi && warp.groups[g].wait == Wait::WarpSync);
    if let Some(g) = parked {
        let (fid, pc, first) = mc.group_site(&cl.ctas[ci], wi, g);
        let (other, _, mask) = mc.group_instr(&cl.ctas[ci], wi, g);
        let line = w
            .func
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
                w.ins.op.name()
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
pub(crate) fn warpgroup_issue(
    mc: &mut Machine<'_>,
    cl: &mut Cluster,
    w: WarpRef<'_>,
    name: &'static str,
) -> Res<()> {
    let (ci, wi, gi) = w.at();
    let cta = &mut cl.ctas[ci];
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
