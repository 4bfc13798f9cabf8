//! The device runtime of device-side launches: CUDA dynamic parallelism as CUDA 12+ compiles it ("CDP2"; CUDA C++
//! Programming Guide, "CUDA Dynamic Parallelism"). PTX has no launch instruction: for
//! `kernel<<<g, b, s, stream>>>(args)` in device code nvcc calls the device runtime,
//! `__cudaCDP2GetParameterBufferV2(kernel, g, b, s)` for a buffer it fills with the arguments at
//! their PTX offsets (the child's `.param` layout, as a host launch lays them out), then
//! `__cudaCDP2LaunchDeviceV2(buffer, stream)`. Device `cudaGetLastError`, `cudaPeekAtLastError`,
//! `cudaGetErrorString` (`cudaerr.rs`), `cudaStreamCreateWithFlags`, `cudaStreamDestroy`,
//! `cudaMalloc`, `cudaFree`, `cudaMemcpyAsync` and `cudaMemsetAsync` are calls to `__cudaCDP2*`
//! functions too, and are answered here. A device-side copy or fill is queued like a launch, in
//! the NULL stream or a created one, and runs in that order (measured: a child launched after it
//! into the same stream reads the copied bytes; device-to-device and default copies return 0,
//! every other kind `cudaErrorInvalidMemcpyDirection` and copies nothing; a fill writes zeros
//! whatever its value, so only fills with 0 run: `docs/launch/cdp-memcpy.md`).
//!
//! The model: a launch copies its configuration and parameter bytes into a queue; the queued
//! grids run after the launching grid has finished, in launch order, each followed by its own
//! descendants, and the launches into `cudaStreamTailLaunch` after all the others (a tail launch
//! starts when the launching grid and all its work are done). CDP2 gives a parent no way to wait
//! for a child, and every stream (the NULL stream, fire-and-forget, tail, created streams) lets a
//! child start at any time after its launch, so running it after the parent is one legal
//! schedule: the child sees everything the parent wrote, which the GPU guarantees only for
//! the launching thread's writes before the launch (and what they are ordered after). The host's
//! launch ends when every descendant has. A launch with a configuration a GPU refuses returns
//! `cudaErrorInvalidConfiguration` and does not run (as an H100 does); one nested deeper than
//! [`MAX_DEPTH`] (measured) stops as unsupported; more than [`MAX_PENDING`] launches queued at
//! once stop the run with a `resource-limit` fault.
//!
//! One happens-before checker follows every grid (`cdp.rs`): a launch gives the child what the
//! launching thread knew (`check::grids`), so a race between a parent's accesses
//! after the launch and the child's is reported, whatever order ptxrun ran them in.

use super::config::Grid;
use super::fast::Fast;
use super::fault::FaultKind;
use super::fault::{fault, Res};
use super::lanes::WARP;
use super::layout::{func_of, Layout};
use super::machine::Machine;
use super::machine::{Child, CopySource, DeviceCopy, InStream, Queued};
use super::warp::Warp;
use crate::ir::{FuncId, Operand, Space, Symbol};

/// The deepest nesting of device-side launches ptxrun runs (the host's grid is depth 0). The
/// Programming Guide names 24 levels, but an H100 (CUDA 13, driver 580) ran a kernel that
/// launches itself down to depth 29, and its launch of depth 30, with no error (`cdp_deep`);
/// deeper is not measured.
pub const MAX_DEPTH: u32 = 30;
/// Shared memory (static and dynamic) a device-side launch may give a CTA: the default
/// `cudaFuncAttributeMaxDynamicSharedMemorySize`, which device code cannot raise (an H100
/// refuses 48 KiB + 4 with `cudaErrorInvalidConfiguration`).
const MAX_LAUNCH_SHARED_BYTES: u64 = 48 * 1024;
/// Launches queued and not yet run, at most (CUDA's default
/// `cudaLimitDevRuntimePendingLaunchCount`).
pub const MAX_PENDING: usize = 2048;
/// Streams created on the device and not destroyed, at most.
const MAX_STREAMS: usize = 1 << 16;

