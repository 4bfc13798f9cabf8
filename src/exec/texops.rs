//! Texture and surface instructions (PTX ISA 9.0 section 9.7.10) on the launch's objects
//! (`Grid::objects`, handle `h` is object `h - 1`): `tex` and `tld4` sample through
//! `mem::texture`'s measured arithmetic, `suld`/`sust`/`sured` address texels by byte (`.b`),
//! `txq`/`suq` answer `width`, `height` and `depth`. Texels live in global memory, so the
//! checker sees texture and surface reads and writes as ordinary accesses of their bytes.
//! Forms `ir::texture::form` refused when the module loaded, and objects the arithmetic does not
//! cover (see `mem::texture`), stop with `unsupported`.

use super::addr::lane_fault;
use super::addr::{mem_fault, read, thread_of, write, Target};
use super::ctx::Ctx;
use super::fault::FaultKind;
use super::fault::{fault, Res};
use super::lanes::{lanes, WARP};
use super::shown::Ranges;
use crate::ir::mods::{Oob, SubOp};
use crate::ir::texture::Geom;
use crate::ir::{Op, Operand, Symbol, Type};
use crate::mem::gradlod;
use crate::mem::texture::{self as tx, TexObject};
use crate::mem::trilinear;

pub(crate) fn exec(cx: &mut Ctx<'_, '_>) -> Res<()> {
    if let Err(why) = cx.func.form(cx.pc).tex() {
        return Err(unsupported(cx, why));
    }
    match cx.ins.op {
        Op::Tex | Op::Tld4 => sample(cx),
        Op::Txq | Op::Suq => query(cx),
        _ => surface(cx),
    }
}

fn unsupported(cx: &Ctx<'_, '_>, why: &str) -> Box<super::fault::Fault> {
    let what = crate::ir::print_opcode(cx.func, cx.pc);
    fault(
        FaultKind::Unsupported,
        format!("`{what}` is not supported by ptxrun: {why}"),
    )
}

fn geom(cx: &Ctx<'_, '_>) -> Geom {
    Geom::of(cx.ins.mods.dim).unwrap_or(Geom::D1)
}

/// The object of handle `h`, of the kind the instruction takes, matching its geometry.
fn object<'a>(cx: &Ctx<'a, '_>, h: u64, lane: usize, surface: bool) -> Res<&'a TexObject> {
    let grid: &'a super::config::Grid = cx.grid;
    let kind = if surface { "surface" } else { "texture" };
    let found = h
        .checked_sub(1)
        .and_then(|i| grid.objects.get(usize::try_from(i).ok()?))
        .filter(|o| o.surface == surface);
    let Some(o) = found else {
        return Err(lane_fault(
            cx,
            lane,
            FaultKind::Memory,
            format!(
                "`{}`: {h:#x} is not a {kind} object of this launch",
                op_name(cx)
            ),
        ));
    };
    if let Some(g) = Geom::of(cx.ins.mods.dim) {
        let cube = g == Geom::Cube;
        let dims = if cube { 2 } else { g.dims() };
        if cube != o.cube || dims != usize::from(o.ndim) || g.layered() != o.layers.is_some() {
            return Err(lane_fault(
                cx,
                lane,
                FaultKind::Memory,
                format!(
                    "`{}` on a {kind} of {} dimension(s){}",
                    op_name(cx),
                    o.ndim,
                    if o.cube {
                        ", a cube map"
                    } else if o.layers.is_some() {
                        ", layered"
                    } else {
                        ""
                    }
                ),
            ));
        }
    }
    Ok(o)
}

fn op_name(cx: &Ctx<'_, '_>) -> String {
    crate::ir::print_opcode(cx.func, cx.pc)
}

/// The `[handle, {coordinates}]` (or `[handle]`) operand `k`: the handle and the coordinate
/// operands.
fn handle_and_coords(cx: &Ctx<'_, '_>, k: usize, lane: usize) -> (u64, Vec<Operand>) {
    match cx.ops.get(k) {
        Some(Operand::AddrList(r)) => {
            let items = cx.func.sub_ops(*r);
            let h = match items.first() {
                // A `.param .texref` kernel parameter (ptxas takes no other parameter here)
                // names the object whose handle it holds.
                Some(&Operand::Sym(s @ Symbol::Param(_), _)) if cx.is_kernel => {
                    let at = cx.sym_addr(s, lane) as usize;
                    cx.kparams.get(at..at + 8).map_or(0, crate::mem::read_le)
                }
                Some(o) => cx.value(o, lane, Type::U64),
                None => 0,
            };
            let coords = match items.get(1) {
                Some(Operand::Vector(v)) => cx.func.sub_ops(*v).to_vec(),
                Some(o) => vec![*o],
                None => Vec::new(),
            };
            (h, coords)
        }
        Some(Operand::Addr(..)) => (super::addr::address(cx, k, lane), Vec::new()),
        _ => (0, Vec::new()),
    }
}

