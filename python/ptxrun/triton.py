"""Run `@triton.jit` kernels on NumPy arrays, on any machine: Triton's own compiler turns the
kernel into PTX for a chosen GPU (no GPU needed), and ptxrun runs that PTX with the grid, warps,
shared memory and cluster size Triton's metadata gives.

    import ptxrun.triton as pt
    pt.launch(add_kernel, (n // 1024,), x, y, out, n, BLOCK_SIZE=1024)        # or
    pt.jit(add_kernel)[(n // 1024,)](x, y, out, n, BLOCK_SIZE=1024)

The kernel is specialised as Triton's JIT specialises it on a GPU: integer arguments equal to
1 become constants, pointers and integers divisible by 16 carry that hint (unless the kernel
says `do_not_specialize`), so the PTX is the PTX the GPU would run. Results come back in the
arrays; hazards raise `ptxrun.HazardError`, faults `ptxrun.KernelFault`.
"""

from __future__ import annotations

import inspect as _inspect
import os as _os
from typing import Any, Dict, Optional, Sequence, Tuple

import numpy as _np

from . import Module, Report, TensorMap, _Regions, dim3

__all__ = ["compile", "launch", "jit", "Compiled", "TensorDescriptor"]

_POINTEE = {
    _np.dtype(_np.bool_): "i1",
    _np.dtype(_np.int8): "i8",
    _np.dtype(_np.int16): "i16",
    _np.dtype(_np.int32): "i32",
    _np.dtype(_np.int64): "i64",
    _np.dtype(_np.uint8): "u8",
    _np.dtype(_np.uint16): "u16",
    _np.dtype(_np.uint32): "u32",
    _np.dtype(_np.uint64): "u64",
    _np.dtype(_np.float16): "fp16",
    _np.dtype(_np.float32): "fp32",
    _np.dtype(_np.float64): "fp64",
}


