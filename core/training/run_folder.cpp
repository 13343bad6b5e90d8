#include "training/run_folder.h"

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
                      const std::map<std::string, std::string>& metadata, bool f16,
                      const ResumePoint* resume) {
  const fs::path target(dir);
  std::error_code ec;
  // Refused before anything is written; move_folder_into_place checks again at the end.
  if (fs::exists(fs::symlink_status(target, ec)) && !is_empty_folder(target) && !is_run_folder(dir))
    throw ConfigError(Text(Msg::exists_already_nothing_was_replaced, printable_name(dir)));
  sweep_dead_temporaries(target.parent_path().empty() ? fs::path(".") : target.parent_path());
  TempDir tmp(target, ".tmp-");  // removed on any throw below, and on SIGINT/SIGTERM
  SnapshotStore out(0, tmp.path().string(), metadata, f16);
  rec.snapshots.clear();
  for (int64_t step : snaps.steps()) {
    out.add(step, snaps.at(step));
    rec.snapshots.emplace_back(step, SnapshotStore::file_name(step));
  }
  rec.resume.clear();
  if (resume) {
    rec.steps_done = resume->steps_done;
    rec.resume = resume_file_name(rec.steps_done);
    write_file_atomically(tmp.path() / rec.resume, serialize_resume(*resume), /*replace=*/true, Msg::tr_cannot_write);
  }
  write_file_atomically(tmp.path() / "run.json", run_record_json(rec, s), /*replace=*/true, Msg::tr_cannot_write);
  move_folder_into_place(tmp, target, is_run_folder, Msg::exists_already_nothing_was_replaced);
}

}  // namespace attnlab
