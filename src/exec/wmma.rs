//! `wmma.load`, `wmma.store` and `wmma.mma` (PTX ISA 9.0 section 9.7.14.4). The ISA leaves the
//! fragment layouts unspecified; these are the H100's, measured (`docs/numerics/mma`, wmma
//! section): each fragment is the `mma.sync` fragments of the tiles ptxas splits the shape into,
//! in order, repeated to fill the registers (the f16 A and B fragments hold every element twice
//! or four times):
//!
//! - m16n16k16 (and tf32 m16n16k8): A is one m16n8k16 (m16n8k8) A fragment, B the B fragments
//!   of columns 0-7 then 8-15, C and D the accumulators of those two column halves;
//! - m32n8k16: A the A fragments of rows 0-15 then 16-31, B one B fragment, C and D the
//!   accumulators of the two row halves;
//! - m8n32k16: computed as the transpose (an m32n8k16 of B^T and A^T): every coordinate of the
//!   m32n8k16 layout swapped, A taking B's role and B A's;
//! - f64 m8n8k4, s4/u4 m8n8k32, b1 m8n8k128: the `mma` fragments of that shape (one register
//!   of A and of B for the sub-byte types, their elements packed from bit 0 in memory, the
//!   stride counted in elements).
//!
//! The row/column layout only says where elements are in memory. `wmma.load`/`store` are
//! per-lane accesses (`p` and `stride` uniform, as PTX requires); `wmma.mma` is executed by the
//! warp together, from the first copy of each element. The arithmetic is the `mma.sync` one of
//! the tiles (`tcore.rs`): one group of 16 products for f16/bf16, while ptxas splits the tf32
//! m16n16k8 product into two k = 4 steps, each normalised into f32. D and C of different f16/f32
//! types widen C or round D around the f32 product (`tcore::float_dot_mixed`); `.f64` with
//! `.rz`/`.rm`/`.rp` rounds every fused step that way.

use super::addr::{address, check_align, elems, mem_fault, read, target, thread_of, write};
use super::ctx::Ctx;
use super::fault::Res;
use super::lanes::lanes;
use super::mma::Rows;
use super::mma::{a_at, b_at, c_at, element, per_reg, reg_type};
use super::shown::Ranges;
use super::tcore;
use crate::ir::mma::{wmma_mma_regs, Elem, Frag, MmaForm};
use crate::ir::mods::{MatShape, Rounding};
use crate::ir::{Op, Operand, Type};

/// The `mma.sync` form whose fragments tile a wmma shape, the tiles (m, n) and whether the
/// layout is the transpose (m8n32k16).
fn tiling(shape: MatShape, e: Elem) -> (MmaForm, (usize, usize), bool) {
    let (m, n, k) = match (shape.m, shape.n, shape.k, e) {
        (8, 8, k @ (4 | 32 | 128), _) => (8, 8, k),
        (_, _, 8, _) => (16, 8, 8),
        _ => (16, 8, 16),
    };
    let base = MmaForm {
        shape: MatShape { m, n, k },
        d: Elem::F32,
        a: e,
        b: e,
        c: Elem::F32,
        satfinite: false,
        xor: false,
    };
    match (shape.m, shape.n) {
        (32, 8) => (base, (2, 1), false),
        (8, 32) => (base, (2, 1), true),
        (16, 16) => (base, (1, 2), false),
        _ => (base, (1, 1), false),
    }
}

/// Coordinates of the distinct elements of a fragment, in register order, for `lane`.
fn fragment(frag: Frag, shape: MatShape, e: Elem, lane: usize) -> Vec<(usize, usize)> {
    let (u, (tm, tn), transposed) = tiling(shape, e);
    // Transposed: A is laid out as the base's B (of B^T) and B as the base's A.
    let role = match (frag, transposed) {
        (Frag::A, true) => Frag::B,
        (Frag::B, true) => Frag::A,
        (f, _) => f,
    };
    let [_, ra, rb, _] = u.regs();
    let mut out = Vec::new();
    match role {
        Frag::A => {
            for mt in 0..tm {
                for r in 0..ra {
                    for j in 0..per_reg(e) {
                        let (i, c) = a_at(&u, lane, r, j);
                        out.push((i + 16 * mt, c));
                    }
                }
            }
        }
        Frag::B => {
            for nt in 0..tn {
                for r in 0..rb {
                    for j in 0..per_reg(e) {
                        let (i, c) = b_at(&u, lane, r, j);
                        out.push((i, c + 8 * nt));
                    }
                }
            }
        }
        Frag::Acc => {
            for t in 0..tm * tn {
                let (dm, dn) = if tm > 1 { (16 * t, 0) } else { (0, 8 * t) };
                let count = if u.shape.m == 8 { 2 } else { 4 };
                for i in 0..count {
                    let (r, c) = c_at(&u, lane, i);
                    out.push((r + dm, c + dn));
                }
            }
        }
    }
    if transposed {
        for p in &mut out {
            *p = (p.1, p.0);
        }
    }
    out
}

