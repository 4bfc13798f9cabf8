// Cube-map and mipmap probe for ptxrun: measures how an H100/H200 picks a cube face and its
// texel, selects and blends mipmap levels for `tex.level` (tex1DLod/tex2DLod) and derives the
// level of `tex.grad` (tex2DGrad). Writes inputs and results to $PROBE_OUT (raw little-endian
// arrays, one file per set); docs/launch/textures.md lists what was fitted from them.
//   nvcc -arch=sm_90 scripts/probes/mip_cube_probe.cu -o probe && PROBE_OUT=dir ./probe
#include <cmath>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <vector>
#include <cuda_runtime.h>
#define CK(x) do { cudaError_t e_ = (x); if (e_ != cudaSuccess) { fprintf(stderr, "%s:%d %s\n", __FILE__, __LINE__, cudaGetErrorString(e_)); exit(1); } } while (0)

static uint64_t rs = 0x5eed0fc0be;
static uint64_t nxt() { rs += 0x9E3779B97F4A7C15ull; uint64_t z = rs; z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ull; z = (z ^ (z >> 27)) * 0x94D049BB133111EBull; return z ^ (z >> 31); }
static float frand(float a, float b) { return a + (float)((nxt() >> 11) * (1.0 / 9007199254740992.0)) * (b - a); }
static float sgn() { return (nxt() & 1) ? -1.f : 1.f; }
static float ulps(float v, int k) { uint32_t b; memcpy(&b, &v, 4); b += k; memcpy(&v, &b, 4); return v; }

static void save(const char* name, const void* p, size_t n) {
  char path[512]; snprintf(path, sizeof path, "%s/%s", getenv("PROBE_OUT"), name);
  FILE* f = fopen(path, "wb"); fwrite(p, 1, n, f); fclose(f);
}

__global__ void kcube(cudaTextureObject_t t, const float4* d, float* out, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x; if (i < n) out[i] = texCubemap<float>(t, d[i].x, d[i].y, d[i].z); }
__global__ void klod2(cudaTextureObject_t t, const float4* c, float* out, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x; if (i < n) out[i] = tex2DLod<float>(t, c[i].x, c[i].y, c[i].z); }
__global__ void klod2_4(cudaTextureObject_t t, const float4* c, float4* out, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x; if (i < n) out[i] = tex2DLod<float4>(t, c[i].x, c[i].y, c[i].z); }
__global__ void klod1(cudaTextureObject_t t, const float4* c, float* out, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x; if (i < n) out[i] = tex1DLod<float>(t, c[i].x, c[i].z); }
struct G { float x, y, dxx, dxy, dyx, dyy; };
__global__ void kgrad2(cudaTextureObject_t t, const G* c, float* out, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) out[i] = tex2DGrad<float>(t, c[i].x, c[i].y, make_float2(c[i].dxx, c[i].dxy), make_float2(c[i].dyx, c[i].dyy)); }

struct Samp { cudaTextureFilterMode filt, mip; cudaTextureAddressMode am; int norm; float bias, lo, hi; int notri; cudaTextureReadMode rm; };

static cudaTextureObject_t sampler(cudaResourceDesc rd, Samp s) {
  cudaTextureDesc td = {};
  for (int i = 0; i < 3; i++) td.addressMode[i] = s.am;
  td.filterMode = s.filt; td.readMode = s.rm; td.normalizedCoords = s.norm;
  td.mipmapFilterMode = s.mip; td.mipmapLevelBias = s.bias; td.minMipmapLevelClamp = s.lo; td.maxMipmapLevelClamp = s.hi;
  td.disableTrilinearOptimization = s.notri;
  cudaTextureObject_t t; CK(cudaCreateTextureObject(&t, &rd, &td, nullptr)); return t;
}

// A cube map of WxW f32 faces (face-major, then y, then x).
static cudaResourceDesc cube(int w, const std::vector<float>& texels) {
  cudaChannelFormatDesc f = cudaCreateChannelDesc<float>(); cudaArray_t a;
  CK(cudaMalloc3DArray(&a, &f, make_cudaExtent(w, w, 6), cudaArrayCubemap));
  cudaMemcpy3DParms p = {}; p.srcPtr = make_cudaPitchedPtr((void*)texels.data(), w * 4, w, w);
  p.dstArray = a; p.extent = make_cudaExtent(w, w, 6); p.kind = cudaMemcpyHostToDevice; CK(cudaMemcpy3D(&p));
  cudaResourceDesc rd = {}; rd.resType = cudaResourceTypeArray; rd.res.array.array = a; return rd;
}

