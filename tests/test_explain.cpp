// The explanation methods (core/explain): hand-made cases whose answer is known on paper (a chain
// of identities, one layer, a key nobody attends to), the fast paths against the naive loops of
// explain_naive.h (flow: Dinic against Edmonds–Karp), and the steps of a real traced run with its
// backward pass. PyTorch checks the steps' code in tests/cli/test_cli_explain.py.
#include <QtTest>

#include <cmath>
#include <limits>

#include "backward/model_backward.h"
#include "explain/ablation.h"
#include "explain/explain.h"
#include "explain/explain_naive.h"
#include "explain/head_ablation.h"
#include "explain/relevance.h"
#include "forward/model.h"
#include "io/weights_file.h"
#include "model/weights.h"
#include "random_tensor.h"
#include "text/errors.h"

using namespace attnlab;
using explain::Mat;

namespace {

// (1, H, S, S) weights from per-head matrices.
Tensor weights_of(const explain::naive::Heads& heads) {
  const int64_t h = static_cast<int64_t>(heads.size()), s = static_cast<int64_t>(heads.front().size());
  Tensor t({1, h, s, s});
  for (int64_t k = 0; k < h; ++k)
    for (int64_t i = 0; i < s; ++i)
      for (int64_t j = 0; j < s; ++j) t.at({0, k, i, j}) = static_cast<float>(heads[size_t(k)][size_t(i)][size_t(j)]);
  return t;
}

// Random attention rows: softmax of seeded normals, key `masked_key` (if ≥ 0) and, with `causal`,
// keys after the query given weight 0. As float, then read back, so both paths see the same numbers.
explain::naive::Heads random_heads(int h, int s, const std::string& name, int masked_key = -1, bool causal = false) {
  const Tensor z = test::random_tensor({h, s, s}, name, 2.0f);
  explain::naive::Heads out(static_cast<size_t>(h), explain::naive::Matrix(static_cast<size_t>(s), std::vector<double>(static_cast<size_t>(s))));
  for (int k = 0; k < h; ++k)
    for (int i = 0; i < s; ++i) {
      double sum = 0;
      std::vector<double> row(static_cast<size_t>(s));
      for (int j = 0; j < s; ++j) {
        const bool off = j == masked_key || (causal && j > i);
        row[size_t(j)] = off ? 0.0 : std::exp(double(z.at({k, i, j})));
        sum += row[size_t(j)];
      }
      for (int j = 0; j < s; ++j) out[size_t(k)][size_t(i)][size_t(j)] = double(float(row[size_t(j)] / sum));
    }
  return out;
}

double max_diff(const Mat& a, const explain::naive::Matrix& b) {
  double worst = 0;
  for (int64_t i = 0; i < a.rows(); ++i)
    for (int64_t j = 0; j < a.cols(); ++j) worst = std::max(worst, std::abs(a(i, j) - b[size_t(i)][size_t(j)]));
  return worst;
}

std::vector<Mat> residuals(const std::vector<explain::naive::Heads>& layers) {
  std::vector<Mat> out;
  for (const auto& l : layers) out.push_back(explain::residual_attention(weights_of(l), 0));
  return out;
}

ModelConfig small(int64_t layers, MaskKind mask) {
  ModelConfig cfg;
  cfg.d_model = 8;
  cfg.heads = 2;
  cfg.d_ff = 16;
  cfg.layers = layers;
  cfg.mask = mask;
  return cfg;
}

}  // namespace

class TestExplain : public QObject {
  Q_OBJECT

 private slots:
  // Every layer attends only to itself: nothing moves between tokens, so rollout and flow are the
  // identity, and gradient-weighted attention multiplies the diagonal by (1 + g) per layer.
  void aChainOfIdentitiesMovesNothing() {
    const explain::naive::Heads eye{explain::naive::identity(4)};
    const std::vector<explain::naive::Heads> layers(3, eye);
    const auto a_hat = residuals(layers);
    QCOMPARE(max_diff(explain::rollout(a_hat), explain::naive::identity(4)), 0.0);
    QVERIFY(max_diff(explain::attention_flow(a_hat), explain::naive::identity(4)) < 1e-15);
    Tensor g({1, 1, 4, 4}, 0.5f);  // ∂L/∂A = 0.5 everywhere: Ā = 0.5·I, R = 1.5³·I
    const Mat a_bar = explain::grad_weighted(weights_of(eye), g, 0);
    const Mat r = explain::grad_rollout({a_bar, a_bar, a_bar});
    for (int i = 0; i < 4; ++i)
      for (int j = 0; j < 4; ++j) QCOMPARE(r(i, j), i == j ? 1.5 * 1.5 * 1.5 : 0.0);
  }

