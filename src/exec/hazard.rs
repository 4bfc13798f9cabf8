//! The happens-before checker (PTX ISA 9.0 chapter 8 "Memory Consistency Model", 9.7.9.25.1
//! "Completion Mechanisms for Asynchronous Copy Operations", 9.7.13.15 mbarrier): it follows
//! the run, joining vector clocks at every synchronising event, and checks every access of
//! shared and global memory against the shadow of the bytes it touches (`mem::hb`,
//! `mem::shadow`). An asynchronous operation is checked when it is issued, as a read of its
//! sources and a write of its destinations spanning issue to completion, so the verdict never
//! depends on when the copy happened to land (the latency model). The rules, each a hazard kind
//! of `../shared/contract.md`:
//!
//! - a read of bytes an asynchronous operation writes, not ordered after its completion:
//!   `read-before-complete`; a write to them: `write-before-complete`;
//! - an asynchronous write to bytes a read not ordered before its issue reads:
//!   `async-write-after-read`;
//! - a write (or another operation's write) to bytes an operation reads, not ordered after it
//!   finished reading: `source-modified-before-complete`;
//! - a bulk or tensor operation (async proxy) that reads or overwrites bytes last written by an
//!   ordinary store whose writer did not execute `fence.proxy.async` after it, ordered before
//!   the issue: `missing-proxy-fence` (non-bulk `cp.async` and `st.async` are generic-proxy
//!   operations and need none; reads need none, so the CUTLASS consumer release is clean);
//! - two ordinary accesses of different warps, one a write, unordered: `data-race` (atomic,
//!   volatile and relaxed/acquire/release accesses do not race with each other); severity
//!   `warning` when a plain read meets only an atomic write (the memory model defines the value
//!   read: a CAS loop's first guess), `error` otherwise;
//! - a peer CTA's access to a CTA's shared memory not ordered before that CTA exits, or an
//!   asynchronous operation's access to it (its own bulk store, a copy into it, a peer's
//!   `st.async`) whose end no thread of the CTA observed before the exit:
//!   `dsmem-access-after-exit` (PTX ISA 5.1.5.1; accesses after the exit stop the run in
//!   `memops`);
//! - a tensor copy using a tensor map that ordinary stores wrote to global memory with no
//!   `fence.proxy.tensormap::generic` release by the writer and acquire by the user after it:
//!   `missing-tensormap-proxy-fence` (9.7.12.4).
//!
//! Each distinct (kind, instruction, related instruction) is reported once with a count.

use super::fault::{Hazard, Related};
use super::scopes::{distance, Place, Published};
use crate::check::HazardKind;
use crate::diag::Severity;
use crate::ir::mods::Sem;
use crate::ir::FuncId;
use crate::latency::OpClass;
use crate::mem::copy::{Engine, Loc, OpId};
use crate::mem::hb::{Agent, Epoch, Scope, Vc, WarpClock};
use crate::mem::shadow::{Lanes, Shadow, Stamp, Who};
use crate::mem::stamp::Events;
use crate::mem::Global;
use std::collections::BTreeMap;

/// Where an access happens: the instruction, and the thread that executes it.
#[derive(Debug, Clone, Copy)]
pub(crate) struct Site {
    pub func: u32,
    pub pc: u32,
    pub rank: u32,
    pub cta: [u32; 3],
    pub warp: u32,
    pub lane: u32,
}

/// The memory an access touches.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Region {
    Global(u64),
    /// A CTA's shared memory (rank) at an offset.
    Shared(u32, u64),
}

/// State spaces a proxy fence orders.
pub(crate) const FENCE_SHARED: u8 = 1;
pub(crate) const FENCE_GLOBAL: u8 = 2;

/// An atomically accessed word.
#[derive(Debug, Clone, Default)]
struct AtomicWord {
    sync: Published,
    last_write: Epoch,
}

/// The word a region byte belongs to, as atomics and observations key it.
fn word_key(r: Region) -> (u32, u64) {
    match r {
        Region::Global(a) => (0, a & !3),
        Region::Shared(rank, o) => (rank + 1, o & !3),
    }
}

/// What makes a hazard distinct: its kind, instruction and related instruction.
pub(crate) type HazardKey = (HazardKind, (u32, u32), Option<(u32, u32)>);

/// The one definition of a hazard's dedupe key: repeats of a (kind, instruction, first related
/// instruction) are counted, not reported again, by the checker, by the grid that merges the
/// clusters' reports and by the explorer that merges schedules'.
fn hazard_key(kind: HazardKind, at: (u32, u32), related: Option<(u32, u32)>) -> HazardKey {
    (kind, at, related)
}

impl Hazard {
    /// Its dedupe key ([`hazard_key`]).
    pub(crate) fn key(&self) -> HazardKey {
        let related = self.related.first().map(|r| (r.at.0 .0, r.at.1));
        hazard_key(self.kind, (self.at.0 .0, self.at.1), related)
    }
}

