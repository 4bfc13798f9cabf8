//! Traces of a run (`--trace FILE`): what every warp and every copy engine did, on the virtual
//! clock. Earlier stages record [`Event`]s (plain data: cycles, ids, PTX lines, strings); this
//! module only stores and writes them, as JSON Lines (`jsonl`, one event per line) or as the
//! Trace Event Format of chrome://tracing and Perfetto (`chrome`, laid out in [`chrome`]): one
//! process per CTA, tracks per warp and one for the CTA's copy engine, each asynchronous
//! operation an async slice from issue to completion, and flow arrows from the instruction that
//! issued an operation to each wait that observed its completion. Times in the chrome format are
//! cycles written as microseconds (1 us on the timeline = 1 cycle). The same launch and seed give
//! the same bytes.

use serde_json::{json, Map, Value};
use std::fmt::Write as _;

mod chrome;
pub use chrome::write_chrome;

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

    pub(super) fn sample() -> Trace {
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
        assert!(!Trace::new(false, true).instructions);
    }
}
