"""`ptxrun.cupy`: CuPy scripts run unchanged. The project's own hardware runner
(`scripts/hw-golden`, a CuPy RawModule script that produced the samples' golden outputs on an
H100) runs through `python -m ptxrun.cupy` and must reproduce every golden buffer; small
scripts cover the rest of the API."""

import re
import subprocess
import sys
import warnings

import numpy as np
import pytest

import ptxrun
import ptxrun.cupy as cp
from conftest import HW_CASES, ROOT, SAMPLES, read

# Samples launched through plain CuPy calls (hw-golden launches tensor maps through libcuda).
CUPY_SAMPLES = ["async", "bulk", "cluster", "core", "core2", "checker", "mbarrier", "matrix", "triton", "cvt", "numerics"]


def tolerated(line: str) -> bool:
    """A mismatch in a buffer whose launch file gives a tolerance (approximate instructions:
    hw-golden compares bit for bit, `ptxrun test` within the tolerance)."""
    import tomllib

    sample, buffer = [x.strip() for x in line.split("|")[:2]]
    with open(ROOT / sample / "launch.toml", "rb") as f:
        return buffer in tomllib.load(f).get("expect", {}).get("tolerance", {})


def test_the_hardware_runner_reproduces_the_h100_bytes_through_ptxrun_cupy():
    # Tensor-map parameters (Triton's host-side descriptors too) go through libcuda: left out.
    paths = [str(t.parent) for d in CUPY_SAMPLES for t in sorted((SAMPLES / d).glob("*/launch.toml"))
             if "tensormap = " not in t.read_text()]
    if HW_CASES.is_dir():
        paths.append(str(HW_CASES))
    r = subprocess.run(
        [sys.executable, "-m", "ptxrun.cupy", str(ROOT / "scripts" / "hw-golden"), "--check", *paths],
        capture_output=True, text=True, timeout=600,
    )
    summary = r.stdout.strip().splitlines()[-1]
    m = re.match(r"(\d+) match, (\d+) not matching", summary)
    assert m, r.stdout + r.stderr
    mismatched = [l for l in r.stdout.splitlines() if "MISMATCH" in l or "FAILED" in l]
    assert all(tolerated(l) for l in mismatched), mismatched
    assert len(mismatched) <= 8 and int(m.group(1)) >= 100, summary


SAXPY = SAMPLES / "async" / "hw_pipe2_saxpy"


def test_a_cupy_script_runs_unchanged():
    mod = cp.RawModule(code=(SAXPY / "kernel.ptx").read_text())
    k = mod.get_function("pipe2_saxpy")
    x = cp.asarray(read(SAXPY / "inputs" / "x.bin", np.int32))
    y = cp.asarray(read(SAXPY / "inputs" / "y.bin", np.int32))
    out = cp.zeros(3840, dtype=cp.int32)
    k((3,), (64,), (x, y, out, np.int32(-3), np.int32(5)), shared_mem=4096)
    cp.cuda.Device().synchronize()
    got = out.get()
    assert isinstance(got, np.ndarray) and got.dtype == np.int32 and out.shape == (3840,)
    assert out.nbytes == 3840 * 4 and cp.asnumpy(out).tobytes() == got.tobytes()
    assert np.array_equal(got, read(SAXPY / "expected" / "out.bin", np.int32))
    # Python ints are passed as 64-bit integers, of which a 4-byte parameter sees the low half.
    out2 = cp.empty_like(out)
    k((3,), (64,), (x, y, out2, -3, 5), shared_mem=4096)
    assert np.array_equal(out2.get(), got)
    assert cp.config.last_report.status == "ok"


def test_device_arrays_behave_like_cupy_arrays():
    a = cp.arange(12, dtype=cp.float32).reshape(3, 4)
    assert isinstance(a, cp.ndarray) and a.shape == (3, 4) and a.dtype == np.float32
    b = (a * 2 + 1)[1:]
    assert isinstance(b, cp.ndarray)
    np.testing.assert_array_equal(cp.asnumpy(b), (np.arange(12, dtype=np.float32).reshape(3, 4) * 2 + 1)[1:])
    assert float(cp.sum(a)) == 66.0
    cp.testing.assert_array_equal(cp.ones(3), np.ones(3))


def test_a_read_before_the_copy_completes_raises_at_the_kernel_call():
    d = SAMPLES / "hazards" / "cp_async_no_wait"
    k = cp.RawKernel((d / "kernel.ptx").read_text(), "cp_async_no_wait")
    x = cp.asarray(np.arange(256, dtype=np.int32))
    out = cp.zeros(256, dtype=cp.int32)
    with pytest.raises(ptxrun.HazardError) as e:
        k((2,), (128,), (x, out))
    assert "read-before-complete" in [dg.kind for dg in e.value.diagnostics]
    cp.config.check = False
    try:
        k((2,), (128,), (x, out))
    finally:
        cp.config.check = True


def test_a_python_float_for_a_float_parameter_warns_as_the_gpu_garbles_it():
    ptx = """.version 8.0
.target sm_80
.address_size 64
.visible .entry _Z5scalePff(.param .u64 p, .param .f32 s)
{
    .reg .b32 %r<3>;
    .reg .f32 %f<3>;
    .reg .b64 %rd<4>;
    ld.param.u64 %rd1, [p];
    ld.param.f32 %f1, [s];
    mov.u32 %r1, %tid.x;
    mul.wide.u32 %rd2, %r1, 4;
    add.s64 %rd3, %rd1, %rd2;
    ld.global.f32 %f2, [%rd3];
    mul.f32 %f2, %f2, %f1;
    st.global.f32 [%rd3], %f2;
    ret;
}
"""
    k = cp.RawModule(code=ptx).get_function("scale")  # the C++-mangled entry, by its name
    a = cp.ones(32, dtype=cp.float32)
    k((1,), (32,), (a, np.float32(3.0)))
    assert (a.get() == 3.0).all()
    with warnings.catch_warnings(record=True) as w:
        warnings.simplefilter("always")
        k((1,), (32,), (a, 2.0))
    assert any("low 4 bytes" in str(x.message) for x in w)
    # The low half of the double 2.0 is 0: the GPU multiplies by 0.0 too.
    assert (a.get() == 0.0).all()


