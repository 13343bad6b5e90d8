// The attention variants (core/variants/variants.h) against naive references written here with dense
// (T, T) masks and double sums, against full attention where they must agree, and as part of a
// traced run: the model's own steps untouched, the memory estimate and the step count exact, and
// the table of what each kind records (variant_table.h) true to the trace.
#include <QtTest>

#include <algorithm>
#include <cmath>
#include <functional>
#include <tuple>

#include "forward/memory.h"
#include "forward/model.h"
#include "model/config.h"
#include "model/weights.h"
#include "text/errors.h"
#include "variants/variant_table.h"
#include "variants/variants.h"

using namespace attnlab;

namespace {

ModelConfig config(VariantKind kind, MaskKind mask = MaskKind::Padding) {
  ModelConfig c;
  c.d_model = 16;
  c.heads = 2;
  c.d_ff = 32;
  c.mask = mask;
  c.seed = 3;
  c.variant.kind = kind;
  return c;
}

const std::vector<std::string> kTexts = {"one two three four five six seven", "eight nine"};

struct Run {
  ModelConfig cfg;
  Batch batch;
  Trace trace;
  const Tensor& operator[](const std::string& name) const {  // a variant step, or a block step
    const Step* s = trace.find(name.starts_with("encoder.") ? name : variant_prefix(cfg.variant) + name);
    if (!s) qFatal("no step %s", name.c_str());
    return s->tensor;
  }
  int64_t t() const { return batch.text.seq(); }
};

Run run(const ModelConfig& c) {
  Run r{c, make_batch(kTexts, {}), {}};
  forward(c, init_weights(c), r.batch, r.trace);
  return r;
}

// x[b, h, i, j] of a (B, H, R, C) tensor, any strides.
double at(const Tensor& x, int64_t b, int64_t h, int64_t i, int64_t j) { return x.at({b, h, i, j}); }

// Naive attention for one (b, h): weights over the keys `keep(i, j)` of (q·k / √Dh + bias(i, j)),
// zero rows where nothing is kept; returns out (T, Dh) and fills w (T, T).
std::vector<double> naive(const Run& r, int64_t b, int64_t h, const std::function<bool(int64_t, int64_t)>& keep,
                          const std::function<double(int64_t, int64_t)>& bias, std::vector<double>* w_out,
                          const Tensor* values = nullptr) {
  const Tensor &q = r["encoder.layers.0.self_attn.q"], &k = r["encoder.layers.0.self_attn.k"];
  const Tensor& v = values ? *values : r["encoder.layers.0.self_attn.v"];
  const int64_t t = q.size(2), dh = q.size(3);
  std::vector<double> w(static_cast<size_t>(t * t), 0.0), out(static_cast<size_t>(t * dh), 0.0);
  for (int64_t i = 0; i < t; ++i) {
    double mx = -INFINITY, sum = 0;
    std::vector<double> s(static_cast<size_t>(t));
    for (int64_t j = 0; j < t; ++j) {
      double dot = 0;
      for (int64_t e = 0; e < dh; ++e) dot += at(q, b, h, i, e) * at(k, b, h, j, e);
      s[static_cast<size_t>(j)] = dot / std::sqrt(static_cast<double>(dh)) + bias(i, j);
      if (keep(i, j)) mx = std::max(mx, s[static_cast<size_t>(j)]);
    }
    for (int64_t j = 0; j < t; ++j)
      if (keep(i, j)) sum += std::exp(s[static_cast<size_t>(j)] - mx);
    for (int64_t j = 0; j < t; ++j)
      if (keep(i, j)) w[static_cast<size_t>(i * t + j)] = std::exp(s[static_cast<size_t>(j)] - mx) / sum;
    for (int64_t j = 0; j < t; ++j)
      for (int64_t e = 0; e < dh; ++e) out[static_cast<size_t>(i * dh + e)] += w[static_cast<size_t>(i * t + j)] * at(v, b, h, j, e);
  }
  if (w_out) *w_out = w;
  return out;
}

bool visible(const Run& r, int64_t b, int64_t i, int64_t j) { return r["encoder.mask"].at({b, i, j}) != 0.0f; }

// |a − b| ≤ 1e-5 + 1e-4·|b| over a head's (T, C) result.
void expectHead(const Tensor& got, int64_t b, int64_t h, const std::vector<double>& want, const char* what) {
  const int64_t t = got.size(2), c = got.size(3);
  for (int64_t i = 0; i < t; ++i)
    for (int64_t e = 0; e < c; ++e) {
      const double w = want[static_cast<size_t>(i * c + e)], g = at(got, b, h, i, e);
      if (std::abs(g - w) > 1e-5 + 1e-4 * std::abs(w))
        QFAIL(qPrintable(QStringLiteral("%1: (%2, %3, %4, %5) is %6, naive %7").arg(what).arg(b).arg(h).arg(i).arg(e).arg(g).arg(w)));
    }
}

double maxError(const Run& r) {
  const Tensor& e = r["error"];
  double m = 0;
  for (int64_t i = 0; i < e.numel(); ++i) m = std::max(m, static_cast<double>(e.data()[i]));
  return m;
}

}  // namespace

