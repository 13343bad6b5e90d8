// The lines of a tokenizer file, as its readers take them, and the refusal naming the file.
#pragma once

#include <cstddef>
#include <string>
#include <string_view>

#include "text/errors.h"

namespace attnlab::subword {

// f(number, line) for each line of `text`, numbered from 1, without its "\n" or "\r\n" (the last
// line may lack its end; a text ending in "\n" has no empty line after it).
template <typename F>
void for_each_line(std::string_view text, F f) {
  size_t pos = 0, number = 0;
  while (pos < text.size()) {
    size_t nl = text.find('\n', pos);
    if (nl == std::string_view::npos) nl = text.size();
    std::string_view line = text.substr(pos, nl - pos);
    pos = nl + 1;
    if (!line.empty() && line.back() == '\r') line.remove_suffix(1);
    f(++number, line);
  }
}

// "<origin>: <why>": a tokenizer file refused, its name first.
inline DataError file_error(const std::string& origin, Text why) {
  return DataError(Text(Msg::io_name_colon, origin) + why);
}

}  // namespace attnlab::subword
