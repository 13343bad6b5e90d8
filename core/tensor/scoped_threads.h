// OpenMP's thread count set for a scope and put back when it ends, even if what runs in it throws
// (an exercise setup, a test comparing one thread with several). A build without OpenMP runs on
// one thread whatever is asked. Outside a parallel region only: the count is the calling thread's.
#pragma once

#ifdef _OPENMP
#include <omp.h>
#endif

namespace attnlab {

class ScopedThreads {
 public:
  explicit ScopedThreads(int threads) {
#ifdef _OPENMP
    omp_set_num_threads(threads);
#endif
    (void)threads;
  }
  ~ScopedThreads() {
#ifdef _OPENMP
    omp_set_num_threads(before_);
#endif
  }
  ScopedThreads(const ScopedThreads&) = delete;
  ScopedThreads& operator=(const ScopedThreads&) = delete;

 private:
#ifdef _OPENMP
  int before_ = omp_get_max_threads();  // initialised before the constructor's body sets the new count
#endif
};

}  // namespace attnlab
