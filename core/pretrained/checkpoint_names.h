// A checkpoint's tensors by the names its architecture publishes, taken one by one onto Attention
// Lab's parameter names: the optional model prefix ("transformer.", "bert.", "distilbert.")
// stripped, TensorFlow-era LayerNorm names (gamma, beta) read as weight and bias, each shape
// checked, and whatever is left at the end refused by name.
#pragma once

#include <map>
#include <string>
#include <utility>
#include <vector>

#include "model/weights.h"
#include "pretrained/hf_folder.h"
#include "text/message.h"

namespace attnlab::pretrained {

// One parameter: the checkpoint's tensor `from` (shape `stored`), transposed when a Conv1D stores it.
struct Mapping {
  std::string from, to;
  Shape stored;
  bool transpose = false;
  bool prefixed = true;  // false: a head's tensor, stored without the model prefix (cls.…, vocab_…)
};

// output_head.weight set to embedding.weight itself: one storage, in 16 bits where the table is.
void tie_head(Weights& w);
// Tensors stacked along dimension 0 (BERT's query, key and value as one in_proj): in 16 bits when
// every part is untransposed 16-bit of one format, otherwise widened to F32.
StoredTensor stack_rows(const std::vector<StoredTensor>& parts);

class CheckpointNames {
 public:
  // `architecture` names the model in refusals ("GPT-2"); DataError for a tensor given twice.
  CheckpointNames(CheckpointTensors tensors, const std::string& prefix, const std::string& folder,
                  std::string architecture);

  bool has(const std::string& name) const { return by_name_.count(name) > 0; }
  // The tensor under its short name, shape-checked; DataError naming it when absent or misshapen.
  // `prefixed`: whether a refusal names it with the model prefix.
  Tensor take(const std::string& name, const Shape& stored, bool prefixed = true);
  // The same, as the file stores it (16-bit tensors not widened).
  StoredTensor take_stored(const std::string& name, const Shape& stored, bool prefixed = true);
  // Drops a tensor the model does not use (a pooler, a second pre-training head), if present.
  void drop(const std::string& name) { by_name_.erase(name); }
  // Every mapping taken into w (transposed where asked).
  void apply(const std::vector<Mapping>& mappings, Weights& w);
  // DataError naming the first tensor no mapping took.
  void finish() const;
  const Text& at() const { return at_; }

 private:
  std::map<std::string, std::pair<std::string, StoredTensor>> by_name_;  // short name → (file's name, tensor)
  std::string prefix_, architecture_;
  Text at_;
};

}  // namespace attnlab::pretrained
