// The backward of every op: each naive twin (core/backward/grad_ops_naive.h) against central
// differences of its forward in float64, each fast float path against its naive twin, and the
// properties the backward pass promises (masked entries exactly 0, the residual's sum, the
// post-norm `sum` trap, the losses).
#include <QtTest>

#include <cmath>
#include <functional>
#include <limits>
#include <vector>

#include "backward/grad_ops.h"
#include "backward/grad_ops_naive.h"
#include "backward/loss.h"
#include "backward/model_backward.h"
#include "backward/scaling.h"
#include "forward/model.h"
#include "model/trained.h"
#include "text/errors.h"
#include "tensor/ops.h"
#include "tensor/rng.h"
#include "tensor/scoped_threads.h"

using namespace attnlab;
using namespace attnlab::grad;
using D = naive::M<double>;
using F = naive::M<float>;

namespace {

D randomD(int rows, int cols, const char* name, double shift = 0) {
  D m(rows, cols);
  const Stream st(name, 11);
  for (int i = 0; i < rows * cols; ++i) m.data()[i] = st.normal(static_cast<uint64_t>(i)) + shift;
  return m;
}

// Central differences of L(x) = Σ f(x) ⊙ r: the gradient of L with respect to every entry of x.
D numeric(const std::function<D(const D&)>& f, D x, const D& r, double h = 1e-6) {
  D g(x.rows(), x.cols());
  for (int i = 0; i < x.size(); ++i) {
    const double keep = x.data()[i];
    x.data()[i] = keep + h;
    const double up = f(x).cwiseProduct(r).sum();
    x.data()[i] = keep - h;
    const double down = f(x).cwiseProduct(r).sum();
    x.data()[i] = keep;
    g.data()[i] = (up - down) / (2 * h);
  }
  return g;
}

void expectNear(const D& a, const D& b, double tol, const char* what) {
  QCOMPARE(a.rows(), b.rows());
  QCOMPARE(a.cols(), b.cols());
  const double err = (a - b).cwiseAbs().maxCoeff();
  QVERIFY2(err <= tol * (1 + b.cwiseAbs().maxCoeff()), qPrintable(QString("%1: max error %2").arg(what).arg(err)));
}

Tensor toTensor(const D& m, Shape s = {}) {
  if (s.empty()) s = {m.rows(), m.cols()};
  Tensor t(s);
  for (int64_t i = 0; i < t.numel(); ++i) t.data()[i] = static_cast<float>(m.data()[i]);
  return t;
}
D toD(const Tensor& t, int rows) {
  const Tensor c = t.contiguous();
  D m(rows, c.numel() / rows);
  for (int64_t i = 0; i < c.numel(); ++i) m.data()[i] = c.data()[i];
  return m;
}

// |fast − naive| ≤ 1e-5 + 1e-4·|naive| elementwise: the float path holds its twin's numbers.
void expectFloatClose(const Tensor& fast, const D& ref, const char* what) {
  const D f = toD(fast, static_cast<int>(ref.rows()));
  QCOMPARE(f.cols(), ref.cols());
  for (int i = 0; i < f.size(); ++i)
    if (std::fabs(f.data()[i] - ref.data()[i]) > 1e-5 + 1e-4 * std::fabs(ref.data()[i]))
      QFAIL(qPrintable(QString("%1: element %2: %3 vs %4").arg(what).arg(i).arg(f.data()[i]).arg(ref.data()[i])));
}

bool same(const Tensor& a, const Tensor& b) {
  if (a.shape() != b.shape()) return false;
  return a.to_vector() == b.to_vector();
}

// D 8, H 2, F 16 over a padded pair of sentences (6 tokens and 2 + 4 [PAD]).
ModelConfig small(Norm norm, int64_t layers) {
  ModelConfig cfg;
  cfg.d_model = 8;
  cfg.heads = 2;
  cfg.d_ff = 16;
  cfg.layers = layers;
  cfg.norm = norm;
  cfg.mask = MaskKind::Padding;
  return cfg;
}
Batch two_sentences() { return make_batch({"the cat sat on the mat", "dogs bark"}, {}); }

D rounded(const D& m) { return m.cast<float>().cast<double>(); }  // the float inputs, exactly

}  // namespace

