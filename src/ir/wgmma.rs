//! The forms of `wgmma.mma_async` (PTX ISA 9.0 section 9.7.15.5.2, "Asynchronous Warpgroup
//! Level Matrix Multiply-Accumulate: wgmma.mma_async"), decided once from the decoded
//! modifiers. The syntax blocks of that section (N a multiple of 8 up to 256; the integer and
//! `.b1` forms take N = 8, 16, 24 and multiples of 16 up to 256):
//!
//! ```text
//! wgmma.mma_async.sync.aligned.m64nNk16.{f16,f32}.f16.f16  d, a-desc|a, b-desc, scale-d, imm-scale-a, imm-scale-b{, imm-trans-a}, imm-trans-b;
//! wgmma.mma_async.sync.aligned.m64nNk16.f32.bf16.bf16      (the same operands)
//! wgmma.mma_async.sync.aligned.m64nNk8.f32.tf32.tf32       d, a-desc|a, b-desc, scale-d, imm-scale-a, imm-scale-b;
//! wgmma.mma_async.sync.aligned.m64nNk32.{f16,f32}.f8.f8    (the same operands)  // f8: e4m3 | e5m2
//! wgmma.mma_async.sync.aligned.m64nNk32{.satfinite}.s32.{s8,u8}.{s8,u8}  d, a-desc|a, b-desc, scale-d;
//! wgmma.mma_async.sync.aligned.m64nNk256.s32.b1.b1.and.popc              d, a-desc|a, b-desc, scale-d;
//! ```
//!
//! `imm-trans-a` is present only when A comes from shared memory (a descriptor). The sparse
//! forms (`wgmma.mma_async.sp`, section 9.7.15.6) double K (f16/bf16 k32, tf32 k16, e4m3/e5m2
//! and s8/u8 k64, every N a multiple of 8 or, for integers, as above) with A compressed to half
//! of it and two more operands after B: the metadata register and the sparsity selector (0 or
//! 1 for the 16- and 32-bit types, 0 for the 8-bit ones, as ptxas 13 requires). A combination
//! PTX does not allow is an `ir::mma-form` error when the module loads.

use super::mma::{Elem, MmaError};
use super::mods::{BoolOp, Flags, Mods, SubOp};

/// A decoded `wgmma.mma_async`: N and K of the m64nNk shape and the element types.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct WgmmaForm {
    pub n: u16,
    pub k: u16,
    pub d: Elem,
    pub a: Elem,
    pub b: Elem,
    /// `.satfinite` (integer forms): clamp to the s32 range instead of wrapping.
    pub satfinite: bool,
    /// `wgmma.mma_async.sp`: A holds half of K (2:4 structured sparsity) plus metadata.
    pub sparse: bool,
}

impl WgmmaForm {
    /// Registers per lane of D: the warpgroup's 128 threads share the 64 x N accumulator.
    pub fn d_regs(&self) -> usize {
        usize::from(self.n) * 64 / 128 * self.d.bits() as usize / 32
    }

    /// A's K: half of the shape's K for the sparse forms.
    pub fn a_k(&self) -> u16 {
        if self.sparse {
            self.k / 2
        } else {
            self.k
        }
    }

    /// Registers per lane of A when it comes from registers (16 x K elements per warp).
    pub fn a_regs(&self) -> usize {
        16 * usize::from(self.a_k()) / 32 * self.a.bits() as usize / 32
    }

    /// Whether the form takes the transpose immediates (only 16-bit element types do).
    pub fn transposable(&self) -> bool {
        matches!(self.a, Elem::F16 | Elem::Bf16)
    }

    /// Whether it takes `imm-scale-a`/`imm-scale-b` (the floating-point forms).
    pub fn scalable(&self) -> bool {
        !self.is_int()
    }

    pub fn is_int(&self) -> bool {
        matches!(self.a, Elem::S8 | Elem::U8 | Elem::B1)
    }

