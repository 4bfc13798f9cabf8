// A 4-stage cp.async.cg ring streaming a long input through shared memory (16 bytes per thread per stage):
// a prologue of 3 committed stages, then per tile: wait_group 2 (this thread's copies of the tile landed),
// bar.sync (everyone's did), consume the stage (this thread's int4 and its neighbour's), bar.sync, refill the
// ring with the tile 3 ahead, commit (an empty group past the end keeps the group count uniform).
#include <cstdint>

constexpr int T = 128;       // threads per block
constexpr int STAGES = 4;

__device__ __forceinline__ uint32_t sa(const void* p) { return (uint32_t)__cvta_generic_to_shared(p); }

extern "C" __global__ void __launch_bounds__(T) cp_async_ring4(const int4* __restrict__ in, unsigned* __restrict__ out, int tiles) {
  __shared__ alignas(16) int4 ring[STAGES][T];
  const int t = threadIdx.x;
  const int4* src = in + (size_t)blockIdx.x * tiles * T;
  unsigned* dst = out + (size_t)blockIdx.x * tiles * T;

  auto load = [&](int tile) {
    if (tile < tiles)
      asm volatile("cp.async.cg.shared.global [%0], [%1], 16;" :: "r"(sa(&ring[tile % STAGES][t])), "l"(src + (size_t)tile * T + t) : "memory");
    asm volatile("cp.async.commit_group;" ::: "memory");
  };

  for (int s = 0; s < STAGES - 1; ++s) load(s);
  unsigned acc = 0;   // unsigned: wrap-around arithmetic is defined
  for (int i = 0; i < tiles; ++i) {
    asm volatile("cp.async.wait_group 2;" ::: "memory");   // groups committed: i + 3; all but the newest 2 done
    __syncthreads();
    const uint4 a = *reinterpret_cast<const uint4*>(&ring[i % STAGES][t]);
    const uint4 n = *reinterpret_cast<const uint4*>(&ring[i % STAGES][(t + 1) % T]);   // another thread's cp.async
    const unsigned v = a.x * 3u - n.y + (a.z ^ n.w) + (unsigned)i;
    acc += v;
    dst[(size_t)i * T + t] = v + (acc >> 3);
    __syncthreads();
    load(i + STAGES - 1);
  }
  asm volatile("cp.async.wait_all;" ::: "memory");
}
