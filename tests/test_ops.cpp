// Every fast op against its naive twin (core/tensor/ops_naive.h), plus the properties the spec names:
// masked weights exactly 0, softmax rows summing to 1, NaN for a fully masked row.
#include <QtTest>

#include <cmath>
#include <cstring>
#include <limits>
#include <stdexcept>
#include <vector>

#include "tensor/ops.h"
#include "tensor/ops_naive.h"
#include "tensor/parallel.h"
#include "tensor/rng.h"
#include "tensor/scoped_threads.h"
#include "text/errors.h"

using namespace attnlab;

namespace {

Tensor randn(Shape s, const char* name) {
  Tensor t(std::move(s));
  const Stream st(name, 7);
  for (int64_t i = 0; i < t.numel(); ++i) t.data()[i] = static_cast<float>(st.normal(static_cast<uint64_t>(i)));
  return t;
}

// max |a - b| / (atol + rtol |b|) <= 1, i.e. the spec's tolerance rule.
void expectClose(const Tensor& a, const Tensor& b, double atol = 1e-5, double rtol = 1e-4) {
  QCOMPARE(a.shape(), b.shape());
  const auto av = a.to_vector(), bv = b.to_vector();
  for (size_t i = 0; i < av.size(); ++i) {
    if (std::isinf(bv[i])) {
      QCOMPARE(av[i], bv[i]);
      continue;
    }
    if (std::fabs(av[i] - bv[i]) > atol + rtol * std::fabs(bv[i]))
      QFAIL(qPrintable(QString("element %1: %2 vs %3").arg(i).arg(av[i]).arg(bv[i])));
  }
}

}  // namespace

class TestOps : public QObject {
  Q_OBJECT
 private slots:
  void linearMatchesNaive_data() {
    QTest::addColumn<int>("rows");
    QTest::addColumn<int>("in");
    QTest::addColumn<int>("out");
    QTest::newRow("tiny") << 1 << 1 << 1;
    QTest::newRow("odd") << 7 << 13 << 5;
    QTest::newRow("model") << 30 << 64 << 192;
    QTest::newRow("wide") << 16 << 512 << 2048;
    QTest::newRow("split between threads") << 301 << 96 << 333;  // 2 · 301 · 333 outputs: each thread adds the bias to its part
  }
  void linearMatchesNaive() {
    QFETCH(int, rows);
    QFETCH(int, in);
    QFETCH(int, out);
    const Tensor x = randn({2, rows, in}, "x"), w = randn({out, in}, "w"), b = randn({out}, "b");
    expectClose(linear(x, w, b), naive::linear(x, w, b), 1e-4 * std::sqrt(double(in)), 1e-4);
  }

  void linearRowsIsASliceOfTheFusedProjection() {
    const Tensor x = randn({3, 4, 8}, "x"), w = randn({24, 8}, "w"), b = randn({24}, "b");
    const Tensor full = linear(x, w, b);
    const Tensor k = linear_rows(x, w, b, 8, 8);  // rows K of Q|K|V
    for (int64_t r = 0; r < 12; ++r)
      for (int64_t c = 0; c < 8; ++c) QCOMPARE(k.data()[r * 8 + c], full.data()[r * 24 + 8 + c]);
  }

  void layerNormMatchesNaive() {
    const Tensor x = randn({3, 5, 33}, "x"), w = randn({33}, "w"), b = randn({33}, "b");
    expectClose(layer_norm(x, w, b, 1e-5), naive::layer_norm(x, w, b, 1e-5));
    const Tensor y = layer_norm(x, Tensor({33}, 1.0f), Tensor({33}, 0.0f), 1e-5);
    double mean = 0, var = 0;
    for (int c = 0; c < 33; ++c) mean += y.data()[c];
    mean /= 33;
    for (int c = 0; c < 33; ++c) var += (y.data()[c] - mean) * (y.data()[c] - mean);
    QVERIFY(std::fabs(mean) < 1e-6);
    QVERIFY(std::fabs(var / 33 - 1.0) < 1e-4);  // biased variance normalised to 1
  }

