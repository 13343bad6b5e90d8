// The training lab's engine (core/training): each task's sequences against its rules, the text
// corpus, the optimisers against their definitions worked by hand, the head scores against their
// naive twin and hand-made patterns, the trainer's determinism and its weights file.
#include <QTemporaryDir>
#include <QtTest>

#include <algorithm>
#include <cmath>
#include <filesystem>
#include <fstream>
#include <set>

#include "forward/model.h"
#include "io/weights_file.h"
#include "random_tensor.h"
#include "text/errors.h"
#include "io/files.h"
#include "training/run_folder.h"
#include "training/run_record.h"
#include "training/snapshots.h"
#include "training/trainer.h"

using namespace attnlab;

namespace {

std::string word(const TaskSource& s, int id) { return s.vocab()[static_cast<size_t>(id)]; }

// The depth rule of the brackets task, recomputed: ok / open / bad after each prefix.
std::vector<std::string> bracket_labels(const std::vector<std::string>& brackets) {
  std::vector<std::string> out;
  int depth = 0;
  bool bad = false;
  for (const auto& b : brackets) {
    depth += b == "(" ? 1 : -1;
    bad = bad || depth < 0;
    out.push_back(bad ? "bad" : depth == 0 ? "ok" : "open");
  }
  return out;
}

}  // namespace

class TestTraining : public QObject {
  Q_OBJECT
 private slots:
  void task_names_round_trip() {
    for (TrainTask t : all_train_tasks()) QCOMPARE(parse_train_task(train_task_name(t)), t);
    QVERIFY_THROWS_EXCEPTION(ConfigError, parse_train_task("inductoin"));
    try {
      parse_train_task("x");
    } catch (const ConfigError& e) {
      QVERIFY(std::string(e.what()).find("previous-token") != std::string::npos);  // names the choices
    }
  }

  void induction_follows_its_rules() {
    const TaskSource src(TrainTask::Induction, 4);
    QCOMPARE(src.vocab().size(), size_t(28));
    QCOMPARE(src.model_task(), Task::NextToken);
    std::set<int> prefixes, runs;
    for (uint64_t k = 0; k < 400; ++k) {
      const Example e = src.example(k, false);
      prefixes.insert(e.run_start);
      runs.insert(e.run_len);
      QVERIFY(e.run_start >= 0 && e.run_start <= 5);
      QVERIFY(e.run_len >= 6 && e.run_len <= 12);
      QCOMPARE(e.ids.size(), size_t(e.run_start + 2 * e.run_len));
      QVERIFY(static_cast<int64_t>(e.ids.size()) <= src.max_len());
      for (int t = 0; t < e.run_len; ++t) QCOMPARE(e.ids[size_t(e.run_start + e.run_len + t)], e.ids[size_t(e.run_start + t)]);
      for (size_t i = 0; i < e.ids.size(); ++i) {
        QVERIFY(e.ids[i] >= 2 && e.ids[i] < 28);
        QCOMPARE(e.target[i], i + 1 < e.ids.size() ? e.ids[i + 1] : -1);
        // Scored: the second copy's positions whose next letter is also in the second copy.
        const bool second = int(i) >= e.run_start + e.run_len && int(i) + 1 < int(e.ids.size());
        QCOMPARE(e.scored(i), second);
      }
    }
    QCOMPARE(prefixes.size(), size_t(6));  // every prefix length and run length drawn
    QCOMPARE(runs.size(), size_t(7));
    // The same k is the same sequence; the held-out stream is another one.
    QCOMPARE(src.example(7, false).ids, src.example(7, false).ids);
    QVERIFY(src.example(7, false).ids != src.example(7, true).ids);
    QVERIFY(TaskSource(TrainTask::Induction, 5).example(7, false).ids != src.example(7, false).ids);
  }

  void digit_tasks_answer_after_the_arrow() {
    for (TrainTask t : {TrainTask::Copy, TrainTask::Reverse, TrainTask::Sort}) {
      const TaskSource src(t, 1);
      for (uint64_t k = 0; k < 200; ++k) {
        const Example e = src.example(k, false);
        const auto arrow = std::find(e.ids.begin(), e.ids.end(), 12) - e.ids.begin();
        QCOMPARE(word(src, 12), std::string(">"));
        const std::vector<int> x(e.ids.begin(), e.ids.begin() + arrow), y(e.ids.begin() + arrow + 1, e.ids.end());
        QVERIFY(!x.empty() && x.size() <= 8);
        std::vector<int> want = x;
        if (t == TrainTask::Reverse) std::reverse(want.begin(), want.end());
        if (t == TrainTask::Sort) std::sort(want.begin(), want.end());
        QCOMPARE(y, want);
        for (size_t i = 0; i < e.ids.size(); ++i)
          QCOMPARE(e.target[i], int64_t(i) >= arrow && i + 1 < e.ids.size() ? e.ids[i + 1] : -1);
      }
    }
  }

