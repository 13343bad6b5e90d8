#!/usr/bin/env python3
"""Check this Attention Lab bundle with PyTorch, independently of Attention Lab.

    python3 reproduce.py [BUNDLE_FOLDER]        (default: the folder this script is in)

Reads weights.safetensors, manifest.json and trace.npz; rebuilds every layer as PyTorch's own
nn.TransformerEncoderLayer / nn.TransformerDecoderLayer with those weights; recomputes every step
from the bundle's inputs (the token ids and the embedding table; for a trained model its own
vocabulary, embedding table and output head, whose top-5 predictions in manifest.json are checked
too); prints, per step, the largest
difference from the bundle; and exits 1 when any element is beyond the tolerance
|a - b| <= atol + rtol*|b| (1e-5, 1e-4 for the CPU; 1e-4, 1e-3 for a Vulkan run), 0 otherwise;
for a trained model (its own vocabulary) the scores QKᵀ and QKᵀ/√d may also differ by float32's
rounding bound for a dot product, 2·d_head·2^-24·Σ|q_i·k_i| (a small score after cancellation
between the large terms of a sharp trained head; seeded weights keep the contract's tolerance).
The projections, head split, scores, mask, softmax and head merge are computed step by step and
the module's own outputs are checked against them. Needs only PyTorch and NumPy.

A bundle exported with --loss also holds the backward pass: "<step>.grad" and "grad/<parameter>"
arrays. The script then runs its own computation with autograd, takes the same loss (manifest
"loss") from its own last output, and compares every gradient with torch.autograd.grad within
1e-4 + 1e-3·|ref| (1e-3 + 1e-2 for a Vulkan run).

A bundle exported with --explain holds its explanations (manifest "explanation_steps"): each is
recomputed by its own code from the bundle's arrays and compared within the forward's tolerance
(attention flow only up to FLOW_RECHECK_LIMIT: its plain-Python max-flow is slow; the logit lens's
ids by their probabilities, equal ones in either order).
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
GRAD_TOLERANCE = {"cpu": (1e-4, 1e-3), "vulkan": (1e-3, 1e-2)}


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
    if tensors["__metadata__"].get("tied_head") == "true" and "output_head.weight" not in tensors:
        tensors["output_head.weight"] = tensors["embedding.weight"]  # stored once: the head is the table
    return tensors


def positional(s, d):
    """PE(p, 2i) = sin(p / 10000^(2i/D)), PE(p, 2i+1) = cos(p / 10000^(2i/D)), in double, then float."""
    pe = np.zeros((s, d), dtype=np.float32)
    for p in range(s):
        for c in range(d):
            angle = p / math.pow(10000.0, (c - c % 2) / d)
            pe[p, c] = math.sin(angle) if c % 2 == 0 else math.cos(angle)
    return torch.from_numpy(pe)


def masks(kind, key_tokens, tq):
    """(B, Tq, Tk) 1 = may attend; PyTorch's attn_mask and key_padding_mask for the modules. The
    padding is where the keys' tokens are [PAD] (whatever row a pretrained model reads for it)."""
    b, tk = len(key_tokens), len(key_tokens[0])
    pad = kind in ("padding", "padding+causal")
    causal = kind in ("causal", "padding+causal")
    is_pad = torch.tensor([[t == "[PAD]" for t in row] for row in key_tokens], dtype=torch.bool)
    kpm = is_pad if pad else torch.zeros(b, tk, dtype=torch.bool)
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
        self.live = {}  # step id -> the tensor on the computation's own path (for autograd)
        self.dot_bounds = False  # a trained model: scores also within float32's dot-product bound
        self.overview_cap = 0  # config.overview_cap: the tiled path's overview bins

    def keep(self, step_id, t):
        """The path's tensor of a step whose checked value is the module's own."""
        self.live[step_id] = t

    def __setitem__(self, step_id, t):
        self.live.setdefault(step_id, t)
        self.compare(step_id, t)

    def compare(self, step_id, t, atol=None, rtol=None, bound=None):
        """bound: an extra allowance per element (a rounding-error bound that |ref| does not show)."""
        atol, rtol = (self.atol if atol is None else atol), (self.rtol if rtol is None else rtol)
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
        allowed = atol + rtol * torch.nan_to_num(ref.abs(), posinf=0.0)
        ok = bool((diff <= (allowed if bound is None else allowed + bound.detach().double())).all())
        self.rows.append((step_id, worst, ok))
        if not ok:
            self.failed.append(f"{step_id}: largest difference {worst:.3g}")

    def compare_value(self, what, value, ref, atol, rtol):
        worst = abs(value - ref)
        ok = worst <= atol + rtol * abs(ref)
        self.rows.append((what, worst, ok))
        if not ok:
            self.failed.append(f"{what}: {value:.6g} recomputed, {ref:.6g} in the bundle")


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
    # A score is a dot product of dh terms: float32 rounds each side's sum by up to γ_dh·Σ|q_i·k_i|
    # (γ_n ≈ n·2^-24, Higham), which a small score after cancellation does not show in |ref|.
    dot_bound = 2 * dh * 2.0 ** -24 * (split["q"].abs() @ k_t.abs()) if chk.dot_bounds else None
    chk.live.setdefault(a + "qk", qk)
    chk.compare(a + "qk", qk, bound=dot_bound)
    scores = qk / math.sqrt(dh)
    chk.live.setdefault(a + "scores", scores)
    chk.compare(a + "scores", scores, bound=None if dot_bound is None else dot_bound / math.sqrt(dh))
    masked = scores.masked_fill(mask.unsqueeze(1) == 0, float("-inf"))
    chk[a + "masked_scores"] = masked
    weights = torch.softmax(masked, dim=-1)
    head_out = weights @ split["v"]
    merged = head_out.transpose(1, 2)
    merged_c = merged.contiguous()
    context = merged_c.view(b, tq, d)
    out = F.linear(context, mha.out_proj.weight, mha.out_proj.bias)
    chk.keep(a + "weights", weights)  # the path autograd follows; the module's values are checked
    for h in range(heads):  # a head of a tiled layer kept whole (config.full_heads): that head's weights
        chk[a + f"weights_head_{h}"] = weights[:, h:h + 1]
    if chk.overview_cap:  # a tiled layer's overview of the weights (a step the bundle has only then)
        chk.compare(a + "weights_overview", overview_of(weights.nan_to_num(0.0), chk.overview_cap))
    chk.keep(a + "out", out)
    # PyTorch's own module: its per-head weights and its output.
    m_out, m_w = mha(xq, xkv, xkv, attn_mask=attn_mask, key_padding_mask=kpm, need_weights=True,
                     average_attn_weights=False)
    chk[a + "weights"] = m_w
    chk[a + "head_out"] = head_out
    chk[a + "merge_transpose"] = merged
    chk[a + "merge_contiguous"] = merged_c
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


