"""ptxrun from Python: run NVIDIA PTX kernels on NumPy arrays, bit-exact with an H100, and find
where they rely on undefined behaviour.

    import numpy as np, ptxrun
    m = ptxrun.Module.from_file("kernel.ptx")
    x = np.arange(1024, dtype=np.float32)
    report = m.launch("scale", grid=4, block=256, args=[x, np.float32(2.0), np.int32(x.size)])

Arrays are copied into device memory before the run and written back afterwards, as a device
round trip would. Scalars are NumPy scalars (their bytes are passed as they are) or Python
numbers (converted to the PTX parameter's type). A hazard raises `HazardError`, a kernel fault
(out-of-bounds, trap, deadlock, step limit) `KernelFault`, bad input `ValueError`
(`UnsupportedError` for an instruction ptxrun does not execute); the exception's text is the
rendered report and `.diagnostics` holds its findings.

Everything runs in the Rust library (`ptxrun._ptxrun`); this package only converts arguments.
`ptxrun.cupy` is a CuPy-compatible front end, `ptxrun.triton` runs `@triton.jit` kernels.
"""

from __future__ import annotations

import json as _json
import os as _os
import sys as _sys
import warnings
from typing import Any, Dict, Iterable, List, Optional, Sequence, Tuple, Union

import numpy as np

from . import _ptxrun

__version__ = _ptxrun.__version__

__all__ = [
    "Module",
    "Report",
    "Diagnostic",
    "TensorMap",
    "Texture",
    "Surface",
    "Struct",
    "PtxrunError",
    "HazardError",
    "KernelFault",
    "UnsupportedError",
    "LATENCY_MODELS",
]

#: The latency models `launch(latency=...)` takes (plus `fixed:N` and `uniform:LO-HI`).
LATENCY_MODELS = ("immediate", "fixed:500", "uniform:1-2000", "bandwidth", "adversarial")

Dim = Union[int, Sequence[int]]


class Diagnostic:
    """One finding of a report: a hazard (`kind` is one of the contract's hazard kinds) or the
    fault that stopped the run (`out-of-bounds`, `trap`, `deadlock`, `step-limit`, ...)."""

    __slots__ = (
        "kind",
        "severity",
        "message",
        "line",
        "column",
        "instruction",
        "cuda",
        "cta",
        "thread",
        "address",
        "related",
        "help",
        "count",
        "schedule",
    )

    def __init__(self, d: dict):
        self.kind: str = d["kind"]
        self.severity: str = d.get("severity", "error")
        self.message: str = d.get("message", "")
        #: PTX line and column of the offending instruction (0 when none).
        self.line: int = d.get("line", 0)
        self.column: int = d.get("column", 0)
        self.instruction: str = d.get("instruction", "")
        #: "file.cu:LINE" from the PTX's line information, or None.
        self.cuda: Optional[str] = d.get("cuda")
        self.cta: Tuple[int, int, int] = tuple(d.get("cta", (0, 0, 0)))
        self.thread: Tuple[int, int, int] = tuple(d.get("thread", (0, 0, 0)))
        self.address: Optional[str] = d.get("address")
        #: [(line, label)] of the other side (the copy, the earlier access, ...).
        self.related: List[Tuple[int, str]] = [(r["line"], r["label"]) for r in d.get("related", [])]
        self.help: Optional[str] = d.get("help")
        self.count: int = d.get("count", 1)
        #: With `explore`: {"index", "seed", "latency"} of the schedule that first showed it.
        self.schedule: Optional[dict] = d.get("schedule")

    @property
    def cuda_line(self) -> Optional[int]:
        """The CUDA source line, when the PTX has line information."""
        if not self.cuda:
            return None
        return int(self.cuda.rsplit(":", 1)[1])

    def __repr__(self) -> str:
        where = f"line {self.line}" + (f" ({self.cuda})" if self.cuda else "")
        return f"<Diagnostic {self.kind} at PTX {where}: {self.message}>"


