// Small multiples that fill an area: n equal tiles in the rows × columns that make their content
// (a heatmap's cells) as large as possible while all n fit, each tile keeping what it must show
// whole (a "Head 7" title). Pure geometry, no widgets: HeatmapGrid lays its heads out with it and
// tests check it directly.
#pragma once

#include <functional>

namespace attnlab::ui {

struct TileGrid {
  int cols = 1, rows = 1;
  double cell = 0;  // the content's cell side in that layout
  bool fits = false;  // each tile shows what it must
};

// cellAt(cols, rows): the cell side every tile gets in that layout; fits(cols, rows, cell):
// whether each tile then shows what it must (its title). Of the layouts that fit, the one with the
// largest cells (ties: fewer columns); when none fits, the largest cells anyway. n ≥ 1.
TileGrid bestTileGrid(int n, const std::function<double(int, int)>& cellAt,
                      const std::function<bool(int, int, double)>& fits);

}  // namespace attnlab::ui
