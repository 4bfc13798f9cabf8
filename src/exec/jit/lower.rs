//! One fast form (`fast.rs`) as Cranelift IR over two lanes at a time. The register file is
//! `regs[r * 32 + lane]`, a u64 per lane, so lanes `2c` and `2c + 1` of register `r` are the
//! `i64x2` at byte `(r * 32 + 2c) * 8`: a fragment loads its sources there, computes, and
//! stores its destination there, for every pair of lanes in turn. Each arm reproduces the pure
//! function of `sem/` that the fast form and the general handler call (PTX ISA 9.0 sections
//! 9.7.1, 9.7.3, 9.7.7-9.7.9 as `fast.rs` lists them): 32-bit results are the low word
//! zero-extended, shift counts saturate at the width, `f32` results have their NaNs made
//! canonical. Which forms have a fragment is [`lowerable`]; `jit/tests.rs` compares every one
//! with `fast::exec` on random registers of both widths, full and partial masks.
//!
//! Fragments rely on what every writer of a register keeps (`Ctx::set_reg`, the fast forms,
//! `memfast.rs`, these fragments): a register narrower than 8 bytes holds its value
//! zero-extended. A 32-bit operation then works on the `i32x4` view of a pair of lanes, whose
//! high words stay zero (`0 + 0`, `0 * 0`, `0.0 * 0.0`), with no mask after it; only results
//! that can reach the high word (a left shift, a sign extension) are cut. [`narrow_sources`]
//! names the registers read so, which the JIT checks before each call when asked to
//! (`Jit::verify`).

use super::super::fast::{FOp, Fast, IntOp, Key, Rel, Src, Widen};
use super::super::lanes::WARP;
use crate::ir::mods::Cmp;
use cranelift_codegen::ir::condcodes::{FloatCC, IntCC};
use cranelift_codegen::ir::types::{F32X4, I32, I32X4, I64, I64X2};
use cranelift_codegen::ir::{Endianness, InstBuilder, MemFlagsData, Value};
use cranelift_frontend::FunctionBuilder;

/// Bytes of one register's row.
pub(super) const ROW: i32 = (WARP * 8) as i32;
const LOW: i64 = 0xffff_ffff;
const SIGN: i64 = i64::MIN;

/// Whether `form` has a fragment here (`fma`: the host has fused multiply-add, which the
/// fragment of `fma.rn.f32` needs to round once), or is a load or store `mem` lets the JIT
/// compile ([`MemAccess`]).
pub(super) fn lowerable(form: Fast, fma: bool, mem: bool) -> bool {
    match form {
        Fast::Ld { .. } | Fast::St { .. } | Fast::StV { .. } => {
            mem && MemAccess::of(form).is_some()
        }
        // A division by zero must not trap; the launch's values are read by the interpreter.
        Fast::Slow
        | Fast::Div { .. }
        | Fast::Bfi { .. }
        | Fast::Param { .. }
        | Fast::Special { .. } => false,
        Fast::Fma32 { .. } => fma,
        // A selector that varies by lane picks bytes by lane: the interpreter's.
        Fast::Prmt { c, .. } => matches!(c, Src::Imm(_)),
        _ => true,
    }
}

/// A load or store the JIT compiles (`shared.rs`, and `global.rs` for `global`): `n` elements
/// of `ew` bytes (4 or 8; `bytes` in all, 4, 8 or 16) between `vals[..n]` (registers, or a
/// store's immediate) and register `base` (or 0) plus `off` (of a shared address, the low 32
/// bits): the shapes `memfast.rs` runs, whose rules it follows (each lane's access aligned to its
/// size and inside shared memory, or inside the global allocation of the first active lane's,
/// writable for a store; else the interpreter takes the instruction).
#[derive(Clone, Copy, Debug)]
pub(super) struct MemAccess {
    pub global: bool,
    pub store: bool,
    pub ew: u8,
    pub n: u8,
    pub bytes: i64,
    pub vals: [Src; 4],
    pub base: Option<u32>,
    pub off: u64,
}

