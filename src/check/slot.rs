//! The checker's record of one asynchronous operation (PTX ISA 9.0 section 9.7.9.25.1
//! "Completion Mechanisms for Asynchronous Copy Operations", chapter 8 "Memory Consistency
//! Model"): the epochs at which its completion and the end of its source reads become
//! observable, and what its complete-tx releases. The copy engine (`mem::copy`) carries one with
//! every operation without reading it, and calls its hooks at the events only the engine sees (a
//! complete-tx counting towards an mbarrier phase, the completion); the checker fills it at the
//! issue (`copies.rs`) and reads it when it judges a later access or a wait.
//!
//! It lives in the checker, but imports only the memory layer's clocks and mbarrier object
//! (`mem::hb`, `mem::mbarrier`), never the engine or another file of the checker: the engine
//! names this file, and the checker's rule files name the engine, so a slot defined beside
//! them would close an import circle.

use crate::mem::hb::{Epoch, Vc};
use crate::mem::mbarrier::Mbarrier;

/// What the checker keeps of an asynchronous operation, carried by the copy engine (an empty
/// slot when nothing checks).
#[derive(Debug, Clone, Default)]
pub struct CopySlot {
    /// An operation an async-group tracks: the epochs of its completion and of the end of its
    /// source reads on the issuing warp's group clocks, fixed at the issue.
    group: Option<(Epoch, Epoch)>,
    /// What its complete-tx releases (`st.async`/`red.async`: the issuer's clock at the issue;
    /// empty for copies, whose complete-tx releases nothing of the issuer's). Dropped at the
    /// completion.
    release: Vc,
    /// Per destination CTA rank, the completion epoch of the mbarrier phase its complete-tx
    /// counted towards (known once the operation completed).
    tx: Vec<(u32, Epoch)>,
    /// The operation completed.
    done: bool,
}

impl CopySlot {
    pub(super) fn new(group: Option<(Epoch, Epoch)>, release: Vc) -> Self {
        CopySlot {
            group,
            release,
            ..CopySlot::default()
        }
    }

    /// Engine hook: the operation's complete-tx is about to count on mbarrier `b`, which takes
    /// what it releases.
    pub fn complete_tx(&self, b: &mut Mbarrier) {
        b.release(&self.release);
    }

    /// Engine hook: its complete-tx counted towards the phase of an mbarrier of CTA `rank`
    /// whose completion is epoch `phase_end`.
    pub fn counted(&mut self, rank: u32, phase_end: Epoch) {
        self.tx.push((rank, phase_end));
    }

    /// Engine hook: the operation completed; the slot keeps what later judgements need.
    pub fn completed(&mut self) {
        self.done = true;
        self.release = Vc::new();
    }

    /// For an operation an async-group tracks: the epochs of its completion and of the end of
    /// its source reads.
    pub fn group_epochs(&self) -> Option<(Epoch, Epoch)> {
        self.group
    }

    /// The epoch a wait must have observed for the operation's writes to CTA `rank` (or to
    /// global memory, any rank) to be visible; `None` while it is in flight.
    pub fn completion(&self, rank: u32) -> Option<Epoch> {
        if !self.done {
            return None;
        }
        if let Some((done, _)) = self.group {
            return Some(done);
        }
        self.tx
            .iter()
            .find(|(r, _)| *r == rank)
            .or(self.tx.first())
            .map(|(_, e)| *e)
    }

    /// The epoch after which its sources may be written again (`read_done`: the engine read
    /// them; `issuer_rank`: the issuing CTA's rank); `None` until it is observable.
    pub fn sources_released(&self, read_done: bool, issuer_rank: u32) -> Option<Epoch> {
        match self.group {
            Some((_, read)) if read_done => Some(read),
            _ => self.completion(issuer_rank),
        }
    }
}
