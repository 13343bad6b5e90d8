#!/usr/bin/env bash
# attnlab bench beside PyTorch 1.13 on the same shapes, in one run, as ratios (median of REPEAT):
# a markdown table with GFLOP/s, % of this machine's fp32 FMA peak (measured by attnlab bench in
# the same run: the highest of its measurements heads the table) and the ratio, headed by the
# date and the CPU. Both programs run as on a user's machine: OPENBLAS_CORETYPE and
# OPENBLAS_L2_SIZE unset (these build machines export them; they force OpenBLAS's AVX2 kernel).
#   bench/compare.sh [BINARY]   (default build/release/app/attnlab)
#   env: THREADS (default: all cores), REPEAT (default 10), SHAPES ("S D H [B L];…", default the
#        grid below: B 1 and 1 layer unless given), PACKAGE (a second attnlab, e.g. the .deb's
#        /usr/bin/attnlab or build/package/app/attnlab: its ms and its ratio to BINARY's are added)
set -euo pipefail
bin=${1:-build/release/app/attnlab}
threads=${THREADS:-$(nproc)}
repeat=${REPEAT:-10}
package=${PACKAGE:-}
shapes=${SHAPES:-"128 256 4;128 512 8;128 1024 16;512 256 4;512 512 8;512 1024 16;2048 256 4;2048 512 8;2048 1024 16;128 512 8 4 2;512 512 8 4 2"}
here=$(dirname "$0")
user_env=(env -u OPENBLAS_CORETYPE -u OPENBLAS_L2_SIZE)
rows=()
IFS=';' read -ra grid <<<"$shapes"
for shape in "${grid[@]}"; do
  read -r S D H B L <<<"$shape"
  B=${B:-1} L=${L:-1}
  args=(--seq "$S" --d-model "$D" --heads "$H" --batch "$B" --layers "$L" --repeat "$repeat" --threads "$threads")
  ours=$("${user_env[@]}" "$bin" bench "${args[@]}" --backend cpu)
  pkg='{}'
  [ -n "$package" ] && pkg=$("${user_env[@]}" "$package" bench "${args[@]}" --backend cpu)
  ref=$("${user_env[@]}" /usr/bin/python3 "$here/pytorch_bench.py" "${args[@]}")
  rows+=("$S|$D|$H|$B|$L|$ours|$pkg|$ref")
done
/usr/bin/python3 - "$threads" "$($bin --version)" "$(lscpu | sed -n 's/^Model name: *//p')" "${rows[@]}" <<'PY'
import json, sys, datetime, torch
threads, version, cpu, rows = sys.argv[1], sys.argv[2], sys.argv[3], [r.split("|") for r in sys.argv[4:]]
parsed = [(S, D, H, B, L, json.loads(o), json.loads(p), json.loads(r)) for S, D, H, B, L, o, p, r in rows]
peak = max(o["peak_gflops"] for *_, o, p, r in parsed)
isa = parsed[0][5]["peak_isa"]
print(f"{datetime.date.today()}, {cpu}, {threads} threads, fp32 FMA peak {peak:.0f} GFLOP/s ({isa}, measured in this run); "
      f"PyTorch {torch.__version__}; {version}; GEMM: {parsed[0][5]['gemm']}; OPENBLAS_CORETYPE and OPENBLAS_L2_SIZE unset for both")
print()
has_pkg = any(p for *_, p, r in parsed)
head = "| shape (F 4·D, pre-norm) | attnlab ms | PyTorch ms | attnlab / PyTorch time | attnlab GFLOP/s | % of peak | PyTorch GFLOP/s | % of peak | layer ÷ its GEMMs alone |"
if has_pkg:
    head += " package ms | package / native |"
print(head)
print("|" + "---|" * (head.count("|") - 1))
for S, D, H, B, L, o, p, r in parsed:
    line = (f"| B {B}, S {S}, D {D}, H {H}, {L} layer{'s' if L != '1' else ''} | {o['median_ms']:.2f} | {r['median_ms']:.2f} | "
            f"{o['median_ms'] / r['median_ms']:.2f} | {o['gflops']:.1f} | {100 * o['gflops'] / peak:.0f} % | "
            f"{r['gflops']:.1f} | {100 * r['gflops'] / peak:.0f} % | {o['layer_vs_gemms']:.2f} |")
    if has_pkg:
        line += f" {p['median_ms']:.2f} | {p['median_ms'] / o['median_ms']:.2f} |"
    print(line)
print()
print("attnlab / PyTorch time below 1: attnlab is faster; the fast path, no trace, --attention auto (tiled);"
      " 'layer ÷ its GEMMs alone' = the time of the layer's matrix products run alone (products only, no bias; same shapes and engine,"
      " attnlab bench's gemms_alone_ms) ÷ the layer's time in turn with them (layer_alongside_ms):"
      " 1 = the rest of the layer costs nothing")
PY
