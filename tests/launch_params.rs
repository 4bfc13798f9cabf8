//! Parameters real kernels take: by-value structs (fields at offsets, pointers and tensor maps
//! inside, nested structs) and cooperative launches (`this_grid().sync()`, residency), through
//! the library facade and through launch files. The samples under `ptx-samples/launch` give the
//! H100's bytes; these tests pin the rules and the errors.

use ptxrun::api::Type;
use ptxrun::api::{Arg, Buffer, Launch, Module, RunOptions};
use std::path::Path;

const AXPY: &str = "ptx-samples/launch/struct_axpy";
const JACOBI: &str = "ptx-samples/launch/coop_jacobi";

fn module(dir: &str) -> Module {
    Module::from_file(&Path::new(dir).join("kernel.ptx")).unwrap()
}

/// A struct argument whose pointer fields name the launch's buffers.
fn axpy_launch(tally: Arg) -> Launch {
    let x: Vec<u8> = (0..600).flat_map(|i| (i as f32).to_le_bytes()).collect();
    let mut axpy = Vec::new();
    axpy.extend(1.5f32.to_le_bytes()); // alpha at 16
    axpy.extend(600i32.to_le_bytes()); // n at 20
    Launch {
        grid: [5, 1, 1],
        block: [128, 1, 1],
        buffers: vec![
            Buffer {
                name: "x".into(),
                ty: Type::F32,
                data: x,
            },
            Buffer {
                name: "y".into(),
                ty: Type::F32,
                data: vec![0; 640 * 4],
            },
            Buffer {
                name: "hits".into(),
                ty: Type::S32,
                data: vec![0; 4],
            },
        ],
        args: vec![
            Arg::Struct {
                bytes: Vec::new(),
                fields: vec![
                    (0, Arg::buffer(0)),
                    (8, Arg::buffer(1)),
                    (16, Arg::Bytes(axpy)),
                    (
                        24,
                        Arg::Bytes([10i32, 20].iter().flat_map(|v| v.to_le_bytes()).collect()),
                    ),
                    (48, Arg::Bytes(2.0f64.to_le_bytes().to_vec())),
                ],
            },
            tally,
        ],
        ..Launch::default()
    }
}

fn tally(fields: Vec<(u64, Arg)>) -> Arg {
    Arg::Struct {
        bytes: vec![b'A'],
        fields,
    }
}

#[test]
fn struct_fields_land_at_their_offsets_pointers_included() {
    let counter = Arg::Struct {
        bytes: Vec::new(),
        fields: vec![
            (0, Arg::buffer(2)),
            (8, Arg::Bytes(3i32.to_le_bytes().to_vec())),
        ],
    };
    let launch = axpy_launch(tally(vec![(8, counter)]));
    let r = module(AXPY)
        .kernel(None)
        .unwrap()
        .launch(&launch, &RunOptions::default())
        .unwrap();
    assert_eq!(r.status(), "ok");
    let y: Vec<f32> = r
        .buffer("y")
        .unwrap()
        .chunks(4)
        .map(|c| f32::from_le_bytes(c.try_into().unwrap()))
        .collect();
    // y[i] = 1.5 x[i] + coef[i & 3] * bias, coef = 0 here; the tag (0) is added in [10, 20).
    assert_eq!(y[7], 10.5);
    assert_eq!(y[599], 898.5);
    assert_eq!(y[600], 0.0);
    // Ten hits of weight 3 << 0.
    assert_eq!(r.buffer("hits").unwrap(), &30i32.to_le_bytes());
}

