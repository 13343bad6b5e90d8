#!/usr/bin/python3
"""Translation completeness (ctest `translations`):
  1. lupdate over the sources finds exactly the strings of the committed .ts: a new tr() string
     that was never added (run the `update_translations` target), or a stale one, fails;
  2. every message of the .ts is translated (none unfinished, empty or vanished);
  3. each translation keeps its source's placeholders (%1…, %n), accelerator letter, line breaks
     and HTML tags;
  4. no user-visible English literal is handed to a widget without tr() in ui/ (setText, setToolTip,
     addAction, QLabel(…), …); a line may opt out with a `// not translated:` comment saying why;
  5. no English prose of ours reaches core's messages outside the catalogue (core/text/messages/):
     not as verbatim("…") or maths("…") text, not as a literal argument of a catalogue message.
The widget test test_language checks the running window as well."""
import argparse
import collections
import pathlib
import re
import shutil
import subprocess
import sys
import tempfile
import xml.etree.ElementTree as ET

PLACEHOLDER = re.compile(r"%(\d|n)")
TAG = re.compile(r"<[^>]+>")
ACCEL = re.compile(r"&([A-Za-z])")
SETTERS = re.compile(
    r"\b(setText|setToolTip|setWindowTitle|setPlaceholderText|setAccessibleName|setStatusTip|setWhatsThis|"
    r"addItem|addTab|addAction|addMenu|setTitle|setLabelText|QLabel|QPushButton|QCheckBox|QRadioButton|QGroupBox|"
    r"QAction|setTabText|setHeaderLabels?)\(\s*(QStringLiteral\(|QLatin1String\(|QString\()?\"([^\"]*)\"")
PROSE = re.compile(r"[A-Za-z]{2,}\s+[A-Za-z]{2,}")


def messages(path):
    for ctx in ET.parse(path).getroot().findall("context"):
        for m in ctx.findall("message"):
            yield ctx.find("name").text, m


def accelerator(text):
    found = [c for c in ACCEL.findall(text.replace("&&", "")) if not re.match(r"&(amp|lt|gt|quot|apos|nbsp);", "&" + c)]
    return [c.upper() for c in found]


def translation_text(m):
    tr = m.find("translation")
    forms = tr.findall("numerusform")
    return [f.text or "" for f in forms] if forms else [tr.text or ""]


def check_messages(ts):
    problems = []
    for ctx, m in messages(ts):
        src = m.find("source").text or ""
        kind = m.find("translation").get("type")
        where = f"{ctx}: {src!r}"
        if kind in ("unfinished", "vanished", "obsolete"):
            problems.append(f"{where} is {kind}")
            continue
        for text in translation_text(m):
            if not text.strip() and src.strip():
                problems.append(f"{where} has an empty translation")
            if sorted(PLACEHOLDER.findall(src)) != sorted(PLACEHOLDER.findall(text)):
                problems.append(f"{where}: placeholders differ in {text!r}")
            if accelerator(src) != accelerator(text):
                problems.append(f"{where}: accelerator differs in {text!r}")
            if src.count("\n") != text.count("\n"):
                problems.append(f"{where}: line breaks differ in {text!r}")
            if sorted(TAG.findall(src)) != sorted(TAG.findall(text)):
                problems.append(f"{where}: HTML tags differ in {text!r}")
    return problems


def check_sources_match(lupdate, source_dir, ts):
    with tempfile.TemporaryDirectory() as tmp:
        fresh = pathlib.Path(tmp) / ts.name
        shutil.copy(ts, fresh)
        dirs = [str(source_dir / d) for d in ("ui", "app", "core/text/messages")]
        subprocess.run([lupdate, *dirs, "-ts", str(fresh), "-no-obsolete", "-locations", "none", "-silent"],
                       check=True, capture_output=True)
        have = collections.Counter((c, m.find("source").text) for c, m in messages(ts))
        want = collections.Counter((c, m.find("source").text) for c, m in messages(fresh))
    problems = [f"{c}: {s!r} is in the sources but not in {ts.name} (build the update_translations target)"
                for (c, s) in want - have]
    problems += [f"{c}: {s!r} is in {ts.name} but no longer in the sources (build update_translations)"
                 for (c, s) in have - want]
    return problems


def check_literals(source_dir):
    problems = []
    for path in sorted((source_dir / "ui").rglob("*.cpp")):
        for n, line in enumerate(path.read_text(encoding="utf-8").splitlines(), 1):
            if "// not translated:" in line:
                continue
            for m in SETTERS.finditer(line):
                if PROSE.search(m.group(3)):
                    problems.append(f"{path.name}:{n}: {m.group(3)!r} reaches a widget without tr()")
    return problems


# Core's words reach a person only as catalogue messages (core/text/message.h): an error cannot be
# made from a string (the compiler refuses it), and verbatim() is for names and other programs'
# words — English prose of ours in it, or in a message's argument, would never be translated.
VERBATIM = re.compile(r'\b(?:verbatim|maths)\(\s*"([^"]*)"')
MESSAGE_ARG = re.compile(r'\bText\(Msg::\w+((?:[^;()]|\([^;()]*\))*)\)')
LITERAL = re.compile(r'"((?:[^"\\]|\\.)*)"')
OPTION = re.compile(r"--[a-z][a-z0-9-]*")  # "--backend vulkan" names an option and its value


def prose(literal):
    return PROSE.search(OPTION.sub(" ", literal))


def check_catalogue_literals(source_dir):
    problems = []
    files = [p for d in ("core", "app", "ui") for p in sorted((source_dir / d).rglob("*")) if p.suffix in (".cpp", ".h")]
    for path in files:
        if "messages" in path.parts:
            continue  # the catalogue itself
        for n, line in enumerate(path.read_text(encoding="utf-8").splitlines(), 1):
            if "// not translated:" in line:
                continue
            for m in VERBATIM.finditer(line):
                if prose(m.group(1)):
                    problems.append(f"{path.relative_to(source_dir)}:{n}: verbatim({m.group(1)!r}) is English prose: "
                                    "make it a catalogue message (core/text/messages/)")
            for m in MESSAGE_ARG.finditer(line):
                for lit in LITERAL.findall(m.group(1)):
                    if prose(lit):
                        problems.append(f"{path.relative_to(source_dir)}:{n}: {lit!r} is English prose passed as a "
                                        "message argument: put it in the template, or make it a message of its own")
    return problems


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--lupdate", required=True)
    ap.add_argument("--source-dir", required=True, type=pathlib.Path)
    args = ap.parse_args()
    ts_files = sorted((args.source_dir / "resources" / "translations").glob("*.ts"))
    if not ts_files:
        print("no .ts files in resources/translations")
        return 1
    problems = check_literals(args.source_dir) + check_catalogue_literals(args.source_dir)
    for ts in ts_files:
        problems += check_messages(ts) + check_sources_match(args.lupdate, args.source_dir, ts)
    for p in problems:
        print(p)
    total = sum(1 for ts in ts_files for _ in messages(ts))
    print(f"{total} messages in {len(ts_files)} file(s); {len(problems)} problem(s)")
    return 1 if problems else 0


if __name__ == "__main__":
    sys.exit(main())
