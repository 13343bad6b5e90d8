// The tokens of each sentence as chips, updated as the user types; [PAD] chips are drawn
// differently so the padding of a batch is visible, and with a trained model's vocabulary the
// tokens it does not know (read as [UNK]) are red with a "?".
//
// However long the text, the chips take at most kMaxLines lines, so the knobs below them stay in
// view: the lines are shared out among the sentences (a short one keeps all its chips, a long one
// gets what is left), and a sentence cut short ends with a note saying how many tokens are not
// shown ("… and 2714 more tokens"); sentences past the last line are counted in a note of their own.
#pragma once

#include <QStringList>
#include <QWidget>

#include <memory>
#include <string>
#include <vector>

#include "model/trained.h"

namespace attnlab::ui {

class TokenChips : public QWidget {
  Q_OBJECT
 public:
  static constexpr int kMaxLines = 8;  // lines of chips at most, whatever the text

  explicit TokenChips(QWidget* parent = nullptr);
  // rows of tokens, already padded with [PAD] (empty rows are drawn as "(empty)").
  void setRows(const std::vector<std::vector<std::string>>& rows);
  const std::vector<std::vector<std::string>>& rows() const { return rows_; }
  // null: every token is its own (seeded embeddings); otherwise unknown tokens are marked.
  void setVocabulary(std::shared_ptr<const TrainedVocab> vocab);
  bool isUnknown(const std::string& token) const;
  bool hasHeightForWidth() const override { return true; }
  int heightForWidth(int w) const override;
  QSize sizeHint() const override;
  // At the current width: how many chips are drawn, the lines they take, and the notes that stand
  // for the rest ("… and 2714 more tokens", "… and 3 more sentences"); for tests.
  int shownChips() const;
  int shownLines() const;
  QStringList overflowNotes() const;

 protected:
  void paintEvent(QPaintEvent*) override;

 private:
  struct Layout {
    struct Chip {
      QRectF rect;
      const std::string* token;
    };
    struct Note {
      QRectF rect;
      QString text;
    };
    std::vector<Chip> chips;
    std::vector<Note> notes, rowLabels;  // rowLabels: "0:", "1:", … at the y of each sentence's first line
    int lines = 0;
    int height = 0;
  };
  Layout layout(int w) const;  // the chips, notes and row labels for width w
  // How many lines row r needs at width w, counted up to `cap` (more is reported as cap + 1).
  int linesNeeded(size_t r, double w, int cap) const;
  std::vector<std::vector<std::string>> rows_;
  std::shared_ptr<const TrainedVocab> vocab_;
};

}  // namespace attnlab::ui
