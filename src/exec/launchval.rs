//! Fast forms whose values come from the launch, not from registers: `ld.param` of a kernel
//! parameter (PTX ISA 9.0 sections 5.1.6 "Parameter State Space", 9.7.9.8 `ld`) and `mov` of a
//! special register (chapter 10 "Special Registers", 9.7.9.1 `mov`). Every kernel's prologue
//! runs a few of each once per warp; through the general path (an instruction context, operand
//! decoding per lane, `check_align` and `read` per lane) each cost ~5,000-8,000 host
//! instructions, 12% of the tiled SGEMM benchmark. Here a parameter is read once for the warp
//! and written to the active lanes, filled as `memops::load` fills a register; a special
//! register's lanes come from `Ctx::special` and are written by `Ctx::set_reg`, the general
//! path's own definitions. A parameter read that is misaligned or past the buffer's end is
//! declined, for the general path to fault with its message.

use super::ctx::Ctx;
use super::fast::Fast;
use super::lanes::lanes;
use super::machine::{Machine, WarpRef};
use super::warp::Cluster;
use crate::ir::RegId;

/// Runs `form` (one of [`Fast::reads_launch`]) for the active lanes of `w` (at least one);
/// `false` when the general path must run it instead.
pub(crate) fn run<'m>(mc: &mut Machine<'m>, cl: &mut Cluster, w: WarpRef<'m>, form: Fast) -> bool {
    match form {
        Fast::Param { d, off, w: n, ext } => {
            let (o, n) = (off as usize, usize::from(n));
            // The parameter window is aligned far beyond any access: the offset decides.
            if o % n != 0 {
                return false;
            }
            let Some(raw) = mc.kparams.get(o..o + n) else {
                return false;
            };
            let v = ext.fill(crate::mem::read_le(raw), n);
            let warp = &mut cl.ctas[w.ci].warps[w.wi];
            let regs = &mut warp.frames[warp.groups[w.gi].frame as usize].regs;
            let row = &mut regs[d as usize * super::lanes::WARP..][..super::lanes::WARP];
            for lane in lanes(w.active) {
                row[lane] = v;
            }
            true
        }
        Fast::Special { d, s } => {
            let mut cx = Ctx::new(mc, cl, w);
            for lane in lanes(w.active) {
                let v = cx.special(s, lane);
                cx.set_reg(RegId(d), lane, v);
            }
            true
        }
        _ => false,
    }
}
