#!/usr/bin/python3
"""Golden reference traces from PyTorch for tests/golden/test_golden.cpp.

Run with Debian's interpreter (python3-torch 1.13, python3-numpy), not a pyenv one:

    /usr/bin/python3 tests/golden/gen_golden.py                 # rewrite tests/golden/data/
    /usr/bin/python3 tests/golden/gen_golden.py --out DIR       # write elsewhere
    /usr/bin/python3 tests/golden/gen_golden.py --out DIR --compare tests/golden/data
                                                                # regenerate and check bit for bit

Everything the C++ core derives from text and a seed is reimplemented here independently, from
docs/cli.md and the contract (../shared/spec/cli-and-export.md), not from the C++ code paths:
the tokenizer (NFC, whitespace, P*/S* and CJK characters alone, runs of letters/marks/digits),
the vocabulary order, the SplitMix64 streams, the embedding table, the sinusoidal code and the
seeded weight initialisation. The layers are PyTorch's own nn.TransformerEncoderLayer /
nn.TransformerDecoderLayer (batch_first, dropout 0, train mode: no fused fast path). Every
step the C++ model records is recomputed by hand with torch ops from the module's parameters;
the script asserts that the hand computation reproduces the module's layer output and its
per-head attention weights within 1e-5, and stores the module's own values for `P.output` and
`A.weights`.

Output per case: data/<case>.npz (float32, step id -> array, in the model's recording order,
-inf kept), data/cases.json (the case list), and for the file-weights case
data/<case>.safetensors in the attnlab-weights/1 format.
"""

import argparse
import json
import math
import os
import shutil
import struct
import sys
import time
import unicodedata

try:
    import numpy as np
    import torch
    import torch.nn as nn
    import torch.nn.functional as F
except ImportError as e:  # not Debian's interpreter: let ctest report the test as skipped
    print(f"gen_golden.py: {e}; run it with /usr/bin/python3 (python3-torch, python3-numpy)", file=sys.stderr)
    sys.exit(77)

HERE = os.path.dirname(os.path.abspath(__file__))
DEFAULT_OUT = os.path.join(HERE, "data")
ASSERT_TOL = 1e-5  # hand computation vs the PyTorch module
CPU_ATOL, CPU_RTOL = 1e-5, 1e-4  # the contract's CPU tolerance (shared/spec, "Tolerances")
PAD = "[PAD]"

# ----------------------------------------------------------------------------------------------
# The seeded generator (docs/cli.md, "The seeded generator"), vectorised over uint64.

M64 = (1 << 64) - 1
GAMMA = 0x9E3779B97F4A7C15
U = np.uint64


def mix_int(z):
    z &= M64
    z = ((z ^ (z >> 30)) * 0xBF58476D1CE4E5B9) & M64
    z = ((z ^ (z >> 27)) * 0x94D049BB133111EB) & M64
    return z ^ (z >> 31)


def mix_np(z):
    z = z ^ (z >> U(30))
    z = z * U(0xBF58476D1CE4E5B9)
    z = z ^ (z >> U(27))
    z = z * U(0x94D049BB133111EB)
    return z ^ (z >> U(31))


def fnv1a64(data: bytes):
    h = 0xCBF29CE484222325
    for c in data:
        h ^= c
        h = (h * 0x100000001B3) & M64
    return h


class Stream:
    def __init__(self, name: str, seed: int):
        self.base = fnv1a64(name.encode("utf-8")) ^ mix_int(seed)

    def u64(self, n):
        i = np.arange(n, dtype=np.uint64)
        with np.errstate(over="ignore"):
            return mix_np(U(self.base) + (i + U(1)) * U(GAMMA))

    def uniform(self, n):  # (0, 1], exact in double
        return ((self.u64(n) >> U(11)) + U(1)).astype(np.float64) * 2.0 ** -53

    def normal(self, n):  # Box-Muller cosine branch in double (libm via math), rounded to f32
        u = self.uniform(2 * n)
        out = [math.sqrt(-2.0 * math.log(u[2 * j])) * math.cos(2.0 * math.pi * u[2 * j + 1]) for j in range(n)]
        return np.array(out, dtype=np.float64).astype(np.float32)


# Known values of the generator, so that a change in it cannot go unnoticed here.
def self_test_generator():
    assert mix_int(0) == 0
    assert fnv1a64(b"") == 0xCBF29CE484222325
    assert fnv1a64(b"a") == 0xAF63DC4C8601EC8C
    s = Stream("x", 0)
    assert int(s.u64(3)[2]) == mix_int(s.base + 3 * GAMMA)
    u = s.uniform(1000)
    assert (u > 0).all() and (u <= 1).all()


# ----------------------------------------------------------------------------------------------
# Tokenisation (contract "Tokenisation"), vocabulary, token batches.

