#include "pretrained/kv_check.h"

#include <algorithm>
#include <cmath>
#include <limits>
#include <stdexcept>
#include <string>

#include "model/trained.h"
#include "pretrained/kv_decode.h"

namespace attnlab::pretrained {

namespace {

constexpr int64_t kPrefixChunk = 256;  // pieces fed at once before the checked one: scores (≤ 256, seen)

// |a − b|, a NaN or infinity counted as an infinite difference (std::max would skip a NaN).
double difference(double a, double b) {
  const double d = std::abs(a - b);
  return std::isfinite(d) ? d : std::numeric_limits<double>::infinity();
}

// Largest |a[first + h, k] − t[b, h, p, k]| over the heads t holds and keys k < seen; a (H, seen),
// t (B, H, S, S) — or (B, 1, S, S), one head of a tiled layer kept whole, `first` that head.
double row_difference(const Tensor& a, const Tensor& t, int64_t b, int64_t p, int64_t first) {
  double worst = 0;
  for (int64_t h = 0; h < t.size(1); ++h)
    for (int64_t k = 0; k < a.size(1); ++k)
      worst = std::max(worst, difference(a.at({first + h, k}), t.at({b, h, p, k})));
  return worst;
}

// Rows [0, n) of sentence b in every layer's k_proj and v_proj (B, S, D), contiguous → the cache,
// copied straight from the trace; false (the cache untouched) when a layer's projections are not in
// the trace or not of that shape.
bool seed_from_trace(KvDecoder& cache, const ModelConfig& cfg, const Trace& trace, int64_t b, int64_t n) {
  std::vector<const float*> keys, values;
  const auto rows = [&](const Step* s) -> const float* {  // sentence b's first row, or null
    if (!s) return nullptr;
    const Tensor& t = s->tensor;
    if (t.dim() != 3 || t.size(0) <= b || t.size(1) < n || t.size(2) != cfg.d_model || !t.is_contiguous()) return nullptr;
    return t.data() + b * t.size(1) * t.size(2);
  };
  for (int64_t i = 0; i < cfg.layers; ++i) {
    const std::string at = "encoder.layers." + std::to_string(i) + ".self_attn.";
    keys.push_back(rows(trace.find(at + "k_proj")));
    values.push_back(rows(trace.find(at + "v_proj")));
    if (!keys.back() || !values.back()) return false;
  }
  cache.seed(keys, values, n);
  return true;
}

}  // namespace

int64_t kv_decode_macs(const ModelConfig& cfg, int64_t vocab, int64_t seen) {
  const int64_t d = cfg.d_model, f = cfg.d_ff;
  return cfg.layers * (4 * d * d + 2 * d * f + 2 * seen * d) + vocab * d;
}

int64_t full_pass_macs(const ModelConfig& cfg, int64_t vocab, int64_t seen) {
  const int64_t d = cfg.d_model, f = cfg.d_ff;
  return cfg.layers * (seen * (4 * d * d + 2 * d * f) + 2 * seen * seen * d) + seen * vocab * d;
}

int64_t kv_check_bytes(const ModelConfig& cfg, int64_t seen) {
  const int64_t floats =
      2 * cfg.layers * seen * cfg.d_model + std::min(seen, kPrefixChunk) * seen + cfg.layers * cfg.heads * seen;
  return floats * static_cast<int64_t>(sizeof(float));
}

KvDecodeCheck check_kv_decode(const ModelConfig& cfg, const Weights& w, const Batch& batch, const Trace& trace,
                              int64_t b, const KvCheckOptions& how, Backend& be) {
  const Step* logits = trace.find("encoder.output_head.logits");
  if (!logits || !w.vocab() || b < 0 || b >= batch.text.batch())
    throw std::logic_error("check_kv_decode: no logits in the trace, or no such sentence");
  const auto& pieces = batch.text.tokens[static_cast<size_t>(b)];
  const int64_t seen = batch.text.lengths[static_cast<size_t>(b)];
  std::vector<int> ids;
  for (int64_t i = 0; i < seen; ++i) ids.push_back(w.vocab()->id(pieces[static_cast<size_t>(i)]));

  KvDecoder cache(cfg, w, seen, be);
  const bool from_trace = how.from_trace && seed_from_trace(cache, cfg, trace, b, seen - 1);
  for (int64_t at = 0; !from_trace && at + 1 < seen; at += kPrefixChunk) {  // the text before the piece, in chunks
    if (how.cancel && how.cancel->load()) throw Cancelled();
    const int64_t n = std::min(kPrefixChunk, seen - 1 - at);
    cache.feed({ids.begin() + at, ids.begin() + at + n});
  }
  KvProbe probe;
  const std::vector<float> got = cache.feed({ids.back()}, &probe);  // the piece alone

  KvDecodeCheck out;
  out.tolerance = how.tolerance;
  out.from_trace = from_trace;
  out.sentence = b;
  out.position = seen - 1;
  for (int64_t i = 0; i < cfg.layers; ++i) {
    const Tensor& a = probe.attention[static_cast<size_t>(i)];  // (H, seen)
    const std::string at = "encoder.layers." + std::to_string(i) + ".self_attn.weights";
    const auto compare = [&](const Step* s, int64_t first, int64_t heads) {
      if (!s || s->tensor.dim() != 4 || s->tensor.size(1) != heads) return;
      out.heads_compared += heads;
      out.attention_difference = std::max(out.attention_difference, row_difference(a, s->tensor, b, out.position, first));
    };
    compare(trace.find(at), 0, cfg.heads);  // a full layer: every head
    for (int64_t h = 0; h < cfg.heads; ++h) compare(trace.find(at + "_head_" + std::to_string(h)), h, 1);  // kept heads
  }
  const Tensor& l = logits->tensor;  // (B, S, V)
  for (int64_t v = 0; v < l.size(2); ++v) {
    const double want = l.at({b, out.position, v});
    out.logits_scale = std::max(out.logits_scale, std::abs(want));
    out.logits_difference = std::max(out.logits_difference, difference(got[static_cast<size_t>(v)], want));
  }
  out.decode_macs = kv_decode_macs(cfg, l.size(2), seen);
  out.full_macs = full_pass_macs(cfg, l.size(2), seen);
  return out;
}

}  // namespace attnlab::pretrained