class Stats:
    """Counters of a run (over all schedules with `explore`)."""

    __slots__ = ("thread_instructions", "warp_instructions", "cycles", "schedules")

    def __init__(self, d: dict):
        self.thread_instructions: int = d.get("thread_instructions", 0)
        self.warp_instructions: int = d.get("warp_instructions", 0)
        self.cycles: int = d.get("cycles", 0)
        self.schedules: int = d.get("schedules", 1)

    def __repr__(self) -> str:
        return (
            f"<Stats {self.thread_instructions} thread instructions, {self.cycles} cycles, "
            f"{self.schedules} schedule(s)>"
        )


class Report:
    """What a launch produced: `status` (`ok`, `hazard`, `fault`, `deadlock`), `diagnostics`,
    `stats`, the kernel's printed `stdout`, the rendered `text` and the contract's `json`."""

    def __init__(self, result: Any):
        self.json: str = result.json
        self.text: str = result.text
        self.stdout: str = result.stdout
        d = _json.loads(result.json)
        self.status: str = d["status"]
        self.diagnostics: List[Diagnostic] = [Diagnostic(x) for x in d["diagnostics"]]
        self.stats = Stats(d.get("stats", {}))
        # Findings the suppression rules hid: {"findings": N, "occurrences": M}, or None.
        self.suppressed: Optional[Dict[str, int]] = d.get("suppressed")

    @property
    def ok(self) -> bool:
        return self.status == "ok"

    @property
    def kinds(self) -> List[str]:
        return [d.kind for d in self.diagnostics]

    def __str__(self) -> str:
        return self.text

    def __repr__(self) -> str:
        return f"<Report {self.status}: {len(self.diagnostics)} diagnostic(s)>"


class PtxrunError(RuntimeError):
    """A launch found undefined behaviour or faulted; `report` is the whole report."""

    def __init__(self, report: Report):
        super().__init__(report.text)
        self.report = report
        self.diagnostics = report.diagnostics


class HazardError(PtxrunError):
    """The checker found undefined behaviour (a hazard kind of the contract)."""


class KernelFault(PtxrunError):
    """The kernel faulted: out-of-bounds or misaligned access, trap, deadlock, step limit."""


class UnsupportedError(ValueError):
    """The kernel reached an instruction ptxrun does not execute (bad input, never a guess)."""

    def __init__(self, report: Report):
        super().__init__(report.text)
        self.report = report
        self.diagnostics = report.diagnostics


class TensorMap:
    """A `CUtensorMap` over `array`, with `cuTensorMapEncodeTiled`'s arguments: `dims` (elements
    per dimension, innermost first), `box` (box size per dimension), `strides` (bytes, of
    dimensions 1..; default dense), `element_strides`, `swizzle` (`none`, `32B`, `64B`,
    `128B`), `oob_fill` (`zero`, `nan`), `l2_promotion`. `dtype` may also name an f32 flavour,
    `"f32_ftz"`, `"tf32"` or `"tf32_ftz"` (CU_TENSOR_MAP_DATA_TYPE_FLOAT32_FTZ, TFLOAT32,
    TFLOAT32_FTZ over f32 data). With `mode="im2col"` it is
    `cuTensorMapEncodeIm2col`'s map instead: no `box`, but `lower_corner` and `upper_corner`
    (the bounding box, W first), `channels_per_pixel` and `pixels_per_column`. Pass it as a
    kernel argument (a `const __grid_constant__ CUtensorMap`); `array` goes to device memory
    with the launch."""

    def __init__(
        self,
        array: np.ndarray,
        dims: Sequence[int],
        box: Optional[Sequence[int]] = None,
        dtype: Any = None,
        strides: Optional[Sequence[int]] = None,
        element_strides: Optional[Sequence[int]] = None,
        swizzle: str = "none",
        oob_fill: str = "zero",
        interleave: str = "none",
        l2_promotion: str = "none",
        mode: str = "tile",
        lower_corner: Optional[Sequence[int]] = None,
        upper_corner: Optional[Sequence[int]] = None,
        channels_per_pixel: Optional[int] = None,
        pixels_per_column: Optional[int] = None,
    ):
        self.array = array
        if isinstance(dtype, str) and dtype in ("f32_ftz", "tf32", "tf32_ftz"):
            self.elem = dtype
        else:
            self.elem = _type_name(np.dtype(dtype) if dtype is not None else array.dtype)
        self.dims = [int(d) for d in dims]
        self.box = None if box is None else [int(b) for b in box]
        if mode not in ("tile", "im2col"):
            raise ValueError(f"mode: `{mode}` (use tile or im2col)")
        if mode == "tile" and self.box is None:
            raise ValueError("box: missing (box size per dimension)")
        self.im2col = None
        if mode == "im2col":
            args = {"lower_corner": lower_corner, "upper_corner": upper_corner,
                    "channels_per_pixel": channels_per_pixel, "pixels_per_column": pixels_per_column}
            for k, v in args.items():
                if v is None:
                    raise ValueError(f"{k}: missing (an im2col map needs it)")
            self.im2col = ([int(v) for v in lower_corner], [int(v) for v in upper_corner],
                           int(channels_per_pixel), int(pixels_per_column))
        self.strides = None if strides is None else [int(s) for s in strides]
        self.element_strides = None if element_strides is None else [int(e) for e in element_strides]
        self.swizzle = swizzle
        self.oob_fill = oob_fill
        self.interleave = interleave
        self.l2_promotion = l2_promotion

    def _arg(self, index: int, offset: int) -> Any:
        spec = {k: getattr(self, k) for k in ("elem", "dims", "box", "strides", "element_strides", "swizzle",
                                              "oob_fill", "interleave", "l2_promotion", "im2col")}
        return _ptxrun.Arg.tensormap(index, offset, spec)


