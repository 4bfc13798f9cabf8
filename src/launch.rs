//! Launch files (`launch.toml`, `../shared/contract.md` "Launch file"): which kernel, the grid,
//! the parameters (device buffers with their initial contents, and scalars), the buffers to write
//! out, and what `ptxrun test` expects. Loading resolves every path relative to the launch file
//! and every error names the field at fault; nothing here runs a kernel. Parameters are laid
//! out by the facade as PTX ISA 9.0 section 5.1.6.1 ("Kernel Function Parameters") places a
//! kernel's `.param` list.

use crate::ir::Type;
use serde::Deserialize;
use std::path::{Path, PathBuf};

mod params;
mod raw;
pub mod texture;

pub use params::MAX_STRUCT_BYTES;

/// A problem with a launch file or its inputs: "bad input", exit code 2.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct LaunchError(pub String);

impl std::fmt::Display for LaunchError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(&self.0)
    }
}

fn err<T>(msg: impl Into<String>) -> Result<T, LaunchError> {
    Err(LaunchError(msg.into()))
}

#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
struct RawLaunch {
    kernel: Option<String>,
    entry: Option<String>,
    grid: Dim3,
    block: Dim3,
    cluster: Option<Dim3>,
    #[serde(default)]
    dynamic_shared_bytes: u32,
    #[serde(default)]
    cooperative: bool,
    #[serde(default)]
    params: Vec<raw::RawParam>,
    #[serde(default)]
    outputs: indexmap::IndexMap<String, String>,
    expect: Option<RawExpect>,
    check: Option<RawCheck>,
}

/// `[check]`: how findings of this launch are judged.
#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
struct RawCheck {
    /// Suppression rules (`KIND` or `KIND:LOCATION`, as in a `--suppressions` file).
    #[serde(default)]
    allow: Vec<String>,
}

/// `grid`, `block` and `cluster`: `x`, `[x, y]` or `[x, y, z]`.
#[derive(Debug, Clone, Copy)]
struct Dim3([u32; 3]);

impl<'de> Deserialize<'de> for Dim3 {
    fn deserialize<D: serde::Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        struct V;
        const SHAPE: &str =
            "a number of threads or blocks: x, [x, y] or [x, y, z] (e.g. 128 or [16, 16])";
        impl<'de> serde::de::Visitor<'de> for V {
            type Value = Dim3;
            fn expecting(&self, f: &mut std::fmt::Formatter) -> std::fmt::Result {
                f.write_str(SHAPE)
            }
            fn visit_i64<E: serde::de::Error>(self, x: i64) -> Result<Dim3, E> {
                let x = u32::try_from(x)
                    .map_err(|_| E::custom(format!("{x} is out of range; expected {SHAPE}")))?;
                Ok(Dim3([x, 1, 1]))
            }
            fn visit_seq<A: serde::de::SeqAccess<'de>>(self, mut a: A) -> Result<Dim3, A::Error> {
                let mut d = [1u32; 3];
                let mut n = 0;
                while let Some(x) = a.next_element::<i64>()? {
                    if n == 3 {
                        return Err(serde::de::Error::custom(format!(
                            "more than 3 dimensions; expected {SHAPE}"
                        )));
                    }
                    d[n] = u32::try_from(x).map_err(|_| {
                        serde::de::Error::custom(format!("{x} is out of range; expected {SHAPE}"))
                    })?;
                    n += 1;
                }
                if n == 0 {
                    return Err(serde::de::Error::custom(format!(
                        "an empty array; expected {SHAPE}"
                    )));
                }
                Ok(Dim3(d))
            }
        }
        d.deserialize_any(V)
    }
}

impl Dim3 {
    fn get(self) -> [u32; 3] {
        self.0
    }
}

/// A TOML error as a user reads it: the message, and the key and line it is about (never the
/// line's text: the file may not be a launch file at all).
fn toml_message(e: &toml::de::Error, text: &str) -> String {
    let msg = e.message().trim_end();
    let Some(span) = e.span() else {
        return msg.to_string();
    };
    let line = text[..span.start.min(text.len())].matches('\n').count() + 1;
    let key = text
        .lines()
        .nth(line - 1)
        .and_then(|l| l.split_once('='))
        .map(|(k, _)| k.trim())
        .filter(|k| {
            !k.is_empty()
                && k.chars()
                    .all(|c| c.is_ascii_alphanumeric() || "_-.\"".contains(c))
        });
    match key {
        Some(k) => format!("line {line}, `{k}`: {msg}"),
        None => format!("line {line}: {msg}"),
    }
}

