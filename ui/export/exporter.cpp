#include "export/exporter.h"

#include <QClipboard>
#include <QCoreApplication>
#include <QDir>
#include <QFontDatabase>
#include <QGuiApplication>
#include <QPainter>
#include <QPdfWriter>
#include <QSaveFile>
#include <QSvgGenerator>
#include <QThread>

#include <cmath>
#include <filesystem>
#include <optional>

#include "io/bundle.h"
#include "io/files.h"
#include "model/weights.h"
#include "text/errors.h"
#include "words/coretext.h"
#include "words/stepnames.h"
#include "words/steptext.h"

namespace attnlab::ui {

namespace {

namespace fs = std::filesystem;

struct Exporter {
  Q_DECLARE_TR_FUNCTIONS(Exporter)
};

QString cannotWrite(const QString& path, const QString& why) {
  return Exporter::tr("Cannot write “%1”: %2").arg(QDir::toNativeSeparators(path), why);
}
QString cancelled() { return Exporter::tr("Export cancelled: no files were written."); }
QString noTrace() { return Exporter::tr("Nothing to export yet: the forward pass has not finished."); }
fs::path fsPath(const QString& p) { return fs::path(QFile::encodeName(p).toStdString()); }

// Writes bytes through a QSaveFile (a temporary file beside path, renamed by commit()).
QString writeAtomically(const QString& path, const std::function<bool(QSaveFile&)>& write) {
  QSaveFile file(path);
  if (!file.open(QIODevice::WriteOnly)) return cannotWrite(path, file.errorString());
  if (!write(file)) {
    const QString why = file.errorString();
    file.cancelWriting();
    return cannotWrite(path, why.isEmpty() || why == QLatin1String("Unknown error") ? Exporter::tr("the picture could not be encoded") : why);
  }
  if (!file.commit()) return cannotWrite(path, file.errorString());
  return {};
}

}  // namespace

QImage renderImage(const HeatmapPicture& pic, double scale, QSize size) {
  RenderOptions opt;
  opt.deviceScale = scale;
  if (size.isEmpty()) size = HeatmapRenderer::naturalSize(pic, opt);
  QImage img(qRound(size.width() * scale), qRound(size.height() * scale), QImage::Format_RGB32);
  if (img.isNull()) return img;
  img.setDotsPerMeterX(qRound(96 * scale / 0.0254));
  img.setDotsPerMeterY(qRound(96 * scale / 0.0254));
  img.fill(Qt::white);
  QPainter p(&img);
  p.setRenderHints(QPainter::Antialiasing | QPainter::TextAntialiasing);
  p.scale(scale, scale);
  HeatmapRenderer::paint(p, pic, size, opt);
  return img;
}

QString savePng(const QString& path, const HeatmapPicture& pic, double scale, QSize size) {
  if (!(scale > 0 && scale <= 16)) return cannotWrite(path, Exporter::tr("the scale must be between 0 and 16"));
  const QImage img = renderImage(pic, scale, size);
  if (img.isNull()) return cannotWrite(path, Exporter::tr("the picture is too large for memory"));
  return writeAtomically(path, [&](QSaveFile& f) { return img.save(&f, "PNG"); });
}

QString saveSvg(const QString& path, const HeatmapPicture& pic, QSize size) {
  RenderOptions opt;
  opt.vectorCells = true;
  if (size.isEmpty()) size = HeatmapRenderer::naturalSize(pic, opt);
  return writeAtomically(path, [&](QSaveFile& f) {
    QSvgGenerator svg;
    svg.setOutputDevice(&f);
    svg.setSize(size);
    svg.setViewBox(QRect(QPoint(0, 0), size));
    svg.setResolution(96);
    svg.setTitle(pic.title);
    svg.setDescription(Exporter::tr("Attention heatmap exported by Attention Lab"));
    QPainter p;
    if (!p.begin(&svg)) return false;
    HeatmapRenderer::paint(p, pic, size, opt);
    return p.end() && f.error() == QFileDevice::NoError;
  });
}

QString saveCsv(const QString& path, const Batch& batch, const Trace& trace, int stepIndex, int b, int h) {
  const Step& s = trace.steps().at(static_cast<size_t>(stepIndex));
  if (s.tensor.dim() != 4 || b < 0 || b >= s.tensor.size(0) || h < 0 || h >= s.tensor.size(1))
    return cannotWrite(path, Exporter::tr("step %1 has no head %2 for sentence %3").arg(QString::fromStdString(s.info.id)).arg(h).arg(b));
  const HeatmapPicture pic = headPicture(batch, trace, stepIndex, b, h);  // its tokens (or numbers)
  const std::string csv = heatmap_csv(s.tensor, b, h, pic.rowLabels, pic.colLabels);
  return writeAtomically(path, [&](QSaveFile& f) { return f.write(csv.data(), static_cast<qint64>(csv.size())) == static_cast<qint64>(csv.size()); });
}

QString copyImageToClipboard(const HeatmapPicture& pic, double scale) {
  auto* app = qobject_cast<QGuiApplication*>(QCoreApplication::instance());
  if (!app || QThread::currentThread() != app->thread() || !QGuiApplication::clipboard())
    return Exporter::tr("The clipboard is only available from the window.");
  const QImage img = renderImage(pic, scale);
  if (img.isNull()) return Exporter::tr("The picture is too large to copy.");
  QGuiApplication::clipboard()->setImage(img);
  return {};
}

int heatmapFileCount(const Trace& trace, const ExportFormats& formats) {
  int n = 0;
  for (int i : attentionWeightSteps(trace)) {
    const Tensor& t = trace.steps()[static_cast<size_t>(i)].tensor;
    n += static_cast<int>(t.size(0) * t.size(1));
  }
  return n * formats.imageCount();
}

// Every head of every attention-weights step in the formats asked for, named by heatmapFileBase,
// into dir; progress after each file, the names written appended to `written`.
namespace {
QString forEachHead(const Batch& batch, const Trace& trace, const ExportFormats& f, const QString& dir,
                    const ExportProgress& progress, int total, QStringList* written) {
  int done = 0;
  if (progress && !progress(0, total)) return cancelled();
  for (int idx : attentionWeightSteps(trace)) {
    const Step& s = trace.steps()[static_cast<size_t>(idx)];
    for (int b = 0; b < s.tensor.size(0); ++b)
      for (int h = 0; h < s.tensor.size(1); ++h) {
        const QString base = QString::fromStdString(heatmapFileBase(s.info.id, b, h));
        const HeatmapPicture pic = (f.png || f.svg) ? headPicture(batch, trace, idx, b, h) : HeatmapPicture{};
        for (const char* ext : {"png", "svg", "csv"}) {
          const QString name = base + QLatin1Char('.') + QLatin1String(ext), path = QDir(dir).filePath(name);
          QString err;
          if (ext[0] == 'p' && f.png) err = savePng(path, pic, f.pngScale);
          else if (ext[0] == 's' && f.svg) err = saveSvg(path, pic);
          else if (ext[0] == 'c' && f.csv) err = saveCsv(path, batch, trace, idx, b, h);
          else continue;
          if (!err.isEmpty()) return err;
          if (written) written->append(name);
          if (progress && !progress(++done, total)) return cancelled();
        }
      }
  }
  return {};
}
}  // namespace

QString writeHeatmapImages(const Batch& batch, const Trace& trace, const QString& dir, bool png, bool svg,
                           double pngScale, const ExportProgress& progress) {
  const QString folder = QDir(dir).filePath(QStringLiteral("heatmaps"));
  if (!QDir().mkpath(folder)) return cannotWrite(folder, Exporter::tr("the folder cannot be created"));
  ExportFormats f;
  f.png = png;
  f.svg = svg;
  f.pngScale = pngScale;
  return forEachHead(batch, trace, f, folder, progress, heatmapFileCount(trace, f), nullptr);
}

QString exportAllHeatmaps(TraceResultPtr result, const QString& folder, const ExportFormats& formats,
                          const ExportProgress& progress) {
  if (!result) return noTrace();
  if (formats.imageCount() == 0) return Exporter::tr("Choose at least one format: PNG, SVG or CSV.");
  if (folder.isEmpty()) return Exporter::tr("Choose a folder to export into.");
  const bool existed = QFileInfo(folder).isDir();
  if (!existed && !QDir().mkpath(folder))
    return Exporter::tr("Cannot create the folder “%1”: its parent is missing or cannot be written to.")
        .arg(QDir::toNativeSeparators(folder));
  auto dropFolder = [&] { if (!existed) QDir().rmdir(folder); };
  // The files are written into a temporary folder of ours inside `folder` (core's TempDir: swept
  // if this process is killed, removed on a signal), then moved beside the user's files without
  // ever replacing one.
  const fs::path dir = fsPath(folder);
  sweep_dead_temporaries(dir);
  std::optional<TempDir> tmp;
  try {
    tmp.emplace(dir / "attnlab-heatmaps", ".tmp-");
  } catch (const std::exception& e) {
    dropFolder();
    return Exporter::tr("Cannot write into the folder “%1”: %2")
        .arg(QDir::toNativeSeparators(folder), CoreText::of(e));
  }
  const QString tmpPath = QFile::decodeName(tmp->path().c_str());
  QStringList written;
  const QString err = forEachHead(result->batch, result->trace, formats, tmpPath, progress,
                                  heatmapFileCount(result->trace, formats), &written);
  if (!err.isEmpty()) {
    tmp.reset();
    dropFolder();
    return err;
  }
  QStringList clashes;  // the user's files of the same names stay as they are: nothing is written
  for (const QString& name : written)
    if (QFileInfo::exists(QDir(folder).filePath(name))) clashes << name;
  if (!clashes.isEmpty()) {
    tmp.reset();
    return Exporter::tr("The folder “%1” already holds %n file(s) of the names this export writes (such as “%2”); "
                        "nothing was replaced. Choose an empty or new folder.", nullptr, static_cast<int>(clashes.size()))
        .arg(QDir::toNativeSeparators(folder), clashes.first());
  }
  for (qsizetype i = 0; i < written.size(); ++i) {  // into place; on a failure, take back what moved
    QString why;
    try {
      move_file_into_place(fsPath(QDir(tmpPath).filePath(written[i])), fsPath(QDir(folder).filePath(written[i])));
      continue;
    } catch (const std::exception& e) {
      why = CoreText::of(e);
    }
    for (qsizetype j = 0; j < i; ++j) QFile::remove(QDir(folder).filePath(written[j]));  // ours: none replaced
    tmp.reset();
    dropFolder();
    return cannotWrite(QDir(folder).filePath(written[i]), why);
  }
  return {};
}

// ---- the handout ----------------------------------------------------------------------------

namespace {

const QColor kInk(0x1e, 0x1e, 0x1e), kGrey(0x66, 0x66, 0x66);

QFont handoutFont(int px, bool bold = false, bool mono = false) {
  QFont f = mono ? QFontDatabase::systemFont(QFontDatabase::FixedFont) : HeatmapRenderer::font({});
  f.setPixelSize(px);
  f.setBold(bold);
  f.setHintingPreference(QFont::PreferNoHinting);
  return f;
}

// A page cursor: A4 inside the margins, 96 units per inch, text flowing down, a new page when full.
struct Handout {
  QPdfWriter& pdf;
  QPainter& p;
  QSizeF page;
  double y = 0;
  void reset() {
    const double k = pdf.resolution() / 96.0;
    p.resetTransform();
    p.scale(k, k);
    page = QSizeF(pdf.width() / k, pdf.height() / k);
    y = 0;
  }
  void newPage() {
    pdf.newPage();
    reset();
  }
  void text(const QString& s, const QFont& f, const QColor& c = kInk, double after = 6, bool code = false) {
    const int flags = (code ? Qt::TextWrapAnywhere : Qt::TextWordWrap) | Qt::AlignLeft | Qt::AlignTop;
    const double inset = code ? 6 : 0, w = page.width() - 2 * inset;
    const QRectF need = QFontMetricsF(f).boundingRect(QRectF(0, 0, w, 1e6), flags, s);
    if (y > 0 && y + need.height() + 2 * inset > page.height()) newPage();
    if (code) p.fillRect(QRectF(0, y, page.width(), need.height() + 2 * inset), QColor(0xf1, 0xf1, 0xf1));
    p.setFont(f);
    p.setPen(c);
    p.drawText(QRectF(inset, y + inset, w, need.height() + 2), flags, s);
    y += need.height() + 2 * inset + after;
  }
  void label(const QString& s) { text(s, handoutFont(11, true), kGrey, 2); }
};

QString joined(const std::vector<std::string>& tokens) {
  QStringList out;
  for (const auto& t : tokens) out << QString::fromStdString(t);
  return out.join(QStringLiteral(" · "));
}

// "B 2 · H 8 · S 7 · Dh 8, strides (448, 56, 8, 1), contiguous"
QString shapeLine(const std::string& id, const Tensor& t) {
  const QStringList names = StepNames::axisNames(id, static_cast<int>(t.dim()));
  QStringList axes;
  for (int d = 0; d < t.dim(); ++d) axes << QStringLiteral("%1 %2").arg(d < names.size() ? names[d] : QString()).arg(t.size(d));
  return Exporter::tr("%1, strides %2, %3")
      .arg(axes.join(QStringLiteral(" · ")), QString::fromStdString(shape_str(t.strides())),
           t.is_contiguous() ? Exporter::tr("contiguous") : Exporter::tr("not contiguous"));
}

void coverPage(Handout& h, const TraceResult& r) {
  const ModelConfig& c = r.cfg;
  h.text(Exporter::tr("Attention Lab — the forward pass, step by step"), handoutFont(24, true), kInk, 12);
  h.label(Exporter::tr("Model"));
  h.text(Exporter::tr("d_model %1 · %2 heads (d_head %3) · d_ff %4 · %5 layer(s) · mask %6 · %7-norm · %8 · positions %9 · eps %10 · seed %11%12")
             .arg(c.d_model).arg(c.heads).arg(c.d_head()).arg(c.d_ff).arg(c.layers)
             .arg(QString::fromStdString(std::string(mask_name(c.mask))), QString::fromStdString(std::string(norm_name(c.norm))),
                  QString::fromStdString(std::string(activation_name(c.activation))),
                  QString::fromStdString(std::string(positional_name(c.positional))), QString::number(c.eps))
             .arg(c.seed)
             .arg(c.cross ? Exporter::tr(" · encoder–decoder with cross-attention") : QString()),
         handoutFont(13));
  const QString where = r.device.isEmpty() ? r.backend : Exporter::tr("%1 (%2)").arg(r.backend, r.device);
  h.text(Exporter::tr("Computed on %1 in %2 ms.").arg(where).arg(r.forward_ms, 0, 'f', 1), handoutFont(12), kGrey, 12);
  h.label(c.cross ? Exporter::tr("Decoder sentences (tokens)") : Exporter::tr("Sentences (tokens)"));
  for (size_t b = 0; b < r.batch.text.tokens.size(); ++b)
    h.text(Exporter::tr("%1. %2").arg(b).arg(joined(r.batch.text.tokens[b])), handoutFont(13));  // sentence b, from 0
  if (r.batch.cross()) {
    h.label(Exporter::tr("Encoder (source) sentences"));
    for (size_t b = 0; b < r.batch.memory.tokens.size(); ++b)
      h.text(Exporter::tr("%1. %2").arg(b).arg(joined(r.batch.memory.tokens[b])), handoutFont(13));
  }
  h.y += 8;
  h.label(Exporter::tr("How to read it"));
  h.text(Exporter::tr("One page per step: where it sits, what it computes (formula and the PyTorch line that recomputes it), "
                      "what changed, and the shapes and strides of its tensor and inputs. After each softmax come every head's "
                      "weights for sentence 0: rows are queries, columns keys; masked keys are grey and hatched, NaN is magenta."),
         handoutFont(12));
}

void stepPage(Handout& h, const TraceResult& r, int i, int n) {
  const Step& s = r.trace.steps()[static_cast<size_t>(i)];
  h.text(Exporter::tr("Step %1 of %2 · %3").arg(i + 1).arg(n).arg(StepNames::location(r.trace, i)), handoutFont(11), kGrey, 2);
  h.text(StepText::title(s.info), handoutFont(20, true), kInk, 2);
  h.text(QString::fromStdString(s.info.id), handoutFont(11, false, true), kGrey, 10);
  if (!s.info.formula.empty()) {
    h.label(Exporter::tr("Formula"));
    h.text(StepText::formula(s.info), handoutFont(16), kInk, 10);
  }
  h.label(Exporter::tr("PyTorch"));
  h.text(QString::fromStdString(s.info.code), handoutFont(12, false, true), kInk, 10, true);
  h.label(Exporter::tr("What changed"));
  h.text(StepNames::whatChanged(r.trace, i), handoutFont(13), kInk, 10);
  h.label(Exporter::tr("Shape"));
  h.text(shapeLine(s.info.id, s.tensor), handoutFont(13), kInk, 10);
  if (s.info.bindings.empty()) return;
  h.label(Exporter::tr("Inputs"));
  for (const auto& b : s.info.bindings) {
    const Step* in = b.weight ? nullptr : r.trace.find(b.source);
    const QString what = in ? shapeLine(b.source, in->tensor) : Exporter::tr("weight");
    h.text(Exporter::tr("%1 = %2 — %3").arg(QString::fromStdString(b.var), QString::fromStdString(b.source), what), handoutFont(12));
  }
}

// Every head of sentence 0 (the first) on one page, one shared colour key on the right.
void headsPage(Handout& h, const TraceResult& r, int idx) {
  const Step& s = r.trace.steps()[static_cast<size_t>(idx)];
  const int heads = static_cast<int>(s.tensor.size(1));
  h.text(Exporter::tr("%1 — every head, sentence 0").arg(StepText::title(s.info)), handoutFont(18, true), kInk, 2);
  h.text(QString::fromStdString(heatmapFileBase(s.info.id, 0, 0)).section(QLatin1Char('.'), 0, -3), handoutFont(11, false, true), kGrey, 8);
  RenderOptions opt;
  opt.vectorCells = true;
  opt.legend = false;
  opt.deviceScale = h.pdf.resolution() / 96.0;
  opt.fontPx = heads <= 4 ? 11 : 9;
  std::vector<HeatmapPicture> pics;
  bool masked = false, nan = false;
  for (int k = 0; k < heads; ++k) {
    pics.push_back(headPicture(r.batch, r.trace, idx, 0, k));
    pics.back().title = Exporter::tr("Head %1").arg(k);
    for (int i = 0; i < pics.back().rows; ++i)
      for (int j = 0; j < pics.back().cols; ++j) {
        const bool isNan = std::isnan(pics.back().value(i, j));
        nan = nan || isNan;
        masked = masked || (!isNan && pics.back().isMasked(i, j));
      }
  }
  const QFont f = HeatmapRenderer::font(opt);
  const double legendW = HeatmapRenderer::legendWidth(pics[0].map, pics[0].legendTitle, true, true, f) + 12;
  const int cols = static_cast<int>(std::ceil(std::sqrt(static_cast<double>(heads)))), rows = (heads + cols - 1) / cols;
  const double cw = (h.page.width() - legendW) / cols, ch = std::min((h.page.height() - h.y) / rows, cw * 1.1);
  for (int k = 0; k < heads; ++k) {
    h.p.save();
    h.p.translate((k % cols) * cw, h.y + (k / cols) * ch);
    HeatmapRenderer::paint(h.p, pics[static_cast<size_t>(k)], QSizeF(cw, ch), opt);
    h.p.restore();
  }
  HeatmapRenderer::paintLegend(h.p, QPointF(h.page.width() - legendW + 12, h.y + 8), std::min(200.0, ch * rows * 0.6),
                               pics[0].map, pics[0].legendTitle, masked, nan, f);
}

}  // namespace

QString exportHandoutPdf(TraceResultPtr result, const QString& path, const ExportProgress& progress) {
  if (!result) return noTrace();
  bool stop = false;
  const QString err = writeAtomically(path, [&](QSaveFile& file) {
    QPdfWriter pdf(&file);
    pdf.setPageSize(QPageSize(QPageSize::A4));
    pdf.setPageMargins(QMarginsF(15, 15, 15, 15), QPageLayout::Millimeter);
    pdf.setResolution(300);
    pdf.setTitle(Exporter::tr("Attention Lab handout"));
    pdf.setCreator(QStringLiteral("Attention Lab"));
    QPainter p;
    if (!p.begin(&pdf)) return false;
    p.setRenderHints(QPainter::Antialiasing | QPainter::TextAntialiasing);
    Handout h{pdf, p, {}};
    h.reset();
    coverPage(h, *result);
    const int n = static_cast<int>(result->trace.steps().size());
    for (int i = 0; i < n && !stop; ++i) {
      h.newPage();
      stepPage(h, *result, i, n);
      const Step& s = result->trace.steps()[static_cast<size_t>(i)];
      if (s.info.id.ends_with(".weights") && s.tensor.dim() == 4 && s.tensor.size(0) > 0 && s.tensor.size(1) > 0) {
        h.y < h.page.height() * 0.45 ? void(h.y += 18) : h.newPage();  // the heads below the text, or overleaf
        headsPage(h, *result, i);
      }
      stop = progress && !progress(i + 1, n);
    }
    return p.end() && !stop;
  });
  return stop ? cancelled() : err;
}

QString exportBundle(TraceResultPtr result, const QString& folder, const ExportFormats& formats, bool replace) {
  if (!result) return noTrace();
  if (folder.isEmpty()) return Exporter::tr("Choose a folder to export into.");
  const QFileInfo info(folder);
  if (info.exists() && !info.isDir())
    return Exporter::tr("“%1” is a file, not a folder.").arg(QDir::toNativeSeparators(folder));
  if (info.isDir() && !replace && !QDir(folder).isEmpty(QDir::AllEntries | QDir::NoDotAndDotDot | QDir::Hidden | QDir::System))
    return Exporter::tr("The folder “%1” is not empty: choose a new or empty folder, or allow replacing it.")
        .arg(QDir::toNativeSeparators(folder));
  try {
    ExportOptions opt;
    opt.out_dir = QFile::encodeName(folder).toStdString();
    opt.force = replace;
    opt.npz = formats.npz;
    opt.csv = formats.csv;
    if (formats.png || formats.svg)
      opt.extra = [&](const std::string& tmp) {
        const QString err = writeHeatmapImages(result->batch, result->trace, QFile::decodeName(tmp.c_str()), formats.png,
                                               formats.svg, formats.pngScale);
        if (!err.isEmpty()) throw DataError(verbatim(err.toStdString()));  // already in the window's words
      };
    const RunInfo run{result->backend.toStdString(), result->device.toStdString(), result->forward_ms,
                      result->note.toStdString()};
    // The run's own weights (a trained model's vocabulary and head included), so that the bundle's
    // reproduce.py recomputes the very numbers on show.
    write_bundle(opt, result->cfg, result->batch, result->weights.names().empty() ? init_weights(result->cfg) : result->weights,
                 result->trace, run);
  } catch (const std::exception& e) {
    return Exporter::tr("Could not export the bundle to “%1”: %2")
        .arg(QDir::toNativeSeparators(folder), CoreText::of(e));
  }
  return {};
}

}  // namespace attnlab::ui
