// Texture/surface probe for ptxrun: measures the H100's sampling arithmetic.
#include <cstdio>
#include <cstdint>
#include <cstdlib>
#include <cstring>
#include <vector>
#include <cuda_runtime.h>
#include <cuda_fp16.h>
#define CK(x) do { cudaError_t e_ = (x); if (e_ != cudaSuccess) { fprintf(stderr, "%s:%d %s\n", __FILE__, __LINE__, cudaGetErrorString(e_)); if (getenv("PROBE_STRICT")) exit(1);} } while (0)

static uint64_t rs = 0x1234567;
static uint64_t nxt() { rs += 0x9E3779B97F4A7C15ull; uint64_t z = rs; z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ull; z = (z ^ (z >> 27)) * 0x94D049BB133111EBull; return z ^ (z >> 31); }
static float frand(float a, float b) { return a + (float)((nxt() >> 11) * (1.0 / 9007199254740992.0)) * (b - a); }

static void save(const char* name, const void* p, size_t n) {
  char path[512]; snprintf(path, sizeof path, "%s/%s", getenv("PROBE_OUT"), name);
  FILE* f = fopen(path, "wb"); fwrite(p, 1, n, f); fclose(f);
}

struct TexSpec { int dims; int w, h, d; cudaChannelFormatDesc fmt; int layered; cudaTextureFilterMode filt; cudaTextureAddressMode am; int norm; cudaTextureReadMode rm; float border[4]; };

static cudaTextureObject_t make_tex(const TexSpec& s, const void* host, size_t esz, cudaArray_t* arr_out) {
  cudaArray_t arr;
  cudaExtent ext = make_cudaExtent(s.w, s.dims >= 2 ? s.h : 0, s.dims >= 3 || s.layered ? s.d : 0);
  CK(cudaMalloc3DArray(&arr, &s.fmt, ext, s.layered ? cudaArrayLayered : 0));
  cudaMemcpy3DParms p = {};
  p.srcPtr = make_cudaPitchedPtr((void*)host, s.w * esz, s.w, s.dims >= 2 ? s.h : 1);
  p.dstArray = arr;
  p.extent = make_cudaExtent(s.w, s.dims >= 2 ? s.h : 1, (s.dims >= 3 || s.layered) ? s.d : 1);
  p.kind = cudaMemcpyHostToDevice;
  CK(cudaMemcpy3D(&p));
  cudaResourceDesc rd = {}; rd.resType = cudaResourceTypeArray; rd.res.array.array = arr;
  cudaTextureDesc td = {};
  for (int i = 0; i < 3; i++) td.addressMode[i] = s.am;
  td.filterMode = s.filt; td.readMode = s.rm; td.normalizedCoords = s.norm;
  for (int i = 0; i < 4; i++) td.borderColor[i] = s.border[i];
  cudaTextureObject_t t; CK(cudaCreateTextureObject(&t, &rd, &td, nullptr));
  if (arr_out) *arr_out = arr;
  return t;
}

