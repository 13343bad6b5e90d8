// attnlab tokenize: a pretrained checkpoint folder's own tokenizer (GPT-2's byte-level BPE or
// BERT's WordPiece, core/subword) on the given texts; JSON on stdout (docs/cli.md "attnlab tokenize").
#include <nlohmann/json.hpp>

#include <iostream>
#include <memory>

#include "cli_common.h"
#include "subword/tokenizer_folder.h"
#include "text/errors.h"
#include "text/tokenizer.h"

namespace attnlab::cli {

namespace {

struct TokenizeArgs {
  std::string model, text_file, lower_case = "auto";
  std::vector<std::string> texts;
};

subword::LowerCase parse_lower_case(const std::string& v) {
  if (v == "auto") return subword::LowerCase::Auto;
  if (v == "yes") return subword::LowerCase::Yes;
  if (v == "no") return subword::LowerCase::No;
  throw ConfigError(verbatim("--lower-case: ") + Text(Msg::not_one_of, v, "auto, yes, no"));
}

// The options alone (what the fuzzer checks without reading a file).
void check_tokenize(const CLI::App& sub, const TokenizeArgs& a) {
  if (a.model.empty()) throw ConfigError(Text(Msg::cli_tokenize_needs_model));
  if (a.texts.empty() && !sub.count("--text-file")) throw ConfigError(Text(Msg::cli_tokenize_needs_text));
  if (sub.count("--text-file") && a.text_file.empty()) throw ConfigError(Text(Msg::cli_text_file_name_empty));
  for (const auto& t : a.texts)
    if (Text why = text_problem(t); !why.empty()) throw ConfigError(verbatim("--text: ") + std::move(why));
  parse_lower_case(a.lower_case);
}

void run_tokenize(const CLI::App& sub, const TokenizeArgs& a) {
  check_tokenize(sub, a);
  std::vector<std::string> texts = a.texts;
  if (!a.text_file.empty())
    for (auto& line : read_text_file(a.text_file)) texts.push_back(std::move(line));
  const auto tok = subword::PretrainedTokenizer::load(a.model, parse_lower_case(a.lower_case));
  nlohmann::ordered_json out{{"tokenizer", subword::tokenizer_kind_name(tok.kind())}, {"vocab_size", tok.size()}};
  if (tok.kind() == subword::TokenizerKind::WordPiece) out["lower_case"] = tok.lower_case();
  out["texts"] = nlohmann::ordered_json::array();
  for (const auto& text : texts) {
    nlohmann::ordered_json tokens = nlohmann::ordered_json::array();
    int unknown = 0;
    for (const auto& t : tok.encode(text)) {
      tokens.push_back({{"piece", t.piece}, {"id", t.id}, {"shown", tok.display(t.piece)}});
      unknown += t.unknown() || t.piece == "[UNK]";
    }
    out["texts"].push_back({{"text", text}, {"tokens", std::move(tokens)}, {"unknown", unknown}});
  }
  std::cout << out.dump(1, ' ', false, nlohmann::json::error_handler_t::replace) << std::endl;
}

}  // namespace

void add_tokenize_command(CLI::App& app, Chosen& chosen) {
  auto args = std::make_shared<TokenizeArgs>();
  CLI::App* sub = app.add_subcommand("tokenize", "a checkpoint folder's own tokenizer (GPT-2 or BERT) on texts; prints JSON");
  sub->add_option("--model", args->model, "a checkpoint folder: vocab.json + merges.txt (GPT-2) or vocab.txt (BERT)");
  sub->add_option("--text", args->texts, "a text to tokenize; repeat for more");
  sub->add_option("--text-file", args->text_file, "one text per line (UTF-8)");
  sub->add_option("--lower-case", args->lower_case,
                  "auto|yes|no: lower-case and strip accents before WordPiece (default auto: tokenizer_config.json's "
                  "do_lower_case, true when absent)");
  sub->callback([sub, args, &chosen] {
    chosen.check = [sub, args] { check_tokenize(*sub, *args); };
    chosen.run = [sub, args] { run_tokenize(*sub, *args); };
  });
}

}  // namespace attnlab::cli
