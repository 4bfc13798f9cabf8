struct Pair { float a; int b; double c; };

__device__ __noinline__ float sum_local(const float* src, int n, int k) {
  float tmp[16];                       // indexed at run time -> lives in .local memory
  for (int i = 0; i < 16; ++i) tmp[i] = src[(i * 7) % n];
  for (int i = 0; i < 16; ++i) tmp[(i * k) & 15] += tmp[i];
  return tmp[k & 15] + tmp[(k + 5) & 15];
}

__device__ __noinline__ unsigned fib(unsigned n) { return n < 2 ? n : fib(n - 1) + fib(n - 2); }

__device__ __noinline__ Pair make_pair(float a, int b) { return Pair{a * 2.0f, b + 1, (double)a * b}; }

__device__ __noinline__ int gcd_rec(int a, int b) { return b == 0 ? a : gcd_rec(b, a % b); }

typedef float (*unary_op)(float, int);
__device__ __noinline__ float op_scale(float x, int k) { return x * k; }
__device__ __noinline__ float op_shift(float x, int k) { return x + k; }
__device__ __noinline__ float op_pow(float x, int k) { float r = 1; while (k-- > 0) r *= x; return r; }
__device__ unary_op ops[3] = {op_scale, op_shift, op_pow};   // table of function pointers in global memory

// void-returning callee taking a struct by value
__device__ __noinline__ void store_pair(Pair p, float* out) { out[0] = p.a; out[1] = (float)p.b; out[2] = (float)p.c; }

extern "C" __global__ void calls(const float* __restrict__ in, float* __restrict__ out, int n, int which) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i >= n) return;
  float s = sum_local(in, n, i);
  unary_op f = ops[(which + i) % 3];              // indirect call
  float r = f(s, i & 3);
  Pair p = make_pair(r, (int)fib(i & 15));
  store_pair(p, out + 4 * i);
  out[4 * i + 3] = (float)gcd_rec(i + 12, 18);
}

// Function pointer chosen by a switch, passed to a noinline higher-order helper
__device__ __noinline__ float apply_twice(unary_op f, float x, int k) { return f(f(x, k), k); }
extern "C" __global__ void higher_order(float* data, int sel) {
  unary_op f = sel == 0 ? op_scale : (sel == 1 ? op_shift : op_pow);
  data[threadIdx.x] = apply_twice(f, data[threadIdx.x], 2);
}
