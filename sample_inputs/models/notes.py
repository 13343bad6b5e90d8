"""The notes (English and Chinese) and the model cards train.py writes, from the measured numbers."""
import json

import samplelib as L

# The sentences about one head: {who} names the head, {v} is its score, {b} the uniform chance level.
SORT_EN = {
    "target_digit": "{who} puts {v:.2f} of a query's weight at slot i on the position(s) holding the i-th "
                    "smallest digit (uniform attention would put {b:.2f} there): it fetches the very digit that "
                    "belongs in that slot.",
    "smaller_digits": "{who} puts {v:.2f} of its weight on digits smaller than the query's own (uniform: {b:.2f}): "
                      "counting them tells each digit its rank.",
    "same_digit": "{who} puts {v:.2f} of its weight on positions holding the same digit as the query "
                  "(uniform: {b:.2f}), which tells a digit how many copies of it there are.",
    "self": "{who} keeps {v:.2f} of its weight on the query's own position (uniform: {b:.2f}).",
}
SORT_ZH = {
    "target_digit": "{who}把第 i 个位置的查询的 {v:.2f} 的权重放在存有第 i 小数字的位置上（均匀注意力只有 {b:.2f}），"
                    "也就是直接取来这个位置应当输出的数字。",
    "smaller_digits": "{who}把 {v:.2f} 的权重放在比查询自身更小的数字上（均匀注意力为 {b:.2f}）：数一数这些数字，就知道自己排第几。",
    "same_digit": "{who}把 {v:.2f} 的权重放在与查询数字相同的位置上（均匀注意力为 {b:.2f}），由此得知这个数字出现了几次。",
    "self": "{who}把 {v:.2f} 的权重留在查询自己的位置上（均匀注意力为 {b:.2f}）。",
}
LM_EN = {
    "previous": "{who} puts {v:.2f} of its weight on the previous {unit} (uniform causal attention: {b:.2f}), "
                "handing each position the {unit} just before it, the strongest single clue to what comes next.",
    "self": "{who} keeps {v:.2f} of its weight on the {unit}'s own position (uniform: {b:.2f}), so the current "
            "{unit} dominates what that position passes on.",
    "first": "{who} parks {v:.2f} of its weight on the first {unit} (uniform: {b:.2f}): a resting place for when "
             "nothing earlier matters, since the softmax weights must add up to 1.",
    "same_token": "{who} puts {v:.2f} of its weight on earlier copies of the current {unit} where there are any "
                  "(uniform: {b:.2f}), so it notices repetitions.",
    "punctuation": "{who} puts {v:.2f} of its weight on punctuation marks (uniform: {b:.2f}), keeping track of "
                   "where clauses and sentences break.",
}
LM_ZH = {
    "previous": "{who}把 {v:.2f} 的权重放在前一个{unit}上（均匀的因果注意力只有 {b:.2f}），把紧挨着的前一个{unit}交给每个位置，"
                "这是预测下一个{unit}最有用的线索。",
    "self": "{who}把 {v:.2f} 的权重留在当前{unit}自己的位置上（均匀注意力为 {b:.2f}），让当前的{unit}主导这个位置的输出。",
    "first": "{who}把 {v:.2f} 的权重停在第一个{unit}上（均匀注意力为 {b:.2f}）：前文没有相关内容时权重也得有个去处，"
             "因为 softmax 的权重之和必须为 1。",
    "same_token": "{who}在前文出现过当前{unit}时把 {v:.2f} 的权重放在这些重复的{unit}上（均匀注意力为 {b:.2f}），从而注意到重复。",
    "punctuation": "{who}把 {v:.2f} 的权重放在标点符号上（均匀注意力为 {b:.2f}），以此记住分句和句子在哪里断开。",
}


