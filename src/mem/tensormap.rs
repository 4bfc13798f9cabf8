//! Tensor maps: the 128-byte `CUtensorMap` that `cp.async.bulk.tensor` reads (PTX ISA 9.0
//! section 5.5 "Tensors", 9.7.9.25.5). NVIDIA does not document the object's layout, so ptxrun
//! encodes its own: a launch file's `tensormap` parameter (the arguments of
//! `cuTensorMapEncodeTiled`) becomes these 128 bytes in the kernel's parameter buffer, and the
//! tensor instructions decode them. A map in im2col mode carries its bounding box and column
//! shape too (`mem::im2col`, which lays out its columns). In tile mode, a box of
//! `ceil(box[i] / elementStride[i])`
//! elements per dimension (the stride of dimension 0 is ignored, as TMA does), laid out densely
//! in shared memory with dimension 0 fastest; elements outside the tensor read as zero (or the
//! NaN of `oob_fill = "nan"`) and are not written by stores; 16-byte chunks are swizzled by
//! XOR-ing bits [4..] of the shared-memory offset with bits [7..] (32B: 1 bit, 64B: 2, 128B: 3).
//! Where the PTX text is silent the behaviour is what an H100 does (measured, see
//! `ptx-samples/tensor/README.md`): the NaN fill is the 16-bit pattern 0x7FF7 repeated, and
//! stores clip dimension 0 at 16-byte granularity rather than per element.
//!
//! f32 maps come in the flavours of `CU_TENSOR_MAP_DATA_TYPE_FLOAT32_FTZ`, `TFLOAT32` and
//! `TFLOAT32_FTZ` ([`F32Mode`]); what each does, measured on an H100
//! (docs/launch/tensormap-replace.md): loads through a tf32 map round each f32 to tf32 (nearest
//! even, every NaN 0x7fffe000; the out-of-bounds fill is not rounded), add-reductions through an
//! FTZ map flush subnormal operands and results, stores copy the bytes.

use crate::ir::Type;

/// Size of the object.
pub const SIZE: usize = 128;
const MAGIC: &[u8; 4] = b"ptxr";
const NOT_A_MAP: &str = "these 128 bytes are not a tensor map (declare it in the launch file as a `tensormap` parameter, or build it from 128 zero bytes with `tensormap.replace`)";

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Swizzle {
    None,
    B32,
    B64,
    B128,
}

impl Swizzle {
    /// Bits of the 16-byte chunk index that are XOR-ed with the 128-byte row index.
    fn bits(self) -> u64 {
        match self {
            Swizzle::None => 0,
            Swizzle::B32 => 1,
            Swizzle::B64 => 3,
            Swizzle::B128 => 7,
        }
    }

    /// Span of the pattern in bytes (the inner box dimension may not exceed it).
    pub fn span(self) -> u64 {
        match self {
            Swizzle::None => u64::MAX,
            Swizzle::B32 => 32,
            Swizzle::B64 => 64,
            Swizzle::B128 => 128,
        }
    }

    /// Where byte `off` of a shared-memory tile really lives.
    pub fn apply(self, off: u64) -> u64 {
        off ^ (((off >> 7) & self.bits()) << 4)
    }
}

/// The flavour of an f32 map (`CU_TENSOR_MAP_DATA_TYPE_FLOAT32` and the three after BFLOAT16).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub enum F32Mode {
    #[default]
    Plain,
    Ftz,
    Tf32,
    Tf32Ftz,
}

impl F32Mode {
    /// Loads round each element to tf32.
    pub fn tf32(self) -> bool {
        matches!(self, F32Mode::Tf32 | F32Mode::Tf32Ftz)
    }

    /// Add-reductions flush subnormal operands and results to zero.
    pub fn ftz(self) -> bool {
        matches!(self, F32Mode::Ftz | F32Mode::Tf32Ftz)
    }

