//! Shadow memory for the happens-before checker: per 4-byte word of shared and global memory,
//! the last write and the reads since it (FastTrack's read epoch, widened to a small set when
//! reads are not ordered with each other), each with the mask of the word's bytes it touched, so
//! accesses of different bytes of one word never conflict. A stamp names who accessed (a warp at
//! an epoch, or an asynchronous operation), whether it was atomic (or a reduction), and the
//! instruction, for reports. A warp's access also names the lane that made it (lanes of a warp
//! are threads of their own) and, for a strong access, its scope.
//!
//! The shadow does not judge: for every earlier access an access conflicts with (the last write,
//! and for a write the reads since), it asks the caller whether that access is ordered before the
//! new one, and the caller records a hazard when it is not; for a read it also asks about the
//! reads it may replace, without a conflict, to keep the read set minimal. Runs of words with
//! equal shadow are judged once.
//!
//! The shadow is bounded: a word remembers its last write and at most [`READS`] reads, the
//! oldest read forgotten beyond; and when a write covers only some bytes of a word, the earlier
//! writer of the other bytes is forgotten. Forgetting can only hide a race, never report one
//! that is not there. It is made in pages as memory is first touched, each charged to the run's
//! memory [`Meter`]: a large buffer costs the shadow of what the kernel touches, and a page
//! the budget refuses is not followed (the run stops at its next look at the meter).

use super::budget::Meter;
use super::hb::{Epoch, Scope};
use std::sync::Arc;

/// Marks an asynchronous operation in [`Stamp::who`]; the rest is the operation's id.
const OP: u32 = 1 << 31;
/// Marks an atomic access (or an operation that reduces).
const ATOMIC: u32 = 1 << 30;
const ID: u32 = ATOMIC - 1;
/// Reads a word remembers.
pub const READS: usize = 4;

/// One access in the shadow.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default, Hash)]
pub struct Stamp {
    who: u32,
    clock: u32,
    /// The instruction: `func << 24 | pc`.
    site: u32,
    /// The lane (bits 0-4) and, for a strong access, its scope (bits 5-6, [`Scope`] order).
    tag: u8,
}

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
            site: (func << 24) | (pc & 0xff_ffff),
            tag: 0,
        }
    }

    pub fn op(op: u32, reduce: bool) -> Stamp {
        Stamp {
            who: OP | (op & ID) | if reduce { ATOMIC } else { 0 },
            clock: 0,
            site: 0,
            tag: 0,
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
            tag: (self.tag & 31) | scope.bits() << 5,
            ..self
        }
    }

    /// The lane of a warp's access (0 for an operation).
    pub fn lane(&self) -> u32 {
        u32::from(self.tag & 31)
    }

    /// The scope of a strong access (`.gpu` when none was given).
    pub fn scope(&self) -> Scope {
        Scope::from_bits(self.tag >> 5)
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
        (self.site >> 24, self.site & 0xff_ffff)
    }

    fn is_none(&self) -> bool {
        self.who == 0
    }

    /// The same accessor (a lane of a warp, whatever its epoch, or the same operation).
    fn same(&self, o: &Stamp) -> bool {
        self.who & !ATOMIC == o.who & !ATOMIC && self.tag & 31 == o.tag & 31
    }
}

/// An access and the bytes of the word it touched (bit i: byte i); a [`Stamp`]'s fields laid
/// out beside the mask, so that an entry stays 16 bytes.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
struct Entry {
    who: u32,
    clock: u32,
    site: u32,
    tag: u8,
    mask: u8,
}

impl Entry {
    fn new(s: Stamp, mask: u8) -> Entry {
        Entry {
            who: s.who,
            clock: s.clock,
            site: s.site,
            tag: s.tag,
            mask,
        }
    }

    fn s(&self) -> Stamp {
        Stamp {
            who: self.who,
            clock: self.clock,
            site: self.site,
            tag: self.tag,
        }
    }
}

