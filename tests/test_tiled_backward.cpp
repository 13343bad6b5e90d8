// FlashAttention-2's backward (core/backward/tiled_grad.h) against its naive twin, the full path's
// backward (softmax_backward and matmul_backward over the whole (Tq, Tk) weights): with small tiles
// (every remainder), a hand-drawn mask (the dense path), causal and padded masks (skipped blocks);
// and whole models traced tiled, whose gradients must be the full path's (which the PyTorch
// goldens check), with ∂L/∂scores binned into the weights overview.
//   B batch, H heads, Tq queries, Tk keys, Dh head width.
#include <QtTest>

#include <cmath>

#include "backward/grad_ops.h"
#include "backward/model_backward.h"
#include "backward/tiled_grad.h"
#include "forward/model.h"
#include "random_tensor.h"
#include "tensor/ops.h"

using namespace attnlab;
using attnlab::test::random_tensor;

namespace {

// |a − ref| ≤ 1e-5 + 1e-4·|ref| elementwise (NaN only where ref is NaN).
void expectClose(const Tensor& a, const Tensor& ref, const std::string& what) {
  QVERIFY2(a.shape() == ref.shape(), (what + ": " + shape_str(a.shape()) + " vs " + shape_str(ref.shape())).c_str());
  const auto x = a.to_vector(), y = ref.to_vector();
  for (size_t i = 0; i < x.size(); ++i) {
    const bool ok = std::isnan(y[i]) ? std::isnan(x[i]) : std::fabs(x[i] - y[i]) <= 1e-5 + 1e-4 * std::fabs(y[i]);
    if (!ok) QFAIL(qPrintable(QString("%1[%2]: %3 vs %4").arg(what.c_str()).arg(i).arg(x[i]).arg(y[i])));
  }
}

struct Full {
  Tensor out, dq, dk, dv, ds;  // ds: ∂L/∂scores (B, H, Tq, Tk)
};

// The naive twin: the whole weights, then the full path's backward ops.
Full full_attention(const Tensor& q, const Tensor& k, const Tensor& v, const Tensor& mask, float root, const Tensor& dout) {
  const Tensor kt = k.transpose(-2, -1);
  const Tensor scores = scale(matmul(q, kt), 1.0f / root);
  const Tensor p = softmax_lastdim(masked_fill_neg_inf(scores, mask));
  Full f;
  f.out = matmul(p, v);
  const auto pv = grad::matmul_backward(p, v, dout);
  f.ds = grad::masked_backward(grad::softmax_backward(p, pv.da), mask);
  const auto qk = grad::matmul_backward(q, kt, scale(f.ds, 1.0f / root));
  f.dq = qk.da;
  f.dk = grad::transposed(qk.db, 2, 3);
  f.dv = pv.db;
  return f;
}

// ds (B, H, Tq, Tk) binned as the overview: mean over bq queries of the sum over bk keys.
Tensor binned(const Tensor& ds, int64_t bq, int64_t bk) {
  const int64_t B = ds.size(0), H = ds.size(1), tq = ds.size(2), tk = ds.size(3);
  const int64_t R = (tq + bq - 1) / bq, C = (tk + bk - 1) / bk;
  Tensor o({B, H, R, C}, 0.0f);
  for (int64_t b = 0; b < B; ++b)
    for (int64_t h = 0; h < H; ++h)
      for (int64_t i = 0; i < tq; ++i)
        for (int64_t j = 0; j < tk; ++j) {
          const int64_t r = i / bq, in_bin = std::min(bq, tq - r * bq);
          o.data()[((b * H + h) * R + r) * C + j / bk] += ds.at({b, h, i, j}) / static_cast<float>(in_bin);
        }
  return o;
}

// A padded, causal or hand-drawn (B, Tq, Tk) mask; every query sees at least one key.
Tensor make_test_mask(const std::string& kind, int64_t b, int64_t tq, int64_t tk) {
  Tensor m({b, tq, tk}, 1.0f);
  for (int64_t x = 0; x < b; ++x)
    for (int64_t i = 0; i < tq; ++i)
      for (int64_t j = 0; j < tk; ++j) {
        bool hide = false;
        if (kind == "padding") hide = j >= tk - 3 * x;             // sentence x ends 3x keys early
        if (kind == "causal") hide = j > i + (tk - tq);
        if (kind == "holes") hide = (i * 7 + j * 3 + x) % 5 == 0 && j != i % tk;  // not one interval per row
        if (hide) m.data()[(x * tq + i) * tk + j] = 0.0f;
      }
  return m;
}

Trace traced(const ModelConfig& cfg, const Weights& w, const Batch& batch) {
  Trace t;
  forward(cfg, w, batch, t);
  return t;
}

}  // namespace

