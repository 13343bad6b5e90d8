// The model as a whole: trace vs fast path, memory estimate vs the real trace, embeddings,
// the step list, weights checking and the weights-file rules.
#include <QtTest>

#include <cmath>
#include <filesystem>
#include <fstream>

#include "backward/model_backward.h"
#include "forward/memory.h"
#include "forward/model.h"
#include "io/safetensors.h"
#include "io/weights_file.h"
#include "random_tensor.h"
#include "tensor/checked.h"
#include "text/errors.h"

using namespace attnlab;

namespace {

ModelConfig small(bool cross = false) {
  ModelConfig c = test::small_stack(16, 24);
  c.cross = cross;
  c.mask = cross ? MaskKind::PaddingCausal : MaskKind::Padding;
  return c;
}

std::string tmp_file(const char* name) { return (std::filesystem::temp_directory_path() / name).string(); }

}  // namespace

class TestModel : public QObject {
  Q_OBJECT
 private slots:
  // Bit for bit, the untraced path included: its ReLU and residual adds run inside the products'
  // passes (gemm.h's epilogue). The wide rows are big enough for the libraries and their split
  // between threads (by rows at the 80 × 64 projections, by columns at the 80 × 256 FFN).
  void fastPathEqualsTracedPath_data() {
    QTest::addColumn<bool>("cross");
    QTest::addColumn<int>("norm");
    QTest::addColumn<bool>("wide");
    QTest::addColumn<int>("activation");
    for (const bool wide : {false, true})
      for (const bool cross : {false, true})
        for (const Norm norm : {Norm::Pre, Norm::Post})
          QTest::addRow("%s%s %s", wide ? "wide " : "", cross ? "cross" : "encoder", norm == Norm::Pre ? "pre" : "post")
              << cross << int(norm) << wide << int(Activation::Relu);
    QTest::newRow("wide encoder, GELU") << false << int(Norm::Pre) << true << int(Activation::Gelu);
  }
  void fastPathEqualsTracedPath() {
    QFETCH(bool, cross);
    QFETCH(int, norm);
    QFETCH(bool, wide);
    QFETCH(int, activation);
    ModelConfig c = small(cross);
    c.d_model = wide ? 64 : c.d_model;
    c.d_ff = wide ? 256 : c.d_ff;
    c.norm = static_cast<Norm>(norm);
    c.activation = static_cast<Activation>(activation);
    const Weights w = init_weights(c);
    std::string longer = "a";  // 40 words
    for (int i = 1; i < 40; ++i) (longer += ' ') += char('a' + i % 26);
    const Batch b = make_batch({wide ? longer : "a b c d", "e f"},
                               cross ? std::vector<std::string>{wide ? longer : "x y z"} : std::vector<std::string>{});
    NullRecorder null;
    Trace trace;
    const Tensor fast = forward(c, w, b, null);
    const Tensor traced = forward(c, w, b, trace);
    QCOMPARE(fast.to_vector(), traced.to_vector());
    const std::string last = std::string(cross ? "decoder" : "encoder") + ".layers.1.output";
    QVERIFY(trace.find(last));
    QCOMPARE(trace.find(last)->tensor.to_vector(), traced.to_vector());
  }

