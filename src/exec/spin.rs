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
//! iteration. Compiled code takes a loop's back edges itself while the [`EdgeRule`] of its
//! straight run says the detector would only count them (`stuck::edge_rule`), and leaves the
//! others, those that sample, to the interpreter.

use crate::ir::mods::SubOp;
use crate::ir::{Instr, Op};

/// Warp instructions without an effect before states are sampled.
pub(crate) const QUIET: u64 = 1 << 14;
/// Most back-edges between two samples of one warp.
pub(crate) const MAX_BACKOFF: u32 = 10;

/// What a cluster's spin detector knows.
#[derive(Debug, Default)]
pub(crate) struct Spin {
    /// Warp instructions of the machine at the last effect.
    pub(crate) quiet_from: u64,
    /// Bumped at each effect: samples of an earlier epoch are stale.
    pub(crate) epoch: u64,
    /// `Machine::progress` when the epoch began.
    pub(crate) progress: u64,
    /// Per CTA of the running unit, per warp (made on a warp's first sampled back-edge; a
    /// default entry is a warp never sampled): indexed, not looked up in a map, because a
    /// warp looping without effects reaches it at every backward branch.
    warps: Vec<Vec<WarpSpin>>,
}

#[derive(Debug, Default)]
pub(crate) struct WarpSpin {
    pub(crate) epoch: u64,
    /// Back-edges taken in this epoch, and the count at which the next sample is due.
    pub(crate) edges: u64,
    pub(crate) next: u64,
    pub(crate) backoff: u32,
    /// The last sampled state at each back-edge target.
    pub(crate) samples: Vec<(u32, u64)>,
    /// The branch (pc) of the proven cycle.
    pub(crate) stuck: Option<u32>,
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

    /// What is known of warp `wi` of CTA `ci`.
    pub(crate) fn warp(&self, ci: usize, wi: usize) -> Option<&WarpSpin> {
        self.warps.get(ci)?.get(wi)
    }

    /// What is known of warp `wi` of CTA `ci`, made on first use.
    pub(crate) fn warp_mut(&mut self, ci: usize, wi: usize) -> &mut WarpSpin {
        if self.warps.len() <= ci {
            self.warps.resize_with(ci + 1, Vec::new);
        }
        let cta = &mut self.warps[ci];
        if cta.len() <= wi {
            cta.resize_with(wi + 1, WarpSpin::default);
        }
        &mut cta[wi]
    }

    /// A new cluster starts at warp instruction `now`.
    pub(crate) fn reset(&mut self, now: u64) {
        *self = Spin {
            quiet_from: now,
            ..Spin::default()
        };
    }
}

/// What `stuck::back_edge` would do at the back edges one straight run of a warp takes (compiled
/// code takes a loop's back edge itself: `jit/`), decided before the run starts, since nothing
/// it reads changes while only registers do. Edges are named by their position in the run (the
/// run's `k`-th instruction, from one, is the machine's warp instruction `base + k`).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) struct EdgeRule {
    /// Edges at positions below this fall in the quiet time: `back_edge` returns at once.
    pub(crate) quiet_before: u64,
    /// What it does after the quiet time.
    pub(crate) then: AfterQuiet,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum AfterQuiet {
    /// The first edge does something else (a new epoch begins, a warp's record is made or
    /// reset, a sample is due): the interpreter takes it.
    Stop,
    /// Returns at once (an asynchronous event or a wait's deadline is ahead).
    Pass,
    /// Counts the warp's edges, this many before the one that samples.
    Count(u64),
}

impl EdgeRule {
    /// No back edge may be taken (a run without a loop, tests).
    pub(crate) const NONE: EdgeRule = EdgeRule {
        quiet_before: 0,
        then: AfterQuiet::Stop,
    };

    /// How many back edges, at positions `first`, `first + period`, ..., may be taken without
    /// `stuck::back_edge`: those of the quiet time, then as many as it would only count or pass.
    pub(crate) fn allowed(&self, first: u64, period: u64) -> u64 {
        let quiet = self.quiet_edges(first, period);
        match self.then {
            AfterQuiet::Stop => quiet,
            AfterQuiet::Pass => u64::MAX,
            AfterQuiet::Count(n) => quiet.saturating_add(n),
        }
    }

    /// Of `taken` back edges at `first`, `first + period`, ..., how many `stuck::back_edge` would
    /// have counted (for `stuck::count_edges`).
    pub(crate) fn counted(&self, first: u64, period: u64, taken: u64) -> u64 {
        match self.then {
            AfterQuiet::Count(_) => taken.saturating_sub(self.quiet_edges(first, period)),
            _ => 0,
        }
    }

    /// How many of the edges at `first`, `first + period`, ... fall in the quiet time.
    fn quiet_edges(&self, first: u64, period: u64) -> u64 {
        match self.quiet_before.checked_sub(first) {
            Some(d) if d > 0 => (d - 1) / period.max(1) + 1,
            _ => 0,
        }
    }
}

#[cfg(test)]
mod tests {
    use super::{AfterQuiet, EdgeRule};

    /// `back_edge`'s answer at each edge, position by position, against the rule's sums.
    #[test]
    fn an_edge_rule_allows_and_counts_the_edges_back_edge_would_pass() {
        for quiet_before in [0, 1, 5, 17, 40] {
            for then in [
                AfterQuiet::Stop,
                AfterQuiet::Pass,
                AfterQuiet::Count(0),
                AfterQuiet::Count(3),
            ] {
                let rule = EdgeRule { quiet_before, then };
                for (first, period) in [(1, 1), (3, 7), (20, 4), (41, 2)] {
                    // Walk the edges one by one as `back_edge` meets them.
                    let (mut allowed, mut counted) = (0u64, 0u64);
                    for j in 0..100 {
                        let at = first + j * period;
                        let pass = match (at < quiet_before, then) {
                            (true, _) | (false, AfterQuiet::Pass) => true,
                            (false, AfterQuiet::Count(n)) if counted < n => {
                                counted += 1;
                                true
                            }
                            _ => false,
                        };
                        if !pass {
                            break;
                        }
                        allowed += 1;
                    }
                    // A walk that never stopped: at least as many.
                    let got = rule.allowed(first, period);
                    match allowed {
                        100 => assert!(got >= 100, "{rule:?} {first} {period}"),
                        _ => assert_eq!(got, allowed, "{rule:?} {first} {period}"),
                    }
                    assert_eq!(
                        rule.counted(first, period, allowed),
                        counted,
                        "{rule:?} {first} {period}"
                    );
                }
            }
        }
        assert_eq!(EdgeRule::NONE.allowed(1, 1), 0);
    }
}