  // One layer: rollout is ½A + ½I (rows already sum to 1); flow has one edge per pair, so it is the
  // same matrix. Two heads averaged by hand.
  void oneLayerIsHalfAttentionHalfIdentity() {
    const explain::naive::Heads heads{{{1.0, 0.0}, {0.5, 0.5}}, {{1.0, 0.0}, {0.0, 1.0}}};
    const Mat r = explain::rollout(residuals({heads}));
    const Mat expected = (Mat(2, 2) << 1.0, 0.0, 0.125, 0.875).finished();  // mean_h row 1: (0.25, 0.75)
    QVERIFY((r - expected).cwiseAbs().maxCoeff() < 1e-15);
    QVERIFY((explain::attention_flow(residuals({heads})) - expected).cwiseAbs().maxCoeff() < 1e-15);
  }

  // Two layers where flow and rollout differ: Â = [[1, 0], [0.5, 0.5]] in both. Rollout
  // multiplies along paths (R[1, 1] = 0.5 · 0.5); flow is bounded by cuts: into position 1, token 0
  // sends 0.5 through each of its two paths (1.0), token 1 sends min(0.5, 0.5) = 0.5; rows ÷ 1.5.
  void flowIsACutNotAProduct() {
    const explain::naive::Heads l1{{{1.0, 0.0}, {1.0, 0.0}}}, l2{{{1.0, 0.0}, {1.0, 0.0}}};
    const auto a_hat = residuals({l1, l2});  // Â = [[1, 0], [0.5, 0.5]] in both layers
    const Mat r = explain::rollout(a_hat);
    QVERIFY(std::abs(r(1, 1) - 0.25) < 1e-15);
    QVERIFY(std::abs(r(1, 0) - 0.75) < 1e-15);
    const Mat f = explain::attention_flow(a_hat);
    QVERIFY(std::abs(f.row(1).sum() - 1.0) < 1e-12);
    QVERIFY(max_diff(f, explain::naive::attention_flow({l1, l2})) < 1e-12);
    QVERIFY(std::abs(f(1, 1) - 0.5 / 1.5) < 1e-12);
    QVERIFY(std::abs(f(1, 0) - 1.0 / 1.5) < 1e-12);
  }

  // A key that no head of any layer attends to ([PAD]): it reaches no other position, in rollout
  // and flow alike; its own row keeps its self-loop.
  void aKeyNobodyAttendsToReachesNoOne() {
    std::vector<explain::naive::Heads> layers;
    for (int l = 0; l < 3; ++l) layers.push_back(random_heads(2, 5, "masked" + std::to_string(l), 3));
    const auto a_hat = residuals(layers);
    const Mat r = explain::rollout(a_hat), f = explain::attention_flow(a_hat);
    for (int i = 0; i < 5; ++i) {
      if (i == 3) continue;
      QCOMPARE(r(i, 3), 0.0);
      QCOMPARE(f(i, 3), 0.0);
    }
    QVERIFY(r(3, 3) > 0 && f(3, 3) > 0);
  }

  // The fast paths against the naive loops on random heads (padding-free and causal).
  void fastPathsAgreeWithTheNaiveLoops() {
    for (bool causal : {false, true}) {
      std::vector<explain::naive::Heads> w, g;
      for (int l = 0; l < 3; ++l) {
        w.push_back(random_heads(3, 6, "w" + std::to_string(l), -1, causal));
        const Tensor gt = test::random_tensor({3, 6, 6}, "g" + std::to_string(l));
        explain::naive::Heads gh(3, explain::naive::Matrix(6, std::vector<double>(6)));
        for (int k = 0; k < 3; ++k)
          for (int i = 0; i < 6; ++i)
            for (int j = 0; j < 6; ++j) gh[size_t(k)][size_t(i)][size_t(j)] = gt.at({k, i, j});
        g.push_back(gh);
      }
      const auto a_hat = residuals(w);
      QVERIFY(max_diff(explain::rollout(a_hat), explain::naive::rollout(w)) < 1e-14);
      const Mat f = explain::attention_flow(a_hat);
      QVERIFY(max_diff(f, explain::naive::attention_flow(w)) < 1e-12);
      for (int i = 0; i < 6; ++i) QVERIFY(std::abs(f.row(i).sum() - 1.0) < 1e-12);
      if (causal)  // nothing flows from a later token
        for (int i = 0; i < 6; ++i)
          for (int j = i + 1; j < 6; ++j) QCOMPARE(f(i, j), 0.0);
      std::vector<Mat> a_bar;
      for (int l = 0; l < 3; ++l) a_bar.push_back(explain::grad_weighted(weights_of(w[size_t(l)]), weights_of(g[size_t(l)]), 0));
      QVERIFY(max_diff(explain::grad_rollout(a_bar), explain::naive::grad_rollout(w, g)) < 1e-13);
    }
  }

