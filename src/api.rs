//! The library facade: the one way into ptxrun for the command line (through `runner`, which
//! reads launch files), the Python package and any other program.
//!
//! A [`Module`] is a parsed and lowered PTX module, shared cheaply between launches;
//! [`Module::kernel`] picks one of its `.entry` functions; a [`Launch`] describes one launch the
//! way `cuLaunchKernelEx` does (grid, block, cluster, dynamic shared memory, the kernel's
//! arguments) plus the device buffers the arguments point into; [`Kernel::launch`] runs it under
//! [`RunOptions`] (seed, latency model, checking) and returns a [`Report`] whose buffers hold
//! what the kernel left in device memory. Parameters are laid out as the CUDA ABI lays out the
//! PTX `.param` list (PTX ISA 9.0 section 5.1.6.1, "Kernel Function Parameters"); cluster rules
//! follow section 2.2.1 and the `.reqnctapercluster` directive (section 11.4).
//!
//! Every check of a launch's shape is made here, so a library caller cannot reach the
//! executor with a zero block dimension, a grid that is not a multiple of the cluster, or an
//! argument of the wrong size: each is an [`Error`], never a panic.
//!
//! ```
//! use ptxrun::api::{Arg, Buffer, Launch, Module, RunOptions, Type};
//!
//! let ptx = r#"
//! .version 8.0
//! .target sm_80
//! .address_size 64
//! .visible .entry twice(.param .u64 p, .param .u32 n)
//! {
//!     .reg .b32 %r<4>;
//!     .reg .b64 %rd<4>;
//!     .reg .pred %p<2>;
//!     ld.param.u64 %rd1, [p];
//!     ld.param.u32 %r1, [n];
//!     mov.u32 %r2, %tid.x;
//!     setp.ge.u32 %p1, %r2, %r1;
//!     @%p1 ret;
//!     mul.wide.u32 %rd2, %r2, 4;
//!     add.s64 %rd3, %rd1, %rd2;
//!     ld.global.u32 %r3, [%rd3];
//!     shl.b32 %r3, %r3, 1;
//!     st.global.u32 [%rd3], %r3;
//!     ret;
//! }
//! "#;
//! let module = Module::parse(ptx).unwrap();
//! let kernel = module.kernel(Some("twice")).unwrap();
//! let data: Vec<u8> = (0u32..32).flat_map(|v| v.to_le_bytes()).collect();
//! let launch = Launch {
//!     grid: [1, 1, 1],
//!     block: [32, 1, 1],
//!     buffers: vec![Buffer { name: "p".into(), ty: Type::U32, data }],
//!     args: vec![Arg::buffer(0), Arg::Bytes(20u32.to_le_bytes().to_vec())],
//!     ..Launch::default()
//! };
//! let report = kernel.launch(&launch, &RunOptions::default()).unwrap();
//! assert_eq!(report.status(), "ok");
//! let out = report.buffer_data(0).unwrap();
//! assert_eq!(&out[4 * 19..4 * 21], &[38, 0, 0, 0, 20, 0, 0, 0]);
//! ```

use crate::exec::{self, Grid, Options, Outcome};
use crate::ir;
use crate::mem::tensormap::TensorMap;
use crate::mem::Global;
use crate::source::Compiled;
use std::fmt;
use std::path::Path;
use std::sync::Arc;

pub use crate::report::{Diagnostic, RelatedLine, Report};

// The types a caller names beside a launch, re-exported so that the Python package and the
// tests reach them through the facade: element types, the rules of a findings policy, the trace
// sink of `RunOptions::trace_to`, a fault's kind, the latency models, and the descriptions of
// tensor maps and texture objects that launch files and the Python package build arguments from.
pub use crate::exec::FaultKind;
pub use crate::ir::Type;
pub use crate::latency::STANDARD as STANDARD_LATENCIES;
// A caller's own latency model implements this trait on these types (`latency`'s doc example).
pub use crate::latency::{LatencyModel, OpClass, OpDesc, Timing, TRY_WAIT_LIMIT};
// The deepest nesting of `{`, `[` and `(` the front end accepts (deeper input is an error).
pub use crate::launch::texture::{MipSpec, TexSpec};
pub use crate::launch::{float_bytes, parse_type, Im2colShape, MapShape, TensorMapDesc};
pub use crate::lex::MAX_SCOPE_DEPTH;
pub use crate::mem::tensormap::F32Mode;
pub use crate::mem::texture::{AddrMode, Chan, Mips, TexObject};
pub use crate::report::{Policy, Rule};
pub use crate::trace::TraceSink;