#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
struct RawExpect {
    #[serde(default)]
    outputs: indexmap::IndexMap<String, String>,
    hazard: Option<String>,
    /// The PTX line of the expected hazard, and of its related instruction: one line, or the
    /// lines any of which the report may name (the first of several faults depends on the schedule).
    line: Option<Lines>,
    related: Option<Lines>,
    #[serde(default)]
    tolerance: indexmap::IndexMap<String, f64>,
    stdout: Option<String>,
}

/// `line = 57` or `line = [56, 87]`.
#[derive(Debug, Deserialize)]
#[serde(untagged)]
enum Lines {
    One(usize),
    Any(Vec<usize>),
}

impl Lines {
    fn list(l: &Option<Lines>) -> Vec<usize> {
        match l {
            None => Vec::new(),
            Some(Lines::One(n)) => vec![*n],
            Some(Lines::Any(v)) => v.clone(),
        }
    }
}

/// A loaded launch: everything resolved, inputs read.
#[derive(Debug, Clone)]
pub struct Launch {
    pub dir: PathBuf,
    pub kernel: PathBuf,
    pub entry: Option<String>,
    pub grid: [u32; 3],
    pub block: [u32; 3],
    pub cluster: Option<[u32; 3]>,
    pub dynamic_shared_bytes: u32,
    /// `cooperative = true`: `cudaLaunchCooperativeKernel`.
    pub cooperative: bool,
    pub params: Vec<LaunchParam>,
    /// Buffer name -> output path, relative to `dir` (or `--out-dir`), checked as README's
    /// "Files a launch may touch" says (relative, no `..`).
    pub outputs: Vec<(String, PathBuf)>,
    /// The canonical paths of everything the launch reads (the launch file, the kernel, init
    /// files, expected outputs): no output may replace one.
    pub inputs: Vec<PathBuf>,
    pub expect: Expect,
    /// `[check] allow`: suppression rules for this launch's findings.
    pub allow: Vec<crate::report::Rule>,
}

#[derive(Debug, Clone, Default)]
pub struct Expect {
    /// Buffer name -> expected contents (canonical paths checked by the file policy).
    pub outputs: Vec<(String, PathBuf)>,
    pub hazard: Option<String>,
    /// `line = N` (or `[N, ...]`, any of them): the expected hazard is reported at PTX line N;
    /// `related = M`: its related instruction (the conflicting access, the asynchronous
    /// operation) is at line M. Empty: not pinned.
    pub line: Vec<usize>,
    pub related: Vec<usize>,
    pub tolerance: Vec<(String, f64)>,
    pub stdout: Option<PathBuf>,
}

#[derive(Debug, Clone)]
pub enum LaunchParam {
    Buffer {
        name: String,
        ty: Type,
        data: Vec<u8>,
    },
    Scalar {
        ty: Type,
        bytes: Vec<u8>,
    },
    /// A tensor map (128 bytes passed by value) over buffer `buffer`; `created` holds the
    /// buffer's type and contents when this entry declares the buffer itself (`len`).
    TensorMap {
        buffer: String,
        created: Option<(Type, Vec<u8>)>,
        map: TensorMapDesc,
    },
    /// A texture or surface object (an 8-byte handle) over buffer `buffer`; `created` as for
    /// tensor maps.
    Texture {
        buffer: String,
        created: Option<(Type, Vec<u8>)>,
        object: crate::mem::texture::TexObject,
    },
    /// The address of a buffer another entry declares.
    Pointer {
        buffer: String,
    },
    /// A by-value struct: `bytes` (zero-padded to the parameter's size), with each field's
    /// bytes at its offset.
    Struct {
        bytes: Vec<u8>,
        fields: Vec<(u64, LaunchParam)>,
    },
}

impl LaunchParam {
    /// The names of the buffers this entry declares (its fields' too), in order.
    pub fn declared_buffers<'a>(&'a self, out: &mut Vec<&'a str>) {
        match self {
            LaunchParam::Buffer { name, .. } => out.push(name),
            LaunchParam::TensorMap {
                buffer,
                created: Some(_),
                ..
            }
            | LaunchParam::Texture {
                buffer,
                created: Some(_),
                ..
            } => out.push(buffer),
            LaunchParam::Struct { fields, .. } => {
                for (_, f) in fields {
                    f.declared_buffers(out);
                }
            }
            _ => {}
        }
    }
}

/// A tensor map as a launch file describes it; the address comes from its buffer at launch.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct TensorMapDesc {
    pub elem: Type,
    /// The f32 flavour (`f32_ftz`, `tf32`, `tf32_ftz`; plain for other types).
    pub f32_mode: crate::mem::tensormap::F32Mode,
    pub dims: Vec<u64>,
    /// Byte strides of dimensions 1.. (rank - 1 entries).
    pub strides: Vec<u64>,
    pub boxdim: Vec<u32>,
    pub element_strides: Vec<u32>,
    pub swizzle: crate::mem::tensormap::Swizzle,
    pub nan_fill: bool,
    /// `Some` for a map in im2col mode (`boxdim` is then empty).
    pub im2col: Option<crate::mem::im2col::Im2col>,
}

