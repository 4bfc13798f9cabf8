//! Warp-wide matrix loads and stores: `ldmatrix` and `stmatrix` (PTX ISA 9.0 sections
//! 9.7.14.5.15 and 9.7.14.5.16), the `.m8n8` shape with `.b16` elements, `.x1`/`.x2`/`.x4`
//! and `.trans`. The instruction is `.sync.aligned`: the warp executes it together (the
//! rendezvous of `warpops.rs` gathers diverged groups first). Matrix `i` has 8 rows of 16
//! bytes, each at the address lane `8 i + row` supplies; lane `t` holds, in its `i`-th register,
//! the two elements of row `t / 4` at columns `2 (t % 4)` and `2 (t % 4) + 1` (low half
//! first), or with `.trans` the elements of column `t / 4` at rows `2 (t % 4)` and
//! `2 (t % 4) + 1`. To the hazard checker these are ordinary shared-memory accesses of the lane
//! that receives (or gives) the data.

use super::addr::{address, check_align, elems, mem_fault, read, target, thread_of, write, Target};
use super::ctx::Ctx;
use super::fault::FaultKind;
use super::fault::{fault, Res};
use super::lanes::{lanes, WARP};
use super::mma::Rows;
use super::shown::Ranges;
use crate::ir::{Flags, Op, Operand};

/// Whether `op` is a warp-wide matrix instruction.
pub(crate) fn is_matrix(op: Op) -> bool {
    matches!(
        op,
        Op::Ldmatrix
            | Op::Stmatrix
            | Op::Movmatrix
            | Op::Mma
            | Op::MmaSp
            | Op::MmaSpOrdered
            | Op::WmmaMma
            | Op::WgmmaMmaAsync
            | Op::WgmmaMmaAsyncSp
    )
}

/// The operand holding the row address.
fn addr_operand(op: Op) -> usize {
    if op == Op::Ldmatrix {
        1
    } else {
        0
    }
}

/// Matrices per instruction (`.x1`, `.x2`, `.x4`), or an unsupported-form fault.
fn count(cx: &Ctx<'_, '_>) -> Res<usize> {
    let m = &cx.ins.mods;
    let form_ok = cx.ins.is_m8n8_b16_matrix();
    let n = [(Flags::X1, 1), (Flags::X2, 2), (Flags::X4, 4)]
        .iter()
        .find(|(f, _)| m.has(*f))
        .map(|(_, n)| *n);
    match n {
        Some(n) if form_ok && elems(cx, 1 - addr_operand(cx.ins.op)).len() == n => Ok(n),
        _ => {
            let what = crate::ir::print_instr(cx.m, cx.func, cx.pc);
            let what = what.split_whitespace().next().unwrap_or("ldmatrix");
            Err(fault(
                FaultKind::Unsupported,
                format!("`{what}` is not supported by ptxrun yet (only .m8n8 .x1/.x2/.x4 .b16)"),
            ))
        }
    }
}

/// Reads this group's row addresses into `rows`.
pub(crate) fn gather(cx: &Ctx<'_, '_>, rows: &mut Rows) {
    match cx.ins.op {
        Op::Mma => return super::mma::gather(cx, rows),
        Op::MmaSp | Op::MmaSpOrdered => return super::mma_sp::gather(cx, rows),
        Op::WmmaMma => return super::wmma::gather(cx, rows),
        Op::WgmmaMmaAsync | Op::WgmmaMmaAsyncSp => return super::wgmma::gather(cx, rows),
        Op::Movmatrix => {
            for lane in lanes(cx.active) {
                rows[lane][0] = cx.src(1, lane, crate::ir::Type::B32);
            }
            return;
        }
        _ => {}
    }
    let k = addr_operand(cx.ins.op);
    for lane in lanes(cx.active) {
        rows[lane][0] = address(cx, k, lane);
    }
}

/// The lanes whose addresses an instruction of `n` matrices uses.
fn row_lanes(n: usize) -> u32 {
    if n >= 4 {
        u32::MAX
    } else {
        (1u32 << (8 * n)) - 1
    }
}

/// Where lane `t`'s two halves of matrix `i` live: (row address lane, byte offset) for the low
/// and the high element; one 4-byte piece when not transposed.
fn pieces(t: usize, i: usize, trans: bool) -> [(usize, u64); 2] {
    if trans {
        let col = 2 * (t / 4) as u64;
        [(8 * i + 2 * (t % 4), col), (8 * i + 2 * (t % 4) + 1, col)]
    } else {
        let off = 4 * (t % 4) as u64;
        [(8 * i + t / 4, off), (8 * i + t / 4, off + 2)]
    }
}