  // Chefer's gradient is that of the score explained: a loss's is negated (sign −1), so heads whose
  // attention lowers the loss count, not those that raise it.
  void aLossGradientIsNegated() {
    const explain::naive::Heads w{{{0.5, 0.5}, {0.25, 0.75}}};
    Tensor g({1, 1, 2, 2});
    g.at({0, 0, 0, 0}) = 1.0f, g.at({0, 0, 0, 1}) = -2.0f, g.at({0, 0, 1, 0}) = -1.0f, g.at({0, 0, 1, 1}) = 4.0f;
    const Mat plus = explain::grad_weighted(weights_of(w), g, 0, 1.0), minus = explain::grad_weighted(weights_of(w), g, 0, -1.0);
    QCOMPARE(plus(0, 0), 0.5);
    QCOMPARE(plus(0, 1), 0.0);
    QCOMPARE(minus(0, 0), 0.0);
    QCOMPARE(minus(0, 1), 1.0);
    QCOMPARE(minus(1, 0), 0.25);
    QCOMPARE(minus(1, 1), 0.0);
  }

  void namesParseAndRefuse() {
    const auto m = parse_explain("flow,rollout,flow,saliency,grad-attention,ablation");
    QCOMPARE(m.size(), size_t(5));
    QCOMPARE(explain_step_id(m[4]), std::string("explain.token_ablation"));
    QCOMPARE(m[0], ExplainMethod::Flow);
    QCOMPARE(explain_step_id(m[3]), std::string("explain.grad_attention"));
    try {
      parse_explain("rollout,attention");
      QFAIL("an unknown method was accepted");
    } catch (const ConfigError& e) {
      QVERIFY(e.text().english().find("'attention' is not one of") != std::string::npos);
    }
    QVERIFY_THROWS_EXCEPTION(ConfigError, parse_explain(""));
  }

  void checksRefuseWhatCannotBeExplained() {
    ModelConfig cfg = small(2, MaskKind::Causal);
    check_explain(cfg, 40, {ExplainMethod::Rollout, ExplainMethod::Flow}, false, false);  // fine
    QVERIFY_THROWS_EXCEPTION(ConfigError, check_explain(cfg, 8, {ExplainMethod::Saliency}, false, false));
    cfg.layers = 12;
    QCOMPARE(flow_max_tokens(12), int64_t(48));  // 12·48⁴ exactly: the limit itself is allowed
    QCOMPARE(flow_max_tokens(3), int64_t(67));
    QCOMPARE(flow_max_tokens(1), int64_t(89));
    check_explain(cfg, 48, {ExplainMethod::Flow}, false, false);
    QVERIFY_THROWS_EXCEPTION(ConfigError, check_explain(cfg, 49, {ExplainMethod::Flow}, false, false));
    check_explain(cfg, 4000, {ExplainMethod::Rollout}, false, false);  // rollout has no such limit
    check_explain(cfg, 256, {ExplainMethod::Ablation}, false, false);
    QVERIFY_THROWS_EXCEPTION(ConfigError, check_explain(cfg, 257, {ExplainMethod::Ablation}, false, false));
    cfg.layers = 2;
    cfg.overview_cap = kOverviewCap;
    cfg.full_layers = {0};
    try {
      check_explain(cfg, 8, {ExplainMethod::Rollout}, false, false);
      QFAIL("a tiled layer was accepted");
    } catch (const ConfigError& e) {
      QVERIFY(e.text().english().find("encoder.layers.1.self_attn.weights") != std::string::npos);
    }
    cfg.full_layers = {0, 1};
    check_explain(cfg, 8, {ExplainMethod::Rollout}, false, false);
    cfg = small(1, MaskKind::Causal);
    cfg.cross = true;  // an encoder–decoder has rollout (test_explain_cross), not flow
    check_explain(cfg, 8, {ExplainMethod::Rollout}, false, false);
    QVERIFY_THROWS_EXCEPTION(ConfigError, check_explain(cfg, 8, {ExplainMethod::Flow}, false, false));
  }

