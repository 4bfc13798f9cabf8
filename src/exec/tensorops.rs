//! Tensor copies in tile mode (PTX ISA 9.0 section 9.7.9.25.5): `cp.async.bulk.tensor.1d..5d`
//! in both directions with multicast, `cp.reduce.async.bulk.tensor`, through a tensor map
//! (`mem::tensormap`) that the kernel receives as a `.param` or finds in global memory. The box
//! becomes runs of bytes between global memory and the (swizzled) shared-memory tile, one
//! transaction of the copy engine; loads complete on mbarriers with the full box bytes, stores
//! and reductions on the bulk async-group. Where the PTX text is silent ptxrun does what an H100
//! does (measured): the start of a box in dimension 0 is 16-byte aligned, stores and reductions
//! take no negative coordinate, and only some (operation, type) pairs reduce. Loads in im2col
//! mode (`.im2col`, 3d..5d, with one 16-bit im2col offset per spatial dimension after the
//! mbarrier) gather a column of pixels instead (`mem::im2col`): the instruction and the map must
//! agree on the mode and the column must start inside the map's bounding box, or an H100 traps;
//! `.im2col_no_offs` stores and reductions are not executed (docs/launch/im2col.md).

use super::addr::address;
use super::addr::{lane_fault, shared_loc};
use super::asyncops::{copy_mbar, merge_targets, multicast_ranks, multicast_targets, CHUNK};
use super::ctx::Ctx;
use super::fault::FaultKind;
use super::fault::{fault, Res};
use super::lanes::lanes;
use super::park::Settle;
use crate::ir::mods::SubOp;
use crate::ir::{Flags, Op, Operand, Space, Type};
use crate::latency::OpClass;
use crate::mem::copy::{Completion, F32Rules, Loc, Seg};
use crate::mem::im2col;
use crate::mem::tensormap::{self, TensorMap};
use crate::mem::{self, Generic};

/// A tensor copy's shared-memory tile must be 128-byte aligned.
fn tile_aligned(cx: &Ctx<'_, '_>, base: u64, lane: usize) -> Res<()> {
    if base.is_multiple_of(128) {
        return Ok(());
    }
    Err(lane_fault(
        cx,
        lane,
        FaultKind::Misaligned,
        format!("a tensor copy's shared-memory tile must be 128-byte aligned (shared+{base:#x})"),
    ))
}

/// Reads the tensor map a tensor instruction names (its generic, param or global address).
fn tensor_map(cx: &Ctx<'_, '_>, a: u64, lane: usize) -> Res<TensorMap> {
    if !a.is_multiple_of(64) {
        return Err(lane_fault(
            cx,
            lane,
            FaultKind::Misaligned,
            format!("a tensor map must be 64-byte aligned ({a:#x})"),
        ));
    }
    let bytes: Result<Vec<u8>, String> = match mem::classify(a) {
        Generic::Param(o) => mem::slice(cx.kparams, "kernel parameter", o, tensormap::SIZE)
            .map(<[u8]>::to_vec)
            .map_err(|e| e.message),
        Generic::Global(g) => cx
            .global
            .read(g, tensormap::SIZE)
            .map(<[u8]>::to_vec)
            .map_err(|e| e.message),
        _ => Err(format!(
            "{a:#x} is not a tensor map's address (param or global)"
        )),
    };
    bytes
        .and_then(|b| TensorMap::decode(&b))
        .map_err(|e| lane_fault(cx, lane, FaultKind::Trap, format!("tensor map: {e}")))
}

/// The address of the tensor map in the `[tensorMap, {c0, ...}]` operand `k`.
fn map_address(cx: &Ctx<'_, '_>, k: usize, lane: usize) -> u64 {
    let Some(Operand::AddrList(r)) = cx.ops.get(k).copied() else {
        return 0;
    };
    match cx.func.sub_ops(r).first() {
        Some(Operand::Addr(..)) | None => 0,
        Some(o) => cx.value(o, lane, Type::U64),
    }
}

