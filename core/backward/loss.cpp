#include "backward/loss.h"

#include <algorithm>
#include <cmath>
#include <limits>

#include "model/config.h"
#include "text/errors.h"
#include "text/tokenizer.h"

namespace attnlab {

std::string_view loss_name(LossKind k) {
  switch (k) {
    case LossKind::Sum: return "sum";
    case LossKind::NextToken: return "next-token";
    case LossKind::PerPosition: return "per-position";
    case LossKind::Mse: return "mse";
  }
  return "sum";
}

LossKind parse_loss(std::string_view s) {
  for (LossKind k : {LossKind::Sum, LossKind::NextToken, LossKind::PerPosition, LossKind::Mse})
    if (s == loss_name(k)) return k;
  throw ConfigError(Text(Msg::loss_not_one_of, std::string(s), "sum, next-token, per-position, mse"));
}

LossValue sum_loss(const Tensor& y) {
  const Tensor c = y.contiguous();
  double s = 0;
  for (int64_t i = 0, n = c.numel(); i < n; ++i) s += c.data()[i];
  return {s, Tensor(y.shape(), 1.0f)};
}

LossValue mse_loss(const Tensor& y, const Tensor& target) {
  if (target.shape() != y.shape())
    throw DataError(Text(Msg::loss_target_shape_differs, shape_str(target.shape()), shape_str(y.shape())));
  const Tensor a = y.contiguous(), t = target.contiguous();
  const int64_t n = a.numel();
  LossValue r{0, Tensor::empty(y.shape())};
  for (int64_t i = 0; i < n; ++i) {
    const double d = static_cast<double>(a.data()[i]) - t.data()[i];
    r.value += d * d;
    r.grad.data()[i] = static_cast<float>(2.0 * d / static_cast<double>(n));
  }
  r.value /= static_cast<double>(n);
  return r;
}

LossValue cross_entropy_loss(const Tensor& logits_in, const std::vector<std::vector<int64_t>>& target) {
  const Tensor logits = logits_in.contiguous();
  const int64_t b = logits.size(0), s = logits.size(1), v = logits.size(2);
  if (logits.dim() != 3 || static_cast<int64_t>(target.size()) != b ||
      std::any_of(target.begin(), target.end(), [&](const auto& row) { return static_cast<int64_t>(row.size()) != s; }))
    throw ShapeError("cross_entropy_loss: " + std::to_string(target.size()) + " target rows for logits " + shape_str(logits.shape()));
  LossValue r{0, Tensor(logits.shape(), 0.0f)};
  int64_t count = 0;
  for (const auto& row : target)
    for (int64_t t : row) count += t >= 0;
  if (count == 0) return r;
  for (int64_t bi = 0; bi < b; ++bi)
    for (int64_t p = 0; p < s; ++p) {
      const int64_t t = target[static_cast<size_t>(bi)][static_cast<size_t>(p)];
      if (t < 0) continue;
      if (t >= v) throw ShapeError("cross_entropy_loss: target token " + std::to_string(t) + " beyond logits " + shape_str(logits.shape()));
      const float* z = logits.data() + (bi * s + p) * v;
      float* g = r.grad.data() + (bi * s + p) * v;
      const double mx = *std::max_element(z, z + v);
      double sum = 0;
      for (int64_t j = 0; j < v; ++j) sum += std::exp(z[j] - mx);
      r.value += std::log(sum) + mx - z[t];
      for (int64_t j = 0; j < v; ++j)
        g[j] = static_cast<float>((std::exp(z[j] - mx) / sum - (j == t ? 1.0 : 0.0)) / static_cast<double>(count));
    }
  r.value /= static_cast<double>(count);
  return r;
}

std::vector<std::vector<int64_t>> answer_targets(const Tensor& answers, const Shape& ids, int64_t vocab,
                                                 bool zero_is_pad) {
  if (answers.shape() != ids) throw DataError(Text(Msg::loss_answers_shape_differs, shape_str(answers.shape()), shape_str(ids)));
  const Tensor a = answers.contiguous();
  const int64_t b = ids[0], s = ids[1];
  std::vector<std::vector<int64_t>> t(static_cast<size_t>(b), std::vector<int64_t>(static_cast<size_t>(s), -1));
  for (int64_t r = 0; r < b; ++r)
    for (int64_t i = 0; i < s; ++i) {
      const float v = a.data()[r * s + i];
      if (!(v == std::floor(v) && v >= -1 && v < static_cast<float>(vocab)))  // NaN fails too
        throw DataError(Text(Msg::loss_answer_not_token_id, r, i, format_double(v), vocab - 1));
      if (v > (zero_is_pad ? 0 : -1)) t[static_cast<size_t>(r)][static_cast<size_t>(i)] = static_cast<int64_t>(v);
    }
  return t;
}

namespace {

// The first lengths[r] tokens of each row as vocabulary ids in a (B, S) tensor, −1 elsewhere;
// DataError for a row longer than S.
Tensor answer_rows(const std::vector<std::vector<std::string>>& rows, const std::vector<int>& lengths,
                   const TrainedVocab& vocab, int64_t s) {
  const auto b = static_cast<int64_t>(rows.size());
  Tensor out({b, s}, -1.0f);
  for (int64_t r = 0; r < b; ++r) {
    const int n = lengths.at(static_cast<size_t>(r));
    if (n > s) throw DataError(Text(Msg::loss_answer_too_long, r, n, s));
    const auto& row = rows[static_cast<size_t>(r)];
    for (int i = 0; i < n; ++i) out.data()[r * s + i] = static_cast<float>(vocab.id(row.at(static_cast<size_t>(i))));
  }
  return out;
}

}  // namespace

Tensor answer_ids(const std::vector<std::string>& answers, const TrainedVocab& vocab, int64_t b, int64_t s) {
  if (static_cast<int64_t>(answers.size()) != b) throw DataError(Text(Msg::loss_answers_count, answers.size(), b));
  std::vector<std::vector<std::string>> rows;
  std::vector<int> lengths;
  for (const auto& answer : answers) {
    rows.push_back(tokenize(answer));
    lengths.push_back(static_cast<int>(rows.back().size()));
  }
  return answer_rows(rows, lengths, vocab, s);
}

Tensor answer_ids(const TokenBatch& answers, const TrainedVocab& vocab, int64_t b, int64_t s) {
  if (answers.batch() != b) throw DataError(Text(Msg::loss_answers_count, answers.batch(), b));
  return answer_rows(answers.tokens, answers.lengths, vocab, s);
}

}  // namespace attnlab
