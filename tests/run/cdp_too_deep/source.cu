// nvcc 13.0 -arch=sm_90a -rdc=true -ptx: a kernel that launches itself until depth `limit`.
extern "C" __global__ void deeper(int depth, int limit) {
  if (depth < limit) deeper<<<1, 1>>>(depth + 1, limit);
}
