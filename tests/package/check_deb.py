#!/usr/bin/python3
"""Builds (or takes) the Debian package and checks what a user of Debian 12 gets from it:
declared dependencies, the binary, the .desktop entry, the icon in the usual sizes, AppStream
metainfo, the samples and docs; unpacks it and runs the installed binary's --version.

  check_deb.py --build-dir BUILD    run cpack -G DEB in BUILD into a temporary folder, check it
  check_deb.py --deb FILE [--portable --symbols BUILD/app/attnlab]
      --portable: also require a binary for any x86-64 machine (no AVX-512 / AVX2 instructions
      outside the kernels chosen at run time, i.e. no -march=native), as the `package` preset builds it.
"""
import argparse
import configparser
import glob
import os
import re
import shutil
import struct
import subprocess
import sys
import xml.etree.ElementTree as ET
import tempfile

SESSION_MIME = "application/x-attnlab-session"
APP_ID = "org.attnlab.AttentionLab"
ICON_SIZES = [16, 32, 48, 64, 128, 256]


def fail(msg):
    print("check_deb: FAIL: " + msg)
    sys.exit(1)


def run(args, **kw):
    r = subprocess.run(args, capture_output=True, text=True, **kw)
    if r.returncode != 0:
        fail("%s exited %d:\n%s%s" % (" ".join(args), r.returncode, r.stdout, r.stderr))
    return r.stdout


def build(build_dir, out):
    run(["cpack", "-G", "DEB", "-B", out], cwd=build_dir)
    debs = glob.glob(os.path.join(out, "*.deb"))
    if len(debs) != 1:
        fail("expected one .deb in %s, found %s" % (out, debs))
    return debs[0]


def check_control(deb):
    fields = {}
    for line in run(["dpkg-deb", "-f", deb]).splitlines():
        m = re.match(r"^([A-Za-z-]+): (.*)$", line)
        if m:
            fields[m.group(1)] = m.group(2)
    for key in ["Package", "Version", "Architecture", "Depends", "Maintainer", "Description", "Section"]:
        if key not in fields:
            fail("control lacks " + key)
    if fields["Package"] != "attnlab" or fields["Architecture"] != "amd64":
        fail("unexpected package %s / %s" % (fields["Package"], fields["Architecture"]))
    depends = fields["Depends"]
    for lib in ["libqt6widgets6", "libqt6core6", "libqt6gui6", "libqt6charts6", "libqt6svg6", "libzip4",
                "libutf8proc2", "libgomp1", "qt6-qpa-plugins", "libdnnl2", "libopenblas0"]:
        if not re.search(r"(^|, )%s( |,|$)" % re.escape(lib), depends):
            fail("Depends lacks %s: %s" % (lib, depends))
    for rec in ["libvulkan1", "mesa-vulkan-drivers", "fonts-noto-cjk", "qt6-translations-l10n"]:
        if rec not in fields.get("Recommends", ""):
            fail("Recommends lacks " + rec)
    if ";" in fields["Description"]:
        fail("description has list separators: " + fields["Description"])
    return fields


def png_size(path):
    with open(path, "rb") as f:
        head = f.read(24)
    if head[:8] != b"\x89PNG\r\n\x1a\n":
        fail(path + " is not a PNG")
    return struct.unpack(">II", head[16:24])


