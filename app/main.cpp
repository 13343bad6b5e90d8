// attnlab: the command line. Subcommands run headless; without one the GUI opens (issue 3).
#include <malloc.h>

#include <QApplication>
#include <QIcon>
#include <QSettings>
#include <QTimer>

#include "cli_common.h"
#include "io/files.h"
#include "window/mainwindow.h"
#include "window/safeapplication.h"
#include "window/windowhost.h"

namespace {

// No subcommand: the step-through window on the built-in sample.
int run_gui(int argc, char** argv) {
  attnlab::ui::SafeApplication qapp(argc, argv);  // an escaped exception becomes a message, not a crash
  QApplication::setOrganizationName(QStringLiteral("AttentionLab"));
  QApplication::setApplicationName(QStringLiteral("attnlab"));
  QApplication::setApplicationVersion(QStringLiteral(ATTNLAB_VERSION));
  QApplication::setDesktopFileName(QStringLiteral("org.attnlab.AttentionLab"));  // the installed .desktop entry
  QIcon icon;
  for (const char* size : {"48", "256"}) icon.addFile(QStringLiteral(":/icons/attnlab-%1.png").arg(QLatin1String(size)));
  QApplication::setWindowIcon(icon);
  attnlab::ui::WindowHost host;  // the window, in the saved language; rebuilt when it changes
  host.window()->show();
  if (!QSettings().value(QStringLiteral("tourSeen"), false).toBool())  // the first start: the guided tour
    QTimer::singleShot(0, host.window(), [&host] { host.window()->startTour(); });
  return QApplication::exec();
}

}  // namespace

int main(int argc, char** argv) {
  // Attention tensors are large (tens of MiB) and short-lived: keep freed blocks in the heap for
  // reuse instead of returning them to the kernel and faulting fresh zero pages in each time.
  mallopt(M_MMAP_THRESHOLD, 1 << 30);
  mallopt(M_TRIM_THRESHOLD, 1 << 30);
  attnlab::cli::sanitize_thread_environment();  // before OpenMP reads OMP_NUM_THREADS
  attnlab::install_cleanup_on_signals();          // Ctrl+C mid-export leaves no temporary behind
  return attnlab::cli::run_command_line(argc, argv, run_gui);
}
