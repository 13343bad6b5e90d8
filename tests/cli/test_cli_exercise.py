#!/usr/bin/python3
"""attnlab exercise (shared/spec/cli-and-export.md, docs/exercises.md): --list, --show in English
and Chinese, --check with right and wrong answers (exit 0 either way), --solution, the teachers'
folders (XDG_DATA_HOME and --folder), and the error rules: an unknown id is exit 2 naming it, a
broken exercise file exit 1 naming the file and the field, a bad command line exit 2.

usage: test_cli_exercise.py /path/to/attnlab [-v] [TestClass[.test_name] ...]   (or env ATTNLAB_BIN)"""

import json
import os
import re
import sys
import unittest

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import attnlab_testlib as lib  # noqa: E402
from attnlab_testlib import run_attnlab  # noqa: E402

PREFIX = "attnlab: error: "
CJK = re.compile("[\u4e00-\u9fff]")
KINDS = {"predict_shape", "find_bug", "fix_mask", "find_head"}

VALID = {
    "id": "teacher-q-shape", "kind": "predict_shape", "level": 2,
    "title": {"en": "Shape of q", "zh": "q 的形状"},
    "goal": {"en": "What is the shape of q?", "zh": "q 的形状是什么？"},
    "hints": [{"en": "(B, H, S, Dh)", "zh": "(B, H, S, Dh)"}],
    "explanation": {"en": "Heads come before tokens.", "zh": "头的轴在词元前面。"},
    "setup": {"texts": ["a b c"], "d_model": 8, "heads": 2},
    "predict_shape": {"step": "encoder.layers.0.self_attn.q", "ask": "shape"},
}


class ExerciseCase(lib.TempDirCase):

    def setUp(self):
        super().setUp()
        self.xdg = self.path("xdg")  # an empty data home: no teacher's files unless a test adds them
        os.makedirs(self.xdg)

    def run_ex(self, *args, xdg=None):
        return run_attnlab(["exercise"] + list(args), env={"XDG_DATA_HOME": xdg or self.xdg})

    def ok_json(self, *args, **kw):
        r = self.run_ex(*args, **kw)
        self.assertEqual(r.rc, 0, r.describe())
        self.assertEqual(r.err, "", r.describe())
        return json.loads(r.out)

    def assert_error(self, r, status, *names):
        why = "\n" + r.describe()
        self.assertEqual(r.rc, status, "wrong exit status" + why)
        self.assertEqual(r.out, "", "stdout must be empty on failure" + why)
        self.assertTrue(r.err.startswith(PREFIX) and r.err.count("\n") == 1, "one error line" + why)
        for n in names:
            self.assertIn(n, r.err, why)

    def write(self, folder, name, obj):
        os.makedirs(folder, exist_ok=True)
        with open(os.path.join(folder, name), "w", encoding="utf-8") as f:
            f.write(obj if isinstance(obj, str) else json.dumps(obj, ensure_ascii=False))
        return os.path.join(folder, name)


class TestList(ExerciseCase):

    def test_list(self):
        items = self.ok_json("--list")
        self.assertGreaterEqual(len(items), 15)
        for it in items:
            with self.subTest(id=it.get("id")):
                self.assertEqual(set(it), {"id", "title", "kind", "level"})
                self.assertIn(it["kind"], KINDS)
                self.assertIn(it["level"], range(1, 6))
                self.assertTrue(it["title"])
        self.assertEqual({it["kind"] for it in items}, KINDS)
        self.assertEqual(len({it["id"] for it in items}), len(items))

    def test_list_in_chinese(self):
        en = self.ok_json("--list")
        zh = self.ok_json("--list", "--lang", "zh")
        self.assertEqual([i["id"] for i in en], [i["id"] for i in zh])
        for a, b in zip(en, zh):
            with self.subTest(id=a["id"]):
                self.assertTrue(CJK.search(b["title"]), b["title"])
                self.assertNotEqual(a["title"], b["title"])


