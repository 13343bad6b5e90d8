// The status bar's sign of a computation in progress: nothing for the first moment (most runs
// finish within a frame), then a progress bar of steps done and a Cancel button.
#pragma once

#include <QTimer>
#include <QWidget>

class QProgressBar;
class QToolButton;

namespace attnlab::ui {

class BusyIndicator : public QWidget {
  Q_OBJECT
 public:
  static constexpr int kDelayMs = 300;  // shorter runs never show it
  explicit BusyIndicator(QWidget* parent = nullptr);

  void setBusy(bool busy);
  void setProgress(qint64 done, qint64 total);

 signals:
  void cancelRequested();

 private:
  QProgressBar* bar_;
  QToolButton* cancel_;
  QTimer delay_;
  bool busy_ = false;
};

}  // namespace attnlab::ui
