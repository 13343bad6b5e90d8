// The backend parity table: every Backend operation on the Vulkan device against the CPU, over
// shapes that cover tile remainders, strided views (transposed keys, head slices), NaN rows and
// the split paths (a buffer limit forced low), then a whole traced forward pass step by step.
// NaN/Inf agreement is checked before any difference. Tolerance: the spec's Vulkan-vs-CPU row,
// |v − c| ≤ 1e-4 + 1e-3·|c|. With ATTNLAB_VULKAN_VALIDATION=1 (set by ctest) and Debian's
// vulkan-validationlayers installed, any validation message fails the test.
#include <QtTest>

#include <cmath>
#include <cstring>
#include <memory>

#include "backend/backend.h"
#include "forward/model.h"
#include "model/weights.h"
#include "backend_compare.h"
#include "random_tensor.h"
#ifdef ATTNLAB_HAVE_VULKAN
#include "backend/vulkan/vulkan_backend.h"
#endif

using namespace attnlab;
using attnlab::test::compare;

namespace {

Tensor random(const Shape& shape, const std::string& name, float scale = 1.0f) {
  return test::random_tensor(shape, name, scale, 7);
}

// An environment variable set for a scope, then put back as it was (or unset), even on a throw.
class EnvFor {
 public:
  EnvFor(const char* name, const QByteArray& value) : name_(name), had_(qEnvironmentVariableIsSet(name)), before_(qgetenv(name)) {
    qputenv(name, value);
  }
  ~EnvFor() {
    if (had_) qputenv(name_, before_);
    else qunsetenv(name_);
  }
  EnvFor(const EnvFor&) = delete;
  EnvFor& operator=(const EnvFor&) = delete;

 private:
  const char* name_;
  bool had_;
  QByteArray before_;
};

}  // namespace

class TestBackend : public QObject {
  Q_OBJECT
#ifdef ATTNLAB_HAVE_VULKAN
  std::unique_ptr<VulkanBackend> vk_;
  bool has_subgroups_ = false;  // the device has subgroup arithmetic in compute shaders
  bool subgroups_ = false;      // the reductions' default here (ATTNLAB_VULKAN_SUBGROUPS=0: off)
#endif

 private slots:
  void initTestCase() {
#ifndef ATTNLAB_HAVE_VULKAN
    qInfo("built without the Vulkan compute path: only the backend choice is tested");
#else
    try {
      vk_ = std::make_unique<VulkanBackend>(-1, true);
    } catch (const VulkanError& e) {
      qInfo("no Vulkan device: %s (install mesa-vulkan-drivers for lavapipe); the parity table is skipped", e.what());
      return;
    }
    subgroups_ = vk_->tiles().subgroup_ops;
    has_subgroups_ = vk_->use_subgroup_reductions(true);
    vk_->use_subgroup_reductions(subgroups_);
    qInfo("Vulkan device: %s, validation layer %s, gemm tiles %u×%u (BK %u), softmax workgroup %u, subgroup %u, "
          "row reductions in %s",
          vk_->device().c_str(), vk_->validating() ? "on" : "off", vk_->tiles().tx * 4, vk_->tiles().ty * 4, vk_->tiles().bk, vk_->tiles().softmax_wg,
          vk_->tiles().subgroup, subgroups_ ? "subgroups" : "shared memory");
#endif
  }

#ifdef ATTNLAB_HAVE_VULKAN
  // Every parity test needs the device; the backend-choice tests below do not.
  void init() {
    const QString name = QTest::currentTestFunction();
    if (!vk_ && name != "failureMidRunFallsBackUnderAuto" && name != "choosingTheBackend")
      QSKIP("no Vulkan device here");
  }

  void cleanup() {
    if (!vk_) return;
    vk_->use_subgroup_reductions(subgroups_);
    QVERIFY2(test::validation_clean(*vk_), "the Vulkan validation layer reported problems");
  }

