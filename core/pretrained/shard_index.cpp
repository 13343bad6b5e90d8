#include "pretrained/shard_index.h"

#include <nlohmann/json.hpp>

#include <optional>
#include <unordered_map>

#include "io/files.h"
#include "text/errors.h"

namespace attnlab::pretrained {

namespace {

using json = nlohmann::json;

// A shard's name as the index gives it: a plain .safetensors file name, never a path.
bool plain_shard_name(const std::string& name) {
  return !name.empty() && name.find('/') == std::string::npos && name.find('\\') == std::string::npos &&
         name != "." && name != ".." && name.ends_with(".safetensors") && name.find('\0') == std::string::npos;
}

// The events of nlohmann's streaming parser. Depth 1 is inside the top object; a `weight_map`
// object there opens depth 2, whose values must be shard names. Everything else only moves the
// depth. A refusal stops the parse at once (returning false), its Text kept for the caller.
class IndexReader : public json::json_sax_t {
 public:
  ShardIndex index;
  std::optional<Text> refusal;   // a value the map holds that is not a shard name
  const char* top_type = nullptr;  // the document's type when it is not an object
  bool invalid_json = false, saw_map = false;

  bool null() override { return scalar("null"); }
  bool boolean(bool v) override { return scalar(v ? "true" : "false"); }
  bool number_integer(number_integer_t v) override { return scalar(std::to_string(v), "number"); }
  bool number_unsigned(number_unsigned_t v) override { return scalar(std::to_string(v), "number"); }
  bool number_float(number_float_t, const string_t& s) override { return scalar(s, "number"); }
  bool binary(binary_t&) override { return scalar("<binary>", "binary"); }  // not in JSON text
  bool string(string_t& s) override {
    if (depth_ == 0) return top("string");
    if (!in_map_value()) return true;
    if (!plain_shard_name(s)) return refuse(s);
    const auto [it, fresh] = file_ids_.try_emplace(s, static_cast<uint32_t>(index.files.size()));
    if (fresh) index.files.push_back(s);
    index.placement.emplace_back(std::move(key_), it->second);
    return true;
  }
  bool start_object(std::size_t) override { return open(true); }
  bool start_array(std::size_t) override { return open(false); }
  bool end_object() override { return close(); }
  bool end_array() override { return close(); }
  bool key(string_t& k) override {
    if (depth_ == 1) map_next_ = k == "weight_map";
    else if (depth_ == 2 && in_map_) key_ = std::move(k);
    return true;
  }
  bool parse_error(std::size_t, const std::string&, const nlohmann::detail::exception&) override {
    invalid_json = true;
    return false;
  }

 private:
  int64_t depth_ = 0;
  bool in_map_ = false, map_next_ = false;  // inside weight_map; weight_map's value comes next
  std::string key_;
  std::unordered_map<std::string, uint32_t> file_ids_;

  bool in_map_value() const { return in_map_ && depth_ == 2; }
  bool top(const char* type) {
    top_type = type;
    return false;
  }
  bool refuse(const std::string& shown) {
    refusal = Text(Msg::pt_index_bad_shard_name, printable_name(key_), printable_name(shown));
    return false;
  }
  bool scalar(const std::string& shown, const char* type = nullptr) {
    if (depth_ == 0) return top(type ? type : (shown == "null" ? "null" : "boolean"));
    if (in_map_value()) return refuse(shown);
    map_next_ = false;  // "weight_map": 3 is no map
    return true;
  }
  bool open(bool object) {
    if (depth_ == 0 && !object) return top("array");
    if (in_map_value()) return refuse(object ? "{…}" : "[…]");
    ++depth_;
    if (depth_ == 2 && map_next_ && object) {
      in_map_ = saw_map = true;
    }
    map_next_ = false;
    return true;
  }
  bool close() {
    if (depth_ == 2) in_map_ = false;
    --depth_;
    return true;
  }
};

}  // namespace

ShardIndex read_shard_index(const std::filesystem::path& path, uint64_t max_bytes) {
  const Text at(Msg::pt_shard_index_file, printable_name(path.string()));
  IndexReader reader;
  {
    const std::string text = read_regular_file(path.string(), max_bytes, Msg::pt_shard_index_file);
    json::sax_parse(text, &reader);
  }
  if (reader.invalid_json) throw DataError(at + Text(Msg::ls_is_not_valid_json));
  if (reader.top_type) throw DataError(at + Text(Msg::json_not_object, reader.top_type));
  if (reader.refusal) throw DataError(at + *reader.refusal);
  if (!reader.saw_map) throw DataError(at + Text(Msg::pt_index_no_weight_map));
  return std::move(reader.index);
}

}  // namespace attnlab::pretrained
