// A lock taken by every thread in turn, lanes of one warp contending: correct only if a
// spinning lane group cannot starve the group holding the lock (independent thread scheduling).
// Expected count: one per thread (2 x 64), whatever the order.
extern "C" __global__ void lock_count(int* lock, int* count) {
  bool done = false;
  while (!done) {
    if (atomicCAS(lock, 0, 1) == 0) {
      volatile int* c = count; *c = *c + 1;
      __threadfence();
      atomicExch(lock, 0);
      done = true;
    }
  }
}
