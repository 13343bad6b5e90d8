// The guided tour for first-time users (Help ▸ Guided tour; at the first start): ten stops that
// walk through one encoder layer. Each stop moves the window to its step, dims everything but the
// part of the window it is about, and explains that part in a callout with Back / Next / End.
// The shade lets clicks through; → / Enter, ← and Esc drive the tour from the keyboard.
#pragma once

#include <QObject>
#include <QPointer>
#include <QString>

#include <functional>
#include <string>
#include <vector>

class QLabel;
class QPushButton;
class QWidget;

namespace attnlab::ui {

class MainWindow;

struct TourStop {
  QString title, text;
  std::string step;                    // step id to show first ("" = stay); layer 0 of the encoder
  std::function<QWidget*()> target;    // the part of the window the stop is about
};

class GuidedTour : public QObject {
  Q_OBJECT
 public:
  explicit GuidedTour(MainWindow* window);
  ~GuidedTour() override;
  static std::vector<TourStop> stops(MainWindow* window);
  int current() const { return index_; }
  int count() const { return static_cast<int>(stops_.size()); }
  QWidget* target() const { return target_; }
  QWidget* callout() const;
  void start() { show(0); }
  void next();
  void back();
  void end();  // remembers that the tour was seen (QSettings "tourSeen")

 signals:
  void finished();

 protected:
  bool eventFilter(QObject* watched, QEvent* event) override;

 private:
  void show(int index);
  void place();  // the shade's hole and the callout, after a move or resize

  MainWindow* window_;
  std::vector<TourStop> stops_;
  int index_ = -1;
  QPointer<QWidget> target_;
  class Shade* shade_;
  QWidget* callout_;
  QLabel *counter_, *title_, *text_;
  QPushButton *back_, *next_;
};

}  // namespace attnlab::ui
