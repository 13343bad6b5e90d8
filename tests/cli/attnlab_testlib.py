"""Shared helpers for the attnlab command-line tests (plain unittest, no third-party packages
besides NumPy): locating the binary, running it, a tiny safetensors reader/writer, and a
runner that prints the final "N passed, N failed" line and sets the exit status."""

import json
import math
import os
import shutil
import struct
import subprocess
import sys
import tempfile
import unittest

import numpy as np

# --------------------------------------------------------------------------- the binary

_BIN = None


def attnlab_bin():
    """The attnlab executable: argv[1] (taken out of sys.argv by main()) or $ATTNLAB_BIN."""
    if _BIN:
        return _BIN
    env = os.environ.get("ATTNLAB_BIN")
    if env:
        return env
    raise SystemExit("usage: test_*.py /path/to/attnlab   (or set ATTNLAB_BIN)")


class Result:
    def __init__(self, args, proc):
        self.args = args
        self.rc = proc.returncode
        self.out = proc.stdout.decode("utf-8", "replace")
        self.err = proc.stderr.decode("utf-8", "replace")

    def describe(self):
        return "attnlab %s\n  exit %s\n  stdout: %r\n  stderr: %r" % (
            " ".join(repr(a) if (not a or " " in a) else a for a in self.args), self.rc,
            self.out[:500], self.err[:1000])


def run_attnlab(args, cwd=None, timeout=300, env=None):
    e = dict(os.environ)
    e.setdefault("OMP_NUM_THREADS", "2")
    e["QT_QPA_PLATFORM"] = "offscreen"
    if env:
        e.update(env)
    proc = subprocess.run([attnlab_bin()] + list(args), cwd=cwd, stdout=subprocess.PIPE,
                          stderr=subprocess.PIPE, timeout=timeout, env=e)
    return Result(list(args), proc)


class TempDirCase(unittest.TestCase):
    """Each test gets its own temporary folder, removed afterwards (made writable first)."""

    def setUp(self):
        self.tmp = tempfile.mkdtemp(prefix="attnlab-cli-")

    def tearDown(self):
        for root, dirs, _ in os.walk(self.tmp):
            for d in dirs:
                try:
                    os.chmod(os.path.join(root, d), 0o755)
                except OSError:
                    pass
        shutil.rmtree(self.tmp, ignore_errors=True)

    def path(self, *parts):
        return os.path.join(self.tmp, *parts)

    def export_ok(self, out, *args):
        r = run_attnlab(["export", "--out", out] + list(args))
        self.assertEqual(r.rc, 0, "export failed:\n" + r.describe())
        return r


class CheckpointCase(TempDirCase):
    """`export --model FOLDER` of a checkpoint folder (test_cli_pretrained, test_cli_bert): its
    bundle, tolerances and refusals. TEXTS: the texts a test exports unless it says others."""

    TEXTS = []

    def export(self, folder, *args, texts=None):
        out = self.path("bundle-%d" % len(os.listdir(self.tmp)))
        texts = self.TEXTS if texts is None else texts
        self.export_ok(out, "--model", folder, *[a for t in texts for a in ("--text", t)], *args)
        trace = dict(np.load(os.path.join(out, "trace.npz")))
        with open(os.path.join(out, "manifest.json"), encoding="utf-8") as f:
            return out, trace, json.load(f)

    def assert_close(self, got, want, what, atol=2e-4, rtol=2e-4):
        ok, worst, ratio, first = compare(got, want, atol, rtol)
        self.assertTrue(ok, "%s: max |Δ| %.3g (%.3g × tolerance) first at %s" % (what, worst, ratio, first))

    def refused(self, folder, *needles, args=(), rc=1):
        """Refused with exit `rc`, the message holding every needle, and no bundle written."""
        out = self.path("refused")
        r = run_attnlab(["export", "--out", out, "--model", folder, "--text", "the cat", *args])
        self.assertEqual(r.rc, rc, r.describe())
        for n in needles:
            self.assertIn(n, r.err, r.describe())
        self.assertFalse(os.path.exists(out))


# --------------------------------------------------------------------------- safetensors

_DTYPES = {"F32": np.dtype("<f4"), "F16": np.dtype("<f2"), "F64": np.dtype("<f8"),
           "BF16": np.dtype("<u2"), "I32": np.dtype("<i4")}


