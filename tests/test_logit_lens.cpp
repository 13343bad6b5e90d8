// The logit lens (core/explain/logit_lens.h) against explain_naive.h's loops over the shipped
// trained model, with and without a final LayerNorm; its last layer is the model's own
// prediction; refusals. PyTorch checks GPT-2's and BERT's lens in tests/cli/test_cli_explain.py.
#include <QtTest>

#include <algorithm>
#include <cmath>
#include <numeric>

#include "explain/explain.h"
#include "explain/explain_naive.h"
#include "explain/logit_lens.h"
#include "forward/model.h"
#include "io/weights_file.h"
#include "model/weights.h"
#include "random_tensor.h"
#include "text/errors.h"

using namespace attnlab;

namespace {

LoadedWeights shipped() {
  return load_weights_file(std::string(ATTNLAB_TEST_DATA) + "/../sample_inputs/models/english-next-word.safetensors",
                           ModelConfig{}, {});
}

std::vector<double> values(const Tensor& t, int64_t row) {  // row `row` of a (N, D) view
  std::vector<double> out(static_cast<size_t>(t.size(-1)));
  for (int64_t i = 0; i < t.size(-1); ++i) out[size_t(i)] = t.at_linear(row * t.size(-1) + i);
  return out;
}

// Every (b, l, s): the naive probabilities' top k must be the recorded ones, in order, and the
// answer the probability of the last layer's top id.
void checkAgainstNaive(const ModelConfig& cfg, const Weights& w, const Trace& fwd, const explain::LogitLens& lens) {
  const Tensor& head = w.get("output_head.weight");  // (V, D)
  explain::naive::Matrix rows;
  for (int64_t v = 0; v < head.size(0); ++v) rows.push_back(values(head, v));
  const std::vector<double> bias = w.vocab()->head_bias ? values(w.get("output_head.bias"), 0) : std::vector<double>{};
  const std::vector<double> gamma = cfg.final_norm ? values(w.get("encoder.norm.weight"), 0) : std::vector<double>{};
  const std::vector<double> beta = cfg.final_norm ? values(w.get("encoder.norm.bias"), 0) : std::vector<double>{};
  const auto ids = explain::lens_residual_ids(cfg.layers);
  const int64_t k = lens.probs.size(3), s_n = lens.probs.size(2), d = cfg.d_model;
  for (int64_t b = 0; b < lens.probs.size(0); ++b)
    for (int64_t s = 0; s < s_n; ++s) {
      std::vector<std::vector<double>> per_layer;
      for (size_t l = 0; l < ids.size(); ++l)
        per_layer.push_back(explain::naive::lens_probabilities(values(fwd.find(ids[l])->tensor.contiguous().view({-1, d}), b * s_n + s),
                                                               cfg.final_norm, gamma, beta, cfg.eps, rows, bias));
      const auto& last = per_layer.back();
      const int64_t answer = std::max_element(last.begin(), last.end()) - last.begin();
      for (int64_t l = 0; l < static_cast<int64_t>(ids.size()); ++l) {
        const auto& p = per_layer[size_t(l)];
        std::vector<double> sorted = p;
        std::sort(sorted.begin(), sorted.end(), std::greater<>());
        for (int64_t i = 0; i < k; ++i) {
          const double got = lens.probs.at({b, l, s, i});
          QVERIFY2(std::abs(got - sorted[size_t(i)]) <= 1e-5 + 1e-4 * sorted[size_t(i)], "top-k probability");
          const auto id = static_cast<size_t>(lens.ids.at({b, l, s, i}));
          QVERIFY2(std::abs(p[id] - sorted[size_t(i)]) <= 1e-5 + 1e-4 * sorted[size_t(i)], "the id has that probability");
        }
        QVERIFY2(std::abs(lens.answer.at({b, l, s}) - p[size_t(answer)]) <= 1e-5 + 1e-4 * p[size_t(answer)], "answer");
      }
    }
}

}  // namespace

class TestLogitLens : public QObject {
  Q_OBJECT

 private slots:
  void residualsAreTheInputThenEachLayer() {
    QCOMPARE(explain::lens_residual_ids(2),
             (std::vector<std::string>{"encoder.input", "encoder.layers.0.output", "encoder.layers.1.output"}));
  }

