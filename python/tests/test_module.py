"""The core API: Module.from_file/from_ptx, launch with NumPy arrays and scalars, reports,
exceptions, explore, the command line. Golden outputs are the H100's, from the samples."""

import subprocess
import sys

import numpy as np
import pytest

import ptxrun
from conftest import SAMPLES, read

SAXPY = SAMPLES / "async" / "hw_pipe2_saxpy"


def saxpy_inputs():
    x = read(SAXPY / "inputs" / "x.bin", np.int32)
    y = read(SAXPY / "inputs" / "y.bin", np.int32)
    return x, y, np.zeros(3840, np.int32)


def test_a_launch_reproduces_the_h100_bytes_and_writes_arrays_back():
    m = ptxrun.Module.from_file(SAXPY / "kernel.ptx")
    assert m.entries == ["pipe2_saxpy"]
    x, y, out = saxpy_inputs()
    r = m.launch("pipe2_saxpy", 3, 64, [x, y, out, np.int32(-3), np.int32(5)], shared_mem=4096)
    assert r.status == "ok" and r.ok and r.diagnostics == []
    assert np.array_equal(out, read(SAXPY / "expected" / "out.bin", np.int32))
    assert r.stats.thread_instructions > 0 and r.stats.schedules == 1


def test_python_numbers_convert_to_the_parameter_type_and_every_latency_model_agrees():
    m = ptxrun.Module.from_ptx((SAXPY / "kernel.ptx").read_text(), name="saxpy.ptx")
    want = read(SAXPY / "expected" / "out.bin", np.int32)
    for latency in ptxrun.LATENCY_MODELS:
        x, y, out = saxpy_inputs()
        m.launch(None, [3], (64, 1, 1), [x, y, out, -3, 5], shared_mem=4096, latency=latency, seed=3)
        assert np.array_equal(out, want), latency


def test_printf_output_reaches_stdout(capsys):
    d = SAMPLES / "core" / "printf_lines"
    m = ptxrun.Module.from_file(d / "kernel.ptx")
    out = np.zeros(64, np.int32)
    r = m.launch(None, 1, 64, [read(d / "inputs" / "in.bin", np.int32), read(d / "inputs" / "fin.bin", np.float32), out])
    assert capsys.readouterr().out == (d / "expected" / "stdout.txt").read_text() == r.stdout
    assert np.array_equal(out, read(d / "expected" / "out.bin", np.int32))


def test_a_read_before_the_copy_completes_raises_hazard_error_at_its_line():
    d = SAMPLES / "hazards" / "cp_async_no_wait"
    m = ptxrun.Module.from_file(d / "kernel.ptx")
    x = np.arange(256, dtype=np.int32)
    out = np.zeros(256, np.int32)
    with pytest.raises(ptxrun.HazardError) as e:
        m.launch(None, 2, 128, [x, out])
    assert isinstance(e.value, RuntimeError)
    kinds = [dg.kind for dg in e.value.diagnostics]
    assert "read-before-complete" in kinds
    d0 = e.value.diagnostics[0]
    assert d0.line in (55, 57) and d0.instruction.startswith("ld.shared.u32")
    assert d0.related and d0.related[0][0] == 41  # the cp.async
    assert "read-before-complete" in str(e.value) and "cp.async" in str(e.value)
    # Under the immediate model the copies land before the reads: the kernel's results come
    # back in `out` even though the report is a hazard (the checker is not fooled by timing).
    with pytest.raises(ptxrun.HazardError):
        m.launch(None, 2, 128, [x, out], latency="immediate")
    assert np.array_equal(out, 3 * np.roll(x.reshape(2, 128), -1, axis=1).reshape(-1) - x)
    # Without checking it runs through; with raise_on_error=False the report comes back.
    m.launch(None, 2, 128, [x, out], check=False)
    r = m.launch(None, 2, 128, [x, out], raise_on_error=False)
    assert r.status == "hazard" and r.kinds[0] == "read-before-complete"


def test_explore_reports_each_hazard_once_with_its_schedule():
    d = SAMPLES / "hazards" / "cp_async_no_wait"
    m = ptxrun.Module.from_file(d / "kernel.ptx")
    r = m.launch(None, 2, 128, [np.arange(256, dtype=np.int32), np.zeros(256, np.int32)],
                 explore=10, raise_on_error=False)
    assert r.status == "hazard" and r.stats.schedules == 10
    assert all(dg.schedule is not None for dg in r.diagnostics)


