// tex.grad at adversarial gradients (written for ptxrun): the level an H200 derives from the
// gradients of tex2DGrad / tex1DGrad over sizes the probe (scripts/probes/grad_probe.cu) did not
// measure, then the texels it samples there. g1: 127x255 f32, 8 levels, point within levels,
// linear between. g2: 4095 f32 (1D), 12 levels, bias -3.5, levels clamped to [0.75, 11]. g3:
// 1023x33 uchar4 read as normalized floats, 10 levels, bias 0.45. g4: 64x64 f32, 7 levels,
// trilinear, bias 0.3, clamped to [0.5, 5.5]. Gradients: 2^-14..2^6 with zeros (all four, one,
// pairs), NaN, infinities, subnormals and equal magnitudes (gen_inputs.py).
#include <cuda_runtime.h>

struct G { float x, y, dxx, dxy, dyx, dyy; };

__global__ void grad_adv(cudaTextureObject_t g1, cudaTextureObject_t g2, cudaTextureObject_t g3,
                         cudaTextureObject_t g4, const G* in, float* o1, float* o2, float4* o3, float* o4, int n)
{
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i >= n) return;
    G g = in[i];
    float2 dx = make_float2(g.dxx, g.dxy), dy = make_float2(g.dyx, g.dyy);
    o1[i] = tex2DGrad<float>(g1, g.x, g.y, dx, dy);
    o2[i] = tex1DGrad<float>(g2, g.x, g.dxx, g.dyx);
    o3[i] = tex2DGrad<float4>(g3, g.y, g.x, dy, dx);
    o4[i] = tex2DGrad<float>(g4, g.x, g.y, dx, dy);
}