  // A traced run and its backward pass: every step's shape, and each value against the naive
  // loops fed from the trace's own tensors.
  void stepsOfATracedRun() {
    const ModelConfig cfg = small(2, MaskKind::Padding);
    const Weights w = init_weights(cfg);
    const Batch batch = make_batch({"the cat sat on the mat", "dogs bark"}, {});
    Trace fwd;
    forward(cfg, w, batch, fwd);
    const LossSpec spec;
    const BackwardResult bw = backward(cfg, w, fwd, spec);
    const std::vector<ExplainMethod> all{ExplainMethod::Rollout, ExplainMethod::Flow, ExplainMethod::GradAttention,
                                         ExplainMethod::Saliency};
    QVERIFY_THROWS_EXCEPTION(ConfigError, compute_explanations(cfg, w, batch, fwd, {}, all));
    const Explanations ex = compute_explanations(cfg, w, batch, fwd, {.bw = &bw, .loss = &spec}, all);
    const Trace& t = ex.steps;
    QVERIFY(ex.spearman.empty());  // no ablation asked: nothing to score against
    QCOMPARE(t.steps().size(), size_t(4));
    const int64_t s = batch.text.seq();
    for (const char* id : {"explain.rollout", "explain.flow", "explain.grad_attention"})
      QCOMPARE(t.find(id)->tensor.shape(), (Shape{2, s, s}));
    QCOMPARE(t.find("explain.saliency")->tensor.shape(), (Shape{2, s}));
    QCOMPARE(t.find("explain.rollout")->info.bindings.size(), size_t(2));
    QCOMPARE(t.find("explain.grad_attention")->info.bindings.size(), size_t(4));
    for (int64_t b = 0; b < 2; ++b) {
      std::vector<explain::naive::Heads> layers, grads;
      for (int l = 0; l < 2; ++l) {
        const std::string id = "encoder.layers." + std::to_string(l) + ".self_attn.weights";
        for (auto* out : {&layers, &grads}) {
          const Tensor& src = out == &layers ? fwd.find(id)->tensor : bw.steps.find(id + ".grad")->tensor;
          explain::naive::Heads heads(2, explain::naive::Matrix(size_t(s), std::vector<double>(size_t(s))));
          for (int h = 0; h < 2; ++h)
            for (int64_t i = 0; i < s; ++i)
              for (int64_t j = 0; j < s; ++j) heads[size_t(h)][size_t(i)][size_t(j)] = src.at({b, h, i, j});
          out->push_back(heads);
        }
      }
      const auto check = [&](const char* id, const explain::naive::Matrix& ref) {
        const Tensor& got = t.find(id)->tensor;
        for (int64_t i = 0; i < s; ++i)
          for (int64_t j = 0; j < s; ++j)
            QVERIFY2(std::abs(got.at({b, i, j}) - ref[size_t(i)][size_t(j)]) <= 1e-6 * (1 + std::abs(ref[size_t(i)][size_t(j)])), id);
      };
      check("explain.rollout", explain::naive::rollout(layers));
      check("explain.flow", explain::naive::attention_flow(layers));
      check("explain.grad_attention", explain::naive::grad_rollout(layers, grads));
      const Tensor& x = fwd.find("encoder.input")->tensor;
      const Tensor& g = bw.steps.find("encoder.input.grad")->tensor;
      for (int64_t i = 0; i < s; ++i) {
        double ref = 0;
        for (int64_t d = 0; d < cfg.d_model; ++d) ref += double(x.at({b, i, d})) * g.at({b, i, d});
        QVERIFY(std::abs(t.find("explain.saliency")->tensor.at({b, i}) - ref) <= 1e-6 * (1 + std::abs(ref)));
      }
    }
    // The short sentence's [PAD] keys: nobody attends to them, so no position receives from them.
    const Tensor& r = t.find("explain.rollout")->tensor;
    for (int64_t i = 0; i < 2; ++i) QCOMPARE(r.at({1, i, s - 1}), 0.0f);
  }

