#!/usr/bin/python3
"""Golden training runs from PyTorch 1.13 for tests/golden/test_train_golden.cpp.

Run with Debian's interpreter (python3-torch 1.13, python3-numpy), not a pyenv one:

    /usr/bin/python3 tests/golden/gen_train_golden.py            # rewrite tests/golden/data_train/
    /usr/bin/python3 tests/golden/gen_train_golden.py --out DIR  # write elsewhere
    /usr/bin/python3 tests/golden/gen_train_golden.py --out DIR --compare tests/golden/data_train

Each case is a training run of the training lab (core/training) for STEPS steps, done here in
PyTorch with its own layers and optimisers:

  - the batches of the task, drawn by this file's mirror of core/training/tasks.cpp (the
    documented generator, docs/cli.md "attnlab train");
  - the initial weights of trainer.cpp's init_trained_weights (the seeded rules of docs/cli.md);
  - the model of a trained weights file: E[ids] + PE → layers (nn.TransformerEncoderLayer, or an
    attention-only layer of nn.MultiheadAttention + nn.LayerNorm) → nn.Linear head, train mode,
    dropout 0, under the case's mask;
  - the per-position cross-entropy over the counted positions (F.cross_entropy, ignore_index −1),
    nn.utils.clip_grad_norm_, torch.optim.AdamW or SGD with momentum, the learning rate of
    optimizer.h's lr_at set before every step.

The same run is made twice: in float32 (what the C++ trainer is compared with) and in float64
(the trajectory both approximate). The float32 run's own distance from the float64 one is the
yardstick of the tolerance (see test_train_golden.cpp): two float32 programs, summing in different
orders, drift apart after 50 optimiser steps by about as much as either drifts from float64.

Output per case, data_train/<case>.npz (float32 arrays unless said):
    "ids", "targets"     (STEPS, B, S_max) every step's batch, [PAD] 0 / target −1 after each row;
    "loss32", "loss64"   (STEPS,) the batch's loss before each update;
    "norm32", "norm64"   (STEPS,) the gradients' global norm before clipping;
    "lr"                 (STEPS,);
    "final32/<name>", "final64/<name>"  every parameter after the last step;
and data_train/cases.json: [{name, task, seed, steps, batch, model{…}, opt{…}}].
"""
import json
import math
import os
import sys

sys.dont_write_bytecode = True
sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import gen_golden as gg  # noqa: E402  (exits 77 without torch or numpy)

import numpy as np  # noqa: E402
import torch  # noqa: E402
import torch.nn as nn  # noqa: E402
import torch.nn.functional as F  # noqa: E402

HERE = os.path.dirname(os.path.abspath(__file__))
DEFAULT_OUT = os.path.join(HERE, "data_train")
STEPS = 50
PAD, UNK = "[PAD]", "[UNK]"

CASES = [
    dict(name="induction_attention_only_pre_adamw", task="induction", seed=3, steps=STEPS, batch=8,
         model=dict(d_model=32, heads=4, d_ff=128, layers=2, ffn=False, norm="pre", activation="relu",
                    mask="causal", eps=1e-5),
         opt=dict(kind="adamw", lr=3e-3, beta1=0.9, beta2=0.98, eps=1e-8, weight_decay=0.01, momentum=0.9,
                  clip=1.0, warmup=10, floor=0.1)),
    dict(name="sort_ffn_post_gelu_sgd", task="sort", seed=5, steps=STEPS, batch=8,
         model=dict(d_model=32, heads=2, d_ff=64, layers=1, ffn=True, norm="post", activation="gelu",
                    mask="padding+causal", eps=1e-5),
         opt=dict(kind="sgd", lr=0.05, beta1=0.9, beta2=0.98, eps=1e-8, weight_decay=0.001, momentum=0.9,
                  clip=0.5, warmup=5, floor=0.1)),
    dict(name="brackets_ffn_pre_relu_adamw_padding", task="brackets", seed=7, steps=STEPS, batch=8,
         model=dict(d_model=16, heads=2, d_ff=32, layers=2, ffn=True, norm="pre", activation="relu",
                    mask="padding", eps=1e-5),
         opt=dict(kind="adamw", lr=5e-3, beta1=0.9, beta2=0.999, eps=1e-8, weight_decay=0.0, momentum=0.9,
                  clip=0.0, warmup=0, floor=0.0)),
]


