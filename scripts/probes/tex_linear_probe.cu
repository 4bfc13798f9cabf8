// Linear-filtering probe for ptxrun: the cases docs/launch/textures.md listed as not modelled.
// Measures (1) normalized coordinates over sizes that are not powers of two, (2) 3D linear
// filtering, (3) linear filtering in border mode, (4) half and s8 texels. Texels are chosen so
// that results expose the weights: integer ramps (a result is i + k/256) and one-hot parity
// patterns (a result is one texel's weight). Writes raw little-endian arrays to $PROBE_OUT, one
// file per set (inputs `*.in`, results `*.out`).
//   nvcc -arch=sm_90 scripts/probes/tex_linear_probe.cu -o probe && PROBE_OUT=dir ./probe
#include <cmath>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <vector>
#include <cuda_fp16.h>
#include <cuda_runtime.h>
#define CK(x) do { cudaError_t e_ = (x); if (e_ != cudaSuccess) { fprintf(stderr, "%s:%d %s\n", __FILE__, __LINE__, cudaGetErrorString(e_)); exit(1); } } while (0)

static uint64_t rs = 0x11ea7f11;
static uint64_t nxt() { rs += 0x9E3779B97F4A7C15ull; uint64_t z = rs; z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ull; z = (z ^ (z >> 27)) * 0x94D049BB133111EBull; return z ^ (z >> 31); }
static float frand(float a, float b) { return a + (float)((nxt() >> 11) * (1.0 / 9007199254740992.0)) * (b - a); }
static float ulps(float v, int k) { uint32_t b; memcpy(&b, &v, 4); b += k; memcpy(&v, &b, 4); return v; }

static void save(const char* name, const void* p, size_t n) {
  char path[512]; snprintf(path, sizeof path, "%s/%s", getenv("PROBE_OUT"), name);
  FILE* f = fopen(path, "wb"); fwrite(p, 1, n, f); fclose(f);
}

// A texture over a fresh array of w x h x d texels (h = 0 / d = 0 for fewer dimensions).
static cudaTextureObject_t tex(int w, int h, int d, cudaChannelFormatDesc f, size_t esz, const void* texels,
                               cudaTextureFilterMode filt, cudaTextureAddressMode am, int norm,
                               cudaTextureReadMode rm, const float* border, int am1 = -1) {
  cudaArray_t a; CK(cudaMalloc3DArray(&a, &f, make_cudaExtent(w, h, d), 0));
  cudaMemcpy3DParms p = {};
  p.srcPtr = make_cudaPitchedPtr((void*)texels, w * esz, w, h ? h : 1);
  p.dstArray = a; p.extent = make_cudaExtent(w, h ? h : 1, d ? d : 1); p.kind = cudaMemcpyHostToDevice;
  CK(cudaMemcpy3D(&p));
  cudaResourceDesc rd = {}; rd.resType = cudaResourceTypeArray; rd.res.array.array = a;
  cudaTextureDesc td = {};
  for (int i = 0; i < 3; i++) td.addressMode[i] = am;
  if (am1 >= 0) td.addressMode[1] = (cudaTextureAddressMode)am1;
  td.filterMode = filt; td.readMode = rm; td.normalizedCoords = norm;
  for (int i = 0; i < 4; i++) td.borderColor[i] = border ? border[i] : 0.f;
  cudaTextureObject_t t; CK(cudaCreateTextureObject(&t, &rd, &td, nullptr)); return t;
}

__global__ void k1(cudaTextureObject_t t, const float* x, float4* out, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x; if (i < n) out[i] = tex1D<float4>(t, x[i]); }
__global__ void k1s(cudaTextureObject_t t, const float* x, float* out, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x; if (i < n) out[i] = tex1D<float>(t, x[i]); }
__global__ void k2(cudaTextureObject_t t, const float2* x, float4* out, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x; if (i < n) out[i] = tex2D<float4>(t, x[i].x, x[i].y); }
__global__ void k2s(cudaTextureObject_t t, const float2* x, float* out, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x; if (i < n) out[i] = tex2D<float>(t, x[i].x, x[i].y); }
__global__ void k3(cudaTextureObject_t t, const float4* x, float4* out, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x; if (i < n) out[i] = tex3D<float4>(t, x[i].x, x[i].y, x[i].z); }
__global__ void k3s(cudaTextureObject_t t, const float4* x, float* out, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x; if (i < n) out[i] = tex3D<float>(t, x[i].x, x[i].y, x[i].z); }

