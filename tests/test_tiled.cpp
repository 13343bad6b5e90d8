// The tiled attention (core/attention_tiled) against the full path — QKᵀ, ÷√Dh, −∞ where masked,
// softmax, ·V, as the traced model computes it — at the spec's tiled-vs-full tolerance
// (|t − f| ≤ 1e-5 + 1e-4·|f|), NaN where NaN: many shapes, every mask, blocks that do not divide
// the lengths (down to 1 × 1), strided head views, rows with every key masked.
#include <QtTest>

#include <cmath>

#include "attention_tiled.h"
#include "backend.h"
#include "model.h"
#include "weights.h"
#include "random_tensor.h"

using namespace attnlab;

namespace {

Tensor random(const Shape& shape, const std::string& name, float scale = 1.0f) {
  return test::random_tensor(shape, name, scale, 11);
}

std::string compare(const Tensor& t, const Tensor& f) {
  if (t.shape() != f.shape()) return "shape " + shape_str(t.shape()) + " vs " + shape_str(f.shape());
  const auto x = t.to_vector(), y = f.to_vector();
  for (size_t i = 0; i < x.size(); ++i) {
    if (std::isnan(x[i]) != std::isnan(y[i])) return "NaN at " + std::to_string(i) + " on one side only";
    if (!std::isnan(y[i]) && std::abs(x[i] - y[i]) > 1e-5 + 1e-4 * std::abs(y[i]))
      return "element " + std::to_string(i) + ": " + std::to_string(x[i]) + " vs " + std::to_string(y[i]);
  }
  return "";
}

}  // namespace

class TestTiled : public QObject {
  Q_OBJECT

 private slots:
  void equalsTheFullPath_data() {
    QTest::addColumn<qint64>("b");
    QTest::addColumn<qint64>("h");
    QTest::addColumn<qint64>("tq");
    QTest::addColumn<qint64>("tk");
    QTest::addColumn<qint64>("dh");
    QTest::addColumn<int>("mask");  // MaskKind
    QTest::addColumn<qint64>("bq");
    QTest::addColumn<qint64>("bk");
    const int none = int(MaskKind::None), pad = int(MaskKind::Padding), causal = int(MaskKind::Causal),
              both = int(MaskKind::PaddingCausal);
    QTest::newRow("one token") << 1LL << 1LL << 1LL << 1LL << 1LL << none << 64LL << 256LL;
    QTest::newRow("blocks of 1 × 1") << 2LL << 2LL << 7LL << 7LL << 5LL << both << 1LL << 1LL;
    QTest::newRow("remainders on both axes") << 2LL << 3LL << 70LL << 70LL << 16LL << causal << 16LL << 24LL;
    QTest::newRow("padding, odd blocks") << 3LL << 2LL << 45LL << 45LL << 8LL << pad << 7LL << 11LL;
    QTest::newRow("padding + causal") << 2LL << 4LL << 129LL << 129LL << 32LL << both << 64LL << 32LL;
    QTest::newRow("cross: 9 queries, 300 keys") << 2LL << 2LL << 9LL << 300LL << 16LL << pad << 4LL << 64LL;
    QTest::newRow("Dh 1") << 1LL << 8LL << 33LL << 33LL << 1LL << none << 8LL << 8LL;
    QTest::newRow("default tiles, S 600, Dh 64") << 1LL << 2LL << 600LL << 600LL << 64LL << causal << 64LL << 256LL;
  }

  void equalsTheFullPath() {
    QFETCH(qint64, b);
    QFETCH(qint64, h);
    QFETCH(qint64, tq);
    QFETCH(qint64, tk);
    QFETCH(qint64, dh);
    QFETCH(int, mask);
    QFETCH(qint64, bq);
    QFETCH(qint64, bk);
    // (B, T, H, Dh) transposed to (B, H, T, Dh): the head split's strided views.
    const Tensor q = random({b, tq, h, dh}, "q", 2.0f).transpose(1, 2);
    const Tensor k = random({b, tk, h, dh}, "k", 2.0f).transpose(1, 2);
    const Tensor v = random({b, tk, h, dh}, "v").transpose(1, 2);
    std::vector<int> lengths;
    for (int64_t i = 0; i < b; ++i) lengths.push_back(static_cast<int>(std::max<int64_t>(1, tk - 3 * i)));
    const Tensor m = make_mask(static_cast<MaskKind>(mask), lengths, tq, tk);
    const float root = static_cast<float>(std::sqrt(static_cast<double>(dh)));
    const std::string why = compare(attention_tiled(q, k, v, m, root, {bq, bk}), cpu_backend().attention(q, k, v, m, root));
    QVERIFY2(why.empty(), why.c_str());
  }

  void rowWithEveryKeyMaskedIsNaN() {
    const Tensor q = random({1, 2, 5, 4}, "q"), k = random({1, 2, 6, 4}, "k"), v = random({1, 2, 6, 4}, "v");
    Tensor m = make_mask(MaskKind::None, {6}, 5, 6);
    for (int64_t j = 0; j < 6; ++j) m.data()[2 * 6 + j] = 0.0f;  // query 3 sees nothing
    const Tensor t = attention_tiled(q, k, v, m, 2.0f, {2, 4});
    QVERIFY(std::isnan(t.at({0, 1, 2, 0})));
    QVERIFY(!std::isnan(t.at({0, 1, 1, 0})));
    QVERIFY(compare(t, cpu_backend().attention(q, k, v, m, 2.0f)).empty());
  }

  // The fast path of a two-layer stack on a CPU backend with tiling on: the tiled kernel in place
  // of the five steps, the same output.
  void stackOnTheTiledBackend() {
    ModelConfig cfg;
    cfg.d_model = 32;
    cfg.heads = 4;
    cfg.d_ff = 48;
    cfg.layers = 2;
    const Weights w = init_weights(cfg);
    const Tensor x = random({2, 300, 32}, "x");
    const Tensor m = make_mask(MaskKind::PaddingCausal, {300, 170}, 300, 300);
    CpuBackend tiled;
    tiled.set_fused_attention(true);
    QVERIFY(tiled.fused_attention() && !cpu_backend().fused_attention());
    NullRecorder r1, r2;
    const std::string why = compare(encoder_stack(cfg, w, x, m, r1, tiled), encoder_stack(cfg, w, x, m, r2));
    QVERIFY2(why.empty(), why.c_str());
  }

  void badShapesAreRefused() {
    const Tensor q = random({1, 2, 5, 4}, "q"), k = random({1, 2, 6, 4}, "k");
    QVERIFY_THROWS_EXCEPTION(ShapeError, attention_tiled(q, k, k, make_mask(MaskKind::None, {5}, 5, 5), 2.0f));
    QVERIFY_THROWS_EXCEPTION(ShapeError, attention_tiled(q, k, k, make_mask(MaskKind::None, {6}, 5, 6), 2.0f, {0, 4}));
  }
};

QTEST_GUILESS_MAIN(TestTiled)
#include "test_tiled.moc"