impl TensorMapDesc {
    /// The map over a buffer at `addr`.
    pub fn at(&self, addr: u64) -> crate::mem::tensormap::TensorMap {
        let rank = self.dims.len();
        let mut m = crate::mem::tensormap::TensorMap {
            elem: self.elem,
            rank,
            addr,
            dims: [1; 5],
            strides: [0; 5],
            boxdim: [1; 5],
            estrides: [1; 5],
            swizzle: self.swizzle,
            nan_fill: self.nan_fill,
            f32_mode: self.f32_mode,
            im2col: self.im2col,
        };
        m.strides[0] = u64::from(self.elem.size());
        for i in 0..rank.min(5) {
            m.dims[i] = self.dims[i];
            m.boxdim[i] = self.boxdim.get(i).copied().unwrap_or(1);
            m.estrides[i] = self.element_strides.get(i).copied().unwrap_or(1);
            if i > 0 {
                m.strides[i] = self.strides.get(i - 1).copied().unwrap_or(0);
            }
        }
        m
    }
}

/// A tensor map's shape as `cuTensorMapEncodeTiled` takes it, before any checks: what a launch
/// file's `tensormap` entry or a library caller gives.
#[derive(Debug, Clone)]
pub struct MapShape<'a> {
    pub elem: Type,
    /// The f32 flavour of `elem` f32 (`FLOAT32_FTZ`, `TFLOAT32`, `TFLOAT32_FTZ`).
    pub f32_mode: crate::mem::tensormap::F32Mode,
    /// Elements per dimension, innermost first (1 to 5 dimensions).
    pub dims: Vec<u64>,
    /// Byte strides of dimensions 1..; `None`: dense.
    pub strides: Option<Vec<u64>>,
    pub boxdim: Vec<u32>,
    /// `None`: all 1.
    pub element_strides: Option<Vec<u32>>,
    /// `none`, `32B`, `64B` or `128B`.
    pub swizzle: &'a str,
    /// `zero` (or `none`) or `nan`.
    pub oob_fill: &'a str,
    /// Only `none`.
    pub interleave: &'a str,
    /// `none`, `64B`, `128B` or `256B` (no effect on results).
    pub l2_promotion: &'a str,
    /// The arguments of `cuTensorMapEncodeIm2col` beyond a tile map's, for a map in im2col mode
    /// (`boxdim` is then empty).
    pub im2col: Option<Im2colShape>,
}

/// An im2col map's bounding box (corners W first, rank - 2 entries each), channels per pixel
/// and pixels per column.
#[derive(Debug, Clone)]
pub struct Im2colShape {
    pub lower: Vec<i32>,
    pub upper: Vec<i32>,
    pub channels: u32,
    pub pixels: u32,
}

impl Im2colShape {
    /// The map's im2col part; an error starts with the field at fault.
    fn build(&self, rank: usize) -> Result<crate::mem::im2col::Im2col, String> {
        let mut ic = crate::mem::im2col::Im2col {
            channels: self.channels,
            pixels: self.pixels,
            ..Default::default()
        };
        if !(3..=5).contains(&rank) {
            return Err(format!(
                ".dims: an im2col map has 3 to 5 dimensions (NWC, NHWC, NDHWC), not {rank}"
            ));
        }
        let n = rank - 2;
        for (name, v, out) in [
            ("lower_corner", &self.lower, &mut ic.lower),
            ("upper_corner", &self.upper, &mut ic.upper),
        ] {
            if v.len() != n {
                return Err(format!(
                    ".{name}: {} entries; a rank-{rank} im2col map takes {n} (W first)",
                    v.len()
                ));
            }
            out[..n].copy_from_slice(v);
        }
        Ok(ic)
    }
}

impl TensorMapDesc {
    /// Checks a shape (all but the address, which comes at launch); an error starts with the
    /// field at fault (`.box: ...`).
    pub fn new(s: MapShape<'_>) -> Result<TensorMapDesc, String> {
        let rank = s.dims.len();
        if !(1..=5).contains(&rank) {
            return Err(format!(
                ".dims: a tensor map has 1 to 5 dimensions, not {rank}"
            ));
        }
        let im2col = match &s.im2col {
            Some(_) if !s.boxdim.is_empty() => {
                return Err(".box: an im2col map takes no box (its column is channels_per_pixel x pixels_per_column)".into());
            }
            Some(shape) => Some(shape.build(rank)?),
            None => None,
        };
        if im2col.is_none() && s.boxdim.len() != rank {
            return Err(format!(
                ".box: {} entries for {rank} dimensions",
                s.boxdim.len()
            ));
        }
        let strides = byte_strides(s.strides, s.elem, &s.dims)?;
        let element_strides = match s.element_strides {
            Some(e) if e.len() == rank => e,
            Some(e) => {
                return Err(format!(
                    ".element_strides: {} entries for {rank} dimensions",
                    e.len()
                ))
            }
            None => vec![1; rank],
        };
        let (swizzle, nan_fill) = map_options(s.swizzle, s.oob_fill, s.interleave, s.l2_promotion)?;
        let desc = TensorMapDesc {
            elem: s.elem,
            f32_mode: s.f32_mode,
            dims: s.dims,
            strides,
            boxdim: s.boxdim,
            element_strides,
            swizzle,
            nan_fill,
            im2col,
        };
        // Validate the shape now (the address is checked at launch).
        desc.at(0).validate().map_err(|e| format!(": {e}"))?;
        Ok(desc)
    }
}

