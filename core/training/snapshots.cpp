#include "training/snapshots.h"

#include <cstdio>
#include <filesystem>
#include <stdexcept>

#include "io/files.h"
#include "io/safetensors.h"
#include "text/errors.h"
#include "training/trainer.h"

namespace attnlab {

SnapshotStore::SnapshotStore(int64_t max_bytes, std::string folder, std::map<std::string, std::string> metadata, bool f16)
    : max_bytes_(max_bytes), folder_(std::move(folder)), metadata_(std::move(metadata)), f16_(f16) {}

std::string SnapshotStore::file_name(int64_t step) {
  char name[40];
  std::snprintf(name, sizeof name, "step-%08lld.safetensors", static_cast<long long>(step));
  return name;
}

std::string SnapshotStore::path_of(int64_t step) const { return (std::filesystem::path(folder_) / file_name(step)).string(); }

void SnapshotStore::add(int64_t step, const Weights& w) {
  forget(step, w);
  if (!folder_.empty()) return write(step, w);
  keep(step, std::make_shared<const Weights>(clone_weights(w)));
}

void SnapshotStore::add(int64_t step, std::shared_ptr<const Weights> copy) {
  forget(step, *copy);
  if (!folder_.empty()) return write(step, *copy);
  keep(step, std::move(copy));
}

void SnapshotStore::forget(int64_t step, const Weights& w) {
  vocab_ = w.vocab();
  names_ = w.names();
  if (auto it = kept_.find(step); it != kept_.end()) {
    if (it->second) bytes_ -= it->second->bytes();
    kept_.erase(it);
  }
}

void SnapshotStore::write(int64_t step, const Weights& w) {
  std::vector<std::pair<std::string, Tensor>> tensors;
  for (const auto& name : w.names()) tensors.emplace_back(name, w.get(name));
  write_file_atomically(path_of(step), serialize_safetensors(tensors, metadata_, f16_), /*replace=*/true, Msg::tr_cannot_write);
  kept_[step] = nullptr;
}

void SnapshotStore::keep(int64_t step, std::shared_ptr<const Weights> copy) {
  bytes_ += copy->bytes();
  kept_[step] = std::move(copy);
  thin();
}

void SnapshotStore::thin() {
  while (bytes_ > max_bytes_ && kept_.size() > 2) {
    // Drop every second snapshot after the first, never the last.
    size_t i = 0;
    const int64_t last = kept_.rbegin()->first;
    for (auto it = kept_.begin(); it != kept_.end();) {
      if (i++ % 2 == 1 && it->first != last) {
        bytes_ -= it->second->bytes();
        it = kept_.erase(it);
      } else {
        ++it;
      }
    }
  }
}

std::vector<int64_t> SnapshotStore::steps() const {
  std::vector<int64_t> out;
  for (const auto& [s, w] : kept_) out.push_back(s);
  return out;
}

Weights SnapshotStore::at(int64_t step) const {
  if (kept_.empty()) throw std::out_of_range("SnapshotStore::at: no snapshot");
  auto it = kept_.upper_bound(step);
  if (it != kept_.begin()) --it;
  if (it->second) return *it->second;  // shares storage with the store's copy, which is never written
  const SafetensorsFile f = read_safetensors(path_of(it->first));
  Weights w;
  for (const auto& name : names_) {
    bool found = false;
    for (const auto& [k, t] : f.tensors)
      if (k == name) w.set(name, t), found = true;
    if (!found) throw DataError(Text(Msg::ls_weights_prefix) + Text(Msg::tensor_missing, name));
  }
  w.set_vocab(vocab_);
  return w;
}

}  // namespace attnlab
