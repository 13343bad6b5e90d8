// attnlab: the command line. Subcommands run headless; without one the GUI opens (issue 3).
#include <CLI/CLI.hpp>

#include <malloc.h>

#include <cstdio>
#include <iostream>

#include <QApplication>
#include <QIcon>
#include <QSettings>
#include <QTimer>

#include "cli_common.h"
#include "errors.h"
#include "mainwindow.h"
#include "windowhost.h"

namespace attnlab::cli {
void add_export_command(CLI::App& app);
void add_bench_command(CLI::App& app);
void add_exercise_command(CLI::App& app);
}  // namespace attnlab::cli

namespace {

// No subcommand: the step-through window on the built-in sample.
int run_gui(int argc, char** argv) {
  QApplication qapp(argc, argv);
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

int fail(int status, const std::string& msg) {
  std::fprintf(stderr, "attnlab: error: %s\n", msg.c_str());
  return status;
}

}  // namespace

int main(int argc, char** argv) {
  // Attention tensors are large (tens of MiB) and short-lived: keep freed blocks in the heap for
  // reuse instead of returning them to the kernel and faulting fresh zero pages in each time.
  mallopt(M_MMAP_THRESHOLD, 1 << 30);
  mallopt(M_TRIM_THRESHOLD, 1 << 30);
  CLI::App app{"Attention Lab: watch multi-head attention compute, step by step", "attnlab"};
  app.set_version_flag("--version", std::string("attnlab ") + ATTNLAB_VERSION);
  app.require_subcommand(0, 1);
  attnlab::cli::add_export_command(app);
  attnlab::cli::add_bench_command(app);
  attnlab::cli::add_exercise_command(app);
  try {
    app.parse(argc, argv);
    if (app.get_subcommands().empty()) return run_gui(argc, argv);
  } catch (const CLI::CallForHelp& e) {
    return app.exit(e);
  } catch (const CLI::CallForAllHelp& e) {
    return app.exit(e);
  } catch (const CLI::CallForVersion& e) {
    return app.exit(e);
  } catch (const CLI::ParseError& e) {
    return fail(2, e.what());
  } catch (const attnlab::ConfigError& e) {
    return fail(2, e.what());
  } catch (const attnlab::DataError& e) {
    return fail(1, e.what());
  } catch (const std::bad_alloc&) {
    return fail(1, "out of memory; try a smaller configuration or a lower --memory-budget");
  } catch (const std::exception& e) {
    return fail(1, e.what());
  }
  return 0;
}
