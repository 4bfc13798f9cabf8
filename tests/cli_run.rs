//! `ptxrun run` and `ptxrun test` through the binary: exit codes, the JSON report, faults that
//! name the PTX line and thread, and launch-file errors that name the field at fault.

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

fn out_dir(name: &str) -> String {
    let d = Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("target/cli-run")
        .join(name);
    let _ = std::fs::remove_dir_all(&d);
    d.display().to_string()
}

#[test]
fn a_clean_run_exits_0_and_writes_outputs() {
    let dir = out_dir("clean");
    let (code, stdout, _) = ptxrun(&[
        "run",
        "ptx-samples/core/sgemm_tiled",
        "--format",
        "json",
        "--out-dir",
        &dir,
    ]);
    assert_eq!(code, 0);
    let v: serde_json::Value = serde_json::from_str(stdout.trim()).unwrap();
    assert_eq!(v["status"], "ok");
    assert_eq!(v["diagnostics"].as_array().unwrap().len(), 0);
    assert!(v["stats"]["thread_instructions"].as_u64().unwrap() > 0);
    let got = std::fs::read(Path::new(&dir).join("out/c.bin")).unwrap();
    let want = std::fs::read("ptx-samples/core/sgemm_tiled/expected/c.bin").unwrap();
    assert_eq!(got, want);
}

#[test]
fn an_out_of_bounds_store_is_a_fault_naming_line_thread_and_buffer() {
    let (code, stdout, _) = ptxrun(&[
        "run",
        "tests/run/oob",
        "--format",
        "json",
        "--out-dir",
        &out_dir("oob"),
    ]);
    assert_eq!(code, 1);
    let v: serde_json::Value = serde_json::from_str(stdout.trim()).unwrap();
    assert_eq!(v["status"], "fault");
    let d = &v["diagnostics"][0];
    assert_eq!(d["kind"], "out-of-bounds");
    assert_eq!(d["line"], 16);
    assert_eq!(d["thread"], serde_json::json!([63, 0, 0]));
    assert!(d["message"].as_str().unwrap().contains("`out`+256"), "{d}");
    let (_, _, stderr) = ptxrun(&["run", "tests/run/oob", "--out-dir", &out_dir("oob2")]);
    assert!(
        stderr.contains("kernel.ptx:16:2") && stderr.contains("thread [63, 0, 0]"),
        "{stderr}"
    );
}

/// A valid conversion ptxrun does not execute (an sm_100 narrow format) is bad input naming the
/// form and its line, never a conversion to something close.
#[test]
fn unexecuted_cvt_form_is_unsupported_naming_it() {
    let (code, _, stderr) = ptxrun(&["--color", "never", "run", "tests/run/cvt_sm100"]);
    assert_eq!(code, 2, "{stderr}");
    assert!(
        stderr.contains("`cvt.rn.satfinite.e2m1x2.f32` is not supported by ptxrun yet")
            && stderr.contains("kernel.ptx:14:5"),
        "{stderr}"
    );
}

/// A range-based `createpolicy` (whose encoding ptxrun does not model) stops as unsupported,
/// naming the form, instead of making up a policy value; `parse --emit ir` marks it.
#[test]
fn range_createpolicy_is_unsupported_naming_it() {
    let (code, _, stderr) = ptxrun(&["--color", "never", "run", "tests/run/createpolicy_range"]);
    assert_eq!(code, 2, "{stderr}");
    assert!(
        stderr.contains("`createpolicy.range.global.L2::evict_last.L2::evict_first.b64` is not")
            && stderr.contains("kernel.ptx:12:5"),
        "{stderr}"
    );
    let kernel = "tests/run/createpolicy_range/kernel.ptx";
    let (code, ir, _) = ptxrun(&["parse", "--emit", "ir", kernel]);
    assert_eq!(code, 0);
    let line = ir
        .lines()
        .find(|l| l.contains("createpolicy"))
        .unwrap_or("");
    assert!(line.ends_with("(not executable)"), "{ir}");
}

/// `parse --emit ir` marks the sm_100 `ldmatrix`/`stmatrix` shapes (not executable), and only
/// those: the `.m8n8 .b16` forms and `movmatrix` run.
#[test]
fn sm100_matrix_moves_are_marked_not_executable() {
    let kernel = "tests/run/matrix_sm100/kernel.ptx";
    let (code, ir, stderr) = ptxrun(&["parse", "--emit", "ir", kernel]);
    assert_eq!(code, 0, "{stderr}");
    let marked: Vec<bool> = ir
        .lines()
        .filter(|l| l.contains("matrix"))
        .map(|l| l.ends_with("(not executable)"))
        .collect();
    assert_eq!(marked, [true, false, true, false], "{ir}");
}

/// `mma` is `.sync.aligned`: half a warp executing it is a `divergent-aligned` hazard at the
/// mma's line, even when the other half completes the rendezvous by exiting.
#[test]
fn mma_by_half_a_warp_is_divergent_aligned() {
    let (code, _, stderr) = ptxrun(&["--color", "never", "run", "tests/run/mma_divergent"]);
    assert_eq!(code, 1, "{stderr}");
    assert!(
        stderr.contains("divergent-aligned")
            && stderr.contains("lanes 0xffff0000")
            && stderr.contains("kernel.ptx:21:5"),
        "{stderr}"
    );
}