# ------------------------------------------------------------------------------------- the tasks
# A mirror of core/training/tasks.cpp: draw j of example k is u64(64·k + j) of the stream
# "train:<task>" (or "heldout:<task>") for the seed; pick(j, lo, hi) = lo + draw mod (hi − lo + 1).

def draw(stream, k, j):
    return gg.mix_int(stream.base + (64 * k + j + 1) * gg.GAMMA)


def pick(stream, k, j, lo, hi):
    return lo + draw(stream, k, j) % (hi - lo + 1)


LETTERS = [PAD, UNK] + [chr(c) for c in range(ord("a"), ord("z") + 1)]
DIGITS = [PAD, UNK] + [str(d) for d in range(10)] + [">"]
BRACKETS = [PAD, UNK, "(", ")", "ok", "open", "bad"]
VOCABS = {"induction": LETTERS, "previous-token": LETTERS, "copy": DIGITS, "reverse": DIGITS, "sort": DIGITS,
          "brackets": BRACKETS}
MAX_LEN = {"induction": 29, "copy": 17, "reverse": 17, "sort": 17, "previous-token": 16, "brackets": 20}


def next_targets(ids, first):
    return [ids[i + 1] if first <= i < len(ids) - 1 else -1 for i in range(len(ids))]


def example(task, s, k):
    if task == "induction":
        pre, run = pick(s, k, 0, 0, 5), pick(s, k, 1, 6, 12)
        ids = [2 + pick(s, k, 2 + i, 0, 25) for i in range(pre + run)]
        ids += ids[pre:pre + run]
        return ids, next_targets(ids, 0)
    if task in ("copy", "reverse", "sort"):
        n = pick(s, k, 0, 1, 8)
        x = [2 + pick(s, k, 1 + i, 0, 9) for i in range(n)]
        y = {"copy": x, "reverse": x[::-1], "sort": sorted(x)}[task]
        ids = x + [12] + y
        return ids, next_targets(ids, n)
    if task == "previous-token":
        n = pick(s, k, 0, 2, 16)
        ids = [2 + pick(s, k, 1 + i, 0, 25) for i in range(n)]
        return ids, [-1] + ids[:-1]
    if task == "brackets":
        n = 2 * pick(s, k, 0, 1, 10)
        balanced = pick(s, k, 1, 0, 1) == 1
        ids, tgt, depth, bad = [], [], 0, False
        for i in range(n):
            coin = pick(s, k, 2 + i, 0, 1) == 1
            opening = coin if not balanced else (True if depth == 0 else (False if n - i == depth else coin))
            ids.append(2 if opening else 3)
            depth += 1 if opening else -1
            bad = bad or depth < 0
            tgt.append(6 if bad else 4 if depth == 0 else 5)
        return ids, tgt
    raise ValueError(task)


def batches(case):
    """Every step's (ids, targets) as (STEPS, B, S_max) arrays, and each step's own S."""
    s = gg.Stream("train:" + case["task"], case["seed"])
    b, smax = case["batch"], MAX_LEN[case["task"]]
    ids = np.zeros((case["steps"], b, smax), dtype=np.int64)
    tgt = np.full((case["steps"], b, smax), -1, dtype=np.int64)
    lens = []
    for step in range(case["steps"]):
        longest = 1
        for r in range(b):
            x, t = example(case["task"], s, step * b + r)
            ids[step, r, :len(x)] = x
            tgt[step, r, :len(t)] = t
            longest = max(longest, len(x))
        lens.append(longest)
    return ids, tgt, lens


# ------------------------------------------------------------------------------------- the model

class AttentionOnlyLayer(nn.Module):
    """Pre-norm: x + MHA(norm1(x)); post-norm: norm1(x + MHA(x)). Names as the weights file's."""

    def __init__(self, d, h, norm_first, eps):
        super().__init__()
        self.self_attn = nn.MultiheadAttention(d, h, dropout=0.0, batch_first=True)
        self.norm1 = nn.LayerNorm(d, eps=eps)
        self.norm_first = norm_first

    def forward(self, x, src_mask=None, src_key_padding_mask=None):
        def attn(y):
            return self.self_attn(y, y, y, attn_mask=src_mask, key_padding_mask=src_key_padding_mask,
                                  need_weights=False)[0]
        if self.norm_first:
            return x + attn(self.norm1(x))
        return self.norm1(x + attn(x))


