// Saving what the GUI shows: one heatmap as PNG / SVG / CSV, the clipboard, every head of every
// attention block at once, a printable PDF handout of the whole forward pass, and the command
// line's bundle. Every function returns an error message (empty on success) and writes
// atomically: into a temporary file or folder beside the target, renamed at the end, so a failure
// or a cancel never leaves a half-written file behind. Pictures go through HeatmapRenderer.
#pragma once

#include <QImage>
#include <QSize>
#include <QString>

#include <functional>

#include "views/heatmaprender.h"
#include "window/traceresult.h"

namespace attnlab::ui {

struct ExportFormats {
  bool png = true, svg = false, csv = false;
  bool npz = true;        // exportBundle only: trace.npz
  double pngScale = 2;    // device pixels per unit of the natural size (2: sharp on slides and HiDPI)
  int imageCount() const { return int(png) + int(svg) + int(csv); }
};

// Called after each file (or page) with how many are done; return false to cancel.
using ExportProgress = std::function<bool(int done, int total)>;

// One heatmap. size: the target in units (empty: HeatmapRenderer::naturalSize); a PNG has
// size × scale pixels and records (96 × scale) dpi.
QImage renderImage(const HeatmapPicture& pic, double scale = 1, QSize size = {});
QString savePng(const QString& path, const HeatmapPicture& pic, double scale = 2, QSize size = {});
QString saveSvg(const QString& path, const HeatmapPicture& pic, QSize size = {});
// RFC 4180, UTF-8: core's heatmap_csv of head h, sentence b of an attention step.
QString saveCsv(const QString& path, const Batch& batch, const Trace& trace, int stepIndex, int b, int h);
// The picture as an image on the clipboard (GUI thread only).
QString copyImageToClipboard(const HeatmapPicture& pic, double scale = 2);

// Files `{block}.b{n}.head{h}.{png,svg,csv}` for every attention-weights step, sentence and
// head, into folder (created if missing). They are written into a hidden temporary folder inside
// it and moved into place at the end; a failure or a cancel (progress returning false) removes
// everything written, and a folder this call created.
QString exportAllHeatmaps(TraceResultPtr result, const QString& folder, const ExportFormats& formats,
                          const ExportProgress& progress = {});
// How many files exportAllHeatmaps writes: blocks × sentences × heads × formats.
int heatmapFileCount(const Trace& trace, const ExportFormats& formats);
// The PNG and SVG heatmaps into dir/heatmaps/ as they are (no temporary folder of its own: the
// command line and exportBundle call it inside theirs).
QString writeHeatmapImages(const Batch& batch, const Trace& trace, const QString& dir, bool png, bool svg,
                           double pngScale, const ExportProgress& progress = {});

// One A4 PDF for printing, a handout: the title, configuration and sentences (tokens), then the
// steps, as many to a page as fit. Per step one block (title and id, location, what happens there
// and why, formula, PyTorch code, what changed, the shape diagram — in words off the GUI thread,
// where there are no widgets) and, after each attention-weights step, one with every head of
// sentence 0 (the first). Blocks are never split: one that does not fit starts a new page, one
// taller than a page gets a page of its own, scaled down. Pages are numbered in the footer.
// Progress after each step (done, steps); returning false cancels, and no file is left.
QString exportHandoutPdf(TraceResultPtr result, const QString& path, const ExportProgress& progress = {});
// The command line's bundle (manifest.json, weights.safetensors, trace.npz, heatmaps/) written
// into folder, with the weights recomputed by init_weights(result->cfg) as the GUI does.
// replace: an existing non-empty folder is replaced (otherwise refused).
QString exportBundle(TraceResultPtr result, const QString& folder, const ExportFormats& formats, bool replace = false);

}  // namespace attnlab::ui
