#include "text/message.h"

#include <algorithm>
#include <stdexcept>

namespace attnlab {

namespace {

// Each table row becomes {id, "id", "Context", "English"}: the QT_TRANSLATE_NOOP mark lupdate reads
// is, here, the pair of its two strings.
#pragma push_macro("QT_TRANSLATE_NOOP")
#undef QT_TRANSLATE_NOOP
#define QT_TRANSLATE_NOOP(context, text) context, text
#define ATTNLAB_MESSAGE(id, templ) {Msg::id, #id, templ, 0},
MessageTemplate kCatalogue[] = {
#include ATTNLAB_MESSAGE_TABLES
};
#undef ATTNLAB_MESSAGE
#pragma pop_macro("QT_TRANSLATE_NOOP")

int highest_placeholder(std::string_view t) {
  int n = 0;
  for (size_t i = 0; i + 1 < t.size(); ++i)
    if (t[i] == '%' && t[i + 1] >= '1' && t[i + 1] <= '9') n = std::max(n, t[i + 1] - '0');
  return n;
}

const std::span<const MessageTemplate> catalogue() {
  static const bool counted = [] {
    for (MessageTemplate& m : kCatalogue) m.arguments = highest_placeholder(m.english);
    return true;
  }();
  (void)counted;
  return kCatalogue;
}

constexpr size_t kFirst = static_cast<size_t>(Msg::join) + 1;

bool letter(char c) { return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z'); }

// Two runs of ≥ 2 letters separated by spaces only; a run starting "--" (an option) is no word.
bool prose(std::string_view s) {
  int words = 0;
  size_t i = 0;
  while (i < s.size()) {
    if (letter(s[i])) {
      const size_t start = i;
      while (i < s.size() && (letter(s[i]) || s[i] == '-' || s[i] == '_')) ++i;
      const bool option = start >= 2 && s[start - 1] == '-' && s[start - 2] == '-';
      const bool word = !option && i - start >= 2 && std::all_of(s.begin() + start, s.begin() + i, letter);
      words = word ? words + 1 : 0;
      if (words == 2) return true;
      if (i < s.size() && s[i] != ' ') words = 0;
      continue;
    }
    if (s[i] != ' ') words = 0;
    ++i;
  }
  return false;
}

}  // namespace

std::span<const MessageTemplate> message_catalogue() { return catalogue(); }

const MessageTemplate* message_template(Msg id) {
  const size_t i = static_cast<size_t>(id);
  if (i < kFirst || i - kFirst >= catalogue().size()) return nullptr;
  return &catalogue()[i - kFirst];
}

Text Text::verbatim(std::string s) {
  Text t;
  t.id_ = Msg::verbatim;
  t.text_ = std::move(s);
  return t;
}

Text Text::join(std::vector<Text> parts) {
  Text t;
  for (Text& p : parts) t += std::move(p);
  return t;
}

bool Text::empty() const {
  if (id_ == Msg::verbatim) return text_.empty();
  if (id_ != Msg::join) return false;
  return std::all_of(args_.begin(), args_.end(), [](const Text& a) { return a.empty(); });
}

void Text::check() const {
  const MessageTemplate* m = message_template(id_);
  if (!m) throw std::logic_error("Text: verbatim and join are made by Text::verbatim and Text::join");
  if (static_cast<int>(args_.size()) != m->arguments)
    throw std::logic_error(std::string("Text: message ") + m->key + " takes " + std::to_string(m->arguments) +
                           " arguments, given " + std::to_string(args_.size()));
}

bool has_verbatim_prose(const Text& t) {
  if (t.id() == Msg::verbatim) return prose(t.text());
  return std::any_of(t.args().begin(), t.args().end(), [](const Text& a) { return has_verbatim_prose(a); });
}

std::string Text::english() const {
  return render([](const MessageTemplate& m) { return m.english; });
}

std::string Text::concatenated(const std::vector<std::string>& parts) {
  std::string out;
  for (const std::string& p : parts) out += p;
  return out;
}

std::string Text::substituted(std::string_view templ, const std::vector<std::string>& parts) {
  std::string out;
  out.reserve(templ.size());
  for (size_t i = 0; i < templ.size(); ++i) {
    if (templ[i] == '%' && i + 1 < templ.size() && templ[i + 1] >= '1' && templ[i + 1] <= '9') {
      const size_t n = static_cast<size_t>(templ[++i] - '1');
      if (n < parts.size()) out += parts[n];
      continue;
    }
    out += templ[i];
  }
  return out;
}

Text& Text::operator+=(Text b) {
  if (b.empty()) return *this;
  if (empty()) return *this = std::move(b);
  std::vector<Text> parts;
  const auto add = [&parts](Text x) {
    if (x.id_ == Msg::join)
      for (Text& p : x.args_) parts.push_back(std::move(p));
    else
      parts.push_back(std::move(x));
  };
  add(std::move(*this));
  add(std::move(b));
  id_ = Msg::join;
  text_.clear();
  args_ = std::move(parts);
  return *this;
}

}  // namespace attnlab
