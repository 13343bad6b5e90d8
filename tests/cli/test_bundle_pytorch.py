#!/usr/bin/python3
"""attnlab export bundles checked with NumPy and PyTorch (Debian's python3-torch, 1.13).

usage: test_bundle_pytorch.py /path/to/attnlab [-v] [TestClass[.test_name] ...]   (or env ATTNLAB_BIN)

For a spread of configurations it exports a bundle and checks:
- trace.npz: loads, every array `<f4`, C order, the manifest's shape, one array per step;
- manifest.json: every contract field (and the project's "result"/"vars"/"weights"/"kind");
- every step id the contract requires, with its shape;
- masks as the options say, masked weights exactly 0, softmax rows summing to 1;
- every "op" step's `code` run with torch/F/math, its variables bound to the npz tensors (laid out
  with their recorded strides) and its weights to weights.safetensors: the result must match the
  step's tensor (|a-b| <= 1e-5 + 1e-4|b|, infinities equal) and its strides and contiguity;
- the layers against nn.TransformerEncoderLayer / nn.TransformerDecoderLayer (train mode,
  dropout 0) loaded from weights.safetensors;
- csv heatmaps: one per attention block, sentence and head, tokens on both axes, values = weights.
"""

import csv
import io
import json
import math
import os
import re
import shutil
import sys
import tempfile
import unittest
import zipfile

import numpy as np
import torch
import torch.nn.functional as F
import torch.nn as nn

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import attnlab_testlib as lib  # noqa: E402
from attnlab_testlib import compare, run_attnlab, strided_tensor  # noqa: E402

torch.set_num_threads(2)

PAD = "[PAD]"

EN2 = ["--text", "The cat sat on the mat.", "--text", "Dogs bark."]

# name → (extra args, expected tokens or None)
CONFIGS = {
    "pre_relu_padding": (EN2, [["The", "cat", "sat", "on", "the", "mat", "."],
                               ["Dogs", "bark", ".", PAD, PAD, PAD, PAD]]),
    "post_gelu_causal": (EN2 + ["--norm", "post", "--activation", "gelu", "--mask", "causal"], None),
    "mask_none": (EN2 + ["--mask", "none"], None),
    "mask_padding_causal": (EN2 + ["--mask", "padding+causal", "--norm", "post"], None),
    "heads1": (EN2 + ["--d-model", "16", "--heads", "1"], None),
    "positional_none": (EN2 + ["--positional", "none", "--activation", "gelu"], None),
    "learned_positions": (EN2 + ["--positional", "learned", "--max-positions", "9", "--activation", "gelu_tanh",
                                 "--mask", "causal", "--d-model", "16", "--heads", "2"], None),
    "final_norm": (EN2 + ["--final-norm", "--layers", "2", "--d-model", "16", "--heads", "4"], None),
    "final_norm_cross_post": (["--text", "a small dog", "--memory-text", "le petit chien", "--final-norm",
                               "--norm", "post", "--d-model", "16", "--heads", "2"], None),
    "learned_positions_cross": (["--text", "a small dog", "--memory-text", "le petit chien aboie",
                                 "--positional", "learned", "--d-model", "16", "--heads", "4"], None),
    "gelu_tanh_layers2": (EN2 + ["--activation", "gelu_tanh", "--layers", "2", "--d-model", "16", "--heads", "2"], None),
    "layers2": (EN2 + ["--layers", "2", "--d-model", "32", "--heads", "4", "--d-ff", "48", "--seed", "7",
                       "--eps", "1e-6"], None),
    "chinese": (["--text", "小猫坐在垫子上，因为它累了。", "--text", "Don't panic: 3.14!"],
                [["小", "猫", "坐", "在", "垫", "子", "上", "，", "因", "为", "它", "累", "了", "。"],
                 ["Don", "'", "t", "panic", ":", "3", ".", "14", "!", PAD, PAD, PAD, PAD, PAD]]),
    "single_token": (["--text", "hello", "--d-model", "32", "--heads", "4"], [["hello"]]),
    "builtin_sample": ([], None),
    "cross_pre": (["--text", "a small dog barks", "--text", "hello",
                   "--memory-text", "un petit chien aboie fort", "--memory-text", "bonjour"], None),
    "cross_post_gelu_2layers": (["--text", "a small dog", "--text", "it barks loudly today",
                                 "--memory-text", "le chien aboie", "--norm", "post", "--activation", "gelu",
                                 "--mask", "padding", "--layers", "2", "--d-model", "32", "--heads", "2"], None),
    "cross_mask_none": (["--text", "one two three", "--memory-text", "uno dos", "--mask", "none",
                         "--heads", "4"], None),
    "cross_mask_causal_heads1": (["--text", "one two three", "--text", "four",
                                  "--memory-text", "uno dos tres cuatro", "--memory-text", "cinco",
                                  "--mask", "causal", "--heads", "1", "--d-model", "16", "--positional", "none"], None),
    "csv": (["--format", "npz,csv", "--text", 'He said "hi", ok.', "--text", "x"],
            [["He", "said", '"', "hi", '"', ",", "ok", "."], ["x", PAD, PAD, PAD, PAD, PAD, PAD, PAD]]),
    "csv_cross": (["--format", "csv,npz", "--text", "a b c", "--text", "d", "--memory-text", "p, q",
                   "--memory-text", "r s t u", "--heads", "2", "--d-model", "16"], None),
}
CSV_ONLY = ("csv_only", "csv")  # same input as "csv", --format csv only

