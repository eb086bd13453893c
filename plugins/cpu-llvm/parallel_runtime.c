/* The parallel-for runtime of the cpu-llvm target plugin.
 *
 * A Parallel loop of a LoweredFunc is outlined by the code generator into a function
 * body(begin, end, closure) that runs iterations [begin, end) of the loop, and the loop
 * itself becomes one call of loopscape_parallel_for(extent, body, closure, threads).
 * Iterations are independent (the LoweredFunc contract), so the range is split into one
 * contiguous chunk per OpenMP thread (the first extent % n threads get one more). A
 * parallel loop reached from inside another parallel region runs serially on the calling
 * thread. `threads` <= 0 means OpenMP's default (all cores).
 *
 * This file is compiled into the plugin (the JIT resolves the symbol to that copy) and
 * shipped as a string, compiled with -fopenmp next to each kernel's object file when a
 * shared library is made for the out-of-process runner or export. */
#include <stdint.h>
#include <omp.h>

typedef void (*loopscape_parallel_body)(int64_t begin, int64_t end, void* closure);

void loopscape_parallel_for(int64_t extent, loopscape_parallel_body body, void* closure, int32_t threads) {
  if (extent <= 0) return;
  int n = threads > 0 ? threads : omp_get_max_threads();
  if (omp_in_parallel() || n <= 1 || extent == 1) {
    body(0, extent, closure);
    return;
  }
  if ((int64_t)n > extent) n = (int)extent;
#pragma omp parallel num_threads(n)
  {
    const int64_t t = omp_get_thread_num();
    const int64_t nt = omp_get_num_threads();
    const int64_t chunk = extent / nt;
    const int64_t rest = extent % nt;
    const int64_t begin = t * chunk + (t < rest ? t : rest);
    const int64_t end = begin + chunk + (t < rest ? 1 : 0);
    if (begin < end) body(begin, end, closure);
  }
}