template <class K, class I, class O>
static void run(const char* name, K k, cudaTextureObject_t t, const std::vector<I>& in, O) {
  int n = in.size(); I* din; O* dout; CK(cudaMalloc(&din, n * sizeof(I))); CK(cudaMalloc(&dout, n * sizeof(O)));
  CK(cudaMemcpy(din, in.data(), n * sizeof(I), cudaMemcpyHostToDevice));
  k<<<(n + 255) / 256, 256>>>(t, din, dout, n); CK(cudaDeviceSynchronize());
  std::vector<O> out(n); CK(cudaMemcpy(out.data(), dout, n * sizeof(O), cudaMemcpyDeviceToHost));
  char path[256]; snprintf(path, sizeof path, "%s.out", name); save(path, out.data(), n * sizeof(O));
  snprintf(path, sizeof path, "%s.in", name); save(path, in.data(), n * sizeof(I));
  cudaFree(din); cudaFree(dout); printf("%s: %d samples\n", name, n);
}

// Normalized coordinates on one axis of size w: random over [lo, hi], and the same number next
// to the 1/256 steps of the filter position (x * w - 0.5), a few ulps either side.
static std::vector<float> axis_coords(int w, int n, float lo, float hi) {
  std::vector<float> c;
  for (int i = 0; i < n / 2; i++) c.push_back(frand(lo, hi));
  while ((int)c.size() < n) {
    double u = floor(frand(lo * w * 256, hi * w * 256)) + 0.5;  // a half step of 1/256
    float x = (float)((u / 256.0 + 0.5) / w);
    c.push_back(ulps(x, (int)(nxt() % 17) - 8));
  }
  return c;
}

static void nonpow2() {
  const int sizes[] = {3, 7, 100, 255, 257, 1000, 1920, 4095, 5000, 65535};
  const cudaTextureAddressMode modes[] = {cudaAddressModeClamp, cudaAddressModeWrap, cudaAddressModeMirror};
  const char* mname[] = {"clamp", "wrap", "mirror"};
  for (int w : sizes) {
    std::vector<float> ramp(w); for (int i = 0; i < w; i++) ramp[i] = (float)i;
    for (int m = 0; m < 3; m++) {
      cudaTextureObject_t t = tex(w, 0, 0, cudaCreateChannelDesc<float>(), 4, ramp.data(), cudaFilterModeLinear, modes[m], 1, cudaReadModeElementType, nullptr);
      std::vector<float> c = axis_coords(w, 65536, m ? -2.f : -0.05f, m ? 3.f : 1.05f);
      char name[64]; snprintf(name, sizeof name, "np_%s_%d", mname[m], w); run(name, k1s, t, c, 0.f);
    }
  }
  // 2D: x and y ramps in two channels, 1920 x 1080 and 7 x 5.
  const int dims[][2] = {{1920, 1080}, {7, 5}};
  for (auto& d : dims) {
    int w = d[0], h = d[1]; std::vector<float2> ramp((size_t)w * h);
    for (int j = 0; j < h; j++) for (int i = 0; i < w; i++) ramp[(size_t)j * w + i] = make_float2(i, j);
    cudaTextureObject_t t = tex(w, h, 0, cudaCreateChannelDesc<float2>(), 8, ramp.data(), cudaFilterModeLinear, cudaAddressModeClamp, 1, cudaReadModeElementType, nullptr);
    std::vector<float> cx = axis_coords(w, 131072, -0.05f, 1.05f), cy = axis_coords(h, 131072, -0.05f, 1.05f);
    std::vector<float2> c; for (int i = 0; i < 131072; i++) c.push_back(make_float2(cx[i], cy[(i * 7919) % 131072]));
    char name[64]; snprintf(name, sizeof name, "np2_clamp_%dx%d", w, h); run(name, k2, t, c, make_float4(0, 0, 0, 0));
  }
}

// Coordinates on one unnormalized axis of size w: random over [lo, hi] and next to 1/256 steps.
static float unnorm(int w, float lo, float hi) {
  if (nxt() & 1) return frand(lo, hi);
  double u = floor(frand(lo * 256, hi * 256)) + 0.5;
  return ulps((float)(u / 256.0 + 0.5), (int)(nxt() % 9) - 4);
}