class TestShowAndCheck(ExerciseCase):

    def test_show_every_exercise_in_both_languages(self):
        for it in self.ok_json("--list"):
            for lang in ("en", "zh"):
                with self.subTest(id=it["id"], lang=lang):
                    v = self.ok_json("--show", it["id"], "--lang", lang)
                    self.assertEqual(v["id"], it["id"])
                    self.assertEqual(v["kind"], it["kind"])
                    self.assertEqual(v["lang"], lang)
                    self.assertGreaterEqual(v["hint_count"], 1)
                    for key in ("title", "goal", "answer_format", "task"):
                        self.assertTrue(v[key], key)
                    for secret in ("explanation", "hints", "fault", "answer"):
                        self.assertNotIn(secret, v)
                    if lang == "zh":
                        self.assertTrue(CJK.search(v["goal"]), v["goal"])

    def test_show_predict_shape(self):
        v = self.ok_json("--show", "shape-q-view")
        self.assertEqual(v["task"]["step"], "encoder.layers.0.self_attn.q_view")
        self.assertEqual(v["task"]["ask"], "shape")
        self.assertEqual(v["setup"]["tokens"][1], ["dogs", "bark", "[PAD]", "[PAD]", "[PAD]", "[PAD]"])
        self.assertEqual(v["task"]["inputs"][0]["id"], "encoder.layers.0.self_attn.q_proj")
        self.assertEqual(v["task"]["inputs"][0]["shape"], [2, 6, 32])

    def test_every_solution_checks_correct_and_a_wrong_answer_wrong(self):
        for it in self.ok_json("--list"):
            with self.subTest(id=it["id"]):
                sol = self.ok_json("--solution", it["id"])
                self.assertEqual(sol["id"], it["id"])
                for lang, hint in (("en", "Hint: "), ("zh", "提示：")):
                    right = self.ok_json("--check", it["id"], "--answer", sol["answer"], "--lang", lang)
                    self.assertEqual(list(right), ["id", "correct", "feedback"])
                    self.assertIs(right["correct"], True, right)
                    self.assertNotIn(hint, right["feedback"])
                    # "0/0" would name head 0.0, the right one of head-self: a head no model has
                    nonsense = "9.9 no idea" if it["kind"] == "find_head" else "0/0 no idea"
                    wrong = self.ok_json("--check", it["id"], "--answer", nonsense, "--lang", lang)
                    self.assertIs(wrong["correct"], False, wrong)
                    self.assertIn(hint, wrong["feedback"])

    def test_lenient_answers(self):
        for answer in ("(2, 6, 4, 8)", "[2,6,4,8]", "2 6 4 8", "2×6×4×8"):
            with self.subTest(answer=answer):
                self.assertTrue(self.ok_json("--check", "shape-q-view", "--answer", answer)["correct"])
        for answer in ("yes", "True", "是"):
            with self.subTest(answer=answer):
                self.assertTrue(self.ok_json("--check", "contiguous-single-head", "--answer", answer)["correct"])
        self.assertTrue(self.ok_json("--check", "mask-causal", "--answer",
                                     "10000\n11000\n11100\n11110\n11111")["correct"])
        self.assertTrue(self.ok_json("--check", "bug-flat-softmax", "--answer",
                                     "self_attn.scores 权重太平均")["correct"])

    def test_find_head_on_a_shipped_model(self):
        v = self.ok_json("--show", "head-induction")
        self.assertEqual(v["setup"]["model"], "induction-letters")
        self.assertEqual((v["setup"]["layers"], v["setup"]["heads"]), (2, 4))
        self.assertEqual(v["task"]["pattern"], "induction")
        self.assertEqual(v["task"]["layer"], 1)
        self.assertNotIn("scores", v["task"])  # the answer is not in the learner's view
        for answer in ("1.3", "L1H3", "layer 1 head 3", "3"):
            with self.subTest(answer=answer):
                self.assertTrue(self.ok_json("--check", "head-induction", "--answer", answer)["correct"])
        wrong = self.ok_json("--check", "head-induction", "--answer", "1.0")
        self.assertFalse(wrong["correct"])
        self.assertIn("Head 1.0 puts on average", wrong["feedback"])

    def test_hints_follow_the_attempts(self):
        first = self.ok_json("--check", "strides-split-heads", "--answer", "1 2 3 4")["feedback"]
        second = self.ok_json("--check", "strides-split-heads", "--answer", "1 2 3 4", "--attempt", "2")["feedback"]
        self.assertNotEqual(first, second)
        self.assertIn("skip", first)
        self.assertIn("transpose", second)


