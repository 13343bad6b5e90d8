// A pretrained checkpoint folder opened as a model Attention Lab runs: its configuration, its
// parameters under Attention Lab's names, its vocabulary and its own tokenizer.
#pragma once

#include <memory>
#include <string>
#include <vector>

#include "forward/model.h"
#include "model/config.h"
#include "model/weights.h"
#include "subword/tokenizer_folder.h"

namespace attnlab::pretrained {

struct PretrainedModel {
  std::string folder;
  std::string architecture;  // config.json's model_type: "gpt2", "bert" or "distilbert"
  ModelConfig cfg;
  Weights weights;  // with the tokenizer's vocabulary (pad_id, unk_id, head_bias)
  std::shared_ptr<const subword::PretrainedTokenizer> tokenizer;
};

// "GPT-2", "BERT", "DistilBERT" for config.json's model_type.
std::string architecture_name(const std::string& model_type);

// Reads config.json, the safetensors file(s) and the tokenizer's files. DataError naming the
// folder, the file and the tensor or key at fault.
PretrainedModel load_pretrained(const std::string& folder);

// The texts cut by the model's tokenizer (no <|endoftext|> added, the text not normalised) and
// padded; ConfigError for a text that gives no piece or a piece the vocabulary lacks.
Batch pretrained_batch(const PretrainedModel& m, const std::vector<std::string>& texts);

// The per-position loss's answers, one per sentence, cut as the sentences are (pretrained_batch)
// into a (B, S) tensor of ids, −1 where there is none: past the answer's end, and at the [CLS]
// and [SEP] WordPiece puts around it (no one answers them; an answer shorter than its sentence
// would otherwise score a real word against [SEP]). DataError when the count differs from B or
// an answer is longer than S.
Tensor pretrained_answer_ids(const PretrainedModel& m, const std::vector<std::string>& answers, int64_t b, int64_t s);

}  // namespace attnlab::pretrained