/// CUDA error codes (`driver_types.h`).
const CUDA_ERROR_MEMORY_ALLOCATION: u64 = 2;
const CUDA_ERROR_INVALID_CONFIGURATION: u64 = 9;
const CUDA_ERROR_INVALID_MEMCPY_DIRECTION: u64 = 21;
const CUDA_ERROR_INVALID_RESOURCE_HANDLE: u64 = 400;

/// The special streams of `cuda_device_runtime_api.h`; created streams get handles from
/// [`STREAM_BASE`] up.
const STREAM_NULL: u64 = 0;
const STREAM_TAIL_LAUNCH: u64 = 3;
const STREAM_FIRE_AND_FORGET: u64 = 4;
const STREAM_BASE: u64 = 0x0000_7000_0000_0000;

/// Whether a module can queue work from the device: launch grids, copy or fill (then its
/// clusters run on one thread, which runs the queued work after them).
pub fn launches(m: &crate::ir::Module) -> bool {
    const QUEUE: [&str; 3] = [
        "__cudaCDP2LaunchDevice",
        "__cudaCDP2MemcpyAsync",
        "__cudaCDP2MemsetAsync",
    ];
    (m.functions.iter()).any(|f| QUEUE.iter().any(|q| f.name.starts_with(q)))
}

/// Whether `name` is a device runtime function this module answers.
pub fn answers(name: &str) -> bool {
    matches!(
        name,
        "__cudaCDP2GetParameterBufferV2"
            | "__cudaCDP2LaunchDeviceV2"
            | "__cudaCDP2GetLastError"
            | "__cudaCDP2PeekAtLastError"
            | "__cudaCDP2StreamCreateWithFlags"
            | "__cudaCDP2StreamDestroy"
            | "__cudaCDP2Malloc"
            | "__cudaCDP2Free"
            | "__cudaCDP2MemcpyAsync"
            | "__cudaCDP2MemsetAsync"
            | "__cudaCDP2GetErrorString"
    )
}

/// Whether a GPU refuses a launch of `f` with this configuration (the limits of a host launch:
/// CUDA C++ Programming Guide, "Compute Capabilities"; PTX ISA 9.0 section 11.4; shared memory
/// as [`MAX_LAUNCH_SHARED_BYTES`]); the H100 answers `cudaErrorInvalidConfiguration` (measured:
/// `ptx-samples/launch/cdp_limits`).
fn invalid_config(f: &crate::ir::Function, grid: &Grid, shared: u64) -> bool {
    let (g, b) = (grid.grid, grid.block);
    let threads: u64 = b.iter().map(|&d| u64::from(d)).product();
    let dims_bad = g.contains(&0)
        || b.contains(&0)
        || g[0] > i32::MAX as u32
        || g[1] > 65535
        || g[2] > 65535
        || b[0] > 1024
        || b[1] > 1024
        || b[2] > 64
        || threads > 1024;
    let attrs = &f.attrs;
    let reqntid_bad = attrs.reqntid.is_some_and(|r| r != b);
    let maxntid_bad = attrs
        .maxntid
        .is_some_and(|m| threads > m.iter().map(|&d| u64::from(d)).product::<u64>());
    dims_bad || reqntid_bad || maxntid_bad || shared > MAX_LAUNCH_SHARED_BYTES
}

/// Where a device runtime call is made: the CTA's coordinates in the grid and rank in its
/// cluster, and the call instruction (function index, instruction index).
#[derive(Clone, Copy)]
pub(crate) struct Caller {
    pub(crate) cta: [u32; 3],
    pub(crate) rank: u32,
    pub(crate) call: (u32, u32),
}

