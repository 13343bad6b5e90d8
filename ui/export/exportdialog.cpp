#include "export/exportdialog.h"

#include <QCheckBox>
#include <QComboBox>
#include <QDir>
#include <QFileDialog>
#include <QFileInfo>
#include <QFormLayout>
#include <QHBoxLayout>
#include <QLabel>
#include <QLineEdit>
#include <QProgressBar>
#include <QPushButton>
#include <QStandardPaths>
#include <QVBoxLayout>
#include <QtConcurrent>

namespace attnlab::ui {

// [Folder:  ______________________ Browse…]
// [Formats: ☑ PNG  ☐ SVG  ☐ CSV          ]
// [PNG scale: 2× ▾                       ]
// [progress bar                          ]
// [status line                           ]
// [               Export  Cancel  Close  ]
ExportDialog::ExportDialog(TraceResultPtr result, QWidget* parent) : QDialog(parent), result_(std::move(result)) {
  setWindowTitle(tr("Export all heatmaps"));
  folder_ = new QLineEdit(this);
  folder_->setObjectName(QStringLiteral("folder"));
  folder_->setPlaceholderText(tr("Folder to write the heatmaps into"));
  folder_->setText(QDir(QStandardPaths::writableLocation(QStandardPaths::DocumentsLocation))
                       .filePath(QStringLiteral("attention-heatmaps")));
  browse_ = new QPushButton(tr("Browse…"), this);
  png_ = new QCheckBox(tr("PNG (pictures)"), this);
  svg_ = new QCheckBox(tr("SVG (vector, for print and editing)"), this);
  csv_ = new QCheckBox(tr("CSV (the numbers)"), this);
  png_->setChecked(true);
  scale_ = new QComboBox(this);
  scale_->setObjectName(QStringLiteral("scale"));
  scale_->addItem(tr("1× (natural size)"), 1.0);
  scale_->addItem(tr("2× (sharp on slides and high-DPI screens)"), 2.0);
  scale_->addItem(tr("3×"), 3.0);
  scale_->addItem(tr("4× (posters)"), 4.0);
  scale_->setCurrentIndex(1);
  progress_ = new QProgressBar(this);
  progress_->setRange(0, 1);
  progress_->setValue(0);
  status_ = new QLabel(this);
  status_->setObjectName(QStringLiteral("status"));
  status_->setWordWrap(true);
  status_->setTextFormat(Qt::PlainText);
  export_ = new QPushButton(tr("Export"), this);
  export_->setDefault(true);
  cancel_ = new QPushButton(tr("Cancel"), this);
  cancel_->setToolTip(tr("Stop the export; the files written so far are removed"));
  close_ = new QPushButton(tr("Close"), this);

  auto* folderRow = new QHBoxLayout;
  folderRow->addWidget(folder_, 1);
  folderRow->addWidget(browse_);
  auto* formatRow = new QHBoxLayout;
  for (QCheckBox* box : {png_, svg_, csv_}) formatRow->addWidget(box);
  formatRow->addStretch(1);
  auto* form = new QFormLayout;
  form->addRow(tr("Folder:"), folderRow);
  form->addRow(tr("Formats:"), formatRow);
  form->addRow(tr("PNG scale:"), scale_);
  auto* buttons = new QHBoxLayout;
  buttons->addStretch(1);
  for (QPushButton* b : {export_, cancel_, close_}) buttons->addWidget(b);
  auto* v = new QVBoxLayout(this);
  v->addLayout(form);
  v->addWidget(progress_);
  v->addWidget(status_);
  v->addLayout(buttons);

  connect(browse_, &QPushButton::clicked, this, &ExportDialog::browse);
  connect(export_, &QPushButton::clicked, this, &ExportDialog::startExport);
  connect(cancel_, &QPushButton::clicked, this, &ExportDialog::cancelExport);
  connect(close_, &QPushButton::clicked, this, &ExportDialog::reject);
  connect(png_, &QCheckBox::toggled, scale_, &QWidget::setEnabled);
  for (QCheckBox* box : {png_, svg_, csv_}) connect(box, &QCheckBox::toggled, this, &ExportDialog::updateFileCount);
  connect(folder_, &QLineEdit::textChanged, this, &ExportDialog::updateFileCount);
  connect(this, &ExportDialog::progressed, this, &ExportDialog::onProgress, Qt::QueuedConnection);
  connect(&watcher_, &QFutureWatcher<QString>::finished, this, &ExportDialog::onFinished);
  setRunning(false);
  updateFileCount();
}

ExportDialog::~ExportDialog() {
  if (!watcher_.isRunning()) return;
  cancel_requested_ = true;  // stops at the next file, removing what it wrote
  watcher_.waitForFinished();
}

void ExportDialog::setFolder(const QString& folder) { folder_->setText(folder); }
QString ExportDialog::folder() const { return folder_->text().trimmed(); }
QString ExportDialog::message() const { return status_->text(); }

void ExportDialog::setFormats(const ExportFormats& formats) {
  png_->setChecked(formats.png);
  svg_->setChecked(formats.svg);
  csv_->setChecked(formats.csv);
  const int i = scale_->findData(formats.pngScale);
  if (i >= 0) scale_->setCurrentIndex(i);
}

ExportFormats ExportDialog::formats() const {
  ExportFormats f;
  f.png = png_->isChecked();
  f.svg = svg_->isChecked();
  f.csv = csv_->isChecked();
  f.pngScale = scale_->currentData().toDouble();
  return f;
}

QString ExportDialog::folderProblem(const QString& folder) {
  if (folder.trimmed().isEmpty()) return tr("Choose a folder to export into.");
  const QFileInfo info(folder);
  const QString shown = QDir::toNativeSeparators(info.absoluteFilePath());
  if (info.exists()) {
    if (!info.isDir()) return tr("“%1” is a file, not a folder. Choose a folder.").arg(shown);
    if (!info.isWritable()) return tr("The folder “%1” cannot be written to (no permission). Choose another folder.").arg(shown);
    return {};
  }
  QString up = info.absoluteFilePath();  // the nearest folder that exists must let us create the rest
  while (!QFileInfo::exists(up)) {
    const QString parent = QFileInfo(up).absolutePath();
    if (parent == up) break;
    up = parent;
  }
  const QFileInfo ancestor(up);
  if (!ancestor.isDir() || !ancestor.isWritable())
    return tr("The folder “%1” cannot be created: “%2” cannot be written to. Choose another folder.")
        .arg(shown, QDir::toNativeSeparators(ancestor.absoluteFilePath()));
  return {};
}

void ExportDialog::startExport() {
  if (isRunning()) return;
  const QString dir = folder();
  const ExportFormats f = formats();
  const QString problem = !result_                ? tr("Nothing to export yet: wait for the forward pass to finish.")
                          : f.imageCount() == 0   ? tr("Choose at least one format: PNG, SVG or CSV.")
                                                  : folderProblem(dir);
  if (!problem.isEmpty()) {
    status_->setText(problem);
    emit exportFinished(false, problem);
    return;
  }
  cancel_requested_ = false;
  const int total = heatmapFileCount(result_->trace, f);
  progress_->setRange(0, std::max(1, total));
  progress_->setValue(0);
  status_->setText(tr("Writing %1 files…").arg(total));
  setRunning(true);
  const TraceResultPtr r = result_;
  watcher_.setFuture(QtConcurrent::run([this, r, dir, f] {
    return exportAllHeatmaps(r, dir, f, [this](int done, int all) {
      emit progressed(done, all);  // queued to the window's thread
      return !cancel_requested_.load();
    });
  }));
}

void ExportDialog::cancelExport() {
  if (!isRunning()) return;
  cancel_requested_ = true;
  status_->setText(tr("Cancelling…"));
}

void ExportDialog::reject() {
  if (isRunning()) {  // close once the worker has stopped and cleaned up
    closeWhenDone_ = true;
    cancelExport();
    return;
  }
  QDialog::reject();
}

void ExportDialog::browse() {
  const QString dir = QFileDialog::getExistingDirectory(this, tr("Export heatmaps into"), folder());
  if (!dir.isEmpty()) setFolder(dir);
}

void ExportDialog::onProgress(int done, int total) {
  if (!isRunning()) return;
  progress_->setRange(0, std::max(1, total));
  progress_->setValue(done);
  if (!cancel_requested_) status_->setText(tr("Written %1 of %2 files…").arg(done).arg(total));
}

void ExportDialog::onFinished() {
  const QString err = watcher_.result();
  const bool ok = err.isEmpty();
  setRunning(false);
  const QString msg = ok ? tr("Done: %1 files in “%2”.").arg(progress_->maximum()).arg(QDir::toNativeSeparators(folder()))
                         : err;
  progress_->setValue(ok ? progress_->maximum() : 0);
  status_->setText(msg);
  emit exportFinished(ok, msg);
  if (closeWhenDone_) {
    closeWhenDone_ = false;
    QDialog::reject();
  }
}

void ExportDialog::setRunning(bool running) {
  for (QWidget* w : std::initializer_list<QWidget*>{folder_, browse_, png_, svg_, csv_, export_}) w->setEnabled(!running);
  scale_->setEnabled(!running && png_->isChecked());
  cancel_->setEnabled(running);
}

void ExportDialog::updateFileCount() {
  if (isRunning()) return;
  const QString problem = folderProblem(folder());
  if (!problem.isEmpty()) {
    status_->setText(problem);
    return;
  }
  const int n = result_ ? heatmapFileCount(result_->trace, formats()) : 0;
  status_->setText(tr("%1 files to write: one per attention block, sentence, head and format.").arg(n));
}

}  // namespace attnlab::ui
