//! Robustness: mutated real PTX and random bytes must never make `Module::parse` (compile, and
//! render the diagnostics) panic, hang or overflow the stack. Every run is deterministic (fixed ChaCha8 seeds), so a failure
//! names its seed and iteration and leaves the input in `target/mutation-failure.ptx`.

use rand::{Rng, SeedableRng};
use rand_chacha::ChaCha8Rng;
use std::panic::{self, AssertUnwindSafe};
use std::path::{Path, PathBuf};
use std::time::{Duration, Instant};

const SEED: u64 = 0x9e37_79b9_7f4a_7c15;
/// Mutated inputs; each gets 1 to 3 stacked mutations.
const ITERATIONS: usize = 3000;
const MIN_MUTATIONS: usize = 3000;
/// One compile + render of one input taking longer than this counts as a hang.
const SLOW: Duration = Duration::from_secs(5);

fn crate_root() -> &'static Path {
    Path::new(env!("CARGO_MANIFEST_DIR"))
}

fn target_file(name: &str) -> PathBuf {
    let dir = crate_root().join("target");
    std::fs::create_dir_all(&dir).unwrap();
    dir.join(name)
}

/// Every `kernel.ptx` under `ptx-samples/` below 1 MB, recursively, in a stable order.
fn samples() -> Vec<(PathBuf, Vec<u8>)> {
    fn walk(dir: &Path, out: &mut Vec<PathBuf>) {
        let mut entries: Vec<_> = std::fs::read_dir(dir)
            .unwrap_or_else(|e| panic!("read {}: {e}", dir.display()))
            .map(|e| e.unwrap().path())
            .collect();
        entries.sort();
        for p in entries {
            if p.is_dir() {
                walk(&p, out);
            } else if p.file_name().is_some_and(|n| n == "kernel.ptx")
                // The 5.6 MB parsing benchmark would make each of its mutants cost a hundred
                // small ones and find nothing they do not.
                && std::fs::metadata(&p).is_ok_and(|m| m.len() < 1 << 20)
            {
                out.push(p);
            }
        }
    }
    let mut paths = Vec::new();
    walk(&crate_root().join("ptx-samples"), &mut paths);
    assert!(!paths.is_empty(), "no ptx-samples/**/kernel.ptx found");
    paths
        .into_iter()
        .map(|p| {
            let b = std::fs::read(&p).unwrap();
            (p, b)
        })
        .collect()
}

/// Compiles and, on failure, renders; `Err` carries the panic message.
fn exercise(bytes: &[u8]) -> Result<bool, String> {
    let src = String::from_utf8_lossy(bytes);
    let result = panic::catch_unwind(AssertUnwindSafe(|| {
        match ptxrun::api::Module::parse_named(src.into_owned(), "mutant.ptx") {
            Ok(_) => true,
            Err(e) => {
                // The facade's error is every diagnostic rendered with its source lines.
                assert!(!e.message().is_empty(), "render produced nothing");
                false
            }
        }
    }));
    result.map_err(|e| {
        e.downcast_ref::<String>()
            .cloned()
            .or_else(|| e.downcast_ref::<&str>().map(|s| s.to_string()))
            .unwrap_or_else(|| "non-string panic payload".into())
    })
}

/// Runs one input; on a panic or a hang writes it to `target/mutation-failure.ptx` and fails.
fn check(bytes: &[u8], what: &str) -> bool {
    let t = Instant::now();
    let r = exercise(bytes);
    let took = t.elapsed();
    let fail = |msg: String| -> ! {
        let path = target_file("mutation-failure.ptx");
        std::fs::write(&path, bytes).unwrap();
        panic!("{what}: {msg}; input written to {}", path.display());
    };
    match r {
        Err(msg) => fail(format!("panicked: {msg}")),
        Ok(_) if took > SLOW => fail(format!("took {took:?}")),
        Ok(ok) => ok,
    }
}

const SPECIAL: &[u8] = b"{};[]%.@!<>,:_0123456789-+";
const HUGE: &[u8] = b"99999999999999999999";

fn is_tokenish(b: u8) -> bool {
    b.is_ascii_alphanumeric() || matches!(b, b'_' | b'.' | b'%' | b'$' | b':')
}

/// The maximal token-like run around `at`, if `at` is inside one.
fn token_at(buf: &[u8], at: usize) -> Option<(usize, usize)> {
    if at >= buf.len() || !is_tokenish(buf[at]) {
        return None;
    }
    let mut s = at;
    while s > 0 && is_tokenish(buf[s - 1]) {
        s -= 1;
    }
    let mut e = at;
    while e < buf.len() && is_tokenish(buf[e]) {
        e += 1;
    }
    Some((s, e))
}

