#include "pretrained/hf_folder.h"

#include <filesystem>
#include <set>
#include <system_error>

#include "io/files.h"
#include "io/json_file.h"
#include "pretrained/shard_index.h"
#include "text/errors.h"

namespace attnlab::pretrained {

namespace {

namespace fs = std::filesystem;
constexpr uint64_t kMaxConfigBytes = 1024 * 1024;
constexpr uint64_t kMaxIndexBytes = 16 * 1024 * 1024;  // a 70-billion-parameter model's index is about 100 KB


// A config value as a message shows it: its JSON, cut to 60 bytes.
std::string shown(const nlohmann::json& v) {
  std::string s = v.dump(-1, ' ', false, nlohmann::json::error_handler_t::replace);
  return s.size() > 60 ? s.substr(0, 57) + "..." : s;
}

Text folder_prefix(const std::string& folder) { return Text(Msg::pt_model_folder, printable_name(folder)); }

void add_file(CheckpointTensors& out, const fs::path& path, const SkipTensor& skip,
              std::map<std::string, std::string>& origin_of) {
  SafetensorsFile f = read_safetensors(path.string(), skip, /*keep_16bit=*/true);
  const std::string file = path.filename().string();
  const auto add = [&](const std::string& name, StoredTensor t) {
    if (const auto it = origin_of.find(name); it != origin_of.end())
      throw DataError(Text(Msg::pt_checkpoint_file, printable_name(path.string())) +
                      Text(Msg::pt_tensor_twice, printable_name(name), printable_name(it->second), printable_name(file)));
    origin_of[name] = file;
    out.tensors.emplace(name, std::move(t));
  };
  for (auto& [name, t] : f.tensors) add(name, StoredTensor{.f32 = std::move(t), .half = {}});
  for (auto& [name, h] : f.halves) add(name, StoredTensor{.f32 = {}, .half = std::move(h)});
  out.files.push_back(path.string());
}

}  // namespace

StoredTensor StoredTensor::transpose() const {
  if (is_half()) return {.f32 = {}, .half = half.transpose()};
  return {.f32 = f32.transpose(0, 1).contiguous(), .half = {}};
}

void StoredTensor::set_into(Weights& w, const std::string& name) const {
  if (is_half())
    w.set(name, half);
  else
    w.set(name, f32);
}

nlohmann::json read_config(const std::string& folder) {
  std::error_code ec;
  if (!fs::is_directory(folder, ec)) throw DataError(Text(Msg::sw_folder_not_folder, printable_name(folder)));
  const fs::path config = fs::path(folder) / "config.json";
  if (!path_present(config)) throw DataError(folder_prefix(folder) + Text(Msg::pt_no_config));
  return read_json_object(config, kMaxConfigBytes, Msg::pt_config_file);
}

void require_weights_file(const std::string& folder) {
  const fs::path dir(folder);
  if (path_present(dir / "model.safetensors") || path_present(dir / "model.safetensors.index.json")) return;
  if (path_present(dir / "pytorch_model.bin") || path_present(dir / "pytorch_model.bin.index.json"))
    throw DataError(folder_prefix(folder) + Text(Msg::pt_only_pickle));
  throw DataError(folder_prefix(folder) + Text(Msg::pt_no_weights));
}

CheckpointTensors read_checkpoint_tensors(const std::string& folder, const SkipTensor& skip) {
  const fs::path dir(folder), single = dir / "model.safetensors", index = dir / "model.safetensors.index.json";
  CheckpointTensors out;
  std::map<std::string, std::string> origin_of;  // tensor → the file holding it
  require_weights_file(folder);
  if (path_present(single)) {
    add_file(out, single, skip, origin_of);
    return out;
  }
  const ShardIndex map = read_shard_index(index, kMaxIndexBytes);
  for (const auto& shard : std::set<std::string>(map.files.begin(), map.files.end()))  // name order
    add_file(out, dir / shard, skip, origin_of);
  for (const auto& [name, file] : map.placement) {
    const auto it = origin_of.find(name);
    const bool skipped = skip && skip(name);
    if (!skipped && (it == origin_of.end() || it->second != map.files[file]))
      throw DataError(Text(Msg::pt_shard_index_file, printable_name(index.string())) +
                      Text(Msg::pt_index_tensor_absent, printable_name(name), printable_name(map.files[file])));
  }
  return out;
}

int64_t config_count(const nlohmann::json& j, const char* key, int64_t fallback, const std::string& origin) {
  const auto it = j.find(key);
  if (it == j.end() || it->is_null()) return fallback;
  if (!it->is_number_integer() || it->get<int64_t>() < 1)
    throw DataError(Text(Msg::pt_config_file, printable_name(origin)) + Text(Msg::pt_field_not_count, key, shown(*it)));
  return it->get<int64_t>();
}

double config_positive(const nlohmann::json& j, const char* key, double fallback, const std::string& origin) {
  const auto it = j.find(key);
  if (it == j.end() || it->is_null()) return fallback;
  if (!it->is_number() || !(it->get<double>() > 0))
    throw DataError(Text(Msg::pt_config_file, printable_name(origin)) + Text(Msg::pt_field_not_positive, key, shown(*it)));
  return it->get<double>();
}

bool config_bool(const nlohmann::json& j, const char* key, bool fallback, const std::string& origin) {
  const auto it = j.find(key);
  if (it == j.end() || it->is_null()) return fallback;
  if (!it->is_boolean())
    throw DataError(Text(Msg::pt_config_file, printable_name(origin)) + Text(Msg::pt_field_not_bool, key, shown(*it)));
  return it->get<bool>();
}

std::string config_text(const nlohmann::json& j, const char* key, const std::string& fallback,
                        const std::string& origin) {
  const auto it = j.find(key);
  if (it == j.end() || it->is_null()) return fallback;
  if (!it->is_string())
    throw DataError(Text(Msg::pt_config_file, printable_name(origin)) + Text(Msg::pt_field_not_text, key, shown(*it)));
  return it->get<std::string>();
}

Activation config_activation(const nlohmann::json& j, const char* key, const std::string& fallback,
                             const std::string& origin) {
  const std::string name = config_text(j, key, fallback, origin);
  if (name == "gelu_new" || name == "gelu_pytorch_tanh") return Activation::GeluTanh;
  if (name == "gelu") return Activation::Gelu;
  if (name == "relu") return Activation::Relu;
  throw DataError(Text(Msg::pt_config_file, printable_name(origin)) +
                  Text(Msg::pt_activation_unsupported, key, printable_name(name)));
}

void config_require(const nlohmann::json& j, const char* key, bool published, const char* architecture,
                    const std::string& origin) {
  if (config_bool(j, key, published, origin) != published)
    throw DataError(Text(Msg::pt_config_file, printable_name(origin)) +
                    Text(Msg::pt_option_unsupported, key, published ? "false" : "true", published ? "true" : "false",
                         architecture));
}

}  // namespace attnlab::pretrained
