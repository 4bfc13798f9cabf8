//! The machine: CTAs, warps, lane groups and call frames, the per-CTA scheduling loop, and the
//! dispatch of one instruction to its family's handler. See `mod.rs` for the model.

use super::layout::Layout;
use super::{Fault, FaultKind, Grid, Options, Scheduler, Stats};
use crate::ir::{FuncId, Function, Instr, Module, Op, OpRange, Operand, Type};
use crate::mem::Global;

/// Warps' worth of lanes.
pub const WARP: usize = 32;
/// Named barriers per CTA (`bar.sync 0..15`).
pub const BARRIERS: usize = 16;
/// Local memory (stack) a thread may use, bytes.
pub const MAX_LOCAL_BYTES: u64 = 512 * 1024;
/// Calls deeper than this are a fault (runaway recursion).
pub const MAX_CALL_DEPTH: usize = 1024;

pub(crate) type Res<T> = Result<T, Box<Fault>>;

pub(crate) struct Machine<'m> {
    pub m: &'m Module,
    pub entry: FuncId,
    pub grid: Grid,
    pub layout: Layout,
    pub global: Global,
    pub kparams: Vec<u8>,
    pub sched: Scheduler,
    pub max_steps: u64,
    pub instruction_cycles: u64,
    pub stdout: String,
    pub stats: Stats,
    /// Bump pointer of device `malloc`.
    pub heap_next: u64,
    pub layout_error: Option<String>,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Wait {
    Ready,
    /// Waiting at `bar.sync`/`bar.red` on this barrier.
    Bar(u8),
    /// Parked at a warp-synchronous operation until its member lanes arrive.
    WarpSync,
}

#[derive(Debug, Clone)]
pub(crate) struct RetRec {
    pub frame: u32,
    pub pc: u32,
    /// The caller's return-value operands `(retval0, ...)`.
    pub rets: Option<OpRange>,
}

#[derive(Debug, Clone)]
pub(crate) struct Group {
    pub mask: u32,
    pub pc: u32,
    pub frame: u32,
    pub stack: Vec<RetRec>,
    pub wait: Wait,
    /// The warp's step count when this group last ran (for fairness between groups).
    pub last: u64,
}

#[derive(Debug, Clone)]
pub(crate) struct Frame {
    pub func: FuncId,
    /// `regs[r * 32 + lane]`: one u64 per lane per register.
    pub regs: Vec<u64>,
    /// Parameter frame, `params[lane * size ..]`.
    pub params: Vec<u8>,
    pub param_size: usize,
    pub local_base: u64,
    pub local_size: u64,
    /// Carry flag of `add.cc`/`addc`, one bit per lane.
    pub carry: u32,
    pub live: bool,
}

#[derive(Debug, Clone)]
pub(crate) struct Warp {
    pub index: u32,
    pub exited: u32,
    pub groups: Vec<Group>,
    pub frames: Vec<Frame>,
    pub local: Vec<Vec<u8>>,
    pub local_top: u64,
    pub clock: u64,
    /// Instructions this warp has executed.
    pub steps: u64,
}

#[derive(Debug, Clone, Copy, Default)]
pub(crate) struct Barrier {
    pub arrived: u32,
    /// Thread count this phase waits for; 0 = every thread of the CTA.
    pub expected: u32,
    pub popc: u32,
    pub all: bool,
    pub any: bool,
}

pub(crate) struct Cta {
    pub id: [u32; 3],
    pub shared: Vec<u8>,
    pub warps: Vec<Warp>,
    pub bars: [Barrier; BARRIERS],
    pub nthreads: u32,
    pub exited: u32,
}

impl<'m> Machine<'m> {
    pub fn new(
        m: &'m Module,
        entry: FuncId,
        grid: &Grid,
        mut global: Global,
        kparams: Vec<u8>,
        opts: &Options,
    ) -> Self {
        let (layout, layout_error) = match Layout::new(m, &mut global) {
            Ok(l) => (l, None),
            Err(e) => (
                Layout {
                    var_addr: vec![0; m.vars.len()],
                    static_shared: 0,
                    dynamic_offset: 0,
                    local_size: vec![0; m.functions.len()],
                    param_size: vec![0; m.functions.len()],
                    param_off: vec![Vec::new(); m.functions.len()],
                    ret_off: vec![Vec::new(); m.functions.len()],
                },
                Some(e),
            ),
        };
        Machine {
            m,
            entry,
            grid: grid.clone(),
            layout,
            global,
            kparams,
            sched: Scheduler::new(opts.seed),
            max_steps: opts.max_steps,
            instruction_cycles: opts.instruction_cycles.max(1),
            stdout: String::new(),
            stats: Stats::default(),
            heap_next: 0,
            layout_error,
        }
    }

