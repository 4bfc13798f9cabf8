//! Read-modify-write arithmetic shared by atomics (`atom`, `red`, PTX ISA 9.0 section 9.7.13.5)
//! and bulk reductions (`cp.reduce.async.bulk`, 9.7.9.25.4.2): one element `old` combined with
//! `b` under an operation and a type. Float additions round to nearest even; an f16/bf16 sum
//! is computed exactly in f64 and rounded once, and a NaN result is the canonical NaN NVIDIA
//! hardware writes (for f32 0x7fffffff, measured; `.add.f32` on global memory flushes
//! subnormals, [`add_f32`]).

use crate::ir::mods::SubOp;
use crate::ir::Type;

fn mask(bits: u32) -> u64 {
    if bits >= 64 {
        u64::MAX
    } else {
        (1u64 << bits) - 1
    }
}

fn sext(v: u64, bits: u32) -> i64 {
    let s = 64 - bits.min(64);
    ((v << s) as i64) >> s
}

/// `old op b` for an element of type `t` (raw bits, low `t.size()` bytes significant).
/// `Exch` yields `b`; operations that do not apply leave `old`.
pub fn combine(op: SubOp, t: Type, old: u64, b: u64) -> u64 {
    let bits = t.size() * 8;
    let v = match op {
        SubOp::Add => add(t, old, b),
        SubOp::Min | SubOp::Max => minmax(t, op == SubOp::Max, old, b),
        SubOp::Inc => {
            if old >= b {
                0
            } else {
                old + 1
            }
        }
        SubOp::Dec => {
            if old == 0 || old > b {
                b
            } else {
                old - 1
            }
        }
        SubOp::And => old & b,
        SubOp::Or => old | b,
        SubOp::Xor => old ^ b,
        SubOp::Exch => b,
        _ => old,
    };
    v & mask(bits)
}

fn add(t: Type, a: u64, b: u64) -> u64 {
    match t {
        Type::F32 => u64::from(add_f32(a as u32, b as u32, false)),
        Type::F64 => (f64::from_bits(a) + f64::from_bits(b)).to_bits(),
        Type::F16 | Type::Bf16 => half_add(t == Type::Bf16, a, b),
        Type::F16x2 | Type::Bf16x2 => {
            let bf = t == Type::Bf16x2;
            (half_add(bf, a >> 16, b >> 16) << 16) | half_add(bf, a & 0xffff, b & 0xffff)
        }
        _ => a.wrapping_add(b) & mask(t.size() * 8),
    }
}

fn half_add(bf: bool, a: u64, b: u64) -> u64 {
    // The exact sum of two halves is representable in f64; one rounding to the half format.
    let (x, y) = if bf {
        (
            half::bf16::from_bits(a as u16).to_f64(),
            half::bf16::from_bits(b as u16).to_f64(),
        )
    } else {
        (
            half::f16::from_bits(a as u16).to_f64(),
            half::f16::from_bits(b as u16).to_f64(),
        )
    };
    let s = x + y;
    if s.is_nan() {
        return 0x7fff;
    }
    if bf {
        u64::from(half::bf16::from_f64(s).to_bits())
    } else {
        u64::from(half::f16::from_f64(s).to_bits())
    }
}

fn to_f64(t: Type, v: u64) -> f64 {
    match t {
        Type::F16 => half::f16::from_bits(v as u16).to_f64(),
        Type::Bf16 => half::bf16::from_bits(v as u16).to_f64(),
        Type::F64 => f64::from_bits(v),
        _ => f64::from(f32::from_bits(v as u32)),
    }
}

fn minmax(t: Type, max: bool, a: u64, b: u64) -> u64 {
    let bits = t.size() * 8;
    // Packed pairs are two halves, each compared on its own (measured on an H200:
    // numerics/vector_atomics).
    if let Some(half) = match t {
        Type::F16x2 => Some(Type::F16),
        Type::Bf16x2 => Some(Type::Bf16),
        _ => None,
    } {
        let (hi, lo) = (
            minmax(half, max, a >> 16, b >> 16),
            minmax(half, max, a & 0xffff, b & 0xffff),
        );
        return (hi << 16) | lo;
    }
    if t.is_float() {
        let (x, y) = (to_f64(t, a), to_f64(t, b));
        // A NaN loses to a number; two NaNs give the canonical 0x7fff (f16 and bf16, measured
        // on an H200: numerics/vector_atomics).
        if x.is_nan() && y.is_nan() && bits == 16 {
            return 0x7fff;
        }
        // -0 counts below +0 (measured likewise).
        let key = |v: f64| (v, v.is_sign_positive());
        let (kx, ky) = (key(x), key(y));
        return if y.is_nan() || (!x.is_nan() && (if max { kx >= ky } else { kx <= ky })) {
            a
        } else {
            b
        };
    }
    let (x, y) = if t.is_signed() {
        (i128::from(sext(a, bits)), i128::from(sext(b, bits)))
    } else {
        (i128::from(a), i128::from(b))
    };
    if (max && x >= y) || (!max && x <= y) {
        a
    } else {
        b
    }
}

