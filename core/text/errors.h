// Errors that reach the user. Each carries a message that names the option, file or tensor
// at fault and the rule it broke; the command line maps them to exit statuses.
#pragma once

#include <stdexcept>
#include <string>

namespace attnlab {

// A bad configuration or command line: exit status 2.
struct ConfigError : std::runtime_error {
  using std::runtime_error::runtime_error;
};

// Bad data or a runtime failure (unreadable/invalid file, budget exceeded): exit status 1.
struct DataError : std::runtime_error {
  using std::runtime_error::runtime_error;
};

// A tensor shape contract was violated; the message names both shapes.
struct ShapeError : std::logic_error {
  using std::logic_error::logic_error;
};

}  // namespace attnlab
