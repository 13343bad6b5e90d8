#!/usr/bin/python3
"""Builds (or takes) the Debian package and checks what a user of Debian 12 gets from it:
declared dependencies, the binary, the .desktop entry, the icon in the usual sizes, AppStream
metainfo, the samples and docs; unpacks it and runs the installed binary's --version.

  check_deb.py --build-dir BUILD    run cpack -G DEB in BUILD into a temporary folder, check it
  check_deb.py --deb FILE [--portable]
      --portable: also require a binary for any x86-64 machine (no AVX-512 / AVX2 instructions,
      i.e. no -march=native), as the `package` preset builds it.
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


def check_portable(binary):
    # Any AVX2/AVX-512 register or instruction means the build assumed this machine's CPU.
    dis = run(["objdump", "-d", "--no-show-raw-insn", binary])
    hits = re.findall(r"%zmm\d+|%ymm\d+|\bvfmadd\w+", dis)
    if hits:
        fail("the binary uses %d AVX/AVX-512 instructions (e.g. %s): not built for any x86-64" % (len(hits), hits[0]))


def main():
    p = argparse.ArgumentParser()
    p.add_argument("--build-dir")
    p.add_argument("--deb")
    p.add_argument("--portable", action="store_true")
    a = p.parse_args()
    with tempfile.TemporaryDirectory() as tmp:
        deb = a.deb or build(a.build_dir, os.path.join(tmp, "out"))
        fields = check_control(deb)
        root = os.path.join(tmp, "root")
        run(["dpkg-deb", "-x", deb, root])
        binary = check_tree(root)
        if a.portable:
            check_portable(binary)
        files = [l.split()[-1] for l in run(["dpkg-deb", "-c", deb]).splitlines()]
        print("check_deb: ok: %s %s, %d files; Depends: %s" % (fields["Package"], fields["Version"], len(files),
                                                               fields["Depends"]))


if __name__ == "__main__":
    main()
