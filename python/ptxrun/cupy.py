"""The part of CuPy that kernel test scripts use, running on ptxrun: `import ptxrun.cupy as cp`
and a script written for CuPy's `RawModule` runs unchanged, on any machine.

    mod = cp.RawModule(path="kernel.ptx")            # or code=PTX text (or CUDA C++ with nvcc)
    k = mod.get_function("saxpy")
    x = cp.asarray(np.arange(n, dtype=np.float32))
    y = cp.zeros(n, dtype=cp.float32)
    k((n // 256,), (256,), (x, y, np.float32(2.0), np.int32(n)), shared_mem=0)
    cp.cuda.Device().synchronize()
    out = y.get()

Device memory is host memory here: `ndarray` wraps a NumPy array, and a kernel call copies the
arrays it receives into ptxrun's device memory and back, so views of one array alias as they do
on the GPU. Arguments are passed as CuPy passes them: a NumPy scalar with its own bytes, a
Python `int` as a 64-bit integer and a `float` as a double, of which the kernel sees as many
bytes as its parameter has (a `float` for a 4-byte `float` parameter is garbage on a GPU too:
ptxrun warns). Every launch is checked for hazards: `HazardError` is raised where the GPU would
silently compute something else; `config.check = False` (or `PTXRUN_CHECK=0`) turns it off.
"""

from __future__ import annotations

import os as _os
import re as _re
import shutil as _shutil
import subprocess as _subprocess
import tempfile as _tempfile
import warnings as _warnings
from typing import Any, Dict, Optional, Sequence, Tuple, Union

import numpy as _np

from . import HazardError, KernelFault, Module, TensorMap, UnsupportedError, dim3

# CuPy exports NumPy's scalar types and dtypes.
from numpy import (  # noqa: F401
    bool_,
    complex64,
    complex128,
    dtype,
    float16,
    float32,
    float64,
    int8,
    int16,
    int32,
    int64,
    intp,
    uint8,
    uint16,
    uint32,
    uint64,
)

__all__ = [
    "RawModule",
    "RawKernel",
    "ndarray",
    "asarray",
    "array",
    "asnumpy",
    "zeros",
    "ones",
    "empty",
    "full",
    "zeros_like",
    "ones_like",
    "empty_like",
    "full_like",
    "arange",
    "cuda",
    "config",
    "random",
    "get_default_memory_pool",
    "tensor_map_encode_tiled",
    "tensor_map_encode_im2col",
    "HazardError",
    "KernelFault",
]


class _Config:
    """How kernel calls run: `check` (hazard checking, default on unless PTXRUN_CHECK=0),
    `seed` and `latency` (the schedule), `explore` (None, or a number of schedules), `jit`
    (True, False or a count, as `ptxrun.Module.launch` takes it; PTXRUN_JIT=off or 0 turns it
    off, PTXRUN_JIT=N compiles after N runs)."""

    def __init__(self) -> None:
        self.check = _os.environ.get("PTXRUN_CHECK", "1") not in ("0", "false", "no", "off")
        self.seed = int(_os.environ.get("PTXRUN_SEED", "0"))
        self.latency = _os.environ.get("PTXRUN_LATENCY", "bandwidth")
        self.explore: Optional[int] = None
        jit = _os.environ.get("PTXRUN_JIT", "on").strip().lower()
        self.jit: Union[bool, int] = (
            False if jit in ("0", "false", "no", "off") else True if jit in ("true", "yes", "on") else int(jit)
        )
        #: The last kernel call's `ptxrun.Report`.
        self.last_report = None


config = _Config()


def _unwrap(x: Any) -> Any:
    if isinstance(x, ndarray):
        return x._a
    if isinstance(x, (list, tuple)):
        return type(x)(_unwrap(v) for v in x)
    return x


def _wrap(x: Any) -> Any:
    if isinstance(x, _np.ndarray):
        return ndarray._of(x)
    if isinstance(x, _np.generic):
        # CuPy's reductions and scalar indexing give 0-d device arrays.
        return ndarray._of(_np.asarray(x))
    if isinstance(x, tuple):
        return tuple(_wrap(v) for v in x)
    return x


