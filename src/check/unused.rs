//! Racy reads whose value no thread uses. PTX does not require data-race freedom (PTX ISA 9.0
//! chapter 8; Lustig et al., ASPLOS 2019): a plain read that races with a write returns some
//! value, and nothing else is undefined. When that value reaches nothing the warp then does,
//! the race changes nothing the kernel computes. Triton makes such races on purpose: where a
//! block holds fewer elements than the CTA has threads, every warp loads the elements, and only
//! the warp that owns an element stores it (`@%p st`, `%p` false in the other warps), also
//! back to the address loaded (`x = tl.load(p); tl.store(p, f(x))`); a scalar is loaded by every
//! thread and stored by one. Those races are `data-race` with severity `warning`.
//!
//! Where the value can go is worked out once per function, over registers and without regard
//! to order ([`Flow`]): a register flows into the results of the arithmetic, conversion, move,
//! compare, select, shuffle and vote instructions that read it (or are guarded by it), and
//! into the loads it addresses; it *reaches* an ordinary load or store of global or shared
//! memory that it addresses or stores; any other use (a branch, a guard of a store, a call, an
//! atomic, a barrier, an asynchronous copy, local or parameter memory, a carry) *escapes*, and
//! the race stays an error. What the warp did is recorded as it runs ([`Spent`]): for each
//! warp of the running cluster, which loads and stores of global or shared memory any of its
//! lanes executed. A racy read is unused while its warp has executed none of the loads and
//! stores the value reaches: it is reported as a warning, and becomes an error the moment the
//! warp executes one of them (the report keeps the graver finding). Both are judged per warp,
//! not per lane, and per instruction, not per execution: a warp that ran a reached store in an
//! earlier loop iteration counts as using the value. So the rule errs only towards errors. A
//! read by a warp of a cluster that already finished (another cluster's write meets it) keeps
//! its error: its warp's record is gone.

use super::report::Msg;
use super::site::Site;
use crate::ir::{each_reg, Flags, Function, Module, Op, Operand, Space};

/// Where the values of each function's registers can go (see the module's doc).
#[derive(Default)]
pub(super) struct Flow {
    funcs: Vec<FuncFlow>,
}

#[derive(Default)]
struct FuncFlow {
    /// Per register: the registers its value flows into.
    into: Table,
    /// Per register: the loads and stores (instruction indices) its value reaches.
    reaches: Table,
    /// Per register: whether its value escapes.
    escapes: Vec<bool>,
    /// The loads whose value can be judged (instruction indices, in order), and by
    /// instruction index their destinations.
    loads: Vec<u32>,
    reads: Table,
}

/// Lists of `u32` per key, in two flat vectors (a module of many functions and registers keeps
/// one small table each, not a vector per register).
#[derive(Default)]
struct Table {
    /// Where key `k`'s list starts in `items` (and key `k + 1`'s, where it ends).
    start: Vec<u32>,
    items: Vec<u32>,
}

impl Table {
    /// The table of `keys` keys holding the pairs (key, item), which it sorts.
    fn of(keys: usize, pairs: &mut [(u32, u32)]) -> Table {
        pairs.sort_unstable();
        let mut start = Vec::with_capacity(keys + 1);
        let mut at = 0;
        for k in 0..=keys as u32 {
            while at < pairs.len() && pairs[at].0 < k {
                at += 1;
            }
            start.push(at as u32);
        }
        Table {
            start,
            items: pairs.iter().map(|p| p.1).collect(),
        }
    }

    fn get(&self, key: u32) -> &[u32] {
        let k = key as usize;
        match (self.start.get(k), self.start.get(k + 1)) {
            (Some(&a), Some(&b)) => &self.items[a as usize..b as usize],
            _ => &[],
        }
    }
}

/// Where a read's value can go.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(super) enum Reach {
    /// Somewhere a race can matter whatever the warp executes.
    Escapes,
    /// Only the loads and stores at these instruction indices of the read's function.
    Only(Vec<u32>),
}

impl Flow {
    pub(super) fn new(m: &Module) -> Flow {
        Flow {
            funcs: m.functions.iter().map(func_flow).collect(),
        }
    }

