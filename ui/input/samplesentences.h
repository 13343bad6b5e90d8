// The input panel's built-in samples: sentences (and a cross-attention source) from the
// :/samples resources (sample_inputs/), for the Sample chooser.
#pragma once

#include <QStringList>

#include <span>

namespace attnlab::ui {

struct SampleSentences {
  const char* name;    // translated at use, in the context "attnlab::ui::InputPanel"
  const char* file;    // in the :/samples resource; nullptr: core's built-in sample
  const char* source;  // cross-attention source file, or nullptr
};

std::span<const SampleSentences> sampleSentences();

// The lines of a built-in sample that are not blank: its sentences, or its sources (source = true).
QStringList sampleLines(const SampleSentences& s, bool source);

}  // namespace attnlab::ui
