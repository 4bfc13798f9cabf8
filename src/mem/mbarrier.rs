//! The mbarrier object as PTX ISA 9.0 section 9.7.13.15 defines it: a 64-bit object in shared
//! memory with a current phase, an expected arrival count, a pending arrival count and a
//! tx-count. A phase completes when its pending arrivals and its tx-count are both zero; the next
//! phase then starts with the expected count (9.7.13.15.4 "Phase Completion"). `arrive_drop`
//! also lowers the expected count of later phases (9.7.13.15.12). tx-count lives in
//! [-(2^20-1), 2^20-1] (9.7.13.15.5); it may go below zero while arrivals are still pending,
//! because a copy's complete-tx may reach the object before the thread's expect-tx does.
//!
//! ptxrun keeps the state beside shared memory (a map from offset to [`Mbarrier`]) and mirrors an
//! encoding of it into the object's 8 bytes, so a kernel that loads them sees a value that
//! changes with the state. The state token that `arrive` returns encodes the phase it arrived
//! in; a wait on a token is complete once the object's phase has moved past it, a wait on a
//! parity once the current phase's parity differs (the phase with that parity has completed).
//!
//! For the happens-before checker the object also carries a vector clock: arrivals with
//! release semantics join their clock into it, and a completed phase keeps a snapshot with the
//! object's own agent raised to the number of completed phases, which operations whose
//! complete-tx counted towards that phase use as their completion epoch (`mem::hb`).

use super::hb::{Agent, Epoch, Vc};
use std::fmt;

/// Largest arrival count and tx-count magnitude (2^20 - 1).
pub const COUNT_MAX: u32 = (1 << 20) - 1;
pub const TX_MAX: i64 = (1 << 20) - 1;

/// Marks a value as a state token that ptxrun made (bit 63).
const TOKEN_TAG: u64 = 1 << 63;

#[derive(Debug, Clone, PartialEq, Eq, Default)]
pub struct Mbarrier {
    /// Phases completed so far; the current phase's parity is `phase & 1`.
    pub phase: u32,
    /// Arrivals each new phase expects.
    pub expected: u32,
    /// Arrivals the current phase still waits for.
    pub pending: u32,
    /// Outstanding transaction bytes of the current phase.
    pub tx: i64,
    /// Asynchronous operations whose complete-tx or arrive-on counted towards the current phase,
    /// and those of the phase that completed last (for traces).
    pub phase_ops: Vec<u32>,
    pub last_ops: Vec<u32>,
    /// The object's agent (0 when nothing checks happens-before).
    pub agent: Agent,
    /// What arrivals released so far (cumulative over phases).
    pub released: Vc,
    /// The clocks of the last completed phases: (phase, clock a wait that observes it acquires).
    pub completed: Vec<(u32, Vc)>,
    /// The `mbarrier.init` that made it: its epoch and instruction (function, index); a use
    /// must be ordered after it.
    pub init: Option<(Epoch, u32, u32)>,
}

/// Completed phases whose clocks an mbarrier keeps (waits on older tokens get a later one).
const KEPT_PHASES: usize = 4;

/// Misuse of an mbarrier, named by the contract's hazard kinds.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum MbarError {
    /// More arrivals than the phase has pending.
    ArrivalUnderflow {
        pending: u32,
        count: u32,
    },
    /// An arrival count outside 1..=2^20-1.
    BadCount(u64),
    TxOverflow {
        tx: i64,
        add: u64,
    },
    TxUnderflow {
        tx: i64,
        sub: u64,
    },
    /// `arrive.noComplete` made the phase complete.
    NoCompleteCompleted,
}

impl MbarError {
    /// The hazard kind of `../shared/contract.md`.
    pub fn kind(&self) -> crate::check::HazardKind {
        match self {
            MbarError::TxOverflow { .. } => crate::check::HazardKind::TxCountOverflow,
            MbarError::TxUnderflow { .. } => crate::check::HazardKind::TxCountUnderflow,
            _ => crate::check::HazardKind::MbarrierMisuse,
        }
    }
}

impl fmt::Display for MbarError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            MbarError::ArrivalUnderflow { pending, count } => write!(
                f,
                "{count} arrival(s) on an mbarrier whose current phase has only {pending} pending"
            ),
            MbarError::BadCount(c) => write!(f, "arrival count {c} is outside 1..=2^20-1"),
            MbarError::TxOverflow { tx, add } => write!(
                f,
                "expect-tx of {add} bytes drives the tx-count from {tx} past its limit 2^20-1"
            ),
            MbarError::TxUnderflow { tx, sub } => write!(
                f,
                "complete-tx of {sub} bytes drives the tx-count from {tx} below zero after every arrival (more bytes delivered than expected)"
            ),
            MbarError::NoCompleteCompleted => {
                write!(f, "`mbarrier.arrive.noComplete` completed the current phase")
            }
        }
    }
}

/// What one arrival did.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Arrival {
    /// The state token: the phase the arrival counted towards.
    pub token: u64,
    /// Whether this arrival completed the phase.
    pub completed: bool,
}

