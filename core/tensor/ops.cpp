#include "tensor/ops.h"

#include <algorithm>
#include <cmath>
#include <limits>
#include <numbers>

#include "tensor/eigen_types.h"
#include "tensor/gemm.h"
#include "tensor/parallel.h"
#include "tensor/row_kernels.h"
#include "text/errors.h"

namespace attnlab {

namespace {

void require(bool ok, std::string_view op, const std::string& what) {
  if (!ok) throw ShapeError(std::string(op) + ": " + what);
}

// Rows of the last dimension of a contiguous tensor as a (rows, cols) map.
ConstMatMap rows_of(const Tensor& t) {
  const int64_t cols = t.size(-1);
  return ConstMatMap(t.data(), t.numel() / std::max<int64_t>(cols, 1), cols);
}
MatMap rows_of(Tensor& t) {
  const int64_t cols = t.size(-1);
  return MatMap(t.data(), t.numel() / std::max<int64_t>(cols, 1), cols);
}

Shape with_last(Shape s, int64_t last) {
  s.back() = last;
  return s;
}

// Offsets (in elements, from t.data()) of every matrix in the leading dims of t.
std::vector<int64_t> leading_offsets(const Tensor& t) {
  const int64_t nd = t.dim();
  std::vector<int64_t> idx(static_cast<size_t>(nd - 2), 0), offs;
  const int64_t count = numel_of(Shape(t.shape().begin(), t.shape().end() - 2));
  offs.reserve(static_cast<size_t>(count));
  for (int64_t n = 0; n < count; ++n) {
    int64_t off = 0;
    for (int64_t d = 0; d < nd - 2; ++d) off += idx[d] * t.strides()[d];
    offs.push_back(off);
    for (int64_t d = nd - 3; d >= 0; --d) {
      if (++idx[d] < t.shape()[d]) break;
      idx[d] = 0;
    }
  }
  return offs;
}

// op(X) of a matrix block of t at offset off: row-major with its row stride, or (last stride 1
// on the other axis) stored transposed.
GemmOperand operand(const Tensor& t, int64_t off) {
  const auto& st = t.strides();
  const bool row = st.back() == 1 || t.size(-1) == 1;  // one column: any stride is row-major
  return {t.data() + off, !row, row ? st[st.size() - 2] : st.back()};
}

// out (M, N) = a-block · b-block where each block is row- or column-major with an outer stride.
void block_product(float* out, const Tensor& a, int64_t a_off, const Tensor& b, int64_t b_off,
                   GemmEngine engine) {
  const int64_t m = a.size(-2), k = a.size(-1), n = b.size(-1);
  sgemm(m, n, k, operand(a, a_off), operand(b, b_off), out, n, false, engine);
}

// A matrix block is usable in place when one of its last two strides is 1.
bool mappable(const Tensor& t) {
  const auto& s = t.strides();
  return s.back() == 1 || s[s.size() - 2] == 1 || t.size(-1) == 1 || t.size(-2) == 1;
}

}  // namespace

Tensor linear(const Tensor& x, const Tensor& w, const Tensor& b) {
  return linear_rows(x, w, b, 0, w.size(0));
}

namespace {

// x · w[row0 : row0 + rows]ᵀ + the bias, then ep's relu and + residual (when given), in the
// product's pass (gemm.h).
Tensor linear_with(const Tensor& x, const Tensor& w, const Tensor& b, int64_t row0, int64_t rows, GemmEpilogue ep,
                   const Tensor* residual = nullptr) {
  require(x.is_contiguous() && w.is_contiguous() && b.is_contiguous(), "linear",
          "inputs must be contiguous");
  require(w.dim() == 2 && b.dim() == 1 && w.size(1) == x.size(-1) && b.size(0) == w.size(0) &&
              row0 >= 0 && row0 + rows <= w.size(0),
          "linear", "x " + shape_str(x.shape()) + " does not fit weight " + shape_str(w.shape()) +
                        " and bias " + shape_str(b.shape()));
  Tensor out = Tensor::empty(with_last(x.shape(), rows));
  Tensor r;  // the residual, contiguous (B, T, rows)
  if (residual) {
    require(residual->shape() == out.shape(), "linear_add",
            "residual " + shape_str(residual->shape()) + " vs output " + shape_str(out.shape()));
    r = residual->contiguous();
    ep.add = r.data();
    ep.add_ld = rows;
  }
  const int64_t in = w.size(1), m = out.numel() / std::max<int64_t>(rows, 1);
  ep.bias = b.data() + row0;
  sgemm(m, rows, in, {x.data(), false, in}, {w.data() + row0 * in, true, in}, out.data(), rows, ep);
  return out;
}

}  // namespace

Tensor linear_rows(const Tensor& x, const Tensor& w, const Tensor& b, int64_t row0, int64_t rows) {
  return linear_with(x, w, b, row0, rows, {});
}

Tensor linear_relu(const Tensor& x, const Tensor& w, const Tensor& b) {
  return linear_with(x, w, b, 0, w.size(0), {.relu = true});
}

Tensor linear_add(const Tensor& x, const Tensor& w, const Tensor& b, const Tensor& residual) {
  return linear_with(x, w, b, 0, w.size(0), {}, &residual);
}

Tensor layer_norm(const Tensor& x, const Tensor& w, const Tensor& b, double eps) {
  const int64_t d = x.size(-1);
  require(x.is_contiguous() && w.numel() == d && b.numel() == d, "layer_norm",
          "x " + shape_str(x.shape()) + " vs weight " + shape_str(w.shape()));
  Tensor out = Tensor::empty(x.shape());
  const int64_t rows = x.numel() / std::max<int64_t>(d, 1);
  const Isa isa = best_isa();
#pragma omp parallel if (rows > 64)
  {
    Tensor row = Tensor::empty({d});  // 64-byte aligned: the vectorised sums' order never depends on x's address
#pragma omp for
    for (int64_t r = 0; r < rows; ++r) {
      std::copy_n(x.data() + r * d, d, row.data());
      layer_norm_row(isa, row.data(), w.data(), b.data(), out.data() + r * d, d, eps);
    }
  }
  return out;
}

namespace {

// out[r] = softmax(in[r]) for each row of n floats of `numel`, C order; out may be in.
void softmax_rows(const float* in, float* out, int64_t numel, int64_t n) {
  const int64_t rows = numel / std::max<int64_t>(n, 1);
  const Isa isa = best_isa();
#pragma omp parallel if (rows > 256)
  {
    // Each row is worked on in an aligned copy: vectorised loops may treat a head and a tail by
    // the address, and the sum's rounding would then depend on where the row lies in memory —
    // the same trace would not come out bit for bit twice.
    Tensor row = Tensor::empty({n});
#pragma omp for
    for (int64_t r = 0; r < rows; ++r) {
      std::copy_n(in + r * n, n, row.data());
      softmax_row(isa, row.data(), n);
      std::copy_n(row.data(), n, out + r * n);
    }
  }
}

}  // namespace

void softmax_lastdim_inplace(Tensor& x) {
  require(x.is_contiguous(), "softmax", "input must be contiguous");
  softmax_rows(x.data(), x.data(), x.numel(), x.size(-1));
}

// Out of place without a clone first: one pass over the scores instead of two (the traced
// forward keeps its input, the masked scores).
Tensor softmax_lastdim(const Tensor& x) {
  const int64_t n = x.size(-1);
  const Tensor xc = x.contiguous();
  Tensor out = Tensor::empty(x.shape());
  softmax_rows(xc.data(), out.data(), x.numel(), n);
  return out;
}

Tensor relu(const Tensor& x) {
  const Tensor xc = x.contiguous();
  Tensor out = Tensor::empty(x.shape());
  auto o = rows_of(out);
  const auto in = rows_of(xc);
  row_blocks(o.rows(), o.cols(), [&](int64_t r0, int64_t n) { o.middleRows(r0, n) = in.middleRows(r0, n).cwiseMax(0.0f); });
  return out;
}

Tensor gelu(const Tensor& x) {
  Tensor xc = x.contiguous();
  Tensor out = Tensor::empty(x.shape());
  const float* in = xc.data();
  float* o = out.data();
  const int64_t n = x.numel();
#pragma omp parallel for if (n >= kParallelElements)
  for (int64_t i = 0; i < n; ++i)
    o[i] = 0.5f * in[i] * (1.0f + std::erf(in[i] * static_cast<float>(std::numbers::sqrt2 / 2)));
  return out;
}

// In double, rounded once: within an ulp of PyTorch's float formula (its tanh and rounding order).
Tensor gelu_tanh(const Tensor& x) {
  Tensor xc = x.contiguous();
  Tensor out = Tensor::empty(x.shape());
  const float* in = xc.data();
  float* o = out.data();
  const int64_t n = x.numel();
  const double beta = std::sqrt(2.0 / std::numbers::pi);
#pragma omp parallel for if (n >= kParallelElements)
  for (int64_t i = 0; i < n; ++i) {
    const double v = in[i];
    o[i] = static_cast<float>(0.5 * v * (1.0 + std::tanh(beta * (v + 0.044715 * v * v * v))));
  }
  return out;
}

Tensor activate(const Tensor& x, Activation a) {
  switch (a) {
    case Activation::Relu: return relu(x);
    case Activation::Gelu: return gelu(x);
    case Activation::GeluTanh: return gelu_tanh(x);
  }
  return relu(x);
}

Tensor add(const Tensor& a, const Tensor& b) {
  require(a.shape() == b.shape(), "add", shape_str(a.shape()) + " vs " + shape_str(b.shape()));
  const Tensor ac = a.contiguous(), bc = b.contiguous();
  Tensor out = Tensor::empty(a.shape());
  auto o = rows_of(out);
  const auto x = rows_of(ac), y = rows_of(bc);
  row_blocks(o.rows(), o.cols(), [&](int64_t r0, int64_t n) { o.middleRows(r0, n) = x.middleRows(r0, n) + y.middleRows(r0, n); });
  return out;
}

Tensor scale(const Tensor& a, float s) {
  const Tensor ac = a.contiguous();
  Tensor out = Tensor::empty(a.shape());
  auto o = rows_of(out);
  const auto x = rows_of(ac);
  row_blocks(o.rows(), o.cols(), [&](int64_t r0, int64_t n) { o.middleRows(r0, n) = x.middleRows(r0, n) * s; });
  return out;
}

Tensor matmul(const Tensor& a_in, const Tensor& b_in) {
  require(a_in.dim() >= 2 && a_in.dim() == b_in.dim() && a_in.size(-1) == b_in.size(-2) &&
              std::equal(a_in.shape().begin(), a_in.shape().end() - 2, b_in.shape().begin()),
          "matmul", shape_str(a_in.shape()) + " @ " + shape_str(b_in.shape()));
  const Tensor a = mappable(a_in) ? a_in : a_in.contiguous();
  const Tensor b = mappable(b_in) ? b_in : b_in.contiguous();
  const int64_t m = a.size(-2), n = b.size(-1);
  Shape out_shape(a.shape().begin(), a.shape().end() - 1);
  out_shape.push_back(n);
  Tensor out = Tensor::empty(out_shape);
  const auto a_offs = leading_offsets(a), b_offs = leading_offsets(b);
  const int64_t count = static_cast<int64_t>(a_offs.size());
  // A batch (the heads): one product per thread, each on one thread (measured faster than every
  // thread on each product in turn: README, "Which GEMM engine").
  const GemmEngine engine = gemm_engine_for(m, n, a.size(-1));
  if (count == 1) {  // the product on every thread (not in a one-thread region: Eigen's team would nest)
    block_product(out.data(), a, a_offs[0], b, b_offs[0], engine);
    return out;
  }
#pragma omp parallel for
  for (int64_t i = 0; i < count; ++i)
    block_product(out.data() + i * m * n, a, a_offs[i], b, b_offs[i], engine);
  return out;
}

Tensor make_mask(MaskKind kind, const std::vector<int>& k_len, int64_t sq, int64_t sk) {
  const int64_t bsz = static_cast<int64_t>(k_len.size());
  Tensor mask({bsz, sq, sk}, 1.0f);
  const bool pad = kind == MaskKind::Padding || kind == MaskKind::PaddingCausal;
  const bool causal = kind == MaskKind::Causal || kind == MaskKind::PaddingCausal;
  float* m = mask.data();
  for (int64_t b = 0; b < bsz; ++b)
    for (int64_t i = 0; i < sq; ++i)
      for (int64_t j = 0; j < sk; ++j) {
        const bool hidden = (pad && j >= k_len[b]) || (causal && j > i);
        if (hidden) m[(b * sq + i) * sk + j] = 0.0f;
      }
  return mask;
}

namespace {

// d[i] = value where mk[i] is 0. Its own function, the arguments by value: inside a lambda that
// captured `value` by reference, each store might have changed it, and the loop ran 2–3× slower.
void fill_where_zero(const float* __restrict mk, float* __restrict d, int64_t n, float value) {
  for (int64_t i = 0; i < n; ++i)
    if (mk[i] == 0.0f) d[i] = value;
}

// scores (B, H, Tq, Tk) against mask (B, Tq, Tk).
void check_mask_shapes(const Tensor& in, const Tensor& mask) {
  require(in.dim() == 4 && mask.dim() == 3 && in.size(0) == mask.size(0) && in.size(2) == mask.size(1) &&
              in.size(3) == mask.size(2),
          "masked_fill", "scores " + shape_str(in.shape()) + " vs mask " + shape_str(mask.shape()));
}

// Any 0 (or −0) in p[0, n): blocks of 4096 counted without an early exit (a loop the compiler
// vectorises), stopping after the first block that has one.
bool has_zero(const float* __restrict p, int64_t n) {
  constexpr int64_t kBlock = 4096;
  for (int64_t b = 0; b < n; b += kBlock) {
    const int64_t e = std::min(n, b + kBlock);
    int64_t zeros = 0;
    for (int64_t i = b; i < e; ++i) zeros += p[i] == 0.0f;
    if (zeros != 0) return true;
  }
  return false;
}

// out (B, H, Tq, Tk) = value where mask (B, Tq, Tk) is 0, else in; in may be out. Each row is
// copied whole, then its masked entries set: measured 1.5× faster than choosing per element
// (at (8, 2048, 2048): 4.3–5.3 ms against 7.5–7.9 ms, two threads), with or without a causal mask.
void masked_rows(const Tensor& in, Tensor& out, const Tensor& mask_in, float value) {
  check_mask_shapes(in, mask_in);
  if (in.numel() == 0) return;  // (no rows or no keys: nothing to fill)
  require(in.is_contiguous(), "masked_fill", "scores " + shape_str(in.shape()) + " must be contiguous");
  const Tensor mask = mask_in.contiguous();
  const int64_t h = in.size(1), tq = in.size(2), tk = in.size(3);
  const float* src = in.data();
  float* dst = out.data();
  // Row r of (B·H·Tq, Tk) reads the mask's row (batch r / (H·Tq), query r mod Tq).
  row_blocks(in.size(0) * h * tq, tk, [&](int64_t r0, int64_t n) {
    for (int64_t r = r0; r < r0 + n; ++r) {
      float* d = dst + r * tk;
      if (d != src + r * tk) std::copy_n(src + r * tk, tk, d);
      fill_where_zero(mask.data() + ((r / (h * tq)) * tq + r % tq) * tk, d, tk, value);
    }
  });
}

}  // namespace

Tensor masked_fill(const Tensor& scores, const Tensor& mask, float value) {
  const Tensor in = scores.contiguous();
  Tensor out = Tensor::empty(in.shape());
  masked_rows(in, out, mask, value);
  return out;
}

void masked_fill_inplace(Tensor& scores, const Tensor& mask, float value) { masked_rows(scores, scores, mask, value); }

Tensor masked_fill_neg_inf(const Tensor& scores, const Tensor& mask) {
  return masked_fill(scores, mask, -std::numeric_limits<float>::infinity());
}

void masked_fill_neg_inf_inplace(Tensor& scores, const Tensor& mask) {
  masked_fill_inplace(scores, mask, -std::numeric_limits<float>::infinity());
}

bool hides_nothing(const Tensor& mask) {
  const Tensor m = mask.contiguous();
  return !has_zero(m.data(), m.numel());
}

Tensor masked_fill_or_same(const Tensor& scores, const Tensor& mask, float value) {
  check_mask_shapes(scores, mask);
  return hides_nothing(mask) ? scores : masked_fill(scores, mask, value);
}

Tensor sinusoidal_positions(int64_t s, int64_t d) {
  Tensor pe = Tensor::empty({s, d});
  for (int64_t p = 0; p < s; ++p)
    for (int64_t c = 0; c < d; ++c) {
      const int64_t two_i = c - (c % 2);
      const double angle = static_cast<double>(p) /
                           std::pow(10000.0, static_cast<double>(two_i) / static_cast<double>(d));
      pe.data()[p * d + c] = static_cast<float>(c % 2 == 0 ? std::sin(angle) : std::cos(angle));
    }
  return pe;
}

MaskKind parse_mask(std::string_view s) {
  if (s == "none") return MaskKind::None;
  if (s == "padding") return MaskKind::Padding;
  if (s == "causal") return MaskKind::Causal;
  if (s == "padding+causal") return MaskKind::PaddingCausal;
  throw ConfigError(verbatim("--mask: ") + Text(Msg::not_one_of, s, "none, padding, causal, padding+causal"));
}

std::string_view mask_name(MaskKind m) {
  switch (m) {
    case MaskKind::None: return "none";
    case MaskKind::Padding: return "padding";
    case MaskKind::Causal: return "causal";
    case MaskKind::PaddingCausal: return "padding+causal";
  }
  return "?";
}

Activation parse_activation(std::string_view s) {
  if (s == "relu") return Activation::Relu;
  if (s == "gelu") return Activation::Gelu;
  if (s == "gelu_tanh") return Activation::GeluTanh;
  throw ConfigError(verbatim("--activation: ") + Text(Msg::not_one_of, s, "relu, gelu, gelu_tanh"));
}

std::string_view activation_name(Activation a) {
  switch (a) {
    case Activation::Relu: return "relu";
    case Activation::Gelu: return "gelu";
    case Activation::GeluTanh: return "gelu_tanh";
  }
  return "relu";
}

}  // namespace attnlab
