// NumPy .npz archives (a zip of .npy files) of little-endian f4 arrays in C order.
#pragma once

#include <string>
#include <utility>
#include <vector>

#include "tensor/tensor.h"

namespace attnlab {

// The .npy v1.0 header for an f4 C-order array of `shape` (magic, version, dict, padding).
std::string npy_header(const Shape& shape);

// Writes `arrays` (name → tensor, any strides) to `path`, streaming each tensor in C order
// without a contiguous copy. Throws DataError on any I/O failure (the file may then be partial:
// callers write into a temporary folder).
void write_npz(const std::string& path, const std::vector<std::pair<std::string, Tensor>>& arrays);

// Reads an .npz of f4/f8 arrays (f8 converted to float). Throws DataError.
std::vector<std::pair<std::string, Tensor>> read_npz(const std::string& path);

}  // namespace attnlab
