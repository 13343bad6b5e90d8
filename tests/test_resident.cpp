// The resident encoder stack on the Vulkan device (core/backend/vulkan/vk_resident.h) against the
// CPU's layer-by-layer stack: pre- and post-norm, ReLU and GELU, with and without the FFN, one to
// three layers, head widths 8 to 128, padding and look-ahead masks with a fully masked row; one
// submission per forward pass; the same stack reused over inputs that grow and shrink; and the
// fallbacks (heads too wide, a buffer limit too low, fusing off, a fault) still right. With
// ATTNLAB_VULKAN_VALIDATION=1 (set by ctest) any validation message fails the test.
#include <QtTest>

#include <memory>

#include "backend/backend.h"
#include "backend_compare.h"
#include "forward/model.h"
#include "forward/resident_stack.h"
#include "model/weights.h"
#include "random_tensor.h"
#ifdef ATTNLAB_HAVE_VULKAN
#include "backend/vulkan/vulkan_backend.h"
#endif

using namespace attnlab;
using attnlab::test::compare;

namespace {

ModelConfig stack(int64_t d, int64_t heads, int64_t layers, Norm norm, Activation act, bool ffn) {
  ModelConfig cfg;
  cfg.d_model = d;
  cfg.heads = heads;
  cfg.d_ff = 2 * d + 8;  // not a multiple of the gemm tile
  cfg.layers = layers;
  cfg.norm = norm;
  cfg.activation = act;
  cfg.ffn = ffn;
  cfg.seed = 11;
  return cfg;
}

// Seeded weights with every LayerNorm's γ and β drawn too (the seeded 1 and 0 would hide a norm
// read from the wrong layer).
Weights weights(const ModelConfig& cfg) {
  Weights w = init_weights(cfg);
  for (const std::string& name : w.names())
    if (name.find(".norm") != std::string::npos) {
      Tensor t = test::random_tensor(w.get(name).shape(), name, 0.5f, 9);
      if (name.ends_with(".weight"))
        for (int64_t i = 0; i < t.numel(); ++i) t.data()[i] += 1.0f;
      w.set(name, t);
    }
  return w;
}

Tensor input(int64_t b, int64_t s, int64_t d) { return test::random_tensor({b, s, d}, "x", 1.0f, 5); }

// The CPU's stack over the same input: the reference.
Tensor on_cpu(const ModelConfig& cfg, const Weights& w, const Tensor& x, const Tensor& mask) {
  NullRecorder r;
  return encoder_stack(cfg, w, x, mask, r);
}

}  // namespace

class TestResident : public QObject {
  Q_OBJECT
#ifdef ATTNLAB_HAVE_VULKAN
  std::unique_ptr<VulkanBackend> vk_;
  bool subgroups_ = false;  // LayerNorm's reductions in subgroups by default here
#endif

 private slots:
  void initTestCase() {
#ifdef ATTNLAB_HAVE_VULKAN
    try {
      vk_ = std::make_unique<VulkanBackend>(-1, true);
      subgroups_ = vk_->tiles().subgroup_ops;
    } catch (const VulkanError& e) {
      qInfo("no Vulkan device: %s", e.what());
    }
#endif
  }

  void init() {
#ifdef ATTNLAB_HAVE_VULKAN
    if (!vk_) QSKIP("no Vulkan device here (install mesa-vulkan-drivers for lavapipe)");
#else
    QSKIP("built without the Vulkan compute path");
#endif
  }

#ifdef ATTNLAB_HAVE_VULKAN
  void cleanup() {
    if (!vk_) return;
    vk_->set_fused_attention(true);
    vk_->set_max_buffer_bytes(~0ull);
    vk_->use_subgroup_reductions(subgroups_);  // the default found at the start
    QVERIFY2(test::validation_clean(*vk_), "the Vulkan validation layer reported problems");
  }

