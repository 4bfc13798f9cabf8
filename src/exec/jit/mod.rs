//! A JIT for straight runs (issue 17): the warp-wide fast forms (`fast.rs`) that follow one
//! another in a function become one native function per *stretch* (a maximal run of unguarded
//! instructions whose forms have a fragment, `lower.rs`, or, when no checker runs, are loads
//! and stores of shared memory, `shared.rs`, or of global memory, `global.rs`), compiled with
//! Cranelift, the code generator of wasmtime. The interpreter stays the reference and the
//! fallback: `step.rs`'s `straight_run` decides how many instructions may run (the scheduler's
//! quantum, the step limit, the cancel check, the next asynchronous event) and does their
//! bookkeeping; the compiled code only computes registers and moves memory, exactly as
//! `fast::exec` and `memfast.rs` would, instruction after instruction. A stretch can be entered
//! at any of its instructions and left after any count, so the random quanta of the scheduler
//! need one function per stretch, not one per quantum.
//!
//! The model of one compiled stretch: `fn(regs, start, count, mask, shared, shared_len,
//! global, edges) -> ran` jumps (a jump table) to instruction `start`, then runs `count`
//! instructions; each runs its fragment for the 16 pairs of lanes of the register file in
//! turn. A warp with inactive lanes uses a second variant whose stores keep the inactive lanes
//! (the lane masks are made once per call). A load or store whose lanes do not all land
//! aligned inside shared memory (or inside one global allocation) ends the call before it
//! (`ran` tells how far it got), and the interpreter takes it: the general path's faults and
//! messages stay its own. A whole warp's accesses of shared memory through one unchanged
//! register are checked once per call, as a group (`groups.rs`).
//!
//! Compiling costs about as much as interpreting an instruction a few thousand times (Cranelift
//! spends ~0.6 M host instructions per arithmetic PTX instruction of a stretch; compiled code
//! saves ~70 per warp instruction), so a stretch is compiled only once the interpreter has
//! spent on it what compiling it costs: for arithmetic, once it has run its instructions
//! [`Jit::after`] times each on average; a load or store weighs more, as it costs the
//! interpreter 6 times what arithmetic does and Cranelift 1.7 times (`weigh`). This is the
//! ski-rental rule: the compile is paid for by then, and code that never gets hot is never
//! compiled. Code and plans last as long as the machine (one per run, or per `--jobs` worker),
//! bounded by the module's size: a function's plan is made once per kernel (a child grid's fast
//! forms may hold other addresses).

mod edge;
#[cfg(test)]
mod edge_tests;
mod global;
mod groups;
mod lower;
mod shared;
#[cfg(test)]
mod tests;

use super::fast::Fast;
use super::spin::EdgeRule;
use crate::ir::{Instr, Operand};
use crate::mem::Global;
use cranelift_codegen::ir::types::{I64, I64X2};
use cranelift_codegen::ir::{
    AbiParam, Block, InstBuilder, JumpTableData, MemFlagsData, StackSlot, StackSlotData,
    StackSlotKind, Type, Value,
};
use cranelift_codegen::isa::TargetFrontendConfig;
use cranelift_codegen::settings::{self, Configurable};
use cranelift_codegen::Context;
use cranelift_frontend::{FunctionBuilder, FunctionBuilderContext, Variable};
use cranelift_jit::{JITBuilder, JITModule};
use cranelift_module::{default_libcall_names, Module};
use edge::{Edge, Lap};
use rustc_hash::FxHashMap;

/// A compiled stretch: registers, first instruction, how many to run, the warp's lane mask, the
/// CTA's shared memory and its length, global memory (`global.rs`), and how many back edges
/// it may take (`edge.rs`); it returns how many instructions it ran (fewer when a load
/// declined, the interpreter takes that one, or at a back edge it may not take).
type StretchFn =
    unsafe extern "C" fn(*mut u64, u64, u64, u64, *mut u8, u64, *mut global::Env, u64) -> u64;

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
    /// The registers its fragments read as zero-extended 32-bit values (`lower.rs`).
    narrow: Box<[u32]>,
    /// Whether it loads or stores shared memory, and global memory.
    mem: bool,
    global: bool,
    /// The branch after it back into it, when it is a loop body without loads and stores.
    edge: Option<Edge>,
    /// What interpreting the stretch's instructions costs, in tenths of an arithmetic form's
    /// (`weigh`).
    weight: u64,
    /// Instructions of the stretch the interpreter has run while it was not compiled, times
    /// its weight; it is compiled once that reaches `due` (`plan`).
    work: u64,
    due: u64,
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
    /// Whether loads and stores of shared and global memory are compiled (no checker must see
    /// them).
    mem: bool,
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
    /// Check before each call that the registers the code reads as 32-bit values are
    /// zero-extended, as `lower.rs` relies on (`Options::verify`: tests only; a broken
    /// invariant panics, naming the register).
    pub verify: bool,
}

