//! `mma.sync.aligned` (PTX ISA 9.0 section 9.7.14.5.14): the warp multiplies an m x k matrix A
//! by a k x n matrix B and adds C, each spread over the 32 lanes' registers in the fragment
//! layouts of sections 9.7.14.5.1-13. With `g = lane / 4` and `t = lane % 4`, and `e` elements
//! per register:
//!
//! - A (m = 16): register `r` holds row `g + 8 (r % 2)`, columns `e t + 4 e (r / 2) + j`;
//!   (m = 8): one register, row `g`, columns `e t + j`;
//! - B: register `r` holds column `g`, rows `e t + 4 e r + j`;
//! - C and D: element `i` is row `g + 8 (i / 2)` (m = 16) or `g` (m = 8), column `2 t + i % 2`.
//!
//! Element `j` of a register sits at bits `j * width` upward. The warp gathers every lane's A,
//! B and C registers, computes each element of D once (`tcore.rs`), and each lane writes its own
//! D registers. All 32 lanes must execute the instruction together; otherwise it is a
//! `divergent-aligned` hazard. The sm_70 `m8n8k4` `.f16` form (four quad-pair products) has its
//! own layouts, in `mma_quad.rs`.

use super::addr::{elems, thread_of};
use super::ctx::Ctx;
use super::fault::FaultKind;
use super::fault::{fault, Res};
use super::lanes::lanes;
use super::tcore;
use crate::ir::mma::{Elem, MmaError, MmaForm};
use crate::ir::mods::Rounding;
use crate::ir::{Operand, Type};

/// What each lane of the warp brings to a warp-wide matrix instruction (`matrix.rs` gathers it):
/// `ldmatrix`/`stmatrix`/`movmatrix` one value in slot 0, `mma`/`wmma.mma` its A, B and C registers.
pub(crate) type Rows = [[u64; ROW_SLOTS]; super::lanes::WARP];

/// Registers one lane can bring: A, B and C of the largest fragments (`wmma` f16 with an f32
/// accumulator: 8 + 8 + 8).
pub(crate) const ROW_SLOTS: usize = 24;

/// The register type to read an operand of element type `e` with.
pub(crate) fn reg_type(e: Elem) -> Type {
    if e == Elem::F64 {
        Type::F64
    } else {
        Type::B32
    }
}

/// The `unsupported` fault for a matrix-instruction form ptxrun does not execute, naming it.
pub(crate) fn unsupported_form(cx: &Ctx<'_, '_>, e: MmaError) -> Box<super::fault::Fault> {
    let (MmaError::Illegal(why) | MmaError::NotExecutable(why)) = e;
    let text = crate::ir::print_instr(cx.m, cx.func, cx.pc);
    let name = text.split_whitespace().next().unwrap_or("mma").to_string();
    fault(
        FaultKind::Unsupported,
        format!("`{name}` is not supported by ptxrun: {why}"),
    )
}

/// The `divergent-aligned` hazard of a `.sync.aligned` warp instruction whose lanes `missing`
/// (holding the `what` it needs) did not execute it with the rest.
pub(crate) fn partial_warp(cx: &Ctx<'_, '_>, missing: u32, what: &str) -> Box<super::fault::Fault> {
    let mut f = fault(
        FaultKind::Hazard(crate::check::HazardKind::DivergentAligned),
        format!(
            "`{}` is .sync.aligned, but lanes {missing:#010x} of the warp, whose {what} it needs, \
             did not execute it",
            cx.ins.op.name()
        ),
    );
    f.linear_thread = lanes(cx.active).next().map(|l| thread_of(cx, l) as u32);
    f
}

/// The form (decoded when the module loaded), or the unsupported fault that names it.
pub(crate) fn decoded(cx: &Ctx<'_, '_>) -> Res<MmaForm> {
    cx.func
        .form(cx.pc)
        .mma()
        .map_err(|e| unsupported_form(cx, e))
}

/// Reads this group's A, B and C registers, in that order, into `inputs` (one row per lane).
pub(crate) fn gather(cx: &Ctx<'_, '_>, inputs: &mut Rows) {
    if let Ok(f) = decoded(cx) {
        gather_operands(cx, &f, inputs);
    }
}

