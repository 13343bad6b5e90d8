#include "backend/cpu_peak.h"

#include <immintrin.h>

#include <algorithm>
#include <chrono>
#include <cstdint>
#include <vector>

#ifdef _OPENMP
#include <omp.h>
#endif

#include "tensor/parallel.h"
#include "tensor/row_kernels.h"

namespace attnlab {

namespace {

// Each kernel runs `iters` rounds of 12 independent FMAs on full vectors and returns a value
// that depends on every chain (so the compiler keeps them). FLOPs = iters · 12 · lanes · 2.
constexpr int kChains = 12;

// Twelve named accumulators, not an array: at -O2 g++ keeps an array of vectors in memory, and
// the loop then measures store-to-load forwarding instead of the FMA units.
#define ATTNLAB_TWELVE(OP) OP(0) OP(1) OP(2) OP(3) OP(4) OP(5) OP(6) OP(7) OP(8) OP(9) OP(10) OP(11)

// One kernel per vector unit with the same body (intrinsics differ by name only; a shared
// template would need the target attribute on every helper it inlines).
__attribute__((target("avx512f"))) float fma_avx512(int64_t iters) {
#define INIT(c) __m512 acc##c = _mm512_set1_ps(1.0f + 0.001f * c);
  ATTNLAB_TWELVE(INIT)
#undef INIT
  const __m512 a = _mm512_set1_ps(0.999999f), b = _mm512_set1_ps(1e-7f);
  for (int64_t i = 0; i < iters; ++i) {
#define STEP(c) acc##c = _mm512_fmadd_ps(acc##c, a, b);
    ATTNLAB_TWELVE(STEP)
#undef STEP
  }
  __m512 s = _mm512_setzero_ps();
#define SUM(c) s = _mm512_add_ps(s, acc##c);
  ATTNLAB_TWELVE(SUM)
#undef SUM
  alignas(64) float out[16];  // not _mm512_reduce_add_ps: g++ 12 warns inside it
  _mm512_store_ps(out, s);
  float r = 0;
  for (float v : out) r += v;
  return r;
}

__attribute__((target("avx2,fma"))) float fma_avx2(int64_t iters) {
#define INIT(c) __m256 acc##c = _mm256_set1_ps(1.0f + 0.001f * c);
  ATTNLAB_TWELVE(INIT)
#undef INIT
  const __m256 a = _mm256_set1_ps(0.999999f), b = _mm256_set1_ps(1e-7f);
  for (int64_t i = 0; i < iters; ++i) {
#define STEP(c) acc##c = _mm256_fmadd_ps(acc##c, a, b);
    ATTNLAB_TWELVE(STEP)
#undef STEP
  }
  __m256 s = _mm256_setzero_ps();
#define SUM(c) s = _mm256_add_ps(s, acc##c);
  ATTNLAB_TWELVE(SUM)
#undef SUM
  alignas(64) float out[8];  // not _mm512_reduce_add_ps: g++ 12 warns inside it
  _mm256_store_ps(out, s);
  float r = 0;
  for (float v : out) r += v;
  return r;
}

// No FMA: a multiply and an add per lane, counted as 2 FLOPs like the FMA.
float mul_add_sse2(int64_t iters) {
#define INIT(c) __m128 acc##c = _mm_set1_ps(1.0f + 0.001f * c);
  ATTNLAB_TWELVE(INIT)
#undef INIT
  const __m128 a = _mm_set1_ps(0.999999f), b = _mm_set1_ps(1e-7f);
  for (int64_t i = 0; i < iters; ++i) {
#define STEP(c) acc##c = _mm_add_ps(_mm_mul_ps(acc##c, a), b);
    ATTNLAB_TWELVE(STEP)
#undef STEP
  }
  __m128 s = _mm_setzero_ps();
#define SUM(c) s = _mm_add_ps(s, acc##c);
  ATTNLAB_TWELVE(SUM)
#undef SUM
  alignas(64) float out[4];  // not _mm512_reduce_add_ps: g++ 12 warns inside it
  _mm_store_ps(out, s);
  float r = 0;
  for (float v : out) r += v;
  return r;
}

struct Kernel {
  float (*run)(int64_t);
  int lanes;
};

// The unit the row kernels run on (row_kernels.h decides for the whole program).
Kernel widest_kernel() {
  switch (best_isa()) {
    case Isa::Avx512: return {fma_avx512, 16};
    case Isa::Avx2: return {fma_avx2, 8};
    case Isa::Default: break;
  }
  return {mul_add_sse2, 4};
}

// Seconds for every thread to run `iters` rounds at once (the slowest thread's time).
double timed_round(const Kernel& k, int64_t iters, [[maybe_unused]] int threads, volatile float* sink) {  // unused without OpenMP
  const auto t0 = std::chrono::steady_clock::now();
#pragma omp parallel num_threads(threads)
  {
    const float v = k.run(iters);
#ifdef _OPENMP
    sink[omp_get_thread_num()] = v;
#else
    sink[0] = v;
#endif
  }
  return std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
}

}  // namespace

std::string widest_fma_isa() {
  const Kernel k = widest_kernel();
  return k.lanes == 16 ? "avx512f" : k.lanes == 8 ? "avx2+fma" : "sse2";
}

CpuPeak measure_cpu_peak(double ms) {
  const Kernel k = widest_kernel();
  const int threads = parallel_threads();
  std::vector<float> sink(static_cast<size_t>(threads));
  // Size one repeat at about a tenth of the budget from a short calibration round.
  int64_t iters = 20000;
  double t = timed_round(k, iters, threads, sink.data());
  const double per_repeat = std::max(ms / 10.0, 1.0) * 1e-3;
  iters = std::max<int64_t>(iters, static_cast<int64_t>(iters * per_repeat / std::max(t, 1e-6)));
  double best = 1e30;
  const auto start = std::chrono::steady_clock::now();
  for (int rep = 0; rep < 20; ++rep) {
    best = std::min(best, timed_round(k, iters, threads, sink.data()));
    if (std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count() * 1e3 > ms &&
        rep >= 2)
      break;
  }
  const double flops = static_cast<double>(iters) * kChains * k.lanes * 2.0 * threads;
  return {flops / best / 1e9, threads, widest_fma_isa()};
}

}  // namespace attnlab
