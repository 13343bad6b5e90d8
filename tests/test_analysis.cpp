// The maths behind the charts: softmax at a temperature, entropy, head patterns, histograms and
// the √Dh scaling, each against a hand-computed value or the obvious formula written out here.
#include <QtTest>

#include <cmath>
#include <limits>
#include <numeric>

#include "analysis/analysis.h"
#include "forward/model.h"
#include "model/weights.h"
#include "text/errors.h"

using namespace attnlab;

namespace {

constexpr float kInf = std::numeric_limits<float>::infinity();
constexpr float kNaN = std::numeric_limits<float>::quiet_NaN();

// A (1, 1, T, T) weights tensor whose row i is one-hot at column target(i).
template <typename F>
Tensor one_hot_rows(int t, F target) {
  Tensor w({1, 1, t, t});
  for (int i = 0; i < t; ++i) w.at({0, 0, i, target(i)}) = 1.0f;
  return w;
}

// The obvious formula: −Σ p log p over p > 0, then divided by log(#unmasked), averaged over rows.
double naive_mean_normalised_entropy(const Tensor& w, const Tensor& masked, int64_t b, int64_t h, int64_t rows) {
  double sum = 0;
  int counted = 0;
  for (int64_t i = 0; i < rows; ++i) {
    double e = 0;
    int n = 0;
    for (int64_t j = 0; j < w.size(3); ++j) {
      const double p = w.at({b, h, i, j});
      if (p > 0) e -= p * std::log(p);
      n += std::isfinite(masked.at({b, h, i, j}));
    }
    if (n >= 2) sum += e / std::log(static_cast<double>(n)), ++counted;
  }
  return sum / counted;
}

struct Run {
  ModelConfig cfg;
  Batch batch;
  Trace trace;
};

std::unique_ptr<Run> run_model(int64_t d_model, int64_t heads, std::vector<std::string> texts) {
  auto r = std::make_unique<Run>();
  r->cfg.d_model = d_model;
  r->cfg.heads = heads;
  r->cfg.d_ff = 2 * d_model;
  r->cfg.validate();
  r->batch = make_batch(texts, {});
  forward(r->cfg, init_weights(r->cfg), r->batch, r->trace);
  return r;
}

const std::string kBlock = "encoder.layers.0.self_attn.";

}  // namespace

class TestAnalysis : public QObject {
  Q_OBJECT
 private slots:
  void entropyOfUniformIsLogN_data() {
    QTest::addColumn<int>("n");
    for (int n : {1, 2, 5, 17}) QTest::addRow("n=%d", n) << n;
  }
  void entropyOfUniformIsLogN() {
    QFETCH(int, n);
    const std::vector<float> p(static_cast<size_t>(n), 1.0f / static_cast<float>(n));
    QVERIFY(std::abs(entropy(p.data(), n) - std::log(static_cast<double>(n))) < 1e-6);
    QCOMPARE(max_entropy(n), n > 1 ? std::log(static_cast<double>(n)) : 0.0);
  }

  void entropyHandValues() {
    const float one_hot[] = {0, 0, 1, 0};
    QCOMPARE(entropy(one_hot, 4), 0.0);  // 0 · log 0 = 0, 1 · log 1 = 0
    const double halves[] = {0.5, 0.25, 0.25, 0.0};
    QCOMPARE(entropy(halves, 4), 1.5 * std::log(2.0));
    const float with_nan[] = {0.5f, kNaN, 0.5f};
    QVERIFY(std::isnan(entropy(with_nan, 3)));
  }

  void softmaxAtTemperatureOneIsTheFormula() {
    const float x[] = {1.0f, 2.0f, 3.0f, -1.5f};
    const auto w = softmax_with_temperature(x, 4, 1.0);
    double z = 0;
    for (float v : x) z += std::exp(static_cast<double>(v));
    for (int j = 0; j < 4; ++j) QVERIFY(std::abs(w[j] - std::exp(static_cast<double>(x[j])) / z) < 1e-15);
    const auto w2 = softmax_with_temperature(x, 4, 2.0);
    z = 0;
    for (float v : x) z += std::exp(v / 2.0);
    for (int j = 0; j < 4; ++j) QVERIFY(std::abs(w2[j] - std::exp(x[j] / 2.0) / z) < 1e-15);
  }

  void temperatureLimits() {
    const float x[] = {0.3f, 2.5f, -kInf, -1.0f, 2.4f};
    const auto hot = softmax_with_temperature(x, 5, 1e7);  // → uniform over the 4 finite keys
    for (int j : {0, 1, 3, 4}) QVERIFY(std::abs(hot[j] - 0.25) < 1e-6);
    const auto cold = softmax_with_temperature(x, 5, 1e-3);  // → argmax (key 1)
    QCOMPARE(cold[1], 1.0);
    for (int j : {0, 3, 4}) QVERIFY(cold[j] < 1e-30);
    for (const auto* w : {&hot, &cold}) QCOMPARE((*w)[2], 0.0);  // masked stays exactly 0
    const float tie[] = {4.0f, 1.0f, 4.0f};
    const auto shared = softmax_with_temperature(tie, 3, 1e-4);
    QCOMPARE(shared[0], 0.5);
    QCOMPARE(shared[2], 0.5);
  }

