// Lists of strings across the core/UI boundary: core speaks std::string (UTF-8), Qt QString.
#pragma once

#include <QStringList>

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

}  // namespace attnlab::ui
