// BERT's WordPiece tokenizer from a checkpoint's vocab.txt, as the published BERT
// (tokenization.py) and Hugging Face's BertTokenizer run it:
//   1. the special tokens [CLS] [SEP] [MASK] [PAD] [UNK], typed as they are spelled, stay whole;
//   2. basic tokenisation of the rest: NUL, U+FFFD and control characters dropped, whitespace made
//      a space, a space put around every CJK ideograph, NFC; split at spaces; for an uncased model
//      each word lower-cased and its accents stripped (NFD, marks Mn dropped); every punctuation
//      character its own word;
//   3. each word cut greedily into the longest pieces the vocabulary has, continuations spelled
//      "##…"; a word with a part no piece covers, or longer than 100 characters, is [UNK];
//   4. [CLS] first and [SEP] last.
#pragma once

#include <cstdint>
#include <string>
#include <string_view>
#include <unordered_map>
#include <vector>

#include "subword/subword_token.h"

namespace attnlab::subword {

class WordPiece {
 public:
  // One token per line, the id its line number from 0 ("\n" or "\r\n"); a token listed twice is
  // found at its later line, as Hugging Face reads it. DataError "<origin>: <why>" when the file
  // is empty, a line is not UTF-8, or [UNK] is missing.
  static WordPiece parse(std::string_view vocab_txt, const std::string& origin, bool lower_case);
  static WordPiece load(const std::string& vocab_path, bool lower_case);  // a regular file, size-checked

  // [CLS] … [SEP] around the text's pieces (without them when `specials` is false). Every piece
  // has an id: what the vocabulary lacks is [UNK].
  std::vector<SubwordToken> encode(std::string_view text, bool specials = true) const;
  // Step 2 alone: the words before WordPiece cuts them.
  std::vector<std::string> basic_tokenize(std::string_view text) const;
  // Step 3 for one word.
  std::vector<std::string> word_pieces(const std::string& word) const;

  int64_t size() const { return static_cast<int64_t>(tokens_.size()); }
  const std::string& piece(int id) const { return tokens_.at(static_cast<size_t>(id)); }
  int id(const std::string& token) const;  // −1 when absent
  bool lower_case() const { return lower_case_; }

 private:
  std::vector<std::string> tokens_;
  std::unordered_map<std::string, int> index_;
  std::vector<std::string> specials_;  // those of [CLS] [SEP] [MASK] [PAD] [UNK] the vocabulary has
  bool lower_case_ = true;
};

}  // namespace attnlab::subword
