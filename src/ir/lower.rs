//! Lowering: syntax tree to IR. Module scope first (all `.file`s, then every variable and
//! function name, so references may point forward), then each function body in two walks:
//! the first numbers instructions and collects each `{ }` block's labels, the second resolves
//! names through the chain of enclosing blocks (PTX ISA 9.0 section 4.4 on scoping, 5.4.6 on
//! `%r<N>` ranges) and decodes every instruction.

use super::check::check_instr;
use super::decl::{
    self, array_len, decode_attrs, eval_const, parse_float, parse_int, DeclInfo, MAX_VAR_BYTES,
};
use super::generic::check_generic_names;
use super::opcode::{decode_words, opcode_words};
use super::types::{Space, SpecialReg, Type};
use super::*;
use crate::diag::Diag;
use crate::parse::ast::{self, Expr, Stmt, UnOp, Word};
use indexmap::IndexMap;
use rustc_hash::{FxBuildHasher, FxHashMap as HashMap};

/// Code of an error that only repeats an earlier one; never shown.
const FOLLOW_ON: &str = "ir::follow-on";

/// Registers one function may declare; far above any real kernel, far below memory exhaustion.
pub const MAX_REGS_PER_FUNCTION: u64 = 1 << 18;

/// Parses and lowers a module item by item: each function's syntax tree is dropped once it is
/// lowered, so memory is the IR's plus one function's tree. PTX needs every name declared before
/// its use (ptxas rejects a call to a function defined later without a prototype), so one pass
/// in source order sees everything a body refers to.
pub fn compile(src: &str) -> Result<Module, Vec<Diag>> {
    let mut lw = Lowerer::new(src);
    crate::parse::parse_items(src, &mut |item| lw.item(&item))?;
    lw.finish()
}

#[derive(Debug, Clone, Copy)]
enum Name {
    Reg(RegId),
    Sym(Symbol),
    Label(u32),
    Proto(u32),
    /// A `.branchtargets` / `.calltargets` list: index into `Function::target_lists`.
    Targets(u32),
    /// A vector register: its first component register and the component count.
    Vec(u32, u8),
}

fn component_name(c: u8) -> String {
    match c {
        0..=3 => ["x", "y", "z", "w"][c as usize].to_string(),
        n => format!("e{n}"),
    }
}

/// The directive word of a declaration-shaped statement, if it is a target list.
fn target_list_kind<'s>(s: Option<&Stmt<'s>>) -> Option<&'s str> {
    match s {
        Some(Stmt::Decl(d)) => match d.attrs.first() {
            Some(ast::Attr::Word(w)) if w.text == ".branchtargets" || w.text == ".calltargets" => {
                Some(w.text)
            }
            _ => None,
        },
        _ => None,
    }
}

#[derive(Default)]
struct Scope<'s> {
    names: HashMap<&'s str, Name>,
    /// `%r<37>`: (prefix, count, first register).
    ranges: Vec<(&'s str, u32, u32)>,
}

struct Lowerer<'s> {
    line_starts: Vec<usize>,
    diags: Vec<Diag>,
    /// Diagnostics of function bodies, reported after the declarations'.
    body_diags: Vec<Diag>,
    /// The line [`Lowerer::line`] answered last.
    last_line: std::cell::Cell<u32>,
    /// A `.version` and a `.target` were seen.
    version: bool,
    target: bool,
    module: Module,
    globals: IndexMap<&'s str, Symbol, FxBuildHasher>,
    /// Opcode tokens already decoded (nvcc repeats a few hundred of them).
    decoded: HashMap<&'s str, super::opcode::Decoded>,
}

impl<'s> Lowerer<'s> {
    fn new(src: &str) -> Self {
        let line_starts = std::iter::once(0)
            .chain(src.match_indices('\n').map(|(i, _)| i + 1))
            .collect();
        Lowerer {
            line_starts,
            diags: Vec::new(),
            body_diags: Vec::new(),
            last_line: std::cell::Cell::new(0),
            version: false,
            target: false,
            module: Module {
                version: (0, 0),
                targets: Vec::new(),
                address_size: 32,
                files: Vec::new(),
                vars: Vec::new(),
                functions: Vec::new(),
            },
            globals: IndexMap::default(),
            decoded: HashMap::default(),
        }
    }

    /// The 1-based line of a byte offset. Instructions arrive in source order, so the search
    /// starts from the previous answer's line when it can.
    fn line(&self, offset: usize) -> u32 {
        let hint = self.last_line.get() as usize;
        let starts = &self.line_starts;
        let line = if hint > 0 && hint <= starts.len() && starts[hint - 1] <= offset {
            // Walk forward a few lines, then fall back to a binary search of the rest.
            let rest = &starts[hint..];
            match rest.iter().take(8).position(|&s| s > offset) {
                Some(k) => hint + k,
                None => hint + rest.partition_point(|&s| s <= offset),
            }
        } else {
            starts.partition_point(|&s| s <= offset)
        };
        self.last_line.set(line as u32);
        line as u32
    }

