//! Declarations: the dotted words before a name (`.visible .global .align 8 .v2 .f32`), constant
//! expressions, and initializers turned into bytes plus relocations (PTX ISA 9.0 section 5.4
//! "Variables": 5.4.1 declarations, 5.4.2 vectors, 5.4.3 arrays, 5.4.4 initializers, 5.4.5
//! alignment, 5.4.6 parameterized variable names).

use super::types::{Space, Type};
use super::{Linkage, Reloc, Symbol};
use crate::diag::Diag;
use crate::lex::Span;
use crate::parse::ast::{Attr, BinOp, Dim, Expr, Init, UnOp, Word};

/// The meaning of a declaration's attribute words.
#[derive(Debug, Clone)]
pub struct DeclInfo {
    pub linkage: Linkage,
    pub space: Option<Space>,
    pub align: Option<u32>,
    pub ty: Option<Type>,
    pub vec: u8,
    /// `.ptr .space .align N` on a kernel parameter.
    pub ptr: Option<(Space, u32)>,
    /// Span of all the words, for diagnostics.
    pub span: Span,
}

/// Largest variable ptxrun will lay out (bytes): more than any GPU's memory is a typo or an attack.
pub const MAX_VAR_BYTES: u64 = 1 << 32;
/// Largest variable whose initial bytes are materialised.
pub const MAX_INIT_BYTES: u64 = 64 << 20;

