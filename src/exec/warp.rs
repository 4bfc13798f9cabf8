//! The state of a running cluster (PTX ISA 9.0 chapter 2 and 3, the thread hierarchy and the
//! SIMT machine model): its CTAs, each CTA's warps and barriers, each warp's lane groups (lanes
//! sharing a program counter, Volta+ independent thread scheduling) and call frames (registers
//! per register then per lane), and what a parked group waits for. Plain data with the few
//! operations that only rearrange lane groups (a branch or a split); the scheduler
//! (`step.rs`) and the handlers change it.

use super::lanes::{lanes, WARP};
use super::warpgroup::Participation;
use crate::ir::{FuncId, OpRange};
use crate::mem::copy::OpId;
use crate::mem::Smem;
use std::collections::VecDeque;

/// Named barriers per CTA (`bar.sync 0..15`).
pub const BARRIERS: usize = 16;
/// Calls deeper than this are a fault (runaway recursion).
pub const MAX_CALL_DEPTH: usize = 1024;

/// What a parked lane group waits for.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum AsyncWait {
    /// `cp.async.wait_group`/`wait_all`, `cp.async.bulk.wait_group`: operations of this warp.
    Groups,
    /// `mbarrier.test_wait`/`try_wait` on the object at (rank, shared offset).
    Mbar { rank: u32, off: u32, want: WaitFor },
    /// `barrier.cluster.wait`.
    Cluster,
}

/// The phase an mbarrier wait waits for.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum WaitFor {
    /// `.parity`: the phase with this parity completes.
    Parity(u32),
    /// A state token: the phase it names completes.
    Phase(u32),
}

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Wait {
    Ready,
    /// Waiting at `bar.sync`/`bar.red` on this barrier.
    Bar(u8),
    /// Parked at a warp-synchronous operation until its member lanes arrive.
    WarpSync,
    /// Parked at an asynchronous wait; woken to execute the instruction again.
    Async(AsyncWait),
}

#[derive(Debug, Clone)]
pub(crate) struct RetRec {
    pub frame: u32,
    pub pc: u32,
    /// The caller's return-value operands `(retval0, ...)`.
    pub rets: Option<OpRange>,
}

#[derive(Debug, Clone)]
pub(crate) struct Group {
    pub mask: u32,
    pub pc: u32,
    pub frame: u32,
    pub stack: Vec<RetRec>,
    pub wait: Wait,
    /// The warp's step count when this group last ran (for fairness between groups).
    pub last: u64,
    /// Woken by a timeout: a `try_wait`/`test_wait` it executes now returns false.
    pub timed_out: bool,
    /// Waits (by instruction index) that already timed out at progress count `.0`: a wait
    /// times out once per progress count, so a loop around it ends in a deadlock report.
    pub timeouts: (u64, Vec<u32>),
    /// When the group started waiting at its current instruction (for traces).
    pub since: Option<u64>,
    /// A parked `mbarrier.try_wait` returns false at this cycle if its phase has not completed.
    pub deadline: Option<u64>,
    /// The mbarrier wait (instruction index) whose last execution returned false for this group.
    pub spin: Option<u32>,
}

impl Group {
    pub fn new(mask: u32, pc: u32, frame: u32) -> Group {
        Group {
            mask,
            pc,
            frame,
            stack: Vec::new(),
            wait: Wait::Ready,
            last: 0,
            timed_out: false,
            timeouts: (0, Vec::new()),
            since: None,
            deadline: None,
            spin: None,
        }
    }
}

#[derive(Debug, Clone)]
pub(crate) struct Frame {
    pub func: FuncId,
    /// `regs[r * 32 + lane]`: one u64 per lane per register.
    pub regs: Vec<u64>,
    /// Parameter frame, `params[lane * size ..]`.
    pub params: Vec<u8>,
    pub param_size: usize,
    pub local_base: u64,
    pub local_size: u64,
    /// Carry flag of `add.cc`/`addc`, one bit per lane.
    pub carry: u32,
    pub live: bool,
}

/// One thread's async-groups: operations issued but not committed, then committed groups,
/// oldest first (PTX ISA 9.0 section 9.7.9.25.1.1). Completed uncommitted operations are pruned
/// (`asyncops`), so the lists follow what is in flight.
#[derive(Debug, Clone, Default)]
pub(crate) struct LaneGroups {
    pub uncommitted: Vec<OpId>,
    pub groups: VecDeque<Vec<OpId>>,
    /// Operations issued since the thread's last commit or `cp.async.mbarrier.arrive`: nothing
    /// tracks them yet.
    pub untracked: usize,
    /// `uncommitted` is pruned when it grows past this.
    pub prune_at: usize,
}

/// The async-group state of a warp's lanes: non-bulk `cp.async` and bulk groups are separate.
#[derive(Debug, Clone, Default)]
pub(crate) struct WarpAsync {
    pub cp: [LaneGroups; WARP],
    pub bulk: [LaneGroups; WARP],
    /// `wgmma.mma_async` groups (warp-wide) and what the checker follows of them.
    pub wg: super::wgstate::WarpWgmma,
}

#[derive(Debug, Clone)]
pub(crate) struct Warp {
    pub index: u32,
    pub exited: u32,
    pub groups: Vec<Group>,
    pub frames: Vec<Frame>,
    pub local: Vec<crate::mem::local::Local>,
    pub local_top: u64,
    pub clock: u64,
    /// Instructions this warp has executed.
    pub steps: u64,
    pub asy: Option<Box<WarpAsync>>,
    /// Per lane: the cluster-barrier phase it last arrived in (`u32::MAX`: none pending).
    pub cluster_phase: [u32; WARP],
}

