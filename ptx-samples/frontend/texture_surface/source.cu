#include <cuda_runtime.h>

extern "C" __global__ void sample_textures(cudaTextureObject_t tex2d, cudaTextureObject_t tex1d, cudaTextureObject_t tex3d,
                                           cudaTextureObject_t layered, float4* __restrict__ out, int w, int h) {
  int x = blockIdx.x * blockDim.x + threadIdx.x, y = blockIdx.y * blockDim.y + threadIdx.y;
  if (x >= w || y >= h) return;
  float u = (x + 0.5f) / w, v = (y + 0.5f) / h;
  float4 a = tex2D<float4>(tex2d, u, v);
  int b = tex1Dfetch<int>(tex1d, y * w + x);
  float c = tex3D<float>(tex3d, u, v, 0.5f);
  float4 d = tex2DLod<float4>(tex2d, u, v, 1.5f);
  float e = tex2DLayered<float>(layered, u, v, x & 3);
  out[y * w + x] = make_float4(a.x + d.x, a.y + c, a.z + e, a.w + (float)b);
}

extern "C" __global__ void surface_blur(cudaSurfaceObject_t src, cudaSurfaceObject_t dst, cudaSurfaceObject_t line, int w, int h) {
  int x = blockIdx.x * blockDim.x + threadIdx.x, y = blockIdx.y * blockDim.y + threadIdx.y;
  if (x >= w || y >= h) return;
  float s = 0.0f;
  for (int dy = -1; dy <= 1; ++dy)
    for (int dx = -1; dx <= 1; ++dx)
      s += surf2Dread<float>(src, min(max(x + dx, 0), w - 1) * (int)sizeof(float), min(max(y + dy, 0), h - 1), cudaBoundaryModeClamp);
  surf2Dwrite(s / 9.0f, dst, x * (int)sizeof(float), y);
  if (y == 0) surf1Dwrite(make_uchar4(x, x >> 8, 0, 255), line, x * 4, cudaBoundaryModeZero);
}