class TestBackward : public QObject {
  Q_OBJECT
 private slots:
  // --- each naive twin against central differences in float64 --------------------------------
  void linearByFiniteDifferences() {
    const D x = randomD(5, 4, "x"), w = randomD(3, 4, "w"), b = randomD(1, 3, "b"), r = randomD(5, 3, "r");
    const auto g = naive::linear_backward(x, w, r);
    expectNear(g.dx, numeric([&](const D& v) { return naive::linear(v, w, b); }, x, r), 1e-7, "dx");
    expectNear(g.dw, numeric([&](const D& v) { return naive::linear(x, v, b); }, w, r), 1e-7, "dw");
    expectNear(g.db, numeric([&](const D& v) { return naive::linear(x, w, v); }, b, r), 1e-7, "db");
  }

  void layerNormByFiniteDifferences() {
    const D x = randomD(4, 6, "x", 0.5), g = randomD(1, 6, "g"), b = randomD(1, 6, "b"), r = randomD(4, 6, "r");
    const double eps = 1e-5;
    const auto n = naive::layer_norm_backward(x, g, r, eps);
    expectNear(n.dx, numeric([&](const D& v) { return naive::layer_norm(v, g, b, eps); }, x, r), 1e-6, "dx");
    expectNear(n.dg, numeric([&](const D& v) { return naive::layer_norm(x, v, b, eps); }, g, r), 1e-7, "dgamma");
    expectNear(n.db, numeric([&](const D& v) { return naive::layer_norm(x, g, v, eps); }, b, r), 1e-7, "dbeta");
  }

  void activationsByFiniteDifferences() {
    D x = randomD(3, 7, "x");
    for (int i = 0; i < x.size(); ++i)  // no kink within h of ReLU's 0
      if (std::fabs(x.data()[i]) < 1e-3) x.data()[i] = 0.5;
    const D r = randomD(3, 7, "r");
    const auto relu = [](const D& v) { return D(v.cwiseMax(0.0)); };
    const auto gelu = [](const D& v) { return D(v.unaryExpr([](double e) { return naive::gelu(e); })); };
    const auto gelu_tanh = [](const D& v) { return D(v.unaryExpr([](double e) { return naive::gelu_tanh(e); })); };
    expectNear(naive::relu_backward(x, r), numeric(relu, x, r), 1e-7, "relu");
    expectNear(naive::gelu_backward(x, r), numeric(gelu, x, r), 1e-7, "gelu");
    expectNear(naive::gelu_tanh_backward(x, r), numeric(gelu_tanh, x, r), 1e-7, "gelu_tanh");
  }

  void softmaxByFiniteDifferencesMaskedExactlyZero() {
    D s = randomD(4, 5, "s");
    s(0, 3) = s(2, 0) = s(2, 4) = -std::numeric_limits<double>::infinity();  // masked keys
    const D r = randomD(4, 5, "r");
    const D p = naive::softmax_rows(s);
    const D ds = naive::softmax_backward(p, r);
    // Differences only at the finite entries (a masked entry stays −∞: it has no neighbourhood).
    const D num = numeric([](const D& v) { return naive::softmax_rows(v); }, s, r);
    for (int i = 0; i < s.size(); ++i) {
      if (std::isinf(s.data()[i])) {
        QCOMPARE(ds.data()[i], 0.0);  // exactly, not nearly
        continue;
      }
      QVERIFY2(std::fabs(ds.data()[i] - num.data()[i]) < 1e-7, qPrintable(QString::number(i)));
    }
  }

  void attentionHeadByFiniteDifferences() {
    const D q = randomD(4, 3, "q"), k = randomD(5, 3, "k"), v = randomD(5, 3, "v"), r = randomD(4, 3, "r");
    D mask = D::Ones(4, 5);
    mask(0, 4) = mask(1, 3) = mask(1, 4) = 0;  // hidden keys
    const double scale = 1 / std::sqrt(3.0);
    const auto g = naive::attention_head_backward(q, k, v, mask, scale, r);
    expectNear(g.dq, numeric([&](const D& x) { return naive::attention_head(x, k, v, mask, scale); }, q, r), 1e-7, "dq");
    expectNear(g.dk, numeric([&](const D& x) { return naive::attention_head(q, x, v, mask, scale); }, k, r), 1e-7, "dk");
    expectNear(g.dv, numeric([&](const D& x) { return naive::attention_head(q, k, x, mask, scale); }, v, r), 1e-7, "dv");
    // A key no query sees (column 4 is hidden from rows 0 and 1 only) still gets gradient from
    // the others; a fully hidden key would get none: hide key 4 from every row.
    mask.col(4).setZero();
    const auto h = naive::attention_head_backward(q, k, v, mask, scale, r);
    QCOMPARE(h.dk.row(4).cwiseAbs().maxCoeff(), 0.0);
    QCOMPARE(h.dv.row(4).cwiseAbs().maxCoeff(), 0.0);
  }

