#include <cuda_fp16.h>
#include <cstdint>

__constant__ float c_coeffs[8] = {1.0f, -0.5f, 0.25f, -0.125f, 3.14159265f, 2.71828f, 1e-30f, -0.0f};
__constant__ int c_offsets[5] = {-2, -1, 0, 1, 2};
__constant__ double c_dbl[3] = {1.0 / 3.0, 1e300, -2.5};
__constant__ unsigned long long c_magic = 0x0123456789abcdefull;

struct Entry { short id; char tag; float weight; };   // padded struct -> byte array initializer
__constant__ Entry c_table[3] = {{1, 'a', 0.5f}, {2, 'b', 1.5f}, {-3, 'z', -2.0f}};

__device__ int g_counts[4] = {10, 20, 30, 40};
__device__ float g_scale = 2.0f;
__device__ int* g_count_ptr = &g_counts[2];             // pointer to another global (+8 offset)
__device__ float* g_scale_ptr = &g_scale;
__device__ const float* g_coeff_ptr = c_coeffs;         // pointer into constant space
__device__ const char* g_msg = "hello from a device string";
__device__ char g_name[16] = "ptxrun";
__device__ unsigned g_zero[64];                         // zero-initialised
__device__ __half_raw g_h = {0x3E00};                 // 1.5 as raw fp16 bits (no dynamic init)
__device__ uint8_t g_bytes[6] = {0, 1, 2, 254, 255, 128};
__device__ int16_t g_shorts[3] = {-1, 32767, -32768};
__device__ int* g_ptrs[2] = {&g_counts[0], &g_counts[3]};
static __device__ int s_hidden = 7;                     // internal linkage
namespace { __device__ float anon_ns_val = 0.75f; }

__device__ const int lut[16] = {0, 1, 1, 2, 1, 2, 2, 3, 1, 2, 2, 3, 2, 3, 3, 4};

extern "C" __global__ void use_globals(const int* __restrict__ in, float* __restrict__ out, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i >= n) return;
  int v = in[i];
  float acc = 0.0f;
  for (int k = 0; k < 5; ++k) acc += c_coeffs[(v + c_offsets[k]) & 7];
  acc += (float)c_dbl[v % 3] + c_table[v % 3].weight + c_table[(v + 1) % 3].tag;
  acc *= *g_scale_ptr + g_scale;
  acc += *g_count_ptr + g_ptrs[v & 1][0] + lut[v & 15] + g_coeff_ptr[v & 7];
  acc += g_msg[v & 7] + g_name[v & 15] + __half2float(__half(g_h)) + g_bytes[v % 6] + g_shorts[v % 3];
  acc += s_hidden + anon_ns_val + (float)(c_magic >> (v & 63));
  atomicAdd(&g_zero[v & 63], 1u);
  out[i] = acc;
}