    /// Where the value the load at (`func`, `pc`) read can go.
    pub(super) fn reach(&self, func: u32, pc: u32) -> Reach {
        let Some(ff) = self.funcs.get(func as usize) else {
            return Reach::Escapes;
        };
        if ff.loads.binary_search(&pc).is_err() {
            return Reach::Escapes;
        }
        let mut seen = vec![false; ff.escapes.len()];
        let mut work: Vec<u32> = ff.reads.get(pc).to_vec();
        let mut reached = Vec::new();
        while let Some(r) = work.pop() {
            let Some(s) = seen.get_mut(r as usize) else {
                return Reach::Escapes;
            };
            if std::mem::replace(s, true) {
                continue;
            }
            if ff.escapes[r as usize] {
                return Reach::Escapes;
            }
            reached.extend(ff.reaches.get(r));
            work.extend(ff.into.get(r));
        }
        reached.sort_unstable();
        reached.dedup();
        Reach::Only(reached)
    }
}

/// How an instruction passes on the values of the registers it reads.
enum Pass {
    /// Into its results (operand 0) and nowhere else.
    Results,
    /// Into its results, but its last operand escapes.
    ResultsButLast,
    /// An ordinary load of global or shared memory: into its results, and its address reaches it.
    Load,
    /// An ordinary store of global or shared memory: every register it reads reaches it (its
    /// guard escapes: a store not made is an effect too).
    Store,
    /// Anywhere.
    Escapes,
}

fn pass(f: &Function, pc: usize) -> Pass {
    let ins = &f.code[pc];
    let memory = matches!(
        ins.mods.space,
        Some(Space::Global | Space::Shared | Space::SharedCluster)
    );
    match ins.op {
        // A carry is a register no operand names.
        _ if ins.mods.has(Flags::CC) => Pass::Escapes,
        Op::Add
        | Op::Sub
        | Op::Mul
        | Op::Mad
        | Op::Mul24
        | Op::Mad24
        | Op::Sad
        | Op::Div
        | Op::Rem
        | Op::Abs
        | Op::Neg
        | Op::Min
        | Op::Max
        | Op::Popc
        | Op::Clz
        | Op::Bfind
        | Op::Fns
        | Op::Brev
        | Op::Bfe
        | Op::Bfi
        | Op::Szext
        | Op::Bmsk
        | Op::Dp4a
        | Op::Dp2a
        | Op::Copysign
        | Op::Testp
        | Op::Fma
        | Op::Rcp
        | Op::Sqrt
        | Op::Rsqrt
        | Op::Sin
        | Op::Cos
        | Op::Lg2
        | Op::Ex2
        | Op::Tanh
        | Op::Set
        | Op::Setp
        | Op::Selp
        | Op::Slct
        | Op::And
        | Op::Or
        | Op::Xor
        | Op::Not
        | Op::Cnot
        | Op::Lop3
        | Op::Shf
        | Op::Shl
        | Op::Shr
        | Op::Mov
        | Op::Prmt
        | Op::Cvta
        | Op::Cvt
        | Op::CvtPack
        | Op::Isspacep
        | Op::Getctarank
        // Across the warp's lanes: the record is per warp, so this loses nothing.
        | Op::Mma => Pass::Results,
        // The last operand is a member mask (which lanes must meet: a wrong one hangs) or, of
        // `mapa`, a CTA rank (a wrong one faults).
        Op::Shfl | Op::Vote | Op::Match | Op::Redux | Op::Mapa => Pass::ResultsButLast,
        Op::Ld | Op::Ldu if memory && ins.mods.sem.is_none() => Pass::Load,
        Op::St if memory && ins.mods.sem.is_none() => Pass::Store,
        _ => Pass::Escapes,
    }
}

/// The registers operand `o` names.
fn regs(f: &Function, o: &Operand) -> Vec<u32> {
    let mut out = Vec::new();
    each_reg(f, o, &mut |r| out.push(r.0));
    out
}

