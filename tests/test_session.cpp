// Sessions (.attnlab): what is saved comes back; a damaged, foreign or newer file is refused
// with the file and the field named; a reopened session computes the same trace bit for bit.
#include <QtTest>

#include "forward/model.h"
#include "io/base64.h"
#include "io/session.h"
#include "model/weights.h"
#include "text/errors.h"

using namespace attnlab;

namespace {

Session lesson() {
  Session s;
  s.texts = {"the cat sat on the mat", "猫坐在垫子上"};
  s.memory_texts = {"le chat"};
  s.cfg.d_model = 32;
  s.cfg.heads = 4;
  s.cfg.d_ff = 48;
  s.cfg.layers = 2;
  s.cfg.mask = MaskKind::PaddingCausal;
  s.cfg.norm = Norm::Post;
  s.cfg.activation = Activation::GeluTanh;  // the newest value: it must round-trip too
  s.cfg.seed = 7;
  s.cfg.cross = true;
  s.step = "decoder.layers.1.multihead_attn.weights";
  s.backend = BackendKind::Auto;
  s.memory_budget_mib = 512;
  s.view_tab = "charts";
  s.sentence = 1;
  s.head = 3;
  return s;
}

// The message of the DataError that parsing `text` throws ("" when it parses).
std::string refusal(const std::string& text) {
  try {
    parse_session(text, "lesson.attnlab");
  } catch (const DataError& e) {
    return e.what();
  }
  return "";
}

}  // namespace

class TestSession : public QObject {
  Q_OBJECT

 private slots:
  void roundTrip() {
    const Session a = lesson();
    const Session b = parse_session(session_json(a), "x");
    QCOMPARE(b.texts, a.texts);
    QCOMPARE(b.memory_texts, a.memory_texts);
    QCOMPARE(b.step, a.step);
    QVERIFY(b.backend == a.backend);
    QCOMPARE(b.memory_budget_mib, a.memory_budget_mib);
    QCOMPARE(b.view_tab, std::string("charts"));
    QCOMPARE(b.sentence, int64_t{1});
    QCOMPARE(b.head, int64_t{3});
    QCOMPARE(session_json(b), session_json(a));  // every configuration field
    QVERIFY(b.loss.empty());  // no backward pass unless asked, and no "loss" written for it
    QVERIFY(session_json(b).find("\"loss\"") == std::string::npos);
    Session g = a;
    g.loss = "sum";
    g.view_tab = "gradients";
    const Session h = parse_session(session_json(g), "x");
    QCOMPARE(h.loss, std::string("sum"));
    QCOMPARE(h.view_tab, std::string("gradients"));
    QVERIFY(session_json(a).find("ablate_mode") == std::string::npos);  // absent: zero, as before
    Session m = a;  // heads mean-ablated
    m.ablate = "0.1,1.3";
    m.ablate_mode = "mean";
    const Session n = parse_session(session_json(m), "x");
    QCOMPARE(n.ablate, m.ablate);
    QCOMPARE(n.ablate_mode, std::string("mean"));
    QVERIFY(session_json(a).find("sampling") == std::string::npos);  // absent: the defaults, as before
    Session d = a;  // the continue box's controls
    d.sampling = {.temperature = 0.7, .top_p = 0.9, .top_k = 40, .seed = 3};
    QVERIFY(parse_session(session_json(d), "x").sampling == d.sampling);
    QVERIFY(parse_session(session_json(a), "x").sampling == SessionSampling{});
    Session t = a;  // tiled, one layer in full
    t.cfg.layers = 3;
    t.cfg.overview_cap = kOverviewCap;
    t.cfg.full_layers = {0, 2};
    QVERIFY(parse_session(session_json(t), "x").cfg.full_layers == (std::vector<int64_t>{0, 2}));
    t.cfg.full_heads = {{1, 0}, {1, 3}};  // heads of the tiled layer 1 kept whole
    QVERIFY(parse_session(session_json(t), "x").cfg.full_heads == t.cfg.full_heads);
    QVERIFY(session_json(a).find("full_heads") == std::string::npos);  // absent when none, as before
    QVERIFY(b.cfg.full_layers.empty());
    QVERIFY(b.cfg.cross);
    // The same trace, bit for bit: the weights follow from the configuration and its seed.
    const Batch ba = make_batch(a.texts, a.memory_texts), bb = make_batch(b.texts, b.memory_texts);
    Trace ta, tb;
    forward(a.cfg, init_weights(a.cfg), ba, ta);
    forward(b.cfg, init_weights(b.cfg), bb, tb);
    QCOMPARE(tb.steps().size(), ta.steps().size());
    for (size_t i = 0; i < ta.steps().size(); ++i) {
      QCOMPARE(tb.steps()[i].info.id, ta.steps()[i].info.id);
      const auto x = ta.steps()[i].tensor.to_vector(), y = tb.steps()[i].tensor.to_vector();
      QVERIFY2(x.size() == y.size() && std::equal(x.begin(), x.end(), y.begin(), [](float p, float q) {
                 return std::memcmp(&p, &q, sizeof p) == 0;
               }),
               ta.steps()[i].info.id.c_str());
    }
  }

