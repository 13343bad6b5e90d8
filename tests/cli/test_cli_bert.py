"""attnlab export --model DIR with BERT and DistilBERT checkpoint folders (docs/cli.md "Pretrained
checkpoints"): config.json, model.safetensors and vocab.txt in exactly Hugging Face's layout and
naming (BertForPreTraining's names with its pooler and next-sentence head, DistilBertForMaskedLM's),
written here with small random weights, run by Attention Lab and compared with a reference BERT
written below from the published architecture (Devlin et al. 2019; Hugging Face's BertForMaskedLM):
the embeddings with their token type and LayerNorm, every layer's attention weights and output
(post-norm, exact GELU, [PAD] keys masked), the masked-LM head's transform and the logits through
the tied decoder with its bias. The WordPiece pieces are hand-checked. reproduce.py runs on the
bundles, with the backward pass (--loss sum) checked by autograd. No checkpoint is downloaded."""
import json
import math
import os

import numpy as np
import torch

import attnlab_testlib as lib
from attnlab_testlib import run_attnlab

D, H, LAYERS, FF, POSITIONS, TYPES = 16, 4, 2, 40, 20, 2
EPS = 1e-12

PIECES = ["[PAD]", "[UNK]", "[CLS]", "[SEP]", "[MASK]", "the", "cat", "sat", "on", "mat", ".", ",", "!", "a", "dog",
          "play", "##ing", "##s", "猫", "cafe"]
ID = {p: i for i, p in enumerate(PIECES)}
V = len(PIECES)

# Hand-checked WordPiece cuts (uncased: lower-cased, accents stripped; punctuation its own word;
# a CJK ideograph its own word; greedy longest pieces, "##" continuations; [MASK] typed stays whole).
TEXTS = ["The cat sat on the [MASK].", "a dog, Playing!", "猫 sat cats", "Café zebra"]
CUTS = [["[CLS]", "the", "cat", "sat", "on", "the", "[MASK]", ".", "[SEP]"],
        ["[CLS]", "a", "dog", ",", "play", "##ing", "!", "[SEP]"],
        ["[CLS]", "猫", "sat", "cat", "##s", "[SEP]"],
        ["[CLS]", "cafe", "[UNK]", "[SEP]"]]


def bert_parameters(seed, distil=False):
    """BERT's parameters under Hugging Face's names (BertForPreTraining without "bert." on the
    heads' names; DistilBertForMaskedLM's when distil)."""
    g = np.random.default_rng(seed)
    n = lambda *shape, s=0.4: (g.standard_normal(shape) * s).astype(np.float32)
    ln = lambda: (1 + n(D, s=0.2), n(D, s=0.2))
    p = {}
    pre = "distilbert." if distil else "bert."
    p[pre + "embeddings.word_embeddings.weight"] = n(V, D, s=1.0)
    p[pre + "embeddings.position_embeddings.weight"] = n(POSITIONS, D, s=0.5)
    if not distil:
        p[pre + "embeddings.token_type_embeddings.weight"] = n(TYPES, D, s=0.5)
    p[pre + "embeddings.LayerNorm.weight"], p[pre + "embeddings.LayerNorm.bias"] = ln()
    for i in range(LAYERS):
        if distil:
            h = pre + "transformer.layer.%d." % i
            names = ["attention.q_lin", "attention.k_lin", "attention.v_lin", "attention.out_lin", "sa_layer_norm",
                     "ffn.lin1", "ffn.lin2", "output_layer_norm"]
        else:
            h = pre + "encoder.layer.%d." % i
            names = ["attention.self.query", "attention.self.key", "attention.self.value", "attention.output.dense",
                     "attention.output.LayerNorm", "intermediate.dense", "output.dense", "output.LayerNorm"]
        q, k, v, o, n1, f1, f2, n2 = (h + x for x in names)
        for lin in (q, k, v, o):
            p[lin + ".weight"], p[lin + ".bias"] = n(D, D), n(D, s=0.2)
        p[f1 + ".weight"], p[f1 + ".bias"] = n(FF, D), n(FF, s=0.2)
        p[f2 + ".weight"], p[f2 + ".bias"] = n(D, FF, s=0.2), n(D, s=0.2)
        p[n1 + ".weight"], p[n1 + ".bias"] = ln()
        p[n2 + ".weight"], p[n2 + ".bias"] = ln()
    if distil:
        p["vocab_transform.weight"], p["vocab_transform.bias"] = n(D, D), n(D, s=0.2)
        p["vocab_layer_norm.weight"], p["vocab_layer_norm.bias"] = ln()
        p["vocab_projector.bias"] = n(V, s=0.5)
    else:
        p["cls.predictions.transform.dense.weight"], p["cls.predictions.transform.dense.bias"] = n(D, D), n(D, s=0.2)
        w, b = ln()
        p["cls.predictions.transform.LayerNorm.weight"], p["cls.predictions.transform.LayerNorm.bias"] = w, b
        p["cls.predictions.bias"] = n(V, s=0.5)
    return p


