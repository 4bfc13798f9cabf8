//! Traces of a run (`--trace FILE`): what every warp and every copy engine did, on the virtual
//! clock. Earlier stages record [`Event`]s (plain data: cycles, ids, PTX lines, opcodes, places
//! as [`Place`]s naming global allocations by an id into the trace's table of names); this
//! module stores them and its writers alone turn them into text, as JSON Lines (`jsonl`, one event per line) or as the
//! Trace Event Format of chrome://tracing and Perfetto (`chrome`, laid out in [`chrome`]): one
//! process per CTA, tracks per warp and one for the CTA's copy engine, each asynchronous
//! operation an async slice from issue to completion, and flow arrows from the instruction that
//! issued an operation to each wait that observed its completion. Times in the chrome format are
//! cycles written as microseconds (1 us on the timeline = 1 cycle). The same launch and seed give
//! the same bytes.

use crate::ir::Op;
use serde_json::{json, Map, Value};
use std::collections::BTreeMap;
use std::io::Write;
use std::sync::{Arc, Mutex};

mod chrome;

/// A recorded run. A run records in segments, one per cluster (its CTAs, warps and operations
/// are its own): a trace given a [`TraceSink`] writes each segment there as it ends and keeps
/// only the running one, so its memory does not grow with the trace; otherwise it keeps every
/// event, for [`write_jsonl`] and [`write_chrome`], which give the same bytes.
#[derive(Debug, Default, Clone)]
pub struct Trace {
    pub enabled: bool,
    /// Record every executed instruction too (`--trace-instructions`).
    pub instructions: bool,
    /// The events held: the running segment's (streaming), or all of them.
    pub events: Vec<Event>,
    /// Where each segment held ends (not streaming).
    ends: Vec<usize>,
    sink: Option<(TraceSink, FileNames)>,
    /// The names of the global allocations events name ([`Place::Global`]), by id.
    allocs: Vec<String>,
    allocs_by_name: BTreeMap<String, u32>,
}

/// The module's `.file` names, for CUDA lines in a streamed trace.
type FileNames = Arc<[(u32, String)]>;

/// Where a trace is written as it is made (`--trace FILE`): JSON Lines or the chrome format.
/// Clones write to the same place. A write that fails stops the writing; [`TraceSink::error`]
/// says why.
#[derive(Clone)]
pub struct TraceSink {
    writer: Arc<Mutex<Writer>>,
    /// The chrome format (else JSON Lines); also in the writer, read here without its lock.
    chrome: bool,
}

impl std::fmt::Debug for TraceSink {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str("TraceSink")
    }
}

struct Writer {
    out: Box<dyn Write + Send>,
    format: Format,
    error: Option<String>,
}

/// A trace's format and what it has written so far.
struct Format {
    chrome: bool,
    started: bool,
    /// Events written (chrome: to separate them).
    written: u64,
    layout: chrome::Layout,
}

impl Format {
    fn new(chrome: bool) -> Self {
        Format {
            chrome,
            started: false,
            written: 0,
            layout: chrome::Layout::default(),
        }
    }

    /// Writes what the trace starts with, once.
    fn start(&mut self, out: &mut dyn Write) -> std::io::Result<()> {
        if !self.started {
            self.started = true;
            if self.chrome {
                out.write_all(chrome::header().as_bytes())?;
            }
        }
        Ok(())
    }

    /// Writes one segment's events.
    fn segment(
        &mut self,
        out: &mut dyn Write,
        events: &[Event],
        names: Names<'_>,
    ) -> std::io::Result<()> {
        self.start(out)?;
        if self.chrome {
            let written = &mut self.written;
            chrome::segment(events, names, &mut self.layout, &mut |v| {
                if *written > 0 {
                    out.write_all(b",")?;
                }
                *written += 1;
                serde_json::to_writer(&mut *out, v).map_err(std::io::Error::from)
            })?;
        } else {
            for e in events {
                serde_json::to_writer(&mut *out, &jsonl_line(e, names))?;
                out.write_all(b"\n")?;
                self.written += 1;
            }
        }
        Ok(())
    }

    /// Ends the trace.
    fn close(&mut self, out: &mut dyn Write) -> std::io::Result<()> {
        self.start(out)?;
        if self.chrome {
            out.write_all(chrome::FOOTER.as_bytes())?;
        }
        out.flush()
    }
}

/// Events of a streamed JSON Lines trace held before they are written.
const LINES_HELD: usize = 4096;

impl TraceSink {
    /// A sink writing to `out` in the chrome format (`chrome`) or as JSON Lines.
    pub fn new(out: impl Write + Send + 'static, chrome: bool) -> Self {
        TraceSink {
            writer: Arc::new(Mutex::new(Writer {
                out: Box::new(std::io::BufWriter::new(out)),
                format: Format::new(chrome),
                error: None,
            })),
            chrome,
        }
    }

    /// Why writing stopped, if it did.
    pub fn error(&self) -> Option<String> {
        self.writer.lock().ok().and_then(|w| w.error.clone())
    }