def layer_activation(name):
    """What nn.Transformer*Layer takes for it: a name, or GPT-2's GELU as a module."""
    return nn.GELU(approximate="tanh") if name == "gelu_tanh" else name


def activate(h, name):
    """relu, gelu (the exact erf form) or gelu_tanh (GPT-2's, approximate="tanh")."""
    if name == "gelu":
        return F.gelu(h)
    if name == "gelu_tanh":
        return F.gelu(h, approximate="tanh")
    return F.relu(h)


def ffn(chk, p, x, layer, cfg):
    h1 = F.linear(x, layer.linear1.weight, layer.linear1.bias)
    chk[p + "ffn.linear1"] = h1
    h = activate(h1, cfg["activation"])
    chk[p + "ffn.hidden"] = h
    out = F.linear(h, layer.linear2.weight, layer.linear2.bias)
    chk[p + "ffn.out"] = out
    return out


def token_ids(chk, stack, trace, tokens, vocab, meta):
    """A trained model's ids from its own vocabulary ([UNK] = 1 for a token it does not know; a
    pretrained checkpoint's vocabulary says its own pad_id and unk_id); otherwise the bundle's ids
    (its vocabulary is the batch's own tokens)."""
    if vocab is None:
        return torch.from_numpy(trace[stack + ".token_ids"].astype(np.int64))
    index = {w: i for i, w in enumerate(vocab)}
    pad, unk = int(meta.get("pad_id", 0)), int(meta.get("unk_id", 1))
    ids = torch.tensor([[pad if t == "[PAD]" else index.get(t, unk) for t in row] for row in tokens], dtype=torch.int64)
    chk[stack + ".token_ids"] = ids
    return ids