/// Writes element `e` of the destination vector (or the scalar destination) of operand `k`.
fn set_elem(cx: &mut Ctx<'_, '_>, k: usize, e: usize, lane: usize, v: u64) {
    match cx.ops.get(k).copied() {
        Some(Operand::Vector(r)) => {
            if let Some(Operand::Reg(reg)) = cx.func.sub_ops(r).get(e).copied() {
                cx.set_reg(reg, lane, v);
            }
        }
        Some(Operand::Reg(reg)) if e == 0 => cx.set_reg(reg, lane, v),
        _ => {}
    }
}

/// Reads element `e` of the source vector (or scalar) of operand `k`.
fn get_elem(cx: &Ctx<'_, '_>, k: usize, e: usize, lane: usize, ty: Type) -> u64 {
    match cx.ops.get(k) {
        Some(Operand::Vector(r)) => cx
            .func
            .sub_ops(*r)
            .get(e)
            .map_or(0, |o| cx.value(o, lane, ty)),
        Some(o) if e == 0 => cx.value(o, lane, ty),
        _ => 0,
    }
}

/// The spatial coordinates and the layer of a `tex`/`tld4`/surface operand list, or a fault
/// when it holds too few.
fn split_coords(
    cx: &Ctx<'_, '_>,
    g: Geom,
    coords: &[Operand],
) -> Res<(Vec<Operand>, Option<Operand>)> {
    let n = g.dims();
    let skip = usize::from(g.layered());
    if coords.len() < n + skip {
        return Err(unsupported(
            cx,
            &format!(
                "`.{}` takes {} coordinates, {} given",
                g.name(),
                n + skip,
                coords.len()
            ),
        ));
    }
    let layer = g.layered().then(|| coords[0]);
    Ok((coords[skip..skip + n].to_vec(), layer))
}

fn layer_of(cx: &Ctx<'_, '_>, o: &TexObject, layer: Option<Operand>, lane: usize) -> u32 {
    match (layer, o.layers) {
        // Measured: the layer clamps as an unsigned number (a negative one is the last).
        (Some(op), Some(n)) => (cx.value(&op, lane, Type::U32) as u32).min(n - 1),
        _ => 0,
    }
}

/// The texels a warp's sample reads: up to eight per lane (trilinear filtering).
type TexRanges = Ranges<{ 8 * WARP }>;

/// Where a sample reads: the layer (or cube face) and the mipmap level.
#[derive(Clone, Copy)]
struct Site {
    layer: u32,
    level: u32,
}

/// A texel's bytes (the border colour's, as `border_texel` converts it, outside in border mode).
fn fetch(
    cx: &Ctx<'_, '_>,
    o: &TexObject,
    pos: [i64; 3],
    at_site: Site,
    lane: usize,
    ranges: &mut TexRanges,
) -> Res<[u8; 16]> {
    let size = o.level_size(at_site.level);
    let mut at = [0u32; 3];
    for ax in 0..usize::from(o.ndim) {
        match tx::resolve(o.address[ax], o.normalized, pos[ax], size[ax]) {
            Some(i) => at[ax] = i,
            None => return border_texel(cx, o),
        }
    }
    let z = if o.layers.is_some() || o.cube {
        at_site.layer
    } else {
        at[2]
    };
    let addr = o.base + o.offset_at(at_site.level, at[0], at[1], z);
    let n = o.elem_bytes() as usize;
    let mut buf = [0u8; 16];
    read(cx, Target::Global(addr), lane, &mut buf[..n])
        .map_err(|e| mem_fault(e, thread_of(cx, lane)))?;
    ranges.add(Target::Global(addr), n, lane);
    Ok(buf)
}

