//! Lexer: PTX source text to a flat token vector (PTX ISA 9.0, section 4 "Syntax": 4.1 source
//! format, 4.2 comments, 4.3 statements, 4.4 identifiers, 4.5 constants).
//!
//! The model: PTX is a line-insensitive, `;`-terminated statement language. The lexer keeps the
//! grammar small by deciding three things here rather than in LR rules:
//! - an opcode together with all of its dotted modifiers (`cp.async.bulk.shared::cluster.global`) is
//!   *one* [`Tok::Opcode`] token; the IR stage splits it and decodes the modifiers from tables;
//! - a special register with its component (`%tid.x`) is one [`Tok::Reg`] token;
//! - a `.section` block of a `-G` build (DWARF bytes written as PTX data directives) is one
//!   [`Tok::Section`] token: the interpreter never needs its contents, and it is large.
//!
//! Directives that shape the grammar (`.entry`, `.func`, `.loc`, ...) get tokens of their own;
//! every other dotted word (`.reg`, `.u32`, `.align`, `.shared::cta`) is a [`Tok::DotWord`] whose
//! meaning the IR stage decodes. Errors are values: an unknown character becomes a
//! [`LexError`] with its span, and lexing continues so that several can be reported.

use logos::Logos;
use std::ops::Range;

/// A byte range into the source text.
pub type Span = Range<usize>;

