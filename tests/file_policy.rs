//! Launch files written by someone else: inputs stay in the launch file's tree and are regular
//! files of checked size, outputs stay under the output directory and never replace an input,
//! a run that is not clean writes nothing, `test` does not follow directory links; and the
//! memory and time budgets end a launch with a message (README "Files a launch may touch",
//! "Budgets").

use std::path::{Path, PathBuf};
use std::process::Command;

fn ptxrun_in(dir: &Path, args: &[&str]) -> (i32, String, String) {
    let out = Command::new(env!("CARGO_BIN_EXE_ptxrun"))
        .args(args)
        .current_dir(dir)
        .env("NO_COLOR", "1")
        .env("PTXRUN_CANARY", "canary-secret-7f3a")
        .output()
        .expect("run ptxrun");
    (
        out.status.code().unwrap_or(-1),
        String::from_utf8_lossy(&out.stdout).into_owned(),
        String::from_utf8_lossy(&out.stderr).into_owned(),
    )
}

const KERNEL: &str = r#"
.version 8.0
.target sm_80
.address_size 64
.visible .entry copy(.param .u64 a, .param .u64 c)
{
    .reg .b32 %r<3>;
    .reg .b64 %rd<6>;
    ld.param.u64 %rd1, [a];
    ld.param.u64 %rd2, [c];
    mov.u32 %r1, %tid.x;
    mul.wide.u32 %rd3, %r1, 4;
    add.s64 %rd4, %rd1, %rd3;
    ld.global.u32 %r2, [%rd4];
    add.s64 %rd5, %rd2, %rd3;
    st.global.u32 [%rd5], %r2;
    ret;
}
"#;

/// A fresh directory `target/file-policy/NAME/launch` holding a small launch (a copy kernel,
/// an init file, an output and its expected contents) whose launch file starts with `extra`;
/// the parent directory is the "outside".
fn sample(name: &str, extra: &str) -> PathBuf {
    let root = Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("target/file-policy")
        .join(name);
    let _ = std::fs::remove_dir_all(&root);
    let dir = root.join("launch");
    std::fs::create_dir_all(dir.join("expected")).unwrap();
    std::fs::create_dir_all(dir.join("inputs")).unwrap();
    std::fs::write(dir.join("kernel.ptx"), KERNEL).unwrap();
    let data: Vec<u8> = (0u32..32).flat_map(|v| (v * 3 + 1).to_le_bytes()).collect();
    std::fs::write(dir.join("inputs/a.bin"), &data).unwrap();
    std::fs::write(dir.join("expected/c.bin"), &data).unwrap();
    let toml = r#"grid = 1
block = 32

[[params]]
buffer = "a"
type = "u32"
len = 32
init = "inputs/a.bin"

[[params]]
buffer = "c"
type = "u32"
len = 32

[outputs]
c = "out/c.bin"

[expect.outputs]
c = "expected/c.bin"
"#;
    std::fs::write(dir.join("launch.toml"), format!("{extra}\n{toml}")).unwrap();
    dir
}

fn set_output(dir: &Path, path: &str) {
    let toml = std::fs::read_to_string(dir.join("launch.toml")).unwrap();
    let mut out = String::new();
    let mut in_outputs = false;
    for line in toml.lines() {
        if line.starts_with('[') {
            in_outputs = line == "[outputs]";
        }
        if in_outputs && line.starts_with("c =") {
            out.push_str(&format!("c = {path:?}\n"));
        } else {
            out.push_str(line);
            out.push('\n');
        }
    }
    std::fs::write(dir.join("launch.toml"), out).unwrap();
}

#[test]
fn the_sample_copy_runs_and_writes_its_output() {
    let dir = sample("baseline", "");
    let (code, stdout, err) = ptxrun_in(&dir, &["run", "."]);
    assert_eq!(code, 0, "{err}");
    assert!(
        stdout.contains("no hazards on the schedule it ran"),
        "{stdout}"
    );
    assert!(stdout.contains("wrote "), "{stdout}");
    assert_eq!(
        std::fs::read(dir.join("out/c.bin")).unwrap(),
        std::fs::read(dir.join("expected/c.bin")).unwrap()
    );
    // No temporary file is left beside it.
    let names: Vec<_> = std::fs::read_dir(dir.join("out")).unwrap().collect();
    assert_eq!(names.len(), 1);
}

#[test]
fn outputs_cannot_leave_the_output_directory() {
    for (name, path) in [
        ("dotdot", "../escaped.bin"),
        ("deep", "out/../../escaped.bin"),
        ("absolute", "/tmp/ptxrun-file-policy-escaped.bin"),
    ] {
        let dir = sample(name, "");
        set_output(&dir, path);
        for args in [vec!["run", "."], vec!["run", ".", "--out-dir", "elsewhere"]] {
            let (code, _, err) = ptxrun_in(&dir, &args);
            assert_eq!(code, 2, "{name}: {err}");
            assert!(err.contains("outputs.c"), "{name}: {err}");
        }
        assert!(!dir.parent().unwrap().join("escaped.bin").exists());
    }
    assert!(!Path::new("/tmp/ptxrun-file-policy-escaped.bin").exists());
}

