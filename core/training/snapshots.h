// Snapshots of a training run's weights, so that any earlier moment can be shown again: kept in
// memory up to a byte budget, or written to a folder (one safetensors file per snapshot) for long
// runs. Without a folder, a store over its budget thins itself: every second snapshot after the
// first is dropped (the last one always kept), so the moments stay spread over the whole run.
#pragma once

#include <cstdint>
#include <map>
#include <memory>
#include <string>
#include <vector>

#include "model/weights.h"

namespace attnlab {

class SnapshotStore {
 public:
  // max_bytes: the in-memory budget (the weights' float32 bytes); folder: "" keeps them in
  // memory, otherwise each is written there as step-NNNNNNNN.safetensors (with `metadata`: a
  // whole weights file, e.g. weights_metadata + the vocabulary's) and read back on demand.
  // f16: the files store F16 (half the bytes; read back as the F16-rounded weights).
  explicit SnapshotStore(int64_t max_bytes = 256ll << 20, std::string folder = "",
                         std::map<std::string, std::string> metadata = {}, bool f16 = false);
  static std::string file_name(int64_t step);  // "step-00000100.safetensors"

  // A deep copy of w at `step` (a later add at the same step replaces it). DataError when the
  // folder cannot be written.
  void add(int64_t step, const Weights& w);
  // The same for weights already copied and never changed again (kept as they are, not copied).
  void add(int64_t step, std::shared_ptr<const Weights> copy);
  std::vector<int64_t> steps() const;
  bool empty() const { return kept_.empty(); }
  // The snapshot at the latest step ≤ `step` (the first one when there is none); its vocabulary
  // is the one given at add(). DataError when its file cannot be read back; std::out_of_range when
  // the store is empty.
  Weights at(int64_t step) const;
  int64_t memory_bytes() const { return bytes_; }
  const std::string& folder() const { return folder_; }

 private:
  void forget(int64_t step, const Weights& w);  // the entry at `step` dropped; vocabulary and names from w
  void write(int64_t step, const Weights& w);   // into the folder
  void keep(int64_t step, std::shared_ptr<const Weights> copy);  // in memory, then thin()
  void thin();
  std::string path_of(int64_t step) const;

  int64_t max_bytes_;
  std::string folder_;
  std::map<std::string, std::string> metadata_;
  bool f16_ = false;
  std::map<int64_t, std::shared_ptr<const Weights>> kept_;  // null weights: on disk
  std::shared_ptr<const TrainedVocab> vocab_;
  std::vector<std::string> names_;
  int64_t bytes_ = 0;
};

}  // namespace attnlab
