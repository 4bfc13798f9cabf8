//! Diagnostics shared by every stage: a [`Diag`] is a value (message, code, labelled spans, help),
//! never a panic. Rendering goes through miette's graphical handler; with `color = false` the
//! output is plain ASCII-free of escapes and of fixed width, so tests can snapshot it.

use crate::lex::Span;
use miette::{
    Diagnostic, GraphicalReportHandler, GraphicalTheme, LabeledSpan, NamedSource, SourceCode,
};
use std::fmt;

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Severity {
    Error,
    Warning,
}

impl Severity {
    /// Whether this is graver than `other` (an error than a warning): where one finding is
    /// seen with two severities, reports keep the graver.
    pub fn graver_than(self, other: Severity) -> bool {
        self == Severity::Error && other == Severity::Warning
    }
}

#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Label {
    pub span: Span,
    pub text: String,
}

/// One problem found in a PTX module or a run, with everything needed to point at it.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Diag {
    pub severity: Severity,
    /// A stable kebab-case code, e.g. `parse::unexpected-token` or `ir::undefined-register`.
    pub code: &'static str,
    pub message: String,
    /// The first label is the primary location.
    pub labels: Vec<Label>,
    pub help: Option<String>,
}

impl Diag {
    pub fn error(code: &'static str, message: impl Into<String>) -> Self {
        Diag {
            severity: Severity::Error,
            code,
            message: message.into(),
            labels: Vec::new(),
            help: None,
        }
    }

    pub fn label(mut self, span: Span, text: impl Into<String>) -> Self {
        self.labels.push(Label {
            span,
            text: text.into(),
        });
        self
    }

    pub fn help(mut self, help: impl Into<String>) -> Self {
        self.help = Some(help.into());
        self
    }

    /// The primary span, if any.
    pub fn span(&self) -> Option<Span> {
        self.labels.first().map(|l| l.span.clone())
    }
}

/// 1-based line and column of a byte offset; columns count bytes, as the rendering does
/// (PTX is ASCII; anything else is shown as one `?` per byte, see [`sanitize`]).
pub fn line_col(src: &str, offset: usize) -> (usize, usize) {
    let before = &src.as_bytes()[..offset.min(src.len())];
    let line = before.iter().filter(|&&b| b == b'\n').count() + 1;
    let line_start = before
        .iter()
        .rposition(|&b| b == b'\n')
        .map_or(0, |i| i + 1);
    (line, before.len() - line_start + 1)
}

fn floor_char_boundary(s: &str, mut i: usize) -> usize {
    while i > 0 && !s.is_char_boundary(i) {
        i -= 1;
    }
    i
}

/// Clamps a span to the source and to character boundaries, so miette never slices mid-character.
fn clamp(src: &str, span: &Span) -> Span {
    let start = floor_char_boundary(src, span.start.min(src.len()));
    let end = floor_char_boundary(src, span.end.min(src.len())).max(start);
    start..end
}

/// A diagnostic bound to its source text, in the form miette renders.
struct Bound<'a> {
    diag: &'a Diag,
    src: &'a NamedSource<String>,
}

impl fmt::Debug for Bound<'_> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&sanitize(&self.diag.message))
    }
}

impl fmt::Display for Bound<'_> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&sanitize(&self.diag.message))
    }
}

impl std::error::Error for Bound<'_> {}

impl Diagnostic for Bound<'_> {
    fn code<'b>(&'b self) -> Option<Box<dyn fmt::Display + 'b>> {
        Some(Box::new(self.diag.code))
    }

    fn severity(&self) -> Option<miette::Severity> {
        Some(match self.diag.severity {
            Severity::Error => miette::Severity::Error,
            Severity::Warning => miette::Severity::Warning,
        })
    }

    fn help<'b>(&'b self) -> Option<Box<dyn fmt::Display + 'b>> {
        self.diag
            .help
            .as_ref()
            .map(|h| Box::new(sanitize(h)) as Box<dyn fmt::Display>)
    }

    fn source_code(&self) -> Option<&dyn SourceCode> {
        Some(self.src)
    }

    fn labels(&self) -> Option<Box<dyn Iterator<Item = LabeledSpan> + '_>> {
        let text = self.src.inner();
        Some(Box::new(self.diag.labels.iter().enumerate().map(
            move |(i, l)| {
                let span = clamp(text, &l.span);
                let label = Some(sanitize(&l.text)).filter(|t| !t.is_empty());
                if i == 0 {
                    LabeledSpan::new_primary_with_span(label, span)
                } else {
                    LabeledSpan::new_with_span(label, span)
                }
            },
        )))
    }
}

/// Renders diagnostics against `src`, named `name` in the output. Without color the rendering is
/// stable: ASCII art, no escapes, 100 columns, no terminal links.
pub fn render(diags: &[Diag], name: &str, src: &str, color: bool) -> String {
    let theme = if color {
        GraphicalTheme::unicode()
    } else {
        GraphicalTheme::none()
    };
    let handler = GraphicalReportHandler::new_themed(theme)
        .with_width(100)
        .with_links(false)
        .with_context_lines(1);
    let named = NamedSource::new(name, sanitize(src));
    let mut out = String::new();
    for d in diags {
        let bound = Bound {
            diag: d,
            src: &named,
        };
        if handler.render_report(&mut out, &bound).is_err() {
            // Rendering only fails on a formatter error; fall back to the bare message.
            out.push_str(&d.message);
            out.push('\n');
        }
    }
    out
}

/// The source as it is shown: every byte that is not printable ASCII (or tab, newline, carriage
/// return) becomes `?`. Spans stay valid (one byte for one byte), columns count bytes as miette
/// does, and a hostile file cannot send escape sequences to the user's terminal.
pub fn sanitize(src: &str) -> String {
    src.bytes()
        .map(|b| {
            if b == b'\t' || b == b'\n' || b == b'\r' || (0x20..0x7f).contains(&b) {
                b as char
            } else {
                '?'
            }
        })
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn line_col_counts_from_one() {
        let src = "ab\ncd\u{e9}f\n";
        assert_eq!(line_col(src, 0), (1, 1));
        assert_eq!(line_col(src, 3), (2, 1));
        assert_eq!(line_col(src, 7), (2, 5)); // columns count bytes: the two-byte character is two
        assert_eq!(line_col(src, 999), (3, 1));
    }

    #[test]
    fn rendering_never_passes_control_bytes_through() {
        let src = "ret \u{1b}[2J\u{1b}]0;pwned\u{7} \u{9b}x;\n";
        let d = Diag::error("test::x", "bad").label(4..5, "here");
        let out = render(&[d], "x.ptx", src, false);
        assert!(
            !out.contains('\u{1b}') && !out.contains('\u{7}') && !out.contains('\u{9b}'),
            "{out:?}"
        );
        assert!(out.contains("?[2J"));
    }

    #[test]
    fn render_out_of_range_span_does_not_panic() {
        let d = Diag::error("test::x", "boom").label(50..900, "here");
        let out = render(&[d], "x.ptx", "short", false);
        assert!(out.contains("boom"));
    }
}