    /// The launch file's name of the map type (`f32`, `f32_ftz`, `tf32`, `tf32_ftz`).
    pub fn name(self) -> &'static str {
        ["f32", "f32_ftz", "tf32", "tf32_ftz"][self as usize]
    }

    /// The mode a launch file's map type names, if it is an f32 flavour.
    pub fn parse(name: &str) -> Option<F32Mode> {
        [
            F32Mode::Plain,
            F32Mode::Ftz,
            F32Mode::Tf32,
            F32Mode::Tf32Ftz,
        ]
        .into_iter()
        .find(|m| m.name() == name)
    }
}

/// A decoded tensor map (the arguments of `cuTensorMapEncodeTiled`).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct TensorMap {
    pub elem: Type,
    pub rank: usize,
    pub addr: u64,
    /// Elements per dimension, innermost first.
    pub dims: [u64; 5],
    /// Byte stride of each dimension (`strides[0]` is the element size).
    pub strides: [u64; 5],
    pub boxdim: [u32; 5],
    pub estrides: [u32; 5],
    pub swizzle: Swizzle,
    pub nan_fill: bool,
    /// For `elem` f32: the map's flavour (plain for every other type).
    pub f32_mode: F32Mode,
    /// `Some` for a map in im2col mode (`cuTensorMapEncodeIm2col`; `boxdim` is then unused).
    pub im2col: Option<Im2col>,
}

/// `CUtensorMapDataType` codes of the element types ptxrun supports.
const TYPES: &[(u8, Type)] = &[
    (0, Type::U8),
    (1, Type::U16),
    (2, Type::U32),
    (3, Type::S32),
    (4, Type::U64),
    (5, Type::S64),
    (6, Type::F16),
    (7, Type::F32),
    (8, Type::F64),
    (9, Type::Bf16),
];

impl TensorMap {
    /// The element type a `tensormap.replace` `.elemtype` value names (PTX ISA 9.0 section
    /// 9.7.9.27's table, whose order is not `CUtensorMapDataType`'s; measured on an H100 for
    /// 2, 6 and 8 to 12): 0 u8, 1 u16, 2 u32, 3 s32, 4 u64, 5 s64, 6 f16, 7 f32, 8 f32 with ftz,
    /// 9 f64, 10 bf16, 11 tf32, 12 tf32 with ftz. 13 to 15 are sm_100's packed types: `None`.
    pub fn elem_of_ptx_code(code: u64) -> Option<(Type, F32Mode)> {
        let ty = [
            Type::U8,
            Type::U16,
            Type::U32,
            Type::S32,
            Type::U64,
            Type::S64,
            Type::F16,
            Type::F32,
            Type::F32,
            Type::F64,
            Type::Bf16,
            Type::F32,
            Type::F32,
        ];
        let mode = match code {
            8 => F32Mode::Ftz,
            11 => F32Mode::Tf32,
            12 => F32Mode::Tf32Ftz,
            _ => F32Mode::Plain,
        };
        ty.get(usize::try_from(code).ok()?).map(|t| (*t, mode))
    }