// Generic sampler kernels: coords in, float4/uint4 out.
__global__ void k1d(cudaTextureObject_t t, const float* x, float4* out, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x; if (i < n) out[i] = tex1D<float4>(t, x[i]); }
__global__ void k1d_1(cudaTextureObject_t t, const float* x, float* out, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x; if (i < n) out[i] = tex1D<float>(t, x[i]); }
__global__ void k2d(cudaTextureObject_t t, const float2* x, float4* out, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x; if (i < n) out[i] = tex2D<float4>(t, x[i].x, x[i].y); }
__global__ void k3d(cudaTextureObject_t t, const float4* x, float4* out, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x; if (i < n) out[i] = tex3D<float4>(t, x[i].x, x[i].y, x[i].z); }
__global__ void k2dl(cudaTextureObject_t t, const float4* x, float4* out, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x; if (i < n) out[i] = tex2DLayered<float4>(t, x[i].x, x[i].y, (int)x[i].z); }
__global__ void k1dl(cudaTextureObject_t t, const float4* x, float4* out, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x; if (i < n) out[i] = tex1DLayered<float4>(t, x[i].x, (int)x[i].z); }
__global__ void k2d_u4(cudaTextureObject_t t, const float2* x, uint4* out, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x; if (i < n) out[i] = tex2D<uint4>(t, x[i].x, x[i].y); }
__global__ void kfetch(cudaTextureObject_t t, const int* x, float4* out, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x; if (i < n) out[i] = tex1Dfetch<float4>(t, x[i]); }
__global__ void ktld4(cudaTextureObject_t t, const float2* x, float4* out, int n) {
#ifndef NO_TLD4

  int i = blockIdx.x * blockDim.x + threadIdx.x; if (i < n) { out[4*i] = tex2Dgather<float4>(t, x[i].x, x[i].y, 0);
    out[4*i+1] = tex2Dgather<float4>(t, x[i].x, x[i].y, 1); out[4*i+2] = tex2Dgather<float4>(t, x[i].x, x[i].y, 2); out[4*i+3] = tex2Dgather<float4>(t, x[i].x, x[i].y, 3);} 
#endif
}
__global__ void ktxq(cudaTextureObject_t t, int* out) {
#ifndef NO_TXQ

  int r;
#define Q(k, q) asm volatile("txq." q ".b32 %0, [%1];" : "=r"(r) : "l"(t)); out[k] = r;
  Q(0, "width") Q(1, "height") Q(2, "depth") Q(3, "channel_data_type") Q(4, "channel_order") Q(5, "normalized_coords")
  Q(6, "array_size") Q(7, "num_mipmap_levels") Q(8, "num_samples")
#ifdef SAMPLER_Q
 Q(9, "filter_mode") Q(10, "addr_mode_0") Q(11, "addr_mode_1") Q(12, "addr_mode_2") Q(13, "force_unnormalized_coords")
#endif

#undef Q

#endif
}
__global__ void ksuq(cudaSurfaceObject_t t, int* out) {
#ifndef NO_SUQ

  int r;
#define Q(k, q) asm volatile("suq." q ".b32 %0, [%1];" : "=r"(r) : "l"(t)); out[k] = r;
  Q(0, "width") Q(1, "height") Q(2, "depth") Q(3, "channel_data_type") Q(4, "channel_order") Q(5, "array_size") Q(6, "memory_layout")
#undef Q

#endif
}
// Surface read/write with each OOB mode (x in bytes).
__global__ void ksurf(cudaSurfaceObject_t s, const int2* c, unsigned* out, int n) {
#ifndef NO_SURF

  int i = blockIdx.x * blockDim.x + threadIdx.x; if (i >= n) return;
  unsigned a, b;
  asm volatile("suld.b.2d.b32.zero %0, [%1, {%2, %3}];" : "=r"(a) : "l"(s), "r"(c[i].x), "r"(c[i].y));
  asm volatile("suld.b.2d.b32.clamp %0, [%1, {%2, %3}];" : "=r"(b) : "l"(s), "r"(c[i].x), "r"(c[i].y));
  out[2*i] = a; out[2*i+1] = b;

#endif
}
__global__ void ksust(cudaSurfaceObject_t s, const int2* c, int n, int mode) {
#ifndef NO_SURF

  int i = blockIdx.x * blockDim.x + threadIdx.x; if (i >= n) return;
  unsigned v = 0x1000 + i;
  if (mode == 0) asm volatile("sust.b.2d.b32.zero [%0, {%1, %2}], %3;" :: "l"(s), "r"(c[i].x), "r"(c[i].y), "r"(v) : "memory");
  else asm volatile("sust.b.2d.b32.clamp [%0, {%1, %2}], %3;" :: "l"(s), "r"(c[i].x), "r"(c[i].y), "r"(v) : "memory");

#endif
}
// sust.p into an rgba8 unorm surface, and sured
#ifdef WITH_SUSTP
__global__ void ksustp(cudaSurfaceObject_t s, const float4* v, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x; if (i >= n) return;
  asm volatile("sust.p.1d.v4.b32.trap [%0, {%1}], {%2, %3, %4, %5};" :: "l"(s), "r"(i), "f"(v[i].x), "f"(v[i].y), "f"(v[i].z), "f"(v[i].w) : "memory");
}
__global__ void ksured(cudaSurfaceObject_t s, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x; if (i >= n) return;
  asm volatile("sured.b.add.1d.u32.trap [%0, {%1}], %2;" :: "l"(s), "r"((i % 8) * 4), "r"(i + 1) : "memory");
}
#endif

