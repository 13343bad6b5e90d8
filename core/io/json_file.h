// Small JSON files beside a checkpoint (config.json, the shard index, tokenizer_config.json):
// whether one is there, and one read as an object under the trust rules of io/files.h (a regular
// file, size-checked), refusals naming the file.
#pragma once

#include <nlohmann/json.hpp>

#include <cstdint>
#include <filesystem>

#include "text/message.h"

namespace attnlab {

// Whether `p` names anything (a dangling link too: its reader then says what is wrong).
bool path_present(const std::filesystem::path& p);

// The file as a JSON object, at most max_bytes; DataError "`what`(path): is not valid JSON" or
// "… not a JSON object (array)" otherwise. `what` takes the path as %1.
nlohmann::json read_json_object(const std::filesystem::path& path, uint64_t max_bytes, Msg what);

}  // namespace attnlab