  void theShippedModelAgainstTheNaiveLoops() {
    const auto loaded = shipped();
    const Batch batch = make_batch({"the best way to", "there is no such thing as a"}, {}, loaded.weights.vocab().get());
    Trace fwd;
    forward(loaded.cfg, loaded.weights, batch, fwd);
    const auto lens = explain::logit_lens(loaded.cfg, loaded.weights, fwd, 5);
    QCOMPARE(lens.probs.shape(), (Shape{2, loaded.cfg.layers + 1, batch.text.seq(), 5}));
    QCOMPARE(lens.answer.shape(), (Shape{2, loaded.cfg.layers + 1, batch.text.seq()}));
    checkAgainstNaive(loaded.cfg, loaded.weights, fwd, lens);
    // the last layer is the model's own prediction: the top of output_head.probs
    const Tensor& probs = fwd.find("encoder.output_head.probs")->tensor;  // (B, S, V)
    for (int64_t b = 0; b < 2; ++b)
      for (int64_t s = 0; s < batch.text.seq(); ++s) {
        int64_t best = 0;
        for (int64_t v = 1; v < probs.size(2); ++v)
          if (probs.at({b, s, v}) > probs.at({b, s, best})) best = v;
        QCOMPARE(int64_t(lens.ids.at({b, loaded.cfg.layers, s, 0})), best);
        // The lens's probability is exp(logit − lse) in double; the forward's a float softmax: a float
        // sum of V kernel exps (≤ 2 ulp each) of float differences (rounded by up to 2⁻²⁴ of an
        // argument ≲ 32: 2e-6 relative), in whatever order the build sums them (the sanitizer
        // build's -O1 loop is not vectorised) — relative error at most (V + 8)·2⁻²⁴ + 2e-6.
        const double p = probs.at({b, s, best});
        const double bound = p * ((double(probs.size(2)) + 8) * 0x1p-24 + 2e-6);
        QVERIFY2(std::abs(lens.probs.at({b, loaded.cfg.layers, s, 0}) - p) <= bound,
                 qPrintable(QStringLiteral("%1 against %2").arg(lens.probs.at({b, loaded.cfg.layers, s, 0}), 0, 'g', 9).arg(p, 0, 'g', 9)));
      }
    // the earlier layers are not the last one's copy: the lens is read at each residual
    double moved = 0;
    for (int64_t s = 0; s < batch.text.seq(); ++s) moved += std::abs(lens.answer.at({0, 0, s}) - lens.answer.at({0, loaded.cfg.layers, s}));
    QVERIFY(moved > 1e-2);
  }

  // With a final LayerNorm (GPT-2's ln_f): the lens goes through it at every layer.
  void aFinalLayerNormIsApplied() {
    auto loaded = shipped();
    ModelConfig cfg = loaded.cfg;
    cfg.final_norm = true;
    Weights w = loaded.weights;
    w.set("encoder.norm.weight", test::random_tensor({cfg.d_model}, "lens-gamma", 0.3f));
    w.set("encoder.norm.bias", test::random_tensor({cfg.d_model}, "lens-beta", 0.3f));
    const Batch batch = make_batch({"you will be married"}, {}, w.vocab().get());
    Trace fwd;
    forward(cfg, w, batch, fwd);
    const auto lens = explain::logit_lens(cfg, w, fwd, 3);
    checkAgainstNaive(cfg, w, fwd, lens);
    const auto without = explain::logit_lens(loaded.cfg, loaded.weights, fwd, 3);  // the same residuals, no norm
    double differ = 0;
    for (int64_t i = 0; i < lens.probs.numel(); ++i) differ += std::abs(lens.probs.at_linear(i) - without.probs.at_linear(i));
    QVERIFY(differ > 1e-2);
  }

  // K is held to 1 … min(20, V); the steps name their shapes; seeded weights have no head.
  void stepsAndRefusals() {
    const auto loaded = shipped();
    const Batch batch = make_batch({"a dog"}, {}, loaded.weights.vocab().get());
    Trace fwd;
    forward(loaded.cfg, loaded.weights, batch, fwd);
    QCOMPARE(explain::logit_lens(loaded.cfg, loaded.weights, fwd, 0).probs.size(3), int64_t(1));
    QCOMPARE(explain::logit_lens(loaded.cfg, loaded.weights, fwd, 99).probs.size(3), explain::kLensTopMax);
    const Explanations ex = compute_explanations(loaded.cfg, loaded.weights, batch, fwd, {.lens_top = 2},
                                                 {ExplainMethod::LogitLens, ExplainMethod::Rollout, ExplainMethod::Ablation});
    QCOMPARE(ex.steps.steps().size(), size_t(5));
    QCOMPARE(ex.steps.find("explain.logit_lens")->tensor.size(3), int64_t(2));
    QVERIFY(ex.steps.find("explain.logit_lens")->info.code.find("topk(2") != std::string::npos);
    QVERIFY(ex.steps.find("explain.logit_lens_ids")->info.bindings.back().source == "explain.logit_lens_ids");
    for (const auto& [name, rho] : ex.spearman) QVERIFY2(name.find("lens") == std::string::npos, "the lens ranks no tokens");
    QCOMPARE(parse_explain("logit-lens").front(), ExplainMethod::LogitLens);

    ModelConfig seeded;
    seeded.d_model = 8;
    seeded.heads = 2;
    seeded.d_ff = 8;
    QVERIFY_THROWS_EXCEPTION(ConfigError, check_explain(seeded, 4, {ExplainMethod::LogitLens}, false, false));
    check_explain(seeded, 4, {ExplainMethod::LogitLens}, false, true);
    const Weights w = init_weights(seeded);
    const Batch words = make_batch({"a b"}, {});
    Trace t;
    forward(seeded, w, words, t);
    QVERIFY_THROWS_EXCEPTION(ConfigError, explain::logit_lens(seeded, w, t, 5));
    // a tiled layer keeps its output: the lens alone is not refused, rollout is
    seeded.overview_cap = 64;
    check_explain(seeded, 4, {ExplainMethod::LogitLens}, false, true);
    QVERIFY_THROWS_EXCEPTION(ConfigError, check_explain(seeded, 4, {ExplainMethod::Rollout}, false, true));
  }
};

QTEST_APPLESS_MAIN(TestLogitLens)
#include "test_logit_lens.moc"
