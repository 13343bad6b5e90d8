// attnlab bench: time the encoder stack's forward pass on random inputs, print one JSON object.
#include <sys/resource.h>

#include <nlohmann/json.hpp>

#include <algorithm>
#include <chrono>
#include <iostream>
#include <memory>
#include <thread>

#include "cli_common.h"
#include "backend/cpu_peak.h"
#include "backward/model_backward.h"
#include "forward/memory.h"
#include "forward/model.h"
#include "forward/resident_stack.h"
#include "tensor/gemm.h"
#include "tensor/key_ranges.h"
#include "tensor/rng.h"
#include "text/errors.h"

namespace attnlab::cli {

namespace {

struct BenchArgs {
  ModelOptions model;
  int64_t batch = 1, seq = 128, repeat = 10;
  int threads = 0;
  std::string attention = "auto";
  bool trace = false;
  std::string loss;  // "sum": forward (traced, as the backward needs) and backward, each timed
};

double peak_rss_mb() {
  rusage ru{};
  getrusage(RUSAGE_SELF, &ru);
  return static_cast<double>(ru.ru_maxrss) / 1024.0;  // ru_maxrss is in KiB on Linux
}

// 8·S·D² + 4·S·D·F + 4·S²·D per layer and batch element.
double flops(const ModelConfig& c, int64_t b, int64_t s) {
  const double S = double(s), D = double(c.d_model), F = double(c.d_ff);
  return double(c.layers) * double(b) * (8 * S * D * D + 4 * S * D * F + 4 * S * S * D);
}

double median_of(std::vector<double> v) {
  std::sort(v.begin(), v.end());
  return v.size() % 2 ? v[v.size() / 2] : 0.5 * (v[v.size() / 2 - 1] + v[v.size() / 2]);
}

// The layer's matrix products alone, on the same shapes and engine (issue 23's yardstick: the
// whole layer against its own products): per layer the Q, K and V projections (rows of the fused
// in_proj), Q·Kᵀ and P·V on every head's strided view, the output projection and the FFN's two
// linears — products only, no bias (since 2026-12-07: the bias is the layer's elementwise work,
// added in the product's pass as ReLU and the residuals are), each cut between the threads the
// way a product alone runs fastest (gemm.h's LongerSide). run_ms() times one run; the inputs are
// made once, each output fresh as the layer's.
class GemmsAlone {
 public:
  GemmsAlone(const ModelConfig& c, int64_t b, int64_t s)
      : c_(c), b_(b), s_(s), x_({b, s, c.d_model}, 0.01f), in_proj_({3 * c.d_model, c.d_model}, 0.01f),
        out_w_({c.d_model, c.d_model}, 0.01f), w1_({c.d_ff, c.d_model}, 0.01f), w2_({c.d_model, c.d_ff}, 0.01f),
        probs_({b, c.heads, s, s}, 1.0f / float(s)) {}

  double run_ms() const {
    // Each product cut as it runs fastest alone, on operands every core has cached (gemm.h's
    // LongerSide): the yardstick does not get slower when the layer's cut favours the layer.
    const ScopedGemmCut cut(GemmCut::LongerSide);
    const auto t0 = std::chrono::steady_clock::now();
    const int64_t d = c_.d_model;
    for (int64_t l = 0; l < c_.layers; ++l) {
      const Tensor q = product(x_, in_proj_, 0, d), k = product(x_, in_proj_, d, d), v = product(x_, in_proj_, 2 * d, d);
      const Tensor scores = matmul(heads(q), heads(k).transpose(2, 3));  // (B, H, S, S)
      const Tensor mixed = matmul(probs_, heads(v));                       // (B, H, S, Dh)
      const Tensor o = product(x_, out_w_, 0, d);  // the merged heads' copy is not a product: x stands in
      const Tensor y = product(product(o, w1_, 0, c_.d_ff), w2_, 0, d);
      (void)scores;
      (void)mixed;
      (void)y;
    }
    return std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - t0).count();
  }

