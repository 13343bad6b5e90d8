#include "io/safetensors.h"

#include <Eigen/Core>
#include <nlohmann/json.hpp>

#include <algorithm>
#include <bit>
#include <cstring>
#include <functional>
#include <limits>
#include <set>
#include <stdexcept>
#include <tuple>

#include "io/files.h"
#include "text/errors.h"

namespace attnlab {

namespace {

using json = nlohmann::json;
constexpr uint64_t kMaxHeader = 100u << 20;  // the reference implementation's limit

[[noreturn]] void fail(Text what) { throw DataError(Text(Msg::io_safetensors_prefix) + std::move(what)); }

uint64_t read_u64_le(const char* p) {
  uint64_t v = 0;
  for (int i = 7; i >= 0; --i) v = (v << 8) | static_cast<unsigned char>(p[i]);
  return v;
}

// Every dtype of the safetensors format, for tensors that are skipped, not read.
int any_dtype_width(const std::string& dtype, const std::string& name) {
  if (dtype == "F64" || dtype == "I64" || dtype == "U64") return 8;
  if (dtype == "F32" || dtype == "I32" || dtype == "U32") return 4;
  if (dtype == "F16" || dtype == "BF16" || dtype == "I16" || dtype == "U16") return 2;
  if (dtype == "I8" || dtype == "U8" || dtype == "BOOL" || dtype == "F8_E4M3" || dtype == "F8_E5M2") return 1;
  fail(Text(Msg::tensor_has_dtype_only_f32_f16_bf16, name, dtype));
}

int dtype_width(const std::string& dtype, const std::string& name) {
  if (dtype == "F32") return 4;
  if (dtype == "F16" || dtype == "BF16") return 2;
  fail(Text(Msg::tensor_has_dtype_only_f32_f16_bf16, name, dtype));
}

Shape parse_shape(const json& j, const std::string& name) {
  if (!j.is_array() || j.size() > 8) fail(Text(Msg::tensor_has_invalid_shape, name));
  Shape s;
  constexpr uint64_t kMaxElements = 1ull << 40;
  uint64_t n = 1;
  for (const auto& d : j) {
    if (!d.is_number_unsigned() || d.get<uint64_t>() > kMaxElements)
      fail(Text(Msg::tensor_has_invalid_dimension_shape, name));
    const uint64_t dim = d.get<uint64_t>();
    if (dim != 0 && n > kMaxElements / dim) fail(Text(Msg::tensor_impossibly_large, name));
    n *= dim;
    s.push_back(static_cast<int64_t>(dim));
  }
  return s;
}

// The header's JSON, as the reference reader takes it: UTF-8 text that starts with '{', padded at
// most with spaces, and no name twice in one object (nlohmann would keep the last silently).
json parse_header(std::string_view text) {
  if (text.find('\0') != std::string_view::npos)
    fail(Text(Msg::header_holds_nul_byte_padded_nuls_only));
  if (text.empty() || text[0] != '{') fail(Text(Msg::header_not_json_object_must_start));
  std::vector<std::set<std::string>> seen;  // the names of each object being read
  std::string duplicate;
  const json::parser_callback_t cb = [&](int, json::parse_event_t event, json& parsed) {
    if (event == json::parse_event_t::object_start) seen.emplace_back();
    else if (event == json::parse_event_t::object_end && !seen.empty()) seen.pop_back();
    else if (event == json::parse_event_t::key && !seen.empty() && !seen.back().insert(parsed.get<std::string>()).second &&
             duplicate.empty())
      duplicate = parsed.get<std::string>();
    return true;
  };
  json header = json::parse(text.begin(), text.end(), cb, /*allow_exceptions=*/false);
  if (header.is_discarded() || !header.is_object()) fail(Text(Msg::header_not_json_object));
  if (!duplicate.empty()) fail(Text(Msg::header_names_twice_name_may_appear_once, printable_name(duplicate)));
  return header;
}

// The data section's bytes [begin, begin + n) into dst: from memory, or read from the file.
using ReadData = std::function<void(uint64_t begin, size_t n, unsigned char* dst)>;

struct Entry {
  std::string name, dtype;
  Shape shape;
  uint64_t begin = 0, end = 0;
  int width = 0;
};

// Every check of the header against a data section of data_size bytes, in the order the reader
// has always made them; the tensors' entries (skipped ones left out) and the metadata.
std::vector<Entry> parse_entries(std::string_view header_text, uint64_t data_size, const SkipTensor& skip,
                                 std::map<std::string, std::string>& metadata) {
  const json header = parse_header(header_text);
  std::vector<Entry> out;
  std::vector<std::tuple<uint64_t, uint64_t, std::string>> ranges;
  for (const auto& [name, entry] : header.items()) {
    if (name == "__metadata__") {
      if (!entry.is_object()) fail(Text(Msg::metadata_not_object_strings));
      for (const auto& [k, v] : entry.items()) {
        if (!v.is_string()) fail(Text(Msg::metadata_value_not_string, k));
        metadata[k] = v.get<std::string>();
      }
      continue;
    }
    if (!entry.is_object() || !entry.contains("dtype") || !entry.contains("shape") || !entry.contains("data_offsets") ||
        !entry["dtype"].is_string())
      fail(Text(Msg::tensor_lacks_dtype_shape_data_offsets, name));
    Entry e{.name = name, .dtype = entry["dtype"].get<std::string>()};
    const bool skipped = skip && skip(name);
    e.width = skipped ? any_dtype_width(e.dtype, name) : dtype_width(e.dtype, name);
    e.shape = parse_shape(entry["shape"], name);
    const json& off = entry["data_offsets"];
    if (!off.is_array() || off.size() != 2 || !off[0].is_number_unsigned() || !off[1].is_number_unsigned())
      fail(Text(Msg::tensor_has_invalid_data_offsets, name));
    e.begin = off[0].get<uint64_t>(), e.end = off[1].get<uint64_t>();
    if (e.begin > e.end || e.end > data_size)
      fail(Text(Msg::tensor_has_data_offsets_outside_data_bytes, name, e.begin, e.end, data_size));
    const uint64_t count = static_cast<uint64_t>(numel_of(e.shape));
    if (e.end - e.begin != count * static_cast<uint64_t>(e.width))
      fail(Text(Msg::tensor_shape_needs_bytes_but_data_offsets_span, name, shape_str(e.shape), count * e.width,
                e.end - e.begin));
    ranges.emplace_back(e.begin, e.end, name);
    if (!skipped) out.push_back(std::move(e));
  }
  // The data is the tensors end to end, as the reference writer lays it out and its reader
  // demands: no overlap, no gap, nothing after the last one.
  std::sort(ranges.begin(), ranges.end());
  uint64_t covered = 0;
  for (size_t i = 0; i < ranges.size(); ++i) {
    const auto& [begin, end, name] = ranges[i];
    if (begin < covered)
      fail(Text(Msg::tensors_overlap_data_offsets, std::get<2>(ranges[i - 1]), name));
    if (begin > covered)
      fail(Text(Msg::data_bytes_before_tensor_belong_no_tensor, covered, begin, name));
    covered = end;
  }
  if (covered != data_size)
    fail(Text(Msg::file_has_bytes_after_last_tensor_belong, data_size - covered));
  return out;
}

static_assert(std::endian::native == std::endian::little, "little-endian host expected: the format is");

// An entry's bytes, as the file stores them, into dst, read in pieces of at most `piece` bytes.
void read_entry(const Entry& e, const ReadData& read, size_t piece, void* dst) {
  auto* out = static_cast<unsigned char*>(dst);
  for (uint64_t at = e.begin; at < e.end;) {
    const size_t n = static_cast<size_t>(std::min<uint64_t>(piece, e.end - at));
    read(at, n, out + (at - e.begin));
    at += n;
  }
}

HalfTensor read_half(const Entry& e, const ReadData& read, size_t piece) {
  auto bits = std::make_shared<std::vector<uint16_t>>(static_cast<size_t>(numel_of(e.shape)));
  read_entry(e, read, piece, bits->data());
  return HalfTensor{.format = e.dtype == "F16" ? HalfTensor::Format::F16 : HalfTensor::Format::BF16,
                    .shape = e.shape, .transposed = false, .bits = std::move(bits)};
}

// Each entry read in pieces of at most 16 MiB (the peak is the tensors themselves, never the file
// beside them): F32 straight into its tensor, F16 / BF16 kept as stored (keep_16bit) or widened
// exactly by HalfTensor::widen (tensor/row_kernels.h), one tensor at a time.
SafetensorsFile decode_entries(std::vector<Entry> entries, std::map<std::string, std::string> metadata,
                               const ReadData& read, bool keep_16bit) {
  constexpr size_t kPiece = 16u << 20;
  SafetensorsFile out;
  out.metadata = std::move(metadata);
  for (auto& e : entries) {
    if (e.width == 4) {
      Tensor t = Tensor::empty(e.shape);
      read_entry(e, read, kPiece, t.data());
      out.tensors.push_back({e.name, std::move(t)});
    } else if (keep_16bit) {
      out.halves.push_back({e.name, read_half(e, read, kPiece)});
    } else {
      out.tensors.push_back({e.name, read_half(e, read, kPiece).widen()});
    }
  }
  return out;
}

}  // namespace

SafetensorsFile parse_safetensors(const std::string& bytes, const SkipTensor& skip) {
  if (bytes.size() < 8) fail(Text(Msg::file_shorter_than_byte_header_length));
  const uint64_t n = read_u64_le(bytes.data());
  if (n > kMaxHeader || n > bytes.size() - 8)
    fail(Text(Msg::header_length_runs_past_end_file_bytes, n, bytes.size()));
  std::map<std::string, std::string> metadata;
  auto entries = parse_entries(std::string_view(bytes).substr(8, n), bytes.size() - 8 - n, skip, metadata);
  const char* data = bytes.data() + 8 + n;
  return decode_entries(std::move(entries), std::move(metadata),
                        [data](uint64_t begin, size_t len, unsigned char* dst) { std::memcpy(dst, data + begin, len); },
                        false);
}

SafetensorsFile read_safetensors(const std::string& path, const SkipTensor& skip, bool keep_16bit) {
  const RegularFileReader f(path, kMaxWeightsFileBytes, Msg::weights_file);  // its refusals name the file
  const auto named = [&path](const std::function<void()>& check) {  // the format's refusals: named here
    try {
      check();
    } catch (const DataError& e) {
      throw DataError(Text(Msg::io_name_colon, printable_name(path)) + e.text());
    }
  };
  named([&] {
    if (f.size() < 8) fail(Text(Msg::file_shorter_than_byte_header_length));
  });
  char len[8];
  f.read_at(0, 8, len);
  const uint64_t n = read_u64_le(len);
  named([&] {
    if (n > kMaxHeader || n > f.size() - 8) fail(Text(Msg::header_length_runs_past_end_file_bytes, n, f.size()));
  });
  std::string header(n, '\0');
  f.read_at(8, n, header.data());
  std::map<std::string, std::string> metadata;
  std::vector<Entry> entries;
  named([&] { entries = parse_entries(header, f.size() - 8 - n, skip, metadata); });
  auto out = decode_entries(std::move(entries), std::move(metadata), [&f, n](uint64_t begin, size_t len, unsigned char* dst) {
    f.read_at(8 + n + begin, len, reinterpret_cast<char*>(dst));
  }, keep_16bit);
  f.check_unchanged();
  return out;
}

std::string serialize_safetensors(const std::vector<std::pair<std::string, Tensor>>& tensors,
                                  const std::map<std::string, std::string>& metadata, bool f16) {
  std::vector<std::pair<std::string, Shape>> shapes;
  for (const auto& [name, t] : tensors) shapes.push_back({name, t.shape()});
  return serialize_safetensors(shapes, [&tensors](size_t k) { return tensors[k].second; }, metadata, f16);
}

std::string serialize_safetensors(const std::vector<std::pair<std::string, Shape>>& shapes,
                                  const std::function<Tensor(size_t k)>& tensor,
                                  const std::map<std::string, std::string>& metadata, bool f16) {
  const uint64_t width = f16 ? 2 : 4;
  std::vector<size_t> sorted(shapes.size());
  for (size_t k = 0; k < sorted.size(); ++k) sorted[k] = k;
  std::sort(sorted.begin(), sorted.end(), [&](size_t a, size_t b) { return shapes[a].first < shapes[b].first; });
  json header = json::object();
  if (!metadata.empty()) header["__metadata__"] = metadata;
  uint64_t offset = 0;
  for (const size_t k : sorted) {
    const uint64_t bytes = static_cast<uint64_t>(numel_of(shapes[k].second)) * width;
    header[shapes[k].first] = {{"dtype", f16 ? "F16" : "F32"}, {"shape", shapes[k].second}, {"data_offsets", {offset, offset + bytes}}};
    offset += bytes;
  }
  std::string h = header.dump();
  h.append((8 - h.size() % 8) % 8, ' ');  // align the data to 8 bytes, as the reference writer does
  std::string out(8, '\0');
  for (int i = 0; i < 8; ++i) out[i] = static_cast<char>((h.size() >> (8 * i)) & 0xFF);
  out += h;
  out.reserve(out.size() + offset);
  for (const size_t k : sorted) {
    const Tensor t = tensor(k);
    if (t.shape() != shapes[k].second) throw std::logic_error("serialize_safetensors: a tensor is not the shape its header says");
    const auto v = t.to_vector();
    if (!f16) {
      out.append(reinterpret_cast<const char*>(v.data()), v.size() * 4);
      continue;
    }
    for (float x : v) {
      const auto bits = std::bit_cast<uint16_t>(Eigen::half(x));
      out.push_back(static_cast<char>(bits & 0xFF));
      out.push_back(static_cast<char>(bits >> 8));
    }
  }
  return out;
}

}  // namespace attnlab
