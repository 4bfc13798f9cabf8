// Per-thread pipelines: (1) cuda::pipeline<cuda::thread_scope_thread> from cuda::make_pipeline(), 3 stages deep,
// producer_acquire / cuda::memcpy_async (aligned_size_t<16>) / producer_commit / consumer_wait / consumer_release,
// each thread streaming its own 16-byte slots; (2) the cuda_pipeline.h primitives __pipeline_memcpy_async with
// sizes 16 / 8 / 4 and a run-time zfill (the copy's last zfill bytes are zero-filled), __pipeline_commit,
// __pipeline_wait_prior(1) and (0), each followed by a bar.sync so a thread may read its neighbour's slot.
#include <cuda/pipeline>
#include <cuda_pipeline.h>

constexpr int T = 64;        // threads per block
constexpr int STAGES = 3;

extern "C" __global__ void __launch_bounds__(T) pipeline_thread(const uint4* __restrict__ in, const unsigned char* __restrict__ in2,
                                                                unsigned* __restrict__ out, unsigned* __restrict__ out2, int tiles) {
  __shared__ alignas(16) uint4 ring[STAGES][T];
  __shared__ alignas(16) unsigned char zf[2][T * 16];
  const int t = threadIdx.x;
  const unsigned b = blockIdx.x;

  // ---- (1) thread-scope cuda::pipeline: a thread only ever touches its own slot of each stage
  {
    const uint4* src = in + (size_t)b * tiles * T;
    cuda::pipeline<cuda::thread_scope_thread> pipe = cuda::make_pipeline();
    int fetch = 0;
    unsigned acc = 0x9E3779B9u;
    for (int i = 0; i < tiles; ++i) {
      for (; fetch < tiles && fetch < i + STAGES; ++fetch) {
        pipe.producer_acquire();
        cuda::memcpy_async(&ring[fetch % STAGES][t], &src[(size_t)fetch * T + t], cuda::aligned_size_t<16>(sizeof(uint4)), pipe);
        pipe.producer_commit();
      }
      pipe.consumer_wait();                     // the oldest committed stage (tile i) has landed
      const uint4 v = ring[i % STAGES][t];
      pipe.consumer_release();
      acc = (acc ^ v.x) * 0x01000193u + (v.y >> 3) - v.z + (v.w << 1);
      out[((size_t)b * tiles + i) * T + t] = acc;
    }
  }

  // ---- (2) primitives with zero fill; untouched bytes keep the pattern written here
  for (int w = t; w < 2 * T * 4; w += T) reinterpret_cast<unsigned*>(zf)[w] = 0xC3C3C3C3u ^ (unsigned)w ^ (b << 24);
  __syncthreads();
  const unsigned char* g = in2 + (size_t)b * 2 * T * 16;
  __pipeline_memcpy_async(&zf[0][16 * t], g + 16 * t, 16, (size_t)(t % 17));          // src-size 16 - zfill
  __pipeline_commit();
  __pipeline_memcpy_async(&zf[1][16 * t], g + T * 16 + 16 * t, 8, (size_t)(t % 9));
  __pipeline_memcpy_async(&zf[1][16 * t + 8], g + T * 16 + 16 * t + 8, 4, (size_t)(t % 5));
  __pipeline_commit();                                                                // bytes 12..15 untouched

  __pipeline_wait_prior(1);                     // this thread's first group is complete
  __syncthreads();                              // ... and every other thread's
  const int n = (t + 1) % T;
  const unsigned* z0 = reinterpret_cast<const unsigned*>(&zf[0][16 * n]);
  unsigned r0 = z0[0] + 3u * z0[1] + 5u * z0[2] + 7u * z0[3];
  __pipeline_wait_prior(0);
  __syncthreads();
  const unsigned* z1 = reinterpret_cast<const unsigned*>(&zf[1][16 * n]);
  unsigned r1 = z1[0] ^ (z1[1] << 1) ^ (z1[2] << 2) ^ (z1[3] << 3);
  out2[(b * T + t) * 2] = r0;
  out2[(b * T + t) * 2 + 1] = r1;
}
