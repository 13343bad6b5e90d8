// Checking a learner's answer leniently and wording the feedback; the computed solutions and
// the student's view of an exercise (docs/exercises.md).
#include <nlohmann/json.hpp>

#include <algorithm>
#include <cmath>
#include <sstream>

#include "exercises/exercise_text.h"
#include "exercises/exercises.h"

namespace attnlab {

using nlohmann::json;
using namespace exercise_text;

namespace {

// What is wrong with a shape or strides answer, before the hint.
std::string diagnose_dims(const Exercise& ex, const StepFacts& s, std::string_view answer, Lang l, bool& ok) {
  const bool strides = ex.predict.ask == ShapeAsk::Strides;
  const Shape& want = strides ? s.strides : s.shape;
  const auto got = read_dims(answer);
  ok = got == want;
  if (ok) return "";
  const std::string what = strides ? pick(l, "strides", "步长") : pick(l, "a shape", "形状");
  if (got.empty())
    return pick(l, "I could not read " + what + " in your answer; type the numbers like (2, 4, 6, 8). ",
                "没能从你的答案里读出" + what + "；请像 (2, 4, 6, 8) 这样输入数字。");
  const std::string n = std::to_string(got.size()), d = std::to_string(want.size());
  if (got.size() != want.size())
    return pick(l, "Your answer has " + n + " numbers, but this tensor has " + d + " dimensions. ",
                "你的答案有 " + n + " 个数，但这个张量有 " + d + " 个维度。");
  if (strides && got == s.shape)
    return pick(l, "That is the shape; the question asks for the strides (elements skipped per step along each axis). ",
                "这是形状；题目问的是步长（沿每个轴前进一步要跳过的元素个数）。");
  if (strides && !s.contiguous && got == contiguous_strides(s.shape))
    return pick(l, "Those are the strides of a fresh contiguous tensor of this shape, but this step is a view that "
                   "shares memory with an earlier one. ",
                "这是同形状的新建连续张量的步长，可这一步是与前面某一步共享内存的视图。");
  auto a = got, b = want;
  std::sort(a.begin(), a.end());
  std::sort(b.begin(), b.end());
  if (a == b) return pick(l, "The numbers are right but their order is not. ", "数字都对，但顺序不对。");
  return pick(l, "Not quite. ", "还不对。");
}

// A step named by its full id, its block, or a unique ending ("self_attn.scores", "scores").
struct Named {
  std::string step, block;
  bool ambiguous = false;
};

Named resolve_step(const std::vector<std::string>& ids, const std::string& word) {
  Named out;
  if (word.empty()) return out;
  if (std::find(ids.begin(), ids.end(), word) != ids.end()) {
    out.step = word;
    return out;
  }
  const bool block = word.ends_with(".self_attn") || word.ends_with(".multihead_attn") || word.ends_with(".ffn");
  if (block && std::any_of(ids.begin(), ids.end(), [&](const std::string& s) { return s.rfind(word + ".", 0) == 0; })) {
    out.block = word;
    return out;
  }
  for (const auto& s : ids)
    if (ends_with_part(s, word)) {
      if (!out.step.empty()) return {"", "", true};
      out.step = s;
    }
  return out;
}

std::string block_of(const std::string& step) {
  for (const char* b : {".self_attn.", ".multihead_attn.", ".ffn."}) {
    const auto p = step.find(b);
    if (p != std::string::npos) return step.substr(0, p + std::string(b).size() - 1);
  }
  return step.substr(0, step.rfind('.'));
}

std::string check_bug(const Exercise& ex, std::string_view answer, Lang l, bool& ok) {
  ok = false;
  const std::string a = trim(halfwidth(answer));
  const auto cut = a.find_first_of(" \t\r\n,;:|");
  std::string head = lower_ascii(a.substr(0, cut));
  for (const char* sep : {"，", "；", "：", "、", "\u3000"}) {
    const auto p = head.find(sep);
    if (p != std::string::npos) head = head.substr(0, p);
  }
  const std::string rest = lower_ascii(a.substr(std::min(a.size(), head.size())));
  std::vector<std::string> ids = ex.bug.steps;  // the faulty run's steps, then the correct run's
  for (const auto& s : ex.steps)
    if (std::find(ids.begin(), ids.end(), s.id) == ids.end()) ids.push_back(s.id);
  const Named named = resolve_step(ids, head);
  if (named.ambiguous)
    return pick(l, "\"" + head + "\" matches several steps; write more of the id (e.g. self_attn." + head + "). ",
                "“" + head + "”对应好几个步骤；请把步骤名写完整些（例如 self_attn." + head + "）。");
  if (named.step.empty() && named.block.empty())
    return pick(l, "Start your answer with the step where the bug is (e.g. encoder.layers.0.self_attn.weights), "
                   "then say what you see. ",
                "答案请以出错的步骤开头（例如 encoder.layers.0.self_attn.weights），再写出你看到的现象。");
  const auto& marked = ex.bug.marked;
  const bool step_ok = named.block.empty()
                           ? std::find(marked.begin(), marked.end(), named.step) != marked.end()
                           : ex.bug.accept_block && named.block == block_of(ex.bug.faulty_step);
  const bool symptom_ok = std::any_of(ex.bug.symptoms.begin(), ex.bug.symptoms.end(),
                                      [&](const std::string& k) { return rest.find(keyword(k)) != std::string::npos; });
  ok = step_ok && symptom_ok;
  if (ok) return "";
  if (step_ok)
    return pick(l, "Right place. Now say what goes wrong there. ", "位置对了。再说说那里出了什么问题。");
  if (symptom_ok)
    return pick(l, "You describe the symptom well, but the bug is not in that step. ",
                "现象描述得对，但错误不在这一步。");
  return pick(l, "Neither the step nor the symptom matches. ", "步骤和现象都不对。");
}

std::string check_mask(const Exercise& ex, std::string_view answer, Lang l, bool& ok) {
  ok = false;
  const FixMask& m = ex.mask;
  const int n = m.size;
  const auto rows = read_mask_rows(answer);
  const std::string ns = std::to_string(n);
  if (rows.empty() || static_cast<int>(rows.size()) != n ||
      std::any_of(rows.begin(), rows.end(), [&](const std::string& x) { return static_cast<int>(x.size()) != n; }))
    return pick(l,
                "Give the mask as " + ns + " rows of " + ns +
                    " zeros and ones, rows separated by '/' (like 1100/1110/…). ",
                "请把掩码写成 " + ns + " 行、每行 " + ns + " 个 0 或 1，行与行之间用 '/' 分开（如 1100/1110/…）。");
  auto cell = [&](int i, int j) { return rows[i][j] - '0'; };
  // A token by its position, from 0 as the mask editor's labels and every view number them.
  auto who = [&](int i) { return std::to_string(i) + " (" + m.labels[i] + ")"; };
  for (int i = 0; i < n; ++i) {
    bool any = false;
    for (int j = 0; j < n; ++j) any = any || cell(i, j) == 1;
    if (!any)
      return pick(l, "Row " + who(i) + " hides every key: its softmax would be 0/0, a row of NaN. ",
                  "行 " + who(i) + " 把所有键都遮住了：softmax 会变成 0/0，整行都是 NaN。");
  }
  for (int i = 0; i < n; ++i)
    for (int j = 0; j < n; ++j) {
      const int want = m.required[i * n + j];
      if (want == -1 || want == cell(i, j)) continue;
      if (want == 0)
        return pick(l, "Token " + who(i) + " can still see token " + who(j) + ". ",
                    "词元 " + who(i) + " 仍然能看到词元 " + who(j) + "。");
      return pick(l, "Token " + who(i) + " no longer sees token " + who(j) + ", which the task keeps visible. ",
                  "词元 " + who(i) + " 看不到词元 " + who(j) + " 了，而题目要求它保持可见。");
    }
  ok = true;
  return "";
}

}  // namespace

// ----------------------------------------------------------------------------- answers

std::vector<int64_t> read_dims(std::string_view text) {
  const std::string s = halfwidth(text);
  std::vector<int64_t> out;
  for (size_t i = 0; i < s.size();) {
    if (s[i] < '0' || s[i] > '9') {
      ++i;
      continue;
    }
    int64_t v = 0;
    for (; i < s.size() && s[i] >= '0' && s[i] <= '9'; ++i)
      v = std::min<int64_t>(v * 10 + (s[i] - '0'), int64_t(1) << 40);  // huge numbers stay wrong, never overflow
    out.push_back(v);
  }
  return out;
}

int read_yes_no(std::string_view text) {
  const std::string s = lower_ascii(trim(halfwidth(text)));
  for (const char* no : {"no", "n", "false", "0", "not", "nope", "not contiguous", "non-contiguous", "noncontiguous",
                         "否", "不", "不是", "不连续", "非连续", "不是连续的", "错"})
    if (s == no) return 0;
  for (const char* yes : {"yes", "y", "true", "1", "contiguous", "yep", "是", "是的", "连续", "连续的", "对"})
    if (s == yes) return 1;
  if (s.rfind("no", 0) == 0 || s.find("不") != std::string::npos || s.find("否") != std::string::npos ||
      s.find("非") != std::string::npos)
    return 0;
  if (s.rfind("yes", 0) == 0 || s.find("是") != std::string::npos || s.find("连续") != std::string::npos) return 1;
  return -1;
}

std::vector<std::string> read_mask_rows(std::string_view text) {
  std::string s = halfwidth(text);
  std::string flat;  // '/' between rows, digits, ' ' between groups
  for (char c : s) {
    if (c == ']' || c == '/' || c == '\n' || c == ';' || c == '|') flat += '/';
    else if (c == '0' || c == '1') flat += c;
    else if (c == ' ' || c == '\t' || c == ',' || c == '[' || c == '\r') flat += ' ';
    else if (static_cast<unsigned char>(c) >= 0x80) flat += ' ';
    else return {};
  }
  auto split = [](const std::string& x, char sep) {
    std::vector<std::string> parts;
    std::stringstream ss(x);
    for (std::string p; std::getline(ss, p, sep);) parts.push_back(p);
    return parts;
  };
  auto digits = [](const std::string& x) {
    std::string d;
    for (char c : x)
      if (c == '0' || c == '1') d += c;
    return d;
  };
  std::vector<std::string> rows;
  for (const auto& part : split(flat, '/'))
    if (!digits(part).empty()) rows.push_back(digits(part));
  if (rows.size() == 1) {  // "1100 1110 1111", or n² single digits
    std::vector<std::string> groups;
    for (const auto& g : split(flat, ' '))
      if (!digits(g).empty()) groups.push_back(digits(g));
    const size_t total = rows[0].size();
    const auto k = static_cast<size_t>(std::lround(std::sqrt(static_cast<double>(total))));
    if (groups.size() > 1 && std::all_of(groups.begin(), groups.end(), [](auto& g) { return g.size() > 1; })) {
      rows = groups;
    } else if (k > 1 && k * k == total) {
      const std::string all = rows[0];
      rows.clear();
      for (size_t i = 0; i < k; ++i) rows.push_back(all.substr(i * k, k));
    }
  }
  return rows;
}

std::string solution(const Exercise& ex) {
  switch (ex.kind) {
    case ExerciseKind::PredictShape: {
      const StepFacts* s = ex.step(ex.predict.step);
      if (ex.predict.ask == ShapeAsk::Contiguous) return s->contiguous ? "yes" : "no";
      return shape_str(ex.predict.ask == ShapeAsk::Shape ? s->shape : s->strides);  // "(5,)" as Python
    }
    case ExerciseKind::FindBug: return ex.bug.faulty_step + " " + ex.bug.symptoms.front();
    case ExerciseKind::FixMask: {
      std::string out;
      const int n = ex.mask.size;
      for (int c = 0; c < n * n; ++c) {
        if (c > 0 && c % n == 0) out += '/';
        out += ex.mask.required[c] == 0 ? '0' : '1';
      }
      return out;
    }
    case ExerciseKind::FindHead: return head_name(ex.head.best_layer, ex.head.best_head);
  }
  return "";
}

CheckResult check_answer(const Exercise& ex, std::string_view answer, int attempt, Lang l) {
  CheckResult res;
  std::string why;
  bool ok = false;
  switch (ex.kind) {
    case ExerciseKind::PredictShape: {
      const StepFacts& s = *ex.step(ex.predict.step);
      if (ex.predict.ask == ShapeAsk::Contiguous) {
        const int yn = read_yes_no(answer);
        ok = yn == (s.contiguous ? 1 : 0);
        if (yn < 0) why = pick(l, "Answer yes or no. ", "请回答“是”或“否”。");
        else if (!ok) why = pick(l, "Not quite. ", "还不对。");
      } else {
        why = diagnose_dims(ex, s, answer, l, ok);
      }
      break;
    }
    case ExerciseKind::FindBug: why = check_bug(ex, answer, l, ok); break;
    case ExerciseKind::FixMask: why = check_mask(ex, answer, l, ok); break;
    case ExerciseKind::FindHead: why = check_head(ex, answer, l, ok); break;
  }
  res.correct = ok;
  if (ok) {
    res.feedback = (ex.kind == ExerciseKind::FindHead ? head_summary(ex.head, l) : "") + ex.explanation.in(l);
  } else {
    res.hint = std::clamp(attempt, 1, static_cast<int>(ex.hints.size())) - 1;
    res.feedback = why + pick(l, "Hint: ", "提示：") + ex.hints[static_cast<size_t>(res.hint)].in(l);
  }
  return res;
}

nlohmann::json student_view(const Exercise& ex, Lang l) {
  json out = {{"id", ex.id}, {"kind", exercise_kind_name(ex.kind)}, {"level", ex.level}, {"lang", lang_name(l)},
              {"title", ex.title.in(l)}, {"goal", ex.goal.in(l)}, {"hint_count", ex.hints.size()},
              {"points", exercise_points(ex.level, 0)}};
  if (ex.has_setup) {
    const ModelConfig& c = ex.setup.config;
    const Batch b = setup_batch(ex.setup);
    json s = {{"texts", ex.setup.texts}, {"memory_texts", ex.setup.memory_texts}, {"d_model", c.d_model},
              {"heads", c.heads}, {"d_ff", c.d_ff}, {"layers", c.layers}, {"mask", mask_name(c.mask)},
              {"norm", norm_name(c.norm)}, {"activation", activation_name(c.activation)},
              {"positional", positional_name(c.positional)}, {"eps", c.eps}, {"seed", c.seed},
              {"tokens", b.text.tokens}};
    if (b.cross()) s["memory_tokens"] = b.memory.tokens;
    if (!ex.setup.model.empty()) s["model"] = ex.setup.model;
    out["setup"] = s;
  }
  json task;
  std::string format;
  switch (ex.kind) {
    case ExerciseKind::PredictShape: {
      const StepFacts& s = *ex.step(ex.predict.step);
      json inputs = json::array();
      for (const auto& in : s.inputs)
        if (const StepFacts* f = ex.step(in))
          inputs.push_back(
              {{"id", f->id}, {"shape", f->shape}, {"strides", f->strides}, {"contiguous", f->contiguous}});
      task = {{"step", s.id}, {"step_title", s.title.english()}, {"ask", shape_ask_name(ex.predict.ask)}, {"inputs", inputs}};
      format = ex.predict.ask == ShapeAsk::Contiguous
                   ? pick(l, "yes or no", "是 或 否")
                   : pick(l, "the numbers in order, e.g. (2, 4, 6, 8)", "按顺序写出各个数，例如 (2, 4, 6, 8)");
      break;
    }
    case ExerciseKind::FindBug: {
      task = {{"steps", ex.bug.steps}};
      format = pick(l,
                    "the faulty step's id, then what you see, e.g. "
                    "\"encoder.layers.0.self_attn.weights rows do not sum to 1\"",
                    "先写出错步骤的 id，再写你看到的现象，例如 “encoder.layers.0.self_attn.weights 每行之和不是 1”");
      break;
    }
    case ExerciseKind::FixMask:
      task = {{"size", ex.mask.size}, {"labels", ex.mask.labels}, {"start", ex.mask.start}};
      format = pick(l, "rows of 0/1 (1 = may attend), rows separated by '/', e.g. 1100/1110/1111",
                    "由 0/1 组成的各行（1 = 可以关注），行之间用 '/' 分隔，例如 1100/1110/1111");
      break;
    case ExerciseKind::FindHead: {
      const FindHead& f = ex.head;
      task = {{"pattern", head_trait_name(f.pattern)},
              {"layer", f.layer ? json(*f.layer) : json(nullptr)},
              {"at_least", f.at_least},
              {"layers", ex.setup.config.layers},
              {"heads", ex.setup.config.heads},
              {"step", "encoder.layers." + std::to_string(f.layer.value_or(0)) + ".self_attn.weights"}};
      format = pick(l, "layer.head, both counted from 0, e.g. 1.3 (or click the head's heatmap in the window)",
                    "层.头，两者都从 0 开始数，例如 1.3（在窗口里也可以点击那个头的热力图）");
      break;
    }
  }
  out["task"] = task;
  out["answer_format"] = format;
  return out;
}

int exercise_points(int level, int wrong_attempts) {
  return std::max(level, 10 * level - 2 * std::max(0, wrong_attempts));
}

}  // namespace attnlab
