//! One launch file from file to report: load the launch file (`launch`), turn it into a launch
//! of the library facade (`api`: compile, lay out, run, report), write its `[outputs]`, and
//! check its `[expect]` for `ptxrun test` (`../shared/contract.md`: statuses, exit codes).

use crate::api::{self, Arg, Report, RunOptions};
use crate::exec::Outcome;
use crate::ir::Type;
use crate::launch::{self, Launch, LaunchParam};
use std::path::{Path, PathBuf};

/// Bad input (exit 2): a message ready to print.
#[derive(Debug, Clone)]
pub struct BadInput(pub String);

impl From<api::Error> for BadInput {
    fn from(e: api::Error) -> Self {
        BadInput(e.message().to_string())
    }
}

impl From<launch::LaunchError> for BadInput {
    fn from(e: launch::LaunchError) -> Self {
        BadInput(e.0)
    }
}

pub struct Settings {
    pub entry: Option<String>,
    pub seed: u64,
    pub max_steps: u64,
    pub instruction_cycles: u64,
    pub out_dir: Option<PathBuf>,
    /// Write `[outputs]` files.
    pub write_outputs: bool,
    /// `--latency`: a model spec (`latency::parse`).
    pub latency: String,
    /// Record a trace (written by the caller from `Outcome::trace`); with every instruction.
    pub trace: bool,
    pub trace_instructions: bool,
    /// Where the trace is written as it is made (else it is kept in the outcome).
    pub trace_to: Option<crate::trace::TraceSink>,
    /// Check for hazards (happens-before); `--no-check` turns it off.
    pub check: bool,
    /// Use the fast forms of hot instructions (only tests turn this off, to compare).
    pub fast: bool,
    /// Compile a straight run once its instructions have been interpreted this many times
    /// each on average (`None`, `--no-jit`: interpret all).
    pub jit: Option<u32>,
    /// Check invariants of the fast paths as the run goes (tests only; `RunOptions::verify`).
    pub verify: bool,
    /// Threads to run clusters on (`--jobs`); the results do not depend on it.
    pub jobs: usize,
    /// `--deny warnings` and `--suppressions`; a launch file's `[check] allow` is added to it.
    pub policy: crate::report::Policy,
    /// `--allow-path`: directories inputs may come from besides the launch file's tree.
    pub allow_paths: Vec<PathBuf>,
    /// `--timeout` (per run) and `--memory-limit` (`None`: the default budget).
    pub timeout: Option<std::time::Duration>,
    pub memory_limit: Option<u64>,
    /// Set (by a Ctrl-C handler) to stop the run.
    pub cancel: Option<std::sync::Arc<std::sync::atomic::AtomicBool>>,
}

/// The step limit of `run`, `check` and `test` unless told otherwise (`--max-steps`).
pub const DEFAULT_MAX_STEPS: u64 = api::DEFAULT_MAX_STEPS;

/// The latency model `run` and `test` use unless told otherwise.
pub const DEFAULT_LATENCY: &str = api::DEFAULT_LATENCY;

impl Settings {
    /// What `ptxrun test` uses: no outputs written, no trace.
    pub fn for_test(seed: u64, latency: &str) -> Settings {
        Settings {
            entry: None,
            seed,
            max_steps: DEFAULT_MAX_STEPS,
            instruction_cycles: 1,
            out_dir: None,
            write_outputs: false,
            latency: latency.to_string(),
            trace: false,
            trace_instructions: false,
            trace_to: None,
            check: true,
            fast: true,
            jit: Some(api::JIT_AFTER),
            verify: false,
            jobs: 1,
            policy: crate::report::Policy::default(),
            allow_paths: Vec::new(),
            timeout: None,
            memory_limit: None,
            cancel: None,
        }
    }

    /// The findings policy for a launch: these settings' rules and its `[check] allow`.
    pub fn policy_for(&self, launch: &Launch) -> crate::report::Policy {
        let mut p = self.policy.clone();
        p.rules.extend(launch.allow.iter().cloned());
        p
    }
}

impl Settings {
    /// The facade's options for these settings.
    pub fn options(&self) -> RunOptions {
        RunOptions {
            seed: self.seed,
            latency: self.latency.clone(),
            check: self.check,
            max_steps: self.max_steps,
            instruction_cycles: self.instruction_cycles,
            trace: self.trace,
            trace_instructions: self.trace_instructions,
            trace_to: self.trace_to.clone(),
            fast: self.fast,
            jit: self.jit,
            verify: self.verify,
            jobs: self.jobs.max(1),
            cancel: self.cancel.clone(),
            timeout: self.timeout,
            memory_limit: self.memory_limit,
            ..RunOptions::default()
        }
    }
}

