//! Races between threads' ordinary and strong accesses (PTX ISA 9.0 8.4 "Memory operations",
//! 8.7 "Morally strong operations", 8.9 "Data race"): every access of shared and global memory
//! is checked against the shadow of the bytes it touches. Two accesses of different threads,
//! one a write, that no synchronisation orders: `data-race` (atomic, volatile and
//! relaxed/acquire/release accesses do not race with each other when their scopes hold both
//! threads); severity `warning` when a plain read meets only an atomic write (the memory model
//! defines the value read: a CAS loop's first guess), when a store wrote the bytes memory held,
//! or when the reading warp never uses the value it read (`unused.rs`), `error` otherwise. A thread's access that
//! meets an asynchronous operation's unfinished one: `read-before-complete`,
//! `write-before-complete`, `source-modified-before-complete` (9.7.9.25.1).

use super::grids::Grids;
use super::kind::HazardKind;
use super::report::{Finding, Msg};
use super::scopes::distance;
use super::site::{addr_key, describe, place_in, region_at, word_key, Access, Region, Site};
use super::state::{after_op, op_name, Checker, Knows};
use super::unused::{Pending, Reach, Upgrade};
use crate::diag::Severity;
use crate::mem::copy::{Engine, OpId};
use crate::mem::hb::{Agent, Epoch, Scope, WarpClock};
use crate::mem::shadow::{Lanes, Stamp, Who};
use crate::mem::Global;
use std::collections::BTreeMap;

impl Checker {
    /// An ordinary, atomic or volatile access by a warp at `site` ([`Access`]).
    pub fn access(&mut self, engine: &Engine, global: &Global, site: Site, a: Access<'_>) {
        self.access_from::<false>(engine, global, site, a);
    }