static void three_d() {
  // One-hot parity textures: texture A channel c is 1 where (x&1) + 2(y&1) == c and z even;
  // texture B the same for z odd. A result is then one corner's weight.
  const int n = 8; std::vector<float4> a(n * n * n), b(n * n * n), r(n * n * n);
  for (int z = 0; z < n; z++) for (int y = 0; y < n; y++) for (int x = 0; x < n; x++) {
    int c = (x & 1) + 2 * (y & 1), i = (z * n + y) * n + x; float v[4] = {0, 0, 0, 0}; v[c] = 1;
    float4 f = make_float4(v[0], v[1], v[2], v[3]), zero = make_float4(0, 0, 0, 0);
    a[i] = (z & 1) ? zero : f; b[i] = (z & 1) ? f : zero;
    r[i] = make_float4(ldexpf(frand(1, 2), (int)(nxt() % 41) - 20) * ((nxt() & 1) ? -1 : 1), frand(-1, 1), (float)(nxt() % 256), frand(0, 1000));
  }
  std::vector<float4> c;
  for (int i = 0; i < 262144; i++) c.push_back(make_float4(unnorm(n, 0.3f, n - 0.3f), unnorm(n, 0.3f, n - 0.3f), unnorm(n, 0.3f, n - 0.3f), 0));
  cudaChannelFormatDesc f4 = cudaCreateChannelDesc<float4>();
  run("l3_onehot_a", k3, tex(n, n, n, f4, 16, a.data(), cudaFilterModeLinear, cudaAddressModeClamp, 0, cudaReadModeElementType, nullptr), c, make_float4(0, 0, 0, 0));
  run("l3_onehot_b", k3, tex(n, n, n, f4, 16, b.data(), cudaFilterModeLinear, cudaAddressModeClamp, 0, cudaReadModeElementType, nullptr), c, make_float4(0, 0, 0, 0));
  save("l3_rnd.texels", r.data(), r.size() * 16);
  run("l3_rnd", k3, tex(n, n, n, f4, 16, r.data(), cudaFilterModeLinear, cudaAddressModeClamp, 0, cudaReadModeElementType, nullptr), c, make_float4(0, 0, 0, 0));
  // u8 read as normalized floats, normalized coordinates, 32^3 (cuda-samples' volumeRender).
  const int m = 32; std::vector<uint8_t> u(m * m * m); for (auto& v : u) v = nxt() & 255;
  save("l3_u8.texels", u.data(), u.size());
  std::vector<float4> cn;
  for (int i = 0; i < 262144; i++) cn.push_back(make_float4(frand(-0.05f, 1.05f), frand(-0.05f, 1.05f), frand(-0.05f, 1.05f), 0));
  run("l3_u8", k3s, tex(m, m, m, cudaCreateChannelDesc<unsigned char>(), 1, u.data(), cudaFilterModeLinear, cudaAddressModeClamp, 1, cudaReadModeNormalizedFloat, nullptr), cn, 0.f);
}

static void border() {
  // 1D, 16 texels: x = 1 on even texels, y = 1 on odd ones, z = 1 everywhere, w = 0; border
  // colour (0, 0, 0, 1): x, y the texels' weights, z the texels' total, w the border's.
  const int w = 16; std::vector<float4> t1(w), r1(w);
  for (int i = 0; i < w; i++) { t1[i] = make_float4(i % 2 == 0, i % 2 == 1, 1, 0); r1[i] = make_float4(frand(-4, 4), frand(0, 1), i, 1000 + i); }
  const float bc[4] = {0, 0, 0, 1}, bcr[4] = {0.25f, -0.5f, 0.75f, 3.0f};
  std::vector<float> c1; for (int i = 0; i < 65536; i++) c1.push_back(unnorm(w, -3, w + 3));
  cudaChannelFormatDesc f4 = cudaCreateChannelDesc<float4>();
  run("b1_onehot", k1, tex(w, 0, 0, f4, 16, t1.data(), cudaFilterModeLinear, cudaAddressModeBorder, 0, cudaReadModeElementType, bc), c1, make_float4(0, 0, 0, 0));
  save("b1_rnd.texels", r1.data(), r1.size() * 16);
  run("b1_rnd", k1, tex(w, 0, 0, f4, 16, r1.data(), cudaFilterModeLinear, cudaAddressModeBorder, 0, cudaReadModeElementType, bcr), c1, make_float4(0, 0, 0, 0));
  std::vector<float> c1n; for (float x : c1) c1n.push_back(x / w);
  run("b1_onehot_norm", k1, tex(w, 0, 0, f4, 16, t1.data(), cudaFilterModeLinear, cudaAddressModeBorder, 1, cudaReadModeElementType, bc), c1n, make_float4(0, 0, 0, 0));
  // 2D, 16 x 16: texture A one-hot by (x&1) + 2(y&1) with border 0; texture B z = 1 inside,
  // w = border 1.
  std::vector<float4> a(w * w), bb(w * w), r2(w * w);
  for (int y = 0; y < w; y++) for (int x = 0; x < w; x++) {
    float v[4] = {0, 0, 0, 0}; v[(x & 1) + 2 * (y & 1)] = 1; a[y * w + x] = make_float4(v[0], v[1], v[2], v[3]);
    bb[y * w + x] = make_float4(0, 0, 1, 0); r2[y * w + x] = make_float4(frand(-4, 4), frand(0, 1), x + 16 * y, 1000 + x);
  }
  std::vector<float2> c2; for (int i = 0; i < 131072; i++) c2.push_back(make_float2(unnorm(w, -3, w + 3), unnorm(w, -3, w + 3)));
  const float zero[4] = {0, 0, 0, 0};
  run("b2_onehot_a", k2, tex(w, w, 0, f4, 16, a.data(), cudaFilterModeLinear, cudaAddressModeBorder, 0, cudaReadModeElementType, zero), c2, make_float4(0, 0, 0, 0));
  run("b2_onehot_b", k2, tex(w, w, 0, f4, 16, bb.data(), cudaFilterModeLinear, cudaAddressModeBorder, 0, cudaReadModeElementType, bc), c2, make_float4(0, 0, 0, 0));
  save("b2_rnd.texels", r2.data(), r2.size() * 16);
  run("b2_rnd", k2, tex(w, w, 0, f4, 16, r2.data(), cudaFilterModeLinear, cudaAddressModeBorder, 0, cudaReadModeElementType, bcr), c2, make_float4(0, 0, 0, 0));
  // u8 read as normalized floats in border mode (border colour 0.25, -0.5, 0.75, 3.0).
  std::vector<uchar4> u(w * w); for (auto& v : u) v = make_uchar4(nxt() & 255, nxt() & 255, nxt() & 255, nxt() & 255);
  save("b2_u8.texels", u.data(), u.size() * 4);
  run("b2_u8", k2, tex(w, w, 0, cudaCreateChannelDesc<uchar4>(), 4, u.data(), cudaFilterModeLinear, cudaAddressModeBorder, 0, cudaReadModeNormalizedFloat, bcr), c2, make_float4(0, 0, 0, 0));
}

