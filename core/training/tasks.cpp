#include "training/tasks.h"

#include <algorithm>
#include <cstdio>
#include <map>
#include <unordered_map>

#include "text/errors.h"
#include "text/tokenizer.h"

namespace attnlab {

namespace {

constexpr struct {
  TrainTask task;
  const char* name;
} kTaskNames[] = {{TrainTask::Induction, "induction"}, {TrainTask::Copy, "copy"},
                  {TrainTask::Reverse, "reverse"},     {TrainTask::Sort, "sort"},
                  {TrainTask::Brackets, "brackets"},   {TrainTask::PreviousToken, "previous-token"},
                  {TrainTask::Text, "text"}};

// Draws of example k: the stream's numbers 64·k … 64·k + 63 (docs/cli.md "attnlab train").
constexpr uint64_t kDrawsPerExample = 64;

struct Draws {
  const Stream& s;
  uint64_t k;
  // lo + u64(64·k + j) mod (hi − lo + 1): a whole number in lo … hi.
  int pick(uint64_t j, int lo, int hi) const {
    return lo + static_cast<int>(s.u64(kDrawsPerExample * k + j) % static_cast<uint64_t>(hi - lo + 1));
  }
};

constexpr int kFirstId = 2;  // ids 0 and 1 are [PAD] and [UNK]

std::vector<std::string> letters_vocab() {
  std::vector<std::string> v{kPadToken, kUnkToken};
  for (char c = 'a'; c <= 'z'; ++c) v.emplace_back(1, c);
  return v;
}

std::vector<std::string> digits_vocab() {
  std::vector<std::string> v{kPadToken, kUnkToken};
  for (char c = '0'; c <= '9'; ++c) v.emplace_back(1, c);
  v.emplace_back(">");
  return v;
}
constexpr int kArrow = kFirstId + 10;  // ">" in digits_vocab()

const std::vector<std::string> kBracketsVocab{kPadToken, kUnkToken, "(", ")", "ok", "open", "bad"};
enum BracketId { kOpen = 2, kClose = 3, kOk = 4, kOpenLabel = 5, kBad = 6 };

// Next-token answers at positions [from, to): target[i] = ids[i + 1].
void answer_next(Example& e, size_t from, size_t to) {
  e.target.assign(e.ids.size(), -1);
  for (size_t i = from; i < to && i + 1 < e.ids.size(); ++i) e.target[i] = e.ids[i + 1];
}

// 0–5 random letters, a run of 6–12 random letters, the run again; every next letter counted.
Example induction(const Draws& d) {
  const int pre = d.pick(0, 0, 5), run = d.pick(1, 6, 12);
  Example e;
  for (int i = 0; i < pre + run; ++i) e.ids.push_back(kFirstId + d.pick(2 + static_cast<uint64_t>(i), 0, 25));
  for (int i = 0; i < run; ++i) e.ids.push_back(e.ids[static_cast<size_t>(pre + i)]);
  e.run_start = pre;
  e.run_len = run;
  answer_next(e, 0, e.ids.size());
  return e;
}

// 1–8 digits, ">", then the answer (the digits, reversed or sorted): the answer's tokens counted.
Example digits_task(const Draws& d, TrainTask task) {
  const int n = d.pick(0, 1, 8);
  std::vector<int> x;
  for (int i = 0; i < n; ++i) x.push_back(kFirstId + d.pick(1 + static_cast<uint64_t>(i), 0, 9));
  std::vector<int> y = x;
  if (task == TrainTask::Reverse) std::reverse(y.begin(), y.end());
  if (task == TrainTask::Sort) std::sort(y.begin(), y.end());
  Example e;
  e.ids = x;
  e.ids.push_back(kArrow);
  e.ids.insert(e.ids.end(), y.begin(), y.end());
  answer_next(e, static_cast<size_t>(n), e.ids.size());
  return e;
}

// 2–16 random letters; position i's answer is the letter at i − 1.
Example previous_token(const Draws& d) {
  const int n = d.pick(0, 2, 16);
  Example e;
  for (int i = 0; i < n; ++i) e.ids.push_back(kFirstId + d.pick(1 + static_cast<uint64_t>(i), 0, 25));
  e.target.assign(e.ids.size(), -1);
  for (size_t i = 1; i < e.ids.size(); ++i) e.target[i] = e.ids[i - 1];
  return e;
}

// 2–20 brackets (an even count), half of the sequences balanced; position i's answer says what
// the prefix up to i is: ok (balanced), open (a bracket still open), bad (a ')' closed nothing).
Example brackets(const Draws& d) {
  const int n = 2 * d.pick(0, 1, 10);
  const bool balanced = d.pick(1, 0, 1) == 1;
  Example e;
  int depth = 0;
  bool bad = false;
  for (int i = 0; i < n; ++i) {
    const bool coin = d.pick(2 + static_cast<uint64_t>(i), 0, 1) == 1;
    bool open = coin;
    if (balanced) open = depth == 0 ? true : (n - i == depth ? false : coin);
    e.ids.push_back(open ? kOpen : kClose);
    depth += open ? 1 : -1;
    bad = bad || depth < 0;
    e.target.push_back(bad ? kBad : depth == 0 ? kOk : kOpenLabel);
  }
  return e;
}

}  // namespace

std::string_view train_task_name(TrainTask t) {
  for (const auto& n : kTaskNames)
    if (n.task == t) return n.name;
  return "?";
}

TrainTask parse_train_task(std::string_view s) {
  for (const auto& n : kTaskNames)
    if (s == n.name) return n.task;
  std::string names;
  for (const auto& n : kTaskNames) names += (names.empty() ? "" : ", ") + std::string(n.name);
  throw ConfigError(Text(Msg::tr_unknown_task, std::string(s), names));
}

const std::vector<TrainTask>& all_train_tasks() {
  static const std::vector<TrainTask> all = [] {
    std::vector<TrainTask> v;
    for (const auto& n : kTaskNames) v.push_back(n.task);
    return v;
  }();
  return all;
}

int64_t ExampleBatch::seq() const {
  size_t s = 1;
  for (const auto& r : rows) s = std::max(s, r.ids.size());
  return static_cast<int64_t>(s);
}

Tensor ExampleBatch::ids() const {
  const int64_t b = static_cast<int64_t>(rows.size()), s = seq();
  Tensor t({b, s}, 0.0f);
  for (int64_t r = 0; r < b; ++r)
    for (size_t i = 0; i < rows[static_cast<size_t>(r)].ids.size(); ++i)
      t.data()[r * s + static_cast<int64_t>(i)] = static_cast<float>(rows[static_cast<size_t>(r)].ids[i]);
  return t;
}

Tensor ExampleBatch::targets() const {
  const int64_t b = static_cast<int64_t>(rows.size()), s = seq();
  Tensor t({b, s}, -1.0f);
  for (int64_t r = 0; r < b; ++r)
    for (size_t i = 0; i < rows[static_cast<size_t>(r)].target.size(); ++i)
      t.data()[r * s + static_cast<int64_t>(i)] = static_cast<float>(rows[static_cast<size_t>(r)].target[i]);
  return t;
}

TextCorpus build_text_corpus(const std::string& text, const std::string& origin, int64_t vocab_size, int64_t max_len) {
  std::vector<std::vector<std::string>> lines;
  std::unordered_map<std::string, std::pair<int64_t, int64_t>> seen;  // token → (count, first seen)
  size_t start = 0;
  int64_t order = 0;
  while (start < text.size()) {
    const size_t end = std::min(text.find('\n', start), text.size());
    std::vector<std::string> toks;
    try {
      toks = tokenize(text.substr(start, end - start));
    } catch (const UserError&) {
      throw DataError(Text(Msg::tr_text_not_utf8, origin, static_cast<int64_t>(lines.size()) + 1));
    }
    if (static_cast<int64_t>(toks.size()) > max_len) toks.resize(static_cast<size_t>(max_len));
    if (toks.size() >= 2) {
      for (const auto& t : toks) {
        auto [it, fresh] = seen.try_emplace(t, 0, order);
        order += fresh;
        ++it->second.first;
      }
      lines.push_back(std::move(toks));
    }
    start = end + 1;
  }
  if (lines.size() < 10) throw DataError(Text(Msg::tr_text_too_short, origin, static_cast<int64_t>(lines.size())));
  std::vector<std::pair<std::string, std::pair<int64_t, int64_t>>> ranked(seen.begin(), seen.end());
  std::sort(ranked.begin(), ranked.end(), [](const auto& a, const auto& b) {
    return a.second.first != b.second.first ? a.second.first > b.second.first : a.second.second < b.second.second;
  });
  TextCorpus c;
  c.vocab = {kPadToken, kUnkToken};
  std::unordered_map<std::string, int> index;
  for (const auto& [tok, cf] : ranked) {
    if (static_cast<int64_t>(c.vocab.size()) >= vocab_size || cf.first < 2) break;
    if (tok == kPadToken || tok == kUnkToken) continue;
    index[tok] = static_cast<int>(c.vocab.size());
    c.vocab.push_back(tok);
  }
  for (size_t i = 0; i < lines.size(); ++i) {
    std::vector<int> ids;
    for (const auto& t : lines[i]) {
      const auto it = index.find(t);
      ids.push_back(it == index.end() ? kUnkId : it->second);
    }
    (i % 10 == 9 ? c.held_out : c.train).push_back(std::move(ids));
  }
  c.vocab_size = vocab_size, c.max_len = max_len;
  return c;
}

std::string TextCorpus::fingerprint() const {
  std::string bytes;
  for (const auto& w : vocab) bytes += w + '\n';
  for (const auto* part : {&train, &held_out}) {
    bytes += '\x1e';
    for (const auto& line : *part) {
      for (int id : line) bytes += std::to_string(id) + ' ';
      bytes += '\n';
    }
  }
  char hex[17];
  std::snprintf(hex, sizeof hex, "%016llx", static_cast<unsigned long long>(fnv1a64(bytes)));
  return hex;
}

TaskSource::TaskSource(TrainTask task, uint64_t seed, std::shared_ptr<const TextCorpus> corpus)
    : task_(task),
      corpus_(std::move(corpus)),
      train_("train:" + std::string(train_task_name(task)), seed),
      held_("heldout:" + std::string(train_task_name(task)), seed) {
  switch (task) {
    case TrainTask::Induction:
    case TrainTask::PreviousToken: vocab_ = letters_vocab(); break;
    case TrainTask::Copy:
    case TrainTask::Reverse:
    case TrainTask::Sort: vocab_ = digits_vocab(); break;
    case TrainTask::Brackets: vocab_ = kBracketsVocab; break;
    case TrainTask::Text:
      if (!corpus_) throw ConfigError(Text(Msg::tr_text_needs_file));
      vocab_ = corpus_->vocab;
      break;
  }
}

Task TaskSource::model_task() const {
  return task_ == TrainTask::PreviousToken || task_ == TrainTask::Brackets ? Task::PerPosition : Task::NextToken;
}

int64_t TaskSource::max_len() const {
  switch (task_) {
    case TrainTask::Induction: return 5 + 2 * 12;
    case TrainTask::Copy:
    case TrainTask::Reverse:
    case TrainTask::Sort: return 2 * 8 + 1;
    case TrainTask::PreviousToken: return 16;
    case TrainTask::Brackets: return 20;
    case TrainTask::Text: {
      size_t m = 2;
      for (const auto& l : corpus_->train) m = std::max(m, l.size());
      for (const auto& l : corpus_->held_out) m = std::max(m, l.size());
      return static_cast<int64_t>(m);
    }
  }
  return 0;
}

Example TaskSource::draw(const Stream& s, uint64_t k, bool held_out) const {
  const Draws d{s, k};
  switch (task_) {
    case TrainTask::Induction: return induction(d);
    case TrainTask::Copy:
    case TrainTask::Reverse:
    case TrainTask::Sort: return digits_task(d, task_);
    case TrainTask::PreviousToken: return previous_token(d);
    case TrainTask::Brackets: return brackets(d);
    case TrainTask::Text: {
      // Training: a line drawn at random; held out: the held-out lines in order, round and round.
      const auto& lines = held_out && !corpus_->held_out.empty() ? corpus_->held_out : corpus_->train;
      const size_t i = held_out ? static_cast<size_t>(k % lines.size())
                                : static_cast<size_t>(d.pick(0, 0, static_cast<int>(lines.size()) - 1));
      Example e;
      e.ids = lines[i];
      answer_next(e, 0, e.ids.size());
      return e;
    }
  }
  return {};
}

Example TaskSource::example(uint64_t k, bool held_out) const { return draw(held_out ? held_ : train_, k, held_out); }

ExampleBatch TaskSource::batch(int64_t step, int64_t b) const {
  ExampleBatch out;
  for (int64_t i = 0; i < b; ++i) out.rows.push_back(example(static_cast<uint64_t>(step * b + i), false));
  return out;
}

ExampleBatch TaskSource::held_out(int64_t n) const {
  ExampleBatch out;
  for (int64_t i = 0; i < n; ++i) out.rows.push_back(example(static_cast<uint64_t>(i), true));
  return out;
}

}  // namespace attnlab
