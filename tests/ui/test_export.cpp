// Export on a real forward pass: PNG sizes, pixels and colours at two scales; SVG structure (one
// rectangle per cell, text as text); CSV equal to the trace; the PDF handout's pages; the batch
// export (exact file set, cancel leaves nothing); errors for unwritable paths; the bundle; the
// colour schemes; the dialog on its worker thread; a 4096×4096 matrix in reasonable time.
#include <QClipboard>
#include <QElapsedTimer>
#include <QPainter>
#include <QRegularExpression>
#include <QSignalSpy>
#include <QSvgRenderer>
#include <QTemporaryDir>
#include <QXmlStreamReader>
#include <QtEndian>
#include <QtTest>

#include <cmath>
#include <map>

#include "export/exportdialog.h"
#include "export/exporter.h"
#include "forward/model.h"
#include "io/bundle.h"
#include "model/weights.h"
#include "views/heatmaprender.h"
#include "words/steptext.h"

#include "colorvision.h"
#include "fixtures.h"
#include "pdftext.h"

using namespace attnlab;
using namespace attnlab::ui;
using attnlab::ui::test::pdfPageTexts;
using attnlab::ui::test::squeezed;

namespace {

// The smallest colour difference, over protanopia, deuteranopia and tritanopia, between the two
// ends of a diverging map and between its ±half points.
double worstSeparation(const ColorMap& div) {
  double worst = 1e9;
  for (test::Vision v : {test::Vision::Protanopia, test::Vision::Deuteranopia, test::Vision::Tritanopia})
    worst = std::min({worst, test::deltaE(div.color(div.lo), div.color(div.hi), v),
                      test::deltaE(div.color(div.lo / 2), div.color(div.hi / 2), v)});
  return worst;
}

// Two sentences (the second padded with three [PAD]), d_model 16, 4 heads, 2 layers: 2 blocks.
TraceResultPtr realResult() {
  return test::makeResult({"the cat sat on the mat", "a dog ran"}, 2);
}

QString shot(const QString& name) { return QStringLiteral(ATTNLAB_SCREENSHOT_DIR "/") + name; }

QByteArray readAll(const QString& path) {
  QFile f(path);
  return f.open(QIODevice::ReadOnly) ? f.readAll() : QByteArray();
}

QStringList filesIn(const QString& dir) {
  return QDir(dir).entryList(QDir::Files | QDir::Dirs | QDir::Hidden | QDir::NoDotAndDotDot, QDir::Name);
}

int distinctColours(const QImage& img) {
  QSet<QRgb> seen;
  for (int y = 0; y < img.height(); y += 2)
    for (int x = 0; x < img.width(); x += 2) seen.insert(img.pixel(x, y));
  return static_cast<int>(seen.size());
}

struct SvgContent {
  QStringList texts;
  struct Rect {
    QRectF r;
    QString fill;
  };
  std::vector<Rect> rects;
  int images = 0;
};

// Every <text>'s content, every <rect> with the fill in force (its own or its enclosing <g>'s).
SvgContent parseSvg(const QByteArray& bytes, QString* error) {
  SvgContent out;
  QXmlStreamReader xml(bytes);
  QStringList fills{QStringLiteral("none")};
  while (!xml.atEnd()) {
    xml.readNext();
    if (xml.isStartElement()) {
      const auto a = xml.attributes();
      const QString fill = a.hasAttribute(QStringLiteral("fill")) ? a.value(QStringLiteral("fill")).toString() : fills.back();
      if (xml.name() == QLatin1String("g")) fills << fill;
      if (xml.name() == QLatin1String("rect"))
        out.rects.push_back({QRectF(a.value(QStringLiteral("x")).toDouble(), a.value(QStringLiteral("y")).toDouble(),
                                    a.value(QStringLiteral("width")).toDouble(), a.value(QStringLiteral("height")).toDouble()),
                             fill});
      if (xml.name() == QLatin1String("image")) ++out.images;
      if (xml.name() == QLatin1String("text")) out.texts << xml.readElementText(QXmlStreamReader::IncludeChildElements);
    } else if (xml.isEndElement() && xml.name() == QLatin1String("g") && fills.size() > 1) {
      fills.removeLast();
    }
  }
  if (xml.hasError()) *error = xml.errorString();
  return out;
}

HeatmapPicture bigPicture(int n) {
  HeatmapPicture pic;
  pic.rows = pic.cols = n;
  pic.values.resize(static_cast<size_t>(n) * n);
  for (int r = 0; r < n; ++r)
    for (int c = 0; c < n; ++c) pic.values[static_cast<size_t>(r) * n + c] = c > r ? -INFINITY : float((r + c) % 97) / 96.0f;
  pic.map.lo = 0;
  pic.map.hi = 1;
  for (int i = 0; i < n; ++i) pic.rowLabels.push_back(std::string(1, 't').append(std::to_string(i)));
  pic.colLabels = pic.rowLabels;
  pic.title = QStringLiteral("causal %1×%1").arg(n);
  pic.legendTitle = QStringLiteral("weight");
  pic.rowAxis = QStringLiteral("query");
  pic.colAxis = QStringLiteral("key");
  return pic;
}

}  // namespace

