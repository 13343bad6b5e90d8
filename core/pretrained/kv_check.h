// "Append and continue" in the window, checked by the KV cache: the sentence's last piece — the one
// just drawn — decoded as generation decodes it (kv_decode.h: the pieces before it fed first, then
// the piece alone, one query row per layer against the cached keys and values), and compared with
// what the traced whole pass computed at that position: every traced layer's attention row and the
// logits. Also what each way costs in multiply-adds, the reason the cache exists.
//
//   new piece at position p (seen = p + 1 keys), per layer:   4·D² + 2·D·F + 2·seen·D,  + V·D logits
//   the whole text again (what the traced pass did):   seen · (4·D² + 2·D·F) + 2·seen²·D per layer,
//                                                      + seen · V · D logits (every position)
#pragma once

#include <atomic>
#include <cstdint>

#include "backend/backend.h"
#include "forward/model.h"
#include "model/config.h"
#include "model/trace.h"
#include "model/weights.h"

namespace attnlab::pretrained {

struct KvDecodeCheck {
  int64_t sentence = 0, position = 0;  // the piece's row in the batch and its position (seen − 1)
  int64_t heads_compared = 0;          // layers × heads whose weights the trace holds (a tiled layer's: its kept heads)
  double attention_difference = 0;    // largest |a_cache − a_trace| over those heads and their keys
  double logits_difference = 0;       // largest |logit_cache − logit_trace| at the position
  double logits_scale = 0;            // largest |logit_trace| there
  int64_t decode_macs = 0, full_macs = 0;  // multiply-adds: the piece with the cache, the whole text again
  double tolerance = 1e-5;  // see agrees()
  bool from_trace = false;  // the earlier rows were the trace's k_proj / v_proj (KvCheckOptions), not fed again

  // Equal as floats computed in a different order can be: the weights within `tolerance`, the logits
  // within `tolerance` of their scale — 1e-5 against a trace made on the CPU (kv_decode's tests hold
  // the cache to the same), wider against a GPU's. A NaN is never within.
  bool agrees() const { return attention_difference <= tolerance && logits_difference <= tolerance * logits_scale; }
};

// Multiply-adds of one new piece through the cache at `seen` positions, and of the whole pass on
// `seen` positions, for cfg's sizes and a V-piece head (the formulas above).
int64_t kv_decode_macs(const ModelConfig& cfg, int64_t vocab, int64_t seen);
int64_t full_pass_macs(const ModelConfig& cfg, int64_t vocab, int64_t seen);

// Memory the check takes beside the trace at `seen` positions, at most: the cache's key and value
// rows (2·layers·seen·D floats), one head's scores while the text before the piece is fed (at most
// 256 pieces at a time: min(seen, 256)·seen) and the probe's rows (layers·H·seen).
int64_t kv_check_bytes(const ModelConfig& cfg, int64_t seen);

// Where the cache's rows for the positions before the piece come from: the trace's own k_proj and
// v_proj (B, S, D) rows — what a cache holds, since a causal pass never changes an earlier row, and
// the window's way (the check then costs one piece's pass, and checks that piece's position only:
// the earlier rows are taken as the trace made them) — or fed again piece by piece, as generation
// makes them, which checks them too (at most 256 pieces at a time; `cancel`, when set between
// them, stops it). A trace without a layer's projections is fed.
struct KvCheckOptions {
  bool from_trace = true;
  double tolerance = 1e-5;  // KvDecodeCheck::tolerance
  const std::atomic<bool>* cancel = nullptr;
};

// Sentence b's last real piece decoded with the cache and compared with `trace` (the whole pass
// of `batch` with `w`: "encoder.layers.{i}.self_attn.weights" (B, H, S, S) where traced in full,
// "….weights_head_{h}" (B, 1, S, S) for a tiled layer's kept heads, "encoder.output_head.logits"
// (B, S, V)). Needs kv_cacheable(cfg) and the logits step (logic_error otherwise); a one-piece
// sentence is decoded from an empty cache.
KvDecodeCheck check_kv_decode(const ModelConfig& cfg, const Weights& w, const Batch& batch, const Trace& trace,
                              int64_t b, const KvCheckOptions& how = {}, Backend& be = cpu_backend());

}  // namespace attnlab::pretrained
