// find_head exercises: a head's score for a pattern, measured on the setup's sentences, and the
// feedback on a learner's choice of head (docs/exercises.md).
#include <algorithm>
#include <cmath>
#include <cstdio>
#include <limits>

#include "exercises/exercise_text.h"
#include "exercises/exercises.h"

namespace attnlab {

using namespace exercise_text;

namespace {

constexpr HeadTrait kTraits[] = {HeadTrait::PreviousToken, HeadTrait::Self, HeadTrait::FirstToken,
                                     HeadTrait::SameToken, HeadTrait::Induction};

// The keys query i of one sentence is scored on, or nothing when i does not qualify.
//   tokens: the sentence's real tokens (those the model reads as [UNK] already blanked).
std::vector<int64_t> trait_keys(HeadTrait p, const std::vector<std::string>& tokens, int64_t i) {
  switch (p) {
    case HeadTrait::PreviousToken: return i >= 1 ? std::vector<int64_t>{i - 1} : std::vector<int64_t>{};
    case HeadTrait::Self: return {i};
    case HeadTrait::FirstToken: return i >= 1 ? std::vector<int64_t>{0} : std::vector<int64_t>{};
    case HeadTrait::SameToken:
    case HeadTrait::Induction: {
      std::vector<int64_t> keys;
      if (tokens[static_cast<size_t>(i)].empty()) return keys;
      for (int64_t j = 0; j < i; ++j) {
        if (tokens[static_cast<size_t>(j)] != tokens[static_cast<size_t>(i)]) continue;
        if (p == HeadTrait::SameToken) keys.push_back(j);
        else if (j + 1 < i) keys.push_back(j + 1);  // the token that followed that copy
      }
      return keys;
    }
  }
  return {};
}

}  // namespace

bool FindHead::accepts(int layer_, int head) const {
  if (layer && layer_ != *layer) return false;
  if (layer_ < 0 || head < 0 || static_cast<size_t>(layer_) >= scores.size() ||
      static_cast<size_t>(head) >= scores[static_cast<size_t>(layer_)].size())
    return false;
  return scores[static_cast<size_t>(layer_)][static_cast<size_t>(head)] >= at_least;
}

std::string_view head_trait_name(HeadTrait p) {
  switch (p) {
    case HeadTrait::PreviousToken: return "previous_token";
    case HeadTrait::Self: return "self";
    case HeadTrait::FirstToken: return "first_token";
    case HeadTrait::SameToken: return "same_token";
    case HeadTrait::Induction: return "induction";
  }
  return "?";
}

namespace exercise_text {

std::optional<HeadTrait> parse_head_trait(std::string_view s) {
  for (HeadTrait p : kTraits)
    if (head_trait_name(p) == s) return p;
  return std::nullopt;
}

std::string head_trait_list() {
  std::string out;
  for (HeadTrait p : kTraits) out += (out.empty() ? "" : ", ") + std::string(head_trait_name(p));
  return out;
}

std::string head_name(int layer, int head) { return std::to_string(layer) + "." + std::to_string(head); }

std::string score_text(double x) {
  char buf[32];
  std::snprintf(buf, sizeof buf, "%.2f", x);
  return buf;
}

std::vector<RankedHead> ranked_heads(const FindHead& f) {
  std::vector<RankedHead> out;
  for (size_t l = 0; l < f.scores.size(); ++l) {
    if (f.layer && static_cast<int>(l) != *f.layer) continue;
    for (size_t h = 0; h < f.scores[l].size(); ++h) out.push_back({static_cast<int>(l), static_cast<int>(h), f.scores[l][h]});
  }
  const auto key = [](double s) { return std::isnan(s) ? -std::numeric_limits<double>::infinity() : s; };
  std::stable_sort(out.begin(), out.end(), [&](const RankedHead& a, const RankedHead& b) { return key(a.score) > key(b.score); });
  return out;
}

// What the pattern's score measures, as the feedback says it.
std::string trait_words(HeadTrait p, Lang l) {
  switch (p) {
    case HeadTrait::PreviousToken: return pick(l, "on the previous token", "放在前一个词元上");
    case HeadTrait::Self: return pick(l, "on its own position", "放在自身位置上");
    case HeadTrait::FirstToken: return pick(l, "on the first token", "放在第一个词元上");
    case HeadTrait::SameToken: return pick(l, "on earlier copies of the same token", "放在前面出现过的同一个词元上");
    case HeadTrait::Induction:
      return pick(l, "on the token that followed an earlier copy of the current token",
                  "放在当前词元上一次出现时紧随其后的那个词元上");
  }
  return "";
}

std::string check_head(const Exercise& ex, std::string_view answer, Lang l, bool& ok) {
  const FindHead& f = ex.head;
  const auto got = read_dims(answer);
  ok = false;
  int64_t layer = -1, head = -1;  // as typed, up to 2^40: compared before any narrowing
  if (got.size() == 2) layer = got[0], head = got[1];
  else if (got.size() == 1 && f.layer) layer = *f.layer, head = got[0];
  if (head < 0 || layer < 0)
    return pick(l, "Name the head as layer.head, both counted from 0 (1.3 is layer 1, head 3), or click its heatmap. ",
                "请用“层.头”的形式写出这个头，两者都从 0 开始数（1.3 表示第 1 层第 3 个头），或者点击它的热力图。");
  const auto layers = static_cast<int64_t>(f.scores.size());
  const auto heads = layers ? static_cast<int64_t>(f.scores[0].size()) : 0;
  if (layer >= layers || head >= heads)
    return pick(l, "This model has " + std::to_string(layers) + " layer(s) (0 to " + std::to_string(layers - 1) + ") and " +
                       std::to_string(heads) + " heads (0 to " + std::to_string(heads - 1) + "). ",
                "这个模型有 " + std::to_string(layers) + " 层（0 到 " + std::to_string(layers - 1) + "），每层 " +
                    std::to_string(heads) + " 个头（0 到 " + std::to_string(heads - 1) + "）。");
  if (f.layer && layer != *f.layer)
    return pick(l, "The question is about layer " + std::to_string(*f.layer) + ". ",
                "题目问的是第 " + std::to_string(*f.layer) + " 层。");
  ok = f.accepts(static_cast<int>(layer), static_cast<int>(head));  // within the model: small
  if (ok) return "";
  const double mine = f.scores[static_cast<size_t>(layer)][static_cast<size_t>(head)];
  const std::string name = head_name(static_cast<int>(layer), static_cast<int>(head));
  return pick(l, "Head " + name + " puts on average " + score_text(mine) + " of its weight " +
                     trait_words(f.pattern, l) + "; the head asked for puts at least " + score_text(f.at_least) + ". ",
              name + " 号头平均把 " + score_text(mine) + " 的权重" + trait_words(f.pattern, l) +
                  "；要找的头至少有 " + score_text(f.at_least) + "。");
}

std::string head_summary(const FindHead& f, Lang l) {
  std::string list;
  for (const RankedHead& h : ranked_heads(f))
    if (h.score >= f.at_least) list += (list.empty() ? "" : ", ") + head_name(h.layer, h.head) + " (" + score_text(h.score) + ")";
  return pick(l, "Heads that reach " + score_text(f.at_least) + " here: " + list + ". ",
              "这里达到 " + score_text(f.at_least) + " 的头：" + list + "。");
}

}  // namespace exercise_text

std::vector<std::vector<double>> head_trait_scores(const Trace& trace, const Batch& batch, HeadTrait p,
                                                     int64_t layers, const TrainedVocab* vocab) {
  const TokenBatch& tb = batch.encoder_tokens();
  std::vector<std::vector<double>> out;
  for (int64_t l = 0; l < layers; ++l) {
    const Step* st = trace.find("encoder.layers." + std::to_string(l) + ".self_attn.weights");
    if (!st) break;
    const Tensor& w = st->tensor;  // (B, H, S, S)
    const int64_t heads = w.size(1);
    std::vector<double> sum(static_cast<size_t>(heads), 0.0);
    int64_t count = 0;
    for (int64_t b = 0; b < tb.batch(); ++b) {
      const auto n = static_cast<int64_t>(tb.lengths[static_cast<size_t>(b)]);
      std::vector<std::string> tokens(tb.tokens[static_cast<size_t>(b)].begin(), tb.tokens[static_cast<size_t>(b)].begin() + n);
      for (auto& t : tokens)
        if (vocab && vocab->reads_as_unknown(t)) t.clear();
      for (int64_t i = 0; i < n; ++i) {
        const std::vector<int64_t> keys = trait_keys(p, tokens, i);
        if (keys.empty()) continue;
        ++count;
        for (int64_t h = 0; h < heads; ++h)
          for (int64_t j : keys) sum[static_cast<size_t>(h)] += w.at({b, h, i, j});
      }
    }
    for (double& s : sum) s = count > 0 ? s / static_cast<double>(count) : std::numeric_limits<double>::quiet_NaN();
    out.push_back(std::move(sum));
  }
  return out;
}

}  // namespace attnlab
