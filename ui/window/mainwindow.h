// The window: inputs and knobs (left dock), the step navigator (left dock), the step panel
// (centre). Keyboard stepping, zoom for projectors, and the remembered layout and configuration.
#pragma once

#include <QMainWindow>

#include <optional>

#include "window/controller.h"
#include "words/language.h"

class QDockWidget;
class QLabel;
class QMenu;
class QScrollArea;

namespace attnlab::ui {

class BusyIndicator;
class PresenterMode;
class ExercisePanel;
class InputPanel;
class StepNavigator;
class StepPanel;
class DockFitter;

class MainWindow : public QMainWindow {
  Q_OBJECT
 public:
  // settingsKey: the QSettings group (tests pass their own to stay independent).
  explicit MainWindow(const QString& settingsKey = QStringLiteral("main"), QWidget* parent = nullptr);
  ~MainWindow() override;

  Controller* controller() const { return controller_; }
  InputPanel* inputs() const { return inputs_; }
  StepNavigator* navigator() const { return navigator_; }
  StepPanel* stepPanel() const { return panel_; }
  ExercisePanel* exercisePanel() const { return exercises_; }
  QDockWidget* exerciseDock() const { return exerciseDock_; }
  class PredictionsPanel* predictions() const { return predictions_; }
  QDockWidget* predictionsDock() const { return predictionsDock_; }
  class ExplainPanel* explanations() const { return explain_; }
  QDockWidget* explainDock() const { return explainDock_; }
  class LensPanel* logitLens() const { return lens_; }
  QDockWidget* lensDock() const { return lensDock_; }
  class VariantPanel* variantPanel() const { return variant_; }
  QDockWidget* variantDock() const { return variantDock_; }
  class TrainingPanel* trainingPanel() const { return training_; }
  QDockWidget* trainingDock() const { return trainingDock_; }
  // The Training panel shown, in front of its tab group, with the room its curves want: a third of
  // the width (at least 480 px), two thirds of the column's height above the Predictions.
  void bringTrainingForward();
  double zoom() const { return zoom_; }
  PresenterMode* presenter() const { return presenter_; }
  DockFitter* dockFitter() const { return fitter_; }
  QWidget* currentView() const;  // the view or chart on show in the step panel
  void setZoom(double factor);  // 1.0 = the system font size
  void nameDockTabs();           // after the docks are (re)arranged
  // Sessions (.attnlab): "" on success, otherwise the message also shown to the user.
  QString saveSession(const QString& path);
  // dialog: a refusal is also shown in a dialog that waits for OK; otherwise in one that does not
  // wait (the window opening from the command line goes on meanwhile).
  QString openSession(const QString& path, bool dialog = true);
  QString importWeights(const QString& path);
  // A checkpoint folder in Hugging Face's layout (File ▸ Open model folder…); the error shown, or "".
  QString openModelFolder(const QString& folder);
  class GuidedTour* startTour();  // Help ▸ Guided tour; main() also starts it on the first run  // "" on success, otherwise the message shown
  void persist() const { saveSettings(); }  // layout, inputs and step into QSettings, now
  // The next result opens at step `id` (a manifest step id, e.g. from --step); when its trace has
  // no such step, the status bar says so and stepMissing carries the same words.
  void showStepId(const std::string& id);

 signals:
  void languageRequested(UiLanguage choice);  // WindowHost rebuilds the window in that language
  void stepMissing(const QString& message);    // showStepId asked for a step the trace lacks

 protected:
  bool eventFilter(QObject* watched, QEvent* event) override;
  void closeEvent(QCloseEvent* event) override;

