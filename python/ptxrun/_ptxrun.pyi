"""Type stubs of the extension module `ptxrun._ptxrun` (python/src/lib.rs): the Rust library
facade as the `ptxrun` package uses it. Use `ptxrun.Module` rather than these directly."""

from typing import List, Optional, Sequence, Tuple, TypedDict

__version__: str

class _Shape(TypedDict):
    grid: List[int]
    block: List[int]
    cluster: Optional[List[int]]
    cooperative: bool
    shared_mem: int

class _Options(TypedDict):
    seed: int
    latency: str
    check: bool
    max_steps: int
    jobs: int
    explore: Optional[int]
    deny_warnings: bool
    suppress: List[str]
    jit: bool
    jit_after: Optional[int]

class _MapSpec(TypedDict):
    elem: str
    dims: List[int]
    box: List[int]
    strides: Optional[List[int]]
    element_strides: Optional[List[int]]
    swizzle: Optional[str]
    oob_fill: Optional[str]
    interleave: Optional[str]
    l2_promotion: Optional[str]

class _TexSpec(TypedDict):
    surface: bool
    type: str
    channels: int
    dims: List[int]
    layers: Optional[int]
    pitch: Optional[int]
    resource: Optional[str]
    filter: Optional[str]
    address: Optional[List[str]]
    normalized: Optional[bool]
    read: Optional[str]
    border: Optional[List[float]]
    cubemap: Optional[bool]
    levels: Optional[int]
    mipmap_filter: Optional[str]
    lod_bias: Optional[float]
    min_lod: Optional[float]
    max_lod: Optional[float]

class Arg:
    @staticmethod
    def buffer(index: int, offset: int = 0) -> Arg: ...
    @staticmethod
    def bytes(data: bytes) -> Arg: ...
    @staticmethod
    def null() -> Arg: ...
    @staticmethod
    def structure(data: bytes, fields: List[Tuple[int, Arg]]) -> Arg: ...
    @staticmethod
    def tensormap(index: int, offset: int, spec: _MapSpec) -> Arg: ...
    @staticmethod
    def texture(index: int, offset: int, spec: _TexSpec) -> Arg: ...

class RunResult:
    status: str
    json: str
    text: str
    stdout: str
    buffers: List[bytes]
    unsupported: bool

class Module:
    @staticmethod
    def from_ptx(text: str, name: Optional[str] = None) -> Module: ...
    @staticmethod
    def from_file(path: str) -> Module: ...
    @property
    def name(self) -> str: ...
    @property
    def text(self) -> str: ...
    @property
    def warnings(self) -> List[str]: ...
    def entries(self) -> List[str]: ...
    def params(self, entry: Optional[str] = None) -> Tuple[str, List[Tuple[str, str, int, int]]]: ...
    def launch(
        self,
        entry: Optional[str],
        shape: _Shape,
        buffers: Sequence[Tuple[str, str, bytes]],
        args: Sequence[Arg],
        options: _Options,
    ) -> RunResult: ...

def cli_main(argv: List[str]) -> int: ...
def float_bytes(ty: str, x: float) -> bytes: ...