  void previous_token_and_brackets_label_every_position() {
    const TaskSource prev(TrainTask::PreviousToken, 2);
    QCOMPARE(prev.model_task(), Task::PerPosition);
    for (uint64_t k = 0; k < 100; ++k) {
      const Example e = prev.example(k, false);
      QCOMPARE(e.target[0], -1);
      for (size_t i = 1; i < e.ids.size(); ++i) QCOMPARE(e.target[i], e.ids[i - 1]);
    }
    const TaskSource br(TrainTask::Brackets, 2);
    int balanced = 0;
    for (uint64_t k = 0; k < 400; ++k) {
      const Example e = br.example(k, false);
      QVERIFY(e.ids.size() % 2 == 0 && e.ids.size() >= 2 && e.ids.size() <= 20);
      std::vector<std::string> b, labels;
      for (size_t i = 0; i < e.ids.size(); ++i) b.push_back(word(br, e.ids[i])), labels.push_back(word(br, e.target[i]));
      QCOMPARE(labels, bracket_labels(b));
      balanced += labels.back() == "ok";
    }
    QVERIFY2(balanced > 150 && balanced < 300, qPrintable(QString::number(balanced)));  // about half, and more
  }

  void batches_pad_and_stack() {
    const TaskSource src(TrainTask::Copy, 9);
    const ExampleBatch b = src.batch(3, 5);
    QCOMPARE(b.rows.size(), size_t(5));
    QCOMPARE(b.rows[2].ids, src.example(3 * 5 + 2, false).ids);  // step k holds examples k·B …
    const Tensor ids = b.ids(), tg = b.targets();
    QCOMPARE(ids.shape(), (Shape{5, b.seq()}));
    for (int64_t r = 0; r < 5; ++r)
      for (int64_t i = 0; i < b.seq(); ++i) {
        const bool real = i < int64_t(b.rows[size_t(r)].ids.size());
        QCOMPARE(ids.at({r, i}), real ? float(b.rows[size_t(r)].ids[size_t(i)]) : 0.0f);
        if (!real) QCOMPARE(tg.at({r, i}), -1.0f);
      }
  }

  void text_corpus_from_lines() {
    std::string text;
    for (int i = 0; i < 30; ++i) text += "the cat sat on the mat number" + std::string(i % 3 == 0 ? " rare" + std::to_string(i) : "") + "\n";
    text += "x\n\n";  // too short, blank: skipped
    const TextCorpus c = build_text_corpus(text, "t.txt", 6, 5);
    QCOMPARE(c.vocab, (std::vector<std::string>{"[PAD]", "[UNK]", "the", "cat", "sat", "on"}));  // frequency, then first seen
    QCOMPARE(c.train.size() + c.held_out.size(), size_t(30));
    QCOMPARE(c.held_out.size(), size_t(3));  // lines 9, 19, 29
    QCOMPARE(c.train[0], (std::vector<int>{2, 3, 4, 5, 2}));  // cut to 5 tokens
    const TaskSource src(TrainTask::Text, 0, std::make_shared<TextCorpus>(c));
    QCOMPARE(src.max_len(), int64_t(5));
    QCOMPARE(src.example(1, true).ids, c.held_out[1]);
    QVERIFY_THROWS_EXCEPTION(DataError, build_text_corpus("a b\nc d\n", "short.txt", 10, 8));
    QVERIFY_THROWS_EXCEPTION(DataError, build_text_corpus(std::string(20, 'a') + " \xff\xfe b\n", "bad.txt", 10, 8));
    QVERIFY_THROWS_EXCEPTION(ConfigError, TaskSource(TrainTask::Text, 0));
  }

  void schedule_warms_up_then_decays_to_the_floor() {
    OptimizerConfig c;
    c.lr = 0.01, c.warmup = 10, c.floor = 0.1;
    QCOMPARE(lr_at(c, 0, 110), 0.001);
    QCOMPARE(lr_at(c, 9, 110), 0.01);
    QVERIFY(std::abs(lr_at(c, 10, 110) - 0.01) < 1e-15);
    QVERIFY(std::abs(lr_at(c, 60, 110) - 0.01 * (0.1 + 0.9 * 0.5)) < 1e-15);  // half way: cos = 0
    QVERIFY(std::abs(lr_at(c, 110, 110) - 0.001) < 1e-15);
  }

