// The fuzz targets' byte-level vocabulary: every one of GPT-2's byte symbols as vocab.json spells
// it, id = byte, and optionally <|endoftext|> as id 256.
#pragma once

#include <string>

#include "subword/bpe.h"

inline std::string every_byte_vocab(bool endoftext = false) {
  std::string v = "{";
  const auto& s = attnlab::subword::byte_symbols();
  for (int b = 0; b < 256; ++b) {
    std::string esc;
    for (char c : s[static_cast<size_t>(b)]) esc += (c == '"' || c == '\\') ? std::string("\\") + c : std::string(1, c);
    v += (b ? "," : "") + std::string("\"") + esc + "\":" + std::to_string(b);
  }
  return v + (endoftext ? ",\"<|endoftext|>\":256}" : "}");
}
