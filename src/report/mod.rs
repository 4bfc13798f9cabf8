//! What a launch produced, in the contract's terms (`../shared/contract.md`: statuses, the JSON
//! report, hazard kinds): the outcome of one run with the compiled module it ran, rendered for
//! people (miette diagnostics with the offending and the related PTX line) and for programs
//! (JSON, typed [`Diagnostic`]s). The buffers are what the kernel left in device memory. The
//! findings [`Policy`] (`policy`) decides which findings fail the run and which are hidden.

pub mod junit;
pub mod merge;
mod policy;
pub mod sarif;

pub use policy::{Policy, Rule};

use crate::diag::{self, Severity};
use crate::exec::{Fault, FaultKind, Hazard, Outcome};
use crate::source::Compiled;
use std::sync::Arc;

/// The result of one run of a launch.
pub struct Report {
    pub compiled: Arc<Compiled>,
    pub outcome: Outcome,
    /// (name, type, address, bytes) of each launch buffer, in launch order.
    pub buffers: Vec<(String, crate::ir::Type, u64, usize)>,
    /// Which findings fail the run; the hazards it suppressed (not in `outcome.hazards`).
    pub policy: Policy,
    pub suppressed: Vec<Hazard>,
}

/// A hazard or fault as a program sees it: the contract's JSON diagnostic, typed.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Diagnostic {
    /// A hazard kind of the contract, or the fault's kind (`out-of-bounds`, `trap`, ...).
    pub kind: String,
    pub severity: &'static str,
    pub message: String,
    /// PTX line and column (1-based; 0 when no instruction is at fault).
    pub line: usize,
    pub column: usize,
    pub instruction: String,
    /// `file:line` of the CUDA source (`.loc`), when the PTX has line information.
    pub cuda: Option<String>,
    pub cta: [u32; 3],
    pub thread: [u32; 3],
    /// `buffer+offset (n bytes)` for hazards.
    pub address: Option<String>,
    pub related: Vec<RelatedLine>,
    /// The usual fix.
    pub help: Option<String>,
    /// How many times it occurred.
    pub count: u64,
}

/// The other side of a hazard: a PTX line and what it is.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct RelatedLine {
    pub line: usize,
    pub label: String,
    /// `file:line` of the CUDA source, when the PTX has line information.
    pub cuda: Option<String>,
}

/// Every hazard kind of the contract (`../shared/contract.md` "Hazard kinds") and the faults a
/// report can carry, with what each means (SARIF rule descriptions).
pub const KINDS: &[(&str, &str)] = &[
    ("read-before-complete", "a read of bytes that an asynchronous operation writes, not ordered after its completion"),
    ("write-before-complete", "a write to bytes that an in-flight asynchronous operation writes"),
    ("async-write-after-read", "an asynchronous operation writes bytes that a read not ordered before the operation's issue reads"),
    ("source-modified-before-complete", "a write to bytes that an in-flight asynchronous operation reads"),
    ("missing-proxy-fence", "the async proxy accesses bytes last written (or read) through the generic proxy with no fence.proxy.async ordering the two"),
    ("data-race", "two ordinary accesses from different threads, at least one a write, not ordered by happens-before"),
    ("tx-count-underflow", "complete-tx drives an mbarrier phase's tx-count below zero (more bytes delivered than expected)"),
    ("tx-count-overflow", "expect-tx drives an mbarrier phase's tx-count out of range"),
    ("uninitialized-mbarrier", "an mbarrier operation on memory that no mbarrier.init initialized (or that mbarrier.inval invalidated)"),
    ("mbarrier-misuse", "an mbarrier misused: re-init while in use, ordinary store over a live mbarrier, arrival count underflow, ..."),
    ("barrier-misuse", "bar.sync/barrier.sync with inconsistent thread counts or reached by a divergent warp where that is undefined"),
    ("deadlock", "no thread can make progress"),
    ("dsmem-access-after-exit", "an access to a CTA's shared memory after that CTA exited: by a peer CTA, or by an asynchronous operation still in flight when it exited"),
    ("missing-tensormap-proxy-fence", "a tensor copy uses a tensor map last written by generic stores with no fence.proxy.tensormap::generic release/acquire"),
    ("wgmma-register-before-wait", "an access to the accumulator or A registers of an in-flight wgmma.mma_async before a wgmma.wait_group that covers it"),
    ("missing-wgmma-fence", "a wgmma.mma_async whose accumulator/A registers were accessed since the last wgmma.fence"),
    ("divergent-aligned", "a .sync.aligned instruction executed by only part of the warp or warpgroup that must execute it together"),
    ("invalid-sparse-metadata", "an mma.sp metadata index pair the PTX ISA leaves undefined: equal indices, decreasing ones with ::ordered_metadata, a tf32 pair that names no element"),
    ("out-of-bounds", "a memory access outside every allocation of its state space"),
    ("misaligned", "a memory access not aligned to its size"),
    ("trap", "the kernel executed trap (or a failed assert)"),
    ("step-limit", "the run stopped after the maximum number of warp instructions"),
    ("interrupted", "the run was interrupted"),
    ("resource-limit", "a thread left more asynchronous copies and groups pending than ptxrun keeps (1024)"),
];

