//! The `ptxrun` command line (`../shared/contract.md` "Commands"): argument parsing with clap,
//! each subcommand a thin layer over the launch-file runner (`runner.rs`), the schedule
//! explorer (`explore.rs`) and the facade, and the contract's exit codes: 0 clean, 1 kernel
//! fault or hazard, 2 bad input.

mod init;
mod interrupt;

use clap::{Parser, Subcommand, ValueEnum};
use std::ffi::OsString;
use std::io::IsTerminal;
use std::path::PathBuf;

/// `print!`, `println!`, `eprint!` and `eprintln!` that ignore a closed stream: `ptxrun ... | head`
/// must not panic (the std macros do when the reader has gone).
macro_rules! out {
    ($($t:tt)*) => {{ use std::io::Write as _; let _ = write!(std::io::stdout(), $($t)*); }};
}
macro_rules! outln {
    ($($t:tt)*) => {{ use std::io::Write as _; let _ = writeln!(std::io::stdout(), $($t)*); }};
}
macro_rules! err {
    ($($t:tt)*) => {{ use std::io::Write as _; let _ = write!(std::io::stderr(), $($t)*); }};
}
macro_rules! errln {
    ($($t:tt)*) => {{ use std::io::Write as _; let _ = writeln!(std::io::stderr(), $($t)*); }};
}

#[derive(Parser)]
#[command(
    name = "ptxrun",
    version,
    about = "Run NVIDIA PTX on any machine and find undefined behaviour in async-copy pipelines"
)]
struct Cli {
    /// Colour in diagnostics: auto (when stderr is a terminal), always, never.
    #[arg(long, value_enum, default_value_t = Color::Auto, global = true)]
    color: Color,
    #[command(subcommand)]
    command: Command,
}

/// How findings are judged: shared by `run`, `check` and `test`.
#[derive(clap::Args, Clone, Default)]
struct Findings {
    /// Make warnings fail the run (exit 1) as errors do.
    #[arg(long, value_enum, value_name = "WHAT")]
    deny: Vec<Deny>,
    /// Hide findings matching the rules in FILE (one per line: KIND or KIND:LOCATION, globs;
    /// LOCATION is a function name, PTXFILE:LINE or CUDAFILE:LINE). Hidden findings are counted.
    #[arg(long, value_name = "FILE")]
    suppressions: Vec<PathBuf>,
}

/// What a launch may read and how much it may take: shared by `run`, `check` and `test`.
#[derive(clap::Args, Clone, Default)]
struct Limits {
    /// Also let launch files read inputs (kernel, init and expected files) from DIR
    /// (repeatable); by default inputs must be inside the launch file's directory tree.
    #[arg(long, value_name = "DIR")]
    allow_path: Vec<PathBuf>,
    /// Stop a run after SECONDS of wall-clock time with a `timeout` fault (exit 1); for
    /// `check` and `test`, each run.
    #[arg(long, value_name = "SECONDS", value_parser = parse_seconds)]
    timeout: Option<std::time::Duration>,
    /// The memory a run may take (buffers, module variables, shared and local memory, the
    /// checker's shadow), e.g. 4G or 512M; more is exit 2 with what needed it. Default: 3/4 of
    /// the least of physical memory, `ulimit -v` and the cgroup limit.
    #[arg(long, value_name = "SIZE", value_parser = crate::mem::budget::parse_size)]
    memory_limit: Option<u64>,
    /// Interpret every instruction: do not compile straight runs of arithmetic to native code
    /// (the JIT). Outputs, reports and traces are the same either way.
    #[arg(long, conflicts_with = "jit_after")]
    no_jit: bool,
    /// Compile a straight run of arithmetic once the interpreter has run its instructions N
    /// times each on average (default 4000, about what compiling costs; 0 compiles at once);
    /// loads and stores count more, as they cost the interpreter more.
    #[arg(long, value_name = "N")]
    jit_after: Option<u32>,
}

fn parse_seconds(text: &str) -> Result<std::time::Duration, String> {
    let v: f64 = text
        .parse()
        .map_err(|_| format!("`{text}`: expected a number of seconds"))?;
    if !(0.001..=1e9).contains(&v) {
        return Err(format!("`{text}`: a timeout is 0.001 to 1e9 seconds"));
    }
    Ok(std::time::Duration::from_secs_f64(v))
}

