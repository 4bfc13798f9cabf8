//! The forms of `mma` (PTX ISA 9.0 section 9.7.14.5.14, "Multiply-and-Accumulate Instruction:
//! mma"), decided once from the decoded modifiers: the shape, the element types of D, A, B and
//! C, and how many registers each operand takes per lane. The syntax blocks of that section:
//!
//! ```text
//! mma.sync.aligned.m8n8k4.alayout.blayout.dtype.f16.f16.ctype        d, a, b, c;  // sm_70
//! mma.sync.aligned.m16n8k8.row.col.dtype.f16.f16.ctype               d, a, b, c;  // d = c: f16 | f32
//! mma.sync.aligned.m16n8k16.row.col.dtype.f16.f16.ctype              d, a, b, c;
//! mma.sync.aligned.{m16n8k8,m16n8k16}.row.col.f32.bf16.bf16.f32      d, a, b, c;
//! mma.sync.aligned.{m16n8k4,m16n8k8}.row.col.f32.tf32.tf32.f32       d, a, b, c;
//! mma.sync.aligned.{m16n8k16,m16n8k32}.row.col.f32.f8.f8.f32         d, a, b, c;  // f8: e4m3 | e5m2
//! mma.sync.aligned.{m16n8k16,m16n8k32}.row.col.f16.f8.f8.f16         d, a, b, c;
//! mma.sync.aligned.m8n8k4.row.col.f64.f64.f64.f64                    d, a, b, c;
//! mma.sync.aligned.{m16n8k4,m16n8k8,m16n8k16}.row.col.f64.f64.f64.f64 d, a, b, c; // sm_90
//! mma.sync.aligned.{m8n8k16,m16n8k16,m16n8k32}.row.col{.satfinite}.s32.i8.i8.s32 d, a, b, c;
//! mma.sync.aligned.{m8n8k32,m16n8k32,m16n8k64}.row.col{.satfinite}.s32.i4.i4.s32 d, a, b, c;
//! mma.sync.aligned.{m8n8k128,m16n8k128,m16n8k256}.row.col.s32.b1.b1.s32.{and,xor}.popc d, a, b, c;
//! ```
//!
//! A combination PTX does not allow is an `ir::mma-form` error when the module loads (as ptxas
//! rejects it). The sm_70 `m8n8k4` `.f16` form is four independent 8x8x4 products, one per
//! quad pair, in any layouts of A and B (section 9.7.14.5.1); ptxas rejects an f16 D with an
//! f32 C there. ptxas 13 also takes an m8n8k4 `.bf16` form with f32 D and C, but compiles it to
//! nothing (D undefined): it loads, and reaching it is an `unsupported` error naming it. The
//! `.f64` forms take a rounding modifier (`.rn`, `.rz`, `.rm`, `.rp`), the others none.

use super::mods::{BoolOp, Flags, MatShape, Mods, SubOp};
use super::types::Type;

/// An element type of an `mma` operand.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Elem {
    F16,
    Bf16,
    Tf32,
    E4m3,
    E5m2,
    S8,
    U8,
    S4,
    U4,
    B1,
    F32,
    F64,
    S32,
}

impl Elem {
    pub(crate) fn of(t: Type) -> Option<Elem> {
        Some(match t {
            Type::F16 => Elem::F16,
            Type::Bf16 => Elem::Bf16,
            Type::Tf32 => Elem::Tf32,
            Type::E4m3 => Elem::E4m3,
            Type::E5m2 => Elem::E5m2,
            Type::S8 => Elem::S8,
            Type::U8 => Elem::U8,
            Type::S4 => Elem::S4,
            Type::U4 => Elem::U4,
            Type::B1 => Elem::B1,
            Type::F32 => Elem::F32,
            Type::F64 => Elem::F64,
            Type::S32 => Elem::S32,
            _ => return None,
        })
    }

    /// Bits one element takes in a register.
    pub fn bits(self) -> u32 {
        match self {
            Elem::B1 => 1,
            Elem::S4 | Elem::U4 => 4,
            Elem::S8 | Elem::U8 | Elem::E4m3 | Elem::E5m2 => 8,
            Elem::F16 | Elem::Bf16 => 16,
            Elem::Tf32 | Elem::F32 | Elem::S32 => 32,
            Elem::F64 => 64,
        }
    }