  void linear_data() {
    QTest::addColumn<qint64>("rows");
    QTest::addColumn<qint64>("in");
    QTest::addColumn<qint64>("out");
    QTest::addColumn<qint64>("row0");
    QTest::addColumn<quint64>("limit");  // bytes per buffer, 0 = the device's
    QTest::newRow("one row") << 1LL << 8LL << 8LL << 0LL << 0ULL;
    QTest::newRow("tile remainders") << 67LL << 33LL << 71LL << 0LL << 0ULL;
    QTest::newRow("Q rows of in_proj") << 20LL << 64LL << 64LL << 0LL << 0ULL;
    QTest::newRow("V rows of in_proj") << 20LL << 64LL << 64LL << 128LL << 0ULL;
    QTest::newRow("FFN 512→2048") << 128LL << 512LL << 2048LL << 0LL << 0ULL;
    QTest::newRow("split rows") << 300LL << 48LL << 40LL << 0LL << 16384ULL;
  }
  void linear() {
    QFETCH(qint64, rows);
    QFETCH(qint64, in);
    QFETCH(qint64, out);
    QFETCH(qint64, row0);
    QFETCH(quint64, limit);
    if (limit) vk_->set_max_buffer_bytes(limit);
    const Tensor x = random({2, rows, in}, "x"), w = random({row0 + out, in}, "w", 0.1f),
                 b = random({row0 + out}, "b");
    const std::string why = compare(vk_->linear_rows(x, w, b, row0, out), cpu_backend().linear_rows(x, w, b, row0, out));
    vk_->set_max_buffer_bytes(UINT64_MAX);
    QVERIFY2(why.empty(), why.c_str());
  }

  void matmul_data() {
    QTest::addColumn<QString>("what");
    QTest::addColumn<quint64>("limit");
    QTest::newRow("2-D") << "2d" << 0ULL;
    QTest::newRow("QKᵀ: k transposed in place") << "qk" << 0ULL;
    QTest::newRow("weights·V: V a head view") << "av" << 0ULL;
    QTest::newRow("QKᵀ split over the batch") << "qk" << 4096ULL;
    QTest::newRow("one head, odd sizes") << "odd" << 0ULL;
  }
  void matmul() {
    QFETCH(QString, what);
    QFETCH(quint64, limit);
    if (limit) vk_->set_max_buffer_bytes(limit);
    Tensor a, b;
    if (what == "2d") {
      a = random({37, 19}, "a");
      b = random({19, 45}, "b");
    } else if (what == "odd") {
      a = random({3, 1, 5, 7}, "a");
      b = random({3, 1, 7, 9}, "b");
    } else {
      // (B, S, H, Dh) views transposed to (B, H, S, Dh), as the head split makes them.
      const Tensor q = random({2, 13, 4, 8}, "q").transpose(1, 2);
      const Tensor k = random({2, 13, 4, 8}, "k").transpose(1, 2);
      if (what == "qk") {
        a = q;
        b = k.transpose(-2, -1);
      } else {
        a = random({2, 4, 13, 13}, "w");
        b = k;
      }
    }
    const std::string why = compare(vk_->matmul(a, b), cpu_backend().matmul(a, b));
    vk_->set_max_buffer_bytes(UINT64_MAX);
    QVERIFY2(why.empty(), why.c_str());
  }

