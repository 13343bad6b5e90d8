#include "lessons/guidedtour.h"

#include <QApplication>
#include <QDockWidget>
#include <QFrame>
#include <QGroupBox>
#include <QHBoxLayout>
#include <QKeyEvent>
#include <QLabel>
#include <QPainter>
#include <QPainterPath>
#include <QPlainTextEdit>
#include <QPushButton>
#include <QScrollArea>
#include <QSettings>
#include <QSpinBox>
#include <QTabBar>
#include <QTabWidget>
#include <QTimer>
#include <QVBoxLayout>

#include "input/inputpanel.h"
#include "input/tokenchips.h"
#include "step/shapediagram.h"
#include "step/stepnavigator.h"
#include "step/steppanel.h"
#include "views/heatmapgrid.h"
#include "window/mainwindow.h"

namespace attnlab::ui {

// Dims the window except a rounded hole around the target; clicks pass through.
class Shade : public QWidget {
 public:
  explicit Shade(QWidget* parent) : QWidget(parent) {
    setAttribute(Qt::WA_TransparentForMouseEvents);
    setObjectName(QStringLiteral("tourShade"));
  }
  void setHole(const QRect& r) {
    hole_ = r;
    update();
  }

 protected:
  void paintEvent(QPaintEvent*) override {
    QPainter p(this);
    p.setRenderHint(QPainter::Antialiasing);
    QPainterPath all, hole;
    all.addRect(rect());
    hole.addRoundedRect(QRectF(hole_.adjusted(-6, -6, 6, 6)), 8, 8);
    p.fillPath(all.subtracted(hole), QColor(0, 0, 0, 120));
    p.setPen(QPen(QColor(0xff, 0xb4, 0x00), 3));
    p.drawPath(hole);
  }