  void softmaxMatchesNaiveAndSumsToOne() {
    const Tensor x = randn({4, 3, 17}, "x");
    const Tensor s = softmax_lastdim(x);
    expectClose(s, naive::softmax_lastdim(x), 1e-7, 1e-5);
    for (int r = 0; r < 12; ++r) {
      double sum = 0;
      for (int c = 0; c < 17; ++c) sum += s.data()[r * 17 + c];
      QVERIFY(std::fabs(sum - 1.0) < 1e-6);
    }
  }

  // The out-of-place softmax (no copy first) gives the in-place one's bits, from a strided view
  // too, and leaves its input alone; −∞ rows and a split between threads (> 256 rows) included.
  void softmaxOutOfPlaceIsTheInPlaceBitForBit() {
    Tensor x = randn({2, 3, 50, 301}, "x");
    const float ninf = -std::numeric_limits<float>::infinity();
    for (int64_t j = 5; j < 301; ++j) x.data()[j] = ninf;  // row 0: keys 5… masked
    for (int64_t j = 0; j < 301; ++j) x.data()[301 + j] = ninf;  // row 1: every key masked (NaN)
    const std::vector<float> before = x.to_vector();
    Tensor in_place = x.clone();
    softmax_lastdim_inplace(in_place);
    const Tensor out = softmax_lastdim(x);
    QVERIFY(out.data() != x.data());
    QVERIFY(x.to_vector() == before);
    QCOMPARE(out.shape(), x.shape());
    const std::vector<float> a = out.to_vector(), b = in_place.to_vector();
    QCOMPARE(std::memcmp(a.data(), b.data(), a.size() * sizeof(float)), 0);  // NaN rows too
    QCOMPARE(a[5], 0.0f);
    QVERIFY(std::isnan(a[301]));
    const Tensor t = x.transpose(-2, -1);  // (2, 3, 301, 50), not contiguous
    Tensor t_in_place = t.clone();
    softmax_lastdim_inplace(t_in_place);
    const std::vector<float> ta = softmax_lastdim(t).to_vector(), tb = t_in_place.to_vector();
    QCOMPARE(std::memcmp(ta.data(), tb.data(), ta.size() * sizeof(float)), 0);
    QVERIFY(x.to_vector() == before);
  }

  void maskedWeightsAreExactlyZero() {
    Tensor scores = randn({2, 3, 4, 4}, "s");
    const Tensor mask = make_mask(MaskKind::PaddingCausal, {4, 2}, 4, 4);
    Tensor w = softmax_lastdim(masked_fill_neg_inf(scores, mask));
    for (int64_t b = 0; b < 2; ++b)
      for (int64_t h = 0; h < 3; ++h)
        for (int64_t i = 0; i < 4; ++i) {
          double sum = 0;
          for (int64_t j = 0; j < 4; ++j) {
            const float v = w.at({b, h, i, j});
            if (mask.at({b, i, j}) == 0.0f) QCOMPARE(v, 0.0f);
            else QVERIFY(v > 0.0f);
            sum += v;
          }
          QVERIFY(std::fabs(sum - 1.0) < 1e-6);
        }
  }

  void fullyMaskedRowIsNaNAsInPyTorch() {
    Tensor s({1, 1, 2, 3}, 0.5f);
    const float inf = std::numeric_limits<float>::infinity();
    for (int j = 0; j < 3; ++j) s.at({0, 0, 1, j}) = -inf;
    const Tensor w = softmax_lastdim(s);
    QVERIFY(std::isnan(w.at({0, 0, 1, 0})));
    QCOMPARE(w.at({0, 0, 0, 0}), 1.0f / 3.0f);
  }

