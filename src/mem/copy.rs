//! The asynchronous copy engine (PTX ISA 9.0 section 9.7.9.25 "Data Movement and Conversion
//! Instructions: Asynchronous copy", 9.7.9.25.1 "Completion Mechanisms"). Every asynchronous
//! operation is a transaction: its issuer, byte segments from a source to a destination, a
//! completion mechanism, and times the latency model chose. At the read time the sources are
//! copied into the operation's staging bytes; at each piece's landing time that piece's bytes are
//! written (or reduced) into the destination; at completion the mechanism fires: the issuing
//! thread's async-group (nothing to do here: waits ask [`Engine::is_complete`]), complete-tx on
//! mbarriers, and any `cp.async.mbarrier.arrive` arrive-on waiting for it. A kernel that reads a
//! destination early therefore sees stale or partial bytes, as hardware could show it.
//!
//! Events are processed in (time, issue order) order; nothing depends on wall time or hashing.
//! Address ranges are checked when the operation is issued, so later reads and writes cannot
//! fail; the errors here are mbarrier misuse found at completion.
//!
//! Memory follows what is in flight: an operation's whole record (segments, staging bytes)
//! lives only until it completes. What the happens-before checker and its reports still need of
//! it afterwards (its instruction, issuer and checker slot) is kept as a small [`Done`] summary,
//! and only when something checks (`Engine::new`); summaries of earlier clusters' operations
//! that no shadow entry names any more are dropped (`Engine::forget_done`), so that they stay
//! proportional to the shadow, not to the running time.
//!
//! The engine carries the checker's record of each operation as an opaque
//! [`CopySlot`](crate::check::slot::CopySlot), whose hooks it calls at complete-tx and at the
//! completion, and records trace events as typed data (the opcode, `trace::Place`s): it builds
//! them only when a trace is kept, and only the trace's writers turn them into text.

use super::hb::{Epoch, Vc};
use super::mbarrier::MbarError;
use super::{Global, Smem};
use crate::check::slot::CopySlot;
use crate::ir::mods::SubOp;
use crate::ir::{Op as Opcode, Type};
use crate::latency::{LatencyModel, OpClass, OpDesc, Timing};
use crate::trace::{Event, Place, Signal, Span, Trace, What};
use std::cmp::Reverse;
use std::collections::{BTreeMap, BinaryHeap};

/// An operation's number: unique for the whole run, in issue order.
pub type OpId = u32;

/// One end of a segment.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Loc {
    Global(u64),
    Shared {
        rank: u32,
        off: u64,
    },
    /// No source: the staging bytes were pre-filled (zero fill, out-of-bounds fill).
    Fill,
}

/// `len` bytes from `src` through staging offset `stage` to `dst`.
#[derive(Debug, Clone, Copy)]
pub struct Seg {
    pub src: Loc,
    pub dst: Loc,
    pub len: u32,
    pub stage: u32,
}

/// How an operation signals completion.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Completion {
    /// The issuing thread's (bulk) async-group: waits poll the operation.
    Group,
    /// complete-tx of these bytes on these mbarriers (rank, shared offset, bytes).
    Mbarrier(Vec<(u32, u32, u64)>),
}

/// Who issued an operation, for waking, traces and reports.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub struct Issuer {
    pub rank: u32,
    pub cta: [u32; 3],
    pub warp: u32,
    pub lanes: u32,
    pub func: u32,
    pub pc: u32,
    pub line: u32,
    pub cuda: Option<(u32, u32)>,
}

impl Issuer {
    /// A trace event at cycle `t` of the issuer's CTA, on `warp`'s track (`None`: the copy
    /// engine's), at the issuing instruction.
    fn event(&self, t: u64, warp: Option<u32>, what: What) -> Event {
        Event {
            cycle: t,
            cta: self.cta,
            warp,
            lanes: self.lanes,
            line: self.line,
            cuda: self.cuda,
            what,
        }
    }

    /// Offset `off` of CTA `rank`'s shared memory, as a place in the issuer's CTA's events.
    fn shared(&self, rank: u32, off: u64) -> Place {
        if rank == self.rank {
            Place::Shared(off)
        } else {
            Place::Peer { rank, off }
        }
    }

    /// An end of a segment as a place in the issuer's CTA's events (`global` names the
    /// allocations, in `trace`'s table).
    fn place(&self, l: Loc, global: &Global, trace: &mut Trace) -> Place {
        match l {
            Loc::Global(a) => match global.named(a) {
                Some((name, off)) => Place::Global {
                    name: trace.alloc_id(name),
                    off,
                },
                None => Place::Address(a),
            },
            Loc::Shared { rank, off } => self.shared(rank, off),
            Loc::Fill => Place::Fill,
        }
    }
}

/// The trace event of an operation's issue: its instruction, its bytes, the first and last
/// place of its sources and its destinations (`fill` where none), and how it completes.
fn issue_event(spec: &OpSpec, op: OpId, bytes: u64, global: &Global, trace: &mut Trace) -> What {
    let iss = spec.issuer;
    let mut span = |end: fn(&Seg) -> Loc| {
        let mut locs = spec.segs.iter().map(end).filter(|l| *l != Loc::Fill);
        let (first, last) = (locs.next(), locs.next_back());
        let Some(first) = first else {
            return Span::one(Place::Fill);
        };
        Span {
            first: iss.place(first, global, trace),
            last: last
                .filter(|l| *l != first)
                .map(|l| iss.place(l, global, trace)),
        }
    };
    let src = span(|s| s.src);
    let dst = match spec.class {
        OpClass::Wgmma => Span::one(Place::Accumulators),
        _ => span(|s| s.dst),
    };
    let completion = match &spec.completion {
        Completion::Group if spec.class == OpClass::Wgmma => Signal::WgmmaGroup,
        Completion::Group => Signal::Group,
        Completion::Mbarrier(t) => Signal::CompleteTx(
            t.iter()
                .map(|&(r, o, b)| (iss.shared(r, u64::from(o)), b))
                .collect(),
        ),
    };
    What::Issue {
        op,
        kind: spec.kind,
        bytes,
        src,
        dst,
        completion,
    }
}

