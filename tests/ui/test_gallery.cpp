// File ▸ Samples…: every shipped lesson opens, computes, has its step, a title and a description
// in both languages and a real thumbnail; together they cover the topics the classroom needs;
// choosing one in the gallery puts its sentences, model and step in the window.
#include <QtTest>

#include <QAction>
#include <QLabel>
#include <QListWidget>
#include <QPushButton>

#include <set>

#include "input/inputpanel.h"
#include "lessons/samplegallery.h"
#include "step/stepnavigator.h"
#include "window/mainwindow.h"
#include "windowfixture.h"
#include "words/language.h"
#include "words/qtstrings.h"

using namespace attnlab;
using namespace attnlab::ui;

namespace {


SampleGallery* openGallery(MainWindow& w) {
  w.findChild<QAction*>(QStringLiteral("samplesAction"))->trigger();
  return w.findChild<SampleGallery*>();
}

}  // namespace

class TestGallery : public QObject {
  Q_OBJECT

 private slots:
  void initTestCase() { test::isolateSettings(); }
  void cleanup() { Language::apply(UiLanguage::English); }

  void everyLessonIsComplete() {
    const auto lessons = SampleGallery::lessons();
    QVERIFY(lessons.size() >= 8);
    std::set<std::string> topics;
    for (const LessonEntry& e : lessons) {
      const Session& s = e.session;
      const QByteArray name = e.path.toUtf8();
      QVERIFY2(!s.title.en.empty() && test::hasCjk(s.title.zh), name.constData());
      QVERIFY2(s.description.en.size() > 80 && test::hasCjk(s.description.zh), name.constData());
      const TraceResultPtr res = compute(SampleGallery::request(e), 0);
      QVERIFY2(res->indexOf(s.step) >= 0, qPrintable(e.path + QStringLiteral(": no step ") + QString::fromStdString(s.step)));
      const QImage thumb = SampleGallery::thumbnail(e, 192);
      QVERIFY2(!thumb.isNull(), name.constData());
      std::set<QRgb> colours;
      for (int y = 0; y < thumb.height(); y += 3)
        for (int x = 0; x < thumb.width(); x += 3) colours.insert(thumb.pixel(x, y));
      QVERIFY2(colours.size() > 20, name.constData());  // a heatmap, not a blank square
      if (s.cfg.cross) topics.insert("cross");
      else if (s.texts.size() == 1 && s.cfg.mask == MaskKind::None) topics.insert("self");
      if (s.texts.size() >= 2 && s.cfg.mask == MaskKind::Padding) topics.insert("padding");
      if (s.cfg.mask == MaskKind::Causal) topics.insert("causal");
      if (s.step.ends_with(".scores")) topics.insert("scaling");
      if (!s.cfg.cross && test::hasCjk(s.texts[0])) topics.insert("chinese");
      if (s.cfg.overview_cap > 0 && res->batch.text.seq() > 256) topics.insert("long");
      if (res->gradients && s.step.ends_with(".grad")) topics.insert("gradients");
    }
    QCOMPARE(topics, (std::set<std::string>{"self", "cross", "padding", "causal", "scaling", "chinese", "long", "gradients"}));
  }

  void choosingALessonOpensIt() {
    auto w = test::openWindow(QStringLiteral("gallery"));
    QVERIFY(w);
    SampleGallery* g = openGallery(*w);
    QVERIFY(g && g->isVisible());
    const auto lessons = SampleGallery::lessons();
    QCOMPARE(g->list()->count(), static_cast<int>(lessons.size()));
    const int row = 2;  // padding in a batch
    g->list()->setCurrentRow(row);
    QCOMPARE(g->findChild<QLabel*>(QStringLiteral("lessonTitle"))->text(), QString::fromStdString(lessons[row].session.title.en));
    QVERIFY(!g->findChild<QLabel*>(QStringLiteral("lessonPicture"))->pixmap().isNull());
    QDir().mkpath(QStringLiteral(ATTNLAB_SCREENSHOT_DIR));
    QVERIFY(g->grab().save(QStringLiteral(ATTNLAB_SCREENSHOT_DIR "/gallery.png")));  // for people to look at
    QTest::mouseClick(g->openButton(), Qt::LeftButton);
    test::settle(*w);
    const Session& s = lessons[row].session;
    const Request r = w->inputs()->currentRequest();
    QCOMPARE(r.texts, toQStrings(s.texts));
    QCOMPARE(r.cfg.d_model, s.cfg.d_model);
    QCOMPARE(r.cfg.heads, s.cfg.heads);
    QCOMPARE(r.cfg.mask, s.cfg.mask);
    const auto res = w->controller()->current();
    QCOMPARE(res->trace.steps()[static_cast<size_t>(w->navigator()->current())].info.id, s.step);
    QVERIFY(QSettings().value(QStringLiteral("gallery/recentSessions")).toStringList().isEmpty());  // not a recent file
  }

  void titlesFollowTheLanguage() {
    Language::apply(UiLanguage::Chinese);
    const auto lessons = SampleGallery::lessons();
    QVERIFY(!lessons.empty());
    for (const LessonEntry& e : lessons) QCOMPARE(e.title, QString::fromStdString(e.session.title.zh));
  }
};

QTEST_MAIN(TestGallery)
#include "test_gallery.moc"
