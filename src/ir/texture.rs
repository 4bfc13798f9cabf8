//! Texture and surface instruction forms (PTX ISA 9.0 section 9.7.10: `tex` 9.7.10.3, `tld4`
//! 9.7.10.4, `txq` 9.7.10.5, `suld` 9.7.10.6, `sust` 9.7.10.7, `sured` 9.7.10.8, `suq`
//! 9.7.10.9), in unified mode: the handle is a 64-bit texture or surface object that carries
//! its sampler state (what CUDA's `cudaTextureObject_t` and `cudaSurfaceObject_t` are).
//!
//! [`form`] settles what ptxrun executes from the modifiers alone, so a form it does not run is
//! known before the run: `.grad` and `.level` beyond 1D and 2D, layered cube maps and multisample
//! geometries,
//! `tex`'s offset and depth-compare operands, formatted surface stores (`.p`), and the queries
//! an H100's driver refuses to load (every `txq`/`suq` query but `width`, `height` and `depth`:
//! a module with any other one fails with `CUDA_ERROR_NOT_FOUND` or `CUDA_ERROR_NOT_SUPPORTED`,
//! measured with driver 580, see `docs/launch/textures.md`).

pub use super::mods::Geom;
use super::mods::{Mods, SubOp};
use super::opcode::Op;
use super::types::Type;

/// Why a form does not run.
pub type FormError = String;

/// Checks the form of a texture or surface instruction with `nops` operands: the query of a
/// `txq`/`suq`, `None` for the others.
pub fn form(op: Op, m: &Mods, nops: usize) -> Result<Option<SubOp>, FormError> {
    match op {
        Op::Txq | Op::Suq => query(m).map(Some),
        Op::Tex | Op::Tld4 => {
            let g = geom(m)?;
            let level = m.sub == Some(SubOp::Level);
            let grad = m.sub == Some(SubOp::Grad);
            if (level || grad) && !matches!(g, Geom::D1 | Geom::D2) {
                return Err(format!(
                    "`.{}` on `.{}` textures is not modelled (1D and 2D mipmaps are)",
                    if grad { "grad" } else { "level" },
                    g.name()
                ));
            }
            if grad && nops != 4 {
                return Err("`.grad` takes the two gradient vectors".into());
            }
            if !matches!(
                g,
                Geom::D1 | Geom::D2 | Geom::D3 | Geom::A1d | Geom::A2d | Geom::Cube
            ) {
                return Err(format!("`.{}` textures are not modelled", g.name()));
            }
            if op == Op::Tld4 && !matches!(g, Geom::D2 | Geom::A2d) {
                return Err("`tld4` gathers from 2D textures only".into());
            }
            if nops > 2 + usize::from(level) + 2 * usize::from(grad) {
                return Err("the offset and depth-compare operands are not modelled".into());
            }
            if level && nops < 3 {
                return Err("`.level` takes the level operand".into());
            }
            if (level || grad || g == Geom::Cube) && m.types[1] != Some(Type::F32) {
                return Err("`.level`, `.grad` and `.cube` take `.f32` coordinates".into());
            }
            if m.vec != 4 {
                return Err("only the `.v4` result form is modelled".into());
            }
            match (m.types[0], m.types[1]) {
                (Some(Type::F32 | Type::S32 | Type::U32), Some(Type::F32 | Type::S32)) => Ok(None),
                _ => Err("results `.f32`/`.s32`/`.u32` from `.f32`/`.s32` coordinates only".into()),
            }
        }
        _ => {
            let g = geom(m)?;
            if !matches!(g, Geom::D1 | Geom::D2 | Geom::D3 | Geom::A1d | Geom::A2d) {
                return Err(format!("`.{}` surfaces do not exist", g.name()));
            }
            if m.sub == Some(SubOp::P) {
                return Err("formatted surface access (`.p`) is not modelled".into());
            }
            if ![1, 2, 4].contains(&m.vec) {
                return Err("surface accesses are scalar, `.v2` or `.v4`".into());
            }
            if m.oob().is_none() {
                return Err("missing `.trap`, `.clamp` or `.zero`".into());
            }
            match (op, m.ty()) {
                (Op::Sured, Some(Type::U32 | Type::S32 | Type::B32 | Type::U64 | Type::S64)) => {
                    Ok(None)
                }
                (Op::Suld | Op::Sust, Some(Type::B8 | Type::B16 | Type::B32 | Type::B64)) => {
                    Ok(None)
                }
                _ => Err("unsupported type".into()),
            }
        }
    }
}

fn geom(m: &Mods) -> Result<Geom, FormError> {
    Geom::of(m.dim).ok_or_else(|| "missing geometry (`.1d`, `.2d`, ...)".to_string())
}

/// The query of `txq`/`suq`: only those an H100 loads.
pub fn query(m: &Mods) -> Result<SubOp, FormError> {
    let q = if m.sub == Some(SubOp::Level) {
        return Err("mipmap-level queries are not modelled".into());
    } else {
        m.sub
    };
    match q {
        Some(q @ (SubOp::Width | SubOp::Height | SubOp::Depth)) => Ok(q),
        Some(q) => Err(format!(
            "an H100 refuses to load a module with the `.{}` query (measured, driver 580)",
            q.name()
        )),
        None => Err("missing query".into()),
    }
}