#[cfg(unix)]
#[test]
fn outputs_do_not_follow_links_out_or_replace_inputs() {
    let dir = sample("link-out", "");
    let outside = dir.parent().unwrap().join("outside");
    std::fs::create_dir_all(&outside).unwrap();
    std::os::unix::fs::symlink(&outside, dir.join("out")).unwrap();
    let (code, _, err) = ptxrun_in(&dir, &["run", "."]);
    assert_eq!(code, 2, "{err}");
    assert!(err.contains("leads outside"), "{err}");
    assert_eq!(std::fs::read_dir(&outside).unwrap().count(), 0);

    // A link in the output's own place that leads out (even to nothing) is refused too.
    let dir = sample("file-link-out", "");
    std::fs::create_dir_all(dir.join("out")).unwrap();
    std::os::unix::fs::symlink(outside.join("victim.bin"), dir.join("out/c.bin")).unwrap();
    let (code, _, err) = ptxrun_in(&dir, &["run", "."]);
    assert_eq!(code, 2, "{err}");
    assert!(err.contains("symbolic link that leads outside"), "{err}");
    assert!(!outside.join("victim.bin").exists());

    for target in ["kernel.ptx", "launch.toml", "expected/c.bin"] {
        let dir = sample("over-input", "");
        set_output(&dir, target);
        let before = std::fs::read(dir.join(target)).unwrap();
        let (code, _, err) = ptxrun_in(&dir, &["run", "."]);
        assert_eq!(code, 2, "{target}: {err}");
        assert!(
            err.contains("one of the launch's inputs"),
            "{target}: {err}"
        );
        assert_eq!(std::fs::read(dir.join(target)).unwrap(), before);
    }
}

#[test]
fn inputs_outside_the_tree_are_refused_without_showing_them() {
    let dir = sample("kernel-outside", "");
    let toml = std::fs::read_to_string(dir.join("launch.toml")).unwrap();
    std::fs::write(
        dir.join("launch.toml"),
        format!("kernel = \"/etc/passwd\"\n{toml}"),
    )
    .unwrap();
    let (code, out, err) = ptxrun_in(&dir, &["run", "."]);
    assert_eq!(code, 2, "{err}");
    assert!(err.contains("outside the launch file's directory"), "{err}");
    assert!(!err.contains("root:") && !out.contains("root:"), "{err}");
    // --allow-path lets it in (it then fails as PTX, which is the user's choice).
    let (code, _, _) = ptxrun_in(&dir, &["run", ".", "--allow-path", "/etc"]);
    assert_eq!(code, 2);

    let dir = sample("init-environ", "");
    let toml = std::fs::read_to_string(dir.join("launch.toml"))
        .unwrap()
        .replacen("init = ", "init = \"/proc/self/environ\" # ", 1);
    std::fs::write(dir.join("launch.toml"), toml).unwrap();
    let (code, out, err) = ptxrun_in(&dir, &["run", "."]);
    assert_eq!(code, 2, "{err}");
    assert!(!err.contains("canary-secret") && !out.contains("canary-secret"));
    assert!(!dir.join("out").exists());
}

#[cfg(unix)]
#[test]
fn inputs_must_be_regular_files_of_checked_size() {
    // A FIFO would block forever on open; a huge sparse file would be read whole.
    let dir = sample("fifo", "");
    let fifo = dir.join("in.fifo");
    assert!(Command::new("mkfifo")
        .arg(&fifo)
        .status()
        .unwrap()
        .success());
    let toml = std::fs::read_to_string(dir.join("launch.toml"))
        .unwrap()
        .replacen("init = ", "init = \"in.fifo\" # ", 1);
    std::fs::write(dir.join("launch.toml"), &toml).unwrap();
    let (code, _, err) = ptxrun_in(&dir, &["run", "."]);
    assert_eq!(code, 2, "{err}");
    assert!(err.contains("not a regular file"), "{err}");

    let big = std::fs::File::create(dir.join("in.fifo.big")).unwrap();
    big.set_len(50 << 30).unwrap();
    std::fs::write(
        dir.join("launch.toml"),
        toml.replace("\"in.fifo\"", "\"in.fifo.big\""),
    )
    .unwrap();
    let t = std::time::Instant::now();
    let (code, _, err) = ptxrun_in(&dir, &["run", "."]);
    assert_eq!(code, 2, "{err}");
    assert!(err.contains("more than the"), "{err}");
    assert!(t.elapsed().as_secs() < 30);
}

