// Fault switches (core/model/faults.h): every injected bug shows its symptom on a small real model
// (D 16, H 4, Dh 4; two sentences of 6 and 3 tokens), the correct path shows none, and each fault
// marks exactly the steps it changes while leaving every earlier step as the correct run has it.
#include <QtTest>

#include <algorithm>
#include <cmath>
#include <nlohmann/json.hpp>

#include "forward/model.h"
#include "io/bundle.h"
#include "model/faults.h"
#include "text/errors.h"

using namespace attnlab;

namespace {

const std::string kBlock = "encoder.layers.0.self_attn.";
constexpr int64_t kB = 2, kH = 4, kS = 6, kDh = 4, kD = 16;

ModelConfig small(MaskKind mask, FaultSet faults = {}, int64_t layers = 1, bool cross = false) {
  ModelConfig c;
  c.d_model = kD;
  c.heads = kH;
  c.d_ff = 24;
  c.layers = layers;
  c.mask = mask;
  c.cross = cross;
  c.faults = std::move(faults);
  return c;
}

// 6 tokens, and 3 tokens + 3 [PAD].
Batch two_sentences() { return make_batch({"the cat sat on a mat", "dogs bark loudly"}, {}); }
Batch two_with_memory() {
  return make_batch({"the cat sat on a mat", "dogs bark loudly"}, {"le chat", "les chiens aboient fort ce soir"});
}

Trace run(const ModelConfig& c, const Batch& b) {
  Trace t;
  forward(c, init_weights(c), b, t);
  return t;
}

const Tensor& tensor(const Trace& t, const std::string& id) {
  const Step* s = t.find(id);
  if (!s) throw std::logic_error("no step " + id);
  return s->tensor;
}

// Same shape and the same value everywhere (NaN equals NaN).
bool same(const Tensor& a, const Tensor& b) {
  if (a.shape() != b.shape()) return false;
  const auto x = a.to_vector(), y = b.to_vector();
  for (size_t i = 0; i < x.size(); ++i)
    if (!(x[i] == y[i] || (std::isnan(x[i]) && std::isnan(y[i])))) return false;
  return true;
}

std::vector<float> sorted_values(const Tensor& t) {
  auto v = t.to_vector();
  std::sort(v.begin(), v.end());
  return v;
}

double row_sum(const Tensor& w, int64_t b, int64_t h, int64_t i) {
  double s = 0;
  for (int64_t j = 0; j < w.size(3); ++j) s += w.at({b, h, i, j});
  return s;
}
double column_sum(const Tensor& w, int64_t b, int64_t h, int64_t j) {
  double s = 0;
  for (int64_t i = 0; i < w.size(2); ++i) s += w.at({b, h, i, j});
  return s;
}

// Mean entropy and mean largest weight of the rows of real (unpadded) queries: how peaked the
// softmax is.
struct Peak {
  double entropy = 0, max = 0;
};
Peak peak(const Tensor& w, const std::vector<int>& len) {
  Peak p;
  int rows = 0;
  for (int64_t b = 0; b < w.size(0); ++b)
    for (int64_t h = 0; h < w.size(1); ++h)
      for (int64_t i = 0; i < len[static_cast<size_t>(b)]; ++i, ++rows) {
        double e = 0, mx = 0;
        for (int64_t j = 0; j < w.size(3); ++j) {
          const double a = w.at({b, h, i, j});
          if (a > 0) e -= a * std::log(a);
          mx = std::max(mx, a);
        }
        p.entropy += e;
        p.max += mx;
      }
  p.entropy /= rows;
  p.max /= rows;
  return p;
}

QStringList marked_ids(const Trace& t) {
  QStringList out;
  for (const auto& s : t.steps())
    if (!s.info.fault.empty()) out << QString::fromStdString(s.info.id);
  return out;
}

// Every attention block of a model: "encoder.layers.0.self_attn." …
std::vector<std::string> blocks(int64_t layers, bool cross) {
  std::vector<std::string> out;
  for (int64_t i = 0; i < layers; ++i) out.push_back("encoder.layers." + std::to_string(i) + ".self_attn.");
  for (int64_t i = 0; cross && i < layers; ++i)
    for (const char* blk : {"self_attn.", "multihead_attn."})
      out.push_back("decoder.layers." + std::to_string(i) + "." + blk);
  return out;
}

}  // namespace

