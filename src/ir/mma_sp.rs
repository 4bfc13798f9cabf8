//! The forms of sparse `mma` (PTX ISA 9.0 section 9.7.14.6, "Multiply-and-Accumulate Instruction:
//! mma.sp / mma.sp::ordered_metadata"): A is a structured-sparse m x k matrix of which each lane
//! holds only the kept half, the metadata operand `e` says where in k each kept element sits,
//! and the sparsity selector `f` (an immediate) says which lanes of each group of four supply
//! the metadata. The syntax blocks of that section, for sm_80 to sm_90a:
//!
//! ```text
//! mma.spvariant.sync.aligned.{m16n8k16,m16n8k32}.row.col.dtype.f16.f16.ctype   d, a, b, c, e, f; // d = c: f16 | f32
//! mma.spvariant.sync.aligned.{m16n8k16,m16n8k32}.row.col.f32.bf16.bf16.f32     d, a, b, c, e, f;
//! mma.spvariant.sync.aligned.{m16n8k8,m16n8k16}.row.col.f32.tf32.tf32.f32      d, a, b, c, e, f;
//! mma.spvariant.sync.aligned.m16n8k64.row.col.f32.f8.f8.f32                    d, a, b, c, e, f; // sm_89
//! mma.spvariant.sync.aligned.{m16n8k32,m16n8k64}.row.col{.satfinite}.s32.i8.i8.s32  d, a, b, c, e, f;
//! mma.spvariant.sync.aligned.{m16n8k64,m16n8k128}.row.col{.satfinite}.s32.i4.i4.s32 d, a, b, c, e, f;
//! .spvariant = .sp | .sp::ordered_metadata
//! ```
//!
//! What ptxas 13 rejects for sm_90a is an `ir::mma-form` error (f16 accumulators with fp8
//! operands are an sm_120a form) or, for the operands (`e` a register, `f` within the form's
//! selector range), `ir::mma-operands` (see `check.rs`).

use super::mma::{Elem, MmaError, MmaForm};
use super::mods::{Flags, MatShape, Mods};

/// A decoded sparse `mma`: the dense form it computes (shape with the full K) and the variant.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct SpForm {
    pub mma: MmaForm,
    /// `::ordered_metadata`: the two indices of a group are in increasing order.
    pub ordered: bool,
}

impl SpForm {
    /// Registers per lane of D, A (the kept half of K), B and C.
    pub fn regs(&self) -> [usize; 4] {
        let [d, _, b, c] = self.mma.regs();
        let s = self.mma.shape;
        let kept = u32::from(s.m) * u32::from(s.k) / 2;
        [d, (kept / 32 * self.mma.a.bits() / 32) as usize, b, c]
    }

    /// Elements of K one metadata nibble (two 2-bit indices) covers: four 16-bit or 8-bit
    /// elements, two tf32 elements (1:2 sparsity), eight 4-bit ones (indices of pairs).
    pub fn chunk(&self) -> usize {
        match self.mma.a {
            Elem::Tf32 => 2,
            Elem::S4 | Elem::U4 => 8,
            _ => 4,
        }
    }

    /// Lanes of a group of four whose metadata one instruction reads: a lane holds 32 bits,
    /// the group's two rows need `2 * 4 * K / chunk` bits.
    pub fn meta_lanes(&self) -> usize {
        (8 * usize::from(self.mma.shape.k) / self.chunk() / 32).max(1)
    }

    /// The sparsity selector values the ISA gives the form: `0 .. 4 / meta_lanes`.
    pub fn selectors(&self) -> u32 {
        (4 / self.meta_lanes()) as u32
    }

    /// The selector values ptxas 13 accepts: the ISA's, and 0 to 3 for the m16n8k32 f16 form
    /// with f32 accumulators, whose 2 and 3 the GPU refuses at run time (an illegal-instruction
    /// error, `docs/numerics/mma/README.md`).
    pub fn ptxas_selectors(&self) -> u32 {
        let f = &self.mma;
        if f.a == Elem::F16 && f.shape.k == 32 && f.d == Elem::F32 {
            return 4;
        }
        self.selectors()
    }
}

fn shape_is(s: MatShape, ks: &[u16]) -> bool {
    s.m == 16 && s.n == 8 && ks.contains(&s.k)
}

