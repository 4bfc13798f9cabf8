//! Warpgroup matrix multiply-accumulate (PTX ISA 9.0 section 9.7.15): `wgmma.mma_async`,
//! `wgmma.fence`, `wgmma.commit_group` and `wgmma.wait_group`.
//!
//! Four warps (a warpgroup) compute a 64 x N tile D = A x B + D; warp `w % 4` owns rows
//! `16 (w % 4)` to `16 (w % 4) + 15`, which depend only on its own rows of A, so each warp
//! issues its part as one transaction of the async engine (like a bulk copy): the engine reads
//! its shared-memory operands through the async proxy at a time the latency model chooses, and
//! the accumulator registers receive D when a `wgmma.wait_group` observes the completion (a
//! kernel that reads them before sees the old values, as hardware could show it). Operations of
//! one warp complete in issue order, so a chain of `wgmma` accumulating into the same registers
//! reads each other's results.
//!
//! Operands (section 9.7.15.5): A from registers in the `mma` m16n8k fragment layout, or A and
//! B from shared memory through a 64-bit matrix descriptor (9.7.15.5.1.2: start address,
//! leading and stride byte offsets, all >> 4; base offset; swizzle none, 128B, 64B, 32B). The
//! canonical layouts are made of 16-byte chunks, 8 rows of them per core matrix:
//!
//! - K-major (the default): no swizzle, chunk (row r, k-chunk c) at
//!   `(r % 8) 16 + (r / 8) SBO + c LBO`; swizzled with width W bytes,
//!   `(r % 8) W + (r / 8) SBO + 16 (c % (W/16)) + (c / (W/16)) LBO` (only the sparse forms'
//!   64-byte B rows reach past a 32-byte row);
//! - MN-major (`imm-trans` 1, 16-bit types): chunk (MN-chunk m, k) at `m SBO + (k % 8) 16 +
//!   (k / 8) LBO` unswizzled, `(m % (W/16)) 16 + (m / (W/16)) LBO + (k % 8) W + (k / 8) SBO`
//!   swizzled;
//!
//! and the swizzle XORs address bits 4.. with bits 7.. of the shared-memory address (1, 2 or 3
//! bits for 32B, 64B, 128B) less the descriptor's base offset (the pattern's row counted from
//! where it starts). Every layout, swizzle, base offset and type was compared with an H100 or
//! H200 (`docs/numerics/wgmma`); the sparse forms' metadata is `wgmma_sp.rs`'s. D's fragment:
//! element `i` of lane `l` is row `l / 4 + 8 ((i / 2) % 2)`, column `8 (i / 4) + 2 (l % 4) +
//! i % 2` of the warp's 16 rows. Arithmetic is `tcore.rs`'s.

use super::addr::{elems, thread_of};
use super::asyncops::issue;
use super::ctx::Ctx;
use super::fault::FaultKind;
use super::fault::{fault, Res};
use super::lanes::{lanes, WARP};
use super::mma::{partial_warp, unsupported_form, Rows};
use super::park::{record, Settle};
use super::products::multiply;
use super::tcore;
use super::warp::AsyncWait;
use super::warp::WarpAsync;
use super::wgstate::{reg_name, FrameKey, Job, Staged, WarpWgmma};
use crate::ir::mma::{Elem, MmaForm};
use crate::ir::mods::MatShape;
use crate::ir::wgmma::WgmmaForm;
use crate::ir::{Operand, RegId, Type};
use crate::latency::OpClass;
use crate::mem::copy::{Completion, Loc, OpId, Seg};
use crate::trace::What;

/// A decoded shared-memory matrix descriptor (PTX ISA 9.0 section 9.7.15.5.1.2).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) struct Desc {
    pub start: u32,
    pub lbo: u32,
    pub sbo: u32,
    pub base: u32,
    /// Swizzle width in bytes: 0 (none), 32, 64 or 128.
    pub swizzle: u32,
}

