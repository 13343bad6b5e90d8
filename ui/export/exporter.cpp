#include "export/exporter.h"
#include "export/exportio.h"

#include <QApplication>
#include <QClipboard>
#include <QCoreApplication>
#include <QDir>
#include <QFontDatabase>
#include <QGuiApplication>
#include <QPainter>
#include <QPalette>
#include <QPdfWriter>
#include <QSaveFile>
#include <QSvgGenerator>
#include <QThread>

#include <algorithm>
#include <cmath>
#include <filesystem>
#include <optional>

#include "io/bundle.h"
#include "io/files.h"
#include "model/weights.h"
#include "step/shapediagram.h"
#include "text/errors.h"
#include "words/coretext.h"
#include "words/stepnames.h"
#include "words/steptext.h"

namespace attnlab::ui {

namespace {
namespace fs = std::filesystem;
fs::path fsPath(const QString& p) { return fs::path(QFile::encodeName(p).toStdString()); }
}  // namespace

namespace exportio {

QString cannotWrite(const QString& path, const QString& why) {
  return Exporter::tr("Cannot write “%1”: %2").arg(QDir::toNativeSeparators(path), why);
}
QString cancelled() { return Exporter::tr("Export cancelled: no files were written."); }
QString noTrace() { return Exporter::tr("Nothing to export yet: the forward pass has not finished."); }

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

}  // namespace exportio

using namespace exportio;

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
    opt.prepend_bos = result->prependBos;  // the manifest says what the window's run did
    if (!result->ablated.empty()) opt.ablation_json = ablation_json(result->ablated, result->ablateMode);
    if (formats.png || formats.svg)
      opt.extra = [&](const std::string& tmp) {
        const QString err = writeHeatmapImages(result->batch, result->trace, QFile::decodeName(tmp.c_str()), formats.png,
                                               formats.svg, formats.pngScale);
        if (!err.isEmpty()) throw DataError(verbatim(err.toStdString()));  // already in the window's words
      };
    const RunInfo run{result->backend.toStdString(), result->device.toStdString(), result->forward_ms,
                      result->note.toStdString()};
    // The forward's steps under "steps", the backward's apart (docs/cli.md, "Gradients").
    Trace forward;
    const auto& steps = result->trace.steps();
    const size_t split = result->gradients ? static_cast<size_t>(result->gradients->firstStep) : steps.size();
    for (size_t i = 0; i < split; ++i) forward.record(steps[i].info, steps[i].tensor);
    if (const auto& g = result->gradients) {
      auto back = std::make_shared<BackwardResult>();
      back->kind = g->kind;
      back->loss = g->loss;
      back->output = g->output;
      for (size_t i = split; i < steps.size(); ++i) back->steps.record(steps[i].info, steps[i].tensor);
      opt.backward = std::move(back);
      opt.backward_ms = g->backward_ms;
    }
    // The run's own weights (a trained model's vocabulary and head included), so that the bundle's
    // reproduce.py recomputes the very numbers on show.
    write_bundle(opt, result->cfg, result->batch, result->weights.names().empty() ? init_weights(result->cfg) : result->weights,
                 forward, run);
  } catch (const std::exception& e) {
    return Exporter::tr("Could not export the bundle to “%1”: %2")
        .arg(QDir::toNativeSeparators(folder), CoreText::of(e));
  }
  return {};
}

}  // namespace attnlab::ui
