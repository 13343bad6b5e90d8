// The row kernels compiled per vector unit (core/tensor/row_kernels.h): every variant this CPU
// runs against a float64 computation of the same row, the masked cases PyTorch defines, and the
// fast ops that use them (layer_norm, softmax_lastdim) against ops_naive.h; the 16-bit widening
// of every F16 and BF16 bit pattern against the formats' definitions (IEEE 754 binary16; bfloat16);
// a linear's epilogue (bias, ReLU, residual) against its definition and relu().
#include <QtTest>

#include <algorithm>
#include <array>
#include <bit>
#include <cmath>
#include <limits>
#include <vector>

#include "random_tensor.h"
#include "tensor/ops.h"
#include "tensor/ops_naive.h"
#include "tensor/row_kernels.h"

using namespace attnlab;

namespace {

constexpr float kNegInf = -std::numeric_limits<float>::infinity();

std::vector<Isa> variants() {
  std::vector<Isa> out;
  for (Isa i : {Isa::Default, Isa::Avx2, Isa::Avx512})
    if (isa_supported(i)) out.push_back(i);
  return out;
}

std::vector<float> randoms(int64_t n, const char* name, float scale) {
  return test::random_tensor({n}, name, scale).to_vector();
}

const char* name(Isa i) { return isa_name(i).data(); }

// Row i of an online_softmax_columns block against the definition (see the test): st0 and m0, l0 before,
// st, m, l and rescale after; the row sees keys [a, e) except where st0 is −∞.
void checkColumn(const QString& where, const std::vector<float>& st0, const std::vector<float>& st, int64_t rows,
                 int64_t n, int64_t i, int32_t a, int32_t e, float divisor, float m0, float l0, float m, float l,
                 float rescale) {
  const auto at = [&](int64_t j) { return size_t(j * rows + i); };
  const auto seen = [&](int64_t j) { return j >= a && j < e && st0[at(j)] != -std::numeric_limits<float>::infinity(); };
  float most = -std::numeric_limits<float>::infinity();
  for (int64_t j = 0; j < n; ++j)
    if (seen(j)) most = std::max(most, st0[at(j)] / divisor);
  if (most == -std::numeric_limits<float>::infinity()) {  // nothing seen: m and l kept, no rescale, every weight 0
    QVERIFY2(m == m0 && l == l0 && rescale == 1.0f, qPrintable(where));
    for (int64_t j = 0; j < n; ++j) QVERIFY2(st[at(j)] == 0.0f, qPrintable(where));
    return;
  }
  const float m_new = std::max(m0, most);
  QVERIFY2(m == m_new, qPrintable(where));
  const double want_rescale = m0 == -std::numeric_limits<float>::infinity() ? 0.0 : std::exp(double(m0 - m_new));
  // (+1e-38: a factor below float's normal range, e^−237 at ÷0.125, rounds to 0 or a subnormal)
  QVERIFY2(std::fabs(rescale - want_rescale) <= std::ldexp(want_rescale, -23) + 1e-38, qPrintable(where));
  double sum = 0;
  for (int64_t j = 0; j < n; ++j) {
    if (!seen(j)) {
      QVERIFY2(st[at(j)] == 0.0f, qPrintable(where + QString(", hidden key %1: %2").arg(j).arg(st[at(j)])));
      continue;
    }
    const float arg = st0[at(j)] / divisor - m_new;
    const double want = arg < -87.0f ? 0.0 : std::exp(double(arg));  // e^x below e^−87 is 0 (row_kernels.h)
    sum += want;
    QVERIFY2(std::fabs(st[at(j)] - want) <= 3 * std::ldexp(want, -24) + 1e-38,
             qPrintable(where + QString(", key %1: %2 against %3").arg(j).arg(st[at(j)]).arg(want)));
  }
  const double want_l = double(l0) * want_rescale + sum;
  QVERIFY2(std::fabs(l - want_l) <= (n + 6) * std::ldexp(want_l, -24), qPrintable(where));
}

// The value a 16-bit float with `exp_bits` exponent bits and `man_bits` mantissa bits holds, from
// the definition: (−1)ˢ · 2^(e − bias) · (1 + m / 2^man_bits), subnormal 2^(1 − bias) · m / 2^man_bits.
double definition(uint16_t h, int exp_bits, int man_bits) {
  const int bias = (1 << (exp_bits - 1)) - 1;
  const uint32_t m = h & ((1u << man_bits) - 1), e = (h >> man_bits) & ((1u << exp_bits) - 1);
  const double sign = (h & 0x8000u) ? -1.0 : 1.0, frac = double(m) / double(1u << man_bits);
  if (e == (1u << exp_bits) - 1) return m ? std::numeric_limits<double>::quiet_NaN() : sign * INFINITY;
  if (e == 0) return sign * std::ldexp(frac, 1 - bias);
  return sign * std::ldexp(1.0 + frac, int(e) - bias);
}

// Every bit pattern (an odd count after it, so the vector loops' tails run too) widened by `widen`.
template <class Widen>
void checkEveryPattern(Widen widen, int exp_bits, int man_bits) {
  std::vector<uint16_t> all(65536 + 3);
  for (size_t i = 0; i < all.size(); ++i) all[i] = static_cast<uint16_t>(i * 40503u);  // a permutation
  for (uint32_t i = 0; i < 65536; ++i) all[i] = static_cast<uint16_t>(i);
  for (Isa isa : variants()) {
    std::vector<float> out(all.size(), -7.0f);
    widen(isa, all.data(), out.data(), static_cast<int64_t>(all.size()));
    for (size_t i = 0; i < all.size(); ++i) {
      const double want = definition(all[i], exp_bits, man_bits);
      if (std::isnan(want)) {  // a NaN keeps its sign and payload in the float's top bits
        const uint32_t bits = std::bit_cast<uint32_t>(out[i]);
        const uint32_t payload = (bits >> (23 - man_bits)) & ((1u << man_bits) - 1);
        QVERIFY2(std::isnan(out[i]) && (bits >> 31) == (all[i] >> 15u) && payload == (all[i] & ((1u << man_bits) - 1)),
                 qPrintable(QString("%1 0x%2").arg(name(isa)).arg(all[i], 4, 16, QChar('0'))));
      } else {
        QVERIFY2(double(out[i]) == want && std::signbit(out[i]) == std::signbit(want),
                 qPrintable(QString("%1 0x%2: %3, want %4").arg(name(isa)).arg(all[i], 4, 16, QChar('0')).arg(out[i]).arg(want)));
      }
    }
  }
}

// Every 1009th float of [−87, 0], from −0 down: the exponential's whole range, sampled (1.1 M).
std::vector<float> sampled_nonpositive() {
  std::vector<float> xs;
  for (uint32_t b = 0x80000000u; std::bit_cast<float>(b) >= -87.0f; b += 1009) xs.push_back(std::bit_cast<float>(b));
  return xs;
}

// Whether this test's own code, built with the flags of the library's native units (the same
// optimisation level, -march=native), fuses a·b + c into one multiply-add: (1 + 2⁻¹²)² rounded
// to float is 1 + 2⁻¹¹ (a tie, to even), so the separately rounded sum below is 0 and the fused
// one 2⁻²⁴. The operands are read through volatile so that nothing is folded at compile time.
[[gnu::noinline]] bool buildFusesMultiplyAdds() {
  volatile float va = 1.0f + 0x1p-12f, vc = -(1.0f + 0x1p-11f);
  const float a = va, c = vc;
  return a * a + c != 0.0f;
}

}  // namespace

