// libFuzzer target for Hugging Face checkpoint folders (core/pretrained): the first byte picks which
// of a small valid GPT-2 folder's files the rest replaces — 0 config.json, 1 model.safetensors,
// 2 model.safetensors.index.json (the weights then in two shards) — or of a small BERT folder's —
// 3 config.json, 4 model.safetensors, 5 vocab.txt — and the folder is opened. It
// must open or raise DataError (ConfigError for a text it cannot cut), never crash; what opens
// runs the model on a fixed text, whose logits must be (1, S, V) (finite weights may still overflow:
// the command line's overflow check reports that, not this target).
#include <unistd.h>

#include <cstdint>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <string>
#include <vector>

#include "forward/model.h"
#include "io/safetensors.h"
#include "model/trace.h"
#include "pretrained/pretrained_model.h"
#include "subword/bpe.h"
#include "text/errors.h"
#include "byte_vocab.h"
#include "../gpt2_checkpoint.h"

namespace {

namespace fs = std::filesystem;
constexpr int64_t kD = 4, kP = 8;  // n_inner 16 = 4 · kD
constexpr int64_t kV = 257;  // every byte symbol and <|endoftext|>

// One layer of GPT-2 under Hugging Face's names, values base + 0.01 · (i mod 17).
std::vector<std::pair<std::string, attnlab::Tensor>> parameters() {
  return attnlab::fixtures::gpt2_tensors(kV, kD, 1, kP, [](const attnlab::Shape& shape, float scale, float offset) {
    attnlab::Tensor t(shape);
    for (int64_t i = 0; i < t.numel(); ++i) t.data()[i] = offset + 0.1f * scale + 0.01f * static_cast<float>(i % 17);
    return t;
  });
}

void write(const fs::path& p, const std::string& bytes) {
  std::ofstream(p, std::ios::binary | std::ios::trunc) << bytes;
}

const fs::path& folder() {
  static const fs::path dir = [] {
    fs::path d = fs::temp_directory_path() / ("attnlab-fuzz-pretrained-" + std::to_string(getpid()));
    fs::create_directories(d);
    write(d / "vocab.json", every_byte_vocab(true));
    write(d / "merges.txt", "#version: 0.2\nĠ t\nh e\n");
    return d;
  }();
  return dir;
}

// One layer of BERT (BertForMaskedLM's names), D 4, F 16, 8 positions, a 7-piece vocabulary.
std::vector<std::pair<std::string, attnlab::Tensor>> bert_parameters() {
  return attnlab::fixtures::bert_tensors(7, kD, 1, kP, [](const attnlab::Shape& shape, float scale, float offset) {
    attnlab::Tensor t(shape);
    for (int64_t i = 0; i < t.numel(); ++i) t.data()[i] = offset + 0.1f * scale + 0.01f * static_cast<float>(i % 17);
    return t;
  });
}

const fs::path& bert_folder() {
  static const fs::path dir = [] {
    fs::path d = fs::temp_directory_path() / ("attnlab-fuzz-bert-" + std::to_string(getpid()));
    fs::create_directories(d);
    return d;
  }();
  return dir;
}

const std::string kBertConfig =
    R"({"model_type": "bert", "hidden_size": 4, "num_attention_heads": 2, "num_hidden_layers": 1, "intermediate_size": 16, "max_position_embeddings": 8, "vocab_size": 7})";
const std::string kBertVocab = "[PAD]\n[UNK]\n[CLS]\n[SEP]\n[MASK]\nthe\ncat\n";

// The BERT folder with one of its files (pick 3, 4, 5) replaced by `body`, opened and run.
void open_bert(int pick, const std::string& body) {
  const fs::path& dir = bert_folder();
  write(dir / "config.json", pick == 3 ? body : kBertConfig);
  write(dir / "model.safetensors", pick == 4 ? body : attnlab::serialize_safetensors(bert_parameters(), {{"format", "pt"}}));
  write(dir / "vocab.txt", pick == 5 ? body : kBertVocab);
  const auto m = attnlab::pretrained::load_pretrained(dir.string());
  const auto batch = attnlab::pretrained::pretrained_batch(m, {"the [MASK] cat"});
  attnlab::Trace trace;
  attnlab::forward(m.cfg, m.weights, batch, trace);
  const auto* logits = trace.find("encoder.output_head.logits");
  if (!logits || logits->tensor.dim() != 3 || logits->tensor.size(2) != m.weights.vocab()->size()) std::abort();
}

const std::string kConfig =
    R"({"model_type": "gpt2", "n_embd": 4, "n_head": 2, "n_layer": 1, "n_positions": 8, "n_inner": 16, "vocab_size": 257})";

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  if (size == 0) return 0;
  const std::string body(reinterpret_cast<const char*>(data) + 1, size - 1);
  if (data[0] % 6 >= 3) {
    try {
      open_bert(data[0] % 6, body);
    } catch (const attnlab::DataError&) {
    } catch (const attnlab::ConfigError&) {
    }
    return 0;
  }
  const fs::path& dir = folder();
  for (const char* f : {"model.safetensors", "model.safetensors.index.json", "a.safetensors", "b.safetensors"})
    fs::remove(dir / f);
  const auto params = parameters();
  write(dir / "config.json", data[0] % 3 == 0 ? body : kConfig);
  if (data[0] % 3 == 2) {  // two shards and the fuzzed index
    const size_t half = params.size() / 2;
    write(dir / "a.safetensors", attnlab::serialize_safetensors({params.begin(), params.begin() + half}, {}));
    write(dir / "b.safetensors", attnlab::serialize_safetensors({params.begin() + half, params.end()}, {}));
    write(dir / "model.safetensors.index.json", body);
  } else {
    write(dir / "model.safetensors", data[0] % 3 == 1 ? body : attnlab::serialize_safetensors(params, {{"format", "pt"}}));
  }
  try {
    const auto m = attnlab::pretrained::load_pretrained(dir.string());
    const auto batch = attnlab::pretrained::pretrained_batch(m, {"the cat"});
    attnlab::Trace trace;
    attnlab::forward(m.cfg, m.weights, batch, trace);
    const auto* logits = trace.find("encoder.output_head.logits");
    if (!logits || logits->tensor.dim() != 3 || logits->tensor.size(0) != 1 ||
        logits->tensor.size(2) != m.weights.vocab()->size())
      std::abort();
  } catch (const attnlab::DataError&) {
  } catch (const attnlab::ConfigError&) {
  }
  return 0;
}