class Texture:
    """A texture object (`cudaTextureObject_t`) over `array`'s texels, x fastest: `dims`
    (width, height, depth), `channels` (1, 2, 4; the channel type is the array's dtype),
    `layers`, `filter` (`point`, `linear`), `address` (a mode or one per dimension: `wrap`,
    `clamp`, `mirror`, `border`), `normalized`, `read` (`element`, `normalized-float`),
    `border` (four floats), `resource` (`array`, or `linear` for `tex1Dfetch`), `cubemap`
    (six square faces one after another), `levels` (mipmap levels, dense, level 0 first) with
    `mipmap_filter`, `lod_bias`, `min_lod`, `max_lod`. The kernel receives an 8-byte handle;
    `array` goes to device memory with the launch."""

    surface = False

    def __init__(
        self,
        array: np.ndarray,
        dims: Sequence[int],
        channels: int = 1,
        layers: Optional[int] = None,
        filter: str = "point",
        address: Any = "clamp",
        normalized: bool = False,
        read: str = "element",
        border: Optional[Sequence[float]] = None,
        resource: str = "array",
        cubemap: bool = False,
        levels: int = 1,
        mipmap_filter: str = "point",
        lod_bias: float = 0.0,
        min_lod: float = 0.0,
        max_lod: Optional[float] = None,
    ):
        self.array = array
        self.spec = {
            "surface": self.surface, "type": _type_name(array.dtype), "channels": int(channels),
            "dims": [int(d) for d in dims], "layers": None if layers is None else int(layers), "pitch": None,
            "resource": resource, "filter": filter,
            "address": [address] if isinstance(address, str) else list(address),
            "normalized": bool(normalized), "read": read,
            "border": None if border is None else [float(b) for b in border],
            "cubemap": bool(cubemap), "levels": int(levels), "mipmap_filter": mipmap_filter,
            "lod_bias": float(lod_bias), "min_lod": float(min_lod),
            "max_lod": None if max_lod is None else float(max_lod),
        }

    def _arg(self, index: int, offset: int) -> Any:
        return _ptxrun.Arg.texture(index, offset, self.spec)


class Surface(Texture):
    """A surface object (`cudaSurfaceObject_t`) over `array`'s texels, x fastest: `dims`,
    `channels`, `layers`. Surface writes land in `array` when the launch returns."""

    surface = True

    def __init__(self, array: np.ndarray, dims: Sequence[int], channels: int = 1, layers: Optional[int] = None):
        super().__init__(array, dims, channels=channels, layers=layers)
        for k in ("resource", "filter", "address", "normalized", "read", "border"):
            self.spec[k] = None


