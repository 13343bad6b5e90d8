"""Helpers for train.py: Attention Lab's tokenizer, its model as PyTorch layers, the weights file
(safetensors, written and read with json + struct), the fortune corpora and the head-pattern scores.

Everything here mirrors core/ (tokenizer.cpp, model.cpp, ops.cpp) so that the app computes the same
numbers as the PyTorch reference below.
"""
import json
import math
import os
import re
import struct
import subprocess
import unicodedata
import zlib
from collections import Counter

import numpy as np
import torch
import torch.nn as nn

PAD, UNK = "[PAD]", "[UNK]"
FORTUNE_DIR = "/usr/share/games/fortunes"
MANUAL_PACKAGES = {"english": "manpages", "chinese": "manpages-zh"}
CHINESE_FILES = ("chinese", "tang300", "song100")

# ---------------------------------------------------------------------------------------- tokenizer
_CJK_RANGES = ((0x3040, 0x309F), (0x30A0, 0x30FF), (0x31F0, 0x31FF), (0x3400, 0x4DBF),
               (0x4E00, 0x9FFF), (0xAC00, 0xD7AF), (0xF900, 0xFAFF), (0x20000, 0x2A6DF),
               (0x2A700, 0x2EBEF), (0x2F800, 0x2FA1F), (0x30000, 0x3134F))
_SPACE_CONTROLS = {"\t", "\n", "\v", "\f", "\r", "\x85"}


def is_cjk_single(ch):
    cp = ord(ch)
    return any(lo <= cp <= hi for lo, hi in _CJK_RANGES)


def char_class(ch):
    """'single', 'word', 'space' or 'drop', as core/text/tokenizer.cpp's classify()."""
    if is_cjk_single(ch):
        return "single"
    cat = unicodedata.category(ch)
    if cat[0] in "LMN":
        return "word"
    if cat[0] in "PS":
        return "single"
    if cat in ("Zs", "Zl", "Zp"):
        return "space"
    return "space" if ch in _SPACE_CONTROLS else "drop"


def tokenize(text):
    """NFC, then: whitespace separates; punctuation, symbols and CJK characters are tokens of their
    own; runs of letters, marks and digits are one token; other controls are dropped."""
    tokens, word = [], []
    for ch in unicodedata.normalize("NFC", text):
        c = char_class(ch)
        if c == "word":
            word.append(ch)
            continue
        if word:
            tokens.append("".join(word))
            word = []
        if c == "single":
            tokens.append(ch)
    if word:
        tokens.append("".join(word))
    return tokens


def is_punct(tok):
    """A one-character punctuation or symbol token (not a CJK character)."""
    return len(tok) == 1 and unicodedata.category(tok)[0] in "PS"


def build_vocab(counter, size):
    """[PAD], [UNK] + the `size` most frequent tokens (ties by string), each tokenizing to itself."""
    ranked = sorted(counter.items(), key=lambda kv: (-kv[1], kv[0]))
    words = [w for w, _ in ranked if w not in (PAD, UNK) and tokenize(w) == [w]][:size]
    return [PAD, UNK] + words


def encode(tokens, index):
    return [index.get(t, 1) for t in tokens]


