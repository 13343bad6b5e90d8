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

// Whether `prepend_bos` applies: GPT-2 (a byte-level vocabulary, whose <|endoftext|> also begins a
// text); BERT's WordPiece puts [CLS] first itself.
bool takes_prepended_bos(const PretrainedModel& m);
// The piece prepend_bos puts first: GPT-2's <|endoftext|>, which is also its padding row (pad_id).
const std::string& bos_piece(const PretrainedModel& m);

// The texts cut by the model's tokenizer (the text not normalised) and padded; with prepend_bos,
// GPT-2's <|endoftext|> first in each (as GPT-2 saw documents in training, and TransformerLens's
// prepend_bos; off by default: nothing is added). ConfigError for a text that gives no piece, a
// piece the vocabulary lacks, and prepend_bos on a model that does not take it.
Batch pretrained_batch(const PretrainedModel& m, const std::vector<std::string>& texts, bool prepend_bos = false);

// The per-position loss's answers, one per sentence, cut as the sentences are (pretrained_batch)
// into a (B, S) tensor of ids, −1 where there is none: past the answer's end, and at the [CLS]
// and [SEP] WordPiece puts around it (no one answers them; an answer shorter than its sentence
// would otherwise score a real word against [SEP]). DataError when the count differs from B or
// an answer is longer than S.
// With prepend_bos the answers are cut as such sentences are, and the <|endoftext|> first is no
// one's answer either (−1).
Tensor pretrained_answer_ids(const PretrainedModel& m, const std::vector<std::string>& answers, int64_t b, int64_t s,
                             bool prepend_bos = false);

}  // namespace attnlab::pretrained