class TestVariants : public QObject {
  Q_OBJECT
 private slots:
  // Each pattern variant against the naive masked softmax of its definition.
  void patternVariantsMatchTheirDefinitions_data() {
    QTest::addColumn<int>("kind");
    QTest::newRow("window") << int(VariantKind::Window);
    QTest::newRow("bigbird") << int(VariantKind::BigBird);
    QTest::newRow("topk") << int(VariantKind::TopK);
    QTest::newRow("relative") << int(VariantKind::RelativeBias);
    QTest::newRow("alibi") << int(VariantKind::Alibi);
  }
  void patternVariantsMatchTheirDefinitions() {
    QFETCH(int, kind);
    ModelConfig c = config(static_cast<VariantKind>(kind), MaskKind::PaddingCausal);
    c.variant.block = 3;
    const Run r = run(c);
    const int64_t t = r.t();
    const Tensor table = relative_bias_table(c.heads, c.variant.max_distance, c.seed);
    for (int64_t b = 0; b < 2; ++b)
      for (int64_t h = 0; h < c.heads; ++h) {
        const auto big = bigbird_pattern(t, c.variant, h, c.seed);
        const Tensor& ms = r["encoder.layers.0.self_attn.masked_scores"];
        std::function<bool(int64_t, int64_t)> keep = [&](int64_t i, int64_t j) {
          if (!visible(r, b, i, j)) return false;
          switch (c.variant.kind) {
            case VariantKind::Window: return std::abs(i - j) <= c.variant.window || i < c.variant.globals || j < c.variant.globals;
            case VariantKind::BigBird: return big[static_cast<size_t>(i * t + j)] != 0;
            case VariantKind::TopK: {  // at least the k-th largest visible score
              int64_t above = 0;
              for (int64_t o = 0; o < t; ++o) above += at(ms, b, h, i, o) > at(ms, b, h, i, j);
              return above < c.variant.top_k;
            }
            default: return true;
          }
        };
        std::function<double(int64_t, int64_t)> bias = [&](int64_t i, int64_t j) -> double {
          if (c.variant.kind == VariantKind::Alibi) return -std::exp2(-8.0 * (h + 1) / c.heads) * std::abs(i - j);
          if (c.variant.kind != VariantKind::RelativeBias) return 0.0;
          const int64_t m = c.variant.max_distance;
          return table.at({h, std::clamp(j - i, -m, m) + m});
        };
        std::vector<double> w;
        expectHead(r["head_out"], b, h, naive(r, b, h, keep, bias, &w), "head_out");
        for (int64_t i = 0; i < t; ++i)
          for (int64_t j = 0; j < t; ++j) {
            const double got = at(r["weights"], b, h, i, j);
            if (w[static_cast<size_t>(i * t + j)] == 0.0) QCOMPARE(got, 0.0);  // exactly 0 outside
            else QVERIFY(std::abs(got - w[static_cast<size_t>(i * t + j)]) < 1e-5);
            if (c.variant.kind == VariantKind::Window || c.variant.kind == VariantKind::BigBird)
              QCOMPARE(at(r["pattern"], b, h, i, j), keep(i, j) ? 1.0 : 0.0);
          }
      }
  }

