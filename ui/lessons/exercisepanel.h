// The exercise panel: pick an exercise, Start (the window loads its sentences and model, hides
// the asked-for shape or plants the bug), answer, Check (feedback with a hint after a wrong
// answer, the explanation after the right one), Hint, Reveal; score and progress kept in
// QSettings. Exercises come from ExerciseCatalog (shipped + the teachers' drop-in folder).
#pragma once

#include <QWidget>

#include <memory>

#include "lessons/exercisecatalog.h"
#include "window/controller.h"

class QComboBox;
class QLabel;
class QLineEdit;
class QListWidget;
class QPushButton;
class QStackedWidget;

namespace attnlab::ui {

class HeadPicker;
class MaskEditor;
class RunComparison;

class ExercisePanel : public QWidget {
  Q_OBJECT
 public:
  // settingsGroup: where progress is kept (tests pass their own); folder: the teachers' folder
  // (empty: core's user_exercise_folder()).
  explicit ExercisePanel(const QString& settingsGroup = QStringLiteral("exercises"), const QString& folder = {},
                         QWidget* parent = nullptr);

  const std::vector<Exercise>& exercises() const { return catalog_.exercises; }
  const QStringList& problems() const { return catalog_.problems; }
  const Exercise* active() const { return active_ ? &catalog_.exercises[static_cast<size_t>(activeIndex_)] : nullptr; }
  bool answered() const { return finished_; }
  Lang language() const { return lang_; }
  void setLanguage(Lang l);
  void reload();
  void resetProgress();  // forgets every record and the score

  // Selects exercise `index` and starts it (as the Start button does).
  void start(int index);
  // The answer the widgets currently hold, in check_answer's form.
  QString currentAnswer() const;
  void check();
  void showHint();
  void reveal();
  void stop();
  // The faulty / correct comparison after a find_bug exercise (nullptr before).
  RunComparison* comparison() const { return comparison_; }
  void openComparison();

  QListWidget* list() const { return list_; }
  QLineEdit* answerEdit() const { return answer_; }
  QComboBox* bugStepBox() const { return bugStep_; }
  QLineEdit* symptomEdit() const { return symptom_; }
  MaskEditor* maskEditor() const { return maskEditor_; }
  HeadPicker* headPicker() const { return headPicker_; }
  // A head clicked in the window on step `stepId`: the answer of an open find-the-head exercise
  // (when the step is one of its layers' self-attention steps). Returns whether it was taken.
  bool chooseHead(const QString& stepId, int head);
  QString feedbackText() const;
  QString scoreText() const;
  QPushButton* checkButton() const { return check_; }
  // The answer's feedback (empty until Check, Reveal or a refusal).
  QWidget* feedbackLabel() const;
  QPushButton* startButton() const { return start_; }
  ExerciseRecord record(const std::string& id) const { return progress_.record(id); }

 signals:
  // The window loads the exercise: its setup, with `faults` planted and `concealStep`'s shape
  // hidden (either may be empty), and opens `showStep` (empty: the step it had). A mask exercise without a model of its own comes with one
  // sentence of the grid's tokens on the exercises' small model, so hasSetup is true for every
  // shipped kind (false only leaves the window as it is).
  void started(const attnlab::ui::Request& setup, const QString& concealStep, const QString& showStep, bool hasSetup);
  // Answered or revealed: nothing is hidden any more (the fault stays until stopped()).
  void answeredOrRevealed();
  void stopped();
  // Feedback appeared (an answer checked, revealed, or refused): the window brings it into view.
  void feedbackShown();

 private:
  void fillBugSteps(const Exercise& ex);  // the faulty run's steps by name
  QWidget* buildTask();
  void fillList();
  void showDetails(int index);  // title, goal and task of the selected exercise (not started)
  void setFeedback(const QString& html, bool good);
  void finish(bool solved);
  void updateScore();
  void updateButtons();
  QString taskText(const Exercise& ex) const;
  QString tx(const LocalText& t) const { return QString::fromStdString(t.in(lang_)); }

  ExerciseCatalog catalog_;
  ExerciseProgress progress_;
  QString folder_;
  Lang lang_ = Lang::En;
  bool active_ = false, finished_ = false;
  int activeIndex_ = -1, attempts_ = 0, hintsShown_ = 0;

  QComboBox* language_;
  QLabel *score_, *problems_, *title_, *goal_, *task_, *feedback_;
  QListWidget* list_;
  QStackedWidget* answerStack_;
  QLineEdit *answer_, *symptom_;
  QComboBox* bugStep_;
  MaskEditor* maskEditor_;
  HeadPicker* headPicker_;
  QPushButton *start_, *check_, *hint_, *reveal_, *compare_, *stop_, *resetMask_;
  RunComparison* comparison_ = nullptr;
};

}  // namespace attnlab::ui
