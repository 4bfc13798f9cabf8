//! Accesses as the checker's shadow memory remembers them (PTX ISA 9.0 chapter 8, "Memory
//! Consistency Model": who accessed, at which point of its history, with which strength and
//! scope). A [`Stamp`] is one access in full: a warp at an epoch, or an asynchronous operation;
//! whether it was atomic (or a reduction); the instruction, for reports; the lane that made it
//! and, for a strong access, its scope.
//!
//! The shadow keeps 8 bytes per remembered access, not a whole stamp: what every word of one
//! instruction's access shares (who, epoch, instruction) is written once into an [`Events`]
//! table and the word names it by index, beside its own lane, scope and bytes. The table only
//! grows while the run makes new events; when the events in use have doubled since the shadow
//! was last walked, the indices no word names any more are freed and handed out again
//! (`shadow::collect`), so it stays proportional to the shadow, not to the running time.

use super::budget::Meter;
use super::hb::{Epoch, Scope, WarpClock};
use std::sync::Arc;

/// Marks an asynchronous operation in [`Stamp::who`]; the rest is the operation's id.
const OP: u32 = 1 << 31;
/// Marks an atomic access (or an operation that reduces).
const ATOMIC: u32 = 1 << 30;
const ID: u32 = ATOMIC - 1;

/// One access.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default, Hash)]
pub struct Stamp {
    who: u32,
    clock: u32,
    /// The instruction: function and instruction index.
    func: u32,
    pc: u32,
    /// The lane (bits 0-4), for a strong access its scope (bits 5-6, [`Scope`] order), and
    /// bit 7 for a kept write ([`Stamp::kept`]).
    tag: u8,
    /// A remembered read that stands for others the shadow no longer holds
    /// ([`Stamp::absorbed`]).
    absorbed: bool,
    /// Reads of the same instruction and lane by nearby warps, forgotten for room
    /// ([`Stamp::named`]): bit `i` names the warp [`NEAR`]`[i]` warps away.
    named: u8,
}

/// The bit of [`Stamp::tag`] that marks a kept write.
const KEPT_TAG: u8 = 1 << 7;

/// Who made a [`Stamp`].
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Who {
    /// A warp at an epoch; `atomic` for atomic, volatile and relaxed/acquire/release accesses.
    Warp { at: Epoch, atomic: bool },
    /// An asynchronous operation; `reduce` for bulk and remote reductions.
    Op { op: u32, reduce: bool },
}

impl Stamp {
    pub fn warp(at: Epoch, atomic: bool, func: u32, pc: u32) -> Stamp {
        Stamp {
            who: (at.agent & ID) | if atomic { ATOMIC } else { 0 },
            clock: at.clock,
            func,
            pc,
            tag: 0,
            absorbed: false,
            named: 0,
        }
    }

    pub fn op(op: u32, reduce: bool) -> Stamp {
        Stamp {
            who: OP | (op & ID) | if reduce { ATOMIC } else { 0 },
            clock: 0,
            func: 0,
            pc: 0,
            tag: 0,
            absorbed: false,
            named: 0,
        }
    }

    /// The same access, made by lane `lane` of the warp.
    pub fn by_lane(self, lane: u32) -> Stamp {
        Stamp {
            tag: (self.tag & !31) | (lane & 31) as u8,
            ..self
        }
    }

    /// The same strong access, with scope `scope`.
    pub fn scoped(self, scope: Scope) -> Stamp {
        Stamp {
            tag: (self.tag & (31 | KEPT_TAG)) | scope.bits() << 5,
            ..self
        }
    }

    /// The same plain write, kept: it stored the bytes the memory held, as left by an earlier
    /// write of a warp. The shadow remembers a kept write beside the reads, not as the last
    /// write: what a later read returns does not depend on whether it came before or after it
    /// (both give the earlier write's bytes), while a later write must still be ordered after
    /// it, as after a read.
    pub fn keeping(self, kept: bool) -> Stamp {
        Stamp {
            tag: (self.tag & !KEPT_TAG) | if kept { KEPT_TAG } else { 0 },
            ..self
        }
    }

