// Where the heavy work runs. The model calls these operations through a Backend; the CPU
// backend is ops.h (Eigen), the Vulkan backend (core/backend/vulkan/) runs them as compute shaders and is
// checked against the CPU by the parity table (tests/test_backend.cpp).
//
// Shapes: as ops.h. Every result is a fresh contiguous tensor (softmax works in place).
#pragma once

#include <map>
#include <memory>
#include <mutex>
#include <string>
#include <string_view>

#include "backend/resident.h"
#include "tensor/key_ranges.h"
#include "tensor/ops.h"
#include "tensor/tensor.h"
#include "text/errors.h"

namespace attnlab {

// A name for the CPU that runs: "CPU: <model name> (Eigen x.y.z, N threads)".
std::string cpu_device_name();
// The same as a Text (the template "CPU: %1 (Eigen %2, %3 threads)"), for the window to translate.
Text cpu_device_text();

class Backend {
 public:
  virtual ~Backend() = default;
  virtual std::string name() const = 0;    // "cpu" | "vulkan" (the manifest's "backend")
  virtual std::string device() const = 0;  // e.g. "llvmpipe (LLVM 15.0.6, 256 bits)"
  // device() as a Text: the CPU's a catalogue message, a Vulkan device's name verbatim (the driver's words).
  virtual Text device_text() const = 0;

  // x (…, In) · w[row0 : row0 + rows]ᵀ (rows, In) + b[row0 : row0 + rows] → (…, rows).
  virtual Tensor linear_rows(const Tensor& x, const Tensor& w, const Tensor& b, int64_t row0, int64_t rows) = 0;
  Tensor linear(const Tensor& x, const Tensor& w, const Tensor& b) { return linear_rows(x, w, b, 0, w.size(0)); }
  // linear then ReLU, and linear then + residual (the output's shape): the untraced path's FFN and
  // residual connections. Here the two steps; the CPU does both in the product's pass (ops.h).
  virtual Tensor linear_relu(const Tensor& x, const Tensor& w, const Tensor& b) {
    return activate(linear(x, w, b), Activation::Relu);
  }
  virtual Tensor linear_add(const Tensor& x, const Tensor& w, const Tensor& b, const Tensor& residual) {
    return add(residual, linear(x, w, b));
  }
  // a (…, M, K) · b (…, K, N) → (…, M, N); a and b may be strided views.
  virtual Tensor matmul(const Tensor& a, const Tensor& b) = 0;
  // Over the last axis of a contiguous tensor; an all −∞ row becomes NaN (as PyTorch).
  virtual void softmax_lastdim_inplace(Tensor& x) = 0;
  // A fresh tensor, x kept (the traced forward); by default a copy, then the in-place softmax.
  virtual Tensor softmax_lastdim(const Tensor& x) {
    Tensor w = x.clone();
    softmax_lastdim_inplace(w);
    return w;
  }
  virtual Tensor activate(const Tensor& x, Activation a) = 0;
  // The attention of the fast path (no trace): softmax(q·kᵀ / root, −∞ where mask = 0)·v.
  // q (B, H, Tq, Dh), k and v (B, H, Tk, Dh), any strides; mask (B, Tq, Tk) contiguous →
  // (B, H, Tq, Dh), any strides (the CPU's tiled path: a view of (B, Tq, H, Dh) storage).
  // Here: the same five steps the traced path records, on this backend. The Vulkan backend fuses
  // them (an online softmax, no score matrix) unless told not to.
  virtual Tensor attention(const Tensor& q, const Tensor& k, const Tensor& v, const Tensor& mask, float root);
  // The same with the mask as key ranges (a built-in kind). Here: the dense mask is made and
  // the call above made with it; the CPU's tiled path never makes it.
  virtual Tensor attention(const Tensor& q, const Tensor& k, const Tensor& v, const KeyRanges& mask, float root) {
    return attention(q, k, v, mask.dense(), root);
  }
  virtual void set_fused_attention(bool) {}
  virtual bool fused_attention() const { return false; }
  // The stack with its weights uploaded now and kept on the device (resident.h), or null where
  // this backend has no such path (the CPU: its memory is the device) or the stack does not fit
  // it (a head wider than the fused kernel's registers, a weight past one buffer's range).
  virtual std::unique_ptr<ResidentStack> make_resident_stack(const StackSpec&) { return nullptr; }

