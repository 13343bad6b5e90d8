// libFuzzer target for the command line: the input, split at NUL bytes, is argv after
// "attnlab". Every subcommand's checks run (options, ranges, files named by --weights,
// --text-file, --out, the memory estimate), never its work. Whatever the arguments, the result
// must be exit status 0, 1 or 2 — never a crash, a hang, an escaped exception or a sanitizer report.
#include <cstdint>
#include <cstdlib>
#include <string>
#include <vector>

#include "cli_common.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  std::vector<std::string> args{"attnlab"};
  std::string arg;
  for (size_t i = 0; i < size && args.size() < 40; ++i) {
    if (data[i] == 0) {
      args.push_back(arg);
      arg.clear();
    } else {
      arg += static_cast<char>(data[i]);
    }
  }
  if (!arg.empty() && args.size() < 40) args.push_back(arg);
  std::vector<char*> argv;
  for (auto& a : args) argv.push_back(a.data());
  argv.push_back(nullptr);
  const int rc = attnlab::cli::run_command_line(static_cast<int>(args.size()), argv.data(),
                                                [](int, char**, const attnlab::cli::WindowRequest&) { return 0; }, /*check_only=*/true);
  if (rc < 0 || rc > 2) std::abort();
  return 0;
}