/// What a tensor copy through an f32 map does to elements (the map's flavour, measured on an
/// H100: `mem::tensormap::F32Mode`).
#[derive(Debug, Clone, Copy)]
pub struct F32Rules {
    /// Applied to each f32 read from global memory (tf32 maps round to tf32).
    pub load: Option<fn(u32) -> u32>,
    /// Add-reductions flush subnormal operands and results (the FTZ flavours).
    pub ftz: bool,
}

/// An operation to issue.
#[derive(Debug, Clone)]
pub struct OpSpec {
    pub class: OpClass,
    /// The instruction that issued it (`cp.async`, `cp.async.bulk`, ...), for traces and reports.
    pub kind: Opcode,
    pub segs: Vec<Seg>,
    /// Index of the first segment of each piece (piece `i` is `pieces[i]..pieces[i+1]`).
    pub pieces: Vec<u32>,
    /// Staging bytes, pre-filled where a segment has no source.
    pub staging: Vec<u8>,
    pub completion: Completion,
    /// Combine into the destination instead of overwriting it.
    pub reduce: Option<(SubOp, Type)>,
    /// A tensor copy through an f32 map: its element rules.
    pub f32: Option<F32Rules>,
    pub issuer: Issuer,
    pub on_chip: bool,
    /// Per complete-tx target, the mbarrier's phase when the operation was issued (`None` if it
    /// was not initialized yet): its bytes must count towards that phase (mbarrier misuse the
    /// engine reports itself, checking or not).
    pub tx_phases: Vec<Option<u32>>,
    /// The happens-before checker's record of the operation, carried and never read here: the
    /// engine only calls its hooks at complete-tx and at completion.
    pub slot: CopySlot,
}

/// An operation in flight.
#[derive(Debug, Clone)]
pub struct Op {
    pub spec: OpSpec,
    pub read_done: bool,
}

impl Op {
    /// Whether it goes through the async proxy (bulk and tensor copies and reductions); non-bulk
    /// `cp.async` and `st.async`/`red.async` are generic-proxy operations.
    pub fn async_proxy(&self) -> bool {
        matches!(
            self.spec.class,
            OpClass::Bulk | OpClass::BulkReduce | OpClass::Tensor | OpClass::Wgmma
        )
    }
}

/// What is kept of a completed operation: enough for the checker to judge later accesses
/// against it (its slot) and for reports to name it (its instruction and issuer).
#[derive(Debug, Clone)]
pub struct Done {
    pub kind: Opcode,
    pub class: OpClass,
    pub issuer: Issuer,
    /// Tracked by an async-group (else by mbarriers, or by nothing).
    pub by_group: bool,
    pub slot: CopySlot,
}

impl Done {
    fn of(op: Op) -> Done {
        let mut slot = op.spec.slot;
        slot.completed();
        Done {
            kind: op.spec.kind,
            class: op.spec.class,
            issuer: op.spec.issuer,
            by_group: op.spec.completion == Completion::Group,
            slot,
        }
    }
}

/// An operation as the engine knows it: in flight (its whole record) or completed (its summary).
#[derive(Debug, Clone, Copy)]
pub enum OpRef<'a> {
    Live(&'a Op),
    Done(&'a Done),
}

impl OpRef<'_> {
    /// The instruction name (`cp.async.cg`, ...).
    pub fn kind(self) -> &'static str {
        match self {
            OpRef::Live(o) => o.spec.kind.name(),
            OpRef::Done(d) => d.kind.name(),
        }
    }

    pub fn issuer(self) -> Issuer {
        match self {
            OpRef::Live(o) => o.spec.issuer,
            OpRef::Done(d) => d.issuer,
        }
    }

    /// What moves the bytes (bulk and tensor copies read their source until `wait_group.read`).
    pub fn class(self) -> OpClass {
        match self {
            OpRef::Live(o) => o.spec.class,
            OpRef::Done(d) => d.class,
        }
    }

    /// Whether an async-group tracks it.
    pub fn by_group(self) -> bool {
        match self {
            OpRef::Live(o) => o.spec.completion == Completion::Group,
            OpRef::Done(d) => d.by_group,
        }
    }

    /// Whether its sources have been read (always, once it completed).
    pub fn read_done(self) -> bool {
        match self {
            OpRef::Live(o) => o.read_done,
            OpRef::Done(_) => true,
        }
    }
}

impl<'a> OpRef<'a> {
    /// The checker's record of it.
    pub fn slot(self) -> &'a CopySlot {
        match self {
            OpRef::Live(o) => &o.spec.slot,
            OpRef::Done(d) => &d.slot,
        }
    }
}

