#!/usr/bin/python3
"""attnlab command line: every bad input of the contract's error rules (shared/spec/cli-and-export.md)
and the project's extensions (docs/cli.md), the weights-file rules, and a few successes.

usage: test_cli_errors.py /path/to/attnlab [-v] [TestClass[.test_name] ...]   (or env ATTNLAB_BIN)

For every failure it asserts: the exit status (2 bad command line/configuration, 1 data/runtime),
no crash (no negative status), stdout empty, stderr exactly one line starting `attnlab: error: `
that names the offending option or file, and no partial output (the --out folder not created,
or unchanged when it existed; no `.NAME.tmp-*` / `.NAME.old-*` sibling left behind)."""

import json
import os
import re
import shutil
import stat
import subprocess
import sys
import tempfile
import unittest
import zipfile

import numpy as np

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import attnlab_testlib as lib  # noqa: E402
from attnlab_testlib import run_attnlab  # noqa: E402

PREFIX = "attnlab: error: "
TEXT = "the cat sat on the mat"


def snapshot(path):
    """A comparable picture of a file or folder tree (None when absent)."""
    if not os.path.lexists(path):
        return None
    if not os.path.isdir(path) or os.path.islink(path):
        with open(path, "rb") as f:
            return ("file", f.read(), stat.S_IMODE(os.lstat(path).st_mode))
    tree = {}
    for root, dirs, files in os.walk(path):
        rel = os.path.relpath(root, path)
        tree[rel] = ("dir", tuple(sorted(dirs)))
        for name in files:
            p = os.path.join(root, name)
            with open(p, "rb") as f:
                tree[os.path.join(rel, name)] = ("file", f.read())
    return ("dir", tree)


def listing(folder):
    try:
        return sorted(os.listdir(folder))
    except OSError:
        return None


def load_npz(path):
    with np.load(path) as z:
        return {k: z[k].copy() for k in z.files}


# The Vulkan loader pointed at a driver list that does not exist: as on a machine without Vulkan.
NO_DRIVER = {"VK_ICD_FILENAMES": "/nonexistent/attnlab-no-driver.json", "VK_DRIVER_FILES": "/nonexistent/attnlab-no-driver.json"}


class CliCase(lib.TempDirCase):

    def assert_error(self, args, status, names=(), out=None, cwd=None, regexes=(), env=None):
        """Runs attnlab with args and checks the failure rules. out: the --out path (checked for
        partial output); names: strings the message must contain; regexes: patterns it must match."""
        out_abs = os.path.join(cwd or os.getcwd(), out) if out else None
        before = snapshot(out_abs) if out_abs else None
        parent = os.path.dirname(os.path.normpath(out_abs)) if out_abs else None
        parent_before = listing(parent) if parent else None
        r = run_attnlab(args, cwd=cwd, env=env)
        why = "\n" + r.describe()
        self.assertGreaterEqual(r.rc, 0, "attnlab crashed (killed by signal %d)%s" % (-r.rc, why))
        self.assertEqual(r.rc, status, "wrong exit status" + why)
        self.assertEqual(r.out, "", "stdout must be empty on failure" + why)
        self.assertTrue(r.err.startswith(PREFIX), "stderr must start with %r%s" % (PREFIX, why))
        self.assertTrue(r.err.endswith("\n") and r.err.count("\n") == 1,
                        "stderr must be exactly one line" + why)
        msg = r.err[len(PREFIX):].strip()
        self.assertTrue(len(msg) > 0, "empty error message" + why)
        for n in names:
            self.assertIn(n, r.err, "the message must name %r%s" % (n, why))
        for rx in regexes:
            self.assertRegex(r.err, rx, "the message must match %r%s" % (rx, why))
        if out_abs:
            self.assertEqual(snapshot(out_abs), before,
                             "--out %r was %s by a failed command%s" % (
                                 out, "created" if before is None else "changed", why))
            if parent_before is not None:
                after = listing(parent)
                base = os.path.basename(os.path.normpath(out_abs))
                leftovers = [n for n in (after or []) if n.startswith("." + base + ".")]
                self.assertEqual(leftovers, [], "temporary siblings left behind" + why)
                self.assertEqual(after, parent_before, "the folder holding --out changed" + why)
        return r


# --------------------------------------------------------------------------- the window's options

class WindowOptions(CliCase):
    """attnlab [FILE.attnlab] [--step ID] [--presenter] [--language en|zh] (docs/cli.md, "The window")."""

    def test_bad_language_and_options_beside_a_subcommand(self):
        self.assert_error(["--language", "fr"], 2, ["--language", "'fr'", "en, zh"])
        out = self.path("out")
        self.assert_error(["--presenter", "export", "--out", out, "--text", TEXT], 2, ["--presenter", "subcommand"],
                          out=out)
        self.assert_error(["--step", "encoder.input", "bench"], 2, ["--step"])
        self.assert_error(["lesson.attnlab", "export", "--out", out], 2, ["file"], out=out, cwd=self.tmp)

    def test_a_file_that_cannot_be_opened_is_said_and_the_window_stays(self):
        """The refusal File > Open gives, on stderr too, and the window keeps running (offscreen)."""
        missing = self.path("no-such-lesson.attnlab")
        env = dict(os.environ, QT_QPA_PLATFORM="offscreen", HOME=self.tmp, XDG_CONFIG_HOME=self.path("config"),
                   XDG_DATA_HOME=self.path("data"), XDG_RUNTIME_DIR=self.path("run"), OMP_NUM_THREADS="2")
        os.makedirs(env["XDG_RUNTIME_DIR"], mode=0o700)
        proc = subprocess.Popen([lib.attnlab_bin(), missing, "--language", "en"], stdout=subprocess.PIPE,
                                stderr=subprocess.PIPE, env=env)
        try:
            out, err = proc.communicate(timeout=6)
            self.fail("the window exited (status %s) instead of staying open: %r" % (proc.returncode, err))
        except subprocess.TimeoutExpired:
            proc.kill()
            out, err = proc.communicate()
        err = err.decode("utf-8", "replace")
        self.assertIn(PREFIX + "session file '%s': no such file" % missing, err)