/// One lane's call of a `__cudaCDP2*` function ([`answers`]) in warp `warp`, made at `caller`;
/// its return value.
pub(crate) fn device_runtime<'m>(
    mc: &mut Machine<'m>,
    name: &str,
    warp: &mut Warp,
    caller: Caller,
    frame: usize,
    args: &[Operand],
    lane: usize,
) -> Res<u64> {
    let thread = (caller.cta, warp.index * WARP as u32 + lane as u32);
    let arg = |i: usize| crate::mem::read_le(&call_arg(&mc.layout, warp, frame, args, i, lane, 8));
    let (a0, a1, a3) = (arg(0), arg(1), arg(3));
    let dim = |i: usize| {
        let b = call_arg(&mc.layout, warp, frame, args, i, lane, 12);
        [0, 4, 8].map(|o| crate::mem::read_le(&b[o..o + 4]) as u32)
    };
    let (grid, block) = (dim(1), dim(2));
    let (code, value) = match name {
        "__cudaCDP2GetParameterBufferV2" => parameter_buffer(mc, a0, grid, block, a3 as u32)?,
        "__cudaCDP2LaunchDeviceV2" => (launch_device(mc, a0, a1, (caller, warp.index))?, 0),
        "__cudaCDP2GetLastError" => return Ok(mc.cdp.errors.remove(&thread).unwrap_or(0)),
        "__cudaCDP2PeekAtLastError" => return Ok(mc.cdp.errors.get(&thread).copied().unwrap_or(0)),
        "__cudaCDP2StreamCreateWithFlags" => {
            if mc.cdp.streams.len() >= MAX_STREAMS {
                return Err(fault(
                    FaultKind::Limit,
                    format!(
                        "more than {MAX_STREAMS} device-side streams created and not destroyed"
                    ),
                ));
            }
            let handle = STREAM_BASE + 16 * mc.cdp.next_stream;
            mc.cdp.next_stream += 1;
            mc.cdp.streams.insert(handle);
            write_generic(mc, warp, lane, a0, handle)?;
            (0, 0)
        }
        "__cudaCDP2StreamDestroy" => match mc.cdp.streams.remove(&a0) {
            true => (0, 0),
            false => (CUDA_ERROR_INVALID_RESOURCE_HANDLE, 0),
        },
        "__cudaCDP2Malloc" => match device_malloc(mc, a1) {
            0 => (CUDA_ERROR_MEMORY_ALLOCATION, 0),
            addr => {
                write_generic(mc, warp, lane, a0, addr)?;
                (0, 0)
            }
        },
        "__cudaCDP2Free" => {
            device_free(mc, a0);
            (0, 0)
        }
        "__cudaCDP2MemcpyAsync" => {
            if !matches!(a3 as u32, 3 | 4) {
                (CUDA_ERROR_INVALID_MEMCPY_DIRECTION, 0)
            } else {
                let copy = (a0, CopySource::Global(a1), arg(2));
                (queue_copy(mc, copy, arg(4), (caller, warp.index))?, 0)
            }
        }
        "__cudaCDP2MemsetAsync" if a1 as u8 != 0 && arg(2) != 0 => {
            return Err(memset_nonzero(a1 as u8))
        }
        "__cudaCDP2MemsetAsync" => {
            let fill = (a0, CopySource::Byte(0), arg(2));
            (queue_copy(mc, fill, arg(3), (caller, warp.index))?, 0)
        }
        "__cudaCDP2GetErrorString" => return Ok(error_string(mc, a0 as u32)),
        other => {
            return Err(fault(
                FaultKind::Unsupported,
                format!("device runtime call `{other}`"),
            ))
        }
    };
    if code != 0 {
        mc.cdp.errors.insert(thread, code);
    }
    // The launch functions return a pointer or an error code; the others an error code.
    Ok(if name == "__cudaCDP2GetParameterBufferV2" {
        value
    } else {
        code
    })
}

/// Writes a 64-bit value where a device runtime call was given a pointer (`cudaStream_t*`,
/// `void**`): local or global memory.
pub(crate) fn write_generic<'m>(
    mc: &mut Machine<'m>,
    warp: &mut Warp,
    lane: usize,
    addr: u64,
    v: u64,
) -> Res<()> {
    use crate::mem::{classify, Generic};
    let r = match classify(addr) {
        Generic::Local(o) => warp.local[lane].write(o, &v.to_le_bytes()),
        Generic::Global(a) => mc.global.write(a, 8).map(|d| crate::mem::write_le(d, v)),
        _ => {
            return Err(fault(
                FaultKind::Unsupported,
                format!(
                "a device runtime call's result pointer {addr:#x} outside local and global memory"
            ),
            ))
        }
    };
    r.map_err(|e| {
        fault(
            FaultKind::Memory,
            format!("device runtime call: {}", e.message),
        )
    })
}

