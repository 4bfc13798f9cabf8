"""im2col tensor-copy probe: case generation and PTX (shared by gpu.py and the local ptxrun harness).

A case = an im2col tensor map (the arguments of cuTensorMapEncodeIm2col) + a launch (coordinates, im2col
offsets, shared-memory tile base). Kernels: ld3/ld4/ld5 (load into shared, dump shared), ldh4 (L2 cache hint and
an im2col prefetch first), mc4 (multicast to a cluster of 2), st3/st4/st5 (im2col_no_offs store), rd4 (.add
im2col_no_offs reduction).
"""
import numpy as np

HEAD = ".version 8.7\n.target sm_90a\n.address_size 64\n\n"
SHBYTES = 45056
PAD = 4096          # the GPU expects pred + PAD tx bytes, then counts the rest with complete_tx 1
TYPES = {"u8": (0, 1), "u16": (1, 2), "u32": (2, 4), "i32": (3, 4), "u64": (4, 8), "f16": (6, 2),
         "f32": (7, 4), "f64": (8, 8), "bf16": (9, 2)}
SWZ = {"none": 0, "32B": 1, "64B": 2, "128B": 3}
SPAN = {"none": 1 << 30, "32B": 32, "64B": 64, "128B": 128}


def _coords(r, first=20):
    return "{" + ", ".join(f"%r{first + i}" for i in range(r)) + "}"


def _offs(r):
    return "{" + ", ".join(f"%h{1 + i}" for i in range(r - 2)) + "}"


def _load_args(r):
    s = "".join(f"  ld.global.u32 %r{20 + i}, [%rd2+{4 * i}];\n" for i in range(r))
    s += "".join(f"  ld.global.u16 %h{1 + i}, [%rd2+{20 + 4 * i}];\n" for i in range(r - 2))
    return s


FILL = """  mov.u32 %r1, %tid.x;
  ld.global.u32 %r10, [%rd2+36];
  ld.global.u32 %r11, [%rd2+40];
  ld.global.u32 %r13, [%rd2+44];
  ld.global.u32 %r14, [%rd2+48];
  mov.u32 %r2, buf;
  mov.u32 %r3, bar;
  setp.ne.u32 %p1, %r1, 0;
  @!%p1 mbarrier.init.shared::cta.b64 [%r3], 1;
  mul.lo.u32 %r4, %r1, 4;
  mov.u32 %r7, %r14;
FILL:
  setp.ge.u32 %p2, %r4, %r10;
  @%p2 bra FILLED;
  add.u32 %r5, %r2, %r4;
  st.shared.u32 [%r5], %r7;
  add.u32 %r4, %r4, 512;
  bra FILL;
FILLED:
  fence.mbarrier_init.release.cluster;
  fence.proxy.async.shared::cta;
"""

WAIT = """  mov.u32 %r30, 0;
  mov.u32 %r31, 0;
  mov.u32 %r32, 0;
  mov.u32 %r33, 0;
  mov.u64 %rd13, 0;
W1:
  mbarrier.test_wait.parity.shared::cta.b64 %p3, [%r3], 0;
  @%p3 bra DONE1;
  add.u32 %r30, %r30, 1;
  setp.lt.u32 %p4, %r30, %r13;
  @%p4 bra W1;
  mov.u64 %rd10, %clock64;
SPIN:
  mov.u64 %rd11, %clock64;
  sub.s64 %rd12, %rd11, %rd10;
  setp.lt.s64 %p5, %rd12, 400000;
  @%p5 bra SPIN;
  ld.shared.b64 %rd13, [%r3];
W2:
  mbarrier.test_wait.parity.shared::cta.b64 %p3, [%r3], 0;
  @%p3 bra DONE2;
  mbarrier.complete_tx.shared::cta.b64 [%r3], 1;
  add.u32 %r31, %r31, 1;
  setp.lt.u32 %p4, %r31, 300000;
  @%p4 bra W2;
  bra HDR;
DONE2:
  mov.u32 %r32, 1;
  bra HDR;
DONE1:
  mov.u32 %r33, 1;
HDR:
  st.global.u32 [%rd1], %r33;
  st.global.u32 [%rd1+4], %r30;
  st.global.u32 [%rd1+8], %r31;
  st.global.u32 [%rd1+12], %r32;
  st.global.u64 [%rd1+16], %rd13;
  st.global.u32 [%rd1+24], %r12;
"""