def test_an_out_of_bounds_store_raises_kernel_fault():
    m = ptxrun.Module.from_file(SAMPLES.parent / "tests" / "run" / "oob" / "kernel.ptx")
    out = np.zeros(64, np.uint32)
    with pytest.raises(ptxrun.KernelFault) as e:
        m.launch(None, 1, 64, [out])
    dg = e.value.diagnostics[-1]
    assert dg.kind == "out-of-bounds" and dg.thread == (63, 0, 0) and dg.line == 16


def test_bad_input_is_value_error_naming_what_is_wrong():
    m = ptxrun.Module.from_file(SAXPY / "kernel.ptx")
    x, y, out = saxpy_inputs()
    with pytest.raises(ValueError, match="takes 5 parameters"):
        m.launch(None, 3, 64, [x, y, out])
    with pytest.raises(ValueError, match="zero dimension"):
        m.launch(None, 3, (0, 1, 1), [x, y, out, 1, 2])
    with pytest.raises(ValueError, match="1024"):
        m.launch(None, 3, 2048, [x, y, out, 1, 2])
    with pytest.raises(ValueError, match="4 bytes"):
        m.launch(None, 3, 64, [x, y, out, np.int64(1), 2])
    with pytest.raises(OverflowError):
        m.launch(None, 3, 64, [x, y, out, 1 << 40, 2])
    with pytest.raises(ValueError, match="no .entry named"):
        m.launch("nope", 3, 64, [x, y, out, 1, 2])
    with pytest.raises(TypeError, match="grid"):
        m.launch(None, "3", 64, [x, y, out, 1, 2])
    with pytest.raises(TypeError, match="block"):
        m.launch(None, 3, 64.0, [x, y, out, 1, 2])
    with pytest.raises(ValueError, match="shared_mem"):
        m.launch(None, 3, 64, [x, y, out, 1, 2], shared_mem=-1)
    with pytest.raises(ValueError, match="232448"):
        m.launch(None, 3, 64, [x, y, out, 1, 2], shared_mem=300_000)
    with pytest.raises(ValueError):
        ptxrun.Module.from_ptx(".version 8.0\n.target sm_90\n.address_size 64\n.entry k() { bogus.op; }")
    with pytest.raises(OSError):
        ptxrun.Module.from_file(SAMPLES / "no-such.ptx")


def test_an_unsupported_instruction_is_an_error_naming_it():
    ptx = """.version 8.0
.target sm_90
.address_size 64
.visible .entry k(.param .u64 p)
{
    .reg .b32 %r<2>;
    .reg .f32 %f<2>;
    .reg .b64 %rd<2>;
    tex.grad.3d.v4.s32.f32 {%r1, %r1, %r1, %r1}, [%rd1, {%f1, %f1, %f1, %f1}], {%f1, %f1, %f1, %f1}, {%f1, %f1, %f1, %f1};
    ret;
}
"""
    m = ptxrun.Module.from_ptx(ptx)
    with pytest.raises(ptxrun.UnsupportedError, match="tex"):
        m.launch(None, 1, 32, [np.zeros(4, np.int32)])


def test_views_of_one_array_alias_in_device_memory():
    # Two arguments that overlap in host memory are one device buffer: the kernel's writes
    # through one pointer are seen through the other, as on a GPU.
    x, y, out = saxpy_inputs()
    whole = np.zeros(3840 * 2, np.int32)
    lo, hi = whole[:3840], whole[3840:]
    lo[:] = x
    m = ptxrun.Module.from_file(SAXPY / "kernel.ptx")
    m.launch(None, 3, 64, [lo, y, hi, -3, 5], shared_mem=4096)
    assert np.array_equal(hi, read(SAXPY / "expected" / "out.bin", np.int32))
    assert np.array_equal(lo, x)


def test_the_command_line_is_installed_and_runs_in_process():
    ok = subprocess.run([sys.executable, "-m", "ptxrun", "test", str(SAXPY)], capture_output=True, text=True)
    assert ok.returncode == 0, ok.stdout + ok.stderr
    assert "1 passed, 0 failed" in ok.stdout
    bad = subprocess.run([sys.executable, "-m", "ptxrun", "run", str(SAMPLES / "hazards" / "cp_async_no_wait"),
                          "--format", "json", "--out-dir", "/tmp/ptxrun-pytest-out"], capture_output=True, text=True)
    assert bad.returncode == 1 and '"read-before-complete"' in bad.stdout
    assert subprocess.run([sys.executable, "-m", "ptxrun", "--bogus"], capture_output=True).returncode == 2
    assert ptxrun.run_cli(["--version"]) == 0


