// Small GPT-2 and BERT checkpoints' tensors for the C++ tests and the fuzz target: GPT2LMHeadModel's
// names with the "transformer." prefix, Conv1D weights stored (in, out); BertForMaskedLM's with
// "bert." on the model's names and the head's cls.predictions.*; in the order Hugging Face writes
// them. `fill(shape, scale, offset)` makes each tensor's values: LayerNorm weights around 1,
// everything else around 0. (GPT-2's vocab.json: fuzz/byte_vocab.h.)
#pragma once

#include <functional>
#include <string>
#include <utility>
#include <vector>

#include "tensor/tensor.h"

namespace attnlab::fixtures {

using Fill = std::function<Tensor(const Shape& shape, float scale, float offset)>;

inline std::vector<std::pair<std::string, Tensor>> gpt2_tensors(int64_t vocab, int64_t d, int64_t layers,
                                                                int64_t positions, const Fill& fill) {
  std::vector<std::pair<std::string, Tensor>> p = {{"transformer.wte.weight", fill({vocab, d}, 2.0f, 0)},
                                                   {"transformer.wpe.weight", fill({positions, d}, 1.0f, 0)}};
  for (int64_t i = 0; i < layers; ++i) {
    const std::string h = "transformer.h." + std::to_string(i) + ".";
    for (const char* ln : {"ln_1", "ln_2"}) {
      p.push_back({h + ln + ".weight", fill({d}, 0.4f, 1.0f)});
      p.push_back({h + ln + ".bias", fill({d}, 0.4f, 0)});
    }
    p.push_back({h + "attn.c_attn.weight", fill({d, 3 * d}, 1.0f, 0)});
    p.push_back({h + "attn.c_attn.bias", fill({3 * d}, 0.4f, 0)});
    p.push_back({h + "attn.c_proj.weight", fill({d, d}, 1.0f, 0)});
    p.push_back({h + "attn.c_proj.bias", fill({d}, 0.4f, 0)});
    p.push_back({h + "mlp.c_fc.weight", fill({d, 4 * d}, 1.0f, 0)});
    p.push_back({h + "mlp.c_fc.bias", fill({4 * d}, 0.4f, 0)});
    p.push_back({h + "mlp.c_proj.weight", fill({4 * d, d}, 0.5f, 0)});
    p.push_back({h + "mlp.c_proj.bias", fill({d}, 0.4f, 0)});
  }
  p.push_back({"transformer.ln_f.weight", fill({d}, 0.4f, 1.0f)});
  p.push_back({"transformer.ln_f.bias", fill({d}, 0.4f, 0)});
  return p;
}

// BERT with 2 token types and d_ff 4 · d.
inline std::vector<std::pair<std::string, Tensor>> bert_tensors(int64_t vocab, int64_t d, int64_t layers,
                                                                int64_t positions, const Fill& fill) {
  std::vector<std::pair<std::string, Tensor>> p;
  const auto norm = [&](const std::string& n) {
    p.push_back({n + ".weight", fill({d}, 0.4f, 1.0f)});
    p.push_back({n + ".bias", fill({d}, 0.4f, 0)});
  };
  const auto linear = [&](const std::string& n, int64_t out, int64_t in) {
    p.push_back({n + ".weight", fill({out, in}, 1.0f, 0)});
    p.push_back({n + ".bias", fill({out}, 0.4f, 0)});
  };
  p.push_back({"bert.embeddings.word_embeddings.weight", fill({vocab, d}, 2.0f, 0)});
  p.push_back({"bert.embeddings.position_embeddings.weight", fill({positions, d}, 1.0f, 0)});
  p.push_back({"bert.embeddings.token_type_embeddings.weight", fill({2, d}, 1.0f, 0)});
  norm("bert.embeddings.LayerNorm");
  for (int64_t i = 0; i < layers; ++i) {
    const std::string h = "bert.encoder.layer." + std::to_string(i) + ".";
    for (const char* n : {"query", "key", "value"}) linear(h + "attention.self." + n, d, d);
    linear(h + "attention.output.dense", d, d);
    norm(h + "attention.output.LayerNorm");
    linear(h + "intermediate.dense", 4 * d, d);
    linear(h + "output.dense", d, 4 * d);
    norm(h + "output.LayerNorm");
  }
  linear("cls.predictions.transform.dense", d, d);
  norm("cls.predictions.transform.LayerNorm");
  p.push_back({"cls.predictions.bias", fill({vocab}, 0.4f, 0)});
  return p;
}

}  // namespace attnlab::fixtures
