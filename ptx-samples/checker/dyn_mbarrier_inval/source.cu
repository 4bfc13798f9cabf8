// Looks racy (one 8-byte location is an mbarrier, then another mbarrier, then plain data), is correct. The
// mbarrier lives in dynamic shared memory at an offset known only at run time (kernel parameter `off`). It is
// used for a bulk load of a 1 KiB tile (count 1 + 1024 bytes of tx), then invalidated with mbarrier.inval after a
// barrier, re-initialised with count blockDim.x for a second use (every thread writes its word of the tile,
// arrives, waits, and reads a neighbour's word), invalidated again, and its 8 bytes reused as an ordinary int.
// Each step is separated from the previous uses by __syncthreads.
// out[260b + t] = in[256b + (t + 5) % 256] + 1 (t < 256), out[260b + 256] = 7 + b.
#include "../common.cuh"

constexpr int T = 256;

extern "C" __global__ void __launch_bounds__(T) dyn_mbarrier_inval(const int* __restrict__ in, int* __restrict__ out, int off) {
  extern __shared__ __align__(128) unsigned char dsm[];
  int* tile = reinterpret_cast<int*>(dsm);                        // 1 KiB
  uint64_t* bar = reinterpret_cast<uint64_t*>(dsm + 1024 + off);  // runtime offset (a multiple of 8)
  const int t = threadIdx.x, b = blockIdx.x;
  // first use: one bulk load
  if (t == 0) { mbar_init(bar, 1); fence_mbarrier_init(); }
  __syncthreads();
  if (t == 0) { mbar_arrive_expect_tx(bar, T * 4); bulk_g2s(tile, in + b * T, T * 4, bar); }
  mbar_wait(bar, 0);
  const int v = tile[t];
  __syncthreads();
  // second use: invalidate, re-initialise with another count, every thread arrives
  if (t == 0) { mbar_inval(bar); mbar_init(bar, blockDim.x); }
  __syncthreads();
  tile[t] = v + 1;                      // generic write of bytes the bulk load wrote
  mbar_arrive(bar);
  mbar_wait(bar, 0);
  out[b * 260 + t] = tile[(t + 5) % T];
  __syncthreads();
  // done with the mbarrier: invalidate it and reuse its memory as data
  if (t == 0) mbar_inval(bar);
  __syncthreads();
  if (t == 1) *reinterpret_cast<int*>(bar) = 7 + b;
  __syncthreads();
  if (t == 2) out[b * 260 + T] = *reinterpret_cast<int*>(bar);
}
