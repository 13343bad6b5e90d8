// Errors that reach the user. Each carries a Text (text/message.h): a catalogue message naming
// the option, file or tensor at fault and the rule it broke. what() is its English, as the
// command line prints it; the window translates text() by its ids. The command line maps the
// kinds to exit statuses. A string cannot make one: what a user reads goes through the catalogue.
#pragma once

#include <memory>
#include <stdexcept>
#include <string>

#include "text/message.h"

namespace attnlab {

class UserError : public std::runtime_error {
 public:
  explicit UserError(Text text)
      : std::runtime_error(text.english()), text_(std::make_shared<const Text>(std::move(text))) {}
  const Text& text() const { return *text_; }

 private:
  std::shared_ptr<const Text> text_;  // shared: an exception is copied when thrown
};

// A bad configuration or command line: exit status 2.
struct ConfigError : UserError {
  using UserError::UserError;
};

// Bad data or a runtime failure (unreadable/invalid file, budget exceeded): exit status 1.
struct DataError : UserError {
  using UserError::UserError;
};

// The Text of any exception: a UserError's own, else its what() as it is (a library's words).
inline Text text_of(const std::exception& e) {
  if (const auto* u = dynamic_cast<const UserError*>(&e)) return u->text();
  return verbatim(e.what());
}

// A tensor shape contract was violated, inside the program (never a user's input, which is
// checked before): the message names both shapes, in English, for a bug report.
struct ShapeError : std::logic_error {
  using std::logic_error::logic_error;
};

}  // namespace attnlab
