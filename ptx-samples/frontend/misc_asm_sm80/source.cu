#include <cuda_fp16.h>
#include <cuda_bf16.h>
__global__ void k_asm_mem(float* g, const float* __restrict__ gin, unsigned long long* p64, __half2* h2, __nv_bfloat16* bf, unsigned* u){
  float v; unsigned r; unsigned short hs;
  asm volatile("ld.global.nc.L1::no_allocate.L2::256B.f32 %0, [%1];" : "=f"(v) : "l"(gin)); g[0]=v;
  asm volatile("ld.global.nc.L1::no_allocate.L2::128B.v4.f32 {%0,%1,%2,%3}, [%4];" : "=f"(v),"=f"(v),"=f"(v),"=f"(v) : "l"(gin)); g[1]=v;
  asm volatile("ld.global.L1::evict_last.L2::64B.f32 %0, [%1+16];" : "=f"(v) : "l"(gin)); g[2]=v;
  asm volatile("ld.global.L1::evict_first.u32 %0, [%1];" : "=r"(r) : "l"(u)); u[1]=r;
  asm volatile("ld.acquire.gpu.global.u32 %0, [%1];" : "=r"(r) : "l"(u)); u[2]=r;
  asm volatile("ld.relaxed.sys.global.u32 %0, [%1];" : "=r"(r) : "l"(u)); u[3]=r;
  asm volatile("ld.volatile.global.u32 %0, [%1];" : "=r"(r) : "l"(u)); u[4]=r;
  asm volatile("st.release.gpu.global.u32 [%0], %1;" :: "l"(u), "r"(r));
  asm volatile("st.relaxed.cta.global.u32 [%0+4], %1;" :: "l"(u), "r"(r));
  asm volatile("st.global.wt.u32 [%0+8], %1;" :: "l"(u), "r"(r));
  asm volatile("st.global.cs.v2.u32 [%0+16], {%1, %1};" :: "l"(u), "r"(r));
  asm volatile("atom.add.noftz.f16x2 %0, [%1], %2;" : "=r"(r) : "l"(h2), "r"(r)); u[5]=r;
#if __CUDA_ARCH__ >= 900
  asm volatile("atom.global.add.noftz.bf16x2 %0, [%1], %2;" : "=r"(r) : "l"(h2), "r"(r)); u[6]=r;
#endif
#if __CUDA_ARCH__ >= 900
  asm volatile("red.global.add.noftz.bf16 [%0], %1;" :: "l"(bf), "h"((unsigned short)r));
#endif
#if __CUDA_ARCH__ >= 900
  asm volatile("red.global.add.noftz.f16 [%0], %1;" :: "l"(bf), "h"((unsigned short)r));
#endif
  asm volatile("red.relaxed.gpu.global.add.u64 [%0], %1;" :: "l"(p64), "l"((unsigned long long)r));
  asm volatile("atom.acq_rel.sys.global.cas.b64 %0, [%1], %2, %3;" : "=l"(*p64) : "l"(p64), "l"(1ull), "l"(2ull));
  asm volatile("atom.global.exch.b32 %0, [%1], %2;" : "=r"(r) : "l"(u), "r"(r)); u[7]=r;
  asm volatile("atom.global.inc.u32 %0, [%1], 100;" : "=r"(r) : "l"(u)); u[8]=r;
#if __CUDA_ARCH__ >= 900
  asm volatile("atom.global.v2.f32.add {%0,%1}, [%2], {%3,%4};" : "=f"(v),"=f"(v) : "l"(g), "f"(v), "f"(v));
#endif
  unsigned long long pol;
  asm volatile("createpolicy.fractional.L2::evict_last.b64 %0, 1.0;" : "=l"(pol));
  asm volatile("createpolicy.fractional.L2::evict_last.L2::evict_unchanged.b64 %0, 0.5;" : "=l"(pol));
  asm volatile("createpolicy.range.L2::evict_last.L2::evict_first.b64 %0, [%1], 256, 1024;" : "=l"(pol) : "l"(g));
  asm volatile("ld.global.L2::cache_hint.f32 %0, [%1], %2;" : "=f"(v) : "l"(gin), "l"(pol)); g[3]=v;
  asm volatile("st.global.L1::no_allocate.L2::cache_hint.f32 [%0], %1, %2;" :: "l"(g), "f"(v), "l"(pol));
  asm volatile("discard.global.L2 [%0], 128;" :: "l"(g));
  asm volatile("applypriority.global.L2::evict_normal [%0], 128;" :: "l"(g));
  asm volatile("prefetch.global.L2::evict_last [%0];" :: "l"(g));
  asm volatile("prefetch.global.L1 [%0];" :: "l"(g));
  asm volatile("prefetchu.L1 [%0];" :: "l"(g));
  asm volatile("prefetch.local.L2 [%0];" :: "l"(g));
  unsigned h; asm("cvt.rn.f16x2.f32 %0, %1, %2;" : "=r"(h) : "f"(v), "f"(g[5])); u[9]=h;
  asm("cvt.rn.bf16x2.f32 %0, %1, %2;" : "=r"(h) : "f"(v), "f"(g[5])); u[10]=h;
  asm("cvt.rn.relu.bf16x2.f32 %0, %1, %2;" : "=r"(h) : "f"(v), "f"(g[5])); u[11]=h;
#if __CUDA_ARCH__ >= 1000
  asm("cvt.rn.satfinite.tf32.f32 %0, %1;" : "=r"(h) : "f"(v)); u[12]=h;
#endif
#if __CUDA_ARCH__ >= 900
  asm("cvt.rna.tf32.f32 %0, %1;" : "=r"(h) : "f"(v)); u[13]=h;
#endif
  asm("cvt.rz.f16.f32 %0, %1;" : "=h"(hs) : "f"(v)); u[14]=hs;
  asm("cvt.rni.sat.s8.f32 %0, %1;" : "=h"(hs) : "f"(v)); u[15]=hs;
  asm("cvt.ftz.sat.f32.f32 %0, %1;" : "=f"(v) : "f"(v)); g[6]=v;
  asm("fma.rn.relu.bf16x2 %0, %1, %2, %3;" : "=r"(h) : "r"(h),"r"(h),"r"(h)); u[16]=h;
  asm("min.NaN.f16x2 %0, %1, %2;" : "=r"(h) : "r"(h),"r"(h)); u[17]=h;
#if __CUDA_ARCH__ >= 860
  asm("max.xorsign.abs.bf16x2 %0, %1, %2;" : "=r"(h) : "r"(h),"r"(h)); u[18]=h;
#endif
  asm("ex2.approx.f16x2 %0, %1;" : "=r"(h) : "r"(h)); u[19]=h;
  asm("tanh.approx.f32 %0, %1;" : "=f"(v) : "f"(v)); g[7]=v;
  asm("rcp.approx.ftz.f64 %0, %1;" : "=d"(*(double*)p64) : "d"(1.0));
  asm("copysign.f32 %0, %1, %2;" : "=f"(v) : "f"(v), "f"(g[1])); g[8]=v;
  asm("mad.wide.u32 %0, %1, %2, %3;" : "=l"(*p64) : "r"(r), "r"(r), "l"(*p64));
  asm("mul24.hi.u32 %0, %1, %2;" : "=r"(r) : "r"(r), "r"(r)); u[20]=r;
  asm("sad.u32 %0, %1, %2, %3;" : "=r"(r) : "r"(r), "r"(r), "r"(r)); u[21]=r;
  asm("szext.clamp.s32 %0, %1, %2;" : "=r"(r) : "r"(r), "r"(5)); u[22]=r;
  asm("add.cc.u32 %0, %0, %1; addc.cc.u32 %0, %0, %1; addc.u32 %0, %0, 0;" : "+r"(r) : "r"(r)); u[23]=r;
  asm("sub.cc.u32 %0, %0, %1; subc.u32 %0, %0, 0;" : "+r"(r) : "r"(r)); u[24]=r;
  asm("mad.lo.cc.u32 %0, %0, %1, 3; madc.hi.u32 %0, %0, %1, 0;" : "+r"(r) : "r"(r)); u[25]=r;
  asm("{ .reg .b64 t; mov.b64 t, {%1, %2}; mov.b64 {%0, _}, t; }" : "=r"(r) : "r"(r), "r"(h)); u[26]=r;
  asm("{ .reg .b16 lo, hi; mov.b32 {lo, hi}, %1; mov.b32 %0, {hi, lo}; }" : "=r"(r) : "r"(h)); u[27]=r;
#if __CUDA_ARCH__ >= 900
  asm volatile("membar.gl; membar.sys; membar.cta; fence.acq_rel.gpu; fence.sc.cta; fence.proxy.alias;");
#endif
  asm volatile("trap;" ::: "memory");
  asm volatile("pmevent 1; pmevent.mask 0x3;");
  asm volatile("nanosleep.u32 %0;" :: "r"(r));
  asm volatile("bar.warp.sync 0xffffffff; bar.sync 0; bar.sync 1, 64; barrier.sync.aligned 2, 32; bar.arrive 3, 64; bar.red.popc.u32 %0, 0, 1;" : "=r"(r)); u[28]=r;
  asm volatile("{ .reg .pred p; setp.ne.u32 p, %1, 0; bar.red.or.pred p, 0, p; selp.u32 %0,1,0,p; }" : "=r"(r) : "r"(r)); u[29]=r;
#if __CUDA_ARCH__ >= 900
  asm volatile("fence.proxy.async; fence.proxy.async.global; fence.proxy.async.shared::cta;");
#endif
  asm volatile("exit;");
}
__global__ void k_asm_mma(float* d, const unsigned* a, const unsigned* b){
  float c0=0,c1=0,c2=0,c3=0;
  unsigned a0=a[0],a1=a[1],a2=a[2],a3=a[3],b0=b[0],b1=b[1];
  asm volatile("mma.sync.aligned.m16n8k16.row.col.f32.f16.f16.f32 {%0,%1,%2,%3}, {%4,%5,%6,%7}, {%8,%9}, {%0,%1,%2,%3};"
    : "+f"(c0),"+f"(c1),"+f"(c2),"+f"(c3) : "r"(a0),"r"(a1),"r"(a2),"r"(a3),"r"(b0),"r"(b1));
  asm volatile("mma.sync.aligned.m16n8k16.row.col.f32.bf16.bf16.f32 {%0,%1,%2,%3}, {%4,%5,%6,%7}, {%8,%9}, {%0,%1,%2,%3};"
    : "+f"(c0),"+f"(c1),"+f"(c2),"+f"(c3) : "r"(a0),"r"(a1),"r"(a2),"r"(a3),"r"(b0),"r"(b1));
  asm volatile("mma.sync.aligned.m16n8k8.row.col.f32.tf32.tf32.f32 {%0,%1,%2,%3}, {%4,%5,%6,%7}, {%8,%9}, {%0,%1,%2,%3};"
    : "+f"(c0),"+f"(c1),"+f"(c2),"+f"(c3) : "r"(a0),"r"(a1),"r"(a2),"r"(a3),"r"(b0),"r"(b1));
  int i0=0,i1=0,i2=0,i3=0;
  asm volatile("mma.sync.aligned.m16n8k32.row.col.satfinite.s32.s8.s8.s32 {%0,%1,%2,%3}, {%4,%5,%6,%7}, {%8,%9}, {%0,%1,%2,%3};"
    : "+r"(i0),"+r"(i1),"+r"(i2),"+r"(i3) : "r"(a0),"r"(a1),"r"(a2),"r"(a3),"r"(b0),"r"(b1));
  asm volatile("mma.sync.aligned.m16n8k64.row.col.s32.u4.s4.s32 {%0,%1,%2,%3}, {%4,%5,%6,%7}, {%8,%9}, {%0,%1,%2,%3};"
    : "+r"(i0),"+r"(i1),"+r"(i2),"+r"(i3) : "r"(a0),"r"(a1),"r"(a2),"r"(a3),"r"(b0),"r"(b1));
  asm volatile("mma.sync.aligned.m16n8k256.row.col.s32.b1.b1.s32.xor.popc {%0,%1,%2,%3}, {%4,%5,%6,%7}, {%8,%9}, {%0,%1,%2,%3};"
    : "+r"(i0),"+r"(i1),"+r"(i2),"+r"(i3) : "r"(a0),"r"(a1),"r"(a2),"r"(a3),"r"(b0),"r"(b1));
  double dd0=0,dd1=0; double da=1.0, db=2.0;
  asm volatile("mma.sync.aligned.m8n8k4.row.col.f64.f64.f64.f64 {%0,%1}, {%2}, {%3}, {%0,%1};" : "+d"(dd0),"+d"(dd1) : "d"(da),"d"(db));
  unsigned h0=0,h1=0;
  asm volatile("mma.sync.aligned.m16n8k8.row.col.f16.f16.f16.f16 {%0,%1}, {%2,%3}, {%4}, {%0,%1};" : "+r"(h0),"+r"(h1) : "r"(a0),"r"(a1),"r"(b0));
  __shared__ unsigned short sm[16*16*4];
  unsigned x0,x1,x2,x3; unsigned sa = (unsigned)__cvta_generic_to_shared(sm + (threadIdx.x%16)*16);
  asm volatile("ldmatrix.sync.aligned.m8n8.x4.shared.b16 {%0,%1,%2,%3}, [%4];" : "=r"(x0),"=r"(x1),"=r"(x2),"=r"(x3) : "r"(sa));
  asm volatile("ldmatrix.sync.aligned.m8n8.x2.trans.shared::cta.b16 {%0,%1}, [%2];" : "=r"(x0),"=r"(x1) : "r"(sa));
  asm volatile("ldmatrix.sync.aligned.x1.m8n8.shared.b16 {%0}, [%1];" : "=r"(x2) : "r"(sa));
  asm volatile("cp.async.ca.shared.global [%0], [%1], 16;" :: "r"(sa), "l"(a));
  asm volatile("cp.async.cg.shared.global.L2::128B [%0], [%1], 16, %2;" :: "r"(sa), "l"(a), "r"(8));
  asm volatile("cp.async.ca.shared.global.L2::cache_hint [%0], [%1], 8, %2;" :: "r"(sa), "l"(a), "l"(0ull));
  asm volatile("cp.async.commit_group; cp.async.wait_group 1; cp.async.wait_all;");
  unsigned long long mb; __shared__ unsigned long long bar;
  unsigned ba = (unsigned)__cvta_generic_to_shared(&bar);
  asm volatile("mbarrier.init.shared.b64 [%0], 32;" :: "r"(ba));
  asm volatile("cp.async.mbarrier.arrive.noinc.shared.b64 [%0];" :: "r"(ba));
  asm volatile("mbarrier.arrive.shared.b64 %0, [%1];" : "=l"(mb) : "r"(ba));
  asm volatile("{ .reg .pred P1; LAB_WAIT: mbarrier.test_wait.shared.b64 P1, [%0], %1; @!P1 bra.uni LAB_WAIT; }" :: "r"(ba), "l"(mb));
  asm volatile("mbarrier.arrive_drop.shared.b64 %0, [%1];" : "=l"(mb) : "r"(ba));
  unsigned pc; asm volatile("mbarrier.pending_count.b64 %0, %1;" : "=r"(pc) : "l"(mb));
  asm volatile("mbarrier.inval.shared.b64 [%0];" :: "r"(ba));
  d[threadIdx.x]=c0+c1+c2+c3+i0+i1+i2+i3+dd0+dd1+h0+h1+x0+x1+x2+x3+pc;
}
