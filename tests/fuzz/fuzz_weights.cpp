// libFuzzer target for the weights loader through the real `--weights FILE` path: the input is
// written to a file and `attnlab export --weights FILE --out DIR` runs its checks (the file read
// with its size limit, the safetensors parse, the metadata and the configuration it makes, every
// tensor against the expected parameters), once as it stands and once with --heads 2 (a file
// without metadata needs it). The outcome must be exit status 0, 1 or 2, nothing else.
#include <unistd.h>

#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <string>
#include <vector>

#include "cli_common.h"

namespace {

const std::string& folder() {
  static const std::string dir = [] {
    char tmpl[] = "/tmp/attnlab-fuzz-weights-XXXXXX";
    if (!mkdtemp(tmpl)) std::abort();
    return std::string(tmpl);
  }();
  return dir;
}

int check(std::vector<std::string> args) {
  std::vector<char*> argv;
  for (auto& a : args) argv.push_back(a.data());
  argv.push_back(nullptr);
  return attnlab::cli::run_command_line(static_cast<int>(args.size()), argv.data(), [](int, char**, const attnlab::cli::WindowRequest&) { return 0; },
                                        /*check_only=*/true);
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  const std::string file = folder() + "/weights.safetensors";
  FILE* f = std::fopen(file.c_str(), "wb");
  if (!f) std::abort();
  if (size && std::fwrite(data, 1, size, f) != size) std::abort();
  std::fclose(f);
  const std::string out = folder() + "/out";
  for (const auto& extra : {std::vector<std::string>{}, std::vector<std::string>{"--heads", "2"}}) {
    std::vector<std::string> args{"attnlab", "export", "--weights", file, "--out", out, "--text", "the cat sat"};
    args.insert(args.end(), extra.begin(), extra.end());
    const int rc = check(args);
    if (rc < 0 || rc > 2) std::abort();
  }
  return 0;
}
