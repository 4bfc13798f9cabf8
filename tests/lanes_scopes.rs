//! The checker's rules for lanes of one warp, for memory scopes and for stores of equal bytes
//! (README "Lanes of a warp are threads", "Memory scopes", severities), pinned on small
//! hand-written kernels: which synchronisation orders which lanes, which scopes let a release
//! reach an acquire, and which races of equal stores, or of reads whose value is never used,
//! are only warnings. Each kernel has a correct (or harmless) form and a broken one that must
//! be reported.

use ptxrun::api::Type;
use ptxrun::api::{Arg, Buffer, Launch, Module, Report, RunOptions};

/// Runs `body` (PTX instructions of an entry with one `.u64` parameter `buf`, its address in
/// `%rd1`, `%r1` = the thread's lane, `%r2` = its CTA, and a 256-byte shared array `s` at
/// `%r3`) on `grid` CTAs of `block` threads, with the checker.
fn run(body: &str, grid: u32, block: u32) -> Report {
    run_seeded(body, grid, block, 0)
}

/// [`run`] under scheduler seed `seed`.
fn run_seeded(body: &str, grid: u32, block: u32, seed: u64) -> Report {
    let ptx = format!(
        ".version 8.0\n.target sm_90\n.address_size 64\n\n\
         .visible .entry k(.param .u64 buf)\n{{\n\
         .reg .pred %p<8>;\n.reg .b32 %r<32>;\n.reg .b64 %rd<16>;\n\
         .shared .align 4 .b8 s[256];\n\
         ld.param.u64 %rd1, [buf];\ncvta.to.global.u64 %rd1, %rd1;\n\
         mov.u32 %r1, %laneid;\nmov.u32 %r2, %ctaid.x;\nmov.u32 %r3, s;\n\
         {body}\nret;\n}}\n"
    );
    let m = Module::parse(&ptx).unwrap_or_else(|e| panic!("{}\n{ptx}", e.message()));
    let launch = Launch {
        grid: [grid, 1, 1],
        block: [block, 1, 1],
        buffers: vec![Buffer {
            name: "buf".into(),
            ty: Type::U32,
            data: vec![0; 256],
        }],
        args: vec![Arg::buffer(0)],
        ..Launch::default()
    };
    m.kernel(None)
        .unwrap()
        .launch(
            &launch,
            &RunOptions {
                seed,
                ..RunOptions::default()
            },
        )
        .unwrap()
}

/// The (kind, severity, message) of each finding.
fn findings(r: &Report) -> Vec<(String, &'static str, String)> {
    r.diagnostics()
        .iter()
        .map(|d| (d.kind.clone(), d.severity, d.message.clone()))
        .collect()
}

/// Lane 0 stores `s[0]`, then `sync` runs, then lane 5 (and lane 20 where `far`) loads it and
/// stores what it read.
fn lane0_to(sync: &str, far: bool) -> Report {
    let body = format!(
        "setp.eq.u32 %p1, %r1, 0;\n\
         @%p1 st.shared.u32 [%r3], 7;\n\
         {sync}\n\
         setp.eq.u32 %p2, %r1, 5;\n\
         setp.eq.u32 %p3, %r1, 20;\n\
         @%p2 ld.shared.u32 %r10, [%r3];\n\
         @%p2 st.global.u32 [%rd1+20], %r10;\n\
         {far_load}",
        far_load = if far {
            "@%p3 ld.shared.u32 %r11, [%r3];\n@%p3 st.global.u32 [%rd1+80], %r11;"
        } else {
            ""
        }
    );
    run(&body, 1, 32)
}

#[test]
fn a_converged_warp_does_not_order_its_lanes() {
    let f = findings(&lane0_to("", false));
    assert_eq!(f.len(), 1, "{f:?}");
    assert_eq!((f[0].0.as_str(), f[0].1), ("data-race", "error"));
    assert!(f[0].2.contains("lane 0 of the same warp"), "{f:?}");
}

#[test]
fn warp_collectives_order_the_lanes_that_take_part() {
    for sync in [
        "bar.warp.sync -1;",
        "shfl.sync.idx.b32 %r20, %r1, 0, 31, -1;",
        "vote.sync.any.pred %p4, %p1, -1;",
        "redux.sync.add.u32 %r20, %r1, -1;",
        "match.any.sync.b32 %r20, %r1, -1;",
        "bar.sync 0;",
    ] {
        assert!(findings(&lane0_to(sync, true)).is_empty(), "{sync}");
    }
}

