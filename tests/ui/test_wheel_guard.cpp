// The mouse wheel over the inputs' scrolling dock, as a user turns it to reach the lower knobs:
// it scrolls the dock and changes no combo box or spin box under the pointer — until the user has
// clicked into that box (it has the focus), when the wheel steps its value as usual. A box outside
// any scrolling area keeps Qt's own wheel.
#include <QtTest>

#include <QAbstractScrollArea>
#include <QComboBox>
#include <QLineEdit>
#include <QScrollArea>
#include <QScrollBar>
#include <QSpinBox>
#include <QWheelEvent>

#include "input/inputpanel.h"
#include "window/mainwindow.h"
#include "window/wheelguard.h"
#include "windowfixture.h"

using namespace attnlab::ui;

namespace {

// One notch of the wheel turned towards the user (scrolling down) over the middle of `w`.
void wheelDown(QWidget* w) {
  const QPointF at(w->width() / 2.0, w->height() / 2.0);
  QWheelEvent e(at, w->mapToGlobal(at), QPoint(), QPoint(0, -120), Qt::NoButton, Qt::NoModifier, Qt::NoScrollPhase, false);
  QCoreApplication::sendEvent(w, &e);
}

QScrollBar* dockScrollBar(QWidget* inside) {
  auto* area = WheelGuard::scrollsInstead(inside);
  return area ? area->verticalScrollBar() : nullptr;
}

}  // namespace

class TestWheelGuard : public QObject {
  Q_OBJECT

 private slots:
  void initTestCase() { test::isolateSettings(); }

  void theWheelScrollsTheInputsInsteadOfTheirBoxes() {
    auto w = test::openWindow(QStringLiteral("wheelGuard"));
    QVERIFY(w);
    w->resize(1024, 600);  // a projector's short screen: the inputs' dock scrolls
    test::settle(*w);
    QComboBox* mask = w->inputs()->maskBox();
    QSpinBox* layers = w->inputs()->layersBox();
    QVERIFY(!mask->hasFocus() && !layers->hasFocus());
    // a real wheel turn would first give a Qt::WheelFocus box the focus (before any filter sees the
    // turn): the guarded boxes take it by click or Tab only — the window's own, and one polished later
    QCOMPARE(mask->focusPolicy(), Qt::StrongFocus);
    QCOMPARE(layers->focusPolicy(), Qt::StrongFocus);
    auto* later = new QSpinBox(w->inputs());
    QCOMPARE(later->focusPolicy(), Qt::WheelFocus);  // Qt's default
    later->ensurePolished();
    QCOMPARE(later->focusPolicy(), Qt::StrongFocus);
    delete later;
    QScrollBar* bar = dockScrollBar(mask);
    QVERIFY2(bar && bar->maximum() > 0, "the inputs' dock should scroll at 1024 × 600");
    QCOMPARE(dockScrollBar(layers), bar);
    const int maskIndex = mask->currentIndex(), layerCount = layers->value();
    bar->setValue(bar->minimum());
    wheelDown(mask);
    QCOMPARE(mask->currentIndex(), maskIndex);
    QVERIFY(bar->value() > bar->minimum());  // the dock moved instead
    const int scrolled = bar->value();
    wheelDown(layers);
    QCOMPARE(layers->value(), layerCount);
    QVERIFY(bar->value() > scrolled || bar->value() == bar->maximum());
    test::settle(*w);
    QCOMPARE(w->controller()->current()->cfg.layers, static_cast<int64_t>(layerCount));  // nothing ran again
    QCOMPARE(mask->currentIndex(), maskIndex);

    // clicked into (focused), the box takes the wheel as Qt's boxes do
    w->activateWindow();
    QApplication::setActiveWindow(w.get());
    layers->setFocus(Qt::MouseFocusReason);
    QTRY_VERIFY(layers->hasFocus());
    QVERIFY(!WheelGuard::scrollsInstead(layers));
    const int before = bar->value();
    wheelDown(layers);
    QCOMPARE(layers->value(), layerCount - 1 >= layers->minimum() ? layerCount - 1 : layerCount);
    QCOMPARE(bar->value(), before);
  }

  // A box in no scrolling area (or in one that fits, with nothing to scroll) keeps its wheel.
  void aBoxOutsideAScrollingAreaKeepsItsWheel() {
    WheelGuard::install();
    QWidget host;  // the focus on a line edit beside the box, as in a dialog
    auto* edit = new QLineEdit(&host);
    auto* box = new QComboBox(&host);
    box->move(0, 40);
    box->addItems({QStringLiteral("a"), QStringLiteral("b"), QStringLiteral("c")});
    host.show();
    QVERIFY(QTest::qWaitForWindowExposed(&host));
    edit->setFocus();
    QVERIFY(!box->hasFocus());
    QVERIFY(!WheelGuard::scrollsInstead(box));
    wheelDown(box);
    QCOMPARE(box->currentIndex(), 1);

    QScrollArea roomy;  // a scroll area larger than its content: nothing to scroll
    auto* inner = new QComboBox;
    inner->setFocusPolicy(Qt::NoFocus);  // shown alone it would take the focus, and a focused box keeps its wheel anyway
    inner->addItems({QStringLiteral("a"), QStringLiteral("b")});
    roomy.setWidget(inner);
    roomy.resize(400, 300);
    roomy.show();
    QVERIFY(QTest::qWaitForWindowExposed(&roomy));
    QVERIFY(!inner->hasFocus());
    QVERIFY(!WheelGuard::scrollsInstead(inner));
    wheelDown(inner);
    QCOMPARE(inner->currentIndex(), 1);
  }
};

QTEST_MAIN(TestWheelGuard)
#include "test_wheel_guard.moc"
