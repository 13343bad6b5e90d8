#include "views/continuebox.h"

#include <algorithm>

#include <QDoubleSpinBox>
#include <QFormLayout>
#include <QHBoxLayout>
#include <QLabel>
#include <QPushButton>
#include <QSpinBox>
#include <QVBoxLayout>

#include "subword/subword_token.h"
#include "tensor/rng.h"
#include "window/smallwidgets.h"

namespace attnlab::ui {

ContinueBox::ContinueBox(QWidget* parent) : QWidget(parent) {
  auto* v = new QVBoxLayout(this);
  v->setContentsMargins(0, 0, 0, 0);
  auto* form = new QFormLayout;
  temperature_ = new QDoubleSpinBox;
  temperature_->setObjectName(QStringLiteral("continueTemperature"));
  temperature_->setRange(0, 100);
  temperature_->setDecimals(2);
  temperature_->setSingleStep(0.1);
  temperature_->setValue(1);
  temperature_->setToolTip(tr("0 always takes the most probable piece; above 1 the guesses spread out"));
  topK_ = new QSpinBox;
  topK_->setObjectName(QStringLiteral("continueTopK"));
  topK_->setRange(0, 1000000);
  topK_->setSpecialValueText(tr("all"));
  topP_ = new QDoubleSpinBox;
  topP_->setObjectName(QStringLiteral("continueTopP"));
  topP_->setRange(0.01, 1);
  topP_->setDecimals(2);
  topP_->setSingleStep(0.05);
  topP_->setValue(1);
  seed_ = new QSpinBox;
  seed_->setObjectName(QStringLiteral("continueSeed"));
  seed_->setRange(0, 1000000);
  form->addRow(tr("Temperature:"), temperature_);
  form->addRow(tr("Top-k:"), topK_);
  form->addRow(tr("Top-p:"), topP_);
  form->addRow(tr("Seed:"), seed_);
  v->addLayout(form);
  append_ = new QPushButton(tr("Append the next piece"));
  append_->setObjectName(QStringLiteral("continueAppend"));
  append_->setToolTip(tr("Draws the piece after the sentence's last one, appends it to the sentence and runs the "
                         "model again (attnlab export --generate draws the same way)"));
  v->addWidget(append_);
  drawn_ = wrappedLabel(QStringLiteral("continueDrawn"));
  v->addWidget(drawn_);
  connect(append_, &QPushButton::clicked, this, &ContinueBox::appendRequested);
  for (auto* box : {temperature_, topP_}) connect(box, &QDoubleSpinBox::valueChanged, this, &ContinueBox::restart);
  for (auto* box : {topK_, seed_}) connect(box, &QSpinBox::valueChanged, this, &ContinueBox::restart);
}

void ContinueBox::setResult(TraceResultPtr result) {
  // A sentence whose pieces no longer begin with the ones its draws continued (the learner edited
  // it) counts from 0 again; one that grew by a draw, or did not change, counts on.
  if (result_ && result)
    for (auto it = drawnSoFar_.begin(); it != drawnSoFar_.end();) {
      const auto b = static_cast<size_t>(it->first);
      bool kept = b < result->batch.text.lengths.size() && b < result_->batch.text.lengths.size();
      if (kept) {
        const auto &before = result_->batch.text.tokens[b], &now = result->batch.text.tokens[b];
        const auto n = static_cast<size_t>(result_->batch.text.lengths[b]);
        kept = static_cast<size_t>(result->batch.text.lengths[b]) >= n && std::equal(before.begin(), before.begin() + n, now.begin());
      }
      it = kept ? std::next(it) : drawnSoFar_.erase(it);
    }
  result_ = std::move(result);
  append_->setEnabled(result_ != nullptr);  // one draw per result: the next reads the text it made
}

pretrained::Sampling ContinueBox::sampling() const {
  pretrained::Sampling s;
  s.steps = 1;
  s.temperature = temperature_->value();
  s.top_k = topK_->value();
  s.top_p = topP_->value();
  s.seed = static_cast<uint64_t>(seed_->value());
  return s;
}

void ContinueBox::refuse(const QString& why) {
  drawn_->setText(drawn_->text() + QLatin1Char(' ') + why);
  append_->setEnabled(true);
}

void ContinueBox::restart() {
  drawnSoFar_.clear();
  drawn_->clear();
}

bool ContinueBox::drawFor(int b) {
  if (!result_ || !result_->vocab() || b < 0 || static_cast<size_t>(b) >= result_->batch.text.lengths.size()) return false;
  const Step* logits = result_->trace.find(std::string(result_->cfg.cross ? "decoder" : "encoder") + ".output_head.logits");
  if (!logits) return false;
  const Tensor l = logits->tensor.contiguous();  // (B, S, V)
  const int64_t s = l.size(1), v = l.size(2);
  const int last = result_->batch.text.lengths[static_cast<size_t>(b)] - 1;
  const float* row = l.data() + (static_cast<int64_t>(b) * s + last) * v;
  const pretrained::Sampling how = sampling();
  int64_t& k = drawnSoFar_[b];
  const double u = Stream("generate:" + std::to_string(b), how.seed).uniform(static_cast<uint64_t>(k));
  const int id = pretrained::draw_piece(row, v, how, u);
  const double p = pretrained::piece_probability(row, v, how.temperature, id);
  ++k;
  append_->setEnabled(false);
  const TrainedVocab& vocab = *result_->vocab();
  drawn_->setText(tr("Draw %1 for sentence %2: “%3” (p = %4)")
                      .arg(k)
                      .arg(b)
                      .arg(QString::fromStdString(subword::display_piece(vocab.words()[static_cast<size_t>(id)], vocab.byte_level)))
                      .arg(p, 0, 'g', 3));
  emit pieceDrawn(b, id, p);
  return true;
}

}  // namespace attnlab::ui