COLUMNS = {"previous": "key i − 1", "self": "key i (the query's own position)", "first": "key 0",
           "same_token": "earlier keys holding the query's token", "punctuation": "punctuation/symbol keys",
           "target_digit": "keys holding the i-th smallest digit (query at slot i)",
           "same_digit": "keys holding the query's own digit", "smaller_digits": "keys holding a smaller digit",
           "off_uniform": "½ Σ |w − uniform| over the keys the query may see (0 = an even spread, not a weight)",
           "distance": "Σ w · (i − j), how many tokens back the head looks on average (not a weight)"}


def who(l, h, first):
    """A head by layer and head index, both from 0 as the window labels them ("Layer 0", "Head 0")."""
    en = f"Look at layer {l}, head {h}: it" if first else f"Layer {l}, head {h}"
    zh = f"最值得看的是层 {l} 的头 {h}：它" if first else f"层 {l} 的头 {h}"
    return en, zh


def pick_heads(scores, baseline, patterns, must_first=None, most=3):
    """For each pattern its strongest head; keep those well above chance (score ≥ 1.5 × chance and
    ≥ 0.2), strongest excess over chance first, one sentence per head, at most `most`."""
    best = []
    for k, p in enumerate(patterns):
        if p in ("off_uniform", "distance"):
            continue
        flat = scores[:, :, k]
        l, h = divmod(int(flat.argmax()), flat.shape[1])
        v, b = float(flat[l, h]), float(baseline[k])
        best.append({"pattern": p, "layer": l, "head": h, "score": round(v, 4), "uniform": round(b, 4),
                     "excess": v - b, "strong": v >= 0.2 and v >= 1.5 * b})
    chosen, seen = [], set()
    order = sorted(best, key=lambda r: (r["pattern"] != must_first, -r["excess"]))
    for r in order:
        if (r["strong"] or not chosen) and (r["layer"], r["head"]) not in seen and len(chosen) < most:
            chosen.append(r)
            seen.add((r["layer"], r["head"]))
    for r in chosen:
        r.pop("strong")
        r["excess"] = round(r["excess"], 4)
    return chosen


def head_sentences(chosen, en_t, zh_t, **kw):
    en, zh = [], []
    for i, r in enumerate(chosen):
        w_en, w_zh = who(r["layer"], r["head"], i == 0)
        if i > 0:
            w_en = w_en[0].upper() + w_en[1:]
        en.append(en_t[r["pattern"]].format(who=w_en, v=r["score"], b=r["uniform"], **kw))
        zh.append(zh_t[r["pattern"]].format(who=w_zh, v=r["score"], b=r["uniform"], **kw))
    return en, zh


def uniform_layers(scores, patterns, limit):
    """Layers whose heads all stay within `limit` of an even spread: → [(layer from 0, lo, hi)]."""
    k = patterns.index("off_uniform")
    return [(l, float(scores[l, :, k].min()), float(scores[l, :, k].max()))
            for l in range(scores.shape[0]) if scores[l, :, k].max() < limit]


def sort_notes(cfg, metrics, scores, baseline):
    chosen = pick_heads(scores, baseline, L.SORT_PATTERNS, must_first="target_digit")
    en, zh = head_sentences(chosen, SORT_EN, SORT_ZH)
    for l, lo, hi in uniform_layers(scores, L.SORT_PATTERNS, 0.1)[:1]:
        en.append(f"Layer {l}'s heads stay close to an even spread (they move only {lo:.2f}–{hi:.2f} of their weight "
                  "away from uniform): averaging over all digits hands every position the same summary, how often "
                  "each digit occurs, and the answer is worked out from these counts.")
        zh.append(f"层 {l} 的各个头都接近平均分配（与均匀分布只差 {lo:.2f}–{hi:.2f} 的权重）：对全部数字取平均，"
                  "相当于告诉每个位置每个数字各出现了几次，答案就从这些计数中算出。")
    seq, tok = metrics["sequence_accuracy"], metrics["token_accuracy"]
    en = [f"Type 1 to 10 digits separated by spaces; at position i the model outputs the i-th smallest digit, so "
          f"its predictions read left to right are the sorted list (on held-out sequences {seq:.1%} come out "
          f"entirely right, {tok:.1%} of single digits)."] + en + [
          "Only the padding mask is used: every slot may look at every digit, but not at [PAD]."]
    zh = [f"输入 1 到 10 个用空格分隔的数字；模型在第 i 个位置输出第 i 小的数字，从左到右读出的预测就是排好序的序列"
          f"（留出数据上整串全对 {seq:.1%}，单个数字正确 {tok:.1%}）。"] + zh + [
          "这里只用填充掩码：每个位置都能看到全部数字，但看不到 [PAD]。"]
    return " ".join(en), "".join(zh), chosen