def check_tree(root):
    usr = os.path.join(root, "usr")
    binary = os.path.join(usr, "bin", "attnlab")
    if not os.access(binary, os.X_OK):
        fail("no executable usr/bin/attnlab")
    desktop = os.path.join(usr, "share", "applications", APP_ID + ".desktop")
    cp = configparser.RawConfigParser()
    cp.optionxform = str
    if not cp.read(desktop, encoding="utf-8"):
        fail("no .desktop entry")
    entry = cp["Desktop Entry"]
    for key, want in [("Type", "Application"), ("Exec", "attnlab %f"), ("Icon", "attnlab"), ("Terminal", "false"),
                      ("MimeType", SESSION_MIME + ";")]:
        if entry.get(key) != want:
            fail(".desktop %s = %r, want %r" % (key, entry.get(key), want))
    if "Education;" not in entry.get("Categories", "") or "Name[zh_CN]" not in entry:
        fail(".desktop lacks the Education category or the Chinese name")
    for size in ICON_SIZES:
        icon = os.path.join(usr, "share", "icons", "hicolor", "%dx%d" % (size, size), "apps", "attnlab.png")
        if not os.path.exists(icon):
            fail("no %dx%d icon" % (size, size))
        if png_size(icon) != (size, size):
            fail("%s is %s, not %dx%d" % (icon, png_size(icon), size, size))
    if not os.path.exists(os.path.join(usr, "share", "icons", "hicolor", "scalable", "apps", "attnlab.svg")):
        fail("no scalable icon")
    mime = os.path.join(usr, "share", "mime", "packages", APP_ID + ".xml")
    if not os.path.exists(mime):
        fail("no shared-mime-info entry for .attnlab sessions")
    types = ET.parse(mime).getroot().findall("{http://www.freedesktop.org/standards/shared-mime-info}mime-type")
    if [t.get("type") for t in types] != [SESSION_MIME] or \
            not any(g.get("pattern") == "*.attnlab" for t in types for g in t.findall(
                "{http://www.freedesktop.org/standards/shared-mime-info}glob")):
        fail("the MIME entry does not declare %s for *.attnlab" % SESSION_MIME)
    metainfo = os.path.join(usr, "share", "metainfo", APP_ID + ".metainfo.xml")
    if not os.path.exists(metainfo):
        fail("no AppStream metainfo")
    if shutil.which("appstreamcli"):
        run(["appstreamcli", "validate", "--no-net", metainfo])
    for rel in ["share/attnlab/sample_inputs/chinese.txt", "share/attnlab/sample_inputs/lessons/03-padding.attnlab",
                "share/doc/attnlab/README.md", "share/doc/attnlab/cli.md", "share/doc/attnlab/guide.zh.md"]:
        if not os.path.exists(os.path.join(usr, rel)):
            fail("no usr/" + rel)
    out = run([binary, "--version"]).strip()
    if not re.fullmatch(r"attnlab \d+\.\d+\.\d+", out):
        fail("--version printed %r" % out)
    return binary


# The kernels compiled per vector unit and chosen at run time by __builtin_cpu_supports
# (core/tensor/row_kernels.cpp, core/backend/cpu_peak.cpp): the only functions that may hold
# AVX2/AVX-512 code in a portable build. Their names end in the unit.
DISPATCHED = re.compile(r"_(avx2|avx512)E|_(avx2|avx512)\b|fma_avx(2|512)")


def same_text(stripped, unstripped, tmp):
    # Stripping removes symbols, never code: the two .text sections must be byte for byte equal.
    out = []
    for i, f in enumerate([stripped, unstripped]):
        dump = os.path.join(tmp, "text%d" % i)
        run(["objcopy", "--dump-section", ".text=" + dump, f, os.path.join(tmp, "scratch%d" % i)])
        with open(dump, "rb") as fh:
            out.append(fh.read())
    if out[0] != out[1]:
        fail("--symbols %s is not the packaged binary (their code differs)" % unstripped)


def check_portable(binary):
    # Any AVX2/AVX-512 register or instruction outside the dispatched kernels means the build
    # assumed this machine's CPU. binary must have its symbols (the build tree's, checked equal
    # to the packaged one by same_text): the functions are told apart by name.
    dis = run(["objdump", "-d", "--no-show-raw-insn", binary])
    hits, dispatched, fn = [], set(), ""
    for line in dis.splitlines():
        m = re.match(r"^[0-9a-f]+ <(.+)>:$", line)
        if m:
            fn = m.group(1)
            continue
        if re.search(r"%zmm\d+|%ymm\d+|\bvfmadd\w+", line):
            if DISPATCHED.search(fn):
                dispatched.add(fn)
            else:
                hits.append((fn, line.strip()))
    if hits:
        fail("the binary uses %d AVX/AVX-512 instructions outside the run-time-dispatched kernels (e.g. %s in %s):"
             " not built for any x86-64" % (len(hits), hits[0][1], hits[0][0]))
    if not dispatched:
        fail("no AVX2/AVX-512 kernel chosen at run time found (row_kernels, cpu_peak): the package would run SSE2 only")


def main():
    p = argparse.ArgumentParser()
    p.add_argument("--build-dir")
    p.add_argument("--deb")
    p.add_argument("--portable", action="store_true")
    p.add_argument("--symbols", help="the packaged binary as built, with its symbols (for --portable)")
    a = p.parse_args()
    if a.portable and not a.symbols:
        fail("--portable needs --symbols BUILD/app/attnlab: the packaged binary is stripped")
    with tempfile.TemporaryDirectory() as tmp:
        deb = a.deb or build(a.build_dir, os.path.join(tmp, "out"))
        fields = check_control(deb)
        root = os.path.join(tmp, "root")
        run(["dpkg-deb", "-x", deb, root])
        binary = check_tree(root)
        if a.portable:
            same_text(binary, a.symbols, tmp)
            check_portable(a.symbols)
        files = [l.split()[-1] for l in run(["dpkg-deb", "-c", deb]).splitlines()]
        print("check_deb: ok: %s %s, %d files; Depends: %s" % (fields["Package"], fields["Version"], len(files),
                                                               fields["Depends"]))


if __name__ == "__main__":
    main()
