#include "io/npz.h"

#include <zip.h>

#include <algorithm>
#include <cstring>
#include <memory>

#include "io/files.h"
#include "text/errors.h"

namespace attnlab {

std::string npy_header(const Shape& shape) {
  std::string dims;
  for (size_t i = 0; i < shape.size(); ++i) dims += (i ? ", " : "") + std::to_string(shape[i]);
  if (shape.size() == 1) dims += ",";
  std::string dict = "{'descr': '<f4', 'fortran_order': False, 'shape': (" + dims + "), }";
  const size_t prefix = 10;  // magic (6) + version (2) + header length (2)
  const size_t total = ((prefix + dict.size() + 1 + 63) / 64) * 64;
  dict.append(total - prefix - dict.size() - 1, ' ');
  dict += '\n';
  std::string out = "\x93NUMPY";
  out += '\x01';
  out += '\x00';
  out += static_cast<char>(dict.size() & 0xFF);
  out += static_cast<char>((dict.size() >> 8) & 0xFF);
  return out + dict;
}

namespace {

// A libzip source that produces "header + elements in C order" on demand. libzip reads its
// sources one at a time while closing the archive, so a strided tensor is made contiguous only
// while its own entry is being written (one extra tensor at a time, not a copy of the trace).
struct NpySource {
  std::string header;
  Tensor tensor;
  Tensor dense;  // set between OPEN and CLOSE
  uint64_t pos = 0;
  uint64_t size() const { return header.size() + static_cast<uint64_t>(tensor.numel()) * 4; }

