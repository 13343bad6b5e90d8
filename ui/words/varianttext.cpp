#include "words/varianttext.h"

#include <QStringList>

#include <map>
#include <optional>

#include "variants/variant_table.h"


namespace attnlab::ui {

namespace {

}  // namespace


QString VariantText::name(VariantKind k) {
  switch (k) {
    case VariantKind::None: return tr("Full attention (none)");
    case VariantKind::Window: return tr("Sliding window + global");
    case VariantKind::BigBird: return tr("BigBird blocks");
    case VariantKind::TopK: return tr("Top-k");
    case VariantKind::Linformer: return tr("Linformer (low rank)");
    case VariantKind::Linear: return tr("Linear (elu+1)");
    case VariantKind::RelativeBias: return tr("Relative position bias");
    case VariantKind::Alibi: return tr("ALiBi");
    case VariantKind::Axial: return tr("Axial (grid)");
    case VariantKind::KvCache: return tr("KV cache walk-through");
    case VariantKind::Tiled: return tr("Tiled (online softmax) walk-through");
  }
  return {};
}

QString VariantText::description(VariantKind k) {
  switch (k) {
    case VariantKind::None: return tr("Every query scores every key: the (S, S) attention the model itself computes.");
    case VariantKind::Window:
      return tr("Each query reads only the keys a few positions around it, plus a few global tokens that read and are "
                "read by everyone (as in Longformer): the cost grows with T, not T².");
    case VariantKind::BigBird:
      return tr("The text is cut into blocks; a block reads its neighbouring blocks, the global blocks and a few "
                "random ones, so a signal can still cross the whole text in a few layers.");
    case VariantKind::TopK:
      return tr("Each query keeps only its k best-scoring keys and drops the rest before the softmax: the largest "
                "weights survive, the long tail is cut off.");
    case VariantKind::Linformer:
      return tr("A fixed projection squeezes the S keys and values into k rows, so the score matrix is (S, k) "
                "instead of (S, S); it cannot keep a causal mask.");
    case VariantKind::Linear:
      return tr("The softmax is replaced by φ(q)·φ(k) with φ = elu + 1, so all keys can be folded once into a small "
                "(Dh, Dh) summary: cost linear in T, but different weights.");
    case VariantKind::RelativeBias:
      return tr("A number per head and distance j − i is added to every score, so a head can prefer near (or far) "
                "tokens wherever they stand.");
    case VariantKind::Alibi:
      return tr("Every score loses slope × distance, a fixed penalty per head (ALiBi): far tokens count less, "
                "without any learned position code.");
    case VariantKind::Axial:
      return tr("The tokens are laid out on a grid; attention runs within each row, then within each column, and "
                "two hops reach every token (when the grid is full).");
    case VariantKind::KvCache:
      return tr("Generation one token at a time: each new token's key and value are appended to a cache and only "
                "its query attends; the result equals full causal attention.");
    case VariantKind::Tiled:
      return tr("Keys are taken block by block with a running maximum and sum (the online softmax of "
                "FlashAttention): the result equals full attention without ever holding the (S, S) matrix.");
  }
  return {};
}

QString VariantText::paramLabel(VariantKind k, const std::string& p) {
  if (p == "window") return tr("window (± tokens):");
  if (p == "globals") return k == VariantKind::BigBird ? tr("global blocks:") : tr("global tokens:");
  if (p == "block") return tr("block size (tokens):");
  if (p == "random_blocks") return tr("random blocks:");
  if (p == "top_k") return tr("keys kept (k):");
  if (p == "rank") return tr("rank (rows k):");
  if (p == "max_distance") return tr("largest distance:");
  if (p == "grid_width") return tr("grid width (tokens per row):");
  if (p == "tile") return tr("tile (keys per block):");
  return QString::fromStdString(p);
}

QString VariantText::paramTip(VariantKind k, const std::string& p) {
  if (p == "window") return tr("A query reads the keys at most this many positions before or after it.");
  if (p == "globals")
    return k == VariantKind::BigBird ? tr("The first blocks read, and are read by, every block.")
                                     : tr("The first tokens read, and are read by, every token.");
  if (p == "block") return tr("Tokens per block.");
  if (p == "random_blocks") return tr("Extra key blocks drawn at random (seeded) for each query block and head.");
  if (p == "top_k") return tr("Keys kept per query: those scoring at least its k-th largest score.");
  if (p == "rank") return tr("The rows the keys and values are projected to.");
  if (p == "max_distance") return tr("Distances beyond this share the last number of the table.");
  if (p == "grid_width") return tr("The text is laid out row by row, this many tokens per row.");
  if (p == "tile") return tr("Keys per block of the online softmax.");
  return {};
}

namespace {

// "What happens here and why", keyed "variant.<kind>.<step>" ("variant.*.<step>": any kind);
// the walk-throughs' rounds are numberless ("t.attn", "tile.m").
const std::map<std::string, const char*>& explanations() {
  static const std::map<std::string, const char*> m = {
      {"variant.window.pattern",
       QT_TRANSLATE_NOOP("StepText",
                         "Which query–key pairs the sliding window computes (1) and which it skips (0): a band "
                         "around the diagonal, plus the global tokens' rows and columns. Everything outside the band "
                         "is never scored, which is where the savings on long texts come from.")},
      {"variant.bigbird.pattern",
       QT_TRANSLATE_NOOP("StepText",
                         "BigBird's pattern works on blocks of tokens: each query block reads its own and the "
                         "neighbouring blocks, the global blocks and a few random blocks (a different draw per head). "
                         "The random links let information cross the text quickly although most pairs are skipped.")},
      {"variant.topk.pattern",
       QT_TRANSLATE_NOOP("StepText",
                         "Top-k looks at the real scores first and keeps, for each query, only its k highest keys. "
                         "Unlike a window, the pattern depends on the text: change a word and different keys survive. "
                         "It saves the softmax and the weighted sum, not the scores themselves.")},
      {"variant.*.weights",
       QT_TRANSLATE_NOOP("StepText",
                         "The softmax runs only over the keys the pattern kept, so each row still sums to 1 but the "
                         "weight that full attention gave to the skipped keys is shared among the kept ones. Compare "
                         "with the full weights: where they differ, the variant changes the result.")},
      {"variant.*.head_out",
       QT_TRANSLATE_NOOP("StepText",
                         "The variant's output: each query's weighted average of the values, in the same (B, H, S, Dh) "
                         "layout as the block's own head_out, so the two can be compared number by number.")},
      {"variant.*.error",
       QT_TRANSLATE_NOOP("StepText",
                         "How far the variant lands from full attention: for each token, the largest absolute "
                         "difference over heads and features between the two outputs. Zero means the variant changed "
                         "nothing for that token; the Variant panel draws these numbers as bars.")},
      {"variant.relative.table",
       QT_TRANSLATE_NOOP("StepText",
                         "A small table with one number per head and per distance j − i, clipped at the largest "
                         "distance. A trained model learns these numbers; here they are seeded. Every pair of tokens "
                         "at the same distance gets the same entry, wherever it stands in the text.")},
      {"variant.relative.bias",
       QT_TRANSLATE_NOOP("StepText",
                         "The table spread out over all query–key pairs: entry (i, j) is the table's number for the "
                         "distance j − i. The diagonal stripes show that the bias depends only on how far apart two "
                         "tokens are.")},
      {"variant.alibi.bias",
       QT_TRANSLATE_NOOP("StepText",
                         "ALiBi subtracts slope × distance from every score. Each head has its own fixed slope: the "
                         "first heads punish distance steeply and look locally, the last ones gently and look far. "
                         "Nothing is learned, and it works for texts longer than any seen in training.")},
      {"variant.relative.weights",
       QT_TRANSLATE_NOOP("StepText",
                         "The usual softmax, taken after the bias is added to every score. All pairs are still "
                         "computed, so this is not cheaper: it changes which keys win, making attention aware of "
                         "relative position.")},
      {"variant.alibi.weights",
       QT_TRANSLATE_NOOP("StepText",
                         "The usual softmax after the distance penalty: near keys gain weight, far keys lose it, the "
                         "more so in the heads with the steepest slope. Every pair is still computed.")},
      {"variant.axial.row_pattern",
       QT_TRANSLATE_NOOP("StepText",
                         "The text is written into a grid, a few tokens per row. In the first stage a query reads only "
                         "the keys of its own grid row: blocks along the diagonal.")},
      {"variant.axial.row_weights",
       QT_TRANSLATE_NOOP("StepText",
                         "The softmax within each grid row: every row of weights sums to 1 over the few keys of that "
                         "grid row.")},
      {"variant.axial.row_out",
       QT_TRANSLATE_NOOP("StepText",
                         "Each token's output of the row stage: a mix of the values of its grid row. These outputs, "
                         "not the original values, are what the column stage mixes next.")},
      {"variant.axial.col_pattern",
       QT_TRANSLATE_NOOP("StepText",
                         "In the second stage a query reads the keys of its own grid column: tokens that lie a whole "
                         "row width apart in the text.")},
      {"variant.axial.col_weights",
       QT_TRANSLATE_NOOP("StepText",
                         "The softmax within each grid column. Since each column entry already holds a summary of its "
                         "row, two hops reach every key whose row has a token in the query's column: every token, when "
                         "the grid is full.")},
      {"variant.axial.head_out",
       QT_TRANSLATE_NOOP("StepText",
                         "The column stage's output is the result: each token has read its column, and through it "
                         "the rows of that column's tokens, at the cost of two small attentions instead of one large "
                         "one.")},
      {"variant.axial.effective",
       QT_TRANSLATE_NOOP("StepText",
                         "The product of the two stages' weights: how much each key reaches each query in the end. "
                         "It is a full (S, S) matrix although neither stage computed one, and it can be compared with "
                         "full attention's weights directly.")},
      {"variant.linformer.projection",
       QT_TRANSLATE_NOOP("StepText",
                         "A fixed matrix E with k rows and one column per position (seeded here, learned in the "
                         "paper). Multiplying by it mixes the S keys into k new rows, and the same for the values.")},
      {"variant.linformer.k_low",
       QT_TRANSLATE_NOOP("StepText",
                         "The keys squeezed to k rows: each row is a weighted blend of every position's key. The "
                         "queries will score against these k blends instead of the S real keys.")},
      {"variant.linformer.v_low",
       QT_TRANSLATE_NOOP("StepText",
                         "The values squeezed the same way, with the same E, so that each blended key has a blended "
                         "value to hand over.")},
      {"variant.linformer.low_weights",
       QT_TRANSLATE_NOOP("StepText",
                         "Each query's softmax over the k blended keys: an (S, k) matrix instead of (S, S). For long "
                         "texts and small k this is where the time and memory are saved.")},
      {"variant.linformer.head_out",
       QT_TRANSLATE_NOOP("StepText",
                         "Each query's output: its weights over the k blends times the blended values. No (S, S) "
                         "matrix was ever formed.")},
      {"variant.linformer.effective",
       QT_TRANSLATE_NOOP("StepText",
                         "What the Linformer amounts to on the real tokens: its weights times E, an (S, S) matrix. "
                         "Its rows need not sum to 1 and may be negative, and every query reads the future too, which "
                         "is why it cannot keep a causal mask.")},
      {"variant.linear.phi_q",
       QT_TRANSLATE_NOOP("StepText",
                         "Linear attention replaces e^(q·k) by φ(q)·φ(k) with φ(x) = elu(x) + 1, which is always "
                         "positive. This step applies φ to the queries.")},
      {"variant.linear.phi_k",
       QT_TRANSLATE_NOOP("StepText",
                         "φ applied to the keys; masked keys get rows of 0 so they add nothing to the sums that "
                         "follow.")},
      {"variant.linear.kv",
       QT_TRANSLATE_NOOP("StepText",
                         "The trick of linear attention: since φ(q)·φ(k) splits into a product, all keys and values "
                         "can be folded once into a (Dh, Dh) summary. Its size does not depend on the text's length.")},
      {"variant.linear.k_sum",
       QT_TRANSLATE_NOOP("StepText",
                         "The sum of all φ(k): dividing by φ(q)·z makes each query's weights sum to 1, the job the "
                         "softmax's denominator did.")},
      {"variant.linear.head_out",
       QT_TRANSLATE_NOOP("StepText",
                         "Each query reads the summary instead of every key: cost grows with S·Dh², not S²·Dh. With a "
                         "causal mask the summary is kept as a running sum over the keys so far.")},
      {"variant.linear.quadratic",
       QT_TRANSLATE_NOOP("StepText",
                         "The same weights written out the slow way, as an (S, S) matrix, only to show them: compare "
                         "with the softmax weights of full attention to see what the feature map changes.")},
      {"variant.linear.quadratic_out",
       QT_TRANSLATE_NOOP("StepText",
                         "The slow form's output. It must equal the fast O(S) result up to rounding; the Variant panel "
                         "checks this.")},
      {"variant.kv_cache.t.k_cache",
       QT_TRANSLATE_NOOP("StepText",
                         "When a model generates text, token t arrives alone. Only its key is computed and appended to "
                         "the cache; the keys of the earlier tokens are reused, not recomputed.")},
      {"variant.kv_cache.t.v_cache",
       QT_TRANSLATE_NOOP("StepText",
                         "The same for the value: the cache grows by one row per token, which is the memory a KV "
                         "cache costs.")},
      {"variant.kv_cache.t.attn",
       QT_TRANSLATE_NOOP("StepText",
                         "The new token's query scores the keys in the cache, which holds only the past: the causal "
                         "mask comes for free. One row of weights, not a whole matrix.")},
      {"variant.kv_cache.t.out",
       QT_TRANSLATE_NOOP("StepText",
                         "The new token's output: its weights times the cached values. One row per generated token.")},
      {"variant.kv_cache.head_out",
       QT_TRANSLATE_NOOP("StepText",
                         "All the per-token outputs stacked. They equal full causal attention exactly: the cache "
                         "changes how much work is done, not the result.")},
      {"variant.kv_cache.reference",
       QT_TRANSLATE_NOOP("StepText",
                         "Full causal attention computed all at once, for comparison: what the step-by-step decoding "
                         "must reproduce.")},
      {"variant.tiled.tile.scores",
       QT_TRANSLATE_NOOP("StepText",
                         "The scores of every query against one block of keys only. The tiled method never holds more "
                         "than one block of scores, which is how FlashAttention fits long texts into fast memory.")},
      {"variant.tiled.tile.m",
       QT_TRANSLATE_NOOP("StepText",
                         "The largest score seen so far in each query row. Softmax needs it to keep e^x from "
                         "overflowing, and here it is updated block by block.")},
      {"variant.tiled.tile.rescale",
       QT_TRANSLATE_NOOP("StepText",
                         "When a new block raises the maximum, everything summed so far was measured against the old "
                         "one: multiplying by e^(m_old − m_new) corrects it. This is the online softmax.")},
      {"variant.tiled.tile.l",
       QT_TRANSLATE_NOOP("StepText",
                         "The running softmax denominator: the old sum rescaled plus this block's exponentials.")},
      {"variant.tiled.tile.o",
       QT_TRANSLATE_NOOP("StepText",
                         "The running output, not yet divided: the old output rescaled plus this block's "
                         "exponentials times its values.")},
      {"variant.tiled.head_out",
       QT_TRANSLATE_NOOP("StepText",
                         "After the last block, dividing by the running sum gives exactly softmax(QKᵀ/√Dh)·V, the "
                         "same as full attention, without ever holding the (S, S) matrix.")},
  };
  return m;
}

}  // namespace

namespace {

// "variant.kv_cache.t3.attn" → "variant.kv_cache.t.attn", "….tile2.m" → "….tile.m": a walk-through's
// rounds share their explanation (the round read by the variants' step table).
std::string withoutRoundNumbers(const std::string& kind) {
  const std::optional<StepMatch> m = variant_step_of("." + kind);
  if (!m || m->step->round == StepRound::Once) return kind;
  return "variant." + std::string(variant_name(m->kind)) + "." + std::string(round_word(m->step->round)) + "." +
         std::string(m->step->name);
}

}  // namespace

const char* VariantText::explanation(const std::string& kind) {
  const QString k = QString::fromStdString(withoutRoundNumbers(kind));
  const auto& m = explanations();
  if (const auto it = m.find(k.toStdString()); it != m.end()) return it->second;
  const QStringList parts = k.split(QLatin1Char('.'));  // variant, kind, name…
  if (parts.size() < 3 || parts[0] != QLatin1String("variant")) return nullptr;
  const QString any = QStringLiteral("variant.*.") + parts.mid(2).join(QLatin1Char('.'));
  const auto it = m.find(any.toStdString());
  return it == m.end() ? nullptr : it->second;
}

}  // namespace attnlab::ui
