"""The attention variants on the command line (docs/cli.md "Attention variants").

For every variant, over several masks and knobs, an exported bundle must:
- run every variant step's `code` in PyTorch to the recorded tensor (values, shape, strides);
- pass reproduce.py, which recomputes every variant step its own way (dense masks, loops), and
  name a variant step whose value was changed;
- keep the invariants: patterns of 0/1 inside the mask, weights exactly 0 outside the pattern and
  rows summing to 1 (0 for a row that sees nothing), the error step = max |head_out − reference|;
- agree with full attention where it must (window ≥ T, top-k ≥ T, every tiling, the KV cache
  against the causal recompute, linear attention's O(T) and quadratic forms);
- report its counts in the manifest as the formulas say;
and a bad variant option is exit 2 naming it, with no output left behind."""
import json
import math
import os

import numpy as np
import torch
import torch.nn.functional as F

import attnlab_testlib as lib
from attnlab_testlib import compare, run_attnlab, strided_tensor
from test_cli_reproduce import reported, reproduce

torch.set_num_threads(2)

LONG = " ".join("w%d" % (i % 7) for i in range(130))
EN2 = ["--text", "The cat sat on the mat today.", "--text", "Dogs bark."]  # T = 8, the second padded

CASES = {
    "window": ["--variant", "window"],
    "window_causal_noglobal": ["--variant", "window", "--mask", "padding+causal", "--variant-globals", "0",
                               "--variant-window", "1"],
    "bigbird": ["--variant", "bigbird", "--variant-block", "3", "--variant-random", "1", "--layers", "2",
                "--variant-layer", "1"],
    "topk": ["--variant", "topk", "--mask", "none", "--variant-top-k", "2"],
    "linformer": ["--variant", "linformer", "--variant-rank", "3"],
    "linear": ["--variant", "linear"],
    "linear_causal": ["--variant", "linear", "--mask", "padding+causal", "--heads", "2", "--d-model", "16"],
    "relative": ["--variant", "relative", "--variant-max-distance", "2"],
    "alibi": ["--variant", "alibi", "--mask", "causal"],
    "axial": ["--variant", "axial", "--variant-grid-width", "3"],
    "kv_cache": ["--variant", "kv_cache", "--mask", "padding"],
    "kv_cache_causal": ["--variant", "kv_cache", "--mask", "causal", "--norm", "post"],
    "tiled": ["--variant", "tiled", "--variant-tile", "3", "--mask", "padding+causal"],
    "cross_relative": ["--variant", "relative", "--memory-text", "un chien noir", "--memory-text", "oui"],
}
# Variants that must equal full attention (their error ≈ 0).
MUST_AGREE = {
    "window_wide": ["--variant", "window", "--variant-window", "8", "--variant-globals", "0"],
    "topk_all": ["--variant", "topk", "--variant-top-k", "50"],
    "tiled_one": ["--variant", "tiled", "--variant-tile", "1"],
    "tiled_all": ["--variant", "tiled", "--variant-tile", "64", "--mask", "causal"],
    "kv_cache": ["--variant", "kv_cache", "--mask", "padding+causal"],
}


class Bundle:
    def __init__(self, folder):
        self.folder = folder
        with open(os.path.join(folder, "manifest.json"), encoding="utf-8") as f:
            self.m = json.load(f)
        self.steps = {s["id"]: s for s in self.m["steps"]}
        with np.load(os.path.join(folder, "trace.npz")) as z:
            self.npz = {k: z[k] for k in z.files}
        _, w = lib.read_safetensors(os.path.join(folder, "weights.safetensors"))
        self.weights = {k: torch.from_numpy(v) for k, v in w.items()}
        self.prefix = self.m["variant"]["steps"]

    def variant_ids(self):
        return [s["id"] for s in self.m["steps"] if s["id"].startswith(self.prefix)]

    def run_code(self, sid):
        s = self.steps[sid]
        ns = {"torch": torch, "F": F, "math": math}
        for var, vid in s["vars"].items():
            ns[var] = strided_tensor(self.npz[vid], self.steps[vid]["shape"], self.steps[vid]["strides"])
        for var, name in s["weights"].items():
            ns[var] = self.weights[name]
        with torch.no_grad():
            exec(compile(s["code"], "<%s>" % sid, "exec"), ns)
        return ns[s["result"]]