  // The estimate must be the truth, not a guess: compare with the trace's distinct storage.
  void memoryEstimateMatchesTheTrace_data() {
    QTest::addColumn<bool>("cross");
    QTest::addColumn<int>("heads");
    QTest::addColumn<int>("positional");
    QTest::addColumn<int>("cap");
    QTest::addColumn<int>("full");  // a layer traced in full among tiled ones; -1: none
    QTest::addColumn<QString>("kept");  // heads of tiled layers kept whole (full_heads), "" none
    QTest::newRow("encoder") << false << 4 << int(Positional::Sinusoidal) << 0 << -1 << QString();
    QTest::newRow("one head") << false << 1 << int(Positional::Sinusoidal) << 0 << -1 << QString();
    QTest::newRow("no positions") << false << 2 << int(Positional::None) << 0 << -1 << QString();
    QTest::newRow("cross") << true << 4 << int(Positional::Sinusoidal) << 0 << -1 << QString();
    QTest::newRow("learned positions") << false << 4 << int(Positional::Learned) << 0 << -1 << QString();
    QTest::newRow("learned, cross") << true << 2 << int(Positional::Learned) << 0 << -1 << QString();
    QTest::newRow("tiled, overview in bins of 2") << false << 4 << int(Positional::Sinusoidal) << 3 << -1 << QString();
    QTest::newRow("tiled cross, overview of every weight") << true << 4 << int(Positional::Sinusoidal) << 64 << -1 << QString();
    QTest::newRow("tiled, layer 1 in full") << false << 4 << int(Positional::Sinusoidal) << 3 << 1 << QString();
    QTest::newRow("tiled cross, layer 0 in full") << true << 2 << int(Positional::Sinusoidal) << 2 << 0 << QString();
    QTest::newRow("tiled, heads 0.1 and 1.3 whole") << false << 4 << int(Positional::Sinusoidal) << 3 << -1
                                                    << QStringLiteral("0.1,1.3");
    QTest::newRow("tiled cross, head 1.1 whole, layer 0 in full") << true << 2 << int(Positional::Sinusoidal) << 2 << 0
                                                                   << QStringLiteral("1.1");
  }
  void memoryEstimateMatchesTheTrace() {
    QFETCH(bool, cross);
    QFETCH(int, heads);
    QFETCH(int, positional);
    QFETCH(int, cap);
    QFETCH(int, full);
    QFETCH(QString, kept);
    ModelConfig c = small(cross);
    c.heads = heads;
    c.positional = static_cast<Positional>(positional);
    c.overview_cap = cap;
    if (full >= 0) c.full_layers = {full};
    c.full_heads = parse_full_heads(kept.toStdString());
    const Batch b = make_batch({"one two three four five", "six"}, cross ? std::vector<std::string>{"p q", "r s t"}
                                                                         : std::vector<std::string>{});
    Trace trace;
    forward(c, init_weights(c), b, trace);
    const auto e = estimate_memory(c, b.text.batch(), b.encoder_tokens().seq(), cross ? b.text.seq() : 0,
                                   static_cast<int64_t>(b.vocab.words.size()));
    QCOMPARE(e.trace_bytes, trace.storage_bytes());
    QCOMPARE(e.weights_bytes, 2 * parameter_count(c) * 4);
    QCOMPARE(count_steps(c), static_cast<int64_t>(trace.steps().size()));  // what progress counts to
  }

  // A traced run with overview_cap: attention tiled, no score tensor recorded, the weights'
  // overview in their place; every other step as the full run's, within the tiled tolerance.
  void tracedTiledRunKeepsOnlyTheOverview() {
    ModelConfig full = small(true);
    ModelConfig tiled = full;
    tiled.overview_cap = 2;
    const Batch b = make_batch({"one two three four five", "six"}, {"p q r", "s t u v w x y"});
    const Weights w = init_weights(full);
    Trace f, t;
    forward(full, w, b, f);
    forward(tiled, w, b, t);
    for (const char* gone : {".qk", ".scores", ".masked_scores", ".weights", ".k_t"})
      for (const Step& s : t.steps()) QVERIFY2(!s.info.id.ends_with(gone), s.info.id.c_str());
    const Step* o = t.find("decoder.layers.0.multihead_attn.weights_overview");
    QVERIFY(o);
    QCOMPARE(o->tensor.shape(), (Shape{2, 4, 2, 2}));  // cap 2: T 5 in bins of 3, S 7 in bins of 4
    for (const Step& s : t.steps()) {
      const Step* g = f.find(s.info.id);
      if (s.info.id.ends_with("weights_overview")) {
        QVERIFY(!g);
        continue;
      }
      QVERIFY2(g, s.info.id.c_str());
      const auto x = s.tensor.to_vector(), y = g->tensor.to_vector();
      QCOMPARE(x.size(), y.size());
      for (size_t i = 0; i < y.size(); ++i)
        QVERIFY2(std::isnan(x[i]) == std::isnan(y[i]) &&
                     (std::isnan(y[i]) || std::abs(x[i] - y[i]) <= 1e-5 + 1e-4 * std::abs(y[i])),
                 s.info.id.c_str());
    }
    QCOMPARE(bin_labels({"a", "b", "c", "d", "e"}, 2), (std::vector<std::string>{"a…b", "c…d", "e"}));
    QCOMPARE(bin_labels({"a", "b"}, 1), (std::vector<std::string>{"a", "b"}));
  }

