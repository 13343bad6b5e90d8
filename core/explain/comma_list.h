// "a,b,,c" → {"a", "b", "", "c"}: the command line's comma-separated lists (--explain, --ablate),
// empty items kept so that the caller refuses them by name.
#pragma once

#include <string_view>
#include <vector>

namespace attnlab::explain {

inline std::vector<std::string_view> split_commas(std::string_view list) {
  std::vector<std::string_view> out;
  for (size_t start = 0;;) {
    const size_t comma = list.find(',', start);
    out.push_back(list.substr(start, comma == std::string_view::npos ? std::string_view::npos : comma - start));
    if (comma == std::string_view::npos) return out;
    start = comma + 1;
  }
}

}  // namespace attnlab::explain
