//! The generated kernel of `tests/fast_forms.rs`: every fast form of `src/exec/fast.rs` and
//! `memfast.rs`, unguarded and guarded, on operands loaded per thread. Shared with the unit test
//! `src/exec/coverage_tests.rs`, which checks that nearly all of its instructions have a fast form.

use std::fmt::Write as _;

/// Threads of the launch (two warps).
pub const THREADS: usize = 64;

/// (PTX template, result register class): `D` destination, `A`/`B`/`C` sources of the class.
const OPS32: &[&str] = &[
    "add.s32 D, A, B",
    "add.s32 D, A, -3",
    "sub.s32 D, A, B",
    "mul.lo.s32 D, A, B",
    "mul.hi.s32 D, A, B",
    "mul.hi.u32 D, A, B",
    "mad.lo.s32 D, A, B, C",
    "and.b32 D, A, B",
    "or.b32 D, A, 255",
    "xor.b32 D, A, B",
    "shl.b32 D, A, B",
    "shl.b32 D, A, 7",
    "shr.u32 D, A, B",
    "shr.s32 D, A, B",
    "shr.s32 D, A, 31",
    "min.s32 D, A, B",
    "min.u32 D, A, B",
    "max.s32 D, A, B",
    "max.u32 D, A, B",
    "mov.u32 D, A",
    "mov.u32 D, -2128831035",
    // Byte permutes (hex selectors in lower case: the template's letters are upper case).
    "prmt.b32 D, A, B, 0x3340",
    "prmt.b32 D, A, B, 0x5410",
    "prmt.b32 D, A, B, 0xba98",
    "prmt.b32 D, A, B, 0x7f0c",
    "prmt.b32 D, A, B, C",
    // Division: by zero too (all ones, or the dividend for `rem`), and INT_MIN / -1.
    "div.s32 D, A, B",
    "div.u32 D, A, B",
    "rem.s32 D, A, B",
    "rem.u32 D, A, B",
    "div.s32 D, A, -1",
    "rem.s32 D, A, -1",
    "div.u32 D, A, 0",
    "rem.u32 D, A, 7",
    // Bit-field insert: a position and length from registers (past the width too), literals.
    "bfi.b32 D, A, B, C, 9",
    "bfi.b32 D, A, B, 4, 28",
    "bfi.b32 D, A, B, 20, C",
];

const OPS64: &[&str] = &[
    "add.s64 D, A, B",
    "add.s64 D, A, -5",
    "sub.s64 D, A, B",
    "mul.lo.s64 D, A, B",
    "mul.hi.s64 D, A, B",
    "mul.hi.u64 D, A, B",
    "mad.lo.s64 D, A, B, C",
    "and.b64 D, A, B",
    "or.b64 D, A, B",
    "xor.b64 D, A, B",
    "min.s64 D, A, B",
    "min.u64 D, A, B",
    "max.s64 D, A, B",
    "max.u64 D, A, B",
    "mov.b64 D, A",
    "div.s64 D, A, B",
    "div.u64 D, A, B",
    "rem.s64 D, A, B",
    "rem.u64 D, A, B",
    "rem.s64 D, A, 0",
];

const OPSF: &[&str] = &[
    "add.rn.f32 D, A, B",
    "add.f32 D, A, 0f3f800000",
    "sub.f32 D, A, B",
    "mul.rn.f32 D, A, B",
    "mul.f32 D, A, 0f40400000",
    "fma.rn.f32 D, A, B, C",
    "mov.f32 D, 0f7fc00001",
    "mov.f32 D, A",
];

const CMPS_INT: &[&str] = &["eq", "ne", "lt", "le", "gt", "ge", "lo", "ls", "hi", "hs"];
const CMPS_F: &[&str] = &[
    "eq", "ne", "lt", "le", "gt", "ge", "equ", "neu", "ltu", "leu", "gtu", "geu", "num", "nan",
];

