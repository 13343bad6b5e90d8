// A lesson saved to disk (`.attnlab`, JSON): the sentences, the model configuration, the step on
// show and the window's computation settings. The weights are not stored: they follow from the
// configuration and its seed (weights.h), so a session reproduces the same trace bit for bit.
// Format and rules: docs/sessions.md. Qt-free, so that the reader can be fuzzed.
#pragma once

#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

#include "backend.h"
#include "config.h"

namespace attnlab {

constexpr int kSessionVersion = 1;                // what this build writes and the newest it reads
constexpr size_t kMaxSessionBytes = 16u << 20;    // a session is small; anything larger is refused

struct Session {
  std::vector<std::string> texts;         // the batch, one sentence each
  std::vector<std::string> memory_texts;  // cross-attention sources (empty: encoder only)
  ModelConfig cfg;                        // faults are not saved (an exercise plants them)
  std::string step;                       // step id on show ("" = the first)
  BackendKind backend = BackendKind::Cpu;
  int64_t memory_budget_mib = 4096;
};

std::string session_json(const Session& s);  // pretty-printed UTF-8 JSON

// Throws DataError naming `origin` (the file) and what is wrong: not JSON, not a session, a
// session from a newer version, a missing or mistyped field, a configuration that cannot run.
Session parse_session(std::string_view text, const std::string& origin);

}  // namespace attnlab
