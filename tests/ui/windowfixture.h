// Driving the whole window in widget tests.
#pragma once

#include <QCoreApplication>
#include <QTest>

#include "mainwindow.h"

namespace attnlab::ui::test {

// Waits for the controller to deliver a result (and nothing else to be pending).
inline void settle(MainWindow& w) {
  QTest::qWait(250);  // past the input debounce
  w.controller()->waitForIdle();
  QCoreApplication::processEvents();
}

}  // namespace attnlab::ui::test
