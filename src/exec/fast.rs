//! Warp-wide fast forms of the hottest instructions: 32- and 64-bit integer `add`, `sub`, `mul`,
//! `mad`, logic, shifts, `min`/`max`, `setp`, `selp`, `mov` and integer widening/narrowing `cvt`
//! (PTX ISA 9.0 sections 9.7.1, 9.7.7, 9.7.8, 9.7.9.1, 9.7.9.21), round-to-nearest `f32` `add`,
//! `sub`, `mul`, `fma` and `setp` (9.7.3), and scalar `ld`/`st` of shared and global memory
//! (9.7.9.8-9, run by `memfast.rs`). `translate.rs` picks them once per launch. A fast form
//! computes exactly what the general handler does (`tests/fast_forms.rs` runs both on random
//! operands), but over whole register rows: every lane of `regs[r * 32 ..][..32]` is computed and
//! the active ones written, in loops without branches that the compiler vectorises.
use super::lanes::WARP;
use crate::ir::mods::Cmp;

/// A source: a register row, or an immediate already cut to the instruction's width.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Src {
    Reg(u32),
    Imm(u64),
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

/// How an integer comparison reads its operands.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Key {
    S32,
    U32,
    S64,
    U64,
}

/// The six integer relations (`lo`/`ls`/`hi`/`hs` are `lt`/`le`/`gt`/`ge` read unsigned).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Rel {
    Eq,
    Ne,
    Lt,
    Le,
    Gt,
    Ge,
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
    /// `ld.shared`/`ld.global` of `n` (1, 2 or 4: `.v2`, `.v4`) elements of `w` (4 or 8) bytes,
    /// at most 16 in all, into registers `d[..n]` of that width, at `base + off` (`base` a
    /// register, or none for a constant address); `memfast.rs` runs it.
    Ld {
        global: bool,
        w: u8,
        n: u8,
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

impl Fast {
    /// Loads and stores need memory, and run through `memfast.rs`.
    pub fn is_mem(self) -> bool {
        matches!(self, Fast::Ld { .. } | Fast::St { .. } | Fast::StV { .. })
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
#[multiversion::multiversion(targets("x86_64+fma"))]
fn fma32(regs: &mut [u64], dst: (u32, u32), a: Src, b: Src, c: Src) {
    map3(regs, dst, a, b, c, |x, y, z| {
        canon(f(x).mul_add(f(y), f(z)))
    })
}

/// The canonical NaN an NVIDIA f32 operation returns for any NaN result.
#[inline(always)]
fn canon(x: f32) -> u64 {
    if x.is_nan() {
        0x7fff_ffff
    } else {
        u64::from(x.to_bits())
    }
}

#[inline(always)]
fn f(v: u64) -> f32 {
    f32::from_bits(v as u32)
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
        Fast::Slow | Fast::Ld { .. } | Fast::St { .. } | Fast::StV { .. } => {}
        Fast::I32 { op, d, a, b } => int32(op, regs, d, active, a, b),
        Fast::I64 { op, d, a, b } => int64(op, regs, d, active, a, b),
        Fast::MulWide {
            signed: true,
            d,
            a,
            b,
        } => map2(regs, d, active, a, b, |x, y| {
            (i64::from(x as i32) * i64::from(y as i32)) as u64
        }),
        Fast::MulWide {
            signed: false,
            d,
            a,
            b,
        } => map2(regs, d, active, a, b, |x, y| {
            u64::from(x as u32) * u64::from(y as u32)
        }),
        Fast::Mad32 { d, a, b, c } => map3(regs, (d, active), a, b, c, |x, y, z| {
            u64::from((x as u32).wrapping_mul(y as u32).wrapping_add(z as u32))
        }),
        Fast::Mad64 { d, a, b, c } => map3(regs, (d, active), a, b, c, |x, y, z| {
            x.wrapping_mul(y).wrapping_add(z)
        }),
        Fast::MadWide {
            signed: true,
            d,
            a,
            b,
            c,
        } => map3(regs, (d, active), a, b, c, |x, y, z| {
            ((i64::from(x as i32) * i64::from(y as i32)) as u64).wrapping_add(z)
        }),
        Fast::MadWide {
            signed: false,
            d,
            a,
            b,
            c,
        } => map3(regs, (d, active), a, b, c, |x, y, z| {
            (u64::from(x as u32) * u64::from(y as u32)).wrapping_add(z)
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
            Widen::Zext => map2(regs, d, active, a, a, |x, _| u64::from(x as u32)),
            Widen::Sext => map2(regs, d, active, a, a, |x, _| i64::from(x as i32) as u64),
            Widen::Trunc => map2(regs, d, active, a, a, |x, _| u64::from(x as u32)),
        },
        Fast::F32 { op, d, a, b } => match op {
            FOp::Add => map2(regs, d, active, a, b, |x, y| canon(f(x) + f(y))),
            FOp::Sub => map2(regs, d, active, a, b, |x, y| canon(f(x) - f(y))),
            FOp::Mul => map2(regs, d, active, a, b, |x, y| canon(f(x) * f(y))),
        },
        Fast::Fma32 { d, a, b, c } => fma32(regs, (d, active), a, b, c),
        Fast::SetpF32 { cmp, d, a, b } => setp_f32(regs, cmp, (d, active), a, b),
    }
}

#[inline(always)]
fn int32(op: IntOp, regs: &mut [u64], d: u32, active: u32, a: Src, b: Src) {
    let w = |g: fn(u32, u32) -> u32| move |x: u64, y: u64| u64::from(g(x as u32, y as u32));
    match op {
        IntOp::Add => map2(regs, d, active, a, b, w(u32::wrapping_add)),
        IntOp::Sub => map2(regs, d, active, a, b, w(u32::wrapping_sub)),
        IntOp::MulLo => map2(regs, d, active, a, b, w(u32::wrapping_mul)),
        IntOp::MulHiS => map2(regs, d, active, a, b, |x, y| {
            u64::from(((i64::from(x as i32) * i64::from(y as i32)) >> 32) as u32)
        }),
        IntOp::MulHiU => map2(regs, d, active, a, b, |x, y| {
            (u64::from(x as u32) * u64::from(y as u32)) >> 32
        }),
        IntOp::And => map2(regs, d, active, a, b, |x, y| (x & y) & 0xffff_ffff),
        IntOp::Or => map2(regs, d, active, a, b, |x, y| (x | y) & 0xffff_ffff),
        IntOp::Xor => map2(regs, d, active, a, b, |x, y| (x ^ y) & 0xffff_ffff),
        IntOp::Shl => map2(regs, d, active, a, b, |x, n| {
            let n = n as u32;
            if n >= 32 {
                0
            } else {
                u64::from((x as u32) << n)
            }
        }),
        IntOp::ShrU => map2(regs, d, active, a, b, |x, n| {
            let n = n as u32;
            if n >= 32 {
                0
            } else {
                u64::from((x as u32) >> n)
            }
        }),
        IntOp::ShrS => map2(regs, d, active, a, b, |x, n| {
            u64::from(((x as i32) >> (n as u32).min(31)) as u32)
        }),
        IntOp::MinS => map2(regs, d, active, a, b, |x, y| {
            u64::from((x as i32).min(y as i32) as u32)
        }),
        IntOp::MinU => map2(regs, d, active, a, b, w(u32::min)),
        IntOp::MaxS => map2(regs, d, active, a, b, |x, y| {
            u64::from((x as i32).max(y as i32) as u32)
        }),
        IntOp::MaxU => map2(regs, d, active, a, b, w(u32::max)),
    }
}

#[inline(always)]
fn int64(op: IntOp, regs: &mut [u64], d: u32, active: u32, a: Src, b: Src) {
    match op {
        IntOp::Add => map2(regs, d, active, a, b, u64::wrapping_add),
        IntOp::Sub => map2(regs, d, active, a, b, u64::wrapping_sub),
        IntOp::MulLo => map2(regs, d, active, a, b, u64::wrapping_mul),
        IntOp::MulHiS => map2(regs, d, active, a, b, |x, y| {
            ((i128::from(x as i64) * i128::from(y as i64)) >> 64) as u64
        }),
        IntOp::MulHiU => map2(regs, d, active, a, b, |x, y| {
            ((u128::from(x) * u128::from(y)) >> 64) as u64
        }),
        IntOp::And => map2(regs, d, active, a, b, |x, y| x & y),
        IntOp::Or => map2(regs, d, active, a, b, |x, y| x | y),
        IntOp::Xor => map2(regs, d, active, a, b, |x, y| x ^ y),
        IntOp::Shl => map2(regs, d, active, a, b, |x, n| {
            let n = n as u32;
            if n >= 64 {
                0
            } else {
                x << n
            }
        }),
        IntOp::ShrU => map2(regs, d, active, a, b, |x, n| {
            let n = n as u32;
            if n >= 64 {
                0
            } else {
                x >> n
            }
        }),
        IntOp::ShrS => map2(regs, d, active, a, b, |x, n| {
            ((x as i64) >> (n as u32).min(63)) as u64
        }),
        IntOp::MinS => map2(regs, d, active, a, b, |x, y| {
            (x as i64).min(y as i64) as u64
        }),
        IntOp::MinU => map2(regs, d, active, a, b, u64::min),
        IntOp::MaxS => map2(regs, d, active, a, b, |x, y| {
            (x as i64).max(y as i64) as u64
        }),
        IntOp::MaxU => map2(regs, d, active, a, b, u64::max),
    }
}

/// Integer `setp`: both operands mapped to a key that compares as unsigned 64-bit.
#[inline(always)]
fn setp(regs: &mut [u64], key: Key, rel: Rel, (d, active): (u32, u32), a: Src, b: Src) {
    const SIGN: u64 = 1 << 63;
    let norm = |v: u64| match key {
        Key::S32 => (i64::from(v as i32) as u64) ^ SIGN,
        Key::U32 => v & 0xffff_ffff,
        Key::S64 => v ^ SIGN,
        Key::U64 => v,
    };
    let (a, b) = (row(regs, a), row(regs, b));
    let (mut x, mut y) = ([0u64; WARP], [0u64; WARP]);
    for l in 0..WARP {
        x[l] = norm(a[l]);
        y[l] = norm(b[l]);
    }
    let mut out = [0u64; WARP];
    macro_rules! cmp {
        ($op:tt) => {
            for l in 0..WARP {
                out[l] = u64::from(x[l] $op y[l]);
            }
        };
    }
    match rel {
        Rel::Eq => cmp!(==),
        Rel::Ne => cmp!(!=),
        Rel::Lt => cmp!(<),
        Rel::Le => cmp!(<=),
        Rel::Gt => cmp!(>),
        Rel::Ge => cmp!(>=),
    }
    put(regs, d, active, &out);
}

/// `setp.cmp.f32`: ordered comparisons are false on NaN, the `u` forms true.
#[inline(always)]
fn setp_f32(regs: &mut [u64], cmp: Cmp, (d, active): (u32, u32), a: Src, b: Src) {
    let g: fn(f32, f32) -> bool = match cmp {
        Cmp::Eq => |x, y| x == y,
        Cmp::Ne => |x, y| !(x.is_nan() || y.is_nan()) && x != y,
        Cmp::Lt | Cmp::Lo => |x, y| x < y,
        Cmp::Le | Cmp::Ls => |x, y| x <= y,
        Cmp::Gt | Cmp::Hi => |x, y| x > y,
        Cmp::Ge | Cmp::Hs => |x, y| x >= y,
        Cmp::Equ => |x, y| x.is_nan() || y.is_nan() || x == y,
        Cmp::Neu => |x, y| x != y,
        Cmp::Ltu => |x, y| x.is_nan() || y.is_nan() || x < y,
        Cmp::Leu => |x, y| x.is_nan() || y.is_nan() || x <= y,
        Cmp::Gtu => |x, y| x.is_nan() || y.is_nan() || x > y,
        Cmp::Geu => |x, y| x.is_nan() || y.is_nan() || x >= y,
        Cmp::Num => |x, y| !(x.is_nan() || y.is_nan()),
        Cmp::Nan => |x, y| x.is_nan() || y.is_nan(),
    };
    map2(regs, d, active, a, b, |x, y| u64::from(g(f(x), f(y))));
}