    /// Whether this remembered read stands for reads of other instructions or warps that the
    /// shadow let go (merged into it, ordered before it, or forgotten for room): a write that
    /// meets it may also have met those.
    pub fn absorbed(&self) -> bool {
        self.absorbed
    }

    /// The agents of the warps this remembered read names: each made a read of the same
    /// instruction, by the same lane, that the shadow forgot for room (`shadow::forget`). A
    /// write that meets this read may also have met those; unlike [`Stamp::absorbed`], the
    /// checker knows whose they were.
    pub fn named(&self) -> impl Iterator<Item = u32> {
        named_by(self.who & ID, self.named)
    }

    /// Whether `other` is an access of the same warp (any lane) or operation, made by the same
    /// instruction.
    pub fn same_site(&self, other: &Stamp) -> bool {
        self.who & !ATOMIC == other.who & !ATOMIC && self.site() == other.site()
    }

    /// Whether this is a kept write ([`Stamp::keeping`]).
    pub fn kept(&self) -> bool {
        self.tag & KEPT_TAG != 0
    }

    /// The lane of a warp's access (0 for an operation).
    pub fn lane(&self) -> u32 {
        u32::from(self.tag & 31)
    }

    /// The scope of a strong access (`.gpu` when none was given).
    pub fn scope(&self) -> Scope {
        Scope::from_bits((self.tag >> 5) & 3)
    }

    pub fn who(&self) -> Who {
        if self.who & OP != 0 {
            Who::Op {
                op: self.who & ID,
                reduce: self.who & ATOMIC != 0,
            }
        } else {
            Who::Warp {
                at: Epoch {
                    agent: self.who & ID,
                    clock: self.clock,
                },
                atomic: self.who & ATOMIC != 0,
            }
        }
    }

    /// The instruction of a warp's access: (function, instruction index).
    pub fn site(&self) -> (u32, u32) {
        (self.func, self.pc)
    }
}

/// A remembered access, packed into 8 bytes: the index of its [`Events`] entry (bits 0-31),
/// the scope of a strong access (bits 32-33), the bytes of the word it touched (bits 39-42),
/// whether an operation made it (bit 43: lanes of operations are not shifted), whether it is a
/// kept write (bit 44, in a read set: [`Stamp::keeping`]), for a last write whether it replaced
/// no read (bit 45, [`CLEAN_BIT`]), in a read set whether it stands for reads let go (bit 46,
/// [`ABSORBED_BIT`]), which nearby warps' forgotten reads it names (bits 51-58, [`NAMED`]) and
/// the lane (bits 59-63, at the top, so that moving it up `d` lanes is one wrapping add: see
/// [`shift_lane`]). 0: none; a used entry has a non-empty byte mask. No entry sets
/// [`UNUSED_BIT`].
pub(super) type Entry = u64;

const SCOPE_AT: u32 = 32;
const MASK_AT: u32 = 39;
const OP_BIT: u64 = 1 << 43;
const KEPT_BIT: u64 = 1 << 44;
/// On a last write: it replaced no read or kept write of its bytes (see `shadow::kept_over`).
pub(super) const CLEAN_BIT: u64 = 1 << 45;
const LANE_AT: u32 = 59;
/// In a read set: the entry stands for reads the shadow let go ([`Stamp::absorbed`]).
pub(super) const ABSORBED_BIT: u64 = 1 << 46;
/// A bit no entry sets (the shadow marks a read field holding a spill slot with it).
pub(super) const UNUSED_BIT: u64 = 1 << 50;
/// In a read set: the warps whose reads the entry names ([`Stamp::named`]), bits 51-58.
const NAMED_AT: u32 = 51;
pub(super) const NAMED: u64 = 0xff << NAMED_AT;
/// How far, in warps, the warp each bit of [`NAMED`] names is from the entry's: the warps of
/// a CTA are consecutive agents, [`WarpClock::AGENTS`] apart, so these cover the eight
/// readers of Triton's `num_warps=8` (four remembered, four named) whatever their order.
const NEAR: [i32; 8] = [-4, -3, -2, -1, 1, 2, 3, 4];

