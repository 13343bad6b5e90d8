"""attnlab export --explain (docs/cli.md "Explanations"): rollout, flow, gradient-weighted attention
and gradient x input saliency as steps of the bundle. Checked three ways: the bundle's reproduce.py
reruns each step's own code (flow: Edmonds-Karp in plain Python) and must agree, and must name a
corrupted explanation; this script recomputes rollout and Chefer's rule with NumPy from the
bundle's arrays; and on a GPT-2 checkpoint both come from the float64 reference GPT-2 of
test_cli_pretrained (its attention weights and their autograd gradients), not from Attention Lab.
Refusals name the option and what to do, and leave no bundle."""
import json
import math
import os

import numpy as np
import torch

import attnlab_testlib as lib
import test_cli_bert as bert
import test_cli_pretrained as gpt2
from attnlab_testlib import reported, reproduce, run_attnlab
from test_cli_gradients import arrays, rewrite_npz

TEXTS = ["--text", "the black cat sat on the mat", "--text", "猫坐着"]
ALL = "rollout,flow,grad-attention,saliency,ablation"
IDS = ["explain.rollout", "explain.flow", "explain.grad_attention", "explain.saliency"]  # rerun by reproduce.py
SCORED = ["attention", "rollout", "flow", "grad_attention", "saliency"]


def numpy_rollout(layers):
    """layers: per layer (B, H, S, S). R = Â_L … Â_1, Â = (mean_h A + I) / 2, rows renormalised."""
    s = layers[0].shape[-1]
    r = np.broadcast_to(np.eye(s), (layers[0].shape[0], s, s))
    for a in layers:
        a_hat = 0.5 * a.astype(np.float64).mean(axis=1) + 0.5 * np.eye(s)
        a_hat /= a_hat.sum(axis=-1, keepdims=True)
        r = np.einsum("bij,bjk->bik", a_hat, r)
    return r


def numpy_chefer(layers, grads, sign=1.0):
    """R = I; R += mean_h(max(0, ∇ ⊙ A)) R per layer, first layer first; ∇ = sign · ∂L/∂A (−1 for a
    loss that is the opposite of the score explained, as cross-entropy is of log p)."""
    s = layers[0].shape[-1]
    r = np.broadcast_to(np.eye(s), (layers[0].shape[0], s, s)).copy()
    for a, g in zip(layers, grads):
        r = r + np.einsum("bij,bjk->bik", np.maximum(0, sign * g.astype(np.float64) * a).mean(axis=1), r)
    return r


def numpy_encdec(enc, dec, cross, real, grads=None, sign=1.0):
    """Chefer et al. 2021 for an encoder-decoder, (B, T, S). Without grads their rollout baseline:
    R_tt^T . mean_h(last cross-attention) . R_ss, each R the rollout of one stack. With grads (a dict
    of the same lists under "enc", "dec", "cross") their rules 6, 7 and 10 with the normalisation of
    eq. 8-9 (a row of R - I summing to 0 left at 0). real (B, T): the decoder's real positions; the
    cross-attention's rows of the others ([PAD]) are left out."""
    b = enc[0].shape[0]
    keep = real.astype(np.float64)[..., None]
    eye = lambda n: np.broadcast_to(np.eye(n), (b, n, n)).copy()
    if grads is None:
        r_ss, r_tt = numpy_rollout(enc), numpy_rollout(dec)
        return np.einsum("bji,bjk,bkl->bil", r_tt, cross[-1].astype(np.float64).mean(axis=1) * keep, r_ss)
    bar = lambda a, g: np.maximum(0, sign * g.astype(np.float64) * a).mean(axis=1)
    def normalised(r):
        x = r - np.eye(r.shape[-1])
        sums = x.sum(-1, keepdims=True)
        return np.where(sums != 0, x / np.where(sums != 0, sums, 1), x) + np.eye(r.shape[-1])
    r_ss = eye(enc[0].shape[-1])
    for a, g in zip(enc, grads["enc"]):
        r_ss = r_ss + bar(a, g) @ r_ss
    t = dec[0].shape[-1]
    r_tt, r_ts = eye(t), np.zeros((b, t, r_ss.shape[-1]))
    for a, g, c, gc in zip(dec, grads["dec"], cross, grads["cross"]):
        a_bar = bar(a, g)
        r_ts, r_tt = r_ts + a_bar @ r_ts, r_tt + a_bar @ r_tt
        r_ts = r_ts + np.swapaxes(normalised(r_tt), 1, 2) @ (bar(c, gc) * keep) @ normalised(r_ss)
    return r_ts


