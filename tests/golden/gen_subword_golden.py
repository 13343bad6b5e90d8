#!/usr/bin/python3
"""Golden tokenizations for tests/test_subword.cpp: GPT-2's byte-level BPE and BERT's WordPiece,
written here in Python from the published algorithms (GPT-2's encoder.py, BERT's
tokenization.py / Hugging Face's BertTokenizer), independently of the C++ code. No checkpoint is
downloaded: the script makes its own small tokenizer files in exactly the published formats.

    /usr/bin/python3 tests/golden/gen_subword_golden.py             # rewrite data_subword/
    /usr/bin/python3 tests/golden/gen_subword_golden.py --out DIR --compare tests/golden/data_subword

Output, data_subword/:
    gpt2/vocab.json, gpt2/merges.txt  a byte-level BPE vocabulary: the 256 byte symbols in
                                      GPT-2's order, then MERGES merges learned from CORPUS (most
                                      frequent pair first, ties by the pair's text), then
                                      <|endoftext|>; merges.txt starts "#version: 0.2".
    bert/vocab.txt                    BERT's layout: [PAD], [unused0], [UNK], [CLS], [SEP], [MASK],
                                      then characters, words and ##continuations.
    cases.json                        [{tokenizer, lower_case?, text, pieces, ids}].

The only library used is unicodedata (Python's Unicode tables). The pattern
's|'t|'re|'ve|'m|'ll|'d| ?\\p{L}+| ?\\p{N}+| ?[^\\s\\p{L}\\p{N}]+|\\s+(?!\\S)|\\s+ is run by hand
(Debian's Python has no `regex` module): at each position the alternatives in order, \\s being
the Unicode White_Space property. The texts avoid characters whose categories changed between
Unicode 14 (this Python) and 15 (utf8proc)."""

import argparse
import json
import os
import sys
import unicodedata

HERE = os.path.dirname(os.path.abspath(__file__))
DEFAULT_OUT = os.path.join(HERE, "data_subword")
MERGES = 160

WHITE_SPACE = set(range(0x09, 0x0E)) | {0x20, 0x85, 0xA0, 0x1680, 0x2028, 0x2029, 0x202F, 0x205F, 0x3000} | \
    set(range(0x2000, 0x200B))

CORPUS = """The cat sat on the mat. The cat's toys aren't here; they're under the mat!
Numbers such as 12345, 3.14 and 2024 appear in text. Don't shout: it's rude, isn't it?
The quick brown fox jumps over the lazy dog. Transformers learn attention over tokens.
小猫坐在垫子上，因为它累了。你好，世界！ Emoji 🙂 and rockets 🚀 are bytes too.
    indented lines   and   double  spaces
tabs\tand\tnewlines\n"""


# ---------------------------------------------------------------------------- GPT-2

def bytes_to_unicode():
    bs = list(range(ord("!"), ord("~") + 1)) + list(range(ord("¡"), ord("¬") + 1)) + \
        list(range(ord("®"), ord("ÿ") + 1))
    cs = bs[:]
    n = 0
    for b in range(256):
        if b not in bs:
            bs.append(b)
            cs.append(256 + n)
            n += 1
    return dict(zip(bs, [chr(c) for c in cs])), bs


def is_space(ch):
    return ord(ch) in WHITE_SPACE


def is_letter(ch):
    return unicodedata.category(ch).startswith("L")


def is_number(ch):
    return unicodedata.category(ch).startswith("N")


def pretokenize(text):
    out, i, n = [], 0, len(text)
    while i < n:
        end = None
        if text[i] == "'":
            for c in ("s", "t", "re", "ve", "m", "ll", "d"):  # the contractions, in the pattern's order
                if text.startswith(c, i + 1):
                    end = i + 1 + len(c)
                    break
        if end is None:
            for cls in (is_letter, is_number, lambda ch: not (is_space(ch) or is_letter(ch) or is_number(ch))):
                j = i + 1 if text[i] == " " and i + 1 < n else i  # " ?"
                if j < n and cls(text[j]):
                    while j < n and cls(text[j]):
                        j += 1
                    end = j
                    break
        if end is None:  # \s+(?!\S), then \s+
            j = i
            while j < n and is_space(text[j]):
                j += 1
            assert j > i, repr(text[i])
            end = j - 1 if (j < n and j - i >= 2) else j
        out.append(text[i:end])
        i = end
    return out


def bpe(word, ranks):
    word = list(word)
    while len(word) > 1:
        pairs = [(ranks.get((a, b)), k) for k, (a, b) in enumerate(zip(word, word[1:])) if (a, b) in ranks]
        if not pairs:
            break
        first, second = word[min(pairs)[1]], word[min(pairs)[1] + 1]
        new, i = [], 0
        while i < len(word):
            if i + 1 < len(word) and word[i] == first and word[i + 1] == second:
                new.append(first + second)
                i += 2
            else:
                new.append(word[i])
                i += 1
        word = new
    return word


