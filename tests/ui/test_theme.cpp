// Dark and light desktops (Qt 6.4 has no colour-scheme query: the window judges by the palette).
// The step header, the explanation, the input panel's notes and the tour's callout are drawn and
// their text measured against their background: a WCAG contrast of at least 4.5 in both themes.
#include <QtTest>

#include <QApplication>
#include <QLabel>
#include <QStyle>
#include <QStyleFactory>

#include <cmath>
#include <map>

#include "lessons/guidedtour.h"
#include "step/stepnavigator.h"
#include "step/steppanel.h"
#include "window/mainwindow.h"
#include "windowfixture.h"

using namespace attnlab;
using namespace attnlab::ui;

namespace {

double luminance(QRgb c) {
  auto lin = [](int v) {
    const double s = v / 255.0;
    return s <= 0.03928 ? s / 12.92 : std::pow((s + 0.055) / 1.055, 2.4);
  };
  return 0.2126 * lin(qRed(c)) + 0.7152 * lin(qGreen(c)) + 0.0722 * lin(qBlue(c));
}

// The widget as drawn: its most common colour is the background; the text is the pixel that
// differs from it most. Returns their contrast ratio (1 … 21).
double drawnContrast(QWidget* w) {
  const QImage img = w->grab().toImage();
  std::map<QRgb, int> count;
  for (int y = 0; y < img.height(); ++y)
    for (int x = 0; x < img.width(); ++x) ++count[img.pixel(x, y) | 0xff000000];
  QRgb bg = 0;
  int most = -1;
  for (const auto& [c, n] : count)
    if (n > most) most = n, bg = c;
  const double lb = luminance(bg);
  double best = 1;
  for (const auto& [c, n] : count) {
    if (n < 4) continue;  // a lone anti-aliased pixel is not the text colour
    const double l = luminance(c);
    best = std::max(best, (std::max(l, lb) + 0.05) / (std::min(l, lb) + 0.05));
  }
  return best;
}

QPalette darkPalette() {
  QPalette p;
  p.setColor(QPalette::Window, QColor(0x2b, 0x2b, 0x2b));
  p.setColor(QPalette::WindowText, QColor(0xe6, 0xe6, 0xe6));
  p.setColor(QPalette::Base, QColor(0x1e, 0x1e, 0x1e));
  p.setColor(QPalette::AlternateBase, QColor(0x33, 0x33, 0x33));
  p.setColor(QPalette::Text, QColor(0xe6, 0xe6, 0xe6));
  p.setColor(QPalette::Button, QColor(0x35, 0x35, 0x35));
  p.setColor(QPalette::ButtonText, QColor(0xe6, 0xe6, 0xe6));
  p.setColor(QPalette::Highlight, QColor(0x3d, 0x7c, 0xc9));
  p.setColor(QPalette::HighlightedText, Qt::white);
  return p;
}

}  // namespace

class TestTheme : public QObject {
  Q_OBJECT

 private slots:
  void initTestCase() {
    test::isolateSettings();
    QApplication::setStyle(QStyleFactory::create(QStringLiteral("Fusion")));
  }

  void readableInBothThemes_data() {
    QTest::addColumn<bool>("dark");
    QTest::newRow("light") << false;
    QTest::newRow("dark") << true;
  }
  void readableInBothThemes() {
    QFETCH(bool, dark);
    QApplication::setPalette(dark ? darkPalette() : QApplication::style()->standardPalette());
    auto w = test::openWindow(dark ? QStringLiteral("dark") : QStringLiteral("light"));
    QVERIFY(w);
    const auto r = w->controller()->current();
    w->navigator()->setCurrent(r->indexOf("encoder.layers.0.self_attn.q_view"));
    QCoreApplication::processEvents();
    for (const char* name : {"location", "explanation", "formula", "code", "change"}) {
      auto* label = w->stepPanel()->findChild<QLabel*>(QLatin1String(name));
      QVERIFY2(label && !label->text().isEmpty(), name);
      const double c = drawnContrast(label);
      QVERIFY2(c >= 4.5, qPrintable(QStringLiteral("%1: contrast %2").arg(QLatin1String(name)).arg(c)));
    }
    GuidedTour* tour = w->startTour();
    QTest::qWait(20);
    for (const char* name : {"tourTitle", "tourText"}) {
      auto* label = tour->callout()->findChild<QLabel*>(QLatin1String(name));
      const double c = drawnContrast(label);
      QVERIFY2(c >= 4.5, qPrintable(QStringLiteral("%1: contrast %2").arg(QLatin1String(name)).arg(c)));
    }
    // High-DPI (test_theme_hidpi runs this at QT_SCALE_FACTOR=2): the window draws at the screen's
    // device pixel ratio, so text and heatmaps are sharp rather than scaled up.
    const double scale = qEnvironmentVariableIsSet("QT_SCALE_FACTOR") ? qEnvironmentVariable("QT_SCALE_FACTOR").toDouble() : 1.0;
    const QPixmap shot = w->grab();
    QCOMPARE(shot.devicePixelRatio(), scale);
    QCOMPARE(shot.width(), qRound(w->width() * scale));
    QDir().mkpath(QStringLiteral(ATTNLAB_SCREENSHOT_DIR));
    QVERIFY(shot.save(QStringLiteral(ATTNLAB_SCREENSHOT_DIR "/theme-%1%2.png").arg(dark ? "dark" : "light", scale > 1 ? "-2x" : "")));
    tour->end();
  }
};

QTEST_MAIN(TestTheme)
#include "test_theme.moc"