class ndarray:
    """A device array: a NumPy array standing for device memory. Kernels write into it;
    `get()` copies it back to the host."""

    __array_priority__ = 100

    def __init__(self, shape: Any, dtype: Any = float, order: str = "C"):
        self._a = _np.zeros(shape, dtype=dtype, order=order)

    @classmethod
    def _of(cls, a: _np.ndarray) -> "ndarray":
        obj = cls.__new__(cls)
        obj._a = a
        return obj

    # What CuPy's ndarray answers.
    shape = property(lambda self: self._a.shape)
    dtype = property(lambda self: self._a.dtype)
    size = property(lambda self: self._a.size)
    ndim = property(lambda self: self._a.ndim)
    nbytes = property(lambda self: self._a.nbytes)
    itemsize = property(lambda self: self._a.itemsize)
    strides = property(lambda self: self._a.strides)
    flags = property(lambda self: self._a.flags)
    T = property(lambda self: ndarray._of(self._a.T))

    @property
    def data(self) -> "_MemoryPointer":
        return _MemoryPointer(self._a)

    def get(self, stream: Any = None, order: str = "C", out: Optional[_np.ndarray] = None) -> _np.ndarray:
        if out is not None:
            out[...] = self._a
            return out
        return _np.array(self._a, order=order, copy=True)

    def set(self, arr: Any, stream: Any = None) -> None:
        self._a[...] = _np.asarray(arr)

    def copy(self, order: str = "C") -> "ndarray":
        return ndarray._of(self._a.copy(order=order))

    def fill(self, value: Any) -> None:
        self._a.fill(value)

    def __len__(self) -> int:
        return len(self._a)

    def __iter__(self):
        return (_wrap(v) for v in self._a)

    def __getitem__(self, key: Any) -> Any:
        return _wrap(self._a[_unwrap(key)])

    def __setitem__(self, key: Any, value: Any) -> None:
        self._a[_unwrap(key)] = _unwrap(value)

    def __repr__(self) -> str:
        return repr(self._a).replace("array(", "array(", 1)

    def __str__(self) -> str:
        return str(self._a)

    def __array__(self, dtype: Any = None, copy: Any = None) -> _np.ndarray:
        # CuPy refuses implicit conversion; being lenient here only helps scripts run.
        return self._a if dtype is None else self._a.astype(dtype)

    def __array_ufunc__(self, ufunc: Any, method: str, *inputs: Any, **kwargs: Any) -> Any:
        if "out" in kwargs:
            kwargs["out"] = _unwrap(kwargs["out"])
        return _wrap(getattr(ufunc, method)(*_unwrap(inputs), **kwargs))

    def __getattr__(self, name: str) -> Any:
        # reshape, ravel, astype, view, sum, max, min, mean, any, all, ...
        attr = getattr(self._a, name)
        if callable(attr):
            return lambda *a, **k: _wrap(attr(*_unwrap(a), **{n: _unwrap(v) for n, v in k.items()}))
        return _wrap(attr)

    def __bool__(self) -> bool:
        return bool(self._a)

    def __int__(self) -> int:
        return int(self._a)

    def __float__(self) -> float:
        return float(self._a)

    def __index__(self) -> int:
        return self._a.__index__()


def _binary(op: str):
    def f(self: ndarray, other: Any) -> Any:
        return _wrap(getattr(self._a, op)(_unwrap(other)))

    f.__name__ = op
    return f


for _op in (
    "add sub mul truediv floordiv mod pow and or xor lshift rshift matmul "
    "radd rsub rmul rtruediv rfloordiv rmod rpow rand ror rxor rmatmul "
    "iadd isub imul itruediv ifloordiv imod ipow iand ior ixor ilshift irshift "
    "eq ne lt le gt ge"
).split():
    setattr(ndarray, f"__{_op}__", _binary(f"__{_op}__"))
for _op in ("neg", "pos", "abs", "invert"):
    setattr(ndarray, f"__{_op}__", (lambda o: lambda self: _wrap(getattr(self._a, o)()))(f"__{_op}__"))


class _MemoryPointer:
    """`ndarray.data`: passed to a kernel, the array's first element; `ptr` is the host address
    standing for the device pointer (an integer, so it cannot be passed as an argument)."""

    def __init__(self, a: _np.ndarray):
        self._a = a
        self.ptr = a.__array_interface__["data"][0]

    def __int__(self) -> int:
        return self.ptr


def asarray(a: Any, dtype: Any = None, order: Optional[str] = None) -> ndarray:
    if isinstance(a, ndarray) and (dtype is None or _np.dtype(dtype) == a.dtype):
        return a
    return ndarray._of(_np.array(_unwrap(a), dtype=dtype, order=order or "C", copy=True))


