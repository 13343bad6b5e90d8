#include "export/widgetexport.h"

#include <QClipboard>
#include <QFileDialog>
#include <QMessageBox>
#include <QPushButton>
#include <QFileInfo>
#include <QGuiApplication>
#include <QImage>
#include <QPainter>
#include <QSaveFile>
#include <QSvgGenerator>
#include <QWidget>

namespace attnlab::ui {

namespace {

QImage paintWidget(QWidget* w, double scale) {
  QImage img(w->size() * scale, QImage::Format_ARGB32_Premultiplied);
  img.fill(w->palette().color(QPalette::Window));
  img.setDotsPerMeterX(qRound(96 * scale / 0.0254));
  img.setDotsPerMeterY(qRound(96 * scale / 0.0254));
  QPainter p(&img);
  p.setRenderHint(QPainter::Antialiasing);
  p.scale(scale, scale);
  w->render(&p, QPoint(), QRegion(), QWidget::DrawChildren);
  return img;
}

}  // namespace

QString saveWidgetPng(QWidget* w, const QString& path, double scale) {
  if (!w || w->width() <= 0 || w->height() <= 0) return QObject::tr("There is nothing on screen to export.");
  QSaveFile f(path);
  if (!f.open(QIODevice::WriteOnly)) return QObject::tr("Cannot write %1: %2").arg(path, f.errorString());
  if (!paintWidget(w, scale).save(&f, "PNG") || !f.commit())
    return QObject::tr("Cannot write %1: %2").arg(path, f.errorString());
  return {};
}

QString saveWidgetSvg(QWidget* w, const QString& path) {
  if (!w || w->width() <= 0 || w->height() <= 0) return QObject::tr("There is nothing on screen to export.");
  QSaveFile f(path);
  if (!f.open(QIODevice::WriteOnly)) return QObject::tr("Cannot write %1: %2").arg(path, f.errorString());
  QSvgGenerator svg;
  svg.setOutputDevice(&f);
  svg.setSize(w->size());
  svg.setViewBox(QRect(QPoint(), w->size()));
  svg.setTitle(w->windowTitle().isEmpty() ? QObject::tr("Attention Lab view") : w->windowTitle());
  {
    QPainter p(&svg);
    w->render(&p, QPoint(), QRegion(), QWidget::DrawChildren);
  }
  if (!f.commit()) return QObject::tr("Cannot write %1: %2").arg(path, f.errorString());
  return {};
}

QString saveWidgetOrCsv(QWidget* w, const QString& path, const std::function<QString()>& csv) {
  const QString suffix = QFileInfo(path).suffix().toLower();
  if (suffix == QLatin1String("png")) return saveWidgetPng(w, path);
  if (suffix == QLatin1String("svg")) return saveWidgetSvg(w, path);
  QSaveFile f(path);
  const QByteArray bytes = csv().toUtf8();
  if (!f.open(QIODevice::WriteOnly) || f.write(bytes) != bytes.size() || !f.commit())
    return QObject::tr("Cannot write %1: %2").arg(path, f.errorString());
  return {};
}

QString copyWidgetImage(QWidget* w, double scale) {
  if (!w || w->width() <= 0) return QObject::tr("There is nothing on screen to copy.");
  QGuiApplication::clipboard()->setImage(paintWidget(w, scale));
  return {};
}

QPushButton* exportButton(QWidget* owner, const QString& dialogTitle, const QString& fileName,
                          std::function<QString(const QString&)> save) {
  auto* button = new QPushButton(QObject::tr("Export…"), owner);
  button->setToolTip(QObject::tr("As a PNG or SVG picture, or its numbers as CSV"));
  QObject::connect(button, &QPushButton::clicked, owner, [owner, dialogTitle, fileName, save = std::move(save)] {
    const QString path = QFileDialog::getSaveFileName(owner, dialogTitle, fileName,
                                                      QObject::tr("PNG image (*.png);;SVG drawing (*.svg);;CSV numbers (*.csv)"));
    if (path.isEmpty()) return;
    if (const QString problem = save(path); !problem.isEmpty()) QMessageBox::warning(owner, dialogTitle, problem);
  });
  return button;
}

}  // namespace attnlab::ui
