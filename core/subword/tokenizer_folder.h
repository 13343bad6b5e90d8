// A checkpoint folder's tokenizer, whichever kind it holds: GPT-2's vocab.json + merges.txt, or
// BERT's vocab.txt (with tokenizer_config.json's do_lower_case, true when absent, as
// BertTokenizer's default). Read with files.h's rules; refusals name the folder or the file.
#pragma once

#include <memory>
#include <string>
#include <string_view>
#include <vector>

#include "subword/bpe.h"
#include "subword/wordpiece.h"

namespace attnlab::subword {

enum class TokenizerKind { ByteLevelBpe, WordPiece };
std::string_view tokenizer_kind_name(TokenizerKind k);  // "byte-level-bpe", "wordpiece"

// How to read the lower-casing of a WordPiece vocabulary: as tokenizer_config.json says, or forced.
enum class LowerCase { Auto, Yes, No };

class PretrainedTokenizer {
 public:
  // DataError when the folder holds neither tokenizer (naming the files looked for), or one of
  // its files is refused. `lower` applies to WordPiece only.
  static PretrainedTokenizer load(const std::string& folder, LowerCase lower = LowerCase::Auto);

  TokenizerKind kind() const { return bpe_ ? TokenizerKind::ByteLevelBpe : TokenizerKind::WordPiece; }
  // The model's input: GPT-2's pieces as typed (no <|endoftext|> added), BERT's between [CLS] and [SEP].
  std::vector<SubwordToken> encode(std::string_view text) const;
  std::string display(std::string_view piece) const { return display_piece(piece, bpe_ != nullptr); }
  // The text of `ids`: GPT-2's bytes put back together (U+FFFD for a broken character); WordPiece's
  // pieces joined by spaces, continuations glued.
  std::string decode(const std::vector<int>& ids) const;
  int64_t size() const { return bpe_ ? bpe_->size() : wordpiece_->size(); }
  const std::string& piece(int id) const { return bpe_ ? bpe_->piece(id) : wordpiece_->piece(id); }
  int id(const std::string& piece) const { return bpe_ ? bpe_->id(piece) : wordpiece_->id(piece); }  // −1: absent
  bool lower_case() const { return wordpiece_ && wordpiece_->lower_case(); }

 private:
  std::shared_ptr<const ByteLevelBpe> bpe_;
  std::shared_ptr<const WordPiece> wordpiece_;
};

}  // namespace attnlab::subword
