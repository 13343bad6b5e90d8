// The tiled attention (core/attention_tiled) against the full path — QKᵀ, ÷√Dh, −∞ where masked,
// softmax, ·V, as the traced model computes it — at the spec's tiled-vs-full tolerance
// (|t − f| ≤ 1e-5 + 1e-4·|f|), NaN where NaN: many shapes, every mask, blocks that do not divide
// the lengths (down to 1 × 1), strided head views, rows with every key masked.
#include <QtTest>

#include <cmath>
#include <limits>
#include <utility>
#include <vector>

#include "backend/attention_tiled.h"
#include "backend/backend.h"
#include "forward/model.h"
#include "model/weights.h"
#include "random_tensor.h"
#include "tensor/scoped_threads.h"

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

// attention_tiled on `threads` OpenMP threads, the count put back after.
Tensor tiled_on(int threads, const Tensor& q, const Tensor& k, const Tensor& v, const KeyRanges& r, float root) {
  const ScopedThreads on(threads);
  return attention_tiled(q, k, v, r, root);
}

// Random q, k, v of `shape` (one sequence, every row of it real) through tiled_on(threads) against
// the full path: "" when they agree.
std::string tiled_vs_full(int threads, const Shape& shape, MaskKind kind, float root) {
  const Tensor q = random(shape, "q"), k = random(shape, "k"), v = random(shape, "v");
  const int s = static_cast<int>(shape[2]);
  const KeyRanges r = key_ranges(kind, {s}, s, s);
  return compare(tiled_on(threads, q, k, v, r, root), cpu_backend().attention(q, k, v, r.dense(), root));
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
    QTest::newRow("the default tiles (128 × 256), S 600, Dh 64") << 2LL << 2LL << 600LL << 600LL << 64LL << both << 128LL << 256LL;
    QTest::newRow("the old default tiles (64 × 256), S 600, Dh 64") << 1LL << 2LL << 600LL << 600LL << 64LL << causal << 64LL << 256LL;
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
    const Tensor full = cpu_backend().attention(q, k, v, m, root);
    std::string why = compare(attention_tiled(q, k, v, m, root, {bq, bk}), full);
    QVERIFY2(why.empty(), why.c_str());
    // The same mask as key ranges, never made dense.
    const KeyRanges r = key_ranges(static_cast<MaskKind>(mask), lengths, tq, tk);
    why = compare(attention_tiled(q, k, v, r, root, {bq, bk}), full);
    QVERIFY2(why.empty(), ("key ranges: " + why).c_str());
  }

  // Every built-in kind's ranges are its dense mask, both ways round.
  void keyRangesAreTheMask_data() {
    QTest::addColumn<int>("mask");
    for (MaskKind k : {MaskKind::None, MaskKind::Padding, MaskKind::Causal, MaskKind::PaddingCausal})
      QTest::newRow(std::string(mask_name(k)).c_str()) << int(k);
  }
  void keyRangesAreTheMask() {
    QFETCH(int, mask);
    const std::vector<int> lengths{9, 4, 0};
    for (auto [tq, tk] : {std::pair<int64_t, int64_t>{9, 9}, {3, 9}, {12, 9}}) {
      const Tensor m = make_mask(static_cast<MaskKind>(mask), lengths, tq, tk);
      const KeyRanges r = key_ranges(static_cast<MaskKind>(mask), lengths, tq, tk);
      QCOMPARE(r.shape(), m.shape());
      QCOMPARE(r.dense().to_vector(), m.to_vector());
      bool exact = false;
      const KeyRanges back = key_ranges_of(m, &exact);
      QVERIFY(exact);
      for (size_t i = 0; i < r.lo.size(); ++i) {  // an empty row may be [0, 0) or [x, x)
        QCOMPARE(back.hi[i] - back.lo[i], r.hi[i] - r.lo[i]);
        if (r.hi[i] > r.lo[i]) QCOMPARE(back.lo[i], r.lo[i]);
      }
    }
    QVERIFY_THROWS_EXCEPTION(ShapeError, key_ranges(static_cast<MaskKind>(mask), {10}, 4, 9));
    QVERIFY_THROWS_EXCEPTION(ShapeError, key_ranges(static_cast<MaskKind>(mask), {-1}, 4, 9));
  }

  // A hand-drawn mask with holes inside rows (the mask editor's): not key ranges, so the tiled
  // loop also reads it element by element.
  void handDrawnMaskWithHoles() {
    const int64_t tq = 37, tk = 41;
    const Tensor q = random({2, 3, tq, 8}, "q", 2.0f), k = random({2, 3, tk, 8}, "k", 2.0f), v = random({2, 3, tk, 8}, "v");
    Tensor m({2, tq, tk}, 1.0f);
    for (int64_t i = 0; i < m.numel(); ++i)
      if ((i * 7919) % 5 == 0 || (i / tk) % 11 == 3) m.data()[i] = 0.0f;  // holes, and whole rows hidden
    for (int64_t j = 0; j < tk; ++j) m.data()[5 * tk + j] = j == 40 ? 1.0f : 0.0f;  // one key, in the last block
    bool exact = true;
    key_ranges_of(m, &exact);
    QVERIFY(!exact);
    const Tensor full = cpu_backend().attention(q, k, v, m, 3.0f);
    for (TileSizes t : {TileSizes{}, TileSizes{64, 256}, TileSizes{5, 7}, TileSizes{1, 1}}) {
      const std::string why = compare(attention_tiled(q, k, v, m, 3.0f, t), full);
      QVERIFY2(why.empty(), why.c_str());
    }
    QVERIFY(std::isnan(full.at({0, 0, 3, 0})));  // row 3 of the first batch row is hidden whole
  }

  // Fewer query rows where the blocks would not give each thread two tasks, never below 64.
  void queryRowsKeepTwoTasksPerThread() {
    QCOMPARE(TileSizes{}.queries, 128);
    QCOMPARE(tiled_query_rows({}, 8, 2048, 2), 128);         // 128 tasks for 2 threads
    QCOMPARE(tiled_query_rows({}, 4, 512, 8), 128);          // 16 tasks: two per thread
    QCOMPARE(tiled_query_rows({}, 4, 512, 16), 64);          // 16 → 32 tasks
    QCOMPARE(tiled_query_rows({}, 1, 128, 16), 64);          // one task → two, and no further
    QCOMPARE(tiled_query_rows({256, 256}, 1, 1024, 8), 64);  // 4 → 8 → 16 tasks
    QCOMPARE(tiled_query_rows({5, 7}, 1, 10, 16), 5);        // a caller's small blocks stay
    // The rows halved in a run: one head at S 300 (3 blocks of 128) on 16 threads — the same attention.
    const std::string why = tiled_vs_full(16, {1, 1, 300, 16}, MaskKind::Causal, 4.0f);
    QVERIFY2(why.empty(), why.c_str());
  }

  // With every row seeing as many keys, the fast path's blocks shrink until each thread has
  // whole ones (its rows, every head): S 128 on two threads in two blocks of 64.
  void wholeBlocksPerThread() {
    QCOMPARE(whole_block_rows(128, 1, 128, 2), 64);    // one block of 128 → two of 64
    QCOMPARE(whole_block_rows(128, 1, 512, 2), 128);   // four blocks already
    QCOMPARE(whole_block_rows(128, 4, 128, 2), 128);   // four sequences, a block each
    QCOMPARE(whole_block_rows(128, 1, 128, 16), 16);   // not below 16 rows
    QCOMPARE(whole_block_rows(64, 1, 40, 2), 32);      // 40 rows: blocks of 32 and 8
    QCOMPARE(whole_block_rows(5, 1, 10, 16), 5);       // a caller's small blocks stay
    // The same attention with the blocks shrunk (one sequence of 40 rows, 2 threads): static split.
    const std::string why = tiled_vs_full(2, {1, 4, 40, 8}, MaskKind::None, 2.0f);
    QVERIFY2(why.empty(), why.c_str());
  }

  // The fast path writes each row where the heads' merge puts it: (B, Tq, H, Dh) storage seen as
  // (B, H, Tq, Dh), so transpose(1, 2) is C-order and .contiguous() copies nothing. Both orders of
  // work (every row the same keys, partial key blocks too: a static split; causal, uneven padding:
  // dynamic) give the full path's numbers, on two threads and more. The traced run's overview
  // keeps C-order (B, H, Tq, Dh).
  void fastPathWritesTheMergedLayout() {
    const Tensor q = random({2, 3, 70, 8}, "q"), k = random({2, 3, 70, 8}, "k"), v = random({2, 3, 70, 8}, "v");
    const std::pair<MaskKind, std::vector<int>> masks[] = {
        {MaskKind::None, {70, 70}}, {MaskKind::Padding, {41, 41}},  // every row as many keys: static
        {MaskKind::Causal, {70, 70}}, {MaskKind::Padding, {70, 41}}};  // dynamic
    for (const auto& [kind, lengths] : masks) {
      const KeyRanges r = key_ranges(kind, lengths, 70, 70);
      for (const int threads : {2, 5}) {
        Tensor t;
        TiledAttention traced;
        {
          const ScopedThreads on(threads);
          t = attention_tiled(q, k, v, r, 3.0f, {16, 32});
          traced = attention_tiled_overview(q, k, v, r, 3.0f, 256, {16, 32});
        }
        QCOMPARE(t.shape(), (Shape{2, 3, 70, 8}));
        QVERIFY(!t.is_contiguous());
        const Tensor merged = t.transpose(1, 2).contiguous();
        QVERIFY(merged.shares_storage(t));  // no copy
        QVERIFY(traced.out.is_contiguous());
        const Tensor full = cpu_backend().attention(q, k, v, r.dense(), 3.0f);
        std::string why = compare(t, full);
        QVERIFY2(why.empty(), why.c_str());
        QCOMPARE(traced.out.to_vector(), t.to_vector());  // the same rows, whichever layout
      }
    }
  }

  void rowWithEveryKeyMaskedIsNaN() {
    const Tensor q = random({1, 2, 5, 4}, "q"), k = random({1, 2, 6, 4}, "k"), v = random({1, 2, 6, 4}, "v");
    Tensor m = make_mask(MaskKind::None, {6}, 5, 6);
    for (int64_t j = 0; j < 6; ++j) m.data()[2 * 6 + j] = 0.0f;  // query 2 sees nothing
    const Tensor t = attention_tiled(q, k, v, m, 2.0f, {2, 4});
    QVERIFY(std::isnan(t.at({0, 1, 2, 0})));
    QVERIFY(!std::isnan(t.at({0, 1, 1, 0})));
    QVERIFY(compare(t, cpu_backend().attention(q, k, v, m, 2.0f)).empty());
  }

  // The fast path of a two-layer stack on a CPU backend with tiling on: the tiled kernel in place
  // of the five steps, the same output.
  void stackOnTheTiledBackend() {
    const ModelConfig cfg = test::small_stack(32, 48);
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

  // The stack's fast path given key ranges: the tiled CPU backend never makes the (B, S, S)
  // mask, the five-step backend makes it; a traced run makes it and records it. All agree.
  void stackWithKeyRanges() {
    const ModelConfig cfg = test::small_stack(32, 48);
    const Weights w = init_weights(cfg);
    const Tensor x = random({2, 150, 32}, "x");
    const std::vector<int> lengths{150, 77};
    const KeyRanges r = key_ranges(MaskKind::PaddingCausal, lengths, 150, 150);
    const Tensor dense = make_mask(MaskKind::PaddingCausal, lengths, 150, 150);
    CpuBackend tiled;
    tiled.set_fused_attention(true);
    NullRecorder n1, n2, n3;
    const Tensor want = encoder_stack(cfg, w, x, dense, n1);
    std::string why = compare(encoder_stack(cfg, w, x, r, n2, tiled), want);
    QVERIFY2(why.empty(), why.c_str());
    why = compare(encoder_stack(cfg, w, x, r, n3), want);
    QVERIFY2(why.empty(), why.c_str());
    Trace t;
    why = compare(encoder_stack(cfg, w, x, r, t), want);
    QVERIFY2(why.empty(), why.c_str());
    QVERIFY(t.find("encoder.layers.1.self_attn.weights") != nullptr);
  }

  // The overview of the weights kept by the tiled loop against the full path's weights binned
  // by hand: the mean over each query bin of the weight summed over each key bin. With sizes up
  // to the cap it is the weights themselves; a query that sees no key adds nothing.
  void overviewIsTheBinnedWeights_data() {
    QTest::addColumn<qint64>("tq");
    QTest::addColumn<qint64>("tk");
    QTest::addColumn<qint64>("cap");
    QTest::addColumn<int>("mask");
    QTest::newRow("within the cap: the weights") << 20LL << 20LL << 256LL << int(MaskKind::PaddingCausal);
    QTest::newRow("bins of 3 × 3, remainders") << 40LL << 40LL << 16LL << int(MaskKind::Causal);
    QTest::newRow("cross, bins of 1 × 7") << 9LL << 100LL << 16LL << int(MaskKind::Padding);
    QTest::newRow("300 × 300 into 100 × 100") << 300LL << 300LL << 100LL << int(MaskKind::PaddingCausal);
  }
  void overviewIsTheBinnedWeights() {
    QFETCH(qint64, tq);
    QFETCH(qint64, tk);
    QFETCH(qint64, cap);
    QFETCH(int, mask);
    const int64_t b = 2, h = 3, dh = 8;
    const Tensor q = random({b, tq, h, dh}, "q", 2.0f).transpose(1, 2), k = random({b, tk, h, dh}, "k", 2.0f).transpose(1, 2),
                 v = random({b, tk, h, dh}, "v").transpose(1, 2);
    Tensor m = make_mask(static_cast<MaskKind>(mask), {static_cast<int>(tk), static_cast<int>(tk / 2)}, tq, tk);
    for (int64_t j = 0; j < tk; ++j) m.data()[(tq + 1) * tk + j] = 0.0f;  // batch row 1, query 1 sees nothing
    const float root = std::sqrt(float(dh));
    // The full path's weights, as the traced model computes them.
    Tensor w = cpu_backend().matmul(q, k.transpose(-2, -1));
    for (int64_t i = 0; i < w.numel(); ++i) w.data()[i] /= root;
    masked_fill_neg_inf_inplace(w, m);
    softmax_lastdim_inplace(w);
    const int64_t bq = overview_bin(tq, cap), bk = overview_bin(tk, cap), R = (tq + bq - 1) / bq, C = (tk + bk - 1) / bk;
    Tensor want({b, h, R, C}, 0.0f);
    for (int64_t bb = 0; bb < b; ++bb)
      for (int64_t hh = 0; hh < h; ++hh)
        for (int64_t i = 0; i < tq; ++i) {
          const int64_t in_bin = std::min<int64_t>(bq, tq - i / bq * bq);
          for (int64_t j = 0; j < tk; ++j) {
            const float x = w.at({bb, hh, i, j});
            if (!std::isnan(x)) want.at({bb, hh, i / bq, j / bk}) += x / float(in_bin);
          }
        }
    const TiledAttention t = attention_tiled_overview(q, k, v, m, root, cap, {16, 32});
    QCOMPARE(t.overview.shape(), (Shape{b, h, R, C}));
    std::string why = compare(t.overview, want);
    QVERIFY2(why.empty(), why.c_str());
    why = compare(t.out, cpu_backend().attention(q, k, v, m, root));
    QVERIFY2(why.empty(), ("output: " + why).c_str());
    if (tq <= cap && tk <= cap) {  // bins of one: the weights, 0 for the query that sees nothing
      QCOMPARE(t.overview.shape(), w.shape());
      const auto o = t.overview.to_vector(), x = w.to_vector();
      for (size_t i = 0; i < x.size(); ++i)
        QVERIFY2(std::isnan(x[i]) ? o[i] == 0.0f : std::abs(o[i] - x[i]) <= 1e-5 + 1e-4 * std::abs(x[i]),
                 std::to_string(i).c_str());
    }
  }

  void badShapesAreRefused() {
    const Tensor q = random({1, 2, 5, 4}, "q"), k = random({1, 2, 6, 4}, "k");
    QVERIFY_THROWS_EXCEPTION(ShapeError, attention_tiled(q, k, k, make_mask(MaskKind::None, {5}, 5, 5), 2.0f));
    QVERIFY_THROWS_EXCEPTION(ShapeError, attention_tiled(q, k, k, make_mask(MaskKind::None, {6}, 5, 6), 2.0f, {0, 4}));
    QVERIFY_THROWS_EXCEPTION(ShapeError, attention_tiled(q, k, k, key_ranges(MaskKind::None, {5}, 5, 5), 2.0f));
    // The scaling divides inside the exponential and the row's maximum is the raw one divided:
    // only a positive √Dh keeps that the maximum.
    const KeyRanges all = key_ranges(MaskKind::None, {6}, 5, 6);
    for (float root : {0.0f, -2.0f, std::numeric_limits<float>::quiet_NaN()})
      QVERIFY_THROWS_EXCEPTION(ShapeError, attention_tiled(q, k, k, all, root));
    QCOMPARE(attention_tiled(q, k, k, all, 2.0f).shape(), q.shape());
  }
};

QTEST_GUILESS_MAIN(TestTiled)
#include "test_tiled.moc"
