#include <cuda.h>          // CUtensorMap
#include <cuda/ptx>
#include <cstdint>
namespace ptx = cuda::ptx;

constexpr int BM = 64, BN = 64;

__device__ __forceinline__ uint32_t smem_u32(const void* p) { return (uint32_t)__cvta_generic_to_shared(p); }

// Loads a BMxBN tile of `src` with TMA, adds 1, stores it to the same coordinates of `dst` with TMA.
extern "C" __global__ void tma_add_one(const __grid_constant__ CUtensorMap src, const __grid_constant__ CUtensorMap dst) {
  __shared__ alignas(128) float tile[BM][BN];
  __shared__ alignas(8) uint64_t bar;
  const int x = blockIdx.x * BN, y = blockIdx.y * BM;

  if (threadIdx.x == 0) {
    asm volatile("prefetch.tensormap [%0];" :: "l"(&src) : "memory");
    ptx::mbarrier_init(&bar, 1);
    ptx::fence_proxy_async(ptx::space_shared);   // make the init visible to the async proxy
  }
  __syncthreads();

  if (threadIdx.x == 0) {
    int32_t coords[2] = {x, y};
    ptx::cp_async_bulk_tensor(ptx::space_cluster, ptx::space_global, &tile[0][0], &src, coords, &bar);
    ptx::mbarrier_arrive_expect_tx(ptx::sem_release, ptx::scope_cta, ptx::space_shared, &bar, sizeof(tile));
  }
  while (!ptx::mbarrier_try_wait_parity(&bar, 0)) {
  }

  for (int i = threadIdx.x; i < BM * BN; i += blockDim.x) (&tile[0][0])[i] += 1.0f;
  ptx::fence_proxy_async(ptx::space_shared);    // generic-proxy writes -> visible to TMA
  __syncthreads();

  if (threadIdx.x == 0) {
    asm volatile("cp.async.bulk.tensor.2d.global.shared::cta.bulk_group [%0, {%1, %2}], [%3];"
                 :: "l"(&dst), "r"(x), "r"(y), "r"(smem_u32(&tile[0][0])) : "memory");
    asm volatile("cp.async.bulk.commit_group;" ::: "memory");
    asm volatile("cp.async.bulk.wait_group.read 0;" ::: "memory");
    asm volatile("mbarrier.inval.shared::cta.b64 [%0];" :: "r"(smem_u32(&bar)) : "memory");
  }
}

// Same load with raw inline asm (as CUTLASS-style code writes it), with an L2 cache hint
extern "C" __global__ void tma_load_asm(const __grid_constant__ CUtensorMap src, float* out, uint64_t policy) {
  __shared__ alignas(128) float tile[BM * BN];
  __shared__ alignas(8) uint64_t bar;
  if (threadIdx.x == 0) {
    asm volatile("mbarrier.init.shared::cta.b64 [%0], 1;" :: "r"(smem_u32(&bar)));
    asm volatile("fence.mbarrier_init.release.cluster;" ::: "memory");
    asm volatile("mbarrier.arrive.expect_tx.shared::cta.b64 _, [%0], %1;" :: "r"(smem_u32(&bar)), "r"((unsigned)sizeof(tile)) : "memory");
    asm volatile("cp.async.bulk.tensor.2d.shared::cluster.global.tile.mbarrier::complete_tx::bytes.L2::cache_hint [%0], [%1, {%2, %3}], [%4], %5;"
                 :: "r"(smem_u32(tile)), "l"(&src), "r"((int)blockIdx.x * BN), "r"((int)blockIdx.y * BM), "r"(smem_u32(&bar)), "l"(policy) : "memory");
  }
  __syncthreads();
  uint32_t done;
  do {
    asm volatile("{\n\t.reg .pred p;\n\tmbarrier.try_wait.parity.shared::cta.b64 p, [%1], %2, %3;\n\tselp.b32 %0, 1, 0, p;\n\t}"
                 : "=r"(done) : "r"(smem_u32(&bar)), "r"(0), "r"(1000000) : "memory");
  } while (!done);
  for (int i = threadIdx.x; i < BM * BN; i += blockDim.x) out[(blockIdx.y * gridDim.x + blockIdx.x) * BM * BN + i] = tile[i];
}
