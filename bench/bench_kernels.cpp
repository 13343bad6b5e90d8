// The kernels of the forward pass, each beside its naive reference where one exists, and the
// two classroom latencies the GUI promises (issue 7): a traced two-layer run when only the text
// changed (weights reused) and when a size changed (weights made anew).
//
//   cmake --preset bench && cmake --build --preset bench --target bench_kernels
//   build/bench/bench/bench_kernels --benchmark_repetitions=5 --benchmark_report_aggregates_only=true
//
// GFLOPS counters count 2 flops per multiply-add; "bytes" counters are what the kernel keeps.
#include <benchmark/benchmark.h>
#ifdef ATTNLAB_BENCH_CBLAS
#include <cblas.h>
#endif

#include <Eigen/Core>

#include <bit>
#include <cmath>

#include <nlohmann/json.hpp>

#include "../tests/gpt2_checkpoint.h"
#include "backend/attention_tiled.h"
#include "backend/backend.h"
#include "forward/model.h"
#include "input/samplemodels.h"
#include "model/trained.h"
#include "model/weights.h"
#include "pretrained/gpt2.h"
#include "pretrained/kv_check.h"
#include "tensor/key_ranges.h"
#include "tensor/ops.h"
#include "tensor/ops_naive.h"
#include "tensor/rng.h"
#include "variants/variants.h"
#include "window/controller.h"

using namespace attnlab;