# --------------------------------------------------------------------------- command line

class CommandLineErrors(CliCase):

    def test_unknown_option(self):
        out = self.path("out")
        self.assert_error(["export", "--out", out, "--bogus"], 2, ["--bogus"], out=out)
        self.assert_error(["export", "--out", out, "--text", TEXT, "--d-modle", "32"], 2, ["--d-modle"], out=out)
        self.assert_error(["--bogus"], 2, ["--bogus"])
        self.assert_error(["bench", "--bogus"], 2, ["--bogus"])

    def test_missing_out(self):
        self.assert_error(["export", "--text", TEXT], 2, ["--out"], cwd=self.tmp)
        self.assertEqual(os.listdir(self.tmp), [], "export without --out wrote something")
        self.assert_error(["export", "--out", "", "--text", TEXT], 2, ["--out"], cwd=self.tmp)
        self.assertEqual(os.listdir(self.tmp), [])

    def test_bad_numbers(self):
        cases = [
            (["--d-model", "abc"], "--d-model"),
            (["--d-model", "0"], "--d-model"),
            (["--d-model", "-3"], "--d-model"),
            (["--d-model", "10000000"], "--d-model"),
            (["--d-model", "99999999999999999999999"], "--d-model"),
            (["--d-model", "64.5"], "--d-model"),
            (["--heads", "0"], "--heads"),
            (["--heads", "x"], "--heads"),
            (["--layers", "0"], "--layers"),
            (["--layers", "1000"], "--layers"),
            (["--d-ff", "0"], "--d-ff"),
            (["--d-ff", "-5"], "--d-ff"),
            (["--d-ff", "100000000"], "--d-ff"),
            (["--eps", "0"], "--eps"),
            (["--eps", "nan"], "--eps"),
            (["--eps", "2"], "--eps"),
            (["--memory-budget", "0"], "--memory-budget"),
            (["--seed", "abc"], "--seed"),
        ]
        for i, (extra, name) in enumerate(cases):
            with self.subTest(args=extra):
                out = self.path("out%d" % i)  # one each: a wrongly accepted value leaves a bundle
                self.assert_error(["export", "--out", out, "--text", TEXT] + extra, 2, [name], out=out)

    def test_heads_not_dividing(self):
        out = self.path("out")
        self.assert_error(["export", "--out", out, "--text", TEXT, "--d-model", "64", "--heads", "7"], 2,
                          ["--heads", "7", "64"], out=out)
        self.assert_error(["export", "--out", out, "--text", TEXT, "--d-model", "30", "--heads", "4"], 2,
                          ["--heads", "4", "30"], out=out)
        self.assert_error(["export", "--out", out, "--text", TEXT, "--d-model", "64", "--heads", "128"], 2,
                          ["--heads", "128"], out=out)

    def test_text_longer_than_the_position_table(self):
        out = self.path("out")
        self.assert_error(["export", "--out", out, "--text", "a b c d e f g", "--positional", "learned",
                           "--max-positions", "6"], 2, ["7", "6", "--max-positions"], out=out)
        self.assert_error(["export", "--out", out, "--text", TEXT, "--positional", "learned",
                           "--max-positions", "0"], 2, ["--max-positions"], out=out)

    def test_bad_choices(self):
        out = self.path("out")
        for opt in ["--mask", "--norm", "--activation", "--positional", "--backend", "--format"]:
            with self.subTest(option=opt):
                self.assert_error(["export", "--out", out, "--text", TEXT, opt, "bogus"], 2, [opt, "bogus"], out=out)
        for opt, val in [("--mask", "Causal"), ("--format", "npz,"), ("--format", ""), ("--format", "npz,txt")]:
            with self.subTest(option=opt, value=val):
                self.assert_error(["export", "--out", out, "--text", TEXT, opt, val], 2, [opt], out=out)

    def test_format_png_svg(self):
        # docs/cli.md: png/svg are not in this build yet (exit 2 naming the format); once they
        # are, the heatmaps must be there.
        for fmt in ["png", "svg"]:
            with self.subTest(format=fmt):
                out = self.path("out-" + fmt)
                r = run_attnlab(["export", "--out", out, "--text", TEXT, "--format", "npz," + fmt])
                if r.rc == 0:
                    hm = os.listdir(os.path.join(out, "heatmaps"))
                    self.assertTrue(any(n.endswith("." + fmt) for n in hm), r.describe())
                else:
                    self.assert_error(["export", "--out", out, "--text", TEXT, "--format", "npz," + fmt], 2,
                                      ["--format", fmt], out=out)

    def test_empty_text(self):
        out = self.path("out")
        for texts in [[""], ["   "], ["\t \u3000"], ["fine", ""], ["fine", "  "]]:
            args = ["export", "--out", out]
            for t in texts:
                args += ["--text", t]
            with self.subTest(texts=texts):
                self.assert_error(args, 2, ["--text"], out=out)
        with self.subTest(memory_text=""):
            self.assert_error(["export", "--out", out, "--text", TEXT, "--memory-text", " "], 2,
                              ["--memory-text"], out=out)

    def test_text_invalid_utf8(self):
        out = self.path("out")
        bad = b"ab\xff\xfecd".decode("utf-8", "surrogateescape")
        self.assert_error(["export", "--out", out, "--text", bad], 2, ["--text"], out=out)

    def test_memory_text_count(self):
        out = self.path("out")
        self.assert_error(["export", "--out", out, "--text", "a b", "--text", "c d",
                           "--memory-text", "x", "--memory-text", "y", "--memory-text", "z"], 2,
                          ["--memory-text"], out=out)
        self.assert_error(["export", "--out", out, "--text", "a b", "--text", "c d", "--text", "e",
                           "--memory-text", "x", "--memory-text", "y"], 2, ["--memory-text"], out=out)

    def test_memory_budget(self):
        out = self.path("out")
        long_text = " ".join("w%d" % i for i in range(300))
        r = self.assert_error(["export", "--out", out, "--text", long_text, "--memory-budget", "1"], 1,
                              ["--memory-budget"], out=out,
                              regexes=[r"\d+(\.\d+)?\s*MiB", r"(?<![\d.])1 MiB"])
        nums = [float(x) for x in re.findall(r"(\d+(?:\.\d+)?)\s*MiB", r.err)]
        self.assertTrue(any(x > 1 for x in nums), "no estimate above the budget in: " + r.err)
        # bench has the same option (docs/cli.md)
        self.assert_error(["bench", "--seq", "4096", "--d-model", "256", "--heads", "4", "--repeat", "1",
                           "--memory-budget", "1"], 1, ["--memory-budget"], regexes=[r"MiB"])
        # The fast path's estimate: the full path's (B, H, S, S) scores at S 16,384 need 8 GiB and
        # are refused under the default budget with the tiled path as the way out; the tiled path
        # itself would fit (not run here: seconds of work).
        self.assert_error(["bench", "--seq", "16384", "--d-model", "64", "--heads", "8", "--repeat", "1",
                           "--attention", "full", "--backend", "cpu"], 1, ["--memory-budget", "--attention tiled"],
                          regexes=[r"(?<![\d.])4096 MiB", r"9\d{3}\.\d MiB"])

    def test_backend_vulkan(self):
        # The loader pointed at no driver: a forced Vulkan cannot run (exit 1), auto runs the CPU.
        out = self.path("out")
        self.assert_error(["export", "--out", out, "--text", TEXT, "--backend", "vulkan"], 1, ["vulkan"], out=out,
                          env=NO_DRIVER)
        self.assert_error(["bench", "--repeat", "1", "--seq", "8", "--d-model", "16", "--heads", "2",
                           "--backend", "vulkan"], 1, ["vulkan"], env=NO_DRIVER)

    def test_bench_bad_values(self):
        base = {"--repeat": "1", "--seq": "8", "--d-model": "16", "--heads": "2"}
        for change, name in [({"--attention": "bogus"}, "--attention"), ({"--repeat": "0"}, "--repeat"),
                             ({"--seq": "0"}, "--seq"), ({"--batch": "0"}, "--batch"),
                             ({"--d-model": "64", "--heads": "7"}, "--heads"), ({"--d-ff": "0"}, "--d-ff"),
                             ({"--layers": "0"}, "--layers")]:
            with self.subTest(change=change):
                opts = dict(base, **change)
                args = ["bench"]
                for k, v in opts.items():
                    args += [k, v]
                self.assert_error(args, 2, [name])