    fn with(&self, f: impl FnOnce(&mut Format, &mut dyn Write) -> std::io::Result<()>) {
        let Ok(mut w) = self.writer.lock() else {
            return;
        };
        let Writer { out, format, error } = &mut *w;
        if error.is_none() {
            if let Err(e) = f(format, out.as_mut()) {
                *error = Some(e.to_string());
            }
        }
    }
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
        /// The instruction that issued it.
        kind: Op,
        bytes: u64,
        src: Span,
        dst: Span,
        completion: Signal,
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
        addr: Place,
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

/// A place an event names: one end of an asynchronous operation's bytes, or an mbarrier. Only
/// the writers turn it into text (`place_text`), relative to the CTA of the event.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Place {
    /// `off` bytes into (or just past) the global allocation whose name has id `name` in the
    /// trace's table ([`Trace::alloc_id`]): `NAME+0xOFF`.
    Global { name: u32, off: u64 },
    /// A global address in no allocation: `global 0xADDR`.
    Address(u64),
    /// Shared memory of the event's CTA: `shared+0xOFF`.
    Shared(u64),
    /// Shared memory of another CTA of the cluster: `shared+0xOFF of CTA rank R`.
    Peer { rank: u32, off: u64 },
    /// The same, as the mbarrier instructions' events spell it: `ctaR+0xOFF`.
    PeerMbarrier { rank: u32, off: u64 },
    /// No source: the staging bytes were pre-filled (`fill`).
    Fill,
    /// A `wgmma`'s accumulator registers.
    Accumulators,
}

/// The bytes an operation reads or writes, by the first and the last of its places (`last` is
/// `None` when they are the same place): `FIRST .. LAST`.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Span {
    pub first: Place,
    pub last: Option<Place>,
}

impl Span {
    pub fn one(p: Place) -> Span {
        Span {
            first: p,
            last: None,
        }
    }
}

/// How an operation signals its completion.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Signal {
    /// The issuing thread's async-group (`async-group`).
    Group,
    /// The issuing warp's wgmma-group (`wgmma-group`).
    WgmmaGroup,
    /// complete-tx of these bytes on these mbarriers.
    CompleteTx(Vec<(Place, u64)>),
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
            ..Trace::default()
        }
    }

    /// The id of the global allocation named `name` in the trace's table of names, for
    /// [`Place::Global`].
    pub fn alloc_id(&mut self, name: &str) -> u32 {
        if let Some(&id) = self.allocs_by_name.get(name) {
            return id;
        }
        let id = self.allocs.len() as u32;
        self.allocs.push(name.to_string());
        self.allocs_by_name.insert(name.to_string(), id);
        id
    }

    /// Writes each segment to `sink` as it ends (`files`: the module's `.file` names).
    pub fn stream_to(&mut self, sink: TraceSink, files: &[(u32, String)]) {
        self.sink = Some((sink, files.into()));
    }

    pub fn push(&mut self, e: Event) {
        if self.enabled {
            self.events.push(e);
            // JSON Lines need no layout: they are written a few thousand at a time.
            if self.events.len() >= LINES_HELD && self.sink.as_ref().is_some_and(|s| !s.0.chrome) {
                self.end_segment();
            }
        }
    }

    /// The running segment ends (a cluster finished): it is written out when streaming.
    pub fn end_segment(&mut self) {
        match &self.sink {
            Some((sink, files)) => {
                if !self.events.is_empty() {
                    let names = Names {
                        files,
                        allocs: &self.allocs,
                    };
                    sink.with(|f, out| f.segment(out, &self.events, names));
                    self.events.clear();
                }
            }
            None => {
                if self.ends.last().copied().unwrap_or(0) < self.events.len() {
                    self.ends.push(self.events.len());
                }
            }
        }
    }

    /// The run ended: the last segment and the end of the trace are written when streaming.
    pub fn close(&mut self) {
        self.end_segment();
        if let Some((sink, _)) = self.sink.take() {
            sink.with(|f, out| f.close(out));
        }
    }

    /// The segments held, in order.
    fn segments(&self) -> impl Iterator<Item = &[Event]> + '_ {
        let ends = self.ends.iter().copied().filter(|&e| e < self.events.len());
        let ends = ends.chain(std::iter::once(self.events.len()));
        let mut start = 0;
        ends.map(move |end| {
            let seg = &self.events[start..end.max(start)];
            start = end.max(start);
            seg
        })
    }

    /// The events held, written in one format.
    fn write(&self, chrome: bool, files: Files<'_>) -> String {
        let mut out: Vec<u8> = Vec::new();
        let mut f = Format::new(chrome);
        let names = Names {
            files,
            allocs: &self.allocs,
        };
        for seg in self.segments() {
            let _ = f.segment(&mut out, seg, names);
        }
        let _ = f.close(&mut out);
        String::from_utf8(out).unwrap_or_default()
    }
}

/// Trace Event Format (JSON object with `traceEvents`).
pub fn write_chrome(t: &Trace, files: Files<'_>) -> String {
    t.write(true, files)
}