# ------------------------------------------------------------------------------------------- model
def sinusoidal(s, d):
    """PE(p, 2i) = sin(p / 10000^(2i/D)), PE(p, 2i+1) = cos(...), in float64, then float32."""
    pos = torch.arange(s, dtype=torch.float64).unsqueeze(1)
    div = torch.pow(10000.0, torch.arange(0, d, 2, dtype=torch.float64) / d)
    pe = torch.zeros(s, d, dtype=torch.float64)
    pe[:, 0::2] = torch.sin(pos / div)
    pe[:, 1::2] = torch.cos(pos / div[: d // 2])
    return pe.float()


class AttnLabModel(nn.Module):
    """E[ids] + PE → `layers` nn.TransformerEncoderLayer (no final norm) → linear head over the vocab.
    Parameter names are the weights file's: embedding.weight, encoder.layers.{i}.*, output_head.*"""

    def __init__(self, vocab_size, d_model, heads, d_ff, layers, norm_first, dropout, causal):
        super().__init__()
        self.cfg = dict(vocab_size=vocab_size, d_model=d_model, heads=heads, d_ff=d_ff,
                        layers=layers, norm_first=norm_first, causal=causal)
        self.causal = causal
        self.embedding = nn.Embedding(vocab_size, d_model, padding_idx=0)
        self.encoder = nn.Module()
        self.encoder.layers = nn.ModuleList(
            nn.TransformerEncoderLayer(d_model, heads, d_ff, dropout=dropout, activation="relu",
                                       layer_norm_eps=1e-5, batch_first=True, norm_first=norm_first)
            for _ in range(layers))
        self.output_head = nn.Linear(d_model, vocab_size)

    def masks(self, ids):
        s = ids.shape[1]
        causal = torch.triu(torch.ones(s, s, dtype=torch.bool), diagonal=1) if self.causal else None
        return causal, ids == 0

    def forward(self, ids, return_attention=False):
        causal, kpm = self.masks(ids)
        x = self.embedding(ids) + sinusoidal(ids.shape[1], self.cfg["d_model"])
        attn = []
        for layer in self.encoder.layers:
            if return_attention:  # the same inputs the layer's self-attention sees
                q = layer.norm1(x) if layer.norm_first else x
                _, w = layer.self_attn(q, q, q, attn_mask=causal, key_padding_mask=kpm,
                                       need_weights=True, average_attn_weights=False)
                attn.append(w)  # (B, H, S, S)
            x = layer(x, src_mask=causal, src_key_padding_mask=kpm)
        logits = self.output_head(x)
        return (logits, attn) if return_attention else logits


def f16_rounded(model):
    """The state dict as the app loads an F16 file: every tensor rounded to F16 and back to F32."""
    return {k: v.detach().half().float() for k, v in model.state_dict().items()}


def reference_model(model, state=None):
    """A dropout-free copy in train mode (PyTorch 1.13's eval fast path rounds differently)."""
    c = model.cfg
    ref = AttnLabModel(c["vocab_size"], c["d_model"], c["heads"], c["d_ff"], c["layers"],
                       c["norm_first"], 0.0, c["causal"])
    ref.load_state_dict(state if state is not None else model.state_dict())
    ref.train()
    return ref


# ------------------------------------------------------------------------------------ weights file
def write_safetensors(path, tensors, meta, dtype):
    """tensors: name → torch tensor; dtype "F32" or "F16" (little-endian); meta: str → str."""
    np_dtype = {"F32": "<f4", "F16": "<f2"}[dtype]
    header, blobs, offset = {"__metadata__": meta}, [], 0
    for name in sorted(tensors):
        a = np.ascontiguousarray(tensors[name].detach().cpu().float().numpy().astype(np_dtype))
        header[name] = {"dtype": dtype, "shape": list(a.shape), "data_offsets": [offset, offset + a.nbytes]}
        blobs.append(a.tobytes())
        offset += a.nbytes
    raw = json.dumps(header, ensure_ascii=False, separators=(",", ":")).encode("utf-8")
    raw += b" " * (-len(raw) % 8)
    with open(path, "wb") as f:
        f.write(struct.pack("<Q", len(raw)))
        f.write(raw)
        for b in blobs:
            f.write(b)


def read_safetensors(path):
    """→ (name → float32 torch tensor, metadata dict)."""
    with open(path, "rb") as f:
        data = f.read()
    (n,) = struct.unpack("<Q", data[:8])
    header = json.loads(data[8:8 + n].decode("utf-8"))
    meta = header.pop("__metadata__", {})
    base, tensors = 8 + n, {}
    for name, info in header.items():
        lo, hi = info["data_offsets"]
        np_dtype = {"F32": "<f4", "F16": "<f2"}[info["dtype"]]
        a = np.frombuffer(data[base + lo: base + hi], dtype=np_dtype).reshape(info["shape"])
        tensors[name] = torch.from_numpy(a.astype(np.float32))
    return tensors, meta


def check_metadata(meta):
    """The rules the app's loader applies to the fields train.py writes; raises ValueError."""
    for k in ("format", "d_model", "heads", "d_ff", "layers", "norm", "activation", "eps", "positional",
              "seed", "cross_attention", "vocab", "task", "mask", "title", "title_zh", "note", "note_zh",
              "examples", "metrics"):
        if not isinstance(meta.get(k), str):
            raise ValueError(f"metadata {k!r} missing or not a string")
    vocab = json.loads(meta["vocab"])
    if vocab[:2] != [PAD, UNK] or len(set(vocab)) != len(vocab):
        raise ValueError("vocab must start [PAD], [UNK] and hold unique strings")
    bad = [w for w in vocab[2:] if not w or tokenize(w) != [w]]
    if bad:
        raise ValueError(f"vocab entries that do not tokenize to themselves: {bad[:5]}")
    if not 3 <= len(json.loads(meta["examples"])) <= 5:
        raise ValueError("examples: 3 to 5 sentences")
    json.loads(meta["metrics"])


# ----------------------------------------------------------------------------------------- corpora
ANSI = re.compile(r"\x1b\[[0-9;?]*[A-Za-z]")
_END = {".", "!", "?", "。", "！", "？", "…"}
_CLOSE = {")", "]", "”", "’", "」", "』", "》", "）", "】"}


def english_files(folder=FORTUNE_DIR):
    if not os.path.isdir(folder):
        return []
    return sorted(f for f in os.listdir(folder)
                  if "." not in f and f not in CHINESE_FILES and os.path.isfile(os.path.join(folder, f)))


def read_entries(path):
    """The fortunes of one file: entries separated by lines holding only '%', ANSI colours removed,
    attribution lines (starting with '--' or '—' after blanks) dropped."""
    with open(path, encoding="utf-8", errors="replace") as f:
        text = ANSI.sub("", f.read())
    entries, cur = [], []
    for line in text.split("\n"):
        if line.strip() == "%":
            entries.append("\n".join(cur))
            cur = []
        elif not line.lstrip().startswith(("--", "—")):
            cur.append(line)
    entries.append("\n".join(cur))
    return [e for e in entries if e.strip()]


def sentences(tokens, max_len):
    """Cut one fortune's tokens after each run of sentence-ending marks (with the closing brackets or
    the closing '"' that follow it); sentences longer than max_len are cut into max_len pieces."""
    out, cur, i = [], [], 0
    while i < len(tokens):
        cur.append(tokens[i])
        i += 1
        if cur[-1] in _END and (i == len(tokens) or tokens[i] not in _END):
            while i < len(tokens) and (tokens[i] in _CLOSE or (tokens[i] == '"' and cur.count('"') % 2 == 1)):
                cur.append(tokens[i])
                i += 1
            out.append(cur)
            cur = []
    if cur:
        out.append(cur)
    return [s[k:k + max_len] for s in out for k in range(0, len(s), max_len)]


def manual_files(package):
    """The manual pages a Debian package installed (`dpkg -L`), sorted, without the traditional
    Chinese ones (zh_TW); [] when the package is not installed."""
    try:
        listing = subprocess.run(["dpkg", "-L", package], capture_output=True, text=True, check=True).stdout
    except (OSError, subprocess.CalledProcessError):
        return []
    return sorted(p for p in listing.split("\n")
                  if "/share/man/" in p and "/zh_TW/" not in p and p.endswith(".gz") and os.path.isfile(p) and not os.path.islink(p))


def package_version(package):
    """The installed version of a Debian package, or "" (for the model card)."""
    try:
        return subprocess.run(["dpkg-query", "-W", "-f=${Version}", package], capture_output=True, text=True,
                              check=True).stdout.strip()
    except (OSError, subprocess.CalledProcessError):
        return ""


def render_manual(path):
    """One manual page as plain UTF-8 text: man-db renders it without line breaks inside paragraphs
    (MANWIDTH 4000) and col -bx removes the overstrikes; the header and footer lines are dropped."""
    env = dict(os.environ, MANWIDTH="4000", LC_ALL="C.UTF-8", MAN_KEEP_FORMATTING="")
    man = subprocess.run(["man", "-E", "UTF-8", "-l", path], capture_output=True, env=env)
    text = subprocess.run(["col", "-bx"], input=man.stdout, capture_output=True, env=env).stdout
    lines = text.decode("utf-8", errors="replace").split("\n")
    body = [i for i, line in enumerate(lines) if line.strip()]
    return "\n".join(lines[body[0] + 1:body[-1]]) if len(body) > 2 else ""


def read_manual_entries(path):
    """A manual page's paragraphs, each one entry: a paragraph ends at a blank line or a section
    heading (a line starting in the first column), and the headings themselves are dropped. Lines of
    options without prose stay in; the word-share rule filters most of them later."""
    out, cur = [], []
    for line in render_manual(path).split("\n") + [""]:
        if not line.strip() or not line[0].isspace():
            text = " ".join(" ".join(cur).split())
            if len(text) >= 20:
                out.append(text)
            cur = []
        else:
            cur.append(line)
    return out


def is_manual(path):
    return "/share/man/" in path


def held_out_entry(entry, every=20):
    """The deterministic split: a fortune is held out when crc32 of its UTF-8 text % every == 0."""
    return zlib.crc32(entry.encode("utf-8")) % every == 0


def load_corpus(files, max_len, min_len=3, min_word_share=0.0, limit_entries=None, min_cjk_share=0.0):
    """→ (train sentences, held-out sentences), each a list of token lists. A file under
    /usr/share/man is a manual page (its paragraphs are the entries), any other a fortune file.
    min_cjk_share drops sentences where fewer tokens are CJK characters (the English option names
    and commands inside Chinese manual pages)."""
    train, held = [], []
    for path in files:
        entries = read_manual_entries(path) if is_manual(path) else read_entries(path)
        if limit_entries:
            entries = entries[:limit_entries]
        for e in entries:
            for s in sentences(tokenize(e), max_len):
                if len(s) < min_len or sum(not is_punct(t) for t in s) < min_word_share * len(s):
                    continue
                if min_cjk_share and sum(len(t) == 1 and is_cjk_single(t) for t in s) < min_cjk_share * len(s):
                    continue
                (held if held_out_entry(e) else train).append(s)
    return train, held


def pad_batch(rows):
    s = max(len(r) for r in rows)
    return torch.tensor([r + [0] * (s - len(r)) for r in rows], dtype=torch.long)


# ---------------------------------------------------------------------------------- head patterns
LM_PATTERNS = ("previous", "self", "first", "same_token", "punctuation", "off_uniform", "distance")


def lm_head_scores(attn_layers, batch_tokens, lengths):
    """Mean attention weight per (layer, head) on: the previous token, the query's own position, the
    first token, earlier copies of the query's token (queries that have one), punctuation keys.
    Queries: every real position after the first. Uniform weights give the chance level.
    'off_uniform': ½ Σ |w − uniform| over the keys the query may see (0: an even spread);
    'distance': Σ w · (i − j), how many tokens back the head looks on average."""
    n_layers, n_heads = len(attn_layers), attn_layers[0].shape[1]
    sums = np.zeros((n_layers, n_heads, len(LM_PATTERNS)))
    counts = np.zeros(len(LM_PATTERNS))
    for b, toks in enumerate(batch_tokens):
        n = lengths[b]
        punct = np.array([is_punct(t) for t in toks[:n]], dtype=float)
        for i in range(1, n):  # queries after the first (the first can only look at itself)
            same = np.array([toks[j] == toks[i] for j in range(i)], dtype=float)
            for l in range(n_layers):
                w = attn_layers[l][b, :, i, : i + 1].numpy()  # (H, i+1)
                sums[l, :, 0] += w[:, i - 1]
                sums[l, :, 1] += w[:, i]
                sums[l, :, 2] += w[:, 0]
                if same.any():
                    sums[l, :, 3] += w[:, :i] @ same
                sums[l, :, 4] += w @ punct[: i + 1]
                sums[l, :, 5] += 0.5 * np.abs(w - 1.0 / (i + 1)).sum(1)
                sums[l, :, 6] += w @ np.arange(i, -1, -1, dtype=float)
            counts += 1
            if not same.any():
                counts[3] -= 1
    return sums / np.maximum(counts, 1)[None, None, :]


def favourite_keys(attn_layers, batch_tokens, lengths, min_count=20, top=5):
    """Per (layer, head): the key tokens it weights most relative to an even spread, as
    [(token, ratio)]: ratio = mean of w[i, j] · (i + 1) over the queries i ≥ max(j, 1) of the keys j
    holding that token (1 = what uniform causal attention gives), over tokens seen as a key at least
    `min_count` times."""
    n_layers, n_heads = len(attn_layers), attn_layers[0].shape[1]
    tot, cnt, occ = {}, {}, Counter()
    for b, toks in enumerate(batch_tokens):
        n = lengths[b]
        if n < 2:
            continue
        scale = np.arange(1, n + 1, dtype=float)[None, None, 1:, None]  # (i + 1) for queries 1..n-1
        w = np.stack([a[b, :, 1:n, :n].numpy() for a in attn_layers])  # (L, H, n-1, n)
        per_key = (w * scale).sum(2)  # the causal mask zeroes j > i
        queries = n - np.maximum(np.arange(n), 1)
        for j in range(n):
            t = toks[j]
            tot[t] = tot.get(t, 0.0) + per_key[:, :, j]
            cnt[t] = cnt.get(t, 0) + queries[j]
            occ[t] += 1
    out = [[None] * n_heads for _ in range(n_layers)]
    keep = [t for t in tot if occ[t] >= min_count]
    for l in range(n_layers):
        for h in range(n_heads):
            r = sorted(((tot[t][l, h] / cnt[t], t) for t in keep), key=lambda x: (-x[0], x[1]))[:top]
            out[l][h] = [(t, round(float(v), 2)) for v, t in r]
    return out


SORT_PATTERNS = ("target_digit", "same_digit", "smaller_digits", "self", "off_uniform")


def sort_head_scores(attn_layers, digits_batch):
    """Mean weight a query at slot i puts on the key(s) holding the i-th smallest digit ('target'),
    on keys holding the query's own digit, on keys with a smaller digit than the query's, on its own
    position. Uniform weights over the real keys give the chance level. 'off_uniform': ½ Σ |w − 1/n|
    over the n real keys (0: an even spread)."""
    n_layers, n_heads = len(attn_layers), attn_layers[0].shape[1]
    sums = np.zeros((n_layers, n_heads, len(SORT_PATTERNS)))
    count = 0
    for b, digits in enumerate(digits_batch):
        n = len(digits)
        d = np.array(digits)
        srt = np.sort(d)
        for i in range(n):
            target = (d == srt[i]).astype(float)
            same = (d == d[i]).astype(float)
            smaller = (d < d[i]).astype(float)
            for l in range(n_layers):
                w = attn_layers[l][b, :, i, :n].numpy()
                sums[l, :, 0] += w @ target
                sums[l, :, 1] += w @ same
                sums[l, :, 2] += w @ smaller
                sums[l, :, 3] += w[:, i]
                sums[l, :, 4] += 0.5 * np.abs(w - 1.0 / n).sum(1)
            count += 1
    return sums / max(count, 1)


def score_table(scores, patterns):
    """Markdown table: one row per layer/head (both from 0, as the window labels them: "Layer 0",
    "Head 0"), one column per pattern."""
    lines = ["| layer | head | " + " | ".join(patterns) + " |",
             "|---|---|" + "---|" * len(patterns)]
    for l in range(scores.shape[0]):
        for h in range(scores.shape[1]):
            lines.append(f"| {l} | {h} | " + " | ".join(f"{v:.3f}" for v in scores[l, h]) + " |")
    return "\n".join(lines)


def scores_json(scores, patterns):
    return [{"layer": l, "head": h, **{p: round(float(scores[l, h, k]), 4) for k, p in enumerate(patterns)}}
            for l in range(scores.shape[0]) for h in range(scores.shape[1])]


def top5(logits_row, vocab):
    p = torch.softmax(logits_row.double(), dim=-1)
    v, i = torch.topk(p, 5)
    return [[vocab[j], float(x)] for j, x in zip(i.tolist(), v.tolist())]


def lr_at(step, total, peak, warmup):
    """Linear warm-up for `warmup` steps, then cosine decay to 0.1 × peak."""
    if step < warmup:
        return peak * (step + 1) / warmup
    t = (step - warmup) / max(1, total - warmup)
    return peak * (0.1 + 0.9 * 0.5 * (1 + math.cos(math.pi * t)))


def token_counter(sents):
    c = Counter()
    for s in sents:
        c.update(s)
    return c