  void clipping_scales_to_the_global_norm() {
    std::vector<Tensor> g{Tensor({2}, 0.0f), Tensor({1}, 0.0f)};
    g[0].data()[0] = 3, g[0].data()[1] = 0, g[1].data()[0] = 4;
    QCOMPARE(clip_gradients(g, 1.0), 5.0);
    QVERIFY(std::abs(g[0].data()[0] - 0.6f) < 1e-6 && std::abs(g[1].data()[0] - 0.8f) < 1e-6);
    QVERIFY(std::abs(clip_gradients(g, 10.0) - 1.0) < 1e-6);  // below the limit: unchanged
    QVERIFY(std::abs(g[1].data()[0] - 0.8f) < 1e-6);
  }

  void adamw_and_sgd_by_hand() {
    // AdamW, two steps of one parameter p = 1 with gradients 0.5 then −0.25 (β 0.9, 0.98).
    OptimizerConfig c;
    c.lr = 0.1, c.weight_decay = 0.1, c.eps = 1e-8;
    Weights w;
    w.set("p", Tensor({1}, 1.0f));
    Optimizer adam(c, {"p"});
    adam.step(w, {Tensor({1}, 0.5f)}, 0.1);
    double p = 1.0 * (1 - 0.01), m = 0.05, v = 0.02 * 0.25;
    p -= 0.1 / 0.1 * m / (std::sqrt(v) / std::sqrt(0.02) + 1e-8);
    QVERIFY(std::abs(w.get("p").data()[0] - p) < 1e-6);
    adam.step(w, {Tensor({1}, -0.25f)}, 0.1);
    p *= 1 - 0.01;
    m = 0.9 * m + 0.1 * -0.25, v = 0.98 * v + 0.02 * 0.0625;
    p -= 0.1 / (1 - 0.81) * m / (std::sqrt(v) / std::sqrt(1 - 0.98 * 0.98) + 1e-8);
    QVERIFY2(std::abs(w.get("p").data()[0] - p) < 1e-6, qPrintable(QString::number(w.get("p").data()[0] - p)));
    QCOMPARE(adam.state().size(), size_t(2));
    // SGD with momentum 0.9, L2 0.1: d = g + 0.1p; buf = d, then 0.9·buf + d; p −= lr·buf.
    c.kind = OptimizerKind::Sgd, c.momentum = 0.9;
    w.set("p", Tensor({1}, 1.0f));
    Optimizer sgd(c, {"p"});
    sgd.step(w, {Tensor({1}, 0.5f)}, 0.1);
    double q = 1.0, buf = 0.5 + 0.1 * q;
    q -= 0.1 * buf;
    QVERIFY(std::abs(w.get("p").data()[0] - q) < 1e-6);
    sgd.step(w, {Tensor({1}, 0.5f)}, 0.1);
    buf = 0.9 * buf + 0.5 + 0.1 * q;
    q -= 0.1 * buf;
    QVERIFY(std::abs(w.get("p").data()[0] - q) < 1e-6);
    QCOMPARE(parse_optimizer("sgd"), OptimizerKind::Sgd);
    QVERIFY_THROWS_EXCEPTION(ConfigError, parse_optimizer("adam"));
  }

