// The matrix products' engines (core/tensor/gemm.h): every engine built in, on every operand
// layout, against a float64 product of the same inputs, held to the bound any correct float32
// GEMM keeps whatever its summation order (|c − ref| ≤ (k + 2)·2⁻²³·Σ|a·b|); the dispatch
// rules; the split between threads (by rows, by columns) covering C exactly; and the in-process
// FMA peak (core/backend/cpu_peak.h). The goldens run again on each engine in ctest
// (test_golden_eigen, …), so PyTorch's numbers are checked on every one.
#include <QtTest>

#include <algorithm>
#include <cmath>
#include <vector>

#include "backend/cpu_peak.h"
#include "random_tensor.h"
#include "tensor/gemm.h"
#include "tensor/ops.h"
#include "tensor/ops_naive.h"
#include "tensor/scoped_threads.h"
#include "text/errors.h"

using namespace attnlab;

namespace {

// Restores the forced engine when a test ends.
struct ForcedEngine {
  GemmEngine before = forced_gemm_engine();
  explicit ForcedEngine(GemmEngine e) { set_gemm_engine(e); }
  ~ForcedEngine() { set_gemm_engine(before); }
};

std::vector<GemmEngine> built_in() {
  std::vector<GemmEngine> out;
  for (GemmEngine e : {GemmEngine::Eigen, GemmEngine::OpenBlas, GemmEngine::OneDnn})
    if (gemm_engine_available(e)) out.push_back(e);
  return out;
}

// op(X)(r, c) of a row-major operand.
float at(const std::vector<float>& x, GemmOperand op, int64_t r, int64_t c) {
  return op.trans ? x[static_cast<size_t>(c * op.ld + r)] : x[static_cast<size_t>(r * op.ld + c)];
}

std::vector<float> randoms(size_t n, const char* name) {
  const Tensor t = test::random_tensor({static_cast<int64_t>(n)}, name);
  return t.to_vector();
}

// One product on `engine` against float64, C padded (ldc > n) to catch writes outside it.
void checkProduct(GemmEngine engine, int64_t m, int64_t n, int64_t k, bool at_, bool bt, int64_t pad,
                  bool accumulate) {
  const int64_t lda = (at_ ? m : k) + pad, ldb = (bt ? k : n) + pad, ldc = n + pad;
  const std::vector<float> a = randoms(static_cast<size_t>((at_ ? k : m) * lda), "a"),
                           b = randoms(static_cast<size_t>((bt ? n : k) * ldb), "b");
  std::vector<float> c = randoms(static_cast<size_t>(m * ldc), "c");
  const std::vector<float> c0 = c;
  const GemmOperand ao{a.data(), at_, lda}, bo{b.data(), bt, ldb};
  sgemm(m, n, k, ao, bo, c.data(), ldc, accumulate, engine);
  for (int64_t i = 0; i < m; ++i)
    for (int64_t j = 0; j < ldc; ++j) {
      const size_t idx = static_cast<size_t>(i * ldc + j);
      if (j >= n) {  // the padding: untouched
        QCOMPARE(c[idx], c0[idx]);
        continue;
      }
      double ref = accumulate ? c0[idx] : 0.0, mag = accumulate ? std::fabs(c0[idx]) : 0.0;
      for (int64_t p = 0; p < k; ++p) {
        const double x = double(at(a, ao, i, p)) * double(at(b, bo, p, j));
        ref += x;
        mag += std::fabs(x);
      }
      const double bound = double(k + 2) * std::ldexp(1.0, -23) * mag + 1e-30;
      if (std::fabs(c[idx] - ref) > bound)
        QFAIL(qPrintable(QString("%1: C(%2, %3) = %4, float64 %5, bound %6")
                             .arg(QString::fromUtf8(gemm_engine_name(engine).data()))
                             .arg(i).arg(j).arg(c[idx]).arg(ref).arg(bound)));
    }
}

}  // namespace

class TestGemm : public QObject {
  Q_OBJECT
 private slots:
  void everyEngineEveryLayout_data() {
    QTest::addColumn<int>("m");
    QTest::addColumn<int>("n");
    QTest::addColumn<int>("k");
    QTest::addColumn<int>("pad");
    QTest::newRow("1x1x1") << 1 << 1 << 1 << 0;
    QTest::newRow("odd 7x13x5") << 7 << 13 << 5 << 3;
    QTest::newRow("classroom head 16x16x64") << 16 << 16 << 64 << 0;
    QTest::newRow("few rows, split by columns 8x600x512") << 8 << 600 << 512 << 5;
    QTest::newRow("split by rows, ragged 133x70x129") << 133 << 70 << 129 << 1;
    QTest::newRow("projection, split by rows 64x256x256") << 64 << 256 << 256 << 0;
    QTest::newRow("split by columns 64x600x512") << 64 << 600 << 512 << 2;
  }
  void everyEngineEveryLayout() {
    QFETCH(int, m);
    QFETCH(int, n);
    QFETCH(int, k);
    QFETCH(int, pad);
    for (GemmEngine e : built_in())
      for (bool at_ : {false, true})
        for (bool bt : {false, true})
          for (bool acc : {false, true}) {
            checkProduct(e, m, n, k, at_, bt, pad, acc);
            if (QTest::currentTestFailed()) return;
          }
  }

