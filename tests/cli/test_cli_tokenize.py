"""attnlab tokenize (docs/cli.md "attnlab tokenize"): a checkpoint folder's own tokenizer on texts.
GPT-2's byte-level BPE and BERT's WordPiece give the pieces and ids of the independent Python
reference (tests/golden/data_subword, gen_subword_golden.py); the chips' spelling of a byte-level
piece; tokenizer_config.json's do_lower_case and --lower-case; refusals name the file or folder."""
import json
import os
import shutil

import attnlab_testlib as lib
from attnlab_testlib import run_attnlab

DATA = os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "golden", "data_subword")


def cases(kind, lower_case=None):
    with open(os.path.join(DATA, "cases.json"), encoding="utf-8") as f:
        return [c for c in json.load(f) if c["tokenizer"] == kind and c.get("lower_case", lower_case) == lower_case]


class Tokenize(lib.TempDirCase):
    def tokenize(self, *args):
        r = run_attnlab(["tokenize", *args])
        self.assertEqual(r.rc, 0, r.describe())
        return json.loads(r.out)

    def test_gpt2_folder_gives_the_reference_pieces(self):
        want = cases("gpt2")
        args = ["--model", os.path.join(DATA, "gpt2")]
        for c in want:
            args += ["--text", c["text"]]
        got = self.tokenize(*args)
        self.assertEqual((got["tokenizer"], got["vocab_size"]), ("byte-level-bpe", 417))
        self.assertNotIn("lower_case", got)
        for c, g in zip(want, got["texts"]):
            self.assertEqual(g["text"], c["text"])
            self.assertEqual([t["piece"] for t in g["tokens"]], c["pieces"])
            self.assertEqual([t["id"] for t in g["tokens"]], c["ids"])
        first = got["texts"][1]["tokens"]  # " The cat sat on the mat."
        self.assertEqual([t["shown"] for t in first[:3]], ["␣", "The", "␣cat"])

    def test_bert_folder_lower_cases_as_its_config_says(self):
        folder = self.path("bert")
        shutil.copytree(os.path.join(DATA, "bert"), folder)
        texts = [c["text"] for c in cases("bert", True)]
        args = ["--model", folder] + [a for t in texts for a in ("--text", t)]
        got = self.tokenize(*args)  # no tokenizer_config.json: uncased, as BertTokenizer's default
        self.assertEqual((got["tokenizer"], got["lower_case"]), ("wordpiece", True))
        for c, g in zip(cases("bert", True), got["texts"]):
            self.assertEqual([t["piece"] for t in g["tokens"]], c["pieces"])
            self.assertEqual([t["id"] for t in g["tokens"]], c["ids"])
            self.assertEqual(g["unknown"], c["pieces"].count("[UNK]"))
        with open(os.path.join(folder, "tokenizer_config.json"), "w") as f:
            json.dump({"do_lower_case": False, "model_max_length": 512}, f)
        got = self.tokenize(*args)
        self.assertFalse(got["lower_case"])
        for c, g in zip(cases("bert", False), got["texts"]):
            self.assertEqual([t["piece"] for t in g["tokens"]], c["pieces"])
        self.assertTrue(self.tokenize(*args, "--lower-case", "yes")["lower_case"])

    def test_text_file(self):
        path = self.path("texts.txt")
        with open(path, "w", encoding="utf-8") as f:
            f.write("\ufeffHello world\n\nsecond line\n")
        got = self.tokenize("--model", os.path.join(DATA, "gpt2"), "--text-file", path)
        self.assertEqual([g["text"] for g in got["texts"]], ["Hello world", "second line"])

    def test_refusals_name_the_problem(self):
        gpt2_half = self.path("half")
        os.mkdir(gpt2_half)
        shutil.copy(os.path.join(DATA, "gpt2", "vocab.json"), gpt2_half)
        empty = self.path("empty")
        os.mkdir(empty)
        fifo_dir = self.path("fifo")
        os.mkdir(fifo_dir)
        os.mkfifo(os.path.join(fifo_dir, "vocab.txt"))
        bad_config = self.path("badcfg")
        shutil.copytree(os.path.join(DATA, "bert"), bad_config)
        with open(os.path.join(bad_config, "tokenizer_config.json"), "w") as f:
            f.write('{"do_lower_case": "yes"}')
        cut_config = self.path("cutcfg")
        shutil.copytree(os.path.join(DATA, "bert"), cut_config)
        with open(os.path.join(cut_config, "tokenizer_config.json"), "w") as f:
            f.write('{"do_lower_case": tru')
        gpt2 = os.path.join(DATA, "gpt2")
        for args, rc, words in [
            (["--text", "x"], 2, "--model"),
            (["--model", gpt2], 2, "--text"),
            (["--model", gpt2, "--text", "x", "--lower-case", "maybe"], 2, "--lower-case"),
            (["--model", gpt2, "--text", "bad\udcff"], 2, "UTF-8"),
            (["--model", self.path("missing"), "--text", "x"], 1, "missing"),
            (["--model", empty, "--text", "x"], 1, "vocab.txt"),
            (["--model", gpt2_half, "--text", "x"], 1, "merges.txt"),
            (["--model", fifo_dir, "--text", "x"], 1, "not a regular file"),
            (["--model", bad_config, "--text", "x"], 1, "do_lower_case"),
            (["--model", cut_config, "--text", "x"], 1, "tokenizer_config.json': is not valid JSON"),
        ]:
            with self.subTest(args=args):
                r = run_attnlab(["tokenize", *args], timeout=30)
                self.assertEqual(r.rc, rc, r.describe())
                self.assertIn(words, r.err)
                self.assertEqual(r.err.count("\n"), 1, r.err)
                self.assertEqual(r.out, "")


if __name__ == "__main__":
    lib.main()