_TYPE_NAMES = {
    np.dtype(np.uint8): "u8",
    np.dtype(np.int8): "i8",
    np.dtype(np.bool_): "u8",
    np.dtype(np.uint16): "u16",
    np.dtype(np.int16): "i16",
    np.dtype(np.uint32): "u32",
    np.dtype(np.int32): "i32",
    np.dtype(np.uint64): "u64",
    np.dtype(np.int64): "i64",
    np.dtype(np.float16): "f16",
    np.dtype(np.float32): "f32",
    np.dtype(np.float64): "f64",
}


def _type_name(dtype: np.dtype) -> str:
    """ptxrun's element type for a NumPy dtype (reports print elements in it)."""
    if dtype in _TYPE_NAMES:
        return _TYPE_NAMES[dtype]
    if dtype.name == "bfloat16":
        return "bf16"
    return "u8"


def dim3(d: Dim, what: str = "dimension") -> List[int]:
    """`n` or a sequence of 1 to 3 integers as [x, y, z]."""
    if isinstance(d, (int, np.integer)) and not isinstance(d, (bool, np.bool_)):
        v = [int(d)]
    elif isinstance(d, (tuple, list)) and all(
        isinstance(x, (int, np.integer)) and not isinstance(x, (bool, np.bool_)) for x in d
    ):
        v = [int(x) for x in d]
    else:
        raise TypeError(f"{what}: expected an integer or 1 to 3 integers, got {d!r}")
    if not 1 <= len(v) <= 3:
        raise ValueError(f"{what}: expected 1 to 3 integers, got {d!r}")
    if any(x < 0 or x >= 1 << 32 for x in v):
        raise ValueError(f"{what}: {d!r} out of range")
    return v + [1] * (3 - len(v))


def _count(v: Any, what: str, top: int = (1 << 64) - 1) -> int:
    """A non-negative integer option."""
    if isinstance(v, (bool, np.bool_)) or not isinstance(v, (int, np.integer)):
        raise TypeError(f"{what}: expected an integer, got {v!r}")
    if not 0 <= int(v) <= top:
        raise ValueError(f"{what}: {v} is out of range (0 to {top})")
    return int(v)


def _jit_options(jit: Any) -> dict:
    """The `jit` launch option (True, False or a count) as the extension takes it."""
    if isinstance(jit, (bool, np.bool_)):
        return dict(jit=bool(jit), jit_after=None)
    return dict(jit=True, jit_after=_count(jit, "jit", (1 << 32) - 1))


def _memory_of(a: np.ndarray, name: str) -> np.ndarray:
    """The array that owns `a`'s memory (a view's base): what a device allocation is. A pointer
    argument is the address of `a`'s first element inside it, as CuPy passes a view."""
    root = a
    while isinstance(root.base, np.ndarray):
        root = root.base
    if a.nbytes == 0 or not root.flags.c_contiguous:
        if not a.flags.c_contiguous:
            raise ValueError(f"{name}: a non-contiguous view whose memory is not one array")
        return a
    return root