  void fullyMaskedRowIsNaNAndBadTemperatureThrows() {
    const float x[] = {-kInf, -kInf, -kInf};
    for (double v : softmax_with_temperature(x, 3, 1.0)) QVERIFY(std::isnan(v));
    const float y[] = {1.0f};
    QVERIFY_THROWS_EXCEPTION(ConfigError, softmax_with_temperature(y, 1, 0.0));
    QVERIFY_THROWS_EXCEPTION(ConfigError, softmax_with_temperature(y, 1, -1.0));
    QVERIFY_THROWS_EXCEPTION(ConfigError, softmax_with_temperature(y, 1, std::nan("")));
  }

  void histogramCountsFiniteValues() {
    const float v[] = {0.0f, 0.5f, 0.99f, 1.0f, -5.0f, 7.0f, kNaN, kInf, -kInf};
    const auto c = histogram(v, 9, 2, 0.0, 1.0);
    QCOMPARE(c, (std::vector<int64_t>{2, 4}));  // [0, .5): 0, −5 (clamped); [.5, 1]: .5, .99, 1, 7
    QCOMPARE(std::accumulate(c.begin(), c.end(), int64_t{0}), int64_t{6});
    QVERIFY_THROWS_EXCEPTION(ConfigError, histogram(v, 9, 2, 1.0, 1.0));
  }

  void syntheticPatterns() {
    const int t = 6;
    const auto diag = head_stats(one_hot_rows(t, [](int i) { return i; }), nullptr, 0, 0);
    QCOMPARE(diag.pattern, HeadPattern::Diagonal);
    QCOMPARE(diag.diagonal, 1.0);
    QCOMPARE(diag.entropy, 0.0);
    QVERIFY(!diag.dead);
    const auto prev = head_stats(one_hot_rows(t, [](int i) { return i > 0 ? i - 1 : 0; }), nullptr, 0, 0);
    QCOMPARE(prev.pattern, HeadPattern::PreviousToken);
    QCOMPARE(prev.previous, 1.0);
    QCOMPARE(prev.diagonal, 1.0 / t);  // row 0 only
    const auto focus = head_stats(one_hot_rows(t, [](int) { return 3; }), nullptr, 0, 0);
    QCOMPARE(focus.pattern, HeadPattern::Focused);
    QCOMPARE(focus.max_weight, 1.0);
    const auto uniform = head_stats(Tensor({1, 1, t, t}, 1.0f / t), nullptr, 0, 0);
    QCOMPARE(uniform.pattern, HeadPattern::Uniform);
    QVERIFY(uniform.dead);
    QVERIFY(std::abs(uniform.entropy - 1.0) < 1e-6);
    QCOMPARE(uniform.rows, t);
  }

  void mixedPatternAndNames() {
    // Every row 0.4 / 0.3 / 0.2 on keys 4–6 (never the diagonal or the previous key), 0.02 elsewhere:
    // no key past one half, entropy (5 · 0.02 ln 50 + 0.4 ln 2.5 + 0.3 ln(10/3) + 0.2 ln 5) / ln 8 ≈ 0.69.
    Tensor w({1, 1, 4, 8}, 0.02f);
    for (int i = 0; i < 4; ++i) {
      w.at({0, 0, i, 4}) = 0.4f;
      w.at({0, 0, i, 5}) = 0.3f;
      w.at({0, 0, i, 6}) = 0.2f;
    }
    const auto s = head_stats(w, nullptr, 0, 0);
    QVERIFY(std::abs(s.entropy - 1.4408 / std::log(8.0)) < 1e-3);
    QCOMPARE(s.pattern, HeadPattern::Mixed);
    QVERIFY(!s.dead);
    QCOMPARE(head_pattern_name(HeadPattern::PreviousToken), std::string_view("previous token"));
  }

  void maskedKeysNormaliseByUnmaskedCount() {
    // (1, 1, 3, 5): keys 3 and 4 masked, uniform over the 3 real keys; query row 2 a [PAD] row.
    Tensor w({1, 1, 3, 5}), masked({1, 1, 3, 5});
    for (int i = 0; i < 3; ++i)
      for (int j = 0; j < 5; ++j) {
        w.at({0, 0, i, j}) = j < 3 ? 1.0f / 3 : 0.0f;
        masked.at({0, 0, i, j}) = j < 3 ? 0.5f : -kInf;
      }
    w.at({0, 0, 2, 0}) = 1.0f, w.at({0, 0, 2, 1}) = 0, w.at({0, 0, 2, 2}) = 0;
    const auto s = head_stats(w, &masked, 0, 0, 2);
    QCOMPARE(s.rows, 2);
    QVERIFY(std::abs(s.entropy - 1.0) < 1e-6);  // log 3 / log 3, not log 3 / log 5
    QVERIFY(s.dead);
    const auto all_rows = head_stats(w, &masked, 0, 0);
    QCOMPARE(all_rows.rows, 3);
    QVERIFY(all_rows.entropy < s.entropy);
  }

