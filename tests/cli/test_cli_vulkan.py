#!/usr/bin/python3
"""attnlab and the Vulkan compute path, end to end.

usage: test_cli_vulkan.py /path/to/attnlab [-v] [TestClass[.test_name] ...]   (or env ATTNLAB_BIN)

Checks: a whole export with --backend vulkan equals the CPU export within the spec's Vulkan-vs-CPU
tolerance (|v - c| <= 1e-4 + 1e-3 |c|, NaN where NaN) for every tensor of trace.npz, encoder and
encoder-decoder; the manifest names the backend and device; bench --backend vulkan reports gpu_ms
(timestamp queries) beside the wall time, with the fused (tiled) attention and without; --backend
auto with the loader pointed at no driver runs the CPU quietly and says why in the manifest; a bad
ATTNLAB_VULKAN_DEVICE is refused. The Vulkan cases are skipped (and say so) when no Vulkan device
runs here; CI installs Mesa's lavapipe so that they run."""

import json
import os
import sys
import unittest

import numpy as np

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import attnlab_testlib as lib  # noqa: E402
from attnlab_testlib import run_attnlab  # noqa: E402

NO_DRIVER = {"VK_ICD_FILENAMES": "/nonexistent/attnlab-no-driver.json",
             "VK_DRIVER_FILES": "/nonexistent/attnlab-no-driver.json"}
ATOL, RTOL = 1e-4, 1e-3
_vulkan = None


def vulkan_runs():
    """True when attnlab can compute on a Vulkan device here (lavapipe counts)."""
    global _vulkan
    if _vulkan is None:
        r = run_attnlab(["bench", "--backend", "vulkan", "--repeat", "1", "--seq", "4", "--d-model", "8",
                         "--heads", "2"])
        _vulkan = r.rc == 0
    return _vulkan


class Parity(lib.TempDirCase):
    CONFIGS = {
        "encoder, 2 layers, padding+causal, gelu": ["--text", "the cat sat on the mat", "--text", "a dog",
                                                     "--d-model", "32", "--heads", "4", "--layers", "2",
                                                     "--mask", "padding+causal", "--activation", "gelu"],
        "encoder-decoder": ["--text", "今天天气很好。", "--memory-text", "The weather is nice today.",
                            "--d-model", "48", "--heads", "6"],
        "built-in sample, post-norm": ["--norm", "post"],
    }

    def setUp(self):
        super().setUp()
        if not vulkan_runs():
            self.skipTest("no Vulkan device here")

    def test_export_equals_cpu(self):
        for name, args in self.CONFIGS.items():
            with self.subTest(name):
                vk, cpu = self.path(name + "-vk"), self.path(name + "-cpu")
                self.export_ok(vk, "--backend", "vulkan", *args)
                self.export_ok(cpu, "--backend", "cpu", *args)
                m = json.load(open(os.path.join(vk, "manifest.json")))
                self.assertEqual(m["backend"], "vulkan")
                self.assertTrue(m["device"])
                self.assertEqual(json.load(open(os.path.join(cpu, "manifest.json")))["backend"], "cpu")
                a, b = np.load(os.path.join(vk, "trace.npz")), np.load(os.path.join(cpu, "trace.npz"))
                self.assertEqual(sorted(a.files), sorted(b.files))
                for key in b.files:
                    x, y = a[key], b[key]
                    self.assertEqual(x.shape, y.shape, key)
                    self.assertTrue(np.array_equal(np.isnan(x), np.isnan(y)), key + ": NaN in other places")
                    with np.errstate(invalid="ignore"):  # −∞ − −∞ in the masked scores
                        ok = np.isnan(y) | (x == y) | (np.abs(x - y) <= ATOL + RTOL * np.abs(y))
                    self.assertTrue(ok.all(), "%s: %d elements beyond the tolerance" % (key, (~ok).sum()))

    def test_bench_reports_device_time(self):
        for attention in ("full", "tiled"):
            with self.subTest(attention):
                r = run_attnlab(["bench", "--backend", "vulkan", "--repeat", "3", "--seq", "64", "--d-model", "64",
                                 "--heads", "4", "--attention", attention])
                self.assertEqual(r.rc, 0, r.describe())
                obj = json.loads(r.out)
                self.assertEqual(obj["backend"], "vulkan")
                self.assertEqual(obj["attention"], attention)
                self.assertGreater(obj["gpu_ms"], 0)
                self.assertLessEqual(obj["gpu_ms"], obj["max_ms"] * 1.05)  # device time within the wall time
                self.assertTrue(obj["device"])


class Fallback(lib.TempDirCase):
    def test_auto_without_a_driver_runs_the_cpu_quietly(self):
        out = self.path("out")
        r = run_attnlab(["export", "--out", out, "--text", "hello world"], env=NO_DRIVER)
        self.assertEqual(r.rc, 0, r.describe())
        self.assertEqual(r.err, "")  # no GPU is no failure: said in the manifest, not on stderr
        m = json.load(open(os.path.join(out, "manifest.json")))
        self.assertEqual(m["backend"], "cpu")
        self.assertIn("no driver", m["backend_note"])
        r = run_attnlab(["bench", "--repeat", "1", "--seq", "8", "--d-model", "16", "--heads", "2"], env=NO_DRIVER)
        self.assertEqual(r.rc, 0, r.describe())
        obj = json.loads(r.out)
        self.assertEqual(obj["backend"], "cpu")
        self.assertNotIn("gpu_ms", obj)

    def test_forced_vulkan_without_a_driver(self):
        out = self.path("out")
        r = run_attnlab(["export", "--out", out, "--backend", "vulkan"], env=NO_DRIVER)
        self.assertEqual(r.rc, 1, r.describe())
        self.assertIn("no driver", r.err)
        self.assertFalse(os.path.exists(out))

    def test_device_index(self):
        r = run_attnlab(["export", "--out", self.path("a"), "--backend", "vulkan"], env={"ATTNLAB_VULKAN_DEVICE": "x"})
        self.assertEqual(r.rc, 2, r.describe())
        self.assertIn("ATTNLAB_VULKAN_DEVICE", r.err)
        if vulkan_runs():
            r = run_attnlab(["export", "--out", self.path("b"), "--backend", "vulkan"],
                            env={"ATTNLAB_VULKAN_DEVICE": "57"})
            self.assertEqual(r.rc, 1, r.describe())
            self.assertIn("ATTNLAB_VULKAN_DEVICE=57", r.err)
            self.export_ok(self.path("c"), "--backend", "vulkan", "--text", "x")  # device 0 by default

    def test_cpu_tiled_attention(self):
        base = ["bench", "--backend", "cpu", "--repeat", "1", "--seq", "40", "--d-model", "16", "--heads", "2"]
        for attention, want in (("tiled", "tiled"), ("full", "full"), ("auto", "tiled")):
            with self.subTest(attention):
                r = run_attnlab(base + ["--attention", attention])
                self.assertEqual(r.rc, 0, r.describe())
                self.assertEqual(json.loads(r.out)["attention"], want)

if __name__ == "__main__":
    lib.main()