DUMP = """DUMP:
  bar.sync 0;
  mul.lo.u32 %r4, %r1, 4;
DL:
  setp.ge.u32 %p2, %r4, %r10;
  @%p2 bra DD;
  add.u32 %r5, %r2, %r4;
  ld.shared.u32 %r6, [%r5];
  cvt.u64.u32 %rd20, %r4;
  add.s64 %rd21, %rd1, %rd20;
  st.global.u32 [%rd21+64], %r6;
  add.u32 %r4, %r4, 512;
  bra DL;
DD:
"""


def _entry(name, extra=""):
    return (f".visible .entry {name}(.param .align 128 .b8 tm[128], .param .u64 outp, .param .u64 argp){extra}\n{{\n"
            "  .reg .b32 %r<64>;\n  .reg .b64 %rd<32>;\n  .reg .b16 %h<8>;\n  .reg .pred %p<8>;\n"
            f"  .shared .align 1024 .b8 buf[{SHBYTES}];\n  .shared .align 8 .b64 bar;\n"
            "  ld.param.u64 %rd1, [outp];\n  ld.param.u64 %rd2, [argp];\n"
            "  cvta.to.global.u64 %rd1, %rd1;\n  cvta.to.global.u64 %rd2, %rd2;\n  mov.b64 %rd3, tm;\n  cvta.param.u64 %rd3, %rd3;\n")


def load_kernel(r, hint=False):
    name = f"ldh{r}" if hint else f"ld{r}"
    s = _entry(name) + FILL + "  bar.sync 0;\n  @%p1 bra DUMP;\n" + _load_args(r)
    s += "  ld.global.u32 %r12, [%rd2+32];\n  mbarrier.arrive.expect_tx.shared::cta.b64 %rd5, [%r3], %r12;\n"
    s += "  add.u32 %r6, %r2, %r11;\n"
    if hint:
        s += "  createpolicy.fractional.L2::evict_last.b64 %rd6, 1.0;\n"
        s += (f"  cp.async.bulk.prefetch.tensor.{r}d.L2.global.im2col [%rd3, {_coords(r)}], {_offs(r)};\n")
        s += (f"  cp.async.bulk.tensor.{r}d.shared::cluster.global.im2col.mbarrier::complete_tx::bytes.L2::cache_hint"
              f" [%r6], [%rd3, {_coords(r)}], [%r3], {_offs(r)}, %rd6;\n")
    else:
        s += (f"  cp.async.bulk.tensor.{r}d.shared::cluster.global.im2col.mbarrier::complete_tx::bytes"
              f" [%r6], [%rd3, {_coords(r)}], [%r3], {_offs(r)};\n")
    s += WAIT + DUMP + "  ret;\n}\n\n"
    return s


