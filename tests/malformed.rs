//! Malformed PTX through the real binary: every input must be rejected with exit code 2, a
//! diagnostic that names the right line, no panic, and no hang. The rendered diagnostics are
//! pinned with insta snapshots (`tests/snapshots/malformed__*.snap`).
//!
//! Inputs live in `tests/malformed/NAME.ptx`; those too large or too regular to commit are
//! generated at run time into `target/malformed-gen/NAME.ptx` (a fixed path, so the snapshot is
//! stable).

use std::io::Read;
use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};
use std::thread;
use std::time::{Duration, Instant};

/// Longest any single input may take before the run counts as a hang.
const DEADLINE: Duration = Duration::from_secs(10);

fn crate_root() -> &'static Path {
    Path::new(env!("CARGO_MANIFEST_DIR"))
}

struct Outcome {
    code: Option<i32>,
    stdout: String,
    stderr: String,
    elapsed: Duration,
}

/// Runs `ptxrun --color never parse REL` from the crate root, killing it after [`DEADLINE`].
/// The pipes are drained on threads, so a large diagnostic cannot stall the child.
fn run_ptxrun(rel: &str) -> Outcome {
    let start = Instant::now();
    let mut child = Command::new(env!("CARGO_BIN_EXE_ptxrun"))
        .args(["--color", "never", "parse", rel])
        .current_dir(crate_root())
        .env_remove("NO_COLOR")
        .env("RUST_BACKTRACE", "0")
        .stdin(Stdio::null())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .expect("spawn ptxrun");
    let mut out = child.stdout.take().unwrap();
    let mut err = child.stderr.take().unwrap();
    let out_t = thread::spawn(move || {
        let mut v = Vec::new();
        let _ = out.read_to_end(&mut v);
        v
    });
    let err_t = thread::spawn(move || {
        let mut v = Vec::new();
        let _ = err.read_to_end(&mut v);
        v
    });
    let status = loop {
        match child.try_wait().expect("try_wait") {
            Some(status) => break status,
            None if start.elapsed() > DEADLINE => {
                let _ = child.kill();
                let _ = child.wait();
                panic!("ptxrun parse {rel} did not finish within {DEADLINE:?} (hang?)");
            }
            None => thread::sleep(Duration::from_millis(5)),
        }
    };
    let elapsed = start.elapsed();
    let stdout = String::from_utf8_lossy(&out_t.join().unwrap()).into_owned();
    let stderr = String::from_utf8_lossy(&err_t.join().unwrap()).into_owned();
    Outcome {
        code: status.code(),
        stdout,
        stderr,
        elapsed,
    }
}

/// Rejects `rel` and checks the contract; returns stderr for the snapshot.
fn check_rejected(name: &str, rel: &str, lines: &[usize]) -> String {
    let o = run_ptxrun(rel);
    assert!(
        !o.stderr.contains("panicked"),
        "{name}: ptxrun panicked:\n{}",
        o.stderr
    );
    assert_eq!(
        o.code,
        Some(2),
        "{name}: expected exit code 2\nstdout:\n{}\nstderr:\n{}",
        o.stdout,
        o.stderr
    );
    assert!(
        o.stdout.is_empty(),
        "{name}: nothing should go to stdout:\n{}",
        o.stdout
    );
    let file = Path::new(rel).file_name().unwrap().to_str().unwrap();
    for line in lines {
        let needle = format!("{file}:{line}:");
        assert!(
            o.stderr.contains(&needle),
            "{name}: stderr does not name `{needle}`:\n{}",
            o.stderr
        );
    }
    assert!(
        o.stderr.contains(&format!("{rel}: ")) && o.stderr.contains(" error"),
        "{name}: missing the `FILE: N errors` summary:\n{}",
        o.stderr
    );
    assert!(o.elapsed < DEADLINE, "{name}: took {:?}", o.elapsed);
    o.stderr
}

/// The snapshot text: control characters other than newline (ptxrun echoes the offending source
/// line verbatim, NULs and escapes included) are written as `\u{..}` so snapshot files stay text.
fn visible(s: &str) -> String {
    s.chars()
        .map(|c| {
            if c.is_control() && c != '\n' {
                c.escape_unicode().to_string()
            } else {
                c.to_string()
            }
        })
        .collect()
}

