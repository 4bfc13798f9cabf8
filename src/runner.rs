//! One launch from file to report: load the launch file, compile its PTX, lay out the kernel
//! parameters as the CUDA ABI does (`ir::Param::offset`), run, write the outputs, and describe
//! the result in the contract's terms (`../shared/contract.md`: statuses, JSON report, exit
//! codes). `ptxrun test` is built on it.

use crate::diag;
use crate::exec::{self, Fault, FaultKind, Grid, Options, Outcome};
use crate::ir::{self, Module, Type};
use crate::launch::{self, Launch, LaunchParam};
use crate::mem::Global;
use std::path::{Path, PathBuf};

/// Bad input (exit 2): a message ready to print.
#[derive(Debug, Clone)]
pub struct BadInput(pub String);

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
    /// Check for hazards (happens-before); `--no-check` turns it off.
    pub check: bool,
    /// Use the fast forms of hot instructions (only tests turn this off, to compare).
    pub fast: bool,
    /// Threads to run clusters on (`--jobs`); the results do not depend on it.
    pub jobs: usize,
}

/// The latency model `run` and `test` use unless told otherwise.
pub const DEFAULT_LATENCY: &str = "bandwidth";

impl Settings {
    /// What `ptxrun test` uses: no outputs written, no trace.
    pub fn for_test(seed: u64, latency: &str) -> Settings {
        Settings {
            entry: None,
            seed,
            max_steps: 1 << 32,
            instruction_cycles: 1,
            out_dir: None,
            write_outputs: false,
            latency: latency.to_string(),
            trace: false,
            trace_instructions: false,
            check: true,
            fast: true,
            jobs: 1,
        }
    }
}

/// A finished run: the compiled module (for locating faults), the launch, buffer addresses.
pub struct Finished {
    pub launch: Launch,
    pub module: Module,
    pub src: String,
    pub kernel_name: String,
    pub outcome: Outcome,
    /// (name, type, address, bytes) of each launch buffer.
    pub buffers: Vec<(String, Type, u64, usize)>,
}

impl Finished {
    pub fn buffer(&self, name: &str) -> Option<&[u8]> {
        let (_, _, addr, len) = self.buffers.iter().find(|b| b.0 == name)?;
        self.outcome.global.read(*addr, *len).ok()
    }
}

/// A launch ready to run: the launch file, the compiled module, the entry, the grid, and the
/// initial memory (buffers and parameter bytes). `check --explore` runs one under many
/// schedules.
#[derive(Clone)]
pub struct Prepared {
    pub launch: Launch,
    pub module: Module,
    pub src: String,
    pub kernel_name: String,
    pub entry: usize,
    pub grid: Grid,
    pub global: Global,
    pub kparams: Vec<u8>,
    /// (name, type, address, bytes) of each launch buffer.
    pub buffers: Vec<(String, Type, u64, usize)>,
}

impl Prepared {
    /// The launch with the outcome of one of its runs.
    pub fn finished(self, outcome: Outcome) -> Finished {
        Finished {
            launch: self.launch,
            module: self.module,
            src: self.src,
            kernel_name: self.kernel_name,
            outcome,
            buffers: self.buffers,
        }
    }
}

