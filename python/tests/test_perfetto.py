"""`--trace-format chrome` imports into Perfetto's own trace processor (PyPI `perfetto`, which runs
trace_processor_shell) with no import error and with every event where ptxrun meant it: each
complete slice on the thread it names (none moved to Perfetto's overflow tracks for slices that
do not nest), each asynchronous operation an async slice in its CTA's process, each flow from an
issue slice to a wait slice. The trace processor binary is the one the package pins; where it
cannot be downloaded, PTXRUN_TRACE_PROCESSOR names one (those tests skip only when neither works;
the rules of Perfetto's JSON importer that the layout relies on are checked without it too)."""

import collections
import json
import os
import subprocess
import sys

import pytest

from conftest import SAMPLES

tp_api = pytest.importorskip("perfetto.trace_processor")

# (command, sample, extra flags, asynchronous operations, warps that never exit)
CASES = [
    ("run", "async/hw_pipe2_saxpy", ["--trace-instructions"], 60, 0),
    ("run", "bulk/warp_specialized_ring", [], 40, 0),
    ("run", "mbarrier/mbarrier_phases", ["--trace-instructions"], 0, 0),
    ("run", "tensor/tile_multicast", [], 4, 0),
    ("run", "matrix/wgmma_forms", [], 288, 0),
    ("check", "hazards/wrong_parity", [], 2, 4),
]


@pytest.fixture(scope="module")
def shell() -> str:
    path = os.environ.get("PTXRUN_TRACE_PROCESSOR")
    if path:
        return path
    from perfetto.trace_processor.platform import PlatformDelegate

    try:
        return PlatformDelegate().get_shell_path(bin_path=None)
    except Exception as e:  # the download of the pinned binary failed (no network, say)
        pytest.skip(f"Perfetto's trace_processor_shell could not be downloaded ({e}); "
                    "set PTXRUN_TRACE_PROCESSOR to a trace_processor_shell binary to run these tests")


def rows(tp, sql):
    """The rows of a query as tuples (its columns need distinct names)."""
    it = tp.query(sql)
    names = list(it.column_names)
    return [tuple(getattr(r, n) for n in names) for r in it]


def expected_layout(events):
    """What the file asks for: complete slices and instants per (process name, thread name) and
    category,
    async slices per process name, and flows."""
    procs = {e["pid"]: e["args"]["name"] for e in events if e["ph"] == "M" and e["name"] == "process_name"}
    threads = {(e["pid"], e["tid"]): e["args"]["name"] for e in events
               if e["ph"] == "M" and e["name"] == "thread_name"}
    slices = collections.Counter((procs[e["pid"]], threads[(e["pid"], e["tid"])], e["cat"])
                                 for e in events if e["ph"] in ("X", "i"))
    asyncs = collections.Counter(procs[e["pid"]] for e in events if e["ph"] == "b")
    ended = sum(e["ph"] == "e" for e in events)
    flows = sum(e["ph"] == "s" for e in events)
    assert flows == sum(e["ph"] == "f" for e in events)
    return slices, asyncs, ended, flows


def trace(cmd, sample, flags, stuck, tmp_path):
    path = tmp_path / "trace.json"
    r = subprocess.run([sys.executable, "-m", "ptxrun", cmd, str(SAMPLES / sample), "--trace", str(path),
                        "--trace-format", "chrome", *flags], capture_output=True, text=True)
    assert r.returncode == (1 if stuck else 0), r.stderr
    return path, json.loads(path.read_text())["traceEvents"]


