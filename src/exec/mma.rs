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
use super::products::mixed_products;
use super::products::{float_element, float_products, int_products, is_int, is_mixed};
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
                        inputs[lane][slot] = cx.reg(*r, lane);
                    }
                }
                _ => {
                    for lane in lanes(cx.active) {
                        inputs[lane][slot] = cx.value(o, lane, ty);
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
    let count = f.regs()[0] * per_reg(f.d);
    let m16 = f.shape.m == 16;
    SCRATCH.with(|s| {
        let s = &mut *s.borrow_mut();
        product(f, inputs, cx.ins.mods.rnd, s);
        scatter(
            cx,
            &s.d,
            usize::from(f.shape.n),
            (f.regs()[0], f.d),
            (count, |lane, i| c_coord(m16, lane, i)),
        );
    });
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
    (count, coords): (usize, impl Fn(usize, usize) -> (usize, usize)),
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

/// One thread's matrices of `mma.sync`, kept from one instruction to the next (a warp runs
/// thousands): each instruction writes every element it reads, for the 32 lanes' fragments
/// cover A, B and C exactly once (`fragments_tile_the_matrices`), so an earlier instruction's
/// values are never read.
#[derive(Default)]
struct Scratch {
    /// A, B transposed and C as element bits (C for every form, A and B for floating point).
    a: Vec<u64>,
    b_t: Vec<u64>,
    c: Vec<u64>,
    /// A and B transposed as element values (integer forms).
    ai: Vec<i32>,
    bi: Vec<i32>,
    /// A and B transposed decoded (f16, bf16 and tf32 forms).
    av: Vec<tcore::Decoded>,
    bv: Vec<tcore::Decoded>,
    /// D, row-major.
    d: Vec<u64>,
}

thread_local! {
    static SCRATCH: std::cell::RefCell<Scratch> = std::cell::RefCell::default();
}

/// D = A x B + C for the whole warp into `s.d`, row-major m x n; `rnd` is the rounding of an
/// `.f64` form. Integer forms decode each element once, as they gather it.
fn product(f: &MmaForm, inputs: &Rows, rnd: Option<Rounding>, s: &mut Scratch) {
    let [_, a_regs, b_regs, c_regs] = f.regs();
    let regs = [a_regs, b_regs, c_regs];
    let (m, n, k) = (
        usize::from(f.shape.m),
        usize::from(f.shape.n),
        usize::from(f.shape.k),
    );
    s.c.resize(m * n, 0);
    s.d.resize(m * n, 0);
    if is_int(f.a) {
        s.ai.resize(m * k, 0);
        s.bi.resize(n * k, 0);
        let out = (&mut s.ai[..], &mut s.bi[..], &mut s.c[..]);
        let ((wa, sa), (wb, sb)) = (tcore::int_kind(f.a), tcore::int_kind(f.b));
        let elems = (
            move |v| tcore::int_of(v, wa, sa),
            move |v| tcore::int_of(v, wb, sb),
        );
        operands_into(f, f, inputs, regs, elems, out);
        let b1 = (f.a == Elem::B1).then_some(f.xor);
        int_products(f, (&s.ai, &s.bi, &s.c), b1, &mut s.d);
    } else {
        s.a.resize(m * k, 0);
        s.b_t.resize(n * k, 0);
        let out = (&mut s.a[..], &mut s.b_t[..], &mut s.c[..]);
        operands_into(f, f, inputs, regs, (|v| v, |v| v), out);
        let ops = (&s.a[..], &s.b_t[..], &s.c[..]);
        if is_mixed(f) {
            mixed_products(f, ops, (&mut s.av, &mut s.bv), &mut s.d);
        } else {
            float_products(f, ops, &mut s.d, |ar, bc, cv| {
                float_element(f, rnd, ar, bc, cv)
            });
        }
    }
}

/// A (m x the K of `a_form`), B transposed (n x k) and C (m x n) of form `f` as element bits,
/// gathered from the lanes' registers through the fragment layouts (`counts`: A, B and C
/// registers per lane). `a_form` is `f`, or for a sparse form the compressed A (K halved).
pub(crate) fn operands(
    a_form: &MmaForm,
    f: &MmaForm,
    inputs: &Rows,
    regs: [usize; 3],
) -> [Vec<u64>; 3] {
    let (m, n, k) = (
        usize::from(f.shape.m),
        usize::from(f.shape.n),
        usize::from(f.shape.k),
    );
    let ka = usize::from(a_form.shape.k);
    let (mut a, mut b_t, mut c) = (vec![0; m * ka], vec![0; n * k], vec![0; m * n]);
    let out = (&mut a[..], &mut b_t[..], &mut c[..]);
    operands_into(a_form, f, inputs, regs, (|v| v, |v| v), out);
    [a, b_t, c]
}

/// [`operands`] into `a`, `b_t` and `c` (m x the K of `a_form`, n x k and m x n), each A and B
/// element as `elems.0` and `elems.1` make it from its bits. The elements of one A register are
/// consecutive columns of a row, those of a B register consecutive rows of a column
/// (`a_coord`, `b_coord`): each register is unpacked at once.
#[inline(always)]
fn operands_into<T: Copy>(
    a_form: &MmaForm,
    f: &MmaForm,
    inputs: &Rows,
    [a_regs, b_regs, c_regs]: [usize; 3],
    elems: (impl Fn(u64) -> T, impl Fn(u64) -> T),
    (a, b_t, c): (&mut [T], &mut [T], &mut [u64]),
) {
    let (n, k) = (usize::from(f.shape.n), usize::from(f.shape.k));
    let ka = usize::from(a_form.shape.k);
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
            unpack(v, wa, &mut a[row * ka + col..][..pa], &elems.0);
        }
        for (r, &v) in rb.iter().enumerate() {
            let (row, col) = b_coord(pb, lane, r, 0);
            unpack(v, wb, &mut b_t[col * k + row..][..pb], &elems.1);
        }
        for i in 0..c_regs * pc {
            let (row, col) = c_coord(c_m16, lane, i);
            c[row * n + col] = element_of(rc[i / pc], wc, i % pc);
        }
    }
}

/// The elements of `w` bits of register value `v`, lowest first, each as `elem` makes it, into
/// `out`.
#[inline(always)]
fn unpack<T>(v: u64, w: u32, out: &mut [T], elem: impl Fn(u64) -> T) {
    for (j, x) in out.iter_mut().enumerate() {
        *x = elem(element_of(v, w, j));
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
            // Every other shape and type that reaches `product` (its scratch relies on this).
            "mma.sync.aligned.m16n8k16.row.col.f32.bf16.bf16.f32",
            "mma.sync.aligned.m16n8k8.row.col.f32.bf16.bf16.f32",
            "mma.sync.aligned.m16n8k16.row.col.f32.e4m3.e4m3.f32",
            "mma.sync.aligned.m16n8k16.row.col.s32.s8.s8.s32",
            "mma.sync.aligned.m16n8k32.row.col.s32.u8.s8.s32",
            "mma.sync.aligned.m8n8k32.row.col.s32.s4.s4.s32",
            "mma.sync.aligned.m16n8k32.row.col.s32.u4.s4.s32",
            "mma.sync.aligned.m8n8k128.row.col.s32.b1.b1.s32.xor.popc",
            "mma.sync.aligned.m16n8k128.row.col.s32.b1.b1.s32.and.popc",
            "mma.sync.aligned.m16n8k4.row.col.f64.f64.f64.f64",
            "mma.sync.aligned.m16n8k8.row.col.f64.f64.f64.f64",
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
