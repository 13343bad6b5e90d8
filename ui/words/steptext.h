// The words of a step in the user's language:
//   - title and formula: core's catalogue Texts (core/text/messages/steps*.h), translated by id;
//   - explanation: "what happens here and why", keyed by the step's kind (its id without stack,
//     layer and block), with a sentence more for cross-attention (stepexplain.cpp).
// known*() say whether a title or formula holds English prose outside the catalogue (shown as it
// is); the test (tests/ui/test_language) runs every kind of step and fails on any.
#pragma once

#include <QCoreApplication>
#include <QString>

#include "model/faults.h"
#include "model/trace.h"

namespace attnlab::ui {

class StepText {
  Q_DECLARE_TR_FUNCTIONS(StepText)
 public:
  static QString title(const StepInfo& info);
  static QString formula(const StepInfo& info);
  // Two to four sentences; "" for a kind without one (the test forbids that).
  static QString explanation(const std::string& id);
  // A planted bug's name (core's FaultInfo::title, translated by the fault's id).
  static QString faultTitle(Fault f);
  // The step's kind: "encoder.layers.0.self_attn.q_proj" → "q_proj"; "…ffn.linear1" → "ffn.linear1";
  // "…residual2" → "residual".
  static std::string kind(const std::string& id);
  // Whether title(info) / formula(info) came wholly from the catalogue (maths and names aside).
  static bool knownTitle(const StepInfo& info);
  static bool knownFormula(const StepInfo& info);
};

}  // namespace attnlab::ui