/// The kernel: per thread, loads a, b, c of each class, runs every form unguarded and again
/// guarded by `a & 1`, and stores every result (predicates through `selp`).
pub fn kernel() -> (String, usize, usize, usize) {
    let mut body = String::new();
    let (mut n32, mut n64, mut nf) = (0usize, 0usize, 0usize);
    let emit = |body: &mut String, class: &str, line: String, n: &mut usize| {
        let (st, r, out, w) = match class {
            "r" => ("st.global.u32", "%r9", "%rd20", 4),
            "rd" => ("st.global.u64", "%rd9", "%rd21", 8),
            _ => ("st.global.f32", "%f9", "%rd22", 4),
        };
        // Unguarded, then guarded over a result register that holds a known value.
        for guard in ["", "@%p1 "] {
            let init = match class {
                "r" => "mov.u32 %r9, 305419896;".to_string(),
                "rd" => "mov.u64 %rd9, 81985529216486895;".to_string(),
                _ => "mov.f32 %f9, 0f3F000000;".to_string(),
            };
            let _ = writeln!(body, "\t{init}\n\t{guard}{line};");
            let _ = writeln!(body, "\t{st} [{out}+{}], {r};", *n * w);
            *n += 1;
        }
    };
    let fill = |t: &str, d: &str, a: &str, b: &str, c: &str| {
        t.replace('D', d)
            .replace('A', a)
            .replace('B', b)
            .replace('C', c)
    };
    for t in OPS32 {
        emit(
            &mut body,
            "r",
            fill(t, "%r9", "%r1", "%r2", "%r3"),
            &mut n32,
        );
    }
    // Shift amounts of 64-bit shifts are 32-bit registers.
    for t in [
        "shl.b64 D, A, %r2",
        "shr.u64 D, A, %r2",
        "shr.s64 D, A, %r2",
        "shr.s64 D, A, 70",
        "mul.wide.s32 D, %r1, %r2",
        "mul.wide.u32 D, %r1, %r2",
        "mad.wide.s32 D, %r1, %r2, C",
        "mad.wide.u32 D, %r1, %r2, C",
        "cvt.s64.s32 D, %r1",
        "cvt.u64.u32 D, %r1",
        "cvt.u64.s32 D, %r1",
        "selp.b64 D, A, B, %p2",
        "bfi.b64 D, A, B, %r2, %r3",
        "bfi.b64 D, A, B, 40, 30",
    ] {
        emit(
            &mut body,
            "rd",
            fill(t, "%rd9", "%rd1", "%rd2", "%rd3"),
            &mut n64,
        );
    }
    for t in OPS64 {
        emit(
            &mut body,
            "rd",
            fill(t, "%rd9", "%rd1", "%rd2", "%rd3"),
            &mut n64,
        );
    }
    emit(&mut body, "r", "cvt.u32.u64 %r9, %rd1".into(), &mut n32);
    emit(
        &mut body,
        "r",
        "selp.b32 %r9, %r1, %r2, %p2".into(),
        &mut n32,
    );
    for t in OPSF {
        emit(&mut body, "f", fill(t, "%f9", "%f1", "%f2", "%f3"), &mut nf);
    }
    for (ty, a, b) in [
        ("s32", "%r1", "%r2"),
        ("u32", "%r1", "%r2"),
        ("s64", "%rd1", "%rd2"),
        ("u64", "%rd1", "%rd2"),
        ("s32", "%r1", "-1"),
    ] {
        for c in CMPS_INT {
            let line = format!("setp.{c}.{ty} %p3, {a}, {b};\n\tselp.u32 %r9, 1, 0, %p3");
            emit(&mut body, "r", line, &mut n32);
        }
    }
    // Predicate logic, special registers, kernel parameters of other types and offsets.
    for line in [
        "and.pred %p3, %p1, %p2;\n\tselp.u32 %r9, 1, 0, %p3",
        "or.pred %p3, %p1, %p2;\n\tselp.u32 %r9, 1, 0, %p3",
        "xor.pred %p3, %p2, %p1;\n\tselp.u32 %r9, 1, 0, %p3",
        "mov.u32 %r9, %tid.x",
        "mov.u32 %r9, %laneid",
        "mov.u32 %r9, %ntid.x",
        "mov.u32 %r9, %ctaid.x",
        "mov.u32 %r9, %warpid",
        "mov.u32 %r9, %lanemask_lt",
        "ld.param.u32 %r9, [in64+4]",
        "ld.param.s8 %r9, [k]",
        "ld.param.s8 %r9, [k+1]",
        "ld.param.s16 %r9, [k+2]",
        "ld.param.b16 %rs1, [k+6];\n\tcvt.u32.u16 %r9, %rs1",
    ] {
        emit(&mut body, "r", line.into(), &mut n32);
    }
    for line in [
        "ld.param.s32 %rd9, [k+4]",
        "ld.param.u8 %rd9, [k+3]",
        "ld.param.u64 %rd9, [k]",
    ] {
        emit(&mut body, "rd", line.into(), &mut n64);
    }
    for c in CMPS_F {
        let line = format!("setp.{c}.f32 %p3, %f1, %f2;\n\tselp.u32 %r9, 1, 0, %p3");
        emit(&mut body, "r", line, &mut n32);
    }
    // Shared memory: a store and a load back through a register address and a symbol.
    emit(
        &mut body,
        "r",
        "st.shared.u32 [%r8], %r1;\n\tbar.warp.sync -1;\n\tld.shared.u32 %r9, [%r7]".into(),
        &mut n32,
    );
    emit(
        &mut body,
        "f",
        "st.shared.f32 [sm+4], %f1;\n\tld.shared.f32 %f9, [sm+4]".into(),
        &mut nf,
    );
    // Vectors: each lane stores its 16-byte slot (%r10) and loads its neighbour's (%r14).
    let vb = 16 * THREADS;
    emit(
        &mut body,
        "r",
        "st.shared.v4.u32 [%r10], {%r1, %r2, %r3, %r1};\n\tbar.warp.sync -1;\n\t\
         ld.shared.v4.u32 {%r11, %r9, %r12, %r13}, [%r14]"
            .into(),
        &mut n32,
    );
    emit(
        &mut body,
        "f",
        "st.shared.v2.f32 [%r10+8], {%f1, %f2};\n\tbar.warp.sync -1;\n\t\
         ld.shared.v4.f32 {%f10, %f11, %f12, %f9}, [%r14]"
            .into(),
        &mut nf,
    );
    emit(
        &mut body,
        "rd",
        format!(
            "st.shared.v2.u64 [%r10+{vb}], {{%rd1, %rd2}};\n\tbar.warp.sync -1;\n\t\
             ld.shared.v2.u64 {{%rd11, %rd9}}, [%r14+{vb}]"
        ),
        &mut n64,
    );
    // One or two bytes: stored from the low bytes of a wider register or a literal, loaded
    // zero- or sign-extended into registers of 16, 32 and 64 bits (also in braces, as Triton
    // writes `ld.global.b8 {%rs1}`), from shared and global memory.
    for (class, line) in [
        (
            "r",
            "st.shared.b8 [%r8+1], %r1;\n\tbar.warp.sync -1;\n\tld.shared.s8 %r9, [%r7+1]",
        ),
        (
            "r",
            "st.shared.b16 [%r8+2], %r2;\n\tbar.warp.sync -1;\n\tld.shared.u16 %r9, [%r7+2]",
        ),
        (
            "rd",
            "st.shared.b16 [%r8], %r1;\n\tbar.warp.sync -1;\n\tld.shared.s16 %rd9, [%r7]",
        ),
        (
            "r",
            "st.shared.u8 [%r8+3], 200;\n\tbar.warp.sync -1;\n\t\
             ld.shared.b8 {%rs1}, [%r7+3];\n\tcvt.u32.u16 %r9, %rs1",
        ),
        (
            "r",
            "ld.global.s8 %rs2, [%rd12+1];\n\tcvt.s32.s16 %r9, %rs2",
        ),
        ("r", "ld.global.s8 %r9, [%rd12+5]"),
        ("rd", "ld.global.u16 %rd9, [%rd13+6]"),
        ("rd", "ld.global.s16 %rd9, [%rd13+14]"),
        // Moves of 16-bit registers, of literals cut to 16 bits.
        (
            "r",
            "mov.u16 %rs1, 0xfff0;\n\tmov.b16 %rs2, %rs1;\n\tcvt.u32.u16 %r9, %rs2",
        ),
        ("r", "mov.s16 %rs1, -7;\n\tcvt.s32.s16 %r9, %rs1"),
        // Four and eight bytes in braces, as Triton writes them.
        (
            "r",
            "st.shared.b32 [%r8+4], {%r2};\n\tbar.warp.sync -1;\n\tld.shared.b32 {%r9}, [%r7+4]",
        ),
        ("rd", "ld.global.b64 {%rd9}, [%rd13+8]"),
    ] {
        let n = match class {
            "r" => &mut n32,
            _ => &mut n64,
        };
        emit(&mut body, class, line.into(), n);
    }
    let ptx = format!(
        r#".version 8.0
.target sm_90
.address_size 64

.visible .entry fast_forms(.param .u64 in32, .param .u64 in64, .param .u64 inf,
                           .param .u64 out32, .param .u64 out64, .param .u64 outf,
                           .param .u64 k)
{{
	.reg .pred %p<4>;
	.reg .b32 %r<15>;
	.reg .b64 %rd<30>;
	.reg .f32 %f<13>;
	.reg .b16 %rs<3>;
	.shared .align 4 .b8 sm[{smem}];
	.shared .align 16 .b8 vm[{vsmem}];
	mov.u32 %r4, %tid.x;
	mul.wide.u32 %rd10, %r4, 12;
	mul.wide.u32 %rd11, %r4, 24;
	ld.param.u64 %rd12, [in32];
	ld.param.u64 %rd13, [in64];
	ld.param.u64 %rd14, [inf];
	add.s64 %rd12, %rd12, %rd10;
	add.s64 %rd13, %rd13, %rd11;
	add.s64 %rd14, %rd14, %rd10;
	ld.global.u32 %r1, [%rd12];
	ld.global.u32 %r2, [%rd12+4];
	ld.global.u32 %r3, [%rd12+8];
	ld.global.u64 %rd1, [%rd13];
	ld.global.u64 %rd2, [%rd13+8];
	ld.global.u64 %rd3, [%rd13+16];
	ld.global.f32 %f1, [%rd14];
	ld.global.f32 %f2, [%rd14+4];
	ld.global.f32 %f3, [%rd14+8];
	and.b32 %r5, %r1, 1;
	setp.ne.s32 %p1, %r5, 0;
	and.b32 %r5, %r2, 2;
	setp.ne.s32 %p2, %r5, 0;
	shl.b32 %r8, %r4, 2;
	add.s32 %r8, %r8, 8;
	xor.b32 %r7, %r8, 4;
	mov.u32 %r13, vm;
	shl.b32 %r11, %r4, 4;
	add.s32 %r10, %r13, %r11;
	xor.b32 %r12, %r4, 1;
	shl.b32 %r12, %r12, 4;
	add.s32 %r14, %r13, %r12;
	ld.param.u64 %rd20, [out32];
	ld.param.u64 %rd21, [out64];
	ld.param.u64 %rd22, [outf];
	mul.wide.u32 %rd23, %r4, {o32};
	mul.wide.u32 %rd24, %r4, {o64};
	mul.wide.u32 %rd25, %r4, {of};
	add.s64 %rd20, %rd20, %rd23;
	add.s64 %rd21, %rd21, %rd24;
	add.s64 %rd22, %rd22, %rd25;
{body}	ret;
}}
"#,
        smem = 8 + 4 * THREADS + 8,
        vsmem = 2 * 16 * THREADS,
        o32 = 4 * (n32 + 2),
        o64 = 8 * (n64 + 2),
        of = 4 * (nf + 2),
    );
    (ptx, n32 + 2, n64 + 2, nf + 2)
}
