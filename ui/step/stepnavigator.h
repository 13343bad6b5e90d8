// Every recorded step, grouped by stack, layer and block, with Previous / Next / Play (at a
// chosen speed) and a slider. Keyboard handling lives in MainWindow (it knows the focus).
#pragma once

#include <QWidget>

#include "window/traceresult.h"

class QComboBox;
class QLabel;
class QPushButton;
class QSlider;
class QTimer;
class QTreeWidget;
class QTreeWidgetItem;

namespace attnlab::ui {

class StepNavigator : public QWidget {
  Q_OBJECT
 public:
  explicit StepNavigator(QWidget* parent = nullptr);

  // Shows a new trace and selects `index` (clamped).
  void setResult(TraceResultPtr result, int index);
  int current() const { return current_; }
  int count() const;
  void setCurrent(int index);
  void next();
  void previous();
  void first();
  void last();
  void nextLayer();      // first step of the next layer (or group)
  void previousLayer();  // first step of this layer, or of the previous one
  void togglePlay();
  bool playing() const;
  QTreeWidget* tree() const { return tree_; }

 signals:
  void currentChanged(int index);

 private:
  int groupStart(int index) const;  // first index of the group (layer or stack part) of index
  void syncWidgets();

  TraceResultPtr result_;
  int current_ = -1;
  QTreeWidget* tree_;
  std::vector<QTreeWidgetItem*> items_;  // per step
  QPushButton *prev_, *next_, *play_;
  QComboBox* speed_;
  QSlider* slider_;
  QLabel* position_;
  QTimer* timer_;
  bool syncing_ = false;
};

}  // namespace attnlab::ui
