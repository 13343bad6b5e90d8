#include "model/trace.h"

#include <algorithm>
#include <set>

#include "text/errors.h"

namespace attnlab {

std::vector<std::string> StepInfo::inputs() const {
  std::vector<std::string> ids;
  for (const auto& b : bindings)
    if (!b.weight && std::find(ids.begin(), ids.end(), b.source) == ids.end()) ids.push_back(b.source);
  return ids;
}

void Trace::record(StepInfo info, const Tensor& t) {
  if (find(info.id)) throw std::logic_error("step recorded twice: " + info.id);
  steps_.push_back({std::move(info), t});
}

const Step* Trace::find(const std::string& id) const {
  auto it = std::find_if(steps_.begin(), steps_.end(), [&](const Step& s) { return s.info.id == id; });
  return it == steps_.end() ? nullptr : &*it;
}

int64_t Trace::storage_bytes() const {
  std::set<const float*> seen;
  int64_t total = 0;
  for (const auto& s : steps_) {
    const float* base = s.tensor.data() - s.tensor.offset();
    if (seen.insert(base).second) total += s.tensor.storage_bytes();
  }
  return total;
}

}  // namespace attnlab
