// Two languages: every kind of step has a known title, formula and explanation, in English and in
// Chinese; the Chinese window shows no untranslated English; the language switches without a
// restart and the window keeps its sentences and step. (.ts completeness: tests/i18n.)
#include <QAction>
#include <QCheckBox>
#include <QComboBox>
#include <QDockWidget>
#include <QGroupBox>
#include <QLabel>
#include <QMenuBar>
#include <QPlainTextEdit>
#include <QRegularExpression>
#include <QTabBar>
#include <QTabWidget>
#include <QTest>
#include <QTranslator>
#include <QToolButton>

#include "backend/backend.h"
#include "forward/memory.h"
#include "forward/model.h"
#include "input/inputpanel.h"
#include "input/variantchooser.h"
#include "input/weightsimport.h"
#include "io/session.h"
#include "io/weights_file.h"
#include "lessons/exercisepanel.h"
#include "model/faults.h"
#include "model/weights.h"
#include "step/stepnavigator.h"
#include "step/steppanel.h"
#include "text/errors.h"
#include "text/tokenizer.h"
#include "window/mainwindow.h"
#include "window/windowhost.h"
#include "windowfixture.h"
#include "words/coretext.h"
#include "words/language.h"
#include "words/steptext.h"

using namespace attnlab;
using namespace attnlab::ui;