def read_safetensors_raw(path):
    """(header dict, data bytes) exactly as stored."""
    with open(path, "rb") as f:
        blob = f.read()
    (n,) = struct.unpack("<Q", blob[:8])
    header = json.loads(blob[8:8 + n].decode("utf-8"))
    return header, blob[8 + n:]


def read_safetensors(path):
    """(metadata dict, {name: float32 ndarray}) — F32, F16 and BF16 converted to F32."""
    header, data = read_safetensors_raw(path)
    meta = header.pop("__metadata__", {})
    tensors = {}
    for name, e in header.items():
        b, end = e["data_offsets"]
        raw = np.frombuffer(data[b:end], dtype=_DTYPES[e["dtype"]])
        if e["dtype"] == "BF16":
            arr = (raw.astype(np.uint32) << 16).view(np.float32)
        else:
            arr = raw.astype(np.float32)
        tensors[name] = arr.reshape(e["shape"]).copy()
    return meta, tensors


def encode_tensor(arr, dtype):
    if dtype == "I64":  # a buffer such as BERT's position_ids
        return np.ascontiguousarray(arr).astype("<i8").tobytes()
    arr = np.ascontiguousarray(arr, dtype=np.float32)
    if dtype == "F32":
        return arr.astype("<f4").tobytes()
    if dtype == "F16":
        return arr.astype("<f2").tobytes()
    if dtype == "F64":
        return arr.astype("<f8").tobytes()
    if dtype == "BF16":
        return to_bf16_bits(arr).astype("<u2").tobytes()
    raise ValueError(dtype)


def to_bf16_bits(arr):
    """float32 → bfloat16 bit patterns, round to nearest even (finite inputs)."""
    u = np.ascontiguousarray(arr, dtype=np.float32).view(np.uint32).astype(np.uint64)
    u = (u + 0x7FFF + ((u >> 16) & 1)) >> 16
    return u.astype(np.uint16)


def bf16_round(arr):
    return (to_bf16_bits(arr).astype(np.uint32) << 16).view(np.float32)


def write_safetensors(path, tensors, metadata=None, dtypes=None, header_override=None,
                      pad=True):
    """tensors: {name: ndarray} (or an ordered list of pairs); dtypes: {name: dtype} (default F32).
    header_override(header) may edit the header dict before it is written."""
    items = list(tensors.items()) if isinstance(tensors, dict) else list(tensors)
    dtypes = dtypes or {}
    header = {}
    if metadata is not None:
        header["__metadata__"] = dict(metadata)
    data = b""
    for name, arr in items:
        dt = dtypes.get(name, "F32")
        enc = encode_tensor(arr, dt)
        header[name] = {"dtype": dt, "shape": list(np.shape(arr)),
                        "data_offsets": [len(data), len(data) + len(enc)]}
        data += enc
    if header_override:
        header_override(header)
    h = json.dumps(header, separators=(",", ":")).encode("utf-8")
    if pad:
        h += b" " * ((8 - len(h) % 8) % 8)
    with open(path, "wb") as f:
        f.write(struct.pack("<Q", len(h)) + h + data)


# --------------------------------------------------------------------------- runner

class CountingResult(unittest.TextTestResult):
    """Counts every subTest outcome as a check of its own, and plain tests as one check."""

    def __init__(self, *a, **k):
        super().__init__(*a, **k)
        self.passed = 0
        self.failed = 0
        self.skipped_n = 0
        self._had_sub = set()

    def addSubTest(self, test, subtest, err):
        super().addSubTest(test, subtest, err)
        self._had_sub.add(test.id())
        if err is None:
            self.passed += 1
        else:
            self.failed += 1

    def addSuccess(self, test):
        super().addSuccess(test)
        if test.id() not in self._had_sub:
            self.passed += 1

    def addFailure(self, test, err):
        super().addFailure(test, err)
        self.failed += 1

    def addError(self, test, err):
        super().addError(test, err)
        self.failed += 1

    def addSkip(self, test, reason):
        super().addSkip(test, reason)
        self.skipped_n += 1

    def addUnexpectedSuccess(self, test):
        super().addUnexpectedSuccess(test)
        self.failed += 1

    def addExpectedFailure(self, test, err):
        super().addExpectedFailure(test, err)
        self.passed += 1


