//! The happens-before checker's state (PTX ISA 9.0 chapter 8 "Memory Consistency Model"): a
//! vector clock per warp (an agent, `mem::hb`), the shadow of every byte of shared and global
//! memory the run touched (`mem::shadow`), and the clocks that synchronising events publish
//! (named barriers, the cluster barrier, atomic words, proxy fences). A cluster's warps get
//! fresh agents when it starts; this file also names agents and places for messages and hands
//! findings to the one report place (`report.rs`). The rules live in the files by concern.

use super::grids::{GridId, Grids};
use super::kind::HazardKind;
use super::report::{Finding, Hazard, Msg, Reports};
use super::scopes::{Place, Published};
use super::site::{place_in, Access, Region, Site};
use super::unused::{Flow, Spent, Upgrade};
use crate::diag::Severity;
use crate::mem::copy::{Engine, OpId};
use crate::mem::hb::{Agent, Epoch, Vc, WarpClock};
use crate::mem::shadow::{Shadow, Stamp, Who};
use crate::mem::stamp::Events;
use crate::mem::Global;
use std::collections::BTreeMap;

/// Named barriers per CTA.
pub(super) const BARRIERS: usize = 16;

/// An atomically accessed word.
#[derive(Debug, Clone, Default)]
pub(super) struct AtomicWord {
    pub(super) sync: Published,
    pub(super) last_write: Epoch,
}

#[derive(Default)]
pub(crate) struct Checker {
    /// PTX line of every instruction, per function (for messages).
    pub(super) lines: Vec<Vec<u32>>,
    pub(super) next_agent: Agent,
    /// Per CTA rank of the running cluster, per warp.
    pub(super) warps: Vec<Vec<WarpClock>>,
    /// The running cluster (counted from 1), the first agent of each of its CTA ranks and the
    /// agent after its last warp's: where a warp's agent is, for scopes.
    pub(super) cluster: u64,
    pub(super) rank_agents: Vec<Agent>,
    pub(super) agents_end: Agent,
    /// How messages name each CTA of the running unit.
    pub(super) cta_names: Vec<String>,
    /// Per agent, the clocks at which it executed `fence.proxy.async` and the state spaces each
    /// fence orders ([`FENCE_SHARED`], [`FENCE_GLOBAL`]); and its clock at its last one.
    pub(super) proxy_fences: BTreeMap<Agent, Vec<(u32, u8)>>,
    pub(super) last_proxy_fence: BTreeMap<Agent, (Vc, u8)>,
    /// The run's memory budget, charged for shadow memory.
    pub(super) meter: std::sync::Arc<crate::mem::budget::Meter>,
    /// Per global allocation (made on first access), and per CTA rank.
    pub(super) global: Vec<Option<Shadow>>,
    pub(super) shared: Vec<Shadow>,
    /// What the shadows' entries name: who accessed, when, at which instruction.
    pub(super) events: Events,
    /// Per CTA rank, what arrivals released into each named barrier's current phase, and what
    /// exited threads released (they count as arrived at every later barrier phase).
    pub(super) bars: Vec<[Vc; BARRIERS]>,
    pub(super) exited: Vec<Vc>,
    /// The cluster barrier: released into its current phase, and by its last completed phase.
    pub(super) cluster_arrived: Vc,
    pub(super) cluster_done: Vc,
    /// Atomically accessed words: their synchronisation clocks (Miri's release sequences).
    pub(super) atomics: BTreeMap<(u32, u64), AtomicWord>,
    /// Per (warp, word): the last atomic write a strong read of that word observed (a plain
    /// access after it in the reader's program order is ordered after that write).
    pub(super) observed: BTreeMap<(Agent, (u32, u64)), Epoch>,
    /// Per agent, the clocks of its last `fence.proxy.tensormap::generic.release` fences, and
    /// its last `.acquire` fences.
    pub(super) tensormap_releases: BTreeMap<Agent, Vec<u32>>,
    pub(super) tensormap_acquires: BTreeMap<Agent, Vec<TensormapAcquire>>,
    /// The hazards found, each distinct one once.
    pub(super) reports: Reports,
    /// The running cluster's asynchronous operations that access shared memory: per operation
    /// and CTA rank, whether it writes (else reads) there and the first offset it touches.
    pub(super) smem_ops: Vec<SmemOp>,
    /// Grids launched from the device (`exec/cdp.rs`) run one after another with this one
    /// checker, so races between grids are seen: what the running grid's warps knew when it
    /// started, its first agent, and the grids of the launch tree.
    pub(super) start: Vc,
    pub(super) grid_first: Agent,
    pub(super) grids: Grids,
    /// Where each register's value can go, and what the running cluster's warps executed:
    /// racy reads whose value is unused (`unused.rs`).
    pub(super) flow: Flow,
    pub(super) spent: Spent,
}

