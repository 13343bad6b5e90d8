// Writing a folder without risking the user's (files.h): exclusive temporaries marked as ours,
// atomic moves that never replace, the sweep of a dead process's temporaries, and their removal
// on a signal.
#include <dirent.h>
#include <fcntl.h>
#include <limits.h>
#include <signal.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <unistd.h>

#include <nlohmann/json.hpp>

#include <atomic>
#include <cerrno>
#include <charconv>
#include <cstdio>
#include <cstring>
#include <fstream>
#include <mutex>
#include <random>

#include "io/files.h"
#include "text/errors.h"

namespace attnlab {

namespace fs = std::filesystem;

namespace {

constexpr char kMarker[] = ".attnlab-temporary";  // inside a temporary: "pid START\n"

// The start time of process `pid` in clock ticks since boot (field 22 of /proc/PID/stat), or -1.
long long process_start(pid_t pid) {
  std::ifstream f("/proc/" + std::to_string(pid) + "/stat");
  std::string stat;
  if (!std::getline(f, stat)) return -1;
  const size_t paren = stat.rfind(')');  // the command name may hold spaces and parentheses
  if (paren == std::string::npos) return -1;
  size_t pos = paren + 2;
  for (int field = 3; field < 22; ++field) {
    pos = stat.find(' ', pos);
    if (pos == std::string::npos) return -1;
    ++pos;
  }
  long long start = -1;
  std::from_chars(stat.data() + pos, stat.data() + stat.size(), start);
  return start;
}

// ---- the temporaries of this process, removed on a signal -------------------------------------
// A fixed table of paths: the handler may read it at any moment, so slots are filled before they
// are published and never reallocated.
constexpr int kSlots = 32;
struct Slot {
  char path[PATH_MAX];
  std::atomic<bool> used{false};
};
Slot g_slots[kSlots];
std::mutex g_slots_mutex;  // between threads that register; never taken by the handler

int register_temp(const fs::path& p) {
  const std::string s = p.string();
  if (s.size() >= PATH_MAX) return -1;
  std::lock_guard lock(g_slots_mutex);
  for (int i = 0; i < kSlots; ++i)
    if (!g_slots[i].used.load()) {
      std::memcpy(g_slots[i].path, s.c_str(), s.size() + 1);
      g_slots[i].used.store(true);
      return i;
    }
  return -1;  // more than 32 at once: the next export's sweep removes it after a kill
}

void unregister_temp(int slot) {
  if (slot >= 0) g_slots[slot].used.store(false);
}

// Async-signal-safe removal of a folder tree (openat, getdents64, unlinkat only), depth-limited.
void remove_tree_in_handler(int parent_fd, const char* name, int depth) {
  if (depth > 8) return;
  const int fd = ::openat(parent_fd, name, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
  if (fd >= 0) {
    alignas(8) char buf[4096];
    for (;;) {
      const long n = ::syscall(SYS_getdents64, fd, buf, sizeof buf);
      if (n <= 0) break;
      for (long off = 0; off < n;) {
        struct Entry {
          uint64_t ino;
          int64_t off;
          unsigned short reclen;
          unsigned char type;
          char name[1];
        };
        const auto* e = reinterpret_cast<const Entry*>(buf + off);
        off += e->reclen;
        if (std::strcmp(e->name, ".") == 0 || std::strcmp(e->name, "..") == 0) continue;
        if (e->type == DT_DIR) remove_tree_in_handler(fd, e->name, depth + 1);
        else ::unlinkat(fd, e->name, 0);
      }
    }
    ::close(fd);
  }
  ::unlinkat(parent_fd, name, AT_REMOVEDIR);
}

extern "C" void cleanup_and_reraise(int sig) {
  const int saved = errno;
  for (auto& slot : g_slots)
    if (slot.used.load()) remove_tree_in_handler(AT_FDCWD, slot.path, 0);
  errno = saved;
  ::signal(sig, SIG_DFL);
  ::raise(sig);
}

// ".NAME.tmp-PID-N" → PID, for the tags we make; 0 when the name is not one of ours.
pid_t temp_owner(const std::string& name) {
  if (name.size() < 2 || name[0] != '.') return 0;
  for (const char* tag : {".tmp-", ".old-"}) {
    const size_t at = name.rfind(tag);
    if (at == std::string::npos || at == 0) continue;
    const char* p = name.data() + at + 5;
    const char* end = name.data() + name.size();
    long long pid = 0, n = 0;
    auto r = std::from_chars(p, end, pid);
    if (r.ec != std::errc() || r.ptr == end || *r.ptr != '-' || pid <= 0 || pid > INT_MAX) continue;
    r = std::from_chars(r.ptr + 1, end, n);
    if (r.ec != std::errc() || r.ptr != end || n < 0) continue;
    return static_cast<pid_t>(pid);
  }
  return 0;
}

// The marker says which process made the folder and when it started; a folder is ours when it
// holds the marker, an Attention Lab manifest (a bundle moved aside or not yet in place), or nothing.
bool looks_like_ours(const fs::path& dir, long long* marker_start) {
  std::error_code ec;
  if (fs::is_symlink(dir, ec) || !fs::is_directory(dir, ec)) return false;
  if (regular_file_problem((dir / kMarker).string(), 4096).empty()) {
    std::ifstream f(dir / kMarker);
    long long pid = 0, start = -1;
    f >> pid >> start;
    *marker_start = start;
    return true;
  }
  if (fs::is_empty(dir, ec) && !ec) return true;
  return is_bundle_folder(dir.string());
}

bool process_dead(pid_t pid, long long marker_start) {
  if (pid == ::getpid()) return false;
  if (::kill(pid, 0) != 0 && errno == ESRCH) return true;
  if (marker_start < 0) return false;  // alive, or not ours to judge
  const long long now = process_start(pid);
  return now >= 0 && now != marker_start;  // the PID belongs to another process now
}

// ".NAME<tag>PID-N" beside target, N random.
fs::path sibling_name(const fs::path& target, std::string_view tag) {
  static std::atomic<unsigned> counter{0};
  std::random_device rd;
  std::string name = ".";  // appended piecewise: GCC 12 -O3 gives a false -Wrestrict on "x" + string&&
  name += target.filename().string();
  name += tag;
  name += std::to_string(::getpid()) + '-' + std::to_string((rd() + counter++) % 1000000);
  return target.parent_path() / name;
}

}  // namespace

bool is_bundle_folder(const std::string& dir) {
  const std::string manifest = (fs::path(dir) / "manifest.json").string();
  if (!regular_file_problem(manifest, kMaxManifestBytes).empty()) return false;
  try {
    const auto m = nlohmann::json::parse(read_regular_file(manifest, kMaxManifestBytes, Msg::io_manifest_file), nullptr, false);
    return m.is_object() && m.value("format", nlohmann::json()) == "attnlab-trace";
  } catch (const DataError&) {
    return false;
  }
}

TempDir::TempDir(const fs::path& target, std::string_view tag) {
  for (int attempt = 0; attempt < 16; ++attempt) {
    const fs::path p = sibling_name(target, tag);
    // Registered before it exists: a signal from the mkdir on removes it (registered after, a
    // signal between the two left the folder behind — the test that interrupts as soon as the
    // folder appears caught it on a busy machine). The name carries our PID: an existing one is
    // a dead namesake's or our own.
    slot_ = register_temp(p);
    if (::mkdir(p.c_str(), 0755) == 0) {
      path_ = p;
      break;
    }
    const int err = errno;
    unregister_temp(slot_);
    if (err != EEXIST)
      throw DataError(Text(Msg::io_cannot_create_folder_beside, printable_name(target.string())) +
                      verbatim(std::strerror(err)));
  }
  if (path_.empty()) throw DataError(Text(Msg::io_cannot_create_folder_beside_no_reason, printable_name(target.string())));
  std::ofstream m(path_ / kMarker);
  m << ::getpid() << ' ' << process_start(::getpid()) << '\n';
}

TempDir::~TempDir() {
  if (released_) return;
  std::error_code ec;
  fs::remove_all(path_, ec);
  unregister_temp(slot_);
}

void TempDir::release() {
  if (released_) return;
  unregister_temp(slot_);
  released_ = true;
}

void TempDir::remove_marker() {
  std::error_code ec;
  fs::remove(path_ / kMarker, ec);
}

size_t max_output_name_bytes() {
  // NAME_MAX minus ".", ".tmp-", a PID of up to 10 digits, "-" and up to 6 digits.
  return NAME_MAX - (1 + 5 + 10 + 1 + 6);
}

void move_into_place(const fs::path& tmp, const fs::path& target) {
  if (::renameat2(AT_FDCWD, tmp.c_str(), AT_FDCWD, target.c_str(), RENAME_NOREPLACE) == 0) return;
  int err = errno;
  if (err == EINVAL || err == ENOSYS || err == ENOTSUP) {  // no RENAME_NOREPLACE here: claim the name
    if (::mkdir(target.c_str(), 0755) != 0) {
      err = errno;
    } else if (::rename(tmp.c_str(), target.c_str()) == 0) {  // over our own empty folder only
      return;
    } else {
      err = errno;
      ::rmdir(target.c_str());
    }
  }
  if (err == EEXIST || err == ENOTEMPTY)
    throw ConfigError(Text(Msg::out_appeared_while_export_ran_another_export, printable_name(target.string())));
  throw DataError(Text(Msg::cannot_move_bundle_into, printable_name(target.string())) + verbatim(std::strerror(err)));
}

void move_file_into_place(const fs::path& from, const fs::path& to) {
  int err = 0;
  if (::renameat2(AT_FDCWD, from.c_str(), AT_FDCWD, to.c_str(), RENAME_NOREPLACE) == 0) return;
  err = errno;
  if (err == EINVAL || err == ENOSYS || err == ENOTSUP) {  // link() refuses an existing name atomically
    if (::link(from.c_str(), to.c_str()) == 0) {
      ::unlink(from.c_str());
      return;
    }
    err = errno;
  }
  if (err == EEXIST) throw ConfigError(Text(Msg::exists_already_nothing_was_replaced, printable_name(to.string())));
  throw DataError(Text(Msg::io_cannot_move_file_into, printable_name(to.string())) + verbatim(std::strerror(err)));
}

bool is_empty_folder(const fs::path& path) {
  std::error_code ec;
  const auto link = fs::symlink_status(path, ec);
  return !ec && fs::is_directory(link) && !fs::is_symlink(link) && fs::is_empty(path, ec) && !ec;
}

void move_folder_into_place(TempDir& tmp, const fs::path& target, const std::function<bool(const std::string&)>& ours,
                            Msg changed) {
  std::error_code ec;
  const auto link = fs::symlink_status(target, ec);
  if (is_empty_folder(target)) {
    ::rmdir(target.c_str());  // an empty folder only (rmdir refuses anything else); then as new
  } else if (fs::exists(link) && !fs::is_symlink(link) && ours && ours(target.string())) {
    tmp.remove_marker();
    exchange_into_place(tmp.path(), target);
    if (!ours(tmp.path().string())) {  // something else took its place meanwhile: put it back
      exchange_into_place(tmp.path(), target);
      throw ConfigError(Text(changed, printable_name(target.string())));
    }
    return;  // tmp now holds the earlier folder: its destructor removes it
  }
  tmp.remove_marker();
  move_into_place(tmp.path(), target);
  tmp.release();
}

void write_file_atomically(const fs::path& target, std::string_view bytes, bool replace, Msg failure) {
  const fs::path tmp = target.parent_path() / ("." + target.filename().string() + ".tmp-" + std::to_string(::getpid()));
  std::error_code ec;
  {
    std::ofstream f(tmp, std::ios::binary | std::ios::trunc);
    f.write(bytes.data(), static_cast<std::streamsize>(bytes.size()));
    f.close();
    if (!f) {
      fs::remove(tmp, ec);
      throw DataError(Text(failure, printable_name(target.string())));
    }
  }
  if (replace) {
    fs::rename(tmp, target, ec);
    if (!ec) return;
    fs::remove(tmp, ec);
    throw DataError(Text(failure, printable_name(target.string())));
  }
  try {
    move_file_into_place(tmp, target);
  } catch (...) {
    fs::remove(tmp, ec);
    throw;
  }
}

void exchange_into_place(const fs::path& tmp, const fs::path& target) {
  if (::renameat2(AT_FDCWD, tmp.c_str(), AT_FDCWD, target.c_str(), RENAME_EXCHANGE) == 0) return;
  const int err = errno;
  if (err != EINVAL && err != ENOSYS && err != ENOTSUP)
    throw DataError(Text(Msg::cannot_move_bundle_into, printable_name(target.string())) + verbatim(std::strerror(err)));
  // No RENAME_EXCHANGE on this file system: the old folder aside under a name of ours (not
  // registered: a signal now must not remove the only copy), the new one in its place, then the
  // old one where the caller expects it.
  fs::path old;
  std::error_code ec;
  for (int attempt = 0; attempt < 16 && (old.empty() || fs::exists(old, ec)); ++attempt)
    old = sibling_name(target, ".old-");
  if (::rename(target.c_str(), old.c_str()) != 0) {
    const int e = errno;
    throw DataError(Text(Msg::io_cannot_move_aside, printable_name(target.string())) + verbatim(std::strerror(e)));
  }
  if (::rename(tmp.c_str(), target.c_str()) != 0) {
    const int e = errno;
    ::rename(old.c_str(), target.c_str());
    throw DataError(Text(Msg::cannot_move_bundle_into, printable_name(target.string())) + verbatim(std::strerror(e)));
  }
  if (::rename(old.c_str(), tmp.c_str()) != 0) fs::remove_all(old, ec);
}

int sweep_dead_temporaries(const fs::path& parent) {
  int removed = 0;
  std::error_code ec;
  for (fs::directory_iterator it(parent, ec), end; !ec && it != end; it.increment(ec)) {
    const std::string name = it->path().filename().string();
    const pid_t pid = temp_owner(name);
    long long start = -1;
    if (pid == 0 || !looks_like_ours(it->path(), &start) || !process_dead(pid, start)) continue;
    std::error_code rm;
    if (fs::remove_all(it->path(), rm) > 0 && !rm) ++removed;
  }
  return removed;
}

void install_cleanup_on_signals() {
  static bool installed = false;
  if (installed) return;
  installed = true;
  struct sigaction sa {};
  sa.sa_handler = cleanup_and_reraise;
  sigemptyset(&sa.sa_mask);
  for (int sig : {SIGINT, SIGTERM, SIGHUP}) {
    struct sigaction old {};
    if (::sigaction(sig, nullptr, &old) == 0 && old.sa_handler == SIG_IGN) continue;  // nohup: stays ignored
    ::sigaction(sig, &sa, nullptr);
  }
}

}  // namespace attnlab