/// Classifies `mma.sp` (`ordered` false) or `mma.sp::ordered_metadata` with modifiers `m`.
pub fn form(m: &Mods, ordered: bool) -> Result<SpForm, MmaError> {
    use MmaError::Illegal;
    let Some(shape) = m.shape() else {
        return Err(Illegal("mma.sp needs a shape such as .m16n8k32"));
    };
    let mut elems = [Elem::F32; 4];
    for (e, t) in elems.iter_mut().zip(m.types) {
        *e = t.and_then(Elem::of).ok_or(Illegal(
            "mma.sp takes four element types: .dtype.atype.btype.ctype",
        ))?;
    }
    let [d, a, b, c] = elems;
    if !m.has(Flags::SYNC) || !m.has(Flags::ALIGNED) {
        return Err(Illegal("mma.sp must be .sync.aligned"));
    }
    if m.layouts() != [Some(false), Some(true)] {
        return Err(Illegal("mma.sp takes A in .row and B in .col layout"));
    }
    let i8 = |e: Elem| matches!(e, Elem::S8 | Elem::U8);
    let i4 = |e: Elem| matches!(e, Elem::S4 | Elem::U4);
    let f8 = |e: Elem| matches!(e, Elem::E4m3 | Elem::E5m2);
    let int = i8(a) || i4(a);
    let satfinite = m.has(Flags::SATFINITE);
    if satfinite && !int {
        return Err(Illegal(".satfinite belongs to the integer forms"));
    }
    let f32 = d == Elem::F32 && c == Elem::F32;
    let s32 = d == Elem::S32 && c == Elem::S32;
    let legal = match (a, b) {
        (Elem::F16, Elem::F16) => {
            shape_is(shape, &[16, 32]) && d == c && matches!(d, Elem::F16 | Elem::F32)
        }
        (Elem::Bf16, Elem::Bf16) => shape_is(shape, &[16, 32]) && f32,
        (Elem::Tf32, Elem::Tf32) => shape_is(shape, &[8, 16]) && f32,
        // ptxas: "mma with F16 accumulator and F8 floating point type" is not an sm_90a form.
        (x, y) if f8(x) && f8(y) => shape_is(shape, &[64]) && f32,
        (x, y) if i8(x) && i8(y) => shape_is(shape, &[32, 64]) && s32,
        (x, y) if i4(x) && i4(y) => shape_is(shape, &[64, 128]) && s32,
        _ => false,
    };
    if !legal {
        return Err(Illegal(
            "this combination of shape and types is not an mma.sp form (f16/bf16 k16/k32, tf32 k8/k16, e4m3/e5m2 k64 with f32, s8/u8 k32/k64, s4/u4 k64/k128)",
        ));
    }
    Ok(SpForm {
        mma: MmaForm {
            shape,
            d,
            a,
            b,
            c,
            satfinite,
            xor: false,
        },
        ordered,
    })
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::ir::opcode::decode;
    use crate::ir::Op;

    fn classify(text: &str) -> Result<SpForm, MmaError> {
        let d = decode(text, 0).expect("decodes");
        assert!(matches!(d.op, Op::MmaSp | Op::MmaSpOrdered), "{text}");
        form(&d.mods, d.op == Op::MmaSpOrdered)
    }

    #[test]
    fn registers_and_selectors_follow_the_forms() {
        for (text, regs, sels) in [
            (
                "mma.sp.sync.aligned.m16n8k16.row.col.f32.f16.f16.f32",
                [4, 2, 2, 4],
                4,
            ),
            (
                "mma.sp::ordered_metadata.sync.aligned.m16n8k32.row.col.f16.f16.f16.f16",
                [2, 4, 4, 2],
                2,
            ),
            (
                "mma.sp.sync.aligned.m16n8k32.row.col.f32.f16.f16.f32",
                [4, 4, 4, 4],
                4,
            ),
            (
                "mma.sp.sync.aligned.m16n8k32.row.col.f32.bf16.bf16.f32",
                [4, 4, 4, 4],
                2,
            ),
            (
                "mma.sp.sync.aligned.m16n8k8.row.col.f32.tf32.tf32.f32",
                [4, 2, 2, 4],
                4,
            ),
            (
                "mma.sp.sync.aligned.m16n8k16.row.col.f32.tf32.tf32.f32",
                [4, 4, 4, 4],
                2,
            ),
            (
                "mma.sp.sync.aligned.m16n8k64.row.col.f32.e5m2.e4m3.f32",
                [4, 4, 4, 4],
                1,
            ),
            (
                "mma.sp.sync.aligned.m16n8k32.row.col.satfinite.s32.s8.u8.s32",
                [4, 2, 2, 4],
                2,
            ),
            (
                "mma.sp.sync.aligned.m16n8k64.row.col.s32.u8.u8.s32",
                [4, 4, 4, 4],
                1,
            ),
            (
                "mma.sp.sync.aligned.m16n8k64.row.col.s32.s4.s4.s32",
                [4, 2, 2, 4],
                2,
            ),
            (
                "mma.sp::ordered_metadata.sync.aligned.m16n8k128.row.col.s32.u4.s4.s32",
                [4, 4, 4, 4],
                1,
            ),
        ] {
            let f = classify(text).unwrap();
            assert_eq!((f.regs(), f.ptxas_selectors()), (regs, sels), "{text}");
            assert_eq!(f.ordered, text.contains("ordered"));
        }
    }

    #[test]
    fn forms_ptxas_rejects_are_illegal() {
        for bad in [
            "mma.sp.sync.aligned.m16n8k16.row.col.f16.f16.f16.f32",
            "mma.sp.sync.aligned.m16n8k16.row.col.f16.bf16.bf16.f16",
            "mma.sp.sync.aligned.m16n8k8.row.col.f32.f16.f16.f32",
            "mma.sp.sync.aligned.m16n8k64.row.col.f16.e4m3.e5m2.f16",
            "mma.sp.sync.aligned.m16n8k32.row.col.f32.e4m3.e4m3.f32",
            "mma.sp.sync.aligned.m16n8k32.row.col.s32.u4.u4.s32",
            "mma.sp.sync.aligned.m16n8k16.row.col.satfinite.f32.f16.f16.f32",
            "mma.sp.sync.aligned.m16n8k16.col.row.f32.f16.f16.f32",
            "mma.sp.sync.m16n8k16.row.col.f32.f16.f16.f32",
            "mma.sp.sync.aligned.m16n8k16.row.col.f32.f64.f64.f32",
        ] {
            assert!(matches!(classify(bad), Err(MmaError::Illegal(_))), "{bad}");
        }
    }
}
