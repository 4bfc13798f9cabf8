//! Sparse `mma` (PTX ISA 9.0 section 9.7.14.6: `mma.sp` and `mma.sp::ordered_metadata`): the
//! warp computes `D = A x B + C` for an m16n8kK shape where A keeps half of each row: per chunk
//! of K (four 16-bit or 8-bit elements, two tf32, eight 4-bit), two elements (one tf32 element,
//! two pairs of 4-bit elements), which the lanes hold in the dense fragment layout of K / 2
//! (`mma.rs`). Each chunk's metadata nibble holds two 2-bit indices, the first for the chunk's
//! first kept element (or pair); a kept element multiplies the row of B at its chunk's start
//! plus its index (times two for pairs; a tf32 element at index / 2).
//!
//! With L the lanes of a group of four that one instruction reads (`SpForm::meta_lanes`) and
//! `sel` the sparsity selector, the nibble of row `r` and chunk `c` is, for the 16-bit and tf32
//! forms, bits `16 (r / 8) + 4 (c % 4)` of the metadata of lane `4 (r % 8) + L sel + c / 4`, and
//! for the 8-bit and 4-bit forms bits `4 (c % 8)` of lane `4 (r % 8) + L sel + 2 (c / 8) + r / 8`
//! ([`nibble_at`]). The GPU reads it so (measured on an H200, whose sm_90a tensor cores are the
//! H100's: `docs/numerics/mma/sparse.py`); the arithmetic is the dense form's over the kept products
//! (`tcore.rs`). Metadata the ISA calls undefined (equal indices; with `::ordered_metadata`,
//! decreasing ones; tf32 pairs that are no element) stops the run as an
//! `invalid-sparse-metadata` hazard. All 32 lanes execute the instruction together, otherwise it
//! is `divergent-aligned`.

use super::ctx::Ctx;
use super::fault::FaultKind;
use super::fault::{fault, Res};
use super::lanes::{lanes, WARP};
use super::mma::{
    c_at, gather_operands, operands, partial_warp, per_reg, scatter, unsupported_form, Rows,
};
use super::tcore;
use crate::ir::mma::{Elem, MmaForm};
use crate::ir::mma_sp::SpForm;
use crate::ir::{Operand, Type};

/// The slot of [`Rows`] holding a lane's metadata register (after A, B and C: at most 12).
const META_SLOT: usize = 12;

/// The form (decoded when the module loaded), or the unsupported fault that names it.
fn decoded(cx: &Ctx<'_, '_>) -> Res<SpForm> {
    cx.func
        .form(cx.pc)
        .mma_sp()
        .map_err(|e| unsupported_form(cx, e))
}

/// Reads this group's A, B and C registers and its metadata register into `rows`.
pub(crate) fn gather(cx: &Ctx<'_, '_>, rows: &mut Rows) {
    let Ok(f) = decoded(cx) else { return };
    gather_operands(cx, &f.mma, rows);
    // `e` is a register, or a brace list of one (ptxas takes both).
    let Some(e) = super::addr::elems(cx, 4).first().copied() else {
        return;
    };
    for lane in lanes(cx.active) {
        rows[lane][META_SLOT] = cx.value(&e, lane, Type::B32);
    }
}

/// Executes the instruction for this group's lanes; `rows` holds every present lane's operands
/// and `present` says which lanes are there.
pub(crate) fn exec(cx: &mut Ctx<'_, '_>, rows: &Rows, present: u32) -> Res<()> {
    let f = decoded(cx)?;
    if present != u32::MAX {
        return Err(partial_warp(cx, !present, "fragments and metadata"));
    }
    let sel = match cx.ops.get(5) {
        Some(Operand::Imm(v)) => u32::try_from(*v).unwrap_or(u32::MAX),
        _ => u32::MAX,
    };
    if sel >= f.selectors() {
        // ptxas takes 2 and 3 for the m16n8k32 f16 form with f32 accumulators; the GPU stops
        // the launch there with an illegal-instruction error.
        return Err(unsupported_form(
            cx,
            crate::ir::mma::MmaError::NotExecutable(
                "sparsity selectors 2 and 3 (ptxas accepts them, the ISA lists 0 and 1, and an \
                 sm_90a GPU stops the launch with an illegal-instruction error)",
            ),
        ));
    }
    let mut meta = [0u32; WARP];
    for (m, row) in meta.iter_mut().zip(rows) {
        *m = row[META_SLOT] as u32;
    }
    let cols = columns(&f, &meta, sel as usize).map_err(|bad| invalid(cx, &f, bad))?;
    let d = product(&f, rows, &cols);
    let count = f.regs()[0] * per_reg(f.mma.d);
    scatter(
        cx,
        &d,
        usize::from(f.mma.shape.n),
        (f.regs()[0], f.mma.d),
        (count, &|lane, i| c_at(&f.mma, lane, i)),
    );
    Ok(())
}

