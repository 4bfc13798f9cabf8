// Narrow-format conversions (PTX ISA 9.0 section 9.7.9.21) on adversarial inputs: every cvt form with a
// tf32, e4m3x2 or e5m2x2 side that an sm_90 GPU runs, and the .relu/.satfinite forms of f32 -> f16/bf16.
// The common forms come from the CUDA headers' own intrinsics (as real kernels reach them), the others
// from inline PTX. x32 holds f32 bit patterns (specials, rounding ties and their neighbours at the
// tf32/f16, bf16, e4m3 and e5m2 rounding positions over the whole exponent range, random patterns);
// x16 holds every 16-bit pattern, read as an f16 and as a pair of fp8 bytes.
#include <cstdint>
#include <cuda_fp16.h>
#include <cuda_fp8.h>
#include <mma.h>

#define CVT1(op, d, a) asm("{ .reg .b16 t; " op " t, %1; mov.b32 %0, {t, 0}; }" : "=r"(d) : "f"(a))
#define CVT2(op, d, a, b) asm(op " %0, %1, %2;" : "=r"(d) : "f"(a), "f"(b))
#define CVT2H(op, d, a, b) asm("{ .reg .b16 t; " op " t, %1, %2; mov.b32 %0, {t, 0}; }" : "=r"(d) : "f"(a), "f"(b))

constexpr int N32 = 8192;
constexpr int N16 = 65536;

extern "C" __global__ void narrow_cvt(const uint32_t* __restrict__ x32, const uint16_t* __restrict__ x16,
                                      uint32_t* __restrict__ tf32, uint16_t* __restrict__ f8,
                                      uint16_t* __restrict__ half, uint32_t* __restrict__ pair,
                                      uint16_t* __restrict__ f8h, uint32_t* __restrict__ h8) {
  const int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < N32) {
    const float a = __uint_as_float(x32[i]);
    const float b = __uint_as_float(x32[(i * 7 + 1) % N32]);
    uint32_t r;
    tf32[0 * N32 + i] = __float_as_uint(nvcuda::wmma::__float_to_tf32(a));  // cvt.rna.tf32.f32
    asm("cvt.rna.satfinite.tf32.f32 %0, %1;" : "=r"(r) : "f"(a)); tf32[1 * N32 + i] = r;
    asm("cvt.rn.tf32.f32 %0, %1;" : "=r"(r) : "f"(a)); tf32[2 * N32 + i] = r;
    asm("cvt.rn.relu.tf32.f32 %0, %1;" : "=r"(r) : "f"(a)); tf32[3 * N32 + i] = r;
    asm("cvt.rz.tf32.f32 %0, %1;" : "=r"(r) : "f"(a)); tf32[4 * N32 + i] = r;
    asm("cvt.rz.relu.tf32.f32 %0, %1;" : "=r"(r) : "f"(a)); tf32[5 * N32 + i] = r;

    const float2 ab = make_float2(b, a);  // .x goes to the low byte
    f8[0 * N32 + i] = __nv_cvt_float2_to_fp8x2(ab, __NV_SATFINITE, __NV_E4M3);
    f8[1 * N32 + i] = __nv_cvt_float2_to_fp8x2(ab, __NV_SATFINITE, __NV_E5M2);
    CVT2H("cvt.rn.satfinite.relu.e4m3x2.f32", r, a, b); f8[2 * N32 + i] = r;
    CVT2H("cvt.rn.satfinite.relu.e5m2x2.f32", r, a, b); f8[3 * N32 + i] = r;

    CVT1("cvt.rn.satfinite.f16.f32", r, a); half[0 * N32 + i] = r;
    CVT1("cvt.rz.satfinite.f16.f32", r, a); half[1 * N32 + i] = r;
    CVT1("cvt.rn.relu.satfinite.f16.f32", r, a); half[2 * N32 + i] = r;
    CVT1("cvt.rn.relu.f16.f32", r, a); half[3 * N32 + i] = r;
    CVT1("cvt.rz.relu.f16.f32", r, a); half[4 * N32 + i] = r;
    CVT1("cvt.rn.satfinite.bf16.f32", r, a); half[5 * N32 + i] = r;
    CVT1("cvt.rz.satfinite.bf16.f32", r, a); half[6 * N32 + i] = r;
    CVT1("cvt.rn.relu.satfinite.bf16.f32", r, a); half[7 * N32 + i] = r;
    CVT1("cvt.rn.relu.bf16.f32", r, a); half[8 * N32 + i] = r;
    CVT1("cvt.rz.relu.bf16.f32", r, a); half[9 * N32 + i] = r;

    CVT2("cvt.rn.relu.satfinite.f16x2.f32", r, a, b); pair[0 * N32 + i] = r;
    CVT2("cvt.rz.satfinite.f16x2.f32", r, a, b); pair[1 * N32 + i] = r;
    CVT2("cvt.rn.satfinite.bf16x2.f32", r, a, b); pair[2 * N32 + i] = r;
    CVT2("cvt.rz.relu.satfinite.bf16x2.f32", r, a, b); pair[3 * N32 + i] = r;
  }
  if (i < N16) {
    const uint32_t hh = (uint32_t)x16[i] << 16 | x16[(i * 31 + 7) % N16];
    __half2_raw h2;
    h2.x = (unsigned short)(hh & 0xffff);
    h2.y = (unsigned short)(hh >> 16);
    uint32_t r;
    f8h[0 * N16 + i] = __nv_cvt_halfraw2_to_fp8x2(h2, __NV_SATFINITE, __NV_E4M3);
    f8h[1 * N16 + i] = __nv_cvt_halfraw2_to_fp8x2(h2, __NV_SATFINITE, __NV_E5M2);
    asm("{ .reg .b16 t; cvt.rn.satfinite.relu.e4m3x2.f16x2 t, %1; mov.b32 %0, {t, 0}; }" : "=r"(r) : "r"(hh));
    f8h[2 * N16 + i] = r;
    asm("{ .reg .b16 t; cvt.rn.satfinite.relu.e5m2x2.f16x2 t, %1; mov.b32 %0, {t, 0}; }" : "=r"(r) : "r"(hh));
    f8h[3 * N16 + i] = r;

    const __nv_fp8x2_storage_t p = x16[i];
    __half2_raw o = __nv_cvt_fp8x2_to_halfraw2(p, __NV_E4M3);
    h8[0 * N16 + i] = (uint32_t)o.y << 16 | o.x;
    o = __nv_cvt_fp8x2_to_halfraw2(p, __NV_E5M2);
    h8[1 * N16 + i] = (uint32_t)o.y << 16 | o.x;
    asm("{ .reg .b16 t; cvt.u16.u32 t, %1; cvt.rn.relu.f16x2.e4m3x2 %0, t; }" : "=r"(r) : "r"((uint32_t)p));
    h8[2 * N16 + i] = r;
    asm("{ .reg .b16 t; cvt.u16.u32 t, %1; cvt.rn.relu.f16x2.e5m2x2 %0, t; }" : "=r"(r) : "r"((uint32_t)p));
    h8[3 * N16 + i] = r;
  }
}
