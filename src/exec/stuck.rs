//! Spin loops proven endless (the model is `spin.rs`'s): at a warp's backward branch, after the
//! cluster has been quiet long enough, its state is sampled; when every warp still running is
//! proven to cycle, the run stops with a `deadlock` naming the spinning lines and what the
//! parked warps wait for (`park.rs`).

use super::fault::{at, fault, with_cta, Fault, FaultKind, Res};
use super::lanes::WARP;
use super::machine::Machine;
use super::spin::{effect, AfterQuiet, EdgeRule, Effect, Spin, WarpSpin, MAX_BACKOFF, QUIET};
use super::warp::{Cluster, Wait, Warp};
use crate::ir::{Instr, Operand};
use crate::mem::copy::Engine;
use std::hash::{Hash, Hasher};

/// After an `atom.cas`/`atom.exch` ran with lanes `active`: an effect if any lane changed memory (its result
/// register `old` against the operand it compared or wrote).
pub(crate) fn note_atomic(
    mc: &mut Machine<'_>,
    cl: &Cluster,
    at: (usize, usize, usize),
    ins: &Instr,
    active: u32,
) {
    let (ci, wi, gi) = at;
    let warp = &cl.ctas[ci].warps[wi];
    let Some(frame) = warp
        .groups
        .get(gi)
        .and_then(|g| warp.frames.get(g.frame as usize))
    else {
        return;
    };
    let ops = mc.m.functions[frame.func.0 as usize].ops(ins);
    let bits = ins.mods.ty().map_or(64, |t| t.size() * 8);
    let mask = if bits >= 64 {
        u64::MAX
    } else {
        (1 << bits) - 1
    };
    let value = |k: usize, lane: usize| match ops.get(k) {
        Some(Operand::Reg(r)) => frame.regs[r.0 as usize * WARP + lane] & mask,
        Some(Operand::Imm(v)) => *v as u64 & mask,
        _ => u64::MAX,
    };
    let kind = effect(ins);
    let changed = (0..WARP).filter(|l| active >> l & 1 != 0).any(|lane| {
        let (old, b) = (value(0, lane), value(2, lane));
        match kind {
            Effect::IfCasMatched => old == b,
            _ => old != b,
        }
    });
    if changed {
        mc.spin.effect(mc.stats.warp_instructions);
    }
}

/// Warp `wi` of CTA `ci` took a backward branch at `pc` to `target`: samples its state when
/// the cluster has been quiet long enough, and returns the deadlock once every warp still
/// running is proven to cycle. Inlined into the branch: until a sample is due it only counts.
#[inline]
pub(crate) fn back_edge(
    mc: &mut Machine<'_>,
    cl: &Cluster,
    (ci, wi): (usize, usize),
    pc: u32,
    target: u32,
) -> Result<(), Box<Fault>> {
    let now = mc.stats.warp_instructions;
    if now.saturating_sub(mc.spin.quiet_from) < QUIET {
        return Ok(());
    }
    if mc.progress != mc.spin.progress {
        mc.spin.progress = mc.progress;
        mc.spin.effect(now);
        return Ok(());
    }
    if mc.engine.next_time().is_some() || mc.next_deadline != u64::MAX {
        return Ok(());
    }
    let epoch = mc.spin.epoch;
    let ws = mc.spin.warp_mut(ci, wi);
    if ws.epoch != epoch {
        *ws = WarpSpin {
            epoch,
            ..WarpSpin::default()
        };
    }
    ws.edges += 1;
    if ws.edges < ws.next {
        return Ok(());
    }
    sample(mc, cl, (ci, wi, pc, target))
}

/// The [`EdgeRule`] of a straight run of warp `wi` of CTA `ci` starting at warp instruction
/// `base`, with the machine's `progress` and `next_deadline`: [`back_edge`]'s
/// tests, in its order, on what stays fixed during the run.
pub(crate) fn edge_rule(
    (spin, engine): (&Spin, &Engine),
    (base, progress, next_deadline): (u64, u64, u64),
    (ci, wi): (usize, usize),
) -> EdgeRule {
    let quiet_before = (spin.quiet_from.saturating_add(QUIET)).saturating_sub(base);
    let then = if progress != spin.progress {
        AfterQuiet::Stop
    } else if engine.next_time().is_some() || next_deadline != u64::MAX {
        AfterQuiet::Pass
    } else {
        match spin.warp(ci, wi) {
            Some(ws) if ws.epoch == spin.epoch => {
                AfterQuiet::Count(ws.next.saturating_sub(ws.edges.saturating_add(1)))
            }
            _ => AfterQuiet::Stop,
        }
    };
    EdgeRule { quiet_before, then }
}

/// Warp `wi` of CTA `ci` took `n` back edges that [`back_edge`] would only have counted.
pub(crate) fn count_edges(mc: &mut Machine<'_>, (ci, wi): (usize, usize), n: u64) {
    if n > 0 {
        mc.spin.warp_mut(ci, wi).edges += n;
    }
}

