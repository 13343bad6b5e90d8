// Presenter mode as a teacher uses it: F11 on, the step alone in large high-contrast type,
// the keyboard steps, the laser spot follows the mouse, Esc first closes an enlarged head and
// then leaves, and the window comes back exactly as it was.
#include <QtTest>

#include <QAbstractScrollArea>
#include <QAbstractSpinBox>
#include <QAccessible>
#include <QDockWidget>
#include <QLabel>
#include <QMenuBar>
#include <QSettings>
#include <QStandardPaths>
#include <QStatusBar>
#include <QTabBar>
#include <QTabWidget>

#include "step/stepnavigator.h"
#include "step/steppanel.h"
#include "views/heatmapgrid.h"
#include "window/mainwindow.h"
#include "window/presenter.h"
#include "windowfixture.h"

using namespace attnlab;
using namespace attnlab::ui;

class TestPresenter : public QObject {
  Q_OBJECT
  std::unique_ptr<MainWindow> w_;

  int visibleDocks() const {
    int n = 0;
    for (QDockWidget* d : w_->findChildren<QDockWidget*>()) n += d->isVisible();
    return n;
  }

 private slots:
  void initTestCase() { test::isolateSettings(); }

  void init() {
    w_ = test::openWindow(QStringLiteral("presenter-test"));
    QVERIFY(w_ && QTest::qWaitForWindowActive(w_.get()));
  }

  void cleanup() {
    w_.reset();
    QSettings().clear();
  }

  void f11EntersAndEscLeaves() {
    const int docks = visibleDocks();
    QVERIFY(docks >= 2);
    const double zoom = w_->zoom();
    const QColor window = w_->palette().color(QPalette::Window);
    QTest::keyClick(w_.get(), Qt::Key_F11);
    QVERIFY(w_->presenter()->active());
    QVERIFY(w_->windowState() & Qt::WindowFullScreen);
    QCOMPARE(visibleDocks(), 0);
    QVERIFY(!w_->menuBar()->isVisible());
    QVERIFY(!w_->statusBar()->isVisible());
    QVERIFY(!w_->stepPanel()->tabs()->tabBar()->isVisible());
    QVERIFY(w_->zoom() >= PresenterMode::kMinZoom);
    QCOMPARE(w_->palette().color(QPalette::Window), QColor(0, 0, 0));
    QCOMPARE(w_->palette().color(QPalette::WindowText), QColor(255, 255, 255));
    auto* hint = w_->findChild<QLabel*>(QStringLiteral("presenterHint"));
    QVERIFY(hint && hint->isVisible() && hint->text().contains(QStringLiteral("Esc")));

    // Keyboard-only stepping.
    const int at = w_->navigator()->current();
    QTest::keyClick(w_.get(), Qt::Key_Right);
    QCOMPARE(w_->navigator()->current(), at + 1);
    QTest::keyClick(w_.get(), Qt::Key_Left);
    QCOMPARE(w_->navigator()->current(), at);

    // The laser spot follows the mouse, over the whole window, and lets clicks through.
    LaserPointer* laser = w_->presenter()->laser();
    QVERIFY(laser->isVisible());
    QVERIFY(laser->testAttribute(Qt::WA_TransparentForMouseEvents));
    QCOMPARE(laser->geometry(), w_->rect());
    QWidget* target = w_->stepPanel();
    QTest::mouseMove(target, QPoint(120, 80));
    QTRY_COMPARE(laser->spot(), target->mapTo(w_.get(), QPoint(120, 80)));

    // Esc: an enlarged head closes first, then presenter mode ends.
    w_->navigator()->setCurrent(w_->controller()->current()->indexOf("encoder.layers.0.self_attn.weights"));
    QVERIFY(w_->stepPanel()->showingHeatmaps());
    w_->stepPanel()->heatmaps()->enlargeHead(1);
    QTest::keyClick(w_.get(), Qt::Key_Escape);
    QCOMPARE(w_->stepPanel()->heatmaps()->enlargedHead(), -1);
    QVERIFY(w_->presenter()->active());
    QTest::keyClick(w_.get(), Qt::Key_Escape);
    QVERIFY(!w_->presenter()->active());

    QVERIFY(!(w_->windowState() & Qt::WindowFullScreen));
    QTRY_COMPARE(visibleDocks(), docks);
    QVERIFY(w_->menuBar()->isVisible());
    QVERIFY(w_->statusBar()->isVisible());
    QVERIFY(w_->stepPanel()->tabs()->tabBar()->isVisible());
    QCOMPARE(w_->zoom(), zoom);
    QCOMPARE(w_->palette().color(QPalette::Window), window);
    QVERIFY(!laser->isVisible());
  }