/// A lane's coordinates before a level scales them: normalized ones (and a cube face's) are
/// fractions of the size, the others texel coordinates.
struct Coords {
    c: Vec<f64>,
    normalized: bool,
    /// A cube face's coordinates, scaled exactly (measured); other normalized coordinates are
    /// cut to the unit's fixed point first (`texture::scale_normalized`).
    face: bool,
}

impl Coords {
    /// The texel coordinates on level `l`.
    fn on(&self, o: &TexObject, l: u32) -> Vec<f64> {
        let size = o.level_size(l);
        // The precision of x and y follows the largest size, z's its own (measured).
        let largest = size[..usize::from(o.ndim)]
            .iter()
            .copied()
            .max()
            .unwrap_or(1);
        let precision = |ax: usize| if ax < 2 { largest } else { size[2] };
        self.c
            .iter()
            .enumerate()
            .map(|(ax, &v)| match (self.normalized, self.face) {
                (false, _) => v,
                (true, true) => v * f64::from(size[ax]),
                (true, false) => tx::scale_normalized(v, size[ax], precision(ax), o.address[ax]),
            })
            .collect()
    }
}

/// The coordinates of one lane: a cube map's face and its coordinates, or the operands read as
/// their type.
fn lane_coords(
    cx: &Ctx<'_, '_>,
    o: &TexObject,
    spatial: &[Operand],
    cty: Type,
    lane: usize,
) -> Res<(Coords, Option<u32>)> {
    let vals: Vec<u64> = spatial.iter().map(|op| cx.value(op, lane, cty)).collect();
    if o.cube {
        let d = [0, 1, 2].map(|ax| f32::from_bits(vals[ax] as u32));
        let (face, st) = super::texcube::face(d).map_err(|why| unsupported(cx, why))?;
        let c = Coords {
            c: st.to_vec(),
            normalized: true,
            face: true,
        };
        return Ok((c, Some(face)));
    }
    let c = vals
        .iter()
        .map(|&v| match cty {
            Type::S32 => f64::from(v as u32 as i32),
            _ => tx::texel_coord(f32::from_bits(v as u32), false, 1),
        })
        .collect();
    let normalized = o.normalized && cty != Type::S32;
    let face = false;
    Ok((
        Coords {
            c,
            normalized,
            face,
        },
        None,
    ))
}

/// The level and next-level weight of a lane: `tex.level`'s lod, `tex.grad`'s from the
/// gradients (`mem::gradlod`, scaled by the first level's size), and for plain `tex` lod 0
/// without the bias (measured: a bias of 2.3 still reads level 0, a minimum of 1.5 reads 1.5).
/// A texture without levels reads level 0 at any lod (measured).
fn lane_level(cx: &Ctx<'_, '_>, o: &TexObject, lane: usize) -> (u32, u32) {
    match cx.ins.mods.sub {
        Some(SubOp::Level) => {
            let lod = cx.ops.get(2).map_or(0, |op| cx.value(op, lane, Type::F32));
            o.mips.select(f32::from_bits(lod as u32))
        }
        Some(SubOp::Grad) => {
            let g = |k: usize, e: usize| f32::from_bits(get_elem(cx, k, e, lane, Type::F32) as u32);
            // A 1D gradient has no y component.
            let y = |k: usize| if o.ndim == 1 { 0.0 } else { g(k, 1) };
            let lod = gradlod::grad_lod([g(2, 0), y(2)], [g(3, 0), y(3)], [o.size[0], o.size[1]]);
            o.mips.select_fixed(lod)
        }
        _ => tx::Mips { bias: 0, ..o.mips }.select(0.0),
    }
}