/// Which lane made each byte of one access: pieces `(start, end, lane)` keyed by address, in
/// ascending order of start, and the key of shadow offset 0. No pieces: the stamp's own lane.
#[derive(Debug, Clone, Copy)]
pub struct Lanes<'a> {
    pub pieces: &'a [(u64, u64, u32)],
    pub base: u64,
    /// Judgements depend on lanes only through their equality (no lane of the accessor is
    /// ordered differently from another): words equal up to a shift of lanes are judged alike.
    pub shift_ok: bool,
}

impl Lanes<'_> {
    pub const NONE: Lanes<'static> = Lanes {
        pieces: &[],
        base: 0,
        shift_ok: false,
    };
}

// An entry stays 16 bytes (the lane and scope live in what was padding).
const _: () = assert!(std::mem::size_of::<Entry>() == 16);

#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
struct Cell {
    w: Entry,
    /// Reads since the last write, oldest first; unused entries have mask 0.
    r: [Entry; READS],
}

/// Bytes of shadow per byte of memory followed (rounded up).
pub const BYTES_PER_BYTE: usize = std::mem::size_of::<Cell>().div_ceil(4);

/// Words per shadow page (the shadow of 4 KiB of memory).
const PAGE: usize = 1024;
const NO_ENTRY: Entry = Entry {
    who: 0,
    clock: 0,
    site: 0,
    tag: 0,
    mask: 0,
};
const NO_CELL: Cell = Cell {
    w: NO_ENTRY,
    r: [NO_ENTRY; READS],
};

/// The shadow of one region (a CTA's shared memory, or one global allocation).
#[derive(Debug)]
pub struct Shadow {
    /// Pages of [`PAGE`] words, made on first access.
    pages: Vec<Option<Box<[Cell]>>>,
    words: usize,
    meter: Arc<Meter>,
    /// What the region is, for the budget's message.
    name: Arc<str>,
}

impl Default for Shadow {
    fn default() -> Self {
        Shadow::new(0)
    }
}

impl Clone for Shadow {
    fn clone(&self) -> Self {
        let made = self.pages.iter().filter(|p| p.is_some()).count();
        // The copy's pages are charged too: dropping it gives them back. A copy is made before
        // a run starts, so going over here is seen at the run's first look at the meter.
        self.meter.charge((made * PAGE_BYTES) as u64, || {
            format!("a copy of the checker's shadow of {}", self.name)
        });
        Shadow {
            pages: self.pages.clone(),
            words: self.words,
            meter: Arc::clone(&self.meter),
            name: Arc::clone(&self.name),
        }
    }
}

impl Drop for Shadow {
    fn drop(&mut self) {
        let made = self.pages.iter().filter(|p| p.is_some()).count();
        self.meter.release((made * PAGE_BYTES) as u64);
    }
}

