// Step names, shape diagrams and the tensor view, on real traces: axis names agree with the
// tensors' sizes, sentences quote the real numbers, the slice on show is the trace's data.
#include <QtTest>

#include <QComboBox>
#include <QDir>
#include <QLabel>
#include <QRegularExpression>
#include <QSpinBox>
#include <QTableWidget>

#include <cmath>
#include <map>
#include <memory>

#include "step/shapediagram.h"
#include "step/tensorview.h"
#include "views/heatmapview.h"
#include "words/stepnames.h"

using namespace attnlab;
using namespace attnlab::ui;

namespace {

struct Variant {
  bool cross = false;
  Norm norm = Norm::Pre;
  Activation act = Activation::Relu;
  Positional pos = Positional::Sinusoidal;
  int64_t d_ff = 32;
};

// Two sentences of different lengths (6 and 2 tokens: padding), D 16, H 4, F 32, two layers.
TraceResultPtr makeResult(const Variant& v = {}) {
  auto r = std::make_shared<TraceResult>();
  r->cfg.d_model = 16;
  r->cfg.heads = 4;
  r->cfg.d_ff = v.d_ff;
  r->cfg.layers = 2;
  r->cfg.cross = v.cross;
  r->cfg.norm = v.norm;
  r->cfg.activation = v.act;
  r->cfg.positional = v.pos;
  r->cfg.mask = v.cross ? MaskKind::PaddingCausal : MaskKind::Padding;
  const std::vector<std::string> memory = v.cross ? std::vector<std::string>{"le chat noir dort ici", "les chiens"}
                                                  : std::vector<std::string>{};
  r->batch = make_batch({"the cat sat on the mat", "dogs bark"}, memory);
  forward(r->cfg, init_weights(r->cfg), r->batch, r->trace);
  return r;
}

const Step& stepOf(const TraceResultPtr& r, const std::string& id) {
  const Step* s = r->trace.find(id);
  if (!s) qFatal("missing step %s", id.c_str());
  return *s;
}

QString stridesText(const Tensor& t) {
  QStringList parts;
  for (auto s : t.strides()) parts << QString::number(s);
  return QStringLiteral("(%1)").arg(parts.join(QStringLiteral(", ")));
}

// A traced run of makeResult's sentences with faults, the tiled overview or a variant (cross
// with faults: the decoder's planted bugs too).
TraceResultPtr makeFaulty(const FaultSet& faults, int64_t overview = 0, VariantKind variant = VariantKind::None) {
  auto r = std::make_shared<TraceResult>();
  r->cfg.d_model = 16;
  r->cfg.heads = 4;
  r->cfg.d_ff = 32;
  r->cfg.layers = 1;
  r->cfg.cross = !faults.empty();
  r->cfg.mask = r->cfg.cross ? MaskKind::PaddingCausal : MaskKind::Padding;
  r->cfg.faults = faults;
  r->cfg.overview_cap = overview;
  r->cfg.variant.kind = variant;
  const std::vector<std::string> memory = r->cfg.cross ? std::vector<std::string>{"le chat noir dort ici", "les chiens"}
                                                       : std::vector<std::string>{};
  r->batch = make_batch({"the cat sat on the mat", "dogs bark"}, memory);
  forward(r->cfg, init_weights(r->cfg), r->batch, r->trace);
  return r;
}

// The sequence-axis letters a formula names inside its shape tuples "(B, H, S, Dh)", "(S, S)",
// "O(S·Dh²)"; and whether it names a matrix with a bare axis letter ("S = QKᵀ", "softmax(S)").
QStringList tupleAxes(const QString& formula) {
  static const QRegularExpression tuple(QStringLiteral("\\(([^()]*)\\)"));
  static const QRegularExpression part(QStringLiteral("[,·²\\s]+"));
  QStringList out;
  for (auto it = tuple.globalMatch(formula); it.hasNext();)
    for (const QString& p : it.next().captured(1).split(part, Qt::SkipEmptyParts))
      if (p == QLatin1String("S") || p == QLatin1String("T") || p == QLatin1String("Tq") || p == QLatin1String("Tk")) out << p;
  return out;
}
bool namesMatrixLikeAxis(const QString& formula) {
  static const QRegularExpression bare(QStringLiteral("(^|[^\\w(])S(_j)?\\s*=|softmax\\(S\\)|\\(S\\s*−|\\bS_j\\b|·S\\b"));
  return bare.match(formula).hasMatch();
}

QString cell(float v) { return std::isinf(v) && v < 0 ? QStringLiteral("−∞") : QString::number(v, 'g', 4); }

// Not blank: a fair share of pixels differ from the corner (background) colour.
bool hasContent(const QImage& img) {
  const QRgb bg = img.pixel(0, 0);
  int64_t differ = 0;
  for (int y = 0; y < img.height(); y += 2)
    for (int x = 0; x < img.width(); x += 2) differ += img.pixel(x, y) != bg;
  return differ * 4 > int64_t(img.width()) * img.height() / 50;
}

void saveShot(QWidget& w, const QString& name, QSize size) {
  w.resize(size);
  w.show();
  QVERIFY(QTest::qWaitForWindowExposed(&w));
  const QImage img = w.grab().toImage();
  QVERIFY2(img.size() == size * img.devicePixelRatio(), qPrintable(name + QStringLiteral(" was resized")));
  QVERIFY2(hasContent(img), qPrintable(name + QStringLiteral(" is blank")));
  QVERIFY(QDir().mkpath(QStringLiteral(ATTNLAB_SCREENSHOT_DIR)));
  QVERIFY(img.save(QStringLiteral(ATTNLAB_SCREENSHOT_DIR "/") + name + QStringLiteral(".png")));
}

}  // namespace

