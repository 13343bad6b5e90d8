// find_head exercises (core/exercises/exercise_heads.cpp): each head's score for a pattern against
// scores worked out by hand, the shipped questions' answers and the lenient reading of a head,
// and the feedback on a wrong one. test_exercises covers what every kind shares (loading,
// solvability, malformed files).
#include <QtTest>

#include <cmath>
#include <set>

#include "exercise_fixtures.h"
#include "exercises/exercises.h"

using namespace attnlab;
using namespace attnlab::test;
using nlohmann::json;

class TestExerciseHeads : public QObject {
  Q_OBJECT
 private slots:
  // head_trait_scores against scores worked out by hand on a made-up weights tensor: one sentence
  // "a b a b" (4 real tokens) and one "c d" padded to 4, one layer of two heads.
  void headTraitsByHand() {
    const Batch batch = make_batch({"a b a b", "c d"}, {});
    Tensor w({2, 2, 4, 4});
    // head 0: every query on its previous token (query 0 on itself); head 1: uniform over the
    // keys up to the query (causal).
    for (int64_t b = 0; b < 2; ++b)
      for (int64_t i = 0; i < 4; ++i)
        for (int64_t j = 0; j <= i; ++j) {
          w.at({b, 0, i, j}) = (j == std::max<int64_t>(i - 1, 0)) ? 1.f : 0.f;
          w.at({b, 1, i, j}) = 1.f / float(i + 1);
        }
    Trace trace;
    trace.record(StepInfo{.id = "encoder.layers.0.self_attn.weights"}, w);
    auto score = [&](HeadTrait t) { return head_trait_scores(trace, batch, t, 1, nullptr).at(0); };
    // previous: queries 1..3 of "a b a b" and 1 of "c d" (4 rows); head 1: (1/2 + 1/3 + 1/4 + 1/2) / 4.
    auto prev = score(HeadTrait::PreviousToken);
    QCOMPARE(prev[0], 1.0);
    QVERIFY(std::abs(prev[1] - (0.5 + 1.0 / 3 + 0.25 + 0.5) / 4) < 1e-6);
    // self: 6 real rows; head 0 is on itself only at query 0 of each sentence.
    auto self = score(HeadTrait::Self);
    QVERIFY(std::abs(self[0] - 2.0 / 6) < 1e-6);
    QVERIFY(std::abs(self[1] - (1 + 0.5 + 1.0 / 3 + 0.25 + 1 + 0.5) / 6) < 1e-6);
    // first token: rows i ≥ 1; head 0 hits position 0 only from query 1.
    auto first = score(HeadTrait::FirstToken);
    QVERIFY(std::abs(first[0] - 2.0 / 4) < 1e-6);
    // same token: queries 2 ("a", copy at 0) and 3 ("b", copy at 1) of the first sentence.
    auto same = score(HeadTrait::SameToken);
    QVERIFY(std::abs(same[0] - 0.0) < 1e-6);  // head 0 looks at 1 and 2, never at a copy
    QVERIFY(std::abs(same[1] - (1.0 / 3 + 0.25) / 2) < 1e-6);
    // induction: query 2 ("a") → key 1 (after the copy at 0); query 3 ("b") → key 2.
    auto induction = score(HeadTrait::Induction);
    QCOMPARE(induction[0], 1.0);  // head 0 sits on i − 1, which is exactly that key here
    QVERIFY(std::abs(induction[1] - (1.0 / 3 + 0.25) / 2) < 1e-6);
    // "a b c a b": query 3 ("a", copy at 0) → key 1, query 4 ("b", copy at 1) → key 2 — not i − 1,
    // so an induction score that were the previous-token score would fail here.
    const Batch abcab = make_batch({"a b c a b"}, {});
    Tensor w5({1, 1, 5, 5});
    for (int64_t i = 0; i < 5; ++i) w5.at({0, 0, i, std::max<int64_t>(i - 1, 0)}) = 1.f;  // previous-token head
    Trace t5;
    t5.record(StepInfo{.id = "encoder.layers.0.self_attn.weights"}, w5);
    QCOMPARE(head_trait_scores(t5, abcab, HeadTrait::Induction, 1, nullptr).at(0).at(0), 0.0);
    QCOMPARE(head_trait_scores(t5, abcab, HeadTrait::PreviousToken, 1, nullptr).at(0).at(0), 1.0);
    // A token the model reads as [UNK] matches nothing: "zz" twice is no repeat for the letters' model.
    const auto& letters = *find_exercise(shipped(), "head-induction")->setup.weights->vocab();
    const Batch unk = make_batch({"zz a zz a"}, {}, &letters);
    Tensor w4({1, 1, 4, 4}, 0.25f);
    Trace t4;
    t4.record(StepInfo{.id = "encoder.layers.0.self_attn.weights"}, w4);
    QCOMPARE(head_trait_scores(t4, unk, HeadTrait::SameToken, 1, &letters).at(0).at(0), 0.25);  // only query 3 ("a")
    // No repeated token: nothing to measure.
    const Batch plain = make_batch({"a b c d"}, {});
    Tensor w1({1, 2, 4, 4});
    Trace t1;
    t1.record(StepInfo{.id = "encoder.layers.0.self_attn.weights"}, w1);
    QVERIFY(std::isnan(head_trait_scores(t1, plain, HeadTrait::Induction, 1, nullptr).at(0).at(0)));
  }

