//! A load or store of global memory in compiled code (PTX ISA 9.0 sections 9.7.9.8-9 `ld`/`st`
//! of `.global`, the shapes [`MemAccess`] names): what `memfast.rs` does for the same fast form.
//! The allocation is found as the interpreter finds it, by the first active lane's address: the
//! code calls [`locate`] (Rust, `Global::locate`), which declines where the interpreter's fast
//! path declines (no allocation holds that lane's access, a store to a read-only one) and where
//! the interpreter must see the access (clusters running on several threads log the ranges each
//! touches). Declined, the code leaves before the instruction and the interpreter takes it.
//! Found, the allocation's address, length and bytes are left in the [`Env`], and the access
//! runs as `shared.rs` runs a shared one, with 64-bit offsets from the allocation's address
//! (none negative, none past the end): every active lane aligned and inside that allocation,
//! else the code leaves before the instruction; then each lane's elements move in lane order.

use super::lower::{MemAccess, ROW};
use super::shared::{self, Region};
use super::Rows;
use crate::mem::Global;
use cranelift_codegen::ir::types::I64;
use cranelift_codegen::ir::{AbiParam, Block, InstBuilder, MemFlagsData, SigRef, Signature, Value};
use cranelift_codegen::isa::CallConv;
use cranelift_frontend::FunctionBuilder;

/// What compiled code reaches of global memory (its address is a parameter of a stretch's
/// function): the memory, and the allocation [`locate`] found last.
#[repr(C)]
pub(crate) struct Env {
    global: *mut Global,
    base: u64,
    len: u64,
    bytes: u64,
}

/// Byte offsets of [`Env`]'s fields after `global`.
const BASE: i32 = 8;
const LEN: i32 = 16;
const BYTES: i32 = 24;

impl Env {
    pub fn new(global: &mut Global) -> Env {
        Env {
            global,
            base: 0,
            len: 0,
            bytes: 0,
        }
    }
}

/// Finds the allocation holding the `how & 0xff` bytes at `addr` (a store if `how >> 8` is not
/// zero) and leaves it in `env`: nonzero if found, zero where the interpreter must take the
/// access (see the module's note).
///
/// # Safety
/// `env` is an [`Env`] made by [`Env::new`] from a `Global` nothing else touches during the call.
unsafe extern "C" fn locate(env: *mut Env, addr: u64, how: u64) -> u64 {
    // SAFETY: as the caller promises.
    let env = unsafe { &mut *env };
    let global = unsafe { &mut *env.global };
    let (size, store) = (how & 0xff, how >> 8 != 0);
    if global.log.is_some() {
        return 0;
    }
    let Ok((i, _)) = global.locate(addr, size) else {
        return 0;
    };
    let a = &mut global.allocs[i];
    if store && a.readonly {
        return 0;
    }
    // `locate` put the first lane's access inside: the allocation holds at least `size` bytes,
    // so inactive lanes may touch its offset 0.
    env.base = a.base;
    env.len = a.data.len() as u64;
    env.bytes = a.data.as_mut_ptr() as u64;
    1
}

/// The signature of [`locate`], imported into the function being built.
pub(super) fn signature(b: &mut FunctionBuilder<'_>, call_conv: CallConv) -> SigRef {
    let mut sig = Signature::new(call_conv);
    for _ in 0..3 {
        sig.params.push(AbiParam::new(I64));
    }
    sig.returns.push(AbiParam::new(I64));
    b.import_signature(sig)
}

/// What the code of a stretch with global accesses has: the [`Env`]'s address, the warp's lane
/// mask, [`locate`]'s signature, and the block that leaves the function.
#[derive(Clone, Copy)]
pub(super) struct Reach {
    pub env: Value,
    pub mask: Value,
    pub locate: SigRef,
    pub bail: Block,
}

/// Emits access `ld` of global memory at the builder's position, leaving the builder after it.
pub(super) fn emit(b: &mut FunctionBuilder<'_>, rows: Rows, ld: MemAccess, g: Reach) {
    // The first active lane's address (lane 0 of a whole warp).
    let addr = match ld.base {
        Some(r) => {
            let lane = match rows.keep {
                Some(_) => b.ins().ctz(g.mask),
                None => b.ins().iconst(I64, 0),
            };
            let at = b.ins().ishl_imm_u(lane, 3);
            let at = b.ins().iadd(rows.regs, at);
            let flags = MemFlagsData::new().with_notrap();
            let a = b.ins().load(I64, flags, at, r as i32 * ROW);
            b.ins().iadd_imm_s(a, ld.off as i64)
        }
        None => b.ins().iconst(I64, ld.off as i64),
    };
    let how = b.ins().iconst(I64, ld.bytes | i64::from(ld.store) << 8);
    let callee = b.ins().iconst(I64, locate as *const () as usize as i64);
    let call = b.ins().call_indirect(g.locate, callee, &[g.env, addr, how]);
    let found = b.inst_results(call)[0];
    let fine = b.create_block();
    b.ins().brif(found, fine, &[], g.bail, &[]);
    b.switch_to_block(fine);
    let env = MemFlagsData::trusted();
    let region = Region {
        base: Some(b.ins().load(I64, env, g.env, BASE)),
        len: b.ins().load(I64, env, g.env, LEN),
        ptr: b.ins().load(I64, env, g.env, BYTES),
        bail: g.bail,
    };
    shared::emit(b, rows, ld, region);
}
