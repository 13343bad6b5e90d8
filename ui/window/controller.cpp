#include "window/controller.h"

#include <QEventLoop>
#include <QtConcurrent>

#include <chrono>
#include <mutex>

#include "explain/head_ablation.h"
#include "forward/memory.h"
#include "forward/overflow.h"
#include "io/bundle.h"
#include "model/weights.h"
#include "pretrained/kv_decode.h"
#include "tensor/checked.h"
#include "text/errors.h"
#include "words/coretext.h"
#include "words/qtstrings.h"

namespace attnlab::ui {

namespace {
// One Vulkan device for the whole session. Never destroyed: at exit the driver's own atexit
// handlers have already run, and tearing a device down after them is not safe.
BackendCache& backendCache() {
  static auto* cache = new BackendCache;
  return *cache;
}

// The weights of the last configuration: a sentence, mask, norm or step change reuses them; a
// size or seed change makes them anew. Keyed by the seed and every parameter's name and shape.
Weights cachedWeights(const ModelConfig& cfg) {
  static std::mutex mutex;
  static std::string key;
  static Weights weights;
  std::string want = std::to_string(cfg.seed);
  for (const auto& [name, shape] : expected_parameters(cfg)) want += ';' + name + shape_str(shape);
  const std::lock_guard<std::mutex> lock(mutex);
  if (want != key) {
    weights = init_weights(cfg);
    key = std::move(want);
  }
  return weights;  // tensors share their storage; nobody writes to them
}

// Imported weights fix the sizes, the norm placement, the activation, the position code and the
// seed (the input panel locks those knobs); a decoder they lack (or hold) is the one mismatch a
// user can still make, with the cross-attention box. Every tensor's shape and finiteness was
// checked once, when the file was loaded (load_weights): here only that the sizes still agree.
const Weights& importedWeights(const ImportedWeights& iw, const ModelConfig& cfg) {
  const ModelConfig& f = iw.loaded.cfg;
  if (cfg.d_model != f.d_model || cfg.d_ff != f.d_ff || cfg.layers != f.layers)
    throw DataError(verbatim(QObject::tr("The imported weights (%1) are for d_model %2, d_ff %3 and %4 layer(s), not the "
                                "configuration asked for: use seeded weights to change the sizes.")
                        .arg(iw.name)
                        .arg(f.d_model)
                        .arg(f.d_ff)
                        .arg(f.layers)
                        .toStdString()));  // the window's own words, translated already
  if (cfg.cross != f.cross)
    throw DataError(verbatim((f.cross ? QObject::tr("The imported weights (%1) are an encoder–decoder model: turn on "
                                           "cross-attention and give a source sentence, or use seeded weights.")
                             : QObject::tr("The imported weights (%1) hold an encoder only: turn off cross-attention, "
                                           "or use seeded weights."))
                        .arg(iw.name)
                        .toStdString()));
  return iw.loaded.weights;
}

// The backward pass over the finished forward trace, its steps appended after the forward's.
// per-position: the answers typed, one per sentence, as the answers' token ids (B, S) — cut by a
// checkpoint's own tokenizer as its sentences are. A checkpoint's [PAD] reads a real piece's row:
// next-token learns the padding from the sentences' lengths.
void appendGradients(TraceResult& out, LossKind kind, const QStringList& answers,
                     const pretrained::PretrainedModel* checkpoint, bool prependBos) {
  const auto t0 = std::chrono::steady_clock::now();
  LossSpec spec{.kind = kind};
  const TokenBatch& text = out.batch.text;  // the stack the loss reads (the decoder's in cross mode)
  if (kind == LossKind::PerPosition && out.weights.vocab()) {
    spec.target = checkpoint ? pretrained::pretrained_answer_ids(*checkpoint, toStdStrings(answers), text.batch(), text.seq(), prependBos)
                             : answer_ids(toStdStrings(answers), *out.weights.vocab(), text.batch(), text.seq());
  }
  if (checkpoint) spec.lengths = text.lengths;
  BackwardResult b = backward(out.cfg, out.weights, out.trace, spec);
  GradientInfo info{kind, b.loss, b.output, static_cast<int>(out.trace.steps().size())};
  info.spec = spec;
  for (const Step& s : b.steps.steps()) out.trace.record(s.info, s.tensor);
  info.backward_ms = std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - t0).count();
  out.gradients = info;
}

// Whether the drawn piece still stands: its sentence is in the batch and cut into exactly the
// pieces the draw made (after an edit, or where the joined text cuts otherwise, nothing is checked).
bool appendedPieceStands(const Batch& batch, const std::optional<AppendedPiece>& appended) {
  if (!appended || appended->sentence >= batch.text.batch()) return false;
  const auto b = static_cast<size_t>(appended->sentence);
  const auto& row = batch.text.tokens[b];
  const auto n = static_cast<size_t>(batch.text.lengths[b]);
  return n == appended->pieces.size() && std::equal(row.begin(), row.begin() + static_cast<long>(n), appended->pieces.begin());
}

// Request::appended: the drawn piece decoded with the KV cache, on the CPU (the decoder's engine),
// against the trace just made — when the sentence cut into the pieces the draw made and the model is
// the stack the cache serves. A GPU's trace is held to a wider tolerance (its own rounding).
void decodeAppendedPiece(TraceResult& out, const std::optional<AppendedPiece>& appended, const Watch* watch) {
  using State = TraceResult::KvDecode;
  if (!appendedPieceStands(out.batch, appended)) return;
  out.kvDecodeState = State::NotServed;
  if (!out.vocab() || !pretrained::kv_cacheable(out.cfg) || !out.trace.find("encoder.output_head.logits")) return;
  const double tolerance = out.backend == QLatin1String("cpu") ? 1e-5 : 1e-3;
  try {
    out.kvDecode = pretrained::check_kv_decode(out.cfg, out.weights, out.batch, out.trace, appended->sentence,
                                               {.tolerance = tolerance, .cancel = watch ? watch->cancel : nullptr});
    out.kvDecodeState = State::Checked;
  } catch (const Cancelled&) {
    throw;
  } catch (const std::exception& e) {  // the trace stands; the check says why it is missing
    out.kvDecodeState = State::Failed;
    out.kvDecodeFailure = QString::fromUtf8(e.what());
  }
}

}  // namespace

