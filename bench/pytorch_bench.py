#!/usr/bin/python3
"""The reference side of `bench/compare.sh`: PyTorch's nn.TransformerEncoder on the same shapes
as `attnlab bench`, printed as the same JSON keys. Run with Debian's /usr/bin/python3."""
import argparse
import json
import resource
import statistics
import time

import torch
import torch.nn as nn


def main():
    p = argparse.ArgumentParser()
    p.add_argument("--batch", type=int, default=1)
    p.add_argument("--seq", type=int, default=128)
    p.add_argument("--d-model", type=int, default=512)
    p.add_argument("--heads", type=int, default=8)
    p.add_argument("--d-ff", type=int, default=0)
    p.add_argument("--layers", type=int, default=1)
    p.add_argument("--norm", choices=["pre", "post"], default="pre")
    p.add_argument("--repeat", type=int, default=10)
    p.add_argument("--threads", type=int, default=0)
    p.add_argument("--loss", choices=["sum"], help="also the backward pass: train mode, output.sum().backward()")
    a = p.parse_args()
    d_ff = a.d_ff or 4 * a.d_model
    if a.threads:
        torch.set_num_threads(a.threads)
    torch.manual_seed(0)
    layers = [nn.TransformerEncoderLayer(a.d_model, a.heads, d_ff, dropout=0.0, batch_first=True,
                                         norm_first=a.norm == "pre") for _ in range(a.layers)]
    model = nn.Sequential(*layers).eval()
    x = torch.randn(a.batch, a.seq, a.d_model)

    def once():
        t0 = time.perf_counter()
        with torch.inference_mode():
            model(x)
        return (time.perf_counter() - t0) * 1e3

    backward_ms = []

    def with_backward():  # autograd records the graph during the forward; the backward timed apart
        t0 = time.perf_counter()
        y = model(x)
        t1 = time.perf_counter()
        y.sum().backward()
        backward_ms.append((time.perf_counter() - t1) * 1e3)
        return (t1 - t0) * 1e3

    run = with_backward if a.loss else once
    if a.loss:
        model.train()
    run(), run()
    backward_ms.clear()
    ms = sorted(run() for _ in range(a.repeat))
    med = statistics.median(ms)
    S, D, F = a.seq, a.d_model, d_ff
    flops = a.layers * a.batch * (8 * S * D * D + 4 * S * D * F + 4 * S * S * D)
    out = {"median_ms": med, "min_ms": ms[0], "max_ms": ms[-1], "gflops": flops / (med * 1e6),
           "peak_rss_mb": resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024,
           "backend": "pytorch " + torch.__version__, "threads": torch.get_num_threads()}
    if a.loss:
        out.update(loss=a.loss, backward_median_ms=statistics.median(backward_ms),
                   total_median_ms=med + statistics.median(backward_ms))
    print(json.dumps(out))


if __name__ == "__main__":
    main()