    pub fn finish(self) -> (Global, String, Stats) {
        (self.global, self.stdout, self.stats)
    }

    pub(crate) fn new_frame_for(&self, warp: &mut Warp, func: FuncId) -> Res<u32> {
        let f = &self.m.functions[func.0 as usize];
        let local_size = self.layout.local_size[func.0 as usize];
        let param_size = self.layout.param_size[func.0 as usize] as usize;
        let base = warp.local_top.next_multiple_of(16);
        if base + local_size > MAX_LOCAL_BYTES {
            return Err(fault(
                FaultKind::Memory,
                format!(
                    "local memory of a thread exceeds {MAX_LOCAL_BYTES} bytes (deep recursion?)"
                ),
            ));
        }
        warp.local_top = base + local_size;
        for l in &mut warp.local {
            if (l.len() as u64) < warp.local_top {
                l.resize(warp.local_top as usize, 0);
            }
        }
        let frame = Frame {
            func,
            regs: vec![0; f.regs.len() * WARP],
            params: vec![0; param_size * WARP],
            param_size,
            local_base: base,
            local_size,
            carry: 0,
            live: true,
        };
        match warp.frames.iter().position(|fr| !fr.live) {
            Some(i) => {
                warp.frames[i] = frame;
                Ok(i as u32)
            }
            None => {
                warp.frames.push(frame);
                Ok(warp.frames.len() as u32 - 1)
            }
        }
    }

    pub fn run_cta(&mut self, id: [u32; 3]) -> Res<()> {
        if let Some(e) = &self.layout_error {
            return Err(fault(FaultKind::Memory, e.clone()));
        }
        let [bx, by, bz] = self.grid.block;
        let nthreads = bx * by * bz;
        let shared_bytes = self.layout.dynamic_offset.max(self.layout.static_shared)
            + u64::from(self.grid.dynamic_shared_bytes);
        if shared_bytes > super::layout::MAX_SHARED_BYTES {
            return Err(fault(FaultKind::Memory, format!("the launch needs {shared_bytes} bytes of shared memory; an sm_90 CTA has at most {}", super::layout::MAX_SHARED_BYTES)));
        }
        let mut cta = Cta {
            id,
            shared: vec![0; shared_bytes as usize],
            warps: Vec::new(),
            bars: [Barrier::default(); BARRIERS],
            nthreads,
            exited: 0,
        };
        let nwarps = nthreads.div_ceil(WARP as u32);
        for w in 0..nwarps {
            let lanes = (nthreads - w * WARP as u32).min(WARP as u32);
            let valid = if lanes == 32 {
                u32::MAX
            } else {
                (1u32 << lanes) - 1
            };
            let mut warp = Warp {
                index: w,
                exited: 0,
                groups: Vec::new(),
                frames: Vec::new(),
                local: vec![Vec::new(); WARP],
                local_top: 0,
                clock: 0,
                steps: 0,
            };
            let frame = self
                .new_frame_for(&mut warp, self.entry)
                .map_err(|f| with_cta(f, id))?;
            warp.groups.push(Group {
                mask: valid,
                pc: 0,
                frame,
                stack: Vec::new(),
                wait: Wait::Ready,
                last: 0,
            });
            cta.warps.push(warp);
        }
        loop {
            let runnable: Vec<usize> = (0..cta.warps.len())
                .filter(|&w| cta.warps[w].groups.iter().any(|g| g.wait == Wait::Ready))
                .collect();
            if runnable.is_empty() {
                if cta.warps.iter().all(|w| w.groups.is_empty()) {
                    return Ok(());
                }
                return Err(with_cta(self.deadlock(&cta), id));
            }
            let w = runnable[self.sched.pick(runnable.len())];
            let quantum = self.sched.quantum();
            for _ in 0..quantum {
                let Some(g) = pick_group(&cta.warps[w]) else {
                    break;
                };
                let warp = &mut cta.warps[w];
                warp.steps += 1;
                warp.groups[g].last = warp.steps;
                self.step(&mut cta, w, g).map_err(|f| with_cta(f, id))?;
                merge_groups(&mut cta.warps[w]);
            }
        }
    }

