// Lists of strings across the core/UI boundary: core speaks std::string (UTF-8), Qt QString.
#pragma once

#include <QChar>
#include <QStringList>
#include <QTextBoundaryFinder>

#include <string>
#include <vector>

namespace attnlab::ui {

inline std::vector<std::string> toStdStrings(const QStringList& l) {
  std::vector<std::string> out;
  for (const QString& s : l) out.push_back(s.toStdString());
  return out;
}

inline QStringList toQStrings(const std::vector<std::string>& v) {
  QStringList out;
  for (const auto& s : v) out << QString::fromStdString(s);
  return out;
}

// A token as a label shows it: at most kMaxShownToken characters, then "…". A pasted 1 MiB word
// would otherwise be measured and shaped whole at every paint of every chip and heatmap label.
inline constexpr int kMaxShownToken = 40;
inline QString shownToken(const QString& tok) {
  if (tok.size() <= kMaxShownToken) return tok;
  int n = kMaxShownToken - 1;
  if (tok.at(n - 1).isHighSurrogate()) --n;  // never half a character
  return tok.left(n) + QChar(0x2026);
}
inline QString shownToken(const std::string& tok) {
  // Only the start is converted: the label needs at most kMaxShownToken characters of it.
  constexpr size_t kBytes = 4 * (kMaxShownToken + 1);
  if (tok.size() <= kBytes) return shownToken(QString::fromStdString(tok));
  return shownToken(QString::fromUtf8(tok.data(), static_cast<qsizetype>(kBytes)));
}
inline std::vector<std::string> shownTokens(const std::vector<std::string>& v) {
  std::vector<std::string> out;
  out.reserve(v.size());
  for (const auto& t : v) out.push_back(t.size() <= size_t{kMaxShownToken} ? t : shownToken(t).toStdString());
  return out;
}

// Whether a text holds characters written upright in vertical text (Chinese, Japanese, Korean,
// full-width forms): such a label is stacked, not turned on its side.
inline bool hasWideCharacters(const QString& s) {
  for (const char32_t c : s.toUcs4())
    if ((c >= 0x2E80 && c <= 0x9FFF) || (c >= 0xAC00 && c <= 0xD7AF) || (c >= 0xF900 && c <= 0xFAFF) ||
        (c >= 0xFF00 && c <= 0xFFEF) || (c >= 0x20000 && c <= 0x3FFFF))
      return true;
  return false;
}

// The characters of a text as a reader counts them (a letter with its accents, a surrogate pair).
inline QStringList graphemes(const QString& s) {
  QStringList out;
  QTextBoundaryFinder f(QTextBoundaryFinder::Grapheme, s);
  qsizetype at = 0;
  while (f.toNextBoundary() > 0) {
    out << s.mid(at, f.position() - at);
    at = f.position();
  }
  return out;
}

}  // namespace attnlab::ui
