//! A JIT for straight runs (issue 17): the warp-wide fast forms (`fast.rs`) that follow one
//! another in a function become one native function per *stretch* (a maximal run of unguarded
//! instructions whose forms have a fragment, `lower.rs`), compiled with Cranelift, the code
//! generator of wasmtime. The interpreter stays the reference and the fallback: `step.rs`'s
//! `straight_run` decides how many instructions may run (the scheduler's quantum, the step
//! limit, the cancel check, the next asynchronous event) and does their bookkeeping; the
//! compiled code only computes registers, exactly as `fast::exec` would, instruction after
//! instruction. A stretch can be entered at any of its instructions and left after any count,
//! so the random quanta of the scheduler need one function per stretch, not one per quantum.
//!
//! The model of one compiled stretch: `fn(regs, start, count, mask)` jumps (a jump table) to
//! instruction `start`, then runs `count` instructions; each runs its fragment for the 16 pairs
//! of lanes of the register file in turn. A warp with inactive lanes uses a second variant
//! whose stores keep the inactive lanes (the lane masks are made once per call).
//!
//! Compiling costs about as much as interpreting an instruction a few thousand times (Cranelift
//! spends ~0.6 M host instructions per PTX instruction of a stretch; compiled code saves ~70 per
//! warp instruction), so a stretch is compiled only once the interpreter has run its
//! instructions [`Jit::after`] times each on average (the ski-rental rule: the compile is paid
//! for by then, and code that never gets hot is never compiled). Code and plans last as long as
//! the machine (one per run, or per `--jobs` worker), bounded by the module's size: a
//! function's plan is made once per kernel (a child grid's fast forms may hold other
//! addresses).

mod lower;
#[cfg(test)]
mod tests;

use super::fast::Fast;
use crate::ir::Instr;
use cranelift_codegen::ir::types::{I64, I64X2};
use cranelift_codegen::ir::{
    AbiParam, Block, InstBuilder, JumpTableData, MemFlagsData, StackSlot, StackSlotData,
    StackSlotKind, Value,
};
use cranelift_codegen::isa::TargetFrontendConfig;
use cranelift_codegen::settings::{self, Configurable};
use cranelift_codegen::Context;
use cranelift_frontend::{FunctionBuilder, FunctionBuilderContext};
use cranelift_jit::{JITBuilder, JITModule};
use cranelift_module::{default_libcall_names, Module};
use rustc_hash::FxHashMap;

/// A compiled stretch: registers, first instruction, how many to run, the warp's lane mask.
type StretchFn = unsafe extern "C" fn(*mut u64, u64, u64, u64);

/// Pairs of lanes a fragment's loop handles per iteration (16 pairs in all).
const UNROLL: i64 = 4;

/// The compiled code of one variant of a stretch.
#[derive(Clone, Copy)]
enum Code {
    Cold,
    Failed,
    Ready(StretchFn),
}

/// A maximal run of instructions with fragments, `start..start + len`.
struct Stretch {
    start: u32,
    len: u32,
    /// Register-file entries the code touches: the highest register's row end.
    regs_end: usize,
    /// Instructions of the stretch the interpreter has run while it was not compiled.
    work: u64,
    /// For a whole warp, and for one with inactive lanes.
    full: Code,
    partial: Code,
}

/// A function's stretches, and for each pc the stretch holding it.
struct Plan {
    home: Vec<u32>,
    stretches: Vec<Stretch>,
}

const NONE: u32 = u32::MAX;

/// The JIT of one machine.
pub(crate) struct Jit {
    module: Option<JITModule>,
    ctx: Context,
    fctx: FunctionBuilderContext,
    fma: bool,
    /// How many times, on average, the interpreter runs a stretch's instructions before it
    /// is compiled.
    after: u32,
    /// The running kernel's plans, per function; other kernels' plans wait in `kept`.
    plans: Vec<Option<Plan>>,
    kept: FxHashMap<u32, Vec<Option<Plan>>>,
    /// Stretch variants compiled, and those Cranelift refused (they run interpreted).
    pub compiled: u64,
    pub refused: u64,
    /// Why Cranelift refused the last one (for tests and debugging).
    pub last_refusal: Option<String>,
}