  // Device time of the work since reset_timing(), from timestamp queries; 0 on the CPU.
  virtual double device_ms() const { return 0; }
  virtual void reset_timing() {}
};

class CpuBackend : public Backend {
 public:
  std::string name() const override { return "cpu"; }
  std::string device() const override;
  Text device_text() const override;
  Tensor linear_rows(const Tensor& x, const Tensor& w, const Tensor& b, int64_t row0, int64_t rows) override {
    return attnlab::linear_rows(x, w, b, row0, rows);
  }
  Tensor linear_relu(const Tensor& x, const Tensor& w, const Tensor& b) override {
    return attnlab::linear_relu(x, w, b);
  }
  Tensor linear_add(const Tensor& x, const Tensor& w, const Tensor& b, const Tensor& residual) override {
    return attnlab::linear_add(x, w, b, residual);
  }
  Tensor matmul(const Tensor& a, const Tensor& b) override { return attnlab::matmul(a, b); }
  void softmax_lastdim_inplace(Tensor& x) override { attnlab::softmax_lastdim_inplace(x); }
  Tensor softmax_lastdim(const Tensor& x) override { return attnlab::softmax_lastdim(x); }  // no copy first
  Tensor activate(const Tensor& x, Activation a) override { return attnlab::activate(x, a); }
  // Tiled (attention_tiled.h: no score matrix) when fusing is on and the head views have a unit
  // last stride; otherwise the five steps.
  Tensor attention(const Tensor& q, const Tensor& k, const Tensor& v, const Tensor& mask, float root) override;
  Tensor attention(const Tensor& q, const Tensor& k, const Tensor& v, const KeyRanges& mask, float root) override;
  void set_fused_attention(bool on) override { tiled_ = on; }
  bool fused_attention() const override { return tiled_; }

 private:
  bool tiled_ = false;
};

// The process-wide CPU backend, never tiled (set_fused_attention is for instances of one's own).
Backend& cpu_backend();

// A Vulkan problem: no loader, no device, no compute queue, out of memory, a lost device, a
// tensor beyond the device's limits. Under --backend auto the caller falls back to the CPU.
struct VulkanError : DataError {
  using DataError::DataError;
};
// Nothing to run Vulkan on: no loader, no driver, no device (or, for auto, only a CPU-type one).
// Under auto that is the ordinary case of a machine without a GPU, not a failure.
struct VulkanUnavailable : VulkanError {
  using VulkanError::VulkanError;
};

// Why the CPU ran when Vulkan was asked for. failure: a Vulkan device was there and failed (the
// command line says so on stderr); otherwise there was none to use (said only in the results).
struct BackendNote {
  Text text;
  bool failure = false;
};

enum class BackendKind { Cpu, Vulkan, Auto };
BackendKind parse_backend(std::string_view s);  // "cpu" | "vulkan" | "auto"; throws ConfigError
std::string_view backend_kind_name(BackendKind k);  // the inverse of parse_backend
bool vulkan_compiled_in();

// cpu → the CPU. vulkan → the best Vulkan device, a CPU-type one (lavapipe) included, or
// VulkanError. auto → a real GPU (never a CPU-type device) when there is one, otherwise the
// CPU, with the reason in *note. ATTNLAB_VULKAN_DEVICE=N picks device N (vulkaninfo's order).
// A backend that could be made leaves *note as it was.
std::shared_ptr<Backend> make_backend(BackendKind kind, BackendNote* note = nullptr);

// Backends kept for reuse: making a Vulkan device and its pipelines takes a while. The cache is
// thread-safe; a Vulkan backend it hands out must still be used by one thread at a time.
class BackendCache {
 public:
  std::shared_ptr<Backend> get(BackendKind kind, BackendNote* note);
  void drop(BackendKind kind);  // after a failure: made anew next time

 private:
  std::mutex mutex_;
  std::map<BackendKind, std::pair<std::shared_ptr<Backend>, BackendNote>> made_;
};

// Runs run(backend) on the backend `kind` asks for and returns the one that did the work. Under
// auto a VulkanError during the run (out of device memory, a lost device) is told in *note and
// the whole run repeated on the CPU, so `run` must start from scratch each time it is called.
template <typename Run>
std::shared_ptr<Backend> run_with_fallback(std::shared_ptr<Backend> be, BackendKind kind, Run&& run,
                                           BackendNote* note = nullptr, BackendCache* cache = nullptr) {
  try {
    run(*be);
    return be;
  } catch (const VulkanError& e) {
    if (cache) cache->drop(kind);
    if (kind != BackendKind::Auto || be->name() == "cpu") throw;
    if (note) *note = {e.text() + Text(Msg::en_computed_cpu_instead), true};
  }
  be = make_backend(BackendKind::Cpu);
  run(*be);
  return be;
}

template <typename Run>
std::shared_ptr<Backend> run_on_backend(BackendKind kind, Run&& run, BackendNote* note = nullptr,
                                        BackendCache* cache = nullptr) {
  return run_with_fallback(cache ? cache->get(kind, note) : make_backend(kind, note), kind, std::forward<Run>(run),
                           note, cache);
}

}  // namespace attnlab
