// The explanations of an encoder–decoder run (core/explain, Chefer et al. 2021's rules for it):
// a case worked on paper, the fast paths against explain_naive.h's loops on random rectangular
// attention, the steps of a traced run with its backward pass, token ablation of the source
// against whole forward passes, and the methods it refuses.
// PyTorch reruns the steps' code in tests/cli/test_cli_explain.py.
#include <QtTest>

#include <cmath>
#include <stdexcept>
#include <utility>

#include "backward/model_backward.h"
#include "explain/explain.h"
#include "explain/ablation.h"
#include "explain/explain_naive.h"
#include "explain/relevance.h"
#include "forward/model.h"
#include "model/weights.h"
#include "random_tensor.h"
#include "text/errors.h"

using namespace attnlab;
using explain::Mat;
using Heads = explain::naive::Heads;

namespace {

// (1, H, T, S) from per-head (T, S) matrices.
Tensor tensor_of(const Heads& heads) {
  const int64_t h = int64_t(heads.size()), t = int64_t(heads.front().size()), s = int64_t(heads.front().front().size());
  Tensor out({1, h, t, s});
  for (int64_t k = 0; k < h; ++k)
    for (int64_t i = 0; i < t; ++i)
      for (int64_t j = 0; j < s; ++j) out.at({0, k, i, j}) = float(heads[size_t(k)][size_t(i)][size_t(j)]);
  return out;
}

// One sentence's (H, T, S) block b of a trace's (B, H, T, S) tensor.
Heads block_of(const Tensor& t, int64_t b) {
  Heads out(size_t(t.size(1)), explain::naive::Matrix(size_t(t.size(2)), std::vector<double>(size_t(t.size(3)))));
  for (int64_t h = 0; h < t.size(1); ++h)
    for (int64_t i = 0; i < t.size(2); ++i)
      for (int64_t j = 0; j < t.size(3); ++j) out[size_t(h)][size_t(i)][size_t(j)] = t.at({b, h, i, j});
  return out;
}

// (H, T, S) seeded values, stored as float and read back, so both paths see the same numbers:
// softmax rows (`causal`: keys after the query weigh 0) when `rows`, else plain normals (a gradient).
Heads random_block(int h, int t, int s, const std::string& name, bool rows, bool causal = false) {
  Tensor z = test::random_tensor({1, h, t, s}, name, 1.5f);
  for (int k = 0; k < h && rows; ++k)
    for (int i = 0; i < t; ++i) {
      double sum = 0;
      for (int j = 0; j < s; ++j) sum += causal && j > i ? 0.0 : std::exp(double(z.at({0, k, i, j})));
      for (int j = 0; j < s; ++j) z.at({0, k, i, j}) = causal && j > i ? 0.0f : float(std::exp(double(z.at({0, k, i, j}))) / sum);
    }
  return block_of(z, 0);
}

double max_diff(const Mat& a, const explain::naive::Matrix& b) {
  double worst = 0;
  for (int64_t i = 0; i < a.rows(); ++i)
    for (int64_t j = 0; j < a.cols(); ++j) worst = std::max(worst, std::abs(a(i, j) - b[size_t(i)][size_t(j)]));
  return worst;
}

ModelConfig cross_model(int64_t layers) {
  ModelConfig cfg;
  cfg.d_model = 8;
  cfg.heads = 2;
  cfg.d_ff = 16;
  cfg.layers = layers;
  cfg.mask = MaskKind::PaddingCausal;
  cfg.cross = true;
  return cfg;
}

}  // namespace

class TestExplainCross : public QObject {
  Q_OBJECT