#[test]
fn a_partial_syncwarp_orders_only_its_lanes() {
    // Lanes 0-15 meet, lanes 16-31 meet apart: lane 5 is ordered after lane 0, lane 20 is not.
    let sync = "setp.lt.u32 %p5, %r1, 16;\n\
                @%p5 bar.warp.sync 65535;\n\
                @!%p5 bar.warp.sync -65536;";
    let f = findings(&lane0_to(sync, true));
    assert_eq!(f.len(), 1, "{f:?}");
    assert!(f[0].2.contains("lane 0 of the same warp"), "{f:?}");
    let r = lane0_to(sync, true);
    assert_eq!(r.diagnostics()[0].thread, [20, 0, 0]);
}

/// CTA 0 stores a payload word and publishes a flag with `publish`; CTA 1 reads the flag with
/// `read` until it is set, then loads the payload and stores it. The CTAs are in different
/// clusters.
fn flag(publish: &str, read: &str) -> Report {
    let body = format!(
        "setp.ne.u32 %p1, %r1, 0;\n\
         @%p1 bra DONE;\n\
         setp.eq.u32 %p2, %r2, 0;\n\
         @!%p2 bra READER;\n\
         st.global.u32 [%rd1+64], 42;\n\
         {publish}\n\
         bra DONE;\n\
         READER:\n\
         {read}\n\
         setp.eq.u32 %p3, %r10, 0;\n\
         @%p3 bra READER;\n\
         ld.global.u32 %r11, [%rd1+64];\n\
         st.global.u32 [%rd1+128], %r11;\n\
         DONE:"
    );
    run(&body, 2, 32)
}

#[test]
fn a_release_reaches_another_cta_only_at_gpu_scope() {
    let gpu = flag(
        "st.release.gpu.global.u32 [%rd1], 1;",
        "ld.acquire.gpu.global.u32 %r10, [%rd1];",
    );
    assert!(findings(&gpu).is_empty(), "{:?}", findings(&gpu));
    // Defaults: an atom without a scope is .gpu; a volatile load is .relaxed.sys (and reads
    // acquire in ptxrun: a missing acquire is not reported).
    let dflt = flag(
        "atom.release.global.exch.b32 %r12, [%rd1], 1;",
        "ld.volatile.global.u32 %r10, [%rd1];",
    );
    assert!(findings(&dflt).is_empty(), "{:?}", findings(&dflt));
    for (publish, read) in [
        (
            "st.release.cta.global.u32 [%rd1], 1;",
            "ld.acquire.gpu.global.u32 %r10, [%rd1];",
        ),
        (
            "st.release.gpu.global.u32 [%rd1], 1;",
            "ld.acquire.cta.global.u32 %r10, [%rd1];",
        ),
        (
            "st.release.cluster.global.u32 [%rd1], 1;",
            "ld.acquire.cluster.global.u32 %r10, [%rd1];",
        ),
    ] {
        let f = findings(&flag(publish, read));
        let payload: Vec<_> = f.iter().filter(|x| x.1 == "error").collect();
        assert_eq!(payload.len(), 1, "{publish} / {read}: {f:?}");
        assert!(payload[0].2.contains("scope"), "{f:?}");
        // The flag's own accesses are strong but not morally strong: warnings.
        assert!(f.iter().any(|x| x.1 == "warning"), "{f:?}");
    }
}

#[test]
fn a_fence_publishes_a_relaxed_write_at_the_narrower_scope() {
    let read = "ld.relaxed.gpu.global.u32 %r10, [%rd1];";
    let wide = flag("fence.sc.gpu;\nst.relaxed.gpu.global.u32 [%rd1], 1;", read);
    assert!(findings(&wide).is_empty(), "{:?}", findings(&wide));
    let narrow = flag("fence.sc.cta;\nst.relaxed.gpu.global.u32 [%rd1], 1;", read);
    let f = findings(&narrow);
    assert_eq!(f.len(), 1, "{f:?}");
    assert!(f[0].2.contains("(.gpu scope)"), "{f:?}");
}

#[test]
fn a_later_narrower_fence_takes_nothing_back() {
    let read = "ld.relaxed.gpu.global.u32 %r10, [%rd1];";
    let r = flag(
        "fence.sc.gpu;\nfence.acq_rel.cta;\nst.relaxed.gpu.global.u32 [%rd1], 1;",
        read,
    );
    assert!(findings(&r).is_empty(), "{:?}", findings(&r));
    // An acquire-only fence releases nothing.
    let r = flag(
        "fence.acquire.gpu;\nst.relaxed.gpu.global.u32 [%rd1], 1;",
        read,
    );
    assert_eq!(findings(&r).len(), 1, "{:?}", findings(&r));
}

