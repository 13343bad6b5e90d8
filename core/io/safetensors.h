// .safetensors read and write (https://huggingface.co/docs/safetensors format):
//   u64 little-endian header length N, N bytes of JSON header, then the raw tensor bytes.
// Reading validates everything a lying file can lie about: header bounds, JSON, dtypes, shapes
// against byte ranges, ranges inside the data, overlaps, and (for weights) finiteness.
#pragma once

#include <functional>
#include <map>
#include <string>
#include <string_view>
#include <vector>

#include "model/half_tensor.h"
#include "tensor/tensor.h"

namespace attnlab {

struct SafetensorsFile {
  std::vector<std::pair<std::string, Tensor>> tensors;  // converted to F32, file order
  std::vector<std::pair<std::string, HalfTensor>> halves;  // F16 / BF16 kept as stored (keep_16bit)
  std::map<std::string, std::string> metadata;          // "__metadata__"
};

// Tensors a reader leaves out (a checkpoint's buffers, such as GPT-2's attn.bias mask): their byte
// ranges are checked like the rest, any of safetensors' dtypes is accepted, nothing is decoded.
using SkipTensor = std::function<bool(std::string_view name)>;

// Parses a whole file held in memory; throws DataError naming the tensor or header field at fault.
SafetensorsFile parse_safetensors(const std::string& bytes, const SkipTensor& skip = {});
// keep_16bit: F16 and BF16 tensors go to `halves` unwidened (a checkpoint's; core/pretrained).
SafetensorsFile read_safetensors(const std::string& path, const SkipTensor& skip = {}, bool keep_16bit = false);

// Serialises tensors (C order) with metadata; tensors are written in name order. f16: stored as
// F16 (rounded to nearest even, as PyTorch's .half()), half the bytes; read back widened to F32.
std::string serialize_safetensors(const std::vector<std::pair<std::string, Tensor>>& tensors,
                                  const std::map<std::string, std::string>& metadata, bool f16 = false);
// The same, each tensor asked for (`tensor(k)`, of shapes[k]) only when its bytes are written: a
// model whose parameters are widened on use (model/half_tensor.h) never holds them all in F32.
std::string serialize_safetensors(const std::vector<std::pair<std::string, Shape>>& shapes,
                                  const std::function<Tensor(size_t k)>& tensor,
                                  const std::map<std::string, std::string>& metadata, bool f16 = false);

}  // namespace attnlab