  // Each row reduced both ways (shaders/row_reduce.glsl): in subgroups, where the device has
  // subgroup arithmetic (lavapipe has: the default there), and in shared memory only. Rows shorter
  // than one subgroup, longer than the workgroup, of −∞, and with a peak of 200 in the row's last
  // entry (a later subgroup's, a later pass's): a max that missed it would overflow exp to NaN.
  void softmax_data() {
    QTest::addColumn<qint64>("n");
    QTest::addColumn<QString>("kind");
    QTest::addColumn<bool>("subgroups");
    for (const bool sg : {true, false}) {
      const QString how = sg ? QStringLiteral(", subgroups") : QStringLiteral(", shared memory");
      QTest::newRow(qPrintable("short rows" + how)) << 5LL << "plain" << sg;
      QTest::newRow(qPrintable("long rows" + how)) << 1000LL << "plain" << sg;
      QTest::newRow(qPrintable("−∞ cells and an all −∞ row (NaN)" + how)) << 9LL << "masked" << sg;
      QTest::newRow(qPrintable("a peak at the end of every row" + how)) << 1000LL << "peak" << sg;
    }
  }
  void softmax() {
    QFETCH(qint64, n);
    QFETCH(QString, kind);
    QFETCH(bool, subgroups);
    if (subgroups && !has_subgroups_) QSKIP("this device has no subgroup arithmetic in compute shaders");
    QCOMPARE(vk_->use_subgroup_reductions(subgroups), subgroups);
    QCOMPARE(vk_->tiles().subgroup_ops, subgroups);
    Tensor x = random({2, 3, 7, n}, "s", 4.0f);
    if (kind == "masked") {
      const float ninf = -std::numeric_limits<float>::infinity();
      for (int64_t j = 3; j < n; ++j) x.data()[j] = ninf;         // row 0: keys 3… masked
      for (int64_t j = 0; j < n; ++j) x.data()[n + j] = ninf;     // row 1: every key masked
    }
    if (kind == "peak")
      for (int64_t r = 0; r < x.numel() / n; ++r) x.data()[r * n + n - 1] = 200.0f;
    Tensor v = x.clone(), c = x.clone();
    vk_->softmax_lastdim_inplace(v);
    cpu_backend().softmax_lastdim_inplace(c);
    const std::string why = compare(v, c);
    QVERIFY2(why.empty(), why.c_str());
    // Out of place (the traced forward): the same values, a fresh tensor, x kept.
    const std::vector<float> before = x.to_vector();
    const Tensor vo = vk_->softmax_lastdim(x), co = cpu_backend().softmax_lastdim(x);
    QVERIFY(x.to_vector() == before);
    QVERIFY(vo.data() != x.data() && co.data() != x.data());
    const auto same_bits = [](const Tensor& a, const Tensor& b) {  // NaN rows included
      return a.numel() == b.numel() && std::memcmp(a.data(), b.data(), a.numel() * sizeof(float)) == 0;
    };
    QVERIFY(same_bits(vo, v));  // the default: a copy, then the same shader
    QVERIFY(same_bits(co, c));  // the CPU's own: bit for bit the in-place rows
    if (kind == "masked") {
      QCOMPARE(v.data()[5], 0.0f);  // masked weights are exactly 0
      QVERIFY(std::isnan(v.data()[n]));
    }
    if (kind == "peak") QCOMPARE(c.data()[n - 1], 1.0f);  // the data is what it says
  }

  // Mesa's lavapipe (CI's device) has subgroup arithmetic: there the subgroup reductions must be
  // the default, or CI would test only the fallback; ATTNLAB_VULKAN_SUBGROUPS=0 turns them off.
  void subgroupReductionsAreTheDefaultWhereTheDeviceHasThem() {
    const bool forced_off = qgetenv("ATTNLAB_VULKAN_SUBGROUPS") == "0";
    if (QString::fromStdString(vk_->device()).contains(QStringLiteral("llvmpipe"))) QVERIFY(has_subgroups_);
    QCOMPARE(subgroups_, has_subgroups_ && !forced_off);
    QVERIFY(!vk_->use_subgroup_reductions(false));
    QVERIFY(!vk_->tiles().subgroup_ops);
    QCOMPARE(vk_->use_subgroup_reductions(true), has_subgroups_);
    const EnvFor off("ATTNLAB_VULKAN_SUBGROUPS", "0");
    QVERIFY(!VulkanBackend(-1, true).tiles().subgroup_ops);
  }

  void activation_data() {
    QTest::addColumn<int>("kind");
    QTest::newRow("relu") << int(Activation::Relu);
    QTest::newRow("gelu (erf approximation)") << int(Activation::Gelu);
    QTest::newRow("gelu (tanh form)") << int(Activation::GeluTanh);
  }
  void activation() {
    QFETCH(int, kind);
    Tensor x = random({3, 50, 33}, "h", 3.0f);
    x.data()[0] = std::numeric_limits<float>::quiet_NaN();
    x.data()[1] = 40.0f;  // e^{2u} overflows: tanh must still be 1
    x.data()[2] = -40.0f;
    const Activation a = static_cast<Activation>(kind);
    const std::string why = compare(vk_->activate(x, a), cpu_backend().activate(x, a));
    QVERIFY2(why.empty(), why.c_str());
  }

