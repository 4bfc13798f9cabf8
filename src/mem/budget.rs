//! The memory budget of a run (README "Budgets"): one limit for everything a launch makes
//! ptxrun hold — buffers and module variables, shared and local memory, the checker's shadow
//! memory — so that a launch asking for more ends with a message naming what needed the
//! memory (exit 2) instead of being killed by the system or aborting on a failed allocation.
//!
//! What is known before a run starts is checked against the limit at once (`api`); what grows
//! while it runs (shadow memory is made as the kernel touches memory) is charged to a
//! [`Meter`], which the scheduler looks at as it looks at cancellation. The default limit is
//! three quarters of the least of the machine's memory, the process's address-space limit
//! (`ulimit -v`) and its cgroup's memory limit.

use std::sync::atomic::{AtomicBool, AtomicU64, Ordering};
use std::sync::Mutex;

/// Bytes in human units for messages (`1.5 GiB`).
pub fn human(bytes: u64) -> String {
    const UNITS: [&str; 5] = ["bytes", "KiB", "MiB", "GiB", "TiB"];
    let mut v = bytes as f64;
    let mut u = 0;
    while v >= 1024.0 && u + 1 < UNITS.len() {
        v /= 1024.0;
        u += 1;
    }
    if u == 0 {
        format!("{bytes} bytes")
    } else {
        format!("{v:.1} {}", UNITS[u])
    }
}

/// A size as `--memory-limit` takes it: bytes, or a number with K, M, G or T (binary units,
/// optionally followed by `iB` or `B`).
pub fn parse_size(text: &str) -> Result<u64, String> {
    let t = text.trim();
    let split = t
        .find(|c: char| !(c.is_ascii_digit() || c == '.'))
        .unwrap_or(t.len());
    let (num, unit) = t.split_at(split);
    let shift = match unit.trim().to_ascii_uppercase().as_str() {
        "" | "B" => 0,
        "K" | "KB" | "KIB" => 10,
        "M" | "MB" | "MIB" => 20,
        "G" | "GB" | "GIB" => 30,
        "T" | "TB" | "TIB" => 40,
        _ => {
            return Err(format!(
                "`{text}`: expected a size such as 4G, 512M or 1048576"
            ))
        }
    };
    let v: f64 = num
        .parse()
        .map_err(|_| format!("`{text}`: expected a size such as 4G, 512M or 1048576"))?;
    let bytes = v * (1u64 << shift) as f64;
    if !(1.0..=(1u64 << 50) as f64).contains(&bytes) {
        return Err(format!("`{text}`: a memory limit is 1 byte to 1 PiB"));
    }
    Ok(bytes as u64)
}

/// The limit when none is given: 3/4 of the least of physical memory, `ulimit -v` and the
/// cgroup's `memory.max`.
pub fn default_limit() -> u64 {
    let mut least = physical_memory().unwrap_or(8 << 30);
    if let Some(a) = address_space_limit() {
        least = least.min(a);
    }
    if let Some(c) = cgroup_limit() {
        least = least.min(c);
    }
    least / 4 * 3
}

#[cfg(unix)]
fn physical_memory() -> Option<u64> {
    // SAFETY: sysconf has no preconditions; it returns -1 for an unknown name.
    let (pages, size) = unsafe {
        (
            libc::sysconf(libc::_SC_PHYS_PAGES),
            libc::sysconf(libc::_SC_PAGESIZE),
        )
    };
    (pages > 0 && size > 0).then(|| (pages as u64).saturating_mul(size as u64))
}

#[cfg(not(unix))]
fn physical_memory() -> Option<u64> {
    None
}

#[cfg(unix)]
fn address_space_limit() -> Option<u64> {
    let mut r = libc::rlimit {
        rlim_cur: 0,
        rlim_max: 0,
    };
    // SAFETY: getrlimit writes the struct it is given and nothing else.
    let ok = unsafe { libc::getrlimit(libc::RLIMIT_AS, &mut r) } == 0;
    (ok && r.rlim_cur != libc::RLIM_INFINITY).then_some(r.rlim_cur)
}

#[cfg(not(unix))]
fn address_space_limit() -> Option<u64> {
    None
}