  zip_int64_t read(char* dst, uint64_t n) {
    n = std::min<uint64_t>(n, size() - pos);
    uint64_t done = 0;
    if (pos < header.size()) {
      done = std::min<uint64_t>(n, header.size() - pos);
      std::memcpy(dst, header.data() + pos, done);
    }
    if (done < n) {
      const auto* bytes = reinterpret_cast<const char*>(dense.data());
      std::memcpy(dst + done, bytes + (pos + done - header.size()), n - done);
    }
    pos += n;
    return static_cast<zip_int64_t>(n);
  }
};

zip_int64_t npy_callback(void* state, void* data, zip_uint64_t len, zip_source_cmd_t cmd) {
  auto* s = static_cast<NpySource*>(state);
  switch (cmd) {
    case ZIP_SOURCE_OPEN:
      s->pos = 0;
      s->dense = s->tensor.contiguous();
      return 0;
    case ZIP_SOURCE_READ: return s->read(static_cast<char*>(data), len);
    case ZIP_SOURCE_CLOSE:
      s->dense = Tensor();
      return 0;
    case ZIP_SOURCE_STAT: {
      auto* st = static_cast<zip_stat_t*>(data);
      zip_stat_init(st);
      st->size = s->size();
      st->valid |= ZIP_STAT_SIZE;
      return sizeof(zip_stat_t);
    }
    case ZIP_SOURCE_ERROR: return 2 * sizeof(int);
    case ZIP_SOURCE_FREE: delete s; return 0;
    case ZIP_SOURCE_SUPPORTS:
      return zip_source_make_command_bitmap(ZIP_SOURCE_OPEN, ZIP_SOURCE_READ, ZIP_SOURCE_CLOSE, ZIP_SOURCE_STAT,
                                            ZIP_SOURCE_ERROR, ZIP_SOURCE_FREE, -1);
    default: return -1;
  }
}

std::string zip_message(zip_t* z) { return z ? zip_strerror(z) : "unknown error"; }

}  // namespace

void write_npz(const std::string& path, const std::vector<std::pair<std::string, Tensor>>& arrays) {
  int err = 0;
  zip_t* z = zip_open(path.c_str(), ZIP_CREATE | ZIP_TRUNCATE, &err);
  if (!z) {
    zip_error_t ze;
    zip_error_init_with_code(&ze, err);
    const std::string msg = zip_error_strerror(&ze);
    zip_error_fini(&ze);
    throw DataError(Text(Msg::io_cannot_create, path) + verbatim(msg));  // libzip's own words
  }
  for (const auto& [name, t] : arrays) {
    auto* state = new NpySource{npy_header(t.shape()), t};
    zip_source_t* src = zip_source_function(z, npy_callback, state);
    if (!src) {
      delete state;
      const std::string msg = zip_message(z);
      zip_discard(z);
      throw DataError(Text(Msg::io_cannot_write, path) + verbatim(msg));
    }
    const zip_int64_t idx = zip_file_add(z, (name + ".npy").c_str(), src, ZIP_FL_ENC_UTF_8);
    if (idx < 0) {
      zip_source_free(src);
      const std::string msg = zip_message(z);
      zip_discard(z);
      throw DataError(Text(Msg::io_cannot_add_to, name, path) + verbatim(msg));
    }
    zip_set_file_compression(z, static_cast<zip_uint64_t>(idx), ZIP_CM_STORE, 0);
  }
  if (zip_close(z) != 0) {
    const std::string msg = zip_message(z);
    zip_discard(z);
    throw DataError(Text(Msg::io_cannot_write, path) + verbatim(msg));
  }
}

Tensor parse_npy(const std::string& name, const std::string& b) {
  if (b.size() < 10 || b.compare(0, 6, "\x93NUMPY") != 0) throw DataError(Text(Msg::io_npz_not_npy_array, name));
  const size_t hl = static_cast<unsigned char>(b[8]) | (static_cast<unsigned char>(b[9]) << 8);
  if (b[6] != 1 || 10 + hl > b.size()) throw DataError(Text(Msg::io_npz_unsupported_npy_header, name));
  const std::string h = b.substr(10, hl);
  // f4 as it is; f8, i4 and i8 converted to float (integers beyond ±2²⁴ rounded: token ids fit)
  const bool f8 = h.find("'<f8'") != std::string::npos, i4 = h.find("'<i4'") != std::string::npos,
             i8 = h.find("'<i8'") != std::string::npos;
  if ((!f8 && !i4 && !i8 && h.find("'<f4'") == std::string::npos) || h.find("'fortran_order': False") == std::string::npos)
    throw DataError(Text(Msg::io_npz_not_f4_f8_c_order, name));
  const size_t key = h.find("'shape'");
  const size_t open = key == std::string::npos ? key : h.find('(', key);
  const size_t close = open == std::string::npos ? open : h.find(')', open);
  if (close == std::string::npos) throw DataError(Text(Msg::io_npz_malformed_shape, name));
  Shape shape;
  for (size_t p = open + 1; p < close;) {
    while (p < close && (h[p] == ' ' || h[p] == ',')) ++p;
    if (p >= close) break;
    size_t q = p;
    while (q < close && std::isdigit(static_cast<unsigned char>(h[q]))) ++q;
    if (q == p || q - p > 15) throw DataError(Text(Msg::io_npz_malformed_shape, name));  // ≥ 10¹⁵: no array
    shape.push_back(std::stoll(h.substr(p, q - p)));
    p = q;
  }
  const size_t width = f8 || i8 ? 8 : 4, avail = (b.size() - 10 - hl) / width;
  size_t n = std::any_of(shape.begin(), shape.end(), [](int64_t d) { return d == 0; }) ? 0 : 1;
  for (int64_t d : shape)  // the element count, never past what the file holds (no overflow)
    if (n != 0 && static_cast<size_t>(d) > avail / n) throw DataError(Text(Msg::io_npz_data_does_not_match_shape, name));
    else n *= static_cast<size_t>(d);
  if (b.size() - 10 - hl != n * width) throw DataError(Text(Msg::io_npz_data_does_not_match_shape, name));
  Tensor t(shape);
  const char* src = b.data() + 10 + hl;
  for (size_t i = 0; i < n; ++i) {
    if (f8) {
      double d;
      std::memcpy(&d, src + 8 * i, 8);
      t.data()[i] = static_cast<float>(d);
    } else if (i8) {
      int64_t v;
      std::memcpy(&v, src + 8 * i, 8);
      t.data()[i] = static_cast<float>(v);
    } else if (i4) {
      int32_t v;
      std::memcpy(&v, src + 4 * i, 4);
      t.data()[i] = static_cast<float>(v);
    } else {
      std::memcpy(t.data() + i, src + 4 * i, 4);
    }
  }
  return t;
}

Tensor read_npy(const std::string& path, Msg what) {
  const std::string bytes = read_regular_file(path, kMaxNpyFileBytes, what);
  try {
    return parse_npy(printable_name(path), bytes);
  } catch (const DataError& e) {
    throw DataError(Text(what, printable_name(path)) + e.text());
  }
}

std::vector<std::pair<std::string, Tensor>> read_npz(const std::string& path) {
  int err = 0;
  std::unique_ptr<zip_t, decltype(&zip_discard)> z(zip_open(path.c_str(), ZIP_RDONLY, &err), &zip_discard);
  if (!z) throw DataError(Text(Msg::io_cannot_open_zip_archive, path));
  std::vector<std::pair<std::string, Tensor>> out;
  const zip_int64_t count = zip_get_num_entries(z.get(), 0);
  for (zip_int64_t i = 0; i < count; ++i) {
    zip_stat_t st;
    if (zip_stat_index(z.get(), static_cast<zip_uint64_t>(i), 0, &st) != 0) throw DataError(Text(Msg::io_npz_bad_entry));
    std::string name = st.name;
    std::string bytes(st.size, '\0');
    zip_file_t* f = zip_fopen_index(z.get(), static_cast<zip_uint64_t>(i), 0);
    if (!f) throw DataError(Text(Msg::io_npz_cannot_read, name));
    const zip_int64_t got = zip_fread(f, bytes.data(), st.size);
    zip_fclose(f);
    if (got != static_cast<zip_int64_t>(st.size)) throw DataError(Text(Msg::io_npz_short_read, name));
    if (name.ends_with(".npy")) name.resize(name.size() - 4);
    out.push_back({name, parse_npy(name, bytes)});
  }
  return out;
}

}  // namespace attnlab