    /// [`Self::access`]; `COPY`: made by a device-side copy (`state.rs`). The two are built
    /// apart so that the warps' one keeps its single caller, which inlines it and the shadow's
    /// walk with it: sharing one made checked runs count 2.5% more instructions.
    pub(super) fn access_from<const COPY: bool>(
        &mut self,
        engine: &Engine,
        global: &Global,
        site: Site,
        a: Access<'_>,
    ) {
        if !COPY {
            self.note_executed(site);
        }
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
            grids,
            ..
        } = self;
        let w = &warps[site.rank as usize][site.warp as usize];
        let mut new =
            Stamp::warp(w.now(), a.strong.is_some(), site.func, site.pc).by_lane(site.lane);
        if let Some(scope) = a.strong {
            new = new.scoped(scope);
        }
        // (The shadow keeps it only where a warp's write left the bytes.)
        new = new.keeping(a.kept && a.write && a.strong.is_none());
        let Some((shadow, off)) = Self::shadow(shared, globals, global, meter, a.region, a.len)
        else {
            return;
        };
        let order = Order {
            engine,
            warp: w,
            observed,
            agents: (rank_agents, *agents_end),
            grids,
            site,
            access: a,
            off,
        };
        let pieces = Lanes {
            pieces: a.lanes,
            base: addr_key(a.region) - off as u64,
            shift_ok: w.lanes_alike(),
            unlaned: None,
        };
        let mut met: Vec<Met> = Vec::new();
        shadow.access(
            events,
            (off, a.len),
            new,
            pieces,
            a.write,
            &mut |prev, prev_write, conflict, byte, new| {
                let ok = order.ordered(prev, prev_write, byte, new);
                // (Once per earlier access, and again where this write is kept in one word
                // and not in another: the report keeps the graver; per lane of this access
                // where the earlier one names warps, whose judgement depends on the lane:
                // `readers_of`.)
                let seen = |m: &Met| {
                    m.0 == *prev
                        && m.4 == new.kept()
                        && (m.3 == new.lane() || prev.named().next().is_none())
                };
                if !ok && conflict && !met.iter().any(seen) {
                    met.push((*prev, prev_write, byte, new.lane(), new.kept()));
                }
                ok
            },
        );
        self.report_met(engine, global, site, a, off, met);
    }

    /// Reports the earlier accesses `met` that access `a` at `site` conflicts with unordered;
    /// `off` is `a`'s shadow offset.
    fn report_met(
        &mut self,
        engine: &Engine,
        global: &Global,
        site: Site,
        a: Access<'_>,
        off: usize,
        met: Vec<Met>,
    ) {
        let base = addr_key(a.region);
        for (prev, prev_write, byte, lane, kept) in met {
            // Report the lane whose own access met the conflict, and the bytes it accessed.
            let addr = addr_key(region_at(a.region, byte as u64 - off as u64));
            let (start, end) = a
                .lanes
                .iter()
                .find(|&&(s, e, l)| l == lane && s <= addr && addr < e)
                .map_or((base, base + a.len as u64), |p| (p.0, p.1));
            let at = Site { lane, ..site };
            let address = describe(
                global,
                region_at(a.region, start - base),
                (end - start) as usize,
                site.rank,
            );
            let mine = Mine {
                write: a.write,
                strong: a.strong,
                kept,
            };
            self.thread_conflict(engine, at, mine, prev, prev_write, address);
        }
    }

    /// Reports the conflict of an access (`write`, `strong`) at `site` with an earlier one.
    pub(super) fn thread_conflict(
        &mut self,
        engine: &Engine,
        site: Site,
        mine: Mine,
        prev: Stamp,
        prev_write: bool,
        address: String,
    ) {
        match prev.who() {
            Who::Op { op, .. } => {
                self.unfinished_op(engine, site, mine.write, op, prev_write, address)
            }
            Who::Warp { at, atomic } => {
                self.race(site, mine, (prev, at, atomic), prev_write, address)
            }
        }
    }

    /// Reports an access (`write`) at `site` of bytes the unfinished operation `op` writes
    /// (`prev_write`) or reads.
    fn unfinished_op(
        &mut self,
        engine: &Engine,
        site: Site,
        write: bool,
        op: OpId,
        prev_write: bool,
        address: String,
    ) {
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
        let (kind, access, rest, help) = match (prev_write, write) {
            (true, false) => (
                HazardKind::ReadBeforeComplete,
                "read of",
                " writes, before that operation completes",
                tracked,
            ),
            (true, true) => (
                HazardKind::WriteBeforeComplete,
                "write to",
                " also writes, before that operation completes",
                tracked,
            ),
            _ => (
                HazardKind::SourceModifiedBeforeComplete,
                "write to",
                " reads, before that operation has finished reading it",
                "keep the source unchanged until the copy has read it: cp.async.wait_group (non-bulk), cp.async.bulk.wait_group.read (bulk stores) or the mbarrier phase (bulk loads) first",
            ),
        };
        let message = Msg::text(format!("{access} {address}, which the {name} at line "))
            .related_line()
            .then(rest);
        self.report(kind, site, message, help, address, related);
    }

    /// Notes that the warp at `site` executed its instruction's access: a read of its found
    /// unused becomes an error if the value reaches this load or store (`unused.rs`).
    #[inline]
    fn note_executed(&mut self, site: Site) {
        if let Some(now) = self.spent.ran(site.rank, site.warp, site.func, site.pc) {
            for u in now {
                self.upgrade(u);
            }
        }
    }

    /// Reports a race of an access ([`Mine`]) at `site` with an earlier access of a warp
    /// (`prev`, made at `at`, atomic or not).
    fn race(
        &mut self,
        site: Site,
        Mine {
            write,
            strong,
            kept,
        }: Mine,
        (prev, at, prev_atomic): (Stamp, Epoch, bool),
        prev_write: bool,
        address: String,
    ) {
        let atomic = strong.is_some();
        let (f, pc) = prev.site();
        let same_warp = self.warps[site.rank as usize][site.warp as usize].me == at.agent;
        let warp = self.accessor(site, at, &prev);
        let class = race_class(
            (write, atomic, kept),
            (prev_write, prev_atomic, prev.kept()),
        );
        let severity = match class {
            Class::Error => Severity::Error,
            _ => Severity::Warning,
        };
        let related = Some((
            f,
            pc,
            format!(
                "the {} it races with ({warp})",
                access_name(prev_write, prev_atomic)
            ),
        ));
        let (why, help) = match self.scope_note(site, at, prev, strong, prev_atomic) {
            Some(note) => note,
            None => {
                let (why, help) = race_note(class, same_warp);
                (Msg::text(why), help.to_string())
            }
        };
        let message = |why: Msg| {
            Msg::text(format!(
                "{} of {address} races with {} {} by {warp} at line ",
                access_name(write, atomic),
                if prev_atomic { "an" } else { "a" },
                access_name(prev_write, prev_atomic),
            ))
            .related_line()
            .then(": ")
            .then_msg(why)
        };
        // A plain read and a plain write: was the value read used?
        let readers = match (class, atomic || prev_atomic, write, prev_write) {
            (Class::Error, false, false, true) => {
                Some(vec![(site.rank, site.warp, site.func, site.pc)])
            }
            // (Not when the read met stands for reads the shadow let go: one of those may
            // have been used.)
            (Class::Error, false, true, false) if !prev.absorbed() => self
                .readers_of(&prev, at, site)
                .map(|ws| ws.into_iter().map(|(r, w)| (r, w, f, pc)).collect()),
            _ => None,
        };
        let unused: Option<Vec<_>> =
            readers.and_then(|rs| rs.into_iter().map(|r| self.unused_read(r)).collect());
        if let Some(unused) = unused {
            self.record(Finding {
                severity: Severity::Warning,
                kind: HazardKind::DataRace,
                site,
                message: message(Msg::text(UNUSED.0)),
                help: UNUSED.1,
                address: address.clone(),
                related: related.clone(),
            });
            for (rank, w, func, reach) in unused {
                let upgrade = Upgrade {
                    site,
                    message: message(why.clone()),
                    help: help.clone(),
                    address: address.clone(),
                    related: related.clone(),
                };
                self.spent.hold(Pending {
                    rank,
                    warp: w,
                    func,
                    reach,
                    upgrade,
                });
            }
            return;
        }
        self.record(Finding {
            severity,
            kind: HazardKind::DataRace,
            site,
            message: message(why),
            help: &help,
            address,
            related,
        });
    }

    /// The warps (CTA rank, index) of the running cluster whose reads the remembered read
    /// `prev` (made at `at`) stands for, as a write at `site` meets it: its own and those it
    /// names for reads forgotten for room ([`Stamp::named`]; of the same instruction and lane),
    /// but not the writer's own when the write is by that lane, which its program orders after
    /// the read. `None` when one is not a warp of the running cluster.
    fn readers_of(&self, prev: &Stamp, at: Epoch, site: Site) -> Option<Vec<(u32, u32)>> {
        let writer = self.warps[site.rank as usize][site.warp as usize].me;
        let own_lane = prev.lane() == site.lane;
        std::iter::once(at.agent)
            .chain(prev.named().filter(|&a| !(a == writer && own_lane)))
            .map(|a| self.rank_of(a))
            .collect()
    }

    /// The warp (CTA rank, index) of the running cluster that made the read at `(func, pc)`,
    /// `func`, and the loads and stores of `func` the value reaches, when the warp has executed
    /// none of them: the value is so far unused (`unused.rs`).
    fn unused_read(
        &self,
        (rank, warp, func, pc): (u32, u32, u32, u32),
    ) -> Option<(u32, u32, u32, Vec<u32>)> {
        match self.flow.reach(func, pc) {
            Reach::Only(reach)
                if self.spent.executed_any(rank, warp, func, &reach) == Some(false) =>
            {
                Some((rank, warp, func, reach))
            }
            _ => None,
        }
    }

    /// Why a race between a warp access `at`/`prev` and the access at `site` (`strong`) comes
    /// down to a scope, and what to do: two strong accesses that are not morally strong, or a
    /// release/acquire pair that would order them but whose scope does not include both
    /// threads. `None` when scopes are not the reason.
    pub(super) fn scope_note(
        &self,
        site: Site,
        at: Epoch,
        prev: Stamp,
        strong: Option<Scope>,
        prev_atomic: bool,
    ) -> Option<(Msg, String)> {
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
                    Msg::text(format!("both are strong, but the {} scope does not include both threads ({between}), so they are not morally strong (PTX ISA 9.0 8.7): neither atomicity nor order is promised between them", narrow.name())),
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
            Msg::text("a release/acquire pair through the atomic read at line ")
                .line_of(f, pc)
                .then(format!(" ({} scope) would order them, but the release it read from (or the fence before a relaxed write) or this read has a scope that does not hold both threads ({between})", scope.name())),
            format!("give the release (or the fence before a relaxed write) and the acquire a scope that holds both threads: {fix}"),
        ))
    }
}