  // --- each fast float path against its naive twin -------------------------------------------
  void fastLinearMatchesNaive() {
    const D x = rounded(randomD(6, 5, "x")), w = rounded(randomD(12, 5, "w")), dy = rounded(randomD(6, 4, "dy"));
    // Rows 4…7 of a fused (12, 5) weight, as K's rows of in_proj.
    const auto g = linear_backward(toTensor(x, {2, 3, 5}), toTensor(w), toTensor(dy, {2, 3, 4}), 4);
    const auto n = naive::linear_backward(x, D(w.middleRows(4, 4)), dy);
    QCOMPARE(g.dx.shape(), (Shape{2, 3, 5}));
    expectFloatClose(g.dx, n.dx, "dx");
    expectFloatClose(g.dw, n.dw, "dw");
    expectFloatClose(g.db, n.db, "db");
  }

  void fastLayerNormMatchesNaive() {
    const D x = rounded(randomD(6, 8, "x", 1.0)), g = rounded(randomD(1, 8, "g")), dy = rounded(randomD(6, 8, "dy"));
    const auto f = layer_norm_backward(toTensor(x, {2, 3, 8}), toTensor(g, {8}), toTensor(dy, {2, 3, 8}), 1e-5);
    const auto n = naive::layer_norm_backward(x, g, dy, 1e-5);
    expectFloatClose(f.dx, n.dx, "dx");
    expectFloatClose(f.dgamma, n.dg, "dgamma");
    expectFloatClose(f.dbeta, n.db, "dbeta");
  }

  void fastActivationsMatchNaive() {
    const D x = rounded(randomD(5, 6, "x")), dy = rounded(randomD(5, 6, "dy"));
    expectFloatClose(activation_backward(toTensor(x), toTensor(dy), Activation::Relu), naive::relu_backward(x, dy), "relu");
    expectFloatClose(activation_backward(toTensor(x), toTensor(dy), Activation::Gelu), naive::gelu_backward(x, dy), "gelu");
    expectFloatClose(activation_backward(toTensor(x), toTensor(dy), Activation::GeluTanh), naive::gelu_tanh_backward(x, dy),
                     "gelu_tanh");
  }

  void fastSoftmaxMatchesNaiveAlongEitherDim() {
    D s = randomD(5, 5, "s");
    s(1, 2) = -std::numeric_limits<double>::infinity();
    const D p = rounded(naive::softmax_rows(s)), dp = rounded(randomD(5, 5, "dp"));
    const Tensor ds = softmax_backward(toTensor(p, {1, 1, 5, 5}), toTensor(dp, {1, 1, 5, 5}));
    expectFloatClose(ds, naive::softmax_backward(p, dp), "dim -1");
    QCOMPARE(ds.at({0, 0, 1, 2}), 0.0f);
    // Over the queries (dim −2): the same as over the keys of the transposed matrices.
    const D pt = p.transpose(), dpt = dp.transpose();
    const Tensor dq = softmax_backward(toTensor(pt, {1, 1, 5, 5}), toTensor(dpt, {1, 1, 5, 5}), -2);
    expectFloatClose(dq, D(naive::softmax_backward(p, dp).transpose()), "dim -2");
  }

  void fastMatmulMatchesNaiveOnViews() {
    // c = a · bᵀ with b a transposed view, as qk = q · k_t.
    const D a = rounded(randomD(3, 4, "a")), b = rounded(randomD(5, 4, "b")), dc = rounded(randomD(3, 5, "dc"));
    const Tensor bt = toTensor(b, {1, 1, 5, 4}).transpose(2, 3);
    const auto g = matmul_backward(toTensor(a, {1, 1, 3, 4}), bt, toTensor(dc, {1, 1, 3, 5}));
    expectFloatClose(g.da, D(dc * b), "da");
    expectFloatClose(g.db, D(a.transpose() * dc), "db");
  }