impl Report {
    /// The report of `outcome` under the default policy (warnings do not fail, nothing hidden).
    pub fn new(
        compiled: Arc<Compiled>,
        outcome: Outcome,
        buffers: Vec<(String, crate::ir::Type, u64, usize)>,
    ) -> Report {
        Report {
            compiled,
            outcome,
            buffers,
            policy: Policy::default(),
            suppressed: Vec::new(),
        }
    }

    /// This report under `policy`: the hazards its rules match move to `suppressed`.
    pub fn with_policy(mut self, policy: Policy) -> Report {
        let mut hazards = std::mem::take(&mut self.outcome.hazards);
        hazards.append(&mut self.suppressed);
        let (hidden, kept) = hazards
            .into_iter()
            .partition(|h| policy.suppresses(h.kind.as_str(), &self.locations(h)));
        self.outcome.hazards = kept;
        self.suppressed = hidden;
        self.policy = policy;
        self
    }

    /// The locations suppression rules match for a hazard: for its instruction and each related
    /// one, the function's name, `PTXFILE:LINE` and `CUDAFILE:LINE` (full and base names).
    pub fn locations(&self, h: &Hazard) -> Vec<String> {
        let mut out = Vec::new();
        for at in std::iter::once(h.at).chain(h.related.iter().map(|r| r.at)) {
            if let Some(f) = self.compiled.ir.functions.get(at.0 .0 as usize) {
                out.push(f.name.clone());
            }
            let line = self.line_of(at).0;
            policy::file_line_forms(&self.compiled.name, line, &mut out);
            if let Some((file, line, _)) = self.compiled.src_of(at).and_then(|s| s.loc) {
                let name = self.compiled.ir.file(file).unwrap_or("?");
                policy::file_line_forms(name, line as usize, &mut out);
            }
        }
        out
    }

    /// Whether a hazard fails the run under the policy (an error, or a denied warning).
    pub fn fails(&self, h: &Hazard) -> bool {
        self.policy.fails(h.severity)
    }

    /// The bytes of the buffer named `name` after the run.
    pub fn buffer(&self, name: &str) -> Option<&[u8]> {
        let i = self.buffers.iter().position(|b| b.0 == name)?;
        self.buffer_data(i)
    }

    /// The bytes of buffer `index` (in launch order) after the run.
    pub fn buffer_data(&self, index: usize) -> Option<&[u8]> {
        let (_, _, addr, len) = self.buffers.get(index)?;
        self.outcome.global.read(*addr, *len).ok()
    }

