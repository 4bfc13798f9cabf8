//! The CPU half of the hardware campaigns (`docs/numerics/cvt/README.md`,
//! `docs/numerics/approx/README.md`): for every form of a forms file, ptxrun's own code (decode,
//! then `ir::cvt::form` and `cvt::apply` for conversions, `fp::scalar` for the approximate
//! instructions: the very functions the interpreter runs) over the form's whole input domain,
//! hashed in chunks exactly as the GPU kernels of `run-gpu.py` hash the H100's results, then
//! compared chunk by chunk. Ignored by default; run
//! `PTXRUN_CAMPAIGN=DIR cargo test --release --lib campaign -- --ignored --nocapture`
//! with DIR holding the GPU's `NN.bin` files (`PTXRUN_CAMPAIGN_FORMS` names the forms file,
//! default `docs/numerics/cvt/forms.txt`). It prints the result table and fails on any
//! mismatch, naming the first inputs that differ (or the chunks to dump where only hashes exist).

use super::fp::scalar;
use crate::ir::cvt::{form, CvtForm};
use crate::ir::opcode::decode;
use crate::ir::{Mods, Op, Type};
use crate::sem::cvt::apply;
use crate::sem::float::Fmt;
use std::path::Path;

const FIXED_LOW: [u32; 16] = [
    0x0, 0x1, 0x2, 0x3, 0x7FF, 0x800, 0x801, 0xFFF, 0x1000, 0x1001, 0x17FF, 0x1800, 0x1801, 0x1FFE,
    0x1FFF, 0x0FFE,
];

fn mix(mut z: u64) -> u64 {
    z = z.wrapping_add(0x9e37_79b9_7f4a_7c15);
    z = (z ^ (z >> 30)).wrapping_mul(0xbf58_476d_1ce4_e5b9);
    z = (z ^ (z >> 27)).wrapping_mul(0x94d0_49bb_1331_11eb);
    z ^ (z >> 31)
}

/// The sampled f32 domain: input `i` of 2^26 is a 19-bit sign/exponent/fraction prefix and one
/// of 128 patterns of the low 13 bits.
fn sampled(i: u32) -> u32 {
    let k = i & 127;
    let low = if k < 16 {
        FIXED_LOW[k as usize]
    } else {
        (mix(u64::from(k)) & 0x1fff) as u32
    };
    ((i >> 7) << 13) | low
}

#[derive(Clone, Copy, PartialEq, Eq)]
enum Domain {
    /// Every f32 bit pattern, hashed.
    F32,
    /// 2^26 f32 patterns (`sampled`), hashed.
    F32Sampled,
    /// Every f16 in both halves of an f16x2, raw.
    H16,
    /// Every pair of fp8 bytes, raw.
    B16,
    /// Every high word of an f64 (low word 0); the result's high word, hashed.
    F64Hi,
    /// Every high word of an f64 with a random low word (`mix` of the high word); the result's
    /// high word xor its low word, hashed (`OPCODE mixlow` in a forms file).
    F64MixLow,
}

/// What a form computes.
enum Kind {
    Cvt {
        form: CvtForm,
        dt: Type,
        st: Type,
    },
    /// A one-source float instruction (`rcp.approx.f32`, `ex2.approx.f16`, ...).
    Unary {
        op: Op,
        fmt: Fmt,
    },
}

struct Probe {
    op: String,
    mods: Mods,
    kind: Kind,
    domain: Domain,
}