@pytest.mark.parametrize("cmd,sample,flags,ops,stuck", CASES, ids=[f"{c[0]} {c[1]}" for c in CASES])
def test_chrome_trace_keeps_the_rules_of_perfettos_json_importer(cmd, sample, flags, ops, stuck, tmp_path):
    _, events = trace(cmd, sample, flags, stuck, tmp_path)
    # Perfetto replaces a tid of 0 by the pid: no event but metadata may use it.
    assert all(e["pid"] > 0 and e["tid"] > 0 for e in events if e["ph"] != "M")
    # Complete slices of one thread nest, taken as Perfetto takes them (by start, longer first).
    by_thread = collections.defaultdict(list)
    for e in events:
        if e["ph"] == "X":
            by_thread[(e["pid"], e["tid"])].append((e["ts"], -e["dur"]))
    for key, spans in by_thread.items():
        open_ends = []
        for ts, neg in sorted(spans):
            while open_ends and open_ends[-1] <= ts:
                open_ends.pop()
            assert not open_ends or ts - neg <= open_ends[-1], (key, ts, -neg)
            open_ends.append(ts - neg)
    # Copies: process-scoped ids, each begun once and ended at most once, after its start.
    begins = {(e["pid"], e["id2"]["local"]): e["ts"] for e in events if e["ph"] == "b"}
    ends = [((e["pid"], e["id2"]["local"]), e["ts"]) for e in events if e["ph"] == "e"]
    assert len(begins) == ops and len({k for k, _ in ends}) == len(ends)
    assert all(k in begins and begins[k] <= ts for k, ts in ends)
    # Flows end no earlier than they start, binding to the enclosing slice.
    starts = {e["id"]: e["ts"] for e in events if e["ph"] == "s"}
    for e in (e for e in events if e["ph"] == "f"):
        assert e["bp"] == "e" and starts[e["id"]] <= e["ts"]


@pytest.mark.parametrize("cmd,sample,flags,ops,stuck", CASES, ids=[f"{c[0]} {c[1]}" for c in CASES])
def test_chrome_trace_imports_into_perfetto_where_meant(cmd, sample, flags, ops, stuck, shell, tmp_path):
    path, events = trace(cmd, sample, flags, stuck, tmp_path)
    slices, asyncs, ended, flows = expected_layout(events)
    assert sum(asyncs.values()) == ops
    config = tp_api.TraceProcessorConfig(bin_path=shell)
    with tp_api.TraceProcessor(trace=str(path), config=config) as tp:
        problems = rows(tp, "select name, idx, severity, source, value from stats "
                            "where value > 0 and severity in ('error', 'data_loss')")
        assert problems == [], problems

        got = rows(tp, """select p.name as process, t.name as thread, s.category, count(*) as n from slice s
                          join thread_track tt on s.track_id = tt.id join thread t using (utid)
                          join process p using (upid) group by 1, 2, 3""")
        assert {(p, t, c): n for p, t, c, n in got} == dict(slices)

        got = rows(tp, """select p.name, count(*) as n from slice s join process_track pt on s.track_id = pt.id
                          join process p using (upid) where s.category = 'copy' group by 1""")
        assert dict(got) == dict(asyncs)
        assert rows(tp, "select count(*) as n from slice where category = 'copy' and dur >= 0") == [(ended,)]
        # Overlapping operations of one kind sit on tracks of their own: nothing nests.
        assert rows(tp, "select count(*) as n from slice where category = 'copy' and depth > 0") == [(0,)]

        # Every flow joins the slice of the instruction that issued an operation and a wait that
        # observed it (Perfetto draws it from whichever starts first: a wait can start before).
        ends = rows(tp, """select so.category as a, si.category as b, so.arg_set_id as x, si.arg_set_id as y
                           from flow f join slice so on f.slice_out = so.id join slice si on f.slice_in = si.id""")
        assert len(ends) == flows
        args = collections.defaultdict(set)
        for arg_set, key, value in rows(tp, "select arg_set_id, key, int_value from args "
                                            "where key = 'args.op' or key glob 'args.observed*'"):
            args[arg_set].add(value)
        for a, b, x, y in ends:
            assert {a, b} == {"issue", "wait"}, (a, b)
            issue, wait = (x, y) if a == "issue" else (y, x)
            assert args[issue] <= args[wait], (args[issue], args[wait])

        # Warps that never exit (a deadlock) still get a slice holding everything they did.
        got = rows(tp, "select count(*) as n from slice s join args a using (arg_set_id) "
                       "where s.category = 'warp' and a.key = 'args.exited'")
        assert got == [(stuck,)]
        assert rows(tp, """select count(*) as n from slice s join thread_track tt on s.track_id = tt.id
                           join thread t using (utid) where t.name like 'warp %' and t.name not like '%(overlap%'
                           and t.name not like '%instructions%' and s.depth = 0 and s.category != 'warp'""") == [(0,)]
