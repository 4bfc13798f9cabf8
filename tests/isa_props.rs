//! Property tests of the instruction families against reference semantics written here from the
//! PTX ISA, not from ptxrun's code. Each property builds a tiny kernel (one instruction, or a short
//! sequence, per output buffer) in `target/isa-props/<property>/`, feeds it 256 operand vectors
//! (random values with edge values mixed in: 0, 1, -1, MIN, MAX, powers of two, NaN, ±inf, ±0,
//! subnormals), runs it through `ptxrun::runner::run` (one thread per element) and compares every
//! element with the reference.
//!
//! Floating point references: round-to-nearest results come from the host's IEEE arithmetic;
//! a directed-rounding result is checked by bracketing the exact result between the nearest
//! result and its neighbour, with the sign of `exact - nearest` computed exactly from error-free
//! transformations (TwoSum, fma-based TwoProduct, the division remainder `a - q*b`) summed as a
//! floating-point expansion. Inputs for which those terms are not exact (product underflow or
//! overflow) are skipped, element by element.
//!
//! 16 cases per property and a fixed seed; `PROPTEST_CASES` and `PROPTEST_RNG_SEED` override
//! them for longer or different runs. `ISA_PROPS_STATS=1` prints, per output, how many elements
//! had no exact reference (a property fails if that is more than half).

use proptest::prelude::*;
use proptest::test_runner::{Config, RngSeed, TestCaseError};
use ptxrun::launchfile::{run, Settings};
use std::cmp::Ordering;
use std::fmt::Write as _;
use std::path::PathBuf;

const N: usize = 256;

fn cfg() -> Config {
    let mut c = Config::default();
    if std::env::var_os("PROPTEST_CASES").is_none() {
        c.cases = 16;
    }
    if std::env::var_os("PROPTEST_RNG_SEED").is_none() {
        c.rng_seed = RngSeed::Fixed(0x15a_9e0b);
    }
    if std::env::var_os("PROPTEST_MAX_SHRINK_ITERS").is_none() {
        // The failure message already names the first failing element and its operands.
        c.max_shrink_iters = 0;
    }
    c.failure_persistence = None;
    c
}

// ---------------------------------------------------------------------------------------------
// Kernel harness
// ---------------------------------------------------------------------------------------------

#[derive(Clone, Copy, PartialEq, Eq, Debug)]
enum T {
    B16,
    /// Half formats, in .b16 registers.
    F16,
    BF16,
    B32,
    B64,
    F32,
    F64,
}

impl T {
    fn ptx(self) -> &'static str {
        match self {
            T::B16 | T::F16 | T::BF16 => "b16",
            T::B32 => "b32",
            T::B64 => "b64",
            T::F32 => "f32",
            T::F64 => "f64",
        }
    }
    fn bytes(self) -> usize {
        match self {
            T::B16 | T::F16 | T::BF16 => 2,
            T::B32 | T::F32 => 4,
            T::B64 | T::F64 => 8,
        }
    }
    fn launch(self) -> &'static str {
        match self {
            T::B16 | T::F16 | T::BF16 => "u16",
            T::B32 => "u32",
            T::B64 => "u64",
            T::F32 => "f32",
            T::F64 => "f64",
        }
    }
    fn mask(self) -> u64 {
        mask(self.bytes() as u32 * 8)
    }
}

/// What an element must be.
#[derive(Clone, Copy, Debug)]
enum Want {
    Bits(u64),
    /// Any NaN of the output's format.
    AnyNan,
    /// No exact reference for this input (checked elsewhere or not at all).
    Skip,
}

type Ref<'a> = Box<dyn Fn(&[u64]) -> Want + 'a>;
type Round32 = fn(f32) -> f32;
type Round64 = fn(f64) -> f64;

/// A kernel under construction: inputs `%i0..`, outputs `%o0..`, scratch registers `%p<16>`
/// (pred), `%t<16>` (b32), `%w<16>` (b64).
struct K<'a> {
    name: &'a str,
    ins: Vec<(T, Vec<u64>)>,
    body: String,
    outs: Vec<(T, String, Ref<'a>)>,
}

impl<'a> K<'a> {
    fn new(name: &'a str) -> Self {
        K {
            name,
            ins: Vec::new(),
            body: String::new(),
            outs: Vec::new(),
        }
    }

    fn input(&mut self, t: T, vals: Vec<u64>) -> &mut Self {
        self.ins.push((t, vals));
        self
    }

    /// One output computed by `ptx`, in which `{d}` names the output register.
    fn out(&mut self, t: T, ptx: &str, r: impl Fn(&[u64]) -> Want + 'a) -> &mut Self {
        let reg = format!("%o{}", self.outs.len());
        for line in ptx.split(';').map(str::trim).filter(|l| !l.is_empty()) {
            let _ = writeln!(self.body, "    {};", line.replace("{d}", &reg));
        }
        self.outs.push((t, ptx.replace("{d}", "d"), Box::new(r)));
        self
    }

    fn check(&self) -> Result<(), TestCaseError> {
        let got = run_kernel(self.name, &self.ins, &self.outs, &self.body);
        let n = self.ins[0].1.len();
        let mut msgs = Vec::new();
        for (j, (t, label, r)) in self.outs.iter().enumerate() {
            let mut bad = 0usize;
            let mut skipped = 0usize;
            let mut first = None;
            for i in 0..n {
                let x: Vec<u64> = self.ins.iter().map(|(_, v)| v[i]).collect();
                let g = got[j][i];
                let ok = match r(&x) {
                    Want::Skip => {
                        skipped += 1;
                        true
                    }
                    Want::Bits(w) => g & t.mask() == w & t.mask(),
                    Want::AnyNan => is_nan_bits(*t, g),
                };
                if !ok {
                    bad += 1;
                    let w = r(&x);
                    first.get_or_insert((i, x, g, w));
                }
            }
            if std::env::var_os("ISA_PROPS_STATS").is_some() {
                eprintln!(
                    "{}: `{label}`: {skipped} of {n} elements without a reference",
                    self.name
                );
            }
            if n >= 64 && skipped * 2 > n {
                msgs.push(format!(
                    "`{label}`: the reference skipped {skipped} of {n} elements"
                ));
            }
            if let Some((i, x, g, w)) = first {
                let ops: Vec<String> = x
                    .iter()
                    .zip(&self.ins)
                    .map(|(v, (it, _))| show(*it, *v))
                    .collect();
                let want = match w {
                    Want::Bits(b) => show(*t, b & t.mask()),
                    Want::AnyNan => "any NaN".into(),
                    Want::Skip => "-".into(),
                };
                msgs.push(format!(
                    "`{label}`: {bad} of {n} elements wrong; first at thread {i}: operands [{}] got {} want {want}",
                    ops.join(", "),
                    show(*t, g)
                ));
            }
        }
        if msgs.is_empty() {
            Ok(())
        } else {
            Err(TestCaseError::fail(format!(
                "{} (target/isa-props/{}):\n  {}",
                self.name,
                self.name,
                msgs.join("\n  ")
            )))
        }
    }
}

fn is_nan_bits(t: T, v: u64) -> bool {
    match t {
        T::F32 => f32::from_bits(v as u32).is_nan(),
        T::F64 => f64::from_bits(v).is_nan(),
        T::F16 => half::f16::from_bits(v as u16).is_nan(),
        T::BF16 => half::bf16::from_bits(v as u16).is_nan(),
        _ => false,
    }
}

fn show(t: T, v: u64) -> String {
    match t {
        T::F32 => format!("{:e} ({:#010x})", f32::from_bits(v as u32), v as u32),
        T::F64 => format!("{:e} ({v:#018x})", f64::from_bits(v)),
        T::B16 => format!("{:#x} ({})", v as u16, v as u16 as i16),
        T::F16 => format!(
            "{:e} ({:#06x})",
            half::f16::from_bits(v as u16).to_f32(),
            v as u16
        ),
        T::BF16 => format!(
            "{:e} ({:#06x})",
            half::bf16::from_bits(v as u16).to_f32(),
            v as u16
        ),
        T::B32 => format!("{:#x} ({})", v as u32, v as u32 as i32),
        T::B64 => format!("{v:#x} ({})", v as i64),
    }
}