/// A random token-like chunk of `buf` (tries a few positions).
fn random_token(rng: &mut ChaCha8Rng, buf: &[u8]) -> Option<(usize, usize)> {
    (0..16).find_map(|_| {
        let at = rng.gen_range(0..buf.len().max(1));
        token_at(buf, at)
    })
}

/// A range of length 1..=max within `buf` (empty `buf`: 0..0). Mostly short, sometimes long.
fn random_range(rng: &mut ChaCha8Rng, len: usize) -> (usize, usize) {
    if len == 0 {
        return (0, 0);
    }
    let max = if rng.gen_bool(0.8) { 32 } else { 4096 };
    let start = rng.gen_range(0..len);
    let n = rng.gen_range(1..=max.min(len - start));
    (start, start + n)
}

/// Applies one random mutation; returns its name.
fn mutate(rng: &mut ChaCha8Rng, buf: &mut Vec<u8>) -> &'static str {
    let len = buf.len();
    match rng.gen_range(0..9) {
        0 => {
            let (s, e) = random_range(rng, len);
            buf.drain(s..e);
            "delete-range"
        }
        1 => {
            let (s, e) = random_range(rng, len);
            let chunk = buf[s..e].to_vec();
            let at = rng.gen_range(0..=buf.len());
            buf.splice(at..at, chunk);
            "duplicate-range"
        }
        2 => {
            let n = rng.gen_range(1..=8);
            let bytes: Vec<u8> = (0..n)
                .map(|_| {
                    if rng.gen_bool(0.75) {
                        SPECIAL[rng.gen_range(0..SPECIAL.len())]
                    } else {
                        rng.gen()
                    }
                })
                .collect();
            let at = rng.gen_range(0..=len);
            buf.splice(at..at, bytes);
            "insert-bytes"
        }
        3 => {
            if len < 2 {
                return "swap-ranges(noop)";
            }
            let (a0, a1) = random_range(rng, len);
            let (b0, b1) = random_range(rng, len);
            let ((x0, x1), (y0, y1)) = if a0 <= b0 {
                ((a0, a1), (b0, b1))
            } else {
                ((b0, b1), (a0, a1))
            };
            if x1 > y0 {
                return "swap-ranges(overlap)";
            }
            let mut out = Vec::with_capacity(len);
            out.extend_from_slice(&buf[..x0]);
            out.extend_from_slice(&buf[y0..y1]);
            out.extend_from_slice(&buf[x1..y0]);
            out.extend_from_slice(&buf[x0..x1]);
            out.extend_from_slice(&buf[y1..]);
            *buf = out;
            "swap-ranges"
        }
        4 => {
            let at = rng.gen_range(0..=len);
            buf.truncate(at);
            "truncate"
        }
        5 => {
            let (Some((s, e)), Some((ds, de))) = (random_token(rng, buf), random_token(rng, buf))
            else {
                return "replace-token(none)";
            };
            let donor = buf[ds..de].to_vec();
            buf.splice(s..e, donor);
            "replace-token"
        }
        6 => {
            if len == 0 {
                return "flip-byte(empty)";
            }
            let at = rng.gen_range(0..len);
            buf[at] = rng.gen();
            "flip-byte"
        }
        7 => {
            // Replace a number (register range, vector count, array size, immediate) if one is
            // found, else insert anywhere.
            let numeric = (0..32).find_map(|_| {
                let at = rng.gen_range(0..len.max(1));
                (at < len && buf[at].is_ascii_digit()).then(|| {
                    let (mut s, mut e) = (at, at);
                    while s > 0 && buf[s - 1].is_ascii_digit() {
                        s -= 1;
                    }
                    while e < len && buf[e].is_ascii_digit() {
                        e += 1;
                    }
                    (s, e)
                })
            });
            match numeric {
                Some((s, e)) => {
                    buf.splice(s..e, HUGE.iter().copied());
                }
                None => {
                    let at = rng.gen_range(0..=len);
                    buf.splice(at..at, HUGE.iter().copied());
                }
            }
            "huge-number"
        }
        _ => {
            // Delete a single token-like chunk (an operand, a modifier, a `;`-adjacent word).
            match random_token(rng, buf) {
                Some((s, e)) => {
                    buf.drain(s..e);
                    "delete-token"
                }
                None => "delete-token(none)",
            }
        }
    }
}