  // The fused kernel (online softmax over key tiles of 16, query rows in groups of 64) against
  // the five unfused steps on the CPU: remainders on both axes, head widths from 1 to 128 (and 160,
  // which falls back), strided views, and a row with every key masked (NaN, as unfused).
  void fusedAttention_data() {
    QTest::addColumn<qint64>("tq");
    QTest::addColumn<qint64>("tk");
    QTest::addColumn<qint64>("dh");
    QTest::addColumn<bool>("fully_masked_row");
    QTest::newRow("tiny") << 1LL << 1LL << 1LL << false;
    QTest::newRow("remainders 70 × 37, Dh 13") << 70LL << 37LL << 13LL << false;
    QTest::newRow("cross 5 × 130, Dh 8") << 5LL << 130LL << 8LL << false;
    QTest::newRow("Dh 64, a row with every key masked") << 33LL << 33LL << 64LL << true;
    QTest::newRow("Dh 128") << 40LL << 50LL << 128LL << false;
    QTest::newRow("Dh 160 (falls back to the five steps)") << 9LL << 9LL << 160LL << false;
  }
  void fusedAttention() {
    QFETCH(qint64, tq);
    QFETCH(qint64, tk);
    QFETCH(qint64, dh);
    QFETCH(bool, fully_masked_row);
    const int64_t B = 2, H = 3;
    // (B, T, H, Dh) transposed to (B, H, T, Dh): strided, as the head split leaves them.
    const Tensor q = random({B, tq, H, dh}, "q").transpose(1, 2), k = random({B, tk, H, dh}, "k").transpose(1, 2),
                 v = random({B, tk, H, dh}, "v").transpose(1, 2);
    std::vector<int> lengths{static_cast<int>(tk), static_cast<int>(std::max<int64_t>(1, tk / 2))};
    Tensor mask = make_mask(tq == tk ? MaskKind::PaddingCausal : MaskKind::Padding, lengths, tq, tk);
    if (fully_masked_row)
      for (int64_t j = 0; j < tk; ++j) mask.data()[(1 * tq + 2) * tk + j] = 0.0f;  // sentence 1, query 2
    const float root = static_cast<float>(std::sqrt(static_cast<double>(dh)));
    const Tensor fused = vk_->attention(q, k, v, mask, root);
    const Tensor want = cpu_backend().attention(q, k, v, mask, root);
    std::string why = compare(fused, want);
    QVERIFY2(why.empty(), why.c_str());
    vk_->set_fused_attention(false);
    why = compare(vk_->attention(q, k, v, mask, root), want);
    vk_->set_fused_attention(true);
    QVERIFY2(why.empty(), ("unfused: " + why).c_str());
    if (fully_masked_row) QVERIFY(std::isnan(fused.at({1, 0, 2, 0})));
  }

  // The fast path (nothing recorded) of a two-layer encoder stack: the fused attention in place.
  void fastPathStack() {
    const ModelConfig cfg = test::small_stack(64, 96);
    const Tensor x = random({2, 45, 64}, "x");
    const Tensor mask = make_mask(MaskKind::PaddingCausal, {45, 30}, 45, 45);
    const Weights w = init_weights(cfg);
    NullRecorder r1, r2;
    const std::string why = compare(encoder_stack(cfg, w, x, mask, r1, *vk_), encoder_stack(cfg, w, x, mask, r2));
    QVERIFY2(why.empty(), why.c_str());
  }

