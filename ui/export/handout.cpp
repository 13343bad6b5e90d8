// The printable PDF handout of a forward pass (exportHandoutPdf, exporter.h).
#include <QApplication>
#include <QFontDatabase>
#include <QGuiApplication>
#include <QPainter>
#include <QPalette>
#include <QPdfWriter>
#include <QSaveFile>
#include <QThread>

#include <algorithm>
#include <cmath>
#include <optional>

#include "export/exporter.h"
#include "export/exportio.h"
#include "step/shapediagram.h"
#include "words/stepnames.h"
#include "words/steptext.h"

namespace attnlab::ui {

using namespace exportio;

// ---- the handout ----------------------------------------------------------------------------
//
// Laid out first, drawn second. The handout is a list of blocks: the first page's title,
// configuration and sentences (a few paragraphs), then per step one block (title and id, where it
// sits, what happens there and why, formula, PyTorch line, what changed, the shape diagram) and,
// after each softmax, a block with every head of sentence 0. Each block is measured at the page's
// text width; the blocks flow down the pages, and one that does not fit below the last starts a
// new page: a block is never split, and one taller than a page gets a page of its own, scaled to
// fit. Every page says "Page k of n" at the bottom.

namespace {

const QColor kInk(0x1e, 0x1e, 0x1e), kGrey(0x66, 0x66, 0x66), kRule(0xc8, 0xc8, 0xc8), kCodeBack(0xf1, 0xf1, 0xf1);
constexpr double kFooter = 20;  // units below the blocks for the page number

QFont handoutFont(int px, bool bold = false, bool mono = false) {
  QFont f = mono ? QFontDatabase::systemFont(QFontDatabase::FixedFont) : HeatmapRenderer::font({});
  f.setPixelSize(px);
  f.setBold(bold);
  f.setHintingPreference(QFont::PreferNoHinting);
  return f;
}

// One block at the text width: its height and what draws it, its top-left at the origin.
struct Block {
  enum Join { Rule, Follow, Flow };  // above it: a gap with a rule (a new step), a small gap (its step's heads), none
  double height = 0;
  std::vector<std::function<void(QPainter&)>> draw;
  int step = -1;  // the step it shows; -1: the first page's paragraphs
  Join join = Rule;
};

// Fills a block top to bottom within a width; y is where the next thing goes.
struct BlockBuilder {
  double width;
  Block block;
  double y = 0;