  // Axial: rows, then columns over the rows' outputs; and the effective matrix A_col·A_row.
  void axialIsTwoHops() {
    ModelConfig c = config(VariantKind::Axial, MaskKind::None);
    c.variant.grid_width = 3;
    const Run r = run(c);
    for (int64_t b = 0; b < 2; ++b)
      for (int64_t h = 0; h < c.heads; ++h) {
        const auto none = [](int64_t, int64_t) { return 0.0; };
        std::vector<double> wr, wc;
        naive(r, b, h, [](int64_t i, int64_t j) { return i / 3 == j / 3; }, none, &wr);
        expectHead(r["row_out"], b, h, naive(r, b, h, [](int64_t i, int64_t j) { return i / 3 == j / 3; }, none, nullptr), "row_out");
        const Tensor& rows = r["row_out"];
        expectHead(r["head_out"], b, h, naive(r, b, h, [](int64_t i, int64_t j) { return i % 3 == j % 3; }, none, &wc, &rows), "head_out");
        const int64_t t = r.t();
        for (int64_t i = 0; i < t; ++i)
          for (int64_t j = 0; j < t; ++j) {
            double e = 0;
            for (int64_t m = 0; m < t; ++m) e += wc[static_cast<size_t>(i * t + m)] * wr[static_cast<size_t>(m * t + j)];
            QVERIFY(std::abs(at(r["effective"], b, h, i, j) - e) < 1e-5);
            // two hops reach j from i through the cell in j's row and i's column, where there is one
            QCOMPARE(e > 0, (j / 3) * 3 + i % 3 < t);
          }
      }
  }

  // Linear attention: the O(T) result equals its quadratic form and the naive normalised kernel.
  void linearAttentionEqualsItsQuadraticForm_data() {
    QTest::addColumn<int>("mask");
    QTest::newRow("padding") << int(MaskKind::Padding);
    QTest::newRow("padding+causal") << int(MaskKind::PaddingCausal);
  }
  void linearAttentionEqualsItsQuadraticForm() {
    QFETCH(int, mask);
    const Run r = run(config(VariantKind::Linear, static_cast<MaskKind>(mask)));
    const Tensor &q = r["encoder.layers.0.self_attn.q"], &k = r["encoder.layers.0.self_attn.k"],
                 &v = r["encoder.layers.0.self_attn.v"];
    const auto phi = [](double x) { return x > 0 ? x + 1 : std::exp(x); };
    const int64_t t = r.t(), dh = q.size(3);
    for (int64_t b = 0; b < 2; ++b)
      for (int64_t h = 0; h < 2; ++h) {
        std::vector<double> out(static_cast<size_t>(t * dh), 0.0);
        for (int64_t i = 0; i < t; ++i) {
          double den = 0;
          std::vector<double> a(static_cast<size_t>(t), 0.0);
          for (int64_t j = 0; j < t; ++j) {
            if (!visible(r, b, i, j)) continue;
            for (int64_t e = 0; e < dh; ++e) a[static_cast<size_t>(j)] += phi(at(q, b, h, i, e)) * phi(at(k, b, h, j, e));
            den += a[static_cast<size_t>(j)];
          }
          for (int64_t j = 0; j < t; ++j)
            for (int64_t e = 0; e < dh; ++e) out[static_cast<size_t>(i * dh + e)] += a[static_cast<size_t>(j)] / den * at(v, b, h, j, e);
        }
        expectHead(r["head_out"], b, h, out, "linear head_out");
        expectHead(r["quadratic_out"], b, h, out, "quadratic_out");
      }
    QVERIFY(summarize_variant(r.cfg.variant, r.trace, r.cfg.d_model)->agreement < 1e-5);
  }

