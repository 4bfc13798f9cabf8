//! Whole-matrix products for the matrix-multiply instructions (`mma.rs`, `wmma.rs`,
//! `wgmma.rs`): D = A x B + C from A (m x k), B transposed (n x k) and C as element bits, each
//! element of D computed by `tcore.rs`' one definition of it. What is here is how the elements
//! are walked: integer forms decode every element once and sum eight columns of a row at a
//! time; the f16, bf16 and tf32 forms decode every element of A and B once, not once for each
//! product it takes part in; the rest call [`float_element`] element by element. A test
//! compares every walk with the element-by-element definition.

use super::tcore;
use crate::ir::mma::{Elem, MmaForm};
use crate::ir::mods::Rounding;

/// Whether A (or B) elements of type `e` make an integer form.
pub(crate) fn is_int(e: Elem) -> bool {
    matches!(e, Elem::S8 | Elem::U8 | Elem::S4 | Elem::U4 | Elem::B1)
}

/// One element of D of a floating-point form: A's row, B's column and C's element; `rnd` is
/// the rounding modifier of an `.f64` form (absent or `.rn`: the DMMA unit).
pub(crate) fn float_element(
    f: &MmaForm,
    rnd: Option<Rounding>,
    a: &[u64],
    b: &[u64],
    c: u64,
) -> u64 {
    match f.a {
        Elem::F64 if matches!(rnd, None | Some(Rounding::Rn)) => tcore::f64_dot(a, b, c),
        Elem::F64 => tcore::f64_dot_rounded(a, b, c, super::fp::round_of(rnd)),
        Elem::E4m3 | Elem::E5m2 => tcore::f8_dot(a, b, (f.a, f.b), c, f.d),
        _ => tcore::float_dot_mixed(a, b, (f.a, f.b), (c, f.c), f.d),
    }
}

/// Whether [`float_element`] of form `f` is `tcore::float_dot_mixed` (f16, bf16, tf32), which
/// [`mixed_products`] computes with each element decoded once.
pub(crate) fn is_mixed(f: &MmaForm) -> bool {
    !matches!(f.a, Elem::F64 | Elem::E4m3 | Elem::E5m2) && !is_int(f.a)
}

/// D = A x B + C of a form whose element is `tcore::float_dot_mixed` ([`is_mixed`]) from A
/// (m x k), B transposed (n x k) and C as element bits, into `d`: every element of A and B is
/// decoded once (into `av` and `bv`), not once for each product it takes part in (a row of A
/// meets n columns, a column of B m rows). The same bits as [`float_element`] element by
/// element (`whole_matrix_products_are_their_elements`).
pub(crate) fn mixed_products(
    f: &MmaForm,
    (a, b_t, c): (&[u64], &[u64], &[u64]),
    (av, bv): (&mut Vec<tcore::Decoded>, &mut Vec<tcore::Decoded>),
    d: &mut [u64],
) {
    let (n, k) = (usize::from(f.shape.n), usize::from(f.shape.k));
    av.clear();
    av.extend(a.iter().map(|&x| tcore::decode_elem(x, f.a)));
    bv.clear();
    bv.extend(b_t.iter().map(|&x| tcore::decode_elem(x, f.b)));
    for ((drow, crow), ar) in d.chunks_mut(n).zip(c.chunks(n)).zip(av.chunks(k)) {
        for ((out, &cv), bc) in drow.iter_mut().zip(crow).zip(bv.chunks(k)) {
            *out = tcore::float_dot_mixed_decoded(ar, bc, (cv, f.c), f.d);
        }
    }
}

/// The arithmetic of one element of D: A's row, B's column, C's element.
pub(crate) type Dot<'a> = dyn Fn(&[u64], &[u64], u64) -> u64 + 'a;

/// D = A x B + C (row-major m x n) from A (m x k), B transposed (n x k) and C as element bits:
/// integer forms decode every element once, floating-point ones go through `dot`.
pub(crate) fn multiply(f: &MmaForm, (a, b_t, c): (&[u64], &[u64], &[u64]), dot: &Dot) -> Vec<u64> {
    let (m, n) = (usize::from(f.shape.m), usize::from(f.shape.n));
    let mut d = vec![0; m * n];
    if is_int(f.a) {
        let ai: Vec<i32> = a.iter().map(|&v| tcore::int_value(v, f.a)).collect();
        let bi: Vec<i32> = b_t.iter().map(|&v| tcore::int_value(v, f.b)).collect();
        let b1 = (f.a == Elem::B1).then_some(f.xor);
        int_products(f, (&ai, &bi, c), b1, &mut d);
    } else {
        float_products(f, (a, b_t, c), &mut d, dot);
    }
    d
}

