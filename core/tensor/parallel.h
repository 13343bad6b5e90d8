// When elementwise work is worth OpenMP's threads (issue 23): waking the other cores costs a few
// microseconds, so a job under 2¹⁶ elements (every classroom tensor) stays on the calling thread
// and a larger one is split. Elementwise results are the same bits on any split; the tests
// (test_ops' large cases) compare a split job with a plain loop.
#pragma once

#include <cstdint>

#ifdef _OPENMP
#include <omp.h>
#endif

namespace attnlab {

inline constexpr int64_t kParallelElements = int64_t{1} << 16;

// The threads a parallel region started here would get: OpenMP's count, 1 in a build without it.
inline int parallel_threads() {
#ifdef _OPENMP
  return omp_get_max_threads();
#else
  return 1;
#endif
}

}  // namespace attnlab