    /// Checks the rules `cuTensorMapEncodeTiled` (or `cuTensorMapEncodeIm2col`) enforces; the
    /// message names what is wrong.
    pub fn validate(&self) -> Result<(), String> {
        let es = u64::from(self.elem.size());
        if !(1..=5).contains(&self.rank) {
            return Err(format!("rank {} is outside 1..5", self.rank));
        }
        if !TYPES.iter().any(|(_, t)| *t == self.elem) {
            return Err(format!(
                "element type .{} cannot be a tensor map's",
                self.elem
            ));
        }
        if !self.addr.is_multiple_of(16) {
            return Err("the global address must be 16-byte aligned".into());
        }
        for i in 0..self.rank {
            if self.dims[i] == 0 || self.dims[i] > 1 << 32 {
                return Err(format!("dims[{i}] = {} is outside 1..2^32", self.dims[i]));
            }
            if self.im2col.is_none() && !(1..=256).contains(&self.boxdim[i]) {
                return Err(format!("box[{i}] = {} is outside 1..256", self.boxdim[i]));
            }
            if !(1..=8).contains(&self.estrides[i]) {
                return Err(format!(
                    "element_strides[{i}] = {} is outside 1..8",
                    self.estrides[i]
                ));
            }
            if i > 0 && (!self.strides[i].is_multiple_of(16) || self.strides[i] >= 1 << 40) {
                return Err(format!(
                    "strides[{}] = {} must be a multiple of 16 below 2^40",
                    i - 1,
                    self.strides[i]
                ));
            }
        }
        // An im2col map's rows (channels) are checked by `Im2col::validate` below.
        let inner = u64::from(self.boxdim[0]) * es;
        if self.im2col.is_none() && !inner.is_multiple_of(16) {
            return Err(format!(
                "box[0] * element size = {inner} bytes must be a multiple of 16"
            ));
        }
        if self.im2col.is_none() && inner > self.swizzle.span() {
            return Err(format!(
                "the inner box ({inner} bytes) exceeds the {}-byte swizzle span",
                self.swizzle.span()
            ));
        }
        if self.f32_mode != F32Mode::Plain && self.elem != Type::F32 {
            return Err(format!(
                "a {} map holds f32 elements, not .{}",
                self.f32_mode.name(),
                self.elem
            ));
        }
        if self.nan_fill && !self.elem.is_float() {
            return Err("oob_fill = \"nan\" needs a floating-point element type".into());
        }
        if let Some(ic) = &self.im2col {
            ic.validate(self)?;
        }
        Ok(())
    }

    /// Bytes of the whole tensor as its strides lay it out (for bounds checks).
    pub fn extent(&self) -> u64 {
        (0..self.rank)
            .map(|i| (self.dims[i] - 1) * self.strides[i])
            .sum::<u64>()
            + u64::from(self.elem.size())
    }

    /// Elements of the box along dimension `i`.
    pub fn box_elems(&self, i: usize) -> u64 {
        if i >= self.rank {
            return 1;
        }
        let es = if i == 0 { 1 } else { self.estrides[i] };
        u64::from(self.boxdim[i].div_ceil(es))
    }

    /// Bytes from one row of a tile box (its dimension 0) to the next in shared memory. A
    /// swizzled tile's rows are the swizzle span apart even when the box row is narrower
    /// (measured on an H100: 75 loads with 16- to 64-byte rows under 32B, 64B and 128B
    /// swizzles; the rest of each span is left alone and not counted in the tx bytes).
    pub fn row_pitch(&self) -> u64 {
        let row = self.box_elems(0) * u64::from(self.elem.size());
        match self.swizzle {
            Swizzle::None => row,
            s => row.max(s.span()),
        }
    }

    /// Bytes of shared memory a box (or im2col column) spans: [`box_bytes`](Self::box_bytes)
    /// plus the unwritten tail of each row of a narrow swizzled box.
    pub fn footprint(&self) -> u64 {
        if let Some(ic) = &self.im2col {
            return ic.footprint(self);
        }
        (1..5).map(|i| self.box_elems(i)).product::<u64>() * self.row_pitch()
    }

    /// Bytes of one box (or im2col column) in shared memory (the tx bytes of a load).
    pub fn box_bytes(&self) -> u64 {
        if let Some(ic) = &self.im2col {
            return ic.tile_bytes(self.elem.size());
        }
        (0..5).map(|i| self.box_elems(i)).product::<u64>() * u64::from(self.elem.size())
    }