impl Probe {
    fn new(line: &str) -> Probe {
        let mut words = line.split_whitespace();
        let text = words.next().unwrap_or_default();
        let mixlow = words.next() == Some("mixlow");
        let decoded = decode(text, 0).expect("a forms file names opcodes");
        let mods = decoded.mods;
        if decoded.op != Op::Cvt {
            let ty = mods.types[0].expect("a typed instruction");
            let domain = match ty {
                Type::F32 => Domain::F32,
                Type::F64 if mixlow => Domain::F64MixLow,
                Type::F64 => Domain::F64Hi,
                _ => Domain::B16,
            };
            let (op, fmt) = (decoded.op, Fmt::of(ty));
            return Probe {
                op: text.to_string(),
                mods,
                kind: Kind::Unary { op, fmt },
                domain,
            };
        }
        let (dt, st) = (mods.types[0].unwrap(), mods.types[1].unwrap());
        let pair = matches!(dt, Type::F16x2 | Type::Bf16x2 | Type::E4m3x2 | Type::E5m2x2);
        let nops = if pair && st == Type::F32 { 3 } else { 2 };
        let form = form(&mods, nops).expect("every campaign form is executable");
        let domain = match (st, dt) {
            (Type::F32, Type::Tf32 | Type::E4m3x2 | Type::E5m2x2) => Domain::F32,
            (Type::F32, _) => Domain::F32Sampled,
            (Type::F16x2, _) => Domain::H16,
            _ => Domain::B16,
        };
        Probe {
            op: text.to_string(),
            mods,
            kind: Kind::Cvt { form, dt, st },
            domain,
        }
    }

    /// The result for input bits `x`, zero-extended to 32 bits, as the GPU kernel computes it.
    fn eval(&self, x: u32) -> u32 {
        let x = u64::from(x);
        match self.kind {
            Kind::Unary { op, fmt } if self.domain == Domain::F64MixLow => {
                let lo = mix(x) & 0xffff_ffff;
                let r = scalar(op, fmt, &self.mods, x << 32 | lo, 0, 0);
                ((r >> 32) ^ r) as u32
            }
            Kind::Unary { op, fmt } if self.domain == Domain::F64Hi => {
                (scalar(op, fmt, &self.mods, x << 32, 0, 0) >> 32) as u32
            }
            Kind::Unary { op, fmt } => scalar(op, fmt, &self.mods, x, 0, 0) as u32,
            Kind::Cvt { form, dt, st } => {
                let a = if self.domain == Domain::H16 {
                    x | x << 16
                } else {
                    x
                };
                apply(form, &self.mods, dt, st, a, a) as u32
            }
        }
    }

    fn chunks(&self) -> u32 {
        match self.domain {
            Domain::F32 | Domain::F64Hi | Domain::F64MixLow => 1 << 16,
            Domain::F32Sampled => 1 << 10,
            _ => 1,
        }
    }

    fn input(&self, i: u32) -> u32 {
        if self.domain == Domain::F32Sampled {
            sampled(i)
        } else {
            i
        }
    }

    fn chunk_hash(&self, chunk: u32) -> u64 {
        (0..1u32 << 16).fold(0u64, |acc, k| {
            let i = chunk << 16 | k;
            let r = self.eval(self.input(i));
            acc.wrapping_add(mix(u64::from(i) << 32 | u64::from(r)))
        })
    }
}

fn read_u64s(p: &Path) -> Vec<u64> {
    let b = std::fs::read(p).unwrap_or_else(|e| panic!("{}: {e}", p.display()));
    b.chunks_exact(8)
        .map(|c| u64::from_le_bytes(c.try_into().unwrap()))
        .collect()
}

fn read_u32s(p: &Path) -> Vec<u32> {
    let b = std::fs::read(p).unwrap_or_else(|e| panic!("{}: {e}", p.display()));
    b.chunks_exact(4)
        .map(|c| u32::from_le_bytes(c.try_into().unwrap()))
        .collect()
}