/// Bytes of one shadow page.
const PAGE_BYTES: usize = PAGE * std::mem::size_of::<Cell>();

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
            meter,
            name: name.into(),
        }
    }

    /// Word `i`, if its page exists.
    fn cell(&self, i: usize) -> Option<&Cell> {
        self.pages.get(i / PAGE)?.as_ref().map(|p| &p[i % PAGE])
    }

    /// Word `i`, its page made if the budget allows; `None` past the end or over the budget.
    fn cell_mut(&mut self, i: usize) -> Option<&mut Cell> {
        let page = self.pages.get_mut(i / PAGE)?;
        if page.is_none() {
            let name = &self.name;
            if !self.meter.charge(PAGE_BYTES as u64, || {
                format!("the checker's shadow of {name}")
            }) {
                return None;
            }
            *page = Some(vec![NO_CELL; PAGE].into_boxed_slice());
        }
        page.as_mut().map(|p| &mut p[i % PAGE])
    }

    /// Every word the shadow has made, with its index.
    fn cells(&self) -> impl Iterator<Item = (usize, &Cell)> + '_ {
        self.pages.iter().enumerate().flat_map(|(pi, p)| {
            p.iter()
                .flat_map(|p| p.iter())
                .enumerate()
                .map(move |(i, c)| (pi * PAGE + i, c))
        })
    }

    /// Every access the shadow remembers, with the offset of the word it touched: each word's
    /// last write and the reads since.
    pub fn stamps(&self) -> impl Iterator<Item = (usize, Stamp)> + '_ {
        self.cells().flat_map(|(i, c)| {
            std::iter::once(c.w)
                .chain(c.r)
                .filter(|e| e.mask != 0 && !e.s().is_none())
                .map(move |e| (i * 4, e.s()))
        })
    }

    /// The last writes of the words that `len` bytes at `off` touch.
    pub fn writes(&self, off: usize, len: usize) -> Vec<Stamp> {
        let (first, last) = (off / 4, (off + len.max(1) - 1) / 4);
        let mut out: Vec<Stamp> = Vec::new();
        for c in (first..=last.min(self.words.saturating_sub(1))).filter_map(|i| self.cell(i)) {
            if c.w.mask != 0 && !c.w.s().is_none() && !out.contains(&c.w.s()) {
                out.push(c.w.s());
            }
        }
        out
    }

    /// Records an access of `len` bytes at `off` by `new`, each word's stamp naming the lane
    /// `lanes` says made it. `ordered(prev, prev_is_write, conflict, at, new)` says whether an
    /// earlier access is ordered before the word's new one; `conflict` is true when the two
    /// conflict at byte `at` (the caller records a hazard if they are unordered), false when
    /// the shadow only asks whether a read may replace an earlier read.
    pub fn access(
        &mut self,
        off: usize,
        len: usize,
        new: Stamp,
        lanes: Lanes<'_>,
        write: bool,
        ordered: &mut impl FnMut(&Stamp, bool, bool, usize, &Stamp) -> bool,
    ) {
        if len == 0 || self.words == 0 {
            return;
        }
        let (first, last) = (off / 4, (off + len - 1) / 4);
        let mut seen: Option<(Cell, u8, Stamp, Cell)> = None;
        let mut piece = 0;
        for i in first..=last.min(self.words - 1) {
            let lo = if i == first { off % 4 } else { 0 };
            let hi = if i == last { (off + len - 1) % 4 } else { 3 };
            let mask = ((1u32 << (hi + 1)) - (1u32 << lo)) as u8;
            let at = (i * 4 + lo).max(off);
            let new = match lanes.pieces {
                [] => new,
                ps => {
                    // The first piece that has not ended before this word's first byte.
                    let key = lanes.base + at as u64;
                    while piece + 1 < ps.len() && ps[piece].1 <= key {
                        piece += 1;
                    }
                    new.by_lane(ps[piece].2)
                }
            };
            let Some(c) = self.cell_mut(i) else { return };
            let before = *c;
            if let Some((b, m, n, after)) = seen {
                // Same shadow, bytes and accessor as the word before: same judgement, same
                // outcome. Where lanes do not change judgements but their equality (the caller
                // says so), the same up to a shift of every lane also does: the words of a
                // coalesced access, each written and read by its own lane.
                if m == mask && n.who == new.who && n.clock == new.clock && n.site == new.site {
                    let d = new.lane().wrapping_sub(n.lane()) & 31;
                    let alike = match d {
                        0 => b == before,
                        _ => lanes.shift_ok && shifted(&b, d) == before,
                    };
                    if alike {
                        *c = if d == 0 { after } else { shifted(&after, d) };
                        continue;
                    }
                }
            }
            let w = c.w.s();
            if c.w.mask & mask != 0 && !w.is_none() && !w.same(&new) {
                ordered(&w, true, true, at, &new);
            }
            if write {
                for e in c.r.iter_mut() {
                    let r = e.s();
                    if e.mask & mask != 0 && !r.same(&new) {
                        ordered(&r, false, true, at, &new);
                    }
                    e.mask &= !mask;
                    if e.mask == 0 {
                        *e = NO_ENTRY;
                    }
                }
                compact(&mut c.r);
                c.w = Entry::new(new, mask);
            } else {
                read(c, new, mask, &mut |p, w, k| ordered(p, w, k, at, &new));
            }
            seen = Some((before, mask, new, *c));
        }
    }
}