  // A variant and its knobs come back; a variant's steps are then in the reopened trace.
  void variantRoundTrip() {
    Session a = lesson();
    a.cfg.variant.kind = VariantKind::BigBird;
    a.cfg.variant.block = 3;
    a.cfg.variant.random_blocks = 2;
    a.cfg.variant.window = 7;  // not a BigBird knob: not saved, back to its default
    const Session b = parse_session(session_json(a), "x");
    QVERIFY(b.cfg.variant.kind == VariantKind::BigBird);
    QCOMPARE(b.cfg.variant.block, int64_t{3});
    QCOMPARE(b.cfg.variant.random_blocks, int64_t{2});
    QCOMPARE(b.cfg.variant.window, VariantConfig{}.window);
    QVERIFY(session_json(b).find("\"variant\"") != std::string::npos);
    Trace t;
    forward(b.cfg, init_weights(b.cfg), make_batch(b.texts, b.memory_texts), t);
    QVERIFY(t.find("encoder.layers.0.variant.bigbird.pattern"));
    QVERIFY(session_json(lesson()).find("\"variant\"") == std::string::npos);  // none: nothing written
  }

  void refusesWithTheFieldNamed_data() {
    QTest::addColumn<QString>("text");
    QTest::addColumn<QString>("says");
    const QString head = QStringLiteral("{\"format\": \"attnlab-session\", \"version\": 1, \"texts\": [\"a b\"], ");
    QTest::newRow("truncated") << QStringLiteral("{\"format\": \"attnlab-sess") << "not valid JSON";
    QTest::newRow("empty file") << QString() << "not valid JSON";
    QTest::newRow("another JSON") << QStringLiteral("{\"name\": \"x\"}") << "not an Attention Lab session";
    QTest::newRow("an array") << QStringLiteral("[1, 2]") << "not an Attention Lab session";
    QTest::newRow("newer") << QStringLiteral("{\"format\": \"attnlab-session\", \"version\": 9, \"texts\": [\"a\"]}")
                           << "newer Attention Lab (session version 9";
    QTest::newRow("no version") << QStringLiteral("{\"format\": \"attnlab-session\", \"texts\": [\"a\"]}") << "\"version\"";
    QTest::newRow("no sentences") << QStringLiteral("{\"format\": \"attnlab-session\", \"version\": 1, \"texts\": []}")
                                  << "\"texts\": no sentences";
    QTest::newRow("texts not a list") << QStringLiteral("{\"format\": \"attnlab-session\", \"version\": 1, \"texts\": \"a\"}")
                                      << "\"texts\"";
    QTest::newRow("heads as text") << head + "\"config\": {\"heads\": \"8\"}}" << "\"config.heads\": should be a whole number";
    QTest::newRow("heads not dividing") << head + "\"config\": {\"d_model\": 10, \"heads\": 4}}" << "heads do not divide";
    QTest::newRow("unknown mask") << head + "\"config\": {\"mask\": \"diagonal\"}}" << "diagonal";
    QTest::newRow("mask as number") << head + "\"config\": {\"mask\": 3}}" << "\"config.mask\": should be a string";
    QTest::newRow("absurd layers") << head + "\"config\": {\"layers\": 100000}}" << "--layers";
    QTest::newRow("bad backend") << head + "\"view\": {\"backend\": \"tpu\"}}" << "\"view.backend\"";
    QTest::newRow("training not an object") << head + "\"training\": \"x\"}" << "\"training\": should be an object";
    QTest::newRow("training run not text") << head + "\"training\": {\"run\": 3}}" << "\"training.run\": should be a string";
    QTest::newRow("training kept not text") << head + "\"training\": {\"run\": \"a.run\", \"kept\": 3}}"
                                            << "\"training.kept\": should be a string";
    QTest::newRow("training step as text") << head + "\"training\": {\"run\": \"a.run\", \"step\": \"5\"}}"
                                           << "\"training.step\": should be a whole number";
    const QString knobs = head + "\"training\": {\"knobs\": ";
    QTest::newRow("knobs not an object") << knobs + "[]}}" << "\"training.knobs\": should be an object";
    QTest::newRow("knobs without a task") << knobs + "{\"layers\": 2}}}" << "\"training.knobs.task\": missing";
    QTest::newRow("knobs layers out of range") << knobs + "{\"task\": \"copy\", \"layers\": 9}}}"
                                               << "\"training.knobs.layers\": 9 is out of range (1 to 4)";
    QTest::newRow("knobs lr as text") << knobs + "{\"task\": \"copy\", \"lr\": \"fast\"}}}"
                                      << "\"training.knobs.lr\": expected a number, found a string";
    QTest::newRow("knobs lr too large") << knobs + "{\"task\": \"copy\", \"lr\": 3.5}}}"
                                        << "\"training.knobs.lr\": 3.5 is out of range (0.0001 to 0.1)";
    QTest::newRow("knobs scaling as number") << knobs + "{\"task\": \"copy\", \"scaling\": 1}}}"
                                             << "\"training.knobs.scaling\": expected a boolean, found";
    QTest::newRow("knobs norm unknown") << knobs + "{\"task\": \"copy\", \"norm\": \"mid\"}}}"
                                        << "\"training.knobs.norm\": ";
    QTest::newRow("bad budget") << head + "\"view\": {\"memory_budget_mib\": 0}}" << "\"view.memory_budget_mib\"";
    QTest::newRow("config not an object") << head + "\"config\": 5}" << "\"config\": should be an object";
    QTest::newRow("weights: both") << head + "\"weights\": {\"file\": \"a\", \"embedded\": \"AAAA\"}}"
                                   << "\"weights\": needs exactly one of";
    QTest::newRow("weights: neither") << head + "\"weights\": {\"name\": \"a\"}}" << "\"weights\": needs exactly one of";
    QTest::newRow("weights: bad base64") << head + "\"weights\": {\"embedded\": \"AB*D\"}}"
                                         << "\"weights.embedded\": base64: '*' is not a base64 character";
    QTest::newRow("weights: short base64") << head + "\"weights\": {\"embedded\": \"ABC\"}}" << "not a multiple of 4";
    QTest::newRow("weights: padding inside") << head + "\"weights\": {\"embedded\": \"AB==AAAA\"}}"
                                             << "'=' is not a base64 character";
    QTest::newRow("weights: prepend_bos beside a file") << head + "\"weights\": {\"file\": \"a\", \"prepend_bos\": true}}"
                                                         << "\"weights.prepend_bos\": is for a checkpoint folder";
    QTest::newRow("weights: prepend_bos a string")
        << head + "\"weights\": {\"model_folder\": \"g\", \"prepend_bos\": \"yes\"}}" << "\"weights.prepend_bos\": expected";
    QTest::newRow("weights: file a number") << head + "\"weights\": {\"file\": 3}}" << "\"weights.file\": should be a string";
    QTest::newRow("unknown tab") << head + "\"view\": {\"tab\": \"graphs\"}}" << "\"view.tab\": 'graphs' is not one of";
    QTest::newRow("unknown ablate mode") << head + "\"view\": {\"ablate\": \"0.1\", \"ablate_mode\": \"half\"}}"
                                         << "\"view.ablate_mode\": 'half' is not one of";
    QTest::newRow("sampling not an object") << head + "\"view\": {\"sampling\": 3}}" << "\"view.sampling\": should be an object";
    QTest::newRow("sampling: temperature a string")
        << head + "\"view\": {\"sampling\": {\"temperature\": \"hot\"}}}" << "\"view.sampling.temperature\": expected a number";
    QTest::newRow("sampling: top_p 0") << head + "\"view\": {\"sampling\": {\"top_p\": 0}}}"
                                       << "\"view.sampling.top_p\": 0 is out of range (0.01 to 1.0)";
    QTest::newRow("sampling: temperature above 100") << head + "\"view\": {\"sampling\": {\"temperature\": 101}}}"
                                                     << "\"view.sampling.temperature\": 101 is out of range";
    QTest::newRow("sampling: negative seed") << head + "\"view\": {\"sampling\": {\"seed\": -1}}}"
                                             << "\"view.sampling.seed\": -1 is out of range (0 to 1000000)";
    QTest::newRow("sampling: top_k past the box") << head + "\"view\": {\"sampling\": {\"top_k\": 1000001}}}"
                                                  << "\"view.sampling.top_k\": 1000001 is out of range (0 to 1000000)";
    QTest::newRow("sampling: seed past the box") << head + "\"view\": {\"sampling\": {\"seed\": 1000001}}}"
                                                 << "\"view.sampling.seed\": 1000001 is out of range (0 to 1000000)";
    QTest::newRow("sampling: top_k a fraction") << head + "\"view\": {\"sampling\": {\"top_k\": 2.5}}}"
                                                << "\"view.sampling.top_k\": should be a whole number";
    QTest::newRow("unknown loss") << head + "\"view\": {\"loss\": \"l2\"}}" << "\"view.loss\": unknown loss 'l2'";
    QTest::newRow("sentence past the batch") << head + "\"view\": {\"sentence\": 1}}" << "\"view.sentence\"";
    QTest::newRow("head past the heads") << head + "\"view\": {\"head\": 8}}" << "\"view.head\"";
    QTest::newRow("unknown variant") << head + "\"config\": {\"variant\": {\"kind\": \"flash\"}}}" << "'flash' is not one of";
    QTest::newRow("variant knob out of range")
        << head + "\"config\": {\"variant\": {\"kind\": \"window\", \"window\": -3}}}" << "--variant-window: -3 is outside";
    QTest::newRow("variant knob as text")
        << head + "\"config\": {\"variant\": {\"kind\": \"topk\", \"top_k\": \"4\"}}}" << "\"config.variant.top_k\"";
    QTest::newRow("variant not an object") << head + "\"config\": {\"variant\": 3}}" << "\"config.variant\": should be an object";
    QTest::newRow("lesson title a string") << head + "\"lesson\": {\"title\": \"x\"}}" << "\"lesson.title\"";
    // Typed text is refused by field (issue 18): a NUL, only control characters, a blank sentence.
    const QString start = QStringLiteral("{\"format\": \"attnlab-session\", \"version\": 1, ");
    QTest::newRow("NUL in a sentence") << start + "\"texts\": [\"a b\", \"c\\u0000d\"]}"
                                       << "\"texts[1]\": text contains a NUL character";
    QTest::newRow("only control characters") << start + "\"texts\": [\"\\u0001\\u0002\\u0007\"]}"
                                             << "\"texts[0]\": text holds only control characters";
    QTest::newRow("a blank sentence") << start + "\"texts\": [\"a\", \"   \"]}" << "\"texts[1]\": the sentence is empty";
    QTest::newRow("NUL in a source sentence") << start + "\"texts\": [\"a\"], \"memory_texts\": [\"\\u0000\"]}"
                                              << "\"memory_texts[0]\": text contains a NUL";
    QTest::newRow("NUL in the step") << head + "\"step\": \"encoder\\u0000\"}" << "\"step\": text contains a NUL";
    QTest::newRow("NUL in a lesson title")
        << head + "\"lesson\": {\"title\": {\"en\": \"x\\u0000\", \"zh\": \"y\"}}}" << "\"lesson.title.en\": text contains a NUL";
    QTest::newRow("NUL in the weights' file name") << head + "\"weights\": {\"file\": \"a\\u0000b\"}}"
                                                    << "\"weights.file\": text contains a NUL";
    // A session that cannot run is refused when read, not when computed.
    QTest::newRow("source sentences that do not pair up")
        << start + "\"texts\": [\"a\", \"b\", \"c\"], \"memory_texts\": [\"x\", \"y\"]}"
        << "\"memory_texts\": should hold one source sentence for all, or one per sentence (3 sentences, 2 source";
    QTest::newRow("a walk-through too long for the text")
        << start + "\"texts\": [\"" + QStringLiteral("w ").repeated(200) + "\"], \"config\": {\"variant\": {\"kind\": \"kv_cache\"}}}"
        << "\"texts\": cannot be used: --variant kv_cache: the walk-through records";
    QTest::newRow("full layers not a list") << head + "\"config\": {\"full_layers\": 1}}"
                                            << "\"config.full_layers\": should be a list of at most 64 layer numbers";
    QTest::newRow("a full layer as text") << head + "\"config\": {\"full_layers\": [\"0\"]}}"
                                          << "\"config.full_layers\": should be a list";
    QTest::newRow("a full layer beyond the model")
        << head + "\"config\": {\"layers\": 2, \"overview_cap\": 256, \"full_layers\": [2]}}" << "--full-layers: 2 is outside 0 … 1";
    QTest::newRow("full heads not pairs") << head + "\"config\": {\"full_heads\": [1, 2]}}"
                                          << "\"config.full_heads\": should be a list of at most 4096 heads, each [layer, head]";
    QTest::newRow("a full head of three numbers") << head + "\"config\": {\"full_heads\": [[0, 1, 2]]}}"
                                                  << "\"config.full_heads\": should be a list";
    QTest::newRow("a full head beyond the model")
        << head + "\"config\": {\"layers\": 2, \"heads\": 2, \"overview_cap\": 256, \"full_heads\": [[1, 2]]}}"
        << "--full-heads: head 1.2 is not in this model, whose layers run from 0 to 1 and heads from 0 to 1";
    QTest::newRow("a full head in a full layer")
        << head + "\"config\": {\"layers\": 2, \"overview_cap\": 256, \"full_layers\": [1], \"full_heads\": [[1, 0]]}}"
        << "head 1.0 is in layer 1, which --full-layers traces in full already";
    QTest::newRow("a seed below zero") << head + "\"config\": {\"seed\": -1}}" << "\"config.seed\": should be a whole number 0";
    QTest::newRow("a whole number past 2^63") << head + "\"config\": {\"layers\": 9223372036854775808}}"
                                              << "\"config.layers\": should be a whole number";
  }
  void refusesWithTheFieldNamed() {
    QFETCH(QString, text);
    QFETCH(QString, says);
    const QString msg = QString::fromStdString(refusal(text.toStdString()));
    QVERIFY2(msg.startsWith(QStringLiteral("lesson.attnlab: ")), qPrintable(msg));
    QVERIFY2(msg.contains(says), qPrintable(msg));
  }

