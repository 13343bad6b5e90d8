#!/usr/bin/python3
"""Hostile input and faults, with real processes (issue 18; the table is docs/reliability.md):
an export never replaces or deletes what it did not create and leaves no temporary behind
(also when interrupted); only regular files are read, with their size checked first; integers
are decimal and range-checked; numbers in files do not follow the locale; bad weights files
and overflowing weights are refused by name; every message is one line. Every run has a
timeout: a hang fails the test instead of stalling it.

  test_cli_reliability.py /path/to/attnlab   (attnlab-headless too: the sanitizer build)
"""
import json
import os
import signal
import struct
import subprocess
import sys
import tempfile
import time

import numpy as np

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from attnlab_testlib import (TempDirCase, attnlab_bin, main, read_safetensors, run_attnlab,  # noqa: E402
                             write_safetensors)

TEXT = "the cat sat on the mat"
QUICK = 30  # seconds: every refusal here is immediate; a hang is a failure


def headless():
    return os.path.basename(attnlab_bin()).startswith("attnlab-headless")


def hidden(folder):
    return sorted(n for n in os.listdir(folder) if n.startswith("."))


class Case(TempDirCase):
    def refused(self, args, status, *says, env=None, timeout=QUICK):
        r = run_attnlab(args, timeout=timeout, env=env)
        self.assertEqual(r.rc, status, r.describe())
        lines = r.err.rstrip("\n").split("\n")
        self.assertEqual(len(lines), 1, "the error is not one line:\n" + r.describe())
        self.assertTrue(lines[0].startswith("attnlab: error: "), r.describe())
        for s in says:
            self.assertIn(s, r.err, r.describe())
        return r

    def tiny_export(self, out, *extra):
        return run_attnlab(["export", "--out", out, "--d-model", "8", "--heads", "2", "--text", TEXT] + list(extra),
                           timeout=QUICK)