/// Loads, compiles and lays out a launch; `entry` overrides the launch file's.
pub fn prepare(path: &Path, entry: Option<&str>) -> Result<Prepared, BadInput> {
    let launch = launch::load(path)?;
    let src_bytes = std::fs::read(&launch.kernel)
        .map_err(|e| BadInput(format!("{}: {e}", launch.kernel.display())))?;
    let src = String::from_utf8_lossy(&src_bytes).into_owned();
    let kernel_name = launch.kernel.display().to_string();
    let module =
        ir::compile(&src).map_err(|d| BadInput(diag::render(&d, &kernel_name, &src, false)))?;
    let entry_name = entry.map(str::to_string).or_else(|| launch.entry.clone());
    let entries: Vec<&ir::Function> = module.entries().collect();
    let entry = match &entry_name {
        Some(n) => module
            .functions
            .iter()
            .position(|f| f.is_entry && &f.name == n)
            .ok_or_else(|| {
                BadInput(format!(
                    "{kernel_name}: no .entry named `{n}` (entries: {})",
                    names(&entries)
                ))
            })?,
        None => match entries.as_slice() {
            [one] => module
                .functions
                .iter()
                .position(|f| std::ptr::eq(f, *one))
                .unwrap_or(0),
            [] => return Err(BadInput(format!("{kernel_name}: the module has no .entry"))),
            _ => {
                return Err(BadInput(format!(
                    "{kernel_name}: several entries ({}); name one with `entry` or --entry",
                    names(&entries)
                )))
            }
        },
    };
    let func = &module.functions[entry];
    if launch.params.len() != func.params.len() {
        return Err(BadInput(format!(
            "{}: `{}` takes {} parameters but the launch file gives {}",
            launch.dir.join("launch.toml").display(),
            func.name,
            func.params.len(),
            launch.params.len()
        )));
    }
    let mut global = Global::new();
    let mut buffers = Vec::new();
    let size: u32 = func
        .params
        .iter()
        .map(|p| p.offset + p.size)
        .max()
        .unwrap_or(0);
    let mut kparams = vec![0u8; size as usize];
    // Buffers first (a tensor map may describe a buffer declared after it), in parameter order.
    for lp in &launch.params {
        let (name, ty, data) = match lp {
            LaunchParam::Buffer { name, ty, data } => (name, *ty, data),
            LaunchParam::TensorMap {
                buffer,
                created: Some((ty, data)),
                ..
            } => (buffer, *ty, data),
            _ => continue,
        };
        let addr = global.alloc(name, data.clone(), false);
        buffers.push((name.clone(), ty, addr, data.len()));
    }
    let launch_file = launch.dir.join("launch.toml").display().to_string();
    for (i, (lp, pp)) in launch.params.iter().zip(&func.params).enumerate() {
        let field = format!("{launch_file}: params[{i}]");
        let bytes = match lp {
            LaunchParam::Buffer { name, .. } => {
                if pp.size != 8 {
                    return Err(BadInput(format!(
                        "{field} (buffer `{name}`): kernel parameter `{}` is {} bytes, a pointer needs 8",
                        pp.name, pp.size
                    )));
                }
                let addr = buffers.iter().find(|b| &b.0 == name).map_or(0, |b| b.2);
                addr.to_le_bytes().to_vec()
            }
            LaunchParam::Scalar { ty, bytes } => {
                if bytes.len() != pp.size as usize {
                    return Err(BadInput(format!(
                        "{field}: kernel parameter `{}` is {} bytes ({}), the launch gives .{} ({} bytes)",
                        pp.name,
                        pp.size,
                        pp.ty,
                        ty.name(),
                        bytes.len()
                    )));
                }
                bytes.clone()
            }
            LaunchParam::TensorMap { buffer, map, .. } => {
                if pp.size as usize != crate::mem::tensormap::SIZE {
                    return Err(BadInput(format!(
                        "{field} (tensormap over `{buffer}`): kernel parameter `{}` is {} bytes, a CUtensorMap has 128",
                        pp.name, pp.size
                    )));
                }
                let Some(&(_, _, addr, len)) = buffers.iter().find(|b| &b.0 == buffer) else {
                    return Err(BadInput(format!("{field}.tensormap: no buffer `{buffer}`")));
                };
                let m = map.at(addr);
                m.validate()
                    .map_err(|e| BadInput(format!("{field}: {e}")))?;
                if m.extent() > len as u64 {
                    return Err(BadInput(format!(
                        "{field}: the tensor spans {} bytes but buffer `{buffer}` has {len}",
                        m.extent()
                    )));
                }
                m.encode().to_vec()
            }
        };
        let off = pp.offset as usize;
        kparams[off..off + bytes.len()].copy_from_slice(&bytes);
    }
    let (cluster, explicit_cluster) = match (launch.cluster, func.attrs.reqnctapercluster) {
        (Some(c), _) => (c, true),
        (None, Some(c)) => (c, true),
        (None, None) => ([1, 1, 1], func.attrs.explicitcluster),
    };
    if let (Some(l), Some(r)) = (launch.cluster, func.attrs.reqnctapercluster) {
        if l != r {
            return Err(BadInput(format!(
                "{launch_file}: cluster = {l:?}, but `{}` requires .reqnctapercluster {r:?}",
                func.name
            )));
        }
    }
    let csize: u32 = cluster.iter().product();
    if cluster.contains(&0) || csize > 16 {
        return Err(BadInput(format!(
            "{launch_file}: cluster = {cluster:?}: a cluster has 1 to 16 CTAs"
        )));
    }
    if (0..3).any(|i| launch.grid[i] % cluster[i] != 0) {
        return Err(BadInput(format!(
            "{launch_file}: grid = {:?} is not a multiple of cluster = {cluster:?}",
            launch.grid
        )));
    }
    let grid = Grid {
        grid: launch.grid,
        block: launch.block,
        dynamic_shared_bytes: launch.dynamic_shared_bytes,
        cluster,
        explicit_cluster,
    };
    Ok(Prepared {
        launch,
        module,
        src,
        kernel_name,
        entry,
        grid,
        global,
        kparams,
        buffers,
    })
}

