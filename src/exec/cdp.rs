//! Device-launched grids run (CUDA dynamic parallelism; the model is `devrt.rs`'s): after the
//! launching grid has finished, its queued launches and copies run in the order it made them,
//! each grid followed by its own descendants, and the tail launches last. Above the scheduler:
//! a child grid's clusters run through `step::run_cluster`.
//!
//! One happens-before checker follows every grid of the launch, so it sees races between grids
//! (CUDA Programming Guide, "CUDA Dynamic Parallelism", memory coherence and streams). A child
//! grid's threads start knowing what the launching thread did and knew at the launch; a grid
//! queued after another into the same stream (the queuing CTA's NULL stream or one it created)
//! knows all of that grid and its descendants; a tail launch knows all of its launching grid
//! and that grid's other work (`check::grids`: agents that stand for a grid's completion, which
//! travel in clocks like any other). Nothing else orders grids: a parent's accesses after a
//! launch, and a fire-and-forget sibling's, race with the child's. Running the child after its
//! parent is one schedule; the verdict comes from the order above, not from it. A device-side
//! copy or fill is checked as a thread of its own, ordered like a grid.

use super::fault::FaultKind;
use super::fault::{fault, Res};
use super::machine::Machine;
use super::machine::{Child, CopySource, DeviceCopy, Queued};
use crate::check::GridId;
use crate::ir::FuncId;
use crate::mem::hb::Vc;
use std::collections::BTreeMap;

/// Makes `entry` the running kernel; returns the one that was.
pub(crate) fn switch_to<'m>(mc: &mut Machine<'m>, entry: FuncId) -> Res<FuncId> {
    let was = mc.entry;
    if entry != was {
        super::devrt::layout_of(mc, entry)?;
        let Some((l, f)) = mc.cdp.layouts.remove(&entry.0) else {
            return Err(fault(FaultKind::Unsupported, "kernel layout missing"));
        };
        let old = (
            std::mem::replace(&mut mc.layout, l),
            std::mem::replace(&mut mc.fast, f),
        );
        mc.cdp.layouts.insert(was.0, old);
        if let Some(jit) = mc.jit.as_mut() {
            jit.switch_kernel(was.0, entry.0);
        }
        mc.entry = entry;
    }
    Ok(was)
}

/// After the host's grid: the grids it launched, and theirs.
pub(crate) fn run_launched<'m>(mc: &mut Machine<'m>) -> Res<()> {
    end_grid(mc);
    if mc.cdp.queued.is_empty() {
        return Ok(());
    }
    let name = &mc.m.functions[mc.entry.0 as usize].name;
    let root = mc.hb.as_mut().map(|hb| {
        mc.cdp.root_hazards = hb.take_hazards();
        hb.root_grid(format!("the grid of `{name}` the host launched"))
    });
    run_queued(mc, root)
}

/// A grid ended: its unlaunched parameter buffers go back, its threads' errors with them.
pub(crate) fn end_grid<'m>(mc: &mut Machine<'m>) {
    for buf in std::mem::take(&mut mc.cdp.buffers).into_keys() {
        super::devrt::release_buffer(mc, buf);
    }
    mc.cdp.errors.clear();
}

/// The running grid's launches and copies: the others in the order it made them, then the
/// tail ones. `grid`: the running grid in the checker's launch tree (with a checker).
pub(crate) fn run_queued<'m>(mc: &mut Machine<'m>, grid: Option<GridId>) -> Res<()> {
    let mut queued = std::mem::take(&mut mc.cdp.queued);
    queued.sort_by_key(Queued::tail);
    let mut queued = queued.into_iter();
    // What a tail item starts knowing: the grid's clusters, and everything it queued that ran.
    let mut so_far = Vc::new();
    if let Some((own, _)) = (mc.hb.as_ref()).and_then(|hb| hb.done_agents(grid?)) {
        so_far.raise(own, 1);
    }
    // Per stream: the agent of the completion of the last item that ran in it.
    let mut streams: BTreeMap<(u64, [u32; 3]), u32> = BTreeMap::new();
    while let Some(mut q) = queued.next() {
        mc.cdp.pending -= 1;
        let name = checker_name(mc, &q);
        let order = q.order_mut();
        let key = order.stream;
        let id = match (mc.hb.as_mut(), order.start.take(), grid) {
            (Some(hb), Some(mut start), Some(parent)) => {
                if order.tail {
                    start.join(&so_far);
                } else if let Some(&before) = key.and_then(|k| streams.get(&k)) {
                    start.raise(before, 1);
                }
                Some(hb.start_grid(start, parent, name))
            }
            _ => None,
        };
        let r = match q {
            Queued::Grid(c) => run_child(mc, c, id),
            Queued::Copy(c) => run_copy(mc, c, id),
        };
        if let Some((_, tree)) = (mc.hb.as_ref()).and_then(|hb| hb.done_agents(id?)) {
            so_far.raise(tree, 1);
            if let Some(k) = key {
                streams.insert(k, tree);
            }
        }
        if let Err(f) = r {
            mc.cdp.pending -= queued.len();
            return Err(f);
        }
    }
    Ok(())
}

