//! Traces of a run (`--trace FILE`): what every warp and every copy engine did, on the virtual
//! clock. Earlier stages record [`Event`]s (plain data: cycles, ids, PTX lines, strings); this
//! module only stores and writes them, as JSON Lines (`jsonl`, one event per line) or as the
//! Trace Event Format of chrome://tracing and Perfetto (`chrome`): one process per CTA, one
//! track per warp plus one for the CTA's copy engine, each asynchronous operation a slice from
//! issue to completion, and flow arrows from the instruction that issued an operation to each
//! wait that observed its completion. Times in the chrome format are cycles written as
//! microseconds (1 us on the timeline = 1 cycle). The same launch and seed give the same bytes.

use serde_json::{json, Map, Value};
use std::collections::BTreeMap;
use std::fmt::Write as _;

/// A recorded run.
#[derive(Debug, Default, Clone)]
pub struct Trace {
    pub enabled: bool,
    /// Record every executed instruction too (`--trace-instructions`).
    pub instructions: bool,
    pub events: Vec<Event>,
}

#[derive(Debug, Clone, PartialEq)]
pub struct Event {
    pub cycle: u64,
    pub cta: [u32; 3],
    /// The warp, or `None` for the CTA's copy engine.
    pub warp: Option<u32>,
    pub lanes: u32,
    /// PTX line (0 when none) and the CUDA `.loc` (file index, line) in force.
    pub line: u32,
    pub cuda: Option<(u32, u32)>,
    pub what: What,
}

#[derive(Debug, Clone, PartialEq)]
pub enum What {
    WarpStart,
    WarpExit,
    Instr {
        text: String,
    },
    /// An asynchronous operation was issued; it completes at `complete_at` unless the machine
    /// jumps (adversarial schedules complete when everyone waits).
    Issue {
        op: u32,
        kind: String,
        bytes: u64,
        src: String,
        dst: String,
        completion: String,
    },
    Read {
        op: u32,
    },
    Land {
        op: u32,
        piece: u32,
        bytes: u32,
    },
    Complete {
        op: u32,
    },
    Commit {
        bulk: bool,
        ops: Vec<u32>,
    },
    /// A wait that finished: `since` is when the group started waiting; `observed` the
    /// operations whose completion it observed.
    Wait {
        what: String,
        since: u64,
        observed: Vec<u32>,
        result: bool,
    },
    Mbarrier {
        action: &'static str,
        addr: String,
        count: i64,
        phase: u32,
        pending: u32,
        tx: i64,
        op: Option<u32>,
    },
    Barrier {
        action: &'static str,
        id: u32,
    },
    Fence {
        kind: String,
    },
}

impl What {
    pub fn name(&self) -> &'static str {
        match self {
            What::WarpStart => "warp-start",
            What::WarpExit => "warp-exit",
            What::Instr { .. } => "instruction",
            What::Issue { .. } => "async-issue",
            What::Read { .. } => "async-read",
            What::Land { .. } => "async-land",
            What::Complete { .. } => "async-complete",
            What::Commit { .. } => "commit-group",
            What::Wait { .. } => "wait",
            What::Mbarrier { .. } => "mbarrier",
            What::Barrier { .. } => "barrier",
            What::Fence { .. } => "fence",
        }
    }
}

impl Trace {
    pub fn new(enabled: bool, instructions: bool) -> Self {
        Trace {
            enabled,
            instructions: enabled && instructions,
            events: Vec::new(),
        }
    }

    pub fn push(&mut self, e: Event) {
        if self.enabled {
            self.events.push(e);
        }
    }
}

/// File names of `.file` indices, to write CUDA lines as `file:line`.
pub type Files<'a> = &'a [(u32, String)];

fn cuda_str(files: Files<'_>, c: Option<(u32, u32)>) -> Value {
    match c {
        Some((f, l)) => {
            let name = files
                .iter()
                .find(|(i, _)| *i == f)
                .map_or("?", |(_, n)| n.as_str());
            Value::String(format!("{name}:{l}"))
        }
        None => Value::Null,
    }
}

