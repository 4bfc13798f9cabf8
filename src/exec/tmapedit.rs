//! Tensor maps edited on the device (PTX ISA 9.0 sections 9.7.9.27 `tensormap.replace` and
//! 9.7.9.28 `tensormap.cp_fenceproxy`), as CUTLASS's grouped GEMMs retarget one map per group:
//! copy the map to shared memory, replace fields, copy it back to global memory with a release
//! to the tensor-map proxy, acquire it (`fence.proxy.tensormap::generic.acquire`) and copy with it.
//!
//! The map's bytes are ptxrun's own encoding (`mem::tensormap`), so a field is replaced by
//! decoding, setting and encoding. Each field takes what the H100 was measured to take
//! (docs/launch/tensormap-replace.md): `global_dim` and `box_dim` the size, `global_stride` bytes
//! (of dimension ord + 1), `element_stride` the stride, `rank` the rank minus 1, `elemtype` the
//! PTX ISA's code (its own table, not `CU_TENSOR_MAP_DATA_TYPE`: 8 is f32 with ftz, 9 f64, 10
//! bf16, 11 tf32, 12 tf32 with ftz), `swizzle_mode` 0..3 (none, 32B, 64B, 128B), `fill_mode` 0
//! (zero) or 1 (NaN). `.interleave_layout` other than 0, the packed sm_100 element types and
//! `.swizzle_atomicity` stop as unsupported. The edited map is checked where a copy uses it, as
//! a launch's maps are (a rank above 5, which the H100 stores as an invalid map, fails there).

use super::addr::{address, check_align, mem_fault, read, target, thread_of, write};
use super::ctx::Ctx;
use super::fault::FaultKind;
use super::fault::{fault, Res};
use super::lanes::lanes;
use super::shown::Ranges;
use crate::ir::mods::SubOp;
use crate::ir::{Op, Space, Type};
use crate::mem::tensormap::{self, Swizzle, TensorMap};

pub(crate) fn exec(cx: &mut Ctx<'_, '_>) -> Res<()> {
    match cx.ins.op {
        Op::TensormapReplace => replace(cx),
        _ => cp_fenceproxy(cx),
    }
}

fn unsupported(cx: &Ctx<'_, '_>, why: &str) -> Box<super::fault::Fault> {
    let what = crate::ir::print_opcode(cx.func, cx.pc);
    fault(
        FaultKind::Unsupported,
        format!("`{what}` is not supported by ptxrun: {why}"),
    )
}

/// `tensormap.replace.tile.FIELD.SPACE.b1024.TYPE [addr], {ord,} new_val`.
fn replace(cx: &mut Ctx<'_, '_>) -> Res<()> {
    let field = cx.ins.mods.sub.unwrap_or(SubOp::GlobalAddress);
    let ty = cx.ty();
    let space = cx.ins.mods.space;
    let mut ranges: Ranges = Ranges::new();
    for lane in lanes(cx.active) {
        let addr = address(cx, 0, lane);
        let tg = target(cx, space, addr);
        check_align(cx, addr, 128, lane, tg)?;
        let mut bytes = [0u8; tensormap::SIZE];
        read(cx, tg, lane, &mut bytes).map_err(|e| mem_fault(e, thread_of(cx, lane)))?;
        // Checked where a copy uses it: replacing dims and strides one by one passes through
        // maps no copy may use.
        let mut map = TensorMap::decode_fields(&bytes).map_err(|e| {
            let mut f = fault(
                FaultKind::Memory,
                format!("tensormap.replace at {addr:#x}: {e}"),
            );
            f.linear_thread = Some(cx.thread_of(lane));
            f
        })?;
        if map.im2col.is_some() {
            return Err(unsupported(
                cx,
                "the tensor map is in im2col mode (replace was measured on tile maps only)",
            ));
        }
        let (ord, value) = match cx.ops.len() {
            3 => (cx.src(1, lane, Type::U32) as usize, cx.src(2, lane, ty)),
            _ => (0, cx.src(1, lane, ty)),
        };
        set_field(&mut map, field, ord, value).map_err(|why| match why {
            Bad::Unsupported(w) => unsupported(cx, w),
            Bad::Invalid(m) => {
                let mut f = fault(FaultKind::Memory, format!("tensormap.replace: {m}"));
                f.linear_thread = Some(cx.thread_of(lane));
                f
            }
        })?;
        write(cx, tg, lane, &map.encode()).map_err(|e| mem_fault(e, thread_of(cx, lane)))?;
        ranges.add(tg, tensormap::SIZE, lane);
    }
    if cx.hb.is_some() {
        ranges.check(cx, (true, true), false);
    }
    Ok(())
}