CJK_BLOCKS = [
    (0x3040, 0x309F),  # Hiragana
    (0x30A0, 0x30FF),  # Katakana
    (0x31F0, 0x31FF),  # Katakana phonetic extensions
    (0x3400, 0x4DBF),  # CJK extension A
    (0x4E00, 0x9FFF),  # CJK unified ideographs
    (0xAC00, 0xD7AF),  # Hangul syllables
    (0xF900, 0xFAFF),  # CJK compatibility ideographs
    (0x20000, 0x2A6DF),  # CJK extension B
    (0x2A700, 0x2EBEF),  # CJK extensions C-F
    (0x2F800, 0x2FA1F),  # CJK compatibility supplement
    (0x30000, 0x3134F),  # CJK extension G
]
WHITESPACE_CONTROLS = {0x09, 0x0A, 0x0B, 0x0C, 0x0D, 0x85}


def char_class(ch):
    cp = ord(ch)
    if any(lo <= cp <= hi for lo, hi in CJK_BLOCKS):
        return "single"
    cat = unicodedata.category(ch)
    if cat[0] in "LM" or cat in ("Nd", "Nl", "No"):
        return "word"
    if cat[0] in "PS":
        return "single"
    if cat in ("Zs", "Zl", "Zp") or cp in WHITESPACE_CONTROLS:
        return "space"
    return "drop"  # other controls, format characters, unassigned


def tokenize(text):
    tokens, word = [], ""
    for ch in unicodedata.normalize("NFC", text):
        k = char_class(ch)
        if k == "word":
            word += ch
            continue
        if word:
            tokens.append(word)
            word = ""
        if k == "single":
            tokens.append(ch)
    if word:
        tokens.append(word)
    return tokens


def token_batch(sentences):
    rows = [tokenize(s) for s in sentences]
    assert all(rows), "empty sentence in a golden case"
    longest = max(len(r) for r in rows)
    lengths = [len(r) for r in rows]
    return [r + [PAD] * (longest - len(r)) for r in rows], lengths


def test_tokenizer():
    assert tokenize("don't") == ["don", "'", "t"]
    assert tokenize("3.14") == ["3", ".", "14"]
    assert tokenize("小猫，坐。") == ["小", "猫", "，", "坐", "。"]
    assert tokenize("cafe\u0301 x") == ["caf\u00e9", "x"]
    assert tokenize("a\tb\u3000c") == ["a", "b", "c"]


# ----------------------------------------------------------------------------------------------
# Embeddings, positions, masks.

def embedding_table(vocab, d, seed):
    table = np.zeros((len(vocab), d), dtype=np.float32)
    for v, word in enumerate(vocab):
        if v:
            table[v] = Stream("tok:" + word, seed).normal(d)
    return table


def positional(s, d):
    pe = np.zeros((s, d), dtype=np.float32)
    for p in range(s):
        for c in range(d):
            angle = p / math.pow(10000.0, (c - c % 2) / d)
            pe[p, c] = math.sin(angle) if c % 2 == 0 else math.cos(angle)
    return pe


def make_mask(kind, k_len, tq, tk):
    """(B, Tq, Tk) float: 1 attend, 0 masked; plus PyTorch's attn_mask / key_padding_mask."""
    pad = kind in ("padding", "padding+causal")
    causal = kind in ("causal", "padding+causal")
    b = len(k_len)
    kpm = torch.zeros(b, tk, dtype=torch.bool)
    if pad:
        for i, n in enumerate(k_len):
            kpm[i, n:] = True
    attn = torch.triu(torch.ones(tq, tk, dtype=torch.bool), diagonal=1) if causal else None
    hidden = kpm.unsqueeze(1).expand(b, tq, tk).clone()
    if attn is not None:
        hidden |= attn
    mask = (~hidden).float()
    return mask, (attn if causal else None), (kpm if pad else None)


# ----------------------------------------------------------------------------------------------
# Parameters.

def expected_parameters(cfg):
    d, f = cfg["d_model"], cfg["d_ff"]
    out = []

    def attention(p):
        out.extend([(p + "in_proj_weight", (3 * d, d)), (p + "in_proj_bias", (3 * d,)),
                    (p + "out_proj.weight", (d, d)), (p + "out_proj.bias", (d,))])

    def ffn_norms(p, norms):
        out.extend([(p + "linear1.weight", (f, d)), (p + "linear1.bias", (f,)),
                    (p + "linear2.weight", (d, f)), (p + "linear2.bias", (d,))])
        for k in range(1, norms + 1):
            out.extend([(p + f"norm{k}.weight", (d,)), (p + f"norm{k}.bias", (d,))])

    learned = cfg["positional"] == "learned"
    if learned:  # (max_positions, D) before each stack's layers
        out.append(("encoder.position_embedding.weight", (cfg["max_positions"], d)))
    final = cfg.get("final_norm", False)  # a LayerNorm after the stack's last layer: {stack}.norm
    for i in range(cfg["layers"]):
        attention(f"encoder.layers.{i}.self_attn.")
        ffn_norms(f"encoder.layers.{i}.", 2)
    if final:
        out.extend([("encoder.norm.weight", (d,)), ("encoder.norm.bias", (d,))])
    if cfg["cross_attention"]:
        if learned:
            out.append(("decoder.position_embedding.weight", (cfg["max_positions"], d)))
        for i in range(cfg["layers"]):
            attention(f"decoder.layers.{i}.self_attn.")
            attention(f"decoder.layers.{i}.multihead_attn.")
            ffn_norms(f"decoder.layers.{i}.", 3)
        if final:
            out.extend([("decoder.norm.weight", (d,)), ("decoder.norm.bias", (d,))])
    return out


