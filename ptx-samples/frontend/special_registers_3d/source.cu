#include <cstdint>
#define SREG32(name) ({ uint32_t r_; asm volatile("mov.u32 %0, %%" #name ";" : "=r"(r_)); r_; })
#define SREG64(name) ({ uint64_t r_; asm volatile("mov.u64 %0, %%" #name ";" : "=l"(r_)); r_; })

// 7-point stencil over an nx*ny*nz volume with a 3D grid of 3D blocks
extern "C" __global__ void stencil3d(const float* __restrict__ in, float* __restrict__ out, int nx, int ny, int nz) {
  int x = blockIdx.x * blockDim.x + threadIdx.x;
  int y = blockIdx.y * blockDim.y + threadIdx.y;
  int z = blockIdx.z * blockDim.z + threadIdx.z;
  if (x < 1 || y < 1 || z < 1 || x >= nx - 1 || y >= ny - 1 || z >= nz - 1) return;
  size_t sx = 1, sy = nx, sz = (size_t)nx * ny;
  size_t c = z * sz + y * sy + x;
  out[c] = -6.0f * in[c] + in[c - sx] + in[c + sx] + in[c - sy] + in[c + sy] + in[c - sz] + in[c + sz];
}

struct Probe {
  uint64_t clock64, globaltimer, gridid;
  uint32_t clock32, smid, nsmid, warpid, laneid;
  uint32_t lanemask_lt, lanemask_le, lanemask_eq, lanemask_ge, lanemask_gt;
  uint32_t dyn_smem, total_smem, envreg0;
  uint32_t linear_block, linear_thread, nthreads;
};

extern "C" __global__ void probe_sregs(Probe* out) {
  uint64_t t0 = clock64();
  Probe p;
  p.linear_block = (blockIdx.z * gridDim.y + blockIdx.y) * gridDim.x + blockIdx.x;
  p.linear_thread = (threadIdx.z * blockDim.y + threadIdx.y) * blockDim.x + threadIdx.x;
  p.nthreads = blockDim.x * blockDim.y * blockDim.z * gridDim.x * gridDim.y * gridDim.z;
  p.clock32 = clock();
  p.globaltimer = SREG64(globaltimer);
  p.gridid = SREG64(gridid);
  p.smid = SREG32(smid);
  p.nsmid = SREG32(nsmid);
  p.warpid = SREG32(warpid);
  p.laneid = SREG32(laneid);
  p.lanemask_lt = SREG32(lanemask_lt);
  p.lanemask_le = SREG32(lanemask_le);
  p.lanemask_eq = SREG32(lanemask_eq);
  p.lanemask_ge = SREG32(lanemask_ge);
  p.lanemask_gt = SREG32(lanemask_gt);
  p.dyn_smem = SREG32(dynamic_smem_size);
  p.total_smem = SREG32(total_smem_size);
  p.envreg0 = SREG32(envreg0);
  p.clock64 = clock64() - t0;
  out[p.linear_block * (blockDim.x * blockDim.y * blockDim.z) + p.linear_thread] = p;
}
