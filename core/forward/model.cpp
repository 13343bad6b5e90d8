#include "forward/model.h"
#include "forward/head_logits.h"

#include <algorithm>
#include <optional>

#include "forward/bert_parts.h"
#include "forward/layers.h"
#include "forward/resident_stack.h"
#include "model/step_builder.h"
#include "tensor/parallel.h"
#include "tensor/rng.h"
#include "text/errors.h"
#include "variants/variant_table.h"

namespace attnlab {

Text formula_parts(std::initializer_list<Text> parts) {
  Text out;
  bool first = true;
  for (const Text& p : parts) {
    if (!first) out += Text(Msg::sf_separator);
    out += p;
    first = false;
  }
  return out;
}

std::string dims_csv(const Shape& s) {
  std::string out;
  for (size_t i = 0; i < s.size(); ++i) out += (i ? ", " : "") + std::to_string(s[i]);
  return out;
}

std::vector<std::string> builtin_sample() {
  return {"The cat sat on the mat because it was tired.", "The dog chased the ball.",
          "小猫坐在垫子上，因为它累了。"};
}

AxisTokens attention_tokens(const Batch& batch, const std::string& step_id, int64_t b) {
  const bool decoder = step_id.starts_with("decoder.");
  const bool cross = step_id.find(".multihead_attn.") != std::string::npos || step_id == "decoder.cross_mask";
  const auto& enc = batch.encoder_tokens().shown_row(b);
  const auto& q = decoder ? batch.text.shown_row(b) : enc;
  return {q, cross ? enc : q};
}

std::vector<std::string> bin_labels(const std::vector<std::string>& tokens, int64_t bin) {
  if (bin <= 1) return tokens;
  std::vector<std::string> out;
  const auto n = static_cast<int64_t>(tokens.size());
  for (int64_t i = 0; i < n; i += bin) {
    const auto last = static_cast<size_t>(std::min(n, i + bin) - 1);
    out.push_back(last == static_cast<size_t>(i) ? tokens[last] : tokens[static_cast<size_t>(i)] + "…" + tokens[last]);
  }
  return out;
}

Batch make_batch(const std::vector<std::string>& texts, const std::vector<std::string>& memory_texts,
                 const TrainedVocab* trained) {
  Batch b;
  b.text = make_token_batch(texts, "--text");
  if (!memory_texts.empty()) {
    std::vector<std::string> mem = memory_texts;
    if (mem.size() == 1) mem.assign(texts.size(), memory_texts[0]);
    if (mem.size() != texts.size())
      throw ConfigError(verbatim("--memory-text: ") +
                        Text(Msg::give_source_sentence_all_per_text_sentences, texts.size(), memory_texts.size()));
    b.memory = make_token_batch(mem, "--memory-text");
  }
  if (b.text.batch() > Limits::kMaxBatch)
    throw ConfigError(verbatim("--text: ") + Text(Msg::sentences_are_more_than_limit, b.text.batch(), Limits::kMaxBatch));
  if (trained) {
    if (trained->byte_level) throw ConfigError(Text(Msg::en_byte_level_needs_tokenizer));
    // any other checkpoint's vocabulary (BERT's WordPiece): its [CLS], [SEP], ## pieces and casing
    if (trained->pretrained) throw ConfigError(Text(Msg::en_wordpiece_needs_tokenizer));
    b.vocab = trained->vocabulary;
    return b;
  }
  for (const auto* tb : {&b.memory, &b.text})
    for (const auto& row : tb->tokens)
      for (const auto& tok : row) b.vocab.id_of(tok);
  return b;
}

Batch make_piece_batch(std::vector<std::vector<std::string>> rows, const TrainedVocab& trained,
                       std::vector<std::vector<std::string>> shown) {
  Batch b;
  if (rows.empty()) throw ConfigError(verbatim("--text: ") + Text(Msg::no_sentence_given));
  if (static_cast<int64_t>(rows.size()) > Limits::kMaxBatch)
    throw ConfigError(verbatim("--text: ") + Text(Msg::sentences_are_more_than_limit, rows.size(), Limits::kMaxBatch));
  size_t longest = 0;
  for (size_t i = 0; i < rows.size(); ++i) {
    if (rows[i].empty()) throw ConfigError(verbatim("--text: ") + Text(Msg::sentence_empty_blank_type_least_word_2, i));
    longest = std::max(longest, rows[i].size());
    b.text.lengths.push_back(static_cast<int>(rows[i].size()));
  }
  for (auto& row : rows) row.resize(longest, kPadToken);
  for (auto& row : shown) row.resize(longest, kPadToken);
  b.text.tokens = std::move(rows);
  b.text.shown = std::move(shown);
  b.vocab = trained.vocabulary;
  return b;
}

Tensor embedding_table(const Vocabulary& vocab, int64_t d, uint64_t seed) {
  const int64_t v = static_cast<int64_t>(vocab.words.size());
  Tensor table({v, d});
#pragma omp parallel for if (v * d >= kParallelElements)
  for (int64_t r = 1; r < v; ++r) {
    const Stream s("tok:" + vocab.words[static_cast<size_t>(r)], seed);
    for (int64_t c = 0; c < d; ++c) table.data()[r * d + c] = static_cast<float>(s.normal(static_cast<uint64_t>(c)));
  }
  return table;
}

namespace {

// Token ids (B, S) as floats, [PAD] = 0: a trained model's own ids ([UNK] for a token it does not
// know), otherwise the batch's vocabulary.
Tensor token_ids(const TokenBatch& tb, const Vocabulary& vocab, const TrainedVocab* trained) {
  Tensor ids({tb.batch(), tb.seq()});
  for (int64_t b = 0; b < tb.batch(); ++b)
    for (int64_t s = 0; s < tb.seq(); ++s) {
      const int id = trained ? trained->id(tb.tokens[b][s]) : vocab.find(tb.tokens[b][s]);
      if (id < 0) throw std::logic_error("token_ids: \"" + tb.tokens[b][s] + "\" is not in the batch's vocabulary");
      ids.data()[b * tb.seq() + s] = static_cast<float>(id);
    }
  return ids;
}

struct Embedded {
  Flow ids, input;
};

// The first s rows of the stack's learned position table (s, D): ConfigError when the text is
// longer than the table.
Tensor learned_positions(const ModelConfig& cfg, const Weights& w, const std::string& stack, int64_t s) {
  if (s > cfg.max_positions)
    throw ConfigError(Text(Msg::en_text_longer_than_position_table, s, cfg.max_positions));
  const Tensor& table = w.get(position_table_name(stack));  // (P, D), checked against cfg
  Tensor pe = Tensor::empty({s, cfg.d_model});
  std::copy_n(table.contiguous().data(), s * cfg.d_model, pe.data());
  return pe;
}

StepInfo learned_positions_info(const ModelConfig& cfg, const std::string& stack, int64_t s) {
  const std::string var = stack + "_position_embedding_weight", S = std::to_string(s);
  return StepInfo{.title = Text(Msg::st_learned_position_embeddings),
                  .formula = formula_parts({maths("P[:" + S + "] (" + S + ", D)"),
                                            Text(Msg::sf_one_learned_row_per_position, cfg.max_positions)}),
                  .code = "pe = " + var + "[:" + S + "]",
                  .result = "pe", .bindings = {weight_var(var, position_table_name(stack))}};
}

// ids → embedding lookup (+ sinusoidal or learned positions) → the stack's input (B, S, D).
Embedded embed(const ModelConfig& cfg, const Weights& w, const std::string& stack, const TokenBatch& tb,
               const Vocabulary& vocab, const TrainedVocab* trained, const Flow& table, Recorder& rec) {
  const int64_t bsz = tb.batch(), s = tb.seq(), d = cfg.d_model;
  Flow ids{token_ids(tb, vocab, trained), stack + ".token_ids"};
  record_step(rec, ids.id, ids.t, [&] {
    return StepInfo{.title = Text(Msg::st_token_ids),
                    .formula = trained && trained->pretrained
                                   ? Text(Msg::sf_tokenizers_id_each_piece, trained->pad_id)
                               : trained ? formula_parts({Text(Msg::sf_models_vocabulary_index_each_token),
                                                          Text(Msg::sf_pad_0_unknown_unk_1)})
                                         : formula_parts({Text(Msg::sf_vocabulary_index_each_token), maths("[PAD] = 0")}),
                    .code = "# ids: tokens → vocabulary indices (see the manifest's tokens)", .result = "ids",
                    .is_data = true};
  });
  Tensor emb = Tensor::empty({bsz, s, d});
  for (int64_t i = 0; i < bsz * s; ++i) {
    const auto row = static_cast<int64_t>(ids.t.data()[i]);
    std::copy_n(table.t.data() + row * d, d, emb.data() + i * d);
  }
  auto emb_id = record_step(rec, stack + ".embedding", emb, [&] {
    // (B, S, D) in the encoder, (B, T, D) in the decoder: the letters of the shape diagram
    return StepInfo{.title = Text(Msg::st_token_embeddings),
                    .formula = maths(stack == "decoder" ? "E[ids] (B, T, D)" : "E[ids] (B, S, D)"),
                    .code = "emb = table[ids.long()]",
                    .result = "emb", .bindings = {step_var("table", table.id), step_var("ids", ids.id)}};
  });
  const bool bert = stack == "encoder";  // BERT's parts belong to the encoder (config validates)
  const bool types = bert && cfg.token_types > 0, normed = bert && cfg.embedding_norm;
  if (cfg.positional == Positional::None && !types && !normed) {
    auto in_id = record_step(rec, stack + ".input", emb, [&] {
      return StepInfo{.title = Text(Msg::st_layer_input_no_position_code), .formula = maths("x = E[ids]"),
                      .code = "x = emb",
                      .result = "x", .bindings = {step_var("emb", emb_id)}};
    });
    return {ids, {emb, in_id}};
  }
  // The terms added to each piece's embedding: its position code, and BERT's token type (S, D) each.
  std::vector<Flow> terms;
  const bool learned = cfg.positional == Positional::Learned;
  if (cfg.positional != Positional::None) {
    Tensor pe = learned ? learned_positions(cfg, w, stack, s) : sinusoidal_positions(s, d);
    auto pe_id = record_step(rec, stack + ".positional", pe, [&] {
      if (learned) return learned_positions_info(cfg, stack, s);
      const std::string S = std::to_string(s), D = std::to_string(d), half = std::to_string(d / 2);
      return StepInfo{.title = Text(Msg::st_sinusoidal_position_code),
                      .formula = maths("PE(p, 2i) = sin(p / 10000^(2i/D)), PE(p, 2i+1) = cos(p / 10000^(2i/D))"),
                      .code = "pos = torch.arange(" + S + ", dtype=torch.float64).unsqueeze(1)\n"
                              "div = torch.pow(10000.0, torch.arange(0, " + D + ", 2, dtype=torch.float64) / " + D + ")\n"
                              "pe = torch.zeros(" + S + ", " + D + ", dtype=torch.float64)\n"
                              "pe[:, 0::2] = torch.sin(pos / div)\n"
                              "pe[:, 1::2] = torch.cos(pos / div[:" + half + "])\n"
                              "pe = pe.float()",
                      .result = "pe"};
    });
    terms.push_back({pe, pe_id});
  }
  if (types) terms.push_back(token_type_step(cfg, w, s, rec));
  Tensor x = emb.clone();
  for (const Flow& term : terms)
    for (int64_t b = 0; b < bsz; ++b)
      for (int64_t i = 0; i < s * d; ++i) x.data()[b * s * d + i] += term.t.data()[i];
  // pe and tt are bound under their own names: the backward pass tells them apart by those
  const auto var = [](const Flow& f) { return f.id.ends_with(".token_type") ? std::string("tt") : std::string("pe"); };
  auto x_id = record_step(rec, stack + (normed ? ".embeddings" : ".input"), x, [&] {
    std::string formula = "x = E[ids]", code = std::string(normed ? "embeddings" : "x") + " = emb";
    std::vector<StepInfo::Binding> bindings = {step_var("emb", emb_id)};
    for (const Flow& term : terms) {
      const bool tt = var(term) == "tt";
      formula += tt ? " + T[0]" : learned ? " + P[:" + std::to_string(s) + "]" : " + PE";
      code += " + " + var(term);
      bindings.push_back(step_var(var(term), term.id));
    }
    if (normed) formula.replace(0, 1, "embeddings");
    return StepInfo{.title = Text(normed ? Msg::st_embeddings_summed : cfg.positional == Positional::None
                                                                           ? Msg::st_layer_input_no_position_code
                                                                           : Msg::st_layer_input_embedding_position),
                    .formula = maths(formula), .code = code, .result = normed ? "embeddings" : "x",
                    .bindings = bindings};
  });
  if (normed) return {ids, embedding_norm_step(cfg, w, {x, x_id}, rec)};
  return {ids, {x, x_id}};
}

// The mask a buggy line builds (self-attention, tq == tk): the key padding broadcast along the
// queries (MaskWrongBroadcast: hides [PAD] queries, not [PAD] keys) and/or the look-ahead triangle
// transposed (CausalTransposed: query i may attend keys j ≥ i).
Tensor faulty_mask(bool pad, bool causal, bool pad_queries, bool future, const std::vector<int>& len, int64_t tq,
                   int64_t tk) {
  const int64_t bsz = static_cast<int64_t>(len.size());
  Tensor mask({bsz, tq, tk}, 1.0f);
  for (int64_t b = 0; b < bsz; ++b)
    for (int64_t i = 0; i < tq; ++i)
      for (int64_t j = 0; j < tk; ++j) {
        const bool hidden = (pad && (pad_queries ? i : j) >= len[static_cast<size_t>(b)]) ||
                            (causal && (future ? j < i : j > i));
        if (hidden) mask.data()[(b * tq + i) * tk + j] = 0.0f;
      }
  return mask;
}

// mask (B, Tq, Tk) for the given kind; code recomputes it from the key token ids. `faults` apply
// to self-attention masks only (the cross mask passes an empty set).
Flow mask_step(MaskKind kind, const std::string& id, Msg title, const Flow& key_ids,
               const std::vector<int>& k_len, int64_t tq, const FaultSet& faults, Recorder& rec) {
  const int64_t bsz = key_ids.t.size(0), tk = key_ids.t.size(1);
  const bool pad = kind == MaskKind::Padding || kind == MaskKind::PaddingCausal;
  const bool causal = kind == MaskKind::Causal || kind == MaskKind::PaddingCausal;
  const bool wrong_axis = pad && faults.count(Fault::MaskWrongBroadcast) > 0;
  const bool future = causal && faults.count(Fault::CausalTransposed) > 0;
  Tensor m = wrong_axis || future ? faulty_mask(pad, causal, wrong_axis, future, k_len, tq, tk)
                                  : make_mask(kind, k_len, tq, tk);
  record_step(rec, id, m, [&] {
    const std::string B = std::to_string(bsz), Q = std::to_string(tq), K = std::to_string(tk);
    const std::string keys = wrong_axis ? "(ids != 0).unsqueeze(2)" : "(ids != 0).unsqueeze(1)";
    const std::string tri = std::string(future ? "torch.triu" : "torch.tril") + "(torch.ones(" + Q + ", " + K + "))";
    std::string code;
    switch (kind) {
      case MaskKind::None: code = "mask = torch.ones(" + B + ", " + Q + ", " + K + ")"; break;
      case MaskKind::Padding: code = "mask = " + keys + ".expand(" + B + ", " + Q + ", " + K + ").float()"; break;
      case MaskKind::Causal: code = "mask = " + tri + ".repeat(" + B + ", 1, 1)"; break;
      case MaskKind::PaddingCausal: code = "mask = " + keys + ".float() * " + tri; break;
    }
    Text formula(Msg::sf_1_may_attend_0_masked_1, mask_name(kind));
    std::string fault;
    if (wrong_axis) {
      formula = formula_parts({formula, Text(Msg::sf_padding_laid_along_queries_not_keys)});
      fault = fault_info(Fault::MaskWrongBroadcast).id;
    }
    if (future) {
      formula = formula_parts({formula, Text(Msg::sf_look_ahead_triangle_transposed_token_i)});
      fault += (fault.empty() ? "" : ",") + std::string(fault_info(Fault::CausalTransposed).id);
    }
    return StepInfo{.title = fault.empty() ? Text(title) : Text(Msg::st_with_fault, Text(title)),
                    .formula = formula, .code = code,
                    .result = "mask", .bindings = {step_var("ids", key_ids.id)}, .fault = fault};
  });
  return {m, id};
}

// The table the tokens are looked up in: a trained model's own (V, D), or one seeded vector per
// distinct token of the batch.
Flow table_step(const ModelConfig& cfg, const Weights& w, const Batch& batch, Recorder& rec) {
  const std::string id = "encoder.embedding_table";
  if (w.vocab()) {
    Flow table{w.get("embedding.weight"), id};
    record_step(rec, id, table.t, [&] {
      return StepInfo{.title = Text(Msg::st_embedding_table_trained),
                      .formula = Text(Msg::sf_models_learned_vector_each_1_vocabulary, w.vocab()->size()),
                      .code = "table = embedding_weight", .result = "table",
                      .bindings = {weight_var("embedding_weight", "embedding.weight")}};
    });
    return table;
  }
  Flow table{embedding_table(batch.vocab, cfg.d_model, cfg.seed), id};
  record_step(rec, id, table.t, [&] {
    return StepInfo{.title = Text(Msg::st_embedding_table),
                    .formula = formula_parts({Text(Msg::sf_seeded_vector_per_distinct_token), maths("[PAD] → 0")}),
                    .code = "# table[v] = seeded normal vector of token v (docs/cli.md)", .result = "table",
                    .is_data = true};
  });
  return table;
}

// {stack}.norm: the LayerNorm after the stack's last layer (ModelConfig::final_norm), or x as it is.
Flow final_norm(const ModelConfig& cfg, const Weights& w, const std::string& stack, const Flow& x, Recorder& rec) {
  if (!cfg.final_norm) return x;
  return layer_norm_step(cfg, w, rec, stack + ".", "norm", x, Text(Msg::st_final_layernorm),
                         formula_parts({Text(Msg::sf_x_mean_var_over_d_biased), Text(Msg::sf_after_last_layer)}));
}

// A trained model's output head over the last layer's output x (B, S, D): logits (B, S, V) and
// their softmax, the probability of each vocabulary entry.
// A head tied to the embedding table (GPT-2's) has no bias: it adds zeros, which change no value.
// BERT's head transforms x first (bert_parts.h) and its tied decoder has a bias.
Tensor output_head(const ModelConfig& cfg, const Weights& w, const std::string& stack, const Flow& x_in, Recorder& rec,
                   Backend& be) {
  const Flow x = head_transform(cfg, w, stack, x_in, rec, be);
  const Tensor& wt = w.get("output_head.weight");  // (V, D)
  const bool bias = w.vocab()->head_bias;
  Flow logits{be.linear(x.t, wt, bias ? w.get("output_head.bias") : Tensor({wt.size(0)}, 0.0f)),
              stack + ".output_head.logits"};
  record_step(rec, logits.id, logits.t, [&] {
    if (!bias)
      return StepInfo{.title = Text(Msg::st_output_head_logits),
                      .formula = Text(Msg::sf_logits_tied_no_bias),
                      .code = "logits = F.linear(x, output_head_weight)", .result = "logits",
                      .bindings = {step_var("x", x.id), weight_var("output_head_weight", "output_head.weight")}};
    return StepInfo{.title = Text(Msg::st_output_head_logits),
                    .formula = Text(w.vocab()->pretrained ? Msg::sf_logits_tied_with_bias : Msg::sf_logits_x_w_b_score_per),
                    .code = "logits = F.linear(x, output_head_weight, output_head_bias)", .result = "logits",
                    .bindings = {step_var("x", x.id), weight_var("output_head_weight", "output_head.weight"),
                                 weight_var("output_head_bias", "output_head.bias")}};
  });
  if (!rec.enabled()) return logits.t;
  Tensor probs = logits.t.clone();
  be.softmax_lastdim_inplace(probs);
  record_step(rec, stack + ".output_head.probs", probs, [&] {
    const Task task = w.vocab()->task;
    return StepInfo{.title = Text(Msg::st_output_head_probabilities),
                    .formula = Text(task == Task::NextToken    ? Msg::sf_softmax_over_vocabulary_position_guess_token
                                    : task == Task::MaskedWord ? Msg::sf_softmax_over_vocabulary_masked_word
                                                               : Msg::sf_softmax_over_vocabulary_position_guess_answers),
                    .code = "probs = torch.softmax(logits, dim=-1)", .result = "probs",
                    .bindings = {step_var("logits", logits.id)}};
  });
  return logits.t;
}

}  // namespace

Tensor forward(const ModelConfig& cfg, const Weights& w, const Batch& batch, Recorder& rec, Backend& be) {
  if (cfg.cross != batch.cross())
    throw ConfigError(Text(cfg.cross ? Msg::en_cross_attention_needs_memory_text : Msg::en_memory_text_needs_decoder));
  const TrainedVocab* trained = w.vocab().get();
  if (trained && static_cast<int64_t>(batch.vocab.words.size()) != trained->size())
    throw ConfigError(Text(Msg::en_sentences_prepared_without_trained_vocabulary));
  if (rec.enabled() && cfg.traces_variant()) check_walk_length(cfg.variant, batch.encoder_tokens().seq());
  const Flow table = table_step(cfg, w, batch, rec);
  const TokenBatch& src = batch.encoder_tokens();
  const Embedded enc = embed(cfg, w, "encoder", src, batch.vocab, trained, table, rec);
  const MaskKind enc_mask = cfg.cross ? MaskKind::Padding : cfg.mask;
  const Flow mask =
      mask_step(enc_mask, "encoder.mask", Msg::st_attention_mask, enc.ids, src.lengths, src.seq(), cfg.faults, rec);
  Flow x = enc.input;
  std::optional<Tensor> resident;  // nothing recorded: the whole stack on the device where it can be
  if (!rec.enabled()) resident = run_resident_encoder(cfg, w, be, x.t, mask.t);
  if (resident)
    x.t = *resident;
  else
    for (int64_t i = 0; i < cfg.layers; ++i) x = encoder_layer(cfg, w, i, x, mask, rec, be);
  x = final_norm(cfg, w, "encoder", x, rec);
  if (!cfg.cross) {
    if (trained) output_head(cfg, w, "encoder", x, rec, be);
    return x.t;
  }

  const Embedded dec = embed(cfg, w, "decoder", batch.text, batch.vocab, trained, table, rec);
  const int64_t t = batch.text.seq();
  const Flow self_mask = mask_step(cfg.mask, "decoder.self_mask", Msg::st_decoder_self_attention_mask, dec.ids,
                                   batch.text.lengths, t, cfg.faults, rec);
  const Flow cross_mask = mask_step(MaskKind::Padding, "decoder.cross_mask", Msg::st_cross_attention_mask, enc.ids,
                                    src.lengths, t, FaultSet{}, rec);
  Flow y = dec.input;
  for (int64_t i = 0; i < cfg.layers; ++i) y = decoder_layer(cfg, w, i, y, self_mask, x, cross_mask, rec, be);
  y = final_norm(cfg, w, "decoder", y, rec);
  if (trained) output_head(cfg, w, "decoder", y, rec, be);
  return y.t;
}

int64_t count_steps(const ModelConfig& cfg, int64_t encoder_tokens) {
  class Counter final : public Recorder {
   public:
    bool enabled() const override { return true; }
    void record(StepInfo, const Tensor&) override { ++n; }
    int64_t n = 0;
  } counter;
  ModelConfig tiny = cfg;
  if (!cfg.has(Fault::IndivisibleHeads)) tiny.d_model = 2 * cfg.heads;  // even, for the sinusoids
  tiny.d_ff = 1;
  tiny.variant = {};
  try {
    forward(tiny, init_weights(tiny), make_batch({"a"}, cfg.cross ? std::vector<std::string>{"a"} : std::vector<std::string>{}),
            counter);
  } catch (const ShapeError&) {
    // a fault that stops the run: the steps before it are all it records
  }
  return counter.n + (cfg.traces_variant() ? variant_step_count(cfg.variant, encoder_tokens) : 0);
}

int64_t output_head_steps(const ModelConfig& cfg) { return 2 + (cfg.head_transform ? 3 : 0); }

namespace {
// The layers of an encoder stack over x, the mask dense (mask.t) or as key ranges.
Tensor run_layers(const ModelConfig& cfg, const Weights& w, const Tensor& x, const Flow& mask, Recorder& rec,
                  Backend& be, const KeyRanges* ranges) {
  if (!rec.enabled())
    if (const auto stack = make_resident_encoder(cfg, w, be))  // the dense mask only when it will be read
      if (auto out = stack->run(x, ranges ? ranges->dense() : mask.t)) return *out;
  Flow f{x, "encoder.input"};
  for (int64_t i = 0; i < cfg.layers; ++i) f = encoder_layer(cfg, w, i, f, mask, rec, be, ranges);
  return f.t;
}
}  // namespace

Tensor encoder_stack(const ModelConfig& cfg, const Weights& w, const Tensor& x, const Tensor& mask, Recorder& rec,
                     Backend& be) {
  return run_layers(cfg, w, x, {mask, "encoder.mask"}, rec, be, nullptr);
}

Tensor head_logits(const ModelConfig& cfg, const Weights& w, const Tensor& x, Backend& be) {
  NullRecorder rec;
  const Flow out = final_norm(cfg, w, "encoder", {x, "encoder.output"}, rec);
  return w.vocab() ? output_head(cfg, w, "encoder", out, rec, be) : out.t;
}

Tensor encoder_outputs(const ModelConfig& cfg, const Weights& w, const Tensor& x, const Tensor& mask, Backend& be) {
  NullRecorder rec;
  return head_logits(cfg, w, encoder_stack(cfg, w, x, mask, rec, be), be);
}

Tensor encdec_outputs(const ModelConfig& cfg, const Weights& w, const Tensor& x, const Tensor& enc_mask,
                      const Tensor& y, const Tensor& self_mask, const Tensor& cross_mask, Backend& be) {
  NullRecorder rec;
  const Flow memory = final_norm(cfg, w, "encoder", {encoder_stack(cfg, w, x, enc_mask, rec, be), "encoder.output"}, rec);
  Flow out{y, "decoder.input"};
  for (int64_t i = 0; i < cfg.layers; ++i)
    out = decoder_layer(cfg, w, i, out, {self_mask, "decoder.self_mask"}, memory, {cross_mask, "decoder.cross_mask"}, rec, be);
  out = final_norm(cfg, w, "decoder", out, rec);
  return w.vocab() ? output_head(cfg, w, "decoder", out, rec, be) : out.t;
}

Tensor encoder_stack(const ModelConfig& cfg, const Weights& w, const Tensor& x, const KeyRanges& mask, Recorder& rec,
                     Backend& be) {
  // A traced tiled run (overview_cap) reads the ranges too; other traced runs (a layer traced in
  // full among them) and faulty ones need the dense mask.
  if ((rec.enabled() && cfg.tiled_layers() < cfg.layers) || !cfg.faults.empty())
    return encoder_stack(cfg, w, x, mask.dense(), rec, be);
  return run_layers(cfg, w, x, {Tensor(), "encoder.mask"}, rec, be, &mask);
}

}  // namespace attnlab
