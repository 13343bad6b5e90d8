"""The sample models trained by Attention Lab's own trainer (`attnlab train`): induction-letters (the
induction task's default run) and brackets-depth (the brackets task's). train.py --task induction |
brackets calls run_lab().

The trainer runs as a subprocess with its per-task defaults. PyTorch then checks the file on its own:
it rebuilds the model from the weights file's tensors and options, measures the head scores on fresh
sequences drawn here with Python's `random` (not the trainer's generator), and computes the examples'
top-5 as for the other models' expected.json. The notes and the card are written from those numbers.
"""
import json
import math
import os
import random
import subprocess
import sys
import tempfile
import time

import torch
import torch.nn as nn

import samplelib as L

REPO = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
DEFAULT_ATTNLAB = os.path.join(REPO, "build", "release", "app", "attnlab")
LETTERS = [chr(ord("a") + i) for i in range(26)]

INDUCTION = dict(name="induction-letters", task="induction", seed=0, held_out_seed=2212, held_out_count=2000,
                 title="Induction heads (letters)", title_zh="归纳头（字母）",
                 examples=["q x c a t d o g c a t d o g", "h e l l o w o r l d h e l l o w o r l d",
                           "z z k m b r f t k m b r f t", "p a t t e r n s p a t t e r n s"])
BRACKETS = dict(name="brackets-depth", task="brackets", seed=0, held_out_seed=2213, held_out_count=2000,
                title="Balanced brackets", title_zh="括号是否配对",
                examples=["( ( ) ( ) )", "( ) ) (", "( ( ( ) )", "( ) ( ) ( ( ) )"])


# ------------------------------------------------------------------------------- the model in PyTorch
class AttentionOnlyLayer(nn.Module):
    """An encoder layer without its feed-forward sub-layer ("ffn": "none"): pre-norm x + MHA(norm1(x)),
    post-norm norm1(x + MHA(x))."""

    def __init__(self, d_model, heads, norm_first, eps):
        super().__init__()
        self.self_attn = nn.MultiheadAttention(d_model, heads, dropout=0.0, batch_first=True)
        self.norm1 = nn.LayerNorm(d_model, eps=eps)
        self.norm_first = norm_first

    def forward(self, x, src_mask=None, src_key_padding_mask=None):
        def attn(y):
            return self.self_attn(y, y, y, attn_mask=src_mask, need_weights=False)[0]
        return x + attn(self.norm1(x)) if self.norm_first else self.norm1(x + attn(x))


