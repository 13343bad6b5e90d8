// A GPT-2 checkpoint folder in the window: File ▸ Open model folder… locks the knobs config.json
// decides (causal, pre-norm, learned positions, tanh-GELU, a final LayerNorm), cuts the sentences
// with the folder's own tokenizer — chips and axes show its pieces as ␣cat, never Ġcat — and
// computes exactly what core computes for that folder, the tied head's logits over the whole
// vocabulary included; a session references the folder and reopens to the same trace bit for bit;
// the next-token loss runs through the tied head (one gradient for the table's two names); a folder holding only pytorch_model.bin is refused by
// name and the window keeps what it had. A BERT folder runs post-norm with its token types, the
// embedding LayerNorm and the masked-word head; its chips are WordPiece's between [CLS] and [SEP],
// and the Predictions panel opens at the [MASK] with the head's own top guess.
#include <QtTest>

#include <QCheckBox>

#include <QDir>
#include <QFile>
#include <QComboBox>
#include <QDoubleSpinBox>
#include <QLabel>
#include <QPushButton>
#include <QPlainTextEdit>
#include <QSpinBox>
#include <QTemporaryDir>

#include <algorithm>

#include <nlohmann/json.hpp>

#include "backward/loss.h"
#include "backward/model_backward.h"
#include "export/exporter.h"
#include "forward/memory.h"
#include "forward/model.h"
#include "input/inputpanel.h"
#include "input/tokenchips.h"
#include "io/safetensors.h"
#include "io/session.h"
#include "pretrained/generate.h"
#include "pretrained/kv_check.h"
#include "pretrained/pretrained_model.h"
#include "subword/bpe.h"
#include "subword/subword_token.h"
#include "tensor/rng.h"
#include "views/continuebox.h"
#include "views/predictionspanel.h"
#include "text/errors.h"
#include "window/controller.h"
#include "window/generation.h"
#include "window/mainwindow.h"
#include "words/stepnames.h"
#include "windowfixture.h"
#include "../fuzz/byte_vocab.h"
#include "../gpt2_checkpoint.h"

using namespace attnlab;
using namespace attnlab::ui;

namespace {

constexpr int64_t kD = 8, kLayers = 2, kPositions = 16;  // 2 heads, n_inner 32 = 4 · kD
constexpr int64_t kV = 259;  // every byte symbol, the two merges' pieces, <|endoftext|>

// Values from a small LCG: different in every tensor, the same on every run.
Tensor numbers(Shape shape, float scale, float offset, uint32_t& state) {
  Tensor t(shape);
  for (int64_t i = 0; i < t.numel(); ++i) {
    state = state * 1664525u + 1013904223u;
    t.data()[i] = offset + scale * (static_cast<float>(state >> 8) / 16777216.0f - 0.5f);
  }
  return t;
}

bool writeFile(const QString& path, const std::string& bytes) {
  QFile f(path);
  return f.open(QIODevice::WriteOnly) && f.write(bytes.data(), static_cast<qint64>(bytes.size())) == qint64(bytes.size());
}

// config.json, model.safetensors (Hugging Face's names, Conv1D layout), vocab.json, merges.txt.
bool writeGpt2Folder(const QString& folder) {
  if (!QDir().mkpath(folder)) return false;
  uint32_t state = 7;
  const auto p = fixtures::gpt2_tensors(kV, kD, kLayers, kPositions, [&state](const Shape& shape, float scale, float offset) {
    return numbers(shape, scale, offset, state);
  });
  const std::string vocab = byte_vocab_json({"he", "Ġc", "<|endoftext|>"});
  const std::string config = "{\"model_type\": \"gpt2\", \"n_embd\": 8, \"n_head\": 2, \"n_layer\": 2, \"n_positions\": 16, "
                             "\"n_inner\": 32, \"vocab_size\": 259, \"activation_function\": \"gelu_new\"}";
  return writeFile(folder + "/config.json", config) && writeFile(folder + "/vocab.json", vocab) &&
         writeFile(folder + "/merges.txt", "#version: 0.2\nh e\nĠ c\n") &&
         writeFile(folder + "/model.safetensors", serialize_safetensors(p, {{"format", "pt"}}));
}

// config.json, model.safetensors (BertForMaskedLM's names) and vocab.txt of a 2-layer BERT.
bool writeBertFolder(const QString& folder) {
  if (!QDir().mkpath(folder)) return false;
  uint32_t state = 11;
  const auto p = fixtures::bert_tensors(12, kD, kLayers, kPositions, [&state](const Shape& shape, float scale, float offset) {
    return numbers(shape, scale, offset, state);
  });
  const std::string config = "{\"model_type\": \"bert\", \"hidden_size\": 8, \"num_attention_heads\": 2, "
                             "\"num_hidden_layers\": 2, \"intermediate_size\": 32, \"max_position_embeddings\": 16, "
                             "\"vocab_size\": 12}";
  return writeFile(folder + "/config.json", config) &&
         writeFile(folder + "/vocab.txt", "[PAD]\n[UNK]\n[CLS]\n[SEP]\n[MASK]\nthe\ncat\nsat\non\nmat\n.\n##s\n") &&
         writeFile(folder + "/model.safetensors", serialize_safetensors(p, {{"format", "pt"}}));
}

bool sameTrace(const Trace& a, const Trace& b) {
  if (a.steps().size() != b.steps().size()) return false;
  for (size_t i = 0; i < a.steps().size(); ++i)
    if (a.steps()[i].info.id != b.steps()[i].info.id || !test::sameBits(a.steps()[i].tensor, b.steps()[i].tensor))
      return false;
  return true;
}

}  // namespace

