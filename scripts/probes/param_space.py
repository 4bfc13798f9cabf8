#!/usr/bin/env python3
"""Kernel-parameter addresses on the H100: what `mov` of a kernel parameter gives (a `.param`
address or a generic one), what `cvta.param` / `cvta.to.param` / `isspacep.param` do with it,
which loads reach the parameter through it, and whether a tensor copy takes a tensor map named by
a `.param` address, a generic one, or the parameter's name itself (PTX ISA 9.0 sections 5.1.6.1
"Kernel Function Parameters", 9.7.9.19 `cvta`, 9.7.9.25 `cp.async.bulk.tensor`).

  param_space.py gpu OUT.json          on the GPU host (CuPy + the driver through ctypes)
  param_space.py ptxrun BIN OUT.json   the same cases through ptxrun
  param_space.py compare GPU.json PTXRUN.json

Each case is its own module and runs in a child process: a case that faults kills its CUDA
context, and a module ptxas refuses must not hide the others. A tensor case waits on its mbarrier
a bounded number of times, so a copy that never lands cannot hang the GPU.
"""
import json
import os
import subprocess
import sys
import tempfile

HEAD = ".version 8.0\n.target sm_90a\n.address_size 64\n"
BLOB = list(range(1, 17))  # the struct parameter's bytes
A = 0x11223344

# The scalar cases: parameters (out, a, blob[16]); each writes u64 words out[0..].
SCALAR = """
.visible .entry k(.param .u64 outp, .param .u32 a, .param .align 8 .b8 blob[16])
{
  .reg .b64 %rd<16>; .reg .b32 %r<8>; .reg .pred %p<4>;
  .shared .align 4 .u32 s[4];
  .local .align 4 .u32 l[4];
  ld.param.u64 %rd1, [outp];
  cvta.to.global.u64 %rd1, %rd1;
  mov.b64 %rd2, blob;
  cvta.param.u64 %rd3, %rd2;
BODY
  ret;
}
"""

CASES = {
    # Safe: every value the instructions give, and the loads the ISA allows.
    "values": """
  st.global.u64 [%rd1], %rd2;
  mov.b64 %rd4, a;
  st.global.u64 [%rd1+8], %rd4;
  sub.s64 %rd5, %rd4, %rd2;
  st.global.u64 [%rd1+16], %rd5;
  cvta.to.param.u64 %rd6, %rd3;
  sub.s64 %rd7, %rd6, %rd2;
  st.global.u64 [%rd1+24], %rd7;
  isspacep.param %p1, %rd2;
  selp.u64 %rd8, 1, 0, %p1;
  st.global.u64 [%rd1+32], %rd8;
  isspacep.param %p2, %rd3;
  selp.u64 %rd8, 1, 0, %p2;
  st.global.u64 [%rd1+40], %rd8;
  isspacep.global %p3, %rd2;
  selp.u64 %rd8, 1, 0, %p3;
  st.global.u64 [%rd1+48], %rd8;
  ld.param.u32 %r1, [%rd2+4];
  st.global.u32 [%rd1+56], %r1;
  ld.u32 %r2, [%rd3+4];
  st.global.u32 [%rd1+64], %r2;
  ld.param.u32 %r3, [%rd4];
  st.global.u32 [%rd1+72], %r3;
  cvta.param.u64 %rd9, blob;
  sub.s64 %rd10, %rd9, %rd3;
  st.global.u64 [%rd1+80], %rd10;
  isspacep.param %p1, %rd9;
  selp.u64 %rd8, 1, 0, %p1;
  st.global.u64 [%rd1+88], %rd8;
""",
    # A generic load through the `.param` address `mov` gives (no `cvta.param`).
    "generic_load_of_param_address": """
  ld.u32 %r1, [%rd2+4];
  st.global.u32 [%rd1], %r1;
""",
    # A `.param` load through the generic address `cvta.param` gives.
    "param_load_of_generic_address": """
  ld.param.u32 %r1, [%rd3+4];
  st.global.u32 [%rd1], %r1;
""",
    # Generic accesses that name a shared and a local variable (ptxas takes them).
    "generic_access_of_shared_and_local_names": """
  mov.u32 %r1, 77;
  st.u32 [s+4], %r1;
  ld.shared.u32 %r2, [s+4];
  st.global.u32 [%rd1], %r2;
  ld.u32 %r3, [s+4];
  st.global.u32 [%rd1+4], %r3;
  mov.u32 %r1, 88;
  st.u32 [l+4], %r1;
  ld.local.u32 %r4, [l+4];
  st.global.u32 [%rd1+8], %r4;
  ld.u32 %r5, [l+4];
  st.global.u32 [%rd1+12], %r5;
""",
    # A generic load that names the parameter itself (ptxas refuses it).
    "generic_load_of_param_name": """
  ld.u32 %r1, [blob+4];
  st.global.u32 [%rd1], %r1;
""",
}