impl Limits {
    /// Puts these limits (and the Ctrl-C flag) into run settings.
    fn apply(&self, s: &mut crate::runner::Settings) {
        s.allow_paths = self.allow_path.clone();
        s.timeout = self.timeout;
        s.memory_limit = self.memory_limit;
        if self.no_jit {
            s.jit = None;
        } else if let Some(n) = self.jit_after {
            s.jit = Some(n);
        }
        s.cancel = Some(interrupt::flag());
    }
}

#[derive(Clone, Copy, ValueEnum, PartialEq, Eq)]
enum Deny {
    /// Findings of severity `warning`.
    Warnings,
}

impl Findings {
    /// The policy these arguments ask for; a suppressions file that cannot be read or parsed
    /// is bad input.
    fn policy(&self) -> Result<crate::report::Policy, String> {
        let mut p = crate::report::Policy {
            deny_warnings: self.deny.contains(&Deny::Warnings),
            rules: Vec::new(),
        };
        for f in &self.suppressions {
            let name = f.display().to_string();
            let text = std::fs::read_to_string(f)
                .map_err(|e| format!("error: cannot read the suppressions file {name}: {e}"))?;
            p.add_suppressions(&text, &name)
                .map_err(|e| format!("error: {e}"))?;
        }
        for r in p.rules.iter().filter(|r| !r.kind_known()) {
            errln!(
                "warning: suppression `{}` names no kind ptxrun reports (the README's hazard table lists them); it hides nothing",
                r.text
            );
        }
        Ok(p)
    }
}

#[derive(Clone, Copy, ValueEnum)]
enum Color {
    Auto,
    Always,
    Never,
}

#[derive(Subcommand)]
enum Command {
    /// Lex, parse, lower and check PTX modules; exit 0 if all are valid, 2 otherwise.
    Parse {
        /// PTX files.
        #[arg(required = true)]
        files: Vec<PathBuf>,
        /// Print a representation of the module to stdout.
        #[arg(long, value_enum)]
        emit: Option<Emit>,
    },
    /// Run one launch: a launch file, a directory holding launch.toml, or a .ptx beside one.
    /// Exit 0 clean, 1 kernel fault, 2 bad input.
    Run(RunArgs),
    /// Run one launch under N schedules (scheduler seeds x latency models, adversarial included)
    /// in parallel and report every distinct hazard with the schedule that first showed it.
    /// Exit 0 no hazard, 1 hazards or faults found, 2 bad input.
    Check(CheckArgs),
    /// Write a launch.toml beside a .ptx from its kernel's parameters (every choice left to
    /// you is marked TODO). Exit 0 written, 2 otherwise (it never replaces a launch file).
    Init {
        /// The PTX module.
        kernel: PathBuf,
        /// The kernel (needed when the module has several entries).
        #[arg(long)]
        entry: Option<String>,
        /// Print the launch file instead of writing it.
        #[arg(long)]
        print: bool,
    },
    /// Combine the JSON reports of `check --partition M/N --format json` (every share, any
    /// order) into the report one unpartitioned `check` gives. Exit 0 no hazard, 1 hazards or
    /// faults found, 2 reports that do not fit together.
    Merge {
        #[arg(required = true)]
        reports: Vec<PathBuf>,
    },
    /// Run every launch.toml under the paths and check its `[expect]`: one line per sample, then
    /// `N passed, M failed`. Exit 0 if all pass, 1 otherwise, 2 for bad options (an unwritable
    /// --junit file, a bad --suppressions file).
    Test(TestArgs),
}