def array(obj: Any, dtype: Any = None, copy: bool = True, order: str = "K", ndmin: int = 0) -> ndarray:
    return ndarray._of(_np.array(_unwrap(obj), dtype=dtype, copy=True, order="C", ndmin=ndmin))


def asnumpy(a: Any, stream: Any = None, order: str = "C", out: Optional[_np.ndarray] = None) -> _np.ndarray:
    if isinstance(a, ndarray):
        return a.get(order=order, out=out)
    return _np.asarray(a, order=order)


def zeros(shape: Any, dtype: Any = float, order: str = "C") -> ndarray:
    return ndarray._of(_np.zeros(shape, dtype=dtype, order=order))


def ones(shape: Any, dtype: Any = float, order: str = "C") -> ndarray:
    return ndarray._of(_np.ones(shape, dtype=dtype, order=order))


def empty(shape: Any, dtype: Any = float, order: str = "C") -> ndarray:
    # Fresh device memory holds whatever was there; zeros keep runs deterministic.
    return ndarray._of(_np.zeros(shape, dtype=dtype, order=order))


def full(shape: Any, fill_value: Any, dtype: Any = None, order: str = "C") -> ndarray:
    return ndarray._of(_np.full(shape, fill_value, dtype=dtype, order=order))


def zeros_like(a: Any, dtype: Any = None) -> ndarray:
    return ndarray._of(_np.zeros_like(_unwrap(a), dtype=dtype))


def ones_like(a: Any, dtype: Any = None) -> ndarray:
    return ndarray._of(_np.ones_like(_unwrap(a), dtype=dtype))


def empty_like(a: Any, dtype: Any = None) -> ndarray:
    return ndarray._of(_np.zeros_like(_unwrap(a), dtype=dtype))


def full_like(a: Any, fill_value: Any, dtype: Any = None) -> ndarray:
    return ndarray._of(_np.full_like(_unwrap(a), fill_value, dtype=dtype))


def arange(*args: Any, **kwargs: Any) -> ndarray:
    return ndarray._of(_np.arange(*args, **kwargs))


def _wrapped(attr: Any) -> Any:
    if callable(attr) and not isinstance(attr, type):
        return lambda *a, **k: _wrap(attr(*_unwrap(a), **{n: _unwrap(v) for n, v in k.items()}))
    return attr


def __getattr__(name: str) -> Any:
    """Other NumPy functions (`cp.sqrt`, `cp.allclose`, ...) on device arrays."""
    if name.startswith("__") or not hasattr(_np, name):
        raise AttributeError(f"ptxrun.cupy has no attribute {name!r} (not in the part of CuPy ptxrun provides)")
    return _wrapped(getattr(_np, name))


class _Namespace:
    """A NumPy submodule (`cp.random`, `cp.linalg`, `cp.fft`) whose functions give device arrays."""

    def __init__(self, module: Any, name: str):
        self._module = module
        self._name = name

    def __getattr__(self, name: str) -> Any:
        if not hasattr(self._module, name):
            raise AttributeError(f"{self._name} has no attribute {name!r}")
        return _wrapped(getattr(self._module, name))


random = _Namespace(_np.random, "ptxrun.cupy.random")
linalg = _Namespace(_np.linalg, "ptxrun.cupy.linalg")
fft = _Namespace(_np.fft, "ptxrun.cupy.fft")


class _MemoryPool:
    """`cp.get_default_memory_pool()`: device memory is host memory here."""

    def used_bytes(self) -> int:
        return 0

    def total_bytes(self) -> int:
        return 0

    def free_all_blocks(self, stream: Any = None) -> None:
        pass

    def set_limit(self, size: Any = None, fraction: Any = None) -> None:
        pass


_pool = _MemoryPool()


def get_default_memory_pool() -> _MemoryPool:
    return _pool


def get_default_pinned_memory_pool() -> _MemoryPool:
    return _pool


class testing:
    """`cupy.testing`'s assertions, on device arrays."""

    @staticmethod
    def assert_array_equal(x: Any, y: Any, *a: Any, **k: Any) -> None:
        _np.testing.assert_array_equal(asnumpy(x), asnumpy(y), *a, **k)

    @staticmethod
    def assert_allclose(x: Any, y: Any, *a: Any, **k: Any) -> None:
        _np.testing.assert_allclose(asnumpy(x), asnumpy(y), *a, **k)


