#include "window/windowhost.h"

#include <QSettings>

#include "input/inputpanel.h"
#include "lessons/exercisepanel.h"
#include "window/mainwindow.h"

namespace attnlab::ui {

WindowHost::WindowHost(const QString& settingsKey, QObject* parent, std::optional<UiLanguage> forThisRun)
    : QObject(parent), settingsKey_(settingsKey) {
  Language::apply(forThisRun.value_or(Language::saved()));
  window_ = build();
}

WindowHost::~WindowHost() { delete window_.data(); }

MainWindow* WindowHost::build() {
  auto* w = new MainWindow(settingsKey_);
  w->setAttribute(Qt::WA_DeleteOnClose, false);
  connect(w, &MainWindow::languageRequested, this, &WindowHost::switchLanguage, Qt::QueuedConnection);
  return w;
}

namespace {

// An exercise in progress is not in the settings: start it again in the new window (its words in
// the new language; an answered one stays answered in the progress record).
void carryExercise(MainWindow& from, MainWindow& to) {
  const ExercisePanel* panel = from.exercisePanel();
  if (!panel->active() || panel->answered()) return;
  to.exercisePanel()->start(static_cast<int>(panel->active() - panel->exercises().data()));
}

}  // namespace

void WindowHost::switchLanguage(UiLanguage choice) {
  Language::save(choice);
  Language::apply(choice);
  // Exercises follow the window's language; their own switch can still override it.
  QSettings().setValue(QStringLiteral("exerciseLanguage"),
                       Language::effective() == UiLanguage::Chinese ? QStringLiteral("zh") : QStringLiteral("en"));
  MainWindow* old = window_;
  const bool visible = old && old->isVisible();
  if (old) old->persist();  // the new window starts from exactly this state
  window_ = build();
  if (old && old->inputs()->importedWeights())  // embedded ones have no path to reload from
    window_->inputs()->setImportedWeights(old->inputs()->importedWeights());
  if (old) carryExercise(*old, *window_);
  if (visible) window_->show();
  if (old) {
    old->hide();
    old->deleteLater();
  }
  emit windowReplaced(window_);
}

}  // namespace attnlab::ui
