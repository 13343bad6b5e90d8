// A trained model's vocabulary and output head (docs/cli.md "Trained models"): the weights file's
// `vocab` metadata names the rows of `embedding.weight` (V, D) and of `output_head.weight` (V, D);
// `[PAD]` is row 0 and `[UNK]` row 1, which every token outside the vocabulary maps to. A pretrained
// checkpoint's vocabulary (core/pretrained) is its tokenizer's, in id order: its padding and unknown
// rows are wherever the tokenizer has them (`pad_id`, `unk_id` in the metadata; GPT-2 has no [UNK]).
#pragma once

#include <cstdint>
#include <map>
#include <optional>
#include <string>
#include <vector>

#include "tensor/ops.h"
#include "tensor/tensor.h"
#include "text/tokenizer.h"

namespace attnlab {

inline constexpr const char* kUnkToken = "[UNK]";
inline constexpr int kUnkId = 1;

// What position i's output predicts: the token at i + 1 (a language model), the answer's token
// at i (a per-position task such as sorting), or the piece at i itself, hidden behind [MASK]
// where the text has one (BERT's masked-language-model head).
enum class Task { NextToken, PerPosition, MaskedWord };
std::string_view task_name(Task t);

struct TrainedVocab {
  // The model's V words and their ids (tokenizer.h's index): [PAD] = 0, [UNK] = 1. A batch made
  // for the model takes it as its own vocabulary (make_batch).
  Vocabulary vocabulary;
  Task task = Task::NextToken;
  // The row a [PAD] position reads, and the row a token outside the vocabulary reads (−1: none, and
  // such a token is refused). 0 and 1 for the training lab's models.
  int pad_id = 0;
  int unk_id = kUnkId;
  bool pretrained = false;  // a checkpoint's tokenizer's vocabulary (pretrained_vocab, or metadata with pad_id)
  bool byte_level = false;  // GPT-2's byte-level pieces (Ġcat): shown as subword::display_piece spells them
  // Whether the output head has a bias: false for a head tied to the embedding table (GPT-2's,
  // whose output_head.weight is embedding.weight itself).
  bool head_bias = true;
  std::optional<MaskKind> mask;  // the mask it was trained with (the file's `mask`), when it says
  // The file's descriptive fields as written: title, title_zh, note, note_zh, examples (a JSON
  // array of sentences), metrics (a JSON object). Absent ones are empty.
  std::map<std::string, std::string> info;

  const std::vector<std::string>& words() const { return vocabulary.words; }
  int64_t size() const { return static_cast<int64_t>(words().size()); }
  // The row of `token`: [PAD] → pad_id, unknown → unk_id (a ConfigError naming the token when the
  // vocabulary has no unknown row).
  int id(const std::string& token) const;
  bool knows(const std::string& token) const { return token == kPadToken || vocabulary.find(token) >= 0; }
  // A real token (not [PAD]) that the model reads as [UNK]: marked in the window and the manifest.
  bool reads_as_unknown(const std::string& token) const { return token != kPadToken && !knows(token); }
  std::string field(const std::string& key) const;  // info[key] or ""
  // The example sentences (info["examples"], parsed and checked when read), empty when absent.
  const std::vector<std::string>& examples() const { return examples_; }

  // From a weights file's metadata; DataError (naming `origin` and the field) when `vocab` is
  // malformed: not a JSON array of distinct non-empty strings starting [PAD], [UNK] — unless
  // `pad_id` is given (a pretrained checkpoint's vocabulary), then `pad_id` and `unk_id` (−1 or
  // absent: none) must be rows of it. `head_bias` "false": the head has no bias.
  static TrainedVocab from_metadata(const std::map<std::string, std::string>& meta, const std::string& origin);
  // The metadata fields that say all of it again (vocab, task, mask, the descriptive ones and, for
  // a pretrained vocabulary, pad_id, unk_id, head_bias).
  std::map<std::string, std::string> metadata() const;

 private:
  std::vector<std::string> examples_;
};

// A vocabulary of `words` in id order, as a pretrained tokenizer numbers them; a word listed twice
// (a vocab.txt with two blank lines) is found at its last id, as the tokenizer finds it.
TrainedVocab pretrained_vocab(std::vector<std::string> words, int pad_id, int unk_id, bool head_bias);

// Whether a weights file's metadata describes a trained model (it has `vocab`).
bool has_trained_vocab(const std::map<std::string, std::string>& meta);

struct Prediction {
  std::string token;
  int id = 0;
  float prob = 0;
};

// The k most probable tokens of every real position: probs (B, S, V), rows of `lengths[b]`
// positions. result[b][s] lists them best first (ties by lower id; NaN, from a broken run, last).
std::vector<std::vector<std::vector<Prediction>>> top_predictions(const Tensor& probs, const TrainedVocab& vocab,
                                                                  const std::vector<int>& lengths, int k);

}  // namespace attnlab
