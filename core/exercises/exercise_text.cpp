// Small text tools of the exercise reader and checker (exercise_text.h).
#include "exercises/exercise_text.h"

namespace attnlab::exercise_text {

std::string lower_ascii(std::string_view s) {
  std::string out(s);
  for (char& c : out)
    if (c >= 'A' && c <= 'Z') c = static_cast<char>(c - 'A' + 'a');
  return out;
}

std::string halfwidth(std::string_view s) {
  std::string out;
  for (size_t i = 0; i < s.size(); ++i) {
    const auto u = [&](size_t k) { return static_cast<unsigned char>(s[k]); };
    if (i + 2 < s.size() && u(i) == 0xEF && (u(i + 1) == 0xBC || u(i + 1) == 0xBD)) {
      const unsigned cp = 0xFF00 + ((u(i + 1) & 0x3) << 6) + (u(i + 2) & 0x3F);
      if (cp >= 0xFF01 && cp <= 0xFF5E) {
        out += static_cast<char>(cp - 0xFF01 + 0x21);
        i += 2;
        continue;
      }
    }
    out += s[i];
  }
  return out;
}

std::string trim(std::string s) {
  const char* ws = " \t\r\n.!?";
  const auto b = s.find_first_not_of(ws);
  if (b == std::string::npos) return "";
  s = s.substr(b, s.find_last_not_of(ws) - b + 1);
  for (const char* tail : {"。", "！", "？"})
    while (s.size() >= 3 && s.compare(s.size() - 3, 3, tail) == 0) s.erase(s.size() - 3);
  return s;
}

std::string keyword(std::string_view k) { return lower_ascii(trim(halfwidth(k))); }

std::string pick(Lang l, std::string en, std::string zh) { return l == Lang::Zh ? zh : en; }

bool ends_with_part(const std::string& id, const std::string& part) {
  return id.size() > part.size() && id.compare(id.size() - part.size(), part.size(), part) == 0 &&
         id[id.size() - part.size() - 1] == '.';
}
}  // namespace attnlab::exercise_text
