#include "words/coretext.h"

#include "io/files.h"
#include "text/errors.h"

namespace attnlab::ui {

QString CoreText::translate(const Text& text) {
  return QString::fromStdString(text.render([](const MessageTemplate& m) {
    return QCoreApplication::translate(m.context, m.english).toStdString();
  }));
}

QString CoreText::of(const std::exception& e) {
  if (const auto* u = dynamic_cast<const UserError*>(&e)) return translate(u->text());
  return QString::fromStdString(printable_name(e.what()));
}

}  // namespace attnlab::ui