#[test]
fn struct_arguments_that_do_not_fit_are_errors_naming_the_field() {
    let k = module(AXPY).kernel(None).unwrap();
    let opts = RunOptions::default();
    let cases: Vec<(Arg, &str)> = vec![
        (
            tally(vec![(28, Arg::buffer(2))]),
            "params[1].fields[0]: 8 bytes at offset 28 run past the end of kernel parameter `axpy_struct_param_1` (32 bytes)",
        ),
        (
            tally(vec![(8, Arg::buffer(2)), (12, Arg::Bytes(vec![1]))]),
            "params[1].fields[1]: bytes 12..13 overlap fields[0]",
        ),
        (
            Arg::Struct {
                bytes: vec![0; 33],
                fields: Vec::new(),
            },
            "params[1]: `bytes` holds 33 bytes, more than kernel parameter `axpy_struct_param_1` (32 bytes)",
        ),
        (
            tally(vec![(8, Arg::buffer(9))]),
            "params[1].fields[0]: no buffer 9 (the launch has 3)",
        ),
        (
            tally(vec![(1 << 62, Arg::Bytes(vec![1]))]),
            "params[1].fields[0]: 1 bytes at offset 4611686018427387904 run past the end",
        ),
        (
            tally(vec![(
                0,
                Arg::Struct {
                    bytes: Vec::new(),
                    fields: vec![(1 << 40, Arg::Null)],
                },
            )]),
            "params[1].fields[0]: the struct would be 1099511627784 bytes",
        ),
    ];
    for (arg, want) in cases {
        let e = k.launch(&axpy_launch(arg), &opts).err().unwrap();
        assert!(e.message().contains(want), "{e}\nwanted: {want}");
    }
}

fn jacobi(grid: u32, cooperative: bool) -> Launch {
    let n = 3000i32;
    let buf = |name: &str| Buffer {
        name: name.into(),
        ty: Type::F32,
        data: (0..n)
            .flat_map(|i| ((i % 7) as f32).to_le_bytes())
            .collect(),
    };
    Launch {
        grid: [grid, 1, 1],
        block: [96, 1, 1],
        cooperative,
        buffers: vec![buf("a"), buf("b"), buf("f")],
        args: vec![
            Arg::buffer(0),
            Arg::buffer(1),
            Arg::buffer(2),
            Arg::Bytes(n.to_le_bytes().to_vec()),
            Arg::Bytes(2i32.to_le_bytes().to_vec()),
        ],
        ..Launch::default()
    }
}

#[test]
fn grid_sync_works_in_a_cooperative_launch_and_traps_outside_one() {
    let k = module(JACOBI).kernel(None).unwrap();
    let opts = RunOptions::default();
    let coop = k.launch(&jacobi(16, true), &opts).unwrap();
    assert_eq!(coop.status(), "ok");
    // The grid workspace is no buffer of the launch's.
    assert!(coop.buffer_data(2).is_some() && coop.buffer_data(3).is_none());
    // Without it, `this_grid().sync()` finds no workspace (%envreg1:%envreg2 is null) and traps.
    let plain = k.launch(&jacobi(16, false), &opts).unwrap();
    assert_eq!(plain.status(), "fault");
    assert!(
        plain.human().contains("`trap` executed"),
        "{}",
        plain.human()
    );
}

#[test]
fn every_schedule_of_a_cooperative_launch_gives_the_same_bytes() {
    let k = module(JACOBI).kernel(None).unwrap();
    let p = k.prepare(&jacobi(24, true)).unwrap();
    let mut first = None;
    for seed in 0..6 {
        let opts = RunOptions {
            seed,
            ..RunOptions::default()
        };
        let r = p.report(p.execute(&opts).unwrap());
        assert_eq!(r.status(), "ok", "seed {seed}");
        let a = r.buffer("a").unwrap().to_vec();
        assert_eq!(first.get_or_insert(a.clone()), &a, "seed {seed}");
    }
}

#[test]
fn a_cooperative_grid_must_fit_on_the_gpu_at_once() {
    let k = module(JACOBI).kernel(None).unwrap();
    let opts = RunOptions::default();
    // 96 threads: 21 CTAs per SM (64 warps / 3), 2772 on 132 SMs, as the H100's driver says
    // (docs/launch/cooperative-residency.md).
    let e = k.launch(&jacobi(2773, true), &opts).err().unwrap();
    assert!(
        e.message()
            .contains("a cooperative launch of 2773 CTAs cannot be resident at once")
            && e.message().contains("at most 2772 CTAs")
            && e.message().contains("limited by threads per SM"),
        "{e}"
    );
    let mut clustered = jacobi(4, true);
    clustered.cluster = Some([2, 1, 1]);
    let e = k.launch(&clustered, &opts).err().unwrap();
    assert!(
        e.message()
            .contains("cooperative launch with clusters of 2 CTAs"),
        "{e}"
    );
}