class TestRowKernels : public QObject {
  Q_OBJECT
 private slots:
  void bestIsSupported() {
    QVERIFY(isa_supported(best_isa()));
    QVERIFY(isa_supported(Isa::Default));
  }

  void layerNormEveryVariant_data() {
    QTest::addColumn<int>("d");
    QTest::addColumn<float>("offset");
    for (int d : {1, 7, 64, 513}) {
      QTest::addRow("d %d", d) << d << 0.0f;
      QTest::addRow("d %d, offset 1000", d) << d << 1000.0f;  // mean far from 0: the float64 sums matter
    }
  }
  void layerNormEveryVariant() {
    QFETCH(int, d);
    QFETCH(float, offset);
    std::vector<float> x = randoms(d, "x", 3.0f), w = randoms(d, "w", 1.0f), b = randoms(d, "b", 1.0f);
    for (float& v : x) v += offset;
    double mean = 0, var = 0;
    for (float v : x) mean += v;
    mean /= d;
    for (float v : x) var += (v - mean) * (v - mean);
    const double inv = 1.0 / std::sqrt(var / d + 1e-5);
    for (Isa isa : variants()) {
      std::vector<float> out(static_cast<size_t>(d));
      layer_norm_row(isa, x.data(), w.data(), b.data(), out.data(), d, 1e-5);
      for (int c = 0; c < d; ++c) {
        const double want = (x[c] - mean) * inv * w[c] + b[c];
        QVERIFY2(std::fabs(out[c] - want) <= 1e-5 * (1 + std::fabs(want)), name(isa));
      }
    }
  }