/// The agents that the [`NAMED`] bits `named` (shifted down) of an entry of agent `me` name.
fn named_by(me: u32, named: u8) -> impl Iterator<Item = u32> {
    let step = WarpClock::AGENTS as i32;
    NEAR.iter()
        .enumerate()
        .filter(move |(i, _)| named >> i & 1 != 0)
        .filter_map(move |(_, &k)| me.checked_add_signed(k * step))
}

/// The [`NAMED`] bit that names, in an entry of the warp whose agent is `at`, the warp whose
/// agent is `other`; none when `other` is not a warp within four of it.
pub(super) fn name_bit(at: u32, other: u32) -> Option<u64> {
    let d = i64::from(other) - i64::from(at);
    let step = i64::from(WarpClock::AGENTS);
    NEAR.iter()
        .position(|&k| i64::from(k) * step == d)
        .map(|i| 1 << (NAMED_AT + i as u32))
}

pub(super) fn entry(event: u32, s: &Stamp, mask: u8) -> Entry {
    let op = if s.who & OP != 0 { OP_BIT } else { 0 };
    let kept = if s.kept() { KEPT_BIT } else { 0 };
    let (lane, scope) = (u64::from(s.tag & 31), u64::from((s.tag >> 5) & 3));
    u64::from(event)
        | scope << SCOPE_AT
        | u64::from(mask & 15) << MASK_AT
        | op
        | kept
        | lane << LANE_AT
}

/// Whether an entry is a kept write ([`Stamp::keeping`]).
#[inline(always)]
pub(super) fn kept(e: Entry) -> bool {
    e & KEPT_BIT != 0
}

/// Whether an entry is an asynchronous operation's.
#[inline(always)]
pub(super) fn by_op(e: Entry) -> bool {
    e & OP_BIT != 0
}

pub(super) fn event_of(e: Entry) -> u32 {
    e as u32
}

/// The lane of a warp's entry.
#[inline(always)]
pub(super) fn lane_of(e: Entry) -> u32 {
    (e >> LANE_AT) as u32
}

/// The tag of an entry: its lane (bits 0-4), scope (bits 5-6) and kept bit, as in [`Stamp`].
fn tag_of(e: Entry) -> u8 {
    let kept = if kept(e) { KEPT_TAG } else { 0 };
    (e >> LANE_AT) as u8 | (((e >> SCOPE_AT) & 3) as u8) << 5 | kept
}

pub(super) fn mask_of(e: Entry) -> u8 {
    ((e >> MASK_AT) & 15) as u8
}

/// The entry with byte mask `mask`; none when the mask is empty.
pub(super) fn with_mask(e: Entry, mask: u8) -> Entry {
    if mask & 15 == 0 {
        return 0;
    }
    (e & !(15 << MASK_AT)) | u64::from(mask & 15) << MASK_AT
}

/// All ones for a warp's entry, whose lane moves when words are compared up to a shift of
/// lanes; zero for an operation's and for none, which stay as they are.
#[inline(always)]
pub(super) fn movable(e: Entry) -> u64 {
    0u64.wrapping_sub(u64::from((e != 0) & (e & OP_BIT == 0)))
}

/// What [`shift_lane`] adds to a movable entry to move its lane `d` lanes up: the lane is the
/// entry's top bits, so the add wraps modulo 32 by itself.
#[inline(always)]
pub(super) fn lane_step(d: u32) -> u64 {
    u64::from(d) << LANE_AT
}

/// A warp's entry with its lane moved `d` lanes up (modulo 32); an operation's, and none,
/// unchanged. Without a branch: the shadow shifts every entry of every word a coalesced access
/// touches (`shadow::follow`), and which entries are warps' is not predictable. The shadow
/// computes a word's [`movable`] masks once and adds [`lane_step`] through them; this, one
/// entry at a time, is what the tests check that against.
#[cfg(test)]
pub(super) fn shift_lane(e: Entry, d: u32) -> Entry {
    e.wrapping_add(lane_step(d) & movable(e))
}

/// What the words of one access share: who, when, which instruction.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
struct Event {
    who: u32,
    clock: u32,
    func: u32,
    pc: u32,
}

/// Events grow in steps of this many before the meter is asked again.
const CHUNK: usize = 1 << 12;
/// The table is never collected below this many events.
const FLOOR: usize = 1 << 16;

