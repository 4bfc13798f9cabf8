"""`ptxrun.triton`: Triton's tutorial kernels, compiled by Triton for sm_80 and sm_90 (no GPU
needed) and run by ptxrun, against NumPy models. Vector add and the int8 matmul are exact; the rest
are compared with float64 NumPy within a tolerance (their bit-exactness with the H100 is checked by
the golden samples in ptx-samples/triton)."""

import numpy as np
import pytest

pytest.importorskip("triton")

import ptxrun  # noqa: E402
import ptxrun.triton as pt  # noqa: E402
import triton.language as tl  # noqa: E402
from triton_kernels import _layer_norm_fwd_fused, add_kernel, matmul_kernel, softmax_kernel  # noqa: E402

TARGETS = [80, 90]


@pytest.mark.parametrize("target", TARGETS)
def test_vector_add_is_exact(target):
    rng = np.random.default_rng(target)
    n = 10_000  # not a multiple of the block: the masked tail matters
    x = rng.standard_normal(n, dtype=np.float32)
    y = rng.standard_normal(n, dtype=np.float32)
    out = np.zeros_like(x)
    r = pt.launch(add_kernel, lambda meta: ((n + meta["BLOCK_SIZE"] - 1) // meta["BLOCK_SIZE"],),
                  x, y, out, n, BLOCK_SIZE=1024, target=target)
    assert r.status == "ok"
    assert np.array_equal(out, x + y)
    # The same through Triton's launch syntax, on another schedule.
    out2 = np.zeros_like(x)
    pt.jit(add_kernel, target=target, latency="adversarial", seed=7)[(10,)](x, y, out2, n, BLOCK_SIZE=1024)
    assert np.array_equal(out2, out)


@pytest.mark.parametrize("target", TARGETS)
def test_softmax_matches_numpy(target):
    rng = np.random.default_rng(1)
    rows, cols = 48, 781
    a = rng.standard_normal((rows, cols), dtype=np.float32)
    o = np.zeros_like(a)
    r = pt.launch(softmax_kernel, (16,), o, a, a.strides[0] // 4, o.strides[0] // 4, rows, cols,
                  BLOCK_SIZE=1024, num_stages=2, num_warps=8, target=target)
    assert r.status == "ok"
    ref = np.exp(a.astype(np.float64) - a.max(1, keepdims=True))
    ref /= ref.sum(1, keepdims=True)
    np.testing.assert_allclose(o, ref, rtol=2e-6, atol=1e-9)


@pytest.mark.parametrize("target", TARGETS)
def test_layer_norm_matches_numpy(target):
    rng = np.random.default_rng(2)
    m, n = 12, 1000
    x = rng.standard_normal((m, n), dtype=np.float32)
    w = rng.random(n, dtype=np.float32)
    b = rng.random(n, dtype=np.float32)
    y = np.zeros_like(x)
    mean = np.zeros(m, np.float32)
    rstd = np.zeros(m, np.float32)
    r = pt.launch(_layer_norm_fwd_fused, (m,), x, y, w, b, mean, rstd, x.strides[0] // 4, n, 1e-5,
                  BLOCK_SIZE=1024, num_warps=8, target=target)
    assert r.status == "ok"
    x64 = x.astype(np.float64)
    mu = x64.mean(1)
    sd = 1 / np.sqrt(((x64 - mu[:, None]) ** 2).mean(1) + 1e-5)
    np.testing.assert_allclose(mean, mu, rtol=1e-5, atol=1e-6)
    np.testing.assert_allclose(rstd, sd, rtol=1e-5)
    np.testing.assert_allclose(y, (x64 - mu[:, None]) * sd[:, None] * w + b, rtol=1e-5, atol=1e-5)


def test_int8_matmul_on_the_tensor_cores_is_exact():
    # sm_80: cp.async, ldmatrix and mma.sync.m16n8k32.s8; integer sums are exact.
    rng = np.random.default_rng(3)
    m, n, k = 72, 40, 96
    a = rng.integers(-128, 128, (m, k), dtype=np.int8)
    b = rng.integers(-128, 128, (k, n), dtype=np.int8)
    c = np.zeros((m, n), np.int32)
    r = pt.launch(matmul_kernel, (2 * 2,), a, b, c, m, n, k, k, 1, n, 1, n, 1, BLOCK_SIZE_M=64,
                  BLOCK_SIZE_N=32, BLOCK_SIZE_K=32, GROUP_SIZE_M=2, IN_TYPE=tl.int8, OUT_TYPE=tl.int32,
                  target=80)
    assert r.status == "ok" and not r.diagnostics
    assert np.array_equal(c, a.astype(np.int64) @ b.astype(np.int64))


def test_f16_matmul_is_close_to_numpy():
    rng = np.random.default_rng(4)
    m, n, k = 64, 64, 64
    a = rng.standard_normal((m, k)).astype(np.float16)
    b = rng.standard_normal((k, n)).astype(np.float16)
    c = np.zeros((m, n), np.float16)
    pt.launch(matmul_kernel, (4,), a, b, c, m, n, k, k, 1, n, 1, n, 1, BLOCK_SIZE_M=32, BLOCK_SIZE_N=32,
              BLOCK_SIZE_K=32, GROUP_SIZE_M=2, IN_TYPE=tl.float16, OUT_TYPE=tl.float16, target=80)
    want = a.astype(np.float64) @ b.astype(np.float64)
    assert np.abs(c.astype(np.float64) - want).max() <= 0.02 * np.abs(want).max()


def test_a_kernel_fault_names_the_python_line():
    # An index past the end: the mask is wrong on purpose (n larger than the arrays).
    x = np.zeros(100, np.float32)
    with pytest.raises(ptxrun.KernelFault) as e:
        pt.launch(add_kernel, (1,), x, x.copy(), np.zeros_like(x), 1024, BLOCK_SIZE=1024, target=80)
    dg = e.value.diagnostics[-1]
    assert dg.kind == "out-of-bounds"
    assert dg.cuda and dg.cuda.endswith("triton_kernels.py:" + str(dg.cuda_line))


def test_device_tensor_descriptors_under_every_latency_model():
    """`tl.make_tensor_descriptor` for sm_90: maps built from zero bytes on the device (Triton's
    global scratch holds them), TMA loads with zero fill, wgmma, a clipped TMA store; checked."""
    from triton_modern import desc_matmul_kernel

    rng = np.random.default_rng(3)
    M, N, K = 200, 184, 136
    a = rng.standard_normal((M, K), dtype=np.float32).astype(np.float16)
    b = rng.standard_normal((N, K), dtype=np.float32).astype(np.float16)
    ref = a.astype(np.float64) @ b.astype(np.float64).T
    outs = []
    for latency in ("bandwidth", "adversarial"):
        c = np.zeros((M, N), np.float16)
        r = pt.launch(desc_matmul_kernel, (2, 2), a, b, c, M, N, K, BM=128, BN=128, BK=64, target=90,
                      latency=latency)
        assert r.status == "ok" and not r.diagnostics
        np.testing.assert_allclose(c.astype(np.float64), ref, rtol=2e-3, atol=2e-2)
        outs.append(c)
    assert np.array_equal(outs[0], outs[1])


@pytest.mark.parametrize("dtype", ["f16", "tf32"])
def test_host_tensor_descriptors(dtype):
    """`TensorDescriptor` arguments: Triton's launcher passes each as a CUtensorMap (the swizzle
    and box Triton compiled for), its shape and its strides; tiles cross the tensor's edges."""
    from triton_modern import host_desc_matmul_kernel

    rng = np.random.default_rng(4)
    M, N, K = 200, 184, 136
    np_t = np.float16 if dtype == "f16" else np.float32
    a = rng.standard_normal((M, K), dtype=np.float32).astype(np_t)
    b = rng.standard_normal((K, N), dtype=np.float32).astype(np_t)
    c = np.zeros((M, N), np.float32)
    tf32 = dtype == "tf32"
    descs = [pt.TensorDescriptor.from_array(a, [64, 32], round_f32_to_tf32=tf32),
             pt.TensorDescriptor.from_array(b, [32, 64], round_f32_to_tf32=tf32),
             pt.TensorDescriptor.from_array(c, [64, 64])]
    r = pt.launch(host_desc_matmul_kernel, (4, 3), *descs, K, BM=64, BN=64, BK=32, target=90)
    assert r.status == "ok" and not r.diagnostics
    ref = a.astype(np.float64) @ b.astype(np.float64)
    np.testing.assert_allclose(c, ref, rtol=1e-2 if tf32 else 1e-3, atol=5e-2 if tf32 else 1e-3)
    assert "cp.async.bulk.tensor" in pt.compile(host_desc_matmul_kernel, descs + [K],
                                                dict(BM=64, BN=64, BK=32)).ptx


def test_in_place_updates_of_blocks_smaller_than_the_cta_are_warnings():
    """With fewer elements than threads every warp loads each element and one warp stores it
    back: the other warps' loads race with that store, but their values are never used, so the
    races are `data-race` warnings (status `ok`; `HazardError` with `deny_warnings`). A scalar
    read-modify-write in one program is the same case. Results are exact."""
    from triton_modern import scale_inplace_kernel, ticket_kernel

    x = np.arange(200, dtype=np.float32) - 50
    want = x * 2 + 1
    for seed in range(4):
        y = x.copy()
        r = pt.launch(scale_inplace_kernel, (7,), y, 200, BLOCK=32, num_warps=4, target=90, seed=seed)
        assert r.status == "ok"
        assert r.diagnostics and {(d.kind, d.severity) for d in r.diagnostics} == {("data-race", "warning")}
        assert np.array_equal(y, want)
    counter, ticket = np.array([41], np.int32), np.zeros(1, np.int32)
    r = pt.launch(ticket_kernel, (1,), counter, ticket, num_warps=4, target=90)
    assert {(d.kind, d.severity) for d in r.diagnostics} == {("data-race", "warning")}
    assert (counter[0], ticket[0]) == (42, 41)
    with pytest.raises(ptxrun.HazardError):
        pt.launch(scale_inplace_kernel, (7,), x.copy(), 200, BLOCK=32, num_warps=4, target=90,
                  deny_warnings=True)


def test_histogram_bins_zeroed_by_two_warps_are_a_warning():
    """`tl.histogram` for sm_90: two warps zero each bin with nothing ordering them, a race of
    equal stores: reported as a `data-race` warning, which leaves the status `ok` (and fails
    with `deny_warnings`). The counts are exact."""
    from triton_modern import histogram_kernel

    rng = np.random.default_rng(5)
    n = 2500
    x = rng.integers(0, 64, n, dtype=np.int32)
    hist = np.zeros(64, np.int32)
    r = pt.launch(histogram_kernel, (3,), x, hist, n, BLOCK=1024, BINS=64, target=90)
    assert r.status == "ok"
    assert [(d.kind, d.severity) for d in r.diagnostics] == [("data-race", "warning")]
    # Each program also counts its masked-off tail as bin 0 (`other=0`).
    want = np.bincount(x, minlength=64).astype(np.int32)
    want[0] += 3 * 1024 - n
    assert np.array_equal(hist, want)
    with pytest.raises(ptxrun.HazardError):
        pt.launch(histogram_kernel, (3,), x, np.zeros(64, np.int32), n, BLOCK=1024, BINS=64, target=90,
                  deny_warnings=True)
