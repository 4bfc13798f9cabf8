//! `ptxrun._ptxrun`: the Python extension module, a thin PyO3 layer over ptxrun's library
//! facade (`ptxrun::api`). Nothing is interpreted here: modules compile through
//! `api::Module`, launches run through `api::Kernel::launch` (or `explore` for many
//! schedules) with the GIL released, and results come back as the contract's JSON report, the
//! rendered human report and the bytes of every buffer. The Python package (`python/ptxrun`)
//! turns NumPy arrays into buffers and the JSON into objects and exceptions.

use ptxrun::api::{self, Arg, Buffer, Launch, RunOptions};
use ptxrun::api::{parse_type, F32Mode, Im2colShape, MapShape, MipSpec, TensorMapDesc, TexSpec};
use ptxrun::launchfile::{explore_prepared, schedules};
use pyo3::exceptions::{PyOSError, PyValueError};
use pyo3::prelude::*;
use pyo3::types::PyBytes;
use std::path::PathBuf;

fn to_py(e: api::Error) -> PyErr {
    match e {
        api::Error::Io(m) => PyOSError::new_err(m),
        other => PyValueError::new_err(other.message().to_string()),
    }
}

/// A compiled PTX module.
#[pyclass(frozen, name = "Module", module = "ptxrun._ptxrun")]
struct PyPtxModule {
    inner: api::Module,
}

/// One kernel argument: a pointer into a buffer, bytes by value, a null pointer or a tensor map.
#[pyclass(frozen, name = "Arg", module = "ptxrun._ptxrun")]
#[derive(Clone)]
struct PyArg {
    inner: Arg,
}

#[pymethods]
impl PyArg {
    /// The address of buffer `index` plus `offset` bytes.
    #[staticmethod]
    #[pyo3(signature = (index, offset = 0))]
    fn buffer(index: usize, offset: u64) -> Self {
        PyArg {
            inner: Arg::Buffer { index, offset },
        }
    }

    /// Bytes passed by value (a scalar or a struct); their length must be the parameter's size.
    #[staticmethod]
    fn bytes(data: &[u8]) -> Self {
        PyArg {
            inner: Arg::Bytes(data.to_vec()),
        }
    }

    /// A null pointer.
    #[staticmethod]
    fn null() -> Self {
        PyArg { inner: Arg::Null }
    }

