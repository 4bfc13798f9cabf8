//! What CI needs from ptxrun, through the binary: severities (a warning reported but exit 0,
//! `--deny warnings`), suppressions (`--suppressions FILE`, `[check] allow`), `--format sarif`,
//! `test --junit` and `--partition`, and `merge` giving the unpartitioned report byte for byte.
//! (The SARIF output is validated against the official schema in `python/tests/test_sarif.py`.)

use serde_json::Value;
use std::path::{Path, PathBuf};
use std::process::Command;

fn ptxrun(args: &[&str]) -> (i32, String, String) {
    let out = Command::new(env!("CARGO_BIN_EXE_ptxrun"))
        .args(args)
        .current_dir(env!("CARGO_MANIFEST_DIR"))
        .env("NO_COLOR", "1")
        .output()
        .expect("run ptxrun");
    (
        out.status.code().unwrap_or(-1),
        String::from_utf8_lossy(&out.stdout).into_owned(),
        String::from_utf8_lossy(&out.stderr).into_owned(),
    )
}

/// A scratch directory under target/, emptied.
fn scratch(name: &str) -> PathBuf {
    let d = Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("target/ci-outputs")
        .join(name);
    let _ = std::fs::remove_dir_all(&d);
    std::fs::create_dir_all(&d).unwrap();
    d
}

fn json(text: &str) -> Value {
    serde_json::from_str(text).unwrap_or_else(|e| panic!("{e}: {text}"))
}

const CAS: &str = "ptx-samples/checker/cas_loop_add";
const RACE: &str = "ptx-samples/hazards/plain_add_race";

#[test]
fn a_race_only_with_atomic_writes_is_a_warning_that_denied_fails() {
    let (code, out, _) = ptxrun(&["run", CAS, "--format", "json", "--no-check"]);
    assert_eq!(code, 0);
    assert!(json(&out)["diagnostics"].as_array().unwrap().is_empty());
    let (code, out, _) = ptxrun(&["run", CAS, "--format", "json"]);
    assert_eq!(code, 0, "{out}");
    let v = json(&out);
    assert_eq!(v["status"], "ok");
    let d = v["diagnostics"].as_array().unwrap();
    assert_eq!(d.len(), 2, "{out}");
    assert!(d
        .iter()
        .all(|d| d["kind"] == "data-race" && d["severity"] == "warning"));
    assert_eq!(
        (d[0]["line"].as_u64(), d[0]["related"][0]["line"].as_u64()),
        (Some(45), Some(51))
    );
    assert!(d[0]["message"]
        .as_str()
        .unwrap()
        .contains("races with an atomic write"));
    let (code, _, err) = ptxrun(&["run", CAS]);
    assert_eq!(code, 0);
    assert!(
        err.contains("2 hazards") && err.contains("2 of them warnings"),
        "{err}"
    );

    let (code, out, _) = ptxrun(&["run", CAS, "--format", "json", "--deny", "warnings"]);
    assert_eq!((code, json(&out)["status"].as_str()), (1, Some("hazard")));
    let (code, _, _) = ptxrun(&["check", CAS, "--explore", "5"]);
    assert_eq!(code, 0);
    let (code, _, _) = ptxrun(&["check", CAS, "--explore", "5", "--deny", "warnings"]);
    assert_eq!(code, 1);
    // `ptxrun test` passes the sample (its outputs are the H100's) and fails it when denied.
    assert_eq!(ptxrun(&["test", CAS]).0, 0);
    let (code, out, _) = ptxrun(&["test", CAS, "--deny", "warnings"]);
    assert_eq!(code, 1);
    assert!(
        out.contains("FAIL") && out.contains("data-race at PTX line 45"),
        "{out}"
    );

    // Plain read-modify-writes stay errors.
    let (code, out, _) = ptxrun(&["run", RACE, "--format", "json"]);
    assert_eq!(code, 1);
    let v = json(&out);
    assert!(v["diagnostics"]
        .as_array()
        .unwrap()
        .iter()
        .all(|d| d["severity"] == "error"));
}

