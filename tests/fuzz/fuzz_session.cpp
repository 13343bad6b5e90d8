// libFuzzer target for the session reader (.attnlab): any bytes must either parse or raise a
// DataError naming the file (never crash, hang or read out of bounds); whatever parses must
// survive writing and reading again unchanged.
#include <cstdint>
#include <cstdlib>
#include <string>

#include "io/session.h"
#include "text/errors.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  using namespace attnlab;
  const std::string text(reinterpret_cast<const char*>(data), size);
  Session s;
  try {
    s = parse_session(text, "fuzz.attnlab");
  } catch (const DataError& e) {
    if (std::string(e.what()).rfind("fuzz.attnlab: ", 0) != 0) std::abort();
    return 0;
  }
  const std::string once = session_json(s);
  if (session_json(parse_session(once, "again")) != once) std::abort();
  return 0;
}