  // Text in the column [x, x + w) from y + dy (y does not move); returns its height.
  double textAt(const QString& s, const QFont& f, const QColor& c, double x, double w, double dy = 0,
                int flags = Qt::TextWordWrap) {
    flags |= Qt::AlignLeft | Qt::AlignTop;
    const QRectF need = QFontMetricsF(f).boundingRect(QRectF(0, 0, w, 1e6), flags, s);
    const QRectF r(x, y + dy, w, need.height() + 2);
    block.draw.push_back([=](QPainter& p) {
      p.setFont(f);
      p.setPen(c);
      p.drawText(r, flags, s);
    });
    return need.height();
  }
  void text(const QString& s, const QFont& f, const QColor& c = kInk, double after = 6) {
    y += textAt(s, f, c, 0, width) + after;
  }
  // Code on a grey ground in the column [x, x + w), wrapped anywhere; returns its height.
  double codeAt(const QString& s, const QFont& f, double x, double w) {
    const double inset = 4;
    const QRectF back(x, y, w, textAt(s, f, kInk, x + inset, w - 2 * inset, inset, Qt::TextWrapAnywhere) + 2 * inset);
    block.draw.insert(block.draw.end() - 1, [=](QPainter& p) { p.fillRect(back, kCodeBack); });  // under its text
    return back.height();
  }
  Block done() {
    block.height = y;
    return std::move(block);
  }
};

bool widgetsHere() {  // a ShapeDiagram needs QApplication's thread
  auto* app = qobject_cast<QApplication*>(QCoreApplication::instance());
  return app && QThread::currentThread() == app->thread();
}

// The step's shape diagram, laid out at a width, and the part of it that holds the drawing.
struct Diagram {
  std::shared_ptr<ShapeDiagram> widget;
  QRect drawn;
};

// ShapeDiagram centres its boxes in whatever room it gets (and shrinks them when the height is too
// little): it is drawn once into an image of ample height, and the part that holds ink is kept.
std::optional<Diagram> shapeDiagram(const TraceResultPtr& result, int step, double width) {
  auto d = std::make_shared<ShapeDiagram>();
  d->setAttribute(Qt::WA_DontShowOnScreen);
  d->setFont(handoutFont(10));  // pixels, so that it measures and prints at the handout's scale
  QPalette pal;
  for (auto [role, colour] : {std::pair{QPalette::Window, QColor(Qt::white)}, {QPalette::Base, QColor(Qt::white)},
                              {QPalette::Text, kInk}, {QPalette::WindowText, kInk}, {QPalette::Mid, QColor(0x9e, 0x9e, 0x9e)},
                              {QPalette::Highlight, QColor(0x1f, 0x6f, 0xb5)}})
    pal.setColor(role, colour);
  d->setPalette(pal);
  d->setStep(result, step);
  const int w = std::max(1, static_cast<int>(std::floor(width)));
  int h = std::max(160, d->sizeHint().height() * (static_cast<int>(d->boxTexts().size()) + 2));
  for (int attempt = 0; attempt < 4; ++attempt, h *= 2) {
    d->resize(w, h);
    QImage img(w, h, QImage::Format_ARGB32_Premultiplied);
    img.fill(Qt::transparent);
    d->render(&img, QPoint(), QRegion(), QWidget::RenderFlags());  // no window background: ink only
    int top = -1, bottom = -1, left = w, right = -1;
    for (int row = 0; row < h; ++row) {
      const auto* px = reinterpret_cast<const QRgb*>(img.constScanLine(row));
      for (int col = 0; col < w; ++col)
        if (qAlpha(px[col]) != 0) {
          if (top < 0) top = row;
          bottom = row;
          left = std::min(left, col);
          right = std::max(right, col);
        }
    }
    if (top < 0) return std::nullopt;
    if (bottom - top < h * 0.9 || attempt == 3) {  // not squeezed: the boxes at their own size
      const QRect ink = QRect(QPoint(left, top), QPoint(right, bottom)).adjusted(-2, -2, 2, 2);
      return Diagram{d, ink.intersected(QRect(0, 0, w, h))};
    }
  }
  return std::nullopt;
}

QString joined(const std::vector<std::string>& tokens) {
  QStringList out;
  for (const auto& t : tokens) out << QString::fromStdString(t);
  return out.join(QStringLiteral(" · "));
}

// "B 2 · H 8 · S 7 · Dh 8, strides (448, 56, 8, 1), contiguous"
QString shapeLine(const std::string& id, const Tensor& t) {
  const QStringList names = StepNames::axisNames(id, static_cast<int>(t.dim()));
  QStringList axes;
  for (int d = 0; d < t.dim(); ++d) axes << QStringLiteral("%1 %2").arg(d < names.size() ? names[d] : QString()).arg(t.size(d));
  return Exporter::tr("%1, strides %2, %3")
      .arg(axes.join(QStringLiteral(" · ")), QString::fromStdString(shape_str(t.strides())),
           t.is_contiguous() ? Exporter::tr("contiguous") : Exporter::tr("not contiguous"));
}

// The first page's title, configuration and sentences: a paragraph a block (a heading goes with
// the paragraph under it), so that a long text flows onto the next pages.
std::vector<Block> coverBlocks(const TraceResult& r, double width) {
  std::vector<Block> out;
  auto paragraph = [&](const QString& heading, const QString& s, const QFont& f, const QColor& c, double after) {
    BlockBuilder b{width, {}};
    if (!heading.isEmpty()) b.text(heading, handoutFont(11, true), kGrey, 2);
    b.text(s, f, c, after);
    out.push_back(b.done());
    out.back().join = Block::Flow;
  };
  const ModelConfig& c = r.cfg;
  paragraph({}, Exporter::tr("Attention Lab — the forward pass, step by step"), handoutFont(24, true), kInk, 12);
  paragraph(Exporter::tr("Model"),
            Exporter::tr("d_model %1 · %2 heads (d_head %3) · d_ff %4 · %5 layer(s) · mask %6 · %7-norm · %8 · positions %9 · eps %10 · seed %11%12")
                .arg(c.d_model).arg(c.heads).arg(c.d_head()).arg(c.d_ff).arg(c.layers)
                .arg(QString::fromStdString(std::string(mask_name(c.mask))), QString::fromStdString(std::string(norm_name(c.norm))),
                     QString::fromStdString(std::string(activation_name(c.activation))),
                     QString::fromStdString(std::string(positional_name(c.positional))) +
                         (c.positional == Positional::Learned ? QStringLiteral(" (%1)").arg(c.max_positions) : QString()),
                     QString::number(c.eps))
                .arg(c.seed)
                .arg((c.final_norm ? Exporter::tr(" · a final LayerNorm") : QString()) +
                     (c.bert_parts() ? Exporter::tr(" · BERT's token types, embedding LayerNorm and head transform") : QString()) +
                     (c.cross ? Exporter::tr(" · encoder–decoder with cross-attention") : QString())),
            handoutFont(13), kInk, 6);
  const QString where = r.device.isEmpty() ? r.backend : Exporter::tr("%1 (%2)").arg(r.backend, r.device);
  paragraph({}, Exporter::tr("Computed on %1 in %2 ms.").arg(where).arg(r.forward_ms, 0, 'f', 1), handoutFont(12), kGrey, 12);
  auto sentences = [&](const QString& heading, const std::vector<std::vector<std::string>>& tokens) {
    for (size_t b = 0; b < tokens.size(); ++b)  // sentence b, from 0
      paragraph(b == 0 ? heading : QString(), Exporter::tr("%1. %2").arg(b).arg(joined(tokens[b])), handoutFont(13), kInk,
                b + 1 == tokens.size() ? 12 : 6);
  };
  sentences(c.cross ? Exporter::tr("Decoder sentences (tokens)") : Exporter::tr("Sentences (tokens)"), r.batch.text.shown_rows());
  if (r.batch.cross()) sentences(Exporter::tr("Encoder (source) sentences"), r.batch.memory.shown_rows());
  paragraph(Exporter::tr("How to read it"),
            Exporter::tr("Step after step, as many to a page as fit: where each sits, what happens there and why, its formula "
                         "and the PyTorch line that recomputes it, what changed, and a diagram of the shapes and strides of its "
                         "tensor and inputs. After each softmax come every head's weights for sentence 0: rows are queries, "
                         "columns keys; masked keys are grey and hatched, NaN is magenta."),
            handoutFont(12), kInk, 0);
  return out;
}

Block stepBlock(const TraceResultPtr& result, int i, double width, bool diagrams) {
  const TraceResult& r = *result;
  const Step& s = r.trace.steps()[static_cast<size_t>(i)];
  const int n = static_cast<int>(r.trace.steps().size());
  BlockBuilder b{width, {}};
  // The title, and the step's id on the right when both fit on a line.
  const QFont titleFont = handoutFont(15, true), idFont = handoutFont(9, false, true);
  const QString title = StepText::title(s.info), id = QString::fromStdString(s.info.id);
  const double idW = QFontMetricsF(idFont).horizontalAdvance(id) + 2;
  if (QFontMetricsF(titleFont).horizontalAdvance(title) + 16 + idW <= width) {
    const double h = b.textAt(title, titleFont, kInk, 0, width - idW - 16);
    b.textAt(id, idFont, kGrey, width - idW, idW,
             QFontMetricsF(titleFont).ascent() - QFontMetricsF(idFont).ascent(), Qt::TextSingleLine);  // on one baseline
    b.y += h + 1;
  } else {
    b.text(title, titleFont, kInk, 1);
    b.text(id, idFont, kGrey, 2);
  }
  const QString where = StepNames::location(r.trace, i, false);  // the title is just above
  b.text(Exporter::tr("Step %1 of %2 · %3").arg(i + 1).arg(n).arg(where), handoutFont(10), kGrey, 5);
  const QString why = StepText::explanation(s.info.id);
  if (!why.isEmpty()) b.text(why, handoutFont(11), kInk, 7);
  // Then a row a part: its name on the left, the part on the right.
  const QFont labelFont = handoutFont(10, true);
  const QStringList labels{Exporter::tr("Formula"), Exporter::tr("PyTorch"), Exporter::tr("What changed"), Exporter::tr("Shape"),
                           Exporter::tr("Inputs")};
  double labelW = 0;
  for (const QString& l : labels) labelW = std::max(labelW, QFontMetricsF(labelFont).horizontalAdvance(l));
  labelW = std::min(labelW + 12, width / 4);
  const double x = labelW, w = width - labelW;
  auto row = [&](const QString& label, const QFont& partFont, const std::function<double()>& part, double after = 6) {
    b.textAt(label, labelFont, kGrey, 0, labelW - 8, std::max(0.0, QFontMetricsF(partFont).ascent() - QFontMetricsF(labelFont).ascent()));
    b.y += part() + after;
  };
  if (!s.info.formula.empty()) {
    const QFont f = handoutFont(13);
    row(labels[0], f, [&] { return b.textAt(StepText::formula(s.info), f, kInk, x, w); });
  }
  const QFont mono = handoutFont(10, false, true);
  row(labels[1], mono, [&] { return b.codeAt(QString::fromStdString(s.info.code), mono, x, w); });
  const QFont plain = handoutFont(11);
  row(labels[2], plain, [&] { return b.textAt(StepNames::whatChanged(r.trace, i), plain, kInk, x, w); });
  const std::optional<Diagram> d = diagrams ? shapeDiagram(result, i, w) : std::nullopt;
  if (d) {
    row(labels[3], plain, [&] {
      const double top = b.y;
      b.block.draw.push_back([d = *d, x, top](QPainter& p) {
        p.save();
        p.translate(x, top);  // the drawn part's top-left there, left-aligned with the text
        d.widget->render(&p, QPoint(), QRegion(d.drawn), QWidget::RenderFlags());
        p.restore();
      });
      return static_cast<double>(d->drawn.height());
    }, 0);
  } else {  // no widgets on this thread: the shapes in words
    row(labels[3], plain, [&] { return b.textAt(shapeLine(s.info.id, s.tensor), plain, kInk, x, w); });
    QStringList inputs;
    for (const auto& bind : s.info.bindings) {
      const Step* in = bind.weight ? nullptr : r.trace.find(bind.source);
      inputs << Exporter::tr("%1 = %2 — %3").arg(QString::fromStdString(bind.var), QString::fromStdString(bind.source),
                                                  in ? shapeLine(bind.source, in->tensor) : Exporter::tr("weight"));
    }
    if (!inputs.isEmpty()) row(labels[4], plain, [&] { return b.textAt(inputs.join(QLatin1Char('\n')), plain, kInk, x, w); }, 0);
  }
  Block out = b.done();
  out.step = i;
  return out;
}

// Every head of sentence 0 (the first) in the rows × columns that show every token's label and give
// the largest cells up to a comfortable size, in the least height, at most maxH high in all; one
// shared colour key on the right. The pictures are made again when drawn (a long text's are large).
Block headsBlock(const TraceResultPtr& result, int idx, double width, double maxH, double deviceScale) {
  const TraceResult& r = *result;
  const Step& s = r.trace.steps()[static_cast<size_t>(idx)];
  const int heads = static_cast<int>(s.tensor.size(1));
  BlockBuilder b{width, {}};
  const QFont headFont = handoutFont(12, true), idFont = handoutFont(9, false, true);
  const QString id = QString::fromStdString(heatmapFileBase(s.info.id, 0, 0)).section(QLatin1Char('.'), 0, -3);
  const double idW = QFontMetricsF(idFont).horizontalAdvance(id) + 2;
  const double headH = b.textAt(Exporter::tr("%1 — every head, sentence 0").arg(StepText::title(s.info)), headFont, kInk, 0, width - idW - 16);
  b.textAt(id, idFont, kGrey, width - idW, idW, QFontMetricsF(headFont).ascent() - QFontMetricsF(idFont).ascent(), Qt::TextSingleLine);
  b.y += headH + 4;
  RenderOptions opt;
  opt.vectorCells = true;
  opt.legend = false;
  opt.deviceScale = deviceScale;
  opt.fontPx = 9;
  HeatmapPicture first = headPicture(r.batch, r.trace, idx, 0, 0);  // for the geometry; the drawn ones are made when drawn
  first.title = Exporter::tr("Head %1").arg(0);
  const QFont f = HeatmapRenderer::font(opt);
  const double legendW = HeatmapRenderer::legendWidth(first.map, first.legendTitle, true, true, f) + 12, areaW = width - legendW;
  maxH = std::max(40.0, maxH - b.y);
  auto cellAt = [&](double w, double h) {
    const HeatmapLayout g = HeatmapRenderer::layout(first, QSizeF(w, h), opt);
    return std::min(g.cellW, g.cellH);
  };
  // Of the layouts: one that shows every token's label, then larger cells (up to a size that reads
  // well on paper; larger only wastes it), then the least height.
  constexpr double kGoodCell = 13, kMaxCell = 18;
  struct Choice {
    bool labels = false;
    double cell = -1, height = 0;
    bool operator>(const Choice& o) const {
      if (labels != o.labels) return labels;
      if (std::abs(cell - o.cell) > 0.05 * std::max(cell, o.cell)) return cell > o.cell;
      return height < o.height;
    }
  } best;
  int cols = 1, rows = heads;
  double tileW = areaW, tileH = maxH / heads;
  for (int c = 1; c <= heads; ++c) {
    const int rs = (heads + c - 1) / c;
    if (c > 1 && (heads + c - 2) / (c - 1) == rs) continue;  // as many rows with fewer, wider columns
    const double tw = areaW / c, limit = maxH / rs, cell = std::min(cellAt(tw, limit), kMaxCell);
    double lo = 1, hi = limit;  // the least tile height that still gives cells this large
    for (int k = 0; k < 14; ++k) (cellAt(tw, (lo + hi) / 2) >= cell ? hi : lo) = (lo + hi) / 2;
    const HeatmapLayout g = HeatmapRenderer::layout(first, QSizeF(tw, hi), opt);
    const Choice here{g.rowStep == 1 && g.colStep == 1, std::min(cell, kGoodCell), rs * hi};
    if (best.cell < 0 || here > best) best = here, cols = c, rows = rs, tileW = tw, tileH = hi;
  }
  const double top = b.y;
  b.block.draw.push_back([result, idx, heads, cols, rows, tileW, tileH, top, areaW, opt, f](QPainter& p) {
    bool masked = false, nan = false;
    HeatmapPicture last;
    for (int k = 0; k < heads; ++k) {
      HeatmapPicture pic = headPicture(result->batch, result->trace, idx, 0, k);
      pic.title = Exporter::tr("Head %1").arg(k);
      for (int i = 0; i < pic.rows; ++i)
        for (int j = 0; j < pic.cols; ++j) {
          const bool isNan = std::isnan(pic.value(i, j));
          nan = nan || isNan;
          masked = masked || (!isNan && pic.isMasked(i, j));
        }
      p.save();
      p.translate((k % cols) * tileW, top + (k / cols) * tileH);
      HeatmapRenderer::paint(p, pic, QSizeF(tileW, tileH), opt);
      p.restore();
      if (k + 1 == heads) last = std::move(pic);
    }
    HeatmapRenderer::paintLegend(p, QPointF(areaW + 12, top + 8), std::clamp(rows * tileH * 0.6, 40.0, 200.0), last.map,
                                 last.legendTitle, masked, nan, f);
  });
  b.y += rows * tileH;
  Block out = b.done();
  out.step = idx;
  out.join = Block::Follow;
  return out;
}

struct Placed {
  size_t block = 0;
  double y = 0, scale = 1;
  bool rule = false;  // a line above it
};

// The blocks down the pages: a gap (and a rule) between steps, a new page when the next block does
// not fit, a page of its own, scaled, for a block taller than a page.
std::vector<std::vector<Placed>> paginate(const std::vector<Block>& blocks, double pageH) {
  std::vector<std::vector<Placed>> pages(1);
  double y = 0;
  for (size_t k = 0; k < blocks.size(); ++k) {
    const Block& b = blocks[k];
    const bool fresh = pages.back().empty();
    double gap = fresh ? 0 : b.join == Block::Rule ? 24 : b.join == Block::Follow ? 10 : 0;
    if (b.height > pageH) {
      if (!fresh) pages.emplace_back();
      pages.back().push_back({k, 0, pageH / b.height, false});
      pages.emplace_back();
      y = 0;
      continue;
    }
    if (!fresh && y + gap + b.height > pageH) {
      pages.emplace_back();
      y = gap = 0;
    }
    pages.back().push_back({k, y + gap, 1, gap > 0 && b.join == Block::Rule});
    y += gap + b.height;
  }
  if (pages.size() > 1 && pages.back().empty()) pages.pop_back();
  return pages;
}

}  // namespace

QString exportHandoutPdf(TraceResultPtr result, const QString& path, const ExportProgress& progress) {
  if (!result) return noTrace();
  bool stop = false;
  const QString err = writeAtomically(path, [&](QSaveFile& file) {
    QPdfWriter pdf(&file);
    pdf.setPageSize(QPageSize(QPageSize::A4));
    pdf.setPageMargins(QMarginsF(15, 15, 15, 15), QPageLayout::Millimeter);
    pdf.setResolution(300);
    pdf.setTitle(Exporter::tr("Attention Lab handout"));
    pdf.setCreator(QStringLiteral("Attention Lab"));
    const double k = pdf.resolution() / 96.0;  // 96 units per inch
    const QSizeF page(pdf.width() / k, pdf.height() / k);
    const double pageH = page.height() - kFooter;
    // Every block, measured at the text width.
    std::vector<Block> blocks = coverBlocks(*result, page.width());
    const bool diagrams = widgetsHere();
    const int n = static_cast<int>(result->trace.steps().size());
    for (int i = 0; i < n; ++i) {
      blocks.push_back(stepBlock(result, i, page.width(), diagrams));
      const Step& s = result->trace.steps()[static_cast<size_t>(i)];
      if (s.info.id.ends_with(".weights") && s.tensor.dim() == 4 && s.tensor.size(0) > 0 && s.tensor.size(1) > 0)
        blocks.push_back(headsBlock(result, i, page.width(), pageH, k));
    }
    const auto pages = paginate(blocks, pageH);
    // Then drawn, page by page; progress after each step's last block.
    QPainter p;
    if (!p.begin(&pdf)) return false;
    p.setRenderHints(QPainter::Antialiasing | QPainter::TextAntialiasing);
    for (size_t pg = 0; pg < pages.size() && !stop; ++pg) {
      if (pg > 0) pdf.newPage();
      p.resetTransform();
      p.scale(k, k);
      for (const Placed& at : pages[pg]) {
        const Block& b = blocks[at.block];
        if (at.rule) {
          p.setPen(QPen(kRule, 0.75));
          p.drawLine(QPointF(0, at.y - 12), QPointF(page.width(), at.y - 12));
        }
        p.save();
        p.translate(page.width() * (1 - at.scale) / 2, at.y);
        p.scale(at.scale, at.scale);
        for (const auto& draw : b.draw) draw(p);
        p.restore();
        const bool stepDone = b.step >= 0 && (at.block + 1 == blocks.size() || blocks[at.block + 1].step != b.step);
        if (stepDone && progress && !progress(b.step + 1, n)) {
          stop = true;
          break;
        }
      }
      const QFont footer = handoutFont(10);
      p.setFont(footer);
      p.setPen(kGrey);
      p.drawText(QRectF(0, page.height() - QFontMetricsF(footer).height(), page.width(), QFontMetricsF(footer).height()),
                 Qt::AlignRight | Qt::AlignVCenter,
                 Exporter::tr("Page %1 of %2").arg(pg + 1).arg(pages.size()));  // a count, from 1
    }
    return p.end() && !stop;
  });
  return stop ? cancelled() : err;
}

}  // namespace attnlab::ui
