"""Coverage census of Triton 3.9's code generation (docs/coverage-census.md): kernels written here
with the features real Triton code uses (device and host tensor descriptors, warp-specialised
persistent loops, fp8 and tf32x3 dots, dot_scaled, libdevice, atomics of every kind, scans and
sorts, Philox, PDL, inline asm, cache hints, printf and asserts, a causal attention) are compiled
by Triton for sm_90 and sm_80 (no GPU needed), and `ptxrun parse --emit ir` says which
instructions it cannot execute. Several of them run as golden samples (python/tests/triton_modern.py).

  python scripts/probes/triton_census.py OUTDIR target/release/ptxrun
"""
import os
import subprocess
import sys
import traceback

import triton
import triton.language as tl
from triton.backends.compiler import GPUTarget
from triton.language.extra import libdevice
from triton.language.extra.cuda import globaltimer, smid

# The kernels that are also golden samples live once, in python/tests/triton_modern.py.
sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "..", "python", "tests"))
from triton_modern import (desc_matmul_kernel as k_desc_matmul, dropout_kernel as k_dropout,  # noqa: E402
                           host_desc_matmul_kernel as k_host_desc_matmul, layer_norm_bwd_kernel as k_ln_bwd_dwdb,
                           pdl_scale_kernel as k_pdl)


@triton.jit
def k_persistent_ws(a_desc, b_desc, c_desc, M, N, K, NUM_SMS: tl.constexpr, BM: tl.constexpr, BN: tl.constexpr,
                    BK: tl.constexpr):
    start = tl.program_id(0)
    tiles_m = tl.cdiv(M, BM)
    tiles_n = tl.cdiv(N, BN)
    for tile in tl.range(start, tiles_m * tiles_n, NUM_SMS, flatten=True, warp_specialize=True):
        pm = tile // tiles_n
        pn = tile % tiles_n
        acc = tl.zeros((BM, BN), dtype=tl.float32)
        for k in range(0, K, BK):
            a = a_desc.load([pm * BM, k])
            b = b_desc.load([pn * BN, k])
            acc = tl.dot(a, b.T, acc)
        c_desc.store([pm * BM, pn * BN], acc.to(tl.float16))


@triton.jit
def k_fp8_matmul(a_ptr, b_ptr, c_ptr, M, N, K, sa, sb, BM: tl.constexpr, BN: tl.constexpr, BK: tl.constexpr):
    pm = tl.program_id(0)
    pn = tl.program_id(1)
    rm = pm * BM + tl.arange(0, BM)
    rn = pn * BN + tl.arange(0, BN)
    rk = tl.arange(0, BK)
    acc = tl.zeros((BM, BN), dtype=tl.float32)
    for k in range(0, K, BK):
        a = tl.load(a_ptr + rm[:, None] * K + (k + rk)[None, :])
        b = tl.load(b_ptr + (k + rk)[:, None] * N + rn[None, :])
        acc = tl.dot(a, b, acc)
    acc = acc * tl.load(sa) * tl.load(sb)
    tl.store(c_ptr + rm[:, None] * N + rn[None, :], acc.to(tl.bfloat16))


@triton.jit
def k_libdevice(x_ptr, y_ptr, n, BLOCK: tl.constexpr):
    offs = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)
    m = offs < n
    x = tl.load(x_ptr + offs, mask=m)
    y = libdevice.erf(x) + libdevice.tanh(x) + libdevice.pow(x, 2.5) + libdevice.exp(x) + libdevice.log1p(x)
    y += libdevice.atan2(x, 1.5) + libdevice.sinh(x) + libdevice.cbrt(x) + libdevice.rsqrt(x) + libdevice.fast_dividef(x, 3.0)
    y += libdevice.lgamma(x) + libdevice.erfinv(x * 0.5) + libdevice.fmod(x, 0.7) + libdevice.round(x) + libdevice.trunc(x)
    y += tl.exp(x) + tl.exp2(x) + tl.log(x) + tl.log2(x) + tl.sin(x) + tl.cos(x) + tl.sqrt(x) + tl.sqrt_rn(x)
    y += tl.div_rn(x, 3.0) + tl.fdiv(x, 7.0) + tl.erf(x) + tl.floor(x) + tl.ceil(x) + tl.sigmoid(x) + tl.fma(x, x, 1.0)
    tl.store(y_ptr + offs, y, mask=m)