  void spearmanRanksWithTies() {
    QCOMPARE(explain::spearman({1, 2, 3, 4}, {10, 20, 30, 40}), 1.0);
    QCOMPARE(explain::spearman({1, 2, 3, 4}, {4, 3, 2, 1}), -1.0);
    // ranks (0.5, 0.5, 2) against (0, 1, 2): 1.5 / √(1.5 · 2)
    QVERIFY(std::abs(explain::spearman({1, 1, 2}, {5, 6, 7}) - 1.5 / std::sqrt(3.0)) < 1e-15);
    QVERIFY(std::isnan(explain::spearman({1, 2}, {1, 2})));        // too few
    QVERIFY(std::isnan(explain::spearman({1, 1, 1}, {1, 2, 3})));  // constant
    const double nan = std::numeric_limits<double>::quiet_NaN();
    QVERIFY(std::isnan(explain::spearman({1, nan, 3, 4}, {1, 2, 3, 4})));  // a planted fault's NaN: no ranking
  }

  void maskingAKeyKeepsEveryRowAlive() {
    Tensor causal({1, 3, 3}, 0.0f);
    for (int i = 0; i < 3; ++i)
      for (int j = 0; j <= i; ++j) causal.at({0, i, j}) = 1.0f;
    const Tensor m = explain::mask_without_key(causal, 0, 0);
    QCOMPARE(m.at({0, 0, 0}), 1.0f);  // the key's own row still sees it
    QCOMPARE(m.at({0, 1, 0}), 0.0f);
    QCOMPARE(m.at({0, 2, 0}), 0.0f);
    QCOMPARE(m.at({0, 2, 2}), 1.0f);
    QCOMPARE(causal.at({0, 1, 0}), 1.0f);  // a copy
    Tensor only({1, 2, 2}, 0.0f);  // row 1 sees key 0 only: masking it leaves row 1 its own key
    only.at({0, 0, 0}) = only.at({0, 1, 0}) = 1.0f;
    const Tensor k = explain::mask_without_key(only, 0, 0);
    QCOMPARE(k.at({0, 1, 0}), 0.0f);
    QCOMPARE(k.at({0, 1, 1}), 1.0f);
    const Tensor full = explain::mask_without_key(Tensor({1, 3, 3}, 1.0f), 0, 1);  // every other row loses key 1
    QCOMPARE(full.at({0, 0, 1}), 0.0f);
    QCOMPARE(full.at({0, 2, 1}), 0.0f);
    QCOMPARE(full.at({0, 1, 1}), 1.0f);
    QCOMPARE(full.at({0, 1, 0}), 1.0f);
  }

  // Without a position code and under a padding mask, masking key j for every other query is
  // the same as deleting token j from the sentence: the ablation's effect must equal a direct
  // re-run of the shorter sentence.
  void tokenAblationEqualsDeletingTheToken() {
    ModelConfig cfg = small(2, MaskKind::Padding);
    cfg.positional = Positional::None;
    const Weights w = init_weights(cfg);
    const std::vector<std::string> words{"the", "cat", "sat", "on", "a", "mat"};
    const auto sentence = [&](int skip) {
      std::string out;
      for (int i = 0; i < int(words.size()); ++i)
        if (i != skip) out += (out.empty() ? "" : " ") + words[size_t(i)];
      return out;
    };
    const Batch batch = make_batch({sentence(-1)}, {});
    Trace fwd;
    const Tensor clean = forward(cfg, w, batch, fwd);
    const auto query = explain::explained_positions(batch);
    QCOMPARE(query, std::vector<int64_t>{5});
    const auto ab = explain::ablate_tokens(cfg, w, fwd, query);
    QVERIFY(!ab.logprob);
    for (int j = 0; j < 5; ++j) {
      NullRecorder none;
      const Tensor shorter = forward(cfg, w, make_batch({sentence(j)}, {}), none);
      double d = 0;
      for (int64_t k = 0; k < cfg.d_model; ++k) d += std::pow(double(shorter.at({0, 4, k})) - clean.at({0, 5, k}), 2);
      QVERIFY2(std::abs(std::sqrt(d) - ab.effect.at({0, j})) <= 1e-5 * (1 + std::sqrt(d)), qPrintable(QString::number(j)));
      QVERIFY(ab.effect.at({0, j}) > 1e-4);  // every token matters somewhat
    }
    // Scored: Spearman's ρ of the last layer's attention and of rollout against that effect.
    const Explanations ex = compute_explanations(cfg, w, batch, fwd, {}, {ExplainMethod::Rollout, ExplainMethod::Ablation});
    QCOMPARE(ex.spearman.size(), size_t(2));
    QCOMPARE(ex.spearman[0].first, std::string("attention"));
    QCOMPARE(ex.spearman[1].first, std::string("rollout"));
    std::vector<double> roll, effect;
    for (int j = 0; j < 5; ++j) {  // the explained position's own token is not scored
      roll.push_back(ex.steps.find("explain.rollout")->tensor.at({0, 5, j}));
      effect.push_back(ex.steps.find("explain.token_ablation")->tensor.at({0, j}));
    }
    QCOMPARE(ex.spearman[1].second.at(0), explain::spearman(roll, effect));
  }