/// A map's byte strides of dimensions 1.. as given (one fewer than the dimensions), or those of
/// a dense tensor of `elem`.
fn byte_strides(given: Option<Vec<u64>>, elem: Type, dims: &[u64]) -> Result<Vec<u64>, String> {
    let rank = dims.len();
    Ok(match given {
        Some(st) if st.len() + 1 == rank => st,
        Some(st) => {
            return Err(format!(
                ".strides: {} entries; a rank-{rank} map takes {} (bytes, for dimensions 1..)",
                st.len(),
                rank - 1
            ))
        }
        None => {
            let mut acc = u64::from(elem.size());
            dims[..rank - 1]
                .iter()
                .map(|d| {
                    acc = acc.saturating_mul(*d);
                    acc
                })
                .collect()
        }
    })
}

/// A map's named options: its swizzle and whether out-of-bounds elements read as NaN (the
/// interleave and the L2 promotion are checked, and the latter has no effect on results).
fn map_options(
    swizzle: &str,
    oob_fill: &str,
    interleave: &str,
    l2_promotion: &str,
) -> Result<(crate::mem::tensormap::Swizzle, bool), String> {
    use crate::mem::tensormap::Swizzle;
    let swizzle = match swizzle {
        "none" => Swizzle::None,
        "32B" => Swizzle::B32,
        "64B" => Swizzle::B64,
        "128B" => Swizzle::B128,
        other => return Err(format!(".swizzle: `{other}` (use none, 32B, 64B or 128B)")),
    };
    let nan_fill = match oob_fill {
        "zero" | "none" => false,
        "nan" => true,
        other => return Err(format!(".oob_fill: `{other}` (use zero or nan)")),
    };
    if interleave != "none" {
        return Err(format!(
            ".interleave: `{interleave}`: ptxrun supports only none"
        ));
    }
    if !["none", "64B", "128B", "256B"].contains(&l2_promotion) {
        return Err(format!(
            ".l2_promotion: `{l2_promotion}` (use none, 64B, 128B or 256B)"
        ));
    }
    Ok((swizzle, nan_fill))
}

/// Largest buffer a launch file may ask for.
const MAX_BUFFER_BYTES: u64 = 1 << 31;

pub fn parse_type(s: &str, field: &str) -> Result<Type, LaunchError> {
    match s {
        "u8" | "i8" | "u16" | "i16" | "u32" | "i32" | "u64" | "i64" | "f16" | "bf16" | "f32"
        | "f64" => {}
        _ => {
            return err(format!(
                "{field}: unknown type `{s}` (use u8 i8 u16 i16 u32 i32 u64 i64 f16 bf16 f32 f64)"
            ))
        }
    }
    let ptx = s.replace('i', "s");
    Type::parse(&ptx).ok_or_else(|| LaunchError(format!("{field}: unknown type `{s}`")))
}

/// Where a launch file is: PATH itself, PATH/launch.toml, or the launch.toml beside a .ptx.
pub fn locate(path: &Path) -> Result<PathBuf, LaunchError> {
    if path.is_dir() {
        let p = path.join("launch.toml");
        return if p.is_file() {
            Ok(p)
        } else {
            err(format!(
                "{}: no launch.toml in this directory",
                path.display()
            ))
        };
    }
    if path.extension().is_some_and(|e| e == "ptx") {
        let p = path.with_file_name("launch.toml");
        return if p.is_file() {
            Ok(p)
        } else {
            err(format!(
                "{}: no launch.toml beside this file; `ptxrun init {}` writes one from the kernel's parameters",
                path.display(),
                path.display()
            ))
        };
    }
    if path.is_file() {
        Ok(path.to_path_buf())
    } else {
        err(format!("{}: no such file", path.display()))
    }
}