@triton.jit
def k_libdevice_f64(x_ptr, y_ptr, n, BLOCK: tl.constexpr):
    offs = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)
    m = offs < n
    x = tl.load(x_ptr + offs, mask=m)
    y = libdevice.exp(x) + libdevice.log(x) + libdevice.sin(x) + libdevice.sqrt(x) + libdevice.pow(x, x)
    y += libdevice.tanh(x) + tl.exp(x) + x / 3.0
    tl.store(y_ptr + offs, y, mask=m)


@triton.jit
def k_atomics(x_ptr, acc_ptr, max_ptr, hist_ptr, n, BLOCK: tl.constexpr):
    offs = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)
    m = offs < n
    x = tl.load(x_ptr + offs, mask=m, other=0.0)
    tl.atomic_add(acc_ptr, tl.sum(x, axis=0))
    tl.atomic_max(max_ptr, tl.max(x, axis=0))
    tl.atomic_cas(hist_ptr + 9, 0, 1)
    tl.atomic_add(acc_ptr + 1 + (offs % 7), x, mask=m, sem="relaxed", scope="gpu")
    xi = x.to(tl.int32)
    tl.atomic_or(hist_ptr + (offs % 3), xi, mask=m)
    tl.atomic_min(hist_ptr + 4 + offs * 0, xi, mask=m, sem="release", scope="cta")
    tl.atomic_add(hist_ptr + 5 + (offs % 4), xi, mask=m, sem="acq_rel", scope="sys")


@triton.jit
def k_f16_atomics(x_ptr, acc_ptr, n, BLOCK: tl.constexpr):
    offs = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)
    m = offs < n
    x = tl.load(x_ptr + offs, mask=m, other=0.0)
    tl.atomic_add(acc_ptr + (offs % 64), x, mask=m)


@triton.jit
def k_scan_sort(x_ptr, y_ptr, z_ptr, h_ptr, BLOCK: tl.constexpr):
    offs = tl.arange(0, BLOCK)
    x = tl.load(x_ptr + offs)
    tl.store(y_ptr + offs, tl.cumsum(x, axis=0))
    tl.store(z_ptr + offs, tl.sort(x))
    xi = (x * 16).to(tl.int32) & 63
    tl.store(h_ptr + tl.arange(0, 64), tl.histogram(xi, 64))
    v, i = tl.max(x, axis=0, return_indices=True)
    tl.store(h_ptr + 64, i + v.to(tl.int32))
    tl.store(h_ptr + 65, tl.cumprod(xi, axis=0).sum())


@triton.jit
def k_misc(x_ptr, y_ptr, t_ptr, n, BLOCK: tl.constexpr):
    offs = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)
    m = offs < n
    x = tl.load(x_ptr + offs, mask=m, cache_modifier=".cg") + tl.load(x_ptr + offs, mask=m, eviction_policy="evict_last")
    y = tl.inline_asm_elementwise("mul.lo.u32 $0, $1, 3;", "=r,r", [x], dtype=tl.uint32, is_pure=True, pack=1)
    y = y + tl.umulhi(x, x) + (x >> 3) + tl.clamp(x, 1, 100)
    tl.store(y_ptr + offs, y, mask=m, cache_modifier=".wt")
    tl.store(t_ptr + tl.program_id(0), globaltimer() * 0 + smid().to(tl.int64) * 0)
    tl.device_assert(n > 0, "n must be positive")


@triton.jit
def k_print(x_ptr, n, BLOCK: tl.constexpr):
    offs = tl.arange(0, BLOCK)
    x = tl.load(x_ptr + offs, mask=offs < n)
    tl.device_print("x", x)


