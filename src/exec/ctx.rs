//! The context of one instruction: the registers of the executing lane group, the memory it
//! may touch (global, the cluster's shared memories, its thread's local memory, parameters),
//! the async engine, and the special registers (PTX ISA 9.0 chapter 10 "Special Registers").

use super::config::Grid;
use super::lanes::{mask, WARP};
use super::layout::Layout;
use super::machine::{Machine, WarpRef};
use super::warp::Cluster;
use super::warp::{Frame, WarpAsync};
use crate::ir::{Function, Instr, Module, Operand, Type};
use crate::mem::copy::Engine;
use crate::mem::{Global, Smem};
use crate::trace::Trace;

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
    /// Shared memory of every CTA of the cluster, by rank; `rank` is the executing CTA's.
    pub smem: &'a mut [Smem],
    pub rank: u32,
    pub local: &'a mut Vec<crate::mem::local::Local>,
    /// The run's memory budget: local pages are charged as they are made.
    pub meter: &'a crate::mem::budget::Meter,
    pub frame: &'a mut Frame,
    /// The frame's index in its warp's call stack (0: the kernel).
    pub depth: u32,
    pub cta: [u32; 3],
    pub warp_index: u32,
    pub clock: u64,
    pub grid: &'a Grid,
    pub is_kernel: bool,
    /// Cluster dimensions, and whether the launch asked for clusters.
    pub cluster: [u32; 3],
    pub explicit_cluster: bool,
    pub engine: &'a mut Engine,
    pub trace: &'a mut Trace,
    /// The warp's per-lane async-group state (made on first use).
    pub asy: &'a mut Option<Box<WarpAsync>>,
    /// The group was woken because its wait timed out (`try_wait` returns false).
    /// The group's last execution of this mbarrier wait returned false (it polls in a loop).
    pub spinning: bool,
    pub timed_out: bool,
    /// The happens-before checker, unless checking is off.
    pub hb: Option<&'a mut super::hazard::Checker>,
}

impl Ctx<'_, '_> {
    /// The executing CTA's shared memory.
    pub fn shared(&self) -> &[u8] {
        &self.smem[self.rank as usize].bytes
    }

    /// The executing CTA's rank in its cluster. `rank` is its index in the scheduling unit:
    /// the same, except in a cooperative launch, whose unit is the grid of one-CTA clusters.
    pub fn cluster_rank(&self) -> u32 {
        self.to_real(self.rank)
    }

    /// The unit index of the CTA of cluster rank `real` (out of range if the cluster has no
    /// such CTA, for the caller's bounds check to report).
    pub fn to_unit(&self, real: u32) -> u32 {
        match (self.grid.cooperative, real) {
            (None, _) => real,
            (Some(_), 0) => self.rank,
            (Some(_), _) => u32::MAX,
        }
    }

    /// The cluster rank of the CTA at unit index `unit`.
    pub fn to_real(&self, unit: u32) -> u32 {
        if self.grid.cooperative.is_some() {
            0
        } else {
            unit
        }
    }

    /// CTAs in the executing CTA's cluster.
    pub fn cluster_ctas(&self) -> u32 {
        self.grid.cluster_ctas()
    }

    /// A `shared::cluster` offset as (unit index, offset in that CTA's shared memory).
    pub fn cluster_target(&self, addr: u64) -> (u32, u64) {
        let (r, o) = crate::mem::cluster_addr(addr, self.cluster_rank());
        (self.to_unit(r), o)
    }

    /// Lanes that are the executing CTA's threads `[x, y, z]`.
    pub fn thread_of(&self, lane: usize) -> u32 {
        self.warp_index * WARP as u32 + lane as u32
    }

