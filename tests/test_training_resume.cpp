// Resuming a training run (core/training/resume.h): a run stopped at step t, written as a resume
// point, read back and trained on gives an uninterrupted run's weights and losses bit for bit —
// AdamW and SGD, with the schedule past its warm-up, the text task with its corpus checked — and
// every file that cannot be resumed from is refused by name.
#include <QTemporaryDir>
#include <QtTest>

#include <algorithm>
#include <filesystem>

#include "io/files.h"
#include "io/safetensors.h"
#include "io/weights_file.h"
#include "text/errors.h"
#include "training/resume.h"
#include "training/run_folder.h"
#include "training/run_record.h"
#include "training/snapshots.h"
#include "training/trainer.h"

using namespace attnlab;

namespace {

TrainSetup small(TrainTask task, OptimizerKind opt) {
  TrainSetup s = default_setup(task);
  s.seed = 3, s.steps = 24, s.batch = 8, s.eval_count = 16;
  s.model.d_model = 16, s.model.heads = 2, s.model.d_ff = 32;
  s.opt.kind = opt;
  s.opt.warmup = 5;  // the cosine part of the schedule is reached before the stop
  if (opt == OptimizerKind::Sgd) s.opt.lr = 0.05;
  return s;
}

void expect_same_weights(const Weights& a, const Weights& b) {
  auto sorted = [](std::vector<std::string> v) {
    std::sort(v.begin(), v.end());
    return v;
  };
  QCOMPARE(sorted(a.names()), sorted(b.names()));
  for (const auto& name : a.names()) QCOMPARE(a.get(name).to_vector(), b.get(name).to_vector());
}

// Trains `s` straight through, and again stopped at `stop`, written, read back and trained on to
// the end: every step's loss and the final weights are the same bit for bit.
void resume_equals_uninterrupted(const TrainSetup& s, int64_t stop) {
  Trainer straight(s);
  std::vector<double> losses;
  while (!straight.done()) losses.push_back(straight.step().loss);

  Trainer first(s);
  for (int64_t i = 0; i < stop; ++i) QVERIFY(first.step().loss == losses[size_t(i)]);  // exactly
  const std::string bytes = serialize_resume(first.resume_point());
  const ResumePoint back = parse_resume(bytes, "resume.safetensors");
  QCOMPARE(back.steps_done, stop);
  QCOMPARE(back.setup.opt.kind, s.opt.kind);
  QCOMPARE(back.setup.opt.warmup, s.opt.warmup);
  Trainer second(back, s.corpus);
  QCOMPARE(second.steps_done(), stop);
  for (size_t i = size_t(stop); i < losses.size(); ++i) {
    const double loss = second.step().loss;
    QVERIFY2(loss == losses[i], qPrintable(QStringLiteral("step %1: %2 against %3").arg(i).arg(loss, 0, 'g', 17).arg(losses[i], 0, 'g', 17)));
  }
  QVERIFY(second.done());
  expect_same_weights(second.weights(), straight.weights());
}

std::shared_ptr<const TextCorpus> corpus_of(const std::string& words) {
  std::string text;
  for (int i = 0; i < 40; ++i) text += words + (i % 3 ? " again" : " once") + "\n";
  return std::make_shared<TextCorpus>(build_text_corpus(text, "t.txt", 50, 8));
}

// The message of the UserError `f` throws ("" when it throws none).
template <typename F>
std::string refusal(F f) {
  try {
    f();
  } catch (const UserError& e) {
    return e.what();
  }
  return {};
}

}  // namespace

class TestTrainingResume : public QObject {
  Q_OBJECT
 private slots:
  void adamw_resumes_as_if_never_stopped() { resume_equals_uninterrupted(small(TrainTask::Induction, OptimizerKind::AdamW), 9); }
  void sgd_resumes_as_if_never_stopped() { resume_equals_uninterrupted(small(TrainTask::Sort, OptimizerKind::Sgd), 13); }
  void resumes_from_step_zero() { resume_equals_uninterrupted(small(TrainTask::Copy, OptimizerKind::AdamW), 0); }

  void text_task_resumes_with_its_own_text_only() {
    TrainSetup s = small(TrainTask::Text, OptimizerKind::AdamW);
    s.corpus = corpus_of("the cat sat on the mat");
    resume_equals_uninterrupted(s, 7);
    Trainer t(s);
    t.step();
    const ResumePoint p = parse_resume(serialize_resume(t.resume_point()), "r");
    QCOMPARE(p.text_vocab_size, int64_t(50));
    QCOMPARE(p.text_max_len, int64_t(8));
    QCOMPARE(p.text_fingerprint, s.corpus->fingerprint());
    QVERIFY(refusal([&] { Trainer(p, corpus_of("the dog sat on the mat")); }).find("not the one this run trained on") !=
            std::string::npos);
    QVERIFY(refusal([&] { Trainer(p, nullptr); }).find("--text-file") != std::string::npos);
  }

  void more_steps_follow_the_longer_schedule_and_fewer_are_refused() {
    TrainSetup s = small(TrainTask::Induction, OptimizerKind::AdamW);
    Trainer t(s);
    for (int i = 0; i < 10; ++i) t.step();
    const ResumePoint p = t.resume_point();
    Trainer longer(p, nullptr, 40);
    QCOMPARE(longer.setup().steps, int64_t(40));
    TrainSetup s40 = s;
    s40.steps = 40;
    // Past the warm-up the schedule depends on the total: step 10's rate is the 40-step run's.
    QCOMPARE(longer.step().lr, lr_at(s40.opt, 10, 40));
    QVERIFY(refusal([&] { Trainer(p, nullptr, 9); }).find("fewer than the 10 steps") != std::string::npos);
  }