class TestTiledBackward : public QObject {
  Q_OBJECT
 private slots:
  void matchesTheFullBackward_data() {
    QTest::addColumn<QString>("mask");
    QTest::addColumn<int>("tq");
    QTest::addColumn<int>("tk");
    QTest::addColumn<int>("bq");
    QTest::addColumn<int>("bk");
    QTest::addColumn<int>("cap");
    QTest::newRow("padding, remainders") << "padding" << 11 << 11 << 3 << 4 << 256;
    QTest::newRow("causal, blocks skipped") << "causal" << 13 << 13 << 4 << 3 << 256;
    QTest::newRow("hand-drawn mask (dense path)") << "holes" << 9 << 10 << 2 << 3 << 256;
    QTest::newRow("cross-shaped, binned overview") << "padding" << 7 << 12 << 3 << 5 << 4;
    QTest::newRow("one block") << "causal" << 6 << 6 << 64 << 256 << 2;
    QTest::newRow("the default blocks (128 × 256), several of each") << "causal" << 300 << 300 << 128 << 256 << 256;
  }
  void matchesTheFullBackward() {
    QFETCH(QString, mask);
    QFETCH(int, tq);
    QFETCH(int, tk);
    QFETCH(int, bq);
    QFETCH(int, bk);
    QFETCH(int, cap);
    const int64_t B = 2, H = 3, dh = 5;
    const Tensor q = random_tensor({B, H, tq, dh}, "q"), k = random_tensor({B, H, tk, dh}, "k"),
                 v = random_tensor({B, H, tk, dh}, "v"), dout = random_tensor({B, H, tq, dh}, "dout");
    const Tensor m = make_test_mask(mask.toStdString(), B, tq, tk);
    const float root = std::sqrt(5.0f);
    const Full f = full_attention(q, k, v, m, root, dout);
    const auto t = grad::attention_tiled_backward(q, k, v, m, root, f.out, dout, cap, {bq, bk});
    expectClose(t.dq, f.dq, "dq");
    expectClose(t.dk, f.dk, "dk");
    expectClose(t.dv, f.dv, "dv");
    expectClose(t.ds_overview, binned(f.ds, overview_bin(tq, cap), overview_bin(tk, cap)), "ds overview");
    // A key no query sees gets exactly no gradient.
    if (mask == "padding")
      for (int64_t h = 0; h < H; ++h)
        for (int64_t d = 0; d < dh; ++d) {
          QCOMPARE(t.dk.at({1, h, tk - 1, d}), 0.0f);
          QCOMPARE(t.dv.at({1, h, tk - 1, d}), 0.0f);
        }
  }

  // Strided views as the head split makes them (q = q_view.transpose(1, 2)).
  void readsTheHeadSplitViews() {
    const int64_t B = 1, T = 9, H = 2, dh = 4;
    const Tensor qv = random_tensor({B, T, H, dh}, "qv"), kv = random_tensor({B, T, H, dh}, "kv"),
                 vv = random_tensor({B, T, H, dh}, "vv");
    const Tensor q = qv.transpose(1, 2), k = kv.transpose(1, 2), v = vv.transpose(1, 2);
    const Tensor m = make_test_mask("causal", B, T, T), dout = random_tensor({B, H, T, dh}, "dout");
    const Full f = full_attention(q.contiguous(), k.contiguous(), v.contiguous(), m, 2.0f, dout);
    const auto t = grad::attention_tiled_backward(q, k, v, m, 2.0f, f.out, dout.transpose(2, 3).contiguous().transpose(2, 3),
                                                  256, {4, 4});
    expectClose(t.dq, f.dq, "dq");
    expectClose(t.dk, f.dk, "dk");
  }

