#!/usr/bin/env python3
"""GPT-2 small's real shape, opened as a teacher would: a random checkpoint of GPT-2 small's sizes
(12 layers, 12 heads, D 768, 1024 positions, vocabulary 50257; 124 M parameters, F32) written in
Hugging Face's layout, then `attnlab export --model` on one text of S pieces beside PyTorch
running the same forward pass (the published architecture, float32, no autograd) on the same
weights, in one run. Medians of --repeat runs; peak RSS of each process.

    /usr/bin/python3 bench/gpt2_checkpoint.py build/release/app/attnlab [--seq 64 256] [--repeat 3]
        [--variant "--attention tiled" --variant "--attention tiled --full-layers 5"]

Each --variant is a set of export options run beside the plain export (long texts: the tiled
path, one layer in full), each with its own median and peak.

attnlab's figure is the whole command: read and check the 498 MB file, widen and transpose, cut
the text, run every traced step (attention weights of every head, the logits (1, S, 50257) and
their softmax) and write the bundle (manifest, trace.npz, the weights again). PyTorch's is only
the forward pass over tensors already in memory, so the ratio is an upper bound of the overhead a
teacher waits for, not a kernel comparison (`attnlab bench` is that).
"""
import argparse
import json
import math
import os
import resource
import shutil
import statistics
import struct
import subprocess
import sys
import tempfile
import time

import numpy as np
import torch

D, H, L, P, V = 768, 12, 12, 1024, 50257


def write_safetensors(path, tensors):
    """F32 tensors in the safetensors layout, streamed (the file is 498 MB)."""
    header, offset = {"__metadata__": {"format": "pt"}}, 0
    for name, a in tensors.items():
        header[name] = {"dtype": "F32", "shape": list(a.shape), "data_offsets": [offset, offset + a.nbytes]}
        offset += a.nbytes
    head = json.dumps(header).encode("utf-8")
    head += b" " * ((8 - len(head) % 8) % 8)
    with open(path, "wb") as f:
        f.write(struct.pack("<Q", len(head)) + head)
        for a in tensors.values():
            f.write(np.ascontiguousarray(a, dtype="<f4").tobytes())


def write_checkpoint(folder, seed=0):
    g = np.random.default_rng(seed)
    n = lambda *shape, s=0.02: (g.standard_normal(shape, dtype=np.float32) * s)
    t = {"wte.weight": n(V, D), "wpe.weight": n(P, D, s=0.01)}
    for i in range(L):
        h = "h.%d." % i
        t.update({h + "ln_1.weight": 1 + n(D), h + "ln_1.bias": n(D), h + "attn.c_attn.weight": n(D, 3 * D),
                  h + "attn.c_attn.bias": n(3 * D), h + "attn.c_proj.weight": n(D, D), h + "attn.c_proj.bias": n(D),
                  h + "ln_2.weight": 1 + n(D), h + "ln_2.bias": n(D), h + "mlp.c_fc.weight": n(D, 4 * D),
                  h + "mlp.c_fc.bias": n(4 * D), h + "mlp.c_proj.weight": n(4 * D, D), h + "mlp.c_proj.bias": n(D)})
    t["ln_f.weight"], t["ln_f.bias"] = 1 + n(D), n(D)
    write_safetensors(os.path.join(folder, "model.safetensors"), {"transformer." + k: v for k, v in t.items()})
    with open(os.path.join(folder, "config.json"), "w") as f:
        json.dump({"model_type": "gpt2"}, f)  # every size from GPT2Config's defaults: GPT-2 small
    # a byte-level vocabulary of V pieces: the 256 byte symbols, filler pieces, <|endoftext|>
    symbols = [chr(c) for c in range(ord("!"), ord("~") + 1)] + [chr(c) for c in range(ord("¡"), ord("¬") + 1)] + \
              [chr(c) for c in range(ord("®"), ord("ÿ") + 1)]
    symbols += [chr(256 + i) for i in range(256 - len(symbols))]
    pieces = symbols + ["⟨%d⟩" % i for i in range(V - 257)] + ["<|endoftext|>"]
    with open(os.path.join(folder, "vocab.json"), "w", encoding="utf-8") as f:
        json.dump({p: i for i, p in enumerate(pieces)}, f, ensure_ascii=False)
    with open(os.path.join(folder, "merges.txt"), "w") as f:
        f.write("#version: 0.2\n")
    return t


