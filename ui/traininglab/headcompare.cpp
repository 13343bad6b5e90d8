#include "traininglab/headcompare.h"

#include "input/weightsimport.h"

namespace attnlab::ui {

namespace {

// One model on the texts, computed as the window computes (its configuration as it trained).
TraceResultPtr run(const ModelConfig& cfg, ImportedWeightsPtr model, const QStringList& texts) {
  Request r;
  r.cfg = cfg;
  r.texts = texts;
  r.weights = std::move(model);
  return compute(r, 0);
}

}  // namespace

QStringList attentionWeightSteps(const TraceResult& r) {
  QStringList out;
  for (const Step& s : r.trace.steps())
    if (s.info.id.ends_with("_attn.weights") && s.tensor.dim() == 4) out << QString::fromStdString(s.info.id);
  return out;
}

HeadComparison compareHeads(const KeptRun& kept, const TrainSetup& current, const ImportedWeightsPtr& currentModel,
                            qint64 currentStep, const QStringList& texts) {
  HeadComparison out;
  out.currentStep = currentStep;
  ImportedWeightsPtr keptModel = importWeightsBytes(kept.weightsFileAt(currentStep, &out.keptStep),
                                                    QStringLiteral("kept"), QString(), kept.setup.model);
  out.kept = run(kept.setup.model, std::move(keptModel), texts);
  out.current = run(current.model, currentModel, texts);
  out.steps = attentionWeightSteps(*out.current);
  for (const QString& id : attentionWeightSteps(*out.kept))
    if (!out.steps.contains(id)) out.steps << id;
  return out;
}

}  // namespace attnlab::ui
