//! The level of detail of `tex.grad` (PTX ISA 9.0 section 9.7.10.3: the level from the
//! gradients `dPdx`, `dPdy` of the coordinates) as an H200's texture unit computes it, fitted to
//! `scripts/probes/grad_probe.cu` (`scripts/probes/fit_grad.py`): 1,600,000 samples over eight
//! samplers (2D 64 x 32, 256 x 256, 1024 x 16, 100 x 60; 1D 512 and 300; biases 0.3 and -0.7;
//! clamps), gradients from 2^-14 to 2^6 with zeros, infinities, NaN and subnormals, without a
//! mismatch; and the golden sample `ptx-samples/texture/grad_adversarial` (127 x 255, 4095,
//! 1023 x 33, 64 x 64), whose 4095 showed that the size is cut to 10 significant bits.
//!
//! Each gradient component is scaled by its axis's size, both at 10 significant bits (partial
//! products with three guard bits, rounded up, truncated); the footprint is the largest of four
//! approximate lengths (the two gradients, `max + 11/32 min`, and their sum and difference,
//! `11/16 max + 121/512 min`), each at 10 bits; its base-2 logarithm comes from a 256-entry
//! table on the 8 bits after the leading one. The result is in 1/256 of a level, for
//! [`super::texture::Mips::select_fixed`]. A 1D texture is the 2D rule with zero y components.
//! Values are carried in f64, where every step is exact (10-bit mantissas times small constants
//! over powers of two).

/// `log2(1 + j / 256)` in 1/256, truncated as the unit's table holds it (measured).
const LOG2: [u8; 256] = [
    0, 2, 4, 5, 6, 8, 9, 11, 12, 13, 15, 16, 18, 19, 20, 22, 23, 24, 26, 27, 28, 30, 31, 32, 34,
    35, 36, 38, 39, 40, 42, 43, 44, 45, 47, 48, 49, 50, 52, 53, 54, 55, 57, 58, 59, 60, 62, 63, 64,
    65, 66, 68, 69, 70, 71, 72, 74, 75, 76, 77, 78, 79, 81, 82, 83, 84, 85, 86, 88, 89, 90, 91, 92,
    93, 94, 95, 97, 98, 99, 100, 101, 102, 103, 104, 105, 106, 107, 109, 110, 111, 112, 113, 114,
    115, 116, 117, 118, 119, 120, 121, 122, 123, 124, 125, 126, 127, 128, 129, 130, 131, 132, 133,
    135, 136, 137, 137, 138, 139, 140, 141, 142, 143, 144, 145, 146, 147, 148, 149, 150, 151, 152,
    153, 154, 155, 156, 157, 158, 159, 160, 161, 162, 162, 163, 164, 165, 166, 167, 168, 169, 170,
    171, 172, 173, 173, 174, 175, 176, 177, 178, 179, 180, 181, 181, 182, 183, 184, 185, 186, 187,
    188, 188, 189, 190, 191, 192, 193, 194, 195, 195, 196, 197, 198, 199, 200, 200, 201, 202, 203,
    204, 205, 205, 206, 207, 208, 209, 210, 210, 211, 212, 213, 214, 214, 215, 216, 217, 218, 218,
    219, 220, 221, 222, 222, 223, 224, 225, 226, 226, 227, 228, 229, 229, 230, 231, 232, 233, 233,
    234, 235, 236, 236, 237, 238, 239, 239, 240, 241, 242, 242, 243, 244, 245, 245, 246, 247, 248,
    248, 249, 250, 251, 251, 252, 253, 253, 254, 255, 255,
];

/// A lod in 1/256 of a level; `i64::MIN` / `i64::MAX` stand for minus and plus infinity.
pub type Lod256 = i64;

/// `floor(log2 v)` for a finite `v > 0`.
fn expo(v: f64) -> i32 {
    let bits = v.to_bits();
    let biased = ((bits >> 52) & 0x7ff) as i32;
    if biased == 0 {
        // Subnormal f64: never reached (values here are above 2^-200).
        return -1075 + (64 - (bits & ((1 << 52) - 1)).leading_zeros() as i32);
    }
    biased - 1023
}

/// One unit in the 10th significant bit of `v > 0`.
fn ulp10(v: f64) -> f64 {
    2f64.powi(expo(v) - 9)
}

/// `v` (>= 0) truncated to 10 significant bits.
fn trunc10(v: f64) -> f64 {
    if v == 0.0 {
        return 0.0;
    }
    let u = ulp10(v);
    (v / u).floor() * u
}

/// `(num * m + rc) / den` units, `v = m` units of its 10th bit (`v` a 10-bit value >= 0).
fn mul(v: f64, num: f64, den: f64, rc: f64) -> f64 {
    if v == 0.0 {
        return 0.0;
    }
    let u = ulp10(v);
    (num * (v / u) + rc) / den * u
}