# --------------------------------------------------------------------------- --text-file

class TextFileErrors(CliCase):

    def write(self, name, data):
        p = self.path(name)
        with open(p, "wb") as f:
            f.write(data)
        return p

    def test_missing(self):
        out = self.path("out")
        self.assert_error(["export", "--out", out, "--text-file", self.path("nope.txt")], 1, ["nope.txt"], out=out)

    def test_directory(self):
        out = self.path("out")
        os.mkdir(self.path("adir"))
        self.assert_error(["export", "--out", out, "--text-file", self.path("adir")], 1, ["adir"], out=out)

    def test_empty_and_blank(self):
        out = self.path("out")
        for name, data in [("empty.txt", b""), ("blank.txt", b"\n   \n\t\n\r\n"), ("bomonly.txt", b"\xef\xbb\xbf\r\n")]:
            with self.subTest(file=name):
                p = self.write(name, data)
                self.assert_error(["export", "--out", out, "--text-file", p], 2, [name], out=out)

    def test_bom_crlf(self):
        out = self.path("out")
        p = self.write("bom.txt", b"\xef\xbb\xbfhello world\r\n\r\n  \r\nsecond line here\r\n")
        r = run_attnlab(["export", "--out", out, "--text-file", p])
        self.assertEqual(r.rc, 0, r.describe())
        self.assertEqual(r.out, "", "export printed on stdout: " + r.describe())
        with open(os.path.join(out, "manifest.json"), encoding="utf-8") as f:
            m = json.load(f)
        toks = m["tokens"]
        self.assertEqual(len(toks), 2, "blank lines must be ignored: %r" % toks)
        self.assertEqual(toks[0][0], "hello", "the BOM leaked into the first token: %r" % toks[0][0])
        self.assertEqual([t for t in toks[0] if t != "[PAD]"], ["hello", "world"])
        self.assertEqual(toks[1], ["second", "line", "here"])
        for row in toks:
            for t in row:
                self.assertNotIn("\ufeff", t)
                self.assertNotIn("\r", t)

    def test_combined_with_text(self):
        out = self.path("out")
        p = self.write("one.txt", b"from the file\n")
        r = run_attnlab(["export", "--out", out, "--text", "typed first", "--text-file", p])
        self.assertEqual(r.rc, 0, r.describe())
        with open(os.path.join(out, "manifest.json"), encoding="utf-8") as f:
            toks = json.load(f)["tokens"]
        self.assertEqual([[t for t in row if t != "[PAD]"] for row in toks], [["typed", "first"], ["from", "the", "file"]])

    def test_invalid_utf8(self):
        # An invalid file is a data failure (exit 1) and the message names the file.
        out = self.path("out")
        p = self.write("latin1.txt", b"good line\ncaf\xe9 au lait\n")
        self.assert_error(["export", "--out", out, "--text-file", p], 1, ["latin1.txt"], out=out)