class TestCheckpointUi : public QObject {
  Q_OBJECT

 private slots:
  void initTestCase() { test::isolateSettings(); }

  void openingAFolderRunsItsModelWithItsTokenizer() {
    QTemporaryDir dir;
    const QString folder = dir.filePath(QStringLiteral("gpt2-tiny"));
    QVERIFY(writeGpt2Folder(folder));
    auto w = test::openWindow(QStringLiteral("checkpoint-a"));
    QVERIFY(w);
    w->inputs()->sentencesEdit()->setPlainText(QStringLiteral("the cat\nhe"));
    test::settle(*w);
    QCOMPARE(w->openModelFolder(folder), QString());
    test::settle(*w);
    InputPanel* in = w->inputs();
    QCOMPARE(in->dModelBox()->value(), 8);
    QCOMPARE(in->headsBox()->value(), 2);
    QVERIFY(!in->dModelBox()->isEnabled() && !in->headsBox()->isEnabled());
    QVERIFY(in->findChild<QLabel*>(QStringLiteral("weightsSource"))->text().contains(QStringLiteral("gpt2-tiny")));

    const auto r = w->controller()->current();
    QVERIFY(r);
    QCOMPARE(r->cfg.mask, MaskKind::Causal);
    QCOMPARE(r->cfg.positional, Positional::Learned);
    QCOMPARE(r->cfg.activation, Activation::GeluTanh);
    QVERIFY(r->cfg.final_norm);
    // "the cat": t · he · Ġc · a · t (the merges he and Ġc), shown ␣c; "he" one piece, then [PAD]
    const std::vector<std::string> pieces = {"t", "he", "Ġc", "a", "t"}, shown = {"t", "he", "␣c", "a", "t"};
    QVERIFY(r->batch.text.tokens[0] == pieces);
    QVERIFY(r->batch.text.shown[0] == shown);
    QVERIFY(r->batch.text.lengths == (std::vector<int>{5, 1}));
    QVERIFY(attention_tokens(r->batch, "encoder.layers.1.self_attn.weights", 0).query == shown);
    const auto& chips = in->chips()->rows();
    QVERIFY(chips.size() == 2 && chips[0] == shown);
    QVERIFY(!in->chips()->isUnknown("␣c"));
    const Step* logits = r->trace.find("encoder.output_head.logits");
    QVERIFY(logits);
    QVERIFY(logits->tensor.shape() == (Shape{2, 5, kV}));
    QCOMPARE(static_cast<int64_t>(r->trace.steps().size()), count_steps(r->cfg, 5) + output_head_steps(r->cfg));
    // the step sentences count the [PAD] ids where the tokenizer has them (<|endoftext|>, row 258)
    const auto said = [&r](const std::string& id) { return StepNames::whatChanged(r->trace, r->indexOf(id)); };
    QVERIFY2(said("encoder.token_ids").contains(QStringLiteral("of which 4 are [PAD] (id 258)")), qPrintable(said("encoder.token_ids")));
    QVERIFY2(said("encoder.embedding").endsWith(QStringLiteral("4 [PAD] positions got row 258, the [PAD] piece's vector (not zeros).")),
             qPrintable(said("encoder.embedding")));

    // the next-token loss through the tied head, chosen as a user would: the window's gradients
    // are core's with the padding read from the sentences' lengths ("he" is one piece, then the
    // [PAD] that reads <|endoftext|>'s row), and the tied table's two names carry one sum
    QComboBox* grads = in->findChild<QComboBox*>(QStringLiteral("gradients"));
    QVERIFY(grads);
    grads->setCurrentIndex(2);  // next-token
    test::settle(*w);
    const auto g = w->controller()->current();
    QVERIFY(g && g->gradients && g->gradients->kind == LossKind::NextToken);
    {
      const auto m = pretrained::load_pretrained(QFile::encodeName(folder).toStdString());
      Trace fwd;
      forward(m.cfg, m.weights, pretrained::pretrained_batch(m, {"the cat", "he"}), fwd);
      LossSpec spec{.kind = LossKind::NextToken};
      spec.lengths = {5, 1};
      const BackwardResult b = backward(m.cfg, m.weights, fwd, spec);
      QCOMPARE(g->gradients->loss, b.loss);
      const Step* head = g->trace.find("grad/output_head.weight");
      const Step* table = g->trace.find("grad/embedding.weight");
      QVERIFY(head && table && b.steps.find("grad/embedding.weight"));
      QVERIFY(test::sameBits(table->tensor, b.steps.find("grad/embedding.weight")->tensor));
      QVERIFY(test::sameBits(head->tensor, table->tensor));
    }
    grads->setCurrentIndex(0);
    test::settle(*w);

    // exactly what core computes for the folder
    const auto m = pretrained::load_pretrained(QFile::encodeName(folder).toStdString());
    Trace want;
    forward(m.cfg, m.weights, pretrained::pretrained_batch(m, {"the cat", "he"}), want);
    QVERIFY(sameTrace(r->trace, want));

    // a session references the folder (relative to the session) and reopens to the same trace
    const QString session = dir.filePath(QStringLiteral("lesson.attnlab"));
    QCOMPARE(w->saveSession(session), QString());
    QFile sf(session);
    QVERIFY(sf.open(QIODevice::ReadOnly));
    const Session s = parse_session(sf.readAll().toStdString(), "lesson.attnlab");
    QCOMPARE(s.weights.model_folder, std::string("gpt2-tiny"));
    QVERIFY(s.weights.bytes.empty() && s.weights.file.empty());
    auto b = test::openWindow(QStringLiteral("checkpoint-b"));
    QVERIFY(b);
    QCOMPARE(b->openSession(session), QString());
    test::settle(*b);
    QVERIFY(sameTrace(b->controller()->current()->trace, r->trace));
    QVERIFY(b->controller()->current()->batch.text.shown == r->batch.text.shown);
  }