DEFAULTS = {"d_model": 64, "heads": 8, "d_ff": None, "layers": 1, "mask": None, "norm": "pre",
            "activation": "relu", "positional": "sinusoidal", "eps": 1e-5, "seed": 0}


def expected_config(args):
    cfg = dict(DEFAULTS)
    cross = "--memory-text" in args
    for i, a in enumerate(args):
        if a.startswith("--") and a[2:].replace("-", "_") in cfg:
            key = a[2:].replace("-", "_")
            v = args[i + 1]
            cfg[key] = float(v) if key == "eps" else int(v) if isinstance(DEFAULTS[key], int) or key == "d_ff" else v
    if cfg["d_ff"] is None:
        cfg["d_ff"] = 4 * cfg["d_model"]
    if cfg["mask"] is None:
        cfg["mask"] = "padding+causal" if cross else "padding"
    return cfg, cross


# --------------------------------------------------------------------------- worst errors

WORST = {"ratio": 0.0, "abs": 0.0, "where": "-", "ref_ratio": 0.0, "ref_abs": 0.0, "ref_where": "-"}
STRIDE_MISMATCHES = []


def note(kind, mx, mr, where):
    if kind == "code":
        if mr > WORST["ratio"]:
            WORST["ratio"], WORST["where"] = mr, where
        WORST["abs"] = max(WORST["abs"], mx)
    else:
        if mr > WORST["ref_ratio"]:
            WORST["ref_ratio"], WORST["ref_where"] = mr, where
        WORST["ref_abs"] = max(WORST["ref_abs"], mx)


def epilogue():
    print("worst step-code error: max |a-b| = %.3g, worst |a-b|/(1e-5+1e-4|b|) = %.3g (at %s)"
          % (WORST["abs"], WORST["ratio"], WORST["where"]))
    print("worst nn.Transformer*Layer reference error: max |a-b| = %.3g, worst ratio = %.3g (at %s)"
          % (WORST["ref_abs"], WORST["ref_ratio"], WORST["ref_where"]))
    if STRIDE_MISMATCHES:
        print("stride/contiguity mismatches (%d):" % len(STRIDE_MISMATCHES))
        for m in STRIDE_MISMATCHES[:40]:
            print("  " + m)


# --------------------------------------------------------------------------- helpers

def torch_contiguous(shape, strides):
    """PyTorch's is_contiguous rule: size-1 dimensions do not matter; empty tensors are contiguous."""
    if any(s == 0 for s in shape):
        return True
    expected = 1
    for size, st in zip(reversed(shape), reversed(strides)):
        if size == 1:
            continue
        if st != expected:
            return False
        expected *= size
    return True


def expected_mask(kind, q_lens, k_lens, tq, tk):
    """(B, tq, tk) of 1/0 for a mask kind, with per-sentence true lengths."""
    b = len(q_lens)
    m = np.ones((b, tq, tk), np.float32)
    for n in range(b):
        if "padding" in kind:
            m[n, :, k_lens[n]:] = 0
        if "causal" in kind:
            m[n] *= np.tril(np.ones((tq, tk), np.float32))
    return m


def true_len(row):
    return sum(1 for t in row if t != PAD)