class NeverLoseData(Case):
    def test_force_replaces_only_an_earlier_bundle(self):
        docs = self.path("Documents")
        os.mkdir(docs)
        with open(os.path.join(docs, "thesis.tex"), "w") as f:
            f.write("years of work")
        self.refused(["export", "--out", docs, "--text", TEXT, "--force"], 2, "is not an Attention Lab bundle",
                     "even --force does not replace it")
        with open(os.path.join(docs, "thesis.tex")) as f:
            self.assertEqual(f.read(), "years of work")
        # an earlier bundle is replaced, whole, by an atomic swap
        out = self.path("run")
        self.assertEqual(self.tiny_export(out).rc, 0)
        with open(os.path.join(out, "mine.txt"), "w") as f:
            f.write("x")
        r = self.tiny_export(out, "--force", "--seed", "5")
        self.assertEqual(r.rc, 0, r.describe())
        self.assertFalse(os.path.exists(os.path.join(out, "mine.txt")))
        with open(os.path.join(out, "manifest.json")) as f:
            self.assertEqual(json.load(f)["config"]["seed"], 5)
        self.assertEqual(hidden(self.tmp), [])

    def test_out_that_must_not_be_used(self):
        os.mkdir(self.path("real"))
        os.symlink(self.path("real"), self.path("link"))
        self.refused(["export", "--out", self.path("link"), "--text", TEXT, "--force"], 2, "is a symbolic link")
        self.assertTrue(os.path.islink(self.path("link")))
        for dot in (".", "..", "./"):
            r = run_attnlab(["export", "--out", dot, "--text", TEXT, "--force"], cwd=self.path("real"), timeout=QUICK)
            self.assertEqual(r.rc, 2, r.describe())
            self.assertIn("is the current folder or holds it", r.err)
        self.assertEqual(os.listdir(self.path("real")), [])
        self.refused(["export", "--out", self.path("n" * 250), "--text", TEXT], 2, "use at most 232")
        self.refused(["export", "--out", "/", "--text", TEXT, "--force"], 2, "is the root folder")

    def test_an_empty_folder_is_taken(self):
        os.mkdir(self.path("empty"))
        self.assertEqual(self.tiny_export(self.path("empty")).rc, 0)
        self.assertTrue(os.path.isfile(self.path("empty", "manifest.json")))

    def test_two_exports_at_once_never_both_succeed_silently(self):
        # Both start on a free name; the slower one must find it taken (exit 2), not replace it.
        out = self.path("shared")
        args = [attnlab_bin(), "export", "--out", out, "--d-model", "64", "--layers", "2", "--text", TEXT]
        env = dict(os.environ, OMP_NUM_THREADS="1")
        outcomes = []
        for _ in range(3):
            procs = [subprocess.Popen(args + ["--seed", str(i)], stdout=subprocess.PIPE, stderr=subprocess.PIPE, env=env)
                     for i in range(2)]
            rcs = [p.wait(timeout=120) for p in procs]
            errs = [p.stderr.read().decode() for p in procs]
            for p in procs:
                p.stdout.close()
                p.stderr.close()
            self.assertIn(0, rcs, errs)
            for rc, err in zip(rcs, errs):
                if rc != 0:
                    self.assertEqual(rc, 2, err)
                    self.assertTrue("appeared while the export ran" in err or "exists and is not empty" in err, err)
            outcomes.append(rcs)
            with open(os.path.join(out, "manifest.json")) as f:
                seed = json.load(f)["config"]["seed"]
            self.assertIn(seed, [i for i, rc in enumerate(rcs) if rc == 0])  # the bundle is the winner's, whole
            self.assertEqual(hidden(self.tmp), [])
            subprocess.run(["rm", "-rf", out], check=True)

    def big_export(self, out):
        # Quick to compute, long enough to write to be caught at it: 6400 heatmap CSV files.
        text = self.path("long.txt")
        with open(text, "w") as f:
            for i in range(200):
                f.write(" ".join("w%d" % ((i * 7 + j) % 97) for j in range(20)) + "\n")
        return subprocess.Popen([attnlab_bin(), "export", "--out", out, "--d-model", "64", "--heads", "16", "--layers", "2",
                                 "--text-file", text, "--format", "csv"],
                                stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, env=dict(os.environ, OMP_NUM_THREADS="2"))

    def wait_for_temporary(self, proc, parent, seconds=120):
        end = time.time() + seconds
        while time.time() < end and proc.poll() is None:
            if [n for n in hidden(parent) if ".tmp-" in n]:
                return True
            time.sleep(0.005)
        return False

    def test_a_signal_leaves_no_temporary(self):
        for sig in (signal.SIGINT, signal.SIGTERM):
            parent = self.path("sig%d" % sig)
            os.mkdir(parent)
            p = self.big_export(os.path.join(parent, "bundle"))
            self.assertTrue(self.wait_for_temporary(p, parent), "the export finished before it could be interrupted")
            p.send_signal(sig)
            p.wait(timeout=60)
            p.stderr.close()
            self.assertEqual(p.returncode, -sig)
            self.assertEqual(os.listdir(parent), [], "left behind after signal %d" % sig)

    def test_kill_9_is_swept_by_the_next_export_only_its_own(self):
        parent = self.path("killed")
        os.mkdir(parent)
        p = self.big_export(os.path.join(parent, "bundle"))
        self.assertTrue(self.wait_for_temporary(p, parent))
        p.kill()
        p.wait(timeout=60)
        p.stderr.close()
        left = [n for n in hidden(parent) if ".tmp-" in n]
        self.assertEqual(len(left), 1, hidden(parent))
        # beside it: a live process's temporary (ours: this test's PID) and a user's look-alike folder
        live = os.path.join(parent, ".bundle.tmp-%d-7" % os.getpid())
        os.mkdir(live)
        with open("/proc/self/stat") as f:  # the start time that makes the marker this process's
            start = f.read().rsplit(")", 1)[1].split()[19]
        with open(os.path.join(live, ".attnlab-temporary"), "w") as f:
            f.write("%d %s\n" % (os.getpid(), start))
        user = os.path.join(parent, ".notes.tmp-%d-1" % p.pid)
        os.mkdir(user)
        with open(os.path.join(user, "diary.txt"), "w") as f:
            f.write("mine")
        self.assertEqual(self.tiny_export(os.path.join(parent, "next")).rc, 0)
        self.assertEqual(hidden(parent), sorted([os.path.basename(live), os.path.basename(user)]))