/// One committed input: `tests/malformed/NAME.ptx`, rejected, naming each of `lines`.
macro_rules! malformed {
    ($name:ident, [$($line:expr),+ $(,)?]) => {
        #[test]
        fn $name() {
            let name = stringify!($name);
            let rel = format!("tests/malformed/{name}.ptx");
            assert!(crate_root().join(&rel).is_file(), "missing input {rel}");
            let stderr = check_rejected(name, &rel, &[$($line),+]);
            insta::assert_snapshot!(name, visible(&stderr));
        }
    };
}

// The file ends in the middle of an instruction (`add.s32 %r4, %r`), no trailing newline.
malformed!(truncated, [26]);
// An ELF/PNG header's worth of binary junk, including invalid UTF-8, after a valid header.
malformed!(garbage_bytes, [5, 7]);
malformed!(unknown_opcode, [26]);
// `ad.s32`: the help should suggest `add`.
malformed!(misspelt_opcode, [26]);
// The `;` is missing at the end of line 25; the parser notices at the next token (line 26).
malformed!(missing_semicolon, [26]);
// `add.s32 %r4, %r3;`
malformed!(wrong_operand_count, [26]);
malformed!(undefined_register, [26]);
malformed!(undefined_label, [21]);
// `add.rx.f32`
malformed!(bad_rounding_modifier, [31]);
// `ld.global.q.u32`
malformed!(bad_load_modifier, [25]);
// `add.rn.rz.f32`
malformed!(conflicting_modifiers, [31]);
// A stray `}` on line 28 closes the kernel body early. NOTE: ptxrun reports line 30 (the label
// `$L__BB0_2:` now at module scope) and line 33, not line 28 where the stray brace is.
malformed!(extra_close_brace, [30, 33]);
// `{` opened on line 21 and never closed: the file ends inside it.
malformed!(missing_close_brace, [34]);
// `.reg .b32 %r<999999999>;`
malformed!(absurd_register_range, [12]);
malformed!(empty, [1]);
malformed!(missing_version, [1]);
malformed!(missing_target, [1]);
// `mbarrier.init.shared::cta.b32`: mbarrier objects are 64-bit.
malformed!(mbarrier_b32, [21]);
// `cp.async.cg` copies 16 bytes only.
malformed!(cp_async_cg_size8, [21]);
// `cvt.rn.e4m3x2.f32`: fp8 results need `.rn.satfinite` (PTX ISA 9.7.9.21).
malformed!(cvt_fp8_without_satfinite, [9]);
// `createpolicy`: the secondary priority is evict_first or evict_unchanged (as ptxas says).
malformed!(createpolicy_secondary_last, [8]);
// `createpolicy.range` takes the policy, an address and two sizes.
malformed!(createpolicy_range_operands, [7]);
// `mma ... .f32.f16.f16.f16`: ptxas wants D and C of one type.
malformed!(mma_mixed_accumulator, [9]);
// `m16n8k16` bf16 takes four A registers per lane; two are given.
malformed!(mma_fragment_size, [10]);
// `mma.sp::ordered_metadata ... m16n8k32 ... f16` with sparsity selector 2 (ptxas: 0 to 1).
malformed!(mma_sp_selector, [9]);
// `mma.sp` without its sparsity selector: five operands of six.
malformed!(mma_sp_operand_count, [10]);
// `wgmma.mma_async` with a 32-bit register as its A descriptor (ptxas wants a 64-bit one).
malformed!(wgmma_descriptor_width, [10]);
// `wmma.load.a ... m16n16k8 ... .f16`: that shape takes tf32 only.
malformed!(wmma_wrong_type, [9]);
// `@%r1 bra ...` with `%r1` a `.b32` register.
malformed!(data_register_guard, [21]);
// `ld.global.u32 %r3, %rd2;`
malformed!(ld_without_brackets, [25]);
// Three independent syntax errors (lines 23/24, 26, 27): all must be reported in one run.
malformed!(several_errors, [24, 26, 27]);
malformed!(unterminated_comment, [28]);
// `add.f32 %f1, %r3, %r4` with `%r` declared `.u32`.
malformed!(type_mismatch, [30]);
// `mul.wide.b128`: ptxas takes `.b128` only in ld, ldu, st, mov and atom.exch/cas.
malformed!(b128_mul_wide, [9]);
// `cvt.b128.bf16`
malformed!(b128_cvt, [9]);
// Generic `ld`/`ldu`/`red`/`atom` naming a function's or a kernel's `.param` or a `.const`
// variable, tensor copies naming their map's kernel parameter or a `.const` variable: ptxas
// refuses all seven (state space mismatch), and takes the map named by a `.global` variable
// (line 25).
malformed!(generic_param_and_const_names, [10, 19, 20, 21, 22, 24, 26]);
// `ld.global.v2.b128` (over the 128-bit vector limit), `red.global.and.b128`,
// `atom.global.add.b128` and `shfl.sync.idx.b128`: ptxas rejects all four.
malformed!(b128_vector_and_red, [9, 10, 11, 12]);
// Vector atomics PTX does not have (ptxas 13.0 rejects each): on shared memory, `.min` of f32,
// f16 without `.noftz`, `.v8` of f16x2, a vector of u32.
malformed!(vector_atomic_forms, [10, 11, 12, 13, 14]);
// Data operands of the wrong width (ptxas 13.0 rejects each): 17 registers for one u64 (ptxrun
// panicked on it), a brace list for a scalar atom, a scalar for `.v4`, 9 halves for `.v8`,
// 3 for `.v2`; and `atom.max.f32`, `.noftz` on an f32 vector.
malformed!(data_operand_widths, [11, 12, 13, 14, 15, 16, 17]);

