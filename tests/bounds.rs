//! Hostile launches end quickly with a message, and memory stays bounded by the launch, not by
//! its running time (issue 18): asynchronous copies left pending, device `malloc` beyond its
//! heap, `printf` beyond its FIFO, large `.local` arrays. Memory bounds are asserted on the
//! counters the run exposes, never on timing.

use ptxrun::api::FaultKind;
use ptxrun::api::{Report, RunOptions};
use ptxrun::launchfile::{prepare, run, Finished, Settings};
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

/// Runs a launch file under `opts`.
fn run_opts(dir: &str, opts: &RunOptions) -> Report {
    let p = prepare(Path::new(dir), &Settings::for_test(0, "bandwidth"))
        .unwrap_or_else(|e| panic!("{dir}: {}", e.0));
    p.report(p.execute(opts).unwrap())
}

/// Allocations a run of `malloc_heap` made, in all threads.
fn allocations(r: &Report) -> u32 {
    r.buffer("out")
        .unwrap()
        .chunks(4)
        .map(|w| u32::from_le_bytes(w.try_into().unwrap()))
        .sum()
}

/// Device malloc hands out CUDA's default heap (8 MiB) and then returns NULL, as CUDA does;
/// the heap's size is a run option.
#[test]
fn device_malloc_returns_null_beyond_the_heap() {
    let r = run_opts("tests/run/malloc_heap", &RunOptions::default());
    assert_eq!(r.status(), "ok");
    assert_eq!(allocations(&r), 8, "8 blocks of 1 MiB");
    let small = RunOptions {
        malloc_heap_bytes: 3 << 20,
        ..RunOptions::default()
    };
    assert_eq!(allocations(&run_opts("tests/run/malloc_heap", &small)), 3);
}

/// printf output beyond CUDA's 1 MiB FIFO is dropped from the first call that does not fit,
/// the same with any number of threads, and the report says how much.
#[test]
fn printf_output_beyond_the_fifo_is_dropped_and_counted() {
    let total = 64 * 300 * 64u64;
    for jobs in [1, 2] {
        let opts = RunOptions {
            jobs,
            ..RunOptions::default()
        };
        let r = run_opts("tests/run/printf_fifo", &opts);
        assert_eq!(r.status(), "ok");
        let kept = r.stdout().len() as u64;
        assert_eq!(kept, 1 << 20, "16384 whole lines");
        let t = r.outcome.printf_truncated.expect("truncated");
        assert_eq!(t.fifo_bytes, 1 << 20);
        assert_eq!(t.dropped_bytes, total - kept);
        assert!(
            r.human()
                .contains("note: printf output truncated at 1 MiB (180224 bytes dropped)"),
            "{}",
            r.human()
        );
    }
    let small = RunOptions {
        printf_fifo_bytes: 100,
        ..RunOptions::default()
    };
    let r = run_opts("tests/run/printf_fifo", &small);
    assert_eq!(r.stdout().len(), 64, "one whole line fits");
    assert_eq!(
        r.outcome.printf_truncated.unwrap().dropped_bytes,
        total - 64
    );
}

/// Local memory exists only where a thread wrote it: a 16-CTA cluster of 1024 threads with
/// 512 KiB of `.local` each (8 GiB) makes two 4 KiB pages per thread, and a word never written
/// reads as zero.
#[test]
fn local_memory_is_made_on_first_write() {
    let r = run_with("tests/run/local_lazy", true);
    assert_eq!(r.status(), "ok");
    assert_eq!(r.outcome.stats.peak_local_bytes, 16 * 1024 * 2 * 4096);
    for (i, w) in r.buffer("out").unwrap().chunks(4).enumerate() {
        let tid = (i % 1024) as u32;
        assert_eq!(u32::from_le_bytes(w.try_into().unwrap()), 2 * tid);
    }
}