class TestFaults : public QObject {
  Q_OBJECT
 private slots:
  void idsParseBack() {
    const QStringList want = {"scale_by_d_model", "no_scaling", "softmax_over_queries", "mask_after_softmax",
                              "mask_fill_zero", "mask_wrong_broadcast", "split_without_transpose",
                              "merge_without_transpose", "causal_transposed", "shared_qkv_projection",
                              "detach_attention_output", "indivisible_heads"};
    QStringList got;
    for (const auto& f : all_faults()) {
      got << QString::fromUtf8(f.id.data(), static_cast<int>(f.id.size()));
      QCOMPARE(parse_fault(f.id), f.fault);
      QCOMPARE(fault_info(f.fault).id, f.id);
      QVERIFY(!f.title.empty() && !f.symptom.empty());
    }
    QCOMPARE(got, want);
    try {
      parse_fault("no_scale");
      QFAIL("unknown fault accepted");
    } catch (const ConfigError& e) {
      const QString m = e.what();
      QVERIFY2(m.contains("'no_scale'"), e.what());
      for (const auto& id : want) QVERIFY2(m.contains(id), e.what());
    }
  }

  // One row per fault: its symptom on the first attention block, next to the correct run.
  void symptom_data() {
    QTest::addColumn<QString>("id");
    QTest::addColumn<int>("mask");
    const int pad = int(MaskKind::Padding), causal = int(MaskKind::Causal);
    QTest::newRow("scale_by_d_model") << "scale_by_d_model" << pad;
    QTest::newRow("no_scaling") << "no_scaling" << pad;
    QTest::newRow("softmax_over_queries causal") << "softmax_over_queries" << causal;
    QTest::newRow("softmax_over_queries padding") << "softmax_over_queries" << pad;
    QTest::newRow("mask_after_softmax") << "mask_after_softmax" << pad;
    QTest::newRow("mask_fill_zero") << "mask_fill_zero" << pad;
    QTest::newRow("mask_wrong_broadcast") << "mask_wrong_broadcast" << pad;
    QTest::newRow("split_without_transpose") << "split_without_transpose" << pad;
    QTest::newRow("merge_without_transpose") << "merge_without_transpose" << pad;
    QTest::newRow("causal_transposed") << "causal_transposed" << causal;
    QTest::newRow("shared_qkv_projection") << "shared_qkv_projection" << pad;
    QTest::newRow("detach_attention_output") << "detach_attention_output" << pad;
    QTest::newRow("indivisible_heads") << "indivisible_heads" << pad;
  }
  void symptom() {
    QFETCH(QString, id);
    QFETCH(int, mask);
    const Fault f = parse_fault(id.toStdString());
    const MaskKind mk = static_cast<MaskKind>(mask);
    const Batch batch = two_sentences();
    const std::vector<int>& len = batch.text.lengths;
    QCOMPARE(len, (std::vector<int>{6, 3}));
    if (f == Fault::IndivisibleHeads) return indivisible(batch);

    const Trace good = run(small(mk), batch), bad = run(small(mk, {f}), batch);
    auto g = [&](const std::string& n) -> const Tensor& { return tensor(good, kBlock + n); };
    auto x = [&](const std::string& n) -> const Tensor& { return tensor(bad, kBlock + n); };
    const Tensor &w = x("weights"), &gw = g("weights");
    switch (f) {
      case Fault::ScaleByDModel: {  // √16 = 4 instead of √4 = 2: scores halved, softmax flatter
        for (int64_t i = 0; i < g("scores").numel(); ++i)
          QCOMPARE(x("scores").at_linear(i) * 2, g("scores").at_linear(i));
        const Peak p = peak(w, len), q = peak(gw, len);
        QVERIFY2(p.entropy > q.entropy && p.max < q.max,
                 qPrintable(QString("entropy %1 vs %2, max %3 vs %4").arg(p.entropy).arg(q.entropy).arg(p.max).arg(q.max)));
        break;
      }
      case Fault::NoScaling: {  // scores = QKᵀ: twice the correct ones, softmax sharper
        QVERIFY(same(x("scores"), x("qk")));
        const Peak p = peak(w, len), q = peak(gw, len);
        QVERIFY2(p.entropy < q.entropy && p.max > q.max,
                 qPrintable(QString("entropy %1 vs %2, max %3 vs %4").arg(p.entropy).arg(q.entropy).arg(p.max).arg(q.max)));
        auto saturated = [&](const Tensor& t) {
          int n = 0;
          for (int64_t b = 0; b < kB; ++b)
            for (int64_t h = 0; h < kH; ++h)
              for (int64_t i = 0; i < len[b]; ++i)
                for (int64_t j = 0; j < kS; ++j) n += t.at({b, h, i, j}) > 0.5f;
          return n;
        };
        QVERIFY(saturated(w) >= saturated(gw));
        break;
      }
      case Fault::SoftmaxOverQueries:
        if (mk == MaskKind::Causal) {  // every column has a query that may see it: columns sum to 1
          double worst_row = 0;
          for (int64_t b = 0; b < kB; ++b)
            for (int64_t h = 0; h < kH; ++h)
              for (int64_t j = 0; j < kS; ++j) {
                QVERIFY(std::abs(column_sum(w, b, h, j) - 1) < 1e-5);
                worst_row = std::max(worst_row, std::abs(row_sum(w, b, h, j) - 1));
              }
          QVERIFY2(worst_row > 0.1, qPrintable(QString::number(worst_row)));
        } else {  // a [PAD] key is masked for every query: its column is all −∞, softmax NaN
          for (int64_t h = 0; h < kH; ++h)
            for (int64_t i = 0; i < kS; ++i)
              for (int64_t j = 0; j < kS; ++j) {
                QCOMPARE(std::isnan(w.at({1, h, i, j})), j >= 3);
                QVERIFY(!std::isnan(w.at({0, h, i, j})));
              }
          for (int64_t j = 0; j < kS; ++j) QVERIFY(std::abs(column_sum(w, 0, 0, j) - 1) < 1e-5);
        }
        break;
      case Fault::MaskAfterSoftmax:
        QVERIFY(!bad.find(kBlock + "masked_scores"));
        for (int64_t h = 0; h < kH; ++h)
          for (int64_t i = 0; i < kS; ++i) {
            QVERIFY(std::abs(row_sum(x("unmasked_weights"), 1, h, i) - 1) < 1e-5);
            QVERIFY(std::abs(row_sum(w, 0, h, i) - 1) < 1e-5);  // no [PAD] in sentence 0
            QVERIFY2(row_sum(w, 1, h, i) < 1 - 1e-3, qPrintable(QString::number(row_sum(w, 1, h, i))));
            for (int64_t j = 3; j < kS; ++j) QCOMPARE(w.at({1, h, i, j}), 0.0f);
          }
        break;
      case Fault::MaskFillZero:
        for (int64_t h = 0; h < kH; ++h)
          for (int64_t i = 0; i < kS; ++i)
            for (int64_t j = 3; j < kS; ++j) {
              QCOMPARE(x("masked_scores").at({1, h, i, j}), 0.0f);
              QVERIFY(w.at({1, h, i, j}) > 0);
              QCOMPARE(gw.at({1, h, i, j}), 0.0f);
            }
        break;
      case Fault::MaskWrongBroadcast: {
        const Tensor& m = tensor(bad, "encoder.mask");
        for (int64_t i = 0; i < kS; ++i)
          for (int64_t j = 0; j < kS; ++j) QCOMPARE(m.at({1, i, j}), i < 3 ? 1.0f : 0.0f);  // rows, not columns
        for (int64_t h = 0; h < kH; ++h)
          for (int64_t i = 0; i < kS; ++i)
            for (int64_t j = 3; j < kS; ++j) {
              if (i < 3) QVERIFY(w.at({1, h, i, j}) > 0);  // real queries attend to [PAD] keys
              else QVERIFY(std::isnan(w.at({1, h, i, j})));  // [PAD] queries see nothing: NaN row
            }
        for (int64_t i = 0; i < w.numel() / 2; ++i) QCOMPARE(w.at_linear(i), gw.at_linear(i));  // sentence 0 intact
        break;
      }
      case Fault::SplitWithoutTranspose: {
        QVERIFY(!bad.find(kBlock + "q_view"));
        const Tensor &q = x("q"), &qp = x("q_proj");
        QCOMPARE(q.shape(), (Shape{kB, kH, kS, kDh}));
        QCOMPARE(q.to_vector(), qp.to_vector());  // the flat (S·D) numbers cut into heads
        for (int64_t b = 0; b < kB; ++b)
          for (int64_t h = 0; h < kH; ++h) {
            bool slice = true;  // head h's (S, Dh) block = columns [h·Dh, (h+1)·Dh) of q_proj?
            for (int64_t t = 0; t < kS; ++t)
              for (int64_t e = 0; e < kDh; ++e) slice = slice && q.at({b, h, t, e}) == qp.at({b, t, h * kDh + e});
            QVERIFY2(!slice, qPrintable(QString("head %1 of sentence %2 is a column slice").arg(h).arg(b)));
          }
        for (int64_t r = 0; r < 4; ++r)  // head 0's first four rows all come from position 0
          for (int64_t e = 0; e < kDh; ++e) QCOMPARE(q.at({0, 0, r, e}), qp.at({0, 0, r * kDh + e}));
        QVERIFY(!same(q, g("q")));
        break;
      }
      case Fault::MergeWithoutTranspose:
        QVERIFY(!bad.find(kBlock + "merge_transpose") && !bad.find(kBlock + "merge_contiguous"));
        QVERIFY(same(x("head_out"), g("head_out")));
        QCOMPARE(x("context").to_vector(), x("head_out").to_vector());
        QVERIFY(!same(x("context"), g("context")));
        QCOMPARE(sorted_values(x("context")), sorted_values(g("context")));  // same numbers, wrong places
        break;
      case Fault::CausalTransposed:
        for (int64_t b = 0; b < kB; ++b) {
          for (int64_t i = 0; i < kS; ++i)
            for (int64_t j = 0; j < kS; ++j)
              QCOMPARE(tensor(bad, "encoder.mask").at({b, i, j}), tensor(good, "encoder.mask").at({b, j, i}));
          for (int64_t h = 0; h < kH; ++h) {
            for (int64_t i = 0; i < kS; ++i)
              for (int64_t j = 0; j < kS; ++j) {
                if (j > i) QVERIFY2(w.at({b, h, i, j}) > 0, "the future gets no weight");
                if (j < i) QCOMPARE(w.at({b, h, i, j}), 0.0f);
              }
            QCOMPARE(w.at({b, h, kS - 1, kS - 1}), 1.0f);  // the last token sees only itself
          }
        }
        break;
      case Fault::SharedQkvProjection:
        QVERIFY(same(x("k_proj"), x("q_proj")) && same(x("v_proj"), x("q_proj")));
        QVERIFY(same(x("k"), x("q")) && same(x("v"), x("q")));
        QVERIFY(!same(g("k"), g("q")) && !same(g("v"), g("q")));
        for (int64_t h = 0; h < kH; ++h)  // q·qᵀ: the dot products are symmetric
          for (int64_t i = 0; i < kS; ++i)
            for (int64_t j = 0; j < kS; ++j)
              QVERIFY(std::abs(x("qk").at({0, h, i, j}) - x("qk").at({0, h, j, i})) < 1e-5f);
        break;
      case Fault::DetachAttentionOutput:  // the forward cannot tell: every number is the correct run's
        QVERIFY(same(x("detached"), g("out")) && x("detached").shares_storage(x("out")));
        QCOMPARE(bad.steps().size(), good.steps().size() + 1);
        for (const auto& s : good.steps()) QVERIFY2(same(s.tensor, tensor(bad, s.info.id)), s.info.id.c_str());
        QCOMPARE(QString::fromStdString(bad.find("encoder.layers.0.residual1")
                                            ->info.bindings.at(1).source),
                 QString::fromStdString(kBlock + "detached"));
        break;
      case Fault::IndivisibleHeads: break;
    }
  }