def main(module_name="__main__", epilogue=None):
    global _BIN
    args = sys.argv[1:]
    if args and not args[0].startswith("-"):
        _BIN = os.path.abspath(args.pop(0))
    if not _BIN and not os.environ.get("ATTNLAB_BIN"):
        print("usage: %s /path/to/attnlab [unittest options]   (or set ATTNLAB_BIN)" % sys.argv[0])
        print("0 passed, 1 failed")
        sys.exit(2)
    if not os.access(attnlab_bin(), os.X_OK):
        print("attnlab binary not found or not executable: %s" % attnlab_bin())
        print("0 passed, 1 failed")
        sys.exit(2)
    verbosity = 2 if ("-v" in args) else 1
    names = [a for a in args if not a.startswith("-")]
    loader = unittest.TestLoader()
    module = sys.modules[module_name]
    suite = loader.loadTestsFromNames(names, module) if names else loader.loadTestsFromModule(module)
    runner = unittest.TextTestRunner(stream=sys.stdout, verbosity=verbosity, resultclass=CountingResult)
    result = runner.run(suite)
    if epilogue:
        epilogue()
    if result.skipped_n:
        print("%d skipped" % result.skipped_n)
    print("%d passed, %d failed" % (result.passed, result.failed))
    sys.stdout.flush()
    sys.exit(0 if result.failed == 0 and result.wasSuccessful() else 1)


# --------------------------------------------------------------------------- comparing with PyTorch

def compare(a, b, atol=1e-5, rtol=1e-4):
    """(ok, max |a-b|, max |a-b| / (atol + rtol|b|), first bad index) with infinities/NaN equal."""
    a = np.asarray(a, dtype=np.float64)
    b = np.asarray(b, dtype=np.float64)
    if a.shape != b.shape:
        return False, math.inf, math.inf, None
    same_special = (np.isnan(a) & np.isnan(b)) | (np.isinf(a) & np.isinf(b) & (np.sign(a) == np.sign(b)))
    finite = np.isfinite(a) & np.isfinite(b)
    bad_special = ~(same_special | finite)
    with np.errstate(invalid="ignore", over="ignore"):
        diff = np.where(finite, np.abs(np.where(finite, a, 0.0) - np.where(finite, b, 0.0)), 0.0)
    tol = atol + rtol * np.abs(np.where(finite, b, 0.0))
    ratio = diff / tol
    ok_elem = (diff <= tol) & ~bad_special
    ok = bool(ok_elem.all())
    first = None if ok else tuple(int(i) for i in np.argwhere(~ok_elem)[0])
    mx = float(diff.max()) if diff.size else 0.0
    mr = float(ratio.max()) if ratio.size else 0.0
    if bad_special.any():
        mx = mr = math.inf
    return ok, mx, mr, first


def strided_tensor(arr, shape, strides):
    """A tensor holding arr's values laid out with the given strides (when they do not overlap)."""
    arr = np.ascontiguousarray(arr)
    shape = list(shape)
    strides = list(strides)
    if len(shape) != arr.ndim or list(arr.shape) != shape or len(strides) != len(shape):
        return torch.from_numpy(arr.copy())
    if arr.size > 1:
        idx = np.zeros(1, dtype=np.int64)
        for size, st in zip(shape, strides):
            idx = (idx[:, None] + np.arange(size, dtype=np.int64)[None, :] * st).reshape(-1)
        if (idx < 0).any() or len(np.unique(idx)) != idx.size:
            return torch.from_numpy(arr.copy())  # overlapping layout: cannot be reproduced by writing
    import torch  # only the PyTorch tests call this

    t = torch.empty_strided(shape, strides, dtype=torch.float32)
    t.copy_(torch.from_numpy(arr))
    return t


# --------------------------------------------------------------------------- reproduce.py

PYTHON = "/usr/bin/python3"  # Debian's, with python3-torch (PITFALLS.md)


def reproduce(folder, cwd=None):
    proc = subprocess.run([PYTHON, os.path.join(folder, "reproduce.py")] + ([] if cwd else [folder]),
                          stdout=subprocess.PIPE, stderr=subprocess.PIPE, cwd=cwd or folder, timeout=600)
    return proc.returncode, proc.stdout.decode("utf-8"), proc.stderr.decode("utf-8")


def reported(out):
    """The step ids reproduce.py printed a line for, with their verdicts."""
    rows = {}
    for line in out.splitlines():
        parts = line.split()
        if len(parts) == 3 and parts[2] in ("ok", "DIFFERS"):
            rows[parts[0]] = parts[2]
    return rows
