/* Native C version of ptx-samples/bench/sgemm_cpasync: the same product as sgemm_plain (the
 * pipelined kernel accumulates each element with fmaf in the same k order, so its bytes equal
 * the plain kernel's); only the GPU-side data movement differs. */
#include "sgemm_plain.c"
