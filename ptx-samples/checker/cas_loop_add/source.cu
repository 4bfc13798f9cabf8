// The CUDA C++ Programming Guide's atomicAdd for double built from atomicCAS (section "Atomic Functions"):
//   old = *address; do { assumed = old; old = atomicCAS(address, assumed, f(assumed)); } while (assumed != old);
// The first guess `old = *address` is a PLAIN load that races with the other threads' atomicCAS writes of the
// same word. The PTX memory model defines the outcome (the load returns some value written to the word, and
// the CAS discards a stale guess), so the kernel is correct; ptxrun reports the plain read as a `data-race`
// of severity `warning` (a race only with atomic writes) and exits 0. 4 CTAs x 128 threads each add in[i]
// (integer-valued doubles, so every order of the additions gives the same sum) to sum[i % 4].
#include "../common.cuh"

__device__ double atomic_add_cas(double* address, double val) {
  unsigned long long int* address_as_ull = (unsigned long long int*)address;
  unsigned long long int old = *address_as_ull, assumed;
  do {
    assumed = old;
    old = atomicCAS(address_as_ull, assumed, __double_as_longlong(val + __longlong_as_double(assumed)));
  } while (assumed != old);
  return __longlong_as_double(old);
}

extern "C" __global__ void __launch_bounds__(128) cas_loop_add(const double* __restrict__ in, double* sum) {
  const int i = blockIdx.x * blockDim.x + threadIdx.x;
  atomic_add_cas(&sum[i % 4], in[i]);
}