def manifest_of(out):
    with open(os.path.join(out, "manifest.json"), encoding="utf-8") as f:
        return json.load(f)


def spearman(a, b):
    """Pearson's r of the ranks, ties sharing their mean rank (as scipy.stats.spearmanr)."""
    def ranks(x):
        order = np.argsort(x, kind="stable")
        r = np.empty(len(x))
        i = 0
        while i < len(x):
            j = i
            while j + 1 < len(x) and x[order[j + 1]] == x[order[i]]:
                j += 1
            r[order[i:j + 1]] = (i + j) / 2
            i = j + 1
        return r
    ra, rb = ranks(np.asarray(a, np.float64)), ranks(np.asarray(b, np.float64))
    ra, rb = ra - ra.mean(), rb - rb.mean()
    return float((ra * rb).sum() / np.sqrt((ra * ra).sum() * (rb * rb).sum()))


class Explain(lib.TempDirCase):
    def check_scores(self, m, a, effect_kind):
        """explanation_scores: the explained position (the last real token), and each method's ρ
        recomputed here from the arrays over the keys that position attends to."""
        sc = m["explanation_scores"]
        self.assertEqual(sc["effect"], effect_kind)
        self.assertEqual(sorted(sc["spearman"]), sorted(SCORED))
        mask = a["encoder.mask"]
        last = max(int(k.split(".")[2]) for k in a if k.startswith("encoder.layers.") and k.endswith("self_attn.weights"))
        for b, q in enumerate(sc["query"]):
            tokens = [t for t in m["tokens"][b] if t != "[PAD]"]
            self.assertEqual(q, len(tokens) - 1)
            keys = np.array([j for j in np.nonzero(mask[b, q])[0] if j != q])  # its own token is not scored
            effect = a["explain.token_ablation"][b, keys]
            if len(keys):
                self.assertGreater(float(effect.max()), 0)
            rows = {"attention": a["encoder.layers.%d.self_attn.weights" % last][b][:, q, keys].mean(0),
                    "rollout": a["explain.rollout"][b, q, keys], "flow": a["explain.flow"][b, q, keys],
                    "grad_attention": a["explain.grad_attention"][b, q, keys],
                    "saliency": np.abs(a["explain.saliency"][b, keys])}
            for name, row in rows.items():
                got = sc["spearman"][name][b]
                with np.errstate(invalid="ignore", divide="ignore"):
                    want = spearman(row, effect) if len(keys) >= 3 else float("nan")
                if np.isnan(want):  # too few keys, or a constant list (one token, all equal)
                    self.assertIsNone(got, name)
                else:
                    self.assertAlmostEqual(got, want, places=5, msg=name)

    def check_source_scores(self, m, a, cross):
        """An encoder–decoder's explanation_scores: the decoder's last real token explained; source
        token j's ablation effect is 0 on [PAD] and positive on real tokens; each method's ρ
        recomputed here over every source token the position attends to (none is its own)."""
        sc = m["explanation_scores"]
        self.assertEqual(sc["effect"], "output")
        self.assertEqual(sorted(sc["spearman"]), ["attention", "grad_attention", "rollout", "saliency"])
        effect = a["explain.token_ablation"]
        self.assertEqual(effect.shape, a["encoder.token_ids"].shape)
        for b, q in enumerate(sc["query"]):
            self.assertEqual(q, int((a["decoder.token_ids"][b] != 0).sum()) - 1)
            real = a["encoder.token_ids"][b] != 0
            keys = np.nonzero(a["decoder.cross_mask"][b, q])[0]
            np.testing.assert_array_equal(keys, np.nonzero(real)[0])
            self.assertTrue((effect[b, real] > 0).all())
            self.assertEqual(float(np.abs(effect[b, ~real]).max(initial=0)), 0.0)
            rows = {"attention": cross[b][:, q, keys].mean(0), "rollout": a["explain.rollout"][b, q, keys],
                    "grad_attention": a["explain.grad_attention"][b, q, keys],
                    "saliency": np.abs(a["explain.saliency"][b, keys])}
            for name, row in rows.items():
                got = sc["spearman"][name][b]
                if len(keys) < 3:
                    self.assertIsNone(got, name)
                else:
                    self.assertAlmostEqual(got, spearman(row, effect[b, keys]), places=5, msg=name)

    def test_every_method_reproduces(self):
        for i, args in enumerate([["--d-model", "16", "--heads", "4", "--layers", "2", "--mask", "padding"],
                                  ["--d-model", "12", "--heads", "3", "--layers", "3", "--norm", "post",
                                   "--mask", "padding+causal"]]):
            with self.subTest(args=" ".join(args)):
                out = self.path("b%d" % i)
                self.export_ok(out, *TEXTS, *args, "--loss", "sum", "--explain", ALL)
                m = manifest_of(out)
                self.assertEqual([s["id"] for s in m["explanation_steps"]], IDS + ["explain.token_ablation"])
                self.assertIn("explain", m["timings_ms"])
                a = arrays(out)
                b, s = a["encoder.token_ids"].shape
                layers = int(args[args.index("--layers") + 1])
                for sid in IDS[:3]:
                    self.assertEqual(a[sid].shape, (b, s, s), sid)
                self.assertEqual(a["explain.saliency"].shape, (b, s))
                self.check_scores(m, a, "output")
                weights = [a["encoder.layers.%d.self_attn.weights" % l] for l in range(layers)]
                grads = [a["encoder.layers.%d.self_attn.weights.grad" % l] for l in range(layers)]
                self.assertTrue(lib.compare(a["explain.rollout"], numpy_rollout(weights))[0])
                self.assertTrue(lib.compare(a["explain.grad_attention"], numpy_chefer(weights, grads))[0])
                x, g = a["encoder.input"].astype(np.float64), a["encoder.input.grad"].astype(np.float64)
                self.assertTrue(lib.compare(a["explain.saliency"], (x * g).sum(-1))[0])
                np.testing.assert_allclose(a["explain.rollout"].sum(-1), 1.0, atol=1e-5)  # rows stay distributions
                np.testing.assert_allclose(a["explain.flow"].sum(-1), 1.0, atol=1e-5)
                if "padding+causal" in args:  # nothing reaches an earlier position from a later token
                    self.assertEqual(float(np.abs(np.triu(a["explain.flow"], 1)).max()), 0.0)
                    self.assertEqual(float(np.abs(np.triu(a["explain.rollout"], 1)).max()), 0.0)
                rc, text, err = reproduce(out)
                self.assertEqual(rc, 0, text[-3000:] + err)
                rows = reported(text)
                for sid in IDS:
                    self.assertEqual(rows.get(sid), "ok", sid)

    def test_an_encoder_decoder_run_follows_the_decoder_to_the_source(self):
        """Rows are the decoder's positions, columns the source tokens; NumPy's Chefer rules from the
        bundle's arrays, and reproduce.py reruns each step's PyTorch code."""
        for i, (loss, extra) in enumerate([("sum", ["--layers", "2", "--mask", "padding+causal"]),
                                           ("mse", ["--norm", "post", "--layers", "3", "--mask", "padding"]),
                                           ("sum", ["--layers", "1", "--mask", "padding"])]):
            with self.subTest(loss=loss, layers=extra[extra.index("--layers") + 1]):
                out = self.path("x%d" % i)
                if loss == "mse":  # (B, T, D): the decoder's output against a seeded target
                    target = self.path("target.npy")
                    np.save(target, np.random.default_rng(0).standard_normal((2, 7, 16)).astype("<f4"))
                    extra = extra + ["--target", target]
                self.export_ok(out, "--text", "the black cat sat on the mat", "--text", "dogs bark",
                               "--memory-text", "le chat noir", "--memory-text", "les chiens aboient fort ce soir",
                               "--d-model", "16", "--heads", "2", *extra, "--loss", loss,
                               "--explain", "rollout,grad-attention,saliency,ablation")
                m = manifest_of(out)
                a = arrays(out)
                layers = max(int(k.split(".")[2]) for k in a if k.startswith("decoder.layers.")) + 1
                b, t = a["decoder.token_ids"].shape
                s = a["encoder.token_ids"].shape[1]
                self.assertNotEqual(t, s)
                self.assertEqual(a["explain.rollout"].shape, (b, t, s))
                self.assertEqual(a["explain.grad_attention"].shape, (b, t, s))
                self.assertEqual(a["explain.saliency"].shape, (b, s))
                w = lambda stack, block, l, g="": a["%s.layers.%d.%s.weights%s" % (stack, l, block, g)]
                enc = [w("encoder", "self_attn", l) for l in range(layers)]
                dec = [w("decoder", "self_attn", l) for l in range(layers)]
                cross = [w("decoder", "multihead_attn", l) for l in range(layers)]
                grads = {"enc": [w("encoder", "self_attn", l, ".grad") for l in range(layers)],
                         "dec": [w("decoder", "self_attn", l, ".grad") for l in range(layers)],
                         "cross": [w("decoder", "multihead_attn", l, ".grad") for l in range(layers)]}
                real = a["decoder.token_ids"] != 0
                self.assertFalse(real.all())  # "dogs bark" is padded
                self.assertTrue(lib.compare(a["explain.rollout"], numpy_encdec(enc, dec, cross, real))[0])
                sign = 1.0 if loss == "sum" else -1.0  # a loss is the opposite of the score explained
                want = numpy_encdec(enc, dec, cross, real, grads, sign)
                self.assertGreater(float(want.max()), 0)
                self.assertTrue(lib.compare(a["explain.grad_attention"], want)[0])
                x, g = a["encoder.input"].astype(np.float64), a["encoder.input.grad"].astype(np.float64)
                self.assertTrue(lib.compare(a["explain.saliency"], (x * g).sum(-1))[0])
                self.assertEqual(float(np.abs(a["explain.rollout"][0, :, 3:]).max()), 0.0)  # le chat noir's [PAD]
                self.assertEqual(float(np.abs(a["explain.rollout"][1, 2:]).max()), 0.0)  # dogs bark's [PAD] rows
                self.check_source_scores(m, a, cross[-1])
                rc, text, err = reproduce(out)
                self.assertEqual(rc, 0, text[-3000:] + err)
                rows = reported(text)
                for sid in ["explain.rollout", "explain.grad_attention", "explain.saliency"]:
                    self.assertEqual(rows.get(sid), "ok", sid)

    def test_a_wrong_explanation_is_named(self):
        out = self.path("b")
        self.export_ok(out, *TEXTS, "--d-model", "16", "--heads", "2", "--explain", "flow,rollout")
        rewrite_npz(out, "explain.flow", lambda t: t + np.where(np.arange(t.size).reshape(t.shape) == 5, 0.01, 0))
        rc, text, _ = reproduce(out)
        self.assertEqual(rc, 1, text[-2000:])
        self.assertEqual(reported(text).get("explain.flow"), "DIFFERS")
        self.assertEqual(reported(text).get("explain.rollout"), "ok")
        self.assertIn("explain.flow: largest difference", text)

    def test_rollout_needs_no_loss_and_a_trained_model_explains_its_next_token(self):
        model = os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "..", "sample_inputs", "models",
                             "english-next-word.safetensors")
        out = self.path("trained")
        self.export_ok(out, "--weights", model, "--loss", "next-token", "--explain", ALL)
        m = manifest_of(out)
        steps = {s["id"]: s for s in m["explanation_steps"]}
        self.assertIn("next-token", steps["explain.grad_attention"]["formula"])
        self.assertIn("(−∇A_l ⊙ A_l)⁺", steps["explain.grad_attention"]["formula"])  # a loss's gradient negated
        a = arrays(out)
        w = [a["encoder.layers.%d.self_attn.weights" % l] for l in range(m["config"]["layers"])]
        g = [a["encoder.layers.%d.self_attn.weights.grad" % l] for l in range(m["config"]["layers"])]
        self.assertTrue(lib.compare(a["explain.grad_attention"], numpy_chefer(w, g, -1.0))[0])
        self.assertFalse(lib.compare(a["explain.grad_attention"], numpy_chefer(w, g, 1.0))[0])
        self.assertEqual(steps["explain.token_ablation"]["kind"], "data")
        self.check_scores(m, arrays(out), "logprob")
        rc, text, err = reproduce(out)
        self.assertEqual(rc, 0, text[-3000:] + err)
        for sid in IDS:
            self.assertEqual(reported(text).get(sid), "ok", sid)
        out = self.path("no-loss")
        self.export_ok(out, *TEXTS, "--explain", "rollout")
        self.assertNotIn("loss", manifest_of(out))
        self.assertEqual([s["id"] for s in manifest_of(out)["explanation_steps"]], ["explain.rollout"])

    def test_the_head_table_agrees_with_knocking_each_head_out(self):
        # --explain heads: every head knocked out alone, ranked by the loss's increase; each row is
        # what `--ablate L.H` (a separate run, its weights edited and checked by reproduce.py) gives
        model = os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "..", "sample_inputs", "models",
                             "english-next-word.safetensors")
        for mode, loss in (("zero", "next-token"), ("mean", "next-token"), ("zero", "sum")):
            with self.subTest(mode=mode, loss=loss):  # sum: the stack's output, not the trained head's logits
                out = self.path("table-%s-%s" % (mode, loss))
                self.export_ok(out, "--weights", model, "--loss", loss, "--explain", "heads", "--ablate-mode", mode)
                m = manifest_of(out)
                table = m["head_ablation"]
                self.assertEqual(table["mode"], mode)
                self.assertEqual(table["loss"], m["loss"]["value"])
                for r in table["heads"]:  # delta from the clean loss on the same path: the manifest's, to rounding
                    self.assertAlmostEqual(r["delta"], r["loss"] - table["loss"], delta=1e-5 * max(1.0, abs(table["loss"])))
                cfg = m["config"]
                self.assertEqual(len(table["heads"]), cfg["layers"] * cfg["heads"])
                deltas = [r["delta"] for r in table["heads"]]
                self.assertEqual(deltas, sorted(deltas, reverse=True))
                self.assertEqual(sorted((r["layer"], r["head"]) for r in table["heads"]),
                                 [(l, h) for l in range(cfg["layers"]) for h in range(cfg["heads"])])
                self.assertGreater(deltas[0], 1e-3)  # some head matters to a trained model
                for row in (table["heads"][0], table["heads"][-1]):
                    again = self.path("ablate-%s-%s-%d-%d" % (mode, loss, row["layer"], row["head"]))
                    self.export_ok(again, "--weights", model, "--loss", loss, "--ablate",
                                   "%d.%d" % (row["layer"], row["head"]), "--ablate-mode", mode)
                    a = manifest_of(again)
                    self.assertEqual(a["ablation"], {"heads": [[row["layer"], row["head"]]], "mode": mode})
                    self.assertAlmostEqual(a["loss"]["value"], row["loss"], delta=1e-4 * max(1.0, abs(row["loss"])))
                    rc, text, err = reproduce(again)
                    self.assertEqual(rc, 0, text[-3000:] + err)
                    _, w = lib.read_safetensors(os.path.join(again, "weights.safetensors"))
                    dh = cfg["d_model"] // cfg["heads"]
                    wo = w["encoder.layers.%d.self_attn.out_proj.weight" % row["layer"]]
                    self.assertEqual(float(np.abs(wo[:, row["head"] * dh:(row["head"] + 1) * dh]).max()), 0.0)

    def test_an_encoder_decoder_knocks_out_heads_of_all_three_attentions(self):
        # The head table of an encoder–decoder: the encoder's, the decoder's and the cross-attention's
        # heads, each row what `--ablate BLOCK.L.H` (a separate run, checked by reproduce.py) gives.
        run = ["--text", "the black cat sat on the mat", "--text", "dogs bark", "--memory-text", "le chat noir",
               "--memory-text", "les chiens aboient fort", "--d-model", "16", "--heads", "2", "--layers", "2",
               "--loss", "sum"]
        for mode in ("zero", "mean"):
            with self.subTest(mode=mode):
                out = self.path("cross-table-" + mode)
                self.export_ok(out, *run, "--explain", "heads", "--ablate-mode", mode)
                table = manifest_of(out)["head_ablation"]
                self.assertEqual(sorted((r["block"], r["layer"], r["head"]) for r in table["heads"]),
                                 [(b, l, h) for b in ("cross", "decoder", "encoder") for l in range(2) for h in range(2)])
                deltas = [r["delta"] for r in table["heads"]]
                self.assertEqual(deltas, sorted(deltas, reverse=True))
                picked = {}
                for r in table["heads"]:
                    picked.setdefault(r["block"], r)  # each attention's largest effect
                    self.assertAlmostEqual(r["delta"], r["loss"] - table["loss"], delta=1e-5 * max(1.0, abs(table["loss"])))
                for block, row in picked.items():
                    self.assertNotEqual(row["delta"], 0.0, block)  # every attention matters to the output's sum
                    name = ("" if block == "encoder" else block + ".") + "%d.%d" % (row["layer"], row["head"])
                    again = self.path("cross-ablate-%s-%s" % (mode, name))
                    self.export_ok(again, *run, "--ablate", name, "--ablate-mode", mode)
                    a = manifest_of(again)
                    want = [row["layer"], row["head"]] + ([] if block == "encoder" else [block])
                    self.assertEqual(a["ablation"], {"heads": [want], "mode": mode})
                    self.assertAlmostEqual(a["loss"]["value"], row["loss"], delta=1e-4 * max(1.0, abs(row["loss"])))
                    rc, text, err = reproduce(again)
                    self.assertEqual(rc, 0, text[-3000:] + err)
                    _, w = lib.read_safetensors(os.path.join(again, "weights.safetensors"))
                    attn = {"encoder": "encoder.layers.%d.self_attn", "decoder": "decoder.layers.%d.self_attn",
                            "cross": "decoder.layers.%d.multihead_attn"}[block] % row["layer"]
                    wo = w[attn + ".out_proj.weight"]
                    self.assertEqual(float(np.abs(wo[:, row["head"] * 8:(row["head"] + 1) * 8]).max()), 0.0)

    def test_refusals_name_the_problem(self):
        cases = [
            (["--explain", "saliency"], "--explain saliency reads the gradients of a loss: add --loss"),
            (["--explain", "rollout,heatmap"], "--explain: 'heatmap' is not one of rollout, flow, grad-attention, saliency, ablation"),
            (["--explain", "ablation", "--text", " ".join(["w%d" % i for i in range(257)])],
             "257 tokens is beyond its limit of 256"),
            (["--explain", "rollout,flow", "--memory-text", "le chat"],
             "--explain flow follows one stack's self-attention and is not defined for an encoder–decoder run"),
            (["--explain", "logit-lens", "--memory-text", "le chat"],
             "there ask for rollout, grad-attention or saliency, which follow the decoder's view of the source (Chefer et al. 2021), ablation or heads"),
            (["--explain", "heads"], "--explain heads reads the gradients of a loss: add --loss"),
            (["--ablate", "1.0"], "--ablate 1.0: the model has 1 layers of 8 heads, counted from 0"),
            (["--ablate", "0.1,x"], "--ablate: 'x' is not LAYER.HEAD"),
            (["--ablate-mode", "mean"], "--ablate-mode says how the heads of --ablate are knocked out: it needs --ablate"),
            (["--ablate-mode", "mean", "--explain", "rollout"], "--ablate-mode says how the heads of --ablate"),
            (["--ablate", "cross.0.0"], "--ablate cross.0.0 names a head of the decoder (its self-attention or its cross-attention)"),
            (["--ablate", "decoder.1.0", "--memory-text", "le chat"], "--ablate decoder.1.0: the model has 1 layers of 8 heads"),
            (["--ablate", "cros.0.0", "--memory-text", "le chat"], "--ablate: 'cros.0.0' is not LAYER.HEAD"),
            (["--explain", "rollout", "--attention", "tiled", "--layers", "2", "--full-layers", "0"],
             "encoder.layers.1.self_attn.weights is not in the trace"),
            (["--explain", "flow", "--layers", "12", "--text", " ".join(["w%d" % i for i in range(49)])],
             "12 layers × 49 tokens is beyond its limit of 48 tokens at 12 layers"),
            (["--explain", "logit-lens"], "--explain logit-lens reads a trained model's output head, and this model has none"),
            (["--lens-top", "3", "--explain", "rollout"], "--lens-top says how many tokens the logit lens keeps"),
        ]
        for args, needle in cases:
            with self.subTest(args=" ".join(args)):
                out = self.path("refused")
                r = run_attnlab(["export", "--out", out, "--text", "the cat", *args])
                self.assertEqual(r.rc, 2, r.describe())
                self.assertIn(needle, r.err)
                self.assertFalse(os.path.exists(out))


