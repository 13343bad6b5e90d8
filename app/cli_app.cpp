// The command line as one function, shared by the window's attnlab, the headless build and the
// fuzzer: CLI11 parses (subcommands only record what they will do), then the chosen one runs,
// and every error becomes one line and an exit status (docs/cli.md).
#include <cstdio>

#include "cli_common.h"
#include "io/files.h"
#include "text/errors.h"

namespace attnlab::cli {

namespace {

// One line, always: a name that carried a newline or a NUL is printed escaped (files.h).
int fail(int status, const std::string& msg) {
  std::fprintf(stderr, "attnlab: error: %s\n", printable_name(msg).c_str());
  return status;
}

}  // namespace

int run_command_line(int argc, char** argv, const std::function<int(int, char**)>& gui, bool check_only) {
  CLI::App app{"Attention Lab: watch multi-head attention compute, step by step", "attnlab"};
  app.set_version_flag("--version", std::string("attnlab ") + ATTNLAB_VERSION);
  app.require_subcommand(0, 1);
  Chosen chosen;
  add_export_command(app, chosen);
  add_bench_command(app, chosen);
  add_exercise_command(app, chosen);
  try {
    app.parse(argc, argv);
    if (app.get_subcommands().empty()) return check_only ? 0 : gui(argc, argv);
    (check_only ? chosen.check : chosen.run)();
  } catch (const CLI::CallForHelp& e) {
    return check_only ? 0 : app.exit(e);
  } catch (const CLI::CallForAllHelp& e) {
    return check_only ? 0 : app.exit(e);
  } catch (const CLI::CallForVersion& e) {
    return check_only ? 0 : app.exit(e);
  } catch (const CLI::ParseError& e) {
    return fail(2, e.what());
  } catch (const ConfigError& e) {
    return fail(2, e.what());
  } catch (const DataError& e) {
    return fail(1, e.what());
  } catch (const std::bad_alloc&) {
    return fail(1, "out of memory; try a smaller configuration or a lower --memory-budget");
  } catch (const std::exception& e) {
    return fail(1, e.what());
  }
  return 0;
}

}  // namespace attnlab::cli