    pub fn encode(&self) -> [u8; SIZE] {
        let mut b = [0u8; SIZE];
        b[..4].copy_from_slice(MAGIC);
        b[4] = 1;
        b[5] = self.rank as u8;
        b[6] = TYPES
            .iter()
            .find(|(_, t)| *t == self.elem)
            .map_or(255, |(c, _)| *c);
        b[7] = match self.swizzle {
            Swizzle::None => 0,
            Swizzle::B32 => 1,
            Swizzle::B64 => 2,
            Swizzle::B128 => 3,
        };
        b[8] = u8::from(self.nan_fill);
        b[10] = self.f32_mode as u8;
        if let Some(ic) = &self.im2col {
            b[9] = 1;
            ic.encode(&mut b[SIZE - Im2col::BYTES..]);
        }
        b[16..24].copy_from_slice(&self.addr.to_le_bytes());
        for i in 0..5 {
            b[24 + 8 * i..32 + 8 * i].copy_from_slice(&self.dims[i].to_le_bytes());
        }
        for i in 1..5 {
            b[56 + 8 * i..64 + 8 * i].copy_from_slice(&self.strides[i].to_le_bytes());
        }
        for i in 0..5 {
            b[96 + 2 * i..98 + 2 * i].copy_from_slice(&(self.boxdim[i] as u16).to_le_bytes());
            b[106 + i] = self.estrides[i] as u8;
        }
        b
    }

    /// Decodes 128 bytes that [`encode`](Self::encode) wrote, and checks the map.
    pub fn decode(b: &[u8]) -> Result<TensorMap, String> {
        if !Self::encoded(b) {
            return Err(NOT_A_MAP.into());
        }
        let m = Self::decode_fields(b)?;
        m.validate()?;
        Ok(m)
    }

    fn encoded(b: &[u8]) -> bool {
        b.len() >= SIZE && &b[..4] == MAGIC && b[4] == 1
    }

    /// The map 128 zero bytes are. A kernel may build a map from nothing: Triton's
    /// `tl.make_tensor_descriptor` zeroes 128 bytes of shared memory and sets each field with
    /// `tensormap.replace`. In NVIDIA's encoding the rank, sizes, boxes and element strides are
    /// stored minus one, and element type 0 is u8, swizzle 0 none, fill 0 zero, interleave 0
    /// none (docs/launch/tensormap-replace.md, measured on an H100 and an H200), so zero bytes
    /// are a rank-1 u8 map of one element at address 0, box 1, which no copy may use until its
    /// fields are set.
    pub fn blank() -> TensorMap {
        TensorMap {
            elem: Type::U8,
            rank: 1,
            addr: 0,
            dims: [1; 5],
            strides: [1, 0, 0, 0, 0],
            boxdim: [1; 5],
            estrides: [1; 5],
            swizzle: Swizzle::None,
            nan_fill: false,
            f32_mode: F32Mode::Plain,
            im2col: None,
        }
    }

    /// Decodes 128 bytes that [`encode`](Self::encode) wrote, or 128 zero bytes (the
    /// [`blank`](Self::blank) map), without checking the map: a map edited field by field
    /// (`tensormap.replace`) may pass through states no copy may use.
    pub fn decode_fields(b: &[u8]) -> Result<TensorMap, String> {
        if b.len() >= SIZE && b[..SIZE].iter().all(|&x| x == 0) {
            return Ok(Self::blank());
        }
        if !Self::encoded(b) {
            return Err(NOT_A_MAP.into());
        }
        let u64_at = |o: usize| super::read_le(&b[o..o + 8]);
        let elem = TYPES
            .iter()
            .find(|(c, _)| *c == b[6])
            .map(|(_, t)| *t)
            .ok_or("unknown tensor element type")?;
        let mut m = TensorMap {
            elem,
            rank: usize::from(b[5]),
            addr: u64_at(16),
            dims: [1; 5],
            strides: [0; 5],
            boxdim: [1; 5],
            estrides: [1; 5],
            swizzle: match b[7] {
                1 => Swizzle::B32,
                2 => Swizzle::B64,
                3 => Swizzle::B128,
                _ => Swizzle::None,
            },
            nan_fill: b[8] != 0,
            f32_mode: match b[10] {
                1 => F32Mode::Ftz,
                2 => F32Mode::Tf32,
                3 => F32Mode::Tf32Ftz,
                _ => F32Mode::Plain,
            },
            im2col: (b[9] == 1).then(|| Im2col::decode(&b[SIZE - Im2col::BYTES..])),
        };
        m.strides[0] = u64::from(elem.size());
        for i in 0..5 {
            m.dims[i] = u64_at(24 + 8 * i);
            m.boxdim[i] = u32::from(u16::from_le_bytes([b[96 + 2 * i], b[97 + 2 * i]]));
            m.estrides[i] = u32::from(b[106 + i]);
        }
        for i in 1..5 {
            m.strides[i] = u64_at(56 + 8 * i);
        }
        Ok(m)
    }

