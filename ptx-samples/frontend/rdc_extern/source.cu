#include <cassert>
// Declarations resolved by the device linker (defined in other translation units)
extern __device__ float ext_table[256];
extern __constant__ int ext_params[4];

// Definitions visible to other translation units
__device__ float shared_bias = 0.125f;
__constant__ float exported_scale[2] = {2.0f, 0.5f};
__device__ __noinline__ float exported_helper(float x) { return x * exported_scale[0] + shared_bias; }

template <typename T> __device__ __noinline__ T twice(T v) { return v + v; }   // emitted as .weak .func

extern "C" __global__ void rdc_kernel(float* out, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  assert(n > 0);
  if (i >= n) return;
  float v = ext_table[i & 255] * (float)ext_params[i & 3];
  float* scratch = (float*)malloc(4 * sizeof(float));   // device heap
  if (scratch) {
    for (int k = 0; k < 4; ++k) scratch[k] = exported_helper(v + k);
    v += scratch[i & 3];
    free(scratch);
  }
  out[i] = twice(v) + (float)twice(i);
}