    fn deadlock(&self, cta: &Cta) -> Box<Fault> {
        let mut waits = Vec::new();
        for w in &cta.warps {
            for g in &w.groups {
                let f = &self.m.functions[w.frames[g.frame as usize].func.0 as usize];
                let line = f.srcs.get(g.pc as usize).map_or(0, |s| s.line);
                match g.wait {
                    Wait::Bar(b) => waits.push(format!(
                        "warp {} lanes {:#010x} wait at barrier {b} (line {line}): {} of {} threads arrived",
                        w.index,
                        g.mask,
                        cta.bars[b as usize].arrived,
                        expected(cta, b)
                    )),
                    Wait::WarpSync => waits.push(format!(
                        "warp {} lanes {:#010x} wait at a warp-synchronous instruction (line {line}) for lanes of its member mask that never arrive",
                        w.index, g.mask
                    )),
                    Wait::Ready => {}
                }
            }
        }
        fault(
            FaultKind::Deadlock,
            format!(
                "deadlock: no thread can make progress; {}",
                waits.join("; ")
            ),
        )
    }

    /// Executes one instruction of group `gi` of warp `wi`.
    fn step(&mut self, cta: &mut Cta, wi: usize, gi: usize) -> Res<()> {
        self.stats.warp_instructions += 1;
        let warp = &mut cta.warps[wi];
        let warp_index = warp.index;
        let g = warp.groups[gi].clone();
        let fid = warp.frames[g.frame as usize].func;
        let func = &self.m.functions[fid.0 as usize];
        let first = warp.index * WARP as u32 + g.mask.trailing_zeros();
        if self.stats.warp_instructions > self.max_steps {
            let f = fault(
                FaultKind::StepLimit,
                format!(
                    "the step limit ({} warp instructions) was reached here",
                    self.max_steps
                ),
            );
            return Err(at(f, fid, g.pc, first));
        }
        let Some(ins) = func.code.get(g.pc as usize).copied() else {
            // Falling off the end of a function is `ret`.
            return self
                .do_ret(cta, wi, gi, g.mask)
                .map_err(|f| at(f, fid, g.pc, first));
        };
        warp.clock += self.instruction_cycles;
        self.stats.cycles = self.stats.cycles.max(warp.clock);
        let frame = &warp.frames[g.frame as usize];
        let active = match ins.guard {
            None => g.mask,
            Some(gd) => {
                let mut m = 0u32;
                for lane in lanes(g.mask) {
                    if (frame.regs[gd.reg.0 as usize * WARP + lane] != 0) != gd.negated {
                        m |= 1 << lane;
                    }
                }
                m
            }
        };
        self.stats.thread_instructions += u64::from(active.count_ones());
        let first = if active != 0 {
            warp_index * WARP as u32 + active.trailing_zeros()
        } else {
            first
        };
        self.dispatch(cta, wi, gi, &ins, func, active)
            .map_err(|f| at(f, fid, g.pc, first))
    }