// A mipmapped 1D/2D texture: level l is max(1, w>>l) x max(1, h>>l), the levels one after another in `texels`.
static cudaResourceDesc mip(int w, int h, int levels, cudaChannelFormatDesc f, size_t esz, const std::vector<uint8_t>& texels) {
  cudaMipmappedArray_t m; CK(cudaMallocMipmappedArray(&m, &f, make_cudaExtent(w, h, 0), levels));
  size_t off = 0;
  for (int l = 0; l < levels; l++) {
    int lw = w >> l > 1 ? w >> l : 1, lh = h == 0 ? 1 : (h >> l > 1 ? h >> l : 1);
    cudaArray_t a; CK(cudaGetMipmappedArrayLevel(&a, m, l));
    CK(cudaMemcpy2DToArray(a, 0, 0, texels.data() + off, lw * esz, lw * esz, lh, cudaMemcpyHostToDevice));
    off += (size_t)lw * lh * esz;
  }
  cudaResourceDesc rd = {}; rd.resType = cudaResourceTypeMipmappedArray; rd.res.mipmap.mipmap = m; return rd;
}

template <class K, class I, class O>
static void run(const char* name, K k, cudaTextureObject_t t, const std::vector<I>& in, int per) {
  int n = in.size(); I* din; O* dout; CK(cudaMalloc(&din, n * sizeof(I))); CK(cudaMalloc(&dout, n * sizeof(O)));
  CK(cudaMemcpy(din, in.data(), n * sizeof(I), cudaMemcpyHostToDevice));
  k<<<(n + 255) / 256, 256>>>(t, din, dout, n); CK(cudaDeviceSynchronize());
  std::vector<O> out(n); CK(cudaMemcpy(out.data(), dout, n * sizeof(O), cudaMemcpyDeviceToHost));
  save(name, out.data(), n * sizeof(O)); cudaFree(din); cudaFree(dout); (void)per;
  printf("%s: %d samples\n", name, n);
}

