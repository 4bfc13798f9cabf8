//! The grids of one launch tree (CUDA dynamic parallelism, `exec/cdp.rs`; CUDA Programming
//! Guide, "CUDA Dynamic Parallelism"): one checker follows every grid, so it must know which
//! grids' completion a thread is ordered after. Each grid (and each device-side copy, a grid of
//! one thread) gets two agents that stand for its completion and do nothing else: `own` (its
//! clusters finished) and `tree` (it and all its descendants finished). A grid that starts
//! after another in its stream starts with the other's `tree` agent in its clock, a tail launch
//! with its launching grid's `own` and the `tree` of everything that grid queued before it.
//! Those agents travel in clocks like any other (through atomics, barriers, launches), so
//! happens-before stays transitive: a clock that holds one at 1 knows every access of what it
//! stands for. Grids run one after another and number their warps' agents in that order, so
//! each grid's own agents are one range.

use crate::mem::hb::{Agent, Vc};

/// Where a grid stands in the table.
pub(crate) type GridId = usize;

/// One grid of the launch tree.
#[derive(Debug, Clone)]
struct Grid {
    /// Its warps' agents: `first..end` (`end` is `Agent::MAX` while its clusters run).
    first: Agent,
    end: Agent,
    /// The grid that launched it (`None`: the host's grid).
    parent: Option<GridId>,
    own: Agent,
    tree: Agent,
    /// How messages name its threads ("the grid of `k` launched from the device (depth 1)").
    name: String,
}

/// The grids of the launch tree, in the order they started.
#[derive(Debug, Default)]
pub(crate) struct Grids(Vec<Grid>);

impl Grids {
    /// A grid whose warps' agents start at `first` begins, launched by `parent`; its
    /// completion agents are `own` and `tree`.
    pub(crate) fn begin(
        &mut self,
        (first, parent): (Agent, Option<GridId>),
        (own, tree): (Agent, Agent),
        name: String,
    ) -> GridId {
        self.0.push(Grid {
            first,
            end: Agent::MAX,
            parent,
            own,
            tree,
            name,
        });
        self.0.len() - 1
    }

    /// Grid `g`'s clusters have finished; `end` is the first agent after its warps'.
    pub(crate) fn clusters_done(&mut self, g: GridId, end: Agent) {
        if let Some(r) = self.0.get_mut(g) {
            r.end = end;
        }
    }

    /// Grid `g`'s completion agents: (its clusters, it and its descendants).
    pub(crate) fn done_agents(&self, g: GridId) -> Option<(Agent, Agent)> {
        self.0.get(g).map(|r| (r.own, r.tree))
    }

    /// Whether no grid has been launched from the device.
    #[inline]
    pub(crate) fn is_empty(&self) -> bool {
        self.0.is_empty()
    }

    /// The grid whose warps' agents hold `agent`.
    fn owner(&self, agent: Agent) -> Option<GridId> {
        let i = self
            .0
            .partition_point(|r| r.first <= agent)
            .checked_sub(1)?;
        (agent < self.0[i].end).then_some(i)
    }

    /// Whether clock `vc` knows every access of `agent` because it knows its grid finished:
    /// its clusters, or it and its descendants, or an ancestor and its descendants.
    pub(crate) fn finished_for(&self, agent: Agent, vc: &Vc) -> bool {
        let Some(mut g) = self.owner(agent) else {
            return false;
        };
        if vc.get(self.0[g].own) > 0 {
            return true;
        }
        loop {
            let r = &self.0[g];
            if vc.get(r.tree) > 0 {
                return true;
            }
            match r.parent {
                Some(p) => g = p,
                None => return false,
            }
        }
    }

    /// How messages name the grid whose warps' agents hold `agent`.
    pub(crate) fn name_of(&self, agent: Agent) -> Option<&str> {
        self.owner(agent).map(|g| self.0[g].name.as_str())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn knows(done: &[Agent]) -> Vc {
        let mut vc = Vc::new();
        for &a in done {
            vc.raise(a, 1);
        }
        vc
    }

    #[test]
    fn a_finished_grid_is_known_through_its_own_its_tree_or_an_ancestors_tree() {
        let mut g = Grids::default();
        // The host's grid: agents 1..20, completion agents 20 and 21.
        let root = g.begin((1, None), (20, 21), "root".into());
        g.clusters_done(root, 20);
        // A child: agents 24..30 (its completion agents 22 and 23), and its child 32..40.
        let child = g.begin((24, Some(root)), (22, 23), "child".into());
        g.clusters_done(child, 30);
        let grandchild = g.begin((32, Some(child)), (30, 31), "grandchild".into());
        // Still running: its agents are its own up to any number.
        assert_eq!(g.name_of(35), Some("grandchild"));
        g.clusters_done(grandchild, 40);
        assert!(g.finished_for(5, &knows(&[20])));
        assert!(
            !g.finished_for(25, &knows(&[20])),
            "the root's own clusters only"
        );
        assert!(g.finished_for(25, &knows(&[21])), "the root's tree");
        assert!(
            g.finished_for(35, &knows(&[23])),
            "the child's tree holds the grandchild"
        );
        assert!(
            !g.finished_for(35, &knows(&[22])),
            "the child's own clusters do not"
        );
        assert!(!g.finished_for(5, &knows(&[23])), "nor the grid above it");
        // Completion agents and agents past the last grid belong to no grid.
        assert!(!g.finished_for(21, &knows(&[21])));
        assert!(!g.finished_for(45, &knows(&[21, 23])));
        assert_eq!(g.name_of(22), None);
    }
}
