#include "model/trained.h"

#include <nlohmann/json.hpp>

#include <algorithm>
#include <cmath>
#include <numeric>

#include "model/config.h"
#include "text/errors.h"
#include "text/tokenizer.h"

namespace attnlab {

namespace {

constexpr const char* kInfoKeys[] = {"title", "title_zh", "note", "note_zh", "examples", "metrics", "training_task"};

Task parse_task(const std::string& s, const std::string& origin) {
  if (s == "next-token" || s.empty()) return Task::NextToken;
  if (s == "per-position") return Task::PerPosition;
  if (s == "masked-word") return Task::MaskedWord;
  throw DataError(verbatim(origin + ": ") + Text(Msg::ls_metadata_task_not_next_token, s));
}

std::vector<std::string> parse_words(const std::string& text, const std::string& origin, bool pretrained) {
  const auto bad = [&](Text why) {
    return DataError(verbatim(origin + ": ") +
                     Text(Msg::ls_metadata_vocab_must_be, std::move(why), kPadToken, kUnkToken));
  };
  nlohmann::json j;
  try {
    j = nlohmann::json::parse(text);
  } catch (const nlohmann::json::exception&) {
    throw bad(Text(Msg::ls_is_not_valid_json));
  }
  if (!j.is_array()) throw bad(Text(Msg::ls_is_not_an_array));
  std::vector<std::string> words;
  for (const auto& w : j) {
    if (!w.is_string() || w.get<std::string>().empty()) throw bad(Text(Msg::ls_holds_entry_not_non_empty_string));
    words.push_back(w.get<std::string>());
  }
  if (!pretrained && (words.size() < 2 || words[0] != kPadToken || words[1] != kUnkToken))
    throw bad(Text(Msg::ls_does_not_start_with, kPadToken, kUnkToken));
  if (words.empty()) throw bad(Text(Msg::ls_holds_entry_not_non_empty_string));
  return words;
}

// A pretrained vocabulary's pad_id / unk_id: a row of the vocabulary (or −1 where `none_ok`).
int parse_row(const std::string& text, const char* key, int64_t rows, bool none_ok, const std::string& origin) {
  const auto j = nlohmann::json::parse(text, nullptr, false);
  const bool ok = j.is_number_integer() && (j.get<int64_t>() == -1 ? none_ok : j.get<int64_t>() >= 0 && j.get<int64_t>() < rows);
  if (!ok) throw DataError(verbatim(origin + ": ") + Text(Msg::ls_metadata_row_not_in_vocab, key, text, rows - 1));
  return static_cast<int>(j.get<int64_t>());
}

// Example sentences become the batch when no text is given: each must be one line that has a
// token, and there may be no more than a batch holds.
std::vector<std::string> parse_examples(const std::string& text, const std::string& origin) {
  std::vector<std::string> out;
  if (text.empty()) return out;
  const auto bad = [&](Text why) {
    return DataError(verbatim(origin + ": ") + Text(Msg::ls_metadata_examples_must_be, std::move(why)));
  };
  const auto j = nlohmann::json::parse(text, nullptr, false);
  if (!j.is_array()) throw bad(Text(Msg::ls_is_not_json_array));
  if (static_cast<int64_t>(j.size()) > Limits::kMaxBatch)
    throw bad(Text(Msg::ls_holds_sentences_more_than_batch, j.size(), Limits::kMaxBatch));
  for (size_t i = 0; i < j.size(); ++i) {
    const size_t entry = i;  // from 0, as the vocabulary's entries and the sentences everywhere
    if (!j[i].is_string()) throw bad(Text(Msg::ls_entry_not_string, entry));
    const std::string s = j[i].get<std::string>();
    if (s.find_first_of("\r\n") != std::string::npos) throw bad(Text(Msg::ls_entry_spans_lines, entry));
    bool empty = true;
    try {
      empty = tokenize(s).empty();
    } catch (const ConfigError& e) {
      throw bad(Text(Msg::ls_entry_prefix, entry) + e.text());
    }
    if (empty) throw bad(Text(Msg::ls_entry_has_no_token, entry));
    out.push_back(s);
  }
  return out;
}

}  // namespace

std::string_view task_name(Task t) {
  switch (t) {
    case Task::NextToken: return "next-token";
    case Task::PerPosition: return "per-position";
    case Task::MaskedWord: return "masked-word";
  }
  return "?";
}

bool has_trained_vocab(const std::map<std::string, std::string>& meta) { return meta.count("vocab") != 0; }

int TrainedVocab::id(const std::string& token) const {
  if (token == kPadToken) return pad_id;
  const int i = vocabulary.find(token);
  if (i >= 0) return i;
  if (unk_id < 0) throw ConfigError(Text(Msg::en_token_not_in_vocab_no_unk, token));
  return unk_id;
}

TrainedVocab pretrained_vocab(std::vector<std::string> words, int pad_id, int unk_id, bool head_bias) {
  TrainedVocab v;
  // a vocab.txt may list a piece twice (blank lines): it reads its last row, as the tokenizer does
  v.vocabulary = Vocabulary::listed(std::move(words));
  v.pad_id = pad_id;
  v.unk_id = unk_id;
  v.head_bias = head_bias;
  v.pretrained = true;
  return v;
}

std::string TrainedVocab::field(const std::string& key) const {
  const auto it = info.find(key);
  return it == info.end() ? std::string() : it->second;
}

TrainedVocab TrainedVocab::from_metadata(const std::map<std::string, std::string>& meta, const std::string& origin) {
  TrainedVocab v;
  const auto get = [&](const char* k) {
    const auto it = meta.find(k);
    return it == meta.end() ? std::string() : it->second;
  };
  const bool pretrained = !get("pad_id").empty();
  const std::vector<std::string> words = parse_words(get("vocab"), origin, pretrained);
  if (pretrained) {
    int twice = -1;
    v.vocabulary = Vocabulary::listed(words, &twice);
    if (twice >= 0) {
      const std::string& w = words[static_cast<size_t>(twice)];
      throw DataError(verbatim(origin + ": ") + Text(Msg::ls_metadata_vocab_lists_twice, w, v.vocabulary.find(w), twice));
    }
    const auto rows = static_cast<int64_t>(words.size());
    v.pad_id = parse_row(get("pad_id"), "pad_id", rows, false, origin);
    v.unk_id = get("unk_id").empty() ? -1 : parse_row(get("unk_id"), "unk_id", rows, true, origin);
    const std::string bias = get("head_bias");
    if (!bias.empty() && bias != "true" && bias != "false")
      throw DataError(verbatim(origin + ": ") + Text(Msg::ls_metadata_head_bias_bad, bias));
    v.head_bias = bias != "false";
    v.byte_level = get("byte_level") == "true";
    v.pretrained = true;
  } else {
    for (size_t i = 0; i < words.size(); ++i)
      if (const int first = v.vocabulary.id_of(words[i]); first != static_cast<int>(i))  // [PAD] is there already
        throw DataError(verbatim(origin + ": ") + Text(Msg::ls_metadata_vocab_lists_twice, words[i], first, i));
  }
  v.task = parse_task(get("task"), origin);
  if (!get("mask").empty()) {
    try {
      v.mask = parse_mask(get("mask"));
    } catch (const ConfigError& e) {
      throw DataError(verbatim(origin + ": ") + Text(Msg::ls_metadata_mask_prefix) + e.text());
    }
  }
  for (const char* k : kInfoKeys)
    if (!get(k).empty()) v.info[k] = get(k);
  v.examples_ = parse_examples(v.field("examples"), origin);
  if (!v.field("metrics").empty() && !nlohmann::json::parse(v.field("metrics"), nullptr, false).is_object())
    throw DataError(verbatim(origin + ": ") + Text(Msg::ls_metadata_metrics_not_object));
  return v;
}

std::map<std::string, std::string> TrainedVocab::metadata() const {
  std::map<std::string, std::string> m = info;
  m["vocab"] = nlohmann::json(words()).dump();
  m["task"] = std::string(task_name(task));
  if (mask) m["mask"] = std::string(mask_name(*mask));
  if (pretrained) {
    m["pad_id"] = std::to_string(pad_id);
    m["unk_id"] = std::to_string(unk_id);
    m["head_bias"] = head_bias ? "true" : "false";
    m["byte_level"] = byte_level ? "true" : "false";
  }
  return m;
}

std::vector<std::vector<std::vector<Prediction>>> top_predictions(const Tensor& probs, const TrainedVocab& vocab,
                                                                  const std::vector<int>& lengths, int k) {
  const int64_t bsz = probs.size(0), s = probs.size(1), v = probs.size(2);
  if (v != vocab.size()) throw ShapeError("top_predictions: probabilities over " + std::to_string(v) +
                                          " tokens, vocabulary of " + std::to_string(vocab.size()));
  const Tensor p = probs.contiguous();
  const auto kk = static_cast<int64_t>(std::clamp<int64_t>(k, 0, v));
  std::vector<std::vector<std::vector<Prediction>>> out(static_cast<size_t>(bsz));
  std::vector<int> order(static_cast<size_t>(v));
  for (int64_t b = 0; b < bsz; ++b)
    for (int64_t i = 0; i < std::min<int64_t>(s, lengths.at(static_cast<size_t>(b))); ++i) {
      const float* row = p.data() + (b * s + i) * v;
      std::iota(order.begin(), order.end(), 0);
      // best first; NaN (a broken run) after every number; ties by the lower id
      std::partial_sort(order.begin(), order.begin() + kk, order.end(), [row](int a, int c) {
        const bool na = std::isnan(row[a]), nc = std::isnan(row[c]);
        if (na != nc) return nc;
        return (!na && row[a] > row[c]) || ((na || row[a] == row[c]) && a < c);
      });
      auto& cell = out[static_cast<size_t>(b)].emplace_back();
      for (int64_t r = 0; r < kk; ++r) {
        const int id = order[static_cast<size_t>(r)];
        cell.push_back({vocab.words()[static_cast<size_t>(id)], id, row[id]});
      }
    }
  return out;
}

}  // namespace attnlab
