// What kind of JSON value a field holds, in words ("an integer", "an array", …), for the
// refusals of the JSON files a user hands over (exercises, recorded training runs).
#pragma once

#include <nlohmann/json.hpp>

#include "text/message.h"

namespace attnlab {

inline Text json_kind(const nlohmann::json& v) {
  if (v.is_null()) return Text(Msg::ls_json_null);
  if (v.is_boolean()) return Text(Msg::ls_json_boolean);
  if (v.is_number_integer() || v.is_number_unsigned()) return Text(Msg::ls_json_integer);
  if (v.is_number()) return Text(Msg::ls_json_number);
  if (v.is_string()) return Text(Msg::ls_json_string);
  if (v.is_array()) return Text(Msg::ls_json_array);
  return Text(Msg::ls_json_object);
}

}  // namespace attnlab