# --------------------------------------------------------------------------- the tests

class BundleCase(unittest.TestCase):
    CONFIG = None  # set by the generated subclasses
    bundles = {}
    tmp = None

    @classmethod
    def setUpClass(cls):
        if BundleCase.tmp is None:
            BundleCase.tmp = tempfile.mkdtemp(prefix="attnlab-bundle-")
        name = cls.CONFIG
        if name is None or name in BundleCase.bundles:
            return
        args = CONFIGS[name][0]
        out = os.path.join(BundleCase.tmp, name)
        r = run_attnlab(["export", "--out", out] + args)
        BundleCase.bundles[name] = (out, r)

    def setUp(self):
        out, r = BundleCase.bundles[self.CONFIG]
        self.assertEqual(r.rc, 0, "export failed:\n" + r.describe())
        self.assertEqual(r.out, "", "export printed on stdout:\n" + r.describe())
        self.out = out
        self.args = CONFIGS[self.CONFIG][0]
        self.exp_tokens = CONFIGS[self.CONFIG][1]
        self.cfg_expected, self.cross = expected_config(self.args)
        self.fmt = "npz"
        if "--format" in self.args:
            self.fmt = self.args[self.args.index("--format") + 1]
        with open(os.path.join(out, "manifest.json"), encoding="utf-8") as f:
            self.m = json.load(f)
        self.steps = {s["id"]: s for s in self.m["steps"]}
        self.npz = {}
        if "npz" in self.fmt.split(","):
            with np.load(os.path.join(out, "trace.npz")) as z:
                self.npz = {k: z[k] for k in z.files}
        self.meta, self.weights = lib.read_safetensors(os.path.join(out, "weights.safetensors"))

    def where(self, sid=""):
        return "%s:%s" % (self.CONFIG, sid)

    # -- trace.npz
    def test_npz_arrays(self):
        path = os.path.join(self.out, "trace.npz")
        with zipfile.ZipFile(path) as z:
            members = z.namelist()
            self.assertEqual(sorted(members), sorted(k + ".npy" for k in self.steps),
                             "trace.npz must hold exactly one array per step")
            for name in members:
                with z.open(name) as f:
                    version = np.lib.format.read_magic(f)
                    shape, fortran, dtype = np.lib.format._read_array_header(f, version)
                sid = name[:-4]
                with self.subTest(array=sid):
                    self.assertEqual(dtype.str, "<f4", "%s: dtype %s" % (sid, dtype.str))
                    self.assertFalse(fortran, "%s: Fortran order" % sid)
                    self.assertEqual(list(shape), self.steps[sid]["shape"], "%s: shape" % sid)
        with np.load(path) as z:
            for k in z.files:
                a = z[k]
                self.assertEqual(a.dtype, np.dtype("<f4"), k)
                self.assertTrue(a.flags.c_contiguous, k)

    # -- manifest.json
    def test_manifest_fields(self):
        m = self.m
        self.assertEqual(m.get("format"), "attnlab-trace")
        self.assertEqual(m.get("version"), 1)
        self.assertIsInstance(m.get("version"), int)
        cfg = m.get("config")
        self.assertIsInstance(cfg, dict)
        for k, v in self.cfg_expected.items():
            with self.subTest(config=k):
                self.assertIn(k, cfg, "config lacks %r" % k)
                if k in ("mask", "norm", "activation", "positional"):
                    self.assertIsInstance(cfg[k], str, k)
                else:
                    self.assertIsInstance(cfg[k], (int, float), k)
                    self.assertNotIsInstance(cfg[k], bool, k)
                if k == "eps":
                    self.assertAlmostEqual(cfg[k], v, delta=abs(v) * 1e-9)
                else:
                    self.assertEqual(cfg[k], v, "config %s" % k)
        toks = m.get("tokens")
        self.assertIsInstance(toks, list)
        self.assertTrue(len(toks) >= 1)
        for row in toks:
            self.assertIsInstance(row, list)
            self.assertEqual(len(row), len(toks[0]), "sentences must be padded to one length")
            n = true_len(row)
            self.assertGreater(n, 0)
            self.assertEqual(row[n:], [PAD] * (len(row) - n), "[PAD] only on the right")
            for t in row:
                self.assertIsInstance(t, str)
        self.assertTrue(any(true_len(r) == len(r) for r in toks), "the longest sentence has no padding")
        if self.exp_tokens is not None:
            self.assertEqual(toks, self.exp_tokens)
        if self.cross:
            mt = m.get("memory_tokens")
            self.assertIsInstance(mt, list, "memory_tokens missing in cross-attention mode")
            self.assertEqual(len(mt), len(toks))
            for row in mt:
                self.assertEqual(len(row), len(mt[0]))
                n = true_len(row)
                self.assertEqual(row[n:], [PAD] * (len(row) - n))
        else:
            self.assertNotIn("memory_tokens", m, "memory_tokens must be absent without --memory-text")
        self.assertIn(m.get("backend"), ["cpu", "vulkan"])
        self.assertIsInstance(m.get("device"), str)
        self.assertTrue(m["device"].strip())
        tm = m.get("timings_ms")
        self.assertIsInstance(tm, dict)
        for k in ["forward", "export"]:
            self.assertIn(k, tm)
            self.assertIsInstance(tm[k], (int, float))
            self.assertGreaterEqual(tm[k], 0)
        self.assertIsInstance(m.get("steps"), list)
        self.assertEqual(len(self.steps), len(m["steps"]), "step ids must be unique")
        seen = set()
        for s in m["steps"]:
            sid = s.get("id")
            with self.subTest(step=sid):
                for k, typ in [("id", str), ("title", str), ("formula", str), ("code", str), ("inputs", list),
                               ("shape", list), ("strides", list), ("contiguous", bool), ("result", str),
                               ("vars", dict), ("weights", dict), ("kind", str)]:
                    self.assertIn(k, s, "step %s lacks %r" % (sid, k))
                    self.assertIsInstance(s[k], typ, "step %s field %r" % (sid, k))
                self.assertTrue(s["title"].strip(), "empty title")
                self.assertTrue(s["code"].strip(), "empty code")
                self.assertIn(s["kind"], ["op", "data"])
                self.assertEqual(len(s["shape"]), len(s["strides"]))
                for d in s["shape"] + s["strides"]:
                    self.assertIsInstance(d, int)
                self.assertEqual(s["contiguous"], torch_contiguous(s["shape"], s["strides"]),
                                 "contiguous flag disagrees with PyTorch's rule for strides %r" % s["strides"])
                self.assertEqual(sorted(set(s["inputs"])), sorted(set(s["vars"].values())),
                                 "inputs must be the ids the code reads")
                for i in s["inputs"]:
                    self.assertIn(i, seen, "input %s is not an earlier step" % i)
                for wname in s["weights"].values():
                    self.assertIn(wname, self.weights, "weight %s not in weights.safetensors" % wname)
                if s["kind"] == "data":
                    self.assertTrue(all(l.strip().startswith("#") for l in s["code"].splitlines() if l.strip()))
                if self.npz:
                    self.assertIn(sid, self.npz)
                    self.assertEqual(list(self.npz[sid].shape), s["shape"])
            seen.add(sid)
        vocab = m.get("vocabulary")
        self.assertIsInstance(vocab, list)
        self.assertEqual(vocab[0], PAD)
        if "encoder.token_ids" in self.npz:
            enc_tok = m["memory_tokens"] if self.cross else toks
            ids = self.npz["encoder.token_ids"]
            self.assertEqual([[vocab[int(i)] for i in row] for row in ids], enc_tok)
            if self.cross:
                ids = self.npz["decoder.token_ids"]
                self.assertEqual([[vocab[int(i)] for i in row] for row in ids], toks)

    def required_ids(self):
        c = self.m["config"]
        toks = self.m["tokens"]
        B, D, H, Fd = len(toks), c["d_model"], c["heads"], c["d_ff"]
        Dh = D // H
        if self.cross:
            S, T = len(self.m["memory_tokens"][0]), len(toks[0])
        else:
            S, T = len(toks[0]), None
        req = {"encoder.input": [B, S, D], "encoder.mask": [B, S, S]}

        def attn(p, tq, tk):
            return {p + "q": [B, H, tq, Dh], p + "k": [B, H, tk, Dh], p + "v": [B, H, tk, Dh],
                    p + "scores": [B, H, tq, tk], p + "weights": [B, H, tq, tk],
                    p + "context": [B, tq, D], p + "out": [B, tq, D]}
        for i in range(c["layers"]):
            p = "encoder.layers.%d." % i
            req.update(attn(p + "self_attn.", S, S))
            req[p + "ffn.hidden"] = [B, S, Fd]
            req[p + "output"] = [B, S, D]
        if self.cross:
            req.update({"decoder.input": [B, T, D], "decoder.self_mask": [B, T, T], "decoder.cross_mask": [B, T, S]})
            for i in range(c["layers"]):
                p = "decoder.layers.%d." % i
                req.update(attn(p + "self_attn.", T, T))
                req.update(attn(p + "multihead_attn.", T, S))
                req[p + "ffn.hidden"] = [B, T, Fd]
                req[p + "output"] = [B, T, D]
        return req

    def test_required_ids(self):
        for sid, shape in self.required_ids().items():
            with self.subTest(id=sid):
                self.assertIn(sid, self.steps, "required step %s is missing" % sid)
                self.assertEqual(self.steps[sid]["shape"], shape, sid)
        if not self.cross:
            self.assertFalse([s for s in self.steps if s.startswith("decoder.")])
        if self.cfg_expected["positional"] == "none":
            self.assertNotIn("encoder.positional", self.steps)

    # -- masks and softmax
    def test_masks_and_weights(self):
        if not self.npz:  # a format without npz: there must be none, and no values to check here
            self.assertFalse(os.path.exists(os.path.join(self.out, "trace.npz")))
            return
        toks = self.m["tokens"]
        kind = self.cfg_expected["mask"]
        if self.cross:
            mem = self.m["memory_tokens"]
            ml, tl = [true_len(r) for r in mem], [true_len(r) for r in toks]
            S, T = len(mem[0]), len(toks[0])
            masks = {"encoder.mask": expected_mask("padding", ml, ml, S, S),
                     "decoder.self_mask": expected_mask(kind, tl, tl, T, T),
                     "decoder.cross_mask": expected_mask("padding", tl, ml, T, S)}
        else:
            tl = [true_len(r) for r in toks]
            S = len(toks[0])
            masks = {"encoder.mask": expected_mask(kind, tl, tl, S, S)}
        for mid, exp in masks.items():
            with self.subTest(mask=mid):
                self.assertTrue(np.array_equal(self.npz[mid], exp), "%s differs from the %s rule:\n%s\nvs\n%s" % (
                    mid, kind, self.npz[mid], exp))
        for sid, s in self.steps.items():
            if not sid.endswith(".weights"):
                continue
            mid = self.steps[sid.replace(".weights", ".masked_scores")]["vars"].get("mask") \
                if sid.replace(".weights", ".masked_scores") in self.steps else None
            with self.subTest(weights=sid):
                w = self.npz[sid]
                self.assertTrue(np.isfinite(w).all(), "%s holds non-finite values" % sid)
                self.assertTrue((w >= 0).all())
                sums = w.astype(np.float64).sum(-1)
                self.assertLess(float(np.abs(sums - 1).max()), 1e-5, "%s rows do not sum to 1" % sid)
                self.assertIsNotNone(mid, "cannot tell which mask %s uses" % sid)
                mk = self.npz[mid][:, None, :, :]
                zero = np.broadcast_to(mk == 0, w.shape)
                self.assertTrue((w[zero] == 0).all(), "%s: masked weights are not exactly 0 (max %g)" % (
                    sid, float(np.abs(w[zero]).max()) if zero.any() else 0.0))
                ms = self.npz[sid.replace(".weights", ".masked_scores")]
                self.assertTrue(np.all(np.isneginf(ms[zero])), "masked scores must be -inf")

    # -- every op step's code
    def test_step_code(self):
        if not self.npz:  # a format without npz: there must be none, and no values to check here
            self.assertFalse(os.path.exists(os.path.join(self.out, "trace.npz")))
            return
        torch_w = {k: torch.from_numpy(v) for k, v in self.weights.items()}
        for s in self.m["steps"]:
            if s["kind"] != "op":
                continue
            sid = s["id"]
            with self.subTest(step=sid):
                ns = {"torch": torch, "F": F, "math": math}
                for var, vid in s["vars"].items():
                    src = self.steps[vid]
                    ns[var] = strided_tensor(self.npz[vid], src["shape"], src["strides"])
                for var, wname in s["weights"].items():
                    ns[var] = torch_w[wname]
                try:
                    with torch.no_grad():
                        exec(compile(s["code"], "<%s>" % sid, "exec"), ns)
                except Exception as e:  # noqa: BLE001
                    self.fail("%s: code raised %s: %s\ncode:\n%s" % (sid, type(e).__name__, e, s["code"]))
                self.assertIn(s["result"], ns, "%s: code does not assign %r" % (sid, s["result"]))
                res = ns[s["result"]]
                self.assertIsInstance(res, torch.Tensor)
                self.assertEqual(res.dtype, torch.float32, "%s: result dtype %s" % (sid, res.dtype))
                self.assertEqual(list(res.shape), s["shape"], "%s: result shape" % sid)
                ok, mx, mr, first = compare(res.numpy(), self.npz[sid])
                note("code", mx, mr, self.where(sid))
                if not ok:
                    self.fail("%s: values differ: max |a-b| %.3g, ratio %.3g, first at %s (torch %r, attnlab %r)"
                              "\ncode:\n%s" % (sid, mx, mr, first, float(res.numpy()[first]) if first else None,
                                               float(self.npz[sid][first]) if first else None, s["code"]))
                pt_strides, pt_contig = list(res.stride()), res.is_contiguous()
                if pt_strides != s["strides"] or pt_contig != s["contiguous"]:
                    only_size1 = pt_contig == s["contiguous"] and all(
                        a == b or n == 1 for a, b, n in zip(pt_strides, s["strides"], s["shape"]))
                    msg = "%s: strides %r contiguous %s recorded, PyTorch gives %r contiguous %s for shape %r%s" % (
                        self.where(sid), s["strides"], s["contiguous"], pt_strides, pt_contig, s["shape"],
                        " (differs only in size-1 dimensions)" if only_size1 else "")
                    STRIDE_MISMATCHES.append(msg)
                    self.fail(msg + "\ncode:\n" + s["code"])

    # -- the whole layers against PyTorch's modules
    def test_pytorch_layers(self):
        if not self.npz:  # a format without npz: there must be none, and no values to check here
            self.assertFalse(os.path.exists(os.path.join(self.out, "trace.npz")))
            return
        c = self.m["config"]
        self.assertEqual(self.meta.get("format"), "attnlab-weights/1")
        for k in ["d_model", "heads", "d_ff", "layers", "norm", "activation", "eps", "positional", "seed"]:
            self.assertIn(k, self.meta, "weights metadata lacks %r" % k)
            self.assertEqual(str(self.meta[k]) if k != "eps" else float(self.meta[k]),
                             str(c[k]) if k != "eps" else float(c[k]), "metadata %s" % k)
        _, raw_hdr = None, lib.read_safetensors_raw(os.path.join(self.out, "weights.safetensors"))[0]
        for k, e in raw_hdr.items():
            if k != "__metadata__":
                self.assertEqual(e["dtype"], "F32", k)
        kw = dict(d_model=c["d_model"], nhead=c["heads"], dim_feedforward=c["d_ff"], dropout=0.0,
                  activation=nn.GELU(approximate="tanh") if c["activation"] == "gelu_tanh" else c["activation"],
                  layer_norm_eps=c["eps"], batch_first=True,
                  norm_first=(c["norm"] == "pre"))
        toks = self.m["tokens"]
        kind = c["mask"]

        def masks(rows_q, rows_k, self_kind):
            tq, tk = len(rows_q[0]), len(rows_k[0])
            kpm = torch.tensor([[t == PAD for t in r] for r in rows_k]) if "padding" in self_kind else None
            am = torch.triu(torch.ones(tq, tk, dtype=torch.bool), 1) if "causal" in self_kind else None
            return am, kpm

        def capture(mha, store):
            orig = mha.forward

            def fwd(*a, **k):
                k["need_weights"] = True
                k["average_attn_weights"] = False
                o, w = orig(*a, **k)
                store.append(w)
                return o, w
            mha.forward = fwd

        def check(sid, got):
            ok, mx, mr, first = compare(got.detach().numpy(), self.npz[sid])
            note("ref", mx, mr, self.where(sid))
            self.assertTrue(ok, "%s differs from PyTorch: max |a-b| %.3g, ratio %.3g at %s" % (sid, mx, mr, first))

        expected_names = set()
        if c["positional"] == "learned":  # the stacks' own tables, their first rows added to the embeddings
            for stack in ("encoder", "decoder") if self.cross else ("encoder",):
                table = self.weights[stack + ".position_embedding.weight"]
                self.assertEqual(table.shape, (c["max_positions"], c["d_model"]))
                expected_names.add(stack + ".position_embedding.weight")
                n = self.npz[stack + ".embedding"].shape[1]
                np.testing.assert_array_equal(self.npz[stack + ".positional"], table[:n])
                np.testing.assert_array_equal(self.npz[stack + ".input"], self.npz[stack + ".embedding"] + table[:n])
        enc_rows = self.m["memory_tokens"] if self.cross else toks
        enc_kind = "padding" if self.cross else kind
        x = torch.from_numpy(self.npz["encoder.input"].copy())
        with torch.no_grad():
            for i in range(c["layers"]):
                layer = torch.nn.TransformerEncoderLayer(**kw)
                prefix = "encoder.layers.%d." % i
                sd = {k[len(prefix):]: torch.from_numpy(v) for k, v in self.weights.items() if k.startswith(prefix)}
                self.assertEqual(sorted(sd), sorted(layer.state_dict()), "encoder layer %d parameter names" % i)
                for k, v in layer.state_dict().items():
                    self.assertEqual(tuple(sd[k].shape), tuple(v.shape), prefix + k)
                expected_names.update(prefix + k for k in sd)
                layer.load_state_dict(sd)
                layer.train()
                store = []
                capture(layer.self_attn, store)
                am, kpm = masks(enc_rows, enc_rows, enc_kind)
                x = layer(x, src_mask=am, src_key_padding_mask=kpm)
                with self.subTest(ref=prefix + "self_attn.weights"):
                    check(prefix + "self_attn.weights", store[0])
                with self.subTest(ref=prefix + "output"):
                    check(prefix + "output", x)
            x = self.final_norm("encoder", x, c, expected_names, check)
            if self.cross:
                memory = x
                y = torch.from_numpy(self.npz["decoder.input"].copy())
                for i in range(c["layers"]):
                    layer = torch.nn.TransformerDecoderLayer(**kw)
                    prefix = "decoder.layers.%d." % i
                    sd = {k[len(prefix):]: torch.from_numpy(v) for k, v in self.weights.items()
                          if k.startswith(prefix)}
                    self.assertEqual(sorted(sd), sorted(layer.state_dict()), "decoder layer %d parameter names" % i)
                    expected_names.update(prefix + k for k in sd)
                    layer.load_state_dict(sd)
                    layer.train()
                    s_store, c_store = [], []
                    capture(layer.self_attn, s_store)
                    capture(layer.multihead_attn, c_store)
                    am, kpm = masks(toks, toks, kind)
                    _, mkpm = masks(toks, self.m["memory_tokens"], "padding")
                    y = layer(y, memory, tgt_mask=am, tgt_key_padding_mask=kpm, memory_key_padding_mask=mkpm)
                    for sid, got in [(prefix + "self_attn.weights", s_store[0]),
                                     (prefix + "multihead_attn.weights", c_store[0]), (prefix + "output", y)]:
                        with self.subTest(ref=sid):
                            check(sid, got)
                self.final_norm("decoder", y, c, expected_names, check)
        self.assertEqual(sorted(self.weights), sorted(expected_names), "weights.safetensors holds other tensors")

    def final_norm(self, stack, x, c, expected_names, check):
        """The stack's final nn.LayerNorm (config "final_norm") on PyTorch's own output x, checked as
        "<stack>.norm"; x unchanged without one (and then no such step)."""
        if not c.get("final_norm"):
            self.assertNotIn(stack + ".norm", self.npz)
            return x
        norm = torch.nn.LayerNorm(c["d_model"], eps=c["eps"])
        sd = {k: torch.from_numpy(self.weights[f"{stack}.norm.{k}"]) for k in ("weight", "bias")}
        norm.load_state_dict(sd)
        expected_names.update(f"{stack}.norm.{k}" for k in sd)
        x = norm(x)
        with self.subTest(ref=stack + ".norm"):
            check(stack + ".norm", x)
        return x

    # -- csv heatmaps
    def test_csv_heatmaps(self):
        if "csv" not in self.fmt.split(","):
            self.assertFalse(os.path.exists(os.path.join(self.out, "heatmaps")), "heatmaps without --format csv")
            return
        hdir = os.path.join(self.out, "heatmaps")
        self.assertTrue(os.path.isdir(hdir))
        toks = self.m["tokens"]
        c = self.m["config"]
        B, H = len(toks), c["heads"]
        expected = set()
        for sid in self.steps:
            if not re.fullmatch(r"(encoder|decoder)\.layers\.\d+\.(self_attn|multihead_attn)\.weights", sid):
                continue
            block = sid[:-len(".weights")]
            dec = sid.startswith("decoder.")
            q_rows = toks if (dec or not self.cross) else self.m["memory_tokens"]
            k_rows = self.m["memory_tokens"] if (self.cross and (not dec or "multihead_attn" in block)) else q_rows
            for b in range(B):
                for h in range(H):
                    fname = "%s.b%d.head%d.csv" % (block, b, h)
                    expected.add(fname)
                    with self.subTest(csv=fname):
                        p = os.path.join(hdir, fname)
                        self.assertTrue(os.path.isfile(p), "missing " + fname)
                        with open(p, "rb") as f:
                            raw = f.read()
                        text = raw.decode("utf-8")
                        self.assertTrue(text.startswith('""') or text.startswith(","), "first cell")
                        self.assertNotRegex(text.replace("\r\n", ""), "[\r\n]", "RFC 4180 lines end with CRLF")
                        rows = list(csv.reader(io.StringIO(text, newline="")))
                        self.assertEqual(rows[0], [""] + k_rows[b], "header row = key tokens")
                        self.assertEqual([r[0] for r in rows[1:]], q_rows[b], "first column = query tokens")
                        vals = np.array([[float(v) for v in r[1:]] for r in rows[1:]], dtype=np.float64)
                        if self.npz:
                            w = self.npz[sid][b, h].astype(np.float64)
                            self.assertEqual(vals.shape, w.shape)
                            self.assertTrue(np.array_equal(vals.astype(np.float32), w.astype(np.float32)),
                                            "%s values differ from %s (max %g)" % (fname, sid, np.abs(vals - w).max()))
        self.assertEqual(sorted(os.listdir(hdir)), sorted(expected), "heatmaps/ holds other files")


