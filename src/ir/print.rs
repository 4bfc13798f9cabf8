//! `ptxrun parse --emit ir`: a faithful, stable text form of the IR. Each instruction shows its
//! index, the decoded instruction with its modifiers in one canonical order, operands as resolved
//! (registers with their dense index, symbols with their kind, branch targets as instruction
//! indices), and the PTX line and `.loc` CUDA position it came from. Modifiers are spelt as PTX
//! ISA 9.0 chapter 9 writes each instruction's syntax.

use super::*;
use std::fmt::Write;

pub fn print_module(m: &Module) -> String {
    let mut out = String::new();
    let _ = writeln!(
        out,
        "module version {}.{} target {} address_size {}",
        m.version.0,
        m.version.1,
        m.targets.join(","),
        m.address_size
    );
    for (i, p) in &m.files {
        let _ = writeln!(out, "file {i} {p:?}");
    }
    for (i, v) in m.vars.iter().enumerate().filter(|(_, v)| v.owner.is_none()) {
        let _ = writeln!(out, "{}", var_line(m, i, v));
    }
    for f in &m.functions {
        out.push('\n');
        print_function(&mut out, m, f);
    }
    out
}

fn var_line(m: &Module, i: usize, v: &Var) -> String {
    let mut s = format!("var #{i} {} {}", v.name, v.space);
    if v.linkage != Linkage::None {
        let _ = write!(s, " linkage={:?}", v.linkage);
    }
    let _ = write!(
        s,
        " {}{} align {} size {}",
        if v.vec > 1 {
            format!(".v{} ", v.vec)
        } else {
            String::new()
        },
        v.ty,
        v.align,
        v.size
    );
    if !v.init.is_empty() {
        let shown: Vec<String> = v.init.iter().take(16).map(|b| format!("{b:02x}")).collect();
        let _ = write!(
            s,
            " init [{}{}]",
            shown.join(" "),
            if v.init.len() > 16 { " ..." } else { "" }
        );
    }
    for r in &v.relocs {
        let _ = write!(
            s,
            " reloc(+{}: {}{}{:+})",
            r.offset,
            if r.generic { "generic " } else { "" },
            sym_name(m, None, r.target),
            r.addend
        );
    }
    s
}