int main() {
  const cudaTextureFilterMode P = cudaFilterModePoint, L = cudaFilterModeLinear;
  const cudaTextureAddressMode CL = cudaAddressModeClamp, WR = cudaAddressModeWrap;
  const cudaTextureReadMode EL = cudaReadModeElementType, NF = cudaReadModeNormalizedFloat;
  // ---- cube maps: directions ----
  const int W = 16, NC = 1 << 19;
  std::vector<float4> dirs;
  float sp[] = {0.f, -0.f, INFINITY, -INFINITY, NAN, 1.f, -1.f, 0.5f, 1e-40f, 3e38f, 2.f, -0.75f};
  for (float a : sp) for (float b : sp) for (float c : sp) dirs.push_back(make_float4(a, b, c, 0));
  while ((int)dirs.size() < 200000) dirs.push_back(make_float4(frand(-1, 1), frand(-1, 1), frand(-1, 1), 0));
  while ((int)dirs.size() < 250000) {
    float v[3]; for (float& x : v) x = sgn() * exp2f(frand(-40, 40)); dirs.push_back(make_float4(v[0], v[1], v[2], 0)); }
  while ((int)dirs.size() < 400000) {   // texel boundaries on a face: s, t = (2k/W - 1) * m, a few ulps either side
    float m = sgn() * exp2f(frand(-3, 3)), v[3];
    int ax = nxt() % 3; v[ax] = m;
    for (int j = 1; j < 3; j++) {
      int k = nxt() % (W + 1); int du = (int)(nxt() % 9) - 4;
      float s = nxt() % 4 == 0 ? frand(-1, 1) : (2.f * k / W - 1.f);
      v[(ax + j) % 3] = ulps(s * fabsf(m), du);
    }
    dirs.push_back(make_float4(v[0], v[1], v[2], 0)); }
  while ((int)dirs.size() < 480000) {   // ties between the largest components
    float a = exp2f(frand(-4, 4)), v[3] = {sgn() * a, sgn() * a, nxt() % 3 == 0 ? sgn() * a : frand(-a, a)};
    if (nxt() % 4 == 0) v[1] = ulps(v[1], (int)(nxt() % 5) - 2);
    int r = nxt() % 3; dirs.push_back(make_float4(v[r], v[(r + 1) % 3], v[(r + 2) % 3], 0)); }
  while ((int)dirs.size() < NC) dirs.push_back(make_float4(frand(-1, 1), frand(-1, 1), frand(-1, 1), 0));
  save("cube_dirs.f32x4", dirs.data(), dirs.size() * 16);
  std::vector<float> ids(6 * W * W), ints(6 * W * W), rnd(6 * W * W);
  for (int i = 0; i < 6 * W * W; i++) { ids[i] = i; ints[i] = nxt() % 1024; rnd[i] = sgn() * exp2f(frand(-6, 6)); }
  save("cube_ints.f32", ints.data(), ints.size() * 4); save("cube_rnd.f32", rnd.data(), rnd.size() * 4);
  cudaResourceDesc cid = cube(W, ids), cint = cube(W, ints), crnd = cube(W, rnd);
  run<decltype(&kcube), float4, float>("cube_point_clamp.f32", kcube, sampler(cid, {P, P, CL, 1, 0, 0, 0, 0, EL}), dirs, 1);
  run<decltype(&kcube), float4, float>("cube_point_wrap.f32", kcube, sampler(cid, {P, P, WR, 1, 0, 0, 0, 0, EL}), dirs, 1);
  run<decltype(&kcube), float4, float>("cube_point_unnorm.f32", kcube, sampler(cid, {P, P, CL, 0, 0, 0, 0, 0, EL}), dirs, 1);
  run<decltype(&kcube), float4, float>("cube_linear_clamp.f32", kcube, sampler(cint, {L, P, CL, 1, 0, 0, 0, 0, EL}), dirs, 1);
  run<decltype(&kcube), float4, float>("cube_linear_wrap.f32", kcube, sampler(cint, {L, P, WR, 1, 0, 0, 0, 0, EL}), dirs, 1);
  run<decltype(&kcube), float4, float>("cube_linear_rnd.f32", kcube, sampler(crnd, {L, P, CL, 1, 0, 0, 0, 0, EL}), dirs, 1);

  // ---- mipmaps ----
  const int MW = 64, MH = 32, ML = 7;
  cudaChannelFormatDesc f1 = cudaCreateChannelDesc<float>(), u4 = cudaCreateChannelDesc<uchar4>();
  size_t tex2 = 0; for (int l = 0; l < ML; l++) tex2 += (size_t)std::max(1, MW >> l) * std::max(1, MH >> l);
  std::vector<uint8_t> cst(tex2 * 4), rnd2(tex2 * 4);
  { size_t o = 0; for (int l = 0; l < ML; l++) { size_t n = (size_t)std::max(1, MW >> l) * std::max(1, MH >> l);
      for (size_t i = 0; i < n; i++) { float v = l; memcpy(&cst[(o + i) * 4], &v, 4); } o += n; } }
  for (size_t i = 0; i < tex2; i++) { float v = sgn() * exp2f(frand(-8, 8)); memcpy(&rnd2[i * 4], &v, 4); }
  save("mip_rnd.f32", rnd2.data(), rnd2.size());
  size_t texq = 0; for (int l = 0; l < ML; l++) texq += (size_t)std::max(1, 64 >> l) * std::max(1, 64 >> l);
  std::vector<uint8_t> bytes(texq * 4); for (auto& b : bytes) b = nxt() & 255;
  save("mip_u8x4.u8", bytes.data(), bytes.size());
  cudaResourceDesc mc = mip(MW, MH, ML, f1, 4, cst), mr = mip(MW, MH, ML, f1, 4, rnd2), mq = mip(64, 64, ML, u4, 4, bytes);
  // level sweeps at one point
  std::vector<float4> lods;
  for (float sp2 : {NAN, INFINITY, -INFINITY, -0.f, 0.f, 1e-40f}) lods.push_back(make_float4(0.3f, 0.6f, sp2, 0));
  for (int i = 0; i < 11 * 1024; i++) lods.push_back(make_float4(0.3f, 0.6f, -2.f + i / 1024.f, 0));
  while (lods.size() < 40000) lods.push_back(make_float4(0.3f, 0.6f, frand(-3, 10), 0));
  save("lod_sweep.f32x4", lods.data(), lods.size() * 16);
  Samp cfg[] = {{P, P, CL, 1, 0, 0, 6, 0, EL}, {P, L, CL, 1, 0, 0, 6, 0, EL}, {P, L, CL, 1, 0.3f, 1.25f, 4.5f, 0, EL},
                {P, L, CL, 1, 0, 0, 6, 1, EL}, {P, P, CL, 1, -0.7f, 0, 6, 0, EL}, {P, L, CL, 1, 0, 0, 0, 0, EL},
                {P, L, CL, 1, 0, 0, 20, 0, EL}, {P, P, CL, 1, 0.3f, 1.25f, 4.5f, 0, EL}};
  for (int c = 0; c < 8; c++) {
    char nm[64]; snprintf(nm, sizeof nm, "lod_cfg%d.f32", c);
    run<decltype(&klod2), float4, float>(nm, klod2, sampler(mc, cfg[c]), lods, 1);
  }
  // 1D: 256 texels, 9 levels, level l holds l
  { std::vector<uint8_t> c1; for (int l = 0; l < 9; l++) for (int i = 0; i < (256 >> l); i++) { float v = l; c1.insert(c1.end(), (uint8_t*)&v, (uint8_t*)&v + 4); }
    cudaMipmappedArray_t m; CK(cudaMallocMipmappedArray(&m, &f1, make_cudaExtent(256, 0, 0), 9)); size_t off = 0;
    for (int l = 0; l < 9; l++) { cudaArray_t a; CK(cudaGetMipmappedArrayLevel(&a, m, l));
      CK(cudaMemcpy2DToArray(a, 0, 0, c1.data() + off, (256 >> l) * 4, (256 >> l) * 4, 1, cudaMemcpyHostToDevice)); off += (256 >> l) * 4; }
    cudaResourceDesc rd = {}; rd.resType = cudaResourceTypeMipmappedArray; rd.res.mipmap.mipmap = m;
    run<decltype(&klod1), float4, float>("lod1d_cfg1.f32", klod1, sampler(rd, {P, L, CL, 1, 0, 0, 8, 0, EL}), lods, 1); }
  // random texels: trilinear
  std::vector<float4> tc;
  while (tc.size() < (1u << 18)) tc.push_back(make_float4(frand(-0.1f, 1.1f), frand(-0.1f, 1.1f), frand(-0.5f, 7.f), 0));
  save("tri_coords.f32x4", tc.data(), tc.size() * 16);
  run<decltype(&klod2), float4, float>("tri_point_mipl.f32", klod2, sampler(mr, {P, L, CL, 1, 0, 0, 6, 0, EL}), tc, 1);
  run<decltype(&klod2), float4, float>("tri_lin_mipl.f32", klod2, sampler(mr, {L, L, CL, 1, 0, 0, 6, 0, EL}), tc, 1);
  run<decltype(&klod2), float4, float>("tri_lin_mipl_notri.f32", klod2, sampler(mr, {L, L, CL, 1, 0, 0, 6, 1, EL}), tc, 1);
  run<decltype(&klod2), float4, float>("tri_lin_mipp.f32", klod2, sampler(mr, {L, P, CL, 1, 0, 0, 6, 0, EL}), tc, 1);
  run<decltype(&klod2_4), float4, float4>("tri_u8_lin_mipl.f32x4", klod2_4, sampler(mq, {L, L, CL, 1, 0, 0, 6, 0, NF}), tc, 1);
  run<decltype(&klod2_4), float4, float4>("tri_u8_point_mipl.f32x4", klod2_4, sampler(mq, {P, L, CL, 1, 0, 0, 6, 0, NF}), tc, 1);
  // gradients
  std::vector<G> gs;
  while (gs.size() < 200000) {
    G g; g.x = 0.3f; g.y = 0.6f; float* d = &g.dxx;
    for (int j = 0; j < 4; j++) d[j] = sgn() * exp2f(frand(-10, 2));
    int kind = nxt() % 10;
    if (kind == 0) { g.dxy = 0; g.dyx = 0; } else if (kind == 1) { g.dxx = 0; g.dyy = 0; } else if (kind == 2) { int z = nxt() % 4; d[z] = 0; }
    gs.push_back(g); }
  save("grad_in.f32x6", gs.data(), gs.size() * sizeof(G));
  run<decltype(&kgrad2), G, float>("grad_mipl.f32", kgrad2, sampler(mc, {P, L, CL, 1, 0, 0, 6, 0, EL}), gs, 1);
  run<decltype(&kgrad2), G, float>("grad_mipp.f32", kgrad2, sampler(mc, {P, P, CL, 1, 0, 0, 6, 0, EL}), gs, 1);
  return 0;
}
