// Special registers in a 3D grid of 3D blocks whose size (6x5x2 = 60 threads) leaves the second warp
// partial: %tid/%ntid/%ctaid/%nctaid in x, y, z, %laneid, the %lanemask_* family, %dynamic_smem_size, and the
// sm_90 cluster registers of a launch without clusters (every CTA is its own 1x1x1 cluster).
#define NO 28
__device__ __forceinline__ unsigned sreg_laneid() { unsigned r; asm volatile("mov.u32 %0, %%laneid;" : "=r"(r)); return r; }
__device__ __forceinline__ unsigned sreg_lanemask_eq() { unsigned r; asm volatile("mov.u32 %0, %%lanemask_eq;" : "=r"(r)); return r; }
__device__ __forceinline__ unsigned sreg_lanemask_lt() { unsigned r; asm volatile("mov.u32 %0, %%lanemask_lt;" : "=r"(r)); return r; }
__device__ __forceinline__ unsigned sreg_lanemask_le() { unsigned r; asm volatile("mov.u32 %0, %%lanemask_le;" : "=r"(r)); return r; }
__device__ __forceinline__ unsigned sreg_lanemask_gt() { unsigned r; asm volatile("mov.u32 %0, %%lanemask_gt;" : "=r"(r)); return r; }
__device__ __forceinline__ unsigned sreg_lanemask_ge() { unsigned r; asm volatile("mov.u32 %0, %%lanemask_ge;" : "=r"(r)); return r; }
__device__ __forceinline__ unsigned sreg_dyn_smem() { unsigned r; asm volatile("mov.u32 %0, %%dynamic_smem_size;" : "=r"(r)); return r; }
__device__ __forceinline__ unsigned sreg_cluster_ctarank() { unsigned r; asm volatile("mov.u32 %0, %%cluster_ctarank;" : "=r"(r)); return r; }
__device__ __forceinline__ unsigned sreg_cluster_nctarank() { unsigned r; asm volatile("mov.u32 %0, %%cluster_nctarank;" : "=r"(r)); return r; }
__device__ __forceinline__ unsigned sreg_clusterid_y() { unsigned r; asm volatile("mov.u32 %0, %%clusterid.y;" : "=r"(r)); return r; }
__device__ __forceinline__ unsigned sreg_nclusterid_z() { unsigned r; asm volatile("mov.u32 %0, %%nclusterid.z;" : "=r"(r)); return r; }
__device__ __forceinline__ unsigned sreg_cluster_ctaid_x() { unsigned r; asm volatile("mov.u32 %0, %%cluster_ctaid.x;" : "=r"(r)); return r; }
__device__ __forceinline__ unsigned sreg_is_explicit_cluster() {
  unsigned r;
  asm volatile("{\n .reg .pred p;\n mov.pred p, %%is_explicit_cluster;\n selp.u32 %0, 1, 0, p;\n}" : "=r"(r));
  return r;
}

extern "C" __global__ void special_regs_3d(unsigned* __restrict__ out, float* __restrict__ image) {
  extern __shared__ unsigned char dyn[];
  unsigned lin = (threadIdx.z * blockDim.y + threadIdx.y) * blockDim.x + threadIdx.x;
  unsigned blk = (blockIdx.z * gridDim.y + blockIdx.y) * gridDim.x + blockIdx.x;
  unsigned nthreads = blockDim.x * blockDim.y * blockDim.z;
  unsigned g = blk * nthreads + lin;
  unsigned* o = out + (size_t)g * NO;
  o[0] = threadIdx.x; o[1] = threadIdx.y; o[2] = threadIdx.z;
  o[3] = blockDim.x;  o[4] = blockDim.y;  o[5] = blockDim.z;
  o[6] = blockIdx.x;  o[7] = blockIdx.y;  o[8] = blockIdx.z;
  o[9] = gridDim.x;   o[10] = gridDim.y;  o[11] = gridDim.z;
  o[12] = sreg_laneid();
  o[13] = lin / 32u;
  o[14] = sreg_lanemask_eq(); o[15] = sreg_lanemask_lt(); o[16] = sreg_lanemask_le();
  o[17] = sreg_lanemask_gt(); o[18] = sreg_lanemask_ge();
  o[19] = sreg_dyn_smem();
  o[20] = sreg_cluster_ctarank(); o[21] = sreg_cluster_nctarank();
  o[22] = sreg_clusterid_y(); o[23] = sreg_nclusterid_z(); o[24] = sreg_cluster_ctaid_x();
  o[25] = sreg_is_explicit_cluster();
  o[26] = __activemask();                 // converged here: the lanes of this (possibly partial) warp
  // use the dynamic shared memory: each thread writes its byte, then reads a neighbour's after a barrier
  dyn[lin] = (unsigned char)(g * 7u);
  __syncthreads();
  o[27] = dyn[(lin + 1u) % nthreads];

  // a 2D image indexed by global (x, y) over the grid's x/y extent, z-planes accumulated through f32 atomics
  unsigned X = blockIdx.x * blockDim.x + threadIdx.x;        // 0..11
  unsigned Y = blockIdx.y * blockDim.y + threadIdx.y;        // 0..14
  unsigned Z = blockIdx.z * blockDim.z + threadIdx.z;        // 0..3
  unsigned W = gridDim.x * blockDim.x;
  atomicAdd(&image[Y * W + X], (float)((X + 16u * Y) << Z));  // integers < 2^24: the sum is exact
}