#[test]
fn mutated_samples_never_panic() {
    let files = samples();
    for (p, b) in &files {
        assert!(
            check(b, &p.display().to_string()),
            "{} should be valid",
            p.display()
        );
    }
    let mut rng = ChaCha8Rng::seed_from_u64(SEED);
    let mut mutations = 0usize;
    let mut accepted = 0usize;
    let mut kinds: std::collections::BTreeMap<&str, usize> = Default::default();
    let start = Instant::now();
    for i in 0..ITERATIONS {
        let (path, orig) = &files[rng.gen_range(0..files.len())];
        let mut buf = orig.clone();
        let mut applied = Vec::new();
        for _ in 0..rng.gen_range(1..=3) {
            let k = mutate(&mut rng, &mut buf);
            *kinds.entry(k).or_default() += 1;
            applied.push(k);
            // Names with a parenthesis are no-ops (nothing to swap, no token found).
            if !k.contains('(') {
                mutations += 1;
            }
        }
        let what = format!(
            "seed {SEED:#x}, iteration {i}, base {}, mutations {applied:?}",
            path.strip_prefix(crate_root()).unwrap_or(path).display()
        );
        if check(&buf, &what) {
            accepted += 1;
        }
    }
    eprintln!(
        "{ITERATIONS} inputs, {mutations} mutations, {accepted} still accepted, {:?}; {kinds:?}",
        start.elapsed()
    );
    assert!(mutations >= MIN_MUTATIONS, "only {mutations} mutations");
    // Most mutants must be rejected, or the mutations are not reaching the checks.
    assert!(
        accepted < ITERATIONS / 2,
        "{accepted} of {ITERATIONS} mutants accepted"
    );
}

#[test]
fn random_bytes_never_panic() {
    let mut rng = ChaCha8Rng::seed_from_u64(SEED ^ 0xffff);
    for i in 0..500 {
        let n = rng.gen_range(0..2000);
        let bytes: Vec<u8> = (0..n).map(|_| rng.gen()).collect();
        let accepted = check(
            &bytes,
            &format!("random bytes, seed {:#x}, iteration {i}", SEED ^ 0xffff),
        );
        assert!(!accepted, "iteration {i}: random bytes accepted as PTX");
    }
}

/// Random sequences of PTX-looking tokens behind a valid header: unlike raw bytes these get past
/// the lexer, so they exercise the parser's recovery and the lowering.
#[test]
fn token_soup_never_panics() {
    const WORDS: &[&str] = &[
        ".version 9.0",
        ".target sm_90",
        ".address_size 64",
        ".visible",
        ".entry",
        ".func",
        ".extern",
        ".param",
        ".reg",
        ".shared",
        ".global",
        ".local",
        ".const",
        ".align 8",
        ".b8",
        ".b32",
        ".b64",
        ".u32",
        ".s32",
        ".f32",
        ".u64",
        ".pred",
        ".v2",
        ".v4",
        "k",
        "f",
        "smem",
        "%r1",
        "%r<4>",
        "%rd1",
        "%p1",
        "%f1",
        "%tid.x",
        "%ctaid.x",
        "{",
        "}",
        "(",
        ")",
        "[",
        "]",
        ";",
        ",",
        ":",
        "@",
        "!",
        "<",
        ">",
        "+",
        "-",
        "*",
        "_",
        "|",
        "0",
        "1",
        "8",
        "16",
        "-1",
        "0f3F800000",
        "0d3FF0000000000000",
        "99999999999999999999",
        "$L__BB0_1",
        "$L__BB0_1:",
        "ret;",
        "bra",
        "add.s32",
        "mov.u32",
        "ld.global.u32",
        "st.shared.v4.b32",
        "setp.ge.u32",
        "mbarrier.init.shared::cta.b64",
        "cp.async.cg.shared.global",
        "cp.async.bulk.shared::cluster.global.mbarrier::complete_tx::bytes",
        "call.uni",
        ".callprototype",
        "prototype_0",
        ".loc 1 2 3",
        ".file 1 \"a.cu\"",
        ".pragma \"nounroll\";",
        ".maxntid 128, 1, 1",
        "generic(smem)",
        "=",
        "\n",
    ];
    let mut rng = ChaCha8Rng::seed_from_u64(SEED ^ 0xabcd);
    for i in 0..1000 {
        let mut s = String::from(".version 9.0\n.target sm_90\n.address_size 64\n");
        for _ in 0..rng.gen_range(0..300) {
            s.push_str(WORDS[rng.gen_range(0..WORDS.len())]);
            s.push(' ');
        }
        check(
            s.as_bytes(),
            &format!("token soup, seed {:#x}, iteration {i}", SEED ^ 0xabcd),
        );
    }
}
