// Driving the whole window in widget tests.
#pragma once

#include <QCoreApplication>
#include <QSettings>
#include <QStandardPaths>
#include <QTest>

#include <memory>

#include "mainwindow.h"

namespace attnlab::ui::test {

// Settings of the tests' own, empty (call from initTestCase).
inline void isolateSettings() {
  QStandardPaths::setTestModeEnabled(true);
  QCoreApplication::setOrganizationName(QStringLiteral("AttentionLabTest"));
  QSettings().clear();
}

// Waits for the controller to deliver a result (and nothing else to be pending).
inline void settle(MainWindow& w) {
  QTest::qWait(250);  // past the input debounce
  w.controller()->waitForIdle();
  QCoreApplication::processEvents();
}

// A window on the built-in sample, shown at 1400 × 900, its first result delivered.
inline std::unique_ptr<MainWindow> openWindow(const QString& settingsKey) {
  auto w = std::make_unique<MainWindow>(settingsKey);
  w->resize(1400, 900);
  w->show();
  if (!QTest::qWaitForWindowExposed(w.get())) return nullptr;
  settle(*w);
  return w;
}

}  // namespace attnlab::ui::test
