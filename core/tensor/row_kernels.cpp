#include "tensor/row_kernels.h"

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
  return x < -87.0f ? 0.0f : y * std::bit_cast<float>(two_n);
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
    const float e = v == kNegInf ? 0.0f : exp_nonpositive(v - shift);
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
// as its integer mantissa · 2⁻²⁴ (exact in float), the sign put back last.
[[gnu::always_inline]] inline void widen_f16_body(const uint16_t* src, float* dst, int64_t n) {
#pragma omp simd
  for (int64_t i = 0; i < n; ++i) {
    const uint32_t h = src[i], em = h & 0x7FFFu;
    uint32_t bits = (em << 13) + 0x38000000u;
    bits = em >= 0x7C00u ? bits + 0x38000000u : bits;
    const float sub = static_cast<float>(static_cast<int32_t>(em)) * 5.9604644775390625e-8f;  // 2⁻²⁴
    const uint32_t mag = em < 0x400u ? std::bit_cast<uint32_t>(sub) : bits;
    dst[i] = std::bit_cast<float>(mag | (h & 0x8000u) << 16);
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
ATTNLAB_VARIANTS(void, widen_f16, (const uint16_t* src, float* dst, int64_t n), (src, dst, n))
ATTNLAB_VARIANTS(void, widen_bf16, (const uint16_t* src, float* dst, int64_t n), (src, dst, n))
ATTNLAB_VARIANTS(float, exp_scaled_sum, (float* x, int64_t n, float divisor, float shift), (x, n, divisor, shift))
ATTNLAB_VARIANTS(float, exp_multiplied_sum, (float* x, int64_t n, float factor, float shift), (x, n, factor, shift))
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

void softmax_row(Isa isa, float* row, int64_t n) {
  ATTNLAB_DISPATCH(softmax, (row, n));
}

void widen_f16(Isa isa, const uint16_t* src, float* dst, int64_t n) {
  ATTNLAB_DISPATCH(widen_f16, (src, dst, n));
}

void widen_bf16(Isa isa, const uint16_t* src, float* dst, int64_t n) {
  ATTNLAB_DISPATCH(widen_bf16, (src, dst, n));
}

#undef ATTNLAB_DISPATCH

}  // namespace attnlab
