// The window's responsiveness, measured as a teacher feels it (issue 20): not a timed test, a
// benchmark run by hand. On the offscreen platform at a classroom size (1024×768):
//   step      key press (→) until the step panel has repainted, over every step of the built-in
//             sample, median and worst;
//   knob      a knob change (heads 8 → 4 → 8) until the new result is on screen, median;
//   long text the longest stall of the GUI thread (the largest gap between 1-ms timer ticks) while
//             stepping with → through every step of a 3,000-word text, and the median step.
// Prints one line per figure. Aim: a step within 50 ms, a knob within 100 ms, no stall over 100 ms.
//
//   cmake --preset bench && cmake --build --preset bench --target bench_gui
//   QT_QPA_PLATFORM=offscreen build/bench/bench/bench_gui [words=3000]
#include <QApplication>
#include <QElapsedTimer>
#include <QEventLoop>
#include <QSettings>
#include <QSpinBox>
#include <QTemporaryDir>
#include <QTest>
#include <QTimer>

#include <algorithm>
#include <cstdio>
#include <cstdlib>
#include <vector>

#include "input/inputpanel.h"
#include "step/stepnavigator.h"
#include "step/steppanel.h"
#include "views/heatmapgrid.h"
#include "window/controller.h"
#include "window/mainwindow.h"

using namespace attnlab::ui;

namespace {

// Watches the GUI thread: a 1-ms timer whose largest gap between ticks is the longest stall.
class StallMeter : public QObject {
 public:
  StallMeter() {
    timer_.setInterval(1);
    connect(&timer_, &QTimer::timeout, this, [this] {
      const qint64 now = clock_.nsecsElapsed();
      if (last_ > 0) worst_ = std::max(worst_, now - last_);
      last_ = now;
    });
  }
  void start() {
    worst_ = last_ = 0;
    clock_.start();
    timer_.start();
  }
  double stop() {
    timer_.stop();
    return static_cast<double>(worst_) / 1e6;
  }

 private:
  QTimer timer_;
  QElapsedTimer clock_;
  qint64 last_ = 0, worst_ = 0;
};

double median(std::vector<double> v) {
  if (v.empty()) return 0;
  std::sort(v.begin(), v.end());
  return v[v.size() / 2];
}

void settle(MainWindow& w) {
  QTest::qWait(250);  // past the input debounce
  w.controller()->waitForIdle();
  QCoreApplication::processEvents();
}

// → then everything the event loop has to do until the panel is painted (grab paints it now).
double stepOnce(MainWindow& w, StepPanel* panel) {
  QElapsedTimer t;
  t.start();
  QTest::keyClick(&w, Qt::Key_Right);
  const double a = t.nsecsElapsed() / 1e6;
  QCoreApplication::processEvents();
  const double b = t.nsecsElapsed() / 1e6;
  panel->grab();
  if (std::getenv("BENCH_PHASES")) std::printf("    key %.1f, events %.1f, paint %.1f\n", a, b - a, t.nsecsElapsed() / 1e6 - b);
  return static_cast<double>(t.nsecsElapsed()) / 1e6;
}

// Steps through every step; returns each step's time; *stall gets the longest GUI stall (also
// counting the large heatmaps finished on the worker threads).
std::vector<double> stepThrough(MainWindow& w, double* stall) {
  StallMeter meter;
  std::vector<double> times;
  w.navigator()->first();
  if (QWidget* f = QApplication::focusWidget()) f->clearFocus();  // the keys step unless one is typing
  w.activateWindow();
  QCoreApplication::processEvents();
  meter.start();
  const int n = w.navigator()->count();
  for (int i = 1; i < n; ++i) {
    times.push_back(stepOnce(w, w.stepPanel()));
    if (std::getenv("BENCH_VERBOSE"))
      std::printf("  %6.1f ms  %s\n", times.back(),
                  w.controller()->current()->trace.steps()[static_cast<size_t>(w.navigator()->current())].info.id.c_str());
    QTest::qWait(5);  // the ticks between key presses, as a teacher's pace would leave them
    while (w.stepPanel()->heatmaps()->drawing()) QTest::qWait(5);
  }
  *stall = meter.stop();
  if (w.navigator()->current() != n - 1) {
    std::printf("the keys did not step (at %d of %d)\n", w.navigator()->current(), n);
    std::exit(1);
  }
  return times;
}

}  // namespace