/// Largest launch file read.
const MAX_LAUNCH_FILE: u64 = 16 << 20;
/// Largest PTX module read.
const MAX_KERNEL_FILE: u64 = 1 << 30;
/// Largest expected-stdout file read (the printf FIFO is smaller).
const MAX_STDOUT_FILE: u64 = 64 << 20;
/// Room for a `.npy` header beyond an input's data.
const NPY_HEADER_ROOM: u64 = 1 << 20;

/// Loads a launch file; its inputs must stay in its directory tree or in `allowed`
/// (`--allow-path`), as README's "Files a launch may touch" describes.
pub fn load(path: &Path, allowed: &[PathBuf]) -> Result<Launch, LaunchError> {
    let file = locate(path)?;
    // `launch.toml` alone has the empty path as its parent: the current directory.
    let dir = file
        .parent()
        .filter(|p| !p.as_os_str().is_empty())
        .map_or_else(|| PathBuf::from("."), Path::to_path_buf);
    let access = crate::files::Access::new(&dir, allowed).map_err(LaunchError)?;
    let name = file.display().to_string();
    let (real, raw) = read_launch_file(&file, &dir, &name)?;
    let kernel = kernel_path(raw.kernel.as_deref(), &dir, &name)?;
    // Reports name the kernel as the launch file does; the policy checks where it really is.
    let real_kernel = access
        .input(&kernel, &format!("{name}: kernel"), MAX_KERNEL_FILE)
        .map_err(LaunchError)?;
    let mut src = Inputs {
        dir: &dir,
        access: &access,
        read: vec![real, real_kernel],
    };
    let grid = raw.grid.get();
    let block = raw.block.get();
    // The launch's shape (zero dimensions, block and grid sizes, clusters) is checked by the
    // facade, `api::Kernel::prepare`, for every caller.
    let params = params::load(&raw.params, &mut src, &name)?;
    let mut buffers = Vec::new();
    for p in &params {
        p.declared_buffers(&mut buffers);
    }
    let outputs = buffer_paths(&raw.outputs, &buffers, "outputs", &name, &mut |v, f| {
        crate::files::output_path(v, f)
    })?;
    let expect = load_expect(raw.expect.as_ref(), &mut src, &buffers, &name)?;
    let inputs = src.read;
    let allow = allow_rules(&raw, &name)?;
    Ok(Launch {
        dir,
        kernel,
        entry: raw.entry,
        grid,
        block,
        cluster: raw.cluster.map(Dim3::get),
        dynamic_shared_bytes: raw.dynamic_shared_bytes,
        cooperative: raw.cooperative,
        params,
        outputs,
        inputs,
        expect,
        allow,
    })
}

/// Reads and parses the launch file itself, named by the user: any place, but a regular file
/// of sane size. Returns its real path and its contents.
fn read_launch_file(
    file: &Path,
    dir: &Path,
    name: &str,
) -> Result<(PathBuf, RawLaunch), LaunchError> {
    let (real, bytes) = crate::files::Access::new(dir, &[])
        .and_then(|a| a.read(file, "launch file", MAX_LAUNCH_FILE))
        .map_err(LaunchError)?;
    let text =
        String::from_utf8(bytes).map_err(|_| LaunchError(format!("{name}: not UTF-8 text")))?;
    let raw: RawLaunch = toml::from_str(&text)
        .map_err(|e| LaunchError(format!("{name}: {}", toml_message(&e, &text))))?;
    Ok((real, raw))
}

/// The entries of `[FIELD]` (`[outputs]`, `[expect.outputs]`): each names a buffer among the
/// params, and its path is what `path` makes of the value (relative and checked for an
/// output, read for an expected input).
fn buffer_paths(
    entries: &indexmap::IndexMap<String, String>,
    buffers: &[&str],
    field: &str,
    name: &str,
    path: &mut dyn FnMut(&str, &str) -> Result<PathBuf, String>,
) -> Result<Vec<(String, PathBuf)>, LaunchError> {
    entries
        .iter()
        .map(|(k, v)| {
            if buffers.contains(&k.as_str()) {
                let f = format!("{name}: {field}.{k}");
                Ok((k.clone(), path(v, &f).map_err(LaunchError)?))
            } else {
                err(format!(
                    "{name}: {field}.{k}: no buffer named `{k}` among the params"
                ))
            }
        })
        .collect()
}

