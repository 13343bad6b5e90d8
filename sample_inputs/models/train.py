#!/usr/bin/python3
"""Train Attention Lab's sample models and write them beside this script.

    /usr/bin/python3 sample_inputs/models/train.py --task all            # the shipped models
    /usr/bin/python3 sample_inputs/models/train.py --smoke --out /tmp/m  # a quick check (≤ 20 steps)

Tasks: sort (sort-digits.safetensors), english (english-next-word.safetensors), chinese
(chinese-next-char.safetensors), trained here with PyTorch; induction (induction-letters.safetensors)
and brackets (brackets-depth.safetensors), trained by Attention Lab's own `attnlab train` (--attnlab
PATH, default build/release/app/attnlab) and measured here with PyTorch (labmodels.py). Each writes <name>.safetensors, <name>.md (the model card) and
<name>.expected.json (the PyTorch reference numbers for the examples, computed as the app computes:
F16-rounded weights, layers in train mode with dropout 0). Deterministic: fixed seeds, one thread.
Needs Debian's python3-torch (1.13) and numpy; the language models need the fortune texts of
Debian's packages fortunes (or fortunes-min) and fortunes-zh and the manual pages of manpages and
manpages-zh (rendered with man-db). samplelib.py holds the helpers.
"""
import argparse
import ctypes
import json
import os
import random
import sys
import time

import torch
import torch.nn.functional as F

sys.dont_write_bytecode = True  # no __pycache__ beside the shipped files
sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import samplelib as L  # noqa: E402
from labmodels import BRACKETS, DEFAULT_ATTNLAB, INDUCTION, run_lab  # noqa: E402
from notes import lm_notes, sort_notes, write_card  # noqa: E402

HERE = os.path.dirname(os.path.abspath(__file__))

SORT = dict(name="sort-digits", seed=7, d_model=64, heads=4, d_ff=256, layers=2, norm="post",
            dropout=0.0, steps=2000, batch=128, lr=2e-3, warmup=200, weight_decay=0.01,
            held_out_seed=20250, held_out_count=2000, dtype="F32",
            title="Sort the digits", title_zh="数字排序",
            examples=["3 1 4 1 5", "9 8 7 6 5 4 3 2 1 0", "2 7 1 8 2 8", "5 0 5 0", "6"])
ENGLISH = dict(name="english-next-word", seed=11, d_model=64, heads=4, d_ff=256, layers=2, norm="post",
               dropout=0.1, embedding_std=0.02, steps=16000, batch=128, lr=2e-3, warmup=200, weight_decay=0.01,
               vocab_size=2000, max_len=32, min_word_share=0.5, dtype="F16", unit="word", unit_zh="词",
               manual_package="manpages",
               title="English next word", title_zh="英文下一个词",
               examples=["You will be married within a year.",
                         "The best way to predict the future is to invent it.",
                         "There is no such thing as a free lunch.",
                         "If you can read this, you are too close."])
CHINESE = dict(name="chinese-next-char", seed=13, d_model=64, heads=4, d_ff=128, layers=2, norm="post",
               dropout=0.1, embedding_std=0.02, steps=24000, batch=128, lr=2e-3, warmup=200, weight_decay=0.01,
               vocab_size=3000, max_len=32, min_word_share=0.5, dtype="F16", unit="character", unit_zh="字",
               files=("chinese", "tang300", "song100"), manual_package="manpages-zh", min_cjk_share=0.5,
               title="Chinese next character", title_zh="中文下一个字",
               examples=["学而时习之，不亦说乎。", "请保持礼貌，尊重他人。",
                         "近水知鱼性，近山识鸟音。", "我们的目标是自由的操作系统。"])
TASKS = {"sort": SORT, "english": ENGLISH, "chinese": CHINESE, "induction": INDUCTION, "brackets": BRACKETS}
LAB_TASKS = ("induction", "brackets")
SMOKE_STEPS = 12


