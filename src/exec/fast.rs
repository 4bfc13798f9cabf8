//! Warp-wide fast forms of the hottest instructions: 32- and 64-bit integer `add`, `sub`, `mul`,
//! `mad`, `div`, `rem`, logic, `bfi`, shifts, `min`/`max`, `setp`, `selp`, `prmt`, `mov` (also of 16
//! bits) and integer widening/narrowing `cvt` (PTX ISA 9.0 sections 9.7.1, 9.7.7, 9.7.8, 9.7.9.1,
//! 9.7.9.21), round-to-nearest `f32` `add`, `sub`, `mul`, `fma` and `setp` (9.7.3), `ld`/`st` of
//! shared and global memory (9.7.9.8-9, run by `memfast.rs`), and the prologue's `ld.param` of a
//! kernel parameter and `mov` of a special register (run by `launchval.rs`, which reads the
//! launch). `translate.rs` picks them once per launch. A fast form
//! computes exactly what the general handler does (`tests/fast_forms.rs` runs both on random
//! operands), but over whole register rows: every lane of `regs[r * 32 ..][..32]` is computed and
//! the active ones written, in loops without branches that the compiler vectorises. The meaning
//! of each operation is not written here: every lane calls the inlined pure function of
//! `sem/` (`sem::int`, `sem::bits`, `sem::float`) that the general handlers call too.
use super::lanes::WARP;
use crate::ir::mods::Cmp;
use crate::ir::{SpecialReg, Type};
use crate::sem::bits::{self, w32 as s32, w64 as s64};
use crate::sem::float::{self, Bin};
use crate::sem::int::{self, holds, order_key, sext, w32, w64};
pub(crate) use crate::sem::int::{Key, Rel};

/// A source: a register row, or an immediate already cut to the instruction's width.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Src {
    Reg(u32),
    Imm(u64),
}

/// A 32-bit source: a register row, or an immediate (kept small, so that [`Fast`] with two of
/// them stays as large as its largest other form).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Src32 {
    Reg(u32),
    Imm(u32),
}

impl Src32 {
    pub fn wide(self) -> Src {
        match self {
            Src32::Reg(r) => Src::Reg(r),
            Src32::Imm(v) => Src::Imm(u64::from(v)),
        }
    }
}