namespace {


// Two English words in a row, outside the names that stay English in Chinese text.
QString englishProse(QString s) {
  static const QRegularExpression twoWords(QStringLiteral("[A-Za-z]{2,}\\s+[A-Za-z]{2,}"));
  for (const char* keep : {"Attention Lab", "PgUp", "PgDn", "Space", "Home", "End", "Ctrl", "Esc"}) s.remove(QLatin1String(keep));
  static const QRegularExpression cpuModel(QStringLiteral("CPU[:：]\\s*[^(（]*"));  // the processor's own name
  s.remove(cpuModel);
  const auto m = twoWords.match(s);
  return m.hasMatch() ? m.captured(0) : QString();
}

// Requests that between them produce every kind of step core records.
std::vector<Request> everyKindOfStep() {
  std::vector<Request> out;
  auto base = [] {
    Request r;
    r.texts = {QStringLiteral("the cat sat"), QStringLiteral("dogs")};
    r.cfg.d_model = 16;
    r.cfg.heads = 2;
    r.cfg.d_ff = 32;
    return r;
  };
  for (MaskKind m : {MaskKind::None, MaskKind::Padding, MaskKind::Causal, MaskKind::PaddingCausal}) {
    Request r = base();
    r.cfg.mask = m;
    r.cfg.norm = m == MaskKind::Causal ? Norm::Post : Norm::Pre;
    out.push_back(r);
  }
  Request cross = base();  // decoder, cross-attention, GELU, no position code
  cross.memoryTexts = {QStringLiteral("le chat"), QStringLiteral("les chiens")};
  cross.cfg.activation = Activation::Gelu;
  cross.cfg.positional = Positional::None;
  cross.cfg.mask = MaskKind::PaddingCausal;
  out.push_back(cross);
  Request tiled = base();
  tiled.cfg.overview_cap = 2;
  out.push_back(tiled);
  // the shipped trained models: their own table, [UNK], the output head (both kinds of task)
  for (const QString& f : QDir(QStringLiteral(ATTNLAB_SOURCE_DIR "/sample_inputs/models"))
                              .entryList({QStringLiteral("*.safetensors")}, QDir::Files, QDir::Name)) {
    Request r = base();
    r.weights = importWeightsFile(QStringLiteral(ATTNLAB_SOURCE_DIR "/sample_inputs/models/") + f, r.cfg);
    applyWeightsConfig(r.cfg, r.weights->loaded);
    out.push_back(r);
  }
  // every attention variant beside the first block; the ones whose steps differ with a causal
  // mask once more with one (Linformer refuses it)
  for (VariantKind k : all_variants())
    for (MaskKind m : {MaskKind::Padding, MaskKind::PaddingCausal}) {
      if (m == MaskKind::PaddingCausal && k != VariantKind::Linear && k != VariantKind::KvCache && k != VariantKind::TopK)
        continue;
      Request r = base();
      r.cfg.mask = m;
      r.cfg.variant.kind = k;
      r.cfg.variant.tile = 2;  // three key blocks: the rescale step too
      out.push_back(r);
    }
  for (const auto& info : all_faults()) {
    if (info.fault == Fault::IndivisibleHeads) continue;  // refused before any step runs
    for (bool hide : {false, true}) {
      Request r = base();
      r.cfg.mask = MaskKind::PaddingCausal;
      r.cfg.faults = {info.fault};
      r.hideFaults = hide;
      out.push_back(r);
    }
  }
  return out;
}

// The refusals a user can meet in the window, as core words them: damaged or foreign sessions,
// weights files that lie in every way the reader checks, configurations that cannot run.
// Each refusal as the command line prints it (what()) and as the window receives it (its Text).
struct Refusal {
  QString english;
  Text text;
};

std::vector<Refusal> coreRefusals() {
  std::vector<Refusal> out;
  auto keep = [&out](const std::function<void()>& f) {
    try {
      f();
      out.push_back({QStringLiteral("(no refusal)"), {}});
    } catch (const std::exception& e) {
      out.push_back({QString::fromStdString(e.what()), text_of(e)});
    }
  };
  const std::string head = "{\"format\": \"attnlab-session\", \"version\": 1, \"texts\": [\"a b\"], ";
  for (const std::string& text :
       {std::string("{\"format\": \"attnlab-sess"), std::string("{\"name\": 1}"),
        std::string("{\"format\": \"attnlab-session\", \"version\": 9, \"texts\": [\"a\"]}"),
        std::string("{\"format\": \"attnlab-session\", \"texts\": [\"a\"]}"),
        std::string("{\"format\": \"attnlab-session\", \"version\": 1, \"texts\": []}"),
        std::string("{\"format\": \"attnlab-session\", \"version\": 1, \"texts\": \"a\"}"),
        head + "\"config\": {\"heads\": \"8\"}}", head + "\"config\": {\"d_model\": 10, \"heads\": 4}}",
        head + "\"config\": {\"mask\": \"diagonal\"}}", head + "\"config\": {\"layers\": 100000}}",
        head + "\"view\": {\"backend\": \"tpu\"}}", head + "\"view\": {\"memory_budget_mib\": 0}}",
        head + "\"config\": 5}", head + "\"weights\": {\"name\": \"a\"}}", head + "\"weights\": {\"embedded\": \"AB*D\"}}",
        head + "\"weights\": {\"embedded\": \"ABC\"}}", head + "\"lesson\": {\"title\": \"x\"}}",
        head + "\"config\": {\"overview_cap\": -1}}", head + "\"view\": {\"tab\": \"graphs\"}}",
        head + "\"view\": {\"sentence\": 4}}", head + "\"view\": {\"head\": 99}}",
        head + "\"config\": {\"mask\": \"causal\", \"variant\": {\"kind\": \"linformer\"}}}",
        head + "\"config\": {\"variant\": {\"kind\": \"sparse\"}}}",
        head + "\"config\": {\"variant\": {\"kind\": \"window\", \"window\": -1}}}",
        head + "\"config\": {\"variant\": {\"kind\": \"topk\", \"layer\": 3}}}",
        head + "\"config\": {\"variant\": 7}}"})
    keep([&] { parse_session(text, "lesson.attnlab"); });
  ModelConfig cfg;
  cfg.d_model = 8;
  cfg.heads = 2;
  cfg.d_ff = 16;
  const Weights w = init_weights(cfg);
  const std::string good = serialize_weights(cfg, w);
  auto weights = [&](const std::string& bytes) { keep([&] { importWeightsBytes(bytes, QStringLiteral("w.safetensors"), {}, cfg); }); };
  weights(good.substr(0, 5));
  weights(good.substr(0, good.size() / 2));
  weights(std::string("\x10\0\0\0\0\0\0\0not json at all!"));
  auto edited = [&](const std::string& from, const std::string& to) {
    std::string b = good;
    const auto at = b.find(from);
    if (at != std::string::npos) b.replace(at, from.size(), to);
    return b;
  };
  weights(edited("F32", "I64"));
  weights(edited("attnlab-weights/1", "attnlab-weights/9"));
  weights(edited("encoder.layers.0.linear1.weight", "encoder.layers.0.linear9.weight"));
  weights(edited("in_proj_weight", "in_proj_weigh_"));
  Weights nan = w;
  Tensor t = nan.get("encoder.layers.0.linear2.bias").clone();
  t.data()[0] = std::numeric_limits<float>::quiet_NaN();
  nan.set("encoder.layers.0.linear2.bias", t);
  keep([&] { check_weights(cfg, nan); });
  ModelConfig bad = cfg;
  bad.heads = 3;
  keep([&] { bad.validate(); });
  keep([&] { parse_norm("middle"); });
  keep([&] { make_token_batch({"a", "   "}, "--text"); });
  keep([&] { make_batch({"a b", "c", "d"}, {"x", "y"}); });
  keep([&] {
    MemoryEstimate e;
    e.trace_bytes = int64_t{3} << 30;
    e.weights_bytes = 1 << 20;
    e.working_bytes = 1 << 22;
    check_memory_budget(e, 1024);
  });
  BackendNote note;  // on a machine without a GPU (CI: lavapipe only) auto says why it used the CPU
  make_backend(BackendKind::Auto, &note);
  if (!note.text.empty()) out.push_back({QString::fromStdString(note.text.english()), note.text});
  return out;
}

}  // namespace

