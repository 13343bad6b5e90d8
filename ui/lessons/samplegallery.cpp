#include "lessons/samplegallery.h"

#include <QDialogButtonBox>
#include <QDir>
#include <QFile>
#include <QHBoxLayout>
#include <QLabel>
#include <QListWidget>
#include <QPainter>
#include <QPushButton>
#include <QVBoxLayout>

#include <map>
#include <tuple>

#include "input/weightsimport.h"
#include "views/heatmaprender.h"
#include "window/controller.h"
#include "words/language.h"
#include "words/qtstrings.h"
#include "words/steptext.h"

namespace attnlab::ui {

namespace {

QString inLanguage(const LessonText& t) {
  const bool zh = Language::effective() == UiLanguage::Chinese && !t.zh.empty();
  return QString::fromStdString(zh ? t.zh : t.en);
}

}  // namespace

std::vector<LessonEntry> SampleGallery::lessons() {
  std::vector<LessonEntry> out;
  const QDir dir(QStringLiteral(":/lessons"));
  for (const QString& name : dir.entryList({QStringLiteral("*.attnlab")}, QDir::Files, QDir::Name)) {
    QFile f(dir.filePath(name));
    if (!f.open(QIODevice::ReadOnly)) continue;
    try {
      LessonEntry e{dir.filePath(name), parse_session(f.readAll().toStdString(), name.toStdString()), {}, {}};
      e.title = inLanguage(e.session.title);
      e.description = inLanguage(e.session.description);
      if (e.title.isEmpty()) e.title = name;
      out.push_back(std::move(e));
    } catch (const std::exception&) {  // a shipped lesson is checked by test_gallery; skip, never crash
    }
  }
  return out;
}

Request SampleGallery::request(const LessonEntry& lesson) {
  const Session& s = lesson.session;
  Request r;
  r.texts = toQStrings(s.texts);
  r.memoryTexts = toQStrings(s.memory_texts);
  r.cfg = s.cfg;
  if (!s.loss.empty()) r.loss = parse_loss(s.loss);  // a gradient step's picture
  if (!s.weights.bytes.empty()) {
    r.weights = importWeightsBytes(s.weights.bytes, QString::fromStdString(s.weights.name), QString(), s.cfg);
    applyWeightsConfig(r.cfg, r.weights->loaded);  // as opening the lesson does
  }
  if (!s.ablate.empty()) r.ablate = explain::parse_heads(s.ablate);
  r.ablateMode = explain::ablate_mode_of(s.ablate_mode);  // checked by parse_session
  return r;
}

QImage SampleGallery::thumbnail(const LessonEntry& lesson, int width, bool bare) {
  // Lessons do not change while running; the words on a picture follow the language.
  static std::map<std::tuple<QString, int, bool, UiLanguage>, QImage> cache;
  const auto key = std::make_tuple(lesson.path, width, bare, Language::effective());
  if (const auto it = cache.find(key); it != cache.end()) return it->second;
  QImage img;
  try {
    const TraceResultPtr res = compute(request(lesson), 0);
    const int index = res->indexOf(lesson.session.step);
    if (index >= 0 && res->trace.steps()[static_cast<size_t>(index)].tensor.dim() == 4) {
      const Step& step = res->trace.steps()[static_cast<size_t>(index)];
      HeatmapPicture pic = headPicture(res->batch, res->trace, index, static_cast<int>(step.tensor.size(0)) - 1, 0);
      pic.title = StepText::title(step.info);
      if (bare) {
        pic.title.clear();
        pic.rowLabels.assign(static_cast<size_t>(pic.rows), std::string());
        pic.colLabels.assign(static_cast<size_t>(pic.cols), std::string());
        pic.rowAxis.clear();
        pic.colAxis.clear();
      }
      RenderOptions opt;
      opt.legend = false;
      opt.fontPx = 11;
      const QSize size(width, width * 3 / 4);
      img = QImage(size, QImage::Format_ARGB32_Premultiplied);
      img.fill(Qt::white);
      QPainter p(&img);
      HeatmapRenderer::paint(p, pic, QSizeF(size), opt);
    }
  } catch (const std::exception&) {
  }
  cache[key] = img;
  return img;
}

SampleGallery::SampleGallery(QWidget* parent) : QDialog(parent), lessons_(lessons()) {
  setWindowTitle(tr("Sample lessons"));
  setObjectName(QStringLiteral("sampleGallery"));
  list_ = new QListWidget;
  list_->setObjectName(QStringLiteral("lessonList"));
  list_->setAccessibleName(tr("Lessons"));
  list_->setIconSize(QSize(112, 84));
  list_->setSpacing(4);
  list_->setWordWrap(true);
  for (const LessonEntry& e : lessons_)
    list_->addItem(new QListWidgetItem(QIcon(QPixmap::fromImage(thumbnail(e, 192, true))), e.title));
  picture_ = new QLabel;
  picture_->setObjectName(QStringLiteral("lessonPicture"));
  picture_->setMinimumSize(420, 315);
  picture_->setAlignment(Qt::AlignCenter);
  title_ = new QLabel;
  title_->setObjectName(QStringLiteral("lessonTitle"));
  QFont big = font();
  big.setPointSizeF(font().pointSizeF() * 1.3);
  big.setBold(true);
  title_->setFont(big);
  title_->setWordWrap(true);
  description_ = new QLabel;
  description_->setObjectName(QStringLiteral("lessonDescription"));
  description_->setWordWrap(true);
  description_->setAlignment(Qt::AlignTop | Qt::AlignLeft);
  auto* right = new QVBoxLayout;
  right->addWidget(picture_);
  right->addWidget(title_);
  right->addWidget(description_, 1);
  auto* row = new QHBoxLayout;
  row->addWidget(list_, 2);
  row->addLayout(right, 3);
  auto* buttons = new QDialogButtonBox(QDialogButtonBox::Cancel);
  open_ = buttons->addButton(tr("Open lesson"), QDialogButtonBox::AcceptRole);
  open_->setObjectName(QStringLiteral("openLesson"));
  auto* v = new QVBoxLayout(this);
  v->addLayout(row, 1);
  v->addWidget(buttons);
  connect(list_, &QListWidget::currentRowChanged, this, &SampleGallery::showLesson);
  connect(list_, &QListWidget::itemActivated, this, [this] { open_->click(); });
  connect(buttons, &QDialogButtonBox::rejected, this, &QDialog::reject);
  connect(open_, &QPushButton::clicked, this, [this] {
    const int row = list_->currentRow();
    if (row < 0 || row >= static_cast<int>(lessons_.size())) return;
    emit openRequested(lessons_[static_cast<size_t>(row)].path);
    accept();
  });
  if (lessons_.empty()) {
    title_->setText(tr("No lessons found"));
    description_->setText(tr("This build has no lessons embedded (sample_inputs/lessons)."));
    open_->setEnabled(false);
  } else {
    list_->setCurrentRow(0);
  }
  resize(980, 600);
}

void SampleGallery::showLesson(int row) {
  if (row < 0 || row >= static_cast<int>(lessons_.size())) return;
  const LessonEntry& e = lessons_[static_cast<size_t>(row)];
  const QImage img = thumbnail(e, 420);
  picture_->setPixmap(img.isNull() ? QPixmap() : QPixmap::fromImage(img));
  if (img.isNull()) picture_->setText(tr("(no preview)"));
  title_->setText(e.title);
  description_->setText(e.description);
}

}  // namespace attnlab::ui
