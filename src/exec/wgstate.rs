//! A warp's `wgmma` state (PTX ISA 9.0 section 9.7.15.7, the async proxy and the wgmma
//! groups): the `wgmma.mma_async` operations it issued, grouped by `wgmma.commit_group`, and
//! what the checker follows of them (whether a `wgmma.fence` was executed, the registers
//! accessed since, the registers in flight), with the register watch every instruction of such
//! a warp is shown. Plain state below the machine; `wgmma.rs` issues and completes the
//! operations.

use super::lanes::WARP;
use crate::ir::mma::Elem;
use crate::ir::wgmma::WgmmaForm;
use crate::ir::{Function, RegId};
use crate::mem::copy::OpId;
use std::collections::{BTreeMap, VecDeque};

/// Where a shared-memory operand's elements sit in the operation's staging bytes: `rows` rows
/// (of A: the warp's 16; of B: N) of K elements from byte `at`, row by row (K-major) or k by k
/// (MN-major).
#[derive(Debug, Clone, Copy)]
pub(crate) struct Staged {
    pub(crate) at: usize,
    pub(crate) rows: usize,
    /// Bytes of one row along K: 32, or 64 for the sparse forms' B.
    pub(crate) row_bytes: usize,
    pub(crate) mn_major: bool,
}

/// A call frame: its function and its depth in the warp's call stack (distinct for the frames
/// of a recursion).
pub(crate) type FrameKey = (u32, u32);

/// One issued `wgmma.mma_async` of one warp, until a wait applies it.
#[derive(Debug, Clone)]
pub(crate) struct Job {
    pub op: OpId,
    pub(crate) form: WgmmaForm,
    /// The call frame whose registers it names, its instruction, and its D and A registers.
    pub(crate) frame: FrameKey,
    pub pc: u32,
    pub(crate) d: Vec<RegId>,
    pub(crate) a_regs: Vec<RegId>,
    /// A's 16 x K elements (from registers), or where the engine stages them.
    pub(crate) a: Result<Vec<u64>, Staged>,
    pub(crate) b: Staged,
    pub(crate) scale_d: bool,
    pub(crate) neg: (bool, bool),
    /// The sparse forms: each lane's metadata register, and the sparsity selector.
    pub(crate) meta: Option<(Box<[u32; WARP]>, u32)>,
}

/// A warp's `wgmma` state: async groups of jobs, and what the checker follows (whether a
/// `wgmma.fence` was executed, registers accessed since the last one, registers in flight).
#[derive(Debug, Clone, Default)]
pub(crate) struct WarpWgmma {
    pub(crate) uncommitted: Vec<Job>,
    pub(crate) groups: VecDeque<Vec<Job>>,
    pub(crate) fenced: bool,
    /// Register -> the instruction that last accessed it since the last `wgmma.fence`.
    pub(crate) touched: BTreeMap<u32, u32>,
    /// Register -> the last `wgmma.mma_async` no wait has observed that names it. A wait that
    /// completes keeps only the pending operations' registers (one written early because of
    /// the backlog stays locked until then).
    pub(crate) locked: BTreeMap<u32, Lock>,
    /// The call frame the registers above belong to.
    pub(crate) frame: FrameKey,
    /// The last operation written early (backlog), for the next wait to observe.
    pub(crate) early: Option<OpId>,
}

/// A register of a `wgmma.mma_async` in flight: its instruction, whether it is D (else A), and
/// D's shape (N and type): only a wgmma of the same shape may accumulate into it meanwhile.
#[derive(Debug, Clone, Copy)]
pub(crate) struct Lock {
    pub(crate) pc: u32,
    pub(crate) d: bool,
    pub(crate) shape: (u16, Elem),
}

impl WarpWgmma {
    /// Whether instructions must be shown to [`watch`].
    pub fn watching(&self) -> bool {
        self.fenced || !self.locked.is_empty()
    }

    pub(crate) fn lock(&mut self, j: &Job) {
        lock_into(&mut self.locked, j);
    }