def lens_reference(residuals, head, k):
    """The logit lens in float64: residuals, per layer (B, S, D) from the embeddings on; head: what
    follows the last layer, (B, S, D) → logits. (top-k probabilities, their ids, the final answer's
    probability, every probability (B, L+1, S, V)), as explain.logit_lens, explain.logit_lens_ids,
    explain.logit_lens_answer."""
    p = torch.stack([torch.softmax(head(torch.as_tensor(h, dtype=torch.float64)), dim=-1) for h in residuals], 1)
    top = p.topk(k, dim=-1)
    answer = p.gather(-1, top.indices[:, -1:, :, :1].expand(-1, p.shape[1], -1, -1))[..., 0]
    return top.values.numpy(), top.indices.numpy(), answer.numpy(), p.numpy()


LENS = ["explain.logit_lens", "explain.logit_lens_ids", "explain.logit_lens_answer"]


class LogitLens(lib.CheckpointCase):
    TEXTS = gpt2.TEXTS
    MODEL = os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "..", "sample_inputs", "models",
                         "english-next-word.safetensors")

    def check_lens(self, trace, manifest, residuals, head, k):
        """The three steps against lens_reference; the manifest's tokens spell the ids."""
        probs, ids, answer, p = lens_reference(residuals, head, k)
        self.assert_close(trace["explain.logit_lens"], probs, "explain.logit_lens", atol=1e-5, rtol=1e-3)
        self.assert_close(trace["explain.logit_lens_answer"], answer, "explain.logit_lens_answer", atol=1e-5, rtol=1e-3)
        got = trace["explain.logit_lens_ids"].astype(np.int64)
        self.assertEqual(got.shape, ids.shape)
        # the reference's probabilities of the recorded ids are its top k (an id may differ from the
        # reference's only where two probabilities tie)
        self.assert_close(np.take_along_axis(p, got, -1), probs, "p at explain.logit_lens_ids", atol=1e-6, rtol=1e-4)
        self.assertGreater(float((got == ids).mean()), 0.9)
        lens = manifest["logit_lens"]
        self.assertEqual((lens["k"], lens["residuals"][0]), (k, "encoder.input"))
        self.assertEqual(len(lens["residuals"]), len(residuals))
        self.assertEqual(np.array(lens["tokens"]).shape, got.shape)
        return got, lens["tokens"]

    def reproduced(self, out):
        rc, text, err = reproduce(out)
        self.assertEqual(rc, 0, text[-3000:] + err[-2000:])
        for sid in LENS:
            self.assertEqual(reported(text).get(sid), "ok", sid)

    def test_a_gpt2_checkpoint_through_its_final_layernorm(self):
        params = gpt2.random_parameters(5)
        folder = self.path("gpt2")
        gpt2.write_folder(folder, params)
        out, trace, manifest = self.export(folder, "--explain", "logit-lens", "--lens-top", "4")
        self.assertEqual([s["id"] for s in manifest["explanation_steps"]], LENS)
        self.assertIn("LN_f(h_l)", next(s for s in manifest["explanation_steps"] if s["id"] == LENS[0])["formula"])
        rows = [gpt2.reference_ids(t) for t in self.TEXTS]
        longest = max(map(len, rows))
        ids = torch.tensor([r + [gpt2.EOS] * (longest - len(r)) for r in rows])
        ref = gpt2.reference_gpt2(params, ids)
        t = gpt2.float64_tensors(params)
        x0 = t["wte.weight"][ids] + t["wpe.weight"][:longest]
        ln_f = lambda h: torch.nn.functional.layer_norm(h, (gpt2.D,), t["ln_f.weight"], t["ln_f.bias"], gpt2.EPS)
        got, tokens = self.check_lens(trace, manifest, [x0] + ref["outputs"], lambda h: ln_f(h) @ t["wte.weight"].T, 4)
        piece = {i: p for p, i in gpt2.VOCAB.items()}
        self.assertEqual(tokens, [[[[piece[i] for i in top] for top in layer] for layer in sentence]
                                  for sentence in got.tolist()])
        # the last layer's lens is the model's own prediction
        self.assert_close(trace["explain.logit_lens"][:, -1], np.sort(trace["encoder.output_head.probs"], -1)[..., ::-1][..., :4],
                          "last layer = output_head.probs", atol=1e-6, rtol=1e-4)
        # without ln_f the lens would differ: the final LayerNorm is applied
        wrong = lens_reference([x0] + ref["outputs"], lambda h: h @ t["wte.weight"].T, 4)[0]
        self.assertFalse(lib.compare(trace["explain.logit_lens"], wrong, 1e-4, 1e-3)[0])
        self.reproduced(out)

    def test_a_bert_checkpoint_through_its_head_transform(self):
        # BERT has no final LayerNorm: each layer's output goes through the masked-LM head's
        # transform (dense, exact GELU, LayerNorm) and the tied decoder with its bias
        params = bert.bert_parameters(3)
        folder = self.path("bert")
        bert.write_folder(folder, params, bert.bert_config())
        out, trace, manifest = self.export(folder, "--explain", "logit-lens", texts=bert.TEXTS[:2])
        ref = bert.reference_bert(params, bert.padded_ids(bert.CUTS[:2]))
        t = bert.float64_tensors(params)
        ln = lambda x, n: torch.nn.functional.layer_norm(x, (bert.D,), t[n + ".weight"], t[n + ".bias"], bert.EPS)
        lin = lambda x, n: x @ t[n + ".weight"].T + t[n + ".bias"]
        gelu = lambda x: 0.5 * x * (1.0 + torch.erf(x / math.sqrt(2.0)))

        def head(h):
            hd = ln(gelu(lin(h, "cls.predictions.transform.dense")), "cls.predictions.transform.LayerNorm")
            return hd @ t["bert.embeddings.word_embeddings.weight"].T + t["cls.predictions.bias"]
        self.check_lens(trace, manifest, [ref["input"]] + ref["outputs"], head, 5)
        np.testing.assert_allclose(trace["explain.logit_lens"][:, -1],
                                   np.sort(trace["encoder.output_head.probs"], -1)[..., ::-1][..., :5], atol=1e-6, rtol=1e-4)
        self.reproduced(out)

    def test_a_trained_model_and_a_corrupted_id_is_named(self):
        out = self.path("trained")
        self.export_ok(out, "--weights", self.MODEL, "--text", "the cat sat on the", "--explain", "logit-lens,rollout")
        m = manifest_of(out)
        a = arrays(out)
        self.assertNotIn("logit_lens", m.get("explanation_scores", {}).get("spearman", {}))
        layers = m["config"]["layers"]
        residuals = [a["encoder.input"]] + [a["encoder.layers.%d.output" % l] for l in range(layers)]
        _, w = lib.read_safetensors(os.path.join(out, "weights.safetensors"))
        wt, bt = (torch.from_numpy(w[n].astype(np.float64)) for n in ("output_head.weight", "output_head.bias"))
        if m["config"].get("final_norm"):
            self.fail("the shipped model has no final LayerNorm; the reference below assumes none")
        self.check_lens(a, m, residuals, lambda h: h @ wt.T + bt, 5)
        self.reproduced(out)
        # a wrong id (the second most likely token's, in the first place) is named by reproduce.py
        rewrite_npz(out, "explain.logit_lens_ids", lambda t: np.where(np.arange(t.size).reshape(t.shape) == 0, t.flat[1], t))
        rc, text, _ = reproduce(out)
        self.assertEqual(rc, 1, text[-2000:])
        self.assertEqual(reported(text).get("explain.logit_lens_ids"), "DIFFERS")
        self.assertEqual(reported(text).get("explain.logit_lens"), "ok")

    def test_tiled_attention_still_has_a_lens(self):
        out = self.path("tiled")
        self.export_ok(out, "--weights", self.MODEL, "--text", "the cat sat on the", "--attention", "tiled",
                       "--explain", "logit-lens", "--lens-top", "1")
        self.assertEqual(arrays(out)["explain.logit_lens"].shape[-1], 1)
        self.reproduced(out)