/// `tex.geom.v4.dtype.ctype d, [h, {c}]{, lod}` and `tld4.comp.2d.v4.dtype.f32 d, [h, {c}]`.
fn sample(cx: &mut Ctx<'_, '_>) -> Res<()> {
    let g = geom(cx);
    let dty = cx.ins.mods.types[0].unwrap_or(Type::F32);
    let cty = cx.ins.mods.types[1].unwrap_or(Type::F32);
    let gather = cx.ins.op == Op::Tld4;
    let mut ranges: TexRanges = Ranges::new();
    for lane in lanes(cx.active) {
        let (h, coords) = handle_and_coords(cx, 1, lane);
        let o = object(cx, h, lane, false)?;
        if tx::returns_float(o) != (dty == Type::F32) {
            return Err(unsupported(
                cx,
                "the result type does not match the texture's (`.f32` for float texels and normalized-float reads, `.s32`/`.u32` for integer texels)",
            ));
        }
        let border_colour = o.address.contains(&tx::AddrMode::Border) && o.border != [0; 4];
        if border_colour && !tx::returns_float(o) {
            return Err(unsupported(
                cx,
                "a border colour read into integer registers (not measured on the H100)",
            ));
        }
        if o.mips.levels > 1 && (gather || cty != Type::F32) {
            return Err(unsupported(
                cx,
                "`tld4` or integer coordinates on a mipmapped texture (not measured)",
            ));
        }
        if o.mips.levels > 1 && o.size.iter().any(|&n| n > 8192) {
            return Err(unsupported(
                cx,
                "a mipmapped texture of more than 8192 texels on an axis (whether a level's coordinate precision follows its own size or the first level's was not measured)",
            ));
        }
        if o.ndim == 3
            && o.normalized
            && cty == Type::F32
            && tx::fraction_bits(o.size[1]) > tx::fraction_bits(o.size[2])
        {
            return Err(unsupported(
                cx,
                "normalized coordinates on a 3D texture more than 8192 texels high and at most 8192 deep (whether z's precision follows its own size or the height's was not measured)",
            ));
        }
        let (spatial, layer) = split_coords(cx, g, &coords)?;
        let (raw, face) = lane_coords(cx, o, &spatial, cty, lane)?;
        let layer = face.unwrap_or_else(|| layer_of(cx, o, layer, lane));
        let (level, k) = lane_level(cx, o, lane);
        let site = Site { layer, level };
        let out: [u32; 4] = if gather {
            if let Some(why) = tx::gather_unsupported(o) {
                return Err(unsupported(cx, why));
            }
            gather4(cx, o, &raw.on(o, 0), site, lane, &mut ranges)?
        } else if k > 0 {
            if let Some(why) = tx::level_blend_unsupported(o, raw.c.len()) {
                return Err(unsupported(cx, why));
            }
            between_levels(cx, o, &raw, site, k, lane, &mut ranges)?
        } else if o.linear && cty == Type::F32 {
            if let Some(why) = tx::linear_unsupported(o, raw.c.len()) {
                return Err(unsupported(cx, why));
            }
            linear(cx, o, &raw.on(o, level), site, lane, &mut ranges)?
        } else {
            let t = point(cx, o, &raw.on(o, level), site, lane, &mut ranges)?;
            [0, 1, 2, 3].map(|ch| tx::channel(o, &t, ch))
        };
        for (e, v) in out.into_iter().enumerate() {
            set_elem(cx, 0, e, lane, u64::from(v));
        }
    }
    if cx.hb.is_some() {
        // (write, read)
        ranges.check(cx, (false, true), false);
    }
    Ok(())
}

/// Linear filtering between level `site.level` and the next, `k` (of 256) the weight of the
/// next; within each level point sampling, or bilinear filtering (trilinear), as
/// `mem::trilinear` has the H200 do it.
fn between_levels(
    cx: &Ctx<'_, '_>,
    o: &TexObject,
    raw: &Coords,
    site: Site,
    k: u32,
    lane: usize,
    ranges: &mut TexRanges,
) -> Res<[u32; 4]> {
    // Each level's texels and their weights.
    let mut taps: [Vec<([u8; 16], u32, bool)>; 2] = [Vec::with_capacity(4), Vec::with_capacity(4)];
    for (n, weight) in [(0, 256 - k), (1, k)] {
        let at = Site {
            level: site.level + n as u32,
            ..site
        };
        let c = raw.on(o, at.level);
        if o.linear {
            let size = o.level_size(at.level);
            let (x, y) = (
                plane_position(o, 0, &c, size),
                plane_position(o, 1, &c, size),
            );
            taps[n] = plane_taps(cx, o, [x, y], (0, weight), at, lane, ranges)?;
        } else {
            let t = point(cx, o, &c, at, lane, ranges)?;
            taps[n].push((t, weight, weight > 0));
        }
    }
    blend_planes(cx, o, &taps, "between mipmap levels", false)
}

