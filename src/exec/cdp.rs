//! Device-launched grids run (CUDA dynamic parallelism; the model is `devrt.rs`'s): after the
//! launching grid has finished, its queued launches and copies run in the order it made them,
//! each grid followed by its own descendants, and the tail launches last. Above the scheduler:
//! a child grid's clusters run through `step::run_cluster`.
//!
//! One happens-before checker follows every grid of the launch, so it sees races between grids
//! (CUDA Programming Guide, "CUDA Dynamic Parallelism", memory coherence and streams). A child
//! grid's threads start knowing what the launching thread did and knew at the launch; a grid
//! launched after another into the same stream (the launching CTA's NULL stream or one it
//! created) knows all of that grid and its descendants; a tail launch knows all of its launching
//! grid and that grid's other work ([`GridStart`]). Nothing else orders grids: a parent's
//! accesses after a launch, and a fire-and-forget sibling's, race with the child's. Running the
//! child after its parent is one schedule; the verdict comes from the order above, not from it.
//! A device-side copy or fill is checked as a thread of its own, ordered like a grid.

use super::fault::FaultKind;
use super::fault::{fault, Res};
use super::machine::Machine;
use super::machine::{Child, CopySource, DeviceCopy, Queued};
use crate::ir::FuncId;
use crate::mem::hb::{Agent, GridStart};
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
    if let Some(hb) = mc.hb.as_mut() {
        mc.cdp.root_hazards = hb.take_hazards();
        let name = &mc.m.functions[mc.entry.0 as usize].name;
        hb.name_grid(1, format!("the grid of `{name}` the host launched"));
    }
    run_queued(mc, (GridStart::default(), 1))
}

/// A grid ended: its unlaunched parameter buffers go back, its threads' errors with them.
pub(crate) fn end_grid<'m>(mc: &mut Machine<'m>) {
    for buf in std::mem::take(&mut mc.cdp.buffers).into_keys() {
        super::devrt::release_buffer(mc, buf);
    }
    mc.cdp.errors.clear();
}

/// The running grid's launches and copies: the others in the order it made them, then the
/// tail launches. `grid` is what the running grid started knowing and its first agent.
pub(crate) fn run_queued<'m>(mc: &mut Machine<'m>, grid: (GridStart, Agent)) -> Res<()> {
    let mut queued = std::mem::take(&mut mc.cdp.queued);
    queued.sort_by_key(Queued::tail);
    let mut queued = queued.into_iter();
    // Per stream: what the next grid in it starts knowing of the ones before it.
    let mut streams: BTreeMap<(u64, [u32; 3]), GridStart> = BTreeMap::new();
    while let Some(mut q) = queued.next() {
        mc.cdp.pending -= 1;
        let first = mc.hb.as_ref().map(|hb| hb.next_agent());
        let order = q.order_mut();
        if let (Some(start), Some(first)) = (order.start.as_mut(), first) {
            if order.tail {
                start.join(&grid.0.finished(grid.1, first));
            } else if let Some(before) = order.stream.and_then(|k| streams.get(&k)) {
                start.join(before);
            }
        }
        let (key, start) = (order.stream, order.start.clone());
        let r = match q {
            Queued::Grid(c) => run_child(mc, c),
            Queued::Copy(c) => run_copy(mc, c),
        };
        if let (Some(key), Some(start), Some(first)) = (key, start, first) {
            let end = mc.hb.as_ref().map_or(first, |hb| hb.next_agent());
            streams.insert(key, start.finished(first, end));
        }
        if let Err(f) = r {
            mc.cdp.pending -= queued.len();
            return Err(f);
        }
    }
    Ok(())
}

/// Runs a device-side `cudaMemcpyAsync` (its bytes as global memory holds them now) or
/// `cudaMemsetAsync`. The range is checked before any byte is made, so a huge count is a fault.
/// With a checker, the copy is a thread of its own that reads its source and writes its
/// destination, knowing what its place in its stream says.
fn run_copy(mc: &mut Machine<'_>, c: DeviceCopy) -> Res<()> {
    let n = c.bytes as usize;
    if let (Some(hb), Some(start)) = (mc.hb.as_mut(), c.order.start) {
        let src = match c.src {
            CopySource::Global(a) => Some(a),
            CopySource::Byte(_) => None,
        };
        let what = match src {
            Some(_) => "device-side cudaMemcpyAsync",
            None => "device-side cudaMemsetAsync",
        };
        let copy = crate::check::DeviceCopy {
            src,
            dst: c.dst,
            len: n,
            call: c.call,
        };
        hb.device_copy(&mc.engine, &mc.global, start, copy, what);
        keep_hazards(mc, &format!("a {what}"), |_| [0; 3]);
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

/// Runs one device-launched grid, then its descendants.
pub(crate) fn run_child<'m>(mc: &mut Machine<'m>, c: Child) -> Res<()> {
    let was = switch_to(mc, c.entry)?;
    let grid = std::mem::replace(&mut mc.grid, c.grid);
    let kparams = std::mem::replace(&mut mc.kparams, c.kparams);
    mc.cdp.depth += 1;
    mc.cdp.grids += 1;
    let r = run_grid(mc, c.order.start.unwrap_or_default());
    mc.cdp.depth -= 1;
    mc.grid = grid;
    mc.kparams = kparams;
    switch_to(mc, was)?;
    r
}

/// The running child grid's clusters, its threads starting with what `start` says they know;
/// then its launches.
pub(crate) fn run_grid<'m>(mc: &mut Machine<'m>, start: GridStart) -> Res<()> {
    let [bx, by, _] = mc.grid.block;
    let coords = |t: u32| [t % bx, (t / bx) % by, t / (bx * by)];
    let name = &mc.m.functions[mc.entry.0 as usize].name;
    let what = format!(
        "the grid of `{name}` launched from the device (depth {})",
        mc.cdp.depth
    );
    let first = match mc.hb.as_mut() {
        Some(hb) => {
            let first = hb.next_agent();
            hb.start_grid(start.clone(), what.clone());
            first
        }
        None => 0,
    };
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
    keep_hazards(mc, &what, coords);
    end_grid(mc);
    result?;
    run_queued(mc, (start, first))
}

/// The hazards the checker found in the grid or copy `what` that just ran, with their threads'
/// coordinates: one report per (kind, instruction, related instruction) over all grids.
fn keep_hazards(mc: &mut Machine<'_>, what: &str, coords: impl Fn(u32) -> [u32; 3]) {
    let Some(hb) = mc.hb.as_mut() else {
        return;
    };
    for mut h in hb.take_hazards() {
        let known = mc.cdp.child_hazards.iter_mut().find(|k| k.key() == h.key());
        if let Some(k) = known {
            k.count += h.count;
            continue;
        }
        h.thread = coords(h.linear_thread);
        h.message = format!("{} (in {what})", h.message);
        mc.cdp.child_hazards.push(h);
    }
}