fn func_flow(f: &Function) -> FuncFlow {
    let n = f.regs.len();
    let (mut into, mut reaches, mut reads) = (Vec::new(), Vec::new(), Vec::new());
    let mut loads = Vec::new();
    let mut escapes = vec![false; n];
    let ok = |r: &u32| (*r as usize) < n;
    for (pc, ins) in f.code.iter().enumerate() {
        let pc32 = pc as u32;
        let ops = f.ops(ins);
        let results = ops.first().map(|o| regs(f, o)).unwrap_or_default();
        let guard = ins.guard.map(|g| g.reg.0);
        if matches!(ins.op, Op::Ld | Op::Ldu | Op::Ldmatrix) {
            loads.push(pc32);
            reads.extend(results.iter().map(|&r| (pc32, r)));
        }
        let how = pass(f, pc);
        // A member mask or `mapa` rank (the last operand) escapes; the rest are sources.
        let last = match how {
            Pass::ResultsButLast => ops.len().saturating_sub(1).max(1),
            _ => ops.len(),
        };
        let sources: Vec<u32> = ops
            .get(1..last)
            .unwrap_or_default()
            .iter()
            .flat_map(|o| regs(f, o))
            .collect();
        let mut escape = |r: u32| {
            if ok(&r) {
                escapes[r as usize] = true;
            }
        };
        match how {
            Pass::ResultsButLast => ops
                .get(last..)
                .unwrap_or_default()
                .iter()
                .flat_map(|o| regs(f, o))
                .for_each(&mut escape),
            Pass::Store => guard.into_iter().for_each(&mut escape),
            Pass::Escapes => results
                .iter()
                .chain(&sources)
                .chain(&guard)
                .copied()
                .for_each(&mut escape),
            Pass::Results | Pass::Load => {}
        }
        match how {
            // A load's guard reaches it too: whether it runs can decide whether it faults.
            Pass::Results | Pass::ResultsButLast | Pass::Load => {
                for &s in sources.iter().chain(&guard).filter(|r| ok(r)) {
                    into.extend(results.iter().map(|&d| (s, d)));
                    if matches!(how, Pass::Load) {
                        reaches.push((s, pc32));
                    }
                }
            }
            Pass::Store => {
                let read = results.iter().chain(&sources).filter(|r| ok(r));
                reaches.extend(read.map(|&s| (s, pc32)));
            }
            Pass::Escapes => {}
        }
    }
    FuncFlow {
        into: Table::of(n, &mut into),
        reaches: Table::of(n, &mut reaches),
        escapes,
        loads,
        reads: Table::of(f.code.len(), &mut reads),
    }
}

/// What the warps of the running cluster executed, and the racy reads found unused so far.
#[derive(Default)]
pub(super) struct Spent {
    /// Per CTA rank, per warp, per function it ran loads or stores of: a bit per instruction
    /// index, set when any lane executed that load or store (grown as needed; a warp runs its
    /// kernel and the functions it calls, so this stays the size of the code it ran).
    ran: Vec<Vec<Ran>>,
    /// Reads reported as unused: their warp, the loads and stores their value reaches, and
    /// the finding to report as an error if the warp executes one of them.
    pending: Vec<Pending>,
}

/// What one warp executed: per function, a bit per instruction index.
type Ran = Vec<(u32, Vec<u64>)>;

/// A `data-race` reported as a warning because its read was unused, as it is to be reported
/// if the read's warp uses the value (`races.rs` makes it an error then).
pub(super) struct Upgrade {
    pub site: Site,
    pub message: Msg,
    pub help: String,
    pub address: String,
    pub related: Option<(u32, u32, String)>,
}

/// A read reported as unused: its warp, its function and the loads and stores of that function
/// its value reaches, and the finding that becomes an error if the warp executes one of them.
pub(super) struct Pending {
    pub rank: u32,
    pub warp: u32,
    pub func: u32,
    pub reach: Vec<u32>,
    pub upgrade: Upgrade,
}

impl Spent {
    /// A cluster starts with `warps[r]` warps in CTA rank `r`: nothing executed, nothing
    /// pending (the previous cluster's reads stay as they were reported).
    pub(super) fn start(&mut self, warps: &[usize]) {
        self.pending.clear();
        self.ran.clear();
        self.ran.extend(warps.iter().map(|&n| vec![Vec::new(); n]));
    }

