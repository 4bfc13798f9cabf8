//! The sm_70 `mma.sync.aligned.m8n8k4.alayout.blayout.dtype.f16.f16.ctype`
//! (PTX ISA 9.0 sections 9.7.14.5.1 and 9.7.14.5.14): the warp computes four independent 8x8x4
//! products, one per quad pair (lanes `4q..4q+3`, the low group, with `16+4q..16+4q+3`, the
//! high group). With `t = lane % 4` and `h` = 1 in the high group, element `i` of a lane is:
//!
//! - A `.row`: row `t + 4h`, column `i`; A `.col`: row `i + 4h`, column `t`;
//! - B `.row`: row `t`, column `i + 4h`; B `.col`: row `i`, column `t + 4h`;
//! - C/D `.f16`: row `t + 4h`, column `i` (eight elements, two per register);
//! - C/D `.f32`: row `(t & 1) + (i & 2) + 4h`, column `(i & 4) + (t & 2) + (i & 1)`.
//!
//! The H100 has no `HMMA.884`: ptxas emulates the instruction with shuffles and f32 arithmetic
//! ([`tcore::quad_dot`], measured in `docs/numerics/mma`). All 32 lanes must execute the
//! instruction together; otherwise it is a `divergent-aligned` hazard.

use super::ctx::Ctx;
use super::fault::Res;
use super::mma::{element, partial_warp, per_reg, scatter, Rows};
use super::tcore;
use crate::ir::mma::{Elem, MmaForm};

/// Lanes of quad pair `q`'s element `(h, t)`.
fn lane_of(q: usize, h: usize, t: usize) -> usize {
    4 * q + t + 16 * h
}

/// (quad pair, high group, index in the group) of `lane`.
fn place(lane: usize) -> (usize, usize, usize) {
    ((lane % 16) / 4, lane / 16, lane % 4)
}

/// (row, column) of A element `i` (0..4) of a lane at `(h, t)`; `col` is A's `.col` layout.
pub(crate) fn a_at(col: bool, h: usize, t: usize, i: usize) -> (usize, usize) {
    if col {
        (i + 4 * h, t)
    } else {
        (t + 4 * h, i)
    }
}

/// (row, column) of B element `i` (0..4); `col` is B's `.col` layout.
pub(crate) fn b_at(col: bool, h: usize, t: usize, i: usize) -> (usize, usize) {
    if col {
        (i, t + 4 * h)
    } else {
        (t, i + 4 * h)
    }
}

/// (row, column) of accumulator element `i` (0..8) of type `e`.
pub(crate) fn c_at(e: Elem, h: usize, t: usize, i: usize) -> (usize, usize) {
    if e == Elem::F32 {
        ((t & 1) + (i & 2) + 4 * h, (i & 4) + (t & 2) + (i & 1))
    } else {
        (t + 4 * h, i)
    }
}

/// Executes the quad-pair form `f` (A and B layouts `cols`, `true` = `.col`) from every lane's
/// A, B and C registers in `inputs`.
pub(crate) fn exec(
    cx: &mut Ctx<'_, '_>,
    f: &MmaForm,
    cols: [bool; 2],
    inputs: &Rows,
    present: u32,
) -> Res<()> {
    if present != u32::MAX {
        return Err(partial_warp(cx, !present, "fragments"));
    }
    // D of the four quad pairs side by side: row r of pair q is row 8q + r of a 32 x 8 matrix.
    let d = product(f, cols, inputs);
    scatter(
        cx,
        &d,
        8,
        (f.regs()[0], f.d),
        (8, &|lane, i| {
            let (q, h, t) = place(lane);
            let (r, c) = c_at(f.d, h, t, i);
            (8 * q + r, c)
        }),
    );
    Ok(())
}

/// D of the four quad pairs, stacked: row `8q + r` holds row `r` of pair `q`.
fn product(f: &MmaForm, [a_col, b_col]: [bool; 2], inputs: &Rows) -> Vec<u64> {
    let mut d = vec![0u64; 32 * 8];
    let (pa, pc) = (per_reg(f.a), per_reg(f.c));
    for q in 0..4 {
        let (mut a, mut b_t, mut c) = ([0u64; 32], [0u64; 32], [0u64; 64]);
        for h in 0..2 {
            for t in 0..4 {
                let regs = &inputs[lane_of(q, h, t)];
                for i in 0..4 {
                    let v = element(regs[i / pa], f.a, i % pa);
                    let (r, k) = a_at(a_col, h, t, i);
                    a[r * 4 + k] = v;
                    let v = element(regs[2 + i / pa], f.b, i % pa);
                    let (k, n) = b_at(b_col, h, t, i);
                    b_t[n * 4 + k] = v;
                }
                for i in 0..8 {
                    let v = element(regs[4 + i / pc], f.c, i % pc);
                    let (r, n) = c_at(f.c, h, t, i);
                    c[r * 8 + n] = v;
                }
            }
        }
        for r in 0..8 {
            for n in 0..8 {
                let dot = tcore::quad_dot(
                    &a[r * 4..][..4],
                    &b_t[n * 4..][..4],
                    (c[r * 8 + n], f.c),
                    f.d,
                );
                d[(8 * q + r) * 8 + n] = dot;
            }
        }
    }
    d
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Every element of each quad pair's A, B, C is held exactly once by its eight lanes.
    #[test]
    fn fragments_tile_each_quad_pair() {
        for col in [false, true] {
            let (mut sa, mut sb) = ([0; 32], [0; 32]);
            let (mut s16, mut s32) = ([0; 64], [0; 64]);
            for h in 0..2 {
                for t in 0..4 {
                    for i in 0..4 {
                        let (r, k) = a_at(col, h, t, i);
                        sa[r * 4 + k] += 1;
                        let (k, n) = b_at(col, h, t, i);
                        sb[k * 8 + n] += 1;
                    }
                    for i in 0..8 {
                        let (r, n) = c_at(Elem::F16, h, t, i);
                        s16[r * 8 + n] += 1;
                        let (r, n) = c_at(Elem::F32, h, t, i);
                        s32[r * 8 + n] += 1;
                    }
                }
            }
            assert!(sa
                .iter()
                .chain(&sb)
                .chain(&s16)
                .chain(&s32)
                .all(|&c| c == 1));
        }
        assert_eq!((0..32).map(place).filter(|p| p.0 == 2).count(), 8);
        assert_eq!(lane_of(1, 1, 3), 23);
    }
}