  void softmaxEveryVariant_data() {
    QTest::addColumn<int>("n");
    QTest::addColumn<float>("scale");
    for (int n : {1, 7, 64, 1000}) {
      QTest::addRow("n %d", n) << n << 1.0f;
      QTest::addRow("n %d, scale 30", n) << n << 30.0f;  // e^x down to the underflow end
    }
  }
  void softmaxEveryVariant() {
    QFETCH(int, n);
    QFETCH(float, scale);
    std::vector<float> x = randoms(n, "scores", scale);
    if (n > 2) x[1] = kNegInf;  // a masked key
    double mx = -1e300, sum = 0;
    for (float v : x) mx = std::max(mx, double(v));
    std::vector<double> want(x.size());
    // x − max rounded to float first, as the kernel (and PyTorch) computes it; then float64.
    for (size_t i = 0; i < x.size(); ++i) sum += (want[i] = std::exp(double(x[i] - static_cast<float>(mx))));
    for (Isa isa : variants()) {
      std::vector<float> row = x;
      softmax_row(isa, row.data(), n);
      double total = 0;
      for (size_t i = 0; i < row.size(); ++i) {
        total += row[i];
        const double p = want[i] / sum;
        // The float sum of n terms in any order: at most (n − 1)·2⁻²⁴ relative; the exponential and
        // the division a few ulps more (the exponential alone is held to 3 ulps below); what
        // it flushes (e^x < e^−87) is below 1e-37.
        QVERIFY2(std::fabs(row[i] - p) <= (n + 4) * std::ldexp(1.0, -24) * p + 1e-37, qPrintable(QString("%1: p[%2] = %3, float64 %4")
                                                                         .arg(name(isa)).arg(i).arg(row[i]).arg(p)));
      }
      if (n > 2) QCOMPARE(row[1], 0.0f);  // exactly 0, as PyTorch
      QVERIFY(std::fabs(total - 1.0) <= 1e-6 * n);
    }
  }

  // The tiled attention's step: e^(x − shift) in place and its sum, −∞ exactly 0, every variant
  // (divisor 1: the quotient is x itself).
  void expScaledSumEveryVariant() {
    std::vector<float> x = randoms(301, "block", 5.0f);
    x[3] = x[200] = kNegInf;
    const float shift = 20.0f;  // above every score
    for (Isa isa : variants()) {
      std::vector<float> row = x;
      const float sum = exp_scaled_sum(isa, row.data(), 301, 1.0f, shift);
      double want_sum = 0;
      for (size_t i = 0; i < x.size(); ++i) {
        const double want = x[i] == kNegInf ? 0.0 : std::exp(double(x[i] - shift));
        want_sum += want;
        QVERIFY2(std::fabs(row[i] - want) <= 3 * std::ldexp(1.0, -24) * want + 1e-38, name(isa));
      }
      QCOMPARE(row[3], 0.0f);
      QCOMPARE(row[200], 0.0f);
      QVERIFY2(std::fabs(sum - want_sum) <= 305 * std::ldexp(1.0, -24) * want_sum, name(isa));
    }
  }

