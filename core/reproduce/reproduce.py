#!/usr/bin/env python3
"""Check this Attention Lab bundle with PyTorch, independently of Attention Lab.

    python3 reproduce.py [BUNDLE_FOLDER]        (default: the folder this script is in)

Reads weights.safetensors, manifest.json and trace.npz; rebuilds every layer as PyTorch's own
nn.TransformerEncoderLayer / nn.TransformerDecoderLayer with those weights; recomputes every step
from the bundle's inputs (the token ids and the embedding table; for a trained model its own
vocabulary, embedding table and output head, whose top-5 predictions in manifest.json are checked
too); prints, per step, the largest
difference from the bundle; and exits 1 when any element is beyond the tolerance
|a - b| <= atol + rtol*|b| (1e-5, 1e-4 for the CPU; 1e-4, 1e-3 for a Vulkan run), 0 otherwise.
The projections, head split, scores, mask, softmax and head merge are computed step by step and
the module's own outputs are checked against them. Needs only PyTorch and NumPy.
"""
import json
import math
import pathlib
import struct
import sys

import numpy as np
import torch
import torch.nn as nn
import torch.nn.functional as F

TOLERANCE = {"cpu": (1e-5, 1e-4), "vulkan": (1e-4, 1e-3)}


def read_safetensors(path):
    data = path.read_bytes()
    (n,) = struct.unpack("<Q", data[:8])
    header = json.loads(data[8:8 + n])
    tensors = {}
    for name, t in header.items():
        if name == "__metadata__":
            continue
        if t["dtype"] != "F32":
            sys.exit(f"{path}: tensor {name} is {t['dtype']}; this script reads the F32 files Attention Lab writes")
        begin, end = t["data_offsets"]
        tensors[name] = torch.from_numpy(np.frombuffer(data[8 + n + begin:8 + n + end], dtype="<f4")
                                         .reshape(t["shape"]).copy())
    tensors["__metadata__"] = header.get("__metadata__", {})
    return tensors


def positional(s, d):
    """PE(p, 2i) = sin(p / 10000^(2i/D)), PE(p, 2i+1) = cos(p / 10000^(2i/D)), in double, then float."""
    pe = np.zeros((s, d), dtype=np.float32)
    for p in range(s):
        for c in range(d):
            angle = p / math.pow(10000.0, (c - c % 2) / d)
            pe[p, c] = math.sin(angle) if c % 2 == 0 else math.cos(angle)
    return torch.from_numpy(pe)


def masks(kind, key_ids, tq):
    """(B, Tq, Tk) 1 = may attend; PyTorch's attn_mask and key_padding_mask for the modules."""
    b, tk = key_ids.shape
    pad = kind in ("padding", "padding+causal")
    causal = kind in ("causal", "padding+causal")
    kpm = (key_ids == 0) if pad else torch.zeros(b, tk, dtype=torch.bool)
    attn = torch.triu(torch.ones(tq, tk, dtype=torch.bool), diagonal=1) if causal else None
    hidden = kpm.unsqueeze(1).expand(b, tq, tk).clone()
    if attn is not None:
        hidden |= attn
    return (~hidden).float(), attn, (kpm if pad else None)


class Checker:
    """Compares each recomputed step with the bundle's tensor of the same id."""

    def __init__(self, trace, atol, rtol):
        self.trace, self.atol, self.rtol = trace, atol, rtol
        self.rows, self.failed = [], []

    def __setitem__(self, step_id, t):
        t = t.detach().double()
        if step_id not in self.trace:
            return
        ref = torch.from_numpy(self.trace[step_id].astype(np.float64))
        if tuple(ref.shape) != tuple(t.shape):
            self.rows.append((step_id, float("inf"), False))
            self.failed.append(f"{step_id}: shape {tuple(ref.shape)} in the bundle, {tuple(t.shape)} recomputed")
            return
        same_inf = torch.isinf(ref) & torch.isinf(t) & (ref == t)
        both_nan = torch.isnan(ref) & torch.isnan(t)
        diff = torch.where(same_inf | both_nan, torch.zeros_like(t), (t - ref).abs())
        diff = torch.nan_to_num(diff, nan=float("inf"))
        worst = float(diff.max()) if diff.numel() else 0.0
        ok = bool((diff <= self.atol + self.rtol * torch.nan_to_num(ref.abs(), posinf=0.0)).all())
        self.rows.append((step_id, worst, ok))
        if not ok:
            self.failed.append(f"{step_id}: largest difference {worst:.3g}")


