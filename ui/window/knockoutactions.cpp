// Knocking a head out from the heatmaps: a right-click on a head of an attention step (the encoder's
// self-attention; an encoder–decoder's decoder self-attention and cross-attention too)
// offers what the Explanations panel's buttons do (the same heads, the same run again). In a
// layer run tiled it also keeps the head's whole weights beside the overview (full_heads).
#include <QAction>
#include <QDockWidget>
#include <QMenu>

#include <algorithm>

#include "lessons/exercisepanel.h"
#include "input/inputpanel.h"
#include "step/steppanel.h"
#include "views/heatmapgrid.h"
#include "window/mainwindow.h"

namespace attnlab::ui {

void MainWindow::connectHeadMenu() {
  connect(panel_->heatmaps(), &HeatmapGrid::headMenuRequested, this, [this](explain::HeadRef ref, QPoint at) {
    const bool out = std::find(ablated_.begin(), ablated_.end(), ref) != ablated_.end();
    const TraceResultPtr shown = controller_->current();
    const QString name = QString::fromStdString(explain::head_label(ref, shown && shown->cfg.cross));
    auto* menu = new QMenu(this);
    menu->setObjectName(QStringLiteral("headMenu"));
    menu->setAttribute(Qt::WA_DeleteOnClose);
    QAction* knock = menu->addAction(out ? tr("Bring head %1 back").arg(name) : tr("Knock head %1 out").arg(name));
    knock->setObjectName(QStringLiteral("knockHead"));
    if (exercises_->active()) {  // an exercise runs its own setup, every head in (send)
      knock->setEnabled(false);
      knock->setText(tr("Knock head %1 out (not during an exercise)").arg(name));  // none is out meanwhile
    }
    connect(knock, &QAction::triggered, this, [this, ref] { toggleKnockedOut(ref); });
    QAction* panel = menu->addAction(tr("Show every head's knock-out button"));
    connect(panel, &QAction::triggered, this, [this] { raiseDock(explainDock_); });
    if (shown && shown->cfg.tiled_layer(ref.layer)) {  // the overview only: the whole (S, S) map on request
      const bool kept = std::find(fullHeads_.begin(), fullHeads_.end(), ModelConfig::LayerHead{ref.layer, ref.head}) !=
                        fullHeads_.end();
      menu->addSeparator();
      // an encoder–decoder keeps the pair in the encoder, the decoder and the cross-attention, as the
      // layers traced in full are chosen: the item says so there
      const bool every = shown->cfg.cross;
      const QString text = kept ? (every ? tr("Overviews only for layer %1, head %2 again (encoder, decoder and cross-attention)")
                                         : tr("Show only the overview of layer %1, head %2 again"))
                                : (every ? tr("Show layer %1, head %2 cell by cell (encoder, decoder and cross-attention)")
                                         : tr("Show layer %1, head %2 cell by cell (its whole weights, beside the overview)"));
      QAction* whole = menu->addAction(text.arg(ref.layer).arg(ref.head));
      whole->setObjectName(QStringLiteral("wholeHead"));
      connect(whole, &QAction::triggered, this, [this, ref] { toggleWholeHead(ref); });
    }
    menu->popup(at);
  });
}

// In or out, kept in block-then-layer-then-head order (the panel's), and the model run again.
void MainWindow::toggleKnockedOut(explain::HeadRef head) {
  const auto at = std::find(ablated_.begin(), ablated_.end(), head);
  if (at != ablated_.end()) ablated_.erase(at);
  else ablated_.push_back(head);
  std::sort(ablated_.begin(), ablated_.end(), explain::head_before);
  send(inputs_->currentRequest());
}

// The kept heads a run of `cfg` can keep: those the model has, outside the layers traced in full
// (what send() asks for and a session saves, so that the session opens again).
std::vector<ModelConfig::LayerHead> MainWindow::keptHeadsFor(const ModelConfig& cfg) const {
  std::vector<ModelConfig::LayerHead> out;
  for (const ModelConfig::LayerHead& h : fullHeads_)
    if (h.layer < cfg.layers && h.head < cfg.heads &&
        !std::binary_search(cfg.full_layers.begin(), cfg.full_layers.end(), h.layer))
      out.push_back(h);
  return out;
}

// Kept or not, in layer-then-head order (validate's), the view moved to the kept head's step
// (or back to the overview), and the model run again. The pair holds in every stack, as the
// layers traced in full do.
void MainWindow::toggleWholeHead(explain::HeadRef head) {
  const ModelConfig::LayerHead h{head.layer, head.head};
  const auto at = std::find(fullHeads_.begin(), fullHeads_.end(), h);
  const bool keep = at == fullHeads_.end();
  if (keep) fullHeads_.push_back(h);
  else fullHeads_.erase(at);
  std::sort(fullHeads_.begin(), fullHeads_.end());
  const std::string block = explain::attention_id(head.block, head.layer) + ".";
  currentId_ = keep ? block + "weights_head_" + std::to_string(head.head) : block + "weights_overview";
  send(inputs_->currentRequest());
}

}  // namespace attnlab::ui
