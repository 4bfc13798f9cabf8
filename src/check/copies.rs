//! Asynchronous operations at their issue (PTX ISA 9.0 9.7.9.25 "Data Movement and Conversion
//! Instructions: cp.async", 9.7.9.25.1 "Completion Mechanisms for Asynchronous Copy
//! Operations", 8.6 "Proxies"): an operation is checked when it is issued, as a read of its
//! sources and a write of its destinations spanning issue to completion, so the verdict never
//! depends on when the copy happened to land (the latency model). It must be ordered after
//! the earlier accesses of its bytes: an unordered earlier store is a `data-race`, an unordered
//! earlier read of bytes it writes `async-write-after-read`, another operation's unfinished
//! access `read-before-complete` / `write-before-complete` / `source-modified-before-complete`;
//! a bulk or tensor operation (async proxy) touching bytes an ordinary store wrote with no
//! `fence.proxy.async` between them: `missing-proxy-fence` (`proxies.rs`).

use super::kind::HazardKind;
use super::proxies::Side;
use super::report::Msg;
use super::site::{describe, Region, Site};
use super::slot::CopySlot;
use super::state::{after_op, op_name, Checker, Knows};
use crate::latency::OpClass;
use crate::mem::copy::{Engine, Loc, OpId};
use crate::mem::hb::{Epoch, Vc, WarpClock};
use crate::mem::shadow::{Lanes, Stamp, Who};
use crate::mem::Global;

/// The shortest end of an operation whose words are compared up to a shift of earlier lanes
/// ([`Lanes::unlaned`]): over a few words (a `cp.async` lane's 16 bytes), reading the shifts
/// costs more than it saves.
const FOLLOW_BYTES: usize = 64;

/// An earlier access an asynchronous operation met unordered: its stamp and whether it wrote,
/// and the operation's own access (`write`, `len` bytes of `region`).
#[derive(Debug, Clone, Copy)]
pub(super) struct OpMeet {
    prev: Stamp,
    prev_write: bool,
    write: bool,
    region: Region,
    len: usize,
}

/// An asynchronous operation being checked at its issue: what judging each of its accesses
/// needs.
struct Issue<'e> {
    engine: &'e Engine,
    global: &'e Global,
    op: OpId,
    site: Site,
    /// The issuing warp's clock at the issue.
    vc: Vc,
    stamp: Stamp,
    /// A bulk or remote reduction (ordered with atomics and with other reductions of a word).
    reduce: bool,
    /// Through the async proxy: ordinary stores it meets need a proxy fence.
    async_proxy: bool,
}

/// One end of one segment of an operation: `len` bytes of `region`, written or read, by the
/// lane `lane` of the issuing warp (`None`: by the whole warp).
#[derive(Debug, Clone, Copy)]
struct End {
    region: Region,
    len: usize,
    write: bool,
    lane: Option<u32>,
}

impl Issue<'_> {
    /// Whether the operation is ordered after an earlier access of a warp at `at` (`prev`): the
    /// issuing warp's own access when the issuing lane knows of it (a whole-warp operation is
    /// the warp's), another warp's when the issuer's clock covers it.
    fn after_warp(&self, issuer: &WarpClock, lane: Option<u32>, prev: &Stamp, at: Epoch) -> bool {
        if at.agent == issuer.me {
            lane.is_none_or(|l| issuer.lane_knows(l, prev.lane(), at.clock))
        } else {
            self.vc.covers(at)
        }
    }
}

