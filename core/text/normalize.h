// Unicode normalisation (utf8proc), shared by the tokenizer and the pretrained tokenizers.
#pragma once

#include <string>
#include <string_view>

namespace attnlab {

enum class NormalForm { NFC, NFD };

// `text` in the normal form; ConfigError when it holds a NUL character or is not valid UTF-8.
std::string normalize(std::string_view text, NormalForm form);

}  // namespace attnlab