#[test]
fn suppressions_hide_findings_and_count_them() {
    let dir = scratch("suppressions");
    let file = dir.join("ptxrun.supp");
    // By function name (glob), with a comment.
    std::fs::write(
        &file,
        "# the CUDA guide's CAS loop\ndata-race:plain_add_*\n",
    )
    .unwrap();
    let f = file.display().to_string();
    let (code, out, _) = ptxrun(&["run", RACE, "--format", "json", "--suppressions", &f]);
    assert_eq!(code, 0, "{out}");
    let v = json(&out);
    assert_eq!(v["status"], "ok");
    assert!(v["diagnostics"].as_array().unwrap().is_empty());
    assert_eq!(v["suppressed"]["findings"], 2);
    let (code, _, err) = ptxrun(&["run", RACE, "--suppressions", &f]);
    assert_eq!(code, 0);
    assert!(err.contains("2 findings suppressed"), "{err}");
    // By PTX file:line: the load's finding (the store's races with another store).
    std::fs::write(&file, "data-race:kernel.ptx:44\n").unwrap();
    let (code, out, _) = ptxrun(&[
        "check",
        RACE,
        "--explore",
        "3",
        "--format",
        "json",
        "--suppressions",
        &f,
    ]);
    assert_eq!(code, 1, "{out}");
    let v = json(&out);
    let left: Vec<_> = v["diagnostics"]
        .as_array()
        .unwrap()
        .iter()
        .map(|d| d["line"].as_u64().unwrap())
        .collect();
    assert_eq!(left, [46], "{out}");
    assert_eq!(v["suppressed"]["findings"], 1);
    // Another kind matches nothing; a kind that does not exist is warned about.
    std::fs::write(&file, "read-before-complete\n").unwrap();
    assert_eq!(ptxrun(&["run", RACE, "--suppressions", &f]).0, 1);
    std::fs::write(&file, "\u{feff}data_race\n").unwrap();
    let (code, _, err) = ptxrun(&["run", RACE, "--suppressions", &f]);
    assert_eq!(code, 1);
    assert!(
        err.contains("warning: suppression `data_race` names no kind"),
        "{err}"
    );
    // A bad rule or a missing file is bad input naming the line.
    std::fs::write(&file, "data-race\n\n:oops\n").unwrap();
    let (code, _, err) = ptxrun(&["run", RACE, "--suppressions", &f]);
    assert_eq!(code, 2);
    assert!(err.contains("ptxrun.supp:3:"), "{err}");
    let (code, _, err) = ptxrun(&["run", RACE, "--suppressions", "no/such/file"]);
    assert_eq!(code, 2);
    assert!(err.contains("no/such/file"), "{err}");
}

/// A copy of the racy sample's launch directory with extra launch-file text.
fn race_copy(name: &str, extra: &str) -> PathBuf {
    let dir = scratch(name);
    let root = Path::new(env!("CARGO_MANIFEST_DIR"));
    std::fs::copy(root.join(RACE).join("kernel.ptx"), dir.join("kernel.ptx")).unwrap();
    std::fs::create_dir_all(dir.join("inputs")).unwrap();
    std::fs::copy(
        root.join(RACE).join("inputs/in.bin"),
        dir.join("inputs/in.bin"),
    )
    .unwrap();
    let toml = std::fs::read_to_string(root.join(RACE).join("launch.toml")).unwrap();
    std::fs::write(dir.join("launch.toml"), format!("{toml}\n{extra}")).unwrap();
    dir
}

#[test]
fn launch_files_allow_findings() {
    let dir = race_copy("allow", "[check]\nallow = [\"data-race:plain_add_race\"]\n");
    let d = dir.display().to_string();
    let (code, out, _) = ptxrun(&["run", &d, "--format", "json"]);
    assert_eq!(code, 0, "{out}");
    assert_eq!(
        json(&out)["suppressed"]["occurrences"]
            .as_u64()
            .map(|n| n > 0),
        Some(true)
    );
    // `[expect] hazard` still sees what it expects only if it is not allowed away.
    assert_eq!(ptxrun(&["test", &d]).0, 1);
    for rule in ["data-race:[", "bogus-kind"] {
        let bad = race_copy("allow-bad", &format!("[check]\nallow = [\"{rule}\"]\n"));
        let (code, _, err) = ptxrun(&["run", &bad.display().to_string()]);
        assert_eq!(code, 2);
        assert!(err.contains("check.allow[0]"), "{err}");
    }
}