fn run_kernel(
    name: &str,
    ins: &[(T, Vec<u64>)],
    outs: &[(T, String, Ref<'_>)],
    body: &str,
) -> Vec<Vec<u64>> {
    let n = ins[0].1.len();
    assert!(n > 0 && n <= 1024);
    let dir = PathBuf::from(env!("CARGO_MANIFEST_DIR"))
        .join("target")
        .join("isa-props")
        .join(name);
    std::fs::create_dir_all(&dir).expect("create target/isa-props");
    let mut toml =
        format!("kernel = \"kernel.ptx\"\nentry = \"k\"\ngrid = [1, 1, 1]\nblock = [{n}, 1, 1]\n");
    let mut params = Vec::new();
    let mut decl = String::new();
    let mut load = String::new();
    for (i, (t, vals)) in ins.iter().enumerate() {
        assert_eq!(vals.len(), n, "input {i} length");
        let mut bytes = Vec::with_capacity(n * t.bytes());
        for v in vals {
            bytes.extend_from_slice(&v.to_le_bytes()[..t.bytes()]);
        }
        std::fs::write(dir.join(format!("in{i}.bin")), &bytes).expect("write input");
        let _ = write!(
            toml,
            "\n[[params]]\nbuffer = \"in{i}\"\ntype = \"{}\"\nlen = {n}\ninit = \"in{i}.bin\"\n",
            t.launch()
        );
        params.push(format!("    .param .u64 p_in{i}"));
        let _ = writeln!(decl, "    .reg .{} %i{i};", t.ptx());
        let _ = write!(
            load,
            "    ld.param.u64 %ad, [p_in{i}];\n    cvta.to.global.u64 %ad, %ad;\n    mul.wide.u32 %off, %ix, {};\n    add.s64 %ad, %ad, %off;\n    ld.global.{} %i{i}, [%ad];\n",
            t.bytes(),
            t.ptx()
        );
    }
    // All results go to one buffer, eight bytes per result: thread i's result j at
    // out[(i * outs.len() + j) * 8].
    let m = outs.len();
    let _ = write!(
        toml,
        "\n[[params]]\nbuffer = \"out\"\ntype = \"u64\"\nlen = {}\ninit = \"zeros\"\n",
        n * m
    );
    params.push("    .param .u64 p_out".to_string());
    let mut store = format!(
        "    ld.param.u64 %ad, [p_out];\n    cvta.to.global.u64 %ad, %ad;\n    mul.wide.u32 %off, %ix, {};\n    add.s64 %ad, %ad, %off;\n",
        8 * m
    );
    for (j, (t, _, _)) in outs.iter().enumerate() {
        let _ = writeln!(decl, "    .reg .{} %o{j};", t.ptx());
        let _ = writeln!(store, "    st.global.{} [%ad+{}], %o{j};", t.ptx(), 8 * j);
    }
    let ptx = format!(
        ".version 9.0\n.target sm_90\n.address_size 64\n\n.visible .entry k(\n{}\n)\n{{\n    .reg .pred %p<16>;\n    .reg .b32 %t<16>;\n    .reg .b64 %w<16>;\n    .reg .b32 %ix;\n    .reg .b64 %ad;\n    .reg .b64 %off;\n{decl}\n    mov.u32 %ix, %tid.x;\n{load}{body}{store}    ret;\n}}\n",
        params.join(",\n")
    );
    std::fs::write(dir.join("kernel.ptx"), ptx).expect("write kernel");
    std::fs::write(dir.join("launch.toml"), toml).expect("write launch");
    let settings = Settings::for_test(0, "immediate");
    let done = match run(&dir.join("launch.toml"), &settings) {
        Ok(d) => d,
        Err(e) => panic!("{name}: bad input: {}", e.0),
    };
    assert_eq!(done.status(), "ok", "{name}: {}", done.human());
    let out = done.buffer("out").expect("output buffer");
    assert_eq!(out.len(), n * m * 8);
    outs.iter()
        .enumerate()
        .map(|(j, (t, _, _))| {
            (0..n)
                .map(|i| {
                    let at = (i * m + j) * 8;
                    let mut b = [0u8; 8];
                    b[..t.bytes()].copy_from_slice(&out[at..at + t.bytes()]);
                    u64::from_le_bytes(b)
                })
                .collect()
        })
        .collect()
}

fn col<A: Copy>(v: &[A], f: impl Fn(A) -> u64) -> Vec<u64> {
    v.iter().map(|x| f(*x)).collect()
}

// ---------------------------------------------------------------------------------------------
// Operand strategies
// ---------------------------------------------------------------------------------------------

const EDGE_U32: &[u32] = &[
    0,
    1,
    2,
    3,
    5,
    7,
    0xff,
    0x100,
    0xffff,
    0x1_0000,
    0x7f_ffff,
    0x80_0000,
    0xff_ffff,
    0x100_0000,
    0x7fff_fffe,
    0x7fff_ffff,
    0x8000_0000,
    0x8000_0001,
    0xffff_fffe,
    0xffff_ffff,
    0xffff_fff0,
    0xdead_beef,
    0x5555_5555,
    0xaaaa_aaaa,
];

const EDGE_U64: &[u64] = &[
    0,
    1,
    2,
    3,
    0xffff_ffff,
    0x1_0000_0000,
    0x7fff_ffff,
    0x8000_0000,
    0x7fff_ffff_ffff_fffe,
    0x7fff_ffff_ffff_ffff,
    0x8000_0000_0000_0000,
    0x8000_0000_0000_0001,
    0xffff_ffff_ffff_fffe,
    0xffff_ffff_ffff_ffff,
    0xffff_ffff_8000_0000,
    0x5555_5555_5555_5555,
];

fn u32s() -> impl Strategy<Value = u64> {
    prop_oneof![
        4 => any::<u32>().prop_map(u64::from),
        2 => prop::sample::select(EDGE_U32).prop_map(u64::from),
        2 => (0u32..32, 0u8..4).prop_map(|(k, v)| {
            let p = 1u32 << k;
            u64::from(match v {
                0 => p,
                1 => p.wrapping_sub(1),
                2 => p.wrapping_neg(),
                _ => !p,
            })
        }),
        1 => (-16i32..16).prop_map(|x| u64::from(x as u32)),
    ]
}

fn u64s() -> impl Strategy<Value = u64> {
    prop_oneof![
        4 => any::<u64>(),
        2 => prop::sample::select(EDGE_U64),
        2 => (0u32..64, 0u8..4).prop_map(|(k, v)| {
            let p = 1u64 << k;
            match v {
                0 => p,
                1 => p.wrapping_sub(1),
                2 => p.wrapping_neg(),
                _ => !p,
            }
        }),
        1 => any::<i32>().prop_map(|x| x as i64 as u64),
        1 => (-16i64..16).prop_map(|x| x as u64),
    ]
}

fn u16s() -> impl Strategy<Value = u64> {
    prop_oneof![
        3 => any::<u16>().prop_map(u64::from),
        2 => prop::sample::select(&[0u16, 1, 2, 0x7fff, 0x8000, 0x8001, 0xffff, 0xfffe, 0xff, 0x100][..]).prop_map(u64::from),
        1 => (0u32..16).prop_map(|k| 1u64 << k),
    ]
}

/// Shift amounts, bit positions and lengths: mostly 0..=40 (`max` for 64-bit forms), sometimes
/// anything (to check masking of the operand).
fn small(max: u64) -> impl Strategy<Value = u64> {
    prop_oneof![
        6 => 0..=max,
        1 => any::<u32>().prop_map(u64::from),
        1 => prop::sample::select(&[0xffu64, 0x100, 0x101, 0x120, 0xffff_ffff, 0x8000_0000][..]),
    ]
}

const EDGE_F32: &[u32] = &[
    0x0000_0000, // +0
    0x8000_0000, // -0
    0x3f80_0000, // 1
    0xbf80_0000, // -1
    0x7f80_0000, // +inf
    0xff80_0000, // -inf
    0x7fc0_0000, // qNaN
    0xffc0_0000, // -qNaN
    0x7f80_0001, // sNaN
    0x7fff_ffff, // canonical NaN
    0x0080_0000, // MIN_POSITIVE
    0x8080_0000,
    0x0000_0001, // smallest subnormal
    0x8000_0001,
    0x007f_ffff, // largest subnormal
    0x807f_ffff,
    0x7f7f_ffff, // MAX
    0xff7f_ffff,
    0x3f00_0000, // 0.5
    0x3fc0_0000, // 1.5
    0x4040_0000, // 3
    0x3eaa_aaab, // 1/3
    0x4b80_0000, // 2^24
    0x4b80_0001,
    0x4f00_0000, // 2^31
    0xcf00_0000, // -2^31
    0x4eff_ffff, // largest below 2^31
    0x4f80_0000, // 2^32
    0x4f7f_ffff,
    0xcf00_0001,
];

const EDGE_F64: &[u64] = &[
    0x0000_0000_0000_0000,
    0x8000_0000_0000_0000,
    0x3ff0_0000_0000_0000,
    0xbff0_0000_0000_0000,
    0x7ff0_0000_0000_0000,
    0xfff0_0000_0000_0000,
    0x7ff8_0000_0000_0000,
    0xfff8_0000_0000_0000,
    0x7ff0_0000_0000_0001,
    0x7fff_ffff_ffff_ffff,
    0x0010_0000_0000_0000,
    0x8010_0000_0000_0000,
    0x0000_0000_0000_0001,
    0x8000_0000_0000_0001,
    0x000f_ffff_ffff_ffff,
    0x7fef_ffff_ffff_ffff,
    0xffef_ffff_ffff_ffff,
    0x3fe0_0000_0000_0000,
    0x3ff8_0000_0000_0000,
    0x3fd5_5555_5555_5555,
    0x4340_0000_0000_0000, // 2^53
    0x4340_0000_0000_0001,
    0x43e0_0000_0000_0000, // 2^63
    0xc3e0_0000_0000_0000,
    0x41df_ffff_ffc0_0000, // 2^31 - 1
    0x47ef_ffff_e000_0000, // f32 MAX
    0x47ef_ffff_f000_0000, // halfway above f32 MAX
    0x36a0_0000_0000_0000, // f32 min subnormal
    0x3690_0000_0000_0000, // half of it
];

fn f32s() -> impl Strategy<Value = u64> {
    prop_oneof![
        3 => any::<u32>().prop_map(u64::from),
        3 => prop::sample::select(EDGE_F32).prop_map(u64::from),
        4 => (-1.0e4f32..1.0e4f32).prop_map(|x| u64::from(x.to_bits())),
        1 => (-64i32..64).prop_map(|i| u64::from((i as f32 * 0.5).to_bits())),
        1 => (any::<bool>(), -149i32..128).prop_map(|(s, e)| {
            u64::from((if s { -1.0f32 } else { 1.0 } * (e as f32).exp2()).to_bits())
        }),
        1 => (any::<bool>(), 1u32..0x80_0000).prop_map(|(s, m)| u64::from(m | if s { 0x8000_0000 } else { 0 })),
    ]
}

fn f64s() -> impl Strategy<Value = u64> {
    prop_oneof![
        3 => any::<u64>(),
        3 => prop::sample::select(EDGE_F64),
        4 => (-1.0e4f64..1.0e4f64).prop_map(f64::to_bits),
        1 => (-64i32..64).prop_map(|i| (f64::from(i) * 0.5).to_bits()),
        1 => (any::<bool>(), -1074i32..1024).prop_map(|(s, e)| {
            (if s { -1.0f64 } else { 1.0 } * f64::from(e).exp2()).to_bits()
        }),
        1 => (any::<bool>(), 1u64..(1 << 52)).prop_map(|(s, m)| m | if s { 1 << 63 } else { 0 }),
    ]
}

// ---------------------------------------------------------------------------------------------
// Integer references (PTX ISA 9.7.1, 9.7.8, 9.7.9)
// ---------------------------------------------------------------------------------------------

fn mask(bits: u32) -> u64 {
    if bits >= 64 {
        u64::MAX
    } else {
        (1u64 << bits) - 1
    }
}

fn sx(v: u64, bits: u32) -> i128 {
    let v = v & mask(bits);
    if bits < 128 && v >> (bits - 1) & 1 == 1 {
        i128::from(v) - (1i128 << bits)
    } else {
        i128::from(v)
    }
}

fn zx(v: u64, bits: u32) -> i128 {
    i128::from(v & mask(bits))
}

fn val(v: u64, bits: u32, signed: bool) -> i128 {
    if signed {
        sx(v, bits)
    } else {
        zx(v, bits)
    }
}

fn bits(x: u64) -> Want {
    Want::Bits(x)
}

/// `bfe`: the field `a[pos .. pos+len)` (pos, len taken mod 256), bits past the register's top
/// read as the sign bit (signed) or 0; the result is sign- or zero-extended from the field.
fn bfe_ref(a: u64, pos: u64, len: u64, w: u32, signed: bool) -> u64 {
    let (pos, len) = ((pos & 0xff) as u32, (len & 0xff) as u32);
    let a = a & mask(w);
    let avail = w.saturating_sub(pos);
    let eff = len.min(avail);
    let field = if eff == 0 { 0 } else { (a >> pos) & mask(eff) };
    let sbit = signed && len > 0 && (a >> (pos + len - 1).min(w - 1)) & 1 == 1;
    if sbit {
        field | (mask(w) & !mask(eff))
    } else {
        field
    }
}

/// `bfi`: insert the low `len` bits of `a` into `b` at `pos` (bits past the top are dropped).
fn bfi_ref(a: u64, b: u64, pos: u64, len: u64, w: u32) -> u64 {
    let (pos, len) = ((pos & 0xff) as u32, (len & 0xff) as u32);
    let eff = len.min(w.saturating_sub(pos));
    if eff == 0 {
        return b & mask(w);
    }
    let m = mask(eff) << pos;
    ((b & !m) | ((a << pos) & m)) & mask(w)
}

/// `prmt.b32` default mode: result byte i is byte `c[4i+2:4i]` of {b, a} (a = bytes 0..3), or,
/// if `c[4i+3]` is set, that byte's sign replicated.
fn prmt_ref(a: u32, b: u32, c: u32) -> u32 {
    let src = (u64::from(b) << 32) | u64::from(a);
    let mut r = 0u32;
    for i in 0..4 {
        let sel = (c >> (4 * i)) & 0xf;
        let byte = ((src >> (8 * (sel & 7))) & 0xff) as u32;
        let v = if sel & 8 != 0 {
            if byte & 0x80 != 0 {
                0xff
            } else {
                0
            }
        } else {
            byte
        };
        r |= v << (8 * i);
    }
    r
}

/// `prmt.b32.mode`: the ISA's table of source bytes [d.b3, d.b2, d.b1, d.b0] for each
/// selector c[1:0], in the order f4e, b4e, rc8, ecl, ecr, rc16.
const PRMT_MODES: [(&str, [[u32; 4]; 4]); 6] = [
    (
        "f4e",
        [[3, 2, 1, 0], [4, 3, 2, 1], [5, 4, 3, 2], [6, 5, 4, 3]],
    ),
    (
        "b4e",
        [[5, 6, 7, 0], [6, 7, 0, 1], [7, 0, 1, 2], [0, 1, 2, 3]],
    ),
    (
        "rc8",
        [[0, 0, 0, 0], [1, 1, 1, 1], [2, 2, 2, 2], [3, 3, 3, 3]],
    ),
    (
        "ecl",
        [[3, 2, 1, 0], [3, 2, 1, 1], [3, 2, 2, 2], [3, 3, 3, 3]],
    ),
    (
        "ecr",
        [[0, 0, 0, 0], [1, 1, 1, 0], [2, 2, 1, 0], [3, 2, 1, 0]],
    ),
    (
        "rc16",
        [[1, 0, 1, 0], [3, 2, 3, 2], [1, 0, 1, 0], [3, 2, 3, 2]],
    ),
];

fn prmt_mode_ref(a: u32, b: u32, c: u32, table: &[[u32; 4]; 4]) -> u32 {
    let src = (u64::from(b) << 32) | u64::from(a);
    let row = table[(c & 3) as usize];
    let mut r = 0u32;
    for (i, sel) in row.iter().rev().enumerate() {
        r |= (((src >> (8 * sel)) & 0xff) as u32) << (8 * i);
    }
    r
}

/// `szext` per the ISA's semantics block.
fn szext_ref(a: u32, b: u32, clamp: bool, signed: bool) -> u32 {
    let b1 = b & 0x1f;
    let too_large = b >= 32 && clamp;
    let mask = if too_large { 0 } else { !0u32 << b1 };
    let sign = !(b1 == 0 || too_large || !signed) && (a >> ((b1.wrapping_sub(1)) & 0x1f)) & 1 == 1;
    (a & !mask) | if sign { mask } else { 0 }
}

/// `bmsk` per the ISA's semantics block.
fn bmsk_ref(a: u32, b: u32, clamp: bool) -> u32 {
    let a1 = a & 0x1f;
    let mut mask0 = !0u32 << a1;
    let b1 = b & 0x1f;
    let sum = a1 + b1;
    let mut overflow = sum >= 32;
    if clamp {
        if a >= 32 {
            overflow = true;
            mask0 = 0;
        }
        if b >= 32 {
            overflow = true;
        }
    }
    let mask1 = if overflow {
        0
    } else if b1 == 0 {
        !0
    } else {
        !0u32 << sum
    };
    mask0 & !mask1
}

/// `fns` per the ISA's semantics block (base <= 31).
fn fns_ref(mask: u32, base: u32, offset: i32) -> u32 {
    if offset == 0 {
        return if mask >> base & 1 == 1 {
            base
        } else {
            0xffff_ffff
        };
    }
    let mut pos = base as i32;
    let mut count = offset.unsigned_abs() - 1;
    let inc = if offset > 0 { 1 } else { -1 };
    while (0..32).contains(&pos) {
        if mask >> pos & 1 == 1 {
            if count == 0 {
                return pos as u32;
            }
            count -= 1;
        }
        pos += inc;
    }
    0xffff_ffff
}

/// `lop3`: the sum of the minterms selected by `lut` (a is index bit 2, b bit 1, c bit 0).
fn lop3_ref(a: u32, b: u32, c: u32, lut: u8) -> u32 {
    let mut r = 0;
    for i in 0..8 {
        if lut >> i & 1 == 1 {
            let x = if i & 4 != 0 { a } else { !a };
            let y = if i & 2 != 0 { b } else { !b };
            let z = if i & 1 != 0 { c } else { !c };
            r |= x & y & z;
        }
    }
    r
}

/// `shf` per the ISA's semantics block.
fn shf_ref(a: u32, b: u32, c: u32, left: bool, clamp: bool) -> u32 {
    let n = if clamp { c.min(32) } else { c & 0x1f };
    if left {
        b.checked_shl(n).unwrap_or(0) | a.checked_shr(32 - n).unwrap_or(0)
    } else {
        b.checked_shl(32 - n).unwrap_or(0) | a.checked_shr(n).unwrap_or(0)
    }
}

/// Integer `cvt.dtype.stype` (with `.sat`), as the destination register holds it: the source is
/// read at its type, clamped (`.sat`) or truncated to the destination type, then sign- or
/// zero-extended to the register by the destination type.
fn cvt_int_ref(v: u64, st: (u32, bool), dt: (u32, bool), sat: bool) -> u64 {
    let x = val(v, st.0, st.1);
    let y = if sat {
        let (lo, hi) = if dt.1 {
            (-(1i128 << (dt.0 - 1)), (1i128 << (dt.0 - 1)) - 1)
        } else {
            (0, (1i128 << dt.0) - 1)
        };
        x.clamp(lo, hi)
    } else {
        x
    };
    (val(y as u64, dt.0, dt.1)) as u64
}

// ---------------------------------------------------------------------------------------------
// Float references
// ---------------------------------------------------------------------------------------------

#[derive(Clone, Copy, PartialEq, Eq, Debug)]
enum Rnd {
    Rn,
    Rz,
    Rm,
    Rp,
}

const MODES: [Rnd; 4] = [Rnd::Rn, Rnd::Rz, Rnd::Rm, Rnd::Rp];

impl Rnd {
    fn ptx(self) -> &'static str {
        match self {
            Rnd::Rn => "rn",
            Rnd::Rz => "rz",
            Rnd::Rm => "rm",
            Rnd::Rp => "rp",
        }
    }
}

trait Fl:
    Copy
    + PartialOrd
    + std::fmt::Debug
    + std::ops::Add<Output = Self>
    + std::ops::Sub<Output = Self>
    + std::ops::Mul<Output = Self>
    + std::ops::Div<Output = Self>
    + std::ops::Neg<Output = Self>
{
    const T: T;
    const BITS: u32;
    /// Exponent of the lowest bit of the smallest subnormal.
    const MIN_ULP_EXP: i32;
    const MANT: u32;
    const BIAS: i32;
    /// NaN results must be exactly this (f32: measured canonical NaN); None: any NaN.
    const NAN: Option<u64>;
    fn to_u(self) -> u64;
    fn from_u(b: u64) -> Self;
    fn fma(self, b: Self, c: Self) -> Self;
    fn sqrt(self) -> Self;
    fn zero() -> Self {
        Self::from_u(0)
    }
    fn one() -> Self {
        Self::from_u(u64::from(Self::BIAS as u32) << Self::MANT)
    }
    fn max_finite() -> Self {
        Self::from_u(Self::inf().to_u() - 1)
    }
    fn inf() -> Self {
        Self::from_u(mask(Self::BITS - 1) >> Self::MANT << Self::MANT)
    }
    fn is_nan(self) -> bool {
        self.partial_cmp(&self).is_none()
    }
    fn is_finite(self) -> bool {
        !self.is_nan() && self.abs_u() < Self::inf().to_u()
    }
    fn abs_u(self) -> u64 {
        self.to_u() & mask(Self::BITS - 1)
    }
    fn neg_sign(self) -> bool {
        self.to_u() >> (Self::BITS - 1) == 1
    }
    fn is_pos_zero(self) -> bool {
        self.to_u() == 0
    }
    /// Exponent of the unit in the last place (large for zero).
    fn ulp_exp(self) -> i32 {
        if self.abs_u() == 0 {
            return 1 << 20;
        }
        let e = (self.abs_u() >> Self::MANT) as i32;
        if e == 0 {
            Self::MIN_ULP_EXP
        } else {
            e - Self::BIAS - Self::MANT as i32
        }
    }
    fn next_up(self) -> Self {
        if self.abs_u() == 0 {
            Self::from_u(1)
        } else if !self.neg_sign() {
            Self::from_u(self.to_u() + 1)
        } else {
            Self::from_u(self.to_u() - 1)
        }
    }
    fn next_down(self) -> Self {
        -(-self).next_up()
    }
}

impl Fl for f32 {
    const T: T = T::F32;
    const BITS: u32 = 32;
    const MIN_ULP_EXP: i32 = -149;
    const MANT: u32 = 23;
    const BIAS: i32 = 127;
    const NAN: Option<u64> = Some(0x7fff_ffff);
    fn to_u(self) -> u64 {
        u64::from(self.to_bits())
    }
    fn from_u(b: u64) -> Self {
        f32::from_bits(b as u32)
    }
    fn fma(self, b: Self, c: Self) -> Self {
        self.mul_add(b, c)
    }
    fn sqrt(self) -> Self {
        f32::sqrt(self)
    }
}

impl Fl for f64 {
    const T: T = T::F64;
    const BITS: u32 = 64;
    const MIN_ULP_EXP: i32 = -1074;
    const MANT: u32 = 52;
    const BIAS: i32 = 1023;
    const NAN: Option<u64> = None;
    fn to_u(self) -> u64 {
        self.to_bits()
    }
    fn from_u(b: u64) -> Self {
        f64::from_bits(b)
    }
    fn fma(self, b: Self, c: Self) -> Self {
        self.mul_add(b, c)
    }
    fn sqrt(self) -> Self {
        f64::sqrt(self)
    }
}

fn nan_want<F: Fl>() -> Want {
    match F::NAN {
        Some(b) => Want::Bits(b),
        None => Want::AnyNan,
    }
}

/// `x` as the expected result (NaN results as the format's NaN rule).
fn fwant<F: Fl>(x: F) -> Want {
    if x.is_nan() {
        nan_want::<F>()
    } else {
        Want::Bits(x.to_u())
    }
}

/// Knuth's TwoSum: s + e == a + b exactly (if s does not overflow).
fn two_sum<F: Fl>(a: F, b: F) -> Option<(F, F)> {
    let s = a + b;
    if !s.is_finite() {
        return None;
    }
    let bb = s - a;
    let e = (a - (s - bb)) + (b - bb);
    Some((s, e))
}

/// p + e == a * b exactly, where that holds: the product's last bit is representable.
fn two_prod<F: Fl>(a: F, b: F) -> Option<(F, F)> {
    let p = a * b;
    if !p.is_finite() || a.ulp_exp().saturating_add(b.ulp_exp()) < F::MIN_ULP_EXP {
        return None;
    }
    Some((p, a.fma(b, -p)))
}

/// The exact sign of the sum of `terms`, by growing a nonoverlapping expansion (Shewchuk).
fn exact_sign<F: Fl>(terms: &[F]) -> Option<Ordering> {
    let mut e: Vec<F> = Vec::new();
    for &t in terms {
        let mut q = t;
        let mut h = Vec::with_capacity(e.len() + 1);
        for &c in &e {
            let (s, err) = two_sum(q, c)?;
            h.push(err);
            q = s;
        }
        h.push(q);
        e = h;
    }
    for c in e.iter().rev() {
        if *c > F::zero() {
            return Some(Ordering::Greater);
        }
        if *c < F::zero() {
            return Some(Ordering::Less);
        }
    }
    Some(Ordering::Equal)
}

/// The result in mode `m` given the nearest result `rn` and the sign of `exact - rn` (nonzero).
fn directed<F: Fl>(m: Rnd, rn: F, ord: Ordering) -> F {
    let (down, up) = if ord == Ordering::Greater {
        (rn, rn.next_up())
    } else {
        (rn.next_down(), rn)
    };
    let positive = if ord == Ordering::Greater {
        rn >= F::zero()
    } else {
        rn > F::zero()
    };
    match m {
        Rnd::Rn => rn,
        Rnd::Rz => {
            if positive {
                down
            } else {
                up
            }
        }
        Rnd::Rm => down,
        Rnd::Rp => up,
    }
}

/// The result in mode `m` of an exact value whose nearest rounding overflowed to `rn` (±inf).
fn overflowed<F: Fl>(m: Rnd, rn: F) -> F {
    let neg = rn.neg_sign();
    let max = if neg {
        -F::max_finite()
    } else {
        F::max_finite()
    };
    match (m, neg) {
        (Rnd::Rn, _) => rn,
        (Rnd::Rz, _) => max,
        (Rnd::Rm, false) | (Rnd::Rp, true) => max,
        (Rnd::Rm, true) | (Rnd::Rp, false) => rn,
    }
}

#[derive(Clone, Copy, PartialEq, Eq, Debug)]
enum FOp {
    Add,
    Sub,
    Mul,
    Div,
    Fma,
}

impl FOp {
    fn ptx(self) -> &'static str {
        match self {
            FOp::Add => "add",
            FOp::Sub => "sub",
            FOp::Mul => "mul",
            FOp::Div => "div",
            FOp::Fma => "fma",
        }
    }
}