def head_transform(chk, stack, x, weights, cfg):
    """BERT's masked-LM head transform (config "head_transform"): dense, the activation, a
    LayerNorm — or x as it is."""
    if not cfg.get("head_transform"):
        return x
    p = stack + ".output_head."
    h = F.linear(x, weights["output_head.transform.weight"], weights["output_head.transform.bias"])
    chk[p + "transform"] = h
    h = activate(h, cfg["activation"])
    chk[p + "transform_act"] = h
    h = F.layer_norm(h, (cfg["d_model"],), weights["output_head.transform_norm.weight"],
                     weights["output_head.transform_norm.bias"], eps=cfg["eps"])
    chk[p + "transform_norm"] = h
    return h


def output_head(chk, stack, x, weights, manifest):
    """logits = x Wᵀ + b (a head tied to the embedding table may have no b) and their softmax; then
    the manifest's top-5 predictions against them."""
    x = head_transform(chk, stack, x, weights, manifest["config"])
    logits = F.linear(x, weights["output_head.weight"], weights.get("output_head.bias"))
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


def embed(chk, stack, ids, table, cfg, weights):
    """x = table[ids] + the position code: sinusoidal, none, or the first S rows of the stack's
    learned table "<stack>.position_embedding.weight" (a parameter, so its gradient is checked);
    BERT's encoder adds row 0 of its token-type table (config "token_types") and normalises the sum
    (config "embedding_norm": encoder.embeddings is the sum, encoder.input its LayerNorm)."""
    emb = table[ids]
    chk[stack + ".embedding"] = emb
    x = emb
    if cfg["positional"] != "none":
        if cfg["positional"] == "learned":
            pe = weights[stack + ".position_embedding.weight"][:ids.shape[1]]
        else:
            pe = positional(ids.shape[1], cfg["d_model"])
        chk[stack + ".positional"] = pe
        x = x + pe
    bert = stack == "encoder"
    if bert and cfg.get("token_types"):
        tt = weights["encoder.token_type_embedding.weight"][torch.zeros(ids.shape[1], dtype=torch.long)]
        chk["encoder.token_type"] = tt
        x = x + tt
    if bert and cfg.get("embedding_norm"):
        chk["encoder.embeddings"] = x
        x = F.layer_norm(x, (cfg["d_model"],), weights["encoder.embedding_norm.weight"],
                         weights["encoder.embedding_norm.bias"], eps=cfg["eps"])
    chk[stack + ".input"] = x
    return ids, x


def final_norm(chk, stack, x, weights, cfg):
    """{stack}.norm, the LayerNorm after the stack's last layer (config "final_norm"), or x."""
    if not cfg.get("final_norm"):
        return x
    out = F.layer_norm(x, (cfg["d_model"],), weights[stack + ".norm.weight"], weights[stack + ".norm.bias"],
                       eps=cfg["eps"])
    chk[stack + ".norm"] = out
    return out


class AttentionOnlyLayer(nn.Module):
    """An encoder layer without its feed-forward sub-layer (config "ffn": "none"): pre-norm
    x + MHA(norm1(x)), post-norm norm1(x + MHA(x)), PyTorch's own MultiheadAttention and LayerNorm."""

    def __init__(self, d_model, nhead, layer_norm_eps, norm_first, **_):
        super().__init__()
        self.self_attn = nn.MultiheadAttention(d_model, nhead, dropout=0.0, batch_first=True)
        self.norm1 = nn.LayerNorm(d_model, eps=layer_norm_eps)
        self.norm_first = norm_first

    def forward(self, x, src_mask=None, src_key_padding_mask=None):
        def attn(y):
            return self.self_attn(y, y, y, attn_mask=src_mask, key_padding_mask=src_key_padding_mask,
                                  need_weights=False)[0]
        return x + attn(self.norm1(x)) if self.norm_first else self.norm1(x + attn(x))


def attention_only(cfg):
    return cfg.get("ffn") == "none"