def make_model(cfg, vocab_size, causal):
    """embedding_std (when set): the embedding drawn from N(0, std²) instead of nn.Embedding's N(0, 1),
    so that the position code, not the token, dominates layer 0's input at first (positional heads,
    such as the previous-token head, form earlier and sharper). An initialisation only: the model
    the app runs is the same E[ids] + PE."""
    torch.manual_seed(cfg["seed"])
    model = L.AttnLabModel(vocab_size, cfg["d_model"], cfg["heads"], cfg["d_ff"], cfg["layers"],
                           cfg["norm"] == "pre", cfg["dropout"], causal)
    if cfg.get("embedding_std"):
        with torch.no_grad():
            model.embedding.weight.normal_(0.0, cfg["embedding_std"])
            model.embedding.weight[0].zero_()  # [PAD], as nn.Embedding's padding_idx keeps it
    return model


def train_loop(model, cfg, steps, next_batch, loss_of, tag):
    """AdamW (β 0.9, 0.98), linear warm-up then cosine decay to 0.1 × lr, gradient clip 1.0."""
    opt = torch.optim.AdamW(model.parameters(), lr=cfg["lr"], betas=(0.9, 0.98),
                            weight_decay=cfg["weight_decay"])
    model.train()
    t0, run = time.time(), None
    for step in range(steps):
        for g in opt.param_groups:
            g["lr"] = L.lr_at(step, steps, cfg["lr"], min(cfg["warmup"], max(1, steps // 5)))
        loss = loss_of(model, *next_batch())
        opt.zero_grad()
        loss.backward()
        torch.nn.utils.clip_grad_norm_(model.parameters(), 1.0)
        opt.step()
        run = loss.item() if run is None else 0.98 * run + 0.02 * loss.item()
        if (step + 1) % 250 == 0 or step + 1 == steps:
            print(f"  [{tag}] step {step + 1}/{steps}  loss {run:.4f}  {time.time() - t0:.0f}s", flush=True)
    return run


def metadata(cfg, vocab, task, mask, metrics, note, note_zh):
    return {"format": "attnlab-weights/1", "d_model": str(cfg["d_model"]), "heads": str(cfg["heads"]),
            "d_ff": str(cfg["d_ff"]), "layers": str(cfg["layers"]), "norm": cfg["norm"],
            "activation": "relu", "eps": repr(1e-5), "positional": "sinusoidal", "seed": str(cfg["seed"]),
            "cross_attention": "false",
            "vocab": json.dumps(vocab, ensure_ascii=False, separators=(",", ":")),
            "task": task, "mask": mask, "title": cfg["title"], "title_zh": cfg["title_zh"],
            "note": note, "note_zh": note_zh,
            "examples": json.dumps(cfg["examples"], ensure_ascii=False, separators=(",", ":")),
            "metrics": json.dumps(metrics, ensure_ascii=False, separators=(",", ":"))}


def example_predictions(ref, cfg, vocab):
    """Each example alone (a batch of one, no padding): tokens, ids, top-5 at every position."""
    index = {w: i for i, w in enumerate(vocab)}
    out = []
    with torch.no_grad():
        for text in cfg["examples"]:
            toks = L.tokenize(text)
            ids = L.encode(toks, index)
            logits = ref(torch.tensor([ids]))[0]
            out.append({"text": text, "tokens": toks, "ids": ids,
                        "top5": [L.top5(logits[i], vocab) for i in range(len(ids))]})
    return out


def save_and_verify(path, state, meta, dtype, cfg, expected):
    """Write the file, read it back and compare: tensors, metadata, and the examples' top-5 recomputed
    from the tensors as read."""
    L.write_safetensors(path, state, meta, dtype)
    tensors, meta2 = L.read_safetensors(path)
    want = {k: (v.half().float() if dtype == "F16" else v.float()) for k, v in state.items()}
    if set(tensors) != set(want) or any(not torch.equal(tensors[k], want[k]) for k in want):
        raise SystemExit(f"{path}: the tensors read back differ from those written")
    if meta2 != meta:
        raise SystemExit(f"{path}: the metadata read back differs")
    L.check_metadata(meta2)
    vocab = json.loads(meta2["vocab"])
    model = L.AttnLabModel(len(vocab), int(meta2["d_model"]), int(meta2["heads"]), int(meta2["d_ff"]),
                           int(meta2["layers"]), meta2["norm"] == "pre", 0.0, meta2["mask"] != "padding")
    model.load_state_dict(tensors)
    model.train()
    again = example_predictions(model, dict(cfg, examples=json.loads(meta2["examples"])), vocab)
    for a, b in zip(again, expected["examples"]):
        for p, q in zip(a["top5"], b["top5"]):
            if [t for t, _ in p] != [t for t, _ in q] or max(abs(x - y) for (_, x), (_, y) in zip(p, q)) > 1e-6:
                raise SystemExit(f"{path}: the reloaded model predicts differently for {a['text']!r}")


def write_outputs(out_dir, cfg, state, meta, expected, card):
    path = os.path.join(out_dir, cfg["name"] + ".safetensors")
    save_and_verify(path, state, meta, cfg["dtype"], cfg, expected)
    with open(os.path.join(out_dir, cfg["name"] + ".expected.json"), "w", encoding="utf-8") as f:
        json.dump(expected, f, ensure_ascii=False, indent=1)
        f.write("\n")
    with open(os.path.join(out_dir, cfg["name"] + ".md"), "w", encoding="utf-8") as f:
        f.write(card)
    return os.path.getsize(path)


# -------------------------------------------------------------------------------------------- sort
def sort_held_out(seed, count):
    """The held-out generator: random.Random(seed); per sequence n = randint(1, 10), then n digits
    randrange(10) (uniform length 1..10, uniform digits)."""
    rng = random.Random(seed)
    out = []
    for _ in range(count):
        n = rng.randint(1, 10)
        out.append([rng.randrange(10) for _ in range(n)])
    return out


def sort_batch_fn(seed, batch):
    g = torch.Generator().manual_seed(seed)

    def next_batch():
        n = torch.randint(1, 11, (batch,), generator=g)
        d = torch.randint(0, 10, (batch, 10), generator=g)
        real = torch.arange(10)[None, :] < n[:, None]
        ids = torch.where(real, d + 2, torch.zeros_like(d))
        srt = torch.sort(torch.where(real, d, torch.full_like(d, 99)), dim=1).values
        tgt = torch.where(real, srt + 2, torch.zeros_like(d))
        return ids, tgt
    return next_batch


def sort_loss(model, ids, tgt):
    logits = model(ids)
    return F.cross_entropy(logits.reshape(-1, logits.shape[-1]), tgt.reshape(-1), ignore_index=0)


def run_sort(cfg, out_dir, smoke, steps):
    vocab = [L.PAD, L.UNK] + [str(d) for d in range(10)]
    model = make_model(cfg, len(vocab), causal=False)
    t0 = time.time()
    final_loss = train_loop(model, cfg, steps, sort_batch_fn(cfg["seed"], cfg["batch"]), sort_loss, "sort")
    train_s = time.time() - t0
    state = {k: v.detach().clone() for k, v in model.state_dict().items()}
    ref = L.reference_model(model, state)
    count = 200 if smoke else cfg["held_out_count"]
    seqs = sort_held_out(cfg["held_out_seed"], count)
    tok_ok = tok_n = seq_ok = 0
    by_len = {}
    with torch.no_grad():
        ids = L.pad_batch([[d + 2 for d in s] for s in seqs])
        logits, attn = ref(ids, return_attention=True)
        pred = logits.argmax(-1)
        for b, s in enumerate(seqs):
            ok = pred[b, :len(s)] == torch.tensor(sorted(s)) + 2
            tok_ok += int(ok.sum())
            tok_n += len(s)
            seq_ok += bool(ok.all())
            r = by_len.setdefault(len(s), [0, 0])
            r[0] += bool(ok.all())
            r[1] += 1
        scores = L.sort_head_scores(attn, seqs)
        real = (ids != 0)[:, None, None, :].float().expand(-1, 1, ids.shape[1], -1)
        baseline = L.sort_head_scores([real / real.sum(-1, keepdim=True)], seqs)[0, 0]
    metrics = {"held_out_sequences": count, "sequence_accuracy": round(seq_ok / count, 4),
               "token_accuracy": round(tok_ok / tok_n, 4), "final_train_loss": round(final_loss, 4),
               "sequence_accuracy_by_length": {str(n): round(a / c, 4) for n, (a, c) in sorted(by_len.items())}}
    note, note_zh, highlights = sort_notes(cfg, metrics, scores, baseline)
    meta = metadata(cfg, vocab, "per-position", "padding", metrics, note, note_zh)
    expected = {"model": cfg["name"] + ".safetensors", "task": "per-position", "mask": "padding",
                "weights_dtype": cfg["dtype"], "examples": example_predictions(ref, cfg, vocab),
                "held_out": {"seed": cfg["held_out_seed"], "count": count, "lengths": [1, 10],
                             "generator": "python random.Random(seed): n = randint(1, 10); digits = "
                                          "[randrange(10) for _ in range(n)]",
                             "sequence_accuracy": metrics["sequence_accuracy"],
                             "token_accuracy": metrics["token_accuracy"]},
                "head_scores": L.scores_json(scores, L.SORT_PATTERNS)}
    card = write_card(cfg, metrics, scores, baseline, L.SORT_PATTERNS, note, note_zh, highlights,
                      train_s, steps, smoke, corpus=None)
    size = write_outputs(out_dir, cfg, state, meta, expected, card)
    return metrics, train_s, size


# ------------------------------------------------------------------------------ language models
def lm_loss(model, ids):
    logits = model(ids)[:, :-1]
    return F.cross_entropy(logits.reshape(-1, logits.shape[-1]), ids[:, 1:].reshape(-1), ignore_index=0)


def lm_batch_fn(seed, batch, data):
    """Length buckets: the sentences sorted by (length, a seeded random key) and cut into batches of
    `batch` neighbours (little padding); each step draws one of these batches uniformly."""
    g = torch.Generator().manual_seed(seed + 1)
    key = torch.rand(len(data), generator=g).tolist()
    order = sorted(range(len(data)), key=lambda i: (len(data[i]), key[i]))
    batches = [order[k:k + batch] for k in range(0, len(order), batch)]

    def next_batch():
        b = batches[int(torch.randint(0, len(batches), (1,), generator=g))]
        return (L.pad_batch([data[i] for i in b]),)
    return next_batch


def lm_eval(ref, held_ids, unigram):
    """Held-out next-token cross-entropy, top-1 / top-5 accuracy; the unigram baseline on the same
    targets (add-one smoothed counts of the training tokens)."""
    nll = n = top1 = top5 = unk = 0
    uni_nll = 0.0
    logp_uni = torch.log(unigram / unigram.sum())
    with torch.no_grad():
        for k in range(0, len(held_ids), 256):
            ids = L.pad_batch(held_ids[k:k + 256])
            logits = ref(ids)[:, :-1]
            tgt = ids[:, 1:]
            real = tgt != 0
            lp = torch.log_softmax(logits.double(), -1)
            nll -= lp.gather(-1, tgt.unsqueeze(-1)).squeeze(-1)[real].sum().item()
            uni_nll -= logp_uni[tgt[real]].sum().item()
            best = logits.topk(5, -1).indices
            top1 += (best[..., 0] == tgt)[real].sum().item()
            top5 += (best == tgt.unsqueeze(-1)).any(-1)[real].sum().item()
            unk += (tgt == 1)[real].sum().item()
            n += real.sum().item()
    import math
    return {"held_out_targets": n, "cross_entropy": round(nll / n, 4), "perplexity": round(math.exp(nll / n), 2),
            "top1_accuracy": round(top1 / n, 4), "top5_accuracy": round(top5 / n, 4),
            "unigram_perplexity": round(math.exp(uni_nll / n), 2), "unk_target_share": round(unk / n, 4)}


def lm_heads(ref, held_ids, held_toks):
    with torch.no_grad():
        ids = L.pad_batch(held_ids)
        _, attn = ref(ids, return_attention=True)
        lengths = [len(s) for s in held_ids]
        scores = L.lm_head_scores(attn, held_toks, lengths)
        s = ids.shape[1]
        allowed = (~torch.triu(torch.ones(s, s, dtype=torch.bool), 1))[None, None] & (ids != 0)[:, None, None, :]
        uni = allowed.float() / allowed.float().sum(-1, keepdim=True)
        baseline = L.lm_head_scores([uni], held_toks, lengths)[0, 0]
        favourites = L.favourite_keys(attn, held_toks, lengths)
    return scores, baseline, favourites


def corpus_files(cfg):
    """The fortune files and manual pages a language model reads, as (fortune names, paths); exits 1
    naming the Debian packages when either is missing."""
    folder = L.FORTUNE_DIR
    if cfg["name"].startswith("english"):
        files = L.english_files(folder)
        package = "fortunes (or fortunes-min)"
    else:
        files = [f for f in cfg["files"] if os.path.isfile(os.path.join(folder, f))]
        files = files if len(files) == len(cfg["files"]) else []
        package = "fortunes-zh"
    manual_package = cfg["manual_package"]
    manuals = L.manual_files(manual_package)
    if not files or not manuals:
        missing = package if not files else manual_package
        print(f"error: no {'fortune texts in ' + folder if not files else 'manual pages'} for {cfg['name']}: "
              f"install Debian's {missing} package (apt-get install fortunes fortunes-zh manpages manpages-zh)",
              file=sys.stderr)
        sys.exit(1)
    return files, [os.path.join(folder, f) for f in files] + manuals


def run_lm(cfg, out_dir, smoke, steps):
    files, paths = corpus_files(cfg)
    if smoke:  # a slice: the first fortunes of every file and 3 manual pages
        paths = [p for p in paths if not L.is_manual(p)] + [p for p in paths if L.is_manual(p)][:3]
    train_toks, held_toks = L.load_corpus(paths, cfg["max_len"], min_word_share=cfg["min_word_share"],
                                          limit_entries=60 if smoke else None,
                                          min_cjk_share=cfg.get("min_cjk_share", 0.0))
    counts = L.token_counter(train_toks)
    vocab = L.build_vocab(counts, cfg["vocab_size"])
    cfg = dict(cfg, vocab_size=len(vocab) - 2)  # fewer on a smoke run's slice
    index = {w: i for i, w in enumerate(vocab)}
    train_ids = [L.encode(s, index) for s in train_toks]
    held_ids = [L.encode(s, index) for s in held_toks]
    unigram = torch.ones(len(vocab), dtype=torch.float64)
    unigram[0] = 0
    for w, c in counts.items():
        unigram[index.get(w, 1)] += c
    model = make_model(cfg, len(vocab), causal=True)
    t0 = time.time()
    final_loss = train_loop(model, cfg, steps, lm_batch_fn(cfg["seed"], cfg["batch"], train_ids), lm_loss,
                            cfg["name"])
    train_s = time.time() - t0
    state = L.f16_rounded(model)
    ref = L.reference_model(model, state)
    metrics = lm_eval(ref, held_ids, unigram)
    metrics["final_train_loss"] = round(final_loss, 4)
    n_heads = min(len(held_ids), 100 if smoke else 1500)
    scores, baseline, favourites = lm_heads(ref, held_ids[:n_heads], held_toks[:n_heads])
    note, note_zh, highlights = lm_notes(cfg, metrics, scores, baseline, favourites)
    meta = metadata(cfg, vocab, "next-token", "padding+causal", metrics, note, note_zh)
    expected = {"model": cfg["name"] + ".safetensors", "task": "next-token", "mask": "padding+causal",
                "weights_dtype": cfg["dtype"], "examples": example_predictions(ref, cfg, vocab),
                "head_scores": L.scores_json(scores, L.LM_PATTERNS)}
    manuals = [p for p in paths if L.is_manual(p)]
    corpus = {"files": files, "manual_package": cfg["manual_package"], "manual_pages": len(manuals),
              "manual_version": L.package_version(cfg["manual_package"]), "train_sentences": len(train_ids), "held_out_sentences": len(held_ids),
              "train_tokens": sum(len(s) for s in train_ids), "vocab_size": len(vocab),
              "vocab_coverage": round(sum(counts[w] for w in vocab[2:]) / max(1, sum(counts.values())), 4),
              "head_sentences": n_heads}
    card = write_card(cfg, metrics, scores, baseline, L.LM_PATTERNS, note, note_zh, highlights,
                      train_s, steps, smoke, corpus=corpus, favourites=favourites)
    size = write_outputs(out_dir, cfg, state, meta, expected, card)
    return metrics, train_s, size


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--task", choices=list(TASKS) + ["all"], default="all")
    ap.add_argument("--attnlab", default=DEFAULT_ATTNLAB, help="the attnlab program that trains induction and brackets")
    ap.add_argument("--out", help="output folder (default: this script's folder; required with --smoke)")
    ap.add_argument("--smoke", action="store_true", help=f"{SMOKE_STEPS} steps on a corpus slice, then read back")
    ap.add_argument("--steps", type=int, help="override the number of training steps (experiments)")
    args = ap.parse_args()
    if args.smoke and not args.out:
        ap.error("--smoke needs --out DIR (so that the shipped models are never overwritten)")
    out_dir = args.out or HERE
    os.makedirs(out_dir, exist_ok=True)
    torch.set_num_threads(1)
    torch.use_deterministic_algorithms(True)
    try:  # keep freed blocks in the heap: glibc's mmap/munmap per step doubled the training time
        libc = ctypes.CDLL("libc.so.6")
        libc.mallopt(-3, 1 << 30)  # M_MMAP_THRESHOLD
        libc.mallopt(-1, 1 << 30)  # M_TRIM_THRESHOLD
    except OSError:
        pass
    tasks = list(TASKS) if args.task == "all" else [args.task]
    for t in tasks:  # before any training: a missing corpus stops the run at once
        if t in ("english", "chinese"):
            corpus_files(TASKS[t])
    for t in tasks:
        cfg = TASKS[t]
        steps = args.steps or (SMOKE_STEPS if args.smoke else cfg.get("steps"))  # None: attnlab train's default
        t0 = time.time()
        if t in LAB_TASKS:
            metrics, train_s, size = run_lab(cfg, out_dir, args.smoke, steps, args.attnlab)
        else:
            metrics, train_s, size = (run_sort if t == "sort" else run_lm)(cfg, out_dir, args.smoke, steps)
        keys = {"sort": ("sequence_accuracy", "token_accuracy"), "induction": ("second_copy_accuracy",),
                "brackets": ("position_accuracy", "sequence_accuracy")}.get(
            t, ("perplexity", "top1_accuracy", "top5_accuracy", "unigram_perplexity"))
        print(f"{cfg['name']}: " + ", ".join(f"{k} {metrics[k]}" for k in keys) +
              f"; {steps or 'the default'} steps, trained {train_s:.0f}s, total {time.time() - t0:.0f}s; "
              f"{size / 1024:.0f} KiB", flush=True)


if __name__ == "__main__":
    main()
