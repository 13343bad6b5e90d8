#include "training/run_folder.h"

#include <unistd.h>

#include <filesystem>

#include "io/files.h"
#include "text/errors.h"

namespace attnlab {

namespace fs = std::filesystem;

bool is_run_folder(const std::string& dir) {
  try {
    read_run_record(dir);
    return true;
  } catch (const UserError&) {
    return false;
  }
}

void write_run_folder(const std::string& dir, RunRecord rec, const TrainSetup& s, const SnapshotStore& snaps,
                      const std::map<std::string, std::string>& metadata, bool f16) {
  const fs::path target(dir);
  std::error_code ec;
  const auto link = fs::symlink_status(target, ec);
  const bool exists = fs::exists(link);
  const bool empty_folder = exists && !fs::is_symlink(link) && fs::is_directory(link) && fs::is_empty(target, ec) && !ec;
  const bool earlier_run = exists && !fs::is_symlink(link) && fs::is_directory(link) && is_run_folder(dir);
  if (exists && !empty_folder && !earlier_run)
    throw ConfigError(Text(Msg::exists_already_nothing_was_replaced, printable_name(dir)));
  sweep_dead_temporaries(target.parent_path().empty() ? fs::path(".") : target.parent_path());
  TempDir tmp(target, ".tmp-");  // removed on any throw below, and on SIGINT/SIGTERM
  SnapshotStore out(0, tmp.path().string(), metadata, f16);
  rec.snapshots.clear();
  for (int64_t step : snaps.steps()) {
    out.add(step, snaps.at(step));
    rec.snapshots.emplace_back(step, SnapshotStore::file_name(step));
  }
  write_file_atomically(tmp.path() / "run.json", run_record_json(rec, s), /*replace=*/true, Msg::tr_cannot_write);
  tmp.remove_marker();
  if (earlier_run) {
    exchange_into_place(tmp.path(), target);
    return;  // tmp now holds the earlier run: its destructor removes it
  }
  if (empty_folder) ::rmdir(target.c_str());  // an empty folder only; then as new
  move_into_place(tmp.path(), target);
  tmp.release();
}

}  // namespace attnlab
