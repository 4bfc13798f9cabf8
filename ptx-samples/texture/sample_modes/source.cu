// Texture objects as CUDA code samples them: bilinear filtering of a float4 2D texture, 1D linear
// filtering with normalized coordinates and wrap, point sampling of uchar4 texels read as
// normalized floats, a layered 2D texture, a gather (tex2Dgather -> tld4), tex1Dfetch of a linear
// buffer, and the width/height queries. Written for ptxrun; measured on an H100.
#include <cuda_runtime.h>

extern "C" __global__ void sample_modes(cudaTextureObject_t img, cudaTextureObject_t ramp, cudaTextureObject_t rgba,
                             cudaTextureObject_t stack, cudaTextureObject_t lin, const float2* xy,
                             float4* bilinear, float* ramp_out, float4* rgba_out, float4* layered,
                             float4* gathered, float4* fetched, int* sizes, int n) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i >= n) return;
    float x = xy[i].x, y = xy[i].y;
    bilinear[i] = tex2D<float4>(img, x, y);
    ramp_out[i] = tex1D<float>(ramp, x / 16.0f - 1.5f);
    rgba_out[i] = tex2D<float4>(rgba, x * 2.0f, y);
    layered[i] = tex2DLayered<float4>(stack, y, x, i % 7 - 1);
    gathered[i] = tex2Dgather<float4>(img, x, y, i % 4);
    fetched[i] = tex1Dfetch<float4>(lin, i - 8);
    if (i == 0) {
        int w, h;
        asm("txq.width.b32 %0, [%1];" : "=r"(w) : "l"(img));
        asm("txq.height.b32 %0, [%1];" : "=r"(h) : "l"(img));
        sizes[0] = w;
        sizes[1] = h;
        asm("txq.width.b32 %0, [%1];" : "=r"(w) : "l"(ramp));
        sizes[2] = w;
    }
}
