"""The trained sample models on the command line (docs/cli.md "Trained models"): each exports like
any weights file, its own examples by default; the manifest records its predictions (top 5 per
position) and the words it does not know; reproduce.py rebuilds it in PyTorch — vocabulary,
embedding table, layers and output head — and agrees, predictions included, and catches a changed
prediction; a conflicting --mask and lying vocabularies are refused by name."""
import glob
import json
import os

import attnlab_testlib as lib
from attnlab_testlib import run_attnlab
from test_cli_reproduce import reported, reproduce, step_ids

MODELS = sorted(glob.glob(os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "..",
                                       "sample_inputs", "models", "*.safetensors")))


def manifest(folder):
    with open(os.path.join(folder, "manifest.json"), encoding="utf-8") as f:
        return json.load(f)


class Models(lib.TempDirCase):
    def test_three_models_are_shipped(self):
        self.assertGreaterEqual(len(MODELS), 3)

    def test_every_model_exports_and_reproduces(self):
        for path in MODELS:
            with self.subTest(model=os.path.basename(path)):
                meta, _ = lib.read_safetensors(path)
                examples = json.loads(meta["examples"])
                out = self.path(os.path.basename(path) + ".bundle")
                self.export_ok(out, "--weights", path)
                m = manifest(out)
                self.assertEqual(len(m["tokens"]), len(examples))  # its own examples by default
                self.assertEqual(m["config"]["mask"], meta["mask"])
                model = m["model"]
                self.assertEqual(model["task"], meta["task"])
                self.assertEqual(model["vocab_size"], len(json.loads(meta["vocab"])))
                self.assertEqual(len(model["predictions"]), len(examples))
                for row, preds in zip(m["tokens"], model["predictions"]):
                    self.assertEqual(len(preds), sum(t != "[PAD]" for t in row))  # real positions only
                    for top in preds:
                        probs = [p["prob"] for p in top]
                        self.assertEqual(len(top), 5)
                        self.assertEqual(probs, sorted(probs, reverse=True))
                rc, text, err = reproduce(out)
                self.assertEqual(rc, 0, text + err)
                rows = reported(text)
                self.assertEqual(set(rows), step_ids(out))  # ids and table recomputed too
                self.assertIn("manifest: model.predictions", text)

    def test_the_sort_model_sorts_and_marks_unknown_words(self):
        path = [p for p in MODELS if p.endswith("sort-digits.safetensors")][0]
        out = self.path("sort")
        self.export_ok(out, "--weights", path, "--text", "7 2 9 2 0 5", "--text", "4 x 1")
        m = manifest(out)
        answer = [top[0]["token"] for top in m["model"]["predictions"][0]]
        self.assertEqual(answer, sorted("7 2 9 2 0 5".split()))
        self.assertEqual(m["model"]["unknown_positions"], [[], [1]])

    def test_a_changed_prediction_is_caught(self):
        out = self.path("changed")
        self.export_ok(out, "--weights", MODELS[0])
        m = manifest(out)
        m["model"]["predictions"][0][0][1]["prob"] += 0.01
        with open(os.path.join(out, "manifest.json"), "w", encoding="utf-8") as f:
            json.dump(m, f)
        rc, text, err = reproduce(out)
        self.assertEqual(rc, 1, text + err)
        self.assertIn("manifest predictions: largest difference", text)

    def test_a_conflicting_mask_is_refused(self):
        r = run_attnlab(["export", "--out", self.path("m"), "--weights", MODELS[0], "--mask", "none"])
        self.assertEqual(r.rc, 2, r.describe())
        self.assertIn("--mask: none conflicts with", r.err)
        self.assertFalse(os.path.exists(self.path("m")))

    def test_lying_vocabularies_are_refused_by_name(self):
        meta, tensors = lib.read_safetensors(MODELS[0])
        vocab = json.loads(meta["vocab"])
        cases = {
            "not JSON": (dict(meta, vocab="[\"[PAD]\""), tensors, "metadata 'vocab' is not valid JSON"),
            "no [UNK]": (dict(meta, vocab=json.dumps(["[PAD]"] + vocab[2:] + ["z"])), tensors, "does not start with"),
            "one word short": (dict(meta, vocab=json.dumps(vocab[:-1])), tensors, "'embedding.weight' has shape"),
            "no vocabulary": ({k: v for k, v in meta.items() if k != "vocab"}, tensors,
                              "metadata 'vocab' (its vocabulary) is missing"),
            "no head": (meta, {k: v for k, v in tensors.items() if not k.startswith("output_head.")},
                        "'output_head.weight' is missing"),
        }
        for name, (m, t, message) in cases.items():
            with self.subTest(case=name):
                path = self.path(name.replace(" ", "_") + ".safetensors")
                lib.write_safetensors(path, t, metadata=m)
                r = run_attnlab(["export", "--out", self.path("o"), "--weights", path])
                self.assertEqual(r.rc, 1, r.describe())
                self.assertTrue(r.err.startswith("attnlab: error: ") and path in r.err, r.err)
                self.assertIn(message, r.err)
                self.assertFalse(os.path.exists(self.path("o")))


if __name__ == "__main__":
    lib.main()
