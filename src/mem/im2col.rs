//! Tensor maps in im2col mode (PTX ISA 9.0 section 5.5.1.3 "Im2col mode", 9.7.9.25.5.1
//! `cp.async.bulk.tensor`): the tensor is a batch of images, NWC (rank 3), NHWC (rank 4) or NDHWC
//! (rank 5), dimension 0 the channels and the last the batch. The map holds what
//! `cuTensorMapEncodeIm2col` takes beyond a tile map's dims and strides: the bounding box's
//! lower and upper corners in the spatial dimensions (W first; signed, 16 bits for rank 3, 8 for
//! rank 4, 5 for rank 5), the channels per pixel and the pixels per column. A load gathers a
//! column of `pixels` pixels starting at the instruction's coordinates and walking the bounding
//! box (W fastest, then H, D and the batch) with the map's element strides as traversal strides;
//! each pixel is read at its position plus the instruction's im2col offsets, and `channels`
//! channels of it from the channel coordinate on land as one row of the shared-memory tile.
//! Where the PTX text is silent the behaviour is what an H100 does (measured, see
//! `docs/launch/im2col.md`).

pub use super::tensormap::Im2col;
use super::tensormap::{push_run, TensorMap};

/// The im2col offsets a load of `rank` dimensions applies (W first), from the 16-bit operands
/// as ptxas 13.0 hands them to the H100 (measured, and visible in its SASS): rank 3 takes the
/// 16 bits; rank 4 packs the low 8 bits of each into one 16-bit word; rank 5 packs
/// `w + 32 * h + 1024 * d` into 16 bits, so each offset has 5 bits and a larger one carries
/// into the next. Offsets are unsigned. A rank-5 word with bit 15 set stops as unsupported (no
/// measurement says what the hardware makes of it).
pub fn offsets(rank: usize, raw: &[u16]) -> Result<[i64; 3], String> {
    let at = |j: usize| u32::from(raw.get(j).copied().unwrap_or(0));
    match rank {
        3 => Ok([i64::from(at(0)), 0, 0]),
        4 => Ok([i64::from(at(0) & 0xff), i64::from(at(1) & 0xff), 0]),
        _ => {
            let word = (at(0) + 32 * at(1) + 1024 * at(2)) & 0xffff;
            if word & 0x8000 != 0 {
                return Err(format!(
                    "im2col offsets {{{}, {}, {}}} of a 5d load pack to {word:#06x}, with bit 15 set: ptxrun does not know what an H100 makes of it",
                    at(0),
                    at(1),
                    at(2)
                ));
            }
            Ok([0, 5, 10].map(|sh| i64::from((word >> sh) & 31)))
        }
    }
}

impl Im2col {
    /// A load must start inside the bounding box: an H100 raises an illegal-instruction error
    /// for a spatial coordinate outside it (measured; the batch coordinate and the offsets may
    /// take any value).
    pub fn check_start(&self, m: &TensorMap, coords: &[i64]) -> Result<(), String> {
        for i in 0..m.rank - 2 {
            let (lo, hi) = self.bounds(m, i);
            let c = coords.get(1 + i).copied().unwrap_or(0);
            if c < lo || c > hi {
                return Err(format!(
                    "an im2col load starting at {c} in dimension {} outside its bounding box {lo}..={hi} (an H100 raises an illegal-instruction error)",
                    i + 1
                ));
            }
        }
        Ok(())
    }
}

impl TensorMap {
    /// The pixels of the column a load at `coords` (channel, spatial dimensions W first, batch)
    /// with im2col `offsets` (see [`offsets`]) gathers, in shared-memory order: each pixel's element coordinates
    /// in dimensions 1.. (spatial plus offsets, then the batch).
    fn im2col_pixels(&self, ic: &Im2col, coords: &[i64], offsets: [i64; 3]) -> Vec<[i64; 4]> {
        let ns = self.rank - 2;
        let at = |i: usize| coords.get(i).copied().unwrap_or(0);
        let (lo, hi): (Vec<i64>, Vec<i64>) = (0..ns).map(|j| ic.bounds(self, j)).unzip();
        let step = |i: usize| i64::from(self.estrides[i]);
        let mut pos: Vec<i64> = (1..self.rank).map(at).collect();
        let mut out = Vec::with_capacity(ic.pixels as usize);
        for _ in 0..ic.pixels {
            let mut p = [0i64; 4];
            for j in 0..ns {
                p[j] = pos[j] + offsets[j];
            }
            p[ns] = pos[ns];
            out.push(p);
            // Advance W; past the box's upper corner wrap to its lower corner and carry.
            let mut j = 0;
            loop {
                pos[j] += step(1 + j);
                if j == ns || pos[j] <= hi[j] {
                    break;
                }
                pos[j] = lo[j];
                j += 1;
            }
        }
        out
    }

