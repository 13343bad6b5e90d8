#include "views/continuebox.h"

#include <algorithm>

#include <QDoubleSpinBox>
#include <QFormLayout>
#include <QHBoxLayout>
#include <QLabel>
#include <QPushButton>
#include <QSignalBlocker>
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
  temperature_->setRange(0, kSamplingTemperatureMax);
  temperature_->setDecimals(2);
  temperature_->setSingleStep(0.1);
  temperature_->setValue(1);
  temperature_->setToolTip(tr("0 always takes the most probable piece; above 1 the guesses spread out"));
  topK_ = new QSpinBox;
  topK_->setObjectName(QStringLiteral("continueTopK"));
  topK_->setRange(static_cast<int>(kSamplingTopK.lo), static_cast<int>(kSamplingTopK.hi));
  topK_->setSpecialValueText(tr("all"));
  topP_ = new QDoubleSpinBox;
  topP_->setObjectName(QStringLiteral("continueTopP"));
  topP_->setRange(kSamplingTopPMin, 1);
  topP_->setDecimals(2);
  topP_->setSingleStep(0.05);
  topP_->setValue(1);
  seed_ = new QSpinBox;
  seed_->setObjectName(QStringLiteral("continueSeed"));
  seed_->setRange(static_cast<int>(kSamplingSeed.lo), static_cast<int>(kSamplingSeed.hi));
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
  kvCheck_ = wrappedLabel(QStringLiteral("continueKvCheck"));
  v->addWidget(kvCheck_);
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
  showKvCheck();
}

void ContinueBox::showKvCheck() {
  using State = TraceResult::KvDecode;
  const State state = result_ ? result_->kvDecodeState : State::None;
  if (state == State::None) return kvCheck_->clear();
  if (state == State::NotServed)
    return kvCheck_->setText(tr("The KV cache does not serve this model as it is now (it serves GPT-2's order as "
                                "published: pre-norm, the causal mask, learned positions), so the whole text ran again."));
  if (state == State::Failed)
    return kvCheck_->setText(tr("The KV-cache check of the drawn piece could not run (%1); every step above is complete.")
                                 .arg(result_->kvDecodeFailure));
  const auto& c = *result_->kvDecode;
  const auto& cfg = result_->cfg;
  const QString piece = QString::fromStdString(result_->batch.text.shown_row(c.sentence)[static_cast<size_t>(c.position)]);
  // shapes kept on one line: a comma and a no-break space
  const auto shape = [](const Shape& s) { return QString::fromStdString(shape_str(s)).replace(QStringLiteral(", "), QStringLiteral(",\u00A0")); };
  const QString text = tr("KV cache: “%1” decoded alone at position %2. In each of the %3 layers its one query row %4 "
                          "meets the cached keys and values %5: %6 multiply-adds instead of %7 for the whole text again.")
                           .arg(piece, QString::number(c.position), QString::number(cfg.layers),
                                shape({1, cfg.heads, 1, cfg.d_head()}), shape({1, cfg.heads, c.position + 1, cfg.d_head()}),
                                locale().toString(c.decode_macs), locale().toString(c.full_macs));
  const QString rows = QString::number(c.attention_difference, 'g', 2), logits = QString::number(c.logits_difference, 'g', 2);
  QString verdict;
  if (c.heads_compared == 0)  // every layer tiled: no weights in the trace to compare
    verdict = c.agrees() ? tr("Same logits as the whole pass, within %1 (no attention rows traced: tiled layers).").arg(logits)
                         : tr("Not the whole pass's logits: they differ by %1.").arg(logits);
  else
    verdict = c.agrees() ? tr("Same numbers as the whole pass: attention rows within %1, logits within %2.").arg(rows, logits)
                         : tr("Not the whole pass's numbers: attention rows differ by %1, logits by %2.").arg(rows, logits);
  kvCheck_->setText(text + QLatin1Char('\n') + verdict);
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

SessionSampling ContinueBox::sessionSampling() const {
  return {.temperature = temperature_->value(), .top_p = topP_->value(), .top_k = topK_->value(), .seed = seed_->value()};
}

void ContinueBox::restoreSampling(const SessionSampling& s) {  // within the ranges: parse_session checked them
  {
    const QSignalBlocker a(temperature_), b(topP_), c(topK_), d(seed_);
    temperature_->setValue(s.temperature);
    topP_->setValue(s.top_p);
    topK_->setValue(static_cast<int>(s.top_k));
    seed_->setValue(static_cast<int>(s.seed));
  }
  restart();  // a session's draws count from 0, as a fresh window's and the command line's do
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
  drawn_->setText(tr("Draw %1 for sentence %2: “%3” (p = %4)")  // one arg(): a piece may hold "%2"
                      .arg(QString::number(k), QString::number(b),
                           QString::fromStdString(subword::display_piece(vocab.words()[static_cast<size_t>(id)], vocab.byte_level)),
                           QString::number(p, 'g', 3)));
  emit pieceDrawn(b, id, p);
  return true;
}

}  // namespace attnlab::ui
