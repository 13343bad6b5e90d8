#include "subword/wordpiece.h"

#include "io/files.h"
#include "subword/lines.h"
#include "subword/unicode_props.h"
#include "text/errors.h"
#include "text/tokenizer.h"

namespace attnlab::subword {

namespace {

constexpr size_t kMaxWordChars = 100;  // BertTokenizer's max_input_chars_per_word

// Words separated by whitespace (Python's str.split()).
std::vector<std::u32string> split_spaces(std::u32string_view t) {
  std::vector<std::u32string> out;
  std::u32string w;
  for (char32_t c : t) {
    if (is_white_space(c) || c == U'\x1C' || c == U'\x1D' || c == U'\x1E' || c == U'\x1F') {
      if (!w.empty()) out.push_back(std::move(w));
      w.clear();
    } else {
      w.push_back(c);
    }
  }
  if (!w.empty()) out.push_back(std::move(w));
  return out;
}

// Step 2's first half: cleaned, CJK spaced.
std::u32string clean(std::u32string_view t) {
  std::u32string out;
  for (char32_t c : t) {
    if (c == 0 || c == 0xFFFD || bert_is_control(c)) continue;
    if (bert_is_whitespace(c)) {
      out.push_back(U' ');
    } else if (bert_is_cjk(c)) {
      out += U' ';
      out.push_back(c);
      out += U' ';
    } else {
      out.push_back(c);
    }
  }
  return out;
}

}  // namespace

WordPiece WordPiece::parse(std::string_view text, const std::string& origin, bool lower_case) {
  WordPiece w;
  w.lower_case_ = lower_case;
  for_each_line(text, [&](size_t line_no, std::string_view line) {
    if (!is_valid_utf8(line) || line.find('\0') != std::string_view::npos)
      throw file_error(origin, Text(Msg::sw_line_not_utf8, line_no));
    if (static_cast<int64_t>(w.tokens_.size()) >= kMaxVocabularyEntries)
      throw file_error(origin, Text(Msg::sw_vocab_too_large, kMaxVocabularyEntries));
    w.index_[std::string(line)] = static_cast<int>(w.tokens_.size());
    w.tokens_.emplace_back(line);
  });
  if (w.tokens_.empty()) throw file_error(origin, Text(Msg::sw_vocab_empty));
  if (w.id("[UNK]") < 0) throw file_error(origin, Text(Msg::sw_vocab_lacks_token, "[UNK]"));
  for (const char* s : {"[CLS]", "[SEP]", "[MASK]", "[PAD]", "[UNK]"})
    if (w.id(s) >= 0) w.specials_.emplace_back(s);
  return w;
}

WordPiece WordPiece::load(const std::string& vocab_path, bool lower_case) {
  return parse(read_regular_file(vocab_path, kMaxTokenizerFileBytes, Msg::sw_tokenizer_file), vocab_path, lower_case);
}

int WordPiece::id(const std::string& token) const {
  const auto it = index_.find(token);
  return it == index_.end() ? -1 : it->second;
}

std::vector<std::string> WordPiece::basic_tokenize(std::string_view text) const {
  std::vector<std::string> out;
  for (std::u32string word : split_spaces(decode_utf8(nfc(encode_utf8(clean(decode_utf8(text))))))) {
    if (lower_case_) word = strip_accents(lower(word));
    std::u32string piece;
    for (char32_t c : word) {
      if (!bert_is_punctuation(c)) {
        piece.push_back(c);
        continue;
      }
      if (!piece.empty()) out.push_back(encode_utf8(piece));
      piece.clear();
      out.push_back(encode_utf8(c));
    }
    if (!piece.empty()) out.push_back(encode_utf8(piece));
  }
  return out;
}

std::vector<std::string> WordPiece::word_pieces(const std::string& word) const {
  const std::u32string chars = decode_utf8(word);
  if (chars.size() > kMaxWordChars) return {"[UNK]"};
  std::vector<std::string> out;
  for (size_t start = 0; start < chars.size();) {
    size_t end = chars.size();
    std::string found;
    for (; end > start; --end) {  // the longest piece from `start` the vocabulary has
      const std::string sub = (start > 0 ? "##" : "") + encode_utf8(std::u32string_view(chars).substr(start, end - start));
      if (index_.count(sub)) {
        found = sub;
        break;
      }
    }
    if (found.empty()) return {"[UNK]"};
    out.push_back(std::move(found));
    start = end;
  }
  return out;
}

std::vector<SubwordToken> WordPiece::encode(std::string_view text, bool specials) const {
  if (!is_valid_utf8(text)) throw ConfigError(Text(Msg::text_not_valid_utf));
  std::vector<SubwordToken> out;
  const int unk = id("[UNK]");
  auto add = [&](const std::string& p) {
    const int i = id(p);
    out.push_back({p, i >= 0 ? i : unk});
  };
  auto plain = [&](std::string_view part) {
    for (const std::string& word : basic_tokenize(part))
      for (const std::string& p : word_pieces(word)) add(p);
  };
  if (specials && id("[CLS]") >= 0) add("[CLS]");
  // The earliest special token typed, then the text before it. Each token's next place is kept
  // and searched again only once passed, so a long text costs one scan per special token.
  std::vector<size_t> hit(specials_.size());
  for (size_t i = 0; i < specials_.size(); ++i) hit[i] = text.find(specials_[i]);
  size_t pos = 0;
  while (pos < text.size()) {
    size_t at = std::string_view::npos, which = 0;
    for (size_t i = 0; i < specials_.size(); ++i) {
      if (hit[i] != std::string_view::npos && hit[i] < pos) hit[i] = text.find(specials_[i], pos);
      if (hit[i] < at) at = hit[i], which = i;
    }
    if (at == std::string_view::npos) break;
    plain(text.substr(pos, at - pos));
    add(specials_[which]);
    pos = at + specials_[which].size();
  }
  plain(text.substr(pos));
  if (specials && id("[SEP]") >= 0) add("[SEP]");
  return out;
}

}  // namespace attnlab::subword
