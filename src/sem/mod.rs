//! Pure scalar semantics of the PTX instructions (PTX ISA 9.0 chapter 9.7 "Instructions"): each
//! instruction's meaning on bit patterns, written once as small functions of values, with no
//! machine state. Both execution paths call them: the per-lane handlers of `exec/alu.rs`,
//! `fp.rs`, `cvt.rs`, `video.rs` and the warp-wide fast forms of `exec/fast.rs`, which apply the
//! same functions over whole register rows; `exec/translate.rs` only chooses which path runs.
//! `int.rs` holds integer arithmetic and comparison, `bits.rs` bit manipulation and shifts,
//! `float.rs` floating-point arithmetic with rounding modes and the NVIDIA NaN rules, `cvt.rs`
//! conversions, `narrow.rs` the 8-bit and tf32 formats and `video.rs` the video instructions as
//! the H100 computes them. This module imports nothing from `exec`; it reads only `ir` types
//! (types, rounding modes, comparison operators, decoded forms).

pub(crate) mod bits;
pub(crate) mod cvt;
pub(crate) mod float;
pub(crate) mod int;
pub(crate) mod narrow;
pub(crate) mod video;