class TestExport : public QObject {
  Q_OBJECT

 private slots:
  void initTestCase() {
    QVERIFY(QDir().mkpath(QStringLiteral(ATTNLAB_SCREENSHOT_DIR)));
    result_ = realResult();
    steps_ = attentionWeightSteps(result_->trace);
    QCOMPARE(steps_.size(), size_t(2));
  }

  void pngAtTwoScales_data() {
    QTest::addColumn<double>("scale");
    QTest::newRow("1x") << 1.0;
    QTest::newRow("2x") << 2.0;
  }

  // The picture of sentence 1, head 1 (from 0, as the file names): its size, not blank, and the
  // exact map colour at cell centres.
  void pngAtTwoScales() {
    QFETCH(double, scale);
    QTemporaryDir dir;
    const HeatmapPicture pic = headPicture(result_->batch, result_->trace, steps_[0], 1, 1);
    QCOMPARE(pic.rows, 6);
    QCOMPARE(pic.cols, 6);
    QVERIFY2(pic.title.endsWith(QStringLiteral(" · sentence 1 · head 1")), qPrintable(pic.title));
    const QString path = dir.filePath(QStringLiteral("h.png"));
    QCOMPARE(savePng(path, pic, scale), QString());
    QImage img(path);
    QVERIFY(!img.isNull());
    RenderOptions opt;
    opt.deviceScale = scale;
    const QSize natural = HeatmapRenderer::naturalSize(pic, opt);
    QCOMPARE(img.size(), QSize(qRound(natural.width() * scale), qRound(natural.height() * scale)));
    QVERIFY2(distinctColours(img) > 20, "the picture looks blank");
    QVERIFY(std::abs(img.dotsPerMeterX() - 96 * scale / 0.0254) < 2);
    const HeatmapLayout g = HeatmapRenderer::layout(pic, natural, opt);
    QVERIFY(!g.downsampled);
    for (int r : {0, 2, 4})
      for (int c : {0, 1, 2}) {  // "a dog ran": keys 0..2 are real tokens (not masked)
        const QPointF centre = g.cellRect(r, c).center() * scale;
        QCOMPARE(QColor(img.pixel(centre.toPoint())), pic.map.color(pic.value(r, c)));
      }
    int grey = 0, hatch = 0;  // a [PAD] key: grey with dark hatch lines
    const QRectF masked = g.cellRect(0, 4);
    for (int y = qCeil(masked.top() * scale); y < masked.bottom() * scale; ++y)
      for (int x = qCeil(masked.left() * scale); x < masked.right() * scale; ++x) {
        grey += img.pixel(x, y) == ColorMap::maskedColor().rgb();
        hatch += qGray(img.pixel(x, y)) < 0x70;
      }
    QVERIFY(grey > 0);
    QVERIFY(hatch > 0);
    img.save(shot(QStringLiteral("export_b1_head1_%1x.png").arg(scale)));
  }