impl Desc {
    pub fn decode(v: u64) -> Desc {
        let field = |shift: u32| (((v >> shift) & 0x3fff) as u32) << 4;
        Desc {
            start: field(0),
            lbo: field(16),
            sbo: field(32),
            base: ((v >> 49) & 7) as u32,
            swizzle: match v >> 62 {
                0 => 0,
                1 => 128,
                2 => 64,
                _ => 32,
            },
        }
    }

    /// Offset from the start address of 16-byte chunk (`line`, `step`): for K-major operands row
    /// `line` and K-chunk `step`; for MN-major ones MN-chunk `line` and k `step`.
    fn chunk(&self, mn_major: bool, line: u32, step: u32) -> u32 {
        let w = self.swizzle;
        match (mn_major, w) {
            (false, 0) => (line % 8) * 16 + (line / 8) * self.sbo + step * self.lbo,
            // A swizzled row holds w bytes of K; a longer K (the sparse forms' B with 32-byte
            // swizzling) continues LBO further.
            (false, _) => {
                let per = w / 16;
                (line % 8) * w + (line / 8) * self.sbo + (step % per) * 16 + (step / per) * self.lbo
            }
            (true, 0) => line * self.sbo + (step % 8) * 16 + (step / 8) * self.lbo,
            (true, _) => {
                let per = w / 16;
                (line % per) * 16 + (line / per) * self.lbo + (step % 8) * w + (step / 8) * self.sbo
            }
        }
    }

    /// The shared-memory address of that chunk, swizzled: bits 4.. XOR the row of the swizzle
    /// pattern, the address's 128-byte row counted from where the pattern starts. The base
    /// offset gives bits 7-9 of that start (PTX ISA 9.0 section 9.7.15.5.1.2.2: "(pattern
    /// start addr >> 0x7) & 0x7"); 0 means a start aligned to the pattern's repeat.
    fn address(&self, mn_major: bool, line: u32, step: u32) -> u32 {
        let a = self.start.wrapping_add(self.chunk(mn_major, line, step));
        let bits = match self.swizzle {
            32 => 1,
            64 => 2,
            128 => 3,
            _ => 0,
        };
        let row = (a >> 7).wrapping_sub(self.base);
        a ^ ((row & ((1 << bits) - 1)) << 4)
    }
}

/// The frame `cx` executes in.
fn frame_key(cx: &Ctx<'_, '_>) -> FrameKey {
    (cx.frame.func.0, cx.depth)
}

fn state<'a>(cx: &'a mut Ctx<'_, '_>) -> &'a mut WarpWgmma {
    &mut cx
        .asy
        .get_or_insert_with(|| Box::new(WarpAsync::default()))
        .wg
}

/// The form (decoded when the module loaded), or the unsupported fault naming it.
fn decoded(cx: &Ctx<'_, '_>) -> Res<WgmmaForm> {
    cx.func
        .form(cx.pc)
        .wgmma()
        .map_err(|e| unsupported_form(cx, e))
}

/// The slot of [`Rows`] holding a lane's metadata register (after A's four registers).
const META_SLOT: usize = 4;

/// The `mma`-shaped view of the warp's part: 16 x N x K with D's type as C's.
fn part(f: &WgmmaForm) -> MmaForm {
    MmaForm {
        shape: MatShape {
            m: 16,
            n: f.n,
            k: f.k,
        },
        d: f.d,
        a: f.a,
        b: f.b,
        c: f.d,
        satfinite: f.satfinite,
        xor: false,
    }
}

/// Reads A's registers (register form) and the sparse forms' metadata into `rows`, one row
/// per lane.
pub(crate) fn gather(cx: &Ctx<'_, '_>, rows: &mut Rows) {
    if cx.ins.op == crate::ir::Op::WgmmaMmaAsyncSp {
        for lane in lanes(cx.active) {
            rows[lane][META_SLOT] = cx.src(3, lane, Type::B32);
        }
    }
    if !matches!(cx.ops.get(1), Some(Operand::Vector(_))) {
        return;
    }
    let a = elems(cx, 1);
    for lane in lanes(cx.active) {
        for (slot, o) in rows[lane].iter_mut().zip(a) {
            *slot = cx.value(o, lane, Type::B32);
        }
    }
}

