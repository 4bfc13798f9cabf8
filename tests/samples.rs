//! `ptxrun test ptx-samples` as part of `cargo test`: every golden sample must reproduce the
//! bytes a real GPU produced (see each sample's provenance.toml), and runs are deterministic.

use ptxrun::launchfile::{
    execute, find_launches, load, prepare, run, test_one, test_with, Settings, Verdict,
};
use std::path::{Path, PathBuf};

#[test]
fn every_golden_sample_matches_the_gpu() {
    let launches = find_launches(&[PathBuf::from("ptx-samples")]);
    assert!(
        launches.len() >= 10,
        "expected at least 10 golden samples, found {}",
        launches.len()
    );
    let mut failures = Vec::new();
    for l in &launches {
        match test_one(l, 0) {
            Verdict::Pass => {}
            Verdict::Fail(m) | Verdict::Error(m) => failures.push(format!("{}: {m}", l.display())),
        }
    }
    assert!(
        failures.is_empty(),
        "{} of {} samples failed:\n{}",
        failures.len(),
        launches.len(),
        failures.join("\n")
    );
}

/// Every golden sample under `settings` (seed 0, the default latency model, changed by
/// `change`): the samples that do not give the GPU's bytes or their hazard.
fn failures_with(change: impl Fn(&mut Settings)) -> String {
    let mut settings = Settings::for_test(0, ptxrun::launchfile::DEFAULT_LATENCY);
    change(&mut settings);
    let launches = find_launches(&[PathBuf::from("ptx-samples")]);
    // Without the checker, samples that expect a hazard cannot pass.
    let expects_hazard = |l: &PathBuf| load(l, &[]).is_ok_and(|x| x.expect.hazard.is_some());
    let failures: Vec<String> = launches
        .iter()
        .filter(|l| settings.check || !expects_hazard(l))
        .filter_map(|l| match test_with(l, &settings) {
            Verdict::Pass => None,
            Verdict::Fail(m) | Verdict::Error(m) => Some(format!("{}: {m}", l.display())),
        })
        .collect();
    failures.join("\n")
}

/// The general handlers stay the reference: with the warp-wide fast forms turned off, every
/// golden sample still gives the GPU's bytes (and every buggy one its hazard).
#[test]
fn every_golden_sample_matches_without_fast_forms() {
    let failures = failures_with(|s| s.fast = false);
    assert!(failures.is_empty(), "{failures}");
}

/// Fast forms and straight runs (`exec/straight.rs`: whole lines of fast forms, uniform
/// branches, the loads and stores a checker sees) and compiled code only make runs faster: with
/// them off, every instruction goes through its general handler one step at a time, and every
/// sample, checked and not, leaves the same counters (warp and thread instructions, cycles),
/// hazards, fault, printf output and buffer bytes as by default and with every straight run
/// compiled the first time it is entered.
#[test]
fn straight_runs_leave_what_single_steps_leave() {
    let mut differ = Vec::new();
    for l in find_launches(&[PathBuf::from("ptx-samples")]) {
        for check in [true, false] {
            let mut s = Settings::for_test(0, ptxrun::launchfile::DEFAULT_LATENCY);
            s.check = check;
            let Ok(p) = prepare(&l, &s) else { continue };
            let what = |s: &Settings| match execute(&p, s) {
                Ok(o) => {
                    let bytes: Vec<&[u8]> = (p.buffers.iter())
                        .map(|b| o.global.read(b.2, b.3).unwrap_or(&[]))
                        .collect();
                    let (st, h, f) = (&o.stats, &o.hazards, &o.fault);
                    format!("{st:?} {h:?} {f:?} {:?} {bytes:?}", o.stdout)
                }
                Err(e) => format!("{e:?}"),
            };
            let fast = what(&s);
            // Every straight run compiled at first entry (loops take their back edges in
            // compiled code, `jit/edge.rs`), every 32-bit register it reads checked to be
            // zero-extended; then none and no fast forms.
            (s.jit, s.verify) = (Some(0), true);
            let compiled = what(&s);
            (s.jit, s.verify, s.fast) = (None, false, false);
            let single = what(&s);
            if fast != single || compiled != single {
                differ.push(format!("{} (checking: {check})", l.display()));
            }
        }
    }
    assert!(differ.is_empty(), "{}", differ.join("\n"));
}

/// The JIT (`src/exec/jit`) compiles every straight run the first time it is entered: every
/// golden sample still gives the GPU's bytes and every buggy one its hazard. (The test above
/// runs the default, compiling after a few entries; the one before, no fast forms and no JIT.)
#[test]
fn every_golden_sample_matches_with_every_straight_run_compiled() {
    let failures = failures_with(|s| (s.jit, s.verify) = (Some(0), true));
    assert!(failures.is_empty(), "{failures}");
}