 private:
  void buildMenus();
  void buildExportMenu(QMenu* file);
  void buildSessionMenu(QMenu* file);
  void rememberSession(const QString& path);
  void buildColorMenu(QMenu* view);
  void buildLanguageMenu(QMenu* view);
  void addPanelToggles(QMenu* view);  // menus.cpp
  void raiseDock(QDockWidget* dock);
  QString guidePath() const;  // "" when the guide is not found
  void openGuide();
  void showAbout();
  void buildExercises(QDockWidget* besides);
  void resetExerciseProgress();
  // Every computation goes through here: the exercise's planted faults added, the request kept.
  void send(Request r);
  void startExercise(const Request& setup, const QString& concealStep, const QString& showStep, bool hasSetup);
  // The heatmap in focus: the shown attention step (or the focused block's weights), its
  // sentence and head; false when there is nothing to export yet.
  bool currentPicture(struct HeatmapPicture& pic, int& stepIndex, int& b, int& h) const;
  void exportCurrent(const QString& format);
  void exportHandout();
  void exportView(const QString& format);
  void exportGradientNorms();  // the Gradients tab as CSV
  void exportBundleTo();
  void warn(const QString& what, const QString& error);
  void showResult(TraceResultPtr result);
  // The Predictions panel drew piece `id` for sentence b: appended to that sentence, which runs again.
  void appendDrawnPiece(int sentence, int id);
  void markStale(const QString& why);
  void showVariant(const TraceResultPtr& result);  // the Variant dock: shown while a variant is chosen
  void buildVariantDock();
  void connectHeadMenu();  // knockoutactions.cpp: a heatmap head's right-click menu
  void toggleKnockedOut(explain::HeadRef head);
  // A head of a tiled layer kept whole (ModelConfig::full_heads) or back to the overview only,
  // and the model run again, showing the kept head's step.
  void toggleWholeHead(explain::HeadRef head);
  std::vector<ModelConfig::LayerHead> keptHeadsFor(const ModelConfig& cfg) const;
  QDockWidget* addPanelDock(QWidget* panel, const QString& title, const QString& objectName);
  void offerTiled(qint64 needBytes, qint64 tiledBytes, qint64 budgetMiB);
  void showStep(int index);
  bool handleStepKey(int key);
  void saveSettings() const;
  void restoreSettings();

  QString settingsKey_;
  Controller* controller_;
  InputPanel* inputs_;
  StepNavigator* navigator_;
  StepPanel* panel_;
  ExercisePanel* exercises_;
  QDockWidget* exerciseDock_;
  class PredictionsPanel* predictions_;
  QDockWidget* predictionsDock_;
  class ExplainPanel* explain_;  // which tokens mattered (View ▸ Explanations panel)
  QDockWidget* explainDock_;
  std::vector<ModelConfig::LayerHead> fullHeads_;  // heads of tiled layers kept whole, sent with each request
  std::vector<explain::HeadRef> ablated_;  // heads knocked out (Explanations panel, heatmaps), sent with each request
  explain::AblateMode ablateMode_ = explain::AblateMode::Zero;  // how (the panel's Knocked out as)
  class LensPanel* lens_;  // what each layer would predict (View ▸ Logit lens panel), beside the predictions
  QDockWidget* lensDock_;
  class VariantPanel* variant_;
  QDockWidget* variantDock_;
  class TrainingPanel* training_;
  QDockWidget* trainingDock_;
  FaultSet exerciseFaults_;     // planted by a find-the-bug exercise, added to every request
  bool exerciseHideFaults_ = false;  // until it is answered, the steps carry no fault labels
  Request lastRequest_;
  std::optional<AppendedPiece> appended_;  // a drawn piece was appended: the next request checks it (Request::appended)
  QLabel* status_;
  BusyIndicator* busy_;
  QMenu* recentMenu_ = nullptr;
  PresenterMode* presenter_;
  DockFitter* fitter_ = nullptr;
  std::string currentId_;  // kept across recomputes
  struct AskedStep {
    std::string id, before;  // showStepId's step, and the one shown when the trace lacks it
  };
  std::optional<AskedStep> askedStep_;  // checked against the next result
  struct ViewState {
    QString tab;
    int sentence = 0, head = 0;
  };
  // The teacher's window before the first exercise started (inputs, weights, step, view), put back
  // when the learner leaves the exercises.
  struct Before {
    Request request;
    std::string step;
    ViewState view;
  };
  std::optional<Before> beforeExercise_;
  std::optional<ViewState> pendingView_;  // an opened session's tab, sentence and head, for its first result
  double zoom_ = 1.0;
  qreal baseFontPt_ = 10;
};

}  // namespace attnlab::ui
