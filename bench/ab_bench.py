#!/usr/bin/env python3
"""Two attnlab builds side by side: forward + backward time per shape, the builds alternating.

    bench/ab_bench.py OLD_BINARY NEW_BINARY PAIRS "S D H REPEAT;S D H REPEAT;..." [extra bench args]

AB_METRIC=median_ms compares the traced forward alone (the bench's `median_ms`) instead of
`total_median_ms` (forward + backward). AB_LOSS= (empty) runs the untraced forward pass without
`--loss sum`: then compare `AB_METRIC=median_ms` or `layer_alongside_ms` (the layer timed beside its
products alone).

Each pair runs `attnlab bench --seq S --d-model D --heads H --repeat REPEAT --backend cpu --loss sum
--memory-budget 8192` once with each binary, the order swapped every pair (a shared machine's slow
phases then fall on both); the result is the median of the per-pair ratios NEW / OLD of
`total_median_ms` (or of AB_METRIC's field, below), with every pair's ratio and the FMA peak `attnlab bench` measured in the same
runs. OPENBLAS_CORETYPE and OPENBLAS_L2_SIZE are unset, as a user's machine runs it (issue 23).
"""
import json
import os
import statistics
import subprocess
import sys


def run(binary, seq, d_model, heads, repeat, extra, env):
    loss = os.environ.get("AB_LOSS", "sum")
    args = [binary, "bench", "--seq", seq, "--d-model", d_model, "--heads", heads, "--repeat", repeat,
            "--backend", "cpu", "--memory-budget", "8192"] + (["--loss", loss] if loss else []) + extra
    return json.loads(subprocess.run(args, capture_output=True, text=True, env=env, check=True).stdout)


def main():
    if len(sys.argv) < 5:
        sys.exit(__doc__)
    old, new, pairs, shapes, extra = sys.argv[1], sys.argv[2], int(sys.argv[3]), sys.argv[4], sys.argv[5:]
    env = {k: v for k, v in os.environ.items() if k not in ("OPENBLAS_CORETYPE", "OPENBLAS_L2_SIZE")}
    metric = os.environ.get("AB_METRIC", "total_median_ms")
    for shape in shapes.split(";"):
        seq, d_model, heads, repeat = shape.split()
        ms = {old: [], new: []}
        ratios, peaks = [], []
        for i in range(pairs):
            for binary in ((old, new) if i % 2 == 0 else (new, old)):
                out = run(binary, seq, d_model, heads, repeat, extra, env)
                ms[binary].append(out[metric])
                peaks.append(out["peak_gflops"])
            ratios.append(ms[new][-1] / ms[old][-1])
        print(f"S {seq} D {d_model} H {heads} ({metric}): old {statistics.median(ms[old]):.1f} ms, new {statistics.median(ms[new]):.1f} ms, "
              f"new/old median {statistics.median(ratios):.3f} (pairs {', '.join(f'{r:.3f}' for r in ratios)}), "
              f"peak {statistics.median(peaks):.0f} GFLOP/s", flush=True)


if __name__ == "__main__":
    main()