/// The table of events the shadow's entries name (index 0 is none).
#[derive(Debug)]
pub struct Events {
    events: Vec<Event>,
    /// Indices no entry names since the last collection, handed out again lowest first.
    free: Vec<u32>,
    /// The index made or handed out last (0: none since the last collection).
    last: u32,
    /// Collect when no index is free and the table has this length.
    limit: usize,
    /// Events charged to the meter.
    charged: usize,
    meter: Arc<Meter>,
}

impl Default for Events {
    fn default() -> Self {
        Events::new(Arc::new(Meter::unlimited()))
    }
}

impl Drop for Events {
    fn drop(&mut self) {
        self.meter.release(Self::bytes(self.charged));
    }
}

impl Events {
    pub fn new(meter: Arc<Meter>) -> Self {
        Events {
            events: vec![Event::default()],
            free: Vec::new(),
            last: 0,
            limit: FLOOR,
            charged: 0,
            meter,
        }
    }

    fn bytes(events: usize) -> u64 {
        (events * std::mem::size_of::<Event>()) as u64
    }

    /// The index of an event for `s` (the last one when `s` is the same event).
    pub(super) fn intern(&mut self, s: &Stamp) -> u32 {
        let e = Event {
            who: s.who,
            clock: s.clock,
            func: s.func,
            pc: s.pc,
        };
        if self.last != 0 && self.events[self.last as usize] == e {
            return self.last;
        }
        if let Some(i) = self.free.pop() {
            self.events[i as usize] = e;
            self.last = i;
            return i;
        }
        if self.events.len() >= self.charged {
            // Over the budget the run stops at its next look at the meter; the event is kept.
            self.meter.charge(Self::bytes(CHUNK), || {
                "the checker's shadow memory (its table of accesses)".to_string()
            });
            self.charged += CHUNK;
        }
        self.events.push(e);
        self.last = (self.events.len() - 1) as u32;
        self.last
    }

    /// The access an entry remembers.
    pub(super) fn stamp(&self, e: Entry) -> Stamp {
        let ev = self.events[event_of(e) as usize];
        Stamp {
            who: ev.who,
            clock: ev.clock,
            func: ev.func,
            pc: ev.pc,
            tag: tag_of(e),
            absorbed: e & ABSORBED_BIT != 0,
            named: ((e & NAMED) >> NAMED_AT) as u8,
        }
    }

    /// Whether the entry is the same accessor as `s`: a lane of a warp (whatever its epoch) or
    /// the same operation.
    pub(super) fn same(&self, e: Entry, s: &Stamp) -> bool {
        let who = self.events[event_of(e) as usize].who;
        who & !ATOMIC == s.who & !ATOMIC && (e >> LANE_AT) as u32 == s.lane()
    }

    /// For an entry of the same accessor as `s` ([`Events::same`]), whether it was made at
    /// the same epoch (no release of the warp came between the two); `None` for another
    /// accessor. One look at the entry's event for both questions.
    pub(super) fn same_at(&self, e: Entry, s: &Stamp) -> Option<bool> {
        let ev = &self.events[event_of(e) as usize];
        let same = ev.who & !ATOMIC == s.who & !ATOMIC && (e >> LANE_AT) as u32 == s.lane();
        same.then_some(ev.clock == s.clock)
    }

    /// For an entry that is a plain read of a warp standing for no read it cannot name (not
    /// atomic, not an operation's, not a kept write, not [`ABSORBED_BIT`]): the warp's agent,
    /// the instruction, and the agents the entry names ([`NAMED`]).
    pub(super) fn plain_read(
        &self,
        e: Entry,
    ) -> Option<(u32, (u32, u32), impl Iterator<Item = u32>)> {
        if e == 0 || e & (OP_BIT | KEPT_BIT | ABSORBED_BIT) != 0 {
            return None;
        }
        let ev = &self.events[event_of(e) as usize];
        let named = ((e & NAMED) >> NAMED_AT) as u8;
        (ev.who & (OP | ATOMIC) == 0).then(|| (ev.who, (ev.func, ev.pc), named_by(ev.who, named)))
    }

    /// The agent of a warp's entry (a warp's accesses are made by its first agent).
    pub(super) fn agent(&self, e: Entry) -> u32 {
        self.events[event_of(e) as usize].who & ID
    }