/// What [`Jit::run`] did.
pub(crate) enum Ran {
    /// Compiled code ran this many instructions.
    Compiled(usize),
    /// The interpreter should run this many (at least one) before asking again.
    Interpret(usize),
}

/// Where a straight run stands: function `func` (its id, forms and code), at `pc`, allowed to
/// run `most` more instructions on the register file `regs` of a warp with lanes `mask`.
pub(crate) struct At<'a> {
    pub func: usize,
    pub forms: &'a [Fast],
    pub code: &'a [Instr],
    pub pc: usize,
    pub most: usize,
    pub mask: u32,
}

impl Jit {
    /// A JIT for this host, compiling a stretch once its instructions have been interpreted
    /// `after` times each on average; `None` where Cranelift
    /// has no backend for the host.
    pub fn new(after: u32) -> Option<Jit> {
        let mut flags = settings::builder();
        for (k, v) in [
            ("opt_level", "speed"),
            ("is_pic", "false"),
            ("use_colocated_libcalls", "false"),
            (
                "enable_verifier",
                if cfg!(debug_assertions) {
                    "true"
                } else {
                    "false"
                },
            ),
        ] {
            flags.set(k, v).ok()?;
        }
        let isa = cranelift_native::builder()
            .ok()?
            .finish(settings::Flags::new(flags))
            .ok()?;
        let module = JITModule::new(JITBuilder::with_isa(isa, default_libcall_names()));
        Some(Jit {
            ctx: module.make_context(),
            module: Some(module),
            fctx: FunctionBuilderContext::new(),
            fma: host_has_fma(),
            after,
            plans: Vec::new(),
            kept: FxHashMap::default(),
            compiled: 0,
            refused: 0,
            last_refusal: None,
        })
    }

    /// The running kernel changes from `from` to `to` (a child grid): their plans swap.
    pub fn switch_kernel(&mut self, from: u32, to: u32) {
        let next = self.kept.remove(&to).unwrap_or_default();
        let was = std::mem::replace(&mut self.plans, next);
        self.kept.insert(from, was);
    }

    /// Runs what compiled code can of the straight run at `at` on `regs`, or says how many
    /// instructions the interpreter should run before asking again.
    pub fn run(&mut self, at: At<'_>, regs: &mut [u64]) -> Ran {
        let partial = at.mask != u32::MAX;
        let after = u64::from(self.after);
        let Some(st) = self.stretch_at(&at) else {
            return Ran::Interpret(1);
        };
        let (start, len, regs_end) = (st.start as usize, st.len as usize, st.regs_end);
        let from = at.pc - start;
        let count = (len - from).min(at.most);
        let code = if partial { st.partial } else { st.full };
        let f = match code {
            Code::Ready(f) => f,
            Code::Failed => return Ran::Interpret(count.max(1)),
            Code::Cold if st.work < after.saturating_mul(len as u64) => {
                st.work += count as u64;
                return Ran::Interpret(count.max(1));
            }
            Code::Cold => {
                let made = compile(self, &at.forms[start..start + len], partial);
                if let Some(st) = self.stretch_at(&at) {
                    *(if partial {
                        &mut st.partial
                    } else {
                        &mut st.full
                    }) = made;
                }
                match made {
                    Code::Ready(f) => f,
                    _ => return Ran::Interpret(count.max(1)),
                }
            }
        };
        if count == 0 || regs.len() < regs_end {
            return Ran::Interpret(1);
        }
        // SAFETY: the code reads and writes only rows of the registers its forms name, all
        // below `regs_end`, checked against `regs` just above; it runs `count` (at least one,
        // at most the stretch's rest) instructions from `from`, an instruction of the stretch.
        unsafe {
            f(
                regs.as_mut_ptr(),
                from as u64,
                count as u64,
                u64::from(at.mask),
            )
        };
        Ran::Compiled(count)
    }