  void maskedAndShapeMovesAreExact() {
    const Tensor dy = toTensor(randomD(2 * 2 * 3, 3, "dy"), {2, 2, 3, 3});
    Tensor mask({2, 3, 3}, 1.0f);
    mask.at({1, 0, 2}) = 0.0f;
    const Tensor m = masked_backward(dy, mask);
    for (int64_t h = 0; h < 2; ++h) {
      QCOMPARE(m.at({1, h, 0, 2}), 0.0f);
      QCOMPARE(m.at({0, h, 0, 2}), dy.at({0, h, 0, 2}));
    }
    const Tensor v = toTensor(randomD(2, 12, "v"), {2, 3, 4});
    const Tensor t = v.transpose(1, 2);  // (2, 4, 3) view
    QCOMPARE(transposed(t, 1, 2).to_vector(), v.to_vector());
    QCOMPARE(reshaped(t, {2, 12}).to_vector(), t.to_vector());
    Tensor acc;
    accumulate(acc, v);
    QCOMPARE(acc.data(), v.data());  // the first share is taken as it is, not copied
    accumulate(acc, v);
    QCOMPARE(acc.at({1, 2, 3}), 2 * v.at({1, 2, 3}));
    QCOMPARE(v.to_vector(), toTensor(randomD(2, 12, "v"), {2, 3, 4}).to_vector());  // … and never written to
    Tensor from_view;
    accumulate(from_view, t);  // a view's share is made contiguous
    QVERIFY(from_view.is_contiguous());
    QCOMPARE(from_view.to_vector(), t.to_vector());
    QCOMPARE(reshaped(v, {2, 12}).data(), v.data());  // a contiguous gradient's view moves no numbers
    QCOMPARE(masked_backward(dy, Tensor({2, 3, 3}, 1.0f)).data(), dy.data());  // a mask hiding nothing: dy, shared
    QVERIFY(m.data() != dy.data());
  }

  // A padding mask over sentences of one length hides nothing: the gradient of the step before
  // the mask is the masked step's own (shared, no copy) — the scaled scores' under the plain mask,
  // the unmasked weights' under MaskAfterSoftmax; where it hides something, a tensor of its own.
  // The forward's masked step is always its own tensor (memory.cpp counts it). The shared
  // gradient is compared with one computed again from the weights: nothing wrote into it.
  void maskHidingNothingSharesItsGradient() {
    const std::string at = "encoder.layers.0.self_attn.";
    for (const bool late : {false, true})
      for (const bool equal : {true, false}) {
        ModelConfig cfg = small(Norm::Pre, 1);
        if (late) cfg.faults = {Fault::MaskAfterSoftmax};
        const Weights w = init_weights(cfg);
        const Batch batch = make_batch({"the cat sat", equal ? "dogs bark loudly" : "dogs bark"}, {});
        Trace fwd;
        forward(cfg, w, batch, fwd);
        const std::string before = late ? "unmasked_weights" : "scores", masked = late ? "weights" : "masked_scores";
        const Step *x = fwd.find(at + before), *y = fwd.find(at + masked);
        QVERIFY(x && y);
        QVERIFY(!y->tensor.shares_storage(x->tensor));
        const BackwardResult r = backward(cfg, w, fwd, {});
        const Step *gx = r.steps.find(at + before + ".grad"), *gy = r.steps.find(at + masked + ".grad");
        QVERIFY(gx && gy);
        QCOMPARE(gx->tensor.shares_storage(gy->tensor), equal);
        const Tensor again = masked_backward(gy->tensor.clone(), fwd.find("encoder.mask")->tensor);
        QVERIFY(same(gx->tensor, again));
        if (!late) {  // and the masked scores' gradient is softmax's backward of the weights' gradient
          const Step *wts = fwd.find(at + "weights"), *gw = r.steps.find(at + "weights.grad");
          QVERIFY(wts && gw);
          QVERIFY(same(gy->tensor, softmax_backward(wts->tensor, gw->tensor, -1)));
        }
      }
  }