def pretraining_extras(p):
    """What BertForPreTraining stores beside the masked-LM model: the tied decoder again, the
    pooler, the next-sentence head and the position_ids buffer (int64)."""
    return {"cls.predictions.decoder.weight": p["bert.embeddings.word_embeddings.weight"],
            "cls.predictions.decoder.bias": p["cls.predictions.bias"],
            "bert.pooler.dense.weight": np.zeros((D, D), np.float32), "bert.pooler.dense.bias": np.zeros(D, np.float32),
            "cls.seq_relationship.weight": np.zeros((2, D), np.float32),
            "cls.seq_relationship.bias": np.zeros(2, np.float32),
            "bert.embeddings.position_ids": np.arange(POSITIONS, dtype=np.int64)[None]}


def bert_config(**changes):
    c = {"architectures": ["BertForMaskedLM"], "model_type": "bert", "hidden_size": D, "num_attention_heads": H,
         "num_hidden_layers": LAYERS, "intermediate_size": FF, "max_position_embeddings": POSITIONS,
         "type_vocab_size": TYPES, "vocab_size": V, "hidden_act": "gelu", "layer_norm_eps": EPS,
         "pad_token_id": 0, "position_embedding_type": "absolute", "hidden_dropout_prob": 0.1,
         "torch_dtype": "float32", "transformers_version": "4.35.2"}
    c.update(changes)
    return {k: v for k, v in c.items() if v is not None}


def distil_config(**changes):
    c = {"architectures": ["DistilBertForMaskedLM"], "model_type": "distilbert", "dim": D, "n_heads": H,
         "n_layers": LAYERS, "hidden_dim": FF, "max_position_embeddings": POSITIONS, "vocab_size": V,
         "activation": "gelu", "sinusoidal_pos_embds": False, "pad_token_id": 0, "transformers_version": "4.35.2"}
    c.update(changes)
    return {k: v for k, v in c.items() if v is not None}


def write_folder(folder, tensors, cfg, lower_case=True, vocab=True, dtype="F32"):
    os.makedirs(folder, exist_ok=True)
    with open(os.path.join(folder, "config.json"), "w", encoding="utf-8") as f:
        json.dump(cfg, f, indent=2)
    dtypes = {k: "I64" if v.dtype == np.int64 else dtype for k, v in tensors.items()}
    lib.write_safetensors(os.path.join(folder, "model.safetensors"), tensors, {"format": "pt"}, dtypes)
    if vocab:
        with open(os.path.join(folder, "vocab.txt"), "w", encoding="utf-8") as f:
            f.write("\n".join(PIECES) + "\n")
        with open(os.path.join(folder, "tokenizer_config.json"), "w", encoding="utf-8") as f:
            json.dump({"do_lower_case": lower_case, "tokenizer_class": "BertTokenizer"}, f)