VCOPY = """.version 8.0
.target sm_80
.address_size 64
.visible .entry vcopy(.param .u64 src, .param .u64 dst)
{
    .reg .b32 %r<6>;
    .reg .b64 %rd<6>;
    ld.param.u64 %rd1, [src];
    ld.param.u64 %rd2, [dst];
    mov.u32 %r1, %tid.x;
    mul.wide.u32 %rd3, %r1, 16;
    add.s64 %rd4, %rd1, %rd3;
    add.s64 %rd5, %rd2, %rd3;
    ld.global.v4.u32 {%r2, %r3, %r4, %r5}, [%rd4];
    st.global.v4.u32 [%rd5], {%r2, %r3, %r4, %r5};
    ret;
}
"""


def test_a_view_is_a_pointer_into_its_base_array_as_on_a_gpu():
    m = ptxrun.Module.from_ptx(VCOPY)
    x = np.arange(80, dtype=np.uint32)
    out = np.zeros(32, np.uint32)
    m.launch(None, 1, 8, [x[4:36], out])  # 16 bytes into x: aligned
    assert np.array_equal(out, np.arange(4, 36))
    # 4 bytes into x: the v4 load is misaligned on a GPU, and here.
    with pytest.raises(ptxrun.KernelFault) as e:
        m.launch(None, 1, 8, [x[1:33], out])
    assert e.value.diagnostics[-1].kind == "misaligned"
    # A strided view passes the address of its first element, as CuPy passes it.
    m.launch(None, 1, 8, [x[8::2], out])
    assert np.array_equal(out, np.arange(8, 40))
    # A read-only destination: the kernel's writes are not copied back, and a warning says so.
    ro = np.frombuffer(bytes(128), np.uint32)
    with pytest.warns(RuntimeWarning, match="read-only"):
        m.launch(None, 1, 8, [x[4:36], ro])


def test_ctrl_c_stops_a_kernel_that_never_ends():
    import os
    import signal
    import threading
    import time

    m = ptxrun.Module.from_ptx(""".version 8.0
.target sm_80
.address_size 64
.visible .entry forever(.param .u64 p)
{
    .reg .b64 %rd<2>;
    mov.u64 %rd1, 0;
L:
    add.u64 %rd1, %rd1, 1;
    bra L;
}
""")
    # A counter keeps the state changing: a bare `bra L` would be proven an endless spin and
    # reported as a deadlock at once (README "Budgets").
    # A process started in the background by a non-interactive shell inherits SIGINT ignored,
    # and Python then installs no KeyboardInterrupt handler: install it for this test.
    previous = signal.signal(signal.SIGINT, signal.default_int_handler)
    # Ctrl-C every 0.5 s until the launch has returned, as a user presses again.
    returned = threading.Event()

    def press_ctrl_c():
        while not returned.wait(0.5):
            os.kill(os.getpid(), signal.SIGINT)

    presser = threading.Thread(target=press_ctrl_c, daemon=True)
    presser.start()
    t = time.time()
    try:
        with pytest.raises(KeyboardInterrupt):
            m.launch(None, 1, 32, [np.zeros(1, np.uint32)])
    finally:
        returned.set()
        presser.join()
        signal.signal(signal.SIGINT, previous)
    assert time.time() - t < 10


def test_a_newer_ptx_version_loads_with_a_warning():
    ptx = ".version 9.4\n.target sm_90\n.address_size 64\n.visible .entry k() { ret; }\n"
    with pytest.warns(UserWarning, match=r"`\.version 9\.4` is newer than PTX ISA 9\.0"):
        m = ptxrun.Module.from_ptx(ptx)
    assert len(m.warnings) == 1
    assert ptxrun.Module.from_ptx(ptx.replace("9.4", "9.0")).warnings == []


def test_narrow_conversions_give_the_h100_bits():
    d = SAMPLES / "cvt" / "narrow"
    m = ptxrun.Module.from_file(d / "kernel.ptx")
    x32 = np.fromfile(d / "inputs" / "x32.bin", dtype=np.uint32)
    x16 = np.fromfile(d / "inputs" / "x16.bin", dtype=np.uint16)
    outs = {"tf32": np.zeros(49152, np.uint32), "f8": np.zeros(32768, np.uint16),
            "half": np.zeros(81920, np.uint16), "pair": np.zeros(32768, np.uint32),
            "f8h": np.zeros(262144, np.uint16), "h8": np.zeros(262144, np.uint32)}
    m.launch("narrow_cvt", grid=256, block=256, args=[x32, x16, *outs.values()])
    for name, got in outs.items():
        want = np.fromfile(d / "expected" / f"{name}.bin", dtype=got.dtype)
        assert np.array_equal(got, want), name