# ----------------------------------------------------------------------------------------------
# Modules and kernels


def _looks_like_ptx(code: str) -> bool:
    return bool(_re.search(r"^\s*\.version\s", code, _re.M)) and ".target" in code


def _nvcc() -> Optional[str]:
    return _os.environ.get("PTXRUN_NVCC") or _shutil.which("nvcc")


def _compile_cuda(code: str, options: Sequence[str]) -> str:
    """CUDA C++ to PTX with nvcc (`PTXRUN_NVCC` or `nvcc` on PATH); CuPy uses NVRTC."""
    nvcc = _nvcc()
    if nvcc is None:
        raise RuntimeError(
            "ptxrun.cupy: RawModule(code=...) got CUDA C++, which needs nvcc to become PTX "
            "(set PTXRUN_NVCC or put nvcc on PATH), or pass PTX text / path='kernel.ptx'"
        )
    opts = list(options)
    if not any(o.startswith(("-arch", "--gpu-architecture")) for o in opts):
        opts.append("-arch=sm_90a")
    with _tempfile.TemporaryDirectory() as d:
        src = _os.path.join(d, "kernel.cu")
        out = _os.path.join(d, "kernel.ptx")
        with open(src, "w") as f:
            f.write(code)
        r = _subprocess.run([nvcc, "-ptx", *opts, "-o", out, src], capture_output=True, text=True)
        if r.returncode != 0:
            raise RuntimeError(f"nvcc failed:\n{r.stderr}")
        with open(out) as f:
            return f.read()


class RawModule:
    """CuPy's `RawModule`: PTX from `path` (a `.ptx` file) or `code` (PTX text, or CUDA C++
    compiled with nvcc when one is found)."""

    def __init__(
        self,
        code: Optional[str] = None,
        path: Optional[str] = None,
        options: Sequence[str] = (),
        backend: str = "nvrtc",
        translate_cucomplex: bool = False,
        enable_cooperative_groups: bool = False,
        name_expressions: Optional[Sequence[str]] = None,
        log_stream: Any = None,
        jitify: bool = False,
    ):
        if (code is None) == (path is None):
            raise TypeError("RawModule takes exactly one of code= and path=")
        if path is not None:
            if not str(path).endswith(".ptx"):
                raise ValueError(f"ptxrun.cupy: {path}: only PTX modules can run (not cubin/fatbin)")
            self.module = Module.from_file(path)
        elif _looks_like_ptx(code):
            self.module = Module.from_ptx(code)
        else:
            self.module = Module.from_ptx(_compile_cuda(code, options), name="<nvcc>")
        self.code = code
        self.options = tuple(options)
        self.name_expressions = name_expressions

    def get_function(self, name: str) -> "Function":
        return Function(self.module, _entry(self.module, name))

    def get_global(self, name: str) -> Any:
        raise NotImplementedError("ptxrun.cupy: module globals are not reachable from Python yet")


def _entry(module: Module, name: str) -> str:
    """`name` itself, or the one C++-mangled entry (`_Z<len><name>...`) it names."""
    entries = module.entries
    if name in entries:
        return name
    mangled = [e for e in entries if e.startswith(f"_Z{len(name)}{name}")]
    if len(mangled) == 1:
        return mangled[0]
    raise AttributeError(f"no kernel named {name!r} in the module (entries: {', '.join(entries)})")