/// An earlier access that an access met unordered: its stamp, whether it wrote, the shadow byte,
/// the lane whose access met it and whether that lane's write was kept there.
type Met = (Stamp, bool, usize, u32, bool);

/// The access that meets an earlier one: whether it writes, the scope of a strong access, and
/// whether the shadow kept its write ([`Stamp::keeping`]).
#[derive(Debug, Clone, Copy)]
pub(super) struct Mine {
    pub write: bool,
    pub strong: Option<Scope>,
    pub kept: bool,
}

/// What kind of race two accesses make, each `(write, strong, kept)`, the new one first.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Class {
    /// Undefined behaviour or an ordinary data race.
    Error,
    /// A plain read and an atomic write, or two strong accesses that are not morally strong.
    Defined,
    /// Two plain accesses, one a write that stored the bytes the memory held.
    Equal,
}

/// The class of a race between access `new` and the earlier access `prev`, each
/// `(write, strong, kept)`. A plain read racing only with an atomic write reads one of the
/// values written (PTX ISA 9.0 8.7.1, 8.9: the memory model defines it); a CAS loop's first
/// guess is the usual case. Two strong accesses race only when a scope does not hold both
/// threads: their atomicity is not promised, though hardware usually keeps it. A plain write
/// that stored the bytes an earlier warp's write left races harmlessly with plain accesses: a
/// read returns those bytes whichever comes first, and memory ends with them whichever write
/// lands last (Triton zeroes `tl.histogram`'s bins from two warps). Not with an atomic: a
/// plain write of the value an atomic just made can be a lost update (`x = ld; ...; st x+1`
/// racing with an `atom.add`). Every other race is an error.
fn race_class(
    (write, atomic, kept): (bool, bool, bool),
    (prev_write, prev_atomic, prev_kept): (bool, bool, bool),
) -> Class {
    if (prev_write && prev_atomic && !write && !atomic)
        || (write && atomic && !prev_write && !prev_atomic)
        || (atomic && prev_atomic)
    {
        Class::Defined
    } else if !atomic && !prev_atomic && ((kept && write) || (prev_kept && !write)) {
        Class::Equal
    } else {
        Class::Error
    }
}