/// Runs a prepared launch under the settings' schedule (seed, latency model, checking).
pub fn execute(p: &Prepared, s: &Settings) -> Result<Outcome, BadInput> {
    let latency = crate::latency::parse(&s.latency, s.seed).map_err(BadInput)?;
    let opts = Options {
        seed: s.seed,
        max_steps: s.max_steps,
        instruction_cycles: s.instruction_cycles,
        latency,
        trace: s.trace,
        trace_instructions: s.trace_instructions,
        check: s.check,
        fast: s.fast,
        jobs: s.jobs.max(1),
    };
    Ok(exec::run(
        &p.module,
        ir::FuncId(p.entry as u32),
        &p.grid,
        p.global.clone(),
        p.kparams.clone(),
        opts,
    ))
}

/// Runs one launch: prepare, execute, and write the `[outputs]` files if asked.
pub fn run(path: &Path, s: &Settings) -> Result<Finished, BadInput> {
    let p = prepare(path, s.entry.as_deref())?;
    let outcome = execute(&p, s)?;
    let done = p.finished(outcome);
    if s.write_outputs {
        for (name, path) in &done.launch.outputs {
            let path = match &s.out_dir {
                Some(d) => d.join(path.strip_prefix(&done.launch.dir).unwrap_or(path)),
                None => path.clone(),
            };
            let ty = done
                .buffers
                .iter()
                .find(|b| &b.0 == name)
                .map_or(Type::U8, |b| b.1);
            let data = done.buffer(name).unwrap_or_default().to_vec();
            launch::write_output(&path, ty, &data)?;
        }
    }
    Ok(done)
}

fn names(fs: &[&ir::Function]) -> String {
    fs.iter()
        .map(|f| f.name.as_str())
        .collect::<Vec<_>>()
        .join(", ")
}

