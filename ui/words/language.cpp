#include "words/language.h"

#include <QCoreApplication>
#include <QLibraryInfo>
#include <QLocale>
#include <QSettings>
#include <QTranslator>

namespace attnlab::ui {

namespace {

const QString kKey = QStringLiteral("language");

QTranslator& appTranslator() {
  static QTranslator t;
  return t;
}

QTranslator& qtTranslator() {  // Qt's own strings: the buttons of message boxes and file dialogs
  static QTranslator t;
  return t;
}

UiLanguage& current() {
  static UiLanguage l = UiLanguage::English;
  return l;
}

}  // namespace

UiLanguage Language::saved() {
  const QString v = QSettings().value(kKey).toString();
  if (v == QLatin1String("en")) return UiLanguage::English;
  if (v == QLatin1String("zh_CN")) return UiLanguage::Chinese;
  return UiLanguage::System;
}

void Language::save(UiLanguage choice) {
  QSettings().setValue(kKey, choice == UiLanguage::English   ? QStringLiteral("en")
                             : choice == UiLanguage::Chinese ? QStringLiteral("zh_CN")
                                                             : QStringLiteral("system"));
}

UiLanguage Language::resolve(UiLanguage choice) {
  if (choice != UiLanguage::System) return choice;
  return QLocale::system().language() == QLocale::Chinese ? UiLanguage::Chinese : UiLanguage::English;
}

void Language::apply(UiLanguage choice) {
  const UiLanguage l = resolve(choice);
  QCoreApplication::removeTranslator(&appTranslator());
  QCoreApplication::removeTranslator(&qtTranslator());
  current() = UiLanguage::English;
  if (l != UiLanguage::Chinese) return;
  if (appTranslator().load(QStringLiteral(":/i18n/attnlab_zh_CN.qm"))) {
    QCoreApplication::installTranslator(&appTranslator());
    current() = UiLanguage::Chinese;
  }
  if (qtTranslator().load(QStringLiteral("qtbase_zh_CN"), QLibraryInfo::path(QLibraryInfo::TranslationsPath)))
    QCoreApplication::installTranslator(&qtTranslator());  // optional: qt6-translations-l10n
}

UiLanguage Language::effective() { return current(); }

}  // namespace attnlab::ui