/// `wgmma.mma_async`: decodes the operands at the warp's first lane (they are warpgroup-uniform),
/// lists the shared-memory chunks the operation reads, and issues it.
pub(crate) fn mma_async(cx: &mut Ctx<'_, '_>, rows: &Rows, present: u32) -> Res<()> {
    let f = decoded(cx)?;
    if present != u32::MAX {
        return Err(partial_warp(cx, !present, "fragments"));
    }
    let first = lanes(cx.active).next().unwrap_or(0);
    let a_in_regs = matches!(cx.ops.get(1), Some(Operand::Vector(_)));
    let imm = |k: usize| match cx.ops.get(k) {
        Some(Operand::Imm(v)) => *v,
        _ => 0,
    };
    let sd = f.scale_d_operand();
    let (neg_a, neg_b) = if f.scalable() {
        (imm(sd + 1) == -1, imm(sd + 2) == -1)
    } else {
        (false, false)
    };
    let trans_base = if f.scalable() { sd + 3 } else { sd + 1 };
    let (trans_a, trans_b) = match (f.transposable(), a_in_regs) {
        (false, _) => (false, false),
        (true, true) => (false, imm(trans_base) == 1),
        (true, false) => (imm(trans_base) == 1, imm(trans_base + 1) == 1),
    };
    let scale_d = cx.src(sd, first, Type::Pred) != 0;
    let meta = f.sparse.then(|| {
        let mut m = Box::new([0u32; WARP]);
        for (lane, v) in m.iter_mut().enumerate() {
            *v = rows[lane][META_SLOT] as u32;
        }
        (m, imm(4) as u32)
    });
    let warp_rows = 16 * (cx.warp_index % 4);
    let mut segs = Vec::new();
    let a = if a_in_regs {
        Ok(register_a(&f, rows))
    } else {
        let d = Desc::decode(cx.src(1, first, Type::B64));
        let shape = (warp_rows, 16, u32::from(f.a_k()));
        Err(plan(cx, f.a, d, shape, trans_a, &mut segs)?)
    };
    let b_desc = Desc::decode(cx.src(2, first, Type::B64));
    let shape = (0, u32::from(f.n), u32::from(f.k));
    let b = plan(cx, f.b, b_desc, shape, trans_b, &mut segs)?;
    let staging = vec![0u8; b.at + b.rows * b.row_bytes];
    let active = cx.active;
    let op = issue(
        cx,
        OpClass::Wgmma,
        (segs, Vec::new(), staging),
        Completion::Group,
        None,
        active,
    );
    let reg_ids = |ops: &[Operand]| -> Vec<RegId> {
        ops.iter()
            .filter_map(|o| match o {
                Operand::Reg(r) => Some(*r),
                _ => None,
            })
            .collect()
    };
    let job = Job {
        op,
        form: f,
        frame: frame_key(cx),
        pc: cx.pc,
        d: reg_ids(elems(cx, 0)),
        a_regs: if a_in_regs {
            reg_ids(elems(cx, 1))
        } else {
            Vec::new()
        },
        a,
        b,
        scale_d,
        neg: (neg_a, neg_b),
        meta,
    };
    check_fence(cx, &job);
    let w = state(cx);
    w.frame = job.frame;
    w.lock(&job);
    w.uncommitted.push(job);
    Ok(())
}

/// Operations a warp may have issued and not yet written before its next `wgmma.mma_async`
/// waits (as hardware stalls issue): memory stays bounded whatever the latency model.
const MAX_PENDING: usize = 256;

/// Before a `wgmma.mma_async`: writes the warp's completed operations while its backlog is
/// long (as hardware does at completion, waited for or not); true when it is still full, so
/// the issue must wait for an operation to complete.
pub(crate) fn must_stall(cx: &mut Ctx<'_, '_>) -> Res<bool> {
    if cx
        .asy
        .as_ref()
        .is_none_or(|a| a.wg.pending() < MAX_PENDING / 2)
    {
        return Ok(false);
    }
    retire_early(cx)?;
    Ok(state(cx).pending() >= MAX_PENDING)
}