# The tensor cases: parameters (out, tm); a 16x16 f32 tile from a 16x16 tensor; out[0] says
# whether the copy landed within the bounded wait, out[4..260] the tile.
TENSOR = """
.visible .entry t(.param .u64 outp, .param .align 128 .b8 tm[128])
{
  .reg .b64 %rd<16>; .reg .b32 %r<32>; .reg .pred %p<4>;
  .shared .align 1024 .b8 tile[1024];
  .shared .align 8 .b64 bar;
  ld.param.u64 %rd1, [outp];
  cvta.to.global.u64 %rd1, %rd1;
  mov.b64 %rd2, tm;
  cvta.param.u64 %rd3, %rd2;
  mov.u32 %r1, bar;
  mov.u32 %r2, tile;
  mbarrier.init.shared::cta.b64 [%r1], 1;
  fence.mbarrier_init.release.cluster;
  mov.u32 %r3, 0;
  mbarrier.arrive.expect_tx.shared::cta.b64 %rd4, [%r1], 1024;
  cp.async.bulk.tensor.2d.shared::cluster.global.tile.mbarrier::complete_tx::bytes [%r2], [MAP, {%r3, %r3}], [%r1];
  mov.u32 %r4, 0;
W:
  mbarrier.try_wait.parity.shared::cta.b64 %p1, [%r1], 0;
  @%p1 bra DONE;
  add.u32 %r4, %r4, 1;
  setp.lt.u32 %p2, %r4, 200000;
  @%p2 bra W;
DONE:
  selp.u32 %r5, 1, 0, %p1;
  st.global.u32 [%rd1], %r5;
  @!%p1 bra END;
  mov.u32 %r6, 0;
L:
  shl.b32 %r7, %r6, 2;
  add.u32 %r8, %r2, %r7;
  ld.shared.u32 %r9, [%r8];
  cvt.u64.u32 %rd5, %r7;
  add.s64 %rd6, %rd1, %rd5;
  st.global.u32 [%rd6+16], %r9;
  add.u32 %r6, %r6, 1;
  setp.lt.u32 %p3, %r6, 256;
  @%p3 bra L;
END:
  ret;
}
"""

TENSOR_CASES = {
    "tensor_map_by_generic_address": "%rd3",
    "tensor_map_by_param_address": "%rd2",
    "tensor_map_by_param_name": "tm",
}


def module(case):
    if case in TENSOR_CASES:
        return HEAD + TENSOR.replace("MAP", TENSOR_CASES[case])
    return HEAD + SCALAR.replace("BODY", CASES[case])


def all_cases():
    return list(CASES) + list(TENSOR_CASES)


def child(case, path):
    """Runs one case on the GPU and writes {"out": hex} or {"error": ...} to `path`."""
    import ctypes

    import cupy as cp
    import numpy as np

    res = {}
    try:
        mod = cp.RawModule(code=None, path=write_tmp(module(case)))
        fn = mod.get_function("t" if case in TENSOR_CASES else "k")
    except Exception as e:  # noqa: BLE001 - the driver's or ptxas' refusal is the result
        res["load_error"] = str(e)[:300]
        json.dump(res, open(path, "w"))
        return
    lib = ctypes.CDLL("libcuda.so.1")
    launch = lib.cuLaunchKernel
    launch.restype = ctypes.c_int
    launch.argtypes = [ctypes.c_void_p] + [ctypes.c_uint] * 7 + [ctypes.c_void_p] * 3
    out = cp.zeros(2048, dtype=cp.uint8)
    p_out = ctypes.c_uint64(out.data.ptr)
    if case in TENSOR_CASES:
        x = cp.asarray(np.arange(256, dtype=np.float32))
        raw = ctypes.create_string_buffer(128 + 64)
        addr = (ctypes.addressof(raw) + 63) // 64 * 64
        dims = (ctypes.c_uint64 * 2)(16, 16)
        strides = (ctypes.c_uint64 * 1)(64)
        box = (ctypes.c_uint32 * 2)(16, 16)
        estr = (ctypes.c_uint32 * 2)(1, 1)
        f = lib.cuTensorMapEncodeTiled
        f.restype = ctypes.c_int
        f.argtypes = [ctypes.c_void_p, ctypes.c_int, ctypes.c_uint32] + [ctypes.c_void_p] * 5 + [ctypes.c_int] * 4
        err = f(addr, 7, 2, ctypes.c_void_p(x.data.ptr), ctypes.addressof(dims), ctypes.addressof(strides),
                ctypes.addressof(box), ctypes.addressof(estr), 0, 0, 0, 0)
        assert err == 0, err
        params = (ctypes.c_void_p * 2)(ctypes.addressof(p_out), addr)
        n = 2
    else:
        p_a = ctypes.c_uint32(A)
        blob = (ctypes.c_uint8 * 16)(*BLOB)
        params = (ctypes.c_void_p * 3)(ctypes.addressof(p_out), ctypes.addressof(p_a), ctypes.addressof(blob))
        n = 3
    del n
    e = launch(ctypes.c_void_p(fn.kernel.ptr), 1, 1, 1, 1, 1, 1, 0, None, params, None)
    try:
        if e != 0:
            raise RuntimeError(f"cuLaunchKernel {e}")
        cp.cuda.runtime.deviceSynchronize()
        res["out"] = out.get().tobytes().hex()
    except Exception as ex:  # noqa: BLE001 - a fault is the result
        res["run_error"] = str(ex)[:300]
    json.dump(res, open(path, "w"))


