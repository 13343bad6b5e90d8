// "Compare heads": the run kept for comparison beside this one as attention heatmaps — both models
// at (the snapshot nearest before) the timeline's step, run on the same sentences (the panel picks
// the window's or this run's model's examples), every attention block's weights (B, H, Tq, Tk) offered, one colour scale for
// both sides (views/runcompare.h). 1 layer against 2 shows layer 1 on one side only and says so.
#pragma once

#include <QStringList>

#include "traininglab/trainingsession.h"
#include "window/controller.h"
#include "window/traceresult.h"

namespace attnlab::ui {

struct HeadComparison {
  TraceResultPtr kept, current;  // the left and the right side
  QStringList steps;             // the attention weights' step ids: this run's, then any only the kept one has
  qint64 keptStep = 0, currentStep = 0;  // the snapshots shown
};

// Both runs' models run on `texts` (the classroom sizes take milliseconds: on the calling thread).
// ConfigError / DataError from core: a snapshot unreadable, a sentence too long.
// current: this run's setup and its model at currentStep (a run without the √d scaling is run
// without it, as it trained).
HeadComparison compareHeads(const KeptRun& kept, const TrainSetup& current, const ImportedWeightsPtr& currentModel,
                            qint64 currentStep, const QStringList& texts);

// The attention weights steps of `r`, in order.
QStringList attentionWeightSteps(const TraceResult& r);

}  // namespace attnlab::ui
