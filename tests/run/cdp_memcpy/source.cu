// nvcc 13.0 -arch=sm_90a -rdc=true -ptx: device-side cudaMemcpyAsync and cudaMemsetAsync, queued in
// the NULL stream and run after this grid; a copy of a kind other than device-to-device or
// default is refused with cudaErrorInvalidMemcpyDirection (21), as on an H200; cudaGetErrorString
// of that code is copied out byte by byte.
extern "C" __global__ void copy(int* dst, const int* src, int* filled, int* codes, char* text) {
  codes[0] = cudaMemcpyAsync(dst, src, 4 * sizeof(int), cudaMemcpyDeviceToDevice, 0);
  codes[1] = cudaMemsetAsync(filled, 0, 3 * sizeof(int), 0);
  codes[2] = cudaMemcpyAsync(dst + 4, src, sizeof(int), cudaMemcpyHostToDevice, 0);
  codes[3] = cudaGetLastError();
  const char* s = cudaGetErrorString((cudaError_t)codes[3]);
  for (int i = 0; i < 63 && s[i]; i++) text[i] = s[i];
}