/// Writes the completed operations, oldest first: every completed group, then (once no group
/// is left) the completed uncommitted ones. Their registers stay locked until a wait.
fn retire_early(cx: &mut Ctx<'_, '_>) -> Res<()> {
    if let Some(&last) = retire(cx, 0)?.last() {
        state(cx).early = Some(last);
    }
    if !state(cx).groups.is_empty() {
        return Ok(());
    }
    let w = state(cx);
    let jobs = std::mem::take(&mut w.uncommitted);
    let done = jobs
        .iter()
        .take_while(|j| cx.engine.is_complete(j.op))
        .count();
    let mut jobs = jobs.into_iter();
    let finished: Vec<Job> = jobs.by_ref().take(done).collect();
    state(cx).uncommitted = jobs.collect();
    for job in &finished {
        apply(cx, job)?;
    }
    if let Some(last) = finished.last() {
        state(cx).early = Some(last.op);
    }
    Ok(())
}

/// A's 16 x K elements (K halved for the sparse forms) from the lanes' registers (the `mma`
/// m16n8k fragment).
fn register_a(f: &WgmmaForm, rows: &Rows) -> Vec<u64> {
    let mut p = part(f);
    p.shape.k = f.a_k();
    let k = usize::from(f.a_k());
    let mut a = vec![0u64; 16 * k];
    for (lane, regs) in rows.iter().enumerate() {
        for (r, &v) in regs.iter().enumerate().take(f.a_regs()) {
            for j in 0..super::mma::per_reg(f.a) {
                let (row, col) = super::mma::a_at(&p, lane, r, j);
                a[row * k + col] = super::mma::element(v, f.a, j);
            }
        }
    }
    a
}

/// Appends the segments that stage `count` rows of `k` elements of type `e` from row `from` of
/// the matrix `d` describes; returns where they are staged.
fn plan(
    cx: &Ctx<'_, '_>,
    e: Elem,
    d: Desc,
    (from, count, k): (u32, u32, u32),
    mn_major: bool,
    segs: &mut Vec<Seg>,
) -> Res<Staged> {
    let at = segs
        .iter()
        .map(|s| (s.stage + s.len) as usize)
        .max()
        .unwrap_or(0);
    let row_bytes = (k * e.bits() / 8) as usize;
    let staged = Staged {
        at,
        rows: count as usize,
        row_bytes,
        mn_major,
    };
    // K-major: each row's bytes are 16-byte chunks. MN-major (16-bit types): each k's run of
    // `count` elements is count / 8 chunks.
    let chunks: Vec<(u32, u32, usize)> = if mn_major {
        (0..k)
            .flat_map(|k| {
                (0..count / 8).map(move |m| {
                    (
                        from / 8 + m,
                        k,
                        k as usize * count as usize * 2 + m as usize * 16,
                    )
                })
            })
            .collect()
    } else {
        let per_row = (row_bytes / 16) as u32;
        (0..count)
            .flat_map(|r| {
                (0..per_row).map(move |c| (from + r, c, r as usize * row_bytes + c as usize * 16))
            })
            .collect()
    };
    let size = cx
        .smem
        .get(cx.rank as usize)
        .map_or(0, |s| s.bytes.len() as u64);
    for (line, step, stage) in chunks {
        let addr = u64::from(d.address(mn_major, line, step));
        if addr + 16 > size {
            let mut flt = fault(
                FaultKind::Memory,
                format!(
                    "`wgmma.mma_async` reads 16 bytes at shared+{addr:#x} (descriptor start {:#x}), outside the CTA's {size} bytes of shared memory",
                    d.start
                ),
            );
            flt.linear_thread = lanes(cx.active).next().map(|l| thread_of(cx, l) as u32);
            return Err(flt);
        }
        let stage = (at + stage) as u32;
        let src = Loc::Shared {
            rank: cx.rank,
            off: addr,
        };
        // Merge with the previous chunk when both sides continue it.
        if let Some(last) = segs.last_mut() {
            if let Loc::Shared { off, .. } = last.src {
                if off + u64::from(last.len) == addr && last.stage + last.len == stage {
                    last.len += 16;
                    continue;
                }
            }
        }
        segs.push(Seg {
            src,
            dst: Loc::Fill,
            len: 16,
            stage,
        });
    }
    Ok(staged)
}

