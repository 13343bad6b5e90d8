// Files a user hands the program, and folders it writes: the one place that touches either.
//
// Reading: only a regular file is read, and only after its size is checked against a limit —
// a FIFO, a device (/dev/zero), a folder or a symbolic-link loop is refused with a message that
// names the file (never a hang, never reading until memory runs out).
//
// Writing a folder: everything goes into a temporary sibling (".NAME.tmp-PID-N", marked as
// ours), which is moved into place in one atomic step that never replaces what it did not
// create. Temporaries of a process that was killed are swept by the next write into the same
// parent folder — only those whose process is dead, only those that are ours. SIGINT, SIGTERM
// and SIGHUP remove the temporaries of the running process before it ends.
#pragma once

#include <cstdint>
#include <filesystem>
#include <functional>
#include <string>
#include <string_view>

#include "text/message.h"

namespace attnlab {

// Size limits, checked before a byte is read.
inline constexpr uint64_t kMiB = 1024 * 1024;
inline constexpr uint64_t kMaxWeightsFileBytes = 4096 * kMiB;  // a GPT-2 large checkpoint is about 3.1 GB
inline constexpr uint64_t kMaxSessionFileBytes = 24 * kMiB;    // sessions are at most 16 MiB when saved
inline constexpr uint64_t kMaxExerciseFileBytes = 1 * kMiB;
inline constexpr uint64_t kMaxTextFileBytes = 16 * kMiB;
inline constexpr uint64_t kMaxNpyFileBytes = 1024 * kMiB;  // a loss target: (B, S, D) floats
inline constexpr uint64_t kMaxManifestBytes = 256 * kMiB;

// A name as it may appear inside a one-line message: control characters (newline, NUL, ESC …)
// written as \n, \0, \x1b; everything else, UTF-8 included, as it is.
std::string printable_name(std::string_view name);

// The whole of a regular file. Throws DataError "<what> '<path>': <why>" when the path is empty,
// missing, unreadable, not a regular file (folder, FIFO, device, socket), a symbolic-link loop,
// larger than max_bytes, or changes size while being read. `what` is the message that names the
// file, a template of one argument (the path), e.g. Msg::weights_file ("weights file '%1': ").
std::string read_regular_file(const std::string& path, uint64_t max_bytes, Msg what);

// A regular file read piece by piece (a checkpoint's tensors one at a time, never the whole file
// in memory): opened and checked as read_regular_file checks; read_at refuses a read that finds
// the file shorter than it was (changed while being read) with the same messages.
class RegularFileReader {
 public:
  RegularFileReader(const std::string& path, uint64_t max_bytes, Msg what);
  ~RegularFileReader();
  RegularFileReader(const RegularFileReader&) = delete;
  RegularFileReader& operator=(const RegularFileReader&) = delete;
  uint64_t size() const { return size_; }
  // n bytes from `offset` into dst; offset + n must be within size().
  void read_at(uint64_t offset, size_t n, char* dst) const;
  // DataError when the file is no longer what was opened (its size, inode or modification and
  // change times differ: it was rewritten or replaced while being read).
  void check_unchanged() const;

 private:
  std::string path_;
  Msg what_;
  int fd_ = -1;
  uint64_t size_ = 0;
  uint64_t device_ = 0, inode_ = 0;
  int64_t modified_ns_ = 0, changed_ns_ = 0;  // st_mtim, st_ctim at opening
};

// Why `path` cannot be read as a regular file, or an empty Text when it can (the checks of
// read_regular_file, without reading; for lists that show broken entries instead of failing).
Text regular_file_problem(const std::string& path, uint64_t max_bytes);

// A temporary folder beside `target` (".NAME<tag>PID-N"), created exclusively, holding a marker
// that names this process; removed on a signal until released. `tag` is ".tmp-" or ".old-".
// Throws DataError naming the parent folder when it cannot be made.
class TempDir {
 public:
  TempDir(const std::filesystem::path& target, std::string_view tag);
  ~TempDir();  // removes the folder unless release()d
  TempDir(const TempDir&) = delete;
  TempDir& operator=(const TempDir&) = delete;
  const std::filesystem::path& path() const { return path_; }
  // Drops the marker, just before the folder is moved into place: from then on only the
  // manifest it holds makes it a temporary the sweep may remove.
  void remove_marker();
  // The folder has been moved into place and is the user's now: neither the destructor nor a
  // signal removes anything under this path.
  void release();

 private:
  std::filesystem::path path_;
  int slot_ = -1;
  bool released_ = false;
};

// DIR holds an Attention Lab manifest (manifest.json, a regular file whose "format" is
// "attnlab-trace"): what --force may replace and what the sweep recognises as ours.
bool is_bundle_folder(const std::string& dir);

// The longest folder name (bytes) that leaves room for its temporary sibling's name.
size_t max_output_name_bytes();

// Moves the finished folder `tmp` to `target`, atomically and without replacing anything:
// renameat2(RENAME_NOREPLACE), or where the file system lacks it, mkdir(target) as a claim and
// rename over that empty folder. Throws ConfigError (exit 2) naming target when it exists —
// it appeared while the export ran — and DataError on any other failure.
void move_into_place(const std::filesystem::path& tmp, const std::filesystem::path& target);

// `path` is a folder (not a link to one) with nothing in it: a name a new folder may take.
bool is_empty_folder(const std::filesystem::path& path);

// Moves the finished folder held by `tmp` to `target`: into a new name or an empty folder's, or —
// where `ours` says the folder there is an earlier one of ours (not a link) — by an atomic swap,
// after which `tmp` holds the earlier one (removed with it) and is checked again: something else
// that took its place meanwhile is put back and ConfigError `changed` (naming target) thrown.
// Anything else at target: ConfigError from move_into_place, nothing replaced. `ours` empty:
// nothing is ever replaced.
void move_folder_into_place(TempDir& tmp, const std::filesystem::path& target,
                            const std::function<bool(const std::string&)>& ours, Msg changed);

// Moves one finished file `from` to `to` without replacing a file there (renameat2
// RENAME_NOREPLACE, or link + unlink where the file system lacks it). Throws ConfigError naming
// `to` when it exists, DataError on any other failure.
void move_file_into_place(const std::filesystem::path& from, const std::filesystem::path& to);

// Writes `bytes` as the file `target` through a temporary sibling (".NAME.tmp-PID") moved into
// place, so that no reader ever sees a half-written file. With `replace` an existing target is
// replaced (rename); without, move_file_into_place refuses it (ConfigError naming it). A failed
// write removes the temporary and throws DataError `failure`, a message of one argument (target).
void write_file_atomically(const std::filesystem::path& target, std::string_view bytes, bool replace, Msg failure);

// Swaps the finished folder `tmp` with the existing `target` (renameat2(RENAME_EXCHANGE), or two
// renames where the file system lacks it): afterwards `tmp`'s path holds the old folder, which
// the caller removes once the new one is in place. Throws DataError on failure.
void exchange_into_place(const std::filesystem::path& tmp, const std::filesystem::path& target);

// Removes the temporaries beside `target`'s siblings in `parent` left by processes that are no
// longer running: folders named ".*.tmp-PID-N" or ".*.old-PID-N" whose PID is dead (or another
// process now), and which hold our marker, an Attention Lab manifest, or nothing. Returns how
// many were removed. Never throws.
int sweep_dead_temporaries(const std::filesystem::path& parent);

// From the first call on, SIGINT, SIGTERM and SIGHUP remove every live TempDir before the
// process ends with that signal. Call once, early in main, before any thread is started.
void install_cleanup_on_signals();

}  // namespace attnlab
