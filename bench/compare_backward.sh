#!/usr/bin/env bash
# Forward + backward (`attnlab bench --loss sum`, the traced forward the backward walks, and the
# backward) beside PyTorch's autograd (train mode, output.sum().backward()) on the same shapes and
# threads, in one run: medians of --repeat, ratios, % of this machine's fp32 FMA peak (measured by
# attnlab bench in the same run; fwd+bwd counted as 3 × the forward's FLOPs: the backward's
# products are twice the forward's), the backward's peak memory beside PyTorch's. Both programs
# run as on a user's machine: OPENBLAS_CORETYPE and OPENBLAS_L2_SIZE unset.
#   bench/compare_backward.sh [BINARY]   (default build/release/app/attnlab)
#   env: THREADS (default: all cores), REPEAT (default 5), SHAPES ("S D H;…", default below),
#        BUDGET (attnlab's --memory-budget in MiB; S 2048 × D 1024 traced needs a little over 4096)
set -euo pipefail
bin=${1:-build/release/app/attnlab}
threads=${THREADS:-$(nproc)}
repeat=${REPEAT:-5}
shapes=${SHAPES:-"128 256 4;128 512 8;512 256 4;512 512 8"}
here=$(dirname "$0")
user_env=(env -u OPENBLAS_CORETYPE -u OPENBLAS_L2_SIZE)
echo "$(date -u +%Y-%m-%d), $(lscpu | sed -n 's/^Model name: *//p'), $threads threads;" \
     "PyTorch $(/usr/bin/python3 -c 'import torch; print(torch.__version__)'), $("$bin" --version); OPENBLAS_CORETYPE and OPENBLAS_L2_SIZE unset"
echo
echo "| shape (B 1, F 4·D, 1 layer, pre-norm) | attnlab fwd+bwd ms (bwd) | PyTorch fwd+bwd ms (bwd) | ratio total | ratio bwd | attnlab % of peak | PyTorch % of peak | peak GFLOP/s | attnlab peak MiB | PyTorch peak MiB |"
echo "|---|---|---|---|---|---|---|---|---|---|"
IFS=';' read -ra grid <<<"$shapes"
for shape in "${grid[@]}"; do
  read -r S D H <<<"$shape"
  ours=$("${user_env[@]}" "$bin" bench --seq "$S" --d-model "$D" --heads "$H" --repeat "$repeat" --threads "$threads" --backend cpu --loss sum ${BUDGET:+--memory-budget "$BUDGET"})
  ref=$("${user_env[@]}" /usr/bin/python3 "$here/pytorch_bench.py" --seq "$S" --d-model "$D" --heads "$H" --repeat "$repeat" --threads "$threads" --loss sum)
  /usr/bin/python3 - "$S" "$D" "$H" "$ours" "$ref" <<'PY'
import json, sys
S, D, H = sys.argv[1], sys.argv[2], sys.argv[3]
o, r = json.loads(sys.argv[4]), json.loads(sys.argv[5])
forward_flops = o["gflops"] * o["median_ms"] * 1e6  # the forward's FLOPs (bench: gflops = flops / median)
pct = lambda total_ms: 100 * 3 * forward_flops / (total_ms * 1e6) / o["peak_gflops"]
print(f"| S {S}, D {D}, H {H} | {o['total_median_ms']:.1f} ({o['backward_median_ms']:.1f}) | "
      f"{r['total_median_ms']:.1f} ({r['backward_median_ms']:.1f}) | {r['total_median_ms'] / o['total_median_ms']:.2f} | "
      f"{r['backward_median_ms'] / o['backward_median_ms']:.2f} | {pct(o['total_median_ms']):.0f} % | "
      f"{pct(r['total_median_ms']):.0f} % | {o['peak_gflops']:.0f} | {o['peak_rss_mb']:.0f} | {r['peak_rss_mb']:.0f} |")
PY
done
echo
echo "ratio = PyTorch ms / attnlab ms (above 1: attnlab is faster); attnlab's forward is the traced one"