#[test]
fn sarif_locates_results_at_cuda_or_ptx_lines() {
    let (code, out, _) = ptxrun(&["run", RACE, "--format", "sarif"]);
    assert_eq!(code, 1);
    let v = json(&out);
    assert_eq!(v["version"], "2.1.0");
    let run = &v["runs"][0];
    assert_eq!(run["tool"]["driver"]["name"], "ptxrun");
    assert_eq!(run["tool"]["driver"]["rules"][0]["id"], "data-race");
    let r = &run["results"][0];
    assert_eq!(
        (r["ruleId"].as_str(), r["level"].as_str()),
        (Some("data-race"), Some("error"))
    );
    let loc = &r["locations"][0]["physicalLocation"];
    assert_eq!(loc["artifactLocation"]["uri"], format!("{RACE}/kernel.ptx"));
    assert_eq!(loc["region"]["startLine"], 44);
    assert_eq!(
        r["relatedLocations"][0]["physicalLocation"]["region"]["startLine"],
        46
    );
    // Warnings are warnings; suppressed results are kept, marked.
    let (code, out, _) = ptxrun(&["run", CAS, "--format", "sarif"]);
    assert_eq!(code, 0);
    assert_eq!(json(&out)["runs"][0]["results"][0]["level"], "warning");
    let dir = scratch("sarif");
    let f = dir.join("s.supp");
    std::fs::write(&f, "*:cas_loop_add\n").unwrap();
    let (_, out, _) = ptxrun(&[
        "check",
        CAS,
        "--explore",
        "2",
        "--format",
        "sarif",
        "--suppressions",
        &f.display().to_string(),
    ]);
    let v = json(&out);
    let results = v["runs"][0]["results"].as_array().unwrap();
    assert_eq!(results.len(), 2);
    assert!(results
        .iter()
        .all(|r| r["suppressions"][0]["kind"] == "external"));
    assert_eq!(results[0]["properties"]["schedule"]["index"], 0);
    // With `.loc` information the result is at the CUDA line and the PTX line is related.
    let (code, out, _) = ptxrun(&[
        "run",
        "ptx-samples/hazards/wgmma_no_proxy_fence",
        "--format",
        "sarif",
    ]);
    assert_eq!(code, 1);
    let v = json(&out);
    let r = &v["runs"][0]["results"][0];
    let uri = r["locations"][0]["physicalLocation"]["artifactLocation"]["uri"]
        .as_str()
        .unwrap();
    assert!(uri.ends_with("triton_kernels.py"), "{uri}");
    let ptx = &r["relatedLocations"][0];
    assert!(ptx["message"]["text"]
        .as_str()
        .unwrap()
        .starts_with("the PTX instruction `wgmma"));
    assert_eq!(
        ptx["physicalLocation"]["region"]["startLine"],
        r["properties"]["ptxLine"]
    );
}

#[test]
fn junit_has_a_case_per_launch_and_partitions_share_the_launches() {
    let dir = scratch("junit");
    let xml = dir.join("report.xml");
    let x = xml.display().to_string();
    let (code, out, _) = ptxrun(&["test", CAS, RACE, "--deny", "warnings", "--junit", &x]);
    assert_eq!(code, 1, "{out}");
    let text = std::fs::read_to_string(&xml).unwrap();
    assert!(
        text.contains("tests=\"2\" failures=\"1\" errors=\"0\""),
        "{text}"
    );
    assert!(
        text.contains("classname=\"ptx-samples.checker\" name=\"cas_loop_add\""),
        "{text}"
    );
    assert!(
        text.contains("<failure message=\"data-race at PTX line 45"),
        "{text}"
    );
    // Nothing to run is an error case, not an empty green suite.
    let none = dir.join("none.xml");
    let (code, _, _) = ptxrun(&[
        "test",
        "no/such/dir",
        "--junit",
        &none.display().to_string(),
    ]);
    assert_eq!(code, 1);
    let text = std::fs::read_to_string(&none).unwrap();
    assert!(
        text.contains("errors=\"1\"")
            && text.contains("<error message=\"no launch.toml under no/such/dir\""),
        "{text}"
    );
    // An unwritable JUnit path is bad input before anything runs.
    let (code, out, err) = ptxrun(&["test", CAS, "--junit", "/no/such/dir/r.xml"]);
    assert_eq!(code, 2);
    assert!(
        out.is_empty() && err.contains("/no/such/dir/r.xml"),
        "{err}"
    );
    // Three shares of the checker samples run each launch exactly once.
    let (_, all, _) = ptxrun(&["test", "ptx-samples/checker"]);
    let lines = |s: &str| -> Vec<String> {
        s.lines()
            .filter(|l| l.starts_with("PASS") || l.starts_with("FAIL"))
            .map(|l| l.split(" (").next().unwrap().to_string())
            .collect()
    };
    let mut shares = Vec::new();
    for m in 1..=3 {
        let (code, out, _) = ptxrun(&[
            "test",
            "ptx-samples/checker",
            "--partition",
            &format!("{m}/3"),
        ]);
        assert_eq!(code, 0, "{out}");
        shares.extend(lines(&out));
    }
    let mut want = lines(&all);
    want.sort();
    shares.sort();
    assert_eq!(shares, want);
    assert_eq!(
        ptxrun(&["test", "ptx-samples/checker", "--partition", "4/3"]).0,
        2
    );
}