#[test]
fn several_errors_reports_at_least_three() {
    let o = run_ptxrun("tests/malformed/several_errors.ptx");
    let n = o.stderr.matches("\n  x ").count() + usize::from(o.stderr.starts_with("  x "));
    assert!(n >= 3, "expected >= 3 diagnostics, got {n}:\n{}", o.stderr);
    assert!(
        o.stderr.contains("several_errors.ptx: 3 errors")
            || o.stderr.contains("several_errors.ptx: 4 errors")
            || o.stderr.contains("several_errors.ptx: 5 errors"),
        "summary count:\n{}",
        o.stderr
    );
}

/// The inputs above are one valid kernel with one defect each: the unmodified kernel must pass,
/// so every rejection is due to the defect.
#[test]
fn valid_control_is_accepted() {
    let o = run_ptxrun("tests/malformed/valid_control.ptx");
    assert_eq!(o.code, Some(0), "stderr:\n{}", o.stderr);
    assert!(o.stderr.is_empty(), "stderr:\n{}", o.stderr);
    assert!(
        o.stdout.contains("ok (1 functions, 12 instructions)"),
        "{}",
        o.stdout
    );
}

/// Writes a generated input to `target/malformed-gen/NAME.ptx` and returns that relative path.
fn generated(name: &str, text: &str) -> String {
    let rel = format!("target/malformed-gen/{name}.ptx");
    let path: PathBuf = crate_root().join(&rel);
    std::fs::create_dir_all(path.parent().unwrap()).unwrap();
    std::fs::write(&path, text).unwrap();
    rel
}

const HEADER: &str = ".version 9.0\n.target sm_90\n.address_size 64\n\n";

/// 5000 nested `{` scopes inside a kernel, one per line, then 5000 `}`: must be refused without
/// exhausting the stack, at the first brace past the nesting limit.
#[test]
fn nested_scopes() {
    const DEPTH: usize = 5000;
    let mut src = String::from(HEADER);
    src.push_str(".visible .entry deep()\n{\n\t.reg .b32 \t%r<2>;\n");
    // Line of the function's own `{` is 6; the scope braces start on line 8.
    let first_scope_line = src.lines().count() + 1;
    for _ in 0..DEPTH {
        src.push_str("\t{\n");
    }
    src.push_str("\tmov.u32 \t%r1, 1;\n");
    for _ in 0..DEPTH {
        src.push_str("\t}\n");
    }
    src.push_str("\tret;\n}\n");
    let rel = generated("nested_scopes", &src);
    // The function body is depth 1, so the limit (256) is crossed by the 256th scope brace.
    let limit = ptxrun::api::MAX_SCOPE_DEPTH;
    let line = first_scope_line + limit - 1;
    let stderr = check_rejected("nested_scopes", &rel, &[line]);
    assert!(stderr.contains("parse::nesting-too-deep"), "{stderr}");
    insta::assert_snapshot!("nested_scopes", visible(&stderr));
}

/// Also through the library, with nothing but braces: the depth check must hold for `[` and `(`
/// too, and for input that is not inside any function.
#[test]
fn nested_brackets_library() {
    for open in ["{", "[", "("] {
        let src = format!("{HEADER}{}", open.repeat(100_000));
        let t = Instant::now();
        let r = ptxrun::api::Module::parse_named(src, "deep.ptx");
        assert!(r.is_err(), "{open} x 100000 accepted");
        assert!(t.elapsed() < DEADLINE, "{open}: {:?}", t.elapsed());
        let out = r.err().unwrap().to_string();
        assert!(out.contains("deep.ptx:5:"), "{out}");
    }
}