  // Text as <text> (one per visible token label), one <rect> per cell, with the cell's colour.
  void svgStructure() {
    QTemporaryDir dir;
    const HeatmapPicture pic = headPicture(result_->batch, result_->trace, steps_[1], 0, 2);
    const QString path = dir.filePath(QStringLiteral("h.svg"));
    QCOMPARE(saveSvg(path, pic), QString());
    QFile::remove(shot(QStringLiteral("export_b0_head2.svg")));
    QFile::copy(path, shot(QStringLiteral("export_b0_head2.svg")));
    QString error;
    const SvgContent svg = parseSvg(readAll(path), &error);
    QVERIFY2(error.isEmpty(), qPrintable(error));
    RenderOptions opt;
    opt.vectorCells = true;
    const HeatmapLayout g = HeatmapRenderer::layout(pic, HeatmapRenderer::naturalSize(pic, opt), opt);
    QVERIFY(!g.imageCells);
    std::map<QString, int> expected;
    for (int r = 0; r < pic.rows; r += g.rowStep) ++expected[QString::fromStdString(pic.rowLabels[r])];
    for (int c = 0; c < pic.cols; c += g.colStep) ++expected[QString::fromStdString(pic.colLabels[c])];
    for (const auto& [token, n] : expected) QCOMPARE(svg.texts.count(token), n);
    QVERIFY(svg.texts.contains(QStringLiteral("query")) && svg.texts.contains(QStringLiteral("weight")));
    int cells = 0;
    for (const auto& rect : svg.rects) {
      if (std::abs(rect.r.width() - g.cellW) > 0.01 || std::abs(rect.r.height() - g.cellH) > 0.01) continue;
      const int c = qRound((rect.r.left() - g.plot.left()) / g.cellW), r = qRound((rect.r.top() - g.plot.top()) / g.cellH);
      QVERIFY(r >= 0 && r < pic.rows && c >= 0 && c < pic.cols);
      QCOMPARE(rect.fill, pic.map.color(pic.value(r, c)).name());
      ++cells;
    }
    QCOMPARE(cells, pic.rows * pic.cols);
    QCOMPARE(svg.images, 0);
    QSvgRenderer renderer(path);  // and it draws back as the same picture
    QVERIFY(renderer.isValid());
    // At the viewBox's own size: QSvgRenderer's defaultSize reads the width in mm at 90 dpi, not
    // the 96 the file was written at, and would scale the picture by 15/16.
    const QSize box = renderer.viewBox().size();
    QCOMPARE(box, HeatmapRenderer::naturalSize(pic, opt));
    QImage img(box, QImage::Format_RGB32);
    img.fill(Qt::white);
    QPainter p(&img);
    renderer.render(&p, QRectF(QPointF(0, 0), box));
    p.end();
    for (const auto& [r, c] : {std::pair{2, 3}, std::pair{0, 0}, std::pair{pic.rows - 1, pic.cols - 1}})
      QCOMPARE(QColor(img.pixel(g.cellRect(r, c).center().toPoint())), pic.map.color(pic.value(r, c)));
    img.save(shot(QStringLiteral("export_b0_head2_svg_rendered.png")));
  }

  // Beyond the cap the cells are one embedded image, and the picture says so.
  void svgLargeEmbedsImage() {
    QTemporaryDir dir;
    const HeatmapPicture pic = bigPicture(300);
    QCOMPARE(saveSvg(dir.filePath(QStringLiteral("big.svg")), pic, QSize(900, 900)), QString());
    QString error;
    const SvgContent svg = parseSvg(readAll(dir.filePath(QStringLiteral("big.svg"))), &error);
    QVERIFY2(error.isEmpty(), qPrintable(error));
    QCOMPARE(svg.images, 1);
    QVERIFY(svg.rects.size() < 300);  // the colour bar's strips and a few boxes, not 90 000 cells
    QVERIFY(svg.texts.filter(QStringLiteral("drawn as an image")).size() == 1);
  }

  void csvEqualsTrace() {
    QTemporaryDir dir;
    const QString path = dir.filePath(QStringLiteral("h.csv"));
    QCOMPARE(saveCsv(path, result_->batch, result_->trace, steps_[0], 0, 3), QString());
    const Tensor& w = result_->trace.steps()[size_t(steps_[0])].tensor;
    const AxisTokens tok = attention_tokens(result_->batch, "encoder.layers.0.self_attn.weights", 0);
    QCOMPARE(readAll(path), QByteArray::fromStdString(heatmap_csv(w, 0, 3, tok.query, tok.key)));
    const QList<QByteArray> lines = readAll(path).split('\n');
    QVERIFY(lines[0].startsWith("\"\",\"the\",\"cat\""));
    const QList<QByteArray> row2 = lines[2].trimmed().split(',');
    QCOMPARE(row2[0], QByteArray("\"cat\""));
    for (int j = 0; j < 6; ++j) QCOMPARE(row2[j + 1].toFloat(), w.at({0, 3, 1, j}));
  }