  void head_scores_match_naive_and_hand_made_patterns() {
    const TaskSource src(TrainTask::Induction, 8);
    const ExampleBatch b = src.held_out(6);
    const int64_t s = b.seq(), h = 3;
    // Random causal rows, normalised: fast = naive.
    Tensor w = test::random_tensor({6, h, s, s}, "scores");
    for (int64_t i = 0; i < w.numel(); ++i) w.data()[i] = std::abs(w.data()[i]);
    for (int64_t r = 0; r < 6 * h * s; ++r) {
      float* row = w.data() + r * s;
      const int64_t q = r % s;
      float sum = 0;
      for (int64_t j = 0; j < s; ++j) sum += (row[j] = j <= q ? row[j] : 0.0f);
      for (int64_t j = 0; j < s; ++j) row[j] /= sum;
    }
    const auto fast = head_scores(w, b), naive = head_scores_naive(w, b);
    QCOMPARE(fast.size(), size_t(h));
    for (int64_t i = 0; i < h; ++i) {
      QVERIFY(std::abs(fast[size_t(i)].previous - naive[size_t(i)].previous) < 1e-9);
      QVERIFY(std::abs(fast[size_t(i)].self - naive[size_t(i)].self) < 1e-9);
      QVERIFY(std::abs(fast[size_t(i)].entropy - naive[size_t(i)].entropy) < 1e-6);
      QVERIFY(std::abs(*fast[size_t(i)].induction - *naive[size_t(i)].induction) < 1e-9);
    }
    // Head 0 all on i − 1 (row 0 on itself), head 1 the induction pattern, head 2 on itself.
    Tensor p({6, h, s, s}, 0.0f);
    for (int64_t r = 0; r < 6; ++r) {
      const Example& e = b.rows[size_t(r)];
      for (int64_t i = 0; i < s; ++i) {
        p.at({r, 0, i, std::max<int64_t>(0, i - 1)}) = 1;
        p.at({r, 2, i, i}) = 1;
        const bool second = i >= e.run_start + e.run_len && i < e.run_start + 2 * e.run_len;
        p.at({r, 1, i, second ? i - e.run_len + 1 : i}) = 1;
      }
    }
    const auto hand = head_scores(p, b);
    QCOMPARE(hand[0].previous, 1.0);
    QCOMPARE(*hand[1].induction, 1.0);
    QCOMPARE(hand[2].self, 1.0);
    QCOMPARE(hand[2].entropy, 0.0);
    QCOMPARE(*hand[0].induction, 0.0);
    // Sequences without a repeated run have no induction score.
    const ExampleBatch copy = TaskSource(TrainTask::Copy, 0).held_out(1);
    const auto plain = head_scores(Tensor({1, 1, copy.seq(), copy.seq()}, 0.0f), copy);
    QVERIFY(!plain[0].induction);
  }

  void trainer_is_deterministic_and_learns() {
    TrainSetup s = default_setup(TrainTask::PreviousToken);
    s.seed = 5, s.steps = 60, s.batch = 16, s.eval_count = 64;
    s.model.d_model = 32, s.model.heads = 2, s.model.d_ff = 64;
    Trainer a(s), b(s);
    const Evaluation before = a.evaluate();
    double first = 0, last = 0;
    while (!a.done()) {
      const StepStats x = a.step(), y = b.step();
      QCOMPARE(x.loss, y.loss);  // bit for bit
      if (x.step == 1) first = x.loss;
      last = x.loss;
    }
    QCOMPARE(a.steps_done(), int64_t(60));
    QVERIFY2(last < first - 0.5, qPrintable(QStringLiteral("%1 → %2").arg(first).arg(last)));
    const Evaluation after = a.evaluate();
    QVERIFY(after.loss < before.loss);
    QVERIFY(after.accuracy > before.accuracy);
    QCOMPARE(after.heads.size(), size_t(1));
    QCOMPARE(after.heads[0].size(), size_t(2));
    QVERIFY(!after.heads[0][0].induction);  // not an induction task
    for (const auto& name : a.weights().names())
      QCOMPARE(a.weights().get(name).to_vector(), b.weights().get(name).to_vector());
    // copy() is deep: training on does not change it.
    const Weights kept = a.copy();
    const std::vector<float> before_step = kept.get("output_head.weight").to_vector();
    Trainer c(s, kept);
    QCOMPARE(c.weights().get("output_head.weight").to_vector(), before_step);
    c.step();
    QCOMPARE(kept.get("output_head.weight").to_vector(), before_step);
  }