  void maskKinds() {
    const Tensor pad = make_mask(MaskKind::Padding, {3, 1}, 3, 3);
    QCOMPARE(pad.at({0, 2, 2}), 1.0f);
    QCOMPARE(pad.at({1, 0, 1}), 0.0f);  // padded key hidden
    QCOMPARE(pad.at({1, 2, 0}), 1.0f);  // a [PAD] query row still attends (as PyTorch)
    const Tensor causal = make_mask(MaskKind::Causal, {3}, 3, 3);
    QCOMPARE(causal.at({0, 0, 1}), 0.0f);
    QCOMPARE(causal.at({0, 2, 1}), 1.0f);
    const Tensor none = make_mask(MaskKind::None, {1}, 2, 5);
    QCOMPARE(none.shape(), (Shape{1, 2, 5}));
    for (float v : none.to_vector()) QCOMPARE(v, 1.0f);
  }

  void geluAndReluMatchNaive() {
    Tensor x = randn({1000}, "g");
    x.data()[0] = 0.0f;
    x.data()[1] = -8.0f;
    x.data()[2] = 8.0f;
    expectClose(gelu(x), naive::gelu(x), 1e-7, 1e-6);
    expectClose(relu(x), naive::relu(x), 0, 0);
    expectClose(gelu_tanh(x), naive::gelu_tanh(x), 1e-7, 1e-6);
    QCOMPARE(gelu(x).data()[0], 0.0f);
    QCOMPARE(gelu_tanh(x).data()[0], 0.0f);
    QCOMPARE(activate(x, Activation::GeluTanh).data()[2], gelu_tanh(x).data()[2]);
    // The tanh form is not the exact GELU: 4.1e-4 apart at x = 3 (PyTorch in double).
    const Tensor three = Tensor::from({1}, {3.0f});
    QVERIFY(std::abs(gelu_tanh(three).data()[0] - gelu(three).data()[0]) > 3e-4);
    QCOMPARE(parse_activation("gelu_tanh"), Activation::GeluTanh);
    QCOMPARE(activation_name(Activation::GeluTanh), std::string_view("gelu_tanh"));
  }

  // Matmul straight on strided views: a head slice (q) and a transposed key (k_t).
  void matmulOnStridedViews() {
    const Tensor qp = randn({2, 5, 12}, "q"), kp = randn({2, 5, 12}, "k");
    const Tensor q = qp.view({2, 5, 3, 4}).transpose(1, 2);
    const Tensor kt = kp.view({2, 5, 3, 4}).transpose(1, 2).transpose(-2, -1);
    QVERIFY(!q.is_contiguous() && !kt.is_contiguous());
    expectClose(matmul(q, kt), naive::matmul(q, kt));
    const Tensor v = randn({2, 3, 5, 4}, "v"), w = randn({2, 3, 7, 5}, "w");
    expectClose(matmul(w, v), naive::matmul(w, v));
  }

  void attentionPipelineMatchesNaiveAttention() {
    const Tensor q = randn({1, 1, 6, 8}, "q"), k = randn({1, 1, 6, 8}, "k"), v = randn({1, 1, 6, 8}, "v");
    const Tensor mask = make_mask(MaskKind::PaddingCausal, {5}, 6, 6);
    Tensor s = matmul(q, k.transpose(-2, -1));
    for (int64_t i = 0; i < s.numel(); ++i) s.data()[i] /= std::sqrt(8.0f);
    const Tensor w = softmax_lastdim(masked_fill_neg_inf(s, mask));
    const Tensor out = matmul(w, v);
    Tensor nw, nout;
    naive::attention(q.view({6, 8}), k.view({6, 8}), v.view({6, 8}), mask.view({6, 6}), nw, nout);
    expectClose(w.view({6, 6}), nw);
    expectClose(out.view({6, 8}), nout);
  }

  void sinusoidalPositions() {
    const Tensor pe = sinusoidal_positions(4, 6);
    QCOMPARE(pe.at({0, 0}), 0.0f);
    QCOMPARE(pe.at({0, 1}), 1.0f);
    QCOMPARE(pe.at({1, 0}), static_cast<float>(std::sin(1.0)));
    QCOMPARE(pe.at({3, 3}), static_cast<float>(std::cos(3.0 / std::pow(10000.0, 2.0 / 6.0))));
    QCOMPARE(pe.at({2, 5}), static_cast<float>(std::cos(2.0 / std::pow(10000.0, 4.0 / 6.0))));
  }

