//! `ptxrun check PATH --explore N`: one launch under N schedules (scheduler seeds x latency
//! models, `adversarial` included), run in parallel on all cores (rayon), with every distinct
//! hazard reported once, with the schedule that first showed it. Schedules are independent
//! runs of the same prepared launch, so the report depends only on the launch and N, never on
//! how many cores ran it or in which order they finished.

use crate::api::{self, Prepared, Report, RunOptions};
use crate::exec::{Fault, FaultKind, Hazard, Outcome};
use crate::latency::STANDARD;
use crate::report::sarif;
use crate::runner::{prepare, BadInput, Settings};
use rayon::prelude::*;
use std::path::Path;

/// One schedule: a scheduler seed and a latency model.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Schedule {
    /// Its index among all the schedules of the exploration (`--partition` runs a share).
    pub index: usize,
    pub seed: u64,
    pub latency: String,
}

/// `--partition M/N`: the M-th of N shares of a list (schedules, launches), 1-based, as
/// `cargo nextest --partition count:M/N` deals them: item i belongs to share i mod N + 1, so
/// every share gets every N-th item and the shares together are the whole list.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Partition {
    pub index: usize,
    pub count: usize,
}

impl Partition {
    /// Parses `M/N` (1 <= M <= N).
    pub fn parse(s: &str) -> Result<Partition, String> {
        let bad = || format!("invalid partition `{s}`: expected M/N with 1 <= M <= N, e.g. 2/4");
        let (m, n) = s.split_once('/').ok_or_else(bad)?;
        let (index, count) = (
            m.trim().parse::<usize>().map_err(|_| bad())?,
            n.trim().parse::<usize>().map_err(|_| bad())?,
        );
        if index == 0 || index > count {
            return Err(bad());
        }
        Ok(Partition { index, count })
    }

    /// Whether item `i` (0-based) of the list is in this share.
    pub fn takes(&self, i: usize) -> bool {
        i % self.count == self.index - 1
    }
}

/// Most schedules one `check --explore N` runs: a million full runs of the launch is beyond
/// any practical exploration, and the list of schedules stays small.
pub const MAX_SCHEDULES: usize = 1 << 20;

/// `n` schedules: the standard latency models in turn (or only `latency` when given), each
/// with seeds counting up from `seed` (wrapping past 2^64 - 1 to 0).
pub fn schedules(n: usize, seed: u64, latency: Option<&str>) -> Vec<Schedule> {
    (0..n)
        .map(|i| match latency {
            Some(l) => Schedule {
                index: i,
                seed: seed.wrapping_add(i as u64),
                latency: l.to_string(),
            },
            None => Schedule {
                index: i,
                seed: seed.wrapping_add((i / STANDARD.len()) as u64),
                latency: STANDARD[i % STANDARD.len()].to_string(),
            },
        })
        .collect()
}

/// What exploring found: every distinct hazard and fault with the schedule (index into
/// `schedules`) that first showed it.
pub struct Explored {
    /// The first schedule's run, for rendering (its module, source, buffers).
    pub run: Report,
    pub schedules: Vec<Schedule>,
    pub hazards: Vec<(Hazard, usize)>,
    pub faults: Vec<(Fault, usize)>,
    /// Hazards the policy's rules hid, with their first schedule.
    pub suppressed: Vec<(Hazard, usize)>,
    /// Thread instructions over all schedules.
    pub thread_instructions: u64,
    /// For `check --partition M/N`: the share, how many schedules all shares hold, and what
    /// makes shares belong together (`plan_json`).
    pub partition: Option<(Partition, usize, serde_json::Value)>,
}

/// What the shares of one partitioned exploration have in common, as `merge` checks it: the
/// module and kernel, the schedules (count, first seed, latency model), the step limit and the
/// findings policy.
pub fn plan_json(
    run: &Report,
    base: &Settings,
    schedules: usize,
    latency: Option<&str>,
) -> serde_json::Value {
    let rules: Vec<&str> = run.policy.rules.iter().map(|r| r.text.as_str()).collect();
    // The module by its contents (FNV-1a), not its path: shares may run in different checkouts.
    let text_hash = run
        .compiled
        .text
        .bytes()
        .fold(0xcbf2_9ce4_8422_2325u64, |h, b| {
            (h ^ u64::from(b)).wrapping_mul(0x0100_0000_01b3)
        });
    serde_json::json!({
        "ptx": format!("{:016x}", text_hash), "entry": base.entry, "schedules": schedules,
        "seed": base.seed, "latency": latency, "max_steps": base.max_steps,
        "deny_warnings": run.policy.deny_warnings, "suppressions": rules,
    })
}

