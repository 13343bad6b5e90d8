// attnlab train: train a small transformer on a built-in task (core/training), one JSON line of
// progress per logging interval on stdout, then a summary; the trained model written as a weights
// file that --weights and the window load. Ctrl+C stops after the current step and still writes.
#include <nlohmann/json.hpp>

#include <algorithm>
#include <atomic>
#include <chrono>
#include <csignal>
#include <cstdio>
#include <filesystem>
#include <iostream>
#include <memory>

#include "cli_common.h"
#include "io/files.h"
#include "io/weights_file.h"
#include "text/errors.h"
#include "training/resume.h"
#include "training/run_record.h"
#include "training/snapshots.h"
#include "training/trainer.h"

namespace attnlab::cli {

namespace {

struct TrainArgs {
  std::string task, text_file, out, optimizer = "adamw", attention = "full", ffn = "mlp", snapshots, snapshot_dtype = "f32",
      resume;
  std::vector<int64_t> snapshot_at;
  int64_t steps = 0, batch = 0, warmup = 0, log_every = 100, eval_count = 256, snapshot_every = 0, vocab_size = 2000,
          max_len = 32;
  double lr = 0, weight_decay = 0, clip = 0, momentum = 0;
  uint64_t seed = 0;
  int threads = 0;
  bool force = false;
  ModelOptions model;
};

std::atomic<bool> g_stop{false};
extern "C" void on_stop_signal(int) { g_stop.store(true); }

// SIGINT and SIGTERM only ask the loop to stop (after the current step); restored when done.
class StopOnSignal {
 public:
  StopOnSignal() {
    struct sigaction sa {};
    sa.sa_handler = on_stop_signal;
    sigemptyset(&sa.sa_mask);
    sigaction(SIGINT, &sa, &old_int_);
    sigaction(SIGTERM, &sa, &old_term_);
  }
  ~StopOnSignal() {
    sigaction(SIGINT, &old_int_, nullptr);
    sigaction(SIGTERM, &old_term_, nullptr);
  }