  // The correct model shows none of the symptoms above.
  void correctPathHasNoSymptoms() {
    const Batch batch = two_sentences();
    for (MaskKind mk : {MaskKind::Padding, MaskKind::Causal}) {
      const ModelConfig c = small(mk);
      const Trace t = run(c, batch);
      QVERIFY(marked_ids(t).isEmpty());
      auto s = [&](const std::string& n) -> const Tensor& { return tensor(t, kBlock + n); };
      const Tensor &w = s("weights"), &m = tensor(t, "encoder.mask");
      bool some_column_off = false;
      for (int64_t b = 0; b < kB; ++b)
        for (int64_t h = 0; h < kH; ++h)
          for (int64_t i = 0; i < kS; ++i) {
            QVERIFY(std::abs(row_sum(w, b, h, i) - 1) < 1e-5);
            some_column_off = some_column_off || std::abs(column_sum(w, b, h, i) - 1) > 0.1;
            for (int64_t j = 0; j < kS; ++j) {
              const bool hidden = mk == MaskKind::Padding ? j >= batch.text.lengths[b] : j > i;
              QCOMPARE(m.at({b, i, j}), hidden ? 0.0f : 1.0f);
              QCOMPARE(w.at({b, h, i, j}) == 0.0f, hidden);
              QCOMPARE(std::isinf(s("masked_scores").at({b, h, i, j})), hidden);
              QCOMPARE(s("scores").at({b, h, i, j}), s("qk").at({b, h, i, j}) / 2.0f);  // √Dh = 2
            }
            for (int64_t e = 0; e < kD; ++e) {
              QCOMPARE(s("q").at({b, e / kDh, i, e % kDh}), s("q_proj").at({b, i, e}));
              QCOMPARE(s("context").at({b, i, e}), s("head_out").at({b, e / kDh, i, e % kDh}));
            }
          }
      QVERIFY(some_column_off);
      QVERIFY(!same(s("k"), s("q")) && !same(s("v"), s("q")));
      const Peak p = peak(w, batch.text.lengths);
      QVERIFY(p.max < 0.9);  // small seeded model: not saturated
    }
    ModelConfig c = small(MaskKind::Padding);
    c.heads = 3;
    QVERIFY_THROWS_EXCEPTION(ConfigError, c.validate());
  }

