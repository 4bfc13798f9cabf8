//! Latency models: when an asynchronous operation reads its source, when each piece of its data
//! lands in the destination, and when it completes (PTX ISA 9.0 section 9.7.9.25 leaves all of
//! this to the implementation: a copy may take any time, and its data may appear in any order
//! before it completes). A model only chooses times; the async engine (`mem::copy`) moves the
//! bytes at those times and drives the completion mechanism, and the checker derives hazards
//! from happens-before, never from the times, so a correct kernel gives the same bytes under
//! every model.
//!
//! Models (`--latency`): `immediate`, `fixed:N`, `uniform:LO-HI`, `bandwidth[:LAT,BYTES_PER_CYCLE]`
//! and `adversarial`. All are deterministic: the seeded ones draw from ChaCha8 seeded with the
//! run's seed.
//!
//! A library user plugs in a model of their own by implementing [`LatencyModel`]:
//!
//! ```
//! use ptxrun::api::{CustomLatency, LatencyModel, OpDesc, RunOptions, Timing};
//! /// Every copy takes 100 cycles plus one cycle per 16 bytes; data lands at the end.
//! struct Slow;
//! impl LatencyModel for Slow {
//!     fn name(&self) -> String { "slow".into() }
//!     fn schedule(&mut self, op: &OpDesc, t: &mut Timing) {
//!         let done = op.issue + 100 + op.bytes / 16;
//!         t.read_at = op.issue;
//!         t.land.iter_mut().for_each(|l| *l = done);
//!         t.complete_at = done;
//!     }
//!     fn fresh(&self) -> Box<dyn LatencyModel> { Box::new(Slow) }
//! }
//! let opts = RunOptions {
//!     latency_model: Some(CustomLatency::new(Slow)),
//!     ..RunOptions::default()
//! };
//! # let _ = opts;
//! ```
//! and launching with these options.

use rand::{Rng, SeedableRng};
use rand_chacha::ChaCha8Rng;

/// What kind of asynchronous operation is being scheduled.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum OpClass {
    /// Non-bulk `cp.async` (one warp-wide issue, one piece per lane).
    CpAsync,
    /// `cp.async.bulk` between global and shared memory, or between CTAs.
    Bulk,
    /// `cp.reduce.async.bulk`.
    BulkReduce,
    /// `cp.async.bulk.tensor` and `cp.reduce.async.bulk.tensor`.
    Tensor,
    /// `st.async` / `red.async` to another CTA's shared memory.
    Remote,
    /// `wgmma.mma_async`: reads its shared-memory operands, writes registers.
    Wgmma,
}

/// One operation as the model sees it.
#[derive(Debug, Clone, Copy)]
pub struct OpDesc {
    /// Issue order within the run (0, 1, 2, ...).
    pub seq: u64,
    pub class: OpClass,
    /// Bytes moved (for multicast: once per destination).
    pub bytes: u64,
    /// Pieces whose landing times the model chooses (at least 1).
    pub pieces: usize,
    /// Cycle of the issuing instruction.
    pub issue: u64,
    /// The issuing CTA's rank in its cluster: the SM whose copy engine serves the operation.
    pub sm: u32,
    /// Source and destination both in shared memory (no trip to L2).
    pub on_chip: bool,
}

/// The model's answer. The engine keeps `issue <= read_at <= land[i] <= complete_at`, clamping
/// what a model returns.
#[derive(Debug, Clone, Default)]
pub struct Timing {
    pub read_at: u64,
    /// One landing cycle per piece, in piece order (the engine sizes it before asking).
    pub land: Vec<u64>,
    pub complete_at: u64,
}

/// Chooses the timing of asynchronous operations.
pub trait LatencyModel: Send {
    /// The name as `--latency` writes it (for reports and traces).
    fn name(&self) -> String;
    /// Fills `t` for `op`; `t.land` has `op.pieces` entries.
    fn schedule(&mut self, op: &OpDesc, t: &mut Timing);
    /// The grid's `cluster`-th cluster of CTAs (in launch order) starts: forget queues (it runs
    /// on fresh SMs) and reseed, so that a cluster's timings depend only on the run's seed and
    /// its index, never on which clusters ran before it (clusters may run on several threads).
    fn reset(&mut self, cluster: u64) {
        let _ = cluster;
    }
    /// The same model as `parse` made it, for another thread's clusters.
    fn fresh(&self) -> Box<dyn LatencyModel>;
    /// Cycles an `mbarrier.try_wait` waits for an incomplete phase before it returns false
    /// (PTX ISA 9.0 9.7.13.15.16: "a system-dependent time limit"). The H100 waits
    /// [`TRY_WAIT_LIMIT`] cycles whatever `suspendTimeHint` says; 0 returns false at once.
    fn try_wait_limit(&self) -> u64 {
        TRY_WAIT_LIMIT
    }
}