/// Element (row, k) of a staged operand of element type `e`.
fn staged_at(bytes: &[u8], s: &Staged, e: Elem, row: usize, k: usize) -> u64 {
    let bits = e.bits() as usize;
    let bit = if s.mn_major {
        (k * s.rows + row) * bits
    } else {
        row * s.row_bytes * 8 + k * bits
    };
    let at = s.at + bit / 8;
    if bits < 8 {
        let byte = bytes.get(at).copied().unwrap_or(0);
        return u64::from(byte >> (bit % 8)) & ((1 << bits) - 1);
    }
    let mut v = [0u8; 8];
    if let Some(src) = bytes.get(at..at + bits / 8) {
        v[..bits / 8].copy_from_slice(src);
    }
    u64::from_le_bytes(v)
}

/// The sign bit of an element of type `e` (for `imm-scale` -1).
fn sign_bit(e: Elem) -> u64 {
    if e == Elem::Tf32 {
        1 << 31
    } else {
        1 << (e.bits() - 1)
    }
}

/// Computes a completed job's D from its operands and the accumulator registers, and writes it.
fn apply(cx: &mut Ctx<'_, '_>, job: &Job) -> Res<()> {
    if job.frame != frame_key(cx) {
        return Err(fault(
            FaultKind::Unsupported,
            "`wgmma.wait_group` in another function or call frame than its `wgmma.mma_async` is not supported by ptxrun",
        ));
    }
    let f = &job.form;
    let bytes = cx.engine.take_staging(job.op);
    let (n, k, ak) = (usize::from(f.n), usize::from(f.k), usize::from(f.a_k()));
    let mut a = match &job.a {
        Ok(a) => a.clone(),
        Err(s) => (0..16 * ak)
            .map(|i| staged_at(&bytes, s, f.a, i / ak, i % ak))
            .collect(),
    };
    let mut b_t: Vec<u64> = (0..n * k)
        .map(|i| staged_at(&bytes, &job.b, f.b, i / k, i % k))
        .collect();
    if job.neg.0 {
        a.iter_mut().for_each(|v| *v ^= sign_bit(f.a));
    }
    // The sparse forms negate B's operand after picking it (tf32 may splice two elements'
    // halves: the measured sign is the spliced value's).
    let neg_b = if job.neg.1 { sign_bit(f.b) } else { 0 };
    if job.meta.is_none() {
        b_t.iter_mut().for_each(|v| *v ^= neg_b);
    }
    let per = super::mma::per_reg(f.d);
    let mut c = vec![0u64; 16 * n];
    if job.scale_d {
        for lane in 0..WARP {
            for (r, reg) in job.d.iter().enumerate() {
                let v = cx.reg(*reg, lane);
                for j in 0..per {
                    let (row, col) = d_at(lane, r * per + j);
                    c[row * n + col] = super::mma::element(v, f.d, j);
                }
            }
        }
    }
    let d = match &job.meta {
        // f16, bf16 and tf32: `dot` is `float_dot`, with each element decoded once.
        None if super::products::is_mixed(&part(f)) => {
            let mut d = vec![0; 16 * n];
            let decoded = (&mut Vec::new(), &mut Vec::new());
            super::products::mixed_products(&part(f), (&a, &b_t, &c), decoded, &mut d);
            d
        }
        None => multiply(&part(f), (&a, &b_t, &c), &|ar, bc, cv| dot(f, ar, bc, cv)),
        Some((meta, sel)) => {
            let dot = |ar: &[u64], bc: &[u64], cv| dot(f, ar, bc, cv);
            super::wgmma_sp::sparse_product(f, (&a, &b_t, &c), (meta, *sel), neg_b, &dot)
        }
    };
    for lane in 0..WARP {
        for (r, reg) in job.d.iter().enumerate() {
            let mut v = 0u64;
            for j in 0..per {
                let (row, col) = d_at(lane, r * per + j);
                v |= d[row * n + col] << (j as u32 * f.d.bits());
            }
            cx.set_reg(*reg, lane, v);
        }
    }
    Ok(())
}