def torch_forward(t, ids):
    ln = lambda x, w, b: torch.nn.functional.layer_norm(x, (D,), t[w], t[b], 1e-5)
    s = ids.shape[1]
    x = t["wte.weight"][ids] + t["wpe.weight"][:s]
    future = torch.triu(torch.ones(s, s, dtype=torch.bool), diagonal=1)
    for i in range(L):
        h = "h.%d." % i
        qkv = ln(x, h + "ln_1.weight", h + "ln_1.bias") @ t[h + "attn.c_attn.weight"] + t[h + "attn.c_attn.bias"]
        q, k, v = (z.view(1, s, H, D // H).transpose(1, 2) for z in qkv.split(D, dim=2))
        w = torch.softmax((q @ k.transpose(-1, -2) / math.sqrt(D // H)).masked_fill(future, -math.inf), dim=-1)
        x = x + (w @ v).transpose(1, 2).reshape(1, s, D) @ t[h + "attn.c_proj.weight"] + t[h + "attn.c_proj.bias"]
        m = ln(x, h + "ln_2.weight", h + "ln_2.bias") @ t[h + "mlp.c_fc.weight"] + t[h + "mlp.c_fc.bias"]
        x = x + torch.nn.functional.gelu(m, approximate="tanh") @ t[h + "mlp.c_proj.weight"] + t[h + "mlp.c_proj.bias"]
    return ln(x, "ln_f.weight", "ln_f.bias") @ t["wte.weight"].T


def run_attnlab(binary, folder, text, out, extra=()):
    shutil.rmtree(out, ignore_errors=True)
    start = time.perf_counter()
    proc = subprocess.run(["/usr/bin/time", "-f", "%M", binary, "export", "--model", folder, "--text", text,
                           "--out", out, *extra], capture_output=True, text=True)
    wall = time.perf_counter() - start
    if proc.returncode != 0:
        raise SystemExit("attnlab failed: " + proc.stderr[-2000:])
    return wall, int(proc.stderr.strip().splitlines()[-1]) / 1024  # MiB


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("attnlab")
    ap.add_argument("--seq", type=int, nargs="+", default=[64, 256])
    ap.add_argument("--repeat", type=int, default=3)
    ap.add_argument("--variant", action="append", default=[], help="export options to time as well, e.g. "
                    "\"--attention tiled --full-layers 5\"")
    ap.add_argument("--skip-plain", action="store_true", help="time only the variants (the full trace of a long "
                    "text may not fit)")
    a = ap.parse_args()
    torch.set_num_threads(int(os.environ.get("OMP_NUM_THREADS", "2")))
    tmp = tempfile.mkdtemp(prefix="attnlab-gpt2-")
    try:
        folder = os.path.join(tmp, "gpt2")
        os.makedirs(folder)
        t = {k: torch.from_numpy(v) for k, v in write_checkpoint(folder).items()}
        size = os.path.getsize(os.path.join(folder, "model.safetensors")) / 2 ** 20
        rows = []
        for s in a.seq:
            text = "a" * s  # no merges: one piece per character, S pieces
            ids = torch.full((1, s), ord("a") - ord("!"), dtype=torch.long)
            theirs = []
            with torch.no_grad():
                for _ in range(a.repeat):
                    start = time.perf_counter()
                    torch_forward(t, ids)
                    theirs.append(time.perf_counter() - start)
            for options in ([] if a.skip_plain else [""]) + a.variant:
                ours, peaks = [], []
                for _ in range(a.repeat):
                    wall, peak = run_attnlab(a.attnlab, folder, text, os.path.join(tmp, "bundle"), options.split())
                    ours.append(wall)
                    peaks.append(peak)
                rows.append({"seq": s, "options": options, "attnlab_export_s": statistics.median(ours),
                             "attnlab_peak_rss_mib": max(peaks), "torch_forward_s": statistics.median(theirs),
                             "ratio": statistics.median(ours) / statistics.median(theirs)})
        print(json.dumps({"checkpoint_mib": round(size, 1), "threads": torch.get_num_threads(),
                          "torch_peak_rss_mib": resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024,
                          "runs": rows}, indent=1))
    finally:
        shutil.rmtree(tmp, ignore_errors=True)


if __name__ == "__main__":
    main()
