// The language of the window: English (the source strings) or Simplified Chinese (Qt Linguist,
// resources/translations/attnlab_zh_CN.ts, compiled into :/i18n). "System" follows the desktop's
// locale. The command line's manifest and errors stay English (docs/cli.md).
#pragma once

#include <QString>

namespace attnlab::ui {

enum class UiLanguage { System, English, Chinese };

class Language {
 public:
  static UiLanguage saved();           // the choice in QSettings ("language"), System when unset
  static void save(UiLanguage choice);
  // Installs (or removes) the translators for the choice; System resolves by QLocale::system().
  // Widgets built afterwards speak the new language (WindowHost rebuilds the window for that).
  static void apply(UiLanguage choice);
  static UiLanguage effective();       // English or Chinese: what apply() installed last
  static UiLanguage resolve(UiLanguage choice);
};

}  // namespace attnlab::ui
