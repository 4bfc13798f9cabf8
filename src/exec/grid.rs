//! Running a grid: its clusters in launch order (PTX ISA 9.0 section 2.2: the clusters of a grid
//! are independent; CTAs of different clusters can communicate only through global memory).
//!
//! On one thread the clusters simply run one after another. On several (`--jobs`), clusters that
//! do not interact are run concurrently and the result must be byte-identical to the one-thread
//! run. Each cluster's randomness (scheduler, latency model) is seeded from the run's seed and the
//! cluster's index, so it does not depend on what ran before it; what remains is memory. Every
//! worker thread runs clusters on its own copy of global memory, logging the byte ranges each
//! cluster reads and writes. If no byte written by one cluster is read or written by another, no
//! cluster could have seen another's effects, and neither could the hazard checker (every rule
//! needs a write to a byte another agent touches), so the one-thread run would have done exactly
//! the same: the written ranges are gathered into one memory, and reports, output and counters are
//! merged in cluster order. For the same reason each worker keeps one checker for all its
//! clusters, as the one-thread run keeps one for all: the shadow a cluster finds left by others
//! holds only reads of bytes it may itself only read, which no rule can turn into a hazard.
//! Otherwise, and when a cluster allocates (device `malloc` numbers its allocations in call
//! order), the whole launch runs again on one thread. A cluster that spins on another's write is
//! caught while it runs (its watch compares what it has read with what finished clusters wrote)
//! instead of spinning until the step limit.

use super::cdp::run_launched;
use super::config::{origins, Grid, Options, Outcome, Stats};
use super::fault::{Fault, FaultKind, Hazard};
use super::hazard::HazardKey;
use super::machine::{Finish, Machine};
use super::step::run_cluster;
use crate::ir::{FuncId, Module};
use crate::mem::{AccessLog, Global};
use std::collections::BTreeMap;
use std::sync::atomic::{AtomicBool, AtomicU64, AtomicUsize, Ordering};
use std::sync::{Arc, Mutex};

/// Runs `entry` over the grid, every cluster, on `opts.jobs` threads where that gives the
/// one-thread result. `global` holds the launch's buffers; `kparams` is the kernel parameter
/// buffer laid out as `Function::params` says.
pub fn run(
    module: &Module,
    entry: FuncId,
    grid: &Grid,
    global: Global,
    kparams: Vec<u8>,
    opts: Options,
) -> Outcome {
    let k = Kernel {
        module,
        entry,
        grid,
        origins: origins(grid),
    };
    let jobs = opts
        .jobs
        .min(k.origins.len())
        .min(workers_fitting(&global, &opts.meter));
    // Traces number operations and events across the whole launch: they need one thread.
    // Grids launched from the device run after the launch's: one thread runs them all.
    if jobs > 1 && !opts.trace && !super::devrt::launches(module) {
        // The workers' copies of global memory are charged while they live, and the merged
        // one (`merge`), made while they still do.
        let copies = (global.size() as u64).saturating_mul(jobs as u64 + 1);
        let meter = Arc::clone(&opts.meter);
        if meter.charge(copies, || "copies of global memory for --jobs".into()) {
            let out = parallel(&k, &global, &kparams, &opts, jobs);
            meter.release(copies);
            if let Some(out) = out {
                return out;
            }
        }
    }
    sequential(&k, global, kparams, opts)
}

/// What every cluster of a launch runs.
struct Kernel<'m> {
    module: &'m Module,
    entry: FuncId,
    grid: &'m Grid,
    /// The first CTA of every cluster, in launch order.
    origins: Vec<[u32; 3]>,
}

/// How many workers' copies of `global` fit in what the memory budget has left, beside the
/// merged copy their results are applied to (their shadows are made as they are touched, and
/// charged then); fewer than two: run on one thread, which needs no copy.
fn workers_fitting(global: &Global, meter: &crate::mem::budget::Meter) -> usize {
    let left = meter.limit().saturating_sub(meter.used());
    let each = (global.size() as u64).max(1);
    usize::try_from((left / each).saturating_sub(1)).unwrap_or(usize::MAX)
}