/// Without the checker, loads and stores join straight runs, and the JIT compiles those of
/// shared memory: with every straight run compiled the first time it is entered, every sample
/// that expects no hazard still gives the GPU's bytes.
#[test]
fn every_golden_sample_matches_unchecked_with_every_straight_run_compiled() {
    let failures = failures_with(|s| {
        (s.jit, s.verify) = (Some(0), true);
        s.check = false;
    });
    assert!(failures.is_empty(), "{failures}");
}

#[test]
fn correct_kernels_give_the_same_bytes_under_every_seed() {
    for sample in [
        "ptx-samples/core/atomics",
        "ptx-samples/core/warp_collectives",
        "ptx-samples/core/smem_tree_reduce",
    ] {
        for seed in [1, 7, 12345] {
            assert!(
                matches!(test_one(Path::new(sample), seed), Verdict::Pass),
                "{sample} with seed {seed}"
            );
        }
    }
}

#[test]
fn same_seed_same_report_and_outputs() {
    let settings = |seed| Settings::for_test(seed, "bandwidth");
    let a = run(Path::new("ptx-samples/core/divergent_loops"), &settings(3)).unwrap();
    let b = run(Path::new("ptx-samples/core/divergent_loops"), &settings(3)).unwrap();
    assert_eq!(a.json(), b.json());
    for (name, ..) in &a.buffers {
        assert_eq!(a.buffer(name), b.buffer(name), "buffer {name}");
    }
}

/// Lanes of one warp contending for a lock: the spinning lanes must not starve the holder.
#[test]
fn an_intra_warp_spin_lock_makes_progress_under_every_seed() {
    for seed in 0..8 {
        assert!(
            matches!(
                test_one(Path::new("tests/run/warp_lock"), seed),
                Verdict::Pass
            ),
            "seed {seed}"
        );
    }
}

/// The asynchronous-copy samples (cp.async, mbarriers, bulk and tensor copies, clusters) give the
/// GPU's bytes whatever the copy latencies are, and the checker finds them clean, under every
/// latency model, adversarial included, and several scheduler seeds; every buggy sample of
/// `hazards/` is reported with its kind under all of them.
#[test]
fn async_samples_match_under_every_latency_model_and_seed() {
    // `matrix` and `triton` hold the tensor-core samples: `wgmma` is asynchronous too.
    let themes = [
        "async", "bulk", "mbarrier", "tensor", "cluster", "checker", "hazards", "launch", "matrix",
        "triton",
    ];
    let dirs: Vec<PathBuf> = themes
        .iter()
        .map(|t| Path::new("ptx-samples").join(t))
        .collect();
    let launches = find_launches(&dirs);
    assert!(
        launches.len() >= 14,
        "expected the async sample themes, found {} samples",
        launches.len()
    );
    let mut failures = Vec::new();
    for model in ptxrun::api::STANDARD_LATENCIES {
        for seed in [1, 2] {
            for l in &launches {
                match test_with(l, &Settings::for_test(seed, model)) {
                    Verdict::Pass => {}
                    Verdict::Fail(m) | Verdict::Error(m) => {
                        failures.push(format!("{} ({model}, seed {seed}): {m}", l.display()))
                    }
                }
            }
        }
    }
    assert!(failures.is_empty(), "{}", failures.join("\n"));
}

/// A wait on the wrong mbarrier parity ends as a deadlock (a `[expect] hazard` sample).
#[test]
fn a_wrong_parity_wait_is_reported_as_a_deadlock_under_every_model() {
    for model in ptxrun::api::STANDARD_LATENCIES {
        assert!(
            matches!(
                test_with(
                    Path::new("tests/run/wrong_parity"),
                    &Settings::for_test(0, model)
                ),
                Verdict::Pass
            ),
            "{model}"
        );
    }
}

/// The project's buggy hardware cases (`../shared/hw-cases`, when beside the checkout) are
/// reported with the kind their `[expect]` names, at the offending access, under every model.
#[test]
fn buggy_hardware_cases_are_reported_at_the_offending_access() {
    let dir = Path::new("../shared/hw-cases");
    if !dir.is_dir() {
        eprintln!("../shared/hw-cases not present; skipped");
        return;
    }
    for (case, kind, access) in [
        ("b1_no_wait", "read-before-complete", "ld.shared"),
        ("b6_bulk_no_wait", "read-before-complete", "ld.shared"),
        ("b3_war_refill", "async-write-after-read", "cp.async"),
    ] {
        for model in ptxrun::api::STANDARD_LATENCIES {
            for seed in [0, 3] {
                let path = dir.join(case);
                assert!(
                    matches!(
                        test_with(&path, &Settings::for_test(seed, model)),
                        Verdict::Pass
                    ),
                    "{case} under {model}, seed {seed}"
                );
                let done = run(&path, &Settings::for_test(seed, model)).unwrap();
                let h = done
                    .outcome
                    .hazards
                    .iter()
                    .find(|h| h.kind == kind)
                    .unwrap_or_else(|| panic!("{case}: no {kind} under {model}"));
                let (_, _, text) = done.line_of(h.at);
                assert!(text.starts_with(access), "{case}: reported at `{text}`");
            }
        }
    }
}