    /// The bytes an out-of-bounds element reads as (its low `elem.size()` bytes): zero, or for
    /// `oob_fill = "nan"` the pattern 0x7FF7 repeated, as an H100 fills (0x7FF77FF7 for f32).
    pub fn fill(&self) -> u64 {
        if self.nan_fill {
            0x7ff7_7ff7_7ff7_7ff7
        } else {
            0
        }
    }

    /// Elements of dimension 0 that a store may write: up to the next 16 bytes past the end of
    /// a row (an H100 clips stores at 16-byte granularity).
    pub fn store_dim0(&self) -> u64 {
        let es = u64::from(self.elem.size());
        (self.dims[0] * es).next_multiple_of(16) / es
    }

    /// Every element of the box at `coords`, in shared-memory order: its byte offset in the
    /// (unswizzled) tile and its global address, or `None` when outside the tensor.
    pub fn for_each(&self, coords: &[i64], f: impl FnMut(u64, Option<u64>)) {
        self.for_each_within(coords, self.dims[0], f);
    }

    /// As [`for_each`](Self::for_each), with dimension 0 bounded by `dim0` elements.
    fn for_each_within(&self, coords: &[i64], dim0: u64, mut f: impl FnMut(u64, Option<u64>)) {
        let n: [u64; 5] = std::array::from_fn(|i| self.box_elems(i));
        let es = u64::from(self.elem.size());
        let step: [i64; 5] = std::array::from_fn(|i| {
            if i == 0 {
                1
            } else {
                i64::from(self.estrides[i])
            }
        });
        let pitch = self.row_pitch();
        let mut row = 0u64;
        for k4 in 0..n[4] {
            for k3 in 0..n[3] {
                for k2 in 0..n[2] {
                    for k1 in 0..n[1] {
                        let mut off = row;
                        row += pitch;
                        for k0 in 0..n[0] {
                            let k = [k0, k1, k2, k3, k4];
                            let mut addr = Some(self.addr);
                            for i in 0..self.rank {
                                let c = coords.get(i).copied().unwrap_or(0) + k[i] as i64 * step[i];
                                let bound = if i == 0 { dim0 } else { self.dims[i] };
                                addr = match addr {
                                    Some(a) if c >= 0 && (c as u64) < bound => {
                                        Some(a + c as u64 * self.strides[i])
                                    }
                                    _ => None,
                                };
                            }
                            f(off, addr);
                            off += es;
                        }
                    }
                }
            }
        }
    }

    /// Runs of the box at `coords` for a tile at shared offset `base`: (global address or
    /// `None` for out-of-bounds fill, swizzled shared offset, bytes), merged where both sides
    /// are contiguous. `store` bounds dimension 0 as stores do ([`store_dim0`](Self::store_dim0)).
    pub fn runs(&self, coords: &[i64], base: u64, store: bool) -> Vec<(Option<u64>, u64, u32)> {
        let es = self.elem.size();
        let dim0 = if store {
            self.store_dim0()
        } else {
            self.dims[0]
        };
        let mut out: Vec<(Option<u64>, u64, u32)> = Vec::new();
        self.for_each_within(coords, dim0, |off, g| {
            push_run(&mut out, g, self.swizzle.apply(base + off), es);
        });
        out
    }
}