class OnlyRegularFiles(Case):
    def test_fifo_device_folder_loop_and_size(self):
        fifo = self.path("pipe.safetensors")
        os.mkfifo(fifo)
        os.symlink(self.path("b"), self.path("a"))
        os.symlink(self.path("a"), self.path("b"))
        big = self.path("big.safetensors")
        with open(big, "wb") as f:
            f.truncate(5 * 1024 ** 3)  # sparse: 5 GiB of nothing, over the 4 GiB limit
        cases = [
            (["--weights", fifo], "weights file '%s': is a named pipe (FIFO)" % fifo),
            (["--weights", "/dev/zero"], "weights file '/dev/zero': is a device"),
            (["--weights", self.tmp], "is a folder, not a file"),
            (["--weights", self.path("a")], "too many symbolic links"),
            (["--weights", big], "is 5120 MiB, larger than the limit of 4096 MiB"),
            (["--text-file", fifo], "--text-file '%s': is a named pipe" % fifo),
            (["--text-file", "/dev/zero"], "--text-file '/dev/zero': is a device"),
        ]
        for args, says in cases:
            with self.subTest(args=args):
                self.refused(["export", "--out", self.path("o")] + args, 1, says)
        self.assertFalse(os.path.exists(self.path("o")))

    def test_empty_names_are_refused(self):
        self.refused(["export", "--out", self.path("o"), "--weights", ""], 2, "--weights: the file name is empty")
        self.refused(["export", "--out", self.path("o"), "--text-file", ""], 2, "--text-file: the file name is empty")

    def test_exercise_folder_with_a_fifo(self):
        folder = self.path("exercises")
        os.mkdir(folder)
        os.mkfifo(os.path.join(folder, "trap.json"))
        self.refused(["exercise", "--list", "--folder", folder], 1, "exercise file '%s/trap.json': is a named pipe" % folder)
        os.unlink(os.path.join(folder, "trap.json"))
        os.symlink("/dev/zero", os.path.join(folder, "zero.json"))
        self.refused(["exercise", "--list", "--folder", folder], 1, "zero.json': is a device")

    def test_the_teachers_folder_in_the_environment(self):
        data = self.path("xdg")
        os.makedirs(os.path.join(data, "attnlab", "exercises"))
        os.mkfifo(os.path.join(data, "attnlab", "exercises", "x.json"))
        self.refused(["exercise", "--list"], 1, "is a named pipe", env={"XDG_DATA_HOME": data})

    def test_text_file_lines(self):
        f = self.path("t.txt")
        with open(f, "wb") as fh:
            fh.write(b"\xef\xbb\xbfone two\r\n\r\nthree\x00four\n")
        self.refused(["export", "--out", self.path("o"), "--text-file", f], 1, "line 3 contains a NUL character")
        with open(f, "wb") as fh:
            fh.write(b"one\n\x01\x02\x03\n")
        self.refused(["export", "--out", self.path("o"), "--text-file", f], 1, "line 2: text holds only control characters")