def stored(params, dtype):
    """The values a checkpoint of `dtype` holds, widened back to float32."""
    if dtype == "F16":
        return {k: v.astype(np.float16).astype(np.float32) if v.dtype == np.float32 else v for k, v in params.items()}
    return {k: lib.bf16_round(v) if v.dtype == np.float32 else v for k, v in params.items()}


# ----------------------------------------------------------------------------- the reference BERT

def float64_tensors(p, grad=False):
    return {k: torch.from_numpy(v.astype(np.float64)).requires_grad_(grad) for k, v in p.items()
            if v.dtype == np.float32}


def reference_bert(p, ids, distil=False, eps=EPS, act="gelu", head=None, t=None):
    """BERT (or DistilBERT) as published, in float64, with the attention mask of the real pieces:
    the embeddings' sum and LayerNorm, per layer the attention weights (B, H, S, S) and output, the
    head's transform and the logits (B, S, V). act: "gelu" (exact) or "gelu_new" (tanh); head: an
    untied decoder weight (V, D); t: the parameters as tensors already (float64_tensors(p, True))."""
    t = float64_tensors(p) if t is None else t
    pre = "distilbert." if distil else "bert."
    ln = lambda x, name: torch.nn.functional.layer_norm(x, (D,), t[name + ".weight"], t[name + ".bias"], eps)
    lin = lambda x, name: x @ t[name + ".weight"].T + t[name + ".bias"]
    if act == "gelu":
        gelu = lambda x: 0.5 * x * (1.0 + torch.erf(x / math.sqrt(2.0)))
    else:
        gelu = lambda x: 0.5 * x * (1.0 + torch.tanh(math.sqrt(2.0 / math.pi) * (x + 0.044715 * torch.pow(x, 3.0))))
    b, s = ids.shape
    x = t[pre + "embeddings.word_embeddings.weight"][ids] + t[pre + "embeddings.position_embeddings.weight"][:s]
    if not distil:
        x = x + t[pre + "embeddings.token_type_embeddings.weight"][torch.zeros_like(ids)]
    out = {"embeddings": x, "weights": [], "outputs": []}
    x = ln(x, pre + "embeddings.LayerNorm")
    out["input"] = x
    pad_key = (ids == ID["[PAD]"])[:, None, None, :]
    for i in range(LAYERS):
        if distil:
            h = pre + "transformer.layer.%d." % i
            q, k, v, o, n1, f1, f2, n2 = (h + x_ for x_ in ["attention.q_lin", "attention.k_lin", "attention.v_lin",
                                                          "attention.out_lin", "sa_layer_norm", "ffn.lin1", "ffn.lin2",
                                                          "output_layer_norm"])
        else:
            h = pre + "encoder.layer.%d." % i
            q, k, v, o, n1, f1, f2, n2 = (h + x_ for x_ in ["attention.self.query", "attention.self.key",
                                                          "attention.self.value", "attention.output.dense",
                                                          "attention.output.LayerNorm", "intermediate.dense",
                                                          "output.dense", "output.LayerNorm"])
        split = lambda z: z.view(b, s, H, D // H).transpose(1, 2)
        qh, kh, vh = split(lin(x, q)), split(lin(x, k)), split(lin(x, v))
        scores = (qh @ kh.transpose(-1, -2)) / math.sqrt(D // H)
        w = torch.softmax(scores.masked_fill(pad_key, -math.inf), dim=-1)
        out["weights"].append(w)
        ctx = (w @ vh).transpose(1, 2).reshape(b, s, D)
        x = ln(x + lin(ctx, o), n1)
        x = ln(x + lin(gelu(lin(x, f1)), f2), n2)
        out["outputs"].append(x)
    if distil:
        hd = ln(gelu(lin(x, "vocab_transform")), "vocab_layer_norm")
        bias = t["vocab_projector.bias"]
    else:
        hd = ln(gelu(lin(x, "cls.predictions.transform.dense")), "cls.predictions.transform.LayerNorm")
        bias = t["cls.predictions.bias"]
    out["transform"] = hd
    decoder = t[pre + "embeddings.word_embeddings.weight"] if head is None else torch.from_numpy(head.astype(np.float64))
    out["logits"] = hd @ decoder.T + bias  # the tied (or untied) decoder, its own bias
    return out


def padded_ids(cuts):
    longest = max(map(len, cuts))
    return torch.tensor([[ID[p] for p in c] + [ID["[PAD]"]] * (longest - len(c)) for c in cuts])


class Bert(lib.CheckpointCase):
    TEXTS = TEXTS

    def assert_matches_reference(self, trace, manifest, params, distil=False, texts=TEXTS, cuts=CUTS):
        longest = max(map(len, cuts))
        self.assertEqual(manifest["tokens"], [c + ["[PAD]"] * (longest - len(c)) for c in cuts])
        ids = padded_ids(cuts)
        self.assertEqual(trace["encoder.token_ids"].astype(np.int64).tolist(), ids.tolist())
        ref = reference_bert(params, ids, distil)
        if not distil:
            self.assert_close(trace["encoder.token_type"], np.broadcast_to(
                params["bert.embeddings.token_type_embeddings.weight"][0], (longest, D)), "encoder.token_type")
        self.assert_close(trace["encoder.embeddings"], ref["embeddings"].numpy(), "encoder.embeddings")
        self.assert_close(trace["encoder.input"], ref["input"].numpy(), "encoder.input")
        for i in range(LAYERS):
            p = "encoder.layers.%d." % i
            self.assert_close(trace[p + "self_attn.weights"], ref["weights"][i].numpy(), p + "self_attn.weights")
            self.assert_close(trace[p + "output"], ref["outputs"][i].numpy(), p + "output")
        self.assert_close(trace["encoder.output_head.transform_norm"], ref["transform"].numpy(), "transform_norm")
        self.assert_close(trace["encoder.output_head.logits"], ref["logits"].numpy(), "logits", atol=1e-3)
        return ref

    def test_bert_checkpoint_matches_the_reference_architecture(self):
        params = bert_parameters(1)
        folder = self.path("bert")
        write_folder(folder, {**params, **pretraining_extras(params)}, bert_config())
        out, trace, manifest = self.export(folder)
        c = manifest["config"]
        self.assertEqual((c["mask"], c["norm"], c["activation"], c["positional"]), ("padding", "post", "gelu", "learned"))
        self.assertEqual((c["token_types"], c["embedding_norm"], c["head_transform"]), (TYPES, True, True))
        ref = self.assert_matches_reference(trace, manifest, params)
        # the masked word: its guesses are the head's at the [MASK] position, ranked
        at = CUTS[0].index("[MASK]")
        top = manifest["model"]["predictions"][0][at]
        want = torch.topk(torch.softmax(ref["logits"][0, at], -1), len(top))
        self.assertEqual([e["id"] for e in top], want.indices.tolist())
        self.assertEqual(manifest["model"]["task"], "masked-word")
        steps = {s["id"]: s for s in manifest["steps"]}
        self.assertEqual(steps["encoder.output_head.logits"]["code"],
                         "logits = F.linear(x, output_head_weight, output_head_bias)")
        self.assertIn("x = F.layer_norm(embeddings", steps["encoder.input"]["code"])
        rc, stdout, stderr = lib.reproduce(out)
        self.assertEqual(rc, 0, stdout[-3000:] + stderr[-2000:])
        rows = lib.reported(stdout)
        for step in ("encoder.token_type", "encoder.embeddings", "encoder.input", "encoder.output_head.transform_norm",
                     "encoder.output_head.logits"):
            self.assertEqual(rows.get(step), "ok", step)
        # the bundle's weights file reads, but the word tokenizer would cut "[MASK]" and miss [CLS] and
        # [SEP]: refused on text, naming the folder option
        r = run_attnlab(["export", "--out", self.path("again"), "--weights", os.path.join(out, "weights.safetensors"),
                         "--text", "the [MASK] sat"])
        self.assertEqual(r.rc, 2, r.describe())
        self.assertIn("WordPiece", r.err)
        self.assertIn("--model", r.err)
        self.assertFalse(os.path.exists(self.path("again")))

    def test_backward_through_the_embedding_layernorm(self):
        # --loss sum: the gradient goes back through the layers, the embedding LayerNorm and the
        # token-type and position tables; reproduce.py checks every one with autograd
        params = bert_parameters(2)
        folder = self.path("grad")
        write_folder(folder, params, bert_config())
        out, trace, manifest = self.export(folder, "--loss", "sum", texts=TEXTS[:2])
        for name in ("encoder.embedding_norm.weight", "encoder.token_type_embedding.weight",
                     "encoder.position_embedding.weight"):
            self.assertIn("grad/" + name, trace)
        g = trace["grad/encoder.token_type_embedding.weight"]
        self.assertTrue(np.any(g[0] != 0) and np.all(g[1] == 0), "only row 0 (segment A) was read")
        rc, stdout, stderr = lib.reproduce(out)
        self.assertEqual(rc, 0, stdout[-3000:] + stderr[-2000:])
        rows = lib.reported(stdout)
        for step in ("encoder.embeddings.grad", "encoder.token_type.grad", "grad/encoder.embedding_norm.weight",
                     "grad/encoder.token_type_embedding.weight", "grad/embedding.weight"):
            self.assertEqual(rows.get(step), "ok", (step, sorted(k for k in rows if "grad" in k)))

    def test_masked_word_loss_through_the_head_transform_and_tied_decoder(self):
        # --loss per-position with the answers' ids: the masked word's cross-entropy goes back
        # through the decoder's bias, the tied table (one parameter: the embedding's and the
        # decoder's gradients summed), the head's LayerNorm, GELU and dense layer. Row 0 of a
        # checkpoint is a real piece ([PAD] here), so an answer 0 counts; only −1 is none.
        params = bert_parameters(5)
        folder = self.path("mlm")
        write_folder(folder, {**params, **pretraining_extras(params)}, bert_config())
        ids = padded_ids(CUTS[:2])
        target = np.full(ids.shape, -1, np.int64)
        at = CUTS[0].index("[MASK]")
        target[0, at] = ID["mat"]
        target[1, 2] = 0
        np.save(self.path("answers.npy"), target)
        out, trace, manifest = self.export(folder, "--loss", "per-position", "--target", self.path("answers.npy"),
                                           texts=TEXTS[:2])
        t = float64_tensors(params, grad=True)
        ref = reference_bert(params, ids, t=t)
        loss = torch.nn.functional.cross_entropy(ref["logits"].reshape(-1, V), torch.from_numpy(target).reshape(-1),
                                                 ignore_index=-1)
        loss.backward()
        self.assertAlmostEqual(manifest["loss"]["value"], loss.item(), delta=1e-4 * max(1.0, loss.item()))
        table = t["bert.embeddings.word_embeddings.weight"].grad.numpy()
        for name, want in (("embedding.weight", table), ("output_head.weight", table),
                           ("output_head.bias", t["cls.predictions.bias"].grad),
                           ("output_head.transform.weight", t["cls.predictions.transform.dense.weight"].grad),
                           ("output_head.transform_norm.weight", t["cls.predictions.transform.LayerNorm.weight"].grad),
                           ("encoder.embedding_norm.weight", t["bert.embeddings.LayerNorm.weight"].grad),
                           ("encoder.layers.0.self_attn.out_proj.weight",
                            t["bert.encoder.layer.0.attention.output.dense.weight"].grad)):
            want = want.numpy() if torch.is_tensor(want) else want
            self.assertGreater(np.abs(want).max(), 1e-4, name)
            self.assert_close(trace["grad/" + name], want, "grad/" + name)
        rc, stdout, stderr = lib.reproduce(out)
        self.assertEqual(rc, 0, stdout[-3000:] + stderr[-2000:])
        got = lib.reported(stdout)
        for name in ("grad/embedding.weight", "grad/output_head.transform.weight", "encoder.output_head.transform.grad"):
            self.assertEqual(got.get(name), "ok", name)

    def test_half_and_bfloat16_checkpoints(self):
        # kept in 16 bits until used (the query, key and value weights stacked as one 16-bit in_proj,
        # the decoder tied to the 16-bit table), every step as the reference of the stored values
        params = bert_parameters(6)
        for dtype in ("F16", "BF16"):
            with self.subTest(dtype=dtype):
                folder = self.path("bert-" + dtype)
                write_folder(folder, {**params, **pretraining_extras(params)}, bert_config(), dtype=dtype)
                _, trace, manifest = self.export(folder)
                self.assert_matches_reference(trace, manifest, stored(params, dtype))
        distil = bert_parameters(7, distil=True)
        folder = self.path("distil-F16")
        write_folder(folder, distil, distil_config(), dtype="F16")
        _, trace, manifest = self.export(folder)
        self.assert_matches_reference(trace, manifest, stored(distil, "F16"), distil=True)

    def test_distilbert_checkpoint(self):
        params = bert_parameters(3, distil=True)
        folder = self.path("distil")
        extras = {"vocab_projector.weight": params["distilbert.embeddings.word_embeddings.weight"]}
        write_folder(folder, {**params, **extras}, distil_config())
        out, trace, manifest = self.export(folder)
        self.assertNotIn("encoder.token_type", trace)
        self.assert_matches_reference(trace, manifest, params, distil=True)
        rc, stdout, stderr = lib.reproduce(out)
        self.assertEqual(rc, 0, stdout[-3000:] + stderr[-2000:])

    def test_distilbert_untied_projector(self):
        # tie_word_embeddings false: DistilBERT's vocab_projector.weight is its own table (required),
        # and the logits go through it, not through the word embeddings
        params = bert_parameters(5, distil=True)
        projector = (np.random.default_rng(9).standard_normal((V, D)) * 0.5).astype(np.float32)
        folder = self.path("distil-untied")
        write_folder(folder, {**params, "vocab_projector.weight": projector}, distil_config(tie_word_embeddings=False))
        _, trace, manifest = self.export(folder, texts=TEXTS[:2])
        ref = reference_bert(params, padded_ids(CUTS[:2]), distil=True, head=projector)
        self.assert_close(trace["encoder.output_head.logits"], ref["logits"].numpy(), "logits", atol=1e-3)
        tied = reference_bert(params, padded_ids(CUTS[:2]), distil=True)["logits"].numpy()
        self.assertGreater(np.abs(trace["encoder.output_head.logits"] - tied).max(), 0.1)  # the projector mattered
        missing = self.path("distil-untied-missing")
        write_folder(missing, params, distil_config(tie_word_embeddings=False))
        r = run_attnlab(["export", "--out", self.path("m"), "--model", missing, "--text", TEXTS[0]])
        self.assertEqual(r.rc, 1, r.describe())
        self.assertIn("vocab_projector.weight", r.err)

    def test_prepend_bos_is_gpt2s(self):
        params = bert_parameters(4)
        folder = self.path("bos")
        write_folder(folder, params, bert_config())
        self.refused(folder, "--prepend-bos", "[CLS]", args=("--prepend-bos",), rc=2)

    def test_untied_decoder_epsilon_and_tanh_gelu(self):
        # config.json's layer_norm_eps, hidden_act gelu_new and an untied decoder weight each change
        # the numbers; the reference follows them
        params = bert_parameters(7)
        decoder = (np.random.default_rng(8).standard_normal((V, D)) * 0.5).astype(np.float32)
        folder = self.path("untied")
        write_folder(folder, {**params, "cls.predictions.decoder.weight": decoder},
                     bert_config(tie_word_embeddings=False, layer_norm_eps=1e-3, hidden_act="gelu_new"))
        _, trace, manifest = self.export(folder, texts=TEXTS[:2])
        self.assertEqual((manifest["config"]["eps"], manifest["config"]["activation"]), (1e-3, "gelu_tanh"))
        ref = reference_bert(params, padded_ids(CUTS[:2]), eps=1e-3, act="gelu_new", head=decoder)
        self.assert_close(trace["encoder.input"], ref["input"].numpy(), "encoder.input")
        self.assert_close(trace["encoder.layers.1.output"], ref["outputs"][1].numpy(), "output")
        self.assert_close(trace["encoder.output_head.logits"], ref["logits"].numpy(), "logits", atol=1e-3)

    def test_old_layernorm_names_and_no_prefix(self):
        # TensorFlow-era checkpoints name LayerNorm parameters gamma and beta; names may lack "bert."
        params = bert_parameters(4)
        renamed = {}
        for k, v in params.items():
            k = k[len("bert."):] if k.startswith("bert.") else k
            if "LayerNorm." in k:
                k = k.replace(".weight", ".gamma").replace(".bias", ".beta")
            renamed[k] = v
        folder = self.path("old")
        write_folder(folder, renamed, bert_config())
        _, trace, manifest = self.export(folder, texts=TEXTS[:1])
        self.assert_matches_reference(trace, manifest, params, texts=TEXTS[:1], cuts=CUTS[:1])

    def test_cased_vocabulary_keeps_case(self):
        params = bert_parameters(5)
        folder = self.path("cased")
        write_folder(folder, params, bert_config(), lower_case=False)
        _, _, manifest = self.export(folder, texts=["The cat"])
        self.assertEqual(manifest["tokens"], [["[CLS]", "[UNK]", "cat", "[SEP]"]])

    def test_refusals_name_the_key_or_tensor(self):
        params = bert_parameters(6)

        def variant(name, tensors=None, cfg=None, **kw):
            folder = self.path(name)
            write_folder(folder, params if tensors is None else tensors, cfg or bert_config(), **kw)
            return folder

        good = variant("good")
        self.refused(good, "--generate", "masked words", args=("--generate", "2"), rc=2)
        self.refused(variant("relative", cfg=bert_config(position_embedding_type="relative_key")),
                     "position_embedding_type \"relative_key\"")
        self.refused(variant("decoder", cfg=bert_config(is_decoder=True)), "is_decoder", "BERT")
        self.refused(variant("act", cfg=bert_config(hidden_act="swish")), "hidden_act \"swish\"")
        missing = dict(params)
        del missing["cls.predictions.bias"]
        self.refused(variant("missing", missing), "cls.predictions.bias")
        missing = dict(params)
        del missing["bert.encoder.layer.1.attention.self.key.bias"]
        self.refused(variant("missing-key", missing), "bert.encoder.layer.1.attention.self.key.bias")
        self.refused(variant("unknown", {**params, "bert.encoder.layer.0.attention.self.distance_embedding.weight":
                                         np.zeros((3, D), np.float32)}),
                     "distance_embedding", "not part of a BERT checkpoint")
        self.refused(variant("untied", cfg=bert_config(tie_word_embeddings=False)), "cls.predictions.decoder.weight")
        self.refused(variant("bias-twice", {**params, "cls.predictions.decoder.bias": params["cls.predictions.bias"] + 1}),
                     "cls.predictions.decoder.bias", "differs")
        self.refused(variant("novocab", vocab=False), "vocab.txt")
        gpt_tok = variant("gpt-tokenizer", vocab=False)
        with open(os.path.join(gpt_tok, "vocab.json"), "w") as f:
            json.dump({p: i for i, p in enumerate(PIECES)}, f)
        with open(os.path.join(gpt_tok, "merges.txt"), "w") as f:
            f.write("#version: 0.2\n")
        self.refused(gpt_tok, "byte-level-bpe", "BERT", "wordpiece")
        self.refused(variant("size", cfg=bert_config(vocab_size=V + 1)),
                     "the tokenizer has %d pieces but the embedding table %d rows" % (V, V + 1))
        long_text = " ".join(["cat"] * POSITIONS)
        self.refused(good, "learned position table (%d rows" % POSITIONS, args=("--text", long_text), rc=2)


if __name__ == "__main__":
    lib.main()
