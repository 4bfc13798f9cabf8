// Every SIMD-in-a-word intrinsic of CUDA 13's device_functions.h (__vabsdiffu4, __vsadu4, __vavgu2, ...),
// one output row each, over 512 lanes of operand pairs (inputs/gen.py: the 16 x 16 cross of boundary words,
// then random words whose bytes are often 0x00/0x7f/0x80/0xff). nvcc 13 implements __vabsdiffu4, __vsadu2
// and __vsadu4 with the video instructions vabsdiff4 / vabsdiff2 (.add); the rest with ordinary integer
// PTX, which this sample pins too.
#include <cuda_runtime.h>

constexpr int N = 512;

extern "C" __global__ void intrinsics(const unsigned* __restrict__ a, const unsigned* __restrict__ b,
                                      unsigned* __restrict__ out) {
  const int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i >= N) return;
  const unsigned x = a[i], y = b[i];
  unsigned* o = out + i;
  int k = 0;
  o[(k++) * N] = __vabs2(x);
  o[(k++) * N] = __vabs4(x);
  o[(k++) * N] = __vabsdiffs2(x, y);
  o[(k++) * N] = __vabsdiffs4(x, y);
  o[(k++) * N] = __vabsdiffu2(x, y);
  o[(k++) * N] = __vabsdiffu4(x, y);
  o[(k++) * N] = __vabsss2(x);
  o[(k++) * N] = __vabsss4(x);
  o[(k++) * N] = __vadd2(x, y);
  o[(k++) * N] = __vadd4(x, y);
  o[(k++) * N] = __vaddss2(x, y);
  o[(k++) * N] = __vaddss4(x, y);
  o[(k++) * N] = __vaddus2(x, y);
  o[(k++) * N] = __vaddus4(x, y);
  o[(k++) * N] = __vavgs2(x, y);
  o[(k++) * N] = __vavgs4(x, y);
  o[(k++) * N] = __vavgu2(x, y);
  o[(k++) * N] = __vavgu4(x, y);
  o[(k++) * N] = __vcmpeq2(x, y);
  o[(k++) * N] = __vcmpeq4(x, y);
  o[(k++) * N] = __vcmpges2(x, y);
  o[(k++) * N] = __vcmpges4(x, y);
  o[(k++) * N] = __vcmpgeu2(x, y);
  o[(k++) * N] = __vcmpgeu4(x, y);
  o[(k++) * N] = __vcmpgts2(x, y);
  o[(k++) * N] = __vcmpgts4(x, y);
  o[(k++) * N] = __vcmpgtu2(x, y);
  o[(k++) * N] = __vcmpgtu4(x, y);
  o[(k++) * N] = __vcmples2(x, y);
  o[(k++) * N] = __vcmples4(x, y);
  o[(k++) * N] = __vcmpleu2(x, y);
  o[(k++) * N] = __vcmpleu4(x, y);
  o[(k++) * N] = __vcmplts2(x, y);
  o[(k++) * N] = __vcmplts4(x, y);
  o[(k++) * N] = __vcmpltu2(x, y);
  o[(k++) * N] = __vcmpltu4(x, y);
  o[(k++) * N] = __vcmpne2(x, y);
  o[(k++) * N] = __vcmpne4(x, y);
  o[(k++) * N] = __vhaddu2(x, y);
  o[(k++) * N] = __vhaddu4(x, y);
  o[(k++) * N] = __vmaxs2(x, y);
  o[(k++) * N] = __vmaxs4(x, y);
  o[(k++) * N] = __vmaxu2(x, y);
  o[(k++) * N] = __vmaxu4(x, y);
  o[(k++) * N] = __vmins2(x, y);
  o[(k++) * N] = __vmins4(x, y);
  o[(k++) * N] = __vminu2(x, y);
  o[(k++) * N] = __vminu4(x, y);
  o[(k++) * N] = __vneg2(x);
  o[(k++) * N] = __vneg4(x);
  o[(k++) * N] = __vnegss2(x);
  o[(k++) * N] = __vnegss4(x);
  o[(k++) * N] = __vsads2(x, y);
  o[(k++) * N] = __vsads4(x, y);
  o[(k++) * N] = __vsadu2(x, y);
  o[(k++) * N] = __vsadu4(x, y);
  o[(k++) * N] = __vseteq2(x, y);
  o[(k++) * N] = __vseteq4(x, y);
  o[(k++) * N] = __vsetges2(x, y);
  o[(k++) * N] = __vsetges4(x, y);
  o[(k++) * N] = __vsetgeu2(x, y);
  o[(k++) * N] = __vsetgeu4(x, y);
  o[(k++) * N] = __vsetgts2(x, y);
  o[(k++) * N] = __vsetgts4(x, y);
  o[(k++) * N] = __vsetgtu2(x, y);
  o[(k++) * N] = __vsetgtu4(x, y);
  o[(k++) * N] = __vsetles2(x, y);
  o[(k++) * N] = __vsetles4(x, y);
  o[(k++) * N] = __vsetleu2(x, y);
  o[(k++) * N] = __vsetleu4(x, y);
  o[(k++) * N] = __vsetlts2(x, y);
  o[(k++) * N] = __vsetlts4(x, y);
  o[(k++) * N] = __vsetltu2(x, y);
  o[(k++) * N] = __vsetltu4(x, y);
  o[(k++) * N] = __vsetne2(x, y);
  o[(k++) * N] = __vsetne4(x, y);
  o[(k++) * N] = __vsub2(x, y);
  o[(k++) * N] = __vsub4(x, y);
  o[(k++) * N] = __vsubss2(x, y);
  o[(k++) * N] = __vsubss4(x, y);
  o[(k++) * N] = __vsubus2(x, y);
  o[(k++) * N] = __vsubus4(x, y);
}