/// Bad input: PTX that does not compile, or a launch the kernel cannot take. The message is
/// ready to print (PTX errors are rendered with their source lines).
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Error {
    /// The module does not parse, lower or type-check.
    InvalidPtx(String),
    /// The launch does not fit the kernel or the machine.
    InvalidLaunch(String),
    /// A file could not be read.
    Io(String),
    /// The kernel reached an instruction ptxrun does not execute.
    Unsupported(String),
}

impl Error {
    pub fn message(&self) -> &str {
        match self {
            Error::InvalidPtx(m)
            | Error::InvalidLaunch(m)
            | Error::Io(m)
            | Error::Unsupported(m) => m,
        }
    }
}

impl fmt::Display for Error {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.message())
    }
}

impl std::error::Error for Error {}

fn invalid<T>(msg: impl Into<String>) -> Result<T, Error> {
    Err(Error::InvalidLaunch(msg.into()))
}

/// A compiled PTX module: its IR, its text and the name reports give it. Cloning is cheap.
#[derive(Clone)]
pub struct Module {
    compiled: Arc<Compiled>,
}

impl Module {
    /// Compiles PTX text; reports call it `<ptx>`.
    pub fn parse(text: &str) -> Result<Module, Error> {
        Module::parse_named(text.to_string(), "<ptx>")
    }

    /// Compiles PTX text that reports call `name` (usually its file name).
    pub fn parse_named(text: String, name: &str) -> Result<Module, Error> {
        let compiled = Compiled::new(text, name).map_err(Error::InvalidPtx)?;
        Ok(Module {
            compiled: Arc::new(compiled),
        })
    }

    /// Reads and compiles a `.ptx` file (invalid UTF-8 is replaced: the lexer then rejects it
    /// at the offending line).
    pub fn from_file(path: &Path) -> Result<Module, Error> {
        let bytes =
            std::fs::read(path).map_err(|e| Error::Io(format!("{}: {e}", path.display())))?;
        let text = String::from_utf8_lossy(&bytes).into_owned();
        Module::parse_named(text, &path.display().to_string())
    }

    pub fn ir(&self) -> &ir::Module {
        &self.compiled.ir
    }

    pub fn text(&self) -> &str {
        &self.compiled.text
    }

    pub fn name(&self) -> &str {
        &self.compiled.name
    }

    /// Warnings about the module as a whole (see `ir::Module::warnings`); reports repeat them.
    pub fn warnings(&self) -> Vec<String> {
        self.ir().warnings()
    }

    /// The names of the module's `.entry` functions, in source order.
    pub fn entries(&self) -> Vec<&str> {
        self.ir().entries().map(|f| f.name.as_str()).collect()
    }

    /// The entry named `name`, or the only one when `name` is `None`.
    pub fn kernel(&self, name: Option<&str>) -> Result<Kernel, Error> {
        let fs = &self.ir().functions;
        let found = match name {
            Some(n) => fs.iter().position(|f| f.is_entry && f.name == n),
            None => {
                let mut entries = fs.iter().enumerate().filter(|(_, f)| f.is_entry);
                match (entries.next(), entries.next()) {
                    (Some((i, _)), None) => Some(i),
                    (None, _) => {
                        return invalid(format!("{}: the module has no .entry", self.name()))
                    }
                    (Some(_), Some(_)) => {
                        return invalid(format!(
                            "{}: several entries ({}); name one with `entry` or --entry",
                            self.name(),
                            self.entries().join(", ")
                        ))
                    }
                }
            }
        };
        match found {
            Some(index) => Ok(Kernel {
                module: self.clone(),
                index,
            }),
            None => invalid(format!(
                "{}: no .entry named `{}` (entries: {})",
                self.name(),
                name.unwrap_or_default(),
                self.entries().join(", ")
            )),
        }
    }
}

/// One `.entry` of a module.
#[derive(Clone)]
pub struct Kernel {
    module: Module,
    index: usize,
}

/// A device buffer of a launch: its name (for reports and outputs), its element type (for
/// reports) and its initial bytes.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Buffer {
    pub name: String,
    pub ty: Type,
    pub data: Vec<u8>,
}

