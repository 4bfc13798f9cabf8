// __noinline__ device functions (.func with .param passing), a per-thread local array indexed at run time
// (spilled to .local through a pointer argument), and recursion (fib, gcd, a recursive digit sum over a
// local array, mutual recursion). Recursion depth stays small (at most 13 frames) to fit the default stack.
#define NO 8
__device__ __noinline__ void fill_local(int* arr, int n, unsigned seed) {
  for (int i = 0; i < n; ++i) {
    seed = seed * 1664525u + 1013904223u;
    arr[i] = (int)(seed >> 16) - 32768;
  }
}

__device__ __noinline__ void insertion_sort(int* arr, int n) {
  for (int i = 1; i < n; ++i) {
    int key = arr[i], j = i - 1;
    while (j >= 0 && arr[j] > key) { arr[j + 1] = arr[j]; --j; }
    arr[j + 1] = key;
  }
}

__device__ __noinline__ int fib(int n) { return n < 2 ? n : fib(n - 1) + fib(n - 2); }

__device__ __noinline__ unsigned gcd_rec(unsigned a, unsigned b) {
  if (b == 0u) return a;
  unsigned r = gcd_rec(b, a % b);
  return r;
}

// recursive sum over a local array, halving the range: depth log2(n) + 1
__device__ __noinline__ long long range_sum(const int* arr, int lo, int hi) {
  if (hi - lo == 1) return (long long)arr[lo] * (lo + 1);
  int mid = (lo + hi) / 2;
  return range_sum(arr, lo, mid) - range_sum(arr, mid, hi);
}

__device__ __noinline__ int is_odd(unsigned n);
__device__ __noinline__ int is_even(unsigned n) { return n == 0u ? 1 : is_odd(n - 1u); }
__device__ __noinline__ int is_odd(unsigned n) { return n == 0u ? 0 : is_even(n - 1u); }

__device__ __noinline__ double local_doubles(int idx, double base) {
  double tab[6];
  for (int i = 0; i < 6; ++i) tab[i] = base * (i + 1) - 0.5 * i;
  return tab[idx % 6] + tab[(idx + 3) % 6];
}

extern "C" __global__ void local_recursion(const unsigned* __restrict__ in, long long* __restrict__ out, int n) {
  int tid = blockIdx.x * blockDim.x + threadIdx.x;
  if (tid >= n) return;
  unsigned v = in[tid];
  int arr[16];
  int len = 8 + (int)(v & 7u);            // 8..15 elements
  fill_local(arr, len, v);
  long long unsorted_sum = range_sum(arr, 0, len);
  insertion_sort(arr, len);
  long long* o = out + (size_t)tid * NO;
  o[0] = arr[(v >> 4) % (unsigned)len];   // run-time index into the sorted local array
  o[1] = arr[0] + 65536ll * arr[len - 1];
  o[2] = unsorted_sum;
  o[3] = range_sum(arr, 0, len);
  o[4] = fib((int)(v % 13u));
  o[5] = gcd_rec((v & 0xffffu) * 7u + 3u, ((v >> 16) & 0xfffu) * 5u + 15u);   // depth <= ~24
  o[6] = is_even(v % 12u) * 10 + is_odd((v >> 8) % 9u);
  o[7] = __double_as_longlong(local_doubles((int)(v >> 5), (double)v * 0.125));
}
