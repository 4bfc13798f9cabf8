//! What a launch produced, in the contract's terms (`../shared/contract.md`: statuses, the JSON
//! report, hazard kinds): the outcome of one run with the compiled module it ran, rendered for
//! people (miette diagnostics with the offending and the related PTX line) and for programs
//! (JSON, typed [`Diagnostic`]s). The buffers are what the kernel left in device memory.

use crate::diag;
use crate::exec::{Fault, FaultKind, Hazard, Outcome};
use crate::source::Compiled;
use std::sync::Arc;

/// The result of one run of a launch.
pub struct Report {
    pub compiled: Arc<Compiled>,
    pub outcome: Outcome,
    /// (name, type, address, bytes) of each launch buffer, in launch order.
    pub buffers: Vec<(String, crate::ir::Type, u64, usize)>,
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
}

impl Report {
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

    /// Whether the run stopped at an instruction ptxrun does not execute (bad input, exit 2).
    pub fn unsupported(&self) -> bool {
        matches!(&self.outcome.fault, Some(f) if f.kind == FaultKind::Unsupported)
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
        let mut d = diag::Diag::error(h.kind, format!("{}{repeats}", h.message));
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
        let warnings: String = self
            .compiled
            .ir
            .warnings()
            .iter()
            .map(|w| format!("warning: {}: {w}\n", self.compiled.name))
            .collect();
        if diags.is_empty() {
            return format!(
                "{warnings}ok: {} thread instructions ({} warp instructions), {} cycles\n",
                st.thread_instructions, st.warp_instructions, st.cycles
            );
        }
        let mut out = warnings;
        out.push_str(&diag::render(
            &diags,
            &self.compiled.name,
            &self.compiled.text,
            false,
        ));
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
            severity: "error",
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
        format!("{v}\n")
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
        FaultKind::Unsupported => "run::unsupported",
        FaultKind::Hazard(kind) => kind,
    }
}
