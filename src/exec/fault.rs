//! Kernel faults and hazards: what stops a run (a [`Fault`] at an instruction and thread) and
//! what the happens-before checker reports ([`Hazard`], defined by `crate::check`), with the
//! helpers every layer of the executor uses to make and locate them. The bottom of `exec/`: it
//! imports no other file of it but `warpgroup.rs` (the site of a warpgroup fault).

use super::warpgroup::Site;
pub use crate::check::Hazard;
use crate::ir::FuncId;
use std::fmt;

/// What a handler returns: a value, or the fault that stops the run.
pub(crate) type Res<T> = Result<T, Box<Fault>>;

/// The kind of a kernel fault (exit code 1).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum FaultKind {
    Memory,
    Trap,
    Deadlock,
    StepLimit,
    /// The caller asked the run to stop (`Options::cancel`).
    Interrupted,
    /// The run reached `Options::deadline`.
    Timeout,
    /// The run needed more memory than its budget (`Options::meter`): bad input, exit 2.
    MemoryLimit,
    /// The kernel left more pending than ptxrun keeps for a thread (asynchronous copies no wait
    /// or arrive-on tracks): memory stays bounded by the launch, not by its running time.
    Limit,
    Unsupported,
    Misaligned,
    /// Undefined behaviour of one of the contract's hazard kinds (`tx-count-underflow`, ...).
    Hazard(crate::check::HazardKind),
}

impl FaultKind {
    pub fn name(self) -> &'static str {
        match self {
            FaultKind::Memory => "out-of-bounds",
            FaultKind::Trap => "trap",
            FaultKind::Deadlock => "deadlock",
            FaultKind::StepLimit => "step-limit",
            FaultKind::Interrupted => "interrupted",
            FaultKind::Timeout => "timeout",
            FaultKind::MemoryLimit => "memory-limit",
            FaultKind::Limit => "resource-limit",
            FaultKind::Unsupported => "unsupported",
            FaultKind::Misaligned => "misaligned",
            FaultKind::Hazard(kind) => kind.as_str(),
        }
    }
}

/// A kernel fault, with the instruction and thread where it happened.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Fault {
    pub kind: FaultKind,
    pub message: String,
    /// Function and instruction index, when one instruction is at fault.
    pub at: Option<(FuncId, u32)>,
    pub cta: [u32; 3],
    pub thread: [u32; 3],
    /// The faulting thread's index within its CTA, before it becomes `thread`.
    pub linear_thread: Option<u32>,
}

impl fmt::Display for Fault {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&self.message)
    }
}

pub fn fault(kind: FaultKind, message: impl Into<String>) -> Box<Fault> {
    Box::new(Fault {
        kind,
        message: message.into(),
        at: None,
        cta: [0; 3],
        thread: [0; 3],
        linear_thread: None,
    })
}

pub(crate) fn at(mut f: Box<Fault>, func: FuncId, pc: u32, thread: u32) -> Box<Fault> {
    if f.at.is_none() {
        f.at = Some((func, pc));
    }
    f.linear_thread.get_or_insert(thread);
    f
}

/// The `divergent-aligned` fault of a warpgroup-aligned instruction the warps of a warpgroup
/// did not execute together, located at its site.
pub(crate) fn warpgroup_fault(site: Site, thread: u32, why: String) -> Box<Fault> {
    let (func, pc) = site.at;
    let f = fault(
        FaultKind::Hazard(crate::check::HazardKind::DivergentAligned),
        format!(
            "`{}` is .sync.aligned over the warpgroup, but {why}",
            site.name
        ),
    );
    at(f, FuncId(func), pc, thread)
}

pub(crate) fn with_cta(mut f: Box<Fault>, id: [u32; 3]) -> Box<Fault> {
    f.cta = id;
    f
}