/// The floating-point forms' D (`multiply`): each element `dot` of A's row, B's column and C's
/// element.
#[inline(always)]
pub(crate) fn float_products(
    f: &MmaForm,
    (a, b_t, c): (&[u64], &[u64], &[u64]),
    d: &mut [u64],
    dot: impl Fn(&[u64], &[u64], u64) -> u64,
) {
    let (n, k) = (usize::from(f.shape.n), usize::from(f.shape.k));
    for (i, out) in d.iter_mut().enumerate() {
        let (row, col) = (i / n, i % n);
        *out = dot(&a[row * k..][..k], &b_t[col * k..][..k], c[i]);
    }
}

/// The integer forms' D (`multiply`) from A and B transposed as element values: each element
/// `tcore::int_dot`, in a loop built also for x86-64-v3 and chosen at run time (AVX2 multiplies
/// eight 32-bit lanes at once; the baseline has no 32-bit vector multiply). (Rows of a K known
/// when compiled, 16 or 32, measured 0.7% more instructions on imma_gemm, and were dropped.)
#[multiversion::multiversion(targets("x86_64+avx+avx2+bmi1+bmi2+fma+lzcnt+popcnt+movbe"))]
pub(crate) fn int_products(
    f: &MmaForm,
    (ai, bi, c): (&[i32], &[i32], &[u64]),
    b1: Option<bool>,
    d: &mut [u64],
) {
    let (n, k) = (usize::from(f.shape.n), usize::from(f.shape.k));
    let ops = (ai, bi, c);
    if b1.is_none() && n == 8 {
        return int_rows_of_eight(ops, k, f.satfinite, d);
    }
    int_dots(ops, (n, k), b1, f.satfinite, d)
}

/// [`int_products`] for products (not `.b1`) with n = 8 (every `mma.sync` shape): each row of
/// D's eight sums is built a k at a time, A's element times B's row of eight (one vector
/// multiply and add), then finished with C as `tcore::int_dot` finishes its sum of the same
/// products (integer sums are exact in any order).
#[inline(always)]
fn int_rows_of_eight((ai, bi, c): (&[i32], &[i32], &[u64]), k: usize, sat: bool, d: &mut [u64]) {
    // B as k rows of eight (K is at most 64 for products: s4's m16n8k64).
    let mut b = [[0i32; 8]; 64];
    let k = k.min(b.len());
    for (col, bc) in bi.chunks(k).take(8).enumerate() {
        for (brow, &v) in b.iter_mut().zip(bc) {
            brow[col] = v;
        }
    }
    for ((drow, crow), ar) in d.chunks_mut(8).zip(c.chunks(8)).zip(ai.chunks(k)) {
        let sums = eight_sums(ar, &b);
        for ((out, &cv), &s) in drow.iter_mut().zip(crow).zip(&sums) {
            *out = tcore::int_finish(s, cv, sat);
        }
    }
}

/// The sums over k of `a[k]` times row k of `b`, eight at once: a loop of its own, out of line,
/// for the compiler to make one vector multiply and add of each k. (Inlined into
/// `int_products`, or written without `take`, LLVM vectorised over k instead, with a transpose
/// of every eight rows: three times the instructions.)
#[inline(never)]
#[multiversion::multiversion(targets("x86_64+avx+avx2+bmi1+bmi2+fma+lzcnt+popcnt+movbe"))]
fn eight_sums(a: &[i32], b: &[[i32; 8]; 64]) -> [i32; 8] {
    let mut sums = [0i32; 8];
    for (&x, brow) in a.iter().zip(b).take(64) {
        for j in 0..8 {
            sums[j] += x * brow[j];
        }
    }
    sums
}

