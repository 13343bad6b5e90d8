// A step's values: a 2-D slice chosen by batch (and head) selectors, shown as a colour map or as
// a table of numbers, with tokens on the axes where the axes are tokens; hover shows the value.
#pragma once

#include <QWidget>

#include "window/traceresult.h"

class QComboBox;
class QSpinBox;
class QStackedWidget;
class QTableWidget;
class QLabel;

namespace attnlab::ui {

class HeatmapView;

class TensorView : public QWidget {
  Q_OBJECT
 public:
  explicit TensorView(QWidget* parent = nullptr);
  void setStep(TraceResultPtr result, int stepIndex, int batchIndex);
  void setMode(bool table);  // false: colour map, true: table of numbers
  bool tableMode() const;
  // The slice on show: rows × cols values (for tests).
  int sliceRows() const;
  int sliceCols() const;
  float sliceValue(int r, int c) const;
  QSpinBox* headBox() const { return head_; }      // the head on show, from 0 (for tests)
  QString captionText() const { return captionText_; }  // "Sentence 1, head 0, 6 × 6 values: …"

 private:
  void rebuild();
  void computeSlice(const Step& step, int head);  // fills slice_, rows_, cols_, labels and caption
  void showCurrent();                             // fills the visible view if it is stale
  void fillTable();
  void fillMap();

  TraceResultPtr result_;
  int step_ = -1, batch_ = 0;
  QComboBox* mode_ = nullptr;
  QSpinBox* head_ = nullptr;
  QLabel* headLabel_ = nullptr;
  QLabel* caption_ = nullptr;
  QStackedWidget* stack_ = nullptr;
  HeatmapView* map_ = nullptr;
  QTableWidget* table_ = nullptr;
  std::vector<float> slice_;
  int rows_ = 0, cols_ = 0;
  std::vector<std::string> rowLabels_, colLabels_;  // tokens or indices along the slice's axes
  QString captionText_;  // the caption without the table's size note
  bool tableStale_ = true, mapStale_ = true;
};

}  // namespace attnlab::ui