/// A tensor copy of `lane` uses the map of operand `k`: one in global memory must have been
/// published to the tensor-map proxy (the checker's `tensormap_use`).
fn check_map_fences(cx: &mut Ctx<'_, '_>, k: usize, lane: usize) {
    if cx.hb.is_none() {
        return;
    }
    if let Generic::Global(g) = mem::classify(map_address(cx, k, lane)) {
        let site = cx.site(lane);
        if let Some(hb) = cx.hb.as_mut() {
            hb.tensormap_use(&*cx.global, site, g);
        }
    }
}

/// The `[tensorMap, {c0, ...}]` operand: the map and the coordinates.
fn tensor_operand(cx: &Ctx<'_, '_>, k: usize, lane: usize) -> Res<(TensorMap, Vec<i64>)> {
    let Some(Operand::AddrList(r)) = cx.ops.get(k).copied() else {
        return Err(lane_fault(
            cx,
            lane,
            FaultKind::Unsupported,
            "expected `[tensorMap, {coordinates}]`".into(),
        ));
    };
    let items = cx.func.sub_ops(r);
    let map_addr = map_address(cx, k, lane);
    let map = tensor_map(cx, map_addr, lane)?;
    let coords: Vec<i64> = match items.get(1) {
        Some(Operand::Vector(v)) => cx
            .func
            .sub_ops(*v)
            .iter()
            .map(|o| i64::from(cx.value(o, lane, Type::S32) as i32))
            .collect(),
        Some(o) => vec![i64::from(cx.value(o, lane, Type::S32) as i32)],
        None => Vec::new(),
    };
    let dim = usize::from(cx.ins.mods.dim);
    // An H100 raises an illegal-instruction error for a box whose dimension-0 start is not
    // 16-byte aligned (measured; see ptx-samples/tensor/README.md).
    let es = i64::from(map.elem.size());
    if let Some(&c0) = coords.first() {
        if (c0 * es).rem_euclid(16) != 0 {
            return Err(lane_fault(
                cx,
                lane,
                FaultKind::Misaligned,
                format!(
                    "the box starts at element {c0} of dimension 0, {} bytes in: tensor copies need a 16-byte aligned start there (an H100 raises an illegal-instruction error)",
                    c0 * es
                ),
            ));
        }
    }
    if dim != map.rank || coords.len() != map.rank {
        return Err(lane_fault(
            cx,
            lane,
            FaultKind::Trap,
            format!(
                "a .{dim}d tensor instruction with {} coordinates on a tensor map of rank {}",
                coords.len(),
                map.rank
            ),
        ));
    }
    Ok((map, coords))
}

