//! Which findings fail a run and which the user has hidden (`../shared/contract.md` "Severity"):
//! `--deny warnings` makes warnings fail like errors; suppression rules (`--suppressions FILE`,
//! one rule per line, and a launch file's `[check] allow = [...]`) hide findings, which the
//! report still counts. In the spirit of ThreadSanitizer's suppression files, a rule is
//!
//! ```text
//! KIND                  every finding of that kind (a glob: `*` is every kind)
//! KIND:LOCATION         findings of that kind with a location matching the glob LOCATION
//! ```
//!
//! where a finding's locations are, for its offending and each related instruction, the name
//! of the function holding it, `PTXFILE:LINE` and, when the PTX has `.loc` line information,
//! `CUDAFILE:LINE` (files as written and by their base name). Faults (traps, out-of-bounds
//! accesses, deadlocks, a hazard that stops the run) are never suppressed.

use crate::diag::Severity;
use glob::Pattern;

/// The findings policy of a run.
#[derive(Debug, Clone, Default)]
pub struct Policy {
    /// `--deny warnings`: a warning fails the run (exit 1) like an error.
    pub deny_warnings: bool,
    pub rules: Vec<Rule>,
}

/// One suppression rule.
#[derive(Debug, Clone)]
pub struct Rule {
    /// The rule as written.
    pub text: String,
    kind: Pattern,
    location: Option<Pattern>,
}

impl Rule {
    /// Parses `KIND` or `KIND:LOCATION`.
    pub fn parse(text: &str) -> Result<Rule, String> {
        let text = text.trim();
        let (kind, location) = match text.split_once(':') {
            Some((k, l)) => (k.trim(), Some(l.trim())),
            None => (text, None),
        };
        if kind.is_empty() || location == Some("") {
            return Err(format!(
                "suppression `{text}`: expected KIND or KIND:LOCATION (e.g. `data-race:my_kernel` or `*:kernel.ptx:57`)"
            ));
        }
        let glob = |p: &str| {
            Pattern::new(p).map_err(|e| format!("suppression `{text}`: bad pattern `{p}`: {e}"))
        };
        Ok(Rule {
            text: text.to_string(),
            kind: glob(kind)?,
            location: location.map(glob).transpose()?,
        })
    }

    /// Whether the rule's kind pattern matches some kind a report can carry (a typo such as
    /// `data_race` matches none).
    pub fn kind_known(&self) -> bool {
        super::KINDS.iter().any(|(k, _)| self.kind.matches(k))
    }

    /// Whether the rule hides a finding of `kind` with these locations.
    pub fn matches(&self, kind: &str, locations: &[String]) -> bool {
        self.kind.matches(kind)
            && self
                .location
                .as_ref()
                .is_none_or(|p| locations.iter().any(|l| p.matches(l)))
    }
}

impl Policy {
    /// Adds the rules of a suppressions file's text (`name` for messages): one per line, blank
    /// lines and `#` comments ignored.
    pub fn add_suppressions(&mut self, text: &str, name: &str) -> Result<(), String> {
        let text = text.strip_prefix('\u{feff}').unwrap_or(text);
        for (i, line) in text.lines().enumerate() {
            let line = line.split('#').next().unwrap_or("").trim();
            if line.is_empty() {
                continue;
            }
            let rule = Rule::parse(line).map_err(|e| format!("{name}:{}: {e}", i + 1))?;
            self.rules.push(rule);
        }
        Ok(())
    }

    /// Whether a rule hides a finding of `kind` with these locations.
    pub fn suppresses(&self, kind: &str, locations: &[String]) -> bool {
        self.rules.iter().any(|r| r.matches(kind, locations))
    }

    /// Whether a finding of this severity fails the run.
    pub fn fails(&self, severity: Severity) -> bool {
        severity == Severity::Error || self.deny_warnings
    }
}

/// A location's forms as rules match them: `FILE:LINE` and `BASENAME:LINE`.
pub(crate) fn file_line_forms(file: &str, line: usize, out: &mut Vec<String>) {
    out.push(format!("{file}:{line}"));
    if let Some(base) = std::path::Path::new(file).file_name() {
        let base = format!("{}:{line}", base.to_string_lossy());
        if base != out[out.len() - 1] {
            out.push(base);
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn rules_match_kind_and_location_globs() {
        let r = Rule::parse("data-race:reduce_*").unwrap();
        assert!(r.matches("data-race", &["reduce_sum".into()]));
        assert!(!r.matches("data-race", &["scan".into()]));
        assert!(!r.matches("read-before-complete", &["reduce_sum".into()]));
        let any = Rule::parse("*:kernel.ptx:57").unwrap();
        assert!(any.matches("missing-proxy-fence", &["f".into(), "kernel.ptx:57".into()]));
        assert!(!any.matches("missing-proxy-fence", &["kernel.ptx:570".into()]));
        assert!(Rule::parse("data-race").unwrap().matches("data-race", &[]));
        assert!(Rule::parse("data-race:").is_err());
        assert!(Rule::parse("data-race:[").is_err());
        assert!(Rule::parse("*").unwrap().kind_known());
        assert!(!Rule::parse("data_race").unwrap().kind_known());
    }

    #[test]
    fn suppressions_files_skip_comments_and_name_bad_lines() {
        let mut p = Policy::default();
        p.add_suppressions("# known\n\ndata-race:k # CAS loop\n", "s.txt")
            .unwrap();
        assert_eq!(p.rules.len(), 1);
        assert!(p.suppresses("data-race", &["k".into()]));
        let e = p.add_suppressions("ok\n:x\n", "s.txt").unwrap_err();
        assert!(e.starts_with("s.txt:2: "), "{e}");
        let mut path = Vec::new();
        file_line_forms("/a/b/kernel.cu", 3, &mut path);
        assert_eq!(path, ["/a/b/kernel.cu:3", "kernel.cu:3"]);
    }
}