  void seedsUpTo2To64RoundTrip() {
    Session a = lesson();
    a.cfg.seed = 18446744073709551615ull;  // 2^64 − 1: the command line's largest --seed
    QCOMPARE(parse_session(session_json(a), "x").cfg.seed, a.cfg.seed);
  }

  // RFC 4648's test vectors, and every byte value through a round trip.
  void base64() {
    const std::pair<std::string, std::string> vectors[] = {{"", ""},         {"f", "Zg=="},         {"fo", "Zm8="},
                                                           {"foo", "Zm9v"},  {"foob", "Zm9vYg=="}, {"fooba", "Zm9vYmE="},
                                                           {"foobar", "Zm9vYmFy"}};
    for (const auto& [plain, coded] : vectors) {
      QCOMPARE(base64_encode(plain), coded);
      QCOMPARE(base64_decode(coded, "t"), plain);
    }
    std::string all;
    for (int i = 0; i < 256; ++i) all += static_cast<char>(i);
    for (size_t cut = 0; cut < 4; ++cut) QCOMPARE(base64_decode(base64_encode(all.substr(cut)), "t"), all.substr(cut));
    QVERIFY_THROWS_EXCEPTION(DataError, base64_decode("Zg=a", "t"));  // padding then data
    QVERIFY_THROWS_EXCEPTION(DataError, base64_decode("Z===", "t"));
    QVERIFY_THROWS_EXCEPTION(DataError, base64_decode("QR==", "t"));  // "A" is QQ==; R leaves a bit set
    QVERIFY_THROWS_EXCEPTION(DataError, base64_decode("Zm9=", "t"));  // "fo" is Zm8=
  }