/// `setmaxnreg` is aligned over the warpgroup: one warp executing it alone is `divergent-aligned`
/// at its line; two in a row need the warps synchronized between them (a `bar.sync`).
#[test]
fn setmaxnreg_needs_the_whole_warpgroup_and_a_sync_between_two() {
    // The report wraps its message: join the lines again.
    let unwrap = |s: String| s.replace("\n  | ", " ");
    let (code, _, stderr) = ptxrun(&["--color", "never", "run", "tests/run/setmaxnreg_one_warp"]);
    let stderr = unwrap(stderr);
    assert_eq!(code, 1, "{stderr}");
    assert!(
        stderr.contains("divergent-aligned")
            && stderr.contains("warp 1 of the warpgroup exited without executing it")
            && stderr.contains("kernel.ptx:15:5"),
        "{stderr}"
    );
    let (code, _, stderr) = ptxrun(&["--color", "never", "check", "tests/run/setmaxnreg_twice"]);
    let stderr = unwrap(stderr);
    assert_eq!(code, 1, "{stderr}");
    assert!(
        stderr.contains("divergent-aligned")
            && stderr.contains("no synchronization after warp")
            && stderr.contains("kernel.ptx:15:5"),
        "{stderr}"
    );
    let synced = "tests/run/setmaxnreg_twice_synced";
    let (code, _, stderr) = ptxrun(&["check", synced, "--explore", "20"]);
    assert_eq!(code, 0, "{stderr}");
}

/// Every row `ldmatrix .x4` reads is checked, also the last row of the fourth matrix (lane 31's
/// address; the checker once kept only the first 32 of the 128 pieces).
#[test]
fn ldmatrix_x4_races_on_its_last_row_are_found() {
    let (code, _, stderr) = ptxrun(&["--color", "never", "check", "tests/run/ldmatrix_race"]);
    assert_eq!(code, 1, "{stderr}");
    assert!(
        stderr.contains("data-race")
            && stderr.contains("shared+0x1f0")
            && stderr.contains("kernel.ptx:30:5")
            && stderr.contains("at line 27"),
        "{stderr}"
    );
}

/// The sm_70 `m8n8k4` form runs per quad pair, but each pair spans both half warps: half a
/// warp executing it is a `divergent-aligned` hazard at its line.
#[test]
fn sm70_mma_by_half_a_warp_is_divergent_aligned() {
    let (code, _, stderr) = ptxrun(&["--color", "never", "run", "tests/run/mma_sm70"]);
    assert_eq!(code, 1, "{stderr}");
    assert!(
        stderr.contains("divergent-aligned")
            && stderr.contains("lanes 0xffff0000")
            && stderr.contains("kernel.ptx:20:5"),
        "{stderr}"
    );
}

/// The m8n8k4 `.bf16` form ptxas takes but compiles to nothing stops as unsupported, naming it.
#[test]
fn bf16_m8n8k4_is_unsupported_naming_it() {
    let (code, _, stderr) = ptxrun(&["--color", "never", "run", "tests/run/mma_bf16_m8n8k4"]);
    assert_eq!(code, 2, "{stderr}");
    assert!(
        stderr.contains("`mma.sync.aligned.m8n8k4.row.col.f32.bf16.bf16.f32` is not supported")
            && stderr.contains("emits no instruction")
            && stderr.contains("kernel.ptx:13:5"),
        "{stderr}"
    );
}

/// What one GPU cannot run stops as unsupported, saying why: `multimem` (a multicast object over
/// several GPUs), and a device runtime call ptxrun does not answer; a device-side launch runs.
#[test]
fn device_side_launches_run_and_multimem_is_unsupported_saying_why() {
    let (code, _, stderr) = ptxrun(&["--color", "never", "run", "tests/run/device_launch"]);
    assert_eq!(code, 0, "{stderr}");
    let (code, _, stderr) = ptxrun(&["--color", "never", "run", "tests/run/cdp_attribute"]);
    assert_eq!(code, 2, "{stderr}");
    assert!(
        stderr.contains(
            "device runtime call `__cudaCDP2DeviceGetAttribute` (CUDA dynamic parallelism)"
        ) && stderr.contains("kernel.ptx:40:"),
        "{stderr}"
    );
    let (code, _, stderr) = ptxrun(&["--color", "never", "run", "tests/run/multimem"]);
    assert_eq!(code, 2, "{stderr}");
    assert!(
        stderr.contains("`multimem.ld_reduce.relaxed.sys.global.add.f32` is not supported by ptxrun: it needs a")
            && stderr.contains("multicast object over several GPUs"),
        "{stderr}"
    );
}

#[test]
fn trap_deadlock_and_step_limit_exit_1() {
    let (code, _, stderr) = ptxrun(&["run", "tests/run/trap"]);
    assert_eq!(code, 1);
    assert!(
        stderr.contains("trap") && stderr.contains("thread [5, 0, 0]"),
        "{stderr}"
    );
    let (code, stdout, _) = ptxrun(&["run", "tests/run/deadlock", "--format", "json"]);
    assert_eq!(code, 1);
    assert!(stdout.contains("\"status\":\"deadlock\""), "{stdout}");
    let (code, _, stderr) = ptxrun(&["run", "tests/run/spin", "--max-steps", "1000"]);
    assert_eq!(code, 1);
    assert!(
        stderr.contains("step limit") && stderr.contains("kernel.ptx:8"),
        "{stderr}"
    );
}