  // Linformer: E (rank, T) from its streams; O = softmax(Q (E K)ᵀ/√Dh)(E V), padded keys zeroed.
  void linformerProjectsKeysAndValues() {
    ModelConfig c = config(VariantKind::Linformer);
    c.variant.rank = 3;
    const Run r = run(c);
    const Tensor e = linformer_projection(3, r.t(), c.seed);
    QCOMPARE(r["projection"].to_vector(), e.to_vector());
    // a column depends on its position only, not on the length
    const Tensor longer = linformer_projection(3, r.t() + 5, c.seed);
    QCOMPARE(longer.at({2, 4}), e.at({2, 4}));
    const Tensor& kl = r["k_low"];
    const Tensor& k = r["encoder.layers.0.self_attn.k"];
    for (int64_t b = 0; b < 2; ++b)
      for (int64_t row = 0; row < 3; ++row)
        for (int64_t d = 0; d < 8; ++d) {
          double s = 0;
          for (int64_t j = 0; j < r.t(); ++j)
            if (visible(r, b, 0, j)) s += e.at({row, j}) * at(k, b, 1, j, d);
          QVERIFY(std::abs(at(kl, b, 1, row, d) - s) < 1e-5);
        }
    QVERIFY_THROWS_EXCEPTION(ConfigError, config(VariantKind::Linformer, MaskKind::Causal).validate());
  }

  // Where a variant must equal full attention: a window covering everything, k = T, any tiling,
  // the KV cache against the causal recompute (and, with a causal model mask, the block itself).
  void agreesWithFullAttentionWhereItMust_data() {
    QTest::addColumn<int>("kind");
    QTest::addColumn<int>("knob");
    QTest::addColumn<int>("mask");
    QTest::newRow("window ≥ T") << int(VariantKind::Window) << 7 << int(MaskKind::Padding);
    QTest::newRow("top-k = T") << int(VariantKind::TopK) << 7 << int(MaskKind::PaddingCausal);
    QTest::newRow("tiles of 1") << int(VariantKind::Tiled) << 1 << int(MaskKind::Padding);
    QTest::newRow("tiles of 3, causal") << int(VariantKind::Tiled) << 3 << int(MaskKind::Causal);
    QTest::newRow("one tile") << int(VariantKind::Tiled) << 64 << int(MaskKind::None);
    QTest::newRow("KV cache") << int(VariantKind::KvCache) << 0 << int(MaskKind::Padding);
    QTest::newRow("KV cache, causal model") << int(VariantKind::KvCache) << 0 << int(MaskKind::PaddingCausal);
  }
  void agreesWithFullAttentionWhereItMust() {
    QFETCH(int, kind);
    QFETCH(int, knob);
    QFETCH(int, mask);
    ModelConfig c = config(static_cast<VariantKind>(kind), static_cast<MaskKind>(mask));
    c.variant.window = knob;
    c.variant.globals = 0;
    c.variant.top_k = knob;
    c.variant.tile = knob;
    const Run r = run(c);
    QVERIFY2(maxError(r) < 1e-5, qPrintable(QString::number(maxError(r))));
    if (c.variant.kind == VariantKind::KvCache && c.mask == MaskKind::PaddingCausal) {
      const Tensor &a = r["head_out"], &full = r["encoder.layers.0.self_attn.head_out"];
      for (int64_t i = 0; i < a.numel(); ++i) QVERIFY(std::abs(a.data()[i] - full.contiguous().data()[i]) < 1e-5);
    }
    if (c.variant.kind == VariantKind::KvCache) {  // the cache grows one row per token
      for (int64_t t = 0; t < r.t(); ++t)
        QCOMPARE(r["t" + std::to_string(t) + ".k_cache"].shape(), (Shape{2, 2, t + 1, 8}));
    }
    if (c.variant.kind == VariantKind::Tiled && knob == 3) {  // the running maximum never falls
      const Tensor &m0 = r["tile0.m"], &m1 = r["tile1.m"], &r1 = r["tile1.rescale"];
      for (int64_t i = 0; i < m0.numel(); ++i) {
        QVERIFY(m1.data()[i] >= m0.data()[i]);
        QVERIFY(r1.data()[i] >= 0.0f && r1.data()[i] <= 1.0f);
      }
    }
  }