def train_bpe(corpus, merges):
    b2u, order = bytes_to_unicode()
    counts = {}
    for pre in pretokenize(corpus):
        key = tuple(b2u[b] for b in pre.encode("utf-8"))
        counts[key] = counts.get(key, 0) + 1
    vocab = [b2u[b] for b in order]
    learned = []
    for _ in range(merges):
        pairs = {}
        for w, c in counts.items():
            for a, b in zip(w, w[1:]):
                pairs[(a, b)] = pairs.get((a, b), 0) + c
        if not pairs:
            break
        best = min(pairs, key=lambda p: (-pairs[p], p))
        learned.append(best)
        vocab.append(best[0] + best[1])
        ranks = {best: 0}
        counts = {tuple(bpe(w, ranks)): c for w, c in counts.items()}
    vocab.append("<|endoftext|>")
    return vocab, learned


def gpt2_encode(text, vocab, merges):
    b2u, _ = bytes_to_unicode()
    ranks = {m: r for r, m in enumerate(merges)}
    index = {p: i for i, p in enumerate(vocab)}
    pieces = []
    parts = text.split("<|endoftext|>")
    for k, part in enumerate(parts):
        for pre in pretokenize(part):
            pieces += bpe([b2u[b] for b in pre.encode("utf-8")], ranks)
        if k + 1 < len(parts):
            pieces.append("<|endoftext|>")
    return pieces, [index.get(p, -1) for p in pieces]


GPT2_TEXTS = [
    "Hello world",
    " The cat sat on the mat.",
    "The cat's toys aren't here; they're under the mat!",
    "Don't SHOUT'S it'll 'd '",
    "numbers 12345 and 3.14, 2024",
    "tabs\tand\nnewlines  double  spaces   ",
    "    indented",
    "emoji 🙂🚀!",
    "小猫坐在垫子上，因为它累了。",
    "<|endoftext|>after the end<|endoftext|>",
    "multiple!!! punctuation?? ...",
    "café naïve résumé",
    "a\u00a0b\u3000c",
    "x 's\r\nend",
    "Ⅻ ½ ²",
]


# ---------------------------------------------------------------------------- BERT

BERT_SPECIAL = ["[PAD]", "[unused0]", "[UNK]", "[CLS]", "[SEP]", "[MASK]"]
BERT_WORDS = (list("!\"#$%&'()*+,-./:;<=>?@[\\]^_`{|}~") + list("abcdefghijklmnopqrstuvwxyz") +
              list("小猫坐在垫子上因为它累了。，") +
              ["the", "cat", "sat", "on", "mat", "play", "##ing", "##ed", "##s", "un", "##aff", "##able",
               "cafe", "naive", "resume", "hello", "world", "The", "Hello", "World", "Cafe", "##e",
               "##a", "##b", "##c", "##x", "##y", "##z", "tab", "here", "##bc", "ab", "café", "soft",
               "##hyphen", "price", "equals", "οδοσ"])


def bert_is_whitespace(ch):
    return ch in " \t\n\r" or unicodedata.category(ch) == "Zs"


def bert_is_control(ch):
    return ch not in "\t\n\r" and unicodedata.category(ch).startswith("C")


def bert_is_punctuation(ch):
    cp = ord(ch)
    return (33 <= cp <= 47) or (58 <= cp <= 64) or (91 <= cp <= 96) or (123 <= cp <= 126) or \
        unicodedata.category(ch).startswith("P")


def bert_is_cjk(cp):
    return any(lo <= cp <= hi for lo, hi in [(0x4E00, 0x9FFF), (0x3400, 0x4DBF), (0x20000, 0x2A6DF),
                                               (0x2A700, 0x2B73F), (0x2B740, 0x2B81F), (0x2B820, 0x2CEAF),
                                               (0xF900, 0xFAFF), (0x2F800, 0x2FA1F)])


def basic_tokenize(text, lower_case):
    cleaned = []
    for ch in text:
        if ord(ch) in (0, 0xFFFD) or bert_is_control(ch):
            continue
        if bert_is_whitespace(ch):
            cleaned.append(" ")
        elif bert_is_cjk(ord(ch)):
            cleaned.append(" " + ch + " ")
        else:
            cleaned.append(ch)
    text = unicodedata.normalize("NFC", "".join(cleaned))
    out = []
    for word in text.split():
        if lower_case:  # per character, as the Rust tokenizers lower-case (no final-sigma rule)
            word = "".join(ch.lower() for ch in word)
            word = "".join(c for c in unicodedata.normalize("NFD", word) if unicodedata.category(c) != "Mn")
        piece = ""
        for ch in word:
            if bert_is_punctuation(ch):
                if piece:
                    out.append(piece)
                out.append(ch)
                piece = ""
            else:
                piece += ch
        if piece:
            out.append(piece)
    return out


