// When elementwise work is worth OpenMP's threads (issue 23): waking the other cores costs a few
// microseconds, so a job under 2¹⁶ elements (every classroom tensor) stays on the calling thread
// and a larger one is split. Elementwise results are the same bits on any split; the tests
// (test_ops' large cases) compare a split job with a plain loop.
#pragma once

#include <algorithm>
#include <cstdint>

#ifdef _OPENMP
#include <omp.h>
#endif

namespace attnlab {

inline constexpr int64_t kParallelElements = int64_t{1} << 16;
// A plain copy does less per element: split from 2¹⁸ floats (1 MiB), in runs of 64 KiB.
inline constexpr int64_t kParallelCopyElements = int64_t{1} << 18;
inline constexpr int64_t kCopyRun = int64_t{1} << 14;

// The threads a parallel region started here would get: OpenMP's count, 1 in a build without it.
inline int parallel_threads() {
#ifdef _OPENMP
  return omp_get_max_threads();
#else
  return 1;
#endif
}

// f(r0, n) on every block of rows (about 16 Ki elements each) of a (rows, cols) elementwise job,
// the blocks split between OpenMP's threads once the job is worth waking them. Elementwise work
// gives the same bits on any split.
template <class F>
void row_blocks(int64_t rows, int64_t cols, F&& f) {
  const int64_t block = std::max<int64_t>(1, 16384 / std::max<int64_t>(cols, 1));
  const int64_t blocks = (rows + block - 1) / block;
#pragma omp parallel for schedule(static) if (rows * cols >= kParallelElements)
  for (int64_t i = 0; i < blocks; ++i) f(i * block, std::min(block, rows - i * block));
}

}  // namespace attnlab
