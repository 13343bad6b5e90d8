#include "pretrained/generate.h"

#include <algorithm>
#include <cmath>
#include <memory>
#include <numeric>

#include "forward/model.h"
#include "model/trace.h"
#include "pretrained/kv_decode.h"
#include "tensor/rng.h"
#include "text/errors.h"

namespace attnlab::pretrained {

namespace {

// Keeps only the logits of the output head (B, S, V): a run traced for nothing else.
class LogitsRecorder final : public Recorder {
 public:
  bool enabled() const override { return true; }
  void record(StepInfo info, const Tensor& t) override {
    if (info.id == "encoder.output_head.logits") logits = t.contiguous();
  }
  Tensor logits;
};

// softmax(logits / T) in double over the whole vocabulary.
std::vector<double> probabilities(const float* logits, int64_t v, double temperature) {
  std::vector<double> p(static_cast<size_t>(v));
  double top = -INFINITY;
  for (int64_t i = 0; i < v; ++i) top = std::max(top, static_cast<double>(logits[i]) / temperature);
  double sum = 0;
  for (int64_t i = 0; i < v; ++i) sum += p[static_cast<size_t>(i)] = std::exp(static_cast<double>(logits[i]) / temperature - top);
  for (double& x : p) x /= sum;
  return p;
}

}  // namespace

void check_sampling(const Sampling& s) {
  if (s.steps < 0 || s.steps > kMaxGenerateSteps)
    throw ConfigError(Text(Msg::gen_option_out_of_range, "--generate", std::to_string(s.steps), "0 … 1024"));
  if (!(s.temperature >= 0 && s.temperature <= 100))
    throw ConfigError(Text(Msg::gen_option_out_of_range, "--temperature", format_double(s.temperature), "0 … 100"));
  if (s.top_k < 0) throw ConfigError(Text(Msg::gen_option_out_of_range, "--top-k", std::to_string(s.top_k), "0, 1, 2, …"));
  if (!(s.top_p > 0 && s.top_p <= 1))
    throw ConfigError(Text(Msg::gen_option_out_of_range, "--top-p", format_double(s.top_p), "(0, 1]"));
}

namespace {

// The first of the largest logits (temperature 0).
int greedy(const float* logits, int64_t vocab) {
  int best = 0;
  for (int64_t i = 1; i < vocab; ++i)
    if (logits[i] > logits[best]) best = static_cast<int>(i);
  return best;
}

// The draw over p = softmax(logits / T) (T > 0): the top-k and top-p cuts, then u · their sum.
int draw_from(const std::vector<double>& p, const Sampling& s, double u) {
  std::vector<int> order(p.size());
  std::iota(order.begin(), order.end(), 0);
  std::stable_sort(order.begin(), order.end(), [&p](int a, int b) { return p[static_cast<size_t>(a)] > p[static_cast<size_t>(b)]; });
  size_t kept = s.top_k > 0 ? std::min<size_t>(order.size(), static_cast<size_t>(s.top_k)) : order.size();
  if (s.top_p < 1) {
    double run = 0;
    for (size_t i = 0; i < kept; ++i) {
      run += p[static_cast<size_t>(order[i])];
      if (run >= s.top_p) {
        kept = i + 1;
        break;
      }
    }
  }
  double total = 0;
  for (size_t i = 0; i < kept; ++i) total += p[static_cast<size_t>(order[i])];
  double run = 0;
  for (size_t i = 0; i < kept; ++i) {
    run += p[static_cast<size_t>(order[i])];
    if (run >= u * total) return order[i];
  }
  return order[kept - 1];  // u · total a rounding above the sum
}

}  // namespace

int draw_piece(const float* logits, int64_t vocab, const Sampling& s, double u) {
  return s.temperature == 0 ? greedy(logits, vocab) : draw_from(probabilities(logits, vocab, s.temperature), s, u);
}

double piece_probability(const float* logits, int64_t vocab, double temperature, int id) {
  return probabilities(logits, vocab, temperature == 0 ? 1.0 : temperature)[static_cast<size_t>(id)];
}

namespace {

// The logits (V) at the text's last position: the whole text run again.
std::vector<float> full_pass_logits(const PretrainedModel& m, const std::vector<std::string>& text, Backend& be) {
  LogitsRecorder rec;
  forward(m.cfg, m.weights, make_piece_batch({text}, *m.weights.vocab()), rec, be);
  const int64_t v = rec.logits.size(2);
  const float* last = rec.logits.data() + (static_cast<int64_t>(text.size()) - 1) * v;  // (1, S, V): row 0, the last position
  return {last, last + v};
}

}  // namespace

Continuation continue_text(const PretrainedModel& m, const std::vector<std::string>& pieces, int64_t row,
                           const Sampling& s, Backend& be) {
  if (s.steps > 0 && m.weights.vocab()->task != Task::NextToken)
    throw ConfigError(Text(Msg::gen_needs_next_token, architecture_name(m.architecture)));
  const auto length = static_cast<int64_t>(pieces.size());
  if (length == 0) throw ConfigError(verbatim("--text: ") + Text(Msg::sentence_empty_blank_type_least_word_2, row));
  if (length + s.steps > m.cfg.max_positions)
    throw ConfigError(Text(Msg::en_text_longer_than_position_table, length + s.steps, m.cfg.max_positions));
  Continuation out;
  if (s.steps == 0) return out;
  const Stream stream("generate:" + std::to_string(row), s.seed);
  const TrainedVocab& vocab = *m.weights.vocab();
  std::vector<std::string> text = pieces;
  std::unique_ptr<KvDecoder> cache;
  std::vector<float> logits;
  if (s.kv_cache && kv_cacheable(m.cfg)) {
    cache = std::make_unique<KvDecoder>(m.cfg, m.weights, length + s.steps - 1, be);  // the last piece is never fed
    out.cached = true;
    std::vector<int> ids;
    for (const auto& piece : pieces) ids.push_back(vocab.id(piece));
    logits = cache->feed(ids);  // the prompt at once
  }
  for (int64_t step = 0; step < s.steps; ++step) {
    if (!cache) logits = full_pass_logits(m, text, be);
    const auto v = static_cast<int64_t>(logits.size());
    // one softmax per step: the draw's, and the probability recorded beside it
    const std::vector<double> p = probabilities(logits.data(), v, s.temperature == 0 ? 1.0 : s.temperature);
    const int id = s.temperature == 0 ? greedy(logits.data(), v) : draw_from(p, s, stream.uniform(static_cast<uint64_t>(step)));
    out.ids.push_back(id);
    out.probabilities.push_back(p[static_cast<size_t>(id)]);
    text.push_back(vocab.words()[static_cast<size_t>(id)]);
    if (cache && step + 1 < s.steps) logits = cache->feed({id});  // the new piece alone
  }
  return out;
}

}  // namespace attnlab::pretrained