/// The lanes of one converged group that name different member masks meet in different sets:
/// the two 16-lane tiles of `tiled_partition<16>` each get their own `redux.sync` sum, and a
/// tile does not wait for the other's lanes.
#[test]
fn each_member_set_gets_its_own_collective() {
    let body = "setp.lt.u32 %p1, %r1, 16;\n\
                selp.b32 %r4, 65535, -65536, %p1;\n\
                redux.sync.add.u32 %r5, %r1, %r4;\n\
                shl.b32 %r6, %r1, 2;\n\
                cvt.u64.u32 %rd2, %r6;\n\
                add.s64 %rd3, %rd1, %rd2;\n\
                st.global.u32 [%rd3], %r5;";
    let r = run(body, 1, 32);
    assert!(findings(&r).is_empty(), "{:?}", findings(&r));
    let out: Vec<u32> = r
        .buffer("buf")
        .unwrap()
        .chunks(4)
        .take(32)
        .map(|b| u32::from_le_bytes(b.try_into().unwrap()))
        .collect();
    // Lanes 0-15 sum 0..15 = 120; lanes 16-31 sum 16..31 = 376.
    assert_eq!(out, [[120u32; 16], [376u32; 16]].concat());
}

/// `body` under scheduler seeds 0-15, each run's findings as (kind, severity).
fn under_seeds(body: &str, block: u32) -> Vec<Vec<(String, &'static str)>> {
    (0..16)
        .map(|seed| {
            let r = run_seeded(body, 1, block, seed);
            findings(&r).into_iter().map(|f| (f.0, f.1)).collect()
        })
        .collect()
}

/// The warp's index in `%r5`.
const WARP: &str = "mov.u32 %r4, %tid.x;\nshr.u32 %r5, %r4, 5;\n";

/// Two warps zero the same shared words with nothing ordering them (Triton's `tl.histogram`
/// for sm_90): a race in the memory model that changes no value, a warning. Storing different
/// values is an error.
#[test]
fn equal_stores_race_as_a_warning() {
    let zero = format!(
        "{WARP}shl.b32 %r6, %r1, 2;\nadd.s32 %r7, %r3, %r6;\n\
         st.shared.u32 [%r7], 0;\nbar.sync 0;\nld.shared.u32 %r8, [%r7];"
    );
    for run in under_seeds(&zero, 64) {
        assert_eq!(run, [("data-race".to_string(), "warning")], "{run:?}");
    }
    let differ = zero.replace("st.shared.u32 [%r7], 0;", "st.shared.u32 [%r7], %r5;");
    for run in under_seeds(&differ, 64) {
        assert_eq!(run, [("data-race".to_string(), "error")], "{run:?}");
    }
    // A third warp storing other bytes races with both: an error in every order.
    let third = zero.replace(
        "st.shared.u32 [%r7], 0;",
        "setp.eq.u32 %p1, %r5, 2;\nselp.b32 %r9, 1, 0, %p1;\nst.shared.u32 [%r7], %r9;",
    );
    for run in under_seeds(&third, 96) {
        assert!(run.contains(&("data-race".to_string(), "error")), "{run:?}");
    }
    // One warp reads a word and stores `x | 1` over it (1: the word holds 0); another stores 1
    // too, unordered: its store can overtake the read, which then returns 1. An error, though
    // the bytes are equal.
    let overtaken = format!(
        "{WARP}setp.eq.u32 %p2, %r1, 0;\n\
         setp.eq.u32 %p1, %r5, 0;\nand.pred %p1, %p1, %p2;\n@%p1 st.shared.u32 [%r3], 0;\nbar.sync 0;\n\
         setp.eq.u32 %p3, %r5, 1;\nand.pred %p3, %p3, %p2;\n\
         @%p3 ld.shared.u32 %r11, [%r3];\nor.b32 %r12, %r11, 1;\n@%p3 st.shared.u32 [%r3], %r12;\n\
         setp.eq.u32 %p4, %r5, 2;\nand.pred %p4, %p4, %p2;\n@%p4 st.shared.u32 [%r3], 1;"
    );
    for run in under_seeds(&overtaken, 96) {
        assert!(run.contains(&("data-race".to_string(), "error")), "{run:?}");
    }
}