namespace {

Tensor normals(const Shape& shape, const std::string& name) {
  Tensor t(shape);
  const Stream s(name, 3);
  for (int64_t i = 0; i < t.numel(); ++i) t.data()[i] = static_cast<float>(s.normal(static_cast<uint64_t>(i)));
  return t;
}

void gflops(benchmark::State& state, double flops_per_iteration) {
  state.counters["GFLOPS"] =
      benchmark::Counter(flops_per_iteration * 1e-9, benchmark::Counter::kIsIterationInvariantRate);
}

// x (S, D) · W (D, D)ᵀ + b: one projection.
template <bool Naive>
void BM_Linear(benchmark::State& state) {
  const int64_t s = state.range(0), d = state.range(1);
  const Tensor x = normals({s, d}, "x"), w = normals({d, d}, "w"), b = normals({d}, "b");
  for (auto _ : state) benchmark::DoNotOptimize(Naive ? naive::linear(x, w, b) : linear(x, w, b));
  gflops(state, 2.0 * double(s) * double(d) * double(d));
}
BENCHMARK(BM_Linear<false>)->Args({128, 512})->Args({512, 512})->Args({2048, 1024})->Unit(benchmark::kMillisecond);
BENCHMARK(BM_Linear<true>)->Args({128, 512})->Unit(benchmark::kMillisecond);

#ifdef ATTNLAB_BENCH_CBLAS
// The same product through the system BLAS (cblas_sgemm, y = x·Wᵀ, then the bias), for choosing
// the GEMM engine by measurement.
void BM_LinearBlas(benchmark::State& state) {
  const int s = static_cast<int>(state.range(0)), d = static_cast<int>(state.range(1));
  const Tensor x = normals({s, d}, "x"), w = normals({d, d}, "w"), b = normals({d}, "b");
  for (auto _ : state) {
    Tensor y = Tensor::empty({s, d});
    cblas_sgemm(CblasRowMajor, CblasNoTrans, CblasTrans, s, d, d, 1.0f, x.data(), d, w.data(), d, 0.0f, y.data(), d);
    for (int i = 0; i < s; ++i)
      for (int j = 0; j < d; ++j) y.data()[i * d + j] += b.data()[j];
    benchmark::DoNotOptimize(y.data());
  }
  gflops(state, 2.0 * double(s) * double(d) * double(d));
}
BENCHMARK(BM_LinearBlas)->Args({128, 512})->Args({512, 512})->Args({2048, 1024})->Unit(benchmark::kMillisecond);
#endif

// Rows of S scores: the max-subtracted exponentials and their sum, in place.
template <bool Naive>
void BM_Softmax(benchmark::State& state) {
  const int64_t rows = state.range(0), cols = state.range(1);
  const Tensor x = normals({rows, cols}, "s");
  for (auto _ : state) {
    if constexpr (Naive) {
      benchmark::DoNotOptimize(naive::softmax_lastdim(x));
    } else {
      Tensor y = x.clone();
      softmax_lastdim_inplace(y);
      benchmark::DoNotOptimize(y.data());
    }
  }
  state.SetItemsProcessed(state.iterations() * rows * cols);
}
BENCHMARK(BM_Softmax<false>)->Args({8 * 512, 512})->Unit(benchmark::kMillisecond);
BENCHMARK(BM_Softmax<true>)->Args({8 * 512, 512})->Unit(benchmark::kMillisecond);

template <bool Naive>
void BM_LayerNorm(benchmark::State& state) {
  const int64_t s = state.range(0), d = state.range(1);
  const Tensor x = normals({s, d}, "x"), g = normals({d}, "g"), b = normals({d}, "b");
  for (auto _ : state) benchmark::DoNotOptimize(Naive ? naive::layer_norm(x, g, b, 1e-5) : layer_norm(x, g, b, 1e-5));
  state.SetItemsProcessed(state.iterations() * s * d);
}
BENCHMARK(BM_LayerNorm<false>)->Args({2048, 512})->Unit(benchmark::kMillisecond);
BENCHMARK(BM_LayerNorm<true>)->Args({2048, 512})->Unit(benchmark::kMillisecond);

// softmax(q·kᵀ/√Dh)·v for B 1, H 8, Dh 64, causal: the five steps with the (B, H, S, S) score
// tensor, or the tiled loop with key ranges (no score matrix, no dense mask).
template <bool Tiled>
void BM_Attention(benchmark::State& state) {
  const int64_t s = state.range(0), h = 8, dh = 64;
  const Tensor q = normals({1, s, h, dh}, "q").transpose(1, 2), k = normals({1, s, h, dh}, "k").transpose(1, 2),
               v = normals({1, s, h, dh}, "v").transpose(1, 2);
  const std::vector<int> len{static_cast<int>(s)};
  const KeyRanges ranges = key_ranges(MaskKind::Causal, len, s, s);
  const Tensor dense = Tiled ? Tensor() : ranges.dense();
  for (auto _ : state)
    benchmark::DoNotOptimize(Tiled ? attention_tiled(q, k, v, ranges, 8.0f) : cpu_backend().attention(q, k, v, dense, 8.0f));
  // Both products over the visible (query, key) pairs only: the work a causal mask leaves.
  gflops(state, 4.0 * double(h) * double(s) * double(s + 1) / 2.0 * double(dh));
  state.counters["score_bytes"] = Tiled ? 0.0 : 4.0 * double(h) * double(s) * double(s);
}
BENCHMARK(BM_Attention<false>)->Arg(128)->Arg(512)->Arg(2048)->Unit(benchmark::kMillisecond);
BENCHMARK(BM_Attention<true>)->Arg(128)->Arg(512)->Arg(2048)->Unit(benchmark::kMillisecond);

// The tiled loop's block sizes (Bq query rows, Bk keys) at B 1, H 4, Dh 64, no mask or the
// causal one (args: S, Bq, Bk, causal) — S 2048 is the shape where the layer lags its own products
// most (README) — beside those products alone (Bq 0: Q·Kᵀ and P·V on the whole (S, S) score
// matrix per head, as attnlab bench's gemms_alone). A causal mask makes the blocks on the
// diagonal part waste (their hidden keys are multiplied, then dropped), more for larger blocks.
void BM_AttentionTiles(benchmark::State& state) {
  const int64_t s = state.range(0), bq = state.range(1), bk = state.range(2), h = 4, dh = 64;
  const bool causal = state.range(3) != 0;
  const Tensor q = normals({1, s, h, dh}, "q").transpose(1, 2), k = normals({1, s, h, dh}, "k").transpose(1, 2),
               v = normals({1, s, h, dh}, "v").transpose(1, 2), p({1, h, s, s}, 1.0f / float(s));
  const std::vector<int> len{static_cast<int>(s)};
  const KeyRanges ranges = key_ranges(causal ? MaskKind::Causal : MaskKind::None, len, s, s);
  for (auto _ : state) {
    if (bq == 0) {
      benchmark::DoNotOptimize(matmul(q, k.transpose(2, 3)));
      benchmark::DoNotOptimize(matmul(p, v));
    } else {
      benchmark::DoNotOptimize(attention_tiled(q, k, v, ranges, 8.0f, {.queries = bq, .keys = bk}));
    }
  }
  gflops(state, 4.0 * double(h) * double(s) * double(s) * double(dh));  // the full (S, S) products' work
}
void tile_args(benchmark::internal::Benchmark* b) {
  for (const int64_t s : {512, 2048}) {
    b->Args({s, 0, 0, 0});
    for (const int64_t causal : {0, 1})
      for (const auto& [bq, bk] : {std::pair{64, 256}, {128, 256}, {64, 512}, {128, 512}, {256, 256}, {32, 256}})
        b->Args({s, bq, bk, causal});
  }
}
BENCHMARK(BM_AttentionTiles)->Apply(tile_args)->Unit(benchmark::kMillisecond);

ModelConfig classroom() {
  ModelConfig c;
  c.d_model = 512;
  c.heads = 8;
  c.d_ff = 2048;
  c.layers = 2;
  return c;
}

void BM_InitWeights(benchmark::State& state) {
  ModelConfig c = classroom();
  for (auto _ : state) benchmark::DoNotOptimize(init_weights(c));
  state.counters["parameters"] = double(parameter_count(c));
}
BENCHMARK(BM_InitWeights)->Unit(benchmark::kMillisecond);

// The GUI's whole computation (ui::compute: tokens, weights, traced forward) for B 2, S ≈ 32,
// D 512, H 8, two layers. Arg 0: the weights are reused (a text, mask or step change); arg 1:
// every run asks for another seed, so they are made anew (what a size change costs).
void BM_ClassroomCompute(benchmark::State& state) {
  QStringList texts;
  for (int b = 0; b < 2; ++b) {
    QStringList words;
    for (int i = 0; i < 32; ++i) words << QStringLiteral("w%1").arg((i * 7 + b) % 50);
    texts << words.join(' ');
  }
  ui::Request r;
  r.cfg = classroom();
  r.texts = texts;
  if (state.range(0) == 2) {  // weights imported from a file (File ▸ Import weights…)
    auto w = std::make_shared<ui::ImportedWeights>();
    w->loaded = {r.cfg, init_weights(r.cfg)};
    r.weights = w;
  }
  uint64_t seed = 1;
  for (auto _ : state) {
    if (state.range(0) == 1) r.cfg.seed = ++seed;
    benchmark::DoNotOptimize(ui::compute(r, 1));
  }
}
// 0: weights reused; 1: weights made anew; 2: imported weights.
BENCHMARK(BM_ClassroomCompute)->Arg(0)->Arg(1)->Arg(2)->Unit(benchmark::kMillisecond);

// What a trained model adds to the GUI's computation: the shipped Chinese model (vocabulary 3002,
// its own table and the output head's logits and softmax over the vocabulary) on its four
// examples (arg 1), against seeded weights of the same sizes and mask on the same text (arg 0).
void BM_TrainedModelCompute(benchmark::State& state) {
  const auto model = ui::loadSampleModel(QStringLiteral(":/models/chinese-next-char.safetensors"), ModelConfig{});
  ui::Request r;
  r.cfg = model->loaded.cfg;
  for (const auto& e : model->loaded.weights.vocab()->examples()) r.texts << QString::fromStdString(e);
  if (state.range(0) == 1) r.weights = model;
  for (auto _ : state) benchmark::DoNotOptimize(ui::compute(r, 1));
  state.counters["vocab"] = state.range(0) == 1 ? double(model->loaded.weights.vocab()->size()) : 0.0;
}
BENCHMARK(BM_TrainedModelCompute)->Arg(0)->Arg(1)->Unit(benchmark::kMillisecond);

// What choosing a variant costs the GUI: the whole traced computation of the built-in sample (the
// window's defaults, 2 layers) with variant kind Arg (0 = none, then all_variants()' order) against
// the same run without one (Arg 0) in the same process.
void BM_VariantCompute(benchmark::State& state) {
  ui::Request r;
  r.cfg.layers = 2;
  for (const auto& t : builtin_sample()) r.texts << QString::fromStdString(t);
  const auto kinds = all_variants();
  if (state.range(0) > 0) r.cfg.variant.kind = kinds[static_cast<size_t>(state.range(0) - 1)];
  state.SetLabel(std::string(variant_name(r.cfg.variant.kind)));
  for (auto _ : state) benchmark::DoNotOptimize(ui::compute(r, 1));
}
BENCHMARK(BM_VariantCompute)->DenseRange(0, 10)->Unit(benchmark::kMillisecond);

// Reading one shipped model as the chooser does (parse, check every tensor, the vocabulary): the
// window reads all of them once to list their titles, and again when one is chosen.
void BM_LoadSampleModel(benchmark::State& state) {
  for (auto _ : state)
    benchmark::DoNotOptimize(ui::loadSampleModel(QStringLiteral(":/models/chinese-next-char.safetensors"), ModelConfig{}));
}
BENCHMARK(BM_LoadSampleModel)->Unit(benchmark::kMillisecond);

// What a compute with imported weights no longer does (they are checked once, when loaded):
// every parameter's shape and finiteness, at classroom size.
void BM_CheckWeights(benchmark::State& state) {
  const ModelConfig c = classroom();
  const Weights w = init_weights(c);
  for (auto _ : state) check_weights(c, w);
}
BENCHMARK(BM_CheckWeights)->Unit(benchmark::kMillisecond);

// GPT-2 small's shape (12 layers, 12 heads, D 768, 1024 positions, vocabulary 50257; weights
// uniform, made once in memory through the checkpoint mapping, pretrained/gpt2.h) for "Append the
// next piece": the window computes the longer text's whole trace again, then (since the KV-cache
// check) decodes the drawn piece with the cache and compares. Arg 0: S; arg 1: 0 the traced forward,
// 1 the check of its last piece against it, the cache seeded with the trace's keys and values (the
// window's way), 2 the same with the text before the piece fed again (pretrained/kv_check.h).
// Arg 2: 1 with the weights as an F16 checkpoint keeps them (widened on use), 0 in F32.
struct Gpt2Small {
  ModelConfig cfg;
  Weights w;
};
// GPT-2 small with uniform random weights, in F32 or (f16) as a 16-bit checkpoint's: every tensor
// rounded to F16 and kept in 16 bits, widened on use (model/half_tensor.h).
Gpt2Small make_gpt2_small(bool f16) {
    const auto shape = pretrained::gpt2_config(nlohmann::json::object(), "bench");
    uint64_t state = 1;
    const auto fill = [&](const Shape& s, float scale, float offset) {
      Tensor t(s);
      for (int64_t i = 0; i < t.numel(); ++i) {
        state = state * 6364136223846793005ull + 1442695040888963407ull;
        t.data()[i] = offset + 0.05f * scale * (static_cast<float>(state >> 40) / float(1 << 24) - 0.5f);
      }
      return t;
    };
    pretrained::CheckpointTensors t;
    for (auto& [name, x] : fixtures::gpt2_tensors(shape.vocab_size, shape.cfg.d_model, shape.cfg.layers,
                                                  shape.cfg.max_positions, fill)) {
      pretrained::StoredTensor stored{.f32 = std::move(x), .half = {}};
      if (f16) {
        auto bits = std::make_shared<std::vector<uint16_t>>(stored.f32.numel());
        for (int64_t i = 0; i < stored.f32.numel(); ++i)
          (*bits)[i] = std::bit_cast<uint16_t>(Eigen::half(stored.f32.data()[i]));
        stored = {.f32 = {}, .half = {.format = HalfTensor::Format::F16, .shape = stored.f32.shape(), .bits = bits}};
      }
      t.tensors.emplace(name, std::move(stored));
    }
    Gpt2Small g{shape.cfg, pretrained::gpt2_weights(shape, std::move(t), "bench")};
    std::vector<std::string> words;
    for (int64_t i = 0; i < shape.vocab_size; ++i) words.push_back("p" + std::to_string(i));
    auto vocab = std::make_shared<TrainedVocab>(pretrained_vocab(std::move(words), int(shape.vocab_size - 1), -1, false));
    vocab->task = Task::NextToken;
    vocab->mask = MaskKind::Causal;
    g.w.set_vocab(vocab);
    return g;
}

const Gpt2Small& gpt2_small(bool f16 = false) {
  if (f16) {
    static const Gpt2Small m = make_gpt2_small(true);
    return m;
  }
  static const Gpt2Small m = make_gpt2_small(false);
  return m;
}

void BM_AppendCheck(benchmark::State& state) {
  const Gpt2Small& m = gpt2_small(state.range(2) == 1);
  std::vector<std::string> pieces;
  for (int64_t i = 0; i < state.range(0); ++i) pieces.push_back("p" + std::to_string((i * 7919) % 50000));
  const Batch batch = make_piece_batch({pieces}, *m.w.vocab());
  Trace trace;
  forward(m.cfg, m.w, batch, trace);
  for (auto _ : state) {
    if (state.range(1) == 0) {
      Trace again;
      forward(m.cfg, m.w, batch, again);
      benchmark::DoNotOptimize(again);
    } else {
      const auto check = pretrained::check_kv_decode(m.cfg, m.w, batch, trace, 0, {.from_trace = state.range(1) == 1});
      if (!check.agrees()) state.SkipWithError("the cache's numbers are not the trace's");
      state.counters["decode_MMAC"] = double(check.decode_macs) * 1e-6;
      state.counters["full_MMAC"] = double(check.full_macs) * 1e-6;
    }
  }
  state.SetLabel(std::string(state.range(1) == 0 ? "traced forward" : state.range(1) == 1 ? "check, cache from the trace" : "check, text fed") +
                 (state.range(2) == 1 ? ", F16 weights" : ", F32 weights"));
}
BENCHMARK(BM_AppendCheck)->ArgsProduct({{64, 256}, {0, 1, 2}, {0, 1}})->Unit(benchmark::kMillisecond);

}  // namespace

BENCHMARK_MAIN();