class TestShapes : public QObject {
  Q_OBJECT
 private:
  TraceResultPtr enc_ = makeResult();
  TraceResultPtr cross_ = makeResult({.cross = true});

 private slots:
  void axisNames_data() {
    QTest::addColumn<QString>("id");
    QTest::addColumn<QString>("names");
    const QString e = QStringLiteral("encoder.layers.0.self_attn."), c = QStringLiteral("decoder.layers.0.multihead_attn.");
    QTest::newRow("table") << "encoder.embedding_table" << "V D";
    QTest::newRow("ids") << "encoder.token_ids" << "B S";
    QTest::newRow("positional") << "encoder.positional" << "S D";
    QTest::newRow("mask") << "encoder.mask" << "B S S";
    QTest::newRow("q_proj") << e + "q_proj" << "B S D";
    QTest::newRow("q_view") << e + "q_view" << "B S H Dh";
    QTest::newRow("q") << e + "q" << "B H S Dh";
    QTest::newRow("k_t") << e + "k_t" << "B H Dh S";
    QTest::newRow("weights") << e + "weights" << "B H S S";
    QTest::newRow("merge_transpose") << e + "merge_transpose" << "B S H Dh";
    QTest::newRow("context") << e + "context" << "B S D";
    QTest::newRow("linear1") << "encoder.layers.0.ffn.linear1" << "B S F";
    QTest::newRow("decoder self") << "decoder.layers.0.self_attn.weights" << "B H T T";
    QTest::newRow("cross weights") << c + "weights" << "B H T S";
    QTest::newRow("cross k_proj") << c + "k_proj" << "B S D";
    QTest::newRow("cross q") << c + "q" << "B H T Dh";
    QTest::newRow("cross k_t") << c + "k_t" << "B H Dh S";
    QTest::newRow("cross mask") << "decoder.cross_mask" << "B T S";
    QTest::newRow("decoder norm") << "decoder.layers.0.norm1" << "B T D";
  }
  void axisNames() {
    QFETCH(QString, id);
    QFETCH(QString, names);
    const Step& s = stepOf(id.startsWith(QLatin1String("decoder")) ? cross_ : enc_, id.toStdString());
    QCOMPARE(StepNames::axisNames(s.info.id, int(s.tensor.dim())).join(QLatin1Char(' ')), names);
  }

