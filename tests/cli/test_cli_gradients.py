"""`attnlab export --loss`: the backward pass in the bundle, checked as a user would check it.
The bundle's reproduce.py recomputes every gradient with torch.autograd and must agree (and must
fail, naming the step, when one gradient is wrong); the manifest says the loss; bad --loss and
--target input is refused with a message naming the option, never read forever or half-written."""
import io
import json
import os
import zipfile

import numpy as np

import attnlab_testlib as lib
from attnlab_testlib import reported, reproduce, run_attnlab

TEXTS = ["--text", "the black cat sat", "--text", "猫坐着"]


def arrays(folder):
    with np.load(os.path.join(folder, "trace.npz")) as z:
        return {k: z[k] for k in z.files}


def rewrite_npz(folder, name, change):
    """trace.npz with one array replaced by change(array)."""
    path = os.path.join(folder, "trace.npz")
    data = arrays(folder)
    data[name] = change(data[name])
    buf = io.BytesIO()
    np.savez(buf, **data)
    with open(path, "wb") as f:
        f.write(buf.getvalue())


class Gradients(lib.TempDirCase):
    CONFIGS = [
        ["--d-model", "16", "--heads", "4", "--mask", "padding"],
        ["--d-model", "12", "--heads", "3", "--layers", "2", "--norm", "post", "--activation", "gelu",
         "--mask", "padding+causal", "--positional", "none"],
        ["--d-model", "16", "--heads", "2", "--layers", "2", "--memory-text", "le chat noir", "--mask", "padding+causal"],
        ["--d-model", "16", "--heads", "2", "--layers", "2", "--activation", "gelu_tanh", "--norm", "post"],
        ["--d-model", "16", "--heads", "4", "--memory-text", "le chat noir", "--positional", "learned",
         "--max-positions", "16"],
    ]

    def test_sum_loss_reproduces_with_autograd(self):
        for i, args in enumerate(self.CONFIGS):
            with self.subTest(args=" ".join(args)):
                out = self.path(f"b{i}")
                self.export_ok(out, *TEXTS, *args, "--loss", "sum")
                m = json.load(open(os.path.join(out, "manifest.json"), encoding="utf-8"))
                self.assertEqual(m["loss"]["kind"], "sum")
                last = "decoder" if "--memory-text" in args else "encoder"
                layers = args[args.index("--layers") + 1] if "--layers" in args else "1"
                self.assertEqual(m["loss"]["input"], f"{last}.layers.{int(layers) - 1}.output")
                a = arrays(out)
                self.assertAlmostEqual(m["loss"]["value"], float(a[m["loss"]["input"]].astype(np.float64).sum()), places=3)
                grads = [s["id"] for s in m["gradient_steps"]]
                self.assertEqual(grads[0], m["loss"]["input"] + ".grad")
                self.assertIn("encoder.input.grad", grads)
                self.assertIn("grad/encoder.layers.0.self_attn.in_proj_weight", grads)
                if "learned" in args:  # the gradient goes on to the position tables' rows
                    for stack in ("encoder", "decoder"):
                        self.assertIn(f"{stack}.positional.grad", grads)
                        self.assertIn(f"grad/{stack}.position_embedding.weight", grads)
                for g in grads:  # every gradient has its forward step's shape
                    self.assertIn(g, a)
                    if g.endswith(".grad"):
                        self.assertEqual(a[g].shape, a[g[:-5]].shape, g)
                rc, text, err = reproduce(out)
                self.assertEqual(rc, 0, text[-3000:] + err)
                rows = reported(text)
                for g in grads:
                    self.assertEqual(rows.get(g), "ok", g)
                self.assertEqual(rows.get("loss"), None)  # the loss row is "loss (sum)"
                self.assertIn("loss (sum)", text)

    def test_a_wrong_gradient_is_named(self):
        out = self.path("b")
        self.export_ok(out, *TEXTS, "--d-model", "16", "--heads", "2", "--loss", "sum")
        name = "encoder.layers.0.self_attn.weights.grad"
        rewrite_npz(out, name, lambda g: g + np.float32(0.01))
        rc, text, _ = reproduce(out)
        self.assertEqual(rc, 1, text[-2000:])
        self.assertEqual(reported(text).get(name), "DIFFERS")
        self.assertEqual(reported(text).get("grad/encoder.layers.0.linear1.weight"), "ok")

    def test_mse_against_a_target_file(self):
        out, target = self.path("b"), self.path("target.npy")
        # The output of "the black cat sat" / "猫坐着" is (2, 4, 16).
        np.save(target, np.linspace(-1, 1, 2 * 4 * 16, dtype=np.float64).reshape(2, 4, 16))
        self.export_ok(out, *TEXTS, "--d-model", "16", "--heads", "4", "--loss", "mse", "--target", target)
        m = json.load(open(os.path.join(out, "manifest.json"), encoding="utf-8"))
        self.assertEqual(m["loss"]["kind"], "mse")
        self.assertIn("loss/target", arrays(out))
        rc, text, err = reproduce(out)
        self.assertEqual(rc, 0, text[-3000:] + err)
        # Without --loss nothing changes: no gradient arrays, no "loss" in the manifest.
        plain = self.path("plain")
        self.export_ok(plain, *TEXTS, "--d-model", "16", "--heads", "4")
        self.assertNotIn("loss", json.load(open(os.path.join(plain, "manifest.json"), encoding="utf-8")))
        self.assertFalse([k for k in arrays(plain) if k.endswith(".grad") or k.startswith("grad/")])

    def test_tiled_backward_reproduces_with_autograd(self):
        # FlashAttention-2's backward: no (S, S) gradient step, ∂L/∂scores binned at the overview;
        # the long text (300 tokens) makes bins of 2 queries and 2 keys.
        long_text = self.path("long.txt")
        with open(long_text, "w", encoding="utf-8") as f:
            f.write(" ".join(f"w{i % 37}" for i in range(300)) + "\n")
        for i, args in enumerate([[*TEXTS, "--mask", "padding+causal", "--layers", "2"],
                                  [*TEXTS, "--memory-text", "le chat noir"],
                                  ["--text-file", long_text, "--heads", "2", "--mask", "causal"]]):
            with self.subTest(args=" ".join(args)):
                out = self.path(f"t{i}")
                self.export_ok(out, *args, "--d-model", "16", "--attention", "tiled", "--loss", "sum")
                m = json.load(open(os.path.join(out, "manifest.json"), encoding="utf-8"))
                self.assertEqual(m["config"]["overview_cap"], 256)
                grads = [s["id"] for s in m["gradient_steps"]]
                self.assertIn("encoder.layers.0.self_attn.weights_overview.grad", grads)
                self.assertIn("encoder.layers.0.self_attn.q.grad", grads)
                self.assertFalse([g for g in grads if g.endswith((".scores.grad", ".weights.grad", ".qk.grad"))])
                a = arrays(out)
                if "--text-file" in args:
                    self.assertEqual(a["encoder.layers.0.self_attn.weights_overview.grad"].shape, (1, 2, 150, 150))
                rc, text, err = reproduce(out)
                self.assertEqual(rc, 0, text[-3000:] + err)
                self.assertEqual(reported(text).get("encoder.layers.0.self_attn.weights_overview.grad"), "ok")
        r = run_attnlab(["export", "--out", self.path("no"), *TEXTS, "--attention", "tiled", "--fault", "no_scaling"],
                        timeout=60)
        self.assertEqual(r.rc, 2, r.describe())
        self.assertIn("--attention tiled: a planted fault or a variant needs every score step", r.err)

    def test_full_layers_among_tiled_ones(self):
        # --full-layers 1: layer 1 of each stack keeps every score step and its full gradient, the
        # others the overview; its weights are the full run's, and autograd agrees with the whole.
        full, mixed = self.path("full"), self.path("mixed")
        model = [*TEXTS, "--memory-text", "le chat noir", "--d-model", "16", "--layers", "3", "--loss", "sum"]
        self.export_ok(full, *model)
        self.export_ok(mixed, *model, "--attention", "tiled", "--full-layers", "1")
        m = json.load(open(os.path.join(mixed, "manifest.json"), encoding="utf-8"))
        self.assertEqual(m["config"]["full_layers"], [1])
        a, f = arrays(mixed), arrays(full)
        for stack in ("encoder", "decoder"):
            for i in range(3):
                p = f"{stack}.layers.{i}.self_attn."
                self.assertEqual(p + "weights" in a, i == 1, p)
                self.assertEqual(p + "weights.grad" in a, i == 1, p)
                self.assertEqual(p + "weights_overview" in a, i != 1, p)
                self.assertEqual(p + "weights_overview.grad" in a, i != 1, p)
        for step in ("encoder.layers.1.self_attn.weights", "decoder.layers.1.multihead_attn.weights",
                     "encoder.layers.1.self_attn.scores.grad"):
            np.testing.assert_allclose(a[step], f[step], rtol=1e-4, atol=1e-5, err_msg=step)
        rc, text, err = reproduce(mixed)
        self.assertEqual(rc, 0, text[-3000:] + err)
        got = reported(text)
        for step in ("encoder.layers.1.self_attn.weights", "encoder.layers.1.self_attn.scores.grad",
                     "encoder.layers.0.self_attn.weights_overview.grad"):
            self.assertEqual(got.get(step), "ok", step)
        for args, message in ((["--full-layers", "1"], "--full-layers chooses the layers traced in full"),
                              (["--attention", "tiled", "--full-layers", "3"], "--full-layers: 3 "),
                              (["--attention", "tiled", "--full-layers", "1,1"], "layer 1 is listed twice")):
            r = run_attnlab(["export", "--out", self.path("no"), *TEXTS, "--layers", "3", *args], timeout=60)
            self.assertEqual(r.rc, 2, r.describe())
            self.assertIn(message, r.err)
            self.assertFalse(os.path.exists(self.path("no")))

    def test_full_heads_among_tiled_ones(self):
        # --full-heads 0.1,2.0: those heads of tiled layers keep their whole weights (B, 1, Tq, Tk),
        # equal to that head of the full run's, in every attention of the layer; the backward still
        # runs (nothing flows through such a step) and reproduce.py recomputes each from q, k, mask.
        full, mixed = self.path("full"), self.path("mixed")
        model = [*TEXTS, "--memory-text", "le chat noir", "--d-model", "16", "--heads", "4", "--layers", "3",
                 "--loss", "sum"]
        self.export_ok(full, *model)
        self.export_ok(mixed, *model, "--attention", "tiled", "--full-layers", "1", "--full-heads", "0.1,2.0")
        m = json.load(open(os.path.join(mixed, "manifest.json"), encoding="utf-8"))
        self.assertEqual(m["config"]["full_heads"], [[0, 1], [2, 0]])
        a, f = arrays(mixed), arrays(full)
        kept = {(0, 1), (2, 0)}
        blocks = ("encoder.layers.{}.self_attn.", "decoder.layers.{}.self_attn.", "decoder.layers.{}.multihead_attn.")
        for block in blocks:
            for layer in range(3):
                p = block.format(layer)
                for head in range(4):
                    step = f"{p}weights_head_{head}"
                    self.assertEqual(step in a, (layer, head) in kept, step)
                    if (layer, head) in kept:
                        self.assertEqual(a[step].shape, f[p + "weights"][:, head:head + 1].shape, step)
                        np.testing.assert_allclose(a[step], f[p + "weights"][:, head:head + 1], rtol=1e-5,
                                                   atol=1e-6, err_msg=step)
                        self.assertNotIn(step + ".grad", a)
                        self.assertIn(p + "weights_overview", a)  # the layer's other heads stay tiled
        steps = {s["id"]: s for s in m["steps"]}
        s = steps["encoder.layers.0.self_attn.weights_head_1"]
        self.assertIn("q[:, 1:2] @ k[:, 1:2]", s["code"])
        # the overview and the tiled backward are those of a run without --full-heads
        plain = self.path("plain")
        self.export_ok(plain, *model, "--attention", "tiled", "--full-layers", "1")
        b = arrays(plain)
        for step in ("encoder.layers.0.self_attn.weights_overview", "encoder.input.grad", "decoder.layers.2.output"):
            np.testing.assert_array_equal(a[step], b[step], err_msg=step)
        rc, text, err = reproduce(mixed)
        self.assertEqual(rc, 0, text[-3000:] + err)
        got = reported(text)
        for block in blocks:
            for step in (block.format(0) + "weights_head_1", block.format(2) + "weights_head_0"):
                self.assertEqual(got.get(step), "ok", step)
        # --format csv,png: the kept head's map is a heatmap file like a full layer's, named by its head
        pics = self.path("pics")
        self.export_ok(pics, *TEXTS, "--layers", "3", "--heads", "4", "--attention", "tiled", "--full-heads", "2.3",
                       "--format", "npz,csv,png")
        files = sorted(os.listdir(os.path.join(pics, "heatmaps")))
        self.assertEqual(files, ["encoder.layers.2.self_attn.b%d.head3.%s" % (b, e) for b in (0, 1) for e in ("csv", "png")])
        rows = open(os.path.join(pics, "heatmaps", "encoder.layers.2.self_attn.b1.head3.csv"), encoding="utf-8").read().splitlines()
        kept = arrays(pics)["encoder.layers.2.self_attn.weights_head_3"][1, 0]
        self.assertEqual(len(rows), kept.shape[0] + 1)  # a header row of key tokens, then one row per query
        got = np.array([[float(v) for v in r.split(",")[1:]] for r in rows[1:]])
        np.testing.assert_allclose(got, kept, rtol=1e-6, atol=1e-7)
        # a wrong kept head is caught by reproduce.py, naming the step
        rewrite_npz(mixed, "encoder.layers.2.self_attn.weights_head_0", lambda t: t[..., ::-1].copy())
        rc, text, err = reproduce(mixed)
        self.assertNotEqual(rc, 0, text[-3000:])
        self.assertNotEqual(reported(text).get("encoder.layers.2.self_attn.weights_head_0"), "ok")
        for args, message in ((["--full-heads", "0.1"], "--full-heads chooses heads traced cell by cell"),
                              (["--attention", "tiled", "--full-heads", "0.4"], "head 0.4 is not in this model"),
                              (["--attention", "tiled", "--full-heads", "3.0"], "head 3.0 is not in this model"),
                              (["--attention", "tiled", "--full-heads", "1.0,0.2"], "head 0.2 is listed twice or out of order"),
                              (["--attention", "tiled", "--full-heads", "0.1,0.1"], "head 0.1 is listed twice"),
                              (["--attention", "tiled", "--full-layers", "1", "--full-heads", "1.2"],
                               "head 1.2 is in layer 1, which --full-layers traces in full already"),
                              (["--attention", "tiled", "--full-heads", "1"], "'1' is not a head"),
                              (["--attention", "tiled", "--full-heads", "0.-1"], "'0.-1' is not a head"),
                              (["--attention", "tiled", "--full-heads", "0.1,"], "is not a head")):
            r = run_attnlab(["export", "--out", self.path("no"), *TEXTS, "--layers", "3", "--heads", "4", *args],
                            timeout=60)
            self.assertEqual(r.rc, 2, r.describe())
            self.assertIn(message, r.err)
            self.assertFalse(os.path.exists(self.path("no")))

    def test_next_token_on_a_trained_model(self):
        # The shipped English model on its own examples (two or more sentences: [PAD] targets ignored).
        here = os.path.dirname(os.path.abspath(__file__))
        model = os.path.join(here, "..", "..", "sample_inputs", "models", "english-next-word.safetensors")
        out = self.path("nt")
        self.export_ok(out, "--weights", model, "--loss", "next-token")
        m = json.load(open(os.path.join(out, "manifest.json"), encoding="utf-8"))
        self.assertEqual(m["loss"]["kind"], "next-token")
        self.assertEqual(m["loss"]["input"], "encoder.output_head.logits")
        self.assertGreater(m["loss"]["value"], 0)
        grads = [s["id"] for s in m["gradient_steps"]]
        self.assertEqual(grads[0], "encoder.output_head.logits.grad")
        for name in ("grad/embedding.weight", "grad/output_head.weight", "grad/output_head.bias"):
            self.assertIn(name, grads)
        rc, text, err = reproduce(out)
        self.assertEqual(rc, 0, text[-3000:] + err)
        rows = reported(text)
        self.assertEqual(rows.get("grad/embedding.weight"), "ok")
        self.assertIn("loss (next-token)", text)

    def test_per_position_with_the_answers(self):
        # The shipped sorting model: position i's answer is the i-th smallest digit (digit d has id d + 2).
        here = os.path.dirname(os.path.abspath(__file__))
        model = os.path.join(here, "..", "..", "sample_inputs", "models", "sort-digits.safetensors")
        texts = ["--text", "3 1 4 1 5", "--text", "9 0 2"]
        right = self.path("right.npy")
        np.save(right, np.array([[3, 3, 5, 6, 7], [2, 4, 11, 0, -1]], dtype=np.int64))  # [PAD] and -1: none
        wrong = self.path("wrong.npy")
        np.save(wrong, np.array([[7, 6, 5, 3, 3], [11, 4, 2, 0, 0]], dtype=np.int32))
        values = {}
        for name, answers in (("right", right), ("wrong", wrong)):
            out = self.path(name)
            self.export_ok(out, "--weights", model, *texts, "--loss", "per-position", "--target", answers)
            m = json.load(open(os.path.join(out, "manifest.json"), encoding="utf-8"))
            self.assertEqual(m["loss"]["kind"], "per-position")
            self.assertEqual(m["loss"]["input"], "encoder.output_head.logits")
            values[name] = m["loss"]["value"]
            a = arrays(out)
            self.assertEqual(a["loss/target"].shape, (2, 5))
            g = a["encoder.output_head.logits.grad"]
            self.assertTrue(np.all(g[1, 3:] == 0))  # no answer there: exactly no gradient
            rc, text, err = reproduce(out)
            self.assertEqual(rc, 0, text[-3000:] + err)
            self.assertIn("loss (per-position)", text)
            self.assertEqual(reported(text).get("grad/embedding.weight"), "ok")
        self.assertLess(values["right"], 0.01)  # the model sorts: its own answers cost almost nothing
        self.assertGreater(values["wrong"], 5)
        bad = self.path("bad.npy")
        np.save(bad, np.array([[3, 3, 5, 6, 12], [2, 4, 11, 0, 0]], dtype=np.int64))
        short = self.path("short.npy")
        np.save(short, np.array([[3, 3, 5, 6, 7]], dtype=np.int64))
        cases = [
            (["--loss", "per-position"], 2, "the per-position loss needs the answers"),
            (["--loss", "per-position", "--target", bad], 1, "sentence 0, position 4 is 12"),
            (["--loss", "per-position", "--target", short], 1, "the answers' shape (1, 5) differs from the sentences' token ids (2, 5)"),
        ]
        for args, rc, words in cases:
            with self.subTest(args=" ".join(args)):
                out = self.path("out")
                r = run_attnlab(["export", "--out", out, "--weights", model, *texts, *args], timeout=60)
                self.assertEqual(r.rc, rc, r.describe())
                self.assertIn(words, r.err, r.describe())
                self.assertFalse(os.path.exists(out), "a refused export left " + out)

    def test_bad_loss_and_target_are_refused(self):
        target = self.path("t.npy")
        np.save(target, np.zeros((2, 4, 16), dtype=np.float32))
        wrong = self.path("wrong.npy")
        np.save(wrong, np.zeros((1, 4, 16), dtype=np.float32))
        ints = self.path("ints.npy")  # int16: not a dtype a target may have
        np.save(ints, np.zeros((2, 4, 16), dtype=np.int16))
        fifo = self.path("fifo.npy")
        os.mkfifo(fifo)
        cases = [
            (["--loss", "l2"], 2, "unknown loss 'l2'"),
            (["--loss", "mse"], 2, "--loss mse needs --target"),
            (["--target", target], 2, "--target: a target is read only by --loss mse"),
            (["--loss", "sum", "--target", target], 2, "--target: a target is read only by --loss mse"),
            (["--loss", "next-token"], 2, "needs a trained model's output head"),
            (["--loss", "mse", "--target", wrong], 1, "differs from the output's (2, 4, 16)"),
            (["--loss", "mse", "--target", ints], 1, "--target '" + ints + "'"),
            (["--loss", "mse", "--target", fifo], 1, "--target '" + fifo + "'"),
            (["--loss", "mse", "--target", self.path("missing.npy")], 1, "--target"),
        ]
        for args, rc, words in cases:
            with self.subTest(args=" ".join(args)):
                out = self.path("out")
                r = run_attnlab(["export", "--out", out, *TEXTS, "--d-model", "16", "--heads", "4", *args], timeout=60)
                self.assertEqual(r.rc, rc, r.describe())
                self.assertIn(words, r.err, r.describe())
                self.assertEqual(r.err.count("\n"), 1, r.describe())  # one line
                self.assertFalse(os.path.exists(out), "a refused export left " + out)


if __name__ == "__main__":
    lib.main()
