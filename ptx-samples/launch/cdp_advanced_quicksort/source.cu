// ptxrun sample: cuda-samples' cdpAdvancedQuicksort (NVIDIA, BSD-3-Clause; the three files beside
// this one, unedited), started from the device. The sample's host function run_quicksort_cdp sets
// up a ring buffer of sort records in device memory (a struct holding a pointer, which a launch
// file cannot write) and launches qsort_warp; `quicksort` below does the same from one device
// thread, with a stack of 4096 records instead of 2^20 (the ring buffer wraps at any power of two).
#include "cdpAdvancedQuicksort.cu"
#include "cdpBitonicSort.cu"

extern "C" __global__ void quicksort(unsigned *data, unsigned *scratch, unsigned count,
                                     qsortRingbuf *ringbuf, qsortAtomicData *stack)
{
    const unsigned stacksize = 4096;
    stack[0].lt_offset = stack[0].gt_offset = stack[0].sorted_count = stack[0].index = 0;
    ringbuf->head      = 1;
    ringbuf->tail      = 0;
    ringbuf->count     = 0;
    ringbuf->max       = 0;
    ringbuf->stacksize = stacksize;
    ringbuf->stackbase = stack;
    if (count > BITONICSORT_LEN) {
        unsigned numblocks = (count + (QSORT_BLOCKSIZE - 1)) >> QSORT_BLOCKSIZE_SHIFT;
        qsort_warp<<<numblocks, QSORT_BLOCKSIZE>>>(data, scratch, 0U, count, stack, ringbuf, true, 0);
    }
    else {
        bitonicsort<<<1, BITONICSORT_LEN>>>(data, data, 0, count);
    }
}
