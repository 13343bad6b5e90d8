// MainWindow's File ▸ Export and View ▸ Colours: the GUI side of ui/export/exporter.h.
#include <QActionGroup>
#include <QApplication>
#include <QDir>
#include <QFileDialog>
#include <QInputDialog>
#include <QScrollArea>
#include <QStackedWidget>
#include <QTabWidget>
#include <QLabel>
#include <QMenu>
#include <QMessageBox>
#include <QProgressDialog>
#include <QSaveFile>
#include <QSettings>

#include "export/exportdialog.h"
#include "export/exporter.h"
#include "export/widgetexport.h"
#include "forward/attention.h"
#include "io/bundle.h"
#include "variants/variant_table.h"
#include "step/stepnavigator.h"
#include "step/steppanel.h"
#include "views/gradnormchart.h"
#include "views/colormap.h"
#include "views/heatmapgrid.h"
#include "window/mainwindow.h"
#include "window/dialogfolders.h"

namespace attnlab::ui {

namespace {

// `base` inside `folder`, or base-2, base-3 … : the first name nothing holds yet.
QString freeSubfolder(const QString& folder, const QString& base) {
  const QDir dir(folder);
  QString name = base;
  for (int i = 2; QFileInfo::exists(dir.filePath(name)) && i < 10000; ++i) name = base + QLatin1Char('-') + QString::number(i);
  return dir.filePath(name);
}

}  // namespace

void MainWindow::buildExportMenu(QMenu* file) {
  QMenu* ex = file->addMenu(tr("&Export"));
  ex->addAction(tr("Heatmap as &PNG…"), this, [this] { exportCurrent(QStringLiteral("png")); });
  ex->addAction(tr("Heatmap as &SVG…"), this, [this] { exportCurrent(QStringLiteral("svg")); });
  ex->addAction(tr("Heatmap values as &CSV…"), this, [this] { exportCurrent(QStringLiteral("csv")); });
  ex->addAction(tr("&Copy heatmap to the clipboard"), QKeySequence(Qt::CTRL | Qt::SHIFT | Qt::Key_C), this,
                [this] { exportCurrent(QStringLiteral("clipboard")); });
  ex->addSeparator();
  ex->addAction(tr("Current &view or chart as PNG…"), this, [this] { exportView(QStringLiteral("png")); });
  ex->addAction(tr("Current view or chart as S&VG…"), this, [this] { exportView(QStringLiteral("svg")); });
  ex->addAction(tr("Copy current view or chart"), QKeySequence(Qt::CTRL | Qt::ALT | Qt::Key_C), this,
                [this] { exportView(QStringLiteral("clipboard")); });
  ex->addAction(tr("&Gradient norms as CSV…"), this, &MainWindow::exportGradientNorms);
  ex->addSeparator();
  ex->addAction(tr("&Every head of every layer…"), this, [this] {
    if (!controller_->current()) return;
    ExportDialog dialog(controller_->current(), this);
    dialog.exec();
  });
  ex->addAction(tr("&Handout (PDF)…"), this, &MainWindow::exportHandout);
  ex->addAction(tr("&Bundle (npz, weights, manifest, images)…"), this, &MainWindow::exportBundleTo);
}

void MainWindow::buildColorMenu(QMenu* view) {
  QMenu* colours = view->addMenu(tr("&Colours"));
  auto* group = new QActionGroup(this);
  for (ColorScheme s : {ColorScheme::Viridis, ColorScheme::Cividis, ColorScheme::Grayscale}) {
    QAction* a = colours->addAction(colorSchemeName(s));
    a->setCheckable(true);
    a->setChecked(colorScheme() == s);
    group->addAction(a);
    connect(a, &QAction::triggered, this, [this, s] {
      setColorScheme(s);
      QSettings().setValue(QStringLiteral("colorScheme"), static_cast<int>(s));
      panel_->setStep(controller_->current(), navigator_->current());  // repaint with the new map
      panel_->update();
    });
  }
}

bool MainWindow::currentPicture(HeatmapPicture& pic, int& stepIndex, int& b, int& h) const {
  const TraceResultPtr r = controller_->current();
  const ViewSelection& sel = panel_->selection();
  if (!r || !sel.valid()) return false;
  const Step& s = r->trace.steps()[static_cast<size_t>(sel.stepIndex)];
  // An attention matrix (B, H, Tq, Tk) on show, or its gradient: export that step itself.
  const bool attention = is_attention_matrix(s.info.id, s.tensor, MatrixSteps::Traced) && !s.info.id.ends_with("_overview");
  stepIndex = attention ? sel.stepIndex : r->indexOf(sel.blockStep("weights"));
  if (stepIndex < 0) return false;
  b = sel.batch;
  const int enlarged = panel_->heatmaps()->enlargedHead();
  h = enlarged >= 0 ? enlarged : sel.head;  // the tensor's head index
  if (kept_head(r->trace.steps()[static_cast<size_t>(stepIndex)].info.id) >= 0) h = 0;  // a kept head's step holds it alone
  pic = headPicture(r->batch, r->trace, stepIndex, b, h);
  return true;
}

void MainWindow::exportCurrent(const QString& format) {
  HeatmapPicture pic;
  int step = -1, b = 0, h = 0;
  if (!currentPicture(pic, step, b, h)) return;
  const TraceResultPtr r = controller_->current();
  if (format == QLatin1String("clipboard")) {
    warn(tr("Copying the heatmap"), copyImageToClipboard(pic));
    const int64_t head = modelHead(r->trace.steps()[static_cast<size_t>(step)].info.id, h);
    status_->setText(tr("Copied head %1 of sentence %2 to the clipboard.").arg(head).arg(b));  // as the file name b{b}.head{h}
    return;
  }
  const QString base = QString::fromStdString(heatmapFileBase(r->trace.steps()[static_cast<size_t>(step)].info.id, b, h));
  const QString path = QFileDialog::getSaveFileName(this, tr("Export heatmap"), dialogPath("images", base + QLatin1Char('.') + format),
                                                    format.toUpper() + QStringLiteral(" (*.") + format + QLatin1Char(')'));
  if (path.isEmpty()) return;
  rememberDialogFolder("images", path);
  QString error;
  if (format == QLatin1String("png")) {
    bool ok = false;
    const double scale = QInputDialog::getDouble(this, tr("PNG scale"),
                                                 tr("Pixels per unit (2 = sharp on slides, 192 dpi):"), 2, 1, 8, 1, &ok);
    if (!ok) return;
    error = savePng(path, pic, scale);
  } else if (format == QLatin1String("svg")) {
    error = saveSvg(path, pic);
  } else {
    error = saveCsv(path, r->batch, r->trace, step, b, h);
  }
  warn(tr("Exporting the heatmap"), error);
  if (error.isEmpty()) status_->setText(tr("Saved %1").arg(path));
}

// The Gradients tab's numbers: one row per parameter, its gradient's norm (a backward pass only).
void MainWindow::exportGradientNorms() {
  const QString csv = panel_->gradNorms()->csv();
  if (panel_->gradNorms()->bars().isEmpty()) {
    warn(tr("Exporting the gradient norms"), tr("This result has no gradients: choose a loss under “gradients” first."));
    return;
  }
  const QString path = QFileDialog::getSaveFileName(this, tr("Export gradient norms"), dialogPath("images", QStringLiteral("gradient-norms.csv")),
                                                    QStringLiteral("CSV (*.csv)"));
  if (path.isEmpty()) return;
  rememberDialogFolder("images", path);
  QSaveFile f(path);
  const QByteArray bytes = csv.toUtf8();
  const bool ok = f.open(QIODevice::WriteOnly) && f.write(bytes) == bytes.size() && f.commit();
  warn(tr("Exporting the gradient norms"), ok ? QString() : tr("Cannot write %1: %2").arg(path, f.errorString()));
  if (ok) status_->setText(tr("Saved %1").arg(path));
}

QWidget* MainWindow::currentView() const {
  QWidget* page = panel_->tabs()->currentWidget();
  if (auto* area = qobject_cast<QScrollArea*>(page)) return area->widget();
  if (auto* stack = qobject_cast<QStackedWidget*>(page)) return stack->currentWidget();
  return page;
}

void MainWindow::exportView(const QString& format) {
  QWidget* view = currentView();
  const QString name = panel_->tabs()->tabText(panel_->tabs()->currentIndex()).remove(QLatin1Char('&'));
  if (format == QLatin1String("clipboard")) {
    warn(tr("Copying the view"), copyWidgetImage(view));
    status_->setText(tr("Copied the %1 view to the clipboard.").arg(name));
    return;
  }
  const QString path = QFileDialog::getSaveFileName(
      this, tr("Export %1").arg(name), dialogPath("images", name.toLower().replace(QLatin1Char(' '), QLatin1Char('-')) + QLatin1Char('.') + format),
      format.toUpper() + QStringLiteral(" (*.") + format + QLatin1Char(')'));
  if (path.isEmpty()) return;
  rememberDialogFolder("images", path);
  double scale = 2;
  if (format == QLatin1String("png")) {
    bool ok = false;
    scale = QInputDialog::getDouble(this, tr("PNG scale"), tr("Pixels per screen pixel (2 = sharp on slides, 192 dpi):"),
                                    2, 1, 8, 1, &ok);
    if (!ok) return;
  }
  const QString error = format == QLatin1String("png") ? saveWidgetPng(view, path, scale) : saveWidgetSvg(view, path);
  warn(tr("Exporting the view"), error);
  if (error.isEmpty()) status_->setText(tr("Saved %1").arg(path));
}

void MainWindow::exportHandout() {
  const TraceResultPtr r = controller_->current();
  if (!r) return;
  const QString path = QFileDialog::getSaveFileName(this, tr("Export handout"), dialogPath("handouts", QStringLiteral("attention-lab-handout.pdf")),
                                                    tr("PDF (*.pdf)"));
  if (path.isEmpty()) return;
  rememberDialogFolder("handouts", path);
  QProgressDialog progress(tr("Writing the handout…"), tr("Cancel"), 0, 100, this);
  progress.setWindowModality(Qt::WindowModal);
  progress.setMinimumDuration(300);
  const QString error = exportHandoutPdf(r, path, [&progress](int done, int total) {
    progress.setMaximum(total);
    progress.setValue(done);
    QApplication::processEvents();
    return !progress.wasCanceled();
  });
  warn(tr("Exporting the handout"), error);
  if (error.isEmpty()) status_->setText(tr("Saved %1").arg(path));
}

void MainWindow::exportBundleTo() {
  const TraceResultPtr r = controller_->current();
  if (!r) return;
  QString folder = QFileDialog::getExistingDirectory(this, tr("Export bundle into folder"), dialogFolder("bundles"));
  if (folder.isEmpty()) return;
  rememberDialogFolder("bundles", folder, /*isFolder=*/true);
  // An empty folder takes the bundle; an earlier bundle may be replaced (core swaps it out
  // atomically); any other folder keeps its files, and the bundle goes into a new folder inside.
  bool replace = false;
  if (!QDir(folder).isEmpty(QDir::AllEntries | QDir::NoDotAndDotDot | QDir::Hidden | QDir::System)) {
    if (is_bundle_folder(QFile::encodeName(folder).toStdString())) {
      if (QMessageBox::question(this, tr("Replace the bundle?"),
                                tr("“%1” holds an earlier Attention Lab bundle. Replace it with this one?")
                                    .arg(QDir::toNativeSeparators(folder))) != QMessageBox::Yes)
        return;
      replace = true;
    } else {
      const QString inside = freeSubfolder(folder, QStringLiteral("attention-lab-bundle"));
      if (QMessageBox::question(this, tr("Write into a new folder?"),
                                tr("“%1” holds other files, which stay as they are. Write the bundle into a new "
                                   "folder “%2” inside it?")
                                    .arg(QDir::toNativeSeparators(folder), QFileInfo(inside).fileName())) != QMessageBox::Yes)
        return;
      folder = inside;
    }
  }
  ExportFormats f;
  f.png = f.csv = true;
  QApplication::setOverrideCursor(Qt::WaitCursor);
  const QString error = exportBundle(r, folder, f, replace);
  QApplication::restoreOverrideCursor();
  warn(tr("Exporting the bundle"), error);
  if (error.isEmpty()) status_->setText(tr("Bundle written to %1").arg(QDir::toNativeSeparators(folder)));
}

void MainWindow::warn(const QString& what, const QString& error) {
  if (!error.isEmpty()) QMessageBox::warning(this, what, error);
}

}  // namespace attnlab::ui