/// Named barriers per CTA.
const BARRIERS: usize = 16;

#[derive(Default)]
pub(crate) struct Checker {
    /// PTX line of every instruction, per function (for messages).
    lines: Vec<Vec<u32>>,
    next_agent: Agent,
    /// Per CTA rank of the running cluster, per warp.
    warps: Vec<Vec<WarpClock>>,
    /// The running cluster (counted from 1), the first agent of each of its CTA ranks and the
    /// agent after its last warp's: where a warp's agent is, for scopes.
    cluster: u64,
    rank_agents: Vec<Agent>,
    agents_end: Agent,
    /// How messages name each CTA of the running unit.
    cta_names: Vec<String>,
    /// Per agent, the clocks at which it executed `fence.proxy.async` and the state spaces each
    /// fence orders ([`FENCE_SHARED`], [`FENCE_GLOBAL`]); and its clock at its last one.
    proxy_fences: BTreeMap<Agent, Vec<(u32, u8)>>,
    last_proxy_fence: BTreeMap<Agent, (Vc, u8)>,
    /// The run's memory budget, charged for shadow memory.
    meter: std::sync::Arc<crate::mem::budget::Meter>,
    /// Per global allocation (made on first access), and per CTA rank.
    global: Vec<Option<Shadow>>,
    shared: Vec<Shadow>,
    /// What the shadows' entries name: who accessed, when, at which instruction.
    events: Events,
    /// Per CTA rank, what arrivals released into each named barrier's current phase, and what
    /// exited threads released (they count as arrived at every later barrier phase).
    bars: Vec<[Vc; BARRIERS]>,
    exited: Vec<Vc>,
    /// The cluster barrier: released into its current phase, and by its last completed phase.
    cluster_arrived: Vc,
    cluster_done: Vc,
    /// Atomically accessed words: their synchronisation clocks (Miri's release sequences).
    atomics: BTreeMap<(u32, u64), AtomicWord>,
    /// Per (warp, word): the last atomic write a strong read of that word observed (a plain
    /// access after it in the reader's program order is ordered after that write).
    observed: BTreeMap<(Agent, (u32, u64)), Epoch>,
    /// Per agent, the clocks of its last `fence.proxy.tensormap::generic.release` fences, and
    /// its last `.acquire` fences: (global address, size, its clock then).
    tensormap_releases: BTreeMap<Agent, Vec<u32>>,
    tensormap_acquires: BTreeMap<Agent, Vec<(u64, u64, Vc)>>,
    hazards: Vec<Hazard>,
    seen: BTreeMap<HazardKey, usize>,
    /// The running cluster's asynchronous operations that access shared memory: per operation
    /// and CTA rank, whether it writes (else reads) there and the first offset it touches.
    smem_ops: Vec<SmemOp>,
}

/// An asynchronous operation's access to one CTA's shared memory, checked when that CTA exits.
#[derive(Debug, Clone, Copy)]
struct SmemOp {
    op: OpId,
    rank: u32,
    write: bool,
    off: u64,
}

/// Tensor-map fences remembered per agent (the last ones: memory stays bounded in loops).
const TENSORMAP_FENCES: usize = 16;