/// Two-source integer operations; `I32` forms read and write the low 32 bits.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum IntOp {
    Add,
    Sub,
    MulLo,
    MulHiS,
    MulHiU,
    And,
    Or,
    Xor,
    Shl,
    ShrU,
    ShrS,
    MinS,
    MinU,
    MaxS,
    MaxU,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum FOp {
    Add,
    Sub,
    Mul,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Widen {
    /// 32 -> 64, zero-extended.
    Zext,
    /// 32 -> 64, sign-extended.
    Sext,
    /// 64 -> 32.
    Trunc,
}

/// The fast form of one instruction. `d` is the destination register.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Fast {
    Slow,
    I32 {
        op: IntOp,
        d: u32,
        a: Src,
        b: Src,
    },
    I64 {
        op: IntOp,
        d: u32,
        a: Src,
        b: Src,
    },
    /// `mul.wide.{s,u}32`: 32 x 32 -> 64.
    MulWide {
        signed: bool,
        d: u32,
        a: Src,
        b: Src,
    },
    /// `mad.lo.{s,u,b}32`.
    Mad32 {
        d: u32,
        a: Src,
        b: Src,
        c: Src,
    },
    /// `mad.lo` on 64 bits.
    Mad64 {
        d: u32,
        a: Src,
        b: Src,
        c: Src,
    },
    /// `mad.wide.{s,u}32`: 32 x 32 + 64 -> 64.
    MadWide {
        signed: bool,
        d: u32,
        a: Src,
        b: Src,
        c: Src,
    },
    Setp {
        key: Key,
        rel: Rel,
        d: u32,
        a: Src,
        b: Src,
    },
    /// `selp`: `p` a predicate register.
    Selp {
        d: u32,
        a: Src,
        b: Src,
        p: u32,
    },
    Mov {
        d: u32,
        a: Src,
    },
    Cvt {
        w: Widen,
        d: u32,
        a: Src,
    },
    F32 {
        op: FOp,
        d: u32,
        a: Src,
        b: Src,
    },
    Fma32 {
        d: u32,
        a: Src,
        b: Src,
        c: Src,
    },
    SetpF32 {
        cmp: Cmp,
        d: u32,
        a: Src,
        b: Src,
    },
    /// `div`/`rem` of integer type `t` (4 or 8 bytes; `sem::int::div`, `rem`).
    Div {
        t: Type,
        rem: bool,
        d: u32,
        a: Src,
        b: Src,
    },
    /// `ld.param` of `w` bytes at byte `off` of the kernel's parameter buffer into register
    /// `d`, filled as `ext` says: one value for every lane (`launchval.rs` runs it).
    Param {
        d: u32,
        off: u32,
        w: u8,
        ext: Ext,
    },
    /// `mov` of special register `s` into register `d` (`launchval.rs` runs it).
    Special {
        d: u32,
        s: SpecialReg,
    },
    /// `bfi.b32`/`.b64` (`bits`): the low `len` bits of `a` inserted into `b` at `pos`
    /// (`sem::bits::bfi`; position and length are 32-bit sources, of which it reads a byte).
    Bfi {
        bits: u8,
        d: u32,
        a: Src,
        b: Src,
        pos: Src32,
        len: Src32,
    },
    /// `prmt.b32` in its default mode: the bytes of {b, a} the nibbles of `c` pick.
    Prmt {
        d: u32,
        a: Src,
        b: Src,
        c: Src,
    },
    /// `ld.shared`/`ld.global` of `n` (1, 2 or 4: `.v2`, `.v4`) elements of `w` (4 or 8) bytes,
    /// at most 16 in all, into registers `d[..n]` of that width, or of one element of 1 or 2
    /// bytes into a register of any width `ext` fills; at `base + off` (`base` a register, or
    /// none for a constant address); `memfast.rs` runs it.
    Ld {
        global: bool,
        w: u8,
        n: u8,
        ext: Ext,
        d: [u32; 4],
        base: Option<u32>,
        off: u64,
    },
    /// `st.shared`/`st.global` of `w` bytes of `v`.
    St {
        global: bool,
        w: u8,
        v: Src,
        base: Option<u32>,
        off: u64,
    },
    /// `st.shared.v2`/`.v4` (and `.global`) of `n` elements of `w` bytes from registers `v[..n]`.
    StV {
        global: bool,
        w: u8,
        n: u8,
        v: [u32; 4],
        base: Option<u32>,
        off: u64,
    },
}

/// How a loaded element fills its destination register, as `memops::load` fills it: the
/// element sign-extended (`signed`) or zero-extended, then cut to the register's `wide` bytes
/// (`Ctx::set_reg`).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) struct Ext {
    pub wide: u8,
    pub signed: bool,
}

impl Ext {
    /// An element loaded into a register of its own width `w`: as it is.
    pub fn plain(w: u8) -> Ext {
        Ext {
            wide: w,
            signed: false,
        }
    }

    /// The register value of the element `raw` of `w` bytes.
    #[inline(always)]
    pub fn fill(self, raw: u64, w: usize) -> u64 {
        let v = match self.signed {
            true => sext(raw, w as u32 * 8) as u64,
            false => raw,
        };
        v & super::lanes::mask(u32::from(self.wide) * 8)
    }
}

impl Fast {
    /// Loads and stores need memory, and run through `memfast.rs`.
    pub fn is_mem(self) -> bool {
        matches!(self, Fast::Ld { .. } | Fast::St { .. } | Fast::StV { .. })
    }

    pub fn is_store(self) -> bool {
        matches!(self, Fast::St { .. } | Fast::StV { .. })
    }

    /// Values that come from the launch, not from registers: run by `launchval.rs`, never in
    /// a straight run.
    pub fn reads_launch(self) -> bool {
        matches!(self, Fast::Param { .. } | Fast::Special { .. })
    }
}

pub(crate) type Row = [u64; WARP];

#[inline(always)]
pub(crate) fn row(regs: &[u64], s: Src) -> Row {
    match s {
        Src::Reg(r) => {
            let mut out = [0u64; WARP];
            out.copy_from_slice(&regs[r as usize * WARP..][..WARP]);
            out
        }
        Src::Imm(v) => [v; WARP],
    }
}