impl MemAccess {
    pub fn of(form: Fast) -> Option<MemAccess> {
        let regs = |r: [u32; 4]| r.map(Src::Reg);
        let (global, store, w, n, vals, base, off) = match form {
            Fast::Ld {
                global,
                w,
                n,
                d,
                base,
                off,
                ..
            } => (global, false, w, n, regs(d), base, off),
            Fast::St {
                global,
                w,
                v,
                base,
                off,
            } => (global, true, w, 1, [v; 4], base, off),
            Fast::StV {
                global,
                w,
                n,
                v,
                base,
                off,
            } => (global, true, w, n, regs(v), base, off),
            _ => return None,
        };
        let bytes = i64::from(w) * i64::from(n);
        ((w == 4 || w == 8) && matches!(bytes, 4 | 8 | 16)).then_some(MemAccess {
            global,
            store,
            ew: w,
            n,
            bytes,
            vals,
            base,
            off,
        })
    }
}

/// Every register `form` reads or writes.
pub(super) fn registers(form: Fast) -> Vec<u32> {
    let (mut all, write) = sources(form);
    all.extend(write);
    if let Some(m) = MemAccess::of(form) {
        all.extend(m.base);
        all.extend(m.vals[..usize::from(m.n)].iter().filter_map(|v| match *v {
            Src::Reg(r) => Some(r),
            Src::Imm(_) => None,
        }));
    }
    all
}

/// The registers `form` reads and the one it writes (a memory form's: none, see
/// [`registers`]).
pub(super) fn sources(form: Fast) -> (Vec<u32>, Option<u32>) {
    let regs = |s: &[Src]| {
        s.iter()
            .filter_map(|s| match *s {
                Src::Reg(r) => Some(r),
                Src::Imm(_) => None,
            })
            .collect()
    };
    match form {
        Fast::I32 { d, a, b, .. }
        | Fast::I64 { d, a, b, .. }
        | Fast::MulWide { d, a, b, .. }
        | Fast::Setp { d, a, b, .. }
        | Fast::F32 { d, a, b, .. }
        | Fast::SetpF32 { d, a, b, .. } => (regs(&[a, b]), Some(d)),
        Fast::Mad32 { d, a, b, c }
        | Fast::Mad64 { d, a, b, c }
        | Fast::MadWide { d, a, b, c, .. }
        | Fast::Fma32 { d, a, b, c }
        | Fast::Prmt { d, a, b, c } => (regs(&[a, b, c]), Some(d)),
        Fast::Selp { d, a, b, p } => (regs(&[a, b, Src::Reg(p)]), Some(d)),
        Fast::Mov { d, a } | Fast::Cvt { d, a, .. } => (regs(&[a]), Some(d)),
        Fast::Div { d, a, b, .. } => (regs(&[a, b]), Some(d)),
        Fast::Bfi {
            d, a, b, pos, len, ..
        } => (regs(&[a, b, pos.wide(), len.wide()]), Some(d)),
        Fast::Param { d, .. } | Fast::Special { d, .. } => (Vec::new(), Some(d)),
        Fast::Slow | Fast::Ld { .. } | Fast::St { .. } | Fast::StV { .. } => (Vec::new(), None),
    }
}

/// The registers `form`'s fragment reads as 32-bit values, relying on their high words being
/// zero (the module's invariant; every 32-bit source of an arithmetic form, and a 64-bit
/// shift's count).
pub(super) fn narrow_sources(form: Fast) -> Vec<u32> {
    let narrow: Vec<Src> = match form {
        Fast::I32 { a, b, .. }
        | Fast::MulWide { a, b, .. }
        | Fast::MadWide { a, b, .. }
        | Fast::F32 { a, b, .. }
        | Fast::SetpF32 { a, b, .. }
        | Fast::Prmt { a, b, .. } => vec![a, b],
        Fast::Setp {
            key: Key::S32 | Key::U32,
            a,
            b,
            ..
        } => vec![a, b],
        Fast::Mad32 { a, b, c, .. } | Fast::Fma32 { a, b, c, .. } => vec![a, b, c],
        Fast::Cvt {
            w: Widen::Zext | Widen::Sext,
            a,
            ..
        } => vec![a],
        Fast::I64 {
            op: IntOp::Shl | IntOp::ShrU | IntOp::ShrS,
            b,
            ..
        } => vec![b],
        _ => Vec::new(),
    };
    (narrow.into_iter())
        .filter_map(|s| match s {
            Src::Reg(r) => Some(r),
            Src::Imm(_) => None,
        })
        .collect()
}

