// The batch export of every attention heatmap: a folder, the formats (PNG, SVG, CSV), the PNG
// scale, a progress bar and a Cancel button. The export runs on a worker thread (QtConcurrent);
// progress comes back through queued signals, so the window never blocks, and Cancel stops it
// at the next file, leaving nothing behind (see exportAllHeatmaps).
#pragma once

#include <QDialog>
#include <QFutureWatcher>

#include <atomic>

#include "export/exporter.h"

class QCheckBox;
class QComboBox;
class QLabel;
class QLineEdit;
class QProgressBar;
class QPushButton;

namespace attnlab::ui {

class ExportDialog : public QDialog {
  Q_OBJECT
 public:
  explicit ExportDialog(TraceResultPtr result, QWidget* parent = nullptr);
  ~ExportDialog() override;

  void setFolder(const QString& folder);
  QString folder() const;
  void setFormats(const ExportFormats& formats);
  ExportFormats formats() const;
  bool isRunning() const { return watcher_.isRunning(); }
  QString message() const;  // the status line (for tests)
  // Why the folder cannot be written to, or empty when it can (a missing folder whose parent is
  // writable is fine: it will be created).
  static QString folderProblem(const QString& folder);

 public slots:
  void startExport();  // after checking the folder and formats; says why when it cannot start
  void cancelExport();

 signals:
  void progressed(int done, int total);  // queued from the worker
  void exportFinished(bool ok, const QString& message);

 protected:
  void reject() override;  // Esc / close: cancels a running export first

 private:
  void browse();
  void onProgress(int done, int total);
  void onFinished();
  void setRunning(bool running);
  void updateFileCount();

  TraceResultPtr result_;
  QLineEdit* folder_ = nullptr;
  QPushButton* browse_ = nullptr;
  QCheckBox *png_ = nullptr, *svg_ = nullptr, *csv_ = nullptr;
  QComboBox* scale_ = nullptr;
  QProgressBar* progress_ = nullptr;
  QLabel* status_ = nullptr;
  QPushButton *export_ = nullptr, *cancel_ = nullptr, *close_ = nullptr;
  QFutureWatcher<QString> watcher_;
  std::atomic<bool> cancel_requested_{false};
  bool closeWhenDone_ = false;
};

}  // namespace attnlab::ui