  // Every step of every variant: one name per axis, and each name always means the same size.
  void axisNamesAgreeWithSizes() {
    for (const auto& r : {enc_, cross_, makeResult({.norm = Norm::Post, .act = Activation::Gelu, .pos = Positional::None})}) {
      std::map<QString, int64_t> size{{"B", 2}, {"D", 16}, {"H", 4}, {"Dh", 4}, {"F", 32}, {"V", int64_t(r->batch.vocab.words.size())}};
      size["S"] = r->batch.encoder_tokens().seq();
      size["T"] = r->batch.text.seq();
      for (const auto& s : r->trace.steps()) {
        const QStringList names = StepNames::axisNames(s.info.id, int(s.tensor.dim()));
        QCOMPARE(names.size(), s.tensor.dim());
        for (int i = 0; i < names.size(); ++i)
          QVERIFY2(size.count(names[i]) && size[names[i]] == s.tensor.size(i), (s.info.id + " " + names[i].toStdString()).c_str());
      }
    }
    QVERIFY(cross_->batch.text.seq() != cross_->batch.memory.seq());  // S and T really differ here
  }

  // A formula's shape tuples use the letters of the diagram under it (S in the encoder, T in
  // the decoder, S for cross-attention's keys), in the planted bugs, the tiled overview and
  // every variant too; no matrix is named by an axis letter.
  void formulaAxesMatchDiagram() {
    std::vector<TraceResultPtr> runs{enc_, cross_, makeFaulty({}, 4)};
    for (const auto& f : all_faults())
      if (f.fault != Fault::IndivisibleHeads) runs.push_back(makeFaulty({f.fault}));
    for (VariantKind k : all_variants()) runs.push_back(makeFaulty({}, 0, k));
    int checked = 0;
    QStringList wrong;
    for (const auto& r : runs)
      for (const auto& s : r->trace.steps()) {
        const QString formula = QString::fromStdString(s.info.formula.english());
        const QStringList names = StepNames::axisNames(s.info.id, int(s.tensor.dim()));
        const bool crossKeys = s.info.id.starts_with("decoder.layers.") && s.info.id.find(".multihead_attn.") != std::string::npos;
        const QString where = QString::fromStdString(s.info.id) + QStringLiteral(": ") + formula;
        for (const QString& a : tupleAxes(formula)) {
          if (!names.contains(a) && !(a == QLatin1String("S") && crossKeys))
            wrong << where + QStringLiteral(" names ") + a + QStringLiteral(", the diagram ") + names.join(QLatin1Char(' '));
          ++checked;
        }
        if (namesMatrixLikeAxis(formula)) wrong << where + QStringLiteral(" names a matrix S");
      }
    wrong.removeDuplicates();
    for (const QString& w : wrong) qWarning("%s", qPrintable(w));
    QVERIFY2(wrong.isEmpty(), qPrintable(wrong.join(QLatin1Char('\n'))));
    QVERIFY(checked > 20);
    QVERIFY(tupleAxes(QStringLiteral("no (T, T) matrix; O(T·Dh²)")) == QStringList({"T", "T", "T"}));
    QVERIFY(namesMatrixLikeAxis(QStringLiteral("A = softmax(S), then")) && namesMatrixLikeAxis(QStringLiteral("S = QKᵀ")));
    QVERIFY(!namesMatrixLikeAxis(QStringLiteral("scores = QKᵀ (B, H, S, S)")));
  }

  void place() {
    StepPlace p = StepNames::place("encoder.layers.1.ffn.linear1");
    QCOMPARE(p.stack, QStringLiteral("Encoder"));
    QCOMPARE(p.layer, 1);
    QCOMPARE(p.block, QStringLiteral("Feed-forward"));
    p = StepNames::place("decoder.layers.0.multihead_attn.q");
    QCOMPARE(p.stack, QStringLiteral("Decoder"));
    QCOMPARE(p.block, QStringLiteral("Cross-attention"));
    p = StepNames::place("encoder.mask");
    QCOMPARE(p.layer, -1);
    QVERIFY(p.block.isEmpty());
    QCOMPARE(StepNames::place("encoder.layers.0.norm1").block, QString());
    QCOMPARE(StepNames::place("encoder.layers.0.self_attn.qk").block, QStringLiteral("Self-attention"));
    p = StepNames::place("decoder.norm");  // the final norm: after the layers, a place of its own
    QCOMPARE(p.layer, -1);
    QCOMPARE(p.block, QStringLiteral("Final LayerNorm"));
    QCOMPARE(StepNames::placeWords(p, true), (QStringList{QStringLiteral("Decoder"), QStringLiteral("Final LayerNorm")}));
    ModelConfig c;
    c.d_model = 8, c.heads = 2, c.final_norm = true;
    Trace t;
    forward(c, init_weights(c), make_batch({"a b"}, {}), t);
    QCOMPARE(StepNames::location(t, 0, false), QStringLiteral("Encoder · input · 1/6"));  // the final norm is not an input step
    QCOMPARE(StepNames::location(t, static_cast<int>(t.steps().size()) - 1, false), QStringLiteral("Encoder · Final LayerNorm · 1/1"));
  }