class Function:
    """A kernel: call it as `kernel(grid, block, args, shared_mem=0)`."""

    def __init__(self, module: Module, entry: str):
        self.module = module
        self.name = entry
        self._params = module.params(entry)
        #: As on the GPU, dynamic shared memory above 48 KiB must be opted into.
        self.max_dynamic_shared_size_bytes = 48 * 1024
        self.preferred_shared_memory_carveout = -1
        version = _re.search(r"^\s*\.version\s+(\d+)\.(\d+)", module.text, _re.M)
        self.ptx_version = int(version.group(1)) * 10 + int(version.group(2)) if version else 0
        self.binary_version = 90
        self.max_threads_per_block = 1024
        self.shared_size_bytes = 0
        self.const_size_bytes = 0
        self.local_size_bytes = 0
        self.num_regs = 0
        self.cache_mode_ca = 0

    @property
    def attributes(self) -> Dict[str, int]:
        names = ("max_threads_per_block", "shared_size_bytes", "const_size_bytes", "local_size_bytes",
                 "num_regs", "ptx_version", "binary_version", "cache_mode_ca",
                 "max_dynamic_shared_size_bytes", "preferred_shared_memory_carveout")
        return {n: getattr(self, n) for n in names}

    def __call__(
        self,
        grid: Any,
        block: Any,
        args: Sequence[Any],
        *,
        shared_mem: int = 0,
        stream: Any = None,
        enable_cooperative_groups: bool = False,
    ) -> None:
        if len(args) != len(self._params):
            raise TypeError(
                f"{self.name} takes {len(self._params)} arguments, {len(args)} given"
            )
        if shared_mem > self.max_dynamic_shared_size_bytes:
            raise CUDADriverError(
                f"CUDA_ERROR_INVALID_VALUE: shared_mem={shared_mem} is above the kernel's "
                f"max_dynamic_shared_size_bytes ({self.max_dynamic_shared_size_bytes}); raise it first, "
                "as on a GPU"
            )
        converted = [_cupy_arg(a, p, i) for i, (a, p) in enumerate(zip(args, self._params))]
        config.last_report = self.module.launch(
            self.name,
            dim3(grid, "grid"),
            dim3(block, "block"),
            converted,
            shared_mem=shared_mem,
            seed=config.seed,
            latency=config.latency,
            check=config.check,
            explore=config.explore,
            jit=config.jit,
            printf="fd",
        )


class RawKernel(Function):
    """CuPy's `RawKernel(code, name)`: one kernel of PTX text (or CUDA C++ with nvcc)."""

    def __init__(self, code: str, name: str, options: Sequence[str] = (), backend: str = "nvrtc", **kwargs: Any):
        self.code = code
        self.options = tuple(options)
        self.raw_module = RawModule(code=code, options=options)
        super().__init__(self.raw_module.module, _entry(self.raw_module.module, name))

    @property
    def kernel(self) -> "Function":
        return self


def _cupy_arg(a: Any, param: Tuple[str, str, int, int], i: int) -> Any:
    """One argument as CuPy passes it: the kernel sees the parameter's size of its bytes."""
    _, ty, size, _ = param
    if isinstance(a, ndarray):
        return a._a
    if isinstance(a, _MemoryPointer):
        return a._a
    if a is None or isinstance(a, TensorMap):
        return a  # a null pointer; a tensor map
    if isinstance(a, _np.ndarray):
        raise TypeError(f"args[{i}]: a NumPy array; pass a device array (cp.asarray)")
    if isinstance(a, int):  # bool too: CuPy passes Python integers as 64-bit
        if ty in ("f16", "bf16", "f32", "f64"):
            _warnings.warn(
                f"args[{i}]: a Python int is passed as a 64-bit integer, and the .{ty} parameter "
                "sees its bits (as on a GPU); pass np.float32(...)",
                RuntimeWarning,
                stacklevel=4,
            )
        raw = _np.int64(a).tobytes()
    elif isinstance(a, float):
        if size < 8:
            _warnings.warn(
                f"args[{i}]: a Python float is passed as a double, and the {size}-byte .{ty} "
                f"parameter sees its low {size} bytes (as on a GPU); pass np.float32(...)",
                RuntimeWarning,
                stacklevel=4,
            )
        raw = _np.float64(a).tobytes()
    elif isinstance(a, _np.generic):
        raw = a.tobytes()
    else:
        raise TypeError(f"args[{i}]: unsupported argument type {type(a).__name__}")
    if len(raw) < size:
        raise ValueError(
            f"args[{i}]: {len(raw)} bytes for the {size}-byte .{ty} parameter (the kernel would "
            "read past the argument)"
        )
    return raw[:size]


# Tensor maps, as cuTensorMapEncodeTiled and cuTensorMapEncodeIm2col take them.

#: CU_TENSOR_MAP_DATA_TYPE_* values.
_TENSOR_TYPES = {
    0: "u8",
    1: "u16",
    2: "u32",
    3: "i32",
    4: "u64",
    5: "i64",
    6: "f16",
    7: "f32",
    8: "f64",
    9: "bf16",
    10: "f32_ftz",
    11: "tf32",
    12: "tf32_ftz",
}
_SWIZZLES = {0: "none", 1: "32B", 2: "64B", 3: "128B"}
_L2 = {0: "none", 1: "64B", 2: "128B", 3: "256B"}