  // Imported weights: embedded ones come back byte for byte, a reference keeps its path; either
  // makes the file version 2, which an older Attention Lab refuses instead of computing with
  // seeded weights. A lesson's title and description come back in both languages.
  void weightsAndLessonText() {
    Session a = lesson();
    std::string bytes;
    for (int i = 0; i < 1000; ++i) bytes += static_cast<char>((i * 37) & 255);
    a.weights = {"trained.safetensors", "", bytes};
    a.title = {"Causal masking", "因果掩码"};
    a.description = {"No peeking ahead.", "不许偷看后面的词。"};
    const std::string text = session_json(a);
    QVERIFY(text.find("\"version\": 2") != std::string::npos);
    const Session b = parse_session(text, "x");
    QCOMPARE(b.weights.bytes, bytes);
    QCOMPARE(b.weights.name, std::string("trained.safetensors"));
    QVERIFY(b.weights.file.empty());
    QCOMPARE(b.title.zh, a.title.zh);
    QCOMPARE(b.description.en, a.description.en);
    QCOMPARE(session_json(b), text);
    a.weights = {"big.safetensors", "models/big.safetensors", ""};
    const Session c = parse_session(session_json(a), "x");
    QCOMPARE(c.weights.file, std::string("models/big.safetensors"));
    QVERIFY(c.weights.bytes.empty() && !c.weights.prepend_bos);
    // a checkpoint folder, with GPT-2's <|endoftext|> put first
    a.weights = {"gpt2", "", "", "checkpoints/gpt2", true};
    const Session d = parse_session(session_json(a), "x");
    QCOMPARE(d.weights.model_folder, std::string("checkpoints/gpt2"));
    QVERIFY(d.weights.prepend_bos);
    QVERIFY(session_json(a).find("\"prepend_bos\": true") != std::string::npos);
    const Session plain = parse_session(session_json(lesson()), "x");  // no weights: still version 1
    QVERIFY(session_json(plain).find("\"version\": 1") != std::string::npos);
    QVERIFY(plain.weights.empty() && plain.title.empty());
  }