fn sequential(k: &Kernel<'_>, global: Global, kparams: Vec<u8>, opts: Options) -> Outcome {
    let mut m = Machine::new(k.module, k.entry, k.grid, global, kparams, opts);
    let latency = m.engine.model_name();
    let mut fault = None;
    for (i, &first) in k.origins.iter().enumerate() {
        if let Err(f) = run_cluster(&mut m, first, i as u64) {
            fault = Some(*f);
            break;
        }
    }
    if fault.is_none() {
        fault = run_launched(&mut m).err().map(|f| *f);
    }
    outcome(k.grid, m.finish(), fault, latency, 1)
}

/// Fills in thread coordinates from linear thread indices.
fn outcome(
    grid: &Grid,
    done: Finish,
    mut fault: Option<Fault>,
    latency: String,
    threads: usize,
) -> Outcome {
    let Finish {
        global,
        stdout,
        printf_truncated,
        stats,
        trace,
        mut hazards,
        child_hazards,
    } = done;
    let [bx, by, _] = grid.block;
    let coords = |t: u32| [t % bx, (t / bx) % by, t / (bx * by)];
    if let Some(f) = &mut fault {
        if let Some(t) = f.linear_thread {
            f.thread = coords(t);
        }
    }
    for h in &mut hazards {
        h.thread = coords(h.linear_thread);
    }
    hazards.extend(child_hazards);
    Outcome {
        global,
        stdout,
        stats,
        fault,
        trace,
        latency,
        hazards,
        threads,
        printf_truncated,
    }
}

/// What one cluster did, on whichever thread ran it.
struct Done {
    stats: Stats,
    stdout: String,
    /// Whether its `printf` output did not fit the FIFO.
    printf_dropped: bool,
    hazards: Vec<Hazard>,
    fault: Option<Box<Fault>>,
    log: AccessLog,
    worker: usize,
}

/// Disjoint byte ranges `start -> end`, merged as they are added.
#[derive(Default)]
struct RangeSet(BTreeMap<u64, u64>);

impl RangeSet {
    fn overlaps(&self, start: u64, end: u64) -> bool {
        self.0
            .range(..end)
            .next_back()
            .is_some_and(|(_, &e)| e > start)
    }

    fn insert(&mut self, mut start: u64, mut end: u64) {
        while let Some((&s, &e)) = self.0.range(..=end).next_back() {
            if e < start {
                break;
            }
            start = start.min(s);
            end = end.max(e);
            self.0.remove(&s);
        }
        self.0.insert(start, end);
    }
}

/// Whether any cluster wrote a byte another cluster read or wrote: `logs[i]` is what cluster
/// `i` accessed (normalised). Writes are few (a cluster's results); reads are many, and are
/// only looked up, once, after the run, so workers never wait for each other over them.
fn interacted(logs: &[&AccessLog]) -> bool {
    // Every written range with its writer; writers' ranges must be disjoint.
    let mut writes: BTreeMap<u64, (u64, usize)> = BTreeMap::new();
    for (i, log) in logs.iter().enumerate() {
        for &(a, b) in &log.writes {
            if writes
                .range(..b)
                .next_back()
                .is_some_and(|(_, &(e, _))| e > a)
            {
                return true;
            }
            writes.insert(a, (b, i));
        }
    }
    logs.iter().enumerate().any(|(i, log)| {
        log.reads.iter().any(|&(a, b)| {
            // The written ranges that end after `a`, among those that start before `b`
            // (disjoint and sorted, so their ends are sorted too).
            writes
                .range(..b)
                .rev()
                .take_while(|(_, &(e, _))| e > a)
                .any(|(_, &(_, w))| w != i)
        })
    })
}

/// Locks `m`; a worker that panicked is a bug elsewhere, and the data it left is consistent.
fn lock<T>(m: &Mutex<T>) -> std::sync::MutexGuard<'_, T> {
    m.lock().unwrap_or_else(|e| e.into_inner())
}

