// nvcc 13.0 -arch=sm_90a -rdc=true -ptx -O3 (tests/cdp.rs: a correct kernel the checker must pass).
// A and B in CTA 0's NULL stream (B after A); B publishes a flag with a release store; C, launched
// by CTA 1, acquires the flag and, if set, reads what A wrote. A -> B (stream order) -> C
// (release/acquire): race-free under CUDA's rules.
__device__ __forceinline__ void st_release(unsigned* p, unsigned v) {
  asm volatile("st.release.gpu.global.u32 [%0], %1;" ::"l"(p), "r"(v) : "memory");
}
__device__ __forceinline__ unsigned ld_acquire(const unsigned* p) {
  unsigned v;
  asm volatile("ld.acquire.gpu.global.u32 %0, [%1];" : "=r"(v) : "l"(p) : "memory");
  return v;
}
extern "C" __global__ void produce(unsigned* d) { d[threadIdx.x] = threadIdx.x * 7u + 1u; }
extern "C" __global__ void publish(unsigned* f) { if (threadIdx.x == 0) st_release(f, 1u); }
extern "C" __global__ void consume(const unsigned* d, unsigned* f, unsigned* out) {
  __shared__ unsigned seen;
  if (threadIdx.x == 0) seen = ld_acquire(f);
  __syncthreads();
  if (seen == 1u) out[threadIdx.x] = d[threadIdx.x] + 1u;
}
extern "C" __global__ void root(unsigned* d, unsigned* f, unsigned* out) {
  if (threadIdx.x != 0) return;
  if (blockIdx.x == 0) {
    produce<<<1, 32>>>(d);
    publish<<<1, 32>>>(f);
  } else {
    consume<<<1, 32>>>(d, f, out);
  }
}