  void clipboard() {
    const HeatmapPicture pic = headPicture(result_->batch, result_->trace, steps_[0], 0, 1);
    QCOMPARE(copyImageToClipboard(pic, 1), QString());
    QCOMPARE(QGuiApplication::clipboard()->image().size(), HeatmapRenderer::naturalSize(pic));
    QString fromWorker;  // the clipboard belongs to the window's thread
    QThread* worker = QThread::create([&] { fromWorker = copyImageToClipboard(pic, 1); });
    worker->start();
    QVERIFY(worker->wait(30000));
    delete worker;
    QVERIFY(!fromWorker.isEmpty());
  }

  // A handout, not a page a step: the steps share pages (the default sample's 60 steps on at most
  // half as many pages), each with its title, its place and what happens there and why, the
  // weights' heads after each softmax, every page numbered; progress and cancel as before.
  // The model line says what a GPT-2-like stack adds: the learned table's rows and the final norm.
  void handoutNamesLearnedPositionsAndTheFinalNorm() {
    auto r = std::make_shared<TraceResult>();
    r->cfg.d_model = 8, r->cfg.heads = 2, r->cfg.d_ff = 16;
    r->cfg.positional = Positional::Learned, r->cfg.max_positions = 12, r->cfg.final_norm = true;
    r->batch = make_batch({"a b c"}, {});
    forward(r->cfg, init_weights(r->cfg), r->batch, r->trace);
    QTemporaryDir dir;
    const QString path = dir.filePath(QStringLiteral("handout.pdf"));
    QCOMPARE(exportHandoutPdf(r, path, [](int, int) { return true; }), QString());
    const QString first = pdfPageTexts(readAll(path)).value(0);
    QVERIFY2(first.contains(squeezed(QStringLiteral("positions learned (12)"))), qPrintable(first.left(400)));
    QVERIFY2(first.contains(squeezed(QStringLiteral("seed 0 · a final LayerNorm"))), qPrintable(first.left(400)));
  }

  void handoutPdf() {
    QTemporaryDir dir;
    const QString path = dir.filePath(QStringLiteral("handout.pdf"));
    const int steps = static_cast<int>(result_->trace.steps().size());
    int calls = 0, last = 0;
    QCOMPARE(exportHandoutPdf(result_, path, [&](int done, int total) { ++calls; last = done; return total == steps; }), QString());
    QCOMPARE(calls, steps);
    QCOMPARE(last, steps);
    const QByteArray pdf = readAll(path);
    QVERIFY(pdf.startsWith("%PDF"));
    const auto pages = QString::fromLatin1(pdf).count(QRegularExpression(QStringLiteral("/Type\\s*/Page(?!s)")));
    QVERIFY2(pages >= 2 && 2 * pages <= steps, qPrintable(QStringLiteral("%1 pages for %2 steps").arg(pages).arg(steps)));
    const QStringList text = pdfPageTexts(pdf);
    QCOMPARE(text.size(), pages);
    for (int k = 0; k < pages; ++k)  // pages are counted from 1
      QVERIFY2(text[k].endsWith(squeezed(QStringLiteral("Page %1 of %2").arg(k + 1).arg(pages))), qPrintable(text[k].right(40)));
    QVERIFY(text[0].startsWith(squeezed(QStringLiteral("Attention Lab — the forward pass, step by step"))));
    QVERIFY(text[0].contains(squeezed(QStringLiteral("0. the · cat · sat · on · the · mat"))));  // sentences from 0
    QVERIFY(!text[0].contains(squeezed(QStringLiteral("a final LayerNorm"))));
    const QString all = text.join(QString());
    std::map<QString, int> titles;  // the two layers' steps share titles: each as often as its steps
    for (int i = 0; i < steps; ++i) {
      const StepInfo& info = result_->trace.steps()[size_t(i)].info;
      ++titles[squeezed(StepText::title(info))];
      QVERIFY2(all.contains(squeezed(QStringLiteral("Step %1 of %2 ·").arg(i + 1).arg(steps))), info.id.c_str());
      QVERIFY2(all.contains(squeezed(StepText::explanation(info.id))), info.id.c_str());
      QVERIFY2(all.contains(squeezed(QString::fromStdString(info.code))), info.id.c_str());
    }
    for (const auto& [title, n] : titles) QVERIFY2(all.count(title) >= n, qPrintable(title));
    for (const Step& s : result_->trace.steps()) {  // the shape diagram: at least the step's own box, with its strides
      QStringList strides;
      for (auto v : s.tensor.strides()) strides << QString::number(v);
      QVERIFY2(all.contains(squeezed(QStringLiteral("strides (%1)").arg(strides.join(QStringLiteral(", "))))), s.info.id.c_str());
    }
    QVERIFY(!all.contains(squeezed(QStringLiteral("D 16, strides (96, 16, 1)"))));  // drawn, not said in words
    QCOMPARE(all.count(squeezed(QStringLiteral("— every head, sentence 0"))), static_cast<int>(steps_.size()));
    for (int h = 0; h < 4; ++h) QCOMPARE(all.count(squeezed(QStringLiteral("Head %1").arg(h))), static_cast<int>(steps_.size()));
    QFile::remove(shot(QStringLiteral("export_handout.pdf")));
    QFile::copy(path, shot(QStringLiteral("export_handout.pdf")));
    const QString cancelled = dir.filePath(QStringLiteral("cancelled.pdf"));  // cancel: no file
    QVERIFY(!exportHandoutPdf(result_, cancelled, [](int done, int) { return done < 3; }).isEmpty());
    QVERIFY(!QFile::exists(cancelled));
    QCOMPARE(filesIn(dir.path()), QStringList{QStringLiteral("handout.pdf")});
  }