 private:
  Tensor heads(const Tensor& t) const {  // (B, H, S, Dh) view
    return t.view({b_, s_, c_.heads, c_.d_model / c_.heads}).transpose(1, 2);
  }
  // x (B, S, In) · w[row0 : row0 + rows]ᵀ → (B, S, rows): a linear's product without its bias.
  static Tensor product(const Tensor& x, const Tensor& w, int64_t row0, int64_t rows) {
    const int64_t in = w.size(1);
    Tensor out = Tensor::empty({x.size(0), x.size(1), rows});
    sgemm(x.size(0) * x.size(1), rows, in, {x.data(), false, in}, {w.data() + row0 * in, true, in}, out.data(), rows);
    return out;
  }
  ModelConfig c_;
  int64_t b_, s_;
  Tensor x_, in_proj_, out_w_, w1_, w2_, probs_;
};

// Whether the products alone fit beside the layer within --memory-budget (both live during the
// alternating runs): the fast path's estimate with its (B, H, S, S) score matrix — the scores
// they make, a layer's activations, the weights — and the weights P they multiply, on top of
// the layer's own estimate. Beyond it the ratio is left out; the layer's run itself was checked
// before it ran. In double: B·H·S² may pass 2⁶³.
bool gemms_alone_fit(const MemoryEstimate& layer, const ModelConfig& c, int64_t b, int64_t s, int64_t budget_mib) {
  const MemoryEstimate products = estimate_fast_memory(c, b, s, {.score_matrix = true, .dense_mask = false});
  const double probs = 4.0 * double(b) * double(c.heads) * double(s) * double(s);
  return double(layer.total()) + double(products.total()) + probs <= double(budget_mib) * double(1 << 20);
}

// --attention auto: the tiled path, on both backends (Vulkan's fused kernel; on the CPU the
// tiled loop, measured as fast as the five steps at S 128 and faster from S 512 on:
// bench_kernels' BM_Attention, README), and it never makes the score tensor.
bool tiled(const BenchArgs& a) { return a.attention != "full"; }

// Before the run: the traced estimate with --trace, else the fast path's on this backend (the
// CPU's tiled loop needs neither the scores nor the dense mask; Vulkan's fused kernel reads
// the dense mask).
MemoryEstimate estimated(const BenchArgs& a, const Backend& be, const ModelConfig& cfg, int threads) {
  if (!a.loss.empty()) {
    MemoryEstimate e = estimate_memory(cfg, a.batch, a.seq, 0, 1);
    if (cfg.traces_overview()) e.trace_bytes -= 4 * a.batch * a.seq * a.seq;  // the mask stays key ranges
    return with_gradients(e);
  }
  if (a.trace) return estimate_memory(cfg, a.batch, a.seq, 0, 1);
  const bool fused = be.fused_attention(), cpu = be.name() == "cpu";
  return estimate_fast_memory(cfg, a.batch, a.seq, {.score_matrix = !fused, .dense_mask = !(fused && cpu), .threads = threads});
}

// The options, checked before anything runs (the ranges of --batch, --seq, --repeat and
// --threads are checked while parsing).
ModelConfig check_bench(const CLI::App& sub, const BenchArgs& a) {
  ModelConfig cfg = to_config(a.model, false, sub.count("--d-ff") > 0);
  cfg.mask = MaskKind::None;
  cfg.validate();
  if (a.attention != "full" && a.attention != "tiled" && a.attention != "auto")
    throw ConfigError(Text(Msg::cli_not_one_of_attention, a.attention));
  if (sub.count("--loss") && parse_loss(a.loss) != LossKind::Sum)  // the input is random vectors: no target, no tokens
    throw ConfigError(Text(Msg::loss_not_one_of, a.loss, "sum"));
  parse_backend(a.model.backend);
  return cfg;
}

void run_bench(const CLI::App& sub, const BenchArgs& a) {
  ModelConfig cfg = check_bench(sub, a);
  // --loss with --attention tiled: the traced tiled path and FlashAttention-2's backward, the mask
  // kept as key ranges (no (S, S) tensor anywhere); --loss otherwise traces every score step.
  if (!a.loss.empty() && a.attention == "tiled") cfg.overview_cap = kOverviewCap;
  const BackendKind kind = parse_backend(a.model.backend);
  const int threads = a.threads > 0 ? a.threads : static_cast<int>(std::thread::hardware_concurrency());
  set_threads(threads);

  const Weights w = init_weights(cfg);
  Tensor x({a.batch, a.seq, cfg.d_model});
  const Stream s("bench:input", cfg.seed);
  for (int64_t i = 0; i < x.numel(); ++i) x.data()[i] = static_cast<float>(s.normal(static_cast<uint64_t>(i)));
  const KeyRanges mask = key_ranges(MaskKind::None, std::vector<int>(static_cast<size_t>(a.batch), int(a.seq)), a.seq, a.seq);

  // The untraced pass on a device that keeps the stack resident: the weights uploaded once,
  // before the timed runs (upload_ms says how long that took), as a model loaded once is used.
  // The stack lives inside the run below: gone before a failed device is (fallback to the CPU).
  bool was_resident = false;
  Tensor dense_mask;
  double upload_ms = 0;
  // Wall time of one forward pass, and the device time its dispatches took (timestamp queries).
  auto once = [&](Backend& be, std::unique_ptr<ResidentStack>& resident, std::vector<double>& device_ms) {
    be.reset_timing();
    const auto t0 = std::chrono::steady_clock::now();
    if (resident && resident->run(x, dense_mask)) {
      was_resident = true;  // the whole stack ran on the device
    } else if (resident) {
      resident.reset();  // beyond one pass on the device: op by op from now on
      NullRecorder r;
      encoder_stack(cfg, w, x, mask, r, be);
    } else if (a.trace) {
      Trace t;
      encoder_stack(cfg, w, x, mask, t, be);
    } else {
      NullRecorder r;
      encoder_stack(cfg, w, x, mask, r, be);
    }
    device_ms.push_back(be.device_ms());
    return std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - t0).count();
  };
  // --loss sum: the traced forward (the backward reads every step) and the backward, timed apart.
  std::vector<double> backward_ms;
  int64_t trace_bytes = 0, gradient_bytes = 0;  // held by the traced forward, and by the gradients on top
  auto with_backward = [&](Backend& be) {
    Trace t;
    t.record(StepInfo{.id = "encoder.input", .title = {}, .formula = {}, .code = "", .result = "x"}, x);
    if (!cfg.traces_overview())
      t.record(StepInfo{.id = "encoder.mask", .title = {}, .formula = {}, .code = "", .result = "mask"}, mask.dense());
    const auto t0 = std::chrono::steady_clock::now();
    encoder_stack(cfg, w, x, mask, t, be);
    const auto t1 = std::chrono::steady_clock::now();
    const BackwardResult r = backward(cfg, w, t, LossSpec{.kind = LossKind::Sum}, cfg.traces_overview() ? &mask : nullptr);
    trace_bytes = t.storage_bytes();
    gradient_bytes = r.steps.storage_bytes();
    backward_ms.push_back(std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - t1).count());
    return std::chrono::duration<double, std::milli>(t1 - t0).count();
  };
  std::vector<double> ms, device_ms;
  BackendNote note;
  const auto be = run_on_backend(
      kind,
      [&](Backend& b) {
        b.set_fused_attention(tiled(a));
        check_memory_budget(estimated(a, b, cfg, threads), a.model.memory_budget_mib,
                            Text(a.trace ? Msg::en_advice_leave_out_trace_shorter_seq
                                         : Msg::en_advice_attention_tiled_shorter_seq));
        ms.clear();
        device_ms.clear();
        if (!a.loss.empty()) {
          with_backward(b);
          with_backward(b);
          backward_ms.clear();
          for (int64_t i = 0; i < a.repeat; ++i) ms.push_back(with_backward(b));
          return;
        }
        std::unique_ptr<ResidentStack> resident;
        if (!a.trace) {
          const auto t0 = std::chrono::steady_clock::now();
          resident = make_resident_encoder(cfg, w, b);
          upload_ms = std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - t0).count();
          if (resident) dense_mask = mask.dense();
        }
        was_resident = false;
        once(b, resident, device_ms);
        once(b, resident, device_ms);
        device_ms.clear();
        for (int64_t i = 0; i < a.repeat; ++i) ms.push_back(once(b, resident, device_ms));
      },
      &note);
  print_note(note);
  const double median = median_of(ms);
  nlohmann::json out = {
      {"median_ms", median}, {"min_ms", *std::min_element(ms.begin(), ms.end())},
      {"max_ms", *std::max_element(ms.begin(), ms.end())},
      {"gflops", flops(cfg, a.batch, a.seq) / (median * 1e6)}, {"peak_rss_mb", peak_rss_mb()},
      {"backend", be->name()}, {"device", be->device()}, {"attention", be->fused_attention() && !a.trace ? "tiled" : "full"},
      {"config", {{"batch", a.batch}, {"seq", a.seq}, {"d_model", cfg.d_model}, {"heads", cfg.heads},
                  {"d_ff", cfg.d_ff}, {"layers", cfg.layers}, {"norm", norm_name(cfg.norm)},
                  {"repeat", a.repeat}, {"threads", threads}, {"trace", a.trace}}}};
  if (be->name() == "vulkan" && a.loss.empty()) {
    out["gpu_ms"] = median_of(device_ms);
    out["resident"] = was_resident;
    if (was_resident) out["upload_ms"] = upload_ms;
  }
  // This machine's fp32 FMA peak, measured now, and the share of it reached: a figure read on
  // another CPU with its own peak beside it.
  const CpuPeak peak = measure_cpu_peak();
  out["peak_gflops"] = peak.gflops;
  out["peak_isa"] = peak.isa;
  out["peak_threads"] = peak.threads;
  out["pct_of_peak"] = 100.0 * out["gflops"].get<double>() / peak.gflops;
  out["gemm"] = gemm_engines_description();
  if (be->name() == "cpu" && a.loss.empty() &&
      gemms_alone_fit(estimated(a, *be, cfg, threads), cfg, a.batch, a.seq, a.model.memory_budget_mib)) {
    // The layer against its own products alone, after the figures above (peak RSS included): the
    // layer again and its products alone in turn, `repeat` times each, so that a neighbour who
    // slows this shared machine for a few seconds slows both medians alike.
    const GemmsAlone alone(cfg, a.batch, a.seq);
    std::unique_ptr<ResidentStack> none;
    std::vector<double> layer_ms, alone_ms, unused;
    alone.run_ms();
    for (int64_t i = 0; i < a.repeat; ++i) {
      layer_ms.push_back(once(*be, none, unused));
      alone_ms.push_back(alone.run_ms());
    }
    out["gemms_alone_ms"] = median_of(alone_ms);
    out["layer_alongside_ms"] = median_of(layer_ms);
    out["layer_vs_gemms"] = median_of(alone_ms) / median_of(layer_ms);  // 1 = as fast as its products alone
  }
  if (!a.loss.empty()) {  // forward ms above is the traced forward; the backward beside it
    const double bw = median_of(backward_ms);
    out["loss"] = a.loss;
    out["backward_median_ms"] = bw;
    out["total_median_ms"] = median + bw;
    out["trace_mb"] = static_cast<double>(trace_bytes) / (1 << 20);  // the traced forward's distinct storage
    out["gradients_mb"] = static_cast<double>(gradient_bytes) / (1 << 20);  // the backward's on top of it
    out["attention"] = cfg.traces_overview() ? "tiled" : "full";
    out["config"]["trace"] = true;
  }
  if (!note.text.empty()) out["backend_note"] = note.text.english();
  std::cout << out.dump() << std::endl;
}

}  // namespace

