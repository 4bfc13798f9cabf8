#!/usr/bin/env python3
"""How wgmma.mma_async.sp (f16, K = 32) reads its metadata, measured (see README.md).

One warpgroup per CTA: compressed A (64 x 16) holds distinct small integers, B (32 x 32) is the
identity, so D is the decompressed A. CTA 0 uses metadata 0x44444444 in every thread (indices 0
and 1 in every group); CTA 1 + 32 t + b flips bit b of thread t's metadata. CTA row y uses
sparsity selector SELS[y]. Comparing each D with CTA 0's shows which thread and bits select the
columns of which row and group.

  SELS=0,1 sparse_layout.py ptx OUT.ptx
  SELS=0,1 sparse_layout.py gpu OUT.ptx RESULT.npz     (GPU + CuPy)
  ptxrun runs the same kernel (launch: meta u32 [2 * 4097 * 128], out f32 [2 * 4097 * 128 * 16]).
"""
import sys, os, numpy as np
SELS = [int(s) for s in os.environ.get("SELS", "0,1").split(",")]
CTAS = 1 + 128 * 32
def ptx():
    L = [".version 8.4", ".target sm_90a", ".address_size 64", "",
         ".visible .entry sp_probe(.param .u64 meta, .param .u64 out)", "{",
         "  .reg .pred %p<4>;", "  .reg .b32 %r<40>;", "  .reg .b64 %rd<16>;", "  .reg .f32 %f<20>;",
         "  .shared .align 1024 .b8 sm[6144];",
         "  mov.u32 %r1, %tid.x;", "  mov.u32 %r2, %ctaid.x;", "  mov.u32 %r3, %ctaid.y;", "  mov.u32 %r4, sm;",
         # compressed A: row m (0..63), col j (0..15) = m*16 + j + 1, at K-major no-swizzle: chunk(r,c) = (r%8)*16 + (r/8)*256 + c*128
         "  shr.u32 %r5, %r1, 1;",        # thread t fills row t/2, chunk t%2 (8 halves)
         "  and.b32 %r6, %r1, 1;",
         "  and.b32 %r7, %r5, 7;", "  shl.b32 %r7, %r7, 4;", "  shr.u32 %r8, %r5, 3;", "  shl.b32 %r8, %r8, 8;",
         "  add.u32 %r7, %r7, %r8;", "  shl.b32 %r9, %r6, 7;", "  add.u32 %r7, %r7, %r9;", "  add.u32 %r7, %r7, %r4;",
         "  shl.b32 %r10, %r5, 4;", "  shl.b32 %r11, %r6, 3;", "  add.u32 %r10, %r10, %r11;", "  add.u32 %r10, %r10, 1;"]
    # 8 halves: values r10 .. r10+7 as f16
    for i in range(8):
        L += [f"  add.u32 %r12, %r10, {i};", "  cvt.rn.f32.u32 %f1, %r12;",
              "  { .reg .b16 h; cvt.rn.f16.f32 h, %f1; " + f"st.shared.b16 [%r7+{2 * i}], h; }}"]
    # B: 32 rows n x 32 k, K-major no swizzle, 4 chunks per row at LBO 128*4? use chunk(n, c) = (n%8)*16 + (n/8)*SBO + c*LBO with LBO=128, SBO=512
    # thread t < 128 writes row n = t/4, chunk c = t%4 (8 halves): 1.0 where k == n
    L += ["  shr.u32 %r14, %r1, 2;", "  and.b32 %r15, %r1, 3;",
          "  and.b32 %r16, %r14, 7;", "  shl.b32 %r16, %r16, 4;", "  shr.u32 %r17, %r14, 3;", "  shl.b32 %r17, %r17, 9;",
          "  add.u32 %r16, %r16, %r17;", "  shl.b32 %r18, %r15, 7;", "  add.u32 %r16, %r16, %r18;", "  add.u32 %r16, %r16, %r4;",
          "  add.u32 %r16, %r16, 2048;"]
    for i in range(8):
        # k = c*8 + i; value 1.0 (0x3c00) if k == n
        L += [f"  mad.lo.u32 %r19, %r15, 8, {i};", "  setp.eq.u32 %p1, %r19, %r14;", "  selp.b32 %r20, 0x3c00, 0, %p1;",
              "  { .reg .b16 h; cvt.u16.u32 h, %r20; " + f"st.shared.b16 [%r16+{2 * i}], h; }}"]
    L += ["  ld.param.u64 %rd1, [meta];", "  ld.param.u64 %rd2, [out];", "  cvta.to.global.u64 %rd1, %rd1;", "  cvta.to.global.u64 %rd2, %rd2;",
          f"  mad.lo.u32 %r21, %r3, {CTAS}, %r2;", "  mad.lo.u32 %r22, %r21, 128, %r1;", "  mul.wide.u32 %rd3, %r22, 4;",
          "  add.s64 %rd4, %rd1, %rd3;", "  ld.global.u32 %r23, [%rd4];",
          "  shr.u32 %r24, %r4, 4;", "  cvt.u64.u32 %rd5, %r24;",
          "  or.b64 %rd6, %rd5, 0x0000001000080000;",   # A: LBO 128, SBO 256
          "  add.s64 %rd7, %rd5, 128;", "  or.b64 %rd7, %rd7, 0x0000002000080000;",  # B at +2048: LBO 128, SBO 512
          "  fence.proxy.async.shared::cta;", "  bar.sync 0;", "  wgmma.fence.sync.aligned;"]
    for y, sel in enumerate(SELS):
        L += [f"  setp.eq.u32 %p2, %r3, {y};", f"  @%p2 bra S{y};"]
    L.append("  ret;")
    for y, sel in enumerate(SELS):
        d = "{" + ", ".join(f"%f{i}" for i in range(16)) + "}"
        L += [f"S{y}:", f"  wgmma.mma_async.sp.sync.aligned.m64n32k32.f32.f16.f16 {d}, %rd6, %rd7, %r23, {sel}, 0, 1, 1, 0, 0;",
              "  wgmma.commit_group.sync.aligned;", "  wgmma.wait_group.sync.aligned 0;",
              "  mul.wide.u32 %rd8, %r22, 64;", "  add.s64 %rd9, %rd2, %rd8;"]
        for i in range(16):
            L.append(f"  st.global.f32 [%rd9+{4 * i}], %f{i};")
        L.append("  ret;")
    L.append("}")
    return "\n".join(L) + "\n"

def metas():
    m = np.full((len(SELS), CTAS, 128), 0x44444444, dtype=np.uint32)
    for t in range(128):
        for b in range(32):
            m[:, 1 + t * 32 + b, t] ^= np.uint32(1 << b)
    return m

if __name__ == "__main__":
    if sys.argv[1] == "ptx":
        open(sys.argv[2], "w").write(ptx())
    else:
        import cupy as cp
        fn = cp.RawModule(path=sys.argv[2]).get_function("sp_probe")
        m = cp.asarray(metas()); out = cp.zeros((len(SELS), CTAS, 128, 16), dtype=cp.float32)
        fn((CTAS, len(SELS)), (128,), (m, out)); cp.cuda.Device().synchronize()
        np.savez_compressed(sys.argv[3], out=cp.asnumpy(out))
