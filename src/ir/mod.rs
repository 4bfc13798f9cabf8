//! The typed IR: what the interpreter executes. Lowering ([`lower`]) turns the syntax tree into,
//! per function, a flat instruction vector with decoded opcodes and modifiers (`opcode.rs`,
//! `mods.rs`), operands resolved to dense register indices, variables, parameters and
//! instruction indices, the parameter layout of the CUDA ABI (PTX ISA 9.0 section 7
//! "Abstracting the ABI", 5.1.6 "Parameter State Space"), and variables with size, alignment and
//! initial bytes (5.4 "Variables"). Source positions and each instruction's decoded form
//! (`form.rs`: a `cvt`'s conversion, a matrix instruction's shape, a call's operand lists) live
//! beside the code (`Function::srcs`, `Function::forms`), so the hot [`Instr`] stays small and
//! `Copy` and handlers decode nothing at run time; `check.rs` applies the checks ptxas makes.

mod atomform;
mod check;
mod contract;
pub mod cvt;
mod decl;
pub mod form;
mod generic;
mod lower;
pub mod mma;
pub mod mma_sp;
pub mod mods;
pub mod opcode;
pub mod policy;
mod print;
mod tensorcopy;
pub mod texture;
pub mod types;
pub mod video;
pub mod wgmma;

pub(crate) use contract::each_reg;
pub use form::Form;
pub use mods::{Flags, Mods};
pub use opcode::Op;
pub use print::{print_instr, print_module, print_opcode};
pub use types::{Space, SpecialReg, Type};

use crate::lex::Span;

/// Index of a register within its function.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub struct RegId(pub u32);

/// Index into [`Module::vars`].
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub struct VarId(pub u32);

/// Index into [`Module::functions`].
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub struct FuncId(pub u32);

#[derive(Debug, Clone)]
pub struct Module {
    pub version: (u32, u32),
    /// `.target` words in order (`sm_90a`, `debug`, `texmode_independent`).
    pub targets: Vec<String>,
    pub address_size: u32,
    /// `.file` index -> path.
    pub files: Vec<(u32, String)>,
    /// Module-scope variables, then every function's local `.shared`/`.local`/`.const` variables.
    pub vars: Vec<Var>,
    pub functions: Vec<Function>,
}

/// The PTX ISA version ptxrun implements (the README says which instructions of it run).
pub const ISA_VERSION: (u32, u32) = (9, 0);

impl Module {
    /// What a user should know before trusting a run of this module: a `.version` newer than
    /// the ISA ptxrun implements (Triton writes `.version 9.4`) runs, but may use instructions or
    /// modifiers ptxrun has never seen, which stop as errors naming them when reached.
    pub fn warnings(&self) -> Vec<String> {
        let mut out = Vec::new();
        if self.version > ISA_VERSION {
            let (a, b) = self.version;
            let (x, y) = ISA_VERSION;
            out.push(format!(
                "`.version {a}.{b}` is newer than PTX ISA {x}.{y}, which ptxrun implements: \
                 the module runs, but instructions and modifiers added after {x}.{y} may be \
                 unknown to ptxrun (each one it meets is an error that names it)"
            ));
        }
        out
    }

    pub fn function(&self, name: &str) -> Option<&Function> {
        self.functions.iter().find(|f| f.name == name)
    }

    pub fn entries(&self) -> impl Iterator<Item = &Function> {
        self.functions.iter().filter(|f| f.is_entry)
    }

    /// The source file of a `.file` index.
    pub fn file(&self, index: u32) -> Option<&str> {
        self.files
            .iter()
            .find(|(i, _)| *i == index)
            .map(|(_, p)| p.as_str())
    }
}