def test_warnings_do_not_raise_unless_denied_and_suppressions_hide_findings():
    cas = SAMPLES / "checker" / "cas_loop_add"
    m = ptxrun.Module.from_file(cas / "kernel.ptx")
    x = read(cas / "inputs" / "in.bin", np.float64)
    total = np.zeros(4, np.float64)
    r = m.launch(None, 4, 128, [x, total])
    assert r.ok and [d.severity for d in r.diagnostics] == ["warning", "warning"]
    assert r.kinds == ["data-race", "data-race"] and r.suppressed is None
    assert np.array_equal(total, read(cas / "expected" / "sum.bin", np.float64))
    with pytest.raises(ptxrun.HazardError):
        m.launch(None, 4, 128, [x, np.zeros(4, np.float64)], deny_warnings=True)
    r = m.launch(None, 4, 128, [x, np.zeros(4, np.float64)], deny_warnings=True, suppress=["data-race:cas_loop_*"])
    assert r.ok and r.diagnostics == [] and r.suppressed["findings"] == 2
    with pytest.raises(ValueError):
        m.launch(None, 4, 128, [x, total], suppress=[":"])


AXPY = SAMPLES / "launch" / "struct_axpy"
JACOBI = SAMPLES / "launch" / "coop_jacobi"


def test_a_struct_argument_carries_pointers_scalars_and_nested_structs():
    m = ptxrun.Module.from_file(AXPY / "kernel.ptx")
    x = read(AXPY / "inputs" / "x.bin", np.float32)
    y = np.zeros(640, dtype=np.float32)
    hits = np.zeros(1, dtype=np.int32)
    axpy = ptxrun.Struct({
        0: x, 8: y, 16: np.float32(1.75), 20: np.int32(600),
        24: np.array([100, 420], dtype=np.int32).tobytes(),
        32: np.array([0.5, -1.25, 3.0, 0.0625], dtype=np.float32).tobytes(),
        48: np.float64(0.3), 56: np.uint16(513), 58: np.int8(3),
    })
    tally = ptxrun.Struct({8: ptxrun.Struct({0: hits, 8: np.int32(5)}), 24: np.int16(-7)}, data=b"ABC")
    m.launch(None, 5, 128, [axpy, tally])
    assert y.tobytes() == (AXPY / "expected" / "y.bin").read_bytes()
    assert hits.tobytes() == (AXPY / "expected" / "hits.bin").read_bytes()
    with pytest.raises(TypeError, match=r"args\[1\].fields\[24\]: a struct field"):
        m.launch(None, 5, 128, [axpy, ptxrun.Struct({24: -7})])
    with pytest.raises(ValueError, match=r"fields\[1\]: bytes 12..13 overlap fields\[0\]"):
        m.launch(None, 5, 128, [axpy, ptxrun.Struct({8: hits, 12: np.int8(1)})])