    /// Whether the table should be collected before more events are made.
    pub fn full(&self) -> bool {
        self.free.is_empty() && self.events.len() >= self.limit
    }

    /// The table's length: indices are below it.
    pub(super) fn len(&self) -> usize {
        self.events.len()
    }

    /// Indices in use (index 0 among them): the table's length less the free ones.
    pub(super) fn used(&self) -> usize {
        self.events.len() - self.free.len()
    }

    /// Frees the indices `live` does not mark (index 0 is never handed out); entries keep
    /// their numbers, so the shadow is walked once, only to mark. The next collection comes
    /// when the events in use have doubled, and not before `walk` more events (what walking
    /// the shadow costs, in events: a large shadow of few events is not walked again every
    /// few thousand accesses).
    pub(super) fn retain(&mut self, live: &[bool], walk: usize) {
        self.free.clear();
        // Descending, so that `pop` hands out the lowest first.
        let dead = (1..self.events.len()).rev();
        self.free.extend(
            dead.filter(|&i| !live.get(i).copied().unwrap_or(false))
                .map(|i| i as u32),
        );
        if !live.get(self.last as usize).copied().unwrap_or(false) {
            self.last = 0;
        }
        let k = self.used();
        self.limit = (2 * k).max(FLOOR).max(k + walk);
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn an_entry_keeps_its_event_lane_scope_and_bytes() {
        let mut ev = Events::default();
        let s = Stamp::warp(Epoch { agent: 7, clock: 9 }, true, 300, 70_000)
            .by_lane(29)
            .scoped(Scope::Cluster);
        let id = ev.intern(&s);
        let e = entry(id, &s, 0b1010);
        assert_eq!(ev.stamp(e), s);
        assert_eq!(mask_of(e), 0b1010);
        assert_eq!(ev.stamp(shift_lane(e, 5)).lane(), 2);
        assert_eq!(ev.stamp(shift_lane(e, 5)).scope(), Scope::Cluster);
        // The site is not packed: a function past the 256th keeps its number.
        assert_eq!(ev.stamp(e).site(), (300, 70_000));
        // The same event again is the same index; an operation's lane never shifts.
        assert_eq!(ev.intern(&s.by_lane(3)), id);
        let op = Stamp::op(4, true);
        let o = entry(ev.intern(&op), &op, 15);
        assert_eq!(shift_lane(o, 3), o);
        assert_eq!(shift_lane(0, 3), 0);
        assert_eq!(with_mask(o, 0), 0);
    }

    #[test]
    fn freed_indices_are_handed_out_again_lowest_first() {
        let mut ev = Events::default();
        let at = |c| Stamp::warp(Epoch { agent: 1, clock: c }, false, 0, c);
        let ids: Vec<u32> = (1..=4).map(|c| ev.intern(&at(c))).collect();
        assert_eq!(ids, [1, 2, 3, 4]);
        // The same event again is the last index.
        assert_eq!(ev.intern(&at(4)), 4);
        ev.retain(&[false, true, false, false, true], 0);
        assert_eq!((ev.len(), ev.used()), (5, 3));
        // Live indices keep their events; freed ones are reused lowest first.
        assert_eq!(ev.stamp(entry(1, &Stamp::default(), 1)).site(), (0, 1));
        assert_eq!(ev.stamp(entry(4, &Stamp::default(), 1)).site(), (0, 4));
        assert_eq!(ev.intern(&at(9)), 2);
        assert_eq!(ev.intern(&at(10)), 3);
        assert_eq!(ev.intern(&at(11)), 5);
        // The last index was freed: the same event is not found in it again.
        ev.retain(&[false, true, true, true, true, false], 0);
        assert_eq!(ev.intern(&at(11)), 5);
        // A collection that walked a large shadow waits for that many events more.
        ev.retain(&[true; 6], 8 * FLOOR);
        for c in 0..2 * FLOOR as u32 {
            ev.intern(&Stamp::warp(Epoch { agent: 2, clock: c }, false, 0, 0));
        }
        assert!(!ev.full());
        ev.retain(&[], 0);
        assert_eq!((ev.used(), ev.full()), (1, false));
    }
}
