//! The Trace Event Format (`--trace-format chrome`), laid out so that Perfetto's trace processor
//! imports it with no error and every slice where it is meant to be:
//! - one process per CTA (pids from 1) with one thread per warp (tids from 1), one for the
//!   warp's instructions (`--trace-instructions`) and one for the copy engine. Pid and tid 0 are
//!   avoided because Perfetto's JSON importer replaces a tid of 0 by the pid, which merged warp 0
//!   of every CTA but the first into another warp's track.
//! - Complete (`X`) slices on one thread must nest, or Perfetto moves the ones that do not to an
//!   overflow track and counts an import error. Only a warp's own slice has slices inside it
//!   (its issues and waits); lane groups of a diverged warp wait at the same time, so a slice
//!   that would overlap another one goes to the thread's first extra track where it fits
//!   (`warp N (overlap K)`, tid + K * `LANE_TID`).
//! - Asynchronous operations overlap freely, so each is an async slice (`b`/`e`) with the
//!   process-scoped id `{"id2": {"local": op}}`: Perfetto puts it in the CTA's process, on a track
//!   named after its kind, and gives overlapping operations of one kind tracks of their own. (A
//!   plain `"id"` is global to Perfetto: every CTA's copies landed on tracks outside the CTAs.)
//! - Flows (`s`/`f`) go from the slice of the issuing instruction to each wait that observed the
//!   completion. Perfetto binds a flow event to the innermost slice on its track's stack, without
//!   closing the ones that have ended (an instant stays innermost until the next slice starts),
//!   and takes the events of one timestamp complete slices first, then the rest as written. So
//!   flows are written before instants, start at the issue (whose slice just opened) and end at
//!   the wait's start, or where the wait started before the issue, at the issue's cycle, with
//!   nothing allowed to sit on that wait (a flow must not end before it starts).

use super::{cuda_str, fields, Event, Names, What};
use serde_json::{json, Map, Value};
use std::borrow::Cow;
use std::cmp::Reverse;
use std::collections::BTreeMap;

/// Tids in each CTA's process: warp N is N + 1, its instructions N + 1 + `INSTR_TID`.
const INSTR_TID: u64 = 500_000;
const ENGINE_TID: u64 = 1_000_000;
/// Extra tracks of a thread, for slices that would overlap: tid + K * `LANE_TID`.
const LANE_TID: u64 = 10_000_000;

fn warp_tid(w: u32) -> u64 {
    u64::from(w) + 1
}

/// What may sit on a slice on its track.
#[derive(Clone, Copy, PartialEq)]
enum Nest {
    /// A warp's slice: whatever the warp did in its life.
    Parent,
    /// An issue or a wait: instants only.
    Leaf,
    /// A wait that a flow ends in after its start: nothing.
    Bound,
    /// An instant (`i`), zero cycles long.
    Instant,
}

/// A slice or instant of a thread, before it is given a track. It is small: its name borrows
/// from the event and its arguments are made from the event as it is written, so that a
/// cluster's layout costs little beside its events.
struct Slice<'a> {
    pid: u64,
    /// The thread it belongs to; its lane picks the track it is written on.
    tid: u64,
    ts: u64,
    dur: u64,
    name: Cow<'a, str>,
    cat: &'static str,
    args: Args,
    nest: Nest,
}

/// Where a slice's arguments come from.
#[derive(Clone, Copy, PartialEq)]
enum Args {
    /// The event at this index of the segment: its fields, PTX line, lanes and CUDA line.
    Event(usize),
    /// A warp's slice, of a warp that never exited: `exited: false`.
    NotExited,
    None,
}

/// A warp's start and exit cycles (either may be missing) and its last busy cycle.
type Life = (Option<u64>, Option<u64>, u64);

/// What the layout of a trace keeps from one segment to the next: each CTA's process id (in
/// order of first appearance) and the flows numbered so far. Everything else of a segment (a
/// cluster's events: its CTAs, warps and operations are its own) is laid out and dropped.
#[derive(Debug, Default)]
pub(super) struct Layout {
    ctas: BTreeMap<[u32; 3], u64>,
    flows: usize,
}

/// An event's arguments on its slice: its fields, PTX line, lanes and CUDA line.
fn event_args(e: &Event, names: Names<'_>) -> Map<String, Value> {
    let mut args = fields(&e.what, names.allocs);
    args.insert("line".into(), json!(e.line));
    args.insert("lanes".into(), json!(format!("{:#010x}", e.lanes)));
    if let Some(c) = e.cuda {
        args.insert("cuda".into(), cuda_str(names.files, Some(c)));
    }
    args
}