/// [`int_products`] element by element: `tcore::int_dot` of each row of A and column of B.
#[inline(always)]
fn int_dots(
    (ai, bi, c): (&[i32], &[i32], &[u64]),
    (n, k): (usize, usize),
    b1: Option<bool>,
    sat: bool,
    d: &mut [u64],
) {
    for ((drow, crow), ar) in d.chunks_mut(n).zip(c.chunks(n)).zip(ai.chunks(k)) {
        for ((out, &cv), bc) in drow.iter_mut().zip(crow).zip(bi.chunks(k)) {
            *out = tcore::int_dot(ar, bc, b1, cv, sat);
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::ir::opcode::decode;

    fn form_of(text: &str) -> MmaForm {
        crate::ir::mma::form(&decode(text, 0).unwrap().mods).unwrap()
    }

    /// Random element bits of `bits` bits, one in four an edge: zero, a signed zero, the
    /// smallest and largest magnitudes, infinities and NaNs of the float formats (as raw bit
    /// patterns, they are also edges of the integer ones).
    fn element_bits(rng: &mut impl rand::Rng, bits: u32) -> u64 {
        let edges: [u64; 8] = [0, 1, 0x7f, 0x80, 0x7bff, 0x7c00, 0x7f80_0000, u64::MAX];
        let mask = if bits == 64 {
            u64::MAX
        } else {
            (1 << bits) - 1
        };
        match rng.gen_range(0..4) {
            0 => edges[rng.gen_range(0..edges.len())] & mask,
            _ => rng.gen::<u64>() & mask,
        }
    }

    /// The decoded path (`mixed_products`) and the integer path (`int_products`) give what
    /// `float_element` and `tcore::int_dot` give element by element, on random and edge
    /// operands and C values near the ends of the s32 range.
    #[test]
    fn whole_matrix_products_are_their_elements() {
        use rand::{Rng, SeedableRng};
        let mut rng = rand_chacha::ChaCha8Rng::seed_from_u64(7);
        // `wmma.mma` also takes C and D of different types (f16 C, f32 D and back).
        let f32_d = form_of("mma.sync.aligned.m16n8k16.row.col.f32.f16.f16.f32");
        let f16_d = form_of("mma.sync.aligned.m16n8k16.row.col.f16.f16.f16.f16");
        let mixed = [
            (
                "f16 C, f32 D",
                MmaForm {
                    c: Elem::F16,
                    ..f32_d
                },
            ),
            (
                "f32 C, f16 D",
                MmaForm {
                    c: Elem::F32,
                    ..f16_d
                },
            ),
        ];
        let forms = [
            "mma.sync.aligned.m16n8k16.row.col.f32.f16.f16.f32",
            "mma.sync.aligned.m16n8k16.row.col.f16.f16.f16.f16",
            "mma.sync.aligned.m16n8k8.row.col.f16.f16.f16.f16",
            "mma.sync.aligned.m16n8k16.row.col.f32.bf16.bf16.f32",
            "mma.sync.aligned.m16n8k8.row.col.f32.tf32.tf32.f32",
            "mma.sync.aligned.m16n8k32.row.col.s32.s8.u8.s32",
            "mma.sync.aligned.m16n8k32.row.col.satfinite.s32.u8.s8.s32",
            "mma.sync.aligned.m8n8k16.row.col.satfinite.s32.s8.s8.s32",
            "mma.sync.aligned.m16n8k64.row.col.satfinite.s32.s4.u4.s32",
            "mma.sync.aligned.m16n8k256.row.col.s32.b1.b1.s32.xor.popc",
        ]
        .map(|text| (text, form_of(text)));
        for (text, f) in forms.into_iter().chain(mixed) {
            let (m, n, k) = (
                usize::from(f.shape.m),
                usize::from(f.shape.n),
                usize::from(f.shape.k),
            );
            for _ in 0..20 {
                let a: Vec<u64> = (0..m * k)
                    .map(|_| element_bits(&mut rng, f.a.bits()))
                    .collect();
                let b: Vec<u64> = (0..n * k)
                    .map(|_| element_bits(&mut rng, f.b.bits()))
                    .collect();
                let c: Vec<u64> = (0..m * n)
                    .map(|_| match rng.gen_range(0..3) {
                        0 if is_int(f.a) => [0x7fff_ff00u64, 0x8000_0100][rng.gen_range(0..2)],
                        _ => element_bits(&mut rng, f.c.bits()),
                    })
                    .collect();
                let mut d = vec![0; m * n];
                if is_int(f.a) {
                    let ai: Vec<i32> = a.iter().map(|&v| tcore::int_value(v, f.a)).collect();
                    let bi: Vec<i32> = b.iter().map(|&v| tcore::int_value(v, f.b)).collect();
                    let b1 = (f.a == Elem::B1).then_some(f.xor);
                    int_products(&f, (&ai, &bi, &c), b1, &mut d);
                    for (i, &got) in d.iter().enumerate() {
                        let (row, col) = (i / n, i % n);
                        let (ar, bc) = (&ai[row * k..][..k], &bi[col * k..][..k]);
                        let want = tcore::int_dot(ar, bc, b1, c[i], f.satfinite);
                        assert_eq!(got, want, "{text} element {i}");
                    }
                } else {
                    assert!(is_mixed(&f), "{text}");
                    let decoded = (&mut Vec::new(), &mut Vec::new());
                    mixed_products(&f, (&a, &b, &c), decoded, &mut d);
                    for (i, &got) in d.iter().enumerate() {
                        let (row, col) = (i / n, i % n);
                        let (ar, bc) = (&a[row * k..][..k], &b[col * k..][..k]);
                        let want = float_element(&f, None, ar, bc, c[i]);
                        assert_eq!(got, want, "{text} element {i}");
                    }
                }
            }
        }
    }
}
