// Linear filtering of 8- and 16-bit integer texels read as normalized floats
// (cudaReadModeNormalizedFloat): a uchar4 image (2D), a u8 ramp with normalized coordinates and
// wrap (1D), a u16 image (2D), an s16 signal (1D) and a two-layer uchar4 stack. Written for
// ptxrun; measured on an H100.
#include <cuda_runtime.h>

extern "C" __global__ void normalized_linear(cudaTextureObject_t rgba, cudaTextureObject_t ramp, cudaTextureObject_t u16img,
                                             cudaTextureObject_t s16sig, cudaTextureObject_t stack, const float2* xy,
                                             float4* rgba_out, float* ramp_out, float* u16_out, float* s16_out,
                                             float4* stack_out, int n) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i >= n) return;
    float x = xy[i].x, y = xy[i].y;
    rgba_out[i] = tex2D<float4>(rgba, x, y);
    ramp_out[i] = tex1D<float>(ramp, x * (1.0f / 37.0f) - 0.25f);
    u16_out[i] = tex2D<float>(u16img, y, x);
    s16_out[i] = tex1D<float>(s16sig, x * 3.0f);
    stack_out[i] = tex2DLayered<float4>(stack, x, y, i & 1);
}