class TestLanguage : public QObject {
  Q_OBJECT

 private slots:
  void initTestCase() { test::isolateSettings(); }
  void cleanup() { Language::apply(UiLanguage::English); }

  void everyStepHasWordsInBothLanguages() {
    int steps = 0;
    for (const Request& r : everyKindOfStep()) {
      const TraceResultPtr res = compute(r, 1);
      for (const Step& s : res->trace.steps()) {
        ++steps;
        const QString id = QString::fromStdString(s.info.id);
        QVERIFY2(StepText::knownTitle(s.info), qPrintable(id + QStringLiteral(": title not in the table: ") +
                                                          QString::fromStdString(s.info.title.english())));
        QVERIFY2(StepText::knownFormula(s.info), qPrintable(id + QStringLiteral(": formula not in the table: ") +
                                                            QString::fromStdString(s.info.formula.english())));
        QVERIFY2(!StepText::explanation(s.info.id).isEmpty(), qPrintable(id + QStringLiteral(": no explanation")));
        QCOMPARE(StepText::title(s.info), QString::fromStdString(s.info.title.english()));  // English is the source
      }
    }
    QVERIFY(steps > 500);
    Language::apply(UiLanguage::Chinese);
    QCOMPARE(Language::effective(), UiLanguage::Chinese);
    for (const Request& r : everyKindOfStep()) {
      const TraceResultPtr res = compute(r, 1);
      for (const Step& s : res->trace.steps()) {
        const QString id = QString::fromStdString(s.info.id);
        const bool bareId = s.info.title.english() == s.info.id.substr(s.info.id.rfind('.') + 1);
        if (!bareId) QVERIFY2(englishProse(StepText::title(s.info)).isEmpty(), qPrintable(id + QStringLiteral(": ") + StepText::title(s.info)));
        QVERIFY2(test::hasCjk(StepText::explanation(s.info.id)), qPrintable(id));
        const QString f = StepText::formula(s.info);
        QVERIFY2(englishProse(f).isEmpty(), qPrintable(id + QStringLiteral(": ") + f));
      }
    }
    for (const auto& f : all_faults()) QVERIFY2(test::hasCjk(StepText::faultTitle(f.fault)), f.id.data());
  }