    /// Register width in bits: f64 elements live in `.f64` registers, the rest in 32-bit ones.
    pub fn reg_bits(self) -> u32 {
        if self == Elem::F64 {
            64
        } else {
            32
        }
    }

    fn is_f8(self) -> bool {
        matches!(self, Elem::E4m3 | Elem::E5m2)
    }

    fn is_i8(self) -> bool {
        matches!(self, Elem::S8 | Elem::U8)
    }

    fn is_i4(self) -> bool {
        matches!(self, Elem::S4 | Elem::U4)
    }
}

/// A decoded `mma`: shape, element types and the binary operation of the `.b1` forms.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct MmaForm {
    pub shape: MatShape,
    pub d: Elem,
    pub a: Elem,
    pub b: Elem,
    pub c: Elem,
    /// `.satfinite` (integer forms): clamp to the s32 range instead of wrapping.
    pub satfinite: bool,
    /// `.b1` forms: `.xor.popc` (true) or `.and.popc` (false).
    pub xor: bool,
}

impl MmaForm {
    /// The sm_70 m8n8k4 `.f16` form: four quad-pair products of 8x8x4.
    pub fn is_quad_pair(&self) -> bool {
        let s = self.shape;
        self.a == Elem::F16 && (s.m, s.n, s.k) == (8, 8, 4)
    }

    /// Registers per lane of D, A, B and C.
    pub fn regs(&self) -> [usize; 4] {
        if self.is_quad_pair() {
            // Each lane holds 4 elements of A and of B, 8 of C and D (section 9.7.14.5.1).
            let acc = |e: Elem| if e == Elem::F32 { 8 } else { 4 };
            return [acc(self.d), 2, 2, acc(self.c)];
        }
        let s = self.shape;
        let (m, n, k) = (u32::from(s.m), u32::from(s.n), u32::from(s.k));
        let per_lane =
            |elems: u32, e: Elem| (elems / 32 * e.bits()).div_ceil(e.reg_bits()) as usize;
        [
            per_lane(m * n, self.d),
            per_lane(m * k, self.a),
            per_lane(k * n, self.b),
            per_lane(m * n, self.c),
        ]
    }
}

