// The tokens of each sentence as chips, updated as the user types; [PAD] chips are drawn
// differently so the padding of a batch is visible, and with a trained model's vocabulary the
// tokens it does not know (read as [UNK]) are red with a "?".
#pragma once

#include <QWidget>

#include <memory>
#include <string>
#include <vector>

#include "model/trained.h"

namespace attnlab::ui {

class TokenChips : public QWidget {
  Q_OBJECT
 public:
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

 protected:
  void paintEvent(QPaintEvent*) override;

 private:
  // Lays the chips out for width w; returns the height used (and the rects when out != null).
  int layout(int w, std::vector<std::pair<QRectF, const std::string*>>* out) const;
  std::vector<std::vector<std::string>> rows_;
  std::shared_ptr<const TrainedVocab> vocab_;
};

}  // namespace attnlab::ui