/// The correctly rounded `op` in mode `m`, or `Skip` where the exact error is out of reach.
fn arith_ref<F: Fl>(op: FOp, m: Rnd, a: F, b: F, c: F) -> Want {
    let rn = match op {
        FOp::Add => a + b,
        FOp::Sub => a - b,
        FOp::Mul => a * b,
        FOp::Div => a / b,
        FOp::Fma => a.fma(b, c),
    };
    if rn.is_nan() {
        return nan_want::<F>();
    }
    if m == Rnd::Rn {
        return Want::Bits(rn.to_u());
    }
    let finite = a.is_finite() && b.is_finite() && (op != FOp::Fma || c.is_finite());
    if !finite || (op == FOp::Div && b.abs_u() == 0) {
        // Infinite operands or division by zero: exact infinities, zeros and NaNs.
        return Want::Bits(rn.to_u());
    }
    if !rn.is_finite() {
        return Want::Bits(overflowed(m, rn).to_u());
    }
    let ord = match op {
        FOp::Add => exact_sign(&[a, b, -rn]),
        FOp::Sub => exact_sign(&[a, -b, -rn]),
        FOp::Mul => two_prod(a, b).and_then(|(p, e)| exact_sign(&[p, e, -rn])),
        FOp::Fma => match two_prod(a, b) {
            Some((p, e)) => exact_sign(&[p, e, c, -rn]),
            // The product is not exact, but if the result is c, the error is the product.
            None if rn == c && a.abs_u() != 0 && b.abs_u() != 0 => {
                Some(if a.neg_sign() == b.neg_sign() {
                    Ordering::Greater
                } else {
                    Ordering::Less
                })
            }
            None => None,
        },
        FOp::Div => two_prod(rn, b).and_then(|(p, e)| {
            // exact - q has the sign of (a - q*b) / b.
            let s = exact_sign(&[a, -p, -e])?;
            Some(if b.neg_sign() { s.reverse() } else { s })
        }),
    };
    let Some(ord) = ord else {
        return Want::Skip;
    };
    if ord != Ordering::Equal {
        return Want::Bits(directed(m, rn, ord).to_u());
    }
    // Exact. An exact zero sum of two addends is -0 under .rm unless both addends are +0.
    if rn.abs_u() == 0 && m == Rnd::Rm {
        let (x_pos_zero, y_pos_zero) = match op {
            FOp::Add => (a.is_pos_zero(), b.is_pos_zero()),
            FOp::Sub => (a.is_pos_zero(), b.to_u() == 1 << (F::BITS - 1)),
            FOp::Fma => (
                (a.abs_u() == 0 || b.abs_u() == 0) && a.neg_sign() == b.neg_sign(),
                c.is_pos_zero(),
            ),
            _ => return Want::Bits(rn.to_u()),
        };
        let z = if x_pos_zero && y_pos_zero {
            F::zero()
        } else {
            -F::zero()
        };
        return Want::Bits(z.to_u());
    }
    Want::Bits(rn.to_u())
}

/// `sqrt` in mode `m`: the sign of `sqrt(a) - s` is the sign of `a - s*s`.
fn sqrt_ref<F: Fl>(m: Rnd, a: F) -> Want {
    let rn = a.sqrt();
    if rn.is_nan() {
        return nan_want::<F>();
    }
    if m == Rnd::Rn || !rn.is_finite() || rn.abs_u() == 0 {
        return Want::Bits(rn.to_u());
    }
    match two_prod(rn, rn).and_then(|(p, e)| exact_sign(&[a, -p, -e])) {
        None => Want::Skip,
        Some(Ordering::Equal) => Want::Bits(rn.to_u()),
        Some(ord) => Want::Bits(directed(m, rn, ord).to_u()),
    }
}

/// `x` with subnormals flushed to zero of the same sign.
fn ftz<F: Fl>(x: F) -> F {
    if x.abs_u() != 0 && x.abs_u() < F::from_u(1 << F::MANT).to_u() {
        if x.neg_sign() {
            -F::zero()
        } else {
            F::zero()
        }
    } else {
        x
    }
}

/// `min`/`max`: one NaN operand gives the other, two give NaN; -0 < +0.
fn minmax_ref<F: Fl>(max: bool, a: F, b: F) -> Want {
    match (a.is_nan(), b.is_nan()) {
        (true, true) => return nan_want::<F>(),
        (true, false) => return Want::Bits(b.to_u()),
        (false, true) => return Want::Bits(a.to_u()),
        _ => {}
    }
    let lt = |x: F, y: F| x < y || (x == y && x.neg_sign() && !y.neg_sign());
    let pick_a = if max { !lt(a, b) } else { !lt(b, a) };
    Want::Bits(if pick_a { a.to_u() } else { b.to_u() })
}

// ---------------------------------------------------------------------------------------------
// Integer properties
// ---------------------------------------------------------------------------------------------

