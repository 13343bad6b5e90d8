// The tests' byte-level vocabulary: every one of GPT-2's byte symbols as vocab.json spells it,
// id = byte, then `extra` pieces with ids 256, 257, …
#pragma once

#include <string>
#include <vector>

#include "subword/bpe.h"

inline std::string byte_vocab_json(const std::vector<std::string>& extra) {
  std::string v = "{";
  const auto& s = attnlab::subword::byte_symbols();
  const auto entry = [&v](const std::string& piece, size_t id) {
    std::string esc;
    for (char c : piece) esc += (c == '"' || c == '\\') ? std::string("\\") + c : std::string(1, c);
    v += (id ? "," : "") + std::string("\"") + esc + "\":" + std::to_string(id);
  };
  for (size_t b = 0; b < 256; ++b) entry(s[b], b);
  for (size_t i = 0; i < extra.size(); ++i) entry(extra[i], 256 + i);
  return v + "}";
}

// Every byte symbol, and <|endoftext|> as id 256 when asked.
inline std::string every_byte_vocab(bool endoftext = false) {
  return byte_vocab_json(endoftext ? std::vector<std::string>{"<|endoftext|>"} : std::vector<std::string>{});
}