  // "Begin each sentence with <|endoftext|>" (a GPT-2 folder only): position 0 is that piece, the
  // trace is core's with prepend_bos bit for bit, the chips show it, a session keeps it; a BERT
  // folder does not offer it (its texts begin with [CLS]).
  void aGpt2SentenceCanBeginWithEndoftext() {
    QTemporaryDir dir;
    const QString folder = dir.filePath(QStringLiteral("gpt2-bos"));
    QVERIFY(writeGpt2Folder(folder));
    auto w = test::openWindow(QStringLiteral("checkpoint-bos"));
    QVERIFY(w);
    w->inputs()->sentencesEdit()->setPlainText(QStringLiteral("the cat\nhe"));
    QCOMPARE(w->openModelFolder(folder), QString());
    test::settle(*w);
    QCheckBox* bos = w->inputs()->bosBox();
    QVERIFY(bos->isVisibleTo(w.get()) && !bos->isChecked());
    QVERIFY(w->controller()->current()->batch.text.tokens[0].front() == "t");  // off: nothing added
    QTest::mouseClick(bos, Qt::LeftButton, {}, QPoint(8, bos->height() / 2));
    QVERIFY(bos->isChecked());
    test::settle(*w);
    const auto r = w->controller()->current();
    QVERIFY(r->batch.text.tokens[0].front() == "<|endoftext|>" && r->batch.text.lengths == (std::vector<int>{6, 2}));
    QVERIFY(w->inputs()->chips()->rows()[1] == (std::vector<std::string>{"<|endoftext|>", "he"}));
    // the <|endoftext|> each sentence begins with reads the [PAD] row but is no padding: 4 are
    const QString ids = StepNames::whatChanged(r->trace, r->indexOf("encoder.token_ids"));
    QVERIFY2(ids.contains(QStringLiteral("of which 4 are [PAD] (id 258)")), qPrintable(ids));
    const auto m = pretrained::load_pretrained(QFile::encodeName(folder).toStdString());
    Trace want;
    forward(m.cfg, m.weights, pretrained::pretrained_batch(m, {"the cat", "he"}, true), want);
    QVERIFY(sameTrace(r->trace, want));
    const QString session = dir.filePath(QStringLiteral("bos.attnlab"));
    QCOMPARE(w->saveSession(session), QString());
    QFile sf(session);
    QVERIFY(sf.open(QIODevice::ReadOnly));
    QVERIFY(parse_session(sf.readAll().toStdString(), "bos.attnlab").weights.prepend_bos);
    // File ▸ Export ▸ bundle: the manifest says so, as --prepend-bos's does
    QCOMPARE(exportBundle(r, dir.filePath(QStringLiteral("bundle")), ExportFormats{}), QString());
    QFile mf(dir.filePath(QStringLiteral("bundle/manifest.json")));
    QVERIFY(mf.open(QIODevice::ReadOnly));
    QCOMPARE(nlohmann::json::parse(mf.readAll().toStdString())["config"]["prepend_bos"], nlohmann::json(true));
    auto b = test::openWindow(QStringLiteral("checkpoint-bos-b"));
    QVERIFY(b);
    QCOMPARE(b->openSession(session), QString());
    test::settle(*b);
    QVERIFY(b->inputs()->bosBox()->isChecked());
    QVERIFY(sameTrace(b->controller()->current()->trace, r->trace));

    const QString bert = dir.filePath(QStringLiteral("bert-tiny"));
    QVERIFY(writeBertFolder(bert));
    QCOMPARE(w->openModelFolder(bert), QString());
    test::settle(*w);
    QVERIFY(!bos->isVisibleTo(w.get()));
    QVERIFY(w->controller()->current()->batch.text.tokens[0].front() == "[CLS]");  // the box left checked means nothing here
  }