/// A cell with the lane of every warp's access moved `d` lanes up (modulo 32).
fn shifted(c: &Cell, d: u32) -> Cell {
    let mut out = *c;
    for e in std::iter::once(&mut out.w).chain(out.r.iter_mut()) {
        if e.mask != 0 && e.who & OP == 0 {
            e.tag = (e.tag & !31) | ((u32::from(e.tag) + d) & 31) as u8;
        }
    }
    out
}

/// Adds a read to a word's read set: it replaces the same accessor's read and reads ordered
/// before it (of no more bytes than it reads); with no room, the oldest read is forgotten.
fn read(c: &mut Cell, new: Stamp, mask: u8, ordered: &mut impl FnMut(&Stamp, bool, bool) -> bool) {
    let mut mask = mask;
    for e in c.r.iter_mut().filter(|e| e.mask != 0) {
        let r = e.s();
        if r.same(&new) {
            mask |= e.mask;
            *e = NO_ENTRY;
        } else if e.mask & !mask == 0 && ordered(&r, false, false) {
            *e = NO_ENTRY;
        }
    }
    compact(&mut c.r);
    let free = c.r.iter().position(|e| e.mask == 0);
    let slot = free.unwrap_or_else(|| {
        c.r.rotate_left(1);
        READS - 1
    });
    c.r[slot] = Entry::new(new, mask);
}

