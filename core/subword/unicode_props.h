// The Unicode questions the pretrained tokenizers ask (GPT-2's pre-tokenisation pattern, BERT's
// basic tokenisation), answered from utf8proc's tables, and UTF-8 ↔ code points.
#pragma once

#include <string>
#include <string_view>
#include <vector>

namespace attnlab::subword {

// The code points of valid UTF-8; ConfigError (Msg::text_not_valid_utf) otherwise.
std::u32string decode_utf8(std::string_view text);
std::string encode_utf8(char32_t cp);
std::string encode_utf8(std::u32string_view cps);

bool is_letter(char32_t cp);  // \p{L}: Lu Ll Lt Lm Lo
bool is_number(char32_t cp);  // \p{N}: Nd Nl No
// \s of the regex engines GPT-2's tokenizers run (Python's `regex`, Rust's `regex`/onig): the
// Unicode White_Space property.
bool is_white_space(char32_t cp);

// BERT's BasicTokenizer (the published tokenization.py / Hugging Face's BertTokenizer):
bool bert_is_whitespace(char32_t cp);   // space, \t, \n, \r, or category Zs
bool bert_is_control(char32_t cp);      // category C*, except \t, \n, \r
bool bert_is_punctuation(char32_t cp);  // ASCII 33–47, 58–64, 91–96, 123–126, or category P*
bool bert_is_cjk(char32_t cp);          // the CJK Unified Ideographs blocks BERT splits around

// Simple lower-case mapping, code point by code point, as the Rust tokenizers lower-case (Python's
// str.lower() writes a word-final Σ as ς).
std::u32string lower(std::u32string_view cps);
// NFD, then every non-spacing mark (Mn) dropped: "Café" → "Cafe".
std::u32string strip_accents(std::u32string_view cps);
// NFC of valid UTF-8.
std::string nfc(std::string_view text);

}  // namespace attnlab::subword