/// `[expect]`: the expected outputs and stdout (inputs of the launch, read by `ptxrun test`),
/// the expected hazard and its lines, the tolerances.
fn load_expect(
    raw: Option<&RawExpect>,
    src: &mut Inputs<'_>,
    buffers: &[&str],
    name: &str,
) -> Result<Expect, LaunchError> {
    let Some(e) = raw else {
        return Ok(Expect::default());
    };
    if e.hazard.is_none() && (e.line.is_some() || e.related.is_some()) {
        return err(format!(
            "{name}: expect.line and expect.related pin the line of an expected hazard: give `hazard` too"
        ));
    }
    let mut expected = |v: &str, f: &str, max: u64| {
        let p = src.access.input(&src.dir.join(v), f, max)?;
        src.read.push(p.clone());
        Ok(p)
    };
    Ok(Expect {
        outputs: buffer_paths(&e.outputs, buffers, "expect.outputs", name, &mut |v, f| {
            expected(v, f, MAX_BUFFER_BYTES + NPY_HEADER_ROOM)
        })?,
        hazard: e.hazard.clone(),
        line: Lines::list(&e.line),
        related: Lines::list(&e.related),
        tolerance: e.tolerance.iter().map(|(k, v)| (k.clone(), *v)).collect(),
        stdout: e
            .stdout
            .as_ref()
            .map(|s| expected(s, &format!("{name}: expect.stdout"), MAX_STDOUT_FILE))
            .transpose()
            .map_err(LaunchError)?,
    })
}

/// The kernel a launch file in `dir` names, or the one `.ptx` beside it.
fn kernel_path(kernel: Option<&str>, dir: &Path, name: &str) -> Result<PathBuf, LaunchError> {
    Ok(match kernel {
        Some(k) => dir.join(k),
        None => {
            let ptx: Vec<PathBuf> = std::fs::read_dir(dir)
                .map_err(|e| LaunchError(format!("{}: {e}", dir.display())))?
                .filter_map(|e| e.ok().map(|e| e.path()))
                .filter(|p| p.extension().is_some_and(|e| e == "ptx"))
                .collect();
            match ptx.as_slice() {
                [one] => one.clone(),
                [] => {
                    return err(format!(
                        "{name}: `kernel` is missing and no .ptx file is beside it"
                    ))
                }
                _ => {
                    return err(format!(
                        "{name}: `kernel` is missing and several .ptx files are beside it"
                    ))
                }
            }
        }
    })
}

/// The launch file's `[check] allow` rules, each naming a kind ptxrun reports.
fn allow_rules(raw: &RawLaunch, name: &str) -> Result<Vec<crate::report::Rule>, LaunchError> {
    raw
        .check
        .iter()
        .flat_map(|c| c.allow.iter().enumerate())
        .map(|(i, r)| {
            let rule = crate::report::Rule::parse(r)
                .map_err(|e| LaunchError(format!("{name}: check.allow[{i}]: {e}")))?;
            if !rule.kind_known() {
                return err(format!(
                    "{name}: check.allow[{i}]: `{r}` names no kind ptxrun reports (the README's hazard table lists them)"
                ));
            }
            Ok(rule)
        })
        .collect()
}

fn scalar_bytes(v: &toml::Value, ty: Type, field: &str) -> Result<Vec<u8>, LaunchError> {
    let n = ty.size() as usize;
    if ty.is_float() {
        let x = match v {
            toml::Value::Float(f) => *f,
            toml::Value::Integer(i) => *i as f64,
            _ => return err(format!("{field}: expected a number")),
        };
        return Ok(float_bytes(x, ty));
    }
    let toml::Value::Integer(i) = v else {
        return err(format!("{field}: expected an integer"));
    };
    let i = *i;
    let (lo, hi): (i128, i128) = match (ty.is_signed(), n) {
        (true, _) => (-(1i128 << (8 * n - 1)), (1i128 << (8 * n - 1)) - 1),
        (false, 8) => (0, i128::from(u64::MAX)),
        (false, _) => (0, (1i128 << (8 * n)) - 1),
    };
    if i128::from(i) < lo || i128::from(i) > hi {
        return err(format!("{field}: {i} does not fit in .{}", ty.name()));
    }
    Ok(i.to_le_bytes()[..n].to_vec())
}

/// `x` rounded once to a float type (nearest even), little-endian.
pub fn float_bytes(x: f64, ty: Type) -> Vec<u8> {
    let mut out = Vec::with_capacity(8);
    push_float(&mut out, x, ty);
    out
}

/// Appends [`float_bytes`] to `out` (without a vector per element: a buffer of random floats
/// is millions of them).
fn push_float(out: &mut Vec<u8>, x: f64, ty: Type) {
    match ty {
        Type::F64 => out.extend_from_slice(&x.to_le_bytes()),
        Type::F32 => out.extend_from_slice(&(x as f32).to_le_bytes()),
        Type::F16 => out.extend_from_slice(&half::f16::from_f64(x).to_le_bytes()),
        _ => out.extend_from_slice(&half::bf16::from_f64(x).to_le_bytes()),
    }
}

/// Where a launch file's inputs are read from, and the canonical paths of those read.
struct Inputs<'a> {
    dir: &'a Path,
    access: &'a crate::files::Access,
    read: Vec<PathBuf>,
}