/// cgroup v2 `memory.max` of this process's group (Linux containers and CI runners).
fn cgroup_limit() -> Option<u64> {
    let text = crate::files::read_capped(std::path::Path::new("/proc/self/cgroup"), 1 << 16)
        .ok()
        .and_then(|b| String::from_utf8(b).ok())?;
    let rel = text.lines().find_map(|l| l.strip_prefix("0::"))?;
    let file = std::path::Path::new("/sys/fs/cgroup")
        .join(rel.trim_start_matches('/'))
        .join("memory.max");
    let v = std::fs::read_to_string(file).ok()?;
    v.trim().parse().ok()
}

/// What a run may still allocate as it goes, shared by the threads of one run.
#[derive(Debug)]
pub struct Meter {
    limit: u64,
    used: AtomicU64,
    over: AtomicBool,
    /// What first went over the limit, for the message.
    what: Mutex<String>,
}

impl Default for Meter {
    fn default() -> Self {
        Meter::unlimited()
    }
}

impl Meter {
    /// A meter for a run whose fixed memory (`fixed` bytes) is already counted.
    pub fn new(limit: u64, fixed: u64) -> Meter {
        Meter {
            limit,
            used: AtomicU64::new(fixed),
            over: AtomicBool::new(false),
            what: Mutex::new(String::new()),
        }
    }

    /// A meter that never refuses (tests, and runs without a limit).
    pub fn unlimited() -> Meter {
        Meter::new(u64::MAX, 0)
    }

    pub fn limit(&self) -> u64 {
        self.limit
    }

    /// Bytes charged so far.
    pub fn used(&self) -> u64 {
        self.used.load(Ordering::Relaxed)
    }

    /// Takes `bytes` for `what` (named lazily); false, and the run is marked over its limit,
    /// when they do not fit. The caller then does without them (the run stops soon after).
    pub fn charge(&self, bytes: u64, what: impl FnOnce() -> String) -> bool {
        let before = self.used.fetch_add(bytes, Ordering::Relaxed);
        if before.saturating_add(bytes) <= self.limit {
            return true;
        }
        self.used.fetch_sub(bytes, Ordering::Relaxed);
        if !self.over.swap(true, Ordering::Relaxed) {
            if let Ok(mut w) = self.what.lock() {
                *w = format!(
                    "{} needed {} more, but {} of the memory limit of {} were in use",
                    what(),
                    human(bytes),
                    human(before),
                    human(self.limit)
                );
            }
        }
        false
    }

    /// Gives back bytes charged earlier.
    pub fn release(&self, bytes: u64) {
        let _ = self
            .used
            .fetch_update(Ordering::Relaxed, Ordering::Relaxed, |u| {
                Some(u.saturating_sub(bytes))
            });
    }

    /// Why the run went over its limit, once it has.
    pub fn exceeded(&self) -> Option<String> {
        if !self.over.load(Ordering::Relaxed) {
            return None;
        }
        Some(self.what.lock().map(|w| w.clone()).unwrap_or_default())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn sizes_parse_in_binary_units() {
        assert_eq!(parse_size("4G").unwrap(), 4 << 30);
        assert_eq!(parse_size("512MiB").unwrap(), 512 << 20);
        assert_eq!(parse_size("1.5g").unwrap(), 3 << 29);
        assert_eq!(parse_size("1000").unwrap(), 1000);
        assert!(parse_size("0").is_err());
        assert!(parse_size("4X").is_err());
        assert!(parse_size("").is_err());
        assert!(parse_size("99999999T").is_err());
    }

    #[test]
    fn a_meter_refuses_past_its_limit_and_says_what() {
        let m = Meter::new(100, 40);
        assert!(m.charge(60, || "a".into()));
        assert!(!m.charge(1, || "the shadow of `x`".into()));
        assert_eq!(m.used(), 100);
        assert!(m
            .exceeded()
            .unwrap()
            .starts_with("the shadow of `x` needed 1 bytes"));
        m.release(50);
        assert_eq!(m.used(), 50);
    }

    #[test]
    fn the_default_limit_is_below_physical_memory() {
        let l = default_limit();
        assert!(l > 0);
        if let Some(p) = physical_memory() {
            assert!(l < p);
        }
    }
}