// The options of `run`, `check` and `test` (their help text is the variant's doc comment).
#[derive(clap::Args)]
struct RunArgs {
    /// A launch file, a directory holding `launch.toml`, or a `.ptx` with a `launch.toml`
    /// beside it (`ptxrun init KERNEL.ptx` writes one).
    path: PathBuf,
    /// The kernel to launch (overrides the launch file's `entry`).
    #[arg(long)]
    entry: Option<String>,
    /// Scheduler seed: the same seed gives byte-identical outputs and reports.
    #[arg(long, default_value_t = 0)]
    seed: u64,
    /// Report format on stdout.
    #[arg(long, value_enum, default_value_t = Format::Human)]
    format: Format,
    /// Write `[outputs]` under this directory instead of beside the launch file.
    #[arg(long)]
    out_dir: Option<PathBuf>,
    /// Stop with a `step-limit` fault after this many warp instructions.
    #[arg(long, default_value_t = crate::runner::DEFAULT_MAX_STEPS)]
    max_steps: u64,
    /// Cycles the virtual clock charges per instruction (the clock drives %clock and stats).
    #[arg(long, default_value_t = 1)]
    instruction_cycles: u64,
    /// When asynchronous copies read, land and complete: immediate, fixed:N, uniform:LO-HI,
    /// bandwidth[:LATENCY,BYTES_PER_CYCLE] or adversarial.
    #[arg(long, default_value = crate::runner::DEFAULT_LATENCY)]
    latency: String,
    /// Write a trace of the run (warps, copies, waits, mbarriers, barriers) to FILE.
    #[arg(long, value_name = "FILE")]
    trace: Option<PathBuf>,
    /// Trace format: JSON Lines, or the Trace Event Format of Perfetto / chrome://tracing.
    #[arg(long, value_enum, default_value_t = TraceFormat::Jsonl)]
    trace_format: TraceFormat,
    /// Trace every executed instruction too.
    #[arg(long)]
    trace_instructions: bool,
    /// Do not check for hazards (faster): the happens-before analysis is off, and with it
    /// races, copy and proxy hazards, stores over live mbarriers and inconsistent barrier
    /// counts. What stops the run is still reported: faults, deadlocks, and the mbarrier
    /// operations an mbarrier rejects (uninitialized, arrival or tx-count out of range).
    #[arg(long)]
    no_check: bool,
    /// Threads to run clusters on (0: all cores). Outputs, reports and exit codes are the
    /// same for every N: clusters that touch each other's global bytes make the run fall
    /// back to one thread, as do --trace and device malloc.
    #[arg(long, default_value_t = 0, value_parser = parse_jobs)]
    jobs: usize,
    #[command(flatten)]
    findings: Findings,
    #[command(flatten)]
    limits: Limits,
}

#[derive(clap::Args)]
struct CheckArgs {
    /// A launch file, a directory holding `launch.toml`, or a `.ptx` with a `launch.toml`
    /// beside it.
    path: PathBuf,
    /// Number of schedules.
    #[arg(long, default_value_t = 16)]
    explore: usize,
    /// The kernel to launch (overrides the launch file's `entry`).
    #[arg(long)]
    entry: Option<String>,
    /// Only this latency model (default: the five standard models in turn).
    #[arg(long)]
    latency: Option<String>,
    /// First scheduler seed.
    #[arg(long, default_value_t = 0)]
    seed: u64,
    /// Report format on stdout.
    #[arg(long, value_enum, default_value_t = Format::Human)]
    format: Format,
    /// Stop a schedule with a `step-limit` fault after this many warp instructions.
    #[arg(long, default_value_t = crate::runner::DEFAULT_MAX_STEPS)]
    max_steps: u64,
    /// Worker threads (0: all cores).
    #[arg(long, default_value_t = 0, value_parser = parse_jobs)]
    jobs: usize,
    #[command(flatten)]
    findings: Findings,
    #[command(flatten)]
    limits: Limits,
    /// Also run the schedule that first showed a finding (or the first schedule) once more
    /// and write its trace to FILE.
    #[arg(long, value_name = "FILE")]
    trace: Option<PathBuf>,
    /// Trace format (see `run --help`).
    #[arg(long, value_enum, default_value_t = TraceFormat::Jsonl)]
    trace_format: TraceFormat,
    /// Write that schedule's `[outputs]` under DIR when it is clean.
    #[arg(long, value_name = "DIR")]
    out_dir: Option<PathBuf>,
    /// Run only share M of N of the schedules (schedule i when i mod N = M-1), for spreading
    /// one exploration over machines; `ptxrun merge` combines the shares' JSON reports.
    #[arg(long, value_name = "M/N", value_parser = crate::explore::Partition::parse)]
    partition: Option<crate::explore::Partition>,
}

