//! Synchronisation: the events that join warps' vector clocks (PTX ISA 9.0 8.8 "Release and
//! acquire patterns", 8.9 "Ordering of memory operations", 9.7.13.1 `bar`, 9.7.13.2
//! `barrier.cluster`, 9.7.13.15 mbarrier arrive-on). Named barriers release what every
//! arrival did to the warps they release (and what exited threads did, as they count as
//! arrived); the cluster barrier likewise; warp collectives order a warp's lanes; atomic words
//! carry release sequences in the manner of Miri (`scopes::Published`), so that a release and
//! an acquire order their threads only when both scopes hold both threads.

use super::scopes::{releases, Scope};
use super::site::{word_key, Region, Site};
use super::state::Checker;
use crate::ir::mods::Sem;
use crate::mem::hb::Vc;

impl Checker {
    /// An atomic access's synchronisation through the location's clock (Miri's release
    /// sequences). PTX atomics default to `.relaxed`: a relaxed write publishes the clock of the
    /// writer's last fence, a release write its current clock. Reads acquire what the location
    /// holds whatever their semantics: ptxrun does not report a missing acquire (a spin on a
    /// volatile flag followed by plain loads is accepted), only missing releases.
    pub fn atomic_sync(
        &mut self,
        site: Site,
        region: Region,
        (write, read): (bool, bool),
        (sem, scope): (Option<Sem>, Scope),
        mask: u32,
    ) {
        let key = word_key(region);
        let w = &mut self.warps[site.rank as usize][site.warp as usize];
        let release = releases(sem);
        let loc = self.atomics.entry(key).or_default();
        if read {
            loc.sync.now_in(self.cluster);
            let memo = Some((key, loc.sync.version(), scope, mask, (site.func, site.pc)));
            if w.last_acquire != memo {
                let (seen, beyond) = loc.sync.acquire(self.cluster, site.rank, scope);
                w.acquire(&seen, mask);
                if let Some(all) = beyond {
                    // Releases this read saw but may not acquire for a scope: remembered to
                    // explain a race they would have ordered.
                    w.narrow.join(&all);
                    w.narrow_at = Some((site.func, site.pc, scope));
                }
                w.last_acquire = memo;
            }
            if loc.last_write.agent != 0 {
                self.observed.insert((w.me, key), loc.last_write);
            }
        }
        if write {
            // A relaxed write publishes, at each scope up to its own, what the warp's last
            // release fence of that scope released.
            if release {
                loc.sync.release(self.cluster, site.rank, &w.vc, scope);
            } else {
                for s in Scope::ALL.into_iter().filter(|&s| s <= scope) {
                    loc.sync.release(self.cluster, site.rank, w.fenced(s), s);
                }
            }
            loc.last_write = w.now();
        }
        if release {
            w.tick();
        }
    }

    /// A warp arrives at named barrier `id` (`bar.sync`, `bar.arrive`, `bar.red`).
    pub fn bar_arrive(&mut self, rank: u32, warp: u32, id: usize) {
        let w = &mut self.warps[rank as usize][warp as usize];
        self.bars[rank as usize][id].join(&w.vc);
        w.tick();
    }

    /// Named barrier `id` completed: the released warps acquire what every arrival released,
    /// and, when the phase waited for every thread of the CTA (`all`), what exited threads did
    /// before they exited (they count as arrived).
    pub fn bar_release(&mut self, rank: u32, id: usize, warps: &[u32], all: bool) {
        let mut released = std::mem::take(&mut self.bars[rank as usize][id]);
        if all {
            released.join(&self.exited[rank as usize]);
        }
        for &w in warps {
            self.warps[rank as usize][w as usize].acquire(&released, u32::MAX);
        }
    }

    /// Lanes of a warp exited: what they did is released to every later barrier phase.
    pub fn exit(&mut self, rank: u32, warp: u32) {
        let w = &mut self.warps[rank as usize][warp as usize];
        self.exited[rank as usize].join(&w.vc);
        self.cluster_arrived.join(&w.vc);
        w.tick();
    }

    /// `barrier.cluster.arrive` (`.relaxed`: releases only what the warp's last fence did).
    pub fn cluster_arrive(&mut self, rank: u32, warp: u32, relaxed: bool) {
        let w = &mut self.warps[rank as usize][warp as usize];
        self.cluster_arrived.join(if relaxed {
            w.fenced(Scope::Cluster)
        } else {
            &w.vc
        });
        w.tick();
    }

    /// The cluster barrier's phase completed.
    pub fn cluster_complete(&mut self) {
        self.cluster_done.join(&self.cluster_arrived);
    }

    /// `barrier.cluster.wait` returned (in lanes `mask` of the warp).
    pub fn cluster_wait(&mut self, rank: u32, warp: u32, mask: u32) {
        let done = self.cluster_done.clone();
        self.warps[rank as usize][warp as usize].acquire(&done, mask);
    }

    /// Lanes `mask` of a warp executed a warp collective together (`bar.warp.sync`,
    /// `shfl.sync`, `vote.sync`, `match.sync`, `redux.sync`): each is ordered after the others'
    /// accesses before it.
    pub fn warp_converge(&mut self, rank: u32, warp: u32, mask: u32) {
        self.warps[rank as usize][warp as usize].converge(mask);
    }

    /// The warp's clock, for an arrive-on that fires later (`cp.async.mbarrier.arrive`), with
    /// its `cp.async` completion clock raised to `cp_done`.
    pub fn arrive_on_release(&mut self, rank: u32, warp: u32, cp_done: u32) -> Vc {
        let w = &mut self.warps[rank as usize][warp as usize];
        let mut vc = w.vc.clone();
        vc.raise(w.cp, cp_done);
        w.tick();
        vc
    }
}