class _Regions:
    """Arrays become device buffers, allocated as the arrays that own their memory are: a view
    is a pointer into its base array's buffer (at the same offset, so alignment is what the GPU
    sees), and arrays whose memory overlaps share one buffer, so they alias as on a device."""

    def __init__(self) -> None:
        # (argument array, its address, its memory's owner, that owner's address, name)
        self.arrays: List[Tuple[np.ndarray, int, np.ndarray, int, str]] = []

    def add(self, a: np.ndarray, name: str) -> None:
        if not isinstance(a, np.ndarray):
            raise TypeError(f"{name}: expected a NumPy array, got {type(a).__name__}")
        m = _memory_of(a, name)
        addr = lambda x: x.__array_interface__["data"][0]  # noqa: E731
        self.arrays.append((a, addr(a), m, addr(m), name))

    def layout(self) -> None:
        """Groups the memory owners into buffers: `self.buffers` [(start, end, name, type)]
        and, per argument array, `self.where` (buffer index, byte offset of its first element)."""
        spans = sorted(
            ((mp, mp + m.nbytes, i) for i, (_, _, m, mp, _) in enumerate(self.arrays)), key=lambda s: (s[0], -s[1])
        )
        self.buffers: List[List[Any]] = []
        owner = [0] * len(self.arrays)
        for start, end, i in spans:
            last = self.buffers[-1] if self.buffers else None
            if last is not None and start < last[1]:
                last[1] = max(last[1], end)
            else:
                _, _, m, _, name = self.arrays[i]
                self.buffers.append([start, end, name, _type_name(m.dtype)])
            owner[i] = len(self.buffers) - 1
        self.where = [(b, p - self.buffers[b][0]) for b, (_, p, _, _, _) in zip(owner, self.arrays)]
        self._owner = owner

    def _owners(self):
        """Each distinct memory owner once, with its buffer and offset."""
        seen = set()
        for (_, _, m, mp, _), b in zip(self.arrays, self._owner):
            if id(m) not in seen and m.nbytes:
                seen.add(id(m))
                yield m, b, mp - self.buffers[b][0]

    def contents(self) -> List[Tuple[str, str, bytes]]:
        data = [np.zeros(end - start, dtype=np.uint8) for start, end, _, _ in self.buffers]
        for m, b, off in self._owners():
            data[b][off : off + m.nbytes] = m.reshape(-1).view(np.uint8)
        return [(name, ty, d.tobytes()) for d, (_, _, name, ty) in zip(data, self.buffers)]

    def write_back(self, buffers: Sequence[bytes]) -> None:
        for m, b, off in self._owners():
            src = np.frombuffer(buffers[b], dtype=np.uint8, count=m.nbytes, offset=off)
            dst = m.reshape(-1).view(np.uint8)
            if m.flags.writeable:
                dst[:] = src
            elif not np.array_equal(dst, src):
                name = next(n for (_, _, x, _, n) in self.arrays if x is m)
                warnings.warn(f"{name}: the kernel wrote to a read-only array; its changes are not copied back",
                              RuntimeWarning, stacklevel=3)


def _int_bytes(v: int, ty: str, size: int, name: str) -> bytes:
    # PTX parameter types are loose (Triton declares an i32 `.u32`): any value that fits the
    # size as signed or unsigned is taken, in two's complement.
    lo, hi = -(1 << (8 * size - 1)), (1 << (8 * size)) - 1
    if ty.startswith("s"):
        hi = (1 << (8 * size - 1)) - 1
    if not lo <= v <= hi:
        raise OverflowError(f"{name}: {v} does not fit in .{ty}")
    return (v & ((1 << (8 * size)) - 1)).to_bytes(size, "little")


def _scalar_bytes(v: Any, ty: str, size: int, name: str) -> bytes:
    """A Python number as the PTX parameter's type."""
    is_float = ty in ("f16", "bf16", "f32", "f64")
    if isinstance(v, (bool, int)):
        if is_float:
            return _ptxrun.float_bytes(ty, float(v))
        return _int_bytes(int(v), ty, size, name)
    if isinstance(v, float):
        if not is_float:
            raise TypeError(f"{name}: a float for a .{ty} parameter (pass an int or a NumPy scalar)")
        return _ptxrun.float_bytes(ty, v)
    raise TypeError(f"{name}: cannot pass {type(v).__name__} to a .{ty} parameter")


class Struct:
    """A by-value struct argument (`.param .align N .b8 name[SIZE]`): `data` (zero-padded to the
    parameter's size) with each field at its byte offset. A field is a NumPy array (its device
    address, 8 bytes), a `TensorMap` (128 bytes), a NumPy scalar or `bytes` (their bytes), `None`
    (a null pointer) or a nested `Struct`; fields may not overlap. Plain Python numbers have no
    width here: pass `np.float32(2.5)`, `np.int32(7)`."""

    def __init__(self, fields: Optional[Dict[int, Any]] = None, data: bytes = b"") -> None:
        self.fields = dict(fields or {})
        self.data = bytes(data)
        for off in self.fields:
            if not isinstance(off, int) or off < 0:
                raise TypeError(f"Struct: field offsets are byte offsets (ints >= 0), not {off!r}")

    def __repr__(self) -> str:
        return f"Struct({self.fields!r}, data={self.data!r})"