/// `cudaGetParameterBuffer`: (error code, buffer address; 0 when the launch is refused).
pub(crate) fn parameter_buffer<'m>(
    mc: &mut Machine<'m>,
    func: u64,
    grid: [u32; 3],
    block: [u32; 3],
    smem: u32,
) -> Res<(u64, u64)> {
    let m = mc.m;
    let Some(entry) = func_of(func, m).filter(|f| m.functions[f.0 as usize].is_entry) else {
        return Err(fault(
            FaultKind::Unsupported,
            format!("device-side launch of {func:#x}, which is not a kernel of this module"),
        ));
    };
    let f = &m.functions[entry.0 as usize];
    if f.attrs.reqnctapercluster.is_some() || f.attrs.explicitcluster {
        return Err(fault(
            FaultKind::Unsupported,
            format!("device-side launch of `{}`, a kernel with clusters", f.name),
        ));
    }
    if mc.cdp.depth + 1 > MAX_DEPTH {
        return Err(fault(
            FaultKind::Unsupported,
            format!("a device-side launch nested {} deep: ptxrun runs {MAX_DEPTH} levels, which an H100 launched with no error; deeper is not measured", mc.cdp.depth + 1),
        ));
    }
    let child = Grid {
        grid,
        block,
        dynamic_shared_bytes: smem,
        cluster: [1, 1, 1],
        explicit_cluster: false,
        cooperative: None,
        objects: mc.grid.objects.clone(),
    };
    let (layout, _) = layout_of(mc, entry)?;
    let shared = layout.cta_shared_bytes(smem);
    if invalid_config(f, &child, shared) {
        return Ok((CUDA_ERROR_INVALID_CONFIGURATION, 0));
    }
    let size = params_size(f, &mc.layout.param_off[entry.0 as usize]);
    let n = mc.cdp.grids + mc.cdp.buffers.len() as u64;
    let addr = (mc.global).alloc(&format!("cdp-params#{n}"), vec![0; size.max(1)], false);
    mc.cdp.buffers.insert(addr, (entry, child));
    Ok((0, addr))
}

/// `cudaLaunchDevice` by a thread of warp `by.1` at `by.0`: queues the grid a parameter buffer
/// describes; its error code.
pub(crate) fn launch_device<'m>(
    mc: &mut Machine<'m>,
    buf: u64,
    stream: u64,
    by: (Caller, u32),
) -> Res<u64> {
    let Some((entry, grid)) = mc.cdp.buffers.remove(&buf) else {
        return Err(fault(FaultKind::Memory, format!("`__cudaCDP2LaunchDeviceV2` of {buf:#x}, not a parameter buffer `__cudaCDP2GetParameterBufferV2` returned (or one launched already)")));
    };
    let special = matches!(
        stream,
        STREAM_NULL | STREAM_TAIL_LAUNCH | STREAM_FIRE_AND_FORGET
    );
    if !special && !mc.cdp.streams.contains(&stream) {
        // Not a stream of this device runtime: refused, as a destroyed stream is.
        release_buffer(mc, buf);
        return Ok(CUDA_ERROR_INVALID_RESOURCE_HANDLE);
    }
    if mc.cdp.pending >= MAX_PENDING {
        return Err(fault(FaultKind::Limit, format!("more than {MAX_PENDING} device-side launches and copies pending (cudaLimitDevRuntimePendingLaunchCount): ptxrun runs a child grid after its parent, so every launch of a grid waits until the grid ends")));
    }
    let size = params_size(
        &mc.m.functions[entry.0 as usize],
        &mc.layout.param_off[entry.0 as usize],
    );
    let kparams = (mc.global.read(buf, size))
        .map_err(|e| fault(FaultKind::Memory, e.message))?
        .to_vec();
    release_buffer(mc, buf);
    mc.cdp.pending += 1;
    let order = in_stream(mc, stream, by);
    mc.cdp.queued.push(Queued::Grid(Child {
        entry,
        grid,
        kparams,
        order,
    }));
    Ok(0)
}