  // A whole traced forward pass: every recorded step, encoder and decoder, both activations.
  void forwardPassStepByStep_data() {
    QTest::addColumn<bool>("cross");
    QTest::addColumn<bool>("gelu");
    QTest::newRow("encoder, padding, relu") << false << false;
    QTest::newRow("encoder–decoder, gelu") << true << true;
  }
  void forwardPassStepByStep() {
    QFETCH(bool, cross);
    QFETCH(bool, gelu);
    ModelConfig cfg = test::small_stack(32, 72);
    cfg.cross = cross;
    cfg.activation = gelu ? Activation::Gelu : Activation::Relu;
    cfg.mask = MaskKind::PaddingCausal;
    const Batch batch = make_batch({"the cat sat on the mat", "a dog"}, cross ? std::vector<std::string>{"le chat"}
                                                                               : std::vector<std::string>{});
    const Weights w = init_weights(cfg);
    Trace tv, tc;
    forward(cfg, w, batch, tv, *vk_);
    forward(cfg, w, batch, tc);
    QCOMPARE(tv.steps().size(), tc.steps().size());
    double worst = 0;
    for (size_t i = 0; i < tv.steps().size(); ++i) {
      const std::string why = compare(tv.steps()[i].tensor, tc.steps()[i].tensor, &worst);
      QVERIFY2(why.empty(), (tv.steps()[i].info.id + ": " + why).c_str());
    }
    qInfo("%zu steps: worst |vulkan − cpu| = %.2g of the tolerance", tv.steps().size(), worst);
    QVERIFY(vk_->device_ms() >= 0);
  }
#endif

  // A device that fails in the middle of a forward pass (as a lost device or an exhausted memory
  // would): under auto the whole pass runs again on the CPU and says so; a forced Vulkan fails.
  void failureMidRunFallsBackUnderAuto() {
    struct Flaky : CpuBackend {
      int calls = 0;
      std::string name() const override { return "vulkan"; }
      Tensor matmul(const Tensor& a, const Tensor& b) override {
        if (++calls == 2) throw VulkanError(verbatim("Vulkan: vkQueueSubmit failed: VK_ERROR_DEVICE_LOST (test)"));
        return CpuBackend::matmul(a, b);
      }
    };
    ModelConfig cfg;
    cfg.d_model = 16;
    cfg.heads = 2;
    cfg.d_ff = 32;
    const Batch batch = make_batch({"one two three"}, {});
    const Weights w = init_weights(cfg);
    Trace reference;
    forward(cfg, w, batch, reference);
    int runs = 0;
    Trace trace;
    auto pass = [&](Backend& b) {
      ++runs;
      trace = Trace();
      forward(cfg, w, batch, trace, b);
    };
    BackendNote note;
    const auto used = run_with_fallback(std::make_shared<Flaky>(), BackendKind::Auto, pass, &note);
    QCOMPARE(used->name(), std::string("cpu"));
    QCOMPARE(runs, 2);
    QVERIFY(note.failure);
    QVERIFY(note.text.english().find("VK_ERROR_DEVICE_LOST") != std::string::npos);
    QCOMPARE(trace.steps().size(), reference.steps().size());  // a whole pass, not a patched one
    QVERIFY_THROWS_EXCEPTION(VulkanError, run_with_fallback(std::make_shared<Flaky>(), BackendKind::Vulkan, pass));
  }

  void choosingTheBackend() {
    QCOMPARE(make_backend(BackendKind::Cpu)->name(), std::string("cpu"));
    QVERIFY_THROWS_EXCEPTION(ConfigError, parse_backend("gpu"));
    BackendNote note;
    const auto automatic = make_backend(BackendKind::Auto, &note);
    // auto never takes a CPU-type device such as lavapipe: without a real GPU it is the CPU, and
    // that is no failure.
    if (automatic->name() == "cpu") {
      QVERIFY(!note.text.empty());
      QVERIFY(!note.failure);
    }
#ifndef ATTNLAB_HAVE_VULKAN
    QVERIFY_THROWS_EXCEPTION(VulkanError, make_backend(BackendKind::Vulkan));
#else
    if (vk_) QCOMPARE(make_backend(BackendKind::Vulkan)->name(), std::string("vulkan"));
    {
      const EnvFor beyond("ATTNLAB_VULKAN_DEVICE", "99");
      QVERIFY_THROWS_EXCEPTION(VulkanError, make_backend(BackendKind::Vulkan));
    }
    const EnvFor not_a_number("ATTNLAB_VULKAN_DEVICE", "one");
    QVERIFY_THROWS_EXCEPTION(ConfigError, make_backend(BackendKind::Vulkan));
#endif
  }
};

QTEST_GUILESS_MAIN(TestBackend)
#include "test_backend.moc"
