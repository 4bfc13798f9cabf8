// cuda::pipeline<cuda::thread_scope_block> with producer / consumer roles: warp 0 produces (cuda::memcpy_async
// of 16-byte pieces into a 3-stage ring), warps 1..3 consume (each reads its own piece and the next consumer's
// piece of the stage, both copied by some producer lane). producer_acquire waits until every consumer has
// released the stage; consumer_wait waits until every producer lane's copies of the stage have landed.
#include <cooperative_groups.h>
#include <cuda/pipeline>
// shared-memory barrier objects have constructors; initialisation is done explicitly (make_pipeline)
#pragma nv_diag_suppress static_var_with_dynamic_init
namespace cg = cooperative_groups;

constexpr int STAGES = 3;
constexpr int NC = 96;              // consumer threads (warps 1..3)
constexpr int TILE = NC;            // uint4 pieces per tile (1536 bytes)

extern "C" __global__ void __launch_bounds__(128) pipeline_roles(const uint4* __restrict__ in, unsigned* __restrict__ out, int ntiles) {
  __shared__ alignas(16) uint4 ring[STAGES][TILE];
  __shared__ cuda::pipeline_shared_state<cuda::thread_scope_block, STAGES> state;
  auto block = cg::this_thread_block();
  const int r = block.thread_rank();
  const bool producer = r < 32;
  auto pipe = cuda::make_pipeline(block, &state, producer ? cuda::pipeline_role::producer : cuda::pipeline_role::consumer);
  const uint4* src = in + (size_t)blockIdx.x * ntiles * TILE;

  if (producer) {
    for (int i = 0; i < ntiles; ++i) {
      pipe.producer_acquire();
      for (int j = r; j < TILE; j += 32)
        cuda::memcpy_async(&ring[i % STAGES][j], &src[(size_t)i * TILE + j], cuda::aligned_size_t<16>(sizeof(uint4)), pipe);
      pipe.producer_commit();
    }
  } else {
    const int c = r - 32;
    unsigned acc = (unsigned)c;
    for (int i = 0; i < ntiles; ++i) {
      pipe.consumer_wait();
      const uint4 a = ring[i % STAGES][c];
      const uint4 n = ring[i % STAGES][(c + 1) % TILE];
      pipe.consumer_release();
      acc = acc * 3u + (a.x ^ n.y) - (a.z >> 4) + n.w;
      out[((size_t)blockIdx.x * ntiles + i) * NC + c] = acc;
    }
  }
}
