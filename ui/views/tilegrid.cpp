#include "views/tilegrid.h"

#include <algorithm>

namespace attnlab::ui {

TileGrid bestTileGrid(int n, const std::function<double(int, int)>& cellAt,
                      const std::function<bool(int, int, double)>& fits) {
  n = std::max(1, n);
  TileGrid best, bestFitting;
  bool any = false, anyFits = false;
  for (int cols = 1; cols <= n; ++cols) {
    const int rows = (n + cols - 1) / cols;
    if (cols > 1 && (n + cols - 2) / (cols - 1) == rows) continue;  // a column more, no row fewer: no gain
    TileGrid g{cols, rows, cellAt(cols, rows)};
    g.fits = fits(cols, rows, g.cell);
    // Strictly larger cells win; the first (fewest columns) keeps a tie.
    if (!any || g.cell > best.cell) best = g, any = true;
    if (g.fits && (!anyFits || g.cell > bestFitting.cell)) bestFitting = g, anyFits = true;
  }
  return anyFits ? bestFitting : best;
}

}  // namespace attnlab::ui
