//! Instructions that are `.sync.aligned` over a warpgroup, the four consecutive warps `4g` to
//! `4g + 3` of a CTA: `wgmma.mma_async` (PTX ISA 9.0 section 9.7.15: "all warps in the
//! warpgroup must execute the same wgmma.mma_async instruction") and `setmaxnreg`
//! ("Miscellaneous Instructions: setmaxnreg": "the same setmaxnreg instruction must be
//! executed by all warps in a warpgroup"; after one, the warps must synchronize before the
//! next).
//!
//! Warps run one at a time here, so the warps of a warpgroup reach these instructions at
//! different moments. [`Participation`] keeps, per warpgroup, the sites that some warp executed
//! and another has not reached yet; a warp that executes a different site where the others
//! executed one, a warpgroup of fewer than four warps, a warp that falls far behind, or a warp
//! that exits without the sites the others executed is a `divergent-aligned` hazard at the site
//! it skipped. The log holds only the sites between the slowest and the fastest warp.
//!
//! `setmaxnreg` also has an order: [`Participation::setmaxnreg`] records, per warp, the
//! happens-before epochs of its last two `setmaxnreg`, so that each later one is checked to be
//! ordered after the previous one of every other warp of the group (the synchronization the ISA
//! asks for: a `bar.sync` between them, say).

use crate::mem::hb::{Epoch, Vc};
use std::collections::VecDeque;

/// One executed warpgroup-aligned instruction: `(function, pc)` and its name.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) struct Site {
    pub at: (u32, u32),
    pub name: &'static str,
}

/// Which warpgroup-aligned instructions the warps of one warpgroup executed, in order.
#[derive(Debug, Clone, Default)]
pub(crate) struct Participation {
    /// Per warp of the group: instructions executed so far.
    count: [u64; 4],
    /// Instruction number `base + i`, while some warp has not executed it yet.
    pending: VecDeque<Site>,
    base: u64,
    /// Per warp: `setmaxnreg` executed so far, and the epochs of the last two (the last first).
    setmaxnreg: [(u32, [Epoch; 2]); 4],
}

/// How far (in instructions) one warp of a warpgroup may run ahead of another before the
/// laggard is taken for one that skipped it (warps drift apart by a few pipeline stages at
/// most).
const MAX_LAG: usize = 4096;

impl Participation {
    /// Warp `w` (of `present` in its warpgroup) executes `site`; returns the site where the warps
    /// disagree and why.
    pub fn issue(&mut self, w: usize, present: usize, site: Site) -> Option<(Site, String)> {
        if present < 4 {
            let why = format!(
                "the warpgroup has only {present} warp(s): `{}` needs four",
                site.name
            );
            return Some((site, why));
        }
        let idx = (self.count[w] - self.base) as usize;
        match self.pending.get(idx) {
            Some(&theirs) if theirs != site => {
                let n = self.count[w] + 1;
                let another = if theirs.name == site.name {
                    "another "
                } else {
                    ""
                };
                let why = format!(
                    "warp {w} of the warpgroup executed {another}`{}` (its warpgroup instruction \
                     number {n}) where the other warps executed this one",
                    site.name
                );
                return Some((theirs, why));
            }
            Some(_) => {}
            None => self.pending.push_back(site),
        }
        self.count[w] += 1;
        let low = self.count.iter().copied().min().unwrap_or(0);
        while self.base < low {
            self.pending.pop_front();
            self.base += 1;
        }
        (self.pending.len() > MAX_LAG).then(|| {
            let lag = (0..4).min_by_key(|&i| self.count[i]).unwrap_or(0);
            let first = self.pending.front().copied().unwrap_or(site);
            (
                first,
                format!("warp {lag} of the warpgroup did not execute it"),
            )
        })
    }