  void location() {
    int pos = 0, total = 0;
    for (const auto& s : enc_->trace.steps()) {
      if (!s.info.id.starts_with("encoder.layers.0.self_attn.")) continue;
      ++total;
      if (s.info.id.ends_with(".scores")) pos = total;
    }
    QCOMPARE(total, 19);
    QCOMPARE(StepNames::location(enc_->trace, enc_->indexOf("encoder.layers.0.self_attn.scores")),
             QStringLiteral("Layer 0 · Self-attention · %1/19 · Scale by √d_head").arg(pos));  // layers from 0, as the ids
    QVERIFY(StepNames::location(enc_->trace, enc_->indexOf("encoder.layers.1.ffn.hidden"))
                .startsWith(QStringLiteral("Layer 1 · Feed-forward · 2/3 · ")));
    QCOMPARE(StepNames::location(enc_->trace, enc_->indexOf("encoder.token_ids")),
             QStringLiteral("Encoder · input · 2/6 · Token ids"));
    QVERIFY(StepNames::location(cross_->trace, cross_->indexOf("decoder.layers.0.multihead_attn.weights"))
                .startsWith(QStringLiteral("Decoder layer 0 · Cross-attention · 14/19 · ")));
    QCOMPARE(StepNames::placeWords(StepNames::place("decoder.layers.1.multihead_attn.weights"), true),
             (QStringList{QStringLiteral("Decoder layer 1"), QStringLiteral("Cross-attention")}));
    QVERIFY(StepNames::location(enc_->trace, -1).isEmpty());
  }

  void whatChanged() {
    const std::string a = "encoder.layers.0.self_attn.";
    auto said = [&](const std::string& id) { return StepNames::whatChanged(enc_->trace, enc_->indexOf(a + id)); };
    const QString view = said("q_view");
    QVERIFY2(view.contains(QStringLiteral("D = 16 is split into H = 4 × Dh = 4")) && view.contains(QStringLiteral("same storage")) &&
                 view.contains(QStringLiteral("Same 192 numbers")),
             qPrintable(view));
    const QString q = said("q");
    QVERIFY2(q.contains(QStringLiteral("Axes 1 and 2 swapped")) && q.contains(QStringLiteral("not contiguous")) &&
                 q.contains(stridesText(stepOf(enc_, a + "q").tensor)),
             qPrintable(q));
    QVERIFY2(said("k_t").contains(QStringLiteral("Axes 2 and 3 swapped")), qPrintable(said("k_t")));
    QVERIFY2(said("merge_contiguous").startsWith(QStringLiteral("Copied")), qPrintable(said("merge_contiguous")));
    QVERIFY2(said("context").contains(QStringLiteral("H = 4 × Dh = 4 are joined into D = 16")), qPrintable(said("context")));
    // Masked entries: every (b, i, j) with mask 0, once per head.
    const Tensor& mask = stepOf(enc_, "encoder.mask").tensor;
    int64_t masked = 0;
    for (float m : mask.to_vector()) masked += m == 0.0f;
    masked *= 4;
    QVERIFY(masked > 0);
    const QString ms = said("masked_scores");
    QVERIFY2(ms.startsWith(QStringLiteral("%1 of %2 scores set to −∞").arg(masked).arg(2 * 4 * 6 * 6)), qPrintable(ms));
    QVERIFY2(said("weights").contains(QStringLiteral("sums to 1")), qPrintable(said("weights")));
    QVERIFY2(said("scores").contains(QStringLiteral("√Dh = √4 = 2")), qPrintable(said("scores")));
    QVERIFY2(StepNames::whatChanged(enc_->trace, enc_->indexOf("encoder.layers.0.ffn.linear1")).startsWith(QStringLiteral("(B, S, D) → (B, S, F)")),
             "linear1");
    QVERIFY(StepNames::whatChanged(enc_->trace, enc_->indexOf("encoder.layers.0.norm1")).contains(QStringLiteral("mean 0")));
    // 6 and 2 tokens: 4 [PAD] ids, id 0 in the project's vocabularies, whose seeded row is zeros
    const QString ids = StepNames::whatChanged(enc_->trace, enc_->indexOf("encoder.token_ids"));
    QVERIFY2(ids.contains(QStringLiteral("12 token ids (2, 6), of which 4 are [PAD] (id 0)")), qPrintable(ids));
    const QString emb = StepNames::whatChanged(enc_->trace, enc_->indexOf("encoder.embedding"));
    QVERIFY2(emb.endsWith(QStringLiteral("; 4 [PAD] positions got zero vectors.")), qPrintable(emb));
  }

