#include "subword/bpe.h"

#include <nlohmann/json.hpp>

#include <climits>

#include "io/files.h"
#include "subword/lines.h"
#include "subword/unicode_props.h"
#include "text/errors.h"
#include "text/tokenizer.h"

namespace attnlab::subword {

namespace {

constexpr std::string_view kEndOfText = "<|endoftext|>";

// GPT-2's bytes_to_unicode: the printable bytes ! … ~, ¡ … ¬, ® … ÿ stand for themselves; the
// other 68 bytes, in order, become U+0100, U+0101, …
std::array<char32_t, 256> byte_code_points() {
  std::array<char32_t, 256> cp{};
  char32_t next = 256;
  for (int b = 0; b < 256; ++b) {
    const bool printable = (b >= '!' && b <= '~') || (b >= 0xA1 && b <= 0xAC) || (b >= 0xAE && b <= 0xFF);
    cp[static_cast<size_t>(b)] = printable ? static_cast<char32_t>(b) : next++;
  }
  return cp;
}

const std::unordered_map<char32_t, unsigned char>& symbol_bytes() {
  static const auto table = [] {
    std::unordered_map<char32_t, unsigned char> m;
    const auto cp = byte_code_points();
    for (int b = 0; b < 256; ++b) m[cp[static_cast<size_t>(b)]] = static_cast<unsigned char>(b);
    return m;
  }();
  return table;
}

// The end of the run of code points from `j` that `in` accepts.
template <typename Pred>
size_t run_end(std::u32string_view t, size_t j, Pred in) {
  while (j < t.size() && in(t[j])) ++j;
  return j;
}

// The length of the valid UTF-8 character at bytes[k], or 0 when none starts there.
size_t char_len_at(std::string_view bytes, size_t k) {
  const auto c = static_cast<unsigned char>(bytes[k]);
  const size_t n = c < 0x80 ? 1 : (c >> 5) == 6 ? 2 : (c >> 4) == 14 ? 3 : (c >> 3) == 30 ? 4 : 0;
  return n && k + n <= bytes.size() && is_valid_utf8(bytes.substr(k, n)) ? n : 0;
}

// The length of the maximal subpart of an ill-formed UTF-8 sequence at bytes[k] (Unicode's
// "substitution of maximal subparts", what Python's decoder replaces with one U+FFFD): the lead
// byte and the continuation bytes that could still follow it.
size_t ill_formed_len(std::string_view bytes, size_t k) {
  const auto c = static_cast<unsigned char>(bytes[k]);
  const size_t need = (c >= 0xC2 && c <= 0xDF) ? 2 : (c >= 0xE0 && c <= 0xEF) ? 3 : (c >= 0xF0 && c <= 0xF4) ? 4 : 1;
  size_t n = 1;
  for (; n < need && k + n < bytes.size(); ++n) {
    const auto b = static_cast<unsigned char>(bytes[k + n]);
    unsigned char lo = 0x80, hi = 0xBF;  // the second byte's narrower ranges
    if (n == 1 && c == 0xE0) lo = 0xA0;
    if (n == 1 && c == 0xED) hi = 0x9F;
    if (n == 1 && c == 0xF0) lo = 0x90;
    if (n == 1 && c == 0xF4) hi = 0x8F;
    if (b < lo || b > hi) break;
  }
  return n;
}

bool is_other(char32_t c) { return !is_white_space(c) && !is_letter(c) && !is_number(c); }

// The length of a contraction ('s 't 're 've 'm 'll 'd) at i, or 0.
size_t contraction_at(std::u32string_view t, size_t i) {
  if (t[i] != U'\'') return 0;
  for (std::u32string_view c : {U"s", U"t", U"re", U"ve", U"m", U"ll", U"d"})
    if (t.substr(i + 1, c.size()) == c) return 1 + c.size();
  return 0;
}

// The end of the pre-token that starts at i (GPT-2's alternatives, in their order).
size_t pretoken_end(std::u32string_view t, size_t i) {
  if (const size_t n = contraction_at(t, i)) return i + n;
  const size_t j = (t[i] == U' ' && i + 1 < t.size()) ? i + 1 : i;  // " ?" then a class
  if (!is_white_space(t[j])) {
    if (is_letter(t[j])) return run_end(t, j, is_letter);
    if (is_number(t[j])) return run_end(t, j, is_number);
    return run_end(t, j, is_other);
  }
  // \s+(?!\S): a run of spaces, all of it at the end of the text, else all but the last space
  // (which then leads the next word); a single space before a word is \s+ alone.
  const size_t end = run_end(t, i, is_white_space);
  return (end < t.size() && end - i >= 2) ? end - 1 : end;
}

// The vocabulary file: {piece: id} with ids 0 … N−1.
std::vector<std::string> parse_vocab(std::string_view text, const std::string& origin) {
  nlohmann::json j;
  try {
    j = nlohmann::json::parse(text);
  } catch (const nlohmann::json::exception& e) {
    throw file_error(origin, Text(Msg::sw_vocab_not_object, e.what()));
  }
  if (!j.is_object()) throw file_error(origin, Text(Msg::sw_vocab_not_object, j.type_name()));
  if (j.empty()) throw file_error(origin, Text(Msg::sw_vocab_empty));
  if (static_cast<int64_t>(j.size()) > kMaxVocabularyEntries)
    throw file_error(origin, Text(Msg::sw_vocab_too_large, kMaxVocabularyEntries));
  std::vector<std::string> pieces(j.size());
  std::vector<bool> seen(j.size(), false);
  for (const auto& [piece, id] : j.items()) {
    if (!id.is_number_unsigned()) throw file_error(origin, Text(Msg::sw_vocab_id_not_number, piece));
    const auto v = id.get<uint64_t>();
    if (v >= pieces.size() || seen[v])
      throw file_error(origin, Text(Msg::sw_vocab_ids_not_dense, pieces.size() - 1, v));
    seen[v] = true;
    pieces[v] = piece;
  }
  return pieces;
}

}  // namespace

const std::array<std::string, 256>& byte_symbols() {
  static const auto table = [] {
    std::array<std::string, 256> s;
    const auto cp = byte_code_points();
    for (size_t b = 0; b < 256; ++b) s[b] = encode_utf8(cp[b]);
    return s;
  }();
  return table;
}

bool piece_bytes(std::string_view piece, std::string& bytes) {
  bytes.clear();
  std::u32string cps;
  try {
    cps = decode_utf8(piece);
  } catch (const ConfigError&) {
    return false;
  }
  const auto& m = symbol_bytes();
  for (char32_t c : cps) {
    const auto it = m.find(c);
    if (it == m.end()) return false;
    bytes.push_back(static_cast<char>(it->second));
  }
  return true;
}

std::vector<std::string> gpt2_pretokenize(std::string_view text) {
  const std::u32string t = decode_utf8(text);
  std::vector<std::string> out;
  for (size_t i = 0; i < t.size();) {
    const size_t end = pretoken_end(t, i);
    out.push_back(encode_utf8(std::u32string_view(t).substr(i, end - i)));
    i = end;
  }
  return out;
}

ByteLevelBpe ByteLevelBpe::parse(std::string_view vocab_json, std::string_view merges, const std::string& vocab_origin,
                                 const std::string& merges_origin) {
  ByteLevelBpe b;
  b.pieces_ = parse_vocab(vocab_json, vocab_origin);
  for (size_t i = 0; i < b.pieces_.size(); ++i) b.index_.emplace(b.pieces_[i], static_cast<int>(i));
  if (b.index_.count(std::string(kEndOfText))) b.end_of_text_ = kEndOfText;
  int rank = 0;  // the merge's line among the merges
  for_each_line(merges, [&](size_t line_no, std::string_view line) {
    if (line.empty() || (line_no == 1 && line.starts_with("#version"))) return;
    const std::string shown = printable_name(line.substr(0, 80));
    if (!is_valid_utf8(line)) throw file_error(merges_origin, Text(Msg::sw_line_not_utf8, line_no));
    const size_t sp = line.find(' ');
    if (sp == 0 || sp == std::string_view::npos || sp + 1 == line.size() || line.find(' ', sp + 1) != std::string_view::npos)
      throw file_error(merges_origin, Text(Msg::sw_merge_line_bad, line_no, shown));
    if (rank >= kMaxVocabularyEntries)
      throw file_error(merges_origin, Text(Msg::sw_vocab_too_large, kMaxVocabularyEntries));
    b.ranks_[std::string(line)] = rank++;  // a repeated merge takes its later rank, as GPT-2's dict does
  });
  return b;
}

ByteLevelBpe ByteLevelBpe::load(const std::string& vocab_path, const std::string& merges_path) {
  const std::string v = read_regular_file(vocab_path, kMaxTokenizerFileBytes, Msg::sw_tokenizer_file);
  const std::string m = read_regular_file(merges_path, kMaxTokenizerFileBytes, Msg::sw_tokenizer_file);
  return parse(v, m, vocab_path, merges_path);
}

int ByteLevelBpe::id(const std::string& piece) const {
  const auto it = index_.find(piece);
  return it == index_.end() ? -1 : it->second;
}

int ByteLevelBpe::rank(const std::string& left, const std::string& right) const {
  const auto it = ranks_.find(left + ' ' + right);
  return it == ranks_.end() ? -1 : it->second;
}

std::vector<SubwordToken> ByteLevelBpe::encode(std::string_view text) const {
  std::vector<SubwordToken> out;
  const auto& symbols = byte_symbols();
  auto plain = [&](std::string_view part) {
    for (const std::string& pre : gpt2_pretokenize(part)) {
      std::vector<std::string> word;
      for (unsigned char c : pre) word.push_back(symbols[c]);
      for (std::string& p : merge(std::move(word))) {
        const int i = id(p);
        out.push_back({std::move(p), i});
      }
    }
  };
  if (!is_valid_utf8(text)) throw ConfigError(Text(Msg::text_not_valid_utf));
  size_t pos = 0;
  while (!end_of_text_.empty()) {
    const size_t at = text.find(end_of_text_, pos);
    if (at == std::string_view::npos) break;
    plain(text.substr(pos, at - pos));
    out.push_back({end_of_text_, id(end_of_text_)});
    pos = at + end_of_text_.size();
  }
  plain(text.substr(pos));
  return out;
}

std::string ByteLevelBpe::decode(const std::vector<int>& ids) const {
  std::string bytes, b;
  for (int i : ids) {
    if (i < 0 || i >= size()) continue;
    const std::string& p = piece(i);
    bytes += piece_bytes(p, b) ? b : p;  // a special token (<|endoftext|>) as it is spelled
  }
  std::string out;
  for (size_t k = 0; k < bytes.size();) {
    if (const size_t n = char_len_at(bytes, k)) {
      out.append(bytes, k, n);
      k += n;
    } else {  // one U+FFFD per maximal ill-formed subsequence, as Python's errors="replace"
      out += "\xEF\xBF\xBD";
      k += ill_formed_len(bytes, k);
    }
  }
  return out;
}

std::string display_piece(std::string_view piece, bool byte_level) {
  std::string bytes;
  if (!byte_level || !piece_bytes(piece, bytes)) return std::string(piece);
  std::string out;
  for (size_t k = 0; k < bytes.size();) {
    const auto byte = static_cast<unsigned char>(bytes[k]);
    const bool control = (byte < 0x20 && byte != '\n' && byte != '\t') || byte == 0x7f;  // invisible: as hex
    if (const size_t n = control ? 0 : char_len_at(bytes, k)) {
      const char c = bytes[k];
      out += c == ' ' ? "␣" : c == '\n' ? "⏎" : c == '\t' ? "⇥" : bytes.substr(k, n);
      k += n;
      continue;
    }
    std::string hex;  // bytes of characters the merges cut, in a row: their hex
    for (bool first = true; k < bytes.size() && (first || !char_len_at(bytes, k)); ++k, first = false) {
      static const char* d = "0123456789ABCDEF";
      const auto c = static_cast<unsigned char>(bytes[k]);
      hex += std::string(hex.empty() ? "" : " ") + d[c >> 4] + d[c & 15];
    }
    out += "⟨" + hex + "⟩";
  }
  return out;
}

}  // namespace attnlab::subword