/// A gradient component times the axis size `s`, as the unit scales it (finite or infinite,
/// sign kept; NaN reads 0).
fn scale(g: f32, s: u32) -> f64 {
    if g.is_nan() || g == 0.0 {
        return 0.0;
    }
    if g.is_infinite() {
        return f64::INFINITY;
    }
    let bits = g.to_bits();
    let field = i64::from((bits >> 23) & 0xff);
    let frac = i64::from(bits & 0x7f_ffff);
    // The top 10 significant bits; subnormals unnormalised.
    let (m, e) = match field {
        0 => (frac >> 14, -126),
        f => (512 + (frac >> 14), f as i32 - 127),
    };
    let s = s.max(1);
    let top = 31 - s.leading_zeros() as i32;
    // The size itself at 10 significant bits, truncated (measured: 4095 scales as 4092; the
    // probe's sizes have at most 10).
    let s = s >> (top - 9).max(0) << (top - 9).max(0);
    // One partial product per set bit of the size, each truncated 3 bits below m's last bit.
    let acc: i64 = (0..=top)
        .filter(|b| s >> b & 1 == 1)
        .map(|b| (m << 3) >> (top - b))
        .sum();
    let mut vu = (acc + 7) >> 3;
    if vu >= 1024 {
        vu &= !1;
    }
    let v = vu as f64 * 2f64.powi(e - 9 + top);
    let v = if v > f64::from(f32::MAX) {
        f64::INFINITY
    } else {
        v
    };
    if g < 0.0 {
        -v
    } else {
        v
    }
}

/// `|p + q|` at 10 bits, the smaller operand first truncated toward zero to 2^-10 of the
/// larger's leading bit.
fn sadd(p: f64, q: f64) -> f64 {
    let (big, small) = if p.abs() >= q.abs() { (p, q) } else { (q, p) };
    if big == 0.0 {
        return 0.0;
    }
    let g = 2f64.powi(expo(big.abs()) - 10);
    trunc10((big + (small / g).trunc() * g).abs())
}

/// The lod (in 1/256) of gradients `dx`, `dy` (x and y components; y zero in 1D) on a texture
/// whose first level is `size[0]` x `size[1]`.
pub fn grad_lod(dx: [f32; 2], dy: [f32; 2], size: [u32; 2]) -> Lod256 {
    let (ax, ay) = (scale(dx[0], size[0]), scale(dx[1], size[1]));
    let (bx, by) = (scale(dy[0], size[0]), scale(dy[1], size[1]));
    if [ax, ay, bx, by].iter().any(|v| v.is_infinite()) {
        return i64::MAX;
    }
    let mut v: f64 = 0.0;
    for (x, y) in [(ax, ay), (bx, by)] {
        let (big, small) = (x.abs().max(y.abs()), x.abs().min(y.abs()));
        v = v.max(big + mul(small, 11.0, 32.0, 4.0));
    }
    for s in [1.0, -1.0] {
        let (x, y) = (sadd(ax, s * bx), sadd(ay, s * by));
        let (big, small) = (x.max(y), x.min(y));
        v = v.max(trunc10(mul(big, 11.0, 16.0, 4.0)) + mul(small, 121.0, 512.0, 32.0));
    }
    if v == 0.0 {
        return i64::MIN;
    }
    let e = expo(v);
    let j = (((v / 2f64.powi(e)) - 1.0) * 256.0)
        .floor()
        .clamp(0.0, 255.0) as usize;
    256 * i64::from(e) + i64::from(LOG2[j])
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn power_of_two_sizes_scale_the_truncated_gradient() {
        // 0.1 truncated to 10 bits is 0.099975586; times 64.
        assert_eq!(scale(0.1, 64), 0.099_975_585_937_5 * 64.0);
        assert_eq!(scale(-0.1, 64), -0.099_975_585_937_5 * 64.0);
        assert_eq!(scale(f32::NAN, 64), 0.0);
        assert_eq!(scale(3e38, 64), f64::INFINITY);
    }

    #[test]
    fn lods_follow_the_logarithm_table() {
        // An axis-aligned footprint of one texel: lod 0; of two texels: lod 1 (256).
        assert_eq!(grad_lod([1.0 / 64.0, 0.0], [0.0, 1.0 / 32.0], [64, 32]), 0);
        assert_eq!(grad_lod([2.0 / 64.0, 0.0], [0.0, 0.0], [64, 32]), 256);
        assert_eq!(grad_lod([0.0; 2], [0.0; 2], [64, 32]), i64::MIN);
        assert_eq!(grad_lod([f32::INFINITY, 0.0], [0.0; 2], [64, 32]), i64::MAX);
    }
}
