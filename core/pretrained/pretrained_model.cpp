#include "pretrained/pretrained_model.h"

#include "backward/loss.h"
#include "io/files.h"
#include "pretrained/bert.h"
#include "pretrained/gpt2.h"
#include "pretrained/hf_folder.h"
#include "text/errors.h"

namespace attnlab::pretrained {

namespace {

// How the model reads the tokenizer's vocabulary: the row a [PAD] position reads, the row of an
// unknown piece (−1: none), the head's bias, what the output predicts and the mask it was trained with.
struct VocabRules {
  int pad_id = 0, unk_id = -1;
  bool head_bias = false;
  Task task = Task::NextToken;
  MaskKind mask = MaskKind::Causal;
};

// The vocabulary in id order, as the tokenizer numbers it.
std::shared_ptr<const TrainedVocab> tokenizer_vocab(const subword::PretrainedTokenizer& tok, int64_t rows,
                                                    const std::string& folder, const VocabRules& r) {
  if (tok.size() != rows)
    throw DataError(Text(Msg::pt_model_folder, printable_name(folder)) + Text(Msg::pt_tokenizer_size, tok.size(), rows));
  std::vector<std::string> words;
  words.reserve(static_cast<size_t>(rows));
  for (int64_t i = 0; i < rows; ++i) words.push_back(tok.piece(static_cast<int>(i)));
  auto v = std::make_shared<TrainedVocab>(pretrained_vocab(std::move(words), r.pad_id, r.unk_id, r.head_bias));
  v->task = r.task;
  v->byte_level = tok.kind() == subword::TokenizerKind::ByteLevelBpe;
  v->mask = r.mask;
  return v;
}

// The folder's tokenizer, which must be the kind the architecture reads.
std::shared_ptr<const subword::PretrainedTokenizer> folder_tokenizer(const std::string& folder, const char* architecture,
                                                                     subword::TokenizerKind kind) {
  auto tok = std::make_shared<subword::PretrainedTokenizer>(subword::PretrainedTokenizer::load(folder));
  if (tok->kind() != kind)
    throw DataError(Text(Msg::pt_model_folder, printable_name(folder)) +
                    Text(Msg::pt_tokenizer_kind, std::string(subword::tokenizer_kind_name(tok->kind())), architecture,
                         std::string(subword::tokenizer_kind_name(kind))));
  return tok;
}

// GPT-2: [PAD] reads <|endoftext|>'s row (GPT-2 has no padding token; its padding is masked anyway)
// or row 0; no unknown row; the head tied without bias; next-token, causal.
void load_gpt2(PretrainedModel& m, const nlohmann::json& config, const std::string& config_path) {
  const Gpt2Shape shape = gpt2_config(config, config_path);
  m.cfg = shape.cfg;
  require_weights_file(m.folder);  // before the tokenizer: a pickle-only folder hears the recipe first
  m.tokenizer = folder_tokenizer(m.folder, "GPT-2", subword::TokenizerKind::ByteLevelBpe);
  const int eos = m.tokenizer->id("<|endoftext|>");
  auto vocab = tokenizer_vocab(*m.tokenizer, shape.vocab_size, m.folder, {.pad_id = eos >= 0 ? eos : 0});
  m.weights = gpt2_weights(shape, read_checkpoint_tensors(m.folder, gpt2_buffer), m.folder);
  m.weights.set_vocab(std::move(vocab));
}

// BERT and DistilBERT: [PAD] and [UNK] the vocabulary's own; the decoder has a bias; each position
// guesses its own piece (a [MASK]'s hidden word); the padding mask.
void load_bert(PretrainedModel& m, const nlohmann::json& config, const std::string& config_path, bool distil) {
  const BertShape shape = bert_config(config, config_path, distil);
  m.cfg = shape.cfg;
  require_weights_file(m.folder);
  m.tokenizer = folder_tokenizer(m.folder, distil ? "DistilBERT" : "BERT", subword::TokenizerKind::WordPiece);
  const int pad = m.tokenizer->id("[PAD]");
  auto vocab = tokenizer_vocab(*m.tokenizer, shape.vocab_size, m.folder,
                               {.pad_id = pad >= 0 ? pad : 0, .unk_id = m.tokenizer->id("[UNK]"), .head_bias = true,
                                .task = Task::MaskedWord, .mask = MaskKind::Padding});
  m.weights = bert_weights(shape, read_checkpoint_tensors(m.folder, bert_unused), m.folder);
  m.weights.set_vocab(std::move(vocab));
}

}  // namespace

std::string architecture_name(const std::string& model_type) {
  if (model_type == "gpt2") return "GPT-2";
  if (model_type == "bert") return "BERT";
  if (model_type == "distilbert") return "DistilBERT";
  return model_type;
}

PretrainedModel load_pretrained(const std::string& folder) {
  PretrainedModel m;
  m.folder = folder;
  const auto config = read_config(folder);
  const std::string config_path = folder + "/config.json";
  const std::string type = config_text(config, "model_type", "", config_path);
  if (type.empty()) throw DataError(Text(Msg::pt_config_file, printable_name(config_path)) + Text(Msg::pt_no_model_type));
  if (type == "gpt2")
    load_gpt2(m, config, config_path);
  else if (type == "bert" || type == "distilbert")
    load_bert(m, config, config_path, type == "distilbert");
  else
    throw DataError(Text(Msg::pt_config_file, printable_name(config_path)) +
                    Text(Msg::pt_model_type_unsupported, printable_name(type)));
  m.architecture = type;
  try {
    check_weights(m.cfg, m.weights);  // finiteness, and the names and shapes once more
  } catch (const DataError& e) {
    throw DataError(Text(Msg::pt_model_folder, printable_name(folder)) + e.text());
  }
  return m;
}

Tensor pretrained_answer_ids(const PretrainedModel& m, const std::vector<std::string>& answers, int64_t b, int64_t s,
                             bool prepend_bos) {
  if (static_cast<int64_t>(answers.size()) != b)  // before the tokenizer, which would name --text
    throw DataError(Text(Msg::loss_answers_count, static_cast<int64_t>(answers.size()), b));
  const TokenBatch cut = pretrained_batch(m, answers, prepend_bos).text;
  Tensor ids = answer_ids(cut, *m.weights.vocab(), b, s);
  if (prepend_bos)
    for (int64_t r = 0; r < b; ++r) ids.data()[r * s] = -1.0f;  // the <|endoftext|> put first
  if (m.tokenizer->kind() != subword::TokenizerKind::WordPiece) return ids;
  for (int64_t r = 0; r < b; ++r) {
    const auto& row = cut.tokens[static_cast<size_t>(r)];
    const int64_t n = cut.lengths[static_cast<size_t>(r)];
    if (n > 0 && row.front() == "[CLS]") ids.data()[r * s] = -1.0f;
    if (n > 1 && row[static_cast<size_t>(n - 1)] == "[SEP]") ids.data()[r * s + n - 1] = -1.0f;
  }
  return ids;
}

bool takes_prepended_bos(const PretrainedModel& m) { return m.weights.vocab()->byte_level; }

const std::string& bos_piece(const PretrainedModel& m) {
  const TrainedVocab& v = *m.weights.vocab();
  return v.words()[static_cast<size_t>(v.pad_id)];
}

Batch pretrained_batch(const PretrainedModel& m, const std::vector<std::string>& texts, bool prepend_bos) {
  if (prepend_bos && !takes_prepended_bos(m))
    throw ConfigError(Text(Msg::pt_prepend_bos_gpt2_only, architecture_name(m.architecture)));
  std::vector<std::vector<std::string>> rows, shown;
  rows.reserve(texts.size());
  for (size_t i = 0; i < texts.size(); ++i) {
    auto& row = rows.emplace_back();
    auto& seen = shown.emplace_back();
    if (prepend_bos) {
      row.push_back(bos_piece(m));
      seen.push_back(m.tokenizer->display(row.back()));
    }
    for (const auto& t : m.tokenizer->encode(texts[i])) {
      if (t.unknown()) throw ConfigError(Text(Msg::pt_piece_not_in_vocab, i, printable_name(t.piece)));
      row.push_back(t.piece);
      seen.push_back(m.tokenizer->display(t.piece));
    }
  }
  return make_piece_batch(std::move(rows), *m.weights.vocab(), std::move(shown));
}

}  // namespace attnlab::pretrained