  // The fused form the tiled loop calls: the division by √Dh inside the exponential's pass gives
  // the very bits of a division pass followed by the exponential alone (divisor 1), and the same sum.
  void expScaledSumIsDivisionThenExpBitForBit() {
    std::vector<float> x = randoms(301, "scaled", 40.0f);
    x[0] = x[150] = kNegInf;
    // Powers of two take the multiplication by the exact reciprocal (√64 = 8, 1, 2⁻³, 2¹²⁰, 2⁻²⁰, and
    // 2¹²⁶, whose quotients of |x| < 1 are subnormal); 2¹²⁷'s reciprocal is subnormal, so it divides;
    // the others divide.
    for (const float divisor : {8.0f, 1.0f, 5.656854f, 0.75f, 0.125f, std::ldexp(1.0f, 120), std::ldexp(1.0f, -20),
                                std::ldexp(1.0f, 126), std::ldexp(1.0f, 127)}) {
      float hi = kNegInf;
      for (float v : x) hi = std::max(hi, v);
      const float shift = hi / divisor;  // the row's maximum, as update_row takes it
      for (Isa isa : variants()) {
        // Both rows at the same offset from a 64-byte boundary (a vectorised sum may split head
        // and tail by the address; the tiled loop calls it at any key offset), every offset.
        for (size_t off = 0; off < 16; ++off) {
          alignas(64) std::array<float, 320> fused, divided;
          std::copy(x.begin(), x.end(), fused.begin() + off);
          std::copy(x.begin(), x.end(), divided.begin() + off);
          for (size_t i = off; i < off + x.size(); ++i) divided[i] /= divisor;
          const float fused_sum = exp_scaled_sum(isa, fused.data() + off, 301, divisor, shift);
          const float want_sum = exp_scaled_sum(isa, divided.data() + off, 301, 1.0f, shift);
          QCOMPARE(fused_sum, want_sum);
          for (size_t i = off; i < off + x.size(); ++i)
            QVERIFY2(fused[i] == divided[i],
                     qPrintable(QString("%1, ÷%2, offset %3: element %4").arg(name(isa)).arg(divisor).arg(off).arg(i - off)));
          QCOMPARE(fused[off + 150], 0.0f);
        }
      }
    }
  }

  // The tiled forward's step over a whole block held as columns (st[j·rows + i]: key j, row i),
  // every variant, against the definition per row: a full 64-row group and a tail (70), two full
  // groups (128) and a tail alone (5); every key visible, or ranges: each row its own in the first
  // group (a causal diagonal's kind, one row seeing nothing, keys at both ends no row sees), one
  // partial range shared by a whole group (128's second group, 5); rows that saw nothing yet
  // (m −∞), rows whose old maximum stays, a key hidden by −∞ (a hand-drawn mask), a row with
  // every key −∞; divisors applied by their exact reciprocal (8, 0.125) and divided (√32, 0.75).
  void onlineSoftmaxColumnsEveryVariant() {
    for (const int64_t rows : {70, 128, 5}) {
      const int64_t n = 37;
      std::vector<float> st0 = randoms(n * rows, "columns", 30.0f), m0 = randoms(rows, "m", 3.0f),
                         l0 = randoms(rows, "l", 1.0f);
      for (int64_t i = 0; i < rows; ++i) {
        l0[size_t(i)] = std::fabs(l0[size_t(i)]) + 0.5f;
        if (i % 3 == 0) m0[size_t(i)] = kNegInf, l0[size_t(i)] = 0.0f;
      }
      const int64_t hidden_row = rows > 4 ? 4 : 0;  // every key −∞ in this block
      for (int64_t j = 0; j < n; ++j) st0[size_t(j * rows + hidden_row)] = kNegInf;
      const int64_t lone = rows - 2;  // one −∞ key (20, inside every range below) of another row
      st0[size_t(20 * rows + lone)] = kNegInf;
      std::vector<int32_t> a(static_cast<size_t>(rows)), e(static_cast<size_t>(rows));
      for (int64_t i = 0; i < rows; ++i) {
        const bool shared = rows == 5 || i >= 64;
        a[size_t(i)] = shared ? 3 : int32_t(2 + i % 11);
        e[size_t(i)] = shared ? 30 : int32_t(n - 3 - i % 13);
      }
      if (rows != 5) a[1] = e[1] = 20;  // row 1 sees nothing here
      for (const bool ranged : {false, true}) {
        for (const float divisor : {8.0f, 5.656854f, 0.125f, 0.75f}) {
          for (Isa isa : variants()) {
            std::vector<float> st = st0, m = m0, l = l0, rescale(size_t(rows), -1.0f);
            online_softmax_columns(isa, {st.data(), n, rows, ranged ? a.data() : nullptr, ranged ? e.data() : nullptr,
                                         m.data(), l.data(), rescale.data()}, divisor);
            for (int64_t i = 0; i < rows; ++i)
              checkColumn(QString("%1, %2 rows, ranged %3, ÷%4, row %5").arg(name(isa)).arg(rows).arg(ranged).arg(divisor).arg(i),
                          st0, st, rows, n, i, ranged ? a[size_t(i)] : 0, ranged ? e[size_t(i)] : int32_t(n), divisor,
                          m0[size_t(i)], l0[size_t(i)], m[size_t(i)], l[size_t(i)], rescale[size_t(i)]);
          }
        }
      }
    }
  }