  void bertFolderGuessesTheMaskedWord() {
    QTemporaryDir dir;
    const QString folder = dir.filePath(QStringLiteral("bert-tiny"));
    QVERIFY(writeBertFolder(folder));
    auto w = test::openWindow(QStringLiteral("checkpoint-bert"));
    QVERIFY(w);
    w->inputs()->sentencesEdit()->setPlainText(QStringLiteral("The cat sat on the [MASK].\ncats"));
    test::settle(*w);
    QCOMPARE(w->openModelFolder(folder), QString());
    test::settle(*w);
    const auto r = w->controller()->current();
    QVERIFY(r);
    QCOMPARE(r->cfg.norm, Norm::Post);
    QCOMPARE(r->cfg.mask, MaskKind::Padding);
    QCOMPARE(r->cfg.activation, Activation::Gelu);
    QVERIFY(r->cfg.token_types == 2 && r->cfg.embedding_norm && r->cfg.head_transform && !r->cfg.final_norm);
    QVERIFY(!w->inputs()->dModelBox()->isEnabled());
    const std::vector<std::string> first = {"[CLS]", "the", "cat", "sat", "on", "the", "[MASK]", ".", "[SEP]"};
    QVERIFY(r->batch.text.tokens[0] == first);
    QVERIFY(r->batch.text.lengths == (std::vector<int>{9, 4}));  // cats: [CLS] cat ##s [SEP]
    QVERIFY(w->inputs()->chips()->rows()[0] == first);
    for (const char* id : {"encoder.token_type", "encoder.embeddings", "encoder.input", "encoder.output_head.transform_norm"})
      QVERIFY2(r->trace.find(id), id);
    // the progress bar counts to the trace's length: the layers, BERT's embedding steps, the head's five
    QCOMPARE(static_cast<int64_t>(r->trace.steps().size()), count_steps(r->cfg, 9) + output_head_steps(r->cfg));

    // exactly what core computes for the folder
    const auto m = pretrained::load_pretrained(QFile::encodeName(folder).toStdString());
    Trace want;
    forward(m.cfg, m.weights, pretrained::pretrained_batch(m, {"The cat sat on the [MASK].", "cats"}), want);
    QVERIFY(sameTrace(r->trace, want));

    // the Predictions panel opens at the [MASK], its first row the head's most probable piece there
    PredictionsPanel* p = w->predictions();
    QCOMPARE(p->sentenceBox()->currentIndex(), 0);
    QCOMPARE(p->positionBox()->currentIndex(), 6);
    const Step* probs = r->trace.find("encoder.output_head.probs");
    QVERIFY(probs);
    const Tensor row = probs->tensor.contiguous();
    const float* at = row.data() + 6 * 12;
    const auto best = std::max_element(at, at + 12) - at;
    QCOMPARE(p->rowToken(0), QString::fromStdString(m.tokenizer->piece(static_cast<int>(best))));
    QVERIFY(!p->continueBox()->isVisibleTo(p));  // a masked-word model draws no next piece

    // per-position answers typed in the window are cut as the sentences are, and no one answers
    // the [CLS] and [SEP] around them: "the cat" scores positions 1 and 2 only, never "sat" against [SEP]
    auto* answers = w->inputs()->findChild<QPlainTextEdit*>(QStringLiteral("answers"));
    QVERIFY(answers);
    w->inputs()->findChild<QComboBox*>(QStringLiteral("gradients"))->setCurrentIndex(3);
    answers->setPlainText(QStringLiteral("the cat\ncat"));
    test::settle(*w);
    const auto g = w->controller()->current();
    QVERIFY(g && g->gradients && g->gradients->kind == LossKind::PerPosition);
    Tensor target({2, 9}, -1.0f);  // ids: the 5, cat 6
    target.data()[1] = 5;
    target.data()[2] = 6;
    target.data()[9 + 1] = 6;
    QVERIFY(pretrained::pretrained_answer_ids(m, {"the cat", "cat"}, 2, 9).to_vector() == target.to_vector());
    const BackwardResult b = backward(m.cfg, m.weights, want, LossSpec{.kind = LossKind::PerPosition, .target = target});
    QCOMPARE(g->gradients->loss, b.loss);
    QVERIFY(test::sameBits(g->trace.find("grad/output_head.transform.weight")->tensor,
                           b.steps.find("grad/output_head.transform.weight")->tensor));
    // one answer for two sentences is named as such, not as a command-line option
    Request one = w->inputs()->currentRequest();
    one.answers = QStringList{QStringLiteral("the cat")};
    try {
      compute(one, 1);
      QFAIL("one answer for two sentences ran");
    } catch (const DataError& e) {
      QVERIFY2(std::string(e.what()).find("1 answers for 2 sentences") != std::string::npos, e.what());
    }
  }