proptest! {
    #![proptest_config(cfg())]

    #[test]
    fn int_add_sub_mul_32(v in prop::collection::vec((u32s(), u32s()), N)) {
        let mut k = K::new("int_add_sub_mul_32");
        k.input(T::B32, col(&v, |x| x.0)).input(T::B32, col(&v, |x| x.1));
        let s = |x: &[u64]| (x[0] as u32 as i32, x[1] as u32 as i32);
        let u = |x: &[u64]| (x[0] as u32, x[1] as u32);
        k.out(T::B32, "add.s32 {d}, %i0, %i1", move |x| { let (a, b) = s(x); bits(a.wrapping_add(b) as u32 as u64) })
         .out(T::B32, "sub.s32 {d}, %i0, %i1", move |x| { let (a, b) = s(x); bits(a.wrapping_sub(b) as u32 as u64) })
         .out(T::B32, "add.u32 {d}, %i0, %i1", move |x| { let (a, b) = u(x); bits(u64::from(a.wrapping_add(b))) })
         .out(T::B32, "sub.u32 {d}, %i0, %i1", move |x| { let (a, b) = u(x); bits(u64::from(a.wrapping_sub(b))) })
         .out(T::B32, "add.sat.s32 {d}, %i0, %i1", move |x| { let (a, b) = s(x); bits(a.saturating_add(b) as u32 as u64) })
         .out(T::B32, "sub.sat.s32 {d}, %i0, %i1", move |x| { let (a, b) = s(x); bits(a.saturating_sub(b) as u32 as u64) })
         .out(T::B32, "mul.lo.s32 {d}, %i0, %i1", move |x| { let (a, b) = s(x); bits(a.wrapping_mul(b) as u32 as u64) })
         .out(T::B32, "mul.lo.u32 {d}, %i0, %i1", move |x| { let (a, b) = u(x); bits(u64::from(a.wrapping_mul(b))) })
         .out(T::B32, "mul.hi.s32 {d}, %i0, %i1", move |x| { let (a, b) = s(x); bits(((i64::from(a) * i64::from(b)) >> 32) as u64) })
         .out(T::B32, "mul.hi.u32 {d}, %i0, %i1", move |x| { let (a, b) = u(x); bits((u64::from(a) * u64::from(b)) >> 32) })
         .out(T::B64, "mul.wide.s32 {d}, %i0, %i1", move |x| { let (a, b) = s(x); bits((i64::from(a) * i64::from(b)) as u64) })
         .out(T::B64, "mul.wide.u32 {d}, %i0, %i1", move |x| { let (a, b) = u(x); bits(u64::from(a) * u64::from(b)) });
        k.check()?;
    }

    #[test]
    fn int_add_sub_mul_64(v in prop::collection::vec((u64s(), u64s()), N)) {
        let mut k = K::new("int_add_sub_mul_64");
        k.input(T::B64, col(&v, |x| x.0)).input(T::B64, col(&v, |x| x.1));
        k.out(T::B64, "add.s64 {d}, %i0, %i1", |x| bits((x[0] as i64).wrapping_add(x[1] as i64) as u64))
         .out(T::B64, "sub.s64 {d}, %i0, %i1", |x| bits((x[0] as i64).wrapping_sub(x[1] as i64) as u64))
         .out(T::B64, "add.u64 {d}, %i0, %i1", |x| bits(x[0].wrapping_add(x[1])))
         .out(T::B64, "sub.u64 {d}, %i0, %i1", |x| bits(x[0].wrapping_sub(x[1])))
         .out(T::B64, "mul.lo.s64 {d}, %i0, %i1", |x| bits((x[0] as i64).wrapping_mul(x[1] as i64) as u64))
         .out(T::B64, "mul.lo.u64 {d}, %i0, %i1", |x| bits(x[0].wrapping_mul(x[1])))
         .out(T::B64, "mul.hi.s64 {d}, %i0, %i1", |x| bits(((i128::from(x[0] as i64) * i128::from(x[1] as i64)) >> 64) as u64))
         .out(T::B64, "mul.hi.u64 {d}, %i0, %i1", |x| bits(((u128::from(x[0]) * u128::from(x[1])) >> 64) as u64));
        k.check()?;
    }

    #[test]
    fn int_mad(v in prop::collection::vec((u32s(), u32s(), u32s(), u64s()), N)) {
        let mut k = K::new("int_mad");
        k.input(T::B32, col(&v, |x| x.0)).input(T::B32, col(&v, |x| x.1))
         .input(T::B32, col(&v, |x| x.2)).input(T::B64, col(&v, |x| x.3));
        let s = |x: &[u64]| (i64::from(x[0] as u32 as i32), i64::from(x[1] as u32 as i32), x[2] as u32);
        let u = |x: &[u64]| (x[0] & 0xffff_ffff, x[1] & 0xffff_ffff, x[2] as u32);
        k.out(T::B32, "mad.lo.s32 {d}, %i0, %i1, %i2", move |x| { let (a, b, c) = s(x); bits(u64::from((a * b) as u32).wrapping_add(u64::from(c)) & 0xffff_ffff) })
         .out(T::B32, "mad.hi.s32 {d}, %i0, %i1, %i2", move |x| { let (a, b, c) = s(x); bits(u64::from(((a * b) >> 32) as u32 ).wrapping_add(u64::from(c)) & 0xffff_ffff) })
         .out(T::B32, "mad.lo.u32 {d}, %i0, %i1, %i2", move |x| { let (a, b, c) = u(x); bits((a * b + u64::from(c)) & 0xffff_ffff) })
         .out(T::B32, "mad.hi.u32 {d}, %i0, %i1, %i2", move |x| { let (a, b, c) = u(x); bits((((a * b) >> 32) + u64::from(c)) & 0xffff_ffff) })
         .out(T::B64, "mad.wide.s32 {d}, %i0, %i1, %i3", move |x| { let (a, b, _) = s(x); bits(((a * b) as u64).wrapping_add(x[3])) })
         .out(T::B64, "mad.wide.u32 {d}, %i0, %i1, %i3", move |x| { let (a, b, _) = u(x); bits((a * b).wrapping_add(x[3])) });
        k.check()?;
    }

    #[test]
    fn int_mad_64(v in prop::collection::vec((u64s(), u64s(), u64s()), N)) {
        let mut k = K::new("int_mad_64");
        k.input(T::B64, col(&v, |x| x.0)).input(T::B64, col(&v, |x| x.1)).input(T::B64, col(&v, |x| x.2));
        k.out(T::B64, "mad.lo.s64 {d}, %i0, %i1, %i2", |x| bits((x[0] as i64).wrapping_mul(x[1] as i64).wrapping_add(x[2] as i64) as u64))
         .out(T::B64, "mad.lo.u64 {d}, %i0, %i1, %i2", |x| bits(x[0].wrapping_mul(x[1]).wrapping_add(x[2])))
         .out(T::B64, "mad.hi.s64 {d}, %i0, %i1, %i2", |x| bits((((i128::from(x[0] as i64) * i128::from(x[1] as i64)) >> 64) as u64).wrapping_add(x[2])))
         .out(T::B64, "mad.hi.u64 {d}, %i0, %i1, %i2", |x| bits((((u128::from(x[0]) * u128::from(x[1])) >> 64) as u64).wrapping_add(x[2])));
        k.check()?;
    }

    #[test]
    fn int_div_rem(v in prop::collection::vec((u32s(), u32s(), u64s(), u64s()), N)) {
        let mut k = K::new("int_div_rem");
        k.input(T::B32, col(&v, |x| x.0)).input(T::B32, col(&v, |x| x.1))
         .input(T::B64, col(&v, |x| x.2)).input(T::B64, col(&v, |x| x.3));
        // Division by zero and MIN / -1 are undefined: skipped.
        let s32 = |x: &[u64]| { let (a, b) = (x[0] as u32 as i32, x[1] as u32 as i32); (b != 0 && !(a == i32::MIN && b == -1)).then_some((a, b)) };
        let u32_ = |x: &[u64]| { let (a, b) = (x[0] as u32, x[1] as u32); (b != 0).then_some((a, b)) };
        let s64 = |x: &[u64]| { let (a, b) = (x[2] as i64, x[3] as i64); (b != 0 && !(a == i64::MIN && b == -1)).then_some((a, b)) };
        let u64_ = |x: &[u64]| { let (a, b) = (x[2], x[3]); (b != 0).then_some((a, b)) };
        let w = |o: Option<u64>| o.map_or(Want::Skip, Want::Bits);
        k.out(T::B32, "div.s32 {d}, %i0, %i1", move |x| w(s32(x).map(|(a, b)| (a / b) as u32 as u64)))
         .out(T::B32, "rem.s32 {d}, %i0, %i1", move |x| w(s32(x).map(|(a, b)| (a % b) as u32 as u64)))
         .out(T::B32, "div.u32 {d}, %i0, %i1", move |x| w(u32_(x).map(|(a, b)| u64::from(a / b))))
         .out(T::B32, "rem.u32 {d}, %i0, %i1", move |x| w(u32_(x).map(|(a, b)| u64::from(a % b))))
         .out(T::B64, "div.s64 {d}, %i2, %i3", move |x| w(s64(x).map(|(a, b)| (a / b) as u64)))
         .out(T::B64, "rem.s64 {d}, %i2, %i3", move |x| w(s64(x).map(|(a, b)| (a % b) as u64)))
         .out(T::B64, "div.u64 {d}, %i2, %i3", move |x| w(u64_(x).map(|(a, b)| a / b)))
         .out(T::B64, "rem.u64 {d}, %i2, %i3", move |x| w(u64_(x).map(|(a, b)| a % b)));
        k.check()?;
    }

    #[test]
    fn int_min_max_abs_neg(v in prop::collection::vec((u32s(), u32s(), u64s(), u64s()), N)) {
        let mut k = K::new("int_min_max_abs_neg");
        k.input(T::B32, col(&v, |x| x.0)).input(T::B32, col(&v, |x| x.1))
         .input(T::B64, col(&v, |x| x.2)).input(T::B64, col(&v, |x| x.3));
        let s32 = |x: &[u64]| (x[0] as u32 as i32, x[1] as u32 as i32);
        let u32_ = |x: &[u64]| (x[0] as u32, x[1] as u32);
        k.out(T::B32, "min.s32 {d}, %i0, %i1", move |x| { let (a, b) = s32(x); bits(a.min(b) as u32 as u64) })
         .out(T::B32, "max.s32 {d}, %i0, %i1", move |x| { let (a, b) = s32(x); bits(a.max(b) as u32 as u64) })
         .out(T::B32, "min.u32 {d}, %i0, %i1", move |x| { let (a, b) = u32_(x); bits(u64::from(a.min(b))) })
         .out(T::B32, "max.u32 {d}, %i0, %i1", move |x| { let (a, b) = u32_(x); bits(u64::from(a.max(b))) })
         .out(T::B64, "min.s64 {d}, %i2, %i3", |x| bits((x[2] as i64).min(x[3] as i64) as u64))
         .out(T::B64, "max.s64 {d}, %i2, %i3", |x| bits((x[2] as i64).max(x[3] as i64) as u64))
         .out(T::B64, "min.u64 {d}, %i2, %i3", |x| bits(x[2].min(x[3])))
         .out(T::B64, "max.u64 {d}, %i2, %i3", |x| bits(x[2].max(x[3])))
         .out(T::B32, "min.relu.s32 {d}, %i0, %i1", move |x| { let (a, b) = s32(x); bits(a.min(b).max(0) as u32 as u64) })
         .out(T::B32, "max.relu.s32 {d}, %i0, %i1", move |x| { let (a, b) = s32(x); bits(a.max(b).max(0) as u32 as u64) })
         // |MIN| does not fit: two's complement wraps to MIN.
         .out(T::B32, "abs.s32 {d}, %i0", |x| bits(u64::from((x[0] as u32 as i32).unsigned_abs())))
         .out(T::B32, "neg.s32 {d}, %i0", |x| bits(u64::from((x[0] as u32).wrapping_neg())))
         .out(T::B64, "abs.s64 {d}, %i2", |x| bits((x[2] as i64).unsigned_abs()))
         .out(T::B64, "neg.s64 {d}, %i2", |x| bits(x[2].wrapping_neg()));
        k.check()?;
    }

    #[test]
    fn int_logic(v in prop::collection::vec((u32s(), u32s(), u64s(), u64s()), N)) {
        let mut k = K::new("int_logic");
        k.input(T::B32, col(&v, |x| x.0)).input(T::B32, col(&v, |x| x.1))
         .input(T::B64, col(&v, |x| x.2)).input(T::B64, col(&v, |x| x.3));
        k.out(T::B32, "and.b32 {d}, %i0, %i1", |x| bits(x[0] & x[1]))
         .out(T::B32, "or.b32 {d}, %i0, %i1", |x| bits(x[0] | x[1]))
         .out(T::B32, "xor.b32 {d}, %i0, %i1", |x| bits(x[0] ^ x[1]))
         .out(T::B32, "not.b32 {d}, %i0", |x| bits(!x[0]))
         .out(T::B32, "cnot.b32 {d}, %i0", |x| bits(u64::from(x[0] as u32 == 0)))
         .out(T::B64, "and.b64 {d}, %i2, %i3", |x| bits(x[2] & x[3]))
         .out(T::B64, "or.b64 {d}, %i2, %i3", |x| bits(x[2] | x[3]))
         .out(T::B64, "xor.b64 {d}, %i2, %i3", |x| bits(x[2] ^ x[3]))
         .out(T::B64, "not.b64 {d}, %i2", |x| bits(!x[2]))
         .out(T::B64, "cnot.b64 {d}, %i2", |x| bits(u64::from(x[2] == 0)));
        k.check()?;
    }

    #[test]
    fn int_shifts(v in prop::collection::vec((u32s(), small(40), u64s(), small(70)), N)) {
        let mut k = K::new("int_shifts");
        k.input(T::B32, col(&v, |x| x.0)).input(T::B32, col(&v, |x| x.1))
         .input(T::B64, col(&v, |x| x.2)).input(T::B32, col(&v, |x| x.3));
        // Shift amounts are unsigned 32-bit; amounts past the width shift everything out.
        k.out(T::B32, "shl.b32 {d}, %i0, %i1", |x| bits(u64::from((x[0] as u32).checked_shl(x[1] as u32).unwrap_or(0))))
         .out(T::B32, "shr.u32 {d}, %i0, %i1", |x| bits(u64::from((x[0] as u32).checked_shr(x[1] as u32).unwrap_or(0))))
         .out(T::B32, "shr.s32 {d}, %i0, %i1", |x| bits(((x[0] as u32 as i32) >> (x[1] as u32).min(31)) as u32 as u64))
         .out(T::B32, "shr.b32 {d}, %i0, %i1", |x| bits(u64::from((x[0] as u32).checked_shr(x[1] as u32).unwrap_or(0))))
         .out(T::B64, "shl.b64 {d}, %i2, %i3", |x| bits(x[2].checked_shl(x[3] as u32).unwrap_or(0)))
         .out(T::B64, "shr.u64 {d}, %i2, %i3", |x| bits(x[2].checked_shr(x[3] as u32).unwrap_or(0)))
         .out(T::B64, "shr.s64 {d}, %i2, %i3", |x| bits(((x[2] as i64) >> (x[3] as u32).min(63)) as u64));
        k.check()?;
    }

    #[test]
    fn int_bit_counts(v in prop::collection::vec((u32s(), u64s()), N)) {
        let mut k = K::new("int_bit_counts");
        k.input(T::B32, col(&v, |x| x.0)).input(T::B64, col(&v, |x| x.1));
        k.out(T::B32, "popc.b32 {d}, %i0", |x| bits(u64::from((x[0] as u32).count_ones())))
         .out(T::B32, "clz.b32 {d}, %i0", |x| bits(u64::from((x[0] as u32).leading_zeros())))
         .out(T::B32, "brev.b32 {d}, %i0", |x| bits(u64::from((x[0] as u32).reverse_bits())))
         .out(T::B32, "popc.b64 {d}, %i1", |x| bits(u64::from(x[1].count_ones())))
         .out(T::B32, "clz.b64 {d}, %i1", |x| bits(u64::from(x[1].leading_zeros())))
         .out(T::B64, "brev.b64 {d}, %i1", |x| bits(x[1].reverse_bits()));
        k.check()?;
    }

    #[test]
    fn int_bfe_bfi_32(v in prop::collection::vec((u32s(), u32s(), small(40), small(40)), N)) {
        let mut k = K::new("int_bfe_bfi_32");
        k.input(T::B32, col(&v, |x| x.0)).input(T::B32, col(&v, |x| x.1))
         .input(T::B32, col(&v, |x| x.2)).input(T::B32, col(&v, |x| x.3));
        k.out(T::B32, "bfe.u32 {d}, %i0, %i2, %i3", |x| bits(bfe_ref(x[0], x[2], x[3], 32, false)))
         .out(T::B32, "bfe.s32 {d}, %i0, %i2, %i3", |x| bits(bfe_ref(x[0], x[2], x[3], 32, true)))
         .out(T::B32, "bfi.b32 {d}, %i0, %i1, %i2, %i3", |x| bits(bfi_ref(x[0], x[1], x[2], x[3], 32)));
        k.check()?;
    }

    #[test]
    fn int_bfe_bfi_64(v in prop::collection::vec((u64s(), u64s(), small(72), small(72)), N)) {
        let mut k = K::new("int_bfe_bfi_64");
        k.input(T::B64, col(&v, |x| x.0)).input(T::B64, col(&v, |x| x.1))
         .input(T::B32, col(&v, |x| x.2)).input(T::B32, col(&v, |x| x.3));
        k.out(T::B64, "bfe.u64 {d}, %i0, %i2, %i3", |x| bits(bfe_ref(x[0], x[2], x[3], 64, false)))
         .out(T::B64, "bfe.s64 {d}, %i0, %i2, %i3", |x| bits(bfe_ref(x[0], x[2], x[3], 64, true)))
         .out(T::B64, "bfi.b64 {d}, %i0, %i1, %i2, %i3", |x| bits(bfi_ref(x[0], x[1], x[2], x[3], 64)));
        k.check()?;
    }

    #[test]
    fn int_prmt_shf(v in prop::collection::vec((u32s(), u32s(), any::<u32>(), small(40)), N)) {
        let mut k = K::new("int_prmt_shf");
        k.input(T::B32, col(&v, |x| x.0)).input(T::B32, col(&v, |x| x.1))
         .input(T::B32, col(&v, |x| u64::from(x.2))).input(T::B32, col(&v, |x| x.3));
        let ab = |x: &[u64]| (x[0] as u32, x[1] as u32);
        k.out(T::B32, "prmt.b32 {d}, %i0, %i1, %i2", move |x| { let (a, b) = ab(x); bits(u64::from(prmt_ref(a, b, x[2] as u32))) })
         .out(T::B32, "shf.l.wrap.b32 {d}, %i0, %i1, %i3", move |x| { let (a, b) = ab(x); bits(u64::from(shf_ref(a, b, x[3] as u32, true, false))) })
         .out(T::B32, "shf.r.wrap.b32 {d}, %i0, %i1, %i3", move |x| { let (a, b) = ab(x); bits(u64::from(shf_ref(a, b, x[3] as u32, false, false))) })
         .out(T::B32, "shf.l.clamp.b32 {d}, %i0, %i1, %i3", move |x| { let (a, b) = ab(x); bits(u64::from(shf_ref(a, b, x[3] as u32, true, true))) })
         .out(T::B32, "shf.r.clamp.b32 {d}, %i0, %i1, %i3", move |x| { let (a, b) = ab(x); bits(u64::from(shf_ref(a, b, x[3] as u32, false, true))) });
        k.check()?;
    }

    #[test]
    fn int_lop3(luts in prop::collection::vec(any::<u8>(), 4), v in prop::collection::vec((u32s(), u32s(), u32s()), N)) {
        let mut k = K::new("int_lop3");
        k.input(T::B32, col(&v, |x| x.0)).input(T::B32, col(&v, |x| x.1)).input(T::B32, col(&v, |x| x.2));
        for lut in luts.iter().copied().chain([0x96u8, 0xe8, 0x00, 0xff, 0xf0, 0xcc, 0xaa]) {
            k.out(T::B32, &format!("lop3.b32 {{d}}, %i0, %i1, %i2, {lut:#04x}"), move |x| {
                bits(u64::from(lop3_ref(x[0] as u32, x[1] as u32, x[2] as u32, lut)))
            });
        }
        k.check()?;
    }

    #[test]
    fn int_sad_mul24(v in prop::collection::vec((u32s(), u32s(), u32s()), N)) {
        let mut k = K::new("int_sad_mul24");
        k.input(T::B32, col(&v, |x| x.0)).input(T::B32, col(&v, |x| x.1)).input(T::B32, col(&v, |x| x.2));
        // 24-bit operands: the low 24 bits, sign-extended for .s32; the 48-bit product.
        let s24 = |x: &[u64]| (sx(x[0], 24) as i64 * sx(x[1], 24) as i64, x[2] as u32);
        let u24 = |x: &[u64]| (((x[0] & 0xff_ffff) * (x[1] & 0xff_ffff)) as i64, x[2] as u32);
        k.out(T::B32, "sad.s32 {d}, %i0, %i1, %i2", |x| {
            let d = (i64::from(x[0] as u32 as i32) - i64::from(x[1] as u32 as i32)).unsigned_abs();
            bits((d as u32).wrapping_add(x[2] as u32) as u64)
        })
        .out(T::B32, "sad.u32 {d}, %i0, %i1, %i2", |x| {
            let (a, b) = (x[0] as u32, x[1] as u32);
            bits(u64::from(a.abs_diff(b).wrapping_add(x[2] as u32)))
        })
        .out(T::B32, "mul24.lo.s32 {d}, %i0, %i1", move |x| bits(s24(x).0 as u64 & 0xffff_ffff))
        .out(T::B32, "mul24.hi.s32 {d}, %i0, %i1", move |x| bits((s24(x).0 >> 16) as u64 & 0xffff_ffff))
        .out(T::B32, "mul24.lo.u32 {d}, %i0, %i1", move |x| bits(u24(x).0 as u64 & 0xffff_ffff))
        .out(T::B32, "mul24.hi.u32 {d}, %i0, %i1", move |x| bits((u24(x).0 >> 16) as u64 & 0xffff_ffff))
        .out(T::B32, "mad24.lo.s32 {d}, %i0, %i1, %i2", move |x| { let (p, c) = s24(x); bits((p as u32).wrapping_add(c) as u64) })
        .out(T::B32, "mad24.hi.u32 {d}, %i0, %i1, %i2", move |x| { let (p, c) = u24(x); bits(((p >> 16) as u32).wrapping_add(c) as u64) });
        k.check()?;
    }

    #[test]
    fn int_setp_selp(v in prop::collection::vec((u32s(), u32s(), u64s(), u64s(), any::<u32>(), any::<u32>()), N)) {
        let mut k = K::new("int_setp_selp");
        // Mix in equal operands.
        let v: Vec<_> = v.into_iter().enumerate().map(|(i, mut x)| { if i % 5 == 0 { x.1 = x.0; x.3 = x.2; } x }).collect();
        k.input(T::B32, col(&v, |x| x.0)).input(T::B32, col(&v, |x| x.1))
         .input(T::B64, col(&v, |x| x.2)).input(T::B64, col(&v, |x| x.3))
         .input(T::B32, col(&v, |x| u64::from(x.4))).input(T::B32, col(&v, |x| u64::from(x.5)));
        fn cmp_ref(c: &str, a: i128, b: i128) -> bool {
            match c {
                "eq" => a == b, "ne" => a != b,
                "lt" | "lo" => a < b, "le" | "ls" => a <= b,
                "gt" | "hi" => a > b, "ge" | "hs" => a >= b,
                _ => unreachable!(),
            }
        }
        const SIGNED: [&str; 6] = ["eq", "ne", "lt", "le", "gt", "ge"];
        const UNSIGNED: [&str; 10] = ["eq", "ne", "lt", "le", "gt", "ge", "lo", "ls", "hi", "hs"];
        for (ty, w, a, b) in [("s32", 32, 0usize, 1usize), ("u32", 32, 0, 1), ("s64", 64, 2, 3), ("u64", 64, 2, 3)] {
            let sg = ty.starts_with('s');
            for &c in if sg { &SIGNED[..] } else { &UNSIGNED[..] } {
                // setp with both predicate destinations, then selp on registers.
                let ptx = format!("setp.{c}.{ty} %p1|%p2, %i{a}, %i{b}; selp.b32 %t1, %i4, %i5, %p1; selp.b32 %t2, 1, 2, %p2; add.s32 {{d}}, %t1, %t2");
                k.out(T::B32, &ptx, move |x| {
                    let r = cmp_ref(c, val(x[a], w, sg), val(x[b], w, sg));
                    bits(u64::from(if r { (x[4] as u32).wrapping_add(2) } else { (x[5] as u32).wrapping_add(1) }))
                });
            }
        }
        k.out(T::B64, "setp.lt.u32 %p3, %i4, %i5; selp.b64 {d}, %i2, %i3, %p3", |x| bits(if (x[4] as u32) < (x[5] as u32) { x[2] } else { x[3] }));
        k.check()?;
    }

    #[test]
    fn int_cvt(v in prop::collection::vec((u32s(), u64s()), N)) {
        let mut k = K::new("int_cvt");
        k.input(T::B32, col(&v, |x| x.0)).input(T::B64, col(&v, |x| x.1));
        let tys: [(&str, u32, bool); 8] = [
            ("u8", 8, false), ("s8", 8, true), ("u16", 16, false), ("s16", 16, true),
            ("u32", 32, false), ("s32", 32, true), ("u64", 64, false), ("s64", 64, true),
        ];
        for (dn, dw, ds) in tys {
            for (sn, sw, ss) in tys {
                if dn == sn { continue; }
                for sat in [false, true] {
                    // .sat only where the destination cannot hold every source value.
                    let fits = (ds == ss && dw >= sw) || (ds && !ss && dw > sw);
                    if sat && fits { continue; }
                    let src = if sw == 64 { 1 } else { 0 };
                    let ot = if dw == 64 { T::B64 } else { T::B32 };
                    let ptx = format!("cvt{}.{dn}.{sn} {{d}}, %i{src}", if sat { ".sat" } else { "" });
                    k.out(ot, &ptx, move |x| bits(cvt_int_ref(x[src], (sw, ss), (dw, ds), sat)));
                }
            }
        }
        k.check()?;
    }
}

