//! JUnit XML for `ptxrun test --junit FILE`: one test case per launch, in the Jenkins/Ant
//! dialect that CI services read (GitHub Actions test reporters, GitLab `artifacts:reports:junit`,
//! Jenkins, Buildkite). A launch that ran and did not meet its `[expect]` is a `failure`; one
//! that could not run (invalid launch file or PTX, unsupported instruction) is an `error`.

use std::fmt::Write as _;

/// Text escaped for XML 1.0 attributes and text: markup characters as entities, tab, newline and
/// carriage return as character references (attributes keep them), other control characters
/// (which XML 1.0 cannot carry) as U+FFFD.
fn escape(s: &str) -> String {
    let mut out = String::with_capacity(s.len());
    for c in quick_xml::escape::escape(s).chars() {
        match c {
            '\t' | '\n' | '\r' => {
                let _ = write!(out, "&#{};", c as u32);
            }
            c if (c as u32) < 0x20 => out.push('\u{fffd}'),
            c => out.push(c),
        }
    }
    out
}

/// One launch's verdict.
pub struct Case {
    /// The launch's directory as `ptxrun test` prints it.
    pub path: String,
    pub outcome: Outcome,
    pub seconds: f64,
}

pub enum Outcome {
    Pass,
    Failure(String),
    Error(String),
}

/// The JUnit document for these cases (one test suite).
pub fn xml(cases: &[Case]) -> String {
    let count = |f: fn(&Outcome) -> bool| cases.iter().filter(|c| f(&c.outcome)).count();
    let failures = count(|o| matches!(o, Outcome::Failure(_)));
    let errors = count(|o| matches!(o, Outcome::Error(_)));
    // (An empty f64 sum is -0.0.)
    let total = cases.iter().fold(0.0, |t, c| t + c.seconds);
    let mut out = String::from("<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n");
    let counts = format!(
        "tests=\"{}\" failures=\"{failures}\" errors=\"{errors}\" skipped=\"0\" time=\"{total:.3}\"",
        cases.len()
    );
    let _ = writeln!(out, "<testsuites name=\"ptxrun test\" {counts}>");
    let _ = writeln!(out, "  <testsuite name=\"ptxrun\" {counts}>");
    for c in cases {
        let (class, name) = match c.path.rsplit_once('/') {
            Some((dir, name)) => (dir.replace('/', "."), name),
            None => (String::new(), c.path.as_str()),
        };
        let _ = write!(
            out,
            "    <testcase classname=\"{}\" name=\"{}\" file=\"{}\" time=\"{:.3}\"",
            escape(&class),
            escape(name),
            escape(&c.path),
            c.seconds
        );
        match &c.outcome {
            Outcome::Pass => out.push_str("/>\n"),
            Outcome::Failure(m) | Outcome::Error(m) => {
                let tag = match c.outcome {
                    Outcome::Error(_) => "error",
                    _ => "failure",
                };
                let first = m.lines().next().unwrap_or("");
                let _ = writeln!(
                    out,
                    ">\n      <{tag} message=\"{}\">{}</{tag}>\n    </testcase>",
                    escape(first),
                    escape(m.trim_end())
                );
            }
        }
    }
    out.push_str("  </testsuite>\n</testsuites>\n");
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn cases_become_test_cases_with_escaped_messages() {
        let x = xml(&[
            Case {
                path: "ptx-samples/core/atomics".into(),
                outcome: Outcome::Pass,
                seconds: 0.5,
            },
            Case {
                path: "hazards/race".into(),
                outcome: Outcome::Failure("data-race at PTX line 4: a < b & \"c\"".into()),
                seconds: 0.25,
            },
            Case {
                path: "bad".into(),
                outcome: Outcome::Error("launch.toml: grid: missing".into()),
                seconds: 0.0,
            },
        ]);
        assert!(x.contains("tests=\"3\" failures=\"1\" errors=\"1\" skipped=\"0\" time=\"0.750\""));
        assert!(x.contains("<testcase classname=\"ptx-samples.core\" name=\"atomics\" file=\"ptx-samples/core/atomics\" time=\"0.500\"/>"));
        assert!(x.contains(
            "<failure message=\"data-race at PTX line 4: a &lt; b &amp; &quot;c&quot;\">"
        ));
        assert!(x.contains("<error message=\"launch.toml: grid: missing\">"));
        assert_eq!(escape("a\u{1}b\tc<"), "a\u{fffd}b&#9;c&lt;");
        assert!(xml(&[]).contains("time=\"0.000\""));
    }
}
