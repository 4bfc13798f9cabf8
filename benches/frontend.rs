//! Front-end throughput on the largest benchmark module (`ptx-samples/bench/big_module`, 5.6 MB
//! of nvcc output): lexing alone, parsing alone (items dropped as they come), and parsing plus
//! lowering (`ir::compile`, what `ptxrun parse` and every run do). `cargo bench --bench frontend`.

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
fn lex(b: Bencher) {
    let src = module();
    b.counter(BytesCount::of_str(&src))
        .bench(|| ptxrun::lex::tokens(&src).count());
}

#[divan::bench(sample_count = 10)]
fn parse(b: Bencher) {
    let src = module();
    b.counter(BytesCount::of_str(&src)).bench(|| {
        let mut n = 0usize;
        ptxrun::parse::parse_items(&src, &mut |_| n += 1).unwrap();
        n
    });
}

#[divan::bench(sample_count = 10)]
fn compile(b: Bencher) {
    let src = module();
    b.counter(BytesCount::of_str(&src))
        .bench(|| ptxrun::ir::compile(&src).unwrap());
}