/// What [`Jit::run`] did.
pub(crate) enum Ran {
    /// Compiled code ran some instructions.
    Compiled(Compiled),
    /// The interpreter should run this many (at least one) before asking again.
    Interpret(usize),
}

/// What compiled code ran: `ran` instructions (at least one, unless `declined`), of which the
/// last store is the `last_store`-th; `declined`: then a load or store declined (a fault, a
/// misaligned lane), and the interpreter must take the next instruction. It stopped before
/// instruction `next`, having taken back edges of which the run's rule counts `counted`.
pub(crate) struct Compiled {
    pub ran: usize,
    pub declined: bool,
    pub last_store: Option<usize>,
    pub next: usize,
    pub counted: u64,
}

/// Where a straight run stands: function `func` (its id, forms, code and operands), at `pc`,
/// allowed to run `most` more instructions on the register file `regs` of a warp with lanes
/// `mask`, having run `done`; `edges` says which back edges it may take (asked only when a
/// loop is about to run).
pub(crate) struct At<'a> {
    pub func: usize,
    pub forms: &'a [Fast],
    pub code: &'a [Instr],
    pub operands: &'a [Operand],
    pub pc: usize,
    pub most: usize,
    pub mask: u32,
    pub done: u64,
    pub edges: &'a dyn Fn() -> EdgeRule,
}

