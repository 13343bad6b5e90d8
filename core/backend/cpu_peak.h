// The machine's fp32 FMA peak, measured in the same process as the figure it is read beside
// (issue 23): a figure from one CPU can then be read on another as a % of that CPU's peak.
//
// The loop: 12 independent chains of fused multiply-adds per thread, in the widest vector unit
// the CPU reports at run time (AVX-512, AVX2+FMA, else SSE2 multiply+add), on every OpenMP
// thread at once; the best of a few repeats. A build without -march=native measures the same
// peak: the kernels carry their own target attributes and are chosen as the row kernels are
// (tensor/row_kernels.h, best_isa).
#pragma once

#include <string>

namespace attnlab {

struct CpuPeak {
  double gflops = 0;   // fp32 FLOP/s ÷ 1e9 over all threads (an FMA counts 2)
  int threads = 1;     // threads that ran the loop at once
  std::string isa;     // "avx512f" | "avx2+fma" | "sse2"
};

// Runs the microbenchmark (about `ms` milliseconds in all) and returns the best repeat.
CpuPeak measure_cpu_peak(double ms = 60);

// The kernel the CPU would use ("avx512f", "avx2+fma", "sse2"), without measuring.
std::string widest_fma_isa();

}  // namespace attnlab
