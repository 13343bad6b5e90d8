// What the epilogue (core/tensor/gemm.h: the bias, ReLU and the residual added by the thread that
// multiplied each part of C) costs at the layer's shapes, on one thread and on all of them, side by
// side in one run, in turn: attnlab's sgemm without an epilogue, the same with it, and the
// epilogue's row kernel alone over C again (C warm, rows split between the threads). The first
// two differ by what the epilogue costs inside the product's pass. Issue 23: it showed that the
// epilogue is not what keeps the D 256 layer under 0.9 of its products (a few per cent of a
// product on a quiet machine); where the layer loses is each step reading rows another core
// wrote (README, "Whole rows per core").
//
//   cmake --preset bench && cmake --build build/bench --target gemm_epilogue
//   env -u OPENBLAS_CORETYPE -u OPENBLAS_L2_SIZE build/bench/bench/gemm_epilogue
//
// Output: a markdown table, medians of 41 timed runs after 3 warm-ups per shape and thread count,
// twice over the list (the shared machine's slow phases show as a difference between the rounds).
#include <omp.h>

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <functional>
#include <vector>

#include "backend/cpu_peak.h"
#include "tensor/gemm.h"
#include "tensor/row_kernels.h"

namespace {

using attnlab::GemmEpilogue;

struct Case {
  long m, n, k;  // C (m, n) = A (m, k) · Wᵀ, W (n, k): F.linear's layout
  bool relu, add;
  const char* name;
};

double now_ms() {
  return std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now().time_since_epoch()).count();
}

// The medians of the three jobs, run in turn (so the machine's slow phases fall on each alike).
std::vector<double> medians_ms(const std::vector<std::function<void()>>& jobs) {
  std::vector<std::vector<double>> t(jobs.size());
  for (int rep = 0; rep < 44; ++rep)
    for (size_t j = 0; j < jobs.size(); ++j) {
      const double t0 = now_ms();
      jobs[j]();
      if (rep >= 3) t[j].push_back(now_ms() - t0);
    }
  std::vector<double> out;
  for (auto& v : t) {
    std::sort(v.begin(), v.end());
    out.push_back(v[v.size() / 2]);
  }
  return out;
}

void row(const Case& s, int threads) {
  std::vector<float> a(s.m * s.k), w(s.n * s.k), bias(s.n), res(s.m * s.n), c(s.m * s.n);
  for (size_t i = 0; i < a.size(); ++i) a[i] = float(i % 13) * 0.01f - 0.06f;
  for (size_t i = 0; i < w.size(); ++i) w[i] = float(i % 7) * 0.01f - 0.03f;
  std::fill(bias.begin(), bias.end(), 0.1f);
  std::fill(res.begin(), res.end(), 1.0f);
  const GemmEpilogue ep{bias.data(), s.relu, s.add ? res.data() : nullptr, s.n};
  const attnlab::GemmOperand A{a.data(), false, s.k}, W{w.data(), true, s.k};
  const attnlab::Isa isa = attnlab::best_isa();
  omp_set_num_threads(threads);
  const std::vector<double> ms = medians_ms({
      [&] { attnlab::sgemm(s.m, s.n, s.k, A, W, c.data(), s.n); },
      [&] { attnlab::sgemm(s.m, s.n, s.k, A, W, c.data(), s.n, ep); },
      [&] {  // the same work alone, C warm from the previous job, on as many threads
#pragma omp parallel for schedule(static)
        for (long r = 0; r < s.m; ++r)
          attnlab::epilogue_row(isa, c.data() + r * s.n, s.n, bias.data(), s.relu,
                                s.add ? res.data() + r * s.n : nullptr);
      },
  });
  const double elements = double(s.m) * double(s.n), added_us = (ms[1] - ms[0]) * 1e3;
  std::printf("| %s (%ld×%ld×%ld%s%s) | %d | %.1f | %.1f | %.1f (%.0f %%) | %.2f | %.1f | %.2f |\n", s.name, s.m, s.n,
              s.k, s.relu ? ", ReLU" : "", s.add ? ", + residual" : "", threads, ms[0] * 1e3, ms[1] * 1e3, added_us,
              100 * (ms[1] - ms[0]) / ms[0], added_us * 1e3 / elements, ms[2] * 1e3, ms[2] * 1e6 / elements);
}

}  // namespace

int main() {
  const int all = omp_get_max_threads();
  const attnlab::CpuPeak peak = attnlab::measure_cpu_peak(200);
  const std::vector<Case> cases = {
      {128, 256, 256, false, false, "Q projection S 128 D 256"}, {128, 1024, 256, true, false, "FFN up S 128 D 256"},
      {128, 256, 1024, false, true, "FFN down S 128 D 256"},     {512, 256, 256, false, true, "out_proj S 512 D 256"},
      {512, 1024, 256, true, false, "FFN up S 512 D 256"},       {128, 512, 512, false, true, "out_proj S 128 D 512"},
      {512, 2048, 512, true, false, "FFN up S 512 D 512"}};
  std::printf("%d threads; fp32 FMA peak %.0f GFLOP/s (%s), measured in this run; GEMM: %s\n\n", all, peak.gflops,
              peak.isa.c_str(), attnlab::gemm_engines_description().c_str());
  std::printf("| product | threads | product µs | with epilogue µs | epilogue's cost µs | ns per element of C |"
              " epilogue again on warm C µs | ns per element |\n|---|---|---|---|---|---|---|---|\n");
  for (int round = 0; round < 2; ++round)
    for (const Case& s : cases) {
      row(s, 1);
      if (all > 1) row(s, all);
    }
}