  // A trained model's effect is |Δ log p| of the token the clean model predicts at the explained
  // position: recomputed here by hand from the trace's logits and a masked re-run.
  void aTrainedModelsEffectIsTheChangeInLogProbability() {
    const auto loaded = load_weights_file(std::string(ATTNLAB_TEST_DATA) + "/../sample_inputs/models/english-next-word.safetensors",
                                          ModelConfig{}, {});
    // The last three: sentences where hiding one word changes the model's own guess (for the
    // shipped model since its 16000-step training; the first five no longer have one).
    const Batch batch = make_batch({"you will be married within a year", "the best way to", "there is no such thing as a",
                                    "a dog", "you", "He said that", "The answer is", "To be or not to"},
                                   {}, loaded.weights.vocab().get());
    Trace fwd;
    forward(loaded.cfg, loaded.weights, batch, fwd);
    const auto query = explain::explained_positions(batch);
    const auto ab = explain::ablate_tokens(loaded.cfg, loaded.weights, fwd, query);
    QVERIFY(ab.logprob);
    const Tensor& logits = fwd.find("encoder.output_head.logits")->tensor;  // (B, S, V)
    const int64_t v = logits.size(2);
    const auto log_softmax = [v](auto at) {
      double top = -1e300, sum = 0;
      for (int64_t c = 0; c < v; ++c) top = std::max(top, double(at(c)));
      for (int64_t c = 0; c < v; ++c) sum += std::exp(double(at(c)) - top);
      return [=](int64_t k) { return double(at(k)) - top - std::log(sum); };
    };
    double largest = 0;
    int changed = 0;  // masked runs whose own top guess differs: the effect must follow the clean guess
    for (int64_t b = 0; b < batch.text.batch(); ++b) {
      const int64_t q = query[size_t(b)];
      const auto argmax = [&](auto at) {
        int64_t best = 0;
        for (int64_t c = 1; c < v; ++c)
          if (at(c) > at(best)) best = c;
        return best;
      };
      const int64_t predicted = argmax([&](int64_t c) { return logits.at({b, q, c}); });
      const auto before = log_softmax([&](int64_t c) { return logits.at({b, q, c}); });
      for (int64_t j = 0; j < q; ++j) {
        const Tensor after_logits = encoder_outputs(loaded.cfg, loaded.weights, fwd.find("encoder.input")->tensor,
                                                    explain::mask_without_key(fwd.find("encoder.mask")->tensor, b, j));
        const auto at = [&](int64_t c) { return after_logits.at({b, q, c}); };
        changed += argmax(at) != predicted;
        const auto after = log_softmax(at);
        const double want = std::abs(after(predicted) - before(predicted));
        QVERIFY2(std::abs(ab.effect.at({b, j}) - want) <= 1e-4 * (1 + want), qPrintable(QString("%1, %2").arg(b).arg(j)));
        largest = std::max(largest, want);
      }
    }
    QVERIFY(largest > 1e-3);  // some word matters to the trained model
    QVERIFY(changed > 0);     // and some mask changes the guess, so ŷ's choice is tested too
  }

