//! `ptxrun init KERNEL.ptx`: a launch file to start from, written from the kernel's `.param`
//! list — pointers become buffers, scalars values, 128-byte aligned blobs tensor maps — with
//! every choice the user must make marked `TODO`. The launch-file format is in the README
//! ("Launch files").

use crate::api::Module;
use crate::ir::{Param, Type};
use std::fmt::Write as _;
use std::path::Path;

/// The launch file for `entry` of the module at `ptx` (the only entry when `None`).
pub fn template(ptx: &Path, entry: Option<&str>) -> Result<String, String> {
    let module = Module::from_file(ptx).map_err(|e| e.to_string())?;
    let kernel = module.kernel(entry).map_err(|e| e.to_string())?;
    let attrs = &module.ir().functions[kernel_index(&module, kernel.name())].attrs;
    let file = ptx.file_name().map_or_else(
        || ptx.display().to_string(),
        |f| f.to_string_lossy().into_owned(),
    );
    let mut t = String::new();
    let _ = writeln!(
        t,
        "# A launch of `{}` in {file}, written by `ptxrun init`: fill in every TODO.",
        kernel.name()
    );
    let _ = writeln!(t, "# Format: README.md, \"Launch files\".");
    let _ = writeln!(t, "kernel = {file:?}\nentry = {:?}", kernel.name());
    let _ = writeln!(
        t,
        "grid = 1                 # TODO: CTAs, as x, [x, y] or [x, y, z]"
    );
    match attrs.reqntid {
        Some(b) => {
            let _ = writeln!(t, "block = {b:?}   # the kernel's .reqntid");
        }
        None => {
            let _ = writeln!(
                t,
                "block = 128              # TODO: threads per CTA (at most 1024)"
            );
        }
    }
    let mut buffers = Vec::new();
    for p in kernel.params() {
        t.push('\n');
        param(&mut t, p, &mut buffers);
    }
    t.push_str("\n# Buffers to write after a clean run (raw little-endian, or .npy by extension).\n[outputs]\n");
    for b in &buffers {
        let _ = writeln!(t, "# {b} = \"out/{b}.bin\"");
    }
    t.push_str("\n# What `ptxrun test` compares: files written by a real GPU, or a hazard kind.\n# [expect]\n# outputs = { NAME = \"expected/NAME.bin\" }\n");
    Ok(t)
}

fn kernel_index(module: &Module, name: &str) -> usize {
    module
        .ir()
        .functions
        .iter()
        .position(|f| f.is_entry && f.name == name)
        .unwrap_or(0)
}

/// One `[[params]]` entry, with the parameter as the PTX declares it.
fn param(t: &mut String, p: &Param, buffers: &mut Vec<String>) {
    let declared = format!(".param .{} {} ({} bytes)", p.ty.name(), p.name, p.size);
    // nvcc and Triton name parameters `<mangled>_param_<i>`: the buffer is `p<i>`.
    let name = match p.name.rfind("_param_") {
        Some(i) => format!("p{}", &p.name[i + "_param_".len()..]),
        None => p.name.clone(),
    };
    let pointer =
        p.ptr.is_some() || (p.size == 8 && matches!(p.ty, Type::U64 | Type::B64 | Type::S64));
    if pointer {
        let _ = writeln!(t, "# {declared}: a pointer, so a device buffer");
        let _ = writeln!(
            t,
            "[[params]]\nbuffer = {name:?}\ntype = \"f32\"           # TODO: element type: u8 i8 u16 i16 u32 i32 u64 i64 f16 bf16 f32 f64\nlen = 1024               # TODO: number of elements\ninit = \"zeros\"           # or a file (raw or .npy), {{ fill = 1 }}, {{ iota = {{ start = 0, step = 1 }} }},\n                         # or {{ random = {{ seed = 0, min = 0, max = 1 }} }}"
        );
        buffers.push(name);
        return;
    }
    if p.size == 128 && p.align >= 64 {
        let _ = writeln!(
            t,
            "# {declared}: 128 bytes aligned to 64, likely a CUtensorMap (README \"Launch files: clusters and tensor maps\")\n[[params]]\ntensormap = \"TODO\"       # the buffer it maps\ntype = \"f16\"\ndims = [64, 64]\nbox = [64, 64]"
        );
        return;
    }
    let scalar = match p.ty {
        Type::U8 | Type::B8 => Some("u8"),
        Type::S8 => Some("i8"),
        Type::U16 | Type::B16 => Some("u16"),
        Type::S16 => Some("i16"),
        Type::U32 | Type::B32 => Some("u32"),
        Type::S32 => Some("i32"),
        Type::U64 | Type::B64 => Some("u64"),
        Type::S64 => Some("i64"),
        Type::F16 => Some("f16"),
        Type::Bf16 => Some("bf16"),
        Type::F32 => Some("f32"),
        Type::F64 => Some("f64"),
        _ => None,
    };
    match scalar {
        Some(ty) if p.vec <= 1 && p.size == Type::size(p.ty) => {
            let _ = writeln!(
                t,
                "# {declared}\n[[params]]\ntype = {ty:?}\nvalue = 0                # TODO"
            );
        }
        _ => {
            let _ = writeln!(
                t,
                "# {declared}, aligned to {}: a by-value struct (README \"Launch files: structs\"): its bytes\n\
                 # are zero but for its fields, each at its byte offset, e.g.\n\
                 # fields = [{{ offset = 0, buffer = \"x\" }}, {{ offset = 8, type = \"i32\", value = 4 }}]\n\
                 [[params]]\nfields = []              # TODO",
                p.align
            );
        }
    }
}

/// `ptxrun init`: writes `launch.toml` beside the kernel (never over an existing one), or
/// prints it.
pub fn run(ptx: &Path, entry: Option<&str>, print: bool) -> Result<String, String> {
    let text = template(ptx, entry)?;
    if print {
        return Ok(text);
    }
    let path = ptx.with_file_name("launch.toml");
    let file = std::fs::OpenOptions::new()
        .write(true)
        .create_new(true)
        .open(&path)
        .map_err(|e| {
            format!(
                "{}: {e} (ptxrun init never replaces a launch file)",
                path.display()
            )
        })?;
    std::io::Write::write_all(&mut &file, text.as_bytes())
        .map_err(|e| format!("{}: {e}", path.display()))?;
    Ok(format!(
        "wrote {}; fill in its TODOs, then `ptxrun run {}`\n",
        path.display(),
        path.display()
    ))
}