def seeded_weights(cfg):
    """docs/cli.md "Weights": a·(2·uniform(i) − 1) per element of stream "param:" + name; a learned
    position table N(0, 1), normal(i) of its stream."""
    w = {}
    for name, shape in expected_parameters(cfg):
        n = int(np.prod(shape))
        if name.endswith(".position_embedding.weight"):
            w[name] = Stream("param:" + name, cfg["seed"]).normal(n).reshape(shape)
            continue
        if ".norm" in name:
            w[name] = np.full(shape, 1.0 if name.endswith("weight") else 0.0, dtype=np.float32)
            continue
        fan_in = cfg["d_ff"] if "linear2" in name else cfg["d_model"]
        a = 1.0 / math.sqrt(fan_in) if name.endswith("bias") else math.sqrt(3.0 / fan_in)
        u = Stream("param:" + name, cfg["seed"]).uniform(n)
        w[name] = (a * (2.0 * u - 1.0)).astype(np.float32).reshape(shape)
    return w


def build_modules(cfg):
    kw = dict(d_model=cfg["d_model"], nhead=cfg["heads"], dim_feedforward=cfg["d_ff"], dropout=0.0,
              activation=layer_activation(cfg["activation"]), layer_norm_eps=cfg["eps"], batch_first=True,
              norm_first=cfg["norm"] == "pre")
    enc = [nn.TransformerEncoderLayer(**kw) for _ in range(cfg["layers"])]
    dec = [nn.TransformerDecoderLayer(**kw) for _ in range(cfg["layers"])] if cfg["cross_attention"] else []
    return enc, dec


def load_into(modules, weights, cfg):
    enc, dec = modules
    expected = [n for n, _ in expected_parameters(cfg)]
    assert sorted(expected) == sorted(weights), "weights do not match the configuration"
    for stack, layers in (("encoder", enc), ("decoder", dec)):
        for i, layer in enumerate(layers):
            p = f"{stack}.layers.{i}."
            sd = {k[len(p):]: torch.from_numpy(np.ascontiguousarray(v)) for k, v in weights.items() if k.startswith(p)}
            assert set(sd) == set(layer.state_dict()), (set(sd) ^ set(layer.state_dict()))
            layer.load_state_dict(sd, strict=True)
            layer.train()  # dropout is 0; train mode keeps PyTorch off its fused fast path


def module_weights(modules):
    enc, dec = modules
    out = {}
    for stack, layers in (("encoder", enc), ("decoder", dec)):
        for i, layer in enumerate(layers):
            for k, v in layer.state_dict().items():
                out[f"{stack}.layers.{i}.{k}"] = v.detach().numpy().astype(np.float32).copy()
    return out


def write_safetensors(path, cfg, weights):
    meta = {"format": "attnlab-weights/1", "d_model": str(cfg["d_model"]), "heads": str(cfg["heads"]),
            "d_ff": str(cfg["d_ff"]), "layers": str(cfg["layers"]), "norm": cfg["norm"],
            "activation": cfg["activation"], "eps": repr(float(cfg["eps"])), "positional": cfg["positional"],
            **({"max_positions": str(cfg["max_positions"])} if cfg["positional"] == "learned" else {}),
            **({"final_norm": "true"} if cfg.get("final_norm") else {}),
            "seed": str(cfg["seed"]), "cross_attention": "true" if cfg["cross_attention"] else "false"}
    header, blobs, offset = {"__metadata__": meta}, [], 0
    for name in sorted(weights):
        a = np.ascontiguousarray(weights[name], dtype="<f4")
        header[name] = {"dtype": "F32", "shape": list(a.shape), "data_offsets": [offset, offset + a.nbytes]}
        blobs.append(a.tobytes())
        offset += a.nbytes
    h = json.dumps(header, separators=(",", ":")).encode("utf-8")
    h += b" " * (-len(h) % 8)
    with open(path, "wb") as f:
        f.write(struct.pack("<Q", len(h)))
        f.write(h)
        for b in blobs:
            f.write(b)


