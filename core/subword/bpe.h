// GPT-2's byte-level BPE tokenizer from a checkpoint's vocab.json and merges.txt, as published
// with GPT-2 (encoder.py) and as Hugging Face's GPT2Tokenizer runs it:
//   1. `<|endoftext|>` (when the vocabulary has it) is one token wherever it is typed;
//   2. the rest is cut by GPT-2's pattern
//        's|'t|'re|'ve|'m|'ll|'d| ?\p{L}+| ?\p{N}+| ?[^\s\p{L}\p{N}]+|\s+(?!\S)|\s+
//      (no normalisation: the text is read as typed);
//   3. each piece's UTF-8 bytes become printable characters (bytes_to_unicode: a space is Ġ,
//      a newline Ċ), and adjacent symbols are merged, lowest merge rank first, until no pair of
//      them is a merge;
//   4. each symbol is looked up in the vocabulary; one it lacks is kept, marked unknown (id −1).
#pragma once

#include <array>
#include <cstdint>
#include <string>
#include <string_view>
#include <unordered_map>
#include <vector>

#include "subword/subword_token.h"

namespace attnlab::subword {

// The printable character GPT-2 writes for byte b (UTF-8), and back.
const std::array<std::string, 256>& byte_symbols();
// The bytes a vocabulary piece stands for; false when it holds a character that is no byte's symbol.
bool piece_bytes(std::string_view piece, std::string& bytes);

// GPT-2's pre-tokenisation of valid UTF-8 (ConfigError otherwise): the pieces, in order, whose
// concatenation is the text.
std::vector<std::string> gpt2_pretokenize(std::string_view text);

class ByteLevelBpe {
 public:
  // vocab_json: a JSON object {piece: id} whose ids are 0 … N−1, each once; merges: one merge
  // "left right" per line, the first line may be "#version: …", blank lines are skipped. DataError
  // "<origin>: <why>" naming the file, the line or the piece at fault.
  static ByteLevelBpe parse(std::string_view vocab_json, std::string_view merges, const std::string& vocab_origin,
                            const std::string& merges_origin);
  // The two files of a checkpoint folder (regular files, size-checked, files.h).
  static ByteLevelBpe load(const std::string& vocab_path, const std::string& merges_path);

  std::vector<SubwordToken> encode(std::string_view text) const;
  // The text of the ids' bytes (ids outside the vocabulary are skipped); a cut or broken UTF-8
  // sequence comes back as one U+FFFD, as Python's decode(errors="replace") gives it.
  std::string decode(const std::vector<int>& ids) const;

  int64_t size() const { return static_cast<int64_t>(pieces_.size()); }
  const std::string& piece(int id) const { return pieces_.at(static_cast<size_t>(id)); }
  int id(const std::string& piece) const;  // −1 when absent
  int64_t merge_count() const { return static_cast<int64_t>(ranks_.size()); }

  // The merges applied to one pre-token's symbols (bpe_merge.cpp): with a heap, O(n log n), and
  // the published loop, its reference.
  std::vector<std::string> merge(std::vector<std::string> symbols) const;
  std::vector<std::string> merge_naive(std::vector<std::string> symbols) const;
  int rank(const std::string& left, const std::string& right) const;  // −1: not a merge

 private:
  std::vector<std::string> pieces_;                  // by id
  std::unordered_map<std::string, int> index_;       // piece → id
  std::unordered_map<std::string, int> ranks_;       // "left right" → rank (its line among the merges; the later of two)
  std::string end_of_text_;                          // "<|endoftext|>" when in the vocabulary
};

}  // namespace attnlab::subword
