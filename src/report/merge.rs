//! `ptxrun merge REPORT...`: the JSON reports of `ptxrun check --partition M/N --format json`,
//! one per share, combined into exactly the report that one unpartitioned `check` gives, byte
//! for byte. An unpartitioned exploration keeps each distinct hazard (kind, line and column, first
//! related line) and fault (kind, line and column) once, with the lowest schedule that showed it
//! and, for hazards, the occurrences of all schedules summed; it lists hazards, then faults,
//! each in the order of (first schedule, place in that schedule's run). A share's report lists
//! its own findings in that order, so merging is: union, keep the lowest schedule, sum counts,
//! sort by (schedule, place). The first schedule's run (in share 1) gives the report's
//! instruction and cycle counts; `partition` carries the rest (the total, the policy's verdict
//! on warnings, the suppressed findings).

use serde_json::{json, Value};
use std::collections::BTreeMap;

/// A merged report and whether it found anything (exit 1), or why the reports do not merge.
pub fn merge(reports: &[(String, String)]) -> Result<(String, bool), String> {
    let mut shares: Vec<(String, Value)> = Vec::new();
    for (name, text) in reports {
        let v: Value = serde_json::from_str(text)
            .map_err(|e| format!("{name}: not a JSON report of `ptxrun check`: {e}"))?;
        if v.get("partition").is_none() {
            return Err(format!(
                "{name}: not a partition's report (run `ptxrun check --partition M/N --format json`)"
            ));
        }
        shares.push((name.clone(), v));
    }
    let Some((_, first)) = shares.first() else {
        return Err("merge needs at least one report".into());
    };
    let count = first["partition"]["count"].as_u64().unwrap_or(0);
    let total = first["partition"]["schedules"].clone();
    let first_index = first["partition"]["index"].clone();
    // What identifies the exploration (module, schedules, step limit, policy); a share that
    // holds no schedule has none.
    let plan = shares
        .iter()
        .find(|(_, v)| !v["partition"]["plan"].is_null())
        .map(|(n, v)| (n.clone(), v["partition"]["plan"].clone()));
    let deny = plan
        .as_ref()
        .is_some_and(|(_, p)| p["deny_warnings"] == true);
    let mut seen = vec![false; count as usize];
    for (name, v) in &shares {
        let p = &v["partition"];
        let i = p["index"].as_u64().unwrap_or(0);
        if p["count"].as_u64() != Some(count) || p["schedules"] != total {
            return Err(format!(
                "{name}: share {i} of {} over {} schedules, but {} is share {first_index} of {count} over {total}",
                p["count"], p["schedules"], shares[0].0
            ));
        }
        if let Some((other, want)) = &plan {
            if !p["plan"].is_null() && p["plan"] != *want {
                return Err(format!(
                    "{name}: not a share of the same exploration as {other} (module, --seed, --latency, --max-steps, --deny or suppressions differ): {} vs {}",
                    p["plan"], want
                ));
            }
        }
        match seen.get_mut((i as usize).wrapping_sub(1)) {
            Some(s) if !*s => *s = true,
            Some(_) => return Err(format!("{name}: share {i} given twice")),
            None => return Err(format!("{name}: share {i} of {count} does not exist")),
        }
    }
    if let Some(missing) = seen.iter().position(|s| !s) {
        return Err(format!(
            "share {} of {count} is missing: every share's report is needed",
            missing + 1
        ));
    }
    Ok(combine(&shares, total, deny))
}

/// The report of a share that holds none of the `total` schedules (`--explore` smaller than N):
/// nothing found, nothing run, for `merge` to count.
pub fn empty_share(index: usize, count: usize, total: usize) -> String {
    let v = json!({
        "status": "ok", "diagnostics": [],
        "stats": { "thread_instructions": 0, "warp_instructions": 0, "cycles": 0, "schedules": 0 },
        "partition": { "index": index, "count": count, "schedules": total, "suppressed": [], "plan": null },
    });
    format!("{v}\n")
}

