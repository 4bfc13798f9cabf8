//! Shadow memory for the happens-before checker: per 4-byte word of shared and global memory,
//! the last write and the reads since it (FastTrack's read epoch, widened to a small set when
//! reads are not ordered with each other), each with the mask of the word's bytes it touched, so
//! accesses of different bytes of one word never conflict. Each access is a [`Stamp`] (who, at
//! which epoch, atomic or not, which instruction, which lane and scope; see `stamp`). A plain
//! store that wrote the bytes an earlier warp's write left (a kept write, [`Stamp::keeping`])
//! joins the reads instead of replacing that write: reads do not conflict with it, later writes
//! do.
//!
//! The shadow does not judge: for every earlier access an access conflicts with (the last write,
//! and for a write the reads since), it asks the caller whether that access is ordered before the
//! new one, and the caller records a hazard when it is not; for a read it also asks about the
//! reads it may replace, without a conflict, to keep the read set minimal. Runs of words with
//! equal shadow are judged once.
//!
//! The shadow is compact and bounded. A word costs 16 bytes: its last write and one read, 8
//! bytes each (an index into the [`Events`] table beside the lane, scope and bytes). A word
//! read by two or more accesses that are not ordered with each other spills its reads to a
//! side slot of [`READS`] entries (32 bytes more), given back when a write clears them; beyond
//! [`READS`] reads the oldest is forgotten (a read kept of the same instruction and lane by a
//! nearby warp names its warp, in bits of its entry: [`forget`]), and when a write covers only
//! some bytes of a word, the earlier writer of the other bytes is forgotten. Forgetting can only
//! hide a race, never report one that is not there. Words are made in zeroed pages as memory is first touched,
//! each page and spill chunk charged to the run's memory [`Meter`]: a large buffer costs the
//! shadow of what the kernel touches, and memory the budget refuses is not followed (the run
//! stops at its next look at the meter).

use super::budget::Meter;
use super::stamp::{
    by_op, entry, event_of, kept, lane_of, lane_step, mask_of, movable, name_bit, with_mask, Entry,
    Events, ABSORBED_BIT, CLEAN_BIT, NAMED, UNUSED_BIT,
};
pub use super::stamp::{Stamp, Who};
use std::ops::Range;
use std::sync::Arc;

/// Reads a word remembers.
pub const READS: usize = 4;

/// Which lane made each byte of one access: pieces `(start, end, lane)` keyed by address, in
/// ascending order of start, and the key of shadow offset 0. No pieces: the stamp's own lane.
#[derive(Debug, Clone, Copy)]
pub struct Lanes<'a> {
    pub pieces: &'a [(u64, u64, u32)],
    pub base: u64,
    /// Judgements depend on lanes only through their equality (no lane of the accessor is
    /// ordered differently from another): words equal up to a shift of lanes are judged alike.
    pub shift_ok: bool,
    /// An access without lanes of its own (an asynchronous operation's) whose judgements
    /// depend on the lanes of earlier accesses only for those of agent `pinned` (the issuing
    /// warp, which tells its own lanes apart; `u32::MAX`: none). Words equal up to a shift of
    /// every earlier access's lane then share the judgement of a word that met no unordered
    /// access (each meeting is counted in the report), no earlier write of a warp (its caller
    /// asks more of those than their order: a proxy fence) and no access of `pinned`. `None`:
    /// earlier lanes are compared as they are.
    pub unlaned: Option<u32>,
}

impl Lanes<'_> {
    pub const NONE: Lanes<'static> = Lanes {
        pieces: &[],
        base: 0,
        shift_ok: false,
        unlaned: None,
    };
}

/// A word as stored: its last write, and its one read or (with [`SPILLED`]) the index of the
/// spill slot holding its reads.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
struct Cell {
    w: Entry,
    r: u64,
}

const SPILLED: u64 = UNUSED_BIT;

// A word costs 16 bytes (issue 17's bound).
const _: () = assert!(std::mem::size_of::<Cell>() == 16);

/// A word as judged: its last write and its reads, oldest first, used entries first.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
struct Word {
    w: Entry,
    r: [Entry; READS],
}

/// Words per shadow page (the shadow of 4 KiB of memory).
const PAGE: usize = 1024;
/// Bytes of one shadow page.
const PAGE_BYTES: usize = PAGE * std::mem::size_of::<Cell>();
/// Spill slots are charged this many at a time.
const SPILL_CHUNK: usize = 1024;
const SPILL_BYTES: usize = SPILL_CHUNK * std::mem::size_of::<[Entry; READS]>();

/// The shadow of one region (a CTA's shared memory, or one global allocation).
#[derive(Debug)]
pub struct Shadow {
    /// Pages of [`PAGE`] words, made on first access.
    pages: Vec<Option<Box<[Cell]>>>,
    words: usize,
    /// Read sets of words with more than one read; free slots are zero and listed in `free`.
    spill: Vec<[Entry; READS]>,
    free: Vec<u32>,
    /// Spill slots charged to the meter.
    spill_charged: usize,
    meter: Arc<Meter>,
    /// What the region is, for the budget's message.
    name: Arc<str>,
}

impl Default for Shadow {
    fn default() -> Self {
        Shadow::new(0)
    }
}

impl Drop for Shadow {
    fn drop(&mut self) {
        let made = self.pages.iter().filter(|p| p.is_some()).count();
        let spill = self.spill_charged / SPILL_CHUNK * SPILL_BYTES;
        self.meter.release((made * PAGE_BYTES + spill) as u64);
    }
}

impl Shadow {
    /// The shadow of `len` bytes, with no memory limit.
    pub fn new(len: usize) -> Self {
        Shadow::metered(len, Arc::new(Meter::unlimited()), "memory")
    }

    /// The shadow of `len` bytes of `name`, its pages charged to `meter`.
    pub fn metered(len: usize, meter: Arc<Meter>, name: &str) -> Self {
        let words = len.div_ceil(4);
        Shadow {
            pages: vec![None; words.div_ceil(PAGE)],
            words,
            spill: Vec::new(),
            free: Vec::new(),
            spill_charged: 0,
            meter,
            name: name.into(),
        }
    }

    /// Word `i` as stored, if its page exists.
    #[inline(always)]
    fn cell(&self, i: usize) -> Option<&Cell> {
        self.pages.get(i / PAGE)?.as_ref().map(|p| &p[i % PAGE])
    }

    /// Makes the page of word `i` if the budget allows; false past the end or over the budget.
    fn make(&mut self, i: usize) -> bool {
        let Some(page) = self.pages.get_mut(i / PAGE) else {
            return false;
        };
        if page.is_none() {
            let name = &self.name;
            if !self.meter.charge(PAGE_BYTES as u64, || {
                format!("the checker's shadow of {name}")
            }) {
                return false;
            }
            *page = Some(vec![Cell::default(); PAGE].into_boxed_slice());
        }
        true
    }

    /// Word `i` (none if its page was not made).
    fn load(&self, i: usize) -> Word {
        self.cell(i).map_or(Word::default(), |c| self.decode(c))
    }

    /// A stored word as judged.
    #[inline(always)]
    fn decode(&self, c: &Cell) -> Word {
        let r = if c.r & SPILLED != 0 {
            self.spill[(c.r & !SPILLED) as usize]
        } else {
            [c.r, 0, 0, 0]
        };
        Word { w: c.w, r }
    }

    /// Stores word `i` (its page made), whose read field was `old`: one read stays in the word,
    /// more go to a spill slot.
    fn store(&mut self, i: usize, w: &Word, old: u64) {
        let slot = (old & SPILLED != 0).then_some((old & !SPILLED) as usize);
        let r = if w.r[1] == 0 {
            if let Some(s) = slot {
                self.spill[s] = [0; READS];
                self.free.push(s as u32);
            }
            w.r[0]
        } else {
            match slot.or_else(|| self.spill_slot()) {
                Some(s) => {
                    self.spill[s] = w.r;
                    SPILLED | s as u64
                }
                // Over the budget: the newest read is kept, the others forgotten.
                None => w.r[w.r.iter().rposition(|&e| e != 0).unwrap_or(0)],
            }
        };
        if let Some(p) = self.pages[i / PAGE].as_mut() {
            p[i % PAGE] = Cell { w: w.w, r };
        }
    }