def attention(chk, a, xq, xkv, mask, mha, heads, attn_mask, kpm):
    b, tq, d = xq.shape
    tk = xkv.shape[1]
    dh = d // heads
    w, bias = mha.in_proj_weight, mha.in_proj_bias
    split = {}
    for i, n in enumerate("qkv"):
        src, t = (xq, tq) if n == "q" else (xkv, tk)
        proj = F.linear(src, w[i * d:(i + 1) * d], bias[i * d:(i + 1) * d])
        chk[a + n + "_proj"] = proj
        view = proj.view(b, t, heads, dh)
        chk[a + n + "_view"] = view
        split[n] = view.transpose(1, 2)
        chk[a + n] = split[n]
    k_t = split["k"].transpose(-2, -1)
    chk[a + "k_t"] = k_t
    qk = split["q"] @ k_t
    chk[a + "qk"] = qk
    scores = qk / math.sqrt(dh)
    chk[a + "scores"] = scores
    masked = scores.masked_fill(mask.unsqueeze(1) == 0, float("-inf"))
    chk[a + "masked_scores"] = masked
    weights = torch.softmax(masked, dim=-1)
    head_out = weights @ split["v"]
    merged = head_out.transpose(1, 2)
    context = merged.contiguous().view(b, tq, d)
    out = F.linear(context, mha.out_proj.weight, mha.out_proj.bias)
    # PyTorch's own module: its per-head weights and its output.
    m_out, m_w = mha(xq, xkv, xkv, attn_mask=attn_mask, key_padding_mask=kpm, need_weights=True,
                     average_attn_weights=False)
    chk[a + "weights"] = m_w
    chk[a + "head_out"] = head_out
    chk[a + "merge_transpose"] = merged
    chk[a + "merge_contiguous"] = merged.contiguous()
    chk[a + "context"] = context
    chk[a + "out"] = m_out
    return out


def layer_steps(chk, p, x, layer, cfg, blocks):
    def norm(k, t):
        n = getattr(layer, f"norm{k}")
        r = F.layer_norm(t, (cfg["d_model"],), n.weight, n.bias, eps=cfg["eps"])
        chk[p + f"norm{k}"] = r
        return r

    def residual(k, t, sub):
        r = t + sub
        chk[p + f"residual{k}"] = r
        return r

    s = x
    for k, f in enumerate(blocks, start=1):
        s = residual(k, s, f(norm(k, s))) if cfg["norm"] == "pre" else norm(k, residual(k, s, f(s)))
    return s


def ffn(chk, p, x, layer, cfg):
    h1 = F.linear(x, layer.linear1.weight, layer.linear1.bias)
    chk[p + "ffn.linear1"] = h1
    h = F.gelu(h1) if cfg["activation"] == "gelu" else F.relu(h1)
    chk[p + "ffn.hidden"] = h
    out = F.linear(h, layer.linear2.weight, layer.linear2.bias)
    chk[p + "ffn.out"] = out
    return out


def token_ids(chk, stack, trace, tokens, vocab):
    """A trained model's ids from its own vocabulary ([UNK] = 1 for a token it does not know);
    otherwise the bundle's ids (its vocabulary is the batch's own tokens)."""
    if vocab is None:
        return torch.from_numpy(trace[stack + ".token_ids"].astype(np.int64))
    index = {w: i for i, w in enumerate(vocab)}
    ids = torch.tensor([[index.get(t, 1) for t in row] for row in tokens], dtype=torch.int64)
    chk[stack + ".token_ids"] = ids
    return ids


def output_head(chk, stack, x, weights, manifest):
    """logits = x Wᵀ + b and their softmax; then the manifest's top-5 predictions against them."""
    logits = F.linear(x, weights["output_head.weight"], weights["output_head.bias"])
    chk[stack + ".output_head.logits"] = logits
    probs = torch.softmax(logits, dim=-1)
    chk[stack + ".output_head.probs"] = probs
    listed = manifest.get("model", {}).get("predictions")
    if listed is None:
        return
    worst, ok = 0.0, True
    for b, rows in enumerate(listed):
        for i, top in enumerate(rows):
            best = torch.topk(probs[b, i].double(), len(top)).values
            for rank, p in enumerate(top):  # each listed probability is the model's, and ranked right
                listed_p = math.nan if p["prob"] is None else p["prob"]  # JSON writes NaN as null
                for ref in (float(probs[b, i, p["id"]]), float(best[rank])):
                    if math.isnan(ref) or math.isnan(listed_p):
                        ok = ok and math.isnan(ref) and math.isnan(listed_p)
                        continue
                    worst = max(worst, abs(listed_p - ref))
                    ok = ok and abs(listed_p - ref) <= chk.atol + chk.rtol * abs(ref)
    chk.rows.append(("manifest: model.predictions", worst, ok))
    if not ok:
        chk.failed.append(f"manifest predictions: largest difference {worst:.3g}")


def embed(chk, stack, ids, table, cfg):
    emb = table[ids]
    chk[stack + ".embedding"] = emb
    if cfg["positional"] == "none":
        chk[stack + ".input"] = emb
        return ids, emb
    pe = positional(ids.shape[1], cfg["d_model"])
    chk[stack + ".positional"] = pe
    x = emb + pe
    chk[stack + ".input"] = x
    return ids, x


def build(cfg, weights, stack):
    kw = dict(d_model=cfg["d_model"], nhead=cfg["heads"], dim_feedforward=cfg["d_ff"], dropout=0.0,
              activation=cfg["activation"], layer_norm_eps=cfg["eps"], batch_first=True,
              norm_first=cfg["norm"] == "pre")
    kind = nn.TransformerEncoderLayer if stack == "encoder" else nn.TransformerDecoderLayer
    layers = []
    for i in range(cfg["layers"]):
        layer = kind(**kw)
        prefix = f"{stack}.layers.{i}."
        layer.load_state_dict({k[len(prefix):]: v for k, v in weights.items() if k.startswith(prefix)}, strict=True)
        layer.train()  # dropout is 0; train mode keeps PyTorch off its fused inference path
        layers.append(layer)
    return layers


