#include "pretrained/pretrained_model.h"

#include "io/files.h"
#include "pretrained/gpt2.h"
#include "pretrained/hf_folder.h"
#include "text/errors.h"

namespace attnlab::pretrained {

namespace {

// The vocabulary in id order, as the tokenizer numbers it; [PAD] reads <|endoftext|>'s row (GPT-2
// has no padding token; its padding is masked anyway) or row 0.
std::shared_ptr<const TrainedVocab> tokenizer_vocab(const subword::PretrainedTokenizer& tok, int64_t rows,
                                                    const std::string& folder) {
  if (tok.size() != rows)
    throw DataError(Text(Msg::pt_model_folder, printable_name(folder)) + Text(Msg::pt_tokenizer_size, tok.size(), rows));
  std::vector<std::string> words;
  words.reserve(static_cast<size_t>(rows));
  for (int64_t i = 0; i < rows; ++i) words.push_back(tok.piece(static_cast<int>(i)));
  const int eos = tok.id("<|endoftext|>");
  auto v = std::make_shared<TrainedVocab>(pretrained_vocab(std::move(words), eos >= 0 ? eos : 0, -1, false));
  v->task = Task::NextToken;
  v->byte_level = tok.kind() == subword::TokenizerKind::ByteLevelBpe;
  v->mask = MaskKind::Causal;
  return v;
}

}  // namespace

PretrainedModel load_pretrained(const std::string& folder) {
  PretrainedModel m;
  m.folder = folder;
  const auto config = read_config(folder);
  const std::string config_path = folder + "/config.json";
  const std::string type = config_text(config, "model_type", "", config_path);
  if (type.empty()) throw DataError(Text(Msg::pt_config_file, printable_name(config_path)) + Text(Msg::pt_no_model_type));
  if (type != "gpt2")
    throw DataError(Text(Msg::pt_config_file, printable_name(config_path)) +
                    Text(Msg::pt_model_type_unsupported, printable_name(type)));
  m.architecture = type;
  const Gpt2Shape shape = gpt2_config(config, config_path);
  m.cfg = shape.cfg;
  require_weights_file(folder);  // before the tokenizer: a pickle-only folder hears the recipe first
  auto tok = std::make_shared<subword::PretrainedTokenizer>(subword::PretrainedTokenizer::load(folder));
  if (tok->kind() != subword::TokenizerKind::ByteLevelBpe)
    throw DataError(Text(Msg::pt_model_folder, printable_name(folder)) +
                    Text(Msg::pt_tokenizer_kind, std::string(subword::tokenizer_kind_name(tok->kind())), "GPT-2",
                         std::string(subword::tokenizer_kind_name(subword::TokenizerKind::ByteLevelBpe))));
  m.tokenizer = tok;
  auto vocab = tokenizer_vocab(*tok, shape.vocab_size, folder);
  m.weights = gpt2_weights(shape, read_checkpoint_tensors(folder, gpt2_buffer), folder);
  m.weights.set_vocab(std::move(vocab));
  try {
    check_weights(m.cfg, m.weights);  // finiteness, and the names and shapes once more
  } catch (const DataError& e) {
    throw DataError(Text(Msg::pt_model_folder, printable_name(folder)) + e.text());
  }
  return m;
}

Batch pretrained_batch(const PretrainedModel& m, const std::vector<std::string>& texts) {
  std::vector<std::vector<std::string>> rows, shown;
  rows.reserve(texts.size());
  for (size_t i = 0; i < texts.size(); ++i) {
    auto& row = rows.emplace_back();
    auto& seen = shown.emplace_back();
    for (const auto& t : m.tokenizer->encode(texts[i])) {
      if (t.unknown()) throw ConfigError(Text(Msg::pt_piece_not_in_vocab, i, printable_name(t.piece)));
      row.push_back(t.piece);
      seen.push_back(m.tokenizer->display(t.piece));
    }
  }
  return make_piece_batch(std::move(rows), *m.weights.vocab(), std::move(shown));
}

}  // namespace attnlab::pretrained