#[derive(Logos, Debug, Clone, Copy, PartialEq, Eq)]
#[logos(skip r"[ \t\r\n\f]+")]
#[logos(skip r"//[^\n]*")]
pub enum Tok<'s> {
    #[token("/*", block_comment)]
    BlockComment,

    // ---- directives that the grammar needs to see ----
    #[token(".version")]
    Version,
    #[token(".target")]
    Target,
    #[token(".address_size")]
    AddressSize,
    #[token(".file")]
    File,
    /// `.loc`, with its file, line and column when they follow as plain decimals on the same
    /// line (`.loc 1 17 3`, as nvcc writes every one): a third of a `-lineinfo` module's
    /// statements, so one token instead of four. The token streams turn that form into
    /// [`Tok::LocLine`]; a `Loc` they hand on is `.loc` alone, its operands separate tokens.
    #[token(".loc", loc_numbers)]
    Loc(&'s str),
    /// `.loc FILE LINE COLUMN` in one token (made from [`Tok::Loc`], never by the lexer).
    LocLine(&'s str),
    #[token(".entry")]
    Entry,
    #[token(".func")]
    Func,
    #[token(".callprototype")]
    CallPrototype,
    #[token(".pragma")]
    Pragma,
    /// Kernel performance-tuning directives (`.maxntid 128, 1, 1`); their name is the slice.
    #[token(".maxntid")]
    #[token(".reqntid")]
    #[token(".minnctapersm")]
    #[token(".maxnctapersm")]
    #[token(".maxnreg")]
    #[token(".reqnctapercluster")]
    #[token(".explicitcluster")]
    #[token(".maxclusterrank")]
    #[token(".blocksareclusters")]
    #[token(".noreturn")]
    #[token(".abi_preserve")]
    #[token(".abi_preserve_control")]
    PerfDirective(&'s str),
    /// `.section .debug_info { ... }`: the whole block, braces included.
    #[token(".section", section_block)]
    Section(&'s str),

    /// Any other directive or modifier word: `.reg`, `.b32`, `.align`, `.shared::cta`, `.v4`.
    #[regex(r"\.[A-Za-z_$][A-Za-z0-9_$]*(::[A-Za-z0-9_$]+)*")]
    DotWord(&'s str),

    /// An opcode with its modifiers, `ld.global.nc.v4.u32` (at least one dot).
    #[regex(r"[A-Za-z_][A-Za-z0-9_]*(\.[A-Za-z0-9_]+(::[A-Za-z0-9_]+)*)+")]
    Opcode(&'s str),

    /// A register or special register, `%r12`, `%tid.x`, `%clock64`, `%envreg3`; video
    /// instructions add a byte or half selector, `%r2.b1`, `%r3.h0`, `%r1.h10`, `%r1.b7654`
    /// (which selectors an operand may carry is checked in `ir::video`).
    #[regex(r"%[A-Za-z0-9_$]+(\.[xyzw]|\.h[0-7]{1,4}|\.b[0-7]{1,4})?")]
    Reg(&'s str),

    /// A plain identifier: a label, a symbol, an opcode without modifiers (`ret`, `exit`).
    #[regex(r"[A-Za-z][A-Za-z0-9_$]*|[_$][A-Za-z0-9_$]+")]
    Ident(&'s str),

    /// The sink operand `_`.
    #[token("_")]
    Sink,

    /// Integer constants: decimal, `0x` hex, `0b` binary, leading-zero octal; optional `U`.
    #[regex(r"[0-9]+U?")]
    #[regex(r"0[xX][0-9a-fA-F]+U?")]
    #[regex(r"0[bB][01]+U?")]
    Int(&'s str),

    /// Floating constants: `0f3F800000` (f32 bits), `0d3FF0000000000000` (f64 bits), `1.5e3`.
    #[regex(r"0[fF][0-9a-fA-F]{8}")]
    #[regex(r"0[dD][0-9a-fA-F]{16}")]
    #[regex(r"[0-9]+\.[0-9]*([eE][+-]?[0-9]+)?")]
    #[regex(r"[0-9]+[eE][+-]?[0-9]+")]
    Float(&'s str),

    #[regex(r#""([^"\\\n]|\\.)*""#)]
    Str(&'s str),

    #[token("@")]
    At,
    #[token("!")]
    Bang,
    #[token(",")]
    Comma,
    #[token(";")]
    Semi,
    #[token(":")]
    Colon,
    #[token("{")]
    LBrace,
    #[token("}")]
    RBrace,
    #[token("[")]
    LBracket,
    #[token("]")]
    RBracket,
    #[token("(")]
    LParen,
    #[token(")")]
    RParen,
    #[token("<")]
    Lt,
    #[token(">")]
    Gt,
    #[token("+")]
    Plus,
    #[token("-")]
    Minus,
    #[token("*")]
    Star,
    #[token("/")]
    Slash,
    #[token("|")]
    Pipe,
    #[token("=")]
    Eq,
    #[token("~")]
    Tilde,
}

fn block_comment<'s>(lex: &mut logos::Lexer<'s, Tok<'s>>) -> logos::FilterResult<(), ()> {
    match lex.remainder().find("*/") {
        Some(end) => {
            lex.bump(end + 2);
            logos::FilterResult::Skip
        }
        // An unterminated comment is an error at its opening `/*`.
        None => logos::FilterResult::Error(()),
    }
}

/// Swallows `.section NAME { ... }` up to the matching brace. The body holds only data
/// directives, numbers and labels, so braces inside it nest plainly (no strings with braces).
fn section_block<'s>(lex: &mut logos::Lexer<'s, Tok<'s>>) -> Option<&'s str> {
    let rest = lex.remainder();
    let open = rest.find('{')?;
    // Only whitespace and a section name may stand between `.section` and `{`.
    if rest[..open].contains(';') || rest[..open].contains('}') {
        return None;
    }
    let mut depth = 0usize;
    for (i, c) in rest[open..].char_indices() {
        match c {
            '{' => depth += 1,
            '}' => {
                depth -= 1;
                if depth == 0 {
                    lex.bump(open + i + 1);
                    return Some(lex.slice());
                }
            }
            _ => {}
        }
    }
    None
}

/// Extends `.loc` over ` FILE LINE COLUMN` when all three are there; otherwise the token is
/// `.loc` alone and the grammar reads the operands as separate tokens (and reports what is
/// wrong with them).
fn loc_numbers<'s>(lex: &mut logos::Lexer<'s, Tok<'s>>) -> &'s str {
    let rest = lex.remainder().as_bytes();
    let mut at = 0;
    for _ in 0..3 {
        let blank = rest[at..]
            .iter()
            .take_while(|&&b| b == b' ' || b == b'\t')
            .count();
        let digits = rest[at + blank..]
            .iter()
            .take_while(|b| b.is_ascii_digit())
            .count();
        if blank == 0 || digits == 0 {
            return lex.slice();
        }
        at += blank + digits;
    }
    // A number must end where the statement's words end: `.loc 1 2 3x` is not this form.
    if rest
        .get(at)
        .is_some_and(|b| b.is_ascii_alphanumeric() || matches!(b, b'_' | b'$' | b'.'))
    {
        return lex.slice();
    }
    lex.bump(at);
    lex.slice()
}

/// One character (or run) that no token matches.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct LexError {
    pub span: Span,
}

/// At most this many lexical errors are collected; garbage input would otherwise yield one per byte.
const MAX_LEX_ERRORS: usize = 20;

/// Deepest `{ }` nesting accepted. Inline asm nests a level or two; the limit keeps every later
/// recursive walk over scopes far from the native stack's end on hostile input.
pub const MAX_SCOPE_DEPTH: usize = 256;

/// The tokens of `src` with their spans, made as the parser asks for them (a module of many
/// megabytes is never held as a token vector); block comments and bad bytes are skipped, and
/// [`errors`] reports the latter.
pub fn tokens(src: &str) -> impl Iterator<Item = (Tok<'_>, Span)> {
    Tok::lexer(src)
        .spanned()
        .filter_map(|(res, span)| match res {
            Ok(Tok::BlockComment) | Err(()) => None,
            Ok(t) => Some((plain_loc(t), span)),
        })
}

/// A `.loc` token that took its numbers becomes [`Tok::LocLine`].
fn plain_loc(t: Tok<'_>) -> Tok<'_> {
    match t {
        Tok::Loc(s) if s.len() > ".loc".len() => Tok::LocLine(s),
        t => t,
    }
}

/// One pass over `src`: every token (block comments skipped) goes to `on_token`; the bytes no
/// token matches come back as errors, adjacent ones merged, at most [`MAX_LEX_ERRORS`].
pub fn scan<'s>(src: &'s str, mut on_token: impl FnMut(&Tok<'s>, &Span)) -> Vec<LexError> {
    let mut errors: Vec<LexError> = Vec::new();
    for (res, span) in Tok::lexer(src).spanned() {
        let Err(()) = res else {
            if let Ok(t) = res {
                if t != Tok::BlockComment {
                    on_token(&plain_loc(t), &span);
                }
            }
            continue;
        };
        // Merge adjacent bad bytes into one error.
        if let Some(last) = errors.last_mut() {
            if last.span.end == span.start {
                last.span.end = span.end;
                continue;
            }
        }
        if errors.len() < MAX_LEX_ERRORS {
            errors.push(LexError { span });
        }
    }
    errors
}

/// A friendly name for a token kind, used in parse errors ("expected `;`").
pub fn describe(tok: &Tok<'_>) -> String {
    match tok {
        Tok::Opcode(s) => format!("instruction `{s}`"),
        Tok::Ident(s) => format!("identifier `{s}`"),
        Tok::Reg(s) => format!("register `{s}`"),
        Tok::DotWord(s) | Tok::PerfDirective(s) => format!("`{s}`"),
        Tok::Int(s) | Tok::Float(s) => format!("number `{s}`"),
        Tok::Str(s) => format!("string {s}"),
        Tok::Section(_) => "`.section` block".into(),
        other => format!("`{}`", fixed_text(other)),
    }
}

fn fixed_text(tok: &Tok<'_>) -> &'static str {
    match tok {
        Tok::Version => ".version",
        Tok::Target => ".target",
        Tok::AddressSize => ".address_size",
        Tok::File => ".file",
        Tok::Loc(_) | Tok::LocLine(_) => ".loc",
        Tok::Entry => ".entry",
        Tok::Func => ".func",
        Tok::CallPrototype => ".callprototype",
        Tok::Pragma => ".pragma",
        Tok::Sink => "_",
        Tok::At => "@",
        Tok::Bang => "!",
        Tok::Comma => ",",
        Tok::Semi => ";",
        Tok::Colon => ":",
        Tok::LBrace => "{",
        Tok::RBrace => "}",
        Tok::LBracket => "[",
        Tok::RBracket => "]",
        Tok::LParen => "(",
        Tok::RParen => ")",
        Tok::Lt => "<",
        Tok::Gt => ">",
        Tok::Plus => "+",
        Tok::Minus => "-",
        Tok::Star => "*",
        Tok::Slash => "/",
        Tok::Pipe => "|",
        Tok::Eq => "=",
        Tok::Tilde => "~",
        _ => "?",
    }
}

/// Maps the grammar's terminal names (as lalrpop reports them in "expected" lists) to the
/// friendly names users see. Kept beside [`describe`] so both spell tokens alike.
pub fn friendly_terminal(name: &str) -> String {
    let trimmed = name.trim_matches('"');
    match trimmed {
        "OPCODE" => "an instruction".into(),
        "IDENT" => "an identifier".into(),
        "REG" => "a register".into(),
        "DOTWORD" => "a directive or type such as `.reg` or `.u32`".into(),
        "INT" => "an integer".into(),
        "FLOAT" => "a number".into(),
        "STR" => "a string".into(),
        "PERF" => "a kernel directive".into(),
        "SECTION" => "a `.section` block".into(),
        other => format!("`{other}`"),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The bytes no token matches, adjacent ones merged, at most [`MAX_LEX_ERRORS`].
    fn errors(src: &str) -> Vec<LexError> {
        scan(src, |_, _| {})
    }

    /// Lexes the whole source into a vector: the tokens with their spans, and the errors.
    fn lex(src: &str) -> (Vec<(Tok<'_>, Span)>, Vec<LexError>) {
        (tokens(src).collect(), errors(src))
    }

    fn toks(src: &str) -> Vec<Tok<'_>> {
        let (t, e) = lex(src);
        assert!(e.is_empty(), "unexpected lex errors {e:?} in {src:?}");
        t.into_iter().map(|(t, _)| t).collect()
    }

    #[test]
    fn special_register_with_component_is_one_token() {
        assert_eq!(toks("%tid.x"), vec![Tok::Reg("%tid.x")]);
        assert_eq!(
            toks("%ctaid.z %clock64"),
            vec![Tok::Reg("%ctaid.z"), Tok::Reg("%clock64")]
        );
        assert_eq!(toks("%cluster_ctarank"), vec![Tok::Reg("%cluster_ctarank")]);
        assert_eq!(
            toks("%r2.h0 %r3.b3"),
            vec![Tok::Reg("%r2.h0"), Tok::Reg("%r3.b3")]
        );
    }

    #[test]
    fn float_bit_patterns() {
        assert_eq!(toks("0f3F800000"), vec![Tok::Float("0f3F800000")]);
        assert_eq!(
            toks("0dBFF0000000000000"),
            vec![Tok::Float("0dBFF0000000000000")]
        );
        assert_eq!(toks("9.0"), vec![Tok::Float("9.0")]);
        assert_eq!(toks("1.5e-3"), vec![Tok::Float("1.5e-3")]);
        // Not eight hex digits: a number followed by an identifier, which the parser rejects.
        assert_eq!(toks("0f3F80"), vec![Tok::Int("0"), Tok::Ident("f3F80")]);
    }

    #[test]
    fn integer_forms() {
        assert_eq!(
            toks("42 0x1F 0b101 017 7U -3"),
            vec![
                Tok::Int("42"),
                Tok::Int("0x1F"),
                Tok::Int("0b101"),
                Tok::Int("017"),
                Tok::Int("7U"),
                Tok::Minus,
                Tok::Int("3")
            ]
        );
    }

    #[test]
    fn labels_with_dollar_and_underscores() {
        assert_eq!(
            toks("$L__BB0_2: bra $L__BB0_2;"),
            vec![
                Tok::Ident("$L__BB0_2"),
                Tok::Colon,
                Tok::Ident("bra"),
                Tok::Ident("$L__BB0_2"),
                Tok::Semi
            ]
        );
        assert_eq!(toks("__local_depot0"), vec![Tok::Ident("__local_depot0")]);
    }

    #[test]
    fn state_space_with_sub_qualifier_is_one_dotword() {
        assert_eq!(toks(".shared::cta"), vec![Tok::DotWord(".shared::cta")]);
        assert_eq!(
            toks(".shared::cluster .b64"),
            vec![Tok::DotWord(".shared::cluster"), Tok::DotWord(".b64")]
        );
    }

    #[test]
    fn sink_is_its_own_token() {
        assert_eq!(
            toks("_, [%r1]"),
            vec![
                Tok::Sink,
                Tok::Comma,
                Tok::LBracket,
                Tok::Reg("%r1"),
                Tok::RBracket
            ]
        );
    }

    #[test]
    fn negated_guard() {
        assert_eq!(
            toks("@!%p1 bra"),
            vec![Tok::At, Tok::Bang, Tok::Reg("%p1"), Tok::Ident("bra")]
        );
    }

    #[test]
    fn dotted_opcodes_are_one_token() {
        let op =
            "cp.async.bulk.shared::cluster.global.mbarrier::complete_tx::bytes.multicast::cluster";
        assert_eq!(toks(op), vec![Tok::Opcode(op)]);
        assert_eq!(
            toks("ld.global.nc.L2::128B.v4.u32"),
            vec![Tok::Opcode("ld.global.nc.L2::128B.v4.u32")]
        );
        assert_eq!(
            toks("cp.async.bulk.tensor.2d"),
            vec![Tok::Opcode("cp.async.bulk.tensor.2d")]
        );
        assert_eq!(toks("ret;"), vec![Tok::Ident("ret"), Tok::Semi]);
    }

    #[test]
    fn directives_get_their_own_tokens() {
        assert_eq!(
            toks(".entry .func .loc"),
            vec![Tok::Entry, Tok::Func, Tok::Loc(".loc")]
        );
        assert_eq!(toks(".entryx"), vec![Tok::DotWord(".entryx")]);
        assert_eq!(toks(".maxntid"), vec![Tok::PerfDirective(".maxntid")]);
    }

    #[test]
    fn comments_are_skipped() {
        assert_eq!(toks("// x\n/* y\n z */ ret"), vec![Tok::Ident("ret")]);
    }

    #[test]
    fn a_plain_loc_is_one_token() {
        assert_eq!(
            toks(".loc\t1 17 3\n.loc 2 0 0, function_name $L__info_string0"),
            vec![
                Tok::LocLine(".loc\t1 17 3"),
                Tok::LocLine(".loc 2 0 0"),
                Tok::Comma,
                Tok::Ident("function_name"),
                Tok::Ident("$L__info_string0")
            ]
        );
        // Anything else leaves the numbers to the grammar.
        for (src, rest) in [
            (".loc 1 2", 2),
            (".loc 1 0x2 3", 3),
            (".loc 1 2 3x", 4),
            (".loc 1 2 3.5", 3),
            (".loc\n1 2 3", 3),
        ] {
            let t = toks(src);
            assert_eq!(t[0], Tok::Loc(".loc"), "{src}");
            assert_eq!(t.len(), 1 + rest, "{src}: {t:?}");
        }
    }

    #[test]
    fn section_block_is_one_token() {
        let src = ".section .debug_info { .b32 12 .b8 1, 2 { nested } }\nret";
        let t = toks(src);
        assert!(matches!(t[0], Tok::Section(s) if s.ends_with("} }")));
        assert_eq!(t[1], Tok::Ident("ret"));
    }

    #[test]
    fn garbage_is_reported_not_panicked() {
        let (_, errs) = lex("ret \u{1}\u{2}\u{3} ; # ret");
        assert_eq!(errs.len(), 2);
        assert_eq!(errs[0].span, 4..7);
        let (_, errs) = lex("/* unterminated");
        assert_eq!(errs.len(), 1);
    }

    #[test]
    fn strings() {
        assert_eq!(
            toks(r#".file 1 "a \"b\".cu""#),
            vec![Tok::File, Tok::Int("1"), Tok::Str(r#""a \"b\".cu""#)]
        );
    }
}