/// Runs the launch at `path` under `n` schedules on `jobs` threads (0: all cores); `tick` is
/// called as each schedule finishes (for a progress bar).
pub fn explore(
    path: &Path,
    base: &Settings,
    scheds: Vec<Schedule>,
    jobs: usize,
    tick: &(dyn Fn() + Sync),
) -> Result<Explored, BadInput> {
    let p = prepare(path, base)?;
    let x = explore_prepared(&p, &base.options(), scheds, jobs, tick)?;
    Ok(x.with_policy(base.policy_for(&p.launch)))
}

/// The memory the schedules' runs may share under `limit`, for a launch of `size` bytes of
/// buffers: the launch's own copy stays while they run (each run copies it), and after the
/// first schedule, its outcome, kept for the report (`several` schedules); each run needs its
/// own copy besides.
fn room_for_schedules(limit: u64, size: u64, several: bool) -> Result<u64, api::Error> {
    use crate::mem::budget::human;
    let kept = size.saturating_mul(if several { 2 } else { 1 });
    let least = kept.saturating_add(size);
    if least > limit {
        let copies = match several {
            true => {
                "three copies of the launch's buffers (the launch's own, the first \
                     schedule's outcome kept for the report, and one for the schedule running)"
            }
            false => "two copies of the launch's buffers (the launch's own and the run's)",
        };
        return Err(api::Error::InvalidLaunch(format!(
            "exploring schedules needs at least {} of memory for {copies}, {} each, more than \
             the memory limit of {} (--memory-limit; the default is 3/4 of the machine's memory \
             or of `ulimit -v`)",
            human(least),
            human(size),
            human(limit)
        )));
    }
    Ok(limit - kept)
}

/// Runs a prepared launch under each schedule (its seed and latency model replace those of
/// `base`) on `jobs` threads.
pub fn explore_prepared(
    p: &Prepared,
    base: &RunOptions,
    scheds: Vec<Schedule>,
    jobs: usize,
    tick: &(dyn Fn() + Sync),
) -> Result<Explored, api::Error> {
    for s in &scheds {
        crate::latency::parse(&s.latency, s.seed).map_err(api::Error::InvalidLaunch)?;
    }
    if jobs > api::MAX_JOBS {
        return Err(api::Error::InvalidLaunch(format!(
            "--jobs {jobs}: must be 0 (every core) to {} threads",
            api::MAX_JOBS
        )));
    }
    // Schedules run side by side share the memory budget; fewer side by side if each needs
    // much (the launch's buffers are copied for each). More threads than schedules would only
    // idle.
    let limit = base
        .memory_limit
        .unwrap_or_else(crate::mem::budget::default_limit);
    let room = room_for_schedules(limit, p.global.size() as u64, scheds.len() > 1)?;
    let each = (p.global.size() as u64).saturating_mul(2).max(1);
    let jobs = if jobs == 0 {
        std::thread::available_parallelism().map_or(1, |n| n.get())
    } else {
        jobs
    };
    let jobs = jobs
        .min(scheds.len().max(1))
        .min(usize::try_from(room / each).unwrap_or(usize::MAX))
        .max(1);
    let run_one = |(i, s): (usize, &Schedule)| {
        let opts = RunOptions {
            seed: s.seed,
            latency: s.latency.clone(),
            // Each schedule names its model.
            latency_model: None,
            trace: false,
            trace_instructions: false,
            trace_to: None,
            // The schedules already use every worker.
            jobs: 1,
            memory_limit: Some(room / jobs as u64),
            ..base.clone()
        };
        let r = p.execute(&opts).map(|o| Reduced::of(o, i == 0));
        tick();
        r
    };
    let pool = rayon::ThreadPoolBuilder::new()
        .num_threads(jobs)
        .build()
        .map_err(|e| {
            api::Error::InvalidLaunch(format!("cannot start {jobs} worker threads: {e}"))
        })?;
    // Each schedule is reduced to its findings as it finishes: memory does not grow with N.
    let outcomes: Vec<_> = pool.install(|| scheds.par_iter().enumerate().map(run_one).collect());
    let mut hazards: Vec<(Hazard, usize)> = Vec::new();
    let mut faults: Vec<(Fault, usize)> = Vec::new();
    let mut thread_instructions = 0;
    let mut first = None;
    for (i, o) in outcomes.into_iter().enumerate() {
        let o = o?;
        thread_instructions += o.thread_instructions;
        for h in &o.hazards {
            match hazards.iter_mut().find(|(x, _)| x.key() == h.key()) {
                // The first schedule that showed it, unless a later one showed it graver.
                Some((x, at)) => {
                    if x.absorb(h.clone()) {
                        *at = i;
                    }
                }
                None => hazards.push((h.clone(), i)),
            }
        }
        if let Some(f) = &o.fault {
            if f.kind == FaultKind::Unsupported {
                return Err(api::Error::Unsupported(f.message.clone()));
            }
            if !faults.iter().any(|(x, _)| x.kind == f.kind && x.at == f.at) {
                faults.push((f.clone(), i));
            }
        }
        if first.is_none() {
            first = o.outcome;
        }
    }
    let Some(outcome) = first else {
        return Err(api::Error::InvalidLaunch(
            "--explore needs at least one schedule".into(),
        ));
    };
    Ok(Explored {
        run: p.report(outcome),
        schedules: scheds,
        hazards,
        faults,
        suppressed: Vec::new(),
        thread_instructions,
        partition: None,
    })
}