/// Cycles an H100 `mbarrier.try_wait{.parity}` blocks on a phase that does not complete before
/// it returns false: measured 7,771-7,879 SM cycles (3.9-4.0 us) on an H100 80GB HBM3 (driver
/// 580.159), the same with a `suspendTimeHint` of 0 ns to 1 ms; `test_wait` returns at once.
pub const TRY_WAIT_LIMIT: u64 = 7_771;

/// The seed of the `cluster`-th cluster's draws: the run's seed itself for the first, so a
/// launch of one cluster draws exactly what the seed says.
pub fn cluster_seed(seed: u64, cluster: u64) -> u64 {
    seed ^ cluster.wrapping_mul(0x9E37_79B9_7F4A_7C15)
}

/// Parses `--latency`. Seeded models draw from `seed`.
pub fn parse(spec: &str, seed: u64) -> Result<Box<dyn LatencyModel>, String> {
    let bad = |why: &str| {
        Err(format!(
            "--latency {spec}: {why} (use immediate, fixed:N, uniform:LO-HI, bandwidth, bandwidth:LATENCY,BYTES_PER_CYCLE or adversarial)"
        ))
    };
    let num = |s: &str| s.trim().parse::<u64>().ok();
    let (name, arg) = spec.split_once(':').unwrap_or((spec, ""));
    match (name, arg) {
        ("immediate", "") => Ok(Box::new(Immediate)),
        ("fixed", a) => match num(a) {
            Some(n) if n <= MAX_LATENCY => Ok(Box::new(Fixed(n))),
            _ => bad("fixed needs a cycle count up to 2^30"),
        },
        ("uniform", a) => {
            let (lo, hi) = a.split_once('-').unwrap_or((a, ""));
            match (num(lo), num(hi)) {
                (Some(lo), Some(hi)) if lo <= hi && hi <= MAX_LATENCY => {
                    Ok(Box::new(Uniform::new(lo, hi, seed)))
                }
                _ => bad("uniform needs LO-HI with LO <= HI <= 2^30"),
            }
        }
        ("bandwidth", "") => Ok(Box::new(Bandwidth::h100())),
        ("bandwidth", a) => {
            let (lat, bw) = a.split_once(',').unwrap_or((a, ""));
            match (num(lat), num(bw)) {
                (Some(lat), Some(bw)) if bw > 0 && lat <= MAX_LATENCY => {
                    Ok(Box::new(Bandwidth::new(lat, bw)))
                }
                _ => bad("bandwidth takes LATENCY,BYTES_PER_CYCLE with LATENCY <= 2^30 and BYTES_PER_CYCLE >= 1"),
            }
        }
        ("adversarial", "") => Ok(Box::new(Adversarial::new(seed))),
        _ => bad("unknown model"),
    }
}

/// The models `ptxrun` knows, as `--latency` spells them (for `check --explore` and tests).
pub const STANDARD: &[&str] = &[
    "immediate",
    "fixed:500",
    "uniform:1-2000",
    "bandwidth",
    "adversarial",
];

/// Longest latency a model may ask for (cycles); keeps the virtual clock far from overflow.
pub const MAX_LATENCY: u64 = 1 << 30;

/// Everything completes at issue: data is there when the issuing instruction retires.
pub struct Immediate;

impl LatencyModel for Immediate {
    fn name(&self) -> String {
        "immediate".into()
    }
    fn fresh(&self) -> Box<dyn LatencyModel> {
        Box::new(Immediate)
    }
    fn schedule(&mut self, op: &OpDesc, t: &mut Timing) {
        t.read_at = op.issue;
        t.land.iter_mut().for_each(|l| *l = op.issue);
        t.complete_at = op.issue;
    }
}

/// Every operation takes `N` cycles: the source is read a quarter of the way in, pieces land
/// evenly over the second half, completion at `issue + N`.
pub struct Fixed(pub u64);

impl LatencyModel for Fixed {
    fn name(&self) -> String {
        format!("fixed:{}", self.0)
    }
    fn fresh(&self) -> Box<dyn LatencyModel> {
        Box::new(Fixed(self.0))
    }
    fn schedule(&mut self, op: &OpDesc, t: &mut Timing) {
        let n = self.0;
        let at = |c: u64| op.issue.saturating_add(c);
        t.read_at = at(n / 4);
        spread(t, at(n / 2), at(n));
        t.complete_at = at(n);
    }
}

