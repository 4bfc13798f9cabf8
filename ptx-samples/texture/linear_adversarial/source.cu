// Linear and point filtering at adversarial coordinates (written for ptxrun), the cases
// scripts/probes/tex_linear_probe.cu measured: 3D textures (wrap over 8x6x5, border over u8
// texels), border mode in 1D and 2D with border colours, half and s8 texels, normalized
// coordinates over sizes that are not powers of two (9000 x 3, 100000, 1000; the unit cuts them
// to 21 to 23 fraction bits) in point and linear filtering, a u16 border colour point-sampled.
// Texture k reads coordinate block k first: coords[(i + 1024 k) % n] (gen_inputs.py aims each
// block at its texture: 1/256 steps, texel edges, far values, NaN, infinities, -0, subnormals).
#include <cuda_runtime.h>

__global__ void linear_adv(cudaTextureObject_t t3f, cudaTextureObject_t t3u, cudaTextureObject_t t1b,
                           cudaTextureObject_t t2b, cudaTextureObject_t t2h, cudaTextureObject_t t2s,
                           cudaTextureObject_t t2n, cudaTextureObject_t t1p, cudaTextureObject_t t1w,
                           cudaTextureObject_t t2p, const float4* coords, float* o3f, float4* o3u, float* o1b,
                           float4* o2b, float* o2h, float4* o2s, float* o2n, float* o1p, float* o1w, float4* o2p,
                           int n)
{
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i >= n) return;
    float4 c;
    c = coords[(i + 1024 * 0) % n]; o3f[i] = tex3D<float>(t3f, c.x, c.y, c.z);
    c = coords[(i + 1024 * 1) % n]; o3u[i] = tex3D<float4>(t3u, c.x, c.y, c.z);
    c = coords[(i + 1024 * 2) % n]; o1b[i] = tex1D<float>(t1b, c.x);
    c = coords[(i + 1024 * 3) % n]; o2b[i] = tex2D<float4>(t2b, c.x, c.y);
    c = coords[(i + 1024 * 4) % n]; o2h[i] = tex2D<float>(t2h, c.x, c.y);
    c = coords[(i + 1024 * 5) % n]; o2s[i] = tex2D<float4>(t2s, c.x, c.y);
    c = coords[(i + 1024 * 6) % n]; o2n[i] = tex2D<float>(t2n, c.x, c.y);
    c = coords[(i + 1024 * 7) % n]; o1p[i] = tex1D<float>(t1p, c.x);
    c = coords[(i + 1024 * 8) % n]; o1w[i] = tex1D<float>(t1w, c.x);
    c = coords[(i + 1024 * 9) % n]; o2p[i] = tex2D<float4>(t2p, c.x, c.y);
}
