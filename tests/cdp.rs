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
            .contains("more than 2048 device-side launches and copies pending")
            && f.message.contains("cudaLimitDevRuntimePendingLaunchCount"),
        "{}",
        f.message
    );
}

/// A device runtime call ptxrun does not answer (`cudaDeviceGetAttribute` on the device) stops
/// as unsupported, naming it.
#[test]
fn an_unanswered_device_runtime_call_is_unsupported() {
    let r = run_dir("tests/run/cdp_attribute");
    let f = r.outcome.fault.as_ref().expect("a fault");
    assert_eq!(f.kind, FaultKind::Unsupported, "{}", f.message);
    assert!(
        f.message.contains("`__cudaCDP2DeviceGetAttribute`"),
        "{}",
        f.message
    );
}

fn words(r: &Finished, name: &str) -> Vec<i32> {
    let b = r.outcome.global.by_name(name).expect(name);
    (b.data.chunks_exact(4))
        .map(|w| i32::from_le_bytes(w.try_into().unwrap()))
        .collect()
}

/// Device-side copies and fills run after their grid, in stream order; a copy of a kind the
/// device runtime refuses returns cudaErrorInvalidMemcpyDirection (21) and copies nothing, as on
/// an H200 (`docs/launch/cdp-memcpy.md`); `cudaGetErrorString` gives the device runtime's string.
#[test]
fn device_side_copies_fills_and_error_strings_run_as_measured() {
    let r = run_dir("tests/run/cdp_memcpy");
    assert!(r.outcome.fault.is_none(), "{:?}", r.outcome.fault);
    assert_eq!(words(&r, "dst"), [7, 8, 9, 10, 0]);
    assert_eq!(words(&r, "filled"), [0, 0, 0, -1]);
    assert_eq!(words(&r, "codes"), [0, 0, 21, 21]);
    let text = &r.outcome.global.by_name("text").expect("text").data;
    let end = text.iter().position(|&b| b == 0).unwrap();
    assert_eq!(&text[..end], b"invalid copy direction for memcpy");
    // A fill of a nonzero byte writes zeros on the H200: ptxrun stops rather than guess.
    let r = run_dir("tests/run/cdp_memset_nonzero");
    let f = r.outcome.fault.as_ref().expect("a fault");
    assert_eq!(f.kind, FaultKind::Unsupported, "{}", f.message);
    assert!(
        f.message.contains("cudaMemsetAsync of the byte 0x5a")
            && f.message.contains("writes zeros whatever the value"),
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

/// A module that copies on the device but launches no grid still runs its clusters on one
/// thread whatever `--jobs` says: the workers of a spread run do not run queued copies, and
/// their outputs once lacked them (`b` stayed zero with `--jobs 2`).
#[test]
fn device_side_copies_run_whatever_jobs_says() {
    let dir = Path::new("ptx-samples/hazards/cdp_copy_source_overwritten");
    let copied = |jobs: usize| {
        let s = Settings {
            jobs,
            check: false,
            ..Settings::for_test(0, "bandwidth")
        };
        let r = run(dir, &s).unwrap_or_else(|e| panic!("{}", e.0));
        assert!(r.outcome.fault.is_none(), "{:?}", r.outcome.fault);
        r.outcome.global.by_name("b").expect("b").data.clone()
    };
    let one = copied(1);
    assert!(one[4..].iter().any(|&b| b != 0), "the copies ran");
    assert_eq!(copied(4), one);
}

/// Completion known through a release/acquire pair is known: A then B in one CTA's NULL
/// stream, B publishes a flag, and a grid another CTA launched acquires it and reads what A
/// wrote; a grid tail-launched after its parent's child publishes, and a fire-and-forget grid
/// acquires and reads the child's writes. Both are clean (each was once reported as a race: a
/// grid's completion did not travel in clocks).
#[test]
fn finished_grids_are_known_through_release_and_acquire() {
    for dir in [
        "tests/run/cdp_stream_then_release",
        "tests/run/cdp_tail_then_release",
    ] {
        let r = run_dir(dir);
        assert!(r.outcome.fault.is_none(), "{dir}: {:?}", r.outcome.fault);
        assert!(
            r.outcome.hazards.is_empty(),
            "{dir}: {:?}",
            r.outcome.hazards
        );
        // The consumer saw the flag and read the data (0 * 7 + 1, plus 1).
        assert_eq!(words(&r, "out")[0], 2, "{dir}");
    }
}