/// Metadata the ISA leaves undefined: (row, chunk, lane, nibble).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) struct BadNibble {
    row: usize,
    chunk: usize,
    lane: usize,
    nibble: u32,
}

fn invalid(cx: &Ctx<'_, '_>, f: &SpForm, b: BadNibble) -> Box<super::fault::Fault> {
    let why = if f.mma.a == Elem::Tf32 {
        "a tf32 chunk's metadata must be 0b0100 or 0b1110"
    } else if b.nibble & 3 == b.nibble >> 2 {
        "the two indices of a chunk must differ (0b0000, 0b0101, 0b1010, 0b1111 are undefined)"
    } else {
        "::ordered_metadata requires each chunk's indices in increasing order"
    };
    let mut e = fault(
        FaultKind::Hazard(crate::check::HazardKind::InvalidSparseMetadata),
        format!(
            "`{}`: metadata nibble {:#06b} of lane {} (row {}, chunk {} of A) is undefined \
             behaviour: {why} (PTX ISA 9.0 section 9.7.14.6.1)",
            cx.ins.op.name(),
            b.nibble,
            b.lane,
            b.row,
            b.chunk
        ),
    );
    e.linear_thread = Some(super::addr::thread_of(cx, b.lane) as u32);
    e
}

/// (lane, bit) of the metadata nibble of `row` and `chunk`: a lane's register holds four chunks
/// of rows g and g + 8 (16-bit and tf32 forms) or eight chunks of one row (8-bit and 4-bit).
pub(crate) fn nibble_at(f: &SpForm, sel: usize, row: usize, chunk: usize) -> (usize, usize) {
    metadata_nibble(f.mma.a.bits() >= 16, f.meta_lanes(), sel, row, chunk)
}

/// The metadata layout `mma.sp` and `wgmma.mma_async.sp` share (each measured on the GPU):
/// (lane, bit) of the nibble of `row` (of a warp's 16) and `chunk`, for `wide` (16-bit or tf32)
/// or narrow (8-bit, 4-bit) elements, the selector `sel` moving the first lane by `step`.
pub(crate) fn metadata_nibble(
    wide: bool,
    step: usize,
    sel: usize,
    row: usize,
    chunk: usize,
) -> (usize, usize) {
    let first = 4 * (row % 8) + step * sel;
    if wide {
        (first + chunk / 4, 16 * (row / 8) + 4 * (chunk % 4))
    } else {
        (first + 2 * (chunk / 8) + row / 8, 4 * (chunk % 8))
    }
}

/// The dense column of K each kept element of A multiplies: `16 x K/2`, row-major.
pub(crate) fn columns(f: &SpForm, meta: &[u32; WARP], sel: usize) -> Result<Vec<usize>, BadNibble> {
    let k = usize::from(f.mma.shape.k);
    let (kc, chunk) = (k / 2, f.chunk());
    let kept = kc / (k / chunk); // kept elements per chunk: 2, 1 (tf32) or 4 (4-bit)
    let mut cols = vec![0; 16 * kc];
    for row in 0..16 {
        for c in 0..k / chunk {
            let (lane, bit) = nibble_at(f, sel, row, c);
            let nibble = (meta[lane] >> bit) & 0xf;
            let (i0, i1) = ((nibble & 3) as usize, (nibble >> 2) as usize);
            let valid = match f.mma.a {
                Elem::Tf32 => nibble == 0b0100 || nibble == 0b1110,
                _ => i0 != i1 && (!f.ordered || i0 < i1),
            };
            if !valid {
                return Err(BadNibble {
                    row,
                    chunk: c,
                    lane,
                    nibble,
                });
            }
            for e in 0..kept {
                let at = match kept {
                    1 => c * chunk + i0 / 2,
                    2 => c * chunk + [i0, i1][e],
                    _ => c * chunk + 2 * [i0, i1][e / 2] + e % 2,
                };
                cols[row * kc + c * kept + e] = at;
            }
        }
    }
    Ok(cols)
}

