//! The library facade (`ptxrun::api`): a launch built in code, without a launch file, gives the
//! H100's bytes; every malformed launch is an `Error` naming what is wrong, never a panic.

use ptxrun::api::Type;
use ptxrun::api::{Arg, Buffer, Error, Launch, Module, RunOptions};

const SAXPY: &str = "ptx-samples/async/hw_pipe2_saxpy";

fn saxpy() -> (Module, Launch) {
    let m = Module::from_file(&std::path::Path::new(SAXPY).join("kernel.ptx")).unwrap();
    let input = |f: &str| std::fs::read(format!("{SAXPY}/inputs/{f}")).unwrap();
    let launch = Launch {
        grid: [3, 1, 1],
        block: [64, 1, 1],
        dynamic_shared_bytes: 4096,
        buffers: vec![
            Buffer {
                name: "x".into(),
                ty: Type::S32,
                data: input("x.bin"),
            },
            Buffer {
                name: "y".into(),
                ty: Type::S32,
                data: input("y.bin"),
            },
            Buffer {
                name: "out".into(),
                ty: Type::S32,
                data: vec![0; 3840 * 4],
            },
        ],
        args: vec![
            Arg::buffer(0),
            Arg::buffer(1),
            Arg::buffer(2),
            Arg::Bytes((-3i32).to_le_bytes().to_vec()),
            Arg::Bytes(5i32.to_le_bytes().to_vec()),
        ],
        ..Launch::default()
    };
    (m, launch)
}

#[test]
fn a_launch_built_in_code_gives_the_h100_bytes() {
    let (m, launch) = saxpy();
    let k = m.kernel(None).unwrap();
    assert_eq!(k.name(), "pipe2_saxpy");
    let r = k.launch(&launch, &RunOptions::default()).unwrap();
    assert_eq!(r.status(), "ok");
    assert!(r.diagnostics().is_empty());
    let want = std::fs::read(format!("{SAXPY}/expected/out.bin")).unwrap();
    assert_eq!(r.buffer("out").unwrap(), &want[..]);
    assert_eq!(r.buffer_data(2).unwrap(), &want[..]);
}

/// A change that makes a good launch malformed.
type Breaker = Box<dyn Fn(&mut Launch)>;

#[test]
fn malformed_launches_are_errors_that_name_the_problem() {
    let (m, good) = saxpy();
    let k = m.kernel(Some("pipe2_saxpy")).unwrap();
    let opts = RunOptions::default();
    let cases: Vec<(Breaker, &str)> = vec![
        (
            Box::new(|l| l.block = [0, 1, 1]),
            "`block` has a zero dimension",
        ),
        (
            Box::new(|l| l.grid = [1, 0, 1]),
            "`grid` has a zero dimension",
        ),
        (Box::new(|l| l.block = [64, 32, 1]), "at most 1024"),
        (Box::new(|l| l.grid = [1 << 11, 1 << 10, 1]), "runs at most"),
        (
            Box::new(|l| l.cluster = Some([2, 1, 1])),
            "not a multiple of cluster",
        ),
        (Box::new(|l| l.cluster = Some([17, 1, 1])), "1 to 16 CTAs"),
        (Box::new(|l| l.cluster = Some([0, 1, 1])), "1 to 16 CTAs"),
        (
            Box::new(|l| {
                l.args.pop();
            }),
            "takes 5 parameters but the launch gives 4",
        ),
        (Box::new(|l| l.args[0] = Arg::buffer(9)), "no buffer 9"),
        (
            Box::new(|l| {
                l.args[0] = Arg::Buffer {
                    index: 0,
                    offset: 1 << 20,
                }
            }),
            "past its end",
        ),
        (
            Box::new(|l| l.args[3] = Arg::Bytes(vec![1; 8])),
            "is 4 bytes",
        ),
        (Box::new(|l| l.args[3] = Arg::Null), "null pointer needs 8"),
        (
            Box::new(|l| l.args[4] = Arg::buffer(0)),
            "a pointer needs 8",
        ),
    ];
    for (break_it, want) in cases {
        let mut l = good.clone();
        break_it(&mut l);
        match k.launch(&l, &opts) {
            Err(Error::InvalidLaunch(m)) => assert!(m.contains(want), "{want:?} not in {m:?}"),
            Err(e) => panic!("{want}: wrong error kind {e:?}"),
            Ok(_) => panic!("{want}: the launch was accepted"),
        }
    }
    let bad_latency = RunOptions {
        latency: "warp-speed".into(),
        ..RunOptions::default()
    };
    assert!(matches!(
        k.launch(&good, &bad_latency),
        Err(Error::InvalidLaunch(_))
    ));
    assert!(matches!(
        m.kernel(Some("nope")),
        Err(Error::InvalidLaunch(_))
    ));
    assert!(matches!(
        Module::parse(".version 8.0\n.target sm_90\nbogus;"),
        Err(Error::InvalidPtx(_))
    ));
    assert!(matches!(
        Module::from_file(std::path::Path::new("no/such.ptx")),
        Err(Error::Io(_))
    ));
}

