//! Cooperative launches (CUDA C++ Programming Guide, "Cooperative Groups: Grid Synchronization";
//! `cudaLaunchCooperativeKernel`): every CTA of the grid is resident at once, so CTAs may wait
//! for each other, as `this_grid().sync()` does. The driver refuses a grid larger than the GPU
//! holds (`cudaErrorCooperativeLaunchTooLarge`); this module says how many CTAs of a kernel an
//! H100 SXM holds, from what the PTX fixes. The scheduling side (the grid as one unit, the
//! workspace in `%envreg1:%envreg2`) is in `step.rs` and `ctx.rs`.

use super::config::Grid;
use super::layout::Layout;
use crate::ir::{FuncId, Module};
use crate::mem::Global;

/// Streaming multiprocessors of an H100 SXM5 (the GPU whose bytes ptxrun gives).
pub const SMS: u64 = 132;
/// Per SM on sm_90 (CUDA C++ Programming Guide, "Compute Capabilities", table 21): resident
/// CTAs, warps, 32-bit registers, shared memory (with the 1 KiB the driver reserves per CTA).
const CTAS_PER_SM: u64 = 32;
const WARPS_PER_SM: u64 = 64;
const REGS_PER_SM: u64 = 64 * 1024;
const SHARED_PER_SM: u64 = 228 * 1024;
const RESERVED_SHARED_PER_CTA: u64 = 1024;

/// The most CTAs of this launch an H100 holds at once, and what limits it. Registers count
/// only when the kernel declares `.maxnreg` (otherwise ptxas decides, after the PTX).
pub fn resident_ctas(m: &Module, entry: FuncId, grid: &Grid) -> (u64, &'static str) {
    let threads: u64 = grid.block.iter().map(|&d| u64::from(d)).product();
    let warps = threads.div_ceil(32).max(1);
    // Only the shared-memory size is wanted: variables go to a scratch memory.
    let shared = Layout::new(m, entry, &mut Global::new())
        .map_or(0, |l| l.cta_shared_bytes(grid.dynamic_shared_bytes))
        + RESERVED_SHARED_PER_CTA;
    let mut limits = vec![
        (CTAS_PER_SM, "CTAs per SM"),
        (WARPS_PER_SM / warps, "threads per SM"),
        (SHARED_PER_SM / shared, "shared memory per SM"),
    ];
    if let Some(n) = m.functions[entry.0 as usize].attrs.maxnreg {
        // Registers are allocated per warp in units of 256.
        let per_warp = (u64::from(n) * 32).next_multiple_of(256);
        limits.push((
            REGS_PER_SM / (per_warp * warps),
            "registers per SM (.maxnreg)",
        ));
    }
    let (per_sm, why) = limits
        .into_iter()
        .min_by_key(|l| l.0)
        .unwrap_or((0, "nothing"));
    (per_sm * SMS, why)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn grid(block: u32, dynamic_shared_bytes: u32) -> Grid {
        Grid {
            grid: [1, 1, 1],
            block: [block, 1, 1],
            dynamic_shared_bytes,
            cluster: [1, 1, 1],
            explicit_cluster: false,
            cooperative: None,
            objects: Vec::new(),
        }
    }

    #[test]
    fn residency_follows_the_tightest_limit() {
        let text = ".version 8.0\n.target sm_90\n.address_size 64\n.visible .entry k() { ret; }\n\
                    .visible .entry r() .maxnreg 128 { ret; }\n";
        let m = crate::api::Module::parse(text).unwrap();
        let m = m.ir();
        let (k, r) = (FuncId(0), FuncId(1));
        // 32 threads: 32 CTAs per SM.
        assert_eq!(resident_ctas(m, k, &grid(32, 0)), (32 * SMS, "CTAs per SM"));
        // 1024 threads: 2 per SM.
        assert_eq!(
            resident_ctas(m, k, &grid(1024, 0)),
            (2 * SMS, "threads per SM")
        );
        // 100 KiB of shared memory (+1 KiB reserved): 2 per SM.
        assert_eq!(
            resident_ctas(m, k, &grid(64, 100 * 1024)),
            (2 * SMS, "shared memory per SM")
        );
        // 128 registers x 256 threads = 32 Ki: 2 per SM.
        assert_eq!(
            resident_ctas(m, r, &grid(256, 0)),
            (2 * SMS, "registers per SM (.maxnreg)")
        );
    }
}
