//! What lowering builds from real and hand-written PTX, looked at inside the IR (moved here
//! from `tests/corpus.rs` when `ir` became crate-private): `.loc` lines, kernel parameter
//! layouts by the CUDA ABI (PTX ISA 9.0 section 5.1.6.1), initializers as bytes and
//! relocations, and registers shadowed by nested scopes.

use super::{compile, Module, Space};

fn compile_file(path: &str) -> Module {
    let src = std::fs::read_to_string(path).unwrap();
    compile(&src).unwrap_or_else(|d| panic!("{}", crate::diag::render(&d, path, &src, false)))
}

#[test]
fn loc_maps_instructions_to_cuda_lines() {
    let m = compile_file("ptx-samples/frontend/lineinfo/kernel.ptx");
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
    let m = compile(src).unwrap();
    let p = &m.functions[0].params;
    assert_eq!((p[0].offset, p[0].size), (0, 4));
    assert_eq!((p[1].offset, p[1].size, p[1].align), (16, 32, 16));
    assert_eq!((p[2].offset, p[2].ptr), (48, Some((Space::Global, 8))));
}

#[test]
fn initializers_become_bytes_and_relocations() {
    let m = compile_file("ptx-samples/frontend/global_initializers/kernel.ptx");
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
    let m = compile(src).unwrap();
    let f = &m.functions[0];
    let dests: Vec<_> = f.code.iter().take(2).map(|i| f.ops(i)[0]).collect();
    assert_ne!(
        dests[0], dests[1],
        "the inner `p` is a different register from the outer one"
    );
}
