#include "pretrained/checkpoint_names.h"

#include <algorithm>

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

void tie_head(Weights& w) {
  if (const HalfTensor* h = w.half("embedding.weight"))
    w.set("output_head.weight", *h);
  else
    w.set("output_head.weight", w.get("embedding.weight"));
}

StoredTensor stack_rows(const std::vector<StoredTensor>& parts) {
  const bool halves = std::all_of(parts.begin(), parts.end(), [&](const StoredTensor& p) {
    return p.is_half() && !p.half.transposed && p.half.format == parts[0].half.format;
  });
  if (halves) {
    std::vector<HalfTensor> h;
    for (const auto& p : parts) h.push_back(p.half);
    return {.f32 = {}, .half = HalfTensor::concat_rows(h)};
  }
  Shape shape = parts[0].shape();
  shape[0] = 0;
  for (const auto& p : parts) shape[0] += p.shape()[0];
  Tensor out = Tensor::empty(shape);
  float* dst = out.data();
  for (const auto& p : parts) {
    const Tensor t = p.widen().contiguous();
    dst = std::copy_n(t.data(), t.numel(), dst);
  }
  return {.f32 = std::move(out), .half = {}};
}

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
  return take_stored(name, stored, prefixed).widen();
}

StoredTensor CheckpointNames::take_stored(const std::string& name, const Shape& stored, bool prefixed) {
  const auto it = by_name_.find(name);
  if (it == by_name_.end())
    throw DataError(at_ + Text(Msg::pt_tensor_missing, printable_name(prefixed ? prefix_ + name : name)));
  StoredTensor t = std::move(it->second.second);
  if (t.shape() != stored)
    throw DataError(at_ + Text(Msg::pt_tensor_shape, printable_name(it->second.first), shape_str(t.shape()),
                               shape_str(stored)));
  by_name_.erase(it);
  return t;
}

void CheckpointNames::apply(const std::vector<Mapping>& mappings, Weights& w) {
  for (const auto& m : mappings) {
    const StoredTensor t = take_stored(m.from, m.stored, m.prefixed);
    (m.transpose ? t.transpose() : t).set_into(w, m.to);
  }
}

void CheckpointNames::finish() const {
  if (!by_name_.empty())
    throw DataError(at_ + Text(Msg::pt_tensor_unknown, printable_name(by_name_.begin()->second.first), architecture_));
}

}  // namespace attnlab::pretrained
