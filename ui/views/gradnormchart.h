// The tutorial's `wq.weight.grad.norm()` check for every parameter at once: one bar per
// parameter gradient ("grad/<name>" steps of a result with a backward pass), ‖∂L/∂p‖ on a log
// scale, grouped by layer, so that a layer whose gradient vanished (or exploded) stands out. A
// parameter the loss does not reach has norm 0 and is drawn as a red "0 — no gradient" mark.
// Painted by hand (no Qt Charts): large type, a projector's contrast, and PNG/SVG by widgetexport.
#pragma once

#include <QString>
#include <QVector>
#include <QWidget>

#include "window/traceresult.h"

namespace attnlab::ui {

class GradNormChart : public QWidget {
  Q_OBJECT
 public:
  struct Bar {
    QString name;   // the parameter's name without its layer ("self_attn.in_proj_weight")
    QString group;  // "Encoder layer 0", "Decoder layer 1" (StepNames::placeWords), "Model" (embedding, output head)
    double norm = 0;
  };

  explicit GradNormChart(QWidget* parent = nullptr);
  // The result's parameter gradients; none (no backward pass) shows a line saying how to get them.
  void setResult(const TraceResultPtr& result);
  const QVector<Bar>& bars() const { return bars_; }
  QString summary() const { return summary_; }  // one sentence: largest, smallest, how many get none
  QString csv() const;                          // "parameter,norm" rows, full names

  QSize sizeHint() const override;
  QSize minimumSizeHint() const override;

 protected:
  void paintEvent(QPaintEvent* e) override;
  void changeEvent(QEvent* e) override;

 private:
  int rowHeight() const;
  int labelWidth() const;

  QVector<Bar> bars_;
  QStringList fullNames_;
  QString summary_;
};

}  // namespace attnlab::ui