/// What makes a diagnostic distinct: (is a fault, kind, line, column, first related line).
/// Faults (no `count`) have no related line.
type Key = (bool, String, u64, u64, u64);

fn key(d: &Value) -> Key {
    let is_fault = d.get("count").is_none();
    let related = d["related"][0]["line"].as_u64().unwrap_or(0);
    (
        is_fault,
        d["kind"].as_str().unwrap_or("").to_string(),
        d["line"].as_u64().unwrap_or(0),
        d["column"].as_u64().unwrap_or(0),
        related,
    )
}

fn combine(shares: &[(String, Value)], total: Value, deny: bool) -> (String, bool) {
    // key -> (schedule, place in its share's report, diagnostic)
    let mut found: BTreeMap<Key, (u64, usize, Value)> = BTreeMap::new();
    let mut suppressed: BTreeMap<String, u64> = BTreeMap::new();
    let (mut thread_instructions, mut first_run) = (0u64, None);
    for (_, v) in shares {
        thread_instructions += v["stats"]["thread_instructions"].as_u64().unwrap_or(0);
        if v["partition"]["index"] == 1 {
            first_run = Some(&v["stats"]);
        }
        let diags = v["diagnostics"]
            .as_array()
            .map_or(&[][..], |d| d.as_slice());
        for (place, d) in diags.iter().enumerate() {
            let sched = d["schedule"]["index"].as_u64().unwrap_or(0);
            let count = d["count"].as_u64().unwrap_or(0);
            found
                .entry(key(d))
                .and_modify(|(s, p, kept)| {
                    if let Some(c) = kept.get_mut("count") {
                        *c = json!(c.as_u64().unwrap_or(0) + count);
                    }
                    // The graver first (as one unpartitioned run keeps it), then the lowest
                    // schedule.
                    let graver = d["severity"] == "error" && kept["severity"] == "warning";
                    let same = d["severity"] == kept["severity"];
                    if graver || (same && sched < *s) {
                        let sum = kept.get("count").cloned();
                        *kept = d.clone();
                        if let Some(sum) = sum {
                            kept["count"] = sum;
                        }
                        (*s, *p) = (sched, place);
                    }
                })
                .or_insert((sched, place, d.clone()));
        }
        for h in v["partition"]["suppressed"]
            .as_array()
            .into_iter()
            .flatten()
        {
            let k = json!([h[0], h[1], h[2], h[3]]).to_string();
            *suppressed.entry(k).or_default() += h[4].as_u64().unwrap_or(0);
        }
    }
    let mut list: Vec<_> = found.into_iter().collect();
    list.sort_by_key(|(k, (s, p, _))| (k.0, *s, *p));
    let fails = |d: &Value| d.get("count").is_some() && (deny || d["severity"] == "error");
    let failing = list.iter().any(|(_, (_, _, d))| fails(d));
    let first_fault = list.iter().find(|(k, _)| k.0).map(|(_, (_, _, d))| d);
    let status = match (failing, first_fault) {
        (false, Some(f)) if f["kind"] == "deadlock" => "deadlock",
        (true, _) => "hazard",
        (false, Some(_)) => "fault",
        (false, None) => "ok",
    };
    let first = first_run.cloned().unwrap_or(Value::Null);
    let diagnostics: Vec<Value> = list.into_iter().map(|(_, (_, _, d))| d).collect();
    let mut v = json!({
        "status": status,
        "diagnostics": diagnostics,
        "stats": { "thread_instructions": thread_instructions,
                   "warp_instructions": first["warp_instructions"], "cycles": first["cycles"],
                   "schedules": total },
    });
    if !suppressed.is_empty() {
        let occurrences: u64 = suppressed.values().sum();
        v["suppressed"] = json!({ "findings": suppressed.len(), "occurrences": occurrences });
    }
    (format!("{v}\n"), status != "ok")
}