def lm_notes(cfg, metrics, scores, baseline, favourites):
    chosen = pick_heads(scores, baseline, L.LM_PATTERNS, must_first="previous", most=2)
    unit, unit_zh = cfg["unit"], cfg["unit_zh"]
    en, zh = head_sentences(chosen, LM_EN, {k: v.replace("{unit}", unit_zh) for k, v in LM_ZH.items()}, unit=unit)
    # the head that singles out particular tokens most (its top three against an even spread)
    seen = {(r["layer"], r["head"]) for r in chosen}
    cands = [(sum(v for _, v in favourites[l][h][:3]) / 3, l, h) for l in range(len(favourites))
             for h in range(len(favourites[0])) if (l, h) not in seen and len(favourites[l][h]) >= 3]
    if cands:
        mean, l, h = max(cands)
        fav = favourites[l][h][:3]
        q = "、".join(f"“{t}”" for t, _ in fav)
        en.append(f"Layer {l}, head {h} picks out particular {unit}s wherever they stand: it gives "
                  + ", ".join(f"'{t}'" for t, _ in fav[:2]) + f" and '{fav[2][0]}' {fav[2][1]:.1f}–{fav[0][1]:.1f} "
                  "times the weight an even spread would.")
        zh.append(f"层 {l} 的头 {h} 挑选特定的{unit_zh}，不管它们在哪里：{q}得到的权重是平均分配时的 "
                  f"{fav[2][1]:.1f}–{fav[0][1]:.1f} 倍。")
        chosen = chosen + [{"pattern": "favourite_keys", "layer": l, "head": h, "keys": fav}]
    k = L.LM_PATTERNS.index("distance")
    dist = [float(scores[l, :, k].mean()) for l in range(scores.shape[0])]
    if len(dist) > 1 and dist[-1] > 1.2 * dist[0]:
        en.append(f"Layer {len(dist) - 1} looks further back than layer 0 (on average {dist[-1]:.1f} against "
                  f"{dist[0]:.1f} {unit}s; uniform: {baseline[k]:.1f}): it works on what layer 0 has already "
                  "gathered next to each position.")
        zh.append(f"层 {len(dist) - 1} 比层 0 看得更远（平均往回 {dist[-1]:.1f} 个{unit_zh}，层 0 为 {dist[0]:.1f}，"
                  f"均匀分配为 {baseline[k]:.1f}）：它处理的是层 0 已经汇集到各个位置上的信息。")
    for l, lo, hi in uniform_layers(scores, L.LM_PATTERNS, 0.15)[:1]:
        en.append(f"Layer {l}'s heads spread their weight almost evenly over the context (only {lo:.2f}–{hi:.2f} of "
                  f"it away from uniform): an average of the {unit}s so far, saying what the sentence is about "
                  "rather than where things are.")
        zh.append(f"层 {l} 的各个头几乎平均地看待前文（与均匀分布只差 {lo:.2f}–{hi:.2f} 的权重）：相当于对目前为止的"
                  f"{unit_zh}取平均，表示句子在讲什么，而不是什么在哪里。")
    en, zh = en[:4], zh[:4]  # at most six sentences with the two below
    english = cfg["name"].startswith("english")
    lang, lang_zh, pkg = ("English", "英文", "fortunes") if english else ("Chinese", "中文", "fortunes-zh")
    manpkg = cfg["manual_package"]
    m = metrics
    en = [f"A {cfg['layers']}-layer, {cfg['heads']}-head causal model that predicts the next {unit} of {lang} "
          f"fortune texts and manual pages (Debian's {pkg} and {manpkg} packages); on held-out sentences its first "
          f"guess is right "
          f"{m['top1_accuracy']:.0%} of the time and the right {unit} is among its top 5 {m['top5_accuracy']:.0%} "
          f"of the time (perplexity {m['perplexity']:.0f}, against {m['unigram_perplexity']:.0f} for {unit} "
          f"frequencies alone)."] + en + [
          f"The causal mask keeps each position from seeing the {unit}s after it; [UNK] stands for the "
          f"{m['unk_target_share']:.0%} of held-out {unit}s outside its {cfg['vocab_size']}-entry vocabulary."]
    zh = [f"一个 {cfg['layers']} 层、{cfg['heads']} 个头的因果模型，预测{lang_zh}格言和手册页（Debian 的 {pkg} 与 {manpkg} "
          f"软件包）中的下一个{unit_zh}；在留出的句子上，它的首选猜对 {m['top1_accuracy']:.0%}，正确答案在前五名中的比例为 "
          f"{m['top5_accuracy']:.0%}（困惑度 {m['perplexity']:.0f}，只按{unit_zh}频猜测时为 "
          f"{m['unigram_perplexity']:.0f}）。"] + zh + [
          f"因果掩码让每个位置看不到后面的{unit_zh}；[UNK] 代表留出数据中 {m['unk_target_share']:.0%} "
          f"不在 {cfg['vocab_size']} 项词表里的{unit_zh}。"]
    return " ".join(en), "".join(zh), chosen


