"""attnlab export --model DIR (docs/cli.md "Pretrained checkpoints"): a GPT-2 checkpoint folder in
exactly Hugging Face's layout and naming — config.json, model.safetensors (or shards and their
index), vocab.json, merges.txt — written here with small random weights, run by Attention Lab and
compared with a reference GPT-2 written below from the published architecture (Radford et al.
2019; Hugging Face's GPT2LMHeadModel): every layer's attention weights and output, the final
LayerNorm and the logits through the tied embedding. No checkpoint is downloaded; the reference
is not Attention Lab's reproduce.py (which is run on the bundle as well). Refusals name the file,
the key or the tensor."""
import json
import math
import os
import re
import sys

import numpy as np
import torch

import attnlab_testlib as lib
from attnlab_testlib import run_attnlab

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "golden"))
import gen_subword_golden  # noqa: E402  (the tokenizer reference: its byte map)
import gen_golden  # noqa: E402  (the seeded generator, docs/cli.md "The seeded generator")

D, H, LAYERS, POSITIONS = 16, 4, 2, 24
FF = 4 * D
EPS = 1e-5


# ----------------------------------------------------------------------------- the tokenizer files

BYTE = gen_subword_golden.bytes_to_unicode()[0]  # GPT-2's byte → printable character map
MERGES = [("Ġ", "t"), ("h", "e"), ("Ġt", "he"), ("Ġ", "c"), ("a", "t"), ("Ġc", "at"), ("Ġ", "s"), ("Ġs", "at"),
          ("Ġ", "o"), ("Ġo", "n"), ("Ġ", "m"), ("Ġm", "at"), ("T", "he"), ("i", "n"), ("Ġ", "a")]


def vocabulary():
    """Every byte's character (ids 0 … 255 in byte order), each merge's result, <|endoftext|>."""
    pieces = [BYTE[b] for b in range(256)] + [a + b for a, b in MERGES] + ["<|endoftext|>"]
    return {p: i for i, p in enumerate(pieces)}


VOCAB = vocabulary()
V = len(VOCAB)
EOS = VOCAB["<|endoftext|>"]


def reference_ids(text):
    """GPT-2's tokenisation of ASCII text: the pre-tokeniser's pattern (ASCII classes), each piece's
    bytes as characters, then the merges by rank until none applies."""
    pattern = r"'s|'t|'re|'ve|'m|'ll|'d| ?[A-Za-z]+| ?[0-9]+| ?[^\sA-Za-z0-9]+|\s+(?!\S)|\s+"
    rank = {m: i for i, m in enumerate(MERGES)}
    ids = []
    for word in re.findall(pattern, text):
        symbols = [BYTE[b] for b in word.encode("utf-8")]
        while len(symbols) > 1:
            pairs = [(rank.get((a, b), math.inf), i) for i, (a, b) in enumerate(zip(symbols, symbols[1:]))]
            best, i = min(pairs)
            if best == math.inf:
                break
            symbols[i:i + 2] = [symbols[i] + symbols[i + 1]]
        ids += [VOCAB[s] for s in symbols]
    return ids


# ----------------------------------------------------------------------------- the checkpoint

def random_parameters(seed):
    """GPT-2's parameters under Hugging Face's names (without the "transformer." prefix), as
    GPT2LMHeadModel stores them: Conv1D weights (in, out)."""
    g = np.random.default_rng(seed)
    n = lambda *shape, s=0.4: (g.standard_normal(shape) * s).astype(np.float32)
    p = {"wte.weight": n(V, D, s=1.0), "wpe.weight": n(POSITIONS, D, s=0.5)}
    for i in range(LAYERS):
        h = "h.%d." % i
        p[h + "ln_1.weight"] = 1 + n(D, s=0.2)
        p[h + "ln_1.bias"] = n(D, s=0.2)
        p[h + "attn.c_attn.weight"] = n(D, 3 * D)
        p[h + "attn.c_attn.bias"] = n(3 * D, s=0.2)
        p[h + "attn.c_proj.weight"] = n(D, D)
        p[h + "attn.c_proj.bias"] = n(D, s=0.2)
        p[h + "ln_2.weight"] = 1 + n(D, s=0.2)
        p[h + "ln_2.bias"] = n(D, s=0.2)
        p[h + "mlp.c_fc.weight"] = n(D, FF)
        p[h + "mlp.c_fc.bias"] = n(FF, s=0.2)
        p[h + "mlp.c_proj.weight"] = n(FF, D, s=0.2)
        p[h + "mlp.c_proj.bias"] = n(D, s=0.2)
    p["ln_f.weight"] = 1 + n(D, s=0.2)
    p["ln_f.bias"] = n(D, s=0.2)
    return p


