// The encoder stack handed whole to a backend that keeps it on its device (backend/resident.h):
// the untraced fast path of encoder_stack() and forward() on Vulkan, and `attnlab bench`, which
// makes one and times its passes apart from the weights' upload.
#pragma once

#include <memory>
#include <optional>

#include "backend/backend.h"
#include "model/config.h"
#include "model/weights.h"

namespace attnlab {

// The encoder layers' shape, and their weights as the backend takes them: read from w (and a
// 16-bit one widened) only when the backend asks for a layer, so the spec must not outlive w.
StackSpec encoder_stack_spec(const ModelConfig& cfg, const Weights& w);

// be's resident encoder stack with w uploaded now, or null: the backend has none (the CPU), a
// fault is injected (the faulty ops run one by one), fusing is off (the five steps were asked
// for), ATTNLAB_VULKAN_RESIDENT=0 is set, or the stack does not fit the device. The stack must
// not outlive be.
std::unique_ptr<ResidentStack> make_resident_encoder(const ModelConfig& cfg, const Weights& w, Backend& be);

// The stack over x (B, S, D) with mask (B, S, S) run resident when it can be; nullopt otherwise
// (the caller runs the layers op by op).
std::optional<Tensor> run_resident_encoder(const ModelConfig& cfg, const Weights& w, Backend& be, const Tensor& x,
                                           const Tensor& mask);

}  // namespace attnlab
