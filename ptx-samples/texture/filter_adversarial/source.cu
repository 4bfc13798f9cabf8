// Adversarial inputs for the texture unit's filtering arithmetic: texels of every magnitude and
// sign with subnormals, infinities and NaNs; coordinates on and next to every 1/256 rounding
// boundary, at texel centres, far outside, infinite and NaN. 1D linear (unnormalized, clamp),
// 1D linear (normalized, mirror), 1D point (normalized, wrap), 2D bilinear of float4 texels.
// Written for ptxrun; inputs from gen_inputs.py; outputs measured on an H100.
#include <cuda_runtime.h>

extern "C" __global__ void filter(cudaTextureObject_t lin, cudaTextureObject_t mirror, cudaTextureObject_t wrap,
                                  cudaTextureObject_t img, const float* xs, const float2* xy, float* lin_out,
                                  float* mirror_out, float* wrap_out, float4* img_out, int n) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i >= n) return;
    float x = xs[i];
    lin_out[i] = tex1D<float>(lin, x);
    mirror_out[i] = tex1D<float>(mirror, x * (1.0f / 4096.0f));
    wrap_out[i] = tex1D<float>(wrap, x * (1.0f / 1024.0f));
    img_out[i] = tex2D<float4>(img, xy[i].x, xy[i].y);
}
