// Follow-up to mip_cube_probe.cu: plain `tex` on a mipmapped texture, `tex.level` on one
// without levels, and cube maps in mirror and border modes.
//   nvcc -arch=sm_90 scripts/probes/mip_extra_probe.cu -o probe2 && PROBE_OUT=dir ./probe2
#include <cmath>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <vector>
#include <cuda_runtime.h>
#define CK(x) do { cudaError_t e_ = (x); if (e_ != cudaSuccess) { fprintf(stderr, "%s:%d %s\n", __FILE__, __LINE__, cudaGetErrorString(e_)); exit(1); } } while (0)
static uint64_t rs = 0xfeedbeef;
static uint64_t nxt() { rs += 0x9E3779B97F4A7C15ull; uint64_t z = rs; z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ull; z = (z ^ (z >> 27)) * 0x94D049BB133111EBull; return z ^ (z >> 31); }
static float frand(float a, float b) { return a + (float)((nxt() >> 11) * (1.0 / 9007199254740992.0)) * (b - a); }
static void save(const char* name, const void* p, size_t n) {
  char path[512]; snprintf(path, sizeof path, "%s/%s", getenv("PROBE_OUT"), name);
  FILE* f = fopen(path, "wb"); fwrite(p, 1, n, f); fclose(f); }
__global__ void k2(cudaTextureObject_t t, const float4* c, float* out, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x; if (i < n) out[i] = tex2D<float>(t, c[i].x, c[i].y); }
__global__ void klod2(cudaTextureObject_t t, const float4* c, float* out, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x; if (i < n) out[i] = tex2DLod<float>(t, c[i].x, c[i].y, c[i].z); }
__global__ void kcube(cudaTextureObject_t t, const float4* d, float* out, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x; if (i < n) out[i] = texCubemap<float>(t, d[i].x, d[i].y, d[i].z); }
static cudaTextureObject_t tex(cudaResourceDesc rd, cudaTextureFilterMode f, cudaTextureFilterMode mf, cudaTextureAddressMode am, float bias, float lo, float hi) {
  cudaTextureDesc td = {}; for (int i = 0; i < 3; i++) td.addressMode[i] = am;
  td.filterMode = f; td.readMode = cudaReadModeElementType; td.normalizedCoords = 1; td.mipmapFilterMode = mf;
  td.mipmapLevelBias = bias; td.minMipmapLevelClamp = lo; td.maxMipmapLevelClamp = hi; td.borderColor[0] = -7.5f;
  cudaTextureObject_t t; CK(cudaCreateTextureObject(&t, &rd, &td, nullptr)); return t; }
template <class K> static void run(const char* name, K k, cudaTextureObject_t t, const std::vector<float4>& in) {
  int n = in.size(); float4* din; float* dout; CK(cudaMalloc(&din, n * 16)); CK(cudaMalloc(&dout, n * 4));
  CK(cudaMemcpy(din, in.data(), n * 16, cudaMemcpyHostToDevice)); k<<<(n + 255) / 256, 256>>>(t, din, dout, n);
  CK(cudaDeviceSynchronize()); std::vector<float> out(n); CK(cudaMemcpy(out.data(), dout, n * 4, cudaMemcpyDeviceToHost));
  save(name, out.data(), n * 4); printf("%s: %d\n", name, n); }