def mc_kernel(r=4):
    """Multicast to both CTAs of a cluster of 2 (mask 0b11), issued by rank 0; each CTA expects pred bytes."""
    s = _entry(f"mc{r}", " .reqnctapercluster 2, 1, 1") + FILL
    s += "  barrier.cluster.arrive;\n  barrier.cluster.wait;\n  mov.u32 %r40, %cluster_ctarank;\n"
    s += "  mul.wide.u32 %rd22, %r40, " + str(SHBYTES + 64) + ";\n  add.s64 %rd1, %rd1, %rd22;\n"
    s += "  @%p1 bra DUMP;\n" + _load_args(r)
    s += "  ld.global.u32 %r12, [%rd2+32];\n  mbarrier.arrive.expect_tx.shared::cta.b64 %rd5, [%r3], %r12;\n"
    s += "  add.u32 %r6, %r2, %r11;\n  mov.u16 %h7, 3;\n  setp.ne.u32 %p6, %r40, 0;\n"
    s += (f"  @!%p6 cp.async.bulk.tensor.{r}d.shared::cluster.global.im2col.mbarrier::complete_tx::bytes.multicast::cluster"
          f" [%r6], [%rd3, {_coords(r)}], [%r3], {_offs(r)}, %h7;\n")
    s += WAIT + DUMP + "  barrier.cluster.arrive;\n  barrier.cluster.wait;\n  ret;\n}\n\n"
    return s


def store_kernel(r, reduce=False):
    """Fills the tile with word i = pattern + i, then stores (or .add-reduces) it with .im2col_no_offs."""
    name = f"rd{r}" if reduce else f"st{r}"
    s = _entry(name)
    s += """  mov.u32 %r1, %tid.x;
  ld.global.u32 %r10, [%rd2+36];
  ld.global.u32 %r11, [%rd2+40];
  ld.global.u32 %r14, [%rd2+48];
  mov.u32 %r2, buf;
  mul.lo.u32 %r4, %r1, 4;
SF:
  setp.ge.u32 %p2, %r4, %r10;
  @%p2 bra SFD;
  add.u32 %r5, %r2, %r4;
  shr.u32 %r7, %r4, 2;
  add.u32 %r7, %r7, %r14;
  st.shared.u32 [%r5], %r7;
  add.u32 %r4, %r4, 512;
  bra SF;
SFD:
  fence.proxy.async.shared::cta;
  bar.sync 0;
  setp.ne.u32 %p1, %r1, 0;
  @%p1 bra END;
"""
    s += "".join(f"  ld.global.u32 %r{20 + i}, [%rd2+{4 * i}];\n" for i in range(r))
    s += "  add.u32 %r6, %r2, %r11;\n"
    if reduce:
        s += (f"  cp.reduce.async.bulk.tensor.{r}d.global.shared::cta.add.im2col_no_offs.bulk_group"
              f" [%rd3, {_coords(r)}], [%r6];\n")
    else:
        s += (f"  cp.async.bulk.tensor.{r}d.global.shared::cta.im2col_no_offs.bulk_group"
              f" [%rd3, {_coords(r)}], [%r6];\n")
    s += "  cp.async.bulk.commit_group;\n  cp.async.bulk.wait_group 0;\nEND:\n  ret;\n}\n\n"
    return s


def tile_kernel(r=4):
    """A tile-mode load (no offsets) through whatever map the case gives (an im2col map: mode mismatch)."""
    s = _entry(f"tl{r}") + FILL + "  bar.sync 0;\n  @%p1 bra DUMP;\n" + _load_args(r)
    s += "  ld.global.u32 %r12, [%rd2+32];\n  mbarrier.arrive.expect_tx.shared::cta.b64 %rd5, [%r3], %r12;\n"
    s += "  add.u32 %r6, %r2, %r11;\n"
    s += (f"  cp.async.bulk.tensor.{r}d.shared::cluster.global.tile.mbarrier::complete_tx::bytes"
          f" [%r6], [%rd3, {_coords(r)}], [%r3];\n")
    s += WAIT + DUMP + "  ret;\n}\n\n"
    return s


def ptx():
    return HEAD + "".join(load_kernel(r) for r in (3, 4, 5)) + load_kernel(4, hint=True) + mc_kernel(4) + tile_kernel(4) + \
        "".join(store_kernel(r) for r in (3, 4, 5)) + store_kernel(4, reduce=True)


# ---------------------------------------------------------------------------------------------- cases

def dense_strides(ty, dims, pad=0):
    es = TYPES[ty][1]
    st, cur = [], dims[0] * es
    for i in range(1, len(dims)):
        cur = (cur + 15) // 16 * 16 + pad
        st.append(cur)
        cur = cur * dims[i]
    return st