    /// The stretch holding `at.pc`, the function's plan made on first use.
    fn stretch_at(&mut self, at: &At<'_>) -> Option<&mut Stretch> {
        if self.plans.len() <= at.func {
            self.plans.resize_with(at.func + 1, || None);
        }
        let fma = self.fma;
        let plan = self.plans[at.func].get_or_insert_with(|| plan(at.forms, at.code, fma));
        let s = *plan.home.get(at.pc)?;
        plan.stretches.get_mut(s as usize)
    }
}

impl Drop for Jit {
    fn drop(&mut self) {
        if let Some(m) = self.module.take() {
            // SAFETY: the machine that owned this JIT is gone; no function pointer of it is
            // kept anywhere else, and none is running.
            unsafe { m.free_memory() };
        }
    }
}

fn host_has_fma() -> bool {
    #[cfg(target_arch = "x86_64")]
    {
        std::is_x86_feature_detected!("fma")
    }
    #[cfg(not(target_arch = "x86_64"))]
    {
        cfg!(target_arch = "aarch64")
    }
}

/// A function's stretches: the maximal runs of unguarded instructions whose fast form has a
/// fragment.
fn plan(forms: &[Fast], code: &[Instr], fma: bool) -> Plan {
    let mut home = vec![NONE; forms.len()];
    let mut stretches = Vec::new();
    let fits = |pc: usize| {
        code.get(pc).is_some_and(|i| i.guard.is_none()) && lower::lowerable(forms[pc], fma)
    };
    let mut pc = 0;
    while pc < forms.len() {
        if !fits(pc) {
            pc += 1;
            continue;
        }
        let start = pc;
        while pc < forms.len() && fits(pc) {
            home[pc] = stretches.len() as u32;
            pc += 1;
        }
        let top = forms[start..pc]
            .iter()
            .flat_map(|&f| {
                let (reads, write) = lower::registers(f);
                reads.into_iter().chain(write)
            })
            .max()
            .unwrap_or(0);
        stretches.push(Stretch {
            start: start as u32,
            len: (pc - start) as u32,
            regs_end: (top as usize + 1) * super::lanes::WARP,
            work: 0,
            full: Code::Cold,
            partial: Code::Cold,
        });
    }
    Plan { home, stretches }
}

/// Compiles one variant of the stretch `forms` (`partial`: the stores keep inactive lanes).
fn compile(jit: &mut Jit, forms: &[Fast], partial: bool) -> Code {
    let Some(module) = jit.module.as_mut() else {
        return Code::Failed;
    };
    module.clear_context(&mut jit.ctx);
    let ptr = I64;
    for _ in 0..4 {
        jit.ctx.func.signature.params.push(AbiParam::new(ptr));
    }
    let made = (|| -> Result<StretchFn, Box<cranelift_module::ModuleError>> {
        let id = module.declare_anonymous_function(&jit.ctx.func.signature)?;
        let target = module.target_config();
        build((&mut jit.ctx, &mut jit.fctx), target, forms, partial);
        module.define_function(id, &mut jit.ctx)?;
        module.finalize_definitions()?;
        let f = module.get_finalized_function(id);
        // SAFETY: `build` made a function of exactly this signature (four 64-bit integers).
        Ok(unsafe { std::mem::transmute::<*const u8, StretchFn>(f) })
    })();
    module.clear_context(&mut jit.ctx);
    match made {
        Ok(f) => {
            jit.compiled += 1;
            Code::Ready(f)
        }
        Err(e) => {
            jit.refused += 1;
            jit.last_refusal = Some(format!("{e:?}"));
            Code::Failed
        }
    }
}

