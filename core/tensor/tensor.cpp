#include "tensor/tensor.h"

#include <algorithm>
#include <numeric>
#include <sstream>

#include "tensor/parallel.h"
#include "text/errors.h"

namespace attnlab {

std::string shape_str(const Shape& s) {
  std::ostringstream o;
  o << '(';
  for (size_t i = 0; i < s.size(); ++i) o << (i ? ", " : "") << s[i];
  if (s.size() == 1) o << ',';
  o << ')';
  return o.str();
}

int64_t numel_of(const Shape& s) {
  return std::accumulate(s.begin(), s.end(), int64_t{1}, std::multiplies<>());
}

Shape contiguous_strides(const Shape& s) {
  Shape st(s.size());
  int64_t acc = 1;
  for (size_t i = s.size(); i-- > 0;) {
    st[i] = acc;
    acc *= std::max<int64_t>(s[i], 1);
  }
  return st;
}

Tensor::Tensor(Shape shape, float fill) : Tensor(empty(std::move(shape))) {
  std::fill(storage_->begin(), storage_->end(), fill);
}

Tensor Tensor::empty(Shape shape) {
  for (int64_t d : shape)
    if (d < 0) throw ShapeError("negative dimension in shape " + shape_str(shape));
  Tensor t;
  t.storage_ = std::make_shared<Storage>(static_cast<size_t>(numel_of(shape)));
  t.shape_ = std::move(shape);
  t.strides_ = contiguous_strides(t.shape_);
  return t;
}

Tensor Tensor::from(Shape shape, const std::vector<float>& values) {
  if (static_cast<int64_t>(values.size()) != numel_of(shape))
    throw ShapeError("Tensor::from: " + std::to_string(values.size()) +
                     " values do not fill shape " + shape_str(shape));
  Tensor t = empty(std::move(shape));
  std::copy(values.begin(), values.end(), t.storage_->begin());
  return t;
}

int64_t Tensor::size(int64_t d) const {
  if (d < 0) d += dim();
  if (d < 0 || d >= dim()) throw ShapeError("dimension out of range for " + shape_str(shape_));
  return shape_[static_cast<size_t>(d)];
}

bool Tensor::is_contiguous() const {
  int64_t expected = 1;
  for (size_t i = shape_.size(); i-- > 0;) {
    if (shape_[i] == 1) continue;
    if (strides_[i] != expected) return false;
    expected *= shape_[i];
  }
  return true;
}

int64_t Tensor::storage_bytes() const {
  return storage_ ? static_cast<int64_t>(storage_->size() * sizeof(float)) : 0;
}

// The stride computation of PyTorch's view (ATen computeStride): each run of old dimensions
// that is contiguous within itself can be re-chunked into new dimensions of the same product.
static bool compute_view_strides(const Shape& old_shape, const Shape& old_strides,
                                 const Shape& new_shape, Shape& new_strides) {
  new_strides.assign(new_shape.size(), 0);
  if (old_shape.empty()) {
    for (auto& s : new_strides) s = 1;
    return true;
  }
  if (numel_of(old_shape) == 0) {
    new_strides = contiguous_strides(new_shape);
    return true;
  }
  int64_t view_d = static_cast<int64_t>(new_shape.size()) - 1;
  int64_t chunk_base_stride = old_strides.back();
  int64_t tensor_numel = 1, view_numel = 1;
  for (int64_t tensor_d = static_cast<int64_t>(old_shape.size()) - 1; tensor_d >= 0; --tensor_d) {
    tensor_numel *= old_shape[tensor_d];
    if (tensor_d == 0 ||
        (old_shape[tensor_d - 1] != 1 &&
         old_strides[tensor_d - 1] != tensor_numel * chunk_base_stride)) {
      while (view_d >= 0 && (view_numel < tensor_numel || new_shape[view_d] == 1)) {
        new_strides[view_d] = view_numel * chunk_base_stride;
        view_numel *= new_shape[view_d];
        --view_d;
      }
      if (view_numel != tensor_numel) return false;
      if (tensor_d > 0) {
        chunk_base_stride = old_strides[tensor_d - 1];
        tensor_numel = 1;
        view_numel = 1;
      }
    }
  }
  return view_d == -1;
}

Tensor Tensor::view(Shape new_shape) const {
  int64_t infer = -1, known = 1;
  for (size_t i = 0; i < new_shape.size(); ++i) {
    if (new_shape[i] == -1) {
      if (infer >= 0) throw ShapeError("view: only one dimension can be inferred");
      infer = static_cast<int64_t>(i);
    } else if (new_shape[i] < 0) {
      throw ShapeError("view: invalid shape " + shape_str(new_shape));
    } else {
      known *= new_shape[i];
    }
  }
  if (infer >= 0) {
    if (known == 0 || numel() % known != 0)
      throw ShapeError("view: shape " + shape_str(new_shape) + " is invalid for input of size " +
                       std::to_string(numel()));
    new_shape[static_cast<size_t>(infer)] = numel() / known;
  }
  if (numel_of(new_shape) != numel())
    throw ShapeError("view: shape " + shape_str(new_shape) + " is invalid for input of size " +
                     std::to_string(numel()) + " (shape " + shape_str(shape_) + ")");
  Shape st;
  if (!compute_view_strides(shape_, strides_, new_shape, st))
    throw ShapeError("view size is not compatible with input tensor's size and stride (shape " +
                     shape_str(shape_) + ", strides " + shape_str(strides_) +
                     "); call .contiguous() first");
  Tensor t = *this;
  t.shape_ = std::move(new_shape);
  t.strides_ = std::move(st);
  return t;
}

Tensor Tensor::transpose(int64_t d0, int64_t d1) const {
  if (d0 < 0) d0 += dim();
  if (d1 < 0) d1 += dim();
  if (d0 < 0 || d1 < 0 || d0 >= dim() || d1 >= dim())
    throw ShapeError("transpose: dimension out of range for " + shape_str(shape_));
  Tensor t = *this;
  std::swap(t.shape_[static_cast<size_t>(d0)], t.shape_[static_cast<size_t>(d1)]);
  std::swap(t.strides_[static_cast<size_t>(d0)], t.strides_[static_cast<size_t>(d1)]);
  return t;
}

Tensor Tensor::contiguous() const { return is_contiguous() ? *this : clone(); }

Tensor Tensor::clone() const {
  Tensor t = empty(shape_);
  copy_to(t.data());
  return t;
}

std::vector<float> Tensor::to_vector() const {
  std::vector<float> out(static_cast<size_t>(numel()));
  copy_to(out.data());
  return out;
}

void Tensor::copy_to(float* out) const {
  const int64_t total = numel();
  if (total == 0) return;
  if (is_contiguous()) {  // a large copy (a traced (B, H, S, S) step) split between the threads
    const float* src = data();
    const int64_t runs = (total + kCopyRun - 1) / kCopyRun;
#pragma omp parallel for schedule(static) if (total >= kParallelCopyElements)
    for (int64_t r = 0; r < runs; ++r) std::copy_n(src + r * kCopyRun, std::min(kCopyRun, total - r * kCopyRun), out + r * kCopyRun);
    return;
  }
  // Runs of the innermost dimension (strided), each placed by its index's odometer digits; a
  // large copy (a merge of heads) is split between OpenMP's threads in blocks of runs.
  const size_t nd = shape_.size();
  const int64_t inner = shape_[nd - 1], inner_stride = strides_[nd - 1], runs = total / inner;
  const int64_t block = std::max<int64_t>(1, 4096 / inner);
  const float* base = storage_->data() + offset_;
#pragma omp parallel for schedule(static) if (total >= kParallelElements)
  for (int64_t r0 = 0; r0 < runs; r0 += block) {
    std::vector<int64_t> idx(nd, 0);
    for (int64_t rest = r0, d = static_cast<int64_t>(nd) - 2; d >= 0; --d) {
      idx[static_cast<size_t>(d)] = rest % shape_[static_cast<size_t>(d)];
      rest /= shape_[static_cast<size_t>(d)];
    }
    for (int64_t r = r0; r < std::min(runs, r0 + block); ++r) {
      int64_t off = 0;
      for (size_t d = 0; d + 1 < nd; ++d) off += idx[d] * strides_[d];
      float* dst = out + r * inner;
      for (int64_t j = 0; j < inner; ++j) dst[j] = base[off + j * inner_stride];
      for (size_t d = nd - 1; d-- > 0;) {
        if (++idx[d] < shape_[d]) break;
        idx[d] = 0;
      }
    }
  }
}

float Tensor::at_linear(int64_t i) const {
  int64_t off = 0;
  for (size_t d = shape_.size(); d-- > 0;) {
    off += (i % shape_[d]) * strides_[d];
    i /= shape_[d];
  }
  return (*storage_)[static_cast<size_t>(offset_ + off)];
}

static int64_t flat_offset(const Shape& shape, const Shape& strides,
                           std::initializer_list<int64_t> idx) {
  if (idx.size() != shape.size()) throw ShapeError("at: wrong number of indices for " + shape_str(shape));
  int64_t off = 0;
  size_t d = 0;
  for (int64_t i : idx) {
    if (i < 0 || i >= shape[d]) throw ShapeError("at: index out of range for " + shape_str(shape));
    off += i * strides[d++];
  }
  return off;
}

float Tensor::at(std::initializer_list<int64_t> idx) const {
  return (*storage_)[static_cast<size_t>(offset_ + flat_offset(shape_, strides_, idx))];
}

float& Tensor::at(std::initializer_list<int64_t> idx) {
  return (*storage_)[static_cast<size_t>(offset_ + flat_offset(shape_, strides_, idx))];
}

}  // namespace attnlab
