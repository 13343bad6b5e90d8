// GPT-2 decoding with a KV cache: what the variants lab's KV-cache walk-through teaches
// (core/variants, "….variant.kv_cache.*"), used where it pays — generation. Under the causal
// mask, position p's keys and values never change once computed, so each layer keeps them, one
// row per position; a new piece then costs one row through every projection and one query
// against the cache, not the whole text again.
//
//   feed(ids) — n pieces at positions [t, t + n): the prompt at once, then one piece per draw.
//     x = E[ids] + P[t : t+n]                                    (n, D)
//     per layer i (pre-norm, as GPT-2):
//       h = norm1(x); q, k, v = h·W_Qᵀ + b_Q, h·W_Kᵀ + b_K, h·W_Vᵀ + b_V           (n, D) each
//       K_i[t : t+n] = k; V_i[t : t+n] = v                       cache rows (heads side by side)
//       query j, head h: a = softmax(q_jh · K_i[0 : t+j+1, h]ᵀ / √Dh); ctx_jh = a · V_i[…, h]
//       x = x + out_proj(ctx); x = x + linear2(act(linear1(norm2(x))))
//     logits = norm(x)[n−1] · Eᵀ (+ b when the head has a bias)  (V)
//
// The naive reference is the whole forward pass (forward/model.h) on the whole text: the tests
// compare the logits at the last position of every feed with its logits there.
#pragma once

#include <cstdint>
#include <vector>

#include "backend/backend.h"
#include "model/config.h"
#include "model/weights.h"
#include "tensor/tensor.h"

namespace attnlab::pretrained {

// Whether a configuration is the stack feed() computes: decoder-only (no cross-attention), pre-norm,
// learned positions, the causal mask, a final LayerNorm, a feed-forward sub-layer, none of BERT's
// parts and no injected fault. Any other runs the whole forward pass per piece.
bool kv_cacheable(const ModelConfig& cfg);

// What feed() can show of its last piece: per layer, the attention the last query gave every key
// it sees, (H, seen) — the one row of the weights that the cache computes for a new piece.
struct KvProbe {
  std::vector<Tensor> attention;  // [layer] (H, seen)
};

class KvDecoder {
 public:
  // capacity: the most positions this decoder will hold (prompt + pieces to add), at most
  // cfg.max_positions. Needs kv_cacheable(cfg) and a trained head (logic_error otherwise).
  KvDecoder(const ModelConfig& cfg, const Weights& w, int64_t capacity, Backend& be = cpu_backend());

  // Runs the pieces `ids` at the next positions; returns the logits (V) at the last of them, and
  // fills `probe` (when given) with each layer's attention row of that last piece.
  // logic_error for no piece, an id outside the vocabulary or a position past capacity.
  std::vector<float> feed(const std::vector<int>& ids, KvProbe* probe = nullptr);

  // Takes rows [0, n) of each layer's keys and values as computed elsewhere — k_proj, v_proj of a
  // causal whole pass, whose earlier rows a later piece never changes — instead of feeding those
  // pieces: keys[i], values[i] point at n rows of D floats, one after another (copied; nothing else
  // is allocated). Needs an empty cache, one pointer pair per layer and n ≤ capacity.
  void seed(const std::vector<const float*>& keys, const std::vector<const float*>& values, int64_t n);

  int64_t length() const { return length_; }  // positions held
  int64_t cache_bytes() const;                 // the K and V rows held, every layer

 private:
  Tensor embed(const std::vector<int>& ids) const;        // (1, n, D)
  // norm1(x) (1, n, D) → out_proj(ctx) (1, n, D); the last query's weights (H, seen) into `row` when given
  Tensor attention(int64_t layer, const Tensor& h, Tensor* row);
  Tensor feed_forward(int64_t layer, const Tensor& x);    // x (1, n, D) → ffn(norm2(x)) (1, n, D)
  std::vector<float> logits(const Tensor& x) const;       // x (1, n, D) → (V) at row n − 1

  const ModelConfig& cfg_;
  const Weights& w_;
  Backend& be_;
  int64_t capacity_ = 0, length_ = 0;
  std::vector<Tensor> keys_, values_;  // per layer (capacity, D): row p = position p's k or v
  Tensor head_bias_;                   // (V): the head's bias, zeros for GPT-2's tied head
};

}  // namespace attnlab::pretrained