class TensorDescriptor:
    """Triton's host-side tensor descriptor (`triton.tools.tensor_descriptor.TensorDescriptor`)
    over a NumPy array: `shape` and `strides` in elements (the last stride 1), `block_shape` the
    tile a load or store moves, `padding` `"zero"` or `"nan"` (what reads outside the tensor
    give), `round_f32_to_tf32` for f32 operands of tf32 dots. `dtype` names Triton's element
    type where the array's cannot (`"bf16"` over uint16, `"fp8e4nv"` over uint8). For sm_90 the
    kernel receives a `CUtensorMap` built as Triton's launcher builds it
    (`cuTensorMapEncodeTiled` with the swizzle and box Triton compiled the kernel for), then
    the shape and strides; `from_array(a, block_shape)` takes them from the array."""

    def __init__(self, base: _np.ndarray, shape: Sequence[int], strides: Sequence[int], block_shape: Sequence[int],
                 padding: str = "zero", round_f32_to_tf32: bool = False, dtype: Optional[str] = None):
        if not isinstance(base, _np.ndarray) or not base.flags.c_contiguous:
            raise TypeError("TensorDescriptor: base must be a C-contiguous NumPy array")
        self.base, self.shape, self.strides = base, [int(x) for x in shape], [int(x) for x in strides]
        self.block_shape = [int(x) for x in block_shape]
        if not (len(self.shape) == len(self.strides) == len(self.block_shape)) or not 1 <= len(self.shape) <= 5:
            raise ValueError("TensorDescriptor: shape, strides and block_shape need one entry per dimension (1 to 5)")
        if self.strides[-1] != 1:
            raise ValueError("TensorDescriptor: the last dimension must be contiguous (stride 1)")
        if padding not in ("zero", "nan"):
            raise ValueError(f"TensorDescriptor: padding `{padding}` (use zero or nan)")
        self.padding, self.round_f32_to_tf32 = padding, bool(round_f32_to_tf32)
        self.dtype = dtype or _value_type("base", base)[1:]

    @staticmethod
    def from_array(array: _np.ndarray, block_shape: Sequence[int], padding: str = "zero",
                   round_f32_to_tf32: bool = False, dtype: Optional[str] = None) -> "TensorDescriptor":
        strides = [s // array.itemsize for s in array.strides]
        return TensorDescriptor(array, array.shape, strides, block_shape, padding, round_f32_to_tf32, dtype)

    def _signature(self) -> str:
        return f"tensordesc<{self.dtype}[{', '.join(map(str, self.block_shape))}]>"

    def _args(self, meta: Optional[Dict[str, Any]]) -> list:
        """The kernel arguments it becomes: for sm_90 (Triton's `make_tensordesc_arg`) a tensor
        map, the shape (i32) and the strides (i64)."""
        if meta is None:
            raise NotImplementedError("TensorDescriptor: Triton lowered this kernel's descriptors to pointers "
                                      "(no TMA below sm_90); ptxrun.triton passes descriptors for sm_90 only")
        code = 11 if self.round_f32_to_tf32 else int(meta["elem_type"])
        elem = _TMA_ELEMS.get(code)
        if elem is None or meta.get("fp4_padded") or meta.get("is_im2col"):
            raise NotImplementedError(f"TensorDescriptor: Triton's tensor map {meta} is not one ptxrun builds")
        es = self.base.itemsize
        m = TensorMap(self.base, dims=self.shape[::-1], box=[int(b) for b in meta["block_size"]][::-1],
                      strides=[s * es for s in self.strides[::-1][1:]],
                      swizzle=["none", "32B", "64B", "128B"][int(meta["swizzle"])],
                      oob_fill="nan" if self.padding == "nan" else "zero", l2_promotion="128B")
        m.elem = elem
        return [m, *self.shape, *self.strides]


# Triton's tensor-map element codes (the PTX ISA's `tensormap.replace .elemtype` table).
_TMA_ELEMS = {0: "u8", 1: "u16", 2: "u32", 3: "i32", 4: "u64", 5: "i64", 6: "f16", 7: "f32", 8: "f32_ftz",
              9: "f64", 10: "bf16", 11: "tf32", 12: "tf32_ftz"}


class Compiled:
    """A kernel compiled by Triton: its PTX `module`, entry `name` and Triton's `metadata`;
    `runtime` lists which of the kernel's arguments are passed at launch (the others are
    constants baked into the PTX)."""

    def __init__(self, module: Module, metadata: Any, runtime: Sequence[str]):
        self.module = module
        self.metadata = metadata
        self.name: str = metadata.name
        self.runtime = list(runtime)

    @property
    def ptx(self) -> str:
        return self.module.text


_cache: Dict[Any, Compiled] = {}


def _value_type(name: str, v: Any) -> str:
    """Triton's signature type of a runtime argument."""
    if isinstance(v, TensorDescriptor):
        return v._signature()
    if isinstance(v, _np.ndarray):
        if v.dtype not in _POINTEE:
            raise TypeError(f"{name}: arrays of {v.dtype} have no Triton pointer type here")
        return "*" + _POINTEE[v.dtype]
    if isinstance(v, (bool, _np.bool_)):
        return "i1"
    if isinstance(v, _np.generic):
        return _POINTEE.get(v.dtype, None) or str(v.dtype)
    if isinstance(v, int):
        # Triton's rule (runtime/jit.py): i32 if it fits, u64 above i64's range, else i64.
        if -(2**31) <= v < 2**31:
            return "i32"
        return "u64" if 2**63 <= v < 2**64 else "i64"
    if isinstance(v, float):
        return "fp32"
    raise TypeError(f"{name}: cannot pass {type(v).__name__} to a Triton kernel")


def _specialise(fn: Any, bound: Dict[str, Any]) -> Tuple[dict, dict, dict, list]:
    """(signature, constexprs, attrs, runtime argument names), as Triton's JIT makes them."""
    regions = _Regions()
    for p in fn.params:
        v = bound[p.name]
        if not p.is_constexpr and isinstance(v, _np.ndarray):
            regions.add(v, p.name)
    regions.layout()
    offsets = {id(x[0]): off for x, (_, off) in zip(regions.arrays, regions.where)}
    signature, constexprs, attrs, runtime = {}, {}, {}, []
    for i, p in enumerate(fn.params):
        v = bound[p.name]
        if p.is_constexpr or v is None:
            signature[p.name] = "constexpr"
            constexprs[p.name] = v
            continue
        ty = _value_type(p.name, v)
        # An annotated scalar parameter (`n: tl.int64`) takes the annotation's type, as in Triton.
        annotated = getattr(p, "annotation_type", "") or ""
        if annotated and not ty.startswith("*") and not annotated.startswith("*"):
            ty = annotated
        is_int = isinstance(v, (int, _np.integer)) and not isinstance(v, (bool, _np.bool_))
        if is_int and int(v) == 1 and not p.do_not_specialize:
            signature[p.name] = "constexpr"
            constexprs[p.name] = 1
            continue
        signature[p.name] = ty
        runtime.append(p.name)
        aligned = False
        if isinstance(v, _np.ndarray):
            aligned = offsets[id(v)] % 16 == 0
        elif is_int:
            aligned = int(v) % 16 == 0
        if aligned and not p.do_not_specialize and not p.do_not_specialize_on_alignment:
            attrs[(i,)] = [["tt.divisibility", 16]]
    return signature, constexprs, attrs, runtime


def _bind(fn: Any, args: Sequence[Any], kwargs: Dict[str, Any]) -> Dict[str, Any]:
    sig = _inspect.signature(fn.fn)
    b = sig.bind(*args, **kwargs)
    b.apply_defaults()
    return dict(b.arguments)


def compile(
    fn: Any,
    args: Sequence[Any] = (),
    kwargs: Optional[Dict[str, Any]] = None,
    target: int = 90,
    num_warps: int = 4,
    num_stages: int = 3,
    num_ctas: int = 1,
    ptx_version: Optional[int] = None,
) -> Compiled:
    """Compiles `fn` for `args`/`kwargs` (arrays, scalars, constexprs) with Triton for CUDA
    compute capability `target` (80, 90, ...); cached per specialisation. `ptx_version` (e.g.
    88 for `.version 8.8`) overrides the PTX ISA version Triton writes (by default the newest
    its ptxas knows, which an older driver may refuse)."""
    import triton
    from triton.backends.compiler import GPUTarget

    _os.environ.setdefault("TRITON_DEFAULT_FP_FUSION", "1")
    bound = _bind(fn, args, kwargs or {})
    signature, constexprs, attrs, runtime = _specialise(fn, bound)
    options = {"num_warps": num_warps, "num_stages": num_stages, "num_ctas": num_ctas}
    if ptx_version is not None:
        options["ptx_version"] = int(ptx_version)
    key = (fn, repr(sorted(signature.items())), repr(sorted(constexprs.items(), key=str)),
           repr(sorted(attrs)), target, repr(sorted(options.items())))
    if key not in _cache:
        src = triton.compiler.ASTSource(fn=fn, signature=signature, constexprs=constexprs, attrs=attrs)
        k = triton.compile(src, target=GPUTarget("cuda", int(target), 32), options=options)
        module = Module.from_ptx(k.asm["ptx"], name=f"{k.metadata.name}.ptx")
        _cache[key] = Compiled(module, k.metadata, runtime)
    return _cache[key]


_COMPILE_OPTIONS = {"target": 90, "num_warps": 4, "num_stages": 3, "num_ctas": 1, "ptx_version": None}
_RUN_OPTIONS = {"seed": 0, "latency": "bandwidth", "check": True, "explore": None, "raise_on_error": True,
                "jit": True, "deny_warnings": False, "suppress": ()}


def launch(fn: Any, grid: Any, *args: Any, **kwargs: Any) -> Report:
    """Compiles and runs `fn[grid](*args, **kwargs)`; `grid` is a tuple of program counts or,
    as in Triton, a function of the bound arguments (constexprs included). Keyword options:
    `target` (compute capability, default 90), `num_warps`, `num_stages`, `num_ctas` (as
    Triton takes them; a kernel parameter of the same name gets the value too, as in Triton),
    and ptxrun's `seed`, `latency`, `check`, `explore`, `raise_on_error`, `jit`,
    `deny_warnings`, `suppress` (as `ptxrun.Module.launch` takes them)."""
    names = {p.name for p in fn.params}
    opts = {}
    for k, default in {**_COMPILE_OPTIONS, **_RUN_OPTIONS}.items():
        if k in names:
            opts[k] = kwargs.get(k, default)
        else:
            opts[k] = kwargs.pop(k, default)
    c = compile(fn, args, kwargs, opts["target"], opts["num_warps"], opts["num_stages"], opts["num_ctas"],
                opts["ptx_version"])
    bound = _bind(fn, args, kwargs)
    g = grid(bound) if callable(grid) else grid
    g = dim3(g, "grid")
    values = _expand(c, [bound[n] for n in c.runtime])
    md = c.metadata
    params = c.module.params(c.name)
    values += _scratch(md, len(params) - len(values), g)
    ctas = int(getattr(md, "num_ctas", 1) or 1)
    cluster = (ctas, 1, 1) if ctas > 1 else None
    return c.module.launch(
        c.name,
        [g[0] * ctas, g[1], g[2]],
        md.num_warps * 32,
        values,
        shared_mem=md.shared,
        cluster=cluster,
        seed=opts["seed"],
        latency=opts["latency"],
        check=opts["check"],
        explore=opts["explore"],
        raise_on_error=opts["raise_on_error"],
        jit=opts["jit"],
        deny_warnings=opts["deny_warnings"],
        suppress=opts["suppress"],
    )


def _expand(c: Compiled, values: list) -> list:
    """The runtime arguments with each tensor descriptor replaced by what Triton's launcher
    passes for it (its metadata per descriptor, in argument order)."""
    metas = list(getattr(c.metadata, "tensordesc_meta", None) or [])
    out = []
    for v in values:
        if isinstance(v, TensorDescriptor):
            out += v._args(metas.pop(0) if metas else None)
        else:
            out.append(v)
    return out


def _scratch(md: Any, extra: int, grid: Sequence[int]) -> list:
    """The trailing parameters Triton adds: global scratch, then profile scratch; a buffer of
    the size the metadata asks for per program, or a null pointer."""
    programs = grid[0] * grid[1] * grid[2]
    out = []
    for name in ("global_scratch", "profile_scratch")[:extra]:
        size = int(getattr(md, f"{name}_size", 0) or 0)
        out.append(_np.zeros(size * programs, dtype=_np.uint8) if size else None)
    if len(out) != extra:
        raise ValueError(f"the kernel has {extra} parameters after its arguments; expected at most 2")
    return out


class jit:
    """`ptxrun.triton.jit(kernel)[grid](*args, **kwargs)`, as Triton launches it on a GPU."""

    def __init__(self, fn: Any, **options: Any):
        self.fn = fn
        self.options = options

    def __getitem__(self, grid: Any):
        def run(*args: Any, **kwargs: Any) -> Report:
            return launch(self.fn, grid, *args, **{**self.options, **kwargs})

        return run
