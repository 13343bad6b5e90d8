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

#include "tensor/tensor.h"

namespace attnlab {

struct SafetensorsFile {
  std::vector<std::pair<std::string, Tensor>> tensors;  // converted to F32, file order
  std::map<std::string, std::string> metadata;          // "__metadata__"
};

// Tensors a reader leaves out (a checkpoint's buffers, such as GPT-2's attn.bias mask): their byte
// ranges are checked like the rest, any of safetensors' dtypes is accepted, nothing is decoded.
using SkipTensor = std::function<bool(std::string_view name)>;

// Parses a whole file held in memory; throws DataError naming the tensor or header field at fault.
SafetensorsFile parse_safetensors(const std::string& bytes, const SkipTensor& skip = {});
SafetensorsFile read_safetensors(const std::string& path, const SkipTensor& skip = {});

// Serialises tensors (C order) with metadata; tensors are written in name order. f16: stored as
// F16 (rounded to nearest even, as PyTorch's .half()), half the bytes; read back widened to F32.
std::string serialize_safetensors(const std::vector<std::pair<std::string, Tensor>>& tensors,
                                  const std::map<std::string, std::string>& metadata, bool f16 = false);

}  // namespace attnlab
