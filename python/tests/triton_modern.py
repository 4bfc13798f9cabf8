"""Kernels written for ptxrun with the Triton 3.9 APIs real Triton code uses beyond the tutorials'
basics: tensor descriptors built on the device (`tl.make_tensor_descriptor`: tensormap.replace,
tensormap.cp_fenceproxy, TMA loads and stores, wgmma), Philox random numbers (`tl.rand`,
`tl.randn`), a spin lock of `atomic_cas`/`atomic_xchg` (the layer-norm backward's scheme),
programmatic dependent launch (`gdc_wait`/`gdc_launch_dependents`: griddepcontrol), scans
and sorts, `tl.histogram` and `tl.dot_scaled`, and in-place updates of blocks smaller than the
CTA (every warp loads an element, one stores it)."""

import triton
import triton.language as tl
from triton.language.extra.cuda import gdc_launch_dependents, gdc_wait


@triton.jit
def desc_matmul_kernel(a_ptr, b_ptr, c_ptr, M, N, K, BM: tl.constexpr, BN: tl.constexpr, BK: tl.constexpr):
    """C = A @ B^T in f16 (f32 accumulation); A is M x K, B is N x K, both row-major."""
    a_desc = tl.make_tensor_descriptor(a_ptr, shape=[M, K], strides=[K, 1], block_shape=[BM, BK])
    b_desc = tl.make_tensor_descriptor(b_ptr, shape=[N, K], strides=[K, 1], block_shape=[BN, BK])
    c_desc = tl.make_tensor_descriptor(c_ptr, shape=[M, N], strides=[N, 1], block_shape=[BM, BN])
    pm = tl.program_id(0)
    pn = tl.program_id(1)
    acc = tl.zeros((BM, BN), dtype=tl.float32)
    for k in range(0, K, BK):
        a = a_desc.load([pm * BM, k])
        b = b_desc.load([pn * BN, k])
        acc = tl.dot(a, b.T, acc)
    c_desc.store([pm * BM, pn * BN], acc.to(tl.float16))


@triton.jit
def dropout_kernel(x_ptr, out_ptr, noise_ptr, bits_ptr, n, p, seed, BLOCK: tl.constexpr):
    """Dropout with keep probability 1 - p, plus the normal and integer streams of the same seed."""
    offs = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)
    mask = offs < n
    x = tl.load(x_ptr + offs, mask=mask)
    keep = tl.rand(seed, offs) > p
    tl.store(out_ptr + offs, tl.where(keep, x / (1 - p), 0.0), mask=mask)
    tl.store(noise_ptr + offs, tl.randn(seed, offs), mask=mask)
    tl.store(bits_ptr + offs, tl.randint(seed, offs), mask=mask)


@triton.jit
def layer_norm_bwd_kernel(DX, DY, DW, DB, X, W, Mean, Rstd, Lock, stride, N, GROUP: tl.constexpr,
                          BLOCK: tl.constexpr):
    """dX of a layer norm, and partial dW/dB summed per group of rows under a spin lock."""
    row = tl.program_id(0)
    cols = tl.arange(0, BLOCK)
    mask = cols < N
    x = tl.load(X + row * stride + cols, mask=mask, other=0).to(tl.float32)
    dy = tl.load(DY + row * stride + cols, mask=mask, other=0).to(tl.float32)
    w = tl.load(W + cols, mask=mask).to(tl.float32)
    mean = tl.load(Mean + row)
    rstd = tl.load(Rstd + row)
    xhat = tl.where(mask, (x - mean) * rstd, 0.)
    wdy = tl.where(mask, w * dy, 0.)
    c1 = tl.sum(xhat * wdy, axis=0) / N
    c2 = tl.sum(wdy, axis=0) / N
    tl.store(DX + row * stride + cols, ((wdy - (xhat * c1 + c2)) * rstd).to(tl.float16), mask=mask)
    group = row % GROUP
    lock = Lock + group
    count = Lock + GROUP + group
    while tl.atomic_cas(lock, 0, 1) == 1:
        pass
    first = tl.load(count)
    pw = (dy * xhat).to(tl.float16)
    pb = dy.to(tl.float16)
    if first == 0:
        tl.atomic_xchg(count, 1)
    else:
        pw += tl.load(DW + group * N + cols, mask=mask)
        pb += tl.load(DB + group * N + cols, mask=mask)
    tl.store(DW + group * N + cols, pw, mask=mask)
    tl.store(DB + group * N + cols, pb, mask=mask)
    tl.debug_barrier()
    tl.atomic_xchg(lock, 0)


@triton.jit
def pdl_scale_kernel(x_ptr, y_ptr, n, BLOCK: tl.constexpr):
    """y = 2x, waiting for the grid before it and letting the next one start early."""
    gdc_wait()
    offs = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)
    mask = offs < n
    x = tl.load(x_ptr + offs, mask=mask)
    gdc_launch_dependents()
    tl.store(y_ptr + offs, x * 2, mask=mask)


@triton.jit
def scan_sort_kernel(x_ptr, sum_ptr, sorted_ptr, arg_ptr, BLOCK: tl.constexpr):
    """One block: prefix sums, a sort and an argmax (`tl.histogram` has a kernel of its own,
    `histogram_kernel`, whose equal stores the checker reports as a warning)."""
    offs = tl.arange(0, BLOCK)
    x = tl.load(x_ptr + offs)
    tl.store(sum_ptr + offs, tl.cumsum(x, axis=0))
    tl.store(sorted_ptr + offs, tl.sort(x))
    v, i = tl.max(x, axis=0, return_indices=True)
    tl.store(arg_ptr, i)
    tl.store(arg_ptr + 1, tl.argmin(x, axis=0))


