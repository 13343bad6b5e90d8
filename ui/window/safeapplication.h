// The application object of the window: the last line of defence against an exception that an
// event handler let escape. Qt cannot carry an exception through its event loop (the process
// would end); notify() catches it at the handler's edge, shows the message in a box and goes on
// with the event loop, so the window keeps what it had. Handlers still catch what they expect
// and say it in their own words; this is for what nobody expected.
#pragma once

#include <QApplication>

namespace attnlab::ui {

class SafeApplication : public QApplication {
  Q_OBJECT
 public:
  SafeApplication(int& argc, char** argv);
  bool notify(QObject* receiver, QEvent* event) override;

  // The messages caught so far (tests read it); each was also shown and printed on stderr.
  int caughtCount() const { return caught_; }
  QString lastCaught() const { return last_; }

 private:
  void report(const QString& what);
  int caught_ = 0;
  QString last_;
  bool showing_ = false;
};

}  // namespace attnlab::ui
