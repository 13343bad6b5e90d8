// A label that takes one line until asked for more: collapsed, it shows its text elided to its
// width ("…") with the whole text as its tooltip, and asks for no more width than a few
// characters, so a long formula or PyTorch line never widens the window; expanded, it wraps and
// shows everything. The step panel's header is made of these (where you are, the explanation,
// the formula, the code, what changed), so the step's picture keeps the rest of the screen.
#pragma once

#include <QLabel>

namespace attnlab::ui {

class LineLabel : public QLabel {
  Q_OBJECT
 public:
  explicit LineLabel(QWidget* parent = nullptr);
  void setFullText(const QString& text);
  QString fullText() const { return full_; }
  void setExpanded(bool on);
  void setElideMode(Qt::TextElideMode mode);  // Qt::ElideRight unless said
  bool expanded() const { return expanded_; }
  bool elided() const { return !expanded_ && toolTip() == full_ && !full_.isEmpty(); }  // part of the text is hidden

  QSize minimumSizeHint() const override;
  QSize sizeHint() const override;

 protected:
  void resizeEvent(QResizeEvent* e) override;
  void changeEvent(QEvent* e) override;  // a new font (zoom) elides again

 private:
  void refresh();

  QString full_;
  bool expanded_ = false;
  Qt::TextElideMode mode_ = Qt::ElideRight;
};

}  // namespace attnlab::ui
