#include "words/steptext.h"

#include <QRegularExpression>
#include <QStringList>

#include "words/englishforms.h"
#include "words/varianttext.h"

namespace attnlab::ui {

namespace {

// Titles. A trailing " (fault)" is taken off first and put back translated.
constexpr EnglishForm kTitles[] = {
    {"Embedding table", QT_TRANSLATE_NOOP("StepText", "Embedding table")},
    {"Embedding table \\(trained\\)", QT_TRANSLATE_NOOP("StepText", "Embedding table (trained)")},
    {"Token ids", QT_TRANSLATE_NOOP("StepText", "Token ids")},
    {"Output head: logits", QT_TRANSLATE_NOOP("StepText", "Output head: logits")},
    {"Output head: probabilities", QT_TRANSLATE_NOOP("StepText", "Output head: probabilities")},
    {"Token embeddings", QT_TRANSLATE_NOOP("StepText", "Token embeddings")},
    {"Sinusoidal position code", QT_TRANSLATE_NOOP("StepText", "Sinusoidal position code")},
    {"Layer input: embedding \\+ position", QT_TRANSLATE_NOOP("StepText", "Layer input: embedding + position")},
    {"Layer input \\(no position code\\)", QT_TRANSLATE_NOOP("StepText", "Layer input (no position code)")},
    {"Attention mask", QT_TRANSLATE_NOOP("StepText", "Attention mask")},
    {"Decoder self-attention mask", QT_TRANSLATE_NOOP("StepText", "Decoder self-attention mask")},
    {"Cross-attention mask", QT_TRANSLATE_NOOP("StepText", "Cross-attention mask")},
    {"([QKV]) projection", QT_TRANSLATE_NOOP("StepText", "%1 projection")},
    {"([KV]) projection with W_Q", QT_TRANSLATE_NOOP("StepText", "%1 projection with W_Q")},
    {"Split heads: view ([QKV])", QT_TRANSLATE_NOOP("StepText", "Split heads: view %1")},
    {"Split heads: view ([QKV]) straight to \\(B, H, T, Dh\\)",
     QT_TRANSLATE_NOOP("StepText", "Split heads: view %1 straight to (B, H, T, Dh)")},
    {"Split heads: transpose ([QKV])", QT_TRANSLATE_NOOP("StepText", "Split heads: transpose %1")},
    {"Transpose K", QT_TRANSLATE_NOOP("StepText", "Transpose K")},
    {"Dot products QKᵀ", QT_TRANSLATE_NOOP("StepText", "Dot products QKᵀ")},
    {"Scale by √d_head", QT_TRANSLATE_NOOP("StepText", "Scale by √d_head")},
    {"Scale by √d_model", QT_TRANSLATE_NOOP("StepText", "Scale by √d_model")},
    {"No scaling", QT_TRANSLATE_NOOP("StepText", "No scaling")},
    {"Apply the mask", QT_TRANSLATE_NOOP("StepText", "Apply the mask")},
    {"Apply the mask with 0, not −∞", QT_TRANSLATE_NOOP("StepText", "Apply the mask with 0, not −∞")},
    {"Softmax over the keys", QT_TRANSLATE_NOOP("StepText", "Softmax over the keys")},
    {"Softmax over the queries", QT_TRANSLATE_NOOP("StepText", "Softmax over the queries")},
    {"Softmax before the mask", QT_TRANSLATE_NOOP("StepText", "Softmax before the mask")},
    {"Softmax before the mask \\(fault\\), over the queries",
     QT_TRANSLATE_NOOP("StepText", "Softmax before the mask (fault), over the queries")},
    {"Mask after the softmax", QT_TRANSLATE_NOOP("StepText", "Mask after the softmax")},
    {"Attention weights, tiled \\(overview\\)", QT_TRANSLATE_NOOP("StepText", "Attention weights, tiled (overview)")},
    {"Weighted sum of values", QT_TRANSLATE_NOOP("StepText", "Weighted sum of values")},
    {"Weighted sum of values, tiled", QT_TRANSLATE_NOOP("StepText", "Weighted sum of values, tiled")},
    {"Merge heads: transpose", QT_TRANSLATE_NOOP("StepText", "Merge heads: transpose")},
    {"Merge heads: contiguous", QT_TRANSLATE_NOOP("StepText", "Merge heads: contiguous")},
    {"Merge heads: view", QT_TRANSLATE_NOOP("StepText", "Merge heads: view")},
    {"Merge heads: view without transpose \\+ contiguous",
     QT_TRANSLATE_NOOP("StepText", "Merge heads: view without transpose + contiguous")},
    {"Output projection", QT_TRANSLATE_NOOP("StepText", "Output projection")},
    {"Residual connection (\\d+)", QT_TRANSLATE_NOOP("StepText", "Residual connection %1")},
    {"LayerNorm (\\d+)", QT_TRANSLATE_NOOP("StepText", "LayerNorm %1")},
    {"FFN: expand to d_ff", QT_TRANSLATE_NOOP("StepText", "FFN: expand to d_ff")},
    {"FFN: (ReLU|GELU)", QT_TRANSLATE_NOOP("StepText", "FFN: %1")},
    {"FFN: back to d_model", QT_TRANSLATE_NOOP("StepText", "FFN: back to d_model")},
    {"Layer output", QT_TRANSLATE_NOOP("StepText", "Layer output")},
};

// The prose parts of formulas. A formula is split at "; " and each part looked up; a part
// without two English words in a row (pure maths or code) needs no entry.
constexpr EnglishForm kFormulaParts[] = {
    {"one seeded vector per distinct token", QT_TRANSLATE_NOOP("StepText", "one seeded vector per distinct token")},
    {"vocabulary index of each token", QT_TRANSLATE_NOOP("StepText", "vocabulary index of each token")},
    {"the model's vocabulary index of each token",
     QT_TRANSLATE_NOOP("StepText", "the model's vocabulary index of each token")},
    {"\\[PAD\\] = 0, unknown → \\[UNK\\] = 1", QT_TRANSLATE_NOOP("StepText", "[PAD] = 0, unknown → [UNK] = 1")},
    {"the model's learned vector for each of its (\\d+) vocabulary entries \\(V, D\\)",
     QT_TRANSLATE_NOOP("StepText", "the model's learned vector for each of its %1 vocabulary entries (V, D)")},
    {"logits = x Wᵀ \\+ b, one score per vocabulary entry \\(B, S, V\\)",
     QT_TRANSLATE_NOOP("StepText", "logits = x Wᵀ + b, one score per vocabulary entry (B, S, V)")},
    {"softmax over the vocabulary: position i's guess at token i \\+ 1",
     QT_TRANSLATE_NOOP("StepText", "softmax over the vocabulary: position i's guess at token i + 1")},
    {"softmax over the vocabulary: position i's guess at the answer's token i",
     QT_TRANSLATE_NOOP("StepText", "softmax over the vocabulary: position i's guess at the answer's token i")},
    {"1 = may attend, 0 = masked \\(([a-z+]+)\\)", QT_TRANSLATE_NOOP("StepText", "1 = may attend, 0 = masked (%1)")},
    {"the look-ahead triangle is transposed: token i sees keys j ≥ i \\(the future\\), not j ≤ i",
     QT_TRANSLATE_NOOP("StepText",
                       "the look-ahead triangle is transposed: token i sees keys j ≥ i (the future), not j ≤ i")},
    {"the padding is laid along the queries, not the keys: \\[PAD\\] queries see no key, every query sees the "
     "\\[PAD\\] keys",
     QT_TRANSLATE_NOOP("StepText", "the padding is laid along the queries, not the keys: [PAD] queries see no key, "
                                   "every query sees the [PAD] keys")},
    {"([KV]) = x·W_Qᵀ \\+ b_Q — the Q rows of in_proj again, not the ([KV]) rows",
     QT_TRANSLATE_NOOP("StepText", "%1 = x·W_Qᵀ + b_Q — the Q rows of in_proj again, not the %2 rows")},
    {"\\(B, T, D\\) → \\(B, H, T, Dh\\) in one view, no transpose: head h takes the h-th run of T·Dh numbers, so "
     "its rows mix positions and features",
     QT_TRANSLATE_NOOP("StepText", "(B, T, D) → (B, H, T, Dh) in one view, no transpose: head h takes the h-th run "
                                   "of T·Dh numbers, so its rows mix positions and features")},
    {"S = QKᵀ — the division by √Dh is missing \\(√Dh = (\\S+)\\)",
     QT_TRANSLATE_NOOP("StepText", "S = QKᵀ — the division by √Dh is missing (√Dh = %1)")},
    {"QKᵀ / √D, √D = (\\S+) — should be √Dh = (\\S+)",
     QT_TRANSLATE_NOOP("StepText", "QKᵀ / √D, √D = %1 — should be √Dh = %2")},
    {"scores \\+ \\(−∞ where mask = 0\\)", QT_TRANSLATE_NOOP("StepText", "scores + (−∞ where mask = 0)")},
    {"scores with 0 where mask = 0: a masked key keeps e\\^\\(0 − max\\) / Σ > 0 of the weight",
     QT_TRANSLATE_NOOP("StepText", "scores with 0 where mask = 0: a masked key keeps e^(0 − max) / Σ > 0 of the weight")},
    {"each row sums to 1", QT_TRANSLATE_NOOP("StepText", "each row sums to 1")},
    {"A = softmax\\(scores, dim = −2\\): each column sums to 1, the rows do not",
     QT_TRANSLATE_NOOP("StepText", "A = softmax(scores, dim = −2): each column sums to 1, the rows do not")},
    {"softmax\\(scores, dim = (−1|−2)\\) of the unmasked scores: masked keys take their share too",
     QT_TRANSLATE_NOOP("StepText", "softmax(scores, dim = %1) of the unmasked scores: masked keys take their share too")},
    {"A = softmax\\(S\\), then 0 where mask = 0: rows with masked keys sum to less than 1",
     QT_TRANSLATE_NOOP("StepText", "A = softmax(S), then 0 where mask = 0: rows with masked keys sum to less than 1")},
    {"A block by block, never whole", QT_TRANSLATE_NOOP("StepText", "A block by block, never whole")},
    {"a cell: (\\d+) queries' mean weight on (\\d+) keys",
     QT_TRANSLATE_NOOP("StepText", "a cell: %1 queries' mean weight on %2 keys")},
    {"A·V with an online softmax over blocks of keys: a running maximum m and sum l per query, O ← O·e\\^\\(m_old − "
     "m\\) \\+ e\\^\\(S − m\\)·V, then O / l",
     QT_TRANSLATE_NOOP("StepText", "A·V with an online softmax over blocks of keys: a running maximum m and sum l per "
                                   "query, O ← O·e^(m_old − m) + e^(S − m)·V, then O / l")},
    {"no \\(Tq, Tk\\) matrix kept", QT_TRANSLATE_NOOP("StepText", "no (Tq, Tk) matrix kept")},
    {"\\(B, H, Tq, Dh\\) → \\(B, Tq, D\\) in one view: a row of the context strings together pieces of one head at "
     "several query positions",
     QT_TRANSLATE_NOOP("StepText", "(B, H, Tq, Dh) → (B, Tq, D) in one view: a row of the context strings together "
                                   "pieces of one head at several query positions")},
    {"copy into C order so that view\\(\\) can work", QT_TRANSLATE_NOOP("StepText", "copy into C order so that view() can work")},
    {"\\(x − mean\\) / √\\(var \\+ ε\\) · γ \\+ β  \\(over D, biased var\\)",
     QT_TRANSLATE_NOOP("StepText", "(x − mean) / √(var + ε) · γ + β  (over D, biased var)")},
    {"the stream leaving this layer", QT_TRANSLATE_NOOP("StepText", "the stream leaving this layer")},
};

const EnglishForms& titles() {
  static const EnglishForms t("StepText", kTitles, /*whole=*/true);
  return t;
}

const EnglishForms& formulaParts() {
  static const EnglishForms t("StepText", kFormulaParts, /*whole=*/true);
  return t;
}

bool isProse(const QString& part) {
  static const QRegularExpression twoWords(QStringLiteral("[A-Za-z]{2,}\\s+[A-Za-z]{2,}"));
  return twoWords.match(part).hasMatch();
}

const QString kFault = QStringLiteral(" (fault)");

// A title whose fault tag was dropped (an exercise hides it) is the id's last part: code, kept.
bool isBareId(const StepInfo& info) {
  const auto dot = info.id.rfind('.');
  return info.title == info.id.substr(dot == std::string::npos ? 0 : dot + 1);
}

// A formula part or title from the model's table, else from the variants' (varianttext.h).
QString translatePart(const QString& part) {
  const QString t = formulaParts().translateWhole(part);
  return t.isNull() ? VariantText::formulaPart(part) : t;
}

QString translateTitle(const StepInfo& info) {
  const QString en = QString::fromStdString(info.title);
  if (QString whole = titles().translateWhole(en); !whole.isNull()) return whole;
  if (QString variant = VariantText::title(en); !variant.isNull()) return variant;
  if (en.endsWith(kFault)) {
    const QString base = titles().translateWhole(en.chopped(kFault.size()));
    if (!base.isNull()) return StepText::tr("%1 (fault)").arg(base);
  }
  return {};
}

}  // namespace

QString StepText::title(const StepInfo& info) {
  const QString t = translateTitle(info);
  return t.isNull() ? QString::fromStdString(info.title) : t;
}

bool StepText::knownTitle(const StepInfo& info) { return isBareId(info) || !translateTitle(info).isNull(); }

QString StepText::formula(const StepInfo& info) {
  const QStringList parts = QString::fromStdString(info.formula).split(QStringLiteral("; "));
  QStringList out;
  for (const QString& p : parts) {
    const QString t = translatePart(p);
    out << (t.isNull() ? p : t);
  }
  return out.join(tr("; ", "between the parts of a formula"));
}

bool StepText::knownFormula(const StepInfo& info) {
  const QStringList parts = QString::fromStdString(info.formula).split(QStringLiteral("; "));
  return std::all_of(parts.begin(), parts.end(),
                     [](const QString& p) { return !isProse(p) || !translatePart(p).isNull(); });
}

std::string StepText::kind(const std::string& id) {
  static const QRegularExpression prefix(QStringLiteral("^(encoder|decoder)\\.(layers\\.\\d+\\.)?((self_attn|multihead_attn)\\.)?"));
  static const QRegularExpression numbered(QStringLiteral("^(residual|norm)\\d+$"));
  QString k = QString::fromStdString(id).remove(prefix);
  if (const auto m = numbered.match(k); m.hasMatch()) k = m.captured(1);
  return k.toStdString();
}

}  // namespace attnlab::ui