def read_safetensors(path):
    with open(path, "rb") as f:
        data = f.read()
    (n,) = struct.unpack("<Q", data[:8])
    header = json.loads(data[8:8 + n])
    out = {}
    for name, t in header.items():
        if name == "__metadata__":
            continue
        s, e = t["data_offsets"]
        out[name] = np.frombuffer(data[8 + n + s:8 + n + e], dtype="<f4").reshape(t["shape"]).copy()
    return header["__metadata__"], out


# ----------------------------------------------------------------------------------------------
# The forward pass: hand computation of every step, checked against the modules.

def maxdiff(a, b):
    a, b = a.detach().double(), b.detach().double()
    assert a.shape == b.shape, (a.shape, b.shape)
    both_inf = torch.isinf(a) & torch.isinf(b) & (a == b)
    d = torch.where(both_inf, torch.zeros_like(a), (a - b).abs())
    return float(d.max()) if d.numel() else 0.0


class Recorder:
    def __init__(self):
        self.steps = {}
        self.worst = (0.0, "")

    def __setitem__(self, step_id, t):
        assert step_id not in self.steps, "step recorded twice: " + step_id
        self.steps[step_id] = t.detach().contiguous().numpy().astype(np.float32).copy()

    def check(self, what, hand, module):
        err = maxdiff(hand, module)
        if err > self.worst[0]:
            self.worst = (err, what)
        if not err <= ASSERT_TOL:  # not an assert statement: python -O must not skip it
            raise AssertionError(f"{what}: hand computation differs from the module by {err:.3g}")


def hand_attention(rec, a, xq, xkv, mask, mha, heads, attn_mask, kpm, faults=()):
    """Every step of one multi-head attention block, prefix a = "…self_attn." or "…multihead_attn.".
    faults: planted faults of core/model/faults.h (gen_grad_golden's fault cases), computed as the
    buggy PyTorch code would and recorded as the C++ faulty run records them; a faulty block is
    not checked against the module (which computes the correct model)."""
    b, tq, d = xq.shape
    tk = xkv.shape[1]
    dh = d // heads
    w, bias = mha.in_proj_weight, mha.in_proj_bias
    split = {}
    for i, n in enumerate("qkv"):
        src, t = (xq, tq) if n == "q" else (xkv, tk)
        r0 = 0 if "shared_qkv_projection" in faults else i * d
        proj = F.linear(src, w[r0:r0 + d], bias[r0:r0 + d])
        rec[a + n + "_proj"] = proj
        if "split_without_transpose" in faults:
            split[n] = proj.view(b, heads, t, dh)
        else:
            view = proj.view(b, t, heads, dh)
            rec[a + n + "_view"] = view
            split[n] = view.transpose(1, 2)
        rec[a + n] = split[n]
    k_t = split["k"].transpose(-2, -1)
    rec[a + "k_t"] = k_t
    qk = split["q"] @ k_t
    rec[a + "qk"] = qk
    scores = qk if "no_scaling" in faults else qk / math.sqrt(d if "scale_by_d_model" in faults else dh)
    rec[a + "scores"] = scores
    dim = -2 if "softmax_over_queries" in faults else -1
    hidden = mask.unsqueeze(1) == 0
    if "mask_after_softmax" in faults:
        raw = torch.softmax(scores, dim=dim)
        rec[a + "unmasked_weights"] = raw
        weights = raw.masked_fill(hidden, 0.0)
    else:
        masked = scores.masked_fill(hidden, 0.0 if "mask_fill_zero" in faults else float("-inf"))
        rec[a + "masked_scores"] = masked
        weights = torch.softmax(masked, dim=dim)
    head_out = weights @ split["v"]
    if "merge_without_transpose" in faults:
        merged = merged_c = None
        context = head_out.view(b, tq, d)
    else:
        merged = head_out.transpose(1, 2)
        merged_c = merged.contiguous()
        context = merged_c.view(b, tq, d)
    out = F.linear(context, mha.out_proj.weight, mha.out_proj.bias)

    if faults:
        rec[a + "weights"] = weights
    else:  # PyTorch's own attention: per-head weights and output
        m_out, m_w = mha(xq, xkv, xkv, attn_mask=attn_mask, key_padding_mask=kpm, need_weights=True,
                         average_attn_weights=False)
        rec.check(a + "weights", weights, m_w)
        rec.check(a + "out", out, m_out)
        rec[a + "weights"] = m_w  # the module's own numbers
    rec[a + "head_out"] = head_out
    if merged is not None:
        rec[a + "merge_transpose"] = merged
        rec[a + "merge_contiguous"] = merged_c
    rec[a + "context"] = context
    rec[a + "out"] = out
    if "detach_attention_output" in faults:  # a leaf of its own: the gradient stops here
        out = out.detach().requires_grad_(True)
        rec[a + "detached"] = out
    return out


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


