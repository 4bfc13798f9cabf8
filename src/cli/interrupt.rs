//! Ctrl-C on the command line: the first SIGINT asks the running launch to stop (an
//! `interrupted` fault, so nothing half-done is written and the report still prints); a second
//! one ends the process as usual. The handler only stores to an atomic flag, which the
//! scheduler looks at every few thousand instructions (`exec::config::CANCEL_EVERY`).

use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::{Arc, OnceLock};

static FLAG: OnceLock<Arc<AtomicBool>> = OnceLock::new();

/// The flag runs are given as their `cancel`.
pub fn flag() -> Arc<AtomicBool> {
    Arc::clone(FLAG.get_or_init(|| Arc::new(AtomicBool::new(false))))
}

/// Whether Ctrl-C was pressed.
pub fn requested() -> bool {
    FLAG.get().is_some_and(|f| f.load(Ordering::Relaxed))
}

#[cfg(unix)]
extern "C" fn on_sigint(_: libc::c_int) {
    if let Some(f) = FLAG.get() {
        f.store(true, Ordering::Relaxed);
    }
    // SAFETY: signal() is async-signal-safe; SIG_DFL makes the next Ctrl-C end the process.
    unsafe {
        libc::signal(libc::SIGINT, libc::SIG_DFL);
    }
}

/// The handler while a command runs; the previous one (Python's, when the command runs inside
/// the Python package) comes back when the guard is dropped.
pub struct Guard {
    #[cfg(unix)]
    previous: libc::sighandler_t,
}

impl Guard {
    pub fn install() -> Guard {
        flag();
        #[cfg(unix)]
        {
            let handler = on_sigint as extern "C" fn(libc::c_int) as libc::sighandler_t;
            // SAFETY: the handler only touches an initialised atomic and calls signal().
            let previous = unsafe { libc::signal(libc::SIGINT, handler) };
            Guard { previous }
        }
        #[cfg(not(unix))]
        Guard {}
    }
}

impl Drop for Guard {
    fn drop(&mut self) {
        #[cfg(unix)]
        // SAFETY: restores the handler that was installed before ours.
        unsafe {
            libc::signal(libc::SIGINT, self.previous);
        }
    }
}
