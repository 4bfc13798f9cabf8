//! SARIF 2.1.0 (OASIS Static Analysis Results Interchange Format), the format code-scanning
//! services read (GitHub code scanning, GitLab, Azure DevOps): `--format sarif`. Each finding is
//! a result located at its CUDA source line when the PTX carries `.loc` line information, else
//! at its PTX line; the other access of a hazard (and, for a CUDA-located result, the PTX
//! instruction itself) are related locations. Suppressed findings are results with an external
//! suppression naming the rule that hid them, so the log still counts them. Validated against
//! the official schema (`tests/data/sarif-schema-2.1.0.json`) by the Python test suite.

use super::{Diagnostic, KINDS};
use serde_json::{json, Value};

/// One result to write: the diagnostic, extra properties (the schedule that showed it), and the
/// suppression rule that hid it, if one did.
pub struct Finding<'a> {
    pub diag: Diagnostic,
    pub properties: Option<Value>,
    pub suppressed_by: Option<&'a str>,
}

/// The SARIF log of one launch's findings; `ptx` is the PTX file's path as reports name it.
pub fn log(ptx: &str, findings: &[Finding]) -> String {
    let mut rules: Vec<&str> = Vec::new();
    let results: Vec<Value> = findings
        .iter()
        .map(|f| {
            let index = rules
                .iter()
                .position(|r| *r == f.diag.kind)
                .unwrap_or_else(|| {
                    rules.push(&f.diag.kind);
                    rules.len() - 1
                });
            result(ptx, f, index)
        })
        .collect();
    // Code-scanning services deduplicate alerts by fingerprint: distinct findings that share
    // kind and lines (two faults of one kind at one instruction) get an ordinal.
    let mut results = results;
    let mut used = std::collections::BTreeMap::<String, usize>::new();
    for r in &mut results {
        let fp = r["partialFingerprints"]["ptxrunFinding/v1"]
            .as_str()
            .unwrap_or("")
            .to_string();
        let n = used.entry(fp.clone()).or_default();
        if *n > 0 {
            r["partialFingerprints"]["ptxrunFinding/v1"] = json!(format!("{fp}:{n}"));
        }
        *n += 1;
    }
    let rules: Vec<Value> = rules.iter().map(|id| rule(id)).collect();
    let v = json!({
        "$schema": "https://json.schemastore.org/sarif-2.1.0.json",
        "version": "2.1.0",
        "runs": [{
            "tool": { "driver": {
                "name": "ptxrun",
                "version": env!("CARGO_PKG_VERSION"),
                "rules": rules,
            }},
            "columnKind": "unicodeCodePoints",
            "results": results,
        }],
    });
    format!("{v:#}\n")
}

/// A rule (reporting descriptor) for a kind, described as the contract describes it.
fn rule(id: &str) -> Value {
    let text = KINDS.iter().find(|k| k.0 == id).map_or_else(
        || format!("ptxrun stopped the kernel: {id}"),
        |k| k.1.to_string(),
    );
    json!({ "id": id, "shortDescription": { "text": text } })
}

fn result(ptx: &str, f: &Finding, rule_index: usize) -> Value {
    let d = &f.diag;
    let mut related: Vec<Value> = Vec::new();
    let primary = match d.cuda.as_deref().and_then(split_file_line) {
        Some((file, line)) => {
            related.push(located(
                physical(ptx, d.line, d.column),
                format!("the PTX instruction `{}`", d.instruction),
            ));
            physical(file, line, 0)
        }
        None => physical(ptx, d.line, d.column),
    };
    for r in &d.related {
        let at = match r.cuda.as_deref().and_then(split_file_line) {
            Some((file, line)) => physical(file, line, 0),
            None => physical(ptx, r.line, 0),
        };
        related.push(located(at, format!("{} (PTX line {})", r.label, r.line)));
    }
    for (i, r) in related.iter_mut().enumerate() {
        r["id"] = json!(i + 1);
    }
    let mut text = d.message.clone();
    if d.count > 1 {
        text.push_str(&format!(" ({} times)", d.count));
    }
    let first_related = d.related.first().map_or(0, |r| r.line);
    let mut properties = json!({
        "cta": d.cta, "thread": d.thread, "count": d.count, "ptxLine": d.line,
        "instruction": d.instruction,
    });
    if let Some(a) = &d.address {
        properties["address"] = json!(a);
    }
    if let Some(Value::Object(extra)) = &f.properties {
        for (k, v) in extra {
            properties[k] = v.clone();
        }
    }
    let mut v = json!({
        "ruleId": d.kind,
        "ruleIndex": rule_index,
        "level": d.severity,
        "message": { "text": text },
        "locations": [{ "physicalLocation": primary }],
        "partialFingerprints": {
            "ptxrunFinding/v1": format!("{}:{}:{}", d.kind, d.line, first_related),
        },
        "properties": properties,
    });
    if !related.is_empty() {
        v["relatedLocations"] = json!(related);
    }
    if let Some(rule) = f.suppressed_by {
        v["suppressions"] = json!([{ "kind": "external", "justification": format!("ptxrun suppression rule `{rule}`") }]);
    }
    v
}

/// A related location with its message.
fn located(physical: Value, label: String) -> Value {
    json!({ "physicalLocation": physical, "message": { "text": label } })
}

/// A physical location: the file as a URI, and the line (and column) when known.
fn physical(file: &str, line: usize, column: usize) -> Value {
    let mut v = json!({ "artifactLocation": { "uri": uri(file) } });
    if line > 0 {
        v["region"] = json!({ "startLine": line });
        if column > 0 {
            v["region"]["startColumn"] = json!(column);
        }
    }
    v
}

/// `file:line` as `.loc` locations are written.
fn split_file_line(s: &str) -> Option<(&str, usize)> {
    let (file, line) = s.rsplit_once(':')?;
    Some((file, line.parse().ok()?))
}

/// A path as a URI reference: relative paths stay relative (to the directory ptxrun ran in,
/// usually the repository root), absolute ones become `file://` URIs; bytes outside RFC 3986's
/// unreserved set and `/` are percent-encoded.
fn uri(path: &str) -> String {
    let path = path.replace('\\', "/");
    let mut out = String::new();
    if path.starts_with('/') {
        out.push_str("file://");
    }
    for b in path.bytes() {
        if b.is_ascii_alphanumeric() || b"-._~/".contains(&b) {
            out.push(b as char);
        } else {
            out.push_str(&format!("%{b:02X}"));
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn paths_become_uri_references() {
        assert_eq!(
            uri("ptx-samples/a b/kernel.ptx"),
            "ptx-samples/a%20b/kernel.ptx"
        );
        assert_eq!(uri("/tmp/x#1.cu"), "file:///tmp/x%231.cu");
        assert_eq!(split_file_line("/a/b.cu:57"), Some(("/a/b.cu", 57)));
        assert_eq!(split_file_line("b.cu"), None);
    }
}