TraceResultPtr compute(const Request& r, quint64 generation, const Watch* watch) {
  auto out = std::make_shared<TraceResult>();
  out->cfg = r.cfg;
  out->cfg.cross = !r.memoryTexts.isEmpty();
  out->cfg.validate();
  const TrainedVocab* trained = r.weights ? r.weights->loaded.weights.vocab().get() : nullptr;
  const bool checkpoint = r.weights && r.weights->checkpoint && r.memoryTexts.isEmpty();
  out->batch = checkpoint ? pretrained::pretrained_batch(*r.weights->checkpoint, toStdStrings(r.texts), r.prependBos)
                          : make_batch(toStdStrings(r.texts), toStdStrings(r.memoryTexts), trained);
  out->prependBos = checkpoint && r.prependBos;
  const auto& b = out->batch;
  // A configuration's estimate: loaded weights as held (a 16-bit checkpoint at 2 bytes a value),
  // the backward's steps, and the appended piece's check, which runs beside the finished trace
  // where the piece still stands (counted also where the run then finds no logits to check).
  const bool checksPiece = appendedPieceStands(b, r.appended);
  const auto estimate = [&](const ModelConfig& c) {
    auto e = estimate_memory(c, b.text.batch(), b.encoder_tokens().seq(), c.cross ? b.text.seq() : 0,
                             static_cast<int64_t>(b.vocab.words.size()), trained != nullptr);
    if (r.loss) e = with_gradients(e);
    if (r.weights)  // beside them: the imported file (kept for sessions), knocked-out heads' copies
      e = with_loaded_weights(e, r.weights->loaded.weights,
                              {.gradients = static_cast<bool>(r.loss),
                               .beside = static_cast<int64_t>(r.weights->bytes.size()) +
                                         explain::ablation_copy_bytes(c, r.ablate)});
    if (checksPiece && pretrained::kv_cacheable(c))  // saturating, as every part of the estimate
      e.working_bytes = (Count(e.working_bytes) + Count(pretrained::kv_check_bytes(c, b.text.seq()))).value();
    return e;
  };
  const MemoryEstimate est = estimate(out->cfg);
  out->estimateBytes = est.total();
  try {
    check_memory_budget(est, r.memoryBudgetMiB);
  } catch (const DataError& e) {
    qint64 tiled = 0;
    // the tiled path would apply (every layer of it: a layer kept in full may be what does not fit)
    if ((out->cfg.overview_cap == 0 || !out->cfg.full_layers.empty()) && out->cfg.faults.empty()) {
      ModelConfig t = out->cfg;
      t.overview_cap = kOverviewCap;
      t.full_layers.clear();
      tiled = estimate(t).total();
    }
    throw OverBudget(e.text(), est.total(), tiled, r.memoryBudgetMiB);
  }
  Weights w = r.weights ? importedWeights(*r.weights, out->cfg) : cachedWeights(out->cfg);
  for (const auto& h : r.ablate)  // heads the model has (a decoder's only in an encoder–decoder)
    if ((out->cfg.cross || h.block == explain::HeadBlock::Encoder) && h.layer < out->cfg.layers && h.head < out->cfg.heads)
      out->ablated.push_back(h);
  out->ablateMode = r.ablateMode;
  if (!out->ablated.empty()) {
    Trace clean;  // mean mode: each head's mean output over the real positions of the clean run
    if (r.ablateMode == explain::AblateMode::Mean && watch && watch->cancel) {
      WatchedRecorder rec(clean, *watch->cancel, nullptr);  // a cancel stops it too
      forward(out->cfg, w, out->batch, rec);
    } else if (r.ablateMode == explain::AblateMode::Mean) {
      forward(out->cfg, w, out->batch, clean);
    }
    w = explain::ablate_heads(out->cfg, w, out->ablated, r.ablateMode, clean, out->batch.encoder_tokens().lengths,
                              out->batch.text.lengths);
  }
  out->weights = w;
  BackendNote note;
  const auto t0 = std::chrono::steady_clock::now();
  const auto be = run_on_backend(
      r.backend,
      [&](Backend& b) {
        out->trace = Trace();
        b.reset_timing();
        if (!watch || !watch->cancel) {
          forward(out->cfg, w, out->batch, out->trace, b);
          return;
        }
        const qint64 total = count_steps(out->cfg, out->batch.encoder_tokens().seq()) +
                             (trained ? output_head_steps(out->cfg) : 0);
        WatchedRecorder rec(out->trace, *watch->cancel, [&](int64_t done) {
          if (watch->progress) watch->progress(done, total);
        });
        forward(out->cfg, w, out->batch, rec, b);
      },
      &note, &backendCache());
  // A page of NaN from overflowing weights is a message instead (a planted bug's NaN is its lesson).
  if (out->cfg.faults.empty()) check_no_overflow(out->trace, w);
  out->forward_ms = std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - t0).count();
  out->device_ms = be->device_ms();
  out->backend = QString::fromStdString(be->name());
  out->device = QString::fromStdString(be->device());
  out->deviceText = be->device_text();
  out->note = QString::fromStdString(note.text.english());
  out->noteText = note.text;
  const pretrained::PretrainedModel* model = checkpoint ? r.weights->checkpoint.get() : nullptr;
  if (r.loss) appendGradients(*out, *r.loss, r.answers, model, r.prependBos);  // a planted fault acts on the gradients too
  if (r.hideFaults && !out->cfg.faults.empty()) {  // the correct run's words, its gradients' too
    TraceResult clean;
    clean.cfg = out->cfg;
    clean.cfg.faults.clear();
    clean.weights = w;
    clean.batch = out->batch;
    forward(clean.cfg, w, out->batch, clean.trace);
    if (r.loss) appendGradients(clean, *r.loss, r.answers, model, r.prependBos);
    out->trace = without_fault_labels(out->trace, clean.trace);
  }
  decodeAppendedPiece(*out, r.appended, watch);
  out->generation = generation;
  return out;
}