impl Checker {
    /// The checker's slot for an operation of `class` that warp `(rank, warp)` issues now,
    /// tracked by its async-group or not (`by_group`). Operations an async-group tracks complete
    /// in the order of the warp's sequence of that group, so the slot takes its next epochs:
    /// one for a `wgmma` (it reads its operands until it completes) and for a non-bulk
    /// `cp.async`, a completion and an end-of-reads epoch for the bulk group. The complete-tx
    /// of `st.async`/`red.async` has .release semantics at cluster scope (PTX ISA 9.0 section
    /// 9.7.9.12): it releases what the issuer did before the issue.
    pub fn copy_slot(
        &mut self,
        (rank, warp): (u32, u32),
        class: OpClass,
        by_group: bool,
    ) -> CopySlot {
        let w = self.warp(rank, warp);
        let group = by_group.then(|| {
            let (issued, agent, read_agent) = match class {
                OpClass::Wgmma => (&mut w.wg_issued, w.wg, w.wg),
                OpClass::CpAsync => (&mut w.cp_issued, w.cp, w.cp),
                _ => (&mut w.bulk_issued, w.bulk, w.bulk_read),
            };
            *issued += 1;
            let clock = *issued;
            (
                Epoch { agent, clock },
                Epoch {
                    agent: read_agent,
                    clock,
                },
            )
        });
        let release = match class {
            OpClass::Remote => w.vc.clone(),
            _ => Vc::new(),
        };
        CopySlot::new(group, release)
    }

    /// A wait of warp `(rank, warp)` observed the operations `ops` its async-groups track: it
    /// acquires the end of their source reads and, unless `read_only`
    /// (`cp.async.bulk.wait_group.read`), their completion.
    pub fn groups_observed(
        &mut self,
        engine: &Engine,
        (rank, warp): (u32, u32),
        ops: &[OpId],
        read_only: bool,
    ) {
        let w = self.warp(rank, warp);
        for &o in ops {
            if let Some((done, read)) = engine.op(o).and_then(|o| o.slot().group_epochs()) {
                w.vc.raise(read.agent, read.clock);
                if !read_only {
                    w.vc.raise(done.agent, done.clock);
                }
            }
        }
    }

    /// An asynchronous operation was issued by the warp at `site`: its sources are read and its
    /// destinations written from now until it completes.
    /// `lanes` are the lanes that issued it: one lane, or (`cp.async`) one piece per lane.
    pub fn op_issue(&mut self, engine: &Engine, global: &Global, op: OpId, site: Site, lanes: u32) {
        let Some(o) = engine.live(op) else {
            return;
        };
        self.collect_if_full();
        let reduce = o.spec.reduce.is_some();
        let is = Issue {
            engine,
            global,
            op,
            site,
            vc: self.warp(site.rank, site.warp).vc.clone(),
            stamp: Stamp::op(op, reduce),
            reduce,
            async_proxy: o.async_proxy(),
        };
        let segs = &o.spec.segs;
        let seg_lanes = issuing_lanes(o.spec.class, &o.spec.pieces, segs.len(), lanes);
        self.note_smem_op(o, op);
        let mut met: Vec<OpMeet> = Vec::new();
        for (k, s) in segs.iter().enumerate() {
            let lane = seg_lanes.get(k).copied().flatten();
            for (loc, write) in [(s.src, false), (s.dst, true)] {
                let region = match loc {
                    Loc::Global(a) => Region::Global(a),
                    Loc::Shared { rank, off } => Region::Shared(rank, off),
                    Loc::Fill => continue,
                };
                let len = s.len as usize;
                self.op_end(
                    &is,
                    End {
                        region,
                        len,
                        write,
                        lane,
                    },
                    &mut met,
                );
            }
        }
        for m in met {
            self.op_conflict(engine, global, op, site, m);
        }
        self.warp(site.rank, site.warp).tick();
    }

