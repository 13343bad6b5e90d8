#include "model/weights.h"

#include <algorithm>
#include <cmath>
#include <list>
#include <map>
#include <optional>
#include <mutex>

#include "tensor/checked.h"
#include "tensor/parallel.h"
#include "tensor/rng.h"
#include "text/errors.h"

namespace attnlab {

// Two tiers within the budget: seven eighths for the first widenings asked for, kept for good
// (each forward pass asks in the same order, so these are hits every pass: the embedding table
// first), an eighth for the most recent others (a layer's in_proj, asked for once each for Q, K
// and V), the least recent dropped first.
struct Weights::WidenCache {
  using Key = std::pair<const void*, bool>;  // (16-bit storage, transposed)
  static Key key_of(const HalfTensor& h) { return {h.bits.get(), h.transposed}; }
  struct Kept {
    std::shared_ptr<const std::vector<uint16_t>> bits;  // held so that its address stays its own
    Tensor wide;
    bool pinned = false;
    std::list<Key>::iterator recent_at;
  };
  std::mutex mu;
  int64_t budget = kDefaultWidenBudget, pinned_bytes = 0, recent_bytes = 0;
  std::map<Key, Kept> kept;
  std::list<Key> recent;  // unpinned keys, the most recent first

  int64_t recent_cap() const { return budget / 8; }
  std::optional<Tensor> find(const Key& key) {
    const auto k = kept.find(key);
    if (k == kept.end()) return std::nullopt;
    if (!k->second.pinned) recent.splice(recent.begin(), recent, k->second.recent_at);
    return k->second.wide;
  }
  void add(const Key& key, const HalfTensor& half, const Tensor& wide) {
    const int64_t bytes = wide.numel() * 4;
    if (kept.count(key)) return;
    if (pinned_bytes + bytes <= budget - recent_cap()) {
      kept.emplace(key, Kept{half.bits, wide, true, {}});
      pinned_bytes += bytes;
      return;
    }
    if (bytes > recent_cap()) return;
    recent.push_front(key);
    kept.emplace(key, Kept{half.bits, wide, false, recent.begin()});
    recent_bytes += bytes;
    while (recent_bytes > recent_cap()) {
      recent_bytes -= kept.at(recent.back()).wide.numel() * 4;
      kept.erase(recent.back());
      recent.pop_back();
    }
  }
  void clear() {
    kept.clear();
    recent.clear();
    pinned_bytes = recent_bytes = 0;
  }
};

void Weights::set(const std::string& name, Tensor t) {
  if (!has(name)) names_.push_back(name);
  halves_.erase(name);
  map_[name] = std::move(t);
}

void Weights::set(const std::string& name, HalfTensor t) {
  if (!has(name)) names_.push_back(name);
  map_.erase(name);
  halves_[name] = std::move(t);
  if (!cache_) cache_ = std::make_shared<WidenCache>();
}

const Tensor Weights::get(const std::string& name) const {
  if (const auto it = map_.find(name); it != map_.end()) return it->second;
  const auto h = halves_.find(name);
  if (h == halves_.end()) throw DataError(Text(Msg::ls_weights_prefix) + Text(Msg::tensor_missing, name));
  const HalfTensor& half = h->second;
  const auto key = WidenCache::key_of(half);
  {
    const std::lock_guard lock(cache_->mu);
    if (auto kept = cache_->find(key)) return *kept;
  }
  Tensor wide = half.widen();  // outside the lock: two threads may widen one tensor at once
  const std::lock_guard lock(cache_->mu);
  cache_->add(key, half, wide);
  return wide;
}

Tensor Weights::rows(const std::string& name, const std::vector<int64_t>& which) const {
  const HalfTensor* h = half(name);
  std::optional<Tensor> full;
  if (h) {
    const std::lock_guard lock(cache_->mu);
    full = cache_->find(WidenCache::key_of(*h));
  }
  if (h && !full) return h->widen_rows(which);
  const Tensor t = (full ? *full : get(name)).contiguous();
  if (t.dim() != 2) throw std::logic_error("Weights::rows: " + name + " is not 2-D");
  const int64_t cols = t.size(1);
  Tensor out = Tensor::empty({static_cast<int64_t>(which.size()), cols});
  for (size_t i = 0; i < which.size(); ++i) {
    if (which[i] < 0 || which[i] >= t.size(0)) throw std::logic_error("Weights::rows: a row outside " + name);
    std::copy_n(t.data() + which[i] * cols, cols, out.data() + static_cast<int64_t>(i) * cols);
  }
  return out;
}

Shape Weights::shape(const std::string& name) const {
  if (const auto h = halves_.find(name); h != halves_.end()) return h->second.shape;
  return get(name).shape();
}

const HalfTensor* Weights::half(const std::string& name) const {
  const auto h = halves_.find(name);
  return h == halves_.end() ? nullptr : &h->second;
}

void Weights::widen_all() {
  std::map<WidenCache::Key, Tensor> done;  // a tied pair: one widening, one storage
  for (const auto& [name, half] : halves_) {
    const auto key = WidenCache::key_of(half);
    // a fresh widening, never a kept one: copies of these weights share the kept ones, and the
    // optimizer writes into what this returns
    if (!done.count(key)) done.emplace(key, half.widen());
    map_[name] = done.at(key);
  }
  halves_.clear();
  cache_.reset();
}

void Weights::set_widen_budget(int64_t bytes) {
  if (!cache_) cache_ = std::make_shared<WidenCache>();
  const std::lock_guard lock(cache_->mu);
  cache_->clear();
  cache_->budget = bytes;
}

int64_t Weights::widened_kept_bytes() const {
  if (!cache_) return 0;
  const std::lock_guard lock(cache_->mu);
  return cache_->pinned_bytes + cache_->recent_bytes;
}

bool Weights::head_tied() const {
  if (!has("output_head.weight") || !has("embedding.weight")) return false;
  const HalfTensor *hh = half("output_head.weight"), *he = half("embedding.weight");
  if (hh || he)
    return hh && he && hh->bits == he->bits && hh->transposed == he->transposed && hh->shape == he->shape;
  const Tensor &h = map_.at("output_head.weight"), &e = map_.at("embedding.weight");
  return h.data() == e.data() && h.shape() == e.shape();
}

namespace {

// A tied head is the table's storage under a second name: counted once, with the table.
bool second_name_of_table(bool tied, const std::string& name) { return tied && name == "output_head.weight"; }

}  // namespace

int64_t Weights::bytes() const {
  const bool tied = head_tied();
  int64_t total = 0;
  for (const auto& [name, t] : map_)
    if (!second_name_of_table(tied, name)) total += t.numel() * 4;
  for (const auto& [name, t] : halves_)
    if (!second_name_of_table(tied, name)) total += t.bytes();
  return total;
}

int64_t Weights::f32_bytes() const {
  const bool tied = head_tied();
  int64_t total = 0;
  for (const auto& name : names_)
    if (!second_name_of_table(tied, name)) total += numel_of(shape(name)) * 4;
  return total;
}

int64_t Weights::held_bytes() const {
  if (!cache_) return bytes();  // no 16-bit parameter
  const bool tied = head_tied();
  int64_t widened = 0, largest = 0;
  for (const auto& [name, t] : halves_) {
    if (second_name_of_table(tied, name)) continue;  // the table's widening, kept once
    widened += t.numel() * 4;
    largest = std::max(largest, t.numel() * 4);
  }
  int64_t budget = 0;
  {
    const std::lock_guard lock(cache_->mu);
    budget = cache_->budget;
  }
  return (Count(bytes()) + std::min(widened, (Count(budget) + largest).value())).value();
}

namespace {

void add_attention(std::vector<std::pair<std::string, Shape>>& out, const std::string& p, int64_t d) {
  out.push_back({p + "in_proj_weight", {3 * d, d}});
  out.push_back({p + "in_proj_bias", {3 * d}});
  out.push_back({p + "out_proj.weight", {d, d}});
  out.push_back({p + "out_proj.bias", {d}});
}

// The feed-forward sub-layer's linears (unless attention-only) and the layer's LayerNorms, one per
// sub-layer (`norms` of them with the feed-forward one, which attention-only layers lack).
void add_ffn_and_norms(std::vector<std::pair<std::string, Shape>>& out, const std::string& p,
                       int64_t d, int64_t f, int norms, bool ffn) {
  if (ffn) {
    out.push_back({p + "linear1.weight", {f, d}});
    out.push_back({p + "linear1.bias", {f}});
    out.push_back({p + "linear2.weight", {d, f}});
    out.push_back({p + "linear2.bias", {d}});
  }
  for (int k = 1; k <= norms - (ffn ? 0 : 1); ++k) {
    out.push_back({p + "norm" + std::to_string(k) + ".weight", {d}});
    out.push_back({p + "norm" + std::to_string(k) + ".bias", {d}});
  }
}

void add_final_norm(std::vector<std::pair<std::string, Shape>>& out, const std::string& stack, int64_t d) {
  out.push_back({stack + ".norm.weight", {d}});
  out.push_back({stack + ".norm.bias", {d}});
}

}  // namespace

std::vector<std::pair<std::string, Shape>> expected_parameters(const ModelConfig& cfg, int64_t vocab_size,
                                                               bool head_bias) {
  std::vector<std::pair<std::string, Shape>> out;
  const int64_t d = cfg.d_model, f = cfg.d_ff;
  if (vocab_size > 0) out.push_back({"embedding.weight", {vocab_size, d}});
  const bool learned = cfg.positional == Positional::Learned;
  if (learned) out.push_back({position_table_name("encoder"), {cfg.max_positions, d}});
  if (cfg.token_types > 0) out.push_back({"encoder.token_type_embedding.weight", {cfg.token_types, d}});
  if (cfg.embedding_norm) {
    out.push_back({"encoder.embedding_norm.weight", {d}});
    out.push_back({"encoder.embedding_norm.bias", {d}});
  }
  for (int64_t i = 0; i < cfg.layers; ++i) {
    const std::string p = "encoder.layers." + std::to_string(i) + ".";
    add_attention(out, p + "self_attn.", d);
    add_ffn_and_norms(out, p, d, f, 2, cfg.ffn);
  }
  if (cfg.final_norm) add_final_norm(out, "encoder", d);
  if (cfg.cross && learned) out.push_back({position_table_name("decoder"), {cfg.max_positions, d}});
  if (cfg.cross)
    for (int64_t i = 0; i < cfg.layers; ++i) {
      const std::string p = "decoder.layers." + std::to_string(i) + ".";
      add_attention(out, p + "self_attn.", d);
      add_attention(out, p + "multihead_attn.", d);
      add_ffn_and_norms(out, p, d, f, 3, cfg.ffn);
    }
  if (cfg.cross && cfg.final_norm) add_final_norm(out, "decoder", d);
  if (vocab_size > 0 && cfg.head_transform) {
    out.push_back({"output_head.transform.weight", {d, d}});
    out.push_back({"output_head.transform.bias", {d}});
    out.push_back({"output_head.transform_norm.weight", {d}});
    out.push_back({"output_head.transform_norm.bias", {d}});
  }
  if (vocab_size > 0) {
    out.push_back({"output_head.weight", {vocab_size, d}});
    if (head_bias) out.push_back({"output_head.bias", {vocab_size}});
  }
  return out;
}

std::vector<std::pair<std::string, Shape>> model_parameters(const ModelConfig& cfg, const TrainedVocab* vocab) {
  return vocab ? expected_parameters(cfg, vocab->size(), vocab->head_bias) : expected_parameters(cfg);
}

std::string position_table_name(const std::string& stack) { return stack + ".position_embedding.weight"; }

int64_t parameter_count(const ModelConfig& cfg) {
  int64_t n = 0;
  for (const auto& [name, shape] : expected_parameters(cfg)) n += numel_of(shape);
  return n;
}

Weights init_weights(const ModelConfig& cfg) {
  Weights w;
  for (const auto& [name, shape] : expected_parameters(cfg)) {
    Tensor t(shape);
    const bool is_norm = name.find("norm") != std::string::npos;  // norm1, norm, embedding_norm, transform_norm
    const bool is_bias = name.ends_with("bias");
    if (name.ends_with("_embedding.weight")) {  // position and token-type tables: N(0, 1), as nn.Embedding starts
      const Stream s("param:" + name, cfg.seed);
      float* p = t.data();
      const int64_t n = t.numel();
#pragma omp parallel for schedule(static) if (n >= kParallelElements)
      for (int64_t i = 0; i < n; ++i) p[i] = static_cast<float>(s.normal(static_cast<uint64_t>(i)));
    } else if (is_norm) {
      if (!is_bias) std::fill_n(t.data(), t.numel(), 1.0f);
    } else {
      // fan_in: the input width of the layer the tensor belongs to.
      const int64_t fan_in = name.find("linear2") != std::string::npos ? cfg.d_ff : cfg.d_model;
      const double a = is_bias ? 1.0 / std::sqrt(double(fan_in)) : std::sqrt(3.0 / double(fan_in));
      const Stream s("param:" + name, cfg.seed);
      float* p = t.data();
      const int64_t n = t.numel();
#pragma omp parallel for schedule(static) if (n >= kParallelElements)
      for (int64_t i = 0; i < n; ++i) p[i] = static_cast<float>(a * (2.0 * s.uniform(static_cast<uint64_t>(i)) - 1.0));
    }
    w.set(name, std::move(t));
  }
  return w;
}

void check_weights(const ModelConfig& cfg, const Weights& w) {
  for (const auto& [name, shape] : model_parameters(cfg, w.vocab().get())) {
    if (const HalfTensor* h = w.half(name)) {  // checked in 16 bits: no widening
      if (h->shape != shape)
        throw DataError(Text(Msg::ls_weights_prefix) + Text(Msg::tensor_has_shape_but_configuration_needs, name,
                                                            shape_str(h->shape), shape_str(shape)));
      if (const int64_t i = h->first_non_finite(); i >= 0)
        throw DataError(Text(Msg::ls_weights_prefix) + Text(Msg::tensor_holds_non_finite_value_nan_element, name, i));
      continue;
    }
    const Tensor t = w.get(name);
    if (t.shape() != shape)
      throw DataError(Text(Msg::ls_weights_prefix) + Text(Msg::tensor_has_shape_but_configuration_needs, name,
                                                          shape_str(t.shape()), shape_str(shape)));
    const float* p = t.data();
    for (int64_t i = 0; i < t.numel(); ++i)
      if (!std::isfinite(p[i]))
        throw DataError(Text(Msg::ls_weights_prefix) + Text(Msg::tensor_holds_non_finite_value_nan_element, name, i));
  }
}

}  // namespace attnlab
