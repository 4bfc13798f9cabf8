//! Parser: tokens to the statement-level syntax tree of [`ast`] (PTX ISA 9.0 chapter 4 "Syntax"
//! and chapter 11 "Directives"), through the lalrpop grammar in `grammar/ptx.lalrpop`.
//!
//! This is the one place where lexer and lalrpop errors become [`Diag`]s with friendly token
//! names. Before the LR parser runs, a linear pre-scan bounds what could make later recursive
//! walks deep (brace nesting, operator chains), so no input can exhaust the stack.

pub mod ast;

use crate::diag::Diag;
use crate::lex::{self, Span, Tok, MAX_SCOPE_DEPTH};
use lalrpop_util::{lalrpop_mod, ErrorRecovery, ParseError};

lalrpop_mod!(
    #[allow(clippy::all, clippy::pedantic, unused_parens, dead_code)]
    grammar,
    "/ptx.rs"
);

/// The most operator tokens one statement may hold; nvcc writes at most a handful.
const MAX_OPERATORS_PER_STATEMENT: usize = 256;

/// At most this many syntax errors are reported for one file.
const MAX_PARSE_ERRORS: usize = 20;

/// Parses a module, handing each top-level item to `sink` as soon as it is complete, in source
/// order. Items reach `sink` even when a later one fails to parse; the error list is then
/// returned and the caller discards what it made of them.
pub fn parse_items<'s>(src: &'s str, sink: &mut dyn FnMut(ast::Item<'s>)) -> Result<(), Vec<Diag>> {
    // Two passes of the (fast) lexer rather than one token vector: a 5 MB module would hold
    // 80 MB of tokens, and allocating them cost more than lexing again. The first pass finds
    // bad bytes and bounds nesting; the second feeds the parser.
    let mut pre = Prescan::default();
    let lex_errors = lex::scan(src, |t, span| pre.token(t, span));
    if !lex_errors.is_empty() {
        return Err(lex_errors
            .iter()
            .map(|e| lex_error(src, e.span.clone()))
            .collect());
    }
    if let Some(d) = pre.error {
        return Err(vec![d]);
    }
    let mut recovered: Vec<ErrorRecovery<usize, Tok<'_>, ()>> = Vec::new();
    let result = grammar::ModuleParser::new().parse(
        &mut recovered,
        sink,
        lex::tokens(src).map(|(t, s)| Ok((s.start, t, s.end))),
    );
    if recovered.is_empty() && result.is_ok() {
        return Ok(());
    }
    let braces: Vec<(usize, bool)> = lex::tokens(src)
        .filter_map(|(t, s)| match t {
            Tok::LBrace => Some((s.start, true)),
            Tok::RBrace => Some((s.start, false)),
            _ => None,
        })
        .collect();
    let ctx = Context {
        src,
        braces: &braces,
    };
    let mut diags: Vec<Diag> = recovered
        .into_iter()
        .map(|r| syntax_error(r.error, &ctx))
        .collect();
    match result {
        Ok(()) if diags.is_empty() => Ok(()),
        Ok(()) => Err(truncate(diags)),
        Err(e) => {
            diags.push(syntax_error(e, &ctx));
            Err(truncate(diags))
        }
    }
}

fn truncate(mut diags: Vec<Diag>) -> Vec<Diag> {
    diags.dedup();
    diags.truncate(MAX_PARSE_ERRORS);
    diags
}

fn lex_error(src: &str, span: Span) -> Diag {
    let text = &src[span.clone()];
    if text.starts_with("/*") {
        return Diag::error("parse::unterminated-comment", "unterminated block comment")
            .label(span.start..span.start + 2, "this comment is never closed")
            .help("close it with `*/`");
    }
    let shown: String = text.chars().take(8).flat_map(char::escape_debug).collect();
    Diag::error(
        "parse::bad-character",
        format!("unexpected character(s) `{shown}`"),
    )
    .label(span, "not part of any PTX token")
    .help("is this a PTX text file? PTX is plain ASCII text")
}

/// Bounds nesting and expression length before any recursive structure is built.
/// The linear pre-scan: brace nesting depth and operators per statement, and the first limit
/// exceeded.
#[derive(Default)]
struct Prescan {
    depth: usize,
    operators: usize,
    error: Option<Diag>,
}

impl Prescan {
    fn token(&mut self, t: &Tok<'_>, span: &Span) {
        if self.error.is_some() {
            return;
        }
        match t {
            Tok::LBrace | Tok::LParen | Tok::LBracket => {
                self.depth += 1;
                if self.depth > MAX_SCOPE_DEPTH {
                    self.error = Some(
                        Diag::error(
                            "parse::nesting-too-deep",
                            format!("braces nested more than {MAX_SCOPE_DEPTH} deep"),
                        )
                        .label(span.clone(), "this opens one level too many")
                        .help("PTX compilers emit at most a few levels of `{ }` scopes"),
                    );
                }
            }
            Tok::RBrace | Tok::RParen | Tok::RBracket => self.depth = self.depth.saturating_sub(1),
            _ => {}
        }
        match t {
            Tok::Semi | Tok::LBrace | Tok::RBrace => self.operators = 0,
            Tok::Plus | Tok::Minus | Tok::Star | Tok::Slash | Tok::Bang | Tok::Tilde => {
                self.operators += 1;
                if self.operators > MAX_OPERATORS_PER_STATEMENT {
                    self.error = Some(
                        Diag::error(
                            "parse::expression-too-long",
                            format!(
                                "more than {MAX_OPERATORS_PER_STATEMENT} operators in one statement"
                            ),
                        )
                        .label(span.clone(), "here"),
                    );
                }
            }
            _ => {}
        }
    }
}