    /// A free spill slot, charging a new chunk when needed.
    fn spill_slot(&mut self) -> Option<usize> {
        if let Some(s) = self.free.pop() {
            return Some(s as usize);
        }
        if self.spill.len() >= self.spill_charged {
            let name = &self.name;
            if !self.meter.charge(SPILL_BYTES as u64, || {
                format!("the checker's shadow of {name}")
            }) {
                return None;
            }
            self.spill_charged += SPILL_CHUNK;
        }
        self.spill.push([0; READS]);
        Some(self.spill.len() - 1)
    }

    /// Indices of every word the shadow has made.
    fn made(&self) -> impl Iterator<Item = usize> + '_ {
        self.pages
            .iter()
            .enumerate()
            .filter(|(_, p)| p.is_some())
            .flat_map(|(pi, _)| pi * PAGE..((pi + 1) * PAGE).min(self.words))
    }

    /// Every access the shadow remembers, with the offset of the word it touched: each word's
    /// last write and the reads since.
    pub fn stamps<'a>(&'a self, events: &'a Events) -> impl Iterator<Item = (usize, Stamp)> + 'a {
        self.made().flat_map(move |i| {
            let c = self.load(i);
            std::iter::once(c.w)
                .chain(c.r)
                .filter(|&e| e != 0)
                .map(move |e| (i * 4, events.stamp(e)))
        })
    }

    /// The last writes of the words that `len` bytes at `off` touch.
    pub fn writes(&self, events: &Events, off: usize, len: usize) -> Vec<Stamp> {
        let (first, last) = (off / 4, (off + len.max(1) - 1) / 4);
        let mut out: Vec<Stamp> = Vec::new();
        for i in first..=last.min(self.words.saturating_sub(1)) {
            let w = self.load(i).w;
            if w != 0 && !out.contains(&events.stamp(w)) {
                out.push(events.stamp(w));
            }
        }
        out
    }

    /// Calls `f` on every entry the shadow holds (none are zero).
    fn each_entry(&self, f: &mut impl FnMut(Entry)) {
        for p in self.pages.iter().flatten() {
            for c in p.iter() {
                if c.w != 0 {
                    f(c.w);
                }
                if c.r != 0 && c.r & SPILLED == 0 {
                    f(c.r);
                }
            }
        }
        for &e in self.spill.iter().flatten().filter(|e| **e != 0) {
            f(e);
        }
    }

    /// Records an access of the `len` bytes at `off` (`(off, len)`) by `new`, each word's stamp naming the lane
    /// `lanes` says made it. `ordered(prev, prev_is_write, conflict, at, new)` says whether an
    /// earlier access is ordered before the word's new one; `conflict` is true when the two
    /// conflict at byte `at` (the caller records a hazard if they are unordered), false when
    /// the shadow only asks whether a read may replace an earlier read.
    pub fn access(
        &mut self,
        events: &mut Events,
        (off, len): (usize, usize),
        new: Stamp,
        lanes: Lanes<'_>,
        write: bool,
        ordered: &mut impl FnMut(&Stamp, bool, bool, usize, &Stamp) -> bool,
    ) {
        // Built twice: a warp's accesses (most) never read a shift from the words.
        match lanes.unlaned {
            Some(_) => self.access_as::<true>(events, (off, len), new, lanes, write, ordered),
            None => self.access_as::<false>(events, (off, len), new, lanes, write, ordered),
        }
    }

    /// [`Shadow::access`], reading shifts from the words (`INFER`) for an access without lanes.
    fn access_as<const INFER: bool>(
        &mut self,
        events: &mut Events,
        (off, len): (usize, usize),
        new: Stamp,
        lanes: Lanes<'_>,
        write: bool,
        ordered: &mut impl FnMut(&Stamp, bool, bool, usize, &Stamp) -> bool,
    ) {
        if len == 0 || self.words == 0 {
            return;
        }
        let event = events.intern(&new);
        let events = &*events;
        let (first, last) = (off / 4, (off + len - 1) / 4);
        // The last word judged in full: its shadow before and after, its bytes and stamp.
        let mut seen: Option<Judged> = None;
        let mut walk = Walk {
            pieces: lanes.pieces,
            base: lanes.base,
            piece: 0,
            end: lanes.pieces.first().map_or(0, |p| p.1),
            own: new.lane(),
        };
        let end = (last + 1).min(self.words);
        // Words before this one are whole (all but the last, unless it ends a word).
        let whole = if (off + len) % 4 == 0 { last + 1 } else { last };
        let mut i = first;
        while i < end {
            // Whether word `i` was found not alike the word judged last.
            let mut differs = false;
            if let Some(j) = seen.as_ref().filter(|j| j.mask == 15 && i % PAGE != 0) {
                // Whole words of this page that follow alike (see below), in a tight loop.
                let stop = end.min(whole).min((i / PAGE + 1) * PAGE);
                i = self.follow::<INFER>(i..stop, j, &mut walk, lanes.shift_ok);
                differs = i < stop;
                if i >= end {
                    break;
                }
            }
            // The bytes of the word accessed, and the first one's offset (a whole word but at
            // the ends).
            let (mask, at) = if i == first || i == last {
                let lo = if i == first { off % 4 } else { 0 };
                let hi = if i == last { (off + len - 1) % 4 } else { 3 };
                let mask = ((1u32 << (hi + 1)) - (1u32 << lo)) as u8;
                (mask, (i * 4 + lo).max(off))
            } else {
                (15, i * 4)
            };
            let lane = walk.lane(at);
            // Pages are made a page at a time.
            if (i == first || i % PAGE == 0) && !self.make(i) {
                return;
            }
            let Some(stored) = self.cell(i).copied() else {
                return;
            };
            if let Some(j) = seen.as_ref().filter(|_| !differs) {
                // Same shadow and bytes as the word judged last, by the same instruction (every
                // word's stamp is `new` but for the lane): same judgement, same outcome. Where
                // lanes do not change judgements but their equality (the caller says so), the
                // same up to a shift of every lane also does: the words of a coalesced access,
                // each written and read by its own lane (and for an operation, the words a
                // warp's lanes read before it).
                let d = j.shift::<INFER>(&stored, &self.spill, lane);
                if j.mask == mask
                    && (d == 0 || j.may_shift::<INFER>(lanes.shift_ok))
                    && self.alike(&stored, j, d)
                {
                    self.store_shifted(i, stored, j, d);
                    i += 1;
                    continue;
                }
            }
            let before = self.decode(&stored);
            let keep = write && kept_over(&before, mask, &new);
            let new = new.by_lane(lane).keeping(keep);
            let mut c = before;
            let ne = entry(event, &new, mask);
            let mut unordered = false;
            let judge = &mut |p: &Stamp, w, k| {
                let ok = ordered(p, w, k, at, &new);
                if INFER {
                    unordered |= k && !ok;
                }
                ok
            };
            if c.w != 0 && mask_of(c.w) & mask != 0 && !events.same(c.w, &new) {
                judge(&events.stamp(c.w), true, true);
            }
            if write && !keep {
                overwrite(&mut c, ne, &new, events, judge);
            } else {
                read(&mut c, ne, &new, events, judge);
            }
            self.store(i, &c, stored.r);
            let anchor = match lanes.unlaned {
                Some(pinned) if INFER && !unordered => anchor(&before, events, pinned),
                _ => None,
            };
            seen = Some(Judged {
                before,
                after: c,
                mask,
                lane,
                anchor,
            });
            i += 1;
        }
    }

    /// Stores the whole words `words` (of one made page) that follow alike the judged word `j`
    /// (as `access` would one by one); returns the first word that does not.
    #[inline(always)]
    fn follow<const INFER: bool>(
        &mut self,
        words: Range<usize>,
        j: &Judged,
        walk: &mut Walk,
        shift_ok: bool,
    ) -> usize {
        let (before, after) = (&j.before, &j.after);
        // (Computed here, not for every word judged in full: most are followed by none.)
        let (bm, am) = (&Moves::of(before), &Moves::of(after));
        // Words are rewritten in place, without `cell`, `alike` and `store_shifted`'s branches,
        // unless a read set spills only after the access (a second read: a slot is charged).
        let (spills, spills_after) = (before.r[1] != 0, after.r[1] != 0);
        let Shadow {
            pages, spill, free, ..
        } = self;
        // (A store clearing spilled reads gives their slots back.)
        let page = match pages.get_mut(words.start / PAGE) {
            Some(Some(p)) if spills == spills_after || !spills_after => p,
            _ => return self.follow_slowly::<INFER>(words, j, walk, shift_ok),
        };
        for i in words.clone() {
            let lane = walk.lane(i * 4);
            let cell = &mut page[i % PAGE];
            let d = j.shift::<INFER>(cell, spill, lane);
            let step = lane_step(d);
            if (d != 0 && !j.may_shift::<INFER>(shift_ok)) || (cell.r & SPILLED != 0) != spills {
                return i;
            }
            if spills {
                let slot = (cell.r & !SPILLED) as usize;
                if !alike_spilled(cell, &spill[slot], before, bm, step) {
                    return i;
                }
                rewrite_spilled(cell, (spill, free), after, am, step);
            } else {
                if !alike_in_word(cell, before, bm, step) {
                    return i;
                }
                // The page guard above: the reads do not spill after either.
                *cell = in_word(after, am, step);
            }
        }
        words.end
    }

    /// [`Shadow::follow`] word by word, for words whose read set spills only after the access.
    fn follow_slowly<const INFER: bool>(
        &mut self,
        words: Range<usize>,
        j: &Judged,
        walk: &mut Walk,
        shift_ok: bool,
    ) -> usize {
        for i in words.clone() {
            let lane = walk.lane(i * 4);
            let Some(&stored) = self.cell(i) else {
                return i;
            };
            let d = j.shift::<INFER>(&stored, &self.spill, lane);
            if !((d == 0 || j.may_shift::<INFER>(shift_ok)) && self.alike(&stored, j, d)) {
                return i;
            }
            self.store_shifted(i, stored, j, d);
        }
        words.end
    }

    /// Whether the stored word `stored` is the word `j` judged before its access, with every
    /// lane moved `d` up. Read sets are compared only where both are in the word or both
    /// spilled: a spilled word holds two reads or more, an unspilled one at most one.
    #[inline(always)]
    fn alike(&self, stored: &Cell, j: &Judged, d: u32) -> bool {
        let (b, m, step) = (&j.before, &Moves::when(d, &j.before), lane_step(d));
        match stored.r & SPILLED {
            0 => b.r[1] == 0 && alike_in_word(stored, b, m, step),
            _ => {
                let r = &self.spill[(stored.r & !SPILLED) as usize];
                b.r[1] != 0 && alike_spilled(stored, r, b, m, step)
            }
        }
    }

    /// Stores word `i` (stored as `stored`) as the word `j` judged after its access with every
    /// lane moved `d` up, in place where no slot must be charged, else as [`Shadow::store`]
    /// does.
    #[inline(always)]
    fn store_shifted(&mut self, i: usize, stored: Cell, j: &Judged, d: u32) {
        let (after, m, step) = (&j.after, &Moves::when(d, &j.after), lane_step(d));
        let Shadow {
            pages, spill, free, ..
        } = self;
        let Some(cell) = pages[i / PAGE].as_mut().map(|p| &mut p[i % PAGE]) else {
            return;
        };
        match (stored.r & SPILLED != 0, after.r[1] != 0) {
            (false, false) => *cell = in_word(after, m, step),
            (true, _) => rewrite_spilled(cell, (spill, free), after, m, step),
            (false, true) => self.store(i, &moved(after, m, step), stored.r),
        }
    }
}