  // "System" follows the desktop's locale (LANG / LC_ALL): ctest runs this once as it is (C →
  // English) and once more under zh_CN.UTF-8 (test_language_system_zh), where the window that a
  // first start builds is Chinese.
  void followsTheSystemLanguage() {
    const bool zh = qEnvironmentVariable("ATTNLAB_EXPECT_LANGUAGE") == QLatin1String("zh");
    QCOMPARE(Language::saved(), UiLanguage::System);  // nothing chosen yet
    QCOMPARE(Language::resolve(UiLanguage::System), zh ? UiLanguage::Chinese : UiLanguage::English);
    WindowHost host(QStringLiteral("system"));
    QCOMPARE(Language::effective(), zh ? UiLanguage::Chinese : UiLanguage::English);
    QCOMPARE(host.window()->menuBar()->actions().first()->text(), zh ? QStringLiteral("文件(&F)") : QStringLiteral("&File"));
    QVERIFY(host.window()->findChild<QAction*>(QStringLiteral("languageSystem"))->isChecked());
  }

  void coreRefusalsInBothLanguages() {
    const std::vector<Refusal> refusals = coreRefusals();
    QVERIFY(refusals.size() > 25);
    for (const Refusal& r : refusals) {
      QVERIFY2(r.english != QLatin1String("(no refusal)"), "every case is refused");
      QCOMPARE(CoreText::translate(r.text), r.english);  // English: the message itself
    }
    Language::apply(UiLanguage::Chinese);
    QStringList left;
    for (const Refusal& r : refusals) {
      const QString& m = r.english;
      QString zh = CoreText::translate(r.text);
      QVERIFY2(test::hasCjk(zh), qPrintable(m));
      static const QRegularExpression names(QStringLiteral("'[^']*'|\"[^\"]*\"|“[^”]*”|‘[^’]*’|--[a-z-]+|\\S+\\.(attnlab|safetensors)"));
      zh.remove(names);
      if (const QString prose = englishProse(zh); !prose.isEmpty()) left << m + QStringLiteral("  →  ") + CoreText::translate(r.text);
    }
    QVERIFY2(left.isEmpty(), qPrintable(left.join(QLatin1Char('\n'))));
  }

  // The whole catalogue, not a sample: every message id has a Chinese template of its own with
  // the same placeholders — with Chinese words wherever the English has words (a bare "%1: "
  // changes only its colon) — so no refusal or note core can make reaches the window in English.
  void everyCatalogueMessageHasChinese() {
    QVERIFY(message_catalogue().size() > 300);
    QTranslator zhCN;  // the compiled .ts itself: translate() is empty for a message it lacks
    QVERIFY(zhCN.load(QStringLiteral(":/i18n/attnlab_zh_CN.qm")));
    QStringList missing;
    static const QRegularExpression placeholder(QStringLiteral("%[1-9]"));
    for (const MessageTemplate& m : message_catalogue()) {
      const QString en = QString::fromUtf8(m.english), zh = zhCN.translate(m.context, m.english);
      auto marks = [](const QString& t) {
        QStringList out;
        for (auto it = placeholder.globalMatch(t); it.hasNext();) out << it.next().captured(0);
        out.sort();
        return out;
      };
      const bool words = !englishProse(QString(en).remove(placeholder)).isEmpty();
      if (zh.isEmpty() || (words && !test::hasCjk(zh)) || marks(zh) != marks(en))
        missing << QString::fromUtf8(m.key) + QStringLiteral(": ") + en + QStringLiteral("  →  ") + zh;
    }
    QVERIFY2(missing.isEmpty(), qPrintable(missing.join(QLatin1Char('\n'))));
  }

