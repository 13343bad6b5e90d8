#include "text/normalize.h"

#include <utf8proc.h>

#include <cstdlib>
#include <memory>

#include "text/errors.h"

namespace attnlab {

std::string normalize(std::string_view text, NormalForm form) {
  // utf8proc needs a NUL-terminated string and rejects invalid UTF-8 with NULL.
  const std::string z(text);
  if (z.find('\0') != std::string::npos) throw ConfigError(Text(Msg::text_contains_nul_character));
  const auto* in = reinterpret_cast<const utf8proc_uint8_t*>(z.c_str());
  std::unique_ptr<utf8proc_uint8_t, decltype(&std::free)> out(form == NormalForm::NFC ? utf8proc_NFC(in) : utf8proc_NFD(in),
                                                              &std::free);
  if (!out) throw ConfigError(Text(Msg::text_not_valid_utf));
  return reinterpret_cast<const char*>(out.get());
}

}  // namespace attnlab