fn take_log(g: &Global) -> AccessLog {
    let mut log = g
        .log
        .as_ref()
        .map(|l| std::mem::take(&mut *lock(l)))
        .unwrap_or_default();
    log.normalize();
    log
}

/// What the workers of a parallel run share: the next cluster to take, the first cluster that
/// faulted (later ones are not part of the run), whether the launch must go back to one
/// thread, the warp instructions of the finished clusters, what finished clusters wrote (a
/// cluster spinning on one of these bytes must stop), and each cluster's result.
struct Shared {
    next: AtomicUsize,
    stop: AtomicUsize,
    abort: Arc<AtomicBool>,
    spent: Arc<AtomicU64>,
    written: Arc<Mutex<RangeSet>>,
    done: Mutex<Vec<Option<Done>>>,
}

/// Runs the clusters on `jobs` threads; `None` when they interacted (or the step limit was
/// reached), and the launch must run on one thread.
fn parallel(
    k: &Kernel<'_>,
    global: &Global,
    kparams: &[u8],
    opts: &Options,
    jobs: usize,
) -> Option<Outcome> {
    let n = k.origins.len();
    let sh = Shared {
        next: AtomicUsize::new(0),
        stop: AtomicUsize::new(usize::MAX),
        abort: Arc::new(AtomicBool::new(false)),
        spent: Arc::new(AtomicU64::new(0)),
        written: Arc::new(Mutex::new(RangeSet::default())),
        done: Mutex::new((0..n).map(|_| None).collect()),
    };
    let workers: Vec<Options> = (0..jobs).map(|_| worker_options(opts)).collect();
    let machines: Vec<Machine<'_>> = std::thread::scope(|s| {
        let handles: Vec<_> = workers
            .into_iter()
            .enumerate()
            .map(|(w, wo)| {
                let sh = &sh;
                s.spawn(move || worker(k, global, kparams, wo, sh, w))
            })
            .collect();
        handles.into_iter().filter_map(|h| h.join().ok()).collect()
    });
    if sh.abort.load(Ordering::Relaxed) || machines.len() != jobs {
        return None;
    }
    let done = sh.done.into_inner().unwrap_or_else(|e| e.into_inner());
    let last = sh.stop.load(Ordering::Relaxed).min(n - 1);
    let logs: Option<Vec<&AccessLog>> = done[..=last]
        .iter()
        .map(|d| Some(&d.as_ref()?.log))
        .collect();
    if logs.is_none_or(|l| interacted(&l)) {
        return None;
    }
    merge(k, global, &machines, &done[..=last], opts, jobs)
}

/// A worker's options: the launch's, with a fresh latency model, no trace and one job.
fn worker_options(opts: &Options) -> Options {
    Options {
        seed: opts.seed,
        max_steps: opts.max_steps,
        instruction_cycles: opts.instruction_cycles,
        latency: opts.latency.fresh(),
        trace: false,
        trace_instructions: false,
        trace_to: None,
        check: opts.check,
        fast: opts.fast,
        jit: opts.jit,
        verify: opts.verify,
        jobs: 1,
        cancel: opts.cancel.clone(),
        deadline: opts.deadline,
        meter: Arc::clone(&opts.meter),
        malloc_heap_bytes: opts.malloc_heap_bytes,
        printf_fifo_bytes: opts.printf_fifo_bytes,
    }
}