static void narrow() {
  // half: 65536 random halves (every class: zeros, subnormals, infinities, NaN), sampled between
  // texels i and i + 1 at x = i + 0.5 + k/256, k random in 0..256, plus random coordinates.
  const int n = 65536; std::vector<uint16_t> h(n);
  for (int i = 0; i < n; i++) {
    uint32_t r = nxt(); uint16_t v = r & 0xffff;
    if ((r >> 16) % 8 == 0) v = (v & 0x83ff);           // subnormal or zero
    else if ((r >> 16) % 8 == 1) v = (v & 0x8000) | 0x3c00 | (v & 0x3ff) ;  // near 1
    h[i] = v;
  }
  h[10] = 0x7c00; h[20] = 0xfc00; h[30] = 0x7e00; h[40] = 0x0000; h[41] = 0x8000; h[50] = 0x7bff; h[51] = 0xfbff;
  save("h1.texels", h.data(), h.size() * 2);
  std::vector<float> c;
  for (int i = 0; i < 1048576; i++) {
    int j = nxt() % (n - 1), k = nxt() % 257;
    c.push_back(i % 8 == 7 ? frand(0, n) : (float)(j + 0.5 + k / 256.0));
  }
  run("h1", k1s, tex(n, 0, 0, cudaCreateChannelDescHalf(), 2, h.data(), cudaFilterModeLinear, cudaAddressModeClamp, 0, cudaReadModeElementType, nullptr), c, 0.f);
  // half 2D bilinear (for checking a fit): 256 x 256 of the same halves.
  std::vector<float2> c2; for (int i = 0; i < 262144; i++) c2.push_back(make_float2(unnorm(256, 0, 256), unnorm(256, 0, 256)));
  run("h2", k2s, tex(256, 256, 0, cudaCreateChannelDescHalf(), 2, h.data(), cudaFilterModeLinear, cudaAddressModeClamp, 0, cudaReadModeElementType, nullptr), c2, 0.f);
  // s8 and u8 read as normalized floats: every pair (a, b) at texels 2p, 2p + 1 (p = a + 256 b),
  // each at 16 weights k random in 0..256.
  std::vector<int8_t> s(2 * n); for (int p = 0; p < n; p++) { s[2 * p] = (int8_t)(p & 255); s[2 * p + 1] = (int8_t)(p >> 8); }
  std::vector<float> cs;
  for (int p = 0; p < n; p++) for (int q = 0; q < 16; q++) cs.push_back((float)(2 * p + 0.5 + (nxt() % 257) / 256.0));
  run("s8", k1s, tex(2 * n, 0, 0, cudaCreateChannelDesc<signed char>(), 1, s.data(), cudaFilterModeLinear, cudaAddressModeClamp, 0, cudaReadModeNormalizedFloat, nullptr), cs, 0.f);
  run("u8", k1s, tex(2 * n, 0, 0, cudaCreateChannelDesc<unsigned char>(), 1, s.data(), cudaFilterModeLinear, cudaAddressModeClamp, 0, cudaReadModeNormalizedFloat, nullptr), cs, 0.f);
  // s8 2D (for checking a fit).
  std::vector<float2> c3; for (int i = 0; i < 262144; i++) c3.push_back(make_float2(unnorm(256, 0, 256), unnorm(256, 0, 256)));
  run("s8_2d", k2s, tex(256, 256, 0, cudaCreateChannelDesc<signed char>(), 1, s.data(), cudaFilterModeLinear, cudaAddressModeClamp, 0, cudaReadModeNormalizedFloat, nullptr), c3, 0.f);
}

