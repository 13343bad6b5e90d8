// The exercises the GUI offers and what the learner has done with them. The shipped exercises
// are embedded (core's shipped_exercise_sources, from sample_inputs/exercises); the teachers' drop-in
// folder (core's user_exercise_folder()) is read on top. Unlike the command line, one broken
// teacher file does not hide the others: it is listed with its message instead.
#pragma once

#include <QCoreApplication>
#include <QString>
#include <QStringList>

#include <vector>

#include "exercises/exercises.h"

namespace attnlab::ui {

struct ExerciseCatalog {
  std::vector<Exercise> exercises;  // in order: shipped, then the teachers' folder
  QStringList problems;             // one message per file that could not be used
  QString userFolder;               // where a teacher drops files ("" when no home is known)

  // Shipped plus the files of `folder` (the user folder when empty); never throws.
  static ExerciseCatalog load(const QString& folder = {});
};

// One exercise's record, kept in QSettings ("<group>/<id>/…") so that progress survives a restart.
struct ExerciseRecord {
  bool solved = false;
  bool revealed = false;  // the answer was shown before it was found: no points
  int wrongAttempts = 0;
  int points = 0;
};

class ExerciseProgress {
 public:
  explicit ExerciseProgress(QString group = QStringLiteral("exercises")) : group_(std::move(group)) {}
  ExerciseRecord record(const std::string& id) const;
  void save(const std::string& id, const ExerciseRecord& r) const;
  void resetAll() const;
  // Points earned and the most there are to earn, over `all`.
  std::pair<int, int> score(const std::vector<Exercise>& all) const;
  int solvedCount(const std::vector<Exercise>& all) const;

 private:
  QString group_;
};

}  // namespace attnlab::ui