  // The ops split between threads (rows of at least 2¹⁶ elements in all): against their naive
  // twins, and the same bits on one, two and three threads (LayerNorm's dγ and dβ are summed in
  // fixed chunks of rows, not per thread).
  void largeGradientsAreTheSameOnAnyThreadCount() {
    const D x = rounded(randomD(300, 256, "x", 0.5)), gm = rounded(randomD(1, 256, "g")), dy = rounded(randomD(300, 256, "dy"));
    const D p = rounded(naive::softmax_rows(randomD(2 * 3 * 110, 110, "s"))), dp = rounded(randomD(2 * 3 * 110, 110, "dp"));
    const Tensor mask = make_mask(MaskKind::PaddingCausal, {110, 77}, 110, 110);
    std::vector<std::vector<Tensor>> runs;
    for (int threads : {1, 2, 3}) {
      const ScopedThreads on(threads);
      const auto ln = layer_norm_backward(toTensor(x, {3, 100, 256}), toTensor(gm, {256}), toTensor(dy, {3, 100, 256}), 1e-5);
      runs.push_back({ln.dx, ln.dgamma, ln.dbeta, activation_backward(toTensor(x), toTensor(dy), Activation::Gelu),
                      softmax_backward(toTensor(p, {2, 3, 110, 110}), toTensor(dp, {2, 3, 110, 110})),
                      masked_backward(toTensor(dp, {2, 3, 110, 110}), mask)});
    }
    const auto n = naive::layer_norm_backward(x, gm, dy, 1e-5);
    expectFloatClose(runs[0][0], n.dx, "dx");
    expectFloatClose(runs[0][1], n.dg, "dgamma");
    expectFloatClose(runs[0][2], n.db, "dbeta");
    expectFloatClose(runs[0][3], naive::gelu_backward(x, dy), "gelu");
    expectFloatClose(runs[0][4], naive::softmax_backward(p, dp), "softmax");
    const Tensor& m = runs[0][5];
    for (int64_t b = 0; b < 2; ++b)
      for (int64_t h = 0; h < 3; ++h)
        for (int64_t q = 0; q < 110; ++q)
          for (int64_t k = 0; k < 110; ++k) {
            const float want = mask.at({b, q, k}) == 0.0f ? 0.0f : static_cast<float>(dp((b * 3 + h) * 110 + q, k));
            if (m.at({b, h, q, k}) != want) QFAIL(qPrintable(QString("masked (%1, %2, %3, %4)").arg(b).arg(h).arg(q).arg(k)));
          }
    for (size_t r = 1; r < runs.size(); ++r)
      for (size_t i = 0; i < runs[0].size(); ++i)
        QVERIFY2(same(runs[r][i], runs[0][i]), qPrintable(QString("output %1 on %2 threads").arg(i).arg(r + 1)));
  }

  // --- losses ---------------------------------------------------------------------------------
  void lossesAndTheirGradients() {
    const Tensor y = toTensor(randomD(2, 6, "y"), {2, 3, 2}), t = toTensor(randomD(2, 6, "t"), {2, 3, 2});
    const LossValue s = sum_loss(y);
    double total = 0;
    for (float e : y.to_vector()) total += e;
    QVERIFY(std::fabs(s.value - total) < 1e-6);
    QCOMPARE(s.grad.to_vector(), std::vector<float>(12, 1.0f));
    const LossValue m = mse_loss(y, t);
    double sq = 0;
    for (int i = 0; i < 12; ++i) sq += std::pow(double(y.data()[i]) - t.data()[i], 2);
    QVERIFY(std::fabs(m.value - sq / 12) < 1e-6);
    QVERIFY(std::fabs(m.grad.data()[5] - 2 * (y.data()[5] - t.data()[5]) / 12) < 1e-7);
    QVERIFY_THROWS_EXCEPTION(DataError, mse_loss(y, toTensor(randomD(1, 6, "t"), {1, 3, 2})));
    QCOMPARE(parse_loss("next-token"), LossKind::NextToken);
    QVERIFY_THROWS_EXCEPTION(ConfigError, parse_loss("l2"));
  }

  void crossEntropyByFiniteDifferences() {
    const D z = randomD(4, 5, "z");  // (B 2, S 2, V 5) logits
    const std::vector<std::vector<int64_t>> target{{3, -1}, {0, 4}};  // one ignored position
    const LossValue l = cross_entropy_loss(toTensor(z, {2, 2, 5}), target);
    const auto value = [&](const D& v) {  // mean over the 3 counted positions of −log p[target]
      double s = 0;
      for (int r = 0; r < 4; ++r) {
        const int64_t t = target[size_t(r / 2)][size_t(r % 2)];
        if (t < 0) continue;
        s += std::log(v.row(r).array().exp().sum()) - v(r, t);
      }
      return D::Constant(1, 1, s / 3);
    };
    QVERIFY(std::fabs(l.value - value(rounded(z))(0, 0)) < 1e-5);
    const D num = numeric(value, rounded(z), D::Ones(1, 1));
    expectNear(toD(l.grad, 4), num, 1e-5, "dlogits");
    QCOMPARE(toD(l.grad, 4).row(1).cwiseAbs().maxCoeff(), 0.0);  // the ignored position
  }