# --------------------------------------------------------------------------- the output folder

class OutputFolder(CliCase):

    def fill(self, folder):
        os.makedirs(folder, exist_ok=True)
        with open(os.path.join(folder, "keep.txt"), "w") as f:
            f.write("precious")
        os.makedirs(os.path.join(folder, "sub"), exist_ok=True)
        with open(os.path.join(folder, "sub", "x.bin"), "wb") as f:
            f.write(b"\x00\x01")

    def test_existing_nonempty_without_force(self):
        out = self.path("out")
        self.fill(out)
        self.assert_error(["export", "--out", out, "--text", TEXT], 2, [out], out=out)
        # relative spelling too
        self.assert_error(["export", "--out", "out", "--text", TEXT], 2, ["out"], out="out", cwd=self.tmp)

    def test_existing_nonempty_with_force(self):
        # --force replaces an earlier bundle only (issue 18): a folder of other files stays.
        out = self.path("out")
        self.fill(out)
        self.assert_error(["export", "--out", out, "--text", TEXT, "--force"], 2, [out, "not an Attention Lab bundle"],
                          out=out)
        shutil.rmtree(out)
        self.export_ok(out, "--text", TEXT)
        self.fill(out)  # an earlier bundle with more in it: replaced whole
        r = run_attnlab(["export", "--out", out, "--text", TEXT, "--force"])
        self.assertEqual(r.rc, 0, r.describe())
        self.assertEqual(r.out, "", r.describe())
        names = sorted(os.listdir(out))
        self.assertNotIn("keep.txt", names, "--force must replace the folder, not merge into it")
        self.assertNotIn("sub", names)
        for n in ["manifest.json", "trace.npz", "weights.safetensors"]:
            self.assertIn(n, names)
        self.assertEqual(sorted(os.listdir(self.tmp)), ["out"], "leftover siblings: %r" % os.listdir(self.tmp))

    def test_existing_empty(self):
        out = self.path("out")
        os.mkdir(out)
        r = run_attnlab(["export", "--out", out, "--text", TEXT])
        self.assertEqual(r.rc, 0, r.describe())
        self.assertTrue(os.path.isfile(os.path.join(out, "manifest.json")))

    def test_failure_with_force_keeps_old(self):
        out = self.path("out")
        self.export_ok(out, "--text", TEXT)
        self.fill(out)
        self.assert_error(["export", "--out", out, "--text", TEXT, "--force", "--d-model", "0"], 2,
                          ["--d-model"], out=out)
        self.assert_error(["export", "--out", out, "--text", TEXT, "--force", "--backend", "vulkan"], 1,
                          ["vulkan"], out=out, env=NO_DRIVER)

    def test_out_is_regular_file(self):
        out = self.path("afile")
        with open(out, "w") as f:
            f.write("not a folder")
        self.assert_error(["export", "--out", out, "--text", TEXT], 2, ["afile"], out=out)
        self.assert_error(["export", "--out", out, "--text", TEXT, "--force"], 2, ["afile"], out=out)

    def test_out_under_regular_file(self):
        f = self.path("afile")
        with open(f, "w") as fh:
            fh.write("x")
        out = os.path.join(f, "out")
        self.assert_error(["export", "--out", out, "--text", TEXT], 1, ["afile"])
        with open(f) as fh:
            self.assertEqual(fh.read(), "x")

    def test_unwritable_parent(self):
        parent = self.path("locked")
        os.mkdir(parent)
        os.chmod(parent, 0o500)
        probe = os.path.join(parent, "probe")
        try:
            os.mkdir(probe)
            writable = True
            os.rmdir(probe)
        except OSError:
            writable = False
        if writable:
            # Running as root (chmod does not stop writes): use a location nobody can write.
            os.chmod(parent, 0o755)
            parent = "/proc/attnlab-test"
            if os.path.exists(parent):
                self.skipTest("no unwritable location found (%s exists)" % parent)
        out = os.path.join(parent, "out")
        self.assert_error(["export", "--out", out, "--text", TEXT], 1, [out], out=out)
        if parent.startswith("/proc"):
            self.assertFalse(os.path.exists(parent))

    def test_trailing_slash(self):
        # `--out DIR/` is an ordinary spelling of DIR: it must work (and must never leave
        # an empty DIR behind on failure).
        out = self.path("out")
        r = run_attnlab(["export", "--out", out + "/", "--text", TEXT])
        leftover = sorted(os.listdir(self.tmp))
        state = sorted(os.listdir(out)) if os.path.isdir(out) else None
        self.assertEqual(r.rc, 0, "export --out DIR/ failed%s\n  left behind: %r, DIR holds %r" % (
            "\n" + r.describe(), leftover, state))
        self.assertTrue(os.path.isfile(os.path.join(out, "manifest.json")), "DIR holds %r" % state)
        self.assertEqual(leftover, ["out"])

    def test_nested_new_parent(self):
        out = self.path("a", "b", "out")
        r = run_attnlab(["export", "--out", out, "--text", TEXT])
        self.assertEqual(r.rc, 0, r.describe())
        self.assertTrue(os.path.isfile(os.path.join(out, "manifest.json")))
        self.assertEqual(os.listdir(self.path("a", "b")), ["out"])