def _collect(a: Any, name: str, regions: "_Regions", spots: Dict[int, int]) -> None:
    """Adds every array `a` points to (itself, a tensor map's, a struct's fields') to `regions`."""
    if isinstance(a, np.ndarray):
        spots[id(a)] = len(regions.arrays)
        regions.add(a, name)
    elif isinstance(a, (TensorMap, Texture)):
        spots[id(a)] = len(regions.arrays)
        regions.add(a.array, name)
    elif isinstance(a, Struct):
        for off, f in a.fields.items():
            _collect(f, f"{name}.fields[{off}]", regions, spots)


def _convert(a: Any, ty: str, size: int, name: str, regions: "_Regions", spots: Dict[int, int]) -> Any:
    """One argument as a `_ptxrun.Arg` (after `regions.layout()`)."""
    if isinstance(a, np.ndarray):
        return _ptxrun.Arg.buffer(*regions.where[spots[id(a)]])
    if isinstance(a, (TensorMap, Texture)):
        return a._arg(*regions.where[spots[id(a)]])
    if isinstance(a, Struct):
        fields = []
        for off, f in sorted(a.fields.items()):
            fname = f"{name}.fields[{off}]"
            if f is not None and not isinstance(f, (np.ndarray, TensorMap, Struct, np.generic, bytes, bytearray)):
                raise TypeError(f"{fname}: a struct field is an array, TensorMap, NumPy scalar, bytes, None or "
                                f"Struct, not {type(f).__name__} (give numbers a width: np.int32(...))")
            fields.append((off, _convert(f, "b8", 0, fname, regions, spots)))
        return _ptxrun.Arg.structure(a.data, fields)
    if a is None:
        return _ptxrun.Arg.null()
    if isinstance(a, np.generic):
        return _ptxrun.Arg.bytes(a.tobytes())
    if isinstance(a, (bytes, bytearray, memoryview)):
        return _ptxrun.Arg.bytes(bytes(a))
    return _ptxrun.Arg.bytes(_scalar_bytes(a, ty, size, name))


def _marshal(args: Sequence[Any], params: Sequence[Tuple[str, str, int, int]]):
    """Kernel arguments as `_ptxrun.Arg`s plus the buffers they point into."""
    if len(args) != len(params):
        raise ValueError(f"the kernel takes {len(params)} parameters, {len(args)} arguments given")
    regions = _Regions()
    spots: Dict[int, int] = {}
    for i, a in enumerate(args):
        _collect(a, f"args[{i}]", regions, spots)
    regions.layout()
    out = [_convert(a, ty, size, f"args[{i}]", regions, spots) for i, (a, (_, ty, size, _)) in enumerate(zip(args, params))]
    return out, regions


