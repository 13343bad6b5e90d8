#include "input/samplesentences.h"

#include <QCoreApplication>
#include <QFile>

#include "forward/model.h"

namespace attnlab::ui {

namespace {

const SampleSentences kSamples[] = {
    {QT_TRANSLATE_NOOP("attnlab::ui::InputPanel", "Built-in: English + Chinese batch"), nullptr, nullptr},
    {QT_TRANSLATE_NOOP("attnlab::ui::InputPanel", "English batch (padding)"), ":/samples/english_batch.txt", nullptr},
    {QT_TRANSLATE_NOOP("attnlab::ui::InputPanel", "Chinese sentences"), ":/samples/chinese.txt", nullptr},
    {QT_TRANSLATE_NOOP("attnlab::ui::InputPanel", "Translation (cross-attention)"), ":/samples/translation_target.txt",
     ":/samples/translation_source.txt"},
    {QT_TRANSLATE_NOOP("attnlab::ui::InputPanel", "Long document"), ":/samples/long_document.txt", nullptr},
};

QString readResource(const char* path) {
  QFile f(QString::fromLatin1(path));
  return f.open(QIODevice::ReadOnly) ? QString::fromUtf8(f.readAll()).trimmed() : QString();
}

}  // namespace

std::span<const SampleSentences> sampleSentences() { return kSamples; }

QStringList sampleLines(const SampleSentences& s, bool source) {
  QStringList text;
  if (source) text = s.source ? readResource(s.source).split(QLatin1Char('\n')) : QStringList();
  else if (s.file) text = readResource(s.file).split(QLatin1Char('\n'));
  else for (const auto& t : builtin_sample()) text << QString::fromStdString(t);
  QStringList out;
  for (const QString& l : text)
    if (!l.trimmed().isEmpty()) out << l;
  return out;
}

}  // namespace attnlab::ui
