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

namespace {

// The window's own options, at the top level; none of them goes with a subcommand.
void add_window_options(CLI::App& app, WindowRequest& w) {
  app.add_option("file", w.session, "a session (.attnlab) to open in the window");
  app.add_option("--step", w.step, "open at this step id (e.g. encoder.layers.0.self_attn.weights)");
  app.add_flag("--presenter", w.presenter, "open in presenter mode, full screen");
  app.add_option("--language", w.language, "the window's language for this run: en or zh");
}

void check_window_options(const CLI::App& app, const WindowRequest& w) {
  if (!w.language.empty() && w.language != "en" && w.language != "zh")
    throw ConfigError(Text(Msg::io_name_colon, "--language") + Text(Msg::not_one_of, w.language, "en, zh"));
  if (app.get_subcommands().empty()) return;
  for (const char* name : {"file", "--step", "--presenter", "--language"})
    if (app.count(name) > 0) throw ConfigError(Text(Msg::cli_window_option_with_subcommand, name));
}

}  // namespace

int run_command_line(int argc, char** argv, const WindowEntry& gui, bool check_only) {
  CLI::App app{"Attention Lab: watch multi-head attention compute, step by step", "attnlab"};
  app.set_version_flag("--version", std::string("attnlab ") + ATTNLAB_VERSION);
  app.require_subcommand(0, 1);
  Chosen chosen;
  WindowRequest window;
  add_window_options(app, window);
  add_export_command(app, chosen);
  add_bench_command(app, chosen);
  add_exercise_command(app, chosen);
  add_train_command(app, chosen);
  add_tokenize_command(app, chosen);
  try {
    app.parse(argc, argv);
    check_window_options(app, window);
    if (app.get_subcommands().empty()) return check_only ? 0 : gui(argc, argv, window);
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
    return fail(1, Text(Msg::cli_out_of_memory).english());
  } catch (const std::exception& e) {
    return fail(1, e.what());
  }
  return 0;
}

}  // namespace attnlab::cli