#[derive(clap::Args)]
struct TestArgs {
    /// Files or directories: every `launch.toml` under them (directory links are not
    /// followed).
    #[arg(required = true)]
    paths: Vec<PathBuf>,
    /// Scheduler seed of every run.
    #[arg(long, default_value_t = 0)]
    seed: u64,
    /// Latency model for the asynchronous copies (see `run --help`).
    #[arg(long, default_value = crate::runner::DEFAULT_LATENCY)]
    latency: String,
    /// Threads each launch runs its clusters on (0: all cores; see `run --help`).
    #[arg(long, default_value_t = 0, value_parser = parse_jobs)]
    jobs: usize,
    #[command(flatten)]
    findings: Findings,
    #[command(flatten)]
    limits: Limits,
    /// Also write the results as JUnit XML to FILE (one test case per launch).
    #[arg(long, value_name = "FILE")]
    junit: Option<PathBuf>,
    /// Run only share M of N of the launches (every N-th, in path order), for CI matrices.
    #[arg(long, value_name = "M/N", value_parser = crate::explore::Partition::parse)]
    partition: Option<crate::explore::Partition>,
}

/// `--jobs N`: 0 (every core) to [`crate::api::MAX_JOBS`] threads; more would only spend the
/// time starting threads (a huge N never finished starting them).
fn parse_jobs(s: &str) -> Result<usize, String> {
    let max = crate::api::MAX_JOBS;
    match s.trim().parse::<usize>() {
        Ok(n) if n <= max => Ok(n),
        _ => Err(format!("must be 0 (every core) to {max} threads")),
    }
}

/// `--jobs 0` means every core; more threads than cores would only cost memory, so N is at
/// most the number of cores.
fn cores(jobs: usize) -> usize {
    let all = std::thread::available_parallelism().map_or(1, |n| n.get());
    match jobs {
        0 => all,
        n => n.min(all),
    }
}

#[derive(Clone, Copy, ValueEnum, PartialEq, Eq)]
enum Format {
    Human,
    Json,
    /// SARIF 2.1.0, for code-scanning services (GitHub, GitLab, Azure DevOps).
    Sarif,
}

#[derive(Clone, Copy, ValueEnum, PartialEq, Eq)]
enum TraceFormat {
    Jsonl,
    Chrome,
}

#[derive(Clone, Copy, ValueEnum)]
enum Emit {
    /// The lowered IR: decoded instructions, resolved operands, layouts.
    Ir,
}

/// Runs the command line on `args` (the first is the program name) and returns the exit code:
/// the `ptxrun` binary and the Python package's `ptxrun` command both call it.
pub fn main<I, T>(args: I) -> u8
where
    I: IntoIterator<Item = T>,
    T: Into<OsString> + Clone,
{
    let cli = match Cli::try_parse_from(args) {
        Ok(cli) => cli,
        Err(e) => {
            // --help and --version are "errors" that exit 0; usage errors exit 2.
            let _ = e.print();
            return u8::try_from(e.exit_code()).unwrap_or(2);
        }
    };
    let code = dispatch(cli);
    // Called from Python, no Rust runtime flushes stdout at exit.
    let _ = std::io::Write::flush(&mut std::io::stdout());
    code
}

fn dispatch(cli: Cli) -> u8 {
    let color = match cli.color {
        Color::Always => true,
        Color::Never => false,
        Color::Auto => std::io::stderr().is_terminal() && std::env::var_os("NO_COLOR").is_none(),
    };
    match cli.command {
        Command::Parse { files, emit } => parse(&files, emit, color),
        Command::Run(args) => run_command(args),
        Command::Test(args) => test_command(args),
        Command::Check(args) => check_command(args),
        Command::Merge { reports } => merge(&reports),
        Command::Init {
            kernel,
            entry,
            print,
        } => match init::run(&kernel, entry.as_deref(), print) {
            Ok(text) => {
                out!("{text}");
                0
            }
            Err(e) => {
                errln!("error: {}", e.trim_end());
                2
            }
        },
    }
}

