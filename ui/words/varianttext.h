// The words of the attention variants lab (core/variants/variants.h) for people: each variant's name and
// one-sentence description, its knobs' labels and tips, and each variant step's "what happens
// here and why" (its title and formula are catalogue Texts, translated like every step's). All
// strings go through tr().
#pragma once

#include <QCoreApplication>
#include <QString>

#include <string>

#include "model/variant_config.h"

namespace attnlab::ui {

class VariantText {
  Q_DECLARE_TR_FUNCTIONS(VariantText)
 public:
  static QString name(VariantKind k);         // "Sliding window + global"
  static QString description(VariantKind k);  // one sentence: what it changes and why
  // The label of knob `param` (VariantParam::name) of kind k, e.g. "window (± tokens):".
  static QString paramLabel(VariantKind k, const std::string& param);
  static QString paramTip(VariantKind k, const std::string& param);

  // The explanation source text (QT_TRANSLATE_NOOP("StepText", …)) of a variant step, by its kind
  // as StepText::kind gives it ("variant.kv_cache.t3.attn"); nullptr when there is none.
  static const char* explanation(const std::string& kind);
};

}  // namespace attnlab::ui