/// Whether the unspilled `cell` is `before` (at most one read, its entries' masks `m`) with
/// every lane moved up by `step` ([`lane_step`]).
#[inline(always)]
fn alike_in_word(cell: &Cell, before: &Word, m: &Moves, step: u64) -> bool {
    let w = before.w.wrapping_add(step & m.w);
    let r = before.r[0].wrapping_add(step & m.r[0]);
    (cell.w ^ w) | (cell.r ^ r) == 0
}

/// Whether the spilled `cell`, its slot holding `reads`, is `before` (its entries' masks `m`)
/// with every lane moved up by `step`.
#[inline(always)]
fn alike_spilled(cell: &Cell, reads: &[Entry; READS], before: &Word, m: &Moves, step: u64) -> bool {
    // `|`, not a short-circuit: no branch per read.
    let mut differs = cell.w ^ before.w.wrapping_add(step & m.w);
    for ((&x, &y), &mk) in reads.iter().zip(&before.r).zip(&m.r) {
        differs |= x ^ y.wrapping_add(step & mk);
    }
    differs == 0
}

/// `after` (its entries' masks `m`), of at most one read, with every lane moved up by `step`,
/// as an unspilled word.
#[inline(always)]
fn in_word(after: &Word, m: &Moves, step: u64) -> Cell {
    Cell {
        w: after.w.wrapping_add(step & m.w),
        r: after.r[0].wrapping_add(step & m.r[0]),
    }
}

/// Rewrites the spilled `cell` as `after` (its entries' masks `m`) with every lane moved up by
/// `step`: it keeps its slot while its reads still spill, and gives the slot back (to `free`)
/// when they no longer do.
#[inline(always)]
fn rewrite_spilled(
    cell: &mut Cell,
    (spill, free): (&mut [[Entry; READS]], &mut Vec<u32>),
    after: &Word,
    m: &Moves,
    step: u64,
) {
    let slot = (cell.r & !SPILLED) as usize;
    if after.r[1] != 0 {
        for ((to, &e), &mk) in spill[slot].iter_mut().zip(&after.r).zip(&m.r) {
            *to = e.wrapping_add(step & mk);
        }
        cell.w = after.w.wrapping_add(step & m.w);
    } else {
        spill[slot] = [0; READS];
        free.push(slot as u32);
        *cell = in_word(after, m, step);
    }
}

/// Which lane made each word of an access, word after word (see [`Lanes`]).
struct Walk<'a> {
    pieces: &'a [(u64, u64, u32)],
    base: u64,
    /// The current piece and its end.
    piece: usize,
    end: u64,
    /// The lane when there are no pieces: the stamp's.
    own: u32,
}

impl Walk<'_> {
    /// The lane of the word whose first accessed byte is at shadow offset `at` (offsets
    /// ascending): the first piece that has not ended before it.
    #[inline(always)]
    fn lane(&mut self, at: usize) -> u32 {
        if self.pieces.is_empty() {
            return self.own;
        }
        let key = self.base + at as u64;
        while self.end <= key && self.piece + 1 < self.pieces.len() {
            self.piece += 1;
            self.end = self.pieces[self.piece].1;
        }
        self.pieces[self.piece].2 & 31
    }
}

/// A word judged in full during one access: its shadow before and after, the bytes the access
/// touched there and the lane its stamp names; for an access without lanes whose judgement did
/// not depend on earlier lanes ([`Lanes::unlaned`]), the first entry that moves with a shift
/// and its lane, from which a word's shift is read.
struct Judged {
    before: Word,
    after: Word,
    mask: u8,
    lane: u32,
    anchor: Option<(usize, u32)>,
}

impl Judged {
    /// The shift of lanes (`d`, up, modulo 32) under which the stored `cell` may be this word:
    /// the new access's lane `lane` against this word's, or for an access without lanes, read
    /// from the cell's entry at the anchor. The caller still compares the whole word.
    #[inline(always)]
    fn shift<const INFER: bool>(&self, cell: &Cell, spill: &[[Entry; READS]], lane: u32) -> u32 {
        let Some((k, anchor)) = self.anchor.filter(|_| INFER) else {
            return lane.wrapping_sub(self.lane) & 31;
        };
        let e = match (k, cell.r & SPILLED != 0) {
            (0, _) => cell.w,
            (k, true) => spill[(cell.r & !SPILLED) as usize][k - 1],
            (1, false) => cell.r,
            _ => 0,
        };
        lane_of(e).wrapping_sub(anchor) & 31
    }

