#!/usr/bin/python3
"""Checks that the exponential kernels chosen at run time really run on vectors.

  check_vectorised.py BINARY     BINARY: any program or object holding core/tensor/row_kernels.cpp,
                                 with its symbols (test_row_kernels)

Each kernel of core/tensor/row_kernels.cpp is compiled three times (baseline, AVX2+FMA, AVX-512)
and relies on GCC's vectoriser: nothing fails when it gives up, the kernel just runs one lane at a
time. That happened: until 2026-12-07 the AVX2 variants of the softmax's and the tiled attention's
exponentials were scalar (a `c ? v : 0.0f` inside the loop became a branch with a store in each
arm, which only AVX-512's masked stores vectorise), so every AVX2 machine ran the tiled layer at
0.66-0.74 of its products where AVX-512 ones ran 0.9. The exponential is a polynomial of fused
multiply-adds; vectorised, they are packed ones on ymm/zmm registers. Counted per function (GCC 12,
-O3, 2026-12-07):

- softmax, exp_scaled_sum, exp_multiplied_sum: one loop, one exponential: at least 6 packed FMAs
  (8 vectorised; 0 in the AVX2 variants before the fix).
- online_columns_divided/_multiplied: the exponential's loop four times (keys ranged or not, a
  whole group of 64 rows or the rest) beside the maximum's and the sums' loops: at least 90 on
  AVX2 and 300 on AVX-512 (112-124 and 345-387 vectorised; with only the ranged loops scalar
  64-70 and 225-252; all scalar on AVX2, 16).
- widen_f16: no FMA; at least 8 instructions on ymm/zmm registers (44 vectorised, none before).

The thresholds are counts of GCC's output, not a proof: a compiler that vectorises differently may
need them revisited (the numbers above say what they were set from). The baseline variants have
no FMA and are not checked here.
"""
import os
import re
import subprocess
import sys

PACKED_FMA = re.compile(r"\bvf(?:n?m(?:add|sub))\d*ps\b.*%[yz]mm\d+")
WIDE = re.compile(r"%[yz]mm\d+")
# kernel: (what is counted, its name, least on AVX2, least on AVX-512)
KERNELS = {"softmax": (PACKED_FMA, "packed FMAs", 6, 6),
           "exp_scaled_sum": (PACKED_FMA, "packed FMAs", 6, 6),
           "exp_multiplied_sum": (PACKED_FMA, "packed FMAs", 6, 6),
           "online_columns_divided": (PACKED_FMA, "packed FMAs", 90, 300),
           "online_columns_multiplied": (PACKED_FMA, "packed FMAs", 90, 300),
           "widen_f16": (WIDE, "instructions on ymm/zmm", 8, 8)}
SYMBOL = re.compile(r"^[0-9a-f]+ <(.+)>:$")
NAME = re.compile(r"::(%s)_(avx2|avx512)\(" % "|".join(KERNELS))


def counts_of(disassembly):
    """{(kernel, isa): the lines KERNELS counts for it} for every variant found."""
    counts, key = {}, None
    for line in disassembly.splitlines():
        m = SYMBOL.match(line)
        if m:
            n = NAME.search(m.group(1))
            key = (n.group(1), n.group(2)) if n else None
            if key:
                counts.setdefault(key, 0)
            continue
        if key and KERNELS[key[0]][0].search(line):
            counts[key] += 1
    return counts


def main():
    if len(sys.argv) != 2:
        print(__doc__)
        return 2
    if not os.path.isfile(sys.argv[1]):
        print(f"check_vectorised: FAIL: {sys.argv[1]}: no such file (give the built test_row_kernels)")
        return 1
    dis = subprocess.run(["objdump", "-d", "--no-show-raw-insn", "-C", sys.argv[1]], check=True,
                         capture_output=True, text=True).stdout
    counts = counts_of(dis)
    problems = []
    for kernel, (_, what, least_avx2, least_avx512) in KERNELS.items():
        for isa, least in (("avx2", least_avx2), ("avx512", least_avx512)):
            n = counts.get((kernel, isa))
            if n is None:
                problems.append(f"{kernel}_{isa}: not found in {sys.argv[1]} (renamed? no symbols?)")
            elif n < least:
                problems.append(f"{kernel}_{isa}: {n} {what}, expected at least {least}: "
                                "a loop of it runs one lane at a time (see this script's docstring)")
            else:
                print(f"ok: {kernel}_{isa}: {n} {what}")
    for p in problems:
        print("check_vectorised: FAIL: " + p)
    return 1 if problems else 0


if __name__ == "__main__":
    sys.exit(main())