/// Emits, at the builder's position, `form` for the two lanes at `base` (the address of lane
/// `2c` of register 0); `keep` is the lane mask of a partial warp (all ones in a lane that
/// executes), whose other lanes keep their value. `form` must be [`lowerable`].
pub(super) fn fragment(b: &mut FunctionBuilder<'_>, form: Fast, base: Value, keep: Option<Value>) {
    let mut l = Lanes { b, base };
    let (d, v) = match form {
        Fast::I32 { op, d, a, b } => (d, l.int32(op, a, b)),
        Fast::I64 { op, d, a, b } => (d, l.int64(op, a, b)),
        Fast::MulWide { signed, d, a, b } => {
            let (x, y) = (l.src(a), l.src(b));
            let (x, y) = (l.ext32(x, signed), l.ext32(y, signed));
            (d, l.b.ins().imul(x, y))
        }
        Fast::Mad32 { d, a, b, c } => {
            let (x, y, z) = (l.src(a), l.src(b), l.src(c));
            let p = l.words(IntOp::MulLo, x, y);
            (d, l.words(IntOp::Add, p, z))
        }
        Fast::Mad64 { d, a, b, c } => {
            let (x, y, z) = (l.src(a), l.src(b), l.src(c));
            let p = l.b.ins().imul(x, y);
            (d, l.b.ins().iadd(p, z))
        }
        Fast::MadWide { signed, d, a, b, c } => {
            let (x, y, z) = (l.src(a), l.src(b), l.src(c));
            let (x, y) = (l.ext32(x, signed), l.ext32(y, signed));
            let p = l.b.ins().imul(x, y);
            (d, l.b.ins().iadd(p, z))
        }
        Fast::Setp { key, rel, d, a, b } => (d, l.setp(key, rel, a, b)),
        Fast::Selp { d, a, b, p } => {
            let (x, y, q) = (l.src(a), l.src(b), l.reg(p));
            let zero = l.splat(0);
            let set = l.b.ins().icmp(IntCC::NotEqual, q, zero);
            (d, l.b.ins().bitselect(set, x, y))
        }
        Fast::Mov { d, a } => (d, l.src(a)),
        Fast::Cvt { w, d, a } => {
            let x = l.src(a);
            match w {
                Widen::Zext => (d, x),
                Widen::Trunc => (d, l.low(x)),
                Widen::Sext => (d, l.sext32(x)),
            }
        }
        Fast::F32 { op, d, a, b } => (d, l.f32_bin(op, a, b)),
        Fast::Fma32 { d, a, b, c } => (d, l.f32_fma(a, b, c)),
        Fast::SetpF32 { cmp, d, a, b } => (d, l.setp_f32(cmp, a, b)),
        Fast::Prmt {
            d,
            a,
            b,
            c: Src::Imm(c),
        } => (d, l.prmt(a, b, c as u32)),
        // Not lowerable: a selector in a register, memory forms (`shared.rs`), division, `bfi`,
        // the launch's values.
        Fast::Prmt { .. }
        | Fast::Slow
        | Fast::Ld { .. }
        | Fast::St { .. }
        | Fast::StV { .. }
        | Fast::Div { .. }
        | Fast::Bfi { .. }
        | Fast::Param { .. }
        | Fast::Special { .. } => return,
    };
    l.put(d, v, keep);
}

