// The trained sample models (sample_inputs/models/*.safetensors), embedded in the program when it
// is built (core/CMakeLists.txt writes an .incbin table), so that the window, every command line
// (the headless one too) and an exercise that names a model have them without Qt resources or
// the source tree.
#pragma once

#include <string_view>
#include <vector>

namespace attnlab {

struct ShippedModel {
  std::string_view file;   // "induction-letters.safetensors"
  std::string_view bytes;  // the whole weights file
  std::string_view name() const { return file.substr(0, file.rfind('.')); }  // "induction-letters"
};

// Every shipped model, in file-name order.
const std::vector<ShippedModel>& shipped_models();
// By name ("induction-letters") or file name; nullptr when there is none.
const ShippedModel* find_shipped_model(std::string_view name);

}  // namespace attnlab
