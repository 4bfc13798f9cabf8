//! Device-side launches (CUDA dynamic parallelism, `src/exec/cdp.rs`): child grids run after
//! the grid that launched them, with the parameters it wrote; what ptxrun does not run, and
//! launches beyond its bound, stop the run with a message. The golden samples
//! `ptx-samples/launch/cdp_*` compare whole runs with the GPU.

use ptxrun::api::FaultKind;
use ptxrun::launchfile::{run, Finished, Settings};
use std::path::Path;

fn run_dir(dir: &str) -> Finished {
    let s = Settings::for_test(0, "bandwidth");
    run(Path::new(dir), &s).unwrap_or_else(|e| panic!("{dir}: {}", e.0))
}

/// `child<<<(chunk + 63) / 64, 64>>>(x + blockIdx.x * chunk, chunk, blockIdx.x)` from each of
/// two CTAs: every element of the zeroed buffer becomes x * s + 1 = 1.
#[test]
fn a_child_grid_runs_with_the_arguments_its_parent_wrote() {
    let r = run_dir("tests/run/device_launch");
    assert!(r.outcome.fault.is_none(), "{:?}", r.outcome.fault);
    assert!(r.outcome.hazards.is_empty(), "{:?}", r.outcome.hazards);
    let x = r.outcome.global.by_name("x").expect("buffer x");
    let vals: Vec<f32> = (x.data.chunks_exact(4))
        .map(|b| f32::from_le_bytes(b.try_into().unwrap()))
        .collect();
    assert_eq!(vals.len(), 256);
    assert!(vals.iter().all(|&v| v == 1.0), "{vals:?}");
}

/// One thread launching 3000 grids: ptxrun queues them until the parent ends, and stops at
/// CUDA's default pending-launch count with a `resource-limit` fault that names it.
#[test]
fn launches_beyond_the_pending_bound_stop_with_a_limit() {
    let r = run_dir("tests/run/cdp_pending");
    let f = r.outcome.fault.as_ref().expect("a fault");
    assert_eq!(f.kind, FaultKind::Limit, "{}", f.message);
    assert!(
        f.message
            .contains("more than 2048 device-side launches pending")
            && f.message.contains("cudaLimitDevRuntimePendingLaunchCount"),
        "{}",
        f.message
    );
}

/// A device runtime call ptxrun does not answer (`cudaMemcpyAsync` on the device) stops as
/// unsupported, naming it.
#[test]
fn an_unanswered_device_runtime_call_is_unsupported() {
    let r = run_dir("tests/run/cdp_memcpy");
    let f = r.outcome.fault.as_ref().expect("a fault");
    assert_eq!(f.kind, FaultKind::Unsupported, "{}", f.message);
    assert!(
        f.message.contains("`__cudaCDP2MemcpyAsync`"),
        "{}",
        f.message
    );
}

/// A launch nested deeper than the 30 levels an H100 ran without error stops as unsupported,
/// saying how deep (30 levels run: `ptx-samples/launch/cdp_deep`, and this kernel with limit 30).
#[test]
fn nesting_beyond_the_measured_depth_is_unsupported() {
    let r = run_dir("tests/run/cdp_too_deep");
    let f = r.outcome.fault.as_ref().expect("a fault");
    assert_eq!(f.kind, FaultKind::Unsupported, "{}", f.message);
    assert!(
        f.message.contains("a device-side launch nested 31 deep")
            && f.message.contains("(depth 30)"),
        "{}",
        f.message
    );
}