// ---------------------------------------------------------------------------------------------
// Float properties
// ---------------------------------------------------------------------------------------------

fn arith_kernel<F: Fl>(
    name: &str,
    op: FOp,
    a: Vec<u64>,
    b: Vec<u64>,
    c: Vec<u64>,
) -> Result<(), TestCaseError> {
    let mut k = K::new(name);
    let t = F::T;
    k.input(t, a).input(t, b).input(t, c);
    for m in MODES {
        let operands = if op == FOp::Fma {
            "%i0, %i1, %i2"
        } else {
            "%i0, %i1"
        };
        let ptx = format!("{}.{}.{} {{d}}, {operands}", op.ptx(), m.ptx(), t.ptx());
        k.out(t, &ptx, move |x| {
            arith_ref::<F>(op, m, F::from_u(x[0]), F::from_u(x[1]), F::from_u(x[2]))
        });
    }
    if op == FOp::Fma {
        // mad.rnd.{f32,f64} is fma.
        let ptx = format!("mad.rn.{} {{d}}, %i0, %i1, %i2", t.ptx());
        k.out(t, &ptx, move |x| {
            arith_ref::<F>(
                op,
                Rnd::Rn,
                F::from_u(x[0]),
                F::from_u(x[1]),
                F::from_u(x[2]),
            )
        });
    }
    k.check()
}

/// Operand triples for `op`, with some cancelling or exactly-related pairs mixed in.
fn related<F: Fl>(op: FOp, v: &[(u64, u64, u64, u8)]) -> (Vec<u64>, Vec<u64>, Vec<u64>) {
    let mut a = Vec::new();
    let mut b = Vec::new();
    let mut c = Vec::new();
    for &(x, y, z, k) in v {
        let (fx, fy, fz) = (F::from_u(x), F::from_u(y), F::from_u(z));
        let (y, z) = match (op, k % 8) {
            // b = -a, a neighbour of -a, or a itself: exact zeros and massive cancellation.
            (FOp::Add, 0) => ((-fx).to_u(), z),
            (FOp::Add, 1) => ((-fx).next_up().to_u(), z),
            (FOp::Sub, 0) => (x, z),
            (FOp::Sub, 1) => (fx.next_down().to_u(), z),
            // c = -(a*b) rounded, or its neighbour.
            (FOp::Fma, 0) => (y, (-(fx * fy)).to_u()),
            (FOp::Fma, 1) => (y, (-(fx * fy)).next_up().to_u()),
            (FOp::Fma, 2) => (y, (-fz).to_u()),
            _ => (y, z),
        };
        let x = match (op, k % 8) {
            // a = b*c rounded: a / b is often exactly c, or next to it.
            (FOp::Div, 0) => (fy * fz).to_u(),
            _ => x,
        };
        a.push(x);
        b.push(y);
        c.push(z);
    }
    (a, b, c)
}

fn quads32() -> impl Strategy<Value = Vec<(u64, u64, u64, u8)>> {
    prop::collection::vec((f32s(), f32s(), f32s(), any::<u8>()), N)
}

fn quads64() -> impl Strategy<Value = Vec<(u64, u64, u64, u8)>> {
    prop::collection::vec((f64s(), f64s(), f64s(), any::<u8>()), N)
}

