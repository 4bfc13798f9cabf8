//! The sparse warpgroup multiply `wgmma.mma_async.sp` (PTX ISA 9.0 section 9.7.15.6): A holds
//! half of K (its structured-sparse rows compressed) and a metadata register per lane says
//! which k each kept element multiplies. The layouts below were measured on the GPU (an H100
//! for f16/bf16, an H200, the same sm_90a tensor cores, for the other types) by flipping each
//! metadata bit with B the identity (`docs/numerics/wgmma/sparse_layout.py` and
//! `layout_probe.py`), then confirmed with random metadata, valid or not, over the campaign's
//! operands; the golden samples were re-checked on an H100.
//!
//! The metadata is read in 4-bit fields, one per group of the uncompressed row; its two 2-bit
//! indices name the positions (of four) the group's two kept parts take. For row `r` of the
//! warp's 16 and group `g`:
//!
//! - f16/bf16 (k32, 2:4): the group is four elements, the indices pick two of them; the field
//!   is bits `16 (r / 8) + 4 (g % 4)` of lane `4 (r % 8) + 2 sel + g / 4`.
//! - tf32 (k16, 1:2): the same field places, one group per kept element; the group is two
//!   32-bit elements seen as four 16-bit halves, and the kept element's B operand takes its low
//!   half from the half the first index names, its high half from the second's (0b0100 and
//!   0b1110, the values the ISA allows, pick element 0 or 1 whole; the others splice halves).
//! - e4m3/e5m2, s8/u8 (k64, 2:4): the group is four 8-bit elements, the indices pick two; the
//!   field is bits `4 (g % 8)` of lane `4 (r % 8) + 2 (g / 8) + r / 8` (every lane: selector
//!   0 only).
//!
//! Equal or unordered indices multiply what they name (the products add up). The kept products
//! of a row form one group for the arithmetic, as in the dense form of the type (`tcore.rs`).

use super::lanes::WARP;
use super::tcore;
use crate::ir::mma::Elem;
use crate::ir::wgmma::WgmmaForm;

/// Where A's compressed element `i` of row `r` finds its B operand: element `k` of B's column,
/// or (tf32) a 32-bit value assembled from two 16-bit halves `(k, high half?)`.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Pick {
    Elem(usize),
    Halves([(usize, bool); 2]),
}

/// The 4-bit metadata field of group `g` of row `r` (selector `sel`) of a form whose A elements
/// have `bits` bits.
fn field(meta: &[u32; WARP], bits: u32, sel: usize, r: usize, g: usize) -> u32 {
    // Two metadata lanes per selector value (the 8-bit forms take selector 0 only).
    let (lane, at) = super::mma_sp::metadata_nibble(bits != 8, 2, sel, r, g);
    (meta[lane.min(WARP - 1)] >> at) & 0xf
}

/// The picks of row `r`'s compressed elements (as many as `out` holds).
fn picks(f: &WgmmaForm, meta: &[u32; WARP], sel: u32, r: usize, out: &mut [Pick]) {
    let (bits, sel) = (f.a.bits(), sel as usize);
    for (i, p) in out.iter_mut().enumerate() {
        *p = if f.a == Elem::Tf32 {
            let g = i;
            let m = field(meta, bits, sel, r, g);
            let half = |idx: u32| (2 * g + idx as usize / 2, idx % 2 == 1);
            Pick::Halves([half(m & 3), half(m >> 2)])
        } else {
            let (g, j) = (i / 2, i % 2);
            let m = field(meta, bits, sel, r, g);
            Pick::Elem(4 * g + ((m >> (2 * j)) & 3) as usize)
        };
    }
}

/// B's operand for a pick, from column `col_b` (B's K elements of one column).
fn gather(col_b: &[u64], p: Pick) -> u64 {
    match p {
        Pick::Elem(k) => col_b.get(k).copied().unwrap_or(0),
        Pick::Halves(h) => {
            let half = |(k, high): (usize, bool)| {
                let v = col_b.get(k).copied().unwrap_or(0);
                (if high { v >> 16 } else { v }) & 0xffff
            };
            half(h[0]) | (half(h[1]) << 16)
        }
    }
}