impl Mbarrier {
    /// `mbarrier.init`: phase 0, `count` arrivals expected and pending, tx-count 0.
    pub fn new(count: u32) -> Result<Mbarrier, MbarError> {
        if count == 0 || count > COUNT_MAX {
            return Err(MbarError::BadCount(u64::from(count)));
        }
        Ok(Mbarrier {
            phase: 0,
            expected: count,
            pending: count,
            tx: 0,
            ..Mbarrier::default()
        })
    }

    /// The epoch a complete-tx now would complete with: the current phase, once completed.
    pub fn completion_epoch(&self) -> Epoch {
        Epoch {
            agent: self.agent,
            clock: self.phase + 1,
        }
    }

    /// The clock a wait that observed the completion of `phase` acquires (the kept phase at
    /// or after it; completed phases are cumulative).
    pub fn phase_clock(&self, phase: u32) -> Option<&Vc> {
        self.completed
            .iter()
            .find(|(p, _)| *p >= phase)
            .or(self.completed.last())
            .map(|(_, vc)| vc)
    }

    /// The clock of the latest completed phase with parity `p`.
    pub fn parity_clock(&self, p: u32) -> Option<&Vc> {
        self.completed
            .iter()
            .rev()
            .find(|(k, _)| k & 1 == p & 1)
            .map(|(_, vc)| vc)
    }

    /// Joins what an arrival with release semantics releases.
    pub fn release(&mut self, vc: &Vc) {
        self.released.join(vc);
    }

    /// The token of the current phase, with the pending count packed in for `pending_count`.
    pub fn token(&self) -> u64 {
        TOKEN_TAG | (u64::from(self.pending) << 32) | u64::from(self.phase)
    }

    /// The phase a token names.
    pub fn token_phase(token: u64) -> u32 {
        token as u32
    }

    /// `mbarrier.pending_count`: the pending arrivals a token recorded.
    pub fn token_pending(token: u64) -> u32 {
        ((token >> 32) as u32) & COUNT_MAX
    }

    /// Whether the phase a token names has completed.
    pub fn token_done(&self, token: u64) -> bool {
        self.phase != Self::token_phase(token)
    }

    /// Whether the phase of parity `p` has completed: the current phase has the other parity.
    pub fn parity_done(&self, p: u32) -> bool {
        self.phase & 1 != p & 1
    }

    /// The 8 bytes the object holds in shared memory (layout private to ptxrun).
    pub fn encode(&self) -> u64 {
        (u64::from(self.phase & 1) << 63)
            | ((self.tx as u64 & 0x1f_ffff) << 40)
            | (u64::from(self.pending) << 20)
            | u64::from(self.expected)
    }

    /// Completes the phase if nothing is pending; returns whether it did.
    fn try_complete(&mut self) -> bool {
        if self.pending != 0 || self.tx != 0 {
            return false;
        }
        if self.agent != 0 {
            self.released.raise(self.agent, self.phase + 1);
            if self.completed.len() == KEPT_PHASES {
                self.completed.remove(0);
            }
            self.completed.push((self.phase, self.released.clone()));
        }
        self.phase = self.phase.wrapping_add(1);
        self.pending = self.expected;
        self.last_ops = std::mem::take(&mut self.phase_ops);
        true
    }

    /// `count` arrive-on operations (`mbarrier.arrive`, or a `cp.async.mbarrier.arrive` firing);
    /// `drop` also lowers the expected count of later phases (`arrive_drop`).
    pub fn arrive(
        &mut self,
        count: u32,
        drop: bool,
        no_complete: bool,
    ) -> Result<Arrival, MbarError> {
        if count == 0 || count > COUNT_MAX {
            return Err(MbarError::BadCount(u64::from(count)));
        }
        if count > self.pending {
            return Err(MbarError::ArrivalUnderflow {
                pending: self.pending,
                count,
            });
        }
        let token = self.token();
        self.pending -= count;
        if drop {
            self.expected = self.expected.saturating_sub(count);
        }
        if no_complete && self.pending == 0 && self.tx == 0 {
            return Err(MbarError::NoCompleteCompleted);
        }
        let completed = self.try_complete();
        Ok(Arrival { token, completed })
    }

    /// `cp.async.mbarrier.arrive` without `.noinc`: one more arrival pending in this phase.
    pub fn add_pending(&mut self) -> Result<(), MbarError> {
        if self.pending >= COUNT_MAX {
            return Err(MbarError::BadCount(u64::from(self.pending) + 1));
        }
        self.pending += 1;
        Ok(())
    }

    /// expect-tx: the current phase waits for `bytes` more transaction bytes.
    pub fn expect_tx(&mut self, bytes: u64) -> Result<(), MbarError> {
        let new = self.tx + bytes as i64;
        if bytes > TX_MAX as u64 || new > TX_MAX {
            return Err(MbarError::TxOverflow {
                tx: self.tx,
                add: bytes,
            });
        }
        self.tx = new;
        Ok(())
    }

