#include "lessons/exercisecatalog.h"

#include <QDir>
#include <QFile>
#include <QSettings>

#include <set>

#include "words/coretext.h"

namespace attnlab::ui {

ExerciseCatalog ExerciseCatalog::load(const QString& folder) {
  ExerciseCatalog c;
  c.userFolder = folder.isEmpty() ? QString::fromStdString(user_exercise_folder()) : folder;
  std::vector<ExerciseSource> sources;
  try {
    sources = shipped_exercise_sources();
    std::vector<Text> unreadable;  // listed, not fatal: the other files still load
    if (!c.userFolder.isEmpty())
      for (auto& s : read_exercise_folder(QFile::encodeName(c.userFolder).toStdString(), true, &unreadable))
        sources.push_back(std::move(s));
    for (const auto& p : unreadable) c.problems << CoreText::translate(p);
  } catch (const std::exception& e) {
    c.problems << CoreText::of(e);
  }
  std::set<std::string> ids;
  for (const auto& src : sources) {
    try {
      Exercise ex = parse_exercise(src.text, src.name);
      if (!ids.insert(ex.id).second) {
        c.problems << QCoreApplication::translate("ExerciseCatalog", "%1: the id \"%2\" is already used by another exercise; this file is skipped")
                          .arg(QString::fromStdString(src.name), QString::fromStdString(ex.id));
        continue;
      }
      c.exercises.push_back(std::move(ex));
    } catch (const std::exception& e) {
      c.problems << CoreText::of(e);
    }
  }
  return c;
}

namespace {
QString key(const QString& group, const std::string& id, const char* field) {
  return group + QLatin1Char('/') + QString::fromStdString(id) + QLatin1Char('/') + QLatin1String(field);
}
}  // namespace

ExerciseRecord ExerciseProgress::record(const std::string& id) const {
  QSettings s;
  ExerciseRecord r;
  r.solved = s.value(key(group_, id, "solved"), false).toBool();
  r.revealed = s.value(key(group_, id, "revealed"), false).toBool();
  r.wrongAttempts = std::max(0, s.value(key(group_, id, "wrong"), 0).toInt());
  r.points = std::max(0, s.value(key(group_, id, "points"), 0).toInt());
  return r;
}

void ExerciseProgress::save(const std::string& id, const ExerciseRecord& r) const {
  QSettings s;
  s.setValue(key(group_, id, "solved"), r.solved);
  s.setValue(key(group_, id, "revealed"), r.revealed);
  s.setValue(key(group_, id, "wrong"), r.wrongAttempts);
  s.setValue(key(group_, id, "points"), r.points);
}

void ExerciseProgress::resetAll() const { QSettings().remove(group_); }

std::pair<int, int> ExerciseProgress::score(const std::vector<Exercise>& all) const {
  int got = 0, most = 0;
  for (const auto& e : all) {
    got += record(e.id).points;
    most += exercise_points(e.level, 0);
  }
  return {got, most};
}

int ExerciseProgress::solvedCount(const std::vector<Exercise>& all) const {
  int n = 0;
  for (const auto& e : all) n += record(e.id).solved ? 1 : 0;
  return n;
}

}  // namespace attnlab::ui