@triton.jit
def host_desc_matmul_kernel(a_desc, b_desc, c_desc, K, BM: tl.constexpr, BN: tl.constexpr, BK: tl.constexpr):
    """C = A @ B through host-side tensor descriptors (TMA maps passed by value), as Triton's
    persistent-matmul and fused-attention tutorials pass them for sm_90."""
    pm = tl.program_id(0)
    pn = tl.program_id(1)
    acc = tl.zeros((BM, BN), dtype=tl.float32)
    for k in tl.range(0, K, BK, num_stages=3):
        a = a_desc.load([pm * BM, k])
        b = b_desc.load([k, pn * BN])
        acc = tl.dot(a, b, acc)
    c_desc.store([pm * BM, pn * BN], acc.to(c_desc.dtype))


@triton.jit
def persistent_matmul_kernel(a_desc, b_desc, c_desc, M, N, K, NUM_SMS: tl.constexpr, BM: tl.constexpr,
                             BN: tl.constexpr, BK: tl.constexpr):
    """C = A @ B^T, each program looping over output tiles (a persistent kernel, Triton's
    tutorial 09 shape): TMA loads into a multi-stage ring, wgmma, then an elected lane's TMA
    store, `cp.async.bulk.wait_group` and `bar.sync` before the next tile."""
    start = tl.program_id(0)
    tiles_m = tl.cdiv(M, BM)
    tiles_n = tl.cdiv(N, BN)
    for tile in tl.range(start, tiles_m * tiles_n, NUM_SMS, flatten=True):
        pm = tile // tiles_n
        pn = tile % tiles_n
        acc = tl.zeros((BM, BN), dtype=tl.float32)
        for k in range(0, K, BK):
            a = a_desc.load([pm * BM, k])
            b = b_desc.load([pn * BN, k])
            acc = tl.dot(a, b.T, acc)
        c_desc.store([pm * BM, pn * BN], acc.to(tl.float16))


@triton.jit
def histogram_kernel(x_ptr, hist_ptr, n, BLOCK: tl.constexpr, BINS: tl.constexpr):
    """Each program's histogram of its block of bin indices, added into one global histogram.
    For sm_90 Triton 3.9 zeroes the bins in shared memory from two warps, each storing 0 to
    every word with nothing ordering the two: a race in the memory model whose writes are equal
    (a `data-race` warning, not an error)."""
    offs = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)
    x = tl.load(x_ptr + offs, mask=offs < n, other=0)
    h = tl.histogram(x, BINS)
    tl.atomic_add(hist_ptr + tl.arange(0, BINS), h)


@triton.jit
def dot_scaled_kernel(a_ptr, a_scale_ptr, b_ptr, b_scale_ptr, c_ptr, BM: tl.constexpr, BN: tl.constexpr,
                      BK: tl.constexpr):
    """C = (A * 2^sa) @ (B * 2^sb) with e4m3 operands and e8m0 scales per 32 elements of K
    (microscaling, `tl.dot_scaled`); A is BM x BK, B is BK x BN, row-major bytes. For sm_90
    Triton upcasts the operands and passes the scales through shared memory in a layout that
    several warps store alike (equal writes, a `data-race` warning)."""
    rm = tl.arange(0, BM)
    rn = tl.arange(0, BN)
    rk = tl.arange(0, BK)
    rs = tl.arange(0, BK // 32)
    a = tl.load(a_ptr + rm[:, None] * BK + rk[None, :]).to(tl.float8e4nv, bitcast=True)
    b = tl.load(b_ptr + rk[:, None] * BN + rn[None, :]).to(tl.float8e4nv, bitcast=True)
    sa = tl.load(a_scale_ptr + rm[:, None] * (BK // 32) + rs[None, :])
    sb = tl.load(b_scale_ptr + rn[:, None] * (BK // 32) + rs[None, :])
    c = tl.dot_scaled(a, sa, "e4m3", b, sb, "e4m3")
    tl.store(c_ptr + rm[:, None] * BN + rn[None, :], c)


@triton.jit
def scale_inplace_kernel(x_ptr, n, BLOCK: tl.constexpr):
    """x = 2x + 1 in place. With BLOCK = 32 and 4 warps, every warp loads each element and only
    the warp that owns it stores it: the other warps' loads race with that store, but their
    values are never used (`data-race` warnings, not errors)."""
    offs = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)
    m = offs < n
    x = tl.load(x_ptr + offs, mask=m)
    tl.store(x_ptr + offs, x * 2.0 + 1.0, mask=m)


@triton.jit
def normalize_rows_inplace_kernel(x_ptr, n_cols, BLOCK: tl.constexpr):
    """Each row divided by its sum, in place, rows shorter than the CTA has threads: every warp
    loads and sums the row, one stores it."""
    row = tl.program_id(0)
    offs = tl.arange(0, BLOCK)
    m = offs < n_cols
    p = x_ptr + row * n_cols + offs
    x = tl.load(p, mask=m, other=0.0)
    tl.store(p, x / tl.sum(x, axis=0), mask=m)


@triton.jit
def ticket_kernel(counter_ptr, ticket_ptr):
    """One program takes a ticket: it reads the counter, stores it plus one and writes the
    ticket. Every thread loads the scalar, one thread stores it."""
    c = tl.load(counter_ptr)
    tl.store(counter_ptr, c + 1)
    tl.store(ticket_ptr, c)