/// Lands pieces evenly between `from` and `to`, the last at `to`.
fn spread(t: &mut Timing, from: u64, to: u64) {
    let k = t.land.len() as u64;
    for (i, l) in t.land.iter_mut().enumerate() {
        let step = u128::from(to - from) * (i as u128 + 1) / u128::from(k.max(1));
        *l = from + step as u64;
    }
}

/// Latency drawn uniformly from `LO..=HI` per operation; read and landing points drawn within it.
pub struct Uniform {
    lo: u64,
    hi: u64,
    seed: u64,
    rng: ChaCha8Rng,
}

impl Uniform {
    pub fn new(lo: u64, hi: u64, seed: u64) -> Self {
        Uniform {
            lo,
            hi,
            seed,
            rng: ChaCha8Rng::seed_from_u64(seed ^ 0x756e_6966_6f72_6d00),
        }
    }
}

impl LatencyModel for Uniform {
    fn name(&self) -> String {
        format!("uniform:{}-{}", self.lo, self.hi)
    }
    fn reset(&mut self, cluster: u64) {
        let seed = self.seed;
        *self = Uniform::new(self.lo, self.hi, cluster_seed(seed, cluster));
        self.seed = seed;
    }
    fn fresh(&self) -> Box<dyn LatencyModel> {
        Box::new(Uniform::new(self.lo, self.hi, self.seed))
    }
    fn schedule(&mut self, op: &OpDesc, t: &mut Timing) {
        let lat = self.rng.gen_range(self.lo..=self.hi);
        let done = op.issue.saturating_add(lat);
        t.read_at = op.issue.saturating_add(self.rng.gen_range(0..=lat / 2));
        let read = t.read_at;
        for l in t.land.iter_mut() {
            *l = self.rng.gen_range(read..=done);
        }
        t.complete_at = done;
    }
}

/// An H100-like copy engine per SM: a fixed latency for the first byte, then the operation's
/// bytes stream at a per-SM bandwidth, queued behind the operations issued before it on that SM.
/// Defaults: 600 cycles from global memory (200 between shared memories of a cluster) and 64
/// bytes per cycle (about 112 GB/s per SM at 1.755 GHz, 15 TB/s over 132 SMs of L2 traffic).
pub struct Bandwidth {
    latency: u64,
    bytes_per_cycle: u64,
    /// Per SM: the cycle its engine is free again.
    free_at: Vec<u64>,
}

impl Bandwidth {
    pub fn new(latency: u64, bytes_per_cycle: u64) -> Self {
        Bandwidth {
            latency,
            bytes_per_cycle: bytes_per_cycle.max(1),
            free_at: Vec::new(),
        }
    }

    pub fn h100() -> Self {
        Bandwidth::new(600, 64)
    }
}

impl LatencyModel for Bandwidth {
    fn name(&self) -> String {
        format!("bandwidth:{},{}", self.latency, self.bytes_per_cycle)
    }
    fn schedule(&mut self, op: &OpDesc, t: &mut Timing) {
        let sm = op.sm as usize;
        if self.free_at.len() <= sm {
            self.free_at.resize(sm + 1, 0);
        }
        let lat = if op.on_chip {
            self.latency / 3
        } else {
            self.latency
        };
        let start = op.issue.max(self.free_at[sm]);
        let busy = op.bytes.div_ceil(self.bytes_per_cycle).max(1);
        let at = |c: u64| start.saturating_add(c);
        self.free_at[sm] = at(busy);
        t.read_at = at(lat / 2);
        spread(t, at(lat), at(lat).saturating_add(busy));
        t.complete_at = at(lat).saturating_add(busy);
    }
    fn reset(&mut self, _cluster: u64) {
        self.free_at.clear();
    }
    fn fresh(&self) -> Box<dyn LatencyModel> {
        Box::new(Bandwidth::new(self.latency, self.bytes_per_cycle))
    }
}

/// As late as the program allows, in a hostile order: every operation is scheduled a very long
/// time after its issue (2^20 cycles plus a random spread), so it completes only when every
/// warp waits for something (the machine then jumps its clock to the next event), and in a
/// seeded order unrelated to issue order. The source is read at the last moment (a source
/// overwritten too early is copied overwritten) and the pieces land in a random order just
/// before completion (a destination read too early shows stale or partial data).
pub struct Adversarial {
    seed: u64,
    rng: ChaCha8Rng,
}

/// The delay of every adversarial completion, before its random spread.
pub const ADVERSARIAL_DELAY: u64 = 1 << 20;

impl Adversarial {
    pub fn new(seed: u64) -> Self {
        Adversarial {
            seed,
            rng: ChaCha8Rng::seed_from_u64(seed ^ 0x6164_7665_7273_6172),
        }
    }
}

