//! `st.bulk{.weak}{.shared::cta} [a], size, 0` (PTX ISA 9.0 section 9.7.9.13, sm_100): each lane
//! zeroes `size` bytes of its CTA's shared memory from `a`, a weak store like `st.shared` for the
//! memory model (section 8), so it goes through the same checked write and the same race and
//! mbarrier-misuse checks.
//!
//! No GPU ptxrun is measured on runs sm_100, so this follows the ISA text alone: what it leaves
//! undefined stops the run instead of guessing. A size that is not a multiple of 8 or exceeds
//! 16777216 (undefined), a generic address outside the executing CTA's shared memory (undefined;
//! a peer CTA's shared memory is the `.shared::cluster` window, not `.shared::cta`), and bytes
//! past the end of shared memory are errors. The ISA states no alignment for `a`; ptxrun asks
//! for 8 bytes, the granularity of `size`, and reports any other address as misaligned.

use super::addr::{address, check_align, mem_fault, target, thread_of, write, Target};
use super::ctx::Ctx;
use super::fault::FaultKind;
use super::fault::{fault, Res};
use super::lanes::lanes;
use super::shown::Ranges;
use crate::ir::Type;

/// The largest `size` the ISA allows.
const MAX_SIZE: u64 = 1 << 24;

pub(crate) fn exec(cx: &mut Ctx<'_, '_>) -> Res<()> {
    let space = cx.ins.mods.space;
    let mut ranges: Ranges = Ranges::new();
    let mut zeros: Vec<u8> = Vec::new();
    for lane in lanes(cx.active) {
        let addr = address(cx, 0, lane);
        let size = cx.src(1, lane, Type::U64);
        let bad = |why: String| {
            let mut f = fault(FaultKind::Memory, why);
            f.linear_thread = Some(cx.thread_of(lane));
            f
        };
        if !size.is_multiple_of(8) || size > MAX_SIZE {
            return Err(bad(format!(
                "st.bulk of {size} bytes: the size must be a multiple of 8 no larger than {MAX_SIZE} (anything else is undefined, PTX ISA 9.0 section 9.7.9.13)"
            )));
        }
        let tg = target(cx, space, addr);
        match tg {
            Target::Shared(r, _) if r == cx.rank => {}
            Target::Shared(r, o) => {
                return Err(bad(format!(
                    "st.bulk at address {addr:#x}, shared+{o:#x} of CTA rank {r}: it writes the executing CTA's shared memory only (the .shared::cta window)"
                )))
            }
            _ => {
                return Err(super::addr::wrong_space(
                    cx,
                    addr,
                    tg,
                    lane,
                    "the executing CTA's shared memory",
                ))
            }
        }
        check_align(cx, addr, 8, lane, tg)?;
        if size == 0 {
            continue;
        }
        if zeros.len() < size as usize {
            zeros.resize(size as usize, 0);
        }
        write(cx, tg, lane, &zeros[..size as usize])
            .map_err(|e| mem_fault(e, thread_of(cx, lane)))?;
        ranges.add(tg, size as usize, lane);
    }
    if cx.hb.is_some() {
        ranges.check(cx, (true, false), false);
    }
    Ok(())
}
