//! Interpreter throughput on the benchmark kernels of `ptx-samples/bench/`, in process: one launch
//! prepared once (parsed, laid out), then executed with checking off and on; the counter is
//! thread instructions. `cargo bench --bench interp`. `scripts/bench` measures the same kernels
//! as whole processes against native C.

use divan::counter::ItemsCount;
use divan::Bencher;
use ptxrun::launchfile::{execute, prepare, Prepared, Settings};
use std::path::Path;

fn main() {
    divan::main();
}

const KERNELS: &[&str] = &["alu_loop", "sgemm_plain", "sgemm_cpasync", "bulk_pipeline"];

fn prepared(kernel: &str) -> Prepared {
    let path = Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("ptx-samples/bench")
        .join(kernel)
        .join("launch.toml");
    prepare(&path, &Settings::for_test(0, "bandwidth"))
        .unwrap_or_else(|e| panic!("{kernel}: {}", e.0))
}

fn settings(check: bool) -> Settings {
    let mut s = Settings::for_test(0, ptxrun::launchfile::DEFAULT_LATENCY);
    s.check = check;
    s
}

fn bench(b: Bencher, kernel: &str, check: bool) {
    let p = prepared(kernel);
    let s = settings(check);
    let n = execute(&p, &s).unwrap().stats.thread_instructions;
    b.counter(ItemsCount::new(n))
        .bench(|| execute(&p, &s).unwrap().stats.thread_instructions);
}

#[divan::bench(args = KERNELS, sample_count = 5)]
fn no_check(b: Bencher, kernel: &str) {
    bench(b, kernel, false);
}

#[divan::bench(args = KERNELS, sample_count = 5)]
fn checking(b: Bencher, kernel: &str) {
    bench(b, kernel, true);
}