int main() {
  // 64x32 f32, 7 levels, level l holds l everywhere; and a plain 64x32 array of texel ids.
  cudaChannelFormatDesc f1 = cudaCreateChannelDesc<float>();
  cudaMipmappedArray_t m; CK(cudaMallocMipmappedArray(&m, &f1, make_cudaExtent(64, 32, 0), 7));
  for (int l = 0; l < 7; l++) { int w = std::max(1, 64 >> l), h = std::max(1, 32 >> l); std::vector<float> v(w * h, (float)l);
    cudaArray_t a; CK(cudaGetMipmappedArrayLevel(&a, m, l)); CK(cudaMemcpy2DToArray(a, 0, 0, v.data(), w * 4, w * 4, h, cudaMemcpyHostToDevice)); }
  cudaResourceDesc rm = {}; rm.resType = cudaResourceTypeMipmappedArray; rm.res.mipmap.mipmap = m;
  cudaArray_t pa; CK(cudaMallocArray(&pa, &f1, 64, 32)); std::vector<float> ids(64 * 32); for (int i = 0; i < 64 * 32; i++) ids[i] = i;
  CK(cudaMemcpy2DToArray(pa, 0, 0, ids.data(), 256, 256, 32, cudaMemcpyHostToDevice));
  cudaResourceDesc rp = {}; rp.resType = cudaResourceTypeArray; rp.res.array.array = pa;
  std::vector<float4> c; for (int i = 0; i < 4096; i++) c.push_back(make_float4(frand(-0.2f, 1.2f), frand(-0.2f, 1.2f), frand(-2, 9), 0));
  for (float l : {NAN, INFINITY, -INFINITY, 0.f, 0.5f, 1.f, 2.5f}) c.push_back(make_float4(0.3f, 0.6f, l, 0));
  save("c.f32x4", c.data(), c.size() * 16);
  auto P = cudaFilterModePoint, L = cudaFilterModeLinear; auto CL = cudaAddressModeClamp;
  run("plain_on_mip_p.f32", k2, tex(rm, P, P, CL, 0, 0, 6), c);
  run("plain_on_mip_l.f32", k2, tex(rm, P, L, CL, 0, 0, 6), c);
  run("plain_on_mip_bias.f32", k2, tex(rm, P, L, CL, 2.3f, 0, 6), c);
  run("plain_on_mip_min.f32", k2, tex(rm, P, L, CL, 0, 1.5f, 6), c);
  run("level_on_plain_p.f32", klod2, tex(rp, P, P, CL, 0, 0, 0), c);
  run("level_on_plain_l.f32", klod2, tex(rp, L, L, CL, 0, 0, 0), c);
  // cube maps, 16x16 faces of texel ids, in mirror and border modes
  const int W = 16; cudaArray_t ca; CK(cudaMalloc3DArray(&ca, &f1, make_cudaExtent(W, W, 6), cudaArrayCubemap));
  std::vector<float> cid(6 * W * W); for (int i = 0; i < 6 * W * W; i++) cid[i] = i;
  cudaMemcpy3DParms p = {}; p.srcPtr = make_cudaPitchedPtr(cid.data(), W * 4, W, W); p.dstArray = ca; p.extent = make_cudaExtent(W, W, 6); p.kind = cudaMemcpyHostToDevice; CK(cudaMemcpy3D(&p));
  cudaResourceDesc rc = {}; rc.resType = cudaResourceTypeArray; rc.res.array.array = ca;
  std::vector<float4> d; for (int i = 0; i < 65536; i++) d.push_back(make_float4(frand(-1, 1), frand(-1, 1), frand(-1, 1), 0));
  for (int i = 0; i < 8192; i++) { float v[3] = {frand(-1, 1), frand(-1, 1), frand(-1, 1)}; v[nxt() % 3] = (nxt() & 1) ? 1.f : -1.f; v[nxt() % 3] = (nxt() & 1) ? 1.f : -1.f; d.push_back(make_float4(v[0], v[1], v[2], 0)); }
  save("d.f32x4", d.data(), d.size() * 16);
  run("cube_mirror_p.f32", kcube, tex(rc, P, P, cudaAddressModeMirror, 0, 0, 0), d);
  run("cube_border_p.f32", kcube, tex(rc, P, P, cudaAddressModeBorder, 0, 0, 0), d);
  run("cube_mirror_l.f32", kcube, tex(rc, L, P, cudaAddressModeMirror, 0, 0, 0), d);
  run("cube_border_l.f32", kcube, tex(rc, L, P, cudaAddressModeBorder, 0, 0, 0), d);
  return 0;
}
