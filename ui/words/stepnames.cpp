#include "words/stepnames.h"

#include "backward/model_backward.h"

#include "words/numbers.h"
#include "words/steptext.h"
#include "words/varianttext.h"

#include <algorithm>
#include <span>
#include <cmath>
#include <cstdlib>
#include <limits>

namespace attnlab::ui {

namespace {

// "encoder.layers.0.self_attn.scores" → {encoder, 0, self_attn, scores};
// "encoder.layers.0.variant.kv_cache.t3.attn" → {encoder, 0, variant, t3.attn, variant kv_cache}.
struct IdParts {
  std::string stack, block, name;
  std::string variant;  // the variant's kind name (variant_name) when block is "variant"
  int layer = -1;
};

IdParts parseId(const std::string& id) {
  std::vector<std::string> parts;
  size_t from = 0;
  for (size_t dot; (dot = id.find('.', from)) != std::string::npos; from = dot + 1) parts.push_back(id.substr(from, dot - from));
  parts.push_back(id.substr(from));
  IdParts p;
  p.stack = parts[0];
  size_t rest = 1;
  if (parts.size() > 3 && parts[1] == "layers") {
    p.layer = std::atoi(parts[2].c_str());
    rest = 3;
  }
  if (parts.size() >= rest + 3 && parts[rest] == "variant") {
    p.block = parts[rest];
    p.variant = parts[rest + 1];
    rest += 2;
  } else if (parts.size() == rest + 2) {
    p.block = parts[rest++];
  }
  for (size_t i = rest; i < parts.size(); ++i) p.name += (i > rest ? "." : "") + parts[i];
  return p;
}

bool isAttention(const IdParts& p) { return p.block == "self_attn" || p.block == "multihead_attn"; }

QString variantTitle(const std::string& kind) {
  try {
    return VariantText::name(parse_variant(kind));
  } catch (const std::exception&) {
    return QString::fromStdString(kind);
  }
}

// Axis names of a variant step (core/variants/variants.h lists the shapes); `seq` is the text's own axis.
QStringList variantAxes(const std::string& n, const QString& seq) {
  const QString B = QStringLiteral("B"), H = QStringLiteral("H"), Dh = QStringLiteral("Dh");
  const auto last = n.substr(n.rfind('.') + 1);  // "t3.k_cache" → "k_cache"
  const QString rank = StepNames::tr("rank"), sofar = StepNames::tr("keys so far"), one = QStringLiteral("1");
  if (last == "error") return {B, seq};
  if (last == "table") return {H, StepNames::tr("offset")};
  if (last == "bias") return {H, seq, seq};
  if (last == "projection") return {rank, seq};
  if (last == "k_low" || last == "v_low") return {B, H, rank, Dh};
  if (last == "low_weights") return {B, H, seq, rank};
  if (last == "kv") return {B, H, Dh, Dh};
  if (last == "k_sum") return {B, H, Dh};
  if (last == "k_cache" || last == "v_cache") return {B, H, sofar, Dh};
  if (last == "attn") return {B, H, StepNames::tr("new token"), sofar};
  if (last == "out") return {B, H, StepNames::tr("new token"), Dh};
  if (last == "scores") return {B, H, seq, StepNames::tr("keys of the block")};
  if (last == "m" || last == "l" || last == "rescale") return {B, H, seq, one};
  if (last == "o" || last == "head_out" || last == "row_out" || last == "reference" || last == "quadratic_out" ||
      last == "phi_q" || last == "phi_k")
    return {B, H, seq, Dh};
  return {B, H, seq, seq};  // pattern, weights, effective, quadratic, row_/col_ pattern and weights
}

QString num(double v, int digits = 3) { return formatNumber(v, {.digits = digits}); }

// A parameter's axes by its name (weights.h): (Out, In) matrices and (Out) vectors.
QStringList parameterAxes(const std::string& name, int dims) {
  const QString D = QStringLiteral("D"), F = QStringLiteral("F"), V = QStringLiteral("V");
  const bool transform = name.find("transform") != std::string::npos;  // BERT's head transform: (D, D), (D)
  const QString out = name.find("in_proj") != std::string::npos  ? QStringLiteral("3·D")
                      : name.find("linear1") != std::string::npos ? F
                      : name.starts_with("embedding.") || (name.starts_with("output_head") && !transform) ? V
                      : name.ends_with("position_embedding.weight")                       ? QStringLiteral("P")
                      : name.ends_with("token_type_embedding.weight")                     ? StepNames::tr("types")
                                                                  : D;
  const QString in = name.find("linear2") != std::string::npos ? F : D;
  if (dims == 2) return {out, in};
  if (dims == 1) return {out};
  QStringList r;
  for (int i = 0; i < dims; ++i) r << StepNames::tr("axis %1").arg(i);
  return r;
}

QString sizes(const Shape& s) {
  QStringList out;
  for (auto v : s) out << QString::number(v);
  return QLatin1Char('(') + out.join(QStringLiteral(", ")) + QLatin1Char(')');
}

QStringList names(const Step& s) { return StepNames::axisNames(s.info.id, static_cast<int>(s.tensor.dim())); }
QString named(const Step& s) { return QLatin1Char('(') + names(s).join(QStringLiteral(", ")) + QLatin1Char(')'); }

// Statistics of the finite values; counts of −∞ and NaN.
struct Stats {
  double lo = std::numeric_limits<double>::infinity(), hi = -lo, absMean = 0;
  int64_t n = 0, negInf = 0, nan = 0, zeros = 0, negative = 0;
};

// A tensor's values in C order, read in place when it is contiguous (a copy of a long text's
// (B, H, S, S) step is 10⁸ floats, whose page faults stall every thread of the window), else
// copied into *keep.
std::span<const float> valuesOf(const Tensor& t, std::vector<float>* keep) {
  if (t.is_contiguous()) return {t.data(), static_cast<size_t>(t.numel())};
  *keep = t.to_vector();
  return *keep;
}

Stats stats(const Tensor& t) {
  Stats s;
  double absSum = 0;
  std::vector<float> keep;
  for (const float v : valuesOf(t, &keep)) {
    ++s.n;
    if (std::isnan(v)) { ++s.nan; continue; }
    if (std::isinf(v)) { s.negInf += v < 0; continue; }
    s.lo = std::min<double>(s.lo, v), s.hi = std::max<double>(s.hi, v);
    absSum += std::fabs(v), s.zeros += v == 0.0f, s.negative += v < 0.0f;
  }
  s.absMean = s.n > 0 ? absSum / static_cast<double>(s.n) : 0;
  return s;
}

QString range(const Stats& s) { return StepNames::tr("%1 … %2").arg(num(s.lo), num(s.hi)); }

// --- one sentence per kind of move ----------------------------------------------------------

QString aliasSentence(const Step& out, const Step& in) {
  if (out.info.code.find("contiguous()") != std::string::npos)
    return StepNames::tr("Already contiguous: nothing was copied; %1 is the same storage as %2.")
        .arg(QString::fromStdString(out.info.result), QString::fromStdString(in.info.result));
  return StepNames::tr("Nothing computed: %1 is the same tensor as %2 %3 (same storage).")
      .arg(QString::fromStdString(out.info.result), QString::fromStdString(in.info.result), named(in));
}

QString axisList(const QStringList& axes, const Step& s, const QString& sep) {
  QStringList parts;
  for (const auto& a : axes) parts << StepNames::tr("%1 = %2").arg(a).arg(s.tensor.size(names(s).indexOf(a)));
  return parts.join(sep);
}

QString viewSentence(const Step& out, const Step& in) {
  const QStringList a = names(in), b = names(out);
  QStringList gone, added;
  for (const auto& n : a) if (!b.contains(n)) gone << n;
  for (const auto& n : b) if (!a.contains(n)) added << n;
  const QString times = QStringLiteral(" × ");
  QString what;
  if (gone.size() == 1 && added.size() > 1)
    what = StepNames::tr("%1 is split into %2").arg(axisList(gone, in, times), axisList(added, out, times));
  else if (added.size() == 1 && gone.size() > 1)
    what = StepNames::tr("%1 are joined into %2").arg(axisList(gone, in, times), axisList(added, out, times));
  else
    what = StepNames::tr("%1 → %2").arg(named(in), named(out));
  return StepNames::tr("Same %1 numbers, new shape %2: %3 — no data moved (same storage).")
      .arg(out.tensor.numel()).arg(named(out), what);
}

QString transposeSentence(const Step& out, const Step& in) {
  const Shape &a = in.tensor.shape(), &b = out.tensor.shape();
  std::vector<int> moved;
  for (size_t i = 0; i < a.size(); ++i)
    if (a[i] != b[i] || in.tensor.strides()[i] != out.tensor.strides()[i]) moved.push_back(static_cast<int>(i));
  const QString axes = moved.size() == 2 ? StepNames::tr("Axes %1 and %2 swapped").arg(moved[0]).arg(moved[1])
                                         : StepNames::tr("Axes reordered");
  const QString tail = out.tensor.is_contiguous() ? StepNames::tr("a view, and still contiguous")
                                                  : StepNames::tr("a view, not contiguous any more");
  return StepNames::tr("%1: now %2; strides %3 — %4.").arg(axes, named(out), sizes(out.tensor.strides()), tail);
}

QString copySentence(const Step& out) {
  return StepNames::tr("Copied into a fresh block in C order so the next view can work; values unchanged, strides now %1.")
      .arg(sizes(out.tensor.strides()));
}

bool isPermutation(const Tensor& a, const Tensor& b) {
  if (a.dim() != b.dim()) return false;
  std::vector<std::pair<int64_t, int64_t>> x, y;
  for (int64_t i = 0; i < a.dim(); ++i) x.emplace_back(a.shape()[i], a.strides()[i]), y.emplace_back(b.shape()[i], b.strides()[i]);
  std::sort(x.begin(), x.end()), std::sort(y.begin(), y.end());
  return x == y;
}

// Same storage or same values in a new layout: alias, transpose, view or contiguous copy.
QString structuralSentence(const Step& out, const Step& in) {
  const Tensor &o = out.tensor, &i = in.tensor;
  if (o.shares_storage(i)) {
    if (o.shape() == i.shape() && o.strides() == i.strides() && o.offset() == i.offset()) return aliasSentence(out, in);
    if (isPermutation(o, i)) return transposeSentence(out, in);
    return viewSentence(out, in);
  }
  const bool copy = out.info.code.find("contiguous()") != std::string::npos;
  std::vector<float> ko, ki;
  if (copy && o.shape() == i.shape() && std::ranges::equal(valuesOf(o, &ko), valuesOf(i, &ki))) return copySentence(out);
  return {};
}

QString weightSymbol(const Step& s) {
  for (const auto& b : s.info.bindings) {
    if (!b.weight || b.var.find("bias") != std::string::npos) continue;
    if (b.source.find("linear1") != std::string::npos) return QStringLiteral("W₁");
    if (b.source.find("linear2") != std::string::npos) return QStringLiteral("W₂");
    if (b.source.find("out_proj") != std::string::npos) return QStringLiteral("W_O");
    return QStringLiteral("W_") + QString::fromStdString(s.info.result.substr(0, 1)).toUpper();
  }
  return QStringLiteral("W");
}

QString linearSentence(const Step& out, const Step& in) {
  const int64_t rows = in.tensor.numel() / std::max<int64_t>(1, in.tensor.size(-1));
  const int64_t k = in.tensor.size(-1), n = out.tensor.size(-1);
  return StepNames::tr("%1 → %2: each of the %3 token vectors (%4 numbers) is multiplied by %5ᵀ (%4 × %6) and a bias "
                       "is added, giving %6 new numbers per token.")
      .arg(named(in), named(out)).arg(rows).arg(k).arg(weightSymbol(out)).arg(n);
}

QString matmulSentence(const Step& out, const Step& a, const Step& b) {
  if (out.info.result == "head_out")
    return StepNames::tr("%1 @ %2 → %3: each query's %4 outputs are the average of the value vectors, weighted by its "
                         "row of attention weights.")
        .arg(named(a), named(b), named(out)).arg(out.tensor.size(-1));
  return StepNames::tr("%1 @ %2 → %3: %4 dot products of length %5, one per query–key pair and head; range %6.")
      .arg(named(a), named(b), named(out)).arg(out.tensor.numel()).arg(a.tensor.size(-1)).arg(range(stats(out.tensor)));
}

QString scaleSentence(const Step& out, const Step& in) {
  double divisor = 1;  // read off the first finite, non-zero pair
  for (int64_t k = 0; k < out.tensor.numel(); ++k) {
    const float o = out.tensor.at_linear(k);
    if (o != 0.0f && std::isfinite(o)) {
      divisor = double(in.tensor.at_linear(k)) / double(o);
      break;
    }
  }
  return StepNames::tr("Every score divided by √Dh = √%1 = %2: the range %3 became %4.")
      .arg(num(divisor * divisor)).arg(num(divisor), range(stats(in.tensor)), range(stats(out.tensor)));
}

QString maskedSentence(const Step& out, const Step& in) {
  const int64_t set = stats(out.tensor).negInf - stats(in.tensor).negInf;
  return StepNames::tr("%1 of %2 scores set to −∞ (the masked keys); the other %3 are unchanged.")
      .arg(set).arg(out.tensor.numel()).arg(out.tensor.numel() - set);
}

QString softmaxSentence(const Step& out) {
  std::vector<float> keep;
  const std::span<const float> v = valuesOf(out.tensor, &keep);
  const int64_t n = std::max<int64_t>(1, out.tensor.size(-1)), rows = out.tensor.numel() / n;
  double worst = 0;
  for (int64_t r = 0; r < rows; ++r) {
    double sum = 0;
    for (int64_t c = 0; c < n; ++c) sum += v[static_cast<size_t>(r * n + c)];
    if (!std::isnan(sum)) worst = std::max(worst, std::fabs(sum - 1));
  }
  const Stats s = stats(out.tensor);
  QString text = StepNames::tr("Each of the %1 rows now sums to 1 (within %2); largest weight %3, and %4 weights are exactly 0.")
                     .arg(rows).arg(num(std::max(worst, 1e-9), 1), num(s.hi)).arg(s.zeros);
  if (s.nan > 0) text += StepNames::tr(" %1 values are NaN (rows with every key masked).").arg(s.nan);
  return text;
}

// Per-token (last axis) means and standard deviations of x.
QString normSentence(const Step& out, const Step& in) {
  std::vector<float> keep;
  const std::span<const float> v = valuesOf(in.tensor, &keep);
  const int64_t d = std::max<int64_t>(1, in.tensor.size(-1)), rows = in.tensor.numel() / d;
  double mLo = 1e300, mHi = -1e300, sLo = 1e300, sHi = -1e300;
  for (int64_t r = 0; r < rows; ++r) {
    double sum = 0, sq = 0;
    for (int64_t c = 0; c < d; ++c) sum += v[static_cast<size_t>(r * d + c)];
    const double mean = sum / double(d);
    for (int64_t c = 0; c < d; ++c) sq += std::pow(v[static_cast<size_t>(r * d + c)] - mean, 2);
    const double sd = std::sqrt(sq / double(d));
    mLo = std::min(mLo, mean), mHi = std::max(mHi, mean), sLo = std::min(sLo, sd), sHi = std::max(sHi, sd);
  }
  return StepNames::tr("Each token's %1 numbers were shifted to mean 0 and scaled to variance 1 (before: means %2 … %3, "
                       "standard deviations %4 … %5), then multiplied by γ and shifted by β; shape %6 kept.")
      .arg(d).arg(num(mLo), num(mHi), num(sLo), num(sHi), named(out));
}

QString residualSentence(const Step& out, const Step& sub) {
  return StepNames::tr("The sub-layer's output was added to its input x, number by number (shape %1 kept): the stream "
                       "changed by %2 on average.")
      .arg(named(out), num(stats(sub.tensor).absMean));
}

QString activationSentence(const Step& out, const Step& in) {
  const Stats a = stats(in.tensor);
  const QString pct = num(100.0 * double(a.negative) / double(std::max<int64_t>(1, a.n)), 2);
  if (out.info.code.find("gelu") != std::string::npos)
    return StepNames::tr("GELU pulled the %1 negative numbers of %2 (%3 %) towards 0 (now ≥ %4); positives are nearly unchanged.")
        .arg(a.negative).arg(a.n).arg(pct, num(stats(out.tensor).lo));
  return StepNames::tr("ReLU set the %1 negative numbers of %2 (%3 %) to 0; the other %4 pass unchanged.")
      .arg(a.negative).arg(a.n).arg(pct).arg(a.n - a.negative);
}

QString maskSentence(const Step& out) {
  const Stats s = stats(out.tensor);
  return StepNames::tr("%1 mask: %2 of %3 entries are 1 (may attend), %4 are 0 (masked).")
      .arg(named(out)).arg(s.n - s.zeros).arg(s.n).arg(s.zeros);
}

// The row [PAD] reads in the token ids step `ids`: a checkpoint's tokenizer names it (GPT-2's is
// 50256; the step's formula carries it, core/forward/model.cpp), the project's vocabularies use 0.
int64_t padRow(const Step& ids) {
  const Text& f = ids.info.formula;
  if (f.id() != Msg::sf_tokenizers_id_each_piece || f.args().empty()) return 0;
  return std::strtoll(f.args()[0].text().c_str(), nullptr, 10);
}

// How many positions of `ids` (B, S) are padding: each sentence's trailing run of `row` (batches
// are padded on the right), its first position never — GPT-2's [PAD] is <|endoftext|>, which a
// sentence may begin with (--prepend-bos) or hold; one typed at a sentence's very end counts too.
int64_t countPadding(const Tensor& ids, int64_t row) {
  if (ids.dim() != 2) return 0;
  int64_t n = 0;
  for (int64_t b = 0; b < ids.size(0); ++b)
    for (int64_t s = ids.size(1) - 1; s > 0 && ids.at({b, s}) == static_cast<float>(row); --s) ++n;
  return n;
}

QString dataSentence(const Step& out) {
  const Stats s = stats(out.tensor);
  if (out.tensor.dim() == 2 && names(out).value(0) == QLatin1String("V"))
    return StepNames::tr("Input data, not computed: %1 vocabulary rows of %2 seeded numbers (range %3); row 0 ([PAD]) is all zeros.")
        .arg(out.tensor.size(0)).arg(out.tensor.size(1)).arg(range(s));
  const int64_t pad = padRow(out);
  return StepNames::tr("Input data, not computed: %1 token ids %2, of which %3 are [PAD] (id %4).")
      .arg(s.n).arg(sizes(out.tensor.shape())).arg(countPadding(out.tensor, pad)).arg(pad);
}

// Whether row `row` of the (V, D) table is all zeros (the project's [PAD] row; not a checkpoint's).
bool zeroRow(const Tensor& table, int64_t row) {
  if (table.dim() != 2 || row < 0 || row >= table.size(0)) return false;
  for (int64_t d = 0; d < table.size(1); ++d)
    if (table.at({row, d}) != 0.0f) return false;
  return true;
}

QString embeddingSentence(const Step& out, const Step& table, const Step& ids) {
  const int64_t pad = padRow(ids), pads = countPadding(ids.tensor, pad);
  const QString picked = StepNames::tr("Each of the %1 token ids picked its row of the %2 table: %3 → %4")
                             .arg(ids.tensor.numel()).arg(sizes(table.tensor.shape()), named(ids), named(out));
  if (zeroRow(table.tensor, pad)) return StepNames::tr("%1; %2 [PAD] positions got zero vectors.").arg(picked).arg(pads);
  return StepNames::tr("%1; %2 [PAD] positions got row %3, the [PAD] piece's vector (not zeros).").arg(picked).arg(pads).arg(pad);
}

// A gradient: what its numbers mean, how large they are, how many are exactly 0.
QString gradientSentence(const Step& out) {
  const Stats s = stats(out.tensor);
  double sq = 0;
  std::vector<float> keep;
  for (const float v : valuesOf(out.tensor, &keep)) sq += std::isfinite(v) ? double(v) * v : 0.0;
  const QString what = QString::fromStdString(forward_id_of(out.info.id));
  return StepNames::tr("∂L/∂%1 %2: how much the loss changes per unit of each of its numbers. Range %3, norm %4; "
                       "%5 of %6 exactly 0.")
      .arg(what, named(out), range(s), num(std::sqrt(sq)))
      .arg(s.zeros)
      .arg(s.n);
}

QString sourceSentence(const Step& out, const std::vector<const Step*>& in) {
  const IdParts p = parseId(out.info.id);
  if (p.name == "embedding" && in.size() == 2) return embeddingSentence(out, *in[0], *in[1]);
  if (p.name == "positional" && out.info.code.find("position_embedding") != std::string::npos)
    return StepNames::tr("%1 is the first %2 rows of the learned position table (range %3): one vector per "
                         "position, the same for every sentence.")
        .arg(named(out)).arg(out.tensor.size(0)).arg(range(stats(out.tensor)));
  if (p.name == "positional")
    return StepNames::tr("A fixed %1 = %2 code of sines and cosines (range %3): it depends on the position only, not on the token.")
        .arg(named(out), sizes(out.tensor.shape()), range(stats(out.tensor)));
  if (p.name == "input" && in.size() == 2)
    return StepNames::tr("The position code %1 was added to every sentence's embeddings: shape %2 kept, range now %3.")
        .arg(named(*in[1]), named(out), range(stats(out.tensor)));
  return {};
}

// A variant step's pattern, weights or error (core/variants/variants.h); "" for the others.
QString variantSentence(const Step& out, const std::string& n) {
  const std::string last = n.substr(n.rfind('.') + 1);
  const Stats s = stats(out.tensor);
  if (last.ends_with("pattern"))
    return StepNames::tr("The pattern keeps %1 of %2 query–key pairs (%3 %): only those are computed.")
        .arg(s.n - s.zeros).arg(s.n).arg(num(100.0 * double(s.n - s.zeros) / double(std::max<int64_t>(1, s.n)), 3));
  if (last == "weights" || last == "row_weights" || last == "col_weights")
    return StepNames::tr("%1 of %2 weights are exactly 0 (pairs the variant skips or the mask hides); the others share "
                         "each row's weight; largest weight %3.")
        .arg(s.zeros).arg(s.n).arg(num(s.hi));
  if (last == "error")
    return StepNames::tr("Largest difference from full attention: %1; on average %2 per token.")
        .arg(num(s.hi), num(s.absMean));
  return {};
}

QString computedSentence(const Step& out, const std::vector<const Step*>& in) {
  const IdParts p = parseId(out.info.id);
  const std::string& n = p.name;
  if (p.block == "variant") {
    if (QString v = variantSentence(out, n); !v.isEmpty()) return v;
    const bool product = out.info.code.find(" @ ") != std::string::npos;
    if (n == "head_out" && product && in.size() == 2) return matmulSentence(out, *in[0], *in[1]);
    return {};
  }
  const bool linear = n.ends_with("_proj") || n == "linear1" || (n == "out" && (p.block == "ffn" || isAttention(p)));
  if (linear && !in.empty()) return linearSentence(out, *in[0]);
  if ((n == "qk" || n == "head_out") && in.size() == 2) return matmulSentence(out, *in[0], *in[1]);
  if (n == "scores" && in.size() == 1) return scaleSentence(out, *in[0]);
  if (n == "masked_scores" && !in.empty()) return maskedSentence(out, *in[0]);
  if (n == "weights" || n.starts_with("weights_head_")) return softmaxSentence(out);
  if (n.starts_with("norm") && !in.empty()) return normSentence(out, *in[0]);
  if (n.starts_with("residual") && in.size() == 2) return residualSentence(out, *in[1]);
  if (n == "hidden" && !in.empty()) return activationSentence(out, *in[0]);
  if (n.ends_with("mask")) return maskSentence(out);
  return sourceSentence(out, in);
}

}  // namespace

StepPlace StepNames::place(const std::string& id) {
  if (is_grad_step(id)) {
    StepPlace g = place(forward_id_of(id));
    g.backward = true;
    g.parameter = is_param_grad(id);
    return g;
  }
  const IdParts p = parseId(id);
  StepPlace out;
  out.stack = p.stack == "decoder" ? tr("Decoder") : tr("Encoder");
  out.layer = p.layer;
  if (p.block == "self_attn") out.block = tr("Self-attention");
  else if (p.block == "multihead_attn") out.block = tr("Cross-attention");
  else if (p.block == "ffn") out.block = tr("Feed-forward");
  else if (p.block == "output_head") out.block = tr("Output head");
  else if (p.block == "variant") out.block = tr("Variant: %1").arg(variantTitle(p.variant));
  else if (p.layer < 0 && p.name == "norm") out.block = tr("Final LayerNorm");  // after the last layer, like the head
  return out;
}

// Where a step sits, in words: "Layer 1", "Self-attention"; with the stack named ("Encoder layer 1")
// when there are two stacks, or when asked.
QStringList StepNames::placeWords(const StepPlace& where, bool withStack) {
  QStringList parts;
  if (where.layer < 0 && where.block.isEmpty()) parts << where.stack << tr("input");
  else if (where.layer < 0) parts << where.stack;  // the output head, after the last layer
  else if (withStack) parts << tr("%1 layer %2").arg(where.stack).arg(where.layer);  // from 0, as the ids
  else parts << tr("Layer %1").arg(where.layer);
  if (!where.block.isEmpty()) parts << where.block;
  return parts;
}

QString StepNames::location(const Trace& trace, int index, bool withTitle) {
  const auto& steps = trace.steps();
  if (index < 0 || index >= static_cast<int>(steps.size())) return {};
  const std::string& id = steps[static_cast<size_t>(index)].info.id;
  const IdParts me = parseId(forward_id_of(id));
  const bool backward = is_grad_step(id), parameter = is_param_grad(id);
  int pos = 0, total = 0;
  bool cross = false;
  for (size_t i = 0; i < steps.size(); ++i) {
    const IdParts p = parseId(forward_id_of(steps[i].info.id));
    cross = cross || p.stack == "decoder";
    if (is_grad_step(steps[i].info.id) != backward || is_param_grad(steps[i].info.id) != parameter) continue;
    const bool final_norm = p.layer < 0 && p.name == "norm";  // a place of its own (place())
    if (!parameter && (p.stack != me.stack || p.layer != me.layer || p.block != me.block ||
                       final_norm != (me.layer < 0 && me.name == "norm")))
      continue;
    ++total;
    if (static_cast<int>(i) <= index) ++pos;
  }
  QStringList parts = parameter ? QStringList{tr("Parameter gradients")} : placeWords(place(id), cross);
  if (backward && !parameter) parts.prepend(tr("Backward"));
  parts << tr("%1/%2").arg(pos).arg(total);
  if (withTitle) parts << StepText::title(steps[static_cast<size_t>(index)].info);
  return parts.join(QStringLiteral(" · "));
}

QStringList StepNames::axisNames(const std::string& id, int dims) {
  if (is_param_grad(id)) return parameterAxes(forward_id_of(id), dims);
  if (is_grad_step(id)) return axisNames(forward_id_of(id), dims);
  const IdParts p = parseId(id);
  const QString own = p.stack == "decoder" ? QStringLiteral("T") : QStringLiteral("S");
  const QString q = own, k = p.block == "multihead_attn" ? QStringLiteral("S") : own;
  const std::string& n = p.name;
  const QString B = QStringLiteral("B"), D = QStringLiteral("D"), H = QStringLiteral("H"), Dh = QStringLiteral("Dh");
  QStringList r;
  if (n == "embedding_table") r = {QStringLiteral("V"), D};
  else if (n == "token_ids") r = {B, own};
  else if (n == "positional" || n == "token_type") r = {own, D};
  else if (n == "mask" || n == "self_mask") r = {B, own, own};
  else if (n == "cross_mask") r = {B, QStringLiteral("T"), QStringLiteral("S")};
  else if (p.block == "variant") r = variantAxes(n, own);
  else if (isAttention(p)) {
    const QString seq = (n[0] == 'k' || n[0] == 'v') ? k : q;  // k_proj, k_view, k, k_t, v…
    if (n.ends_with("_proj") || n == "context" || n == "out" || n == "detached") r = {B, seq, D};
    else if (n.ends_with("_view") || n.starts_with("merge_")) r = {B, seq, H, Dh};
    else if (n == "q" || n == "k" || n == "v" || n == "head_out") r = {B, H, seq, Dh};
    else if (n == "k_t") r = {B, H, Dh, k};
    else if (n == "weights_overview") r = {B, H, tr("%1 bins").arg(q), tr("%1 bins").arg(k)};
    else if (n.starts_with("weights_head_")) r = {B, QStringLiteral("1"), q, k};  // one kept head
    else r = {B, H, q, k};  // qk, scores, masked_scores, weights
  } else if (p.block == "output_head" && !n.starts_with("transform")) r = {B, own, QStringLiteral("V")};  // logits, probs
  else if (n == "linear1" || n == "hidden") r = {B, own, QStringLiteral("F")};
  else r = {B, own, D};  // embedding, input, norm, residual, ffn.out, output
  if (r.size() == dims) return r;
  r.clear();
  for (int i = 0; i < dims; ++i) r << tr("axis %1").arg(i);
  return r;
}

QStringList StepNames::listNames(const std::vector<std::pair<std::string, Text>>& steps) {
  QStringList titles;
  for (const auto& [id, title] : steps) titles << StepText::title(StepInfo{.id = id, .title = title});
  QStringList out;
  for (size_t i = 0; i < steps.size(); ++i) {
    const QString& t = titles[static_cast<qsizetype>(i)];
    if (titles.count(t) == 1) {
      out << t;
      continue;
    }
    out << (QStringList{t} + placeWords(place(steps[i].first), /*withStack=*/true)).join(QStringLiteral(" · "));
  }
  return out;
}

QString StepNames::whatChanged(const Trace& trace, int index) {
  const auto& steps = trace.steps();
  if (index < 0 || index >= static_cast<int>(steps.size())) return {};
  const Step& out = steps[static_cast<size_t>(index)];
  if (out.info.is_data) return dataSentence(out);
  if (is_grad_step(out.info.id)) return gradientSentence(out);
  std::vector<const Step*> in;
  for (const auto& id : out.info.inputs())
    if (const Step* s = trace.find(id)) in.push_back(s);
  QString text;
  if (in.size() == 1) text = structuralSentence(out, *in[0]);
  if (text.isEmpty()) text = computedSentence(out, in);
  if (text.isEmpty()) {
    QStringList from;
    for (const Step* s : in) from << QString::fromStdString(s->info.result) + QLatin1Char(' ') + named(*s);
    text = from.isEmpty() ? tr("Computed a new tensor %1 %2.").arg(named(out), sizes(out.tensor.shape()))
                          : tr("Computed %1 %2 from %3.").arg(named(out), sizes(out.tensor.shape()), from.join(QStringLiteral(", ")));
  }
  return text;
}

}  // namespace attnlab::ui