/// D (16 x N) of a sparse form from A (16 x K/2), B transposed (N x K), C (16 x N), the
/// lanes' metadata and the selector; `neg_b` (B's sign bit for `imm-scale-b` -1, else 0) flips
/// B's operands once picked.
pub(super) fn sparse_product(
    f: &WgmmaForm,
    (a, b_t, c): (&[u64], &[u64], &[u64]),
    (meta, sel): (&[u32; WARP], u32),
    neg_b: u64,
    dot: &super::products::Dot,
) -> Vec<u64> {
    let (n, k, ak) = (usize::from(f.n), usize::from(f.k), usize::from(f.a_k()));
    let mut d = vec![0u64; 16 * n];
    // ak <= 32 (the 8-bit forms).
    let mut pk = [Pick::Elem(0); 32];
    let mut b = [0u64; 32];
    let ints = f.is_int();
    for r in 0..16 {
        picks(f, meta, sel, r, &mut pk[..ak]);
        let ar = &a[r * ak..][..ak];
        let mut ai = [0i32; 32];
        if ints {
            for (x, &v) in ai.iter_mut().zip(ar) {
                *x = tcore::int_value(v, f.a);
            }
        }
        for (col, out) in d[r * n..][..n].iter_mut().enumerate() {
            let col_b = &b_t[col * k..][..k];
            for (v, &p) in b.iter_mut().zip(&pk[..ak]) {
                *v = gather(col_b, p) ^ neg_b;
            }
            let cv = c[r * n + col];
            *out = if ints {
                let mut bi = [0i32; 32];
                for (x, &v) in bi.iter_mut().zip(&b[..ak]) {
                    *x = tcore::int_value(v, f.b);
                }
                tcore::int_dot(&ai[..ak], &bi[..ak], None, cv, f.satfinite)
            } else {
                dot(ar, &b[..ak], cv)
            };
        }
    }
    d
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::ir::opcode::decode;

    fn form_of(text: &str) -> WgmmaForm {
        let d = decode(text, 0).unwrap();
        crate::ir::wgmma::form(&d.mods, true).unwrap()
    }

    /// The field of every (row, group) is read from a distinct 4 bits of the warp's metadata.
    #[test]
    fn fields_tile_the_metadata() {
        for (text, sels) in [
            ("wgmma.mma_async.sp.sync.aligned.m64n8k32.f32.f16.f16", 2),
            ("wgmma.mma_async.sp.sync.aligned.m64n8k16.f32.tf32.tf32", 2),
            ("wgmma.mma_async.sp.sync.aligned.m64n8k64.s32.s8.u8", 1),
        ] {
            let f = form_of(text);
            // One field per kept element of tf32, per two of the others.
            let ak = usize::from(f.a_k());
            let groups = if f.a == Elem::Tf32 { ak } else { ak / 2 };
            let mut seen = [0u8; WARP * 8];
            for sel in 0..sels {
                for r in 0..16 {
                    for g in 0..groups {
                        let mut hits = 0;
                        for lane in 0..WARP {
                            for nib in 0..8 {
                                let mut meta = [0u32; WARP];
                                meta[lane] = 0xf << (4 * nib);
                                if field(&meta, f.a.bits(), sel, r, g) == 0xf {
                                    seen[lane * 8 + nib] += 1;
                                    hits += 1;
                                }
                            }
                        }
                        assert_eq!(hits, 1, "{text} row {r} group {g}");
                    }
                }
            }
            assert!(seen.iter().all(|&s| s == 1), "{text}");
        }
    }

    /// 8-bit forms: lane 2 holds row 0's groups 8-15, lane 1 row 8's groups 0-7 (measured).
    #[test]
    fn eight_bit_fields_follow_the_measured_lanes() {
        let mut meta = [0u32; WARP];
        meta[2] = 0x0000_0009 << 4; // group 9 of row 0: indices 1 and 2
        meta[1] = 0x0000_000e << 28; // group 7 of row 8: indices 2 and 3
        let f = form_of("wgmma.mma_async.sp.sync.aligned.m64n8k64.f32.e4m3.e4m3");
        let mut p = [Pick::Elem(0); 32];
        picks(&f, &meta, 0, 0, &mut p);
        assert_eq!(&p[18..20], &[Pick::Elem(37), Pick::Elem(38)]);
        picks(&f, &meta, 0, 8, &mut p);
        assert_eq!(&p[14..16], &[Pick::Elem(30), Pick::Elem(31)]);
    }

    /// Valid tf32 fields pick whole elements: 0b0100 element 0, 0b1110 element 1.
    #[test]
    fn tf32_fields_pick_whole_elements() {
        let col = [0x1111_2222u64, 0x3333_4444];
        let p = |m: u32| {
            let h = |idx: u32| (idx as usize / 2, idx % 2 == 1);
            gather(&col, Pick::Halves([h(m & 3), h(m >> 2)]))
        };
        assert_eq!(p(0b0100), 0x1111_2222);
        assert_eq!(p(0b1110), 0x3333_4444);
        assert_eq!(p(0b1000), 0x4444_2222);
    }
}