  // Each fault marks exactly the steps it changes, in every block it reaches; the steps before
  // the first marked one are the correct run's; the fast path computes the same numbers.
  void marksItsSteps_data() {
    QTest::addColumn<QString>("id");
    QTest::addColumn<int>("mask");
    QTest::addColumn<bool>("cross");
    QTest::addColumn<QStringList>("marked");
    auto in_blocks = [](bool cross, std::initializer_list<const char*> names) {
      QStringList out;
      for (const auto& blk : blocks(2, cross))
        for (const char* n : names) out << QString::fromStdString(blk + n);
      return out;
    };
    const int pad = int(MaskKind::Padding), causal = int(MaskKind::Causal), both = int(MaskKind::PaddingCausal);
    for (bool cross : {false, true}) {
      const char* tag = cross ? " cross" : "";
      auto row = [&](const char* id) -> QTestData& { return QTest::newRow((std::string(id) + tag).c_str()) << QString(id); };
      row("scale_by_d_model") << pad << cross << in_blocks(cross, {"scores"});
      row("no_scaling") << pad << cross << in_blocks(cross, {"scores"});
      row("softmax_over_queries") << causal << cross << in_blocks(cross, {"weights"});
      row("mask_after_softmax") << pad << cross << in_blocks(cross, {"unmasked_weights", "weights"});
      row("mask_fill_zero") << pad << cross << in_blocks(cross, {"masked_scores"});
      row("split_without_transpose") << pad << cross << in_blocks(cross, {"q", "k", "v"});
      row("merge_without_transpose") << pad << cross << in_blocks(cross, {"context"});
      row("shared_qkv_projection") << pad << cross << in_blocks(cross, {"k_proj", "v_proj"});
      row("detach_attention_output") << pad << cross << in_blocks(cross, {"detached"});
      // Self-attention masks only: the cross mask is never touched; in cross mode the encoder
      // mask is a padding mask, so the transposed triangle reaches the decoder's only.
      row("mask_wrong_broadcast") << both << cross
                                  << (cross ? QStringList{"encoder.mask", "decoder.self_mask"}
                                            : QStringList{"encoder.mask"});
      row("causal_transposed") << both << cross
                               << (cross ? QStringList{"decoder.self_mask"} : QStringList{"encoder.mask"});
    }
  }
  void marksItsSteps() {
    QFETCH(QString, id);
    QFETCH(int, mask);
    QFETCH(bool, cross);
    QFETCH(QStringList, marked);
    const Fault f = parse_fault(id.toStdString());
    const Batch batch = cross ? two_with_memory() : two_sentences();
    const ModelConfig correct = small(static_cast<MaskKind>(mask), {}, 2, cross);
    const ModelConfig faulty = small(static_cast<MaskKind>(mask), {f}, 2, cross);
    const Trace good = run(correct, batch), bad = run(faulty, batch);

    QCOMPARE(marked_ids(bad), marked);
    size_t first = bad.steps().size();
    for (size_t i = 0; i < bad.steps().size(); ++i) {
      const StepInfo& s = bad.steps()[i].info;
      if (s.fault.empty()) continue;
      QCOMPARE(QString::fromStdString(s.fault), id);
      QVERIFY2(s.title.english().find("(fault)") != std::string::npos, s.id.c_str());
      first = std::min(first, i);
    }
    QVERIFY(first < bad.steps().size());
    for (size_t i = 0; i < first; ++i) {
      const Step &a = bad.steps()[i], &b = good.steps()[i];
      QCOMPARE(a.info.id, b.info.id);
      QCOMPARE(a.info.title.english(), b.info.title.english());
      QCOMPARE(a.info.formula.english(), b.info.formula.english());
      QCOMPARE(a.info.code, b.info.code);
      QCOMPARE(a.info.inputs(), b.info.inputs());
      QCOMPARE(a.tensor.strides(), b.tensor.strides());
      QVERIFY2(same(a.tensor, b.tensor), a.info.id.c_str());
    }
    // Every step still reads only earlier steps, and the fast path gives the traced numbers.
    for (const auto& s : bad.steps())
      for (const auto& in : s.info.inputs()) QVERIFY2(bad.find(in), (s.info.id + " reads " + in).c_str());
    NullRecorder null;
    const std::string last = std::string(cross ? "decoder" : "encoder") + ".layers.1.output";
    QVERIFY(same(forward(faulty, init_weights(faulty), batch, null), tensor(bad, last)));
  }