proptest! {
    #![proptest_config(cfg())]

    #[test]
    fn f32_add(v in quads32()) { let (a, b, c) = related::<f32>(FOp::Add, &v); arith_kernel::<f32>("f32_add", FOp::Add, a, b, c)?; }
    #[test]
    fn f32_sub(v in quads32()) { let (a, b, c) = related::<f32>(FOp::Sub, &v); arith_kernel::<f32>("f32_sub", FOp::Sub, a, b, c)?; }
    #[test]
    fn f32_mul(v in quads32()) { let (a, b, c) = related::<f32>(FOp::Mul, &v); arith_kernel::<f32>("f32_mul", FOp::Mul, a, b, c)?; }
    #[test]
    fn f32_div(v in quads32()) { let (a, b, c) = related::<f32>(FOp::Div, &v); arith_kernel::<f32>("f32_div", FOp::Div, a, b, c)?; }
    #[test]
    fn f32_fma(v in quads32()) { let (a, b, c) = related::<f32>(FOp::Fma, &v); arith_kernel::<f32>("f32_fma", FOp::Fma, a, b, c)?; }
    #[test]
    fn f64_add(v in quads64()) { let (a, b, c) = related::<f64>(FOp::Add, &v); arith_kernel::<f64>("f64_add", FOp::Add, a, b, c)?; }
    #[test]
    fn f64_sub(v in quads64()) { let (a, b, c) = related::<f64>(FOp::Sub, &v); arith_kernel::<f64>("f64_sub", FOp::Sub, a, b, c)?; }
    #[test]
    fn f64_mul(v in quads64()) { let (a, b, c) = related::<f64>(FOp::Mul, &v); arith_kernel::<f64>("f64_mul", FOp::Mul, a, b, c)?; }
    #[test]
    fn f64_div(v in quads64()) { let (a, b, c) = related::<f64>(FOp::Div, &v); arith_kernel::<f64>("f64_div", FOp::Div, a, b, c)?; }
    #[test]
    fn f64_fma(v in quads64()) { let (a, b, c) = related::<f64>(FOp::Fma, &v); arith_kernel::<f64>("f64_fma", FOp::Fma, a, b, c)?; }

    #[test]
    fn float_min_max_abs_neg_sqrt(v in prop::collection::vec((f32s(), f32s(), f64s(), f64s()), N)) {
        let mut k = K::new("float_min_max_abs_neg_sqrt");
        let v: Vec<_> = v.into_iter().enumerate().map(|(i, mut x)| {
            // Mix in ±0 pairs and equal pairs.
            match i % 8 { 0 => { x.0 = 0; x.1 = 0x8000_0000; x.2 = 1 << 63; x.3 = 0; } 1 => { x.1 = x.0; x.3 = x.2; } _ => {} }
            x
        }).collect();
        k.input(T::F32, col(&v, |x| x.0)).input(T::F32, col(&v, |x| x.1))
         .input(T::F64, col(&v, |x| x.2)).input(T::F64, col(&v, |x| x.3));
        let f = |x: u64| f32::from_bits(x as u32);
        let d = f64::from_bits;
        k.out(T::F32, "min.f32 {d}, %i0, %i1", move |x| minmax_ref(false, f(x[0]), f(x[1])))
         .out(T::F32, "max.f32 {d}, %i0, %i1", move |x| minmax_ref(true, f(x[0]), f(x[1])))
         .out(T::F64, "min.f64 {d}, %i2, %i3", move |x| minmax_ref(false, d(x[2]), d(x[3])))
         .out(T::F64, "max.f64 {d}, %i2, %i3", move |x| minmax_ref(true, d(x[2]), d(x[3])))
         // abs/neg only touch the sign; an f32 NaN result is the canonical NaN (measured).
         .out(T::F32, "abs.f32 {d}, %i0", move |x| fwant(f32::from_bits(x[0] as u32 & 0x7fff_ffff)))
         .out(T::F32, "neg.f32 {d}, %i0", move |x| fwant(f32::from_bits(x[0] as u32 ^ 0x8000_0000)))
         .out(T::F64, "abs.f64 {d}, %i2", move |x| fwant(d(x[2] & !(1 << 63))))
         .out(T::F64, "neg.f64 {d}, %i2", move |x| fwant(d(x[2] ^ (1 << 63))))
         .out(T::F32, "sqrt.rn.f32 {d}, %i0", move |x| fwant(f(x[0]).sqrt()))
         .out(T::F64, "sqrt.rn.f64 {d}, %i2", move |x| fwant(d(x[2]).sqrt()));
        k.check()?;
    }

    #[test]
    fn float_setp(v in prop::collection::vec((f32s(), f32s(), f64s(), f64s()), N)) {
        let mut k = K::new("float_setp");
        let v: Vec<_> = v.into_iter().enumerate().map(|(i, mut x)| {
            match i % 6 { 0 => { x.1 = x.0; x.3 = x.2; } 1 => { x.0 = 0; x.1 = 0x8000_0000; x.2 = 1 << 63; x.3 = 0; } _ => {} }
            x
        }).collect();
        k.input(T::F32, col(&v, |x| x.0)).input(T::F32, col(&v, |x| x.1))
         .input(T::F64, col(&v, |x| x.2)).input(T::F64, col(&v, |x| x.3));
        const CMPS: [&str; 14] = ["eq", "ne", "lt", "le", "gt", "ge", "equ", "neu", "ltu", "leu", "gtu", "geu", "num", "nan"];
        fn fcmp(c: &str, a: f64, b: f64) -> bool {
            let nan = a.is_nan() || b.is_nan();
            match c {
                "num" => !nan,
                "nan" => nan,
                // Ordered forms are false on NaN operands, the `u` forms true.
                _ if nan => c.len() == 3,
                _ => match &c[..2] {
                    "eq" => a == b, "ne" => a != b, "lt" => a < b,
                    "le" => a <= b, "gt" => a > b, "ge" => a >= b,
                    _ => unreachable!(),
                },
            }
        }
        for (t, a, b) in [(T::F32, 0usize, 1usize), (T::F64, 2, 3)] {
            let mut ptx = String::from("mov.b32 {d}, 0");
            for (bit, c) in CMPS.iter().enumerate() {
                let _ = write!(ptx, "; setp.{c}.{} %p1, %i{a}, %i{b}; selp.b32 %t1, {}, 0, %p1; or.b32 {{d}}, {{d}}, %t1", t.ptx(), 1u32 << bit);
            }
            k.out(T::B32, &ptx, move |x| {
                let cv = |v: u64| if t == T::F32 { f64::from(f32::from_bits(v as u32)) } else { f64::from_bits(v) };
                let mut m = 0u64;
                for (bit, c) in CMPS.iter().enumerate() {
                    if fcmp(c, cv(x[a]), cv(x[b])) { m |= 1 << bit; }
                }
                bits(m)
            });
        }
        k.check()?;
    }

    #[test]
    fn float_testp(v in prop::collection::vec((f32s(), f64s()), N)) {
        let mut k = K::new("float_testp");
        k.input(T::F32, col(&v, |x| x.0)).input(T::F64, col(&v, |x| x.1));
        const OPS: [&str; 5] = ["finite", "infinite", "number", "notanumber", "subnormal"];
        for (t, a) in [(T::F32, 0usize), (T::F64, 1)] {
            let mut ptx = String::from("mov.b32 {d}, 0");
            for (bit, op) in OPS.iter().enumerate() {
                let _ = write!(ptx, "; testp.{op}.{} %p1, %i{a}; selp.b32 %t1, {}, 0, %p1; or.b32 {{d}}, {{d}}, %t1", t.ptx(), 1u32 << bit);
            }
            k.out(T::B32, &ptx, move |x| {
                let v = if t == T::F32 { f64::from(f32::from_bits(x[a] as u32)) } else { f64::from_bits(x[a]) };
                let sub = if t == T::F32 { f32::from_bits(x[a] as u32).is_subnormal() } else { v.is_subnormal() };
                let r = [v.is_finite(), v.is_infinite(), !v.is_nan(), v.is_nan(), sub];
                bits(r.iter().enumerate().fold(0, |m, (i, b)| m | u64::from(*b) << i))
            });
        }
        k.check()?;
    }

    #[test]

    fn float_testp_normal(v in prop::collection::vec((f32s(), f64s()), N)) {
        let mut k = K::new("float_testp_normal");
        k.input(T::F32, col(&v, |x| x.0)).input(T::F64, col(&v, |x| x.1));
        // "As a special case, positive and negative zero are considered normal numbers."
        k.out(T::B32, "testp.normal.f32 %p1, %i0; selp.b32 {d}, 1, 0, %p1", |x| {
            let f = f32::from_bits(x[0] as u32);
            bits(u64::from(f.is_normal() || f == 0.0))
        })
        .out(T::B32, "testp.normal.f64 %p1, %i1; selp.b32 {d}, 1, 0, %p1", |x| {
            let f = f64::from_bits(x[1]);
            bits(u64::from(f.is_normal() || f == 0.0))
        });
        k.check()?;
    }

    #[test]
    fn cvt_f32_to_int(v in prop::collection::vec(prop_oneof![
        3 => f32s(),
        2 => (-3.0e9f32..3.0e9f32).prop_map(|x| u64::from(x.to_bits())),
        2 => (-100i32..100).prop_map(|i| u64::from((i as f32 * 0.25).to_bits())),
    ], N)) {
        let mut k = K::new("cvt_f32_to_int");
        k.input(T::F32, v);
        // Round to an integral value, then saturate to the destination's range; NaN gives 0.
        let ops: [(&str, Round32); 4] = [("rni", f32::round_ties_even), ("rzi", f32::trunc), ("rmi", f32::floor), ("rpi", f32::ceil)];
        for (name, round) in ops {
            k.out(T::B32, &format!("cvt.{name}.s32.f32 {{d}}, %i0"), move |x| bits(round(f32::from_bits(x[0] as u32)) as i32 as u32 as u64))
             .out(T::B32, &format!("cvt.{name}.u32.f32 {{d}}, %i0"), move |x| bits(u64::from(round(f32::from_bits(x[0] as u32)) as u32)));
        }
        k.check()?;
    }

    #[test]
    fn cvt_int_to_float(v in prop::collection::vec((u32s(), u64s()), N)) {
        let mut k = K::new("cvt_int_to_float");
        k.input(T::B32, col(&v, |x| x.0)).input(T::B64, col(&v, |x| x.1));
        for m in MODES {
            // The exact value is an integer: compare it with the nearest result as integers.
            k.out(T::F32, &format!("cvt.{}.f32.s32 {{d}}, %i0", m.ptx()), move |x| {
                let i = i64::from(x[0] as u32 as i32);
                let rn = i as f32;
                Want::Bits(directed_or_exact(m, rn, i128::from(i).cmp(&(rn as i128))).to_u())
            })
            .out(T::F32, &format!("cvt.{}.f32.u32 {{d}}, %i0", m.ptx()), move |x| {
                let i = x[0] & 0xffff_ffff;
                let rn = i as f32;
                Want::Bits(directed_or_exact(m, rn, i128::from(i).cmp(&(rn as i128))).to_u())
            })
            .out(T::F64, &format!("cvt.{}.f64.s64 {{d}}, %i1", m.ptx()), move |x| {
                let i = x[1] as i64;
                let rn = i as f64;
                Want::Bits(directed_or_exact(m, rn, i128::from(i).cmp(&(rn as i128))).to_u())
            })
            .out(T::F32, &format!("cvt.{}.f32.s64 {{d}}, %i1", m.ptx()), move |x| {
                let i = x[1] as i64;
                let rn = i as f32;
                Want::Bits(directed_or_exact(m, rn, i128::from(i).cmp(&(rn as i128))).to_u())
            });
        }
        k.check()?;
    }

    #[test]
    fn cvt_float_to_float(v in prop::collection::vec((f32s(), prop_oneof![
        3 => f64s(),
        1 => (any::<bool>(), -160i32..-120, any::<u64>()).prop_map(|(s, e, m)| {
            // Around the f32 subnormal range, with random low bits.
            let x = f64::from(e).exp2() * (1.0 + (m >> 12) as f64 / (1u64 << 52) as f64);
            (if s { -x } else { x }).to_bits()
        }),
        1 => (any::<bool>(), 120i32..130, any::<u64>()).prop_map(|(s, e, m)| {
            let x = f64::from(e).exp2() * (1.0 + (m >> 12) as f64 / (1u64 << 52) as f64);
            (if s { -x } else { x }).to_bits()
        }),
    ]), N)) {
        let mut k = K::new("cvt_float_to_float");
        k.input(T::F32, col(&v, |x| x.0)).input(T::F64, col(&v, |x| x.1));
        k.out(T::F64, "cvt.f64.f32 {d}, %i0", |x| fwant(f64::from(f32::from_bits(x[0] as u32))));
        for m in MODES {
            k.out(T::F32, &format!("cvt.{}.f32.f64 {{d}}, %i1", m.ptx()), move |x| {
                let d = f64::from_bits(x[1]);
                let rn = d as f32;
                if d.is_nan() {
                    return Want::AnyNan;
                }
                if !d.is_finite() {
                    return Want::Bits(rn.to_u());
                }
                if !rn.is_finite() {
                    return Want::Bits(overflowed(m, rn).to_u());
                }
                // Comparison is exact: the sign of d - rn.
                let ord = d.partial_cmp(&f64::from(rn)).unwrap();
                Want::Bits(directed_or_exact(m, rn, ord).to_u())
            });
        }
        k.check()?;
    }
}

fn directed_or_exact<F: Fl>(m: Rnd, rn: F, ord: Ordering) -> F {
    if ord == Ordering::Equal {
        rn
    } else {
        directed(m, rn, ord)
    }
}

// ---------------------------------------------------------------------------------------------
// The references themselves, on known values (so that a wrong reference is caught here rather
// than reported as an interpreter bug).
// ---------------------------------------------------------------------------------------------

#[test]
fn references_agree_with_known_values() {
    // Directed rounding of 1 + 2^-30 in f32.
    let (one, tiny) = (1.0f32, 2f32.powi(-30));
    assert_eq!(
        arith_ref(FOp::Add, Rnd::Rp, one, tiny, 0.0).bits(),
        Some(1.0f32.next_up().to_bits().into())
    );
    assert_eq!(
        arith_ref(FOp::Add, Rnd::Rz, one, tiny, 0.0).bits(),
        Some(u64::from(one.to_bits()))
    );
    assert_eq!(
        arith_ref(FOp::Add, Rnd::Rm, -one, -tiny, 0.0).bits(),
        Some(u64::from((-one).next_down().to_bits()))
    );
    assert_eq!(
        arith_ref(FOp::Add, Rnd::Rz, -one, -tiny, 0.0).bits(),
        Some(u64::from((-one).to_bits()))
    );
    // Exact zero sums.
    assert_eq!(
        arith_ref(FOp::Sub, Rnd::Rm, one, one, 0.0).bits(),
        Some(0x8000_0000)
    );
    assert_eq!(arith_ref(FOp::Sub, Rnd::Rp, one, one, 0.0).bits(), Some(0));
    assert_eq!(
        arith_ref(FOp::Add, Rnd::Rm, 0.0f32, 0.0, 0.0).bits(),
        Some(0)
    );
    // 1/3 rounds up to nearest (0x3eaaaaab); down is the previous float.
    let third = 1.0f32 / 3.0;
    assert_eq!(third.to_bits(), 0x3eaa_aaab);
    assert_eq!(
        arith_ref(FOp::Div, Rnd::Rp, 1.0f32, 3.0, 0.0).bits(),
        Some(u64::from(third.to_bits()))
    );
    assert_eq!(
        arith_ref(FOp::Div, Rnd::Rz, 1.0f32, 3.0, 0.0).bits(),
        Some(u64::from(third.next_down().to_bits()))
    );
    assert_eq!(
        arith_ref(FOp::Div, Rnd::Rm, -1.0f32, 3.0, 0.0).bits(),
        Some(u64::from((-third).to_bits()))
    );
    assert_eq!(
        arith_ref(FOp::Div, Rnd::Rp, -1.0f32, 3.0, 0.0).bits(),
        Some(u64::from((-third).next_up().to_bits()))
    );
    // Products, cross-checked in f64 where f32 products are exact.
    for (a, b) in [(1.1f32, 1.3f32), (-3.7, 1e-3), (1e20, 3e18), (7.0, -0.1)] {
        let exact = f64::from(a) * f64::from(b);
        for m in MODES {
            let want = match m {
                Rnd::Rn => exact as f32,
                Rnd::Rz => f32_toward(exact, 0.0),
                Rnd::Rm => f32_toward(exact, f64::NEG_INFINITY),
                Rnd::Rp => f32_toward(exact, f64::INFINITY),
            };
            assert_eq!(
                arith_ref(FOp::Mul, m, a, b, 0.0).bits(),
                Some(u64::from(want.to_bits())),
                "{a} * {b} {m:?}"
            );
        }
    }
    // Overflow under directed rounding.
    let max = f32::MAX;
    assert_eq!(
        arith_ref(FOp::Mul, Rnd::Rz, max, 2.0, 0.0).bits(),
        Some(u64::from(max.to_bits()))
    );
    assert_eq!(
        arith_ref(FOp::Mul, Rnd::Rp, max, 2.0, 0.0).bits(),
        Some(u64::from(f32::INFINITY.to_bits()))
    );
    assert_eq!(
        arith_ref(FOp::Mul, Rnd::Rp, -max, 2.0, 0.0).bits(),
        Some(u64::from((-max).to_bits()))
    );
    // fma with a tiny product: the result is c or its neighbour.
    assert_eq!(
        arith_ref(FOp::Fma, Rnd::Rp, 1e-30f32, 1e-30, 1.0).bits(),
        Some(u64::from(1.0f32.next_up().to_bits()))
    );
    assert_eq!(
        arith_ref(FOp::Fma, Rnd::Rm, 1e-30f32, -1e-30, 1.0).bits(),
        Some(u64::from(1.0f32.next_down().to_bits()))
    );
    // NaN results.
    assert_eq!(
        arith_ref(FOp::Sub, Rnd::Rz, f32::INFINITY, f32::INFINITY, 0.0).bits(),
        Some(0x7fff_ffff)
    );
    // Integer helpers.
    assert_eq!(bfe_ref(0xf0, 4, 4, 32, false), 0xf);
    assert_eq!(bfe_ref(0xf0, 4, 4, 32, true), 0xffff_ffff);
    assert_eq!(bfe_ref(0x8000_0000, 31, 200, 32, true), 0xffff_ffff);
    assert_eq!(bfe_ref(0x8000_0000, 40, 1, 32, true), 0xffff_ffff);
    assert_eq!(bfe_ref(0x8000_0000, 40, 0, 32, true), 0);
    assert_eq!(bfi_ref(0xff, 0, 28, 8, 32), 0xf000_0000);
    assert_eq!(prmt_ref(0x0403_0201, 0x0807_0605, 0x7531), 0x0806_0402);
    assert_eq!(prmt_ref(0x0000_0080, 0, 0x8880), 0xffff_ff80);
    assert_eq!(
        prmt_mode_ref(0x0302_0100, 0x0706_0504, 1, &PRMT_MODES[1].1),
        0x0607_0001
    );
    assert_eq!(
        prmt_mode_ref(0x0302_0100, 0x0706_0504, 2, &PRMT_MODES[0].1),
        0x0504_0302
    );
    assert_eq!(
        prmt_mode_ref(0x0302_0100, 0x0706_0504, 1, &PRMT_MODES[5].1),
        0x0302_0302
    );
    // The ISA's own examples.
    assert_eq!(fns_ref(0xaaaa_aaaa, 3, 1), 3);
    assert_eq!(fns_ref(0xaaaa_aaaa, 3, -1), 3);
    assert_eq!(fns_ref(0xaaaa_aaaa, 2, 1), 3);
    assert_eq!(fns_ref(0xaaaa_aaaa, 2, -1), 1);
    assert_eq!(bmsk_ref(1, 2, false), 6);
    assert_eq!(szext_ref(0xffff_ffff, 0, false, false), 0);
    assert_eq!(szext_ref(0x80, 8, false, true), 0xffff_ff80);
    assert_eq!(szext_ref(0x1234_5678, 40, true, true), 0x1234_5678);
    assert_eq!(lop3_ref(0xf0, 0xcc, 0xaa, 0x96), 0xf0 ^ 0xcc ^ 0xaa);
    assert_eq!(
        lop3_ref(0xf0, 0xcc, 0xaa, 0xe8),
        (0xf0 & 0xcc) | (0xf0 & 0xaa) | (0xcc & 0xaa)
    );
    assert_eq!(shf_ref(0x8000_0001, 0x1, 4, true, false), 0x18);
    assert_eq!(shf_ref(0x8000_0001, 0x1, 4, false, false), 0x1800_0000);
    assert_eq!(shf_ref(0xa, 0xb, 40, true, true), 0xa);
    assert_eq!(shf_ref(0xa, 0xb, 40, false, true), 0xb);
    assert_eq!(
        cvt_int_ref(0x80, (8, true), (32, true), false) as u32,
        0xffff_ff80
    );
    assert_eq!(
        cvt_int_ref(0xffff_ffff, (32, true), (64, false), false),
        u64::MAX
    );
    assert_eq!(cvt_int_ref(300, (32, true), (8, false), true), 255);
    assert_eq!(cvt_int_ref(0x1ff, (32, true), (8, true), false), u64::MAX);
    assert!(matches!(
        minmax_ref(false, 0.0f32, -0.0),
        Want::Bits(0x8000_0000)
    ));
    assert!(matches!(minmax_ref(true, -0.0f32, 0.0), Want::Bits(0)));
    assert!(matches!(
        minmax_ref(true, f32::NAN, 1.0),
        Want::Bits(0x3f80_0000)
    ));
}

