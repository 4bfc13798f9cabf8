"""Shared paths for the Python package's tests: the repository's samples and the hardware cases
beside the clone (when present)."""

import os
import pathlib

import pytest

ROOT = pathlib.Path(__file__).resolve().parents[2]
SAMPLES = ROOT / "ptx-samples"
HW_CASES = ROOT.parent / "shared" / "hw-cases"


@pytest.fixture
def samples() -> pathlib.Path:
    return SAMPLES


def read(path: pathlib.Path, dtype) -> "object":
    import numpy as np

    return np.fromfile(path, dtype=dtype)


os.environ.setdefault("TRITON_DEFAULT_FP_FUSION", "1")