    /// Warp `warp` of CTA rank `rank` executed the load or store at `pc` of function `func`;
    /// the findings this makes errors.
    #[inline]
    pub(super) fn ran(&mut self, rank: u32, warp: u32, func: u32, pc: u32) -> Option<Vec<Upgrade>> {
        if let Some(funcs) = self
            .ran
            .get_mut(rank as usize)
            .and_then(|w| w.get_mut(warp as usize))
        {
            let i = match funcs.iter().position(|f| f.0 == func) {
                Some(i) => i,
                None => {
                    funcs.push((func, Vec::new()));
                    funcs.len() - 1
                }
            };
            let bits = &mut funcs[i].1;
            let (word, bit) = ((pc / 64) as usize, 1 << (pc % 64));
            if bits.len() <= word {
                bits.resize(word + 1, 0);
            }
            // Only a first execution can settle anything: a read found racy after its warp ran
            // `pc` was judged used then, never held.
            let first = bits[word] & bit == 0;
            bits[word] |= bit;
            if !first {
                return None;
            }
        }
        if self.pending.is_empty() {
            return None;
        }
        self.settle(rank, warp, func, pc)
    }

    #[cold]
    fn settle(&mut self, rank: u32, warp: u32, func: u32, pc: u32) -> Option<Vec<Upgrade>> {
        let used =
            |p: &Pending| (p.rank, p.warp, p.func) == (rank, warp, func) && p.reach.contains(&pc);
        if !self.pending.iter().any(used) {
            return None;
        }
        let (now, still): (Vec<_>, Vec<_>) = std::mem::take(&mut self.pending)
            .into_iter()
            .partition(used);
        self.pending = still;
        Some(now.into_iter().map(|p| p.upgrade).collect())
    }

    /// Whether warp `warp` of CTA rank `rank` of the running cluster executed any of the
    /// instructions `reach` of function `func`; `None` when it is not a warp of the running
    /// cluster.
    pub(super) fn executed_any(
        &self,
        rank: u32,
        warp: u32,
        func: u32,
        reach: &[u32],
    ) -> Option<bool> {
        let funcs = self.ran.get(rank as usize)?.get(warp as usize)?;
        let Some((_, bits)) = funcs.iter().find(|f| f.0 == func) else {
            return Some(false);
        };
        Some(reach.iter().any(|&pc| {
            bits.get((pc / 64) as usize)
                .is_some_and(|w| w & (1 << (pc % 64)) != 0)
        }))
    }

    /// Every finding held: the run stopped (a fault, a hang), which a held read's value may
    /// have caused (an address, a member mask).
    pub(super) fn take_all(&mut self) -> Vec<Upgrade> {
        std::mem::take(&mut self.pending)
            .into_iter()
            .map(|p| p.upgrade)
            .collect()
    }