  // --- the whole model --------------------------------------------------------------------------
  void postNormSumTrapAndMaskedZeros() {
    ModelConfig cfg = small(Norm::Post, 2);
    const Batch batch = two_sentences();
    const Weights w = init_weights(cfg);
    Trace fwd;
    forward(cfg, w, batch, fwd);
    const BackwardResult r = backward(cfg, w, fwd, {});
    QCOMPARE(r.output, std::string("encoder.layers.1.output"));
    // Σ LayerNorm(x)·1 + 0 = 0 for every x: nothing before the last norm gets any gradient ...
    for (const char* id : {"encoder.layers.1.residual2.grad", "encoder.layers.0.self_attn.weights.grad", "encoder.input.grad",
                           "grad/encoder.layers.0.linear1.weight"}) {
      const Step* s = r.steps.find(id);
      QVERIFY2(s, id);
      float worst = 0;
      for (float e : s->tensor.to_vector()) worst = std::max(worst, std::fabs(e));
      QVERIFY2(worst < 1e-4f, qPrintable(QString("%1: %2").arg(id).arg(worst)));
    }
    // ... while the norm's own γ and β do: dβ = B·S = 12 per feature.
    const Step* beta = r.steps.find("grad/encoder.layers.1.norm2.bias");
    QVERIFY(beta);
    QCOMPARE(beta->tensor.at({0}), 12.0f);
    // The pre-norm model passes gradient everywhere, and masked scores get exactly 0.
    cfg.norm = Norm::Pre;
    const Weights wp = init_weights(cfg);
    Trace pre;
    forward(cfg, wp, batch, pre);
    const BackwardResult rp = backward(cfg, wp, pre, {});
    const Step* ms = rp.steps.find("encoder.layers.0.self_attn.masked_scores.grad");
    const Step* mask = pre.find("encoder.mask");
    QVERIFY(ms && mask);
    int zeros = 0;
    for (int64_t h = 0; h < 2; ++h)
      for (int64_t i = 0; i < 6; ++i)
        for (int64_t j = 0; j < 6; ++j)
          if (mask->tensor.at({1, i, j}) == 0.0f) {
            QCOMPARE(ms->tensor.at({1, h, i, j}), 0.0f);
            ++zeros;
          }
    QCOMPARE(zeros, 2 * 6 * 4);  // "dogs bark" + 4 [PAD] keys, every query, both heads
    const Step* wq = rp.steps.find("grad/encoder.layers.0.self_attn.in_proj_weight");
    QVERIFY(wq);
    float norm = 0;
    for (float e : wq->tensor.to_vector()) norm += e * e;
    QVERIFY(norm > 1e-6f);
    // Recorded in the order the gradient arrives: the loss's input first, parameters last.
    QCOMPARE(rp.steps.steps().front().info.id, std::string("encoder.layers.1.output.grad"));
    QVERIFY(rp.steps.steps().back().info.id.starts_with("grad/"));
    // Gradients are shared, never added into: the residual hands its gradient to both inputs, and
    // the input's (which norm1's share joins) is a new tensor — the recorded residual's is intact.
    const Step* res = rp.steps.find("encoder.layers.0.residual1.grad");
    const Step* sub = rp.steps.find("encoder.layers.0.self_attn.out.grad");
    const Step* in = rp.steps.find("encoder.input.grad");
    QVERIFY(res && sub && in);
    QVERIFY(same(res->tensor, sub->tensor));
    QVERIFY(!same(res->tensor, in->tensor));
  }

  // Every gradient step is shown with C-order strides, as PyTorch's .grad is, even where a shared
  // gradient is contiguous only because an axis has size 1 (one head: a view (B, T, 1, Dh)).
  void gradientsHaveCOrderStrides() {
    for (const int heads : {1, 2}) {
      ModelConfig cfg = small(Norm::Pre, 1);
      cfg.heads = heads;
      const Weights w = init_weights(cfg);
      Trace fwd;
      forward(cfg, w, two_sentences(), fwd);
      const BackwardResult r = backward(cfg, w, fwd, {});
      for (const Step& s : r.steps.steps())
        QVERIFY2(s.tensor.strides() == contiguous_strides(s.tensor.shape()),
                 qPrintable(QString("%1 heads: %2").arg(heads).arg(QString::fromStdString(s.info.id))));
    }
  }

