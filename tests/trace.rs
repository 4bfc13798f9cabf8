//! Golden traces: a small kernel (a cp.async group and a bulk copy on an mbarrier) traced under a
//! fixed latency, in both formats. The same launch and seed give byte-identical traces, and the
//! chrome format is a Trace Event document Perfetto can open (slices, async copies, flows);
//! python/tests/test_perfetto.py loads such traces into Perfetto's own trace processor.

use ptxrun::launchfile::{run, Settings};
use serde_json::Value;
use std::path::Path;

fn traced(latency: &str, seed: u64, chrome: bool) -> String {
    let mut s = Settings::for_test(seed, latency);
    s.trace = true;
    let done = run(Path::new("tests/run/trace_small"), &s).expect("runs");
    assert_eq!(done.status(), "ok", "{}", done.human());
    done.trace_text(chrome)
}

#[test]
fn jsonl_trace_is_golden() {
    insta::assert_snapshot!("trace_small_jsonl", traced("fixed:100", 0, false));
}

#[test]
fn chrome_trace_is_golden() {
    let doc: Value = serde_json::from_str(&traced("fixed:100", 0, true)).expect("valid JSON");
    insta::assert_snapshot!(
        "trace_small_chrome",
        serde_json::to_string_pretty(&doc).unwrap()
    );
}

#[test]
fn traces_are_deterministic_under_every_model() {
    for model in ptxrun::api::STANDARD_LATENCIES {
        for chrome in [false, true] {
            let a = traced(model, 5, chrome);
            assert_eq!(a, traced(model, 5, chrome), "{model}");
        }
    }
}

#[test]
fn chrome_trace_has_tracks_slices_and_flows() {
    let doc: Value = serde_json::from_str(&traced("bandwidth", 0, true)).unwrap();
    let evs = doc["traceEvents"].as_array().unwrap();
    let names: Vec<&str> = evs
        .iter()
        .filter(|e| e["ph"] == "M" && e["name"] == "thread_name")
        .map(|e| e["args"]["name"].as_str().unwrap())
        .collect();
    assert!(
        names.contains(&"copy engine") && names.contains(&"warp 0"),
        "{names:?}"
    );
    let count = |ph: &str| evs.iter().filter(|e| e["ph"] == ph).count();
    // Two operations: each an async slice from issue (b) to completion (e) in the CTA's process
    // (a process-scoped id: Perfetto puts a plain "id" on global tracks).
    assert_eq!((count("b"), count("e")), (2, 2));
    // Each observed by one wait: an arrow from the issuing instruction to the wait.
    assert_eq!((count("s"), count("f")), (2, 2));
    for e in evs.iter().filter(|e| e["ph"] == "b" || e["ph"] == "e") {
        assert!(e["id2"]["local"].is_number() && e["ts"].is_number() && e.get("id").is_none());
    }
}

#[test]
fn jsonl_lines_name_ptx_lines() {
    let text = traced("immediate", 0, false);
    let events: Vec<Value> = text
        .lines()
        .map(|l| serde_json::from_str(l).unwrap())
        .collect();
    let issue = events
        .iter()
        .find(|e| e["event"] == "async-issue" && e["kind"] == "cp.async.bulk")
        .expect("bulk issue");
    assert_eq!(issue["line"], 40);
    assert!(events
        .iter()
        .any(|e| e["event"] == "mbarrier" && e["action"] == "phase-complete"));
}

/// A `Write` whose bytes the test reads afterwards.
#[derive(Clone, Default)]
struct Shared(std::sync::Arc<std::sync::Mutex<Vec<u8>>>);

impl std::io::Write for Shared {
    fn write(&mut self, b: &[u8]) -> std::io::Result<usize> {
        self.0.lock().unwrap().extend_from_slice(b);
        Ok(b.len())
    }
    fn flush(&mut self) -> std::io::Result<()> {
        Ok(())
    }
}

/// A trace written as the run makes it (`--trace FILE`: one segment per cluster, the run holding
/// only the running one) has the bytes of the trace kept whole in memory, in both formats, on
/// launches of many clusters (the ring of 2-CTA clusters, and 64 CTAs of cp.async pipelines).
#[test]
fn streamed_traces_are_the_traces_kept_whole() {
    for dir in [
        "ptx-samples/checker/multicast_ring",
        "ptx-samples/bench/sgemm_cpasync",
    ] {
        for chrome in [false, true] {
            let mut s = Settings::for_test(3, "bandwidth");
            s.trace = true;
            let whole = run(Path::new(dir), &s).expect("runs");
            let kept = whole.trace_text(chrome);
            let buf = Shared::default();
            s.trace_to = Some(ptxrun::api::TraceSink::new(buf.clone(), chrome));
            let streamed = run(Path::new(dir), &s).expect("runs");
            assert!(
                streamed.outcome.trace.events.is_empty(),
                "{dir}: nothing held"
            );
            let bytes = buf.0.lock().unwrap().clone();
            assert!(kept.len() > 10_000, "{dir}: a real trace");
            assert!(
                String::from_utf8(bytes).unwrap() == kept,
                "{dir} chrome={chrome}"
            );
            if chrome {
                serde_json::from_str::<Value>(&kept).expect("valid JSON");
            }
        }
    }
}
