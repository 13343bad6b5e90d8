// Driving the whole window in widget tests.
#pragma once

#include <QAction>
#include <QApplication>
#include <QComboBox>
#include <QCoreApplication>
#include <QMessageBox>
#include <QTimer>
#include <QSettings>
#include <QStandardPaths>
#include <QTemporaryDir>
#include <QTest>

#include <cstring>
#include <memory>

#include "input/inputpanel.h"
#include "window/mainwindow.h"

namespace attnlab::ui::test {

// Settings of the test's own, empty (call from initTestCase): in a folder of this process, so
// that two runs at once (ctest -j, a CI beside a developer) never share a settings file.
inline void isolateSettings() {
  static QTemporaryDir dir;
  QStandardPaths::setTestModeEnabled(true);
  QSettings::setPath(QSettings::NativeFormat, QSettings::UserScope, dir.path());
  QCoreApplication::setOrganizationName(QStringLiteral("AttentionLabTest"));
  QSettings().clear();
}

// The child widget of that object name (the test stops when there is none).
template <typename T>
T* child(QWidget* w, const char* name) {
  T* c = w->findChild<T*>(QString::fromLatin1(name));
  if (!c) qFatal("no child %s", name);
  return c;
}

// The window's action whose text (with its & mark) is `text`, in a menu or not; null if none.
inline QAction* menuAction(MainWindow& w, const QString& text) {
  for (QAction* a : w.findChildren<QAction*>())
    if (a->text() == text) return a;
  return nullptr;
}

// Waits for the controller to deliver a result (and nothing else to be pending).
inline void settle(MainWindow& w) {
  QTest::qWait(250);  // past the input debounce
  w.controller()->waitForIdle();
  QCoreApplication::processEvents();
}

// The model chooser set to a shipped model (its file name under :/models/) as a user picks it,
// and its result delivered. False when the chooser has no such model.
inline bool chooseShippedModel(MainWindow& w, const QString& file) {
  QComboBox* box = w.inputs()->modelBox();
  const int index = box->findData(QStringLiteral(":/models/") + file);
  if (index <= 0) return false;
  box->setCurrentIndex(index);
  emit box->activated(index);
  settle(w);
  return true;
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

// Accepts the next modal message box (the window's warning) once it is up; its text → *text.
inline void acceptNextMessage(QString* text) {
  QTimer::singleShot(0, [text] {
    QTRY_VERIFY(QApplication::activeModalWidget());
    if (auto* box = qobject_cast<QMessageBox*>(QApplication::activeModalWidget())) {
      *text = box->text();
      box->accept();
    }
  });
}

// Whether a text holds Chinese characters (CJK Unified Ideographs).
inline bool hasCjk(const QString& s) {
  return std::any_of(s.begin(), s.end(), [](QChar c) { return c.unicode() >= 0x4E00 && c.unicode() <= 0x9FFF; });
}
inline bool hasCjk(const std::string& s) { return hasCjk(QString::fromStdString(s)); }

// Equal to the bit (NaN payloads and signed zeros included).
inline bool sameBits(const Tensor& a, const Tensor& b) {
  const auto x = a.to_vector(), y = b.to_vector();
  return x.size() == y.size() && std::memcmp(x.data(), y.data(), x.size() * sizeof(float)) == 0;
}

}  // namespace attnlab::ui::test