/// `ptxrun run`.
fn run_command(a: RunArgs) -> u8 {
    let policy = match a.findings.policy() {
        Ok(p) => p,
        Err(e) => {
            errln!("{e}");
            return 2;
        }
    };
    let mut settings = crate::runner::Settings {
        entry: a.entry,
        seed: a.seed,
        max_steps: a.max_steps,
        instruction_cycles: a.instruction_cycles,
        out_dir: a.out_dir,
        write_outputs: true,
        latency: a.latency,
        trace: a.trace.is_some(),
        trace_instructions: a.trace_instructions,
        check: !a.no_check,
        fast: true,
        jobs: cores(a.jobs),
        policy,
        ..crate::runner::Settings::for_test(a.seed, crate::runner::DEFAULT_LATENCY)
    };
    a.limits.apply(&mut settings);
    let trace = a.trace;
    // Opened before the run: an unwritable path is known before any work is done (the
    // output directory is made first: a trace may go inside it).
    if let Some(d) = settings.out_dir.as_ref().filter(|_| trace.is_some()) {
        if let Err(e) = std::fs::create_dir_all(d) {
            errln!("error: cannot create {}: {e}", d.display());
            return 2;
        }
    }
    let trace_file = match trace.as_ref().map(|p| (p, std::fs::File::create(p))) {
        Some((p, Err(e))) => {
            errln!("error: cannot write the trace to {}: {e}", p.display());
            return 2;
        }
        Some((_, Ok(f))) => Some(f),
        None => None,
    };
    // The trace is written as the run makes it.
    let sink =
        trace_file.map(|f| crate::trace::TraceSink::new(f, a.trace_format == TraceFormat::Chrome));
    settings.trace_to = sink.clone();
    let _sigint = interrupt::Guard::install();
    match crate::runner::run(&a.path, &settings) {
        Err(e) => {
            err!("{}", e.0);
            if !e.0.ends_with('\n') {
                errln!();
            }
            2
        }
        Ok(done) => {
            if let (Some(path), Some(e)) = (&trace, sink.and_then(|s| s.error())) {
                errln!("error: cannot write the trace to {}: {e}", path.display());
                return 2;
            }
            print_run(&done, a.format, &settings)
        }
    }
}

/// Prints what `ptxrun run` did in `format`; the exit code.
fn print_run(
    done: &crate::runner::Finished,
    format: Format,
    settings: &crate::runner::Settings,
) -> u8 {
    match format {
        Format::Json => {
            out!("{}", done.outcome.stdout);
            out!("{}", done.json());
        }
        // The log must be the whole of stdout: the kernel's printf goes to stderr.
        Format::Sarif => {
            err!("{}", done.outcome.stdout);
            out!("{}", done.sarif());
        }
        Format::Human => {
            out!("{}", done.outcome.stdout);
            err!("{}", done.human());
            outln!("{}", summary(done, settings));
        }
    }
    if done.unsupported() || done.over_budget() {
        2
    } else {
        u8::from(done.failed())
    }
}

/// `ptxrun test`.
fn test_command(a: TestArgs) -> u8 {
    match a.findings.policy() {
        Ok(policy) => {
            let mut settings = crate::runner::Settings {
                jobs: cores(a.jobs),
                policy,
                ..crate::runner::Settings::for_test(a.seed, &a.latency)
            };
            a.limits.apply(&mut settings);
            let _sigint = interrupt::Guard::install();
            test(&a.paths, &settings, a.junit.as_deref(), a.partition)
        }
        Err(e) => {
            errln!("{e}");
            2
        }
    }
}