/// f32 addition as every reduction path of an H100 does it (measured over 4096 pairs of special
/// and random values, docs/launch/tensormap-replace.md): nearest even, a NaN result is
/// 0x7fffffff whatever the operands' NaNs; with `ftz` subnormal operands and results become zeros
/// of their sign. `ftz` holds for `atom`/`red` `.add.f32` on global memory and for tensor
/// reductions through FLOAT32_FTZ / TFLOAT32_FTZ maps; shared-memory atomics, bulk reductions and
/// the other tensor maps keep subnormals.
pub fn add_f32(a: u32, b: u32, ftz: bool) -> u32 {
    let flush = |v: u32| {
        if ftz && v & 0x7f80_0000 == 0 {
            v & 0x8000_0000
        } else {
            v
        }
    };
    let sum = f32::from_bits(flush(a)) + f32::from_bits(flush(b));
    if sum.is_nan() {
        0x7fff_ffff
    } else {
        flush(sum.to_bits())
    }
}

/// f32 add-reductions through a tensor map (`cp.reduce.async.bulk.tensor .add`, elements in
/// `dst` and `src`): [`add_f32`], flushing for the FTZ flavours of map.
pub fn add_f32_tensor(dst: &mut [u8], src: &[u8], ftz: bool) {
    for (d, s) in dst.chunks_exact_mut(4).zip(src.chunks_exact(4)) {
        let a = u32::from_le_bytes([d[0], d[1], d[2], d[3]]);
        let b = u32::from_le_bytes([s[0], s[1], s[2], s[3]]);
        d.copy_from_slice(&add_f32(a, b, ftz).to_le_bytes());
    }
}

/// Reduces `src` into `dst` element by element (both `t`-typed arrays of equal length).
pub fn reduce_bytes(op: SubOp, t: Type, dst: &mut [u8], src: &[u8]) {
    let n = t.size().max(1) as usize;
    for (d, s) in dst.chunks_mut(n).zip(src.chunks(n)) {
        let v = combine(op, t, super::read_le(d), super::read_le(s));
        super::write_le(d, v);
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn integer_operations() {
        assert_eq!(combine(SubOp::Add, Type::U32, 0xffff_ffff, 2), 1);
        assert_eq!(combine(SubOp::Min, Type::S32, 5, 0xffff_fffe), 0xffff_fffe);
        assert_eq!(combine(SubOp::Min, Type::U32, 5, 0xffff_fffe), 5);
        assert_eq!(combine(SubOp::Inc, Type::U32, 3, 3), 0);
        assert_eq!(combine(SubOp::Dec, Type::U32, 0, 9), 9);
        assert_eq!(combine(SubOp::Xor, Type::B64, u64::MAX, 1), u64::MAX - 1);
    }

    #[test]
    fn float_operations() {
        let f = |x: f32| u64::from(x.to_bits());
        assert_eq!(combine(SubOp::Add, Type::F32, f(1.5), f(2.25)), f(3.75));
        assert_eq!(
            combine(SubOp::Add, Type::F32, 0x7fc0_1234, f(1.0)),
            0x7fff_ffff
        );
        assert_eq!(combine(SubOp::Add, Type::F32, 1, 1), 2);
        assert_eq!(add_f32(1, 1, true), 0);
        assert_eq!(combine(SubOp::Max, Type::F32, f(1.0), f(-2.0)), f(1.0));
        let h = |x: f32| u64::from(half::f16::from_f32(x).to_bits());
        assert_eq!(combine(SubOp::Add, Type::F16, h(1.0), h(2.0)), h(3.0));
        let mut d = [0u8; 8];
        d[..4].copy_from_slice(&1.0f32.to_le_bytes());
        d[4..].copy_from_slice(&2.0f32.to_le_bytes());
        let mut s = [0u8; 8];
        s[..4].copy_from_slice(&0.5f32.to_le_bytes());
        s[4..].copy_from_slice(&0.25f32.to_le_bytes());
        reduce_bytes(SubOp::Add, Type::F32, &mut d, &s);
        assert_eq!(&d[..4], &1.5f32.to_le_bytes());
        assert_eq!(&d[4..], &2.25f32.to_le_bytes());
    }

    #[test]
    fn tensor_f32_adds_give_the_canonical_nan_and_may_flush() {
        let bytes = |v: &[u32]| v.iter().flat_map(|x| x.to_le_bytes()).collect::<Vec<u8>>();
        let mut d = bytes(&[0x7fc0_1234, 0x0000_0001, 0x7f80_0000]);
        add_f32_tensor(
            &mut d,
            &bytes(&[0x3f80_0000, 0x0000_0001, 0xff80_0000]),
            false,
        );
        assert_eq!(d, bytes(&[0x7fff_ffff, 0x0000_0002, 0x7fff_ffff]));
        let mut d = bytes(&[0x0000_0001, 0x8040_0000, 0x0080_0000]);
        add_f32_tensor(
            &mut d,
            &bytes(&[0x0000_0001, 0x3f80_0000, 0x8000_0001]),
            true,
        );
        assert_eq!(d, bytes(&[0, 0x3f80_0000, 0x0080_0000]));
    }
}