/// A spin on a flag nobody sets (by one lane of a warp, or by whole warps, whose back edge runs
/// inside straight runs) and a lock nobody releases end at once as deadlocks naming the loop,
/// not after billions of steps.
#[test]
fn endless_spins_are_deadlocks_naming_the_loop() {
    for (dir, line) in [
        ("tests/run/spin_flag", 23),
        ("tests/run/lock_held", 18),
        ("tests/run/spin_warp", 17),
    ] {
        let (code, stdout, _) = ptxrun(&["run", dir, "--format", "json"]);
        assert_eq!(code, 1, "{dir}: {stdout}");
        let v: serde_json::Value = serde_json::from_str(stdout.trim()).unwrap();
        assert_eq!(v["status"], "deadlock", "{dir}");
        let d = &v["diagnostics"][0];
        assert_eq!(d["line"], line, "{dir}: {d}");
        let msg = d["message"].as_str().unwrap();
        assert!(
            msg.contains(&format!("spins in the loop ending at line {line}")),
            "{msg}"
        );
        // Well before the step limit: the back edges' samples find the cycle after 16,000 to
        // 34,000 warp instructions (a straight run that skipped them: 98,000 and more).
        assert!(
            v["stats"]["warp_instructions"].as_u64().unwrap() < 1 << 16,
            "{dir}"
        );
    }
}

/// Writes a launch directory with the given launch.toml beside the oob kernel's PTX.
fn launch_dir(name: &str, toml: &str, files: &[(&str, &[u8])]) -> PathBuf {
    let d = Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("target/cli-run/launch")
        .join(name);
    let _ = std::fs::remove_dir_all(&d);
    std::fs::create_dir_all(&d).unwrap();
    std::fs::copy("tests/run/oob/kernel.ptx", d.join("kernel.ptx")).unwrap();
    std::fs::write(d.join("launch.toml"), toml).unwrap();
    for (f, bytes) in files {
        std::fs::write(d.join(f), bytes).unwrap();
    }
    d
}

/// (directory name, launch.toml, extra files, text the error must contain)
type Case<'a> = (&'a str, String, Vec<(&'a str, &'a [u8])>, &'a str);

#[test]
fn bad_launch_files_exit_2_naming_the_field() {
    let buf = "[[params]]\nbuffer = \"out\"\ntype = \"u32\"\nlen = 64\n";
    let cases: Vec<Case> = vec![
        ("missing-grid", format!("block = 64\n{buf}"), vec![], "grid"),
        (
            "two-params",
            format!("grid = 1\nblock = 64\n{buf}[[params]]\ntype = \"i32\"\nvalue = 1\n"),
            vec![],
            "takes 1 parameters but the launch gives 2",
        ),
        (
            "scalar-for-pointer",
            "grid = 1\nblock = 64\n[[params]]\ntype = \"i32\"\nvalue = 1\n".into(),
            vec![],
            "params[0]",
        ),
        (
            "missing-input",
            format!("grid = 1\nblock = 64\n{buf}init = \"inputs/nope.bin\"\n"),
            vec![],
            "params[0].init",
        ),
        (
            "file-too-big",
            format!("grid = 1\nblock = 64\n{buf}init = \"big.bin\"\n"),
            vec![("big.bin", &[0u8; 300][..])],
            "more than the 256",
        ),
        (
            "bad-type",
            "grid = 1\nblock = 64\n[[params]]\nbuffer = \"out\"\ntype = \"u33\"\nlen = 4\n".into(),
            vec![],
            "params[0].type",
        ),
        (
            "unknown-field",
            format!("grid = 1\nblock = 64\ncolour = 3\n{buf}"),
            vec![],
            "colour",
        ),
        (
            "huge-block",
            format!("grid = 1\nblock = 2048\n{buf}"),
            vec![],
            "block",
        ),
        (
            "offset-outside-a-struct",
            "grid = 1\nblock = 64\n[[params]]\noffset = 8\ntype = \"i32\"\nvalue = 1\n".into(),
            vec![],
            "params[0].offset: only a field of a struct takes `offset`",
        ),
        (
            "struct-with-a-type",
            "grid = 1\nblock = 64\n[[params]]\ntype = \"u64\"\nfields = []\n".into(),
            vec![],
            "params[0].type: a struct takes `bytes` and `fields`, not `type`",
        ),
        (
            "field-without-offset",
            "grid = 1\nblock = 64\n[[params]]\nfields = [{ type = \"i32\", value = 1 }]\n".into(),
            vec![],
            "params[0].fields[0].offset: missing",
        ),
        (
            "pointer-to-nothing",
            "grid = 1\nblock = 64\n[[params]]\nfields = [{ offset = 0, buffer = \"nope\" }]\n"
                .into(),
            vec![],
            "params[0].fields[0].buffer: no buffer named `nope`",
        ),
        (
            "not-a-byte",
            "grid = 1\nblock = 64\n[[params]]\nbytes = [1, 256]\n".into(),
            vec![],
            "params[0].bytes[1]: expected a byte, 0 to 255",
        ),
        (
            "struct-for-a-pointer",
            "grid = 1\nblock = 64\n[[params]]\nbytes = [1, 2, 3, 4, 5, 6, 7, 8, 9]\n".into(),
            vec![],
            "`bytes` holds 9 bytes, more than kernel parameter",
        ),
        (
            "map-key-on-a-buffer",
            format!("grid = 1\nblock = 64\n{buf}dims = [4]\n"),
            vec![],
            "params[0].dims: only a `tensormap`, `texture` or `surface` parameter takes `dims`",
        ),
        (
            "texture-three-channels",
            "grid = 1\nblock = 64\n[[params]]\ntexture = \"t\"\ntype = \"f32\"\nchannels = 3\ndims = [4]\ninit = \"zeros\"\n".to_string(),
            vec![],
            "params[0].channels: 1, 2 or 4, not 3",
        ),
        (
            "texture-linear-integers",
            "grid = 1\nblock = 64\n[[params]]\ntexture = \"t\"\ntype = \"u8\"\ndims = [4]\nfilter = \"linear\"\ninit = \"zeros\"\n".to_string(),
            vec![],
            "linear filtering needs float channels",
        ),
        (
            "surface-with-a-filter",
            "grid = 1\nblock = 64\n[[params]]\nsurface = \"s\"\ntype = \"u32\"\ndims = [4]\nfilter = \"point\"\n".to_string(),
            vec![],
            "params[0].filter: a surface does not take `filter`",
        ),
        (
            "texture-of-no-buffer",
            "grid = 1\nblock = 64\n[[params]]\ntexture = \"t\"\ntype = \"f32\"\ndims = [4]\n".to_string(),
            vec![],
            "params[0].texture: no buffer named `t`",
        ),
        (
            "cooperative-not-a-bool",
            format!("grid = 1\nblock = 64\ncooperative = 1\n{buf}"),
            vec![],
            "cooperative",
        ),
    ];
    for (name, toml, files, needle) in cases {
        let d = launch_dir(name, &toml, &files);
        let (code, _, stderr) = ptxrun(&["run", &d.display().to_string()]);
        assert_eq!(code, 2, "{name}: {stderr}");
        assert!(
            stderr.contains(needle),
            "{name}: expected `{needle}` in: {stderr}"
        );
    }
}

