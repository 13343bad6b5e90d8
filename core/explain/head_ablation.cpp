#include "explain/head_ablation.h"

#include <algorithm>
#include <set>
#include <stdexcept>
#include <string>
#include <tuple>

#include "backward/model_backward.h"
#include "explain/needed_step.h"
#include "explain/rerun.h"
#include "explain/stop.h"
#include "model/comma_list.h"
#include "tensor/checked.h"
#include "text/errors.h"

namespace attnlab::explain {

namespace {

constexpr HeadBlock kBlocks[] = {HeadBlock::Encoder, HeadBlock::Decoder, HeadBlock::Cross};

// The step and weight prefix of a head's attention: "encoder.layers.1.self_attn.", …
std::string prefix(const HeadRef& h) { return attention_id(h.block, h.layer) + "."; }

}  // namespace

std::string_view block_name(HeadBlock b) {
  switch (b) {
    case HeadBlock::Decoder: return "decoder";
    case HeadBlock::Cross: return "cross";
    case HeadBlock::Encoder: break;
  }
  return "encoder";
}

std::string attention_id(HeadBlock b, int64_t layer) {
  const std::string l = std::to_string(layer);
  switch (b) {
    case HeadBlock::Decoder: return "decoder.layers." + l + ".self_attn";
    case HeadBlock::Cross: return "decoder.layers." + l + ".multihead_attn";
    case HeadBlock::Encoder: break;
  }
  return "encoder.layers." + l + ".self_attn";
}

bool head_before(const HeadRef& a, const HeadRef& b) {
  return std::tie(a.block, a.layer, a.head) < std::tie(b.block, b.layer, b.head);
}

std::string head_name(const HeadRef& h) {
  const std::string lh = std::to_string(h.layer) + "." + std::to_string(h.head);
  return h.block == HeadBlock::Encoder ? lh : std::string(block_name(h.block)) + "." + lh;
}

std::string head_label(const HeadRef& h, bool cross) {
  return cross && h.block == HeadBlock::Encoder ? "encoder." + head_name(h) : head_name(h);
}

std::string heads_text(const std::vector<HeadRef>& heads) {
  std::string out;
  for (const HeadRef& h : heads) out.append(out.empty() ? "" : ",").append(head_name(h));
  return out;
}

std::vector<HeadRef> parse_heads(std::string_view list) {
  std::vector<HeadRef> out;
  for (const std::string_view item : split_commas(list)) {
    HeadRef h;
    std::string_view rest = item;
    for (HeadBlock b : kBlocks)
      if (const std::string p = std::string(block_name(b)) + "."; rest.starts_with(p)) {
        h.block = b;
        rest.remove_prefix(p.size());
        break;
      }
    const size_t dot = rest.find('.');
    if (dot == std::string_view::npos || !parse_index(rest.substr(0, dot), h.layer) || !parse_index(rest.substr(dot + 1), h.head))
      throw ConfigError(Text(Msg::ex_ablate_not_a_head, std::string(item)));
    if (std::find(out.begin(), out.end(), h) == out.end()) out.push_back(h);
  }
  return out;
}

void check_heads(const ModelConfig& cfg, const std::vector<HeadRef>& heads) {
  for (const HeadRef& h : heads) {
    if (h.block != HeadBlock::Encoder && !cfg.cross) throw ConfigError(Text(Msg::ex_ablate_no_decoder, head_name(h)));
    if (h.layer >= cfg.layers || h.head >= cfg.heads)
      throw ConfigError(Text(Msg::ex_ablate_no_such_head, head_name(h), cfg.layers, cfg.heads));
  }
}

std::vector<double> mean_head_out(const Trace& fwd, const HeadRef& head, const std::vector<int>& lengths) {
  const Tensor& out = needed_step(fwd, prefix(head) + "head_out");  // (B, H, S, Dh)
  if (static_cast<int64_t>(lengths.size()) != out.size(0))  // e.g. a decoder head given no decoder lengths
    throw std::logic_error("mean_head_out: " + std::to_string(lengths.size()) + " lengths for a batch of " +
                           std::to_string(out.size(0)) + " (" + head_name(head) + ")");
  const int64_t dh = out.size(3);
  std::vector<double> mean(static_cast<size_t>(dh), 0.0);
  int64_t count = 0;
  for (int64_t b = 0; b < out.size(0); ++b)
    for (int64_t i = 0; i < lengths[static_cast<size_t>(b)]; ++i, ++count)
      for (int64_t k = 0; k < dh; ++k) mean[static_cast<size_t>(k)] += out.at({b, head.head, i, k});
  for (double& m : mean) m /= static_cast<double>(std::max<int64_t>(count, 1));
  return mean;
}

int64_t ablation_copy_bytes(const ModelConfig& cfg, const std::vector<HeadRef>& heads) {
  std::set<std::string> blocks;
  for (const HeadRef& h : heads) blocks.insert(prefix(h));
  const Count d = cfg.d_model;
  return (Count(static_cast<int64_t>(blocks.size())) * (d * d + d) * 4).value();
}

Weights ablate_heads(const ModelConfig& cfg, const Weights& w, const std::vector<HeadRef>& heads, AblateMode mode,
                     const Trace& fwd, const std::vector<int>& lengths, const std::vector<int>& decoder_lengths) {
  check_heads(cfg, heads);
  Weights out = w;
  const int64_t dh = cfg.d_model / cfg.heads;
  for (const HeadRef& h : heads) {
    const std::string p = prefix(h);
    Tensor wo = out.get(p + "out_proj.weight").clone();  // (D, D): column c reads context feature c
    Tensor bo = out.get(p + "out_proj.bias").clone();    // (D)
    const std::vector<int>& real = h.block == HeadBlock::Encoder ? lengths : decoder_lengths;  // its queries
    const std::vector<double> m = mode == AblateMode::Mean ? mean_head_out(fwd, h, real) : std::vector<double>();
    for (int64_t r = 0; r < wo.size(0); ++r) {
      double shift = 0;
      for (int64_t k = 0; k < dh; ++k) {
        float& c = wo.at({r, h.head * dh + k});
        if (!m.empty()) shift += static_cast<double>(c) * m[static_cast<size_t>(k)];
        c = 0.0f;
      }
      bo.at({r}) = static_cast<float>(bo.at({r}) + shift);
    }
    out.set(p + "out_proj.weight", std::move(wo));
    out.set(p + "out_proj.bias", std::move(bo));
  }
  return out;
}

std::vector<HeadEffect> head_effects(const ModelConfig& cfg, const Weights& w, const Trace& fwd, const LossSpec& loss,
                                     AblateMode mode, const std::vector<int>& lengths,
                                     const std::vector<int>& decoder_lengths, const std::atomic<bool>* stop) {
  const TraceInputs in = TraceInputs::of(cfg, fwd);  // every run from the trace's inputs under its masks (rerun.h)
  // What the loss reads, on the same untraced path for the clean run and every ablated one: the
  // logits for cross-entropy, else the stack's output (a trained model's head left out).
  const bool logits = loss.kind == LossKind::NextToken || loss.kind == LossKind::PerPosition;
  const auto loss_of = [&](Weights run) {
    const Weights scored = run;
    if (!logits) run.set_vocab(nullptr);
    return evaluate_loss(cfg, scored, fwd, loss, in.outputs(cfg, run)).value;
  };
  stop_if_asked(stop);
  const double clean = loss_of(w);
  std::vector<HeadEffect> out;
  for (HeadBlock block : kBlocks) {
    if (block != HeadBlock::Encoder && !cfg.cross) break;
    for (int64_t l = 0; l < cfg.layers; ++l)
      for (int64_t h = 0; h < cfg.heads; ++h) {
        const HeadRef head{l, h, block};
        stop_if_asked(stop);
        const double value = loss_of(ablate_heads(cfg, w, {head}, mode, fwd, lengths, decoder_lengths));
        out.push_back({head, value, value - clean});
      }
  }
  std::stable_sort(out.begin(), out.end(), [](const HeadEffect& a, const HeadEffect& b) { return a.delta > b.delta; });
  return out;
}

}  // namespace attnlab::explain