/// How a hazard's earlier access is described.
fn op_name(engine: &Engine, op: OpId) -> String {
    engine
        .op(op)
        .map_or("asynchronous operation", |o| o.kind())
        .to_string()
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
            ..Checker::default()
        }
    }

    /// The PTX line of instruction `pc` of function `f`.
    fn line(&self, f: u32, pc: u32) -> u32 {
        self.lines
            .get(f as usize)
            .and_then(|l| l.get(pc as usize))
            .copied()
            .unwrap_or(0)
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
                ws.push(WarpClock::new(self.next_agent));
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
        // Shared memory is new: its atomic words and observations are gone.
        self.atomics.retain(|k, _| k.0 == 0);
        self.observed.retain(|k, _| k.1 .0 == 0);
    }

    /// Drops the events no shadow names any more, when their table has doubled (the table
    /// stays proportional to the shadow, whatever the running time).
    fn collect_if_full(&mut self) {
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
    fn place(&self, agent: Agent) -> Place {
        place_in(&self.rank_agents, self.agents_end, agent)
    }

    pub fn new_agent(&mut self) -> Agent {
        self.next_agent += 1;
        self.next_agent - 1
    }

    pub fn warp(&mut self, rank: u32, warp: u32) -> &mut WarpClock {
        &mut self.warps[rank as usize][warp as usize]
    }

    pub fn take_hazards(&mut self) -> Vec<Hazard> {
        self.seen.clear();
        std::mem::take(&mut self.hazards)
    }

    /// Records a hazard (an error), or counts a repeat of one already reported.
    pub fn report(
        &mut self,
        kind: HazardKind,
        site: Site,
        message: String,
        help: &str,
        address: String,
        related: Option<(u32, u32, String)>,
    ) {
        self.report_as(Severity::Error, kind, site, message, help, address, related);
    }

    /// Records a hazard of severity `severity`, or counts a repeat of one already reported.
    #[allow(clippy::too_many_arguments)]
    fn report_as(
        &mut self,
        severity: Severity,
        kind: HazardKind,
        site: Site,
        message: String,
        help: &str,
        address: String,
        related: Option<(u32, u32, String)>,
    ) {
        let key = hazard_key(
            kind,
            (site.func, site.pc),
            related.as_ref().map(|r| (r.0, r.1)),
        );
        if let Some(&i) = self.seen.get(&key) {
            self.hazards[i].count += 1;
            return;
        }
        let line = related.as_ref().map_or(0, |r| self.line(r.0, r.1));
        let message = message.replace("{L}", &line.to_string());
        self.seen.insert(key, self.hazards.len());
        self.hazards.push(Hazard {
            kind,
            message,
            help: help.to_string(),
            at: (FuncId(site.func), site.pc),
            cta: site.cta,
            thread: [0; 3],
            linear_thread: site.warp * 32 + site.lane,
            address,
            related: related
                .into_iter()
                .map(|(f, pc, label)| Related {
                    at: (FuncId(f), pc),
                    label,
                })
                .collect(),
            count: 1,
            severity,
        });
    }

    /// The shadow and offset of a region, or `None` outside memory the checker follows.
    fn shadow<'s>(
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

    /// An ordinary, atomic (`atomic`) or volatile access by a warp: `len` bytes of `region`,
    /// made of the lanes' accesses `lanes` (start, end, lane) for reports (empty: `site`'s lane
    /// made all of it).
    #[allow(clippy::too_many_arguments)]
    pub fn access(
        &mut self,
        engine: &Engine,
        global: &Global,
        site: Site,
        region: Region,
        len: usize,
        write: bool,
        strong: Option<Scope>,
        lanes: &[(u64, u64, u32)],
    ) {
        self.collect_if_full();
        let Checker {
            warps,
            shared,
            global: globals,
            events,
            observed,
            meter,
            rank_agents,
            agents_end,
            ..
        } = self;
        let w = &warps[site.rank as usize][site.warp as usize];
        let me = w.me;
        let vc = &w.vc;
        let atomic = strong.is_some();
        let mut new = Stamp::warp(w.now(), atomic, site.func, site.pc).by_lane(site.lane);
        if let Some(scope) = strong {
            new = new.scoped(scope);
        }
        // Two strong accesses are morally strong (they do not race) when each one's scope
        // includes the other's thread.
        let morally_strong = |prev: &Stamp, new: &Stamp, agent: Agent| {
            let apart = distance(place_in(rank_agents, *agents_end, agent), Some(site.rank));
            apart <= prev.scope() && apart <= new.scope()
        };
        let dst_rank = match region {
            Region::Shared(r, _) => r,
            Region::Global(_) => site.rank,
        };
        let mut met = Vec::new();
        let Some((shadow, off)) = Self::shadow(shared, globals, global, meter, region, len) else {
            return;
        };
        let pieces = Lanes {
            pieces: lanes,
            base: addr_key(region) - off as u64,
            shift_ok: w.lanes_alike(),
        };
        shadow.access(
            events,
            off,
            len,
            new,
            pieces,
            write,
            &mut |prev, prev_write, conflict, byte, new| {
                let ok = match prev.who() {
                    Who::Warp { at, atomic: a } => {
                        (a && atomic && morally_strong(prev, new, at.agent))
                            || if at.agent == me {
                                w.lane_knows(new.lane(), prev.lane(), at.clock)
                            } else {
                                vc.covers(at)
                            }
                            || (a && prev_write && {
                                // A strong read of this word saw that write: what follows it in the
                                // reader's program order is ordered after the write.
                                let key = word_key(region_at(region, (byte - off) as u64));
                                observed
                                    .get(&(me, key))
                                    .is_some_and(|o| o.agent == at.agent && o.clock >= at.clock)
                            })
                    }
                    Who::Op { op, reduce } => {
                        // (An operation the engine no longer knows cannot be judged: no report.)
                        (reduce && atomic)
                            || engine.op(op).is_none_or(|o| {
                                if prev_write {
                                    o.completion(dst_rank).is_some_and(|e| vc.covers(e))
                                } else {
                                    o.sources_released().is_some_and(|e| vc.covers(e))
                                }
                            })
                    }
                };
                if !ok && conflict && !met.iter().any(|m: &(Stamp, bool, usize, u32)| m.0 == *prev)
                {
                    met.push((*prev, prev_write, byte, new.lane()));
                }
                ok
            },
        );
        for (prev, prev_write, byte, lane) in met {
            // Report the lane whose own access met the conflict, and the bytes it accessed.
            let addr = addr_key(region_at(region, byte as u64 - off as u64));
            let (start, end) = lanes
                .iter()
                .find(|&&(s, e, l)| l == lane && s <= addr && addr < e)
                .map_or((addr_key(region), addr_key(region) + len as u64), |p| {
                    (p.0, p.1)
                });
            let at = Site { lane, ..site };
            let address = describe(
                global,
                region_at(region, start - addr_key(region)),
                (end - start) as usize,
                site.rank,
            );
            self.thread_conflict(engine, at, (write, strong), prev, prev_write, address);
        }
    }

    /// Reports the conflict of an access (`write`, `atomic`) at `site` with an earlier one.
    fn thread_conflict(
        &mut self,
        engine: &Engine,
        site: Site,
        (write, strong): (bool, Option<Scope>),
        prev: Stamp,
        prev_write: bool,
        address: String,
    ) {
        let atomic = strong.is_some();
        match prev.who() {
            Who::Op { op, .. } => {
                let name = op_name(engine, op);
                let Some(o) = engine.op(op) else {
                    return;
                };
                let iss = o.issuer();
                let related = Some((
                    iss.func,
                    iss.pc,
                    format!("the {name} whose completion it is not ordered after"),
                ));
                let tracked = match o.by_group() {
                    true => "wait for its group (cp.async.wait_group / cp.async.bulk.wait_group) in the issuing thread, then order the access after that wait (bar.sync)",
                    false => "wait on the mbarrier phase that tracks it (mbarrier.try_wait / test_wait until it returns true) before the access",
                };
                let (kind, message, help) = match (prev_write, write) {
                    (true, false) => (
                        HazardKind::ReadBeforeComplete,
                        format!("read of {address}, which the {name} at line {{L}} writes, before that operation completes"),
                        tracked.to_string(),
                    ),
                    (true, true) => (
                        HazardKind::WriteBeforeComplete,
                        format!("write to {address}, which the {name} at line {{L}} also writes, before that operation completes"),
                        tracked.to_string(),
                    ),
                    _ => (
                        HazardKind::SourceModifiedBeforeComplete,
                        format!("write to {address}, which the {name} at line {{L}} reads, before that operation has finished reading it"),
                        "keep the source unchanged until the copy has read it: cp.async.wait_group (non-bulk), cp.async.bulk.wait_group.read (bulk stores) or the mbarrier phase (bulk loads) first".to_string(),
                    ),
                };
                self.report(kind, site, message, &help, address, related);
            }
            Who::Warp {
                at,
                atomic: prev_atomic,
            } => {
                let (f, pc) = prev.site();
                let same_warp = self.warps[site.rank as usize][site.warp as usize].me == at.agent;
                let warp = self.accessor(site, at, &prev);
                // A plain read racing only with an atomic write reads one of the values written
                // (PTX ISA 9.0 8.7.1, 8.9: the memory model defines it); a CAS loop's first guess
                // is the usual case. Two strong accesses race only when a scope does not hold
                // both threads: their atomicity is not promised, though hardware usually keeps it.
                // Every other race is an error.
                let severity = if (prev_write && prev_atomic && !write && !atomic)
                    || (write && atomic && !prev_write && !prev_atomic)
                    || (atomic && prev_atomic)
                {
                    Severity::Warning
                } else {
                    Severity::Error
                };
                let access = |w: bool, a: bool| match (w, a) {
                    (true, true) => "atomic write",
                    (false, true) => "atomic read",
                    (true, false) => "write",
                    (false, false) => "read",
                };
                let related = Some((
                    f,
                    pc,
                    format!(
                        "the {} it races with ({warp})",
                        access(prev_write, prev_atomic)
                    ),
                ));
                let (why, help) = match self.scope_note(site, at, prev, strong, prev_atomic) {
                    Some(note) => note,
                    None => {
                        let (why, help) = match severity {
                            Severity::Error if same_warp => (
                                "lanes of a warp are threads of their own, and executing together does not order their accesses (independent thread scheduling, sm_70 on); no __syncwarp, warp collective, barrier or atomic orders them",
                                "put __syncwarp() (bar.warp.sync) between the two accesses, or exchange the value with __shfl_sync",
                            ),
                            Severity::Warning => (
                                "the plain read returns one of the values written, which is harmless only where the value is a guess that is checked later (a CAS loop's first read)",
                                "if the value is a guess checked later (a CAS loop), nothing is wrong; otherwise read it atomically (ld.relaxed, cuda::atomic_ref::load) or order the accesses; `--deny warnings` fails on this, a suppression hides it",
                            ),
                            Severity::Error => (
                                "no barrier, mbarrier or atomic orders them",
                                "order the two accesses (bar.sync, an mbarrier arrive/wait pair, or release/acquire atomics), or make both atomic",
                            ),
                        };
                        (why.to_string(), help.to_string())
                    }
                };
                let message = format!(
                    "{} of {address} races with {} {} by {warp} at line {{L}}: {why}",
                    access(write, atomic),
                    if prev_atomic { "an" } else { "a" },
                    access(prev_write, prev_atomic),
                );
                self.report_as(
                    severity,
                    HazardKind::DataRace,
                    site,
                    message,
                    &help,
                    address,
                    related,
                );
            }
        }
    }

    /// Why a race between a warp access `at`/`prev` and the access at `site` (`strong`) comes
    /// down to a scope, and what to do: two strong accesses that are not morally strong, or a
    /// release/acquire pair that would order them but whose scope does not include both
    /// threads. `None` when scopes are not the reason.
    fn scope_note(
        &self,
        site: Site,
        at: Epoch,
        prev: Stamp,
        strong: Option<Scope>,
        prev_atomic: bool,
    ) -> Option<(String, String)> {
        let apart = distance(self.place(at.agent), Some(site.rank));
        let between = match apart {
            Scope::Cta => "the same CTA",
            Scope::Cluster => "two CTAs of one cluster",
            Scope::Gpu => "CTAs of different clusters",
        };
        let fix = match apart {
            Scope::Cluster => ".cluster (cuda::ptx::scope_cluster)",
            _ => ".gpu (cuda::thread_scope_device)",
        };
        if let (Some(scope), true) = (strong, prev_atomic) {
            let narrow = prev.scope().min(scope);
            if narrow < apart {
                return Some((
                    format!("both are strong, but the {} scope does not include both threads ({between}), so they are not morally strong (PTX ISA 9.0 8.7): neither atomicity nor order is promised between them", narrow.name()),
                    format!("give both accesses a scope that holds both threads: {fix}"),
                ));
            }
        }
        let w = &self.warps[site.rank as usize][site.warp as usize];
        let (f, pc, scope) = w.narrow_at?;
        if !w.narrow.covers(at) {
            return None;
        }
        Some((
            format!("a release/acquire pair through the atomic read at line {} ({} scope) would order them, but the release it read from (or the fence before a relaxed write) or this read has a scope that does not hold both threads ({between})", self.line(f, pc), scope.name()),
            format!("give the release (or the fence before a relaxed write) and the acquire a scope that holds both threads: {fix}"),
        ))
    }

    /// Names who made the earlier access `prev` (at `at`) for a message about an access at
    /// `site`: another lane of the same warp, or another warp.
    fn accessor(&self, site: Site, at: Epoch, prev: &Stamp) -> String {
        if self.warps[site.rank as usize][site.warp as usize].me == at.agent {
            format!("lane {} of the same warp", prev.lane())
        } else {
            self.warp_of(at.agent)
        }
    }

    /// Names the warp an agent belongs to, for messages.
    fn warp_of(&self, agent: Agent) -> String {
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
        "a warp of another CTA".into()
    }

    /// An asynchronous operation was issued by the warp at `site`: its sources are read and its
    /// destinations written from now until it completes.
    /// `lanes` are the lanes that issued it: one lane, or (`cp.async`) one piece per lane.
    pub fn op_issue(&mut self, engine: &Engine, global: &Global, op: OpId, site: Site, lanes: u32) {
        let Some(o) = engine.live(op) else {
            return;
        };
        self.collect_if_full();
        let issue_vc = self.warps[site.rank as usize][site.warp as usize]
            .vc
            .clone();
        let reduce = o.spec.reduce.is_some();
        let async_proxy = o.async_proxy();
        let stamp = Stamp::op(op, reduce);
        let segs = o.spec.segs.clone();
        let seg_lanes = issuing_lanes(o.spec.class, &o.spec.pieces, segs.len(), lanes);
        self.note_smem_op(o, op);
        let mut met: Vec<(Stamp, bool, bool, Region, usize)> = Vec::new();
        for (k, s) in segs.iter().enumerate() {
            let lane = seg_lanes.get(k).copied().flatten();
            for (loc, write) in [(s.src, false), (s.dst, true)] {
                let region = match loc {
                    Loc::Global(a) => Region::Global(a),
                    Loc::Shared { rank, off } => Region::Shared(rank, off),
                    Loc::Fill => continue,
                };
                let rank = match region {
                    Region::Shared(r, _) => r,
                    Region::Global(_) => site.rank,
                };
                let Some((shadow, off)) = Self::shadow(
                    &mut self.shared,
                    &mut self.global,
                    global,
                    &self.meter,
                    region,
                    s.len as usize,
                ) else {
                    continue;
                };
                let mut fence_checks = Vec::new();
                let issuer = &self.warps[site.rank as usize][site.warp as usize];
                shadow.access(
                    &mut self.events,
                    off,
                    s.len as usize,
                    stamp,
                    Lanes::NONE,
                    write,
                    &mut |prev, prev_write, conflict, _, _| {
                        let ok = match prev.who() {
                            Who::Warp { at, atomic } => {
                                // An atomic and a bulk reduction of the same word need no order.
                                let exempt = atomic && reduce;
                                let ordered = if at.agent == issuer.me {
                                    // The warp's own access: ordered when the issuing lane
                                    // knows of it (a whole-warp operation is the warp's).
                                    lane.is_none_or(|l| issuer.lane_knows(l, prev.lane(), at.clock))
                                } else {
                                    issue_vc.covers(at)
                                };
                                if ordered && !exempt && conflict && prev_write && async_proxy {
                                    fence_checks.push(*prev);
                                }
                                ordered || exempt
                            }
                            Who::Op { op: p, reduce: pr } => {
                                (pr && reduce)
                                    || engine.op(p).is_none_or(|po| {
                                        if prev_write {
                                            po.completion(rank).is_some_and(|e| issue_vc.covers(e))
                                        } else {
                                            po.sources_released()
                                                .is_some_and(|e| issue_vc.covers(e))
                                        }
                                    })
                            }
                        };
                        if !ok && conflict {
                            met.push((*prev, prev_write, write, region, s.len as usize));
                        }
                        ok
                    },
                );
                let space = match region {
                    Region::Shared(..) => FENCE_SHARED,
                    Region::Global(_) => FENCE_GLOBAL,
                };
                let issuer = self.warps[site.rank as usize][site.warp as usize].me;
                for prev in fence_checks {
                    if let Who::Warp { at, .. } = prev.who() {
                        if !self.fenced(at, space, &issue_vc, issuer) {
                            let (f, pc) = prev.site();
                            let address = describe(global, region, s.len as usize, site.rank);
                            let name = op_name(engine, op);
                            let what = if write { "overwrites" } else { "reads" };
                            self.report(
                                HazardKind::MissingProxyFence,
                                site,
                                format!("the {name} (async proxy) {what} {address}, last written by an ordinary store at line {{L}} that no fence.proxy.async orders before it"),
                                "after the ordinary stores, execute fence.proxy.async (cuda::ptx::fence_proxy_async) in the writing threads, before the barrier that orders them before the bulk copy",
                                address,
                                Some((f, pc, "the ordinary store (generic proxy)".into())),
                            );
                        }
                    }
                }
            }
        }
        for (prev, prev_write, write, region, len) in met {
            self.op_conflict(
                engine, global, op, site, prev, prev_write, write, region, len,
            );
        }
        self.warps[site.rank as usize][site.warp as usize].tick();
    }

    /// Whether a `fence.proxy.async` of state space `space` lies between the write `at` and an
    /// issue by `issuer` with clock `vc`: one the writer executed after the write that is
    /// ordered before the issue, or one the issuer executed once the write was visible to it.
    fn fenced(&self, at: Epoch, space: u8, vc: &Vc, issuer: Agent) -> bool {
        let by_writer = self.proxy_fences.get(&at.agent).is_some_and(|fs| {
            fs.iter()
                .find(|&&(f, sp)| f >= at.clock && sp & space != 0)
                .is_some_and(|&(f, _)| vc.get(at.agent) >= f)
        });
        let by_issuer = self
            .last_proxy_fence
            .get(&issuer)
            .is_some_and(|(fvc, sp)| sp & space != 0 && fvc.covers(at));
        by_writer || by_issuer
    }

    #[allow(clippy::too_many_arguments)]
    fn op_conflict(
        &mut self,
        engine: &Engine,
        global: &Global,
        op: OpId,
        site: Site,
        prev: Stamp,
        prev_write: bool,
        write: bool,
        region: Region,
        len: usize,
    ) {
        let name = op_name(engine, op);
        let address = describe(global, region, len, site.rank);
        let (kind, message, help, related) = match prev.who() {
            Who::Warp { at, .. } => {
                let (f, pc) = prev.site();
                let warp = self.accessor(site, at, &prev);
                if prev_write {
                    (
                        HazardKind::DataRace,
                        format!("the {name} {} {address}, written by {warp} at line {{L}} with nothing ordering that store before the copy's issue", if write { "writes" } else { "reads" }),
                        "order the store before the copy's issue (bar.sync, or an mbarrier arrive/wait pair)",
                        (f, pc, format!("the unordered store ({warp})")),
                    )
                } else {
                    (
                        HazardKind::AsyncWriteAfterRead,
                        format!("the {name} writes {address}, which {warp} reads at line {{L}}, and that read is not ordered before the copy's issue: it may read the new bytes"),
                        "make every reader finish before the copy is issued: a bar.sync (or an mbarrier the readers arrive on and the issuer waits on) between the last read and the refill",
                        (f, pc, format!("the read ({warp}) not ordered before the issue")),
                    )
                }
            }
            Who::Op { op: p, .. } => {
                let pname = op_name(engine, p);
                let Some(iss) = engine.op(p).map(|o| o.issuer()) else {
                    return;
                };
                let (kind, verb) = match (prev_write, write) {
                    (true, true) => (
                        HazardKind::WriteBeforeComplete,
                        "writes bytes that the in-flight",
                    ),
                    (true, false) => (
                        HazardKind::ReadBeforeComplete,
                        "reads bytes that the in-flight",
                    ),
                    _ => (
                        HazardKind::SourceModifiedBeforeComplete,
                        "overwrites bytes that the in-flight",
                    ),
                };
                (
                    kind,
                    format!("the {name} {verb} {pname} at line {{L}} {} ({address})", if prev_write { "writes" } else { "reads" }),
                    "wait for the earlier operation (its async-group or mbarrier phase) before issuing this one",
                    (iss.func, iss.pc, format!("the in-flight {pname}")),
                )
            }
        };
        self.report(kind, site, message, help, address, Some(related));
    }

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
        let release = super::scopes::releases(sem);
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

    /// `fence.proxy.tensormap::generic.release` by a warp: its earlier writes of tensor maps
    /// may be used by the tensor-map proxy of a thread that acquires them.
    pub fn tensormap_release(&mut self, rank: u32, warp: u32) {
        let w = &mut self.warps[rank as usize][warp as usize];
        w.fence(Scope::Gpu);
        let now = w.now();
        w.tick();
        let fs = self.tensormap_releases.entry(now.agent).or_default();
        fs.push(now.clock);
        if fs.len() > TENSORMAP_FENCES {
            fs.remove(0);
        }
    }

    /// `fence.proxy.tensormap::generic.acquire [addr], size` by a warp (global `addr`).
    pub fn tensormap_acquire(&mut self, rank: u32, warp: u32, addr: u64, size: u64) {
        let w = &mut self.warps[rank as usize][warp as usize];
        let (me, vc) = (w.me, w.vc.clone());
        w.tick();
        let fs = self.tensormap_acquires.entry(me).or_default();
        fs.push((addr, size, vc));
        if fs.len() > TENSORMAP_FENCES {
            fs.remove(0);
        }
    }

    /// A tensor copy issued at `site` uses the tensor map at global address `map` (PTX ISA 9.0
    /// 8.6 "Proxies", 9.7.12.4 `fence.proxy.tensormap`): a map last written by ordinary stores
    /// is read through the tensor-map proxy only after the writer's
    /// `fence.proxy.tensormap::generic.release` and the user's `.acquire` of those 128 bytes,
    /// in that order; otherwise the copy may use a stale map: `missing-tensormap-proxy-fence`.
    pub fn tensormap_use(&mut self, global: &Global, site: Site, map: u64) {
        let len = crate::mem::tensormap::SIZE;
        let Ok((i, off)) = global.locate(map, len as u64) else {
            return;
        };
        let Some(Some(shadow)) = self.global.get(i) else {
            return;
        };
        let user = &self.warps[site.rank as usize][site.warp as usize];
        let acquires = self.tensormap_acquires.get(&user.me);
        let mut unfenced = Vec::new();
        for st in shadow.writes(&self.events, off, len) {
            let Who::Warp { at, .. } = st.who() else {
                continue;
            };
            let fenced = self
                .tensormap_releases
                .get(&at.agent)
                .into_iter()
                .flatten()
                .filter(|&&f| f >= at.clock)
                .any(|&f| {
                    acquires.into_iter().flatten().any(|(a, n, vc)| {
                        *a <= map && map + len as u64 <= a + n && vc.get(at.agent) >= f
                    })
                });
            if !fenced {
                unfenced.push(st);
            }
        }
        // One finding per tensor copy: the store of the map's first unpublished word.
        if let Some(st) = unfenced.first() {
            let more = match unfenced.len() - 1 {
                0 => String::new(),
                n => format!(" (and {n} more stores of the map)"),
            };
            let (f, pc) = st.site();
            self.report(
                HazardKind::MissingTensormapProxyFence,
                site,
                format!("the tensor copy uses the tensor map at {}, last written by an ordinary store at line {{L}}{more} with no fence.proxy.tensormap::generic release (by the writer) and acquire (by this thread) between them: it may use a stale map", global.describe(map)),
                "after writing the map: fence.proxy.tensormap::generic.release.gpu in the writing thread; before the tensor copy: fence.proxy.tensormap::generic.acquire.gpu [map], 128 in the thread that issues it (CUDA: cuda::ptx::fence_proxy_tensormap_generic)",
                format!("{} (128 bytes)", global.describe(map)),
                Some((f, pc, "the ordinary store of the tensor map (generic proxy)".into())),
            );
        }
    }

    /// `fence.proxy.async` (of the state spaces `spaces`) by a warp.
    pub fn proxy_fence(&mut self, rank: u32, warp: u32, spaces: u8) {
        let w = &mut self.warps[rank as usize][warp as usize];
        let now = w.now();
        self.last_proxy_fence
            .insert(now.agent, (w.vc.clone(), spaces));
        w.tick();
        self.proxy_fences
            .entry(now.agent)
            .or_default()
            .push((now.clock, spaces));
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
                format!("access to shared+{off:#x} of CTA rank {rank} (distributed shared memory) that nothing orders before CTA rank {rank} exits at line {{L}}: it may happen after that CTA's shared memory is gone (the H100 fails the launch)"),
                "keep the CTA running until its peers are done with its shared memory: barrier.cluster.arrive + barrier.cluster.wait (cluster.sync()) by every thread before it exits",
                format!("shared+{off:#x} of CTA rank {rank}"),
                Some((exit.func, exit.pc, format!("CTA rank {rank} exits here"))),
            );
        }
    }

    /// Remembers which CTAs' shared memory operation `op` reads or writes, for
    /// [`Self::ops_at_exit`].
    fn note_smem_op(&mut self, o: &crate::mem::copy::Op, op: OpId) {
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
                format!("{who} exits while the {name} at line {{L}}, which {verb} its shared memory (shared+{:#x}), may still be in flight: nothing orders the exit after that access, and the memory is freed at the exit", m.off),
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

    /// The CTA rank and warp index an agent belongs to.
    fn rank_of(&self, agent: Agent) -> Option<(u32, u32)> {
        self.warps.iter().enumerate().find_map(|(r, ws)| {
            ws.iter()
                .position(|w| w.me == agent)
                .map(|i| (r as u32, i as u32))
        })
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

/// The lane that issued each segment of an operation: the one issuing lane, or for `cp.async`
/// the lane of each piece (piece `i` is the `i`-th lane of `lanes`); `None` for an operation
/// of the whole warp (`wgmma`), which is ordered after what the warp did.
fn issuing_lanes(class: OpClass, pieces: &[u32], segs: usize, lanes: u32) -> Vec<Option<u32>> {
    if lanes.count_ones() == 1 {
        return vec![Some(lanes.trailing_zeros()); segs];
    }
    if class != OpClass::CpAsync {
        return vec![None; segs];
    }
    let mut out = vec![None; segs];
    let issuers = (0..32u32).filter(|l| lanes >> l & 1 != 0);
    for (i, lane) in issuers.enumerate() {
        let (start, end) = (
            pieces.get(i).map_or(segs, |&p| p as usize),
            pieces.get(i + 1).map_or(segs, |&p| p as usize),
        );
        for s in out.iter_mut().take(end.min(segs)).skip(start) {
            *s = Some(lane);
        }
    }
    out
}

/// The epoch after which an operation no longer accesses CTA `rank`'s shared memory: its
/// completion for a write there, the end of its source reads for a read. An async-group's
/// epochs are fixed at issue; an mbarrier phase's only once the operation completed (`None`
/// while it is in flight: no wait can have observed it).
fn access_end(o: crate::mem::copy::OpRef<'_>, rank: u32, write: bool) -> Option<Epoch> {
    match o.group_epochs() {
        Some((done, read)) => Some(if write { done } else { read }),
        None if write => o.completion(rank),
        None => o.sources_released(),
    }
}

/// The CTA rank whose warps' agents start at the greatest of `starts` not above `agent`, if
/// `agent` is below `end`.
fn place_in(starts: &[Agent], end: Agent, agent: Agent) -> Place {
    match starts.first() {
        Some(&first) if first <= agent && agent < end => {
            Some(starts.partition_point(|&a| a <= agent) as u32 - 1)
        }
        _ => None,
    }
}

/// The region `delta` bytes further.
fn region_at(r: Region, delta: u64) -> Region {
    match r {
        Region::Global(a) => Region::Global(a + delta),
        Region::Shared(rank, o) => Region::Shared(rank, o + delta),
    }
}

/// A region's address, as the memory instructions' ranges key it.
fn addr_key(r: Region) -> u64 {
    match r {
        Region::Global(a) => a,
        Region::Shared(_, o) => o,
    }
}

/// `buffer+offset (n bytes)` or `shared+offset (n bytes)` for reports; `own` is the accessing
/// CTA's rank.
pub(crate) fn describe(global: &Global, region: Region, len: usize, own: u32) -> String {
    match region {
        Region::Global(a) => format!("{} ({len} bytes)", global.describe(a)),
        Region::Shared(r, o) if r == own => format!("shared+{o:#x} ({len} bytes)"),
        Region::Shared(r, o) => format!("shared+{o:#x} of CTA rank {r} ({len} bytes)"),
    }
}