impl Jit {
    /// A JIT for this host, compiling a stretch once its instructions have been interpreted
    /// `after` times each on average, and compiling loads and stores of shared memory if `mem`
    /// (no checker must see them); `None` where Cranelift has no backend for the host.
    pub fn new(after: u32, mem: bool) -> Option<Jit> {
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
            mem,
            after,
            plans: Vec::new(),
            kept: FxHashMap::default(),
            compiled: 0,
            refused: 0,
            last_refusal: None,
            verify: false,
        })
    }

    /// The running kernel changes from `from` to `to` (a child grid): their plans swap.
    pub fn switch_kernel(&mut self, from: u32, to: u32) {
        let next = self.kept.remove(&to).unwrap_or_default();
        let was = std::mem::replace(&mut self.plans, next);
        self.kept.insert(from, was);
    }

    /// Runs what compiled code can of the straight run at `at` on `regs` (loads and stores
    /// reaching `shared`, the CTA's shared memory, and `global`), or says how many instructions
    /// the interpreter should run before asking again.
    pub fn run(
        &mut self,
        at: At<'_>,
        regs: &mut [u64],
        shared: &mut [u8],
        global: Option<&mut Global>,
    ) -> Ran {
        let partial = at.mask != u32::MAX;
        let verify = self.verify;
        let Some(st) = self.stretch_at(&at) else {
            return Ran::Interpret(1);
        };
        let (start, len, regs_end) = (st.start as usize, st.len as usize, st.regs_end);
        // Shared memory shorter than any access: the code's inactive lanes read at 0.
        let mem = st.mem || st.global;
        let no_room = st.mem && shared.len() < shared::ROOM;
        // Only a stretch with global accesses reaches global memory, through an `Env`.
        let mut env = match st.global {
            true => match global {
                Some(g) => Some(global::Env::new(g)),
                None => return Ran::Interpret(1),
            },
            false => None,
        };
        let from = at.pc - start;
        let count = (len - from).min(at.most);
        let code = if partial { st.partial } else { st.full };
        // Only a whole warp goes round a loop (`edge.rs`).
        let edge = st.edge.filter(|_| !partial);
        let lap = edge.map(|e| Lap {
            from,
            len,
            target: e.target as usize,
        });
        let f = match code {
            Code::Ready(f) => f,
            Code::Failed => return Ran::Interpret(count.max(1)),
            Code::Cold if st.work < st.due => {
                st.work = st.work.saturating_add(count as u64 * st.weight);
                return Ran::Interpret(count.max(1));
            }
            Code::Cold => {
                let made = compile(self, &at.forms[start..start + len], partial, edge);
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
        if count == 0 || regs.len() < regs_end || no_room {
            return Ran::Interpret(1);
        }
        if verify {
            if let Some(st) = self.stretch_at(&at) {
                verify_narrow(&st.narrow, regs, at.pc);
            }
        }
        // A loop goes on past its back edge as far as the run may go.
        let rule = lap.map(|_| (at.edges)()).unwrap_or(EdgeRule::NONE);
        let (count, edges) = match lap {
            Some(l) => (at.most, l.allowed(&rule, at.done)),
            None => (count, 0),
        };
        // SAFETY: the code reads and writes only rows of the registers its forms name, all
        // below `regs_end`, checked against `regs` just above; it runs `count` (at least one,
        // at most the stretch's rest) instructions from `from`, an instruction of the stretch.
        // Its loads and stores reach `shared` only at offsets it has checked against
        // `shared.len()` (inactive lanes at 0, inside since `no_room` is false), and `global`
        // only through `env` (present where the stretch has global accesses), inside the
        // allocation `global::locate` found.
        let env_ptr = env
            .as_mut()
            .map_or(std::ptr::null_mut(), |e| e as *mut global::Env);
        let ran = unsafe {
            f(
                regs.as_mut_ptr(),
                from as u64,
                count as u64,
                u64::from(at.mask),
                shared.as_mut_ptr(),
                shared.len() as u64,
                env_ptr,
                edges,
            )
        } as usize;
        let ran = ran.min(count);
        let last_store = match mem {
            true => at.forms[at.pc..at.pc + ran]
                .iter()
                .rposition(|f| f.is_store()),
            false => None,
        };
        let (next, counted) = match lap {
            Some(l) => {
                let (i, counted) = l.after(&rule, at.done, ran);
                (start + i, counted)
            }
            None => (at.pc + ran, 0),
        };
        Ran::Compiled(Compiled {
            ran,
            // A loop (no loads or stores) stops only at its count or its back edge.
            declined: lap.is_none() && ran < count,
            last_store,
            next,
            counted,
        })
    }

    /// The stretch holding `at.pc`, the function's plan made on first use.
    fn stretch_at(&mut self, at: &At<'_>) -> Option<&mut Stretch> {
        if self.plans.len() <= at.func {
            self.plans.resize_with(at.func + 1, || None);
        }
        let (fma, mem, after) = (self.fma, self.mem, self.after);
        let plan = self.plans[at.func]
            .get_or_insert_with(|| plan((at.forms, at.code, at.operands), (fma, mem), after));
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
/// fragment (or is a load or store, with `mem`), each compiled once the interpreter has spent
/// on it what compiling costs: `after` times the compile's weight, in weighted instructions
/// (`work` counts them times the stretch's length).
fn plan(
    (forms, code, operands): (&[Fast], &[Instr], &[Operand]),
    (fma, mem): (bool, bool),
    after: u32,
) -> Plan {
    let mut home = vec![NONE; forms.len()];
    let mut stretches = Vec::new();
    let fits = |pc: usize| {
        code.get(pc).is_some_and(|i| i.guard.is_none()) && lower::lowerable(forms[pc], fma, mem)
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
        let (mem, global) = (
            accesses(&forms[start..pc], false),
            accesses(&forms[start..pc], true),
        );
        let edge = match mem || global {
            true => None,
            false => Edge::of(code, operands, start, pc),
        };
        let top = forms[start..pc]
            .iter()
            .flat_map(|&f| lower::registers(f))
            .chain(edge.and_then(|e| e.guard).map(|g| g.reg.0))
            .max()
            .unwrap_or(0);
        let mut narrow: Vec<u32> = (forms[start..pc].iter())
            .flat_map(|&f| lower::narrow_sources(f))
            .collect();
        narrow.sort_unstable();
        narrow.dedup();
        stretches.push(Stretch {
            start: start as u32,
            len: (pc - start) as u32,
            regs_end: (top as usize + 1) * super::lanes::WARP,
            narrow: narrow.into(),
            mem,
            global,
            edge,
            weight: weigh(&forms[start..pc], 10, 60),
            work: 0,
            due: u64::from(after)
                .saturating_mul(weigh(&forms[start..pc], 10, 17))
                .saturating_mul((pc - start) as u64),
            full: Code::Cold,
            partial: Code::Cold,
        });
    }
    Plan { home, stretches }
}

/// Panics (`Jit::verify`, tests only) when a register of `narrow` holds bits above its low
/// word in some lane of `regs`: a writer broke the invariant compiled code relies on, before
/// instruction `pc`.
fn verify_narrow(narrow: &[u32], regs: &[u64], pc: usize) {
    let w = super::lanes::WARP;
    for &r in narrow {
        let row = &regs[r as usize * w..][..w];
        if let Some(lane) = row.iter().position(|&v| v >> 32 != 0) {
            panic!(
                "register row {r}, lane {lane}, holds {:#x}: a 32-bit register must be \
                 zero-extended (compiled code from instruction {pc} reads it so)",
                row[lane]
            );
        }
    }
}

/// The sum over `forms` of `arith` of an arithmetic form and `mem` of a load or store. Measured
/// (benches/NOTES.md sections 13-18): the interpreter runs a warp's arithmetic form in ~170 host
/// instructions and a load or store in ~1,000 (6x), Cranelift compiles an arithmetic form in
/// ~0.6 M and a load or store in ~1 M (1.7x): interpreting weighs 10 and 60, compiling 10 and
/// 17.
fn weigh(forms: &[Fast], arith: u64, mem: u64) -> u64 {
    (forms.iter())
        .map(|f| if f.is_mem() { mem } else { arith })
        .sum()
}

/// Whether `forms` has compiled accesses of global memory (else of shared memory).
fn accesses(forms: &[Fast], global: bool) -> bool {
    (forms.iter()).any(|&f| lower::MemAccess::of(f).is_some_and(|m| m.global == global))
}

/// Compiles one variant of the stretch `forms` (`partial`: the stores keep inactive lanes),
/// closed into a loop by `edge`.
fn compile(jit: &mut Jit, forms: &[Fast], partial: bool, edge: Option<Edge>) -> Code {
    let Some(module) = jit.module.as_mut() else {
        return Code::Failed;
    };
    module.clear_context(&mut jit.ctx);
    let ptr = I64;
    for _ in 0..8 {
        jit.ctx.func.signature.params.push(AbiParam::new(ptr));
    }
    jit.ctx.func.signature.returns.push(AbiParam::new(I64));
    let made = (|| -> Result<StretchFn, Box<cranelift_module::ModuleError>> {
        let id = module.declare_anonymous_function(&jit.ctx.func.signature)?;
        let target = module.target_config();
        build(
            (&mut jit.ctx, &mut jit.fctx),
            target,
            forms,
            (partial, edge),
        );
        module.define_function(id, &mut jit.ctx)?;
        module.finalize_definitions()?;
        let f = module.get_finalized_function(id);
        // SAFETY: `build` made a function of exactly this signature (eight 64-bit integers
        // in, one out).
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
/// instruction's loop over pairs of lanes and the count that ends the run, and the back edge
/// `edge` after the last.
fn build(
    (ctx, fctx): (&mut Context, &mut FunctionBuilderContext),
    target: TargetFrontendConfig,
    forms: &[Fast],
    (partial, edge): (bool, Option<Edge>),
) {
    let mut b = FunctionBuilder::new(&mut ctx.func, fctx);
    let entry = b.create_block();
    b.append_block_params_for_function_params(entry);
    b.switch_to_block(entry);
    let p = b.block_params(entry).to_vec();
    let (regs, start, count, mask) = (p[0], p[1], p[2], p[3]);
    let left = b.declare_var(I64);
    let off = b.declare_var(I64);
    let edges = b.declare_var(I64);
    b.def_var(left, count);
    let zero = b.ins().iconst(I64, 0);
    b.def_var(edges, zero);
    let keep = partial.then(|| lane_masks(&mut b, mask));
    // A whole warp checks the accesses through one register once (`groups.rs`).
    let (mut groups, members) = match partial {
        true => (Vec::new(), Vec::new()),
        false => groups::plan(forms),
    };
    groups::declare(&mut b, &mut groups);
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
    let shared = shared::Region {
        ptr: p[4],
        len: p[5],
        bail: exit,
        base: None,
    };
    let call_conv = b.func.signature.call_conv;
    let reach = global::Reach {
        env: p[6],
        mask,
        locate: global::signature(&mut b, call_conv),
        bail: exit,
    };
    for (i, &form) in forms.iter().enumerate() {
        b.switch_to_block(heads[i]);
        let rows = Rows { regs, off, keep };
        match lower::MemAccess::of(form) {
            Some(m) if m.global => global::emit(&mut b, rows, m, reach),
            Some(m) => match groups::member(&members, i) {
                Some(g) => groups::emit(&mut b, rows, (m, g), &mut groups[g.group], shared),
                None => shared::emit(&mut b, rows, m, shared),
            },
            None => fragment_loop(&mut b, rows, form),
        }
        let n = b.use_var(left);
        let n = b.ins().iadd_imm_s(n, -1);
        b.def_var(left, n);
        match (heads.get(i + 1), edge) {
            (Some(&h), _) => {
                b.ins().brif(n, h, &[], exit, &[]);
            }
            (None, Some(e)) => {
                let head = heads[e.target as usize];
                edge::emit(&mut b, regs, (left, edges, p[7]), e, (head, exit));
            }
            (None, None) => {
                b.ins().jump(exit, &[]);
            }
        }
    }
    groups::finish(&mut b, Rows { regs, off, keep }, &groups, shared);
    // Every way out returns the instructions run: `count` less those left (a declined load
    // is still left).
    b.switch_to_block(exit);
    let n = b.use_var(left);
    let ran = b.ins().isub(count, n);
    b.ins().return_(&[ran]);
    b.seal_all_blocks();
    b.finalize(target);
}

/// What an instruction's code reaches: the register file `regs`, the variable holding the byte
/// offset of the lanes being built in a row, and a partial warp's lane masks.
#[derive(Clone, Copy)]
struct Rows {
    regs: Value,
    off: Variable,
    keep: Option<StackSlot>,
}

/// Emits the loop running `form`'s fragment over the 16 pairs of lanes, `UNROLL` pairs an
/// iteration, leaving the builder after it.
fn fragment_loop(b: &mut FunctionBuilder<'_>, rows: Rows, form: Fast) {
    let (body, o, base) = loop_head(b, rows);
    for u in 0..UNROLL {
        let at = b.ins().iadd_imm_s(base, u * 16);
        let k = rows.keep.map(|slot| lane_mask(b, slot, o, u * 16, I64X2));
        lower::fragment(b, form, at, k);
    }
    loop_back(b, rows.off, o, UNROLL * 16, body);
}

/// Starts a loop over a row: the offset variable from 0, the loop's block (where the builder is
/// left), the offset in it and the registers' address at that offset.
fn loop_head(b: &mut FunctionBuilder<'_>, rows: Rows) -> (Block, Value, Value) {
    let zero = b.ins().iconst(I64, 0);
    b.def_var(rows.off, zero);
    let body = b.create_block();
    b.ins().jump(body, &[]);
    b.switch_to_block(body);
    let o = b.use_var(rows.off);
    let at = b.ins().iadd(rows.regs, o);
    (body, o, at)
}

/// The lane masks of a partial warp (`lane_masks`) at byte `at` of the row at offset `o`: one
/// lane's (`I64`) or a pair's (`I64X2`).
fn lane_mask(b: &mut FunctionBuilder<'_>, slot: StackSlot, o: Value, at: i64, ty: Type) -> Value {
    let a = b.ins().stack_addr(I64, slot, 0);
    let a = b.ins().iadd(a, o);
    b.ins().load(ty, MemFlagsData::trusted(), a, at as i32)
}

/// Ends a loop over a row whose iteration covered `step` bytes from `o`: back to `body` while
/// the row has more, else on to a new block, where the builder is left.
fn loop_back(b: &mut FunctionBuilder<'_>, off: Variable, o: Value, step: i64, body: Block) {
    let o2 = b.ins().iadd_imm_s(o, step);
    b.def_var(off, o2);
    let more = b.ins().icmp_imm_u(
        cranelift_codegen::ir::condcodes::IntCC::UnsignedLessThan,
        o2,
        i64::from(lower::ROW),
    );
    let next = b.create_block();
    b.ins().brif(more, body, &[], next, &[]);
    b.switch_to_block(next);
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
