//! Hazard reports pinned the way Miri's ui tests pin them: a kernel plus its expected report,
//! program, message and lines together (insta snapshots in `tests/snapshots/ui__*.snap`), and a
//! hazard found in a kernel that follows 300 functions, whose lines must still be the kernel's
//! (the checker's shadow once packed the function index into 8 bits: such a race said "line 0").

use ptxrun::api::Type;
use ptxrun::api::{Arg, Buffer, Diagnostic, Launch, Module, RunOptions};
use ptxrun::launchfile::{self, Settings, DEFAULT_LATENCY};
use std::path::Path;

/// The human report of a hazard sample under the default seed and latency model.
fn human_report(sample: &str) -> String {
    let launch = Path::new("ptx-samples/hazards")
        .join(sample)
        .join("launch.toml");
    let done = launchfile::run(&launch, &Settings::for_test(1, DEFAULT_LATENCY))
        .unwrap_or_else(|e| panic!("{sample}: {}", e.0));
    done.human()
}

#[test]
fn hazard_reports_are_pinned() {
    // One sample per family of rules: copies (cp.async, bulk), races, proxies, mbarriers,
    // barriers, tensor cores.
    for sample in [
        "cp_async_no_wait",
        "bulk_store_source_overwritten",
        "smem_data_race",
        "missing_proxy_fence",
        "mbarrier_overwritten",
        "tx_count_underflow_single",
        "barrier_count_mismatch",
        "wgmma_half_warp",
    ] {
        insta::assert_snapshot!(sample, human_report(sample));
    }
}

/// A module of `n` small functions, then `kernel`; the 1-based line at which `kernel` starts.
fn after_functions(n: usize, kernel: &str) -> (String, usize) {
    let mut ptx = String::from(".version 8.0\n.target sm_90\n.address_size 64\n\n");
    for i in 0..n {
        ptx.push_str(&format!(
            ".func f{i}()\n{{\n\t.reg .b32 %t;\n\tmov.u32 %t, {i};\n\tret;\n}}\n\n"
        ));
    }
    let start = ptx.lines().count() + 1;
    ptx.push_str(kernel);
    (ptx, start)
}

/// The line, within `text` starting at line `start`, of the one line that contains `needle`.
fn line_of(text: &str, start: usize, needle: &str) -> usize {
    let hits: Vec<usize> = text
        .lines()
        .enumerate()
        .filter(|(_, l)| l.contains(needle))
        .map(|(i, _)| start + i)
        .collect();
    assert_eq!(hits.len(), 1, "`{needle}` must occur once");
    hits[0]
}

/// Runs `ptx`'s kernel `k` on one CTA of 64 threads with a global buffer `name` of `bytes`
/// bytes; its diagnostics.
fn launch_k(ptx: &str, name: &str, bytes: usize) -> Vec<Diagnostic> {
    let module = Module::parse(ptx).expect("the generated module parses");
    let kernel = module.kernel(Some("k")).expect("kernel k");
    let launch = Launch {
        grid: [1, 1, 1],
        block: [64, 1, 1],
        buffers: vec![Buffer {
            name: name.into(),
            ty: Type::U32,
            data: vec![0; bytes],
        }],
        args: vec![Arg::buffer(0)],
        ..Launch::default()
    };
    let report = kernel
        .launch(&launch, &RunOptions::default())
        .expect("the launch runs");
    report.diagnostics()
}

/// Runs `ptx`'s kernel `k` with a 256-byte global buffer `g`; its diagnostics as (kind, line,
/// related lines).
fn diagnostics(ptx: &str) -> Vec<(String, usize, Vec<usize>)> {
    launch_k(ptx, "g", 256)
        .into_iter()
        .map(|d| (d.kind, d.line, d.related.iter().map(|r| r.line).collect()))
        .collect()
}

const READ_BEFORE_COMPLETE: &str = "\
.visible .entry k(.param .u64 g)
{
\t.reg .b32 %r<8>;
\t.reg .b64 %rd<4>;
\t.shared .align 4 .b8 buf[256];
\tld.param.u64 %rd1, [g];
\tcvta.to.global.u64 %rd1, %rd1;
\tmov.u32 %r1, %tid.x;
\tshl.b32 %r2, %r1, 2;
\tmov.u32 %r3, buf;
\tadd.u32 %r4, %r3, %r2;
\tcvt.u64.u32 %rd2, %r2;
\tadd.s64 %rd3, %rd1, %rd2;
\tcp.async.ca.shared.global [%r4], [%rd3], 4; // issue
\tcp.async.commit_group;
\tld.shared.u32 %r5, [%r4]; // read too early
\tcp.async.wait_all;
\tcall f299;
\tst.global.u32 [%rd3], %r5;
\tret;
}
";

const SHARED_RACE: &str = "\
.visible .entry k(.param .u64 g)
{
\t.reg .b32 %r<8>;
\t.reg .pred %p<2>;
\t.shared .align 4 .b32 cell;
\tmov.u32 %r1, %tid.x;
\tsetp.ne.u32 %p1, %r1, 0;
\t@%p1 bra READ;
\tst.shared.u32 [cell], %r1; // warp 0 writes
\tret;
READ:
\tsetp.ne.u32 %p1, %r1, 32;
\t@%p1 bra DONE;
\tld.shared.u32 %r2, [cell]; // warp 1 reads, unordered
DONE:
\tret;
}
";

