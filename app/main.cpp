// attnlab: the command line. Subcommands run headless; without one the GUI opens (issue 3).
#include <malloc.h>

#include <cstdio>
#include <optional>

#include <QApplication>
#include <QFile>
#include <QIcon>

#include "cli_common.h"
#include "io/files.h"
#include "window/launch.h"
#include "window/mainwindow.h"
#include "window/safeapplication.h"
#include "window/windowhost.h"

namespace {

// No subcommand: the step-through window — as it was left, or on the session, step, mode and
// language the command line names (ui/window/launch.h). What cannot be opened is said on stderr
// as well as in the window, which opens anyway.
int run_gui(int argc, char** argv, const attnlab::cli::WindowRequest& request) {
  attnlab::ui::SafeApplication qapp(argc, argv);  // an escaped exception becomes a message, not a crash
  QApplication::setOrganizationName(QStringLiteral("AttentionLab"));
  QApplication::setApplicationName(QStringLiteral("attnlab"));
  QApplication::setApplicationVersion(QStringLiteral(ATTNLAB_VERSION));
  QApplication::setDesktopFileName(QStringLiteral("org.attnlab.AttentionLab"));  // the installed .desktop entry
  QIcon icon;
  for (const char* size : {"48", "256"}) icon.addFile(QStringLiteral(":/icons/attnlab-%1.png").arg(QLatin1String(size)));
  QApplication::setWindowIcon(icon);
  std::optional<attnlab::ui::UiLanguage> language;
  if (request.language == "en") language = attnlab::ui::UiLanguage::English;
  if (request.language == "zh") language = attnlab::ui::UiLanguage::Chinese;
  attnlab::ui::WindowHost host(QStringLiteral("main"), nullptr, language);  // rebuilt when the language changes
  const auto say = [](const QString& problem) {
    std::fprintf(stderr, "attnlab: error: %s\n", qPrintable(QString(problem).replace(QLatin1Char('\n'), QLatin1Char(' '))));
  };
  QObject::connect(host.window(), &attnlab::ui::MainWindow::stepMissing, say);
  for (const QString& problem :
       attnlab::ui::launch(host, {QFile::decodeName(request.session.c_str()), QString::fromStdString(request.step),
                                  request.presenter}))
    say(problem);
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