template <class T> static T* dev(const std::vector<T>& h) { T* d; CK(cudaMalloc(&d, h.size() * sizeof(T))); CK(cudaMemcpy(d, h.data(), h.size() * sizeof(T), cudaMemcpyHostToDevice)); return d; }
template <class T> static std::vector<T> host(const T* d, size_t n) { std::vector<T> h(n); CK(cudaMemcpy(h.data(), d, n * sizeof(T), cudaMemcpyDeviceToHost)); return h; }

static void run1d(const char* name, TexSpec s, const void* data, size_t esz, const std::vector<float>& xs) {
  cudaTextureObject_t t = make_tex(s, data, esz, nullptr);
  float* dx = dev(xs); float4* o; int n = xs.size(); CK(cudaMalloc(&o, n * 16));
  k1d<<<(n + 255) / 256, 256>>>(t, dx, o, n); CK(cudaGetLastError()); CK(cudaDeviceSynchronize());
  auto h = host(o, n); save(name, h.data(), n * 16);
  char nm[256]; snprintf(nm, sizeof nm, "%s.x", name); save(nm, xs.data(), n * 4);
}
static void run2d(const char* name, TexSpec s, const void* data, size_t esz, const std::vector<float2>& xs) {
  cudaTextureObject_t t = make_tex(s, data, esz, nullptr);
  float2* dx = dev(xs); float4* o; int n = xs.size(); CK(cudaMalloc(&o, n * 16));
  k2d<<<(n + 255) / 256, 256>>>(t, dx, o, n); CK(cudaGetLastError()); CK(cudaDeviceSynchronize());
  auto h = host(o, n); save(name, h.data(), n * 16);
  char nm[256]; snprintf(nm, sizeof nm, "%s.x", name); save(nm, xs.data(), n * 8);
}