class Numbers(Case):
    def test_integers_are_decimal(self):
        out = self.path("o")
        r = run_attnlab(["export", "--out", out, "--d-model", "064", "--heads", "08", "--seed", "010"], timeout=QUICK)
        self.assertEqual(r.rc, 0, r.describe())
        with open(os.path.join(out, "manifest.json")) as f:
            c = json.load(f)["config"]
        self.assertEqual((c["d_model"], c["heads"], c["seed"]), (64, 8, 10))
        for args, says in [
            (["--seed", "0x10"], "--seed: '0x10' is not a decimal whole number"),
            (["--seed", "1" * 31], "--seed: %s is outside 0 … 18446744073709551615" % ("1" * 31)),
            (["--seed", "-1"], "--seed: -1 is outside 0"),
            (["--heads", "1e3"], "--heads: '1e3' is not a decimal whole number"),
            (["--d-model", "99999999999999999999"], "--d-model: 99999999999999999999 is outside 1 … 16384"),
            (["--layers", "0"], "--layers: 0 is outside 1 … 64"),
            (["--memory-budget", "8796093022208"], "--memory-budget: 8796093022208 is outside 1 … 1073741824"),
            (["--variant", "window", "--variant-window", "0x4"], "--variant-window: '0x4' is not a decimal"),
        ]:
            with self.subTest(args=args):
                self.refused(["export", "--out", self.path("p")] + args, 2, says)

    def test_threads(self):
        for t in ["0", "-1", "100000", "2.5"]:
            with self.subTest(threads=t):
                self.refused(["bench", "--seq", "8", "--d-model", "16", "--heads", "2", "--repeat", "1", "--threads", t],
                             2, "--threads:")
        r = run_attnlab(["bench", "--seq", "8", "--d-model", "16", "--heads", "2", "--repeat", "1", "--threads", "1"],
                        timeout=QUICK)
        self.assertEqual(r.rc, 0, r.describe())
        for env in ["100000", "99999999999999999999", "banana", "4,100000"]:
            with self.subTest(OMP_NUM_THREADS=env):  # capped or ignored, never thousands of threads
                r = run_attnlab(["export", "--out", self.path("t" + str(abs(hash(env)))), "--d-model", "8", "--heads", "2"],
                                env={"OMP_NUM_THREADS": env}, timeout=QUICK)
                self.assertEqual(r.rc, 0, r.describe())

    def test_bench_times_the_layer_beside_its_products(self):
        # The layer's own products alone, timed in turn with the layer (docs/cli.md): both medians
        # reported and the ratio theirs, not the first phase's median_ms; none with --loss.
        r = run_attnlab(["bench", "--seq", "8", "--d-model", "16", "--heads", "2", "--repeat", "3", "--backend", "cpu"],
                        timeout=QUICK)
        self.assertEqual(r.rc, 0, r.describe())
        out = json.loads(r.out)
        self.assertGreater(out["gemms_alone_ms"], 0)
        self.assertGreater(out["layer_alongside_ms"], 0)
        self.assertAlmostEqual(out["layer_vs_gemms"], out["gemms_alone_ms"] / out["layer_alongside_ms"], places=9)
        r = run_attnlab(["bench", "--seq", "8", "--d-model", "16", "--heads", "2", "--repeat", "1", "--backend", "cpu",
                         "--loss", "sum"], timeout=QUICK)
        self.assertEqual(r.rc, 0, r.describe())
        self.assertNotIn("layer_vs_gemms", json.loads(r.out))
        # The products alone hold two (B, H, S, S) tensors (64 MiB here) beside the layer, which the
        # tiled path runs in a few: within a 32 MiB budget the layer runs and the ratio is left out.
        r = run_attnlab(["bench", "--seq", "2048", "--d-model", "16", "--heads", "2", "--repeat", "1", "--backend", "cpu",
                         "--memory-budget", "32"], timeout=QUICK)
        self.assertEqual(r.rc, 0, r.describe())
        out = json.loads(r.out)
        self.assertGreater(out["median_ms"], 0)
        self.assertNotIn("layer_vs_gemms", out)
        self.assertNotIn("gemms_alone_ms", out)

    def test_absurd_sizes_never_pass_the_budget(self):
        # 4096 sentences of 1000 tokens, 16384 heads, 64 layers: about 2^56 bytes of scores, far
        # over the largest budget (2^30 MiB). Refused before anything is allocated, with the figure.
        f = self.path("many.txt")
        with open(f, "w") as fh:
            fh.write(("w " * 1000 + "\n") * 4096)
        r = self.refused(["export", "--out", self.path("o"), "--d-model", "16384", "--heads", "16384", "--layers", "64",
                          "--text-file", f, "--memory-budget", "1073741824"], 1, "--memory-budget: this run needs about ")
        need = float(r.err.split("needs about ")[1].split(" MiB")[0])
        self.assertGreater(need, 6.6e10)  # 4 score tensors × 64 layers × 4096·16384·1000² floats ≈ 6.6e10 MiB

    def test_csv_numbers_do_not_follow_the_locale(self):
        # A German locale, compiled here into a folder of the test's own (LOCPATH): decimal comma.
        loc = self.path("locale")
        os.mkdir(loc)
        made = subprocess.run(["localedef", "-i", "de_DE", "-f", "UTF-8", os.path.join(loc, "de_DE.UTF-8")],
                              capture_output=True)
        self.assertEqual(made.returncode, 0, "localedef needs Debian's locales package (setup.sh installs it): %r" % made.stderr)
        env = {"LOCPATH": loc, "LC_ALL": "de_DE.UTF-8"}
        check = subprocess.run(["/usr/bin/python3", "-c", "import locale; locale.setlocale(locale.LC_ALL, '');"
                                "print(locale.localeconv()['decimal_point'])"], capture_output=True, text=True,
                               env=dict(os.environ, **env))
        self.assertEqual(check.stdout.strip(), ",", "the test locale is not in effect: %r" % check.stderr)
        out = self.path("o")
        fmt = "csv" if headless() else "csv,png"  # png makes the QGuiApplication that applies LC_NUMERIC
        r = run_attnlab(["export", "--out", out, "--d-model", "8", "--heads", "2", "--format", fmt, "--text", TEXT],
                        env=env, timeout=QUICK)
        self.assertEqual(r.rc, 0, r.describe())
        csv = os.path.join(out, "heatmaps", "encoder.layers.0.self_attn.b0.head0.csv")
        with open(csv, encoding="utf-8") as f:
            rows = [line.rstrip("\r\n").split(",") for line in f]
        values = [float(x) for row in rows[1:] for x in row[1:]]  # a decimal comma would split every number
        self.assertEqual(len(values), 6 * 6)
        self.assertTrue(all(0 <= v <= 1 for v in values))
        for row in rows[1:]:
            self.assertAlmostEqual(sum(float(x) for x in row[1:]), 1.0, places=5)