  // A narrow window really changes the result (the comparison is not vacuous).
  void aNarrowWindowDiffers() {
    ModelConfig c = config(VariantKind::Window);
    c.variant.window = 0;
    c.variant.globals = 0;
    const Run r = run(c);
    QVERIFY(maxError(r) > 1e-2);
    QVERIFY(summarize_variant(c.variant, r.trace, c.d_model)->rel_error > 0.05);
  }

  // Patterns: the window's count is the band less its corners; BigBird has its window, global and
  // random blocks, drawn per head, the same for the same seed.
  void patternsCountAsTheFormulasSay() {
    for (int64_t t : {1, 5, 12})
      for (int64_t w : {0, 1, 3}) {
        const auto p = window_pattern(t, w, 0);
        const int64_t m = std::min(w, t - 1);
        QCOMPARE(std::count(p.begin(), p.end(), 1), t * (2 * m + 1) - m * (m + 1));
      }
    VariantConfig v;
    v.block = 2;
    v.globals = 1;
    v.random_blocks = 2;
    const int64_t t = 16, nb = 8;
    const auto h0 = bigbird_pattern(t, v, 0, 1), h1 = bigbird_pattern(t, v, 1, 1);
    QCOMPARE(bigbird_pattern(t, v, 0, 1), h0);
    QVERIFY(h0 != h1);
    for (int64_t qb = 1; qb < nb; ++qb) {  // each non-global query block: 1 global + ≤3 window + 2 random
      int64_t blocks = 0;
      for (int64_t kb = 0; kb < nb; ++kb) blocks += h0[static_cast<size_t>(qb * 2 * t + kb * 2)];
      const int64_t window = std::min<int64_t>(qb + 1, nb - 1) - std::max<int64_t>(qb - 1, 0) + 1;
      QCOMPARE(blocks, (qb - 1 > 0 ? 1 : 0) + window + 2);
    }
  }

  // The variant is beside the block: every model step is the same with and without it; the
  // estimate and the step count match the trace exactly.
  void theModelIsUnchangedAndTheEstimateExact_data() {
    QTest::addColumn<int>("kind");
    for (VariantKind k : all_variants()) QTest::newRow(std::string(variant_name(k)).c_str()) << int(k);
  }
  void theModelIsUnchangedAndTheEstimateExact() {
    QFETCH(int, kind);
    ModelConfig c = config(static_cast<VariantKind>(kind), MaskKind::None);
    c.layers = 2;
    c.variant.layer = 1;
    c.variant.tile = 3;
    const Run r = run(c);
    ModelConfig plain = c;
    plain.variant = {};
    const Run p = run(plain);
    for (const Step& s : p.trace.steps()) QCOMPARE(r.trace.find(s.info.id)->tensor.to_vector(), s.tensor.to_vector());
    const std::string prefix = variant_prefix(c.variant);
    QCOMPARE(prefix, "encoder.layers.1.variant." + std::string(variant_name(c.variant.kind)) + ".");
    QCOMPARE(static_cast<int64_t>(r.trace.steps().size() - p.trace.steps().size()),
             variant_step_count(c.variant, r.t()));
    QCOMPARE(count_steps(c, r.t()), static_cast<int64_t>(r.trace.steps().size()));
    const auto e = estimate_memory(c, 2, r.t(), 0, static_cast<int64_t>(r.batch.vocab.words.size()));
    QCOMPARE(e.trace_bytes, r.trace.storage_bytes());
    for (const Step& s : r.trace.steps())
      if (s.info.id.starts_with(prefix)) QVERIFY2(!s.info.title.english().empty() && !s.info.formula.english().empty(), s.info.id.c_str());
    // with a planted bug or untraced, nothing is recorded beside the block
    ModelConfig faulty = c;
    faulty.faults.insert(Fault::NoScaling);
    QVERIFY(!faulty.traces_variant());
  }