/// Where `emit` writes one Trace Event Format event.
type Emit<'f> = dyn FnMut(&Value) -> std::io::Result<()> + 'f;

/// Writes the Trace Event Format events of one segment of a trace to `emit`, in this order:
/// metadata of the CTAs and threads it introduces, slices, flows, async slices, instants.
pub(super) fn segment(
    events: &[Event],
    names: Names<'_>,
    layout: &mut Layout,
    emit: &mut Emit<'_>,
) -> std::io::Result<()> {
    let known = layout.ctas.len() as u64;
    for e in events {
        let n = layout.ctas.len() as u64 + 1;
        layout.ctas.entry(e.cta).or_insert(n);
    }
    let ctas = &layout.ctas;
    let mut g = Gathered::default();
    for (k, e) in events.iter().enumerate() {
        g.add(k, e, ctas.get(&e.cta).copied().unwrap_or(0));
    }
    g.add_warps();
    let slices = &g.slices;
    let lanes = assign_lanes(slices);
    let track = |i: usize| slices[i].tid + u64::from(lanes[i]) * LANE_TID;
    emit_metadata(ctas, known, slices, &track, emit)?;
    let event = |i: usize| {
        let s = &slices[i];
        let mut v = json!({"ph": "X", "name": s.name, "cat": s.cat, "pid": s.pid,
                           "tid": track(i), "ts": s.ts});
        if s.nest == Nest::Instant {
            v["ph"] = json!("i");
            v["s"] = json!("t");
        } else {
            v["dur"] = json!(s.dur);
        }
        match s.args {
            Args::Event(k) => v["args"] = Value::Object(event_args(&events[k], names)),
            Args::NotExited => v["args"] = json!({"exited": false}),
            Args::None => {}
        }
        v
    };
    let instant = |i: &usize| slices[*i].nest == Nest::Instant;
    for i in (0..slices.len()).filter(|i| !instant(i)) {
        emit(&event(i))?;
    }
    // Each start before its end: at one timestamp Perfetto takes them in the order written.
    let first_flow = layout.flows;
    layout.flows += g.flows.len();
    for (n, &(from, to, at)) in g.flows.iter().enumerate() {
        let n = first_flow + n;
        let (a, b) = (&slices[from], &slices[to]);
        emit(
            &json!({"ph": "s", "name": "completion", "cat": "flow", "id": n + 1,
                        "pid": a.pid, "tid": track(from), "ts": a.ts}),
        )?;
        emit(
            &json!({"ph": "f", "bp": "e", "name": "completion", "cat": "flow", "id": n + 1,
                        "pid": b.pid, "tid": track(to), "ts": at}),
        )?;
    }
    emit_copies(events, ctas, &g, names.allocs, emit)?;
    for i in (0..slices.len()).filter(instant) {
        emit(&event(i))?;
    }
    Ok(())
}

/// A segment's events turned into slices, before they are given tracks.
#[derive(Default)]
struct Gathered<'e> {
    slices: Vec<Slice<'e>>,
    /// The async slices' begin (the issue) and end (the completion) events: the events' indices.
    copies: Vec<usize>,
    /// (issue slice, wait slice, cycle of the flow's end) of each flow.
    flows: Vec<(usize, usize, u64)>,
    /// Per warp: the cycle it started, the cycle it exited, and the last cycle anything of it
    /// happened (a warp that never exits still gets a slice covering its events).
    warps: BTreeMap<(u64, u32), Life>,
    /// Per operation: its issue's slice and its kind.
    issues: BTreeMap<u32, (usize, &'e str)>,
}

