#!/usr/bin/python3
"""The folders of core/ and ui/ and the direction of their includes (ctest `architecture`).

core/ is layered: a folder may include its own headers and those of folders below it, never
one above or beside it (docs/ARCHITECTURE.md draws the same order). ui/ sits on top of core/ and
core/ never includes ui/ or Qt. Every project include is written from the folder root
("model/config.h"), so a header's path says where it lives. Also: no source file is left at
core/'s top, at most three at ui/'s, and each folder has a README.md saying what lives there.
"""
import argparse
import pathlib
import re
import sys

# Bottom to top. Folders of the same rank are peers: neither includes the other.
CORE_RANKS = {
    "text": 0,        # errors and the tokenizer
    "tensor": 1,      # Tensor, element-wise ops, RNG
    "backend": 2,     # CPU/Vulkan kernels, tiled attention (backend/vulkan inside)
    "model": 3,       # configuration, weights, the trace a run records
    "variants": 4,    # the attention variants beside a block
    "analysis": 4,    # statistics over attention weights
    "forward": 5,     # the forward pass: attention, layers, the model, memory estimate
    "backward": 6,    # the backward pass over a forward trace: each op's gradient, the losses
    "explain": 7,     # explanations over a traced run: rollout, flow, gradient methods, token ablation
    "io": 8,          # files, bundles, sessions, safetensors, npz
    "training": 9,    # the training lab: tasks, optimisers, head scores, the trainer
    "exercises": 9,   # the "find the bug" and shape exercises
    "subword": 9,     # pretrained models' tokenizers: GPT-2's byte-level BPE, BERT's WordPiece
    "pretrained": 10,  # Hugging Face checkpoint folders: config.json, safetensors shards, GPT-2's layout
}
# ui/: words sit below every other ui folder (anything may show a translated string).
UI_BOTTOM = {"words"}
INCLUDE = re.compile(r'^\s*#\s*include\s+"([^"]+)"', re.M)
GENERATED = re.compile(r"(_py\.h|shipped_exercises\.h|shipped_models_data\.h|\.spv\.inc)$")
SOURCES = ("*.h", "*.cpp")


def sources(folder):
    for pattern in SOURCES:
        yield from sorted(folder.rglob(pattern))


def folder_of(root, path):
    rel = path.relative_to(root)
    return rel.parts[0] if len(rel.parts) > 1 else ""


def check_core(src):
    problems = []
    core = src / "core"
    for path in sources(core):
        here = folder_of(core, path)
        rel = path.relative_to(src)
        if not here:
            problems.append(f"{rel}: a source file at core/'s top; put it in the folder of its concern")
            continue
        if here not in CORE_RANKS:
            problems.append(f"{rel}: folder core/{here} is not in the layer order of {pathlib.Path(__file__).name}")
            continue
        for inc in INCLUDE.findall(path.read_text(encoding="utf-8")):
            if GENERATED.search(inc):
                continue
            if not (core / inc).is_file():
                problems.append(f"{rel}: #include \"{inc}\" is not a path from core/ (write \"folder/file.h\")")
                continue
            there = inc.split("/")[0]
            if there != here and CORE_RANKS.get(there, 99) >= CORE_RANKS[here]:
                problems.append(f"{rel}: core/{here} (rank {CORE_RANKS[here]}) includes {inc} of core/{there} "
                                f"(rank {CORE_RANKS.get(there)}): only folders below may be included")
        text = path.read_text(encoding="utf-8")
        if re.search(r"#\s*include\s*<Q", text):
            problems.append(f"{rel}: core includes Qt")
    return problems


def check_ui(src):
    problems = []
    ui, core = src / "ui", src / "core"
    top = [p for p in ui.glob("*.cpp")]
    if len(top) > 3:
        problems.append(f"ui/ has {len(top)} .cpp files at its top (at most 3): {', '.join(p.name for p in top)}")
    for path in sources(ui):
        here = folder_of(ui, path)
        rel = path.relative_to(src)
        for inc in INCLUDE.findall(path.read_text(encoding="utf-8")):
            if (ui / inc).is_file():
                there = inc.split("/")[0]
                if here in UI_BOTTOM and there not in UI_BOTTOM:
                    problems.append(f"{rel}: ui/{here} is below the other ui folders, yet includes {inc}")
            elif not (core / inc).is_file() and not path.with_name(inc).is_file():
                problems.append(f"{rel}: #include \"{inc}\" is neither a path from ui/ nor from core/")
    return problems


def check_readmes(src):
    problems = []
    for top in ("core", "ui"):
        for d in sorted(p for p in (src / top).iterdir() if p.is_dir()):
            if any(d.rglob("*.cpp")) or any(d.rglob("*.h")):
                if not (d / "README.md").is_file():
                    problems.append(f"{d.relative_to(src)}: no README.md saying what lives here")
    return problems


def self_test():
    """The checker itself: a made-up tree with one of each fault must give exactly those faults."""
    import tempfile
    with tempfile.TemporaryDirectory() as tmp:
        t = pathlib.Path(tmp)
        files = {
            "core/tensor/tensor.h": '#include "model/config.h"\n',  # upward: a fault
            "core/model/config.h": '#include "tensor/tensor.h"\n',  # downward: fine
            "core/model/weights.h": '#include "config.h"\n',        # not written from the root
            "core/io/files.h": "#include <QString>\n",              # Qt in core
            "core/loose.cpp": "",                                    # at core's top
            "ui/words/text.h": '#include "views/view.h"\n',         # words above the views
            "ui/views/view.h": '#include "words/text.h"\n#include "model/config.h"\n',
        }
        for name, text in files.items():
            (t / name).parent.mkdir(parents=True, exist_ok=True)
            (t / name).write_text(text)
        for i in range(4):
            (t / f"ui/top{i}.cpp").write_text("")
        for d in ("core/tensor", "core/model", "core/io", "ui/words", "ui/views"):
            (t / d / "README.md").write_text("x")
        found = check_core(t) + check_ui(t) + check_readmes(t)
        expected = ["tensor/tensor.h: core/tensor", "weights.h: #include \"config.h\"", "files.h: core includes Qt",
                    "loose.cpp: a source file", "at its top", "ui/words is below"]
        missing = [e for e in expected if not any(e in f for f in found)]
        if missing or len(found) != len(expected):
            print("self-test failed: expected", expected, "got", found)
            return False
    return True


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("source_dir", type=pathlib.Path)
    args = ap.parse_args()
    if not self_test():
        return 1
    problems = check_core(args.source_dir) + check_ui(args.source_dir) + check_readmes(args.source_dir)
    for p in problems:
        print(p)
    print(f"architecture: {len(problems)} problem(s)")
    return 1 if problems else 0


if __name__ == "__main__":
    sys.exit(main())
