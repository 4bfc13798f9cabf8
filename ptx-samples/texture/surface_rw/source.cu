// Surface objects: each thread reads a 2D uint surface with surf2Dread (zero outside), writes a
// float2 surface with surf2Dwrite in clamp mode from coordinates past the edges (the nearest
// texel is written) and in zero mode (dropped), and queries the width and height. Written
// for ptxrun; measured on an H100.
#include <cuda_runtime.h>

extern "C" __global__ void surface_rw(cudaSurfaceObject_t src, cudaSurfaceObject_t dst, unsigned* read_out, int* sizes,
                           int w, int h) {
    int x = blockIdx.x * blockDim.x + threadIdx.x;
    int y = blockIdx.y;
    unsigned v = surf2Dread<unsigned>(src, (x - 4) * 4, y - 1, cudaBoundaryModeZero);
    read_out[y * gridDim.x * blockDim.x + x] = v;
    // Clamp mode: column 0 is written from x = -2 texels, the last row from y = h + 3; each
    // texel still has one writer. Zero mode: stores past the edge are dropped.
    if (x < w && y < h) {
        int cx = x == 0 ? -2 : x;
        int cy = y == h - 1 ? h + 3 : y;
        surf2Dwrite(make_float2(v * 0.5f, (float)(x - y)), dst, cx * 8, cy, cudaBoundaryModeClamp);
    } else if (y == h && x < w) {
        surf2Dwrite(make_float2(-1.0f, (float)x), dst, x * 8, y + 5, cudaBoundaryModeZero);
    }
    if (x == 0 && y == 0) {
        int a, b;
        asm("suq.width.b32 %0, [%1];" : "=r"(a) : "l"(dst));
        asm("suq.height.b32 %0, [%1];" : "=r"(b) : "l"(dst));
        sizes[0] = a;
        sizes[1] = b;
    }
}
