#!/usr/bin/python3
"""attnlab export --format png,svg,csv: the heatmap files of the contract (shared/spec/cli-and-export.md,
"heatmaps/"), one per attention block, sentence and head, drawn by the GUI's renderer.

usage: test_cli_images.py /path/to/attnlab [-v] [TestClass[.test_name] ...]   (or env ATTNLAB_BIN)

Checks: exactly the files {block}.b{n}.head{h}.{png,svg,csv} for every block, sentence and head of
the manifest; PNGs valid (signature, IHDR with a sane size, CRCs, IEND; 2x pictures record 192 dpi);
SVGs parse as XML with the tokens as <text> and one <rect> per cell at least; CSVs equal trace.npz;
encoder-decoder mode (cross-attention keys are the source tokens); and that it all works with no
display at all (no DISPLAY, and QT_QPA_PLATFORM unset or set to xcb)."""

import csv
import io
import json
import os
import struct
import subprocess
import sys
import unittest
import xml.etree.ElementTree as ET
import zlib

import numpy as np

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import attnlab_testlib as lib  # noqa: E402
from attnlab_testlib import run_attnlab  # noqa: E402

SVG = "{http://www.w3.org/2000/svg}"
FORMATS = ("png", "svg", "csv")


def read_png(path):
    """(width, height, chunks) after checking the signature, every chunk's CRC, IHDR first, IEND last."""
    with open(path, "rb") as f:
        blob = f.read()
    if blob[:8] != b"\x89PNG\r\n\x1a\n":
        raise AssertionError("%s: no PNG signature" % path)
    chunks, at = [], 8
    while at < len(blob):
        (n,) = struct.unpack(">I", blob[at:at + 4])
        kind, data = blob[at + 4:at + 8], blob[at + 8:at + 8 + n]
        (crc,) = struct.unpack(">I", blob[at + 8 + n:at + 12 + n])
        if zlib.crc32(kind + data) & 0xFFFFFFFF != crc:
            raise AssertionError("%s: bad CRC in chunk %r" % (path, kind))
        chunks.append((kind, data))
        at += 12 + n
    if not chunks or chunks[0][0] != b"IHDR" or len(chunks[0][1]) != 13 or chunks[-1][0] != b"IEND":
        raise AssertionError("%s: IHDR/IEND missing" % path)
    w, h = struct.unpack(">II", chunks[0][1][:8])
    return w, h, dict(chunks)


def svg_texts(path):
    root = ET.parse(path).getroot()
    assert root.tag == SVG + "svg", root.tag
    return [t.text or "" for t in root.iter(SVG + "text")], len(list(root.iter(SVG + "rect")))


def weights_blocks(manifest):
    """[(block id, step id)] of every attention-weights step."""
    return [(s["id"][:-len(".weights")], s["id"]) for s in manifest["steps"] if s["id"].endswith(".weights")]


def axis_tokens(manifest, step_id, b):
    """(query tokens, key tokens) of sentence b for an attention step (model.h: attention_tokens)."""
    text = manifest["tokens"][b]
    memory = manifest.get("memory_tokens", manifest["tokens"])[b]
    encoder = memory if "memory_tokens" in manifest else text
    query = text if step_id.startswith("decoder.") else encoder
    key = encoder if ".multihead_attn." in step_id else query
    return query, key