#[test]
fn a_prepared_launch_runs_under_many_schedules_with_the_same_result() {
    let (m, launch) = saxpy();
    let p = m.kernel(None).unwrap().prepare(&launch).unwrap();
    let want = std::fs::read(format!("{SAXPY}/expected/out.bin")).unwrap();
    for latency in ["immediate", "adversarial", "uniform:1-2000"] {
        for seed in 0..3 {
            let o = RunOptions {
                seed,
                latency: latency.into(),
                ..RunOptions::default()
            };
            let r = p.report(p.execute(&o).unwrap());
            assert_eq!(r.buffer("out").unwrap(), &want[..], "{latency} seed {seed}");
        }
    }
}

#[test]
fn a_block_that_breaks_reqntid_or_maxntid_is_refused_as_a_gpu_refuses_it() {
    let ptx = |directive: &str| {
        format!(
            ".version 8.0\n.target sm_80\n.address_size 64\n.visible .entry k(.param .u64 p) {directive}\n{{\n    ret;\n}}\n"
        )
    };
    let launch = |block: [u32; 3]| Launch {
        block,
        buffers: vec![Buffer {
            name: "p".into(),
            ty: Type::U8,
            data: vec![0; 4],
        }],
        args: vec![Arg::buffer(0)],
        ..Launch::default()
    };
    let opts = RunOptions::default();
    let req = Module::parse(&ptx(".reqntid 64, 1, 1")).unwrap();
    let k = req.kernel(None).unwrap();
    assert!(k.launch(&launch([64, 1, 1]), &opts).is_ok());
    let e = k.launch(&launch([32, 1, 1]), &opts).err().unwrap();
    assert!(e.message().contains(".reqntid [64, 1, 1]"), "{e}");
    let max = Module::parse(&ptx(".maxntid 64, 1, 1")).unwrap();
    let k = max.kernel(None).unwrap();
    assert!(k.launch(&launch([32, 2, 1]), &opts).is_ok());
    let e = k.launch(&launch([128, 1, 1]), &opts).err().unwrap();
    assert!(e.message().contains(".maxntid"), "{e}");
}

#[test]
fn warp_sz_is_the_warp_size() {
    // nvcc writes `warpSize` as the predefined identifier WARP_SZ (PTX ISA 9.0 section 4.4).
    let m = Module::parse(
        ".version 9.0\n.target sm_90\n.address_size 64\n.visible .entry k(.param .u64 p)\n{\n\
         .reg .b32 %r<4>;\n.reg .b64 %rd<2>;\nld.param.u64 %rd1, [p];\nmov.u32 %r1, %tid.x;\n\
         rem.u32 %r2, %r1, WARP_SZ;\nadd.u32 %r2, %r2, WARP_SZ;\nst.global.u32 [%rd1], %r2;\nret;\n}\n",
    )
    .unwrap();
    let launch = Launch {
        buffers: vec![Buffer {
            name: "p".into(),
            ty: Type::U32,
            data: vec![0; 4],
        }],
        args: vec![Arg::buffer(0)],
        ..Launch::default()
    };
    let r = m
        .kernel(None)
        .unwrap()
        .launch(&launch, &RunOptions::default())
        .unwrap();
    assert_eq!(r.buffer("p").unwrap(), &32u32.to_le_bytes());
}

/// A module newer than the ISA ptxrun implements runs, and says so: the module, the human report
/// and the JSON report carry the warning; a 9.0 module has none.
#[test]
fn newer_ptx_version_runs_with_a_warning() {
    let ptx = ".version 9.4\n.target sm_90\n.address_size 64\n.visible .entry k() { ret; }\n";
    let m = Module::parse(ptx).unwrap();
    let w = m.warnings();
    assert_eq!(w.len(), 1);
    assert!(
        w[0].contains("`.version 9.4` is newer than PTX ISA 9.0"),
        "{w:?}"
    );
    let report = m
        .kernel(None)
        .unwrap()
        .launch(&Launch::default(), &RunOptions::default())
        .unwrap();
    assert!(report.human().starts_with("warning: <ptx>: `.version 9.4`"));
    let json: serde_json::Value = serde_json::from_str(&report.json()).unwrap();
    assert_eq!(json["status"], "ok");
    assert!(json["warnings"][0].as_str().unwrap().contains("9.4"));
    let old = Module::parse(&ptx.replace("9.4", "9.0")).unwrap();
    assert!(old.warnings().is_empty());
    let report = old
        .kernel(None)
        .unwrap()
        .launch(&Launch::default(), &RunOptions::default())
        .unwrap();
    assert!(report.json().find("warnings").is_none());
}

