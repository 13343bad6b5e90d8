#include "forward/resident_stack.h"

#include <cstdlib>
#include <string>
#include <string_view>

namespace attnlab {

StackSpec encoder_stack_spec(const ModelConfig& cfg, const Weights& w) {
  const bool ffn = cfg.ffn;
  return {.d_model = cfg.d_model, .heads = cfg.heads, .d_ff = cfg.d_ff, .pre_norm = cfg.norm == Norm::Pre,
          .ffn = ffn, .activation = cfg.activation, .eps = cfg.eps, .layer_count = cfg.layers,
          .layer = [&w, ffn](int64_t i) {
            const std::string p = "encoder.layers." + std::to_string(i) + ".";
            StackLayerWeights l{.in_proj_w = w.get(p + "self_attn.in_proj_weight"),
                                .in_proj_b = w.get(p + "self_attn.in_proj_bias"),
                                .out_w = w.get(p + "self_attn.out_proj.weight"),
                                .out_b = w.get(p + "self_attn.out_proj.bias"),
                                .norm1_w = w.get(p + "norm1.weight"),
                                .norm1_b = w.get(p + "norm1.bias")};
            if (ffn) {
              l.norm2_w = w.get(p + "norm2.weight"), l.norm2_b = w.get(p + "norm2.bias");
              l.linear1_w = w.get(p + "linear1.weight"), l.linear1_b = w.get(p + "linear1.bias");
              l.linear2_w = w.get(p + "linear2.weight"), l.linear2_b = w.get(p + "linear2.bias");
            }
            return l;
          }};
}

std::unique_ptr<ResidentStack> make_resident_encoder(const ModelConfig& cfg, const Weights& w, Backend& be) {
  if (!cfg.faults.empty() || !be.fused_attention() || be.name() == "cpu") return nullptr;
  // ATTNLAB_VULKAN_RESIDENT=0: op by op, for measuring the two paths side by side (docs/cli.md).
  if (const char* env = std::getenv("ATTNLAB_VULKAN_RESIDENT"); env && std::string_view(env) == "0") return nullptr;
  return be.make_resident_stack(encoder_stack_spec(cfg, w));
}

std::optional<Tensor> run_resident_encoder(const ModelConfig& cfg, const Weights& w, Backend& be, const Tensor& x,
                                           const Tensor& mask) {
  auto stack = make_resident_encoder(cfg, w, be);
  if (!stack) return std::nullopt;
  return stack->run(x, mask);
}

}  // namespace attnlab