  // A library sits behind the same entry point: each engine built in gives matmul and linear the
  // naive twins' numbers on the head views (strided, transposed) the model multiplies.
  void matmulAndLinearOnEveryEngine() {
    const Tensor q = test::random_tensor({2, 24, 64}, "q"), k = test::random_tensor({2, 24, 64}, "k");
    auto heads = [](const Tensor& t) { return t.view({2, 24, 4, 16}).transpose(1, 2); };
    const Tensor w = test::random_tensor({48, 64}, "w"), bias = test::random_tensor({48}, "bias");
    const Tensor want_scores = naive::matmul(heads(q), heads(k).transpose(2, 3));
    const Tensor want_linear = naive::linear(q, w, bias);
    for (GemmEngine e : built_in()) {
      ForcedEngine forced(e);
      const Tensor scores = matmul(heads(q), heads(k).transpose(2, 3));
      const Tensor lin = linear(q, w, bias);
      const auto s = scores.to_vector(), ws = want_scores.to_vector(), l = lin.to_vector(),
                 wl = want_linear.to_vector();
      for (size_t i = 0; i < s.size(); ++i) QVERIFY2(std::fabs(s[i] - ws[i]) <= 1e-4 + 1e-5 * std::fabs(ws[i]), gemm_engine_name(e).data());
      for (size_t i = 0; i < l.size(); ++i) QVERIFY2(std::fabs(l[i] - wl[i]) <= 1e-4 + 1e-5 * std::fabs(wl[i]), gemm_engine_name(e).data());
    }
  }

  // The epilogue (+ bias, ReLU, + add, on each thread's own part of C after its product) gives the
  // bits of the separate passes on every engine, split by rows and by columns and not split at
  // all (and on Eigen over several row blocks in parallel), C and the added matrix padded (the
  // padding untouched), C starting from noise or accumulated onto.
  void epilogueIsTheSeparatePasses_data() {
    QTest::addColumn<int>("m");
    QTest::addColumn<int>("n");
    QTest::addColumn<int>("k");
    QTest::newRow("small, one part 7x13x5") << 7 << 13 << 5;
    QTest::newRow("split by rows 133x70x129") << 133 << 70 << 129;
    QTest::newRow("split by rows, LongerSide by columns 64x256x256") << 64 << 256 << 256;
    QTest::newRow("split by columns 64x600x512") << 64 << 600 << 512;
    QTest::newRow("Eigen's row blocks 1100x70x3") << 1100 << 70 << 3;  // 5 blocks of 234 rows, m·n ≥ 2¹⁶
  }
  void epilogueIsTheSeparatePasses() {
    QFETCH(int, m);
    QFETCH(int, n);
    QFETCH(int, k);
    const int64_t pad = 3, ldc = n + pad, ldd = n + 2 * pad;
    const auto mk = static_cast<size_t>(m * k), nk = static_cast<size_t>(n * k);
    const std::vector<float> a = randoms(mk, "a"), b = randoms(nk, "b"), bias = randoms(static_cast<size_t>(n), "bias"),
                             add = randoms(static_cast<size_t>(m * ldd), "add"),
                             noise = randoms(static_cast<size_t>(m * ldc), "c");
    const GemmOperand ao{a.data(), false, k}, bo{b.data(), true, k};
    for (const GemmCut cut : {GemmCut::InLayer, GemmCut::LongerSide}) {  // 64x256x256: rows, then columns
      const ScopedGemmCut forced_cut(cut);
      for (GemmEngine e : built_in())
        for (const int case_ : {0, 1, 2, 3, 4, 5, 6, 7, 8}) {
          // bias, relu, add: every combination; the last case accumulates onto C with all three
          const bool with_bias = case_ & 1 || case_ == 8, relu = case_ & 2 || case_ == 8,
                     with_add = case_ & 4 || case_ == 8, accumulate = case_ == 8;
          std::vector<float> want = noise;  // the separate passes
          sgemm(m, n, k, ao, bo, want.data(), ldc, accumulate, e);
          for (int64_t i = 0; i < m; ++i)
            for (int64_t j = 0; j < n; ++j) {
              float& x = want[static_cast<size_t>(i * ldc + j)];
              if (with_bias) x = x + bias[static_cast<size_t>(j)];
              if (relu) x = std::max(x, 0.0f);
              if (with_add) x = x + add[static_cast<size_t>(i * ldd + j)];
            }
          std::vector<float> got = noise;
          GemmEpilogue ep{.bias = with_bias ? bias.data() : nullptr, .relu = relu,
                          .add = with_add ? add.data() : nullptr, .add_ld = ldd};
          sgemm(m, n, k, ao, bo, got.data(), ldc, ep, accumulate, e);
          QVERIFY2(got == want, qPrintable(QString("%1: bias %2, relu %3, add %4, accumulate %5, cut %6")
                                               .arg(QString::fromUtf8(gemm_engine_name(e).data()))
                                               .arg(with_bias).arg(relu).arg(with_add).arg(accumulate)
                                               .arg(cut == GemmCut::InLayer ? "in layer" : "longer side")));
        }
    }
  }

