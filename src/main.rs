//! The `ptxrun` command line. Exit codes follow the contract: 0 valid, 2 invalid input.

use clap::{Parser, Subcommand, ValueEnum};
use std::io::IsTerminal;
use std::path::PathBuf;
use std::process::ExitCode;

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
}

#[derive(Clone, Copy, ValueEnum)]
enum Emit {
    /// The lowered IR: decoded instructions, resolved operands, layouts.
    Ir,
}

fn main() -> ExitCode {
    let cli = Cli::parse();
    let color = match cli.color {
        Color::Always => true,
        Color::Never => false,
        Color::Auto => std::io::stderr().is_terminal() && std::env::var_os("NO_COLOR").is_none(),
    };
    match cli.command {
        Command::Parse { files, emit } => parse(&files, emit, color),
    }
}

fn parse(files: &[PathBuf], emit: Option<Emit>, color: bool) -> ExitCode {
    let mut ok = true;
    for path in files {
        let name = path.display().to_string();
        let bytes = match std::fs::read(path) {
            Ok(b) => b,
            Err(e) => {
                eprintln!("error: cannot read {name}: {e}");
                ok = false;
                continue;
            }
        };
        let src = String::from_utf8_lossy(&bytes);
        match ptxrun::ir::compile(&src) {
            Ok(module) => match emit {
                Some(Emit::Ir) => print!("{}", ptxrun::ir::print_module(&module)),
                None => {
                    let instrs: usize = module.functions.iter().map(|f| f.code.len()).sum();
                    println!(
                        "{name}: ok ({} functions, {instrs} instructions)",
                        module.functions.len()
                    );
                }
            },
            Err(diags) => {
                ok = false;
                eprint!("{}", ptxrun::diag::render(&diags, &name, &src, color));
                let n = diags.len();
                eprintln!("{name}: {n} error{}", if n == 1 { "" } else { "s" });
            }
        }
    }
    if ok {
        ExitCode::SUCCESS
    } else {
        ExitCode::from(2)
    }
}