  // The table of each kind's steps (variant_table.h) is what a traced run records, at two sizes:
  // every id in order (each matched back to its entry and round), each tensor's shape, the count
  // and the floats; the Matrix and Weights entries (B, H, T, T), shown as heatmaps; the weights map.
  void theStepTableMatchesTheTrace_data() {
    QTest::addColumn<int>("kind");
    QTest::addColumn<bool>("large");
    for (VariantKind k : all_variants())
      for (bool large : {false, true})
        QTest::newRow((std::string(variant_name(k)) + (large ? " 3 heads, 10 tokens" : " 2 heads, 7 tokens")).c_str())
            << int(k) << large;
  }
  void theStepTableMatchesTheTrace() {
    QFETCH(int, kind);
    QFETCH(bool, large);
    const auto k = static_cast<VariantKind>(kind);
    ModelConfig c = config(k, large && k != VariantKind::Linformer ? MaskKind::PaddingCausal : MaskKind::Padding);
    c.variant.tile = 3;  // 7 tokens: a last key block of 1
    if (large) {
      c.d_model = 12;
      c.heads = 3;
      c.variant = {.kind = k, .rank = 3, .max_distance = 2, .grid_width = 3, .tile = 2};
    }
    Run r{c, make_batch(large ? std::vector<std::string>{"a b c d e", "f g h i j k l m n o"} : kTexts, {}), {}};
    forward(c, init_weights(c), r.batch, r.trace);
    const int64_t b = 2, t = r.t(), h = c.heads;
    const std::string prefix = variant_prefix(c.variant);
    std::vector<const Step*> got;
    for (const Step& s : r.trace.steps())
      if (s.info.id.starts_with(prefix)) got.push_back(&s);
    const std::vector<PlannedStep> plan = variant_plan(c.variant, t);
    QCOMPARE(got.size(), plan.size());
    QCOMPARE(static_cast<int64_t>(plan.size()), variant_step_count(c.variant, t));
    const StepSizes z{b, t, h, c.d_model, c.variant};
    int64_t floats = 0;
    for (size_t i = 0; i < plan.size(); ++i) {
      const Step& s = *got[i];
      const char* id = s.info.id.c_str();
      QCOMPARE(s.info.id, prefix + plan[i].name);
      const std::optional<StepMatch> m = variant_step_of(s.info.id);
      QVERIFY2(m && m->kind == k && m->step == plan[i].step && m->round == plan[i].round, id);
      QVERIFY2(s.tensor.shape() == m->step->shape(z, m->round), qPrintable(QStringLiteral("%1 is %2").arg(id).arg(
                                                                    QString::fromStdString(shape_str(s.tensor.shape())))));
      if (m->step->matrix()) QVERIFY2(s.tensor.shape() == Shape({b, h, t, t}), id);
      QCOMPARE(is_attention_matrix(s.info.id, s.tensor, MatrixSteps::Traced), m->step->matrix());
      floats += s.tensor.numel();
    }
    QCOMPARE(floats, variant_trace_floats(c.variant, b, t, h, c.d_model));
    const auto table = variant_steps(k);
    const bool walk = k == VariantKind::KvCache || k == VariantKind::Tiled;
    QCOMPARE(static_cast<int>(std::count_if(table.begin(), table.end(),
                                            [](const VariantStep& s) { return s.role == StepRole::Weights; })),
             walk ? 0 : 1);
    if (const std::string_view n = variant_weights_step(k); !walk) {
      const Step* w = r.trace.find(prefix + std::string(n));
      QVERIFY2(w && w->tensor.shape() == Shape({b, h, t, t}), std::string(n).c_str());
    }
  }