/// `ptxrun check`.
fn check_command(a: CheckArgs) -> u8 {
    let mut base = crate::runner::Settings::for_test(a.seed, "bandwidth");
    base.entry = a.entry;
    base.max_steps = a.max_steps;
    a.limits.apply(&mut base);
    let _sigint = interrupt::Guard::install();
    base.policy = match a.findings.policy() {
        Ok(p) => p,
        Err(e) => {
            errln!("{e}");
            return 2;
        }
    };
    let plan = Plan {
        n: a.explore,
        latency: a.latency,
        jobs: cores(a.jobs),
        partition: a.partition,
    };
    // The trace file is made before exploring: an unwritable path is known at once.
    let trace = match a.trace.map(|t| (std::fs::File::create(&t), t)) {
        Some((Err(e), t)) => {
            errln!("error: cannot write the trace to {}: {e}", t.display());
            return 2;
        }
        Some((Ok(f), t)) => Some((t, a.trace_format == TraceFormat::Chrome, f)),
        None => None,
    };
    let again = Again {
        trace,
        out_dir: a.out_dir,
    };
    check(&a.path, &base, &plan, a.format, &again)
}

/// What `run` did, on stdout in words a newcomer reads: whether the schedule it ran showed
/// anything, and which outputs were written where.
fn summary(done: &crate::runner::Finished, s: &crate::runner::Settings) -> String {
    let schedule = format!("seed {}, latency {}", s.seed, s.latency);
    let what = if done.unsupported() || done.over_budget() {
        "stopped".to_string()
    } else if done.outcome.fault.is_some() {
        "the kernel faulted (report above)".to_string()
    } else if done.failed() {
        format!("hazards found on the schedule it ran ({schedule}); report above")
    } else if !s.check {
        format!("ran without the hazard checker (--no-check; {schedule})")
    } else {
        format!("no hazards on the schedule it ran ({schedule}); `ptxrun check` tries more")
    };
    let outputs = if done.written.is_empty() {
        if done.launch.outputs.is_empty() {
            "no [outputs] to write".to_string()
        } else {
            "outputs not written (the run was not clean)".to_string()
        }
    } else {
        let names: Vec<String> = done
            .written
            .iter()
            .map(|p| p.display().to_string())
            .collect();
        format!("wrote {}", names.join(", "))
    };
    format!("ptxrun: {what}; {outputs}")
}

/// What `check --trace/--out-dir` asks of the schedule it runs again.
struct Again {
    /// The trace's path, whether in Chrome's format, and the file made for it.
    trace: Option<(PathBuf, bool, std::fs::File)>,
    out_dir: Option<PathBuf>,
}

impl Again {
    /// Runs the representative schedule of an exploration once more (the first that showed a
    /// finding, else the first), writing its trace and, when clean, its outputs.
    fn run(
        &self,
        path: &std::path::Path,
        base: &crate::runner::Settings,
        x: &crate::explore::Explored,
    ) -> Result<(), String> {
        if self.trace.is_none() && self.out_dir.is_none() {
            return Ok(());
        }
        let first = x
            .hazards
            .iter()
            .map(|(_, i)| *i)
            .chain(x.faults.iter().map(|(_, i)| *i))
            .min()
            .unwrap_or(0);
        let Some(s) = x.schedules.get(first) else {
            return Ok(());
        };
        let settings = crate::runner::Settings {
            seed: s.seed,
            latency: s.latency.clone(),
            trace: self.trace.is_some(),
            write_outputs: self.out_dir.is_some(),
            out_dir: self.out_dir.clone(),
            policy: base.policy.clone(),
            allow_paths: base.allow_paths.clone(),
            entry: base.entry.clone(),
            ..crate::runner::Settings::for_test(s.seed, &s.latency)
        };
        let sink = (self.trace.as_ref())
            .map(|(_, chrome, f)| {
                f.try_clone()
                    .map(|f| crate::trace::TraceSink::new(f, *chrome))
            })
            .transpose()
            .map_err(|e| format!("cannot write the trace: {e}"))?;
        let settings = crate::runner::Settings {
            trace_to: sink.clone(),
            ..settings
        };
        let done = crate::runner::run(path, &settings).map_err(|e| e.0)?;
        if let (Some((p, ..)), Some(e)) = (&self.trace, sink.and_then(|s| s.error())) {
            return Err(format!("cannot write the trace to {}: {e}", p.display()));
        }
        errln!(
            "schedule {} (seed {}, latency {}) again:{}{}",
            first,
            s.seed,
            s.latency,
            self.trace.as_ref().map_or(String::new(), |(p, ..)| format!(
                " trace in {}",
                p.display()
            )),
            match (&self.out_dir, done.written.is_empty()) {
                (None, _) => String::new(),
                (Some(_), true) => " outputs not written (not clean)".into(),
                (Some(d), false) => format!(" outputs under {}", d.display()),
            }
        );
        Ok(())
    }
}