 private:
  QRect hole_;
};

std::vector<TourStop> GuidedTour::stops(MainWindow* w) {
  StepPanel* panel = w->stepPanel();
  auto header = [panel](const char* name) { return [panel, name]() -> QWidget* { return panel->findChild<QLabel*>(QLatin1String(name)); }; };
  return {
      {tr("Your sentences"),
       tr("Type one sentence per line. Together the lines form the batch that flows through the model, and every "
          "change is computed again at once."),
       "", [w]() -> QWidget* { return w->inputs()->sentencesEdit(); }},
      {tr("Tokens"),
       tr("Each sentence is cut into tokens. Shorter sentences are filled with [PAD] so that the batch is a "
          "rectangle: B sentences × S tokens."),
       "", [w]() -> QWidget* { return w->inputs()->chips(); }},
      {tr("The model"),
       tr("d_model is the width of every token's vector, heads the number of attention heads (they must divide "
          "d_model). The mask, the LayerNorm placement and the number of layers are set here too."),
       "", [w]() -> QWidget* { return w->inputs()->dModelBox()->parentWidget(); }},
      {tr("Every step"),
       tr("The encoder as a list of operations, in the order they run. Click one, or press ← and → to step; "
          "PgUp and PgDn jump a layer."),
       "", [w]() -> QWidget* { return w->navigator(); }},
      {tr("What happens and why"),
       tr("Each step has a name, a short explanation and its formula. This one projects every token's vector to "
          "its query."),
       "self_attn.q_proj", header("explanation")},
      {tr("Shapes and strides"),
       tr("The shape diagram shows the tensor before and after the step, with axis names and strides. Here view "
          "splits D into H heads of Dh numbers without moving any of them."),
       "self_attn.q_view", [panel]() -> QWidget* { return panel->diagram(); }},
      {tr("The same step in PyTorch"),
       tr("Every step is also one line of PyTorch. The tests check each number against PyTorch itself."),
       "self_attn.q_view", header("code")},
      {tr("Attention heatmaps"),
       tr("After the softmax every head has a (queries × keys) matrix whose rows sum to 1. Click a head to "
          "enlarge it and hover a cell to read its value."),
       "self_attn.weights", [panel]() -> QWidget* { return panel->heatmaps(); }},
      {tr("Other views"),
       tr("Lines, the model view, the neuron view, the mask comparison and the charts show the same step in "
          "other ways."),
       "self_attn.weights", [panel]() -> QWidget* { return panel->tabs()->tabBar(); }},
      {tr("One layer done"),
       tr("The residual connections, LayerNorm and the feed-forward network complete the layer. Next: File ▸ "
          "Samples… for prepared lessons, or Exercises (Ctrl+E) to test yourself. Help ▸ Guided tour shows this "
          "tour again."),
       "output", header("location")},
  };
}

GuidedTour::GuidedTour(MainWindow* window) : QObject(window), window_(window), stops_(stops(window)) {
  shade_ = new Shade(window);
  auto* frame = new QFrame(window);
  frame->setFrameShape(QFrame::StyledPanel);
  callout_ = frame;
  callout_->setObjectName(QStringLiteral("tourCallout"));
  callout_->setAutoFillBackground(true);
  callout_->setStyleSheet(QStringLiteral("#tourCallout { background: palette(base); border: 2px solid #ffb400; border-radius: 8px; }"));
  counter_ = new QLabel;
  title_ = new QLabel;
  title_->setObjectName(QStringLiteral("tourTitle"));
  QFont bold = title_->font();
  bold.setBold(true);
  bold.setPointSizeF(bold.pointSizeF() * 1.25);
  title_->setFont(bold);
  text_ = new QLabel;
  text_->setObjectName(QStringLiteral("tourText"));
  text_->setWordWrap(true);
  back_ = new QPushButton(tr("Back"));
  next_ = new QPushButton;
  next_->setObjectName(QStringLiteral("tourNext"));
  auto* skip = new QPushButton(tr("End tour"));
  skip->setObjectName(QStringLiteral("tourEnd"));
  auto* buttons = new QHBoxLayout;
  buttons->addWidget(counter_);
  buttons->addStretch(1);
  buttons->addWidget(skip);
  buttons->addWidget(back_);
  buttons->addWidget(next_);
  auto* v = new QVBoxLayout(callout_);
  v->addWidget(title_);
  v->addWidget(text_);
  v->addLayout(buttons);
  callout_->setFixedWidth(420);
  connect(back_, &QPushButton::clicked, this, &GuidedTour::back);
  connect(next_, &QPushButton::clicked, this, &GuidedTour::next);
  connect(skip, &QPushButton::clicked, this, &GuidedTour::end);
  window->installEventFilter(this);
  qApp->installEventFilter(this);  // after the window's own filter, so it sees the keys first
}

GuidedTour::~GuidedTour() {
  qApp->removeEventFilter(this);
  delete shade_;
  delete callout_;
}

QWidget* GuidedTour::callout() const { return callout_; }

void GuidedTour::next() {
  if (index_ + 1 < count()) show(index_ + 1);
  else end();
}

void GuidedTour::back() {
  if (index_ > 0) show(index_ - 1);
}

void GuidedTour::end() {
  QSettings().setValue(QStringLiteral("tourSeen"), true);
  shade_->hide();
  callout_->hide();
  emit finished();
  deleteLater();
}

void GuidedTour::show(int index) {
  index_ = index;
  const TourStop& s = stops_[static_cast<size_t>(index)];
  if (!s.step.empty()) {
    if (const auto r = window_->controller()->current()) {
      int i = r->indexOf("encoder.layers.0." + s.step);
      if (i < 0) i = r->indexOf("encoder." + s.step);
      if (i >= 0) window_->navigator()->setCurrent(i);
    }
    window_->stepPanel()->tabs()->setCurrentIndex(0);
  }
  for (QDockWidget* d : window_->findChildren<QDockWidget*>())
    if (d->objectName() == QLatin1String("inputDock") && index < 3) d->raise();  // in case the exercises lie on top
  target_ = s.target ? s.target() : nullptr;
  if (target_) window_->stepPanel()->reveal(target_);  // a header line's full text, the details
  for (QWidget* p = target_; p; p = p->parentWidget()) {
    if (auto* area = qobject_cast<QScrollArea*>(p)) area->ensureWidgetVisible(target_, 20, 20);  // a panel scrolled past it
    if (auto* dock = qobject_cast<QDockWidget*>(p)) {  // a dock tabbed behind another (a small screen): to the front
      dock->raise();
      break;
    }
  }
  counter_->setText(tr("%1 of %2").arg(index + 1).arg(count()));
  title_->setText(s.title);
  text_->setText(s.text);
  back_->setEnabled(index > 0);
  next_->setText(index + 1 == count() ? tr("Finish") : tr("Next"));
  callout_->adjustSize();
  shade_->show();
  callout_->show();
  shade_->raise();
  callout_->raise();
  next_->setFocus();
  place();
  QTimer::singleShot(0, this, &GuidedTour::place);  // once the new step has been laid out
}

void GuidedTour::place() {
  shade_->setGeometry(window_->rect());
  shade_->raise();  // above docks that were re-laid out since (the Steps dock tabbing in or out)
  callout_->raise();
  QRect hole;
  if (target_ && target_->isVisible())
    hole = QRect(target_->mapTo(window_, QPoint(0, 0)), target_->size()).intersected(window_->rect());
  shade_->setHole(hole);
  const QSize c = callout_->sizeHint().expandedTo(QSize(420, 0));
  const QRect area = window_->rect().adjusted(12, 12, -12, -12);
  QPoint at;
  if (hole.isNull()) at = area.center() - QPoint(c.width() / 2, c.height() / 2);
  else if (hole.right() + 16 + c.width() <= area.right()) at = {hole.right() + 16, hole.top()};    // right of it
  else if (hole.left() - 16 - c.width() >= area.left()) at = {hole.left() - 16 - c.width(), hole.top()};  // left
  else if (hole.bottom() + 16 + c.height() <= area.bottom()) at = {hole.left(), hole.bottom() + 16};     // below
  else if (hole.top() - 16 - c.height() >= area.top()) at = {hole.left(), hole.top() - 16 - c.height()};  // above
  else at = hole.intersected(area).bottomRight() - QPoint(c.width() + 16, c.height() + 16);  // a huge part: inside it
  at.setX(std::clamp(at.x(), area.left(), std::max(area.left(), area.right() - c.width())));
  at.setY(std::clamp(at.y(), area.top(), std::max(area.top(), area.bottom() - c.height())));
  callout_->setGeometry(QRect(at, c));
}

bool GuidedTour::eventFilter(QObject* watched, QEvent* event) {
  if (watched == window_ && (event->type() == QEvent::Resize || event->type() == QEvent::LayoutRequest) && index_ >= 0)
    place();
  QWidget* focus = QApplication::focusWidget();
  const bool typing = qobject_cast<QPlainTextEdit*>(focus) || qobject_cast<QAbstractSpinBox*>(focus);
  if (event->type() == QEvent::KeyPress && callout_->isVisible() && window_->isActiveWindow() && !typing) {
    const int key = static_cast<QKeyEvent*>(event)->key();
    if (key == Qt::Key_Escape) return end(), true;
    if (key == Qt::Key_Right || key == Qt::Key_Return || key == Qt::Key_Enter) return next(), true;
    if (key == Qt::Key_Left) return back(), true;
  }
  return QObject::eventFilter(watched, event);
}

}  // namespace attnlab::ui