    /// Whether words alike up to a shift of lanes share this judgement (`shift_ok`: the new
    /// access's lanes are judged alike).
    #[inline(always)]
    fn may_shift<const INFER: bool>(&self, shift_ok: bool) -> bool {
        shift_ok || (INFER && self.anchor.is_some())
    }
}

/// For an access without lanes whose judgement of `before` met nothing unordered: the first of
/// its entries that a shift moves, and that entry's lane, when no such entry is a write (its
/// caller asks more of those than their order) or an access of agent `pinned`; `None` when
/// some is, or none moves.
fn anchor(before: &Word, events: &Events, pinned: u32) -> Option<(usize, u32)> {
    if movable(before.w) != 0 {
        return None;
    }
    let mut first = None;
    for (k, &e) in before.r.iter().enumerate() {
        if movable(e) == 0 {
            continue;
        }
        if events.agent(e) == pinned {
            return None;
        }
        first.get_or_insert((k + 1, lane_of(e)));
    }
    first
}

/// Whether a write marked kept (`new`, [`Stamp::keeping`]) of the bytes `mask` of word `before`
/// is kept there: only over bytes a warp's write left (whose bytes the memory holds), not over
/// bytes no write is remembered for (a CTA's shared memory starts undefined) or an operation
/// writes (its bytes land at its completion); and only when that write replaced no read of its
/// bytes: such a read, forgotten since, may race with the kept write and return its bytes
/// instead of older ones (`x = ld; st x'` by one thread beside another's `st x'`), which only
/// the race with the last write can still report.
fn kept_over(before: &Word, mask: u8, new: &Stamp) -> bool {
    new.kept() && mask_of(before.w) & mask == mask && !by_op(before.w) && before.w & CLEAN_BIT != 0
}

/// The [`movable`] masks of a word's entries: computed once for the word judged in full, then
/// used for every word [`Shadow::follow`] compares with it.
#[derive(Clone, Copy)]
struct Moves {
    w: u64,
    r: [u64; READS],
}

impl Moves {
    fn of(c: &Word) -> Moves {
        Moves {
            w: movable(c.w),
            r: c.r.map(movable),
        }
    }

    /// The masks of `c` for a move of `d` lanes: none are needed for no move (the step is 0),
    /// which is what a word compared outside [`Shadow::follow`] mostly is.
    #[inline(always)]
    fn when(d: u32, c: &Word) -> Moves {
        match d {
            0 => Moves {
                w: 0,
                r: [0; READS],
            },
            _ => Moves::of(c),
        }
    }
}

/// Frees the events no shadow names any more (see `stamp`); call it when [`Events::full`] says
/// so, with every shadow whose entries name `events`. Entries keep their numbers: the shadow
/// is only read (renumbering wrote it all again, and `perf` put that second walk, mostly over
/// spilled read sets, at half of the collection's time).
pub fn collect(events: &mut Events, shadows: &mut [&mut Shadow]) {
    let mut live = vec![false; events.len()];
    for s in shadows.iter() {
        s.each_entry(&mut |e| live[event_of(e) as usize] = true);
    }
    // Every 8 words of shadow walked buy one event before the next walk.
    let words: usize = shadows
        .iter()
        .map(|s| s.pages.iter().flatten().count() * PAGE)
        .sum();
    events.retain(&live, words / 8);
}

/// `c` (its entries' masks `m`) with the lane of every warp's access moved up by `step`
/// ([`lane_step`], modulo 32).
#[inline(always)]
fn moved(c: &Word, m: &Moves, step: u64) -> Word {
    let mut r = c.r;
    for (e, &mk) in r.iter_mut().zip(&m.r) {
        *e = e.wrapping_add(step & mk);
    }
    Word {
        w: c.w.wrapping_add(step & m.w),
        r,
    }
}

/// A write (`ne`, the entry of `new`) of a word's bytes: it meets the reads and kept writes of
/// those bytes (`ordered` judges each), which give them up, and becomes the last write, clean
/// ([`CLEAN_BIT`]) when it replaced none of them.
fn overwrite(
    c: &mut Word,
    ne: Entry,
    new: &Stamp,
    events: &Events,
    ordered: &mut impl FnMut(&Stamp, bool, bool) -> bool,
) {
    let mask = mask_of(ne);
    let mut clean = CLEAN_BIT;
    if c.r.iter().any(|&e| e & NAMED != 0) {
        pass_own_names(&mut c.r, mask, new, events);
    }
    for e in c.r.iter_mut().filter(|e| **e != 0) {
        if mask_of(*e) & mask != 0 {
            clean = 0;
            if !events.same(*e, new) {
                ordered(&events.stamp(*e), kept(*e), true);
            }
        }
        *e = with_mask(*e, mask_of(*e) & !mask);
    }
    compact(&mut c.r);
    c.w = ne | clean;
}

/// Before a write by `new` of the bytes `mask` meets a word's reads: the writer's own read of
/// those bytes is not judged (its program orders it before the write), but the warps it names
/// may race with the write. Each is named by another read the write meets, of the same
/// instruction and lane, over those bytes ([`names_for`]'s rule); where one cannot be, every
/// other read the write meets stands for it ([`ABSORBED_BIT`]).
#[inline(never)]
fn pass_own_names(r: &mut [Entry; READS], mask: u8, new: &Stamp, events: &Events) {
    for i in 0..READS {
        let own = r[i];
        let bytes = mask_of(own) & mask;
        if own & NAMED == 0 || bytes == 0 || !events.same(own, new) {
            continue;
        }
        let moved = events.plain_read(own).and_then(|(_, site, named)| {
            let mut hosts = [None; READS];
            for (j, h) in hosts.iter_mut().enumerate().filter(|(j, _)| *j != i) {
                *h = host(r[j], (lane_of(own), bytes), site, events);
            }
            let mut bits = [0u64; READS];
            for agent in named {
                let (j, bit) = place(&hosts, agent)?;
                bits[j] |= bit;
            }
            Some(bits)
        });
        match moved {
            Some(bits) => r.iter_mut().zip(bits).for_each(|(e, b)| *e |= b),
            None => {
                let others = |e: Entry| e != 0 && !kept(e) && mask_of(e) & mask != 0;
                for e in r.iter_mut() {
                    if others(*e) && !events.same(*e, new) {
                        *e |= ABSORBED_BIT;
                    }
                }
                return;
            }
        }
    }
}

