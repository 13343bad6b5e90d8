#!/usr/bin/env bash
# attnlab bench beside PyTorch on the same shapes, in one run, as ratios (median of --repeat).
#   bench/compare.sh [BINARY]   (default build/release/app/attnlab)
set -euo pipefail
bin=${1:-build/release/app/attnlab}
threads=${THREADS:-$(nproc)}
repeat=${REPEAT:-10}
printf '%-24s %12s %12s %8s %10s %10s\n' shape attnlab_ms pytorch_ms ratio attn_GF/s torch_GF/s
for shape in "128 256 4" "128 512 8" "512 512 8" "128 1024 16" "1024 512 8" "2048 256 4"; do
  read -r S D H <<<"$shape"
  ours=$("$bin" bench --seq "$S" --d-model "$D" --heads "$H" --repeat "$repeat" --threads "$threads" --backend cpu)
  ref=$(/usr/bin/python3 "$(dirname "$0")/pytorch_bench.py" --seq "$S" --d-model "$D" --heads "$H" --repeat "$repeat" --threads "$threads")
  /usr/bin/python3 - "$S" "$D" "$H" "$ours" "$ref" <<'PY'
import json, sys
S, D, H, ours, ref = sys.argv[1], sys.argv[2], sys.argv[3], json.loads(sys.argv[4]), json.loads(sys.argv[5])
print(f"S={S:>5} D={D:>5} H={H:>3}    {ours['median_ms']:12.2f} {ref['median_ms']:12.2f} "
      f"{ref['median_ms'] / ours['median_ms']:8.2f} {ours['gflops']:10.1f} {ref['gflops']:10.1f}")
PY
done
echo "ratio = pytorch_ms / attnlab_ms (above 1: attnlab is faster); fast path, no trace, $threads threads"