// Round two. (1) Normalized coordinates, linear and point, over larger sizes (where the
// fixed-point precision changes), far coordinates, NaN and infinities; texel i holds
// (i & 4095, i >> 12). (2) Which address mode decides a 1D border texture's second row. (3) Border
// colours converted to u8/u16/s16 texels (ties), and point sampling of normalized reads in
// border mode. (4) The half blends not seen in round one. (5) 3D blends of zeros.
static std::vector<float2> split_ramp(int w) {
  std::vector<float2> r(w); for (int i = 0; i < w; i++) r[i] = make_float2(i & 4095, i >> 12); return r;
}

static void sizes2() {
  const int sizes[] = {4096, 5001, 6000, 8191, 8192, 8193, 12000, 16383, 16384, 16385, 32767, 32768, 32769, 65536, 100000, 131071, 131072};
  cudaChannelFormatDesc f2 = cudaCreateChannelDesc<float2>();
  for (int w : sizes) {
    std::vector<float2> ramp = split_ramp(w);
    for (int m = 0; m < 2; m++) {
      cudaTextureObject_t t = tex(w, 0, 0, f2, 8, ramp.data(), cudaFilterModeLinear, m ? cudaAddressModeWrap : cudaAddressModeClamp, 1, cudaReadModeElementType, nullptr);
      std::vector<float> c = axis_coords(w, 65536, m ? -2.f : -0.05f, m ? 3.f : 1.05f);
      char name[64]; snprintf(name, sizeof name, "n2_%s_%d", m ? "wrap" : "clamp", w); run(name, k1, t, c, make_float4(0, 0, 0, 0));
    }
  }
  // Point sampling next to the texel edges i / W.
  const int psizes[] = {3, 7, 100, 1000, 1920, 4095, 5000, 6000, 8193, 65535, 65536, 131071};
  for (int w : psizes) {
    std::vector<float2> ramp = split_ramp(w);
    cudaTextureObject_t t = tex(w, 0, 0, f2, 8, ramp.data(), cudaFilterModePoint, cudaAddressModeClamp, 1, cudaReadModeElementType, nullptr);
    std::vector<float> c;
    for (int i = 0; i < 65536; i++) c.push_back(ulps((float)((double)(nxt() % (w + 1)) / w), (int)(nxt() % 33) - 16));
    char name[64]; snprintf(name, sizeof name, "p2_clamp_%d", w); run(name, k1, t, c, make_float4(0, 0, 0, 0));
  }
  // Far coordinates, NaN and infinities, wrap and clamp, W = 7 and 1000.
  for (int w : {7, 1000}) {
    std::vector<float2> ramp = split_ramp(w);
    std::vector<float> c;
    for (int i = 0; i < 65536; i++) c.push_back(ldexpf(frand(1, 2), (int)(nxt() % 40) - 8) * ((nxt() & 1) ? -1 : 1));
    const float sp[] = {NAN, -NAN, INFINITY, -INFINITY, 0.f, -0.f, 3e38f, -3e38f, 1e-40f, 4096.f, 1048576.f, 2097152.f};
    for (int i = 0; i < 12; i++) c[i] = sp[i];
    for (int m = 0; m < 2; m++) {
      cudaTextureObject_t t = tex(w, 0, 0, f2, 8, ramp.data(), cudaFilterModeLinear, m ? cudaAddressModeWrap : cudaAddressModeClamp, 1, cudaReadModeElementType, nullptr);
      char name[64]; snprintf(name, sizeof name, "far_%s_%d", m ? "wrap" : "clamp", w); run(name, k1, t, c, make_float4(0, 0, 0, 0));
    }
  }
}

