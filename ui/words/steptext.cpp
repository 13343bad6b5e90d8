#include "words/steptext.h"

#include <string_view>

#include "words/coretext.h"

namespace attnlab::ui {

namespace {

// A title whose fault tag was dropped (an exercise hides it) is the id's last part: code, kept.
bool isBareId(const StepInfo& info) {
  const auto dot = info.id.rfind('.');
  return info.title.id() == Msg::verbatim && info.title.text() == info.id.substr(dot == std::string::npos ? 0 : dot + 1);
}

}  // namespace

QString StepText::title(const StepInfo& info) { return CoreText::translate(info.title); }

bool StepText::knownTitle(const StepInfo& info) { return isBareId(info) || !has_verbatim_prose(info.title); }

QString StepText::formula(const StepInfo& info) { return CoreText::translate(info.formula); }

bool StepText::knownFormula(const StepInfo& info) { return !has_verbatim_prose(info.formula); }

std::string StepText::kind(const std::string& id) {
  std::string_view k = id;
  const auto drop = [&k](std::string_view prefix) {
    if (!k.starts_with(prefix)) return false;
    k.remove_prefix(prefix.size());
    return true;
  };
  if (drop("encoder.") || drop("decoder.")) {
    if (k.starts_with("layers.")) {  // "layers.<n>."
      const size_t dot = k.find('.', 7);
      const std::string_view n = k.substr(7, dot == std::string_view::npos ? 0 : dot - 7);
      if (!n.empty() && n.find_first_not_of("0123456789") == std::string_view::npos) k.remove_prefix(dot + 1);
    }
    if (!drop("self_attn.")) drop("multihead_attn.");
  }
  for (std::string_view numbered : {"residual", "norm"})  // "residual2" → "residual"
    if (k.starts_with(numbered) && k.size() > numbered.size() &&
        k.substr(numbered.size()).find_first_not_of("0123456789") == std::string_view::npos)
      return std::string(numbered);
  return std::string(k);
}

}  // namespace attnlab::ui