/// A sample of warp `wi` of CTA `ci`, due at its backward branch at `pc` to `target`: the same
/// state as at the previous sample there proves a cycle, then the deadlock if every warp still
/// running is in one; else the next sample is due after twice as many back-edges.
#[inline(never)]
fn sample(mc: &mut Machine<'_>, cl: &Cluster, edge: (usize, usize, u32, u32)) -> Res<()> {
    let (ci, wi, pc, target) = edge;
    let ws = mc.spin.warp_mut(ci, wi);
    let h = state_hash(&cl.ctas[ci].warps[wi]);
    match ws.samples.iter_mut().find(|(t, _)| *t == target) {
        Some((_, prev)) if *prev == h => ws.stuck = Some(pc),
        Some((_, prev)) => *prev = h,
        None => ws.samples.push((target, h)),
    }
    if ws.stuck.is_none() {
        ws.backoff = (ws.backoff + 1).min(MAX_BACKOFF);
        ws.next = ws.edges + (1 << ws.backoff);
        return Ok(());
    }
    match all_stuck(mc, cl) {
        Some(spinning) => Err(spin_deadlock(mc, cl, &spinning)),
        None => Ok(()),
    }
}

/// The spinning warps (CTA, warp, branch pc) if every warp of the cluster is exited,
/// parked or proven to cycle in this epoch.
pub(crate) fn all_stuck(mc: &Machine<'_>, cl: &Cluster) -> Option<Vec<(usize, usize, u32)>> {
    let mut spinning = Vec::new();
    for (ci, cta) in cl.ctas.iter().enumerate() {
        for (wi, w) in cta.warps.iter().enumerate() {
            if w.groups.iter().all(|g| g.wait != Wait::Ready) {
                continue;
            }
            let ws = mc.spin.warp(ci, wi)?;
            match ws.stuck {
                Some(pc) if ws.epoch == mc.spin.epoch => spinning.push((ci, wi, pc)),
                _ => return None,
            }
        }
    }
    Some(spinning)
}

/// The deadlock fault: every spinning warp and line, then what the parked ones wait for.
pub(crate) fn spin_deadlock(
    mc: &Machine<'_>,
    cl: &Cluster,
    spinning: &[(usize, usize, u32)],
) -> Box<Fault> {
    let mut lines = Vec::new();
    for &(ci, wi, pc) in spinning {
        let w = &cl.ctas[ci].warps[wi];
        let fid = w.frames[w.groups.first().map_or(0, |g| g.frame) as usize].func;
        let f = &mc.m.functions[fid.0 as usize];
        let src = f.srcs.get(pc as usize);
        let cuda = src
            .and_then(|s| s.loc)
            .map_or(String::new(), |(file, l, _)| {
                format!(", CUDA {}:{l}", mc.m.file(file).unwrap_or("?"))
            });
        lines.push(format!(
            "CTA {:?} warp {} spins in the loop ending at line {}{cuda}, reading memory that nothing will write any more",
            cl.ctas[ci].id,
            w.index,
            src.map_or(0, |s| s.line)
        ));
    }
    let parked = super::park::deadlock(mc, cl);
    let rest = parked
        .message
        .split_once("; ")
        .map(|(_, r)| r.trim())
        .filter(|r| !r.is_empty())
        .map(|r| format!("; {r}"))
        .unwrap_or_default();
    let mut f = fault(
        FaultKind::Deadlock,
        format!(
            "deadlock: every running warp spins in a loop that can no longer observe a change (no store, no atomic update, no barrier or mbarrier change and no asynchronous operation since); {}{rest}",
            lines.join("; ")
        ),
    );
    if let Some(&(ci, wi, pc)) = spinning.first() {
        let w = &cl.ctas[ci].warps[wi];
        let g = w.groups.iter().find(|g| g.wait == Wait::Ready);
        let fid = w.frames[g.map_or(0, |g| g.frame) as usize].func;
        let lane = g.map_or(0, |g| g.mask.trailing_zeros());
        f = with_cta(at(f, fid, pc, w.index * WARP as u32 + lane), cl.ctas[ci].id);
    }
    f
}

/// Everything that decides a warp's next steps when memory does not change.
fn state_hash(w: &Warp) -> u64 {
    let mut h = rustc_hash::FxHasher::default();
    for g in &w.groups {
        (g.pc, g.mask, g.frame, g.wait == Wait::Ready, g.stack.len()).hash(&mut h);
    }
    for f in &w.frames {
        (f.func.0, f.carry, f.live).hash(&mut h);
        (f.regs.len(), hash_words(&f.regs)).hash(&mut h);
        f.params.hash(&mut h);
    }
    (w.exited, w.local_top).hash(&mut h);
    h.finish()
}

/// A hash of a register file (kilobytes: most of a sample's cost), in the manner of XXH3's
/// long-input loop: each word is mixed with a key that differs with its position (so that
/// exchanged values change the hash) and multiplied half by half into one sum, and added as it
/// is into another. The loop is one reduction, which vectorises without shuffles (four words
/// to an instruction in the copy built with AVX2, chosen at run time).
#[multiversion::multiversion(targets("x86_64+avx+avx2"))]
fn hash_words(words: &[u64]) -> u64 {
    const STEP: u64 = 0x9e37_79b9_7f4a_7c15;
    let (mut prod, mut sum) = (0u64, 0u64);
    let mut key = 0x243f_6a88_85a3_08d3u64;
    for &w in words {
        let x = w ^ key;
        prod = prod.wrapping_add((x & 0xffff_ffff) * (x >> 32));
        sum = sum.wrapping_add(w);
        key = key.wrapping_add(STEP);
    }
    let mut h = rustc_hash::FxHasher::default();
    (prod, sum).hash(&mut h);
    h.finish()
}