/// An arrive-on (`cp.async.mbarrier.arrive`) waiting for operations to complete.
#[derive(Debug, Clone)]
pub struct ArriveOn {
    pub rank: u32,
    pub off: u32,
    pub count: u32,
    pub waiting: Vec<OpId>,
    pub issuer: Issuer,
    /// What the arrive-on releases: the issuer's clock at the instruction, with its `cp.async`
    /// completion clock raised past the operations it waits for (empty when not checking).
    pub release: Vc,
}

/// What changed, for the machine to wake waiters.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Notice {
    /// An operation of this warp read its sources or completed.
    Op { rank: u32, warp: u32 },
    /// The mbarrier at this shared offset changed.
    Mbar { rank: u32, off: u32 },
}

/// An error found while completing an operation: mbarrier misuse, named by hazard kind.
#[derive(Debug, Clone)]
pub struct EngineError {
    pub kind: crate::check::HazardKind,
    pub message: String,
    pub issuer: Issuer,
}

/// Memory the engine reads and writes.
pub struct Spaces<'a> {
    pub global: &'a mut Global,
    pub smem: &'a mut [Smem],
}

#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord)]
enum Ev {
    Read,
    /// Pieces `first..end`, which land at one cycle.
    Land(u32, u32),
    Complete,
}

/// Piece `p` of operation `id` lands: its segments are written from the staging buffer.
fn land(
    spec: &OpSpec,
    id: OpId,
    p: u32,
    mem: &mut Spaces<'_>,
    trace: &mut Trace,
    event: &impl Fn(What) -> Event,
) {
    let start = spec.pieces.get(p as usize).copied().unwrap_or(0) as usize;
    let end = spec
        .pieces
        .get(p as usize + 1)
        .map_or(spec.segs.len(), |&e| e as usize);
    let mut bytes = 0;
    for s in &spec.segs[start.min(end)..end] {
        let data = &spec.staging[s.stage as usize..(s.stage + s.len) as usize];
        write(mem, s.dst, data, spec.reduce, spec.f32);
        bytes += s.len;
    }
    trace.push(event(What::Land {
        op: id,
        piece: p,
        bytes,
    }));
}

/// Summaries of completed operations are never looked through below this many.
const SUMMARIES_FLOOR: usize = 1 << 14;

pub struct Engine {
    /// Operations in flight.
    live: BTreeMap<OpId, Op>,
    /// Summaries of completed operations, kept only when `summaries` says so (without the
    /// checker nothing asks about a completed operation): by id from `done_base` (`None`
    /// while in flight), and those of earlier operations still named, in `older`.
    done: Vec<Option<Done>>,
    done_base: OpId,
    older: BTreeMap<OpId, Done>,
    /// Summaries held at which the next `forget_done_if_full` looks.
    done_limit: usize,
    summaries: bool,
    kept: usize,
    /// The staged operands of completed `wgmma.mma_async` until the exec layer takes them.
    operands: BTreeMap<OpId, Vec<u8>>,
    next: OpId,
    /// The most operations in flight at once.
    peak_live: usize,
    queue: BinaryHeap<Reverse<(u64, u64, OpId, Ev)>>,
    seq: u64,
    model: Box<dyn LatencyModel>,
    timing: Timing,
    arrive_ons: Vec<ArriveOn>,
    /// Per (rank, warp), the completion time of its last `wgmma.mma_async`.
    wgmma_last: BTreeMap<(u32, u32), u64>,
}

impl Engine {
    /// An engine whose operations take the times `model` gives; `summaries`: keep a summary of
    /// every completed operation (the happens-before checker needs them).
    pub fn new(model: Box<dyn LatencyModel>, summaries: bool) -> Self {
        Engine {
            live: BTreeMap::new(),
            done: Vec::new(),
            done_base: 0,
            older: BTreeMap::new(),
            done_limit: SUMMARIES_FLOOR,
            summaries,
            kept: 0,
            operands: BTreeMap::new(),
            next: 0,
            peak_live: 0,
            queue: BinaryHeap::new(),
            seq: 0,
            model,
            timing: Timing::default(),
            arrive_ons: Vec::new(),
            wgmma_last: BTreeMap::new(),
        }
    }

    pub fn model_name(&self) -> String {
        self.model.name()
    }

    /// The grid's `cluster`-th cluster starts on fresh SMs: queues are empty, the model reseeded.
    /// Operation ids stay unique for the whole run (the checker's shadow of global memory names
    /// them).
    pub fn reset(&mut self, cluster: u64) {
        self.queue.clear();
        self.arrive_ons.clear();
        self.wgmma_last.clear();
        self.model.reset(cluster);
    }

    pub fn is_complete(&self, op: OpId) -> bool {
        !self.live.contains_key(&op)
    }