/// A finished run of a launch file: the report, and the launch file (its outputs and
/// expectations).
pub struct Finished {
    pub launch: Launch,
    pub report: Report,
    /// The `[outputs]` files written (none unless the run was clean and `run` was asked to).
    pub written: Vec<PathBuf>,
}

impl std::ops::Deref for Finished {
    type Target = Report;
    fn deref(&self) -> &Report {
        &self.report
    }
}

/// A launch file ready to run: the launch file and the facade's prepared launch. `check
/// --explore` runs one under many schedules.
#[derive(Clone)]
pub struct Prepared {
    pub launch: Launch,
    pub prepared: api::Prepared,
}

impl std::ops::Deref for Prepared {
    type Target = api::Prepared;
    fn deref(&self) -> &api::Prepared {
        &self.prepared
    }
}

impl std::ops::DerefMut for Prepared {
    fn deref_mut(&mut self) -> &mut api::Prepared {
        &mut self.prepared
    }
}

impl Prepared {
    /// The launch with the outcome of one of its runs, judged by `policy`.
    pub fn finished(self, outcome: Outcome, policy: crate::report::Policy) -> Finished {
        Finished {
            report: self.prepared.report(outcome).with_policy(policy),
            launch: self.launch,
            written: Vec::new(),
        }
    }
}

/// Loads and compiles a launch file and lays the launch out through the facade; the
/// settings' `entry` overrides the launch file's, their `allow_paths` widen where inputs may
/// come from.
pub fn prepare(path: &Path, s: &Settings) -> Result<Prepared, BadInput> {
    let mut launch = launch::load(path, &s.allow_paths)?;
    let module = api::Module::from_file(&launch.kernel)?;
    let kernel = module.kernel(s.entry.as_deref().or(launch.entry.as_deref()))?;
    let launch_file = launch.dir.join("launch.toml").display().to_string();
    let spec = launch_spec(&mut launch, &launch_file)?;
    let prepared = kernel
        .prepare_owned(spec)
        .map_err(|e| BadInput(format!("{launch_file}: {e}")))?;
    Ok(Prepared { launch, prepared })
}

/// The facade's launch for a launch file: buffers first (a tensor map may describe a buffer
/// declared after it), in parameter order, then the arguments. The buffers' initial bytes
/// move into it (a buffer may be gigabytes: it is never copied).
fn launch_spec(launch: &mut Launch, launch_file: &str) -> Result<api::Launch, BadInput> {
    let mut buffers = Vec::new();
    for lp in &mut launch.params {
        take_buffers(lp, &mut buffers);
    }
    let mut args = Vec::new();
    for (i, lp) in launch.params.iter().enumerate() {
        args.push(
            arg_of(lp, &buffers).map_err(|e| BadInput(format!("{launch_file}: params[{i}]{e}")))?,
        );
    }
    Ok(api::Launch {
        grid: launch.grid,
        block: launch.block,
        cluster: launch.cluster,
        dynamic_shared_bytes: launch.dynamic_shared_bytes,
        cooperative: launch.cooperative,
        buffers,
        args,
    })
}

/// Moves the buffers an entry declares (its fields' too) into `out`.
fn take_buffers(lp: &mut LaunchParam, out: &mut Vec<api::Buffer>) {
    let (name, ty, data) = match lp {
        LaunchParam::Buffer { name, ty, data } => (name, *ty, data),
        LaunchParam::TensorMap {
            buffer,
            created: Some((ty, data)),
            ..
        }
        | LaunchParam::Texture {
            buffer,
            created: Some((ty, data)),
            ..
        } => (buffer, *ty, data),
        LaunchParam::Struct { fields, .. } => {
            for (_, f) in fields {
                take_buffers(f, out);
            }
            return;
        }
        _ => return,
    };
    out.push(api::Buffer {
        name: name.clone(),
        ty,
        data: std::mem::take(data),
    });
}