    /// Where lane `lane` executes the current instruction, for the checker.
    pub fn site(&self, lane: usize) -> super::hazard::Site {
        super::hazard::Site {
            func: self.frame.func.0,
            pc: self.pc,
            rank: self.rank,
            cta: self.cta,
            warp: self.warp_index,
            lane: lane as u32,
        }
    }

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
            // Video operands: the whole register; `exec::video` applies the selector.
            Operand::VReg(r, _) => self.reg(r, lane),
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
        use crate::mem::FRAME_PARAM_BASE;
        let fi = self.frame.func.0 as usize;
        match s {
            Symbol::Var(v) => {
                let var = &self.m.vars[v.0 as usize];
                let a = self.layout.var_addr[v.0 as usize];
                match var.space {
                    Space::Local => self.frame.local_base + a,
                    sp => crate::mem::var_space_base(sp) + a,
                }
            }
            // A kernel parameter's `.param` address is its offset (as on the GPU); `cvta.param`
            // makes it generic.
            Symbol::Param(i) if self.is_kernel => self
                .func
                .params
                .get(i as usize)
                .map_or(0, |p| u64::from(p.offset)),
            // A function's parameters and return values live in its frame's `.param` space.
            Symbol::Param(i) | Symbol::Ret(i) => {
                let offsets = match s {
                    Symbol::Param(_) => &self.layout.param_off[fi],
                    _ => &self.layout.ret_off[fi],
                };
                FRAME_PARAM_BASE + offsets.get(i as usize).copied().unwrap_or(0)
            }
            Symbol::Func(f) => {
                let _ = lane;
                super::layout::func_addr(f)
            }
        }
    }

    pub fn special(&self, s: crate::ir::SpecialReg, lane: usize) -> u64 {
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
            Sreg::IsExplicitCluster => u64::from(self.explicit_cluster),
            Sreg::Clusterid => pick(std::array::from_fn(|i| self.cta[i] / self.cluster[i])),
            Sreg::Nclusterid => pick(std::array::from_fn(|i| self.grid.grid[i] / self.cluster[i])),
            Sreg::ClusterCtaid => pick(std::array::from_fn(|i| self.cta[i] % self.cluster[i])),
            Sreg::ClusterNctaid => pick(self.cluster),
            Sreg::ClusterCtarank => u64::from(self.cluster_rank()),
            Sreg::ClusterNctarank => u64::from(self.cluster.iter().product::<u32>()),
            Sreg::LanemaskEq => lane_bit,
            Sreg::LanemaskLe => (lane_bit << 1).wrapping_sub(1) & 0xffff_ffff,
            Sreg::LanemaskLt => lane_bit - 1,
            Sreg::LanemaskGe => !(lane_bit - 1) & 0xffff_ffff,
            Sreg::LanemaskGt => !((lane_bit << 1).wrapping_sub(1)) & 0xffff_ffff,
            Sreg::Clock => self.clock & 0xffff_ffff,
            Sreg::ClockHi => self.clock >> 32,
            Sreg::Clock64 => self.clock,
            // A 1.755 GHz clock, in nanoseconds.
            Sreg::Globaltimer => nanoseconds(self.clock),
            Sreg::GlobaltimerLo => nanoseconds(self.clock) & 0xffff_ffff,
            Sreg::GlobaltimerHi => nanoseconds(self.clock) >> 32,
            Sreg::DynamicSmemSize => u64::from(self.grid.dynamic_shared_bytes),
            Sreg::TotalSmemSize | Sreg::AggrSmemSize => self.shared().len() as u64,
            Sreg::ReservedSmemOffsetBegin
            | Sreg::ReservedSmemOffsetEnd
            | Sreg::ReservedSmemOffsetCap
            | Sreg::ReservedSmemOffset(_) => 0,
            // The grid workspace of a cooperative launch, high word first, as CUDA's
            // cooperative groups read it (`this_grid().sync()` traps when it is null).
            Sreg::Envreg(1) => self.grid.cooperative.map_or(0, |a| a >> 32),
            Sreg::Envreg(2) => self.grid.cooperative.map_or(0, |a| a & 0xffff_ffff),
            Sreg::CurrentGraphExec | Sreg::Envreg(_) | Sreg::Pm(_) => 0,
        }
    }
}

/// A 1.755 GHz `clock` in nanoseconds (`%globaltimer`), computed wide so that no clock value
/// overflows.
fn nanoseconds(clock: u64) -> u64 {
    (u128::from(clock) * 1000 / 1755) as u64
}

impl<'a, 'm> Ctx<'a, 'm> {
    /// The context of the instruction the lane group `w` executes.
    pub fn new(mc: &'a mut Machine<'m>, cl: &'a mut Cluster, w: WarpRef<'m>) -> Ctx<'a, 'm> {
        let ((ci, wi, gi), ins, func, active) = (w.at(), w.ins, w.func, w.active);
        let cta = &mut cl.ctas[ci];
        let (id, rank) = (cta.id, cta.rank);
        let warp = &mut cta.warps[wi];
        let g = &warp.groups[gi];
        let (pc, timed_out, spinning) = (g.pc, g.timed_out, g.spin == Some(g.pc));
        let fidx = g.frame as usize;
        Ctx {
            m: mc.m,
            layout: &mc.layout,
            func,
            ins: *ins,
            ops: func.ops(ins),
            pc,
            active,
            global: &mut mc.global,
            kparams: &mc.kparams,
            smem: &mut cl.smem,
            rank,
            local: &mut warp.local,
            frame: &mut warp.frames[fidx],
            depth: fidx as u32,
            cta: id,
            warp_index: warp.index,
            clock: warp.clock,
            grid: &mc.grid,
            is_kernel: func.is_entry,
            cluster: mc.grid.cluster,
            explicit_cluster: mc.grid.explicit_cluster,
            engine: &mut mc.engine,
            trace: &mut mc.trace,
            asy: &mut warp.asy,
            timed_out,
            spinning,
            hb: mc.hb.as_mut(),
            meter: &mc.meter,
        }
    }
}