/// The two lanes being built, at `base`.
struct Lanes<'a, 'b> {
    b: &'a mut FunctionBuilder<'b>,
    base: Value,
}

/// Register rows never trap (their bounds are checked before the call), and may be 8-byte
/// aligned only.
fn flags() -> MemFlagsData {
    MemFlagsData::new().with_notrap()
}

/// A lane reinterpretation on this little-endian layout.
fn little() -> MemFlagsData {
    MemFlagsData::new().with_endianness(Endianness::Little)
}

impl Lanes<'_, '_> {
    fn reg(&mut self, r: u32) -> Value {
        let off = r as i32 * ROW;
        self.b.ins().load(I64X2, flags(), self.base, off)
    }

    fn splat(&mut self, v: i64) -> Value {
        let s = self.b.ins().iconst(I64, v);
        self.b.ins().splat(I64X2, s)
    }

    fn src(&mut self, s: Src) -> Value {
        match s {
            Src::Reg(r) => self.reg(r),
            Src::Imm(v) => self.splat(v as i64),
        }
    }

    fn put(&mut self, d: u32, v: Value, keep: Option<Value>) {
        let v = match keep {
            Some(m) => {
                let old = self.reg(d);
                self.b.ins().bitselect(m, v, old)
            }
            None => v,
        };
        self.b.ins().store(flags(), v, self.base, d as i32 * ROW);
    }

    /// The low 32 bits, zero-extended.
    fn low(&mut self, v: Value) -> Value {
        let m = self.splat(LOW);
        self.b.ins().band(v, m)
    }

    /// The low 32 bits, sign-extended.
    fn sext32(&mut self, v: Value) -> Value {
        let up = self.b.ins().ishl_imm_u(v, 32);
        self.b.ins().sshr_imm_u(up, 32)
    }

    /// A 32-bit source as a 64-bit value: sign-extended, or as it is (zero-extended).
    fn ext32(&mut self, v: Value, signed: bool) -> Value {
        match signed {
            true => self.sext32(v),
            false => v,
        }
    }

    /// `sem::int::w32`/`sem::bits::w32` on zero-extended sources, zero-extended.
    fn int32(&mut self, op: IntOp, a: Src, b: Src) -> Value {
        let (x, y) = (self.src(a), self.src(b));
        match op {
            IntOp::Add | IntOp::Sub | IntOp::MulLo => self.words(op, x, y),
            IntOp::MulHiS | IntOp::MulHiU => {
                let signed = op == IntOp::MulHiS;
                let (x, y) = (self.ext32(x, signed), self.ext32(y, signed));
                let p = self.b.ins().imul(x, y);
                self.b.ins().ushr_imm_u(p, 32)
            }
            IntOp::And => self.b.ins().band(x, y),
            IntOp::Or => self.b.ins().bor(x, y),
            IntOp::Xor => self.b.ins().bxor(x, y),
            IntOp::Shl | IntOp::ShrU | IntOp::ShrS => self.shift(op, 32, x, b),
            // Zero-extended values order as unsigned 32-bit ones already.
            IntOp::MinU | IntOp::MaxU => self.pick(op == IntOp::MinU, x, y),
            IntOp::MinS | IntOp::MaxS => {
                let (x, y) = (self.sext32(x), self.sext32(y));
                let v = self.pick(op == IntOp::MinS, x, y);
                self.low(v)
            }
        }
    }

    /// `add`, `sub` or `mul.lo` of 32-bit values on the `i32x4` view (`paddd`, `psubd`,
    /// `pmulld`): the high words of zero-extended sources give zero.
    fn words(&mut self, op: IntOp, x: Value, y: Value) -> Value {
        let (x4, y4) = (
            self.b.ins().bitcast(I32X4, little(), x),
            self.b.ins().bitcast(I32X4, little(), y),
        );
        let v = match op {
            IntOp::Add => self.b.ins().iadd(x4, y4),
            IntOp::Sub => self.b.ins().isub(x4, y4),
            _ => self.b.ins().imul(x4, y4),
        };
        self.b.ins().bitcast(I64X2, little(), v)
    }