/// What exploration keeps of one schedule's run: its findings and count of instructions, and
/// the whole outcome of the first schedule only (the report's run).
struct Reduced {
    outcome: Option<Outcome>,
    hazards: Vec<Hazard>,
    fault: Option<Fault>,
    thread_instructions: u64,
}

impl Reduced {
    fn of(o: Outcome, keep: bool) -> Reduced {
        let mut r = Reduced {
            hazards: Vec::new(),
            fault: o.fault.clone(),
            thread_instructions: o.stats.thread_instructions,
            outcome: None,
        };
        if keep {
            r.hazards = o.hazards.clone();
            r.outcome = Some(o);
        } else {
            r.hazards = o.hazards;
        }
        r
    }
}

impl Explored {
    /// These results under `policy`: the hazards its rules match move to `suppressed`.
    pub fn with_policy(mut self, policy: crate::report::Policy) -> Explored {
        self.run = self.run.with_policy(policy);
        let mut all = std::mem::take(&mut self.hazards);
        all.append(&mut self.suppressed);
        all.sort_by_key(|(_, i)| *i);
        let run = &self.run;
        let (hidden, kept) = all
            .into_iter()
            .partition(|(h, _)| run.policy.suppresses(h.kind.as_str(), &run.locations(h)));
        self.hazards = kept;
        self.suppressed = hidden;
        self
    }

    /// Whether any schedule showed a hazard that fails under the policy, or a fault (exit 1).
    pub fn found(&self) -> bool {
        self.hazards.iter().any(|(h, _)| self.run.fails(h)) || !self.faults.is_empty()
    }

    fn schedule_text(&self, i: usize) -> String {
        let s = &self.schedules[i];
        format!(
            "schedule {} (--seed {} --latency {})",
            s.index, s.seed, s.latency
        )
    }

    /// The human report: every distinct hazard and fault, then a summary line.
    pub fn human(&self) -> String {
        let mut diags = Vec::new();
        for (h, i) in &self.hazards {
            let d = self.run.hazard_diag(h);
            let help = d.help.clone().unwrap_or_default();
            diags.push(d.help(format!("{help}\nfirst seen in {}", self.schedule_text(*i))));
        }
        for (f, i) in &self.faults {
            let d = self.run.fault_diag(f);
            let help = d.help.clone().map_or(String::new(), |h| format!("{h}\n"));
            diags.push(d.help(format!("{help}first seen in {}", self.schedule_text(*i))));
        }
        let mut out = if diags.is_empty() {
            String::new()
        } else {
            crate::diag::render(
                &diags,
                &self.run.compiled.name,
                &self.run.compiled.text,
                false,
            )
        };
        let n = match &self.partition {
            Some((p, total, _)) => format!(
                "share {} of {} ({} of {total} schedules)",
                p.index,
                p.count,
                self.schedules.len()
            ),
            None => format!("{} schedules", self.schedules.len()),
        };
        out.push_str(&crate::report::findings_summary(
            &[],
            self.suppressed.iter().map(|(h, _)| h),
        ));
        if !self.hazards.is_empty() || !self.faults.is_empty() {
            out.push_str(&format!(
                "{n}: {} distinct hazard{}{}, {} fault{}\n",
                self.hazards.len(),
                if self.hazards.len() == 1 { "" } else { "s" },
                crate::report::of_them_warnings(self.hazards.iter().map(|(h, _)| h)),
                self.faults.len(),
                if self.faults.len() == 1 { "" } else { "s" }
            ));
        } else {
            out.push_str(&format!(
                "{n}: no hazards ({} thread instructions)\n",
                self.thread_instructions
            ));
        }
        out
    }

