// Which GEMM engine for the model's products? (issue 23) Every candidate Debian 12 packages —
// Eigen (as this build compiles it), OpenBLAS (both threading builds), BLIS, oneDNN — on the
// shapes the model uses, side by side in one run with this machine's measured FMA peak; each
// result checked against a float64 product of the same inputs on a sample of rows.
//
//   cmake --preset bench && cmake --build build/bench --target gemm_engines
//   env -u OPENBLAS_CORETYPE -u OPENBLAS_L2_SIZE build/bench/bench/gemm_engines [--quick] [--dispatch]
//
// Without --dispatch: each library as its own authors run it (every thread on each product),
// opened at run time (dlopen, RTLD_LOCAL | RTLD_DEEPBIND) under its own name so that OpenBLAS's
// and BLIS's cblas_sgemm can sit in one process; a missing one is skipped. With --dispatch, in a
// process of its own (the library copies above would share OpenBLAS's thread setting with it):
// attnlab's sgemm (core/tensor/gemm.h) on each engine and on auto, as the model calls it.
// Output: a markdown table (ms median, GFLOP/s, % of peak, worst relative error).
#include <dlfcn.h>

#include <Eigen/Core>
#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstdio>
#include <cstring>
#include <ctime>
#include <functional>
#include <random>
#include <string>
#include <thread>
#include <vector>

#include "backend/cpu_peak.h"
#include "tensor/eigen_types.h"
#include "tensor/gemm.h"