    /// What the engine knows of an operation: its record while in flight, then its summary
    /// (`None` once complete when summaries are not kept).
    pub fn op(&self, op: OpId) -> Option<OpRef<'_>> {
        match self.live.get(&op) {
            Some(o) => Some(OpRef::Live(o)),
            None if op >= self.done_base => self
                .done
                .get((op - self.done_base) as usize)
                .and_then(Option::as_ref)
                .map(OpRef::Done),
            None => self.older.get(&op).map(OpRef::Done),
        }
    }

    /// Summaries of completed operations held now.
    pub fn summaries_held(&self) -> usize {
        self.kept
    }

    /// Between clusters, when the summaries held have doubled since the last time: drops
    /// those of operations that `named()` does not list (sorted: the operations the checker's
    /// shadow of global memory still names), which also says how many entries it walked to
    /// find them: a walk of `w` entries is not made again before `w / 8` more summaries.
    /// Everything else that asks about an operation asks about the running cluster's.
    pub fn forget_done_if_full(&mut self, named: impl FnOnce() -> (Vec<OpId>, usize)) {
        if self.summaries_held() >= self.done_limit {
            let (named, walked) = named();
            self.forget_done(&named);
            let kept = self.older.len();
            self.done_limit = (2 * kept).max(SUMMARIES_FLOOR).max(kept + walked / 8);
        }
    }

    fn forget_done(&mut self, named: &[OpId]) {
        let keep = |op: &OpId| named.binary_search(op).is_ok();
        self.older.retain(|op, _| keep(op));
        let base = self.done_base;
        for (i, d) in std::mem::take(&mut self.done).into_iter().enumerate() {
            let op = base + i as OpId;
            if let Some(d) = d.filter(|_| keep(&op)) {
                self.older.insert(op, d);
            }
        }
        self.done_base = self.next;
        self.kept = self.older.len();
    }

    /// The record of an operation in flight.
    pub fn live(&self, op: OpId) -> Option<&Op> {
        self.live.get(&op)
    }

    /// Operations in flight now, the most there were at once, and the summaries of completed
    /// ones kept: what the engine's memory is proportional to.
    pub fn counts(&self) -> (usize, usize, usize) {
        (self.live.len(), self.peak_live, self.kept)
    }

    /// The staged source bytes of a completed operation that keeps them (`wgmma.mma_async`),
    /// handed over once.
    pub fn take_staging(&mut self, op: OpId) -> Vec<u8> {
        self.operands.remove(&op).unwrap_or_default()
    }

    pub fn is_read(&self, op: OpId) -> bool {
        self.live.get(&op).is_none_or(|o| o.read_done)
    }

    /// Cycles an `mbarrier.try_wait` blocks before it returns false (the latency model's).
    pub fn try_wait_limit(&self) -> u64 {
        self.model.try_wait_limit()
    }

    /// When the next event happens, if any is pending.
    pub fn next_time(&self) -> Option<u64> {
        self.queue.peek().map(|Reverse((t, ..))| *t)
    }

    /// Issues an operation at cycle `now` (`global`: to name its places in the trace); returns
    /// its id.
    pub fn issue(&mut self, spec: OpSpec, now: u64, trace: &mut Trace, global: &Global) -> OpId {
        let id = self.next;
        self.next += 1;
        let npieces = spec.pieces.len().max(1);
        let bytes: u64 = spec.segs.iter().map(|s| u64::from(s.len)).sum();
        let desc = OpDesc {
            seq: self.seq,
            class: spec.class,
            bytes,
            pieces: npieces,
            issue: now,
            sm: spec.issuer.rank,
            on_chip: spec.on_chip,
        };
        let t = &mut self.timing;
        t.land.clear();
        t.land.resize(npieces, now);
        self.model.schedule(&desc, t);
        // Keep issue <= read <= land <= complete whatever the model said.
        t.land.resize(npieces, now);
        let cap = crate::latency::MAX_LATENCY * 2;
        let mut complete_at = t.complete_at.clamp(now, now.saturating_add(cap));
        // A warp's wgmma operations complete in issue order (a chain accumulating into the
        // same registers reads each other's results).
        if spec.class == OpClass::Wgmma {
            let key = (spec.issuer.rank, spec.issuer.warp);
            let last = self.wgmma_last.get(&key).copied().unwrap_or(0);
            complete_at = complete_at.max(last);
            self.wgmma_last.insert(key, complete_at);
        }
        let read_at = t.read_at.clamp(now, complete_at);
        for l in t.land.iter_mut() {
            *l = (*l).clamp(read_at, complete_at);
        }
        if trace.enabled {
            let what = issue_event(&spec, id, bytes, global, trace);
            trace.push(spec.issuer.event(now, Some(spec.issuer.warp), what));
        }
        // An event takes `n` sequence numbers (a landing, one per piece it lands).
        let push = |q: &mut BinaryHeap<_>, seq: &mut u64, time: u64, ev: Ev, n: usize| {
            q.push(Reverse((time, *seq, id, ev)));
            *seq += n as u64;
        };
        push(&mut self.queue, &mut self.seq, read_at, Ev::Read, 1);
        // Pieces that land at one cycle are one event: this operation's events have
        // consecutive sequence numbers, so no other event falls between them, and firing them
        // together keeps the order (a cp.async's 32 pieces land at about 9 cycles). The
        // sequence still counts each piece: the latency model sees it (`OpDesc::seq`).
        let land = &self.timing.land;
        let mut first = 0;
        while first < land.len() {
            let at = land[first];
            let end = first + land[first..].iter().take_while(|&&l| l == at).count();
            let ev = Ev::Land(first as u32, end as u32);
            push(&mut self.queue, &mut self.seq, at, ev, end - first);
            first = end;
        }
        push(&mut self.queue, &mut self.seq, complete_at, Ev::Complete, 1);
        self.live.insert(
            id,
            Op {
                spec,
                read_done: false,
            },
        );
        self.peak_live = self.peak_live.max(self.live.len());
        id
    }

    /// Registers an arrive-on that fires once every operation in `waiting` is complete; fires
    /// at once (returning it) if they already are.
    pub fn arrive_on(&mut self, mut a: ArriveOn) -> Option<ArriveOn> {
        a.waiting.retain(|&op| !self.is_complete(op));
        if a.waiting.is_empty() {
            return Some(a);
        }
        self.arrive_ons.push(a);
        None
    }

    /// Processes every event due at or before `now`.
    pub fn advance(
        &mut self,
        now: u64,
        mem: &mut Spaces<'_>,
        trace: &mut Trace,
        notices: &mut Vec<Notice>,
    ) -> Result<(), EngineError> {
        while let Some(&Reverse((t, _, id, ev))) = self.queue.peek() {
            if t > now {
                break;
            }
            self.queue.pop();
            self.fire(t, id, ev, mem, trace, notices)?;
        }
        Ok(())
    }

    fn fire(
        &mut self,
        t: u64,
        id: OpId,
        ev: Ev,
        mem: &mut Spaces<'_>,
        trace: &mut Trace,
        notices: &mut Vec<Notice>,
    ) -> Result<(), EngineError> {
        if ev == Ev::Complete {
            return self.complete(t, id, mem, trace, notices);
        }
        let Some(op) = self.live.get_mut(&id) else {
            return Ok(());
        };
        let iss = op.spec.issuer;
        let event = |what| iss.event(t, None, what);
        match ev {
            Ev::Read => {
                let OpSpec {
                    segs, staging, f32, ..
                } = &mut op.spec;
                let convert = f32.and_then(|r| r.load);
                for s in segs.iter() {
                    let dst = &mut staging[s.stage as usize..(s.stage + s.len) as usize];
                    read(mem, s.src, dst);
                    if let (Some(f), Loc::Global(_)) = (convert, s.src) {
                        for e in dst.chunks_exact_mut(4) {
                            let v = f(u32::from_le_bytes([e[0], e[1], e[2], e[3]]));
                            e.copy_from_slice(&v.to_le_bytes());
                        }
                    }
                }
                op.read_done = true;
                notices.push(Notice::Op {
                    rank: iss.rank,
                    warp: iss.warp,
                });
                trace.push(event(What::Read { op: id }));
            }
            Ev::Land(first, end) => {
                for p in first..end {
                    land(&op.spec, id, p, mem, trace, &event);
                }
            }
            Ev::Complete => {}
        }
        Ok(())
    }

    /// An operation completes: its mechanism fires, and its record gives way to its summary
    /// (its bytes have all moved; a wgmma's operands wait for the exec layer, `take_staging`).
    fn complete(
        &mut self,
        t: u64,
        id: OpId,
        mem: &mut Spaces<'_>,
        trace: &mut Trace,
        notices: &mut Vec<Notice>,
    ) -> Result<(), EngineError> {
        let Some(mut op) = self.live.remove(&id) else {
            return Ok(());
        };
        let iss = op.spec.issuer;
        trace.push(iss.event(t, None, What::Complete { op: id }));
        notices.push(Notice::Op {
            rank: iss.rank,
            warp: iss.warp,
        });
        let fired = self.complete_tx_all(&mut op, id, t, mem, trace, notices);
        if op.spec.class == OpClass::Wgmma {
            self.operands
                .insert(id, std::mem::take(&mut op.spec.staging));
        }
        if self.summaries {
            if id < self.done_base {
                self.older.insert(id, Done::of(op));
            } else {
                let i = (id - self.done_base) as usize;
                if self.done.len() <= i {
                    self.done.resize_with(i + 1, || None);
                }
                self.done[i] = Some(Done::of(op));
            }
            self.kept += 1;
        }
        fired?;
        self.fire_arrive_ons(id, t, mem, trace, notices)
    }

    /// complete-tx of an operation's bytes on each mbarrier it signals; records the epochs of
    /// the phases they counted towards.
    fn complete_tx_all(
        &mut self,
        op: &mut Op,
        id: OpId,
        t: u64,
        mem: &mut Spaces<'_>,
        trace: &mut Trace,
        notices: &mut Vec<Notice>,
    ) -> Result<(), EngineError> {
        let Completion::Mbarrier(targets) = &op.spec.completion else {
            return Ok(());
        };
        let iss = op.spec.issuer;
        for (i, &(rank, off, bytes)) in targets.iter().enumerate() {
            let issued = op.spec.tx_phases.get(i).copied().flatten();
            same_phase(mem, (rank, off, bytes), issued, op)?;
            if let Some(b) = mem
                .smem
                .get_mut(rank as usize)
                .and_then(|s| s.mbars.get_mut(&off))
            {
                op.spec.slot.complete_tx(b);
            }
            let e = complete_tx(mem, (rank, off, bytes), Some(id), t, iss, trace, notices)?;
            op.spec.slot.counted(rank, e);
        }
        Ok(())
    }

    fn fire_arrive_ons(
        &mut self,
        done: OpId,
        t: u64,
        mem: &mut Spaces<'_>,
        trace: &mut Trace,
        notices: &mut Vec<Notice>,
    ) -> Result<(), EngineError> {
        let mut i = 0;
        while i < self.arrive_ons.len() {
            let a = &mut self.arrive_ons[i];
            a.waiting.retain(|&op| op != done);
            if a.waiting.is_empty() {
                let a = self.arrive_ons.remove(i);
                arrive(mem, &a, Some(done), t, trace, notices)?;
            } else {
                i += 1;
            }
        }
        Ok(())
    }

    /// Runs every pending event regardless of its time (the machine has nothing else to do, or
    /// the cluster finished): returns the time of the last one.
    pub fn drain(
        &mut self,
        mem: &mut Spaces<'_>,
        trace: &mut Trace,
        notices: &mut Vec<Notice>,
    ) -> Result<u64, EngineError> {
        let mut last = 0;
        while let Some(t) = self.next_time() {
            last = t;
            self.advance(t, mem, trace, notices)?;
        }
        Ok(last)
    }
}