  void snapshots_keep_bounded_memory_or_go_to_disk() {
    TrainSetup s = default_setup(TrainTask::Copy);
    s.steps = 4, s.batch = 4, s.eval_count = 4;
    s.model.d_model = 16, s.model.heads = 2, s.model.d_ff = 16, s.model.layers = 1;
    Trainer t(s);
    const int64_t one = t.weights().bytes();
    SnapshotStore mem(5 * one);  // room for five
    for (int64_t step = 0; step <= 20; ++step) mem.add(step, t.weights());
    QVERIFY(mem.memory_bytes() <= 5 * one);
    const auto kept = mem.steps();
    QCOMPARE(kept.front(), int64_t(0));
    QCOMPARE(kept.back(), int64_t(20));  // first and last always kept, spread between
    QVERIFY(kept.size() >= 3);
    // The snapshot is a copy: training on leaves it as it was.
    const std::vector<float> at0 = t.weights().get("output_head.weight").to_vector();
    SnapshotStore one_store;
    one_store.add(0, t.weights());
    t.step();
    QCOMPARE(one_store.at(0).get("output_head.weight").to_vector(), at0);
    QCOMPARE(one_store.at(7).get("output_head.weight").to_vector(), at0);  // the latest at or before
    QVERIFY(one_store.at(0).vocab() != nullptr);
    // On disk: one weights file per snapshot, read back on demand.
    const QTemporaryDir dir;
    SnapshotStore disk(0, dir.path().toStdString(), {{"format", "attnlab-weights/1"}});
    disk.add(0, one_store.at(0));
    disk.add(1, t.weights());
    QCOMPARE(disk.memory_bytes(), int64_t(0));
    QVERIFY(QFile::exists(dir.filePath(QStringLiteral("step-00000001.safetensors"))));
    QCOMPARE(disk.at(0).get("output_head.weight").to_vector(), at0);
    QCOMPARE(disk.at(5).get("output_head.weight").to_vector(), t.weights().get("output_head.weight").to_vector());
  }

  void run_record_round_trips_and_refuses_what_is_wrong() {
    TrainSetup s = default_setup(TrainTask::Induction);
    s.steps = 3, s.batch = 4, s.eval_count = 8;
    s.model.d_model = 16, s.model.heads = 2;
    Trainer t(s);
    RunRecord rec;
    rec.task = TrainTask::Induction, rec.seed = 9, rec.steps = 3, rec.batch = 4, rec.steps_done = 2, rec.phase_change = 2;
    rec.curves.push_back(CurvePoint{0, 0, 0, 0, t.evaluate()});
    const StepStats st = t.step();
    rec.curves.push_back(CurvePoint{st.step, st.loss, st.lr, st.grad_norm, t.evaluate()});
    rec.snapshots = {{0, SnapshotStore::file_name(0)}, {2, SnapshotStore::file_name(2)}};
    const RunRecord back = parse_run_record(run_record_json(rec, s), "run.json");
    QCOMPARE(back.task, TrainTask::Induction);
    QCOMPARE(back.seed, uint64_t(9));
    QCOMPARE(back.phase_change, int64_t(2));
    QCOMPARE(back.snapshots, rec.snapshots);
    QCOMPARE(back.curves.size(), size_t(2));
    QCOMPARE(back.curves[1].loss, rec.curves[1].loss);
    QCOMPARE(back.curves[1].eval.heads.size(), size_t(2));
    QCOMPARE(*back.curves[1].eval.heads[1][1].induction, *rec.curves[1].eval.heads[1][1].induction);
    QCOMPARE(back.curves[1].eval.best_previous(), rec.curves[1].eval.best_previous());
    // Every refusal names the file and the field.
    const auto refuses = [](const std::string& text, const char* words) {
      try {
        parse_run_record(text, "run.json");
      } catch (const DataError& e) {
        const std::string what = e.what();
        if (what.find("run.json") == std::string::npos || what.find(words) == std::string::npos)
          qWarning("%s", what.c_str());
        return what.find("run.json") != std::string::npos && what.find(words) != std::string::npos;
      }
      return false;
    };
    const std::string good = run_record_json(rec, s);
    auto with = [&](const std::string& from, const std::string& to) {
      std::string x = good;
      const size_t at = x.find(from);
      if (at == std::string::npos) qFatal("no %s", from.c_str());
      return x.replace(at, from.size(), to);
    };
    QVERIFY(refuses("{", "invalid JSON"));
    QVERIFY(refuses("[]", "an object"));
    QVERIFY(refuses(with("attnlab-training-run/1", "attnlab-training-run/9"), "format"));
    QVERIFY(refuses(with("\"induction\"", "\"inductoin\""), "task"));
    QVERIFY(refuses(with("step-00000002.safetensors", "../../etc/passwd"), "snapshots[1].file"));
    QVERIFY(refuses(with("\"seed\": 9", "\"seed\": -9"), "seed"));
    QVERIFY(refuses(with("\"snapshots\": [", "\"snapshots\": 3, \"x\": ["), "snapshots"));
  }