/// The blend of two planes of weighted texels (two mipmap levels, or a 3D texture's two z
/// slices), as `mem::trilinear` has the unit do it: u8 texels read as normalized floats summed
/// all together at 16 bits; f32 texels summed per plane, then the planes together. Each tap:
/// texel, weight, and whether all its axis weights are nonzero (its footprint). A result of
/// zero is -0 when every texel of the footprint is -0 (measured for 3D textures; between
/// mipmap levels, `zero_sign` false, it is refused).
fn blend_planes(
    cx: &Ctx<'_, '_>,
    o: &TexObject,
    taps: &[Vec<([u8; 16], u32, bool)>; 2],
    what: &str,
    zero_sign: bool,
) -> Res<[u32; 4]> {
    let mut out = [0u32; 4];
    // Missing channels read 0.
    for (ch, v) in out.iter_mut().enumerate().take(usize::from(o.channels)) {
        if o.read_float {
            let widened: Vec<(i64, u32)> = taps
                .iter()
                .flatten()
                .map(|(t, w, _)| (tx::widen16(o, t, ch).0, *w))
                .collect();
            *v = (trilinear::blend_u16(&widened) as f32 / 65535.0).to_bits();
            continue;
        }
        let value = |t: &[u8; 16]| f32::from_bits(tx::channel(o, t, ch));
        let mut sums = Vec::with_capacity(2);
        for plane in taps {
            let texels: Vec<(f32, u32)> = plane.iter().map(|(t, w, _)| (value(t), *w)).collect();
            // An infinity or NaN of the footprint reaches the result even at weight 0 (as
            // measured in 2D); not measured here.
            if plane.iter().any(|(t, _, on)| *on && !value(t).is_finite()) {
                let why =
                    format!("linear filtering {what} of infinite or NaN texels (not measured)");
                return Err(unsupported(cx, &why));
            }
            // A plane whose texels are all zero adds nothing (measured: lods between a level
            // of zeros and one of ones read the fraction exactly).
            sums.extend(trilinear::level_sum(&texels));
        }
        // Zeros and subnormals (flushed) of negative sign.
        let negative_zero = |t: f32| (t == 0.0 || t.is_subnormal()) && t.is_sign_negative();
        let mut foot = taps
            .iter()
            .flatten()
            .filter(|tap| tap.2)
            .map(|tap| value(&tap.0));
        *v = if !sums.is_empty() {
            trilinear::blend_f32(&sums).to_bits()
        } else if !foot.clone().any(negative_zero) {
            0
        } else if !zero_sign {
            let why = format!("linear filtering {what} of zeros, some negative (the sign of the result was not measured)");
            return Err(unsupported(cx, &why));
        } else if foot.all(negative_zero) {
            (-0.0f32).to_bits()
        } else {
            0
        };
    }
    Ok(out)
}

/// The point-sampled texel at texel coordinates `c`.
fn point(
    cx: &Ctx<'_, '_>,
    o: &TexObject,
    c: &[f64],
    site: Site,
    lane: usize,
    ranges: &mut TexRanges,
) -> Res<[u8; 16]> {
    let mut pos = [0i64; 3];
    for (p, &v) in pos.iter_mut().zip(c) {
        *p = tx::point_pos(v);
    }
    fetch(cx, o, pos, site, lane, ranges)
}

/// `tld4`'s four texels of one component.
fn gather4(
    cx: &Ctx<'_, '_>,
    o: &TexObject,
    c: &[f64],
    site: Site,
    lane: usize,
    ranges: &mut TexRanges,
) -> Res<[u32; 4]> {
    let comp = match cx.ins.mods.sub {
        Some(SubOp::G) => 1,
        Some(SubOp::FragB) => 2,
        Some(SubOp::FragA) => 3,
        _ => 0,
    };
    let (i, j) = (tx::gather_pos(c[0]), tx::gather_pos(c[1]));
    // Measured order: (i, j+1), (i+1, j+1), (i+1, j), (i, j).
    let mut r = [0u32; 4];
    for (e, (di, dj)) in [(0, 1), (1, 1), (1, 0), (0, 0)].into_iter().enumerate() {
        let t = fetch(cx, o, [i + di, j + dj, 0], site, lane, ranges)?;
        r[e] = tx::channel(o, &t, comp);
    }
    Ok(r)
}