def hand_ffn(rec, p, x, layer, cfg):
    h1 = F.linear(x, layer.linear1.weight, layer.linear1.bias)
    rec[p + "ffn.linear1"] = h1
    h = activate(h1, cfg["activation"])
    rec[p + "ffn.hidden"] = h
    out = F.linear(h, layer.linear2.weight, layer.linear2.bias)
    rec[p + "ffn.out"] = out
    return out


def hand_layer(rec, p, x, layer, cfg, blocks):
    """Residual sub-layers in order; blocks: list of functions t -> sub-layer output."""
    d = cfg["d_model"]

    def norm(k, t):
        n = getattr(layer, f"norm{k}")
        r = F.layer_norm(t, (d,), n.weight, n.bias, eps=cfg["eps"])
        rec[p + f"norm{k}"] = r
        return r

    def residual(k, t, sub):
        r = t + sub
        rec[p + f"residual{k}"] = r
        return r

    s = x
    for k, f in enumerate(blocks, start=1):
        if cfg["norm"] == "pre":
            s = residual(k, s, f(norm(k, s)))
        else:
            s = norm(k, residual(k, s, f(s)))
    return s


def embed(rec, stack, rows, vocab_index, table, cfg, positions=None):
    """x = table[ids] + the position code: sinusoidal, none, or the first S rows of `positions`,
    the stack's learned (max_positions, D) table (a tensor that may require grad)."""
    ids = torch.tensor([[vocab_index[t] for t in r] for r in rows], dtype=torch.float32)
    rec[stack + ".token_ids"] = ids
    emb = table[ids.long()]
    rec[stack + ".embedding"] = emb
    if cfg["positional"] == "none":
        rec[stack + ".input"] = emb
        return emb
    if cfg["positional"] == "learned":
        assert ids.shape[1] <= positions.shape[0], "a text longer than the position table"
        pe = positions[:ids.shape[1]]
    else:
        pe = torch.from_numpy(positional(ids.shape[1], cfg["d_model"]))
    rec[stack + ".positional"] = pe
    x = emb + pe
    rec[stack + ".input"] = x
    return x


def case_tokens(case):
    """The case's padded token rows and lengths, text and memory (one memory text serves every
    row; none without cross-attention), and the vocabulary: [PAD], then words by first use,
    memory rows first."""
    text_rows, text_len = token_batch(case["texts"])
    mem_rows, mem_len = [], []
    if case["config"]["cross_attention"]:
        mem = case["memory_texts"]
        mem = mem * len(case["texts"]) if len(mem) == 1 else mem
        assert len(mem) == len(case["texts"])
        mem_rows, mem_len = token_batch(mem)
    vocab = [PAD]
    for row in mem_rows + text_rows:
        for t in row:
            if t not in vocab:
                vocab.append(t)
    return text_rows, text_len, mem_rows, mem_len, vocab


def position_table(weights, stack):
    """The stack's learned position table as a tensor, or None."""
    t = weights.get(stack + ".position_embedding.weight")
    return None if t is None else torch.from_numpy(np.ascontiguousarray(t))


def final_norm_params(weights, stack):
    """{stack}.norm's (weight, bias) as tensors, or None without a final norm."""
    if stack + ".norm.weight" not in weights:
        return None
    return tuple(torch.from_numpy(np.ascontiguousarray(weights[f"{stack}.norm.{k}"])) for k in ("weight", "bias"))


def final_norm(rec, stack, x, params, cfg):
    """{stack}.norm = F.layer_norm(x) with the stack's own (weight, bias) `params` (x unchanged when
    None), checked against nn.LayerNorm holding the same numbers."""
    if params is None:
        return x
    w, b = params
    hand = F.layer_norm(x, (cfg["d_model"],), w, b, eps=cfg["eps"])
    ln = nn.LayerNorm(cfg["d_model"], eps=cfg["eps"])
    with torch.no_grad():
        ln.weight.copy_(w)
        ln.bias.copy_(b)
        module = ln(x)
    rec.check(stack + ".norm", hand, module)
    rec[stack + ".norm"] = hand
    return hand


