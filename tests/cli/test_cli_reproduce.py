"""Every bundle carries reproduce.py: run as a user would (Debian's python3, from any folder),
it rebuilds the layers with PyTorch's nn.TransformerEncoderLayer / nn.TransformerDecoderLayer
from the bundle's own weights, recomputes every step and agrees within the spec's tolerance —
over several configurations, weights loaded from a file and layers saved from PyTorch itself;
and it does fail, naming the step, when a tensor of the bundle is wrong."""
import io
import os
import subprocess
import sys
import zipfile

import numpy as np
import torch

import attnlab_testlib as lib
from attnlab_testlib import run_attnlab

from attnlab_testlib import PYTHON, reported, reproduce


def step_ids(folder):
    with np.load(os.path.join(folder, "trace.npz")) as z:
        return set(z.files)


class Reproduce(lib.TempDirCase):
    CONFIGS = [
        ["--d-model", "32", "--heads", "4", "--mask", "padding"],
        ["--d-model", "24", "--heads", "3", "--layers", "2", "--norm", "post", "--activation", "gelu",
         "--mask", "padding+causal", "--positional", "none"],
        ["--d-model", "16", "--heads", "1", "--mask", "causal", "--seed", "9"],
        ["--d-model", "16", "--heads", "2", "--layers", "2", "--memory-text", "le chat noir", "--mask", "padding+causal"],
    ]

    def test_every_configuration(self):
        for i, args in enumerate(self.CONFIGS):
            with self.subTest(args=" ".join(args)):
                out = self.path(f"b{i}")
                self.export_ok(out, "--text", "the black cat sat", "--text", "猫坐着", *args)
                self.assertTrue(os.access(os.path.join(out, "reproduce.py"), os.X_OK))
                rc, text, err = reproduce(out)
                self.assertEqual(rc, 0, text + err)
                rows = reported(text)
                inputs = {"encoder.embedding_table", "encoder.token_ids", "decoder.token_ids"}
                self.assertEqual(set(rows), step_ids(out) - inputs)  # every computed step
                self.assertTrue(all(v == "ok" for v in rows.values()))
                self.assertIn("Every recomputed step agrees", text)

    def test_runs_from_its_own_folder(self):
        out = self.path("here")
        self.export_ok(out, "--d-model", "16", "--heads", "2")
        rc, text, err = reproduce(out, cwd=out)  # no argument: the script's folder
        self.assertEqual(rc, 0, text + err)

    def test_weights_from_a_file_and_from_pytorch(self):
        # Layers made and initialised by PyTorch, saved in the spec's layout, loaded with --weights.
        torch.manual_seed(3)
        kw = dict(d_model=16, nhead=4, dim_feedforward=32, dropout=0.0, batch_first=True)
        layers = [torch.nn.TransformerEncoderLayer(**kw) for _ in range(2)]
        tensors = {f"encoder.layers.{i}.{k}": v.detach().numpy() for i, l in enumerate(layers)
                   for k, v in l.state_dict().items()}
        path = self.path("torch.safetensors")
        lib.write_safetensors(path, tensors, metadata={
            "format": "attnlab-weights/1", "d_model": "16", "heads": "4", "d_ff": "32", "layers": "2",
            "norm": "post", "activation": "relu", "eps": "1e-05", "positional": "sinusoidal", "seed": "0"})
        out = self.path("from-torch")
        self.export_ok(out, "--weights", path, "--text", "a trained layer")
        rc, text, err = reproduce(out)
        self.assertEqual(rc, 0, text + err)
        again = self.path("again")  # a bundle's own weights file, loaded back
        self.export_ok(again, "--weights", os.path.join(out, "weights.safetensors"), "--text", "a trained layer")
        rc, text, err = reproduce(again)
        self.assertEqual(rc, 0, text + err)

    def test_the_documented_recipe(self):
        """docs/recipes/torch_to_attnlab.py saves an nn.TransformerEncoder; attnlab computes with it
        exactly what the encoder itself computes on the same input (the bundle's encoder.input)."""
        recipe = os.path.join(os.path.dirname(__file__), "..", "..", "docs", "recipes")
        path = self.path("encoder.safetensors")
        proc = subprocess.run([PYTHON, os.path.join(recipe, "torch_to_attnlab.py"), path], stdout=subprocess.PIPE,
                              stderr=subprocess.PIPE, timeout=300)
        self.assertEqual(proc.returncode, 0, proc.stderr.decode())
        out = self.path("recipe")
        self.export_ok(out, "--weights", path, "--text", "trained in PyTorch", "--text", "short", "--mask", "padding")
        sys.path.insert(0, recipe)
        import torch_to_attnlab
        encoder = torch_to_attnlab.demo_encoder()
        encoder.train()  # dropout 0: train mode keeps PyTorch off its fused path
        with np.load(os.path.join(out, "trace.npz")) as z:
            x = torch.from_numpy(z["encoder.input"])
            pad = torch.from_numpy(z["encoder.token_ids"]) == 0
            ours = z["encoder.norm"]  # the encoder's final norm, after the last layer
        with torch.no_grad():
            theirs = encoder(x, src_key_padding_mask=pad).numpy()
        np.testing.assert_allclose(ours, theirs, atol=1e-5, rtol=1e-4)
        rc, text, err = reproduce(out)
        self.assertEqual(rc, 0, text + err)
        self.assertEqual(reported(text).get("encoder.norm"), "ok")

    def test_a_wrong_tensor_is_named(self):
        out = self.path("bad")
        self.export_ok(out, "--d-model", "16", "--heads", "2")
        npz = os.path.join(out, "trace.npz")
        with np.load(npz) as z:
            arrays = {k: z[k] for k in z.files}
        arrays["encoder.layers.0.self_attn.scores"] = arrays["encoder.layers.0.self_attn.scores"].copy()
        arrays["encoder.layers.0.self_attn.scores"].flat[5] += 0.01
        np.savez(npz, **arrays)
        rc, text, err = reproduce(out)
        self.assertEqual(rc, 1, text + err)
        rows = reported(text)
        self.assertEqual(rows["encoder.layers.0.self_attn.scores"], "DIFFERS")
        self.assertEqual(rows["encoder.layers.0.self_attn.qk"], "ok")  # the others still agree
        self.assertIn("1 steps differ", text)

    def test_planted_faults_are_explained(self):
        out = self.path("fault")
        self.export_ok(out, "--d-model", "16", "--heads", "2", "--fault", "no_scaling")
        rc, text, err = reproduce(out)
        self.assertEqual(rc, 1, text + err)
        self.assertIn("planted faults (no_scaling)", text)
        self.assertEqual(reported(text)["encoder.layers.0.self_attn.scores"], "DIFFERS")


if __name__ == "__main__":
    lib.main()