def build(cfg, weights, stack):
    kw = dict(d_model=cfg["d_model"], nhead=cfg["heads"], dim_feedforward=cfg["d_ff"], dropout=0.0,
              activation=layer_activation(cfg["activation"]), layer_norm_eps=cfg["eps"], batch_first=True,
              norm_first=cfg["norm"] == "pre")
    kind = nn.TransformerEncoderLayer if stack == "encoder" else nn.TransformerDecoderLayer
    if attention_only(cfg):
        kind = AttentionOnlyLayer if stack == "encoder" else None
    if kind is None:
        raise SystemExit("reproduce.py: an attention-only decoder is not something Attention Lab builds")
    layers = []
    for i in range(cfg["layers"]):
        layer = kind(**kw)
        prefix = f"{stack}.layers.{i}."
        layer.load_state_dict({k[len(prefix):]: v for k, v in weights.items() if k.startswith(prefix)}, strict=True)
        layer.train()  # dropout is 0; train mode keeps PyTorch off its fused inference path
        layers.append(layer)
    return layers


# --------------------------------------------------------------------------- attention variants
# docs/cli.md, "Attention variants": each variant recomputed from the block's q, k, v with dense
# (T, T) masks and plain loops, independently of the step code lines.

M64 = (1 << 64) - 1


def _mix(z):
    z = ((z ^ (z >> 30)) * 0xBF58476D1CE4E5B9) & M64
    z = ((z ^ (z >> 27)) * 0x94D049BB133111EB) & M64
    return z ^ (z >> 31)


class Stream:
    """rng.h: the SplitMix64 stream named `name` for `seed`."""

    def __init__(self, name, seed):
        h = 0xCBF29CE484222325
        for c in name.encode("utf-8"):
            h = ((h ^ c) * 0x100000001B3) & M64
        self.base = h ^ _mix(seed)

    def u64(self, i):
        return _mix((self.base + (i + 1) * 0x9E3779B97F4A7C15) & M64)

    def uniform(self, i):
        return ((self.u64(i) >> 11) + 1) * 2.0 ** -53

    def normal(self, j):
        return math.sqrt(-2.0 * math.log(self.uniform(2 * j))) * math.cos(2.0 * math.pi * self.uniform(2 * j + 1))


def _softmax_rows(scores, keep):
    """softmax over the kept entries of each row; a row with none kept is all zeros."""
    s = scores.masked_fill(~keep, float("-inf"))
    return torch.nan_to_num(torch.softmax(s, dim=-1), nan=0.0)


def _bigbird(t, v, heads, seed):
    nb = (t + v["block"] - 1) // v["block"]
    rnd = Stream("variant.bigbird", seed)
    out = torch.zeros(heads, t, t, dtype=torch.bool)
    for h in range(heads):
        for qb in range(nb):
            row = [abs(qb - kb) <= 1 or qb < v["globals"] or kb < v["globals"] for kb in range(nb)]
            for i in range(v["random_blocks"]):
                rest = [kb for kb in range(nb) if not row[kb]]
                if not rest:
                    break
                row[rest[rnd.u64((h * nb + qb) * v["random_blocks"] + i) % len(rest)]] = True
            for kb in range(nb):
                if row[kb]:
                    out[h, qb * v["block"]:(qb + 1) * v["block"], kb * v["block"]:(kb + 1) * v["block"]] = True
    return out