/// How the checker's messages name the threads of queued work: a grid about to run at the next
/// depth, or a copy by the line of its call.
fn checker_name(mc: &Machine<'_>, q: &Queued) -> String {
    match q {
        Queued::Grid(c) => grid_name(mc, c.entry, mc.cdp.depth + 1),
        Queued::Copy(c) => {
            let line = mc.hb.as_ref().map_or(0, |hb| hb.line(c.call.0, c.call.1));
            format!("the {} at line {line}", copy_name(c))
        }
    }
}

/// "the grid of `entry` launched from the device (depth d)".
fn grid_name(mc: &Machine<'_>, entry: FuncId, depth: u32) -> String {
    let name = &mc.m.functions[entry.0 as usize].name;
    format!("the grid of `{name}` launched from the device (depth {depth})")
}

fn copy_name(c: &DeviceCopy) -> &'static str {
    match c.src {
        CopySource::Global(_) => "device-side cudaMemcpyAsync",
        CopySource::Byte(_) => "device-side cudaMemsetAsync",
    }
}

/// Runs a device-side `cudaMemcpyAsync` (its bytes as global memory holds them now) or
/// `cudaMemsetAsync`. The range is checked before any byte is made, so a huge count is a fault.
/// With a checker, the copy is a thread of its own that reads its source and writes its
/// destination, knowing what its place in its stream says.
fn run_copy(mc: &mut Machine<'_>, c: DeviceCopy, id: Option<GridId>) -> Res<()> {
    let n = c.bytes as usize;
    if let (Some(hb), Some(id)) = (mc.hb.as_mut(), id) {
        let src = match c.src {
            CopySource::Global(a) => Some(a),
            CopySource::Byte(_) => None,
        };
        let copy = crate::check::DeviceCopy {
            src,
            dst: c.dst,
            len: n,
            call: c.call,
        };
        hb.device_copy(&mc.engine, &mc.global, id, copy);
        keep_hazards(mc, &format!("a {}", copy_name(&c)), |_| [0; 3]);
    }
    let (r, what) = match c.src {
        CopySource::Global(src) => (
            mc.global
                .read(src, n)
                .map(<[u8]>::to_vec)
                .and_then(|bytes| mc.global.write(c.dst, n).map(|d| d.copy_from_slice(&bytes))),
            format!("cudaMemcpyAsync of {n} bytes from {src:#x} to {:#x}", c.dst),
        ),
        CopySource::Byte(b) => (
            mc.global.write(c.dst, n).map(|d| d.fill(b)),
            format!("cudaMemsetAsync of {n} bytes at {:#x}", c.dst),
        ),
    };
    r.map_err(|e| {
        fault(
            FaultKind::Memory,
            format!("a device-side {what}: {}", e.message),
        )
    })
}

/// Runs one device-launched grid (`id` in the checker's launch tree), then its descendants.
pub(crate) fn run_child<'m>(mc: &mut Machine<'m>, c: Child, id: Option<GridId>) -> Res<()> {
    let was = switch_to(mc, c.entry)?;
    let grid = std::mem::replace(&mut mc.grid, c.grid);
    let kparams = std::mem::replace(&mut mc.kparams, c.kparams);
    mc.cdp.depth += 1;
    mc.cdp.grids += 1;
    let r = run_grid(mc, id);
    mc.cdp.depth -= 1;
    mc.grid = grid;
    mc.kparams = kparams;
    switch_to(mc, was)?;
    r
}

/// The running child grid's clusters (`id` in the checker's launch tree, started with what its
/// threads know), then its launches.
pub(crate) fn run_grid<'m>(mc: &mut Machine<'m>, id: Option<GridId>) -> Res<()> {
    let [bx, by, _] = mc.grid.block;
    let coords = |t: u32| [t % bx, (t / bx) % by, t / (bx * by)];
    let what = grid_name(mc, mc.entry, mc.cdp.depth);
    let serial = mc.cdp.grids;
    let mut result = Ok(());
    for (i, first) in super::config::origins(&mc.grid).into_iter().enumerate() {
        if let Err(mut f) = super::step::run_cluster(mc, first, (serial << 32) | i as u64) {
            f.message = format!("in {what}: {}", f.message);
            if let Some(t) = f.linear_thread.take() {
                f.thread = coords(t);
            }
            result = Err(f);
            break;
        }
    }
    if let (Some(hb), Some(id)) = (mc.hb.as_mut(), id) {
        hb.grid_clusters_done(id);
    }
    keep_hazards(mc, &what, coords);
    end_grid(mc);
    result?;
    run_queued(mc, id)
}

/// The hazards the checker found in the grid or copy `what` that just ran, with their threads'
/// coordinates: one report per (kind, instruction, related instruction) over all grids.
fn keep_hazards(mc: &mut Machine<'_>, what: &str, coords: impl Fn(u32) -> [u32; 3]) {
    let Some(hb) = mc.hb.as_mut() else {
        return;
    };
    for mut h in hb.take_hazards() {
        h.thread = coords(h.linear_thread);
        h.message = format!("{} (in {what})", h.message);
        match mc.cdp.child_hazards.iter_mut().find(|k| k.key() == h.key()) {
            Some(k) => _ = k.absorb(h),
            None => mc.cdp.child_hazards.push(h),
        }
    }
}