def _tensor_map(tensor_data_type: Any, global_address: Any, rank: int, lengths: Sequence[Any],
                interleave: Any, swizzle: Any, l2_promotion: Any, oob_fill: Any, **shape: Any) -> TensorMap:
    """The checks and conversions both encoders share; `lengths` are (name, list, entries wanted)."""
    if not isinstance(global_address, ndarray):
        raise TypeError("global_address: a device array (the memory the map describes)")
    for name, v, n in lengths:
        if len(v) != n:
            raise ValueError(f"{name}: {len(v)} entries for rank {rank}")
    if interleave not in (0, "none"):
        raise ValueError("interleave: only CU_TENSOR_MAP_INTERLEAVE_NONE is supported")
    by_code = isinstance(tensor_data_type, int)
    m = TensorMap(
        global_address._a,
        dtype=None if by_code else _np.dtype(tensor_data_type),
        swizzle=_SWIZZLES.get(swizzle, swizzle),
        oob_fill={0: "zero", 1: "nan"}.get(oob_fill, oob_fill),
        l2_promotion=_L2.get(l2_promotion, l2_promotion),
        **shape,
    )
    if by_code:
        m.elem = _TENSOR_TYPES[tensor_data_type]
    return m


def tensor_map_encode_tiled(
    tensor_data_type: Any,
    tensor_rank: int,
    global_address: ndarray,
    global_dim: Sequence[int],
    global_strides: Sequence[int],
    box_dim: Sequence[int],
    element_strides: Sequence[int],
    interleave: int = 0,
    swizzle: Any = 0,
    l2_promotion: Any = 0,
    oob_fill: Any = 0,
) -> TensorMap:
    """`cuTensorMapEncodeTiled` with its arguments in its order: a data type (a
    CU_TENSOR_MAP_DATA_TYPE value or a NumPy dtype), the rank, the array the map describes, the
    dims (innermost first), the byte strides of dimensions 1.., the box, the element strides,
    interleave (0), swizzle (0..3 or "128B"...), L2 promotion, and the out-of-bounds fill (0
    zero, 1 NaN). Pass the result as the kernel's CUtensorMap argument."""
    rank = int(tensor_rank)
    lengths = (("global_dim", global_dim, rank), ("box_dim", box_dim, rank),
               ("element_strides", element_strides, rank), ("global_strides", global_strides, rank - 1))
    return _tensor_map(tensor_data_type, global_address, rank, lengths, interleave, swizzle, l2_promotion,
                       oob_fill, dims=global_dim, box=box_dim, strides=list(global_strides),
                       element_strides=element_strides)


def tensor_map_encode_im2col(
    tensor_data_type: Any,
    tensor_rank: int,
    global_address: ndarray,
    global_dim: Sequence[int],
    global_strides: Sequence[int],
    pixel_box_lower_corner: Sequence[int],
    pixel_box_upper_corner: Sequence[int],
    channels_per_pixel: int,
    pixels_per_column: int,
    element_strides: Sequence[int],
    interleave: int = 0,
    swizzle: Any = 0,
    l2_promotion: Any = 0,
    oob_fill: Any = 0,
) -> TensorMap:
    """`cuTensorMapEncodeIm2col` with its arguments in its order (as
    `tensor_map_encode_tiled`, with the bounding box's corners (W first), the channels per
    pixel and the pixels per column instead of a box)."""
    rank = int(tensor_rank)
    lengths = (("global_dim", global_dim, rank), ("element_strides", element_strides, rank),
               ("global_strides", global_strides, rank - 1),
               ("pixel_box_lower_corner", pixel_box_lower_corner, rank - 2),
               ("pixel_box_upper_corner", pixel_box_upper_corner, rank - 2))
    return _tensor_map(tensor_data_type, global_address, rank, lengths, interleave, swizzle, l2_promotion,
                       oob_fill, dims=global_dim, strides=list(global_strides), element_strides=element_strides,
                       mode="im2col", lower_corner=pixel_box_lower_corner, upper_corner=pixel_box_upper_corner,
                       channels_per_pixel=channels_per_pixel, pixels_per_column=pixels_per_column)


# ----------------------------------------------------------------------------------------------
# cupy.cuda


class _Stream:
    def __init__(self, null: bool = False, non_blocking: bool = False, ptds: bool = False):
        self.ptr = 0

    def synchronize(self) -> None:
        pass

    def use(self) -> "_Stream":
        return self

    def __enter__(self) -> "_Stream":
        return self

    def __exit__(self, *exc: Any) -> None:
        pass