/// Reads operands 1 to 3 (A, B, C) of a matrix multiply of form `f` into `inputs`, every
/// register as raw bits (also for `wmma.mma`): operand by operand, each for every active lane.
pub(crate) fn gather_operands(cx: &Ctx<'_, '_>, f: &MmaForm, inputs: &mut Rows) {
    let mut slot = 0;
    for (k, e) in [(1, f.a), (2, f.b), (3, f.c)] {
        let ty = reg_type(e);
        for o in elems(cx, k) {
            if slot == ROW_SLOTS {
                return;
            }
            match o {
                // A register's row as it is (what `Ctx::value` reads), without a call per lane.
                Operand::Reg(r) => {
                    for lane in lanes(cx.active) {
                        inputs[lane][slot] = cx.reg(r, lane);
                    }
                }
                _ => {
                    for lane in lanes(cx.active) {
                        inputs[lane][slot] = cx.value(&o, lane, ty);
                    }
                }
            }
            slot += 1;
        }
    }
}

/// Element `j` of a register value holding elements of type `e`.
pub(crate) fn element(v: u64, e: Elem, j: usize) -> u64 {
    element_of(v, e.bits(), j)
}

/// Element `j` of a register value holding elements of `w` bits.
#[inline(always)]
fn element_of(v: u64, w: u32, j: usize) -> u64 {
    if w == 64 {
        return v;
    }
    (v >> (j as u32 * w)) & ((1u64 << w) - 1)
}

/// Elements per register.
pub(crate) fn per_reg(e: Elem) -> usize {
    (e.reg_bits() / e.bits()) as usize
}

/// (row, column) of element `j` of A register `r` in `lane`: a register's elements are
/// consecutive columns of one row.
pub(crate) fn a_at(f: &MmaForm, lane: usize, r: usize, j: usize) -> (usize, usize) {
    a_coord(f.shape.m == 16, per_reg(f.a), lane, r, j)
}

/// [`a_at`] for an A of 16 rows or not (`m16`) and `e` elements per register.
#[inline(always)]
fn a_coord(m16: bool, e: usize, lane: usize, r: usize, j: usize) -> (usize, usize) {
    let (g, t) = (lane / 4, lane % 4);
    if m16 {
        (g + 8 * (r % 2), e * t + 4 * e * (r / 2) + j)
    } else {
        (g, e * t + j)
    }
}

/// (row, column) of element `j` of B register `r` in `lane`: a register's elements are
/// consecutive rows of one column.
pub(crate) fn b_at(f: &MmaForm, lane: usize, r: usize, j: usize) -> (usize, usize) {
    b_coord(per_reg(f.b), lane, r, j)
}

/// [`b_at`] for `e` elements per register.
#[inline(always)]
fn b_coord(e: usize, lane: usize, r: usize, j: usize) -> (usize, usize) {
    let (g, t) = (lane / 4, lane % 4);
    (e * t + 4 * e * r + j, g)
}

/// (row, column) of element `i` of C or D in `lane`.
pub(crate) fn c_at(f: &MmaForm, lane: usize, i: usize) -> (usize, usize) {
    c_coord(f.shape.m == 16, lane, i)
}

/// [`c_at`] for a C of 16 rows or not (`m16`).
#[inline(always)]
fn c_coord(m16: bool, lane: usize, i: usize) -> (usize, usize) {
    let (g, t) = (lane / 4, lane % 4);
    let row = if m16 { g + 8 * (i / 2) } else { g };
    (row, 2 * t + i % 2)
}

/// Executes the instruction for this group's lanes; `inputs` holds every present lane's A, B
/// and C registers and `present` says which lanes are there.
/// The quad-pair shapes (`m8n8k4`) are `mma_quad.rs`'s: `matrix.rs` sends them there.
pub(crate) fn exec(cx: &mut Ctx<'_, '_>, f: &MmaForm, inputs: &Rows, present: u32) -> Res<()> {
    if present != u32::MAX {
        return Err(partial_warp(cx, !present, "fragments"));
    }
    let d = product(f, inputs, cx.ins.mods.rnd);
    let count = f.regs()[0] * per_reg(f.d);
    let m16 = f.shape.m == 16;
    scatter(
        cx,
        &d,
        usize::from(f.shape.n),
        (f.regs()[0], f.d),
        (count, &|lane, i| c_coord(m16, lane, i)),
    );
    Ok(())
}

