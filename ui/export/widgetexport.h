// Any view or chart as a picture: the widget painted at a chosen scale into a PNG, as vector
// drawing commands into an SVG, or onto the clipboard. Files are written atomically (QSaveFile).
#pragma once

#include <QString>

#include <functional>

class QPushButton;
class QWidget;

namespace attnlab::ui {

// scale: device pixels per widget pixel (2 gives a sharp picture on slides); dpi = 96 × scale.
QString saveWidgetPng(QWidget* w, const QString& path, double scale = 2);
QString saveWidgetSvg(QWidget* w, const QString& path);
QString copyWidgetImage(QWidget* w, double scale = 2);
// By the path's suffix: .png (2×) or .svg of w, anything else the text `csv()` returns, written
// atomically. "" on success, else the message to show.
QString saveWidgetOrCsv(QWidget* w, const QString& path, const std::function<QString()>& csv);
// An "Export…" button of `owner`: a click asks for a PNG, SVG or CSV file (starting at
// `fileName`) and passes it to `save`, whose message ("" = saved) is shown when something failed.
QPushButton* exportButton(QWidget* owner, const QString& dialogTitle, const QString& fileName,
                          std::function<QString(const QString&)> save);

}  // namespace attnlab::ui
