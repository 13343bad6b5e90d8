#include "backend/vulkan/vk_resident.h"

#include <algorithm>
#include <cmath>
#include <cstring>

#include "backend/vulkan/vk_pipeline.h"
#include "backend/vulkan/vk_push.h"
#include "backend/vulkan/vulkan_backend.h"

namespace attnlab {

namespace {

constexpr uint64_t kStagingBytes = 64ull << 20;  // weights go up through at most this much at a time
constexpr uint32_t kDispatchesPerLayer = 8;      // add_norm ×3, gemm ×4, attention ×1 at most
constexpr uint32_t kMaxBindings = 6;             // add_norm's

using vk::ceil_div;
using vk::u32;

void compute_to_compute(const vk::Functions& f, VkCommandBuffer cmd) {
  vk::barrier(f, cmd, VK_PIPELINE_STAGE_COMPUTE_SHADER_BIT, VK_ACCESS_SHADER_WRITE_BIT,
              VK_PIPELINE_STAGE_COMPUTE_SHADER_BIT, VK_ACCESS_SHADER_READ_BIT | VK_ACCESS_SHADER_WRITE_BIT);
}

}  // namespace

// The per-pass buffers (device-local) for up to `rows` = B·S rows and `mask` = B·S·S floats, and
// the mapped buffer the input goes in and the output comes out through.
struct VulkanResidentStack::Activations {
  int64_t rows = 0, mask = 0;
  BufferPtr x[2], n, qkv, ctx, o, s, h, mask_buf, dummy, io;
};

bool VulkanResidentStack::fits(const VulkanBackend& be, const StackSpec& spec) {
  const int64_t dh = spec.heads > 0 ? spec.d_model / spec.heads : 0;
  if (dh < 1 || dh * spec.heads != spec.d_model || !vk::flash_takes(dh, be.ctx_->limits().maxComputeSharedMemorySize))
    return false;
  const uint64_t maxb = be.tiles_.max_buffer;
  const uint64_t d = static_cast<uint64_t>(spec.d_model), f = static_cast<uint64_t>(spec.d_ff);
  return 3 * d * d * 4 <= maxb && (!spec.ffn || f * d * 4 <= maxb);
}

VulkanResidentStack::VulkanResidentStack(VulkanBackend& be, const StackSpec& spec)
    : be_(be), ctx_(*be.ctx_), d_(spec.d_model), heads_(spec.heads), d_ff_(spec.d_ff), pre_norm_(spec.pre_norm),
      ffn_(spec.ffn), act_(spec.activation), eps_(static_cast<float>(spec.eps)) {
  const vk::Functions& f = ctx_.fn();
  try {
    staging_ = std::make_unique<vk::Buffer>(ctx_, std::min<uint64_t>(kStagingBytes, be.tiles_.max_buffer));
    for (int64_t i = 0; i < spec.layer_count; ++i) {
      const StackLayerWeights l = spec.layer(i);  // staged below; its tensors dropped after
      Layer L;
      L.in_w = upload(l.in_proj_w), L.in_b = upload(l.in_proj_b);
      L.out_w = upload(l.out_w), L.out_b = upload(l.out_b);
      L.n1_w = upload(l.norm1_w), L.n1_b = upload(l.norm1_b);
      if (ffn_) {
        L.n2_w = upload(l.norm2_w), L.n2_b = upload(l.norm2_b);
        L.l1_w = upload(l.linear1_w), L.l1_b = upload(l.linear1_b);
        L.l2_w = upload(l.linear2_w), L.l2_b = upload(l.linear2_b);
      }
      layers_.push_back(std::move(L));
    }
    flush_uploads();
    staging_.reset();
    const uint32_t sets = kDispatchesPerLayer * static_cast<uint32_t>(layers_.size()) + 2;
    const VkDescriptorPoolSize size{VK_DESCRIPTOR_TYPE_STORAGE_BUFFER, sets * kMaxBindings};
    VkDescriptorPoolCreateInfo dp{VK_STRUCTURE_TYPE_DESCRIPTOR_POOL_CREATE_INFO};
    dp.maxSets = sets;
    dp.poolSizeCount = 1;
    dp.pPoolSizes = &size;
    VK_CHECK(f.vkCreateDescriptorPool(ctx_.device(), &dp, nullptr, &pool_));
  } catch (...) {
    if (pool_) f.vkDestroyDescriptorPool(ctx_.device(), pool_, nullptr);
    throw;
  }
}

VulkanResidentStack::~VulkanResidentStack() {
  ctx_.fn().vkDestroyDescriptorPool(ctx_.device(), pool_, nullptr);
}

// A device-local copy of t, its bytes staged now and copied by the next flush_uploads().
VulkanResidentStack::BufferPtr VulkanResidentStack::upload(const Tensor& t_in) {
  const Tensor t = t_in.contiguous();
  const uint64_t bytes = static_cast<uint64_t>(t.numel()) * 4;
  auto dst = std::make_unique<vk::Buffer>(ctx_, bytes, vk::Memory::Device);
  const auto* src = reinterpret_cast<const unsigned char*>(t.data());
  for (uint64_t done = 0; done < bytes;) {
    if (staged_ == staging_->bytes()) flush_uploads();
    const uint64_t n = std::min(bytes - done, staging_->bytes() - staged_);
    std::memcpy(reinterpret_cast<unsigned char*>(staging_->data()) + staged_, src + done, n);
    pending_.push_back({staged_, dst.get(), done, n});
    staged_ += n;
    done += n;
  }
  return dst;
}

void VulkanResidentStack::flush_uploads() {
  if (pending_.empty()) return;
  const vk::Functions& f = ctx_.fn();
  upload_ms_ += ctx_.run([&](VkCommandBuffer cmd) {
    for (const PendingCopy& c : pending_) {
      const VkBufferCopy region{c.src_offset, c.dst_offset, c.bytes};
      f.vkCmdCopyBuffer(cmd, staging_->handle(), c.dst->handle(), 1, &region);
    }
    vk::barrier(f, cmd, VK_PIPELINE_STAGE_TRANSFER_BIT, VK_ACCESS_TRANSFER_WRITE_BIT,
                VK_PIPELINE_STAGE_COMPUTE_SHADER_BIT, VK_ACCESS_SHADER_READ_BIT);
  });
  pending_.clear();
  staged_ = 0;
}

bool VulkanResidentStack::fits_input(int64_t batch, int64_t seq) const {
  const uint64_t maxf = be_.tiles_.max_buffer / 4;
  const uint64_t rows = static_cast<uint64_t>(batch * seq);
  const uint64_t widest = static_cast<uint64_t>(ffn_ ? std::max(3 * d_, d_ff_) : 3 * d_);
  const uint64_t mask = static_cast<uint64_t>(batch) * seq * seq;
  // The mapped buffer holds the input and the mask together (and the output after).
  return rows * widest <= maxf && rows * static_cast<uint64_t>(d_) + mask <= maxf &&
         ceil_div(rows, be_.tiles_.ty * 4) <= vk::kMaxGroups && ceil_div(static_cast<uint64_t>(seq), vk::kFlashRows) <= vk::kMaxGroups &&
         static_cast<uint64_t>(batch * heads_) <= vk::kMaxGroups;
}

void VulkanResidentStack::ensure_activations(int64_t batch, int64_t seq) {
  const int64_t rows = batch * seq, mask = batch * seq * seq;
  if (acts_ && acts_->rows >= rows && acts_->mask >= mask) return;
  acts_.reset();  // the old buffers go before the new are made
  auto a = std::make_unique<Activations>();
  a->rows = rows;
  a->mask = mask;
  auto dev = [&](int64_t floats) { return std::make_unique<vk::Buffer>(ctx_, static_cast<uint64_t>(floats) * 4, vk::Memory::Device); };
  a->x[0] = dev(rows * d_), a->x[1] = dev(rows * d_);
  a->n = dev(rows * d_), a->ctx = dev(rows * d_), a->o = dev(rows * d_), a->s = dev(rows * d_);
  a->qkv = dev(rows * 3 * d_);
  if (ffn_) a->h = dev(rows * d_ff_);
  a->mask_buf = dev(mask);
  a->dummy = dev(64);
  a->io = std::make_unique<vk::Buffer>(ctx_, static_cast<uint64_t>(rows * d_ + mask) * 4);
  acts_ = std::move(a);
}

std::optional<Tensor> VulkanResidentStack::run(const Tensor& x_in, const Tensor& mask) {
  if (x_in.dim() != 3 || x_in.size(2) != d_ || mask.shape() != Shape{x_in.size(0), x_in.size(1), x_in.size(1)} ||
      !mask.is_contiguous())
    throw ShapeError("resident stack: x " + shape_str(x_in.shape()) + ", mask " + shape_str(mask.shape()));
  const int64_t batch = x_in.size(0), seq = x_in.size(1), rows = batch * seq;
  Tensor out = Tensor::empty({batch, seq, d_});
  if (rows == 0) return out;
  if (!fits_input(batch, seq)) return std::nullopt;
  ensure_activations(batch, seq);
  const Tensor x = x_in.contiguous();
  std::memcpy(acts_->io->data(), x.data(), static_cast<size_t>(rows * d_) * 4);
  std::memcpy(acts_->io->data() + rows * d_, mask.data(), static_cast<size_t>(mask.numel()) * 4);
  VK_CHECK(ctx_.fn().vkResetDescriptorPool(ctx_.device(), pool_, 0));
  be_.device_ms_ += ctx_.run([&](VkCommandBuffer cmd) { record(cmd, batch, seq); });
  std::memcpy(out.data(), acts_->io->data(), static_cast<size_t>(rows * d_) * 4);
  return out;
}

void VulkanResidentStack::record(VkCommandBuffer cmd, int64_t batch, int64_t seq) {
  const vk::Functions& f = ctx_.fn();
  Activations& A = *acts_;
  const int64_t rows = batch * seq, dh = d_ / heads_;
  const uint64_t x_bytes = static_cast<uint64_t>(rows * d_) * 4, mask_bytes = static_cast<uint64_t>(batch * seq * seq) * 4;
  const VkBufferCopy in_x{0, 0, x_bytes}, in_mask{x_bytes, 0, mask_bytes};
  f.vkCmdCopyBuffer(cmd, A.io->handle(), A.x[0]->handle(), 1, &in_x);
  f.vkCmdCopyBuffer(cmd, A.io->handle(), A.mask_buf->handle(), 1, &in_mask);
  vk::barrier(f, cmd, VK_PIPELINE_STAGE_TRANSFER_BIT, VK_ACCESS_TRANSFER_WRITE_BIT, VK_PIPELINE_STAGE_COMPUTE_SHADER_BIT,
              VK_ACCESS_SHADER_READ_BIT | VK_ACCESS_SHADER_WRITE_BIT);

  // out (rows, n) = act(in (rows, k) · wᵀ + bias), w (n, k) read transposed in place.
  auto gemm = [&](const vk::Buffer& in, const vk::Buffer& w, const vk::Buffer& bias, const vk::Buffer& out, int64_t n,
                  int64_t k, uint32_t act) {
    const vk::GemmPush p{u32(rows), u32(n), u32(k), u32(k), 1, 1, u32(k), 0, 0, 0, 0, 1, 1, act, 1.0f};
    be_.gemm_->record(cmd, pool_, {&in, &w, &bias, &out}, &p, ceil_div(static_cast<uint64_t>(n), be_.tiles_.tx * 4),
                      ceil_div(static_cast<uint64_t>(rows), be_.tiles_.ty * 4), 1);
    compute_to_compute(f, cmd);
  };
  // sum = a + b (when b), norm = LayerNorm(a [+ b]) with γ, β (when given).
  auto add_norm = [&](const vk::Buffer& a, const vk::Buffer* b, const vk::Buffer* sum, const vk::Buffer* norm,
                      const vk::Buffer* gamma, const vk::Buffer* beta) {
    const vk::NormPush p{u32(rows), u32(d_), b ? 1u : 0u, sum ? 1u : 0u, norm ? 1u : 0u, eps_};
    const vk::Buffer& z = *A.dummy;
    const uint32_t gx = std::min<uint32_t>(u32(rows), vk::kMaxGroups);
    be_.add_norm_->record(cmd, pool_, {&a, b ? b : &a, sum ? sum : &z, norm ? norm : &z, gamma ? gamma : &z, beta ? beta : &z},
                          &p, gx, ceil_div(static_cast<uint64_t>(rows), gx), 1);
    compute_to_compute(f, cmd);
  };
  // o = out_proj(merge(attention(split(in_proj(in))))): the heads as strided views of qkv
  // (B, S, 3, H, Dh), the context written merged as (B, S, H·Dh).
  auto attention = [&](const Layer& L, const vk::Buffer& in) {
    gemm(in, *L.in_w, *L.in_b, *A.qkv, 3 * d_, d_, 0);
    const uint32_t S = u32(seq), D3 = u32(3 * d_);
    const vk::FlashPush p{u32(heads_), S,        S,        u32(dh),  S * D3,          u32(dh),   D3,
                          1,           S * D3,   u32(dh),  D3,       1,               S * D3,    u32(dh),
                          D3,          1,        static_cast<float>(std::sqrt(static_cast<double>(dh))),
                          0,           u32(d_),  u32(2 * d_), S * u32(d_), u32(dh),  u32(d_)};
    be_.flash(vk::flash_registers(dh))
        .record(cmd, pool_, {A.qkv.get(), A.qkv.get(), A.qkv.get(), A.mask_buf.get(), A.ctx.get()}, &p,
                ceil_div(seq, vk::kFlashRows), u32(batch * heads_), 1);
    compute_to_compute(f, cmd);
    gemm(*A.ctx, *L.out_w, *L.out_b, *A.o, d_, d_, 0);
  };
  const uint32_t act = act_ == Activation::Gelu ? 2u : act_ == Activation::GeluTanh ? 3u : 1u;
  auto ffn = [&](const Layer& L, const vk::Buffer& in) {
    gemm(in, *L.l1_w, *L.l1_b, *A.h, d_ff_, d_, act);
    gemm(*A.h, *L.l2_w, *L.l2_b, *A.o, d_, d_ff_, 0);
  };

  int cur = 0;
  for (size_t i = 0; i < layers_.size(); ++i) {
    const Layer& L = layers_[i];
    const vk::Buffer& x = *A.x[cur];
    const vk::Buffer* next = A.x[cur ^ 1].get();
    if (pre_norm_) {
      // x + f(norm(x)); the norm of the stream leaving the layer is the next layer's norm1.
      const Layer* after = i + 1 < layers_.size() ? &layers_[i + 1] : nullptr;
      const vk::Buffer* n_out = after ? A.n.get() : nullptr;
      if (i == 0) add_norm(x, nullptr, nullptr, A.n.get(), L.n1_w.get(), L.n1_b.get());
      attention(L, *A.n);
      if (ffn_) {
        add_norm(x, A.o.get(), A.s.get(), A.n.get(), L.n2_w.get(), L.n2_b.get());
        ffn(L, *A.n);
        add_norm(*A.s, A.o.get(), next, n_out, after ? after->n1_w.get() : nullptr, after ? after->n1_b.get() : nullptr);
      } else {
        add_norm(x, A.o.get(), next, n_out, after ? after->n1_w.get() : nullptr, after ? after->n1_b.get() : nullptr);
      }
    } else {
      // norm(x + f(x)).
      attention(L, x);
      if (ffn_) {
        add_norm(x, A.o.get(), nullptr, A.s.get(), L.n1_w.get(), L.n1_b.get());
        ffn(L, *A.s);
        add_norm(*A.s, A.o.get(), nullptr, next, L.n2_w.get(), L.n2_b.get());
      } else {
        add_norm(x, A.o.get(), nullptr, next, L.n1_w.get(), L.n1_b.get());
      }
    }
    cur ^= 1;
  }

  vk::barrier(f, cmd, VK_PIPELINE_STAGE_COMPUTE_SHADER_BIT, VK_ACCESS_SHADER_WRITE_BIT, VK_PIPELINE_STAGE_TRANSFER_BIT,
              VK_ACCESS_TRANSFER_READ_BIT);
  const VkBufferCopy out{0, 0, x_bytes};
  f.vkCmdCopyBuffer(cmd, A.x[cur]->handle(), A.io->handle(), 1, &out);
  vk::barrier(f, cmd, VK_PIPELINE_STAGE_TRANSFER_BIT, VK_ACCESS_TRANSFER_WRITE_BIT, VK_PIPELINE_STAGE_HOST_BIT,
              VK_ACCESS_HOST_READ_BIT);
}

std::unique_ptr<ResidentStack> VulkanBackend::make_resident_stack(const StackSpec& spec) {
  if (!VulkanResidentStack::fits(*this, spec)) return nullptr;
  return std::make_unique<VulkanResidentStack>(*this, spec);
}

}  // namespace attnlab