  void crossAttentionStepsSayWhereQueriesAndKeysComeFrom() {
    const QString self = StepText::explanation("encoder.layers.0.self_attn.k_proj");
    const QString cross = StepText::explanation("decoder.layers.0.multihead_attn.k_proj");
    QVERIFY(cross.startsWith(self));
    QVERIFY(cross.contains(QStringLiteral("encoder's output")));
    QCOMPARE(StepText::kind("decoder.layers.3.norm2"), std::string("norm"));
    for (const auto& f : all_faults()) QCOMPARE(StepText::faultTitle(f.fault), QString::fromUtf8(f.title.data()));
    QCOMPARE(StepText::kind("encoder.layers.0.ffn.linear1"), std::string("ffn.linear1"));
    QCOMPARE(StepText::kind("encoder.embedding_table"), std::string("embedding_table"));
  }

  // Every text a widget shows, in every step, every view tab and every menu of the Chinese
  // window: no two English words in a row (the code line, which is PyTorch, excepted).
  void chineseWindowShowsNoEnglish() {
    WindowHost host(QStringLiteral("zhWindow"));
    host.switchLanguage(UiLanguage::Chinese);
    MainWindow* w = host.window();
    w->resize(1400, 900);
    w->show();
    QVERIFY(QTest::qWaitForWindowExposed(w));
    Request r = w->inputs()->currentRequest();
    r.texts = {QStringLiteral("小猫坐在垫子上"), QStringLiteral("今天天气很好")};
    r.memoryTexts = {QStringLiteral("猫"), QStringLiteral("天气")};
    r.cfg.variant.kind = VariantKind::Window;  // the variant chooser's knobs, its steps and its dock too
    w->inputs()->restore(r);
    test::settle(*w);
    QStringList found;
    auto check = [&](const QString& where, const QString& text) {
      const QString prose = englishProse(text);
      if (!prose.isEmpty() && found.size() < 40) found << where + QStringLiteral(": \"") + prose + QStringLiteral("\" in ") + text.left(120);
    };
    auto sweep = [&](const QString& stepId) {
      for (QWidget* x : w->findChildren<QWidget*>()) {
        if (x->objectName() == QLatin1String("code") || qobject_cast<QPlainTextEdit*>(x)) continue;
        const QString where = stepId + QLatin1Char('/') + QString::fromLatin1(x->metaObject()->className()) +
                              QLatin1Char('#') + x->objectName();
        check(where, x->toolTip());
        check(where, x->accessibleName());
        if (auto* l = qobject_cast<QLabel*>(x)) check(where, l->text());
        if (auto* b = qobject_cast<QAbstractButton*>(x)) check(where, b->text());
        if (auto* g = qobject_cast<QGroupBox*>(x)) check(where, g->title());
        if (auto* d = qobject_cast<QDockWidget*>(x)) check(where, d->windowTitle());
        if (auto* c = qobject_cast<QComboBox*>(x))
          for (int i = 0; i < c->count(); ++i) check(where, c->itemText(i));
        if (auto* t = qobject_cast<QTabBar*>(x))
          for (int i = 0; i < t->count(); ++i) check(where, t->tabText(i)), check(where, t->tabToolTip(i));
      }
    };
    const int n = w->navigator()->count();
    QVERIFY(n > 60);
    for (int i = 0; i < n; ++i) {
      w->navigator()->setCurrent(i);
      QCoreApplication::processEvents();
      sweep(QString::number(i));
    }
    QVERIFY(!w->variantDock()->isHidden());
    // the other variants' knobs and dock texts (the walk-throughs' agreement checks, BigBird's
    // knobs), and Linformer's refusal of a causal mask
    for (VariantKind k : {VariantKind::KvCache, VariantKind::Tiled, VariantKind::Linear, VariantKind::BigBird,
                          VariantKind::Linformer}) {
      QComboBox* box = w->inputs()->variantBox();
      box->setCurrentIndex(box->findData(QString::fromUtf8(variant_name(k).data())));
      if (k == VariantKind::Linformer) {  // refused with a causal encoder mask (not in cross mode: that mask is the decoder's)
        w->inputs()->crossBox()->setChecked(false);
        w->inputs()->maskBox()->setCurrentText(QStringLiteral("padding+causal"));
      }
      test::settle(*w);
      sweep(QString::fromUtf8(variant_name(k).data()));
    }
    QVERIFY(w->inputs()->explanationLabel()->isVisibleTo(w->inputs()));
    for (QAction* a : w->findChildren<QAction*>()) check(QStringLiteral("action"), a->text()), check(QStringLiteral("action"), a->toolTip());
    check(QStringLiteral("title"), w->windowTitle());
    QVERIFY2(found.isEmpty(), qPrintable(found.join(QLatin1Char('\n'))));
  }