def config(**changes):
    c = {"architectures": ["GPT2LMHeadModel"], "model_type": "gpt2", "n_embd": D, "n_head": H, "n_layer": LAYERS,
         "n_positions": POSITIONS, "n_ctx": POSITIONS, "vocab_size": V, "activation_function": "gelu_new",
         "layer_norm_epsilon": EPS, "bos_token_id": EOS, "eos_token_id": EOS, "resid_pdrop": 0.1,
         "torch_dtype": "float32", "transformers_version": "4.35.2"}
    c.update(changes)
    return {k: v for k, v in c.items() if v is not None}


def buffers():
    """The buffers older checkpoints carry (ignored by the reader): the causal mask and masked_bias."""
    out = {}
    for i in range(LAYERS):
        out["h.%d.attn.bias" % i] = np.tril(np.ones((POSITIONS, POSITIONS), np.float32))[None, None]
        out["h.%d.attn.masked_bias" % i] = np.array(-1e4, np.float32)
    return out


def write_folder(folder, params, prefix="transformer.", dtype="F32", shards=1, extra=None, cfg=None,
                 tokenizer=True):
    os.makedirs(folder, exist_ok=True)
    with open(os.path.join(folder, "config.json"), "w", encoding="utf-8") as f:
        json.dump(cfg or config(), f, indent=2)
    tensors = {prefix + k: v for k, v in params.items()}
    tensors.update(extra or {})
    dtypes = {k: dtype for k in tensors if tensors[k].dtype == np.float32}
    meta = {"format": "pt"}
    if shards == 1:
        lib.write_safetensors(os.path.join(folder, "model.safetensors"), tensors, meta, dtypes)
    else:
        names = sorted(tensors)
        weight_map = {}
        for s in range(shards):
            file = "model-%05d-of-%05d.safetensors" % (s + 1, shards)
            part = {k: tensors[k] for k in names[s::shards]}
            lib.write_safetensors(os.path.join(folder, file), part, meta, dtypes)
            weight_map.update({k: file for k in part})
        with open(os.path.join(folder, "model.safetensors.index.json"), "w") as f:
            json.dump({"metadata": {"total_size": 0}, "weight_map": weight_map}, f)
    if tokenizer:
        with open(os.path.join(folder, "vocab.json"), "w", encoding="utf-8") as f:
            json.dump(VOCAB, f, ensure_ascii=False)
        with open(os.path.join(folder, "merges.txt"), "w", encoding="utf-8") as f:
            f.write("#version: 0.2\n" + "".join("%s %s\n" % m for m in MERGES))


# ----------------------------------------------------------------------------- the reference GPT-2

def gelu_new(x):
    return 0.5 * x * (1.0 + torch.tanh(math.sqrt(2.0 / math.pi) * (x + 0.044715 * torch.pow(x, 3.0))))


def float64_tensors(p, grad=False):
    return {k: torch.from_numpy(v.astype(np.float64)).requires_grad_(grad) for k, v in p.items()}