  // The mask as key ranges (no (Tq, Tk) tensor, as benchmarks run it) gives the dense mask's
  // numbers, for the kernel and for a traced tiled stack and its backward.
  void keyRangesGiveTheDenseMasksNumbers() {
    const int64_t B = 2, H = 2, T = 10, dh = 4;
    const KeyRanges ranges = key_ranges(MaskKind::PaddingCausal, {10, 6}, T, T);
    const Tensor dense = ranges.dense();
    const Tensor q = random_tensor({B, H, T, dh}, "q"), k = random_tensor({B, H, T, dh}, "k"),
                 v = random_tensor({B, H, T, dh}, "v"), dout = random_tensor({B, H, T, dh}, "dout");
    const Tensor out = full_attention(q, k, v, dense, 2.0f, dout).out;
    const auto a = grad::attention_tiled_backward(q, k, v, dense, 2.0f, out, dout, 4, {3, 4});
    const auto b = grad::attention_tiled_backward(q, k, v, ranges, 2.0f, out, dout, 4, {3, 4});
    expectClose(b.dq, a.dq, "dq");
    expectClose(b.dk, a.dk, "dk");
    expectClose(b.ds_overview, a.ds_overview, "ds overview");

    ModelConfig cfg = test::small_stack(16, 32);
    cfg.overview_cap = 4;
    const Weights w = init_weights(cfg);
    const Tensor x = random_tensor({B, T, 16}, "x");
    Trace with_dense, with_ranges;
    for (Trace* t : {&with_dense, &with_ranges})
      t->record(StepInfo{.id = "encoder.input", .title = {}, .formula = {}, .code = "", .result = "x"}, x);
    with_dense.record(StepInfo{.id = "encoder.mask", .title = {}, .formula = {}, .code = "", .result = "mask"}, dense);
    encoder_stack(cfg, w, x, dense, with_dense);
    encoder_stack(cfg, w, x, ranges, with_ranges);
    QVERIFY(!with_ranges.find("encoder.mask"));
    BackwardResult d, r;
    try {
      d = backward(cfg, w, with_dense, {});
      r = backward(cfg, w, with_ranges, {}, &ranges);
    } catch (const std::exception& e) {
      QFAIL(e.what());
    }
    QCOMPARE(r.steps.steps().size(), d.steps.steps().size());
    for (const Step& s : d.steps.steps()) expectClose(r.steps.find(s.info.id)->tensor, s.tensor, s.info.id);
  }

  // Whole models: the tiled trace's backward gives the full trace's gradients at every step they
  // share and every parameter; the (S, S) steps are not there; the overview holds ∂L/∂scores.
  void wholeModelsMatchTheFullPath_data() {
    QTest::addColumn<int>("mask");
    QTest::addColumn<bool>("cross");
    QTest::addColumn<int>("cap");
    QTest::newRow("padding") << int(MaskKind::Padding) << false << 256;
    QTest::newRow("causal, binned") << int(MaskKind::Causal) << false << 3;
    QTest::newRow("cross-attention") << int(MaskKind::PaddingCausal) << true << 256;
  }
  void wholeModelsMatchTheFullPath() {
    QFETCH(int, mask);
    QFETCH(bool, cross);
    QFETCH(int, cap);
    ModelConfig full;
    full.d_model = 16;
    full.heads = 4;
    full.d_ff = 24;
    full.layers = 2;
    full.mask = static_cast<MaskKind>(mask);
    full.cross = cross;
    ModelConfig tiled = full;
    tiled.overview_cap = cap;
    const Batch batch = make_batch({"the cat sat on the old mat", "dogs bark at night"},
                                   cross ? std::vector<std::string>{"le chat noir dort"} : std::vector<std::string>{});
    const Weights w = init_weights(full);
    const Trace ft = traced(full, w, batch), tt = traced(tiled, w, batch);
    const BackwardResult fb = backward(full, w, ft, {}), tb = backward(tiled, w, tt, {});
    QVERIFY(std::fabs(tb.loss - fb.loss) <= 1e-4 * (1 + std::fabs(fb.loss)));  // the online softmax rounds apart
    int shared = 0, overviews = 0;
    for (const Step& s : tb.steps.steps()) {
      const std::string& id = s.info.id;
      if (id.ends_with(".weights_overview.grad")) {
        const std::string a = id.substr(0, id.size() - std::string("weights_overview.grad").size());
        const Tensor& ds = fb.steps.find(a + "scores.grad")->tensor;
        expectClose(s.tensor, binned(ds, overview_bin(ds.size(2), cap), overview_bin(ds.size(3), cap)), id);
        ++overviews;
        continue;
      }
      for (const char* big : {".qk.grad", ".scores.grad", ".masked_scores.grad", ".weights.grad", ".k_t.grad"})
        QVERIFY2(!id.ends_with(big), id.c_str());
      const Step* f = fb.steps.find(id);
      QVERIFY2(f, ("not in the full path's backward: " + id).c_str());
      expectClose(s.tensor, f->tensor, id);
      ++shared;
    }
    QCOMPARE(overviews, cross ? 6 : 2);  // one per attention block
    QVERIFY(shared > 40);
  }
};

QTEST_GUILESS_MAIN(TestTiledBackward)
#include "test_tiled_backward.moc"
