#!/usr/bin/env bash
# The Vulkan path on a real GPU, in one run: build (release preset, Vulkan on), the backend parity
# table with the validation layer, the export parity and fallback tests, and attnlab bench on the
# GPU beside the CPU. Everything goes to ${OUT:-.}/vulkan-check.txt for the issue notes.
#   OUT=/some/folder bench/vulkan_device_check.sh
set -uo pipefail
cd "$(dirname "$0")/.."
out=${OUT:-.}/vulkan-check.txt
exec > >(tee "$out") 2>&1
echo "== $(date -u)  $(uname -n)"
command -v vulkaninfo >/dev/null && vulkaninfo --summary 2>/dev/null | sed -n '/Devices:/,$p'
cmake --preset release -DATTNLAB_TESTS=ON >/dev/null && cmake --build --preset release -j"$(nproc)" | tail -n 3
echo "== parity table (validation layer on when installed)"
ATTNLAB_VULKAN_VALIDATION=1 ./build/release/tests/test_backend 2>&1 | grep -E "Vulkan device|worst|FAIL|Totals"
echo "== whole exports and the fallback"
ctest --test-dir build/release -R cli_vulkan --output-on-failure | tail -n 5
echo "== the resident stack (weights on the device, one submission per pass) against the CPU"
ATTNLAB_VULKAN_VALIDATION=1 ./build/release/tests/test_resident 2>&1 | grep -E "worst|FAIL|Totals"
echo "== bench: CPU, Vulkan full steps, Vulkan fused op by op (resident 0), Vulkan resident (median of 5)"
for shape in "128 512 8" "512 512 8" "2048 512 8" "8192 512 8" "512 1024 16"; do
  set -- $shape
  for run in "cpu full 1" "cpu tiled 1" "vulkan full 1" "vulkan tiled 0" "vulkan tiled 1"; do
    set -- $shape $run
    ATTNLAB_VULKAN_RESIDENT=$6 ./build/release/app/attnlab bench --seq "$1" --d-model "$2" --heads "$3" \
      --backend "$4" --attention "$5" --repeat 5 --memory-budget 100000 || echo "(failed: S $1 $4 $5 resident $6)"
  done
done
echo "== row reductions in subgroups (the default where the device has them) against shared memory only"
echo "   (ATTNLAB_VULKAN_SUBGROUPS=0): the traced pass (softmax over (B, H, S, S)), then the resident stack (LayerNorm)"
for sg in default 0; do
  for attention in full tiled; do
    trace=(); [ "$attention" = full ] && trace=(--trace)
    ATTNLAB_VULKAN_SUBGROUPS=$sg ./build/release/app/attnlab bench --seq 2048 --d-model 512 --heads 8 --backend vulkan \
      --attention "$attention" "${trace[@]}" --repeat 5 --memory-budget 100000 || echo "(failed: subgroups $sg $attention)"
  done
done