#[test]
fn cluster_scope_in_one_cta_clusters_is_the_cta() {
    // A flag published with .cluster-scoped release/acquire between two CTAs of a cooperative
    // launch: clusters of one CTA do not hold both threads, so the pair does not synchronise.
    let ptx = ".version 8.0\n.target sm_90\n.address_size 64\n\
        .visible .entry k(.param .u64 p)\n{\n.reg .pred %p<3>;\n.reg .b32 %r<6>;\n.reg .b64 %rd<4>;\n\
        ld.param.u64 %rd1, [p];\nmov.u32 %r1, %ctaid.x;\nmov.u32 %r2, %tid.x;\n\
        setp.ne.u32 %p1, %r2, 0;\n@%p1 bra DONE;\nsetp.ne.u32 %p2, %r1, 0;\n@%p2 bra READER;\n\
        st.global.u32 [%rd1+4], 42;\nst.release.cluster.global.u32 [%rd1], 1;\nbra DONE;\n\
        READER:\nld.acquire.cluster.global.u32 %r3, [%rd1];\nsetp.eq.u32 %p1, %r3, 0;\n@%p1 bra READER;\n\
        ld.global.u32 %r4, [%rd1+4];\nst.global.u32 [%rd1+8], %r4;\nDONE:\nret;\n}\n";
    let k = Module::parse(ptx).unwrap().kernel(None).unwrap();
    let launch = Launch {
        grid: [2, 1, 1],
        block: [32, 1, 1],
        cooperative: true,
        buffers: vec![Buffer {
            name: "p".into(),
            ty: Type::U32,
            data: vec![0; 12],
        }],
        args: vec![Arg::buffer(0)],
        ..Launch::default()
    };
    let r = k.launch(&launch, &RunOptions::default()).unwrap();
    assert!(r.human().contains("data-race"), "{}", r.human());
    // With .gpu scope the same kernel is clean.
    let gpu = ptx.replace(".cluster.global", ".gpu.global");
    let k = Module::parse(&gpu).unwrap().kernel(None).unwrap();
    let r = k.launch(&launch, &RunOptions::default()).unwrap();
    assert_eq!(r.status(), "ok", "{}", r.human());
}

#[test]
fn init_writes_a_struct_entry_that_runs() {
    // `ptxrun init` on a kernel taking two structs: each gets a `fields = []` entry (all zero
    // bytes), so the written launch file runs as it is.
    let d = Path::new(env!("CARGO_MANIFEST_DIR")).join("target/launch-params/init");
    let _ = std::fs::remove_dir_all(&d);
    std::fs::create_dir_all(&d).unwrap();
    std::fs::copy(Path::new(AXPY).join("kernel.ptx"), d.join("kernel.ptx")).unwrap();
    let ptxrun = |args: &[&str]| {
        std::process::Command::new(env!("CARGO_BIN_EXE_ptxrun"))
            .args(args)
            .output()
            .unwrap()
    };
    let init = ptxrun(&["init", d.join("kernel.ptx").to_str().unwrap()]);
    assert!(
        init.status.success(),
        "{}",
        String::from_utf8_lossy(&init.stderr)
    );
    let text = std::fs::read_to_string(d.join("launch.toml")).unwrap();
    assert_eq!(text.matches("fields = []").count(), 2, "{text}");
    assert!(
        text.contains("(64 bytes), aligned to 8: a by-value struct"),
        "{text}"
    );
    let run = ptxrun(&["run", d.to_str().unwrap()]);
    assert!(
        run.status.success(),
        "{}",
        String::from_utf8_lossy(&run.stderr)
    );
}

