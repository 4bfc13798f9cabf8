//! Spin loops that can never end: a warp polling a flag nobody will set, or retrying a lock
//! nobody will release, runs until the step limit on any interpreter; here it is reported as
//! a `deadlock` naming the spinning lines as soon as it is proven.
//!
//! The proof is a repeated state. Once a cluster has executed [`QUIET`] warp instructions
//! with no effect outside the warps' own registers — no store, no atomic that changed memory,
//! no barrier or mbarrier change, no asynchronous operation in flight or completing, no call,
//! no exit — each warp's next steps depend only on its registers and on memory that no longer
//! changes (PTX ISA 9.0 section 8: without a write, a read keeps returning the same value). A
//! warp whose whole state (every group's pc and mask, every frame's registers) is the same at
//! two taken backward branches to the same target is then in a cycle that cannot be left;
//! when every warp of the cluster that is not parked or exited is in such a cycle, nothing can
//! change any more. Instructions whose result depends on time (`%clock`, `%globaltimer`)
//! change the registers and so never look like a cycle. States are sampled at back-edges with
//! an exponential backoff, so a long loop with no stores costs a few hashes, not one per
//! iteration.

use super::step::{at, fault, with_cta, Cluster, Machine, Wait, Warp, WARP};
use super::{Fault, FaultKind};
use crate::ir::mods::SubOp;
use crate::ir::{Instr, Op, Operand};
use std::collections::BTreeMap;
use std::hash::{Hash, Hasher};

/// Warp instructions without an effect before states are sampled.
const QUIET: u64 = 1 << 14;
/// Most back-edges between two samples of one warp.
const MAX_BACKOFF: u32 = 10;

/// What a cluster's spin detector knows.
#[derive(Debug, Default)]
pub(crate) struct Spin {
    /// Warp instructions of the machine at the last effect.
    quiet_from: u64,
    /// Bumped at each effect: samples of an earlier epoch are stale.
    epoch: u64,
    /// `Machine::progress` when the epoch began.
    progress: u64,
    warps: BTreeMap<(usize, usize), WarpSpin>,
}

#[derive(Debug, Default)]
struct WarpSpin {
    epoch: u64,
    /// Back-edges taken in this epoch, and the count at which the next sample is due.
    edges: u64,
    next: u64,
    backoff: u32,
    /// The last sampled state at each back-edge target.
    samples: Vec<(u32, u64)>,
    /// The branch (pc) of the proven cycle.
    stuck: Option<u32>,
}

/// How an executed instruction can change anything beyond its warp's registers.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Effect {
    None,
    Always,
    /// `atom.cas`: only when a lane's compare matched.
    IfCasMatched,
    /// `atom.exch`: only when a lane wrote a different value.
    IfExchChanged,
}

/// The effect of an instruction: anything not known to be register-only counts.
pub(crate) fn effect(ins: &Instr) -> Effect {
    use Op::*;
    match ins.op {
        Atom => match ins.mods.sub {
            Some(SubOp::Cas) => Effect::IfCasMatched,
            Some(SubOp::Exch) => Effect::IfExchChanged,
            _ => Effect::Always,
        },
        Add | Sub | Addc | Subc | Mul | Mad | Madc | Mul24 | Mad24 | Sad | Div | Rem | Abs
        | Neg | Min | Max | Popc | Clz | Bfind | Fns | Brev | Bfe | Bfi | Szext | Bmsk | Dp4a
        | Dp2a | Copysign | Testp | Fma | Rcp | Sqrt | Rsqrt | Sin | Cos | Lg2 | Ex2 | Tanh
        | Set | Setp | Selp | Slct | And | Or | Xor | Not | Cnot | Lop3 | Shf | Shl | Shr | Mov
        | Prmt | Shfl | Ld | Ldu | Prefetch | Prefetchu | Isspacep | Cvta | Cvt | CvtPack
        | Mapa | Getctarank | Bra | Membar | Fence | MbarrierTestWait | MbarrierTryWait
        | MbarrierPendingCount => Effect::None,
        _ => Effect::Always,
    }
}

impl Spin {
    /// Something changed outside the warps' registers at warp instruction `now`.
    pub(crate) fn effect(&mut self, now: u64) {
        self.quiet_from = now;
        self.epoch += 1;
    }