/// `cp.async.bulk.tensor` (tile mode in both directions, im2col loads) and
/// `cp.reduce.async.bulk.tensor`.
pub(super) fn tensor(cx: &mut Ctx<'_, '_>) -> Res<Settle> {
    let m = cx.ins.mods;
    if m.has(Flags::IM2COL_NO_OFFS) || m.has(Flags::TILE_GATHER4) || m.has(Flags::TILE_SCATTER4) {
        return Err(fault(
            FaultKind::Unsupported,
            "only the tile mode of tensor copies and im2col loads are supported (im2col_no_offs stores and reductions, gather4/scatter4 are not)",
        ));
    }
    let load = m.space != Some(Space::Global);
    let active = cx.active;
    let mut t = Transfer::default();
    let mut targets = Vec::new();
    let mut reduce = None;
    let mut f32 = None;
    for lane in lanes(active) {
        if load {
            f32 = load_lane(cx, lane, &mut t, &mut targets)?;
        } else {
            // [tensorMap, coords], [srcMem]
            let (map, coords) = tensor_operand(cx, 0, lane)?;
            check_map_fences(cx, 0, lane);
            f32 = f32_rules(&map);
            check_mode(cx, &map, lane)?;
            let src = address(cx, 1, lane);
            let (r, base) = shared_loc(cx, Some(Space::Shared), src, map.footprint(), lane)?;
            tile_aligned(cx, base, lane)?;
            if let Some(&c) = coords.iter().find(|&&c| c < 0) {
                return Err(lane_fault(
                    cx,
                    lane,
                    FaultKind::Trap,
                    format!("a tensor store or reduction at a negative coordinate ({c}): an H100 raises an illegal-instruction error"),
                ));
            }
            if cx.ins.op == Op::CpReduceAsyncBulkTensor {
                let op = m.sub.unwrap_or(SubOp::Add);
                if !tensor_reduction_ok(op, map.elem) {
                    return Err(lane_fault(
                        cx,
                        lane,
                        FaultKind::Trap,
                        format!("`.{}` over a tensor map of .{} elements is not a tensor reduction the hardware performs (an H100 raises an illegal-instruction error)", op.name(), map.elem),
                    ));
                }
                reduce = Some((op, map.elem));
            }
            let mut since_piece = CHUNK;
            for (g, s, len) in map.runs(&coords, base, true) {
                let Some(g) = g else { continue };
                if since_piece >= CHUNK {
                    t.pieces.push(t.segs.len() as u32);
                    since_piece = 0;
                }
                since_piece += len;
                let stage = t.staging.len() as u32;
                t.staging.resize(t.staging.len() + len as usize, 0);
                t.segs.push(Seg {
                    src: Loc::Shared { rank: r, off: s },
                    dst: Loc::Global(g),
                    len,
                    stage,
                });
            }
        }
    }
    let Transfer {
        segs,
        pieces,
        staging,
    } = t;
    let completion = if load {
        Completion::Mbarrier(merge_targets(targets))
    } else {
        Completion::Group
    };
    let op = super::asyncops::issue_with(
        cx,
        OpClass::Tensor,
        (segs, pieces, staging),
        completion,
        (reduce, f32),
        active,
    );
    if !load {
        super::asyncops::track(cx, op, true)?;
    }
    Ok(Settle::all(active))
}

/// The element rules of a copy through `map` when it holds f32 elements (measured on an H100,
/// `mem::tensormap::F32Mode`): tf32 maps round loaded elements as `cvt.rn.tf32.f32` does.
fn f32_rules(map: &TensorMap) -> Option<F32Rules> {
    fn tf32(v: u32) -> u32 {
        super::narrow::tf32_from_f32(v, crate::ir::mods::Rounding::Rn, false, false)
    }
    (map.elem == Type::F32).then(|| F32Rules {
        load: map.f32_mode.tf32().then_some(tf32 as fn(u32) -> u32),
        ftz: map.f32_mode.ftz(),
    })
}

/// The segments, pieces and staging bytes of one tensor copy (all lanes).
#[derive(Default)]
struct Transfer {
    segs: Vec<Seg>,
    pieces: Vec<u32>,
    staging: Vec<u8>,
}

/// A tile instruction needs a tile map and an im2col one an im2col map.
fn check_mode(cx: &Ctx<'_, '_>, map: &TensorMap, lane: usize) -> Res<()> {
    let want = cx.ins.mods.has(Flags::IM2COL);
    if want == map.im2col.is_some() {
        return Ok(());
    }
    let (instr, mode) = if want {
        (".im2col", "tile")
    } else {
        ("tile-mode", "im2col")
    };
    Err(lane_fault(
        cx,
        lane,
        FaultKind::Trap,
        format!("a {instr} tensor copy through a tensor map in {mode} mode"),
    ))
}

/// The im2col offsets operand `{o0, ...}` (16 bits each, W first).
fn im2col_offsets(cx: &Ctx<'_, '_>, k: usize, lane: usize) -> Vec<u16> {
    match cx.ops.get(k) {
        Some(Operand::Vector(v)) => cx
            .func
            .sub_ops(*v)
            .iter()
            .map(|o| cx.value(o, lane, Type::U16) as u16)
            .collect(),
        Some(o) => vec![cx.value(o, lane, Type::U16) as u16],
        None => Vec::new(),
    }
}

