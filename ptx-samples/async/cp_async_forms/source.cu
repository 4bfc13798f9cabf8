// Every form of the non-bulk cp.async (global -> shared): cp-size 4 / 8 / 16 with .ca, 16 with .cg, the src-size
// operand (bytes past src-size are zero-filled), the ignore-src predicate (all zeros), the .L2::64B/128B/256B
// prefetch-size hints, .shared::cta, and group completion with commit_group / wait_group 1 / wait_group 0 /
// wait_all. Shared memory is first filled with a known pattern, so zero-filled bytes and bytes no copy touches
// both show in the dump of the whole buffer. (No .L2::cache_hint: ptxas accepts cp.async...L2::cache_hint for
// sm_90, but on an H100 (driver 580.159.04) it traps with an illegal instruction whatever the policy.)
#include <cstdint>

constexpr int T = 128;                     // threads per block
// byte offsets of the regions in shared memory (and sizes)
constexpr int R0 = 0;                      // ca 4:  thread t -> R0 + 8t        (1024)
constexpr int R1 = R0 + 1024;              // ca 8:  thread t -> R1 + 16t       (2048)
constexpr int R2 = R1 + 2048;              // ca 16 .L2::128B                    (2048)
constexpr int R3 = R2 + 2048;              // cg 16 .L2::256B, permuted slots    (2048)
constexpr int R4 = R3 + 2048;              // ca 16, src-size t % 17             (2048)
constexpr int R5 = R4 + 2048;              // ignore-src predicate, ca / cg 16   (2048)
constexpr int R6 = R5 + 2048;              // cg 16 .shared::cta .L2::128B; ca 16 .L2::256B + src-size (2048)
constexpr int R7 = R6 + 2048;              // ca 8 .L2::64B, src-size t % 9      (1024)
constexpr int R8 = R7 + 1024;              // ca 4, src-size t % 5 (after wait_all's commit) (512)
constexpr int SMEM = R8 + 512;             // 14848 bytes
// byte offsets of the per-block source segments in global memory
constexpr int S0 = 0;                      // 512
constexpr int S1 = S0 + 512;               // 1024
constexpr int S2 = S1 + 1024;              // 2048
constexpr int S3 = S2 + 2048;              // 2048
constexpr int S4 = S3 + 2048;              // 2048
constexpr int S5 = S4 + 2048;              // 2048
constexpr int S6 = S5 + 2048;              // 2048
constexpr int S7 = S6 + 2048;              // 1024
constexpr int S8 = S7 + 1024;              // 512
constexpr int SRC = S8 + 512;              // 13312 bytes per block

__device__ __forceinline__ uint32_t sa(const void* p) { return (uint32_t)__cvta_generic_to_shared(p); }