/// Writes the active lanes of `out` to register `d`.
#[inline(always)]
fn put(regs: &mut [u64], d: u32, active: u32, out: &Row) {
    let dst = &mut regs[d as usize * WARP..][..WARP];
    if active == u32::MAX {
        dst.copy_from_slice(out);
    } else {
        for (l, (x, &v)) in dst.iter_mut().zip(out).enumerate() {
            if active >> l & 1 != 0 {
                *x = v;
            }
        }
    }
}

#[inline(always)]
fn map2(regs: &mut [u64], d: u32, active: u32, a: Src, b: Src, f: impl Fn(u64, u64) -> u64) {
    let (a, b) = (row(regs, a), row(regs, b));
    let mut out = [0u64; WARP];
    for l in 0..WARP {
        out[l] = f(a[l], b[l]);
    }
    put(regs, d, active, &out);
}

#[inline(always)]
fn map3(
    regs: &mut [u64],
    (d, active): (u32, u32),
    a: Src,
    b: Src,
    c: Src,
    f: impl Fn(u64, u64, u64) -> u64,
) {
    let (a, b, c) = (row(regs, a), row(regs, b), row(regs, c));
    let mut out = [0u64; WARP];
    for l in 0..WARP {
        out[l] = f(a[l], b[l], c[l]);
    }
    put(regs, d, active, &out);
}

/// `fma.rn.f32` over a warp. Built for the baseline x86-64 target, `mul_add` is a call into a
/// software routine (8 % of the tiled SGEMM's time); a copy built with the FMA instructions is
/// chosen at run time where the CPU has them. Both round once, as PTX requires: same bits.
#[multiversion::multiversion(targets("x86_64+avx+avx2+fma", "x86_64+fma"))]
fn fma32(regs: &mut [u64], dst: (u32, u32), a: Src, b: Src, c: Src) {
    map3(regs, dst, a, b, c, |x, y, z| {
        u64::from(float::fma_rn_f32(x as u32, y as u32, z as u32))
    })
}

/// A 32-bit operation on the low halves of two register values, zero-extended.
#[inline(always)]
fn lo32(g: impl Fn(u32, u32) -> u32) -> impl Fn(u64, u64) -> u64 {
    move |x, y| u64::from(g(x as u32, y as u32))
}

/// Runs a fast form over the lanes in `active` (at least one). `regs` is the frame's register
/// file, `regs[r * 32 + lane]`. Built twice, as for baseline x86-64 and for x86-64-v3 (AVX2,
/// BMI, FMA), the copy chosen at run time by CPU detection: the 32-lane loops inlined here
/// vectorise 4 lanes of 64 bits to an instruction. Integer and bit operations give the same bits
/// in both; the only floating-point operation that could differ, the fused multiply-add, is
/// correctly rounded in both (`fma32`).
#[multiversion::multiversion(targets("x86_64+avx+avx2+bmi1+bmi2+fma+lzcnt+popcnt+movbe"))]
pub(crate) fn exec(form: Fast, regs: &mut [u64], active: u32) {
    match form {
        Fast::Slow
        | Fast::Ld { .. }
        | Fast::St { .. }
        | Fast::StV { .. }
        | Fast::Param { .. }
        | Fast::Special { .. } => {}
        Fast::I32 { op, d, a, b } => int32(op, regs, d, active, a, b),
        Fast::I64 { op, d, a, b } => int64(op, regs, d, active, a, b),
        Fast::MulWide {
            signed: true,
            d,
            a,
            b,
        } => map2(regs, d, active, a, b, |x, y| {
            w32::mul_wide_s(x as u32, y as u32)
        }),
        Fast::MulWide {
            signed: false,
            d,
            a,
            b,
        } => map2(regs, d, active, a, b, |x, y| {
            w32::mul_wide_u(x as u32, y as u32)
        }),
        Fast::Mad32 { d, a, b, c } => map3(regs, (d, active), a, b, c, |x, y, z| {
            u64::from(w32::mad_lo(x as u32, y as u32, z as u32))
        }),
        Fast::Mad64 { d, a, b, c } => map3(regs, (d, active), a, b, c, w64::mad_lo),
        Fast::MadWide {
            signed: true,
            d,
            a,
            b,
            c,
        } => map3(regs, (d, active), a, b, c, |x, y, z| {
            w32::mad_wide_s(x as u32, y as u32, z)
        }),
        Fast::MadWide {
            signed: false,
            d,
            a,
            b,
            c,
        } => map3(regs, (d, active), a, b, c, |x, y, z| {
            w32::mad_wide_u(x as u32, y as u32, z)
        }),
        Fast::Setp { key, rel, d, a, b } => setp(regs, key, rel, (d, active), a, b),
        Fast::Selp { d, a, b, p } => map3(regs, (d, active), a, b, Src::Reg(p), |x, y, q| {
            if q != 0 {
                x
            } else {
                y
            }
        }),
        Fast::Mov { d, a } => {
            let a = row(regs, a);
            put(regs, d, active, &a)
        }
        Fast::Cvt { w, d, a } => match w {
            Widen::Zext | Widen::Trunc => map2(regs, d, active, a, a, |x, _| x & int::mask(32)),
            Widen::Sext => map2(regs, d, active, a, a, |x, _| sext(x, 32) as u64),
        },
        Fast::F32 { op, d, a, b } => match op {
            FOp::Add => map2(
                regs,
                d,
                active,
                a,
                b,
                lo32(|x, y| float::bin_rn_f32(Bin::Add, x, y)),
            ),
            FOp::Sub => map2(
                regs,
                d,
                active,
                a,
                b,
                lo32(|x, y| float::bin_rn_f32(Bin::Sub, x, y)),
            ),
            FOp::Mul => map2(
                regs,
                d,
                active,
                a,
                b,
                lo32(|x, y| float::bin_rn_f32(Bin::Mul, x, y)),
            ),
        },
        Fast::Fma32 { d, a, b, c } => fma32(regs, (d, active), a, b, c),
        Fast::SetpF32 { cmp, d, a, b } => setp_f32(regs, cmp, (d, active), a, b),
        Fast::Prmt { d, a, b, c } => map3(regs, (d, active), a, b, c, |x, y, z| {
            bits::prmt(x as u32, y as u32, z as u32, None)
        }),
        Fast::Div { t, rem, d, a, b } => div_rem(regs, (d, active), t, rem, a, b),
        Fast::Bfi {
            bits,
            d,
            a,
            b,
            pos,
            len,
        } => bfi(
            regs,
            (d, active),
            u32::from(bits),
            [a, b, pos.wide(), len.wide()],
        ),
    }
}