impl<'e> Gathered<'e> {
    /// Adds event `k`, `e`, of the CTA with process id `p`.
    fn add(&mut self, k: usize, e: &'e Event, p: u64) {
        let tid = e.warp.map_or(ENGINE_TID, warp_tid);
        let args = Args::Event(k);
        let slice = |tid, ts, dur, name, cat, nest| Slice {
            pid: p,
            tid,
            ts,
            dur,
            name,
            cat,
            args,
            nest,
        };
        let mut end = e.cycle;
        match &e.what {
            What::WarpStart => {
                if let Some(w) = e.warp {
                    self.warps.entry((p, w)).or_default().0 = Some(e.cycle);
                }
            }
            What::WarpExit => {
                if let Some(w) = e.warp {
                    self.warps.entry((p, w)).or_default().1 = Some(e.cycle);
                }
            }
            What::Issue { op, kind, .. } => {
                let name = Cow::Borrowed(kind.name());
                self.slices
                    .push(slice(tid, e.cycle, 1, name, "issue", Nest::Leaf));
                self.issues
                    .insert(*op, (self.slices.len() - 1, kind.name()));
                end += 1;
                self.copies.push(k);
            }
            What::Complete { op } => {
                // An operation whose issue is not in the trace has no slice to end.
                if self.issues.contains_key(op) {
                    self.copies.push(k);
                }
            }
            What::Wait {
                what,
                since,
                observed,
                ..
            } => {
                let (dur, nest) = self.wait_flows(*since, e.cycle, observed);
                let name = Cow::Owned(format!("wait {what}"));
                self.slices
                    .push(slice(tid, *since, dur, name, "wait", nest));
                end = since + dur;
            }
            What::Instr { text } => {
                let (name, itid) = (Cow::Borrowed(text.as_str()), tid + INSTR_TID);
                self.slices
                    .push(slice(itid, e.cycle, 1, name, "instruction", Nest::Leaf));
                end += 1;
            }
            other => {
                let name: Cow<str> = match other {
                    What::Mbarrier { action, .. } => format!("mbarrier.{action}").into(),
                    What::Barrier { action, .. } => format!("barrier {action}").into(),
                    What::Fence { kind } => kind.as_str().into(),
                    What::Commit { bulk: true, .. } => "bulk commit_group".into(),
                    What::Commit { .. } => "commit_group".into(),
                    o => o.name().into(),
                };
                self.slices
                    .push(slice(tid, e.cycle, 0, name, other.name(), Nest::Instant));
            }
        }
        if let Some(w) = e.warp {
            let last = &mut self.warps.entry((p, w)).or_default().2;
            *last = (*last).max(end);
        }
    }

    /// The length and nesting of a wait from `since` to `cycle` that observed the completions
    /// of `observed`, with a flow from each one's issue into the wait (the next slice).
    fn wait_flows(&mut self, since: u64, cycle: u64, observed: &[u32]) -> (u64, Nest) {
        // A wait lasts at least a cycle, and past the issue of what it observed (an
        // immediate completion can end a wait in the issue's cycle), so that each flow
        // ends inside it.
        let mut dur = cycle.saturating_sub(since).max(1);
        let mut nest = Nest::Leaf;
        let w = self.slices.len();
        for op in observed {
            if let Some(&(i, _)) = self.issues.get(op) {
                let at = self.slices[i].ts.max(since);
                if at > since {
                    nest = Nest::Bound;
                }
                dur = dur.max(at + 1 - since);
                self.flows.push((i, w, at));
            }
        }
        (dur, nest)
    }

    /// Adds each started warp's own slice, covering its life.
    fn add_warps(&mut self) {
        for (&(p, w), &(start, exit, last)) in &self.warps {
            if let Some(start) = start {
                let end = exit.unwrap_or(0).max(last);
                self.slices.push(Slice {
                    pid: p,
                    tid: warp_tid(w),
                    ts: start,
                    dur: end.saturating_sub(start).max(1),
                    name: format!("warp {w}").into(),
                    cat: "warp",
                    args: if exit.is_none() {
                        Args::NotExited
                    } else {
                        Args::None
                    },
                    nest: Nest::Parent,
                });
            }
        }
    }
}

