//! `st.bulk` (sm_100), modelled from the PTX ISA 9.0 text (section 9.7.9.13) since no GPU here
//! runs it: it zeroes shared memory like a weak store, what the ISA leaves undefined stops the
//! run, and the forms ptxas 13.0 rejects are load errors.

use ptxrun::api::Type;
use ptxrun::api::{Arg, Buffer, Error, Launch, Module, RunOptions};

fn run_dir(dir: &str) -> Vec<u8> {
    let m = Module::from_file(&std::path::Path::new(dir).join("kernel.ptx")).unwrap();
    let launch = Launch {
        grid: [1, 1, 1],
        block: [64, 1, 1],
        buffers: vec![Buffer {
            name: "out".into(),
            ty: Type::U32,
            data: vec![0; 512],
        }],
        args: vec![Arg::buffer(0)],
        ..Launch::default()
    };
    let opts = RunOptions {
        check: true,
        ..RunOptions::default()
    };
    let r = m.kernel(None).unwrap().launch(&launch, &opts).unwrap();
    assert_eq!(r.status(), "ok", "{:?}", r.diagnostics());
    r.buffer("out").unwrap().to_vec()
}

#[test]
fn st_bulk_zeroes_exactly_its_ranges() {
    let got = run_dir("tests/run/st_bulk");
    let mut want = vec![0xffu8; 512];
    for (start, len) in [(64, 192), (320, 8), (480, 16)] {
        want[start..start + len].fill(0);
    }
    assert_eq!(got, want);
}

/// One thread zeroes `size` bytes at shared `buf + off` (a 256-byte buffer) or, for `generic`,
/// at the generic address of global memory `out + off`.
fn one(off: u64, size: u64, generic: bool) -> Result<String, Error> {
    let ptx = format!(
        ".version 9.0\n.target sm_100a\n.address_size 64\n\
         .visible .entry k(.param .u64 out, .param .u64 off, .param .u64 size)\n{{\n\
         .reg .b64 %rd<8>;\n.shared .align 16 .b8 buf[256];\n\
         ld.param.u64 %rd1, [out];\nld.param.u64 %rd2, [off];\nld.param.u64 %rd3, [size];\n\
         mov.u64 %rd4, buf;\nadd.u64 %rd5, %rd4, %rd2;\nadd.u64 %rd6, %rd1, %rd2;\n\
         {}\nret;\n}}\n",
        if generic {
            "st.bulk.weak [%rd6], %rd3, 0;"
        } else {
            "st.bulk.shared::cta [%rd5], %rd3, 0;"
        }
    );
    let m = Module::parse(&ptx).unwrap();
    let launch = Launch {
        grid: [1, 1, 1],
        block: [1, 1, 1],
        buffers: vec![Buffer {
            name: "out".into(),
            ty: Type::U32,
            data: vec![0; 256],
        }],
        args: vec![
            Arg::buffer(0),
            Arg::Bytes(off.to_le_bytes().to_vec()),
            Arg::Bytes(size.to_le_bytes().to_vec()),
        ],
        ..Launch::default()
    };
    let r = m.kernel(None)?.launch(&launch, &RunOptions::default())?;
    Ok(r.diagnostics()
        .iter()
        .map(|d| format!("{}: {}", d.kind, d.message))
        .collect::<Vec<_>>()
        .join("\n"))
}

#[test]
fn what_the_isa_leaves_undefined_stops_the_run() {
    assert_eq!(one(8, 248, false).unwrap(), "");
    assert_eq!(one(0, 0, false).unwrap(), "");
    let cases = [
        (4, 64, false, "misaligned"),
        (0, 12, false, "multiple of 8"),
        (
            0,
            (1 << 24) + 8,
            false,
            "multiple of 8 no larger than 16777216",
        ),
        (64, 256, false, "out-of-bounds"),
        (0, 64, true, "shared memory only"),
    ];
    for (off, size, generic, want) in cases {
        let got = one(off, size, generic).unwrap();
        assert!(got.contains(want), "({off}, {size}, {generic}): {got}");
    }
}

#[test]
fn forms_ptxas_rejects_are_load_errors() {
    let body = |ins: &str| {
        format!(
            ".version 9.0\n.target sm_100a\n.address_size 64\n.visible .entry k(.param .u64 p)\n{{\n\
             .reg .b64 %rd<4>;\n.reg .b32 %r<4>;\n.shared .align 16 .b8 buf[256];\n\
             ld.param.u64 %rd1, [p];\ncvt.u32.u64 %r1, %rd1;\nmov.u64 %rd2, buf;\n{ins}\nret;\n}}\n"
        )
    };
    for ok in [
        "st.bulk.weak.shared::cta [%rd2], %rd1, 0;",
        "st.bulk.shared::cta.weak [%rd2], 16777216, 0;",
        "st.bulk [%rd2], 0, 0x0;",
    ] {
        assert!(Module::parse(&body(ok)).is_ok(), "{ok}");
    }
    for (bad, why) in [
        ("st.bulk.shared::cta [%rd2], 12, 0;", "multiple of 8"),
        ("st.bulk.shared::cta [%rd2], 16777224, 0;", "multiple of 8"),
        ("st.bulk.shared::cta [%rd2], %rd1, 1;", "initval"),
        (
            "st.bulk.shared::cta [%rd2], %r1, 0;",
            "64-bit size register",
        ),
        ("st.bulk.shared::cta [buf], 64, 0;", "address in a register"),
        ("st.bulk.shared [%rd2], 64, 0;", "`.shared::cta`"),
        ("st.bulk.global [%rd2], 64, 0;", "`.shared::cta`"),
        ("st.bulk.relaxed.shared::cta [%rd2], 64, 0;", "`.weak`"),
        ("st.bulk.b64.shared::cta [%rd2], 64, 0;", "st.bulk"),
        ("st.bulk.shared::cta [%rd2], 64;", "operand"),
    ] {
        let e = Module::parse(&body(bad)).err().expect(bad);
        assert!(e.message().contains(why), "{bad}: {}", e.message());
    }
}