    fn dispatch(
        &mut self,
        cta: &mut Cta,
        wi: usize,
        gi: usize,
        ins: &Instr,
        func: &'m Function,
        active: u32,
    ) -> Res<()> {
        use Op::*;
        if super::warpops::is_collective(ins.op, ins.mods.flags) {
            return self.collective(cta, wi, gi, ins, func, active);
        }
        match ins.op {
            Bra | BrxIdx | Call | Ret | Exit | Trap | Brkpt | Bar | Barrier | BarWarpSync => {
                return self.control(cta, wi, gi, ins, func, active);
            }
            _ => {}
        }
        if active != 0 {
            let mut cx = self.ctx(cta, wi, gi, ins, func, active);
            match ins.op {
                Ld | Ldu | St | Atom | Red | Cvta | Isspacep | Prefetch | Prefetchu | Mapa
                | Getctarank => super::memops::exec(&mut cx)?,
                Shfl | Vote | Match | Redux | Activemask | Elect => super::warpops::exec(&mut cx)?,
                Cvt | CvtPack => super::cvt::exec(&mut cx)?,
                Membar
                | Fence
                | FenceProxyAlias
                | FenceProxyAsync
                | FenceProxyAsyncGeneric
                | Nanosleep
                | Pmevent
                | Griddepcontrol
                | Discard
                | Applypriority => {}
                op if super::fp::handles(op, &ins.mods) => super::fp::exec(&mut cx)?,
                op if super::alu::handles(op) => super::alu::exec(&mut cx)?,
                op => {
                    let what = func
                        .srcs
                        .get(cx.pc as usize)
                        .and_then(|s| s.raw.clone())
                        .unwrap_or_else(|| op.name().to_string());
                    return Err(fault(
                        FaultKind::Unsupported,
                        format!("`{what}` is not supported by ptxrun yet"),
                    ));
                }
            }
        }
        cta.warps[wi].groups[gi].pc += 1;
        Ok(())
    }

    /// A warp-synchronous operation: run now if every member lane is here, else park and try
    /// the rendezvous.
    fn collective(
        &mut self,
        cta: &mut Cta,
        wi: usize,
        gi: usize,
        ins: &Instr,
        func: &'m Function,
        active: u32,
    ) -> Res<()> {
        let live = live_lanes(cta, wi);
        let member = {
            let cx = self.ctx(cta, wi, gi, ins, func, active);
            super::warpops::member_mask(&cx)
        };
        if member & live & !active == 0 {
            if active != 0 {
                let mut cx = self.ctx(cta, wi, gi, ins, func, active);
                super::warpops::exec(&mut cx)?;
            }
            cta.warps[wi].groups[gi].pc += 1;
            return Ok(());
        }
        cta.warps[wi].groups[gi].wait = Wait::WarpSync;
        self.rendezvous(cta, wi)
    }

    /// Completes a warp-synchronous rendezvous if the parked groups cover every member mask.
    pub(crate) fn rendezvous(&mut self, cta: &mut Cta, wi: usize) -> Res<()> {
        use super::warpops::{compute, gather, member_mask, scatter, In};
        let parked: Vec<usize> = (0..cta.warps[wi].groups.len())
            .filter(|&g| cta.warps[wi].groups[g].wait == Wait::WarpSync)
            .collect();
        if parked.is_empty() {
            return Ok(());
        }
        let live = live_lanes(cta, wi);
        let union = parked
            .iter()
            .fold(0u32, |m, &g| m | cta.warps[wi].groups[g].mask);
        let mut members = Vec::new();
        for &g in &parked {
            let (ins, func, mask) = self.group_instr(cta, wi, g);
            let cx = self.ctx(cta, wi, g, &ins, func, mask);
            let member = member_mask(&cx);
            if member & live & !union != 0 {
                return Ok(());
            }
            members.push((ins, func, mask, member));
        }
        // Everyone is here: gather every group's inputs, compute once, write back.
        let mut inputs = [In::default(); WARP];
        for (k, &g) in parked.iter().enumerate() {
            let (ins, func, mask, _) = &members[k];
            let cx = self.ctx(cta, wi, g, ins, func, *mask);
            gather(&cx, &mut inputs);
        }
        let (ins0, _, _, member0) = &members[0];
        let out = compute(
            ins0.op,
            ins0.mods.sub,
            ins0.mods.ty().unwrap_or(Type::B32),
            &inputs,
            union,
            *member0,
        );
        for (k, &g) in parked.iter().enumerate() {
            let (ins, func, mask, _) = &members[k];
            // Groups at a different kind of operation (undefined behaviour) get their own result.
            let own = if ins.op == ins0.op {
                out
            } else {
                compute(
                    ins.op,
                    ins.mods.sub,
                    ins.mods.ty().unwrap_or(Type::B32),
                    &inputs,
                    *mask,
                    members[k].3,
                )
            };
            let mut cx = self.ctx(cta, wi, g, ins, func, *mask);
            scatter(&mut cx, &own);
            let grp = &mut cta.warps[wi].groups[g];
            grp.wait = Wait::Ready;
            grp.pc += 1;
        }
        Ok(())
    }

