//! Blending two mipmap levels (`tex.level` with linear filtering between levels, PTX ISA 9.0
//! section 9.7.10.3) as an H200's texture unit does it, fitted to the probe of
//! `scripts/probes/mip_cube_probe.cu` (`docs/launch/textures.md`): 262,144 f32 samples and
//! 1,048,576 u8 channel values, bilinear within levels, and 262,144 f32 samples point-sampled
//! within levels, all without a mismatch.
//!
//! Each texel's weight comes from its x, y and level weights together, each split rounded to a
//! whole number (of 256): a level of weight `L` gives `ax = rnd(a * L)` to the upper x column,
//! `w11 = rnd(b * ax)`, `w01 = rnd_half_down(b * (L - ax))`, the rest to the others. In clamp
//! mode the coordinate is clamped to the first and last texel centres before its fixed-point
//! fraction is taken, and a fraction that rounds up to a whole texel moves to the next one.
//! There is no per-level value: u8 texels (read as normalized floats) are summed, all eight,
//! at 16 bits and rounded half up; f32 texels are truncated per level to 28 bits below that
//! level's largest exponent, summed exactly, floored to a grid set by the larger exponent
//! rounded down to 2 modulo 4, and rounded to nearest, ties away from zero.
//!
//! A 3D texture's linear filtering is the same blend with its two z slices as the two levels
//! (measured: `scripts/probes/tex_linear_probe.cu`, 10.4 M results without a mismatch); its
//! coordinates are clamped (`position`) in clamp mode, and left free (`position_free`) where
//! the texel indices fold or reach the border.

use super::texture::{frexp_exp, lerp_pos, round_to_f32, scaled_trunc};

/// `n / 256` rounded half up and half down.
fn rnd(n: u32) -> u32 {
    (n + 128) >> 8
}

fn rnd_half_down(n: u32) -> u32 {
    (n + 127) >> 8
}

/// The weights of texels (i, j), (i+1, j), (i, j+1), (i+1, j+1) of a level of weight `level`
/// (of 256), at fractions `a`, `b` (0..=255); they sum to `level`. At `level = 256` these are
/// the bilinear weights of `texture::weights_2d`.
pub fn weights(a: u32, b: u32, level: u32) -> [u32; 4] {
    let ax = rnd(a * level);
    let w11 = rnd(b * ax);
    let w01 = rnd_half_down(b * (level - ax));
    [level - ax - w01, ax - w11, w01, w11]
}

/// The first texel and the fraction (0..=255) along one axis of `n` texels, at texel
/// coordinate `c`, in clamp mode.
pub fn position(c: f64, n: u32) -> (i64, u32) {
    let c = c.clamp(0.5, f64::from(n) - 0.5) - 0.5;
    let u = (c * 256.0 + 0.5).floor() as i64;
    (u >> 8, (u & 255) as u32)
}

/// The first texel and the fraction (0..=255) along one axis at texel coordinate `c`, in the
/// address modes that do not clamp the coordinate (wrap, mirror, border: the texel indices are
/// folded or sent to the border afterwards): `texture::lerp_pos`, a weight of 256 carried.
pub fn position_free(c: f64) -> (i64, u32) {
    match lerp_pos(c) {
        (i, 256) => (i + 1, 0),
        p => p,
    }
}

/// The blend of widened 16-bit texels (u8 as `v * 257`) with their weights (summing to 256):
/// rounded half up to 16 bits.
pub fn blend_u16(texels: &[(i64, u32)]) -> i64 {
    let s: i64 = texels.iter().map(|&(v, w)| v * i64::from(w)).sum();
    (s + 128).div_euclid(256)
}

/// One level's f32 texels and weights, as the unit sums them: the integer sum of the weighted
/// texels truncated to multiples of `2^(e - 28)`, and `e` (the largest `frexp` exponent among
/// texels of nonzero weight); `None` when every such texel is zero: the level adds nothing.
pub fn level_sum(texels: &[(f32, u32)]) -> Option<(i64, i32)> {
    let flushed = |t: f32| if t.is_subnormal() { 0.0 } else { t };
    let e = texels
        .iter()
        .filter(|&&(t, w)| w > 0 && flushed(t) != 0.0)
        .map(|&(t, _)| frexp_exp(t))
        .max()?;
    let s = texels
        .iter()
        .filter(|&&(_, w)| w > 0)
        .map(|&(t, w)| scaled_trunc(flushed(t), 28 - e) * i64::from(w))
        .sum();
    Some((s, e))
}

/// The f32 blend of the levels' sums (each `(s, e)` standing for `s * 2^(e - 36)`): floored to
/// multiples of `2^(m - 36)`, `m` the largest `e` rounded down to 2 modulo 4, then rounded.
pub fn blend_f32(levels: &[(i64, i32)]) -> f32 {
    let Some(top) = levels.iter().map(|&(_, e)| e).max() else {
        return 0.0;
    };
    let m = top - (top - 2).rem_euclid(4);
    // Only a level below `m` has a fraction on the grid, so flooring each term floors the sum.
    let r: i64 = levels
        .iter()
        .map(|&(s, e)| {
            let shift = e - m;
            if shift >= 0 {
                s << shift
            } else {
                s >> (-shift).min(62)
            }
        })
        .sum();
    round_to_f32(r, m - 36)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn full_level_weights_are_the_bilinear_ones() {
        for (a, b) in [(0, 0), (54, 192), (255, 255), (128, 128), (1, 255)] {
            assert_eq!(weights(a, b, 256), super::super::texture::weights_2d(a, b));
        }
        let w = weights(77, 200, 100);
        assert_eq!(w.iter().sum::<u32>(), 100);
    }

    #[test]
    fn free_coordinates_fold_later_and_carry() {
        assert_eq!(position_free(-0.25), (-1, 64));
        // 0.9990234375 of a texel rounds up to a whole one: the next texel, fraction 0.
        assert_eq!(position_free(1.499_023_437_5), (1, 0));
        assert_eq!(position_free(f64::INFINITY).1, 0);
    }

    #[test]
    fn coordinates_clamp_to_the_edge_centres_and_carry() {
        assert_eq!(position(-3.0, 8), (0, 0));
        assert_eq!(position(7.9, 8), (7, 0));
        assert_eq!(position(1.5 - 1.0 / 1024.0, 8), (1, 0));
        assert_eq!(position(1.25, 8), (0, 192));
    }

    #[test]
    fn f32_levels_floor_to_the_grid_of_the_larger_exponent() {
        // Measured (probe tri_point_mipl, sample 13667): k = 249 between -62.296024 and
        // 0.20848192 gives -1.5006257, one ulp beyond the exactly rounded sum.
        let a = level_sum(&[(-62.296_024, 7)]).unwrap();
        let b = level_sum(&[(0.208_481_92, 249)]).unwrap();
        assert_eq!(blend_f32(&[a, b]).to_bits(), (-1.500_625_7f32).to_bits());
        assert_eq!(level_sum(&[(0.0, 100), (5.0, 0)]), None);
    }
}
