//! Shadow memory for the happens-before checker: per byte of shared and global memory, the last
//! write and the reads since it (FastTrack's "read epoch", widened to a set when reads are not
//! ordered with each other). A stamp names who accessed (a warp at an epoch, or an asynchronous
//! operation), whether it was atomic (or a reduction), and the instruction, for reports.
//!
//! The shadow does not judge: for every earlier access an access conflicts with (the last write,
//! and for a write the reads since), it asks the caller whether that access is ordered before the
//! new one, and the caller records a hazard when it is not; for a read it also asks about the
//! reads it may replace, without a conflict, to keep the read set minimal. Runs of bytes with
//! equal shadow are judged once.

use super::hb::Epoch;
use std::collections::BTreeMap;

/// Marks an asynchronous operation in [`Stamp::who`]; the rest is the operation's id.
const OP: u32 = 1 << 31;
/// Marks an atomic access (or an operation that reduces).
const ATOMIC: u32 = 1 << 30;
const ID: u32 = ATOMIC - 1;
/// `Cell::r.who` when the reads live in the region's side table.
const MANY: u32 = u32::MAX;

/// One access in the shadow.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub struct Stamp {
    who: u32,
    clock: u32,
    /// The instruction: `func << 24 | pc`.
    site: u32,
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
        }
    }

    pub fn op(op: u32, reduce: bool) -> Stamp {
        Stamp {
            who: OP | (op & ID) | if reduce { ATOMIC } else { 0 },
            clock: 0,
            site: 0,
        }
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

    /// The same accessor (a warp, whatever its epoch, or the same operation).
    fn same(&self, o: &Stamp) -> bool {
        self.who & !ATOMIC == o.who & !ATOMIC
    }
}

#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
struct Cell {
    w: Stamp,
    r: Stamp,
}

/// The shadow of one region (a CTA's shared memory, or one global allocation).
#[derive(Debug, Clone, Default)]
pub struct Shadow {
    cells: Vec<Cell>,
    /// Reads of bytes whose readers are not ordered with each other.
    many: BTreeMap<u32, Vec<Stamp>>,
}

impl Shadow {
    pub fn new(len: usize) -> Self {
        Shadow {
            cells: vec![Cell::default(); len],
            many: BTreeMap::new(),
        }
    }

    /// Records an access of `len` bytes at `off` by `new`. `ordered(prev, prev_is_write,
    /// conflict)` says whether an earlier access is ordered before `new`; `conflict` is true when
    /// the two conflict (the caller records a hazard if they are unordered), false when the
    /// shadow only asks whether a read may replace an earlier read.
    pub fn access(
        &mut self,
        off: usize,
        len: usize,
        new: Stamp,
        write: bool,
        ordered: &mut impl FnMut(&Stamp, bool, bool) -> bool,
    ) {
        let end = (off + len).min(self.cells.len());
        let mut seen: Option<(Cell, Cell)> = None;
        for i in off..end {
            let before = self.cells[i];
            if let Some((b, after)) = seen {
                // Same shadow as the byte before: same judgement, same outcome.
                if b == before && before.r.who != MANY {
                    self.cells[i] = after;
                    continue;
                }
            }
            let c = &mut self.cells[i];
            if !c.w.is_none() && !c.w.same(&new) {
                ordered(&c.w, true, true);
            }
            if write {
                if c.r.who == MANY {
                    for r in self.many.remove(&(i as u32)).unwrap_or_default() {
                        if !r.same(&new) {
                            ordered(&r, false, true);
                        }
                    }
                } else if !c.r.is_none() && !c.r.same(&new) {
                    ordered(&c.r, false, true);
                }
                c.w = new;
                c.r = Stamp::default();
            } else if c.r.is_none()
                || c.r.same(&new)
                || (c.r.who != MANY && ordered(&c.r, false, false))
            {
                c.r = new;
            } else {
                let mut set = if c.r.who == MANY {
                    self.many.remove(&(i as u32)).unwrap_or_default()
                } else {
                    vec![c.r]
                };
                set.retain(|r| !r.same(&new) && !ordered(r, false, false));
                set.push(new);
                if set.len() == 1 {
                    c.r = new;
                } else {
                    c.r = Stamp {
                        who: MANY,
                        clock: 0,
                        site: 0,
                    };
                    self.many.insert(i as u32, set);
                }
            }
            seen = Some((before, self.cells[i]));
        }
    }

    /// The last write of byte `off`, if any (for the proxy-fence rule).
    pub fn last_write(&self, off: usize) -> Option<Stamp> {
        self.cells.get(off).map(|c| c.w).filter(|w| !w.is_none())
    }

    pub fn len(&self) -> usize {
        self.cells.len()
    }

    pub fn is_empty(&self) -> bool {
        self.cells.is_empty()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn at(agent: u32, clock: u32) -> Epoch {
        Epoch { agent, clock }
    }

    /// Accesses `s`, calling every earlier access unordered; returns what it met.
    fn touch(
        s: &mut Shadow,
        off: usize,
        len: usize,
        new: Stamp,
        write: bool,
    ) -> Vec<(Stamp, bool)> {
        let mut met = Vec::new();
        s.access(off, len, new, write, &mut |p, w, conflict| {
            if conflict {
                met.push((*p, w));
            }
            false
        });
        met
    }

    #[test]
    fn a_write_meets_the_last_write_and_the_reads_since() {
        let mut s = Shadow::new(16);
        let w1 = Stamp::warp(at(1, 1), false, 0, 3);
        let r2 = Stamp::warp(at(2, 1), false, 0, 4);
        let r3 = Stamp::warp(at(3, 1), false, 0, 5);
        assert!(touch(&mut s, 0, 4, w1, true).is_empty());
        assert_eq!(touch(&mut s, 0, 4, r2, false), vec![(w1, true)]);
        // A read unordered with r2: both are kept.
        touch(&mut s, 0, 4, r3, false);
        let w4 = Stamp::warp(at(4, 1), false, 0, 6);
        let met = touch(&mut s, 0, 4, w4, true);
        assert!(
            met.contains(&(w1, true)) && met.contains(&(r2, false)) && met.contains(&(r3, false))
        );
        // The write cleared the reads.
        assert_eq!(touch(&mut s, 0, 4, w4, true), vec![]);
        assert_eq!(s.last_write(2), Some(w4));
    }

    #[test]
    fn ordered_reads_replace_each_other() {
        let mut s = Shadow::new(4);
        let r1 = Stamp::warp(at(1, 1), false, 0, 1);
        let r2 = Stamp::warp(at(2, 1), false, 0, 2);
        s.access(0, 4, r1, false, &mut |_, _, _| true);
        s.access(0, 4, r2, false, &mut |_, _, _| true);
        let w = Stamp::warp(at(3, 1), false, 0, 3);
        assert_eq!(touch(&mut s, 0, 4, w, true), vec![(r2, false)]);
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