def write_tmp(text):
    fd, p = tempfile.mkstemp(suffix=".ptx")
    os.write(fd, text.encode())
    os.close(fd)
    return p


def gpu(out_path):
    results = {}
    for case in all_cases():
        path = write_tmp("")
        try:
            subprocess.run([sys.executable, __file__, "child", case, path], timeout=60, check=False)
            results[case] = json.load(open(path))
        except Exception as e:  # noqa: BLE001
            results[case] = {"probe_error": str(e)[:300]}
        print(case, json.dumps(results[case])[:200], flush=True)
    json.dump(results, open(out_path, "w"), indent=1)


LAUNCH_HEAD = """kernel = "kernel.ptx"
entry = "%s"
grid = 1
block = 1
[[params]]
buffer = "out"
type = "u8"
len = 2048
init = "zeros"
"""
LAUNCH_TAIL = """[outputs]
out = "out.bin"
"""
LAUNCH_SCALAR = LAUNCH_HEAD % "k" + """[[params]]
type = "u32"
value = %d
[[params]]
bytes = %s
""" % (A, BLOB) + LAUNCH_TAIL
LAUNCH_TENSOR = LAUNCH_HEAD % "t" + """[[params]]
tensormap = "x"
type = "f32"
len = 256
init = { iota = { start = 0, step = 1 } }
dims = [16, 16]
box = [16, 16]
""" + LAUNCH_TAIL


def ptxrun(binary, out_path):
    results = {}
    for case in all_cases():
        d = tempfile.mkdtemp()
        open(os.path.join(d, "kernel.ptx"), "w").write(module(case))
        launch = LAUNCH_TENSOR if case in TENSOR_CASES else LAUNCH_SCALAR
        open(os.path.join(d, "launch.toml"), "w").write(launch)
        p = subprocess.run([binary, "run", os.path.join(d, "launch.toml")], capture_output=True, text=True)
        if p.returncode == 0:
            results[case] = {"out": open(os.path.join(d, "out.bin"), "rb").read().hex()}
        else:
            results[case] = {"error": (p.stdout + p.stderr).strip()[-400:], "exit": p.returncode}
        print(case, json.dumps(results[case])[:200], flush=True)
    json.dump(results, open(out_path, "w"), indent=1)


def words(hexs, n, size=8):
    b = bytes.fromhex(hexs)
    return [int.from_bytes(b[i * size:(i + 1) * size], "little") for i in range(n)]


def compare(gpu_path, ptxrun_path):
    g, p = json.load(open(gpu_path)), json.load(open(ptxrun_path))
    for case in all_cases():
        gr, pr = g.get(case, {}), p.get(case, {})
        if "out" in gr and "out" in pr:
            same = gr["out"] == pr["out"]
            print(f"{case}: both ran; outputs {'equal' if same else 'DIFFER'}")
            if not same:
                print("  gpu   ", [hex(w) for w in words(gr["out"], 12)])
                print("  ptxrun", [hex(w) for w in words(pr["out"], 12)])
        else:
            print(f"{case}: gpu {'ran' if 'out' in gr else 'failed'}, ptxrun {'ran' if 'out' in pr else 'failed'}")
            print("  gpu   ", json.dumps(gr)[:300])
            print("  ptxrun", json.dumps(pr)[:300])


if __name__ == "__main__":
    cmd = sys.argv[1]
    if cmd == "child":
        child(sys.argv[2], sys.argv[3])
    elif cmd == "gpu":
        gpu(sys.argv[2])
    elif cmd == "ptxrun":
        ptxrun(sys.argv[2], sys.argv[3])
    elif cmd == "compare":
        compare(sys.argv[2], sys.argv[3])
    else:
        sys.exit(__doc__)