class Model(nn.Module):
    def __init__(self, m, vocab_size):
        super().__init__()
        d = m["d_model"]
        self.m = m
        self.embedding = nn.Embedding(vocab_size, d)
        self.encoder = nn.Module()
        pre = m["norm"] == "pre"
        self.encoder.layers = nn.ModuleList(
            (nn.TransformerEncoderLayer(d, m["heads"], m["d_ff"], dropout=0.0, activation=m["activation"],
                                        layer_norm_eps=m["eps"], batch_first=True, norm_first=pre)
             if m["ffn"] else AttentionOnlyLayer(d, m["heads"], pre, m["eps"]))
            for _ in range(m["layers"]))
        self.output_head = nn.Linear(d, vocab_size)

    def forward(self, ids):
        s = ids.shape[1]
        mask = self.m["mask"]
        causal = torch.triu(torch.ones(s, s, dtype=torch.bool), diagonal=1) if "causal" in mask else None
        kpm = (ids == 0) if "padding" in mask else None
        pe = torch.from_numpy(gg.positional(s, self.m["d_model"])).to(self.output_head.weight.dtype)
        x = self.embedding(ids) + pe
        for layer in self.encoder.layers:
            x = layer(x, src_mask=causal, src_key_padding_mask=kpm)
        return self.output_head(x)


def initial_weights(model, m, seed):
    """trainer.cpp's init_trained_weights: LayerNorm 1 / 0; embedding rows ≥ 1 the normals of
    "param:embedding.weight"; other weights a·(2u − 1) with a = √(3/fan_in), biases 1/√fan_in."""
    out = {}
    for name, p in model.state_dict().items():
        n = p.numel()
        if ".norm" in name:
            v = np.ones(n) if name.endswith("weight") else np.zeros(n)
        elif name == "embedding.weight":
            v = gg.Stream("param:" + name, seed).normal(n).astype(np.float64)
            v[:m["d_model"]] = 0.0
        else:
            fan_in = m["d_ff"] if "linear2" in name else m["d_model"]
            a = 1.0 / math.sqrt(fan_in) if name.endswith("bias") else math.sqrt(3.0 / fan_in)
            v = a * (2.0 * gg.Stream("param:" + name, seed).uniform(n) - 1.0)
        out[name] = torch.from_numpy(np.asarray(v, dtype=np.float64).astype(np.float32).reshape(p.shape))
    return out


def lr_at(o, t, total):
    if t < o["warmup"]:
        return o["lr"] * (t + 1) / o["warmup"]
    x = min(1.0, (t - o["warmup"]) / max(1, total - o["warmup"]))
    return o["lr"] * (o["floor"] + (1 - o["floor"]) * 0.5 * (1 + math.cos(math.pi * x)))


def train(case, dtype):
    m, o = case["model"], case["opt"]
    vocab = VOCABS[case["task"]]
    model = Model(m, len(vocab))
    model.load_state_dict(initial_weights(model, m, case["seed"]))
    model.to(dtype).train()
    params = list(model.parameters())
    if o["kind"] == "adamw":
        opt = torch.optim.AdamW(params, lr=o["lr"], betas=(o["beta1"], o["beta2"]), eps=o["eps"],
                                weight_decay=o["weight_decay"])
    else:
        opt = torch.optim.SGD(params, lr=o["lr"], momentum=o["momentum"], weight_decay=o["weight_decay"])
    ids, tgt, lens = batches(case)
    losses, norms, lrs = [], [], []
    for step in range(case["steps"]):
        s = lens[step]
        x, t = torch.from_numpy(ids[step, :, :s]), torch.from_numpy(tgt[step, :, :s])
        logits = model(x)
        loss = F.cross_entropy(logits.reshape(-1, logits.shape[-1]), t.reshape(-1), ignore_index=-1)
        opt.zero_grad()
        loss.backward()
        if o["clip"] > 0:
            norm = nn.utils.clip_grad_norm_(params, o["clip"])
        else:
            norm = torch.norm(torch.stack([torch.norm(p.grad) for p in params]))
        lr = lr_at(o, step, case["steps"])
        for g in opt.param_groups:
            g["lr"] = lr
        opt.step()
        losses.append(loss.item())
        norms.append(float(norm))
        lrs.append(lr)
    final = {k: v.detach().to(torch.float32).numpy() for k, v in model.state_dict().items()}
    return ids, tgt, np.array(losses), np.array(norms), np.array(lrs), final