/// Adds a read, or a kept write (`ne`, the entry of `new`), to a word's read set. A kept
/// write conflicts with every read it overlaps, a read with every kept write; `ordered` judges
/// each conflict. The new entry replaces earlier entries ordered before it where it covers
/// their bytes. The same lane's earlier entry of the same kind at the same epoch (no release
/// between) merges with it; at an earlier epoch it gives up the bytes the new one touches and
/// keeps the others at its own epoch: merged into the new entry's later epoch, they would make
/// a write ordered after the earlier access but not the new one a race (a Triton kernel's
/// `ldmatrix` of a word, then `bar.sync`, then a 2-byte read of it by the same lane: another
/// warp's store to the other 2 bytes after the `bar.sync` was reported). With no room, the
/// oldest plain read is forgotten (else the oldest kept write).
fn read(
    c: &mut Word,
    ne: Entry,
    new: &Stamp,
    events: &Events,
    ordered: &mut impl FnMut(&Stamp, bool, bool) -> bool,
) {
    let own = mask_of(ne);
    let mut mask = own;
    // Whether the new entry stands for reads let go here ([`ABSORBED_BIT`]).
    let mut absorbed = 0;
    for e in c.r.iter_mut().filter(|e| **e != 0) {
        if let Some(at_once) = events.same_at(*e, new) {
            // At the same epoch (no release between) and of the same kind, the two are one
            // access of their bytes together; else the earlier keeps what the new one misses.
            if at_once && kept(*e) == kept(ne) {
                mask |= mask_of(*e);
                absorbed |= absorbs(events, *e, new);
                *e = 0;
            } else {
                if mask_of(*e) & own != 0 {
                    absorbed |= absorbs(events, *e, new);
                }
                *e = with_mask(*e, mask_of(*e) & !own);
            }
            continue;
        }
        let covered = mask_of(*e) & !own == 0;
        let conflict = (kept(*e) || kept(ne)) && mask_of(*e) & own != 0;
        // A conflict is judged (the caller records it when unordered) even where the new
        // entry cannot replace the old one.
        if conflict || covered {
            let prev = events.stamp(*e);
            let before = ordered(&prev, kept(*e), conflict);
            if before && covered {
                absorbed |= stands_for(&prev, *e, new);
                *e = 0;
            }
        }
    }
    compact(&mut c.r);
    let slot = match c.r.iter().position(|&e| e == 0) {
        Some(free) => free,
        None => {
            let (r, stands) = forget(c.r, ne, events);
            c.r = r;
            absorbed |= stands;
            READS - 1
        }
    };
    c.r[slot] = with_mask(ne, mask) | absorbed;
}

/// What the new read `new`, replacing entry `e`, stands for: [`ABSORBED_BIT`] for a read of
/// another instruction or accessor; for a repeat of `new`'s instruction by its warp, what `e`
/// stood for (the warps `e` names stay named only by the same lane: [`NAMED`]).
fn absorbs(events: &Events, e: Entry, new: &Stamp) -> u64 {
    stands_for(&events.stamp(e), e, new)
}

/// [`absorbs`], given the stamp `prev` of `e`.
#[inline(always)]
fn stands_for(prev: &Stamp, e: Entry, new: &Stamp) -> u64 {
    match prev.same_site(new) {
        true if e & NAMED != 0 && lane_of(e) != new.lane() => ABSORBED_BIT,
        true => e & (ABSORBED_BIT | NAMED),
        false => ABSORBED_BIT,
    }
}

/// Makes room in a full read set for the new entry `ne`: the oldest plain read is
/// forgotten (kept writes last: a later write must still meet them), else the oldest entry.
/// Returns what the new entry stands for. A plain read of a warp is named by an entry left
/// (or the new one) of the same instruction and lane whose warp is near it, with the warps it
/// named itself ([`name_bit`]), so that a write meeting that entry knows whose reads it may
/// also have met (Triton's `num_warps=8`: eight warps read an element, one stores it); where
/// one cannot be named, every entry left stands for it ([`ABSORBED_BIT`]).
#[inline(always)]
fn forget(mut r: [Entry; READS], ne: Entry, events: &Events) -> ([Entry; READS], u64) {
    let old = r.iter().position(|&e| !kept(e)).unwrap_or(0);
    let gone = r[old];
    r[old..].rotate_left(1);
    r[READS - 1] = 0;
    if let Some(names) = names_for(gone, &r, ne, events) {
        for (e, n) in r.iter_mut().zip(names) {
            *e |= n;
        }
        return (r, names[READS - 1]);
    }
    for e in r.iter_mut().filter(|e| **e != 0 && !kept(**e)) {
        *e |= ABSORBED_BIT;
    }
    (r, ABSORBED_BIT)
}

/// The [`NAMED`] bits each entry of `r` (the last: the new entry `ne`) takes so that the
/// forgotten entry `gone` and every warp it named are named ([`host`]); `None` when one
/// cannot be.
#[inline(never)]
fn names_for(gone: Entry, r: &[Entry; READS], ne: Entry, events: &Events) -> Option<[u64; READS]> {
    let (agent, site, named) = events.plain_read(gone)?;
    let mut hosts = [None; READS];
    let candidates = r[..READS - 1].iter().chain([&ne]);
    for (h, &e) in hosts.iter_mut().zip(candidates) {
        *h = host(e, (lane_of(gone), mask_of(gone)), site, events);
    }
    let mut names = [0u64; READS];
    for agent in std::iter::once(agent).chain(named) {
        let (i, bit) = place(&hosts, agent)?;
        names[i] |= bit;
    }
    Some(names)
}

/// The warp's agent of entry `e` when it can name reads of instruction `site` by the lane and
/// bytes `(lane, bytes)`: a plain read ([`Events::plain_read`]) of that instruction by that
/// lane, over all those bytes (a write of bytes it lacks would not meet it).
fn host(e: Entry, (lane, bytes): (u32, u8), site: (u32, u32), events: &Events) -> Option<u32> {
    if lane_of(e) != lane || mask_of(e) & bytes != bytes {
        return None;
    }
    events.plain_read(e).filter(|p| p.1 == site).map(|p| p.0)
}

/// The first of `hosts` (warps' agents) that can name agent `agent`, and its [`NAMED`] bit.
fn place(hosts: &[Option<u32>; READS], agent: u32) -> Option<(usize, u64)> {
    hosts
        .iter()
        .enumerate()
        .find_map(|(i, h)| h.and_then(|h| name_bit(h, agent)).map(|b| (i, b)))
}

