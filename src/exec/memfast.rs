//! Loads and stores of whole warps (PTX ISA 9.0 section 9.7.9.8-9 `ld`/`st`): the fast forms
//! `fast.rs` gives 4- and 8-byte `ld`/`st` of `.shared` and `.global` with a plain address,
//! scalar or `.v2`/`.v4` (each lane's vector one access of its whole size, aligned to it).
//! All active lanes' addresses are computed first; if every one is aligned and inside the CTA's
//! shared memory (or inside one global allocation, writable for stores), the lanes' values move
//! straight between register rows and memory, in lane order as the general path moves them. Any
//! other case (a fault, a second allocation, a read-only buffer) returns `false` and the general
//! handler (`memops.rs`) runs the instruction, so faults and their messages are its own. The
//! checker sees the same merged ranges the general path gives it.

use super::ctx::Ctx;
use super::fast::{row, Fast, Src};
use super::memops::{Ranges, Target};
use super::step::{lanes, Res, WARP};

/// Runs a fast load or store; `Ok(false)` when the general path must run it instead.
pub(crate) fn access(cx: &mut Ctx<'_, '_>, form: Fast) -> Res<bool> {
    let (global, w, n, base, off, store) = match form {
        Fast::Ld {
            global,
            w,
            n,
            base,
            off,
            ..
        } => (global, w, n, base, off, false),
        Fast::St {
            global,
            w,
            base,
            off,
            ..
        } => (global, w, 1, base, off, true),
        Fast::StV {
            global,
            w,
            n,
            base,
            off,
            ..
        } => (global, w, n, base, off, true),
        _ => return Ok(false),
    };
    // Each lane accesses `w` bytes per element, `n` elements.
    let (ew, w) = (usize::from(w), u64::from(w) * u64::from(n));
    let active = cx.active;
    let mut addr = match base {
        Some(r) => row(&cx.frame.regs, Src::Reg(r)),
        None => [0; WARP],
    };
    for a in &mut addr {
        *a = a.wrapping_add(off);
    }
    // Where the lanes land: byte offsets into one memory, after checking every lane.
    let mut at = [0usize; WARP];
    let (alloc, limit) = if global {
        let first = addr[active.trailing_zeros() as usize];
        let Ok((i, _)) = cx.global.locate(first, w) else {
            return Ok(false);
        };
        let a = &cx.global.allocs[i];
        if store && a.readonly {
            return Ok(false);
        }
        (Some((i, a.base)), a.data.len() as u64)
    } else {
        (None, cx.smem[cx.rank as usize].bytes.len() as u64)
    };
    for lane in lanes(active) {
        let a = if global {
            addr[lane]
        } else {
            addr[lane] & 0xffff_ffff
        };
        let o = a.wrapping_sub(alloc.map_or(0, |(_, b)| b));
        if !a.is_multiple_of(w) || o >= limit || limit - o < w {
            return Ok(false);
        }
        at[lane] = o as usize;
    }
    if let (true, Some(log)) = (global, &cx.global.log) {
        let mut log = log.lock().unwrap_or_else(|e| e.into_inner());
        for lane in lanes(active) {
            if store {
                log.write(addr[lane], addr[lane] + w);
            } else {
                log.read(addr[lane], addr[lane] + w);
            }
        }
    }
    let mem: &mut [u8] = match alloc {
        Some((i, _)) => &mut cx.global.allocs[i].data,
        None => &mut cx.smem[cx.rank as usize].bytes,
    };
    let wu = w as usize;
    let regs = &mut cx.frame.regs;
    match form {
        Fast::St { v, .. } => {
            let vals = row(regs, v);
            for lane in lanes(active) {
                mem[at[lane]..at[lane] + wu].copy_from_slice(&vals[lane].to_le_bytes()[..wu]);
            }
        }
        Fast::StV { v, n, .. } => {
            for lane in lanes(active) {
                for (k, &r) in v[..usize::from(n)].iter().enumerate() {
                    let x = regs[r as usize * WARP + lane].to_le_bytes();
                    mem[at[lane] + k * ew..][..ew].copy_from_slice(&x[..ew]);
                }
            }
        }
        Fast::Ld { d, n, .. } => {
            for lane in lanes(active) {
                for (k, &r) in d[..usize::from(n)].iter().enumerate() {
                    let b = &mem[at[lane] + k * ew..][..ew];
                    regs[r as usize * WARP + lane] = if ew == 4 {
                        u64::from(u32::from_le_bytes([b[0], b[1], b[2], b[3]]))
                    } else {
                        u64::from_le_bytes([b[0], b[1], b[2], b[3], b[4], b[5], b[6], b[7]])
                    };
                }
            }
        }
        _ => {}
    }
    if cx.hb.is_some() {
        let mut ranges: Ranges = Ranges::new();
        for lane in lanes(active) {
            let tg = if global {
                Target::Global(addr[lane])
            } else {
                Target::Shared(cx.rank, addr[lane] & 0xffff_ffff)
            };
            ranges.add(tg, wu, lane);
        }
        let write = store;
        ranges.check(cx, (write, !write), false);
    }
    Ok(true)
}