/// Executes `wmma.load` or `wmma.store` for the active lanes.
pub(crate) fn load_store(cx: &mut Ctx<'_, '_>) -> Res<()> {
    let store = cx.ins.op == Op::WmmaStore;
    let mv = (cx.func.form(cx.pc).wmma_move()).map_err(|e| super::mma::unsupported_form(cx, e))?;
    let (rows, cols) = mv.dims();
    // Sub-byte elements (s4, u4, b1: loads only) are read from the byte that holds them.
    let bits = u64::from(mv.elem.bits());
    let size = bits.div_ceil(8);
    let regs = elems(cx, if store { 1 } else { 0 });
    let (addr_k, stride_k) = if store { (0, 2) } else { (1, 2) };
    let per = per_reg(mv.elem);
    let space = cx.ins.mods.space;
    for lane in lanes(cx.active) {
        let base = address(cx, addr_k, lane);
        let stride = match cx.ops.get(stride_k) {
            Some(_) => cx.src(stride_k, lane, Type::U32) & 0xffff_ffff,
            None if mv.col => rows as u64,
            None => cols as u64,
        };
        let coords = fragment(mv.frag, mv.shape, mv.elem, lane);
        let thread = thread_of(cx, lane);
        let mut ranges: Ranges = Ranges::new();
        let mut values = vec![0u64; regs.len()];
        if store {
            for (r, o) in regs.iter().enumerate() {
                values[r] = cx.value(o, lane, reg_type(mv.elem));
            }
        }
        for e in 0..mv.regs() * per {
            let (i, j) = coords[e % coords.len()];
            let (i, j) = (i as u64, j as u64);
            let at = if mv.col {
                j * stride + i
            } else {
                i * stride + j
            };
            let bit = at.wrapping_mul(bits);
            let addr = base.wrapping_add(bit / 8);
            let tg = target(cx, space, addr);
            check_align(cx, addr, size, lane, tg)?;
            let shift = (e % per) as u32 * mv.elem.bits();
            let mut bytes = [0u8; 8];
            let piece = &mut bytes[..size as usize];
            if store {
                // Repeated copies of an element write it once, from its first copy.
                if e >= coords.len() {
                    continue;
                }
                let v = element(values[e / per], mv.elem, e % per);
                piece.copy_from_slice(&v.to_le_bytes()[..size as usize]);
                write(cx, tg, lane, piece).map_err(|f| mem_fault(f, thread))?;
            } else {
                read(cx, tg, lane, piece).map_err(|f| mem_fault(f, thread))?;
                let v = u64::from_le_bytes(bytes) >> (bit % 8);
                values[e / per] |= element(v, mv.elem, 0) << shift;
            }
            ranges.add(tg, size as usize, lane);
        }
        if !store {
            for (r, o) in regs.iter().enumerate() {
                if let Operand::Reg(reg) = o {
                    cx.set_reg(*reg, lane, values[r]);
                }
            }
        }
        if cx.hb.is_some() {
            ranges.check(cx, (store, !store), false);
        }
    }
    Ok(())
}

/// Reads this group's A, B and C registers into `inputs`.
pub(crate) fn gather(cx: &Ctx<'_, '_>, inputs: &mut Rows) {
    if let Ok(f) = cx.func.form(cx.pc).wmma_mma() {
        super::mma::gather_operands(cx, &f, inputs);
    }
}

