// A training run written as a recorded-run folder (run_record.h): what the window saves beside a
// session so that the Training panel's run comes back with it. The folder is written through a
// temporary sibling and moved into place (io/files.h); an earlier recorded run of that name is
// replaced, anything else is never touched.
#pragma once

#include <map>
#include <string>

#include "training/resume.h"
#include "training/run_record.h"
#include "training/snapshots.h"

namespace attnlab {

// DIR holds a recorded run: a regular run.json whose "format" is attnlab-training-run/1.
bool is_run_folder(const std::string& dir);

// Writes `rec` (its snapshot list replaced by `snaps`' steps) and one weights file per snapshot
// of `snaps` (with `metadata`, F16 when `f16`) as the folder `dir`. ConfigError naming dir when
// it exists and is not a recorded run (an empty folder is taken); DataError when it cannot be
// written. Nothing is left behind on failure. `resume`: the run's resume point at rec.steps_done
// (resume.h), written as resume.safetensors and named in run.json; none without.
void write_run_folder(const std::string& dir, RunRecord rec, const TrainSetup& s, const SnapshotStore& snaps,
                      const std::map<std::string, std::string>& metadata, bool f16,
                      const ResumePoint* resume = nullptr);

}  // namespace attnlab
