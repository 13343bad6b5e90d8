// The command line's comma-separated lists (--explain, --ablate, --full-heads) and the whole
// numbers in them (a layer, a head).
#pragma once

#include <charconv>
#include <cstdint>
#include <string_view>
#include <system_error>
#include <vector>

namespace attnlab {

// "a,b,,c" → {"a", "b", "", "c"}: empty items kept so that the caller refuses them by name.

inline std::vector<std::string_view> split_commas(std::string_view list) {
  std::vector<std::string_view> out;
  for (size_t start = 0;;) {
    const size_t comma = list.find(',', start);
    out.push_back(list.substr(start, comma == std::string_view::npos ? std::string_view::npos : comma - start));
    if (comma == std::string_view::npos) return out;
    start = comma + 1;
  }
}

// A whole number from 0 that is all of `s` ("12", not "", "-1", "1x" or " 1"): true and `out` set.
inline bool parse_index(std::string_view s, int64_t& out) {
  if (s.empty()) return false;
  const auto [end, ec] = std::from_chars(s.data(), s.data() + s.size(), out);
  return ec == std::errc() && end == s.data() + s.size() && out >= 0;
}

}  // namespace attnlab