/// Writes D (row-major, `n` columns) into each active lane's `regs` registers of type `e`:
/// `coords(lane, i)` is the (row, column) of the lane's element `i` in register order, for `i`
/// below `count`, repeated to fill the registers where a fragment holds its elements more than
/// once.
pub(crate) fn scatter(
    cx: &mut Ctx<'_, '_>,
    d: &[u64],
    n: usize,
    (regs, e): (usize, Elem),
    (count, coords): (usize, &dyn Fn(usize, usize) -> (usize, usize)),
) {
    let out = elems(cx, 0);
    let (per, w) = (per_reg(e), e.bits());
    for lane in lanes(cx.active) {
        for (r, o) in out.iter().enumerate().take(regs) {
            let mut v = 0u64;
            for j in 0..per {
                let (row, col) = coords(lane, (r * per + j) % count);
                v |= d[row * n + col] << (j as u32 * w);
            }
            if let Operand::Reg(reg) = o {
                cx.set_reg(*reg, lane, v);
            }
        }
    }
}

/// D = A x B + C for the whole warp, row-major m x n; `rnd` is the rounding of an `.f64` form.
fn product(f: &MmaForm, inputs: &Rows, rnd: Option<Rounding>) -> Vec<u64> {
    let [_, a_regs, b_regs, c_regs] = f.regs();
    let [a, b_t, c] = operands(f, f, inputs, [a_regs, b_regs, c_regs]);
    multiply(f, (&a, &b_t, &c), &|ar, bc, cv| {
        float_element(f, rnd, ar, bc, cv)
    })
}

/// A (m x the K of `a_form`), B transposed (n x k) and C (m x n) of form `f` as element bits,
/// gathered from the lanes' registers through the fragment layouts (`counts`: A, B and C
/// registers per lane). `a_form` is `f`, or for a sparse form the compressed A (K halved).
/// The elements of one A register are consecutive columns of a row, those of a B register
/// consecutive rows of a column (`a_coord`, `b_coord`): each register is unpacked at once.
pub(crate) fn operands(
    a_form: &MmaForm,
    f: &MmaForm,
    inputs: &Rows,
    [a_regs, b_regs, c_regs]: [usize; 3],
) -> [Vec<u64>; 3] {
    let (m, n, k) = (
        usize::from(f.shape.m),
        usize::from(f.shape.n),
        usize::from(f.shape.k),
    );
    let ka = usize::from(a_form.shape.k);
    let (mut a, mut b_t, mut c) = (vec![0; m * ka], vec![0; n * k], vec![0; m * n]);
    // The layouts' constants, once: elements per register and their widths.
    let (pa, pb, pc) = (per_reg(f.a), per_reg(f.b), per_reg(f.c));
    let (wa, wb, wc) = (f.a.bits(), f.b.bits(), f.c.bits());
    let (a_m16, a_per) = (a_form.shape.m == 16, per_reg(a_form.a));
    let c_m16 = f.shape.m == 16;
    for (lane, regs) in inputs.iter().enumerate() {
        let (ra, rest) = regs.split_at(a_regs);
        let (rb, rc) = rest.split_at(b_regs);
        for (r, &v) in ra.iter().enumerate() {
            let (row, col) = a_coord(a_m16, a_per, lane, r, 0);
            unpack(v, wa, &mut a[row * ka + col..][..pa]);
        }
        for (r, &v) in rb.iter().enumerate() {
            let (row, col) = b_coord(pb, lane, r, 0);
            unpack(v, wb, &mut b_t[col * k + row..][..pb]);
        }
        for i in 0..c_regs * pc {
            let (row, col) = c_coord(c_m16, lane, i);
            c[row * n + col] = element_of(rc[i / pc], wc, i % pc);
        }
    }
    [a, b_t, c]
}