class WeightsFiles(Case):
    def make(self, name="w.safetensors", d=8, heads=2, meta=True, **kw):
        src = self.path("src-%d-%s" % (len(os.listdir(self.tmp)), name))
        r = run_attnlab(["export", "--out", src, "--d-model", str(d), "--heads", str(heads), "--d-ff", "16"],
                        timeout=QUICK)
        self.assertEqual(r.rc, 0, r.describe())
        m, tensors = read_safetensors(os.path.join(src, "weights.safetensors"))
        path = self.path(name)
        write_safetensors(path, tensors, metadata=m if meta else None, **kw)
        return path, m, tensors

    def export_with(self, path, *extra):
        return ["export", "--out", self.path("o"), "--weights", path, "--text", TEXT] + list(extra)

    def test_lying_files(self):
        path, m, t = self.make()
        blob = open(path, "rb").read()
        (n,) = struct.unpack("<Q", blob[:8])
        header = blob[8:8 + n]
        cases = {}
        cases["trailing"] = blob + b"\x00\x01\x02"
        # a name twice: the header's first tensor entry repeated
        hd = json.loads(header)
        first = next(k for k in hd if k != "__metadata__")
        dup = header.rstrip(b" ")[:-1] + b"," + json.dumps(first).encode() + b":" + json.dumps(hd[first]).encode() + b"}"
        dup += b" " * ((8 - len(dup) % 8) % 8)
        cases["duplicate"] = struct.pack("<Q", len(dup)) + dup + blob[8 + n:]
        nul = header.rstrip(b" ") + b"\x00" * 8
        cases["nul"] = struct.pack("<Q", len(nul)) + nul + blob[8 + n:]
        says = {"trailing": "3 bytes after its last tensor", "duplicate": "names '%s' twice" % first, "nul": "NUL byte"}
        for k, data in cases.items():
            with self.subTest(case=k):
                p = self.path(k + ".safetensors")
                with open(p, "wb") as f:
                    f.write(data)
                self.refused(self.export_with(p), 1, p, says[k])

    def test_unknown_metadata_values(self):
        for key, value, says in [("cross_attention", "banana", "metadata 'cross_attention' = 'banana' is not one of true, false"),
                                 ("cross_attention", "true", "contradicts its tensors"),
                                 ("norm", "sideways", "metadata 'norm'"),
                                 ("d_model", "0x8", "metadata 'd_model' = '0x8' is not a number")]:
            with self.subTest(key=key, value=value):
                path, m, t = self.make()
                m[key] = value
                write_safetensors(path, t, metadata=m)
                self.refused(self.export_with(path), 1, says)

    def test_no_metadata_and_an_option_that_contradicts_the_shapes(self):
        path, _, _ = self.make(meta=False)
        self.refused(self.export_with(path, "--heads", "2", "--d-model", "16"), 2,
                     "--d-model: 16 conflicts with 8 stored in")
        r = run_attnlab(self.export_with(path, "--heads", "2", "--d-model", "8"), timeout=QUICK)
        self.assertEqual(r.rc, 0, r.describe())

    def test_overflowing_weights_name_the_step(self):
        path, m, t = self.make()
        w = t["encoder.layers.0.self_attn.in_proj_weight"].copy()
        w[:] = 3.0e38  # finite, but x·Wᵀ is not
        t["encoder.layers.0.self_attn.in_proj_weight"] = w
        write_safetensors(path, t, metadata=m)
        self.refused(self.export_with(path), 1, "the forward pass overflowed float32 at step 'encoder.layers.0.",
                     "encoder.layers.0.self_attn.in_proj_weight' (largest |value| 3e+38)")
        self.assertFalse(os.path.exists(self.path("o")))

    def test_a_name_with_a_newline_stays_on_one_line(self):
        p = self.path("bad\nname.safetensors")
        with open(p, "wb") as f:
            f.write(b"nonsense")
        self.refused(self.export_with(p), 1, "bad\\nname.safetensors")


if __name__ == "__main__":
    main()