  // Past 2¹⁶ elements the elementwise ops and the copy of a strided view split their rows between
  // OpenMP's threads in blocks (600 rows of 300: blocks of 54 rows and a short last one); every
  // element must be the one a plain loop gives, bit for bit.
  void largeElementwiseOpsMatchAPlainLoop() {
    const Tensor a = randn({2, 300, 300}, "a"), b = randn({2, 300, 300}, "b");
    const Tensor r = relu(a), sum = add(a, b), scaled = scale(a, 0.37f);
    for (int64_t i = 0; i < a.numel(); ++i) {
      const float x = a.data()[i], y = b.data()[i];
      if (r.data()[i] != (x > 0.0f ? x : 0.0f) || sum.data()[i] != x + y || scaled.data()[i] != x * 0.37f)
        QFAIL(qPrintable(QString("element %1: relu %2, add %3, scale %4 of %5 and %6")
                             .arg(i).arg(r.data()[i]).arg(sum.data()[i]).arg(scaled.data()[i]).arg(x).arg(y)));
    }
    // A contiguous copy of 2¹⁸ floats and more is split in runs of 2¹⁴: 270,000 ends in a part run.
    const Tensor big = randn({3, 300, 300}, "big"), copy = big.clone();
    QVERIFY(copy.data() != big.data());
    for (int64_t i = 0; i < big.numel(); ++i)  // the raw storage: to_vector() copies through the same code
      if (copy.data()[i] != big.data()[i]) QFAIL(qPrintable(QString("clone element %1").arg(i)));
    // The mask over every head, out of place and in place, against a plain loop: each query's mask
    // row serves all three heads.
    const Tensor s = randn({2, 3, 110, 110}, "s"), mask = make_mask(MaskKind::PaddingCausal, {110, 77}, 110, 110);
    const Tensor filled = masked_fill(s, mask, -2.5f);
    const Tensor strided_mask = mask.transpose(1, 2).contiguous().transpose(1, 2);  // the same mask, not contiguous
    QCOMPARE(masked_fill(s, strided_mask, -2.5f).to_vector(), filled.to_vector());
    QCOMPARE(masked_fill(Tensor({2, 3, 110, 0}), Tensor({2, 110, 0}), 0.0f).shape(), (Shape{2, 3, 110, 0}));  // no keys
    Tensor in_place = s.clone();
    masked_fill_neg_inf_inplace(in_place, mask);
    for (int64_t i = 0; i < s.numel(); ++i) {
      const int64_t b = i / (3 * 110 * 110), qk = i % (110 * 110);
      const bool hidden = mask.data()[b * 110 * 110 + qk] == 0.0f;
      if (filled.data()[i] != (hidden ? -2.5f : s.data()[i]) ||
          in_place.data()[i] != (hidden ? -std::numeric_limits<float>::infinity() : s.data()[i]))
        QFAIL(qPrintable(QString("masked element %1").arg(i)));
    }
    // (2, 300, 300) seen as (300, 2, 300) and as its transpose: runs of 300 and of stride 300.
    for (const Tensor& view : {a.transpose(0, 1), a.transpose(1, 2), a.transpose(0, 2)}) {
      const Tensor c = view.contiguous();
      QVERIFY(c.is_contiguous());
      QCOMPARE(c.shape(), view.shape());
      for (int64_t i = 0; i < c.numel(); ++i)
        if (c.data()[i] != view.at_linear(i)) QFAIL(qPrintable(QString("copy element %1").arg(i)));
    }
  }