def run_case(case, modules, weights):
    cfg = case["config"]
    rec = Recorder()
    enc, dec = modules
    cross = cfg["cross_attention"]
    text_rows, text_len, mem_rows, mem_len, vocab = case_tokens(case)
    index = {w: i for i, w in enumerate(vocab)}
    table = torch.from_numpy(embedding_table(vocab, cfg["d_model"], cfg["seed"]))
    rec["encoder.embedding_table"] = table

    src_rows, src_len = (mem_rows, mem_len) if cross else (text_rows, text_len)
    with torch.no_grad():
        x = embed(rec, "encoder", src_rows, index, table, cfg, position_table(weights, "encoder"))
        s = x.shape[1]
        mask, attn_mask, kpm = make_mask("padding" if cross else cfg["mask"], src_len, s, s)
        rec["encoder.mask"] = mask
    for i, layer in enumerate(enc):
        p = f"encoder.layers.{i}."
        with torch.no_grad():
            hand = hand_layer(rec, p, x, layer, cfg, [
                lambda t: hand_attention(rec, p + "self_attn.", t, t, mask, layer.self_attn, cfg["heads"],
                                         attn_mask, kpm),
                lambda t: hand_ffn(rec, p, t, layer, cfg)])
            out = layer(x, src_mask=attn_mask, src_key_padding_mask=kpm)
        rec.check(p + "output", hand, out)
        rec[p + "output"] = out
        x = out
    with torch.no_grad():
        x = final_norm(rec, "encoder", x, final_norm_params(weights, "encoder"), cfg)
    if not cross:
        return rec, vocab
    memory = x
    with torch.no_grad():
        y = embed(rec, "decoder", text_rows, index, table, cfg, position_table(weights, "decoder"))
        t_len = y.shape[1]
        self_mask, self_attn_mask, self_kpm = make_mask(cfg["mask"], text_len, t_len, t_len)
        rec["decoder.self_mask"] = self_mask
        cross_mask, _, mem_kpm = make_mask("padding", mem_len, t_len, memory.shape[1])
        rec["decoder.cross_mask"] = cross_mask
    for i, layer in enumerate(dec):
        p = f"decoder.layers.{i}."
        with torch.no_grad():
            hand = hand_layer(rec, p, y, layer, cfg, [
                lambda t: hand_attention(rec, p + "self_attn.", t, t, self_mask, layer.self_attn, cfg["heads"],
                                         self_attn_mask, self_kpm),
                lambda t: hand_attention(rec, p + "multihead_attn.", t, memory, cross_mask, layer.multihead_attn,
                                         cfg["heads"], None, mem_kpm),
                lambda t: hand_ffn(rec, p, t, layer, cfg)])
            out = layer(y, memory, tgt_mask=self_attn_mask, tgt_key_padding_mask=self_kpm,
                        memory_key_padding_mask=mem_kpm)
        rec.check(p + "output", hand, out)
        rec[p + "output"] = out
        y = out
    with torch.no_grad():
        final_norm(rec, "decoder", y, final_norm_params(weights, "decoder"), cfg)
    return rec, vocab


# ----------------------------------------------------------------------------------------------
# The cases.

def config(d_model=16, heads=4, d_ff=None, layers=1, mask="padding", norm="pre", activation="relu",
           positional="sinusoidal", eps=1e-5, seed=0, cross_attention=False, max_positions=None, final_norm=False):
    """max_positions: the learned position table's rows (positional "learned" only); final_norm: a
    LayerNorm after each stack's last layer (the key only when true)."""
    c = {"d_model": d_model, "heads": heads, "d_ff": d_ff if d_ff is not None else 4 * d_model,
         "layers": layers, "mask": mask, "norm": norm, "activation": activation, "positional": positional,
         "eps": eps, "seed": seed, "cross_attention": cross_attention}
    if positional == "learned":
        c["max_positions"] = max_positions
    if final_norm:
        c["final_norm"] = True
    return c


EN = "The cat sat on the mat because it was tired."
EN_PUNCT = "Don't panic: pi is 3.14, isn't it?"
ZH = "小猫坐在垫子上，因为它累了。"
MIXED = "Café (NFD: cafe\u0301) costs $5 + 2€ — ok!"
JA_KO = "こんにちは カナ 안녕 world"