/// Worker `w`: takes clusters in turn and runs each on its own copy of global memory, until
/// none is left, one faulted before, or the run must go back to one thread.
fn worker<'m>(
    k: &Kernel<'m>,
    global: &Global,
    kparams: &[u8],
    opts: Options,
    sh: &Shared,
    w: usize,
) -> Machine<'m> {
    let n = k.origins.len();
    let max_steps = opts.max_steps;
    let mut g = global.clone();
    g.log = Some(Mutex::new(AccessLog::default()));
    let mut m = Machine::new(k.module, k.entry, k.grid, g, kparams.to_vec(), opts);
    let (p, a, sp) = (
        Arc::clone(&sh.written),
        Arc::clone(&sh.abort),
        Arc::clone(&sh.spent),
    );
    m.watch = Some(Box::new(move |g: &Global, steps: u64| {
        // Past the launch's step limit counting finished clusters: the one-thread run stops
        // somewhere here too, so stop and let it say where.
        if a.load(Ordering::Relaxed) || sp.load(Ordering::Relaxed).saturating_add(steps) > max_steps
        {
            return true;
        }
        g.log.as_ref().is_some_and(|l| {
            let l = lock(l);
            let p = lock(&p);
            l.reads.iter().any(|&(s, e)| p.overlaps(s, e))
        })
    }));
    // Layout wrote the module's initialised variables: not a cluster's doing.
    take_log(&m.global);
    // Device `malloc` hands out addresses in call order: a cluster that allocates needs the
    // one-thread order.
    let allocations = m.global.allocs.len();
    loop {
        let i = sh.next.fetch_add(1, Ordering::Relaxed);
        if i >= n || i > sh.stop.load(Ordering::Relaxed) || sh.abort.load(Ordering::Relaxed) {
            break;
        }
        m.stats = Stats::default();
        m.stdout.take();
        let r = run_cluster(&mut m, k.origins[i], i as u64);
        let log = take_log(&m.global);
        let fault = r.err();
        if fault
            .as_ref()
            .is_some_and(|f| matches!(f.kind, FaultKind::StepLimit | FaultKind::Interrupted))
            || m.global.allocs.len() != allocations
        {
            sh.abort.store(true, Ordering::Relaxed);
            break;
        }
        if fault.is_some() {
            sh.stop.fetch_min(i, Ordering::Relaxed);
        }
        {
            let mut wr = lock(&sh.written);
            if log.writes.iter().any(|&(a, b)| wr.overlaps(a, b)) {
                sh.abort.store(true, Ordering::Relaxed);
                break;
            }
            for &(a, b) in &log.writes {
                wr.insert(a, b);
            }
        }
        sh.spent
            .fetch_add(m.stats.warp_instructions, Ordering::Relaxed);
        let hazards = m.hb.as_mut().map(|h| h.take_hazards()).unwrap_or_default();
        let (stdout, truncated) = m.stdout.take();
        let d = Done {
            stats: m.stats,
            stdout,
            printf_dropped: truncated.is_some(),
            hazards,
            fault,
            log,
            worker: w,
        };
        lock(&sh.done)[i] = Some(d);
    }
    m.watch = None;
    m
}