  // The cut between threads: by rows while a part's re-packed op(B) (K × N) is at most kRowsUpTo
  // floats — every linear of a D 256 layer, at any length — else along C's longer side. The data
  // rows above named "split by rows / by columns" take the cut they say.
  void splitFollowsTheRule() {
    for (const int64_t s : {32, 128, 512, 2048}) {
      QVERIFY(gemm_splits_by_rows(s, 256, 256, 2));   // Q, K, V and the output projection, D 256
      QVERIFY(gemm_splits_by_rows(s, 1024, 256, 2));  // FFN up, D 256: K × N = 2¹⁸ exactly
      QVERIFY(gemm_splits_by_rows(s, 256, 1024, 2));  // FFN down, D 256
    }
    QVERIFY(!gemm_splits_by_rows(128, 2048, 512, 2));  // FFN up, S 128 × D 512: N > M, K × N = 2²⁰
    QVERIFY(gemm_splits_by_rows(2048, 2048, 512, 2));  // … at S 2048: M ≥ N
    QVERIFY(!gemm_splits_by_rows(64, 600, 512, 2));
    QVERIFY(gemm_splits_by_rows(133, 70, 129, 2));
    QVERIFY(gemm_splits_by_rows(64, 256, 256, 2));
    QVERIFY(gemm_splits_by_rows(8, 600, 512, 64));  // 600 columns are too few to cut 64 ways
    QVERIFY(!gemm_splits_by_rows(8, 600, 512, 2));
    QVERIFY(!gemm_splits_by_rows(8, 256, 64, 2));  // small weights but 8 rows: too few for 2 × 16
    // LongerSide (attnlab bench's products alone): columns wherever N > M and there are enough.
    QVERIFY(!gemm_splits_by_rows(128, 256, 256, 2, GemmCut::LongerSide));
    QVERIFY(!gemm_splits_by_rows(128, 1024, 256, 2, GemmCut::LongerSide));
    QVERIFY(gemm_splits_by_rows(128, 128, 256, 2, GemmCut::LongerSide));
    QVERIFY(gemm_splits_by_rows(8, 600, 512, 64, GemmCut::LongerSide));
    QCOMPARE(gemm_cut(), GemmCut::InLayer);  // the process starts with the layer's cut
    // Rows only while every thread gets 16 of them: at S 128 on 16 threads the columns keep all busy.
    QVERIFY(!gemm_splits_by_rows(128, 256, 256, 16));
    QVERIFY(gemm_splits_by_rows(256, 256, 256, 16));  // M ≥ N: rows on any count
    QVERIFY(!gemm_splits_by_rows(64, 1024, 256, 8));
  }

  // What sgemm does with the cut set now (gemm_split_for, split_library_gemm's own decision): the
  // process-wide cut reaches it, and the parts never exceed the threads or one per 16 rows/columns.
  void splitForFollowsTheCutSetNow() {
    GemmSplit in_layer{}, longer{}, small{};
    {
      const ScopedThreads on(2);
      in_layer = gemm_split_for(128, 256, 256);
      const ScopedGemmCut cut(GemmCut::LongerSide);
      longer = gemm_split_for(128, 256, 256);
    }
    small = gemm_split_for(4, 4, 4);  // under 2¹⁸ multiply-adds: one part
#ifdef _OPENMP
    QCOMPARE(in_layer.parts, 2);
    QCOMPARE(longer.parts, 2);
#endif
    QVERIFY(in_layer.by_rows);
    QVERIFY(!longer.by_rows);
    QCOMPARE(gemm_cut(), GemmCut::InLayer);  // put back when the scope ended
    QCOMPARE(small.parts, 1);
  }