CASES = [
    {"name": "pre_relu_padding", "config": config(),
     "texts": [EN, "The dog chased the ball.", ZH]},
    {"name": "post_gelu_causal", "config": config(d_model=12, heads=3, d_ff=20, mask="causal", norm="post",
                                                 activation="gelu"),
     "texts": [EN_PUNCT, ZH]},
    {"name": "mask_none_heads1", "config": config(d_model=8, heads=1, d_ff=16, mask="none"),
     "texts": [MIXED, "short one"]},
    {"name": "dhead1_padding_causal", "config": config(d_model=4, heads=4, d_ff=8, mask="padding+causal",
                                                      activation="gelu"),
     "texts": ["a b c d e", "x y", "The end."]},
    {"name": "layers3_post_relu", "config": config(d_model=16, heads=2, d_ff=24, layers=3, norm="post"),
     "texts": ["Don't panic, ok?", JA_KO]},
    {"name": "layers3_pre_gelu_causal", "config": config(d_model=8, heads=2, d_ff=12, layers=3, mask="causal",
                                                        activation="gelu"),
     "texts": ["one two three four", "五六七"]},
    {"name": "nopos_seed_eps", "config": config(d_model=16, heads=4, d_ff=32, positional="none",
                                               eps=1e-3, seed=12345678901234567890, norm="post"),
     "texts": ["repeat repeat repeat word", "word repeat"]},
    {"name": "cross_pre_relu", "config": config(d_model=16, heads=4, d_ff=32, layers=2, mask="padding+causal",
                                               cross_attention=True),
     "texts": ["Le chat dort.", "Il pleut beaucoup aujourd'hui, non?"],
     "memory_texts": ["The cat is sleeping on the warm mat.", "It rains."]},
    {"name": "cross_shared_memory_post_gelu", "config": config(d_model=12, heads=2, d_ff=16, mask="causal",
                                                              norm="post", activation="gelu", seed=3,
                                                              cross_attention=True),
     "texts": ["小猫睡觉。", "A cat sleeps, too."],
     "memory_texts": ["The cat sleeps."]},
    {"name": "cross_padding_small", "config": config(d_model=8, heads=2, d_ff=16, mask="padding",
                                                        cross_attention=True),
     "texts": ["x", "y z w"],
     "memory_texts": ["source one is long here", "two"]},
    {"name": "pre_gelu_tanh_padding", "config": config(d_model=16, heads=2, d_ff=40, layers=2, activation="gelu_tanh"),
     "texts": ["GPT-2 uses the tanh form.", "短句"]},
    {"name": "learned_pos_gelu_tanh_causal", "config": config(d_model=16, heads=4, d_ff=32, layers=2, mask="causal",
                                                             activation="gelu_tanh", positional="learned",
                                                             max_positions=24, seed=5),
     "texts": ["GPT-2 learns a vector per position.", "位置"]},
    {"name": "cross_learned_pos_post", "config": config(d_model=8, heads=2, d_ff=16, norm="post",
                                                       mask="padding+causal", positional="learned",
                                                       max_positions=10, cross_attention=True),
     "texts": ["one two", "three four five"],
     "memory_texts": ["source words here", "x"]},
    {"name": "final_norm_pre_gelu", "config": config(d_model=16, heads=4, d_ff=32, layers=2, activation="gelu",
                                                    final_norm=True),
     "texts": [EN, ZH]},
    {"name": "file_weights_final_norm_cross", "config": config(d_model=12, heads=3, d_ff=20, mask="causal", seed=2,
                                                              cross_attention=True, final_norm=True),
     "texts": ["The norm comes last.", "最后"],
     "memory_texts": ["A source sentence."],
     "weights": "file"},
    {"name": "large_d128_h8_l2", "config": config(d_model=128, heads=8, d_ff=256, layers=2),
     "texts": ["Attention is all you need.", "小猫坐下。"]},
    {"name": "file_weights_cross_post_gelu", "config": config(d_model=16, heads=4, d_ff=24, layers=2,
                                                             mask="padding+causal", norm="post",
                                                             activation="gelu", eps=1e-6, seed=7,
                                                             cross_attention=True),
     "texts": ["Hello, world!", "你好"],
     "memory_texts": ["Bonjour le monde.", "Salut"],
     "weights": "file"},
]


def torch_random_weights(cfg, modules):
    """PyTorch's own initialisation (the seed is fixed before the modules are built), with
    LayerNorm weights/biases and the attention biases randomised (PyTorch starts them at 1/0)."""
    g = torch.Generator().manual_seed(20240607)
    enc, dec = modules
    with torch.no_grad():
        for layer in enc + dec:
            for name, prm in layer.named_parameters():
                if ".weight" in name and name.startswith("norm"):
                    prm.copy_(1.0 + 0.5 * (torch.rand(prm.shape, generator=g) - 0.5))
                elif name.startswith("norm") or name.endswith("in_proj_bias") or name.endswith("out_proj.bias"):
                    prm.copy_(0.1 * torch.randn(prm.shape, generator=g))
    out = module_weights(modules)
    for name, shape in expected_parameters(cfg):  # the final norms, randomised the same way
        if name not in out and name.startswith(("encoder.norm.", "decoder.norm.")):
            r = torch.rand(shape, generator=g) - 0.5 if name.endswith("weight") else torch.randn(shape, generator=g)
            out[name] = (1.0 + 0.5 * r if name.endswith("weight") else 0.1 * r).numpy().astype(np.float32)
    return out