/// Why an `mma` cannot run.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum MmaError {
    /// PTX does not allow this combination (ptxas rejects it).
    Illegal(&'static str),
    /// A valid form ptxrun does not execute; the text says why.
    NotExecutable(&'static str),
}

fn shape_is(s: MatShape, m: u16, n: u16, ks: &[u16]) -> bool {
    s.m == m && s.n == n && ks.contains(&s.k)
}

/// Classifies `mma` with modifiers `m`.
pub fn form(m: &Mods) -> Result<MmaForm, MmaError> {
    use MmaError::Illegal;
    let Some(shape) = m.shape() else {
        return Err(Illegal("mma needs a shape such as .m16n8k16"));
    };
    let mut elems = [Elem::F32; 4];
    for (e, t) in elems.iter_mut().zip(m.types) {
        *e = t.and_then(Elem::of).ok_or(Illegal(
            "mma takes four element types: .dtype.atype.btype.ctype",
        ))?;
    }
    let [d, a, b, c] = elems;
    let satfinite = m.has(Flags::SATFINITE);
    let popc = m.sub == Some(SubOp::Popc);
    let f = MmaForm {
        shape,
        d,
        a,
        b,
        c,
        satfinite,
        xor: m.bool_op == Some(BoolOp::Xor),
    };
    if !m.has(Flags::SYNC) || !m.has(Flags::ALIGNED) {
        return Err(Illegal("mma must be .sync.aligned"));
    }
    let [la, lb] = m.layouts();
    let (Some(la), Some(lb)) = (la, lb) else {
        return Err(Illegal("mma needs the layouts of A and B: .row.col"));
    };
    let int = a.is_i8() || a.is_i4() || a == Elem::B1;
    if satfinite && (!int || a == Elem::B1) {
        return Err(Illegal(".satfinite belongs to the integer forms"));
    }
    if (a == Elem::B1) != popc || (m.bool_op.is_some() && a != Elem::B1) {
        return Err(Illegal(
            "the .b1 forms, and only they, take .and.popc or .xor.popc",
        ));
    }
    if m.bool_op == Some(BoolOp::Or) {
        return Err(Illegal("the .b1 operation is .and or .xor"));
    }
    let s = shape;
    if a == Elem::F16 && s.m == 16 && d != c {
        return Err(Illegal(
            "D and C take one type (ptxas: .dtype must be .f16 when .ctype is .f16, .f32 likewise)",
        ));
    }
    if m.rnd.is_some() && a != Elem::F64 {
        return Err(Illegal("only the .f64 forms take a rounding modifier"));
    }
    let legal = match (a, b) {
        // ptxas: ".dtype must be '.f32' when .ctype is '.f32'"; bf16 only with f32 D and C.
        (Elem::F16, Elem::F16) if shape_is(s, 8, 8, &[4]) => {
            matches!(
                (d, c),
                (Elem::F16 | Elem::F32, Elem::F16) | (Elem::F32, Elem::F32)
            )
        }
        (Elem::Bf16, Elem::Bf16) if shape_is(s, 8, 8, &[4]) => d == Elem::F32 && c == Elem::F32,
        // ptxas: ".dtype must be '.f16' when .ctype is '.f16'" (and f32 likewise).
        (Elem::F16, Elem::F16) => {
            shape_is(s, 16, 8, &[8, 16]) && d == c && matches!(d, Elem::F16 | Elem::F32)
        }
        (Elem::Bf16, Elem::Bf16) => {
            shape_is(s, 16, 8, &[8, 16]) && d == Elem::F32 && c == Elem::F32
        }
        (Elem::Tf32, Elem::Tf32) => shape_is(s, 16, 8, &[4, 8]) && d == Elem::F32 && c == Elem::F32,
        (x, y) if x.is_f8() && y.is_f8() => {
            shape_is(s, 16, 8, &[16, 32]) && d == c && matches!(d, Elem::F16 | Elem::F32)
        }
        (Elem::F64, Elem::F64) => {
            (shape_is(s, 8, 8, &[4]) || shape_is(s, 16, 8, &[4, 8, 16]))
                && d == Elem::F64
                && c == Elem::F64
        }
        (x, y) if x.is_i8() && y.is_i8() => {
            (shape_is(s, 8, 8, &[16]) || shape_is(s, 16, 8, &[16, 32]))
                && d == Elem::S32
                && c == Elem::S32
        }
        (x, y) if x.is_i4() && y.is_i4() => {
            (shape_is(s, 8, 8, &[32]) || shape_is(s, 16, 8, &[32, 64]))
                && d == Elem::S32
                && c == Elem::S32
        }
        (Elem::B1, Elem::B1) => {
            (shape_is(s, 8, 8, &[128]) || shape_is(s, 16, 8, &[128, 256]))
                && d == Elem::S32
                && c == Elem::S32
        }
        _ => false,
    };
    if !legal {
        return Err(Illegal(
            "this combination of shape and types is not an mma form",
        ));
    }
    if a == Elem::Bf16 && s.m == 8 {
        return Err(MmaError::NotExecutable(
            "ptxas 13 takes the m8n8k4 .bf16 form (the ISA has only .f16) but emits no instruction \
             for it: on the GPU, D holds whatever its registers held",
        ));
    }
    if !f.is_quad_pair() && (la || !lb) {
        return Err(Illegal("this shape takes A in .row and B in .col layout"));
    }
    Ok(f)
}

/// Which fragment a `wmma` instruction moves.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Frag {
    A,
    B,
    /// C (loaded) or D (stored): the accumulator layout.
    Acc,
}

/// A decoded `wmma.load`/`wmma.store` (PTX ISA 9.0 section 9.7.14.4.1): the fragment, the
/// shape, the element type, whether memory is column-major, and the registers per lane.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct WmmaMove {
    pub frag: Frag,
    pub shape: MatShape,
    pub elem: Elem,
    pub col: bool,
}