 private slots:
  // One layer each, one head. Encoder: no gradient, so R_ss = I and R̄_ss = I (a zero row of
  // R − I stays zero: no 0/0). Decoder self-attention A = [[1, 0], [½, ½]] with ∇A = [[0.2, 0],
  // [0.8, 0.8]]: Ā = [[0.2, 0], [0.4, 0.4]], R_tt = I + Ā, R̄_tt = [[2, 0], [½, 1½]] (R − I's rows
  // scaled to sum 1, + I). Cross-attention A = I, ∇A = 1: Ā = I. Rule 10 adds R̄_ttᵀ · I · I, so
  // R_ts = [[2, ½], [0, 1½]]: the transpose hands position 1's source token to position 0.
  void rulesWorkedOnPaper() {
    const Heads enc{{{1, 0}, {0, 1}}}, dec{{{1, 0}, {0.5, 0.5}}}, cross{{{1, 0}, {0, 1}}};
    const Tensor g_enc({1, 1, 2, 2}, 0.0f), g_cross({1, 1, 2, 2}, 1.0f);
    const Tensor g_dec = tensor_of(Heads{{{0.2, 0}, {0.8, 0.8}}});
    const Mat r = explain::encdec_grad_relevance({explain::grad_weighted(tensor_of(enc), g_enc, 0)},
                                                 {explain::grad_weighted(tensor_of(dec), g_dec, 0)},
                                                 {explain::grad_weighted(tensor_of(cross), g_cross, 0)});
    const Mat expected = (Mat(2, 2) << 2.0, 0.5, 0.0, 1.5).finished();
    QVERIFY2((r - expected).cwiseAbs().maxCoeff() < 1e-7, "R_ts");  // 0.2, 0.8 are floats
    QVERIFY(r.allFinite());
    // Rollout (their baseline): R_ss = I; R_tt = Â = [[1, 0], [¼, ¾]]; R_ttᵀ · A_cross · R_ss = R_ttᵀ.
    const Mat roll = explain::encdec_rollout(explain::rollout({explain::residual_attention(tensor_of(enc), 0)}),
                                             explain::rollout({explain::residual_attention(tensor_of(dec), 0)}),
                                             explain::head_mean(tensor_of(cross), 0));
    QVERIFY((roll - (Mat(2, 2) << 1.0, 0.25, 0.0, 0.75).finished()).cwiseAbs().maxCoeff() < 1e-15);
  }

  // Random attention (T 3 causal decoder, S 5 source, 2 heads, 2 layers): Eigen against the loops.
  void fastPathsAgreeWithTheLoops() {
    std::vector<Heads> enc, enc_g, dec, dec_g, cross, cross_g;
    std::vector<Mat> enc_bar, dec_bar, cross_bar, enc_hat, dec_hat;
    for (int l = 0; l < 2; ++l) {
      const std::string n = std::to_string(l);
      enc.push_back(random_block(2, 5, 5, "enc" + n, true));
      dec.push_back(random_block(2, 3, 3, "dec" + n, true, true));
      cross.push_back(random_block(2, 3, 5, "cross" + n, true));
      enc_g.push_back(random_block(2, 5, 5, "genc" + n, false));
      dec_g.push_back(random_block(2, 3, 3, "gdec" + n, false));
      cross_g.push_back(random_block(2, 3, 5, "gcross" + n, false));
      enc_bar.push_back(explain::grad_weighted(tensor_of(enc[size_t(l)]), tensor_of(enc_g[size_t(l)]), 0, -1.0));
      dec_bar.push_back(explain::grad_weighted(tensor_of(dec[size_t(l)]), tensor_of(dec_g[size_t(l)]), 0, -1.0));
      cross_bar.push_back(explain::grad_weighted(tensor_of(cross[size_t(l)]), tensor_of(cross_g[size_t(l)]), 0, -1.0));
      enc_hat.push_back(explain::residual_attention(tensor_of(enc[size_t(l)]), 0));
      dec_hat.push_back(explain::residual_attention(tensor_of(dec[size_t(l)]), 0));
    }
    const Mat fast = explain::encdec_grad_relevance(enc_bar, dec_bar, cross_bar);
    QCOMPARE(fast.rows(), Eigen::Index(3));
    QCOMPARE(fast.cols(), Eigen::Index(5));
    QVERIFY(fast.maxCoeff() > 0);
    const double d = max_diff(fast, explain::naive::encdec_grad_relevance(enc, enc_g, dec, dec_g, cross, cross_g, -1.0));
    QVERIFY2(d < 1e-12 * (1 + fast.cwiseAbs().maxCoeff()), qPrintable(QString::number(d) + " of " + QString::number(fast.cwiseAbs().maxCoeff())));
    const Mat roll = explain::encdec_rollout(explain::rollout(enc_hat), explain::rollout(dec_hat),
                                             explain::head_mean(tensor_of(cross.back()), 0));
    QVERIFY(max_diff(roll, explain::naive::encdec_rollout(enc, dec, cross.back())) < 1e-12);
  }