def test_texture_and_surface_objects_give_the_h100_bytes():
    # cuda-samples' simpleSurfaceWrite kernels: rotate an image through a texture object
    # (normalized coordinates, bilinear, wrap), and write one through a surface object.
    d = SAMPLES / "texture" / "cuda_transform"
    image = ptxrun_random(22, 0.0, 1.0, 128 * 128)
    out = np.zeros(128 * 128, np.float32)
    tex = ptxrun.Texture(image, dims=[128, 128], filter="linear", address="wrap", normalized=True)
    m = ptxrun.Module.from_file(d / "kernel.ptx")
    m.launch("_Z15transformKernelPfiify", (16, 16), (8, 8), [out, np.int32(128), np.int32(128), np.float32(0.5), tex])
    assert out.tobytes() == (d / "expected" / "out.bin").read_bytes()
    d = SAMPLES / "texture" / "cuda_surface_write"
    array = np.zeros(128 * 128, np.float32)
    surf = ptxrun.Surface(array, dims=[128, 128])
    m = ptxrun.Module.from_file(d / "kernel.ptx")
    image = ptxrun_random(21, 0.0, 1.0, 128 * 128)
    m.launch("_Z18surfaceWriteKernelPfiiy", (16, 16), (8, 8), [image, np.int32(128), np.int32(128), surf])
    assert array.tobytes() == (d / "expected" / "array.bin").read_bytes()
    with pytest.raises(ValueError, match=r"texture.channels: 1, 2 or 4, not 3"):
        m.launch("_Z18surfaceWriteKernelPfiiy", 1, 1,
                 [image, np.int32(1), np.int32(1), ptxrun.Surface(array, dims=[4], channels=3)])
    # A cube map (cuda-samples simpleCubemapTexture), and its launch-time checks.
    d = SAMPLES / "texture" / "cuda_cubemap"
    faces = np.arange(6 * 64 * 64, dtype=np.float32)
    out = np.zeros(6 * 64 * 64, np.float32)
    cube = ptxrun.Texture(faces, dims=[64, 64], cubemap=True, filter="linear", address="wrap", normalized=True)
    m = ptxrun.Module.from_file(d / "kernel.ptx")
    m.launch("_Z15transformKernelPfiy", (8, 8), (8, 8), [out, np.int32(64), cube])
    assert out.tobytes() == (d / "expected" / "out.bin").read_bytes()
    with pytest.raises(ValueError, match=r"texture.cubemap: faces of a power-of-two width"):
        m.launch("_Z15transformKernelPfiy", 1, 1, [out, np.int32(48), ptxrun.Texture(faces, dims=[48, 48], cubemap=True)])
    with pytest.raises(ValueError, match=r"texture.min_lod: a level from 0 in steps of 1/256"):
        m.launch("_Z15transformKernelPfiy", 1, 1, [out, np.int32(64), ptxrun.Texture(faces, dims=[64, 64], levels=3,
                                                                                      normalized=True, min_lod=0.3)])


def ptxrun_random(seed: int, lo: float, hi: float, n: int) -> np.ndarray:
    """The launch files' `{ random = { seed, min, max } }` for f32 (SplitMix64, as src/launch.rs)."""
    out = np.empty(n, np.float32)
    state = seed
    for i in range(n):
        state = (state + 0x9E3779B97F4A7C15) & 0xFFFFFFFFFFFFFFFF
        z = state
        z = ((z ^ (z >> 30)) * 0xBF58476D1CE4E5B9) & 0xFFFFFFFFFFFFFFFF
        z = ((z ^ (z >> 27)) * 0x94D049BB133111EB) & 0xFFFFFFFFFFFFFFFF
        z ^= z >> 31
        out[i] = lo + (z >> 11) * 2.0**-53 * (hi - lo)
    return out


def test_a_cooperative_launch_syncs_the_grid():
    m = ptxrun.Module.from_file(JACOBI / "kernel.ptx")
    a = read(JACOBI / "inputs" / "a.bin", np.float32)
    f = read(JACOBI / "inputs" / "f.bin", np.float32)
    b = np.zeros_like(a)
    args = [a, b, f, np.int32(5000), np.int32(4)]
    m.launch(None, 24, 96, args, cooperative=True, explore=4)
    assert a.tobytes() == (JACOBI / "expected" / "a.bin").read_bytes()
    assert b.tobytes() == (JACOBI / "expected" / "b.bin").read_bytes()
    # Without a cooperative launch there is no grid workspace: grid.sync() traps.
    with pytest.raises(ptxrun.KernelFault, match="trap"):
        m.launch(None, 24, 96, args)
    with pytest.raises(ValueError, match="cannot be resident at once"):
        m.launch(None, 3000, 96, args, cooperative=True)


def test_the_jit_option_gives_the_same_bytes_compiled_at_once_by_default_or_never():
    alu = SAMPLES / "bench" / "alu_loop"
    m = ptxrun.Module.from_file(alu / "kernel.ptx")
    want = read(alu / "expected" / "out.bin", np.uint32)
    for jit in (False, True, 0, 7):
        out = np.zeros(16384, np.uint32)
        r = m.launch(None, 64, 256, [out, 1000], jit=jit, check=False)
        assert r.ok and np.array_equal(out, want), jit
    with pytest.raises(ValueError, match="jit"):
        m.launch(None, 1, 32, [np.zeros(32, np.uint32), 1], jit=-1)
    with pytest.raises(TypeError, match="jit"):
        m.launch(None, 1, 32, [np.zeros(32, np.uint32), 1], jit="fast")