    /// The operand count: D, A, B, scale-d, then the immediates the form takes.
    pub fn operands(&self, a_in_regs: bool) -> usize {
        let scales = if self.scalable() { 2 } else { 0 };
        let trans = match (self.transposable(), a_in_regs) {
            (false, _) => 0,
            (true, true) => 1,
            (true, false) => 2,
        };
        4 + scales + trans + if self.sparse { 2 } else { 0 }
    }

    /// The largest sparsity selector (operand 4 of the sparse forms): the 8-bit types' metadata
    /// fills every lane, so only 0.
    pub fn max_selector(&self) -> i64 {
        if self.a.bits() == 8 {
            0
        } else {
            1
        }
    }

    /// The operand index of `scale-d` (after the metadata and selector of the sparse forms).
    pub fn scale_d_operand(&self) -> usize {
        if self.sparse {
            5
        } else {
            3
        }
    }
}

/// Classifies `wgmma.mma_async` (`sparse` false) or `wgmma.mma_async.sp` with modifiers `m`.
pub fn form(m: &Mods, sparse: bool) -> Result<WgmmaForm, MmaError> {
    use MmaError::Illegal;
    let Some(shape) = m.shape() else {
        return Err(Illegal("wgmma.mma_async needs a shape such as .m64n128k16"));
    };
    let mut elems = [Elem::F32; 3];
    for (e, t) in elems.iter_mut().zip(m.types) {
        *e = t.and_then(Elem::of).ok_or(Illegal(
            "wgmma.mma_async takes three element types: .dtype.atype.btype",
        ))?;
    }
    if m.types.get(3).is_some_and(|t| t.is_some()) {
        return Err(Illegal(
            "wgmma.mma_async takes three element types: .dtype.atype.btype",
        ));
    }
    let [d, a, b] = elems;
    let f = WgmmaForm {
        n: shape.n,
        k: shape.k,
        d,
        a,
        b,
        satfinite: m.has(Flags::SATFINITE),
        sparse,
    };
    if !m.has(Flags::SYNC) || !m.has(Flags::ALIGNED) {
        return Err(Illegal("wgmma.mma_async must be .sync.aligned"));
    }
    if shape.m != 64 || shape.n % 8 != 0 || shape.n == 0 || shape.n > 256 {
        return Err(Illegal(
            "wgmma shapes are .m64nNkK with N a multiple of 8 up to 256",
        ));
    }
    if m.layouts() != [None, None] {
        return Err(Illegal(
            "wgmma takes no .row/.col: layouts are in the descriptors",
        ));
    }
    let popc = m.sub == Some(SubOp::Popc);
    if (a == Elem::B1) != popc || (a == Elem::B1) != (m.bool_op == Some(BoolOp::And)) {
        return Err(Illegal("the .b1 form, and only it, takes .and.popc"));
    }
    if f.satfinite && !matches!(a, Elem::S8 | Elem::U8) {
        return Err(Illegal(".satfinite belongs to the 8-bit integer forms"));
    }
    let f8 = |e: Elem| matches!(e, Elem::E4m3 | Elem::E5m2);
    let i8 = |e: Elem| matches!(e, Elem::S8 | Elem::U8);
    let k = if sparse { shape.k / 2 } else { shape.k };
    let legal = match (a, b) {
        (Elem::F16, Elem::F16) => k == 16 && matches!(d, Elem::F16 | Elem::F32),
        (Elem::Bf16, Elem::Bf16) => k == 16 && d == Elem::F32,
        (Elem::Tf32, Elem::Tf32) => k == 8 && d == Elem::F32,
        (x, y) if f8(x) && f8(y) => k == 32 && matches!(d, Elem::F16 | Elem::F32),
        (x, y) if i8(x) && i8(y) => k == 32 && d == Elem::S32,
        (Elem::B1, Elem::B1) => !sparse && k == 256 && d == Elem::S32,
        _ => false,
    };
    if !legal {
        return Err(Illegal(
            "no wgmma form has these types and K (f16/bf16 k16, tf32 k8, e4m3/e5m2 and s8/u8 k32, b1 k256; twice that for .sp)",
        ));
    }
    // The integer and .b1 forms stop at N = 24 before taking multiples of 16.
    if f.is_int() && shape.n > 24 && shape.n % 16 != 0 {
        return Err(Illegal(
            "the integer wgmma forms take N = 8, 16, 24 or a multiple of 16 up to 256",
        ));
    }
    Ok(f)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::ir::opcode::decode;

    fn classify(text: &str) -> Result<WgmmaForm, MmaError> {
        let d = decode(text, 0).unwrap();
        form(&d.mods, d.op == crate::ir::Op::WgmmaMmaAsyncSp)
    }

    #[test]
    fn register_counts() {
        let f = classify("wgmma.mma_async.sync.aligned.m64n128k16.f32.bf16.bf16").unwrap();
        assert_eq!((f.d_regs(), f.a_regs(), f.operands(false)), (64, 4, 8));
        let f = classify("wgmma.mma_async.sync.aligned.m64n256k16.f16.f16.f16").unwrap();
        assert_eq!((f.d_regs(), f.operands(true)), (64, 7));
        let f = classify("wgmma.mma_async.sync.aligned.m64n64k32.f32.e4m3.e5m2").unwrap();
        assert_eq!((f.d_regs(), f.a_regs(), f.operands(false)), (32, 4, 6));
        let f = classify("wgmma.mma_async.sync.aligned.m64n8k32.s32.s8.u8.satfinite").unwrap();
        assert_eq!((f.d_regs(), f.operands(false)), (4, 4));
        let f = classify("wgmma.mma_async.sync.aligned.m64n16k256.s32.b1.b1.and.popc").unwrap();
        assert_eq!((f.d_regs(), f.a_regs()), (8, 4));
        let f = classify("wgmma.mma_async.sp.sync.aligned.m64n128k32.f32.f16.f16").unwrap();
        assert_eq!(
            (f.d_regs(), f.a_regs(), f.operands(false), f.a_k()),
            (64, 4, 10, 16)
        );
        let f = classify("wgmma.mma_async.sp.sync.aligned.m64n64k64.f32.e4m3.e5m2").unwrap();
        assert_eq!((f.d_regs(), f.a_regs(), f.operands(false)), (32, 4, 8));
        assert_eq!((f.a_k(), f.max_selector()), (32, 0));
        let f = classify("wgmma.mma_async.sp.sync.aligned.m64n24k64.s32.u8.s8.satfinite").unwrap();
        assert_eq!((f.d_regs(), f.a_regs(), f.operands(true)), (12, 4, 6));
        let f = classify("wgmma.mma_async.sp.sync.aligned.m64n8k16.f32.tf32.tf32").unwrap();
        assert_eq!((f.a_regs(), f.operands(true), f.max_selector()), (4, 8, 1));
    }

    #[test]
    fn illegal_forms() {
        for text in [
            "wgmma.mma_async.sync.aligned.m64n128k16.f16.bf16.bf16",
            "wgmma.mma_async.sync.aligned.m64n128k8.f32.f16.f16",
            "wgmma.mma_async.sync.aligned.m64n40k32.s32.s8.s8",
            "wgmma.mma_async.sync.aligned.m64n64k16.f32.f16.f16.satfinite",
            "wgmma.mma_async.m64n64k16.f32.f16.f16",
            "wgmma.mma_async.sync.aligned.m64n16k256.s32.b1.b1.xor.popc",
            "wgmma.mma_async.sp.sync.aligned.m64n40k64.s32.s8.s8",
            "wgmma.mma_async.sp.sync.aligned.m64n64k32.f32.e4m3.e4m3",
            "wgmma.mma_async.sp.sync.aligned.m64n64k16.f16.tf32.tf32",
        ] {
            assert!(classify(text).is_err(), "{text}");
        }
    }
}