@triton.jit
def k_block_ptr(a_ptr, b_ptr, c_ptr, M, N, K, BM: tl.constexpr, BN: tl.constexpr, BK: tl.constexpr):
    pm = tl.program_id(0)
    pn = tl.program_id(1)
    rm = pm * BM + tl.arange(0, BM)
    rn = pn * BN + tl.arange(0, BN)
    rk = tl.arange(0, BK)
    acc = tl.zeros((BM, BN), dtype=tl.float32)
    for k in range(0, K, BK):
        a = tl.load(a_ptr + rm[:, None] * K + (k + rk)[None, :], mask=rm[:, None] < M, other=0.0)
        b = tl.load(b_ptr + (k + rk)[:, None] * N + rn[None, :], mask=rn[None, :] < N, other=0.0)
        acc += tl.dot(a, b, input_precision="tf32x3")
        acc += tl.dot(a, b, input_precision="ieee")
        acc += tl.dot(a, b, input_precision="tf32")
    tl.store(c_ptr + rm[:, None] * N + rn[None, :], acc, mask=(rm[:, None] < M) & (rn[None, :] < N))


@triton.jit
def k_splitk(a_ptr, b_ptr, c_ptr, M, N, K, BM: tl.constexpr, BN: tl.constexpr, BK: tl.constexpr):
    pm = tl.program_id(0)
    pn = tl.program_id(1)
    pk = tl.program_id(2)
    rm = pm * BM + tl.arange(0, BM)
    rn = pn * BN + tl.arange(0, BN)
    rk = pk * BK + tl.arange(0, BK)
    a = tl.load(a_ptr + rm[:, None] * K + rk[None, :])
    b = tl.load(b_ptr + rk[:, None] * N + rn[None, :])
    acc = tl.dot(a, b)
    tl.atomic_add(c_ptr + rm[:, None] * N + rn[None, :], acc)


@triton.jit
def k_attn(Q, K, V, O, sm_scale, N_CTX, HEAD: tl.constexpr, BM: tl.constexpr, BN: tl.constexpr, CAUSAL: tl.constexpr):
    start_m = tl.program_id(0)
    off = tl.program_id(1) * N_CTX * HEAD
    rm = start_m * BM + tl.arange(0, BM)
    rd = tl.arange(0, HEAD)
    q = tl.load(Q + off + rm[:, None] * HEAD + rd[None, :])
    m_i = tl.zeros([BM], dtype=tl.float32) - float("inf")
    l_i = tl.zeros([BM], dtype=tl.float32) + 1.0
    acc = tl.zeros([BM, HEAD], dtype=tl.float32)
    qk_scale = sm_scale * 1.44269504
    hi = (start_m + 1) * BM if CAUSAL else N_CTX
    for start_n in range(0, hi, BN):
        rn = start_n + tl.arange(0, BN)
        k = tl.load(K + off + rn[None, :] * HEAD + rd[:, None])
        qk = tl.dot(q, k)
        if CAUSAL:
            qk = tl.where(rm[:, None] >= rn[None, :], qk, -1.0e6)
        m_ij = tl.maximum(m_i, tl.max(qk, 1) * qk_scale)
        p = tl.math.exp2(qk * qk_scale - m_ij[:, None])
        alpha = tl.math.exp2(m_i - m_ij)
        l_i = l_i * alpha + tl.sum(p, 1)
        acc = acc * alpha[:, None]
        v = tl.load(V + off + rn[:, None] * HEAD + rd[None, :])
        acc = tl.dot(p.to(tl.float16), v, acc)
        m_i = m_ij
    acc = acc / l_i[:, None]
    tl.store(O + off + rm[:, None] * HEAD + rd[None, :], acc.to(tl.float16))