  // F11 toggles both ways, and the View menu's action shows the state.
  // The window's settings are saved while it presents (each new result saves them against a
  // crash): they keep the window as it was before, so a crash in presenter mode does not bring
  // back full screen, hidden docks and the presenter's large type at the next start.
  void settingsSavedWhilePresentingKeepTheWindowBefore() {
    const double zoom = w_->zoom();
    const QByteArray state = w_->saveState();
    QTest::keyClick(w_.get(), Qt::Key_F11);
    QVERIFY(w_->presenter()->active());
    QVERIFY(w_->zoom() > zoom);
    w_->persist();
    QSettings s;
    s.beginGroup(QStringLiteral("presenter-test"));
    QCOMPARE(s.value(QStringLiteral("zoom")).toDouble(), zoom);
    QCOMPARE(s.value(QStringLiteral("state")).toByteArray(), state);
    // A window started from those settings is not in presenter mode's shape.
    auto again = test::openWindow(QStringLiteral("presenter-test"));
    QCOMPARE(again->zoom(), zoom);
    QVERIFY(!(again->windowState() & Qt::WindowFullScreen));
    QVERIFY(again->menuBar()->isVisible());
    again.reset();
    w_->presenter()->setActive(false);
    QCOMPARE(w_->zoom(), zoom);
  }

  void f11TogglesAndTheMenuFollows() {
    QAction* action = w_->findChild<QAction*>(QStringLiteral("presenterAction"));
    QVERIFY(action && action->isCheckable());
    QTest::keyClick(w_.get(), Qt::Key_F11);
    QVERIFY(action->isChecked());
    QTest::keyClick(w_.get(), Qt::Key_F11);  // the menu bar is hidden: the shortcut still works
    QVERIFY(!w_->presenter()->active());
    QVERIFY(!action->isChecked());
  }

  // Every control a keyboard or screen-reader user reaches has a name a screen reader can say
  // (its own, its button text, or its form label), in the normal window and in presenter mode.
  void controlsHaveAccessibleNames() {
    for (bool presenting : {false, true}) {
      w_->presenter()->setActive(presenting);
      QStringList nameless;
      for (QWidget* c : w_->findChildren<QWidget*>()) {
        if (!c->isVisible() || c->focusPolicy() == Qt::NoFocus || qobject_cast<QAbstractScrollArea*>(c) ||
            qobject_cast<QAbstractSpinBox*>(c->parentWidget()))  // a spin box's own line edit: the box is named
          continue;
        if (auto* t = qobject_cast<QTabBar*>(c); t && t->count() == 0) continue;  // QMainWindow's spare dock tab bar
        QAccessibleInterface* a = QAccessible::queryAccessibleInterface(c);
        if (!a || a->text(QAccessible::Name).trimmed().isEmpty())
          nameless << QStringLiteral("%1 '%2' in %3 (%4)")
                          .arg(QString::fromLatin1(c->metaObject()->className()), c->objectName(),
                               QString::fromLatin1(c->parentWidget()->metaObject()->className()))
                          .arg(presenting);
      }
      QVERIFY2(nameless.isEmpty(), qPrintable(nameless.join(QStringLiteral(", "))));
    }
    w_->presenter()->setActive(false);
  }

  // A look at it: a step with heatmaps, projector-sized.
  void screenshot() {
    w_->navigator()->setCurrent(w_->controller()->current()->indexOf("encoder.layers.0.self_attn.weights"));
    w_->presenter()->setActive(true);
    w_->resize(1920, 1080);
    QTest::qWait(100);
    QDir().mkpath(QStringLiteral(ATTNLAB_SCREENSHOT_DIR));
    const QImage img = w_->grab().toImage();
    QVERIFY(img.save(QStringLiteral(ATTNLAB_SCREENSHOT_DIR "/presenter.png")));
    w_->presenter()->setActive(false);
  }
};

QTEST_MAIN(TestPresenter)
#include "test_presenter.moc"