def run(folder):
    manifest = json.loads((folder / "manifest.json").read_text(encoding="utf-8"))
    cfg = manifest["config"]
    trace = dict(np.load(folder / "trace.npz"))
    weights = read_safetensors(folder / "weights.safetensors")
    atol, rtol = TOLERANCE.get(manifest.get("backend", "cpu"), TOLERANCE["cpu"])
    chk = Checker(trace, atol, rtol)
    cross = bool(cfg.get("cross_attention"))
    torch.set_grad_enabled(False)
    meta = weights.pop("__metadata__")
    vocab = json.loads(meta["vocab"]) if "embedding.weight" in weights else None
    if vocab is None:
        table = torch.from_numpy(trace["encoder.embedding_table"])
    else:  # a trained model: its own table, which the bundle's must equal
        table = weights["embedding.weight"]
        chk["encoder.embedding_table"] = table
    enc_tokens = manifest["memory_tokens"] if cross else manifest["tokens"]
    ids, x = embed(chk, "encoder", token_ids(chk, "encoder", trace, enc_tokens, vocab), table, cfg)
    mask, attn_mask, kpm = masks("padding" if cross else cfg["mask"], ids, ids.shape[1])
    chk["encoder.mask"] = mask
    for i, layer in enumerate(build(cfg, weights, "encoder")):
        p = f"encoder.layers.{i}."
        layer_steps(chk, p, x, layer, cfg, [
            lambda t: attention(chk, p + "self_attn.", t, t, mask, layer.self_attn, cfg["heads"], attn_mask, kpm),
            lambda t: ffn(chk, p, t, layer, cfg)])
        x = layer(x, src_mask=attn_mask, src_key_padding_mask=kpm)  # the module's output is the next input
        chk[p + "output"] = x
    if not cross and vocab is not None:
        output_head(chk, "encoder", x, weights, manifest)
    if cross:
        memory, mem_ids = x, ids
        tgt_ids, y = embed(chk, "decoder", token_ids(chk, "decoder", trace, manifest["tokens"], vocab), table, cfg)
        t = tgt_ids.shape[1]
        self_mask, self_attn, self_kpm = masks(cfg["mask"], tgt_ids, t)
        chk["decoder.self_mask"] = self_mask
        cross_mask, _, mem_kpm = masks("padding", mem_ids, t)
        chk["decoder.cross_mask"] = cross_mask
        for i, layer in enumerate(build(cfg, weights, "decoder")):
            p = f"decoder.layers.{i}."
            layer_steps(chk, p, y, layer, cfg, [
                lambda s: attention(chk, p + "self_attn.", s, s, self_mask, layer.self_attn, cfg["heads"],
                                    self_attn, self_kpm),
                lambda s: attention(chk, p + "multihead_attn.", s, memory, cross_mask, layer.multihead_attn,
                                    cfg["heads"], None, mem_kpm),
                lambda s: ffn(chk, p, s, layer, cfg)])
            y = layer(y, memory, tgt_mask=self_attn, tgt_key_padding_mask=self_kpm, memory_key_padding_mask=mem_kpm)
            chk[p + "output"] = y
        if vocab is not None:
            output_head(chk, "decoder", y, weights, manifest)
    return manifest, chk


def main():
    folder = pathlib.Path(sys.argv[1] if len(sys.argv) > 1 else pathlib.Path(__file__).resolve().parent)
    manifest, chk = run(folder)
    width = max(len(s) for s, _, _ in chk.rows)
    for step_id, worst, ok in chk.rows:
        print(f"{step_id:<{width}}  {worst:10.3g}  {'ok' if ok else 'DIFFERS'}")
    recomputed = {s for s, _, _ in chk.rows}
    inputs = {"encoder.embedding_table", "encoder.token_ids", "decoder.token_ids"}
    skipped = [s["id"] for s in manifest["steps"] if s["id"] not in recomputed and s["id"] not in inputs]
    print(f"\n{len(chk.rows)} steps recomputed with PyTorch {torch.__version__}; tolerance "
          f"{chk.atol:g} + {chk.rtol:g}·|ref| ({manifest.get('backend', 'cpu')} run)")
    if skipped:
        print(f"{len(skipped)} steps not recomputed (no PyTorch counterpart): {', '.join(skipped)}")
    if manifest["config"].get("faults"):
        print("This bundle has planted faults (" + ", ".join(manifest["config"]["faults"]) +
              "): PyTorch computes the correct model, so the faulty steps and those after them differ.")
    if chk.failed:
        print(f"{len(chk.failed)} steps differ beyond the tolerance:\n  " + "\n  ".join(chk.failed))
        return 1
    print("Every recomputed step agrees with the bundle.")
    return 0


if __name__ == "__main__":
    sys.exit(main())