impl LatencyModel for Adversarial {
    fn name(&self) -> String {
        "adversarial".into()
    }
    fn reset(&mut self, cluster: u64) {
        let seed = self.seed;
        *self = Adversarial::new(cluster_seed(seed, cluster));
        self.seed = seed;
    }
    fn fresh(&self) -> Box<dyn LatencyModel> {
        Box::new(Adversarial::new(self.seed))
    }
    /// As short as the ISA allows: an incomplete phase makes `try_wait` return false at once.
    fn try_wait_limit(&self) -> u64 {
        0
    }
    fn schedule(&mut self, op: &OpDesc, t: &mut Timing) {
        let delay = ADVERSARIAL_DELAY + self.rng.gen_range(0..ADVERSARIAL_DELAY);
        let done = op.issue.saturating_add(delay);
        let k = t.land.len() as u64;
        t.read_at = done - k - 1;
        // A random permutation of the last k cycles before completion.
        let mut slots: Vec<u64> = (0..k).map(|i| done - k + i).collect();
        for i in (1..slots.len()).rev() {
            let j = self.rng.gen_range(0..=i);
            slots.swap(i, j);
        }
        t.land.copy_from_slice(&slots);
        t.complete_at = done;
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn desc(issue: u64, bytes: u64, pieces: usize) -> OpDesc {
        OpDesc {
            seq: 0,
            class: OpClass::Bulk,
            bytes,
            pieces,
            issue,
            sm: 0,
            on_chip: false,
        }
    }

    fn run(m: &mut dyn LatencyModel, op: &OpDesc) -> Timing {
        let mut t = Timing {
            land: vec![0; op.pieces],
            ..Timing::default()
        };
        m.schedule(op, &mut t);
        assert!(op.issue <= t.read_at, "{}", m.name());
        assert!(t.land.iter().all(|&l| t.read_at <= l && l <= t.complete_at));
        t
    }

    #[test]
    fn immediate_and_fixed() {
        let t = run(&mut Immediate, &desc(10, 64, 3));
        assert_eq!((t.read_at, t.complete_at), (10, 10));
        let t = run(&mut Fixed(400), &desc(10, 64, 4));
        assert_eq!((t.read_at, t.complete_at), (110, 410));
        assert_eq!(t.land, vec![260, 310, 360, 410]);
    }

    #[test]
    fn uniform_is_seeded_and_in_range() {
        let (mut a, mut b) = (Uniform::new(5, 50, 9), Uniform::new(5, 50, 9));
        for i in 0..100 {
            let (x, y) = (run(&mut a, &desc(i, 16, 2)), run(&mut b, &desc(i, 16, 2)));
            assert_eq!(
                (x.read_at, x.land.clone(), x.complete_at),
                (y.read_at, y.land, y.complete_at)
            );
            assert!((i + 5..=i + 50).contains(&x.complete_at));
        }
    }

    #[test]
    fn bandwidth_queues_per_sm() {
        let mut m = Bandwidth::new(100, 16);
        let a = run(&mut m, &desc(0, 1600, 1));
        assert_eq!(a.complete_at, 200);
        // Issued at the same time on the same SM: waits for the first to stream out.
        let b = run(&mut m, &desc(0, 160, 1));
        assert_eq!(b.complete_at, 100 + 100 + 10);
        let mut other = desc(0, 160, 1);
        other.sm = 1;
        assert_eq!(run(&mut m, &other).complete_at, 110);
        m.reset(0);
        assert_eq!(run(&mut m, &desc(0, 160, 1)).complete_at, 110);
    }

    #[test]
    fn adversarial_is_late_and_shuffled() {
        let mut m = Adversarial::new(3);
        let t = run(&mut m, &desc(0, 1024, 8));
        assert!(t.complete_at >= ADVERSARIAL_DELAY);
        let mut sorted = t.land.clone();
        sorted.sort_unstable();
        assert_eq!(
            sorted,
            (t.complete_at - 8..t.complete_at).collect::<Vec<_>>()
        );
    }

    #[test]
    fn specs_parse() {
        for s in STANDARD {
            assert_eq!(
                &parse(s, 1).unwrap().name().split(':').next().unwrap(),
                &s.split(':').next().unwrap()
            );
        }
        assert_eq!(
            parse("bandwidth:300,32", 0).unwrap().name(),
            "bandwidth:300,32"
        );
        for bad in [
            "fast",
            "fixed:",
            "uniform:9-3",
            "bandwidth:1,0",
            "immediate:3",
        ] {
            assert!(parse(bad, 0).is_err(), "{bad}");
        }
    }
}