  // With the overview, the layers in full_layers keep every score step — the same tensors as a
  // run traced in full, bit for bit, as their input is — and the others only the overview.
  void fullLayersAmongTiledOnes() {
    ModelConfig full = small(true);
    full.layers = 3;
    ModelConfig mixed = full;
    mixed.overview_cap = 2;
    mixed.full_layers = {0};
    const Batch b = make_batch({"one two three four five", "six"}, {"p q r", "s t u v w x y"});
    const Weights w = init_weights(full);
    Trace f, t;
    forward(full, w, b, f);
    forward(mixed, w, b, t);
    for (const char* stack : {"encoder", "decoder"})
      for (int i = 0; i < 3; ++i) {
        const std::string p = std::string(stack) + ".layers." + std::to_string(i) + ".self_attn.";
        QCOMPARE(t.find(p + "weights") != nullptr, i == 0);
        QCOMPARE(t.find(p + "weights_overview") != nullptr, i != 0);
      }
    QVERIFY(t.find("decoder.layers.0.multihead_attn.weights") && !t.find("decoder.layers.1.multihead_attn.weights"));
    for (const char* id : {"encoder.layers.0.self_attn.masked_scores", "encoder.layers.0.self_attn.weights",
                           "decoder.layers.0.self_attn.weights"})
      QVERIFY2(t.find(id)->tensor.to_vector() == f.find(id)->tensor.to_vector(), id);  // layer 0 reads the same input
    // the cross-attention reads the encoder's output, which the tiled layers computed
    const auto x = t.find("decoder.layers.0.multihead_attn.weights")->tensor.to_vector();
    const auto y = f.find("decoder.layers.0.multihead_attn.weights")->tensor.to_vector();
    QCOMPARE(x.size(), y.size());
    for (size_t i = 0; i < y.size(); ++i) QVERIFY(std::abs(x[i] - y[i]) <= 1e-5 + 1e-4 * std::abs(y[i]));
    QCOMPARE(count_steps(mixed), static_cast<int64_t>(t.steps().size()));

    // The layers are named once each, in order, and exist
    for (const std::vector<int64_t>& bad : {std::vector<int64_t>{3}, {-1}, {1, 1}, {2, 0}}) {
      ModelConfig c = mixed;
      c.full_layers = bad;
      QVERIFY_THROWS_EXCEPTION(ConfigError, c.validate());
    }
    ModelConfig c = mixed;
    c.full_layers = {1, 1};
    try {
      c.validate();
      QFAIL("layer 1 listed twice was accepted");
    } catch (const ConfigError& e) {
      QVERIFY2(std::string(e.what()).find("layer 1 is listed twice") != std::string::npos, e.what());
    }
  }