  void lenientHeadAnswers() {
    const Exercise& e = ex("head-induction");  // layer 1 named by the question
    const std::string right = solution(e);
    QCOMPARE(right, std::string("1.3"));
    for (const char* a : {"1.3", "L1H3", "layer 1, head 3", "3", "(1, 3)"})
      QVERIFY2(check_answer(e, a, 1, Lang::En).correct, a);
    QVERIFY(check_answer(e, "１．３", 1, Lang::Zh).correct);  // full-width, as a Chinese IME types it
    // Every induction head of layer 1 counts, not only the best (PyTorch: 0.52, 0.53, 0.66; 1.0 0.06).
    std::set<int> accepted;
    for (int h = 0; h < 4; ++h)
      if (check_answer(e, "1." + std::to_string(h), 1, Lang::En).correct) accepted.insert(h);
    QCOMPARE(accepted, (std::set<int>{1, 2, 3}));
    // Numbers past int are compared as typed, never wrapped onto a real head (2^31 once crashed,
    // 2^32 once read as head 0).
    for (const char* big : {"2147483648.0", "4294967296.0", "4294967299", "1.4294967299"}) {
      const CheckResult c = check_answer(ex("head-self"), big, 1, Lang::En);
      QVERIFY2(!c.correct, big);
      QVERIFY2(has(c.feedback, "This model has") || has(c.feedback, "layer.head"), c.feedback.c_str());
    }
    QVERIFY(!check_answer(e, "4294967299", 1, Lang::En).correct);
  }

  void headFeedback() {
    const Exercise& e = ex("head-induction");
    QVERIFY(has(check_answer(e, "5.0", 1, Lang::En).feedback, "This model has 2 layer(s) (0 to 1) and 4 heads (0 to 3)"));
    QVERIFY(has(check_answer(e, "0.3", 1, Lang::En).feedback, "The question is about layer 1"));
    const std::string wrong = check_answer(e, "1.0", 1, Lang::En).feedback;
    QVERIFY2(has(wrong, "Head 1.0 puts on average 0.0") && has(wrong, "at least 0.40"), wrong.c_str());
    QVERIFY(has(check_answer(e, "1.0", 1, Lang::Zh).feedback, "1.0 号头平均把"));
    QVERIFY(has(check_answer(e, "nothing", 1, Lang::En).feedback, "layer.head"));
    const json view = student_view(e, Lang::En);
    QCOMPARE(view.at("setup").at("model"), json("induction-letters"));
    QCOMPARE(view.at("task").at("layer"), json(1));
    QCOMPARE(view.at("task").at("step"), json("encoder.layers.1.self_attn.weights"));
    QCOMPARE(view.at("setup").at("layers"), json(2));  // the model's file, not the setup's defaults
  }

};

QTEST_MAIN(TestExerciseHeads)
#include "test_exercise_heads.moc"
