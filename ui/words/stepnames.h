// Words about steps, for people: where a step sits (stack, layer, block), its axis names, and
// what changed from the previous step in one plain sentence. All strings go through tr().
#pragma once

#include <QCoreApplication>
#include <QString>
#include <QStringList>

#include "model/trace.h"

namespace attnlab::ui {

struct StepPlace {
  QString stack;  // "Encoder" / "Decoder"
  int layer = -1; // 0-based; -1 for the stack's own steps (input, masks)
  QString block;  // "Self-attention", "Cross-attention", "Feed-forward", "" for layer-level steps
  bool backward = false;   // a gradient step ("….grad", "grad/…"): the place of what it differentiates
  bool parameter = false;  // a parameter's gradient ("grad/…")
};

class StepNames {
  Q_DECLARE_TR_FUNCTIONS(StepNames)
 public:
  static StepPlace place(const std::string& id);
  // "Layer 0 · Self-attention · 6/14 · Scale by √d_head": the layer counted from 0 as in the step ids
  // ("encoder.layers.0…"), the position (a count, from 1) within the group of steps that share
  // the same stack, layer and block.
  static QString location(const Trace& trace, int index, bool withTitle = true);  // withTitle false: the place and "k/n" only
  // Axis names of a step's tensor, e.g. {"B", "H", "S", "Dh"}; cross-attention uses T for
  // queries and S for keys; the decoder's own steps use T. A gradient has its tensor's names; a
  // parameter's, the parameter's ({"3·D", "D"} for in_proj_weight).
  static QStringList axisNames(const std::string& id, int dims);
  // One plain sentence: what this step did to the shape/values relative to its inputs.
  static QString whatChanged(const Trace& trace, int index);
  // Where a step sits, as the location line says it ("Layer 1", "Self-attention"); withStack
  // names the stack too ("Encoder layer 1").
  static QStringList placeWords(const StepPlace& where, bool withStack);
  // Names for a list of steps (id, title) as the navigator shows them: the title, and where two
  // steps share a title, the place too ("Q projection · Encoder layer 1 · Self-attention").
  static QStringList listNames(const std::vector<std::pair<std::string, Text>>& steps);
};

}  // namespace attnlab::ui