/// Linear filtering: f32 and half texels, or 8/16-bit normalized ones.
fn linear(
    cx: &Ctx<'_, '_>,
    o: &TexObject,
    c: &[f64],
    site: Site,
    lane: usize,
    ranges: &mut TexRanges,
) -> Res<[u32; 4]> {
    if c.len() == 3 {
        return linear_3d(cx, o, c, site, lane, ranges);
    }
    let (i, k) = tx::lerp_pos(c[0]);
    // Each tap: the texel, its weight, whether both its axis weights are nonzero (a NaN or
    // infinity there reaches the result even where the weight rounds to 0).
    let mut taps: Vec<([u8; 16], u32, bool)> = Vec::with_capacity(4);
    // The unit filters a 1D texture as one row of a 2D one sampled at y = 0 (measured): the row
    // above it is the border when the second axis is in border mode, else the row itself (a
    // fetch of a 1D object ignores y).
    let (j, l) = tx::lerp_pos(c.get(1).copied().unwrap_or(0.0));
    let border_row = c.len() == 1 && o.address[1] == tx::AddrMode::Border;
    for ((di, dj), w) in [(0, 0), (1, 0), (0, 1), (1, 1)]
        .into_iter()
        .zip(tx::weights_2d(k, l))
    {
        let t = match border_row && j + dj < 0 {
            true => border_texel(cx, o)?,
            false => fetch(cx, o, [i + di, j + dj, 0], site, lane, ranges)?,
        };
        let x_on = if di == 0 { k < 256 } else { k > 0 };
        let y_on = if dj == 0 { l < 256 } else { l > 0 };
        taps.push((t, w, x_on && y_on));
    }
    let texels: Vec<[u8; 16]> = taps.iter().map(|t| t.0).collect();
    let weights: Vec<u32> = taps.iter().map(|t| t.1).collect();
    let foot: Vec<bool> = taps.iter().map(|t| t.2).collect();
    Ok([0, 1, 2, 3].map(|ch| {
        if o.read_float {
            tx::blend_normalized(o, &texels, &weights, ch).to_bits()
        } else if o.chan == tx::Chan::F16 {
            if ch >= usize::from(o.channels) {
                return 0;
            }
            let vals: Vec<u16> = texels
                .iter()
                .map(|t| u16::from_le_bytes([t[2 * ch], t[2 * ch + 1]]))
                .collect();
            tx::blend_half(&vals, &weights, &foot).to_bits()
        } else {
            let vals: Vec<f32> = texels
                .iter()
                .map(|t| f32::from_bits(tx::channel(o, t, ch)))
                .collect();
            tx::blend(&vals, &weights, &foot).to_bits()
        }
    }))
}

/// Linear filtering of a 3D texture: its two z slices are weighted as two mipmap levels are
/// (measured on an H200: the weights, f32 and u8 blends of `mem::trilinear`, with z in the
/// level weight's place; `scripts/probes/fit_3d.py`).
fn linear_3d(
    cx: &Ctx<'_, '_>,
    o: &TexObject,
    c: &[f64],
    site: Site,
    lane: usize,
    ranges: &mut TexRanges,
) -> Res<[u32; 4]> {
    let size = o.level_size(site.level);
    let pos = |ax: usize| plane_position(o, ax, c, size);
    let (x, y, (k, z)) = (pos(0), pos(1), pos(2));
    let taps = [
        plane_taps(cx, o, [x, y], (k, 256 - z), site, lane, ranges)?,
        plane_taps(cx, o, [x, y], (k + 1, z), site, lane, ranges)?,
    ];
    blend_planes(cx, o, &taps, "of a 3D texture", true)
}

/// The first texel and the fraction (0..=255) along axis `ax` of a plane blend (trilinear and
/// 3D filtering): clamp mode clamps the coordinate to the edge texels' centres first; the other
/// modes fold the texel indices (or send them to the border) after, except that unnormalized
/// coordinates clamp in wrap and mirror modes too (`texture::resolve`).
fn plane_position(o: &TexObject, ax: usize, c: &[f64], size: [u32; 3]) -> (i64, u32) {
    match (o.address[ax], o.normalized) {
        (tx::AddrMode::Clamp, _) | (tx::AddrMode::Wrap | tx::AddrMode::Mirror, false) => {
            trilinear::position(c[ax], size[ax])
        }
        _ => trilinear::position_free(c[ax]),
    }
}

