#include "window/presenter.h"

#include <QApplication>
#include <QDockWidget>
#include <QLabel>
#include <QMenuBar>
#include <QMouseEvent>
#include <QPainter>
#include <QFontInfo>
#include <QGraphicsOpacityEffect>
#include <QPropertyAnimation>
#include <QRadialGradient>
#include <QScreen>
#include <QStatusBar>
#include <QTabBar>
#include <QTabWidget>
#include <QTimer>

#include "step/steppanel.h"
#include "window/mainwindow.h"

namespace attnlab::ui {

LaserPointer::LaserPointer(QWidget* window) : QWidget(window) {
  setObjectName(QStringLiteral("laserPointer"));
  setAttribute(Qt::WA_TransparentForMouseEvents);
  setAttribute(Qt::WA_NoSystemBackground);
  hide();
}

void LaserPointer::setActive(bool on) {
  if (on) {
    setGeometry(parentWidget()->rect());
    qApp->installEventFilter(this);
    raise();
    show();
  } else {
    qApp->removeEventFilter(this);
    hide();
  }
}

bool LaserPointer::eventFilter(QObject* watched, QEvent* event) {
  if (event->type() == QEvent::MouseMove) {
    const QPoint global = static_cast<QMouseEvent*>(event)->globalPosition().toPoint();
    const QPoint p = parentWidget()->mapFromGlobal(global);
    if (p != spot_) {
      const QRect old(spot_ - QPoint(40, 40), QSize(80, 80));
      spot_ = p;
      update(old);
      update(QRect(spot_ - QPoint(40, 40), QSize(80, 80)));
    }
  } else if (event->type() == QEvent::Resize && watched == parentWidget()) {
    setGeometry(parentWidget()->rect());
  }
  return QWidget::eventFilter(watched, event);
}

void LaserPointer::paintEvent(QPaintEvent*) {
  if (spot_.x() < 0) return;
  QPainter p(this);
  p.setRenderHint(QPainter::Antialiasing);
  QRadialGradient glow(spot_, 34);
  glow.setColorAt(0.0, QColor(255, 40, 40, 230));
  glow.setColorAt(0.25, QColor(255, 40, 40, 160));
  glow.setColorAt(1.0, QColor(255, 40, 40, 0));
  p.setPen(Qt::NoPen);
  p.setBrush(glow);
  p.drawEllipse(spot_, 34, 34);
}

PresenterMode::PresenterMode(MainWindow* window)
    : QObject(window), w_(window), laser_(new LaserPointer(window)), hint_(new QLabel(window)),
      hintTimer_(new QTimer(this)) {
  hint_->setObjectName(QStringLiteral("presenterHint"));
  hint_->setText(tr("Presenter mode · ← → step · PgUp PgDn layer · Space play · F11 or Esc to leave"));
  hint_->setStyleSheet(QStringLiteral("QLabel { background: rgba(0, 0, 0, 200); color: white; padding: 10px; "
                                      "border-radius: 8px; }"));
  hint_->hide();
  hintTimer_->setSingleShot(true);
  hintTimer_->setInterval(3000);
  // The keys' hint fades out (0.8 s) after 3 s: it never stays over the content.
  auto* opacity = new QGraphicsOpacityEffect(hint_);
  hint_->setGraphicsEffect(opacity);
  auto* fade = new QPropertyAnimation(opacity, "opacity", this);
  fade->setDuration(800);
  fade->setStartValue(1.0);
  fade->setEndValue(0.0);
  connect(hintTimer_, &QTimer::timeout, fade, [fade] { fade->start(); });
  fade_ = fade;
  connect(fade, &QPropertyAnimation::finished, hint_, [this, opacity] {
    hint_->hide();
    opacity->setOpacity(1.0);
  });
}

void PresenterMode::setActive(bool on) {
  if (on == active_) return;
  on ? enter() : leave();
  emit activeChanged(active_);
}

// White on black, with the selection and links in yellow: legible on a washed-out projector.
QPalette PresenterMode::highContrast(const QPalette& base) {
  QPalette p = base;
  const QColor black(0, 0, 0), white(255, 255, 255), grey(40, 40, 40), yellow(255, 221, 0);
  for (auto role : {QPalette::Window, QPalette::Base, QPalette::Button}) p.setColor(role, black);
  p.setColor(QPalette::AlternateBase, grey);
  for (auto role : {QPalette::WindowText, QPalette::Text, QPalette::ButtonText, QPalette::BrightText})
    p.setColor(role, white);
  p.setColor(QPalette::Highlight, yellow);
  p.setColor(QPalette::HighlightedText, black);
  p.setColor(QPalette::Link, yellow);
  p.setColor(QPalette::Mid, QColor(160, 160, 160));
  return p;
}

void PresenterMode::enter() {
  active_ = true;
  state_ = w_->saveState();
  geometry_ = w_->saveGeometry();
  windowState_ = w_->windowState();
  zoom_ = w_->zoom();
  palette_ = w_->palette();
  menuVisible_ = w_->menuBar()->isVisible();
  statusVisible_ = w_->statusBar()->isVisible();
  QTabBar* tabs = w_->stepPanel()->tabs()->tabBar();
  tabsVisible_ = tabs->isVisible();

  for (QDockWidget* d : w_->findChildren<QDockWidget*>()) d->hide();
  w_->nameDockTabs();
  w_->menuBar()->hide();
  w_->statusBar()->hide();
  w_->stepPanel()->tabs()->setCurrentIndex(0);  // the values and heatmaps
  tabs->hide();
  w_->setPalette(highContrast(palette_));
  w_->stepPanel()->setPresenting(true);
  w_->setZoom(presenterZoom());
  w_->setWindowState(windowState_ | Qt::WindowFullScreen);
  w_->setFocus();  // keys step, whatever had the focus before
  laser_->setActive(true);
  hint_->setFont(w_->font());
  hint_->setMaximumWidth(w_->width() - 48);
  hint_->setWordWrap(true);
  hint_->adjustSize();
  hint_->move((w_->width() - hint_->width()) / 2, w_->height() - hint_->height() - 24);  // over the heatmaps' foot
  hint_->raise();
  fade_->stop();  // entered again while it was fading: whole again
  if (auto* opacity = qobject_cast<QGraphicsOpacityEffect*>(hint_->graphicsEffect())) opacity->setOpacity(1.0);
  hint_->show();
  hintTimer_->start();
}

double PresenterMode::zoomFor(double basePx, double screenLines, double zoomNow) {
  return std::max({zoomNow, kMinZoom, kPxAt1080 * screenLines / 1080.0 / std::max(1.0, basePx)});
}

double PresenterMode::presenterZoom() const {
  const double basePx = QFontInfo(w_->font()).pixelSize() / std::max(0.01, w_->zoom());  // the desktop's text
  return zoomFor(basePx, w_->screen() ? w_->screen()->geometry().height() : 1080, zoom_);
}

void PresenterMode::leave() {
  active_ = false;
  laser_->setActive(false);
  hint_->hide();
  w_->setWindowState(windowState_);
  w_->setPalette(palette_);
  w_->setZoom(zoom_);
  w_->stepPanel()->setPresenting(false);
  w_->menuBar()->setVisible(menuVisible_);
  w_->statusBar()->setVisible(statusVisible_);
  w_->stepPanel()->tabs()->tabBar()->setVisible(tabsVisible_);
  w_->restoreState(state_);
  w_->nameDockTabs();
}

}  // namespace attnlab::ui
