// Presenter mode (F11): for a projector. Full screen, large type, high contrast, only the step —
// its title, formula, code, shape diagram and values/heatmaps — with the docks, menus, status
// bar and view tabs out of the way, keyboard stepping (←/→, PgUp/PgDn, Home/End, Space), and a
// laser-pointer spot that follows the mouse. F11 or Esc restores the window as it was.
#pragma once

#include <QByteArray>
#include <QObject>
#include <QPalette>
#include <QPointer>
#include <QWidget>

class QLabel;
class QPropertyAnimation;
class QMainWindow;
class QTimer;

namespace attnlab::ui {

class MainWindow;

// A translucent red spot under the mouse, drawn over the whole window; lets every click through.
class LaserPointer : public QWidget {
  Q_OBJECT
 public:
  explicit LaserPointer(QWidget* window);
  void setActive(bool on);
  QPoint spot() const { return spot_; }  // window coordinates; (-1, -1) until the mouse moves

 protected:
  bool eventFilter(QObject* watched, QEvent* event) override;
  void paintEvent(QPaintEvent*) override;

 private:
  QPoint spot_{-1, -1};
};

class PresenterMode : public QObject {
  Q_OBJECT
 public:
  static constexpr double kMinZoom = 1.75;  // type at least this much larger than the desktop's
  static constexpr double kPxAt1080 = 28;   // and at least this many pixels high on a 1080-line screen (in proportion on others)
  explicit PresenterMode(MainWindow* window);

  bool active() const { return active_; }
  void setActive(bool on);
  // While active: the window's geometry, dock layout and zoom from before, which are what its
  // settings keep (saved meanwhile — each new result saves them against a crash — the presenter's
  // full screen, hidden docks and large type would come back at the next start).
  QByteArray geometryBefore() const { return geometry_; }
  QByteArray stateBefore() const { return state_; }
  double zoomBefore() const { return zoom_; }
  LaserPointer* laser() const { return laser_; }

 signals:
  void activeChanged(bool on);

 private:
  void enter();
  void leave();
  static QPalette highContrast(const QPalette& base);
  double presenterZoom() const;  // zoomFor the window's font and screen

 public:
  // The presenter's zoom: at least the current one and kMinZoom, and text at least kPxAt1080
  // pixels high on a 1080-line screen (in proportion on others), for text of basePx at zoom 1.
  static double zoomFor(double basePx, double screenLines, double zoomNow);

 private:

  MainWindow* w_;
  LaserPointer* laser_;
  QLabel* hint_;
  QTimer* hintTimer_;
  QPropertyAnimation* fade_ = nullptr;  // the hint fading out
  bool active_ = false;
  // What leave() restores.
  QByteArray state_, geometry_;
  Qt::WindowStates windowState_;
  double zoom_ = 1.0;
  QPalette palette_;
  bool menuVisible_ = true, statusVisible_ = true, tabsVisible_ = true;
};

}  // namespace attnlab::ui
