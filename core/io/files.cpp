// Reading the files a user hands the program (files.h): regular files only, size checked first.
#include "io/files.h"

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>

#include "text/errors.h"

namespace attnlab {

std::string printable_name(std::string_view name) {
  static constexpr char kHex[] = "0123456789abcdef";
  std::string out;
  out.reserve(name.size());
  for (char ch : name) {
    const auto c = static_cast<unsigned char>(ch);
    if (c == '\n') out += "\\n";
    else if (c == '\r') out += "\\r";
    else if (c == '\t') out += "\\t";
    else if (c == 0) out += "\\0";
    else if (c < 0x20 || c == 0x7f) {
      out += "\\x";
      out += kHex[c >> 4];
      out += kHex[c & 15];
    } else {
      out += ch;
    }
  }
  return out;
}

namespace {

// MiB with one decimal, rounded up (so that "over the limit" never reads as "16 MiB, over
// 16 MiB"), and no ".0" on whole numbers: "2.1 MiB", "5120 MiB".
std::string mib_text(uint64_t bytes) {
  const uint64_t tenths = (bytes * 10 + kMiB - 1) / kMiB;  // bytes ≤ 2^63 / 10 for any size stat() gives
  return std::to_string(tenths / 10) + (tenths % 10 ? "." + std::to_string(tenths % 10) : "") + " MiB";
}

// Why a stat()ed path is not a readable regular file of at most max_bytes, or an empty Text.
Text kind_problem(const struct stat& st, uint64_t max_bytes) {
  if (S_ISDIR(st.st_mode)) return Text(Msg::folder_not_file);
  if (S_ISFIFO(st.st_mode)) return Text(Msg::named_pipe_fifo_not_regular_file);
  if (S_ISCHR(st.st_mode) || S_ISBLK(st.st_mode)) return Text(Msg::device_not_regular_file);
  if (S_ISSOCK(st.st_mode)) return Text(Msg::socket_not_regular_file);
  if (!S_ISREG(st.st_mode)) return Text(Msg::not_regular_file);
  if (static_cast<uint64_t>(st.st_size) > max_bytes)
    return Text(Msg::larger_than_limit_such_file, mib_text(static_cast<uint64_t>(st.st_size)), mib_text(max_bytes));
  return Text();
}

Text errno_problem(int err) {
  switch (err) {
    case ENOENT: return Text(Msg::no_such_file);
    case ENOTDIR: return Text(Msg::part_path_not_folder);
    case ELOOP: return Text(Msg::too_many_symbolic_links_link_points_itself);
    case EACCES: return Text(Msg::permission_denied);
    case ENAMETOOLONG: return Text(Msg::name_too_long);
    default: return verbatim(std::strerror(err));  // the system's own words
  }
}

[[noreturn]] void refuse(Msg what, const std::string& path, Text why) {
  throw DataError(Text(what, printable_name(path)) + std::move(why));
}

}  // namespace

Text regular_file_problem(const std::string& path, uint64_t max_bytes) {
  if (path.empty()) return Text(Msg::no_file_name_given);
  if (path.find('\0') != std::string::npos) return Text(Msg::file_name_contains_nul_character);
  struct stat st {};
  if (::stat(path.c_str(), &st) != 0) return errno_problem(errno);
  return kind_problem(st, max_bytes);
}

RegularFileReader::RegularFileReader(const std::string& path, uint64_t max_bytes, Msg what) : path_(path), what_(what) {
  if (Text why = regular_file_problem(path, max_bytes); !why.empty()) refuse(what, path, std::move(why));
  // O_NONBLOCK: should the path have become a FIFO since the check, opening it does not wait
  // for a writer; fstat below refuses it.
  fd_ = ::open(path.c_str(), O_RDONLY | O_NONBLOCK | O_CLOEXEC | O_NOCTTY);
  if (fd_ < 0) {
    const int err = errno;  // before anything else may set it
    refuse(what, path, Text(Msg::cannot_open) + errno_problem(err));
  }
  struct stat st {};
  if (::fstat(fd_, &st) != 0) {
    const int err = errno;
    ::close(fd_);
    refuse(what, path, Text(Msg::cannot_read) + errno_problem(err));
  }
  if (Text why = kind_problem(st, max_bytes); !why.empty()) {
    ::close(fd_);
    refuse(what, path, std::move(why));
  }
  size_ = static_cast<uint64_t>(st.st_size);
  device_ = static_cast<uint64_t>(st.st_dev), inode_ = static_cast<uint64_t>(st.st_ino);
  modified_ns_ = static_cast<int64_t>(st.st_mtim.tv_sec) * 1'000'000'000 + st.st_mtim.tv_nsec;
  changed_ns_ = static_cast<int64_t>(st.st_ctim.tv_sec) * 1'000'000'000 + st.st_ctim.tv_nsec;
}

RegularFileReader::~RegularFileReader() { ::close(fd_); }

void RegularFileReader::read_at(uint64_t offset, size_t n, char* dst) const {
  size_t got = 0;
  while (got < n) {
    const ssize_t r = ::pread(fd_, dst + got, n - got, static_cast<off_t>(offset + got));
    if (r < 0 && errno == EINTR) continue;
    if (r < 0) {
      const int err = errno;
      refuse(what_, path_, Text(Msg::cannot_read) + errno_problem(err));
    }
    if (r == 0) refuse(what_, path_, Text(Msg::changed_while_being_read_try_again));
    got += static_cast<size_t>(r);
  }
}

void RegularFileReader::check_unchanged() const {
  // One byte past the end must not be there (a file that grew, or one such as /proc's whose
  // size says 0), and the size must still be the one checked.
  char probe = 0;
  ssize_t r = 0;
  do r = ::pread(fd_, &probe, 1, static_cast<off_t>(size_));
  while (r < 0 && errno == EINTR);
  struct stat st {};
  const bool same = r == 0 && ::fstat(fd_, &st) == 0 && static_cast<uint64_t>(st.st_size) == size_ &&
                    static_cast<uint64_t>(st.st_ino) == inode_ && static_cast<uint64_t>(st.st_dev) == device_ &&
                    static_cast<int64_t>(st.st_mtim.tv_sec) * 1'000'000'000 + st.st_mtim.tv_nsec == modified_ns_ &&
                    static_cast<int64_t>(st.st_ctim.tv_sec) * 1'000'000'000 + st.st_ctim.tv_nsec == changed_ns_;
  if (!same) refuse(what_, path_, Text(Msg::changed_while_being_read_try_again));
}

std::string read_regular_file(const std::string& path, uint64_t max_bytes, Msg what) {
  const RegularFileReader f(path, max_bytes, what);
  std::string bytes(f.size(), '\0');
  f.read_at(0, bytes.size(), bytes.data());
  f.check_unchanged();  // a file that grew while read is noticed
  return bytes;
}

}  // namespace attnlab