  // linear_relu and linear_add are the two steps they replace, bit for bit, on every engine; a
  // residual of the wrong shape is refused by name.
  void linearReluAndLinearAddAreTheTwoSteps() {
    const Tensor x = test::random_tensor({3, 50, 64}, "x"), w = test::random_tensor({96, 64}, "w"),
                 bias = test::random_tensor({96}, "bias"), r = test::random_tensor({3, 50, 96}, "r");
    for (GemmEngine e : built_in()) {
      ForcedEngine forced(e);
      const char* name = gemm_engine_name(e).data();
      const std::vector<float> with_relu = relu(linear(x, w, bias)).to_vector(),
                               with_add = add(r, linear(x, w, bias)).to_vector();
      QVERIFY2(linear_relu(x, w, bias).to_vector() == with_relu, name);
      QVERIFY2(linear_add(x, w, bias, r).to_vector() == with_add, name);
      const Tensor strided = r.transpose(0, 1).contiguous().transpose(0, 1);  // same values, not contiguous
      QVERIFY2(linear_add(x, w, bias, strided).to_vector() == with_add, "a strided residual");
    }
    try {
      (void)linear_add(x, w, bias, test::random_tensor({3, 50, 64}, "r"));
      QFAIL("a (3, 50, 64) residual for a (3, 50, 96) output was taken");
    } catch (const ShapeError& err) {
      QVERIFY(std::string(err.what()).find("residual") != std::string::npos);
    }
  }

  // The same product twice gives the same bits on every engine (a resumed training run and a
  // replayed trace rely on it).
  void repeatable() {
    const int64_t m = 150, n = 300, k = 200;
    const std::vector<float> a = randoms(static_cast<size_t>(m * k), "a"), b = randoms(static_cast<size_t>(n * k), "b");
    for (GemmEngine e : built_in()) {
      std::vector<float> c1(static_cast<size_t>(m * n)), c2(c1.size());
      sgemm(m, n, k, {a.data(), false, k}, {b.data(), true, k}, c1.data(), n, false, e);
      sgemm(m, n, k, {a.data(), false, k}, {b.data(), true, k}, c2.data(), n, false, e);
      QVERIFY2(c1 == c2, gemm_engine_name(e).data());
    }
  }

  void dispatchBySize() {
    ForcedEngine automatic(GemmEngine::Auto);
    QCOMPARE(gemm_engine_for(16, 16, 64), GemmEngine::Eigen);  // below kLibraryFrom: no call overhead
    const GemmEngine big = gemm_engine_for(512, 512, 512);
    if (gemm_engine_available(GemmEngine::OneDnn))
      QCOMPARE(big, GemmEngine::OneDnn);
    else if (gemm_engine_available(GemmEngine::OpenBlas))
      QCOMPARE(big, GemmEngine::OpenBlas);
    else
      QCOMPARE(big, GemmEngine::Eigen);
    {
      ForcedEngine eigen(GemmEngine::Eigen);
      QCOMPARE(gemm_engine_for(512, 512, 512), GemmEngine::Eigen);
    }
    QVERIFY(gemm_engines_description().find("Eigen") != std::string::npos);
  }

  void engineNames() {
    for (GemmEngine e : {GemmEngine::Auto, GemmEngine::Eigen, GemmEngine::OpenBlas, GemmEngine::OneDnn})
      QCOMPARE(parse_gemm_engine(gemm_engine_name(e)), e);
    QVERIFY_THROWS_EXCEPTION(ConfigError, parse_gemm_engine("mkl"));
  }

  void peakIsMeasured() {
    const CpuPeak p = measure_cpu_peak(20);
    QVERIFY(p.gflops > 0.5);  // any x86-64 core of this century does more than that
    QVERIFY(p.threads >= 1);
    QCOMPARE(p.isa, widest_fma_isa());
    __builtin_cpu_init();
    const bool avx512 = __builtin_cpu_supports("avx512f") && __builtin_cpu_supports("avx512vl") &&
                        __builtin_cpu_supports("avx512dq");  // the row kernels' AVX-512 (row_kernels.cpp)
    const std::string want = avx512 ? "avx512f"
                             : (__builtin_cpu_supports("avx2") && __builtin_cpu_supports("fma")) ? "avx2+fma"
                                                                                                  : "sse2";
    QCOMPARE(p.isa, want);
  }
};

QTEST_GUILESS_MAIN(TestGemm)
#include "test_gemm.moc"