static void border2() {
  // 1D one-hot (as b1_onehot) with the second axis in another mode, and the other way round.
  const int w = 16; std::vector<float4> t1(w);
  for (int i = 0; i < w; i++) t1[i] = make_float4(i % 2 == 0, i % 2 == 1, 1, 0);
  const float bc[4] = {0, 0, 0, 1};
  std::vector<float> c1; for (int i = 0; i < 16384; i++) c1.push_back(unnorm(w, -3, w + 3));
  cudaChannelFormatDesc f4 = cudaCreateChannelDesc<float4>();
  run("b1_border_clamp", k1, tex(w, 0, 0, f4, 16, t1.data(), cudaFilterModeLinear, cudaAddressModeBorder, 0, cudaReadModeElementType, bc, cudaAddressModeClamp), c1, make_float4(0, 0, 0, 0));
  run("b1_clamp_border", k1, tex(w, 0, 0, f4, 16, t1.data(), cudaFilterModeLinear, cudaAddressModeClamp, 0, cudaReadModeElementType, bc, cudaAddressModeBorder), c1, make_float4(0, 0, 0, 0));
  // Border colours as u8, u16 and s16 texels: each texture's four channels read fully in the
  // border (linear and point). Colours next to the halves between 8-bit (16-bit) steps.
  std::vector<float> colours;
  const float fixed[] = {0.5f, -0.5f, 0.f, -0.f, 1.f, 2.f, -1.f, 0.25f, 0.75f, 1e-3f, 1e-30f, 0.99999994f, 0.49999997f, 0.50000006f, 1.f / 255, 1.f / 510};
  for (float f : fixed) colours.push_back(f);
  for (int m = 0; m < 48; m++) {
    double tie = (nxt() % 255 + 0.5) / 255.0; float v = (float)tie;
    for (int d = -2; d <= 2; d++) colours.push_back(ulps(v, d));
  }
  for (int m = 0; m < 16; m++) { double tie = (nxt() % 65535 + 0.5) / 65535.0; colours.push_back((float)tie); colours.push_back(ulps((float)tie, 1)); }
  while (colours.size() % 4) colours.push_back(0.5f);
  std::vector<float2> deep(1, make_float2(-5.f, -5.f));
  std::vector<uchar4> u(16 * 16); std::vector<ushort4> u16(16 * 16); std::vector<short4> s16(16 * 16);
  for (int i = 0; i < 256; i++) { u[i] = make_uchar4(9, 9, 9, 9); u16[i] = make_ushort4(9, 9, 9, 9); s16[i] = make_short4(9, 9, 9, 9); }
  std::vector<float4> res;
  for (size_t b = 0; b < colours.size(); b += 4) {
    for (int kind = 0; kind < 6; kind++) {
      cudaChannelFormatDesc f = kind % 3 == 0 ? cudaCreateChannelDesc<uchar4>() : kind % 3 == 1 ? cudaCreateChannelDesc<ushort4>() : cudaCreateChannelDesc<short4>();
      const void* texels = kind % 3 == 0 ? (const void*)u.data() : kind % 3 == 1 ? (const void*)u16.data() : (const void*)s16.data();
      size_t esz = kind % 3 == 0 ? 4 : 8;
      cudaTextureObject_t t = tex(16, 16, 0, f, esz, texels, kind < 3 ? cudaFilterModeLinear : cudaFilterModePoint, cudaAddressModeBorder, 0, cudaReadModeNormalizedFloat, &colours[b]);
      float4* d; float2* dc; CK(cudaMalloc(&d, 16)); CK(cudaMalloc(&dc, 8)); CK(cudaMemcpy(dc, deep.data(), 8, cudaMemcpyHostToDevice));
      k2<<<1, 1>>>(t, dc, d, 1); CK(cudaDeviceSynchronize());
      float4 r; CK(cudaMemcpy(&r, d, 16, cudaMemcpyDeviceToHost)); res.push_back(r); cudaFree(d); cudaFree(dc);
      cudaDestroyTextureObject(t);
    }
  }
  save("bc_colours.in", colours.data(), colours.size() * 4);
  save("bc_colours.out", res.data(), res.size() * 16);  // per 4 colours: u8, u16, s16 linear; u8, u16, s16 point
  printf("bc_colours: %zu colours\n", colours.size());
}

