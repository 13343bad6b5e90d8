// libFuzzer target for the safetensors reader: any bytes must either parse or raise DataError
// (never crash, hang or read out of bounds), and whatever parses must survive a round trip.
#include <cstdint>
#include <cstdlib>
#include <string>

#include "io/safetensors.h"
#include "text/errors.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  const std::string bytes(reinterpret_cast<const char*>(data), size);
  attnlab::SafetensorsFile f;
  try {
    f = attnlab::parse_safetensors(bytes);
  } catch (const attnlab::DataError&) {
    return 0;
  }
  const std::string again = attnlab::serialize_safetensors(f.tensors, f.metadata);
  const auto g = attnlab::parse_safetensors(again);
  if (g.tensors.size() != f.tensors.size() || g.metadata != f.metadata) std::abort();
  return 0;
}
