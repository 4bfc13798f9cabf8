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
