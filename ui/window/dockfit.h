// Keeps the centre of the window (the step) at least minCentre() px wide (560 at zoom 100 %, more
// at a larger zoom), at every window size and
// zoom: when it gets narrower, the side docks narrow towards their own minimum widths (the right
// ones first: the input panel wraps), then the Steps dock leaves the left side and joins the
// right-hand docks as a tab; when the window has room again, it goes back to the left. A dock the
// user floated, closed or moved elsewhere is left where the user put it. The window's own layout
// only shares out what is left; this decides what goes where.
#pragma once

#include <QObject>

class QDockWidget;
class QMainWindow;
class QTimer;

namespace attnlab::ui {

class DockFitter : public QObject {
  Q_OBJECT
 public:
  static constexpr int kMinCentre = 560;  // at zoom 100 % (minCentre: more at a larger zoom)
  int minCentre() const;
  DockFitter(QMainWindow* window, QDockWidget* steps, QDockWidget* inputs);
  void fit();  // now (it also runs by itself after every resize and font change)
  // Before the type grows by `ratio` (zoom): when the docks' minimum widths, grown as much, would
  // leave the centre less than kMinCentre, the Steps dock tabs away first — otherwise the window
  // itself would grow past the screen to honour them.
  void beforeFontScale(double ratio);
  bool stepsTabbed() const { return tabbed_; }  // the Steps dock sits with the right-hand docks
  // A restored layout in which this put the Steps dock on the right (the settings remember it),
  // so that a wider screen later gives it back to the left.
  void adoptTabbed(bool tabbed) { tabbed_ = tabbed; }

 protected:
  bool eventFilter(QObject* watched, QEvent* event) override;

 private:
  int sideWidth(int area) const;     // the widest visible docked widget of a Qt::DockWidgetArea
  int sideMinimum(int area) const;   // the widest of their minimum widths
  void narrow(int area, int* need);  // takes up to *need px from that side, down to its minimum
  bool stepsDocked(int area) const;
  bool tabSteps();  // the Steps dock joins the inputs on the right; false when it cannot

  QMainWindow* w_;
  QDockWidget *steps_, *inputs_;
  QTimer* timer_;
  int stepsWidth() const;
  double typeScale() const;  // the window's type against the application's: the zoom  // the Steps dock's width on the left: kStepsWidth, or its minimum when wider
  bool tabbed_ = false;    // we put the Steps dock on the right (and take it back)
  bool resized_ = false;   // the window was resized (or its font changed) since the last pass
  int passes_ = 0;         // narrowing passes since the centre was last wide enough
};

}  // namespace attnlab::ui