def _recipe_rows(cfg, steps, train_s, smoke):
    task = {"sort-digits": "sort", "english-next-word": "english", "chinese-next-char": "chinese"}[cfg["name"]]
    cmd = f"/usr/bin/python3 sample_inputs/models/train.py --task {task}" + (
        " --smoke --out DIR" if smoke else f" --steps {steps}" if steps != cfg["steps"] else "")
    rows = [("layers / d_model / heads / d_ff", f"{cfg['layers']} / {cfg['d_model']} / {cfg['heads']} / {cfg['d_ff']}"),
            ("norm / activation / LayerNorm eps", f"{cfg['norm']} / relu / 1e-05"),
            ("positions", "sinusoidal (float64, then float32), added to E[ids], no embedding scaling"),
            *([("embedding initialised", f"N(0, {cfg['embedding_std']}²), [PAD] row zero")]
              if cfg.get("embedding_std") else []),  # else nn.Embedding's N(0, 1)
            ("dropout while training", str(cfg["dropout"])),
            ("steps / batch", f"{steps} / {cfg['batch']} sequences"),
            ("optimiser", f"AdamW, lr {cfg['lr']}, betas (0.9, 0.98), weight decay {cfg['weight_decay']}, "
                          "gradient clipped to norm 1.0"),
            ("lr schedule", f"linear warm-up over {min(cfg['warmup'], max(1, steps // 5))} steps, then cosine to 0.1 × lr"),
            ("seed", f"{cfg['seed']} (torch.manual_seed before building the model; batches from "
                     f"torch.Generator seeded {cfg['seed'] if cfg['name'] == 'sort-digits' else cfg['seed'] + 1})"),
            ("threads", "torch.set_num_threads(1), deterministic algorithms"),
            ("training time", f"{train_s:.0f} s on one CPU thread" + (" (smoke run)" if smoke else "")),
            ("weights stored as", cfg["dtype"] + (" (every reference number below uses the F16-rounded weights)"
                                                  if cfg["dtype"] == "F16" else "")),
            ("command", f"`{cmd}`")]
    return "\n".join(["| | |", "|---|---|"] + [f"| {a} | {b} |" for a, b in rows])