  // The per-position loss's answers: typed (tokenised as the model reads a sentence) or given as
  // token ids, −1 and [PAD] meaning "no answer here"; anything else refused with its position.
  void answersAsTargets() {
    const TrainedVocab v = TrainedVocab::from_metadata({{"vocab", R"(["[PAD]","[UNK]","0","1","2"])"}}, "test");
    const Tensor ids = answer_ids({"1 0", "2 2 9"}, v, 2, 3);
    QCOMPARE(ids.to_vector(), (std::vector<float>{3, 2, -1, 4, 4, 1}));  // "9" is [UNK] (1)
    QVERIFY_THROWS_EXCEPTION(DataError, answer_ids({"1 0"}, v, 2, 3));         // one answer for two sentences
    QVERIFY_THROWS_EXCEPTION(DataError, answer_ids({"1", "0 1 2 0"}, v, 2, 3));  // longer than its sentence
    const auto t = answer_targets(ids, {2, 3}, 5);
    QCOMPARE(t, (std::vector<std::vector<int64_t>>{{3, 2, -1}, {4, 4, 1}}));
    Tensor pad({1, 3}, 0.0f);
    pad.data()[1] = 4;
    QCOMPARE(answer_targets(pad, {1, 3}, 5), (std::vector<std::vector<int64_t>>{{-1, 4, -1}}));  // [PAD]: none
    for (float bad : {5.0f, 1.5f, -2.0f, std::numeric_limits<float>::quiet_NaN()}) {
      Tensor x({1, 3}, 2.0f);
      x.data()[2] = bad;
      try {
        answer_targets(x, {1, 3}, 5);
        QFAIL(qPrintable(QString("accepted %1").arg(bad)));
      } catch (const DataError& e) {
        QVERIFY2(QString(e.what()).contains("sentence 0, position 2"), e.what());
      }
    }
    QVERIFY_THROWS_EXCEPTION(DataError, answer_targets(ids, {3, 2}, 5));  // not the token ids' shape
  }

  // Faults act on gradients as in real code: a detached attention output stops the gradient
  // (the attention's parameters get none, the steps after it get the correct run's), and a mask
  // applied after the softmax leaks gradient into the hidden scores.
  void faultsActOnGradients() {
    const ModelConfig cfg = small(Norm::Pre, 1);
    const Batch batch = two_sentences();
    const Weights w = init_weights(cfg);
    auto run = [&](FaultSet faults) {
      ModelConfig c = cfg;
      c.faults = std::move(faults);
      Trace fwd;
      forward(c, w, batch, fwd);
      return std::make_pair(fwd, backward(c, w, fwd, {}));
    };
    auto norm = [](const Step* s) {
      double sq = 0;
      for (float e : s->tensor.to_vector()) sq += double(e) * e;
      return std::sqrt(sq);
    };
    const auto [good_fwd, good] = run({});
    const auto [cut_fwd, cut] = run({Fault::DetachAttentionOutput});
    const std::string a = "encoder.layers.0.self_attn.";
    for (const char* p : {"self_attn.in_proj_weight", "self_attn.in_proj_bias", "self_attn.out_proj.weight",
                          "self_attn.out_proj.bias", "norm1.weight", "norm1.bias"}) {
      const std::string id = std::string("grad/encoder.layers.0.") + p;
      QVERIFY2(norm(cut.steps.find(id)) == 0.0, id.c_str());  // exactly: nothing reached them
      QVERIFY2(norm(good.steps.find(id)) > 1e-4, id.c_str());
    }
    QVERIFY(!cut.steps.find(a + "out.grad") && !cut.steps.find(a + "weights.grad") && cut.steps.find(a + "detached.grad"));
    QVERIFY(same(cut.steps.find(a + "detached.grad")->tensor, good.steps.find(a + "out.grad")->tensor));
    for (const char* id : {"encoder.layers.0.output.grad", "encoder.layers.0.residual2.grad", "encoder.layers.0.ffn.out.grad",
                           "grad/encoder.layers.0.linear1.weight", "grad/encoder.layers.0.norm2.weight"})
      QVERIFY2(same(cut.steps.find(id)->tensor, good.steps.find(id)->tensor), id);
    // The input still gets the residual path's share, not the attention's.
    QVERIFY(!same(cut.steps.find("encoder.input.grad")->tensor, good.steps.find("encoder.input.grad")->tensor));

    const auto [late_fwd, late] = run({Fault::MaskAfterSoftmax});
    const Tensor& mask = late_fwd.find("encoder.mask")->tensor;
    const Tensor& leak = late.steps.find(a + "scores.grad")->tensor;
    const Tensor& sealed = good.steps.find(a + "masked_scores.grad")->tensor;
    int leaking = 0;
    for (int64_t h = 0; h < 2; ++h)
      for (int64_t i = 0; i < 6; ++i)
        for (int64_t j = 0; j < 6; ++j)
          if (mask.at({1, i, j}) == 0.0f) {
            QCOMPARE(sealed.at({1, h, i, j}), 0.0f);
            leaking += leak.at({1, h, i, j}) != 0.0f;
          }
    QCOMPARE(leaking, 2 * 6 * 4);  // every hidden score of "dogs bark" gets gradient
  }

