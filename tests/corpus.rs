//! The real-PTX corpus: every `.ptx` under `ptx-samples/` (nvcc 13.0 output, unedited) and under
//! `../shared/hw-cases/` (when that folder is beside the checkout) must parse, lower and pass
//! the checks (through the library facade, `api::Module`); and the lowered IR of two samples is
//! pinned as golden snapshots (through the command line, `ptxrun parse --emit ir`). What the IR
//! holds inside (parameter layouts, `.loc` lines, initializers, scopes) is tested beside it, in
//! `src/ir/corpus_tests.rs`.

use ptxrun::api::Module;
use std::path::{Path, PathBuf};

fn ptx_files(dir: &Path, out: &mut Vec<PathBuf>) {
    let Ok(entries) = std::fs::read_dir(dir) else {
        return;
    };
    let mut entries: Vec<_> = entries.filter_map(Result::ok).map(|e| e.path()).collect();
    entries.sort();
    for p in entries {
        if p.is_dir() {
            ptx_files(&p, out);
        } else if p.extension().is_some_and(|e| e == "ptx") {
            out.push(p);
        }
    }
}

fn check_all(root: &Path) -> usize {
    let mut files = Vec::new();
    ptx_files(root, &mut files);
    let mut failures = Vec::new();
    for f in &files {
        let src = std::fs::read_to_string(f).expect("corpus files are UTF-8");
        if let Err(e) = Module::parse_named(src, &f.display().to_string()) {
            failures.push(e.to_string());
        }
    }
    assert!(
        failures.is_empty(),
        "{} of {} files rejected:\n{}",
        failures.len(),
        files.len(),
        failures.join("\n")
    );
    files.len()
}

#[test]
fn every_sample_parses() {
    let n = check_all(Path::new("ptx-samples"));
    assert!(
        n >= 20,
        "the corpus should hold at least 20 PTX files, found {n}"
    );
}

/// Hand-written PTX (accepted by ptxas in CI) for constructs nvcc emits rarely: jump tables,
/// call-target lists, `.alias`, target options, every literal form.
#[test]
fn every_handwritten_valid_file_parses() {
    assert!(check_all(Path::new("tests/valid")) >= 2);
}

#[test]
fn every_shared_hw_case_parses() {
    let dir = Path::new("../shared/hw-cases");
    if dir.is_dir() {
        assert!(check_all(dir) >= 7);
    } else {
        eprintln!("../shared/hw-cases not present; skipped");
    }
}

/// The lowered IR of a module as `ptxrun parse --emit ir` prints it.
fn emit_ir(path: &str) -> String {
    let out = std::process::Command::new(env!("CARGO_BIN_EXE_ptxrun"))
        .args(["parse", "--emit", "ir", path])
        .output()
        .unwrap();
    assert!(
        out.status.success(),
        "{path}: {}",
        String::from_utf8_lossy(&out.stderr)
    );
    String::from_utf8(out.stdout).unwrap()
}

/// The faithful IR of a Hopper bulk-copy kernel: decoded modifiers, resolved operands, lines.
#[test]
fn ir_of_bulk_copy_sample_is_pinned() {
    let ir = emit_ir("ptx-samples/frontend/bulk_copy_mbarrier/kernel.ptx");
    insta::assert_snapshot!("bulk_copy_mbarrier_ir", ir);
}

#[test]
fn ir_of_calls_prototypes_and_local_arrays_is_pinned() {
    let ir = emit_ir("ptx-samples/frontend/noinline_funcptr/kernel.ptx");
    insta::assert_snapshot!("noinline_funcptr_ir", ir);
}