    /// Warp `w`, whose clock is `vc`, executes a `setmaxnreg` at epoch `now` (after
    /// [`Participation::issue`] accepted it): the previous `setmaxnreg` of every other warp of the
    /// group must happen before it. Returns the first warp whose previous one does not.
    pub fn setmaxnreg(&mut self, w: usize, now: Epoch, vc: &Vc) -> Option<usize> {
        let k = self.setmaxnreg[w].0;
        let unordered = (k > 0).then(|| {
            (0..4).filter(|&v| v != w).find(|&v| {
                let (done, last) = self.setmaxnreg[v];
                // Warp v's setmaxnreg number k - 1 (its previous one, if it is already at k).
                match done.checked_sub(k - 1) {
                    Some(1) => !vc.covers(last[0]),
                    Some(2) => !vc.covers(last[1]),
                    _ => true,
                }
            })
        });
        let (count, last) = &mut self.setmaxnreg[w];
        *count += 1;
        *last = [now, last[0]];
        unordered.flatten()
    }

    /// Every warp of the group exited: one that executed fewer instructions skipped the first
    /// it lacks. Returns that site and the warp.
    pub fn finished(&self) -> Option<(Site, usize)> {
        let (lag, &fewest) = self.count.iter().enumerate().min_by_key(|(_, c)| **c)?;
        let most = self.count.iter().copied().max().unwrap_or(0);
        if fewest == most {
            return None;
        }
        let at = self.pending.get((fewest - self.base) as usize).copied()?;
        Some((at, lag))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    const WGMMA: Site = Site {
        at: (0, 10),
        name: "wgmma.mma_async",
    };
    const DEC: Site = Site {
        at: (0, 3),
        name: "setmaxnreg",
    };

    #[test]
    fn four_warps_executing_the_same_sites_agree() {
        let mut p = Participation::default();
        for w in [2, 0, 3, 1] {
            assert_eq!(p.issue(w, 4, DEC), None);
        }
        for w in [0, 1, 2, 3] {
            assert_eq!(p.issue(w, 4, WGMMA), None);
        }
        assert_eq!(p.finished(), None);
        assert!(p.pending.is_empty());
    }

    #[test]
    fn a_warp_that_skips_setmaxnreg_is_caught_at_its_next_aligned_instruction() {
        let mut p = Participation::default();
        assert_eq!(p.issue(0, 4, DEC), None);
        let (site, why) = p.issue(1, 4, WGMMA).expect("a mismatch");
        assert_eq!(site, DEC);
        assert!(
            why.contains("warp 1") && why.contains("`wgmma.mma_async`"),
            "{why}"
        );
        assert!(!why.contains("another"), "{why}");
    }

    #[test]
    fn a_warp_that_exits_without_it_is_the_laggard() {
        let mut p = Participation::default();
        for w in [0, 2, 3] {
            assert_eq!(p.issue(w, 4, DEC), None);
        }
        assert_eq!(p.finished(), Some((DEC, 1)));
    }

    /// Two `setmaxnreg` in a row by each warp: the second is ordered after every warp's first
    /// only when the warp's clock covers their epochs (a barrier between them).
    #[test]
    fn setmaxnreg_again_needs_the_warps_synchronized() {
        let epoch = |agent, clock| Epoch { agent, clock };
        let mut p = Participation::default();
        for w in 0..4 {
            assert_eq!(p.setmaxnreg(w, epoch(w as u32 + 1, 5), &Vc::new()), None);
        }
        let mut synced = Vc::new();
        for a in 1..=4 {
            synced.raise(a, 6);
        }
        assert_eq!(p.setmaxnreg(0, epoch(1, 7), &synced), None);
        let mut partial = Vc::new();
        partial.raise(1, 8);
        partial.raise(2, 6);
        assert_eq!(p.setmaxnreg(1, epoch(2, 7), &partial), Some(2));
        // A warp two setmaxnreg ahead of another cannot have synchronized with it.
        let mut q = Participation::default();
        assert_eq!(q.setmaxnreg(0, epoch(1, 1), &synced), None);
        assert_eq!(q.setmaxnreg(0, epoch(1, 9), &synced), Some(1));
    }

    #[test]
    fn a_partial_warpgroup_cannot_execute_them() {
        let mut p = Participation::default();
        let (site, why) = p.issue(0, 2, DEC).expect("a fault");
        assert_eq!(site, DEC);
        assert!(why.contains("only 2 warp(s)"), "{why}");
    }
}