  // A run saved beside a session: the folder read back as the CLI's recorded runs are, an earlier
  // run of that name replaced, anything else refused untouched, no temporary left.
  void run_folder_is_written_whole_and_replaces_only_a_run() {
    TrainSetup s = default_setup(TrainTask::Induction);
    s.steps = 3, s.batch = 4, s.eval_count = 8;
    s.model.d_model = 16, s.model.heads = 2;
    Trainer t(s);
    SnapshotStore mem;
    RunRecord rec = run_record_of(s);
    rec.curves.push_back(CurvePoint{0, 0, 0, 0, t.evaluate()});
    mem.add(0, t.weights());
    for (int i = 0; i < 2; ++i) {
      const StepStats st = t.step();
      rec.curves.push_back(CurvePoint{st.step, st.loss, st.lr, st.grad_norm, t.evaluate()});
      mem.add(st.step, t.weights());
    }
    rec.steps_done = 2;
    const auto meta = weights_file_metadata(t.config(), t.weights());
    const QTemporaryDir parent;
    const std::string dir = parent.filePath(QStringLiteral("lesson.run")).toStdString();
    write_run_folder(dir, rec, s, mem, meta, false);
    QVERIFY(is_run_folder(dir));
    const RunRecord back = read_run_record(dir);
    QCOMPARE(back.curves.size(), size_t(3));
    QCOMPARE(back.snapshots.size(), size_t(3));
    QCOMPARE(back.snapshots.back().first, int64_t(2));
    const LoadedWeights last = load_weights_file(dir + "/" + back.snapshots.back().second, {}, {});
    QCOMPARE(last.weights.get("output_head.weight").to_vector(), t.weights().get("output_head.weight").to_vector());
    QCOMPARE(last.cfg.d_model, int64_t(16));
    // Saved again after one more step: the earlier run is replaced whole.
    const StepStats st = t.step();
    rec.curves.push_back(CurvePoint{st.step, st.loss, st.lr, st.grad_norm, t.evaluate()});
    mem.add(st.step, t.weights());
    write_run_folder(dir, rec, s, mem, meta, false);
    QCOMPARE(read_run_record(dir).snapshots.size(), size_t(4));
    // A user's folder of that name is refused and left as it was.
    const std::string theirs = parent.filePath(QStringLiteral("notes.run")).toStdString();
    std::filesystem::create_directory(theirs);
    std::ofstream(theirs + "/mine.txt") << "mine";
    QVERIFY_THROWS_EXCEPTION(ConfigError, write_run_folder(theirs, rec, s, mem, meta, false));
    QVERIFY(std::filesystem::exists(theirs + "/mine.txt"));
    QVERIFY(!std::filesystem::exists(theirs + "/run.json"));
    for (const auto& e : std::filesystem::directory_iterator(parent.path().toStdString()))
      QVERIFY2(e.path().filename().string()[0] != '.', e.path().c_str());
  }

  void trained_model_file_round_trips() {
    TrainSetup s = default_setup(TrainTask::Induction);
    s.steps = 2, s.batch = 4, s.eval_count = 8;
    s.model.d_model = 16, s.model.heads = 2;
    Trainer t(s);
    t.step();
    const Weights w = t.copy();
    QVERIFY(!w.has("encoder.layers.0.linear1.weight"));  // attention-only
    QVERIFY(!w.has("encoder.layers.0.norm2.weight"));
    const std::string path = QDir::tempPath().toStdString() + "/attnlab_test_trained.safetensors";
    {
      std::ofstream f(path, std::ios::binary);
      const std::string bytes = serialize_weights(t.config(), w);
      f.write(bytes.data(), std::streamsize(bytes.size()));
    }
    const LoadedWeights l = load_weights_file(path, ModelConfig{}, {});
    std::filesystem::remove(path);
    QVERIFY(!l.cfg.ffn);
    QCOMPARE(l.cfg.mask, MaskKind::Causal);
    QCOMPARE(l.cfg.d_model, int64_t(16));
    QCOMPARE(l.weights.vocab()->field("training_task"), std::string("induction"));
    QCOMPARE(l.weights.vocab()->task, Task::NextToken);
    // The loaded model computes what the trainer's does.
    const Batch batch = make_batch({"a b c a b c"}, {}, l.weights.vocab().get());
    Trace t1, t2;
    forward(l.cfg, l.weights, batch, t1);
    forward(t.config(), w, batch, t2);
    QCOMPARE(t1.find("encoder.output_head.logits")->tensor.to_vector(), t2.find("encoder.output_head.logits")->tensor.to_vector());
    QVERIFY(!t1.find("encoder.layers.0.ffn.linear1"));
  }
};

QTEST_GUILESS_MAIN(TestTraining)
#include "test_training.moc"