/// Appends `len` bytes between global `g` (`None`: fill) and shared offset `s` to `out`,
/// merging with the last run where both sides are contiguous.
pub(super) fn push_run(out: &mut Vec<(Option<u64>, u64, u32)>, g: Option<u64>, s: u64, len: u32) {
    if let Some((lg, ls, l)) = out.last_mut() {
        let contiguous = *ls + u64::from(*l) == s
            && match (*lg, g) {
                (Some(a), Some(b)) => a + u64::from(*l) == b,
                (None, None) => true,
                _ => false,
            };
        if contiguous {
            *l += len;
            return;
        }
    }
    out.push((g, s, len));
}

/// The im2col part of a tensor map.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub struct Im2col {
    /// `pixelBoxLowerCorner`, W first (rank - 2 entries used).
    pub lower: [i32; 3],
    /// `pixelBoxUpperCorner`, W first.
    pub upper: [i32; 3],
    /// `channelsPerPixel`.
    pub channels: u32,
    /// `pixelsPerColumn`.
    pub pixels: u32,
}

/// The range a corner may take in a map of `rank` dimensions (what `cuTensorMapEncodeIm2col`
/// accepts).
pub fn corner_range(rank: usize) -> (i32, i32) {
    match rank {
        3 => (-32768, 32767),
        4 => (-128, 127),
        _ => (-16, 15),
    }
}

impl Im2col {
    /// Bytes of the 128-byte map this part takes (see [`TensorMap::encode`]).
    pub const BYTES: usize = 16;

    pub fn encode(&self, b: &mut [u8]) {
        b[0..2].copy_from_slice(&(self.channels as u16).to_le_bytes());
        b[2..4].copy_from_slice(&(self.pixels as u16).to_le_bytes());
        for i in 0..3 {
            b[4 + 2 * i..6 + 2 * i].copy_from_slice(&(self.lower[i] as i16).to_le_bytes());
            b[10 + 2 * i..12 + 2 * i].copy_from_slice(&(self.upper[i] as i16).to_le_bytes());
        }
    }

    pub fn decode(b: &[u8]) -> Im2col {
        let u16_at = |o: usize| u16::from_le_bytes([b[o], b[o + 1]]);
        Im2col {
            channels: u32::from(u16_at(0)),
            pixels: u32::from(u16_at(2)),
            lower: std::array::from_fn(|i| i32::from(u16_at(4 + 2 * i) as i16)),
            upper: std::array::from_fn(|i| i32::from(u16_at(10 + 2 * i) as i16)),
        }
    }

    /// Checks what `cuTensorMapEncodeIm2col` checks beyond a tile map's dims and strides; the
    /// message starts with the argument at fault.
    pub fn validate(&self, m: &TensorMap) -> Result<(), String> {
        if !(3..=5).contains(&m.rank) {
            return Err(format!(
                "an im2col tensor map has 3 to 5 dimensions (NWC, NHWC, NDHWC), not {}",
                m.rank
            ));
        }
        let (lo, hi) = corner_range(m.rank);
        for i in 0..m.rank - 2 {
            for (name, v) in [
                ("lower_corner", self.lower[i]),
                ("upper_corner", self.upper[i]),
            ] {
                if !(lo..=hi).contains(&v) {
                    return Err(format!(
                        "{name}[{i}] = {v} is outside {lo}..{hi} (the range of a rank-{} map)",
                        m.rank
                    ));
                }
            }
        }
        for i in 0..m.rank - 2 {
            let (lo, hi) = self.bounds(m, i);
            if hi < lo {
                return Err(format!(
                    "lower_corner[{i}] = {} and upper_corner[{i}] = {} leave no pixel in dimension {} of {} elements (the box spans lower_corner .. dims - 1 + upper_corner)",
                    self.lower[i],
                    self.upper[i],
                    i + 1,
                    m.dims[i + 1]
                ));
            }
        }
        if !(1..=256).contains(&self.channels) {
            return Err(format!(
                "channels_per_pixel = {} is outside 1..256",
                self.channels
            ));
        }
        if !(1..=1024).contains(&self.pixels) {
            return Err(format!(
                "pixels_per_column = {} is outside 1..1024",
                self.pixels
            ));
        }
        let row = u64::from(self.channels) * u64::from(m.elem.size());
        if !row.is_multiple_of(16) {
            return Err(format!(
                "channels_per_pixel * element size = {row} bytes must be a multiple of 16"
            ));
        }
        if row > m.swizzle.span() {
            return Err(format!(
                "channels_per_pixel * element size = {row} bytes exceeds the {}-byte swizzle span",
                m.swizzle.span()
            ));
        }
        Ok(())
    }