/// The four texels of one plane (z index `z`, weight `weight`) at positions `(i, a)`, `(j, b)`,
/// with their `trilinear::weights` and whether each is in the footprint (all its axis weights
/// nonzero).
fn plane_taps(
    cx: &Ctx<'_, '_>,
    o: &TexObject,
    [(i, a), (j, b)]: [(i64, u32); 2],
    (z, weight): (i64, u32),
    site: Site,
    lane: usize,
    ranges: &mut TexRanges,
) -> Res<Vec<([u8; 16], u32, bool)>> {
    let mut taps = Vec::with_capacity(4);
    let w = trilinear::weights(a, b, weight);
    for ((di, dj), w) in [(0, 0), (1, 0), (0, 1), (1, 1)].into_iter().zip(w) {
        let t = fetch(cx, o, [i + di, j + dj, z], site, lane, ranges)?;
        let on = (di == 0 || a > 0) && (dj == 0 || b > 0) && weight > 0;
        taps.push((t, w, on));
    }
    Ok(taps)
}

/// The border colour as a texel of the object's format: f32 texels hold it as it is; 8- and
/// 16-bit ones read as normalized floats as the unit converts it (`texture::border_texel`;
/// point sampling reads the converted texel too, measured). Other formats only with a zero
/// colour (not measured).
fn border_texel(cx: &Ctx<'_, '_>, o: &TexObject) -> Res<[u8; 16]> {
    let mut t = [0u8; 16];
    if o.chan == tx::Chan::F32 {
        for (ch, bits) in o.border.iter().enumerate().take(usize::from(o.channels)) {
            t[4 * ch..4 * ch + 4].copy_from_slice(&bits.to_le_bytes());
        }
        return Ok(t);
    }
    if o.border == [0; 4] {
        return Ok(t);
    }
    tx::border_texel(o).ok_or_else(|| {
        unsupported(
            cx,
            "this border colour in this format (measured: f32 texels; u8, u16 and s16 read as normalized floats, except a NaN colour and u8 colours near halfway between steps)",
        )
    })
}

/// `txq.query.b32 d, [h]` and `suq.query.b32 d, [h]`.
fn query(cx: &mut Ctx<'_, '_>) -> Res<()> {
    let Ok(Some(q)) = cx.func.form(cx.pc).tex() else {
        return Err(unsupported(
            cx,
            "a query whose form was not decoded (a defect of ptxrun)",
        ));
    };
    let surface = cx.ins.op == Op::Suq;
    for lane in lanes(cx.active) {
        let (h, _) = handle_and_coords(cx, 1, lane);
        let o = object(cx, h, lane, surface)?;
        let (axis, need) = match q {
            SubOp::Height => (1, 2),
            SubOp::Depth => (2, 3),
            _ => (0, 1),
        };
        if usize::from(o.ndim) < need || o.layers.is_some() && axis > 0 {
            return Err(unsupported(
                cx,
                "this query of an object with fewer dimensions, or of a layered one, is not measured",
            ));
        }
        cx.dst(0, lane, u64::from(o.size[axis]));
    }
    Ok(())
}

