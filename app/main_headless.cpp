// attnlab-headless: the subcommands without the window or Qt (ATTNLAB_HEADLESS), for the
// sanitizer run of CI: core and the command line under ASan + UBSan, ui/ left out. PNG and SVG
// heatmaps, drawn by the window's renderer, are refused by name.
#include <cstdio>

#include "cli_common.h"
#include "io/files.h"

int main(int argc, char** argv) {
  attnlab::cli::sanitize_thread_environment();
  attnlab::install_cleanup_on_signals();
  return attnlab::cli::run_command_line(argc, argv, [](int, char**, const attnlab::cli::WindowRequest&) {
    std::fprintf(stderr, "attnlab: error: this headless build has no window; give a subcommand (export, bench, exercise)\n");
    return 2;
  });
}