    fn group_instr(&self, cta: &Cta, wi: usize, g: usize) -> (Instr, &'m Function, u32) {
        let w = &cta.warps[wi];
        let grp = &w.groups[g];
        let func = &self.m.functions[w.frames[grp.frame as usize].func.0 as usize];
        let ins = func.code[grp.pc as usize];
        (ins, func, grp.mask)
    }

    pub(crate) fn ctx<'a>(
        &'a mut self,
        cta: &'a mut Cta,
        wi: usize,
        gi: usize,
        ins: &Instr,
        func: &'m Function,
        active: u32,
    ) -> Ctx<'a, 'm> {
        let warp = &mut cta.warps[wi];
        let g = &warp.groups[gi];
        let pc = g.pc;
        let fidx = g.frame as usize;
        Ctx {
            m: self.m,
            layout: &self.layout,
            func,
            ins: *ins,
            ops: func.ops(ins),
            pc,
            active,
            global: &mut self.global,
            kparams: &self.kparams,
            shared: &mut cta.shared,
            local: &mut warp.local,
            frame: &mut warp.frames[fidx],
            cta: cta.id,
            warp_index: warp.index,
            clock: warp.clock,
            grid: &self.grid,
            is_kernel: func.is_entry,
        }
    }
}

/// Everything one instruction's handler may touch.
pub(crate) struct Ctx<'a, 'm> {
    pub m: &'m Module,
    pub layout: &'a Layout,
    pub func: &'m Function,
    pub ins: Instr,
    pub ops: &'m [Operand],
    pub pc: u32,
    pub active: u32,
    pub global: &'a mut Global,
    pub kparams: &'a [u8],
    pub shared: &'a mut Vec<u8>,
    pub local: &'a mut Vec<Vec<u8>>,
    pub frame: &'a mut Frame,
    pub cta: [u32; 3],
    pub warp_index: u32,
    pub clock: u64,
    pub grid: &'a Grid,
    pub is_kernel: bool,
}

impl Ctx<'_, '_> {
    /// The instruction's first type (`add.s32` -> s32).
    pub fn ty(&self) -> Type {
        self.ins.mods.ty().unwrap_or(Type::B32)
    }

    pub fn reg(&self, r: crate::ir::RegId, lane: usize) -> u64 {
        self.frame.regs[r.0 as usize * WARP + lane]
    }

    /// Writes a register, keeping only the bits its declared type holds.
    pub fn set_reg(&mut self, r: crate::ir::RegId, lane: usize, v: u64) {
        let info = self.func.regs[r.0 as usize];
        let v = match info.ty {
            Type::Pred => u64::from(v & 1 != 0),
            t if info.vec == 1 && t.size() < 8 => v & mask(t.size() * 8),
            _ => v,
        };
        self.frame.regs[r.0 as usize * WARP + lane] = v;
    }

    /// Operand `k` as raw bits for lane `lane`, converting literals to the instruction type `ty`.
    pub fn src(&self, k: usize, lane: usize, ty: Type) -> u64 {
        match self.ops.get(k) {
            Some(o) => self.value(o, lane, ty),
            None => 0,
        }
    }

    pub fn value(&self, o: &Operand, lane: usize, ty: Type) -> u64 {
        match *o {
            Operand::Reg(r) => self.reg(r, lane),
            Operand::NegReg(r) => self.reg(r, lane).wrapping_neg(),
            Operand::NotPred(r) => u64::from(self.reg(r, lane) == 0),
            Operand::Imm(v) => match ty {
                Type::F32 => u64::from((v as f32).to_bits()),
                Type::F64 => (v as f64).to_bits(),
                _ => v as u64,
            },
            Operand::F32(b) => match ty {
                Type::F64 => f64::from(f32::from_bits(b)).to_bits(),
                Type::F16 => u64::from(half::f16::from_f32(f32::from_bits(b)).to_bits()),
                Type::Bf16 => u64::from(half::bf16::from_f32(f32::from_bits(b)).to_bits()),
                _ => u64::from(b),
            },
            Operand::F64(b) => match ty {
                Type::F32 => u64::from((f64::from_bits(b) as f32).to_bits()),
                Type::F16 => u64::from(half::f16::from_f64(f64::from_bits(b)).to_bits()),
                Type::Bf16 => u64::from(half::bf16::from_f64(f64::from_bits(b)).to_bits()),
                Type::F64 => b,
                _ => f64::from_bits(b) as i64 as u64,
            },
            Operand::Special(s) => self.special(s, lane),
            Operand::Sym(s, off) => self.sym_addr(s, lane).wrapping_add(off as u64),
            _ => 0,
        }
    }

