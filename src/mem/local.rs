//! A thread's local memory (PTX ISA 9.0 section 5.1.5 "Local State Space"), allocated lazily: its
//! size grows with the call frames' `.local` variables, but bytes exist only in the pages the
//! thread has written. A page never written reads as zeros, which is what a fresh thread's
//! local memory holds, so a kernel declaring a large local array (512 KiB per thread, over a
//! 16-CTA cluster of 1024-thread CTAs: 8 GiB) costs only what it touches.

use super::MemFault;

/// Bytes of a page: the unit in which local memory comes into existence.
pub const PAGE: usize = 4096;

#[derive(Debug, Clone, Default)]
pub struct Local {
    /// Bytes the thread may access: the highest its frames have reached.
    len: u64,
    /// By page number, the pages written so far.
    pages: Vec<Option<Box<[u8]>>>,
    /// How many pages have been made (for the memory budget).
    made: usize,
}

impl Local {
    /// Lets the thread access `len` bytes (never less than before: a returning frame's bytes
    /// keep what it left in them).
    pub fn grow(&mut self, len: u64) {
        self.len = self.len.max(len);
    }

    /// Pages made so far, counted as they are made.
    pub fn made(&self) -> usize {
        self.made
    }

    /// The byte range of `n` bytes at `off`, if inside the thread's local memory.
    fn range(&self, off: u64, n: usize) -> Result<(usize, usize), MemFault> {
        match usize::try_from(off)
            .ok()
            .filter(|o| o.checked_add(n).is_some_and(|e| e as u64 <= self.len))
        {
            Some(o) => Ok((o, o + n)),
            None => Err(MemFault {
                message: format!(
                    "{n}-byte local access at offset {off:#x} is outside its {} bytes",
                    self.len
                ),
            }),
        }
    }

    /// Reads `out.len()` bytes at `off`.
    pub fn read(&self, off: u64, out: &mut [u8]) -> Result<(), MemFault> {
        let (start, end) = self.range(off, out.len())?;
        let mut at = start;
        while at < end {
            let (p, o) = (at / PAGE, at % PAGE);
            let n = (PAGE - o).min(end - at);
            let dst = &mut out[at - start..at - start + n];
            match self.pages.get(p).and_then(Option::as_ref) {
                Some(page) => dst.copy_from_slice(&page[o..o + n]),
                None => dst.fill(0),
            }
            at += n;
        }
        Ok(())
    }

    /// Writes `data` at `off`, making the pages it touches.
    pub fn write(&mut self, off: u64, data: &[u8]) -> Result<(), MemFault> {
        let (start, end) = self.range(off, data.len())?;
        let mut at = start;
        while at < end {
            let (p, o) = (at / PAGE, at % PAGE);
            let n = (PAGE - o).min(end - at);
            if self.pages.len() <= p {
                self.pages.resize_with(p + 1, || None);
            }
            let made = &mut self.made;
            let page = self.pages[p].get_or_insert_with(|| {
                *made += 1;
                vec![0; PAGE].into_boxed_slice()
            });
            page[o..o + n].copy_from_slice(&data[at - start..at - start + n]);
            at += n;
        }
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    impl Local {
        /// Pages that hold bytes.
        fn pages(&self) -> usize {
            self.pages.iter().flatten().count()
        }
    }

    #[test]
    fn only_written_pages_exist_and_the_rest_reads_as_zeros() {
        let mut l = Local::default();
        l.grow(512 * 1024);
        assert_eq!(l.pages(), 0);
        l.write(PAGE as u64 - 2, &[1, 2, 3, 4]).unwrap();
        assert_eq!(l.pages(), 2, "a write across a page boundary");
        let mut out = [9u8; 8];
        l.read(PAGE as u64 - 4, &mut out).unwrap();
        assert_eq!(out, [0, 0, 1, 2, 3, 4, 0, 0]);
        let mut far = [9u8; 4];
        l.read(400 * 1024, &mut far).unwrap();
        assert_eq!(far, [0; 4]);
        assert_eq!(l.pages(), 2, "reads make nothing");
        let e = l.read(512 * 1024 - 2, &mut far).unwrap_err();
        assert_eq!(
            e.message,
            "4-byte local access at offset 0x7fffe is outside its 524288 bytes"
        );
        assert!(l.write(u64::MAX, &[0]).is_err());
    }
}