  // Off the window's thread there are no widgets: the shapes are said in words instead of drawn,
  // and the handout is otherwise the same.
  void handoutOnAWorker() {
    QTemporaryDir dir;
    const QString path = dir.filePath(QStringLiteral("worker.pdf"));
    QString error = QStringLiteral("not run");
    QThread* worker = QThread::create([&] { error = exportHandoutPdf(result_, path); });
    worker->start();
    QVERIFY(worker->wait(60000));
    delete worker;
    QCOMPARE(error, QString());
    const QByteArray pdf = readAll(path);
    const auto pages = QString::fromLatin1(pdf).count(QRegularExpression(QStringLiteral("/Type\\s*/Page(?!s)")));
    QVERIFY2(2 * pages <= static_cast<int>(result_->trace.steps().size()), qPrintable(QString::number(pages)));
    const QString all = pdfPageTexts(pdf).join(QString());
    QVERIFY(all.contains(squeezed(QStringLiteral("B 2 · S 6 · D 16, strides (96, 16, 1), contiguous"))));
    QVERIFY(all.contains(squeezed(QStringLiteral("— every head, sentence 0"))));
  }

  // blocks × sentences × heads × formats files, exactly those names, no temporary left.
  void exportAllWritesEveryHead() {
    QTemporaryDir dir;
    const QString out = dir.filePath(QStringLiteral("new/heatmaps"));
    ExportFormats f;
    f.png = f.svg = f.csv = true;
    f.pngScale = 1;
    int lastDone = -1, lastTotal = -1;
    QCOMPARE(exportAllHeatmaps(result_, out, f, [&](int d, int t) { lastDone = d, lastTotal = t; return true; }), QString());
    const int expected = 2 * 2 * 4 * 3;
    QCOMPARE(heatmapFileCount(result_->trace, f), expected);
    QCOMPARE(lastDone, expected);
    QCOMPARE(lastTotal, expected);
    QStringList names;
    for (const char* block : {"encoder.layers.0.self_attn", "encoder.layers.1.self_attn"})
      for (int b = 0; b < 2; ++b)
        for (int h = 0; h < 4; ++h)
          for (const char* ext : {"csv", "png", "svg"}) names << QStringLiteral("%1.b%2.head%3.%4").arg(QLatin1String(block)).arg(b).arg(h).arg(QLatin1String(ext));
    names.sort();
    QCOMPARE(filesIn(out), names);
    QVERIFY(!QImage(QDir(out).filePath(QStringLiteral("encoder.layers.1.self_attn.b1.head3.png"))).isNull());
  }