#[derive(Debug, Clone)]
pub struct Var {
    pub name: String,
    pub space: Space,
    pub ty: Type,
    /// `.v2`/`.v4`: elements per vector; 1 for scalars.
    pub vec: u8,
    pub align: u32,
    /// Total size in bytes; 0 for an unsized `.extern .shared` array (dynamic shared memory).
    pub size: u64,
    pub linkage: Linkage,
    /// Initial bytes (empty: zero-filled), and addresses of other symbols to patch in at load.
    pub init: Vec<u8>,
    pub relocs: Vec<Reloc>,
    /// `None` for module scope; else the function whose body declares it.
    pub owner: Option<FuncId>,
    pub span: Span,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Linkage {
    None,
    Visible,
    Extern,
    Weak,
    Common,
}

/// "Write the address of `target` (+ `addend`) into `size` bytes at `offset`."
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Reloc {
    pub offset: u64,
    pub size: u8,
    pub target: Symbol,
    pub addend: i64,
    /// `generic(sym)`: the generic address rather than the state-space address.
    pub generic: bool,
}

#[derive(Debug, Clone)]
pub struct Param {
    pub name: String,
    pub ty: Type,
    pub vec: u8,
    pub align: u32,
    pub size: u32,
    /// Byte offset in the parameter buffer, as the CUDA ABI lays it out.
    pub offset: u32,
    /// `.ptr .global .align 16` attributes of kernel pointer parameters.
    pub ptr: Option<(Space, u32)>,
    pub span: Span,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct RegInfo {
    pub ty: Type,
    pub vec: u8,
}

/// Kernel attributes from the performance-tuning directives (PTX ISA 11.4).
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct KernelAttrs {
    pub maxntid: Option<[u32; 3]>,
    pub reqntid: Option<[u32; 3]>,
    pub minnctapersm: Option<u32>,
    pub maxnctapersm: Option<u32>,
    pub maxnreg: Option<u32>,
    pub reqnctapercluster: Option<[u32; 3]>,
    pub explicitcluster: bool,
    pub maxclusterrank: Option<u32>,
    pub noreturn: bool,
}

#[derive(Debug, Clone)]
pub struct Function {
    pub name: String,
    pub is_entry: bool,
    pub linkage: Linkage,
    pub params: Vec<Param>,
    pub rets: Vec<Param>,
    pub attrs: KernelAttrs,
    /// `false` for a declaration without a body (`.extern .func vprintf(...)`).
    pub defined: bool,
    pub regs: Vec<RegInfo>,
    /// Register names, parallel to `regs` (for printing and diagnostics).
    pub reg_names: Vec<String>,
    pub code: Vec<Instr>,
    /// Operand pool: instructions refer to ranges of it.
    pub operands: Vec<Operand>,
    /// Source position of each instruction, parallel to `code`.
    pub srcs: Vec<SrcInfo>,
    /// The decoded form of each instruction, parallel to `code` (see `form.rs`).
    pub forms: Vec<Form>,
    /// Call prototypes (`.callprototype`) declared in the body.
    pub prototypes: Vec<Prototype>,
    /// `.branchtargets` / `.calltargets` lists: name and the range of their targets.
    pub target_lists: Vec<(String, OpRange)>,
    /// (add/sub index, mul index) pairs fused into one fma, as ptxas fuses them.
    pub contractions: Vec<(u32, u32)>,
    /// Label names with their instruction index, for printing.
    pub labels: Vec<(String, u32)>,
    pub span: Span,
}

impl Function {
    /// Where instruction `pc` stands, for traces and the engine's records: its PTX line (0 when
    /// none) and the CUDA `.loc` in force (file index, line).
    pub fn lines_at(&self, pc: u32) -> (u32, Option<(u32, u32)>) {
        let src = self.srcs.get(pc as usize);
        (
            src.map_or(0, |s| s.line),
            src.and_then(|s| s.loc).map(|(f, l, _)| (f, l)),
        )
    }

    pub fn ops(&self, i: &Instr) -> &[Operand] {
        &self.operands[i.ops.start as usize..i.ops.start as usize + i.ops.len as usize]
    }

    pub fn sub_ops(&self, r: OpRange) -> &[Operand] {
        &self.operands[r.start as usize..r.start as usize + r.len as usize]
    }

    /// The decoded form of instruction `pc` (decoded once, when the function was lowered).
    pub fn form(&self, pc: u32) -> &Form {
        &self.forms[pc as usize]
    }
}

#[derive(Debug, Clone)]
pub struct Prototype {
    pub name: String,
    pub rets: Vec<Param>,
    pub params: Vec<Param>,
}

/// Where an instruction came from: its PTX span and line, and the CUDA line of `.loc`.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct SrcInfo {
    pub span: Span,
    pub line: u32,
    /// (file index, line, column) of the `.loc` in force, if any.
    pub loc: Option<(u32, u32, u32)>,
    /// The words of an opaque instruction, for printing and for the unsupported error.
    pub raw: Option<String>,
}

/// A range of [`Function::operands`].
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct OpRange {
    pub start: u32,
    pub len: u8,
}

/// A predicate guard `@%p` / `@!%p`.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Guard {
    pub reg: RegId,
    pub negated: bool,
}