/// The `n` bytes at offset `off` of CTA `rank`'s shared memory (`None` if they are not there).
fn shared_bytes(smem: &mut [Smem], rank: u32, off: u64, n: usize) -> Option<&mut [u8]> {
    let start = usize::try_from(off).ok()?;
    smem.get_mut(rank as usize)?
        .bytes
        .get_mut(start..start.checked_add(n)?)
}

fn read(mem: &mut Spaces<'_>, src: Loc, out: &mut [u8]) {
    let n = out.len();
    let bytes = match src {
        Loc::Global(a) => mem.global.read(a, n).ok(),
        Loc::Shared { rank, off } => shared_bytes(mem.smem, rank, off, n).map(|b| &*b),
        Loc::Fill => None,
    };
    if let Some(b) = bytes {
        out.copy_from_slice(b);
    }
}

fn write(
    mem: &mut Spaces<'_>,
    dst: Loc,
    data: &[u8],
    reduce: Option<(SubOp, Type)>,
    f32: Option<F32Rules>,
) {
    let n = data.len();
    let place = match dst {
        Loc::Global(a) => mem.global.write(a, n).ok(),
        Loc::Shared { rank, off } => shared_bytes(mem.smem, rank, off, n),
        Loc::Fill => None,
    };
    if let Some(p) = place {
        match (reduce, f32) {
            (Some((SubOp::Add, Type::F32)), Some(r)) => {
                super::reduce::add_f32_tensor(p, data, r.ftz)
            }
            (Some((op, ty)), _) => super::reduce::reduce_bytes(op, ty, p, data),
            (None, _) => p.copy_from_slice(data),
        }
    }
}