/// The elements of `w` bits of a register value `v`, lowest first, into `out`.
#[inline(always)]
fn unpack(v: u64, w: u32, out: &mut [u64]) {
    for (j, x) in out.iter_mut().enumerate() {
        *x = element_of(v, w, j);
    }
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

/// The arithmetic of one element of D: A's row, B's column, C's element.
pub(crate) type Dot<'a> = dyn Fn(&[u64], &[u64], u64) -> u64 + 'a;

/// D = A x B + C (row-major m x n) from A (m x k), B transposed (n x k) and C as element bits:
/// integer forms decode every element once, floating-point ones go through `dot`.
pub(crate) fn multiply(f: &MmaForm, (a, b_t, c): (&[u64], &[u64], &[u64]), dot: &Dot) -> Vec<u64> {
    let (m, n, k) = (
        usize::from(f.shape.m),
        usize::from(f.shape.n),
        usize::from(f.shape.k),
    );
    let mut d = vec![0; m * n];
    if matches!(f.a, Elem::S8 | Elem::U8 | Elem::S4 | Elem::U4 | Elem::B1) {
        let ai: Vec<i32> = a.iter().map(|&v| tcore::int_value(v, f.a)).collect();
        let bi: Vec<i32> = b_t.iter().map(|&v| tcore::int_value(v, f.b)).collect();
        let b1 = (f.a == Elem::B1).then_some(f.xor);
        int_products(f, (&ai, &bi, c), b1, &mut d);
    } else {
        for (i, out) in d.iter_mut().enumerate() {
            let (row, col) = (i / n, i % n);
            *out = dot(&a[row * k..][..k], &b_t[col * k..][..k], c[i]);
        }
    }
    d
}

/// The integer forms' D (`multiply`) from A and B transposed as element values: each element
/// `tcore::int_dot`, in a loop built also for x86-64-v3 and chosen at run time (AVX2 multiplies
/// eight 32-bit lanes at once; the baseline has no 32-bit vector multiply).
#[multiversion::multiversion(targets("x86_64+avx+avx2+bmi1+bmi2+fma+lzcnt+popcnt+movbe"))]
fn int_products(
    f: &MmaForm,
    (ai, bi, c): (&[i32], &[i32], &[u64]),
    b1: Option<bool>,
    d: &mut [u64],
) {
    let (n, k) = (usize::from(f.shape.n), usize::from(f.shape.k));
    for (i, out) in d.iter_mut().enumerate() {
        let (row, col) = (i / n, i % n);
        let (ar, bc) = (&ai[row * k..][..k], &bi[col * k..][..k]);
        *out = tcore::int_dot(ar, bc, b1, c[i], f.satfinite);
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::ir::opcode::decode;

    fn form_of(text: &str) -> MmaForm {
        crate::ir::mma::form(&decode(text, 0).unwrap().mods).unwrap()
    }

    /// Every element of A, B and C is covered exactly once by the 32 lanes' registers.
    #[test]
    fn fragments_tile_the_matrices() {
        for text in [
            "mma.sync.aligned.m16n8k16.row.col.f32.f16.f16.f32",
            "mma.sync.aligned.m16n8k8.row.col.f16.f16.f16.f16",
            "mma.sync.aligned.m16n8k4.row.col.f32.tf32.tf32.f32",
            "mma.sync.aligned.m16n8k8.row.col.f32.tf32.tf32.f32",
            "mma.sync.aligned.m16n8k32.row.col.f32.e4m3.e5m2.f32",
            "mma.sync.aligned.m8n8k16.row.col.s32.s8.u8.s32",
            "mma.sync.aligned.m16n8k64.row.col.s32.s4.s4.s32",
            "mma.sync.aligned.m16n8k256.row.col.s32.b1.b1.s32.and.popc",
            "mma.sync.aligned.m8n8k4.row.col.f64.f64.f64.f64",
            "mma.sync.aligned.m16n8k16.row.col.f64.f64.f64.f64",
        ] {
            let f = form_of(text);
            let (m, n, k) = (
                usize::from(f.shape.m),
                usize::from(f.shape.n),
                usize::from(f.shape.k),
            );
            let [d, a, b, _] = f.regs();
            let (mut sa, mut sb, mut sc) = (vec![0; m * k], vec![0; k * n], vec![0; m * n]);
            for lane in 0..32 {
                for r in 0..a {
                    for j in 0..per_reg(f.a) {
                        let (x, y) = a_at(&f, lane, r, j);
                        sa[x * k + y] += 1;
                        // `operands` unpacks a register at once.
                        let (x0, y0) = a_at(&f, lane, r, 0);
                        assert_eq!((x, y), (x0, y0 + j), "{text}");
                    }
                }
                for r in 0..b {
                    for j in 0..per_reg(f.b) {
                        let (x, y) = b_at(&f, lane, r, j);
                        sb[x * n + y] += 1;
                        let (x0, y0) = b_at(&f, lane, r, 0);
                        assert_eq!((x, y), (x0 + j, y0), "{text}");
                    }
                }
                for i in 0..d * per_reg(f.d) {
                    let (x, y) = c_at(&f, lane, i);
                    sc[x * n + y] += 1;
                }
            }
            assert!(sa.iter().chain(&sb).chain(&sc).all(|&c| c == 1), "{text}");
        }
    }
}
