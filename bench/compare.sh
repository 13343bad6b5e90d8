#!/usr/bin/env bash
# attnlab bench beside PyTorch on the same shapes, in one run, as ratios (median of --repeat):
# a markdown table with GFLOP/s, % of the machine's fp32 peak and the ratio, headed by the date
# and the machine.
#   bench/compare.sh [BINARY]   (default build/release/app/attnlab)
#   env: THREADS (default: all cores), REPEAT (default 10), PEAK_GFLOPS (default 234: this
#        machine's 2 cores × AVX-512 FMA, issue 7), SHAPES ("S D H;…", default the grid below)
set -euo pipefail
bin=${1:-build/release/app/attnlab}
threads=${THREADS:-$(nproc)}
repeat=${REPEAT:-10}
peak=${PEAK_GFLOPS:-234}
shapes=${SHAPES:-"128 256 4;128 512 8;128 1024 16;512 256 4;512 512 8;512 1024 16;2048 256 4;2048 512 8;2048 1024 16"}
here=$(dirname "$0")
echo "$(date -u +%Y-%m-%d), $(lscpu | sed -n 's/^Model name: *//p'), $threads threads, peak $peak GFLOP/s;" \
     "PyTorch $(/usr/bin/python3 -c 'import torch; print(torch.__version__)'), $("$bin" --version)"
echo
echo "| shape (B 1, F 4·D, 1 layer, pre-norm) | attnlab ms | PyTorch ms | ratio | attnlab GFLOP/s | % of peak | PyTorch GFLOP/s | % of peak |"
echo "|---|---|---|---|---|---|---|---|"
IFS=';' read -ra grid <<<"$shapes"
for shape in "${grid[@]}"; do
  read -r S D H <<<"$shape"
  ours=$("$bin" bench --seq "$S" --d-model "$D" --heads "$H" --repeat "$repeat" --threads "$threads" --backend cpu)
  ref=$(/usr/bin/python3 "$here/pytorch_bench.py" --seq "$S" --d-model "$D" --heads "$H" --repeat "$repeat" --threads "$threads")
  /usr/bin/python3 - "$S" "$D" "$H" "$peak" "$ours" "$ref" <<'PY'
import json, sys
S, D, H, peak = sys.argv[1], sys.argv[2], sys.argv[3], float(sys.argv[4])
ours, ref = json.loads(sys.argv[5]), json.loads(sys.argv[6])
print(f"| S {S}, D {D}, H {H} ({ours['attention']}) | {ours['median_ms']:.2f} | {ref['median_ms']:.2f} | "
      f"{ref['median_ms'] / ours['median_ms']:.2f} | {ours['gflops']:.1f} | {100 * ours['gflops'] / peak:.0f} % | "
      f"{ref['gflops']:.1f} | {100 * ref['gflops'] / peak:.0f} % |")
PY
done
echo
echo "ratio = PyTorch ms / attnlab ms (above 1: attnlab is faster); the fast path, no trace; --attention auto"