namespace {

using RowMat = Eigen::Matrix<float, Eigen::Dynamic, Eigen::Dynamic, Eigen::RowMajor>;
using CMap = Eigen::Map<const RowMat, 0, Eigen::OuterStride<>>;
using MMap = Eigen::Map<RowMat, 0, Eigen::OuterStride<>>;

// C (M,N) = A (M,K) · op(B), row-major; op(B) = Bᵀ when b_t (B stored (N,K), as nn.Linear's
// weight and as K in Q·Kᵀ). `count` products at once: the heads of a (S, D) tensor, A, B and C
// each `step` floats apart (a head's columns), all in one call of the engine's loop.
struct Shape {
  std::string name;
  int m, n, k;
  bool b_t;
  int count = 1;   // heads
  int lda, ldb, ldc;
  int a_step = 0, b_step = 0, c_step = 0;
};

struct Engine {
  std::string name;
  // Runs every product of the shape.
  std::function<void(const Shape&, const float*, const float*, float*)> gemm;
};

using CblasSgemm = void (*)(int, int, int, int, int, int, float, const float*, int, const float*,
                            int, float, float*, int);
constexpr int kRowMajor = 101, kNoTrans = 111, kTrans = 112;

Engine cblas_engine(const std::string& name, CblasSgemm f) {
  return {name, [f](const Shape& s, const float* a, const float* b, float* c) {
            for (int h = 0; h < s.count; ++h)
              f(kRowMajor, kNoTrans, s.b_t ? kTrans : kNoTrans, s.m, s.n, s.k, 1.0f,
                a + h * s.a_step, s.lda, b + h * s.b_step, s.ldb, 0.0f, c + h * s.c_step, s.ldc);
          }};
}

Engine eigen_engine() {
  return {"Eigen " + attnlab::eigen_version(),
          [](const Shape& s, const float* a, const float* b, float* c) {
            for (int h = 0; h < s.count; ++h) {
              CMap A(a + h * s.a_step, s.m, s.k, Eigen::OuterStride<>(s.lda));
              MMap C(c + h * s.c_step, s.m, s.n, Eigen::OuterStride<>(s.ldc));
              if (s.b_t)
                C.noalias() = A * CMap(b + h * s.b_step, s.n, s.k, Eigen::OuterStride<>(s.ldb)).transpose();
              else
                C.noalias() = A * CMap(b + h * s.b_step, s.k, s.n, Eigen::OuterStride<>(s.ldb));
            }
          }};
}

// attnlab's own dispatch (core/tensor/gemm.h) on one engine, as the model calls it: a single
// product split between the threads, a batch of heads one product per thread.
Engine attnlab_engine(attnlab::GemmEngine e) {
  return {"attnlab sgemm: " + std::string(attnlab::gemm_engine_name(e)),
          [e](const Shape& s, const float* a, const float* b, float* c) {
            const attnlab::GemmEngine use = e == attnlab::GemmEngine::Auto ? attnlab::gemm_engine_for(s.m, s.n, s.k) : e;
            if (s.count == 1) {  // not inside a one-thread parallel region: Eigen's own team would be a nested one
              attnlab::sgemm(s.m, s.n, s.k, {a, false, s.lda}, {b, s.b_t, s.ldb}, c, s.ldc, false, use);
              return;
            }
#pragma omp parallel for
            for (int h = 0; h < s.count; ++h)
              attnlab::sgemm(s.m, s.n, s.k, {a + h * s.a_step, false, s.lda}, {b + h * s.b_step, s.b_t, s.ldb},
                             c + h * s.c_step, s.ldc, false, use);
          }};
}

void* open_lib(const char* path) { return dlopen(path, RTLD_NOW | RTLD_LOCAL | RTLD_DEEPBIND); }

std::vector<Engine> engines(int threads, bool dispatch) {
  if (dispatch) {
    std::vector<Engine> out;
    for (auto e : {attnlab::GemmEngine::Auto, attnlab::GemmEngine::Eigen, attnlab::GemmEngine::OpenBlas,
                   attnlab::GemmEngine::OneDnn})
      if (attnlab::gemm_engine_available(e)) out.push_back(attnlab_engine(e));
    return out;
  }
  std::vector<Engine> out{eigen_engine()};
  for (const char* variant : {"openblas-pthread", "openblas-openmp"}) {
    const std::string path = std::string("/usr/lib/x86_64-linux-gnu/") + variant + "/libopenblas.so.0";
    void* h = open_lib(path.c_str());
    if (!h) continue;
    auto set = reinterpret_cast<void (*)(int)>(dlsym(h, "openblas_set_num_threads"));
    auto core = reinterpret_cast<char* (*)()>(dlsym(h, "openblas_get_corename"));
    if (set) set(threads);
    out.push_back(cblas_engine(std::string("OpenBLAS ") + std::string(variant).substr(9) + " (" +
                                   (core ? core() : "?") + ")",
                               reinterpret_cast<CblasSgemm>(dlsym(h, "cblas_sgemm"))));
  }
  if (void* h = open_lib("libblis.so.4")) {
    auto set = reinterpret_cast<void (*)(long)>(dlsym(h, "bli_thread_set_num_threads"));
    auto id = reinterpret_cast<int (*)()>(dlsym(h, "bli_arch_query_id"));
    auto str = reinterpret_cast<const char* (*)(int)>(dlsym(h, "bli_arch_string"));
    if (set) set(threads);
    out.push_back(cblas_engine(std::string("BLIS (") + (id && str ? str(id()) : "?") + ")",
                               reinterpret_cast<CblasSgemm>(dlsym(h, "cblas_sgemm"))));
  }
  if (void* h = open_lib("libdnnl.so.2")) {
    using DnnlSgemm = int (*)(char, char, long, long, long, float, const float*, long, const float*,
                              long, float, float*, long);
    auto f = reinterpret_cast<DnnlSgemm>(dlsym(h, "dnnl_sgemm"));
    if (f)
      out.push_back({"oneDNN 2.6", [f](const Shape& s, const float* a, const float* b, float* c) {
                       for (int h = 0; h < s.count; ++h)
                         f('N', s.b_t ? 'T' : 'N', s.m, s.n, s.k, 1.0f, a + h * s.a_step, s.lda,
                           b + h * s.b_step, s.ldb, 0.0f, c + h * s.c_step, s.ldc);
                     }});
  }
  return out;
}

Shape linear(const std::string& name, int rows, int in, int out) {
  return {name, rows, out, in, true, 1, in, in, out};
}
// Per-head Q·Kᵀ of (S, D) tensors with H heads of D/H: (S, Dh) · (S, Dh)ᵀ → (H, S, S).
Shape scores(int s, int d, int h) {
  const int dh = d / h;
  return {"QKᵀ per head", s, s, dh, true, h, d, d, s, dh, dh, s * s};
}
// Per-head P·V: (S, S) · (S, Dh) → the heads' columns of (S, D).
Shape weighted(int s, int d, int h) {
  const int dh = d / h;
  return {"P·V per head", s, dh, s, false, h, s, d, d, s * s, dh, dh};
}

size_t extent(int rows, int ld, int count, int step) {
  return static_cast<size_t>(rows - 1) * ld + static_cast<size_t>(std::max(ld, 1)) +
         static_cast<size_t>(count - 1) * step + 1;
}

double median(std::vector<double> v) {
  std::sort(v.begin(), v.end());
  return v[v.size() / 2];
}

// The worst |c − ref| / (1e-30 + Σ|a·b|) over a sample of rows: rounding, relative to the sum of
// magnitudes (the bound every correct float32 GEMM keeps).
double worst_error(const Shape& s, const float* a, const float* b, const float* c) {
  double worst = 0;
  for (int h = 0; h < s.count; h += std::max(1, s.count / 2))
    for (int i = 0; i < s.m; i += std::max(1, s.m / 8))
      for (int j = 0; j < s.n; j += std::max(1, s.n / 64)) {
        double ref = 0, mag = 0;
        for (int p = 0; p < s.k; ++p) {
          const double x = a[h * s.a_step + i * s.lda + p];
          const double y = s.b_t ? b[h * s.b_step + j * s.ldb + p] : b[h * s.b_step + p * s.ldb + j];
          ref += x * y;
          mag += std::fabs(x * y);
        }
        worst = std::max(worst, std::fabs(c[h * s.c_step + i * s.ldc + j] - ref) / (1e-30 + mag));
      }
  return worst;
}

}  // namespace