#[test]
fn test_command_prints_a_line_per_sample_and_a_summary() {
    let (code, stdout, _) = ptxrun(&["test", "ptx-samples/core/int_bitops", "tests/run/trap"]);
    assert_eq!(code, 1, "{stdout}");
    assert!(stdout.contains("PASS ptx-samples/core/int_bitops"));
    assert!(stdout.contains("FAIL tests/run/trap"));
    assert!(
        stdout.trim_end().ends_with("1 passed, 1 failed"),
        "{stdout}"
    );
}

#[test]
fn a_wait_on_the_wrong_parity_is_a_deadlock_naming_the_parity() {
    let (code, stdout, _) = ptxrun(&[
        "run",
        "tests/run/wrong_parity",
        "--format",
        "json",
        "--out-dir",
        &out_dir("wrong_parity"),
    ]);
    assert_eq!(code, 1);
    let v: serde_json::Value = serde_json::from_str(stdout.trim()).unwrap();
    assert_eq!(v["status"], "deadlock");
    let d = &v["diagnostics"][0];
    assert_eq!(d["kind"], "deadlock");
    assert_eq!(d["line"], 30);
    let msg = d["message"].as_str().unwrap();
    assert!(msg.contains("for parity 1"), "{msg}");
    assert!(msg.contains("the phase that completed last was 0"), "{msg}");
}

#[test]
fn latency_models_and_traces_from_the_command_line() {
    for model in [
        "immediate",
        "fixed:50",
        "uniform:1-300",
        "bandwidth",
        "adversarial",
    ] {
        let dir = out_dir(&format!("lat-{}", model.replace(':', "_")));
        let trace = Path::new(&dir).join("trace.json");
        let (code, _, err) = ptxrun(&[
            "run",
            "ptx-samples/bulk/hw_bulk_scale",
            "--latency",
            model,
            "--out-dir",
            &dir,
            "--trace",
            &trace.display().to_string(),
            "--trace-format",
            "chrome",
        ]);
        assert_eq!(code, 0, "{model}: {err}");
        let got = std::fs::read(Path::new(&dir).join("out/out.bin")).unwrap();
        let want = std::fs::read("ptx-samples/bulk/hw_bulk_scale/expected/out.bin").unwrap();
        assert_eq!(got, want, "{model}");
        let doc: serde_json::Value =
            serde_json::from_str(&std::fs::read_to_string(&trace).unwrap()).unwrap();
        assert!(doc["traceEvents"].as_array().unwrap().len() > 100);
    }
    let (code, _, err) = ptxrun(&["run", "tests/run/trace_small", "--latency", "slow"]);
    assert_eq!(code, 2);
    assert!(err.contains("unknown model"), "{err}");
}

#[test]
fn check_explores_schedules_and_reports_each_hazard_once() {
    let (code, stdout, _) = ptxrun(&[
        "check",
        "ptx-samples/hazards/missing_proxy_fence",
        "--explore",
        "10",
        "--format",
        "json",
    ]);
    assert_eq!(code, 1);
    let v: serde_json::Value = serde_json::from_str(stdout.trim()).unwrap();
    assert_eq!(v["status"], "hazard");
    assert_eq!(v["stats"]["schedules"], 10);
    let diags = v["diagnostics"].as_array().unwrap();
    assert_eq!(diags.len(), 1, "{diags:?}");
    let d = &diags[0];
    assert_eq!(d["kind"], "missing-proxy-fence");
    assert!(d["instruction"]
        .as_str()
        .unwrap()
        .starts_with("cp.async.bulk"));
    assert_eq!(d["schedule"]["index"], 0);
    assert!(d["count"].as_u64().unwrap() >= 10);
    let rel = &d["related"][0];
    assert!(rel["line"].as_u64().unwrap() > 0 && rel["label"].is_string());

    let (code, stdout, _) = ptxrun(&[
        "check",
        "ptx-samples/bulk/warp_specialized_ring",
        "--explore",
        "10",
        "--format",
        "json",
        "--jobs",
        "2",
    ]);
    assert_eq!(code, 0, "{stdout}");
    let v: serde_json::Value = serde_json::from_str(stdout.trim()).unwrap();
    assert_eq!(v["status"], "ok");

    let (code, _, err) = ptxrun(&["check", "tests/run/trace_small", "--latency", "slow"]);
    assert_eq!(code, 2, "{err}");
}