/// The facade's argument for an entry; errors continue `params[i]`.
fn arg_of(lp: &LaunchParam, buffers: &[api::Buffer]) -> Result<Arg, String> {
    let index = |name: &str, key: &str| {
        buffers
            .iter()
            .position(|b| b.name == name)
            .ok_or_else(|| format!(".{key}: no buffer `{name}`"))
    };
    Ok(match lp {
        LaunchParam::Buffer { name, .. } | LaunchParam::Pointer { buffer: name } => {
            Arg::buffer(index(name, "buffer")?)
        }
        LaunchParam::Scalar { bytes, .. } => Arg::Bytes(bytes.clone()),
        LaunchParam::TensorMap { buffer, map, .. } => Arg::TensorMap {
            buffer: index(buffer, "tensormap")?,
            offset: 0,
            map: map.clone(),
        },
        LaunchParam::Texture { buffer, object, .. } => Arg::Texture {
            buffer: index(buffer, if object.surface { "surface" } else { "texture" })?,
            offset: 0,
            object: object.clone(),
        },
        LaunchParam::Struct { bytes, fields } => Arg::Struct {
            bytes: bytes.clone(),
            fields: fields
                .iter()
                .enumerate()
                .map(|(i, (off, f))| {
                    arg_of(f, buffers)
                        .map(|a| (*off, a))
                        .map_err(|e| format!(".fields[{i}]{e}"))
                })
                .collect::<Result<_, _>>()?,
        },
    })
}

/// Runs a prepared launch under the settings' schedule (seed, latency model, checking).
pub fn execute(p: &Prepared, s: &Settings) -> Result<Outcome, BadInput> {
    Ok(p.prepared.execute(&s.options())?)
}

/// Runs one launch: prepare, execute, and write the `[outputs]` files if asked and the run
/// was clean.
pub fn run(path: &Path, s: &Settings) -> Result<Finished, BadInput> {
    let mut p = prepare(path, s)?;
    // One run: it may take the laid-out memory instead of copying it.
    let outcome = p.prepared.execute_once(&s.options())?;
    let policy = s.policy_for(&p.launch);
    let mut done = p.finished(outcome, policy);
    if s.write_outputs && !done.failed() && !done.unsupported() {
        done.written = write_outputs(&done, s.out_dir.as_deref())?;
    }
    Ok(done)
}

/// Writes a clean run's `[outputs]` under the launch directory or `out_dir`, all or none
/// (`crate::files`); the paths written.
fn write_outputs(done: &Finished, out_dir: Option<&Path>) -> Result<Vec<PathBuf>, BadInput> {
    let mut files = Vec::new();
    for (name, rel) in &done.launch.outputs {
        let ty = done
            .buffers
            .iter()
            .find(|b| &b.0 == name)
            .map_or(Type::U8, |b| b.1);
        let data = done.buffer(name).unwrap_or_default();
        files.push((
            rel.as_path(),
            launch::output_header(rel, ty, data.len()),
            data,
        ));
    }
    let out = crate::files::Outputs {
        base: out_dir.unwrap_or(&done.launch.dir),
        protected: &done.launch.inputs,
    };
    out.write(files).map_err(BadInput)
}

/// Outcome of one sample under `ptxrun test`.
pub enum Verdict {
    Pass,
    Fail(String),
    /// Bad input (invalid launch file or PTX, unsupported instruction): counts as a failure.
    Error(String),
}

/// Runs one launch (default latency model) and checks its `[expect]`.
pub fn test_one(path: &Path, seed: u64) -> Verdict {
    test_with(path, &Settings::for_test(seed, DEFAULT_LATENCY))
}

/// Runs one launch with these settings and checks its `[expect]`.
pub fn test_with(path: &Path, s: &Settings) -> Verdict {
    let done = match run(path, s) {
        Ok(d) => d,
        Err(e) => return Verdict::Error(e.0),
    };
    let e = &done.launch.expect;
    if let Some(h) = &e.hazard {
        return expected_hazard(&done, h);
    }
    if let Some(h) = done.outcome.hazards.iter().find(|h| done.fails(h)) {
        let (line, ..) = done.line_of(h.at);
        return Verdict::Fail(format!("{} at PTX line {line}: {}", h.kind, h.message));
    }
    if let Some(f) = &done.outcome.fault {
        if done.unsupported() {
            return Verdict::Error(f.message.clone());
        }
        let line =
            f.at.and_then(|at| done.compiled.src_of(at))
                .map_or(0, |s| s.line);
        return Verdict::Fail(format!(
            "{} at PTX line {line}: {}",
            f.kind.name(),
            f.message
        ));
    }
    if e.outputs.is_empty() && e.stdout.is_none() {
        return Verdict::Fail("[expect] names no outputs to compare".into());
    }
    for (name, file) in &e.outputs {
        let want = match crate::files::read_capped(file, MAX_EXPECTED) {
            Ok(w) => w,
            Err(err) => return Verdict::Error(format!("{}: {err}", file.display())),
        };
        let got = done.buffer(name).unwrap_or_default();
        let ty = done
            .buffers
            .iter()
            .find(|b| &b.0 == name)
            .map_or(Type::U8, |b| b.1);
        let tol = e.tolerance.iter().find(|(k, _)| k == name).map(|(_, t)| *t);
        if let Some(msg) = compare(got, &want, ty, tol) {
            return Verdict::Fail(format!("`{name}`: {msg}"));
        }
    }
    match &e.stdout {
        Some(file) => expected_stdout(&done, file),
        None => Verdict::Pass,
    }
}