#[derive(Debug, Clone, Copy, Default)]
pub(crate) struct Barrier {
    pub arrived: u32,
    /// Thread count this phase waits for; 0 = every thread of the CTA.
    pub expected: u32,
    pub popc: u32,
    pub all: bool,
    pub any: bool,
}

pub(crate) struct Cta {
    pub id: [u32; 3],
    /// Rank in the cluster (index into `Cluster::ctas` and `Cluster::smem`).
    pub rank: u32,
    pub warps: Vec<Warp>,
    pub bars: [Barrier; BARRIERS],
    pub nthreads: u32,
    pub exited: u32,
    /// Per warpgroup, the warpgroup-aligned instructions its warps executed (made on first use).
    pub warpgroups: Vec<Participation>,
}

/// The CTAs of one cluster, which run together: they share distributed shared memory and the
/// cluster barrier (PTX ISA 9.0 section 2.2.1 "Cluster of Cooperative Thread Arrays").
pub(crate) struct Cluster {
    pub ctas: Vec<Cta>,
    pub smem: Vec<Smem>,
    /// `barrier.cluster`: completed phases, and threads arrived in the current one.
    pub cbar_phase: u32,
    pub cbar_arrived: u32,
}

impl Cluster {
    /// Threads of the cluster that have not exited.
    pub fn live_threads(&self) -> u32 {
        self.ctas.iter().map(|c| c.nthreads - c.exited).sum()
    }
}

/// Lanes of warp `wi` that exist and have not exited.
pub(crate) fn live_lanes(cta: &Cta, wi: usize) -> u32 {
    let w = &cta.warps[wi];
    let n = cta
        .nthreads
        .saturating_sub(w.index * WARP as u32)
        .min(WARP as u32);
    let exist = if n >= 32 { u32::MAX } else { (1u32 << n) - 1 };
    exist & !w.exited
}

/// Threads barrier `b` waits for in its current phase.
pub(crate) fn expected(cta: &Cta, b: u8) -> u32 {
    match cta.bars[b as usize].expected {
        0 => cta.nthreads - cta.exited,
        n => n,
    }
}

/// Moves the lanes of `active` to `target`, the others past the branch: [`branch`] with one
/// target for every lane (`bra` to a label), without gathering lanes by target. The common
/// case, every lane of the group or none of them, only moves its pc.
#[inline]
pub(crate) fn branch_to(cta: &mut Cta, wi: usize, gi: usize, active: u32, target: u32) {
    let warp = &mut cta.warps[wi];
    let g = &mut warp.groups[gi];
    let fall = g.mask & !active;
    let next = g.pc + 1;
    // As `branch` orders them: the lanes falling through stay in the group, the others go.
    if active == 0 || target == next {
        g.pc = next;
    } else if fall == 0 {
        g.pc = target;
    } else {
        g.pc = next;
        g.mask = fall;
        let taken = Group {
            mask: active,
            pc: target,
            ..g.clone()
        };
        warp.groups.push(taken);
    }
}

/// Moves the lanes of `active` to their targets, the others past the branch.
pub(crate) fn branch(
    cta: &mut Cta,
    wi: usize,
    gi: usize,
    active: u32,
    target: impl Fn(usize) -> u32,
) {
    let warp = &mut cta.warps[wi];
    let g = warp.groups[gi].clone();
    let mut dests: Vec<(u32, u32)> = Vec::new();
    let fall = g.mask & !active;
    if fall != 0 {
        dests.push((g.pc + 1, fall));
    }
    for lane in lanes(active) {
        let t = target(lane);
        match dests.iter_mut().find(|(pc, _)| *pc == t) {
            Some(d) => d.1 |= 1 << lane,
            None => dests.push((t, 1 << lane)),
        }
    }
    let (first, rest) = dests
        .split_first()
        .map_or(((g.pc + 1, g.mask), &[][..]), |(f, r)| (*f, r));
    warp.groups[gi].pc = first.0;
    warp.groups[gi].mask = first.1;
    for &(pc, mask) in rest {
        warp.groups.push(Group {
            mask,
            pc,
            ..g.clone()
        });
    }
}

/// Splits lanes `active` out of group `gi` into their own group; the rest go to `rest_pc`
/// later (they stay at the current pc, to continue after the split-off lanes).
/// Keeps the lanes of `active` in group `gi`; the others become a group of their own at
/// `rest_pc`, waiting as `gi` waited.
pub(crate) fn split(cta: &mut Cta, wi: usize, gi: usize, active: u32, rest_pc: u32) {
    let warp = &mut cta.warps[wi];
    let g = warp.groups[gi].clone();
    let rest = g.mask & !active;
    if rest == 0 {
        return;
    }
    warp.groups[gi].mask = active;
    warp.groups.push(Group {
        mask: rest,
        pc: rest_pc,
        ..g
    });
}

pub(crate) fn two<T>(v: &mut [T], a: usize, b: usize) -> (&mut T, &mut T) {
    assert_ne!(a, b, "two distinct frames");
    if a < b {
        let (x, y) = v.split_at_mut(b);
        (&mut x[a], &mut y[0])
    } else {
        let (x, y) = v.split_at_mut(a);
        (&mut y[0], &mut x[b])
    }
}