int main() {
  cudaChannelFormatDesc f1 = cudaCreateChannelDesc<float>();
  cudaChannelFormatDesc f4 = cudaCreateChannelDesc<float4>();
  cudaChannelFormatDesc u8 = cudaCreateChannelDesc<unsigned char>();
  cudaChannelFormatDesc u8x4 = cudaCreateChannelDesc<uchar4>();
  cudaChannelFormatDesc s8 = cudaCreateChannelDesc<signed char>();
  cudaChannelFormatDesc u16 = cudaCreateChannelDesc<unsigned short>();
  cudaChannelFormatDesc s16 = cudaCreateChannelDesc<short>();
  cudaChannelFormatDesc h1 = cudaCreateChannelDescHalf();
  TexSpec base = {}; base.filt = cudaFilterModeLinear; base.am = cudaAddressModeClamp; base.rm = cudaReadModeElementType;

  if (getenv("PROBE_G_ONLY")) goto surfaces;
  // A: 1D float [0,1,...] linear unnormalized, dense x sweep -> alpha quantization.
  { std::vector<float> T = {0, 1, 0, 1, 0, 1, 0, 1};
    std::vector<float> xs; for (int k = 0; k < 8 * 4096; k++) xs.push_back(k / 4096.0f);
    for (int k = 0; k < 65536; k++) xs.push_back(frand(-1, 9));
    TexSpec s = base; s.dims = 1; s.w = 8; s.fmt = f1; run1d("A_alpha", s, T.data(), 4, xs); }
  if (getenv("PROBE_A_ONLY")) return 0;
  // B: 1D random float values linear unnormalized -> interpolation arithmetic.
  { std::vector<float> T(4096); for (auto& v : T) { float m = frand(-1, 1); int e = (int)(nxt() % 40) - 20; v = ldexpf(m, e); }
    T[5] = 1e-40f; T[6] = -3e-39f; T[10] = INFINITY; T[20] = NAN; T[30] = 3e38f; T[31] = 3.2e38f;
    save("B_tex.bin", T.data(), T.size() * 4);
    std::vector<float> xs; for (int k = 0; k < 1 << 20; k++) xs.push_back(frand(0, 4096));
    TexSpec s = base; s.dims = 1; s.w = 4096; s.fmt = f1; run1d("B_lin", s, T.data(), 4, xs);
    s.filt = cudaFilterModePoint; run1d("B_pt", s, T.data(), 4, xs);
    // normalized coordinates, each address mode, point and linear
    std::vector<float> xn; for (int k = 0; k < 1 << 18; k++) xn.push_back(frand(-2.5, 2.5));
    for (int k = 0; k < 1 << 16; k++) { int i = nxt() % 4097; float x = i / 4096.0f; uint32_t b; memcpy(&b, &x, 4); b += (int)(nxt() % 9) - 4; memcpy(&x, &b, 4); xn.push_back(x); }
    const char* am[] = {"wrap", "clamp", "mirror", "border"};
    cudaTextureAddressMode ams[] = {cudaAddressModeWrap, cudaAddressModeClamp, cudaAddressModeMirror, cudaAddressModeBorder};
    for (int m = 0; m < 4; m++) for (int f = 0; f < 2; f++) {
      TexSpec s2 = base; s2.dims = 1; s2.w = 4096; s2.fmt = f1; s2.norm = 1; s2.am = ams[m]; s2.filt = f ? cudaFilterModeLinear : cudaFilterModePoint;
      s2.border[0] = 0.25f; s2.border[1] = 0.5f; s2.border[2] = 0.75f; s2.border[3] = 1.0f;
      char nm[64]; snprintf(nm, sizeof nm, "B_n_%s_%s", am[m], f ? "lin" : "pt"); run1d(nm, s2, T.data(), 4, xn);
      // odd width
      s2.w = 7; snprintf(nm, sizeof nm, "B_n7_%s_%s", am[m], f ? "lin" : "pt"); run1d(nm, s2, T.data(), 4, xn);
      // unnormalized with that mode
      s2.w = 4096; s2.norm = 0; std::vector<float> xu; for (float v : xn) xu.push_back(v * 4096.0f);
      snprintf(nm, sizeof nm, "B_u_%s_%s", am[m], f ? "lin" : "pt"); run1d(nm, s2, T.data(), 4, xu);
    }
  }
  // C: 2D float4 random linear, 64x48; plus 3D and layered.
  { int W = 64, H = 48; std::vector<float> T(W * H * 4); for (auto& v : T) v = frand(-4, 4);
    save("C_tex.bin", T.data(), T.size() * 4);
    std::vector<float2> xs; for (int k = 0; k < 1 << 18; k++) xs.push_back(make_float2(frand(-2, W + 2), frand(-2, H + 2)));
    TexSpec s = base; s.dims = 2; s.w = W; s.h = H; s.fmt = f4; run2d("C_2d_lin", s, T.data(), 16, xs);
    std::vector<float2> xn; for (auto v : xs) xn.push_back(make_float2(v.x / W, v.y / H));
    s.norm = 1; s.am = cudaAddressModeWrap; run2d("C_2dn_wrap_lin", s, T.data(), 16, xn);
    // tld4
    s.norm = 0; s.am = cudaAddressModeClamp;
    cudaTextureObject_t t = make_tex(s, T.data(), 16, nullptr);
    int n = 4096; float2* dx = dev(xs); float4* o; CK(cudaMalloc(&o, n * 64));
    ktld4<<<n / 256, 256>>>(t, dx, o, n); CK(cudaGetLastError()); CK(cudaDeviceSynchronize());
    auto h = host(o, n * 4); save("C_tld4", h.data(), n * 64); save("C_tld4.x", xs.data(), n * 8);
    // txq on this and others
    int* q; CK(cudaMalloc(&q, 64 * 4)); std::vector<int> qs;
    ktxq<<<1, 1>>>(t, q); CK(cudaGetLastError()); CK(cudaDeviceSynchronize()); auto hq = host(q, 14); qs.insert(qs.end(), hq.begin(), hq.end());
    // 3D
    int D = 8; std::vector<float> T3(W * H * D * 4); for (auto& v : T3) v = frand(-4, 4); save("C_tex3.bin", T3.data(), T3.size() * 4);
    TexSpec s3 = base; s3.dims = 3; s3.w = W; s3.h = H; s3.d = D; s3.fmt = f4;
    cudaTextureObject_t t3 = make_tex(s3, T3.data(), 16, nullptr);
    std::vector<float4> x3; for (int k = 0; k < 1 << 16; k++) x3.push_back(make_float4(frand(-2, W + 2), frand(-2, H + 2), frand(-2, D + 2), 0));
    float4* d3 = dev(x3); float4* o3; CK(cudaMalloc(&o3, x3.size() * 16));
    k3d<<<x3.size() / 256, 256>>>(t3, d3, o3, x3.size()); CK(cudaGetLastError()); CK(cudaDeviceSynchronize());
    auto h3 = host(o3, x3.size()); save("C_3d_lin", h3.data(), x3.size() * 16); save("C_3d_lin.x", x3.data(), x3.size() * 16);
    ktxq<<<1, 1>>>(t3, q); CK(cudaGetLastError()); CK(cudaDeviceSynchronize()); hq = host(q, 14); qs.insert(qs.end(), hq.begin(), hq.end());
    // layered 2D (8 layers) and layered 1D
    TexSpec sl = s3; sl.dims = 2; sl.layered = 1;
    cudaTextureObject_t tl = make_tex(sl, T3.data(), 16, nullptr);
    std::vector<float4> xl; for (int k = 0; k < 1 << 16; k++) xl.push_back(make_float4(frand(-2, W + 2), frand(-2, H + 2), (float)((int)(nxt() % 12) - 2), 0));
    float4* dl = dev(xl); k2dl<<<xl.size() / 256, 256>>>(tl, dl, o3, xl.size()); CK(cudaGetLastError()); CK(cudaDeviceSynchronize());
    h3 = host(o3, xl.size()); save("C_2dl_lin", h3.data(), xl.size() * 16); save("C_2dl_lin.x", xl.data(), xl.size() * 16);
    ktxq<<<1, 1>>>(tl, q); CK(cudaGetLastError()); CK(cudaDeviceSynchronize()); hq = host(q, 14); qs.insert(qs.end(), hq.begin(), hq.end());
    TexSpec s1l = base; s1l.dims = 1; s1l.w = W; s1l.layered = 1; s1l.d = H; s1l.fmt = f4;
    cudaTextureObject_t t1l = make_tex(s1l, T.data(), 16, nullptr);
    k1dl<<<xl.size() / 256, 256>>>(t1l, dl, o3, xl.size()); CK(cudaGetLastError()); CK(cudaDeviceSynchronize());
    h3 = host(o3, xl.size()); save("C_1dl_lin", h3.data(), xl.size() * 16);
    ktxq<<<1, 1>>>(t1l, q); CK(cudaGetLastError()); CK(cudaDeviceSynchronize()); hq = host(q, 14); qs.insert(qs.end(), hq.begin(), hq.end());
    // integer formats: txq of u8 normalized etc. below
    // E: small-int formats, normalized float read, point and linear
    struct F { const char* nm; cudaChannelFormatDesc fmt; int esz; int ch; };
    F fs[] = {{"u8", u8, 1, 1}, {"s8", s8, 1, 1}, {"u16", u16, 2, 1}, {"s16", s16, 2, 1}, {"h1", h1, 2, 1}, {"u8x4", u8x4, 4, 4}};
    for (auto& f : fs) {
      int W2 = 256, H2 = 16; std::vector<uint8_t> B(W2 * H2 * f.esz);
      for (size_t i = 0; i < B.size(); i++) B[i] = nxt();
      if (f.esz == 1 && f.ch == 1) for (int i = 0; i < 256; i++) B[i] = i;  // row 0: every value
      if (!strcmp(f.nm, "h1")) for (int i = 0; i < W2 * H2; i++) { __half hv = __float2half(frand(-8, 8)); memcpy(&B[2 * i], &hv, 2); }
      char nm[64]; snprintf(nm, sizeof nm, "E_%s_tex.bin", f.nm); save(nm, B.data(), B.size());
      std::vector<float2> xe; for (int k = 0; k < 256; k++) xe.push_back(make_float2(k + 0.5f, 0.5f));
      for (int k = 0; k < 1 << 17; k++) xe.push_back(make_float2(frand(-1, W2 + 1), frand(-1, H2 + 1)));
      for (int fl = 0; fl < 2; fl++) {
        TexSpec se = base; se.dims = 2; se.w = W2; se.h = H2; se.fmt = f.fmt; se.filt = fl ? cudaFilterModeLinear : cudaFilterModePoint;
        se.rm = strcmp(f.nm, "h1") ? cudaReadModeNormalizedFloat : cudaReadModeElementType;
        snprintf(nm, sizeof nm, "E_%s_%s", f.nm, fl ? "lin" : "pt"); run2d(nm, se, B.data(), f.esz, xe);
        if (fl == 0) { cudaTextureObject_t te = make_tex(se, B.data(), f.esz, nullptr); ktxq<<<1, 1>>>(te, q); CK(cudaGetLastError()); CK(cudaDeviceSynchronize()); hq = host(q, 14); qs.insert(qs.end(), hq.begin(), hq.end()); }
      }
      if (f.ch == 4) { // element read of uchar4 as uint4
        TexSpec se = base; se.dims = 2; se.w = W2; se.h = H2; se.fmt = f.fmt; se.filt = cudaFilterModePoint;
        cudaTextureObject_t te = make_tex(se, B.data(), f.esz, nullptr);
        float2* dx2 = dev(xe); uint4* o4; CK(cudaMalloc(&o4, xe.size() * 16));
        k2d_u4<<<(xe.size() + 255) / 256, 256>>>(te, dx2, o4, xe.size()); CK(cudaGetLastError()); CK(cudaDeviceSynchronize());
        auto h4 = host(o4, xe.size()); save("E_u8x4_elem", h4.data(), xe.size() * 16);
        ktxq<<<1, 1>>>(te, q); CK(cudaGetLastError()); CK(cudaDeviceSynchronize()); hq = host(q, 14); qs.insert(qs.end(), hq.begin(), hq.end());
      }
    }
    save("txq.bin", qs.data(), qs.size() * 4);
  }
  // F: tex1Dfetch on linear memory (float4 and float), OOB
  { std::vector<float> T(1000 * 4); for (auto& v : T) v = frand(-1, 1); float* d = dev(T);
    cudaResourceDesc rd = {}; rd.resType = cudaResourceTypeLinear; rd.res.linear.devPtr = d; rd.res.linear.desc = f4; rd.res.linear.sizeInBytes = 1000 * 16;
    cudaTextureDesc td = {}; td.readMode = cudaReadModeElementType; cudaTextureObject_t t; CK(cudaCreateTextureObject(&t, &rd, &td, nullptr));
    std::vector<int> xs; for (int k = -20; k < 1100; k++) xs.push_back(k); xs.push_back(1 << 30); xs.push_back(-(1 << 30));
    int* dx = dev(xs); float4* o; CK(cudaMalloc(&o, xs.size() * 16));
    kfetch<<<(xs.size() + 255) / 256, 256>>>(t, dx, o, xs.size()); CK(cudaGetLastError()); CK(cudaDeviceSynchronize());
    auto h = host(o, xs.size()); save("F_fetch", h.data(), xs.size() * 16); save("F_fetch.x", xs.data(), xs.size() * 4); save("F_tex.bin", T.data(), T.size() * 4);
    int* q; CK(cudaMalloc(&q, 64)); ktxq<<<1, 1>>>(t, q); CK(cudaGetLastError()); CK(cudaDeviceSynchronize()); auto hq = host(q, 14); save("F_txq.bin", hq.data(), 56);
  }
 surfaces:
  // G: surfaces 2D u32, 16x8: suld zero/clamp OOB; sust zero/clamp OOB
  { int W = 16, H = 8; std::vector<unsigned> S(W * H); for (int i = 0; i < W * H; i++) S[i] = 0xA0000 + i;
    cudaChannelFormatDesc fu = cudaCreateChannelDesc<unsigned>(); cudaArray_t arr;
    CK(cudaMallocArray(&arr, &fu, W, H, cudaArraySurfaceLoadStore));
    CK(cudaMemcpy2DToArray(arr, 0, 0, S.data(), W * 4, W * 4, H, cudaMemcpyHostToDevice));
    cudaResourceDesc rd = {}; rd.resType = cudaResourceTypeArray; rd.res.array.array = arr;
    cudaSurfaceObject_t so; CK(cudaCreateSurfaceObject(&so, &rd));
    std::vector<int2> cs; for (int y = -3; y < H + 3; y++) for (int x = -48; x < 4 * W + 48; x += 4) cs.push_back(make_int2(x, y));
    cs.push_back(make_int2(1 << 30, 0)); cs.push_back(make_int2(-(1 << 30), 3)); cs.push_back(make_int2(4, 1 << 30)); cs.push_back(make_int2(8, -(1 << 30)));
    int2* dc = dev(cs); unsigned* o; int n = cs.size(); CK(cudaMalloc(&o, n * 8));
    ksurf<<<(n + 255) / 256, 256>>>(so, dc, o, n); CK(cudaGetLastError()); CK(cudaDeviceSynchronize());
    auto h = host(o, n * 2); save("G_suld", h.data(), n * 8); save("G_suld.x", cs.data(), n * 8);
    int* q; CK(cudaMalloc(&q, 64)); ksuq<<<1, 1>>>(so, q); CK(cudaGetLastError()); CK(cudaDeviceSynchronize()); auto hq = host(q, 7); save("G_suq.bin", hq.data(), 28);
    // sust OOB: write aligned coordinates outside only (one writer per coordinate)
    for (int mode = 0; mode < 2; mode++) {
      CK(cudaMemcpy2DToArray(arr, 0, 0, S.data(), W * 4, W * 4, H, cudaMemcpyHostToDevice));
      std::vector<int2> ws = {{-4, 0}, {4 * W, 1}, {4 * W + 4, 2}, {8, -1}, {12, H}, {-400, 5}, {4 * W + 400, 6}, {1 << 30, 3}, {-(1 << 30), 4}, {20, 1 << 30}};
      int2* dw = dev(ws); ksust<<<1, 32>>>(so, dw, ws.size(), mode); CK(cudaGetLastError()); CK(cudaDeviceSynchronize());
      std::vector<unsigned> R(W * H); CK(cudaMemcpy2DFromArray(R.data(), W * 4, arr, 0, 0, W * 4, H, cudaMemcpyDeviceToHost));
      char nm[64]; snprintf(nm, sizeof nm, "G_sust_%d", mode); save(nm, R.data(), R.size() * 4);
    }
#ifdef WITH_SUSTP
    // sust.p into rgba8 unorm, 1D 64 wide
    cudaChannelFormatDesc c8 = cudaCreateChannelDesc<uchar4>(); cudaArray_t a8; CK(cudaMallocArray(&a8, &c8, 1024, 0, cudaArraySurfaceLoadStore));
    rd.res.array.array = a8; cudaSurfaceObject_t s8o; CK(cudaCreateSurfaceObject(&s8o, &rd));
    std::vector<float4> vs; for (int i = 0; i < 1024; i++) vs.push_back(make_float4(i / 1023.0f * 1.2f - 0.1f, frand(0, 1), frand(-1, 2), (i % 256) / 255.0f));
    float4* dv = dev(vs); ksustp<<<4, 256>>>(s8o, dv, 1024); CK(cudaGetLastError()); cudaError_t e = cudaDeviceSynchronize(); printf("sust.p: %s\n", cudaGetErrorString(e));
    if (e == cudaSuccess) { std::vector<uint32_t> R(1024); CK(cudaMemcpy2DFromArray(R.data(), 4096, a8, 0, 0, 4096, 1, cudaMemcpyDeviceToHost)); save("G_sustp", R.data(), 4096); save("G_sustp.x", vs.data(), 1024 * 16);
      ksuq<<<1, 1>>>(s8o, q); CK(cudaGetLastError()); CK(cudaDeviceSynchronize()); hq = host(q, 7); save("G_suq8.bin", hq.data(), 28); }
  
#endif
  }
  printf("probe done\n");
  return 0;
}