/// Executes `wmma.mma` for this group's lanes from every lane's registers in `inputs`.
pub(crate) fn mma(cx: &mut Ctx<'_, '_>, inputs: &Rows, present: u32) -> Res<()> {
    let f = (cx.func.form(cx.pc).wmma_mma()).map_err(|e| super::mma::unsupported_form(cx, e))?;
    if present != u32::MAX {
        return Err(super::mma::partial_warp(cx, !present, "fragments"));
    }
    let (m, n, k) = (
        usize::from(f.shape.m),
        usize::from(f.shape.n),
        usize::from(f.shape.k),
    );
    let [d_regs, a_regs, b_regs, _] = wmma_mma_regs(&f);
    let (mut a, mut b_t, mut c) = (vec![0; m * k], vec![0; n * k], vec![0; m * n]);
    for (lane, regs) in inputs.iter().enumerate() {
        let (ra, rest) = regs.split_at(a_regs);
        let (rb, rc) = rest.split_at(b_regs);
        for (frag, e, src) in [(Frag::A, f.a, ra), (Frag::B, f.b, rb), (Frag::Acc, f.c, rc)] {
            let per = per_reg(e);
            for (idx, (i, j)) in fragment(frag, f.shape, e, lane).into_iter().enumerate() {
                let v = element(src[idx / per], e, idx % per);
                match frag {
                    Frag::A => a[i * k + j] = v,
                    Frag::B => b_t[j * k + i] = v,
                    Frag::Acc => c[i * n + j] = v,
                }
            }
        }
    }
    let rnd = cx.ins.mods.rnd;
    let d = if f.a != Elem::Tf32 && super::products::is_mixed(&f) {
        // f16 and bf16: `element_of` is `float_element`, with each element decoded once.
        let mut d = vec![0; c.len()];
        let decoded = (&mut Vec::new(), &mut Vec::new());
        super::products::mixed_products(&f, (&a, &b_t, &c), decoded, &mut d);
        d
    } else {
        super::products::multiply(&f, (&a, &b_t, &c), &|ar, bc, cv| {
            element_of(&f, rnd, ar, bc, cv)
        })
    };
    // Every lane's fragment has the same length.
    let coords: Vec<_> = (0..super::lanes::WARP)
        .map(|lane| fragment(Frag::Acc, f.shape, f.d, lane))
        .collect();
    super::mma::scatter(
        cx,
        &d,
        n,
        (d_regs, f.d),
        (coords[0].len(), |lane: usize, i: usize| coords[lane][i]),
    );
    Ok(())
}

/// One element of D of a floating-point form: the arithmetic of the tiles' `mma.sync`
/// instructions, except that ptxas splits tf32 m16n16k8 into two HMMA.1684 steps (k 0-3, 4-7).
fn element_of(f: &MmaForm, rnd: Option<Rounding>, a: &[u64], b: &[u64], c: u64) -> u64 {
    if f.a == Elem::Tf32 {
        let half = tcore::float_dot(&a[..4], &b[..4], (f.a, f.b), c, f.d);
        return tcore::float_dot(&a[4..], &b[4..], (f.a, f.b), half, f.d);
    }
    super::products::float_element(f, rnd, a, b, c)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn sh(m: u16, n: u16, k: u16) -> MatShape {
        MatShape { m, n, k }
    }

    /// The measured H100 layouts (lane 5), as `docs/numerics/mma` records them.
    #[test]
    fn fragments_match_the_measured_layouts() {
        let f = fragment(Frag::A, sh(16, 16, 16), Elem::F16, 5);
        assert_eq!(&f[..4], &[(1, 2), (1, 3), (9, 2), (9, 3)]);
        assert_eq!(f.len(), 8);
        let f = fragment(Frag::B, sh(16, 16, 16), Elem::S8, 5);
        assert_eq!(
            f,
            vec![
                (4, 1),
                (5, 1),
                (6, 1),
                (7, 1),
                (4, 9),
                (5, 9),
                (6, 9),
                (7, 9)
            ]
        );
        let f = fragment(Frag::Acc, sh(32, 8, 16), Elem::F32, 0);
        assert_eq!(&f[4..], &[(16, 0), (16, 1), (24, 0), (24, 1)]);
        let f = fragment(Frag::B, sh(8, 32, 16), Elem::F16, 5);
        assert_eq!(&f[..4], &[(2, 1), (3, 1), (2, 9), (3, 9)]);
        assert_eq!(f[8], (2, 17));
        let f = fragment(Frag::Acc, sh(8, 32, 16), Elem::F32, 0);
        assert_eq!(
            f,
            vec![
                (0, 0),
                (1, 0),
                (0, 8),
                (1, 8),
                (0, 16),
                (1, 16),
                (0, 24),
                (1, 24)
            ]
        );
        let f = fragment(Frag::A, sh(8, 32, 16), Elem::F16, 5);
        assert_eq!(f, vec![(1, 2), (1, 3), (1, 10), (1, 11)]);
        let f = fragment(Frag::A, sh(16, 16, 8), Elem::Tf32, 5);
        assert_eq!(f, vec![(1, 1), (9, 1), (1, 5), (9, 5)]);
        let f = fragment(Frag::Acc, sh(8, 8, 4), Elem::F64, 5);
        assert_eq!(f, vec![(1, 2), (1, 3)]);
        // Sub-byte: the mma.m8n8k32 / m8n8k128 fragments (measured with bit-plane tiles).
        let f = fragment(Frag::A, sh(8, 8, 32), Elem::S4, 5);
        assert_eq!(f, (8..16).map(|j| (1, j)).collect::<Vec<_>>());
        let f = fragment(Frag::B, sh(8, 8, 128), Elem::B1, 5);
        assert_eq!(f, (32..64).map(|i| (i, 1)).collect::<Vec<_>>());
        let f = fragment(Frag::Acc, sh(8, 8, 32), Elem::S32, 5);
        assert_eq!(f, vec![(1, 2), (1, 3)]);
    }
}