enum Bad {
    Unsupported(&'static str),
    Invalid(String),
}

/// Sets one field of `map` as `tensormap.replace` does (values as `cuTensorMapEncodeTiled`
/// takes them).
fn set_field(map: &mut TensorMap, field: SubOp, ord: usize, value: u64) -> Result<(), Bad> {
    let dim = |n: usize| {
        if ord < n {
            Ok(ord)
        } else {
            Err(Bad::Invalid(format!("ord {ord} is not below {n}")))
        }
    };
    match field {
        SubOp::GlobalAddress => map.addr = value,
        SubOp::GlobalDim => map.dims[dim(5)?] = value & 0xffff_ffff,
        SubOp::BoxDim => map.boxdim[dim(5)?] = value as u32,
        SubOp::ElementStride => map.estrides[dim(5)?] = value as u32,
        // The stride of dimension ord + 1 (dimension 0's is the element size).
        SubOp::GlobalStride => map.strides[dim(4)? + 1] = value,
        SubOp::Elemtype => {
            (map.elem, map.f32_mode) = TensorMap::elem_of_ptx_code(value).ok_or(
                Bad::Unsupported("element types 13 to 15 (sm_100's packed types) are not modelled"),
            )?;
            map.strides[0] = u64::from(map.elem.size());
        }
        // The field holds rank - 1 (the H100 keeps 3 bits and marks the map invalid above 4).
        SubOp::Rank => map.rank = value.min(254) as usize + 1,
        SubOp::SwizzleMode => {
            map.swizzle = match value {
                0 => Swizzle::None,
                1 => Swizzle::B32,
                2 => Swizzle::B64,
                3 => Swizzle::B128,
                _ => return Err(Bad::Invalid(format!("swizzle mode {value}"))),
            }
        }
        SubOp::FillMode => map.nan_fill = value == 1,
        SubOp::InterleaveLayout if value == 0 => {}
        SubOp::InterleaveLayout => {
            return Err(Bad::Unsupported("interleaved tensor maps are not modelled"))
        }
        _ => return Err(Bad::Unsupported("this field is sm_100's")),
    }
    Ok(())
}

/// `tensormap.cp_fenceproxy.global.shared::cta.tensormap::generic.release.SCOPE.sync.aligned
/// [dst], [src], 128`: copies a map from shared to global memory and releases it to the
/// tensor-map proxy, as `fence.proxy.tensormap::generic.release` after a copy would.
fn cp_fenceproxy(cx: &mut Ctx<'_, '_>) -> Res<()> {
    let Some(lane) = lanes(cx.active).next() else {
        return Ok(());
    };
    let size = cx.src(2, lane, Type::U32);
    if size != tensormap::SIZE as u64 {
        return Err(unsupported(cx, "a size other than 128"));
    }
    let (dst, src) = (address(cx, 0, lane), address(cx, 1, lane));
    let (to, from) = (
        target(cx, Some(Space::Global), dst),
        target(cx, Some(Space::Shared), src),
    );
    check_align(cx, dst, 128, lane, to)?;
    check_align(cx, src, 128, lane, from)?;
    let mut bytes = [0u8; tensormap::SIZE];
    read(cx, from, lane, &mut bytes).map_err(|e| mem_fault(e, thread_of(cx, lane)))?;
    write(cx, to, lane, &bytes).map_err(|e| mem_fault(e, thread_of(cx, lane)))?;
    if cx.hb.is_some() {
        let mut reads: Ranges = Ranges::new();
        reads.add(from, tensormap::SIZE, lane);
        reads.check(cx, (false, true), false);
        let mut writes: Ranges = Ranges::new();
        writes.add(to, tensormap::SIZE, lane);
        writes.check(cx, (true, false), false);
    }
    let (rank, warp) = (cx.rank, cx.warp_index);
    if let Some(hb) = cx.hb.as_mut() {
        hb.tensormap_release(rank, warp);
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    fn map() -> TensorMap {
        let bytes = tensormap::map2d(Swizzle::None).encode();
        TensorMap::decode_fields(&bytes).unwrap()
    }

    #[test]
    fn zero_bytes_are_a_map_to_build_on_but_not_to_copy_with() {
        // Triton's tl.make_tensor_descriptor: 128 zero bytes, then each field replaced.
        let zero = [0u8; tensormap::SIZE];
        assert!(TensorMap::decode(&zero).is_err());
        let mut m = TensorMap::decode_fields(&zero).unwrap();
        assert_eq!(m, TensorMap::blank());
        assert!(set_field(&mut m, SubOp::GlobalAddress, 0, 0x1000).is_ok());
        assert!(set_field(&mut m, SubOp::Rank, 0, 1).is_ok());
        assert!(set_field(&mut m, SubOp::GlobalDim, 0, 64).is_ok());
        assert!(set_field(&mut m, SubOp::GlobalDim, 1, 32).is_ok());
        assert!(set_field(&mut m, SubOp::GlobalStride, 0, 256).is_ok());
        assert!(set_field(&mut m, SubOp::BoxDim, 0, 16).is_ok());
        // Before the element type is set the box row is 16 u8 bytes; after, 64 f32 bytes.
        assert_eq!(TensorMap::decode(&m.encode()).unwrap().box_bytes(), 16);
        assert!(set_field(&mut m, SubOp::Elemtype, 0, 7).is_ok());
        let m = TensorMap::decode(&m.encode()).unwrap();
        assert_eq!(
            (m.rank, m.elem, m.boxdim[1], m.estrides[0]),
            (2, Type::F32, 1, 1)
        );
        assert_eq!(
            (m.swizzle, m.nan_fill, m.box_bytes()),
            (Swizzle::None, false, 64)
        );
        // Anything else that is not ptxrun's encoding is still no map.
        let mut junk = zero;
        junk[7] = 1;
        assert!(TensorMap::decode_fields(&junk).is_err());
    }

    #[test]
    fn fields_take_what_the_driver_takes_and_may_pass_through_invalid_maps() {
        let mut m = map();
        // A box of zero is no map a copy may use, but the next replacement mends it.
        assert!(set_field(&mut m, SubOp::BoxDim, 0, 0).is_ok());
        assert!(TensorMap::decode(&m.encode()).is_err());
        let m2 = TensorMap::decode_fields(&m.encode()).unwrap();
        assert_eq!(m2.boxdim[0], 0);
        assert!(set_field(&mut m, SubOp::BoxDim, 0, 8).is_ok());
        assert!(set_field(&mut m, SubOp::GlobalStride, 0, 512).is_ok());
        assert!(set_field(&mut m, SubOp::Elemtype, 0, 6).is_ok());
        assert!(set_field(&mut m, SubOp::Rank, 0, 1).is_ok());
        assert!(set_field(&mut m, SubOp::SwizzleMode, 0, 2).is_ok());
        let m = TensorMap::decode(&m.encode()).unwrap();
        assert_eq!((m.boxdim[0], m.strides[1], m.elem), (8, 512, Type::F16));
        assert_eq!(m.swizzle, Swizzle::B64);
        let mut m = map();
        assert!(set_field(&mut m, SubOp::Elemtype, 0, 11).is_ok());
        assert_eq!((m.elem, m.f32_mode.tf32()), (Type::F32, true));
        assert!(set_field(&mut m, SubOp::Elemtype, 0, 9).is_ok());
        assert_eq!((m.elem, m.strides[0]), (Type::F64, 8));
        assert!(matches!(
            set_field(&mut m, SubOp::Elemtype, 0, 13),
            Err(Bad::Unsupported(_))
        ));
        assert!(matches!(
            set_field(&mut m, SubOp::SwizzleMode, 0, 4),
            Err(Bad::Invalid(_))
        ));
        assert!(matches!(
            set_field(&mut m, SubOp::GlobalStride, 4, 16),
            Err(Bad::Invalid(_))
        ));
        // Rank 6 is stored and refused where a copy uses the map.
        assert!(set_field(&mut m, SubOp::Rank, 0, 5).is_ok());
        assert!(TensorMap::decode(&m.encode()).is_err());
        assert!(set_field(&mut m, SubOp::Rank, 0, u64::MAX).is_ok());
        assert!(matches!(
            set_field(&mut m, SubOp::InterleaveLayout, 0, 1),
            Err(Bad::Unsupported(_))
        ));
    }
}