class CsvOnly(unittest.TestCase):
    """--format csv alone: heatmaps identical to the npz,csv export of the same input, no trace.npz."""

    def test_csv_only(self):
        name, twin = CSV_ONLY
        if BundleCase.tmp is None:
            BundleCase.tmp = tempfile.mkdtemp(prefix="attnlab-bundle-")
        out = os.path.join(BundleCase.tmp, name)
        args = [a if a != "npz,csv" else "csv" for a in CONFIGS[twin][0]]
        r = run_attnlab(["export", "--out", out] + args)
        self.assertEqual(r.rc, 0, r.describe())
        self.assertFalse(os.path.exists(os.path.join(out, "trace.npz")))
        for n in ["manifest.json", "weights.safetensors"]:
            self.assertTrue(os.path.isfile(os.path.join(out, n)), n)
        twin_out = os.path.join(BundleCase.tmp, twin)
        if twin not in BundleCase.bundles:
            r2 = run_attnlab(["export", "--out", twin_out] + CONFIGS[twin][0])
            self.assertEqual(r2.rc, 0, r2.describe())
        a, b = os.path.join(out, "heatmaps"), os.path.join(twin_out, "heatmaps")
        self.assertEqual(sorted(os.listdir(a)), sorted(os.listdir(b)))
        for n in os.listdir(a):
            with open(os.path.join(a, n), "rb") as f1, open(os.path.join(b, n), "rb") as f2:
                self.assertEqual(f1.read(), f2.read(), n)


def _make_classes():
    g = globals()
    for name in CONFIGS:
        cls_name = "Bundle_" + re.sub(r"\W", "_", name)
        g[cls_name] = type(cls_name, (BundleCase,), {"CONFIG": name})


_make_classes()


def load_tests(loader, tests, pattern):  # BundleCase itself (CONFIG None) is not a test
    suite = unittest.TestSuite()
    for name in CONFIGS:
        suite.addTests(loader.loadTestsFromTestCase(globals()["Bundle_" + re.sub(r"\W", "_", name)]))
    suite.addTests(loader.loadTestsFromTestCase(CsvOnly))
    return suite


if __name__ == "__main__":
    try:
        lib.main(epilogue=epilogue)
    finally:
        if BundleCase.tmp:
            shutil.rmtree(BundleCase.tmp, ignore_errors=True)