def mk_map(ty, dims, lower, upper, ch, px, estr=None, swz="none", oob="zero", strides=None, pad=0):
    r = len(dims)
    return {"type": ty, "dims": list(dims), "strides": strides if strides is not None else dense_strides(ty, dims, pad),
            "lower": list(lower), "upper": list(upper), "channels": ch, "pixels": px,
            "estrides": list(estr) if estr else [1] * r, "swizzle": swz, "oob": oob}


def extent(m):
    es = TYPES[m["type"]][1]
    st = [es] + m["strides"]
    return sum((d - 1) * s for d, s in zip(m["dims"], st)) + es


def tile_bytes(m):
    return m["channels"] * m["pixels"] * TYPES[m["type"]][1]


def cases():
    """(kernel, map, coords, offsets, base) in the order they run; conservative first."""
    out = []

    def add(kern, m, coords, offs, base=0):
        out.append({"kernel": kern, "map": m, "coords": list(coords), "offs": list(offs), "base": base})

    # A: NHWC f32, 3x3 conv with padding 1 (lower -1, upper -1), a column of 32 pixels
    m = mk_map("f32", [16, 8, 6, 2], [-1, -1], [-1, -1], 16, 32)
    for c in [(0, -1, -1, 0), (0, 3, 2, 0), (0, 5, 4, 1), (0, 0, 0, 0), (0, 6, 4, 0)]:
        for o in [(0, 0), (1, 1), (2, 2), (2, 0), (0, 2)]:
            add("ld4", m, c, o)
    # A2: channel sub-ranges: c0 = 4 (16 bytes), channels 8 (half the pixel), c0 beyond C
    for ch, c0 in [(8, 0), (8, 8), (4, 12), (8, 12), (16, 16), (24, 0), (32, 0)]:
        m = mk_map("f32", [16, 8, 6, 2], [-1, -1], [-1, -1], ch, 24)
        add("ld4", m, (c0, -1, -1, 0), (1, 0))
        add("ld4", m, (c0, 2, 3, 1), (0, 1))
    # B: NWC f16 (rank 3)
    m = mk_map("f16", [32, 20, 3], [-2], [-3], 32, 40)
    for c in [(0, -2, 0), (0, 10, 0), (0, 14, 2), (16, 0, 1)]:
        for o in [(0,), (3,), (5,)]:
            add("ld3", m, c, o)
    # C: NDHWC u8 (rank 5)
    m = mk_map("u8", [64, 5, 4, 3, 2], [-1, -1, -1], [-1, -1, -1], 64, 64)
    for c in [(0, -1, -1, -1, 0), (0, 2, 1, 0, 0), (0, 3, 2, 1, 1)]:
        for o in [(0, 0, 0), (1, 1, 1), (2, 0, 1), (0, 2, 2)]:
            add("ld5", m, c, o)
    m = mk_map("f32", [8, 5, 4, 3, 3], [-1, 0, -2], [0, -1, 1], 8, 100)
    for c in [(0, -1, 0, -2, 0), (0, 2, 1, 0, 1), (0, 4, 2, 3, 2)]:
        for o in [(0, 0, 0), (1, 2, 3), (3, 1, 0)]:
            add("ld5", m, c, o)
    # D: element (traversal) strides, conv stride 2
    for es in [(1, 2, 2, 1), (1, 3, 1, 1), (1, 1, 2, 1), (1, 2, 3, 2), (4, 2, 2, 1), (1, 8, 5, 3)]:
        m = mk_map("f32", [8, 9, 7, 3], [-1, -1], [-1, -1], 8, 40, estr=es)
        for c in [(0, -1, -1, 0), (0, 3, 2, 0), (0, 6, 5, 1)]:
            add("ld4", m, c, (1, 2))
    for es in [(1, 2, 1), (1, 3, 2), (1, 5, 1)]:
        m = mk_map("f16", [16, 23, 4], [-3], [2], 16, 50, estr=es)
        add("ld3", m, (0, -3, 0), (0,))
        add("ld3", m, (0, 7, 1), (2,))
    for es in [(1, 2, 2, 2, 1), (1, 1, 3, 2, 2)]:
        m = mk_map("f16", [8, 6, 5, 4, 2], [-1, -1, -1], [0, 0, 0], 8, 60, estr=es)
        add("ld5", m, (0, -1, -1, -1, 0), (0, 1, 1))
        add("ld5", m, (0, 3, 2, 1, 1), (1, 0, 0))
    # F: swizzle modes (channels * es = span and below)
    for swz, ty, ch in [("32B", "f32", 8), ("64B", "f32", 16), ("128B", "f32", 32), ("128B", "f16", 64),
                        ("128B", "f16", 32), ("64B", "u8", 64), ("32B", "f16", 8), ("128B", "u8", 128)]:
        m = mk_map(ty, [max(ch, 16), 7, 6, 2], [-1, -1], [-1, -1], ch, 48, swz=swz)
        add("ld4", m, (0, -1, -1, 0), (1, 1))
        add("ld4", m, (0, 4, 3, 1), (2, 0))
    # G: NaN fill
    for ty in ["f32", "f16", "bf16", "f64"]:
        m = mk_map(ty, [16, 6, 5, 2], [-2, -2], [1, 1], 16, 64, oob="nan")
        add("ld4", m, (0, -2, -2, 0), (0, 0))
        add("ld4", m, (0, 4, 4, 1), (3, 3))
    # H: corners positive, box beyond the tensor, zero-area-ish
    for lo, up in [((1, 1), (-1, -1)), ((0, 0), (0, 0)), ((2, -1), (3, 2)), ((-3, -2), (2, 4)),
                   ((-5, 0), (-5, 0)), ((0, 0), (-6, -4))]:
        m = mk_map("u32", [4, 8, 6, 2], lo, up, 4, 96)
        add("ld4", m, (0, lo[0], lo[1], 0), (0, 0))
        add("ld4", m, (0, lo[0] + 2, lo[1] + 1, 0), (1, 2))
    # K: many pixels (wrap past N), pixels 1 and 1024
    m = mk_map("f16", [8, 4, 3, 2], [0, 0], [0, 0], 8, 1024)
    add("ld4", m, (0, 0, 0, 0), (0, 0))
    add("ld4", m, (0, 2, 1, 1), (1, 1))
    m = mk_map("f32", [16, 8, 8, 4], [-1, -1], [-1, -1], 16, 1)
    for c in [(0, -1, -1, 0), (0, 6, 6, 3), (0, 3, 3, 2)]:
        add("ld4", m, c, (2, 2))
    m = mk_map("u8", [16, 30, 5], [-4], [-4], 16, 700)
    add("ld3", m, (0, -4, 0), (0,))
    add("ld3", m, (0, 20, 2), (8,))
    # channel counts that are not a multiple of 16 bytes (the driver may refuse these)
    for ty, ch in [("f32", 5), ("f32", 12), ("f16", 12), ("u8", 8), ("u8", 24), ("f32", 1)]:
        m = mk_map(ty, [32, 6, 5, 2], [-1, -1], [-1, -1], ch, 20)
        add("ld4", m, (0, -1, -1, 0), (1, 1))
    # cache hint + prefetch, multicast
    m = mk_map("f32", [16, 8, 6, 2], [-1, -1], [-1, -1], 16, 32)
    add("ldh4", m, (0, 2, 1, 0), (1, 1))
    add("mc4", m, (0, 2, 1, 0), (1, 1))
    add("mc4", mk_map("f16", [32, 7, 6, 2], [-1, -1], [-1, -1], 32, 40, swz="64B"), (0, -1, -1, 1), (2, 1))
    # traversal phase: strides 2/3 with a start off the stride grid of the lower corner, rows of odd length
    for es, lo, up, c in [((1, 2, 1), (-1,), (0,), (0, 0, 0)), ((1, 2, 1), (-1,), (0,), (0, 2, 0)),
                          ((1, 3, 1), (-2,), (1,), (0, 3, 1)), ((1, 2, 2), (0,), (-1,), (0, 5, 0)),
                          ((1, 4, 1), (-3,), (2,), (0, -1, 0))]:
        m = mk_map("u32", [4, 11, 4], list(lo), list(up), 4, 40, estr=es)
        add("ld3", m, c, (0,))
        add("ld3", m, c, (1,))
    for es in [(1, 2, 3, 1), (1, 3, 2, 2)]:
        m = mk_map("u32", [4, 7, 8, 3], [-2, -1], [0, 1], 4, 120, estr=es)
        add("ld4", m, (0, -1, 2, 0), (0, 1))
        add("ld4", m, (0, 4, 7, 1), (2, 0))
    # N: random maps
    rs = np.random.RandomState(1234)
    for _ in range(70):
        r = int(rs.choice([3, 4, 5]))
        ty = str(rs.choice(["f32", "f16", "u8", "u32", "bf16"]))
        es = TYPES[ty][1]
        C = int(rs.choice([16, 32, 48, 64, 8, 24, 40])) if es < 4 else int(rs.choice([4, 8, 12, 16, 20, 32]))
        sp = [int(rs.randint(2, 10)) for _ in range(r - 2)]
        N = int(rs.randint(1, 4))
        dims = [C] + sp + [N]
        lim = {3: 40, 4: 6, 5: 4}[r]
        lower = [int(rs.randint(-lim // 2 - 1, 2)) for _ in range(r - 2)]
        upper = [int(rs.randint(-lim // 2 - 1, 3)) for _ in range(r - 2)]
        sw = str(rs.choice(["none", "none", "32B", "64B", "128B"]))
        unit = 16 // es
        chmax = min(256, SPAN[sw] // es)
        ch = int(rs.choice([unit, 2 * unit, 4 * unit, 8 * unit]))
        ch = max(unit, min(ch, chmax // unit * unit))
        px = int(rs.choice([1, 7, 16, 33, 64, 100, 200, 255, 256, 300]))
        while ch * px * es > 32768:
            px //= 2
        estr = [int(rs.choice([1, 1, 2, 3])) for _ in range(r)]
        oob = "nan" if ty in ("f32", "f16", "bf16") and rs.rand() < 0.3 else "zero"
        m = mk_map(ty, dims, lower, upper, ch, px, estr=estr, swz=sw, oob=oob, pad=int(rs.choice([0, 0, 16, 48])))
        for _ in range(3):
            c0 = int(rs.choice([0, 0, unit, 2 * unit, C])) if C > unit else 0
            coords = [c0] + [int(rs.randint(lower[i], max(lower[i], sp[i] - 1 + upper[i]) + 1)) for i in range(r - 2)] + \
                [int(rs.randint(0, N))]
            offs = [int(rs.randint(0, 4)) for _ in range(r - 2)]
            add(f"ld{r}", m, coords, offs)
    # adversarial (may trap): start outside the box, big/negative offsets, negative and huge N, c0 misaligned,
    # non-1024-aligned swizzled tiles
    m = mk_map("f32", [16, 8, 6, 2], [-1, -1], [-1, -1], 16, 32)
    for c, o in [((0, -3, -1, 0), (0, 0)), ((0, 7, 5, 0), (0, 0)), ((0, 2, 2, -1), (0, 0)), ((0, 2, 2, 2), (0, 0)),
                 ((0, 2, 2, 5), (0, 0)), ((0, 2, 2, 0), (9, 0)), ((0, 2, 2, 0), (255, 255)),
                 ((0, 2, 2, 0), (65535, 65535)), ((0, 2, 2, 0), (256, 1)), ((0, 2, 2, 0), (128, 128)),
                 ((-4, 2, 2, 0), (0, 0)), ((-16, 2, 2, 0), (0, 0)), ((2, 2, 2, 0), (0, 0)), ((-2, 2, 2, 0), (0, 0)), ((0, -20, 2, 0), (0, 0)),
                 ((0, 100, 2, 0), (0, 0))]:
        add("ld4", m, c, o)
    m3 = mk_map("f16", [32, 20, 3], [-2], [-3], 32, 40)
    for c, o in [((0, 2, 0), (65535,)), ((0, 2, 0), (32768,)), ((0, 2, 0), (300,)), ((0, -100, 0), (0,))]:
        add("ld3", m3, c, o)
    m5 = mk_map("f32", [8, 5, 4, 3, 3], [-1, 0, -2], [0, -1, 1], 8, 100)
    for c, o in [((0, 1, 1, 1, 0), (31, 0, 0)), ((0, 1, 1, 1, 0), (32, 0, 0)), ((0, 1, 1, 1, 0), (0, 65535, 0))]:
        add("ld5", m5, c, o)
    m = mk_map("f32", [32, 6, 5, 2], [-1, -1], [-1, -1], 32, 20, swz="128B")
    add("ld4", m, (0, 1, 1, 0), (0, 0), base=512)
    add("ld4", m, (0, 1, 1, 0), (0, 0), base=128)
    add("ld4", mk_map("f32", [16, 8, 6, 2], [-1, -1], [-1, -1], 16, 32), (2, 2, 2, 0), (0, 0))
    add("ld4", mk_map("f32", [16, 8, 6, 2], [-1, -1], [-1, -1], 16, 32), (0, 2, 2, 0), (0, 0), base=64)
    # mode mismatch: an im2col map through a tile instruction, a tiled map (box 16x4x2x1) through an im2col one
    add("tl4", mk_map("f32", [16, 8, 6, 2], [-1, -1], [-1, -1], 16, 32), (0, 1, 1, 0), ())
    mt = mk_map("f32", [16, 8, 6, 2], [-1, -1], [-1, -1], 16, 8)
    mt["tiled_box"] = [16, 4, 2, 1]
    add("ld4", mt, (0, 1, 1, 0), (1, 1))
    # stores and reductions with .im2col_no_offs (last: they may trap)
    m = mk_map("u32", [8, 6, 5, 2], [-1, -1], [-1, -1], 8, 20)
    for c in [(0, 0, 0, 0), (0, 3, 2, 1), (0, -1, -1, 0)]:
        add("st4", m, c, ())
    add("rd4", m, (0, 1, 1, 0), ())
    add("st3", mk_map("u32", [8, 12, 2], [-2], [1], 8, 20), (0, 3, 0), ())
    add("st5", mk_map("u32", [4, 4, 3, 3, 2], [0, 0, 0], [-1, -1, -1], 4, 30), (0, 0, 0, 0, 0), ())
    add("st4", mk_map("u32", [8, 6, 5, 2], [-1, -1], [-1, -1], 8, 20, estr=(1, 2, 2, 1)), (0, 0, 0, 0), ())
    return out


def encode_tests():
    """Parameter sets for cuTensorMapEncodeIm2col alone (result code recorded): which does the driver refuse?"""
    base = dict(ty="f32", dims=[16, 8, 6, 2], lower=[-1, -1], upper=[-1, -1], ch=16, px=32, estr=None, swz="none",
                oob="zero")
    t = []

    def add(note, **kw):
        d = dict(base)
        d.update(kw)
        m = mk_map(d["ty"], d["dims"], d["lower"], d["upper"], d["ch"], d["px"], d["estr"], d["swz"], d["oob"])
        m.update(kw.get("raw", {}))
        m["note"] = note
        t.append(m)

    add("ok")
    add("rank 2", dims=[16, 8], lower=[], upper=[])
    add("rank 3", dims=[16, 8, 2], lower=[-1], upper=[-1])
    add("rank 5", dims=[16, 8, 6, 4, 2], lower=[-1, -1, -1], upper=[-1, -1, -1])
    for v in [127, 128, -128, -129]:
        add(f"r4 lower {v}", lower=[v, 0], upper=[0, 0])
        add(f"r4 upper {v}", lower=[0, 0], upper=[v, 0])
    for v in [15, 16, -16, -17]:
        add(f"r5 lower {v}", dims=[16, 8, 6, 4, 2], lower=[v, 0, 0], upper=[0, 0, 0])
        add(f"r5 upper {v}", dims=[16, 8, 6, 4, 2], lower=[0, 0, 0], upper=[0, v, 0])
    for v in [32767, 32768, -32768, -32769]:
        add(f"r3 lower {v}", dims=[16, 8, 2], lower=[v], upper=[0])
        add(f"r3 upper {v}", dims=[16, 8, 2], lower=[0], upper=[v])
    for lo, up in [((0, 0), (-8, 0)), ((0, 0), (-7, 0)), ((0, 0), (-9, 0)), ((4, 0), (-4, 0)), ((4, 0), (-3, 0)),
                   ((5, 0), (-4, 0)), ((0, 0), (0, -6)), ((0, 0), (0, -5)), ((10, 0), (0, 0)), ((-10, 0), (-20, 0))]:
        add(f"area lower {lo} upper {up}", lower=list(lo), upper=list(up))
    for ch in [0, 1, 4, 5, 8, 12, 16, 20, 32, 64, 65, 128, 256, 257, 512]:
        add(f"channels {ch}", ch=ch, dims=[64, 8, 6, 2])
    for ch in [8, 16, 24, 256, 257]:
        add(f"f16 channels {ch}", ty="f16", ch=ch, dims=[64, 8, 6, 2])
    for ch in [8, 15, 16, 32, 256, 257]:
        add(f"u8 channels {ch}", ty="u8", ch=ch, dims=[64, 8, 6, 2])
    for px in [0, 1, 3, 255, 256, 257, 1000, 1024, 1025, 2048]:
        add(f"pixels {px}", px=px)
    for e in [0, 8, 9]:
        add(f"estride[1] {e}", estr=[1, e, 1, 1])
        add(f"estride[0] {e}", estr=[e, 1, 1, 1])
        add(f"estride[3] {e}", estr=[1, 1, 1, e])
    for swz, ch in [("32B", 8), ("32B", 16), ("64B", 16), ("64B", 32), ("128B", 32), ("128B", 64)]:
        add(f"swizzle {swz} channels {ch} f32", swz=swz, ch=ch, dims=[64, 8, 6, 2])
    add("nan fill u8", ty="u8", ch=16, oob="nan")
    add("nan fill u32", ty="u32", ch=16, oob="nan")
    add("nan fill f16", ty="f16", ch=16, oob="nan")
    add("dims[0] 0", dims=[0, 8, 6, 2])
    add("dims[1] 2^32", dims=[16, 1 << 32, 6, 2], raw={"strides": [64, 64 << 32, 3 * (64 << 33)]})
    add("dims[1] 2^32+1", dims=[16, (1 << 32) + 1, 6, 2], raw={"strides": [64, 64 << 32, 3 * (64 << 33)]})
    add("stride 8", raw={"strides": [8, 512, 3072]})
    add("stride 2^40", raw={"strides": [64, 1 << 40, 3 << 40]})
    add("channels > dims[0]", ch=32)
    add("interleave 16B", raw={"interleave": 1})
    add("interleave 32B", raw={"interleave": 2, "swizzle": "32B"}, ch=8)
    add("l2 256B", raw={"l2": 3})
    add("address + 8", raw={"addr_off": 8})
    add("f64", ty="f64", ch=8)
    add("i64", ty="u64", ch=8)
    return t