/// One element of D of a floating-point form.
fn dot(f: &WgmmaForm, a: &[u64], b: &[u64], c: u64) -> u64 {
    match f.a {
        Elem::E4m3 | Elem::E5m2 => tcore::f8_wgmma_dot(a, b, (f.a, f.b), c, f.d),
        _ => tcore::float_dot(a, b, (f.a, f.b), c, f.d),
    }
}

/// (row, column) within the warp's 16 rows of element `i` of D in `lane`.
fn d_at(lane: usize, i: usize) -> (usize, usize) {
    let (g, t) = (lane / 4, lane % 4);
    (g + 8 * ((i / 2) % 2), 8 * (i / 4) + 2 * t + i % 2)
}

/// `wgmma.fence`: orders the warp's register accesses before later `wgmma.mma_async`.
pub(crate) fn fence(cx: &mut Ctx<'_, '_>) -> Settle {
    let w = state(cx);
    w.fenced = true;
    w.touched.clear();
    Settle::all(cx.active)
}

/// `wgmma.commit_group`: the warp's uncommitted `wgmma.mma_async` become a group.
pub(crate) fn commit(cx: &mut Ctx<'_, '_>) -> Res<Settle> {
    let w = state(cx);
    let group = std::mem::take(&mut w.uncommitted);
    let ops = group.iter().map(|j| j.op).collect();
    w.groups.push_back(group);
    record(cx, What::Commit { bulk: false, ops });
    Ok(Settle::all(cx.active))
}

/// `wgmma.wait_group N`: done when at most N of the warp's groups are pending; each completed
/// group that leaves is applied (its D written) in issue order.
pub(crate) fn wait(cx: &mut Ctx<'_, '_>) -> Res<Settle> {
    let first = lanes(cx.active).next().unwrap_or(0);
    let n = cx.src(0, first, Type::U32) as usize;
    let mut observed = retire(cx, n)?;
    let active = cx.active;
    let w = state(cx);
    let done = if w.groups.len() <= n { active } else { 0 };
    if done != 0 {
        w.relock();
        // Operations written early are older than any pending one: observed now.
        observed.extend(w.early.take());
    }
    let (rank, warp) = (cx.rank, cx.warp_index);
    if let Some(hb) = cx.hb.as_mut() {
        let w = hb.warp(rank, warp);
        for &o in &observed {
            if let Some((done, _)) = cx.engine.op(o).and_then(|o| o.slot().group_epochs()) {
                w.vc.raise(done.agent, done.clock);
            }
        }
    }
    Ok(Settle {
        done,
        wait: Some(AsyncWait::Groups),
        what: cx.trace.enabled.then(|| format!("wgmma.wait_group {n}")),
        observed,
        result: true,
        ..Settle::default()
    })
}

/// Applies, oldest first, the completed groups at the front while more than `keep` groups are
/// pending; returns the operations applied.
fn retire(cx: &mut Ctx<'_, '_>, keep: usize) -> Res<Vec<OpId>> {
    let mut observed = Vec::new();
    loop {
        let engine = &*cx.engine;
        let w = &cx
            .asy
            .get_or_insert_with(|| Box::new(WarpAsync::default()))
            .wg;
        let ready = w.groups.len() > keep
            && w.groups
                .front()
                .is_some_and(|g| g.iter().all(|j| engine.is_complete(j.op)));
        if !ready {
            break;
        }
        let group = state(cx).groups.pop_front().unwrap_or_default();
        for job in &group {
            apply(cx, job)?;
            observed.push(job.op);
        }
    }
    Ok(observed)
}

const FENCE_HELP: &str = "execute `wgmma.fence` (in every warp of the warpgroup) after the last \
     access of the accumulator and A registers by other instructions and before the \
     `wgmma.mma_async` (PTX ISA 9.0 section 9.7.15.7.1)";