  // A traced encoder–decoder run and its backward: shapes (B, T, S) and (B, S), each value against
  // the loops fed from the trace, the explained position the decoder's last token; flow and the
  // lens are refused, naming the run (the head table is not: headsOfTheDecoderAreKnockedOut).
  void stepsOfATracedRun() {
    const ModelConfig cfg = cross_model(2);
    const Weights w = init_weights(cfg);
    const Batch batch = make_batch({"the cat sat", "a dog barks at the moon"}, {"le chat noir dort", "un chien"});
    Trace fwd;
    forward(cfg, w, batch, fwd);
    const LossSpec spec;
    const BackwardResult bw = backward(cfg, w, fwd, spec);
    const std::vector<ExplainMethod> ok{ExplainMethod::Rollout, ExplainMethod::GradAttention, ExplainMethod::Saliency};
    check_explain(cfg, batch.memory.seq(), ok, true, false);
    check_explain(cfg, batch.memory.seq(), {ExplainMethod::Ablation, ExplainMethod::Heads}, true, false);
    for (ExplainMethod m : {ExplainMethod::Flow, ExplainMethod::LogitLens}) {
      try {
        check_explain(cfg, batch.memory.seq(), {ExplainMethod::Rollout, m}, true, true);
        QFAIL("an encoder–decoder run was explained by a one-stack method");
      } catch (const ConfigError& e) {
        QVERIFY(e.text().english().find("--explain " + std::string(explain_name(m))) != std::string::npos);
        QVERIFY(e.text().english().find("encoder–decoder") != std::string::npos);
      }
    }
    const Explanations ex = compute_explanations(cfg, w, batch, fwd, {.bw = &bw, .loss = &spec}, ok);
    const int64_t t = batch.text.seq(), s = batch.memory.seq();
    QVERIFY(t != s);
    QCOMPARE(ex.query, (std::vector<int64_t>{2, 5}));  // the decoder's last real tokens
    // A chosen position is the decoder's: 4 is past "un chien" (2 source tokens) but within "a dog
    // barks at the moon"; 3 is past "the cat sat" and falls back to its last token.
    QCOMPARE(compute_explanations(cfg, w, batch, fwd, {.query = {3, 4}}, {ExplainMethod::Rollout}).query,
             (std::vector<int64_t>{2, 4}));
    QCOMPARE(ex.steps.find("explain.rollout")->tensor.shape(), (Shape{2, t, s}));
    QCOMPARE(ex.steps.find("explain.grad_attention")->tensor.shape(), (Shape{2, t, s}));
    QCOMPARE(ex.steps.find("explain.saliency")->tensor.shape(), (Shape{2, s}));
    QCOMPARE(ex.steps.find("explain.rollout")->info.bindings.size(), size_t(6));  // e0 e1 d0 d1 c1 ids
    QCOMPARE(ex.steps.find("explain.grad_attention")->info.bindings.size(), size_t(13));
    const auto blocks = [&](const std::string& block, const Trace& from, const std::string& suffix, int64_t b) {
      std::vector<Heads> out;
      for (int l = 0; l < 2; ++l) out.push_back(block_of(from.find(block + std::to_string(l) + "." + suffix)->tensor, b));
      return out;
    };
    for (int64_t b = 0; b < 2; ++b) {
      const auto enc = blocks("encoder.layers.", fwd, "self_attn.weights", b), dec = blocks("decoder.layers.", fwd, "self_attn.weights", b),
                 cross = blocks("decoder.layers.", fwd, "multihead_attn.weights", b);
      const auto enc_g = blocks("encoder.layers.", bw.steps, "self_attn.weights.grad", b),
                 dec_g = blocks("decoder.layers.", bw.steps, "self_attn.weights.grad", b),
                 cross_g = blocks("decoder.layers.", bw.steps, "multihead_attn.weights.grad", b);
      const auto check = [&](const char* id, const explain::naive::Matrix& ref) {
        const Tensor& got = ex.steps.find(id)->tensor;
        double top = 0;
        for (int64_t i = 0; i < t; ++i)
          for (int64_t j = 0; j < s; ++j) {
            QVERIFY2(std::abs(got.at({b, i, j}) - ref[size_t(i)][size_t(j)]) <= 1e-6 * (1 + std::abs(ref[size_t(i)][size_t(j)])), id);
            top = std::max(top, ref[size_t(i)][size_t(j)]);
          }
        QVERIFY2(top > 0, id);  // not a matrix of zeros
      };
      const size_t real = size_t(batch.text.lengths[size_t(b)]);  // the decoder's [PAD] rows left out
      check("explain.rollout", explain::naive::encdec_rollout(enc, dec, cross.back(), real));
      check("explain.grad_attention", explain::naive::encdec_grad_relevance(enc, enc_g, dec, dec_g, cross, cross_g, 1.0, real));
      const Tensor& x = fwd.find("encoder.input")->tensor;
      const Tensor& g = bw.steps.find("encoder.input.grad")->tensor;
      for (int64_t i = 0; i < s; ++i) {
        double ref = 0;
        for (int64_t d = 0; d < cfg.d_model; ++d) ref += double(x.at({b, i, d})) * g.at({b, i, d});
        QVERIFY(std::abs(ex.steps.find("explain.saliency")->tensor.at({b, i}) - ref) <= 1e-6 * (1 + std::abs(ref)));
      }
    }
    // The second source sentence's [PAD] keys: no head attends to them, so no decoder position
    // receives from them.
    const Tensor& r = ex.steps.find("explain.rollout")->tensor;
    for (int64_t i = 0; i < t; ++i) QCOMPARE(r.at({1, i, s - 1}), 0.0f);
    // The rows a table shows: sentence 1 at its last decoder token (5), over the S source tokens.
    const Tensor& cross = fwd.find("decoder.layers.1.multihead_attn.weights")->tensor;
    const std::vector<double> attention = explained_row(cfg, fwd, ex, "attention", 1);
    QCOMPARE(attention.size(), size_t(s));
    for (int64_t j = 0; j < s; ++j)
      QVERIFY(std::abs(attention[size_t(j)] - 0.5 * (double(cross.at({1, 0, 5, j})) + cross.at({1, 1, 5, j}))) < 1e-7);
    for (const char* key : {"rollout", "grad_attention"}) {
      const std::vector<double> row = explained_row(cfg, fwd, ex, key, 1);
      QCOMPARE(row.size(), size_t(s));
      for (int64_t j = 0; j < s; ++j) QCOMPARE(row[size_t(j)], double(ex.steps.find(std::string("explain.") + key)->tensor.at({1, 5, j})));
    }
    QCOMPARE(explained_row(cfg, fwd, ex, "saliency", 1).size(), size_t(s));
    // The decoder's [PAD] rows reach no real row: "the cat sat" alone gives its rollout rows again.
    const Batch alone = make_batch({"the cat sat"}, {"le chat noir dort"});
    Trace one;
    forward(cfg, w, alone, one);
    const Explanations solo_ex = compute_explanations(cfg, w, alone, one, {}, {ExplainMethod::Rollout});
    const Tensor& solo = solo_ex.steps.find("explain.rollout")->tensor;
    QCOMPARE(solo.shape(), (Shape{1, 3, s}));
    for (int64_t i = 0; i < 3; ++i)
      for (int64_t j = 0; j < s; ++j) QVERIFY(std::abs(solo.at({0, i, j}) - r.at({0, i, j})) < 1e-6);
    for (int64_t i = 3; i < t; ++i)  // and the [PAD] rows themselves are 0
      for (int64_t j = 0; j < s; ++j) QCOMPARE(r.at({0, i, j}), 0.0f);
  }