    /// Runs of the column a load at `coords` with im2col `offsets` (see [`offsets`]) gathers
    /// into a tile at shared offset `base`, as [`runs`](Self::runs) gives a tile box's.
    pub fn im2col_runs(
        &self,
        ic: &Im2col,
        coords: &[i64],
        offsets: [i64; 3],
        base: u64,
    ) -> Vec<(Option<u64>, u64, u32)> {
        let es = u64::from(self.elem.size());
        let c0 = coords.first().copied().unwrap_or(0);
        let mut out = Vec::new();
        let pitch = ic.pitch(self);
        for (i, p) in self
            .im2col_pixels(ic, coords, offsets)
            .into_iter()
            .enumerate()
        {
            let mut off = base + i as u64 * pitch;
            let pixel = (1..self.rank).try_fold(self.addr, |a, i| {
                let c = p[i - 1];
                (c >= 0 && (c as u64) < self.dims[i]).then(|| a + c as u64 * self.strides[i])
            });
            for k in 0..i64::from(ic.channels) {
                let c = c0 + k;
                let g = pixel.filter(|_| c >= 0 && (c as u64) < self.dims[0]);
                let g = g.map(|a| a + c as u64 * es);
                push_run(&mut out, g, self.swizzle.apply(off), self.elem.size());
                off += es;
            }
        }
        out
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::mem::tensormap::Swizzle;

    /// The conv sample's input: f32 NHWC {C=16, W=8, H=6, N=2}, a 3x3 filter's box with padding 1.
    fn nhwc(swizzle: Swizzle, channels: u32) -> (TensorMap, Im2col) {
        let ic = Im2col {
            lower: [-1, -1, 0],
            upper: [-1, -1, 0],
            channels,
            pixels: 32,
        };
        let m = TensorMap {
            rank: 4,
            dims: [16, 8, 6, 2, 1],
            strides: [4, 64, 512, 3072, 0],
            boxdim: [1; 5],
            im2col: Some(ic),
            ..crate::mem::tensormap::map2d(swizzle)
        };
        (m, ic)
    }

    #[test]
    fn the_im2col_part_survives_encoding() {
        let (m, ic) = nhwc(Swizzle::None, 16);
        let back = TensorMap::decode(&m.encode()).unwrap();
        assert_eq!(back, m);
        assert_eq!((back.box_bytes(), ic.footprint(&m)), (2048, 2048));
    }

    #[test]
    fn a_column_walks_the_box_row_by_row() {
        let (m, ic) = nhwc(Swizzle::None, 16);
        // Start at the box's corner (-1, -1) with offsets (1, 1): pixels (0, 0) .. (7, 0), then
        // the next row starts again at the lower corner: (-1 + 1, 0 + 1); rows 0..3 are one run.
        let runs = m.im2col_runs(&ic, &[0, -1, -1, 0], [1, 1, 0], 0);
        assert_eq!(runs, vec![(Some(0x1000), 0, 32 * 64)]);
        // From (3, 0): pixels (3..6, 0), then (-1..6, 1), ...: the wrap skips (7, 0).
        let runs = m.im2col_runs(&ic, &[0, 3, 0, 0], [0; 3], 0);
        assert_eq!(runs[0], (Some(0x1000 + 3 * 64), 0, 4 * 64));
        assert_eq!(runs[1], (None, 4 * 64, 64));
        assert_eq!(runs[2], (Some(0x1000 + 512), 5 * 64, 7 * 64));
        // Offsets (0, 0) from the corner read the padding first: row -1, then one pixel a row.
        let runs = m.im2col_runs(&ic, &[0, -1, -1, 0], [0, 0, 0], 0);
        let fill: u32 = runs.iter().filter(|r| r.0.is_none()).map(|r| r.2).sum();
        assert_eq!(
            fill,
            (8 + 3) * 64,
            "row -1 (8 pixels) and column -1 of rows 0..2"
        );
    }

    #[test]
    fn swizzled_rows_are_the_span_apart() {
        let (m, ic) = nhwc(Swizzle::B128, 16);
        assert_eq!(
            (ic.pitch(&m), ic.footprint(&m), m.box_bytes()),
            (128, 4096, 2048)
        );
        let runs = m.im2col_runs(&ic, &[0, 0, 0, 0], [0; 3], 0);
        // Pixel 1's first chunk goes to row 1, chunk 0 ^ 1.
        assert!(runs
            .iter()
            .any(|r| r.0 == Some(0x1000 + 64) && r.1 == 128 + 16));
    }

    #[test]
    fn offsets_are_packed_as_ptxas_packs_them() {
        assert_eq!(offsets(3, &[300]), Ok([300, 0, 0]));
        assert_eq!(offsets(4, &[256, 0x1ff]), Ok([0, 255, 0]));
        assert_eq!(offsets(5, &[32, 0, 0]), Ok([0, 1, 0]), "w carries into h");
        assert_eq!(offsets(5, &[3, 31, 2]), Ok([3, 31, 2]));
        assert!(offsets(5, &[0, 1024, 0]).is_err(), "bit 15: not measured");
    }

    #[test]
    fn starts_and_corners_are_checked() {
        let (m, ic) = nhwc(Swizzle::None, 16);
        assert!(ic.check_start(&m, &[0, 6, 4, 0]).is_ok());
        assert!(ic.check_start(&m, &[0, 6, 4, -7]).is_ok(), "any batch");
        assert!(ic.check_start(&m, &[0, 7, 0, 0]).is_err());
        assert!(ic.check_start(&m, &[0, 0, -2, 0]).is_err());
        let mut bad = ic;
        bad.lower[0] = 7;
        let mut m2 = m.clone();
        m2.im2col = Some(bad);
        assert!(m2.validate().unwrap_err().contains("leave no pixel"));
        bad.lower[0] = -129;
        m2.im2col = Some(bad);
        assert!(m2.validate().unwrap_err().contains("-128..127"));
        let (mut m3, _) = nhwc(Swizzle::B32, 16);
        assert!(m3.validate().unwrap_err().contains("swizzle span"));
        m3.swizzle = Swizzle::None;
        m3.im2col = Some(Im2col { channels: 3, ..ic });
        assert!(m3.validate().unwrap_err().contains("multiple of 16"));
    }
}