    /// Lowers one top-level item: directives and declarations at once, function bodies right
    /// after their declaration.
    fn item(&mut self, item: &ast::Item<'s>) {
        match item {
            ast::Item::Version(w) => {
                self.version = true;
                match w.text.split_once('.').map(|(a, b)| (a.parse(), b.parse())) {
                    Some((Ok(a), Ok(b))) => self.module.version = (a, b),
                    _ => self.diags.push(
                        Diag::error("ir::bad-version", "`.version` needs MAJOR.MINOR")
                            .label(w.span.clone(), "here"),
                    ),
                }
            }
            ast::Item::Target(ws) => {
                self.target = true;
                self.module
                    .targets
                    .extend(ws.iter().map(|w| w.text.to_string()));
            }
            ast::Item::AddressSize(w) => match parse_int(w) {
                Ok(v @ (32 | 64)) => self.module.address_size = v as u32,
                _ => self.diags.push(
                    Diag::error("ir::bad-address-size", "`.address_size` must be 32 or 64")
                        .label(w.span.clone(), "here"),
                ),
            },
            ast::Item::File { index, path, .. } => {
                if let Ok(i) = parse_int(index) {
                    let p = path.text.trim_matches('"').to_string();
                    self.module.files.push((i as u32, p));
                }
            }
            ast::Item::Var(d) => self.module_var(d),
            ast::Item::Function(f) => {
                self.declare_function(f);
                if f.body.is_some() {
                    // Body diagnostics come after every declaration's, as when bodies were
                    // lowered in a second pass.
                    let before = self.diags.len();
                    self.define_function(f);
                    self.body_diags.extend(self.diags.drain(before..));
                }
            }
            ast::Item::Section | ast::Item::Pragma | ast::Item::Error => {}
        }
    }

    /// The module, or every diagnostic: declarations', a missing `.version`/`.target`, bodies'.
    fn finish(mut self) -> Result<Module, Vec<Diag>> {
        if !self.version {
            self.diags.push(
                Diag::error(
                    "ir::missing-version",
                    "the module has no `.version` directive",
                )
                .label(0..0, "expected `.version` first")
                .help("PTX modules start with `.version 9.0` (or the ISA version they need)"),
            );
        }
        if !self.target {
            self.diags.push(
                Diag::error(
                    "ir::missing-target",
                    "the module has no `.target` directive",
                )
                .label(0..0, "expected `.target` after `.version`")
                .help("add e.g. `.target sm_90`"),
            );
        }
        self.diags.append(&mut self.body_diags);
        if self.diags.is_empty() {
            Ok(self.module)
        } else {
            Err(self.diags)
        }
    }

    fn module_var(&mut self, d: &ast::Decl<'s>) {
        // `.alias alias, aliasee;` (PTX ISA 11.6.8): a second name for a function.
        if matches!(d.attrs.as_slice(), [ast::Attr::Word(w)] if w.text == ".alias") {
            return match d.names.as_slice() {
                [a, b] => match self.globals.get(b.name.text).copied() {
                    Some(sym) => {
                        self.globals.insert(a.name.text, sym);
                    }
                    None => self.diags.push(undefined(&b.name)),
                },
                _ => self.diags.push(
                    Diag::error("ir::bad-alias", "`.alias` takes two names")
                        .label(d.span.clone(), "write `.alias new, existing;`"),
                ),
            };
        }
        let info = match decode_attrs(&d.attrs, d.span.clone()) {
            Ok(i) => i,
            Err(e) => return self.diags.push(e),
        };
        for n in &d.names {
            if self.globals.contains_key(n.name.text) {
                self.diags.push(dup(&n.name, "variable"));
                continue;
            }
            match self.make_var(&info, n, None) {
                Ok(v) => {
                    let id = VarId(self.module.vars.len() as u32);
                    self.module.vars.push(v);
                    self.globals.insert(n.name.text, Symbol::Var(id));
                }
                Err(e) => self.diags.push(e),
            }
        }
    }

