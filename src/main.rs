//! The `ptxrun` binary: the command line of [`ptxrun::cli`].

// mimalloc: the front end makes and frees a few small allocations per instruction, and the
// interpreter's reports and traces many more; glibc's allocator cost ~10 % of parsing time.
#[global_allocator]
static GLOBAL: mimalloc::MiMalloc = mimalloc::MiMalloc;

fn main() -> std::process::ExitCode {
    std::process::ExitCode::from(ptxrun::cli::main(std::env::args_os()))
}