  // The Training panel's run: the shipped one or a folder, and the timeline's step; absent = none.
  void trainingRoundTrip() {
    Session a = lesson();
    QVERIFY(session_json(a).find("\"training\"") == std::string::npos);
    a.training = {std::string(kShippedRun), 250};
    Session b = parse_session(session_json(a), "x");
    QCOMPARE(b.training.run, std::string("shipped:induction"));
    QCOMPARE(b.training.step, int64_t(250));
    QVERIFY(session_json(b).find("\"version\": 1") != std::string::npos);  // an older reader just ignores it
    a.training = {"lesson.run", -1};
    b = parse_session(session_json(a), "x");
    QCOMPARE(b.training.run, std::string("lesson.run"));
    QCOMPARE(b.training.step, int64_t(-1));
    const std::string head = "{\"format\": \"attnlab-session\", \"version\": 1, \"texts\": [\"a b\"], ";
    QVERIFY(parse_session(head + "\"training\": {\"run\": \"\"}}", "x").training.empty());
    QCOMPARE(parse_session(head + "\"training\": {\"run\": \"r\", \"step\": -7}}", "x").training.step, int64_t(-1));
    // The panel's knobs, with a run or alone; every field read back as written.
    SessionKnobs k;
    k.task = "sort", k.layers = 1, k.d_model = 48, k.heads = 3, k.batch = 17, k.steps = 1234, k.seed = 99;
    k.norm = "post", k.attention_only = true, k.scaling = false, k.lr = 0.0025, k.text_file = "/tmp/t.txt";
    a.training = {"", -1, k};
    b = parse_session(session_json(a), "x");
    QVERIFY(b.training.run.empty() && !b.training.empty());
    QVERIFY(b.training.knobs == k);
    QVERIFY(session_json(b).find("\"run\"") == std::string::npos);
    a.training = {"lesson.run", 300, k};
    b = parse_session(session_json(a), "x");
    QCOMPARE(b.training.run, std::string("lesson.run"));
    QVERIFY(b.training.knobs == k);
    QVERIFY(session_json(b).find("\"kept\"") == std::string::npos);
    // The run kept for comparison, named as the run is.
    a.training.kept = "lesson.kept-run";
    b = parse_session(session_json(a), "x");
    QCOMPARE(b.training.kept, std::string("lesson.kept-run"));
    QCOMPARE(b.training.run, std::string("lesson.run"));
    // A field left out keeps its default.
    const SessionKnobs some = parse_session(head + "\"training\": {\"knobs\": {\"task\": \"copy\", \"seed\": 5}}}", "x").training.knobs;
    QCOMPARE(some.task, std::string("copy"));
    QCOMPARE(some.seed, int64_t(5));
    QCOMPARE(some.layers, SessionKnobs{}.layers);
  }

  // A minimal session: every field but the sentences has a default.
  void defaultsFillTheRest() {
    const Session s = parse_session("{\"format\": \"attnlab-session\", \"version\": 1, \"texts\": [\"x y\"]}", "m");
    QCOMPARE(s.texts, std::vector<std::string>{"x y"});
    QVERIFY(!s.cfg.cross);
    QVERIFY(s.backend == BackendKind::Cpu);
    QCOMPARE(s.cfg.d_ff, 4 * s.cfg.d_model);
  }
};

QTEST_GUILESS_MAIN(TestSession)
#include "test_session.moc"