fn fields(w: &What) -> Map<String, Value> {
    let v = match w {
        What::WarpStart | What::WarpExit => json!({}),
        What::Instr { text } => json!({ "text": text }),
        What::Issue {
            op,
            kind,
            bytes,
            src,
            dst,
            completion,
        } => {
            json!({ "op": op, "kind": kind, "bytes": bytes, "src": src, "dst": dst, "completion": completion })
        }
        What::Read { op } | What::Complete { op } => json!({ "op": op }),
        What::Land { op, piece, bytes } => json!({ "op": op, "piece": piece, "bytes": bytes }),
        What::Commit { bulk, ops } => json!({ "bulk": bulk, "ops": ops }),
        What::Wait {
            what,
            since,
            observed,
            result,
        } => json!({ "what": what, "since": since, "observed": observed, "result": result }),
        What::Mbarrier {
            action,
            addr,
            count,
            phase,
            pending,
            tx,
            op,
        } => json!({ "action": action, "addr": addr, "count": count, "phase": phase,
                     "pending": pending, "tx_count": tx, "op": op }),
        What::Barrier { action, id } => json!({ "action": action, "id": id }),
        What::Fence { kind } => json!({ "kind": kind }),
    };
    match v {
        Value::Object(m) => m,
        _ => Map::new(),
    }
}

/// One JSON object per line.
pub fn write_jsonl(t: &Trace, files: Files<'_>) -> String {
    let mut out = String::new();
    for e in &t.events {
        let mut m = Map::new();
        m.insert("cycle".into(), json!(e.cycle));
        m.insert("event".into(), json!(e.what.name()));
        m.insert("cta".into(), json!(e.cta));
        m.insert("warp".into(), json!(e.warp));
        m.insert("lanes".into(), json!(format!("{:#010x}", e.lanes)));
        m.insert("line".into(), json!(e.line));
        m.insert("cuda".into(), cuda_str(files, e.cuda));
        m.extend(fields(&e.what));
        let _ = writeln!(out, "{}", Value::Object(m));
    }
    out
}

/// The copy engine's track in each CTA's process.
const ENGINE_TID: u64 = 1_000_000;

/// Trace Event Format (JSON object with `traceEvents`).
pub fn write_chrome(t: &Trace, files: Files<'_>) -> String {
    let mut ctas: BTreeMap<[u32; 3], u64> = BTreeMap::new();
    for e in &t.events {
        let n = ctas.len() as u64;
        ctas.entry(e.cta).or_insert(n);
    }
    let pid = |c: &[u32; 3]| ctas.get(c).copied().unwrap_or(0);
    let mut out: Vec<Value> = Vec::new();
    let mut warps: BTreeMap<(u64, u32), (u64, u64)> = BTreeMap::new();
    for (c, p) in &ctas {
        out.push(
            json!({"ph": "M", "name": "process_name", "pid": p, "tid": 0,
                        "args": {"name": format!("CTA [{}, {}, {}]", c[0], c[1], c[2])}}),
        );
        out.push(json!({"ph": "M", "name": "process_sort_index", "pid": p, "tid": 0, "args": {"sort_index": p}}));
        out.push(
            json!({"ph": "M", "name": "thread_name", "pid": p, "tid": ENGINE_TID,
                        "args": {"name": "copy engine"}}),
        );
    }
    // Issue slices, to start flows from; and every op's observers.
    let mut issue_at: BTreeMap<u32, (u64, u64, u64)> = BTreeMap::new();
    let mut kinds: BTreeMap<u32, String> = BTreeMap::new();
    let mut flow = 0u64;
    for e in &t.events {
        let p = pid(&e.cta);
        let tid = e.warp.map_or(ENGINE_TID, u64::from);
        let mut args = fields(&e.what);
        args.insert("line".into(), json!(e.line));
        args.insert("lanes".into(), json!(format!("{:#010x}", e.lanes)));
        if let Some(c) = e.cuda {
            args.insert("cuda".into(), cuda_str(files, Some(c)));
        }
        match &e.what {
            What::WarpStart => {
                if let Some(w) = e.warp {
                    warps.insert((p, w), (e.cycle, e.cycle));
                }
            }
            What::WarpExit => {
                if let Some(w) = e.warp {
                    if let Some(s) = warps.get_mut(&(p, w)) {
                        s.1 = e.cycle;
                    }
                }
            }
            What::Issue { op, kind, .. } => {
                issue_at.insert(*op, (p, tid, e.cycle));
                kinds.insert(*op, kind.clone());
                out.push(
                    json!({"ph": "X", "name": kind, "cat": "issue", "pid": p, "tid": tid,
                                "ts": e.cycle, "dur": 1, "args": args}),
                );
                out.push(
                    json!({"ph": "b", "name": kind, "cat": "copy", "id": op, "pid": p,
                                "tid": ENGINE_TID, "ts": e.cycle, "args": {"op": op}}),
                );
            }
            What::Complete { op } => {
                let name = kinds.get(op).cloned().unwrap_or_default();
                out.push(
                    json!({"ph": "e", "name": name, "cat": "copy", "id": op, "pid": p,
                                "tid": ENGINE_TID, "ts": e.cycle}),
                );
            }
            What::Wait {
                what,
                since,
                observed,
                ..
            } => {
                let dur = e.cycle.saturating_sub(*since).max(1);
                out.push(
                    json!({"ph": "X", "name": format!("wait {what}"), "cat": "wait", "pid": p,
                                "tid": tid, "ts": since, "dur": dur, "args": args}),
                );
                for op in observed {
                    if let Some(&(ip, itid, its)) = issue_at.get(op) {
                        flow += 1;
                        out.push(
                            json!({"ph": "s", "name": "completion", "cat": "flow", "id": flow,
                                        "pid": ip, "tid": itid, "ts": its}),
                        );
                        out.push(
                            json!({"ph": "f", "bp": "e", "name": "completion", "cat": "flow",
                                        "id": flow, "pid": p, "tid": tid, "ts": since + dur - 1}),
                        );
                    }
                }
            }
            What::Instr { text } => {
                out.push(
                    json!({"ph": "X", "name": text, "cat": "instruction", "pid": p, "tid": tid,
                                "ts": e.cycle, "dur": 1, "args": args}),
                );
            }
            other => {
                let name = match other {
                    What::Mbarrier { action, .. } => format!("mbarrier.{action}"),
                    What::Barrier { action, .. } => format!("barrier {action}"),
                    What::Fence { kind } => kind.clone(),
                    What::Commit { bulk: true, .. } => "bulk commit_group".into(),
                    What::Commit { .. } => "commit_group".into(),
                    o => o.name().into(),
                };
                out.push(
                    json!({"ph": "i", "s": "t", "name": name, "cat": other.name(), "pid": p,
                                "tid": tid, "ts": e.cycle, "args": args}),
                );
            }
        }
    }
    for ((p, w), (start, end)) in &warps {
        out.push(json!({"ph": "M", "name": "thread_name", "pid": p, "tid": w,
                        "args": {"name": format!("warp {w}")}}));
        out.push(
            json!({"ph": "X", "name": format!("warp {w}"), "cat": "warp", "pid": p, "tid": w,
                        "ts": start, "dur": end.saturating_sub(*start).max(1)}),
        );
    }
    let doc = json!({
        "traceEvents": out,
        "displayTimeUnit": "ns",
        "otherData": {"producer": "ptxrun", "clock": "1 us on the timeline = 1 virtual cycle"},
    });
    format!("{doc}\n")
}