/// A read racing with a store of the bytes it reads returns them either way: a warning,
/// whichever of the two the schedule runs first.
#[test]
fn a_read_racing_with_an_equal_store_is_a_warning() {
    let body = format!(
        "{WARP}setp.eq.u32 %p1, %r5, 0;\nsetp.eq.u32 %p2, %r1, 0;\nand.pred %p3, %p1, %p2;\n\
         @%p3 st.shared.u32 [%r3], 5;\nbar.sync 0;\n\
         @%p3 ld.shared.u32 %r8, [%r3];\n\
         setp.eq.u32 %p4, %r5, 1;\nand.pred %p4, %p4, %p2;\n@%p4 st.shared.u32 [%r3], 5;"
    );
    for run in under_seeds(&body, 64) {
        assert_eq!(run, [("data-race".to_string(), "warning")], "{run:?}");
    }
}

/// A plain read-modify-write racing with an atomic add is a lost update even when its store
/// writes the value the atomic just made: an error under every schedule.
#[test]
fn a_lost_update_beside_an_atomic_stays_an_error() {
    let body = format!(
        "{WARP}setp.eq.u32 %p2, %r1, 0;\n\
         setp.eq.u32 %p1, %r5, 0;\nand.pred %p1, %p1, %p2;\n@%p1 st.shared.u32 [%r3], 0;\nbar.sync 0;\n\
         @%p1 atom.shared.add.u32 %r10, [%r3], 1;\n\
         setp.eq.u32 %p3, %r5, 1;\nand.pred %p3, %p3, %p2;\n\
         @%p3 ld.shared.u32 %r11, [%r3];\nadd.u32 %r11, %r11, 1;\n@%p3 st.shared.u32 [%r3], %r11;"
    );
    for run in under_seeds(&body, 64) {
        assert!(run.contains(&("data-race".to_string(), "error")), "{run:?}");
    }
}

/// Every warp loads the lane's word of `buf` and computes `2x + 1`; warp 0 stores it back, the
/// others do not (Triton's replicated elements: `x = tl.load(p); tl.store(p, f(x))` with fewer
/// elements than threads). The other warps' reads race with warp 0's store, but their value
/// reaches nothing they execute: a warning. `then` follows, run by every warp.
fn replicated(then: &str) -> String {
    format!(
        "{WARP}mul.wide.u32 %rd2, %r1, 4;\nadd.s64 %rd3, %rd1, %rd2;\n\
         ld.global.u32 %r8, [%rd3];\nmad.lo.u32 %r9, %r8, 2, 1;\n\
         setp.eq.u32 %p1, %r5, 0;\n@%p1 st.global.u32 [%rd3], %r9;\n{then}"
    )
}

#[test]
fn a_racy_read_whose_value_is_unused_is_a_warning() {
    // Found at the read or at the store, by the schedule: warnings, one or both.
    let warnings = |run: &[(String, &str)]| {
        !run.is_empty()
            && run
                .iter()
                .all(|f| (f.0.as_str(), f.1) == ("data-race", "warning"))
    };
    for run in under_seeds(&replicated(""), 128) {
        assert!(warnings(&run), "{run:?}");
    }
    // A scalar: every thread loads word 0, thread 0 stores it plus one.
    let scalar = format!(
        "{WARP}ld.global.u32 %r8, [%rd1];\nadd.s32 %r9, %r8, 1;\n\
         setp.eq.u32 %p1, %r4, 0;\n@%p1 st.global.u32 [%rd1], %r9;"
    );
    for run in under_seeds(&scalar, 128) {
        assert!(warnings(&run), "{run:?}");
    }
}

/// The value of a racy read that its warp stores, branches on or guards a store with is used:
/// an error, whether the race is found before or after the use (16 schedules).
#[test]
fn a_racy_read_whose_value_is_used_is_an_error() {
    let errors = |run: &[(String, &str)]| {
        !run.is_empty()
            && run
                .iter()
                .all(|f| (f.0.as_str(), f.1) == ("data-race", "error"))
    };
    let uses = [
        // Lane 0 of each other warp stores it to a word of its own.
        "shl.b32 %r10, %r5, 2;\ncvt.u64.u32 %rd4, %r10;\nadd.s64 %rd5, %rd1, %rd4;\n\
         setp.eq.u32 %p5, %r1, 0;\nsetp.ne.u32 %p6, %r5, 0;\nand.pred %p6, %p6, %p5;\n\
         @%p6 st.global.u32 [%rd5+128], %r9;",
        // They branch on it.
        "setp.eq.u32 %p2, %r8, 7;\n@%p2 bra DONE;\nadd.u32 %r11, %r4, 1;\nDONE:",
        // It guards a store (which never runs: a store not made is an effect too).
        "setp.eq.u32 %p3, %r9, 7;\n@%p3 st.global.u32 [%rd1+200], %r4;",
        // It addresses a load.
        "and.b32 %r12, %r8, 4;\ncvt.u64.u32 %rd6, %r12;\nadd.s64 %rd7, %rd1, %rd6;\n\
         ld.global.u32 %r13, [%rd7+128];",
    ];
    for then in uses {
        for run in under_seeds(&replicated(then), 128) {
            assert!(errors(&run), "{then}: {run:?}");
        }
    }
}