fn init_buffer(
    src: &mut Inputs<'_>,
    init: Option<&toml::Value>,
    ty: Type,
    len: u64,
    field: &str,
) -> Result<Vec<u8>, LaunchError> {
    let esize = ty.size() as usize;
    let bytes = len as usize * esize;
    let Some(init) = init else {
        return Ok(vec![0; bytes]);
    };
    match init {
        toml::Value::String(s) if s == "zeros" => Ok(vec![0; bytes]),
        toml::Value::String(s) => {
            let room = bytes as u64 + if s.ends_with(".npy") { NPY_HEADER_ROOM } else { 0 };
            let (real, raw) = src.access.read(&src.dir.join(s), field, room).map_err(LaunchError)?;
            src.read.push(real);
            let data = if s.ends_with(".npy") { npy_bytes(&raw, esize, &format!("{field} ({s})"))? } else { raw };
            if data.len() > bytes {
                return err(format!("{field}: {s} holds {} bytes but the buffer has room for {bytes} ({len} elements)", data.len()));
            }
            let mut out = data;
            out.resize(bytes, 0);
            Ok(out)
        }
        toml::Value::Table(t) => {
            if let Some(v) = t.get("fill") {
                let one = scalar_bytes(v, ty, &format!("{field}.fill"))?;
                return Ok(one.repeat(len as usize));
            }
            if let Some(toml::Value::Table(io)) = t.get("iota") {
                let num = |k: &str, d: f64| match io.get(k) {
                    Some(toml::Value::Integer(i)) => Ok(*i as f64),
                    Some(toml::Value::Float(f)) => Ok(*f),
                    None => Ok(d),
                    Some(_) => err(format!("{field}.iota.{k}: expected a number")),
                };
                let (start, step) = (num("start", 0.0)?, num("step", 1.0)?);
                let mut out = Vec::with_capacity(bytes);
                for i in 0..len {
                    let x = start + step * i as f64;
                    if ty.is_float() {
                        push_float(&mut out, x, ty);
                    } else {
                        out.extend(&(x as i64).to_le_bytes()[..esize]);
                    }
                }
                return Ok(out);
            }
            if let Some(toml::Value::Table(r)) = t.get("random") {
                return random_fill(r, ty, len, &format!("{field}.random"));
            }
            err(format!("{field}: expected \"zeros\", a file, {{ fill = .. }}, {{ iota = .. }} or {{ random = .. }}"))
        }
        _ => err(format!("{field}: expected \"zeros\", a file, {{ fill = .. }}, {{ iota = .. }} or {{ random = .. }}")),
    }
}

/// SplitMix64: a generator short enough to reimplement anywhere (scripts/hw-golden does, in
/// Python), so GPU runs and ptxrun fill `random` buffers with the same values.
pub struct SplitMix64(pub u64);

impl SplitMix64 {
    pub fn next_u64(&mut self) -> u64 {
        self.0 = self.0.wrapping_add(0x9E37_79B9_7F4A_7C15);
        let mut z = self.0;
        z = (z ^ (z >> 30)).wrapping_mul(0xBF58_476D_1CE4_E5B9);
        z = (z ^ (z >> 27)).wrapping_mul(0x94D0_49BB_1331_11EB);
        z ^ (z >> 31)
    }
}

/// `{ random = { seed, min, max } }`: values in [min, max) from SplitMix64 seeded with `seed`:
/// integers `min + next % (max - min)`; floats `min + (next >> 11) * 2^-53 * (max - min)`
/// computed in f64, then rounded to nearest into the element type.
fn random_fill(r: &toml::Table, ty: Type, len: u64, field: &str) -> Result<Vec<u8>, LaunchError> {
    let int = |k: &str, d: i64| match r.get(k) {
        Some(toml::Value::Integer(i)) => Ok(*i),
        None => Ok(d),
        Some(_) => err(format!("{field}.{k}: expected an integer")),
    };
    let float = |k: &str, d: f64| match r.get(k) {
        Some(toml::Value::Integer(i)) => Ok(*i as f64),
        Some(toml::Value::Float(f)) => Ok(*f),
        None => Ok(d),
        Some(_) => err(format!("{field}.{k}: expected a number")),
    };
    let mut rng = SplitMix64(int("seed", 0)? as u64);
    let esize = ty.size() as usize;
    let mut out = Vec::with_capacity(len as usize * esize);
    if ty.is_float() {
        let (lo, hi) = (float("min", 0.0)?, float("max", 1.0)?);
        if lo >= hi {
            return err(format!("{field}: min must be below max"));
        }
        for _ in 0..len {
            let unit = (rng.next_u64() >> 11) as f64 * (1.0 / (1u64 << 53) as f64);
            push_float(&mut out, lo + unit * (hi - lo), ty);
        }
    } else {
        let (lo, hi) = (int("min", 0)?, int("max", 100)?);
        if lo >= hi {
            return err(format!("{field}: min must be below max"));
        }
        let span = hi.wrapping_sub(lo) as u64;
        for _ in 0..len {
            let v = lo.wrapping_add((rng.next_u64() % span) as i64);
            out.extend(&v.to_le_bytes()[..esize]);
        }
    }
    Ok(out)
}

