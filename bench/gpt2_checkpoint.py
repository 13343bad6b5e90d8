#!/usr/bin/env python3
"""GPT-2 small's real shape, opened as a teacher would: a random checkpoint of GPT-2 small's sizes
(12 layers, 12 heads, D 768, 1024 positions, vocabulary 50257; 124 M parameters, F32) written in
Hugging Face's layout, then `attnlab export --model` on one text of S pieces beside PyTorch
running the same forward pass (the published architecture, float32, no autograd) on the same
weights, in one run. Medians of --repeat runs; peak RSS of each process.

    /usr/bin/python3 bench/gpt2_checkpoint.py build/release/app/attnlab [--seq 64 256] [--repeat 3]
        [--variant "--attention tiled" --variant "--attention tiled --full-layers 5"] [--generate N]

Each --variant is a set of export options run beside the plain export (long texts: the tiled
path, one layer in full), each with its own median and peak. --generate N times greedy generation
instead: N pieces after the S-piece prompt, with the KV cache and with --no-kv-cache (the manifest's
timings_ms.generate), beside PyTorch decoding with and without a cache.

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


def write_safetensors(path, tensors, dtype="f32"):
    """F32 (or F16) tensors in the safetensors layout, streamed (the F32 file is 498 MB)."""
    header, offset = {"__metadata__": {"format": "pt"}}, 0
    width = 2 if dtype == "f16" else 4
    for name, a in tensors.items():
        header[name] = {"dtype": dtype.upper(), "shape": list(a.shape), "data_offsets": [offset, offset + a.size * width]}
        offset += a.size * width
    head = json.dumps(header).encode("utf-8")
    head += b" " * ((8 - len(head) % 8) % 8)
    with open(path, "wb") as f:
        f.write(struct.pack("<Q", len(head)) + head)
        for a in tensors.values():
            f.write(np.ascontiguousarray(a, dtype="<f2" if dtype == "f16" else "<f4").tobytes())


def write_checkpoint(folder, seed=0, dtype="f32"):
    """The checkpoint's tensors as the file holds them (F16 ones widened back to float32)."""
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
    if dtype == "f16":
        t = {k: v.astype(np.float16).astype(np.float32) for k, v in t.items()}
    write_safetensors(os.path.join(folder, "model.safetensors"), {"transformer." + k: v for k, v in t.items()}, dtype)
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


