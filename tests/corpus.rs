//! The real-PTX corpus: every `.ptx` under `ptx-samples/` (nvcc 13.0 output, unedited) and under
//! `../shared/hw-cases/` (when that folder is beside the checkout) must parse, lower and pass
//! the checks; and the lowered IR of one sample is pinned as a golden snapshot.

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
        if let Err(diags) = ptxrun::ir::compile(&src) {
            failures.push(ptxrun::diag::render(
                &diags,
                &f.display().to_string(),
                &src,
                false,
            ));
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

fn compile(path: &str) -> ptxrun::ir::Module {
    let src = std::fs::read_to_string(path).unwrap();
    ptxrun::ir::compile(&src)
        .unwrap_or_else(|d| panic!("{}", ptxrun::diag::render(&d, path, &src, false)))
}

/// The faithful IR of a Hopper bulk-copy kernel: decoded modifiers, resolved operands, lines.
#[test]
fn ir_of_bulk_copy_sample_is_pinned() {
    let m = compile("ptx-samples/frontend/bulk_copy_mbarrier/kernel.ptx");
    insta::assert_snapshot!("bulk_copy_mbarrier_ir", ptxrun::ir::print_module(&m));
}

#[test]
fn ir_of_calls_prototypes_and_local_arrays_is_pinned() {
    let m = compile("ptx-samples/frontend/noinline_funcptr/kernel.ptx");
    insta::assert_snapshot!("noinline_funcptr_ir", ptxrun::ir::print_module(&m));
}

#[test]
fn loc_maps_instructions_to_cuda_lines() {
    let m = compile("ptx-samples/frontend/lineinfo/kernel.ptx");
    let f = m.entries().next().unwrap();
    let with_loc = f.srcs.iter().filter(|s| s.loc.is_some()).count();
    assert_eq!(
        with_loc,
        f.code.len(),
        "every instruction of a -lineinfo build has a .loc"
    );
    let (file, line, _) = f.srcs[0].loc.unwrap();
    assert!(m.file(file).unwrap().ends_with("lineinfo/source.cu"));
    assert!(line > 0);
}

#[test]
fn kernel_parameters_follow_the_cuda_abi() {
    // A kernel with a 16-byte aligned struct after an int: offsets 0 and 16.
    let src = ".version 9.0\n.target sm_90\n.address_size 64\n\
        .visible .entry k(.param .u32 k_p0, .param .align 16 .b8 k_p1[32], .param .u64 .ptr .global .align 8 k_p2)\n{ ret; }\n";
    let m = ptxrun::ir::compile(src).unwrap();
    let p = &m.functions[0].params;
    assert_eq!((p[0].offset, p[0].size), (0, 4));
    assert_eq!((p[1].offset, p[1].size, p[1].align), (16, 32, 16));
    assert_eq!(
        (p[2].offset, p[2].ptr),
        (48, Some((ptxrun::ir::Space::Global, 8)))
    );
}

#[test]
fn initializers_become_bytes_and_relocations() {
    let m = compile("ptx-samples/frontend/global_initializers/kernel.ptx");
    let var = |n: &str| m.vars.iter().find(|v| v.name == n).unwrap();
    // .global .align 1 .b8 $str[27] = {104, 101, 108, 108, 111, ...}: "hello..."
    assert!(var("$str").init.starts_with(b"hello"));
    // .global .align 8 .u64 g_count_ptr = generic(g_counts)+8;
    let r = var("g_count_ptr").relocs[0];
    assert!(r.generic && r.addend == 8 && r.size == 8);
}

#[test]
fn nested_scopes_shadow_registers() {
    let src = ".version 9.0\n.target sm_90\n.address_size 64\n.visible .entry k()\n{\n.reg .b32 %r<2>;\n.reg .pred p;\n\
        { .reg .pred p; .reg .b32 %r<2>; setp.eq.s32 p, %r1, 0; }\nsetp.eq.s32 p, %r1, 0;\nret;\n}\n";
    let m = ptxrun::ir::compile(src).unwrap();
    let f = &m.functions[0];
    let dests: Vec<_> = f.code.iter().take(2).map(|i| f.ops(i)[0]).collect();
    assert_ne!(
        dests[0], dests[1],
        "the inner `p` is a different register from the outer one"
    );
}
