#include "tensor/gemm.h"

#include <algorithm>
#include <atomic>
#include <cstdlib>
#include <new>
#include <string>

#include "tensor/eigen_types.h"
#include "tensor/parallel.h"
#include "tensor/row_kernels.h"
#include "text/errors.h"

#ifdef ATTNLAB_HAVE_OPENBLAS
#include <cblas.h>
#endif
#ifdef ATTNLAB_HAVE_ONEDNN
#include <oneapi/dnnl/dnnl.h>
#endif
#ifdef _OPENMP
#include <omp.h>
#endif

namespace attnlab {

namespace {

GemmEngine engine_from_env() {
  const char* v = std::getenv("ATTNLAB_GEMM");
  if (!v || !*v) return GemmEngine::Auto;
  try {
    const GemmEngine e = parse_gemm_engine(v);
    return gemm_engine_available(e) ? e : GemmEngine::Eigen;
  } catch (const ConfigError&) {
    return GemmEngine::Auto;  // an unknown name: as if unset (bench and the tests set it)
  }
}

std::atomic<GemmEngine>& forced() {
  static std::atomic<GemmEngine> e{engine_from_env()};
  return e;
}

// op(X) as an Eigen map: (rows, cols) row-major, or its transpose stored (cols, rows).
using ColMat = Eigen::Matrix<float, Eigen::Dynamic, Eigen::Dynamic, Eigen::ColMajor>;
using ConstColStrided = Eigen::Map<const ColMat, 0, Eigen::OuterStride<>>;

void eigen_gemm(int64_t m, int64_t n, int64_t k, GemmOperand a, GemmOperand b, float* c,
                int64_t ldc, bool accumulate) {
  StridedMap out(c, m, n, Eigen::OuterStride<>(ldc));
  // A transposed operand stored (cols, rows) row-major is a column-major (rows, cols) matrix.
  auto run = [&](const auto& am, const auto& bm) {
    if (accumulate)
      out.noalias() += am * bm;
    else
      out.noalias() = am * bm;
  };
  const Eigen::OuterStride<> sa(a.ld), sb(b.ld);
  if (!a.trans && !b.trans)
    run(ConstStridedMap(a.p, m, k, sa), ConstStridedMap(b.p, k, n, sb));
  else if (!a.trans)
    run(ConstStridedMap(a.p, m, k, sa), ConstColStrided(b.p, k, n, sb));
  else if (!b.trans)
    run(ConstColStrided(a.p, m, k, sa), ConstStridedMap(b.p, k, n, sb));
  else
    run(ConstColStrided(a.p, m, k, sa), ConstColStrided(b.p, k, n, sb));
}

// BLAS needs ld ≥ the stored row length (and ≥ 1); a view of a size-1 axis may carry any stride.
bool blas_layout(int64_t rows, int64_t cols, GemmOperand x) {
  return x.ld >= std::max<int64_t>(1, x.trans ? rows : cols);
}

}  // namespace

bool gemm_engine_available(GemmEngine e) {
  switch (e) {
    case GemmEngine::Auto:
    case GemmEngine::Eigen: return true;
#ifdef ATTNLAB_HAVE_OPENBLAS
    case GemmEngine::OpenBlas: return true;
#endif
#ifdef ATTNLAB_HAVE_ONEDNN
    case GemmEngine::OneDnn: return true;
#endif
    default: return false;
  }
}

void set_gemm_engine(GemmEngine e) { forced() = gemm_engine_available(e) ? e : GemmEngine::Eigen; }
GemmEngine forced_gemm_engine() { return forced(); }

GemmEngine parse_gemm_engine(std::string_view s) {
  if (s == "auto") return GemmEngine::Auto;
  if (s == "eigen") return GemmEngine::Eigen;
  if (s == "openblas") return GemmEngine::OpenBlas;
  if (s == "onednn") return GemmEngine::OneDnn;
  throw ConfigError(verbatim("ATTNLAB_GEMM: ") + Text(Msg::not_one_of, s, "auto, eigen, openblas, onednn"));
}

std::string_view gemm_engine_name(GemmEngine e) {
  switch (e) {
    case GemmEngine::Auto: return "auto";
    case GemmEngine::Eigen: return "eigen";
    case GemmEngine::OpenBlas: return "openblas";
    case GemmEngine::OneDnn: return "onednn";
  }
  return "?";
}

std::string gemm_engines_description() {
  std::string out;
#ifdef ATTNLAB_HAVE_OPENBLAS
  out += std::string("OpenBLAS (") + openblas_get_corename() + " kernels) + ";
#endif
#ifdef ATTNLAB_HAVE_ONEDNN
  const dnnl_version_t* v = dnnl_version();
  out += "oneDNN " + std::to_string(v->major) + "." + std::to_string(v->minor) + " + ";
#endif
  out += "Eigen " + eigen_version();
  const GemmEngine f = forced();
  if (f != GemmEngine::Auto) out += " (ATTNLAB_GEMM=" + std::string(gemm_engine_name(f)) + ")";
  return out;
}

GemmEngine gemm_engine_for(int64_t m, int64_t n, int64_t k) {
  const GemmEngine f = forced();
  if (f != GemmEngine::Auto) return f;
  const double macs = static_cast<double>(m) * static_cast<double>(n) * static_cast<double>(k);
  if (macs < kLibraryFrom) return GemmEngine::Eigen;
  if (gemm_engine_available(GemmEngine::OneDnn)) return GemmEngine::OneDnn;
  return gemm_engine_available(GemmEngine::OpenBlas) ? GemmEngine::OpenBlas : GemmEngine::Eigen;
}

namespace {

// One product on this thread alone. false: the library refused (oneDNN out of memory).
// (Every parameter but e is unused in a build with neither library: hence [[maybe_unused]].)
bool library_gemm(GemmEngine e, [[maybe_unused]] int64_t m, [[maybe_unused]] int64_t n, [[maybe_unused]] int64_t k,
                  [[maybe_unused]] GemmOperand a, [[maybe_unused]] GemmOperand b, [[maybe_unused]] float* c,
                  [[maybe_unused]] int64_t ldc, [[maybe_unused]] float beta) {
  switch (e) {
#ifdef ATTNLAB_HAVE_OPENBLAS
    case GemmEngine::OpenBlas:
      cblas_sgemm(CblasRowMajor, a.trans ? CblasTrans : CblasNoTrans, b.trans ? CblasTrans : CblasNoTrans,
                  static_cast<blasint>(m), static_cast<blasint>(n), static_cast<blasint>(k), 1.0f, a.p,
                  static_cast<blasint>(a.ld), b.p, static_cast<blasint>(b.ld), beta, c, static_cast<blasint>(ldc));
      return true;
#endif
#ifdef ATTNLAB_HAVE_ONEDNN
    case GemmEngine::OneDnn:
      return dnnl_sgemm(a.trans ? 'T' : 'N', b.trans ? 'T' : 'N', m, n, k, 1.0f, a.p, a.ld, b.p, b.ld, beta, c,
                        ldc) == dnnl_success;
#endif
    default: return false;
  }
}

// The first rows (or columns) of a part: part t of `count` over `size`, in blocks of 16.
int64_t part_start(int64_t size, int t, int count) {
  const int64_t blocks = (size + 15) / 16;
  return std::min(size, blocks * t / count * 16);
}

// The epilogue (gemm.h) on the block of C at rows r0…r1, columns c0…c1: row by row, with the
// kernel compiled for this CPU's vector unit (row_kernels.h).
void finish_block(const GemmEpilogue& ep, float* c, int64_t ldc, int64_t r0, int64_t r1, int64_t c0, int64_t c1) {
  if (!ep.bias && !ep.relu && !ep.add) return;
  const Isa isa = best_isa();  // the widest unit this CPU runs, in a package build too
  for (int64_t r = r0; r < r1; ++r)
    epilogue_row(isa, c + r * ldc + c0, c1 - c0, ep.bias ? ep.bias + c0 : nullptr, ep.relu,
                 ep.add ? ep.add + r * ep.add_ld + c0 : nullptr);
}

// One part of C (rows r0…r1, columns c0…c1) multiplied by the library on this thread, with the
// epilogue's work on that part after it. false: the library refused.
bool library_part(GemmEngine e, int64_t k, GemmOperand a, GemmOperand b, float* c, int64_t ldc, float beta,
                  const GemmEpilogue& ep, int64_t r0, int64_t r1, int64_t c0, int64_t c1) {
  const GemmOperand ap{a.p + (a.trans ? r0 : r0 * a.ld), a.trans, a.ld};  // rows r0… of op(A)
  const GemmOperand bp{b.p + (b.trans ? c0 * b.ld : c0), b.trans, b.ld};  // columns c0… of op(B)
  if (!library_gemm(e, r1 - r0, c1 - c0, k, ap, bp, c + r0 * ldc + c0, ldc, beta)) return false;
  finish_block(ep, c, ldc, r0, r1, c0, c1);
  return true;
}

}  // namespace

// A part re-packs the whole of the operand the split does not cut: rows re-read op(B) (K × N) per
// thread, columns op(A) (M × K). On inputs already in both cores' caches the longer side of C is
// the faster cut (columns when N > M: 4–22 % at S 128–512 × D 512–1024, bench/gemm_split). In the
// layer, A was just written by the cores that cut the step before by rows (LayerNorm, the previous
// linear): cut by columns, each part reads the other core's half of A, and leaves each row of C
// split between the cores for the next step. So by rows wherever the weights re-packed per part
// are small (gemm.h: kRowsUpTo) — and there are rows enough for every thread (a many-core CPU at
// S 128 would otherwise leave threads idle that the columns keep busy).
bool gemm_splits_by_rows(int64_t m, int64_t n, int64_t k, int threads, GemmCut cut) {
  const bool longer_side = m >= n || n < 16 * int64_t{threads};
  const bool small_weights = double(k) * double(n) <= kRowsUpTo && m >= 16 * int64_t{threads};
  return (cut == GemmCut::InLayer && small_weights) || longer_side;
}

namespace {
std::atomic<GemmCut>& current_cut() {
  static std::atomic<GemmCut> c{GemmCut::InLayer};
  return c;
}
}  // namespace

void set_gemm_cut(GemmCut cut) { current_cut() = cut; }
GemmCut gemm_cut() { return current_cut(); }

GemmSplit gemm_split_for(int64_t m, int64_t n, int64_t k) {
  int threads = 1;
#ifdef _OPENMP
  // Waking a second thread costs microseconds: worth it from about 2¹⁸ multiply-adds.
  if (!omp_in_parallel() && double(m) * double(n) * double(k) >= double(1 << 18)) threads = omp_get_max_threads();
#endif
  const bool by_rows = gemm_splits_by_rows(m, n, k, threads, gemm_cut());
  return {by_rows, static_cast<int>(std::max<int64_t>(1, std::min<int64_t>(threads, ((by_rows ? m : n) + 15) / 16)))};
}

namespace {

// The library on every thread of ours: C split between them by rows or by columns
// (gemm_split_for), each part one single-threaded call with the epilogue after it. OpenBLAS runs
// one thread per call (its own pool would spin beside OpenMP's between calls and slow both) and
// oneDNN, called inside a parallel region, one as well: the threads are OpenMP's alone.
bool split_library_gemm(GemmEngine e, int64_t m, int64_t n, int64_t k, GemmOperand a, GemmOperand b, float* c,
                        int64_t ldc, float beta, const GemmEpilogue& ep) {
  const GemmSplit split = gemm_split_for(m, n, k);
  const bool by_rows = split.by_rows;
  const int threads = split.parts;
  if (threads <= 1) return library_part(e, k, a, b, c, ldc, beta, ep, 0, m, 0, n);
  bool ok = true;
#pragma omp parallel num_threads(threads) reduction(&& : ok)
  {
#ifdef _OPENMP
    const int t = omp_get_thread_num(), count = omp_get_num_threads();
#else
    const int t = 0, count = 1;
#endif
    const int64_t size = by_rows ? m : n, lo = part_start(size, t, count), hi = part_start(size, t + 1, count);
    if (hi > lo)
      ok = by_rows ? library_part(e, k, a, b, c, ldc, beta, ep, lo, hi, 0, n)
                   : library_part(e, k, a, b, c, ldc, beta, ep, 0, m, lo, hi);
  }
  return ok;
}

// Eigen multiplies on its own threads; the epilogue after it, over row blocks (parallel.h).
void eigen_with_epilogue(int64_t m, int64_t n, int64_t k, GemmOperand a, GemmOperand b, float* c, int64_t ldc,
                         bool accumulate, const GemmEpilogue& ep) {
  eigen_gemm(m, n, k, a, b, c, ldc, accumulate);
  if (ep.bias || ep.relu || ep.add)
    row_blocks(m, n, [&](int64_t r0, int64_t rows) { finish_block(ep, c, ldc, r0, r0 + rows, 0, n); });
}

void library_threads_once() {
#ifdef ATTNLAB_HAVE_OPENBLAS
  // The pthread build keeps a pool of its own: one thread per call, so that pool never spins
  // beside OpenMP's. The OpenMP build is single-threaded inside our parallel region already, and
  // its openblas_set_num_threads would set OpenMP's thread count for the whole program.
  static const bool once = [] {
    if (openblas_get_parallel() == 1) openblas_set_num_threads(1);
    return true;
  }();
  (void)once;
#endif
}

}  // namespace

void sgemm(int64_t m, int64_t n, int64_t k, GemmOperand a, GemmOperand b, float* c, int64_t ldc,
           const GemmEpilogue& ep, bool accumulate, GemmEngine engine) {
  if (m == 0 || n == 0) return;
  GemmEngine e = engine == GemmEngine::Auto ? gemm_engine_for(m, n, k) : engine;
  if (k == 0 || !blas_layout(m, k, a) || !blas_layout(k, n, b) || ldc < n) e = GemmEngine::Eigen;
  if (e != GemmEngine::Eigen) {
    library_threads_once();
    // oneDNN refuses only when it cannot allocate its packing buffers; some parts may be done.
    if (!split_library_gemm(e, m, n, k, a, b, c, ldc, accumulate ? 1.0f : 0.0f, ep)) throw std::bad_alloc();
    return;
  }
  eigen_with_epilogue(m, n, k, a, b, c, ldc, accumulate, ep);
}

void sgemm(int64_t m, int64_t n, int64_t k, GemmOperand a, GemmOperand b, float* c, int64_t ldc,
           bool accumulate, GemmEngine engine) {
  sgemm(m, n, k, a, b, c, ldc, GemmEpilogue{}, accumulate, engine);
}

}  // namespace attnlab
