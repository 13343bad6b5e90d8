// The training lab's tasks: each draws its sequences on the fly from the project's documented
// generator (tensor/rng.h; the rules in docs/cli.md "attnlab train"), with a vocabulary, the
// positions that count and the answers there, and a held-out stream of its own.
//   B batch, S longest sequence of the batch, V vocabulary.
#pragma once

#include <cstdint>
#include <memory>
#include <string>
#include <string_view>
#include <vector>

#include "model/trained.h"
#include "tensor/rng.h"
#include "tensor/tensor.h"

namespace attnlab {

enum class TrainTask { Induction, Copy, Reverse, Sort, Brackets, PreviousToken, Text };

std::string_view train_task_name(TrainTask t);  // "induction", "copy", …, "previous-token", "text"
TrainTask parse_train_task(std::string_view s);  // throws ConfigError listing the names
const std::vector<TrainTask>& all_train_tasks();

// One sequence: token ids and, per position, the answer's id (−1: not counted). A next-token task
// answers position i with token i + 1 at the positions it counts; a per-position task with its
// own label at i.
struct Example {
  std::vector<int> ids;
  std::vector<int> target;
  // induction: where the repeated run starts (its first copy) and its length; −1 and 0 otherwise.
  int run_start = -1, run_len = 0;
  // Whether a counted position is scored by the accuracy: induction scores only the positions
  // whose answer can be known (the second copy's letters after its first); every other task
  // scores every counted position.
  bool scored(size_t i) const {
    if (i >= target.size() || target[i] < 0) return false;
    if (run_start < 0) return true;
    const auto p = static_cast<int>(i);
    return p >= run_start + run_len && p + 1 < run_start + 2 * run_len;
  }
};

// A batch: ids (B, S) with [PAD] = 0 after each sequence, target (B, S) with −1 at [PAD].
struct ExampleBatch {
  std::vector<Example> rows;
  int64_t seq() const;  // the longest row
  Tensor ids() const;     // (B, S) floats, as the trace's token_ids step holds them
  Tensor targets() const; // (B, S) floats, −1 where nothing is counted (the per-position loss's answers)
};

// The text task's corpus: the file's lines as token ids over the vocabulary built from it.
struct TextCorpus {
  std::vector<std::string> vocab;           // [PAD], [UNK], then the most frequent tokens
  std::vector<std::vector<int>> train, held_out;  // every tenth line (index % 10 == 9) is held out
  int64_t vocab_size = 0, max_len = 0;      // what it was built with
  // 16 hex digits: FNV-1a 64 over the vocabulary and every line's ids, so that a resumed run can
  // tell the text it trained on from another.
  std::string fingerprint() const;
};

// The largest text file the text task reads (`attnlab train --text-file`, the window's).
inline constexpr uint64_t kMaxTrainTextBytes = 64ull << 20;

// Builds the corpus from UTF-8 text (one sentence per line, read by the project's tokenizer):
// tokens seen at least twice, the `vocab_size` − 2 most frequent (ties: first seen first); each
// line cut to `max_len` tokens; lines of fewer than 2 tokens skipped. DataError naming `origin`
// when fewer than 10 usable lines remain or the text is not UTF-8.
TextCorpus build_text_corpus(const std::string& text, const std::string& origin, int64_t vocab_size, int64_t max_len);

class TaskSource {
 public:
  // `corpus`: the text task's (required there, ignored otherwise).
  TaskSource(TrainTask task, uint64_t seed, std::shared_ptr<const TextCorpus> corpus = nullptr);

  TrainTask task() const { return task_; }
  const std::vector<std::string>& vocab() const { return vocab_; }
  // What position i's answer is: the next token (a language model) or its own label.
  Task model_task() const;
  int64_t max_len() const;  // the longest sequence it draws

  // Example k of the training stream ("train:<task>") or of the held-out one ("heldout:<task>").
  Example example(uint64_t k, bool held_out) const;
  // Training batch `step`: examples step·B … step·B + B − 1 of the training stream.
  ExampleBatch batch(int64_t step, int64_t b) const;
  // The first n held-out examples (the same every time).
  ExampleBatch held_out(int64_t n) const;

 private:
  Example draw(const Stream& s, uint64_t k, bool held_out) const;

  TrainTask task_;
  std::shared_ptr<const TextCorpus> corpus_;
  std::vector<std::string> vocab_;
  Stream train_, held_;
};

}  // namespace attnlab