impl Finished {
    /// `ok`, `hazard`, `fault` or `deadlock`, as the JSON report's `status`.
    pub fn status(&self) -> &'static str {
        match &self.outcome.fault {
            None if self.outcome.hazards.is_empty() => "ok",
            None => "hazard",
            Some(f) if f.kind == FaultKind::Deadlock => "deadlock",
            Some(f) if matches!(f.kind, FaultKind::Hazard(_)) => "hazard",
            Some(_) => "fault",
        }
    }

    /// Whether the run found undefined behaviour or stopped with a fault (exit code 1).
    pub fn failed(&self) -> bool {
        self.outcome.fault.is_some() || !self.outcome.hazards.is_empty()
    }

    fn src_of(&self, at: (ir::FuncId, u32)) -> Option<&ir::SrcInfo> {
        self.module
            .functions
            .get(at.0 .0 as usize)?
            .srcs
            .get(at.1 as usize)
    }

    /// A hazard as a diagnostic with two labels: the offending access and the other side.
    pub fn hazard_diag(&self, h: &exec::Hazard) -> diag::Diag {
        let repeats = if h.count > 1 {
            format!(" ({} times)", h.count)
        } else {
            String::new()
        };
        let mut d = diag::Diag::error(h.kind, format!("{}{repeats}", h.message));
        if let Some(src) = self.src_of(h.at) {
            d = d.label(
                src.span.clone(),
                format!("{}: CTA {:?}, thread {:?}", h.address, h.cta, h.thread),
            );
        }
        for r in &h.related {
            if let Some(src) = self.src_of(r.at) {
                d = d.label(src.span.clone(), r.label.clone());
            }
        }
        let cuda = self
            .src_of(h.at)
            .and_then(|s| s.loc)
            .map(|(file, line, _)| {
                format!(
                    " (CUDA source: {}:{line})",
                    self.module.file(file).unwrap_or("?")
                )
            });
        d.help(format!("{}{}", h.help, cuda.unwrap_or_default()))
    }

    /// The trace in `format` (`jsonl` or `chrome`).
    pub fn trace_text(&self, chrome: bool) -> String {
        if chrome {
            crate::trace::write_chrome(&self.outcome.trace, &self.module.files)
        } else {
            crate::trace::write_jsonl(&self.outcome.trace, &self.module.files)
        }
    }

    /// The fault as a diagnostic pointing at its PTX instruction.
    pub fn fault_diag(&self, f: &Fault) -> diag::Diag {
        let mut d = diag::Diag::error(kind_code(f.kind), f.message.clone());
        if let Some((func, pc)) = f.at {
            if let Some(src) = self
                .module
                .functions
                .get(func.0 as usize)
                .and_then(|fun| fun.srcs.get(pc as usize))
            {
                d = d.label(
                    src.span.clone(),
                    format!("in CTA {:?}, thread {:?}", f.cta, f.thread),
                );
                if let Some((file, line, _)) = src.loc {
                    d = d.help(format!(
                        "CUDA source: {}:{line}",
                        self.module.file(file).unwrap_or("?")
                    ));
                }
            }
        }
        d
    }

    pub fn human(&self) -> String {
        let st = self.outcome.stats;
        let mut diags: Vec<diag::Diag> = self
            .outcome
            .hazards
            .iter()
            .map(|h| self.hazard_diag(h))
            .collect();
        if let Some(f) = &self.outcome.fault {
            diags.push(self.fault_diag(f));
        }
        if diags.is_empty() {
            return format!(
                "ok: {} thread instructions ({} warp instructions), {} cycles\n",
                st.thread_instructions, st.warp_instructions, st.cycles
            );
        }
        let mut out = diag::render(&diags, &self.kernel_name, &self.src, false);
        if !self.outcome.hazards.is_empty() {
            let n = self.outcome.hazards.len();
            let total: u64 = self.outcome.hazards.iter().map(|h| h.count).sum();
            out.push_str(&format!(
                "{n} hazard{} ({total} occurrence{})\n",
                if n == 1 { "" } else { "s" },
                if total == 1 { "" } else { "s" }
            ));
        }
        out
    }

    /// (line, column, instruction text) of an instruction.
    pub fn line_of(&self, at: (ir::FuncId, u32)) -> (usize, usize, String) {
        match self.src_of(at) {
            Some(s) => {
                let (l, c) = diag::line_col(&self.src, s.span.start);
                let text = self.src[s.span.clone()]
                    .split_whitespace()
                    .collect::<Vec<_>>()
                    .join(" ");
                (l, c, text)
            }
            None => (0, 0, String::new()),
        }
    }

    /// A hazard in the contract's JSON form.
    pub fn hazard_json(&self, h: &exec::Hazard) -> serde_json::Value {
        let (line, column, instruction) = self.line_of(h.at);
        let related: Vec<serde_json::Value> = h
            .related
            .iter()
            .map(|r| serde_json::json!({ "line": self.line_of(r.at).0, "label": r.label }))
            .collect();
        let cuda = self
            .src_of(h.at)
            .and_then(|s| s.loc)
            .map(|(file, l, _)| format!("{}:{l}", self.module.file(file).unwrap_or("?")));
        serde_json::json!({
            "kind": h.kind, "severity": "error", "message": h.message, "line": line,
            "column": column, "instruction": instruction, "cta": h.cta, "thread": h.thread,
            "address": h.address, "related": related, "count": h.count, "help": h.help,
            "cuda": cuda,
        })
    }

    /// A fault in the contract's JSON form.
    pub fn fault_json(&self, f: &Fault) -> serde_json::Value {
        let (line, column, instruction) = match f.at {
            Some(at) => self.line_of(at),
            None => (0, 0, String::new()),
        };
        serde_json::json!({
            "kind": f.kind.name(), "severity": "error", "message": f.message,
            "line": line, "column": column, "instruction": instruction,
            "cta": f.cta, "thread": f.thread, "related": [],
        })
    }

    /// The contract's JSON report.
    pub fn json(&self) -> String {
        let st = self.outcome.stats;
        let mut diags: Vec<serde_json::Value> = self
            .outcome
            .hazards
            .iter()
            .map(|h| self.hazard_json(h))
            .collect();
        if let Some(f) = &self.outcome.fault {
            diags.push(self.fault_json(f));
        }
        let v = serde_json::json!({
            "status": self.status(),
            "diagnostics": diags,
            "stats": { "thread_instructions": st.thread_instructions, "warp_instructions": st.warp_instructions,
                       "cycles": st.cycles, "schedules": 1 },
        });
        format!("{v}\n")
    }
}

