#include "training/trainer.h"

#include <algorithm>
#include <cmath>

#include <nlohmann/json.hpp>

#include "backward/loss.h"
#include "backward/model_backward.h"
#include "forward/model.h"
#include "tensor/rng.h"
#include "text/errors.h"
#include "training/resume.h"
#include "training/run_record.h"

namespace attnlab {

namespace {

// The batch as the forward pass reads it: each row's tokens by the model's words, [PAD] after.
Batch to_batch(const ExampleBatch& eb, const TrainedVocab& v) {
  Batch b;
  b.vocab = v.vocabulary;
  const int64_t s = eb.seq();
  for (const auto& r : eb.rows) {
    std::vector<std::string> row;
    row.reserve(static_cast<size_t>(s));
    for (int id : r.ids) row.push_back(v.words()[static_cast<size_t>(id)]);
    row.resize(static_cast<size_t>(s), kPadToken);
    b.text.tokens.push_back(std::move(row));
    b.text.lengths.push_back(static_cast<int>(r.ids.size()));
  }
  return b;
}

std::shared_ptr<const TrainedVocab> make_vocab(const TaskSource& src, const ModelConfig& cfg) {
  auto v = std::make_shared<TrainedVocab>();
  for (size_t i = 1; i < src.vocab().size(); ++i) v->vocabulary.id_of(src.vocab()[i]);  // [PAD] is there
  v->task = src.model_task();
  v->mask = cfg.mask;
  v->info["training_task"] = std::string(train_task_name(src.task()));
  // Three held-out sequences as sentences, the window's examples for the model.
  nlohmann::json examples = nlohmann::json::array();
  for (uint64_t k = 0; k < 3; ++k) {
    std::string line;
    for (int id : src.example(k, true).ids) line += (line.empty() ? "" : " ") + src.vocab()[static_cast<size_t>(id)];
    examples.push_back(line);
  }
  v->info["examples"] = examples.dump();
  return v;
}

void fill_uniform(Tensor& t, const std::string& name, uint64_t seed, double a) {
  const Stream s("param:" + name, seed);
  for (int64_t i = 0; i < t.numel(); ++i) t.data()[i] = static_cast<float>(a * (2.0 * s.uniform(static_cast<uint64_t>(i)) - 1.0));
}

double best_of(const std::vector<std::vector<HeadScore>>& layers, size_t from, bool induction) {
  double best = -1;
  for (size_t l = from; l < layers.size(); ++l)
    for (const HeadScore& h : layers[l]) best = std::max(best, induction ? h.induction.value_or(-1) : h.previous);
  return best;
}

}  // namespace

TrainSetup default_setup(TrainTask task) {
  TrainSetup s;
  s.task = task;
  ModelConfig& m = s.model;
  m.d_model = 64;
  m.heads = 4;
  m.d_ff = 256;
  m.layers = 2;
  m.norm = Norm::Pre;
  m.mask = MaskKind::Causal;
  s.opt.lr = 1e-3;
  s.opt.warmup = 100;
  s.batch = 32;
  switch (task) {
    case TrainTask::Induction:
      // Attention-only, two layers, 32-wide heads: a previous-token head ≥ 0.8 and an induction
      // head ≥ 0.7 within 3,000 steps (the measured figures: docs/cli.md "attnlab train").
      m.d_model = 128, m.d_ff = 512, m.ffn = false;
      s.opt.lr = 8e-3, s.steps = 3000;
      break;
    case TrainTask::Copy:
    case TrainTask::Reverse: s.steps = 1000; break;
    case TrainTask::Sort: s.steps = 1500; break;
    case TrainTask::Brackets: s.steps = 1500; break;
    case TrainTask::PreviousToken: s.model.layers = 1, s.steps = 500; break;
    case TrainTask::Text: s.steps = 2000, s.batch = 64; break;
  }
  return s;
}

Weights init_trained_weights(const ModelConfig& cfg, int64_t vocab_size) {
  const Weights layers = init_weights(cfg);
  Weights w;
  const int64_t d = cfg.d_model;
  for (const auto& [name, shape] : expected_parameters(cfg, vocab_size)) {
    if (layers.has(name)) {
      w.set(name, layers.get(name));
      continue;
    }
    Tensor t(shape, 0.0f);
    if (name == "embedding.weight") {
      const Stream s("param:" + name, cfg.seed);
      for (int64_t i = d; i < t.numel(); ++i) t.data()[i] = static_cast<float>(s.normal(static_cast<uint64_t>(i)));
    } else {
      fill_uniform(t, name, cfg.seed, name.ends_with("bias") ? 1.0 / std::sqrt(double(d)) : std::sqrt(3.0 / double(d)));
    }
    w.set(name, std::move(t));
  }
  return w;
}

Weights clone_weights(const Weights& w) {
  Weights out;
  for (const auto& name : w.names()) out.set(name, w.get(name).clone());
  out.set_vocab(w.vocab());
  return out;
}

double Evaluation::best_induction() const { return best_of(heads, 1, true); }
double Evaluation::best_previous() const { return best_of(heads, 0, false); }

Trainer::Trainer(TrainSetup s) : Trainer(s, Weights()) {}

Trainer::Trainer(TrainSetup s, const Weights& start)
    : setup_(std::move(s)), source_(setup_.task, setup_.seed, setup_.corpus), opt_(setup_.opt, {}) {
  setup_.model.seed = setup_.seed;
  setup_.model.validate();
  if (setup_.batch < 1 || setup_.steps < 0 || setup_.eval_count < 1)
    throw ConfigError(Text(Msg::tr_bad_counts));
  if (setup_.model.positional == Positional::Learned && source_.max_len() > setup_.model.max_positions)
    throw ConfigError(Text(Msg::en_text_longer_than_position_table, source_.max_len(), setup_.model.max_positions));
  vocab_ = make_vocab(source_, setup_.model);
  const auto V = static_cast<int64_t>(source_.vocab().size());
  weights_ = start.names().empty() ? init_trained_weights(setup_.model, V) : clone_weights(start);
  weights_.set_vocab(vocab_);
  check_weights(setup_.model, weights_);
  for (const auto& [name, shape] : expected_parameters(setup_.model, V)) names_.push_back(name);
  opt_ = Optimizer(setup_.opt, names_);
}

namespace {

// The setup a resumed run goes on with: the point's, with the corpus and the new total.
TrainSetup resumed_setup(const ResumePoint& r, std::shared_ptr<const TextCorpus> corpus, int64_t steps) {
  TrainSetup s = r.setup;
  if (steps >= 0) {
    if (steps < r.steps_done) throw ConfigError(Text(Msg::tr_resume_fewer_steps, steps, r.steps_done));
    s.steps = steps;
  }
  if (s.task == TrainTask::Text) {
    if (!corpus) throw ConfigError(Text(Msg::tr_text_needs_file));
    if (corpus->fingerprint() != r.text_fingerprint) throw ConfigError(Text(Msg::tr_resume_other_text));
    s.corpus = std::move(corpus);
  }
  return s;
}

}  // namespace

Trainer::Trainer(const ResumePoint& r, std::shared_ptr<const TextCorpus> corpus, int64_t steps)
    : Trainer(resumed_setup(r, std::move(corpus), steps), r.weights) {
  opt_.restore(r.optimizer, r.steps_done, weights_, resume_file_name(r.steps_done));
  steps_done_ = r.steps_done;
}

ResumePoint Trainer::resume_point() const {
  ResumePoint r;
  r.setup = setup_;
  r.setup.corpus.reset();
  r.steps_done = steps_done_;
  r.weights = copy();
  for (const auto& [name, t] : opt_.state()) r.optimizer.emplace_back(name, t.clone());
  if (setup_.corpus) {
    r.text_vocab_size = setup_.corpus->vocab_size, r.text_max_len = setup_.corpus->max_len;
    r.text_fingerprint = setup_.corpus->fingerprint();
  }
  return r;
}

StepStats Trainer::step() {
  const ExampleBatch eb = source_.batch(steps_done_, setup_.batch);
  Trace fwd;
  forward(setup_.model, weights_, to_batch(eb, *vocab_), fwd);
  const BackwardResult r = backward(setup_.model, weights_, fwd, LossSpec{LossKind::PerPosition, eb.targets()});
  std::vector<Tensor> grads;
  grads.reserve(names_.size());
  for (const auto& name : names_) grads.push_back(r.steps.find("grad/" + name)->tensor);
  StepStats st;
  st.loss = r.loss;
  st.lr = lr_at(setup_.opt, steps_done_, setup_.steps);
  st.grad_norm = clip_gradients(grads, setup_.opt.clip);
  opt_.step(weights_, grads, st.lr);
  st.step = ++steps_done_;
  return st;
}

Evaluation Trainer::evaluate() const {
  const ExampleBatch eb = source_.held_out(setup_.eval_count);
  Trace fwd;
  forward(setup_.model, weights_, to_batch(eb, *vocab_), fwd);
  Evaluation e;
  e.step = steps_done_;
  const Tensor logits = fwd.find("encoder.output_head.logits")->tensor.contiguous();  // (B, S, V)
  const int64_t s = logits.size(1), v = logits.size(2);
  std::vector<std::vector<int64_t>> target;
  int64_t right = 0, counted = 0, seq_right = 0;
  for (size_t b = 0; b < eb.rows.size(); ++b) {
    const Example& ex = eb.rows[b];
    std::vector<int64_t> row(static_cast<size_t>(s), -1);
    bool all = true;
    for (size_t i = 0; i < ex.target.size(); ++i) {
      if (ex.target[i] < 0) continue;
      row[i] = ex.target[i];
      if (!ex.scored(i)) continue;
      const float* z = logits.data() + (static_cast<int64_t>(b) * s + static_cast<int64_t>(i)) * v;
      const bool ok = std::max_element(z, z + v) - z == ex.target[i];
      right += ok;
      all = all && ok;
      ++counted;
    }
    seq_right += all;
    target.push_back(std::move(row));
  }
  e.loss = cross_entropy_loss(logits, target).value;
  e.accuracy = counted ? static_cast<double>(right) / static_cast<double>(counted) : 0;
  e.sequence_accuracy = static_cast<double>(seq_right) / static_cast<double>(eb.rows.size());
  if (!setup_.model.traces_overview())
    for (int64_t l = 0; l < setup_.model.layers; ++l)
      e.heads.push_back(head_scores(fwd.find("encoder.layers." + std::to_string(l) + ".self_attn.weights")->tensor, eb));
  return e;
}

Weights Trainer::copy() const { return clone_weights(weights_); }

}  // namespace attnlab