/// Names and orders the CTAs (process ids above `known`) and the threads a segment introduces.
fn emit_metadata(
    ctas: &BTreeMap<[u32; 3], u64>,
    known: u64,
    slices: &[Slice],
    track: &dyn Fn(usize) -> u64,
    emit: &mut Emit<'_>,
) -> std::io::Result<()> {
    let new_ctas = ctas.iter().filter(|(_, &p)| p > known);
    for (c, p) in new_ctas {
        emit(
            &json!({"ph": "M", "name": "process_name", "pid": p, "tid": 0,
                        "args": {"name": format!("CTA [{}, {}, {}]", c[0], c[1], c[2])}}),
        )?;
        emit(
            &json!({"ph": "M", "name": "process_sort_index", "pid": p, "tid": 0,
                        "args": {"sort_index": p}}),
        )?;
    }
    // Every thread that holds something, named and ordered: each warp, its extra tracks, its
    // instructions; the copy engine last.
    let mut threads: BTreeMap<(u64, u64), ()> = BTreeMap::new();
    for (i, s) in slices.iter().enumerate() {
        threads.insert((s.pid, track(i)), ());
    }
    for p in ctas.values().filter(|&&p| p > known) {
        threads.insert((*p, ENGINE_TID), ());
    }
    for &(p, tid) in threads.keys() {
        let (base, lane) = (tid % LANE_TID, tid / LANE_TID);
        let mut name = match base {
            ENGINE_TID => "copy engine".to_string(),
            b if b > INSTR_TID => format!("warp {} instructions", b - INSTR_TID - 1),
            b => format!("warp {}", b - 1),
        };
        if lane > 0 {
            name = format!("{name} (overlap {lane})");
        }
        let sort = match base {
            ENGINE_TID => 1 << 40,
            b => (b % INSTR_TID) * 128 + (b / INSTR_TID) * 64 + lane,
        };
        emit(
            &json!({"ph": "M", "name": "thread_name", "pid": p, "tid": tid,
                        "args": {"name": name}}),
        )?;
        emit(
            &json!({"ph": "M", "name": "thread_sort_index", "pid": p, "tid": tid,
                        "args": {"sort_index": sort}}),
        )?;
    }
    Ok(())
}

/// The async slices: each copy's begin at its issue and end at its completion.
fn emit_copies(
    events: &[Event],
    ctas: &BTreeMap<[u32; 3], u64>,
    g: &Gathered<'_>,
    allocs: &[String],
    emit: &mut Emit<'_>,
) -> std::io::Result<()> {
    for &k in &g.copies {
        let e = &events[k];
        let p = ctas.get(&e.cta).copied().unwrap_or(0);
        let v = match &e.what {
            What::Issue { op, kind, .. } => {
                json!({"ph": "b", "name": kind.name(), "cat": "copy", "id2": {"local": op},
                       "pid": p, "tid": ENGINE_TID, "ts": e.cycle, "args": fields(&e.what, allocs)})
            }
            What::Complete { op } => {
                let kind = g.issues.get(op).map_or("", |x| x.1);
                json!({"ph": "e", "name": kind, "cat": "copy", "id2": {"local": op},
                       "pid": p, "tid": ENGINE_TID, "ts": e.cycle})
            }
            _ => continue,
        };
        emit(&v)?;
    }
    Ok(())
}

/// What a chrome trace starts with, up to the first of its `traceEvents`.
pub(super) fn header() -> String {
    let doc = json!({
        "displayTimeUnit": "ns",
        "otherData": {"producer": "ptxrun", "clock": "1 us on the timeline = 1 virtual cycle"},
    })
    .to_string();
    // The keys are written in order: `traceEvents` comes last.
    format!("{},\"traceEvents\":[", &doc[..doc.len() - 1])
}

/// What a chrome trace ends with.
pub(super) const FOOTER: &str = "]}\n";

/// The lane (0: the thread's own track) of each slice, such that on every track slices nest as
/// their [`Nest`] allows: taken in the order Perfetto opens them (by start, longer first, then
/// as written), each goes to the first lane where the innermost slice still open allows it.
fn assign_lanes(slices: &[Slice]) -> Vec<u32> {
    let mut order: Vec<usize> = (0..slices.len()).collect();
    order.sort_by_key(|&i| {
        let s = &slices[i];
        (s.pid, s.tid, s.ts, Reverse(s.dur), i)
    });
    let mut lanes = vec![0u32; slices.len()];
    // Per thread, per lane: the slices open there, innermost last.
    let mut open: BTreeMap<(u64, u64), Vec<Vec<&Slice>>> = BTreeMap::new();
    for i in order {
        let s = &slices[i];
        let stacks = open.entry((s.pid, s.tid)).or_default();
        let fits = |st: &mut Vec<&Slice>| {
            while st.last().is_some_and(|o| o.ts + o.dur <= s.ts) {
                st.pop();
            }
            st.last().is_none_or(|o| match o.nest {
                Nest::Parent => s.ts + s.dur <= o.ts + o.dur,
                Nest::Leaf => s.nest == Nest::Instant,
                Nest::Bound | Nest::Instant => false,
            })
        };
        let k = match stacks.iter_mut().position(fits) {
            Some(k) => k,
            None => {
                stacks.push(Vec::new());
                stacks.len() - 1
            }
        };
        stacks[k].push(s);
        lanes[i] = k as u32;
    }
    lanes
}