  // A [MASK] (a BERT checkpoint's piece) is the explained position of its sentence; otherwise
  // the last real token.
  void theExplainedPositionIsTheMaskOrTheLastToken() {
    Batch batch;
    batch.text.tokens = {{"the", "[MASK]", "sat", "down"}, {"dogs", "bark", "[PAD]", "[PAD]"}};
    batch.text.lengths = {4, 2};
    QCOMPARE(explain::explained_positions(batch), (std::vector<int64_t>{1, 1}));
  }

  void headListsParseAndRefuse() {
    const auto h = explain::parse_heads("1.3,2.0,1.3");
    QCOMPARE(h.size(), size_t(2));
    QCOMPARE(h[0], (explain::HeadRef{1, 3}));
    QCOMPARE(h[1], (explain::HeadRef{2, 0}));
    for (const char* bad : {"", "1", "1.", ".2", "a.b", "1.-1", "1.3.4", "1.3,"}) {
      try {
        explain::parse_heads(bad);
        QFAIL(bad);
      } catch (const ConfigError& e) {
        QVERIFY(e.text().english().find("is not LAYER.HEAD") != std::string::npos);
      }
    }
    const ModelConfig cfg = small(2, MaskKind::Padding);
    explain::check_heads(cfg, {{1, 1}});
    try {
      explain::check_heads(cfg, {{2, 0}});
      QFAIL("layer 2 of 2 was accepted");
    } catch (const ConfigError& e) {
      QCOMPARE(e.text().english(), std::string("--ablate 2.0: the model has 2 layers of 2 heads, counted from 0"));
    }
    QVERIFY_THROWS_EXCEPTION(ConfigError, explain::check_heads(cfg, {{0, 2}}));
  }

  // Knocking a head out on the weights is exactly the edited head_out: the block's output
  // recomputed by hand from the clean run's context with the head's Dh features zeroed (zero) or
  // replaced by their mean over the real positions (mean), through the clean W_O and bias.
  void ablatedWeightsEqualAnEditedHeadOut() {
    const ModelConfig cfg = small(2, MaskKind::Padding);
    const Weights w = init_weights(cfg);
    const Batch batch = make_batch({"the cat sat on the mat", "dogs bark"}, {});
    Trace clean;
    forward(cfg, w, batch, clean);
    const std::string p = "encoder.layers.1.self_attn.";
    const Tensor& ctx = clean.find(p + "context")->tensor;  // (B, S, D), head h's features h·Dh …
    const Tensor& wo = w.get(p + "out_proj.weight");
    const Tensor& bo = w.get(p + "out_proj.bias");
    const int64_t dh = cfg.d_model / cfg.heads, s = batch.text.seq();
    for (auto mode : {explain::AblateMode::Zero, explain::AblateMode::Mean}) {
      const std::vector<double> m = explain::mean_head_out(clean, {1, 1}, batch.text.lengths);
      const Weights knocked = explain::ablate_heads(cfg, w, {{1, 1}}, mode, clean, batch.text.lengths);
      QCOMPARE(w.get(p + "out_proj.weight").at({0, dh}), wo.at({0, dh}));  // the original is untouched
      Trace t;
      forward(cfg, knocked, batch, t);
      QCOMPARE(t.find(p + "head_out")->tensor.at({0, 1, 2, 0}), clean.find(p + "head_out")->tensor.at({0, 1, 2, 0}));
      const Tensor& out = t.find(p + "out")->tensor;
      for (int64_t b = 0; b < 2; ++b)
        for (int64_t i = 0; i < s; ++i)
          for (int64_t r = 0; r < cfg.d_model; ++r) {
            double y = bo.at({r});
            for (int64_t c = 0; c < cfg.d_model; ++c) {
              const bool head = c >= dh && c < 2 * dh;
              const double x = !head ? ctx.at({b, i, c}) : mode == explain::AblateMode::Zero ? 0.0 : m[size_t(c - dh)];
              y += x * wo.at({r, c});
            }
            QVERIFY2(std::abs(out.at({b, i, r}) - y) <= 1e-5 * (1 + std::abs(y)), "A.out with head 1.1 knocked out");
          }
    }
    // the mean: over the 6 + 2 real positions only
    double by_hand = 0;
    const Tensor& ho = clean.find(p + "head_out")->tensor;
    for (int64_t b = 0; b < 2; ++b)
      for (int64_t i = 0; i < batch.text.lengths[size_t(b)]; ++i) by_hand += ho.at({b, 1, i, 0});
    QVERIFY(std::abs(explain::mean_head_out(clean, {1, 1}, batch.text.lengths)[0] - by_hand / 8) < 1e-7);
  }