fn kind_code(k: FaultKind) -> &'static str {
    match k {
        FaultKind::Memory => "run::out-of-bounds",
        FaultKind::Misaligned => "run::misaligned",
        FaultKind::Trap => "run::trap",
        FaultKind::Deadlock => "run::deadlock",
        FaultKind::StepLimit => "run::step-limit",
        FaultKind::Unsupported => "run::unsupported",
        FaultKind::Hazard(kind) => kind,
    }
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
        let want = hazard_kind(h);
        let found: Vec<&str> = done
            .outcome
            .hazards
            .iter()
            .map(|x| x.kind)
            .chain(done.outcome.fault.iter().map(|f| f.kind.name()))
            .collect();
        return if found.contains(&want) {
            Verdict::Pass
        } else if found.is_empty() {
            Verdict::Fail(format!("expects hazard `{h}`, but the run was clean"))
        } else {
            Verdict::Fail(format!(
                "expects hazard `{h}`, the run reported {}",
                found.join(", ")
            ))
        };
    }
    if let Some(h) = done.outcome.hazards.first() {
        let (line, ..) = done.line_of(h.at);
        return Verdict::Fail(format!("{} at PTX line {line}: {}", h.kind, h.message));
    }
    if let Some(f) = &done.outcome.fault {
        if f.kind == FaultKind::Unsupported {
            return Verdict::Error(f.message.clone());
        }
        let line =
            f.at.and_then(|(func, pc)| {
                done.module
                    .functions
                    .get(func.0 as usize)?
                    .srcs
                    .get(pc as usize)
            })
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
        let want = match std::fs::read(file) {
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
    if let Some(file) = &e.stdout {
        match std::fs::read_to_string(file) {
            Ok(want) if want == done.outcome.stdout => {}
            Ok(want) => {
                let line = want
                    .lines()
                    .zip(done.outcome.stdout.lines())
                    .position(|(a, b)| a != b)
                    .unwrap_or(0);
                return Verdict::Fail(format!(
                    "stdout differs (first at line {}: expected {:?}, got {:?})",
                    line + 1,
                    want.lines().nth(line).unwrap_or(""),
                    done.outcome.stdout.lines().nth(line).unwrap_or("")
                ));
            }
            Err(err) => return Verdict::Error(format!("{}: {err}", file.display())),
        }
    }
    Verdict::Pass
}

/// The contract's name of an `[expect] hazard` kind. `write-after-read` (the name the project's
/// hardware cases use) is the contract's `async-write-after-read`.
pub fn hazard_kind(name: &str) -> &str {
    match name {
        "write-after-read" => "async-write-after-read",
        other => other,
    }
}

/// `None` if equal (bit for bit, or within a relative tolerance for floats).
fn compare(got: &[u8], want: &[u8], ty: Type, tol: Option<f64>) -> Option<String> {
    if got.len() < want.len() {
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

/// Every `launch.toml` under the paths, sorted.
pub fn find_launches(paths: &[PathBuf]) -> Vec<PathBuf> {
    fn walk(p: &Path, out: &mut Vec<PathBuf>) {
        if p.is_file() {
            if p.file_name().is_some_and(|n| n == "launch.toml") {
                out.push(p.to_path_buf());
            }
            return;
        }
        let Ok(rd) = std::fs::read_dir(p) else { return };
        let mut entries: Vec<PathBuf> = rd.filter_map(|e| e.ok().map(|e| e.path())).collect();
        entries.sort();
        for e in entries {
            walk(&e, out);
        }
    }
    let mut out = Vec::new();
    for p in paths {
        walk(p, &mut out);
    }
    out
}