/// What decides whether an earlier access of a byte is ordered before a warp's `access` at
/// `site`, or needs no order with it.
struct Order<'c> {
    engine: &'c Engine,
    /// The accessing warp's clocks.
    warp: &'c WarpClock,
    /// The checker's record of atomic writes that strong reads observed.
    observed: &'c BTreeMap<(Agent, (u32, u64)), Epoch>,
    /// The first agent of each CTA rank and the agent after the last warp's ([`place_in`]).
    agents: (&'c [Agent], Agent),
    /// The grids of the launch tree, whose completion a clock may know.
    grids: &'c Grids,
    site: Site,
    access: Access<'c>,
    /// The access's offset in its shadow.
    off: usize,
}

impl Order<'_> {
    /// Whether the earlier access `prev` (a write or not) of shadow byte `byte` may precede
    /// `new` unordered: ordered before it, morally strong with it, or an operation's reduction
    /// met by an atomic.
    fn ordered(&self, prev: &Stamp, prev_write: bool, byte: usize, new: &Stamp) -> bool {
        let atomic = self.access.strong.is_some();
        match prev.who() {
            Who::Warp {
                at,
                atomic: prev_atomic,
            } => {
                (prev_atomic && atomic && self.morally_strong(prev, new, at.agent))
                    || self.happened_before(at, prev, new)
                    || (prev_atomic && prev_write && self.observed(at, byte))
            }
            Who::Op { op, reduce } => {
                // (An operation the engine no longer knows cannot be judged: no report.)
                (reduce && atomic)
                    || after_op(self.engine, op, prev_write, self.dst_rank(), self.knows())
            }
        }
    }

    /// Two strong accesses are morally strong (they do not race) when each one's scope
    /// includes the other's thread.
    fn morally_strong(&self, prev: &Stamp, new: &Stamp, agent: Agent) -> bool {
        let (starts, end) = self.agents;
        let apart = distance(place_in(starts, end, agent), Some(self.site.rank));
        apart <= prev.scope() && apart <= new.scope()
    }

    /// Whether the warp access `prev`, made at `at`, happened before `new`: by lane order
    /// within the accessing warp, by the warp's vector clock otherwise.
    fn happened_before(&self, at: Epoch, prev: &Stamp, new: &Stamp) -> bool {
        if at.agent == self.warp.me {
            self.warp.lane_knows(new.lane(), prev.lane(), at.clock)
        } else {
            self.knows().covers(at)
        }
    }

    fn knows(&self) -> Knows<'_> {
        Knows {
            vc: &self.warp.vc,
            grids: self.grids,
        }
    }

    /// Whether a strong read of the word holding shadow byte `byte` saw the write at `at`: what
    /// follows that read in the reader's program order is ordered after the write.
    fn observed(&self, at: Epoch, byte: usize) -> bool {
        let key = word_key(region_at(self.access.region, (byte - self.off) as u64));
        self.observed
            .get(&(self.warp.me, key))
            .is_some_and(|o| o.agent == at.agent && o.clock >= at.clock)
    }

    /// The CTA rank whose memory the access touches (where an operation's completion counts).
    fn dst_rank(&self) -> u32 {
        match self.access.region {
            Region::Shared(r, _) => r,
            Region::Global(_) => self.site.rank,
        }
    }
}

