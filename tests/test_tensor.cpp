// Tensor view / transpose / contiguous semantics, checked against what PyTorch does.
#include <QtTest>

#include "tensor/tensor.h"
#include "text/errors.h"

using namespace attnlab;

class TestTensor : public QObject {
  Q_OBJECT

  static Tensor iota(Shape s) {
    Tensor t(std::move(s));
    for (int64_t i = 0; i < t.numel(); ++i) t.data()[i] = static_cast<float>(i);
    return t;
  }

 private slots:
  void contiguousStrides() {
    Tensor t({2, 3, 4});
    QCOMPARE(t.strides(), (Shape{12, 4, 1}));
    QVERIFY(t.is_contiguous());
  }

  // torch.arange(2*5*64).view(2,5,64).view(2,5,8,8).transpose(1,2): strides (320, 8, 64, 1)
  void headSplitIsAStridedView() {
    Tensor x = iota({2, 5, 64});
    Tensor v = x.view({2, 5, 8, 8});
    QCOMPARE(v.strides(), (Shape{320, 64, 8, 1}));
    QVERIFY(v.is_contiguous());
    QVERIFY(v.shares_storage(x));
    Tensor t = v.transpose(1, 2);
    QCOMPARE(t.shape(), (Shape{2, 8, 5, 8}));
    QCOMPARE(t.strides(), (Shape{320, 8, 64, 1}));
    QVERIFY(!t.is_contiguous());
    QVERIFY(t.shares_storage(x));
    // t[b, h, s, d] == x[b, s, h*8 + d]
    QCOMPARE(t.at({1, 3, 2, 5}), x.at({1, 2, 3 * 8 + 5}));
  }

  void viewAfterTransposeNeedsContiguous() {
    Tensor t = iota({2, 8, 5, 8}).transpose(1, 2);  // (2, 5, 8, 8), strided
    QVERIFY_THROWS_EXCEPTION(ShapeError, t.view({2, 5, 64}));
    Tensor c = t.contiguous();
    QVERIFY(!c.shares_storage(t));
    QVERIFY(c.is_contiguous());
    Tensor merged = c.view({2, 5, 64});
    QCOMPARE(merged.at({1, 4, 3 * 8 + 2}), t.at({1, 4, 3, 2}));
  }

  // Size-1 dimensions never break contiguity (PyTorch's rule): one head transposed is still
  // contiguous, and contiguous() then returns the same storage.
  void sizeOneDimensionsKeepContiguity() {
    Tensor x = iota({2, 1, 5, 8});
    Tensor t = x.transpose(1, 2);  // (2, 5, 1, 8)
    QVERIFY(t.is_contiguous());
    QVERIFY(t.contiguous().shares_storage(x));
    QVERIFY(t.view({2, 5, 8}).shares_storage(x));
  }

  // A view that PyTorch allows on a non-contiguous tensor: splitting a dimension.
  void viewSplitsAStridedDimension() {
    Tensor t = iota({4, 6}).transpose(0, 1);  // (6, 4) strides (1, 6)
    Tensor v = t.view({2, 3, 4});
    QCOMPARE(v.strides(), (Shape{3, 1, 6}));
    QCOMPARE(v.at({1, 2, 3}), t.at({5, 3}));
    QVERIFY_THROWS_EXCEPTION(ShapeError, t.view({24}));
  }

  void inferredDimension() {
    Tensor x = iota({2, 3, 4});
    QCOMPARE(x.view({-1, 4}).shape(), (Shape{6, 4}));
    QVERIFY_THROWS_EXCEPTION(ShapeError, x.view({-1, 5}));
    QVERIFY_THROWS_EXCEPTION(ShapeError, x.view({-1, -1}));
    QVERIFY_THROWS_EXCEPTION(ShapeError, x.view({7, 4}));
  }

  void toVectorFollowsLogicalOrder() {
    Tensor t = iota({2, 3}).transpose(0, 1);  // [[0,3],[1,4],[2,5]]
    QCOMPARE(t.to_vector(), (std::vector<float>{0, 3, 1, 4, 2, 5}));
    QCOMPARE(t.at_linear(3), 4.0f);
    QCOMPARE(t.clone().strides(), (Shape{2, 1}));
  }

  void negativeTransposeDims() {
    Tensor k = iota({2, 8, 5, 8});
    Tensor kt = k.transpose(-2, -1);
    QCOMPARE(kt.shape(), (Shape{2, 8, 8, 5}));
    QCOMPARE(kt.strides(), (Shape{320, 40, 1, 8}));
  }

  void shapeStrings() {
    QCOMPARE(QString::fromStdString(shape_str({2, 8, 5})), QString("(2, 8, 5)"));
    QCOMPARE(QString::fromStdString(shape_str({3})), QString("(3,)"));
  }

  // A freed large block is handed out again for the same size (no fresh pages, no page faults),
  // aligned to 64 bytes like every block; small ones and other sizes are not taken from it. In an
  // AddressSanitizer build the pool keeps nothing, so a use after free is still caught.
  void largeBlocksAreReused() {
    trim_block_pool();
    const int64_t n = (int64_t(1) << 20);  // 4 MiB of floats
    const float* first = nullptr;
    {
      Tensor a({n});
      first = a.data();
      QCOMPARE(reinterpret_cast<uintptr_t>(first) % kBlockAlign, uintptr_t(0));
    }
    const BlockPoolStats before = block_pool_stats();
#if defined(__SANITIZE_ADDRESS__)
#define ATTNLAB_TEST_POOL_OFF 1
#elif defined(__has_feature)
#if __has_feature(address_sanitizer) || __has_feature(memory_sanitizer)
#define ATTNLAB_TEST_POOL_OFF 1
#endif
#endif
#if defined(ATTNLAB_TEST_POOL_OFF)
    QCOMPARE(before.cached_bytes, uint64_t(0));
#else
    QCOMPARE(before.cached_bytes, uint64_t(n) * 4);
    Tensor other({n + 16});  // another size: fresh
    QVERIFY(other.data() != first);
    Tensor b = Tensor::empty({n});
    QCOMPARE(b.data(), first);
    QCOMPARE(block_pool_stats().reused, before.reused + 1);
    QCOMPARE(block_pool_stats().cached_bytes, uint64_t(0));
    Tensor filled({n}, 2.5f);  // a fresh one is filled as asked, whatever the pool held
    QCOMPARE(filled.data()[n - 1], 2.5f);
#endif
    Tensor small({8});  // below 1 MiB: never pooled
    small = Tensor();
    QCOMPARE(block_pool_stats().cached_bytes, before.cached_bytes - (before.cached_bytes ? uint64_t(n) * 4 : 0));
    trim_block_pool();
    QCOMPARE(block_pool_stats().cached_bytes, uint64_t(0));
  }
};

QTEST_GUILESS_MAIN(TestTensor)
#include "test_tensor.moc"