/// An operation's bytes must count towards the mbarrier phase that was current when it was
/// issued: if that phase completed before they arrived, its expect-tx announced fewer bytes than
/// the copies deliver (the phase completed early; the surplus lands on the next phase).
fn same_phase(
    mem: &Spaces<'_>,
    (rank, off, bytes): (u32, u32, u64),
    issued: Option<u32>,
    op: &Op,
) -> Result<(), EngineError> {
    let now = mem
        .smem
        .get(rank as usize)
        .and_then(|s| s.mbars.get(&off))
        .map(|b| b.phase);
    match (issued, now) {
        (Some(p), Some(q)) if p != q => Err(mbar_error(
            crate::check::HazardKind::TxCountUnderflow,
            format!(
                "the {} was issued during phase {p} of the mbarrier at shared+{off:#x}, but phase {p} completed before its {bytes} bytes arrived: the phase's expect-tx announced fewer bytes than its copies deliver, and the surplus counts towards phase {q}",
                op.spec.kind.name()
            ),
            op.spec.issuer,
        )),
        _ => Ok(()),
    }
}

fn mbar_error(kind: crate::check::HazardKind, message: String, issuer: Issuer) -> EngineError {
    EngineError {
        kind,
        message,
        issuer,
    }
}

/// complete-tx of `bytes` on the mbarrier at (rank, off), with the trace events it causes;
/// returns the completion epoch of the phase it counted towards.
pub fn complete_tx(
    mem: &mut Spaces<'_>,
    (rank, off, bytes): (u32, u32, u64),
    op: Option<OpId>,
    t: u64,
    iss: Issuer,
    trace: &mut Trace,
    notices: &mut Vec<Notice>,
) -> Result<Epoch, EngineError> {
    let Some(smem) = mem.smem.get_mut(rank as usize) else {
        return Err(mbar_error(
            crate::check::HazardKind::UninitializedMbarrier,
            format!("complete-tx on CTA rank {rank}, which is not in the cluster"),
            iss,
        ));
    };
    let Some(b) = smem.mbars.get_mut(&off) else {
        return Err(mbar_error(
            crate::check::HazardKind::UninitializedMbarrier,
            format!(
                "complete-tx of {bytes} bytes on shared+{off:#x} of CTA rank {rank}, where no mbarrier is initialized"
            ),
            iss,
        ));
    };
    let epoch = b.completion_epoch();
    let completed = b
        .complete_tx(bytes, op)
        .map_err(|e| mbar_failure(&e, iss))?;
    let event = MbarEvent {
        t,
        iss,
        rank,
        off,
        op,
    };
    event.record(
        mem,
        ("complete_tx", bytes as i64),
        completed,
        trace,
        notices,
    );
    Ok(epoch)
}

/// Performs an arrive-on registered with [`Engine::arrive_on`].
pub fn arrive(
    mem: &mut Spaces<'_>,
    a: &ArriveOn,
    op: Option<OpId>,
    t: u64,
    trace: &mut Trace,
    notices: &mut Vec<Notice>,
) -> Result<(), EngineError> {
    let Some(b) = mem
        .smem
        .get_mut(a.rank as usize)
        .and_then(|s| s.mbars.get_mut(&a.off))
    else {
        return Err(mbar_error(
            crate::check::HazardKind::UninitializedMbarrier,
            format!(
                "cp.async.mbarrier.arrive fired on shared+{:#x}, where no mbarrier is initialized any more",
                a.off
            ),
            a.issuer,
        ));
    };
    if let Some(op) = op {
        b.phase_ops.push(op);
    }
    b.release(&a.release);
    let r = b
        .arrive(a.count, false, false)
        .map_err(|e| mbar_failure(&e, a.issuer))?;
    let event = MbarEvent {
        t,
        iss: a.issuer,
        rank: a.rank,
        off: a.off,
        op,
    };
    let count = i64::from(a.count);
    event.record(mem, ("arrive-on", count), r.completed, trace, notices);
    Ok(())
}

