#!/usr/bin/env bash
# The unity builds' guard (docs/ARCHITECTURE.md, "Build units"): every file of core and of the
# command line compiled as ONE unit, syntax only (about 40 s each on 2 cores), under the package
# preset (g++, OpenBLAS/oneDNN, row_kernels.cpp inside) and the fuzz preset (clang). A file-local
# name that two files share, or a `using` that leaks into the next file, fails here now instead
# of in whichever CI build a later file list happens to batch them together.
#   .ci/one_unit.sh [WORK_DIR]   (default: a fresh temporary folder, removed afterwards)
set -euo pipefail
cd "$(dirname "$0")/.."
work=${1:-$(mktemp -d)}
[ -n "${1:-}" ] || trap 'rm -rf "$work"' EXIT
status=0
check() {  # check PRESET OBJECT…: configure with one batch per target, then each OBJECT syntax-only
  local preset=$1 dir="$work/$1" obj
  shift
  cmake --preset "$preset" -B "$dir" -DCMAKE_UNITY_BUILD_BATCH_SIZE=0 >"$dir.configure.log" 2>&1 ||
    { echo "one_unit: configuring $preset failed:"; tail -n 20 "$dir.configure.log"; exit 1; }
  for obj in "$@"; do
    # What the object needs first (generated shaders and headers), then the unit without code.
    ninja -C "$dir" -t commands "$obj" | sed '$d' | (cd "$dir" && bash) >"$dir.prereq.log" 2>&1 ||
      { echo "one_unit: $preset: preparing $obj failed:"; tail -n 20 "$dir.prereq.log"; exit 1; }
    if (cd "$dir" && eval "$(ninja -C "$dir" -t commands "$obj" | tail -n 1 |
          sed 's| -o [^ ]*\.o | -fsyntax-only |; s| -MD -MT [^ ]* -MF [^ ]*||')"); then
      echo "one_unit: $preset: $obj: one unit, no conflict"
    else
      echo "one_unit: FAIL: $preset: $obj (above): a name two files share, or a leaking using"
      status=1
    fi
  done
}
check package core/CMakeFiles/attnlab_core.dir/Unity/unity_0_cxx.cxx.o app/CMakeFiles/attnlab.dir/Unity/unity_0_cxx.cxx.o
check fuzz core/CMakeFiles/attnlab_core.dir/Unity/unity_0_cxx.cxx.o app/CMakeFiles/attnlab_cli.dir/Unity/unity_0_cxx.cxx.o
exit $status