/// Which schedules `check` runs.
struct Plan {
    n: usize,
    latency: Option<String>,
    jobs: usize,
    partition: Option<crate::explore::Partition>,
}

fn check(
    path: &std::path::Path,
    base: &crate::runner::Settings,
    plan: &Plan,
    format: Format,
    again: &Again,
) -> u8 {
    let n = plan.n;
    if n == 0 {
        errln!("error: --explore needs at least one schedule");
        return 2;
    }
    if n > crate::explore::MAX_SCHEDULES {
        errln!(
            "error: --explore {n}: at most {} (2^20) schedules",
            crate::explore::MAX_SCHEDULES
        );
        return 2;
    }
    let mut scheds = crate::explore::schedules(n, base.seed, plan.latency.as_deref());
    if let Some(p) = plan.partition {
        scheds.retain(|s| p.takes(s.index));
        if scheds.is_empty() {
            // Share 1 always holds schedule 0: `merge` takes what identifies the plan from it.
            let json = crate::report::merge::empty_share(p.index, p.count, n);
            match format {
                Format::Json => out!("{json}"),
                Format::Sarif => out!("{}", crate::report::sarif::log("", &[])),
                Format::Human => {
                    errln!(
                        "share {} of {}: none of the {n} schedules",
                        p.index,
                        p.count
                    )
                }
            }
            return 0;
        }
    }
    let (n, jobs) = (scheds.len(), plan.jobs);
    let bar = if std::io::stderr().is_terminal() {
        let b = indicatif::ProgressBar::new(n as u64);
        b.set_style(
            indicatif::ProgressStyle::with_template("{bar:40} {pos}/{len} schedules {elapsed}")
                .unwrap_or_else(|_| indicatif::ProgressStyle::default_bar()),
        );
        b
    } else {
        indicatif::ProgressBar::hidden()
    };
    let r = crate::explore::explore(path, base, scheds, jobs, &|| bar.inc(1));
    bar.finish_and_clear();
    match r {
        Err(e) => {
            errln!("{}", e.0.trim_end());
            2
        }
        Ok(mut x) => {
            x.partition = plan.partition.map(|p| {
                let id = crate::explore::plan_json(&x.run, base, plan.n, plan.latency.as_deref());
                (p, plan.n, id)
            });
            match format {
                Format::Json => out!("{}", x.json()),
                Format::Sarif => out!("{}", x.sarif()),
                Format::Human => err!("{}", x.human()),
            }
            if let Err(e) = again.run(path, base, &x) {
                errln!("error: {e}");
                return 2;
            }
            if x.found() {
                1
            } else {
                0
            }
        }
    }
}

fn test(
    paths: &[PathBuf],
    settings: &crate::runner::Settings,
    junit: Option<&std::path::Path>,
    partition: Option<crate::explore::Partition>,
) -> u8 {
    use crate::report::junit::{self, Case, Outcome};
    use crate::runner::find_launches;
    if let Err(e) = crate::latency::parse(&settings.latency, settings.seed) {
        errln!("error: {e}");
        return 2;
    }
    // Created before the run, so an unwritable path is known at once.
    let mut junit_file = match junit.map(std::fs::File::create).transpose() {
        Ok(f) => f,
        Err(e) => {
            let path = junit.map(|p| p.display().to_string()).unwrap_or_default();
            errln!("error: cannot write the JUnit report to {path}: {e}");
            return 2;
        }
    };
    let all = find_launches(paths);
    let found = !all.is_empty();
    let launches: Vec<PathBuf> = all
        .into_iter()
        .enumerate()
        .filter(|(i, _)| partition.is_none_or(|p| p.takes(*i)))
        .map(|(_, l)| l)
        .collect();
    let (pass, fail, mut cases) = test_launches(&launches, settings);
    if !found {
        outln!("no launch.toml found");
        cases.push(Case {
            path: "no launch.toml found".into(),
            outcome: Outcome::Error(format!(
                "no launch.toml under {}",
                paths
                    .iter()
                    .map(|p| p.display().to_string())
                    .collect::<Vec<_>>()
                    .join(", ")
            )),
            seconds: 0.0,
        });
    } else if launches.is_empty() {
        outln!("no launch in this partition");
    }
    outln!("{pass} passed, {fail} failed");
    if let (Some(f), Some(path)) = (junit_file.as_mut(), junit) {
        if let Err(e) = std::io::Write::write_all(f, junit::xml(&cases).as_bytes()) {
            errln!(
                "error: cannot write the JUnit report to {}: {e}",
                path.display()
            );
            return 2;
        }
    }
    if fail == 0 && found {
        0
    } else {
        1
    }
}

