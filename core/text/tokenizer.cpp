#include "text/tokenizer.h"

#include <utf8proc.h>

#include <algorithm>

#include "text/errors.h"
#include "text/normalize.h"

namespace attnlab {

bool is_cjk_single(char32_t cp) {
  struct Range { char32_t lo, hi; };
  static constexpr Range kRanges[] = {
      {0x3040, 0x309F},   // Hiragana
      {0x30A0, 0x30FF},   // Katakana
      {0x31F0, 0x31FF},   // Katakana phonetic extensions
      {0x3400, 0x4DBF},   // CJK extension A
      {0x4E00, 0x9FFF},   // CJK unified ideographs
      {0xAC00, 0xD7AF},   // Hangul syllables
      {0xF900, 0xFAFF},   // CJK compatibility ideographs
      {0x20000, 0x2A6DF}, // CJK extension B
      {0x2A700, 0x2EBEF}, // CJK extensions C–F
      {0x2F800, 0x2FA1F}, // CJK compatibility supplement
      {0x30000, 0x3134F}, // CJK extension G
  };
  return std::any_of(std::begin(kRanges), std::end(kRanges),
                     [cp](Range r) { return cp >= r.lo && cp <= r.hi; });
}

namespace {

enum class CharClass { Space, Single, Word, Drop };

CharClass classify(utf8proc_int32_t cp) {
  if (is_cjk_single(static_cast<char32_t>(cp))) return CharClass::Single;
  switch (utf8proc_category(cp)) {
    case UTF8PROC_CATEGORY_LU: case UTF8PROC_CATEGORY_LL: case UTF8PROC_CATEGORY_LT:
    case UTF8PROC_CATEGORY_LM: case UTF8PROC_CATEGORY_LO:
    case UTF8PROC_CATEGORY_MN: case UTF8PROC_CATEGORY_MC: case UTF8PROC_CATEGORY_ME:
    case UTF8PROC_CATEGORY_ND: case UTF8PROC_CATEGORY_NL: case UTF8PROC_CATEGORY_NO:
      return CharClass::Word;
    case UTF8PROC_CATEGORY_PC: case UTF8PROC_CATEGORY_PD: case UTF8PROC_CATEGORY_PS:
    case UTF8PROC_CATEGORY_PE: case UTF8PROC_CATEGORY_PI: case UTF8PROC_CATEGORY_PF:
    case UTF8PROC_CATEGORY_PO:
    case UTF8PROC_CATEGORY_SM: case UTF8PROC_CATEGORY_SC: case UTF8PROC_CATEGORY_SK:
    case UTF8PROC_CATEGORY_SO:
      return CharClass::Single;
    case UTF8PROC_CATEGORY_ZS: case UTF8PROC_CATEGORY_ZL: case UTF8PROC_CATEGORY_ZP:
      return CharClass::Space;
    default:  // controls (tab, newline are whitespace too), format characters, unassigned
      return (cp == '\t' || cp == '\n' || cp == '\v' || cp == '\f' || cp == '\r' || cp == 0x85)
                 ? CharClass::Space
                 : CharClass::Drop;
  }
}


}  // namespace

std::vector<std::string> tokenize(std::string_view text) {
  const std::string norm = normalize(text, NormalForm::NFC);
  std::vector<std::string> tokens;
  std::string word;
  auto flush = [&] {
    if (!word.empty()) tokens.push_back(std::move(word));
    word.clear();
  };
  const auto* p = reinterpret_cast<const utf8proc_uint8_t*>(norm.data());
  utf8proc_ssize_t left = static_cast<utf8proc_ssize_t>(norm.size());
  while (left > 0) {
    utf8proc_int32_t cp;
    const utf8proc_ssize_t n = utf8proc_iterate(p, left, &cp);
    if (n <= 0) throw ConfigError(Text(Msg::text_not_valid_utf));
    const std::string ch(reinterpret_cast<const char*>(p), static_cast<size_t>(n));
    switch (classify(cp)) {
      case CharClass::Word: word += ch; break;
      case CharClass::Single: flush(); tokens.push_back(ch); break;
      case CharClass::Space: case CharClass::Drop: flush(); break;
    }
    p += n;
    left -= n;
  }
  flush();
  return tokens;
}

bool is_valid_utf8(std::string_view text) {
  const auto* p = reinterpret_cast<const utf8proc_uint8_t*>(text.data());
  utf8proc_ssize_t left = static_cast<utf8proc_ssize_t>(text.size());
  while (left > 0) {
    utf8proc_int32_t cp;
    const utf8proc_ssize_t n = utf8proc_iterate(p, left, &cp);
    if (n <= 0) return false;
    p += n;
    left -= n;
  }
  return true;
}

Text text_problem(std::string_view text) {
  if (text.find('\0') != std::string_view::npos) return Text(Msg::text_contains_nul_character);
  if (!is_valid_utf8(text)) return Text(Msg::text_not_valid_utf);
  const auto* p = reinterpret_cast<const utf8proc_uint8_t*>(text.data());
  utf8proc_ssize_t left = static_cast<utf8proc_ssize_t>(text.size());
  bool control = false;
  while (left > 0) {
    utf8proc_int32_t cp;
    const utf8proc_ssize_t n = utf8proc_iterate(p, left, &cp);
    const auto cat = utf8proc_category(cp);
    if (cat == UTF8PROC_CATEGORY_CC) control = true;
    else if (cat != UTF8PROC_CATEGORY_ZS && cat != UTF8PROC_CATEGORY_ZL && cat != UTF8PROC_CATEGORY_ZP) return Text();
    p += n;
    left -= n;
  }
  return control ? Text(Msg::text_holds_only_control_characters) : Text();
}

Text sentence_problem(std::string_view text) {
  if (Text why = text_problem(text); !why.empty()) return why;
  if (tokenize(text).empty()) return Text(Msg::sentence_empty_blank_type_least_word);
  return Text();
}

TokenBatch make_token_batch(const std::vector<std::string>& sentences, std::string_view what) {
  const Text option = verbatim(std::string(what) + ": ");  // "--text: "
  if (sentences.empty()) throw ConfigError(option + Text(Msg::no_sentence_given));
  TokenBatch b;
  size_t longest = 0;
  for (size_t i = 0; i < sentences.size(); ++i) {
    std::vector<std::string> toks;
    try {
      toks = tokenize(sentences[i]);
    } catch (const ConfigError& e) {
      throw ConfigError(option + Text(Msg::en_sentence_prefix, i) + e.text());  // sentences count from 0
    }
    if (toks.empty())
      throw ConfigError(option + Text(Msg::sentence_empty_blank_type_least_word_2, i));
    longest = std::max(longest, toks.size());
    b.lengths.push_back(static_cast<int>(toks.size()));
    b.tokens.push_back(std::move(toks));
  }
  for (auto& row : b.tokens) row.resize(longest, kPadToken);
  return b;
}

int Vocabulary::find(const std::string& w) const {
  const auto it = index_.find(w);
  return it == index_.end() ? -1 : it->second;
}

Vocabulary Vocabulary::listed(std::vector<std::string> list, int* duplicate) {
  Vocabulary v;
  v.words = std::move(list);
  v.index_.clear();
  v.index_.reserve(v.words.size());
  int first_repeat = -1;
  for (size_t i = 0; i < v.words.size(); ++i) {
    const auto [it, fresh] = v.index_.insert_or_assign(v.words[i], static_cast<int>(i));  // the last line wins
    if (!fresh && first_repeat < 0) first_repeat = static_cast<int>(i);
  }
  if (duplicate) *duplicate = first_repeat;
  return v;
}

int Vocabulary::id_of(const std::string& w) {
  auto [it, inserted] = index_.try_emplace(w, static_cast<int>(words.size()));
  if (inserted) words.push_back(w);
  return it->second;
}

}  // namespace attnlab