/// `[expect] hazard`: the run must report hazard (or fault) `h`, at the pinned lines if any.
fn expected_hazard(done: &Finished, h: &str) -> Verdict {
    let e = &done.launch.expect;
    let want = hazard_kind(h);
    let found: Vec<&str> = done
        .outcome
        .hazards
        .iter()
        .map(|x| x.kind.as_str())
        .chain(done.outcome.fault.iter().map(|f| f.kind.name()))
        .collect();
    if found.contains(&want) {
        pinned_lines(done, want, &e.line, &e.related)
    } else if found.is_empty() {
        Verdict::Fail(format!("expects hazard `{h}`, but the run was clean"))
    } else {
        Verdict::Fail(format!(
            "expects hazard `{h}`, the run reported {}",
            found.join(", ")
        ))
    }
}

/// `[expect] stdout`: the kernel's printf output must be `file`'s text exactly.
fn expected_stdout(done: &Finished, file: &Path) -> Verdict {
    let text = crate::files::read_capped(file, MAX_EXPECTED)
        .and_then(|b| String::from_utf8(b).map_err(std::io::Error::other));
    match text {
        Ok(want) if want == done.outcome.stdout => Verdict::Pass,
        Ok(want) => {
            let line = want
                .lines()
                .zip(done.outcome.stdout.lines())
                .position(|(a, b)| a != b)
                .unwrap_or(0);
            Verdict::Fail(format!(
                "stdout differs (first at line {}: expected {:?}, got {:?})",
                line + 1,
                want.lines().nth(line).unwrap_or(""),
                done.outcome.stdout.lines().nth(line).unwrap_or("")
            ))
        }
        Err(err) => Verdict::Error(format!("{}: {err}", file.display())),
    }
}

/// Largest expected file compared (its size was checked when the launch file was loaded).
const MAX_EXPECTED: u64 = 3 << 30;

/// The contract's name of an `[expect] hazard` kind. `write-after-read` (the name the project's
/// hardware cases use) is the contract's `async-write-after-read`.
pub fn hazard_kind(name: &str) -> &str {
    match name {
        "write-after-read" => "async-write-after-read",
        other => other,
    }
}

/// Where the run reported hazards of kind `want`: (line, related line) of each, in report order
/// (a fault of that kind has no related line).
fn reported_lines(done: &Report, want: &str) -> Vec<(usize, Option<usize>)> {
    let hazards = done
        .outcome
        .hazards
        .iter()
        .filter(|h| h.kind.as_str() == want);
    let lines = hazards.map(|h| {
        let related = h.related.first().map(|r| done.line_of(r.at).0);
        (done.line_of(h.at).0, related)
    });
    let fault = done.outcome.fault.iter().filter(|f| f.kind.name() == want);
    let fault_lines = fault.map(|f| {
        let line = f.at.map_or(0, |at| done.line_of(at).0);
        (line, None)
    });
    lines.chain(fault_lines).collect()
}

/// `[expect] line` / `related`: passes when one reported hazard of kind `want` is at one of those
/// lines (and has its related instruction at one of those); a data race's two accesses may be
/// reported either way round (which one runs second depends on the schedule). Else says which
/// lines were reported.
fn pinned_lines(done: &Report, want: &str, line: &[usize], related: &[usize]) -> Verdict {
    if line.is_empty() && related.is_empty() {
        return Verdict::Pass;
    }
    let reported = reported_lines(done, want);
    let pinned = |l: usize, r: Option<usize>| {
        (line.is_empty() || line.contains(&l))
            && (related.is_empty() || r.is_some_and(|r| related.contains(&r)))
    };
    let symmetric = want == crate::check::HazardKind::DataRace.as_str();
    let fits = |&(l, r): &(usize, Option<usize>)| {
        pinned(l, r) || (symmetric && r.is_some_and(|r| pinned(r, Some(l))))
    };
    if reported.iter().any(fits) {
        return Verdict::Pass;
    }
    let show = |(l, r): &(usize, Option<usize>)| match r {
        Some(r) => format!("line {l} (related line {r})"),
        None => format!("line {l} (no related line)"),
    };
    let list = |v: &[usize]| {
        let v: Vec<String> = v.iter().map(|n| n.to_string()).collect();
        v.join(" or ")
    };
    let mut at = Vec::new();
    if !line.is_empty() {
        at.push(format!("line {}", list(line)));
    }
    if !related.is_empty() {
        at.push(format!("related line {}", list(related)));
    }
    Verdict::Fail(format!(
        "expects hazard `{want}` at {}, the run reported it at {}",
        at.join(", "),
        reported.iter().map(show).collect::<Vec<_>>().join(", ")
    ))
}