def reference_gpt2(p, ids, head=None, t=None):
    """GPT-2 as published, in float64: ids (B, S) → per layer the attention weights (B, H, S, S) and
    the block's output, the final LayerNorm's output and the logits (B, S, V). t: the parameters as
    tensors already (float64_tensors(p, grad=True), for autograd)."""
    t = float64_tensors(p) if t is None else t
    ln = lambda x, w, b: torch.nn.functional.layer_norm(x, (D,), t[w], t[b], EPS)
    b, s = ids.shape
    x = t["wte.weight"][ids] + t["wpe.weight"][:s]
    future = torch.triu(torch.ones(s, s, dtype=torch.bool), diagonal=1)
    out = {"weights": [], "outputs": []}
    for i in range(LAYERS):
        h = "h.%d." % i
        a = ln(x, h + "ln_1.weight", h + "ln_1.bias")
        qkv = a @ t[h + "attn.c_attn.weight"] + t[h + "attn.c_attn.bias"]  # Conv1D: x W + b
        q, k, v = (z.view(b, s, H, D // H).transpose(1, 2) for z in qkv.split(D, dim=2))
        scores = (q @ k.transpose(-1, -2)) / math.sqrt(D // H)
        w = torch.softmax(scores.masked_fill(future, -math.inf), dim=-1)
        out["weights"].append(w)
        merged = (w @ v).transpose(1, 2).reshape(b, s, D)
        x = x + merged @ t[h + "attn.c_proj.weight"] + t[h + "attn.c_proj.bias"]
        m = ln(x, h + "ln_2.weight", h + "ln_2.bias")
        x = x + gelu_new(m @ t[h + "mlp.c_fc.weight"] + t[h + "mlp.c_fc.bias"]) @ t[h + "mlp.c_proj.weight"] \
            + t[h + "mlp.c_proj.bias"]
        out["outputs"].append(x)
    out["final"] = ln(x, "ln_f.weight", "ln_f.bias")
    w = t["wte.weight"] if head is None else torch.from_numpy(head.astype(np.float64))
    out["logits"] = out["final"] @ w.T  # the tied head (or an untied lm_head), no bias
    return out


def stored(params, dtype):
    """The values a checkpoint of `dtype` holds, widened back to float32."""
    if dtype == "F16":
        return {k: v.astype(np.float16).astype(np.float32) for k, v in params.items()}
    if dtype == "BF16":
        return {k: lib.bf16_round(v) for k, v in params.items()}
    return params


TEXTS = ["The cat sat on the mat.", "the cat", "in a hat, 42 cats!"]


def reference_draw(logits, temperature, top_k, top_p, u):
    """docs/cli.md "Generation", in float64: (the piece drawn, how far the decision was from going
    another way — the gap between the two best logits, or between u·total and the nearest running
    sum)."""
    if temperature == 0:
        order = np.argsort(-logits, kind="stable")
        return int(order[0]), float(logits[order[0]] - logits[order[1]])
    z = logits.astype(np.float64) / temperature
    p = np.exp(z - z.max())
    p /= p.sum()
    order = sorted(range(len(p)), key=lambda i: (-p[i], i))
    kept = order[:top_k] if top_k > 0 else order
    if top_p < 1:
        run = 0.0
        for j, i in enumerate(kept):
            run += p[i]
            if run >= top_p:
                kept = kept[:j + 1]
                break
    target = u * sum(p[i] for i in kept)
    sums = np.cumsum([p[i] for i in kept])
    j = min(int(np.searchsorted(sums, target)), len(kept) - 1)
    return kept[j], float(np.min(np.abs(sums - target)))


class Pretrained(lib.CheckpointCase):
    TEXTS = TEXTS

    def assert_matches_reference(self, trace, manifest, params, texts=TEXTS):
        rows = [reference_ids(t) for t in texts]
        longest = max(map(len, rows))
        ids = torch.tensor([r + [EOS] * (longest - len(r)) for r in rows])  # [PAD] reads <|endoftext|>'s row
        self.assertEqual(trace["encoder.token_ids"].astype(np.int64).tolist(), ids.tolist())
        piece = {i: p for p, i in VOCAB.items()}
        self.assertEqual(manifest["tokens"], [[piece[i] for i in r] + ["[PAD]"] * (longest - len(r)) for r in rows])
        ref = reference_gpt2(params, ids)
        for i in range(LAYERS):
            p = "encoder.layers.%d." % i
            self.assert_close(trace[p + "self_attn.weights"], ref["weights"][i].numpy(), p + "self_attn.weights")
            self.assert_close(trace[p + "output"], ref["outputs"][i].numpy(), p + "output")
        self.assert_close(trace["encoder.norm"], ref["final"].numpy(), "encoder.norm")
        self.assert_close(trace["encoder.output_head.logits"], ref["logits"].numpy(), "logits", atol=1e-3)

    def test_gpt2_checkpoint_matches_the_reference_architecture(self):
        params = random_parameters(1)
        folder = self.path("gpt2")
        write_folder(folder, params, extra={"transformer." + k: v for k, v in buffers().items()})
        out, trace, manifest = self.export(folder)
        self.assertEqual(manifest["config"]["mask"], "causal")
        self.assertEqual((manifest["config"]["positional"], manifest["config"]["activation"]), ("learned", "gelu_tanh"))
        longest = max(len(reference_ids(t)) for t in TEXTS)
        self.assertEqual(trace["encoder.output_head.logits"].shape, (3, longest, V))
        self.assert_matches_reference(trace, manifest, params)
        # the tied head's own step: no bias bound, the code line says so
        steps = {s["id"]: s for s in manifest["steps"]}
        self.assertEqual(steps["encoder.output_head.logits"]["code"], "logits = F.linear(x, output_head_weight)")
        rc, stdout, stderr = lib.reproduce(out)
        self.assertEqual(rc, 0, stdout[-3000:] + stderr[-2000:])
        self.assertEqual(lib.reported(stdout).get("encoder.output_head.logits"), "ok")
        # the bundle's weights file reads (pad_id, no unknown row, no head bias, byte-level pieces),
        # but Attention Lab's word tokenizer would cut "cat" where GPT-2 has "Ġcat": refused, naming
        # the folder option; and no loss goes through the tied head
        w = os.path.join(out, "weights.safetensors")
        r = run_attnlab(["export", "--out", self.path("again"), "--weights", w, "--text", "at in"])
        self.assertEqual(r.rc, 2, r.describe())
        self.assertIn("byte-level pieces, which Attention Lab's word tokenizer cannot cut", r.err)
        self.assertFalse(os.path.exists(self.path("again")))

    def test_next_token_loss_through_the_tied_head(self):
        # --loss next-token: position i against piece i + 1 of its own text, padding (which reads
        # <|endoftext|>'s row) never a target, and the tied table one parameter whose gradient is
        # the sum of the embedding's and the head's: autograd through the float64 reference GPT-2
        params = random_parameters(11)
        folder = self.path("ce")
        write_folder(folder, params)
        texts = TEXTS + ["at<|endoftext|>The"]  # a real <|endoftext|> in a text is a target like any piece
        out, trace, manifest = self.export(folder, "--loss", "next-token", texts=texts)
        rows = [reference_ids(t) for t in texts[:-1]] + [reference_ids("at") + [EOS] + reference_ids("The")]
        longest = max(map(len, rows))
        ids = torch.tensor([r + [EOS] * (longest - len(r)) for r in rows])
        self.assertEqual(trace["encoder.token_ids"].astype(np.int64).tolist(), ids.tolist())
        t = float64_tensors(params, grad=True)
        ref = reference_gpt2(params, ids, t=t)
        targets = ids[:, 1:].clone()
        for r, n in enumerate(map(len, rows)):
            targets[r, n - 1:] = -100  # the padding's positions (and the last real one) predict nothing
        loss = torch.nn.functional.cross_entropy(ref["logits"][:, :-1].reshape(-1, V), targets.reshape(-1))
        loss.backward()
        self.assertEqual(manifest["loss"]["kind"], "next-token")
        self.assertEqual(manifest["loss"]["lengths"], list(map(len, rows)))  # reproduce.py's padding
        self.assertAlmostEqual(manifest["loss"]["value"], loss.item(), delta=1e-4 * max(1.0, loss.item()))
        table = t["wte.weight"].grad.numpy()
        self.assertGreater(np.abs(table).max(), 1e-3)
        self.assert_close(trace["grad/embedding.weight"], table, "grad/embedding.weight (the tied sum)")
        self.assert_close(trace["grad/output_head.weight"], table, "grad/output_head.weight (the same parameter)")
        self.assert_close(trace["grad/encoder.position_embedding.weight"], t["wpe.weight"].grad.numpy(), "grad/wpe")
        self.assert_close(trace["grad/encoder.layers.0.self_attn.in_proj_weight"],
                          t["h.0.attn.c_attn.weight"].grad.numpy().T, "grad/in_proj_weight (Conv1D's transpose)")
        rc, stdout, stderr = lib.reproduce(out)
        self.assertEqual(rc, 0, stdout[-3000:] + stderr[-2000:])
        got = lib.reported(stdout)
        for name in ("grad/embedding.weight", "grad/output_head.weight", "encoder.output_head.logits.grad"):
            self.assertEqual(got.get(name), "ok", name)
        # the bundle holds the tied table once, and --weights reads it back as the same model
        header, _ = lib.read_safetensors_raw(os.path.join(out, "weights.safetensors"))
        self.assertEqual(header["__metadata__"].get("tied_head"), "true")
        self.assertIn("embedding.weight", header)
        self.assertNotIn("output_head.weight", header)
        r = run_attnlab(["export", "--out", self.path("again"), "--weights", os.path.join(out, "weights.safetensors"),
                         "--text", "the cat"])  # read whole (no tensor missing), then refused for its text
        self.assertEqual(r.rc, 2, r.describe())
        self.assertIn("byte-level pieces", r.err)
        # untied (lm_head.weight its own): two parameters, two gradients
        other = (np.random.default_rng(12).standard_normal((V, D)) * 0.5).astype(np.float32)
        untied = self.path("untied")
        write_folder(untied, params, extra={"lm_head.weight": other}, cfg=config(tie_word_embeddings=False))
        out, trace, _ = self.export(untied, "--loss", "next-token", texts=texts)
        t = float64_tensors(params, grad=True)
        head = torch.from_numpy(other.astype(np.float64)).requires_grad_()
        logits = reference_gpt2(params, ids, t=t)["final"] @ head.T
        torch.nn.functional.cross_entropy(logits[:, :-1].reshape(-1, V), targets.reshape(-1)).backward()
        self.assert_close(trace["grad/embedding.weight"], t["wte.weight"].grad.numpy(), "untied grad/embedding.weight")
        self.assert_close(trace["grad/output_head.weight"], head.grad.numpy(), "untied grad/output_head.weight")
        rc, stdout, stderr = lib.reproduce(out)
        self.assertEqual(rc, 0, stdout[-3000:] + stderr[-2000:])

    def test_names_without_prefix_sharded_with_lm_head(self):
        params = random_parameters(2)
        folder = self.path("sharded")
        write_folder(folder, params, prefix="", shards=3, extra={"lm_head.weight": params["wte.weight"]})
        _, trace, manifest = self.export(folder)
        self.assert_matches_reference(trace, manifest, params)

    def test_tie_word_embeddings_decides_the_head(self):
        params = random_parameters(8)
        other = (np.random.default_rng(9).standard_normal((V, D)) * 0.5).astype(np.float32)
        ids = torch.tensor([reference_ids("the cat")])
        for tie, want in ((None, None), (True, None), (False, other)):  # absent: tied, as GPT2Config
            with self.subTest(tie=tie):
                folder = self.path("tie-%s" % tie)
                write_folder(folder, params, extra={"lm_head.weight": other}, cfg=config(tie_word_embeddings=tie))
                _, trace, _ = self.export(folder, texts=["the cat"])
                ref = reference_gpt2(params, ids, head=want)
                self.assert_close(trace["encoder.output_head.logits"], ref["logits"].numpy(), "logits", atol=1e-3)
        folder = self.path("untied-without-head")
        write_folder(folder, params, cfg=config(tie_word_embeddings=False))
        self.refused(folder, "lm_head.weight")

    def test_prepend_bos_puts_endoftext_first(self):
        # --prepend-bos: <|endoftext|> at position 0 of each text, a real piece the reference runs
        # too; generation counts it in the prompt, and it is refused where it has no meaning
        params = random_parameters(12)
        folder = self.path("bos")
        write_folder(folder, params)
        texts = ["the cat", "in a hat"]
        _, trace, manifest = self.export(folder, "--prepend-bos", texts=texts)
        rows = [[EOS] + reference_ids(t) for t in texts]
        longest = max(map(len, rows))
        ids = torch.tensor([r + [EOS] * (longest - len(r)) for r in rows])
        self.assertEqual(trace["encoder.token_ids"].astype(np.int64).tolist(), ids.tolist())
        self.assertEqual([row[0] for row in manifest["tokens"]], ["<|endoftext|>"] * 2)
        self.assertIs(manifest["config"].get("prepend_bos"), True)
        ref = reference_gpt2(params, ids)
        self.assert_close(trace["encoder.layers.1.self_attn.weights"], ref["weights"][1].numpy(), "weights")
        self.assert_close(trace["encoder.output_head.logits"], ref["logits"].numpy(), "logits", atol=1e-3)
        _, _, plain = self.export(folder, texts=texts)
        self.assertNotIn("prepend_bos", plain["config"])
        _, _, gen = self.export(folder, "--prepend-bos", "--generate", "2", "--temperature", "0", texts=["the cat"])
        self.assertEqual(gen["generation"]["rows"][0]["prompt_pieces"], len(rows[0]))
        r = run_attnlab(["export", "--out", self.path("nobos"), "--text", "the cat", "--prepend-bos"])
        self.assertEqual(r.rc, 2, r.describe())
        self.assertIn("--prepend-bos needs --model", r.err)

    def test_one_head_kept_whole_in_a_tiled_trace(self):
        # --attention tiled --full-heads 1.2: GPT-2's layer 1, head 2 cell by cell — the reference
        # architecture's head 2 — while every other head of both layers is an overview
        params = random_parameters(5)
        folder = self.path("heads")
        write_folder(folder, params)
        _, trace, manifest = self.export(folder, "--attention", "tiled", "--full-heads", "1.2")
        self.assertEqual(manifest["config"]["full_heads"], [[1, 2]])
        rows = [reference_ids(t) for t in TEXTS]
        longest = max(map(len, rows))
        ref = reference_gpt2(params, torch.tensor([r + [EOS] * (longest - len(r)) for r in rows]))
        got = trace["encoder.layers.1.self_attn.weights_head_2"]
        self.assertEqual(got.shape, (3, 1, longest, longest))
        self.assert_close(got, ref["weights"][1][:, 2:3].numpy(), "layer 1, head 2")
        self.assertEqual([k for k in trace if "weights_head" in k], ["encoder.layers.1.self_attn.weights_head_2"])
        self.assertNotIn("encoder.layers.1.self_attn.weights", trace)
        self.assert_close(trace["encoder.output_head.logits"], ref["logits"].numpy(), "logits", atol=1e-3)

    def test_half_and_bfloat16_checkpoints_are_widened(self):
        params = random_parameters(3)
        for dtype in ("F16", "BF16"):
            with self.subTest(dtype=dtype):
                folder = self.path(dtype)
                write_folder(folder, params, dtype=dtype)
                _, trace, manifest = self.export(folder)
                self.assert_matches_reference(trace, manifest, stored(params, dtype))

    def test_config_defaults_are_gpt2_small(self):
        # absent keys take GPT2Config's published defaults: here n_embd would be 768, not the tensors' 16
        params = random_parameters(4)
        folder = self.path("defaults")
        cfg = config(n_embd=None)
        write_folder(folder, params, cfg=cfg)
        r = run_attnlab(["export", "--out", self.path("b"), "--model", folder, "--text", "the cat"])
        self.assertEqual(r.rc, 1, r.describe())
        self.assertIn("wte.weight", r.err)
        self.assertIn("(272, 768)", r.err)
        self.assertFalse(os.path.exists(self.path("b")))

    def test_refusals_name_the_file_key_or_tensor(self):
        params = random_parameters(5)
        good = self.path("good")
        write_folder(good, params)

        pickle_only = self.path("pickle")
        os.makedirs(pickle_only)
        with open(os.path.join(pickle_only, "config.json"), "w") as f:
            json.dump(config(), f)
        with open(os.path.join(pickle_only, "pytorch_model.bin"), "wb") as f:
            f.write(b"PK\x03\x04 not opened")
        self.refused(pickle_only, "pytorch_model.bin", "bin_to_safetensors.py")

        def variant(name, **kw):
            folder = self.path(name)
            write_folder(folder, kw.pop("params", params), **kw)
            return folder

        self.refused(variant("t5", cfg=config(model_type="t5")), "model_type \"t5\"")
        self.refused(variant("heads", cfg=config(n_head=5)), "config.json", "heads")
        self.refused(variant("act", cfg=config(activation_function="silu")), "activation_function \"silu\"")
        self.refused(variant("scale", cfg=config(scale_attn_by_inverse_layer_idx=True)), "scale_attn_by_inverse_layer_idx")
        self.refused(variant("count", cfg=config(n_layer=-2)), "'n_layer' is -2")
        missing = dict(params)
        del missing["h.1.mlp.c_fc.bias"]
        self.refused(variant("missing", params=missing), "transformer.h.1.mlp.c_fc.bias")
        wrong = dict(params)
        wrong["h.0.attn.c_attn.weight"] = wrong["h.0.attn.c_attn.weight"].T.copy()
        self.refused(variant("shape", params=wrong), "transformer.h.0.attn.c_attn.weight", "(48, 16)", "(16, 48)")
        self.refused(variant("unknown", extra={"transformer.h.0.attn.rotary": np.zeros(3, np.float32)}),
                     "transformer.h.0.attn.rotary")
        self.refused(variant("twice", extra={"h.0.ln_1.bias": params["h.0.ln_1.bias"]}), "h.0.ln_1.bias", "twice")
        self.refused(variant("notok", tokenizer=False), "vocab.json")
        no_config = variant("noconfig")
        os.remove(os.path.join(no_config, "config.json"))
        self.refused(no_config, "config.json")
        nan = dict(params)
        nan["ln_f.bias"] = np.full(D, np.nan, np.float32)
        self.refused(variant("nan", params=nan), "encoder.norm.bias")

        escape = variant("escape", shards=2)
        index = os.path.join(escape, "model.safetensors.index.json")
        with open(index) as f:
            j = json.load(f)
        j["weight_map"]["transformer.wte.weight"] = "../good/model.safetensors"
        with open(index, "w") as f:
            json.dump(j, f)
        self.refused(escape, "../good/model.safetensors", "not a .safetensors file name inside the folder")

        self.refused(good, "--heads", args=("--heads", "2"), rc=2)
        self.refused(good, "--weights", args=("--weights", os.path.join(good, "model.safetensors")), rc=2)
        long_text = " ".join(["cat"] * (POSITIONS + 1))
        r = run_attnlab(["export", "--out", self.path("long"), "--model", good, "--text", long_text])
        self.assertEqual(r.rc, 2, r.describe())
        self.assertIn("learned position table (%d rows" % POSITIONS, r.err)

    def test_generation_draws_as_documented(self):
        params = random_parameters(7)
        folder = self.path("gen")
        write_folder(folder, params)
        prompts, steps = ["the cat", "in a hat"], 4
        for temperature, top_k, top_p, seed in [(0, 0, 1, 0), (1.0, 0, 1, 3), (0.7, 5, 0.9, 11)]:
            with self.subTest(temperature=temperature, top_k=top_k, top_p=top_p):
                args = ["--generate", str(steps), "--temperature", str(temperature), "--top-k", str(top_k),
                        "--top-p", str(top_p), "--seed", str(seed)]
                _, trace, manifest = self.export(folder, *args, texts=prompts)
                gen = manifest["generation"]
                self.assertEqual((gen["steps"], gen["seed"], gen["top_k"]), (steps, seed, top_k))
                close = set()  # rows with a draw within a hair of going the other way
                for b, text in enumerate(prompts):
                    ids = reference_ids(text)
                    prompt = len(ids)
                    u = gen_golden.Stream("generate:%d" % b, seed).uniform(steps)
                    got = gen["rows"][b]["ids"]
                    for step in range(steps):
                        logits = reference_gpt2(params, torch.tensor([ids]))["logits"][0, -1].numpy()
                        want, margin = reference_draw(logits, temperature, top_k, top_p, u[step])
                        # float32 against float64: only a decision within a hair may go the other way
                        self.assertTrue(got[step] == want or margin < 1e-4, (b, step, got, want, margin))
                        if margin < 1e-4:
                            close.add(b)
                        ids.append(got[step])
                    self.assertEqual(gen["rows"][b]["prompt_pieces"], prompt)
                    self.assertEqual(trace["encoder.token_ids"][b][:len(ids)].astype(int).tolist(), ids)
                    self.assertTrue(gen["rows"][b]["text"].startswith(text), gen["rows"][b]["text"])
                again = self.export(folder, *args, texts=prompts)[2]["generation"]
                self.assertEqual(again["rows"], gen["rows"])  # the seed decides every draw
                # the KV cache and the whole text run again per piece: the same draws
                self.assertTrue(gen["kv_cache"])
                self.assertGreater(manifest["timings_ms"]["generate"], 0)
                uncached = self.export(folder, *args, "--no-kv-cache", texts=prompts)[2]["generation"]
                self.assertFalse(uncached["kv_cache"])
                for b, (a, c) in enumerate(zip(uncached["rows"], gen["rows"])):
                    if b in close:
                        continue
                    self.assertEqual(a["ids"], c["ids"])
                    np.testing.assert_allclose(a["probabilities"], c["probabilities"], rtol=1e-4, atol=1e-7)
                self.assertLess(len(close), len(prompts))  # at least one row compared
        r = run_attnlab(["export", "--out", self.path("g1"), "--text", "the cat", "--generate", "2"])
        self.assertEqual(r.rc, 2, r.describe())
        self.assertIn("need --model", r.err)
        for bad in (["--top-p", "0"], ["--temperature", "-1"], ["--generate", "2000"]):
            r = run_attnlab(["export", "--out", self.path("g2"), "--model", folder, "--text", "the cat", *bad])
            self.assertEqual(r.rc, 2, r.describe())
            self.assertIn(bad[0], r.err)
        r = run_attnlab(["export", "--out", self.path("g3"), "--model", folder, "--text", "the cat", "--generate",
                         str(POSITIONS)])
        self.assertEqual(r.rc, 2, r.describe())
        self.assertIn("learned position table (%d rows" % POSITIONS, r.err)
        self.assertFalse(any(os.path.exists(self.path(g)) for g in ("g1", "g2", "g3")))

    def test_non_ascii_text_runs_through_byte_pieces(self):
        params = random_parameters(6)
        folder = self.path("bytes")
        write_folder(folder, params)
        text = "猫 sat ☕"
        got = run_attnlab(["tokenize", "--model", folder, "--text", text])
        self.assertEqual(got.rc, 0, got.describe())
        want = [t["id"] for t in json.loads(got.out)["texts"][0]["tokens"]]
        # 猫's three bytes, " sat" merged whole, " ☕" as a space and three bytes (no merge joins them)
        self.assertEqual(want[3], VOCAB["Ġsat"])
        self.assertEqual(len(want), 8)
        _, trace, _ = self.export(folder, texts=[text])
        self.assertEqual(trace["encoder.token_ids"][0].astype(np.int64).tolist(), want)


if __name__ == "__main__":
    lib.main()