static void narrow2() {
  // Half pairs (t0, t1) at texels 2p, 2p+1, each at 9 weights.
  std::vector<uint16_t> pairs = {0x7c00, 0xfc00, 0xfc00, 0x7c00, 0x3c00, 0xbc00, 0x4200, 0xbc00, 0x8000, 0x8000, 0x8000, 0x0000,
                                 0x0000, 0x8000, 0x8001, 0x8001, 0x8001, 0x0001, 0x8000, 0x8001, 0x3c00, 0x8000, 0x8000, 0x3c00,
                                 0x4000, 0xc000, 0x0400, 0x8400, 0x3555, 0xb555, 0x7bff, 0xfbff, 0x7c00, 0x3c00, 0x7c00, 0x7e00};
  for (int i = 0; i < 200; i++) { uint16_t a = nxt() & 0x7fff; if ((a & 0x7c00) == 0x7c00) a &= 0x3fff; pairs.push_back(a); pairs.push_back(a ^ 0x8000); }
  for (int i = 0; i < 200; i++) { uint16_t a = nxt() & 0x83ff, b = nxt() & 0x83ff; pairs.push_back(a); pairs.push_back(b); }
  for (int i = 0; i < 100; i++) { uint16_t a = (nxt() & 0x3ff) | 0x4000, b = a ^ 0x8000; pairs.push_back(a); pairs.push_back((uint16_t)(b - 1 - (nxt() % 4))); }
  save("h3.texels", pairs.data(), pairs.size() * 2);
  std::vector<float> c; const int ks[] = {0, 1, 64, 127, 128, 129, 192, 255, 256};
  for (size_t p = 0; p < pairs.size() / 2; p++) for (int k : ks) c.push_back((float)(2 * p + 0.5 + k / 256.0));
  run("h3", k1s, tex(pairs.size(), 0, 0, cudaCreateChannelDescHalf(), 2, pairs.data(), cudaFilterModeLinear, cudaAddressModeClamp, 0, cudaReadModeElementType, nullptr), c, 0.f);
  // 3D zeros: z < 2 all -0, z >= 2 zeros of random signs; f32.
  std::vector<float> z(4 * 4 * 4); for (int i = 0; i < 64; i++) z[i] = (i < 32 || (nxt() & 1)) ? -0.f : 0.f;
  save("z3.texels", z.data(), z.size() * 4);
  std::vector<float4> cz; for (int i = 0; i < 4096; i++) cz.push_back(make_float4(unnorm(4, 0, 4), unnorm(4, 0, 4), unnorm(4, 0, 4), 0));
  run("z3", k3s, tex(4, 4, 4, cudaCreateChannelDesc<float>(), 4, z.data(), cudaFilterModeLinear, cudaAddressModeClamp, 0, cudaReadModeElementType, nullptr), cz, 0.f);
}

// Round three: 3D linear filtering in wrap, mirror and border modes (normalized coordinates, as
// wrap and mirror need), over a size that is not a power of two, and cuda-samples'
// simpleTexture3D configuration (u8 read as normalized floats, wrap).
static float norm3(int n, float lo, float hi) {
  if (nxt() & 1) return frand(lo, hi);
  double u = floor(frand(lo * n * 256, hi * n * 256)) + 0.5;
  return ulps((float)((u / 256.0 + 0.5) / n), (int)(nxt() % 9) - 4);
}

static void three_d_modes() {
  const int dims[][3] = {{8, 8, 8}, {7, 5, 3}};
  for (auto& d : dims) {
    int nx = d[0], ny = d[1], nz = d[2], n = nx * ny * nz;
    std::vector<float4> a(n), b(n), ones(n);
    for (int z = 0; z < nz; z++) for (int y = 0; y < ny; y++) for (int x = 0; x < nx; x++) {
      int c = (x & 1) + 2 * (y & 1), i = (z * ny + y) * nx + x; float v[4] = {0, 0, 0, 0}; v[c] = 1;
      float4 f = make_float4(v[0], v[1], v[2], v[3]), zero = make_float4(0, 0, 0, 0);
      a[i] = (z & 1) ? zero : f; b[i] = (z & 1) ? f : zero; ones[i] = make_float4(0, 0, 1, 0);
    }
    std::vector<float4> c;
    for (int i = 0; i < 131072; i++) c.push_back(make_float4(norm3(nx, -1.5f, 2.5f), norm3(ny, -1.5f, 2.5f), norm3(nz, -1.5f, 2.5f), 0));
    const cudaTextureAddressMode modes[] = {cudaAddressModeWrap, cudaAddressModeMirror, cudaAddressModeBorder, cudaAddressModeClamp};
    const char* mname[] = {"wrap", "mirror", "border", "clamp"};
    const float bc[4] = {0, 0, 0, 1};
    cudaChannelFormatDesc f4 = cudaCreateChannelDesc<float4>();
    for (int m = 0; m < 4; m++) {
      if (nx != 8 && m != 3 && m != 0) continue;
      char name[64];
      snprintf(name, sizeof name, "m3_%s_%d_a", mname[m], nx); run(name, k3, tex(nx, ny, nz, f4, 16, a.data(), cudaFilterModeLinear, modes[m], 1, cudaReadModeElementType, nullptr), c, make_float4(0, 0, 0, 0));
      snprintf(name, sizeof name, "m3_%s_%d_b", mname[m], nx); run(name, k3, tex(nx, ny, nz, f4, 16, b.data(), cudaFilterModeLinear, modes[m], 1, cudaReadModeElementType, nullptr), c, make_float4(0, 0, 0, 0));
      if (m == 2) { snprintf(name, sizeof name, "m3_%s_%d_ones", mname[m], nx); run(name, k3, tex(nx, ny, nz, f4, 16, ones.data(), cudaFilterModeLinear, modes[m], 1, cudaReadModeElementType, bc), c, make_float4(0, 0, 0, 0)); }
    }
  }
  // simpleTexture3D's sampler: 32^3 u8 read as normalized floats, linear, wrap.
  const int m = 32; std::vector<uint8_t> u(m * m * m); for (auto& v : u) v = nxt() & 255;
  save("m3_u8wrap.texels", u.data(), u.size());
  std::vector<float4> cn;
  for (int i = 0; i < 131072; i++) cn.push_back(make_float4(norm3(m, -1.5f, 2.5f), norm3(m, -1.5f, 2.5f), norm3(m, -1.5f, 2.5f), 0));
  run("m3_u8wrap", k3s, tex(m, m, m, cudaCreateChannelDesc<unsigned char>(), 1, u.data(), cudaFilterModeLinear, cudaAddressModeWrap, 1, cudaReadModeNormalizedFloat, nullptr), cn, 0.f);
}

