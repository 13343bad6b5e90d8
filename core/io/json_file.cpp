#include "io/json_file.h"

#include <system_error>

#include "io/files.h"
#include "text/errors.h"

namespace attnlab {

bool path_present(const std::filesystem::path& p) {
  std::error_code ec;
  return std::filesystem::exists(std::filesystem::symlink_status(p, ec)) && !ec;
}

nlohmann::json read_json_object(const std::filesystem::path& path, uint64_t max_bytes, Msg what) {
  const std::string text = read_regular_file(path.string(), max_bytes, what);
  const auto j = nlohmann::json::parse(text, nullptr, false);
  if (j.is_discarded() || !j.is_object())
    throw DataError(Text(what, printable_name(path.string())) +
                    (j.is_discarded() ? Text(Msg::ls_is_not_valid_json) : Text(Msg::json_not_object, j.type_name())));
  return j;
}

}  // namespace attnlab
