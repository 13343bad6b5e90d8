#include "subword/tokenizer_folder.h"

#include <nlohmann/json.hpp>

#include <filesystem>
#include <system_error>

#include "io/files.h"
#include "io/json_file.h"
#include "text/errors.h"

namespace attnlab::subword {

namespace {

constexpr uint64_t kMaxConfigBytes = 1024 * 1024;


// tokenizer_config.json's do_lower_case: true when the file or the field is absent.
bool config_lower_case(const std::filesystem::path& folder) {
  const auto path = (folder / "tokenizer_config.json").string();
  if (!path_present(path)) return true;
  const nlohmann::json j = read_json_object(path, kMaxConfigBytes, Msg::sw_tokenizer_file);
  const auto it = j.find("do_lower_case");
  if (it == j.end() || it->is_null()) return true;
  if (!it->is_boolean()) throw DataError(Text(Msg::sw_tokenizer_file, path) + Text(Msg::sw_config_field_not_bool, "do_lower_case"));
  return it->get<bool>();
}

}  // namespace

std::string_view tokenizer_kind_name(TokenizerKind k) {
  return k == TokenizerKind::ByteLevelBpe ? "byte-level-bpe" : "wordpiece";
}

PretrainedTokenizer PretrainedTokenizer::load(const std::string& folder, LowerCase lower) {
  const std::filesystem::path dir(folder);
  std::error_code ec;
  if (!std::filesystem::is_directory(dir, ec)) throw DataError(Text(Msg::sw_folder_not_folder, printable_name(folder)));
  PretrainedTokenizer t;
  const auto vocab_json = dir / "vocab.json", merges = dir / "merges.txt", vocab_txt = dir / "vocab.txt";
  if (path_present(vocab_json) || path_present(merges)) {  // GPT-2's pair: both are needed (the reader names the missing one)
    t.bpe_ = std::make_shared<const ByteLevelBpe>(ByteLevelBpe::load(vocab_json.string(), merges.string()));
  } else if (path_present(vocab_txt)) {
    const bool lc = lower == LowerCase::Auto ? config_lower_case(dir) : lower == LowerCase::Yes;
    t.wordpiece_ = std::make_shared<const WordPiece>(WordPiece::load(vocab_txt.string(), lc));
  } else {
    throw DataError(Text(Msg::sw_folder_has_no_tokenizer, printable_name(folder)));
  }
  return t;
}

std::string PretrainedTokenizer::decode(const std::vector<int>& ids) const {
  if (bpe_) return bpe_->decode(ids);
  std::string out;
  for (int id : ids) {
    const std::string& p = wordpiece_->piece(id);
    if (p.starts_with("##")) out += p.substr(2);
    else out += (out.empty() ? "" : " ") + p;
  }
  return out;
}

std::vector<SubwordToken> PretrainedTokenizer::encode(std::string_view text) const {
  return bpe_ ? bpe_->encode(text) : wordpiece_->encode(text, true);
}

}  // namespace attnlab::subword