#[test]
fn a_run_that_is_not_clean_writes_no_outputs() {
    let out = Path::new(env!("CARGO_MANIFEST_DIR")).join("target/file-policy/oob-out");
    let _ = std::fs::remove_dir_all(&out);
    let (code, stdout, _) = ptxrun_in(
        Path::new(env!("CARGO_MANIFEST_DIR")),
        &[
            "run",
            "tests/run/oob",
            "--out-dir",
            "target/file-policy/oob-out",
        ],
    );
    assert_eq!(code, 1);
    assert!(stdout.contains("outputs not written"), "{stdout}");
    assert!(!Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("target/file-policy/oob-out")
        .exists());
}

#[cfg(unix)]
#[test]
fn test_does_not_follow_directory_links() {
    let dir = sample("test-loop", "");
    std::os::unix::fs::symlink(".", dir.join("loop")).unwrap();
    std::os::unix::fs::symlink("..", dir.join("up")).unwrap();
    let (code, stdout, err) = ptxrun_in(&dir, &["test", "."]);
    assert_eq!(code, 0, "{stdout}{err}");
    assert!(stdout.contains("1 passed, 0 failed"), "{stdout}");
}

#[test]
fn launch_file_type_errors_name_the_field_and_shape() {
    let dir = sample("grid-string", "");
    let toml = std::fs::read_to_string(dir.join("launch.toml")).unwrap();
    let toml: String = toml
        .lines()
        .map(|l| {
            if l.starts_with("grid") {
                "grid = \"1\"".to_string()
            } else {
                l.to_string()
            }
        })
        .collect::<Vec<_>>()
        .join("\n");
    std::fs::write(dir.join("launch.toml"), toml).unwrap();
    let (code, _, err) = ptxrun_in(&dir, &["run", "."]);
    assert_eq!(code, 2);
    assert!(err.contains("`grid`") && err.contains("[x, y, z]"), "{err}");
}

#[test]
fn a_launch_over_the_memory_limit_is_bad_input_naming_what() {
    let root = Path::new(env!("CARGO_MANIFEST_DIR"));
    let (code, _, err) = ptxrun_in(
        root,
        &["run", "ptx-samples/core/atomics", "--memory-limit", "1K"],
    );
    assert_eq!(code, 2, "{err}");
    assert!(
        err.contains("buffers") && err.contains("memory limit"),
        "{err}"
    );
    // Enough for the buffers, not for the checker's shadow of them.
    let (code, _, err) = ptxrun_in(
        root,
        &[
            "run",
            "ptx-samples/core/sgemm_tiled",
            "--memory-limit",
            "200K",
            "--out-dir",
            "target/file-policy/budget",
        ],
    );
    assert_eq!(code, 2, "{err}");
    assert!(
        err.contains("memory-limit") && err.contains("shadow"),
        "{err}"
    );
    let (code, _, err) = ptxrun_in(
        root,
        &[
            "run",
            "ptx-samples/core/sgemm_tiled",
            "--memory-limit",
            "200K",
            "--no-check",
            "--out-dir",
            "target/file-policy/budget",
        ],
    );
    assert_eq!(code, 0, "{err}");
}

/// Exploring keeps copies of the buffers beside each run's (sgemm_tiled's are 40 KiB): a limit
/// that one run fits but three copies do not is bad input before anything runs, not an
/// allocation failure (a fuzzed 2 GiB buffer under `ulimit -v` once aborted the process).
#[test]
fn exploring_counts_the_copies_of_the_buffers_it_keeps() {
    let root = Path::new(env!("CARGO_MANIFEST_DIR"));
    let run = |args: &[&str]| ptxrun_in(root, args);
    let (code, _, err) = run(&[
        "run",
        "ptx-samples/core/sgemm_tiled",
        "--memory-limit",
        "100K",
        "--no-check",
        "--out-dir",
        "target/file-policy/copies",
    ]);
    assert_eq!(code, 0, "{err}");
    let (code, _, err) = run(&[
        "check",
        "ptx-samples/core/sgemm_tiled",
        "--explore",
        "2",
        "--memory-limit",
        "100K",
    ]);
    assert_eq!(code, 2, "{err}");
    assert!(
        err.contains("three copies") && err.contains("40.0 KiB each"),
        "{err}"
    );
    let (code, _, err) = run(&[
        "check",
        "ptx-samples/core/sgemm_tiled",
        "--explore",
        "2",
        "--memory-limit",
        "3M",
    ]);
    assert_eq!(code, 0, "{err}");
}

#[test]
fn timeouts_and_unwritable_traces_end_a_run_early() {
    let root = Path::new(env!("CARGO_MANIFEST_DIR"));
    let t = std::time::Instant::now();
    let (code, _, err) = ptxrun_in(
        root,
        &["run", "tests/run/count_forever", "--timeout", "0.5"],
    );
    assert_eq!(code, 1, "{err}");
    assert!(err.contains("timeout"), "{err}");
    assert!(t.elapsed().as_secs() < 60);
    let (code, _, err) = ptxrun_in(
        root,
        &[
            "run",
            "tests/run/spin",
            "--trace",
            "/nonexistent/dir/t.jsonl",
        ],
    );
    assert_eq!(code, 2, "{err}");
    assert!(err.contains("cannot write the trace"), "{err}");
}