/// `None` if equal (bit for bit, or within a relative tolerance for floats). The whole buffer is
/// compared: an expected file shorter than the buffer (an empty one, a truncated one) fails.
fn compare(got: &[u8], want: &[u8], ty: Type, tol: Option<f64>) -> Option<String> {
    if got.len() != want.len() {
        return Some(format!(
            "buffer has {} bytes, expected file {}",
            got.len(),
            want.len()
        ));
    }
    let es = ty.size().max(1) as usize;
    let mut bad = 0usize;
    let mut first = None;
    for (i, (g, w)) in got.chunks(es).zip(want.chunks(es)).enumerate() {
        if g == w {
            continue;
        }
        let ok = tol.is_some_and(|t| {
            let (x, y) = (as_f64(g, ty), as_f64(w, ty));
            (x.is_nan() && y.is_nan()) || (x - y).abs() <= t * y.abs().max(f64::MIN_POSITIVE)
        });
        if !ok {
            bad += 1;
            first.get_or_insert((i, g.to_vec(), w.to_vec()));
        }
    }
    first.map(|(i, g, w)| {
        format!(
            "{bad} of {} elements differ; first at element {i}: got {}, expected {}",
            want.len() / es,
            show(&g, ty),
            show(&w, ty)
        )
    })
}

fn as_f64(b: &[u8], ty: Type) -> f64 {
    let v = crate::mem::read_le(b);
    match ty {
        Type::F32 => f64::from(f32::from_bits(v as u32)),
        Type::F64 => f64::from_bits(v),
        Type::F16 => half::f16::from_bits(v as u16).to_f64(),
        Type::Bf16 => half::bf16::from_bits(v as u16).to_f64(),
        _ => v as f64,
    }
}

fn show(b: &[u8], ty: Type) -> String {
    let v = crate::mem::read_le(b);
    if ty.is_float() {
        format!("{} ({v:#x})", as_f64(b, ty))
    } else if ty.is_signed() {
        format!("{}", crate::exec::sext_pub(v, ty.size() * 8))
    } else {
        format!("{v} ({v:#x})")
    }
}

/// Every `launch.toml` under the paths, sorted. Symbolic links to directories inside them are
/// not followed (a link to `.` would walk forever, a link elsewhere leave the tree); a path
/// named on the command line is followed.
pub fn find_launches(paths: &[PathBuf]) -> Vec<PathBuf> {
    fn walk(p: &Path, out: &mut Vec<PathBuf>) {
        if p.is_file() {
            if p.file_name().is_some_and(|n| n == "launch.toml") {
                out.push(p.to_path_buf());
            }
            return;
        }
        let Ok(rd) = std::fs::read_dir(p) else { return };
        let mut entries: Vec<PathBuf> = rd
            .filter_map(Result::ok)
            .filter(|e| !(e.file_type().is_ok_and(|t| t.is_symlink()) && e.path().is_dir()))
            .map(|e| e.path())
            .collect();
        entries.sort();
        for e in entries {
            walk(&e, out);
        }
    }
    let mut out = Vec::new();
    for p in paths {
        walk(p, &mut out);
    }
    // A launch named twice (`test x x/launch.toml`) runs once.
    let mut seen = std::collections::BTreeSet::new();
    out.retain(|l| seen.insert(std::fs::canonicalize(l).unwrap_or_else(|_| l.clone())));
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_whole_buffer_is_compared() {
        let got = [1u8, 0, 0, 0, 2, 0, 0, 0];
        assert_eq!(compare(&got, &got, Type::U32, None), None);
        // An empty or truncated expected file is no golden output.
        for want in [&got[..0], &got[..4]] {
            let msg = compare(&got, want, Type::U32, None).unwrap();
            assert!(msg.contains("buffer has 8 bytes"), "{msg}");
        }
        let msg = compare(&got, &[1, 0, 0, 0, 3, 0, 0, 0], Type::U32, None).unwrap();
        assert!(
            msg.contains("1 of 2 elements differ; first at element 1"),
            "{msg}"
        );
    }
}