    /// `sem::bits::prmt` in the default mode with a constant selector `c`: output byte `i`
    /// is byte `c[4i+2..4i]` of the 64-bit {b, a}, or with `c`'s bit `4i+3` set that byte's
    /// sign bit replicated.
    fn prmt(&mut self, a: Src, b: Src, c: u32) -> Value {
        let (x, y) = (self.src(a), self.src(b));
        let hi = self.b.ins().ishl_imm_u(y, 32);
        let both = self.b.ins().bor(x, hi);
        let mut out = self.splat(0);
        for i in 0..4u32 {
            let sel = (c >> (4 * i)) & 0xf;
            let k = i64::from(sel & 7);
            let byte = if sel & 8 == 0 {
                let v = self.b.ins().ushr_imm_u(both, 8 * k);
                let m = self.splat(0xff);
                let v = self.b.ins().band(v, m);
                self.b.ins().ishl_imm_u(v, i64::from(8 * i))
            } else {
                // The byte's sign bit to bit 63, then all ones where it is set.
                let up = self.b.ins().ishl_imm_u(both, 56 - 8 * k);
                let zero = self.splat(0);
                let neg = self.b.ins().icmp(IntCC::SignedLessThan, up, zero);
                let m = self.splat(0xff << (8 * i));
                self.b.ins().band(neg, m)
            };
            out = self.b.ins().bor(out, byte);
        }
        out
    }

    /// `sem::int::w64`/`sem::bits::w64`.
    fn int64(&mut self, op: IntOp, a: Src, b: Src) -> Value {
        let (x, y) = (self.src(a), self.src(b));
        match op {
            IntOp::Add => self.b.ins().iadd(x, y),
            IntOp::Sub => self.b.ins().isub(x, y),
            IntOp::MulLo => self.b.ins().imul(x, y),
            IntOp::MulHiS => self.per_lane(x, y, |b, p, q| b.ins().smulhi(p, q)),
            IntOp::MulHiU => self.per_lane(x, y, |b, p, q| b.ins().umulhi(p, q)),
            IntOp::And => self.b.ins().band(x, y),
            IntOp::Or => self.b.ins().bor(x, y),
            IntOp::Xor => self.b.ins().bxor(x, y),
            IntOp::Shl | IntOp::ShrU | IntOp::ShrS => self.shift(op, 64, x, b),
            IntOp::MinS | IntOp::MinU => self.min_max64(op, x, y, true),
            IntOp::MaxS | IntOp::MaxU => self.min_max64(op, x, y, false),
        }
    }

    fn min_max64(&mut self, op: IntOp, x: Value, y: Value, min: bool) -> Value {
        if matches!(op, IntOp::MinU | IntOp::MaxU) {
            // Unsigned order is signed order with the sign bits flipped.
            let s = self.splat(SIGN);
            let (fx, fy) = (self.b.ins().bxor(x, s), self.b.ins().bxor(y, s));
            let lt = self.b.ins().icmp(IntCC::SignedLessThan, fx, fy);
            return match min {
                true => self.b.ins().bitselect(lt, x, y),
                false => self.b.ins().bitselect(lt, y, x),
            };
        }
        self.pick(min, x, y)
    }

    /// The smaller (`min`) or larger of two signed (or zero-extended) values.
    fn pick(&mut self, min: bool, x: Value, y: Value) -> Value {
        let lt = self.b.ins().icmp(IntCC::SignedLessThan, x, y);
        match min {
            true => self.b.ins().bitselect(lt, x, y),
            false => self.b.ins().bitselect(lt, y, x),
        }
    }

