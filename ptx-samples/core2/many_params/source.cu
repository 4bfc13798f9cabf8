// A kernel with 16 parameters of mixed sizes and alignments (1, 2, 4, 8 bytes; signed/unsigned char and
// short, int, long long, float, double, __half, __nv_bfloat16, unsigned long long, pointers), so the .param
// space layout (padding between a char and a following double, etc.) has to match the launch's.
// A struct passed by value is left out: launch.toml scalars cannot express one.
#include <cuda_fp16.h>
#include <cuda_bf16.h>
extern "C" __global__ void many_params(signed char c, const int* __restrict__ in, short s, double d,
                                       unsigned char uc, long long ll, float f, unsigned short us,
                                       __half h, int i, __nv_bfloat16 bf, unsigned long long ull,
                                       signed char c2, double* __restrict__ outd, unsigned u,
                                       long long* __restrict__ out) {
  int t = blockIdx.x * blockDim.x + threadIdx.x;
  int v = in[t];
  long long* o = out + t * 12;
  o[0] = (long long)c * v;
  o[1] = (long long)s * v + uc;
  o[2] = ll + v;
  o[3] = (long long)us * (long long)c2 - i;
  o[4] = (long long)(ull >> (t & 63)) ^ (long long)u;
  o[5] = (long long)__float_as_int(f) + (long long)__half_as_ushort(h) * 65536 + __bfloat16_as_ushort(bf);
  o[6] = (long long)(f * (float)v);
  o[7] = (long long)(d * v);
  o[8] = (long long)__half2float(h) * v + (long long)__bfloat162float(bf);
  o[9] = (long long)((unsigned char)c ^ uc) | ((long long)(unsigned short)s << 8) | ((long long)c2 << 24);
  o[10] = ll * (long long)c + (long long)(ull % 1000003ull) - (long long)us;
  o[11] = (long long)u * (long long)i;
  double* od = outd + t * 4;
  od[0] = d * f + (double)h + (double)(float)bf;
  od[1] = (double)ll / d;
  od[2] = (double)ull * 0.5 + c + c2 + s + us + uc;
  od[3] = __half2float(__hmul(h, __float2half((float)v))) + (double)__bfloat162float(__hadd(bf, __float2bfloat16((float)c)));
}