/// D (16 x 8, row-major element bits) from the lanes' operands and the kept columns.
fn product(f: &SpForm, rows: &Rows, cols: &[usize]) -> Vec<u64> {
    let mf = &f.mma;
    let (n, k) = (usize::from(mf.shape.n), usize::from(mf.shape.k));
    let kc = k / 2;
    // The compressed A has the dense fragment layout of K / 2.
    let half = MmaForm {
        shape: crate::ir::mods::MatShape {
            k: mf.shape.k / 2,
            ..mf.shape
        },
        ..*mf
    };
    let [_, a_regs, b_regs, c_regs] = f.regs();
    let [a, b_t, c] = operands(&half, mf, rows, [a_regs, b_regs, c_regs]);
    let mut d = vec![0u64; 16 * n];
    let mut b = vec![0u64; kc];
    for (i, out) in d.iter_mut().enumerate() {
        let (row, col) = (i / n, i % n);
        for (v, &kk) in b.iter_mut().zip(&cols[row * kc..][..kc]) {
            *v = b_t[col * k + kk];
        }
        *out = dot(f, &a[row * kc..][..kc], &b, c[i]);
    }
    d
}

/// One element of D over the kept products.
fn dot(f: &SpForm, a: &[u64], b: &[u64], c: u64) -> u64 {
    let mf = &f.mma;
    match mf.a {
        Elem::S8 | Elem::U8 | Elem::S4 | Elem::U4 => {
            let ai: Vec<i32> = a.iter().map(|&v| tcore::int_value(v, mf.a)).collect();
            let bi: Vec<i32> = b.iter().map(|&v| tcore::int_value(v, mf.b)).collect();
            tcore::int_dot(&ai, &bi, None, c, mf.satfinite)
        }
        Elem::E4m3 | Elem::E5m2 => tcore::f8_dot(a, b, (mf.a, mf.b), c, mf.d),
        _ => tcore::float_dot(a, b, (mf.a, mf.b), c, mf.d),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::ir::opcode::decode;

    fn form_of(text: &str) -> SpForm {
        let d = decode(text, 0).unwrap();
        crate::ir::mma_sp::form(&d.mods, d.op == crate::ir::Op::MmaSpOrdered).unwrap()
    }

    const FORMS: [&str; 6] = [
        "mma.sp.sync.aligned.m16n8k16.row.col.f32.f16.f16.f32",
        "mma.sp.sync.aligned.m16n8k32.row.col.f32.bf16.bf16.f32",
        "mma.sp.sync.aligned.m16n8k8.row.col.f32.tf32.tf32.f32",
        "mma.sp.sync.aligned.m16n8k64.row.col.f32.e4m3.e4m3.f32",
        "mma.sp.sync.aligned.m16n8k32.row.col.s32.s8.s8.s32",
        "mma.sp.sync.aligned.m16n8k128.row.col.s32.u4.u4.s32",
    ];

    /// Every (row, chunk) has its own nibble, in the lanes the selector names.
    #[test]
    fn each_selector_reads_its_lanes_bits_once() {
        for text in FORMS {
            let f = form_of(text);
            let chunks = usize::from(f.mma.shape.k) / f.chunk();
            for sel in 0..f.selectors() as usize {
                let mut seen = std::collections::HashSet::new();
                for row in 0..16 {
                    for c in 0..chunks {
                        let (lane, bit) = nibble_at(&f, sel, row, c);
                        let first = 4 * (row % 8) + f.meta_lanes() * sel;
                        assert!((first..first + f.meta_lanes()).contains(&lane), "{text}");
                        assert!(bit <= 28 && seen.insert((lane, bit)), "{text} {row} {c}");
                    }
                }
                assert_eq!(seen.len(), 16 * chunks, "{text}");
            }
        }
    }

    /// Kept elements land at their chunk plus index (tf32: index / 2; 4-bit: pairs).
    #[test]
    fn kept_elements_multiply_the_rows_their_indices_name() {
        let meta = [0xEEEE_EEEEu32; WARP]; // indices 2 and 3 everywhere
        let at = |text: &str| columns(&form_of(text), &meta, 0).unwrap();
        assert_eq!(at(FORMS[0])[..4], [2, 3, 6, 7]);
        assert_eq!(at(FORMS[2])[..4], [1, 3, 5, 7]);
        assert_eq!(at(FORMS[5])[..8], [4, 5, 6, 7, 12, 13, 14, 15]);
        let undefined = [0x4444_4445u32; WARP];
        let bad = columns(&form_of(FORMS[0]), &undefined, 1).unwrap_err();
        assert_eq!((bad.row, bad.chunk, bad.lane, bad.nibble), (0, 0, 1, 5));
        let decreasing = [0x4444_4441u32; WARP];
        assert!(columns(&form_of(FORMS[4]), &decreasing, 0).is_ok());
        let ordered = form_of(&FORMS[4].replace("mma.sp", "mma.sp::ordered_metadata"));
        assert!(columns(&ordered, &decreasing, 0).is_err());
    }
}