/// Runs `check` (its arguments) as share m of `order.len()` for each m in `order`, writing each
/// JSON report under `dir`; returns their paths.
fn shares(dir: &Path, name: &str, check: &[&str], order: &[usize]) -> Vec<String> {
    let n = order.len();
    order
        .iter()
        .map(|m| {
            let part = format!("{m}/{n}");
            let mut args = check.to_vec();
            args.extend(["--partition", &part]);
            let p = dir.join(format!("{name}-{m}.json"));
            std::fs::write(&p, ptxrun(&args).1).unwrap();
            p.display().to_string()
        })
        .collect()
}

#[test]
fn merged_partitions_equal_the_unpartitioned_report() {
    let dir = scratch("merge");
    let samples = [
        RACE,
        CAS,
        "ptx-samples/hazards/cp_async_no_wait",
        "ptx-samples/hazards/wrong_parity",
        "ptx-samples/hazards/refill_war",
        "ptx-samples/checker/spinlock",
    ];
    for (k, s) in samples.iter().enumerate() {
        let check = ["check", s, "--explore", "11", "--format", "json"];
        let (code, whole, _) = ptxrun(&check);
        let parts = shares(&dir, &format!("{k}"), &check, &[3, 1, 4, 2]);
        let mut args = vec!["merge"];
        args.extend(parts.iter().map(String::as_str));
        let (mcode, merged, err) = ptxrun(&args);
        assert_eq!(merged, whole, "{s}: {err}");
        assert_eq!(mcode, code, "{s}");
    }
    // With suppressions the counts merge too.
    let f = dir.join("s.supp");
    std::fs::write(&f, "data-race:kernel.ptx:44\n").unwrap();
    let f = f.display().to_string();
    let check = [
        "check",
        RACE,
        "--explore",
        "6",
        "--format",
        "json",
        "--suppressions",
        &f,
    ];
    let (_, whole, _) = ptxrun(&check);
    let parts = shares(&dir, "s", &check, &[1, 2]);
    let (_, merged, _) = ptxrun(&["merge", &parts[0], &parts[1]]);
    assert_eq!(merged, whole);
    assert!(whole.contains("\"suppressed\""));
    // Shares that do not fit together are bad input.
    let (code, _, err) = ptxrun(&["merge", &parts[0]]);
    assert_eq!(code, 2);
    assert!(err.contains("share 2 of 2 is missing"), "{err}");
    let (code, _, err) = ptxrun(&["merge", &parts[0], &parts[0]]);
    assert_eq!(code, 2);
    assert!(err.contains("given twice"), "{err}");
    // Shares of another sample, another seed or other suppressions do not merge.
    for other in [
        vec!["check", CAS, "--explore", "6", "--format", "json"],
        vec![
            "check",
            RACE,
            "--explore",
            "6",
            "--format",
            "json",
            "--seed",
            "3",
        ],
        vec!["check", RACE, "--explore", "6", "--format", "json"],
    ] {
        let odd = shares(&dir, "odd", &other, &[1, 2]);
        let (code, _, err) = ptxrun(&["merge", &parts[0], &odd[1]]);
        assert_eq!(code, 2, "{other:?}");
        assert!(err.contains("not a share of the same exploration"), "{err}");
    }
    // A share that holds no schedule is an empty report that merges.
    let check = ["check", RACE, "--explore", "2", "--format", "json"];
    let (code, whole, _) = ptxrun(&check);
    let few = shares(&dir, "few", &check, &[1, 2, 3]);
    let (mcode, merged, err) = ptxrun(&["merge", &few[2], &few[0], &few[1]]);
    assert_eq!((mcode, merged), (code, whole), "{err}");
    let plain = dir.join("plain.json");
    std::fs::write(
        &plain,
        ptxrun(&["check", RACE, "--explore", "2", "--format", "json"]).1,
    )
    .unwrap();
    let (code, _, err) = ptxrun(&["merge", &plain.display().to_string()]);
    assert_eq!(code, 2);
    assert!(err.contains("not a partition's report"), "{err}");
}