void add_bench_command(CLI::App& app, Chosen& chosen) {
  auto args = std::make_shared<BenchArgs>();
  CLI::App* sub = app.add_subcommand("bench", "time the forward pass of an encoder stack; prints JSON");
  sub->add_option("--batch", args->batch, "batch size B (default 1)")->transform(decimal_in(1, Limits::kMaxBatch));
  sub->add_option("--seq", args->seq, "sequence length S (default 128)")->transform(decimal_in(1, 1 << 20));
  sub->add_option("--repeat", args->repeat, "timed runs after two warm-ups (default 10)")
      ->transform(decimal_in(1, 100000));
  sub->add_option("--threads", args->threads, "threads, 1 … 1024 (default: all cores)")
      ->transform(decimal_in(1, kMaxThreads));
  sub->add_option("--attention", args->attention, "full|tiled|auto (default auto)");
  sub->add_flag("--trace", args->trace, "record every step as the GUI does");
  sub->add_option("--loss", args->loss, "sum: also the backward pass (traced forward + backward, timed apart)");
  args->model.d_model = 512;
  add_model_options(*sub, args->model);
  sub->callback([sub, args, &chosen] {
    chosen.check = [sub, args] { check_bench(*sub, *args); };
    chosen.run = [sub, args] { run_bench(*sub, *args); };
  });
}

}  // namespace attnlab::cli