extern "C" __global__ void __launch_bounds__(T) cp_async_forms(const unsigned char* __restrict__ src,
                                                               unsigned* __restrict__ dump,
                                                               unsigned* __restrict__ chk) {
  __shared__ alignas(128) unsigned char sm[SMEM];
  unsigned* sw = reinterpret_cast<unsigned*>(sm);
  const int t = threadIdx.x;
  const unsigned b = blockIdx.x;
  const unsigned char* g = src + (size_t)b * SRC;

  // known pattern in every shared word
  for (int w = t; w < SMEM / 4; w += T) sw[w] = 0xA5000000u ^ ((unsigned)w * 0x01000193u) ^ (b << 20);
  __syncthreads();

  // ---- group A: cp-size 4 and 8
  asm volatile("cp.async.ca.shared.global [%0], [%1], 4;" :: "r"(sa(sm + R0 + 8 * t)), "l"(g + S0 + 4 * t) : "memory");
  asm volatile("cp.async.ca.shared::cta.global [%0], [%1], 8;" :: "r"(sa(sm + R1 + 16 * t)), "l"(g + S1 + 8 * t) : "memory");
  asm volatile("cp.async.commit_group;" ::: "memory");
  // ---- group B: cp-size 16, .ca and .cg, prefetch-size hints
  asm volatile("cp.async.ca.shared.global.L2::128B [%0], [%1], 16;" :: "r"(sa(sm + R2 + 16 * t)), "l"(g + S2 + 16 * t) : "memory");
  asm volatile("cp.async.cg.shared.global.L2::256B [%0], [%1], 16;" :: "r"(sa(sm + R3 + 16 * ((5 * t) % T))), "l"(g + S3 + 16 * t) : "memory");
  asm volatile("cp.async.commit_group;" ::: "memory");
  // ---- group C: src-size (zero fill of the tail) and ignore-src (all zeros)
  asm volatile("cp.async.ca.shared.global [%0], [%1], 16, %2;" :: "r"(sa(sm + R4 + 16 * t)), "l"(g + S4 + 16 * t), "r"(t % 17) : "memory");
  if (t & 1)
    asm volatile("{\n\t.reg .pred p;\n\tsetp.eq.u32 p, %2, 0;\n\tcp.async.cg.shared.global [%0], [%1], 16, p;\n\t}"
                 :: "r"(sa(sm + R5 + 16 * t)), "l"(g + S5 + 16 * t), "r"((unsigned)(t % 3)) : "memory");
  else
    asm volatile("{\n\t.reg .pred p;\n\tsetp.eq.u32 p, %2, 0;\n\tcp.async.ca.shared.global [%0], [%1], 16, p;\n\t}"
                 :: "r"(sa(sm + R5 + 16 * t)), "l"(g + S5 + 16 * t), "r"((unsigned)(t % 3)) : "memory");
  asm volatile("cp.async.commit_group;" ::: "memory");

  // groups A and B are complete for this thread (C may still be in flight): read back this thread's own bytes
  asm volatile("cp.async.wait_group 1;" ::: "memory");
  unsigned c = 0;
  c += 3u * sw[(R0 + 8 * t) / 4];
  c += 5u * sw[(R1 + 16 * t) / 4] + 7u * sw[(R1 + 16 * t) / 4 + 1];
  for (int k = 0; k < 4; ++k) c += (11u + 2u * k) * sw[(R2 + 16 * t) / 4 + k];
  for (int k = 0; k < 4; ++k) c ^= sw[(R3 + 16 * ((5 * t) % T)) / 4 + k] << k;

  // ---- group D: prefetch-size hints with and without src-size
  if (t < T / 2)
    asm volatile("cp.async.cg.shared::cta.global.L2::128B [%0], [%1], 16;"
                 :: "r"(sa(sm + R6 + 16 * t)), "l"(g + S6 + 16 * t) : "memory");
  else
    asm volatile("cp.async.ca.shared.global.L2::256B [%0], [%1], 16, %2;"
                 :: "r"(sa(sm + R6 + 16 * t)), "l"(g + S6 + 16 * t), "r"(t & 15) : "memory");
  asm volatile("cp.async.ca.shared.global.L2::64B [%0], [%1], 8, %2;" :: "r"(sa(sm + R7 + 8 * t)), "l"(g + S7 + 8 * t), "r"(t % 9) : "memory");
  asm volatile("cp.async.commit_group;" ::: "memory");
  asm volatile("cp.async.wait_group 0;" ::: "memory");
  // everything this thread copied so far has landed: read its zero-filled / ignored slots back
  for (int k = 0; k < 4; ++k) c += (101u + k) * sw[(R4 + 16 * t) / 4 + k] + (201u + k) * sw[(R5 + 16 * t) / 4 + k];

  // ---- uncommitted copies, completed by wait_all (= commit_group + wait_group 0)
  asm volatile("cp.async.ca.shared.global [%0], [%1], 4, %2;" :: "r"(sa(sm + R8 + 4 * t)), "l"(g + S8 + 4 * t), "r"(t % 5) : "memory");
  asm volatile("cp.async.wait_all;" ::: "memory");
  c += 301u * sw[(R8 + 4 * t) / 4];
  chk[b * T + t] = c;

  __syncthreads();   // every thread's copies are complete and visible to the whole block
  for (int w = t; w < SMEM / 4; w += T) dump[(size_t)b * (SMEM / 4) + w] = sw[w];
}
