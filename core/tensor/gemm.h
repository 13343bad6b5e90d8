// The one place the model's matrix products are multiplied: row-major C (M, N) = op(A) · op(B),
// on the engine measured fastest (bench/gemm_engines, README "Which GEMM engine"): oneDNN from
// kLibraryFrom multiply-adds, Eigen below (a library call costs more than the product). A
// library product is split by rows or by columns between OpenMP's threads, each part one
// single-threaded call followed by the epilogue's work on that part (GemmEpilogue, below);
// a batch (the heads, ops.cpp's matmul) runs one product per thread. oneDNN (and OpenBLAS, the
// engine when oneDNN was not there at build time) pick their kernels for the CPU at run time, so
// a package built without -march=native multiplies as fast as a native build. Neither library:
// Eigen alone. ATTNLAB_GEMM=eigen|openblas|onednn forces one engine (tests, benchmarks).
//
// The naive reference every engine is tested against is naive::matmul (ops_naive.h).
#pragma once

#include <cstdint>
#include <string>
#include <string_view>

namespace attnlab {

// An operand in row-major storage: element (r, c) of op(X) is p[r·ld + c] when !trans, and
// p[c·ld + r] (X stored transposed) when trans.
struct GemmOperand {
  const float* p;
  bool trans;
  int64_t ld;
};

enum class GemmEngine { Auto, Eigen, OpenBlas, OneDnn };

// Work on C done after the product (a linear layer's bias, its ReLU, a residual connection). On
// oneDNN and OpenBLAS, by the thread that multiplied each part of C, while that part is warm and
// without a parallel region of its own; on Eigen (products under kLibraryFrom), one pass after
// the product over row blocks. C = op(A)·op(B) (+ C when accumulating), then + bias on every row, then
// max(0, ·) as relu() takes it, then + add (sub + x: the same sum as x + sub). The bias is added
// after the product's sums, not before them (as F.linear's documented x·Wᵀ + b); any order is
// within the goldens' bounds, and the traced and untraced paths share this one.
struct GemmEpilogue {
  const float* bias = nullptr;  // (n): added to every row of C
  bool relu = false;            // after the product (and before add)
  const float* add = nullptr;   // (m, n) with row stride add_ld, added last; may not overlap C
  int64_t add_ld = 0;
};

// Multiply-adds (M·N·K) below which a product is too small for a library call to pay (measured:
// README, "Which GEMM engine").
inline constexpr double kLibraryFrom = 1u << 17;  // 8 × 256 × 64 (a classroom FFN) and up

// c (m, n) = op(a) · op(b), or += when accumulate. Any engine; the result is the same product
// up to float32 rounding (each engine sums in its own order).
// engine: Auto = gemm_engine_for(m, n, k); a caller that decided already (a batch) passes it.
void sgemm(int64_t m, int64_t n, int64_t k, GemmOperand a, GemmOperand b, float* c, int64_t ldc,
           bool accumulate = false, GemmEngine engine = GemmEngine::Auto);
// The same with the epilogue's work on C after the product.
void sgemm(int64_t m, int64_t n, int64_t k, GemmOperand a, GemmOperand b, float* c, int64_t ldc,
           const GemmEpilogue& ep, bool accumulate = false, GemmEngine engine = GemmEngine::Auto);

// How a library product of C (m, n) = op(A) (m, k) · op(B) (k, n) is cut between `threads`
// threads: true by rows of C (each part re-packs the whole of op(B), K × N: a linear's weights),
// false by columns (each re-packs op(A), M × K: the activations).
//   InLayer (the default): by rows when op(B) is at most kRowsUpTo floats and every thread gets
//     16 rows or more. Every part then keeps whole rows of C and reads only its own rows of A, so
//     the layer's next step (the next linear, LayerNorm, the residual) finds its rows in the cache
//     of the core that wrote them: the D 256 layer 0.934 / 0.935 of its time at S 128 / 512 (README,
//     "Whole rows per core"). Otherwise as LongerSide.
//   LongerSide: columns when N > M (unless too few columns to cut), else rows — the faster cut for
//     a product whose operands are already in every core's cache (bench/gemm_split), and so how
//     attnlab bench times the layer's products alone (its yardstick).
enum class GemmCut { InLayer, LongerSide };
inline constexpr double kRowsUpTo = 1u << 18;  // K × N floats: 1 MiB, D 256's FFN weights
bool gemm_splits_by_rows(int64_t m, int64_t n, int64_t k, int threads, GemmCut cut = GemmCut::InLayer);

// How sgemm cuts a library product now: the current cut (below), OpenMP's threads (one inside a
// parallel region or under 2¹⁸ multiply-adds), at most one part per 16 rows (or columns).
struct GemmSplit {
  bool by_rows;
  int parts;
};
GemmSplit gemm_split_for(int64_t m, int64_t n, int64_t k);

// The cut sgemm uses from now on, process-wide (InLayer at start); ScopedGemmCut sets one for a
// scope (attnlab bench's products alone, the tests) and puts the one before back.
void set_gemm_cut(GemmCut cut);
GemmCut gemm_cut();
struct ScopedGemmCut {
  GemmCut before = gemm_cut();
  explicit ScopedGemmCut(GemmCut c) { set_gemm_cut(c); }
  ~ScopedGemmCut() { set_gemm_cut(before); }
  ScopedGemmCut(const ScopedGemmCut&) = delete;
  ScopedGemmCut& operator=(const ScopedGemmCut&) = delete;
};

// The engine a product of this size runs on now (what sgemm would do): the forced one, else the
// one measured fastest for its size.
GemmEngine gemm_engine_for(int64_t m, int64_t n, int64_t k);

// The forced engine (Auto: by size). Starts from ATTNLAB_GEMM; an engine not built in is Eigen.
void set_gemm_engine(GemmEngine e);
GemmEngine forced_gemm_engine();
bool gemm_engine_available(GemmEngine e);
GemmEngine parse_gemm_engine(std::string_view s);  // "auto" | "eigen" | "openblas" | "onednn"; throws ConfigError
std::string_view gemm_engine_name(GemmEngine e);
// "OpenBLAS 0.3.21 (Cooperlake kernels) + oneDNN 2.6 + Eigen 3.4.0", what bench and the manifest say.
std::string gemm_engines_description();

}  // namespace attnlab