class CheckpointExplain(lib.CheckpointCase):
    TEXTS = gpt2.TEXTS

    def test_a_gpt2_checkpoint_against_the_reference(self):
        # rollout from the float64 reference GPT-2's own weights; Chefer's rule from them and their
        # autograd gradients of the same next-token loss (test_cli_pretrained's targets)
        params = gpt2.random_parameters(21)
        folder = self.path("gpt2")
        gpt2.write_folder(folder, params)
        out, trace, manifest = self.export(folder, "--loss", "next-token", "--explain", ALL)
        rows = [gpt2.reference_ids(t) for t in self.TEXTS]
        longest = max(map(len, rows))
        ids = torch.tensor([r + [gpt2.EOS] * (longest - len(r)) for r in rows])
        t = gpt2.float64_tensors(params, grad=True)
        ref = gpt2.reference_gpt2(params, ids, t=t)
        for w in ref["weights"]:
            w.retain_grad()
        targets = ids[:, 1:].clone()
        for r, n in enumerate(map(len, rows)):
            targets[r, n - 1:] = -100
        torch.nn.functional.cross_entropy(ref["logits"][:, :-1].reshape(-1, gpt2.V), targets.reshape(-1)).backward()
        weights = [w.detach().numpy() for w in ref["weights"]]
        grads = [w.grad.numpy() for w in ref["weights"]]
        self.assertGreater(max(float(np.abs(g).max()) for g in grads), 1e-4)
        self.assert_close(trace["explain.rollout"], numpy_rollout(weights), "explain.rollout")
        self.assert_close(trace["explain.grad_attention"], numpy_chefer(weights, grads, -1.0), "explain.grad_attention")
        self.assertEqual(float(np.abs(np.triu(trace["explain.flow"], 1)).max()), 0.0)  # causal
        rc, stdout, stderr = lib.reproduce(out)
        self.assertEqual(rc, 0, stdout[-3000:] + stderr[-2000:])
        for sid in IDS:
            self.assertEqual(lib.reported(stdout).get(sid), "ok", sid)


if __name__ == "__main__":
    lib.main()