def word_pieces(word, index):
    if len(word) > 100:
        return ["[UNK]"]
    out, start = [], 0
    while start < len(word):
        end, found = len(word), None
        while end > start:
            sub = ("##" if start else "") + word[start:end]
            if sub in index:
                found = sub
                break
            end -= 1
        if found is None:
            return ["[UNK]"]
        out.append(found)
        start = end
    return out


def bert_encode(text, vocab, lower_case):
    index = {}
    for i, t in enumerate(vocab):
        index[t] = i
    specials = [s for s in ("[CLS]", "[SEP]", "[MASK]", "[PAD]", "[UNK]") if s in index]
    pieces = ["[CLS]"]
    pos = 0
    while True:  # the earliest special token typed stays whole
        hits = [(text.find(s, pos), s) for s in specials if text.find(s, pos) >= 0]
        if not hits:
            break
        at, which = min(hits)
        for w in basic_tokenize(text[pos:at], lower_case):
            pieces += word_pieces(w, index)
        pieces.append(which)
        pos = at + len(which)
    for w in basic_tokenize(text[pos:], lower_case):
        pieces += word_pieces(w, index)
    pieces.append("[SEP]")
    return pieces, [index[p] for p in pieces]


BERT_TEXTS = [
    "Hello, World!",
    "unaffable playing played plays",
    "Café NAÏVE résumé",
    "小猫坐在垫子上，因为它累了。",
    "the [MASK] sat on the mat",
    "unknownword qqq xyzzy",
    "soft\u00adhyphen and zero\u200bwidth",
    "tab\there\nnew\r\nline",
    "decomposed cafe\u0301",
    "abc" * 40,
    "[CLS][SEP] inside",
    "a\u00a0b\u2028c",
    "price $5+2=7<8^x|y~z`q",
    "ΟΔΟΣ equals",
]


# ---------------------------------------------------------------------------- output

def generate(out_dir):
    os.makedirs(os.path.join(out_dir, "gpt2"), exist_ok=True)
    os.makedirs(os.path.join(out_dir, "bert"), exist_ok=True)
    vocab, merges = train_bpe(CORPUS, MERGES)
    with open(os.path.join(out_dir, "gpt2", "vocab.json"), "w", encoding="utf-8") as f:
        json.dump({p: i for i, p in enumerate(vocab)}, f, ensure_ascii=False)
    with open(os.path.join(out_dir, "gpt2", "merges.txt"), "w", encoding="utf-8", newline="\n") as f:
        f.write("#version: 0.2\n" + "".join(f"{a} {b}\n" for a, b in merges))
    with open(os.path.join(out_dir, "bert", "vocab.txt"), "w", encoding="utf-8", newline="\n") as f:
        f.write("".join(t + "\n" for t in BERT_SPECIAL + BERT_WORDS))
    cases = []
    for text in GPT2_TEXTS:
        pieces, ids = gpt2_encode(text, vocab, merges)
        assert "".join(pretokenize(text.replace("<|endoftext|>", ""))) == text.replace("<|endoftext|>", "")
        cases.append({"tokenizer": "gpt2", "text": text, "pretokens": pretokenize(text), "pieces": pieces, "ids": ids})
    for lower_case in (True, False):
        for text in BERT_TEXTS:
            pieces, ids = bert_encode(text, BERT_SPECIAL + BERT_WORDS, lower_case)
            cases.append({"tokenizer": "bert", "lower_case": lower_case, "text": text, "pieces": pieces, "ids": ids})
    with open(os.path.join(out_dir, "cases.json"), "w", encoding="utf-8") as f:
        json.dump(cases, f, ensure_ascii=False, indent=1)
        f.write("\n")
    print(f"{len(vocab)} BPE pieces, {len(merges)} merges, {len(BERT_SPECIAL + BERT_WORDS)} WordPiece tokens, "
          f"{len(cases)} cases")


def compare(new_dir, ref_dir):
    ok = True
    for name in ("gpt2/vocab.json", "gpt2/merges.txt", "bert/vocab.txt", "cases.json"):
        with open(os.path.join(new_dir, name), "rb") as a, open(os.path.join(ref_dir, name), "rb") as b:
            if a.read() != b.read():
                print("MISMATCH:", name)
                ok = False
    print("regenerated data agree" if ok else "regenerated data differ")
    return ok


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--out", default=DEFAULT_OUT)
    ap.add_argument("--compare", metavar="DIR")
    a = ap.parse_args()
    generate(a.out)
    if a.compare and not compare(a.out, a.compare):
        sys.exit(1)


if __name__ == "__main__":
    main()