  void softmaxOfAFullyMaskedRowIsNaN() {
    for (Isa isa : variants()) {
      std::vector<float> row(9, kNegInf);
      softmax_row(isa, row.data(), 9);
      for (float v : row) QVERIFY2(std::isnan(v), name(isa));
    }
  }

  // The exponential itself (divisor 1, shift 0: x ← e^x) on every 1009th float of [−87, 0]:
  // within 1.1 ulp of the float64 value (the largest seen is 1.02 ulp with FMA contraction, as
  // Cephes' expf; 0.99 without, in a standalone build); below −87 exactly 0 instead of a
  // subnormal; NaN stays NaN.
  void exponentialWithinAnUlpOverItsRange() {
    const std::vector<float> xs = sampled_nonpositive();
    QVERIFY(xs.size() > 1000000);
    for (Isa isa : variants()) {
      std::vector<float> e = xs;
      exp_scaled_sum(isa, e.data(), static_cast<int64_t>(e.size()), 1.0f, 0.0f);
      double worst = 0;
      float at = 0;
      for (size_t i = 0; i < xs.size(); ++i) {
        const double want = std::exp(double(xs[i]));
        const float near = static_cast<float>(want);  // the ulp: the narrower spacing beside it
        const double ulp = std::min(double(std::nextafter(near, 2.0f)) - double(near),
                                    double(near) - double(std::nextafter(near, 0.0f)));
        if (const double err = std::fabs(double(e[i]) - want) / ulp; err > worst) {
          worst = err;
          at = xs[i];
        }
      }
      QVERIFY2(worst <= 1.1, qPrintable(QString("%1: %2 ulp at x %3").arg(name(isa)).arg(worst).arg(double(at), 0, 'g', 9)));
      float below[3] = {-87.5f, -100.0f, -std::numeric_limits<float>::max()};
      exp_scaled_sum(isa, below, 3, 1.0f, 0.0f);
      QVERIFY2(below[0] == 0.0f && below[1] == 0.0f && below[2] == 0.0f, name(isa));
      float nan[2] = {std::numeric_limits<float>::quiet_NaN(), -1.0f};  // NaN stays NaN, beside it e^−1
      exp_scaled_sum(isa, nan, 2, 1.0f, 0.0f);
      QVERIFY2(std::isnan(nan[0]) && std::fabs(double(nan[1]) - std::exp(-1.0)) <= 4e-8, name(isa));  // 1.1 ulp at e^−1
    }
  }

  // The default variant is the package's in every build (core/CMakeLists.txt compiles the row
  // kernels for the x86-64 baseline): SSE2, each product rounded on its own. Had it been compiled
  // with the native build's -march=native, it would contract to FMA like the AVX2 variant and
  // round the same way everywhere. Only where this build fuses multiply-adds at all: GCC does from
  // -O2 on (the release build), not at the sanitizer build's -O1, where both variants round alike.
  void defaultVariantRoundsWithoutFma() {
    if (!isa_supported(Isa::Avx2)) QSKIP("this CPU has no AVX2 + FMA variant to compare with");
    if (!buildFusesMultiplyAdds()) QSKIP("this build does not fuse a·b + c (below -O2): nothing to tell apart");
    std::vector<float> plain = sampled_nonpositive(), fused = plain;
    exp_scaled_sum(Isa::Default, plain.data(), static_cast<int64_t>(plain.size()), 1.0f, 0.0f);
    exp_scaled_sum(Isa::Avx2, fused.data(), static_cast<int64_t>(fused.size()), 1.0f, 0.0f);
    size_t differ = 0;
    for (size_t i = 0; i < plain.size(); ++i) differ += plain[i] != fused[i];
    QVERIFY2(differ > 0, qPrintable(QString("%1 of %2 differ").arg(differ).arg(plain.size())));
  }

  // The exponential alone across its whole range, against float64.
  void exponentialWithinTwoUlps() {
    const int n = 4096;
    for (Isa isa : variants()) {
      for (float lo : {-86.0f, -10.0f}) {
        // softmax of {0, x}: p(x) = e^x / (1 + e^x); its e^x is the kernel's exponential.
        for (int i = 0; i < n; ++i) {
          const float x = lo * static_cast<float>(i) / n;
          float row[2] = {0.0f, x};
          softmax_row(isa, row, 2);
          const double e = std::exp(double(x)), p = e / (1 + e);
          QVERIFY2(std::fabs(row[1] - p) <= 3 * std::ldexp(1.0, -24) * p + 1e-38, qPrintable(QString("%1: x %2").arg(name(isa)).arg(x)));
        }
      }
    }
  }

