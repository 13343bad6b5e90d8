// The row-wise kernels of the fast path (LayerNorm and softmax over one row, the tiled attention's
// online-softmax step over one row or a block of rows, a linear's bias, ReLU and residual),
// compiled once per vector unit and chosen at run time for the CPU (issue 23): a package built
// without -march=native gets AVX-512 or AVX2 here as a native build does. Each variant is the
// same plain loop (vectorised by the compiler, `omp simd` for the reductions) under another
// target attribute; the tests run every variant this CPU supports against ops_naive.h or the
// definition. The unit is compiled for the x86-64 baseline in every build (core/CMakeLists.txt),
// so Default is the package's SSE2 code even in a native build.
//
// Shapes: one row of d (or n) floats, out may be x; online_softmax_columns a block (n, rows).
#pragma once

#include <cstdint>
#include <string_view>

namespace attnlab {

enum class Isa { Default, Avx2, Avx512 };  // x86-64 baseline (SSE2); AVX2 + FMA; AVX-512F

Isa best_isa();                   // the widest this CPU runs (__builtin_cpu_supports)
bool isa_supported(Isa isa);
std::string_view isa_name(Isa isa);  // "default" | "avx2" | "avx512"

// out = (x − mean) / √(var + eps) · w + b; mean and the biased variance summed in float64.
void layer_norm_row(Isa isa, const float* x, const float* w, const float* b, float* out, int64_t d, double eps);

// row ← softmax(row) in place: −∞ gives exactly 0, a row of only −∞ NaN (as PyTorch); the
// exponential is within 1.02 ulp of e^x (row_kernels.cpp; e^x below e^−87 is 0).
void softmax_row(Isa isa, float* row, int64_t n);

// x[i] ← e^(x[i] / divisor − shift), the quotient rounded to float first (bit for bit a division
// pass, then the exponential), −∞ exactly 0; returns Σ of the new x — the online softmax's step
// in the tiled attention (backend/tile_rows.h). divisor > 0, x[i] / divisor ≤ shift. A power-of-two
// divisor (√Dh for Dh = 4, 16, 64, 256) is applied as a multiplication by its exact reciprocal:
// the same correctly rounded quotient, without a vector division's cost.
float exp_scaled_sum(Isa isa, float* x, int64_t n, float divisor, float shift);

// The same step for a whole block of query rows at once (the tiled attention's forward), the
// block held as columns: st (n, rows) row-major, st[j·rows + i] the raw score of query row i with
// key j (the product K·Qᵀ). Row i sees the keys [a[i], e[i]) of the block (a, e null: every key)
// except where st is −∞ (a hand-drawn mask). Per row i, with x = st / divisor (rounded as
// exp_scaled_sum rounds it) and M its maximum over the keys it sees: m[i] ← max(m[i], M),
// rescale[i] ← e^(m_old − m_new) (0 when m_old was −∞), st ← e^(x − m[i]) where seen and exactly 0
// elsewhere, l[i] ← l[i]·rescale[i] + Σⱼ of the new st, summed over j in order. A row that sees
// nothing in the block keeps m and l, gets rescale 1 and weights 0. m, l, rescale: rows floats;
// divisor > 0; 0 ≤ a[i] ≤ e[i] ≤ n.
struct ColumnsBlock {
  float* st;
  int64_t n, rows;
  const int32_t* a;  // (rows) or null
  const int32_t* e;  // (rows) or null
  float *m, *l, *rescale;
};
void online_softmax_columns(Isa isa, const ColumnsBlock& b, float divisor);

// The work a linear does on one row of its output after the product (gemm.h's epilogue):
// row[j] ← row[j] + bias[j], then max(0, ·) when relu (NaN and −0 kept, as relu() and Eigen's
// cwiseMax(0)), then + add[j]; bias and add may be null. row may not overlap bias or add.
void epilogue_row(Isa isa, float* row, int64_t n, const float* bias, bool relu, const float* add);

// dst[i] ← the float that the 16-bit src[i] holds, exactly: IEEE binary16 (F16: subnormals, ±∞
// and NaN payloads kept) or bfloat16 (BF16: a float's upper 16 bits). A checkpoint's 16-bit
// weights are widened a tensor at a time with these when they are used (model/half_tensor.h).
void widen_f16(Isa isa, const uint16_t* src, float* dst, int64_t n);
void widen_bf16(Isa isa, const uint16_t* src, float* dst, int64_t n);

}  // namespace attnlab