  void combinedFaultsOnOneStep() {
    const Batch batch = two_sentences();
    const Trace t = run(small(MaskKind::Padding, {Fault::SoftmaxOverQueries, Fault::MaskAfterSoftmax,
                                                   Fault::MaskFillZero, Fault::ScaleByDModel, Fault::NoScaling}),
                        batch);
    auto fault = [&](const char* n) { return QString::fromStdString(t.find(kBlock + n)->info.fault); };
    QCOMPARE(fault("unmasked_weights"), QString("softmax_over_queries,mask_after_softmax"));
    QCOMPARE(fault("weights"), QString("mask_after_softmax"));
    QCOMPARE(fault("scores"), QString("no_scaling"));  // no scaling at all wins over √d_model
    QCOMPARE(QString::fromStdString(t.find(kBlock + "unmasked_weights")->info.code),
             QString("unmasked_weights = torch.softmax(scores, dim=-2)"));
  }

  // What the GUI shows before a find-the-bug exercise is answered: the correct model's words over
  // the faulty run's numbers.
  void labelsHiddenForTheHunt() {
    const Batch batch = two_sentences();
    for (const auto& f : all_faults()) {
      if (f.fault == Fault::IndivisibleHeads) continue;  // it has no run to hide
      const Trace faulty = run(small(MaskKind::PaddingCausal, {f.fault}), batch);
      const Trace correct = run(small(MaskKind::PaddingCausal), batch);
      const Trace shown = without_fault_labels(faulty, correct);
      QCOMPARE(shown.steps().size(), faulty.steps().size());
      bool differs = false;
      for (size_t i = 0; i < shown.steps().size(); ++i) {
        const Step &s = shown.steps()[i], &x = faulty.steps()[i];
        QCOMPARE(s.info.id, x.info.id);
        QVERIFY(s.info.fault.empty());
        QVERIFY2(s.info.title.english().find("fault") == std::string::npos, s.info.title.english().c_str());
        QVERIFY(s.tensor.shares_storage(x.tensor) && s.tensor.shape() == x.tensor.shape());
        if (const Step* c = correct.find(s.info.id)) {
          QCOMPARE(s.info.title.english(), c->info.title.english());
          QCOMPARE(s.info.code, c->info.code);
          differs = differs || !same(s.tensor, c->tensor);
        }
      }
      // The numbers are still the faulty ones; a detached output has the correct numbers (only
      // its gradients tell).
      QVERIFY2(differs == (f.fault != Fault::DetachAttentionOutput), f.id.data());
    }
  }