class HeatmapImages(lib.TempDirCase):
    def export(self, *args, formats="png,svg,csv"):
        out = self.path("out")
        self.export_ok(out, "--format", formats, *args)
        with open(os.path.join(out, "manifest.json"), encoding="utf-8") as f:
            return out, json.load(f)

    def expected_names(self, manifest, formats=FORMATS):
        heads = manifest["config"]["heads"]
        return sorted("%s.b%d.head%d.%s" % (block, b, h, ext) for block, _ in weights_blocks(manifest)
                      for b in range(len(manifest["tokens"])) for h in range(heads) for ext in formats)

    def test_every_block_sentence_and_head(self):
        out, m = self.export("--text", "the cat sat on the mat", "--text", "a dog ran", "--text", "小猫坐在垫子上",
                             "--layers", "2", "--heads", "4", "--d-model", "16")
        names = sorted(os.listdir(os.path.join(out, "heatmaps")))
        self.assertEqual(names, self.expected_names(m))
        self.assertEqual(len(names), 2 * 3 * 4 * 3)
        self.assertFalse(os.path.exists(os.path.join(out, "trace.npz")))  # npz not asked for
        leftovers = [n for n in os.listdir(self.tmp) if n.startswith(".out.")]
        self.assertEqual(leftovers, [])

    def test_pngs_are_valid(self):
        out, m = self.export("--text", "the cat sat on the mat", "--text", "a dog ran", formats="png")
        sizes = {}
        for name in self.expected_names(m, ("png",)):
            with self.subTest(file=name):
                w, h, chunks = read_png(os.path.join(out, "heatmaps", name))
                self.assertTrue(200 <= w <= 8000 and 150 <= h <= 8000, (w, h))
                self.assertIn(b"IDAT", chunks)
                if b"pHYs" in chunks:  # drawn at twice the natural size: 192 dpi
                    ppm_x, ppm_y, unit = struct.unpack(">IIB", chunks[b"pHYs"])
                    self.assertEqual(unit, 1)
                    self.assertAlmostEqual(ppm_x, 96 * 2 / 0.0254, delta=2)
                sizes.setdefault(name.split(".b")[1][0], set()).add((w, h))
        for b, seen in sizes.items():  # the heads of one sentence share a size (same tokens, same layout)
            self.assertEqual(len(seen), 1, (b, seen))

    def test_svgs_hold_tokens_as_text(self):
        out, m = self.export("--text", "the cat sat on the mat", "--text", "a dog ran", formats="svg")
        for block, step in weights_blocks(m):
            for b in range(len(m["tokens"])):
                q, k = axis_tokens(m, step, b)
                for h in range(m["config"]["heads"]):
                    name = "%s.b%d.head%d.svg" % (block, b, h)
                    with self.subTest(file=name):
                        texts, rects = svg_texts(os.path.join(out, "heatmaps", name))
                        for tok in set(q) | set(k):
                            self.assertIn(tok, texts)
                        self.assertEqual(texts.count("[PAD]"), q.count("[PAD]") + k.count("[PAD]"))
                        self.assertGreaterEqual(rects, len(q) * len(k))

    def test_csv_equals_trace(self):
        out, m = self.export("--text", "the cat sat on the mat", "--text", "a dog ran", formats="npz,csv,png")
        with np.load(os.path.join(out, "trace.npz")) as z:
            for block, step in weights_blocks(m):
                w = z[step]
                for b in range(w.shape[0]):
                    q, k = axis_tokens(m, step, b)
                    for h in range(w.shape[1]):
                        name = "%s.b%d.head%d.csv" % (block, b, h)
                        with open(os.path.join(out, "heatmaps", name), encoding="utf-8", newline="") as f:
                            rows = list(csv.reader(io.StringIO(f.read())))
                        self.assertEqual(rows[0], [""] + k)
                        self.assertEqual([r[0] for r in rows[1:]], q)
                        np.testing.assert_array_equal(np.array([[float(x) for x in r[1:]] for r in rows[1:]], np.float32),
                                                      w[b, h])

    def test_cross_attention_keys_are_source_tokens(self):
        out, m = self.export("--text", "le chat dort", "--memory-text", "the cat sleeps now", "--heads", "2",
                             "--d-model", "8", formats="svg,png")
        names = sorted(os.listdir(os.path.join(out, "heatmaps")))
        self.assertEqual(names, self.expected_names(m, ("png", "svg")))
        self.assertIn("decoder.layers.0.multihead_attn.b0.head1.svg", names)
        texts, _ = svg_texts(os.path.join(out, "heatmaps", "decoder.layers.0.multihead_attn.b0.head1.svg"))
        for tok in ["le", "chat", "dort", "the", "cat", "sleeps", "now"]:
            self.assertIn(tok, texts)

    def test_no_display_needed(self):
        env = {k: v for k, v in os.environ.items() if k not in ("DISPLAY", "WAYLAND_DISPLAY", "QT_QPA_PLATFORM")}
        env.setdefault("OMP_NUM_THREADS", "2")
        for platform in [None, "xcb"]:
            with self.subTest(QT_QPA_PLATFORM=platform):
                e = dict(env)
                if platform:
                    e["QT_QPA_PLATFORM"] = platform
                out = self.path("nodisplay-%s" % platform)
                proc = subprocess.run([lib.attnlab_bin(), "export", "--out", out, "--format", "png,svg",
                                       "--text", "hello world"], stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                                      env=e, timeout=300)
                self.assertEqual(proc.returncode, 0, proc.stderr.decode("utf-8", "replace"))
                self.assertEqual(proc.stdout, b"")
                self.assertEqual(proc.stderr, b"")  # nothing but what the contract states
                names = os.listdir(os.path.join(out, "heatmaps"))
                self.assertEqual(len(names), 2 * 8)
                read_png(os.path.join(out, "heatmaps", "encoder.layers.0.self_attn.b0.head7.png"))

    def test_failure_leaves_nothing(self):
        out = self.path("out")
        r = run_attnlab(["export", "--out", out, "--format", "png,gif", "--text", "x"])
        self.assertEqual(r.rc, 2, r.describe())
        self.assertFalse(os.path.exists(out))
        self.assertEqual(os.listdir(self.tmp), [])


if __name__ == "__main__":
    lib.main()