def generate(out_dir):
    os.makedirs(out_dir, exist_ok=True)
    torch.set_num_threads(1)
    for case in CASES:
        ids, tgt, l32, n32, lrs, f32 = train(case, torch.float32)
        _, _, l64, n64, _, f64 = train(case, torch.float64)
        arrays = {"ids": ids.astype(np.float32), "targets": tgt.astype(np.float32),
                  "loss32": l32.astype(np.float32), "loss64": l64.astype(np.float32),
                  "norm32": n32.astype(np.float32), "norm64": n64.astype(np.float32),
                  "lr": lrs.astype(np.float32)}
        for k in f32:
            arrays["final32/" + k] = f32[k]
            arrays["final64/" + k] = f64[k]
        np.savez(os.path.join(out_dir, case["name"] + ".npz"), **arrays)
        drift = max(float(np.abs(f32[k] - f64[k]).max()) for k in f32)
        print(f"{case['name']}: loss {l32[0]:.4f} → {l32[-1]:.4f}; float32 vs float64: loss "
              f"{np.abs(l32 - l64).max():.2e}, weights {drift:.2e}")
    with open(os.path.join(out_dir, "cases.json"), "w") as f:
        json.dump(CASES, f, indent=1)
        f.write("\n")


def series(name, a32, ref32, ref64, case):
    """(what, new float32, committed float32, committed float64, bound or None) to compare; an
    in_proj_bias in thirds, its key third under AdamW bounded by the most AdamW can move it
    (test_train_golden.cpp says why)."""
    if not name.endswith("in_proj_bias"):
        return [(name, a32, ref32, ref64, None)]
    o, d = case["opt"], a32.shape[0] // 3
    reach = sum(lr_at(o, t, case["steps"]) for t in range(case["steps"])) * max(1.0, (1 - o["beta1"]) / math.sqrt(1 - o["beta2"]))
    return [(f"{name}[{i}]", a32[i * d:(i + 1) * d], ref32[i * d:(i + 1) * d], ref64[i * d:(i + 1) * d],
             reach if i == 1 and o["kind"] == "adamw" else None) for i in range(3)]


def compare(new_dir, ref_dir):
    """The batches and schedule bit for bit; PyTorch's float64 run within 1e-5 + 1e-4·|ref|; its
    float32 run by test_train_golden.cpp's rule: within twice the committed float32 run's drift
    from float64 + 1e-5·max(1, |ref|) (float32: another BLAS kernel sums in another order, and 50
    optimiser steps carry that on), the key bias within AdamW's reach."""
    ok = True
    for case in CASES:
        a = np.load(os.path.join(new_dir, case["name"] + ".npz"))
        b = np.load(os.path.join(ref_dir, case["name"] + ".npz"))
        for k in b.files:
            if k in ("ids", "targets", "lr"):
                good = np.array_equal(a[k], b[k])
            elif k.endswith("64") or k.startswith("final64/"):
                good = np.allclose(a[k], b[k], atol=1e-5, rtol=1e-4)
            else:
                k64 = "final64/" + k[8:] if k.startswith("final32/") else k.replace("32", "64")
                good = True
                for what, x, r32, r64, bound in series(k, a[k], b[k], b[k64], case):
                    allowed = bound if bound is not None else (
                        2 * np.abs(r32 - r64).max() + 1e-5 * max(1.0, float(np.abs(r64).max())))
                    good = good and float(np.abs(x - r64).max()) <= allowed
            if not good:
                print(f"{case['name']}: {k} differs from {ref_dir}")
                ok = False
    print("training golden: " + ("reproduced" if ok else "DIFFERS"))
    return ok


def main():
    gg.run_generator(__doc__, DEFAULT_OUT, generate, compare,
                     "after writing, compare with DIR (exit 1 if it differs)")


if __name__ == "__main__":
    main()
