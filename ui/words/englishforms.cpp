#include "words/englishforms.h"

#include <QCoreApplication>

namespace attnlab::ui {

EnglishForms::EnglishForms(const char* context, std::span<const EnglishForm> forms, bool whole) : context_(context) {
  for (const EnglishForm& f : forms) {
    const QString p = QString::fromUtf8(f.pattern);
    forms_.emplace_back(QRegularExpression(whole ? QLatin1Char('^') + p + QLatin1Char('$') : p), f.text);
  }
}

// The template with %1 … %9 replaced in one pass (a captured name holding "%2" stays as it is).
QString EnglishForms::translated(const char* text, const QRegularExpressionMatch& m) const {
  const QString templ = QCoreApplication::translate(context_, text);
  QString out;
  for (qsizetype i = 0; i < templ.size(); ++i) {
    const QChar c = templ[i];
    if (c == QLatin1Char('%') && i + 1 < templ.size() && templ[i + 1].isDigit() && templ[i + 1] != QLatin1Char('0')) {
      out += m.captured(templ[++i].digitValue());
      continue;
    }
    out += c;
  }
  return out;
}

QString EnglishForms::translateWhole(const QString& english) const {
  for (const auto& [re, text] : forms_)
    if (const auto m = re.match(english); m.hasMatch()) return translated(text, m);
  return {};
}

QString EnglishForms::translateEach(const QString& english) const {
  QString out = english;
  for (const auto& [re, text] : forms_) {
    std::vector<QRegularExpressionMatch> hits;
    for (auto it = re.globalMatch(out); it.hasNext();) hits.push_back(it.next());
    for (auto h = hits.rbegin(); h != hits.rend(); ++h)  // from the right: earlier offsets stay valid
      out.replace(h->capturedStart(), h->capturedLength(), translated(text, *h));
  }
  return out;
}

}  // namespace attnlab::ui
