// nvcc 13.0 -arch=sm_90a -rdc=true -ptx. BUG: the CUDA Programming Guide's parent_launch example
// without its first __syncthreads(): every thread writes its element of data, and thread 0
// launches a child that reads all of them. A child grid sees only what the launching thread did
// and knew before the launch, so the other threads' writes race with the child's reads. Correct
// twin: launch/cdp_stream_order (its threads meet at __syncthreads before the launch).

extern "C" __global__ void child_launch(unsigned* data, unsigned* out) {
  out[threadIdx.x] = data[threadIdx.x] + 1;
}

extern "C" __global__ void parent_launch(unsigned* data, unsigned* out) {
  data[threadIdx.x] = threadIdx.x * 2654435761u;
  if (threadIdx.x == 0) child_launch<<<1, blockDim.x>>>(data, out);
}