int main(int argc, char** argv) {
  bool quick = false, dispatch = false;
  for (int i = 1; i < argc; ++i) {
    quick = quick || std::strcmp(argv[i], "--quick") == 0;
    dispatch = dispatch || std::strcmp(argv[i], "--dispatch") == 0;
  }
  const int threads = static_cast<int>(std::thread::hardware_concurrency());
  const attnlab::CpuPeak peak = attnlab::measure_cpu_peak(200);
  std::vector<Shape> shapes;
  const std::vector<std::pair<int, int>> grid =
      quick ? std::vector<std::pair<int, int>>{{8, 64}, {16, 64}, {32, 128}, {64, 256}, {512, 512}}
            : std::vector<std::pair<int, int>>{{16, 64}, {128, 256}, {128, 512}, {512, 512}, {512, 1024}, {2048, 1024}};
  for (auto [s, d] : grid) {
    const int h = std::max(1, d / 64);
    for (Shape sh : {linear("projection", s, d, d), linear("FFN up", s, d, 4 * d),
                     linear("FFN down", s, 4 * d, d), scores(s, d, h), weighted(s, d, h)}) {
      sh.name += " S " + std::to_string(s) + " D " + std::to_string(d);
      shapes.push_back(sh);
    }
  }
  auto list = engines(threads, dispatch);
  std::printf("%s UTC; fp32 FMA peak %.0f GFLOP/s (%s, %d threads), measured in this run; "
              "OPENBLAS_CORETYPE %s\n\n",
              [] { static char b[32]; std::time_t t = std::time(nullptr);
                   std::strftime(b, sizeof b, "%Y-%m-%d %H:%M", std::gmtime(&t)); return b; }(),
              peak.gflops, peak.isa.c_str(), peak.threads,
              std::getenv("OPENBLAS_CORETYPE") ? std::getenv("OPENBLAS_CORETYPE") : "unset");
  std::printf("| shape (M×N×K × heads) | engine | ms | GFLOP/s | %% of peak | worst rel. error |\n|---|---|---|---|---|---|\n");
  std::mt19937 gen(7);
  std::uniform_real_distribution<float> dist(-1.0f, 1.0f);
  for (const Shape& s : shapes) {
    std::vector<float> a(extent(s.m, s.lda, s.count, s.a_step)), b(extent(s.b_t ? s.n : s.k, s.ldb, s.count, s.b_step)),
        c(extent(s.m, s.ldc, s.count, s.c_step));
    for (float& x : a) x = dist(gen);
    for (float& x : b) x = dist(gen);
    const double flops = 2.0 * s.m * s.n * s.k * s.count;
    for (const Engine& e : list) {
      std::this_thread::sleep_for(std::chrono::milliseconds(150));  // other pools' spinning ends
      std::fill(c.begin(), c.end(), 0.0f);
      e.gemm(s, a.data(), b.data(), c.data());
      const double err = worst_error(s, a.data(), b.data(), c.data());
      std::vector<double> times;
      const auto start = std::chrono::steady_clock::now();
      while (times.size() < 7 || (times.size() < 200 &&
             std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count() < 0.4)) {
        const auto t0 = std::chrono::steady_clock::now();
        e.gemm(s, a.data(), b.data(), c.data());
        times.push_back(std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count());
      }
      const double t = median(times);
      std::printf("| %s (%d×%d×%d × %d) | %s | %.4f | %.1f | %.0f %% | %.1e |\n", s.name.c_str(), s.m,
                  s.n, s.k, s.count, e.name.c_str(), t * 1e3, flops / t / 1e9,
                  100 * flops / t / 1e9 / peak.gflops, err);
      std::fflush(stdout);
    }
  }
}