    /// complete-tx: `bytes` transaction bytes arrived; returns whether the phase completed. Going
    /// below zero is an error only once every arrival is in (nothing can expect them any more)
    /// or beyond the range the object can hold.
    pub fn complete_tx(&mut self, bytes: u64, op: Option<u32>) -> Result<bool, MbarError> {
        let new = self.tx - bytes as i64;
        if bytes > TX_MAX as u64 || new < -TX_MAX || (new < 0 && self.pending == 0) {
            return Err(MbarError::TxUnderflow {
                tx: self.tx,
                sub: bytes,
            });
        }
        self.tx = new;
        if let Some(op) = op {
            self.phase_ops.push(op);
        }
        Ok(self.try_complete())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_phase_completes_when_arrivals_and_tx_reach_zero() {
        let mut b = Mbarrier::new(2).unwrap();
        let a = b.arrive(1, false, false).unwrap();
        assert!(!a.completed && !b.token_done(a.token));
        b.expect_tx(64).unwrap();
        let a2 = b.arrive(1, false, false).unwrap();
        assert!(!a2.completed, "tx-count still 64");
        assert_eq!(b.phase, 0);
        assert!(b.complete_tx(64, Some(7)).unwrap());
        assert_eq!((b.phase, b.pending, b.tx), (1, 2, 0));
        assert!(b.token_done(a.token));
        assert_eq!(b.last_ops, vec![7]);
        assert!(b.parity_done(0) && !b.parity_done(1));
    }

    #[test]
    fn complete_tx_may_precede_expect_tx() {
        // A bulk copy issued before `arrive.expect_tx` can deliver its bytes first.
        let mut b = Mbarrier::new(1).unwrap();
        assert!(!b.complete_tx(4096, None).unwrap());
        assert_eq!(b.tx, -4096);
        b.expect_tx(4096).unwrap();
        assert!(b.arrive(1, false, false).unwrap().completed);
        assert_eq!(b.phase, 1);
    }

    #[test]
    fn more_bytes_than_expected_is_an_underflow() {
        let mut b = Mbarrier::new(1).unwrap();
        b.expect_tx(16).unwrap();
        assert!(!b.arrive(1, false, false).unwrap().completed);
        let e = b.complete_tx(32, None).unwrap_err();
        assert_eq!(e.kind(), crate::check::HazardKind::TxCountUnderflow);
        let e = b.expect_tx(1 << 20).unwrap_err();
        assert_eq!(e.kind(), crate::check::HazardKind::TxCountOverflow);
    }

    #[test]
    fn arrive_drop_lowers_later_phases() {
        let mut b = Mbarrier::new(3).unwrap();
        b.arrive(1, true, false).unwrap();
        b.arrive(2, false, false).unwrap();
        assert_eq!((b.phase, b.expected, b.pending), (1, 2, 2));
        assert!(b.arrive(2, false, false).unwrap().completed);
        assert_eq!(b.phase, 2);
    }

    #[test]
    fn completed_phases_keep_the_clocks_waits_acquire() {
        let mut b = Mbarrier::new(1).unwrap();
        b.agent = 50;
        let mut v = Vc::new();
        v.raise(7, 3);
        b.release(&v);
        assert_eq!(
            b.completion_epoch(),
            Epoch {
                agent: 50,
                clock: 1
            }
        );
        b.arrive(1, false, false).unwrap();
        let c0 = b.parity_clock(0).unwrap();
        assert!(
            c0.covers(Epoch { agent: 7, clock: 3 })
                && c0.covers(Epoch {
                    agent: 50,
                    clock: 1
                })
        );
        assert!(b.parity_clock(1).is_none());
        b.arrive(1, false, false).unwrap();
        assert!(b.parity_clock(1).unwrap().covers(Epoch {
            agent: 50,
            clock: 2
        }));
        assert!(b
            .phase_clock(0)
            .unwrap()
            .covers(Epoch { agent: 7, clock: 3 }));
    }

    #[test]
    fn misuse_is_reported() {
        let mut b = Mbarrier::new(1).unwrap();
        assert_eq!(
            b.arrive(2, false, false).unwrap_err(),
            MbarError::ArrivalUnderflow {
                pending: 1,
                count: 2
            }
        );
        assert_eq!(
            b.arrive(1, false, true).unwrap_err(),
            MbarError::NoCompleteCompleted
        );
        assert!(Mbarrier::new(0).is_err());
        assert!(Mbarrier::new(COUNT_MAX + 1).is_err());
    }

    #[test]
    fn tokens_and_parities_over_many_phases() {
        let mut b = Mbarrier::new(1).unwrap();
        let mut tokens = Vec::new();
        for k in 0..5u32 {
            assert!(
                b.parity_done(1 - (k & 1)),
                "phase {k}: the previous parity is done"
            );
            assert!(!b.parity_done(k & 1));
            let a = b.arrive(1, false, false).unwrap();
            assert!(a.completed);
            assert_eq!(Mbarrier::token_phase(a.token), k);
            tokens.push(a.token);
        }
        assert!(tokens.iter().all(|t| b.token_done(*t)));
        assert!(!b.token_done(b.token()));
        assert_eq!(Mbarrier::token_pending(b.token()), 1);
    }
}