/// One decoded instruction. Small and `Copy`: the interpreter's hot loop reads these.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Instr {
    pub op: Op,
    pub guard: Option<Guard>,
    pub ops: OpRange,
    pub mods: Mods,
}

impl Instr {
    /// `ldmatrix`/`stmatrix`/`movmatrix` in the forms ptxrun executes: `.m8n8` with `.b16`
    /// elements (and `.x1`/`.x2`/`.x4` for the first two, `.trans` for `movmatrix`). The sm_100
    /// shapes (`.m16n16`, `.m8n16`, `.m16n8`) and the 8-bit and packed 6/4-bit element types are
    /// not: they decode and stop as `unsupported`.
    pub fn is_m8n8_b16_matrix(&self) -> bool {
        use mods::Flags;
        let m = &self.mods;
        let shape = m.has(Flags::M8N8)
            && m.ty() == Some(Type::B16)
            && ![Flags::M16N16, Flags::M8N16, Flags::M16N8]
                .iter()
                .any(|f| m.has(*f));
        let count = [Flags::X1, Flags::X2, Flags::X4]
            .iter()
            .filter(|f| m.has(**f))
            .count();
        match self.op {
            Op::Movmatrix => shape && m.has(Flags::TRANS),
            _ => shape && count == 1,
        }
    }

    /// Whether one of the instruction's types is `.b128` (registers hold 64 bits, so ptxrun
    /// executes none of the forms PTX allows: see `check::check_b128`).
    pub fn is_b128(&self) -> bool {
        self.mods.types.contains(&Some(Type::B128))
    }
}

/// What a name in an operand refers to.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Symbol {
    Var(VarId),
    Param(u16),
    Ret(u16),
    Func(FuncId),
}

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum AddrBase {
    /// `[imm]`: an absolute address.
    None,
    Reg(RegId),
    Sym(Symbol),
}

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Operand {
    Reg(RegId),
    /// An integer immediate, as its 64-bit two's-complement pattern.
    Imm(i64),
    /// `0fXXXXXXXX`.
    F32(u32),
    /// `0dXXXXXXXXXXXXXXXX` or a decimal float literal (held as f64 bits).
    F64(u64),
    Special(SpecialReg),
    /// A symbol's address as a value (`mov.u32 %r1, smem;`), plus an offset.
    Sym(Symbol, i64),
    /// `[base + offset]`.
    Addr(AddrBase, i64),
    /// `{a, b, c, d}`.
    Vector(OpRange),
    /// `[a, b, ...]` that is not a plain address: texture and tensor-map operands.
    AddrList(OpRange),
    /// `(a, b)`: call arguments and return values.
    List(OpRange),
    /// A branch target: an index into the function's code.
    Label(u32),
    /// A `.callprototype` of this function.
    Prototype(u32),
    /// A `.branchtargets` / `.calltargets` list of this function.
    Targets(u32),
    Sink,
    /// `!%p` as a source predicate.
    NotPred(RegId),
    /// `-%r` (video instructions' negated source).
    NegReg(RegId),
    /// A video instruction's register with a selector, `%r2.b1`, `%r1.h10`, `-%r2.h0`
    /// (see [`video::VSel`]).
    VReg(RegId, video::VSel),
    /// `%r|%p`: two destinations, either may be the sink `_`.
    Pair(Option<RegId>, Option<RegId>),
}

/// Everything one `ptxrun parse` needs: parse and lower, or every diagnostic.
pub fn compile(src: &str) -> Result<Module, Vec<crate::diag::Diag>> {
    lower::compile(src)
}

#[cfg(test)]
mod corpus_tests;

#[cfg(test)]
mod tests {
    use super::*;

    /// The interpreter walks `Vec<Instr>`: keep an instruction within 48 bytes (4 per 3 lines).
    #[test]
    fn instr_size_is_pinned() {
        assert_eq!(std::mem::size_of::<Mods>(), 24);
        assert_eq!(std::mem::size_of::<Instr>(), 48);
        assert_eq!(std::mem::size_of::<Operand>(), 24);
    }
}