#[test]
fn run_reports_hazards_with_two_labels_and_no_check_turns_it_off() {
    let dir = out_dir("hazard-human");
    let (code, _, err) = ptxrun(&[
        "run",
        "ptx-samples/hazards/cp_async_no_wait",
        "--out-dir",
        &dir,
    ]);
    assert_eq!(code, 1);
    assert!(err.contains("read-before-complete"), "{err}");
    assert!(
        err.contains("the cp.async whose completion it is not ordered after"),
        "{err}"
    );
    assert!(err.contains("help: wait for its group"), "{err}");
    let (code, _, err) = ptxrun(&[
        "run",
        "ptx-samples/hazards/cp_async_no_wait",
        "--out-dir",
        &dir,
        "--no-check",
    ]);
    assert_eq!(code, 0, "{err}");
}

/// The wgmma buggy twins: each hazard kind at the line of the culprit, related to the line of
/// the other party (the kernels are nvcc's and Triton's PTX, unedited but for the bug).
/// Races between lanes of one warp (no `__syncwarp`) and a release/acquire pair whose `.cta`
/// scope does not hold both CTAs of a cluster: each reported at the offending line, as an error,
/// with the other access related; the scope is named.
#[test]
fn lane_and_scope_races_point_at_their_lines() {
    for (sample, line, related, says) in [
        ("warp_reduce_nosync", 61, 53, "lane 16 of the same warp"),
        ("cluster_flag_cta_scope", 103, 68, "(.cta scope)"),
    ] {
        let path = format!("ptx-samples/hazards/{sample}");
        let (code, stdout, stderr) = ptxrun(&["run", &path, "--format", "json"]);
        assert_eq!(code, 1, "{sample}: {stderr}");
        let v: serde_json::Value = serde_json::from_str(stdout.trim()).unwrap();
        let found = v["diagnostics"].as_array().unwrap().iter().any(|d| {
            d["kind"] == "data-race"
                && d["severity"] == "error"
                && d["line"] == line
                && d["related"][0]["line"] == related
                && d["message"].as_str().is_some_and(|m| m.contains(says))
        });
        assert!(found, "{sample}: {stdout}");
    }
    // The flag itself: two strong accesses whose scope does not hold both threads race, as a
    // warning (atomicity and order are not promised, yet hardware usually keeps them).
    let (_, stdout, _) = ptxrun(&[
        "run",
        "ptx-samples/hazards/cluster_flag_cta_scope",
        "--format",
        "json",
    ]);
    let v: serde_json::Value = serde_json::from_str(stdout.trim()).unwrap();
    let flag = v["diagnostics"]
        .as_array()
        .unwrap()
        .iter()
        .find(|d| d["line"] == 93)
        .expect("a finding at the ld.acquire.cta");
    assert_eq!(flag["severity"], "warning", "{stdout}");
    assert_eq!(flag["related"][0]["line"], 79, "{stdout}");
}

#[test]
fn wgmma_hazards_point_at_their_lines() {
    for (sample, kind, line, related) in [
        ("wgmma_no_fence", "missing-wgmma-fence", 421, None),
        (
            "wgmma_no_final_wait",
            "wgmma-register-before-wait",
            545,
            Some(475),
        ),
        (
            "wgmma_early_release",
            "source-modified-before-complete",
            195,
            Some(424),
        ),
        ("wgmma_half_warp", "divergent-aligned", 426, None),
        (
            "wgmma_no_proxy_fence",
            "missing-proxy-fence",
            606,
            Some(454),
        ),
    ] {
        let path = format!("ptx-samples/hazards/{sample}");
        let (code, stdout, stderr) = ptxrun(&["run", &path, "--format", "json"]);
        assert_eq!(code, 1, "{sample}: {stderr}");
        let v: serde_json::Value = serde_json::from_str(stdout.trim()).unwrap();
        let d = &v["diagnostics"][0];
        assert_eq!(d["kind"], kind, "{sample}: {stdout}");
        assert_eq!(d["line"], line, "{sample}: {stdout}");
        let rel = d["related"]
            .as_array()
            .and_then(|r| r.first())
            .map(|r| r["line"].clone());
        assert_eq!(
            rel,
            related.map(serde_json::Value::from),
            "{sample}: {stdout}"
        );
    }
}

/// 600 `wgmma.mma_async` chained into the same accumulators with no wait until the end (300
/// committed one by one, 300 never committed until the last): completed ones are written as
/// the backlog grows (bounded memory), in issue order, so every element is 600 x 16.
#[test]
fn wgmma_chains_without_waits_stay_exact() {
    for latency in ["immediate", "adversarial"] {
        let (code, _, stderr) = ptxrun(&["run", "--latency", latency, "tests/run/wgmma_backlog"]);
        assert_eq!(code, 0, "{stderr}");
        let bytes = std::fs::read("tests/run/wgmma_backlog/out/out.bin").unwrap();
        assert!(
            bytes
                .chunks(4)
                .all(|c| f32::from_le_bytes([c[0], c[1], c[2], c[3]]) == 9600.0),
            "{latency}"
        );
    }
}

/// A warp-collective instruction (wgmma, shfl.sync) whose guard is false does not run for those
/// lanes: the rendezvous once ran it with the group's whole mask.
#[test]
fn false_guards_keep_collectives_from_running() {
    for dir in ["tests/run/wgmma_pred_false", "tests/run/shfl_pred_false"] {
        let (code, _, stderr) = ptxrun(&["run", dir]);
        assert_eq!(code, 0, "{dir}: {stderr}");
        let bytes = std::fs::read(format!("{dir}/out/out.bin")).unwrap();
        assert!(bytes.iter().all(|&b| b == 0), "{dir}");
    }
}