/// Where work queued into `stream` by a thread of warp `by.1` at `by.0` stands, and what it
/// starts knowing: what that thread knew (its later accesses are not ordered before the work).
/// Work in one stream runs in order: the NULL stream is its CTA's, a created stream private to
/// the CTA that made it; fire-and-forget work is each on its own; tail work runs after the
/// grid's.
fn in_stream(mc: &mut Machine<'_>, stream: u64, (caller, warp): (Caller, u32)) -> InStream {
    InStream {
        tail: stream == STREAM_TAIL_LAUNCH,
        stream: match stream {
            STREAM_FIRE_AND_FORGET | STREAM_TAIL_LAUNCH => None,
            s => Some((s, caller.cta)),
        },
        start: mc.hb.as_mut().map(|hb| hb.launch(caller.rank, warp)),
    }
}

/// A device-side `cudaMemcpyAsync` (of a kind that copies: device-to-device or default,
/// measured) or `cudaMemsetAsync` by a thread of warp `by.1` at `by.0`, queued like a launch into
/// its stream (the NULL stream, a created one, `cudaStreamTailLaunch` or
/// `cudaStreamFireAndForget`: all four measured); its error code. Copies of shared or local
/// memory, which the CUDA Programming Guide forbids, and copies into a stream that is not the
/// device runtime's stop the run as unsupported.
fn queue_copy(
    mc: &mut Machine<'_>,
    (dst, src, bytes): (u64, CopySource, u64),
    stream: u64,
    by: (Caller, u32),
) -> Res<u64> {
    let what = match src {
        CopySource::Global(_) => "cudaMemcpyAsync",
        CopySource::Byte(_) => "cudaMemsetAsync",
    };
    let special = matches!(
        stream,
        STREAM_NULL | STREAM_TAIL_LAUNCH | STREAM_FIRE_AND_FORGET
    );
    if !special && !mc.cdp.streams.contains(&stream) {
        return Err(fault(
            FaultKind::Unsupported,
            format!("a device-side {what} into stream {stream:#x}, which is not a stream of the device runtime"),
        ));
    }
    use crate::mem::{classify, Generic};
    let global = |a: u64| matches!(classify(a), Generic::Global(_));
    if !global(dst) || matches!(src, CopySource::Global(s) if !global(s)) {
        return Err(fault(
            FaultKind::Unsupported,
            format!("a device-side {what} to {dst:#x}: the CUDA Programming Guide allows global memory only (no shared or local pointers)"),
        ));
    }
    if bytes == 0 {
        return Ok(0);
    }
    if mc.cdp.pending >= MAX_PENDING {
        return Err(fault(FaultKind::Limit, format!("more than {MAX_PENDING} device-side launches and copies pending (cudaLimitDevRuntimePendingLaunchCount): ptxrun runs them after the grid that made them")));
    }
    mc.cdp.pending += 1;
    let order = in_stream(mc, stream, by);
    mc.cdp.queued.push(Queued::Copy(DeviceCopy {
        dst,
        src,
        bytes,
        order,
        call: by.0.call,
    }));
    Ok(0)
}

/// A device-side `cudaMemsetAsync` of a nonzero byte: an H200 with CUDA 13.0's device runtime
/// (driver 580.159.04) writes zeros whatever the value and returns success (measured with
/// 0x5a, 0xff, 7 and 0x1234: `docs/launch/cdp-memcpy.md`), so running it either way would hide
/// something: ptxrun stops, saying so.
fn memset_nonzero(value: u8) -> Box<crate::exec::Fault> {
    fault(
        FaultKind::Unsupported,
        format!("a device-side cudaMemsetAsync of the byte {value:#04x}: on an H200 with CUDA 13.0's device runtime it writes zeros whatever the value (measured), so ptxrun runs only fills with 0"),
    )
}

/// `cudaGetErrorString(code)` from the device: the address of its string (`cudaerr.rs`), in
/// a read-only allocation made at the first call.
fn error_string(mc: &mut Machine<'_>, code: u32) -> u64 {
    let base = match mc.cdp.error_strings {
        Some(b) => b,
        None => {
            let b = mc
                .global
                .alloc("cudaGetErrorString", super::cudaerr::table_bytes(), true);
            mc.cdp.error_strings = Some(b);
            b
        }
    };
    base + super::cudaerr::offset(code)
}