#[test]
fn a_copy_hazard_after_300_functions_names_the_kernel_lines() {
    let (ptx, start) = after_functions(300, READ_BEFORE_COMPLETE);
    let read = line_of(READ_BEFORE_COMPLETE, start, "read too early");
    let issue = line_of(READ_BEFORE_COMPLETE, start, "// issue");
    assert!(
        read > 1500,
        "the kernel follows the functions (line {read})"
    );
    let found = diagnostics(&ptx);
    assert_eq!(
        found,
        vec![("read-before-complete".to_string(), read, vec![issue])],
        "{found:?}"
    );
}

#[test]
fn a_race_after_300_functions_names_the_kernel_lines() {
    let (ptx, start) = after_functions(300, SHARED_RACE);
    let write = line_of(SHARED_RACE, start, "warp 0 writes");
    let read = line_of(SHARED_RACE, start, "warp 1 reads");
    let found = diagnostics(&ptx);
    assert_eq!(found.len(), 1, "{found:?}");
    let (kind, line, related) = &found[0];
    assert_eq!(kind, "data-race");
    // Which access runs second depends on the schedule; the pair is the kernel's two lines.
    let mut pair = vec![*line, related[0]];
    pair.sort_unstable();
    assert_eq!(pair, vec![write, read], "{found:?}");
    assert_eq!(related.len(), 1);
}

/// `--no-check` turns off the happens-before analysis and the checks that live in it (a store
/// over a live mbarrier, inconsistent barrier counts: the run goes on), but what stops the run is
/// still reported: an mbarrier that rejects an operation, a deadlock.
#[test]
fn no_check_reports_what_stops_the_run_and_nothing_else() {
    let run = |sample: &str| {
        let launch = Path::new("ptx-samples/hazards")
            .join(sample)
            .join("launch.toml");
        let mut s = Settings::for_test(1, DEFAULT_LATENCY);
        s.check = false;
        let done = launchfile::run(&launch, &s).unwrap_or_else(|e| panic!("{sample}: {}", e.0));
        done.diagnostics()
            .into_iter()
            .map(|d| d.kind)
            .collect::<Vec<String>>()
    };
    for sample in [
        "mbarrier_overwritten",
        "barrier_count_mismatch",
        "smem_data_race",
        "cp_async_no_wait",
    ] {
        assert_eq!(run(sample), Vec::<String>::new(), "{sample}");
    }
    for (sample, kind) in [
        ("mbarrier_arrive_underflow", "mbarrier-misuse"),
        ("uninitialized_mbarrier", "uninitialized-mbarrier"),
        ("tx_count_overflow", "tx-count-overflow"),
        ("tx_count_underflow_single", "tx-count-underflow"),
        ("wrong_parity", "deadlock"),
    ] {
        assert_eq!(run(sample), vec![kind.to_string()], "{sample}");
    }
}

const GLOBAL_RACE: &str = "\
.version 8.0
.target sm_90
.address_size 64

.visible .entry k(.param .u64 g)
{
\t.reg .b32 %r<4>;
\t.reg .b64 %rd<2>;
\t.reg .pred %p<2>;
\tld.param.u64 %rd1, [g];
\tcvta.to.global.u64 %rd1, %rd1;
\tmov.u32 %r1, %tid.x;
\tsetp.ne.u32 %p1, %r1, 0;
\t@%p1 bra READ;
\tst.global.u32 [%rd1], %r1; // warp 0 writes
\tret;
READ:
\tsetp.ne.u32 %p1, %r1, 32;
\t@%p1 bra DONE;
\tld.global.u32 %r2, [%rd1]; // warp 1 reads, unordered
DONE:
\tret;
}
";

/// The messages and addresses of [`GLOBAL_RACE`]'s hazards when its buffer is called `name`.
fn race_messages(name: &str) -> Vec<(String, Option<String>)> {
    launch_k(GLOBAL_RACE, name, 4)
        .into_iter()
        .map(|d| (d.message, d.address))
        .collect()
}

/// A message quotes a buffer's name as it is, even one that reads like a placeholder: the
/// related line is a typed part of the message, not text replaced after the message is written
/// (which once turned a buffer named `{L}` into the line number).
#[test]
fn a_buffer_named_like_a_placeholder_keeps_its_name_in_messages() {
    let plain = race_messages("g");
    let odd = race_messages("{L}");
    assert_eq!(plain.len(), 1, "{plain:?}");
    let (message, address) = &odd[0];
    assert!(message.contains("{L}+0x0"), "{message}");
    assert!(message.contains(" at line "), "{message}");
    assert_eq!(address.as_deref(), Some("{L}+0x0 (4 bytes)"));
    let renamed: Vec<(String, Option<String>)> = odd
        .iter()
        .map(|(m, a)| {
            (
                m.replace("{L}", "g"),
                a.as_ref().map(|a| a.replace("{L}", "g")),
            )
        })
        .collect();
    assert_eq!(renamed, plain);
}