def write_card(cfg, metrics, scores, baseline, patterns, note, note_zh, chosen, train_s, steps, smoke, corpus,
               favourites=None):
    name = cfg["name"]
    out = [f"# {cfg['title']} · {cfg['title_zh']} — `{name}.safetensors`", ""]
    if smoke:
        out += ["**Smoke run: a few steps on a slice of the data, not the shipped model.**", ""]
    if corpus is None:
        out += ["## Task", "",
                "Per-position sorting, encoder only, mask `padding`. The input is 1–10 digits separated by "
                "spaces (`3 1 4 1 5`); the tokenizer makes each digit a token, vocabulary `[PAD]`, `[UNK]`, "
                "`0` … `9` (digit d has id d + 2). The logits at position i (over the same 12 entries) predict "
                "the i-th smallest digit: the targets are the sorted sequence, position by position.", "",
                "## Data", "",
                "Generated, no corpus. Training: each batch draws lengths `torch.randint(1, 11)` and digits "
                "`torch.randint(0, 10)` from a `torch.Generator` seeded with the training seed; positions past "
                "the length are [PAD] and their targets are ignored.", "",
                f"Held-out set ({metrics['held_out_sequences']} sequences): `random.Random({cfg['held_out_seed']})`; "
                "for each sequence `n = rng.randint(1, 10)` and then `n` digits `rng.randrange(10)` — uniform "
                "length 1..10, uniform digits, independent of the training stream (a C++ test can draw an "
                "equivalent set with its own RNG; at these accuracies any uniform draw of a few thousand "
                "sequences should land within about a percent). Short sequences cannot be new: there are only "
                "10ⁿ sequences of length n, so those of length ≤ 4 all occur in training too; from length 6 on "
                "(10⁶ … 10¹⁰ possibilities against 256,000 training sequences in all) held-out "
                "sequences are almost all unseen — hence the per-length accuracies below.", ""]
    else:
        english = name.startswith("english")
        pkg = "`fortunes` (or `fortunes-min`)" if english else "`fortunes-zh`"
        out += ["## Task", "",
                f"Next-token language model, mask `padding+causal`: the logits at position i predict the token "
                f"at i + 1. {'Word' if english else 'Character'}-level: Attention Lab's tokenizer (NFC; "
                "punctuation, symbols and CJK characters are tokens of their own; runs of letters/digits are "
                f"one token; case kept). Vocabulary: `[PAD]`, `[UNK]` + the {cfg['vocab_size']} most frequent "
                "training tokens (ties by string); other tokens map to `[UNK]` (id 1). The loss ignores [PAD] "
                "targets only ([UNK] is predicted like any token). There is no end-of-sentence token: a sentence's "
                "last position has no target in training, so what the model predicts after the final `.` or `。` "
                "(mostly another `.` or a closing quote, learnt from `...` and quotations) means little.", "",
                "## Data", "",
                f"Two Debian sources (the corpus is not committed; reinstall the packages to retrain). "
                f"The fortunes of package {pkg}, files in `/usr/share/games/fortunes/`: "
                f"{', '.join(corpus['files'])}; each file is split into "
                "fortunes at lines holding only `%`, ANSI colour codes and attribution lines (starting with `--` "
                "or `—`) are removed. "
                f"The {corpus['manual_pages']} manual pages of package {corpus['manual_package']} "
                f"{corpus['manual_version']}{' (the zh_CN ones)' if not english else ''}, rendered as text by man-db "
                "(`MANWIDTH=4000 man -E UTF-8 -l PAGE | col -bx`, header and footer lines dropped) and split into "
                "paragraphs at blank lines and section headings (the headings dropped). Each fortune or paragraph "
                "is tokenized and cut into sentences after `. ! ? 。 ！ ？ …` (with closing brackets/quotes that "
                f"follow); sentences longer than {cfg['max_len']} tokens are cut into {cfg['max_len']}-token "
                f"pieces; pieces under 3 tokens, or with fewer than {cfg['min_word_share']:.0%} non-punctuation "
                "tokens (ASCII art, tables, option lists), are dropped"
                + (f", and so are pieces where fewer than {cfg['min_cjk_share']:.0%} of the tokens are CJK "
                   "characters (commands and option names inside the manual pages)"
                   if cfg.get("min_cjk_share") else "")
                + ". A fortune or paragraph is held out when `zlib.crc32(text) % 20 == 0`.", "",
                f"Training: {corpus['train_sentences']} sentences, {corpus['train_tokens']} tokens "
                f"(vocabulary covers {corpus['vocab_coverage']:.1%} of them); held out: "
                f"{corpus['held_out_sentences']} sentences. Batches: the training sentences sorted by (length, "
                "a seeded random key) and cut into batches of neighbours; each step draws one batch uniformly "
                "(torch.Generator); shorter sentences padded on the right with [PAD].", ""]
    out += ["## Model and training recipe", "", _recipe_rows(cfg, steps, train_s, smoke), "",
            "## Held-out metrics", "", "```json", json.dumps(metrics, ensure_ascii=False, indent=1), "```", ""]
    if corpus is not None:
        out += ["Cross-entropy is in nats per target token over every non-[PAD] target of the held-out "
                "sentences; the unigram perplexity predicts every target from the training token "
                "frequencies (add-one smoothed), for comparison.", ""]
    what = ("over the held-out sequences; a query is every real position"
            if corpus is None else f"over the first {corpus['head_sentences']} held-out sentences; a query is "
            "every real position after the first (same_token: only queries whose token occurred earlier)")
    out += ["## Attention heads", "",
            f"Mean attention weight per head ({what}), computed with the reference model; `uniform` is what a "
            "head spreading its weight evenly over the keys it may see would score. Layers and heads are numbered "
            "from 0, as the window labels them (\"Layer 0\", \"Head 0\").", "",
            L.score_table(scores, patterns),
            "| uniform | – | " + " | ".join(f"{v:.3f}" for v in baseline) + " |", ""]
    out += ["Columns: " + "; ".join(f"`{p}`: {COLUMNS[p]}" for p in patterns) + ".", ""]
    if favourites:
        out += ["Favourite keys: per head, the key tokens (seen as a key at least 20 times) that get the most "
                "weight relative to an even spread (ratio = mean of w[i, j] · (i + 1) over the queries that "
                "see the key; 1 = uniform):", "", "| layer | head | favourite keys (× uniform) |", "|---|---|---|"]
        out += [f"| {l} | {h} | " + ", ".join(f"`{t}` {v:.1f}" for t, v in favourites[l][h]) + " |"
                for l in range(len(favourites)) for h in range(len(favourites[l]))]
        out += [""]
    out += ["Highlights (the heads the notes describe):", ""]
    out += [f"- layer {r['layer']}, head {r['head']}: " + (
            f"`{r['pattern']}` {r['score']:.3f} (uniform {r['uniform']:.3f})" if "score" in r else
            "favourite keys " + ", ".join(f"`{t}` ×{v:.1f}" for t, v in r["keys"])) for r in chosen]
    out += ["", "## Notes (the file's `note` / `note_zh`)", "", note, "", note_zh, "",
            "## Files", "",
            f"- `{name}.safetensors`: the weights ({cfg['dtype']}) and metadata (vocab, task, mask, titles, notes, "
            "examples, metrics).",
            f"- `{name}.expected.json`: for each example, its tokens, ids and the top-5 predictions at every "
            "position (softmax, in float64, of the float32 logits; each example run alone, no padding), from the PyTorch reference "
            "(`nn.TransformerEncoderLayer` in train mode with dropout 0, under `torch.no_grad()`)"
            + (", plus the held-out set's description and accuracy." if corpus is None else "."), ""]
    return "\n".join(out)