/// Why a race whose read was unused is a warning, and what to do (`unused.rs`).
const UNUSED: (&str, &str) = (
    "the value read reaches no store, load address, branch or other effect that the reading warp executed, so the race changes nothing the kernel computes (PTX does not require data-race freedom: the read returns some value); it becomes an error if the warp uses the value",
    "nothing is wrong if the value is never used (Triton loads a block's elements in every warp and stores each from one: replicated elements, scalars); otherwise order the accesses; `--deny warnings` fails on this, a suppression hides it",
);

/// How a race's message names an access.
fn access_name(write: bool, atomic: bool) -> &'static str {
    match (write, atomic) {
        (true, true) => "atomic write",
        (false, true) => "atomic read",
        (true, false) => "write",
        (false, false) => "read",
    }
}

/// Why a race of class `class` is one (when scopes are not the reason), and its usual fix;
/// `same_warp` when both accesses are lanes of one warp.
fn race_note(class: Class, same_warp: bool) -> (&'static str, &'static str) {
    match class {
        Class::Error if same_warp => (
            "lanes of a warp are threads of their own, and executing together does not order their accesses (independent thread scheduling, sm_70 on); no __syncwarp, warp collective, barrier or atomic orders them",
            "put __syncwarp() (bar.warp.sync) between the two accesses, or exchange the value with __shfl_sync",
        ),
        Class::Equal => (
            "the write stored the bytes the memory already held, so the race changes no value read or left in memory (a data race in the memory model all the same)",
            "nothing is wrong if every such write stores the same bytes (Triton zeroing a tl.histogram's bins from several warps); otherwise order the accesses; `--deny warnings` fails on this, a suppression hides it",
        ),
        Class::Defined => (
            "the plain read returns one of the values written, which is harmless only where the value is a guess that is checked later (a CAS loop's first read)",
            "if the value is a guess checked later (a CAS loop), nothing is wrong; otherwise read it atomically (ld.relaxed, cuda::atomic_ref::load) or order the accesses; `--deny warnings` fails on this, a suppression hides it",
        ),
        Class::Error => (
            "no barrier, mbarrier or atomic orders them",
            "order the two accesses (bar.sync, an mbarrier arrive/wait pair, or release/acquire atomics), or make both atomic",
        ),
    }
}