fn mbar_failure(e: &MbarError, iss: Issuer) -> EngineError {
    mbar_error(e.kind(), e.to_string(), iss)
}

/// An mbarrier event on the copy engine's track: when, on whose behalf, which mbarrier, and
/// the operation that caused it.
struct MbarEvent {
    t: u64,
    iss: Issuer,
    rank: u32,
    off: u32,
    op: Option<OpId>,
}

impl MbarEvent {
    /// The engine changed the mbarrier (`action`, with its count; `completed`: its phase
    /// completed): its bytes in shared memory follow, its waiters get a notice, and the trace
    /// records the event with the mbarrier's state after it.
    fn record(
        &self,
        mem: &mut Spaces<'_>,
        (action, count): (&'static str, i64),
        completed: bool,
        trace: &mut Trace,
        notices: &mut Vec<Notice>,
    ) {
        let (rank, off) = (self.rank, self.off);
        let Some(smem) = mem.smem.get_mut(rank as usize) else {
            return;
        };
        let state = smem.mbars.get(&off).map(|b| (b.phase, b.pending, b.tx));
        smem.sync_mbar(off);
        notices.push(Notice::Mbar { rank, off });
        if let (true, Some(state)) = (trace.enabled, state) {
            self.push(trace, action, count, state);
            if completed {
                self.push(trace, "phase-complete", 0, state);
            }
        }
    }

    /// Records the event `action` (with its count) on `trace`, the mbarrier's phase, pending
    /// arrivals and tx-count being `state`.
    fn push(&self, trace: &mut Trace, action: &'static str, count: i64, state: (u32, u32, i64)) {
        let MbarEvent {
            t,
            iss,
            rank,
            off,
            op,
        } = *self;
        let (phase, pending, tx) = state;
        let what = What::Mbarrier {
            action,
            addr: iss.shared(rank, u64::from(off)),
            count,
            phase,
            pending,
            tx,
            op,
        };
        trace.push(iss.event(t, None, what));
    }
}

/// For tests here and in the exec layer: a copy of `len` bytes from global `src` to offset
/// `dst_off` of CTA rank 0's shared memory.
#[cfg(test)]
pub(crate) fn test_spec(
    class: OpClass,
    kind: Opcode,
    src: u64,
    dst_off: u64,
    len: u32,
    completion: Completion,
) -> OpSpec {
    OpSpec {
        class,
        kind,
        segs: vec![Seg {
            src: Loc::Global(src),
            dst: Loc::Shared {
                rank: 0,
                off: dst_off,
            },
            len,
            stage: 0,
        }],
        pieces: vec![0],
        staging: vec![0; len as usize],
        completion,
        reduce: None,
        f32: None,
        issuer: Issuer::default(),
        on_chip: false,
        tx_phases: Vec::new(),
        slot: CopySlot::default(),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::latency::{Fixed, Immediate};

    impl Engine {
        /// No event pending.
        fn idle(&self) -> bool {
            self.queue.is_empty()
        }
    }
    use crate::mem::mbarrier::Mbarrier;

    fn spec(src: u64, dst_off: u64, len: u32, completion: Completion) -> OpSpec {
        test_spec(
            OpClass::Bulk,
            Opcode::CpAsyncBulk,
            src,
            dst_off,
            len,
            completion,
        )
    }

    #[test]
    fn data_lands_at_its_time_and_completion_drives_the_mbarrier() {
        let mut g = Global::new();
        let a = g.alloc("x", (0..64u8).collect(), false);
        let mut smem = vec![Smem::new(256)];
        smem[0].mbars.insert(128, Mbarrier::new(1).unwrap());
        smem[0].mbars.get_mut(&128).unwrap().expect_tx(64).unwrap();
        smem[0]
            .mbars
            .get_mut(&128)
            .unwrap()
            .arrive(1, false, false)
            .unwrap();
        let mut e = Engine::new(Box::new(Fixed(100)), true);
        let mut tr = Trace::new(true, false);
        let id = e.issue(
            spec(a, 0, 64, Completion::Mbarrier(vec![(0, 128, 64)])),
            10,
            &mut tr,
            &g,
        );
        let mut notices = Vec::new();
        let mut sp = Spaces {
            global: &mut g,
            smem: &mut smem,
        };
        e.advance(59, &mut sp, &mut tr, &mut notices).unwrap();
        assert!(
            sp.smem[0].bytes[..64].iter().all(|&b| b == 0),
            "not landed yet"
        );
        assert!(e.is_read(id) && !e.is_complete(id));
        e.advance(110, &mut sp, &mut tr, &mut notices).unwrap();
        assert_eq!(sp.smem[0].bytes[63], 63);
        assert!(e.is_complete(id));
        assert_eq!(sp.smem[0].mbars[&128].phase, 1);
        assert!(notices.contains(&Notice::Mbar { rank: 0, off: 128 }));
        assert!(e.idle());
    }

    /// Lands pieces at the cycles it holds, reads at 5, completes at 40.
    struct Lands(Vec<u64>);

    impl crate::latency::LatencyModel for Lands {
        fn name(&self) -> String {
            "lands".into()
        }
        fn schedule(&mut self, _: &OpDesc, t: &mut Timing) {
            t.read_at = 5;
            t.land.clone_from(&self.0);
            t.complete_at = 40;
        }
        fn fresh(&self) -> Box<dyn crate::latency::LatencyModel> {
            Box::new(Lands(self.0.clone()))
        }
    }

    #[test]
    fn pieces_landing_at_one_cycle_land_together_in_piece_order() {
        let mut g = Global::new();
        let a = g.alloc("x", (1..=16u8).collect(), false);
        let mut smem = vec![Smem::new(64)];
        // Pieces of 4, 4 and 8 bytes: the first two land at 20, the third at 30.
        let mut sp = spec(a, 0, 16, Completion::Group);
        sp.segs = (0..4)
            .map(|k| Seg {
                src: Loc::Global(a + 4 * k),
                dst: Loc::Shared {
                    rank: 0,
                    off: 4 * k,
                },
                len: 4,
                stage: 4 * k as u32,
            })
            .collect();
        sp.pieces = vec![0, 1, 2];
        let mut e = Engine::new(Box::new(Lands(vec![20, 20, 30])), true);
        let mut tr = Trace::new(true, false);
        let id = e.issue(sp, 0, &mut tr, &g);
        // Read, two landings and completion: four events, the sequence counting each piece.
        assert_eq!((e.queue.len(), e.seq), (4, 5));
        let mut sp = Spaces {
            global: &mut g,
            smem: &mut smem,
        };
        e.advance(20, &mut sp, &mut tr, &mut Vec::new()).unwrap();
        assert_eq!(sp.smem[0].bytes[..8], [1, 2, 3, 4, 5, 6, 7, 8]);
        assert_eq!(sp.smem[0].bytes[8..16], [0; 8]);
        e.advance(40, &mut sp, &mut tr, &mut Vec::new()).unwrap();
        assert_eq!(sp.smem[0].bytes[8..16], [9, 10, 11, 12, 13, 14, 15, 16]);
        let landed: Vec<(u64, u32, u32)> = (tr.events.iter())
            .filter_map(|ev| match ev.what {
                What::Land { op, piece, bytes } if op == id => Some((ev.cycle, piece, bytes)),
                _ => None,
            })
            .collect();
        assert_eq!(landed, [(20, 0, 4), (20, 1, 4), (30, 2, 8)]);
    }

    #[test]
    fn arrive_on_waits_for_its_operations() {
        let mut g = Global::new();
        let a = g.alloc("x", vec![7; 16], false);
        let mut smem = vec![Smem::new(64)];
        smem[0].mbars.insert(32, Mbarrier::new(1).unwrap());
        let mut e = Engine::new(Box::new(Fixed(10)), true);
        let mut tr = Trace::default();
        let id = e.issue(spec(a, 0, 16, Completion::Group), 0, &mut tr, &g);
        let pending = e.arrive_on(ArriveOn {
            rank: 0,
            off: 32,
            count: 1,
            waiting: vec![id],
            issuer: Issuer::default(),
            release: Vc::new(),
        });
        assert!(pending.is_none());
        let mut sp = Spaces {
            global: &mut g,
            smem: &mut smem,
        };
        let last = e.drain(&mut sp, &mut tr, &mut Vec::new()).unwrap();
        assert_eq!(last, 10);
        assert_eq!(sp.smem[0].mbars[&32].phase, 1);
        assert_eq!(sp.smem[0].mbars[&32].last_ops, vec![id]);
    }

    #[test]
    fn immediate_completes_when_advanced_to_the_issue_cycle() {
        let mut g = Global::new();
        let a = g.alloc("x", vec![5; 32], false);
        let mut smem = vec![Smem::new(32)];
        let mut e = Engine::new(Box::new(Immediate), true);
        let mut tr = Trace::default();
        let id = e.issue(spec(a, 0, 32, Completion::Group), 4, &mut tr, &g);
        let mut sp = Spaces {
            global: &mut g,
            smem: &mut smem,
        };
        e.advance(4, &mut sp, &mut tr, &mut Vec::new()).unwrap();
        assert!(e.is_complete(id));
        assert_eq!(sp.smem[0].bytes, vec![5; 32]);
    }

    #[test]
    fn summaries_no_shadow_names_are_forgotten_between_clusters() {
        let mut g = Global::new();
        let a = g.alloc("x", vec![1; 64], false);
        let mut smem = vec![Smem::new(64)];
        let mut e = Engine::new(Box::new(Fixed(10)), true);
        let mut tr = Trace::default();
        let mut notices = Vec::new();
        let mut run = |e: &mut Engine, n: u32| -> Vec<OpId> {
            let ids = (0..n)
                .map(|_| e.issue(spec(a, 0, 16, Completion::Group), 0, &mut tr, &g))
                .collect();
            let mut sp = Spaces {
                global: &mut g,
                smem: &mut smem,
            };
            e.drain(&mut sp, &mut tr, &mut notices).unwrap();
            ids
        };
        let first = run(&mut e, SUMMARIES_FLOOR as u32);
        let named = vec![first[7], first[9000]];
        e.forget_done_if_full(|| (named.clone(), 0));
        assert_eq!(e.summaries_held(), 2);
        assert!(e.op(first[7]).is_some() && e.op(first[9000]).is_some());
        assert!(e.op(first[8]).is_none(), "not named: forgotten");
        // Later operations are kept as before; below the limit nothing is looked through.
        let later = run(&mut e, 3);
        e.forget_done_if_full(|| (Vec::new(), 0));
        assert!(later
            .iter()
            .all(|&op| matches!(e.op(op), Some(OpRef::Done(_)))));
        assert_eq!(e.summaries_held(), 5);
    }
}