/// One kernel argument, in the order of the entry's `.param` list.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Arg {
    /// The address of `Launch::buffers[index]` plus `offset` bytes (an 8-byte pointer).
    Buffer { index: usize, offset: u64 },
    /// A null pointer (8 bytes of zero), as Triton's unused scratch pointers are.
    Null,
    /// Bytes passed by value: a scalar or a by-value struct; the size must be the parameter's.
    Bytes(Vec<u8>),
    /// A `CUtensorMap` (128 bytes by value) whose global address is `offset` bytes into
    /// `Launch::buffers[buffer]`.
    TensorMap {
        buffer: usize,
        offset: u64,
        map: crate::launch::TensorMapDesc,
    },
    /// A by-value struct (`.param .align N .b8 name[SIZE]`): `bytes`, zero-padded to the
    /// parameter's size, with each field's bytes at its byte offset. Fields may be any
    /// argument (a buffer's address, a tensor map, a nested struct), and may not overlap.
    Struct {
        bytes: Vec<u8>,
        fields: Vec<(u64, Arg)>,
    },
    /// A texture or surface object (an 8-byte handle) whose texels start `offset` bytes into
    /// `Launch::buffers[buffer]`.
    Texture {
        buffer: usize,
        offset: u64,
        object: TexObject,
    },
}

impl Arg {
    /// The start of buffer `index`.
    pub fn buffer(index: usize) -> Arg {
        Arg::Buffer { index, offset: 0 }
    }
}

/// One launch: its shape, its buffers and its arguments.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Launch {
    pub grid: [u32; 3],
    pub block: [u32; 3],
    /// CTAs per cluster; `None`: the kernel's `.reqnctapercluster`, else one.
    pub cluster: Option<[u32; 3]>,
    pub dynamic_shared_bytes: u32,
    /// A cooperative launch (`cudaLaunchCooperativeKernel`): every CTA resident at once, grid
    /// synchronisation (`this_grid().sync()`) works, and a grid an H100 cannot hold at once is
    /// refused.
    pub cooperative: bool,
    pub buffers: Vec<Buffer>,
    pub args: Vec<Arg>,
}

impl Default for Launch {
    fn default() -> Self {
        Launch {
            grid: [1, 1, 1],
            block: [1, 1, 1],
            cluster: None,
            dynamic_shared_bytes: 0,
            cooperative: false,
            buffers: Vec::new(),
            args: Vec::new(),
        }
    }
}

/// Largest grid ptxrun runs, in CTAs.
pub const MAX_CTAS: u64 = 1 << 20;

/// How to run a launch: the schedule (seed and latency model) and what to record.
#[derive(Debug, Clone)]
pub struct RunOptions {
    pub seed: u64,
    /// A latency model spec (`--latency`): `bandwidth`, `adversarial`, `fixed:N`, ...
    pub latency: String,
    /// A latency model of the caller's own, used instead of `latency` when set.
    pub latency_model: Option<CustomLatency>,
    /// Check for hazards (happens-before).
    pub check: bool,
    /// Stop with a fault after this many warp instructions.
    pub max_steps: u64,
    /// Cycles the virtual clock advances per instruction.
    pub instruction_cycles: u64,
    /// Record a trace; with every instruction too.
    pub trace: bool,
    pub trace_instructions: bool,
    /// Write the trace there as the run makes it (its memory then does not grow with the
    /// trace) instead of keeping it in the outcome.
    pub trace_to: Option<crate::trace::TraceSink>,
    /// Use the warp-wide fast forms (only tests turn this off, to compare).
    pub fast: bool,
    /// Compile a straight run of fast forms to native code (Cranelift) once its instructions
    /// have been interpreted this many times each on average ([`JIT_AFTER`] by default; 0
    /// compiles at once); `None` interprets everything. Outputs, reports and traces are the
    /// same either way.
    pub jit: Option<u32>,
    /// Check, as the run goes, invariants that the fast paths rely on (slower; for tests: a
    /// broken one panics).
    pub verify: bool,
    /// Threads to run clusters on; results do not depend on it.
    pub jobs: usize,
    /// Set from another thread to stop the run (an `interrupted` fault).
    pub cancel: Option<Arc<std::sync::atomic::AtomicBool>>,
    /// Stop the run with a `timeout` fault after this long (wall clock).
    pub timeout: Option<std::time::Duration>,
    /// The memory budget in bytes (`None`: 3/4 of the least of physical memory, `ulimit -v`
    /// and the cgroup's `memory.max`): a launch
    /// that needs more is an [`Error::InvalidLaunch`] before it runs, or a `memory-limit`
    /// fault when it gets there while running.
    pub memory_limit: Option<u64>,
    /// Bytes device `malloc` may hand out at once (CUDA's `cudaLimitMallocHeapSize`): beyond
    /// them it returns NULL, as CUDA does.
    pub malloc_heap_bytes: u64,
    /// Bytes of device `printf` output kept (CUDA's `cudaLimitPrintfFifoSize`): the calls that
    /// do not fit are dropped, and the outcome says how many bytes were.
    pub printf_fifo_bytes: u64,
}