/// A device-side `cudaMemcpyAsync` (`src`: its source) or `cudaMemsetAsync` of `len` bytes to
/// global address `dst`, queued by the call at `call` (function index, instruction index).
#[derive(Debug, Clone, Copy)]
pub(crate) struct DeviceCopy {
    pub(crate) src: Option<u64>,
    pub(crate) dst: u64,
    pub(crate) len: usize,
    pub(crate) call: (u32, u32),
}

/// An asynchronous operation's access to one CTA's shared memory, checked when that CTA exits.
#[derive(Debug, Clone, Copy)]
pub(super) struct SmemOp {
    pub(super) op: OpId,
    pub(super) rank: u32,
    pub(super) write: bool,
    pub(super) off: u64,
}

impl Checker {
    pub fn new(m: &crate::ir::Module, meter: std::sync::Arc<crate::mem::budget::Meter>) -> Self {
        Checker {
            events: Events::new(std::sync::Arc::clone(&meter)),
            meter,
            lines: m
                .functions
                .iter()
                .map(|f| f.srcs.iter().map(|s| s.line).collect())
                .collect(),
            next_agent: 1,
            flow: Flow::new(m),
            ..Checker::default()
        }
    }

    /// A cluster starts: fresh agents for its warps, empty shared shadows and barriers.
    /// `names` says how messages name each CTA of the unit ("CTA rank 1" in a cluster).
    pub fn start_cluster(
        &mut self,
        warps_per_cta: &[usize],
        shared_bytes: usize,
        names: Vec<String>,
    ) {
        self.warps.clear();
        self.cta_names = names;
        self.cluster += 1;
        self.rank_agents.clear();
        for &n in warps_per_cta {
            self.rank_agents.push(self.next_agent);
            let mut ws = Vec::with_capacity(n);
            for _ in 0..n {
                let mut w = WarpClock::new(self.next_agent);
                if !self.start.is_empty() {
                    w.acquire(&self.start, u32::MAX);
                }
                ws.push(w);
                self.next_agent += WarpClock::AGENTS;
            }
            self.warps.push(ws);
        }
        self.agents_end = self.next_agent;
        self.shared = warps_per_cta
            .iter()
            .enumerate()
            .map(|(r, _)| {
                let name = format!("the shared memory of {}", self.cta_names[r]);
                Shadow::metered(shared_bytes, std::sync::Arc::clone(&self.meter), &name)
            })
            .collect();
        self.bars = warps_per_cta.iter().map(|_| Default::default()).collect();
        self.exited = warps_per_cta.iter().map(|_| Vc::new()).collect();
        self.cluster_arrived = Vc::new();
        self.cluster_done = Vc::new();
        self.smem_ops.clear();
        self.spent.start(warps_per_cta);
        // Shared memory is new: its atomic words are gone. Observations are keyed by the
        // reading warp, and no warp of an earlier cluster runs again.
        self.atomics.retain(|k, _| k.0 == 0);
        self.observed.clear();
    }

    /// Drops the events no shadow names any more, when their table has doubled (the table
    /// stays proportional to the shadow, whatever the running time).
    pub(super) fn collect_if_full(&mut self) {
        if self.events.full() {
            let mut all: Vec<&mut Shadow> = (self.shared.iter_mut())
                .chain(self.global.iter_mut().flatten())
                .collect();
            crate::mem::shadow::collect(&mut self.events, &mut all);
        }
    }

    /// The asynchronous operations the shadow of global memory names, sorted, and how many
    /// entries were looked at to find them.
    pub fn named_ops(&self) -> (Vec<OpId>, usize) {
        let mut ops: Vec<OpId> = Vec::new();
        let mut walked = 0;
        for (_, st) in (self.global.iter().flatten()).flat_map(|s| s.stamps(&self.events)) {
            walked += 1;
            // (Words of one operation follow each other: most repeats are the last one.)
            if let Who::Op { op, .. } = st.who() {
                if ops.last() != Some(&op) {
                    ops.push(op);
                }
            }
        }
        ops.sort_unstable();
        ops.dedup();
        (ops, walked)
    }

    /// A global allocation was freed: its shadow goes with its bytes.
    pub fn forget_global(&mut self, index: usize) {
        if let Some(s) = self.global.get_mut(index) {
            *s = None;
        }
    }

    /// The CTA rank of the running cluster whose warp `agent` is (`None`: an earlier cluster).
    pub(super) fn place(&self, agent: Agent) -> Place {
        place_in(&self.rank_agents, self.agents_end, agent)
    }