# --------------------------------------------------------------------------- weights files

class WeightsFiles(CliCase):
    """Bad weights files are made from a real export's weights.safetensors."""

    @classmethod
    def setUpClass(cls):
        cls.ctmp = tempfile.mkdtemp(prefix="attnlab-weights-")
        cls.base = os.path.join(cls.ctmp, "base")
        cls.xbase = os.path.join(cls.ctmp, "xbase")
        for out, extra in [(cls.base, []), (cls.xbase, ["--memory-text", "le chat est assis"])]:
            r = run_attnlab(["export", "--out", out, "--text", TEXT] + extra)
            if r.rc != 0:
                raise RuntimeError("cannot make the base bundle:\n" + r.describe())
        cls.wpath = os.path.join(cls.base, "weights.safetensors")
        cls.meta, cls.tensors = lib.read_safetensors(cls.wpath)
        cls.header, cls.data = lib.read_safetensors_raw(cls.wpath)
        with open(cls.wpath, "rb") as f:
            cls.blob = f.read()
        cls.trace = load_npz(os.path.join(cls.base, "trace.npz"))

    @classmethod
    def tearDownClass(cls):
        shutil.rmtree(cls.ctmp, ignore_errors=True)

    def write_blob(self, name, data):
        p = self.path(name)
        with open(p, "wb") as f:
            f.write(data)
        return p

    def write(self, name, tensors=None, metadata="keep", **kw):
        p = self.path(name)
        lib.write_safetensors(p, self.tensors if tensors is None else tensors,
                              self.meta if metadata == "keep" else metadata, **kw)
        return p

    def bad(self, path, status, names, extra=()):
        out = self.path("out")
        return self.assert_error(["export", "--out", out, "--text", TEXT, "--weights", path] + list(extra),
                                 status, names, out=out)

    def good(self, path, extra=(), text=TEXT):
        out = self.path("out-ok")
        shutil.rmtree(out, ignore_errors=True)
        r = run_attnlab(["export", "--out", out, "--text", text, "--weights", path] + list(extra))
        self.assertEqual(r.rc, 0, r.describe())
        self.assertEqual(r.out, "", r.describe())
        return out

    # -- file-level damage
    def test_missing_file(self):
        self.bad(self.path("nope.safetensors"), 1, ["nope.safetensors"])

    def test_directory_as_file(self):
        os.mkdir(self.path("adir.safetensors"))
        self.bad(self.path("adir.safetensors"), 1, ["adir.safetensors"])

    def test_empty_file(self):
        self.bad(self.write_blob("empty.safetensors", b""), 1, ["empty.safetensors"])

    def test_truncated(self):
        for name, cut in [("trunc_data.safetensors", len(self.blob) - 100), ("trunc_hdr.safetensors", 50),
                          ("trunc_len.safetensors", 5), ("trunc_one.safetensors", len(self.blob) - 1)]:
            with self.subTest(file=name):
                self.bad(self.write_blob(name, self.blob[:cut]), 1, [name])

    def test_header_length_past_end(self):
        for name, n in [("hlen.safetensors", len(self.blob) + 1000), ("hlen_huge.safetensors", 2 ** 63 + 5),
                        ("hlen_ff.safetensors", 2 ** 64 - 1)]:
            with self.subTest(file=name):
                self.bad(self.write_blob(name, n.to_bytes(8, "little") + self.blob[8:]), 1, [name])

    def test_invalid_json_header(self):
        for name, hdr in [("json.safetensors", b"{not json at all"), ("array.safetensors", b"[1, 2, 3]"),
                          ("nul.safetensors", b"{\"a\": 1\x00}"), ("utf.safetensors", b"{\"\xff\": 1}")]:
            with self.subTest(file=name):
                hdr = hdr + b" " * ((8 - len(hdr) % 8) % 8)
                self.bad(self.write_blob(name, len(hdr).to_bytes(8, "little") + hdr + self.data), 1, [name])

    # -- tensor-level damage
    def test_wrong_shape(self):
        for tname, shape in [("encoder.layers.0.norm1.weight", (32,)),
                             ("encoder.layers.0.linear2.weight", (64, 128)),
                             ("encoder.layers.0.self_attn.out_proj.weight", (64, 64, 1))]:
            with self.subTest(tensor=tname):
                t = dict(self.tensors)
                t[tname] = np.zeros(shape, np.float32) + 0.01
                self.bad(self.write("shape.safetensors", t), 1, [tname])

    def test_in_proj_shape(self):
        t = dict(self.tensors)
        tname = "encoder.layers.0.self_attn.in_proj_weight"
        t[tname] = t[tname][:, :32].copy()
        self.bad(self.write("inproj.safetensors", t), 1, [tname])

    def test_missing_tensor(self):
        for tname in ["encoder.layers.0.linear2.bias", "encoder.layers.0.self_attn.in_proj_weight",
                      "encoder.layers.0.linear1.weight"]:
            with self.subTest(tensor=tname):
                t = {k: v for k, v in self.tensors.items() if k != tname}
                self.bad(self.write("missing.safetensors", t), 1, [tname])

    def test_non_finite(self):
        for tname, val in [("encoder.layers.0.self_attn.out_proj.weight", np.nan),
                           ("encoder.layers.0.linear1.bias", np.inf),
                           ("encoder.layers.0.norm2.weight", -np.inf)]:
            with self.subTest(tensor=tname, value=val):
                t = dict(self.tensors)
                a = t[tname].copy()
                a.flat[3] = val
                t[tname] = a
                self.bad(self.write("nan.safetensors", t), 1, [tname])

    def test_nan_in_f16(self):
        tname = "encoder.layers.0.self_attn.in_proj_bias"
        t = dict(self.tensors)
        a = t[tname].copy()
        a.flat[0] = np.nan
        t[tname] = a
        self.bad(self.write("nan16.safetensors", t, dtypes={k: "F16" for k in t}), 1, [tname])

    def test_f64_dtype(self):
        tname = "encoder.layers.0.linear1.bias"
        self.bad(self.write("f64.safetensors", dtypes={tname: "F64"}), 1, [tname])

    def test_int_dtype(self):
        tname = "encoder.layers.0.norm1.bias"

        def edit(h):
            h[tname]["dtype"] = "I32"
        self.bad(self.write("i32.safetensors", header_override=edit), 1, [tname])

    def test_overlapping_offsets(self):
        a, b = "encoder.layers.0.norm1.weight", "encoder.layers.0.norm1.bias"

        def edit(h):
            h[b]["data_offsets"] = list(h[a]["data_offsets"])
        self.bad(self.write("overlap.safetensors", header_override=edit), 1, ["overlap.safetensors"])

        def edit2(h):  # partial overlap
            s, e = h[a]["data_offsets"]
            h[b]["data_offsets"] = [s + 8, e + 8]
        self.bad(self.write("overlap2.safetensors", header_override=edit2), 1, ["overlap2.safetensors"])

    def test_out_of_bounds_offsets(self):
        tname = "encoder.layers.0.norm2.bias"
        total = sum(v.size * 4 for v in self.tensors.values())

        def edit(h):
            s, e = h[tname]["data_offsets"]
            h[tname]["data_offsets"] = [total - (e - s) + 4, total + 4]
        self.bad(self.write("oob.safetensors", header_override=edit), 1, [tname])

        def edit2(h):
            s, e = h[tname]["data_offsets"]
            h[tname]["data_offsets"] = [e, s]
        self.bad(self.write("oob2.safetensors", header_override=edit2), 1, [tname])

        def edit3(h):
            h[tname]["data_offsets"] = [2 ** 64 - 8, 2 ** 64 - 8 + 256]
        self.bad(self.write("oob3.safetensors", header_override=edit3), 1, [tname])

    def test_size_mismatch(self):
        tname = "encoder.layers.0.linear1.bias"

        def edit(h):
            s, e = h[tname]["data_offsets"]
            h[tname]["data_offsets"] = [s, e - 4]
        self.bad(self.write("size.safetensors", header_override=edit), 1, [tname])

    def test_extra_tensor(self):
        t = dict(self.tensors)
        t["encoder.layers.0.extra.weight"] = np.ones((4,), np.float32)
        self.bad(self.write("extra.safetensors", t), 1, ["encoder.layers.0.extra.weight"])
        t = dict(self.tensors)
        t["encoder.layers.1.norm1.weight"] = np.ones((64,), np.float32)
        self.bad(self.write("extra2.safetensors", t), 1, ["encoder.layers.1.norm1.weight"])

    def test_bad_metadata(self):
        for key, val in [("format", "attnlab-weights/2"), ("d_model", "sixty-four"), ("norm", "sideways"),
                         ("heads", "7")]:
            with self.subTest(key=key, value=val):
                m = dict(self.meta)
                m[key] = val
                self.bad(self.write("meta.safetensors", metadata=m), 1, ["meta.safetensors"])

    # -- metadata and options
    def test_no_metadata(self):
        p = self.write("nometa.safetensors", metadata=None)
        hdr, _ = lib.read_safetensors_raw(p)
        self.assertNotIn("__metadata__", hdr)
        self.bad(p, 2, ["--heads"])
        out = self.good(p, ["--heads", "8"])
        self.assertEqual(load_npz(os.path.join(out, "trace.npz")).keys(), self.trace.keys())
        for k, v in load_npz(os.path.join(out, "trace.npz")).items():
            self.assertTrue(np.array_equal(v, self.trace[k], equal_nan=True), "trace differs at " + k)
        out = self.good(p, ["--heads", "4"])
        with open(os.path.join(out, "manifest.json"), encoding="utf-8") as f:
            cfg = json.load(f)["config"]
        self.assertEqual((cfg["d_model"], cfg["heads"], cfg["d_ff"], cfg["layers"]), (64, 4, 256, 1))
        self.bad(p, 2, ["--heads", "7"], extra=["--heads", "7"])

    def test_option_conflicts(self):
        p = self.wpath
        for opt, val, stored in [("--d-model", "32", "64"), ("--heads", "4", "8"), ("--d-ff", "128", "256"),
                                 ("--layers", "2", "1"), ("--norm", "post", "pre"),
                                 ("--activation", "gelu", "relu"), ("--positional", "none", "sinusoidal"),
                                 ("--seed", "5", "0")]:
            with self.subTest(option=opt):
                self.bad(p, 2, [opt, val, stored], extra=[opt, val])

    def test_option_agreeing(self):
        self.good(self.wpath, ["--d-model", "64", "--heads", "8", "--norm", "pre"])

    def test_decoder_file_needs_memory_text(self):
        p = os.path.join(self.xbase, "weights.safetensors")
        self.bad(p, 2, ["--memory-text"])
        self.good(p, ["--memory-text", "le chat"])

    def test_encoder_file_refuses_memory_text(self):
        self.bad(self.wpath, 2, ["--memory-text"], extra=["--memory-text", "le chat"])

    # -- round trips
    def test_round_trip_identical(self):
        out = self.good(self.wpath)
        again = load_npz(os.path.join(out, "trace.npz"))
        self.assertEqual(sorted(again), sorted(self.trace))
        for k in self.trace:
            self.assertTrue(np.array_equal(again[k], self.trace[k], equal_nan=True), "trace differs at " + k)
        meta2, t2 = lib.read_safetensors(os.path.join(out, "weights.safetensors"))
        self.assertEqual(meta2, self.meta)
        for k in self.tensors:
            self.assertTrue(np.array_equal(t2[k], self.tensors[k]), k)

    def test_round_trip_cross(self):
        p = os.path.join(self.xbase, "weights.safetensors")
        out = self.good(p, ["--memory-text", "le chat est assis"])
        a = load_npz(os.path.join(out, "trace.npz"))
        b = load_npz(os.path.join(self.xbase, "trace.npz"))
        self.assertEqual(sorted(a), sorted(b))
        for k in a:
            self.assertTrue(np.array_equal(a[k], b[k], equal_nan=True), "trace differs at " + k)

    def _half_check(self, dtype, rounder, loose_atol):
        t = dict(self.tensors)
        # some values in F16's subnormal range, and exact zeros / negative zero
        nb = "encoder.layers.0.norm1.bias"
        a = t[nb].copy()
        a[:6] = [1e-6, -3e-7, 6e-8, 0.0, -0.0, 5e-5]
        t[nb] = a
        p = self.write(dtype.lower() + ".safetensors", t, dtypes={k: dtype for k in t})
        out_half = self.good(p)
        half = load_npz(os.path.join(out_half, "trace.npz"))
        # the same values, rounded here and stored as F32: the loader's conversion must be exact
        rounded = {k: rounder(v) for k, v in t.items()}
        p32 = self.write(dtype.lower() + "_as_f32.safetensors", rounded)
        ref_out = self.path("ref-" + dtype)
        r = run_attnlab(["export", "--out", ref_out, "--text", TEXT, "--weights", p32])
        self.assertEqual(r.rc, 0, r.describe())
        ref = load_npz(os.path.join(ref_out, "trace.npz"))
        _, wh = lib.read_safetensors(os.path.join(out_half, "weights.safetensors"))
        for k in rounded:
            self.assertTrue(np.array_equal(wh[k], rounded[k]),
                            "%s → F32 conversion differs from the reference rounding at %s" % (dtype, k))
        for k in ref:
            self.assertTrue(np.array_equal(half[k], ref[k], equal_nan=True), "%s: trace differs at %s" % (dtype, k))
        # and close to the unrounded F32 run
        worst = 0.0
        for k in ["encoder.layers.0.self_attn.weights", "encoder.layers.0.output"]:
            worst = max(worst, float(np.max(np.abs(half[k] - self.trace[k]))))
        self.assertLess(worst, loose_atol, "%s results too far from F32 (%g)" % (dtype, worst))

    def test_f16(self):
        self._half_check("F16", lambda v: v.astype(np.float16).astype(np.float32), 0.05)

    def test_bf16(self):
        self._half_check("BF16", lib.bf16_round, 0.3)

    def test_mixed_dtypes(self):
        names = sorted(self.tensors)
        dtypes = {n: ["F32", "F16", "BF16"][i % 3] for i, n in enumerate(names)}
        self.good(self.write("mixed.safetensors", dtypes=dtypes))