// Round four: which size sets a 2D/3D texture's fixed-point precision (the width, each axis's
// own size, or the largest), and whether subnormal coordinates are flushed.
static void precision4() {
  const int dims[][3] = {{3, 9000, 0}, {9000, 3, 0}, {100, 20000, 0}, {3, 3, 9000}, {9000, 3, 3}};
  cudaChannelFormatDesc f4 = cudaCreateChannelDesc<float4>();
  for (auto& d : dims) {
    int w = d[0], h = d[1], z = d[2] ? d[2] : 1; std::vector<float4> ramp((size_t)w * h * z);
    for (int k = 0; k < z; k++) for (int j = 0; j < h; j++) for (int i = 0; i < w; i++) ramp[((size_t)k * h + j) * w + i] = make_float4(i, j, k, 0);
    cudaTextureObject_t t = tex(w, h, d[2], f4, 16, ramp.data(), cudaFilterModeLinear, cudaAddressModeClamp, 1, cudaReadModeElementType, nullptr);
    std::vector<float> cx = axis_coords(w, 65536, -0.05f, 1.05f), cy = axis_coords(h, 65536, -0.05f, 1.05f), cz = axis_coords(z, 65536, -0.05f, 1.05f);
    char name[64];
    if (d[2]) {
      std::vector<float4> c; for (int i = 0; i < 65536; i++) c.push_back(make_float4(cx[i], cy[(i * 7919) % 65536], cz[(i * 104729) % 65536], 0));
      snprintf(name, sizeof name, "r4_%dx%dx%d", w, h, z); run(name, k3, t, c, make_float4(0, 0, 0, 0));
    } else {
      std::vector<float2> c; for (int i = 0; i < 65536; i++) c.push_back(make_float2(cx[i], cy[(i * 7919) % 65536]));
      snprintf(name, sizeof name, "r4_%dx%d", w, h); run(name, k2, t, c, make_float4(0, 0, 0, 0));
    }
  }
  // Subnormal coordinates, unnormalized and normalized, point and linear, border mode.
  std::vector<float4> t1(16); for (int i = 0; i < 16; i++) t1[i] = make_float4(i + 1, 0, 0, 0);
  const float bc[4] = {-5, 0, 0, 0};
  std::vector<float> c = {-1e-40f, -1e-45f, 1e-40f, -0.f, 0.f, -1e-38f, -1.2e-38f, -1e-30f, 5e-39f, -5e-39f, 16.f, 15.99999f};
  for (int f = 0; f < 2; f++) for (int nm = 0; nm < 2; nm++) {
    char name[64]; snprintf(name, sizeof name, "r4_sub_%s_%s", f ? "linear" : "point", nm ? "norm" : "unnorm");
    std::vector<float> cc = c; if (nm) for (auto& v : cc) v /= 16;
    run(name, k1, tex(16, 0, 0, f4, 16, t1.data(), f ? cudaFilterModeLinear : cudaFilterModePoint, cudaAddressModeBorder, nm, cudaReadModeElementType, bc), cc, make_float4(0, 0, 0, 0));
  }
}

int main(int argc, char** argv) {
  const char* only = argc > 1 ? argv[1] : "";
  if (!*only || strstr(only, "np")) nonpow2();
  if (!*only || strstr(only, "3d")) three_d();
  if (!*only || strstr(only, "border")) border();
  if (!*only || strstr(only, "narrow")) narrow();
  if (strstr(only, "round2")) { sizes2(); border2(); narrow2(); }
  if (strstr(only, "round3")) three_d_modes();
  if (strstr(only, "round4")) precision4();
  return 0;
}