    /// The host's grid, whose clusters have run, launched grids from the device: it becomes
    /// the first grid of the launch tree; messages name its threads as `name` says.
    pub fn root_grid(&mut self, name: String) -> GridId {
        let end = self.next_agent;
        let done = (self.new_agent(), self.new_agent());
        let g = self.grids.begin((1, None), done, name);
        self.grids.clusters_done(g, end);
        g
    }

    /// A grid launched (or a copy queued) by grid `parent` starts: its warps start knowing
    /// `start`; messages name its threads as `name` says.
    pub fn start_grid(&mut self, start: Vc, parent: GridId, name: String) -> GridId {
        let done = (self.new_agent(), self.new_agent());
        self.grid_first = self.next_agent;
        self.start = start;
        self.grids
            .begin((self.next_agent, Some(parent)), done, name)
    }

    /// Grid `g`'s clusters have finished (its descendants have not run yet).
    pub fn grid_clusters_done(&mut self, g: GridId) {
        self.grids.clusters_done(g, self.next_agent);
    }

    /// The agents that stand for grid `g`'s completion: (its clusters, it and its
    /// descendants). A clock holding one at 1 knows all of what it stands for.
    pub fn done_agents(&self, g: GridId) -> Option<(Agent, Agent)> {
        self.grids.done_agents(g)
    }

    /// The PTX line of instruction `pc` of function `func`.
    pub fn line(&self, func: u32, pc: u32) -> u32 {
        line_in(&self.lines, func, pc)
    }

    /// A thread of warp `warp` of CTA rank `rank` launches a grid: what that grid starts
    /// knowing. The warp's later accesses are not ordered before the grid.
    pub fn launch(&mut self, rank: u32, warp: u32) -> Vc {
        let w = self.warp(rank, warp);
        let vc = w.vc.clone();
        w.tick();
        vc
    }

    /// The device-side copy or fill `c` runs as grid `g` (`exec/cdp.rs`, started with
    /// [`Self::start_grid`]): a thread of its own reads its source and writes its destination;
    /// its findings point at the call that queued it.
    pub fn device_copy(&mut self, engine: &Engine, global: &Global, g: GridId, c: DeviceCopy) {
        self.start_cluster(&[1], 0, vec!["the copy".into()]);
        let site = Site {
            func: c.call.0,
            pc: c.call.1,
            rank: 0,
            cta: [0; 3],
            warp: 0,
            lane: 0,
        };
        let sides = [(c.src, false), (Some(c.dst), true)];
        for (addr, write) in sides.into_iter().filter_map(|(a, w)| Some((a?, w))) {
            let access = Access {
                region: Region::Global(addr),
                len: c.len,
                write,
                strong: None,
                lanes: &[],
                kept: false,
            };
            self.access_from::<true>(engine, global, site, access);
        }
        self.grid_clusters_done(g);
    }

    pub fn new_agent(&mut self) -> Agent {
        self.next_agent += 1;
        self.next_agent - 1
    }

    pub fn warp(&mut self, rank: u32, warp: u32) -> &mut WarpClock {
        &mut self.warps[rank as usize][warp as usize]
    }

    pub fn take_hazards(&mut self) -> Vec<Hazard> {
        self.reports.take()
    }

    /// Records a hazard (an error), or counts a repeat of one already reported.
    pub fn report(
        &mut self,
        kind: HazardKind,
        site: Site,
        message: impl Into<Msg>,
        help: &str,
        address: String,
        related: Option<(u32, u32, String)>,
    ) {
        self.record(Finding {
            severity: Severity::Error,
            kind,
            site,
            message: message.into(),
            help,
            address,
            related,
        });
    }

    /// Records a finding as a hazard, or counts a repeat of one already reported.
    pub(super) fn record(&mut self, f: Finding<'_>) {
        let Checker { reports, lines, .. } = self;
        reports.record(f, |func, pc| line_in(lines, func, pc));
    }

    /// The run stopped on a fault or a hang: every `data-race` held as a warning because its
    /// read looked unused is reported as an error (the value may be what stopped the run: an
    /// address that faults, a member mask that hangs).
    pub fn run_stopped(&mut self) {
        for u in self.spent.take_all() {
            self.upgrade(u);
        }
    }

    /// Reports as an error the `data-race` whose read was reported unused, now that its warp
    /// used the value (`unused.rs`): it takes the warning's place, counted once.
    pub(super) fn upgrade(&mut self, u: Upgrade) {
        let f = Finding {
            severity: Severity::Error,
            kind: HazardKind::DataRace,
            site: u.site,
            message: u.message,
            help: &u.help,
            address: u.address,
            related: u.related,
        };
        let Checker { reports, lines, .. } = self;
        reports.upgrade(f, |func, pc| line_in(lines, func, pc));
    }