# --------------------------------------------------------------------------- successes

class Successes(CliCase):

    def test_help_version(self):
        for args in [["--help"], ["-h"], ["--version"], ["export", "--help"], ["bench", "--help"]]:
            with self.subTest(args=args):
                r = run_attnlab(args)
                self.assertEqual(r.rc, 0, r.describe())
                self.assertTrue(r.out.strip(), "nothing on stdout: " + r.describe())
                self.assertEqual(r.err, "", r.describe())
        r = run_attnlab(["--version"])
        self.assertRegex(r.out, r"attnlab\s+\d+\.\d+")
        r = run_attnlab(["export", "--help"])
        for opt in ["--out", "--text", "--text-file", "--memory-text", "--d-model", "--heads", "--d-ff",
                    "--layers", "--mask", "--norm", "--activation", "--positional", "--eps", "--seed",
                    "--weights", "--backend", "--format", "--memory-budget", "--force"]:
            self.assertIn(opt, r.out, "export --help does not list " + opt)

    def test_bench_backward_json(self):
        r = run_attnlab(["bench", "--repeat", "2", "--seq", "16", "--d-model", "64", "--heads", "4", "--loss", "sum"])
        self.assertEqual(r.rc, 0, r.describe())
        obj = json.loads([l for l in r.out.splitlines() if l.strip()][0])
        self.assertEqual(obj["loss"], "sum")
        self.assertTrue(obj["config"]["trace"])  # the backward walks a traced forward
        self.assertGreater(obj["backward_median_ms"], 0)
        self.assertAlmostEqual(obj["total_median_ms"], obj["median_ms"] + obj["backward_median_ms"], places=6)
        # The benchmark's stack input is not an embedding: a learned position table changes nothing there.
        r = run_attnlab(["bench", "--repeat", "1", "--seq", "16", "--d-model", "64", "--heads", "4", "--loss", "sum",
                         "--positional", "learned", "--max-positions", "16"])
        self.assertEqual(r.rc, 0, r.describe())
        # The memory each holds; the tiled path (FlashAttention-2's backward) keeps no (S, S) tensor.
        held = {}
        for attention in ("full", "tiled"):
            r = run_attnlab(["bench", "--repeat", "1", "--seq", "300", "--d-model", "32", "--heads", "4", "--loss", "sum",
                             "--attention", attention])
            self.assertEqual(r.rc, 0, r.describe())
            held[attention] = json.loads([l for l in r.out.splitlines() if l.strip()][0])
            self.assertEqual(held[attention]["attention"], attention)
            self.assertGreater(held[attention]["trace_mb"], 0)
            self.assertGreater(held[attention]["gradients_mb"], 0)
        score_mb = 4 * 300 * 300 * 4 / 2**20  # one (1, H 4, S, S) float tensor
        self.assertGreater(held["full"]["trace_mb"] - held["tiled"]["trace_mb"], 3 * score_mb)
        # The full path's gradients: qk's, the scaled scores' and the weights' (S, S) tensors — the
        # masked scores' is the scaled scores' own, shared, since the benchmark's mask hides nothing.
        self.assertGreater(held["full"]["gradients_mb"] - held["tiled"]["gradients_mb"], 2 * score_mb)
        r = run_attnlab(["bench", "--loss", "mse"])
        self.assertEqual(r.rc, 2, r.describe())
        self.assertIn("unknown loss 'mse'; valid losses: sum", r.err)

    def test_bench_json(self):
        r = run_attnlab(["bench", "--repeat", "2", "--seq", "16", "--d-model", "64", "--heads", "4"])
        self.assertEqual(r.rc, 0, r.describe())
        self.assertEqual(r.err, "", r.describe())
        lines = [l for l in r.out.splitlines() if l.strip()]
        self.assertEqual(len(lines), 1, "bench must print exactly one JSON object: " + r.describe())
        obj = json.loads(lines[0])
        self.assertIsInstance(obj, dict)
        for k in ["median_ms", "min_ms", "max_ms", "gflops", "peak_rss_mb", "backend", "attention", "config"]:
            self.assertIn(k, obj, "bench JSON lacks %r" % k)
        for k in ["median_ms", "min_ms", "max_ms", "gflops", "peak_rss_mb"]:
            self.assertIsInstance(obj[k], (int, float), k)
            self.assertGreaterEqual(obj[k], 0, k)
        self.assertLessEqual(obj["min_ms"], obj["median_ms"])
        self.assertLessEqual(obj["median_ms"], obj["max_ms"])
        self.assertIn(obj["backend"], ["cpu", "vulkan"])
        self.assertIn(obj["attention"], ["full", "tiled"])
        self.assertIsInstance(obj["config"], dict)
        if obj["backend"] == "cpu":
            self.assertNotIn("gpu_ms", obj)
        S, D, F = 16, 64, 256
        fl = 8 * S * D * D + 4 * S * D * F + 4 * S * S * D
        self.assertEqual(fl, 24 * S * D * D + 4 * S * S * D)
        if obj["median_ms"] > 0:
            expect = fl / (obj["median_ms"] * 1e6)
            self.assertAlmostEqual(obj["gflops"] / expect, 1.0, places=3,
                                   msg="gflops %g is not the rate at the median (%g)" % (obj["gflops"], expect))

    def test_export_quiet(self):
        out = self.path("out")
        r = run_attnlab(["export", "--out", out, "--text", TEXT])
        self.assertEqual(r.rc, 0, r.describe())
        self.assertEqual(r.out, "", "export must print nothing on success")
        self.assertEqual(r.err, "", "export must print nothing on success")
        self.assertEqual(sorted(os.listdir(self.tmp)), ["out"])
        with zipfile.ZipFile(os.path.join(out, "trace.npz")) as z:
            self.assertIsNone(z.testzip())


if __name__ == "__main__":
    lib.main()