  // With the overview, a head in full_heads keeps its whole weights, (B, 1, Tq, Tk), in each
  // attention of its (tiled) layer: that head of a run traced in full (to float rounding where the
  // input is the same, layer 0; within the tiled tolerance after tiled layers); nothing else changes.
  void fullHeadsAmongTiledOnes() {
    ModelConfig full = small(true);
    full.layers = 3;
    ModelConfig tiled = full;
    tiled.overview_cap = 2;
    ModelConfig mixed = tiled;
    mixed.full_layers = {1};
    mixed.full_heads = {{0, 2}, {2, 0}, {2, 3}};
    QCOMPARE(mixed.full_heads_of(0), (std::vector<int64_t>{2}));
    QCOMPARE(mixed.full_heads_of(1), (std::vector<int64_t>{}));
    QCOMPARE(mixed.full_heads_of(2), (std::vector<int64_t>{0, 3}));
    const Batch b = make_batch({"one two three four five", "six"}, {"p q r", "s t u v w x y"});
    const Weights w = init_weights(full);
    Trace f, t, plain;
    forward(full, w, b, f);
    forward(mixed, w, b, t);
    ModelConfig without = mixed;
    without.full_heads.clear();
    forward(without, w, b, plain);
    const char* blocks[] = {"encoder.layers.%1.self_attn.", "decoder.layers.%1.self_attn.", "decoder.layers.%1.multihead_attn."};
    int kept = 0;
    for (const char* block : blocks)
      for (int layer = 0; layer < 3; ++layer)
        for (int head = 0; head < 4; ++head) {
          const std::string p = QString::fromLatin1(block).arg(layer).toStdString();
          const Step* s = t.find(p + "weights_head_" + std::to_string(head));
          const bool want = (layer == 0 && head == 2) || (layer == 2 && (head == 0 || head == 3));
          QCOMPARE(s != nullptr, want);
          if (!s) continue;
          ++kept;
          const Tensor& all = f.find(p + "weights")->tensor;  // (B, H, Tq, Tk)
          QCOMPARE(s->tensor.shape(), (Shape{all.size(0), 1, all.size(2), all.size(3)}));
          for (int64_t bb = 0; bb < all.size(0); ++bb)
            for (int64_t i = 0; i < all.size(2); ++i)
              for (int64_t j = 0; j < all.size(3); ++j) {
                const float x = s->tensor.at({bb, 0, i, j}), y = all.at({bb, head, i, j});
                // layer 0 reads the same input: the same products (one GEMM per head either way), up
                // to the rounding a BLAS may order differently; later layers within the tiled tolerance
                const float tol = layer == 0 && block == blocks[0] ? 1e-6f * std::max(1.0f, std::abs(y))
                                                                   : 1e-5f + 1e-4f * std::abs(y);
                QVERIFY2(std::abs(x - y) <= tol, p.c_str());
              }
          QCOMPARE(s->info.title.english(), "Head " + std::to_string(head) + "'s weights, cell by cell");
        }
    QCOMPARE(kept, 9);
    // every other step is the run's without the kept heads, bit for bit
    QCOMPARE(t.steps().size(), plain.steps().size() + 9);
    for (const Step& s : plain.steps()) QVERIFY2(t.find(s.info.id)->tensor.to_vector() == s.tensor.to_vector(), s.info.id.c_str());
    QCOMPARE(count_steps(mixed), static_cast<int64_t>(t.steps().size()));
    // not traced tiled (no overview): no kept head, whatever the list says
    ModelConfig untiled = full;
    untiled.full_heads = {{0, 2}};
    QCOMPARE(untiled.full_heads_of(0), (std::vector<int64_t>{}));

    // named once each, in order, heads the model has, none in a layer traced in full
    const std::pair<std::vector<ModelConfig::LayerHead>, std::string> bad[] = {
        {{{3, 0}}, "head 3.0 is not in this model, whose layers run from 0 to 2 and heads from 0 to 3"},
        {{{0, 4}}, "head 0.4 is not in this model"},
        {{{-1, 0}}, "head -1.0 is not in this model"},
        {{{0, 1}, {0, 1}}, "head 0.1 is listed twice or out of order"},
        {{{2, 0}, {0, 1}}, "head 0.1 is listed twice or out of order"},
        {{{1, 0}}, "head 1.0 is in layer 1, which --full-layers traces in full already"}};
    for (const auto& [heads, message] : bad) {
      ModelConfig c = mixed;
      c.full_heads = heads;
      try {
        c.validate();
        QFAIL(message.c_str());
      } catch (const ConfigError& e) {
        QVERIFY2(std::string(e.what()).find(message) != std::string::npos, e.what());
      }
    }
  }

  // "layer.head" lists: parsed and written back; anything else named in the refusal.
  void fullHeadsTextRoundTrips() {
    const auto h = parse_full_heads("0.3,12.11");
    QCOMPARE(h.size(), size_t(2));
    QCOMPARE(h[1].layer, int64_t(12));
    QCOMPARE(h[1].head, int64_t(11));
    QCOMPARE(full_heads_text(h), std::string("0.3,12.11"));
    QVERIFY(parse_full_heads("").empty());
    for (const char* bad : {"1", "1.", ".2", "a.b", "1.2.3", "1.2,", ",1.2", "1.-2", "1.2x", " 1.2"}) {
      try {
        parse_full_heads(bad);
        QFAIL(bad);
      } catch (const ConfigError& e) {
        QVERIFY2(std::string(e.what()).find("is not a head") != std::string::npos, e.what());
      }
    }
  }