class TestTeacherFolders(ExerciseCase):

    def test_xdg_folder_is_added(self):
        self.write(os.path.join(self.xdg, "attnlab", "exercises"), "mine.json", VALID)
        ids = [i["id"] for i in self.ok_json("--list")]
        self.assertEqual(ids[-1], "teacher-q-shape")
        self.assertTrue(self.ok_json("--check", "teacher-q-shape", "--answer", "(1, 2, 3, 4)")["correct"])

    def test_folder_option(self):
        folder = self.path("extra")
        self.write(folder, "mine.json", VALID)
        self.assertIn("teacher-q-shape", [i["id"] for i in self.ok_json("--list", "--folder", folder)])
        v = self.ok_json("--show", "teacher-q-shape", "--folder", folder, "--lang", "zh")
        self.assertEqual(v["title"], "q 的形状")

    def test_broken_file_is_exit_1_naming_file_and_field(self):
        folder = self.path("broken")
        bad = dict(VALID, title={"en": "only English"})
        path = self.write(folder, "07.json", bad)
        for args in (["--list"], ["--show", "shape-q-view"], ["--check", "shape-q-view", "--answer", "1"]):
            with self.subTest(args=args):
                r = self.run_ex(*(args + ["--folder", folder]))
                self.assert_error(r, 1, path, 'field "title.zh"', "missing")

    def test_broken_xdg_file(self):
        path = self.write(os.path.join(self.xdg, "attnlab", "exercises"), "bad.json", dict(VALID, level=9))
        self.assert_error(self.run_ex("--list"), 1, path, 'field "level"', "out of range")

    def test_each_kind_of_fault(self):
        cases = [
            ("wrong type", dict(VALID, level="2"), 'field "level"', "expected an integer"),
            ("unknown kind", dict(VALID, kind="guess"), 'field "kind"', "guess"),
            ("bad step", dict(VALID, predict_shape={"step": "encoder.q", "ask": "shape"}),
             'field "predict_shape.step"', "encoder.q"),
        ]
        for name, obj, field, words in cases:
            with self.subTest(name=name):
                folder = self.path(name.replace(" ", "_"))
                path = self.write(folder, "x.json", obj)
                self.assert_error(self.run_ex("--list", "--folder", folder), 1, path, field, words)
        bug = {k: v for k, v in VALID.items() if k != "predict_shape"}
        bug.update(kind="find_bug", find_bug={"fault": "no_scale", "faulty_step": "encoder.layers.0.self_attn.scores",
                                              "symptoms": {"en": ["x"], "zh": ["x"]}})
        folder = self.path("fault")
        path = self.write(folder, "x.json", bug)
        self.assert_error(self.run_ex("--list", "--folder", folder), 1, path, 'field "find_bug.fault"', "no_scale")

    def test_invalid_json(self):
        folder = self.path("json")
        path = self.write(folder, "x.json", '{"id": "x",\n "kind": }')
        self.assert_error(self.run_ex("--list", "--folder", folder), 1, path, "invalid JSON", "line 2")

    def test_duplicate_id_names_both_files(self):
        folder = self.path("dup")
        path = self.write(folder, "copy.json", dict(VALID, id="shape-q-view"))
        self.assert_error(self.run_ex("--list", "--folder", folder), 1, path, 'field "id"',
                          "sample_inputs/exercises/01-shape-q-view.json")

    def test_missing_folder(self):
        self.assert_error(self.run_ex("--list", "--folder", self.path("nowhere")), 1, self.path("nowhere"))


class TestCommandLineErrors(ExerciseCase):

    def test_unknown_id_is_exit_2(self):
        for args in (["--show", "no-such-exercise"], ["--check", "no-such-exercise", "--answer", "x"],
                     ["--solution", "no-such-exercise"]):
            with self.subTest(args=args):
                self.assert_error(self.run_ex(*args), 2, "no-such-exercise")

    def test_bad_command_lines(self):
        cases = [
            ([], "--list"),
            (["--list", "--show", "shape-q-view"], "exactly one"),
            (["--check", "shape-q-view"], "--answer"),
            (["--show", "shape-q-view", "--answer", "x"], "--answer"),
            (["--list", "--lang", "fr"], "--lang"),
            (["--check", "shape-q-view", "--answer", "x", "--attempt", "0"], "--attempt"),
            (["--list", "--bogus"], "--bogus"),
        ]
        for args, name in cases:
            with self.subTest(args=args):
                self.assert_error(self.run_ex(*args), 2, name)


if __name__ == "__main__":
    lib.main()
