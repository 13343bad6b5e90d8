// A small strided float tensor with PyTorch's view semantics.
//
// Shape legend used throughout core/: B = batch, S = source length, T = target length,
// D = d_model, H = heads, Dh = D / H, F = d_ff, V = vocabulary size.
//
// Storage is shared: view() and transpose() return tensors that alias the same floats, exactly
// as torch.Tensor.view / .transpose do, so a trace can show *why* a transposed tensor needs
// .contiguous() before .view(). Strides count elements.
#pragma once

#include <cstdint>
#include <memory>
#include <string>
#include <utility>
#include <new>
#include <vector>

#include "tensor/block_pool.h"

namespace attnlab {

using Shape = std::vector<int64_t>;

std::string shape_str(const Shape& s);  // "(2, 8, 5, 8)"
int64_t numel_of(const Shape& s);
Shape contiguous_strides(const Shape& s);  // row-major (C order)

// An allocator that leaves floats uninitialised: outputs that are overwritten in full should not
// pay for zeroing (and touching) their pages first. Every block starts on a 64-byte boundary:
// Eigen's vectorised loops peel elements up to the first aligned one, so with malloc's 16-byte
// alignment the order of a sum (and its rounding) depended on where the heap put the tensor, and
// two identical runs in one process could differ in the last bit (the trainer's determinism).
// Large blocks come from the block pool (block_pool.h), which reuses them.
template <typename T>
struct UninitAllocator : std::allocator<T> {
  template <typename U>
  struct rebind { using other = UninitAllocator<U>; };
  T* allocate(size_t n) { return static_cast<T*>(allocate_block(n * sizeof(T))); }
  void deallocate(T* p, size_t n) noexcept { release_block(p, n * sizeof(T)); }
  template <typename U>
  void construct(U* p) noexcept { ::new (static_cast<void*>(p)) U; }
  template <typename U, typename... Args>
  void construct(U* p, Args&&... args) { ::new (static_cast<void*>(p)) U(std::forward<Args>(args)...); }
};
using Storage = std::vector<float, UninitAllocator<float>>;

class Tensor {
 public:
  Tensor() = default;
  explicit Tensor(Shape shape, float fill = 0.0f);  // fresh contiguous storage
  static Tensor empty(Shape shape);                 // fresh contiguous storage, uninitialised
  static Tensor from(Shape shape, const std::vector<float>& values);

  const Shape& shape() const { return shape_; }
  const Shape& strides() const { return strides_; }
  int64_t dim() const { return static_cast<int64_t>(shape_.size()); }
  int64_t size(int64_t d) const;  // negative d counts from the end
  int64_t numel() const { return numel_of(shape_); }
  int64_t offset() const { return offset_; }
  bool defined() const { return storage_ != nullptr; }

  // PyTorch's rule: strides match C order, ignoring dimensions of size 1.
  bool is_contiguous() const;
  // True when both tensors alias the same storage.
  bool shares_storage(const Tensor& o) const { return storage_ && storage_ == o.storage_; }
  int64_t storage_bytes() const;

  // torch.Tensor.view: same storage, new shape; one -1 may be inferred. Throws ShapeError when
  // the strides cannot express the new shape (PyTorch's "use .reshape(...) instead").
  Tensor view(Shape new_shape) const;
  Tensor transpose(int64_t d0, int64_t d1) const;  // swaps shape and strides, same storage
  Tensor contiguous() const;  // itself when contiguous, otherwise a C-order copy
  Tensor clone() const;       // always a fresh C-order copy

  // Element access by multi-index (slow; for tests and small tensors).
  float at(std::initializer_list<int64_t> idx) const;
  float& at(std::initializer_list<int64_t> idx);
  float at_linear(int64_t i) const;  // i-th element in C order of the *logical* shape

  // Raw data; only meaningful as a dense C-order block when is_contiguous().
  float* data() { return storage_->data() + offset_; }
  const float* data() const { return storage_->data() + offset_; }

  std::vector<float> to_vector() const;  // C order of the logical shape

 private:
  void copy_to(float* dst) const;  // logical C order

  std::shared_ptr<Storage> storage_;
  int64_t offset_ = 0;
  Shape shape_;
  Shape strides_;
};

}  // namespace attnlab
