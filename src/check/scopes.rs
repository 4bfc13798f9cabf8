//! Memory scopes for the happens-before checker (PTX ISA 9.0 8.5 "Scope", 8.7 "Morally strong
//! operations", 8.8-8.9 release and acquire patterns): a strong operation names the set of
//! threads it synchronises with (`.cta`, `.cluster`, `.gpu`, `.sys`), and two operations are
//! morally strong only when each one's scope includes the other's thread. So a release and an
//! acquire order their threads only when both scopes include both threads, and two strong
//! accesses of one location by threads outside each other's scope race like ordinary ones.
//!
//! The distance between two threads is the narrowest scope holding both: the same CTA, the same
//! cluster, or only the grid (`.gpu`; `.sys` is the same for one device). An atomic location
//! keeps what releases published at each distance from their writer: per CTA of the running
//! cluster every release (a thread of that CTA acquires them at any scope), for the cluster the
//! releases of scope `.cluster` and wider, and for the grid those of `.gpu` and wider. Clusters
//! run one after another, so the first two are forgotten when the location is next used by a
//! later cluster.
//!
//! mbarrier operations, `bar.sync` and `barrier.cluster` order the threads they count, as
//! before: a remote arrival must be `.cluster` (the ISA allows no other), and a wait's own scope
//! is not checked, since CUTLASS's cluster pipelines pair `.cluster` arrivals with default
//! (`.cta`) waits on the waiting CTA's own mbarrier.

use crate::ir::mods::Sem;
use crate::ir::Instr;
pub(crate) use crate::mem::hb::Scope;
use crate::mem::hb::Vc;

/// The scope of a strong access or fence: as written, else `.gpu` (atomics and `membar.gl`),
/// `.volatile` being `.relaxed.sys`.
pub(crate) fn of(ins: &Instr) -> Scope {
    use crate::ir::mods::Scope as S;
    match ins.mods.scope {
        Some(S::Cta) => Scope::Cta,
        Some(S::Cluster) => Scope::Cluster,
        Some(S::Gpu | S::Sys | S::Gl) | None => Scope::Gpu,
    }
}

/// The threads a strong access's scope holds, as far as other CTAs go: in clusters of one CTA,
/// `.cluster` holds the threads `.cta` does. (Only a cooperative launch runs several one-CTA
/// clusters together, where the difference shows; fences keep their scope, so that a relaxed
/// `.cluster` mbarrier arrival after a `.cluster` fence still releases what the fence did.)
pub(crate) fn reach(s: Scope, cluster_ctas: u32) -> Scope {
    match s {
        Scope::Cluster if cluster_ctas <= 1 => Scope::Cta,
        s => s,
    }
}

/// Whether a strong access with these semantics releases its warp's whole clock (else only
/// what its last fence did).
pub(crate) fn releases(sem: Option<Sem>) -> bool {
    matches!(sem, Some(Sem::Release | Sem::AcqRel | Sem::Sc))
}

/// Where a thread is, for scope checks: its CTA's rank in the running cluster, or `None` for a
/// thread of an earlier cluster.
pub(crate) type Place = Option<u32>;

/// The narrowest scope holding two threads.
pub(crate) fn distance(a: Place, b: Place) -> Scope {
    match (a, b) {
        (Some(x), Some(y)) if x == y => Scope::Cta,
        (Some(_), Some(_)) => Scope::Cluster,
        _ => Scope::Gpu,
    }
}

/// What releases published into one atomic location, by the scope they reach.
#[derive(Debug, Clone, Default)]
pub(crate) struct Published {
    /// The cluster the per-CTA and cluster clocks belong to.
    cluster: u64,
    /// Per CTA rank of that cluster: everything its threads released here.
    by_cta: Vec<(u32, Vc)>,
    /// Releases of scope `.cluster` or wider by that cluster's threads.
    cluster_wide: Vc,
    /// Releases of scope `.gpu` or wider, by any cluster.
    gpu_wide: Vc,
    /// What earlier clusters released at narrower scopes: no later thread acquires it, but a
    /// race it would have ordered names the scope.
    out_of_reach: Vc,
    /// Counts changes: a thread that acquires twice at the same count learns nothing new (a
    /// spin on a flag costs no clock joins while the flag stays as it is).
    version: u64,
}

impl Published {
    /// What changed so far; call after [`Published::now_in`] for the acquiring cluster.
    pub fn version(&self) -> u64 {
        self.version
    }

