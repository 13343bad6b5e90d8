#include "tensor/row_kernels.h"

#include <algorithm>
#include <bit>
#include <cmath>
#include <limits>

namespace attnlab {

namespace {

constexpr float kNegInf = -std::numeric_limits<float>::infinity();

// The bodies, inlined into each variant below (a function without a target attribute may be
// inlined into one with it; the loops are then vectorised for that unit).
[[gnu::always_inline]] inline void layer_norm_body(const float* x, const float* w, const float* b, float* out,
                                                   int64_t d, double eps) {
  double sum = 0;
#pragma omp simd reduction(+ : sum)
  for (int64_t c = 0; c < d; ++c) sum += x[c];
  const double mean = sum / static_cast<double>(d);
  double sq = 0;
#pragma omp simd reduction(+ : sq)
  for (int64_t c = 0; c < d; ++c) {
    const double t = x[c] - mean;
    sq += t * t;
  }
  const double inv = 1.0 / std::sqrt(sq / static_cast<double>(d) + eps);  // biased, as PyTorch
#pragma omp simd
  for (int64_t c = 0; c < d; ++c) out[c] = static_cast<float>((x[c] - mean) * inv) * w[c] + b[c];
}

// v where keep, else +0, as a bit mask rather than a choice: GCC turns `c ? v : 0.0f` inside a
// longer loop body into a branch (each arm with its own store) that only AVX-512's masked stores
// vectorise — the AVX2 and baseline variants of the tiled attention's exponential ran one lane at
// a time (perf annotate, 2026-12-07). The && of two tests is & for the same reason.
[[gnu::always_inline]] inline float keep_if(float v, bool keep) {
  const uint32_t mask = keep ? 0xFFFFFFFFu : 0u;
  return std::bit_cast<float>(std::bit_cast<uint32_t>(v) & mask);
}

// e^x for x ≤ 0 (the softmax's x − max), branch-free so that the loop around it vectorises: x =
// n·ln 2 + g (n rounded by the 1.5·2²³ shifter, whose low mantissa bits then hold n; g by
// Cody–Waite's two-part ln 2), e^g = 1 + g + g²·P(g) on |g| ≤ ln 2 / 2 with P of degree 4 (a
// minimax fit of (e^g − 1 − g) / g², relative error 3·10⁻⁹ before rounding; within 0.99 ulp of
// e^x over [−87, 0] without FMA contraction, 1.02 with it, as Cephes' expf with its degree-5 P),
// and 2ⁿ built from the shifter's bits.
[[gnu::always_inline]] inline float exp_nonpositive(float x) {
  constexpr float kShifter = 12582912.0f;                    // 1.5·2²³
  const float t = x * 1.44269504088896341f + kShifter;       // its bits: the shifter's + n
  const float n = t - kShifter;                              // round(x / ln 2), exactly
  const float g = (x - n * 0.693359375f) - n * -2.12194440e-4f;
  float y = 1.381461276e-3f;
  y = y * g + 8.368710056e-3f;
  y = y * g + 4.166838899e-2f;
  y = y * g + 1.666652113e-1f;
  y = y * g + 4.999999404e-1f;
  y = y * g * g + g + 1.0f;
  // (shifter bits + n + 127) << 23: the shifter's bits shift out, leaving 2ⁿ's (n ≥ −126 below)
  const uint32_t two_n = (std::bit_cast<uint32_t>(t) + 127u) << 23;
  return keep_if(y * std::bit_cast<float>(two_n), !(x < -87.0f));  // below −87: +0 (NaN kept)
}

// x[i] ← e^(op(x[i]) − shift) in place, −∞ exactly 0; returns Σ of the new x. op is the identity
// for the softmax, the division by √Dh for the tiled attention's raw scores (the rounded quotient
// a separate division pass gave, so the same bits).
template <class Op>
[[gnu::always_inline]] inline float exp_sum_body(float* x, int64_t n, float shift, Op op) {
  float sum = 0;
#pragma omp simd reduction(+ : sum)
  for (int64_t i = 0; i < n; ++i) {
    const float v = op(x[i]);
    const float e = keep_if(exp_nonpositive(v - shift), v != kNegInf);
    x[i] = e;
    sum += e;
  }
  return sum;
}

[[gnu::always_inline]] inline float exp_scaled_sum_body(float* x, int64_t n, float divisor, float shift) {
  return exp_sum_body(x, n, shift, [divisor](float v) { return v / divisor; });
}

// The same with a multiplication: for a power-of-two divisor 2ᵏ, x · 2⁻ᵏ and x / 2ᵏ round the
// same real number, so the bits are the division's without its latency (a vector division costs
// about as much as the rest of the exponential).
[[gnu::always_inline]] inline float exp_multiplied_sum_body(float* x, int64_t n, float factor, float shift) {
  return exp_sum_body(x, n, shift, [factor](float v) { return v * factor; });
}

// Lane i's maximum over the keys [lo, hi) it sees: [a[i], e[i]) when Ranged, else all of them.
template <bool Ranged>
[[gnu::always_inline]] inline void columns_max(const float* st, int64_t ld, int64_t lo, int64_t hi, int64_t w,
                                               const int32_t* a, const int32_t* e, float* mx) {
  for (int64_t j = lo; j < hi; ++j) {
    const float* c = st + j * ld;
    const int32_t jj = static_cast<int32_t>(j);
#pragma omp simd
    for (int64_t i = 0; i < w; ++i) {
      const float ci = c[i];  // read whether seen or not: a conditional load keeps the baseline scalar
      const float v = !Ranged || ((jj >= a[i]) & (jj < e[i])) ? ci : kNegInf;
      mx[i] = v > mx[i] ? v : mx[i];
    }
  }
}

// st ← e^(op(st) − shift) over the keys [lo, hi) each lane sees, 0 where it does not; sum += it.
template <bool Ranged, class Op>
[[gnu::always_inline]] inline void columns_exp(float* st, int64_t ld, int64_t lo, int64_t hi, int64_t w,
                                               const int32_t* a, const int32_t* e, Op op, const float* shift,
                                               float* sum) {
  for (int64_t j = lo; j < hi; ++j) {
    float* c = st + j * ld;
    const int32_t jj = static_cast<int32_t>(j);
#pragma omp simd
    for (int64_t i = 0; i < w; ++i) {
      const float x = exp_nonpositive(op(c[i]) - shift[i]);  // −∞ (hidden by hand): below −87, exactly 0
      const float p = keep_if(x, !Ranged || ((jj >= a[i]) & (jj < e[i])));
      c[i] = p;
      sum[i] += p;
    }
  }
}

// The online softmax's step for w ≤ W query rows of a key block held as columns (b.st[j·b.rows +
// i]: key j, row i; see row_kernels.h), the rows from g on. Vectors run across the rows, so no
// maximum or sum is ever taken across a vector, and W = 64 lanes (four AVX-512 vectors) give the
// exponential's long dependent chain four independent ones per key. Each row's sum runs over its
// keys in order. Keys no row of the group sees are only zeroed; where the rows' ranges differ (a
// causal diagonal) each lane tests its own.
template <int64_t W, class Op>
[[gnu::always_inline]] inline void columns_step(const ColumnsBlock& b, int64_t g, int64_t w, Op op) {
  alignas(64) float mx[W], shift[W], sum[W];
  alignas(64) int32_t a[W], e[W];
  int64_t lo = b.n, hi = 0;
  for (int64_t i = 0; i < w; ++i) {
    a[i] = b.a ? b.a[g + i] : 0;
    e[i] = b.e ? b.e[g + i] : static_cast<int32_t>(b.n);
    lo = std::min<int64_t>(lo, a[i]);
    hi = std::max<int64_t>(hi, e[i]);
  }
  hi = std::max(lo, hi);
  bool uniform = true;  // every row of the group sees [lo, hi)
  for (int64_t i = 0; i < w; ++i) uniform = uniform && a[i] == lo && e[i] == hi;
  float* st = b.st + g;
  const int64_t ld = b.rows;
  for (int64_t j = 0; j < b.n; ++j) {
    if (j >= lo && j < hi) continue;
    float* c = st + j * ld;  // hidden from the whole group
#pragma omp simd
    for (int64_t i = 0; i < w; ++i) c[i] = 0.0f;
  }
  for (int64_t i = 0; i < W; ++i) mx[i] = kNegInf, sum[i] = 0.0f;
  if (uniform)
    columns_max<false>(st, ld, lo, hi, w, a, e, mx);
  else
    columns_max<true>(st, ld, lo, hi, w, a, e, mx);
  float* m = b.m + g;
  for (int64_t i = 0; i < w; ++i) {
    const float row_max = mx[i] == kNegInf ? kNegInf : op(mx[i]);  // the quotient of the maximum: monotonic
    if (row_max == kNegInf) {  // nothing visible in this block: the row keeps its m and l
      b.rescale[g + i] = 1.0f;
      shift[i] = 0.0f;  // −∞ − 0: every weight 0
      continue;
    }
    const float m_new = std::max(m[i], row_max);
    b.rescale[g + i] = m[i] == kNegInf ? 0.0f : std::exp(m[i] - m_new);
    m[i] = shift[i] = m_new;
  }
  if (uniform)
    columns_exp<false>(st, ld, lo, hi, w, a, e, op, shift, sum);
  else
    columns_exp<true>(st, ld, lo, hi, w, a, e, op, shift, sum);
  for (int64_t i = 0; i < w; ++i) b.l[g + i] = b.l[g + i] * b.rescale[g + i] + sum[i];
}

template <class Op>
[[gnu::always_inline]] inline void online_columns_body(const ColumnsBlock& b, Op op) {
  constexpr int64_t W = 64;
  int64_t g = 0;
  for (; g + W <= b.rows; g += W) columns_step<W>(b, g, W, op);  // a constant width
  if (g < b.rows) columns_step<W>(b, g, b.rows - g, op);
}

[[gnu::always_inline]] inline void online_columns_divided_body(const ColumnsBlock& b, float divisor) {
  online_columns_body(b, [divisor](float v) { return v / divisor; });
}

[[gnu::always_inline]] inline void online_columns_multiplied_body(const ColumnsBlock& b, float factor) {
  online_columns_body(b, [factor](float v) { return v * factor; });
}

[[gnu::always_inline]] inline void softmax_body(float* row, int64_t n) {
  float mx = kNegInf;
#pragma omp simd reduction(max : mx)
  for (int64_t i = 0; i < n; ++i) mx = row[i] > mx ? row[i] : mx;
  if (mx == kNegInf) {  // every key masked: 0/0, as PyTorch
#pragma omp simd
    for (int64_t i = 0; i < n; ++i) row[i] = std::numeric_limits<float>::quiet_NaN();
    return;
  }
  const float sum = exp_sum_body(row, n, mx, [](float v) { return v; });
#pragma omp simd
  for (int64_t i = 0; i < n; ++i) row[i] /= sum;
}

// IEEE binary16 → float, branch-free so that it vectorises: a normal number's exponent rebased
// (+112), ±∞ and NaN rebased to 255 (the mantissa, a NaN's payload, kept), a subnormal or zero
// as its integer mantissa · 2⁻²⁴ (exact in float), the sign put back last. The two choices are
// bit masks: written as `c ? x : y` GCC left the loop scalar in every variant.
[[gnu::always_inline]] inline void widen_f16_body(const uint16_t* src, float* dst, int64_t n) {
#pragma omp simd
  for (int64_t i = 0; i < n; ++i) {
    const uint32_t h = src[i], em = h & 0x7FFFu;
    const uint32_t inf_nan = 0u - static_cast<uint32_t>(em >= 0x7C00u);  // all ones for ±∞ and NaN
    const uint32_t bits = (em << 13) + 0x38000000u + (inf_nan & 0x38000000u);
    const float sub = static_cast<float>(static_cast<int32_t>(em)) * 5.9604644775390625e-8f;  // 2⁻²⁴
    const uint32_t small = 0u - static_cast<uint32_t>(em < 0x400u);  // all ones for subnormals and 0
    const uint32_t mag = (std::bit_cast<uint32_t>(sub) & small) | (bits & ~small);
    dst[i] = std::bit_cast<float>(mag | (h & 0x8000u) << 16);
  }
}

// Three loops over a row in L1, each one that vectorises: x < 0 ? 0 : x is max(0, x) with NaN
// and −0 passed through (maxps with its operands in that order), as cwiseMax(0) takes them.
[[gnu::always_inline]] inline void epilogue_body(float* row, int64_t n, const float* bias, bool relu,
                                                 const float* add) {
  if (bias) {
#pragma omp simd
    for (int64_t j = 0; j < n; ++j) row[j] = row[j] + bias[j];
  }
  if (relu) {
#pragma omp simd
    for (int64_t j = 0; j < n; ++j) row[j] = row[j] < 0.0f ? 0.0f : row[j];
  }
  if (add) {
#pragma omp simd
    for (int64_t j = 0; j < n; ++j) row[j] = row[j] + add[j];
  }
}

// bfloat16 is a float's upper half.
[[gnu::always_inline]] inline void widen_bf16_body(const uint16_t* src, float* dst, int64_t n) {
#pragma omp simd
  for (int64_t i = 0; i < n; ++i) dst[i] = std::bit_cast<float>(static_cast<uint32_t>(src[i]) << 16);
}

#define ATTNLAB_VARIANTS(RET, NAME, PARAMS, ARGS)                                                      \
  RET NAME##_default PARAMS { return NAME##_body ARGS; }                                                \
  [[gnu::target("avx2,fma")]] RET NAME##_avx2 PARAMS { return NAME##_body ARGS; }                       \
  [[gnu::target("avx512f,avx512vl,avx512dq,avx2,fma")]] RET NAME##_avx512 PARAMS { return NAME##_body ARGS; }

ATTNLAB_VARIANTS(void, layer_norm,
                 (const float* x, const float* w, const float* b, float* out, int64_t d, double eps),
                 (x, w, b, out, d, eps))
ATTNLAB_VARIANTS(void, softmax, (float* row, int64_t n), (row, n))
ATTNLAB_VARIANTS(void, epilogue, (float* row, int64_t n, const float* bias, bool relu, const float* add),
                 (row, n, bias, relu, add))
ATTNLAB_VARIANTS(void, widen_f16, (const uint16_t* src, float* dst, int64_t n), (src, dst, n))
ATTNLAB_VARIANTS(void, widen_bf16, (const uint16_t* src, float* dst, int64_t n), (src, dst, n))
ATTNLAB_VARIANTS(float, exp_scaled_sum, (float* x, int64_t n, float divisor, float shift), (x, n, divisor, shift))
ATTNLAB_VARIANTS(float, exp_multiplied_sum, (float* x, int64_t n, float factor, float shift), (x, n, factor, shift))
ATTNLAB_VARIANTS(void, online_columns_divided, (const ColumnsBlock& b, float divisor), (b, divisor))
ATTNLAB_VARIANTS(void, online_columns_multiplied, (const ColumnsBlock& b, float factor), (b, factor))
#undef ATTNLAB_VARIANTS

// Whether 1 / divisor is exact and x · (1 / divisor) rounds as x / divisor for every x: divisor a
// positive power of two (no mantissa bits, a normal exponent) whose reciprocal is a normal float.
bool reciprocal_is_exact(float divisor) {
  const uint32_t bits = std::bit_cast<uint32_t>(divisor), exponent = bits >> 23;
  return (bits & 0x807FFFFFu) == 0 && exponent >= 1 && exponent <= 253;
}

}  // namespace

// The call of NAME's variant for isa (each written by ATTNLAB_VARIANTS above).
#define ATTNLAB_DISPATCH(NAME, ARGS)                  \
  switch (isa) {                                      \
    case Isa::Avx512: return NAME##_avx512 ARGS;      \
    case Isa::Avx2: return NAME##_avx2 ARGS;          \
    case Isa::Default: break;                         \
  }                                                   \
  return NAME##_default ARGS

bool isa_supported(Isa isa) {
  __builtin_cpu_init();
  switch (isa) {
    case Isa::Default: return true;
    case Isa::Avx2: return __builtin_cpu_supports("avx2") && __builtin_cpu_supports("fma");
    case Isa::Avx512:
      return __builtin_cpu_supports("avx512f") && __builtin_cpu_supports("avx512vl") &&
             __builtin_cpu_supports("avx512dq") && isa_supported(Isa::Avx2);
  }
  return false;
}

Isa best_isa() {
  static const Isa best = isa_supported(Isa::Avx512) ? Isa::Avx512 : isa_supported(Isa::Avx2) ? Isa::Avx2 : Isa::Default;
  return best;
}

std::string_view isa_name(Isa isa) {
  switch (isa) {
    case Isa::Default: return "default";
    case Isa::Avx2: return "avx2";
    case Isa::Avx512: return "avx512";
  }
  return "?";
}

void layer_norm_row(Isa isa, const float* x, const float* w, const float* b, float* out, int64_t d, double eps) {
  ATTNLAB_DISPATCH(layer_norm, (x, w, b, out, d, eps));
}

float exp_scaled_sum(Isa isa, float* x, int64_t n, float divisor, float shift) {
  if (reciprocal_is_exact(divisor)) {  // √Dh for Dh 4, 16, 64, 256 …: the same bits, faster
    ATTNLAB_DISPATCH(exp_multiplied_sum, (x, n, 1.0f / divisor, shift));
  }
  ATTNLAB_DISPATCH(exp_scaled_sum, (x, n, divisor, shift));
}

void online_softmax_columns(Isa isa, const ColumnsBlock& b, float divisor) {
  if (reciprocal_is_exact(divisor)) {
    ATTNLAB_DISPATCH(online_columns_multiplied, (b, 1.0f / divisor));
  }
  ATTNLAB_DISPATCH(online_columns_divided, (b, divisor));
}

void softmax_row(Isa isa, float* row, int64_t n) {
  ATTNLAB_DISPATCH(softmax, (row, n));
}

void epilogue_row(Isa isa, float* row, int64_t n, const float* bias, bool relu, const float* add) {
  ATTNLAB_DISPATCH(epilogue, (row, n, bias, relu, add));
}

void widen_f16(Isa isa, const uint16_t* src, float* dst, int64_t n) {
  ATTNLAB_DISPATCH(widen_f16, (src, dst, n));
}

void widen_bf16(Isa isa, const uint16_t* src, float* dst, int64_t n) {
  ATTNLAB_DISPATCH(widen_bf16, (src, dst, n));
}

#undef ATTNLAB_DISPATCH

}  // namespace attnlab
