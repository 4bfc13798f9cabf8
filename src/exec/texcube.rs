//! Cube-map addressing (`tex.cube`, PTX ISA 9.0 section 9.7.10.3; the face table of the CUDA
//! Programming Guide, "Cubemap Textures"), as an H200 does it, measured with
//! `scripts/probes/mip_cube_probe.cu` (524,288 directions, point and linear, clamp and wrap;
//! `docs/launch/textures.md`):
//! - the face is that of the largest magnitude, ties going to z, then y, then x; a zero
//!   component counts as positive;
//! - the face coordinates are `q = sc * rcp(|ma|)` with the special-function unit's reciprocal
//!   (`sfu::mufu_rcp`) and an f32 product, clamped to [-1, 1], and `(q + 1) / 2` exactly;
//! - the face is then sampled as a 2D texture with normalized coordinates, in its own address
//!   mode (no filtering across edges).
//!
//! Directions the H200 treats otherwise, or inconsistently, are refused with the reason: a
//! component that is infinite, NaN or subnormal, or of magnitude 2^126 or more; a component one
//! unit in the last place below the largest (the face then depends on more than the
//! magnitudes: 336 of 5,331 such measured directions took the smaller); a subnormal `q`.

use super::sfu::mufu_rcp;

/// The face (0..6: +x, -x, +y, -y, +z, -z) a direction picks and its normalized coordinates
/// on that face, or why the direction is not modelled.
pub fn face(d: [f32; 3]) -> Result<(u32, [f64; 2]), &'static str> {
    if d.iter().any(|c| !c.is_finite()) {
        return Err("a cube-map direction with an infinite or NaN component");
    }
    if d.iter().any(|c| c.is_subnormal()) {
        return Err("a cube-map direction with a subnormal component");
    }
    let mag = d.map(|c| c.abs().to_bits());
    let top = *mag.iter().max().unwrap_or(&0);
    if f32::from_bits(top) >= f32::from_bits(0x7e80_0000) {
        return Err("a cube-map direction with a component of magnitude 2^126 or more");
    }
    if top > 0 && mag.contains(&(top - 1)) {
        return Err("a cube-map direction whose two largest components are one ulp apart (the H200 picks either face)");
    }
    let [ax, ay, az] = mag;
    let axis = if az >= ax && az >= ay {
        2
    } else if ay >= ax {
        1
    } else {
        0
    };
    let neg = d[axis] < 0.0;
    let [x, y, z] = d;
    // (sc, tc) of the face table.
    let (sc, tc) = match (axis, neg) {
        (0, false) => (-z, -y),
        (0, true) => (z, -y),
        (1, false) => (x, z),
        (1, true) => (x, -z),
        (2, false) => (x, -y),
        _ => (-x, -y),
    };
    let ma = f32::from_bits(top);
    let coord = |c: f32| -> Result<f64, &'static str> {
        // The zero direction reads the centre of face +z (measured).
        let q = if ma == 0.0 {
            0.0
        } else {
            c * f32::from_bits(mufu_rcp(top))
        };
        if q.is_subnormal() || q == 0.0 && c != 0.0 {
            return Err("a cube-map direction whose face coordinate is subnormal or underflows");
        }
        // (q + 1) / 2 is exact in f64 for |q| >= 2^-29; a smaller q only decides the side of
        // the face's centre line (measured: -2^-60 reads the texel below it), which 2^-29
        // keeps, as it keeps every filter weight, for faces up to 2^17 texels.
        let tiny = 2f32.powi(-29);
        let q = if q != 0.0 && q.abs() < tiny {
            tiny.copysign(q)
        } else {
            q.clamp(-1.0, 1.0)
        };
        Ok((f64::from(q) + 1.0) / 2.0)
    };
    let f = axis as u32 * 2 + u32::from(neg);
    Ok((f, [coord(sc)?, coord(tc)?]))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn faces_follow_the_table_and_the_measured_ties() {
        assert_eq!(face([1.0, 0.0, 0.0]), Ok((0, [0.5, 0.5])));
        assert_eq!(face([-1.0, 0.5, 0.0]), Ok((1, [0.5, 0.25])));
        assert_eq!(face([0.0, 0.0, -2.0]), Ok((5, [0.5, 0.5])));
        // Ties go to z, then y.
        assert_eq!(face([1.0, 1.0, 1.0]).map(|f| f.0), Ok(4));
        assert_eq!(face([-1.0, -1.0, 0.5]).map(|f| f.0), Ok(3));
        assert_eq!(face([0.0, 0.0, 0.0]), Ok((4, [0.5, 0.5])));
        assert_eq!(face([0.0, -0.0, -0.0]).map(|f| f.0), Ok(4));
        assert!(face([1.0, f32::from_bits(0x3f7f_ffff), 0.0]).is_err());
        assert!(face([f32::NAN, 0.0, 0.0]).is_err());
        assert!(face([1e-40, 0.0, 1.0]).is_err());
    }

    #[test]
    fn coordinates_use_the_unit_reciprocal() {
        // Measured: (0.0991, -0.0248, 0.1983) reads texel 11 of 16 on face +z, not 12: the
        // reciprocal makes q fall just below 0.5.
        let (f, [s, _]) = face([0.099_144_83, -0.024_786_2, 0.198_289_66]).unwrap();
        assert_eq!(f, 4);
        assert_eq!((s * 16.0).floor(), 11.0);
        // Measured: a tiny negative coordinate reads the texel below the centre line.
        let (f, [_, t]) = face([-1.583_841_7e-11, 2.542_566_7e-10, 1.178_407_7e8]).unwrap();
        assert_eq!(f, 4);
        assert_eq!((t * 16.0).floor(), 7.0);
    }
}