/// A parameter buffer's bytes go back once launched (or when its grid ends).
pub(crate) fn release_buffer<'m>(mc: &mut Machine<'m>, buf: u64) {
    if let Some(i) = mc.global.release(buf) {
        if let Some(hb) = mc.hb.as_mut() {
            hb.forget_global(i);
        }
    }
}

/// The layout of kernel `entry` (and its fast forms): the running kernel's, or one made with
/// the running kernel's addresses of global and constant variables, which every kernel of a
/// module shares, and its own shared memory.
pub(crate) fn layout_of<'a>(
    mc: &'a mut Machine<'_>,
    entry: FuncId,
) -> Res<(&'a Layout, &'a Vec<Vec<Fast>>)> {
    if entry == mc.entry {
        return Ok((&mc.layout, &mc.fast));
    }
    if !mc.cdp.layouts.contains_key(&entry.0) {
        let mut scratch = crate::mem::Global::new();
        let mut l =
            Layout::new(mc.m, entry, &mut scratch).map_err(|e| fault(FaultKind::Memory, e))?;
        for (i, v) in mc.m.vars.iter().enumerate() {
            if matches!(v.space, Space::Global | Space::Const) {
                l.var_addr[i] = mc.layout.var_addr[i];
            }
        }
        let fast = match mc.fast.is_empty() {
            true => Vec::new(),
            false => (mc.m.functions.iter())
                .map(|f| super::translate::translate(mc.m, f, &l.var_addr))
                .collect(),
        };
        mc.cdp.layouts.insert(entry.0, (l, fast));
    }
    let (l, f) = &mc.cdp.layouts[&entry.0];
    Ok((l, f))
}

/// Device `malloc` (and `cudaMalloc` on the device): a new global allocation, or 0 when the
/// heap has no room.
pub(crate) fn device_malloc(mc: &mut Machine<'_>, size: u64) -> u64 {
    let Some(need) = mc.heap.reserve(size) else {
        return 0;
    };
    let name = format!("malloc#{}", mc.heap.made);
    let addr = mc.global.alloc(&name, vec![0; size as usize], false);
    mc.heap.made_at(addr, need);
    addr
}

/// Device `free` (and `cudaFree`): a live allocation's bytes go back to the heap.
pub(crate) fn device_free(mc: &mut Machine<'_>, addr: u64) {
    if mc.heap.release(addr) {
        // Its bytes go back to the host, and its shadow with them; later accesses are out
        // of bounds.
        if let Some(i) = mc.global.release(addr) {
            if let Some(hb) = mc.hb.as_mut() {
                hb.forget_global(i);
            }
        }
    }
}

/// `n` bytes of call argument `i` of a call to a device runtime function (a call-site `.param`
/// variable, or a register or an immediate, little-endian), zero-padded.
pub(super) fn call_arg(
    layout: &Layout,
    warp: &Warp,
    frame: usize,
    args: &[Operand],
    i: usize,
    lane: usize,
    n: usize,
) -> Vec<u8> {
    let fr = &warp.frames[frame];
    let mut out = match args.get(i) {
        Some(Operand::Sym(Symbol::Var(v), k)) => {
            let off = lane * fr.param_size + layout.var_addr[v.0 as usize] as usize;
            let off = off + *k as usize;
            fr.params.get(off..off + n).unwrap_or_default().to_vec()
        }
        Some(Operand::Reg(r)) => fr.regs[r.0 as usize * WARP + lane].to_le_bytes().to_vec(),
        Some(Operand::Imm(v)) => v.to_le_bytes().to_vec(),
        _ => Vec::new(),
    };
    out.resize(n, 0);
    out
}

/// Bytes of a kernel's parameters, laid out at `offsets`.
fn params_size(f: &crate::ir::Function, offsets: &[u64]) -> usize {
    (f.params.iter().zip(offsets))
        .map(|(p, &o)| o + u64::from(p.size))
        .max()
        .unwrap_or(0) as usize
}