/// `x` rounded to f32 toward `dir`, by stepping from the nearest result.
fn f32_toward(x: f64, dir: f64) -> f32 {
    let r = x as f32;
    let rx = f64::from(r);
    if rx == x {
        return r;
    }
    let toward_zero = dir == 0.0;
    let up = if toward_zero { x < 0.0 } else { dir > 0.0 };
    if up && rx < x {
        r.next_up()
    } else if !up && rx > x {
        r.next_down()
    } else {
        r
    }
}

impl Want {
    fn bits(self) -> Option<u64> {
        match self {
            Want::Bits(b) => Some(b),
            _ => None,
        }
    }
}

// ---------------------------------------------------------------------------------------------
// More families: 16-bit forms, extended precision, bfind, dp4a/dp2a, setp with a predicate
// operand, set, slct, rcp, directed sqrt, .sat/.ftz, copysign, min/max modifiers.
// ---------------------------------------------------------------------------------------------

proptest! {
    #![proptest_config(cfg())]

    #[test]
    fn int_16bit(v in prop::collection::vec((u16s(), u16s(), small(20)), N)) {
        let mut k = K::new("int_16bit");
        k.input(T::B16, col(&v, |x| x.0)).input(T::B16, col(&v, |x| x.1)).input(T::B32, col(&v, |x| x.2));
        let s = |x: &[u64]| (x[0] as u16 as i16, x[1] as u16 as i16);
        let u = |x: &[u64]| (x[0] as u16, x[1] as u16);
        k.out(T::B16, "add.u16 {d}, %i0, %i1", move |x| { let (a, b) = u(x); bits(u64::from(a.wrapping_add(b))) })
         .out(T::B16, "sub.s16 {d}, %i0, %i1", move |x| { let (a, b) = s(x); bits(a.wrapping_sub(b) as u16 as u64) })
         .out(T::B16, "mul.lo.s16 {d}, %i0, %i1", move |x| { let (a, b) = s(x); bits(a.wrapping_mul(b) as u16 as u64) })
         .out(T::B16, "mul.hi.s16 {d}, %i0, %i1", move |x| { let (a, b) = s(x); bits(((i32::from(a) * i32::from(b)) >> 16) as u16 as u64) })
         .out(T::B16, "mul.hi.u16 {d}, %i0, %i1", move |x| { let (a, b) = u(x); bits(u64::from(((u32::from(a) * u32::from(b)) >> 16) as u16)) })
         .out(T::B32, "mul.wide.s16 {d}, %i0, %i1", move |x| { let (a, b) = s(x); bits((i32::from(a) * i32::from(b)) as u32 as u64) })
         .out(T::B32, "mul.wide.u16 {d}, %i0, %i1", move |x| { let (a, b) = u(x); bits(u64::from(u32::from(a) * u32::from(b))) })
         .out(T::B16, "mad.lo.s16 {d}, %i0, %i1, %i0", move |x| { let (a, b) = s(x); bits(a.wrapping_mul(b).wrapping_add(a) as u16 as u64) })
         .out(T::B16, "min.s16 {d}, %i0, %i1", move |x| { let (a, b) = s(x); bits(a.min(b) as u16 as u64) })
         .out(T::B16, "max.u16 {d}, %i0, %i1", move |x| { let (a, b) = u(x); bits(u64::from(a.max(b))) })
         .out(T::B16, "abs.s16 {d}, %i0", move |x| bits(u64::from(s(x).0.unsigned_abs())))
         .out(T::B16, "neg.s16 {d}, %i0", move |x| bits(s(x).0.wrapping_neg() as u16 as u64))
         .out(T::B16, "shl.b16 {d}, %i0, %i2", |x| bits(u64::from((x[0] as u16).checked_shl(x[2] as u32).unwrap_or(0))))
         .out(T::B16, "shr.s16 {d}, %i0, %i2", |x| bits(((x[0] as u16 as i16) >> (x[2] as u32).min(15)) as u16 as u64))
         .out(T::B16, "shr.u16 {d}, %i0, %i2", |x| bits(u64::from((x[0] as u16).checked_shr(x[2] as u32).unwrap_or(0))))
         .out(T::B16, "and.b16 {d}, %i0, %i1", |x| bits(x[0] & x[1]))
         .out(T::B16, "setp.lt.s16 %p1, %i0, %i1; selp.b16 {d}, %i0, %i1, %p1", move |x| { let (a, b) = s(x); bits(if a < b { x[0] } else { x[1] }) })
         .out(T::B16, "setp.hi.u16 %p1, %i0, %i1; selp.b16 {d}, %i0, %i1, %p1", move |x| { let (a, b) = u(x); bits(if a > b { x[0] } else { x[1] }) })
         .out(T::B32, "cvt.s32.s16 {d}, %i0", move |x| bits(i32::from(s(x).0) as u32 as u64))
         .out(T::B16, "cvt.sat.s8.s16 {d}, %i0", move |x| bits(s(x).0.clamp(-128, 127) as u16 as u64))
         .out(T::B16, "popc.b16 %t1, %i0; cvt.u16.u32 {d}, %t1", |x| bits(u64::from((x[0] as u16).count_ones())));
        k.check()?;
    }

    #[test]
    fn int_extended_precision(v in prop::collection::vec((u64s(), u64s(), u32s(), u32s()), N)) {
        let mut k = K::new("int_extended_precision");
        let lo = |x: u64| x & 0xffff_ffff;
        let hi = |x: u64| x >> 32;
        k.input(T::B32, col(&v, |x| lo(x.0))).input(T::B32, col(&v, |x| hi(x.0)))
         .input(T::B32, col(&v, |x| lo(x.1))).input(T::B32, col(&v, |x| hi(x.1)))
         .input(T::B32, col(&v, |x| x.2)).input(T::B32, col(&v, |x| x.3));
        let a = |x: &[u64]| x[0] | x[1] << 32;
        let b = |x: &[u64]| x[2] | x[3] << 32;
        // 64-bit sums and differences from 32-bit halves through the carry flag, and the carry
        // (borrow) out of the top word.
        k.out(T::B64, "add.cc.u32 %t1, %i0, %i2; addc.u32 %t2, %i1, %i3; mov.b64 {d}, {%t1, %t2}", move |x| bits(a(x).wrapping_add(b(x))))
         .out(T::B32, "add.cc.u32 %t1, %i0, %i2; addc.cc.u32 %t2, %i1, %i3; addc.u32 {d}, 0, 0", move |x| bits(u64::from(a(x).checked_add(b(x)).is_none())))
         .out(T::B64, "sub.cc.u32 %t1, %i0, %i2; subc.u32 %t2, %i1, %i3; mov.b64 {d}, {%t1, %t2}", move |x| bits(a(x).wrapping_sub(b(x))))
         .out(T::B32, "sub.cc.u32 %t1, %i0, %i2; subc.cc.u32 %t2, %i1, %i3; subc.u32 {d}, 0, 0", move |x| bits(if a(x) < b(x) { 0xffff_ffff } else { 0 }))
         // (a.lo * b.lo) + c as a 64-bit multiply-add, and its carry out.
         .out(T::B64, "mad.lo.cc.u32 %t1, %i4, %i5, %i0; madc.hi.u32 %t2, %i4, %i5, %i1; mov.b64 {d}, {%t1, %t2}", move |x| bits((x[4] * x[5]).wrapping_add(a(x))))
         .out(T::B32, "mad.lo.cc.u32 %t1, %i4, %i5, %i0; madc.hi.cc.u32 %t2, %i4, %i5, %i1; addc.u32 {d}, 0, 0", move |x| bits(u64::from((x[4] * x[5]).checked_add(a(x)).is_none())))
         .out(T::B32, "mad.hi.sat.s32 {d}, %i4, %i5, %i0", |x| {
             let p = i64::from(x[4] as u32 as i32) * i64::from(x[5] as u32 as i32);
             bits(((p >> 32) + i64::from(x[0] as u32 as i32)).clamp(i64::from(i32::MIN), i64::from(i32::MAX)) as u64)
         });
        k.check()?;
    }

    #[test]
    fn int_bfind_dp(v in prop::collection::vec((u32s(), u32s(), u32s(), u64s()), N)) {
        let mut k = K::new("int_bfind_dp");
        k.input(T::B32, col(&v, |x| x.0)).input(T::B32, col(&v, |x| x.1))
         .input(T::B32, col(&v, |x| x.2)).input(T::B64, col(&v, |x| x.3));
        fn bfind(a: u64, w: u32, signed: bool, shiftamt: bool) -> u64 {
            let a = a & mask(w);
            let a = if signed && a >> (w - 1) == 1 { !a & mask(w) } else { a };
            if a == 0 {
                return 0xffff_ffff;
            }
            let pos = 63 - a.leading_zeros();
            u64::from(if shiftamt { w - 1 - pos } else { pos })
        }
        for (ty, w, s, i) in [("u32", 32, false, 0usize), ("s32", 32, true, 0), ("u64", 64, false, 3), ("s64", 64, true, 3)] {
            for sh in [false, true] {
                let ptx = format!("bfind{}.{ty} {{d}}, %i{i}", if sh { ".shiftamt" } else { "" });
                k.out(T::B32, &ptx, move |x| bits(bfind(x[i], w, s, sh)));
            }
        }
        let byte = |v: u64, i: u32, s: bool| { let b = (v >> (8 * i)) & 0xff; if s { sx(b, 8) } else { zx(b, 8) } };
        for (at, bt) in [("u32", "u32"), ("s32", "s32"), ("s32", "u32"), ("u32", "s32")] {
            let (sa, sb) = (at == "s32", bt == "s32");
            k.out(T::B32, &format!("dp4a.{at}.{bt} {{d}}, %i0, %i1, %i2"), move |x| {
                let sum: i128 = (0..4).map(|i| byte(x[0], i, sa) * byte(x[1], i, sb)).sum();
                bits((sum + zx(x[2], 32)) as u64 & 0xffff_ffff)
            });
            for hi in [false, true] {
                k.out(T::B32, &format!("dp2a.{}.{at}.{bt} {{d}}, %i0, %i1, %i2", if hi { "hi" } else { "lo" }), move |x| {
                    let half = |i: u32| { let h = (x[0] >> (16 * i)) & 0xffff; if sa { sx(h, 16) } else { zx(h, 16) } };
                    let base = if hi { 2 } else { 0 };
                    let sum = half(0) * byte(x[1], base, sb) + half(1) * byte(x[1], base + 1, sb);
                    bits((sum + zx(x[2], 32)) as u64 & 0xffff_ffff)
                });
            }
        }
        k.check()?;
    }

    #[test]
    fn int_setp_boolop_set_slct(v in prop::collection::vec((u32s(), u32s(), any::<u32>(), any::<u32>(), f32s()), N)) {
        let mut k = K::new("int_setp_boolop_set_slct");
        k.input(T::B32, col(&v, |x| x.0)).input(T::B32, col(&v, |x| x.1))
         .input(T::B32, col(&v, |x| u64::from(x.2))).input(T::B32, col(&v, |x| u64::from(x.3)))
         .input(T::F32, col(&v, |x| x.4));
        let s = |x: &[u64]| (x[0] as u32 as i32, x[1] as u32 as i32);
        let c = |x: &[u64]| x[2] & 1 == 1;
        // setp.CmpOp.BoolOp p|q, a, b, c: p = (a cmp b) op c, q = !(a cmp b) op c.
        for (op, f) in [("and", (|t: bool, c: bool| t && c) as fn(bool, bool) -> bool), ("or", |t, c| t || c), ("xor", |t, c| t ^ c)] {
            for pc in [false, true] {
                let ptx = format!("and.b32 %t3, %i2, 1; setp.ne.b32 %p3, %t3, 0; setp.lt.{op}.s32 %p1|%p2, %i0, %i1, {}%p3; selp.b32 %t1, 1, 0, %p1; selp.b32 %t2, 2, 0, %p2; or.b32 {{d}}, %t1, %t2", if pc { "!" } else { "" });
                k.out(T::B32, &ptx, move |x| {
                    let (a, b) = s(x);
                    let cc = c(x) ^ pc;
                    bits(u64::from(f(a < b, cc)) | u64::from(f(a >= b, cc)) << 1)
                });
            }
        }
        k.out(T::B32, "set.lt.u32.s32 {d}, %i0, %i1", move |x| { let (a, b) = s(x); bits(if a < b { 0xffff_ffff } else { 0 }) })
         .out(T::B32, "set.hs.u32.u32 {d}, %i0, %i1", |x| bits(if x[0] as u32 >= x[1] as u32 { 0xffff_ffff } else { 0 }))
         .out(T::F32, "set.ne.f32.s32 {d}, %i0, %i1", move |x| { let (a, b) = s(x); bits(u64::from(if a != b { 1.0f32 } else { 0.0 }.to_bits())) })
         .out(T::B32, "set.gtu.u32.f32 {d}, %i4, %i4", |x| bits(if f32::from_bits(x[4] as u32).is_nan() { 0xffff_ffff } else { 0 }))
         .out(T::B32, "slct.b32.s32 {d}, %i2, %i3, %i0", |x| bits(if x[0] as u32 as i32 >= 0 { x[2] } else { x[3] }))
         .out(T::B32, "slct.b32.f32 {d}, %i2, %i3, %i4", |x| {
             // c >= 0 selects a (-0 included); a NaN c is left unchecked.
             let c = f32::from_bits(x[4] as u32);
             if c.is_nan() { Want::Skip } else { bits(if c >= 0.0 { x[2] } else { x[3] }) }
         });
        k.check()?;
    }
}

