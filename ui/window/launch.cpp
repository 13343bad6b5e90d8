#include "window/launch.h"

#include <QSettings>
#include <QTimer>

#include "window/mainwindow.h"
#include "window/presenter.h"
#include "window/windowhost.h"

namespace attnlab::ui {

QStringList launch(WindowHost& host, const LaunchRequest& r) {
  QStringList problems;
  MainWindow* w = host.window();
  w->show();
  if (!r.session.isEmpty()) {
    if (const QString error = w->openSession(r.session, /*dialog=*/false); !error.isEmpty()) problems << error;
  } else if (!QSettings().value(QStringLiteral("tourSeen"), false).toBool()) {  // the first start: the tour
    QTimer::singleShot(0, w, [w] { w->startTour(); });
  }
  if (!r.step.isEmpty()) w->showStepId(r.step.toStdString());
  if (r.presenter) w->presenter()->setActive(true);
  return problems;
}

}  // namespace attnlab::ui