/// A caller's own [`LatencyModel`] for [`RunOptions::latency_model`]; clones share it, and each
/// run starts from its [`LatencyModel::fresh`] copy (which the run resets per cluster).
#[derive(Clone)]
pub struct CustomLatency(Arc<std::sync::Mutex<Box<dyn LatencyModel>>>);

impl CustomLatency {
    pub fn new(model: impl LatencyModel + 'static) -> CustomLatency {
        CustomLatency(Arc::new(std::sync::Mutex::new(Box::new(model))))
    }

    fn fresh(&self) -> Box<dyn LatencyModel> {
        // A model that panicked in another run is still a model: its `fresh` copy is new.
        let model = self.0.lock().unwrap_or_else(|e| e.into_inner());
        model.fresh()
    }
}

impl fmt::Debug for CustomLatency {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let model = self.0.lock().unwrap_or_else(|e| e.into_inner());
        write!(f, "CustomLatency({})", model.name())
    }
}

/// CUDA's default device heap, `cudaLimitMallocHeapSize` (8 MiB).
pub const MALLOC_HEAP_BYTES: u64 = exec::MALLOC_HEAP_BYTES;
/// CUDA's default printf FIFO, `cudaLimitPrintfFifoSize` (1 MiB).
pub const PRINTF_FIFO_BYTES: u64 = exec::PRINTF_FIFO_BYTES;

impl Default for RunOptions {
    fn default() -> Self {
        RunOptions {
            seed: 0,
            latency: DEFAULT_LATENCY.to_string(),
            latency_model: None,
            check: true,
            max_steps: DEFAULT_MAX_STEPS,
            instruction_cycles: 1,
            trace: false,
            trace_instructions: false,
            trace_to: None,
            fast: true,
            jit: Some(JIT_AFTER),
            verify: false,
            jobs: 1,
            cancel: None,
            timeout: None,
            memory_limit: None,
            malloc_heap_bytes: MALLOC_HEAP_BYTES,
            printf_fifo_bytes: PRINTF_FIFO_BYTES,
        }
    }
}

/// Most cycles an instruction may charge the virtual clock (`RunOptions::instruction_cycles`):
/// generous for any latency study, and small enough that a run of 2^32 warp instructions
/// leaves the clock (and `%globaltimer`) far from overflow.
pub const MAX_INSTRUCTION_CYCLES: u64 = 1 << 20;

/// Most threads a run (`RunOptions::jobs`) or an exploration may use.
pub const MAX_JOBS: usize = 1024;

impl RunOptions {
    /// Rejects options no run can use: each is bad input naming the option and its range.
    pub fn validate(&self) -> Result<(), Error> {
        if self.jobs > MAX_JOBS {
            return invalid(format!(
                "--jobs {}: must be 0 (every core) to {MAX_JOBS} threads",
                self.jobs
            ));
        }
        if !(1..=MAX_INSTRUCTION_CYCLES).contains(&self.instruction_cycles) {
            return invalid(format!(
                "--instruction-cycles {}: must be 1 to {MAX_INSTRUCTION_CYCLES} (2^20) cycles per instruction",
                self.instruction_cycles
            ));
        }
        Ok(())
    }
}

/// The latency model runs use unless told otherwise.
pub const DEFAULT_LATENCY: &str = "bandwidth";

/// The step limit unless told otherwise (see `exec::DEFAULT_MAX_STEPS`).
pub const DEFAULT_MAX_STEPS: u64 = exec::DEFAULT_MAX_STEPS;

/// How many times, on average, a straight run's instructions are interpreted before the JIT
/// compiles it, unless told otherwise ([`RunOptions::jit`]).
pub const JIT_AFTER: u32 = exec::JIT_AFTER;

/// A launch laid out in memory, ready to run (any number of times, under any schedule).
#[derive(Clone)]
pub struct Prepared {
    pub module: Module,
    pub entry: usize,
    pub grid: Grid,
    pub global: Global,
    pub kparams: Vec<u8>,
    /// (name, type, address, bytes) of each launch buffer, in `Launch::buffers` order.
    pub buffers: Vec<(String, Type, u64, usize)>,
}

impl Kernel {
    pub fn name(&self) -> &str {
        &self.function().name
    }