    /// The shadow and offset of a region, or `None` outside memory the checker follows.
    pub(super) fn shadow<'s>(
        shared: &'s mut [Shadow],
        globals: &'s mut Vec<Option<Shadow>>,
        global: &Global,
        meter: &std::sync::Arc<crate::mem::budget::Meter>,
        region: Region,
        len: usize,
    ) -> Option<(&'s mut Shadow, usize)> {
        match region {
            Region::Shared(r, off) => {
                let s = shared.get_mut(r as usize)?;
                Some((s, off as usize))
            }
            Region::Global(a) => {
                let (i, off) = global.locate(a, len as u64).ok()?;
                if globals.len() <= i {
                    globals.resize_with(i + 1, || None);
                }
                let a = &global.allocs[i];
                let s = globals[i].get_or_insert_with(|| {
                    let name = format!("global `{}`", a.name);
                    Shadow::metered(a.data.len(), std::sync::Arc::clone(meter), &name)
                });
                Some((s, off))
            }
        }
    }

    /// Names who made the earlier access `prev` (at `at`) for a message about an access at
    /// `site`: another lane of the same warp, or another warp.
    pub(super) fn accessor(&self, site: Site, at: Epoch, prev: &Stamp) -> String {
        if self.warps[site.rank as usize][site.warp as usize].me == at.agent {
            format!("lane {} of the same warp", prev.lane())
        } else {
            self.warp_of(at.agent)
        }
    }

    /// Names the warp an agent belongs to, for messages.
    pub(super) fn warp_of(&self, agent: Agent) -> String {
        for (r, ws) in self.warps.iter().enumerate() {
            for (i, w) in ws.iter().enumerate() {
                if w.me == agent {
                    return if self.warps.len() > 1 {
                        format!("warp {i} of {}", self.cta_names[r])
                    } else {
                        format!("warp {i}")
                    };
                }
            }
        }
        match self.grids.name_of(agent) {
            Some(name) if agent < self.grid_first => format!("a thread of {name}"),
            _ => "a warp of another CTA".into(),
        }
    }

    /// The CTA rank and warp index an agent belongs to.
    pub(super) fn rank_of(&self, agent: Agent) -> Option<(u32, u32)> {
        self.warps.iter().enumerate().find_map(|(r, ws)| {
            ws.iter()
                .position(|w| w.me == agent)
                .map(|i| (r as u32, i as u32))
        })
    }
}

/// The PTX line of instruction `pc` of function `f`, given every function's lines (0 when
/// unknown).
fn line_in(lines: &[Vec<u32>], f: u32, pc: u32) -> u32 {
    lines
        .get(f as usize)
        .and_then(|l| l.get(pc as usize))
        .copied()
        .unwrap_or(0)
}

/// How a hazard's earlier access is described.
pub(super) fn op_name(engine: &Engine, op: OpId) -> String {
    engine
        .op(op)
        .map_or("asynchronous operation", |o| o.kind())
        .to_string()
}

/// What a warp knows: its clock, which may hold the completion of whole grids ([`Grids`]).
#[derive(Clone, Copy)]
pub(super) struct Knows<'a> {
    pub(super) vc: &'a Vc,
    pub(super) grids: &'a Grids,
}

impl Knows<'_> {
    #[inline]
    pub(super) fn covers(&self, e: Epoch) -> bool {
        self.vc.covers(e) || self.finished(e.agent)
    }

    /// Whether it knows every access of `agent`: it knows that agent's grid finished (never,
    /// outside launch trees: checked at once, as this is asked of every unordered pair).
    #[inline]
    pub(super) fn finished(&self, agent: Agent) -> bool {
        !self.grids.is_empty() && self.grids.finished_for(agent, self.vc)
    }
}

/// Whether a warp that knows `knows` is ordered after the earlier access of operation `op` that
/// a shadow names: after its completion at CTA `rank` for a write, after the end of its source
/// reads for a read. An operation the engine no longer knows cannot be judged: ordered (no
/// report).
pub(super) fn after_op(engine: &Engine, op: OpId, write: bool, rank: u32, knows: Knows) -> bool {
    engine.op(op).is_none_or(|o| {
        let slot = o.slot();
        if write {
            slot.completion(rank).is_some_and(|e| knows.covers(e))
        } else {
            let released = slot.sources_released(o.read_done(), o.issuer().rank);
            released.is_some_and(|e| knows.covers(e))
        }
    })
}

/// A `fence.proxy.tensormap::generic.acquire` of `size` bytes at global `addr`: when it ran
/// (`at`) and what its warp knew then (`vc`).
#[derive(Debug, Clone)]
pub(super) struct TensormapAcquire {
    pub addr: u64,
    pub size: u64,
    pub vc: Vc,
    pub at: Epoch,
}
