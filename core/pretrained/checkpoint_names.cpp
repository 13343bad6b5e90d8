#include "pretrained/checkpoint_names.h"

#include "io/files.h"
#include "tensor/ops.h"
#include "text/errors.h"

namespace attnlab::pretrained {

namespace {

// "….LayerNorm.gamma" → "….LayerNorm.weight", "….LayerNorm.beta" → "….LayerNorm.bias", as
// Hugging Face renames them when it loads an old checkpoint.
std::string modern_name(std::string name) {
  if (name.find("LayerNorm.") == std::string::npos && name.find("layer_norm.") == std::string::npos) return name;
  if (name.ends_with(".gamma")) return name.substr(0, name.size() - 6) + ".weight";
  if (name.ends_with(".beta")) return name.substr(0, name.size() - 5) + ".bias";
  return name;
}

}  // namespace

CheckpointNames::CheckpointNames(CheckpointTensors tensors, const std::string& prefix, const std::string& folder,
                                 std::string architecture)
    : prefix_(prefix), architecture_(std::move(architecture)), at_(Text(Msg::pt_model_folder, printable_name(folder))) {
  for (auto& [name, tensor] : tensors.tensors) {
    const std::string short_name = modern_name(name.starts_with(prefix_) ? name.substr(prefix_.size()) : name);
    if (by_name_.count(short_name))
      throw DataError(at_ + Text(Msg::pt_tensor_given_twice, printable_name(short_name), prefix_));
    by_name_.emplace(short_name, std::make_pair(name, std::move(tensor)));
  }
}

Tensor CheckpointNames::take(const std::string& name, const Shape& stored, bool prefixed) {
  const auto it = by_name_.find(name);
  if (it == by_name_.end())
    throw DataError(at_ + Text(Msg::pt_tensor_missing, printable_name(prefixed ? prefix_ + name : name)));
  Tensor t = std::move(it->second.second);
  if (t.shape() != stored)
    throw DataError(at_ + Text(Msg::pt_tensor_shape, printable_name(it->second.first), shape_str(t.shape()),
                               shape_str(stored)));
  by_name_.erase(it);
  return t;
}

void CheckpointNames::apply(const std::vector<Mapping>& mappings, Weights& w) {
  for (const auto& m : mappings) {
    Tensor t = take(m.from, m.stored, m.prefixed);
    w.set(m.to, m.transpose ? t.transpose(0, 1).contiguous() : std::move(t));
  }
}

void CheckpointNames::finish() const {
  if (!by_name_.empty())
    throw DataError(at_ + Text(Msg::pt_tensor_unknown, printable_name(by_name_.begin()->second.first), architecture_));
}

}  // namespace attnlab::pretrained
