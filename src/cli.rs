//! The `ptxrun` command line (`../shared/contract.md` "Commands"): argument parsing with clap,
//! each subcommand a thin layer over [`crate::runner`], [`crate::explore`] and the facade, and
//! the contract's exit codes: 0 clean, 1 kernel fault or hazard, 2 bad input.

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
    Run {
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
        /// Stop with a fault after this many warp instructions.
        #[arg(long, default_value_t = 1 << 32)]
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
        /// Do not check for hazards (faster; mbarrier misuse and deadlocks are still reported).
        #[arg(long)]
        no_check: bool,
        /// Threads to run clusters on (0: all cores). Outputs, reports and exit codes are the
        /// same for every N: clusters that touch each other's global bytes make the run fall
        /// back to one thread, as do --trace and device malloc.
        #[arg(long, default_value_t = 0)]
        jobs: usize,
    },
    /// Run one launch under N schedules (scheduler seeds x latency models, adversarial included)
    /// in parallel and report every distinct hazard with the schedule that first showed it.
    /// Exit 0 no hazard, 1 hazards or faults found, 2 bad input.
    Check {
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
        /// Stop a schedule with a fault after this many warp instructions.
        #[arg(long, default_value_t = 1 << 32)]
        max_steps: u64,
        /// Worker threads (0: all cores).
        #[arg(long, default_value_t = 0)]
        jobs: usize,
    },
    /// Run every launch.toml under the paths and check its `[expect]`: one line per sample, then
    /// `N passed, M failed`. Exit 0 if all pass, 1 otherwise.
    Test {
        #[arg(required = true)]
        paths: Vec<PathBuf>,
        #[arg(long, default_value_t = 0)]
        seed: u64,
        /// Latency model for the asynchronous copies (see `run --help`).
        #[arg(long, default_value = crate::runner::DEFAULT_LATENCY)]
        latency: String,
        /// Threads each launch runs its clusters on (0: all cores; see `run --help`).
        #[arg(long, default_value_t = 0)]
        jobs: usize,
    },
}

/// `--jobs 0` means every core.
fn cores(jobs: usize) -> usize {
    match jobs {
        0 => std::thread::available_parallelism().map_or(1, |n| n.get()),
        n => n,
    }
}

#[derive(Clone, Copy, ValueEnum, PartialEq, Eq)]
enum Format {
    Human,
    Json,
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
        Command::Run {
            path,
            entry,
            seed,
            format,
            out_dir,
            max_steps,
            instruction_cycles,
            latency,
            trace,
            trace_format,
            trace_instructions,
            no_check,
            jobs,
        } => {
            let settings = crate::runner::Settings {
                entry,
                seed,
                max_steps,
                instruction_cycles,
                out_dir,
                write_outputs: true,
                latency,
                trace: trace.is_some(),
                trace_instructions,
                check: !no_check,
                fast: true,
                jobs: cores(jobs),
            };
            match crate::runner::run(&path, &settings) {
                Err(e) => {
                    err!("{}", e.0);
                    if !e.0.ends_with('\n') {
                        errln!();
                    }
                    2
                }
                Ok(done) => {
                    if let Some(path) = &trace {
                        let text = done.trace_text(trace_format == TraceFormat::Chrome);
                        if let Err(e) = std::fs::write(path, text) {
                            errln!("error: cannot write the trace to {}: {e}", path.display());
                            return 2;
                        }
                    }
                    out!("{}", done.outcome.stdout);
                    if format == Format::Json {
                        out!("{}", done.json());
                    } else {
                        err!("{}", done.human());
                    }
                    if done.unsupported() {
                        2
                    } else {
                        u8::from(done.failed())
                    }
                }
            }
        }
        Command::Test {
            paths,
            seed,
            latency,
            jobs,
        } => test(&paths, seed, &latency, cores(jobs)),
        Command::Check {
            path,
            explore,
            entry,
            latency,
            seed,
            format,
            max_steps,
            jobs,
        } => {
            let mut base = crate::runner::Settings::for_test(seed, "bandwidth");
            base.entry = entry;
            base.max_steps = max_steps;
            check(&path, &base, explore, latency.as_deref(), jobs, format)
        }
    }
}

fn check(
    path: &std::path::Path,
    base: &crate::runner::Settings,
    n: usize,
    latency: Option<&str>,
    jobs: usize,
    format: Format,
) -> u8 {
    if n == 0 {
        errln!("error: --explore needs at least one schedule");
        return 2;
    }
    let scheds = crate::explore::schedules(n, base.seed, latency);
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
        Ok(x) => {
            if format == Format::Json {
                out!("{}", x.json());
            } else {
                err!("{}", x.human());
            }
            if x.found() {
                1
            } else {
                0
            }
        }
    }
}

fn test(paths: &[PathBuf], seed: u64, latency: &str, jobs: usize) -> u8 {
    use crate::runner::{find_launches, test_with, Settings, Verdict};
    if let Err(e) = crate::latency::parse(latency, seed) {
        errln!("error: {e}");
        return 2;
    }
    let settings = Settings {
        jobs,
        ..Settings::for_test(seed, latency)
    };
    let launches = find_launches(paths);
    let (mut pass, mut fail) = (0, 0);
    for l in &launches {
        let dir = l.parent().unwrap_or(l).display();
        let t = std::time::Instant::now();
        match test_with(l, &settings) {
            Verdict::Pass => {
                pass += 1;
                outln!("PASS {dir} ({} ms)", t.elapsed().as_millis());
            }
            Verdict::Fail(m) => {
                fail += 1;
                outln!("FAIL {dir}: {m}");
            }
            Verdict::Error(m) => {
                fail += 1;
                outln!("FAIL {dir}: {}", m.trim_end());
            }
        }
    }
    if launches.is_empty() {
        outln!("no launch.toml found");
    }
    outln!("{pass} passed, {fail} failed");
    if fail == 0 && !launches.is_empty() {
        0
    } else {
        1
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
