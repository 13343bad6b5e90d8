#include "window/busyindicator.h"

#include <QHBoxLayout>
#include <QProgressBar>
#include <QToolButton>

namespace attnlab::ui {

BusyIndicator::BusyIndicator(QWidget* parent) : QWidget(parent), bar_(new QProgressBar), cancel_(new QToolButton) {
  auto* row = new QHBoxLayout(this);
  row->setContentsMargins(0, 0, 0, 0);
  bar_->setObjectName(QStringLiteral("progress"));
  bar_->setRange(0, 0);  // busy, amount unknown, until the first progress report
  bar_->setMinimumWidth(160);
  bar_->setAccessibleName(tr("Computation progress"));
  cancel_->setObjectName(QStringLiteral("cancelComputation"));
  cancel_->setText(tr("Cancel"));
  cancel_->setToolTip(tr("Stop this computation; the previous result stays on screen"));
  row->addWidget(bar_);
  row->addWidget(cancel_);
  connect(cancel_, &QToolButton::clicked, this, &BusyIndicator::cancelRequested);
  delay_.setSingleShot(true);
  delay_.setInterval(kDelayMs);
  connect(&delay_, &QTimer::timeout, this, [this] { setVisible(busy_); });
  hide();
}

void BusyIndicator::setBusy(bool busy) {
  busy_ = busy;
  if (busy) {
    bar_->setRange(0, 0);
    bar_->setFormat(QString());
    delay_.start();
  } else {
    delay_.stop();
    hide();
  }
}

void BusyIndicator::setProgress(qint64 done, qint64 total) {
  if (!busy_ || total <= 0) return;
  bar_->setRange(0, static_cast<int>(total));
  bar_->setValue(static_cast<int>(std::min(done, total)));
  bar_->setFormat(tr("step %1 of %2").arg(done).arg(total));
}

}  // namespace attnlab::ui