    /// Builds a variable; its initializer may only name module-scope symbols.
    fn make_var(
        &self,
        info: &DeclInfo,
        n: &ast::DeclName<'s>,
        owner: Option<FuncId>,
    ) -> Result<Var, Diag> {
        let space = info.space.ok_or_else(|| {
            Diag::error(
                "ir::missing-state-space",
                format!("`{}` is declared without a state space", n.name.text),
            )
            .label(
                info.span.clone(),
                "add `.global`, `.shared`, `.const`, `.local` or `.reg`",
            )
        })?;
        let ty = info.ty.ok_or_else(|| {
            Diag::error(
                "ir::missing-type",
                format!("`{}` is declared without a type", n.name.text),
            )
            .label(info.span.clone(), "add a type such as `.b32`")
        })?;
        let elem = u64::from(ty.size()) * u64::from(info.vec);
        let count = array_len(&n.dims)?;
        let size = count.map_or(0, |c| c.saturating_mul(elem));
        if size > MAX_VAR_BYTES {
            return Err(Diag::error(
                "ir::variable-too-large",
                format!("`{}` would be {size} bytes", n.name.text),
            )
            .label(
                n.name.span.clone(),
                format!("ptxrun lays out variables of at most {MAX_VAR_BYTES} bytes"),
            ));
        }
        if count.is_none()
            && !(space == Space::Shared && info.linkage == Linkage::Extern)
            && n.init.is_none()
        {
            return Err(Diag::error("ir::unsized-array", format!("`{}[]` has no size", n.name.text))
                .label(n.name.span.clone(), "only `.extern .shared` arrays may be unsized")
                .help("give the array a length, or declare it `.extern .shared` for dynamic shared memory"));
        }
        let (init, relocs) = match &n.init {
            None => (Vec::new(), Vec::new()),
            Some(i) => {
                let len = if count.is_none() {
                    init_len(i) * elem
                } else {
                    size
                };
                let globals = &self.globals;
                decl::initializer(i, ty, len, &|w| globals.get(w.text).copied())?
            }
        };
        let size = if count.is_none() && n.init.is_some() {
            init.len() as u64
        } else {
            size
        };
        Ok(Var {
            name: n.name.text.to_string(),
            space,
            ty,
            vec: info.vec,
            align: info.align.unwrap_or(ty.size() * u32::from(info.vec)),
            size,
            linkage: info.linkage,
            init,
            relocs,
            owner,
            span: n.name.span.clone(),
        })
    }

    fn declare_function(&mut self, f: &ast::Function<'s>) {
        let linkage = match f.linkage.iter().map(|w| w.text).next_back() {
            Some(".visible") => Linkage::Visible,
            Some(".extern") => Linkage::Extern,
            Some(".weak") => Linkage::Weak,
            _ => Linkage::None,
        };
        let params = self.params(&f.params, f.is_entry);
        let rets = self.params(&f.rets, false);
        let func = Function {
            name: f.name.text.to_string(),
            is_entry: f.is_entry,
            linkage,
            params,
            rets,
            attrs: self.kernel_attrs(&f.directives),
            defined: false,
            regs: Vec::new(),
            reg_names: Vec::new(),
            code: Vec::new(),
            operands: Vec::new(),
            srcs: Vec::new(),
            forms: Vec::new(),
            prototypes: Vec::new(),
            target_lists: Vec::new(),
            contractions: Vec::new(),
            labels: Vec::new(),
            span: f.span.clone(),
        };
        match self.globals.get(f.name.text) {
            Some(Symbol::Func(id)) => {
                let old = &mut self.module.functions[id.0 as usize];
                if old.defined && f.body.is_some() {
                    self.diags.push(dup(&f.name, "function"));
                } else if f.body.is_some() {
                    *old = func;
                }
            }
            Some(_) => self.diags.push(dup(&f.name, "symbol")),
            None => {
                let id = FuncId(self.module.functions.len() as u32);
                self.module.functions.push(func);
                self.globals.insert(f.name.text, Symbol::Func(id));
            }
        }
    }