    /// `ok`, `hazard`, `fault` or `deadlock`, as the JSON report's `status`.
    pub fn status(&self) -> &'static str {
        match &self.outcome.fault {
            None if !self.outcome.hazards.iter().any(|h| self.fails(h)) => "ok",
            None => "hazard",
            Some(f) if f.kind == FaultKind::Deadlock => "deadlock",
            Some(f) if matches!(f.kind, FaultKind::Hazard(_)) => "hazard",
            Some(_) => "fault",
        }
    }

    /// Whether the run found undefined behaviour (or a denied warning) or stopped with a fault
    /// (exit code 1).
    pub fn failed(&self) -> bool {
        self.outcome.fault.is_some() || self.outcome.hazards.iter().any(|h| self.fails(h))
    }

    /// Whether the run stopped at an instruction ptxrun does not execute (bad input, exit 2).
    pub fn unsupported(&self) -> bool {
        matches!(&self.outcome.fault, Some(f) if f.kind == FaultKind::Unsupported)
    }

    /// Whether the run stopped because it went over its memory budget (exit 2).
    pub fn over_budget(&self) -> bool {
        matches!(&self.outcome.fault, Some(f) if f.kind == FaultKind::MemoryLimit)
    }

    /// Text the kernel printed (device `printf`).
    pub fn stdout(&self) -> &str {
        &self.outcome.stdout
    }

    /// (line, column, instruction text) of an instruction.
    pub fn line_of(&self, at: (crate::ir::FuncId, u32)) -> (usize, usize, String) {
        self.compiled.line_of(at)
    }

    /// A hazard as a diagnostic with two labels: the offending access and the other side.
    pub fn hazard_diag(&self, h: &Hazard) -> diag::Diag {
        let repeats = if h.count > 1 {
            format!(" ({} times)", h.count)
        } else {
            String::new()
        };
        let mut d = diag::Diag::error(h.kind.as_str(), format!("{}{repeats}", h.message));
        d.severity = h.severity;
        if let Some(src) = self.compiled.src_of(h.at) {
            d = d.label(
                src.span.clone(),
                format!("{}: CTA {:?}, thread {:?}", h.address, h.cta, h.thread),
            );
        }
        for r in &h.related {
            if let Some(src) = self.compiled.src_of(r.at) {
                d = d.label(src.span.clone(), r.label.clone());
            }
        }
        let cuda = self.compiled.cuda_of(h.at);
        let cuda = cuda.map(|c| format!(" (CUDA source: {c})"));
        d.help(format!("{}{}", h.help, cuda.unwrap_or_default()))
    }

    /// The fault as a diagnostic pointing at its PTX instruction.
    pub fn fault_diag(&self, f: &Fault) -> diag::Diag {
        let mut d = diag::Diag::error(kind_code(f.kind), f.message.clone());
        if let Some(src) = f.at.and_then(|at| self.compiled.src_of(at)) {
            d = d.label(
                src.span.clone(),
                format!("in CTA {:?}, thread {:?}", f.cta, f.thread),
            );
            if let Some(cuda) = f.at.and_then(|at| self.compiled.cuda_of(at)) {
                d = d.help(format!("CUDA source: {cuda}"));
            }
        }
        d
    }

    /// The trace in `format` (`jsonl` or `chrome`).
    pub fn trace_text(&self, chrome: bool) -> String {
        let files = &self.compiled.ir.files;
        if chrome {
            crate::trace::write_chrome(&self.outcome.trace, files)
        } else {
            crate::trace::write_jsonl(&self.outcome.trace, files)
        }
    }

    /// The human report: diagnostics with their source lines, or a one-line summary.
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
        let mut warnings: String = self
            .compiled
            .ir
            .warnings()
            .iter()
            .map(|w| format!("warning: {}: {w}\n", self.compiled.name))
            .collect();
        if let Some(t) = self.outcome.printf_truncated {
            warnings.push_str(&format!(
                "note: printf output truncated at {} ({} bytes dropped)\n",
                size_name(t.fifo_bytes),
                t.dropped_bytes
            ));
        }
        if diags.is_empty() {
            return format!(
                "{warnings}{}ok: {} thread instructions ({} warp instructions), {} cycles\n",
                findings_summary(&[], self.suppressed.iter()),
                st.thread_instructions,
                st.warp_instructions,
                st.cycles
            );
        }
        let mut out = warnings;
        out.push_str(&diag::render(
            &diags,
            &self.compiled.name,
            &self.compiled.text,
            false,
        ));
        out.push_str(&findings_summary(
            &self.outcome.hazards,
            self.suppressed.iter(),
        ));
        out
    }

    /// Every hazard, then the fault, as typed diagnostics.
    pub fn diagnostics(&self) -> Vec<Diagnostic> {
        let hazards = self
            .outcome
            .hazards
            .iter()
            .map(|h| self.hazard_diagnostic(h));
        let fault = self.outcome.fault.iter().map(|f| self.fault_diagnostic(f));
        hazards.chain(fault).collect()
    }

    pub fn hazard_diagnostic(&self, h: &Hazard) -> Diagnostic {
        let (line, column, instruction) = self.line_of(h.at);
        Diagnostic {
            kind: h.kind.to_string(),
            severity: severity_name(h.severity),
            message: h.message.clone(),
            line,
            column,
            instruction,
            cuda: self.compiled.cuda_of(h.at),
            cta: h.cta,
            thread: h.thread,
            address: Some(h.address.clone()),
            related: h
                .related
                .iter()
                .map(|r| RelatedLine {
                    line: self.line_of(r.at).0,
                    label: r.label.clone(),
                    cuda: self.compiled.cuda_of(r.at),
                })
                .collect(),
            help: Some(h.help.clone()),
            count: h.count,
        }
    }

    pub fn fault_diagnostic(&self, f: &Fault) -> Diagnostic {
        let (line, column, instruction) = f.at.map_or((0, 0, String::new()), |at| self.line_of(at));
        Diagnostic {
            kind: f.kind.name().to_string(),
            severity: "error",
            message: f.message.clone(),
            line,
            column,
            instruction,
            cuda: f.at.and_then(|at| self.compiled.cuda_of(at)),
            cta: f.cta,
            thread: f.thread,
            address: None,
            related: Vec::new(),
            help: None,
            count: 1,
        }
    }

    /// A hazard in the contract's JSON form.
    pub fn hazard_json(&self, h: &Hazard) -> serde_json::Value {
        let d = self.hazard_diagnostic(h);
        let related: Vec<serde_json::Value> = d
            .related
            .iter()
            .map(|r| serde_json::json!({ "line": r.line, "label": r.label }))
            .collect();
        serde_json::json!({
            "kind": d.kind, "severity": d.severity, "message": d.message, "line": d.line,
            "column": d.column, "instruction": d.instruction, "cta": d.cta, "thread": d.thread,
            "address": d.address, "related": related, "count": d.count, "help": d.help,
            "cuda": d.cuda,
        })
    }

    /// A fault in the contract's JSON form.
    pub fn fault_json(&self, f: &Fault) -> serde_json::Value {
        let d = self.fault_diagnostic(f);
        serde_json::json!({
            "kind": d.kind, "severity": d.severity, "message": d.message,
            "line": d.line, "column": d.column, "instruction": d.instruction,
            "cta": d.cta, "thread": d.thread, "related": [], "cuda": d.cuda,
        })
    }

    /// The SARIF 2.1.0 log of this run's findings, suppressed ones included (marked).
    pub fn sarif(&self) -> String {
        let mut findings: Vec<sarif::Finding> = self
            .diagnostics()
            .into_iter()
            .map(|diag| sarif::Finding {
                diag,
                properties: None,
                suppressed_by: None,
            })
            .collect();
        for h in &self.suppressed {
            findings.push(sarif::Finding {
                diag: self.hazard_diagnostic(h),
                properties: None,
                suppressed_by: self.suppressed_by(h),
            });
        }
        sarif::log(&self.compiled.name, &findings)
    }

    /// The rule of the policy that hides a hazard.
    pub fn suppressed_by(&self, h: &Hazard) -> Option<&str> {
        let locations = self.locations(h);
        self.policy
            .rules
            .iter()
            .find(|r| r.matches(h.kind.as_str(), &locations))
            .map(|r| r.text.as_str())
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
        let mut v = serde_json::json!({
            "status": self.status(),
            "diagnostics": diags,
            "stats": { "thread_instructions": st.thread_instructions, "warp_instructions": st.warp_instructions,
                       "cycles": st.cycles, "schedules": 1 },
        });
        let warnings = self.compiled.ir.warnings();
        if !warnings.is_empty() {
            v["warnings"] = serde_json::json!(warnings);
        }
        if !self.suppressed.is_empty() {
            v["suppressed"] = suppressed_json(self.suppressed.iter());
        }
        format!("{v}\n")
    }
}