  // Every step of every variant gets a sentence of its own kind, not the generic fallback.
  void whatChangedCoversEveryStep() {
    for (const auto& r : {enc_, cross_, makeResult({.norm = Norm::Post, .act = Activation::Gelu, .pos = Positional::None})})
      for (int i = 0; i < int(r->trace.steps().size()); ++i) {
        const QString text = StepNames::whatChanged(r->trace, i);
        QVERIFY2(!text.isEmpty() && !text.startsWith(QStringLiteral("Computed")), r->trace.steps()[size_t(i)].info.id.c_str());
      }
  }

  void shapeDiagramBoxes() {
    ShapeDiagram d;
    d.setStep(enc_, enc_->indexOf("encoder.layers.0.self_attn.q"));
    const QStringList boxes = d.boxTexts();
    QCOMPARE(boxes.size(), 2);
    QVERIFY2(boxes[0].startsWith(QStringLiteral("q_view (B 2 · S 6 · H 4 · Dh 4) strides (96, 16, 4, 1)")), qPrintable(boxes[0]));
    QVERIFY(boxes[0].endsWith(QStringLiteral(" contiguous")) && !boxes[0].contains(QStringLiteral("not contiguous")));
    QVERIFY2(boxes[1].startsWith(QStringLiteral("q (B 2 · H 4 · S 6 · Dh 4) strides (96, 4, 16, 1)")), qPrintable(boxes[1]));
    QVERIFY(boxes[1].endsWith(QStringLiteral("not contiguous")));
    QVERIFY2(d.moveText().startsWith(QStringLiteral("transpose(1, 2): swap S and H")), qPrintable(d.moveText()));

    d.setStep(enc_, enc_->indexOf("encoder.layers.0.self_attn.q_view"));
    QVERIFY2(d.moveText().startsWith(QStringLiteral("view: split D into H × Dh")), qPrintable(d.moveText()));
    d.setStep(enc_, enc_->indexOf("encoder.layers.0.self_attn.merge_contiguous"));
    QVERIFY2(d.moveText().startsWith(QStringLiteral("contiguous(): copy")), qPrintable(d.moveText()));
    d.setStep(enc_, enc_->indexOf("encoder.layers.0.self_attn.context"));
    QVERIFY2(d.moveText().startsWith(QStringLiteral("view: join H × Dh into D")), qPrintable(d.moveText()));
    d.setStep(enc_, enc_->indexOf("encoder.layers.0.self_attn.masked_scores"));
    QCOMPARE(d.boxTexts().size(), 3);  // scores and mask in, masked out
    QCOMPARE(d.moveText(), QString::fromStdString(stepOf(enc_, "encoder.layers.0.self_attn.masked_scores").info.formula.english()));
    QVERIFY(d.boxTexts()[1].startsWith(QStringLiteral("mask (B 2 · S 6 · S 6)")));
  }