    fn kernel_attrs(&mut self, dirs: &[ast::PerfDirective<'s>]) -> KernelAttrs {
        let mut a = KernelAttrs::default();
        for d in dirs {
            let args: Vec<u32> = d
                .args
                .iter()
                .filter_map(|w| parse_int(w).ok())
                .map(|v| v as u32)
                .collect();
            let dim3 = || {
                [
                    args.first().copied().unwrap_or(1),
                    args.get(1).copied().unwrap_or(1),
                    args.get(2).copied().unwrap_or(1),
                ]
            };
            match d.name.text {
                ".maxntid" => a.maxntid = Some(dim3()),
                ".reqntid" => a.reqntid = Some(dim3()),
                ".reqnctapercluster" => a.reqnctapercluster = Some(dim3()),
                ".minnctapersm" => a.minnctapersm = args.first().copied(),
                ".maxnctapersm" => a.maxnctapersm = args.first().copied(),
                ".maxnreg" => a.maxnreg = args.first().copied(),
                ".maxclusterrank" => a.maxclusterrank = args.first().copied(),
                ".explicitcluster" => a.explicitcluster = true,
                ".noreturn" => a.noreturn = true,
                _ => {}
            }
        }
        a
    }

    /// Lays out parameters as the CUDA ABI does: each at the next multiple of its alignment.
    fn params(&mut self, decls: &[ast::Decl<'s>], kernel: bool) -> Vec<Param> {
        let mut out = Vec::new();
        let mut offset: u64 = 0;
        for d in decls {
            let info = match decode_attrs(&d.attrs, d.span.clone()) {
                Ok(i) => i,
                Err(e) => {
                    self.diags.push(e);
                    continue;
                }
            };
            let Some(n) = d.names.first() else { continue };
            let Some(ty) = info.ty else {
                self.diags.push(
                    Diag::error("ir::missing-type", "parameter without a type")
                        .label(d.span.clone(), "add e.g. `.u64`"),
                );
                continue;
            };
            let elem = u64::from(ty.size()) * u64::from(info.vec);
            let count = match array_len(&n.dims) {
                Ok(c) => c.unwrap_or(0),
                Err(e) => {
                    self.diags.push(e);
                    continue;
                }
            };
            let size = count.saturating_mul(elem);
            let align = u64::from(info.align.unwrap_or(elem.min(16) as u32).max(1));
            offset = offset.next_multiple_of(align);
            // Kernels: the CUDA limit. Device functions pass parameters in registers and on
            // the stack; a bound keeps offsets meaningful on absurd input.
            let limit = if kernel { 32764 } else { 1 << 24 };
            if offset.saturating_add(size) > limit {
                self.diags.push(
                    Diag::error(
                        "ir::params-too-large",
                        format!("parameters exceed {limit} bytes"),
                    )
                    .label(d.span.clone(), "this parameter ends past the limit"),
                );
                break;
            }
            out.push(Param {
                name: n.name.text.to_string(),
                ty,
                vec: info.vec,
                align: align as u32,
                size: size.min(u64::from(u32::MAX)) as u32,
                offset: offset as u32,
                ptr: info.ptr,
                span: d.span.clone(),
            });
            offset += size;
        }
        out
    }

    fn define_function(&mut self, f: &ast::Function<'s>) {
        let Some(Symbol::Func(id)) = self.globals.get(f.name.text).copied() else {
            return;
        };
        let Some(body) = &f.body else { return };
        let template = &self.module.functions[id.0 as usize];
        let mut top = Scope::default();
        for (i, p) in template.params.iter().enumerate() {
            if let Some(d) = f.params.get(i).and_then(|d| d.names.first()) {
                top.names
                    .insert(d.name.text, Name::Sym(Symbol::Param(i as u16)));
            } else {
                let _ = p;
            }
        }
        for (i, d) in f.rets.iter().enumerate() {
            if let Some(n) = d.names.first() {
                top.names
                    .insert(n.name.text, Name::Sym(Symbol::Ret(i as u16)));
            }
        }
        let mut fl = FuncLowerer {
            lw: self,
            id,
            regs: Vec::new(),
            reg_names: Vec::new(),
            code: Vec::new(),
            operands: Vec::new(),
            srcs: Vec::new(),
            prototypes: Vec::new(),
            target_lists: Vec::new(),
            labels: Vec::new(),
            block_labels: Vec::new(),
            scopes: vec![top],
            poisoned: Vec::new(),
            loc: None,
            next_block: 0,
        };
        let mut count = 0u32;
        fl.collect_labels(body, &mut count);
        // One entry per instruction: sized once, no doubling slack (a big module's IR is
        // mostly these two vectors).
        fl.code.reserve_exact(count as usize);
        fl.srcs.reserve_exact(count as usize);
        fl.next_block = 0;
        fl.block(body);
        let FuncLowerer {
            regs,
            reg_names,
            code,
            operands,
            srcs,
            prototypes,
            target_lists,
            labels,
            ..
        } = fl;
        let func = &mut self.module.functions[id.0 as usize];
        func.defined = true;
        func.regs = regs;
        func.reg_names = reg_names;
        func.code = code;
        func.operands = operands;
        func.srcs = srcs;
        func.prototypes = prototypes;
        func.target_lists = target_lists;
        func.labels = labels;
        super::contract::contract(func);
        func.forms = super::form::decode_all(func);
    }
}

fn dup(w: &Word<'_>, what: &str) -> Diag {
    Diag::error(
        "ir::duplicate-declaration",
        format!("{what} `{}` is declared twice", w.text),
    )
    .label(w.span.clone(), "declared again here")
}

fn init_len(i: &ast::Init<'_>) -> u64 {
    match i {
        ast::Init::Expr(_) => 1,
        ast::Init::List(v, _) => v.iter().map(init_len).sum(),
    }
}

struct FuncLowerer<'l, 's> {
    lw: &'l mut Lowerer<'s>,
    id: FuncId,
    regs: Vec<RegInfo>,
    reg_names: Vec<String>,
    code: Vec<Instr>,
    operands: Vec<Operand>,
    srcs: Vec<SrcInfo>,
    prototypes: Vec<Prototype>,
    target_lists: Vec<(String, OpRange)>,
    labels: Vec<(String, u32)>,
    /// Labels and prototypes of each block, in pre-order.
    block_labels: Vec<HashMap<&'s str, Name>>,
    scopes: Vec<Scope<'s>>,
    poisoned: Vec<&'s str>,
    loc: Option<(u32, u32, u32)>,
    next_block: usize,
}

impl<'s> FuncLowerer<'_, 's> {
    fn error(&mut self, d: Diag) {
        if d.code != FOLLOW_ON {
            self.lw.diags.push(d);
        }
    }

    /// "Undefined", unless the name belongs to a declaration already reported as wrong.
    fn undefined(&self, w: &Word<'_>) -> Diag {
        let covered = self.poisoned.iter().any(|p| {
            w.text
                .strip_prefix(p)
                .is_some_and(|rest| rest.is_empty() || rest.bytes().all(|b| b.is_ascii_digit()))
        });
        if covered {
            Diag::error(
                FOLLOW_ON,
                "use of a register whose declaration was rejected",
            )
        } else {
            undefined(w)
        }
    }

    /// Walk 1: instruction numbers of labels, block by block.
    fn collect_labels(&mut self, stmts: &[Stmt<'s>], count: &mut u32) {
        let me = self.block_labels.len();
        self.block_labels.push(HashMap::default());
        for (i, s) in stmts.iter().enumerate() {
            match s {
                Stmt::Label(w) => {
                    let next = stmts.get(i + 1);
                    let name = if matches!(next, Some(Stmt::CallPrototype { .. })) {
                        self.prototypes.push(Prototype {
                            name: w.text.to_string(),
                            rets: Vec::new(),
                            params: Vec::new(),
                        });
                        Name::Proto(self.prototypes.len() as u32 - 1)
                    } else if target_list_kind(next).is_some() {
                        self.target_lists
                            .push((w.text.to_string(), OpRange { start: 0, len: 0 }));
                        Name::Targets(self.target_lists.len() as u32 - 1)
                    } else {
                        self.labels.push((w.text.to_string(), *count));
                        Name::Label(*count)
                    };
                    if self.block_labels[me].insert(w.text, name).is_some() {
                        self.error(dup(w, "label"));
                    }
                }
                Stmt::Instr(_) => *count += 1,
                Stmt::Block(inner) => self.collect_labels(inner, count),
                _ => {}
            }
        }
    }

    fn block(&mut self, stmts: &[Stmt<'s>]) {
        let labels = std::mem::take(&mut self.block_labels[self.next_block]);
        self.next_block += 1;
        self.scopes.push(Scope {
            names: labels,
            ranges: Vec::new(),
        });
        let mut proto_name: Option<&Word<'s>> = None;
        for s in stmts {
            match s {
                Stmt::Label(w) => proto_name = Some(w),
                Stmt::Instr(i) => self.instr(i),
                Stmt::Decl(d) if target_list_kind(Some(s)).is_some() => {
                    self.target_list(d, proto_name)
                }
                Stmt::Decl(d) => self.decl(d),
                Stmt::Block(inner) => self.block(inner),
                Stmt::Loc(l) => {
                    if let (Ok(f), Ok(line), Ok(col)) =
                        (parse_int(&l.file), parse_int(&l.line), parse_int(&l.column))
                    {
                        self.loc = Some((f as u32, line as u32, col as u32));
                    }
                }
                Stmt::CallPrototype { rets, params, .. } => {
                    let rets = self.lw.params(rets, false);
                    let params = self.lw.params(params, false);
                    if let Some(w) = proto_name {
                        if let Some(Name::Proto(i)) = self.lookup(w.text) {
                            self.prototypes[i as usize] = Prototype {
                                name: w.text.to_string(),
                                rets,
                                params,
                            };
                        }
                    }
                }
                Stmt::Pragma | Stmt::Error => {}
            }
            if !matches!(s, Stmt::Label(_)) {
                proto_name = None;
            }
        }
        self.scopes.pop();
    }

    /// `$L_brx_0: .branchtargets $L__BB0_1, $L__BB0_2;` (labels) or `.calltargets f, g;` (functions).
    fn target_list(&mut self, d: &ast::Decl<'s>, label: Option<&Word<'s>>) {
        let Some(Name::Targets(k)) = label.and_then(|w| self.lookup(w.text)) else {
            return self.error(
                Diag::error("ir::unlabelled-targets", "a target list needs a label")
                    .label(d.span.clone(), "add `name:` before it"),
            );
        };
        let mut items = Vec::with_capacity(d.names.len());
        for n in &d.names {
            match self.lookup(n.name.text) {
                Some(Name::Label(l)) => items.push(Operand::Label(l)),
                Some(Name::Sym(s @ Symbol::Func(_))) => items.push(Operand::Sym(s, 0)),
                _ => return self.error(undefined(&n.name)),
            }
        }
        if items.len() > usize::from(u8::MAX) {
            return self.error(
                Diag::error("ir::too-many-operands", "more than 255 targets")
                    .label(d.span.clone(), "here"),
            );
        }
        let start = self.operands.len() as u32;
        self.operands.extend_from_slice(&items);
        self.target_lists[k as usize].1 = OpRange {
            start,
            len: items.len() as u8,
        };
    }

    fn lookup(&self, name: &str) -> Option<Name> {
        if let Some(n) = self.lookup_plain(name) {
            return Some(n);
        }
        // `v.x`: a component of a vector register.
        let (base, comp) = name.rsplit_once('.')?;
        let c = ["x", "y", "z", "w"].iter().position(|x| *x == comp)? as u32;
        match self.lookup_plain(base)? {
            Name::Vec(first, n) if c < u32::from(n) => Some(Name::Reg(RegId(first + c))),
            _ => None,
        }
    }

    fn lookup_plain(&self, name: &str) -> Option<Name> {
        for s in self.scopes.iter().rev() {
            if let Some(n) = s.names.get(name) {
                return Some(*n);
            }
            for &(prefix, count, base) in s.ranges.iter().rev() {
                if let Some(rest) = name.strip_prefix(prefix) {
                    let canonical = !rest.is_empty()
                        && rest.bytes().all(|b| b.is_ascii_digit())
                        && (rest == "0" || !rest.starts_with('0'));
                    if let Some(n) = rest.parse::<u32>().ok().filter(|n| canonical && *n < count) {
                        return Some(Name::Reg(RegId(base + n)));
                    }
                }
            }
        }
        self.lw.globals.get(name).map(|s| Name::Sym(*s))
    }

    fn decl(&mut self, d: &ast::Decl<'s>) {
        let info = match decode_attrs(&d.attrs, d.span.clone()) {
            Ok(i) => i,
            Err(e) => return self.error(e),
        };
        if info.space == Some(Space::Reg) {
            return self.reg_decl(&info, d);
        }
        for n in &d.names {
            if self
                .scopes
                .last()
                .is_some_and(|s| s.names.contains_key(n.name.text))
            {
                self.error(dup(&n.name, "variable"));
                continue;
            }
            match self.lw.make_var(&info, n, Some(self.id)) {
                Ok(v) => {
                    let id = VarId(self.lw.module.vars.len() as u32);
                    self.lw.module.vars.push(v);
                    if let Some(s) = self.scopes.last_mut() {
                        s.names.insert(n.name.text, Name::Sym(Symbol::Var(id)));
                    }
                }
                Err(e) => self.error(e),
            }
        }
    }

    fn reg_decl(&mut self, info: &DeclInfo, d: &ast::Decl<'s>) {
        let Some(ty) = info.ty else {
            return self.error(
                Diag::error("ir::missing-type", "register declared without a type")
                    .label(d.span.clone(), "add e.g. `.b32`"),
            );
        };
        for n in &d.names {
            // Names of a rejected declaration: uses of them later are not reported again.
            self.poisoned.push(n.name.text);
            let count = match n.dims.as_slice() {
                [] => None,
                [ast::Dim::Range(e, span)] => match eval_const(e) {
                    Ok(c) if c > 0 && (c as u64) <= MAX_REGS_PER_FUNCTION => Some(c as u32),
                    Ok(c) => {
                        return self.error(
                            Diag::error(
                                "ir::bad-register-range",
                                format!("register range `{}<{c}>` is out of range", n.name.text),
                            )
                            .label(
                                span.clone(),
                                format!("a range must hold 1 to {MAX_REGS_PER_FUNCTION} registers"),
                            ),
                        )
                    }
                    Err(e) => return self.error(e),
                },
                _ => {
                    return self.error(
                        Diag::error(
                            "ir::bad-register-declaration",
                            "registers take `<N>` ranges, not arrays",
                        )
                        .label(n.name.span.clone(), "here"),
                    )
                }
            };
            let total = self.regs.len() as u64 + u64::from(count.unwrap_or(1));
            if total > MAX_REGS_PER_FUNCTION {
                return self.error(
                    Diag::error(
                        "ir::too-many-registers",
                        format!("more than {MAX_REGS_PER_FUNCTION} registers in one function"),
                    )
                    .label(n.name.span.clone(), "this declaration goes past the limit"),
                );
            }
            self.poisoned.pop();
            let base = self.regs.len() as u32;
            let scope = self.scopes.len() - 1;
            match count {
                None => {
                    if self.scopes[scope].names.contains_key(n.name.text) {
                        self.error(dup(&n.name, "register"));
                        continue;
                    }
                    if info.vec > 1 {
                        // `.reg .v2 .f32 v;`: one register per component, `v.x`, `v.y`, ...
                        for c in 0..info.vec {
                            self.regs.push(RegInfo { ty, vec: 1 });
                            self.reg_names
                                .push(format!("{}.{}", n.name.text, component_name(c)));
                        }
                        self.scopes[scope]
                            .names
                            .insert(n.name.text, Name::Vec(base, info.vec));
                    } else {
                        self.regs.push(RegInfo { ty, vec: info.vec });
                        self.reg_names.push(n.name.text.to_string());
                        self.scopes[scope]
                            .names
                            .insert(n.name.text, Name::Reg(RegId(base)));
                    }
                }
                Some(c) => {
                    for i in 0..c {
                        self.regs.push(RegInfo { ty, vec: info.vec });
                        self.reg_names.push(format!("{}{i}", n.name.text));
                    }
                    self.scopes[scope].ranges.push((n.name.text, c, base));
                }
            }
        }
    }

    fn instr(&mut self, i: &ast::Instr<'s>) {
        let words = || {
            let mut words = opcode_words(&i.opcode);
            words.extend(
                i.mods
                    .iter()
                    .map(|m| (&m.text[1..], m.span.start + 1..m.span.end)),
            );
            words
        };
        let cached = if i.mods.is_empty() {
            self.lw.decoded.get(i.opcode.text).cloned()
        } else {
            None
        };
        let decoded = match cached.map_or_else(|| decode_words(&words()), Ok) {
            Ok(d) => {
                if i.mods.is_empty() && d.raw.is_empty() {
                    self.lw.decoded.insert(i.opcode.text, d.clone());
                }
                d
            }
            Err(e) => return self.error(e),
        };
        let guard = match &i.guard {
            None => None,
            Some(g) => match self.lookup(g.reg.text) {
                Some(Name::Reg(r)) if self.regs[r.0 as usize].ty == Type::Pred => Some(Guard {
                    reg: r,
                    negated: g.negated,
                }),
                Some(Name::Reg(_)) => {
                    return self.error(
                        Diag::error(
                            "ir::guard-not-predicate",
                            format!("guard `{}` is not a `.pred` register", g.reg.text),
                        )
                        .label(g.reg.span.clone(), "declared with a data type"),
                    )
                }
                _ => return self.error(self.undefined(&g.reg)),
            },
        };
        let mut top = Vec::with_capacity(i.operands.len());
        for o in &i.operands {
            match self.operand(o) {
                Ok(v) => top.push(v),
                Err(e) => return self.error(e),
            }
        }
        if top.len() > usize::from(u8::MAX) {
            return self.error(
                Diag::error("ir::too-many-operands", "more than 255 operands")
                    .label(i.span.clone(), "here"),
            );
        }
        let start = self.operands.len() as u32;
        self.operands.extend_from_slice(&top);
        let ins = Instr {
            op: decoded.op,
            guard,
            ops: OpRange {
                start,
                len: top.len() as u8,
            },
            mods: decoded.mods,
        };
        if let Err(e) = check_instr(
            &ins,
            &top,
            &i.operands,
            i,
            &self.regs,
            &self.operands,
            &self.reg_names,
        ) {
            return self.error(e);
        }
        let vars = &self.lw.module.vars;
        let space_of = |s: Symbol| match s {
            Symbol::Var(v) => vars.get(v.0 as usize).map(|v| v.space),
            _ => None,
        };
        if let Err(e) = check_generic_names(&ins, &top, &self.operands, i, &space_of) {
            return self.error(e);
        }
        let raw = decoded.op.is_opaque().then(|| {
            words()
                .iter()
                .map(|(w, _)| *w)
                .collect::<Vec<_>>()
                .join(".")
        });
        self.srcs.push(SrcInfo {
            span: i.span.clone(),
            line: self.lw.line(i.span.start),
            loc: self.loc,
            raw,
        });
        self.code.push(ins);
    }

    fn push_range(&mut self, items: &[ast::Operand<'s>]) -> Result<OpRange, Diag> {
        let mut v = Vec::with_capacity(items.len());
        for it in items {
            v.push(self.operand(it)?);
        }
        if v.len() > usize::from(u8::MAX) {
            return Err(
                Diag::error("ir::too-many-operands", "more than 255 elements")
                    .label(items[0].span(), "here"),
            );
        }
        let start = self.operands.len() as u32;
        self.operands.extend_from_slice(&v);
        Ok(OpRange {
            start,
            len: v.len() as u8,
        })
    }

    fn operand(&mut self, o: &ast::Operand<'s>) -> Result<Operand, Diag> {
        match o {
            ast::Operand::Expr(e) => self.value(e),
            ast::Operand::Sink(_) => Ok(Operand::Sink),
            ast::Operand::Vector(items, _) => Ok(Operand::Vector(self.push_range(items)?)),
            ast::Operand::Paren(items, _) => Ok(Operand::List(self.push_range(items)?)),
            ast::Operand::Pair(a, b, span) => {
                let mut side = |o: &ast::Operand<'s>| match self.operand(o)? {
                    Operand::Reg(r) => Ok(Some(r)),
                    Operand::Sink => Ok(None),
                    _ => Err(
                        Diag::error("ir::bad-operand", "`a|b` needs two registers or `_`")
                            .label(span.clone(), "here"),
                    ),
                };
                let x = side(a)?;
                Ok(Operand::Pair(x, side(b)?))
            }
            ast::Operand::Addr(items, span) => match items.as_slice() {
                [ast::Operand::Expr(e)] => self.address(e, span.clone()),
                _ => Ok(Operand::AddrList(self.push_range(items)?)),
            },
        }
    }

    fn address(&mut self, e: &Expr<'s>, span: lex::Span) -> Result<Operand, Diag> {
        let bad = || {
            Diag::error(
                "ir::bad-address",
                "an address is `[reg]`, `[reg+imm]`, `[symbol]`, `[symbol+imm]` or `[imm]`",
            )
            .label(span.clone(), "not an address PTX accepts")
        };
        let (base, offset) = match e {
            Expr::Binary(op @ (ast::BinOp::Add | ast::BinOp::Sub), a, b, _) => {
                let k = eval_const(b).map_err(|_| bad())?;
                (
                    &**a,
                    if *op == ast::BinOp::Add {
                        k
                    } else {
                        k.wrapping_neg()
                    },
                )
            }
            other => (other, 0),
        };
        match base {
            Expr::Reg(_) | Expr::Sym(_) => match self.value(base)? {
                Operand::Reg(r) => Ok(Operand::Addr(AddrBase::Reg(r), offset)),
                Operand::Sym(s, k) => Ok(Operand::Addr(AddrBase::Sym(s), offset.wrapping_add(k))),
                _ => Err(bad()),
            },
            _ => match eval_const(e) {
                Ok(k) => Ok(Operand::Addr(AddrBase::None, k)),
                Err(_) => Err(bad()),
            },
        }
    }

    fn value(&mut self, e: &Expr<'s>) -> Result<Operand, Diag> {
        match e {
            Expr::Int(w) => parse_int(w).map(Operand::Imm),
            Expr::Float(w) => parse_float(w).map(|(b, f32)| {
                if f32 {
                    Operand::F32(b as u32)
                } else {
                    Operand::F64(b)
                }
            }),
            Expr::Reg(w) | Expr::Sym(w) => match self.lookup(w.text) {
                Some(Name::Reg(r)) => Ok(Operand::Reg(r)),
                Some(Name::Sym(s)) => Ok(Operand::Sym(s, 0)),
                Some(Name::Label(l)) => Ok(Operand::Label(l)),
                Some(Name::Proto(p)) => Ok(Operand::Prototype(p)),
                Some(Name::Targets(t)) => Ok(Operand::Targets(t)),
                Some(Name::Vec(first, n)) => {
                    let start = self.operands.len() as u32;
                    self.operands
                        .extend((0..u32::from(n)).map(|c| Operand::Reg(RegId(first + c))));
                    Ok(Operand::Vector(OpRange { start, len: n }))
                }
                None => match (SpecialReg::parse(w.text), video_selector(w.text)) {
                    (Some(sr), _) => Ok(Operand::Special(sr)),
                    // `%r2.b1`: a byte or half of a register, for the video instructions.
                    (None, Some((base, sel))) => match self.lookup(base) {
                        Some(Name::Reg(r)) => Ok(Operand::VReg(r, sel)),
                        _ => Err(self.undefined(w)),
                    },
                    // The ISA's one predefined identifier that is not a special register
                    // (section 4.4): the warp size, as nvcc writes `warpSize`.
                    (None, None) if w.text == "WARP_SZ" => Ok(Operand::Imm(32)),
                    (None, None) => Err(self.undefined(w)),
                },
            },
            Expr::Unary(UnOp::Neg, x, _) if matches!(**x, Expr::Reg(_)) => match self.value(x)? {
                Operand::Reg(r) => Ok(Operand::NegReg(r)),
                Operand::VReg(r, s) => Ok(Operand::VReg(r, s.with_neg())),
                _ => Err(Diag::error(
                    "ir::bad-operand",
                    "`-` applies to a register or a constant here",
                )
                .label(e.span(), "here")),
            },
            Expr::Unary(UnOp::Not, x, _) if matches!(**x, Expr::Reg(_) | Expr::Sym(_)) => {
                match self.value(x)? {
                    Operand::Reg(r) => Ok(Operand::NotPred(r)),
                    _ => Err(
                        Diag::error("ir::bad-operand", "`!` applies to a predicate register")
                            .label(e.span(), "here"),
                    ),
                }
            }
            Expr::Unary(UnOp::Neg, x, _) if matches!(**x, Expr::Float(_)) => match self.value(x)? {
                Operand::F32(b) => Ok(Operand::F32(b ^ 0x8000_0000)),
                Operand::F64(b) => Ok(Operand::F64(b ^ (1 << 63))),
                other => Ok(other),
            },
            Expr::Binary(op @ (ast::BinOp::Add | ast::BinOp::Sub), a, b, span)
                if !matches!(**a, Expr::Int(_) | Expr::Unary(..) | Expr::Binary(..)) =>
            {
                let k = eval_const(b)?;
                let k = if *op == ast::BinOp::Add {
                    k
                } else {
                    k.wrapping_neg()
                };
                match self.value(a)? {
                    Operand::Sym(s, o) => Ok(Operand::Sym(s, o.wrapping_add(k))),
                    _ => Err(Diag::error(
                        "ir::bad-operand",
                        "only a symbol plus a constant may be an operand; registers need `[...]`",
                    )
                    .label(span.clone(), "here")),
                }
            }
            Expr::Generic(w, _) => Err(Diag::error(
                "ir::bad-operand",
                "`generic()` is only valid in initializers",
            )
            .label(w.span.clone(), "here")),
            other => eval_const(other).map(Operand::Imm),
        }
    }
}

/// Splits `%r2.h1` into `%r2` and the selector `h1` (`b` or `h` and one to four digits).
fn video_selector(name: &str) -> Option<(&str, super::video::VSel)> {
    let (base, sel) = name.rsplit_once('.')?;
    Some((base, super::video::VSel::parse(sel)?))
}

fn undefined(w: &Word<'_>) -> Diag {
    if w.text.starts_with('%') {
        Diag::error(
            "ir::undefined-register",
            format!("undefined register `{}`", w.text),
        )
        .label(w.span.clone(), "not declared in this scope")
        .help("declare it with `.reg`, e.g. `.reg .b32 %r<10>;` declares %r0 to %r9")
    } else {
        Diag::error(
            "ir::undefined-symbol",
            format!("undefined label or symbol `{}`", w.text),
        )
        .label(w.span.clone(), "not declared in this scope")
    }
}

use crate::lex;