  // The √d experiment: three runs, the model's equal to its own backward pass, the softmax
  // sharper (a larger mean row maximum) the less the scores are divided.
  void scalingExperiment() {
    ModelConfig cfg;
    cfg.d_model = 32;
    cfg.heads = 4;
    cfg.d_ff = 64;
    cfg.mask = MaskKind::Padding;
    const Batch batch = make_batch({"the cat sat on the mat", "dogs bark"}, {});
    const Weights w = init_weights(cfg);
    const auto runs = scaling_experiment(cfg, w, batch, LossKind::Sum, "");
    QCOMPARE(runs.size(), size_t{3});
    QCOMPARE(runs[0].scaling, ScoreScaling::ByHeadWidth);
    QCOMPARE(runs[0].divisor, std::sqrt(8.0));
    QCOMPARE(runs[1].divisor, std::sqrt(32.0));
    QCOMPARE(runs[2].divisor, 1.0);
    QVERIFY(runs[2].mean_max > runs[0].mean_max && runs[0].mean_max > runs[1].mean_max);
    QVERIFY(runs[2].saturated >= runs[0].saturated);
    Trace fwd;
    forward(cfg, w, batch, fwd);
    const BackwardResult own = backward(cfg, w, fwd, {});
    double sq = 0;
    for (float v : own.steps.find("encoder.layers.0.self_attn.q.grad")->tensor.to_vector()) sq += double(v) * v;
    QVERIFY(std::fabs(runs[0].grad_q - std::sqrt(sq)) <= 1e-9 * std::sqrt(sq));
    QVERIFY(runs[0].grad_q > 0 && runs[0].grad_k > 0 && runs[0].grad_scores > 0);
    // Wide heads (d_head 64): without the scaling many rows saturate and get almost no gradient.
    cfg.d_model = 512;
    cfg.heads = 8;
    cfg.d_ff = 512;
    const auto wide = scaling_experiment(cfg, init_weights(cfg), batch, LossKind::Sum, "");
    for (const ScalingRun& r : wide)
      qInfo("d_head 64, ÷%.3g: %.0f %% saturated, %.0f %% starved, |dQ| %.4g", r.divisor, 100 * r.saturated, 100 * r.starved, r.grad_q);
    QVERIFY2(wide[2].saturated > wide[0].saturated + 0.1, qPrintable(QString::number(wide[2].saturated)));
    QVERIFY2(wide[2].starved > wide[0].starved + 0.05, qPrintable(QString::number(wide[2].starved)));
    QVERIFY(wide[0].starved < 0.05);  // the model's own rows all get gradient
  }

  void memoryOfTheGradientsIsCounted() {
    const MemoryEstimate e{.trace_bytes = 1000, .weights_bytes = 10, .working_bytes = 5};
    const MemoryEstimate g = with_gradients(e);
    QCOMPARE(g.trace_bytes, int64_t{3000});
    QCOMPARE(g.weights_bytes, int64_t{20});
    QCOMPARE(g.working_bytes, int64_t{5});
    const MemoryEstimate huge = with_gradients({.trace_bytes = std::numeric_limits<int64_t>::max() / 2});
    QCOMPARE(huge.trace_bytes, std::numeric_limits<int64_t>::max());  // saturates, never wraps
  }
};

QTEST_GUILESS_MAIN(TestBackward)
#include "test_backward.moc"