#[test]
fn tensormap_replace_forms_ptxas_rejects_are_load_errors() {
    let module = |ins: &str| {
        Module::parse(&format!(
            ".version 8.3\n.target sm_90a\n.address_size 64\n.visible .entry k(.param .u64 p)\n{{\n\
             .reg .b32 %r<4>;\n.reg .b64 %rd<4>;\nld.param.u64 %rd1, [p];\n{ins}\nret;\n}}\n"
        ))
    };
    assert!(module("tensormap.replace.tile.global_dim.global.b1024.b32 [%rd1], 1, %r1;").is_ok());
    for (bad, why) in [
        (
            "tensormap.replace.tile.global_dim.global.b1024.b32 [%rd1], %r1;",
            "take [addr], ord, new_val",
        ),
        (
            "tensormap.replace.tile.global_address.global.b1024.b32 [%rd1], %r1;",
            "global_address and global_stride are .b64",
        ),
        (
            "tensormap.replace.tile.elemtype.global.b1024.b32 [%rd1], %r1;",
            "this field's new value is a constant",
        ),
        (
            "tensormap.replace.tile.box_dim.global.b1024.b32 [%rd1], 5, %r1;",
            "ord is a constant from 0 to 4",
        ),
        (
            "tensormap.replace.global_dim.global.b1024.b32 [%rd1], 0, %r1;",
            "it needs .tile and .b1024",
        ),
    ] {
        let e = module(bad).err().unwrap();
        assert!(
            e.message().contains("ir::tensormap-replace-form") && e.message().contains(why),
            "{bad}: {e}"
        );
    }
}

/// `ptx-samples/launch/param_space` with its body replaced by `body` (after `%rd2` = `blob`'s
/// `.param` address and `%rd3` = its generic address).
fn param_space_run(body: &str) -> ptxrun::api::Report {
    let ptx = format!(
        ".version 8.0\n.target sm_90a\n.address_size 64\n\
         .visible .entry k(.param .u64 outp, .param .u32 a, .param .align 8 .b8 blob[16])\n{{\n\
         .reg .b64 %rd<8>;\n.reg .b32 %r<4>;\n\
         ld.param.u64 %rd1, [outp];\ncvta.to.global.u64 %rd1, %rd1;\n\
         mov.b64 %rd2, blob;\ncvta.param.u64 %rd3, %rd2;\n{body}\n\
         st.global.u32 [%rd1], %r1;\nret;\n}}\n"
    );
    let launch = Launch {
        grid: [1, 1, 1],
        block: [1, 1, 1],
        buffers: vec![Buffer {
            name: "out".into(),
            ty: Type::U32,
            data: vec![0; 4],
        }],
        args: vec![
            Arg::buffer(0),
            Arg::Bytes(7u32.to_le_bytes().to_vec()),
            Arg::Bytes((1..=16).collect()),
        ],
        ..Launch::default()
    };
    let k = Module::parse(&ptx).unwrap().kernel(None).unwrap();
    k.launch(&launch, &RunOptions::default()).unwrap()
}

#[test]
fn a_kernel_parameter_has_a_param_address_and_a_generic_one() {
    // Both reach the parameter through their own kind of access (the H100's bytes for every
    // value are the golden sample's).
    for body in ["ld.param.u32 %r1, [%rd2+4];", "ld.u32 %r1, [%rd3+4];"] {
        let r = param_space_run(body);
        assert_eq!(r.status(), "ok", "{body}: {}", r.human());
        assert_eq!(r.buffer("out").unwrap(), [5, 6, 7, 8], "{body}");
    }
    // The `.param` address taken as generic is no allocation: the H100 faults (illegal address).
    let r = param_space_run("ld.u32 %r1, [%rd2+4];");
    assert_eq!(r.status(), "fault");
    assert!(
        r.human().contains("global address 0x14 hits no allocation"),
        "{}",
        r.human()
    );
    // A `.param` load through the generic address is undefined (the H100 returned zeros): an
    // error that says which address to use.
    let r = param_space_run("ld.param.u32 %r1, [%rd3+4];");
    assert_eq!(r.status(), "fault");
    assert!(
        r.human()
            .contains("a `.param` access at the generic address")
            && r.human().contains("`cvta.to.param` gives"),
        "{}",
        r.human()
    );
}