  // `attnlab --language zh` on a machine whose system language is English: the exercises speak the
  // window's language (not the system's) until the learner picks one in the exercise panel.
  void exercisesFollowTheWindowsLanguageForThisRun() {
    QSettings().remove(QStringLiteral("exerciseLanguage"));
    {
      WindowHost host(QStringLiteral("zhRun"), nullptr, UiLanguage::Chinese);
      QCOMPARE(host.window()->exercisePanel()->language(), Lang::Zh);
    }
    QSettings().setValue(QStringLiteral("exerciseLanguage"), QStringLiteral("en"));  // picked once: kept
    WindowHost host(QStringLiteral("zhRun"), nullptr, UiLanguage::Chinese);
    QCOMPARE(host.window()->exercisePanel()->language(), Lang::En);
    QSettings().remove(QStringLiteral("exerciseLanguage"));
  }

  void switchesLanguageWithoutRestart() {
    WindowHost host(QStringLiteral("switch"));
    host.switchLanguage(UiLanguage::English);
    MainWindow* en = host.window();
    en->resize(1200, 800);
    en->show();
    QVERIFY(QTest::qWaitForWindowExposed(en));
    test::settle(*en);
    QCOMPARE(en->menuBar()->actions().first()->text(), QStringLiteral("&File"));
    Request r = en->inputs()->currentRequest();
    r.texts = {QStringLiteral("attention is all you need")};
    r.cfg.heads = 4;
    en->inputs()->restore(r);
    test::settle(*en);
    en->navigator()->setCurrent(20);
    QCoreApplication::processEvents();
    const QString step = en->stepPanel()->locationText().section(QStringLiteral(" · "), -1);
    QCOMPARE(step, StepText::title(en->controller()->current()->trace.steps()[20].info));

    QAction* chinese = en->findChild<QAction*>(QStringLiteral("languageChinese"));
    QVERIFY(chinese);
    chinese->trigger();  // as from View ▸ Language
    QTRY_VERIFY(host.window() != en);
    MainWindow* zh = host.window();
    QVERIFY(zh->isVisible());
    test::settle(*zh);
    QCOMPARE(zh->menuBar()->actions().first()->text(), QStringLiteral("文件(&F)"));
    QCOMPARE(zh->inputs()->currentRequest().texts, r.texts);
    QCOMPARE(zh->inputs()->currentRequest().cfg.heads, 4);
    QCOMPARE(zh->navigator()->current(), 20);
    QVERIFY(test::hasCjk(zh->stepPanel()->locationText()));
    QVERIFY(zh->findChild<QAction*>(QStringLiteral("languageChinese"))->isChecked());
    QCOMPARE(Language::saved(), UiLanguage::Chinese);

    // An exercise in progress goes along, in the new language.
    zh->exercisePanel()->start(0);
    test::settle(*zh);
    const std::string exercise = zh->exercisePanel()->active()->id;
    zh->findChild<QAction*>(QStringLiteral("languageEnglish"))->trigger();
    QTRY_VERIFY(host.window() != zh);
    test::settle(*host.window());
    QCOMPARE(host.window()->menuBar()->actions().first()->text(), QStringLiteral("&File"));
    QVERIFY(host.window()->exercisePanel()->active());
    QCOMPARE(host.window()->exercisePanel()->active()->id, exercise);
    QCOMPARE(host.window()->exercisePanel()->language(), Lang::En);
  }
};

QTEST_MAIN(TestLanguage)
#include "test_language.moc"