    /// The contract's status over all schedules: a hazard in any schedule makes it `hazard`.
    pub fn status(&self) -> &'static str {
        let clean = !self.hazards.iter().any(|(h, _)| self.run.fails(h));
        match (clean, self.faults.first()) {
            (true, Some((f, _))) if f.kind == FaultKind::Deadlock => "deadlock",
            (false, _) => "hazard",
            (true, Some(_)) => "fault",
            (true, None) => "ok",
        }
    }

    /// A schedule (by position in `schedules`) as reports name it.
    fn schedule_json(&self, i: usize) -> serde_json::Value {
        let s = &self.schedules[i];
        serde_json::json!({ "index": s.index, "seed": s.seed, "latency": s.latency })
    }

    /// The SARIF 2.1.0 log: every distinct finding with the schedule that first showed it.
    pub fn sarif(&self) -> String {
        let sched = |i: usize| Some(serde_json::json!({ "schedule": self.schedule_json(i) }));
        let mut findings = Vec::new();
        for (h, i) in &self.hazards {
            findings.push(sarif::Finding {
                diag: self.run.hazard_diagnostic(h),
                properties: sched(*i),
                suppressed_by: None,
            });
        }
        for (f, i) in &self.faults {
            findings.push(sarif::Finding {
                diag: self.run.fault_diagnostic(f),
                properties: sched(*i),
                suppressed_by: None,
            });
        }
        for (h, i) in &self.suppressed {
            findings.push(sarif::Finding {
                diag: self.run.hazard_diagnostic(h),
                properties: sched(*i),
                suppressed_by: self.run.suppressed_by(h),
            });
        }
        sarif::log(&self.run.compiled.name, &findings)
    }

    /// The contract's JSON report, each diagnostic with the schedule that first showed it.
    pub fn json(&self) -> String {
        let sched = |i: usize| self.schedule_json(i);
        let mut diags = Vec::new();
        for (h, i) in &self.hazards {
            let mut v = self.run.hazard_json(h);
            v["schedule"] = sched(*i);
            diags.push(v);
        }
        for (f, i) in &self.faults {
            let mut v = self.run.fault_json(f);
            v["schedule"] = sched(*i);
            diags.push(v);
        }
        let status = self.status();
        let st = self.run.outcome.stats;
        let mut v = serde_json::json!({
            "status": status,
            "diagnostics": diags,
            "stats": { "thread_instructions": self.thread_instructions,
                       "warp_instructions": st.warp_instructions, "cycles": st.cycles,
                       "schedules": self.schedules.len() },
        });
        if !self.suppressed.is_empty() {
            v["suppressed"] =
                crate::report::suppressed_json(self.suppressed.iter().map(|(h, _)| h));
        }
        if let Some((p, total, plan)) = &self.partition {
            // What `ptxrun merge` needs beyond the report itself to rebuild the report of all
            // the schedules: the share, the policy's verdict on warnings, the hidden findings.
            let hidden: Vec<serde_json::Value> = self
                .suppressed
                .iter()
                .map(|(h, _)| {
                    let d = self.run.hazard_diagnostic(h);
                    let related = d.related.first().map_or(0, |r| r.line);
                    serde_json::json!([d.kind, d.line, d.column, related, d.count])
                })
                .collect();
            v["partition"] = serde_json::json!({
                "index": p.index, "count": p.count, "schedules": total,
                "deny_warnings": self.run.policy.deny_warnings, "suppressed": hidden,
                "plan": plan,
            });
        }
        format!("{v}\n")
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn schedules_cycle_through_the_models_then_the_seeds() {
        let s = schedules(7, 10, None);
        assert_eq!(
            s[0],
            Schedule {
                index: 0,
                seed: 10,
                latency: "immediate".into()
            }
        );
        assert_eq!(s[4].latency, "adversarial");
        assert_eq!(
            s[5],
            Schedule {
                index: 5,
                seed: 11,
                latency: "immediate".into()
            }
        );
        let f = schedules(3, 0, Some("fixed:9"));
        assert_eq!(f.iter().map(|s| s.seed).collect::<Vec<_>>(), vec![0, 1, 2]);
    }
}