/// What error reporting may look at besides the error itself.
struct Context<'a> {
    src: &'a str,
    /// Offsets of every `{` (true) and `}` (false).
    braces: &'a [(usize, bool)],
}

impl Context<'_> {
    /// If `offset` lies outside every `{ }`, the `}` that closed the last top-level block before it.
    fn closer_before(&self, offset: usize) -> Option<usize> {
        let mut depth = 0usize;
        let mut closer = None;
        for &(at, open) in self.braces.iter().take_while(|(at, _)| *at < offset) {
            if open {
                depth += 1;
            } else {
                depth = depth.saturating_sub(1);
                if depth == 0 {
                    closer = Some(at);
                }
            }
        }
        closer.filter(|_| depth == 0)
    }

    /// The innermost `{` still open at the end of the file.
    fn unclosed(&self) -> Option<usize> {
        let mut stack = Vec::new();
        for &(at, open) in self.braces {
            if open {
                stack.push(at);
            } else {
                stack.pop();
            }
        }
        stack.pop()
    }
}

/// The one conversion from lalrpop's errors to diagnostics.
fn syntax_error(e: ParseError<usize, Tok<'_>, ()>, ctx: &Context<'_>) -> Diag {
    let src = ctx.src;
    let eof = src.len();
    match e {
        ParseError::InvalidToken { location } => {
            Diag::error("parse::invalid-token", "invalid token")
                .label(location..location + 1, "here")
        }
        ParseError::UnrecognizedEof { location, expected } => {
            // Point at the file's last character: a zero-width span at the very end has no line.
            let end = src[..location.min(eof)].trim_end().len();
            let at = src[..end]
                .char_indices()
                .next_back()
                .map_or(0..0, |(i, _)| i..end);
            let d = Diag::error("parse::unexpected-eof", "unexpected end of file").label(
                at,
                format!(
                    "the file ends after this; expected {}",
                    expected_list(&expected)
                ),
            );
            match ctx.unclosed() {
                Some(open) => d
                    .label(open..open + 1, "this `{` is never closed")
                    .help("add the missing `}`, or restore the end of a truncated file"),
                None => d.help("is the file truncated, or a `;` missing?"),
            }
        }
        ParseError::UnrecognizedToken {
            token: (l, tok, r),
            expected,
        } => {
            let found = lex::describe(&tok);
            let wants_semi = expected.iter().any(|e| e == "\";\"");
            let mut d = Diag::error("parse::unexpected-token", format!("unexpected {found}"))
                .label(l..r, format!("expected {}", expected_list(&expected)));
            // A statement that runs on into the next line almost always lacks its `;`:
            // point at the end of the previous line too.
            let before = src[..l.min(eof)].trim_end_matches([' ', '\t', '\r']);
            if wants_semi && before.ends_with('\n') {
                let prev = before.trim_end();
                let end = prev.len();
                d = d
                    .label(end..end, "`;` missing here?")
                    .help("end each statement with `;`");
            }
            // A statement where only directives may stand: a `}` above closed the body early.
            let statement_like = matches!(
                tok,
                Tok::Opcode(_) | Tok::Ident(_) | Tok::Reg(_) | Tok::At | Tok::Colon
            );
            if let Some(closer) = ctx.closer_before(l).filter(|_| statement_like) {
                d = d
                    .label(closer..closer + 1, "this `}` ends the function body")
                    .help("this statement is outside any function: is there one `}` too many above it?");
            }
            d
        }
        ParseError::ExtraToken { token: (l, tok, r) } => Diag::error(
            "parse::extra-token",
            format!("unexpected {}", lex::describe(&tok)),
        )
        .label(l..r, "not expected here"),
        ParseError::User { .. } => Diag::error("parse::internal", "parser error"),
    }
}

/// "`;` or `,`": a short readable list of what the grammar would have accepted.
fn expected_list(expected: &[String]) -> String {
    // Operators can continue almost any expression; listing them only hides what is missing.
    let operators = ["\"+\"", "\"-\"", "\"*\"", "\"/\"", "\"|\""];
    let structural: Vec<&String> = expected
        .iter()
        .filter(|e| !operators.contains(&e.as_str()))
        .collect();
    let chosen: Vec<&String> = if structural.is_empty() {
        expected.iter().collect()
    } else {
        structural
    };
    let mut names: Vec<String> = chosen.iter().map(|e| lex::friendly_terminal(e)).collect();
    names.sort();
    names.dedup();
    match names.len() {
        0 => "something else".into(),
        1..=4 => names.join(" or "),
        _ => format!("{} or ...", names[..4].join(", ")),
    }
}
