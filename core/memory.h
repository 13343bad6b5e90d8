// What a traced run will hold in memory, known before it starts.
#pragma once

#include <cstdint>
#include <string>

#include "config.h"

namespace attnlab {

struct MemoryEstimate {
  int64_t trace_bytes = 0;    // every recorded tensor (views counted once)
  int64_t weights_bytes = 0;  // parameters, plus their serialised copy when exporting
  int64_t working_bytes = 0;  // transient buffers (one attention-sized tensor)
  int64_t total() const { return trace_bytes + weights_bytes + working_bytes; }
};

// b batch, s encoder length, t decoder length (0 unless cfg.cross), vocab distinct tokens + 1.
MemoryEstimate estimate_memory(const ModelConfig& cfg, int64_t b, int64_t s, int64_t t, int64_t vocab);

// Throws DataError when the estimate exceeds budget_mib, with both numbers and what to do.
void check_memory_budget(const MemoryEstimate& e, int64_t budget_mib);

std::string format_mib(int64_t bytes);  // "12.3 MiB"

}  // namespace attnlab
