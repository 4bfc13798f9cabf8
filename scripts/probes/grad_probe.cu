// tex.grad probe for ptxrun: the level an H200 derives from `tex.grad`'s gradients (tex1DGrad,
// tex2DGrad) over several sizes, biases and clamps. Each texture is mipmapped, level l holding l
// everywhere, point filtering within levels and linear between them: a result is the selected
// level plus the fraction (of 256) of the next, i.e. the lod after bias and clamps. Writes
// NAME.in (G records: x, y, dPdx.x, dPdx.y, dPdy.x, dPdy.y) and NAME.out (f32) to $PROBE_OUT.
//   nvcc -arch=sm_90 scripts/probes/grad_probe.cu -o probe && PROBE_OUT=dir ./probe
#include <cmath>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <vector>
#include <cuda_runtime.h>
#define CK(x) do { cudaError_t e_ = (x); if (e_ != cudaSuccess) { fprintf(stderr, "%s:%d %s\n", __FILE__, __LINE__, cudaGetErrorString(e_)); exit(1); } } while (0)

static uint64_t rs = 0x9ad1e47;
static uint64_t nxt() { rs += 0x9E3779B97F4A7C15ull; uint64_t z = rs; z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ull; z = (z ^ (z >> 27)) * 0x94D049BB133111EBull; return z ^ (z >> 31); }
static float frand(float a, float b) { return a + (float)((nxt() >> 11) * (1.0 / 9007199254740992.0)) * (b - a); }
static float sgn() { return (nxt() & 1) ? -1.f : 1.f; }

static void save(const char* name, const void* p, size_t n) {
  char path[512]; snprintf(path, sizeof path, "%s/%s", getenv("PROBE_OUT"), name);
  FILE* f = fopen(path, "wb"); fwrite(p, 1, n, f); fclose(f);
}

struct G { float x, y, dxx, dxy, dyx, dyy; };
__global__ void kgrad2(cudaTextureObject_t t, const G* c, float* out, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) out[i] = tex2DGrad<float>(t, c[i].x, c[i].y, make_float2(c[i].dxx, c[i].dxy), make_float2(c[i].dyx, c[i].dyy)); }
__global__ void kgrad1(cudaTextureObject_t t, const G* c, float* out, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) out[i] = tex1DGrad<float>(t, c[i].x, c[i].dxx, c[i].dyx); }

// A mipmapped f32 texture of w x h (h = 0: 1D) whose level l holds l; levels as CUDA makes them.
static cudaTextureObject_t levels_tex(int w, int h, int levels, float bias, float lo, float hi) {
  cudaChannelFormatDesc f = cudaCreateChannelDesc<float>();
  cudaMipmappedArray_t m; CK(cudaMallocMipmappedArray(&m, &f, make_cudaExtent(w, h, 0), levels));
  for (int l = 0; l < levels; l++) {
    int lw = w >> l > 1 ? w >> l : 1, lh = h == 0 ? 1 : (h >> l > 1 ? h >> l : 1);
    std::vector<float> v((size_t)lw * lh, (float)l);
    cudaArray_t a; CK(cudaGetMipmappedArrayLevel(&a, m, l));
    CK(cudaMemcpy2DToArray(a, 0, 0, v.data(), lw * 4, lw * 4, lh, cudaMemcpyHostToDevice));
  }
  cudaResourceDesc rd = {}; rd.resType = cudaResourceTypeMipmappedArray; rd.res.mipmap.mipmap = m;
  cudaTextureDesc td = {};
  for (int i = 0; i < 3; i++) td.addressMode[i] = cudaAddressModeClamp;
  td.filterMode = cudaFilterModePoint; td.readMode = cudaReadModeElementType; td.normalizedCoords = 1;
  td.mipmapFilterMode = cudaFilterModeLinear; td.mipmapLevelBias = bias; td.minMipmapLevelClamp = lo; td.maxMipmapLevelClamp = hi;
  cudaTextureObject_t t; CK(cudaCreateTextureObject(&t, &rd, &td, nullptr)); return t;
}

static std::vector<G> gradients(int n, float lo, float hi) {
  std::vector<G> gs;
  const float sp[] = {0.f, -0.f, INFINITY, -INFINITY, NAN, 1e-40f, -1e-40f, 3e38f, 1.f, 0.5f};
  while ((int)gs.size() < n) {
    G g; g.x = frand(0, 1); g.y = frand(0, 1); float* d = &g.dxx;
    for (int j = 0; j < 4; j++) d[j] = sgn() * exp2f(frand(lo, hi));
    int kind = nxt() % 16;
    if (kind == 0) { g.dxy = 0; g.dyx = 0; } else if (kind == 1) { g.dxx = 0; g.dyy = 0; }
    else if (kind == 2) { d[nxt() % 4] = 0; }
    else if (kind == 3) { d[nxt() % 4] = sp[nxt() % 10]; }
    else if (kind == 4) { float m = sgn() * exp2f(frand(lo, hi)); for (int j = 0; j < 4; j++) d[j] = m * (float)(1 + (nxt() % 4)) * sgn(); }
    gs.push_back(g);
  }
  return gs;
}

template <class K>
static void run(const char* name, K k, cudaTextureObject_t t, const std::vector<G>& in) {
  int n = in.size(); G* din; float* dout; CK(cudaMalloc(&din, n * sizeof(G))); CK(cudaMalloc(&dout, n * 4));
  CK(cudaMemcpy(din, in.data(), n * sizeof(G), cudaMemcpyHostToDevice));
  k<<<(n + 255) / 256, 256>>>(t, din, dout, n); CK(cudaDeviceSynchronize());
  std::vector<float> out(n); CK(cudaMemcpy(out.data(), dout, n * 4, cudaMemcpyDeviceToHost));
  char p[256]; snprintf(p, sizeof p, "%s.out", name); save(p, out.data(), n * 4);
  snprintf(p, sizeof p, "%s.in", name); save(p, in.data(), n * sizeof(G));
  cudaFree(din); cudaFree(dout); printf("%s: %d samples\n", name, n);
}

int main() {
  struct Cfg { const char* name; int w, h, levels; float bias, lo, hi; };
  const Cfg cfgs[] = {
    {"g_64x32", 64, 32, 7, 0, 0, 6}, {"g_256x256", 256, 256, 9, 0, 0, 8}, {"g_1024x16", 1024, 16, 11, 0, 0, 10},
    {"g_100x60", 100, 60, 7, 0, 0, 6}, {"g_64x32_bias", 64, 32, 7, 0.3f, 1.25f, 4.5f},
    {"g_64x32_neg", 64, 32, 7, -0.7f, 0, 20}, {"g_1d_512", 512, 0, 10, 0, 0, 9}, {"g_1d_300", 300, 0, 9, 0.45f, 0.5f, 7.25f},
  };
  for (const Cfg& c : cfgs) {
    std::vector<G> gs = gradients(200000, -14, 6);
    cudaTextureObject_t t = levels_tex(c.w, c.h, c.levels, c.bias, c.lo, c.hi);
    if (c.h) run(c.name, kgrad2, t, gs); else run(c.name, kgrad1, t, gs);
  }
  return 0;
}
