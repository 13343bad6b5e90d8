#!/usr/bin/env bash
# Attention Lab: one command to install what is missing (Debian 12, as root), build, and then
#   ./setup.sh run    open the window on the built-in sample
#   ./setup.sh test   run every test through ctest
set -euo pipefail
cd "$(dirname "$0")"
mode=${1:-run}

# Qt Linguist's lupdate/lrelease compile the Chinese translation; qt6-translations-l10n translates
# Qt's own dialogs. The Vulkan compute path needs the headers and glslc to build, and the loader plus a driver to
# run (Mesa's drivers include lavapipe, a software device; a GPU's own driver works as well).
BUILD_PACKAGES=(cmake ninja-build g++ pkg-config qt6-base-dev libeigen3-dev nlohmann-json3-dev
                libzip-dev libcli11-dev libutf8proc-dev fonts-noto-cjk fonts-dejavu-core qt6-charts-dev qt6-svg-dev
                libqt6opengl6-dev libdnnl-dev libopenblas-dev
                libvulkan-dev glslc libvulkan1 mesa-vulkan-drivers
                qt6-tools-dev qt6-l10n-tools qt6-translations-l10n)
# fonts-dejavu-core is the Latin face the classroom layout test (test_classroom) is measured with.
# PyTorch is the reference for the golden files and the code-line checks; OpenBLAS makes it fast;
# clang + libFuzzer (and clang's sanitizer runtimes, libclang-rt) build the fuzz targets; the Khronos validation layer watches the Vulkan tests;
# dpkg-dev (dpkg-shlibdeps), binutils (objdump) and appstream (appstreamcli) check the .deb.
TEST_PACKAGES=(python3 python3-torch python3-numpy libopenblas0-pthread clang libfuzzer-14-dev libclang-rt-14-dev
               vulkan-validationlayers dpkg-dev binutils appstream file
               fortunes fortunes-zh man-db manpages manpages-zh   # the sample models' training texts (train_smoke)
               locales)               # de_DE's definition, compiled by the locale test into its own folder

install_missing() {
  local missing=()
  for p in "$@"; do
    dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "ok installed" || missing+=("$p")
  done
  [ ${#missing[@]} -eq 0 ] && return 0
  echo "setup: installing ${missing[*]}"
  local sudo=""
  [ "$(id -u)" -eq 0 ] || sudo="sudo"
  $sudo apt-get update -qq
  DEBIAN_FRONTEND=noninteractive $sudo apt-get install -y -qq --no-install-recommends "${missing[@]}"
}

# Configure's full output goes to build/configure.log; the terminal gets the feature decisions
# (the lines CMake prints as "attnlab: …", e.g. whether the Vulkan path is built), or the whole
# log when configuring fails.
build() {
  mkdir -p build
  if ! cmake --preset release "$@" >build/configure.log 2>&1; then
    cat build/configure.log >&2
    echo "setup: configuring failed (above; also in build/configure.log)" >&2
    exit 1
  fi
  sed -n 's/^-- attnlab: /setup: /p' build/configure.log
  cmake --build --preset release
}

case "$mode" in
  run)
    install_missing "${BUILD_PACKAGES[@]}"
    build -DATTNLAB_TESTS=OFF
    if [ -z "${DISPLAY:-}" ] && [ -z "${WAYLAND_DISPLAY:-}" ]; then
      echo "setup: built build/release/app/attnlab, but there is no display to open the window on." >&2
      echo "setup: run it from a desktop session, or try: xvfb-run -a ./build/release/app/attnlab" >&2
      exit 1
    fi
    exec ./build/release/app/attnlab
    ;;
  test)
    install_missing "${BUILD_PACKAGES[@]}" "${TEST_PACKAGES[@]}"
    build -DATTNLAB_TESTS=ON
    ctest --preset release -j2
    ;;
  *)
    echo "usage: ./setup.sh [run|test]" >&2
    exit 2
    ;;
esac
