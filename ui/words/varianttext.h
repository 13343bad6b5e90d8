// The words of the attention variants lab (core/variants/variants.h) for people: each variant's name and
// one-sentence description, its knobs' labels, and the tables that translate the English titles
// and formulas core gives the variant steps, with their "what happens here and why". StepText
// consults the tables for every step whose id holds ".variant."; all strings go through tr().
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

  // Translations of core's English titles and formula parts of variant steps, in the StepText
  // context; a null QString when the form is not in the tables.
  static QString title(const QString& english);
  static QString formulaPart(const QString& english);
  // The explanation source text (QT_TRANSLATE_NOOP("StepText", …)) of a variant step, by its kind
  // as StepText::kind gives it ("variant.kv_cache.t3.attn"); nullptr when there is none.
  static const char* explanation(const std::string& kind);
};

}  // namespace attnlab::ui
