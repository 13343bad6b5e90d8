// Reading back the text of a PDF that QPdfWriter wrote, for tests of the handout: Qt only (zlib
// through qUncompress, the fonts' ToUnicode maps), no PDF library.
#pragma once

#include <QByteArray>
#include <QRegularExpression>
#include <QString>
#include <QStringList>
#include <QtEndian>

#include <map>

namespace attnlab::ui::test {

// The text of each page of a PDF as QPdfWriter writes it: the page's content streams (Flate),
// each "<glyphs> Tj" read back through its font's ToUnicode map. Qt draws a glyph at a time, so
// whitespace is dropped (squeezed) and ligatures are spelled out; compare with squeezed(text).
inline QString squeezed(const QString& s) {
  QString out;
  for (const QChar c : s) {
    if (c.isSpace()) continue;
    switch (c.unicode()) {
      case 0xFB00: out += QLatin1String("ff"); break;
      case 0xFB01: out += QLatin1String("fi"); break;
      case 0xFB02: out += QLatin1String("fl"); break;
      case 0xFB03: out += QLatin1String("ffi"); break;
      case 0xFB04: out += QLatin1String("ffl"); break;
      default: out += c;
    }
  }
  return out;
}

inline QStringList pdfPageTexts(const QByteArray& pdf) {
  const QString all = QString::fromLatin1(pdf);  // a character a byte
  QHash<int, qsizetype> at;
  static const QRegularExpression objRe(QStringLiteral("(\\d+) 0 obj\\b"));
  for (auto it = objRe.globalMatch(all); it.hasNext();) {
    const auto m = it.next();
    at.insert(m.captured(1).toInt(), m.capturedEnd());
  }
  auto dict = [&](int n) {  // the object up to its stream or its end
    const qsizetype from = at.value(n, -1);
    if (from < 0) return QString();
    qsizetype to = all.indexOf(QLatin1String("endobj"), from);
    const qsizetype stream = all.indexOf(QLatin1String("stream"), from);
    if (stream >= 0 && stream < to) to = stream;
    return all.mid(from, to - from);
  };
  auto stream = [&](int n) {
    const qsizetype from = all.indexOf(QLatin1String("stream"), at.value(n, 0));
    const qsizetype begin = all.indexOf(QLatin1Char('\n'), from) + 1, end = all.indexOf(QLatin1String("endstream"), begin);
    QByteArray raw = pdf.mid(begin, end - begin);
    if (!dict(n).contains(QLatin1String("/FlateDecode"))) return raw;
    QByteArray sized(4, '\0');  // qUncompress's size prefix: only a first guess, it grows as needed
    qToBigEndian(quint32(raw.size() * 8), sized.data());
    return qUncompress(sized + raw);
  };
  auto ref = [](const QString& d, const QString& key) {
    const auto m = QRegularExpression(QStringLiteral("/%1\\s+(\\d+) 0 R").arg(key)).match(d);
    return m.hasMatch() ? m.captured(1).toInt() : -1;
  };
  auto utf16 = [](const QString& hex) {
    QString s;
    for (int i = 0; i + 4 <= hex.size(); i += 4) s += QChar(hex.mid(i, 4).toUShort(nullptr, 16));
    return s;
  };
  QHash<int, QHash<uint, QString>> cmaps;  // font object → glyph → characters
  auto cmap = [&](int font) -> const QHash<uint, QString>& {
    if (cmaps.contains(font)) return cmaps[font];
    QHash<uint, QString>& map = cmaps[font];
    const QString text = QString::fromLatin1(stream(ref(dict(font), QStringLiteral("ToUnicode"))));
    static const QRegularExpression chars(QStringLiteral("beginbfchar(.*?)endbfchar"), QRegularExpression::DotMatchesEverythingOption),
        ranges(QStringLiteral("beginbfrange(.*?)endbfrange"), QRegularExpression::DotMatchesEverythingOption),
        pair(QStringLiteral("<([0-9A-Fa-f]+)>\\s*<([0-9A-Fa-f]+)>")),
        range(QStringLiteral("<([0-9A-Fa-f]+)>\\s*<([0-9A-Fa-f]+)>\\s*(\\[[^\\]]*\\]|<[0-9A-Fa-f]+>)")),
        hex(QStringLiteral("<([0-9A-Fa-f]+)>"));
    for (auto c = chars.globalMatch(text); c.hasNext();)
      for (auto p = pair.globalMatch(c.next().captured(1)); p.hasNext();) {
        const auto m = p.next();
        map.insert(m.captured(1).toUInt(nullptr, 16), utf16(m.captured(2)));
      }
    for (auto r = ranges.globalMatch(text); r.hasNext();)
      for (auto p = range.globalMatch(r.next().captured(1)); p.hasNext();) {
        const auto m = p.next();
        const uint lo = m.captured(1).toUInt(nullptr, 16), hi = m.captured(2).toUInt(nullptr, 16);
        if (m.captured(3).startsWith(QLatin1Char('['))) {
          uint code = lo;
          for (auto d = hex.globalMatch(m.captured(3)); d.hasNext() && code <= hi; ++code) map.insert(code, utf16(d.next().captured(1)));
        } else {
          const QString first = utf16(m.captured(3).mid(1, m.captured(3).size() - 2));
          for (uint code = lo; code <= hi; ++code) {
            QString s = first;
            s.back() = QChar(s.back().unicode() + (code - lo));
            map.insert(code, s);
          }
        }
      }
    return map;
  };
  QStringList pages;
  const auto kids = QRegularExpression(QStringLiteral("/Type\\s*/Pages\\b[^>]*?/Kids\\s*\\[([^\\]]*)\\]")).match(all);
  static const QRegularExpression kidRe(QStringLiteral("(\\d+) 0 R")), fontRe(QStringLiteral("/(\\w+)\\s+(\\d+) 0 R")),
      opRe(QStringLiteral("/(\\w+)\\s+[-\\d.]+\\s+Tf|<([0-9A-Fa-f]*)>\\s*Tj"));
  for (auto k = kidRe.globalMatch(kids.captured(1)); k.hasNext();) {
    const QString page = dict(k.next().captured(1).toInt());
    const int res = ref(page, QStringLiteral("Resources"));
    const QString resources = res >= 0 ? dict(res) : page;
    QHash<QString, int> fonts;  // resource name → font object
    const auto fontDict = QRegularExpression(QStringLiteral("/Font\\s*<<([^>]*)>>")).match(resources);
    for (auto f = fontRe.globalMatch(fontDict.captured(1)); f.hasNext();) {
      const auto m = f.next();
      fonts.insert(m.captured(1), m.captured(2).toInt());
    }
    QString text;
    int font = -1;
    const QString content = QString::fromLatin1(stream(ref(page, QStringLiteral("Contents"))));
    for (auto op = opRe.globalMatch(content); op.hasNext();) {
      const auto m = op.next();
      if (!m.captured(1).isEmpty()) {
        font = fonts.value(m.captured(1), -1);
        continue;
      }
      const QString glyphs = m.captured(2);
      for (int i = 0; font >= 0 && i + 4 <= glyphs.size(); i += 4) text += cmap(font).value(glyphs.mid(i, 4).toUInt(nullptr, 16));
    }
    pages << squeezed(text);
  }
  return pages;
}

}  // namespace attnlab::ui::test