  void exportAllCancelLeavesNothing() {
    QTemporaryDir dir;
    ExportFormats f;
    f.png = f.svg = f.csv = true;
    const int total = heatmapFileCount(result_->trace, f);
    auto halfWay = [&](int done, int) { return done < total / 2; };
    const QString fresh = dir.filePath(QStringLiteral("fresh"));  // a folder it creates goes again
    QVERIFY(!exportAllHeatmaps(result_, fresh, f, halfWay).isEmpty());
    QVERIFY(!QFileInfo::exists(fresh));
    const QString kept = dir.filePath(QStringLiteral("kept"));  // an existing folder keeps only its own files
    QVERIFY(QDir().mkpath(kept));
    QFile mine(QDir(kept).filePath(QStringLiteral("notes.txt")));
    QVERIFY(mine.open(QIODevice::WriteOnly) && mine.write("mine") == 4);
    mine.close();
    QVERIFY(!exportAllHeatmaps(result_, kept, f, halfWay).isEmpty());
    QCOMPARE(filesIn(kept), QStringList{QStringLiteral("notes.txt")});
  }

  void unwritablePathsFailCleanly() {
    const HeatmapPicture pic = headPicture(result_->batch, result_->trace, steps_[0], 0, 0);
    const QString base = QStringLiteral("/proc/nonexistent/");
    const QStringList errors{savePng(base + QStringLiteral("x.png"), pic), saveSvg(base + QStringLiteral("x.svg"), pic),
                             saveCsv(base + QStringLiteral("x.csv"), result_->batch, result_->trace, steps_[0], 0, 0),
                             exportHandoutPdf(result_, base + QStringLiteral("x.pdf"))};
    for (const QString& e : errors) {
      QVERIFY2(e.contains(base), qPrintable(e));  // names the file
      QVERIFY2(e.startsWith(QStringLiteral("Cannot write")), qPrintable(e));
    }
    for (const char* n : {"x.png", "x.svg", "x.csv", "x.pdf"}) QVERIFY(!QFileInfo::exists(base + QLatin1String(n)));
    const QString all = exportAllHeatmaps(result_, base + QStringLiteral("dir"), ExportFormats{});
    QVERIFY2(all.contains(base + QStringLiteral("dir")), qPrintable(all));
    QVERIFY(!QFileInfo::exists(base + QStringLiteral("dir")));
    QTemporaryDir dir;  // a file where a folder should be
    QFile file(dir.filePath(QStringLiteral("plain")));
    QVERIFY(file.open(QIODevice::WriteOnly));
    file.close();
    QVERIFY(ExportDialog::folderProblem(file.fileName()).contains(QStringLiteral("not a folder")));
    QVERIFY(ExportDialog::folderProblem(QString()).contains(QStringLiteral("Choose a folder")));
    QCOMPARE(ExportDialog::folderProblem(dir.filePath(QStringLiteral("new/sub"))), QString());
  }

  void bundleFromTheGui() {
    QTemporaryDir dir;
    const QString out = dir.filePath(QStringLiteral("bundle"));
    ExportFormats f;
    f.png = f.svg = f.csv = true;
    QCOMPARE(exportBundle(result_, out, f), QString());
    for (const char* n : {"manifest.json", "weights.safetensors", "trace.npz"}) QVERIFY(QFileInfo::exists(QDir(out).filePath(QLatin1String(n))));
    QCOMPARE(filesIn(QDir(out).filePath(QStringLiteral("heatmaps"))).size(), 2 * 2 * 4 * 3);
    QCOMPARE(filesIn(dir.path()), QStringList{QStringLiteral("bundle")});  // no temporary sibling
    const QString again = exportBundle(result_, out, f);  // not empty: refused unless replacing
    QVERIFY2(again.contains(QStringLiteral("not empty")), qPrintable(again));
    QCOMPARE(exportBundle(result_, out, f, true), QString());
  }

  // A tiled run (overview heatmaps, no score tensors) exports too: the bundle and the handout
  // hold its steps, the overview among them; there are no full weights to draw per head.
  void tiledRunExports() {
    const auto tiled = test::makeResult({"the cat sat on the mat", "a dog ran"}, 2, MaskKind::Padding, {}, 4);
    QVERIFY(tiled->trace.find("encoder.layers.0.self_attn.weights_overview"));
    QVERIFY(!tiled->trace.find("encoder.layers.0.self_attn.weights"));
    QTemporaryDir dir;
    ExportFormats f;
    f.png = f.csv = true;
    const QString out = dir.filePath(QStringLiteral("bundle"));
    QCOMPARE(exportBundle(tiled, out, f), QString());
    const QByteArray manifest = readAll(QDir(out).filePath(QStringLiteral("manifest.json")));
    QVERIFY(manifest.contains("weights_overview"));
    const QString pdf = dir.filePath(QStringLiteral("tiled.pdf"));
    QCOMPARE(exportHandoutPdf(tiled, pdf), QString());
    QVERIFY(readAll(pdf).startsWith("%PDF"));
  }

