// Stopping a long explanation between two re-runs of the model: the window's panels set the flag
// when their result is outdated or they close, so that no one waits for L·H or S forward passes
// nobody will see.
#pragma once

#include <atomic>

#include "model/trace.h"  // Cancelled

namespace attnlab::explain {

// Cancelled once `stop` is set; null: never.
inline void stop_if_asked(const std::atomic<bool>* stop) {
  if (stop && stop->load(std::memory_order_relaxed)) throw Cancelled();
}

}  // namespace attnlab::explain
