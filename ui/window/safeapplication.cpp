#include "window/safeapplication.h"

#include <QMessageBox>
#include <QTimer>
#include <QWidget>

#include <cstdio>
#include <new>

#include "io/files.h"
#include "words/coretext.h"

namespace attnlab::ui {

SafeApplication::SafeApplication(int& argc, char** argv) : QApplication(argc, argv) {}

bool SafeApplication::notify(QObject* receiver, QEvent* event) {
  try {
    return QApplication::notify(receiver, event);
  } catch (const std::bad_alloc&) {
    report(tr("There was not enough memory for that. Try a smaller configuration or a lower memory budget."));
  } catch (const std::exception& e) {
    report(CoreText::of(e));
  } catch (...) {
    report(tr("An unexpected error occurred."));
  }
  return false;
}

void SafeApplication::report(const QString& what) {
  ++caught_;
  last_ = what;
  std::fprintf(stderr, "attnlab: error: %s\n", qPrintable(what));
  if (showing_) return;  // one box at a time; the rest are on stderr
  // Shown from the event loop, not from inside the handler that failed.
  QTimer::singleShot(0, this, [this, what] {
    showing_ = true;
    QMessageBox::warning(activeWindow(), tr("Attention Lab"),
                         tr("%1\n\nThe window keeps what it had; you can go on working.").arg(what));
    showing_ = false;
  });
}

}  // namespace attnlab::ui