def test_tensor_maps_mirror_cutensormapencodetiled():
    d = SAMPLES / "tensor" / "tile_load_dump"
    k = cp.RawModule(path=str(d / "kernel.ptx")).get_function("tile_load_dump")
    v1 = cp.asarray(read(d / "inputs" / "v1.bin", np.float32))
    g2 = cp.asarray(read(d / "inputs" / "g2.bin", np.float32))
    h = cp.asarray(read(d / "inputs" / "h.bin", np.float16))
    w = cp.asarray(read(d / "inputs" / "w.bin", np.uint32))
    c = cp.asarray(read(d / "inputs" / "c.bin", np.uint8))
    q = cp.asarray(read(d / "inputs" / "q.bin", np.float32))
    dump = cp.zeros(9216, dtype=cp.uint32)
    enc = cp.tensor_map_encode_tiled
    F32, F16, U32, U8 = 7, 6, 2, 0
    maps = [
        enc(F32, 1, v1, [100], [], [32], [1]),
        enc(F32, 2, g2, [50, 30], [256], [16, 8], [1, 1]),
        enc(F16, 2, h, [100, 40], [208], [64, 16], [1, 1], swizzle=3, l2_promotion=2),
        enc(F32, 2, g2, [50, 30], [256], [16, 8], [1, 1], swizzle=2),
        enc(U32, 2, w, [20, 20], [80], [8, 8], [1, 1], swizzle=1),
        enc(U8, 3, c, [37, 9, 6], [48, 432], [32, 4, 4], [1, 1, 1], l2_promotion=3),
        enc(np.float32, 5, q, [8, 3, 4, 2, 3], [32, 96, 384, 768], [4, 2, 2, 2, 2], [1] * 5),
        enc(U32, 2, w, [20, 20], [80], [8, 8], [1, 2]),
        enc(F32, 2, g2, [50, 30], [256], [8, 8], [1, 1], oob_fill=1),
    ]
    k((4, 2), (128,), (*maps, dump))
    assert np.array_equal(dump.get(), read(d / "expected" / "dump.bin", np.uint32))


def test_im2col_maps_mirror_cutensormapencodeim2col():
    d = SAMPLES / "tensor" / "im2col_conv"
    k = cp.RawModule(path=str(d / "kernel.ptx")).get_function("im2col_conv")
    x = cp.asarray(read(d / "inputs" / "x.bin", np.float32))
    w = cp.asarray(read(d / "inputs" / "w.bin", np.float32))
    out = cp.zeros(768, dtype=cp.float32)
    m = cp.tensor_map_encode_im2col(7, 4, x, [16, 8, 6, 2], [64, 512, 3072], [-1, -1], [-1, -1], 16, 32, [1] * 4)
    k((3,), (256,), (m, w, out))
    assert np.array_equal(out.get(), read(d / "expected" / "out.bin", np.float32))
    with pytest.raises(ValueError, match="pixel_box_lower_corner: 1 entries"):
        cp.tensor_map_encode_im2col(7, 4, x, [16, 8, 6, 2], [64, 512, 3072], [-1], [-1, -1], 16, 32, [1] * 4)


def _nvcc():
    import os
    import pathlib

    venv = pathlib.Path(os.environ.get("PTXRUN_CUDA_VENV", pathlib.Path.home() / ".cache/ptxrun/cuda-venv"))
    tool = venv / "bin" / "nvcc-path"
    if not tool.exists():
        return None
    return subprocess.run([str(tool)], capture_output=True, text=True).stdout.strip() + "/nvcc"


def test_cuda_source_is_compiled_with_nvcc_when_there_is_one(monkeypatch):
    nvcc = _nvcc()
    if nvcc is None:
        pytest.skip("no nvcc (CI installs it for the ptxas check: ~/.cache/ptxrun/cuda-venv)")
    monkeypatch.setenv("PTXRUN_NVCC", nvcc)
    code = r"""
extern "C" __global__ void axpy(float a, const float* x, float* y, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) y[i] = a * x[i] + y[i];
}
"""
    k = cp.RawKernel(code, "axpy")
    x = cp.arange(1000, dtype=cp.float32)
    y = cp.ones(1000, dtype=cp.float32)
    k((4,), (256,), (np.float32(2.0), x, y, np.int32(1000)))
    assert np.array_equal(y.get(), 2 * np.arange(1000, dtype=np.float32) + 1)
    # An out-of-bounds index (n larger than the arrays) is a fault naming the CUDA line.
    with pytest.raises(ptxrun.KernelFault):
        k((4,), (256,), (np.float32(2.0), x, y, np.int32(1024)))


def test_cuda_source_without_nvcc_says_what_is_needed(monkeypatch):
    monkeypatch.setenv("PTXRUN_NVCC", "")
    monkeypatch.setenv("PATH", "/nonexistent")
    with pytest.raises(RuntimeError, match="nvcc"):
        cp.RawModule(code='extern "C" __global__ void k() {}')