    /// A shift of a `bits`-wide value by the low 32 bits of `count`: 0 (or the sign) once the
    /// count reaches the width. A constant count is decided here; a register count lane by lane.
    fn shift(&mut self, op: IntOp, bits: u32, x: Value, count: Src) -> Value {
        let x = match (bits, op) {
            (32, IntOp::ShrS) => self.sext32(x),
            _ => x,
        };
        let v = match count {
            Src::Imm(n) => {
                let n = (n & LOW as u64) as u32;
                match op {
                    IntOp::Shl if n < bits => self.b.ins().ishl_imm_u(x, i64::from(n)),
                    IntOp::ShrU if n < bits => self.b.ins().ushr_imm_u(x, i64::from(n)),
                    IntOp::ShrS => self.b.ins().sshr_imm_u(x, i64::from(n.min(bits - 1))),
                    _ => self.splat(0),
                }
            }
            Src::Reg(r) => {
                let n = self.reg(r);
                self.per_lane(x, n, |b, v, n| {
                    let n = b.ins().band_imm_u(n, LOW);
                    let limit = b.ins().iconst(I64, i64::from(bits - 1));
                    let big = b.ins().icmp(IntCC::UnsignedGreaterThan, n, limit);
                    match op {
                        IntOp::ShrS => {
                            let n = b.ins().select(big, limit, n);
                            b.ins().sshr(v, n)
                        }
                        _ => {
                            let s = match op {
                                IntOp::Shl => b.ins().ishl(v, n),
                                _ => b.ins().ushr(v, n),
                            };
                            let zero = b.ins().iconst(I64, 0);
                            b.ins().select(big, zero, s)
                        }
                    }
                })
            }
        };
        // A right shift of a zero-extended value stays so; the others can reach the high word.
        match (bits, op) {
            (32, IntOp::ShrU) => v,
            (32, _) => self.low(v),
            _ => v,
        }
    }