  void realTraceDiagnosticsMatchNaive() {
    const auto r = run_model(16, 4, {"the cat sat on the mat", "a dog ran"});
    const Tensor& w = r->trace.find(kBlock + "weights")->tensor;
    const Tensor& masked = r->trace.find(kBlock + "masked_scores")->tensor;
    for (int64_t b = 0; b < 2; ++b) {
      const int64_t real = r->batch.text.lengths[static_cast<size_t>(b)];
      const auto stats = head_diagnostics(w, &masked, b, real);
      QCOMPARE(stats.size(), size_t{4});
      for (int64_t h = 0; h < 4; ++h) {
        QVERIFY(std::abs(stats[h].entropy - naive_mean_normalised_entropy(w, masked, b, h, real)) < 1e-9);
        QCOMPARE(stats[h].rows, static_cast<int>(real));
        double diag = 0;
        for (int64_t i = 0; i < real; ++i) diag += w.at({b, h, i, i});
        QVERIFY(std::abs(stats[h].diagonal - diag / real) < 1e-9);
      }
    }
  }

  void logitStatsAreQkAndScaledQk() {
    const auto r = run_model(16, 4, {"the cat sat on the mat", "a dog ran"});
    const Tensor& qk = r->trace.find(kBlock + "qk")->tensor;
    const Tensor& masked = r->trace.find(kBlock + "masked_scores")->tensor;
    const auto s = logit_stats(qk, masked, 1, 2, 1.0);
    // Sentence 1 has 3 real keys of 6; every one of its 6 query rows sees them.
    QCOMPARE(s.unscaled.size(), size_t{6 * 3});
    QCOMPARE(s.scaled.size(), s.unscaled.size());
    for (size_t k = 0; k < s.scaled.size(); ++k) QCOMPARE(s.scaled[k], s.unscaled[k] / 2.0f);  // √Dh = 2
    QCOMPARE(logit_stats(qk, masked, 1, -1, 1.0).scaled.size(), size_t{4 * 6 * 3});  // every head
    QCOMPARE(logit_stats(qk, masked, 1, 2, 1.0, 3).rows, 3);
    const auto hot = logit_stats(qk, masked, 1, 2, 1e6);
    QCOMPARE(hot.saturated_unscaled, 0.0);
    QCOMPARE(hot.saturated_scaled, 0.0);
  }

  void attentionRowIsTheTraceRowOrItsTemperedSoftmax() {
    const auto r = run_model(16, 4, {"the cat sat on the mat", "a dog ran"});
    const Tensor& w = r->trace.find(kBlock + "weights")->tensor;
    const Tensor& masked = r->trace.find(kBlock + "masked_scores")->tensor;
    const auto one = attention_row(w, masked, 1, 3, 2, 1.0);
    for (int j = 0; j < 6; ++j) {
      QCOMPARE(one.weights[j], static_cast<double>(w.at({1, 3, 2, j})));
      QCOMPARE(one.masked[j], static_cast<char>(j >= 3));  // "a dog ran" + 3 [PAD]
    }
    QCOMPARE(one.tempered, one.weights);
    const auto cold = attention_row(w, masked, 1, 3, 2, 0.5);
    std::vector<float> logits;
    for (int j = 0; j < 6; ++j) logits.push_back(masked.at({1, 3, 2, j}));
    QCOMPARE(cold.tempered, softmax_with_temperature(logits.data(), 6, 0.5));
    QCOMPARE(cold.weights, one.weights);
  }

  void unscaledLogitsSaturateMoreThanScaled() {
    // d_model 256, one head: Dh = 256, so QKᵀ entries have a spread ~16× that of the scores.
    const auto r = run_model(256, 1, {"the quick brown fox jumps over the lazy dog", "attention is all you need"});
    const Tensor& qk = r->trace.find(kBlock + "qk")->tensor;
    const Tensor& masked = r->trace.find(kBlock + "masked_scores")->tensor;
    for (int64_t b = 0; b < 2; ++b) {
      const auto s = logit_stats(qk, masked, b, 0, 1.0, r->batch.text.lengths[static_cast<size_t>(b)]);
      qInfo("sentence %lld: saturated rows unscaled %.2f, scaled %.2f of %d", static_cast<long long>(b),
            s.saturated_unscaled, s.saturated_scaled, s.rows);
      QVERIFY(s.saturated_unscaled > s.saturated_scaled);
    }
  }
};

QTEST_GUILESS_MAIN(TestAnalysis)
#include "test_analysis.moc"
