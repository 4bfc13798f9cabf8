// Cube maps and mipmap levels at adversarial inputs (written for ptxrun): directions on texel
// boundaries and face edges, exact ties between components, zero and signed-zero components;
// lods on the 1/256 steps and the halfway points where levels change, NaN and infinities.
// cpoint: 16x16 f32 cube map, texel i holds i, point, wrap. clin: 16x16 f32 cube map, linear,
// clamp. mu8: 64x64 uchar4 read as normalized floats, 7 levels, point within levels, linear
// between them (bias 0.3, levels clamped to [0.5, 5.5]). mf32: 256 f32 texels, 9 levels, linear
// within levels, point between them (bias -0.7, clamped to [0.25, 7.5]).
#include <cuda_runtime.h>

__global__ void cube_mip(cudaTextureObject_t cpoint, cudaTextureObject_t clin, cudaTextureObject_t mu8,
                         cudaTextureObject_t mf32, const float4* dirs, const float4* lods, float* cp,
                         float* cl, float4* mu, float* mf, int n)
{
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i >= n) return;
    float4 d = dirs[i];
    cp[i] = texCubemap<float>(cpoint, d.x, d.y, d.z);
    cl[i] = texCubemap<float>(clin, d.x, d.y, d.z);
    float4 c = lods[i];
    mu[i] = tex2DLod<float4>(mu8, c.x, c.y, c.z);
    mf[i] = tex1DLod<float>(mf32, c.x, c.w);
}