fn print_function(out: &mut String, m: &Module, f: &Function) {
    let kind = if f.is_entry { "entry" } else { "func" };
    let _ = writeln!(
        out,
        "{kind} {}{}",
        f.name,
        if f.defined { "" } else { " (declaration)" }
    );
    let a = &f.attrs;
    let dims = |d: [u32; 3]| format!("{},{},{}", d[0], d[1], d[2]);
    let mut attrs = Vec::new();
    if let Some(d) = a.maxntid {
        attrs.push(format!("maxntid {}", dims(d)));
    }
    if let Some(d) = a.reqntid {
        attrs.push(format!("reqntid {}", dims(d)));
    }
    if let Some(d) = a.reqnctapercluster {
        attrs.push(format!("reqnctapercluster {}", dims(d)));
    }
    if let Some(v) = a.minnctapersm {
        attrs.push(format!("minnctapersm {v}"));
    }
    if let Some(v) = a.maxnreg {
        attrs.push(format!("maxnreg {v}"));
    }
    if a.explicitcluster {
        attrs.push("explicitcluster".into());
    }
    if a.noreturn {
        attrs.push("noreturn".into());
    }
    if !attrs.is_empty() {
        let _ = writeln!(out, "  attrs {}", attrs.join("; "));
    }
    for (what, list) in [("ret", &f.rets), ("param", &f.params)] {
        for (i, p) in list.iter().enumerate() {
            let ptr = p
                .ptr
                .map_or(String::new(), |(s, al)| format!(" ptr {s} align {al}"));
            let _ = writeln!(
                out,
                "  {what} {i} {} {} offset {} size {} align {}{ptr}",
                p.name, p.ty, p.offset, p.size, p.align
            );
        }
    }
    for (i, v) in m.vars.iter().enumerate().filter(|(_, v)| {
        v.owner.is_some_and(|o| {
            m.functions
                .get(o.0 as usize)
                .is_some_and(|g| std::ptr::eq(g, f))
        })
    }) {
        let _ = writeln!(out, "  {}", var_line(m, i, v));
    }
    if !f.defined {
        return;
    }
    let _ = writeln!(out, "  regs {}", f.regs.len());
    for p in &f.prototypes {
        let _ = writeln!(
            out,
            "  prototype {} rets {} params {}",
            p.name,
            p.rets.len(),
            p.params.len()
        );
    }
    let labels: std::collections::BTreeMap<u32, Vec<&str>> =
        f.labels.iter().fold(Default::default(), |mut acc, (n, i)| {
            acc.entry(*i).or_default().push(n.as_str());
            acc
        });
    for (idx, (ins, src)) in f.code.iter().zip(&f.srcs).enumerate() {
        if let Some(ls) = labels.get(&(idx as u32)) {
            let _ = writeln!(out, "  {}:", ls.join(", "));
        }
        let mut line = format!("  {idx:>5}  ");
        if let Some(g) = ins.guard {
            let _ = write!(
                line,
                "@{}{} ",
                if g.negated { "!" } else { "" },
                reg(f, g.reg)
            );
        }
        line.push_str(&instr_text(ins, src));
        let ops: Vec<String> = f.ops(ins).iter().map(|o| operand(m, f, o)).collect();
        if !ops.is_empty() {
            let _ = write!(line, " {}", ops.join(", "));
        }
        let pad = 64usize.saturating_sub(line.len());
        let _ = write!(line, "{:pad$}  // line {}", "", src.line);
        if let Some((file, l, c)) = src.loc {
            let _ = write!(line, ", {}:{l}:{c}", m.file(file).unwrap_or("?"));
        }
        if !f.form(idx as u32).is_executable(ins) {
            line.push_str(" (not executable)");
        }
        if let Some((_, m)) = f.contractions.iter().find(|(a, _)| *a == idx as u32) {
            let _ = write!(line, " (fused with the mul at {m}, as ptxas fuses)");
        }
        let _ = writeln!(out, "{line}");
    }
    if let Some(ls) = labels.get(&(f.code.len() as u32)) {
        let _ = writeln!(out, "  {}:", ls.join(", "));
    }
}

/// Instruction `idx` of `f` as one line of IR text (no guard, no comment): for traces.
pub fn print_instr(m: &Module, f: &Function, idx: u32) -> String {
    let (Some(ins), Some(src)) = (f.code.get(idx as usize), f.srcs.get(idx as usize)) else {
        return String::new();
    };
    let mut line = instr_text(ins, src);
    let ops: Vec<String> = f.ops(ins).iter().map(|o| operand(m, f, o)).collect();
    if !ops.is_empty() {
        let _ = write!(line, " {}", ops.join(", "));
    }
    line
}

/// The opcode of instruction `idx` of `f` with its modifiers, without operands.
pub fn print_opcode(f: &Function, idx: u32) -> String {
    match (f.code.get(idx as usize), f.srcs.get(idx as usize)) {
        (Some(ins), Some(src)) => instr_text(ins, src),
        _ => String::new(),
    }
}

/// The instruction with its modifiers in canonical order.
fn instr_text(ins: &Instr, src: &SrcInfo) -> String {
    if let Some(raw) = &src.raw {
        return raw.clone();
    }
    let m = &ins.mods;
    let mut s = ins.op.name().to_string();
    let mut push = |w: &dyn std::fmt::Display| {
        let _ = write!(s, "{w}");
    };
    for sub in [m.sub, m.sub2].into_iter().flatten() {
        push(&sub);
    }
    if let Some(v) = m.sem {
        push(&v);
    }
    if let Some(v) = m.scope {
        push(&v);
    }
    if m.has(Flags::TO) {
        push(&".to");
    }
    for sp in [m.space, m.space2()].into_iter().flatten() {
        push(&sp);
    }
    if let Some(v) = m.cache {
        push(&v);
    }
    if let Some(v) = m.cmp {
        push(&v);
    }
    if let Some(v) = m.bool_op {
        push(&v);
    }
    if let Some(v) = m.rnd {
        push(&v);
    }
    for f in m
        .flags
        .names()
        .filter(|f| !matches!(*f, "hints" | "to" | "contracted" | "row" | "col"))
    {
        push(&format_args!(".{f}"));
    }
    if let Some(shape) = m.shape() {
        push(&shape);
        for col in m.layouts().into_iter().flatten() {
            push(&if col { ".col" } else { ".row" });
        }
    } else if let Some(g) = super::mods::Geom::of(m.dim).filter(|_| m.dim > 5) {
        push(&format_args!(".{}", g.name()));
    } else if m.dim != 0 {
        push(&format_args!(".{}d", m.dim));
    }
    if let Some(o) = m.oob() {
        push(&o);
    }
    if m.vec > 1 {
        push(&format_args!(".v{}", m.vec));
    }
    for t in m.types.iter().flatten() {
        push(t);
    }
    if m.has(Flags::HINTED) {
        push(&" /*cache hints*/");
    }
    s
}