    /// `f(lane of x, lane of y)` for both lanes, as scalars.
    fn per_lane(
        &mut self,
        x: Value,
        y: Value,
        f: impl Fn(&mut FunctionBuilder<'_>, Value, Value) -> Value,
    ) -> Value {
        let (x0, y0) = (
            self.b.ins().extractlane(x, 0),
            self.b.ins().extractlane(y, 0),
        );
        let (x1, y1) = (
            self.b.ins().extractlane(x, 1),
            self.b.ins().extractlane(y, 1),
        );
        let (r0, r1) = (f(self.b, x0, y0), f(self.b, x1, y1));
        let v = self.b.ins().scalar_to_vector(I64X2, r0);
        self.b.ins().insertlane(v, r1, 1)
    }

    /// Integer `setp`: the operands as `sem::int::order_key` reads them, compared signed
    /// (a key's unsigned order is the signed order of the key with its sign bit flipped).
    fn setp(&mut self, key: Key, rel: Rel, a: Src, b: Src) -> Value {
        let (x, y) = (self.src(a), self.src(b));
        let (x, y) = match key {
            Key::S32 => (self.sext32(x), self.sext32(y)),
            Key::U32 => (x, y),
            Key::S64 => (x, y),
            Key::U64 => {
                let s = self.splat(SIGN);
                (self.b.ins().bxor(x, s), self.b.ins().bxor(y, s))
            }
        };
        let cc = match rel {
            Rel::Eq => IntCC::Equal,
            Rel::Ne => IntCC::NotEqual,
            Rel::Lt => IntCC::SignedLessThan,
            Rel::Le => IntCC::SignedLessThanOrEqual,
            Rel::Gt => IntCC::SignedGreaterThan,
            Rel::Ge => IntCC::SignedGreaterThanOrEqual,
        };
        let set = self.b.ins().icmp(cc, x, y);
        let one = self.splat(1);
        self.b.ins().band(set, one)
    }

    /// The low word of a source as the even lanes of an `f32x4` (the odd lanes, the high
    /// words, are zero and compute zero).
    fn floats(&mut self, s: Src) -> Value {
        let v = self.src(s);
        self.b.ins().bitcast(F32X4, little(), v)
    }

    /// `sem::float::bin_rn_f32`: rounded once by the host, then [`Self::canonical`].
    fn f32_bin(&mut self, op: FOp, a: Src, b: Src) -> Value {
        let (x, y) = (self.floats(a), self.floats(b));
        let r = match op {
            FOp::Add => self.b.ins().fadd(x, y),
            FOp::Sub => self.b.ins().fsub(x, y),
            FOp::Mul => self.b.ins().fmul(x, y),
        };
        self.canonical(r)
    }

    /// `sem::float::fma_rn_f32`: the host's fused multiply-add, then [`Self::canonical`].
    fn f32_fma(&mut self, a: Src, b: Src, c: Src) -> Value {
        let (x, y, z) = (self.floats(a), self.floats(b), self.floats(c));
        let r = self.b.ins().fma(x, y, z);
        self.canonical(r)
    }

    /// `sem::float::canon_f32` on the even lanes of `r`: a NaN becomes `0x7fffffff`. The odd
    /// lanes, computed from the sources' zero high words, are `+0.0`: zero.
    fn canonical(&mut self, r: Value) -> Value {
        let nan = self.b.ins().fcmp(FloatCC::Unordered, r, r);
        let bits = self.b.ins().bitcast(I32X4, little(), r);
        let canon = self
            .b
            .ins()
            .iconst(I32, i64::from(crate::sem::float::NAN_F32));
        let canon = self.b.ins().splat(I32X4, canon);
        let v = self.b.ins().bitselect(nan, canon, bits);
        self.b.ins().bitcast(I64X2, little(), v)
    }

    /// `setp.cmp.f32` (`sem::float::compare`): the low words compared as `f32`, the result
    /// the low bit of each even lane's mask.
    fn setp_f32(&mut self, cmp: Cmp, a: Src, b: Src) -> Value {
        let (x, y) = (self.floats(a), self.floats(b));
        // x86 compares vectors with `ueq` and `one` only as two comparisons.
        let set = match cmp {
            Cmp::Equ => {
                let nan = self.b.ins().fcmp(FloatCC::Unordered, x, y);
                let eq = self.b.ins().fcmp(FloatCC::Equal, x, y);
                self.b.ins().bor(nan, eq)
            }
            Cmp::Ne => {
                let num = self.b.ins().fcmp(FloatCC::Ordered, x, y);
                let ne = self.b.ins().fcmp(FloatCC::NotEqual, x, y);
                self.b.ins().band(num, ne)
            }
            _ => self.b.ins().fcmp(float_cc(cmp), x, y),
        };
        let set = self.b.ins().bitcast(I64X2, little(), set);
        let one = self.splat(1);
        self.b.ins().band(set, one)
    }
}

/// The Cranelift condition that is `sem::float::compare`'s: `eq`..`ge` ordered (false on
/// NaN; `lo`..`hs` read as `lt`..`ge`), `equ`..`geu` true on NaN, `ne` ordered, `neu` not.
fn float_cc(cmp: Cmp) -> FloatCC {
    match cmp {
        Cmp::Eq => FloatCC::Equal,
        Cmp::Ne => FloatCC::OrderedNotEqual,
        Cmp::Lt | Cmp::Lo => FloatCC::LessThan,
        Cmp::Le | Cmp::Ls => FloatCC::LessThanOrEqual,
        Cmp::Gt | Cmp::Hi => FloatCC::GreaterThan,
        Cmp::Ge | Cmp::Hs => FloatCC::GreaterThanOrEqual,
        Cmp::Equ => FloatCC::UnorderedOrEqual,
        Cmp::Neu => FloatCC::NotEqual,
        Cmp::Ltu => FloatCC::UnorderedOrLessThan,
        Cmp::Leu => FloatCC::UnorderedOrLessThanOrEqual,
        Cmp::Gtu => FloatCC::UnorderedOrGreaterThan,
        Cmp::Geu => FloatCC::UnorderedOrGreaterThanOrEqual,
        Cmp::Num => FloatCC::Ordered,
        Cmp::Nan => FloatCC::Unordered,
    }
}