/// `bfi` of `bits` bits, cut to them as the general handler cuts its result.
#[inline(always)]
fn bfi(regs: &mut [u64], (d, active): (u32, u32), bits: u32, srcs: [Src; 4]) {
    let [a, b, p, n] = srcs.map(|s| row(regs, s));
    let cut = int::mask(bits);
    let mut out = [0u64; WARP];
    for l in 0..WARP {
        out[l] = bits::bfi(a[l], b[l], p[l], n[l], bits) & cut;
    }
    put(regs, d, active, &out);
}

/// `div`/`rem` of type `t`, the quotient cut to the register's width as `Ctx::set_reg` cuts
/// it (a signed 32-bit quotient comes sign-extended from `sem::int::div`).
#[inline(always)]
fn div_rem(regs: &mut [u64], (d, active): (u32, u32), t: Type, rem: bool, a: Src, b: Src) {
    let cut = int::mask(t.size() * 8);
    match rem {
        false => map2(regs, d, active, a, b, |x, y| int::div(x, y, t) & cut),
        true => map2(regs, d, active, a, b, |x, y| int::rem(x, y, t) & cut),
    }
}

#[inline(always)]
fn int32(op: IntOp, regs: &mut [u64], d: u32, active: u32, a: Src, b: Src) {
    match op {
        IntOp::Add => map2(regs, d, active, a, b, lo32(u32::wrapping_add)),
        IntOp::Sub => map2(regs, d, active, a, b, lo32(u32::wrapping_sub)),
        IntOp::MulLo => map2(regs, d, active, a, b, lo32(u32::wrapping_mul)),
        IntOp::MulHiS => map2(regs, d, active, a, b, lo32(w32::mul_hi_s)),
        IntOp::MulHiU => map2(regs, d, active, a, b, lo32(w32::mul_hi_u)),
        IntOp::And => map2(regs, d, active, a, b, lo32(|x, y| x & y)),
        IntOp::Or => map2(regs, d, active, a, b, lo32(|x, y| x | y)),
        IntOp::Xor => map2(regs, d, active, a, b, lo32(|x, y| x ^ y)),
        IntOp::Shl => map2(regs, d, active, a, b, lo32(s32::shl)),
        IntOp::ShrU => map2(regs, d, active, a, b, lo32(s32::shr_u)),
        IntOp::ShrS => map2(regs, d, active, a, b, lo32(s32::shr_s)),
        IntOp::MinS => map2(regs, d, active, a, b, lo32(w32::min_s)),
        IntOp::MinU => map2(regs, d, active, a, b, lo32(u32::min)),
        IntOp::MaxS => map2(regs, d, active, a, b, lo32(w32::max_s)),
        IntOp::MaxU => map2(regs, d, active, a, b, lo32(u32::max)),
    }
}