  // Which steps are attention matrices, in the two readings (variant_table.h): the step panel's
  // and the run comparison's, which alone counts a fault's unmasked_weights; only ever 4-D.
  void attentionMatricesByStepId() {
    const Tensor four({1, 1, 2, 2}), three({1, 2, 2});
    const std::string a = "encoder.layers.0.self_attn.", v = "encoder.layers.0.variant.";
    for (const char* n : {"qk", "scores", "masked_scores", "weights"})
      for (MatrixSteps which : {MatrixSteps::Traced, MatrixSteps::FaultPair}) {
        QVERIFY2(is_attention_matrix(a + n, four, which), n);
        QVERIFY2(!is_attention_matrix(a + n, three, which), n);
      }
    QVERIFY(is_attention_matrix(a + "weights_overview", four, MatrixSteps::Traced));
    QVERIFY(is_attention_matrix(a + "weights_overview.grad", four, MatrixSteps::Traced));  // the tiled backward's
    QVERIFY(!is_attention_matrix(a + "weights_overview", four, MatrixSteps::FaultPair));
    QVERIFY(!is_attention_matrix(a + "unmasked_weights", four, MatrixSteps::Traced));
    QVERIFY(is_attention_matrix(a + "unmasked_weights", four, MatrixSteps::FaultPair));
    QVERIFY(!is_attention_matrix(a + "head_out", four, MatrixSteps::Traced));
    QVERIFY(is_attention_matrix(v + "axial.col_pattern", four, MatrixSteps::Traced));
    for (const char* n : {"tiled.tile0.scores", "linformer.low_weights", "kv_cache.t0.attn", "linear.quadratic_out",
                          "window.no_such_step", "flash.weights"})
      QVERIFY2(!is_attention_matrix(v + n, four, MatrixSteps::Traced), n);
    QVERIFY(!variant_step_of(v + "tiled.tile0.rescale"));  // nothing to rescale after the first block
    QVERIFY(!variant_step_of(v + "kv_cache.tx.attn"));
    QCOMPARE(variant_step_of(v + "tiled.tile12.rescale")->round, int64_t(12));
  }

  // BigBird's random blocks are the documented draw (docs/cli.md), written out here from
  // reproduce.py's Python version of it: 16 tokens, blocks of 2, 1 global block, 1 random, seed 5.
  void bigbirdDrawsTheDocumentedBlocks() {
    const char* want[2][8] = {{"11111111", "11100001", "11111000", "10111001", "11011100", "11001110", "10001111", "10100011"},
                              {"11111111", "11100100", "11110001", "10111010", "10011101", "11001110", "10100111", "10001011"}};
    VariantConfig v;
    v.block = 2;
    v.globals = 1;
    v.random_blocks = 1;
    for (int h = 0; h < 2; ++h) {
      const auto p = bigbird_pattern(16, v, h, 5);
      for (int qb = 0; qb < 8; ++qb) {
        std::string row;
        for (int kb = 0; kb < 8; ++kb) row += p[static_cast<size_t>(qb * 2 * 16 + kb * 2)] ? '1' : '0';
        QCOMPARE(row, std::string(want[h][qb]));
      }
    }
  }

