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
use super::state::{after_op, op_name, Checker};
use crate::latency::OpClass;
use crate::mem::copy::{Engine, Loc, OpId};
use crate::mem::shadow::{Lanes, Stamp, Who};
use crate::mem::Global;

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

impl Checker {
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
        let mut met: Vec<OpMeet> = Vec::new();
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
                    (off, s.len as usize),
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
                                (pr && reduce) || after_op(engine, p, prev_write, rank, &issue_vc)
                            }
                        };
                        if !ok && conflict {
                            met.push(OpMeet {
                                prev: *prev,
                                prev_write,
                                write,
                                region,
                                len: s.len as usize,
                            });
                        }
                        ok
                    },
                );
                let side = Side {
                    region,
                    len: s.len as usize,
                    write,
                };
                self.check_proxy_fences(engine, global, (op, site), side, &issue_vc, fence_checks);
            }
        }
        for m in met {
            self.op_conflict(engine, global, op, site, m);
        }
        self.warps[site.rank as usize][site.warp as usize].tick();
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