pub fn decode_attrs(attrs: &[Attr<'_>], fallback: Span) -> Result<DeclInfo, Diag> {
    let span = match (attrs.first(), attrs.last()) {
        (Some(a), Some(b)) => attr_span(a).start..attr_span(b).end,
        _ => fallback,
    };
    let mut info = DeclInfo {
        linkage: Linkage::None,
        space: None,
        align: None,
        ty: None,
        vec: 1,
        ptr: None,
        span,
    };
    let mut in_ptr = false;
    let mut i = 0;
    while i < attrs.len() {
        let a = &attrs[i];
        i += 1;
        let w = match a {
            Attr::Word(w) => w,
            Attr::List(..) => continue, // `.attribute(.managed)`: no effect on layout
            Attr::Num(n) => {
                return Err(Diag::error(
                    "ir::unexpected-number",
                    "a number where a directive was expected",
                )
                .label(n.span.clone(), "only `.align` takes a number here"))
            }
        };
        let word = &w.text[1..];
        match word {
            "visible" => info.linkage = Linkage::Visible,
            "extern" => info.linkage = Linkage::Extern,
            "weak" => info.linkage = Linkage::Weak,
            "common" => info.linkage = Linkage::Common,
            "ptr" => in_ptr = true,
            "attribute" => {}
            "align" => {
                let Some(Attr::Num(n)) = attrs.get(i) else {
                    return Err(Diag::error("ir::bad-align", "`.align` needs a byte count")
                        .label(w.span.clone(), "here"));
                };
                i += 1;
                let v = parse_int(n)?;
                if v == 0 || v > 1 << 16 || !(v as u64).is_power_of_two() {
                    return Err(Diag::error(
                        "ir::bad-align",
                        format!("alignment {v} is not a power of two up to 65536"),
                    )
                    .label(n.span.clone(), "here"));
                }
                if in_ptr {
                    if let Some(p) = &mut info.ptr {
                        p.1 = v as u32;
                    }
                } else {
                    info.align = Some(v as u32);
                }
            }
            "v2" | "v4" | "v8" => info.vec = word[1..].parse().unwrap_or(1),
            "texref" | "samplerref" | "surfref" => info.ty = Some(Type::B64),
            _ => {
                if let Some(s) = Space::parse(word) {
                    if in_ptr {
                        info.ptr = Some((s, 1));
                    } else if info.space.replace(s).is_some() {
                        return Err(Diag::error(
                            "ir::conflicting-spaces",
                            "two state spaces in one declaration",
                        )
                        .label(w.span.clone(), "second state space"));
                    }
                } else if let Some(t) = Type::parse(word) {
                    if info.ty.replace(t).is_some() {
                        return Err(Diag::error(
                            "ir::conflicting-types",
                            "two types in one declaration",
                        )
                        .label(w.span.clone(), "second type"));
                    }
                } else {
                    return Err(Diag::error(
                        "ir::unknown-directive",
                        format!("unknown directive `{}`", w.text),
                    )
                    .label(
                        w.span.clone(),
                        "not a state space, type or declaration attribute",
                    ));
                }
            }
        }
    }
    Ok(info)
}

fn attr_span(a: &Attr<'_>) -> Span {
    match a {
        Attr::Word(w) | Attr::Num(w) => w.span.clone(),
        Attr::List(s) => s.clone(),
    }
}

/// Parses an integer literal: decimal, `0x` hex, `0b` binary, leading-zero octal, optional `U`.
pub fn parse_int(w: &Word<'_>) -> Result<i64, Diag> {
    let t = w.text.strip_suffix('U').unwrap_or(w.text);
    let parsed = if let Some(h) = t.strip_prefix("0x").or_else(|| t.strip_prefix("0X")) {
        u64::from_str_radix(h, 16)
    } else if let Some(b) = t.strip_prefix("0b").or_else(|| t.strip_prefix("0B")) {
        u64::from_str_radix(b, 2)
    } else if t.len() > 1 && t.starts_with('0') {
        u64::from_str_radix(&t[1..], 8)
    } else {
        t.parse::<u64>()
    };
    parsed.map(|v| v as i64).map_err(|_| {
        Diag::error(
            "ir::bad-integer",
            format!("`{}` is not a 64-bit integer", w.text),
        )
        .label(w.span.clone(), "here")
    })
}

/// Parses a float literal to f64 bits, or for `0f` to f32 bits (second value `true`).
pub fn parse_float(w: &Word<'_>) -> Result<(u64, bool), Diag> {
    let t = w.text;
    let bad = || {
        Diag::error("ir::bad-float", format!("`{t}` is not a valid float"))
            .label(w.span.clone(), "here")
    };
    if let Some(h) = t.strip_prefix("0f").or_else(|| t.strip_prefix("0F")) {
        return u32::from_str_radix(h, 16)
            .map(|b| (b as u64, true))
            .map_err(|_| bad());
    }
    if let Some(h) = t.strip_prefix("0d").or_else(|| t.strip_prefix("0D")) {
        return u64::from_str_radix(h, 16)
            .map(|b| (b, false))
            .map_err(|_| bad());
    }
    t.parse::<f64>()
        .map(|v| (v.to_bits(), false))
        .map_err(|_| bad())
}

/// Evaluates an integer constant expression (no symbols).
pub fn eval_const(e: &Expr<'_>) -> Result<i64, Diag> {
    match e {
        Expr::Int(w) => parse_int(w),
        Expr::Unary(op, x, _) => {
            let v = eval_const(x)?;
            Ok(match op {
                UnOp::Neg => v.wrapping_neg(),
                UnOp::Not => i64::from(v == 0),
                UnOp::BitNot => !v,
            })
        }
        Expr::Binary(op, a, b, span) => {
            let (a, b) = (eval_const(a)?, eval_const(b)?);
            match op {
                BinOp::Add => Ok(a.wrapping_add(b)),
                BinOp::Sub => Ok(a.wrapping_sub(b)),
                BinOp::Mul => Ok(a.wrapping_mul(b)),
                BinOp::Div => a.checked_div(b).ok_or_else(|| {
                    Diag::error("ir::division-by-zero", "division by zero in a constant")
                        .label(span.clone(), "here")
                }),
            }
        }
        other => Err(
            Diag::error("ir::not-constant", "expected an integer constant")
                .label(other.span(), "not a constant"),
        ),
    }
}

/// Element count of `name[a][b]...`; `Ok(None)` for an unsized `[]`.
pub fn array_len(dims: &[Dim<'_>]) -> Result<Option<u64>, Diag> {
    let mut total: u64 = 1;
    for d in dims {
        match d {
            Dim::Array(None, _) => return Ok(None),
            Dim::Array(Some(e), span) => {
                let n = eval_const(e)?;
                if n <= 0 {
                    return Err(Diag::error(
                        "ir::bad-array-size",
                        format!("array size {n} is not positive"),
                    )
                    .label(span.clone(), "here"));
                }
                total = total.saturating_mul(n as u64);
            }
            Dim::Range(_, span) => {
                return Err(Diag::error(
                    "ir::unexpected-range",
                    "`<N>` ranges are only for `.reg` declarations",
                )
                .label(span.clone(), "here"))
            }
        }
    }
    Ok(Some(total))
}

/// Something an initializer refers to by name.
pub type Resolve<'r> = dyn Fn(&Word<'_>) -> Option<Symbol> + 'r;

/// Lays out an initializer: returns the bytes (length `size`) and the relocations.
pub fn initializer(
    init: &Init<'_>,
    ty: Type,
    size: u64,
    resolve: &Resolve<'_>,
) -> Result<(Vec<u8>, Vec<Reloc>), Diag> {
    let elem = u64::from(ty.size());
    if size > MAX_INIT_BYTES {
        return Err(Diag::error(
            "ir::initializer-too-large",
            format!("an initialized variable of {size} bytes is too large"),
        )
        .label(
            init_span(init),
            format!("ptxrun materialises at most {MAX_INIT_BYTES} bytes of initial data"),
        ));
    }
    let mut leaves = Vec::new();
    flatten(init, &mut leaves);
    if leaves.len() as u64 * elem > size {
        return Err(Diag::error(
            "ir::initializer-too-long",
            format!("{} initial values do not fit in {size} bytes", leaves.len()),
        )
        .label(init_span(init), "too many values"));
    }
    let mut bytes = vec![0u8; size as usize];
    let mut relocs = Vec::new();
    for (i, leaf) in leaves.iter().enumerate() {
        let off = i as u64 * elem;
        let slot = &mut bytes[off as usize..(off + elem) as usize];
        match leaf_value(leaf, resolve)? {
            Leaf::Int(v) if ty.is_float() => write_float(slot, ty, v as f64),
            Leaf::Int(v) => slot.copy_from_slice(&v.to_le_bytes()[..elem as usize]),
            Leaf::F32(bits) if ty == Type::F32 || ty.is_bits() && elem == 4 => {
                slot.copy_from_slice(&bits.to_le_bytes())
            }
            Leaf::F32(bits) => write_float(slot, ty, f64::from(f32::from_bits(bits))),
            Leaf::F64(bits) if ty == Type::F64 || ty.is_bits() && elem == 8 => {
                slot.copy_from_slice(&bits.to_le_bytes())
            }
            Leaf::F64(bits) => write_float(slot, ty, f64::from_bits(bits)),
            Leaf::Sym(target, addend, generic) => {
                if elem != 4 && elem != 8 {
                    return Err(Diag::error(
                        "ir::bad-address-initializer",
                        "an address needs a 32- or 64-bit element",
                    )
                    .label(leaf.span(), "address of a symbol"));
                }
                relocs.push(Reloc {
                    offset: off,
                    size: elem as u8,
                    target,
                    addend,
                    generic,
                });
            }
        }
    }
    Ok((bytes, relocs))
}

fn write_float(slot: &mut [u8], ty: Type, v: f64) {
    match ty {
        Type::F64 => slot.copy_from_slice(&v.to_bits().to_le_bytes()),
        Type::F32 => slot.copy_from_slice(&(v as f32).to_bits().to_le_bytes()),
        // Half types: initializers of these are written as bit patterns by nvcc; a decimal value
        // is rounded through f32 by truncation of the mantissa, good enough for data tables.
        _ => {
            let b = (v as f32).to_bits().to_le_bytes();
            let n = slot.len().min(4);
            slot[..n].copy_from_slice(&b[4 - n..]);
        }
    }
}

enum Leaf {
    Int(i64),
    F32(u32),
    F64(u64),
    Sym(Symbol, i64, bool),
}

fn leaf_value(e: &Expr<'_>, resolve: &Resolve<'_>) -> Result<Leaf, Diag> {
    let sym = |w: &Word<'_>| {
        resolve(w).ok_or_else(|| {
            Diag::error(
                "ir::undefined-symbol",
                format!("undefined symbol `{}`", w.text),
            )
            .label(w.span.clone(), "not declared")
        })
    };
    match e {
        Expr::Float(w) => Ok(match parse_float(w)? {
            (b, true) => Leaf::F32(b as u32),
            (b, false) => Leaf::F64(b),
        }),
        Expr::Sym(w) => Ok(Leaf::Sym(sym(w)?, 0, false)),
        Expr::Generic(w, _) => Ok(Leaf::Sym(sym(w)?, 0, true)),
        Expr::Binary(op @ (BinOp::Add | BinOp::Sub), a, b, _)
            if matches!(**a, Expr::Sym(_) | Expr::Generic(..)) =>
        {
            let Leaf::Sym(s, _, g) = leaf_value(a, resolve)? else {
                unreachable!("matched a symbol")
            };
            let k = eval_const(b)?;
            Ok(Leaf::Sym(
                s,
                if *op == BinOp::Add {
                    k
                } else {
                    k.wrapping_neg()
                },
                g,
            ))
        }
        Expr::Unary(UnOp::Neg, x, _) if matches!(**x, Expr::Float(_)) => {
            match leaf_value(x, resolve)? {
                Leaf::F32(b) => Ok(Leaf::F32(b ^ 0x8000_0000)),
                Leaf::F64(b) => Ok(Leaf::F64(b ^ (1 << 63))),
                _ => unreachable!("a float literal"),
            }
        }
        other => eval_const(other).map(Leaf::Int),
    }
}

fn flatten<'a, 's>(init: &'a Init<'s>, out: &mut Vec<&'a Expr<'s>>) {
    match init {
        Init::Expr(e) => out.push(e),
        Init::List(items, _) => items.iter().for_each(|i| flatten(i, out)),
    }
}

fn init_span(init: &Init<'_>) -> Span {
    match init {
        Init::Expr(e) => e.span(),
        Init::List(_, s) => s.clone(),
    }
}