    /// Operations issued and not yet written.
    pub(crate) fn pending(&self) -> usize {
        self.uncommitted.len() + self.groups.iter().map(Vec::len).sum::<usize>()
    }

    /// After a wait completed: only the pending operations' registers stay locked.
    pub(crate) fn relock(&mut self) {
        self.locked.clear();
        for j in self.uncommitted.iter().chain(self.groups.iter().flatten()) {
            lock_into(&mut self.locked, j);
        }
    }
}

/// Locks job `j`'s D and A registers.
pub(crate) fn lock_into(locked: &mut BTreeMap<u32, Lock>, j: &Job) {
    let shape = (j.form.n, j.form.d);
    for (regs, d) in [(&j.d, true), (&j.a_regs, false)] {
        for r in regs {
            let pc = j.pc;
            locked.insert(r.0, Lock { pc, d, shape });
        }
    }
}

/// The name of register `r` of `func`, for messages.
pub(crate) fn reg_name(func: &Function, r: u32) -> String {
    func.reg_names
        .get(r as usize)
        .cloned()
        .unwrap_or_else(|| format!("register {r}"))
}

/// A finding of [`watch`]: hazard kind, message, the related instruction and its label.
pub(crate) type Finding = (
    crate::check::HazardKind,
    crate::check::Msg,
    u32,
    &'static str,
    &'static str,
);

/// Shown every instruction of a warp with `wgmma` state (when checking): an access to a
/// register of a `wgmma.mma_async` still in flight is `wgmma-register-before-wait`; every
/// access is remembered for `missing-wgmma-fence`.
pub(crate) fn watch(
    w: &mut WarpWgmma,
    func: &Function,
    frame: FrameKey,
    ins: &crate::ir::Instr,
    pc: u32,
) -> Option<Finding> {
    use crate::ir::Op;
    if frame != w.frame
        || matches!(
            ins.op,
            Op::WgmmaFence | Op::WgmmaCommitGroup | Op::WgmmaWaitGroup
        )
    {
        return None;
    }
    let mut hit = None;
    if matches!(ins.op, Op::WgmmaMmaAsync | Op::WgmmaMmaAsyncSp) {
        // Another wgmma may read the A registers in flight, and accumulate into the D registers
        // in flight if it has their shape; any other use must wait.
        let shape = func.form(pc).wgmma().ok().map(|f| (f.n, f.d));
        let ops = func.ops(ins);
        for (k, as_d) in [(0, true), (1, false)] {
            let Some(o) = ops.get(k) else { continue };
            crate::ir::each_reg(func, o, &mut |r| {
                let conflict = |l: &Lock| {
                    if as_d {
                        !l.d || Some(l.shape) != shape
                    } else {
                        l.d && k == 1 && matches!(ops[1], crate::ir::Operand::Vector(_))
                    }
                };
                if hit.is_none() {
                    hit = w
                        .locked
                        .get(&r.0)
                        .filter(|l| conflict(l))
                        .map(|l| (r.0, l.pc));
                }
            });
        }
    } else {
        for o in func.ops(ins) {
            crate::ir::each_reg(func, o, &mut |r| {
                if w.fenced {
                    w.touched.insert(r.0, pc);
                }
                if hit.is_none() {
                    hit = w.locked.get(&r.0).map(|l| (r.0, l.pc));
                }
            });
        }
    }
    let (r, at) = hit?;
    Some((
        crate::check::HazardKind::WgmmaRegisterBeforeWait,
        crate::check::Msg::text(format!(
            "register `{}` belongs to the `wgmma.mma_async` at line ",
            reg_name(func, r)
        ))
        .related_line()
        .then(", which is still in flight: no `wgmma.wait_group` has observed its completion"),
        at,
        "the wgmma.mma_async",
        "wait with `wgmma.wait_group` for the group of the `wgmma.mma_async` before accessing its \
         accumulator or A registers (PTX ISA 9.0 section 9.7.15.7.3)",
    ))
}