#[inline(always)]
fn int64(op: IntOp, regs: &mut [u64], d: u32, active: u32, a: Src, b: Src) {
    // A shift count is the source's low 32 bits.
    let count = |g: fn(u64, u32) -> u64| move |x: u64, n: u64| g(x, n as u32);
    match op {
        IntOp::Add => map2(regs, d, active, a, b, u64::wrapping_add),
        IntOp::Sub => map2(regs, d, active, a, b, u64::wrapping_sub),
        IntOp::MulLo => map2(regs, d, active, a, b, u64::wrapping_mul),
        IntOp::MulHiS => map2(regs, d, active, a, b, w64::mul_hi_s),
        IntOp::MulHiU => map2(regs, d, active, a, b, w64::mul_hi_u),
        IntOp::And => map2(regs, d, active, a, b, |x, y| x & y),
        IntOp::Or => map2(regs, d, active, a, b, |x, y| x | y),
        IntOp::Xor => map2(regs, d, active, a, b, |x, y| x ^ y),
        IntOp::Shl => map2(regs, d, active, a, b, count(s64::shl)),
        IntOp::ShrU => map2(regs, d, active, a, b, count(s64::shr_u)),
        IntOp::ShrS => map2(regs, d, active, a, b, count(s64::shr_s)),
        IntOp::MinS => map2(regs, d, active, a, b, w64::min_s),
        IntOp::MinU => map2(regs, d, active, a, b, u64::min),
        IntOp::MaxS => map2(regs, d, active, a, b, w64::max_s),
        IntOp::MaxU => map2(regs, d, active, a, b, u64::max),
    }
}

/// Integer `setp`: both operands mapped to a key that compares as unsigned 64-bit
/// (`sem::int::order_key`), then the relation, a constant in each arm of the loop.
#[inline(always)]
fn setp(regs: &mut [u64], key: Key, rel: Rel, (d, active): (u32, u32), a: Src, b: Src) {
    let (a, b) = (row(regs, a), row(regs, b));
    let (mut x, mut y) = ([0u64; WARP], [0u64; WARP]);
    for l in 0..WARP {
        x[l] = order_key(key, a[l]);
        y[l] = order_key(key, b[l]);
    }
    let mut out = [0u64; WARP];
    macro_rules! cmp {
        ($rel:expr) => {
            for l in 0..WARP {
                out[l] = u64::from(holds($rel, x[l], y[l]));
            }
        };
    }
    match rel {
        Rel::Eq => cmp!(Rel::Eq),
        Rel::Ne => cmp!(Rel::Ne),
        Rel::Lt => cmp!(Rel::Lt),
        Rel::Le => cmp!(Rel::Le),
        Rel::Gt => cmp!(Rel::Gt),
        Rel::Ge => cmp!(Rel::Ge),
    }
    put(regs, d, active, &out);
}

/// `setp.cmp.f32` (`sem::float::compare`): ordered comparisons are false on NaN, the `u`
/// forms true; the operator is a constant in each arm of the loop.
#[inline(always)]
fn setp_f32(regs: &mut [u64], cmp: Cmp, (d, active): (u32, u32), a: Src, b: Src) {
    let f = |v: u64| f32::from_bits(v as u32);
    macro_rules! by {
        ($($c:ident),*) => {
            match cmp {
                $(Cmp::$c => map2(regs, d, active, a, b, |x, y| {
                    u64::from(float::compare(Cmp::$c, f(x), f(y)))
                }),)*
            }
        };
    }
    by!(Eq, Ne, Lt, Lo, Le, Ls, Gt, Hi, Ge, Hs, Equ, Neu, Ltu, Leu, Gtu, Geu, Num, Nan);
}
