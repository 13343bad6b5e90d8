#!/usr/bin/python3
"""Checks that the exponential kernels chosen at run time really run on vectors.

  check_vectorised.py BINARY     BINARY: any program or object holding core/tensor/row_kernels.cpp,
                                 with its symbols (test_row_kernels)

Each kernel of core/tensor/row_kernels.cpp is compiled three times (baseline, AVX2+FMA, AVX-512)
and relies on GCC's vectoriser: nothing fails when it gives up, the kernel just runs one lane at a
time. That happened: until 2026-12-07 the AVX2 variants of the softmax's and the tiled attention's
exponentials were scalar (a `c ? v : 0.0f` inside the loop became a branch with a store in each
arm, which only AVX-512's masked stores vectorise), so every AVX2 machine ran the tiled layer at
0.65-0.74 of its products where AVX-512 ones ran 0.9. The exponential is a polynomial of fused
multiply-adds; vectorised, they are packed ones on ymm/zmm registers:

- softmax, exp_scaled_sum, exp_multiplied_sum: one loop, one exponential: at least 6 packed FMAs
  (8 when vectorised with GCC 12; 0 in the AVX2 variants before the fix).
- online_columns_divided/_multiplied: the exponential's loop four times (keys ranged or not, a
  whole group of 64 rows or the rest): at least 4 x 6 (112-387 vectorised; 16 in the scalar AVX2
  build, from loops around it).

The thresholds are counts of GCC's output, not a proof: a compiler that vectorises differently may
need them revisited (the numbers above say what they were set from). The baseline variants have
no FMA and are not checked here.
"""
import re
import subprocess
import sys

KERNELS = {"softmax": 6, "exp_scaled_sum": 6, "exp_multiplied_sum": 6,
           "online_columns_divided": 24, "online_columns_multiplied": 24}
SYMBOL = re.compile(r"^[0-9a-f]+ <(.+)>:$")
NAME = re.compile(r"::(%s)_(avx2|avx512)\(" % "|".join(KERNELS))
PACKED_FMA = re.compile(r"\bvf(?:n?m(?:add|sub))\d*ps\b.*%[yz]mm\d+")


def packed_fmas(disassembly):
    """{(kernel, isa): packed FMAs on ymm/zmm registers} for every variant found."""
    counts, key = {}, None
    for line in disassembly.splitlines():
        m = SYMBOL.match(line)
        if m:
            n = NAME.search(m.group(1))
            key = (n.group(1), n.group(2)) if n else None
            if key:
                counts.setdefault(key, 0)
            continue
        if key and PACKED_FMA.search(line):
            counts[key] += 1
    return counts


def main():
    if len(sys.argv) != 2:
        print(__doc__)
        return 2
    dis = subprocess.run(["objdump", "-d", "--no-show-raw-insn", "-C", sys.argv[1]], check=True,
                         capture_output=True, text=True).stdout
    counts = packed_fmas(dis)
    problems = []
    for kernel, least in KERNELS.items():
        for isa in ("avx2", "avx512"):
            n = counts.get((kernel, isa))
            if n is None:
                problems.append(f"{kernel}_{isa}: not found in {sys.argv[1]} (renamed? no symbols?)")
            elif n < least:
                problems.append(f"{kernel}_{isa}: {n} packed FMAs, expected at least {least}: "
                                "its exponential runs one lane at a time (see this script's docstring)")
            else:
                print(f"ok: {kernel}_{isa}: {n} packed FMAs")
    for p in problems:
        print("check_vectorised: FAIL: " + p)
    return 1 if problems else 0


if __name__ == "__main__":
    sys.exit(main())