def torch_generate(t, ids, n, cache):
    """Greedy decoding of n pieces after ids (1, S): with a KV cache (the prompt once, then each piece
    alone against every layer's cached keys and values) or the whole text again per piece."""
    ln = lambda x, w, b: torch.nn.functional.layer_norm(x, (D,), t[w], t[b], 1e-5)
    if not cache:
        for _ in range(n):
            ids = torch.cat([ids, torch_forward(t, ids)[:, -1].argmax(-1, keepdim=True)], dim=1)
        return ids[0, -n:].tolist()
    keys, values, out, new, start = [None] * L, [None] * L, [], ids, 0
    for _ in range(n):
        s = new.shape[1]
        x = t["wte.weight"][new] + t["wpe.weight"][start:start + s]
        for i in range(L):
            h = "h.%d." % i
            qkv = ln(x, h + "ln_1.weight", h + "ln_1.bias") @ t[h + "attn.c_attn.weight"] + t[h + "attn.c_attn.bias"]
            q, k, v = (z.view(1, s, H, D // H).transpose(1, 2) for z in qkv.split(D, dim=2))
            keys[i] = k if keys[i] is None else torch.cat([keys[i], k], dim=2)
            values[i] = v if values[i] is None else torch.cat([values[i], v], dim=2)
            future = torch.triu(torch.ones(s, start + s, dtype=torch.bool), diagonal=start + 1)
            w = torch.softmax((q @ keys[i].transpose(-1, -2) / math.sqrt(D // H)).masked_fill(future, -math.inf), -1)
            x = x + (w @ values[i]).transpose(1, 2).reshape(1, s, D) @ t[h + "attn.c_proj.weight"] + t[h + "attn.c_proj.bias"]
            m = ln(x, h + "ln_2.weight", h + "ln_2.bias") @ t[h + "mlp.c_fc.weight"] + t[h + "mlp.c_fc.bias"]
            x = x + torch.nn.functional.gelu(m, approximate="tanh") @ t[h + "mlp.c_proj.weight"] + t[h + "mlp.c_proj.bias"]
        logits = ln(x[:, -1:], "ln_f.weight", "ln_f.bias") @ t["wte.weight"].T
        new, start = logits[:, -1].argmax(-1, keepdim=True), start + s
        out.append(int(new))
    return out


def median_time(f, repeat):
    times = []
    for _ in range(repeat):
        start = time.perf_counter()
        f()
        times.append(time.perf_counter() - start)
    return statistics.median(times)


def generation_rows(a, t, folder, tmp):
    """--generate N on a prompt of S pieces, greedy: attnlab's generation (the manifest's
    timings_ms.generate: the draws alone, not loading, the trace or the bundle) with the KV cache and
    with --no-kv-cache, beside PyTorch's greedy decoding with and without a cache."""
    rows = []
    for s in a.seq:
        text, ids = "a" * s, torch.full((1, s), ord("a") - ord("!"), dtype=torch.long)
        bundle = os.path.join(tmp, "bundle")
        with torch.no_grad():
            theirs = {c: median_time(lambda: torch_generate(t, ids, a.generate, c), a.repeat) for c in (True, False)}
            reference = torch_generate(t, ids, a.generate, True)
            same = reference == torch_generate(t, ids, a.generate, False)
        for cache, extra in ((True, []), (False, ["--no-kv-cache"])):
            times, walls = [], []
            for _ in range(a.repeat):
                walls.append(run_attnlab(a.attnlab, folder, text, bundle,
                                         ["--generate", str(a.generate), "--temperature", "0", *extra])[0])
                with open(os.path.join(bundle, "manifest.json")) as f:
                    manifest = json.load(f)
                assert manifest["generation"]["kv_cache"] == cache
                times.append(manifest["timings_ms"]["generate"] / 1000)
            gen = statistics.median(times)
            rows.append({"seq": s, "generate": a.generate, "kv_cache": cache, "attnlab_export_s": statistics.median(walls),
                         "attnlab_generation_s": gen, "torch_generation_s": theirs[cache], "ratio": gen / theirs[cache],
                         "torch_cached_equals_uncached": same,
                         # random weights may tie: reported, not asserted
                         "ids_equal_torch": manifest["generation"]["rows"][0]["ids"] == reference})
    return rows


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
    ap.add_argument("--dtype", choices=("f32", "f16"), default="f32", help="the checkpoint's dtype (F16: attnlab "
                    "keeps it in 16 bits and widens on use; PyTorch runs the widened values in float32)")
    ap.add_argument("--generate", type=int, default=0, help="time greedy generation of N pieces after each S-piece "
                    "prompt instead, with and without the KV cache, beside PyTorch's")
    a = ap.parse_args()
    torch.set_num_threads(int(os.environ.get("OMP_NUM_THREADS", "2")))
    tmp = tempfile.mkdtemp(prefix="attnlab-gpt2-")
    try:
        folder = os.path.join(tmp, "gpt2")
        os.makedirs(folder)
        t = {k: torch.from_numpy(v) for k, v in write_checkpoint(folder, dtype=a.dtype).items()}
        size = os.path.getsize(os.path.join(folder, "model.safetensors")) / 2 ** 20
        rows = generation_rows(a, t, folder, tmp) if a.generate else []
        for s in ([] if a.generate else a.seq):
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
        print(json.dumps({"dtype": a.dtype, "checkpoint_mib": round(size, 1), "threads": torch.get_num_threads(),
                          "torch_peak_rss_mib": resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024,
                          "runs": rows}, indent=1))
    finally:
        shutil.rmtree(tmp, ignore_errors=True)


if __name__ == "__main__":
    main()
