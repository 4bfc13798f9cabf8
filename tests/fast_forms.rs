//! The fast forms of hot instructions (`src/exec/fast.rs`, `memfast.rs`) must compute exactly
//! what the general handlers compute. One generated kernel applies every fast form (and, guarded
//! by a per-lane predicate, a second time to half-active warps) to operands drawn from edge
//! values and random bits; it runs with fast forms on and off, and with every straight run
//! compiled by the JIT, and every output byte must agree.
//! That the kernel is made of fast forms at all is checked beside the executor, in
//! `src/exec/coverage_tests.rs`.

use proptest::prelude::*;
use ptxrun::launchfile::{execute, prepare, Prepared, Settings};

#[path = "fast_forms/kernel.rs"]
mod kernel;
use kernel::{kernel, THREADS};

/// The kernel's scalar parameter `k`: bytes with and without their sign bit, for `ld.param` of
/// every width.
const K: i64 = -9155677300669251711;

/// The kernel and its launch file in a directory removed when the handle drops.
fn launch_dir() -> (tempfile::TempDir, (usize, usize, usize)) {
    let (ptx, n32, n64, nf) = kernel();
    let dir = tempfile::Builder::new()
        .prefix("ptxrun-fast-forms-")
        .tempdir()
        .unwrap();
    std::fs::write(dir.path().join("kernel.ptx"), ptx).unwrap();
    let buf = |name: &str, ty: &str, len: usize| {
        format!(
            "[[params]]\nbuffer = \"{name}\"\ntype = \"{ty}\"\nlen = {len}\ninit = \"zeros\"\n\n"
        )
    };
    let launch = format!(
        "kernel = \"kernel.ptx\"\ngrid = 1\nblock = {THREADS}\n\n{}{}{}{}{}{}\
         [[params]]\ntype = \"i64\"\nvalue = {K}\n",
        buf("in32", "u32", 3 * THREADS),
        buf("in64", "u64", 3 * THREADS),
        buf("inf", "f32", 3 * THREADS),
        buf("out32", "u32", n32 * THREADS),
        buf("out64", "u64", n64 * THREADS),
        buf("outf", "f32", nf * THREADS),
    );
    std::fs::write(dir.path().join("launch.toml"), launch).unwrap();
    (dir, (n32, n64, nf))
}

fn with_inputs(p: &Prepared, a: &[u32], b: &[u64], c: &[u32]) -> Prepared {
    let mut p = p.clone();
    for (name, bytes) in [
        (
            "in32",
            a.iter().flat_map(|v| v.to_le_bytes()).collect::<Vec<u8>>(),
        ),
        ("in64", b.iter().flat_map(|v| v.to_le_bytes()).collect()),
        ("inf", c.iter().flat_map(|v| v.to_le_bytes()).collect()),
    ] {
        let (_, _, addr, len) = *p.buffers.iter().find(|x| x.0 == name).unwrap();
        p.global
            .write_init(addr, len)
            .unwrap()
            .copy_from_slice(&bytes);
    }
    p
}

/// The kernel's outputs with fast forms on or off, and with every straight run compiled by the
/// JIT on its first entry (`jit`: Some(0)) or none (`None`).
fn outputs(p: &Prepared, fast: bool, jit: Option<u32>) -> Vec<Vec<u8>> {
    let mut s = Settings::for_test(0, "immediate");
    s.fast = fast;
    s.jit = jit;
    s.check = false;
    let o = execute(p, &s).unwrap();
    assert!(o.fault.is_none(), "{:?}", o.fault);
    ["out32", "out64", "outf"]
        .iter()
        .map(|n| {
            let (_, _, addr, len) = *p.buffers.iter().find(|x| &x.0 == n).unwrap();
            o.global.read(addr, len).unwrap().to_vec()
        })
        .collect()
}

fn word32() -> impl Strategy<Value = u32> {
    prop_oneof![
        any::<u32>(),
        prop::sample::select(vec![
            0,
            1,
            2,
            31,
            32,
            33,
            63,
            64,
            0x7fff_ffff,
            0x8000_0000,
            u32::MAX
        ]),
    ]
}

fn word64() -> impl Strategy<Value = u64> {
    prop_oneof![
        any::<u64>(),
        prop::sample::select(vec![0, 1, 63, 64, 65, i64::MAX as u64, 1 << 63, u64::MAX]),
        word32().prop_map(|v| i64::from(v as i32) as u64),
    ]
}

fn float32() -> impl Strategy<Value = u32> {
    prop_oneof![
        any::<f32>().prop_map(f32::to_bits),
        any::<u32>(),
        prop::sample::select(vec![
            0,
            0x8000_0000,
            0x7f80_0000,
            0xff80_0000,
            0x7fc0_0000,
            0x7f80_0001,
            0x0000_0001,
            0x3f80_0000,
            0xbf80_0000,
            0x7f7f_ffff,
        ]),
    ]
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 48, ..ProptestConfig::default() })]

    #[test]
    fn fast_forms_match_the_general_handlers(
        a in prop::collection::vec(word32(), 3 * THREADS),
        b in prop::collection::vec(word64(), 3 * THREADS),
        c in prop::collection::vec(float32(), 3 * THREADS),
    ) {
        let (dir, _) = launch_dir();
        let p = prepare(&dir.path().join("launch.toml"), &Settings::for_test(0, "bandwidth")).unwrap();
        let p = with_inputs(&p, &a, &b, &c);
        let general = outputs(&p, false, None);
        prop_assert_eq!(&outputs(&p, true, None), &general);
        prop_assert_eq!(&outputs(&p, true, Some(0)), &general);
    }
}