/// File names of `.file` indices, to write CUDA lines as `file:line`.
pub type Files<'a> = &'a [(u32, String)];

/// What the writers turn the ids in events into text with: the module's `.file` names and the
/// trace's table of global allocations' names.
#[derive(Clone, Copy)]
struct Names<'a> {
    files: Files<'a>,
    allocs: &'a [String],
}

/// A place as text, in an event of a CTA.
fn place_text(p: Place, allocs: &[String]) -> String {
    match p {
        Place::Global { name, off } => {
            let name = allocs.get(name as usize).map_or("?", String::as_str);
            format!("{name}+{off:#x}")
        }
        Place::Address(a) => format!("global {a:#x}"),
        Place::Shared(off) => format!("shared+{off:#x}"),
        Place::Peer { rank, off } => format!("shared+{off:#x} of CTA rank {rank}"),
        Place::PeerMbarrier { rank, off } => format!("cta{rank}+{off:#x}"),
        Place::Fill => "fill".into(),
        Place::Accumulators => "accumulator registers".into(),
    }
}

fn span_text(s: Span, allocs: &[String]) -> String {
    match s.last {
        Some(last) => format!(
            "{} .. {}",
            place_text(s.first, allocs),
            place_text(last, allocs)
        ),
        None => place_text(s.first, allocs),
    }
}

fn signal_text(s: &Signal, allocs: &[String]) -> String {
    match s {
        Signal::Group => "async-group".into(),
        Signal::WgmmaGroup => "wgmma-group".into(),
        Signal::CompleteTx(t) => t
            .iter()
            .map(|&(at, bytes)| {
                let at = place_text(at, allocs);
                format!("complete-tx {bytes} bytes on the mbarrier at {at}")
            })
            .collect::<Vec<_>>()
            .join(", "),
    }
}

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

fn fields(w: &What, allocs: &[String]) -> Map<String, Value> {
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
            let (src, dst) = (span_text(*src, allocs), span_text(*dst, allocs));
            let completion = signal_text(completion, allocs);
            json!({ "op": op, "kind": kind.name(), "bytes": bytes, "src": src, "dst": dst, "completion": completion })
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
        } => {
            json!({ "action": action, "addr": place_text(*addr, allocs), "count": count, "phase": phase,
                     "pending": pending, "tx_count": tx, "op": op })
        }
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
    t.write(false, files)
}

/// An event as a line of JSON Lines.
fn jsonl_line(e: &Event, names: Names<'_>) -> Value {
    {
        let mut m = Map::new();
        m.insert("cycle".into(), json!(e.cycle));
        m.insert("event".into(), json!(e.what.name()));
        m.insert("cta".into(), json!(e.cta));
        m.insert("warp".into(), json!(e.warp));
        m.insert("lanes".into(), json!(format!("{:#010x}", e.lanes)));
        m.insert("line".into(), json!(e.line));
        m.insert("cuda".into(), cuda_str(names.files, e.cuda));
        m.extend(fields(&e.what, names.allocs));
        Value::Object(m)
    }
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
        let x = t.alloc_id("x");
        t.push(ev(0, Some(0), What::WarpStart));
        t.push(ev(
            3,
            Some(0),
            What::Issue {
                op: 0,
                kind: Op::CpAsync,
                bytes: 16,
                src: Span::one(Place::Global { name: x, off: 0 }),
                dst: Span::one(Place::Shared(0)),
                completion: Signal::Group,
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
        assert_eq!(
            (&lines[1]["kind"], &lines[1]["src"], &lines[1]["dst"]),
            (&json!("cp.async"), &json!("x+0x0"), &json!("shared+0x0"))
        );
        assert_eq!(lines[1]["completion"], "async-group");
        assert_eq!(lines[3]["observed"], json!([0]));
        assert!(!Trace::new(false, true).instructions);
    }

    #[test]
    fn a_streamed_trace_holds_a_bounded_number_of_events() {
        let buf = std::sync::Arc::new(Mutex::new(0usize));
        struct Count(std::sync::Arc<Mutex<usize>>);
        impl Write for Count {
            fn write(&mut self, b: &[u8]) -> std::io::Result<usize> {
                *self.0.lock().unwrap() += b.len();
                Ok(b.len())
            }
            fn flush(&mut self) -> std::io::Result<()> {
                Ok(())
            }
        }
        for chrome in [false, true] {
            let mut t = Trace::new(true, true);
            t.stream_to(TraceSink::new(Count(buf.clone()), chrome), &[]);
            for k in 0..20_000 {
                t.push(ev(k, Some(0), What::Instr { text: "add".into() }));
                assert!(
                    chrome || t.events.len() < LINES_HELD,
                    "JSON Lines go out as they come"
                );
                if k % 1000 == 999 {
                    t.end_segment();
                    assert!(t.events.is_empty(), "a segment is written when it ends");
                }
            }
            t.close();
        }
        assert!(*buf.lock().unwrap() > 20_000 * 100);
    }
}