    /// The bounding box in spatial dimension `i` (0: W), both ends included.
    pub fn bounds(&self, m: &TensorMap, i: usize) -> (i64, i64) {
        let lo = i64::from(self.lower[i]);
        (lo, m.dims[1 + i] as i64 - 1 + i64::from(self.upper[i]))
    }

    /// Bytes from one pixel's row of the tile to the next: each pixel starts a row, and a
    /// swizzled tile's rows are the swizzle span apart even when the pixel is narrower (measured:
    /// the H100 leaves the rest of the row alone, and counts only the pixels' bytes).
    pub fn pitch(&self, m: &TensorMap) -> u64 {
        match m.swizzle {
            Swizzle::None => u64::from(self.channels) * u64::from(m.elem.size()),
            s => s.span(),
        }
    }

    /// Bytes of shared memory the tile spans.
    pub fn footprint(&self, m: &TensorMap) -> u64 {
        u64::from(self.pixels) * self.pitch(m)
    }

    /// Bytes of one column in shared memory (the tx bytes of a load).
    pub fn tile_bytes(&self, elem_size: u32) -> u64 {
        u64::from(self.channels) * u64::from(self.pixels) * u64::from(elem_size)
    }
}

/// A tile map for tests: f32 64x40 at 0x1000, rows 256 bytes apart, a 32x8 box.
#[cfg(test)]
pub(crate) fn map2d(swizzle: Swizzle) -> TensorMap {
    TensorMap {
        elem: Type::F32,
        rank: 2,
        addr: 0x1000,
        dims: [64, 40, 1, 1, 1],
        strides: [4, 256, 0, 0, 0],
        boxdim: [32, 8, 1, 1, 1],
        estrides: [1; 5],
        swizzle,
        nan_fill: false,
        f32_mode: F32Mode::Plain,
        im2col: None,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn round_trip() {
        let m = map2d(Swizzle::B128);
        assert_eq!(TensorMap::decode(&m.encode()).unwrap(), m);
        assert!(TensorMap::decode(&[0u8; 128]).is_err());
        assert_eq!(m.box_bytes(), 32 * 8 * 4);
        let mut t = map2d(Swizzle::B128);
        t.f32_mode = F32Mode::Tf32Ftz;
        assert_eq!(TensorMap::decode(&t.encode()).unwrap(), t);
        t.elem = Type::F16;
        assert!(t.validate().unwrap_err().contains("tf32_ftz map holds f32"));
    }

    #[test]
    fn ptx_elemtype_codes_are_not_the_driver_enum() {
        let e = TensorMap::elem_of_ptx_code;
        assert_eq!(e(8), Some((Type::F32, F32Mode::Ftz)));
        assert_eq!(e(9), Some((Type::F64, F32Mode::Plain)));
        assert_eq!(e(10), Some((Type::Bf16, F32Mode::Plain)));
        assert_eq!(e(12), Some((Type::F32, F32Mode::Tf32Ftz)));
        assert_eq!(e(13), None);
        assert_eq!(F32Mode::parse("tf32"), Some(F32Mode::Tf32));
        assert_eq!(F32Mode::parse("bf16"), None);
    }

    #[test]
    fn validation_names_the_rule() {
        let mut m = map2d(Swizzle::B64);
        assert!(m.validate().unwrap_err().contains("swizzle span"));
        m.swizzle = Swizzle::None;
        m.boxdim[0] = 3;
        assert!(m.validate().unwrap_err().contains("multiple of 16"));
    }

    #[test]
    fn out_of_bounds_rows_are_fill_runs() {
        let m = map2d(Swizzle::None);
        let runs = m.runs(&[48, 36], 0, false);
        // Each of the 8 rows: 16 elements in bounds, 16 beyond dims[0]; rows 36..39 in, 40.. out.
        assert_eq!(runs[0], (Some(0x1000 + 36 * 256 + 48 * 4), 0, 64));
        assert_eq!(runs[1], (None, 64, 64));
        let total: u32 = runs.iter().map(|r| r.2).sum();
        assert_eq!(u64::from(total), m.box_bytes());
        assert!(runs.iter().skip(7).all(|r| r.0.is_none()));
    }

    #[test]
    fn swizzle_permutes_chunks_within_rows() {
        assert_eq!(Swizzle::B128.apply(0), 0);
        assert_eq!(Swizzle::B128.apply(128), 128 + 16);
        assert_eq!(Swizzle::B128.apply(7 * 128 + 16), 7 * 128 + (16 ^ 0x70));
        assert_eq!(Swizzle::B32.apply(128 + 4), 128 + 16 + 4);
        assert_eq!(Swizzle::B64.apply(3 * 128), 3 * 128 + 48);
    }

    /// Measured on an H100 (docs/launch/tile-narrow-rows.md): a swizzled box whose rows are
    /// narrower than the span puts each row at the start of its own span.
    #[test]
    fn narrow_swizzled_rows_are_the_span_apart() {
        let mut m = map2d(Swizzle::B128);
        m.boxdim[0] = 8; // 32-byte rows
        assert_eq!(
            (m.row_pitch(), m.footprint(), m.box_bytes()),
            (128, 1024, 256)
        );
        let runs = m.runs(&[0, 0], 0, false);
        // Row 1 starts at 128, its 16-byte chunks XOR-ed with row 1.
        assert_eq!(runs[0], (Some(0x1000), 0, 32));
        assert_eq!(runs[1], (Some(0x1000 + 256), 128 + 16, 16));
        assert_eq!(runs[2], (Some(0x1000 + 256 + 16), 128, 16));
        let total: u32 = runs.iter().map(|r| r.2).sum();
        assert_eq!(u64::from(total), m.box_bytes());
        m.swizzle = Swizzle::None;
        assert_eq!((m.row_pitch(), m.footprint()), (32, 256));
    }

    #[test]
    fn stores_clip_rows_at_16_bytes() {
        let mut m = map2d(Swizzle::None);
        m.elem = Type::U16;
        m.strides[0] = 2;
        m.dims[0] = 20;
        m.boxdim[0] = 32;
        assert_eq!(m.store_dim0(), 24);
        let loads = m.runs(&[0, 0], 0, false);
        let stores = m.runs(&[0, 0], 0, true);
        assert_eq!((loads[0].2, stores[0].2), (40, 48));
        assert_eq!(m.fill(), 0);
        m.nan_fill = true;
        assert_eq!(m.fill() as u32, 0x7ff7_7ff7);
    }

    #[test]
    fn element_strides_skip_outer_elements() {
        let mut m = map2d(Swizzle::None);
        m.estrides = [2, 2, 1, 1, 1];
        assert_eq!(m.box_elems(0), 32, "dimension 0 ignores its stride");
        assert_eq!(m.box_elems(1), 4);
        let runs = m.runs(&[0, 0], 0, false);
        assert_eq!(runs[1].0, Some(0x1000 + 2 * 256));
    }
}
