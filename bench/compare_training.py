#!/usr/bin/python3
"""One training step of the training lab against PyTorch 1.13's, side by side in one run.

    /usr/bin/python3 bench/compare_training.py build/release/app/attnlab [--threads 2] [--steps 200] [--repeats 3]

For each configuration (the default induction run's model, and the copy task's with its
feed-forward layers) both programs train the same model on the same batches with the same
optimiser (AdamW, clipping, the warm-up + cosine schedule): attnlab through `attnlab train`
(`--eval-count 1`, one evaluation of one sequence at the end; its summary's seconds over the
steps), PyTorch through tests/golden/gen_train_golden.py's mirror (its model, its batches), timed
around the steps alone. Each is run --repeats times, alternating; the medians and their ratio are
printed as a Markdown table. Both run with the same threads; run it with OPENBLAS_CORETYPE and
OPENBLAS_L2_SIZE unset to measure PyTorch as a user's machine runs it.
"""
import argparse
import json
import os
import statistics
import subprocess
import sys
import tempfile
import time

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, os.path.join(HERE, "..", "tests", "golden"))
sys.dont_write_bytecode = True
import gen_train_golden as g  # noqa: E402

import torch  # noqa: E402
import torch.nn.functional as F  # noqa: E402

CONFIGS = [
    ("induction (default): L2, D128, H4, attention-only, B32", "induction",
     dict(d_model=128, heads=4, d_ff=512, layers=2, ffn=False, norm="pre", activation="relu", mask="causal", eps=1e-5),
     dict(kind="adamw", lr=8e-3, beta1=0.9, beta2=0.98, eps=1e-8, weight_decay=0.01, momentum=0.9, clip=1.0,
          warmup=100, floor=0.1), 32),
    ("copy (default): L2, D64, H4, F256, B32", "copy",
     dict(d_model=64, heads=4, d_ff=256, layers=2, ffn=True, norm="pre", activation="relu", mask="causal", eps=1e-5),
     dict(kind="adamw", lr=1e-3, beta1=0.9, beta2=0.98, eps=1e-8, weight_decay=0.01, momentum=0.9, clip=1.0,
          warmup=100, floor=0.1), 32),
]


def time_attnlab(binary, task, model, opt, batch, steps, threads):
    with tempfile.TemporaryDirectory() as d:
        args = [binary, "train", "--task", task, "--steps", str(steps), "--log-every", str(steps), "--eval-count", "1",
                "--seed", "0", "--threads", str(threads), "--batch", str(batch), "--out", os.path.join(d, "m.st"),
                "--d-model", str(model["d_model"]), "--heads", str(model["heads"]), "--d-ff", str(model["d_ff"]),
                "--layers", str(model["layers"]), "--ffn", "mlp" if model["ffn"] else "none", "--lr", str(opt["lr"])]
        out = subprocess.run(args, check=True, stdout=subprocess.PIPE).stdout.decode()
        return 1000 * json.loads(out.splitlines()[-1])["seconds"] / steps


def time_torch(task, model, opt, batch, steps, threads):
    torch.set_num_threads(threads)
    case = dict(name="bench", task=task, seed=0, steps=steps, batch=batch, model=model, opt=opt)
    vocab = g.VOCABS[task]
    m = g.Model(model, len(vocab))
    m.load_state_dict(g.initial_weights(m, model, 0))
    m.train()
    params = list(m.parameters())
    o = torch.optim.AdamW(params, lr=opt["lr"], betas=(opt["beta1"], opt["beta2"]), eps=opt["eps"],
                          weight_decay=opt["weight_decay"])
    ids, tgt, lens = g.batches(case)
    xs = [(torch.from_numpy(ids[k, :, :lens[k]]), torch.from_numpy(tgt[k, :, :lens[k]])) for k in range(steps)]
    t0 = time.perf_counter()
    for k, (x, t) in enumerate(xs):
        logits = m(x)
        loss = F.cross_entropy(logits.reshape(-1, logits.shape[-1]), t.reshape(-1), ignore_index=-1)
        o.zero_grad()
        loss.backward()
        torch.nn.utils.clip_grad_norm_(params, opt["clip"])
        for group in o.param_groups:
            group["lr"] = g.lr_at(opt, k, steps)
        o.step()
    return 1000 * (time.perf_counter() - t0) / steps


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("attnlab")
    ap.add_argument("--threads", type=int, default=2)
    ap.add_argument("--steps", type=int, default=200)
    ap.add_argument("--repeats", type=int, default=3)
    a = ap.parse_args()
    blas = {k: os.environ.get(k, "unset") for k in ("OPENBLAS_CORETYPE", "OPENBLAS_L2_SIZE")}
    print(f"threads {a.threads}, {a.steps} steps, median of {a.repeats}; PyTorch {torch.__version__}; {blas}")
    print("| model | attnlab ms/step | PyTorch ms/step | attnlab / PyTorch |")
    print("|---|---|---|---|")
    for name, task, model, opt, batch in CONFIGS:
        ours, theirs = [], []
        for _ in range(a.repeats):
            ours.append(time_attnlab(a.attnlab, task, model, opt, batch, a.steps, a.threads))
            theirs.append(time_torch(task, model, opt, batch, a.steps, a.threads))
        mo, mt = statistics.median(ours), statistics.median(theirs)
        print(f"| {name} | {mo:.2f} | {mt:.2f} | {mo / mt:.2f}× |", flush=True)


if __name__ == "__main__":
    main()