    /// A by-value struct: `data`, zero-padded to the parameter's size, with each field's
    /// argument at its byte offset.
    #[staticmethod]
    fn structure(data: &[u8], fields: Vec<(u64, Bound<'_, PyArg>)>) -> Self {
        PyArg {
            inner: Arg::Struct {
                bytes: data.to_vec(),
                fields: fields
                    .iter()
                    .map(|(o, a)| (*o, a.get().inner.clone()))
                    .collect(),
            },
        }
    }

    /// A CUtensorMap at `offset` bytes into buffer `index`; `spec` is a dict of cuTensorMapEncodeTiled's
    /// arguments: elem, dims, box, strides, element_strides, swizzle, oob_fill, interleave,
    /// l2_promotion (the last six may be None); for an im2col map (cuTensorMapEncodeIm2col) `box` is
    /// None and `im2col` holds (lower_corner, upper_corner, channels_per_pixel, pixels_per_column).
    #[staticmethod]
    fn tensormap(index: usize, offset: u64, spec: MapSpec) -> PyResult<Self> {
        let (elem, f32_mode) = match F32Mode::parse(&spec.elem) {
            Some(m) => (api::Type::F32, m),
            None => (
                parse_type(&spec.elem, "tensor map element type")
                    .map_err(|e| PyValueError::new_err(e.0))?,
                F32Mode::Plain,
            ),
        };
        let or_none = |s: &Option<String>| s.clone().unwrap_or_else(|| "none".to_string());
        let (swizzle, interleave, l2) = (
            or_none(&spec.swizzle),
            or_none(&spec.interleave),
            or_none(&spec.l2_promotion),
        );
        let oob_fill = spec.oob_fill.clone().unwrap_or_else(|| "zero".to_string());
        let map = TensorMapDesc::new(MapShape {
            elem,
            f32_mode,
            dims: spec.dims,
            strides: spec.strides,
            boxdim: spec.r#box.unwrap_or_default(),
            element_strides: spec.element_strides,
            swizzle: &swizzle,
            oob_fill: &oob_fill,
            interleave: &interleave,
            l2_promotion: &l2,
            im2col: spec
                .im2col
                .map(|(lower, upper, channels, pixels)| Im2colShape {
                    lower,
                    upper,
                    channels,
                    pixels,
                }),
        })
        .map_err(|e| PyValueError::new_err(format!("tensor map{e}")))?;
        Ok(PyArg {
            inner: Arg::TensorMap {
                buffer: index,
                offset,
                map,
            },
        })
    }

    /// A texture or surface object whose texels start `offset` bytes into buffer `index`;
    /// `spec` is a dict: surface, type, channels, dims, layers, pitch, resource, filter,
    /// address (a list), normalized, read, border, cubemap, levels, mipmap_filter, lod_bias,
    /// min_lod, max_lod (those after dims may be None).
    #[staticmethod]
    fn texture(index: usize, offset: u64, spec: TexDict) -> PyResult<Self> {
        let ty = parse_type(&spec.r#type, "texture channel type")
            .map_err(|e| PyValueError::new_err(e.0))?;
        let address = spec.address.clone().unwrap_or_else(|| vec!["clamp".into()]);
        let built = TexSpec {
            surface: spec.surface,
            ty,
            channels: spec.channels,
            dims: spec.dims.clone(),
            layers: spec.layers,
            pitch: spec.pitch,
            resource: spec.resource.as_deref().unwrap_or("array"),
            filter: spec.filter.as_deref().unwrap_or("point"),
            address: address.iter().map(String::as_str).collect(),
            normalized: spec.normalized.unwrap_or(false),
            read: spec.read.as_deref().unwrap_or("element"),
            border: spec.border.clone(),
            cubemap: spec.cubemap.unwrap_or(false),
            mips: MipSpec {
                levels: spec.levels.unwrap_or(1),
                filter: spec.mipmap_filter.as_deref().unwrap_or("point"),
                bias: spec.lod_bias.unwrap_or(0.0),
                min: spec.min_lod.unwrap_or(0.0),
                max: spec.max_lod,
            },
        }
        .build()
        .map_err(|e| PyValueError::new_err(format!("texture{e}")))?;
        Ok(PyArg {
            inner: Arg::Texture {
                buffer: index,
                offset,
                object: built.0,
            },
        })
    }

    fn __repr__(&self) -> String {
        format!("{:?}", self.inner)
    }
}

/// What a launch produced: the reports and the bytes of every buffer.
#[pyclass(frozen, name = "RunResult", module = "ptxrun._ptxrun")]
struct RunResult {
    /// `ok`, `hazard`, `fault` or `deadlock`.
    #[pyo3(get)]
    status: String,
    /// The contract's JSON report.
    #[pyo3(get)]
    json: String,
    /// The rendered human report.
    #[pyo3(get)]
    text: String,
    /// What the kernel printed.
    #[pyo3(get)]
    stdout: String,
    /// The buffers after the run, in launch order.
    #[pyo3(get)]
    buffers: Vec<Py<PyBytes>>,
    /// The run stopped at an instruction ptxrun does not execute.
    #[pyo3(get)]
    unsupported: bool,
}

/// A tensor map's shape as Python passes it (a dict).
#[derive(FromPyObject)]
#[pyo3(from_item_all)]
struct MapSpec {
    elem: String,
    dims: Vec<u64>,
    r#box: Option<Vec<u32>>,
    strides: Option<Vec<u64>>,
    element_strides: Option<Vec<u32>>,
    swizzle: Option<String>,
    oob_fill: Option<String>,
    interleave: Option<String>,
    l2_promotion: Option<String>,
    im2col: Option<(Vec<i32>, Vec<i32>, u32, u32)>,
}

/// A texture or surface object as Python passes it (a dict).
#[derive(FromPyObject)]
#[pyo3(from_item_all)]
struct TexDict {
    surface: bool,
    r#type: String,
    channels: u8,
    dims: Vec<u64>,
    layers: Option<u32>,
    pitch: Option<u64>,
    resource: Option<String>,
    filter: Option<String>,
    address: Option<Vec<String>>,
    normalized: Option<bool>,
    read: Option<String>,
    border: Option<Vec<f32>>,
    cubemap: Option<bool>,
    levels: Option<u32>,
    mipmap_filter: Option<String>,
    lod_bias: Option<f32>,
    min_lod: Option<f32>,
    max_lod: Option<f32>,
}

/// A launch's shape as Python passes it (a dict).
#[derive(FromPyObject)]
#[pyo3(from_item_all)]
struct Shape {
    grid: [u32; 3],
    block: [u32; 3],
    cluster: Option<[u32; 3]>,
    shared_mem: u32,
    cooperative: bool,
}

/// (name, PTX type, size, alignment) of each kernel parameter.
type ParamList = Vec<(String, String, u32, u32)>;

/// The schedule and checking options of a launch, as Python passes them.
#[derive(FromPyObject)]
#[pyo3(from_item_all)]
struct PyOptions {
    seed: u64,
    latency: String,
    check: bool,
    max_steps: u64,
    jobs: usize,
    explore: Option<usize>,
    deny_warnings: bool,
    /// Suppression rules (`KIND` or `KIND:LOCATION`).
    suppress: Vec<String>,
    /// Whether the JIT compiles hot straight runs, and after how many interpreted runs of
    /// their instructions (None: the library's default).
    jit: bool,
    jit_after: Option<u32>,
}

#[pymethods]
impl PyPtxModule {
    /// Compiles PTX text (`name` is what reports call it).
    #[staticmethod]
    #[pyo3(signature = (text, name = None))]
    fn from_ptx(py: Python<'_>, text: String, name: Option<String>) -> PyResult<Self> {
        let name = name.unwrap_or_else(|| "<ptx>".to_string());
        let inner = py
            .detach(|| api::Module::parse_named(text, &name))
            .map_err(to_py)?;
        Ok(PyPtxModule { inner })
    }

    /// Reads and compiles a `.ptx` file.
    #[staticmethod]
    fn from_file(py: Python<'_>, path: PathBuf) -> PyResult<Self> {
        let inner = py.detach(|| api::Module::from_file(&path)).map_err(to_py)?;
        Ok(PyPtxModule { inner })
    }

    #[getter]
    fn name(&self) -> String {
        self.inner.name().to_string()
    }

    #[getter]
    fn text(&self) -> String {
        self.inner.text().to_string()
    }

    /// Warnings about the module as a whole (a `.version` newer than ptxrun's ISA).
    #[getter]
    fn warnings(&self) -> Vec<String> {
        self.inner.warnings()
    }

    /// The names of the `.entry` functions.
    fn entries(&self) -> Vec<String> {
        self.inner.entries().into_iter().map(String::from).collect()
    }

    /// The entry's name and its parameters as (name, PTX type, size in bytes, alignment).
    #[pyo3(signature = (entry = None))]
    fn params(&self, entry: Option<&str>) -> PyResult<(String, ParamList)> {
        let k = self.inner.kernel(entry).map_err(to_py)?;
        let ps = k
            .params()
            .iter()
            .map(|p| (p.name.clone(), p.ty.name().to_string(), p.size, p.align))
            .collect();
        Ok((k.name().to_string(), ps))
    }

    /// Launches `entry` (or the only entry) once, or under `explore` schedules.
    fn launch<'py>(
        &self,
        py: Python<'py>,
        entry: Option<&str>,
        shape: Shape,
        buffers: Vec<(String, String, Bound<'py, PyBytes>)>,
        args: Vec<Bound<'py, PyArg>>,
        options: PyOptions,
    ) -> PyResult<RunResult> {
        let kernel = self.inner.kernel(entry).map_err(to_py)?;
        let mut bufs = Vec::with_capacity(buffers.len());
        for (name, ty, data) in buffers {
            let ty = parse_type(&ty, &name).map_err(|e| PyValueError::new_err(e.0))?;
            let data = data.as_bytes().to_vec();
            bufs.push(Buffer { name, ty, data });
        }
        let launch = Launch {
            grid: shape.grid,
            block: shape.block,
            cluster: shape.cluster,
            dynamic_shared_bytes: shape.shared_mem,
            cooperative: shape.cooperative,
            buffers: bufs,
            args: args.iter().map(|a| a.get().inner.clone()).collect(),
        };
        let opts = RunOptions {
            seed: options.seed,
            latency: options.latency,
            check: options.check,
            max_steps: options.max_steps,
            jobs: options.jobs.max(1),
            ..RunOptions::default()
        };
        let opts = RunOptions {
            jit: match (options.jit, options.jit_after) {
                (false, _) => None,
                (true, Some(n)) => Some(n),
                (true, None) => opts.jit,
            },
            ..opts
        };
        let explore = options.explore;
        let mut policy = api::Policy {
            deny_warnings: options.deny_warnings,
            rules: Vec::new(),
        };
        for r in &options.suppress {
            policy
                .rules
                .push(api::Rule::parse(r).map_err(PyValueError::new_err)?);
        }
        let (status, json, text, report) =
            run_interruptible(py, kernel, launch, opts, explore, policy)?;
        let buffers = (0..report.buffers.len())
            .map(|i| PyBytes::new(py, report.buffer_data(i).unwrap_or_default()).unbind())
            .collect();
        Ok(RunResult {
            status,
            json,
            text,
            stdout: report.stdout().to_string(),
            buffers,
            unsupported: report.unsupported(),
        })
    }
}

/// What one launch gives back: (status, JSON, human text, the first run's report).
type Ran = (String, String, String, api::Report);

/// Runs the launch on a thread of its own while this one, holding the GIL only briefly, looks for
/// signals: Ctrl-C stops the run (an `interrupted` fault inside, `KeyboardInterrupt` here).
fn run_interruptible(
    py: Python<'_>,
    kernel: api::Kernel,
    launch: Launch,
    mut opts: RunOptions,
    explore: Option<usize>,
    policy: api::Policy,
) -> PyResult<Ran> {
    use std::sync::atomic::{AtomicBool, Ordering};
    use std::sync::{Arc, Condvar, Mutex};
    let cancel = Arc::new(AtomicBool::new(false));
    opts.cancel = Some(Arc::clone(&cancel));
    let slot = Arc::new((Mutex::new(None), Condvar::new()));
    let worker_slot = Arc::clone(&slot);
    std::thread::Builder::new()
        .name("ptxrun-launch".into())
        .spawn(move || {
            let done = run(&kernel, &launch, &opts, explore, policy);
            let (lock, ready) = &*worker_slot;
            *lock.lock().unwrap_or_else(|e| e.into_inner()) = Some(done);
            ready.notify_all();
        })
        .map_err(|e| PyOSError::new_err(format!("cannot start the launch thread: {e}")))?;
    // Waits up to `tick` (or for good) for the result, without the GIL.
    let wait = |tick: Option<std::time::Duration>| {
        py.detach(|| {
            let (lock, ready) = &*slot;
            let mut g = lock.lock().unwrap_or_else(|e| e.into_inner());
            while g.is_none() {
                match tick {
                    Some(t) => {
                        g = ready
                            .wait_timeout(g, t)
                            .unwrap_or_else(|e| e.into_inner())
                            .0;
                        break;
                    }
                    None => g = ready.wait(g).unwrap_or_else(|e| e.into_inner()),
                }
            }
            g.take()
        })
    };
    loop {
        if let Some(done) = wait(Some(std::time::Duration::from_millis(50))) {
            return done.map_err(to_py);
        }
        if let Err(interrupt) = py.check_signals() {
            cancel.store(true, Ordering::Relaxed);
            let _ = wait(None);
            return Err(interrupt);
        }
    }
}

/// One run, or `explore` schedules: (status, JSON, human text, the first run's report).
fn run(
    kernel: &api::Kernel,
    launch: &Launch,
    opts: &RunOptions,
    explore: Option<usize>,
    policy: api::Policy,
) -> Result<Ran, api::Error> {
    let Some(n) = explore else {
        let r = kernel.launch(launch, opts)?.with_policy(policy);
        return Ok((r.status().to_string(), r.json(), r.human(), r));
    };
    let p = kernel.prepare(launch)?;
    let jobs = std::thread::available_parallelism().map_or(1, |n| n.get());
    let scheds = schedules(n.max(1), opts.seed, None);
    let x = explore_prepared(&p, opts, scheds, jobs, &|| {})?.with_policy(policy);
    Ok((x.status().to_string(), x.json(), x.human(), x.run))
}

/// `x` rounded once (nearest even) to the float type named `ty` (`f16`, `bf16`, `f32`, `f64`).
#[pyfunction]
fn float_bytes<'py>(py: Python<'py>, ty: &str, x: f64) -> PyResult<Bound<'py, PyBytes>> {
    let t = parse_type(ty, "type").map_err(|e| PyValueError::new_err(e.0))?;
    if !matches!(ty, "f16" | "bf16" | "f32" | "f64") {
        return Err(PyValueError::new_err(format!("`{ty}` is not a float type")));
    }
    Ok(PyBytes::new(py, &api::float_bytes(x, t)))
}

/// Runs the `ptxrun` command line with `argv` (program name first); returns its exit code.
#[pyfunction]
fn cli_main(py: Python<'_>, argv: Vec<String>) -> u8 {
    py.detach(|| ptxrun::cli::main(argv))
}

#[pymodule]
fn _ptxrun(m: &Bound<'_, PyModule>) -> PyResult<()> {
    m.add_class::<PyPtxModule>()?;
    m.add_class::<PyArg>()?;
    m.add_class::<RunResult>()?;
    m.add_function(wrap_pyfunction!(cli_main, m)?)?;
    m.add_function(wrap_pyfunction!(float_bytes, m)?)?;
    m.add("__version__", env!("CARGO_PKG_VERSION"))?;
    Ok(())
}
