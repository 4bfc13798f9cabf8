"""`--format sarif` validates against the official SARIF 2.1.0 schema (OASIS, draft-04 JSON
schema, tests/data/sarif-schema-2.1.0.json), for run and check, errors, warnings, suppressed
findings, faults and results located at CUDA lines through .loc."""

import json
import subprocess
import sys
from pathlib import Path

import jsonschema
import pytest

from conftest import SAMPLES

SCHEMA = json.loads((Path(__file__).resolve().parents[2] / "tests" / "data" / "sarif-schema-2.1.0.json").read_text())

CASES = [
    (["run", "hazards/plain_add_race"], 1),
    (["run", "checker/cas_loop_add"], 0),
    (["check", "checker/cas_loop_add", "--explore", "3", "--suppressions", "SUPP"], 0),
    (["check", "hazards/wrong_parity", "--explore", "2"], 1),
    (["run", "hazards/wgmma_no_proxy_fence"], 1),
    (["run", "checker/warp_reduce_syncwarp"], 0),
]


@pytest.mark.parametrize("args,code", CASES, ids=[" ".join(a[:2]) for a, _ in CASES])
def test_sarif_output_is_valid_sarif_2_1_0(args, code, tmp_path):
    supp = tmp_path / "ptxrun.supp"
    supp.write_text("data-race:cas_loop_add\n")
    argv = [str(SAMPLES / a) if i == 1 else (str(supp) if a == "SUPP" else a) for i, a in enumerate(args)]
    r = subprocess.run([sys.executable, "-m", "ptxrun", *argv, "--format", "sarif"], capture_output=True, text=True)
    assert r.returncode == code, r.stderr
    log = json.loads(r.stdout)
    jsonschema.Draft4Validator(SCHEMA, format_checker=jsonschema.Draft4Validator.FORMAT_CHECKER).validate(log)
    results = log["runs"][0]["results"]
    assert (len(results) > 0) == (args[1] != "checker/warp_reduce_syncwarp")
    rules = [x["id"] for x in log["runs"][0]["tool"]["driver"]["rules"]]
    assert all(rules[x["ruleIndex"]] == x["ruleId"] for x in results)