/// Moves used entries to the front, keeping their order.
fn compact(r: &mut [Entry; READS]) {
    let mut k = 0;
    for i in 0..READS {
        if r[i].mask != 0 {
            r[k] = r[i];
            k += 1;
        }
    }
    for e in r.iter_mut().skip(k) {
        *e = NO_ENTRY;
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn at(agent: u32, clock: u32) -> Epoch {
        Epoch { agent, clock }
    }

    /// Accesses `s`, calling every earlier access unordered; returns the conflicts it met.
    fn touch(
        s: &mut Shadow,
        off: usize,
        len: usize,
        new: Stamp,
        write: bool,
    ) -> Vec<(Stamp, bool)> {
        let mut met = Vec::new();
        s.access(
            off,
            len,
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
        let w1 = Stamp::warp(at(1, 1), false, 0, 3);
        let r2 = Stamp::warp(at(2, 1), false, 0, 4);
        let r3 = Stamp::warp(at(3, 1), false, 0, 5);
        assert!(touch(&mut s, 0, 8, w1, true).is_empty());
        assert_eq!(touch(&mut s, 0, 8, r2, false), vec![(w1, true)]);
        // A read unordered with r2: both are kept.
        touch(&mut s, 0, 8, r3, false);
        let w4 = Stamp::warp(at(4, 1), false, 0, 6);
        let met = touch(&mut s, 0, 8, w4, true);
        assert!(
            met.contains(&(w1, true)) && met.contains(&(r2, false)) && met.contains(&(r3, false))
        );
        // The write cleared the reads; the writer does not meet itself.
        assert_eq!(touch(&mut s, 0, 8, w4, true), vec![]);
    }

    #[test]
    fn different_bytes_of_a_word_do_not_conflict() {
        let mut s = Shadow::new(8);
        let a = Stamp::warp(at(1, 1), false, 0, 1);
        let b = Stamp::warp(at(2, 1), false, 0, 2);
        touch(&mut s, 0, 1, a, true);
        assert!(touch(&mut s, 1, 1, b, true).is_empty());
        assert!(touch(&mut s, 2, 2, b, false).is_empty());
        assert_eq!(touch(&mut s, 1, 2, a, false), vec![(b, true)]);
        // An access across two words meets each.
        let c = Stamp::warp(at(3, 1), false, 0, 3);
        touch(&mut s, 4, 4, c, true);
        assert_eq!(touch(&mut s, 3, 2, a, true).len(), 2);
    }

    #[test]
    fn ordered_reads_replace_each_other() {
        let mut s = Shadow::new(4);
        let r1 = Stamp::warp(at(1, 1), false, 0, 1);
        let r2 = Stamp::warp(at(2, 1), false, 0, 2);
        s.access(0, 4, r1, Lanes::NONE, false, &mut |_, _, _, _, _| true);
        s.access(0, 4, r2, Lanes::NONE, false, &mut |_, _, _, _, _| true);
        let w = Stamp::warp(at(3, 1), false, 0, 3);
        assert_eq!(touch(&mut s, 0, 4, w, true), vec![(r2, false)]);
    }

    #[test]
    fn the_read_set_is_bounded() {
        let mut s = Shadow::new(4);
        for a in 1..=9 {
            touch(&mut s, 0, 4, Stamp::warp(at(a, 1), false, 0, a), false);
        }
        let w = Stamp::warp(at(20, 1), false, 0, 9);
        let met = touch(&mut s, 0, 4, w, true);
        assert_eq!(met.len(), READS, "the newest {READS} reads are kept");
        assert!(met.contains(&(Stamp::warp(at(9, 1), false, 0, 9), false)));
    }

    #[test]
    fn each_word_is_stamped_with_the_lane_that_touched_it() {
        let mut s = Shadow::new(16);
        // Lanes 0..3 store one word each at keys 0x100.. (shadow offset 0 is key 0x100).
        let pieces = [(0x100, 0x104, 0), (0x104, 0x108, 1), (0x108, 0x110, 2)];
        let lanes = Lanes {
            pieces: &pieces,
            base: 0x100,
            shift_ok: false,
        };
        let w = Stamp::warp(at(1, 1), false, 0, 1);
        s.access(0, 16, w, lanes, true, &mut |_, _, _, _, _| false);
        let writers: Vec<u32> = (0..4).map(|i| s.writes(i * 4, 4)[0].lane()).collect();
        assert_eq!(writers, vec![0, 1, 2, 2]);
        // Lane 1 reading its own word meets nothing; lane 1 reading lane 2's word meets it.
        let r = Stamp::warp(at(1, 1), false, 0, 2).by_lane(1);
        assert!(touch(&mut s, 4, 4, r, false).is_empty());
        assert_eq!(touch(&mut s, 8, 4, r, false), vec![(w.by_lane(2), true)]);
    }

    #[test]
    fn words_alike_only_up_to_the_same_shift_share_a_judgement() {
        let mut s = Shadow::new(8);
        // Lane 3 wrote both words (one 8-byte store).
        let w = Stamp::warp(at(1, 1), false, 0, 1).by_lane(3);
        s.access(0, 8, w, Lanes::NONE, true, &mut |_, _, _, _, _| true);
        // Lanes 3 and 4 read one word each: lane 3 meets its own write (no question), lane 4
        // meets lane 3's, although the two words' shadows were equal.
        let pieces = [(0, 4, 3), (4, 8, 4)];
        let lanes = Lanes {
            pieces: &pieces,
            base: 0,
            shift_ok: true,
        };
        let r = Stamp::warp(at(1, 1), false, 0, 2);
        let mut asked = Vec::new();
        s.access(0, 8, r, lanes, false, &mut |p, _, conflict, _, n| {
            if conflict {
                asked.push((p.lane(), n.lane()));
            }
            false
        });
        assert_eq!(asked, vec![(3, 4)]);
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
        let a = Stamp::warp(at(1, 1), false, 0, 1);
        let a2 = Stamp::warp(at(1, 9), true, 0, 2);
        touch(&mut s, 0, 4, a, true);
        assert!(touch(&mut s, 0, 4, a2, false).is_empty());
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
}
