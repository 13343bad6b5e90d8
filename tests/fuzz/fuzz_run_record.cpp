// libFuzzer target for a recorded run's run.json (the Training panel's "Open recorded run…"): any
// bytes must either parse or raise DataError (never crash, never name a file outside the folder),
// and what parses must come back the same when written and read again.
#include <cstdint>
#include <cstdlib>
#include <string>

#include "text/errors.h"
#include "training/run_record.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  const std::string bytes(reinterpret_cast<const char*>(data), size);
  attnlab::RunRecord r;
  try {
    r = attnlab::parse_run_record(bytes, "run.json");
  } catch (const attnlab::DataError&) {
    return 0;
  }
  for (const auto& [step, file] : r.snapshots)
    if (file.find('/') != std::string::npos || file.find("..") != std::string::npos) std::abort();
  const attnlab::RunRecord again = attnlab::parse_run_record(attnlab::run_record_json(r, attnlab::TrainSetup{}), "again.json");
  if (again.snapshots != r.snapshots || again.curves.size() != r.curves.size() || again.task != r.task) std::abort();
  return 0;
}
