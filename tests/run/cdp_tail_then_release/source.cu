// nvcc 13.0 -arch=sm_90a -rdc=true -ptx -O3 (tests/cdp.rs: a correct kernel the checker must pass).
// P (fire-and-forget from CTA 0) launches C, which writes d, and tail-launches T, which runs
// after P and C and publishes "d is ready" with a release store. Q (fire-and-forget from CTA 1)
// acquires the flag and, if set, reads d. C -> T (tail launch) -> Q (release/acquire): no race.
__device__ __forceinline__ void st_release(unsigned* p, unsigned v) {
  asm volatile("st.release.gpu.global.u32 [%0], %1;" ::"l"(p), "r"(v) : "memory");
}
__device__ __forceinline__ unsigned ld_acquire(const unsigned* p) {
  unsigned v;
  asm volatile("ld.acquire.gpu.global.u32 %0, [%1];" : "=r"(v) : "l"(p) : "memory");
  return v;
}
extern "C" __global__ void child(unsigned* d) { d[threadIdx.x] = threadIdx.x * 7u + 1u; }
extern "C" __global__ void ready(unsigned* f) { if (threadIdx.x == 0) st_release(f, 1u); }
extern "C" __global__ void parent(unsigned* d, unsigned* f) {
  if (threadIdx.x != 0) return;
  child<<<1, 32>>>(d);
  ready<<<1, 1, 0, cudaStreamTailLaunch>>>(f);
}
extern "C" __global__ void consume(const unsigned* d, unsigned* f, unsigned* out) {
  __shared__ unsigned seen;
  if (threadIdx.x == 0) seen = ld_acquire(f);
  __syncthreads();
  if (seen == 1u) out[threadIdx.x] = d[threadIdx.x] + 1u;
}
extern "C" __global__ void root(unsigned* d, unsigned* f, unsigned* out) {
  if (threadIdx.x != 0) return;
  if (blockIdx.x == 0) parent<<<1, 32, 0, cudaStreamFireAndForget>>>(d, f);
  else consume<<<1, 32, 0, cudaStreamFireAndForget>>>(d, f, out);
}
