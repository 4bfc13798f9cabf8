// Buggy twin of checker/cas_loop_add: the accumulation is a plain read-modify-write (`sum[i % 4] += in[i]`),
// so updates by different warps are lost (on the H100 the sums differ from run to run). ptxrun reports a
// `data-race` of severity `error` between the plain load and the plain store of another warp.
#include "../common.cuh"

extern "C" __global__ void __launch_bounds__(128) plain_add_race(const double* __restrict__ in, double* sum) {
  const int i = blockIdx.x * blockDim.x + threadIdx.x;
  sum[i % 4] += in[i];
}