/// Another wgmma may accumulate into in-flight D registers only with their shape, and may not use
/// them as A: both are `wgmma-register-before-wait` at the second wgmma, related to the first.
#[test]
fn wgmma_reusing_registers_in_flight_is_reported() {
    for dir in ["tests/run/wgmma_d_as_a", "tests/run/wgmma_two_shapes"] {
        let (code, stdout, stderr) = ptxrun(&["run", dir, "--format", "json"]);
        assert_eq!(code, 1, "{dir}: {stderr}");
        let v: serde_json::Value = serde_json::from_str(stdout.trim()).unwrap();
        let d = &v["diagnostics"][0];
        assert_eq!(d["kind"], "wgmma-register-before-wait", "{dir}");
        assert_eq!(
            (d["line"].clone(), d["related"][0]["line"].clone()),
            (39.into(), 38.into()),
            "{dir}"
        );
    }
}

/// A wgmma issued in one call frame and waited for in another frame of the same function (a
/// recursion) stops as unsupported instead of writing D into the wrong frame's registers.
#[test]
fn wgmma_waited_in_another_frame_is_unsupported() {
    for args in [&["run"][..], &["run", "--no-check"][..]] {
        let mut a = args.to_vec();
        a.push("tests/run/wgmma_recursion");
        let (code, _, stderr) = ptxrun(&a);
        assert_eq!(code, 2, "{stderr}");
        assert!(
            stderr.contains("another function or call frame"),
            "{stderr}"
        );
    }
}

/// `wgmma.mma_async` is aligned over the warpgroup: a warp that skips it is `divergent-aligned`
/// at the wgmma the other three executed.
#[test]
fn a_warp_skipping_the_warpgroup_wgmma_is_divergent_aligned() {
    let (code, _, stderr) = ptxrun(&["--color", "never", "run", "tests/run/wgmma_warp_skip"]);
    assert_eq!(code, 1, "{stderr}");
    assert!(
        stderr.contains("divergent-aligned")
            && stderr.contains("warp 3 of the warpgroup exited")
            && stderr.contains("kernel.ptx:37:3"),
        "{stderr}"
    );
}

#[test]
fn mbarrier_waits_return_false_as_the_h100s_do() {
    let words = |latency: &str| -> Vec<u64> {
        let dir = out_dir(&format!("wait-results-{latency}"));
        let (code, _, err) = ptxrun(&[
            "run",
            "tests/run/wait_results",
            "--latency",
            latency,
            "--out-dir",
            &dir,
        ]);
        assert_eq!(code, 0, "{err}");
        let b = std::fs::read(Path::new(&dir).join("out/out.bin")).unwrap();
        b.chunks(8)
            .map(|c| u64::from_le_bytes(c.try_into().unwrap()))
            .collect()
    };
    // test_wait false at once; try_wait false after the H100's 7,771 cycles (+ the clock read).
    let w = words("bandwidth");
    assert_eq!((w[0], w[1], w[3]), (0, 0, 1));
    assert!((7771..7800).contains(&w[2]), "{w:?}");
    // The adversarial model's try_wait gives up at once.
    let w = words("adversarial");
    assert_eq!((w[0], w[1], w[3]), (0, 0, 1));
    assert!(w[2] < 10, "{w:?}");
    // A try_wait whose result is ignored: the reads after it are found by `run` (the H100's time
    // limit) and by `check`; its twin with the wait in a loop is clean.
    let (code, out, _) = ptxrun(&[
        "run",
        "ptx-samples/hazards/try_wait_ignored",
        "--format",
        "json",
        "--no-check",
    ]);
    assert_eq!(code, 0, "{out}");
    let (code, out, _) = ptxrun(&[
        "run",
        "ptx-samples/hazards/try_wait_ignored",
        "--format",
        "json",
    ]);
    assert_eq!(code, 1);
    assert!(
        out.contains("\"kind\":\"read-before-complete\"")
            && out.contains("\"instruction\":\"ld.shared.u32"),
        "{out}"
    );
    let (code, _, _) = ptxrun(&[
        "check",
        "ptx-samples/hazards/try_wait_ignored",
        "--explore",
        "5",
        "--latency",
        "adversarial",
    ]);
    assert_eq!(code, 1);
    let (code, _, err) = ptxrun(&[
        "check",
        "ptx-samples/checker/try_wait_loop",
        "--explore",
        "10",
    ]);
    assert_eq!(code, 0, "{err}");
}

#[test]
fn dead_cluster_peers_and_unpublished_tensor_maps_are_found() {
    // A peer read after CTA rank 0 exited stops the run, as the H100 fails the launch.
    let (code, out, _) = ptxrun(&[
        "run",
        "ptx-samples/hazards/dsmem_after_exit",
        "--format",
        "json",
    ]);
    assert_eq!(code, 1);
    assert!(
        out.contains("\"kind\":\"dsmem-access-after-exit\"") && out.contains("\"line\":76"),
        "{out}"
    );
    // One that happens before the exit, but is not ordered before it, is found by happens-before.
    let (code, out, _) = ptxrun(&["run", "tests/run/dsmem_unordered", "--format", "json"]);
    assert_eq!(code, 1);
    let v: serde_json::Value = serde_json::from_str(&out).unwrap();
    let d = &v["diagnostics"][0];
    assert_eq!(
        (d["kind"].as_str(), d["line"].as_u64()),
        (Some("dsmem-access-after-exit"), Some(78)),
        "{out}"
    );
    assert_eq!(d["related"][0]["label"], "CTA rank 0 exits here");
    // A final cluster barrier keeps the peer alive.
    let (code, _, err) = ptxrun(&[
        "check",
        "ptx-samples/checker/dsmem_final_sync",
        "--explore",
        "10",
    ]);
    assert_eq!(code, 0, "{err}");
    // A tensor map stored to global memory and used with no tensormap proxy fences.
    let (code, out, _) = ptxrun(&[
        "run",
        "ptx-samples/hazards/tensormap_no_fence",
        "--format",
        "json",
    ]);
    assert_eq!(code, 1);
    let v: serde_json::Value = serde_json::from_str(&out).unwrap();
    let d = &v["diagnostics"].as_array().unwrap();
    assert_eq!(d.len(), 1, "{out}");
    assert_eq!(
        (d[0]["kind"].as_str(), d[0]["line"].as_u64()),
        (Some("missing-tensormap-proxy-fence"), Some(160))
    );
    assert!(d[0]["related"][0]["label"]
        .as_str()
        .unwrap()
        .contains("ordinary store of the tensor map"));
    let (code, _, err) = ptxrun(&[
        "check",
        "ptx-samples/tensor/tensormap_update",
        "--explore",
        "10",
    ]);
    assert_eq!(code, 0, "{err}");
}

