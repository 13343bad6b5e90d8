// Tokenisation, vocabulary and the padded token batch (spec: "Tokenisation").
#pragma once

#include <string>
#include <string_view>
#include <unordered_map>
#include <vector>

#include "text/message.h"

namespace attnlab {

inline constexpr const char* kPadToken = "[PAD]";

// NFC-normalises `text` and splits it: whitespace separates; every punctuation/symbol character
// (P*, S*) and every CJK ideograph / Hiragana / Katakana / Hangul syllable is its own token;
// other runs of letters, marks and digits are one token. Throws ConfigError on invalid UTF-8.
std::vector<std::string> tokenize(std::string_view text);

bool is_cjk_single(char32_t cp);  // a code point that is always a token by itself
bool is_valid_utf8(std::string_view text);

// Why a typed text field (a title, a name, a hint) cannot be used, or an empty Text when it can: it
// contains a NUL character, is not valid UTF-8, or holds only control characters (and spaces).
// An empty text is fine here; the caller decides whether the field may be empty.
Text text_problem(std::string_view text);
// The same for a sentence, which must also hold at least one word (what tokenize keeps).
Text sentence_problem(std::string_view text);

// Sentences padded on the right with [PAD] to the longest one.
struct TokenBatch {
  std::vector<std::vector<std::string>> tokens;  // B rows of S tokens (with [PAD])
  std::vector<int> lengths;                      // real tokens per row
  // How each token is shown (a pretrained tokenizer's pieces, GPT-2's leading space as ␣), B rows
  // of S; empty: as `tokens` spells them.
  std::vector<std::vector<std::string>> shown;
  const std::vector<std::vector<std::string>>& shown_rows() const { return shown.empty() ? tokens : shown; }
  const std::vector<std::string>& shown_row(int64_t b) const { return shown_rows().at(static_cast<size_t>(b)); }
  int64_t batch() const { return static_cast<int64_t>(tokens.size()); }
  int64_t seq() const { return tokens.empty() ? 0 : static_cast<int64_t>(tokens[0].size()); }
};

// `what` names the option in errors ("--text"). Throws ConfigError for an empty batch or an
// empty/blank sentence.
TokenBatch make_token_batch(const std::vector<std::string>& sentences, std::string_view what);

// Token texts in order of first appearance; id 0 is always [PAD].
struct Vocabulary {
  std::vector<std::string> words{kPadToken};
  int id_of(const std::string& w);  // adds the word when new
  int find(const std::string& w) const;  // -1 when the word is not in the vocabulary
  // Exactly `words`, in order (a pretrained tokenizer's, whose [PAD] may be anywhere or nowhere);
  // a word listed twice is found at its last index, as Hugging Face's load_vocab reads vocab.txt;
  // the first repeated index is `*duplicate` when asked (−1 when all are distinct).
  static Vocabulary listed(std::vector<std::string> words, int* duplicate = nullptr);

 private:
  std::unordered_map<std::string, int> index_{{kPadToken, 0}};
};

}  // namespace attnlab