def generate(out_dir):
    torch.set_num_threads(1)
    os.makedirs(out_dir, exist_ok=True)
    manifest = []
    total = 0
    for case in CASES:
        t0 = time.time()
        cfg = case["config"]
        torch.manual_seed(1234)  # PyTorch's own initialisation (used by the file-weights case)
        modules = build_modules(cfg)
        entry = {"name": case["name"], "config": cfg, "texts": case["texts"],
                 "memory_texts": case.get("memory_texts", [])}
        if case.get("weights") == "file":
            weights = torch_random_weights(cfg, modules)
            fname = case["name"] + ".safetensors"
            path = os.path.join(out_dir, fname)
            write_safetensors(path, cfg, weights)
            meta, back = read_safetensors(path)  # the file round-trips
            assert meta["format"] == "attnlab-weights/1"
            assert all(np.array_equal(back[k], weights[k]) for k in weights) and set(back) == set(weights)
            entry["weights"] = fname
        else:
            weights = seeded_weights(cfg)
            entry["weights"] = "seeded"
        load_into(modules, weights, cfg)
        rec, vocab = run_case(case, modules, weights)
        path = os.path.join(out_dir, case["name"] + ".npz")
        np.savez_compressed(path, **rec.steps)
        size = os.path.getsize(path)
        total += size
        manifest.append(entry)
        print(f"{case['name']:34s} steps {len(rec.steps):4d}  vocab {len(vocab):3d}  "
              f"max |hand - module| {rec.worst[0]:.3g} ({rec.worst[1]})  {size / 1024:.1f} KiB  "
              f"{time.time() - t0:.2f} s")
    with open(os.path.join(out_dir, "cases.json"), "w", encoding="utf-8") as f:
        json.dump(manifest, f, ensure_ascii=False, indent=1)
        f.write("\n")
    print(f"total npz size {total / 1024:.1f} KiB")


def compare(new_dir, ref_dir, exact=lambda k: ".layers." not in k and k not in ("encoder.norm", "decoder.norm"),
            atol=CPU_ATOL, rtol=CPU_RTOL):
    """Compares a regenerated data folder with the committed one: the inputs the generator makes
    itself (`exact`: token ids, embedding table, embeddings, position code, layer inputs, masks)
    bit for bit; what PyTorch computes within the contract's CPU tolerance, |new - ref| <= 1e-5 +
    1e-4·|ref| (docs/cli.md: another CPU, or the same one without OPENBLAS_CORETYPE, picks other
    BLAS kernels whose float32 rounding differs by a few 1e-6, which says nothing about the
    generator). gen_grad_golden.py compares its folder with this too, at its own tolerance."""
    ok = True

    def fail(msg):
        nonlocal ok
        ok = False
        print("MISMATCH:", msg)

    with open(os.path.join(new_dir, "cases.json"), encoding="utf-8") as f:
        new_cases = json.load(f)
    with open(os.path.join(ref_dir, "cases.json"), encoding="utf-8") as f:
        ref_cases = json.load(f)
    if new_cases != ref_cases:
        fail("cases.json differs")
    for case in ref_cases:
        name = case["name"]
        with np.load(os.path.join(new_dir, name + ".npz")) as a, np.load(os.path.join(ref_dir, name + ".npz")) as b:
            if list(a.keys()) != list(b.keys()):
                fail(f"{name}: step ids differ")
                continue
            for k in b.keys():
                x, y = a[k], b[k]
                bitwise = exact(k)
                if x.dtype != y.dtype or x.shape != y.shape:
                    fail(f"{name}: {k} has another dtype or shape")
                elif bitwise and x.tobytes() != y.tobytes():
                    fail(f"{name}: {k} differs (must be bit for bit)")
                elif not bitwise and not np.allclose(x, y, rtol=rtol, atol=atol, equal_nan=True):
                    fail(f"{name}: {k} differs by {np.nanmax(np.abs(x - y)):.3g}")
        if case.get("weights", "seeded") != "seeded":
            with open(os.path.join(new_dir, case["weights"]), "rb") as f1, \
                    open(os.path.join(ref_dir, case["weights"]), "rb") as f2:
                if f1.read() != f2.read():
                    fail(f"{name}: {case['weights']} differs")
    print("regenerated data agree" if ok else "regenerated data differ")
    return ok


def run_generator(doc, default_out, generate_into, compare_with, compare_help):
    """The command line of a golden generator (this one and gen_grad_golden.py): --out DIR,
    --compare DIR; the generator's own self-tests first."""
    ap = argparse.ArgumentParser(description=doc.split("\n\n")[0])
    ap.add_argument("--out", default=default_out,
                    help=f"folder to write (default: {os.path.relpath(default_out, os.path.dirname(os.path.dirname(HERE)))})")
    ap.add_argument("--compare", metavar="DIR", help=compare_help)
    args = ap.parse_args()
    self_test_generator()
    test_tokenizer()
    t0 = time.time()
    out = os.path.abspath(args.out)
    if args.compare and out == os.path.abspath(args.compare):
        ap.error("--out and --compare must differ")
    if args.compare and os.path.isdir(out):
        shutil.rmtree(out)
    generate_into(out)
    print(f"generated in {time.time() - t0:.1f} s")
    if args.compare and not compare_with(out, args.compare):
        sys.exit(1)


def main():
    run_generator(__doc__, DEFAULT_OUT, generate, compare,
                  "after writing, compare with DIR bit for bit (exit 1 if not)")


if __name__ == "__main__":
    main()
