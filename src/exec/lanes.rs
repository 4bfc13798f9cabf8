//! Lanes of a warp (PTX ISA 9.0 section 2.2 "Thread Hierarchy"): 32 lanes, sets of them as
//! bit masks, and the bit masks of values. The bottom of `exec/`, importing nothing.

/// Warps' worth of lanes.
pub const WARP: usize = 32;

/// The low `bits` bits set (all 64 from 64 on).
pub fn mask(bits: u32) -> u64 {
    if bits >= 64 {
        u64::MAX
    } else {
        (1u64 << bits) - 1
    }
}

/// The lanes of a mask, lowest first.
pub fn lanes(mut m: u32) -> impl Iterator<Item = usize> {
    std::iter::from_fn(move || {
        if m == 0 {
            None
        } else {
            let l = m.trailing_zeros() as usize;
            m &= m - 1;
            Some(l)
        }
    })
}
