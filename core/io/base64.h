// Base64 (RFC 4648, standard alphabet, with padding) for weights embedded in a session file.
// Decoding is strict: any character outside the alphabet, a bad length or bad padding throws.
#pragma once

#include <string>
#include <string_view>

namespace attnlab {

std::string base64_encode(std::string_view bytes);
// Throws DataError naming `what` (the field) on malformed input.
std::string base64_decode(std::string_view text, const std::string& what);

}  // namespace attnlab