/// The shadow lets reads go: a warp's later read of a word takes its earlier one's bytes (merged
/// at the same epoch), a read ordered after another replaces it, and a word holds four. A store racing with
/// the read left must still count the reads let go: here one of those was stored (found by two
/// reviews). The store comes last: the others spin on relaxed flags (`s[1]`, a count in `s[2]`),
/// which order nothing. `%r8` is the used read, `%r9` the unused one.
#[test]
fn a_used_read_the_shadow_let_go_keeps_the_race_an_error() {
    let lane_word = "mul.wide.u32 %rd2, %r1, 4;\nadd.s64 %rd3, %rd1, %rd2;\n";
    // Warp 1 reads and stores, then reads again unused; warp 0 then stores.
    let merged = format!(
        "{WARP}{lane_word}setp.eq.u32 %p1, %r5, 0;\n@%p1 bra WRITER;\n\
         ld.shared.u32 %r8, [%r3];\nst.global.u32 [%rd3], %r8;\nld.shared.u32 %r9, [%r3];\n\
         st.relaxed.cta.shared.u32 [%r3+4], 1;\nbra END;\n\
         WRITER:\nld.relaxed.cta.shared.u32 %r10, [%r3+4];\nsetp.eq.u32 %p2, %r10, 0;\n\
         @%p2 bra WRITER;\nst.shared.u32 [%r3], 7;\nEND:"
    );
    // Warp 1 reads and stores; warps 2-5 then read unused (five reads of one word); warp 0
    // waits for them, then stores.
    let forgotten = format!(
        "{WARP}{lane_word}setp.eq.u32 %p1, %r5, 0;\n@%p1 bra WRITER;\n\
         setp.ne.u32 %p1, %r5, 1;\n@%p1 bra LATER;\n\
         ld.shared.u32 %r8, [%r3];\nst.global.u32 [%rd3], %r8;\n\
         st.relaxed.cta.shared.u32 [%r3+4], 1;\nbra END;\n\
         LATER:\nld.relaxed.cta.shared.u32 %r10, [%r3+4];\nsetp.eq.u32 %p2, %r10, 0;\n\
         @%p2 bra LATER;\nld.shared.u32 %r9, [%r3];\nsetp.eq.u32 %p2, %r1, 0;\n\
         @%p2 red.relaxed.cta.shared.add.u32 [%r3+8], 1;\nbra END;\n\
         WRITER:\nld.relaxed.cta.shared.u32 %r10, [%r3+8];\nsetp.lt.u32 %p3, %r10, 4;\n\
         @%p3 bra WRITER;\nst.shared.u32 [%r3], 7;\nEND:"
    );
    // As `merged`, with a release between the two reads (no longer one epoch).
    let released = merged.replace(
        "ld.shared.u32 %r9, [%r3];",
        "st.release.cta.shared.u32 [%r3+12], 1;\nld.shared.u32 %r9, [%r3];",
    );
    for (body, block) in [(&merged, 64), (&forgotten, 192), (&released, 64)] {
        for run in under_seeds(body, block) {
            assert!(run.contains(&("data-race".to_string(), "error")), "{run:?}");
        }
    }
}

/// A read held as unused whose value is what makes the run fail (here an address that
/// faults) is reported as an error with the fault.
#[test]
fn a_run_that_stops_makes_every_held_read_an_error() {
    let body = format!(
        "{WARP}setp.eq.u32 %p1, %r5, 0;\n@%p1 bra WRITER;\n\
         SPIN:\nld.relaxed.cta.shared.u32 %r10, [%r3+4];\nsetp.eq.u32 %p2, %r10, 0;\n\
         @%p2 bra SPIN;\nld.shared.u32 %r8, [%r3];\nmul.wide.u32 %rd2, %r8, 4;\n\
         add.s64 %rd3, %rd1, %rd2;\nst.global.u32 [%rd3], 1;\nbra END;\n\
         WRITER:\nst.shared.u32 [%r3], 0x70000000;\nst.relaxed.cta.shared.u32 [%r3+4], 1;\nEND:"
    );
    for seed in 0..8 {
        let r = run_seeded(&body, 1, 64, seed);
        let f = findings(&r);
        assert!(
            f.iter().all(|x| x.1 == "error") && f.iter().any(|x| x.0 == "data-race"),
            "{f:?}"
        );
    }
}
