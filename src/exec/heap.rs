//! Device `printf`'s FIFO and device `malloc`'s heap, bounded as CUDA bounds them
//! (`cudaLimitPrintfFifoSize`, `cudaLimitMallocHeapSize`; CUDA C++ Programming Guide,
//! "Formatted Output" and "Dynamic Global Memory Allocation and Operations"). Plain state below
//! the machine; `printf.rs` and `devrt.rs` use it.

use super::config::PrintfTruncated;
use std::collections::BTreeMap;

/// Device `malloc` aligns its allocations (and so counts their sizes) to 16 bytes.
const MALLOC_ALIGN: u64 = 16;
/// Allocations a launch may make in all (each is an entry of global memory's table).
const MALLOC_CALLS: u64 = 1 << 16;

/// Device `printf` output, kept up to the FIFO's size.
#[derive(Debug, Default)]
pub(crate) struct Fifo {
    pub text: String,
    bytes: u64,
    /// Bytes of the calls dropped since the FIFO filled up.
    dropped: u64,
}

impl Fifo {
    pub fn new(bytes: u64) -> Fifo {
        Fifo {
            bytes,
            ..Fifo::default()
        }
    }

    /// One call's output: kept if it fits and nothing was dropped before it.
    pub(crate) fn push(&mut self, s: &str) {
        if self.dropped == 0 && (self.text.len() + s.len()) as u64 <= self.bytes {
            self.text.push_str(s);
        } else {
            self.dropped += s.len() as u64;
        }
    }

    /// Hands over what was kept, and what was dropped if anything was; the FIFO starts empty.
    pub fn take(&mut self) -> (String, Option<PrintfTruncated>) {
        let dropped = std::mem::take(&mut self.dropped);
        let truncated = (dropped > 0).then_some(PrintfTruncated {
            fifo_bytes: self.bytes,
            dropped_bytes: dropped,
        });
        (std::mem::take(&mut self.text), truncated)
    }
}

/// Device `malloc`'s heap: the bytes handed out, by allocation address.
#[derive(Debug, Default)]
pub(crate) struct Heap {
    bytes: u64,
    used: u64,
    live: BTreeMap<u64, u64>,
    /// Allocations made so far (each is a new global allocation, named by this count).
    pub made: u64,
}

impl Heap {
    pub fn new(bytes: u64) -> Heap {
        Heap {
            bytes,
            ..Heap::default()
        }
    }

    /// Whether `size` bytes fit now; if so they are counted as allocated at an address the
    /// caller then gives to [`Heap::made_at`].
    pub(crate) fn reserve(&mut self, size: u64) -> Option<u64> {
        let need = size.checked_next_multiple_of(MALLOC_ALIGN)?;
        if self.made >= MALLOC_CALLS || need > self.bytes - self.used {
            return None;
        }
        self.used += need;
        self.made += 1;
        Some(need)
    }

    pub(crate) fn made_at(&mut self, addr: u64, need: u64) {
        self.live.insert(addr, need);
    }

    /// `free`: whether `addr` was a live allocation, whose bytes are now available again.
    pub(crate) fn release(&mut self, addr: u64) -> bool {
        match self.live.remove(&addr) {
            Some(n) => {
                self.used -= n;
                true
            }
            None => false,
        }
    }
}
