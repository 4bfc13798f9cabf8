//! Hostile launches end quickly with a message, and memory stays bounded by the launch, not by
//! its running time (issue 18): asynchronous copies left pending, device `malloc` beyond its
//! heap, `printf` beyond its FIFO, large `.local` arrays. Memory bounds are asserted on the
//! counters the run exposes, never on timing.

use ptxrun::exec::FaultKind;
use ptxrun::runner::{run, Finished, Settings};
use std::path::Path;

fn run_with(dir: &str, check: bool) -> Finished {
    let mut s = Settings::for_test(0, "bandwidth");
    s.check = check;
    run(Path::new(dir), &s).unwrap_or_else(|e| panic!("{dir}: {}", e.0))
}

/// A thread that issues `cp.async` in a loop and never commits or waits stops with a
/// `resource-limit` fault naming the instruction, the count and the bound, at once instead of
/// remembering every copy.
#[test]
fn cp_async_never_waited_stops_at_the_pending_bound() {
    for check in [true, false] {
        let r = run_with("tests/run/cp_async_no_wait", check);
        let f = r.outcome.fault.as_ref().expect("a fault");
        assert_eq!(f.kind, FaultKind::Limit, "{}", f.message);
        assert!(
            f.message.starts_with("cp.async: ")
                && f.message.contains("1025 asynchronous operations")
                && f.message.contains("at most 1024 per thread"),
            "{}",
            f.message
        );
        assert_eq!(r.diagnostics().last().unwrap().kind, "resource-limit");
        assert!(r.failed() && !r.unsupported(), "exit code 1");
    }
}

/// A well-behaved cp.async loop (commit, wait_group 0) keeps whole records only of the copies
/// in flight; without the checker nothing of the completed ones, with it a summary each.
#[test]
fn completed_copies_leave_no_records_behind() {
    let ops = 2000 * 2; // iterations x warps: one warp-wide operation each
    let r = run_with("tests/run/cp_async_wait_loop", false);
    assert_eq!(r.status(), "ok");
    let st = r.outcome.stats;
    assert!(st.peak_ops_in_flight <= 2, "{st:?}");
    assert_eq!(st.op_summaries, 0, "{st:?}");
    let checked = run_with("tests/run/cp_async_wait_loop", true);
    assert_eq!(checked.status(), "ok");
    assert_eq!(checked.outcome.stats.op_summaries, ops);
    assert_eq!(checked.buffer("out"), r.buffer("out"));
}

/// cp.async + cp.async.mbarrier.arrive.noinc + a parity wait, never committing: the arrive-on
/// tracks the copies, so no limit is reached, and the sum each thread read is right.
#[test]
fn cp_async_tracked_by_arrive_ons_runs_without_commits() {
    let r = run_with("tests/run/cp_async_arrive_loop", true);
    assert_eq!(r.status(), "ok", "{}", r.human());
    let out = r.buffer("out").unwrap();
    for (t, w) in out.chunks(4).enumerate() {
        let v = u32::from_le_bytes(w.try_into().unwrap());
        assert_eq!(v, 5000 * t as u32, "thread {t}");
    }
    assert!(r.outcome.stats.peak_ops_in_flight <= 2);
}
