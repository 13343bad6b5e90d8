// What core says to a person, as data: a message id from the catalogue and its arguments.
//
// The catalogue (text/messages/*.h, X-macro tables) holds each id's English template, its
// arguments written %1 … %9. english() renders a Text exactly as the command line and the manifest
// print it; the window renders the same Text with each template translated by its id
// (ui/words/coretext.h), so no part of the UI reads English back. An argument is either another
// Text (translated in its turn) or shown as it is: a file name, a field or tensor name, a number,
// an option, or a library's own words (verbatim).
//
//   throw ConfigError(Text(Msg::heads_do_not_divide_d_model, heads, d_model));
//   // "8 heads do not divide d_model 60"; zh: "8 个头不能整除 d_model 60"
#pragma once

#include <cstdint>
#include <memory>
#include <span>
#include <string>
#include <string_view>
#include <type_traits>
#include <vector>

// See message_tables.h for why the tables come in through a macro.
#define ATTNLAB_MESSAGE_TABLES "text/message_tables.h"

namespace attnlab {

#ifdef Q_MOC_RUN  // moc's preprocessor cannot expand the tables; it needs no ids
enum class Msg : uint16_t { verbatim, join };
#else
enum class Msg : uint16_t {
  verbatim,  // no template: the text itself
  join,      // the arguments one after the other (an empty join is the empty text)
#define ATTNLAB_MESSAGE(id, ...) id,
#include ATTNLAB_MESSAGE_TABLES
#undef ATTNLAB_MESSAGE
};
#endif

struct MessageTemplate {
  Msg id;
  const char* key;      // the id's name, e.g. "heads_do_not_divide_d_model"
  const char* context;  // the translation context, e.g. "ErrorText"
  const char* english;  // the English template with %1 … %9
  int arguments;        // how many arguments it takes (its highest %n)
};

// Every template, in enum order (verbatim and join have none).
std::span<const MessageTemplate> message_catalogue();
// The template of `id`; nullptr for verbatim and join.
const MessageTemplate* message_template(Msg id);

class Text {
 public:
  Text() : id_(Msg::join) {}
  // A catalogue message; each argument a Text, a string (shown as it is) or an integer.
  // Throws std::logic_error when the count differs from the template's (a programming error).
  template <typename... A>
  explicit Text(Msg id, A&&... args) : id_(id) {
    args_.reserve(sizeof...(A));
    (args_.push_back(arg(std::forward<A>(args))), ...);
    check();
  }

  static Text verbatim(std::string s);
  static Text join(std::vector<Text> parts);

  Msg id() const { return id_; }
  const std::string& text() const { return text_; }  // verbatim's text
  const std::vector<Text>& args() const { return args_; }
  bool empty() const;
  // This text, then b (a join's parts flattened: join + join is one join).
  Text& operator+=(Text b);

  std::string english() const;
  // Rendered with `templ` giving each catalogue message's template (English: e.english).
  template <typename Templ>
  std::string render(const Templ& templ) const {
    if (id_ == Msg::verbatim) return text_;
    std::vector<std::string> parts;
    parts.reserve(args_.size());
    for (const Text& a : args_) parts.push_back(a.render(templ));
    if (id_ == Msg::join) return concatenated(parts);
    return substituted(std::string_view(templ(*message_template(id_))), parts);
  }

 private:
  static Text arg(Text t) { return t; }
  static Text arg(std::string s) { return verbatim(std::move(s)); }
  static Text arg(std::string_view s) { return verbatim(std::string(s)); }
  static Text arg(const char* s) { return verbatim(s); }
  template <typename I>
    requires std::is_integral_v<std::remove_cvref_t<I>>
  static Text arg(I v) {
    return verbatim(std::to_string(v));
  }
  void check() const;
  static std::string concatenated(const std::vector<std::string>& parts);
  // %1 … %9 replaced by parts[0 … 8] in one pass (a part holding "%2" stays as it is).
  static std::string substituted(std::string_view templ, const std::vector<std::string>& parts);

  Msg id_;
  std::string text_;
  std::vector<Text> args_;
};

inline Text verbatim(std::string s) { return Text::verbatim(std::move(s)); }

// Whether some verbatim part of t holds English prose — two words of two or more ASCII letters
// in a row (option names such as "--d-model" aside) — which no translation would reach: the
// catalogue should hold such words. Maths, code, names and numbers are not prose.
bool has_verbatim_prose(const Text& t);
inline Text operator+(Text a, Text b) { return a += std::move(b); }

}  // namespace attnlab