    pub fn module(&self) -> &Module {
        &self.module
    }

    /// The entry's `.param` list with each parameter's offset and size.
    pub fn params(&self) -> &[ir::Param] {
        &self.function().params
    }

    fn function(&self) -> &ir::Function {
        &self.module.ir().functions[self.index]
    }

    /// Validates the launch and lays it out: buffers allocated in global memory, the parameter
    /// buffer filled, the cluster shape settled.
    pub fn prepare(&self, launch: &Launch) -> Result<Prepared, Error> {
        self.prepare_owned(launch.clone())
    }

    /// [`Kernel::prepare`], moving the buffers' bytes into device memory instead of copying.
    pub fn prepare_owned(&self, mut launch: Launch) -> Result<Prepared, Error> {
        let func = self.function();
        let grid = self.grid(&launch)?;
        if launch.args.len() != func.params.len() {
            return invalid(format!(
                "`{}` takes {} parameters but the launch gives {}",
                func.name,
                func.params.len(),
                launch.args.len()
            ));
        }
        let mut global = Global::new();
        let buffers: Vec<(String, Type, u64, usize)> = launch
            .buffers
            .iter_mut()
            .map(|b| {
                let len = b.data.len();
                let addr = global.alloc(&b.name, std::mem::take(&mut b.data), false);
                (b.name.clone(), b.ty, addr, len)
            })
            .collect();
        // The workspace CUDA's grid synchronisation counts arrivals in (after the buffers,
        // whose addresses do not change with it).
        let mut grid = grid;
        if launch.cooperative {
            grid.cooperative = Some(global.alloc("(grid workspace)", vec![0; 16], false));
        }
        let size = func.params.iter().map(|p| p.offset + p.size).max();
        let mut kparams = vec![0u8; size.unwrap_or(0) as usize];
        for (i, (arg, param)) in launch.args.iter().zip(&func.params).enumerate() {
            let bytes = arg_bytes(arg, param, &buffers, &mut grid.objects)
                .map_err(|m| Error::InvalidLaunch(format!("params[{i}]{m}")))?;
            let off = param.offset as usize;
            kparams[off..off + bytes.len()].copy_from_slice(&bytes);
        }
        Ok(Prepared {
            module: self.module.clone(),
            entry: self.index,
            grid,
            global,
            kparams,
            buffers,
        })
    }

    /// Prepares and runs one launch.
    pub fn launch(&self, launch: &Launch, opts: &RunOptions) -> Result<Report, Error> {
        let mut p = self.prepare(launch)?;
        let outcome = p.execute_once(opts)?;
        Ok(p.report(outcome))
    }

    /// The grid after the checks of the launch's shape and cluster.
    fn grid(&self, l: &Launch) -> Result<Grid, Error> {
        let func = self.function();
        for (field, d) in [("grid", l.grid), ("block", l.block)] {
            if d.contains(&0) {
                return invalid(format!("`{field}` has a zero dimension"));
            }
        }
        let threads: u64 = l.block.iter().map(|&d| u64::from(d)).product();
        if threads > 1024 {
            return invalid(format!(
                "`block` has {threads} threads; at most 1024 are allowed"
            ));
        }
        check_limits(func, l)?;
        let ctas: u64 = l.grid.iter().map(|&d| u64::from(d)).product();
        if ctas > MAX_CTAS {
            return invalid(format!(
                "`grid` has {ctas} CTAs; ptxrun runs at most {MAX_CTAS}"
            ));
        }
        let (cluster, explicit_cluster) = match (l.cluster, func.attrs.reqnctapercluster) {
            (Some(c), Some(r)) if c != r => {
                return invalid(format!(
                    "cluster = {c:?}, but `{}` requires .reqnctapercluster {r:?}",
                    func.name
                ))
            }
            (Some(c), _) | (None, Some(c)) => (c, true),
            (None, None) => ([1, 1, 1], func.attrs.explicitcluster),
        };
        let csize: u64 = cluster.iter().map(|&d| u64::from(d)).product();
        if cluster.contains(&0) || csize > 16 {
            return invalid(format!("cluster = {cluster:?}: a cluster has 1 to 16 CTAs"));
        }
        if (0..3).any(|i| !l.grid[i].is_multiple_of(cluster[i])) {
            return invalid(format!(
                "grid = {:?} is not a multiple of cluster = {cluster:?}",
                l.grid
            ));
        }
        let grid = Grid {
            grid: l.grid,
            block: l.block,
            dynamic_shared_bytes: l.dynamic_shared_bytes,
            cluster,
            explicit_cluster,
            cooperative: None,
            objects: Vec::new(),
        };
        if l.cooperative {
            self.check_co_resident(&grid, ctas)?;
        }
        Ok(grid)
    }