def variant(chk, manifest, trace, weights, cfg):
    v = cfg.get("variant")
    if not v:
        return
    kind, layer = v["kind"], v["layer"]
    p = f"encoder.layers.{layer}.variant.{kind}."
    a = f"encoder.layers.{layer}.self_attn."
    q, k, val = (torch.from_numpy(trace[a + n]).double() for n in ("q", "k", "v"))
    mask = torch.from_numpy(trace["encoder.mask"]) > 0                       # (B, T, T)
    b, heads, t, dh = q.shape
    full = torch.from_numpy(trace[a + "head_out"]).double()
    scores = q @ k.transpose(-2, -1) / math.sqrt(dh)
    idx = torch.arange(t)
    dist = idx[None, :] - idx[:, None]                                        # j − i
    real_key = mask.any(dim=1)                                                 # (B, T)
    seed = cfg["seed"]
    ref = full

    def sparse(name, keep):  # keep (B, H, T, T)
        chk[p + name] = keep.float()
        w = _softmax_rows(scores, keep)
        chk[p + "weights"] = w
        return w @ val

    if kind == "window":
        band = (dist.abs() <= v["window"]) | (idx[:, None] < v["globals"]) | (idx[None, :] < v["globals"])
        out = sparse("pattern", (band[None, None] & mask[:, None]).expand(b, heads, t, t))
    elif kind == "bigbird":
        out = sparse("pattern", _bigbird(t, v, heads, seed)[None] & mask[:, None])
    elif kind == "topk":
        masked = scores.masked_fill(~mask[:, None], float("-inf"))
        kth = masked.sort(dim=-1, descending=True).values[..., min(v["top_k"], t) - 1:min(v["top_k"], t)]
        out = sparse("pattern", (masked >= kth) & mask[:, None])
    elif kind in ("relative", "alibi"):
        if kind == "relative":
            m = v["max_distance"]
            rs = Stream("variant.relative_bias", seed)
            table = torch.tensor([[rs.normal(h * (2 * m + 1) + o) for o in range(2 * m + 1)] for h in range(heads)],
                                 dtype=torch.float32).double()
            chk[p + "table"] = table
            bias = table[:, dist.clamp(-m, m) + m]
        else:
            slopes = torch.tensor([2.0 ** (-8.0 * (h + 1) / heads) for h in range(heads)], dtype=torch.float64)
            bias = -slopes[:, None, None] * dist.abs()
        chk[p + "bias"] = bias
        w = _softmax_rows(scores + bias[None], mask[:, None].expand(b, heads, t, t))
        chk[p + "weights"] = w
        out = w @ val
    elif kind == "axial":
        g = v["grid_width"]
        keep = {}
        for stage, same in (("row", idx[:, None] // g == idx[None, :] // g), ("col", idx[:, None] % g == idx[None, :] % g)):
            keep[stage] = (same[None, None] & mask[:, None]).expand(b, heads, t, t)
            chk[p + stage + "_pattern"] = keep[stage].float()
        rw = _softmax_rows(scores, keep["row"])
        cw = _softmax_rows(scores, keep["col"])
        chk[p + "row_weights"], chk[p + "col_weights"] = rw, cw
        chk[p + "row_out"] = rw @ val
        chk[p + "effective"] = cw @ rw
        out = cw @ (rw @ val)
    elif kind == "linformer":
        r = v["rank"]
        e = torch.tensor([[Stream(f"variant.linformer.row{i}", seed).normal(j) for j in range(t)] for i in range(r)],
                         dtype=torch.float64) / math.sqrt(r)
        e = e.float().double()  # stored as float32
        chk[p + "projection"] = e
        keep = real_key[:, None, :, None].double()
        k_low, v_low = e @ (k * keep), e @ (val * keep)
        chk[p + "k_low"], chk[p + "v_low"] = k_low, v_low
        w = torch.softmax(q @ k_low.transpose(-2, -1) / math.sqrt(dh), dim=-1)
        chk[p + "low_weights"] = w
        chk[p + "effective"] = (w @ e) * real_key[:, None, None, :]
        out = w @ v_low
    elif kind == "linear":
        causal = cfg["mask"] in ("causal", "padding+causal") and not cfg.get("cross_attention")
        phi_q = F.elu(q) + 1
        phi_k = (F.elu(k) + 1) * real_key[:, None, :, None]
        chk[p + "phi_q"], chk[p + "phi_k"] = phi_q, phi_k
        chk[p + "kv"] = phi_k.transpose(-2, -1) @ val
        chk[p + "k_sum"] = phi_k.sum(dim=2)
        a_mat = phi_q @ phi_k.transpose(-2, -1)
        if causal:
            a_mat = a_mat * torch.ones(t, t).tril()
        quad = a_mat / a_mat.sum(-1, keepdim=True)
        chk[p + "quadratic"] = quad
        out = torch.zeros_like(q)                  # the O(T) way, one query at a time
        for i in range(t):
            js = slice(0, i + 1) if causal else slice(0, t)
            s_mat = phi_k[:, :, js].transpose(-2, -1) @ val[:, :, js]
            z = phi_k[:, :, js].sum(dim=2)
            out[:, :, i] = (phi_q[:, :, i, None, :] @ s_mat)[:, :, 0] / (phi_q[:, :, i] * z).sum(-1, keepdim=True)
        chk[p + "quadratic_out"] = quad @ val
    elif kind == "kv_cache":
        # Projecting token t alone gives row t of the whole sequence's projection.
        xs = torch.stack([torch.from_numpy(trace[a + n + "_proj"]).double() for n in "qkv"])  # (3, B, T, D)
        outs = []
        for step in range(t):
            kc = xs[1, :, :step + 1].view(b, step + 1, heads, dh).transpose(1, 2)
            vc = xs[2, :, :step + 1].view(b, step + 1, heads, dh).transpose(1, 2)
            chk[p + f"t{step}.k_cache"], chk[p + f"t{step}.v_cache"] = kc, vc
            qt = xs[0, :, step:step + 1].view(b, 1, heads, dh).transpose(1, 2)
            w = _softmax_rows(qt @ kc.transpose(-2, -1) / math.sqrt(dh), mask[:, None, step:step + 1, :step + 1])
            chk[p + f"t{step}.attn"] = w
            outs.append(w @ vc)
            chk[p + f"t{step}.out"] = outs[-1]
        out = torch.cat(outs, dim=2)
        ref = _softmax_rows(scores, (mask & torch.ones(t, t, dtype=torch.bool).tril())[:, None]) @ val
        chk[p + "reference"] = ref
    elif kind == "tiled":
        keep = mask[:, None].expand(b, heads, t, t)
        m_run = torch.full((b, heads, t, 1), float("-inf"), dtype=torch.float64)
        l_run = torch.zeros(b, heads, t, 1, dtype=torch.float64)
        o_run = torch.zeros_like(q)
        for j, start in enumerate(range(0, t, v["tile"])):
            end = min(start + v["tile"], t)
            s_blk = scores[..., start:end].masked_fill(~keep[..., start:end], float("-inf"))
            chk[p + f"tile{j}.scores"] = s_blk
            m_new = torch.maximum(m_run, s_blk.amax(-1, keepdim=True))
            r = torch.nan_to_num(torch.exp(m_run - m_new), nan=0.0)
            if j:
                chk[p + f"tile{j}.rescale"] = r
            e_blk = torch.nan_to_num(torch.exp(s_blk - m_new), nan=0.0)
            l_run = l_run * r + e_blk.sum(-1, keepdim=True)
            o_run = o_run * r + e_blk @ val[..., start:end, :]
            m_run = m_new
            chk[p + f"tile{j}.m"], chk[p + f"tile{j}.l"], chk[p + f"tile{j}.o"] = m_run, l_run, o_run
        out = torch.nan_to_num(o_run / l_run, nan=0.0)
    else:
        return
    chk[p + "head_out"] = out
    own = torch.diagonal(mask, dim1=1, dim2=2)                                  # the query's own key visible
    chk[p + "error"] = (out - ref).abs().amax(dim=(1, 3)) * own


def overview_of(t, cap):
    """(B, H, Tq, Tk) binned as the tiled path's weights overview (attention_tiled.h): bins of
    ceil(T / cap) positions when T > cap, else 1; per pair of bins the mean over the bin's queries
    of the sum over its keys (non-finite entries counted as 0)."""
    tq, tk = t.shape[2], t.shape[3]
    bq, bk = (1 if n <= cap else -(-n // cap) for n in (tq, tk))
    r, c = torch.arange(tq) // bq, torch.arange(tk) // bk
    a = torch.zeros(*t.shape[:2], int(r.max()) + 1, tk, dtype=t.dtype).index_add_(2, r, t.nan_to_num(0.0))
    a = a / torch.bincount(r).view(-1, 1).to(t.dtype)
    return torch.zeros(*a.shape[:3], int(c.max()) + 1, dtype=t.dtype).index_add_(3, c, a)


def gradients(chk, manifest, trace, params, backend, pretrained):
    """The bundle's backward pass against torch.autograd.grad of the same loss on this computation."""
    loss = manifest["loss"]
    out = chk.live.get(loss["input"])
    if out is None:
        chk.failed.append(f"loss: its input {loss['input']} was not recomputed")
        return
    kind = loss["kind"]
    if kind == "sum":
        value = out.sum()
    elif kind == "mse":
        value = F.mse_loss(out, torch.from_numpy(trace["loss/target"]))
    elif kind == "next-token":  # position i against token i + 1; [PAD] targets ignored
        ids = torch.from_numpy(trace[loss["input"].split(".")[0] + ".token_ids"].astype(np.int64))
        if pretrained:  # a checkpoint's [PAD] reads a real piece's row (GPT-2's <|endoftext|>): padding by length
            lengths = loss["lengths"]  # written for every next-token loss on a checkpoint
            pad = torch.arange(ids.shape[1]).unsqueeze(0) >= torch.tensor(lengths).unsqueeze(1)
            ids = torch.where(pad, torch.full_like(ids, -1), ids)
        else:  # Attention Lab's own vocabularies: [PAD] is id 0
            ids = torch.where(ids == 0, torch.full_like(ids, -1), ids)
        value = F.cross_entropy(out[:, :-1].reshape(-1, out.shape[-1]), ids[:, 1:].reshape(-1), ignore_index=-1)
    elif kind == "per-position":  # position i against the answer's token at i; -1 (and [PAD] = 0 but for a checkpoint) ignored
        t = torch.from_numpy(trace["loss/target"].astype(np.int64))
        t = torch.where(t >= (0 if pretrained else 1), t, torch.full_like(t, -1))
        value = F.cross_entropy(out.reshape(-1, out.shape[-1]), t.reshape(-1), ignore_index=-1)
    else:
        chk.failed.append(f"loss: this script does not know the loss '{kind}'")
        return
    atol, rtol = GRAD_TOLERANCE.get(backend, GRAD_TOLERANCE["cpu"])
    chk.compare_value("loss (" + kind + ")", float(value), float(loss["value"]), atol, rtol)
    ids = [s["id"] for s in manifest["gradient_steps"]]
    wrt = {}
    binned = ".weights_overview.grad"  # the tiled path's ∂L/∂scores, binned like its weights overview
    for i in ids:
        if i.endswith(binned):
            t = chk.live.get(i[:-len(binned)] + ".scores")
        else:
            t = params.get(i[len("grad/"):]) if i.startswith("grad/") else chk.live.get(i[:-len(".grad")])
        if t is None:
            chk.failed.append(f"{i}: not recomputed")
        else:
            wrt[i] = t
    grads = torch.autograd.grad(value, list(wrt.values()), allow_unused=True)
    for (i, t), g in zip(wrt.items(), grads):
        g = torch.zeros_like(t) if g is None else g
        chk.compare(i, overview_of(g, manifest["config"]["overview_cap"]) if i.endswith(binned) else g, atol, rtol)


# explain.flow's code is Edmonds-Karp in plain Python: beyond layers x S^4 of this it is not rerun
# (at the limit, 4 layers of 24 tokens, it took about 4 s on one core in 2026), and the script says so.
FLOW_RECHECK_LIMIT = 4 * 24 ** 4


def explanations(chk, manifest, trace, weights):
    """Each --explain step recomputed by its own code (PyTorch; flow: Edmonds-Karp in plain Python,
    not core's Dinic) from the bundle's arrays, which the checks above have held to PyTorch, and
    the weights it names (the logit lens: the final LayerNorm and the output head)."""
    skipped = []
    for s in manifest.get("explanation_steps", []):
        if s["kind"] == "data":  # explain.token_ablation: one forward pass per key, not rerun here
            continue
        if s["id"] == "explain.flow" and len(s["vars"]) * trace[s["id"]].shape[1] ** 4 > FLOW_RECHECK_LIMIT:
            skipped.append(s["id"])
            continue
        ns = {"torch": torch, "F": F, "math": math}
        ns.update({var: torch.from_numpy(trace[step]) for var, step in s["vars"].items()})
        ns.update({var: weights[name].detach() for var, name in s["weights"].items()})
        exec(compile(s["code"], "<" + s["id"] + ">", "exec"), ns)
        chk.compare(s["id"], ns[s["result"]])
    return skipped


def run(folder):
    manifest = json.loads((folder / "manifest.json").read_text(encoding="utf-8"))
    cfg = manifest["config"]
    trace = dict(np.load(folder / "trace.npz"))
    weights = read_safetensors(folder / "weights.safetensors")
    atol, rtol = TOLERANCE.get(manifest.get("backend", "cpu"), TOLERANCE["cpu"])
    chk = Checker(trace, atol, rtol)
    chk.overview_cap = cfg.get("overview_cap", 0)
    cross = bool(cfg.get("cross_attention"))
    grads = "loss" in manifest  # the backward pass too: follow this computation's own path
    torch.set_grad_enabled(grads)
    meta = weights.pop("__metadata__")
    vocab = json.loads(meta["vocab"]) if "embedding.weight" in weights else None
    params = {}
    for name in ("embedding.weight", "output_head.weight", "output_head.bias", "encoder.position_embedding.weight",
                 "decoder.position_embedding.weight", "encoder.norm.weight", "encoder.norm.bias", "decoder.norm.weight",
                 "decoder.norm.bias", "encoder.token_type_embedding.weight", "encoder.embedding_norm.weight",
                 "encoder.embedding_norm.bias", "output_head.transform.weight", "output_head.transform.bias",
                 "output_head.transform_norm.weight", "output_head.transform_norm.bias"):
        if name in weights:
            params[name] = weights[name].requires_grad_(grads)
    if meta.get("tied_head") == "true":  # a checkpoint's head is its embedding table: one parameter, used twice
        if not torch.equal(weights["output_head.weight"], weights["embedding.weight"]):
            chk.failed.append("tied_head: output_head.weight differs from embedding.weight")
        weights["output_head.weight"] = params["output_head.weight"] = params["embedding.weight"]
    if vocab is None:
        table = torch.from_numpy(trace["encoder.embedding_table"]).requires_grad_(grads)
    else:  # a trained model: its own table, which the bundle's must equal
        table = weights["embedding.weight"]
        chk["encoder.embedding_table"] = table
        chk.dot_bounds = True
    enc_tokens = manifest["memory_tokens"] if cross else manifest["tokens"]
    ids, x = embed(chk, "encoder", token_ids(chk, "encoder", trace, enc_tokens, vocab, meta), table, cfg, weights)
    mask, attn_mask, kpm = masks("padding" if cross else cfg["mask"], enc_tokens, ids.shape[1])
    chk["encoder.mask"] = mask
    for i, layer in enumerate(build(cfg, weights, "encoder")):
        p = f"encoder.layers.{i}."
        params.update({p + n: t for n, t in layer.named_parameters()})
        hand = layer_steps(chk, p, x, layer, cfg, [
            lambda t: attention(chk, p + "self_attn.", t, t, mask, layer.self_attn, cfg["heads"], attn_mask, kpm),
            lambda t: ffn(chk, p, t, layer, cfg)][:1 if attention_only(cfg) else 2])
        chk.keep(p + "output", hand)
        module = layer(x, src_mask=attn_mask, src_key_padding_mask=kpm)
        chk[p + "output"] = module
        x = hand if grads else module  # the module's output is the next input, unless autograd follows
    x = final_norm(chk, "encoder", x, weights, cfg)
    if not cross and vocab is not None:
        output_head(chk, "encoder", x, weights, manifest)
    if cross:
        memory, mem_ids = x, ids
        tgt_ids, y = embed(chk, "decoder", token_ids(chk, "decoder", trace, manifest["tokens"], vocab, meta), table,
                           cfg, weights)
        t = tgt_ids.shape[1]
        self_mask, self_attn, self_kpm = masks(cfg["mask"], manifest["tokens"], t)
        chk["decoder.self_mask"] = self_mask
        cross_mask, _, mem_kpm = masks("padding", enc_tokens, t)
        chk["decoder.cross_mask"] = cross_mask
        for i, layer in enumerate(build(cfg, weights, "decoder")):
            p = f"decoder.layers.{i}."
            params.update({p + n: t for n, t in layer.named_parameters()})
            hand = layer_steps(chk, p, y, layer, cfg, [
                lambda s: attention(chk, p + "self_attn.", s, s, self_mask, layer.self_attn, cfg["heads"],
                                    self_attn, self_kpm),
                lambda s: attention(chk, p + "multihead_attn.", s, memory, cross_mask, layer.multihead_attn,
                                    cfg["heads"], None, mem_kpm),
                lambda s: ffn(chk, p, s, layer, cfg)])
            chk.keep(p + "output", hand)
            module = layer(y, memory, tgt_mask=self_attn, tgt_key_padding_mask=self_kpm, memory_key_padding_mask=mem_kpm)
            chk[p + "output"] = module
            y = hand if grads else module
        y = final_norm(chk, "decoder", y, weights, cfg)
        if vocab is not None:
            output_head(chk, "decoder", y, weights, manifest)
    variant(chk, manifest, trace, weights, cfg)
    if grads:
        gradients(chk, manifest, trace, params, manifest.get("backend", "cpu"), "pad_id" in meta)
    chk.slow = explanations(chk, manifest, trace, weights)
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
    if chk.slow:
        print(f"Not recomputed (layers x tokens^4 above {FLOW_RECHECK_LIMIT}, too slow in plain Python): "
              + ", ".join(chk.slow))
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