class Variants(lib.TempDirCase):
    bundles = {}

    def bundle(self, name, args):
        out = self.path(name)
        self.export_ok(out, *(args + (EN2 if "--memory-text" not in args else ["--text", "a dog", "--text", "it barks"])))
        return Bundle(out)

    def test_every_variant_step_runs_in_pytorch(self):
        for name, args in CASES.items():
            b = self.bundle(name, args)
            ids = b.variant_ids()
            self.assertGreaterEqual(len(ids), 4, name)
            self.assertIn(b.prefix + "head_out", ids, name)
            self.assertEqual(ids[-1], b.prefix + "error", name)
            for sid in ids:
                s = b.steps[sid]
                if s["kind"] != "op":
                    self.assertTrue(s["code"].startswith("#"), sid)
                    continue
                with self.subTest(case=name, step=sid):
                    res = b.run_code(sid)
                    self.assertEqual(res.dtype, torch.float32)
                    self.assertEqual(list(res.shape), s["shape"])
                    ok, mx, _, first = compare(res.numpy(), b.npz[sid])
                    self.assertTrue(ok, "%s differs from PyTorch by %.3g at %s\n%s" % (sid, mx, first, s["code"]))
                    self.assertEqual(list(res.stride()), s["strides"], "%s strides" % sid)

    def test_reproduce_recomputes_every_variant_step(self):
        for name, args in CASES.items():
            b = self.bundle(name, args)
            rc, out, err = reproduce(b.folder)
            rows = reported(out)
            with self.subTest(case=name):
                self.assertEqual(rc, 0, out[-3000:] + err)
                self.assertEqual(sorted(i for i in b.variant_ids() if i not in rows), [], "not recomputed")
                self.assertTrue(all(rows[i] == "ok" for i in b.variant_ids()))

    def test_reproduce_names_a_changed_variant_step(self):
        b = self.bundle("tampered", CASES["axial"])
        sid = b.prefix + "col_weights"
        b.npz[sid].flat[5] += 0.01
        np.savez(os.path.join(b.folder, "trace.npz"), **b.npz)
        rc, out, _ = reproduce(b.folder)
        self.assertEqual(rc, 1)
        self.assertEqual(reported(out).get(sid), "DIFFERS", out[-2000:])

    def test_invariants(self):
        for name, args in CASES.items():
            b = self.bundle(name, args)
            mask = b.npz["encoder.mask"]  # (B, T, T)
            for sid in b.variant_ids():
                leaf = sid[len(b.prefix):]
                a = b.npz[sid]
                with self.subTest(case=name, step=sid):
                    self.assertTrue(np.isfinite(a).all() or leaf.endswith(".scores") or leaf.endswith(".m"),
                                    "%s holds NaN or ∞" % sid)
                    if leaf.endswith("pattern"):
                        self.assertTrue(np.isin(a, (0.0, 1.0)).all())
                        self.assertTrue((a <= mask[:, None]).all(), "a pattern shows a masked key")
                    if leaf in ("weights", "row_weights", "col_weights"):
                        pat = b.npz[b.prefix + ("pattern" if leaf == "weights" else leaf[:3] + "_pattern")] \
                            if b.prefix + "pattern" in b.npz or leaf != "weights" else mask[:, None]
                        self.assertTrue((a[np.broadcast_to(pat == 0, a.shape)] == 0).all(), "weight outside the pattern")
                        sums = a.astype(np.float64).sum(-1)
                        seen = np.broadcast_to(pat, a.shape).any(-1)
                        self.assertLess(np.abs(sums[seen] - 1).max(), 1e-5)
                        self.assertTrue((sums[~seen] == 0).all())
            ho = b.npz[b.prefix + "head_out"].astype(np.float64)
            ref_id = b.prefix + "reference" if b.prefix + "reference" in b.npz else \
                b.m["variant"]["block"] + ".head_out"
            err = np.abs(ho - b.npz[ref_id]).max(axis=(1, 3)) * np.diagonal(mask, axis1=1, axis2=2)
            np.testing.assert_allclose(b.npz[b.prefix + "error"], err, atol=1e-6)
            self.assertAlmostEqual(b.m["variant"]["max_abs_error"], float(err.max()), delta=1e-6)
            self.assertEqual(b.m["variant"]["counted_queries"], int(np.diagonal(mask, axis1=1, axis2=2).sum()))

    def test_where_variants_must_equal_full_attention(self):
        for name, args in MUST_AGREE.items():
            b = self.bundle(name, args)
            with self.subTest(case=name):
                self.assertLess(float(b.npz[b.prefix + "error"].max()), 1e-5)
                self.assertLess(b.m["variant"]["rel_error"], 1e-5)
        lin = self.bundle("linear", CASES["linear_causal"])
        ok, mx, _, _ = compare(lin.npz[lin.prefix + "quadratic_out"], lin.npz[lin.prefix + "head_out"])
        self.assertTrue(ok, "linear attention's O(T) and quadratic forms differ by %g" % mx)
        self.assertLess(lin.m["variant"]["agreement"], 1e-5)
        # and a real variant does change the result
        win = self.bundle("narrow", ["--variant", "window", "--variant-window", "0", "--variant-globals", "0"])
        self.assertGreater(win.m["variant"]["rel_error"], 0.05)

    def test_counts_follow_the_formulas(self):
        b_, h, d = 2, 8, 64
        t, dh = 8, d // h
        w = 2
        b = self.bundle("count_window", ["--variant", "window", "--mask", "none", "--variant-window", str(w),
                                         "--variant-globals", "0"])
        nnz = t * (2 * w + 1) - w * (w + 1)  # the band, less its two clipped corners
        v = b.m["variant"]
        self.assertEqual(v["flops"]["reference"], 4 * b_ * h * t * t * dh)
        self.assertEqual(v["flops"]["variant"], 4 * b_ * h * nnz * dh)
        self.assertEqual(v["bytes"]["reference"], 4 * b_ * h * t * t)
        self.assertAlmostEqual(v["flops"]["ratio"], nnz / (t * t))
        r = 3
        lf = self.bundle("count_linformer", ["--variant", "linformer", "--variant-rank", str(r)])
        self.assertEqual(lf.m["variant"]["flops"]["variant"], 8 * b_ * h * r * t * dh)
        lin = self.bundle("count_linear", ["--variant", "linear"])
        self.assertEqual(lin.m["variant"]["flops"]["variant"], 4 * b_ * h * t * dh * dh + 3 * b_ * h * t * dh)
        self.assertEqual(lin.m["variant"]["bytes"]["variant"], 4 * b_ * h * (dh * dh + dh))
        kv = self.bundle("count_kv", ["--variant", "kv_cache"])
        tt = t * (t + 1) // 2
        self.assertEqual(kv.m["variant"]["reference"], "decoding without a cache")
        self.assertEqual(kv.m["variant"]["flops"]["variant"], b_ * (6 * d * d * t + 4 * h * dh * tt))
        self.assertEqual(kv.m["variant"]["flops"]["reference"], b_ * (2 * d * d * t + 4 * d * d * tt + 4 * h * dh * tt))
        self.assertEqual(b.m["config"]["variant"], {"kind": "window", "layer": 0, "window": 2, "globals": 0})
        # the kinds whose counts read the recorded patterns, and the dense ones
        full_f, full_b = 4 * b_ * h * t * t * dh, 4 * b_ * h * t * t
        for name, args, want in [
            ("bigbird", ["--variant", "bigbird", "--variant-block", "3"],
             lambda n: (4 * n["pattern"] * dh, 8 * n["pattern"])),
            ("topk", ["--variant", "topk", "--variant-top-k", "3"],
             lambda n: (2 * b_ * h * t * t * dh + b_ * h * t * t + 2 * n["pattern"] * dh, full_b)),
            ("axial", ["--variant", "axial", "--variant-grid-width", "3"],
             lambda n: (4 * (n["row_pattern"] + n["col_pattern"]) * dh, 8 * max(n["row_pattern"], n["col_pattern"]))),
            ("tiled", ["--variant", "tiled", "--variant-tile", "3"],
             lambda n: (full_f + b_ * h * t * (3 - 1) * (dh + 1), 4 * b_ * h * t * (3 + 2))),
            ("relative", ["--variant", "relative", "--variant-max-distance", "2"],
             lambda n: (full_f + b_ * h * t * t, full_b + 4 * h * 5)),
            ("alibi", ["--variant", "alibi"], lambda n: (full_f + b_ * h * t * t, full_b)),
        ]:
            with self.subTest(kind=name):
                bb = self.bundle("count_" + name, args)
                nnz = {k: int((bb.npz[bb.prefix + k] != 0).sum()) for k in ("pattern", "row_pattern", "col_pattern")
                       if bb.prefix + k in bb.npz}
                flops, nbytes = want(nnz)
                self.assertEqual(bb.m["variant"]["flops"]["variant"], flops)
                self.assertEqual(bb.m["variant"]["bytes"]["variant"], nbytes)
                self.assertEqual(bb.m["variant"]["flops"]["reference"], full_f)

    def test_csv_heatmaps_for_the_variant_weights(self):
        out = self.path("csv")
        self.export_ok(out, "--variant", "window", "--format", "npz,csv", *EN2)
        names = os.listdir(os.path.join(out, "heatmaps"))
        self.assertIn("encoder.layers.0.variant.window.b1.head7.csv", names)
        with open(os.path.join(out, "heatmaps", "encoder.layers.0.variant.window.b0.head0.csv"), encoding="utf-8") as f:
            rows = f.read().splitlines()
        self.assertEqual(len(rows), 9)  # the key tokens, then one row per query
        self.assertTrue(rows[1].startswith('"The"'))

    def test_variant_options_with_a_weights_file_are_options(self):
        wdir = self.path("w")
        self.export_ok(wdir, "--text", "a b c", "--d-model", "16", "--heads", "2")
        weights = os.path.join(wdir, "weights.safetensors")
        for args, message in [(["--variant", "window", "--variant-layer", "1"], "--variant-layer: 1 is outside 0 … 0"),
                              (["--variant", "linformer", "--mask", "causal"], "--variant linformer: a causal mask")]:
            with self.subTest(args=args):
                r = run_attnlab(["export", "--out", self.path("x"), "--weights", weights, "--text", "a b"] + args)
                self.assertEqual(r.rc, 2, r.describe())
                self.assertIn("attnlab: error: " + message, r.err)
        out = self.path("ok")
        self.export_ok(out, "--weights", weights, "--text", "a b c", "--variant", "alibi")
        self.assertEqual(Bundle(out).m["variant"]["kind"], "alibi")

    def test_bad_variant_options_are_refused_by_name(self):
        cases = [
            (["--variant", "sparse"], "--variant: 'sparse' is not one of"),
            (["--variant", "window", "--variant-window", "-1"], "--variant-window: -1 is outside 0"),
            (["--variant", "bigbird", "--variant-block", "0"], "--variant-block: 0 is outside 1"),
            (["--variant", "topk", "--variant-top-k", "5000"], "--variant-top-k: 5000 is outside 1"),
            (["--variant", "linformer", "--mask", "causal"], "--variant linformer: a causal mask cannot be kept"),
            (["--variant", "window", "--variant-layer", "1"], "--variant-layer: 1 is outside 0 … 0"),
            (["--variant", "window", "--fault", "no_scaling"], "--variant: cannot run beside --fault"),
            (["--variant", "window", "--variant-top-k", "0"], "--variant-top-k: 0 is outside 1"),  # not window's knob
            (["--variant-window", "-5"], "--variant-window: -5 is outside 0"),  # no variant at all
            (["--variant", "kv_cache", "--text", LONG], "--variant kv_cache: the walk-through records 4 steps per token, "
                                                         "and 130 tokens would make 523 of them; use at most 128 tokens"),
            (["--variant", "tiled", "--variant-tile", "1", "--text", LONG],
             "--variant-tile: 130 tokens in blocks of 1 keys make 130 rounds of the walk-through; raise it to at least 2"),
        ]
        for args, message in cases:
            with self.subTest(args=args):
                out = self.path("refused")
                r = run_attnlab(["export", "--out", out] + args)
                self.assertEqual(r.rc, 2, r.describe())
                self.assertIn("attnlab: error: " + message, r.err)
                self.assertFalse(os.path.exists(out))


if __name__ == "__main__":
    lib.main()