/// The outcome of the clusters `done` ran on the workers `machines`, as one thread gives it:
/// counters summed, output and hazards in cluster order, each cluster's writes applied to the
/// launch's memory; `None` when the one-thread run could differ (the step limit, the printf
/// FIFO).
fn merge(
    k: &Kernel<'_>,
    global: &Global,
    machines: &[Machine<'_>],
    done: &[Option<Done>],
    opts: &Options,
    jobs: usize,
) -> Option<Outcome> {
    let mut stats = Stats::default();
    let mut stdout = String::new();
    let mut hazards: Vec<Hazard> = Vec::new();
    let mut seen: BTreeMap<HazardKey, usize> = BTreeMap::new();
    let mut fault = None;
    // The launch's memory as every worker started from (buffers, then the module's variables),
    // plus what each included cluster wrote.
    let mut global = global.clone();
    if super::layout::Layout::new(k.module, k.entry, &mut global).is_err() {
        global = machines[0].global.clone();
    }
    for d in done {
        let d = d.as_ref()?;
        stats.thread_instructions += d.stats.thread_instructions;
        stats.warp_instructions += d.stats.warp_instructions;
        stats.cycles = stats.cycles.max(d.stats.cycles);
        stats.peak_local_bytes = stats.peak_local_bytes.max(d.stats.peak_local_bytes);
        stdout.push_str(&d.stdout);
        for h in &d.hazards {
            let key = h.key();
            match seen.get(&key) {
                Some(&k) => _ = hazards[k].absorb(h.clone()),
                None => {
                    seen.insert(key, hazards.len());
                    hazards.push(h.clone());
                }
            }
        }
        let from = &machines[d.worker].global;
        for &(a, b) in &d.log.writes {
            let len = (b - a) as usize;
            let src = from.read(a, len).ok()?;
            global.write_init(a, len).ok()?.copy_from_slice(src);
        }
        fault = d.fault.as_deref().cloned();
    }
    // Output beyond the printf FIFO: which calls are dropped depends on every earlier
    // cluster's output, as the one-thread run sees it.
    if stats.warp_instructions > opts.max_steps
        || done.iter().flatten().any(|d| d.printf_dropped)
        || stdout.len() as u64 > opts.printf_fifo_bytes
    {
        return None;
    }
    // Each cluster starts with nothing in flight: the launch's peak is the largest cluster's.
    for m in machines {
        let (_, peak, kept) = m.engine.counts();
        stats.peak_ops_in_flight = stats.peak_ops_in_flight.max(peak as u64);
        stats.op_summaries += kept as u64;
    }
    let latency = machines[0].engine.model_name();
    // Workers do not trace (`run` sends traced launches to one thread).
    let trace = crate::trace::Trace::new(false, false);
    let finish = Finish {
        global,
        stdout,
        printf_truncated: None,
        stats,
        trace,
        hazards,
        child_hazards: Vec::new(),
    };
    Some(outcome(k.grid, finish, fault, latency, jobs))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn range_sets_merge_and_find_overlaps() {
        let mut r = RangeSet::default();
        r.insert(10, 20);
        r.insert(30, 40);
        assert!(!r.overlaps(20, 30), "touching is not overlapping");
        assert!(r.overlaps(19, 21) && r.overlaps(0, 11) && r.overlaps(35, 36));
        r.insert(20, 30);
        assert_eq!(r.0.iter().collect::<Vec<_>>(), [(&10, &40)]);
        r.insert(5, 50);
        assert_eq!(r.0.iter().collect::<Vec<_>>(), [(&5, &50)]);
        assert!(!r.overlaps(50, 60) && !r.overlaps(0, 5));
    }

    #[test]
    fn clusters_interact_when_one_writes_what_another_touches() {
        let log = |reads: Vec<(u64, u64)>, writes: Vec<(u64, u64)>| AccessLog { reads, writes };
        let a = log(vec![(0, 8), (300, 400)], vec![(100, 108)]);
        let quiet = log(vec![(0, 8), (200, 300)], vec![(8, 100), (108, 120)]);
        assert!(
            !interacted(&[&a, &quiet]),
            "shared reads and touching writes"
        );
        let own = log(vec![(100, 104)], vec![]);
        assert!(interacted(&[&a, &own]), "read of another's write");
        assert!(interacted(&[&own, &a]), "whichever comes first");
        assert!(
            interacted(&[&a, &log(vec![], vec![(107, 120)])]),
            "write over a write"
        );
        assert!(
            interacted(&[&a, &log(vec![], vec![(7, 9)])]),
            "write of a read byte"
        );
        // A read spanning several writes, only the first of which is another's.
        let wide = log(vec![(90, 130)], vec![(110, 120)]);
        assert!(interacted(&[&a, &wide]));
        let alone = log(vec![(110, 130)], vec![(110, 120)]);
        assert!(
            !interacted(&[&a, &alone]),
            "a cluster reading its own writes"
        );
    }

    #[test]
    fn copies_of_large_memories_limit_the_workers() {
        use crate::mem::budget::Meter;
        let mut g = Global::new();
        g.alloc("small", vec![0; 1 << 18], false);
        assert!(workers_fitting(&g, &Meter::new(4 << 30, 0)) >= 64);
        g.alloc("large", vec![0; 1 << 28], false);
        // 1 GiB left holds three copies of 256.25 MiB: two workers' and the merged one.
        assert_eq!(workers_fitting(&g, &Meter::new(4 << 30, 3 << 30)), 2);
        assert_eq!(workers_fitting(&g, &Meter::new(4 << 30, 4 << 30)), 0);
    }
}