fn rcp_sqrt_kernel<F: Fl>(name: &str, a: Vec<u64>) -> Result<(), TestCaseError> {
    let mut k = K::new(name);
    let t = F::T;
    k.input(t, a);
    for m in MODES {
        k.out(
            t,
            &format!("rcp.{}.{} {{d}}, %i0", m.ptx(), t.ptx()),
            move |x| arith_ref::<F>(FOp::Div, m, F::one(), F::from_u(x[0]), F::zero()),
        )
        .out(
            t,
            &format!("sqrt.{}.{} {{d}}, %i0", m.ptx(), t.ptx()),
            move |x| sqrt_ref::<F>(m, F::from_u(x[0])),
        );
    }
    k.check()
}

proptest! {
    #![proptest_config(cfg())]

    #[test]
    fn f32_rcp_sqrt(v in prop::collection::vec(f32s(), N)) { rcp_sqrt_kernel::<f32>("f32_rcp_sqrt", v)?; }
    #[test]
    fn f64_rcp_sqrt(v in prop::collection::vec(f64s(), N)) { rcp_sqrt_kernel::<f64>("f64_rcp_sqrt", v)?; }

    #[test]
    fn f32_sat_ftz_copysign(v in prop::collection::vec((f32s(), f32s()), N)) {
        let mut k = K::new("f32_sat_ftz_copysign");
        k.input(T::F32, col(&v, |x| x.0)).input(T::F32, col(&v, |x| x.1));
        let f = |x: u64| f32::from_bits(x as u32);
        // .sat clamps to [0, 1], NaN to +0 (a -0 result is left unchecked).
        let sat = |r: f32| if r.is_nan() { bits(0) } else if r.to_bits() == 0x8000_0000 { Want::Skip } else { bits(u64::from(r.clamp(0.0, 1.0).to_bits())) };
        // .ftz flushes subnormal operands and results to zero of the same sign (a result at the
        // smallest normal, where tininess before/after rounding differ, is left unchecked).
        let flushed = |r: f32| if r.abs() == f32::MIN_POSITIVE { Want::Skip } else { fwant(ftz(r)) };
        k.out(T::F32, "add.rn.sat.f32 {d}, %i0, %i1", move |x| sat(f(x[0]) + f(x[1])))
         .out(T::F32, "mul.rn.sat.f32 {d}, %i0, %i1", move |x| sat(f(x[0]) * f(x[1])))
         .out(T::F32, "add.rn.ftz.f32 {d}, %i0, %i1", move |x| flushed(ftz(f(x[0])) + ftz(f(x[1]))))
         .out(T::F32, "mul.rn.ftz.f32 {d}, %i0, %i1", move |x| flushed(ftz(f(x[0])) * ftz(f(x[1]))))
         .out(T::F32, "fma.rn.ftz.f32 {d}, %i0, %i1, %i0", move |x| flushed(ftz(f(x[0])).mul_add(ftz(f(x[1])), ftz(f(x[0])))))
         .out(T::F32, "copysign.f32 {d}, %i0, %i1", |x| {
             // The sign of a, the rest of b (a NaN b is left unchecked).
             if f32::from_bits(x[1] as u32).is_nan() { Want::Skip } else { bits((x[1] & 0x7fff_ffff) | (x[0] & 0x8000_0000)) }
         })
         .out(T::F32, "min.NaN.f32 {d}, %i0, %i1", move |x| if f(x[0]).is_nan() || f(x[1]).is_nan() { bits(0x7fff_ffff) } else { minmax_ref(false, f(x[0]), f(x[1])) })
         .out(T::F32, "max.NaN.f32 {d}, %i0, %i1", move |x| if f(x[0]).is_nan() || f(x[1]).is_nan() { bits(0x7fff_ffff) } else { minmax_ref(true, f(x[0]), f(x[1])) });
        k.check()?;
    }
}

fn xorsign_abs_kernel(name: &str, a: Vec<u64>, b: Vec<u64>) -> Result<(), TestCaseError> {
    let mut k = K::new(name);
    k.input(T::F32, a).input(T::F32, b);
    let f = |x: u64| f32::from_bits(x as u32);
    // PTX ISA: xorsign = sign(a) ^ sign(b); a = |a|; b = |b|; then the min/max NaN rules; the
    // sign bit of a non-NaN result is xorsign.
    for max in [false, true] {
        let name = if max { "max" } else { "min" };
        k.out(
            T::F32,
            &format!("{name}.xorsign.abs.f32 {{d}}, %i0, %i1"),
            move |x| {
                let sign = (x[0] ^ x[1]) & 0x8000_0000;
                match minmax_ref(max, f(x[0] & 0x7fff_ffff), f(x[1] & 0x7fff_ffff)) {
                    Want::Bits(r) if !f(r).is_nan() => bits((r & 0x7fff_ffff) | sign),
                    w => w,
                }
            },
        );
    }
    k.check()
}

proptest! {
    #![proptest_config(cfg())]

    #[test]

    fn f32_min_max_xorsign_abs(v in prop::collection::vec((f32s(), f32s()), N)) {
        xorsign_abs_kernel("f32_min_max_xorsign_abs", col(&v, |x| x.0), col(&v, |x| x.1))?;
    }

    #[test]
    fn half_arith_cvt(v in prop::collection::vec((any::<u16>(), any::<u16>(), f32s()), N)) {
        use half::{bf16, f16};
        let mut k = K::new("half_arith_cvt");
        k.input(T::F16, col(&v, |x| u64::from(x.0))).input(T::BF16, col(&v, |x| u64::from(x.1)))
         .input(T::F32, col(&v, |x| x.2));
        let h = |x: u64| f16::from_bits(x as u16).to_f64();
        let b = |x: u64| bf16::from_bits(x as u16).to_f64();
        // Sums and products of two halves are exact in f64; one rounding to the half format.
        let hw = |r: f64| if r.is_nan() { Want::AnyNan } else { bits(u64::from(f16::from_f64(r).to_bits())) };
        let bw = |r: f64| if r.is_nan() { Want::AnyNan } else { bits(u64::from(bf16::from_f64(r).to_bits())) };
        k.out(T::F16, "add.rn.f16 {d}, %i0, %i1", move |x| hw(h(x[0]) + h(x[1])))
         .out(T::F16, "sub.rn.f16 {d}, %i0, %i1", move |x| hw(h(x[0]) - h(x[1])))
         .out(T::F16, "mul.rn.f16 {d}, %i0, %i1", move |x| hw(h(x[0]) * h(x[1])))
         .out(T::BF16, "add.rn.bf16 {d}, %i1, %i0", move |x| bw(b(x[1]) + b(x[0])))
         .out(T::BF16, "mul.rn.bf16 {d}, %i1, %i1", move |x| bw(b(x[1]) * b(x[1])))
         .out(T::F32, "cvt.f32.f16 {d}, %i0", move |x| if h(x[0]).is_nan() { Want::AnyNan } else { bits(u64::from((h(x[0]) as f32).to_bits())) })
         .out(T::F32, "cvt.f32.bf16 {d}, %i1", move |x| if b(x[1]).is_nan() { Want::AnyNan } else { bits(u64::from((b(x[1]) as f32).to_bits())) })
         .out(T::F16, "cvt.rn.f16.f32 {d}, %i2", move |x| hw(f64::from(f32::from_bits(x[2] as u32))))
         .out(T::BF16, "cvt.rn.bf16.f32 {d}, %i2", move |x| bw(f64::from(f32::from_bits(x[2] as u32))));
        k.check()?;
    }

    #[test]
    fn cvt_round_to_integral_float(v in prop::collection::vec((prop_oneof![
        3 => f32s(),
        2 => (-100i32..100).prop_map(|i| u64::from((i as f32 * 0.25).to_bits())),
        1 => (-3.0e7f32..3.0e7f32).prop_map(|x| u64::from(x.to_bits())),
    ], prop_oneof![
        3 => f64s(),
        2 => (-100i32..100).prop_map(|i| (f64::from(i) * 0.25).to_bits()),
    ]), N)) {
        let mut k = K::new("cvt_round_to_integral_float");
        k.input(T::F32, col(&v, |x| x.0)).input(T::F64, col(&v, |x| x.1));
        let ops32: [(&str, Round32); 4] = [("rni", f32::round_ties_even), ("rzi", f32::trunc), ("rmi", f32::floor), ("rpi", f32::ceil)];
        let ops64: [(&str, Round64); 4] = [("rni", f64::round_ties_even), ("rzi", f64::trunc), ("rmi", f64::floor), ("rpi", f64::ceil)];
        for ((n, r32), (_, r64)) in ops32.into_iter().zip(ops64) {
            k.out(T::F32, &format!("cvt.{n}.f32.f32 {{d}}, %i0"), move |x| fwant(r32(f32::from_bits(x[0] as u32))))
             .out(T::F64, &format!("cvt.{n}.f64.f64 {{d}}, %i1"), move |x| fwant(r64(f64::from_bits(x[1]))));
        }
        k.check()?;
    }
}

proptest! {
    #![proptest_config(cfg())]

    #[test]
    fn int_prmt_modes(v in prop::collection::vec((u32s(), u32s(), any::<u32>()), N)) {
        let mut k = K::new("int_prmt_modes");
        k.input(T::B32, col(&v, |x| x.0)).input(T::B32, col(&v, |x| x.1)).input(T::B32, col(&v, |x| u64::from(x.2)));
        for (mode, table) in PRMT_MODES {
            if mode == "b4e" {
                continue; // see int_prmt_b4e
            }
            k.out(T::B32, &format!("prmt.b32.{mode} {{d}}, %i0, %i1, %i2"), move |x| {
                bits(u64::from(prmt_mode_ref(x[0] as u32, x[1] as u32, x[2] as u32, &table)))
            });
        }
        k.check()?;
    }

    #[test]

    fn int_prmt_b4e(v in prop::collection::vec((u32s(), u32s(), any::<u32>()), N)) {
        let mut k = K::new("int_prmt_b4e");
        k.input(T::B32, col(&v, |x| x.0)).input(T::B32, col(&v, |x| x.1)).input(T::B32, col(&v, |x| u64::from(x.2)));
        let table = PRMT_MODES[1].1;
        k.out(T::B32, "prmt.b32.b4e {d}, %i0, %i1, %i2", move |x| {
            bits(u64::from(prmt_mode_ref(x[0] as u32, x[1] as u32, x[2] as u32, &table)))
        });
        k.check()?;
    }
}

fn fns_operands() -> impl Strategy<Value = Vec<(u64, u64, u64, u64)>> {
    prop::collection::vec(
        (
            u32s(),
            0u64..32,
            (-34i32..34).prop_map(|o| u64::from(o as u32)),
            small(40),
        ),
        N,
    )
}

proptest! {
    #![proptest_config(cfg())]

    #[test]
    fn int_szext_bmsk_fns(v in fns_operands()) {
        let mut k = K::new("int_szext_bmsk_fns");
        k.input(T::B32, col(&v, |x| x.0)).input(T::B32, col(&v, |x| x.1))
         .input(T::B32, col(&v, |x| x.2)).input(T::B32, col(&v, |x| x.3));
        for (mode, clamp) in [("clamp", true), ("wrap", false)] {
            for (ty, signed) in [("u32", false), ("s32", true)] {
                k.out(T::B32, &format!("szext.{mode}.{ty} {{d}}, %i0, %i3"), move |x| bits(u64::from(szext_ref(x[0] as u32, x[3] as u32, clamp, signed))));
            }
            k.out(T::B32, &format!("bmsk.{mode}.b32 {{d}}, %i3, %i1"), move |x| bits(u64::from(bmsk_ref(x[3] as u32, x[1] as u32, clamp))))
             .out(T::B32, &format!("bmsk.{mode}.b32 {{d}}, %i1, %i3"), move |x| bits(u64::from(bmsk_ref(x[1] as u32, x[3] as u32, clamp))));
        }
        // Offset 0 is checked by int_fns_offset_zero.
        k.out(T::B32, "fns.b32 {d}, %i0, %i1, %i2", |x| {
            let off = x[2] as u32 as i32;
            if off == 0 { Want::Skip } else { bits(u64::from(fns_ref(x[0] as u32, x[1] as u32, off))) }
        });
        k.check()?;
    }

    #[test]

    fn int_fns_offset_zero(v in fns_operands()) {
        let mut k = K::new("int_fns_offset_zero");
        k.input(T::B32, col(&v, |x| x.0)).input(T::B32, col(&v, |x| x.1));
        k.out(T::B32, "fns.b32 {d}, %i0, %i1, 0", |x| bits(u64::from(fns_ref(x[0] as u32, x[1] as u32, 0))));
        k.check()?;
    }
}

// ---------------------------------------------------------------------------------------------
// The bugs found, on their smallest inputs.
// ---------------------------------------------------------------------------------------------

#[test]

fn bug_testp_normal_zero() {
    let mut k = K::new("bug_testp_normal_zero");
    k.input(T::F32, vec![0, 0x8000_0000])
        .input(T::F64, vec![0, 1 << 63]);
    k.out(
        T::B32,
        "testp.normal.f32 %p1, %i0; selp.b32 {d}, 1, 0, %p1",
        |_| bits(1),
    )
    .out(
        T::B32,
        "testp.normal.f64 %p1, %i1; selp.b32 {d}, 1, 0, %p1",
        |_| bits(1),
    );
    k.check().unwrap();
}

#[test]

fn bug_prmt_b4e() {
    let mut k = K::new("bug_prmt_b4e");
    k.input(T::B32, vec![0x0302_0100; 4])
        .input(T::B32, vec![0x0706_0504; 4])
        .input(T::B32, vec![0, 1, 2, 3]);
    // Source byte n holds the value n, so the result spells out the ISA's table row.
    k.out(T::B32, "prmt.b32.b4e {d}, %i0, %i1, %i2", |x| {
        bits([0x0506_0700, 0x0607_0001, 0x0700_0102, 0x0001_0203][x[2] as usize])
    });
    k.check().unwrap();
}

#[test]

fn bug_fns_offset_zero() {
    let mut k = K::new("bug_fns_offset_zero");
    k.input(T::B32, vec![1, 0xaaaa_aaaa])
        .input(T::B32, vec![0, 3]);
    k.out(T::B32, "fns.b32 {d}, %i0, %i1, 0", |x| bits(x[1]));
    k.check().unwrap();
}

#[test]

fn bug_min_max_xorsign_abs() {
    let (m2, one) = (u64::from((-2.0f32).to_bits()), u64::from(1.0f32.to_bits()));
    let mut k = K::new("bug_min_max_xorsign_abs");
    k.input(T::F32, vec![m2]).input(T::F32, vec![one]);
    k.out(T::F32, "min.xorsign.abs.f32 {d}, %i0, %i1", |_| {
        bits(u64::from((-1.0f32).to_bits()))
    })
    .out(T::F32, "max.xorsign.abs.f32 {d}, %i0, %i1", |_| {
        bits(u64::from((-2.0f32).to_bits()))
    });
    k.check().unwrap();
}
