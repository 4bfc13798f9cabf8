//! Front-end throughput on the largest benchmark module (`ptx-samples/bench/big_module`, 5.6 MB
//! of nvcc output) through the library facade: `api::Module::parse` (lex, parse, lower and
//! check, what `ptxrun parse` and every run do). `cargo bench --bench frontend`. The stages
//! alone (lexing, parsing) are crate-private since the facade became the one way in; profile
//! them with `perf` on `ptxrun parse` (benches/NOTES.md).

use divan::counter::BytesCount;
use divan::Bencher;

fn main() {
    divan::main();
}

fn module() -> String {
    std::fs::read_to_string(concat!(
        env!("CARGO_MANIFEST_DIR"),
        "/ptx-samples/bench/big_module/kernel.ptx"
    ))
    .expect("ptx-samples/bench/big_module/kernel.ptx")
}

#[divan::bench(sample_count = 10)]
fn compile(b: Bencher) {
    let src = module();
    b.counter(BytesCount::of_str(&src))
        .bench(|| ptxrun::api::Module::parse(&src).unwrap());
}
