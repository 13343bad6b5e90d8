// Owns the main window and rebuilds it when the language changes, so that the switch needs no
// restart: the old window saves its settings (layout, sentences, configuration, step), a new one
// is built in the new language from them, and the old one closes.
#pragma once

#include <QObject>
#include <QPointer>

#include <optional>

#include "words/language.h"

namespace attnlab::ui {

class MainWindow;

class WindowHost : public QObject {
  Q_OBJECT
 public:
  // forThisRun: the language of this run (attnlab --language), not saved; else the saved choice.
  explicit WindowHost(const QString& settingsKey = QStringLiteral("main"), QObject* parent = nullptr,
                      std::optional<UiLanguage> forThisRun = {});
  ~WindowHost() override;
  MainWindow* window() const { return window_; }
  void switchLanguage(UiLanguage choice);

 signals:
  void windowReplaced(MainWindow* now);

 private:
  MainWindow* build();

  QString settingsKey_;
  QPointer<MainWindow> window_;
};

}  // namespace attnlab::ui
