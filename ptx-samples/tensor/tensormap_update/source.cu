// A tensor map updated in global memory on the device (as grouped GEMMs do): one thread copies map A (a
// __grid_constant__ parameter) into the global buffer gmap with ordinary stores, publishes it to the
// tensor-map proxy (fence.proxy.tensormap::generic.release, then .acquire [gmap], 128), loads a 32x8 f32 box
// through it with cp.async.bulk.tensor, then does the same with map B. PTX ISA 9.0 section 9.7.12.4
// (fence.proxy.tensormap). Must be clean; out[0:256] = A's box, out[256:512] = B's. Buggy twin (no fences for
// the second map): hazards/tensormap_no_fence.
#define FENCED 1
#include <cuda.h>
#include <stdint.h>

__device__ __forceinline__ uint32_t sa(const void* p) { return (uint32_t)__cvta_generic_to_shared(p); }

extern "C" __global__ void __launch_bounds__(32) tensormap_update(const __grid_constant__ CUtensorMap mapA,
                                                                  const __grid_constant__ CUtensorMap mapB,
                                                                  CUtensorMap* gmap, float* out) {
  __shared__ alignas(128) float tile[256];
  __shared__ alignas(8) uint64_t bar;
  if (threadIdx.x != 0) return;
  asm volatile("mbarrier.init.shared::cta.b64 [%0], 1;" :: "r"(sa(&bar)) : "memory");
  asm volatile("fence.mbarrier_init.release.cluster;" ::: "memory");
  for (int phase = 0; phase < 2; phase++) {
    // Publish a tensor map in global memory with ordinary stores.
    const uint64_t* src = reinterpret_cast<const uint64_t*>(phase ? &mapB : &mapA);
    uint64_t* dst = reinterpret_cast<uint64_t*>(gmap);
    for (int i = 0; i < 16; i++) dst[i] = src[i];
    if (phase == 0 || FENCED) {
      asm volatile("fence.proxy.tensormap::generic.release.gpu;" ::: "memory");
      asm volatile("fence.proxy.tensormap::generic.acquire.gpu [%0], 128;" :: "l"(gmap) : "memory");
    }
    // One 32 x 8 f32 box through the map in global memory.
    asm volatile("mbarrier.arrive.expect_tx.shared::cta.b64 _, [%0], 1024;" :: "r"(sa(&bar)) : "memory");
    asm volatile("cp.async.bulk.tensor.2d.shared::cluster.global.tile.mbarrier::complete_tx::bytes [%0], [%1, {%2, %3}], [%4];"
                 :: "r"(sa(tile)), "l"(gmap), "r"(0), "r"(0), "r"(sa(&bar)) : "memory");
    uint32_t done = 0;
    while (!done) {
      asm volatile("{\n\t.reg .pred p;\n\tmbarrier.try_wait.parity.shared::cta.b64 p, [%1], %2;\n\tselp.u32 %0, 1, 0, p;\n\t}"
                   : "=r"(done) : "r"(sa(&bar)), "r"(phase) : "memory");
    }
    for (int i = 0; i < 256; i++) out[phase * 256 + i] = tile[i];
  }
}