/// A one-CTA launch of `ptx` (its one entry) with a 256-byte `out` buffer as the only argument.
fn launch_with_out(ptx: &str, opts: &RunOptions) -> Result<ptxrun::api::Report, Error> {
    let m = Module::parse(ptx)?;
    let launch = Launch {
        grid: [1, 1, 1],
        block: [32, 1, 1],
        buffers: vec![Buffer {
            name: "out".into(),
            ty: Type::U32,
            data: vec![0; 256],
        }],
        args: vec![Arg::buffer(0)],
        ..Launch::default()
    };
    m.kernel(None)?.launch(&launch, opts)
}

/// Reads `%clock64` and `%globaltimer` and stores them, so a huge clock is read and converted.
const CLOCKS: &str = r#"
.version 8.0
.target sm_90
.address_size 64
.visible .entry clocks(.param .u64 out)
{
    .reg .b64 %rd<5>;
    ld.param.u64 %rd1, [out];
    mov.u64 %rd2, %clock64;
    mov.u64 %rd3, %globaltimer;
    st.global.u64 [%rd1], %rd2;
    st.global.u64 [%rd1+8], %rd3;
    ret;
}
"#;

#[test]
fn run_options_out_of_range_are_bad_input_naming_the_range() {
    let huge = RunOptions {
        instruction_cycles: 9_223_372_036_854_775_807,
        ..RunOptions::default()
    };
    let e = launch_with_out(CLOCKS, &huge).err().expect("refused");
    assert!(matches!(e, Error::InvalidLaunch(_)), "{e:?}");
    assert!(e.message().contains("1 to 1048576"), "{e}");
    let zero = RunOptions {
        instruction_cycles: 0,
        ..RunOptions::default()
    };
    assert!(launch_with_out(CLOCKS, &zero).is_err());
    // The largest accepted values run, and the clock and timer do not overflow.
    let most = RunOptions {
        instruction_cycles: ptxrun::api::MAX_INSTRUCTION_CYCLES,
        max_steps: u64::MAX,
        ..RunOptions::default()
    };
    let r = launch_with_out(CLOCKS, &most).unwrap();
    assert_eq!(r.status(), "ok");
    let out = r.buffer("out").unwrap();
    let clock = u64::from_le_bytes(out[..8].try_into().unwrap());
    assert!(clock >= ptxrun::api::MAX_INSTRUCTION_CYCLES, "{clock}");
    for spec in [
        "fixed:18446744073709551615",
        "uniform:0-18446744073709551615",
        "bandwidth:18446744073709551615,1",
    ] {
        let opts = RunOptions {
            latency: spec.into(),
            ..RunOptions::default()
        };
        let e = launch_with_out(CLOCKS, &opts).err().expect(spec);
        assert!(e.message().contains("2^30"), "{spec}: {e}");
    }
}

/// `atom` and `red` through a generic address into the thread's local memory: PTX allows
/// atomics on global and shared memory only, so the run faults naming the address and space.
#[test]
fn atomics_on_local_memory_through_a_generic_address_fault() {
    for (op, ins) in [
        ("atom", "atom.add.u32 %r2, [%rd3], 1;"),
        ("red", "red.add.u32 [%rd3], 1;"),
        ("atom.cas", "atom.cas.b32 %r2, [%rd3], 0, 1;"),
    ] {
        let ptx = format!(
            r#"
.version 8.0
.target sm_90
.address_size 64
.visible .entry k(.param .u64 out)
{{
    .local .align 4 .b8 slot[4];
    .reg .b32 %r<4>;
    .reg .b64 %rd<4>;
    mov.u64 %rd2, slot;
    cvta.local.u64 %rd3, %rd2;
    {ins}
    ret;
}}
"#
        );
        let r = launch_with_out(&ptx, &RunOptions::default()).unwrap();
        assert_eq!(r.status(), "fault", "{op}");
        let d = &r.diagnostics()[0];
        assert!(
            d.message.contains("local memory") && d.message.contains("global and shared"),
            "{op}: {}",
            d.message
        );
        assert_eq!(d.line, 12, "{op}");
    }
}

/// `ldmatrix` through a generic address of global memory: it reads shared memory only.
#[test]
fn ldmatrix_on_global_memory_through_a_generic_address_faults() {
    let ptx = r#"
.version 8.0
.target sm_90
.address_size 64
.visible .entry k(.param .u64 out)
{
    .reg .b32 %r<2>;
    .reg .b64 %rd<2>;
    ld.param.u64 %rd1, [out];
    ldmatrix.sync.aligned.m8n8.x1.b16 {%r1}, [%rd1];
    ret;
}
"#;
    let r = launch_with_out(ptx, &RunOptions::default()).unwrap();
    assert_eq!(r.status(), "fault");
    let d = &r.diagnostics()[0];
    assert!(
        d.message.contains("global memory") && d.message.contains("shared memory only"),
        "{}",
        d.message
    );
}
