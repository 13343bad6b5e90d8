// File ▸ Samples…: the lessons of sample_inputs/lessons (sessions with a title and a description
// in English and Chinese, embedded at :/lessons), each with a thumbnail of its heatmap computed
// from the lesson itself. Choosing one opens it as a session.
#pragma once

#include <QDialog>

#include "io/session.h"
#include "window/controller.h"

class QLabel;
class QListWidget;
class QPushButton;

namespace attnlab::ui {

struct LessonEntry {
  QString path;  // ":/lessons/03-padding.attnlab"
  Session session;
  QString title, description;  // in the window's language (English where a text lacks Chinese)
};

class SampleGallery : public QDialog {
  Q_OBJECT
 public:
  explicit SampleGallery(QWidget* parent = nullptr);
  static std::vector<LessonEntry> lessons();  // in file-name order; a damaged file is skipped
  // What the lesson computes: its sentences, model, loss, heads knocked out and embedded weights
  // (a lesson's weights are embedded; a file or folder it names is not read for a preview).
  static Request request(const LessonEntry& lesson);
  // The lesson's step as a heatmap (head 0 of the batch's last sentence, the one with the most
  // padding), width × 3/4 width; bare: the cells alone, for the list's icons. Null when the lesson
  // cannot be computed or its step is not a (B, H, Tq, Tk) tensor.
  static QImage thumbnail(const LessonEntry& lesson, int width, bool bare = false);
  QListWidget* list() const { return list_; }
  QPushButton* openButton() const { return open_; }

 signals:
  void openRequested(const QString& path);

 private:
  void showLesson(int row);

  std::vector<LessonEntry> lessons_;
  QListWidget* list_;
  QLabel *picture_, *title_, *description_;
  QPushButton* open_;
};

}  // namespace attnlab::ui