#[test]
fn absurd_numeric_options_are_bad_input_not_panics() {
    // The test binary is a debug build: an overflowing addition would panic (exit 101).
    let (code, _, err) = ptxrun(&[
        "run",
        "tests/run/trace_small",
        "--instruction-cycles",
        "9223372036854775807",
        "--out-dir",
        &out_dir("cycles-huge"),
    ]);
    assert_eq!(code, 2, "{err}");
    assert!(err.contains("must be 1 to 1048576"), "{err}");
    // The largest values accepted run to the end.
    let (code, _, err) = ptxrun(&[
        "run",
        "ptx-samples/bulk/hw_bulk_scale",
        "--instruction-cycles",
        "1048576",
        "--max-steps",
        "18446744073709551615",
        "--latency",
        "bandwidth:1073741824,1",
        "--out-dir",
        &out_dir("cycles-max"),
    ]);
    assert_eq!(code, 0, "{err}");
    for model in [
        "fixed:18446744073709551615",
        "uniform:1-18446744073709551615",
        "bandwidth:18446744073709551615,18446744073709551615",
        "fixed:99999999999999999999999",
    ] {
        let (code, _, err) = ptxrun(&["run", "tests/run/trace_small", "--latency", model]);
        assert_eq!(code, 2, "{model}: {err}");
        assert!(err.contains("--latency"), "{model}: {err}");
    }
    // Seeds wrap; a huge exploration or thread count is refused before anything starts.
    let (code, _, err) = ptxrun(&[
        "check",
        "tests/run/trace_small",
        "--explore",
        "6",
        "--seed",
        "18446744073709551615",
    ]);
    assert_eq!(code, 0, "{err}");
    let (code, _, err) = ptxrun(&[
        "check",
        "tests/run/trace_small",
        "--explore",
        "18446744073709551615",
    ]);
    assert_eq!(code, 2, "{err}");
    assert!(err.contains("at most 1048576"), "{err}");
    for cmd in ["run", "check", "test"] {
        let (code, _, err) = ptxrun(&[
            cmd,
            "tests/run/trace_small",
            "--jobs",
            "18446744073709551615",
        ]);
        assert_eq!(code, 2, "{cmd}: {err}");
        assert!(err.contains("0 (every core) to 1024"), "{cmd}: {err}");
    }
}

#[test]
fn b128_forms_ptxas_accepts_load_but_do_not_run() {
    let dir = launch_dir(
        "b128-run",
        "kernel = \"kernel.ptx\"\ngrid = 1\nblock = 32\n\n[[params]]\nbuffer = \"p\"\ntype = \"u32\"\nlen = 64\ninit = \"zeros\"\n",
        &[(
            "kernel.ptx",
            &std::fs::read("tests/valid/b128_forms.ptx").unwrap(),
        )],
    );
    let (code, _, err) = ptxrun(&["run", &dir.display().to_string()]);
    assert_eq!(code, 2, "{err}");
    assert!(
        err.contains("`ld.global.b128` is not supported by ptxrun yet"),
        "{err}"
    );
}

#[test]
fn writes_into_an_exited_peer_cta_are_found() {
    // Rank 1 writes into rank 0's shared memory after rank 0 exited: each kind of write stops
    // the run (exit 1) at the write, as the H100 fails the launch.
    for (entry, line) in [
        ("store_after_exit", 39),
        ("atom_after_exit", 72),
        ("red_after_exit", 105),
        ("st_async_after_exit", 143),
    ] {
        let (code, out, err) = ptxrun(&[
            "run",
            "tests/run/dsmem_write_after_exit",
            "--entry",
            entry,
            "--format",
            "json",
        ]);
        assert_eq!(code, 1, "{entry}: {err}");
        let v: serde_json::Value = serde_json::from_str(&out).unwrap();
        let d = &v["diagnostics"][0];
        assert_eq!(
            (d["kind"].as_str(), d["line"].as_u64()),
            (Some("dsmem-access-after-exit"), Some(line)),
            "{entry}: {out}"
        );
        // Under every schedule the write is found, before or after the exit.
        let (code, out, _) = ptxrun(&[
            "check",
            "tests/run/dsmem_write_after_exit",
            "--entry",
            entry,
            "--explore",
            "10",
            "--format",
            "json",
        ]);
        assert_eq!(code, 1, "{entry}: {out}");
        assert!(out.contains("dsmem-access-after-exit"), "{entry}: {out}");
    }
}

