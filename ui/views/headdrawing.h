// The heavy part of showing one attention step for one sentence, as plain data that any thread can
// compute: the colour map fitted over every head, each head's picture (one pixel per cell, or
// block means up to kOverviewSide pixels a side), and the facts the note explains (rows whose every
// key is masked, NaN cells). HeatmapGrid runs it on a worker for large texts and keeps the last
// few, so that stepping through a 3,000-token text never stalls the window.
//
// Colour scales for long texts, where one bright diagonal makes every other weight look 0:
//   Linear  the values as they are;
//   PerRow  each query row divided by its largest weight (its structure, whatever its peak);
//   Log     log₁₀ of the weight, from 10⁻⁴ (so 0.0001 and 0.01 differ as much as 0.01 and 1).
// The hover readout always says the true numbers.
#pragma once

#include <QImage>

class QThreadPool;

#include <cmath>
#include <vector>

#include "views/colormap.h"

namespace attnlab::ui {

enum class ColorScale { Linear, PerRow, Log };
inline constexpr double kLogFloor = -4;  // log₁₀ of the smallest weight the Log scale tells apart

// How the cells of one head are coloured: the row maxima (PerRow) and the log switch.
struct CellScale {
  const float* rowMax = nullptr;  // Tq maxima, or null
  bool log = false;
  float apply(float v, int row) const;
};

inline bool isNegInf(float v) { return std::isinf(v) && v < 0; }  // a masked score

// One pixel per cell of a rows × cols matrix, or per block of cells (their mean; any NaN wins, a
// block of only −∞ is masked grey, hatched) when w × h is smaller; `scale` recolours each value
// first (a per-row or log colour scale). Thread-safe, no widget.
QImage cellImage(const float* values, int rows, int cols, const ColorMap& map, int w, int h, const CellScale& scale = {});

// The map a scale colours with: PerRow [0, 1], Log [−4, 0]; Linear: `linear` as fitted.
ColorMap scaledMap(ColorScale scale, const ColorMap& linear);

// Rows whose every key is masked (−∞ in `masked`, or all NaN there with no masked step), NaN cells
// not explained by them, and whether some (not all) keys of a row are masked. data and masked:
// (H, Tq, Tk); masked may be null.
struct RowFacts {
  std::vector<int> fullRows;
  long long nans = 0;
  bool anyMasked = false;
};
RowFacts rowFacts(const float* data, const float* masked, int heads, int tq, int tk);

// Each head's largest weight per query row: (H, Tq).
std::vector<float> rowMaxima(const float* data, int heads, int tq, int tk);

// The threads that draw and measure for the window (large heatmaps, the what-changed sentence):
// one core fewer than the machine has (at least one), so that the GUI thread always has a core.
QThreadPool* backgroundPool();

inline constexpr int kOverviewSide = 1024;
struct HeadDrawing {
  ColorMap map;               // what the legend shows (scaled)
  std::vector<QImage> images; // one per head
  RowFacts facts;
};
HeadDrawing drawHeads(const float* data, const float* masked, int heads, int tq, int tk, bool probabilities,
                      ColorScale scale);

}  // namespace attnlab::ui