  // Token ablation of the source: masking a sentence's last real source token is the same as the
  // model run on the source without it (a shorter text: every other token keeps its position), so
  // its effect is the distance between two whole traced forward passes at the explained decoder
  // position. [PAD] keys have no effect; ρ is over every real source token (a source has no token
  // of the explained position's own); a one-token source cannot lose its only key.
  void tokenAblationOfTheSource() {
    const ModelConfig cfg = cross_model(2);
    const Weights w = init_weights(cfg);
    const std::vector<std::string> text{"the cat sat", "a dog barks at the moon"};
    const Batch batch = make_batch(text, {"le chat noir dort", "un chien"});
    Trace fwd;
    const Tensor full = forward(cfg, w, batch, fwd);  // (B, T, D)
    const std::vector<ExplainMethod> asked{ExplainMethod::Rollout, ExplainMethod::Ablation};
    check_explain(cfg, batch.memory.seq(), asked, false, false);
    const Explanations ex = compute_explanations(cfg, w, batch, fwd, {}, asked);
    const Tensor& effect = ex.steps.find("explain.token_ablation")->tensor;  // (B, S)
    QCOMPARE(effect.shape(), (Shape{2, 4}));
    QCOMPARE(ex.query, (std::vector<int64_t>{2, 5}));
    QVERIFY(!ex.logprob);
    for (int64_t j = 0; j < 4; ++j) QVERIFY(effect.at({0, j}) > 0);
    QVERIFY(effect.at({1, 0}) > 0 && effect.at({1, 1}) > 0);
    QCOMPARE(effect.at({1, 2}), 0.0f);  // "un chien"'s [PAD] keys
    QCOMPARE(effect.at({1, 3}), 0.0f);
    const auto moved = [&](const std::vector<std::string>& memory, int64_t b, int64_t q) {
      Trace shorter;
      const Tensor out = forward(cfg, w, make_batch(text, memory), shorter);
      double d = 0;
      for (int64_t k = 0; k < cfg.d_model; ++k) d += std::pow(double(out.at({b, q, k})) - full.at({b, q, k}), 2);
      return std::sqrt(d);
    };
    const double dort = moved({"le chat noir", "un chien"}, 0, 2), chien = moved({"le chat noir dort", "un"}, 1, 5);
    QVERIFY2(std::abs(effect.at({0, 3}) - dort) <= 1e-5 * (1 + dort), qPrintable(QString::number(effect.at({0, 3})) + " vs " + QString::number(dort)));
    QVERIFY2(std::abs(effect.at({1, 1}) - chien) <= 1e-5 * (1 + chien), qPrintable(QString::number(effect.at({1, 1})) + " vs " + QString::number(chien)));
    // ρ of sentence 0 over all four source tokens (the decoder position 2 is not a source token).
    const auto rho = [&](const std::string& name) {
      for (const auto& [key, values] : ex.spearman)
        if (key == name) return values;
      return std::vector<double>{};
    };
    for (const std::string name : {"attention", "rollout"}) {
      const std::vector<double> row = explained_row(cfg, fwd, ex, name, 0);
      const std::vector<double> e{effect.at({0, 0}), effect.at({0, 1}), effect.at({0, 2}), effect.at({0, 3})};
      QCOMPARE(rho(name).size(), size_t(2));
      QVERIFY(std::isfinite(rho(name)[0]));
      QCOMPARE(rho(name)[0], explain::spearman(row, e));
      QVERIFY(std::isnan(rho(name)[1]));  // two source tokens
    }
    // One source token: masking it would leave the decoder nothing to read, so it stays.
    const Batch lone = make_batch({"the cat"}, {"chat"});
    Trace one;
    forward(cfg, w, lone, one);
    const Explanations lone_ex = compute_explanations(cfg, w, lone, one, {}, {ExplainMethod::Ablation});
    const Tensor& none = lone_ex.steps.find("explain.token_ablation")->tensor;
    QCOMPARE(none.shape(), (Shape{1, 1}));
    QCOMPARE(none.at({0, 0}), 0.0f);
  }