  void matchesTheCpu_data() {
    QTest::addColumn<qint64>("d");
    QTest::addColumn<qint64>("heads");
    QTest::addColumn<qint64>("layers");
    QTest::addColumn<bool>("post");
    QTest::addColumn<bool>("gelu");
    QTest::addColumn<bool>("ffn");
    QTest::newRow("pre-norm, relu, 2 layers, dh 16") << qint64(64) << qint64(4) << qint64(2) << false << false << true;
    QTest::newRow("post-norm, gelu, 3 layers, dh 16") << qint64(64) << qint64(4) << qint64(3) << true << true << true;
    QTest::newRow("pre-norm, attention only, 2 layers") << qint64(32) << qint64(4) << qint64(2) << false << false << false;
    QTest::newRow("post-norm, attention only, 1 layer") << qint64(32) << qint64(2) << qint64(1) << true << false << false;
    QTest::newRow("pre-norm, gelu, 1 layer, dh 128") << qint64(256) << qint64(2) << qint64(1) << false << true << true;
    QTest::newRow("pre-norm, gelu tanh, 2 layers, dh 32") << qint64(64) << qint64(2) << qint64(2) << false << true << true;
    QTest::newRow("post-norm, relu, 2 layers, dh 40") << qint64(120) << qint64(3) << qint64(2) << true << false << true;
    // LayerNorm's reductions (add_norm.comp) in shared memory only: the other rows use subgroups
    // where the device has them (lavapipe has).
    QTest::newRow("post-norm, gelu, 2 layers, dh 16, shared-memory reductions") << qint64(64) << qint64(4) << qint64(2) << true << true << true;
  }
  // The resident stack itself (not through encoder_stack, which could have fallen back) against
  // the CPU; a sentence padded and one query row with every key masked (NaN in both).
  void matchesTheCpu() {
    QFETCH(qint64, d);
    QFETCH(qint64, heads);
    QFETCH(qint64, layers);
    QFETCH(bool, post);
    QFETCH(bool, gelu);
    QFETCH(bool, ffn);
    const bool tanh_form = QByteArray(QTest::currentDataTag()).contains("tanh");
    const ModelConfig cfg = stack(d, heads, layers, post ? Norm::Post : Norm::Pre,
                                  gelu ? (tanh_form ? Activation::GeluTanh : Activation::Gelu) : Activation::Relu, ffn);
    const Weights w = weights(cfg);
    const Tensor x = input(2, 37, d);
    const Tensor mask = make_mask(MaskKind::PaddingCausal, {37, 21}, 37, 37);
    const bool shared_only = QByteArray(QTest::currentDataTag()).contains("shared-memory");
    if (shared_only) QVERIFY(!vk_->use_subgroup_reductions(false));  // cleanup() puts them back
    const auto st = make_resident_encoder(cfg, w, *vk_);
    QVERIFY(st != nullptr);
    const uint64_t before = vk_->submissions();
    const std::optional<Tensor> got = st->run(x, mask);
    QVERIFY(got.has_value());
    QCOMPARE(vk_->submissions() - before, uint64_t(1));  // the whole stack, one submission
    const std::string why = compare(*got, on_cpu(cfg, w, x, mask));
    QVERIFY2(why.empty(), why.c_str());
  }

  void fullyMaskedRowIsNaN() {  // one layer: in a second, every query would read key 4's NaN
    const ModelConfig cfg = stack(32, 4, 1, Norm::Pre, Activation::Relu, true);
    const Weights w = weights(cfg);
    const Tensor x = input(1, 9, 32);
    Tensor mask = make_mask(MaskKind::Padding, {9}, 9, 9);
    for (int64_t j = 0; j < 9; ++j) mask.data()[4 * 9 + j] = 0.0f;  // query 4 sees nothing
    const auto got = make_resident_encoder(cfg, w, *vk_)->run(x, mask);
    QVERIFY(got.has_value());
    QVERIFY(std::isnan(got->at({0, 4, 0})));
    QVERIFY(!std::isnan(got->at({0, 3, 0})));
    const std::string why = compare(*got, on_cpu(cfg, w, x, mask));
    QVERIFY2(why.empty(), why.c_str());
  }