    /// Forgets what threads of an earlier cluster published at CTA and cluster scope.
    pub fn now_in(&mut self, cluster: u64) {
        if self.cluster != cluster {
            self.version += 1;
            self.cluster = cluster;
            for (_, vc) in self.by_cta.drain(..) {
                self.out_of_reach.join(&vc);
            }
            self.out_of_reach.join(&self.cluster_wide);
            self.cluster_wide = Vc::new();
        }
    }

    /// A thread of CTA `rank` of cluster `cluster` releases `vc` with scope `scope`.
    pub fn release(&mut self, cluster: u64, rank: u32, vc: &Vc, scope: Scope) {
        self.now_in(cluster);
        self.version += 1;
        match self.by_cta.iter_mut().find(|e| e.0 == rank) {
            Some(e) => e.1.join(vc),
            None => self.by_cta.push((rank, vc.clone())),
        }
        if scope >= Scope::Cluster {
            self.cluster_wide.join(vc);
        }
        if scope >= Scope::Gpu {
            self.gpu_wide.join(vc);
        }
    }

    /// What a thread of CTA `rank` of cluster `cluster` acquires with scope `scope`; and, only
    /// when some release is out of its reach for a scope, everything released here (for
    /// messages), so that a read that reaches all costs no more than it did without scopes.
    pub fn acquire(&mut self, cluster: u64, rank: u32, scope: Scope) -> (Vc, Option<Vc>) {
        self.now_in(cluster);
        let mut seen = Vc::new();
        for (_, vc) in self.by_cta.iter().filter(|e| e.0 == rank) {
            seen.join(vc);
        }
        if scope >= Scope::Cluster {
            seen.join(&self.cluster_wide);
        }
        if scope >= Scope::Gpu {
            seen.join(&self.gpu_wide);
        }
        let hidden = !self.out_of_reach.is_empty()
            || self.by_cta.iter().any(|e| e.0 != rank)
            || (scope < Scope::Cluster && !self.cluster_wide.is_empty())
            || (scope < Scope::Gpu && !self.gpu_wide.is_empty());
        if !hidden {
            return (seen, None);
        }
        let mut all = self.gpu_wide.clone();
        all.join(&self.out_of_reach);
        for (_, vc) in &self.by_cta {
            all.join(vc);
        }
        // (Nothing out of reach after all when every release is already seen.)
        let differs = all != seen;
        (seen, differs.then_some(all))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn vc(agent: u32, c: u32) -> Vc {
        let mut v = Vc::new();
        v.raise(agent, c);
        v
    }

    #[test]
    fn a_release_reaches_only_threads_both_scopes_include() {
        let mut p = Published::default();
        p.release(1, 0, &vc(7, 3), Scope::Cta);
        // The same CTA sees it at any scope; another CTA of the cluster at none.
        assert_eq!(p.acquire(1, 0, Scope::Cta).0.get(7), 3);
        let (seen, all) = p.acquire(1, 1, Scope::Gpu);
        assert_eq!((seen.get(7), all.map(|a| a.get(7))), (0, Some(3)));
        assert!(
            p.acquire(1, 0, Scope::Cta).1.is_none(),
            "nothing out of its reach"
        );
        p.release(1, 0, &vc(8, 2), Scope::Cluster);
        assert_eq!(p.acquire(1, 1, Scope::Cluster).0.get(8), 2);
        assert_eq!(
            p.acquire(1, 1, Scope::Cta).0.get(8),
            0,
            "the acquirer's scope too"
        );
        // A later cluster sees only .gpu releases.
        p.release(1, 1, &vc(9, 1), Scope::Gpu);
        let (seen, all) = p.acquire(2, 0, Scope::Gpu);
        assert_eq!((seen.get(8), seen.get(9)), (0, 1));
        assert_eq!(
            all.map(|a| a.get(8)),
            Some(2),
            "what it cannot reach is remembered for messages"
        );
        assert_eq!(p.acquire(2, 0, Scope::Cluster).0.get(9), 0);
    }

    #[test]
    fn distances() {
        assert_eq!(distance(Some(1), Some(1)), Scope::Cta);
        assert_eq!(distance(Some(1), Some(2)), Scope::Cluster);
        assert_eq!(distance(None, Some(2)), Scope::Gpu);
    }
}