    /// Writes operand `k` (a register, or `_`) for `lane`.
    pub fn dst(&mut self, k: usize, lane: usize, v: u64) {
        if let Some(&Operand::Reg(r)) = self.ops.get(k) {
            self.set_reg(r, lane, v);
        }
    }

    /// The address a symbol stands for, in its own state space.
    pub fn sym_addr(&self, s: crate::ir::Symbol, lane: usize) -> u64 {
        use crate::ir::{Space, Symbol};
        let fi = self.frame.func.0 as usize;
        match s {
            Symbol::Var(v) => {
                let var = &self.m.vars[v.0 as usize];
                let a = self.layout.var_addr[v.0 as usize];
                match var.space {
                    Space::Local => self.frame.local_base + a,
                    _ => a,
                }
            }
            Symbol::Param(i) if self.is_kernel => {
                crate::mem::PARAM_WINDOW
                    + self
                        .func
                        .params
                        .get(i as usize)
                        .map_or(0, |p| u64::from(p.offset))
            }
            Symbol::Param(i) => self.layout.param_off[fi]
                .get(i as usize)
                .copied()
                .unwrap_or(0),
            Symbol::Ret(i) => self.layout.ret_off[fi]
                .get(i as usize)
                .copied()
                .unwrap_or(0),
            Symbol::Func(f) => {
                let _ = lane;
                super::layout::func_addr(f)
            }
        }
    }

    fn special(&self, s: crate::ir::SpecialReg, lane: usize) -> u64 {
        use crate::ir::types::Sreg;
        let [bx, by, _] = self.grid.block;
        let t = self.warp_index * WARP as u32 + lane as u32;
        let tid = [t % bx, (t / bx) % by, t / (bx * by)];
        let pick = |v: [u32; 3]| u64::from(v.get(usize::from(s.comp)).copied().unwrap_or(0));
        let lane_bit = 1u64 << lane;
        match s.reg {
            Sreg::Tid => pick(tid),
            Sreg::Ntid => pick(self.grid.block),
            Sreg::Ctaid => pick(self.cta),
            Sreg::Nctaid => pick(self.grid.grid),
            Sreg::Laneid => lane as u64,
            Sreg::Warpid => u64::from(self.warp_index),
            Sreg::Nwarpid => 64,
            Sreg::Smid => u64::from(self.cta[0] + self.cta[1] * self.grid.grid[0]) % 132,
            Sreg::Nsmid => 132,
            Sreg::Gridid => 1,
            Sreg::IsExplicitCluster => 0,
            Sreg::Clusterid => pick(self.cta),
            Sreg::Nclusterid => pick(self.grid.grid),
            Sreg::ClusterCtaid => 0,
            Sreg::ClusterNctaid => 1,
            Sreg::ClusterCtarank => 0,
            Sreg::ClusterNctarank => 1,
            Sreg::LanemaskEq => lane_bit,
            Sreg::LanemaskLe => (lane_bit << 1).wrapping_sub(1) & 0xffff_ffff,
            Sreg::LanemaskLt => lane_bit - 1,
            Sreg::LanemaskGe => !(lane_bit - 1) & 0xffff_ffff,
            Sreg::LanemaskGt => !((lane_bit << 1).wrapping_sub(1)) & 0xffff_ffff,
            Sreg::Clock => self.clock & 0xffff_ffff,
            Sreg::ClockHi => self.clock >> 32,
            Sreg::Clock64 => self.clock,
            // A 1.755 GHz clock, in nanoseconds.
            Sreg::Globaltimer => self.clock * 1000 / 1755,
            Sreg::GlobaltimerLo => (self.clock * 1000 / 1755) & 0xffff_ffff,
            Sreg::GlobaltimerHi => (self.clock * 1000 / 1755) >> 32,
            Sreg::DynamicSmemSize => u64::from(self.grid.dynamic_shared_bytes),
            Sreg::TotalSmemSize | Sreg::AggrSmemSize => self.shared.len() as u64,
            Sreg::ReservedSmemOffsetBegin
            | Sreg::ReservedSmemOffsetEnd
            | Sreg::ReservedSmemOffsetCap
            | Sreg::ReservedSmemOffset(_) => 0,
            Sreg::CurrentGraphExec | Sreg::Envreg(_) | Sreg::Pm(_) => 0,
        }
    }
}

