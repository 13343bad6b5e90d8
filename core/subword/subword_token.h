// One token of a pretrained model's tokenizer, and how a token chip shows it.
#pragma once

#include <cstdint>
#include <string>
#include <string_view>

namespace attnlab::subword {

inline constexpr uint64_t kMaxTokenizerFileBytes = 64ull * 1024 * 1024;  // GPT-2's vocab.json is 1 MB
inline constexpr int64_t kMaxVocabularyEntries = 4'000'000;

struct SubwordToken {
  std::string piece;     // as the vocabulary spells it: "Ġcat", "##ing", "[CLS]"
  int id = -1;           // −1: the vocabulary lacks it (shown marked, never run through the model)
  bool unknown() const { return id < 0; }
};

// A byte-level piece as a learner reads it: its bytes as text, a leading space as "␣", a newline
// as "⏎", a tab as "⇥"; bytes that are part of a character cut by the merges as "⟨E5 9C⟩", and
// other control characters, which would not show, as "⟨0D⟩". Pieces
// of other tokenizers ([CLS], ##ing) as they are.
std::string display_piece(std::string_view piece, bool byte_level);

}  // namespace attnlab::subword