  // count_steps follows the layers, the norm and the faults; a fault that stops the run counts
  // the steps before it.
  void countStepsFollowsTheConfiguration() {
    ModelConfig c = small(false);
    const Batch b = make_batch({"one two three"}, {});
    for (int layers : {1, 3})
      for (Norm n : {Norm::Pre, Norm::Post}) {
        c.layers = layers;
        c.norm = n;
        Trace t;
        forward(c, init_weights(c), b, t);
        QCOMPARE(count_steps(c), static_cast<int64_t>(t.steps().size()));
      }
    c.heads = 3;  // d_model 16: indivisible, forced through
    c.faults = {Fault::IndivisibleHeads};
    Trace t;
    QVERIFY_THROWS_EXCEPTION(ShapeError, forward(c, init_weights(c), b, t));
    QVERIFY(!t.steps().empty());
    QCOMPARE(count_steps(c), static_cast<int64_t>(t.steps().size()));
  }

  // A watched run reports every step and stops at the first step after it is cancelled.
  void watchedRecorderReportsAndCancels() {
    const ModelConfig c = small(false);
    const Batch b = make_batch({"one two three"}, {});
    const Weights w = init_weights(c);
    std::atomic<bool> cancel{false};
    std::vector<int64_t> seen;
    Trace t;
    WatchedRecorder rec(t, cancel, [&](int64_t done) {
      seen.push_back(done);
      if (done == 5) cancel = true;
    });
    QVERIFY_THROWS_EXCEPTION(Cancelled, forward(c, w, b, rec));
    QCOMPARE(t.steps().size(), size_t{5});
    QCOMPARE(seen, (std::vector<int64_t>{1, 2, 3, 4, 5}));
    cancel = false;
    Trace all;
    std::vector<int64_t> seen_all;
    WatchedRecorder rec2(all, cancel, [&](int64_t done) { seen_all.push_back(done); });
    forward(c, w, b, rec2);
    QCOMPARE(static_cast<int64_t>(seen_all.size()), count_steps(c));
    QCOMPARE(seen_all.back(), count_steps(c));
  }

  // The fast path's estimate: the score matrix (B·H·S² floats) or, tiled, a tile per thread;
  // the dense mask (B·S²) only when the backend needs it.
  void fastPathEstimate() {
    ModelConfig c;
    c.d_model = 512;
    c.heads = 8;
    c.d_ff = 2048;
    const int64_t s = 16384, scores = 8 * s * s * 4, mask = s * s * 4;
    const auto full = estimate_fast_memory(c, 1, s, {.score_matrix = true, .dense_mask = true, .threads = 2});
    const auto fused = estimate_fast_memory(c, 1, s, {.score_matrix = false, .dense_mask = true, .threads = 2});
    const auto tiled = estimate_fast_memory(c, 1, s, {.score_matrix = false, .dense_mask = false, .threads = 2});
    QCOMPARE(full.trace_bytes, 0);
    QCOMPARE(full.weights_bytes, parameter_count(c) * 4);
    QVERIFY(full.working_bytes >= scores + mask);
    QVERIFY(fused.working_bytes >= mask && fused.working_bytes < scores);
    QVERIFY(tiled.total() < 1024LL * 1024 * 1024);
    QVERIFY(tiled.working_bytes >= 2 * s * c.d_ff * 4);  // the FFN's hidden activations
  }

  // Sizes whose products pass 2^63 saturate at INT64_MAX instead of wrapping to a small or
  // negative estimate that the budget would let through (checked.h); the largest budget still
  // refuses them, and the budget check itself cannot overflow.
  void absurdSizesSaturate() {
    ModelConfig c;
    c.d_model = 16384;
    c.heads = 16384;
    c.d_ff = 65536;
    c.layers = 64;
    const int64_t huge = int64_t{1} << 40;
    const auto e = estimate_memory(c, 4096, huge, 0, 2);
    QCOMPARE(e.trace_bytes, std::numeric_limits<int64_t>::max());
    QCOMPARE(e.total(), std::numeric_limits<int64_t>::max());
    QVERIFY_THROWS_EXCEPTION(DataError, check_memory_budget(e, kMaxMemoryBudgetMiB));
    const auto f = estimate_fast_memory(c, 4096, huge, {.score_matrix = true, .dense_mask = true, .threads = 2});
    QCOMPARE(f.working_bytes, std::numeric_limits<int64_t>::max());
    QVERIFY_THROWS_EXCEPTION(ConfigError, check_memory_budget(MemoryEstimate{}, kMaxMemoryBudgetMiB + 1));
    QVERIFY_THROWS_EXCEPTION(ConfigError, check_memory_budget(MemoryEstimate{}, 0));
    QCOMPARE((Count(3) * 4 + 5).value(), 17);
    QVERIFY((Count(Count::kMax) + 1).saturated());
    QCOMPARE(Count(-5).value(), 0);
  }