Controller::Controller(QObject* parent) : QObject(parent), watcher_(new QFutureWatcher<Outcome>(this)) {
  connect(watcher_, &QFutureWatcher<Outcome>::finished, this, &Controller::finished);
}

Controller::~Controller() { watcher_->waitForFinished(); }

void Controller::request(const Request& r) {
  if (running_) {
    pending_ = r;  // replaces any older pending request
    if (cancel_) cancel_->store(true);  // the running one is stale: stop it at its next step
    return;
  }
  start(r);
}

void Controller::start(const Request& r) {
  running_ = true;
  emit busyChanged(true);
  const quint64 gen = ++generation_;
  cancel_ = std::make_shared<std::atomic<bool>>(false);
  // Progress crosses to the GUI thread as queued calls, one per percent at most.
  auto report = [this, last = std::make_shared<std::atomic<qint64>>(-1)](qint64 done, qint64 total) {
    const qint64 percent = total > 0 ? done * 100 / total : 0;
    if (last->exchange(percent) == percent) return;
    QMetaObject::invokeMethod(this, [this, done, total] { emit progress(done, total); }, Qt::QueuedConnection);
  };
  watcher_->setFuture(QtConcurrent::run([r, gen, flag = cancel_, report]() -> Outcome {
    const Watch watch{flag.get(), report};
    try {
      return {compute(r, gen, &watch), {}};
    } catch (const Cancelled&) {
      return {nullptr, {}, true, {}};
    } catch (const OverBudget& e) {
      return {nullptr, e.text(), false, e};
    } catch (const std::bad_alloc&) {
      return {nullptr, {}, false, {}, true};
    } catch (const std::exception& e) {
      return {nullptr, text_of(e)};
    }
  }));
}

void Controller::cancel() {
  pending_.reset();
  if (cancel_) cancel_->store(true);
}

void Controller::finished() {
  const Outcome o = watcher_->result();
  running_ = false;
  if (pending_) {  // a newer request arrived meanwhile: this result (if any) is already stale
    const Request next = *pending_;
    pending_.reset();
    start(next);
    return;
  }
  emit busyChanged(false);
  if (o.cancelled) {
    emit cancelled();
    return;
  }
  if (o.result) {
    current_ = o.result;
    emit resultReady(o.result);
  } else {
    if (o.overBudget)
      emit overBudget(o.overBudget->needBytes, o.overBudget->tiledBytes, o.overBudget->budgetMiB);
    emit failed(o.outOfMemory ? QObject::tr("Out of memory: try shorter sentences, fewer layers or a smaller d_model.")
                              : CoreText::translate(o.error));
  }
}

void Controller::waitForIdle() {
  while (running_) {
    QEventLoop loop;
    connect(this, &Controller::busyChanged, &loop, [&loop](bool busy) {
      if (!busy) loop.quit();
    });
    if (running_) loop.exec();
  }
}

}  // namespace attnlab::ui