  // The online softmax's guards: a row whose first key block is hidden (the running maximum
  // starts at −∞) and a row that sees nothing at all (0, not NaN), with a hand-drawn mask.
  void tiledGuardsHiddenBlocksAndEmptyRows() {
    const int64_t t = 5, dh = 4;
    Tensor q({1, 1, t, dh}), k({1, 1, t, dh}), v({1, 1, t, dh}), mask({1, t, t}, 1.0f);
    for (int64_t i = 0; i < t * dh; ++i) {
      q.data()[i] = std::sin(0.7f * i);
      k.data()[i] = std::cos(0.3f * i);
      v.data()[i] = 0.1f * i - 1.0f;
    }
    for (int64_t j = 0; j < 3; ++j) mask.data()[1 * t + j] = 0.0f;  // row 1: the first block of 2 hidden, and key 2
    for (int64_t j = 0; j < t; ++j) mask.data()[3 * t + j] = 0.0f;  // row 3: nothing
    Tensor masked({1, 1, t, t}), ref({1, 1, t, dh});
    for (int64_t i = 0; i < t; ++i) {
      std::vector<double> w(static_cast<size_t>(t), 0.0);
      double mx = -INFINITY, sum = 0;
      for (int64_t j = 0; j < t; ++j) {
        double s = 0;
        for (int64_t e = 0; e < dh; ++e) s += q.data()[i * dh + e] * k.data()[j * dh + e];
        s /= 2.0;
        masked.data()[i * t + j] = mask.data()[i * t + j] != 0.0f ? static_cast<float>(s) : -INFINITY;
        if (mask.data()[i * t + j] != 0.0f) mx = std::max(mx, s), w[static_cast<size_t>(j)] = s;
      }
      for (int64_t j = 0; j < t; ++j)
        if (mask.data()[i * t + j] != 0.0f) sum += (w[static_cast<size_t>(j)] = std::exp(w[static_cast<size_t>(j)] - mx));
      for (int64_t e = 0; e < dh; ++e) {
        double o = 0;
        for (int64_t j = 0; j < t; ++j)
          if (mask.data()[i * t + j] != 0.0f) o += w[static_cast<size_t>(j)] / sum * v.data()[j * dh + e];
        ref.data()[i * dh + e] = static_cast<float>(o);
      }
    }
    VariantConfig cfg;
    cfg.kind = VariantKind::Tiled;
    cfg.tile = 2;
    const Weights none;
    Trace tr;
    const Tensor out = record_variant({.cfg = cfg, .layer_prefix = "encoder.layers.0.", .attn_prefix = "encoder.layers.0.self_attn.",
                                       .x = {}, .q = {q, "q"}, .k = {k, "k"}, .v = {v, "v"}, .mask = {mask, "mask"},
                                       .masked_scores = {masked, "masked"}, .reference = {ref, "ref"}, .w = none},
                                      tr);
    for (int64_t i = 0; i < t; ++i)
      for (int64_t e = 0; e < dh; ++e) {
        const float got = out.data()[i * dh + e];
        QVERIFY2(std::isfinite(got), "the guards let a NaN through");
        QVERIFY(std::abs(got - ref.data()[i * dh + e]) <= 1e-5 + 1e-4 * std::abs(ref.data()[i * dh + e]));
        if (i == 3) QCOMPARE(got, 0.0f);
      }
    QCOMPARE(tr.find("encoder.layers.0.variant.tiled.tile0.m")->tensor.at({0, 0, 1, 0}), -INFINITY);
    QCOMPARE(tr.find("encoder.layers.0.variant.tiled.tile1.rescale")->tensor.at({0, 0, 1, 0}), 0.0f);
  }

  // The walk-throughs stop at kMaxWalkRounds rounds, saying how to get under it.
  void longWalkThroughsAreRefused() {
    std::string text;
    for (int i = 0; i < 130; ++i) text += "w" + std::to_string(i % 7) + " ";
    const Batch b = make_batch({text}, {});
    for (auto [kind, tile, refused] : {std::tuple{VariantKind::KvCache, 4, true}, std::tuple{VariantKind::Tiled, 1, true},
                                       std::tuple{VariantKind::Tiled, 2, false}}) {
      ModelConfig c = config(kind);
      c.variant.tile = tile;
      Trace tr;
      bool threw = false;
      try {
        forward(c, init_weights(c), b, tr);
      } catch (const ConfigError& e) {
        threw = true;
        QVERIFY2(std::string(e.what()).find(kind == VariantKind::Tiled ? "raise it to at least 2" : "use at most 128 tokens") !=
                     std::string::npos, e.what());
      }
      QCOMPARE(threw, refused);
    }
  }

  void refusals() {
    ModelConfig c = config(VariantKind::Window);
    c.variant.layer = 1;
    QVERIFY_THROWS_EXCEPTION(ConfigError, c.validate());
    c.variant.layer = 0;
    c.variant.window = VariantLimits::kMaxParam + 1;
    QVERIFY_THROWS_EXCEPTION(ConfigError, c.validate());
    QVERIFY_THROWS_EXCEPTION(ConfigError, parse_variant("flash"));
    for (VariantKind k : all_variants()) QCOMPARE(parse_variant(variant_name(k)), k);
    ModelConfig other = config(VariantKind::Window);
    other.variant.top_k = 0;  // a knob the window does not read is still checked
    QVERIFY_THROWS_EXCEPTION(ConfigError, other.validate());
    ModelConfig cross = config(VariantKind::Linformer, MaskKind::PaddingCausal);
    cross.cross = true;  // the encoder's own mask is padding: Linformer may run there
    cross.validate();
  }
};

QTEST_GUILESS_MAIN(TestVariants)
#include "test_variants.moc"