  void colourSchemes() {
    ColorMap seq;
    QCOMPARE(colorScheme(), ColorScheme::Viridis);
    QCOMPARE(seq.color(0).name(), QStringLiteral("#440154"));
    setColorScheme(ColorScheme::Cividis);
    QCOMPARE(seq.color(0).name(), QStringLiteral("#00224e"));
    QCOMPARE(seq.color(1).name(), QStringLiteral("#fee838"));
    ColorMap div;
    div.kind = ColorMapKind::Diverging;
    div.lo = -1;
    // Diverging maps follow the scheme: Cividis's is blue–orange, which every simulated colour-
    // vision deficiency separates better than Viridis's blue–red.
    QCOMPARE(div.color(0).name(), QStringLiteral("#f7f7f7"));
    QCOMPARE(div.color(-1).name(), QStringLiteral("#2166ac"));
    QCOMPARE(div.color(1).name(), QStringLiteral("#b35806"));
    const double safe = worstSeparation(div);
    setColorScheme(ColorScheme::Viridis);
    QCOMPARE(div.color(1).name(), QStringLiteral("#b2182b"));
    const double usual = worstSeparation(div);
    qInfo("diverging ends, worst ΔE over protan/deutan/tritan: blue-red %.1f, blue-orange %.1f", usual, safe);
    QVERIFY2(safe >= 50 && safe > usual + 10, qPrintable(QString("%1 vs %2").arg(safe).arg(usual)));
    setColorScheme(ColorScheme::Cividis);
    const HeatmapPicture pic = headPicture(result_->batch, result_->trace, steps_[0], 0, 0);
    const QImage img = renderImage(pic, 1);
    const HeatmapLayout g = HeatmapRenderer::layout(pic, HeatmapRenderer::naturalSize(pic), {});
    QCOMPARE(QColor(img.pixel(g.cellRect(1, 1).center().toPoint())), pic.map.color(pic.value(1, 1)));
    img.save(shot(QStringLiteral("export_cividis.png")));
    setColorScheme(ColorScheme::Grayscale);
    QCOMPARE(seq.color(0).name(), QStringLiteral("#ffffff"));
    for (int i = 0; i < 8; ++i)  // printed, the sign is the lightness: darker is more negative
      QVERIFY(test::lightness(div.color(-1 + i / 4.0)) + 5 < test::lightness(div.color(-1 + (i + 1) / 4.0)));
    renderImage(pic, 1).save(shot(QStringLiteral("export_grayscale.png")));
    setColorScheme(ColorScheme::Viridis);
    QCOMPARE(seq.color(1).name(), QStringLiteral("#fde725"));
    QVERIFY(!colorSchemeName(ColorScheme::Cividis).isEmpty());
  }

  void dialogExportsOnAWorker() {
    QTemporaryDir dir;
    ExportDialog dlg(result_);
    dlg.setFolder(dir.filePath(QStringLiteral("out")));
    ExportFormats f;
    f.png = f.csv = true;
    f.svg = false;
    f.pngScale = 1;
    dlg.setFormats(f);
    QSignalSpy finished(&dlg, &ExportDialog::exportFinished), progressed(&dlg, &ExportDialog::progressed);
    dlg.show();
    dlg.startExport();
    QTRY_COMPARE_WITH_TIMEOUT(finished.count(), 1, 60000);
    QVERIFY2(finished[0][0].toBool(), qPrintable(finished[0][1].toString()));
    QVERIFY(progressed.count() > 1);
    QCOMPARE(filesIn(dir.filePath(QStringLiteral("out"))).size(), 2 * 2 * 4 * 2);
    QVERIFY(dlg.message().startsWith(QStringLiteral("Done")));
    QImage img(dlg.size(), QImage::Format_ARGB32);
    dlg.render(&img);
    img.save(shot(QStringLiteral("export_dialog.png")));
  }

  void dialogCancel() {
    QTemporaryDir dir;
    ExportDialog dlg(result_);
    const QString out = dir.filePath(QStringLiteral("out"));
    dlg.setFolder(out);
    ExportFormats f;
    f.png = f.svg = f.csv = true;
    f.pngScale = 4;
    dlg.setFormats(f);
    QSignalSpy finished(&dlg, &ExportDialog::exportFinished);
    dlg.startExport();
    QVERIFY(dlg.isRunning());
    dlg.cancelExport();
    QTRY_COMPARE_WITH_TIMEOUT(finished.count(), 1, 60000);
    QVERIFY(!finished[0][0].toBool());
    QVERIFY(finished[0][1].toString().contains(QStringLiteral("cancelled")));
    QVERIFY(!QFileInfo::exists(out));
    QVERIFY(!dlg.isRunning());
  }