impl WmmaMove {
    /// Registers per lane (PTX ISA 9.0 section 9.7.14.4.1's table; the f16 A and B fragments
    /// hold every element twice or four times).
    pub fn regs(&self) -> usize {
        let s = self.shape;
        let (rows, cols) = match self.frag {
            Frag::A => (s.m, s.k),
            Frag::B => (s.k, s.n),
            Frag::Acc => (s.m, s.n),
        };
        match (self.elem, self.frag) {
            (Elem::F16, Frag::A | Frag::B) => 8,
            (Elem::F16, Frag::Acc) => 4,
            (Elem::F64, Frag::A | Frag::B) => 1,
            (Elem::F64, Frag::Acc) => 2,
            (e, _) => (u32::from(rows) * u32::from(cols) * e.bits() / 32 / 32) as usize,
        }
    }

    /// The matrix's rows and columns.
    pub fn dims(&self) -> (usize, usize) {
        let s = self.shape;
        let (r, c) = match self.frag {
            Frag::A => (s.m, s.k),
            Frag::B => (s.k, s.n),
            Frag::Acc => (s.m, s.n),
        };
        (usize::from(r), usize::from(c))
    }
}

fn wmma_shape_ok(s: MatShape, e: Elem) -> bool {
    let f16_shapes = [(16, 16, 16), (32, 8, 16), (8, 32, 16)];
    let t = (s.m, s.n, s.k);
    match e {
        Elem::F16 | Elem::Bf16 | Elem::S8 | Elem::U8 => f16_shapes.contains(&t),
        // The 32-bit accumulators also load and store at the sub-byte shapes (ptxas takes f32
        // there too, with the s32 layout: measured).
        Elem::F32 | Elem::S32 => {
            f16_shapes.contains(&t)
                || t == (8, 8, 32)
                || t == (8, 8, 128)
                || (e == Elem::F32 && t == (16, 16, 8))
        }
        Elem::Tf32 => t == (16, 16, 8),
        Elem::F64 => t == (8, 8, 4),
        Elem::S4 | Elem::U4 => t == (8, 8, 32),
        Elem::B1 => t == (8, 8, 128),
        _ => false,
    }
}

fn is_sub_byte(e: Elem) -> bool {
    matches!(e, Elem::S4 | Elem::U4 | Elem::B1)
}

/// Classifies `wmma.load` (`store` false) or `wmma.store` with modifiers `m`.
pub fn wmma_move(m: &Mods, store: bool) -> Result<WmmaMove, MmaError> {
    use MmaError::Illegal;
    let shape = m
        .shape()
        .ok_or(Illegal("wmma needs a shape such as .m16n16k16"))?;
    let elem = m
        .ty()
        .and_then(Elem::of)
        .ok_or(Illegal("wmma.load/store take one element type"))?;
    let frag = match (m.sub, store) {
        (Some(SubOp::FragA), false) => Frag::A,
        (Some(SubOp::FragB), false) => Frag::B,
        (Some(SubOp::FragC), false) | (Some(SubOp::FragD), true) => Frag::Acc,
        _ => return Err(Illegal("wmma.load takes .a, .b or .c, wmma.store takes .d")),
    };
    if !m.has(Flags::SYNC) || !m.has(Flags::ALIGNED) {
        return Err(Illegal("wmma must be .sync.aligned"));
    }
    let [Some(col), None] = m.layouts() else {
        return Err(Illegal("wmma.load/store take one layout: .row or .col"));
    };
    let acc_types = matches!(elem, Elem::F16 | Elem::F32 | Elem::S32 | Elem::F64);
    let ab_types = !matches!(elem, Elem::F32 | Elem::S32 | Elem::E4m3 | Elem::E5m2);
    let fits = match frag {
        Frag::Acc => acc_types,
        _ => ab_types,
    };
    // ptxas: "Illegal alayout": the sub-byte A is row-major only, B column-major only.
    if is_sub_byte(elem) && col != (frag == Frag::B) {
        return Err(Illegal(
            "the sub-byte wmma forms load A .row and B .col only",
        ));
    }
    if !fits || !wmma_shape_ok(shape, elem) {
        return Err(Illegal(
            "this combination of fragment, shape and type is not a wmma form",
        ));
    }
    Ok(WmmaMove {
        frag,
        shape,
        elem,
        col,
    })
}