    /// Checks one end of a segment of the operation `is` against the shadow of its bytes: the
    /// earlier accesses it meets unordered go to `met`, the ordered stores an async-proxy
    /// operation meets to the proxy-fence check.
    fn op_end(&mut self, is: &Issue<'_>, end: End, met: &mut Vec<OpMeet>) {
        let End {
            region,
            len,
            write,
            lane,
        } = end;
        let rank = match region {
            Region::Shared(r, _) => r,
            Region::Global(_) => is.site.rank,
        };
        let Some((shadow, off)) = Self::shadow(
            &mut self.shared,
            &mut self.global,
            is.global,
            &self.meter,
            region,
            len,
        ) else {
            return;
        };
        let mut fence_checks = Vec::new();
        let issuer = &self.warps[is.site.rank as usize][is.site.warp as usize];
        let knows = Knows {
            vc: &is.vc,
            grids: &self.grids,
        };
        let mut judge = |prev: &Stamp, prev_write: bool, conflict: bool, _: usize, _: &Stamp| {
            let ok = match prev.who() {
                Who::Warp { at, atomic } => {
                    // An atomic and a bulk reduction of the same word need no order.
                    let exempt = atomic && is.reduce;
                    let ordered = is.after_warp(issuer, lane, prev, at) || knows.finished(at.agent);
                    // (A kept write left the bytes an earlier write made: that one is checked.)
                    if ordered
                        && !exempt
                        && conflict
                        && prev_write
                        && !prev.kept()
                        && is.async_proxy
                    {
                        fence_checks.push(*prev);
                    }
                    ordered || exempt
                }
                Who::Op { op: p, reduce: pr } => {
                    (pr && is.reduce) || after_op(is.engine, p, prev_write, rank, knows)
                }
            };
            if !ok && conflict {
                met.push(OpMeet {
                    prev: *prev,
                    prev_write,
                    write,
                    region,
                    len,
                });
            }
            ok
        };
        // Only the issuing lane's own accesses are judged by lane (`after_warp`).
        let pinned = match lane {
            Some(_) => issuer.me,
            None => u32::MAX,
        };
        let lanes = Lanes {
            unlaned: (len >= FOLLOW_BYTES).then_some(pinned),
            ..Lanes::NONE
        };
        shadow.access(
            &mut self.events,
            (off, len),
            is.stamp,
            lanes,
            write,
            &mut judge,
        );
        let side = Side { region, len, write };
        let at = (is.op, is.site);
        self.check_proxy_fences(is.engine, is.global, at, side, &is.vc, fence_checks);
    }

    /// Reports the conflict of operation `op`, issued at `site`, with an earlier access it met.
    pub(super) fn op_conflict(
        &mut self,
        engine: &Engine,
        global: &Global,
        op: OpId,
        site: Site,
        m: OpMeet,
    ) {
        let OpMeet {
            prev,
            prev_write,
            write,
            region,
            len,
        } = m;
        let name = op_name(engine, op);
        let address = describe(global, region, len, site.rank);
        let (kind, message, help, related) = match prev.who() {
            Who::Warp { at, .. } => {
                let (f, pc) = prev.site();
                let warp = self.accessor(site, at, &prev);
                if prev_write {
                    (
                        HazardKind::DataRace,
                        Msg::text(format!("the {name} {} {address}, written by {warp} at line ", if write { "writes" } else { "reads" })).related_line().then(" with nothing ordering that store before the copy's issue"),
                        "order the store before the copy's issue (bar.sync, or an mbarrier arrive/wait pair)",
                        (f, pc, format!("the unordered store ({warp})")),
                    )
                } else {
                    (
                        HazardKind::AsyncWriteAfterRead,
                        Msg::text(format!("the {name} writes {address}, which {warp} reads at line ")).related_line().then(", and that read is not ordered before the copy's issue: it may read the new bytes"),
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
                    Msg::text(format!("the {name} {verb} {pname} at line ")).related_line().then(format!(" {} ({address})", if prev_write { "writes" } else { "reads" })),
                    "wait for the earlier operation (its async-group or mbarrier phase) before issuing this one",
                    (iss.func, iss.pc, format!("the in-flight {pname}")),
                )
            }
        };
        self.report(kind, site, message, help, address, Some(related));
    }
}

/// The lane that issued each segment of an operation: the one issuing lane, or for `cp.async`
/// the lane of each piece (piece `i` is the `i`-th lane of `lanes`); `None` for an operation
/// of the whole warp (`wgmma`), which is ordered after what the warp did.
pub(super) fn issuing_lanes(
    class: OpClass,
    pieces: &[u32],
    segs: usize,
    lanes: u32,
) -> Vec<Option<u32>> {
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