/// `suld.b`, `sust.b`, `sured.b`: byte x coordinate, element y and z (or layer).
fn surface(cx: &mut Ctx<'_, '_>) -> Res<()> {
    let op = cx.ins.op;
    let g = geom(cx);
    let ty = cx.ty();
    let vec = usize::from(cx.ins.mods.vec.max(1));
    let size = ty.size() as usize;
    let access = size * vec;
    let oob = cx.ins.mods.oob().unwrap_or(Oob::Trap);
    let (hk, vk) = if op == Op::Suld { (1, 0) } else { (0, 1) };
    let mut ranges: Ranges<WARP> = Ranges::new();
    for lane in lanes(cx.active) {
        let (h, coords) = handle_and_coords(cx, hk, lane);
        let o = object(cx, h, lane, true)?;
        let (spatial, layer) = split_coords(cx, g, &coords)?;
        let mut c = [0i64; 3];
        for (ax, opd) in spatial.iter().enumerate() {
            c[ax] = i64::from(cx.value(opd, lane, Type::S32) as u32 as i32);
        }
        if c[0].rem_euclid(access as i64) != 0 {
            return Err(lane_fault(
                cx,
                lane,
                FaultKind::Memory,
                format!(
                    "`{}`: misaligned address: x = {} bytes is not a multiple of the {access}-byte access (the H100 fails the launch)",
                    op_name(cx),
                    c[0]
                ),
            ));
        }
        let row_bytes = i64::from(o.size[0]) * o.elem_bytes() as i64;
        let mut limits = [row_bytes - access as i64, i64::from(o.size[1]) - 1, 0];
        limits[2] = i64::from(o.size[2]) - 1;
        let mut layer_v = layer.map_or(0, |l| i64::from(cx.value(&l, lane, Type::U32) as u32));
        let out_of = (0..usize::from(o.ndim)).any(|ax| c[ax] < 0 || c[ax] > limits[ax])
            || o.layers.is_some_and(|n| layer_v >= i64::from(n))
            || limits[0] < 0;
        if out_of {
            match oob {
                Oob::Trap => {
                    return Err(lane_fault(
                        cx,
                        lane,
                        FaultKind::Memory,
                        format!(
                            "`{}`: surface coordinates ({}, {}, {}) out of bounds (.trap)",
                            op_name(cx),
                            c[0],
                            c[1],
                            c[2]
                        ),
                    ))
                }
                Oob::Zero => {
                    if op == Op::Suld {
                        for e in 0..vec {
                            set_elem(cx, 0, e, lane, 0);
                        }
                    }
                    continue;
                }
                Oob::Clamp => {
                    for ax in 0..usize::from(o.ndim) {
                        c[ax] = c[ax].clamp(0, limits[ax].max(0));
                    }
                    c[0] -= c[0].rem_euclid(access as i64);
                    if let Some(n) = o.layers {
                        layer_v = layer_v.min(i64::from(n) - 1);
                    }
                }
            }
        }
        let z = if o.layers.is_some() { layer_v } else { c[2] } as u32;
        let addr = o.base + o.offset(0, c[1] as u32, z) + c[0] as u64;
        let tg = Target::Global(addr);
        let mut buf = [0u8; 32];
        let bytes = &mut buf[..access];
        match op {
            Op::Suld => {
                read(cx, tg, lane, bytes).map_err(|e| mem_fault(e, thread_of(cx, lane)))?;
                for e in 0..vec {
                    let v = le(&bytes[e * size..(e + 1) * size]);
                    set_elem(cx, 0, e, lane, v);
                }
            }
            Op::Sust => {
                for e in 0..vec {
                    let v = get_elem(cx, vk, e, lane, ty);
                    bytes[e * size..(e + 1) * size].copy_from_slice(&v.to_le_bytes()[..size]);
                }
                write(cx, tg, lane, bytes).map_err(|e| mem_fault(e, thread_of(cx, lane)))?;
            }
            _ => {
                read(cx, tg, lane, bytes).map_err(|e| mem_fault(e, thread_of(cx, lane)))?;
                let old = le(bytes);
                let v = get_elem(cx, vk, 0, lane, ty);
                let new = reduce(cx.ins.mods.sub2, ty, old, v);
                let nb = new.to_le_bytes();
                write(cx, tg, lane, &nb[..size]).map_err(|e| mem_fault(e, thread_of(cx, lane)))?;
            }
        }
        ranges.add(tg, access, lane);
    }
    if cx.hb.is_some() {
        // (write, read)
        let access = match op {
            Op::Suld => (false, true),
            Op::Sust => (true, false),
            _ => (true, true),
        };
        ranges.check(cx, access, op == Op::Sured);
    }
    Ok(())
}

fn le(b: &[u8]) -> u64 {
    b.iter().rev().fold(0u64, |a, &x| (a << 8) | u64::from(x))
}

/// `sured`'s operation on the element's old value.
fn reduce(op: Option<SubOp>, ty: Type, old: u64, v: u64) -> u64 {
    let wide = ty.size() == 8;
    let signed = matches!(ty, Type::S32 | Type::S64);
    let sx = |x: u64| {
        if wide {
            x as i64
        } else {
            i64::from(x as u32 as i32)
        }
    };
    let zx = |x: u64| if wide { x } else { x & 0xffff_ffff };
    let r = match op {
        Some(SubOp::Add) => old.wrapping_add(v),
        Some(SubOp::Min) if signed => sx(old).min(sx(v)) as u64,
        Some(SubOp::Max) if signed => sx(old).max(sx(v)) as u64,
        Some(SubOp::Min) => zx(old).min(zx(v)),
        Some(SubOp::Max) => zx(old).max(zx(v)),
        Some(SubOp::And) => old & v,
        Some(SubOp::Or) => old | v,
        _ => old,
    };
    zx(r)
}
