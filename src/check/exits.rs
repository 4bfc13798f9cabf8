//! The end of a CTA's shared memory (PTX ISA 9.0 5.1.5.1 "Distributed shared memory"): when the
//! last thread of a CTA exits, its shared memory is gone. Every peer CTA's access to it and
//! every asynchronous operation's access to it (a bulk store's source, a copy into it, a
//! peer's `st.async`) must be ordered before the exit, that is, observed by some thread of the
//! CTA before it exited: else `dsmem-access-after-exit`. Accesses that come after the exit in
//! the run stop it in the executor (`memops`).

use super::kind::HazardKind;
use super::report::Msg;
use super::site::Site;
use super::state::{op_name, Checker, SmemOp};
use crate::latency::OpClass;
use crate::mem::copy::{Engine, Loc, OpId};
use crate::mem::hb::Epoch;
use crate::mem::shadow::{Stamp, Who};

impl Checker {
    /// The last thread of CTA `rank` exited at `exit` (PTX ISA 9.0 5.1.5.1: its shared memory
    /// ends with it): every access a peer CTA made to that memory must be ordered before the
    /// exit (`barrier.cluster` arrive/wait, an mbarrier the exiting CTA waits on, ...), else it
    /// may land after the memory is gone: `dsmem-access-after-exit` at the access. (Accesses
    /// that come after the exit in the run stop it: `memops::check_peer_alive`.)
    pub fn cta_exited(&mut self, exit: Site, ctas: &[[u32; 3]]) {
        let rank = exit.rank;
        let Some(shadow) = self.shared.get(rank as usize) else {
            return;
        };
        let vc = &self.warps[rank as usize][exit.warp as usize].vc;
        let own = &self.warps[rank as usize];
        let mut late: Vec<(usize, Stamp)> = shadow
            .stamps(&self.events)
            .filter(|(_, st)| match st.who() {
                Who::Warp { at, .. } => !own.iter().any(|w| w.me == at.agent) && !vc.covers(at),
                Who::Op { .. } => false,
            })
            .collect();
        late.dedup_by_key(|(_, st)| st.site());
        for (off, st) in late {
            let Who::Warp { at, .. } = st.who() else {
                continue;
            };
            let Some((peer, warp)) = self.rank_of(at.agent) else {
                continue;
            };
            let (func, pc) = st.site();
            let site = Site {
                func,
                pc,
                rank: peer,
                cta: ctas.get(peer as usize).copied().unwrap_or_default(),
                warp,
                lane: 0,
            };
            self.report(
                HazardKind::DsmemAccessAfterExit,
                site,
                Msg::text(format!("access to shared+{off:#x} of CTA rank {rank} (distributed shared memory) that nothing orders before CTA rank {rank} exits at line ")).related_line().then(": it may happen after that CTA's shared memory is gone (the H100 fails the launch)"),
                "keep the CTA running until its peers are done with its shared memory: barrier.cluster.arrive + barrier.cluster.wait (cluster.sync()) by every thread before it exits",
                format!("shared+{off:#x} of CTA rank {rank}"),
                Some((exit.func, exit.pc, format!("CTA rank {rank} exits here"))),
            );
        }
    }

    /// Remembers which CTAs' shared memory operation `op` reads or writes, for
    /// [`Self::ops_at_exit`].
    pub(super) fn note_smem_op(&mut self, o: &crate::mem::copy::Op, op: OpId) {
        let first = self.smem_ops.len();
        for s in &o.spec.segs {
            for (loc, write) in [(s.src, false), (s.dst, true)] {
                let Loc::Shared { rank, off } = loc else {
                    continue;
                };
                let seen = self.smem_ops[first..]
                    .iter()
                    .any(|m| m.rank == rank && m.write == write);
                if !seen {
                    self.smem_ops.push(SmemOp {
                        op,
                        rank,
                        write,
                        off,
                    });
                }
            }
        }
    }

    /// The last thread of CTA `exit.rank` exited at `exit`, and its shared memory is gone (PTX
    /// ISA 9.0 5.1.5.1): every asynchronous operation's access to that memory must be ordered
    /// before the exit, that is, some thread of the CTA observed its end before exiting (the
    /// async-group wait, `.read` for a bulk store's source, or the mbarrier phase that tracks
    /// it). Else the operation may read or write the memory after it is freed:
    /// `dsmem-access-after-exit` at the exit, with the operation as the related line. Decided
    /// on the epochs of the operation's completion, never on whether it happened to complete.
    pub fn ops_at_exit(&mut self, engine: &Engine, exit: Site, cluster: bool) {
        let rank = exit.rank;
        let Some(released) = self.exited.get(rank as usize) else {
            return;
        };
        let late: Vec<SmemOp> = self
            .smem_ops
            .iter()
            .filter(|m| m.rank == rank)
            .filter(|m| {
                engine.op(m.op).is_some_and(|o| {
                    !access_end(o, rank, m.write).is_some_and(|e| released.covers(e))
                })
            })
            .copied()
            .collect();
        let who = if cluster {
            format!("CTA rank {rank}")
        } else {
            "the CTA".to_string()
        };
        for m in late {
            let Some(o) = engine.op(m.op) else { continue };
            let name = op_name(engine, m.op);
            let verb = if m.write { "writes" } else { "reads" };
            let bulk_read = !m.write
                && matches!(
                    o.class(),
                    OpClass::Bulk | OpClass::BulkReduce | OpClass::Tensor
                );
            let wait = match o.by_group() {
                true if bulk_read => "wait for the copy to finish reading its source before the CTA exits: cp.async.bulk.wait_group.read (or cp.async.bulk.wait_group) in the issuing thread",
                true => "wait for the operation's group before the CTA exits: cp.async.wait_group / cp.async.wait_all (cp.async), wgmma.wait_group (wgmma) in the issuing thread",
                _ => "order the exit after the mbarrier phase that tracks the operation: wait on it (mbarrier.try_wait until it returns true) in the CTA that owns it, and keep a source CTA running until then (barrier.cluster)",
            };
            let address = format!("shared+{:#x} of {who}", m.off);
            self.report(
                HazardKind::DsmemAccessAfterExit,
                exit,
                Msg::text(format!("{who} exits while the {name} at line ")).related_line().then(format!(", which {verb} its shared memory (shared+{:#x}), may still be in flight: nothing orders the exit after that access, and the memory is freed at the exit", m.off)),
                wait,
                address,
                Some((
                    o.issuer().func,
                    o.issuer().pc,
                    format!("the {name} still accessing {who}'s shared memory"),
                )),
            );
        }
    }
}

/// The epoch after which an operation no longer accesses CTA `rank`'s shared memory: its
/// completion for a write there, the end of its source reads for a read. An async-group's
/// epochs are fixed at issue; an mbarrier phase's only once the operation completed (`None`
/// while it is in flight: no wait can have observed it).
pub(super) fn access_end(o: crate::mem::copy::OpRef<'_>, rank: u32, write: bool) -> Option<Epoch> {
    let slot = o.slot();
    match slot.group_epochs() {
        Some((done, read)) => Some(if write { done } else { read }),
        None if write => slot.completion(rank),
        None => slot.sources_released(o.read_done(), o.issuer().rank),
    }
}
