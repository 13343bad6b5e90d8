// libFuzzer target for the .npy reader (export --loss mse --target): any bytes must either parse
// or raise DataError (never crash, overflow a size or read out of bounds), and whatever parses
// must come back the same when written as an f4 .npy again.
#include <cstdint>
#include <cstdlib>
#include <cstring>
#include <string>

#include "io/npz.h"
#include "text/errors.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  const std::string bytes(reinterpret_cast<const char*>(data), size);
  attnlab::Tensor t;
  try {
    t = attnlab::parse_npy("fuzz.npy", bytes);
  } catch (const attnlab::DataError&) {
    return 0;
  }
  std::string again = attnlab::npy_header(t.shape());
  again.append(reinterpret_cast<const char*>(t.data()), static_cast<size_t>(t.numel()) * sizeof(float));
  const attnlab::Tensor u = attnlab::parse_npy("again.npy", again);
  if (u.shape() != t.shape() || std::memcmp(u.data(), t.data(), static_cast<size_t>(t.numel()) * sizeof(float)) != 0)
    std::abort();
  return 0;
}
