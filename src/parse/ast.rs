//! The syntax tree the grammar builds: statements as written, nothing decoded. Opcodes are still
//! one dotted string, declarations still a list of dotted words; `ir` gives them meaning.
//! Every node lowering can report an error at carries the byte span it came from; what lowering
//! skips (`.section`, `.pragma`) keeps nothing. The shapes follow PTX ISA 9.0 chapter 4
//! "Syntax" (statements, operands, expressions) and chapter 11 "Directives" (module, function,
//! variable and performance-tuning directives).

use crate::lex::Span;

#[derive(Debug, Clone)]
pub enum Item<'s> {
    Version(Word<'s>),
    Target(Vec<Word<'s>>),
    AddressSize(Word<'s>),
    /// `.file 1 "name.cu"` with optional timestamp and size.
    File {
        index: Word<'s>,
        path: Word<'s>,
    },
    /// A `.section` (DWARF) block: skipped.
    Section,
    /// A module-level `.pragma`: ptxas takes none that changes what a kernel computes.
    Pragma,
    Var(Decl<'s>),
    Function(Box<Function<'s>>),
    /// A statement the parser skipped after an error (already reported).
    Error,
}

/// A token's text with its span.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Word<'s> {
    pub text: &'s str,
    pub span: Span,
}

impl<'s> Word<'s> {
    pub fn new(text: &'s str, start: usize, end: usize) -> Self {
        Word {
            text,
            span: start..end,
        }
    }
}

/// A declaration: `.visible .global .align 4 .b8 x[4] = {1, 2, 3, 4}`, `.reg .b32 %r<9>`,
/// `.param .u64 .ptr .global .align 8 k_param_0`.
#[derive(Debug, Clone)]
pub struct Decl<'s> {
    pub attrs: Vec<Attr<'s>>,
    pub names: Vec<DeclName<'s>>,
    pub span: Span,
}

#[derive(Debug, Clone)]
pub enum Attr<'s> {
    /// A dotted word: `.global`, `.align`, `.u32`, `.v4`, `.ptr`.
    Word(Word<'s>),
    /// A number after a word: the `8` of `.align 8`.
    Num(Word<'s>),
    /// A parenthesised list: `.attribute(.managed)`.
    List(Span),
}

#[derive(Debug, Clone)]
pub struct DeclName<'s> {
    pub name: Word<'s>,
    pub dims: Vec<Dim<'s>>,
    /// Boxed, as the other rare large parts of the tree are: the parser moves every symbol
    /// by value, so the largest one sets the cost of each move.
    pub init: Option<Box<Init<'s>>>,
}

#[derive(Debug, Clone)]
pub enum Dim<'s> {
    /// `[N]`, or `[]` for an unsized (extern) array.
    Array(Option<Box<Expr<'s>>>, Span),
    /// `<N>`: a parameterised register range `%r<N>`.
    Range(Box<Expr<'s>>, Span),
}

#[derive(Debug, Clone)]
pub enum Init<'s> {
    Expr(Expr<'s>),
    List(Vec<Init<'s>>, Span),
}

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum BinOp {
    Add,
    Sub,
    Mul,
    Div,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum UnOp {
    Neg,
    Not,
    BitNot,
}

#[derive(Debug, Clone)]
pub enum Expr<'s> {
    Int(Word<'s>),
    Float(Word<'s>),
    Reg(Word<'s>),
    Sym(Word<'s>),
    /// `generic(sym)` in an initializer: the generic address of a variable.
    Generic(Word<'s>, Span),
    Unary(UnOp, Box<Expr<'s>>, Span),
    Binary(BinOp, Box<Expr<'s>>, Box<Expr<'s>>, Span),
}

impl Expr<'_> {
    pub fn span(&self) -> Span {
        match self {
            Expr::Int(w) | Expr::Float(w) | Expr::Reg(w) | Expr::Sym(w) => w.span.clone(),
            Expr::Generic(_, s) | Expr::Unary(_, _, s) | Expr::Binary(_, _, _, s) => s.clone(),
        }
    }
}

#[derive(Debug, Clone)]
pub struct Function<'s> {
    /// Linkage words before `.entry`/`.func`: `.visible`, `.extern`, `.weak`.
    pub linkage: Vec<Word<'s>>,
    pub is_entry: bool,
    pub rets: Vec<Decl<'s>>,
    pub name: Word<'s>,
    pub params: Vec<Decl<'s>>,
    pub directives: Vec<PerfDirective<'s>>,
    /// `None` for a declaration (`.extern .func ... ;`).
    pub body: Option<Vec<Stmt<'s>>>,
    pub span: Span,
}

#[derive(Debug, Clone)]
pub struct PerfDirective<'s> {
    pub name: Word<'s>,
    pub args: Vec<Word<'s>>,
}

#[derive(Debug, Clone)]
pub enum Stmt<'s> {
    Label(Word<'s>),
    Instr(Box<Instr<'s>>),
    Decl(Decl<'s>),
    Block(Vec<Stmt<'s>>),
    Loc(Box<Loc<'s>>),
    /// `.pragma "nounroll";` and the like: hints, no effect on what the code computes.
    Pragma,
    /// `.callprototype (.param .b32 _) _ (.param .b64 _);` following a label.
    CallPrototype {
        rets: Vec<Decl<'s>>,
        params: Vec<Decl<'s>>,
    },
    Error,
}

/// `.loc file line column`, optionally `, function_name label, inlined_at f l c`.
#[derive(Debug, Clone)]
pub struct Loc<'s> {
    pub file: Word<'s>,
    pub line: Word<'s>,
    pub column: Word<'s>,
}

impl<'s> Loc<'s> {
    /// From a `.loc FILE LINE COLUMN` token at `start`.
    pub fn from_token(t: &'s str, start: usize) -> Self {
        let mut words = t[".loc".len()..]
            .split([' ', '\t'])
            .filter(|w| !w.is_empty())
            .map(|w| {
                // `w` is a subslice of `t`: its offset is its distance from `t`'s start.
                let at = start + (w.as_ptr() as usize - t.as_ptr() as usize);
                Word::new(w, at, at + w.len())
            });
        let mut next = || words.next().unwrap_or(Word::new("0", start, start));
        let (file, line, column) = (next(), next(), next());
        Loc { file, line, column }
    }
}

#[derive(Debug, Clone)]
pub struct Guard<'s> {
    pub negated: bool,
    pub reg: Word<'s>,
}

#[derive(Debug, Clone)]
pub struct Instr<'s> {
    pub guard: Option<Guard<'s>>,
    pub opcode: Word<'s>,
    /// Modifiers written apart from the opcode (`lop3 .b32`), dots included.
    pub mods: Vec<Word<'s>>,
    pub operands: Vec<Operand<'s>>,
    pub span: Span,
}

#[derive(Debug, Clone)]
pub enum Operand<'s> {
    Expr(Expr<'s>),
    /// `[ ... ]`: an address, or for textures a list.
    Addr(Vec<Operand<'s>>, Span),
    /// `{a, b, c}`: a vector of registers.
    Vector(Vec<Operand<'s>>, Span),
    /// `(a, b)`: call arguments or return values.
    Paren(Vec<Operand<'s>>, Span),
    Sink(Span),
    /// `%p|%q`: setp's two predicate destinations.
    Pair(Box<Operand<'s>>, Box<Operand<'s>>, Span),
}

impl Operand<'_> {
    pub fn span(&self) -> Span {
        match self {
            Operand::Expr(e) => e.span(),
            Operand::Addr(_, s)
            | Operand::Vector(_, s)
            | Operand::Paren(_, s)
            | Operand::Sink(s) => s.clone(),
            Operand::Pair(_, _, s) => s.clone(),
        }
    }
}
#[cfg(test)]
mod tests {
    use super::*;

    /// lalrpop moves every symbol by value, so the largest tree node sets the cost of each
    /// shift and reduce: large, rare parts are boxed. Keep the common ones within 72 bytes (the
    /// parser's own error-recovery symbol is 88). `Stmt` is 64 since `.pragma` and blocks no longer keep
    /// spans that nothing read.
    #[test]
    fn tree_node_sizes_are_pinned() {
        assert_eq!(std::mem::size_of::<Item>(), 72);
        assert_eq!(std::mem::size_of::<Stmt>(), 64);
        assert_eq!(std::mem::size_of::<DeclName>(), 64);
        assert_eq!(std::mem::size_of::<Operand>(), 56);
        assert_eq!(std::mem::size_of::<Dim>(), 32);
    }
}