/// Compares one form; returns (inputs compared, mismatch description lines).
fn compare(n: usize, p: &Probe, dir: &Path) -> (u64, Vec<String>) {
    let file = dir.join(format!("{n:02}.bin"));
    let mut bad = Vec::new();
    if matches!(p.domain, Domain::H16 | Domain::B16) {
        let gpu = read_u32s(&file);
        for (x, &g) in gpu.iter().enumerate() {
            let ours = p.eval(x as u32);
            if ours != g && bad.len() < 8 {
                bad.push(format!("input {x:#06x}: H100 {g:#x}, ptxrun {ours:#x}"));
            }
        }
        return (gpu.len() as u64, bad);
    }
    let gpu = read_u64s(&file);
    assert_eq!(gpu.len() as u32, p.chunks(), "{}", file.display());
    let threads = std::thread::available_parallelism().map_or(2, |n| n.get()) as u32;
    let hashes: Vec<u64> = std::thread::scope(|s| {
        let handles: Vec<_> = (0..threads)
            .map(|t| {
                s.spawn(move || {
                    (t..p.chunks())
                        .step_by(threads as usize)
                        .map(|c| (c, p.chunk_hash(c)))
                        .collect::<Vec<_>>()
                })
            })
            .collect();
        let mut all: Vec<(u32, u64)> = handles
            .into_iter()
            .flat_map(|h| h.join().unwrap())
            .collect();
        all.sort_unstable();
        all.into_iter().map(|(_, h)| h).collect()
    });
    let mismatched: Vec<usize> = (0..gpu.len()).filter(|&c| gpu[c] != hashes[c]).collect();
    if !mismatched.is_empty() {
        let list: Vec<String> = mismatched.iter().map(|c| c.to_string()).collect();
        let _ = std::fs::write(dir.join(format!("{n:02}-mismatch.txt")), list.join("\n"));
        let list: Vec<String> = mismatched.iter().take(16).map(|c| c.to_string()).collect();
        bad.push(format!(
            "{} chunks differ; dump them with `run-gpu.py dump PTX DIR {n} {}`",
            mismatched.len(),
            list.join(" ")
        ));
        for c in mismatched.iter().take(4) {
            let dump = dir.join(format!("{n:02}-chunk{c}.bin"));
            if let Ok(b) = std::fs::read(&dump) {
                drill(p, *c as u32, &b, &mut bad);
            }
        }
    }
    (u64::from(p.chunks()) << 16, bad)
}

/// Names the inputs of chunk `c` whose results differ from a dump of the GPU's results.
fn drill(p: &Probe, c: u32, dump: &[u8], bad: &mut Vec<String>) {
    for (k, w) in dump.chunks_exact(4).enumerate() {
        let g = u32::from_le_bytes(w.try_into().unwrap());
        let x = p.input(c << 16 | k as u32);
        let ours = p.eval(x);
        if ours != g && bad.len() < 12 {
            bad.push(format!("input {x:#010x}: H100 {g:#x}, ptxrun {ours:#x}"));
        }
    }
}

#[test]
#[ignore = "needs the GPU results: PTXRUN_CAMPAIGN=DIR"]
fn campaign() {
    let dir = std::env::var("PTXRUN_CAMPAIGN").expect("PTXRUN_CAMPAIGN=DIR");
    let dir = Path::new(&dir);
    let forms = std::env::var("PTXRUN_CAMPAIGN_FORMS").map_or_else(
        |_| Path::new(env!("CARGO_MANIFEST_DIR")).join("docs/numerics/cvt/forms.txt"),
        Into::into,
    );
    let forms = std::fs::read_to_string(forms).unwrap();
    let mut failed = false;
    println!("| form | inputs compared | mismatches |\n|---|---:|---:|");
    let ops = forms
        .lines()
        .map(str::trim)
        .filter(|l| !l.is_empty() && !l.starts_with('#'));
    // PTXRUN_CAMPAIGN_ONLY=3,7 compares only those forms (0-based lines of the forms file).
    let only: Option<Vec<usize>> = std::env::var("PTXRUN_CAMPAIGN_ONLY")
        .ok()
        .map(|v| v.split(',').filter_map(|n| n.trim().parse().ok()).collect());
    for (n, op) in ops.enumerate() {
        if only.as_ref().is_some_and(|o| !o.contains(&n)) {
            continue;
        }
        let p = Probe::new(op);
        let (count, bad) = compare(n, &p, dir);
        let domain = match p.domain {
            Domain::F32 => "all f32",
            Domain::F32Sampled => "2^26 f32 (sampled)",
            Domain::H16 => "all f16",
            Domain::B16 => "all 16-bit inputs",
            Domain::F64Hi => "all f64 high words",
            Domain::F64MixLow => "all f64 high words, random low words",
        };
        let mism = if bad.is_empty() { "0" } else { "**yes**" };
        println!("| `{}` | {count} ({domain}) | {mism} |", p.op);
        for b in &bad {
            println!("|   {b} | | |");
        }
        failed |= !bad.is_empty();
    }
    assert!(!failed, "the H100 and ptxrun differ");
}