int main(int argc, char** argv) {
  QApplication app(argc, argv);
  // Settings of its own, empty: a window restores the last run's sentences otherwise.
  QTemporaryDir settings;
  QSettings::setPath(QSettings::NativeFormat, QSettings::UserScope, settings.path());
  QCoreApplication::setOrganizationName(QStringLiteral("AttentionLabBench"));
  QSettings().clear();
  const int words = argc > 1 ? std::max(10, std::atoi(argv[1])) : 3000;
  MainWindow w(QStringLiteral("bench-gui"));
  w.resize(1024, 768);
  w.show();
  if (!QTest::qWaitForWindowExposed(&w)) return 1;
  settle(w);

  double stall = 0;
  const std::vector<double> steps = stepThrough(w, &stall);
  std::printf("step (built-in sample, 1024x768): median %.1f ms, worst %.1f ms over %zu steps; longest stall %.1f ms\n",
              median(steps), *std::max_element(steps.begin(), steps.end()), steps.size(), stall);

  // A knob: from the value changing to the new result painted (the input debounce included: it is
  // part of what the teacher waits for).
  std::vector<double> knobs;
  QSpinBox* heads = w.inputs()->findChild<QSpinBox*>(QStringLiteral("heads"));
  for (int i = 0; heads && i < 8; ++i) {
    QEventLoop loop;  // the GUI thread sleeps while the worker computes, as it does for a teacher
    bool arrived = false;
    double requested = -1;
    QElapsedTimer t;
    const auto rq = QObject::connect(w.inputs(), &InputPanel::requestChanged, &w,
                                     [&] { requested = static_cast<double>(t.nsecsElapsed()) / 1e6; });
    const auto c = QObject::connect(w.controller(), &Controller::resultReady, &w, [&arrived, &loop] {
                                      arrived = true;
                                      loop.quit();
                                    },
                                    Qt::QueuedConnection);  // after the window's own handler has shown it
    t.start();
    heads->setValue(i % 2 == 0 ? 4 : 8);
    QTimer::singleShot(10000, &loop, &QEventLoop::quit);
    if (!arrived) loop.exec();
    w.stepPanel()->grab();
    knobs.push_back(static_cast<double>(t.nsecsElapsed()) / 1e6);
    QObject::disconnect(c);
    QObject::disconnect(rq);
    if (std::getenv("BENCH_VERBOSE")) std::printf("  knob %d: request after %.1f ms, shown after %.1f ms\n", i, requested, knobs.back());
    QTest::qWait(20);
  }
  if (!knobs.empty()) std::printf("knob (heads 8 <-> 4, input debounce included): median %.1f ms\n", median(knobs));

  QString text;
  for (int i = 0; i < words; ++i) text += QStringLiteral("word%1 ").arg(i % 997);
  Request r = w.inputs()->currentRequest();
  r.texts = QStringList{text.trimmed()};
  r.memoryTexts.clear();
  r.cfg.heads = 8;
  w.inputs()->restore(r);
  settle(w);
  while (w.controller()->busy()) QTest::qWait(50);
  settle(w);
  const auto result = w.controller()->current();
  const qint64 tokens = result ? result->batch.text.tokens.front().size() : 0;
  if (tokens < words) {
    std::printf("long text: the window did not compute the %d-word text (it has %lld tokens)\n", words, tokens);
    return 1;
  }
  int widest = 0;
  for (const auto& step : result->trace.steps())
    if (step.tensor.dim() == 4) widest = std::max<int>(widest, static_cast<int>(step.tensor.size(3)));
  std::printf("long text: %lld tokens, %zu steps, widest attention map %d keys, overview %s\n", tokens,
              result->trace.steps().size(), widest, result->cfg.overview_cap > 0 ? "on" : "off");
  const std::vector<double> long_steps = stepThrough(w, &stall);
  std::printf("long text (%d words, 1024x768): step median %.1f ms, worst %.1f ms; longest GUI stall %.1f ms\n", words,
              median(long_steps), *std::max_element(long_steps.begin(), long_steps.end()), stall);
  if (std::getenv("BENCH_NO_REFERENCE")) return 0;
  // The reference in the same run: every heatmap drawn on the GUI thread, as before the worker.
  w.stepPanel()->heatmaps()->setDrawOffThread(false);
  const std::vector<double> inline_steps = stepThrough(w, &stall);
  std::printf("long text, heatmaps drawn on the GUI thread (reference): step median %.1f ms, worst %.1f ms; longest GUI stall %.1f ms\n",
              median(inline_steps), *std::max_element(inline_steps.begin(), inline_steps.end()), stall);
  return 0;
}