  void dialogUnwritableFolder() {
    ExportDialog dlg(result_);
    dlg.setFolder(QStringLiteral("/proc/nonexistent/heatmaps"));
    QSignalSpy finished(&dlg, &ExportDialog::exportFinished);
    dlg.startExport();
    QTRY_COMPARE_WITH_TIMEOUT(finished.count(), 1, 30000);
    QVERIFY(!finished[0][0].toBool());
    QVERIFY2(finished[0][1].toString().contains(QStringLiteral("/proc/nonexistent")), qPrintable(finished[0][1].toString()));
    QCOMPARE(dlg.message(), finished[0][1].toString());
  }

  // A NaN row (every key masked) and −∞ cells: magenta with "NaN", grey with the hatch, both in the key.
  void nanAndMaskedMarks() {
    HeatmapPicture pic = bigPicture(5);
    for (int c = 0; c < 5; ++c) pic.values[size_t(2 * 5 + c)] = NAN;
    const QImage img = renderImage(pic, 2);
    const HeatmapLayout g = HeatmapRenderer::layout(pic, HeatmapRenderer::naturalSize(pic, {}), {});
    QVERIFY(g.marks);
    int magenta = 0, dark = 0;
    const QRect nanCell = QRectF(g.cellRect(2, 0).topLeft() * 2, g.cellRect(2, 0).bottomRight() * 2).toRect();
    for (int y = nanCell.top() + 1; y < nanCell.bottom(); ++y)
      for (int x = nanCell.left() + 1; x < nanCell.right(); ++x) {
        magenta += img.pixel(x, y) == ColorMap::nanColor().rgb();
        dark += qGray(img.pixel(x, y)) < 60;  // the "NaN" text
      }
    QVERIFY(magenta > nanCell.width() * nanCell.height() / 2);
    QVERIFY(dark > 10);
    int legendMagenta = 0;  // the NaN swatch in the key, right of the cells
    for (int y = 0; y < img.height(); ++y)
      for (int x = qRound(g.legend.left() * 2); x < img.width(); ++x) legendMagenta += img.pixel(x, y) == ColorMap::nanColor().rgb();
    QVERIFY(legendMagenta > 20);
    img.save(shot(QStringLiteral("export_nan_masked.png")));
    renderImage(bigPicture(64), 1).save(shot(QStringLiteral("export_64_natural.png")));
  }

  // 4096 × 4096 into 1200 × 1200: one downsampled image, the note, a picture that is not blank.
  void largeMatrixRendersDownsampled() {
    const HeatmapPicture pic = bigPicture(4096);
    QElapsedTimer timer;
    timer.start();
    const QImage img = renderImage(pic, 1, QSize(1200, 1200));
    const qint64 ms = timer.elapsed();
    qInfo("4096x4096 heatmap -> 1200x1200 PNG image: %lld ms", ms);
    QCOMPARE(img.size(), QSize(1200, 1200));
    const HeatmapLayout g = HeatmapRenderer::layout(pic, QSizeF(1200, 1200), {});
    QVERIFY(g.downsampled);
    QVERIFY(g.note.contains(QStringLiteral("4096×4096")));
    QVERIFY(g.rowStep > 1 && g.colStep > 1);  // labels thinned
    QVERIFY(distinctColours(img) > 20);
    int grey = 0, hatch = 0;  // above the diagonal: masked grey, hatched pixel by pixel
    for (int d = 2; d < 40; ++d) {
      const QRgb px = img.pixel(g.plot.topRight().toPoint() + QPoint(-d, 3));
      grey += px == ColorMap::maskedColor().rgb();
      hatch += px == qRgb(0x4a, 0x4a, 0x4a);
    }
    QVERIFY(grey > 20 && hatch > 3);
    img.save(shot(QStringLiteral("export_4096_to_1200.png")));
  }

 private:
  TraceResultPtr result_;
  std::vector<int> steps_;
};

QTEST_MAIN(TestExport)
#include "test_export.moc"