#[cfg(test)]
mod tests {
    use super::*;

    fn ev(cycle: u64, warp: Option<u32>, what: What) -> Event {
        Event {
            cycle,
            cta: [0, 0, 0],
            warp,
            lanes: 1,
            line: 7,
            cuda: Some((1, 42)),
            what,
        }
    }

    fn sample() -> Trace {
        let mut t = Trace::new(true, false);
        t.push(ev(0, Some(0), What::WarpStart));
        t.push(ev(
            3,
            Some(0),
            What::Issue {
                op: 0,
                kind: "cp.async".into(),
                bytes: 16,
                src: "x+0x0".into(),
                dst: "shared+0x0".into(),
                completion: "async-group".into(),
            },
        ));
        t.push(ev(9, None, What::Complete { op: 0 }));
        t.push(ev(
            12,
            Some(0),
            What::Wait {
                what: "cp.async.wait_group 0".into(),
                since: 5,
                observed: vec![0],
                result: true,
            },
        ));
        t.push(ev(20, Some(0), What::WarpExit));
        t
    }

    #[test]
    fn jsonl_lines_are_objects() {
        let text = write_jsonl(&sample(), &[(1, "k.cu".into())]);
        let lines: Vec<Value> = text
            .lines()
            .map(|l| serde_json::from_str(l).unwrap())
            .collect();
        assert_eq!(lines.len(), 5);
        assert_eq!(lines[1]["event"], "async-issue");
        assert_eq!(lines[1]["cuda"], "k.cu:42");
        assert_eq!(lines[3]["observed"], json!([0]));
    }

    #[test]
    fn chrome_has_slices_and_flows() {
        let doc: Value = serde_json::from_str(&write_chrome(&sample(), &[])).unwrap();
        let evs = doc["traceEvents"].as_array().unwrap();
        let phases: Vec<&str> = evs.iter().map(|e| e["ph"].as_str().unwrap()).collect();
        for ph in ["M", "X", "b", "e", "s", "f"] {
            assert!(phases.contains(&ph), "{ph} missing: {phases:?}");
        }
        assert!(!Trace::new(false, true).instructions);
    }
}
