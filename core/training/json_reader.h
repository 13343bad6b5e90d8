// Reads the fields of the training lab's JSON records (run.json, a resume point's metadata): each
// refusal a DataError naming the file (`origin`) and the field's path, e.g. "curves[3].step".
#pragma once

#include <nlohmann/json.hpp>

#include <cstdint>
#include <string>

#include "io/json_kind.h"
#include "text/errors.h"

namespace attnlab {

struct JsonReader {
  using json = nlohmann::json;
  const std::string& origin;

  [[noreturn]] void fail(const std::string& field, Text why) const {
    throw DataError(Text(Msg::io_name_colon, origin) + Text(Msg::field_prefix, field) + std::move(why));
  }
  static Text kind(const json& v) { return json_kind(v); }
  static std::string name(const std::string& field, const std::string& key) { return field.empty() ? key : field + "." + key; }

  const json& at(const json& o, const std::string& key, const std::string& field) const {
    const auto it = o.find(key);
    if (it == o.end()) fail(field, Text(Msg::ls_expected_found, Text(Msg::ls_json_object), Text(Msg::ls_json_null)));
    return *it;
  }
  const json& want(const json& v, const std::string& field, bool ok, Msg expected) const {
    if (!ok) fail(field, Text(Msg::ls_expected_found, Text(expected), kind(v)));
    return v;
  }
  double number(const json& o, const std::string& key, const std::string& field) const {
    const json& v = at(o, key, name(field, key));
    return want(v, name(field, key), v.is_number(), Msg::ls_json_number).get<double>();
  }
  // A whole number 0 … 2^63 − 1.
  int64_t whole(const json& o, const std::string& key, const std::string& field) const {
    const json& v = at(o, key, name(field, key));
    want(v, name(field, key), v.is_number_integer() || v.is_number_unsigned(), Msg::ls_json_integer);
    if (v.is_number_unsigned() && v.get<uint64_t>() > uint64_t(INT64_MAX)) fail(name(field, key), Text(Msg::should_whole_number));
    const int64_t x = v.get<int64_t>();
    if (x < 0) fail(name(field, key), Text(Msg::should_whole_number));
    return x;
  }
  // A whole number 0 … 2^64 − 1 (a seed).
  uint64_t unsigned_whole(const json& o, const std::string& key, const std::string& field) const {
    const json& v = at(o, key, name(field, key));
    const bool ok = v.is_number_unsigned() || (v.is_number_integer() && v.get<int64_t>() >= 0);
    return want(v, name(field, key), ok, Msg::ls_json_integer).get<uint64_t>();
  }
  const std::string& string(const json& o, const std::string& key, const std::string& field) const {
    const json& v = at(o, key, name(field, key));
    return want(v, name(field, key), v.is_string(), Msg::ls_json_string).get_ref<const std::string&>();
  }
  const json& array(const json& o, const std::string& key, const std::string& field) const {
    const json& v = at(o, key, name(field, key));
    return want(v, name(field, key), v.is_array(), Msg::ls_json_array);
  }
  const json& object(const json& o, const std::string& key, const std::string& field) const {
    const json& v = at(o, key, name(field, key));
    return want(v, name(field, key), v.is_object(), Msg::ls_json_object);
  }
};

}  // namespace attnlab