/// Runs the launches one after another, printing each one's PASS or FAIL line, until all ran
/// or Ctrl-C asked to stop (one more failure): (passed, failed, their JUnit cases).
fn test_launches(
    launches: &[PathBuf],
    settings: &crate::runner::Settings,
) -> (usize, usize, Vec<crate::report::junit::Case>) {
    use crate::report::junit::{Case, Outcome};
    use crate::runner::{test_with, Verdict};
    let (mut pass, mut fail) = (0, 0);
    let mut cases = Vec::new();
    for l in launches {
        if interrupt::requested() {
            outln!("interrupted: the remaining launches were not run");
            fail += 1;
            break;
        }
        let dir = l.parent().unwrap_or(l).display().to_string();
        let t = std::time::Instant::now();
        let verdict = test_with(l, settings);
        let seconds = t.elapsed().as_secs_f64();
        let outcome = match verdict {
            Verdict::Pass => {
                pass += 1;
                outln!("PASS {dir} ({} ms)", t.elapsed().as_millis());
                Outcome::Pass
            }
            Verdict::Fail(m) => {
                fail += 1;
                outln!("FAIL {dir}: {m}");
                Outcome::Failure(m)
            }
            Verdict::Error(m) => {
                fail += 1;
                outln!("FAIL {dir}: {}", m.trim_end());
                Outcome::Error(m)
            }
        };
        cases.push(Case {
            path: dir,
            outcome,
            seconds,
        });
    }
    (pass, fail, cases)
}

fn merge(paths: &[PathBuf]) -> u8 {
    let mut reports = Vec::new();
    for p in paths {
        match std::fs::read_to_string(p) {
            Ok(t) => reports.push((p.display().to_string(), t)),
            Err(e) => {
                errln!("error: cannot read {}: {e}", p.display());
                return 2;
            }
        }
    }
    match crate::report::merge::merge(&reports) {
        Ok((json, found)) => {
            out!("{json}");
            u8::from(found)
        }
        Err(e) => {
            errln!("error: {e}");
            2
        }
    }
}

fn parse(files: &[PathBuf], emit: Option<Emit>, color: bool) -> u8 {
    let mut ok = true;
    for path in files {
        let name = path.display().to_string();
        let bytes = match std::fs::read(path) {
            Ok(b) => b,
            Err(e) => {
                errln!("error: cannot read {name}: {e}");
                ok = false;
                continue;
            }
        };
        let src = String::from_utf8_lossy(&bytes);
        match crate::ir::compile(&src) {
            Ok(module) => {
                for w in module.warnings() {
                    errln!("warning: {name}: {w}");
                }
                match emit {
                    Some(Emit::Ir) => out!("{}", crate::ir::print_module(&module)),
                    None => {
                        let instrs: usize = module.functions.iter().map(|f| f.code.len()).sum();
                        outln!(
                            "{name}: ok ({} functions, {instrs} instructions)",
                            module.functions.len()
                        );
                    }
                }
                // Nothing reads the module again: the process's exit frees it faster than
                // dropping a hundred thousand small allocations one by one would.
                std::mem::forget(module);
            }
            Err(diags) => {
                ok = false;
                err!("{}", crate::diag::render(&diags, &name, &src, color));
                let n = diags.len();
                errln!("{name}: {n} error{}", if n == 1 { "" } else { "s" });
            }
        }
    }
    if ok {
        0
    } else {
        2
    }
}