  // One upload, many passes: the activations grow for a longer input and are reused for a
  // shorter one; every pass still right, and the weights are not uploaded again.
  void reusedOverInputsThatGrowAndShrink() {
    const ModelConfig cfg = stack(64, 4, 2, Norm::Post, Activation::Gelu, true);
    const Weights w = weights(cfg);
    const auto st = make_resident_encoder(cfg, w, *vk_);
    QVERIFY(st != nullptr);
    for (const auto& [b, s] : std::vector<std::pair<int64_t, int64_t>>{{1, 5}, {3, 70}, {2, 12}, {1, 1}}) {
      const Tensor x = input(b, s, 64);
      const Tensor mask = make_mask(MaskKind::Causal, std::vector<int>(static_cast<size_t>(b), int(s)), s, s);
      const uint64_t before = vk_->submissions();
      const auto got = st->run(x, mask);
      QVERIFY(got.has_value());
      QCOMPARE(vk_->submissions() - before, uint64_t(1));
      const std::string why = compare(*got, on_cpu(cfg, w, x, mask));
      QVERIFY2(why.empty(), (std::to_string(b) + "×" + std::to_string(s) + ": " + why).c_str());
    }
  }

  // encoder_stack and forward() on the device take the resident path when nothing is recorded.
  void fastPathsUseIt() {
    const ModelConfig cfg = stack(64, 4, 2, Norm::Pre, Activation::Relu, true);
    const Weights w = weights(cfg);
    const Tensor x = input(2, 20, 64);
    const Tensor mask = make_mask(MaskKind::Padding, {20, 11}, 20, 20);
    NullRecorder r;
    uint64_t before = vk_->submissions();
    const Tensor got = encoder_stack(cfg, w, x, mask, r, *vk_);
    // Two: the weights' upload and the pass (op by op it would be dozens).
    QCOMPARE(vk_->submissions() - before, uint64_t(2));
    std::string why = compare(got, on_cpu(cfg, w, x, mask));
    QVERIFY2(why.empty(), why.c_str());

    const Batch batch = make_batch({"the cat sat on the mat", "a dog"}, {});
    NullRecorder r1, r2;
    before = vk_->submissions();
    const Tensor fwd = forward(cfg, w, batch, r1, *vk_);
    QCOMPARE(vk_->submissions() - before, uint64_t(2));
    why = compare(fwd, forward(cfg, w, batch, r2));
    QVERIFY2(why.empty(), why.c_str());
  }

  // Where the resident stack cannot run, the op-by-op path does, and is right.
  void fallbacks() {
    // Heads wider than the fused kernel's 128 registers: no resident stack.
    ModelConfig wide = stack(256, 1, 1, Norm::Pre, Activation::Relu, true);
    const Weights ww = weights(wide);
    QVERIFY(make_resident_encoder(wide, ww, *vk_) == nullptr);
    // Fusing off (the five steps asked for) and an injected fault: none either.
    const ModelConfig cfg = stack(32, 4, 1, Norm::Pre, Activation::Relu, true);
    const Weights w = weights(cfg);
    vk_->set_fused_attention(false);
    QVERIFY(make_resident_encoder(cfg, w, *vk_) == nullptr);
    vk_->set_fused_attention(true);
    ModelConfig faulty = cfg;
    faulty.faults.insert(Fault::NoScaling);
    QVERIFY(make_resident_encoder(faulty, w, *vk_) == nullptr);
    // An input past one buffer (the limit forced low): run() declines, encoder_stack splits.
    const auto st = make_resident_encoder(cfg, w, *vk_);
    QVERIFY(st != nullptr);
    vk_->set_max_buffer_bytes(16 * 1024);
    const Tensor x = input(2, 40, 32);
    const Tensor mask = make_mask(MaskKind::Padding, {40, 40}, 40, 40);
    QVERIFY(!st->run(x, mask).has_value());
    NullRecorder r;
    const std::string why = compare(encoder_stack(cfg, w, x, mask, r, *vk_), on_cpu(cfg, w, x, mask));
    QVERIFY2(why.empty(), why.c_str());
    // The input and the mask go up in one mapped buffer: each fits the limit here, not both.
    vk_->set_max_buffer_bytes(~0ull);
    const ModelConfig att = stack(32, 4, 1, Norm::Pre, Activation::Relu, false);
    const auto st2 = make_resident_encoder(att, weights(att), *vk_);
    QVERIFY(st2 != nullptr);
    vk_->set_max_buffer_bytes(200 * 200 * 4);
    QVERIFY(!st2->run(input(1, 200, 32), make_mask(MaskKind::Padding, {200}, 200, 200)).has_value());
  }
#endif
};

QTEST_GUILESS_MAIN(TestResident)
#include "test_resident.moc"
