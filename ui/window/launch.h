// Opening the window as the command line asks (docs/cli.md, "The window"):
//   attnlab lesson.attnlab --step encoder.layers.0.self_attn.weights --presenter --language zh
// — a desktop shortcut to tomorrow's lesson, or a double-click on a session file.
#pragma once

#include <QString>
#include <QStringList>

namespace attnlab::ui {

class WindowHost;

struct LaunchRequest {
  QString session;         // a session file to open; "" = the window as it was left
  QString step;            // a step id to show instead of the session's own
  bool presenter = false;  // presenter mode, full screen
};

// Shows the host's window and does what `r` asks. Returns the problems, in the window's words
// (the window shows them too), for the command line to print: a session that cannot be opened is
// refused exactly as File ▸ Open refuses it, and the window opens anyway. The first start's
// guided tour runs only when no session is given.
QStringList launch(WindowHost& host, const LaunchRequest& r);

}  // namespace attnlab::ui
