// The guided tour: ten stops through one encoder layer, each on its step, its part of the window
// lit and the callout beside it (never on top of it); Next / Back by mouse and keys, Esc ends it
// and it is remembered as seen.
#include <QtTest>

#include <QLabel>
#include <QPushButton>
#include <QSettings>

#include "lessons/guidedtour.h"
#include "step/stepnavigator.h"
#include "window/mainwindow.h"
#include "windowfixture.h"

using namespace attnlab;
using namespace attnlab::ui;

class TestTour : public QObject {
  Q_OBJECT

 private slots:
  void initTestCase() { test::isolateSettings(); }

  void walksThroughOneLayer() {
    auto w = test::openWindow(QStringLiteral("tour"));
    QVERIFY(w);
    w->resize(1500, 950);
    test::settle(*w);
    GuidedTour* tour = w->startTour();
    QCOMPARE(tour->count(), 10);
    const auto stops = GuidedTour::stops(w.get());
    for (int i = 0; i < tour->count(); ++i) {
      QCOMPARE(tour->current(), i);
      QTest::qWait(20);  // the deferred placement after the step's layout
      const TourStop& s = stops[static_cast<size_t>(i)];
      const auto r = w->controller()->current();
      if (!s.step.empty()) {
        const std::string id = r->trace.steps()[static_cast<size_t>(w->navigator()->current())].info.id;
        QVERIFY2(id.ends_with(s.step), id.c_str());
      }
      QWidget* target = tour->target();
      QVERIFY2(target && target->isVisible(), qPrintable(s.title));
      const QRect hole(target->mapTo(w.get(), QPoint(0, 0)), target->size());
      const QRect lit = hole.intersected(w->rect());
      QVERIFY2(lit.width() > 20 && lit.height() > 10, qPrintable(s.title));
      QVERIFY2(!tour->callout()->geometry().intersects(lit.adjusted(-6, -6, 6, 6)) ||
                   lit.width() * lit.height() > w->width() * w->height() / 3,  // a huge part: nowhere else to go
               qPrintable(s.title));
      QVERIFY(w->rect().contains(tour->callout()->geometry()));
      QCOMPARE(tour->callout()->findChild<QLabel*>(QStringLiteral("tourTitle"))->text(), s.title);
      if (i == 7) {
        QDir().mkpath(QStringLiteral(ATTNLAB_SCREENSHOT_DIR));
        QVERIFY(w->grab().save(QStringLiteral(ATTNLAB_SCREENSHOT_DIR "/tour-heatmaps.png")));
      }
      if (i + 1 < tour->count()) QTest::mouseClick(tour->callout()->findChild<QPushButton*>(QStringLiteral("tourNext")), Qt::LeftButton);
    }
    QTest::keyClick(tour->callout(), Qt::Key_Left);
    QCOMPARE(tour->current(), 8);
    QTest::keyClick(tour->callout(), Qt::Key_Right);
    QCOMPARE(tour->current(), 9);
    QSignalSpy done(tour, &GuidedTour::finished);
    QTest::keyClick(tour->callout(), Qt::Key_Escape);
    QCOMPARE(done.count(), 1);
    QVERIFY(QSettings().value(QStringLiteral("tourSeen")).toBool());
    QTRY_VERIFY(!w->findChild<GuidedTour*>());
    QVERIFY(!w->findChild<QWidget*>(QStringLiteral("tourShade")));
  }
};

QTEST_MAIN(TestTour)
#include "test_tour.moc"