  // A mask that hides nothing gives the scores themselves, shared (the traced steps and the
  // gradients that use it are never written into); one 0 anywhere — the first entry, the last of
  // a block of 4096, the first of the next, the very last, a −0 — gives masked_fill's new tensor.
  void maskHidingNothingSharesTheScores() {
    const Tensor s = randn({2, 3, 70, 70}, "s");  // mask (2, 70, 70): 9800 entries, three blocks
    const Tensor ones({2, 70, 70}, 1.0f);
    QVERIFY(hides_nothing(ones));
    QVERIFY(masked_fill_or_same(s, ones, -1.0f).shares_storage(s));
    QCOMPARE(masked_fill_or_same(s, ones, -1.0f).data(), s.data());
    for (const int64_t at : {int64_t{0}, int64_t{4095}, int64_t{4096}, int64_t{9799}})
      for (const float zero : {0.0f, -0.0f}) {
        Tensor m = ones.clone();
        m.data()[at] = zero;
        QVERIFY(!hides_nothing(m));
        const Tensor f = masked_fill_or_same(s, m, -1.0f);
        QVERIFY(!f.shares_storage(s));
        QCOMPARE(f.to_vector(), masked_fill(s, m, -1.0f).to_vector());
      }
    const Tensor st = s.transpose(2, 3);  // strided scores: shared as the view they are, or filled
    QVERIFY(masked_fill_or_same(st, ones, -1.0f).shares_storage(s));
    const Tensor causal = make_mask(MaskKind::Causal, {70, 70}, 70, 70);
    QCOMPARE(masked_fill_or_same(st, causal, -1.0f).to_vector(), masked_fill(st.contiguous(), causal, -1.0f).to_vector());
    QVERIFY(hides_nothing(make_mask(MaskKind::Padding, {70, 70}, 70, 70)));
    QVERIFY(!hides_nothing(make_mask(MaskKind::Padding, {70, 69}, 70, 70)));
    QVERIFY(!hides_nothing(make_mask(MaskKind::Causal, {70, 70}, 70, 70)));
    QVERIFY(!hides_nothing(make_mask(MaskKind::Causal, {70, 70}, 70, 70).transpose(1, 2)));  // a view
    // The shapes are checked before the mask is read: a mismatch is refused even when it hides nothing.
    QVERIFY_THROWS_EXCEPTION(ShapeError, masked_fill_or_same(s, Tensor({2, 70, 71}, 1.0f), 0.0f));
  }

  // ScopedThreads sets OpenMP's count for its scope and puts the one before back when the scope
  // ends, also when what ran in it threw; nested scopes unwind in order. Without OpenMP: always 1.
  void scopedThreadsPutsTheCountBack() {
    const int before = parallel_threads();
#ifdef _OPENMP
    const int inner = before == 3 ? 5 : 3;
#else
    const int inner = 1;
#endif
    {
      const ScopedThreads a(inner);
      QCOMPARE(parallel_threads(), inner);
      {
        const ScopedThreads b(1);
        QCOMPARE(parallel_threads(), 1);
      }
      QCOMPARE(parallel_threads(), inner);
    }
    QCOMPARE(parallel_threads(), before);
    try {
      const ScopedThreads a(inner);
      throw std::runtime_error("a failing check");
    } catch (const std::runtime_error&) {
    }
    QCOMPARE(parallel_threads(), before);
  }

  void generatorIsPortableAndDocumented() {
    // SplitMix64 reference values: seed 0 stream starts 0xE220A8397B1DCDAF (the published
    // first output of SplitMix64 from state 0).
    QCOMPARE(splitmix_mix(0x9E3779B97F4A7C15ULL), 0xE220A8397B1DCDAFULL);
    QCOMPARE(fnv1a64(""), 0xCBF29CE484222325ULL);
    QCOMPARE(fnv1a64("a"), 0xAF63DC4C8601EC8CULL);
    const Stream s("tok:cat", 0);
    QVERIFY(s.uniform(0) > 0.0 && s.uniform(0) <= 1.0);
    double mean = 0, sq = 0;
    for (uint64_t j = 0; j < 20000; ++j) {
      mean += s.normal(j);
      sq += s.normal(j) * s.normal(j);
    }
    QVERIFY(std::fabs(mean / 20000) < 0.03);
    QVERIFY(std::fabs(sq / 20000 - 1.0) < 0.05);
  }
};

QTEST_GUILESS_MAIN(TestOps)
#include "test_ops.moc"
