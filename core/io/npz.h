// NumPy .npz archives (a zip of .npy files) of little-endian f4 arrays in C order.
#pragma once

#include <string>
#include <utility>
#include <vector>

#include "tensor/tensor.h"
#include "text/message.h"

namespace attnlab {

// The .npy v1.0 header for an f4 C-order array of `shape` (magic, version, dict, padding).
std::string npy_header(const Shape& shape);

// Writes `arrays` (name → tensor, any strides) to `path`, streaming each tensor in C order
// without a contiguous copy. Throws DataError on any I/O failure (the file may then be partial:
// callers write into a temporary folder).
void write_npz(const std::string& path, const std::vector<std::pair<std::string, Tensor>>& arrays);

// One .npy file's bytes (v1.0, '<f4', '<f8', '<i4' or '<i8', C order; all but f4 converted to
// float) as a tensor; DataError naming `name`
// for anything else (the header, the shape, or data that does not fit it).
Tensor parse_npy(const std::string& name, const std::string& bytes);

// Reads one .npy file of an f4/f8/i4/i8 C-order array (as parse_npy), a regular file of at most
// kMaxNpyFileBytes (files.h rules). Throws DataError "<what>'<path>': <why>", `what` a message of
// one argument naming the file, e.g. Msg::io_target_file_option.
Tensor read_npy(const std::string& path, Msg what);

// Reads an .npz of f4/f8 arrays (f8 converted to float). Throws DataError.
std::vector<std::pair<std::string, Tensor>> read_npz(const std::string& path);

}  // namespace attnlab