  void optimizer_state_that_does_not_fit_is_refused() {
    TrainSetup s = small(TrainTask::Induction, OptimizerKind::AdamW);
    Trainer t(s);
    t.step();
    const ResumePoint good = t.resume_point();
    auto refused = [](ResumePoint p, const char* words) {
      const std::string why = refusal([&] { Trainer(p, nullptr); });
      if (why.find(words) == std::string::npos) qWarning("%s", why.c_str());
      return why.find(words) != std::string::npos;
    };
    ResumePoint missing = good;
    missing.optimizer.pop_back();
    QVERIFY(refused(missing, "exp_avg_sq/"));
    ResumePoint extra = good;
    extra.optimizer.emplace_back("momentum_buffer/embedding.weight", extra.optimizer.front().second);
    QVERIFY(refused(extra, "momentum_buffer/embedding.weight"));
    ResumePoint misshapen = good;
    misshapen.optimizer.front().second = Tensor({1, 2}, 0.0f);
    QVERIFY(refused(misshapen, misshapen.optimizer.front().first.c_str()));
    ResumePoint none = good;
    none.optimizer.clear();
    QVERIFY(refused(none, "exp_avg/"));
  }

  void resume_files_that_lie_are_refused_by_field() {
    TrainSetup s = small(TrainTask::Induction, OptimizerKind::AdamW);
    Trainer t(s);
    t.step();
    const std::string good = serialize_resume(t.resume_point());
    const auto refused = [](const std::string& bytes, const char* words) {
      const std::string why = refusal([&] { parse_resume(bytes, "resume-x"); });
      if (why.find(words) == std::string::npos || why.find("resume-x") == std::string::npos) qWarning("%s", why.c_str());
      return why.find(words) != std::string::npos;
    };
    auto with = [&](const std::string& from, const std::string& to) {
      std::string x = good;
      const size_t at = x.find(from);
      if (at == std::string::npos) qFatal("no %s", from.c_str());
      return x.replace(at, from.size(), to);  // same length: the header's size stays right
    };
    QVERIFY(refused(with("attnlab-training-resume/1", "attnlab-training-resume/9"), "training_resume.format"));
    QVERIFY(refused(with("\\\"kind\\\":\\\"adamw\\\"", "\\\"kind\\\":\\\"adamx\\\""), "training_resume.optimizer.kind"));
    QVERIFY(refused(with("\\\"task\\\":\\\"induction\\\"", "\\\"task\\\":\\\"inductiom\\\""), "training_resume.task"));
    QVERIFY(refused(with("\\\"batch\\\":8", "\\\"batch\\\":0"), "training_resume.batch"));
    QVERIFY(refused(with("training_resume", "training_resumf"), "training_resume"));
    // A plain weights file (a snapshot) is no resume point.
    QVERIFY(refused(serialize_safetensors({{"x", Tensor({1}, 0.0f)}}, {}), "training_resume"));
  }

  // A recorded-run folder with its resume point: read back through run.json; a folder whose
  // run.json names none, or another step's, is refused.
  void run_folder_carries_its_resume_point() {
    TrainSetup s = small(TrainTask::Induction, OptimizerKind::AdamW);
    Trainer t(s);
    SnapshotStore mem;
    RunRecord rec = run_record_of(s);
    rec.curves.push_back(CurvePoint{0, 0, 0, 0, t.evaluate()});
    mem.add(0, t.weights());
    for (int i = 0; i < 4; ++i) t.step();
    rec.curves.push_back(CurvePoint{4, 0, 0, 0, t.evaluate()});
    mem.add(4, t.weights());
    const QTemporaryDir parent;
    const std::string dir = parent.filePath(QStringLiteral("a.run")).toStdString();
    const ResumePoint point = t.resume_point();
    write_run_folder(dir, rec, s, mem, weights_file_metadata(t.config(), t.weights()), true, &point);
    const RunRecord back = read_run_record(dir);
    QCOMPARE(back.resume, std::string("resume-00000004.safetensors"));
    QCOMPARE(back.steps_done, int64_t(4));
    const ResumePoint read = read_run_resume(dir);
    expect_same_weights(read.weights, t.weights());  // F32, though the snapshots are F16
    QCOMPARE(read.optimizer.size(), point.optimizer.size());
    // Without a resume point: replayable, not resumable.
    const std::string plain = parent.filePath(QStringLiteral("b.run")).toStdString();
    write_run_folder(plain, rec, s, mem, weights_file_metadata(t.config(), t.weights()), false);
    QVERIFY(read_run_record(plain).resume.empty());
    QVERIFY(refusal([&] { read_run_resume(plain); }).find("holds no resume point") != std::string::npos);
    // run.json naming a resume point of another step, or another file, is refused.
    std::string json = run_record_json(back, s);
    const std::string other = json;
    QVERIFY(refusal([&] {
              parse_run_record(std::string(json).replace(json.find("resume-00000004"), 15, "resume-00000003"), "run.json");
            }).find("resume") != std::string::npos);
    QVERIFY(refusal([&] {
              parse_run_record(std::string(other).replace(other.find("resume-00000004.safetensors"), 27, "../x"), "run.json");
            }).find("resume") != std::string::npos);
  }
};

QTEST_GUILESS_MAIN(TestTrainingResume)
#include "test_training_resume.moc"