/// The contract's `severity` field.
pub fn severity_name(s: Severity) -> &'static str {
    match s {
        Severity::Error => "error",
        Severity::Warning => "warning",
    }
}

/// The JSON report's `suppressed` count: distinct findings and their occurrences.
pub(crate) fn suppressed_json<'a>(hidden: impl Iterator<Item = &'a Hazard>) -> serde_json::Value {
    let (n, occurrences) = hidden.fold((0usize, 0u64), |(n, o), h| (n + 1, o + h.count));
    serde_json::json!({ "findings": n, "occurrences": occurrences })
}

/// `, N of them warnings` for a list of hazards (empty without warnings).
pub(crate) fn of_them_warnings<'a>(hazards: impl Iterator<Item = &'a Hazard>) -> String {
    match hazards.filter(|h| h.severity == Severity::Warning).count() {
        0 => String::new(),
        1 => ", 1 of them a warning".to_string(),
        n => format!(", {n} of them warnings"),
    }
}

/// The human report's closing lines: how many hazards (errors and warnings) and how many
/// findings the suppressions hid; empty when there are none.
pub(crate) fn findings_summary<'a>(
    shown: &[Hazard],
    hidden: impl Iterator<Item = &'a Hazard>,
) -> String {
    let plural = |n: u64, what: &str| format!("{n} {what}{}", if n == 1 { "" } else { "s" });
    let mut out = String::new();
    if !shown.is_empty() {
        let total: u64 = shown.iter().map(|h| h.count).sum();
        out.push_str(&format!(
            "{} ({}){}\n",
            plural(shown.len() as u64, "hazard"),
            plural(total, "occurrence"),
            of_them_warnings(shown.iter())
        ));
    }
    let (n, total) = hidden.fold((0u64, 0u64), |(n, o), h| (n + 1, o + h.count));
    if n > 0 {
        out.push_str(&format!(
            "{} suppressed ({})\n",
            plural(n, "finding"),
            plural(total, "occurrence")
        ));
    }
    out
}

/// A size in bytes as a person writes it: `1 MiB`, `64 KiB`, `1000 bytes`.
fn size_name(n: u64) -> String {
    match n {
        0 => "0 bytes".into(),
        n if n % (1 << 20) == 0 => format!("{} MiB", n >> 20),
        n if n % (1 << 10) == 0 => format!("{} KiB", n >> 10),
        n => format!("{n} bytes"),
    }
}

/// The diagnostic code of a fault in human reports.
fn kind_code(k: FaultKind) -> &'static str {
    match k {
        FaultKind::Memory => "run::out-of-bounds",
        FaultKind::Misaligned => "run::misaligned",
        FaultKind::Trap => "run::trap",
        FaultKind::Deadlock => "run::deadlock",
        FaultKind::StepLimit => "run::step-limit",
        FaultKind::Interrupted => "run::interrupted",
        FaultKind::Timeout => "run::timeout",
        FaultKind::MemoryLimit => "run::memory-limit",
        FaultKind::Limit => "run::resource-limit",
        FaultKind::Unsupported => "run::unsupported",
        FaultKind::Hazard(kind) => kind.as_str(),
    }
}