class _Device:
    def __init__(self, device: int = 0):
        if int(device) != 0:
            raise ValueError("ptxrun.cupy: one device (0)")
        self.id = 0

    compute_capability = "90"

    def synchronize(self) -> None:
        pass

    def use(self) -> "_Device":
        return self

    def __enter__(self) -> "_Device":
        return self

    def __exit__(self, *exc: Any) -> None:
        pass

    @property
    def attributes(self) -> Dict[str, int]:
        return {"MaxSharedMemoryPerBlockOptin": 227 * 1024, "MaxSharedMemoryPerBlock": 48 * 1024,
                "MultiProcessorCount": 132, "WarpSize": 32, "MaxThreadsPerBlock": 1024,
                "MaxBlockDimX": 1024, "MaxBlockDimY": 1024, "MaxBlockDimZ": 64,
                "MaxGridDimX": 2**31 - 1, "MaxGridDimY": 65535, "MaxGridDimZ": 65535,
                "ComputeCapabilityMajor": 9, "ComputeCapabilityMinor": 0}


class CUDADriverError(RuntimeError):
    """What CuPy raises when the driver refuses a launch."""


class _Driver:
    CUDADriverError = CUDADriverError


class _Event:
    """`cp.cuda.Event`: records host time (kernels run synchronously here)."""

    def __init__(self, block: bool = False, disable_timing: bool = False, interprocess: bool = False):
        self.t = 0.0

    def record(self, stream: Any = None) -> None:
        import time

        self.t = time.perf_counter()

    def synchronize(self) -> None:
        pass

    @property
    def done(self) -> bool:
        return True


class _Runtime:
    @staticmethod
    def deviceSynchronize() -> None:
        pass

    @staticmethod
    def getDeviceCount() -> int:
        return 1

    @staticmethod
    def getDevice() -> int:
        return 0

    @staticmethod
    def getDeviceProperties(device: int) -> Dict[str, Any]:
        return {"name": b"ptxrun (NVIDIA H100 model)", "major": 9, "minor": 0, "warpSize": 32,
                "multiProcessorCount": 132, "sharedMemPerBlock": 48 * 1024,
                "sharedMemPerBlockOptin": 227 * 1024, "maxThreadsPerBlock": 1024,
                "maxThreadsDim": (1024, 1024, 64), "maxGridSize": (2**31 - 1, 65535, 65535),
                "regsPerBlock": 65536, "totalGlobalMem": 80 * 2**30, "clockRate": 1980000,
                "l2CacheSize": 50 * 2**20, "concurrentKernels": 1}

    @staticmethod
    def runtimeGetVersion() -> int:
        return 13000

    @staticmethod
    def driverGetVersion() -> int:
        return 13000


class cuda:
    """`cupy.cuda`: one device, streams that are always synchronized."""

    Device = _Device
    Stream = _Stream
    Event = _Event
    runtime = _Runtime
    driver = _Driver
    RawModule = RawModule
    RawKernel = RawKernel

    @staticmethod
    def get_current_stream() -> _Stream:
        return _Stream.null

    @staticmethod
    def get_elapsed_time(start: _Event, end: _Event) -> float:
        return (end.t - start.t) * 1000.0

    @staticmethod
    def is_available() -> bool:
        return True


_Stream.null = _Stream(null=True)


def _main(argv: Sequence[str]) -> None:
    """`python -m ptxrun.cupy SCRIPT [ARGS...]`: runs an unmodified CuPy script on ptxrun (its
    `import cupy` gets this module, in the subprocesses it starts too)."""
    import sys

    if not argv or argv[0] in ("-h", "--help"):
        print("usage: python -m ptxrun.cupy SCRIPT [ARGS...]   (runs a CuPy script on ptxrun)")
        sys.exit(0 if argv else 2)
    shim = _os.path.join(_os.path.dirname(_os.path.abspath(__file__)), "_shim")
    env = dict(_os.environ)
    env["PYTHONPATH"] = _os.pathsep.join(p for p in (shim, env.get("PYTHONPATH", "")) if p)
    sys.stdout.flush()
    sys.exit(_subprocess.call([sys.executable, *argv], env=env))


if __name__ == "__main__":
    import sys

    _main(sys.argv[1:])