    /// A cooperative launch needs every CTA resident at once, in clusters of one CTA.
    fn check_co_resident(&self, grid: &Grid, ctas: u64) -> Result<(), Error> {
        if grid.cluster_ctas() > 1 {
            return Err(Error::Unsupported(format!(
                "a cooperative launch with clusters of {} CTAs (ptxrun runs cooperative grids of one-CTA clusters)",
                grid.cluster_ctas()
            )));
        }
        let (most, limit) =
            crate::exec::resident_ctas(self.module.ir(), ir::FuncId(self.index as u32), grid);
        if ctas > most {
            return invalid(format!(
                "a cooperative launch of {ctas} CTAs cannot be resident at once: an H100 ({} SMs) holds at most {most} CTAs of `{}` with this block and shared memory (limited by {limit})",
                crate::exec::SMS,
                self.function().name
            ));
        }
        Ok(())
    }
}

/// Largest dynamic shared memory per CTA on sm_90 (227 KiB, opted in).
pub const MAX_DYNAMIC_SHARED_BYTES: u32 = 227 * 1024;

/// The hardware's per-dimension limits (CUDA C Programming Guide, "Compute Capabilities": block
/// 1024 x 1024 x 64, grid (2^31 - 1) x 65535 x 65535), the kernel's `.reqntid`/`.maxntid`
/// (PTX ISA 9.0 section 11.4) and the shared memory a CTA may have: a GPU refuses such a launch.
fn check_limits(func: &ir::Function, l: &Launch) -> Result<(), Error> {
    let (b, g) = (l.block, l.grid);
    if b[0] > 1024 || b[1] > 1024 || b[2] > 64 {
        return invalid(format!(
            "block = {b:?}: a block is at most 1024 x 1024 x 64"
        ));
    }
    if g[0] > i32::MAX as u32 || g[1] > 65535 || g[2] > 65535 {
        return invalid(format!(
            "grid = {g:?}: a grid is at most 2147483647 x 65535 x 65535 CTAs"
        ));
    }
    if let Some(r) = func.attrs.reqntid {
        if r != b {
            return invalid(format!(
                "block = {b:?}, but `{}` requires .reqntid {r:?}",
                func.name
            ));
        }
    }
    if let Some(m) = func.attrs.maxntid {
        let (most, threads) = (
            m.iter().map(|&d| u64::from(d)).product::<u64>(),
            b.iter().map(|&d| u64::from(d)).product::<u64>(),
        );
        if threads > most {
            return invalid(format!(
                "block = {b:?} has {threads} threads, but `{}` declares .maxntid {m:?} ({most})",
                func.name
            ));
        }
    }
    if l.dynamic_shared_bytes > MAX_DYNAMIC_SHARED_BYTES {
        return invalid(format!(
            "{} bytes of dynamic shared memory: a CTA has at most {MAX_DYNAMIC_SHARED_BYTES}",
            l.dynamic_shared_bytes
        ));
    }
    Ok(())
}

/// The bytes one argument puts in the parameter buffer; errors continue `params[i]`.
fn arg_bytes(
    arg: &Arg,
    param: &ir::Param,
    buffers: &[(String, Type, u64, usize)],
    objs: &mut Vec<TexObject>,
) -> Result<Vec<u8>, String> {
    let size = param.size as usize;
    if let Arg::Struct { bytes, fields } = arg {
        let what = format!("kernel parameter `{}` ({size} bytes)", param.name);
        return struct_bytes(bytes, fields, Some(size), &what, buffers, objs);
    }
    let out = field_bytes(arg, buffers, objs)?;
    if out.len() == size {
        return Ok(out);
    }
    let (p, n) = (&param.name, param.size);
    Err(match arg {
        Arg::Buffer { index, .. } => format!(
            " (buffer `{}`): kernel parameter `{p}` is {n} bytes, a pointer needs 8",
            buffers[*index].0
        ),
        Arg::Null => format!(": kernel parameter `{p}` is {n} bytes, a null pointer needs 8"),
        Arg::TensorMap { buffer, .. } => format!(
            " (tensormap over `{}`): kernel parameter `{p}` is {n} bytes, a CUtensorMap has 128",
            buffers[*buffer].0
        ),
        _ => format!(
            ": kernel parameter `{p}` is {n} bytes ({}), the launch gives {} bytes",
            param.ty,
            out.len()
        ),
    })
}