 private:
  struct sigaction old_int_ {}, old_term_ {};
};

// The options --resume allows; any other is refused by name (the run goes on as it was set up).
constexpr const char* kResumeOptions[] = {"--resume", "--out", "--force", "--steps", "--text-file", "--log-every",
                                          "--snapshot-every", "--snapshot-at", "--snapshot-dtype", "--threads"};

bool out_exists(const std::string& path) { return std::filesystem::exists(std::filesystem::symlink_status(path)); }

// --resume DIR: the run's resume point, checked against the options before anything is trained.
ResumePoint plan_resume(const CLI::App& sub, const TrainArgs& a) {
  for (const CLI::Option* o : sub.get_options()) {
    if (o->count() == 0 || o->get_name().empty() || o->get_name() == "--help") continue;
    const std::string name = o->get_name();
    if (std::find(std::begin(kResumeOptions), std::end(kResumeOptions), name) == std::end(kResumeOptions))
      throw ConfigError(Text(Msg::tr_resume_option_fixed, name));
  }
  ResumePoint r = read_run_resume(a.resume);
  if (sub.count("--steps") && a.steps < r.steps_done) throw ConfigError(Text(Msg::tr_resume_fewer_steps, a.steps, r.steps_done));
  if (r.setup.task == TrainTask::Text && a.text_file.empty()) throw ConfigError(Text(Msg::tr_text_needs_file));
  if (r.setup.task != TrainTask::Text && !a.text_file.empty()) throw ConfigError(Text(Msg::tr_text_file_only_for_text));
  if (!a.force && out_exists(a.out)) throw ConfigError(Text(Msg::tr_out_exists, printable_name(a.out)));
  return r;
}

TrainSetup plan(const CLI::App& sub, const TrainArgs& a) {
  if (a.task.empty()) throw ConfigError(Text(Msg::tr_task_needed));
  TrainSetup s = default_setup(parse_train_task(a.task));
  auto given = [&](const char* opt) { return sub.count(opt) > 0; };
  ModelConfig& m = s.model;
  if (given("--d-model")) m.d_model = a.model.d_model;
  if (given("--heads")) m.heads = a.model.heads;
  if (given("--d-ff")) m.d_ff = a.model.d_ff;
  else if (given("--d-model")) m.d_ff = 4 * m.d_model;
  if (given("--layers")) m.layers = a.model.layers;
  if (given("--mask")) m.mask = parse_mask(a.model.mask);
  if (given("--norm")) m.norm = parse_norm(a.model.norm);
  if (given("--activation")) m.activation = parse_activation(a.model.activation);
  if (given("--positional")) m.positional = parse_positional(a.model.positional);
  if (given("--max-positions")) m.max_positions = a.model.max_positions;
  if (given("--final-norm")) m.final_norm = a.model.final_norm;
  if (given("--eps")) m.eps = a.model.eps;
  if (given("--ffn")) {
    if (a.ffn != "none" && a.ffn != "mlp") throw ConfigError(Text(Msg::io_name_colon, "--ffn") + Text(Msg::not_one_of, a.ffn, "mlp, none"));
    m.ffn = a.ffn == "mlp";
  }
  if (a.attention == "tiled") m.overview_cap = kOverviewCap;
  s.seed = a.seed;
  if (given("--steps")) s.steps = a.steps;
  if (given("--batch")) s.batch = a.batch;
  s.eval_count = a.eval_count;
  s.opt.kind = parse_optimizer(a.optimizer);
  if (given("--lr")) s.opt.lr = a.lr;
  if (given("--warmup")) s.opt.warmup = a.warmup;
  if (given("--weight-decay")) s.opt.weight_decay = a.weight_decay;
  if (given("--clip")) s.opt.clip = a.clip;
  if (given("--momentum")) s.opt.momentum = a.momentum;
  if (!(s.opt.lr > 0) || !(s.opt.weight_decay >= 0) || !(s.opt.clip >= 0) || !(s.opt.momentum >= 0))
    throw ConfigError(Text(Msg::tr_bad_optimizer_number));
  m.seed = s.seed;
  m.validate();
  if (s.task == TrainTask::Text) {
    if (a.text_file.empty()) throw ConfigError(Text(Msg::tr_text_needs_file));
  } else if (!a.text_file.empty()) {
    throw ConfigError(Text(Msg::tr_text_file_only_for_text));
  }
  if (!a.force && out_exists(a.out)) throw ConfigError(Text(Msg::tr_out_exists, printable_name(a.out)));
  if (!a.snapshots.empty() && out_exists(a.snapshots))
    throw ConfigError(Text(Msg::tr_snapshots_exists, printable_name(a.snapshots)));
  return s;
}

// Writes the weights file beside `out` and moves it into place (replacing only with --force).
void write_model(const std::string& out, const ModelConfig& cfg, const Weights& w, bool force) {
  write_file_atomically(out, serialize_weights(cfg, w), force, Msg::tr_cannot_write);
}

// The metrics the file carries: the task, the steps, the last evaluation.
std::string metrics_json(const TrainSetup& s, const Evaluation& e, int64_t phase_change) {
  nlohmann::json j{{"training_steps", e.step},
                   {"held_out_sequences", s.eval_count},
                   {"accuracy", e.accuracy},
                   {"sequence_accuracy", e.sequence_accuracy},
                   {"held_out_loss", e.loss}};
  if (!e.heads.empty()) j["best_previous_token_score"] = e.best_previous();
  if (e.has_induction()) j["best_induction_score"] = e.best_induction();
  if (phase_change >= 0) j["phase_change_step"] = phase_change;
  return j.dump();
}

std::shared_ptr<const TextCorpus> read_corpus(const std::string& file, int64_t vocab_size, int64_t max_len) {
  const std::string text = read_regular_file(file, kMaxTrainTextBytes, Msg::io_text_file_option);
  return std::make_shared<TextCorpus>(build_text_corpus(text, printable_name(file), vocab_size, max_len));
}

// The record's folder: its run.json and resume point, and a resume point left by an earlier
// stretch removed once run.json no longer names it.
void write_record(const std::string& dir, RunRecord& rec, const Trainer& t, const std::string& old_resume) {
  rec.steps_done = t.steps_done();
  rec.steps = t.setup().steps;
  rec.resume = resume_file_name(rec.steps_done);
  const std::filesystem::path d(dir);
  write_file_atomically(d / rec.resume, serialize_resume(t.resume_point()), /*replace=*/true, Msg::tr_cannot_write);
  write_file_atomically(d / "run.json", run_record_json(rec, t.setup()), /*replace=*/true, Msg::tr_cannot_write);
  if (!old_resume.empty() && old_resume != rec.resume) {
    std::error_code ec;
    std::filesystem::remove(d / old_resume, ec);  // a file this run wrote; left behind only if it cannot go
  }
}

// Trains t to its last step (or Ctrl+C), one progress line per --log-every steps, snapshots into
// `snaps`, the curves into rec; then writes the record (when there is a folder) and the model.
void train_and_write(Trainer& t, const TrainArgs& a, SnapshotStore* snaps, RunRecord& rec, const std::string& dir) {
  auto snapshot_due = [&](int64_t step) {
    if (!a.snapshot_at.empty()) return std::find(a.snapshot_at.begin(), a.snapshot_at.end(), step) != a.snapshot_at.end();
    return step % (a.snapshot_every > 0 ? a.snapshot_every : a.log_every) == 0;
  };
  const TrainSetup& s = t.setup();
  const std::string old_resume = rec.resume;
  const StopOnSignal stop_on_signal;
  g_stop.store(false);
  const auto t0 = std::chrono::steady_clock::now();
  auto seconds = [&] { return std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count(); };
  Evaluation e = t.evaluate();
  if (rec.curves.empty()) rec.curves.push_back(CurvePoint{0, 0, 0, 0, e});
  while (!t.done() && !g_stop.load()) {
    const StepStats last = t.step();
    if (last.step % a.log_every == 0 || t.done() || g_stop.load()) {
      e = t.evaluate();
      if (rec.phase_change < 0 && e.past_phase_change()) rec.phase_change = e.step;
      rec.curves.push_back(CurvePoint{last.step, last.loss, last.lr, last.grad_norm, e});
      std::cout << curve_point_json(rec.curves.back(), seconds()) << std::endl;
    }
    if (snaps && (snapshot_due(last.step) || t.done() || g_stop.load())) {
      snaps->add(last.step, t.weights());
      if (rec.snapshots.empty() || rec.snapshots.back().first < last.step)
        rec.snapshots.emplace_back(last.step, SnapshotStore::file_name(last.step));
    }
  }
  if (snaps) write_record(dir, rec, t, old_resume);
  Weights w = t.copy();
  auto vocab = std::make_shared<TrainedVocab>(*w.vocab());
  vocab->info["metrics"] = metrics_json(s, e, rec.phase_change);
  w.set_vocab(vocab);
  write_model(a.out, t.config(), w, a.force);
  nlohmann::json summary{{"done", !g_stop.load()},
                         {"task", std::string(train_task_name(s.task))},
                         {"steps", t.steps_done()},
                         {"seconds", seconds()},
                         {"accuracy", e.accuracy},
                         {"sequence_accuracy", e.sequence_accuracy},
                         {"held_out_loss", e.loss},
                         {"out", a.out}};
  if (!e.heads.empty()) summary["best_previous"] = e.best_previous();
  if (e.has_induction()) summary["best_induction"] = e.best_induction();
  summary["phase_change_step"] = rec.phase_change >= 0 ? nlohmann::json(rec.phase_change) : nlohmann::json(nullptr);
  std::cout << summary.dump() << std::endl;
}

void run_train(const CLI::App& sub, const TrainArgs& a) {
  TrainSetup s = plan(sub, a);
  set_threads(a.threads);
  if (s.task == TrainTask::Text) s.corpus = read_corpus(a.text_file, a.vocab_size, a.max_len);
  Trainer t(s);
  std::unique_ptr<SnapshotStore> snaps;
  RunRecord rec = run_record_of(s);
  if (!a.snapshots.empty()) {
    std::error_code ec;
    if (!std::filesystem::create_directory(a.snapshots, ec) || ec)
      throw DataError(Text(Msg::tr_cannot_write, printable_name(a.snapshots)));
    snaps = std::make_unique<SnapshotStore>(0, a.snapshots, weights_file_metadata(t.config(), t.weights()),
                                            a.snapshot_dtype == "f16");
    snaps->add(0, t.weights());
    rec.snapshots.emplace_back(0, SnapshotStore::file_name(0));
  }
  train_and_write(t, a, snaps.get(), rec, a.snapshots);
}

// --resume DIR: the recorded run goes on from its resume point, its record growing in DIR.
void run_resume(const CLI::App& sub, const TrainArgs& a) {
  const ResumePoint r = plan_resume(sub, a);
  set_threads(a.threads);
  std::shared_ptr<const TextCorpus> corpus;
  if (r.setup.task == TrainTask::Text) corpus = read_corpus(a.text_file, r.text_vocab_size, r.text_max_len);
  Trainer t(r, corpus, sub.count("--steps") ? a.steps : -1);
  RunRecord rec = read_run_record(a.resume);
  SnapshotStore snaps(0, a.resume, weights_file_metadata(t.config(), t.weights()), a.snapshot_dtype == "f16");
  train_and_write(t, a, &snaps, rec, a.resume);
}

}  // namespace

void add_train_command(CLI::App& app, Chosen& chosen) {
  auto a = std::make_shared<TrainArgs>();
  CLI::App* sub = app.add_subcommand("train", "train a small transformer on a built-in task; prints JSON lines");
  sub->add_option("--task", a->task, "induction, copy, reverse, sort, brackets, previous-token or text");
  sub->add_option("--resume", a->resume,
                  "go on with a run recorded with --snapshots DIR from its last step (to --steps, default its own), "
                  "its record growing in DIR");
  sub->add_option("--text-file", a->text_file, "--task text: the UTF-8 text to learn from, one sentence per line");
  sub->add_option("--out", a->out, "the trained model's weights file (.safetensors)")->required();
  sub->add_option("--steps", a->steps, "training steps (default: per task)")->transform(decimal_in(0, 10000000));
  sub->add_option("--seed", a->seed, "batches, held-out set and initial weights (default 0)")->transform(decimal_u64());
  sub->add_option("--batch", a->batch, "sequences per step (default: per task)")->transform(decimal_in(1, 4096));
  sub->add_option("--lr", a->lr, "peak learning rate (default: per task)");
  sub->add_option("--optimizer", a->optimizer, "adamw (default) or sgd (with momentum)");
  sub->add_option("--warmup", a->warmup, "steps of linear warm-up before the cosine decay (default: per task)")
      ->transform(decimal_in(0, 10000000));
  sub->add_option("--weight-decay", a->weight_decay, "AdamW's decoupled decay, SGD's L2 term (default 0.01)");
  sub->add_option("--clip", a->clip, "clip the gradients' global norm to this; 0 = no clipping (default 1)");
  sub->add_option("--momentum", a->momentum, "SGD's momentum (default 0.9)");
  sub->add_option("--log-every", a->log_every, "steps between progress lines (default 100)")->transform(decimal_in(1, 10000000));
  sub->add_option("--eval-count", a->eval_count, "held-out sequences per evaluation (default 256)")
      ->transform(decimal_in(1, 65536));
  sub->add_option("--vocab-size", a->vocab_size, "--task text: vocabulary entries (default 2000)")->transform(decimal_in(3, 100000));
  sub->add_option("--max-len", a->max_len, "--task text: tokens per line at most (default 32)")->transform(decimal_in(2, 4096));
  sub->add_option("--attention", a->attention, "full (default) or tiled (no (S, S) tensor; no head scores)")
      ->check(CLI::IsMember({"full", "tiled"}));
  sub->add_option("--threads", a->threads, "threads (default: all cores)")->transform(decimal_in(1, kMaxThreads));
  sub->add_flag("--force", a->force, "replace --out if it exists");
  sub->add_option("--snapshots", a->snapshots,
                  "a new folder for the run's record: its weights every --snapshot-every steps (each a weights file) and run.json");
  sub->add_option("--snapshot-every", a->snapshot_every, "steps between snapshots (default: --log-every)")
      ->transform(decimal_in(1, 10000000));
  sub->add_option("--snapshot-at", a->snapshot_at, "snapshots at these steps instead, comma-separated (e.g. 0,50,100,200)")
      ->delimiter(',')
      ->transform(decimal_in(0, 10000000));
  sub->add_option("--snapshot-dtype", a->snapshot_dtype, "f32 (default) or f16 (half the size)")
      ->check(CLI::IsMember({"f32", "f16"}));
  sub->add_option("--d-model", a->model.d_model, "model width D (default: per task)")->transform(decimal_in(1, 4096));
  sub->add_option("--heads", a->model.heads, "attention heads H (default: per task)")->transform(decimal_in(1, 4096));
  sub->add_option("--d-ff", a->model.d_ff, "feed-forward width F (default: per task, or 4·D with --d-model)")
      ->transform(decimal_in(1, 16384));
  sub->add_option("--layers", a->model.layers, "layers (default: per task)")->transform(decimal_in(1, 16));
  sub->add_option("--mask", a->model.mask, "causal (default), padding+causal, padding or none");
  sub->add_option("--norm", a->model.norm, "pre (default) or post");
  sub->add_option("--activation", a->model.activation, "relu (default), gelu or gelu_tanh");
  sub->add_option("--positional", a->model.positional, "sinusoidal (default), none or learned");
  sub->add_option("--max-positions", a->model.max_positions, "rows of the learned position table (default 1024)")
      ->transform(decimal_in(1, Limits::kMaxPositions));
  sub->add_option("--eps", a->model.eps, "LayerNorm epsilon (default 1e-5)");
  sub->add_flag("--final-norm", a->model.final_norm, "a LayerNorm after the last layer (default: none)");
  sub->add_option("--ffn", a->ffn, "mlp (the feed-forward sub-layer) or none (attention-only layers) (default: per task)");
  sub->callback([sub, a, &chosen] {
    chosen.check = [sub, a] { a->resume.empty() ? void(plan(*sub, *a)) : void(plan_resume(*sub, *a)); };
    chosen.run = [sub, a] { a->resume.empty() ? run_train(*sub, *a) : run_resume(*sub, *a); };
  });
}

}  // namespace attnlab::cli