/// `missing-wgmma-fence`: the warp's first `wgmma.mma_async` with no `wgmma.fence` before it, or
/// one whose D or A registers another instruction accessed since the last fence.
fn check_fence(cx: &mut Ctx<'_, '_>, job: &Job) {
    if cx.hb.is_none() {
        return;
    }
    let func = job.frame.0;
    let code = cx.func;
    let w = state(cx);
    let found = if !w.fenced {
        Some((
            crate::check::Msg::text(
                "the warp's first `wgmma.mma_async` has no `wgmma.fence` before it: its \
                 accumulator and A registers are not ordered with the accesses before",
            ),
            None,
        ))
    } else if w.frame == job.frame {
        job.d.iter().chain(&job.a_regs).find_map(|r| {
            w.touched.get(&r.0).map(|&pc| {
                let role = if job.d.contains(r) {
                    "accumulator"
                } else {
                    "A"
                };
                (
                    crate::check::Msg::text(format!(
                        "{role} register `{}` of this `wgmma.mma_async` was accessed at line ",
                        reg_name(code, r.0)
                    ))
                    .related_line()
                    .then(" after the last `wgmma.fence`"),
                    Some(pc),
                )
            })
        })
    } else {
        None
    };
    let Some((message, related)) = found else {
        return;
    };
    let site = cx.site(lanes(cx.active).next().unwrap_or(0));
    if let Some(hb) = cx.hb.as_mut() {
        hb.report(
            crate::check::HazardKind::MissingWgmmaFence,
            site,
            message,
            FENCE_HELP,
            String::new(),
            related.map(|pc| (func, pc, "register accessed here".to_string())),
        );
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn descriptor_fields_and_the_128b_swizzle() {
        // CUTLASS's K-major SW128 atom: LBO 16 (unused), SBO 1024, start 0x2400.
        let v = (0x2400u64 >> 4) | (1 << 16) | (64 << 32) | (1 << 62);
        let d = Desc::decode(v);
        assert_eq!(
            d,
            Desc {
                start: 0x2400,
                lbo: 16,
                sbo: 1024,
                base: 0,
                swizzle: 128
            }
        );
        // Row r's 16-byte chunk c sits at chunk c ^ (r % 8) of its 128-byte row.
        for r in 0..16 {
            for c in 0..2 {
                let want = 0x2400 + (r / 8) * 1024 + (r % 8) * 128 + ((c ^ (r % 8)) * 16);
                assert_eq!(d.address(false, r, c), want, "row {r} chunk {c}");
            }
        }
        // No swizzle, K-major: core matrices of 8 rows x 16 bytes, LBO apart along K.
        let d = Desc::decode((256u64 >> 4) | ((128u64 >> 4) << 16) | ((512u64 >> 4) << 32));
        assert_eq!(d.address(false, 9, 1), 256 + 16 + 512 + 128);
    }

    #[test]
    fn base_offset_counts_the_swizzle_row_from_the_pattern_start() {
        // A 128B-swizzled K-major atom whose pattern starts at 0x2180 (row 3 of a 1024-byte
        // block): base offset 3 makes its first row unpermuted, as at an aligned start.
        let enc = |base: u64| (0x2180u64 >> 4) | (64 << 32) | (base << 49) | (1 << 62);
        let d = Desc::decode(enc(3));
        assert_eq!(d.base, 3);
        for r in 0..8 {
            for c in 0..2 {
                let want = 0x2180 + r * 128 + ((c ^ r) * 16);
                assert_eq!(d.address(false, r, c), want, "row {r} chunk {c}");
            }
        }
        // Base offset 0: the address's own row (3 for the first) permutes the chunks.
        assert_eq!(Desc::decode(enc(0)).address(false, 0, 0), 0x2180 + 3 * 16);
        // Without swizzling the base offset changes nothing.
        let plain = Desc::decode((0x2180u64 >> 4) | (8 << 16) | (16 << 32) | (5 << 49));
        assert_eq!(plain.address(false, 1, 1), 0x2180 + 16 + 128);
    }

    #[test]
    fn accumulator_fragment_tiles_the_warp_rows() {
        let n = 256;
        let mut seen = vec![0u8; 16 * n];
        for lane in 0..WARP {
            for i in 0..n / 2 {
                let (r, c) = d_at(lane, i);
                seen[r * n + c] += 1;
            }
        }
        assert!(seen.iter().all(|&s| s == 1));
    }
}