/// The bytes of one argument, at its own size (a struct: its bytes and fields, no padding).
/// Texture and surface objects are appended to `objs`; the argument holds the handle.
fn field_bytes(
    arg: &Arg,
    buffers: &[(String, Type, u64, usize)],
    objs: &mut Vec<TexObject>,
) -> Result<Vec<u8>, String> {
    let buffer = |index: usize| {
        buffers
            .get(index)
            .ok_or_else(|| format!(": no buffer {index} (the launch has {})", buffers.len()))
    };
    match arg {
        Arg::Buffer { index, offset } => {
            let (name, _, addr, len) = buffer(*index)?;
            if *offset > *len as u64 {
                return Err(format!(
                    " (buffer `{name}`): offset {offset} is past its end ({len} bytes)"
                ));
            }
            Ok((addr + offset).to_le_bytes().to_vec())
        }
        Arg::Null => Ok(vec![0; 8]),
        Arg::Bytes(bytes) => Ok(bytes.clone()),
        Arg::TensorMap {
            buffer: index,
            offset,
            map,
        } => {
            let (name, _, addr, len) = buffer(*index)?;
            let m: TensorMap = map.at(addr.saturating_add(*offset));
            m.validate().map_err(|e| format!(": {e}"))?;
            if m.extent().saturating_add(*offset) > *len as u64 {
                return Err(format!(
                    ": the tensor spans {} bytes from offset {offset} but buffer `{name}` has {len}",
                    m.extent()
                ));
            }
            Ok(m.encode().to_vec())
        }
        Arg::Struct { bytes, fields } => {
            struct_bytes(bytes, fields, None, "the struct", buffers, objs)
        }
        Arg::Texture {
            buffer: index,
            offset,
            object,
        } => {
            let (name, _, addr, len) = buffer(*index)?;
            let mut o = object.clone();
            o.base = addr.saturating_add(*offset);
            if o.extent().saturating_add(*offset) > *len as u64 {
                return Err(format!(
                    ": the texels span {} bytes from offset {offset} but buffer `{name}` has {len}",
                    o.extent()
                ));
            }
            objs.push(o);
            // Handles count from 1, as CUDA's do.
            Ok((objs.len() as u64).to_le_bytes().to_vec())
        }
    }
}

/// A struct's bytes: `bytes` padded to `size` (else to where its last field ends), each
/// field's bytes at its offset. `what` names it in messages.
fn struct_bytes(
    bytes: &[u8],
    fields: &[(u64, Arg)],
    size: Option<usize>,
    what: &str,
    buffers: &[(String, Type, u64, usize)],
    objs: &mut Vec<TexObject>,
) -> Result<Vec<u8>, String> {
    let mut placed: Vec<(u64, Vec<u8>)> = Vec::with_capacity(fields.len());
    for (i, (off, f)) in fields.iter().enumerate() {
        let b = field_bytes(f, buffers, objs).map_err(|e| format!(".fields[{i}]{e}"))?;
        if matches!(f, Arg::TensorMap { .. }) && off % 64 != 0 {
            return Err(format!(
                ".fields[{i}]: a CUtensorMap must be 64-byte aligned, and offset {off} is not"
            ));
        }
        let end = off.saturating_add(b.len() as u64);
        if let Some(j) = placed
            .iter()
            .position(|(o, pb)| *o < end && *off < o.saturating_add(pb.len() as u64))
        {
            return Err(format!(
                ".fields[{i}]: bytes {off}..{end} overlap fields[{j}]"
            ));
        }
        placed.push((*off, b));
    }
    let natural = placed
        .iter()
        .map(|(o, b)| o.saturating_add(b.len() as u64))
        .chain([bytes.len() as u64])
        .max()
        .unwrap_or(0);
    let size = size.map_or(natural, |s| s as u64);
    use crate::launch::MAX_STRUCT_BYTES;
    if size > MAX_STRUCT_BYTES {
        return Err(format!(
            ": {what} would be {size} bytes; kernel parameters hold at most {MAX_STRUCT_BYTES}"
        ));
    }
    if natural > size {
        let past = |(o, b): &(u64, Vec<u8>)| o.saturating_add(b.len() as u64) > size;
        return Err(match placed.iter().position(past) {
            Some(i) => format!(
                ".fields[{i}]: {} bytes at offset {} run past the end of {what}",
                placed[i].1.len(),
                placed[i].0
            ),
            None => format!(": `bytes` holds {} bytes, more than {what}", bytes.len()),
        });
    }
    let mut out = vec![0u8; size as usize];
    out[..bytes.len()].copy_from_slice(bytes);
    for (o, b) in placed {
        out[o as usize..o as usize + b.len()].copy_from_slice(&b);
    }
    Ok(out)
}