  void tensorViewSliceMatchesTraceInBothModes() {
    TensorView v;
    const int idx = enc_->indexOf("encoder.layers.0.self_attn.weights");
    const Tensor& t = enc_->trace.steps()[size_t(idx)].tensor;
    v.setStep(enc_, idx, 1);
    auto* combo = v.findChild<QComboBox*>();
    auto* spin = v.findChild<QSpinBox*>();
    auto* table = v.findChild<QTableWidget*>();
    auto* map = v.findChild<HeatmapView*>();
    QVERIFY(combo && spin && table && map);
    QVERIFY(!v.tableMode());
    // Heads from 0, as the heatmaps and the file names (head{h}) number them: 4 heads are 0 … 3.
    QCOMPARE(spin, v.headBox());
    QCOMPARE(spin->minimum(), 0);
    QCOMPARE(spin->maximum(), 3);
    QCOMPARE(spin->value(), 0);
    QVERIFY2(v.captionText().startsWith(QStringLiteral("Sentence 1, head 0, 6 × 6 values: ")), qPrintable(v.captionText()));
    for (int head = 0; head < 2; ++head) {
      QCOMPARE(v.sliceRows(), 6);
      QCOMPARE(v.sliceCols(), 6);
      for (int r = 0; r < 6; ++r)
        for (int c = 0; c < 6; ++c) {
          QCOMPARE(v.sliceValue(r, c), t.at({1, head, r, c}));
          if (!v.tableMode()) QCOMPARE(map->value(r, c), t.at({1, head, r, c}));
          else QCOMPARE(table->item(r, c)->text(), cell(t.at({1, head, r, c})));
        }
      // Colour map → table through the combo, and the next head through the spin box.
      combo->setFocus();
      QTest::keyClick(combo, Qt::Key_Down);
      QVERIFY(v.tableMode());
      QTest::keyClick(spin, Qt::Key_Up);
      QCOMPARE(spin->value(), head + 1);  // the spin box's value is the head's index itself
      QVERIFY2(v.captionText().startsWith(QStringLiteral("Sentence 1, head %1, ").arg(head + 1)), qPrintable(v.captionText()));
    }
    QVERIFY(v.sliceValue(0, 0) != t.at({1, 0, 0, 0}));
    QCOMPARE(table->verticalHeaderItem(1)->text(), QStringLiteral("bark"));
  }

  void tensorViewTableShowsMaskedAsMinusInfinity() {
    TensorView v;
    v.setMode(true);
    v.setStep(enc_, enc_->indexOf("encoder.layers.0.self_attn.masked_scores"), 1);  // "dogs bark" + 4 [PAD]
    auto* table = v.findChild<QTableWidget*>();
    QCOMPARE(table->rowCount(), 6);
    int infinities = 0;
    for (int r = 0; r < 6; ++r)
      for (int c = 0; c < 6; ++c) {
        QCOMPARE(table->item(r, c)->text() == QStringLiteral("−∞"), c >= 2);
        infinities += table->item(r, c)->text() == QStringLiteral("−∞");
      }
    QCOMPARE(infinities, 24);
    QCOMPARE(table->horizontalHeaderItem(0)->text(), QStringLiteral("dogs"));
    QVERIFY(!table->item(0, 0)->toolTip().isEmpty());
  }

