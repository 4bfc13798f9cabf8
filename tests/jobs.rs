//! `--jobs`: running clusters on several threads never changes a result. Every launch in the
//! repository runs with one thread and with three, under two schedules, and must give the same
//! report, output text and buffers byte for byte; launches whose clusters do not interact must
//! really have run in parallel, and those whose CTAs talk through global memory must have fallen
//! back to one thread and still agree.

use ptxrun::launchfile::{find_launches, run, Finished, Settings};
use std::path::{Path, PathBuf};

fn settings(seed: u64, latency: &str, jobs: usize) -> Settings {
    Settings {
        jobs,
        // `tests/run/spin` spins until the step limit.
        max_steps: 1 << 22,
        ..Settings::for_test(seed, latency)
    }
}

/// Everything a user sees of a run, plus every buffer.
fn seen(f: &Finished) -> (String, String, String, Vec<Vec<u8>>) {
    let buffers = f
        .buffers
        .iter()
        .map(|b| f.buffer(&b.0).unwrap_or_default().to_vec())
        .collect();
    (f.json(), f.human(), f.outcome.stdout.clone(), buffers)
}

fn threads(path: &str, jobs: usize) -> usize {
    let f = run(Path::new(path), &settings(0, "bandwidth", jobs)).unwrap();
    f.outcome.threads
}

#[test]
fn every_launch_gives_the_same_result_on_three_threads() {
    // The benchmarks take seconds in a test build; they are compared by `scripts/bench`.
    let launches: Vec<PathBuf> =
        find_launches(&[PathBuf::from("ptx-samples"), PathBuf::from("tests/run")])
            .into_iter()
            .filter(|l| !l.starts_with("ptx-samples/bench"))
            .collect();
    assert!(launches.len() > 80, "found {} launches", launches.len());
    let mut parallel = 0;
    let mut differ = Vec::new();
    for l in &launches {
        for (seed, latency) in [(0, "bandwidth"), (5, "adversarial")] {
            let one = run(l, &settings(seed, latency, 1));
            let three = run(l, &settings(seed, latency, 3));
            match (one, three) {
                (Ok(a), Ok(b)) => {
                    assert_eq!(a.outcome.threads, 1);
                    if b.outcome.threads > 1 {
                        parallel += 1;
                    }
                    if seen(&a) != seen(&b) {
                        differ.push(format!("{} (seed {seed}, {latency})", l.display()));
                    }
                }
                (Err(a), Err(b)) => assert_eq!(a.0, b.0),
                _ => differ.push(format!("{}: only one run was refused", l.display())),
            }
        }
    }
    assert!(differ.is_empty(), "differ:\n{}", differ.join("\n"));
    // Most samples have several independent CTAs; if none ran in parallel, the test proved
    // nothing.
    assert!(parallel > 60, "only {parallel} runs used several threads");
}

#[test]
fn independent_ctas_run_in_parallel() {
    assert_eq!(threads("ptx-samples/core/sgemm_tiled", 3), 3);
    assert_eq!(threads("ptx-samples/async/hw_sgemm_cpasync", 2), 2);
}

/// A CTA that waits for a flag another CTA sets, a last-block reduction that reads every CTA's
/// partial result, a lock, device malloc: clusters that see each other's bytes, or allocate,
/// run on one thread.
#[test]
fn communicating_ctas_fall_back_to_one_thread() {
    for sample in [
        "ptx-samples/checker/flag_plain_read",
        "ptx-samples/checker/last_block_reduce",
        "ptx-samples/checker/spinlock",
        // Device malloc: addresses are handed out in call order.
        "tests/run/device_malloc",
    ] {
        assert_eq!(threads(sample, 3), 1, "{sample}");
    }
}

/// A run stops at the first faulting cluster in launch order, whichever thread got there first.
#[test]
fn faults_and_step_limits_are_those_of_one_thread() {
    for (sample, max_steps) in [
        ("tests/run/oob", 1 << 22),
        ("ptx-samples/core/sgemm_tiled", 5000),
        ("tests/run/spin", 100_000),
    ] {
        let mut one = settings(0, "bandwidth", 1);
        one.max_steps = max_steps;
        let mut three = settings(0, "bandwidth", 3);
        three.max_steps = max_steps;
        let a = run(Path::new(sample), &one).unwrap();
        let b = run(Path::new(sample), &three).unwrap();
        assert!(a.outcome.fault.is_some(), "{sample} should fault");
        assert_eq!(seen(&a), seen(&b), "{sample}");
    }
}