  void budgetRefusalNamesBothNumbers() {
    MemoryEstimate e{3 << 20, 0, 0};
    check_memory_budget(e, 3);
    try {
      check_memory_budget(e, 2);
      QFAIL("over budget accepted");
    } catch (const DataError& err) {
      const QString m = err.what();
      QVERIFY2(m.contains("3.0 MiB") && m.contains("2 MiB"), err.what());
    }
  }

  void embeddingsDependOnTextAndSeedOnly() {
    ModelConfig c = small();
    const Batch b = make_batch({"the cat saw the cat"}, {});
    Trace t;
    forward(c, init_weights(c), b, t);
    const Tensor emb = t.find("encoder.embedding")->tensor;
    for (int64_t d = 0; d < 16; ++d) {
      QCOMPARE(emb.at({0, 0, d}), emb.at({0, 3, d}));  // "the" twice
      QCOMPARE(emb.at({0, 1, d}), emb.at({0, 4, d}));  // "cat" twice
    }
    const Tensor table = embedding_table(b.vocab, 16, 0), other = embedding_table(b.vocab, 16, 1);
    QVERIFY(table.at({1, 0}) != other.at({1, 0}));
    for (int64_t d = 0; d < 16; ++d) QCOMPARE(table.at({0, d}), 0.0f);  // [PAD]
  }

  void padPositionsEmbedToZeroBeforePositions() {
    ModelConfig c = small();
    Trace t;
    forward(c, init_weights(c), make_batch({"a b c", "d"}, {}), t);
    const Tensor emb = t.find("encoder.embedding")->tensor, x = t.find("encoder.input")->tensor;
    const Tensor pe = t.find("encoder.positional")->tensor;
    for (int64_t d = 0; d < 16; ++d) {
      QCOMPARE(emb.at({1, 2, d}), 0.0f);
      QCOMPARE(x.at({1, 2, d}), pe.at({2, d}));  // the position code is added at [PAD] too
    }
  }

  void stepsDescribeThemselves() {
    ModelConfig c = small();
    Trace t;
    forward(c, init_weights(c), make_batch({"a b c"}, {}), t);
    for (const auto& s : t.steps()) {
      QVERIFY2(!s.info.title.english().empty() && !s.info.formula.english().empty() && !s.info.code.empty() && !s.info.result.empty(),
               s.info.id.c_str());
      for (const auto& in : s.info.inputs()) QVERIFY2(t.find(in), (s.info.id + " reads unknown " + in).c_str());
    }
    const auto* view = t.find("encoder.layers.0.self_attn.q_view");
    QCOMPARE(QString::fromStdString(view->info.code), QString("q_view = q_proj.view(1, 3, 4, 4)"));
    QVERIFY(!t.find("encoder.layers.0.self_attn.q")->tensor.is_contiguous());
    QVERIFY(!t.find("encoder.layers.0.self_attn.merge_transpose")->tensor.is_contiguous());
    QVERIFY(t.find("encoder.layers.0.self_attn.context")->tensor.is_contiguous());
    QVERIFY(t.find("encoder.layers.0.self_attn.q")->tensor.shares_storage(t.find("encoder.layers.0.self_attn.q_proj")->tensor));
  }

  void headsMustDivideDModel() {
    ModelConfig c = small();
    c.heads = 3;
    try {
      c.validate();
      QFAIL("accepted");
    } catch (const ConfigError& e) {
      QVERIFY2(QString(e.what()).contains("3 heads") && QString(e.what()).contains("16"), e.what());
    }
  }

