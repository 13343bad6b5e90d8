#include "pretrained/kv_decode.h"

#include <Eigen/Dense>

#include <algorithm>
#include <cmath>
#include <stdexcept>
#include <string>

#include "model/trained.h"
#include "tensor/gemm.h"
#include "tensor/ops.h"

namespace attnlab::pretrained {

namespace {

using RowMajor = Eigen::Matrix<float, Eigen::Dynamic, Eigen::Dynamic, Eigen::RowMajor>;

std::string layer_prefix(int64_t i) { return "encoder.layers." + std::to_string(i) + "."; }

// Rows [row, row + n) of x (…, D) → (1, n, D), a copy.
Tensor rows_of(const Tensor& x, int64_t row, int64_t n) {
  const int64_t d = x.size(-1);
  Tensor out = Tensor::empty({1, n, d});
  std::copy_n(x.data() + row * d, n * d, out.data());
  return out;
}

// scores (n, L) → softmax over each row, query j seeing keys [0, first + j] only (the causal mask).
void causal_softmax(RowMajor& scores, int64_t first) {
  for (Eigen::Index j = 0; j < scores.rows(); ++j) {
    const Eigen::Index seen = first + j + 1;
    auto row = scores.row(j);
    row.tail(row.size() - seen).setZero();
    auto live = row.head(seen);
    live.array() = (live.array() - live.maxCoeff()).exp();
    live /= live.sum();
  }
}

}  // namespace

bool kv_cacheable(const ModelConfig& cfg) {
  const MaskKind m = cfg.encoder_mask();
  return !cfg.cross && cfg.norm == Norm::Pre && cfg.positional == Positional::Learned &&
         (m == MaskKind::Causal || m == MaskKind::PaddingCausal) && cfg.final_norm && cfg.ffn && !cfg.bert_parts() &&
         cfg.faults.empty();
}

KvDecoder::KvDecoder(const ModelConfig& cfg, const Weights& w, int64_t capacity, Backend& be)
    : cfg_(cfg), w_(w), be_(be), capacity_(capacity) {
  if (!kv_cacheable(cfg)) throw std::logic_error("KvDecoder: not a pre-norm causal decoder with learned positions");
  if (!w.vocab() || !w.has("output_head.weight")) throw std::logic_error("KvDecoder: the model has no output head");
  if (capacity < 1 || capacity > cfg.max_positions) throw std::logic_error("KvDecoder: capacity outside the positions");
  // (V, D). Asked for first, so that a 16-bit head that fits the kept widenings is kept (they keep
  // the first ones asked for) before the layers fill them: every piece's logits read it.
  const int64_t vocab = w.get("output_head.weight").size(0);
  head_bias_ = w.vocab()->head_bias ? w.get("output_head.bias") : Tensor({vocab}, 0.0f);  // tied: no bias
  for (int64_t i = 0; i < cfg.layers; ++i) {
    keys_.push_back(Tensor::empty({capacity, cfg.d_model}));
    values_.push_back(Tensor::empty({capacity, cfg.d_model}));
  }
}

void KvDecoder::seed(const std::vector<const float*>& keys, const std::vector<const float*>& values, int64_t n) {
  const auto layers = static_cast<size_t>(cfg_.layers);
  if (length_ != 0 || n < 0 || n > capacity_ || keys.size() != layers || values.size() != layers)
    throw std::logic_error("KvDecoder::seed: a used cache, or rows that do not fit it");
  for (size_t i = 0; i < layers; ++i) {
    std::copy_n(keys[i], n * cfg_.d_model, keys_[i].data());
    std::copy_n(values[i], n * cfg_.d_model, values_[i].data());
  }
  length_ = n;
}

int64_t KvDecoder::cache_bytes() const {
  return 2 * cfg_.layers * capacity_ * cfg_.d_model * static_cast<int64_t>(sizeof(float));
}

Tensor KvDecoder::embed(const std::vector<int>& ids) const {
  const int64_t n = static_cast<int64_t>(ids.size()), d = cfg_.d_model;
  const int64_t vocab = w_.shape("embedding.weight")[0];
  std::vector<int64_t> tokens, positions;
  for (int64_t j = 0; j < n; ++j) {
    const int id = ids[static_cast<size_t>(j)];
    if (id < 0 || id >= vocab) throw std::logic_error("KvDecoder: an id outside the vocabulary");
    tokens.push_back(id);
    positions.push_back(length_ + j);
  }
  // Only the n rows of each table: a 16-bit table beyond the kept widenings is not widened whole.
  const Tensor e = w_.rows("embedding.weight", tokens);                 // (n, D)
  const Tensor p = w_.rows(position_table_name("encoder"), positions);  // (n, D)
  Tensor x = Tensor::empty({1, n, d});
  for (int64_t i = 0; i < n * d; ++i) x.data()[i] = e.data()[i] + p.data()[i];
  return x;
}

Tensor KvDecoder::attention(int64_t layer, const Tensor& h, Tensor* row) {
  const std::string p = layer_prefix(layer) + "self_attn.";
  const Tensor& w = w_.get(p + "in_proj_weight");  // (3D, D): rows Q | K | V
  const Tensor& b = w_.get(p + "in_proj_bias");
  const int64_t n = h.size(1), d = cfg_.d_model, dh = cfg_.d_head(), first = length_, seen = first + n;
  const Tensor q = be_.linear_rows(h, w, b, 0, d);  // (1, n, D)
  const Tensor k = be_.linear_rows(h, w, b, d, d);
  const Tensor v = be_.linear_rows(h, w, b, 2 * d, d);
  std::copy_n(k.data(), n * d, keys_[static_cast<size_t>(layer)].data() + first * d);
  std::copy_n(v.data(), n * d, values_[static_cast<size_t>(layer)].data() + first * d);
  Tensor ctx = Tensor::empty({1, n, d});  // heads side by side: the merge is free
  const float root = std::sqrt(static_cast<float>(dh));
  const float* keys = keys_[static_cast<size_t>(layer)].data();
  const float* values = values_[static_cast<size_t>(layer)].data();
  RowMajor scores(n, seen);
  if (row) *row = Tensor::empty({cfg_.heads, seen});
  for (int64_t head = 0; head < cfg_.heads; ++head) {
    const int64_t c = head * dh;  // the head's columns of every (…, D) row
    sgemm(n, seen, dh, {q.data() + c, false, d}, {keys + c, true, d}, scores.data(), seen);  // q_h·K_hᵀ (n, seen)
    scores /= root;
    causal_softmax(scores, first);
    if (row) std::copy_n(scores.data() + (n - 1) * seen, seen, row->data() + head * seen);  // the last query's row
    sgemm(n, dh, seen, {scores.data(), false, seen}, {values + c, false, d}, ctx.data() + c, d);  // a·V_h (n, Dh)
  }
  return be_.linear(ctx, w_.get(p + "out_proj.weight"), w_.get(p + "out_proj.bias"));
}

Tensor KvDecoder::feed_forward(int64_t layer, const Tensor& x) {
  const std::string p = layer_prefix(layer);
  const Tensor h = layer_norm(x, w_.get(p + "norm2.weight"), w_.get(p + "norm2.bias"), cfg_.eps);
  const Tensor hidden = be_.activate(be_.linear(h, w_.get(p + "linear1.weight"), w_.get(p + "linear1.bias")),
                                     cfg_.activation);
  return be_.linear(hidden, w_.get(p + "linear2.weight"), w_.get(p + "linear2.bias"));
}

std::vector<float> KvDecoder::logits(const Tensor& x) const {
  const Tensor last = layer_norm(rows_of(x, x.size(1) - 1, 1), w_.get("encoder.norm.weight"),
                                 w_.get("encoder.norm.bias"), cfg_.eps);  // (1, 1, D)
  return be_.linear(last, w_.get("output_head.weight"), head_bias_).to_vector();  // (V, D) · …
}

std::vector<float> KvDecoder::feed(const std::vector<int>& ids, KvProbe* probe) {
  const auto n = static_cast<int64_t>(ids.size());
  if (n == 0 || length_ + n > capacity_) throw std::logic_error("KvDecoder: no piece, or past the capacity");
  Tensor x = embed(ids);
  if (probe) probe->attention.assign(static_cast<size_t>(cfg_.layers), Tensor());
  for (int64_t i = 0; i < cfg_.layers; ++i) {
    const std::string p = layer_prefix(i);
    Tensor* row = probe ? &probe->attention[static_cast<size_t>(i)] : nullptr;
    x = add(x, attention(i, layer_norm(x, w_.get(p + "norm1.weight"), w_.get(p + "norm1.bias"), cfg_.eps), row));
    x = add(x, feed_forward(i, x));
  }
  length_ += n;
  return logits(x);
}

}  // namespace attnlab::pretrained
