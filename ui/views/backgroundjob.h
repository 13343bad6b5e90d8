// One computation at a time off the window's thread, for a panel that shows its newest result
// (the Explanations and Logit lens panels): run() starts `work` with a stop flag of its own;
// stop() sets it — the panel's result went out of date, or the panel closes — and core's long
// loops give up at their next re-run of the model (explain/stop.h: Cancelled), so that closing
// the window never waits for S or L·H forward passes nobody will see.
#pragma once

#include <QCoreApplication>
#include <QFutureWatcher>
#include <QObject>
#include <QtConcurrent>

#include <atomic>
#include <functional>
#include <memory>

namespace attnlab::ui {

template <typename Outcome>
class BackgroundJob {
 public:
  // `finished` is called on the window's thread when a run ends (stopped ones included).
  BackgroundJob(QObject* owner, std::function<void()> finished) : watcher_(new QFutureWatcher<Outcome>(owner)) {
    QObject::connect(watcher_, &QFutureWatcher<Outcome>::finished, owner, [this, done = std::move(finished)] {
      delivered_ = true;  // before `done`, which may run() again
      done();
    });
  }
  ~BackgroundJob() {  // before the owner's children (the watcher) go
    stop();
    watcher_->waitForFinished();
  }
  BackgroundJob(const BackgroundJob&) = delete;
  BackgroundJob& operator=(const BackgroundJob&) = delete;

  bool running() const { return watcher_->isRunning(); }
  void run(std::function<Outcome(const std::atomic<bool>* stop)> work) {
    stop_ = std::make_shared<std::atomic<bool>>(false);
    delivered_ = false;
    watcher_->setFuture(QtConcurrent::run([work = std::move(work), flag = stop_] { return work(flag.get()); }));
  }
  void stop() {
    if (stop_) stop_->store(true);
  }
  Outcome result() const { return watcher_->result(); }
  // Until no run is going and the last one's finished handler (which may start another) has run:
  // a run can end before its finished signal reaches the window's thread.
  void waitForIdle() {
    while (!delivered_) {
      watcher_->waitForFinished();
      QCoreApplication::processEvents();
    }
  }

 private:
  QFutureWatcher<Outcome>* watcher_;
  std::shared_ptr<std::atomic<bool>> stop_;
  bool delivered_ = true;  // the last run's finished handler has run (the window's thread only)
};

}  // namespace attnlab::ui