class LabModel(nn.Module):
    """E[ids] + sinusoidal positions → the stored layers (no final norm) → the output head, with the
    weights file's parameter names. Attention weights and each head's output are returned on request."""

    def __init__(self, meta, vocab_size):
        super().__init__()
        if meta["positional"] != "sinusoidal" or meta.get("cross_attention", "false") != "false":
            raise SystemExit("labmodels: only sinusoidal positions and encoder-only models are rebuilt here")
        self.d, self.h = int(meta["d_model"]), int(meta["heads"])
        self.causal = "causal" in meta["mask"]
        first, eps = meta["norm"] == "pre", float(meta["eps"])
        self.embedding = nn.Embedding(vocab_size, self.d, padding_idx=0)
        self.encoder = nn.Module()
        if meta.get("ffn", "mlp") == "none":
            layers = [AttentionOnlyLayer(self.d, self.h, first, eps) for _ in range(int(meta["layers"]))]
        else:
            act = {"relu": "relu", "gelu": "gelu"}[meta["activation"]]
            layers = [nn.TransformerEncoderLayer(self.d, self.h, int(meta["d_ff"]), dropout=0.0, activation=act,
                                                 layer_norm_eps=eps, batch_first=True, norm_first=first)
                      for _ in range(int(meta["layers"]))]
        self.encoder.layers = nn.ModuleList(layers)
        self.output_head = nn.Linear(self.d, vocab_size)

    def forward(self, ids, inspect=False):
        """ids (1, S) → logits (1, S, V); with inspect, also per layer the weights (H, S, S) and the
        heads' outputs (H, S, d_head) = A_h · V_h before the output projection."""
        s = ids.shape[1]
        mask = torch.triu(torch.ones(s, s, dtype=torch.bool), diagonal=1) if self.causal else None
        x = self.embedding(ids) + L.sinusoidal(s, self.d)
        weights, heads = [], []
        for layer in self.encoder.layers:
            if inspect:
                q = layer.norm1(x) if layer.norm_first else x
                _, w = layer.self_attn(q, q, q, attn_mask=mask, need_weights=True, average_attn_weights=False)
                d = self.d
                v = q[0] @ layer.self_attn.in_proj_weight[2 * d:].T + layer.self_attn.in_proj_bias[2 * d:]
                v = v.view(s, self.h, d // self.h).transpose(0, 1)  # (H, S, d_head)
                weights.append(w[0])
                heads.append(w[0] @ v)
            x = layer(x, src_mask=mask)
        logits = self.output_head(x)
        return (logits, weights, heads) if inspect else logits


def manual_forward(model, ids, ablate=None):
    """The same forward pass written out (q, k, v, softmax, A·V per head, merge), so that one head's
    output can be zeroed before the merge: ablate = (layer, head). Checked against forward() in
    check_manual()."""
    s, d, h = ids.shape[1], model.d, model.h
    mask = torch.triu(torch.ones(s, s, dtype=torch.bool), diagonal=1) if model.causal else None
    x = model.embedding(ids)[0] + L.sinusoidal(s, d)
    for li, layer in enumerate(model.encoder.layers):
        sa = layer.self_attn

        def attn(y):
            qkv = y @ sa.in_proj_weight.T + sa.in_proj_bias  # (S, 3D)
            q, k, v = (t.view(s, h, d // h).transpose(0, 1) for t in qkv.split(d, -1))  # (H, S, d_head)
            scores = q @ k.transpose(1, 2) / math.sqrt(d // h)
            if mask is not None:
                scores = scores.masked_fill(mask, float("-inf"))
            out = torch.softmax(scores, -1) @ v  # (H, S, d_head)
            if ablate is not None and ablate[0] == li:
                out = out.clone()
                out[ablate[1]] = 0
            return out.transpose(0, 1).reshape(s, d) @ sa.out_proj.weight.T + sa.out_proj.bias

        def ff(y):
            return layer.linear2(layer.activation(layer.linear1(y)))
        has_ff = hasattr(layer, "linear1")
        if layer.norm_first:
            x = x + attn(layer.norm1(x))
            x = x + ff(layer.norm2(x)) if has_ff else x
        else:
            x = layer.norm1(x + attn(x))
            x = layer.norm2(x + ff(x)) if has_ff else x
    return model.output_head(x).unsqueeze(0)


def check_manual(model, ids):
    with torch.no_grad():
        gap = (manual_forward(model, ids) - model(ids)).abs().max().item()
    if gap > 1e-4:
        raise SystemExit(f"labmodels: the written-out forward pass differs from PyTorch's layers by {gap}")


def ablated_guesses(model, ids):
    """{(layer, head): the most probable token at every position with that head zeroed}."""
    return {(li, hi): manual_forward(model, ids, (li, hi))[0].argmax(-1)
            for li in range(len(model.encoder.layers)) for hi in range(model.h)}


def load_lab_model(path):
    tensors, meta = L.read_safetensors(path)
    vocab = json.loads(meta["vocab"])
    model = LabModel(meta, len(vocab))
    model.load_state_dict(tensors)
    model.train()  # no dropout; PyTorch 1.13's eval fast path rounds differently
    return model, tensors, meta, vocab


# ------------------------------------------------------------------------------------ fresh data
def induction_sequence(rng):
    """The trainer's recipe with Python's generator: 0–5 letters, a run of 6–12 letters, the run again."""
    pre, run = rng.randint(0, 5), rng.randint(6, 12)
    first = [rng.choice(LETTERS) for _ in range(pre + run)]
    return first + first[pre:], pre, run


def brackets_sequence(rng):
    """2–20 brackets, half of the sequences balanced (as the trainer draws them), and the labels."""
    n, balanced = 2 * rng.randint(1, 10), rng.random() < 0.5
    toks, labels, depth, bad = [], [], 0, False
    for i in range(n):
        coin = rng.random() < 0.5
        opening = (True if depth == 0 else (False if n - i == depth else coin)) if balanced else coin
        toks.append("(" if opening else ")")
        depth += 1 if opening else -1
        bad = bad or depth < 0
        labels.append("bad" if bad else "ok" if depth == 0 else "open")
    return toks, labels


# ------------------------------------------------------------------------------- measurements
def induction_scores(model, vocab, cfg):
    """Per layer and head, on fresh sequences: previous-token (mean weight from i on i − 1), induction
    (from the second copy's token t on the position after t's first occurrence), self — the definitions
    of core/training/head_scores.h — and the share of the second copy's predictable letters (all but
    its first) that the model gets right. Also the scores an even spread would give."""
    rng, index = random.Random(cfg["held_out_seed"]), {w: i for i, w in enumerate(vocab)}
    shape = (len(model.encoder.layers), model.h)
    prev, ind, self_ = (torch.zeros(shape, dtype=torch.float64) for _ in range(3))
    even = dict(previous=0.0, induction=0.0, self=0.0)
    n_prev = n_ind = n_rows = right = scored = 0
    ablated = torch.zeros(shape, dtype=torch.float64)  # second-copy letters right with the head zeroed
    ablated_scored = right_quarter = 0
    with torch.no_grad():
        for n in range(cfg["held_out_count"]):
            toks, pre, run = induction_sequence(rng)
            ids = torch.tensor([[index[t] for t in toks]])
            if n == 0:
                check_manual(model, ids)
            logits, weights, _ = model(ids, inspect=True)
            if n < cfg["held_out_count"] // 4:  # ablation on the first quarter (a forward pass per head)
                for head, g in ablated_guesses(model, ids).items():
                    ablated[head] += sum(int(g[pre + run + t] == ids[0, pre + run + t + 1]) for t in range(run - 1))
                ablated_scored = scored + run - 1
            s, at = len(toks), torch.arange(len(toks))
            q, k = pre + run + torch.arange(run), pre + torch.arange(run) + 1
            for li, w in enumerate(weights):
                w = w.double()
                self_[li] += w[:, at, at].sum(-1)
                prev[li] += w[:, at[1:], at[:-1]].sum(-1)
                ind[li] += w[:, q, k].sum(-1)
            even["self"] += sum(1 / (i + 1) for i in range(s))
            even["previous"] += sum(1 / (i + 1) for i in range(1, s))
            even["induction"] += sum(1 / (int(i) + 1) for i in q)
            n_rows, n_prev, n_ind = n_rows + s, n_prev + s - 1, n_ind + run
            guess = logits[0].argmax(-1)
            for t in range(run - 1):  # the query at the copy's token t predicts token t + 1
                right += int(guess[pre + run + t] == ids[0, pre + run + t + 1])
                right_quarter += int(n < cfg["held_out_count"] // 4 and guess[pre + run + t] == ids[0, pre + run + t + 1])
            scored += run - 1
    scores = {"previous_token": prev / n_prev, "induction": ind / n_ind, "self": self_ / n_rows,
              "ablated_accuracy": ablated / max(1, ablated_scored)}
    baseline = {"previous_token": even["previous"] / n_prev, "induction": even["induction"] / n_ind,
                "self": even["self"] / n_rows, "ablated_accuracy": right_quarter / max(1, ablated_scored)}
    return scores, baseline, {"second_copy_accuracy": round(right / scored, 4), "held_out_sequences": cfg["held_out_count"]}


def depth_fit(outputs, target):
    """R² of the least-squares line (with an intercept) from a head's outputs (N, d_head) to target (N)."""
    x = torch.cat([outputs, torch.ones(outputs.shape[0], 1, dtype=outputs.dtype)], 1)
    coef = torch.linalg.lstsq(x, target.unsqueeze(1)).solution
    resid = target - (x @ coef).squeeze(1)
    return 1.0 - float(resid.pow(2).sum() / (target - target.mean()).pow(2).sum())


def brackets_scores(model, vocab, cfg):
    """Per layer and head, on fresh sequences: off_uniform (½ Σ |w − 1/(i+1)| over the prefix: 0 = an
    even spread, which averages the brackets so far — counting), balance_fit (R² of a line from the
    head's output to the balance share (opens − closes)/(i + 1)), on_negative (the weight a query labelled
    bad puts on the positions where the prefix went below zero), self; the position and sequence accuracy."""
    rng, index = random.Random(cfg["held_out_seed"]), {w: i for i, w in enumerate(vocab)}
    shape = (len(model.encoder.layers), model.h)
    off, neg, self_ = (torch.zeros(shape, dtype=torch.float64) for _ in range(3))
    outs = [[[] for _ in range(shape[1])] for _ in range(shape[0])]
    shares, even_neg, even_self = [], 0.0, 0.0
    n_rows = n_bad = right = seq_right = 0
    ablated, ablated_rows, right_quarter = torch.zeros(shape, dtype=torch.float64), 0, 0  # positions right with the head zeroed
    with torch.no_grad():
        for n in range(cfg["held_out_count"]):
            toks, labels = brackets_sequence(rng)
            ids = torch.tensor([[index[t] for t in toks]])
            if n == 0:
                check_manual(model, ids)
            logits, weights, heads = model(ids, inspect=True)
            if n < cfg["held_out_count"] // 4:  # ablation on the first quarter (a forward pass per head)
                for head, g in ablated_guesses(model, ids).items():
                    ablated[head] += sum(vocab[int(a)] == lab for a, lab in zip(g, labels))
                ablated_rows += len(toks)
            s, at = len(toks), torch.arange(len(toks))
            steps = torch.tensor([1.0 if t == "(" else -1.0 for t in toks], dtype=torch.float64)
            depth = steps.cumsum(0)
            shares.append(depth / (at + 1))
            uniform = torch.tril(torch.ones(s, s, dtype=torch.float64)) / (at + 1).unsqueeze(1)
            below = (depth < 0).double()  # keys where the prefix went below zero
            bad_rows = torch.tensor([lab == "bad" for lab in labels])
            for li, (w, o) in enumerate(zip(weights, heads)):
                w = w.double()
                off[li] += 0.5 * (w - uniform).abs().sum(-1).sum(-1)
                self_[li] += w[:, at, at].sum(-1)
                neg[li] += (w[:, bad_rows] * below).sum(-1).sum(-1)
                for hi in range(shape[1]):
                    outs[li][hi].append(o[hi].double())
            even_neg += float((uniform[bad_rows] * below).sum())
            even_self += float(uniform.diagonal().sum())
            n_rows, n_bad = n_rows + s, n_bad + int(bad_rows.sum())
            guess = [vocab[int(i)] for i in logits[0].argmax(-1)]
            hits = sum(g == lab for g, lab in zip(guess, labels))
            right, seq_right = right + hits, seq_right + int(hits == s)
            right_quarter += hits if n < cfg["held_out_count"] // 4 else 0
    share = torch.cat(shares)
    fit = torch.tensor([[depth_fit(torch.cat(outs[li][hi]), share) for hi in range(shape[1])]
                        for li in range(shape[0])], dtype=torch.float64)
    scores = {"off_uniform": off / n_rows, "balance_fit": fit, "on_negative": neg / max(1, n_bad), "self": self_ / n_rows,
              "ablated_accuracy": ablated / max(1, ablated_rows)}
    baseline = {"off_uniform": 0.0, "balance_fit": float("nan"), "on_negative": even_neg / max(1, n_bad),
                "self": even_self / n_rows, "ablated_accuracy": right_quarter / max(1, ablated_rows)}
    metrics = {"held_out_sequences": cfg["held_out_count"], "position_accuracy": round(right / n_rows, 4),
               "sequence_accuracy": round(seq_right / cfg["held_out_count"], 4)}
    return scores, baseline, metrics


def run_attnlab(attnlab, cfg, out_path, steps):
    """`attnlab train` with the task's defaults (or `steps`); its summary (the last JSON line), the
    wall-clock seconds and the command as the card shows it."""
    args = ["train", "--task", cfg["task"], "--seed", str(cfg["seed"])] + ([] if steps is None else ["--steps", str(steps)])
    t0 = time.time()
    proc = subprocess.run([attnlab] + args + ["--out", out_path, "--force"], capture_output=True, text=True)
    if proc.returncode != 0:
        raise SystemExit(f"attnlab {' '.join(args)} failed ({proc.returncode}):\n{proc.stderr}")
    return json.loads(proc.stdout.strip().splitlines()[-1]), time.time() - t0, "attnlab " + " ".join(args) + " --out …"


def examples_top5(model, vocab, examples):
    """Each example alone: tokens, ids and the top-5 at every position (expected.json's form)."""
    index, out = {w: i for i, w in enumerate(vocab)}, []
    with torch.no_grad():
        for text in examples:
            toks = L.tokenize(text)
            ids = [index.get(t, 1) for t in toks]
            logits = model(torch.tensor([ids]))[0]
            out.append({"text": text, "tokens": toks, "ids": ids,
                        "top5": [L.top5(logits[i], vocab) for i in range(len(ids))]})
    return out


def best_head(scores, key, layers):
    """(layer, head, score) of the highest `key` score among the given layers."""
    return max(((l, h, float(scores[key][l, h])) for l in layers for h in range(scores[key].shape[1])),
               key=lambda t: t[2])


# ----------------------------------------------------------------------------------------- notes
def worst_ablation(scores, layers):
    """(layer, head, accuracy) of the head whose removal costs the most."""
    return min(((l, h, float(scores["ablated_accuracy"][l, h])) for l in layers
                for h in range(scores["ablated_accuracy"].shape[1])), key=lambda t: t[2])


def induction_notes(scores, baseline, metrics):
    pl, ph, p = best_head(scores, "previous_token", [0])
    il, ih, i = best_head(scores, "induction", range(1, scores["induction"].shape[0]))
    acc, full = 100 * metrics["second_copy_accuracy"], 100 * baseline["ablated_accuracy"]
    pa, ia = (100 * float(scores["ablated_accuracy"][l, h]) for l, h in ((pl, ph), (il, ih)))
    en = (f"Type letters separated by spaces, then type the same run of letters again (c a t d o g c a t d o g): "
          f"from the second copy's second letter on, the model predicts each next letter ({acc:.1f}% right on fresh "
          f"sequences) although it has never seen these letters together. Two heads do it together. Layer {pl}, head "
          f"{ph} is a previous-token head: it puts {p:.2f} of its weight on the token just before the query (an even "
          f"spread would put {baseline['previous_token']:.2f}), so each position carries the letter before it. Layer "
          f"{il}, head {ih} is an induction head: in the second copy it puts {i:.2f} of its weight on the position right "
          f"after the earlier occurrence of the current letter (even spread: {baseline['induction']:.2f}) — it finds "
          f"the position whose previous letter is the current one, and copies what came next. Zero the previous-token "
          f"head and the accuracy falls from {full:.0f}% to {pa:.0f}%; zero the induction head and it falls to {ia:.0f}% "
          f"(other heads of layer {il} do some of the same work). Trained by Attention Lab's own trainer: the Training "
          f"panel's induction run, attention-only, causal mask.")
    zh = (f"输入用空格分隔的字母，再把同一串字母输入一遍（c a t d o g c a t d o g）：从第二遍的第二个字母起，模型能预测下一个"
          f"字母（在新序列上正确率 {acc:.1f}%），尽管它从未见过这些字母的组合。这是两个头合作完成的。层 {pl} 的头 {ph} 是"
          f"“前一个词元”头：它把 {p:.2f} 的权重放在查询前面紧挨着的词元上（均匀分配只有 {baseline['previous_token']:.2f}），"
          f"于是每个位置都带上了它前一个字母。层 {il} 的头 {ih} 是归纳头：在第二遍中，它把 {i:.2f} 的权重放在当前字母上一次"
          f"出现位置的后一个位置上（均匀分配：{baseline['induction']:.2f}）——它找到“前一个字母正是当前字母”的位置，"
          f"并把那里的字母复制过来。把“前一个词元”头的输出置零，正确率从 {full:.0f}% 降到 {pa:.0f}%；把归纳头置零，降到 "
          f"{ia:.0f}%（层 {il} 的其他头也做了一部分同样的工作）。由 Attention Lab 自己的训练器训练：训练面板的 induction "
          f"任务，只有注意力层，因果掩码。")
    return en, zh, [(pl, ph, "previous_token", p), (il, ih, "induction", i)]


def brackets_notes(scores, baseline, metrics):
    cl, ch, ca = worst_ablation(scores, [0])
    fit, off = float(scores["balance_fit"][cl, ch]), float(scores["off_uniform"][cl, ch])
    acc, seq, full = 100 * metrics["position_accuracy"], 100 * metrics["sequence_accuracy"], 100 * baseline["ablated_accuracy"]
    nl, nh, neg = best_head(scores, "on_negative", range(1, scores["on_negative"].shape[0]))
    finds_bad = neg >= baseline["on_negative"] + 0.2  # said only when the head clearly looks there
    en = (f"Type brackets separated by spaces (( ( ) ( ) )): at every position the model says what the brackets so "
          f"far are — ok (balanced), open (one still open) or bad (a ')' closed nothing); on fresh sequences "
          f"{acc:.1f}% of the positions are right and {seq:.1f}% of the sequences entirely. The head it cannot do "
          f"without is layer {cl}, head {ch}: zero its output and the accuracy falls from {full:.0f}% to {100 * ca:.0f}%. "
          f"It spreads its weight over the brackets so far, moving only {off:.2f} of it away from an even spread, so "
          f"its output is close to their average — the share of '(' minus the share of ')': a straight line through "
          f"its output gives that share with R² {fit:.2f}. An even spread counts; the layers after it turn the count "
          f"into ok / open, and 'bad' needs more than the count: whether it ever went below zero. " + (
          f"Layer {nl}, head {nh} looks for exactly that: a query labelled bad puts {neg:.2f} of its weight on the "
          f"positions where the count was below zero (an even spread would put {baseline['on_negative']:.2f}). "
          if finds_bad else "") + f"Trained by "
          f"Attention Lab's own trainer (the brackets task).")
    zh = (f"输入用空格分隔的括号（( ( ) ( ) )）：模型在每个位置判断到此为止的括号——ok（配对）、open（还有未闭合的）或 "
          f"bad（出现了没有可闭合对象的“)”）；在新序列上 {acc:.1f}% 的位置正确，{seq:.1f}% 的序列全部正确。模型离不开的是"
          f"层 {cl} 的头 {ch}：把它的输出置零，正确率从 {full:.0f}% 降到 {100 * ca:.0f}%。它把权重分给到此为止的所有括号，"
          f"与均匀分配只差 {off:.2f} 的权重，所以它的输出接近这些括号的平均——“(”所占比例减去“)”所占比例：用一条直线就能从它"
          f"的输出读出这个比例（R² {fit:.2f}）。均匀分配就是在计数；后面的层把计数变成 ok / open，而判断 bad 需要的不只是"
          f"计数：还要知道计数是否曾经低于零。" + (
          f"层 {nl} 的头 {nh} 找的正是这个：标为 bad 的查询把 {neg:.2f} 的权重放在计数低于零的位置上（均匀分配只有 "
          f"{baseline['on_negative']:.2f}）。" if finds_bad else "") + "由 Attention Lab 自己的训练器训练（brackets 任务）。")
    chosen = [(cl, ch, "ablated_accuracy", ca), (cl, ch, "off_uniform", off), (cl, ch, "balance_fit", fit)]
    return en, zh, chosen + ([(nl, nh, "on_negative", neg)] if finds_bad else [])


# ------------------------------------------------------------------------------------------ card
COLUMNS = {
    "induction": ("previous_token", "induction", "self", "ablated_accuracy"),
    "brackets": ("off_uniform", "balance_fit", "on_negative", "self", "ablated_accuracy"),
}
COLUMN_TEXT = {
    "previous_token": "mean weight from position i on i − 1 (i ≥ 1)",
    "induction": "in the second copy, the weight from token t on the position right after t's first occurrence",
    "self": "weight on the query's own position",
    "off_uniform": "½ Σ |w − 1/(i+1)| over the prefix (0 = an even spread: the head averages, i.e. counts)",
    "balance_fit": "R² of a least-squares line from the head's output (A_h·V_h, before the output projection) "
                   "to (opens − closes)/(i + 1) over every held-out position",
    "ablated_accuracy": "the accuracy with this head's output zeroed before the merge (on the first quarter of the "
                        "held-out sequences; the `even spread` row holds the accuracy with every head)",
    "on_negative": "for queries labelled bad, the weight on positions where the prefix's count is below zero",
}


def cpu_name():
    try:
        with open("/proc/cpuinfo", encoding="utf-8") as f:
            for line in f:
                if line.startswith("model name"):
                    return line.split(":", 1)[1].strip()
    except OSError:
        pass
    return "unknown CPU"


def head_table(scores, baseline, columns):
    rows = ["| layer | head | " + " | ".join(columns) + " |", "|---" * (len(columns) + 2) + "|"]
    layers, heads = scores[columns[0]].shape
    for l in range(layers):
        for h in range(heads):
            rows.append(f"| {l} | {h} | " + " | ".join(f"{float(scores[c][l, h]):.3f}" for c in columns) + " |")
    rows.append("| even spread / all heads | – | " + " | ".join("–" if math.isnan(baseline[c]) else f"{baseline[c]:.3f}"
                                                    for c in columns) + " |")
    return "\n".join(rows)


def write_lab_card(cfg, meta, summary, seconds, command, metrics, scores, baseline, chosen, note, note_zh):
    cols = COLUMNS[cfg["task"]]
    recipe = [("layers / d_model / heads / d_ff", f"{meta['layers']} / {meta['d_model']} / {meta['heads']} / {meta['d_ff']}"),
              ("feed-forward sub-layer", "none (attention-only)" if meta.get("ffn") == "none" else f"yes, {meta['activation']}"),
              ("norm / LayerNorm eps / positions", f"{meta['norm']} / {meta['eps']} / {meta['positional']}"),
              ("mask", meta["mask"]), ("steps", str(summary["steps"])),
              ("optimiser, batch, schedule", "the task's defaults of `attnlab train` (docs/cli.md \"attnlab train\")"),
              ("seed", str(cfg["seed"])),
              ("training time", f"{summary['seconds']:.0f} s ({seconds:.0f} s with the held-out evaluations' start-up), "
                                f"{cpu_name()}, {os.cpu_count()} threads"),
              ("trainer's own held-out figures", json.dumps({k: summary[k] for k in summary if k not in ("done", "out", "task")})),
              ("weights stored as", "F32"), ("command", f"`{command}` (run by `train.py --task {cfg['task']}`)")]
    heads = "\n".join(f"- layer {l}, head {h}: `{k}` {v:.3f}" for l, h, k, v in chosen)
    return f"""# {cfg['title']} · {cfg['title_zh']} — `{cfg['name']}.safetensors`

## Task

{"Next letter over space-separated letters a–z (vocabulary `[PAD]`, `[UNK]`, a … z), causal mask. Each training sequence is 0–5 random letters, then a run of 6–12 random letters, then the same run again; only the second copy can be predicted, and only by looking back at the first." if cfg['task'] == 'induction' else "Per position over space-separated brackets (vocabulary `[PAD]`, `[UNK]`, `(`, `)`, `ok`, `open`, `bad`), causal mask: the answer at position i says whether the brackets up to i are balanced (`ok`), have one still open (`open`) or went wrong (`bad`: a `)` closed nothing, from then on). Training sequences hold 2–20 brackets, half of them balanced."}

## Data

Generated by the trainer's task generator (core/training/tasks.h, the documented SplitMix64 streams). The figures below come from PyTorch on {metrics['held_out_sequences']} fresh sequences drawn by `labmodels.py` with Python's `random.Random({cfg['held_out_seed']})` — the same recipe, another generator — from the weights file as written.

## Model and training recipe

| | |
|---|---|
""" + "\n".join(f"| {k} | {v} |" for k, v in recipe) + f"""

## Held-out metrics (PyTorch, fresh sequences)

```json
{json.dumps(metrics, indent=1)}
```

## Attention heads

Layers and heads are numbered from 0, as the window labels them. `even spread` is what a head spreading its weight evenly over the keys it may see would score.

{head_table(scores, baseline, cols)}

Columns: """ + "; ".join(f"`{c}`: {COLUMN_TEXT[c]}" for c in cols) + f""".

Highlights (the heads the notes describe):

{heads}

## Notes (the file's `note` / `note_zh`)

{note}

{note_zh}
"""


# -------------------------------------------------------------------------------------------- run
def run_lab(cfg, out_dir, smoke, steps, attnlab):
    """Trains with `attnlab train`, measures with PyTorch, writes <name>.safetensors / .md / .expected.json."""
    if not (os.path.isfile(attnlab) and os.access(attnlab, os.X_OK)):
        print(f"error: {attnlab} is not an executable attnlab; build it first (cmake --preset release && "
              f"cmake --build --preset release) or pass --attnlab PATH", file=sys.stderr)
        sys.exit(1)
    with tempfile.TemporaryDirectory() as tmp:
        raw = os.path.join(tmp, "model.safetensors")
        summary, seconds, command = run_attnlab(attnlab, cfg, raw, steps)
        model, tensors, meta, vocab = load_lab_model(raw)
    measure = induction_scores if cfg["task"] == "induction" else brackets_scores
    count = 100 if smoke else cfg["held_out_count"]
    scores, baseline, metrics = measure(model, vocab, dict(cfg, held_out_count=count))
    notes = induction_notes if cfg["task"] == "induction" else brackets_notes
    note, note_zh, chosen = notes(scores, baseline, metrics)
    metrics = dict(metrics, training_steps=summary["steps"],
                   head_scores={k: [[round(float(x), 4) for x in row] for row in v.tolist()] for k, v in scores.items()})
    meta = dict(meta, title=cfg["title"], title_zh=cfg["title_zh"], note=note, note_zh=note_zh,
                examples=json.dumps(cfg["examples"], ensure_ascii=False, separators=(",", ":")),
                metrics=json.dumps(metrics, ensure_ascii=False, separators=(",", ":")))
    L.check_metadata(meta)
    path = os.path.join(out_dir, cfg["name"] + ".safetensors")
    expected = {"model": cfg["name"] + ".safetensors", "task": meta["task"], "mask": meta["mask"],
                "weights_dtype": "F32", "examples": examples_top5(model, vocab, cfg["examples"])}
    L.write_safetensors(path, tensors, meta, "F32")
    again, meta2 = L.read_safetensors(path)
    if meta2 != meta or any(not torch.equal(again[k], tensors[k]) for k in tensors):
        raise SystemExit(f"{path}: what was read back differs from what was written")
    with open(os.path.join(out_dir, cfg["name"] + ".expected.json"), "w", encoding="utf-8") as f:
        json.dump(expected, f, ensure_ascii=False, indent=1)
        f.write("\n")
    with open(os.path.join(out_dir, cfg["name"] + ".md"), "w", encoding="utf-8") as f:
        f.write(write_lab_card(cfg, meta, summary, seconds, command, metrics, scores, baseline, chosen, note, note_zh))
    return metrics, summary["seconds"], os.path.getsize(path)