fn reg(f: &Function, r: RegId) -> String {
    format!(
        "{}#{}",
        f.reg_names.get(r.0 as usize).map_or("?", |s| s.as_str()),
        r.0
    )
}

fn sym_name(m: &Module, f: Option<&Function>, s: Symbol) -> String {
    match s {
        Symbol::Var(v) => format!(
            "var:{}#{}",
            m.vars.get(v.0 as usize).map_or("?", |v| v.name.as_str()),
            v.0
        ),
        Symbol::Param(i) => format!(
            "param:{}",
            f.and_then(|f| f.params.get(i as usize))
                .map_or("?", |p| p.name.as_str())
        ),
        Symbol::Ret(i) => format!(
            "ret:{}",
            f.and_then(|f| f.rets.get(i as usize))
                .map_or("?", |p| p.name.as_str())
        ),
        Symbol::Func(i) => format!(
            "func:{}",
            m.functions
                .get(i.0 as usize)
                .map_or("?", |f| f.name.as_str())
        ),
    }
}

fn operand(m: &Module, f: &Function, o: &Operand) -> String {
    let list = |r: OpRange| {
        f.sub_ops(r)
            .iter()
            .map(|o| operand(m, f, o))
            .collect::<Vec<_>>()
            .join(", ")
    };
    match *o {
        Operand::Reg(r) => reg(f, r),
        Operand::Imm(v) => v.to_string(),
        Operand::F32(b) => format!("0f{b:08X}"),
        Operand::F64(b) => format!("0d{b:016X}"),
        Operand::Special(s) => s.to_string(),
        Operand::Sym(s, 0) => sym_name(m, Some(f), s),
        Operand::Sym(s, k) => format!("{}{k:+}", sym_name(m, Some(f), s)),
        Operand::Addr(base, k) => {
            let b = match base {
                AddrBase::None => String::new(),
                AddrBase::Reg(r) => reg(f, r),
                AddrBase::Sym(s) => sym_name(m, Some(f), s),
            };
            match (b.is_empty(), k) {
                (true, k) => format!("[{k}]"),
                (false, 0) => format!("[{b}]"),
                (false, k) => format!("[{b}{k:+}]"),
            }
        }
        Operand::Vector(r) => format!("{{{}}}", list(r)),
        Operand::AddrList(r) => format!("[{}]", list(r)),
        Operand::List(r) => format!("({})", list(r)),
        Operand::Label(i) => format!("->{i}"),
        Operand::Prototype(i) => format!(
            "proto:{}",
            f.prototypes
                .get(i as usize)
                .map_or("?", |p| p.name.as_str())
        ),
        Operand::Targets(i) => match f.target_lists.get(i as usize) {
            Some((name, r)) => format!("targets:{name}[{}]", list(*r)),
            None => "targets:?".into(),
        },
        Operand::Sink => "_".into(),
        Operand::NotPred(r) => format!("!{}", reg(f, r)),
        Operand::NegReg(r) => format!("-{}", reg(f, r)),
        Operand::VReg(r, s) => {
            let neg = if s.negated() { "-" } else { "" };
            format!("{neg}{}{}", reg(f, r), s.text())
        }
        Operand::Pair(a, b) => {
            let side = |r: Option<RegId>| r.map_or("_".to_string(), |r| reg(f, r));
            format!("{}|{}", side(a), side(b))
        }
    }
}