    /// A new cluster starts at warp instruction `now`.
    pub(crate) fn reset(&mut self, now: u64) {
        *self = Spin {
            quiet_from: now,
            ..Spin::default()
        };
    }
}

impl Machine<'_> {
    /// After an `atom.cas`/`atom.exch` ran with lanes `active`: an effect if any lane changed memory (its result
    /// register `old` against the operand it compared or wrote).
    pub(crate) fn note_atomic(
        &mut self,
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
        let ops = self.m.functions[frame.func.0 as usize].ops(ins);
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
            self.spin.effect(self.stats.warp_instructions);
        }
    }

    /// Warp `wi` of CTA `ci` took a backward branch at `pc` to `target`: samples its state when
    /// the cluster has been quiet long enough, and returns the deadlock once every warp still
    /// running is proven to cycle.
    pub(crate) fn back_edge(
        &mut self,
        cl: &Cluster,
        (ci, wi): (usize, usize),
        pc: u32,
        target: u32,
    ) -> Result<(), Box<Fault>> {
        let now = self.stats.warp_instructions;
        if now.saturating_sub(self.spin.quiet_from) < QUIET {
            return Ok(());
        }
        if self.progress != self.spin.progress {
            self.spin.progress = self.progress;
            self.spin.effect(now);
            return Ok(());
        }
        if self.engine.next_time().is_some() || self.next_deadline != u64::MAX {
            return Ok(());
        }
        let epoch = self.spin.epoch;
        let ws = self.spin.warps.entry((ci, wi)).or_default();
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
        match self.all_stuck(cl) {
            Some(spinning) => Err(self.spin_deadlock(cl, &spinning)),
            None => Ok(()),
        }
    }

    /// The spinning warps (CTA, warp, branch pc) if every warp of the cluster is exited,
    /// parked or proven to cycle in this epoch.
    fn all_stuck(&self, cl: &Cluster) -> Option<Vec<(usize, usize, u32)>> {
        let mut spinning = Vec::new();
        for (ci, cta) in cl.ctas.iter().enumerate() {
            for (wi, w) in cta.warps.iter().enumerate() {
                if w.groups.iter().all(|g| g.wait != Wait::Ready) {
                    continue;
                }
                let ws = self.spin.warps.get(&(ci, wi))?;
                match ws.stuck {
                    Some(pc) if ws.epoch == self.spin.epoch => spinning.push((ci, wi, pc)),
                    _ => return None,
                }
            }
        }
        Some(spinning)
    }

    /// The deadlock fault: every spinning warp and line, then what the parked ones wait for.
    fn spin_deadlock(&self, cl: &Cluster, spinning: &[(usize, usize, u32)]) -> Box<Fault> {
        let mut lines = Vec::new();
        for &(ci, wi, pc) in spinning {
            let w = &cl.ctas[ci].warps[wi];
            let fid = w.frames[w.groups.first().map_or(0, |g| g.frame) as usize].func;
            let f = &self.m.functions[fid.0 as usize];
            let src = f.srcs.get(pc as usize);
            let cuda = src
                .and_then(|s| s.loc)
                .map_or(String::new(), |(file, l, _)| {
                    format!(", CUDA {}:{l}", self.m.file(file).unwrap_or("?"))
                });
            lines.push(format!(
                "CTA {:?} warp {} spins in the loop ending at line {}{cuda}, reading memory that nothing will write any more",
                cl.ctas[ci].id,
                w.index,
                src.map_or(0, |s| s.line)
            ));
        }
        let parked = self.deadlock(cl);
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
}

/// Everything that decides a warp's next steps when memory does not change.
fn state_hash(w: &Warp) -> u64 {
    let mut h = rustc_hash::FxHasher::default();
    for g in &w.groups {
        (g.pc, g.mask, g.frame, g.wait == Wait::Ready, g.stack.len()).hash(&mut h);
    }
    for f in &w.frames {
        (f.func.0, f.carry, f.live).hash(&mut h);
        f.regs.hash(&mut h);
        f.params.hash(&mut h);
    }
    (w.exited, w.local_top).hash(&mut h);
    h.finish()
}