  void tensorViewOtherShapes() {
    TensorView v;
    const auto check = [&](const TraceResultPtr& r, const std::string& id, int batch, int rows, int cols) {
      v.setStep(r, r->indexOf(id), batch);
      QCOMPARE(v.sliceRows(), rows);
      QCOMPARE(v.sliceCols(), cols);
      const Tensor& t = stepOf(r, id).tensor;
      for (int i = 0; i < rows; ++i)
        for (int j = 0; j < cols; ++j) {
          const float want = t.dim() == 3 ? t.at({batch, i, j}) : rows == 1 ? t.at({batch, j}) : t.at({i, j});
          QCOMPARE(v.sliceValue(i, j), want);
        }
    };
    check(enc_, "encoder.layers.0.ffn.linear1", 0, 6, 32);
    check(enc_, "encoder.token_ids", 1, 1, 6);
    check(enc_, "encoder.embedding_table", 0, int(enc_->batch.vocab.words.size()), 16);
    QCOMPARE(v.findChild<QTableWidget*>()->rowCount(), 0);  // filled only when the table is shown
    v.setMode(true);
    QCOMPARE(v.findChild<QTableWidget*>()->verticalHeaderItem(1)->text(), QString::fromStdString(enc_->batch.vocab.words[1]));
    v.setMode(false);
    check(cross_, "decoder.cross_mask", 1, int(cross_->batch.text.seq()), int(cross_->batch.memory.seq()));
    check(cross_, "decoder.layers.0.multihead_attn.k_proj", 0, int(cross_->batch.memory.seq()), 16);
    QVERIFY(v.findChild<QSpinBox*>()->isHidden());
    // (B, S, H, Dh): the head selector picks axis 2, the slice is tokens × Dh; head 2 is index 2.
    v.setStep(enc_, enc_->indexOf("encoder.layers.0.self_attn.k_view"), 0);
    QCOMPARE(v.headBox()->maximum(), 3);
    v.headBox()->setValue(2);
    QVERIFY2(v.captionText().startsWith(QStringLiteral("Sentence 0, head 2, ")), qPrintable(v.captionText()));
    const Tensor& kv = stepOf(enc_, "encoder.layers.0.self_attn.k_view").tensor;
    QCOMPARE(v.sliceRows(), 6);
    QCOMPARE(v.sliceValue(5, 3), kv.at({0, 5, 2, 3}));
  }

  void tensorViewCapsLargeTables() {
    const auto big = makeResult({.d_ff = 300});
    TensorView v;
    v.setMode(true);
    v.setStep(big, big->indexOf("encoder.layers.0.ffn.linear1"), 0);
    QCOMPARE(v.sliceCols(), 300);
    QCOMPARE(v.findChild<QTableWidget*>()->columnCount(), 256);
    bool said = false;
    for (auto* l : v.findChildren<QLabel*>()) said = said || l->text().contains(QStringLiteral("first 6 × 256"));
    QVERIFY(said);
  }

  void screenshots_data() {
    QTest::addColumn<QString>("id");
    QTest::addColumn<double>("zoom");
    QTest::newRow("q") << "encoder.layers.0.self_attn.q" << 1.0;
    QTest::newRow("masked") << "encoder.layers.0.self_attn.masked_scores" << 1.0;
    QTest::newRow("qk") << "encoder.layers.0.self_attn.qk" << 1.0;
    QTest::newRow("ids-zoom") << "encoder.token_ids" << 2.0;
    QTest::newRow("linear1-zoom") << "encoder.layers.0.ffn.linear1" << 3.0;
    QTest::newRow("context-zoom") << "encoder.layers.0.self_attn.context" << 2.5;
    QTest::newRow("weights-zoom") << "encoder.layers.0.self_attn.weights" << 2.0;
  }
  void screenshots() {
    QFETCH(QString, id);
    QFETCH(double, zoom);
    const int idx = enc_->indexOf(id.toStdString());
    const QString tag = QString::fromLatin1(QTest::currentDataTag());
    for (QSize size : {QSize(600, 220), QSize(1400, 500)}) {
      const QString suffix = QStringLiteral("-%1x%2").arg(size.width()).arg(size.height());
      ShapeDiagram d;
      QFont f = d.font();
      f.setPointSizeF(f.pointSizeF() * zoom);
      d.setFont(f);
      d.setStep(enc_, idx);
      saveShot(d, QStringLiteral("shape-") + tag + suffix, size);
      for (bool table : {false, true}) {
        TensorView v;
        v.setFont(f);
        v.setStep(enc_, idx, 1);  // "dogs bark" + [PAD]: masked keys show
        v.setMode(table);
        saveShot(v, QStringLiteral("tensor-") + tag + (table ? QStringLiteral("-table") : QStringLiteral("-map")) + suffix, size);
      }
    }
  }
};

QTEST_MAIN(TestShapes)
#include "test_shapes.moc"
