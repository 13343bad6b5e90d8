// libFuzzer target for the training lab's text reader (attnlab train --task text --text-file F,
// the Training panel's text file): any bytes must either build a corpus or raise DataError (never
// crash or read out of bounds), and what builds must be consistent: [PAD] and [UNK] first, every
// id within the vocabulary, every line of 2 … max_len tokens, and a task drawing from it.
#include <cstdint>
#include <cstdlib>
#include <memory>
#include <string>

#include "text/errors.h"
#include "training/tasks.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  const std::string bytes(reinterpret_cast<const char*>(data), size);
  attnlab::TextCorpus c;
  try {
    c = attnlab::build_text_corpus(bytes, "fuzz.txt", 50, 8);
  } catch (const attnlab::DataError&) {
    return 0;
  }
  if (c.vocab.size() < 2 || c.vocab.size() > 50 || c.vocab[0] != "[PAD]" || c.vocab[1] != "[UNK]") std::abort();
  for (const auto* lines : {&c.train, &c.held_out})
    for (const auto& l : *lines) {
      if (l.size() < 2 || l.size() > 8) std::abort();
      for (int id : l)
        if (id < 1 || id >= static_cast<int>(c.vocab.size())) std::abort();
    }
  const attnlab::TaskSource src(attnlab::TrainTask::Text, 1, std::make_shared<attnlab::TextCorpus>(c));
  if (src.example(3, false).ids.size() < 2 || src.example(3, true).ids.size() < 2) std::abort();
  return 0;
}