    /// Keeps a read reported as unused, to report as an error if its warp uses it; once per
    /// warp and finding (a loop that races each iteration holds it once).
    pub(super) fn hold(&mut self, p: Pending) {
        let key = |p: &Pending| {
            let related = p.upgrade.related.as_ref().map(|r| (r.0, r.1));
            (
                p.rank,
                p.warp,
                p.upgrade.site.func,
                p.upgrade.site.pc,
                related,
            )
        };
        if !self.pending.iter().any(|q| key(q) == key(&p)) {
            self.pending.push(p);
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Where the value of the first `ld.global` of a kernel whose body is `body` (`%rd1` holds
    /// a global pointer) can go, and the index of each store.
    fn reach_of(body: &str) -> (Reach, Vec<u32>) {
        let ptx = format!(
            ".version 8.0\n.target sm_90\n.address_size 64\n\
             .visible .entry k(.param .u64 p)\n{{\n.reg .pred %p<4>;\n.reg .b32 %r<16>;\n\
             .reg .b64 %rd<8>;\nld.param.u64 %rd1, [p];\n{body}\nret;\n}}\n"
        );
        let m = crate::ir::compile(&ptx).unwrap();
        let flow = Flow::new(&m);
        let f = &m.functions[0];
        let is = |pc: usize, op: Op, space: Space| {
            f.code[pc].op == op && f.code[pc].mods.space == Some(space)
        };
        let read = (0..f.code.len())
            .find(|&pc| is(pc, Op::Ld, Space::Global))
            .unwrap();
        let stores = (0..f.code.len())
            .filter(|&pc| f.code[pc].op == Op::St)
            .map(|pc| pc as u32)
            .collect();
        (flow.reach(0, read as u32), stores)
    }

    #[test]
    fn a_value_reaches_the_stores_it_flows_into() {
        let (reach, stores) = reach_of(
            "ld.global.u32 %r1, [%rd1];\nmad.lo.u32 %r2, %r1, 2, 1;\nsetp.eq.u32 %p1, %r3, 0;\n\
             @%p1 st.global.u32 [%rd1], %r2;\nst.global.u32 [%rd1+4], %r3;",
        );
        assert_eq!(reach, Reach::Only(vec![stores[0]]));
        // Through a shuffle and a select, into an address.
        let (reach, stores) = reach_of(
            "ld.global.u32 %r1, [%rd1];\nshfl.sync.bfly.b32 %r2, %r1, 1, 31, -1;\n\
             selp.b32 %r4, %r2, 0, %p2;\ncvt.u64.u32 %rd2, %r4;\nadd.s64 %rd3, %rd1, %rd2;\n\
             st.global.u32 [%rd3], %r5;",
        );
        assert_eq!(reach, Reach::Only(stores));
        // A value that goes nowhere reaches nothing.
        let (reach, _) = reach_of("ld.global.u32 %r1, [%rd1];\nadd.u32 %r2, %r1, 1;");
        assert_eq!(reach, Reach::Only(vec![]));
    }

    #[test]
    fn branches_guards_of_stores_atomics_carries_and_member_masks_let_a_value_escape() {
        for tail in [
            "setp.eq.u32 %p1, %r2, 0;\n@%p1 bra END;\nEND:",
            "setp.eq.u32 %p1, %r2, 0;\n@%p1 st.global.u32 [%rd1+8], 0;",
            "atom.global.add.u32 %r3, [%rd1+8], %r2;",
            "add.cc.u32 %r3, %r2, 1;\naddc.u32 %r4, 0, 0;",
            "st.local.u32 [%rd1], %r2;",
            // A member mask decides which lanes must meet; a CTA rank can fault.
            "shfl.sync.idx.b32 %r3, %r5, 0, 31, %r2;",
            "vote.sync.any.pred %p1, %p2, %r2;",
            "mapa.shared::cluster.u32 %r3, %r5, %r2;",
        ] {
            let (reach, _) = reach_of(&format!(
                "ld.global.u32 %r1, [%rd1];\nadd.u32 %r2, %r1, 1;\n{tail}"
            ));
            assert_eq!(reach, Reach::Escapes, "{tail}");
        }
    }

    fn pending(warp: u32, pc: u32) -> Pending {
        let site = Site {
            func: 0,
            pc,
            rank: 0,
            cta: [0; 3],
            warp: 0,
            lane: 0,
        };
        Pending {
            rank: 0,
            warp,
            func: 0,
            reach: vec![7, 9],
            upgrade: Upgrade {
                site,
                message: Msg::text("race"),
                help: String::new(),
                address: String::new(),
                related: Some((0, 3, "the read".into())),
            },
        }
    }

    #[test]
    fn a_held_read_is_upgraded_once_when_its_warp_first_runs_a_reached_access() {
        let mut spent = Spent::default();
        spent.start(&[2]);
        // A loop that races at every iteration holds one finding per warp.
        spent.hold(pending(1, 5));
        spent.hold(pending(1, 5));
        spent.hold(pending(0, 5));
        assert_eq!(spent.pending.len(), 2);
        assert!(spent.ran(0, 1, 0, 8).is_none(), "not reached");
        assert!(spent.ran(0, 1, 1, 7).is_none(), "another function");
        assert!(spent.ran(0, 0, 0, 9).is_some_and(|u| u.len() == 1));
        assert_eq!(spent.executed_any(0, 1, 0, &[7, 9]), Some(false));
        let up = spent.ran(0, 1, 0, 7).unwrap();
        assert_eq!((up.len(), up[0].site.pc), (1, 5));
        assert!(spent.pending.is_empty());
        assert_eq!(spent.executed_any(0, 1, 0, &[7, 9]), Some(true));
        assert_eq!(spent.executed_any(0, 1, 2, &[7]), Some(false));
        assert_eq!(spent.executed_any(1, 0, 0, &[7]), None, "no such CTA rank");
    }
}
