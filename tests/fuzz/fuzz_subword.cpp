// libFuzzer target for the pretrained tokenizers' files (core/subword): the first byte picks the
// file the rest is — GPT-2's vocab.json (with a fixed merges.txt), its merges.txt (with a fixed
// vocabulary of every byte symbol) or BERT's vocab.txt — which must either parse or raise
// DataError, never crash. What parses must tokenize a fixed text of English, Chinese, emoji and
// a special token into ids within the vocabulary (or marked unknown), and a byte-level
// vocabulary that knows every piece must decode back to the text.
#include <cstdint>
#include <cstdlib>
#include <string>

#include "subword/bpe.h"
#include "subword/wordpiece.h"
#include "text/errors.h"

namespace {

const std::string kText = "Don't panic: 3.14 cafés, 小猫 🙂 [MASK]<|endoftext|>  end\n";

std::string every_byte_vocab() {
  std::string v = "{";
  const auto& s = attnlab::subword::byte_symbols();
  for (int b = 0; b < 256; ++b) {
    std::string esc;
    for (char c : s[static_cast<size_t>(b)]) esc += (c == '"' || c == '\\') ? std::string("\\") + c : std::string(1, c);
    v += (b ? "," : "") + std::string("\"") + esc + "\":" + std::to_string(b);
  }
  return v + "}";
}

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

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  if (size == 0) return 0;
  const std::string body(reinterpret_cast<const char*>(data) + 1, size - 1);
  try {
    switch (data[0] % 3) {
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