  void faultyCodeLines() {
    const Batch batch = two_sentences();
    auto code = [&](Fault f, const std::string& id, MaskKind mk = MaskKind::Padding) {
      const Trace t = run(small(mk, {f}), batch);
      return QString::fromStdString(t.find(id)->info.code);
    };
    QCOMPARE(code(Fault::ScaleByDModel, kBlock + "scores"), QString("scores = qk / math.sqrt(16)"));
    QCOMPARE(code(Fault::NoScaling, kBlock + "scores"), QString("scores = qk"));
    QCOMPARE(code(Fault::SoftmaxOverQueries, kBlock + "weights"), QString("weights = torch.softmax(masked, dim=-2)"));
    QCOMPARE(code(Fault::MaskAfterSoftmax, kBlock + "weights"),
             QString("weights = unmasked_weights.masked_fill(mask.unsqueeze(1) == 0, 0.0)"));
    QCOMPARE(code(Fault::MaskFillZero, kBlock + "masked_scores"),
             QString("masked = scores.masked_fill(mask.unsqueeze(1) == 0, 0.0)"));
    QCOMPARE(code(Fault::MaskWrongBroadcast, "encoder.mask"),
             QString("mask = (ids != 0).unsqueeze(2).expand(2, 6, 6).float()"));
    QCOMPARE(code(Fault::SplitWithoutTranspose, kBlock + "k"), QString("k = k_proj.view(2, 4, 6, 4)"));
    QCOMPARE(code(Fault::MergeWithoutTranspose, kBlock + "context"), QString("context = head_out.view(2, 6, 16)"));
    QCOMPARE(code(Fault::CausalTransposed, "encoder.mask", MaskKind::Causal),
             QString("mask = torch.triu(torch.ones(6, 6)).repeat(2, 1, 1)"));
    QCOMPARE(code(Fault::SharedQkvProjection, kBlock + "v_proj"),
             QString("v_proj = F.linear(x, in_proj_weight[0:16], in_proj_bias[0:16])"));
    QCOMPARE(code(Fault::DetachAttentionOutput, kBlock + "detached"), QString("detached = out.detach()"));
  }