/// The raw little-endian element bytes of a `.npy` file whose element size matches.
fn npy_bytes(raw: &[u8], esize: usize, field: &str) -> Result<Vec<u8>, LaunchError> {
    let npy = npyz::NpyFile::new(raw)
        .map_err(|e| LaunchError(format!("{field}: not a valid .npy file: {e}")))?;
    let header = npy.header().clone();
    let size = match header.dtype() {
        npyz::DType::Plain(t) => t.size_field() as usize,
        _ => {
            return err(format!(
                "{field}: only plain (non-record) arrays are supported"
            ))
        }
    };
    if size != esize {
        return err(format!(
            "{field}: .npy elements are {size} bytes, the buffer's type has {esize}"
        ));
    }
    if header.order() == npyz::Order::Fortran && header.shape().len() > 1 {
        return err(format!(
            "{field}: Fortran-ordered .npy files are not supported"
        ));
    }
    if let npyz::DType::Plain(t) = header.dtype() {
        if t.endianness() == npyz::Endianness::Big && size > 1 {
            return err(format!("{field}: big-endian .npy files are not supported"));
        }
    }
    let n: u64 = header.shape().iter().product();
    let start = raw.len().saturating_sub(n as usize * esize);
    Ok(raw[start..].to_vec())
}

/// What an output file holds before a buffer's bytes: nothing for raw little-endian, a
/// `.npy` header (1-D, the launch type) by extension.
pub fn output_header(path: &Path, ty: Type, len: usize) -> Vec<u8> {
    if path.extension().is_some_and(|e| e == "npy") {
        npy_header(ty, len)
    } else {
        Vec::new()
    }
}

#[cfg(test)]
fn npy_file(ty: Type, data: &[u8]) -> Vec<u8> {
    let mut out = npy_header(ty, data.len());
    out.extend(data);
    out
}

/// The header of a `.npy` file of `len` bytes of `ty`.
fn npy_header(ty: Type, len: usize) -> Vec<u8> {
    let descr = match ty {
        Type::U8 => "|u1",
        Type::S8 => "|i1",
        Type::U16 => "<u2",
        Type::S16 => "<i2",
        Type::U32 => "<u4",
        Type::S32 => "<i4",
        Type::U64 => "<u8",
        Type::S64 => "<i8",
        Type::F16 => "<f2",
        Type::F32 => "<f4",
        Type::F64 => "<f8",
        _ => "<u2", // bf16 has no numpy dtype: its raw 16-bit patterns
    };
    let n = len / ty.size().max(1) as usize;
    let mut header = format!("{{'descr': '{descr}', 'fortran_order': False, 'shape': ({n},), }}");
    // Magic (6) + version (2) + header length (2) + header + '\n', padded to a multiple of 64.
    let total = 10 + header.len() + 1;
    header.push_str(&" ".repeat(total.next_multiple_of(64) - total));
    header.push('\n');
    let mut out = b"\x93NUMPY\x01\x00".to_vec();
    out.extend((header.len() as u16).to_le_bytes());
    out.extend(header.as_bytes());
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn npy_round_trip() {
        let data: Vec<u8> = (0..12u8).collect();
        let file = npy_file(Type::S32, &data);
        assert_eq!((file.len() - data.len()) % 64, 0);
        assert_eq!(npy_bytes(&file, 4, "t").unwrap(), data);
        assert!(npy_bytes(&file, 2, "t").is_err());
    }

    #[test]
    fn splitmix_matches_its_reference_values() {
        // Reference: the first outputs of SplitMix64 seeded with 0 (Vigna's splitmix64.c).
        let mut r = SplitMix64(0);
        assert_eq!(r.next_u64(), 0xe220_a839_7b1d_cdaf);
        assert_eq!(r.next_u64(), 0x6e78_9e6a_a1b9_65f4);
    }

    #[test]
    fn scalars_are_range_checked() {
        assert_eq!(
            scalar_bytes(&toml::Value::Integer(-3), Type::S32, "v").unwrap(),
            (-3i32).to_le_bytes()
        );
        assert!(scalar_bytes(&toml::Value::Integer(256), Type::U8, "v").is_err());
        assert!(scalar_bytes(&toml::Value::Integer(-1), Type::U64, "v").is_err());
        assert_eq!(
            scalar_bytes(&toml::Value::Float(1.5), Type::F32, "v").unwrap(),
            1.5f32.to_le_bytes()
        );
    }
}