/// Moves used entries to the front, keeping their order: each pass moves every empty entry
/// one place back. Fixed moves on a copy, which stay in registers: the loop with a variable
/// tail this replaces became a `memset` call, whose wide stores the next 8-byte load of the
/// word could not be forwarded from (a stall `perf` put at a quarter of a bulk copy's issue).
#[inline(always)]
fn compact(r: &mut [Entry; READS]) {
    let mut v = *r;
    for _ in 1..READS {
        for i in 0..READS - 1 {
            if v[i] == 0 {
                v[i] = v[i + 1];
                v[i + 1] = 0;
            }
        }
    }
    *r = v;
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::mem::hb::{Epoch, Scope, WarpClock};

    #[test]
    fn compacting_keeps_the_used_entries_in_order() {
        // Every pattern of used and empty entries.
        for used in 0u32..1 << READS {
            let mut r = [0; READS];
            for (i, e) in r.iter_mut().enumerate() {
                if used >> i & 1 != 0 {
                    *e = 10 + i as Entry;
                }
            }
            let mut want: Vec<Entry> = r.iter().copied().filter(|&e| e != 0).collect();
            want.resize(READS, 0);
            compact(&mut r);
            assert_eq!(r.to_vec(), want, "pattern {used:04b}");
        }
    }

    fn at(agent: u32, clock: u32) -> Epoch {
        Epoch { agent, clock }
    }

    /// Accesses `s`, calling every earlier access unordered; returns the conflicts it met.
    fn touch(
        s: &mut Shadow,
        ev: &mut Events,
        off: usize,
        len: usize,
        new: Stamp,
        write: bool,
    ) -> Vec<(Stamp, bool)> {
        let mut met = Vec::new();
        s.access(
            ev,
            (off, len),
            new,
            Lanes::NONE,
            write,
            &mut |p, w, conflict, _, _| {
                if conflict && !met.contains(&(*p, w)) {
                    met.push((*p, w));
                }
                false
            },
        );
        met
    }

    #[test]
    fn a_write_meets_the_last_write_and_the_reads_since() {
        let mut s = Shadow::new(16);
        let mut ev = Events::default();
        let w1 = Stamp::warp(at(1, 1), false, 0, 3);
        let r2 = Stamp::warp(at(2, 1), false, 0, 4);
        let r3 = Stamp::warp(at(3, 1), false, 0, 5);
        assert!(touch(&mut s, &mut ev, 0, 8, w1, true).is_empty());
        assert_eq!(touch(&mut s, &mut ev, 0, 8, r2, false), vec![(w1, true)]);
        // A read unordered with r2: both are kept.
        touch(&mut s, &mut ev, 0, 8, r3, false);
        let w4 = Stamp::warp(at(4, 1), false, 0, 6);
        let met = touch(&mut s, &mut ev, 0, 8, w4, true);
        assert!(
            met.contains(&(w1, true)) && met.contains(&(r2, false)) && met.contains(&(r3, false))
        );
        // The write cleared the reads; the writer does not meet itself.
        assert_eq!(touch(&mut s, &mut ev, 0, 8, w4, true), vec![]);
    }

    #[test]
    fn different_bytes_of_a_word_do_not_conflict() {
        let mut s = Shadow::new(8);
        let mut ev = Events::default();
        let a = Stamp::warp(at(1, 1), false, 0, 1);
        let b = Stamp::warp(at(2, 1), false, 0, 2);
        touch(&mut s, &mut ev, 0, 1, a, true);
        assert!(touch(&mut s, &mut ev, 1, 1, b, true).is_empty());
        assert!(touch(&mut s, &mut ev, 2, 2, b, false).is_empty());
        assert_eq!(touch(&mut s, &mut ev, 1, 2, a, false), vec![(b, true)]);
        // An access across two words meets each.
        let c = Stamp::warp(at(3, 1), false, 0, 3);
        touch(&mut s, &mut ev, 4, 4, c, true);
        assert_eq!(touch(&mut s, &mut ev, 3, 2, a, true).len(), 2);
    }

    #[test]
    fn ordered_reads_replace_each_other() {
        let mut s = Shadow::new(4);
        let mut ev = Events::default();
        let r1 = Stamp::warp(at(1, 1), false, 0, 1);
        let r2 = Stamp::warp(at(2, 1), false, 0, 2);
        s.access(
            &mut ev,
            (0, 4),
            r1,
            Lanes::NONE,
            false,
            &mut |_, _, _, _, _| true,
        );
        s.access(
            &mut ev,
            (0, 4),
            r2,
            Lanes::NONE,
            false,
            &mut |_, _, _, _, _| true,
        );
        let w = Stamp::warp(at(3, 1), false, 0, 3);
        let met = touch(&mut s, &mut ev, 0, 4, w, true);
        // r2 took r1's place: it stands for r1.
        assert_eq!(met.len(), 1);
        assert_eq!((met[0].0.site(), met[0].0.absorbed()), (r2.site(), true));
        // A repeat of one instruction by one warp stands for nothing more.
        let again = Stamp::warp(at(2, 2), false, 0, 2);
        touch(&mut s, &mut ev, 0, 4, again, false);
        touch(
            &mut s,
            &mut ev,
            0,
            4,
            Stamp::warp(at(2, 3), false, 0, 2),
            false,
        );
        let met = touch(
            &mut s,
            &mut ev,
            0,
            4,
            Stamp::warp(at(3, 2), false, 0, 3),
            true,
        );
        assert_eq!(met.len(), 1);
        assert!(!met[0].0.absorbed(), "{met:?}");
    }

    #[test]
    fn the_read_set_is_bounded() {
        let mut s = Shadow::new(4);
        let mut ev = Events::default();
        for a in 1..=9 {
            touch(
                &mut s,
                &mut ev,
                0,
                4,
                Stamp::warp(at(a, 1), false, 0, a),
                false,
            );
        }
        let w = Stamp::warp(at(20, 1), false, 0, 9);
        let met = touch(&mut s, &mut ev, 0, 4, w, true);
        assert_eq!(met.len(), READS, "the newest {READS} reads are kept");
        assert!(met.iter().any(|m| m.0.site() == (0, 9)));
        // Each stands for the reads forgotten.
        assert!(met.iter().all(|m| m.0.absorbed()), "{met:?}");
    }

    /// The agents a met read stands for: its warp's and those it names.
    fn stands_for_agents(p: &Stamp) -> impl Iterator<Item = u32> {
        let own = match p.who() {
            Who::Warp { at, .. } => at.agent,
            Who::Op { .. } => u32::MAX,
        };
        p.named().chain([own])
    }

    /// Reads of one instruction and lane by warps `order` (warp `w` is agent `5w`, as a
    /// cluster numbers them), then a write: the agents the met reads stand for, and whether
    /// any stands for reads it cannot name.
    fn readers_named(order: &[u32], lane: u32) -> (Vec<u32>, bool) {
        readers_named_at(order, 40, lane)
    }

    /// [`readers_named`], the write by warp `writer`.
    fn readers_named_at(order: &[u32], writer: u32, lane: u32) -> (Vec<u32>, bool) {
        let mut s = Shadow::new(4);
        let mut ev = Events::default();
        let warp = |w: u32| w * WarpClock::AGENTS;
        for &w in order {
            let r = Stamp::warp(at(warp(w), 1), false, 0, 7).by_lane(lane);
            touch(&mut s, &mut ev, 0, 4, r, false);
        }
        let write = Stamp::warp(at(warp(writer), 2), false, 0, 9).by_lane(lane);
        let met = touch(&mut s, &mut ev, 0, 4, write, true);
        let mut agents: Vec<u32> = met
            .iter()
            .flat_map(|(p, _)| stands_for_agents(p))
            .map(|a| a / WarpClock::AGENTS)
            .collect();
        agents.sort_unstable();
        (agents, met.iter().any(|m| m.0.absorbed()))
    }

    #[test]
    fn forgotten_reads_of_one_instruction_are_named_by_those_kept() {
        // Eight warps read an element (Triton's num_warps=8), in any order: the four reads
        // kept name the four forgotten, each exactly once.
        for order in [
            [0, 1, 2, 3, 4, 5, 6, 7],
            [7, 6, 5, 4, 3, 2, 1, 0],
            [0, 7, 1, 6, 2, 5, 3, 4],
            [3, 4, 0, 7, 2, 5, 1, 6],
        ] {
            assert_eq!(
                readers_named(&order, 9),
                ((0..8).collect(), false),
                "{order:?}"
            );
        }
        // A writer among the readers does not meet its own read, but the warps that read names
        // move to the reads it meets (or make them stand for unnamed reads): every other
        // reader is met or named, whichever warp writes, in any order.
        let mut orders = vec![[0, 1, 2, 3, 4, 5, 6, 7], [7, 6, 5, 4, 3, 2, 1, 0]];
        orders.extend([[3, 4, 0, 7, 2, 5, 1, 6], [4, 5, 6, 7, 0, 1, 2, 3]]);
        for order in orders {
            for writer in 0..8 {
                // (The writer's own forgotten read may stay named: the checker leaves it out.)
                let (mut agents, absorbed) = readers_named_at(&order, writer, 9);
                agents.retain(|&w| w != writer);
                let others: Vec<u32> = (0..8).filter(|&w| w != writer).collect();
                assert!(
                    absorbed || agents == others,
                    "{order:?} {writer}: {agents:?}"
                );
            }
        }
        // Warp 4 names warps 0-3, none within four warps of the reads it meets (5-7).
        assert!(readers_named_at(&[0, 1, 2, 3, 4, 5, 6, 7], 4, 9).1);
        assert_eq!(
            readers_named_at(&[0, 1, 2, 3, 4, 5, 6, 7], 7, 9),
            ((0..7).collect(), false)
        );
        // A read is named only by a read of all its bytes: even warps read bytes 0-1, odd
        // warps bytes 2-3, and a write of bytes 2-3 meets or knows every odd warp.
        let mut s = Shadow::new(4);
        let mut ev = Events::default();
        for w in 0..8 {
            let r = Stamp::warp(at(w * WarpClock::AGENTS, 1), false, 0, 7).by_lane(9);
            touch(&mut s, &mut ev, (w as usize % 2) * 2, 2, r, false);
        }
        let w = Stamp::warp(at(200, 1), false, 0, 9).by_lane(9);
        let met = touch(&mut s, &mut ev, 2, 2, w, true);
        let mut odd: Vec<u32> = met
            .iter()
            .flat_map(|(p, _)| stands_for_agents(p))
            .map(|a| a / WarpClock::AGENTS)
            .collect();
        odd.sort_unstable();
        assert!(
            met.iter().any(|m| m.0.absorbed()) || odd == [1, 3, 5, 7],
            "{odd:?}"
        );
        // Sixteen warps: those more than four warps from every read kept cannot be named.
        let order: Vec<u32> = (0..16).collect();
        assert!(readers_named(&order, 0).1);
        // Another instruction's reads are not named: they may have gone elsewhere.
        let mut s = Shadow::new(4);
        let mut ev = Events::default();
        for (w, pc) in [(0, 6), (1, 7), (2, 7), (3, 7), (4, 7)] {
            let r = Stamp::warp(at(w * WarpClock::AGENTS, 1), false, 0, pc);
            touch(&mut s, &mut ev, 0, 4, r, false);
        }
        let w = Stamp::warp(at(200, 1), false, 0, 9);
        let met = touch(&mut s, &mut ev, 0, 4, w, true);
        assert!(met
            .iter()
            .all(|m| m.0.absorbed() && m.0.named().count() == 0));
    }

    /// Met stamps compared without their kept bit (the shadow sets it per word).
    fn plain(met: Vec<(Stamp, bool)>) -> Vec<(Stamp, bool)> {
        met.into_iter()
            .map(|(p, w)| (p.keeping(false), w))
            .collect()
    }

    #[test]
    fn a_kept_write_is_remembered_beside_the_reads() {
        let mut s = Shadow::new(8);
        let mut ev = Events::default();
        let w1 = Stamp::warp(at(1, 1), false, 0, 1);
        let k2 = Stamp::warp(at(2, 1), false, 0, 2).keeping(true);
        let r3 = Stamp::warp(at(3, 1), false, 0, 3);
        let w4 = Stamp::warp(at(4, 1), false, 0, 4);
        // Kept over no remembered write: an ordinary write.
        touch(&mut s, &mut ev, 4, 4, k2, true);
        assert_eq!(s.writes(&ev, 4, 4), vec![k2.keeping(false)]);
        touch(&mut s, &mut ev, 0, 4, w1, true);
        // Kept over w1's bytes: it meets w1, and w1 stays the last write.
        let mut seen = Vec::new();
        s.access(
            &mut ev,
            (0, 4),
            k2,
            Lanes::NONE,
            true,
            &mut |p, w, k, _, new| {
                seen.push((*p, w, k, new.kept()));
                false
            },
        );
        assert_eq!(seen, vec![(w1, true, true, true)]);
        assert_eq!(s.writes(&ev, 0, 4), vec![w1]);
        // A read meets w1 and, as a write, the kept one.
        assert_eq!(
            touch(&mut s, &mut ev, 0, 4, r3, false),
            vec![(w1, true), (k2, true)]
        );
        // A write meets w1, the kept write (as a write) and the read.
        assert_eq!(
            touch(&mut s, &mut ev, 0, 4, w4, true),
            vec![(w1, true), (k2, true), (r3, false)]
        );
        // Then it is the last write, and nothing else is remembered.
        assert_eq!(
            plain(touch(&mut s, &mut ev, 0, 4, r3, false)),
            vec![(w4, true)]
        );
    }

    #[test]
    fn a_kept_write_is_not_kept_over_an_operation() {
        let mut s = Shadow::new(4);
        let mut ev = Events::default();
        let op = Stamp::op(3, false);
        touch(&mut s, &mut ev, 0, 4, op, true);
        let k = Stamp::warp(at(2, 1), false, 0, 2).keeping(true);
        assert_eq!(touch(&mut s, &mut ev, 0, 4, k, true), vec![(op, true)]);
        assert_eq!(s.writes(&ev, 0, 4), vec![k.keeping(false)]);
    }

    #[test]
    fn a_lane_reading_part_of_what_it_read_keeps_the_rest_at_its_epoch() {
        let mut s = Shadow::new(4);
        let mut ev = Events::default();
        let (early, late) = (
            Stamp::warp(at(1, 1), false, 0, 1),
            Stamp::warp(at(1, 5), false, 0, 2),
        );
        touch(&mut s, &mut ev, 0, 4, early, false);
        touch(&mut s, &mut ev, 0, 2, late, false);
        // A write of bytes 2-3 ordered after the early read but not the late one is ordered:
        // only the early read touched them.
        let w = Stamp::warp(at(2, 1), false, 0, 3);
        let mut met = Vec::new();
        s.access(
            &mut ev,
            (2, 2),
            w,
            Lanes::NONE,
            true,
            &mut |p, _, k, _, _| {
                let ok = p.site().1 == 1;
                if k && !ok {
                    met.push(*p);
                }
                ok
            },
        );
        assert!(met.is_empty(), "{met:?}");
        // Bytes 0-1 are the late read's, which stands for the early one's there.
        let w = Stamp::warp(at(3, 1), false, 0, 4);
        let met = touch(&mut s, &mut ev, 0, 2, w, true);
        assert_eq!(met.len(), 1);
        assert_eq!((met[0].0.site(), met[0].0.absorbed()), (late.site(), true));
    }

    #[test]
    fn reads_of_one_lane_at_one_epoch_merge_and_kept_writes_are_forgotten_last() {
        let mut s = Shadow::new(4);
        let mut ev = Events::default();
        let w1 = Stamp::warp(at(1, 1), false, 0, 1);
        touch(&mut s, &mut ev, 0, 4, w1, true);
        let k = Stamp::warp(at(2, 1), false, 0, 2).keeping(true);
        touch(&mut s, &mut ev, 0, 4, k, true);
        // Byte by byte at one epoch: one read.
        for b in 0..4 {
            touch(
                &mut s,
                &mut ev,
                b,
                1,
                Stamp::warp(at(3, 1), false, 0, 3),
                false,
            );
        }
        assert_eq!(s.load(0).r.iter().filter(|&&e| e != 0).count(), 2);
        // Five more readers: the kept write stays, the oldest plain reads go.
        for a in 4..9 {
            touch(
                &mut s,
                &mut ev,
                0,
                4,
                Stamp::warp(at(a, 1), false, 0, a),
                false,
            );
        }
        let w = Stamp::warp(at(20, 1), false, 0, 20);
        let met = touch(&mut s, &mut ev, 0, 4, w, true);
        assert!(met.contains(&(k, true)), "{met:?}");
        assert_eq!(met.len(), 1 + READS, "{met:?}");
    }

    #[test]
    fn each_word_is_stamped_with_the_lane_that_touched_it() {
        let mut s = Shadow::new(16);
        let mut ev = Events::default();
        // Lanes 0..3 store one word each at keys 0x100.. (shadow offset 0 is key 0x100).
        let pieces = [(0x100, 0x104, 0), (0x104, 0x108, 1), (0x108, 0x110, 2)];
        let lanes = Lanes {
            pieces: &pieces,
            base: 0x100,
            shift_ok: false,
            unlaned: None,
        };
        let w = Stamp::warp(at(1, 1), false, 0, 1);
        s.access(&mut ev, (0, 16), w, lanes, true, &mut |_, _, _, _, _| false);
        let writers: Vec<u32> = (0..4).map(|i| s.writes(&ev, i * 4, 4)[0].lane()).collect();
        assert_eq!(writers, vec![0, 1, 2, 2]);
        // Lane 1 reading its own word meets nothing; lane 1 reading lane 2's word meets it.
        let r = Stamp::warp(at(1, 1), false, 0, 2).by_lane(1);
        assert!(touch(&mut s, &mut ev, 4, 4, r, false).is_empty());
        assert_eq!(
            touch(&mut s, &mut ev, 8, 4, r, false),
            vec![(w.by_lane(2), true)]
        );
    }

    #[test]
    fn words_alike_only_up_to_the_same_shift_share_a_judgement() {
        let mut s = Shadow::new(8);
        let mut ev = Events::default();
        // Lane 3 wrote both words (one 8-byte store).
        let w = Stamp::warp(at(1, 1), false, 0, 1).by_lane(3);
        s.access(
            &mut ev,
            (0, 8),
            w,
            Lanes::NONE,
            true,
            &mut |_, _, _, _, _| true,
        );
        // Lanes 3 and 4 read one word each: lane 3 meets its own write (no question), lane 4
        // meets lane 3's, although the two words' shadows were equal.
        let pieces = [(0, 4, 3), (4, 8, 4)];
        let lanes = Lanes {
            pieces: &pieces,
            base: 0,
            shift_ok: true,
            unlaned: None,
        };
        let r = Stamp::warp(at(1, 1), false, 0, 2);
        let mut asked = Vec::new();
        s.access(
            &mut ev,
            (0, 8),
            r,
            lanes,
            false,
            &mut |p, _, conflict, _, n| {
                if conflict {
                    asked.push((p.lane(), n.lane()));
                }
                false
            },
        );
        assert_eq!(asked, vec![(3, 4)]);
    }

    #[test]
    fn words_whose_reads_spill_only_after_keep_each_its_lane() {
        let mut s = Shadow::new(16);
        let mut ev = Events::default();
        // Lane i of two unordered warps reads word i: each word's one read spills at the
        // second warp's, for every word after the first judged, moved i lanes.
        let pieces = [(0, 4, 0), (4, 8, 1), (8, 12, 2), (12, 16, 3)];
        let coalesced = Lanes {
            pieces: &pieces,
            base: 0,
            shift_ok: true,
            unlaned: None,
        };
        let (a, b) = (
            Stamp::warp(at(1, 1), false, 0, 1),
            Stamp::warp(at(2, 1), false, 0, 1),
        );
        for r in [a, b] {
            s.access(
                &mut ev,
                (0, 16),
                r,
                coalesced,
                false,
                &mut |_, _, _, _, _| false,
            );
        }
        let w = Stamp::warp(at(3, 1), false, 0, 2);
        for i in 0..4u32 {
            let met = touch(&mut s, &mut ev, i as usize * 4, 4, w, true);
            assert_eq!(
                met,
                vec![(a.by_lane(i), false), (b.by_lane(i), false)],
                "word {i}"
            );
        }
    }

    /// An operation (no lanes of its own) over words a warp's lane `i` read (or wrote) each,
    /// word `i`: one judgement serves every word when it could not depend on their lanes, and
    /// each word ends exactly as judging it alone leaves it.
    #[test]
    fn an_operation_judges_words_alike_up_to_earlier_lanes_once() {
        let pieces: Vec<(u64, u64, u32)> = (0..8u32)
            .map(|i| (u64::from(4 * i), u64::from(4 * i + 4), i))
            .collect();
        let coalesced = Lanes {
            pieces: &pieces,
            base: 0,
            shift_ok: true,
            unlaned: None,
        };
        // (the warp wrote, the operation writes, the agent pinned, the judge's answer, words
        // judged in full)
        let cases = [
            (false, false, u32::MAX, true, 1),
            // Both reads kept: each word keeps its own lane's beside the operation's.
            (false, false, u32::MAX, false, 1),
            // The issuing warp's own lanes are told apart.
            (false, false, 1, true, 8),
            (false, true, u32::MAX, true, 1),
            // Unordered: every word's meeting is counted.
            (false, true, u32::MAX, false, 8),
            // An earlier write of a warp: its caller checks more than the order.
            (true, false, u32::MAX, true, 8),
        ];
        for (wrote, writes, pinned, answer, want) in cases {
            let mut runs = Vec::new();
            for unlaned in [None, Some(pinned)] {
                let mut s = Shadow::new(32);
                let mut ev = Events::default();
                // A write is followed by the same lanes' reads: the words then have a read
                // (lane `i`'s) to tell their shift by, and a write of a warp.
                for write in [true, false].into_iter().filter(|&w| wrote || !w) {
                    let st = Stamp::warp(at(1, 1 + u32::from(!write)), false, 0, 1);
                    s.access(
                        &mut ev,
                        (0, 32),
                        st,
                        coalesced,
                        write,
                        &mut |_, _, _, _, _| false,
                    );
                }
                let mut asked = 0;
                let op = Lanes {
                    unlaned,
                    ..Lanes::NONE
                };
                s.access(
                    &mut ev,
                    (0, 32),
                    Stamp::op(5, false),
                    op,
                    writes,
                    &mut |_, _, _, _, _| {
                        asked += 1;
                        answer
                    },
                );
                let words: Vec<Word> = (0..8).map(|i| s.load(i)).collect();
                runs.push((asked, words));
            }
            let case = format!("wrote {wrote}, writes {writes}, pinned {pinned}, answer {answer}");
            // Word by word, each of the 8 words asks the same questions.
            let per_word = runs[0].0 / 8;
            assert!(per_word > 0 && runs[0].0 % 8 == 0, "{case}: word by word");
            assert_eq!(runs[1].0, want * per_word, "{case}");
            assert_eq!(runs[0].1, runs[1].1, "{case}: the words after");
            if !(writes || answer) {
                // Each word keeps its own lane's read, moved from the judged word's.
                assert_ne!(runs[1].1[0], runs[1].1[1], "{case}");
            }
        }
    }

    #[test]
    fn stamps_keep_lane_and_scope_apart() {
        let a = Stamp::warp(at(1, 1), true, 0, 1)
            .by_lane(31)
            .scoped(Scope::Cta);
        assert_eq!((a.lane(), a.scope()), (31, Scope::Cta));
        let b = a.by_lane(3);
        assert_eq!((b.lane(), b.scope()), (3, Scope::Cta));
        assert_eq!(Stamp::warp(at(1, 1), true, 0, 1).scope(), Scope::Gpu);
    }

    #[test]
    fn the_same_accessor_is_never_met() {
        let mut s = Shadow::new(4);
        let mut ev = Events::default();
        let a = Stamp::warp(at(1, 1), false, 0, 1);
        let a2 = Stamp::warp(at(1, 9), true, 0, 2);
        touch(&mut s, &mut ev, 0, 4, a, true);
        assert!(touch(&mut s, &mut ev, 0, 4, a2, false).is_empty());
        let op = Stamp::op(7, false);
        assert_eq!(
            op.who(),
            Who::Op {
                op: 7,
                reduce: false
            }
        );
        assert_eq!(
            a2.who(),
            Who::Warp {
                at: at(1, 9),
                atomic: true
            }
        );
        assert_eq!(a.site(), (0, 1));
    }
    #[test]
    fn events_are_collected_and_words_keep_what_they_name() {
        let mut shared = Shadow::new(64);
        let mut global = Shadow::new(16);
        let mut ev = Events::default();
        // A long run: 300,000 accesses, each a new event (a new epoch of warp 2 or 3).
        for k in 1..=300_000u32 {
            if ev.full() {
                collect(&mut ev, &mut [&mut shared, &mut global]);
            }
            let who = 2 + k % 2;
            let st = Stamp::warp(at(who, k), false, 1 + k % 300, k);
            let s = if k % 3 == 0 { &mut global } else { &mut shared };
            s.access(
                &mut ev,
                ((k as usize % 4) * 4, 4),
                st,
                Lanes::NONE,
                true,
                &mut |_, _, _, _, _| true,
            );
            // Two unordered reads spill the word's read set.
            let r = Stamp::warp(at(9, k), false, 0, 1);
            shared.access(
                &mut ev,
                (32, 4),
                r.by_lane(k % 2),
                Lanes::NONE,
                false,
                &mut |_, _, _, _, _| false,
            );
        }
        assert!(ev.len() <= 1 << 17, "the table stays bounded: {}", ev.len());
        // The last writers are still named exactly: shared word 0 by k = 299,996.
        let w = shared.writes(&ev, 0, 4)[0];
        assert_eq!(
            w,
            Stamp::warp(at(2, 299_996), false, 1 + 299_996 % 300, 299_996)
        );
        assert_eq!(global.writes(&ev, 0, 4)[0].site().1, 300_000);
        // The spilled reads are still met by a write.
        let met = touch(
            &mut shared,
            &mut ev,
            32,
            4,
            Stamp::warp(at(5, 1), false, 0, 2),
            true,
        );
        assert_eq!(met.len(), 2);
        assert_eq!(
            shared.spill.len() - shared.free.len(),
            0,
            "the write gave the slot back"
        );
    }
}