  void manifestNamesTheFaults() {
    const Batch batch = two_sentences();
    const ModelConfig correct = small(MaskKind::Padding), faulty = small(MaskKind::Padding, {Fault::MaskFillZero,
                                                                                              Fault::NoScaling});
    const nlohmann::json good = manifest_json(correct, batch, run(correct, batch), RunInfo{}, 0);
    QVERIFY(!good.at("config").contains("faults"));
    for (const auto& s : good.at("steps")) QVERIFY(!s.contains("fault"));
    const nlohmann::json bad = manifest_json(faulty, batch, run(faulty, batch), RunInfo{}, 0);
    QCOMPARE(bad.at("config").at("faults"), nlohmann::json::array({"no_scaling", "mask_fill_zero"}));
    QStringList marked;
    for (const auto& s : bad.at("steps"))
      if (s.contains("fault"))
        marked << QString::fromStdString(s.at("id").get<std::string>() + "=" + s.at("fault").get<std::string>());
    QCOMPARE(marked, QStringList({QString::fromStdString(kBlock + "scores=no_scaling"),
                                  QString::fromStdString(kBlock + "masked_scores=mask_fill_zero")}));
  }

 private:
  // d_model 16 with 3 heads: refused without the fault; with it, the forward pass runs up to the
  // Q projection and fails as q_proj.view(2, 6, 3, 16 // 3) fails in PyTorch.
  void indivisible(const Batch& batch) {
    ModelConfig c = small(MaskKind::Padding);
    c.heads = 3;
    QVERIFY_THROWS_EXCEPTION(ConfigError, c.validate());
    c.faults = {Fault::IndivisibleHeads};
    c.validate();
    Trace t;
    try {
      forward(c, init_weights(c), batch, t);
      QFAIL("3 heads over d_model 16 ran");
    } catch (const ShapeError& e) {
      const QString m = e.what();
      QVERIFY2(m.contains("shape '[2, 6, 3, 5]' is invalid for input of size 192"), e.what());
      QVERIFY2(m.contains("(2, 6, 16)") && m.contains("(2, 6, 3, 5)"), e.what());
      QVERIFY2(m.contains("q_proj.view(2, 6, 3, 5)") && m.contains("indivisible_heads"), e.what());
    }
    QCOMPARE(t.steps().back().info.id, kBlock + "q_proj");
    QCOMPARE(t.steps().back().tensor.shape(), (Shape{2, 6, 16}));
  }
};

QTEST_GUILESS_MAIN(TestFaults)
#include "test_faults.moc"
