// Head ablation: knock heads out and see what changes — heads of the encoder's self-attention, and
// in an encoder–decoder run those of the decoder's self-attention and of its cross-attention
// (multihead_attn) too. A head's contribution to its block is its head_out (B, H, S, Dh) times its
// Dh columns of W_O, so
//   zero: those columns of encoder.layers.{l}.self_attn.out_proj.weight set to 0;
//   mean: the same, after adding W_O[:, cols] · m to out_proj.bias, m (Dh) the head's head_out of
//         the clean run averaged over the batch's real positions — the real queries of its block,
//         the decoder's for its two blocks (TransformerLens's mean ablation).
// Both are exactly the edited head_out, done on the weights: every other step, the backward pass
// and reproduce.py run on the edited weights unchanged, and the trace's head_out still shows what
// the head computed. B batch, S tokens, D width, H heads, Dh = D / H.
#pragma once

#include <atomic>
#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

#include "backward/loss.h"
#include "forward/model.h"
#include "model/config.h"
#include "model/trace.h"
#include "model/weights.h"

namespace attnlab::explain {

// Which attention a head belongs to: the encoder's self-attention, the decoder's, or the decoder's
// cross-attention (the step ids' `self_attn` / `multihead_attn` under encoder. or decoder.).
enum class HeadBlock : uint8_t { Encoder, Decoder, Cross };
// "encoder", "decoder", "cross": the prefixes --ablate, sessions and manifests write.
std::string_view block_name(HeadBlock b);
// The block's step ids and weight names at `layer`: "encoder.layers.1.self_attn",
// "decoder.layers.1.self_attn", "decoder.layers.1.multihead_attn".
std::string attention_id(HeadBlock b, int64_t layer);

struct HeadRef {
  int64_t layer = 0, head = 0;
  HeadBlock block = HeadBlock::Encoder;
  bool operator==(const HeadRef&) const = default;
};
// The order the window keeps and emits: block, then layer, then head.
bool head_before(const HeadRef& a, const HeadRef& b);
enum class AblateMode : uint8_t { Zero, Mean };
// "zero" / "mean", as --ablate-mode, sessions and manifests spell them; a name the caller has
// checked is one of the two ("" and anything else read as zero).
inline std::string_view ablate_mode_name(AblateMode m) { return m == AblateMode::Mean ? "mean" : "zero"; }
inline AblateMode ablate_mode_of(std::string_view name) { return name == "mean" ? AblateMode::Mean : AblateMode::Zero; }

// "1.3,2.0" → {1, 3}, {2, 0}: layer.head of the encoder's self-attention ("encoder.1.3" too);
// "decoder.1.3" and "cross.1.3" name the decoder's self-attention and cross-attention heads. Each
// once, in the order given. ConfigError naming the item.
std::vector<HeadRef> parse_heads(std::string_view list);
// The other way: {1, 3} → "1.3", a decoder head "decoder.1.3"; a list → "1.3,cross.2.0" (what
// parse_heads reads; "" for none).
std::string head_name(const HeadRef& h);
std::string heads_text(const std::vector<HeadRef>& heads);
// The name the window shows: head_name, but in an encoder–decoder (`cross`) an encoder head too
// with its attention in front ("encoder.0.3"), where "0.3" alone would not say which.
std::string head_label(const HeadRef& h, bool cross);
// ConfigError when a head does not exist in `cfg` (a decoder head without a decoder among them).
void check_heads(const ModelConfig& cfg, const std::vector<HeadRef>& heads);

// The mean of head h's output over the real positions (i < lengths[b]) of every sentence, (Dh),
// from a clean traced run's head_out of its block (lengths: that block's queries').
std::vector<double> mean_head_out(const Trace& fwd, const HeadRef& head, const std::vector<int>& lengths);

// `w` with the heads knocked out (a copy; the tensors it edits are fresh). Mean mode reads `fwd`
// and the real lengths of the encoder's (`lengths`) and the decoder's (`decoder_lengths`) texts,
// one per sentence of the block's head (logic_error otherwise); zero mode reads neither.
Weights ablate_heads(const ModelConfig& cfg, const Weights& w, const std::vector<HeadRef>& heads, AblateMode mode,
                     const Trace& fwd, const std::vector<int>& lengths, const std::vector<int>& decoder_lengths = {});

// What ablate_heads' copy holds beside `w`: each knocked-out attention block's fresh out_proj
// weight and bias in F32, (D² + D) · 4 bytes a block (the memory estimates).
int64_t ablation_copy_bytes(const ModelConfig& cfg, const std::vector<HeadRef>& heads);

// Every head knocked out alone (an encoder–decoder's three blocks), the model run again untraced
// from the trace's inputs under its masks, and the loss evaluated: one row per head with the
// loss's change, largest first.
struct HeadEffect {
  HeadRef head;
  double loss = 0;   // the loss with the head knocked out
  double delta = 0;  // loss − the clean run's
};
// `stop` (stop.h): Cancelled before the next head's re-run once set.
std::vector<HeadEffect> head_effects(const ModelConfig& cfg, const Weights& w, const Trace& fwd, const LossSpec& loss,
                                     AblateMode mode, const std::vector<int>& lengths,
                                     const std::vector<int>& decoder_lengths, const std::atomic<bool>* stop = nullptr);

}  // namespace attnlab::explain
