// Cube maps and mipmap levels at adversarial inputs (written for ptxrun): directions on texel
// boundaries and face edges, exact ties between components, zero and signed-zero components;
// lods on the 1/256 steps and the halfway points where levels change, NaN and infinities.
// cpoint: 16x16 f32 cube map, texel i holds i, point, wrap. clin: 16x16 f32 cube map, linear,
// clamp. mu8: 64x64 uchar4 read as normalized floats, 7 levels, point within levels, linear
// between them (bias 0.3, levels clamped to [0.5, 5.5]). mf32: 256 f32 texels, 9 levels, linear
// within levels, point between them (bias -0.7, clamped to [0.25, 7.5]). mtri: mu8's texels,
// linear within and between levels (trilinear, as cuda-samples' bindlessTexture samples).
// mf2: 64x32 f32 texels (zeros, subnormals and a wide range of exponents among them), 7 levels,
// trilinear.
#include <cuda_runtime.h>

__global__ void cube_mip(cudaTextureObject_t cpoint, cudaTextureObject_t clin, cudaTextureObject_t mu8,
                         cudaTextureObject_t mf32, cudaTextureObject_t mtri, cudaTextureObject_t mf2,
                         const float4* dirs, const float4* lods, float* cp, float* cl, float4* mu, float* mf,
                         float4* mt, float* m2, int n)
{
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i >= n) return;
    float4 d = dirs[i];
    cp[i] = texCubemap<float>(cpoint, d.x, d.y, d.z);
    cl[i] = texCubemap<float>(clin, d.x, d.y, d.z);
    float4 c = lods[i];
    mu[i] = tex2DLod<float4>(mu8, c.x, c.y, c.z);
    mf[i] = tex1DLod<float>(mf32, c.x, c.w);
    mt[i] = tex2DLod<float4>(mtri, c.x, c.y, c.z);
    m2[i] = tex2DLod<float>(mf2, c.y, c.x, c.w);
}