impl Prepared {
    /// Runs the prepared launch under one schedule.
    pub fn execute(&self, o: &RunOptions) -> Result<Outcome, Error> {
        let Some(global) = self.global.try_clone() else {
            return invalid(format!(
                "cannot allocate {} for a copy of the launch's buffers to run on (the launch \
                 keeps its own for later runs)",
                crate::mem::budget::human(self.global.size() as u64)
            ));
        };
        self.run_on(global, o)
    }

    /// [`Prepared::execute`] for the last run of this launch: the run takes the laid-out
    /// memory instead of a copy (later runs would start from empty memory).
    pub fn execute_once(&mut self, o: &RunOptions) -> Result<Outcome, Error> {
        let global = std::mem::take(&mut self.global);
        self.run_on(global, o)
    }

    fn run_on(&self, global: Global, o: &RunOptions) -> Result<Outcome, Error> {
        o.validate()?;
        let latency = match &o.latency_model {
            Some(model) => model.fresh(),
            None => crate::latency::parse(&o.latency, o.seed).map_err(Error::InvalidLaunch)?,
        };
        let limit = o
            .memory_limit
            .unwrap_or_else(crate::mem::budget::default_limit);
        let needs = self.footprint(&global);
        let fixed = needs
            .iter()
            .map(|(_, b)| b)
            .fold(0u64, |a, b| a.saturating_add(*b));
        if fixed > limit {
            use crate::mem::budget::human;
            let parts: Vec<String> = needs
                .iter()
                .filter(|(_, b)| *b > 0)
                .map(|(what, b)| format!("{what} {}", human(*b)))
                .collect();
            return invalid(format!(
                "the launch needs at least {} of memory ({}), more than the memory limit of {} \
                 (--memory-limit; the default is 3/4 of the machine's memory or of `ulimit -v`)",
                human(fixed),
                parts.join(", "),
                human(limit)
            ));
        }
        let opts = Options {
            seed: o.seed,
            max_steps: o.max_steps,
            instruction_cycles: o.instruction_cycles,
            latency,
            trace: o.trace,
            trace_instructions: o.trace_instructions,
            trace_to: o.trace_to.clone(),
            check: o.check,
            fast: o.fast,
            jit: o.jit,
            verify: o.verify,
            jobs: o.jobs.max(1),
            cancel: o.cancel.clone(),
            deadline: o
                .timeout
                .and_then(|t| std::time::Instant::now().checked_add(t)),
            meter: Arc::new(crate::mem::budget::Meter::new(limit, fixed)),
            malloc_heap_bytes: o.malloc_heap_bytes,
            printf_fifo_bytes: o.printf_fifo_bytes,
        };
        Ok(exec::run(
            self.module.ir(),
            ir::FuncId(self.entry as u32),
            &self.grid,
            global,
            self.kparams.clone(),
            opts,
        ))
    }

    /// What a run holds from its start, by kind: global memory (buffers), the module's
    /// variables, and one cluster's shared memory (local memory is made, and charged, a page
    /// at a time as threads write it).
    fn footprint(&self, global: &Global) -> [(&'static str, u64); 3] {
        use crate::ir::Space;
        let m = self.module.ir();
        let entry = Some(ir::FuncId(self.entry as u32));
        let (mut vars, mut shared) = (0u64, 0u64);
        for v in &m.vars {
            match v.space {
                Space::Global | Space::Const => vars = vars.saturating_add(v.size),
                Space::Shared | Space::SharedCluster if v.owner.is_none() || v.owner == entry => {
                    shared = shared.saturating_add(v.size)
                }

                _ => {}
            }
        }
        let g = &self.grid;
        let ctas: u64 = g.cluster.iter().map(|&d| u64::from(d)).product();
        let shared = shared.saturating_add(u64::from(g.dynamic_shared_bytes));
        [
            ("buffers", global.size() as u64),
            ("module variables", vars),
            ("shared memory", shared.saturating_mul(ctas)),
        ]
    }

    /// The report of one of this launch's runs.
    pub fn report(&self, outcome: Outcome) -> Report {
        Report::new(self.module.compiled.clone(), outcome, self.buffers.clone())
    }
}