  void appendAndContinueDrawsLikeTheCommandLine() {
    QTemporaryDir dir;
    const QString folder = dir.filePath(QStringLiteral("gpt2-gen"));
    QVERIFY(writeGpt2Folder(folder));
    auto w = test::openWindow(QStringLiteral("checkpoint-gen"));
    QVERIFY(w);
    QPlainTextEdit* edit = w->inputs()->sentencesEdit();
    edit->setPlainText(QStringLiteral("the cat\nhe"));
    test::settle(*w);
    QCOMPARE(w->openModelFolder(folder), QString());
    test::settle(*w);
    PredictionsPanel* p = w->predictions();
    ContinueBox* box = p->continueBox();
    QVERIFY(box->isVisibleTo(p));
    box->temperatureBox()->setValue(0.7);
    const auto m = pretrained::load_pretrained(QFile::encodeName(folder).toStdString());
    const std::vector<std::string> start = {"t", "he", "Ġc", "a", "t"};
    std::vector<int> startIds;
    for (const std::string& piece : start) startIds.push_back(m.tokenizer->id(piece));
    // the command line's first two draws for this text with the window's controls, for the first
    // seed whose text cuts back into the same pieces (a drawn byte of a longer character, or "Ġ"
    // then "c", would be cut otherwise once it is text)
    pretrained::Continuation want;
    int seed = 0;
    for (;; ++seed) {
      QVERIFY(seed < 500);
      pretrained::Sampling s = box->sampling();
      s.steps = 2, s.seed = static_cast<uint64_t>(seed);
      want = pretrained::continue_text(m, start, 0, s, cpu_backend());
      std::vector<int> all = startIds;
      bool stable = true;
      for (int id : want.ids) {
        all.push_back(id);
        std::vector<int> again;
        for (const auto& t : m.tokenizer->encode(m.tokenizer->decode(all))) again.push_back(t.id);
        stable = stable && again == all;
      }
      if (stable) break;
    }
    box->seedBox()->setValue(seed);

    QCOMPARE(p->sentenceBox()->currentIndex(), 0);
    std::vector<int> ids = startIds;
    QTest::mouseClick(box->appendButton(), Qt::LeftButton);
    QVERIFY(!box->appendButton()->isEnabled());  // one draw per result
    ids.push_back(want.ids[0]);
    QCOMPARE(edit->toPlainText().split(QLatin1Char('\n'))[0], QString::fromStdString(m.tokenizer->decode(ids)));
    QCOMPARE(edit->toPlainText().split(QLatin1Char('\n'))[1], QStringLiteral("he"));  // the other sentence as it was
    test::settle(*w);
    QVERIFY(box->appendButton()->isEnabled());
    QVERIFY(box->drawnLabel()->text().contains(QStringLiteral("1")));
    // the appended piece decoded again with the KV cache, checked against this trace and shown
    const auto appended = w->controller()->current();
    QCOMPARE(appended->kvDecodeState, TraceResult::KvDecode::Checked);
    QVERIFY(appended->kvDecode);
    const pretrained::KvDecodeCheck& check = *appended->kvDecode;
    QCOMPARE(check.sentence, int64_t{0});
    QVERIFY(check.from_trace);  // the earlier rows are the trace's own keys and values
    QCOMPARE(check.position, static_cast<int64_t>(start.size()));
    QCOMPARE(check.heads_compared, appended->cfg.layers * appended->cfg.heads);
    QVERIFY(check.agrees());
    QVERIFY(check.decode_macs < check.full_macs);
    const QString shown = box->kvCheckLabel()->text().replace(QChar(0x00A0), QLatin1Char(' '));  // shapes kept whole
    const QString heads = QString::number(appended->cfg.heads), dh = QString::number(appended->cfg.d_head());
    QVERIFY2(shown.contains(QStringLiteral("(1, %1, 1, %2)").arg(heads, dh)) &&
                 shown.contains(QStringLiteral("(1, %1, %2, %3)").arg(heads).arg(start.size() + 1).arg(dh)) &&
                 shown.contains(QStringLiteral("Same numbers")),
             qPrintable(shown));

    // the second draw reads the new result's logits with u = uniform(1): the count went on
    const auto r = w->controller()->current();
    const Tensor logits = r->trace.find("encoder.output_head.logits")->tensor.contiguous();
    const int64_t v = logits.size(2), last = r->batch.text.lengths[0] - 1;
    QCOMPARE(r->batch.text.lengths[0], static_cast<int>(start.size()) + 1);
    const int second = pretrained::draw_piece(logits.data() + last * v, v, box->sampling(),
                                              Stream("generate:0", static_cast<uint64_t>(seed)).uniform(1));
    QCOMPARE(second, want.ids[1]);  // the command line's second draw
    const QString before = edit->toPlainText();
    QTest::mouseClick(box->appendButton(), Qt::LeftButton);
    test::settle(*w);
    QVERIFY(edit->toPlainText() != before);
    QVERIFY(box->drawnLabel()->text().contains(QStringLiteral("2")));
    edit->undo();  // Ctrl+Z takes the piece back
    QCOMPARE(edit->toPlainText(), before);

    // a drawn line break is not appended: a sentence is one line
    test::settle(*w);
    QCOMPARE(w->controller()->current()->kvDecodeState, TraceResult::KvDecode::None);  // the undo is an edit: no check
    QVERIFY(box->kvCheckLabel()->text().isEmpty());
    const QString now = edit->toPlainText();
    const QString why = appendPiece(edit, 0, *w->controller()->current(), w->inputs()->importedWeights().get(),
                                    m.tokenizer->id("Ċ"));  // byte 0x0A's symbol
    QVERIFY2(why.contains(QStringLiteral("line break")), qPrintable(why));
    QCOMPARE(edit->toPlainText(), now);
    QCOMPARE(QString::fromStdString(subword::display_piece("ĉ", true)), QStringLiteral("⇥"));
    QCOMPARE(QString::fromStdString(subword::display_piece("č", true)), QStringLiteral("⟨0D⟩"));  // \r would not show

    // the check runs only where the sentence cut into the pieces the draw made, and only on a model
    // the cache serves (a planted bug makes it another model); each state is said under the button
    Request req = w->inputs()->currentRequest();
    const auto current = w->controller()->current();
    const auto& row = current->batch.text.tokens[0];
    req.appended = AppendedPiece{.sentence = 0, .pieces = {row.begin(), row.begin() + current->batch.text.lengths[0]}};
    QCOMPARE(compute(req, 1)->kvDecodeState, TraceResult::KvDecode::Checked);
    // the check's working set is in the estimate, and in the tiled path's offered instead when
    // over the budget (a file padded to 2 MiB beside the weights puts this model over 1 MiB)
    Request plain = req;
    plain.appended.reset();
    const int64_t checkBytes = pretrained::kv_check_bytes(current->cfg, current->batch.text.seq());
    QVERIFY(checkBytes > 0);
    QCOMPARE(compute(req, 1)->estimateBytes - compute(plain, 1)->estimateBytes, checkBytes);
    auto padded = std::make_shared<ImportedWeights>(*req.weights);
    padded->bytes.resize(2 << 20);
    const auto overBudget = [&](Request r) {
      r.weights = padded;
      r.memoryBudgetMiB = 1;
      try {
        compute(r, 1);
      } catch (const OverBudget& e) {
        return std::pair<qint64, qint64>(e.needBytes, e.tiledBytes);
      }
      return std::pair<qint64, qint64>(0, 0);
    };
    const auto [need, tiled] = overBudget(req);
    const auto [needPlain, tiledPlain] = overBudget(plain);
    QVERIFY(need > 0 && tiled > 0 && needPlain > 0 && tiledPlain > 0);
    QCOMPARE(need - needPlain, checkBytes);
    QCOMPARE(tiled - tiledPlain, checkBytes);
    // a backward: the trace's part tripled (with_gradients) and one F32 gradient per name, the
    // tied head's own included (with_loaded_weights)
    Request lossy = plain;
    lossy.loss = LossKind::NextToken;
    const auto& cb = current->batch;
    const MemoryEstimate traced = estimate_memory(current->cfg, cb.text.batch(), cb.encoder_tokens().seq(), 0,
                                                  static_cast<int64_t>(cb.vocab.words.size()), true);
    const Weights& lw = req.weights->loaded.weights;
    QVERIFY(traced.trace_bytes > 0 && lw.head_tied());
    const int64_t gradients = lw.f32_bytes() + numel_of(lw.shape("embedding.weight")) * 4;
    QCOMPARE(compute(lossy, 1)->estimateBytes - compute(plain, 1)->estimateBytes, 2 * traced.trace_bytes + gradients);
    req.appended->pieces.back() = "x";  // the text cut differently once joined
    const auto skipped = compute(req, 1);
    QCOMPARE(skipped->kvDecodeState, TraceResult::KvDecode::None);
    QCOMPARE(skipped->estimateBytes, compute(plain, 1)->estimateBytes);  // a check that will not run is not counted
    req.appended->pieces = {row.begin(), row.begin() + current->batch.text.lengths[0]};
    req.cfg.faults.insert(Fault::NoScaling);
    const auto faulty = compute(req, 1);
    QCOMPARE(faulty->kvDecodeState, TraceResult::KvDecode::NotServed);
    box->setResult(faulty);
    QVERIFY2(box->kvCheckLabel()->text().contains(QStringLiteral("does not serve")), qPrintable(box->kvCheckLabel()->text()));
    auto failed = std::make_shared<TraceResult>(*faulty);
    failed->kvDecodeState = TraceResult::KvDecode::Failed;
    failed->kvDecodeFailure = QStringLiteral("std::bad_alloc");
    box->setResult(failed);
    QVERIFY2(box->kvCheckLabel()->text().contains(QStringLiteral("could not run (std::bad_alloc)")), qPrintable(box->kvCheckLabel()->text()));
  }

  void pickleOnlyFolderIsRefusedByName() {
    QTemporaryDir dir;
    const QString folder = dir.filePath(QStringLiteral("old-gpt2"));
    QVERIFY(writeGpt2Folder(folder));
    QVERIFY(QFile::rename(folder + "/model.safetensors", folder + "/pytorch_model.bin"));
    auto w = test::openWindow(QStringLiteral("checkpoint-c"));
    QVERIFY(w);
    const auto before = w->controller()->current();
    QString shown;
    test::acceptNextMessage(&shown);
    const QString error = w->openModelFolder(folder);
    QVERIFY2(error.contains(QStringLiteral("pytorch_model.bin")) && error.contains(QStringLiteral("bin_to_safetensors.py")),
             qPrintable(error));
    QCOMPARE(shown, error);
    test::settle(*w);
    QCOMPARE(w->controller()->current(), before);
    QVERIFY(w->inputs()->dModelBox()->isEnabled());
  }
};

QTEST_MAIN(TestCheckpointUi)
#include "test_checkpoint_ui.moc"