pub fn mask(bits: u32) -> u64 {
    if bits >= 64 {
        u64::MAX
    } else {
        (1u64 << bits) - 1
    }
}

/// The lanes of a mask, lowest first.
pub fn lanes(mut m: u32) -> impl Iterator<Item = usize> {
    std::iter::from_fn(move || {
        if m == 0 {
            None
        } else {
            let l = m.trailing_zeros() as usize;
            m &= m - 1;
            Some(l)
        }
    })
}

pub fn fault(kind: FaultKind, message: impl Into<String>) -> Box<Fault> {
    Box::new(Fault {
        kind,
        message: message.into(),
        at: None,
        cta: [0; 3],
        thread: [0; 3],
        linear_thread: None,
    })
}

fn at(mut f: Box<Fault>, func: FuncId, pc: u32, thread: u32) -> Box<Fault> {
    if f.at.is_none() {
        f.at = Some((func, pc));
    }
    f.linear_thread.get_or_insert(thread);
    f
}

fn with_cta(mut f: Box<Fault>, id: [u32; 3]) -> Box<Fault> {
    f.cta = id;
    f
}

/// A ready group that has not run for this many of its warp's steps runs next.
const STARVATION_STEPS: u64 = 256;

/// The group to run next: the one furthest behind (lowest PC), so that divergent paths of
/// structured code meet again at their join point; but a group left waiting too long runs
/// first, so that one group spinning on a value another group of its warp will write (a lock,
/// a flag) cannot starve it: Volta's independent thread scheduling guarantees that progress.
fn pick_group(w: &Warp) -> Option<usize> {
    let ready = || {
        w.groups
            .iter()
            .enumerate()
            .filter(|(_, g)| g.wait == Wait::Ready)
    };
    if let Some((i, _)) = ready()
        .filter(|(_, g)| w.steps - g.last > STARVATION_STEPS)
        .min_by_key(|(_, g)| g.last)
    {
        return Some(i);
    }
    ready()
        .min_by_key(|(_, g)| (g.stack.is_empty(), g.pc))
        .map(|(i, _)| i)
}

/// Merges groups that stand at the same place of the same call.
fn merge_groups(w: &mut Warp) {
    let mut i = 0;
    while i < w.groups.len() {
        let mut j = i + 1;
        while j < w.groups.len() {
            let (a, b) = (&w.groups[i], &w.groups[j]);
            if a.pc == b.pc
                && a.frame == b.frame
                && a.wait == b.wait
                && a.wait == Wait::Ready
                && a.stack.len() == b.stack.len()
            {
                let m = b.mask;
                w.groups[i].mask |= m;
                w.groups.swap_remove(j);
            } else {
                j += 1;
            }
        }
        i += 1;
    }
}

/// Lanes of warp `wi` that exist and have not exited.
fn live_lanes(cta: &Cta, wi: usize) -> u32 {
    let w = &cta.warps[wi];
    let n = cta
        .nthreads
        .saturating_sub(w.index * WARP as u32)
        .min(WARP as u32);
    let exist = if n >= 32 { u32::MAX } else { (1u32 << n) - 1 };
    exist & !w.exited
}

/// Threads barrier `b` waits for in its current phase.
pub(crate) fn expected(cta: &Cta, b: u8) -> u32 {
    match cta.bars[b as usize].expected {
        0 => cta.nthreads - cta.exited,
        n => n,
    }
}