#[test]
fn a_cta_exiting_before_its_async_operations_is_found() {
    // The copy may still read or write the CTA's shared memory after the exit frees it.
    for (entry, exit_line, copy_line) in [
        ("exit_before_async_done", 47, 44),
        ("exit_before_bulk_load_done", 72, 70),
        ("exit_before_cp_async_done", 92, 90),
    ] {
        for latency in ["immediate", "adversarial"] {
            let (code, out, err) = ptxrun(&[
                "run",
                "tests/run/exit_before_async_done",
                "--entry",
                entry,
                "--latency",
                latency,
                "--format",
                "json",
                "--out-dir",
                &out_dir("exit-before-async"),
            ]);
            assert_eq!(code, 1, "{entry} {latency}: {err}");
            let v: serde_json::Value = serde_json::from_str(&out).unwrap();
            let d = &v["diagnostics"][0];
            assert_eq!(
                (d["kind"].as_str(), d["line"].as_u64()),
                (Some("dsmem-access-after-exit"), Some(exit_line)),
                "{entry} {latency}: {out}"
            );
            assert_eq!(
                d["related"][0]["line"].as_u64(),
                Some(copy_line),
                "{entry}: {out}"
            );
        }
    }
    // A peer's st.async into a CTA that exits without waiting on the mbarrier tracking it,
    // issued while that CTA still runs: found at the exit under every schedule.
    let (code, out, _) = ptxrun(&[
        "check",
        "tests/run/dsmem_write_after_exit",
        "--entry",
        "st_async_before_exit",
        "--explore",
        "10",
        "--format",
        "json",
    ]);
    assert_eq!(code, 1, "{out}");
    let v: serde_json::Value = serde_json::from_str(&out).unwrap();
    let d = &v["diagnostics"][0];
    assert_eq!(
        (d["kind"].as_str(), d["line"].as_u64()),
        (Some("dsmem-access-after-exit"), Some(191)),
        "{out}"
    );
    assert_eq!(d["related"][0]["line"].as_u64(), Some(181), "{out}");
    // The twin that waits with cp.async.bulk.wait_group.read is clean under every schedule.
    let (code, _, err) = ptxrun(&[
        "check",
        "tests/run/exit_after_async_done",
        "--explore",
        "20",
    ]);
    assert_eq!(code, 0, "{err}");
    let (code, out, err) = ptxrun(&[
        "test",
        "tests/run/exit_after_async_done",
        "tests/run/exit_before_async_done",
    ]);
    assert_eq!(code, 0, "{out}{err}");
}

#[test]
fn an_atomic_on_local_memory_is_a_fault_naming_address_and_space() {
    let (code, _, err) = ptxrun(&[
        "run",
        "tests/run/atom_local",
        "--out-dir",
        &out_dir("atom-local"),
    ]);
    assert_eq!(code, 1, "{err}");
    assert!(
        err.contains("`atom.add.u32` at address")
            && err.contains("which is local memory (local+0x0)")
            && err.contains("kernel.ptx:17"),
        "{err}"
    );
}

/// `mma.sp` is `.sync.aligned` like `mma`: half a warp executing it is `divergent-aligned` at
/// its line.
#[test]
fn mma_sp_by_half_a_warp_is_divergent_aligned() {
    let (code, _, stderr) = ptxrun(&["--color", "never", "run", "tests/run/mma_sp_divergent"]);
    assert_eq!(code, 1, "{stderr}");
    assert!(
        stderr.contains("divergent-aligned")
            && stderr.contains("lanes 0x0000ffff")
            && stderr.contains("kernel.ptx:22:5"),
        "{stderr}"
    );
}

/// Sparse metadata the ISA leaves undefined (two equal indices) stops the run naming the lane,
/// row and chunk; the unselected lanes' metadata (zeros, also undefined) is not read.
#[test]
fn undefined_sparse_metadata_is_a_hazard_naming_its_lane() {
    let (code, _, stderr) = ptxrun(&["--color", "never", "run", "tests/run/mma_sp_metadata"]);
    assert_eq!(code, 1, "{stderr}");
    assert!(
        stderr.contains("invalid-sparse-metadata")
            && stderr.contains("nibble 0b0101 of lane 8 (row 2, chunk 0 of A)")
            && stderr.contains("thread [8, 0, 0]")
            && stderr.contains("kernel.ptx:24:5"),
        "{stderr}"
    );
}

/// Sparsity selectors 2 and 3 of the m16n8k32 f16 form with f32 accumulators: ptxas takes them,
/// the H100 refuses them at run time; ptxrun stops as unsupported, saying so.
#[test]
fn mma_sp_selector_the_gpu_refuses_is_unsupported() {
    let (code, _, stderr) = ptxrun(&["--color", "never", "run", "tests/run/mma_sp_selector"]);
    assert_eq!(code, 2, "{stderr}");
    assert!(
        stderr.contains("selectors 2 and 3")
            && stderr.contains("illegal-instruction")
            && stderr.contains("kernel.ptx:20:5"),
        "{stderr}"
    );
}

/// The metadata operand may be a brace list of one register, as ptxas allows: it is read like
/// the register (eight kept products of ones: every element of D is 8).
#[test]
fn mma_sp_metadata_in_braces_is_read() {
    let dir = out_dir("mma-sp-brace");
    let (code, _, stderr) = ptxrun(&["run", "tests/run/mma_sp_brace_meta", "--out-dir", &dir]);
    assert_eq!(code, 0, "{stderr}");
    let bytes = std::fs::read(Path::new(&dir).join("out.bin")).unwrap();
    let d: Vec<f32> = bytes
        .chunks(4)
        .map(|b| f32::from_le_bytes([b[0], b[1], b[2], b[3]]))
        .collect();
    assert_eq!(d, vec![8.0; 32]);
}