class Module:
    """A compiled PTX module (`from_file`, `from_ptx`); `launch` runs one of its kernels."""

    def __init__(self, raw: Any):
        self._raw = raw
        for w in raw.warnings:
            warnings.warn(f"{raw.name}: {w}", UserWarning, stacklevel=3)

    @classmethod
    def from_file(cls, path: Union[str, "_os.PathLike[str]"]) -> "Module":
        return cls(_ptxrun.Module.from_file(_os.fspath(path)))

    @classmethod
    def from_ptx(cls, text: str, name: Optional[str] = None) -> "Module":
        return cls(_ptxrun.Module.from_ptx(text, name))

    @property
    def name(self) -> str:
        return self._raw.name

    @property
    def text(self) -> str:
        return self._raw.text

    @property
    def warnings(self) -> List[str]:
        """Warnings about the module as a whole (a `.version` newer than ptxrun's PTX ISA 9.0)."""
        return self._raw.warnings

    @property
    def entries(self) -> List[str]:
        """The names of the module's `.entry` functions."""
        return self._raw.entries()

    def params(self, entry: Optional[str] = None) -> List[Tuple[str, str, int, int]]:
        """(name, PTX type, size, alignment) of each parameter of `entry`."""
        return self._raw.params(entry)[1]

    def launch(
        self,
        entry: Optional[str],
        grid: Dim,
        block: Dim,
        args: Sequence[Any] = (),
        shared_mem: int = 0,
        cluster: Optional[Dim] = None,
        cooperative: bool = False,
        seed: int = 0,
        latency: str = "bandwidth",
        check: bool = True,
        explore: Optional[int] = None,
        max_steps: int = 1 << 28,
        jobs: int = 1,
        raise_on_error: bool = True,
        printf: str = "stdout",
        deny_warnings: bool = False,
        suppress: Sequence[str] = (),
        jit: Union[bool, int] = True,
    ) -> Report:
        """Runs `entry` (None: the only entry) over `grid` x `block` threads with `args` in
        the order of its `.param` list. Arrays are written back after the run (also when it
        raises). `explore=N` runs N schedules (seeds x latency models) and reports every
        distinct hazard; the arrays then hold the first schedule's results. The kernel's
        `printf` output goes to `sys.stdout` (`printf="fd"`: to file descriptor 1, as the
        CUDA runtime writes it; `"none"`: only `Report.stdout`). Findings of severity
        `warning` are reported but raise only with `deny_warnings=True`; `suppress` hides
        findings matching its rules (`"KIND"` or `"KIND:LOCATION"`, globs, as in a
        `--suppressions` file), which the report counts in `suppressed`. `jit=False` runs
        everything interpreted (`--no-jit`); `jit=N` compiles a straight run of instructions
        once the interpreter has run them N times each on average (`--jit-after N`; 0: at
        once); results are the same either way. `cooperative=True`
        is `cudaLaunchCooperativeKernel`: every CTA resident at once, `this_grid().sync()`
        works, and a grid the GPU cannot hold at once is a `ValueError`."""
        params = self.params(entry)
        raw_args, regions = _marshal(args, params)
        options = dict(
            seed=_count(seed, "seed"),
            latency=str(latency),
            check=bool(check),
            max_steps=_count(max_steps, "max_steps"),
            jobs=_count(jobs, "jobs", 1024),
            explore=None if explore is None else _count(explore, "explore", 1 << 20),
            deny_warnings=bool(deny_warnings),
            suppress=[str(r) for r in ([suppress] if isinstance(suppress, str) else suppress)],
            **_jit_options(jit),
        )
        shape = dict(
            grid=dim3(grid, "grid"),
            block=dim3(block, "block"),
            cluster=None if cluster is None else dim3(cluster, "cluster"),
            shared_mem=_count(shared_mem, "shared_mem", (1 << 32) - 1),
            cooperative=bool(cooperative),
        )
        if printf not in ("stdout", "fd", "none"):
            raise ValueError(f"printf={printf!r}: use 'stdout', 'fd' or 'none'")
        result = self._raw.launch(entry, shape, regions.contents(), raw_args, options)
        regions.write_back(result.buffers)
        if result.stdout and printf == "stdout":
            _sys.stdout.write(result.stdout)
        elif result.stdout and printf == "fd":
            _sys.stdout.flush()
            _os.write(1, result.stdout.encode())
        report = Report(result)
        if result.unsupported:
            raise UnsupportedError(report)
        if raise_on_error:
            if report.status == "hazard":
                raise HazardError(report)
            if report.status != "ok":
                raise KernelFault(report)
        return report

    def __repr__(self) -> str:
        return f"<ptxrun.Module {self.name!r}: entries {self.entries}>"


def run_cli(argv: Optional[Iterable[str]] = None) -> int:
    """Runs the `ptxrun` command line (`argv` without the program name); returns its exit code."""
    args = list(_sys.argv[1:] if argv is None else argv)
    _sys.stdout.flush()
    _sys.stderr.flush()
    return _ptxrun.cli_main(["ptxrun", *args])
