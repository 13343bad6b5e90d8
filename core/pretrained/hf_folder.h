// A Hugging Face checkpoint folder's files, read with io/files.h's rules (regular files only,
// size-checked): config.json, and the weights — model.safetensors, or the shards that
// model.safetensors.index.json names. A folder holding only pytorch_model.bin is refused: a pickle
// can run code when it is loaded (docs/recipes/bin_to_safetensors.py converts one).
#pragma once

#include <nlohmann/json.hpp>

#include <map>
#include <string>
#include <vector>

#include "io/safetensors.h"
#include "model/weights.h"
#include "tensor/ops.h"
#include "tensor/tensor.h"

namespace attnlab::pretrained {

// config.json as a JSON object; DataError naming the folder or the file.
nlohmann::json read_config(const std::string& folder);

// DataError unless the folder has model.safetensors or its shards' index (a pickle-only folder
// refused with the conversion recipe): checked before anything large is read.
void require_weights_file(const std::string& folder);

// One tensor as the file stores it: F32, or F16 / BF16 kept in 16 bits (`half`; f32 undefined)
// until the engine uses it (model/half_tensor.h): a 16-bit checkpoint costs its own size.
struct StoredTensor {
  Tensor f32;
  HalfTensor half;
  bool is_half() const { return !f32.defined(); }
  Shape shape() const { return is_half() ? half.shape : f32.shape(); }
  Tensor widen() const { return is_half() ? half.widen() : f32; }
  StoredTensor transpose() const;  // 2-D; F32 copied into C order, 16 bits only flagged
  void set_into(Weights& w, const std::string& name) const;
};

struct CheckpointTensors {
  std::map<std::string, StoredTensor> tensors;  // by the name the file gives
  std::vector<std::string> files;         // the files read, in order
};

// Every tensor of the folder's safetensors file(s), `skip`ped ones left out. DataError naming the
// file and the tensor for anything a file or the index gets wrong: a shard outside the folder, a
// tensor in two files, a tensor the index places in a file that lacks it.
CheckpointTensors read_checkpoint_tensors(const std::string& folder, const SkipTensor& skip);

// The number config.json gives for `key` (`fallback` when absent or null): a whole number from 1,
// a number above 0, true/false or a text; otherwise DataError naming the file and the key.
int64_t config_count(const nlohmann::json& j, const char* key, int64_t fallback, const std::string& origin);
double config_positive(const nlohmann::json& j, const char* key, double fallback, const std::string& origin);
bool config_bool(const nlohmann::json& j, const char* key, bool fallback, const std::string& origin);
std::string config_text(const nlohmann::json& j, const char* key, const std::string& fallback,
                        const std::string& origin);
// An activation's name as Hugging Face's configs spell it (gelu, gelu_new, gelu_pytorch_tanh, relu).
Activation config_activation(const nlohmann::json& j, const char* key, const std::string& fallback,
                             const std::string& origin);
// A switch that changes the computation: only its published value runs; otherwise DataError naming
// the file, the key and the architecture ("GPT-2").
void config_require(const nlohmann::json& j, const char* key, bool published, const char* architecture,
                    const std::string& origin);

}  // namespace attnlab::pretrained