/// Executes the instruction for this group's lanes; `rows` holds every present lane's row
/// address and `present` says which lanes are there.
pub(crate) fn exec(cx: &mut Ctx<'_, '_>, rows: &Rows, present: u32) -> Res<()> {
    match cx.ins.op {
        Op::Mma => return mma(cx, rows, present),
        Op::MmaSp | Op::MmaSpOrdered => return super::mma_sp::exec(cx, rows, present),
        Op::WmmaMma => return super::wmma::mma(cx, rows, present),
        Op::WgmmaMmaAsync | Op::WgmmaMmaAsyncSp => {
            return super::wgmma::mma_async(cx, rows, present)
        }
        Op::Movmatrix => return movmatrix(cx, rows, present),
        _ => {}
    }
    let n = count(cx)?;
    let missing = row_lanes(n) & !present;
    if missing != 0 {
        return Err(super::mma::partial_warp(cx, missing, "row addresses"));
    }
    let space = cx.ins.mods.space;
    for lane in lanes(row_lanes(n) & cx.active) {
        let tg = target(cx, space, rows[lane][0]);
        if !matches!(tg, Target::Shared(..)) {
            let addr = rows[lane][0];
            return Err(super::addr::wrong_space(
                cx,
                addr,
                tg,
                lane,
                "shared memory",
            ));
        }
        check_align(cx, rows[lane][0], 16, lane, tg)?;
    }
    let trans = cx.ins.mods.has(Flags::TRANS);
    let load = cx.ins.op == Op::Ldmatrix;
    let regs = elems(cx, if load { 0 } else { 1 });
    // Up to 4 matrices x 2 halves per lane.
    let mut ranges = Ranges::<{ 8 * WARP }>::new();
    for lane in lanes(cx.active) {
        for (i, r) in regs.iter().enumerate().take(n) {
            let halves = pieces(lane, i, trans);
            let mut bytes = [0u8; 4];
            if !load {
                bytes = (cx.value(r, lane, crate::ir::Type::B32) as u32).to_le_bytes();
            }
            for (h, (src, off)) in halves.iter().enumerate() {
                // Untransposed, both halves are one 4-byte piece: access it once.
                if !trans && h == 1 {
                    break;
                }
                let len = if trans { 2 } else { 4 };
                let tg = target(cx, space, rows[*src][0] + off);
                let piece = &mut bytes[2 * h..2 * h + len];
                let thread = thread_of(cx, lane);
                if load {
                    read(cx, tg, lane, piece).map_err(|e| mem_fault(e, thread))?;
                } else {
                    write(cx, tg, lane, piece).map_err(|e| mem_fault(e, thread))?;
                }
                ranges.add(tg, len, lane);
            }
            if let (true, Operand::Reg(reg)) = (load, r) {
                cx.set_reg(*reg, lane, u64::from(u32::from_le_bytes(bytes)));
            }
        }
    }
    if cx.hb.is_some() {
        ranges.check(cx, (!load, load), false);
    }
    Ok(())
}

/// `movmatrix.sync.aligned.m8n8.trans.b16` (section 9.7.14.5.17): the warp transposes an 8x8
/// matrix of 16-bit elements held in the `ldmatrix` fragment (lane `4 i + j / 2` holds element
/// (i, j) in half `j % 2`). Every lane must take part.
fn movmatrix(cx: &mut Ctx<'_, '_>, rows: &Rows, present: u32) -> Res<()> {
    if !cx.ins.is_m8n8_b16_matrix() {
        return Err(fault(
            FaultKind::Unsupported,
            "`movmatrix` is not supported by ptxrun in this form (only .m8n8.trans.b16)"
                .to_string(),
        ));
    }
    if present != u32::MAX {
        return Err(super::mma::partial_warp(cx, !present, "elements"));
    }
    let half = |i: usize, j: usize| (rows[4 * i + j / 2][0] >> (16 * (j % 2))) & 0xffff;
    for lane in lanes(cx.active) {
        let (r, c) = (lane / 4, 2 * (lane % 4));
        let v = half(c, r) | half(c + 1, r) << 16;
        if let Some(Operand::Reg(reg)) = cx.ops.first() {
            cx.set_reg(*reg, lane, v);
        }
    }
    Ok(())
}

/// `mma`: the quad-pair shapes in `mma_quad.rs`, the others in `mma.rs`.
fn mma(cx: &mut Ctx<'_, '_>, rows: &Rows, present: u32) -> Res<()> {
    let f = super::mma::decoded(cx)?;
    if f.is_quad_pair() {
        let [a, b] = cx.ins.mods.layouts();
        let cols = [a == Some(true), b == Some(true)];
        return super::mma_quad::exec(cx, &f, cols, rows, present);
    }
    super::mma::exec(cx, &f, rows, present)
}

#[cfg(test)]
mod tests {
    use super::pieces;

    #[test]
    fn lanes_get_rows_in_fours_and_columns_in_pairs() {
        // Lane 5, matrix 1: row 1 of matrix 1 (address of lane 9), bytes 4..8.
        assert_eq!(pieces(5, 1, false), [(9, 4), (9, 6)]);
        // Transposed: column 1 (byte 2) of rows 2 and 3.
        assert_eq!(pieces(5, 0, true), [(2, 2), (3, 2)]);
        assert_eq!(pieces(31, 3, true), [(30, 14), (31, 14)]);
    }
}
