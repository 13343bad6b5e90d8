// Knocking a head out from the heatmaps: a right-click on a head of an attention step (the encoder's
// self-attention; an encoder–decoder's decoder self-attention and cross-attention too)
// offers what the Explanations panel's buttons do (the same heads, the same run again).
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

}  // namespace attnlab::ui
