// The window's menus: File, View, Exercises, Help (the session, export and colour menus are
// built by sessionactions.cpp, exportactions.cpp and theirs).
#include <QActionGroup>
#include <QCoreApplication>
#include <QDesktopServices>
#include <QDir>
#include <QDockWidget>
#include <QFileInfo>
#include <QMenuBar>
#include <QMessageBox>
#include <QUrl>

#include "lessons/samplegallery.h"
#include "tensor/eigen_types.h"
#include "window/mainwindow.h"
#include "window/presenter.h"

namespace attnlab::ui {

void MainWindow::buildMenus() {
  QMenu* file = menuBar()->addMenu(tr("&File"));
  QAction* samples = file->addAction(tr("&Samples…"), this, [this] {
    auto* gallery = new SampleGallery(this);
    gallery->setAttribute(Qt::WA_DeleteOnClose);
    connect(gallery, &SampleGallery::openRequested, this, [this](const QString& path) { openSession(path); });
    gallery->open();
  });
  samples->setObjectName(QStringLiteral("samplesAction"));
  samples->setShortcut(QKeySequence(Qt::CTRL | Qt::SHIFT | Qt::Key_O));
  buildSessionMenu(file);
  file->addSeparator();
  buildExportMenu(file);
  file->addSeparator();
  file->addAction(tr("&Quit"), QKeySequence::Quit, this, &QWidget::close);
  QMenu* view = menuBar()->addMenu(tr("&View"));
  QAction* zoomIn = view->addAction(tr("Zoom &in"), this, [this] { setZoom(zoom_ * 1.2); });
  // Ctrl+= as well as Ctrl++ (the + needs Shift on most keyboards).
  zoomIn->setShortcuts({QKeySequence::ZoomIn, QKeySequence(Qt::CTRL | Qt::Key_Equal)});
  view->addAction(tr("Zoom &out"), QKeySequence::ZoomOut, this, [this] { setZoom(zoom_ / 1.2); });
  view->addAction(tr("&Reset zoom"), QKeySequence(Qt::CTRL | Qt::Key_0), this, [this] { setZoom(1.0); });
  buildColorMenu(view);
  buildLanguageMenu(view);
  view->addSeparator();
  QAction* present = view->addAction(tr("&Presenter mode"));
  present->setObjectName(QStringLiteral("presenterAction"));
  present->setCheckable(true);
  present->setShortcut(QKeySequence(Qt::Key_F11));
  addAction(present);  // its shortcut keeps working while the menu bar is hidden
  connect(present, &QAction::toggled, presenter_, &PresenterMode::setActive);
  connect(presenter_, &PresenterMode::activeChanged, present, &QAction::setChecked);
  QAction* showPredictions = predictionsDock_->toggleViewAction();
  showPredictions->setText(tr("P&redictions panel"));
  view->addAction(showPredictions);
  QAction* showLens = lensDock_->toggleViewAction();
  showLens->setText(tr("Logit le&ns panel"));
  view->addAction(showLens);
  QAction* showExplanations = explainDock_->toggleViewAction();
  showExplanations->setText(tr("E&xplanations panel"));
  view->addAction(showExplanations);
  QAction* showVariants = variantDock_->toggleViewAction();
  showVariants->setText(tr("&Variant panel"));
  view->addAction(showVariants);
  addPanelToggles(view);
  QMenu* exercises = menuBar()->addMenu(tr("E&xercises"));
  // Ctrl+E brings the exercises forward (shown, raised, focused), never hides them.
  QAction* showExercises = exercises->addAction(tr("&Exercise panel"), this, [this] { raiseDock(exerciseDock_); });
  showExercises->setObjectName(QStringLiteral("showExercisesAction"));
  showExercises->setShortcut(QKeySequence(Qt::CTRL | Qt::Key_E));
  addAction(showExercises);  // works in presenter mode too, with the menu bar hidden
  exercises->addAction(tr("&Reset progress…"), this, [this] {
    if (QMessageBox::question(this, tr("Reset progress"), tr("Forget which exercises are solved and the score?")) ==
        QMessageBox::Yes)
      resetExerciseProgress();
  });
  QMenu* help = menuBar()->addMenu(tr("&Help"));
  QAction* tour = help->addAction(tr("Guided &tour"), this, [this] { startTour(); });
  tour->setObjectName(QStringLiteral("tourAction"));
  help->addAction(tr("&Keys"), this, [this] {
    QMessageBox::information(this, tr("Keys"),
                             tr("← / →: previous / next step\nSpace: play / pause\nHome / End: first / last step\n"
                                "PgUp / PgDn: previous / next layer\nCtrl + / Ctrl −: zoom (for projectors)\n"
                                "F11: presenter mode (Esc leaves it)\nEsc: back from an enlarged head"));
  });
  QAction* guide = help->addAction(tr("User &guide"), this, [this] { openGuide(); });
  guide->setObjectName(QStringLiteral("guideAction"));
  guide->setShortcut(QKeySequence::HelpContents);
  QAction* about = help->addAction(tr("&About Attention Lab"), this, [this] { showAbout(); });
  about->setObjectName(QStringLiteral("aboutAction"));
}

// View ▸ Language: the choice is remembered; the window is rebuilt in the new language at once.
void MainWindow::buildLanguageMenu(QMenu* view) {
  QMenu* menu = view->addMenu(tr("&Language"));
  auto* group = new QActionGroup(menu);
  const UiLanguage saved = Language::saved();
  const struct {
    UiLanguage lang;
    QString text, name;
  } choices[] = {{UiLanguage::System, tr("Follow the &system"), QStringLiteral("languageSystem")},
                 {UiLanguage::English, QStringLiteral("English"), QStringLiteral("languageEnglish")},
                 {UiLanguage::Chinese, QStringLiteral("简体中文"), QStringLiteral("languageChinese")}};
  for (const auto& c : choices) {
    QAction* a = menu->addAction(c.text);  // each language names itself in its own words
    a->setObjectName(c.name);
    a->setCheckable(true);
    a->setChecked(c.lang == saved);
    group->addAction(a);
    connect(a, &QAction::triggered, this, [this, l = c.lang] { emit languageRequested(l); });
  }
}

// View ▸ every panel that can be closed, so that a closed one always comes back.
void MainWindow::addPanelToggles(QMenu* view) {
  const struct {
    const char* dock;
    QString text;
  } panels[] = {{"stepsDock", tr("&Steps panel")}, {"inputDock", tr("&Inputs panel")}, {"exerciseDock", tr("&Exercise panel")},
                {"trainingDock", tr("&Training panel")}};
  for (const auto& p : panels)
    if (auto* dock = findChild<QDockWidget*>(QLatin1String(p.dock))) {
      QAction* a = dock->toggleViewAction();
      a->setText(p.text);
      view->addAction(a);
    }
}

void MainWindow::raiseDock(QDockWidget* dock) {
  dock->show();
  dock->raise();  // in front of the docks tabbed with it
  if (QWidget* w = dock->widget()) w->setFocus();
}

// The user guide in the window's language: installed beside the program (share/doc/attnlab) or,
// in a build, the source tree's docs/ — opened by the desktop's viewer for Markdown or text.
QString MainWindow::guidePath() const {
  const QString name = Language::effective() == UiLanguage::Chinese ? QStringLiteral("guide.zh.md") : QStringLiteral("guide.md");
  const QDir bin(QCoreApplication::applicationDirPath());
  // Installed: <prefix>/bin/attnlab and <prefix>/share/doc/attnlab; built: build/<preset>/app/attnlab.
  for (const QString& dir : {bin.filePath(QStringLiteral("../share/doc/attnlab")), bin.filePath(QStringLiteral("../../../docs"))})
    if (QFileInfo::exists(QDir(dir).filePath(name))) return QDir::cleanPath(QDir(dir).filePath(name));
  return {};
}

void MainWindow::openGuide() {
  const QString path = guidePath();
  if (path.isEmpty() || !QDesktopServices::openUrl(QUrl::fromLocalFile(path)))
    QMessageBox::information(this, tr("User guide"),
                             path.isEmpty() ? tr("The user guide is not installed with this build. It is docs/guide.md in "
                                                 "Attention Lab's sources, and /usr/share/doc/attnlab/guide.md once installed.")
                                            : tr("No program is set to open %1; open it with a text editor or a Markdown "
                                                 "viewer.").arg(QDir::toNativeSeparators(path)));
}

void MainWindow::showAbout() {
  QMessageBox::about(this, tr("About Attention Lab"),
                     tr("<b>Attention Lab %1</b><br>Multi-head attention, step by step: every operation of an encoder "
                        "and a decoder with its shapes, formula, PyTorch line and heatmaps, checked against PyTorch."
                        "<br><br>Qt %2, Eigen %3.%4.%5.")
                         .arg(QStringLiteral(ATTNLAB_VERSION), QString::fromLatin1(qVersion()))
                         .arg(EIGEN_WORLD_VERSION)
                         .arg(EIGEN_MAJOR_VERSION)
                         .arg(EIGEN_MINOR_VERSION));
}

}  // namespace attnlab::ui