/// Registers per lane of D, A, B and C of a `wmma.mma` of form `f`.
pub fn wmma_mma_regs(f: &MmaForm) -> [usize; 4] {
    let regs = |frag, elem| {
        WmmaMove {
            frag,
            shape: f.shape,
            elem,
            col: false,
        }
        .regs()
    };
    [
        regs(Frag::Acc, f.d),
        regs(Frag::A, f.a),
        regs(Frag::B, f.b),
        regs(Frag::Acc, f.c),
    ]
}

/// Classifies `wmma.mma` with modifiers `m`: the types are written `.dtype.ctype` for f16
/// and `.dtype.atype.btype.ctype` otherwise.
pub fn wmma_mma(m: &Mods) -> Result<MmaForm, MmaError> {
    use MmaError::Illegal;
    let shape = m
        .shape()
        .ok_or(Illegal("wmma needs a shape such as .m16n16k16"))?;
    let types: Vec<Elem> = m
        .types
        .iter()
        .flatten()
        .filter_map(|t| Elem::of(*t))
        .collect();
    let (d, a, b, c) = match types[..] {
        [d, c] => (d, Elem::F16, Elem::F16, c),
        [d, a, b, c] => (d, a, b, c),
        _ => return Err(Illegal("wmma.mma takes .dtype.ctype (f16) or four types")),
    };
    if !m.has(Flags::SYNC) || !m.has(Flags::ALIGNED) {
        return Err(Illegal("wmma must be .sync.aligned"));
    }
    if m.layouts().iter().any(Option::is_none) {
        return Err(Illegal(
            "wmma.mma takes the layouts of A and B: .row/.col twice",
        ));
    }
    let popc = m.sub == Some(SubOp::Popc);
    if (a == Elem::B1) != popc || (m.bool_op.is_some() != popc) || m.bool_op == Some(BoolOp::Or) {
        return Err(Illegal(
            "the .b1 form, and only it, takes .xor.popc or .and.popc",
        ));
    }
    let sub_byte = is_sub_byte(a);
    if sub_byte && m.layouts() != [Some(false), Some(true)] {
        return Err(Illegal("the sub-byte wmma.mma forms are .row.col"));
    }
    let float = !(sub_byte || matches!(a, Elem::S8 | Elem::U8));
    if m.has(Flags::SATFINITE) && (float || a == Elem::B1) {
        // ptxas: ".satfinite is not supported" on floating-point wmma.mma since PTX 6.5.
        return Err(Illegal(".satfinite belongs to the integer wmma.mma forms"));
    }
    if m.rnd.is_some() && a != Elem::F64 {
        return Err(Illegal("only wmma.mma .f64 takes a rounding modifier"));
    }
    let legal = match (a, b) {
        (Elem::F16, Elem::F16) => {
            matches!(d, Elem::F16 | Elem::F32) && matches!(c, Elem::F16 | Elem::F32)
        }
        (Elem::Bf16, Elem::Bf16) | (Elem::Tf32, Elem::Tf32) => d == Elem::F32 && c == Elem::F32,
        (x, y) if x.is_i8() && y.is_i8() => d == Elem::S32 && c == Elem::S32,
        // ptxas: "Unexpected instruction types" for .s4.u4 and .u4.s4.
        (Elem::S4, Elem::S4) | (Elem::U4, Elem::U4) | (Elem::B1, Elem::B1) => {
            d == Elem::S32 && c == Elem::S32
        }
        (Elem::F64, Elem::F64) => d == Elem::F64 && c == Elem::F64,
        _ => false,
    };
    if !legal || !wmma_shape_ok(shape, a) {
        return Err(Illegal(
            "this combination of shape and types is not a wmma.mma form",
        ));
    }
    Ok(MmaForm {
        shape,
        d,
        a,
        b,
        c,
        satfinite: m.has(Flags::SATFINITE),
        xor: m.bool_op == Some(BoolOp::Xor),
    })
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::ir::opcode::decode;

    fn classify(text: &str) -> Result<MmaForm, MmaError> {
        let d = decode(text, 0).expect("decodes");
        form(&d.mods)
    }

    #[test]
    fn register_counts_follow_the_fragment_sizes() {
        let f = classify("mma.sync.aligned.m16n8k16.row.col.f32.f16.f16.f32").unwrap();
        assert_eq!(f.regs(), [4, 4, 2, 4]);
        let f = classify("mma.sync.aligned.m16n8k16.row.col.f16.f16.f16.f16").unwrap();
        assert_eq!(f.regs(), [2, 4, 2, 2]);
        let f = classify("mma.sync.aligned.m16n8k8.row.col.f32.tf32.tf32.f32").unwrap();
        assert_eq!(f.regs(), [4, 4, 2, 4]);
        let f = classify("mma.sync.aligned.m16n8k16.row.col.f64.f64.f64.f64").unwrap();
        assert_eq!(f.regs(), [4, 8, 4, 4]);
        let f = classify("mma.sync.aligned.m8n8k4.row.col.f64.f64.f64.f64").unwrap();
        assert_eq!(f.regs(), [2, 1, 1, 2]);
        let f = classify("mma.sync.aligned.m16n8k64.row.col.satfinite.s32.s4.u4.s32").unwrap();
        assert_eq!(f.regs(), [4, 4, 2, 4]);
        let f = classify("mma.sync.aligned.m16n8k256.row.col.s32.b1.b1.s32.xor.popc").unwrap();
        assert!(f.xor);
        assert_eq!(f.regs(), [4, 4, 2, 4]);
    }

    #[test]
    fn illegal_combinations_are_refused() {
        for bad in [
            "mma.sync.aligned.m16n8k16.row.col.f16.bf16.bf16.f16",
            "mma.sync.aligned.m16n8k16.row.col.f32.f16.f16.f16",
            "mma.sync.aligned.m16n8k16.col.col.f32.f16.f16.f32",
            "mma.sync.aligned.m16n8k16.row.col.satfinite.f32.f16.f16.f32",
            "mma.sync.aligned.m16n8k32.row.col.s32.s8.s8.f32",
            "mma.sync.aligned.m16n8k128.row.col.s32.b1.b1.s32",
            "mma.sync.aligned.m16n8k16.row.col.f32.f16.f16",
            "mma.m16n8k16.row.col.f32.f16.f16.f32",
        ] {
            assert!(matches!(classify(bad), Err(MmaError::Illegal(_))), "{bad}");
        }
    }

    /// The sm_70 m8n8k4 forms (quad pairs) and the f64 roundings: what ptxas 13 takes for sm_90a.
    #[test]
    fn quad_pair_forms_and_f64_roundings() {
        for (text, regs) in [
            (
                "mma.sync.aligned.m8n8k4.row.row.f32.f16.f16.f32",
                [8, 2, 2, 8],
            ),
            (
                "mma.sync.aligned.m8n8k4.col.row.f16.f16.f16.f16",
                [4, 2, 2, 4],
            ),
            (
                "mma.sync.aligned.m8n8k4.col.col.f32.f16.f16.f16",
                [8, 2, 2, 4],
            ),
        ] {
            let f = classify(text).unwrap();
            assert!(f.is_quad_pair(), "{text}");
            assert_eq!(f.regs(), regs, "{text}");
        }
        assert!(!classify("mma.sync.aligned.m8n8k4.row.col.f64.f64.f64.f64")
            .unwrap()
            .is_quad_pair());
        assert!(classify("mma.sync.aligned.m16n8k16.row.col.rz.f64.f64.f64.f64").is_ok());
        assert!(matches!(
            classify("mma.sync.aligned.m8n8k4.row.col.f32.bf16.bf16.f32"),
            Err(MmaError::NotExecutable(_))
        ));
        for bad in [
            // ptxas: ".dtype must be '.f32' when .ctype is '.f32'"; "Unexpected instruction types".
            "mma.sync.aligned.m8n8k4.row.col.f16.f16.f16.f32",
            "mma.sync.aligned.m8n8k4.row.col.f32.bf16.bf16.f16",
            "mma.sync.aligned.m8n8k4.row.col.satfinite.f32.f16.f16.f32",
            "mma.sync.aligned.m16n8k16.row.col.rn.f32.f16.f16.f32",
        ] {
            assert!(matches!(classify(bad), Err(MmaError::Illegal(_))), "{bad}");
        }
    }

    fn wmma(text: &str) -> Result<MmaForm, MmaError> {
        wmma_mma(&decode(text, 0).expect("decodes").mods)
    }

    fn wmove(text: &str, store: bool) -> Result<WmmaMove, MmaError> {
        wmma_move(&decode(text, 0).expect("decodes").mods, store)
    }

    /// The sub-byte, mixed-type and rounded wmma forms ptxas 13 takes for sm_90a, and some it
    /// rejects.
    #[test]
    fn wmma_forms_follow_ptxas() {
        for ok in [
            "wmma.mma.sync.aligned.row.col.m8n8k32.s32.s4.s4.s32",
            "wmma.mma.sync.aligned.row.col.m8n8k32.s32.u4.u4.s32.satfinite",
            "wmma.mma.xor.popc.sync.aligned.row.col.m8n8k128.s32.b1.b1.s32",
            "wmma.mma.and.popc.sync.aligned.row.col.m8n8k128.s32.b1.b1.s32",
            "wmma.mma.sync.aligned.row.col.m16n16k16.f32.f16",
            "wmma.mma.sync.aligned.col.row.m32n8k16.f16.f32",
            "wmma.mma.sync.aligned.row.col.m8n8k4.rz.f64.f64.f64.f64",
        ] {
            assert!(wmma(ok).is_ok(), "{ok}");
        }
        let f = wmma("wmma.mma.xor.popc.sync.aligned.row.col.m8n8k128.s32.b1.b1.s32").unwrap();
        assert!(f.xor);
        assert_eq!(wmma_mma_regs(&f), [2, 1, 1, 2]);
        for bad in [
            "wmma.mma.sync.aligned.row.col.m8n8k32.s32.s4.u4.s32",
            "wmma.mma.sync.aligned.col.col.m8n8k32.s32.s4.s4.s32",
            "wmma.mma.sync.aligned.row.col.m8n8k128.s32.b1.b1.s32",
            "wmma.mma.xor.popc.sync.aligned.row.col.m8n8k128.s32.b1.b1.s32.satfinite",
            "wmma.mma.sync.aligned.row.col.m16n16k16.f32.f32.satfinite",
            "wmma.mma.sync.aligned.row.col.m8n8k32.s32.s8.s8.s32",
        ] {
            assert!(matches!(wmma(bad), Err(MmaError::Illegal(_))), "{bad}");
        }
        let mv = wmove("wmma.load.a.sync.aligned.row.m8n8k32.global.s4", false).unwrap();
        assert_eq!(mv.regs(), 1);
        let mv = wmove("wmma.load.b.sync.aligned.col.m8n8k128.global.b1", false).unwrap();
        assert_eq!(mv.regs(), 1);
        let mv = wmove("wmma.store.d.sync.aligned.col.m8n8k128.global.s32", true).unwrap();
        assert_eq!(mv.regs(), 2);
        let mv = wmove("wmma.load.c.sync.aligned.row.m8n8k32.global.f32", false).unwrap();
        assert_eq!(mv.regs(), 2);
        for bad in [
            "wmma.load.a.sync.aligned.col.m8n8k32.global.s4",
            "wmma.load.b.sync.aligned.row.m8n8k128.global.b1",
            "wmma.load.a.sync.aligned.row.m8n8k128.global.s4",
            "wmma.load.a.sync.aligned.row.m16n16k16.global.e4m3",
        ] {
            assert!(
                matches!(wmove(bad, false), Err(MmaError::Illegal(_))),
                "{bad}"
            );
        }
    }
}