  // Heads of the decoder: named decoder.L.H and cross.L.H (read back as written), refused without a
  // decoder; knocked out in mean mode, a cross-attention head's W_O columns go to 0 and the bias
  // gains W_O[:, cols] · m with m its head_out averaged over the decoder's real positions only.
  void headsOfTheDecoderAreKnockedOut() {
    const auto heads = explain::parse_heads("1.1,decoder.0.1,cross.1.0,encoder.0.0");
    QCOMPARE(heads.size(), size_t(4));
    QVERIFY(heads[0] == (explain::HeadRef{1, 1, explain::HeadBlock::Encoder}));
    QVERIFY(heads[1] == (explain::HeadRef{0, 1, explain::HeadBlock::Decoder}));
    QVERIFY(heads[2] == (explain::HeadRef{1, 0, explain::HeadBlock::Cross}));
    QVERIFY(heads[3] == (explain::HeadRef{0, 0, explain::HeadBlock::Encoder}));
    QCOMPARE(explain::heads_text(heads), std::string("1.1,decoder.0.1,cross.1.0,0.0"));
    QCOMPARE(explain::head_label(heads[0], true), std::string("encoder.1.1"));  // the window's name in such a run
    QCOMPARE(explain::head_label(heads[2], true), std::string("cross.1.0"));
    QCOMPARE(explain::head_label(heads[0], false), std::string("1.1"));
    QCOMPARE(explain::parse_heads("cross.1.0,1.1,encoder.1.1").size(), size_t(2));  // the same head twice: once
    for (const char* bad : {"decoder.1", "cross..1", "encoder.decoder.1.2", "decoder.", "cross.1.x", ".1.2"})
      QVERIFY_THROWS_EXCEPTION(ConfigError, explain::parse_heads(bad));
    QVERIFY(explain::head_before(heads[0], heads[1]) && explain::head_before(heads[1], heads[2]));
    ModelConfig encoder_only = cross_model(2);
    encoder_only.cross = false;
    QVERIFY_THROWS_EXCEPTION(ConfigError, explain::check_heads(encoder_only, {heads[1]}));
    explain::check_heads(encoder_only, {heads[0]});
    const ModelConfig cfg = cross_model(2);
    explain::check_heads(cfg, heads);
    QVERIFY_THROWS_EXCEPTION(ConfigError, explain::check_heads(cfg, {{2, 0, explain::HeadBlock::Cross}}));

    const Weights w = init_weights(cfg);
    const Batch batch = make_batch({"the cat sat", "a dog barks at the moon"}, {"le chat noir dort", "un chien"});
    Trace fwd;
    forward(cfg, w, batch, fwd);
    const explain::HeadRef cross{1, 0, explain::HeadBlock::Cross};
    const int64_t dh = cfg.d_model / cfg.heads;
    for (const auto& [head, p] : {std::pair{cross, std::string("decoder.layers.1.multihead_attn.")},
                                  std::pair{explain::HeadRef{0, 0, explain::HeadBlock::Decoder}, std::string("decoder.layers.0.self_attn.")}}) {
      const Weights out = explain::ablate_heads(cfg, w, {head}, explain::AblateMode::Mean, fwd, batch.memory.lengths, batch.text.lengths);
      const Tensor& head_out = fwd.find(p + "head_out")->tensor;  // (B, H, T, Dh)
      std::vector<double> mean(size_t(dh), 0.0);
      int count = 0;  // the decoder's real positions: 3 + 6 (not the source's 4 + 2)
      for (int64_t b = 0; b < 2; ++b)
        for (int64_t i = 0; i < batch.text.lengths[size_t(b)]; ++i, ++count)
          for (int64_t k = 0; k < dh; ++k) mean[size_t(k)] += head_out.at({b, 0, i, k});
      QCOMPARE(count, 9);
      const Tensor& wo = w.get(p + "out_proj.weight");
      for (int64_t r = 0; r < cfg.d_model; ++r) {
        double shift = 0;
        for (int64_t k = 0; k < dh; ++k) {
          shift += double(wo.at({r, k})) * mean[size_t(k)] / count;
          QCOMPARE(out.get(p + "out_proj.weight").at({r, k}), 0.0f);
          QCOMPARE(out.get(p + "out_proj.weight").at({r, dh + k}), wo.at({r, dh + k}));  // head 1 untouched
        }
        QVERIFY(std::abs(out.get(p + "out_proj.bias").at({r}) - (w.get(p + "out_proj.bias").at({r}) + shift)) < 1e-6);
      }
      for (const char* other : {"decoder.layers.1.self_attn.out_proj.weight", "decoder.layers.0.multihead_attn.out_proj.weight",
                                "encoder.layers.1.self_attn.out_proj.weight"})
        if (p + "out_proj.weight" != other) QCOMPARE(out.get(other).at({0, 0}), w.get(other).at({0, 0}));
    }
    // A decoder head's mean needs the decoder's lengths: none given is a programming error, named.
    QVERIFY_THROWS_EXCEPTION(std::logic_error, explain::ablate_heads(cfg, w, {cross}, explain::AblateMode::Mean, fwd, batch.memory.lengths));
    // The head table covers the three attentions, each row the loss of a direct re-run.
    const LossSpec spec;
    const auto effects = explain::head_effects(cfg, w, fwd, spec, explain::AblateMode::Zero, batch.memory.lengths, batch.text.lengths);
    QCOMPARE(effects.size(), size_t(3 * 2 * 2));
    for (const auto& e : effects) {
      if (!(e.head == cross || e.head == explain::HeadRef{0, 1, explain::HeadBlock::Decoder})) continue;
      Trace again;
      const Weights knocked = explain::ablate_heads(cfg, w, {e.head}, explain::AblateMode::Zero, fwd, {}, {});
      forward(cfg, knocked, batch, again);
      const double direct = backward(cfg, knocked, again, spec).loss;
      QVERIFY2(std::abs(e.loss - direct) <= 1e-5 * (1 + std::abs(direct)), qPrintable(QString::fromStdString(explain::head_name(e.head))));
    }
  }
};

QTEST_APPLESS_MAIN(TestExplainCross)
#include "test_explain_cross.moc"
