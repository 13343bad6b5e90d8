#include "subword/unicode_props.h"

#include <utf8proc.h>


#include "text/errors.h"
#include "text/normalize.h"

namespace attnlab::subword {

namespace {

utf8proc_category_t category(char32_t cp) { return utf8proc_category(static_cast<utf8proc_int32_t>(cp)); }

}  // namespace

std::u32string decode_utf8(std::string_view text) {
  std::u32string out;
  out.reserve(text.size());
  const auto* p = reinterpret_cast<const utf8proc_uint8_t*>(text.data());
  auto left = static_cast<utf8proc_ssize_t>(text.size());
  while (left > 0) {
    utf8proc_int32_t cp;
    const utf8proc_ssize_t n = utf8proc_iterate(p, left, &cp);
    if (n <= 0) throw ConfigError(Text(Msg::text_not_valid_utf));
    out.push_back(static_cast<char32_t>(cp));
    p += n;
    left -= n;
  }
  return out;
}

std::string encode_utf8(char32_t cp) {
  utf8proc_uint8_t buf[4];
  const utf8proc_ssize_t n = utf8proc_encode_char(static_cast<utf8proc_int32_t>(cp), buf);
  return std::string(reinterpret_cast<const char*>(buf), static_cast<size_t>(n));
}

std::string encode_utf8(std::u32string_view cps) {
  std::string out;
  for (char32_t c : cps) out += encode_utf8(c);
  return out;
}

bool is_letter(char32_t cp) {
  switch (category(cp)) {
    case UTF8PROC_CATEGORY_LU: case UTF8PROC_CATEGORY_LL: case UTF8PROC_CATEGORY_LT:
    case UTF8PROC_CATEGORY_LM: case UTF8PROC_CATEGORY_LO: return true;
    default: return false;
  }
}

bool is_number(char32_t cp) {
  const auto c = category(cp);
  return c == UTF8PROC_CATEGORY_ND || c == UTF8PROC_CATEGORY_NL || c == UTF8PROC_CATEGORY_NO;
}

bool is_white_space(char32_t cp) {
  // PropList.txt's White_Space (unchanged since Unicode 6.3).
  return (cp >= 0x09 && cp <= 0x0D) || cp == 0x20 || cp == 0x85 || cp == 0xA0 || cp == 0x1680 ||
         (cp >= 0x2000 && cp <= 0x200A) || cp == 0x2028 || cp == 0x2029 || cp == 0x202F || cp == 0x205F ||
         cp == 0x3000;
}

bool bert_is_whitespace(char32_t cp) {
  return cp == ' ' || cp == '\t' || cp == '\n' || cp == '\r' || category(cp) == UTF8PROC_CATEGORY_ZS;
}

bool bert_is_control(char32_t cp) {
  if (cp == '\t' || cp == '\n' || cp == '\r') return false;
  const auto c = category(cp);
  return c == UTF8PROC_CATEGORY_CC || c == UTF8PROC_CATEGORY_CF || c == UTF8PROC_CATEGORY_CS ||
         c == UTF8PROC_CATEGORY_CO || c == UTF8PROC_CATEGORY_CN;
}

bool bert_is_punctuation(char32_t cp) {
  if ((cp >= 33 && cp <= 47) || (cp >= 58 && cp <= 64) || (cp >= 91 && cp <= 96) || (cp >= 123 && cp <= 126))
    return true;
  switch (category(cp)) {
    case UTF8PROC_CATEGORY_PC: case UTF8PROC_CATEGORY_PD: case UTF8PROC_CATEGORY_PS: case UTF8PROC_CATEGORY_PE:
    case UTF8PROC_CATEGORY_PI: case UTF8PROC_CATEGORY_PF: case UTF8PROC_CATEGORY_PO: return true;
    default: return false;
  }
}

bool bert_is_cjk(char32_t cp) {
  return (cp >= 0x4E00 && cp <= 0x9FFF) || (cp >= 0x3400 && cp <= 0x4DBF) || (cp >= 0x20000 && cp <= 0x2A6DF) ||
         (cp >= 0x2A700 && cp <= 0x2B73F) || (cp >= 0x2B740 && cp <= 0x2B81F) || (cp >= 0x2B820 && cp <= 0x2CEAF) ||
         (cp >= 0xF900 && cp <= 0xFAFF) || (cp >= 0x2F800 && cp <= 0x2FA1F);
}

std::u32string lower(std::u32string_view cps) {
  std::u32string out;
  out.reserve(cps.size());
  for (char32_t c : cps) out.push_back(static_cast<char32_t>(utf8proc_tolower(static_cast<utf8proc_int32_t>(c))));
  return out;
}

std::u32string strip_accents(std::u32string_view cps) {
  std::u32string out;
  for (char32_t c : decode_utf8(normalize(encode_utf8(cps), NormalForm::NFD)))
    if (category(c) != UTF8PROC_CATEGORY_MN) out.push_back(c);
  return out;
}

std::string nfc(std::string_view text) { return normalize(text, NormalForm::NFC); }

}  // namespace attnlab::subword