  // Every head's row: its loss is what the traced model with that head knocked out gives.
  void theHeadTableIsEveryHeadKnockedOutAlone() {
    const ModelConfig cfg = small(2, MaskKind::Padding);
    const Weights w = init_weights(cfg);
    const Batch batch = make_batch({"the cat sat on the mat", "dogs bark"}, {});
    Trace clean;
    forward(cfg, w, batch, clean);
    const LossSpec spec;
    const BackwardResult bw = backward(cfg, w, clean, spec);
    const Explanations ex = compute_explanations(cfg, w, batch, clean, {.bw = &bw, .loss = &spec, .mode = explain::AblateMode::Mean},
                                                 {ExplainMethod::Heads});
    QVERIFY(ex.steps.steps().empty());
    QCOMPARE(ex.heads.size(), size_t(4));
    QCOMPARE(ex.loss, bw.loss);
    for (size_t k = 0; k < ex.heads.size(); ++k) {
      const auto& row = ex.heads[k];
      if (k) QVERIFY(ex.heads[k - 1].delta >= row.delta);
      Trace t;
      forward(cfg, explain::ablate_heads(cfg, w, {row.head}, explain::AblateMode::Mean, clean, batch.text.lengths), batch, t);
      const double loss = backward(cfg, w, t, spec).loss;
      QVERIFY2(std::abs(row.loss - loss) <= 1e-4 * (1 + std::abs(loss)), "a head's loss against a traced re-run");
      QVERIFY(std::abs(row.delta - (row.loss - bw.loss)) <= 1e-6 * (1 + std::abs(bw.loss)));  // clean: the untraced path
    }
    QVERIFY(std::abs(ex.heads.front().delta) > 1e-4);  // knocking a head out changes the loss
  }

  // A stop flag set (a panel closing, its result outdated) ends the re-running methods with
  // Cancelled before their next forward pass; unset, it changes nothing.
  void aStopFlagEndsTheReRunsAndNothingElse() {
    const auto loaded = load_weights_file(std::string(ATTNLAB_TEST_DATA) + "/../sample_inputs/models/english-next-word.safetensors",
                                          ModelConfig{}, {});
    const Batch batch = make_batch({"the best way to", "a dog"}, {}, loaded.weights.vocab().get());
    Trace fwd;
    forward(loaded.cfg, loaded.weights, batch, fwd);
    const LossSpec spec{.kind = LossKind::NextToken};
    const BackwardResult bw = backward(loaded.cfg, loaded.weights, fwd, spec);
    std::atomic<bool> stop{true};
    for (const ExplainMethod m : {ExplainMethod::Ablation, ExplainMethod::Heads, ExplainMethod::LogitLens})
      QVERIFY_THROWS_EXCEPTION(Cancelled, compute_explanations(loaded.cfg, loaded.weights, batch, fwd,
                                                               {.bw = &bw, .loss = &spec, .stop = &stop}, {m}));
    const auto query = explain::explained_positions(batch);
    QVERIFY_THROWS_EXCEPTION(Cancelled, explain::ablate_tokens(loaded.cfg, loaded.weights, fwd, query, &stop));
    // rollout re-runs nothing: it ignores the flag
    QVERIFY(!compute_explanations(loaded.cfg, loaded.weights, batch, fwd, {.stop = &stop}, {ExplainMethod::Rollout}).steps.steps().empty());
    stop = false;
    const auto a = explain::ablate_tokens(loaded.cfg, loaded.weights, fwd, query, &stop);
    const auto b = explain::ablate_tokens(loaded.cfg, loaded.weights, fwd, query);
    QCOMPARE(a.effect.to_vector(), b.effect.to_vector());
    const auto ha = explain::head_effects(loaded.cfg, loaded.weights, fwd, spec, explain::AblateMode::Zero, batch.text.lengths, {}, &stop);
    QCOMPARE(ha.size(), size_t(loaded.cfg.layers * loaded.cfg.heads));
  }
};

QTEST_APPLESS_MAIN(TestExplain)
#include "test_explain.moc"
