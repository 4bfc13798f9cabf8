#include <cooperative_groups.h>
#include <cuda/pipeline>
// shared-memory barrier objects have constructors; initialisation is done explicitly (init / make_pipeline)
#pragma nv_diag_suppress static_var_with_dynamic_init
namespace cg = cooperative_groups;

constexpr int STAGES = 3;
constexpr int CHUNK = 1024;  // floats per stage; blockDim.x*4 == CHUNK

extern "C" __global__ void staged_sum(const float4* __restrict__ in, float* __restrict__ out, int nchunks) {
  __shared__ alignas(16) float4 buf[STAGES][CHUNK / 4];
  __shared__ cuda::pipeline_shared_state<cuda::thread_scope_block, STAGES> state;
  auto block = cg::this_thread_block();
  auto pipe = cuda::make_pipeline(block, &state);

  int fetch = 0;
  float acc = 0.0f;
  for (int c = 0; c < nchunks; ++c) {
    for (; fetch < nchunks && fetch < c + STAGES; ++fetch) {
      pipe.producer_acquire();
      // whole block copies one chunk; each thread moves one 16-byte float4
      cuda::memcpy_async(&buf[fetch % STAGES][block.thread_rank()],
                         &in[(size_t)fetch * (CHUNK / 4) + block.thread_rank()],
                         cuda::aligned_size_t<16>(sizeof(float4)), pipe);
      pipe.producer_commit();
    }
    pipe.consumer_wait();
    block.sync();
    float4 v = buf[c % STAGES][(block.thread_rank() + 1) % block.size()];
    acc += v.x + v.y + v.z + v.w;
    block.sync();
    pipe.consumer_release();
  }
  out[blockIdx.x * blockDim.x + threadIdx.x] = acc;
}

// Primitive (non-C++) pipeline API from cuda_pipeline.h for comparison
#include <cuda_pipeline.h>
extern "C" __global__ void primitives_copy(const int4* __restrict__ in, int4* __restrict__ out) {
  __shared__ int4 s[2][128];
  int t = threadIdx.x;
  __pipeline_memcpy_async(&s[0][t], &in[t], sizeof(int4));
  __pipeline_commit();
  __pipeline_memcpy_async(&s[1][t], &in[128 + t], sizeof(int4));
  __pipeline_commit();
  __pipeline_wait_prior(1);
  __syncthreads();
  out[t] = s[0][127 - t];
  __pipeline_wait_prior(0);
  __syncthreads();
  out[128 + t] = s[1][127 - t];
}
