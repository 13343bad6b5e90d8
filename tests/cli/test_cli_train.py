"""`attnlab train`: a user's runs of the training lab's command line. Progress is JSON, one line per
logging interval and a summary; the model file loads wherever a weights file does (and its bundle
reproduces in PyTorch); the same seed gives the same file; Ctrl+C still writes the model; bad
input is refused with a message naming it, and nothing the program did not create is touched."""
import json
import os
import signal
import subprocess
import time

import attnlab_testlib as lib
from attnlab_testlib import read_safetensors, reported, reproduce, run_attnlab

SMALL = ["--d-model", "16", "--heads", "2", "--d-ff", "32", "--batch", "8", "--eval-count", "16"]


def lines(out):
    return [json.loads(l) for l in out.splitlines() if l.strip()]


class Train(lib.TempDirCase):
    def train_ok(self, *args):
        r = run_attnlab(["train"] + list(args))
        self.assertEqual(r.rc, 0, r.describe())
        return lines(r.out)

    def test_progress_lines_summary_and_model_file(self):
        out = self.path("copy.safetensors")
        got = self.train_ok("--task", "copy", "--steps", "30", "--log-every", "10", "--seed", "1", *SMALL, "--out", out)
        progress, summary = got[:-1], got[-1]
        self.assertEqual([p["step"] for p in progress], [10, 20, 30])
        for p in progress:
            for key in ("loss", "lr", "grad_norm", "held_out_loss", "accuracy", "sequence_accuracy", "seconds"):
                self.assertIsInstance(p[key], float, key)
            self.assertEqual(len(p["heads"]), 2)  # layers
            self.assertEqual(len(p["heads"][0]), 2)  # heads
            self.assertEqual(set(p["heads"][0][0]), {"previous", "self", "entropy"})  # no induction score
        self.assertLess(progress[-1]["loss"], progress[0]["loss"] + 1.0)
        self.assertTrue(summary["done"])
        self.assertEqual((summary["task"], summary["steps"], summary["out"]), ("copy", 30, out))
        meta, _ = read_safetensors(out)
        self.assertEqual((meta["training_task"], meta["task"], meta["mask"]), ("copy", "next-token", "causal"))
        self.assertEqual(json.loads(meta["vocab"])[:3], ["[PAD]", "[UNK]", "0"])
        metrics = json.loads(meta["metrics"])
        self.assertEqual(metrics["training_steps"], 30)
        self.assertAlmostEqual(metrics["accuracy"], summary["accuracy"])
        self.assertNotIn("ffn", meta)
        # It loads like the shipped models: export with it.
        bundle = self.path("b")
        self.export_ok(bundle, "--weights", out, "--text", "3 1 2 >")
        m = json.load(open(os.path.join(bundle, "manifest.json"), encoding="utf-8"))
        self.assertEqual(m["config"]["mask"], "causal")

    def test_attention_only_induction_model_reproduces_in_pytorch(self):
        out = self.path("ind.safetensors")
        got = self.train_ok("--task", "induction", "--steps", "12", "--log-every", "6", *SMALL, "--out", out)
        self.assertIn("induction", got[0]["heads"][1][0])
        self.assertIn("best_induction", got[0])
        meta, tensors = read_safetensors(out)
        self.assertEqual(meta["ffn"], "none")
        self.assertFalse(any("linear1" in k or "norm2" in k for k in tensors))
        bundle = self.path("b")
        self.export_ok(bundle, "--weights", out, "--text", "q w e r t y q w e r t y", "--loss", "next-token")
        rc, text, err = reproduce(bundle)
        self.assertEqual(rc, 0, text[-2000:] + err[-2000:])
        rows = reported(text)
        self.assertEqual(rows.get("encoder.layers.1.self_attn.weights"), "ok")
        self.assertEqual(rows.get("grad/encoder.layers.0.self_attn.in_proj_weight"), "ok")
        self.assertNotIn("DIFFERS", rows.values())

    def test_learned_positions_train_and_reproduce(self):
        out = self.path("pos.safetensors")
        self.train_ok("--task", "copy", "--steps", "8", "--log-every", "8", *SMALL, "--positional", "learned",
                      "--max-positions", "40", "--out", out)
        meta, tensors = read_safetensors(out)
        self.assertEqual((meta["positional"], meta["max_positions"]), ("learned", "40"))
        self.assertEqual(tensors["encoder.position_embedding.weight"].shape[0], 40)
        bundle = self.path("b")
        self.export_ok(bundle, "--weights", out, "--text", "3 1 2 > 3 1 2", "--loss", "next-token")
        rc, text, err = reproduce(bundle)
        self.assertEqual(rc, 0, text[-2000:] + err[-2000:])
        rows = reported(text)
        self.assertEqual(rows.get("encoder.positional"), "ok")
        self.assertEqual(rows.get("grad/encoder.position_embedding.weight"), "ok")
        self.assertNotIn("DIFFERS", rows.values())

    def test_same_seed_same_file_other_seed_another(self):
        args = ["--task", "brackets", "--steps", "15", "--log-every", "15", *SMALL]
        a, b, c = self.path("a.st"), self.path("b.st"), self.path("c.st")
        self.train_ok(*args, "--seed", "3", "--out", a)
        self.train_ok(*args, "--seed", "3", "--out", b)
        self.train_ok(*args, "--seed", "4", "--out", c)
        self.assertEqual(open(a, "rb").read(), open(b, "rb").read())
        self.assertNotEqual(open(a, "rb").read(), open(c, "rb").read())

    def test_existing_out_needs_force(self):
        out = self.path("m.st")
        with open(out, "w") as f:
            f.write("mine")
        r = run_attnlab(["train", "--task", "sort", "--steps", "2", *SMALL, "--out", out])
        self.assertEqual(r.rc, 2, r.describe())
        self.assertIn("--force", r.err)
        self.assertEqual(open(out).read(), "mine")
        self.train_ok("--task", "sort", "--steps", "2", *SMALL, "--out", out, "--force")
        self.assertTrue(read_safetensors(out)[0]["training_task"] == "sort")
        self.assertEqual(sorted(os.listdir(self.tmp)), ["m.st"])  # no temporary left

    def test_ctrl_c_stops_and_still_writes(self):
        out = self.path("stopped.st")
        env = dict(os.environ, OMP_NUM_THREADS="2")
        p = subprocess.Popen([lib.attnlab_bin(), "train", "--task", "induction", "--steps", "1000000", "--log-every", "5",
                              *SMALL, "--out", out], stdout=subprocess.PIPE, stderr=subprocess.PIPE, env=env)
        first = p.stdout.readline()
        self.assertTrue(first.startswith(b"{"), first)
        t0 = time.time()
        p.send_signal(signal.SIGINT)
        rest, err = p.communicate(timeout=30)
        self.assertLess(time.time() - t0, 10)
        self.assertEqual(p.returncode, 0, err)
        summary = lines(rest.decode())[-1]
        self.assertFalse(summary["done"])
        self.assertGreaterEqual(summary["steps"], 5)
        meta, tensors = read_safetensors(out)
        self.assertEqual(json.loads(meta["metrics"])["training_steps"], summary["steps"])
        self.assertEqual(sorted(os.listdir(self.tmp)), ["stopped.st"])

    def test_snapshots_folder_is_a_recorded_run(self):
        snaps, out = self.path("run"), self.path("m.st")
        got = self.train_ok("--task", "induction", "--steps", "20", "--log-every", "5", "--snapshot-at", "0,10,20",
                            "--snapshot-dtype", "f16", *SMALL, "--snapshots", snaps, "--out", out)
        run = json.load(open(os.path.join(snaps, "run.json"), encoding="utf-8"))
        self.assertEqual(run["format"], "attnlab-training-run/1")
        self.assertEqual((run["task"], run["steps"], run["steps_done"]), ("induction", 20, 20))
        self.assertEqual([p["step"] for p in run["curves"]], [0, 5, 10, 15, 20])
        self.assertEqual(run["curves"][1:], [{k: v for k, v in g.items() if k != "seconds"} for g in got[:-1]])
        self.assertEqual([s["step"] for s in run["snapshots"]], [0, 10, 20])
        self.assertEqual(run["resume"], "resume-00000020.safetensors")
        self.assertEqual(sorted(os.listdir(snaps)), [run["resume"], "run.json"] + [s["file"] for s in run["snapshots"]])
        meta, tensors = read_safetensors(os.path.join(snaps, run["snapshots"][-1]["file"]))
        self.assertEqual(meta["training_task"], "induction")
        final_meta, final = read_safetensors(out)
        for k in final:  # the last snapshot is the final model, rounded to F16
            self.assertTrue(((final[k].astype("float16").astype("float32")) == tensors[k]).all(), k)
        # Each snapshot loads like a weights file.
        self.export_ok(self.path("b"), "--weights", os.path.join(snaps, run["snapshots"][1]["file"]), "--text", "a b a b")
        # A folder that exists is refused before anything runs.
        r = run_attnlab(["train", "--task", "copy", "--steps", "2", *SMALL, "--snapshots", snaps, "--out", self.path("x.st")])
        self.assertEqual(r.rc, 2, r.describe())
        self.assertIn("--snapshots", r.err)
        self.assertFalse(os.path.exists(self.path("x.st")))

    def test_resume_after_ctrl_c_goes_on_as_if_never_stopped(self):
        common = ["--task", "sort", "--steps", "1500", "--warmup", "5", "--log-every", "5", "--seed", "4", *SMALL]
        straight = self.path("straight.st")
        self.train_ok(*common, "--out", straight)
        snaps, stopped = self.path("run"), self.path("stopped.st")
        p = subprocess.Popen([lib.attnlab_bin(), "train", *common, "--snapshots", snaps, "--out", stopped],
                             stdout=subprocess.PIPE, stderr=subprocess.PIPE)
        self.assertTrue(p.stdout.readline().startswith(b"{"))
        p.send_signal(signal.SIGINT)
        rest, err = p.communicate(timeout=60)
        self.assertEqual(p.returncode, 0, err)
        done = lines(rest.decode())[-1]["steps"]
        self.assertLess(done, 1500)
        run = json.load(open(os.path.join(snaps, "run.json"), encoding="utf-8"))
        self.assertEqual((run["steps_done"], run["resume"]), (done, "resume-%08d.safetensors" % done))
        # Going on: no model option may be given again; fewer steps than done are refused.
        for args, words in [(["--heads", "4"], "drop --heads"), (["--steps", str(done - 1)], "fewer than"),
                            (["--task", "copy"], "drop --task")]:
            r = run_attnlab(["train", "--resume", snaps, *args, "--out", self.path("x.st")])
            self.assertEqual(r.rc, 2, r.describe())
            self.assertIn(words, r.err)
        resumed = self.path("resumed.st")
        got = self.train_ok("--resume", snaps, "--log-every", "5", "--out", resumed)
        self.assertTrue(got[-1]["done"])
        self.assertEqual(got[-1]["steps"], 1500)
        a, b = read_safetensors(straight)[1], read_safetensors(resumed)[1]
        self.assertEqual(sorted(a), sorted(b))
        for k in a:
            self.assertTrue((a[k] == b[k]).all(), k)  # bit for bit
        run = json.load(open(os.path.join(snaps, "run.json"), encoding="utf-8"))
        self.assertEqual((run["steps_done"], run["resume"]), (1500, "resume-00001500.safetensors"))
        steps = [c["step"] for c in run["curves"]]
        self.assertEqual(steps, sorted(set(steps)))
        self.assertEqual(steps[-1], 1500)
        # The earlier resume point is gone, nothing else left behind.
        self.assertEqual(sorted(os.listdir(snaps)), sorted([run["resume"], "run.json"] + [s["file"] for s in run["snapshots"]]))
        # A run recorded without a resume point (the shipped one) replays but cannot go on.
        r = run_attnlab(["train", "--resume", os.path.join(os.path.dirname(__file__), "..", "..", "sample_inputs", "runs", "induction"),
                         "--out", self.path("y.st")])
        self.assertEqual(r.rc, 1, r.describe())
        self.assertIn("holds no resume point", r.err)
        self.assertFalse(os.path.exists(self.path("y.st")))

    def test_tiled_attention_trains_like_the_full_path(self):
        args = ["--task", "copy", "--steps", "20", "--log-every", "10", *SMALL]
        full = self.train_ok(*args, "--out", self.path("full.st"))
        tiled = self.train_ok(*args, "--attention", "tiled", "--out", self.path("tiled.st"))
        for f, t in zip(full[:-1], tiled[:-1]):  # FlashAttention-2's backward: the same steps
            self.assertAlmostEqual(f["loss"], t["loss"], delta=1e-5 * abs(f["loss"]))
            self.assertAlmostEqual(f["grad_norm"], t["grad_norm"], delta=1e-4 * abs(f["grad_norm"]))
            self.assertEqual(t["heads"], [])  # no (S, S) weights to score
        self.assertAlmostEqual(full[-1]["held_out_loss"], tiled[-1]["held_out_loss"], delta=1e-4)

    def test_text_task_learns_the_files_words(self):
        text = self.path("corpus.txt")
        with open(text, "w", encoding="utf-8") as f:
            for i in range(60):
                f.write(f"the cat number {i % 7} sat on the mat\n" if i % 2 else "猫 坐 在 垫子 上\n")
        out = self.path("text.st")
        got = self.train_ok("--task", "text", "--text-file", text, "--steps", "10", "--log-every", "10", *SMALL, "--out", out)
        self.assertTrue(got[-1]["done"])
        vocab = json.loads(read_safetensors(out)[0]["vocab"])
        self.assertEqual(vocab[:3], ["[PAD]", "[UNK]", "the"])
        self.assertIn("猫", vocab)

    def test_refusals_name_the_problem(self):
        fifo = self.path("fifo")
        os.mkfifo(fifo)
        out = self.path("never.st")
        cases = [
            (["--task", "inducton"], 2, "previous-token"),
            (["--task", "text"], 2, "--text-file"),
            (["--task", "copy", "--text-file", fifo], 2, "--task text"),
            (["--task", "text", "--text-file", fifo], 1, "not a regular file"),
            (["--task", "text", "--text-file", self.path("missing.txt")], 1, "missing.txt"),
            (["--task", "copy", "--lr", "0"], 2, "--lr"),
            (["--task", "copy", "--optimizer", "adam"], 2, "adamw"),
            (["--task", "copy", "--heads", "3"], 2, "--heads"),
            (["--task", "copy", "--ffn", "maybe"], 2, "--ffn"),
            (["--task", "copy", "--positional", "learned", "--max-positions", "3"], 2, "--max-positions"),
        ]
        for args, rc, words in cases:
            with self.subTest(args=args):
                r = run_attnlab(["train", *args, "--steps", "2", "--out", out], timeout=30)
                self.assertEqual(r.rc, rc, r.describe())
                self.assertIn(words, r.err)
                self.assertEqual(r.err.count("\n"), 1, r.err)
                self.assertFalse(os.path.exists(out))
        r = run_attnlab(["train", "--task", "copy", "--steps", "2", *SMALL, "--out", self.path("no", "such", "m.st")])
        self.assertEqual(r.rc, 1, r.describe())
        self.assertIn("cannot write", r.err)


if __name__ == "__main__":
    lib.main()