@triton.jit
def k_dot_scaled(a_ptr, as_ptr, b_ptr, bs_ptr, c_ptr, BM: tl.constexpr, BN: tl.constexpr, BK: tl.constexpr):
    rm = tl.arange(0, BM)
    rn = tl.arange(0, BN)
    rk = tl.arange(0, BK)
    rs = tl.arange(0, BK // 32)
    a = tl.load(a_ptr + rm[:, None] * BK + rk[None, :])
    b = tl.load(b_ptr + rk[:, None] * BN + rn[None, :])
    sa = tl.load(as_ptr + rm[:, None] * (BK // 32) + rs[None, :])
    sb = tl.load(bs_ptr + rn[:, None] * (BK // 32) + rs[None, :])
    c = tl.dot_scaled(a, sa, "e4m3", b, sb, "e4m3")
    tl.store(c_ptr + rm[:, None] * BN + rn[None, :], c)


@triton.jit
def k_int_math(x_ptr, y_ptr, n, BLOCK: tl.constexpr):
    offs = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)
    m = offs < n
    x = tl.load(x_ptr + offs, mask=m, other=1)
    y = x // 7 + x % 13 + (x.to(tl.int64) * 3 // 5).to(tl.int32) + libdevice.popc(x) + libdevice.clz(x) + libdevice.brev(x)
    y += (x.to(tl.float32) / 3.0).to(tl.int32) + (x.to(tl.float64) * 1.5).to(tl.int32) + x.to(tl.int8).to(tl.int32)
    y += (x.to(tl.float16) * 2).to(tl.int32) + (x.to(tl.bfloat16) * 2).to(tl.int32) + (x.to(tl.float32).to(tl.float8e5)).to(tl.float32).to(tl.int32)
    y += (x.to(tl.float16).to(tl.float8e4nv)).to(tl.float32).to(tl.int32)
    tl.store(y_ptr + offs, y, mask=m)


P = "*fp32"
CASES = [
    ("dropout", k_dropout, {"x_ptr": P, "out_ptr": P, "noise_ptr": P, "bits_ptr": "*u32", "n": "i32", "p": "fp32", "seed": "i32"}, {"BLOCK": 1024}, {}),
    ("ln_bwd", k_ln_bwd_dwdb, {"DX": "*fp16", "DY": "*fp16", "DW": "*fp16", "DB": "*fp16", "X": "*fp16",
                               "W": "*fp16", "Mean": P, "Rstd": P, "Lock": "*i32", "stride": "i32", "N": "i32"},
     {"GROUP": 64, "BLOCK": 1024}, {}),
    ("desc_matmul", k_desc_matmul, {"a_ptr": "*fp16", "b_ptr": "*fp16", "c_ptr": "*fp16", "M": "i32", "N": "i32",
                                    "K": "i32"}, {"BM": 128, "BN": 128, "BK": 64}, {}),
    ("host_desc_matmul", k_host_desc_matmul, {"a_desc": "tensordesc<fp16[128, 64]>", "b_desc": "tensordesc<fp16[64, 128]>",
                                              "c_desc": "tensordesc<fp32[128, 128]>", "K": "i32"},
     {"BM": 128, "BN": 128, "BK": 64}, {}),
    ("persistent_ws", k_persistent_ws, {"a_desc": "tensordesc<fp16[128, 64]>", "b_desc": "tensordesc<fp16[128, 64]>",
                                        "c_desc": "tensordesc<fp16[128, 128]>", "M": "i32", "N": "i32", "K": "i32"},
     {"NUM_SMS": 132, "BM": 128, "BN": 128, "BK": 64}, {"num_warps": 4}),
    ("fp8_matmul", k_fp8_matmul, {"a_ptr": "*fp8e4nv", "b_ptr": "*fp8e4nv", "c_ptr": "*bf16", "M": "i32", "N": "i32",
                                  "K": "i32", "sa": P, "sb": P}, {"BM": 128, "BN": 128, "BK": 64}, {}),
    ("fp8e5_matmul", k_fp8_matmul, {"a_ptr": "*fp8e5", "b_ptr": "*fp8e5", "c_ptr": "*bf16", "M": "i32", "N": "i32",
                                    "K": "i32", "sa": P, "sb": P}, {"BM": 64, "BN": 64, "BK": 64}, {}),
    ("libdevice", k_libdevice, {"x_ptr": P, "y_ptr": P, "n": "i32"}, {"BLOCK": 256}, {}),
    ("libdevice_f64", k_libdevice_f64, {"x_ptr": "*fp64", "y_ptr": "*fp64", "n": "i32"}, {"BLOCK": 256}, {}),
    ("atomics", k_atomics, {"x_ptr": P, "acc_ptr": P, "max_ptr": P, "hist_ptr": "*i32", "n": "i32"}, {"BLOCK": 256}, {}),
    ("f16_atomics", k_f16_atomics, {"x_ptr": "*fp16", "acc_ptr": "*fp16", "n": "i32"}, {"BLOCK": 256}, {}),
    ("bf16_atomics", k_f16_atomics, {"x_ptr": "*bf16", "acc_ptr": "*bf16", "n": "i32"}, {"BLOCK": 256}, {}),
    ("scan_sort", k_scan_sort, {"x_ptr": P, "y_ptr": P, "z_ptr": P, "h_ptr": "*i32"}, {"BLOCK": 256}, {}),
    ("pdl", k_pdl, {"x_ptr": P, "y_ptr": P, "n": "i32"}, {"BLOCK": 256}, {"launch_pdl": True}),
    ("misc", k_misc, {"x_ptr": "*u32", "y_ptr": "*u32", "t_ptr": "*i64", "n": "i32"}, {"BLOCK": 256}, {}),
    ("print", k_print, {"x_ptr": P, "n": "i32"}, {"BLOCK": 32}, {}),
    ("block_ptr_tf32x3", k_block_ptr, {"a_ptr": P, "b_ptr": P, "c_ptr": P, "M": "i32", "N": "i32", "K": "i32"},
     {"BM": 64, "BN": 64, "BK": 32}, {}),
    ("splitk", k_splitk, {"a_ptr": "*fp16", "b_ptr": "*fp16", "c_ptr": P, "M": "i32", "N": "i32", "K": "i32"},
     {"BM": 64, "BN": 64, "BK": 32}, {}),
    ("attn_causal", k_attn, {"Q": "*fp16", "K": "*fp16", "V": "*fp16", "O": "*fp16", "sm_scale": "fp32", "N_CTX": "i32"},
     {"HEAD": 64, "BM": 128, "BN": 64, "CAUSAL": True}, {"num_warps": 8}),
    ("dot_scaled", k_dot_scaled, {"a_ptr": "*fp8e4nv", "as_ptr": "*u8", "b_ptr": "*fp8e4nv", "bs_ptr": "*u8", "c_ptr": P},
     {"BM": 64, "BN": 64, "BK": 64}, {}),
    ("int_math", k_int_math, {"x_ptr": "*i32", "y_ptr": "*i32", "n": "i32"}, {"BLOCK": 256}, {}),
]


def main():
    out, ptxrun = sys.argv[1], sys.argv[2]
    os.makedirs(out, exist_ok=True)
    for arch in (90, 80):
        for name, fn, sig, consts, opts in CASES:
            sig = dict(sig)
            for k, v in consts.items():
                sig[k] = "constexpr"
            path = os.path.join(out, f"{name}_sm{arch}.ptx")
            try:
                src = triton.compiler.ASTSource(fn=fn, signature=sig, constexprs={(fn.arg_names.index(k),): v for k, v in consts.items()})
                k = triton.compile(src, target=GPUTarget("cuda", arch, 32), options={"num_warps": 4, **opts})
            except Exception as e:  # noqa: BLE001
                print(f"{name} sm{arch}: compile failed: {str(e).splitlines()[0][:200] if str(e) else type(e)}")
                continue
            open(path, "w").write(k.asm["ptx"])
            p = subprocess.run([ptxrun, "parse", "--color", "never", path], capture_output=True, text=True)
            if p.returncode != 0:
                print(f"{name} sm{arch}: DOES NOT LOAD: {p.stderr.strip().splitlines()[:3]}")
                continue
            q = subprocess.run([ptxrun, "parse", "--color", "never", "--emit", "ir", path], capture_output=True, text=True)
            bad = sorted({ln.split()[1] for ln in q.stdout.splitlines() if ln.rstrip().endswith("(not executable)")})
            print(f"{name} sm{arch}: {'runs' if not bad else 'BLOCKED by ' + ', '.join(bad)}")


if __name__ == "__main__":
    main()