/// One lane's tensor load: `[dstMem], [tensorMap, coords], [mbar] {, im2colOffsets}
/// {, ctaMask} {, policy}`.
fn load_lane(
    cx: &mut Ctx<'_, '_>,
    lane: usize,
    t: &mut Transfer,
    targets: &mut Vec<(u32, u32, u64)>,
) -> Res<Option<F32Rules>> {
    let (map, coords) = tensor_operand(cx, 1, lane)?;
    check_map_fences(cx, 1, lane);
    check_mode(cx, &map, lane)?;
    let dst = address(cx, 0, lane);
    let bytes = map.box_bytes();
    // A swizzled tile with rows narrower than the span covers more shared memory than the
    // bytes it receives.
    let span = map.footprint();
    let (r, base) = shared_loc(cx, Some(Space::SharedCluster), dst, span, lane)?;
    tile_aligned(cx, base, lane)?;
    let runs = match &map.im2col {
        Some(ic) => {
            ic.check_start(&map, &coords)
                .map_err(|e| lane_fault(cx, lane, FaultKind::Trap, e))?;
            let raw = im2col_offsets(cx, 3, lane);
            let offsets = im2col::offsets(map.rank, &raw)
                .map_err(|e| lane_fault(cx, lane, FaultKind::Unsupported, e))?;
            map.im2col_runs(ic, &coords, offsets, base)
        }
        None => map.runs(&coords, base, false),
    };
    let mask_at = if map.im2col.is_some() { 4 } else { 3 };
    let ranks = multicast_ranks(cx, mask_at, lane, r)?;
    let mo = copy_mbar(cx, 2, lane, r)?;
    multicast_targets(cx, &ranks, (base, bytes), mo, lane, targets)?;
    for &rk in ranks.iter().filter(|_| span > bytes) {
        let a = crate::mem::cluster_encode(cx.to_real(rk), base);
        shared_loc(cx, Some(Space::SharedCluster), a, span, lane)?;
    }
    let fill = map.fill();
    let esize = map.elem.size() as usize;
    let mut since_piece = CHUNK;
    for (g, s, len) in runs {
        let stage = t.staging.len() as u32;
        match g {
            Some(_) => t.staging.resize(t.staging.len() + len as usize, 0),
            None => {
                for _ in 0..len as usize / esize {
                    t.staging.extend_from_slice(&fill.to_le_bytes()[..esize]);
                }
            }
        }
        if since_piece >= CHUNK {
            t.pieces.push(t.segs.len() as u32);
            since_piece = 0;
        }
        since_piece += len;
        for &rk in &ranks {
            t.segs.push(Seg {
                src: g.map_or(Loc::Fill, Loc::Global),
                dst: Loc::Shared { rank: rk, off: s },
                len,
                stage,
            });
        }
    }
    Ok(f32_rules(&map))
}

/// The (operation, element type) pairs of `cp.reduce.async.bulk.tensor`: those of the bulk
/// reductions to global memory (PTX ISA 9.0 section 9.7.9.25.4.2); 8- and 16-bit integer maps
/// have none (an H100 rejects `.add` through a u16 map).
fn tensor_reduction_ok(op: SubOp, t: Type) -> bool {
    use Type::*;
    match op {
        SubOp::Add => matches!(t, U32 | S32 | U64 | F32 | F64 | F16 | Bf16),
        SubOp::Min | SubOp::Max => matches!(t, U32 | S32 | U64 | S64 | F16 | Bf16),
        SubOp::Inc | SubOp::Dec => t == U32,
        SubOp::And | SubOp::Or | SubOp::Xor => matches!(t, U32 | S32 | U64 | S64),
        _ => false,
    }
}