  void checkWeightsNamesTheTensor() {
    ModelConfig c = small();
    Weights w = init_weights(c);
    w.set("encoder.layers.1.linear2.bias", Tensor({16}, std::nanf("")));
    try {
      check_weights(c, w);
      QFAIL("NaN accepted");
    } catch (const DataError& e) {
      QVERIFY2(QString(e.what()).contains("encoder.layers.1.linear2.bias"), e.what());
    }
    w.set("encoder.layers.1.linear2.bias", Tensor({15}));
    QVERIFY_THROWS_EXCEPTION(DataError, check_weights(c, w));
  }

  void weightsFileRoundTripAndConflicts() {
    ModelConfig c = small();
    c.norm = Norm::Post;
    c.seed = 9;
    const Weights w = init_weights(c);
    const std::string path = tmp_file("attnlab-test-weights.safetensors");
    std::ofstream(path, std::ios::binary) << serialize_weights(c, w);

    ModelConfig cli;  // defaults: d_model 64, pre-norm, seed 0
    const auto loaded = load_weights_file(path, cli, {});
    QCOMPARE(loaded.cfg.d_model, 16);
    QCOMPARE(loaded.cfg.norm, Norm::Post);
    QCOMPARE(loaded.cfg.seed, 9u);
    for (const auto& name : w.names()) QCOMPARE(loaded.weights.get(name).to_vector(), w.get(name).to_vector());

    cli.d_model = 32;
    QVERIFY_THROWS_EXCEPTION(ConfigError, load_weights_file(path, cli, {"--d-model"}));
    cli.cross = true;
    QVERIFY_THROWS_EXCEPTION(ConfigError, load_weights_file(path, cli, {}));
    std::filesystem::remove(path);
  }

  void weightsWithoutMetadataNeedHeads() {
    ModelConfig c = small();
    const Weights w = init_weights(c);
    std::vector<std::pair<std::string, Tensor>> tensors;
    for (const auto& n : w.names()) tensors.push_back({n, w.get(n)});
    const std::string path = tmp_file("attnlab-test-nometa.safetensors");
    std::ofstream(path, std::ios::binary) << serialize_safetensors(tensors, {});
    QVERIFY_THROWS_EXCEPTION(ConfigError, load_weights_file(path, ModelConfig{}, {}));
    ModelConfig cli;
    cli.heads = 2;
    const auto loaded = load_weights_file(path, cli, {"--heads"});
    QCOMPARE(loaded.cfg.d_model, 16);
    QCOMPARE(loaded.cfg.d_ff, 24);
    QCOMPARE(loaded.cfg.layers, 2);
    QCOMPARE(loaded.cfg.heads, 2);
    std::filesystem::remove(path);
  }

  // --positional learned: the table's first S rows are the position step and added to every
  // sentence; a longer text is refused naming both lengths; a weights file keeps the table and its
  // length (from the metadata, or from the table when there is none).
  void learnedPositionsAreTheTablesRows() {
    ModelConfig c = small();
    c.positional = Positional::Learned;
    c.max_positions = 6;
    Weights w = init_weights(c);
    const Tensor& table = w.get("encoder.position_embedding.weight");
    QCOMPARE(table.shape(), (Shape{6, 16}));
    const Batch b = make_batch({"one two three four five", "six"}, {});
    Trace t;
    forward(c, w, b, t);
    const Step* pe = t.find("encoder.positional");
    QVERIFY(pe);
    QCOMPARE(pe->tensor.shape(), (Shape{5, 16}));
    const auto tv = table.to_vector(), pv = pe->tensor.to_vector();
    QCOMPARE(pv, std::vector<float>(tv.begin(), tv.begin() + 5 * 16));
    const auto emb = t.find("encoder.embedding")->tensor.to_vector(), x = t.find("encoder.input")->tensor.to_vector();
    for (size_t i = 0; i < x.size(); ++i) QCOMPARE(x[i], emb[i] + pv[i % pv.size()]);
    QVERIFY(QString::fromStdString(pe->info.code).contains("encoder_position_embedding_weight[:5]"));

    Trace longer;
    try {
      forward(c, w, make_batch({"a b c d e f g"}, {}), longer);
      QFAIL("a text longer than the table was accepted");
    } catch (const ConfigError& e) {
      QVERIFY2(QString(e.what()).contains("7") && QString(e.what()).contains("6"), e.what());
    }

    const std::string path = tmp_file("attnlab-test-learned.safetensors");
    std::ofstream(path, std::ios::binary) << serialize_weights(c, w);
    const auto loaded = load_weights_file(path, ModelConfig{}, {});
    QCOMPARE(loaded.cfg.positional, Positional::Learned);
    QCOMPARE(loaded.cfg.max_positions, 6);
    QCOMPARE(loaded.weights.get("encoder.position_embedding.weight").to_vector(), tv);
    ModelConfig cli;
    cli.max_positions = 8;
    QVERIFY_THROWS_EXCEPTION(ConfigError, load_weights_file(path, cli, {"--max-positions"}));

    std::vector<std::pair<std::string, Tensor>> tensors;  // no metadata: the table says it all
    for (const auto& n : w.names()) tensors.push_back({n, w.get(n)});
    std::ofstream(path, std::ios::binary | std::ios::trunc) << serialize_safetensors(tensors, {});
    cli.heads = 4;
    const auto bare = load_weights_file(path, cli, {"--heads"});
    QCOMPARE(bare.cfg.positional, Positional::Learned);
    QCOMPARE(bare.cfg.max_positions, 6);
    cli.positional = Positional::Sinusoidal;
    QVERIFY_THROWS_EXCEPTION(ConfigError, load_weights_file(path, cli, {"--heads", "--positional"}));
    std::filesystem::remove(path);
  }