  // A linear's epilogue on one row: + bias, ReLU, + add in that order, every combination, on every
  // variant, bit for bit the definition, with a tail (37 = 2·16 + 5) and the values ReLU must pass
  // through as relu() does (NaN stays NaN, −0 stays −0; relu() itself is checked on them too).
  void epilogueRowEveryVariant() {
    const int64_t n = 37;
    std::vector<float> x = randoms(n, "x", 2.0f);
    x[3] = -0.0f;
    x[7] = std::numeric_limits<float>::quiet_NaN();
    x[9] = kNegInf;
    const std::vector<float> bias = randoms(n, "bias", 1.0f), add = randoms(n, "add", 1.0f);
    auto same = [](float a, float b) { return std::bit_cast<uint32_t>(a) == std::bit_cast<uint32_t>(b) || (a != a && b != b); };
    const auto relu_ref = relu(Tensor::from({n}, x)).to_vector();
    QVERIFY(std::signbit(relu_ref[3]) && relu_ref[3] == 0.0f && std::isnan(relu_ref[7]) && relu_ref[9] == 0.0f);
    for (Isa isa : variants())
      for (int combo = 0; combo < 8; ++combo) {
        const bool with_bias = combo & 1, with_relu = combo & 2, with_add = combo & 4;
        std::vector<float> row = x;
        epilogue_row(isa, row.data(), n, with_bias ? bias.data() : nullptr, with_relu, with_add ? add.data() : nullptr);
        for (int64_t j = 0; j < n; ++j) {
          float want = x[size_t(j)];
          if (with_bias) want = want + bias[size_t(j)];
          if (with_relu) want = want < 0.0f ? 0.0f : want;
          if (with_add) want = want + add[size_t(j)];
          QVERIFY2(same(row[size_t(j)], want), qPrintable(QString("%1, combination %2, element %3: %4 vs %5")
                                                              .arg(QString::fromUtf8(isa_name(isa).data()))
                                                              .arg(combo).arg(j).arg(row[size_t(j)]).arg(want)));
          if (with_relu && !with_bias && !with_add) QVERIFY(same(row[size_t(j)], relu_ref[size_t(j)]));
        }
      }
  }

  void widenF16EveryPatternEveryVariant() { checkEveryPattern(widen_f16, 5, 10); }
  void widenBf16EveryPatternEveryVariant() { checkEveryPattern(widen_bf16, 8, 7); }

  // The ops that use them: same numbers as the naive twins, and bit for bit the same twice
  // whatever the rows' addresses (each row is worked on in an aligned copy).
  void opsMatchTheirNaiveTwins() {
    const Tensor x = test::random_tensor({3, 5, 37}, "x", 4.0f), w = test::random_tensor({37}, "w"),
                 b = test::random_tensor({37}, "b");
    const auto ln = layer_norm(x, w, b, 1e-5).to_vector(), ln_ref = naive::layer_norm(x, w, b, 1e-5).to_vector();
    for (size_t i = 0; i < ln.size(); ++i) QVERIFY(std::fabs(ln[i] - ln_ref[i]) <= 1e-5 + 1e-4 * std::fabs(ln_ref[i]));
    const auto sm = softmax_lastdim(x).to_vector(), sm_ref = naive::softmax_lastdim(x).to_vector();
    for (size_t i = 0; i < sm.size(); ++i) QVERIFY(std::fabs(sm[i] - sm_ref[i]) <= 1e-6 + 1e-5 * sm_ref[i]);
    // Row 1 of a (2, 37) tensor starts 148 bytes in (not 64-byte aligned); alone it starts at 0:
    // the same bits either way.
    const Tensor two = test::random_tensor({2, 37}, "rows", 4.0f);
    Tensor alone = Tensor::empty({1, 37});
    std::copy_n(two.data() + 37, 37, alone.data());
    const auto both = softmax_lastdim(two).to_vector(), one = softmax_lastdim(alone).to_vector();
    QCOMPARE(std::vector<float>(both.begin() + 37, both.end()), one);
    const auto ln_both = layer_norm(two, w, b, 1e-5).to_vector(), ln_one = layer_norm(alone, w, b, 1e-5).to_vector();
    QCOMPARE(std::vector<float>(ln_both.begin() + 37, ln_both.end()), ln_one);
  }
};

QTEST_GUILESS_MAIN(TestRowKernels)
#include "test_row_kernels.moc"
