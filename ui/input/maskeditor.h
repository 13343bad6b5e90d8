// A clickable n × n attention mask for the "fix the mask" exercises: rows are queries, columns
// are keys, a click toggles a cell between visible (1) and hidden (0). Painted like the heatmaps'
// masked cells (hatched) so the learner recognises them later; Space / Enter toggles the cell
// under the keyboard cursor (arrow keys) for those who do not use a mouse.
#pragma once

#include <QWidget>

#include <string>
#include <vector>

namespace attnlab::ui {

class MaskEditor : public QWidget {
  Q_OBJECT
 public:
  explicit MaskEditor(QWidget* parent = nullptr);

  // rows: "1100/1110/…" (n rows of n digits); labels: n token labels.
  void setMask(const QString& rows, const std::vector<std::string>& labels);
  QString rowsText() const;  // the current mask in the same "1100/…" form
  int size() const { return n_; }
  bool cell(int r, int c) const { return cells_.at(static_cast<size_t>(r * n_ + c)) != 0; }
  void toggle(int r, int c);
  QRectF cellRect(int r, int c) const;  // widget coordinates (tests click its centre)
  QSize sizeHint() const override;
  QSize minimumSizeHint() const override;

 signals:
  void changed();

 protected:
  void paintEvent(QPaintEvent*) override;
  void mousePressEvent(QMouseEvent*) override;
  void keyPressEvent(QKeyEvent*) override;

 private:
  QRectF plot() const;
  qreal labelWidth() const;

  int n_ = 0;
  std::vector<char> cells_;  // n × n, row-major, 1 = may attend
  QStringList labels_;
  QPoint cursor_{0, 0};      // keyboard cursor (x = column, y = row)
};

}  // namespace attnlab::ui