/// The body of a stretch's function: the jump table to the first instruction, then each
/// instruction's loop over pairs of lanes and the count that ends the run.
fn build(
    (ctx, fctx): (&mut Context, &mut FunctionBuilderContext),
    target: TargetFrontendConfig,
    forms: &[Fast],
    partial: bool,
) {
    let mut b = FunctionBuilder::new(&mut ctx.func, fctx);
    let entry = b.create_block();
    b.append_block_params_for_function_params(entry);
    b.switch_to_block(entry);
    let p = b.block_params(entry).to_vec();
    let (regs, start, count, mask) = (p[0], p[1], p[2], p[3]);
    let left = b.declare_var(I64);
    let off = b.declare_var(I64);
    b.def_var(left, count);
    let keep = partial.then(|| lane_masks(&mut b, mask));
    let heads: Vec<Block> = forms.iter().map(|_| b.create_block()).collect();
    let exit = b.create_block();
    let table: Vec<_> = heads
        .iter()
        .map(|&h| b.func.dfg.block_call(h, &[]))
        .collect();
    let default = b.func.dfg.block_call(exit, &[]);
    let jt = b.create_jump_table(JumpTableData::new(default, &table));
    let start = b.ins().ireduce(cranelift_codegen::ir::types::I32, start);
    b.ins().br_table(start, jt);
    for (i, &form) in forms.iter().enumerate() {
        b.switch_to_block(heads[i]);
        let zero = b.ins().iconst(I64, 0);
        b.def_var(off, zero);
        let body = b.create_block();
        b.ins().jump(body, &[]);
        b.switch_to_block(body);
        let o = b.use_var(off);
        let base = b.ins().iadd(regs, o);
        for u in 0..UNROLL {
            let at = b.ins().iadd_imm_s(base, u * 16);
            let k = keep.map(|slot| {
                let a = b.ins().stack_addr(I64, slot, 0);
                let a = b.ins().iadd(a, o);
                b.ins()
                    .load(I64X2, MemFlagsData::trusted(), a, (u * 16) as i32)
            });
            lower::fragment(&mut b, form, at, k);
        }
        let o2 = b.ins().iadd_imm_s(o, UNROLL * 16);
        b.def_var(off, o2);
        let more = b.ins().icmp_imm_u(
            cranelift_codegen::ir::condcodes::IntCC::UnsignedLessThan,
            o2,
            i64::from(lower::ROW),
        );
        let next = b.create_block();
        b.ins().brif(more, body, &[], next, &[]);
        b.switch_to_block(next);
        let n = b.use_var(left);
        let n = b.ins().iadd_imm_s(n, -1);
        b.def_var(left, n);
        match heads.get(i + 1) {
            Some(&h) => b.ins().brif(n, h, &[], exit, &[]),
            None => b.ins().jump(exit, &[]),
        };
    }
    b.switch_to_block(exit);
    b.ins().return_(&[]);
    b.seal_all_blocks();
    b.finalize(target);
}

/// The lane masks of `mask`, one `i64x2` per pair of lanes (all ones in an active lane), in a
/// stack slot of 16 of them.
fn lane_masks(b: &mut FunctionBuilder<'_>, mask: Value) -> StackSlot {
    let slot = b.create_sized_stack_slot(StackSlotData::new(
        StackSlotKind::ExplicitSlot,
        lower::ROW as u32,
        4,
    ));
    for pair in 0..16i64 {
        let bits = b.ins().ushr_imm_u(mask, pair * 2);
        let lo = b.ins().band_imm_u(bits, 1);
        let hi = b.ins().ushr_imm_u(bits, 1);
        let hi = b.ins().band_imm_u(hi, 1);
        let (lo, hi) = (b.ins().ineg(lo), b.ins().ineg(hi));
        let v = b.ins().scalar_to_vector(I64X2, lo);
        let v = b.ins().insertlane(v, hi, 1);
        b.ins().stack_store(I64, v, slot, (pair * 16) as i32);
    }
    slot
}
