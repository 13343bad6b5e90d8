// How attnlab's sgemm splits one product between its threads (core/tensor/gemm.cpp,
// split_library_gemm): by rows of C (each thread re-packs the whole of op(B), K × N) or by
// columns (each re-packs op(A), M × K). The model's linear shapes, both splits side by side in
// one run, oneDNN single-threaded per part as the model calls it (issue 23). Each product here
// runs alone on operands that stay in both cores' caches: the measurement behind gemm.h's
// LongerSide cut (and attnlab bench's products alone), not the layer's — inside the layer the
// operands were just written by the step before, which the whole-layer A/B in README measures.
//
//   cmake --preset bench && cmake --build build/bench --target gemm_split
//   env -u OPENBLAS_CORETYPE -u OPENBLAS_L2_SIZE build/bench/bench/gemm_split
//
// Output: a markdown table, the median of 13 timed runs after 2 warm-ups, both splits of each
// shape run in turn (twice over the list: the shared machine's noise shows as a difference).
#include <dnnl.h>
#include <omp.h>

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <vector>

#include "backend/cpu_peak.h"

namespace {

struct Shape {
  long m, n, k;  // C (m, n) = A (m, k) · Wᵀ, W (n, k): F.linear's layout
  const char* name;
};

double now_ms() {
  return std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now().time_since_epoch()).count();
}

// One product on `threads` threads, each part one single-threaded dnnl_sgemm.
void split_product(const Shape& s, bool by_rows, int threads, const float* a, const float* w, float* c) {
#pragma omp parallel num_threads(threads)
  {
    const int t = omp_get_thread_num(), count = omp_get_num_threads();
    const long size = by_rows ? s.m : s.n, lo = size * t / count, hi = size * (t + 1) / count;
    if (by_rows)
      dnnl_sgemm('N', 'T', hi - lo, s.n, s.k, 1.0f, a + lo * s.k, s.k, w, s.k, 0.0f, c + lo * s.n, s.n);
    else
      dnnl_sgemm('N', 'T', s.m, hi - lo, s.k, 1.0f, a, s.k, w + lo * s.k, s.k, 0.0f, c + lo, s.n);
  }
}

double median_ms(const Shape& s, bool by_rows, int threads, const float* a, const float* w, float* c) {
  std::vector<double> t;
  for (int rep = 0; rep < 15; ++rep) {
    const double t0 = now_ms();
    split_product(s, by_rows, threads, a, w, c);
    if (rep >= 2) t.push_back(now_ms() - t0);
  }
  std::sort(t.begin(), t.end());
  return t[t.size() / 2];
}

}  // namespace

int main() {
  const int threads = omp_get_max_threads();
  const attnlab::CpuPeak peak = attnlab::measure_cpu_peak(200);
  const std::vector<Shape> shapes = {
      {128, 512, 512, "projection S 128 D 512"},   {128, 2048, 512, "FFN up S 128 D 512"},
      {128, 1024, 1024, "projection S 128 D 1024"}, {128, 4096, 1024, "FFN up S 128 D 1024"},
      {128, 1024, 4096, "FFN down S 128 D 1024"},   {512, 1024, 1024, "projection S 512 D 1024"},
      {512, 4096, 1024, "FFN up S 512 D 1024"},     {512, 1024, 4096, "FFN down S 512 D 1024"},
      {2048, 1024, 1024, "projection S 2048 D 1024"}};
  std::printf("%d threads; fp32 FMA peak %.0f GFLOP/s (%s), measured in this run\n\n", threads, peak.gflops,
              peak.isa.c_str());
  std::printf("| shape (M×N×K) | by rows ms | by columns ms | columns ÷ rows time | rows %% of peak | columns %% of peak |\n"
              "|---|---|---|---|---|---|\n");
  for (int round = 0; round < 2; ++round)
    for (const Shape& s : shapes) {
      std::vector<float> a(s.m * s.k, 0.01f), w(s.n * s.k, 0.02f), c(s.m * s.n);
      const double rows = median_ms(s, true, threads, a.data(), w.data(), c.data());
      const double cols = median_ms(s, false, threads, a.data(), w.data(), c.data());
      const double gflop = 2.0 * s.m * s.n * s.k / 1e9;
      std::printf("| %s (%ld×%ld×%ld) | %.3f | %.3f | %.2f | %.0f %% | %.0f %% |\n", s.name, s.m, s.n, s.k, rows, cols,
                  cols / rows, 100 * gflop / (rows / 1e3) / peak.gflops, 100 * gflop / (cols / 1e3) / peak.gflops);
    }
}