#[cfg(test)]
mod tests {
    use super::super::tests::sample;
    use super::super::{write_chrome, Place, Signal, Span, Trace};
    use super::*;

    #[test]
    fn chrome_has_slices_async_copies_and_flows() {
        let doc: Value = serde_json::from_str(&write_chrome(&sample(), &[])).unwrap();
        let evs = doc["traceEvents"].as_array().unwrap();
        let phases: Vec<&str> = evs.iter().map(|e| e["ph"].as_str().unwrap()).collect();
        for ph in ["M", "X", "b", "e", "s", "f"] {
            assert!(phases.contains(&ph), "{ph} missing: {phases:?}");
        }
        // No pid or tid 0 outside metadata; the copy is process-scoped.
        for e in evs.iter().filter(|e| e["ph"] != "M") {
            assert!(
                e["pid"].as_u64() > Some(0) && e["tid"].as_u64() > Some(0),
                "{e}"
            );
        }
        let b = evs.iter().find(|e| e["ph"] == "b").unwrap();
        assert_eq!(b["id2"], json!({"local": 0}));
        // The flow ends where the wait starts, on the waiting warp's track.
        let f = evs.iter().find(|e| e["ph"] == "f").unwrap();
        assert_eq!(
            (&f["ts"], &f["tid"], &f["bp"]),
            (&json!(5), &json!(1), &json!("e"))
        );
    }

    fn ev(cycle: u64, warp: u32, what: What) -> Event {
        Event {
            cycle,
            cta: [0, 0, 0],
            warp: Some(warp),
            lanes: 1,
            line: 1,
            cuda: None,
            what,
        }
    }

    fn wait(cycle: u64, since: u64, observed: Vec<u32>) -> Event {
        let what = "bar".into();
        let result = true;
        ev(
            cycle,
            0,
            What::Wait {
                what,
                since,
                observed,
                result,
            },
        )
    }

    /// (ph, tid, ts) of the events that are not metadata.
    fn layout(t: &Trace) -> Vec<(String, u64, u64)> {
        let doc: Value = serde_json::from_str(&write_chrome(t, &[])).unwrap();
        let evs = doc["traceEvents"].as_array().unwrap().iter();
        evs.filter(|e| e["ph"] != "M")
            .map(|e| {
                (
                    e["ph"].as_str().unwrap().into(),
                    e["tid"].as_u64().unwrap(),
                    e["ts"].as_u64().unwrap(),
                )
            })
            .collect()
    }

    #[test]
    fn crossing_waits_of_one_warp_go_to_an_extra_track() {
        let mut t = Trace::new(true, false);
        t.push(wait(20, 10, vec![]));
        t.push(wait(30, 15, vec![]));
        t.push(wait(18, 16, vec![]));
        // [10, 20) stays; [15, 30) crosses it; [16, 18) would nest in it, but waits are leaves.
        let x = |tid, ts| ("X".to_string(), tid, ts);
        assert_eq!(
            layout(&t),
            [x(1, 10), x(1 + LANE_TID, 15), x(1 + 2 * LANE_TID, 16)]
        );
    }

    #[test]
    fn a_wait_that_started_before_the_issue_it_observed_keeps_the_flow_end() {
        let mut t = Trace::new(true, false);
        t.push(ev(
            4,
            0,
            What::Fence {
                kind: "fence".into(),
            },
        ));
        let (src, dst) = (Span::one(Place::Address(0)), Span::one(Place::Shared(0)));
        let (op, kind, bytes, completion) = (0, crate::ir::Op::CpAsync, 16, Signal::Group);
        t.push(ev(
            6,
            1,
            What::Issue {
                op,
                kind,
                bytes,
                src,
                dst,
                completion,
            },
        ));
        t.push(wait(12, 2, vec![0]));
        // The flow ends at the issue's cycle inside the wait [2, 12) of warp 0, which nothing
        // else may sit on: the fence of another lane group at cycle 4 goes to an extra track.
        let e = |ph: &str, tid, ts| (ph.to_string(), tid, ts);
        assert_eq!(
            layout(&t),
            [
                e("X", 2, 6),
                e("X", 1, 2),
                e("s", 2, 6),
                e("f", 1, 6),
                e("b", ENGINE_TID, 6),
                e("i", 1 + LANE_TID, 4)
            ]
        );
    }
}