  // --final-norm: {stack}.norm after the last layer, on what the decoder reads and what the loss
  // and the output head take; its weights in files, with or without metadata.
  void finalNormClosesEachStack() {
    ModelConfig c = small(true);
    c.final_norm = true;
    Weights w = init_weights(c);
    for (const char* n : {"encoder.norm.weight", "decoder.norm.bias"}) QCOMPARE(w.get(n).shape(), (Shape{16}));
    Tensor gamma({16}), beta({16});
    for (int64_t i = 0; i < 16; ++i) gamma.data()[i] = 0.5f + 0.0625f * float(i), beta.data()[i] = 0.01f * float(i);
    w.set("encoder.norm.weight", gamma);
    w.set("encoder.norm.bias", beta);
    const Batch b = make_batch({"one two three", "four"}, {"p q r s", "t"});
    Trace t;
    const Tensor out = forward(c, w, b, t);
    const Step* norm = t.find("encoder.norm");
    QVERIFY(norm);
    const Tensor want = layer_norm(t.find("encoder.layers.1.output")->tensor, gamma, beta, c.eps);
    QCOMPARE(norm->tensor.to_vector(), want.to_vector());
    const Step* cross_k = t.find("decoder.layers.0.multihead_attn.k_proj");
    QVERIFY(cross_k);
    bool reads_norm = false;  // the decoder's keys come from the normalised memory
    for (const auto& bnd : cross_k->info.bindings) reads_norm = reads_norm || bnd.source == "encoder.norm";
    QVERIFY(reads_norm);
    QCOMPARE(out.to_vector(), t.find("decoder.norm")->tensor.to_vector());
    QCOMPARE(loss_input_step(c, LossKind::Sum), std::string("decoder.norm"));
    QCOMPARE(count_steps(c), static_cast<int64_t>(t.steps().size()));
    QCOMPARE(estimate_memory(c, 2, b.encoder_tokens().seq(), b.text.seq(), static_cast<int64_t>(b.vocab.words.size()))
                 .trace_bytes,
             t.storage_bytes());

    const std::string path = tmp_file("attnlab-test-final-norm.safetensors");
    std::ofstream(path, std::ios::binary) << serialize_weights(c, w);
    ModelConfig cli = small(true);
    QVERIFY(load_weights_file(path, cli, {}).cfg.final_norm);
    std::vector<std::pair<std::string, Tensor>> tensors;  // no metadata: the tensors say it
    for (const auto& n : w.names()) tensors.push_back({n, w.get(n)});
    std::ofstream(path, std::ios::binary | std::ios::trunc) << serialize_safetensors(tensors, {});
    cli.heads = 4;
    QVERIFY(load_weights_file(path, cli, {"--heads"}).cfg.final_norm);
    std::filesystem::remove(path);
  }
};

QTEST_GUILESS_MAIN(TestModel)
#include "test_model.moc"
