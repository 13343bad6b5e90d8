// libFuzzer target for the pretrained tokenizers (core/subword): the first byte picks what the
// rest is — GPT-2's vocab.json (with a fixed merges.txt), its merges.txt (with a fixed vocabulary
// of every byte symbol), BERT's vocab.txt, or a text for fixed tokenizers. A file must either
// parse or raise DataError, never crash. What parses must tokenize a fixed text of English,
// Chinese, emoji and a special token into ids within the vocabulary (or marked unknown), and a
// byte-level vocabulary that knows every piece must decode back to the text. A text must
// tokenize (or raise ConfigError when it is not UTF-8), decode back exactly, the heap merge must
// equal the published loop on it, and every piece must have a chip spelling.
#include <cstdint>
#include <cstdlib>
#include <string>
#include <vector>

#include "subword/bpe.h"
#include "subword/wordpiece.h"
#include "text/errors.h"
#include "byte_vocab.h"

namespace {

const std::string kText = "Don't panic: 3.14 cafés, 小猫 🙂 [MASK]<|endoftext|>  end\n";

void check_bpe(const attnlab::subword::ByteLevelBpe& b) {
  bool all_known = true;
  std::vector<int> ids;
  for (const auto& t : b.encode(kText)) {
    if (t.id < -1 || t.id >= b.size()) std::abort();
    all_known = all_known && !t.unknown();
    ids.push_back(t.id);
  }
  if (all_known && b.decode(ids) != kText) std::abort();  // pieces made of byte symbols, or <|endoftext|> as spelled
}

// Arbitrary text through fixed tokenizers: every byte symbol with a few merges, and a WordPiece
// vocabulary of letters.
void check_text(const std::string& text) {
  static const auto bpe = attnlab::subword::ByteLevelBpe::parse(every_byte_vocab(), "#version: 0.2\nĠ t\nh e\nĠt he\nä ¸\n",
                                                                 "vocab.json", "merges.txt");
  static const auto wp = attnlab::subword::WordPiece::parse("[PAD]\n[UNK]\n[CLS]\n[SEP]\n[MASK]\na\n##a\nb\n##b\n", "vocab.txt", true);
  std::vector<int> ids;
  try {
    for (const auto& t : bpe.encode(text)) {
      if (attnlab::subword::display_piece(t.piece, true).empty()) std::abort();
      ids.push_back(t.id);  // every piece of bytes is known here (merges of known symbols are not all)
    }
  } catch (const attnlab::ConfigError&) {
    return;  // not UTF-8
  }
  for (const auto& pre : attnlab::subword::gpt2_pretokenize(text)) {
    std::vector<std::string> word;
    for (unsigned char c : pre) word.push_back(attnlab::subword::byte_symbols()[c]);
    if (bpe.merge(word) != bpe.merge_naive(word)) std::abort();
  }
  bool known = true;
  for (int i : ids) known = known && i >= 0;
  if (known && bpe.decode(ids) != text) std::abort();
  for (const auto& t : wp.encode(text))
    if (t.id < 0 || t.id >= wp.size()) std::abort();
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  if (size == 0) return 0;
  const std::string body(reinterpret_cast<const char*>(data) + 1, size - 1);
  try {
    switch (data[0] % 4) {
      case 3: check_text(body); break;
      case 0: check_bpe(attnlab::subword::ByteLevelBpe::parse(body, "#version: 0.2\nĠ p\n", "vocab.json", "merges.txt")); break;
      case 1: check_bpe(attnlab::subword::ByteLevelBpe::parse(every_byte_vocab(), body, "vocab.json", "merges.txt")); break;
      default: {
        const auto w = attnlab::subword::WordPiece::parse(body, "vocab.txt", data[0] & 4);
        for (const auto& t : w.encode(kText))
          if (t.id < 0 || t.id >= w.size()) std::abort();
      }
    }
  } catch (const attnlab::DataError&) {
  }
  return 0;
}
