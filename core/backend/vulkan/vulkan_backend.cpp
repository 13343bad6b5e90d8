#include "backend/vulkan/vulkan_backend.h"

#include <algorithm>
#include <cstdlib>
#include <cstring>
#include <string_view>

#include "backend/vulkan/vk_context.h"
#include "backend/vulkan/vk_pipeline.h"
#include "backend/vulkan/vk_push.h"

namespace attnlab {

namespace {

// SPIR-V from glslc (-mfmt=num), generated at build time from core/backend/vulkan/shaders/*.comp.
const uint32_t kGemmSpv[] = {
#include "gemm.spv.inc"
};
const uint32_t kSoftmaxSpv[] = {
#include "softmax.spv.inc"
};
const uint32_t kActivationSpv[] = {
#include "activation.spv.inc"
};
const uint32_t kFlashSpv[] = {
#include "flash_attention.spv.inc"
};
const uint32_t kAddNormSpv[] = {
#include "add_norm.spv.inc"
};
// The row shaders built again with SUBGROUP_OPS (core/CMakeLists.txt): reductions in subgroups.
const uint32_t kSoftmaxSgSpv[] = {
#include "softmax_sg.spv.inc"
};
const uint32_t kAddNormSgSpv[] = {
#include "add_norm_sg.spv.inc"
};

using vk::ActPush;
using vk::FlashPush;
using vk::GemmPush;
using vk::kFlashKeys;
using vk::kFlashRows;
using vk::kMaxGroups;
using vk::NormPush;
using vk::RowsPush;

void require_shape(bool ok, const char* op, const std::string& what) {
  if (!ok) throw ShapeError(std::string(op) + ": " + what);
}

using vk::ceil_div;
using vk::u32;

// Elements from a tensor's first to its last addressed float: what a strided view must upload.
uint64_t span(const Shape& shape, const Shape& strides) {
  uint64_t s = 1;
  for (size_t i = 0; i < shape.size(); ++i) {
    if (shape[i] == 0) return 0;
    s += static_cast<uint64_t>(shape[i] - 1) * static_cast<uint64_t>(strides[i]);
  }
  return s;
}

}  // namespace

// One batched product as the gemm shader sees it; pointers are host memory (strided views in
// place: a_span / b_span floats from a / b are uploaded).
struct VulkanBackend::Gemm {
  const float* a = nullptr;
  const float* b = nullptr;
  const float* bias = nullptr;  // N floats, or none
  float* c = nullptr;           // batch0 · batch1 · M · N floats, written
  uint64_t a_span = 0, b_span = 0;
  int64_t M = 0, N = 0, K = 0, batch0 = 1, batch1 = 1;
  int64_t a_rs = 0, a_cs = 0, b_rs = 0, b_cs = 0, a_bs0 = 0, a_bs1 = 0, b_bs0 = 0, b_bs1 = 0;
};

// ----------------------------------------------------------------------------- the backend

VulkanBackend::VulkanBackend(int device_index, bool allow_cpu)
    : ctx_(std::make_unique<vk::Context>(device_index, allow_cpu)) {
  make_pipelines();
}

VulkanBackend::~VulkanBackend() {
  free_.clear();
  flash_.clear();
  gemm_.reset();
  softmax_.reset();
  act_.reset();
  add_norm_.reset();
}

void VulkanBackend::make_pipelines() {
  const VkPhysicalDeviceLimits& L = ctx_->limits();
  // Gemm: 16 × 16 invocations (64 × 64 tiles) where the device allows 256 per workgroup, else
  // 8 × 8; BK halves until both shared tiles fit.
  const bool big = L.maxComputeWorkGroupInvocations >= 256 && L.maxComputeWorkGroupSize[0] >= 16 &&
                   L.maxComputeWorkGroupSize[1] >= 16;
  tiles_.tx = tiles_.ty = big ? 16 : 8;
  tiles_.bk = 16;
  while (tiles_.bk > 4 && 2ull * tiles_.bk * tiles_.tx * 4 * 4 > L.maxComputeSharedMemorySize) tiles_.bk /= 2;
  // Softmax: the largest power of two within the workgroup limits (at most 256).
  tiles_.softmax_wg = 1;
  while (tiles_.softmax_wg * 2 <= std::min({256u, L.maxComputeWorkGroupInvocations, L.maxComputeWorkGroupSize[0]}))
    tiles_.softmax_wg *= 2;
  tiles_.subgroup = ctx_->subgroup_size();
  device_max_buffer_ = std::min<uint64_t>(L.maxStorageBufferRange, 1ull << 31) & ~uint64_t(255);
  tiles_.max_buffer = device_max_buffer_;
  gemm_ = std::make_unique<vk::Pipeline>(*ctx_, kGemmSpv, sizeof kGemmSpv, 4, sizeof(GemmPush),
                                     std::vector<uint32_t>{tiles_.tx, tiles_.ty, tiles_.bk});
  act_ = std::make_unique<vk::Pipeline>(*ctx_, kActivationSpv, sizeof kActivationSpv, 1, sizeof(ActPush),
                                    std::vector<uint32_t>{tiles_.softmax_wg});
  // Subgroup reductions where the device has the arithmetic, unless ATTNLAB_VULKAN_SUBGROUPS=0
  // (to measure the two side by side; docs/cli.md).
  const char* env = std::getenv("ATTNLAB_VULKAN_SUBGROUPS");
  make_row_pipelines(ctx_->subgroup_arithmetic() && !(env && std::string_view(env) == "0"));
}

void VulkanBackend::make_row_pipelines(bool sg) {
  // Both made before either is replaced: a failure leaves the pair and tiles_ as they were.
  auto softmax = std::make_unique<vk::Pipeline>(*ctx_, sg ? kSoftmaxSgSpv : kSoftmaxSpv, sg ? sizeof kSoftmaxSgSpv : sizeof kSoftmaxSpv,
                                                1, sizeof(RowsPush), std::vector<uint32_t>{tiles_.softmax_wg});
  auto add_norm = std::make_unique<vk::Pipeline>(*ctx_, sg ? kAddNormSgSpv : kAddNormSpv, sg ? sizeof kAddNormSgSpv : sizeof kAddNormSpv,
                                                 6, sizeof(NormPush), std::vector<uint32_t>{tiles_.softmax_wg});
  softmax_ = std::move(softmax);
  add_norm_ = std::move(add_norm);
  tiles_.subgroup_ops = sg;
}

bool VulkanBackend::use_subgroup_reductions(bool on) {
  const bool sg = on && ctx_->subgroup_arithmetic();
  if (sg != tiles_.subgroup_ops) make_row_pipelines(sg);  // the constructor made the first pair
  return tiles_.subgroup_ops;
}

std::string VulkanBackend::device() const { return ctx_->info().name; }
bool VulkanBackend::cpu_type_device() const { return ctx_->info().cpu(); }
const std::vector<std::string>& VulkanBackend::validation_messages() const { return ctx_->validation_messages(); }
bool VulkanBackend::validating() const { return ctx_->validating(); }
uint64_t VulkanBackend::submissions() const { return ctx_->submissions(); }

void VulkanBackend::set_max_buffer_bytes(uint64_t bytes) {
  tiles_.max_buffer = std::clamp<uint64_t>(bytes & ~uint64_t(255), 256, device_max_buffer_);
}

// Buffers are kept for reuse: a forward pass asks for the same few sizes again and again.
std::unique_ptr<vk::Buffer> VulkanBackend::acquire(uint64_t bytes) {
  bytes = std::max<uint64_t>(bytes, 256);
  auto best = free_.end();
  for (auto it = free_.begin(); it != free_.end(); ++it)
    if ((*it)->bytes() >= bytes && (*it)->bytes() <= 2 * bytes && (best == free_.end() || (*it)->bytes() < (*best)->bytes()))
      best = it;
  if (best != free_.end()) {
    auto b = std::move(*best);
    free_.erase(best);
    return b;
  }
  if (bytes > tiles_.max_buffer)
    throw VulkanError(Text(Msg::en_vulkan_mib_in_one_buffer_beyond, bytes >> 20, device()));
  return std::make_unique<vk::Buffer>(*ctx_, bytes);
}

void VulkanBackend::release(std::unique_ptr<vk::Buffer> b) {
  free_.push_back(std::move(b));
  if (free_.size() > 16) free_.erase(free_.begin());  // the oldest goes
}

void VulkanBackend::gemm(const Gemm& g) {
  const uint64_t c_floats = static_cast<uint64_t>(g.batch0 * g.batch1 * g.M * g.N);
  auto A = acquire(g.a_span * 4), B = acquire(g.b_span * 4), C = acquire(c_floats * 4);
  auto bias = acquire(g.bias ? static_cast<uint64_t>(g.N) * 4 : 4);
  std::memcpy(A->data(), g.a, g.a_span * 4);
  std::memcpy(B->data(), g.b, g.b_span * 4);
  if (g.bias) std::memcpy(bias->data(), g.bias, static_cast<size_t>(g.N) * 4);
  const GemmPush p{u32(g.M),     u32(g.N),     u32(g.K),     u32(g.a_rs),   u32(g.a_cs), u32(g.b_rs), u32(g.b_cs),
                   u32(g.a_bs0), u32(g.a_bs1), u32(g.b_bs0), u32(g.b_bs1), u32(g.batch1), g.bias ? 1u : 0u, 0u, 1.0f};
  const uint32_t gx = ceil_div(static_cast<uint64_t>(g.N), tiles_.tx * 4);
  const uint32_t gy = ceil_div(static_cast<uint64_t>(g.M), tiles_.ty * 4);
  const uint64_t gz = static_cast<uint64_t>(g.batch0 * g.batch1);
  if (gx > kMaxGroups || gy > kMaxGroups || gz > kMaxGroups)
    throw VulkanError(Text(Msg::en_vulkan_product_needs_more_workgroups, gz, g.M, g.N));
  device_ms_ += gemm_->run({A.get(), B.get(), bias.get(), C.get()}, &p, gx, gy, static_cast<uint32_t>(gz));
  std::memcpy(g.c, C->data(), c_floats * 4);
  for (auto* b : {&A, &B, &C, &bias}) release(std::move(*b));
}

// x (…, In) · w[row0 : row0 + rows]ᵀ + b → (…, rows), split along the rows of x when one buffer
// cannot hold them all.
Tensor VulkanBackend::linear_rows(const Tensor& x_in, const Tensor& w, const Tensor& b, int64_t row0, int64_t rows) {
  const int64_t in = w.size(1);
  require_shape(x_in.dim() >= 1 && x_in.size(-1) == in && w.is_contiguous() && b.is_contiguous() && row0 >= 0 &&
                    row0 + rows <= w.size(0),
                "linear", shape_str(x_in.shape()) + " · " + shape_str(w.shape()) + "ᵀ rows " + std::to_string(row0) + "+" +
                              std::to_string(rows));
  const Tensor x = x_in.contiguous();
  const int64_t m = x.numel() / in;
  Shape out_shape = x.shape();
  out_shape.back() = rows;
  Tensor out = Tensor::empty(out_shape);
  const uint64_t per_row = static_cast<uint64_t>(std::max(in, rows)) * 4;
  const int64_t chunk = static_cast<int64_t>(std::min<uint64_t>(static_cast<uint64_t>(m), tiles_.max_buffer / per_row));
  if (chunk < 1 || static_cast<uint64_t>(rows * in) * 4 > tiles_.max_buffer)
    throw VulkanError(Text(Msg::en_vulkan_weight_beyond_storage_range, shape_str({rows, in}), device()));
  for (int64_t m0 = 0; m0 < m; m0 += chunk) {
    Gemm g;
    g.M = std::min(chunk, m - m0);
    g.N = rows;
    g.K = in;
    g.a = x.data() + m0 * in;
    g.a_span = static_cast<uint64_t>(g.M * in);
    g.a_rs = in;
    g.a_cs = 1;
    g.b = w.data() + row0 * in;  // B (k, n) = W[row0 + n][k]
    g.b_span = static_cast<uint64_t>(rows * in);
    g.b_rs = 1;
    g.b_cs = in;
    g.bias = b.data() + row0;
    g.c = out.data() + m0 * rows;
    gemm(g);
  }
  return out;
}

// a (…, M, K) · b (…, K, N) with at most two leading axes, read in place through their strides;
// split along the first leading axis when one buffer cannot hold the whole batch.
Tensor VulkanBackend::matmul(const Tensor& a, const Tensor& b) {
  require_shape(a.dim() >= 2 && a.dim() == b.dim() && a.size(-1) == b.size(-2) &&
                    std::equal(a.shape().begin(), a.shape().end() - 2, b.shape().begin()),
                "matmul", shape_str(a.shape()) + " @ " + shape_str(b.shape()));
  const int64_t lead = a.dim() - 2;
  if (lead > 2) return cpu_backend().matmul(a, b);  // the model never has more than (B, H)
  const int64_t M = a.size(-2), K = a.size(-1), N = b.size(-1);
  Shape out_shape(a.shape().begin(), a.shape().end() - 1);
  out_shape.push_back(N);
  Tensor out = Tensor::empty(out_shape);
  if (out.numel() == 0) return out;
  const int64_t batch0 = lead >= 1 ? a.size(0) : 1, batch1 = lead == 2 ? a.size(1) : 1;
  const auto& as = a.strides();
  const auto& bs = b.strides();
  const int64_t a_bs0 = lead >= 1 ? as[0] : 0, a_bs1 = lead == 2 ? as[1] : 0;
  const int64_t b_bs0 = lead >= 1 ? bs[0] : 0, b_bs1 = lead == 2 ? bs[1] : 0;
  // The span of `n` leading slices of a tensor, given its inner (per-slice) shape.
  auto slices_span = [](const Tensor& t, int64_t lead_axes, int64_t n) {
    Shape shape = t.shape(), strides = t.strides();
    if (lead_axes >= 1) shape[0] = n;
    return span(shape, strides);
  };
  const uint64_t maxf = tiles_.max_buffer / 4;
  int64_t chunk = batch0;
  while (chunk > 1 && (slices_span(a, lead, chunk) > maxf || slices_span(b, lead, chunk) > maxf ||
                       static_cast<uint64_t>(chunk * batch1 * M * N) > maxf))
    chunk = (chunk + 1) / 2;
  if (slices_span(a, lead, chunk) > maxf || slices_span(b, lead, chunk) > maxf ||
      static_cast<uint64_t>(chunk * batch1 * M * N) > maxf)
    throw VulkanError(Text(Msg::en_vulkan_slice_beyond_storage_range, shape_str(a.shape()), shape_str(b.shape()), device()));
  for (int64_t z = 0; z < batch0; z += chunk) {
    Gemm g;
    g.batch0 = std::min(chunk, batch0 - z);
    g.batch1 = batch1;
    g.M = M;
    g.N = N;
    g.K = K;
    g.a = a.data() + z * a_bs0;
    g.b = b.data() + z * b_bs0;
    g.a_span = slices_span(a, lead, g.batch0);
    g.b_span = slices_span(b, lead, g.batch0);
    g.a_rs = as[static_cast<size_t>(lead)];
    g.a_cs = as[static_cast<size_t>(lead + 1)];
    g.b_rs = bs[static_cast<size_t>(lead)];
    g.b_cs = bs[static_cast<size_t>(lead + 1)];
    g.a_bs0 = a_bs0;
    g.a_bs1 = a_bs1;
    g.b_bs0 = b_bs0;
    g.b_bs1 = b_bs1;
    g.c = out.data() + z * batch1 * M * N;
    gemm(g);
  }
  return out;
}

// Runs a one-buffer pipeline over `rows` rows of `n` floats in place, a buffer's worth at a time.
// push: RowsPush (softmax) or ActPush (activation, n = 1, extra = its kind).
void VulkanBackend::rows_op(vk::Pipeline& pipe, float* data, int64_t rows, int64_t n, uint32_t extra) {
  const bool elementwise = &pipe == act_.get();
  const int64_t chunk = std::min<int64_t>(rows, static_cast<int64_t>(tiles_.max_buffer / 4 / static_cast<uint64_t>(n)));
  if (chunk < 1) throw VulkanError(Text(Msg::en_vulkan_row_beyond_buffer_range, n));
  for (int64_t r0 = 0; r0 < rows; r0 += chunk) {
    const int64_t r = std::min(chunk, rows - r0);
    const uint64_t floats = static_cast<uint64_t>(r * n);
    auto buf = acquire(floats * 4);
    std::memcpy(buf->data(), data + r0 * n, floats * 4);
    const uint64_t groups = elementwise ? ceil_div(floats, tiles_.softmax_wg) : static_cast<uint64_t>(r);
    const uint32_t gx = static_cast<uint32_t>(std::min<uint64_t>(groups, kMaxGroups));
    const uint32_t gy = ceil_div(groups, gx);
    if (elementwise) {
      const ActPush p{static_cast<uint32_t>(floats), extra};
      device_ms_ += pipe.run({buf.get()}, &p, gx, gy, 1);
    } else {
      const RowsPush p{static_cast<uint32_t>(r), static_cast<uint32_t>(n)};
      device_ms_ += pipe.run({buf.get()}, &p, gx, gy, 1);
    }
    std::memcpy(data + r0 * n, buf->data(), floats * 4);
    release(std::move(buf));
  }
}

void VulkanBackend::softmax_lastdim_inplace(Tensor& x) {
  require_shape(x.dim() >= 1 && x.is_contiguous(), "softmax", shape_str(x.shape()) + " must be contiguous");
  if (x.numel() == 0) return;
  const int64_t n = x.size(-1);
  rows_op(*softmax_, x.data(), x.numel() / n, n, 0);
}

Tensor VulkanBackend::activate(const Tensor& x, Activation a) {
  Tensor out = x.clone();
  if (out.numel() > 0) rows_op(*act_, out.data(), out.numel(), 1, a == Activation::Gelu ? 1u : a == Activation::GeluTanh ? 2u : 0u);
  return out;
}

vk::Pipeline& VulkanBackend::flash(uint32_t dh_max) {
  auto& slot = flash_[dh_max];
  if (!slot)
    slot = std::make_unique<vk::Pipeline>(*ctx_, kFlashSpv, sizeof kFlashSpv, 5, sizeof(FlashPush),
                                      std::vector<uint32_t>{kFlashRows, dh_max, kFlashKeys});
  return *slot;
}

Tensor VulkanBackend::attention(const Tensor& q, const Tensor& k, const Tensor& v, const Tensor& mask, float root) {
  require_shape(q.dim() == 4 && k.dim() == 4 && v.dim() == 4 && mask.dim() == 3 && mask.is_contiguous() &&
                    k.shape() == v.shape() && q.size(0) == k.size(0) && q.size(1) == k.size(1) && q.size(3) == k.size(3) &&
                    mask.shape() == Shape{q.size(0), q.size(2), k.size(2)},
                "attention", "q " + shape_str(q.shape()) + ", k " + shape_str(k.shape()) + ", v " + shape_str(v.shape()) +
                                 ", mask " + shape_str(mask.shape()));
  const int64_t B = q.size(0), H = q.size(1), Tq = q.size(2), Tk = k.size(2), dh = q.size(3);
  const uint32_t dh_max = vk::flash_registers(dh);
  const uint64_t maxf = tiles_.max_buffer / 4;
  const uint64_t qs = span(q.shape(), q.strides()), ks = span(k.shape(), k.strides()),
                 vs = span(v.shape(), v.strides()), out_floats = static_cast<uint64_t>(B * H * Tq * dh);
  const bool fits = qs <= maxf && ks <= maxf && vs <= maxf && out_floats <= maxf &&
                    static_cast<uint64_t>(mask.numel()) <= maxf && static_cast<uint64_t>(B * H) <= kMaxGroups &&
                    vk::flash_takes(dh, ctx_->limits().maxComputeSharedMemorySize);
  if (!fused_ || !fits || Tq == 0 || Tk == 0) return Backend::attention(q, k, v, mask, root);
  Tensor out = Tensor::empty({B, H, Tq, dh});
  auto Q = acquire(qs * 4), K = acquire(ks * 4), V = acquire(vs * 4), M = acquire(static_cast<uint64_t>(mask.numel()) * 4),
       O = acquire(out_floats * 4);
  std::memcpy(Q->data(), q.data(), qs * 4);
  std::memcpy(K->data(), k.data(), ks * 4);
  std::memcpy(V->data(), v.data(), vs * 4);
  std::memcpy(M->data(), mask.data(), static_cast<size_t>(mask.numel()) * 4);
  const auto& a = q.strides();
  const auto& b = k.strides();
  const auto& c = v.strides();
  const FlashPush p{u32(H),    u32(Tq),   u32(Tk),   u32(dh),   u32(a[0]), u32(a[1]), u32(a[2]), u32(a[3]), u32(b[0]),
                    u32(b[1]), u32(b[2]), u32(b[3]), u32(c[0]), u32(c[1]), u32(c[2]), u32(c[3]), root,
                    0,         0,         0,         u32(H * Tq * dh), u32(Tq * dh), u32(dh)};
  device_ms_ += flash(dh_max).run({Q.get(), K.get(), V.get(), M.get(), O.get()}, &p,
                                  ceil_div(static_cast<uint64_t>(Tq), kFlashRows), u32(B * H), 1);
  std::memcpy(out.data(), O->data(), out_floats * 4);
  for (auto* x : {&Q, &K, &V, &M, &O}) release(std::move(*x));
  return out;
}

}  // namespace attnlab
