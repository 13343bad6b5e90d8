// Trained models (core/model/trained.h, docs/cli.md "Trained models"): the vocabulary in the weights
// file's metadata, [UNK] for unknown tokens, the file's own embedding table and the output head.
#include <QtTest>

#include <nlohmann/json.hpp>

#include <algorithm>
#include <cmath>

#include "forward/model.h"
#include "io/weights_file.h"
#include "random_tensor.h"
#include "text/errors.h"

using namespace attnlab;
using attnlab::test::random_tensor;

namespace {

const std::vector<std::string> kWords{"[PAD]", "[UNK]", "the", "cat", "sat", "on", "mat", "."};

ModelConfig tiny_config() {
  ModelConfig c;
  c.d_model = 8;
  c.heads = 2;
  c.d_ff = 16;
  c.layers = 2;
  c.norm = Norm::Post;
  return c;
}

// A whole trained-model file: seeded layers, a random table and head over kWords.
SafetensorsFile trained_file(const std::string& vocab_json, int64_t table_rows, const std::string& mask = "causal") {
  const ModelConfig c = tiny_config();
  const Weights w = init_weights(c);
  SafetensorsFile f;
  for (const auto& n : w.names()) f.tensors.push_back({n, w.get(n)});
  f.tensors.push_back({"embedding.weight", random_tensor({table_rows, c.d_model}, "emb")});
  f.tensors.push_back({"output_head.weight", random_tensor({table_rows, c.d_model}, "head")});
  f.tensors.push_back({"output_head.bias", random_tensor({table_rows}, "bias")});
  f.metadata = weights_metadata(c);
  f.metadata["vocab"] = vocab_json;
  f.metadata["task"] = "next-token";
  f.metadata["mask"] = mask;
  f.metadata["title"] = "tiny";
  f.metadata["examples"] = R"(["the cat sat", "the dog"])";
  return f;
}

std::string vocab_json() { return nlohmann::json(kWords).dump(); }

LoadedWeights load(const SafetensorsFile& f, const std::set<std::string>& given = {}, ModelConfig cli = {}) {
  return load_weights(f, "tiny.safetensors", cli, given);
}

// The DataError (or ConfigError) text of loading f, or "" when it loaded.
std::string error_of(const SafetensorsFile& f, const std::set<std::string>& given = {}, ModelConfig cli = {}) {
  try {
    load(f, given, cli);
  } catch (const std::exception& e) {
    return e.what();
  }
  return "";
}

class Keep final : public Recorder {
 public:
  bool enabled() const override { return true; }
  void record(StepInfo info, const Tensor& t) override { steps[info.id] = t.contiguous(); }
  std::map<std::string, Tensor> steps;
};

}  // namespace

class TestTrained : public QObject {
  Q_OBJECT
 private slots:
  void vocabularyFromMetadata() {
    const auto v = TrainedVocab::from_metadata({{"vocab", vocab_json()}, {"task", "per-position"}, {"mask", "padding"},
                                               {"note", "look at head 1"}},
                                              "f");
    QCOMPARE(v.size(), int64_t(8));
    QCOMPARE(v.id("cat"), 3);
    QCOMPARE(v.id("dog"), kUnkId);  // unknown → [UNK]
    QCOMPARE(v.id("[PAD]"), 0);
    QVERIFY(v.knows("mat") && !v.knows("Mat"));  // case is kept, as by the tokenizer
    QVERIFY(v.task == Task::PerPosition && v.mask == MaskKind::Padding);
    // without a stored mask none is imposed (the command line's or the window's stands)
    QVERIFY(!TrainedVocab::from_metadata({{"vocab", vocab_json()}}, "f").mask);
    QCOMPARE(v.field("note"), std::string("look at head 1"));
    // metadata() says it all again
    const auto again = TrainedVocab::from_metadata(v.metadata(), "g");
    QCOMPARE(again.words(), v.words());
    QVERIFY(again.task == v.task && again.mask == v.mask && again.info == v.info);
  }

  void malformedVocabularyIsRefusedByName() {
    // the DataError text of reading these metadata fields, or "" when they were accepted
    const auto refusal = [](const std::map<std::string, std::string>& meta) {
      try {
        TrainedVocab::from_metadata(meta, "m.safetensors");
      } catch (const DataError& e) {
        return std::string(e.what());
      }
      return std::string();
    };
    const auto err = [&](const std::string& vocab, const std::string& task = "next-token") {
      return refusal({{"vocab", vocab}, {"task", task}});
    };
    QVERIFY(err("[\"[PAD]\", \"[UNK]\"").find("'vocab' is not valid JSON") != std::string::npos);
    QVERIFY(err("{}").find("'vocab' is not an array") != std::string::npos);
    QVERIFY(err("[\"[UNK]\", \"[PAD]\", \"a\"]").find("does not start with") != std::string::npos);
    QVERIFY(err("[\"[PAD]\", \"[UNK]\", \"\"]").find("non-empty string") != std::string::npos);
    QVERIFY(err("[\"[PAD]\", \"[UNK]\", \"a\", 3]").find("non-empty string") != std::string::npos);
    QVERIFY(err("[\"[PAD]\", \"[UNK]\", \"a\", \"a\"]").find("lists \"a\" twice (entries 2 and 3)") != std::string::npos);
    QVERIFY(err(vocab_json(), "masked").find("'task' = 'masked'") != std::string::npos);
    const auto examples = [&](const std::string& ex) { return refusal({{"vocab", vocab_json()}, {"examples", ex}}); };
    QVERIFY(examples("[\"the cat\", \"\"]").find("'examples' entry 1 has no token") != std::string::npos);
    QVERIFY(examples("[\"the cat\", 7]").find("'examples' entry 1 is not a string") != std::string::npos);
    QVERIFY(examples("[\"the\\ncat\"]").find("'examples' entry 0 spans several lines") != std::string::npos);
    QVERIFY(examples("\"the cat\"").find("'examples' is not a JSON array") != std::string::npos);
    QVERIFY(examples("[\"the cat\", \"a mat\"]").empty());
    QVERIFY(err(vocab_json()).find("m.safetensors") == std::string::npos);  // a good one loads
  }

  void loadingAppliesTheModelsMask() {
    const auto loaded = load(trained_file(vocab_json(), 8));
    QVERIFY(loaded.weights.vocab());
    QVERIFY(loaded.cfg.mask == MaskKind::Causal);
    QCOMPARE(loaded.weights.get("embedding.weight").shape(), (Shape{8, 8}));
    // an explicit --mask that says otherwise is the command line's error (exit 2)
    ModelConfig cli;
    cli.mask = MaskKind::None;
    const std::string e = error_of(trained_file(vocab_json(), 8), {"--mask"}, cli);
    QVERIFY2(e.find("--mask: none conflicts with causal") != std::string::npos, e.c_str());
    bool config_error = false;
    try {
      load(trained_file(vocab_json(), 8), {"--mask"}, cli);
    } catch (const ConfigError&) {
      config_error = true;
    }
    QVERIFY(config_error);
    cli.mask = MaskKind::Causal;  // the same value given again is fine
    QVERIFY(load(trained_file(vocab_json(), 8), {"--mask"}, cli).weights.vocab());
  }

  void lyingTrainedFilesAreRefusedByName() {
    QVERIFY(error_of(trained_file(vocab_json(), 9)).find("'embedding.weight' has shape (9, 8)") != std::string::npos);
    auto no_vocab = trained_file(vocab_json(), 8);
    no_vocab.metadata.erase("vocab");
    QVERIFY(error_of(no_vocab).find("metadata 'vocab' (its vocabulary) is missing") != std::string::npos);
    auto no_head = trained_file(vocab_json(), 8);
    std::erase_if(no_head.tensors, [](const auto& p) { return p.first == "output_head.bias"; });
    QVERIFY(error_of(no_head).find("'output_head.bias' is missing") != std::string::npos);
    auto nan = trained_file(vocab_json(), 8);
    for (auto& [n, t] : nan.tensors)
      if (n == "output_head.weight") t.data()[5] = NAN;
    QVERIFY(error_of(nan).find("'output_head.weight' holds a non-finite value") != std::string::npos);
    QVERIFY(error_of(trained_file(vocab_json(), 8, "sideways")).find("metadata 'mask'") != std::string::npos);
  }

  void forwardUsesTheModelsVocabularyTableAndHead() {
    const auto loaded = load(trained_file(vocab_json(), 8));
    const TrainedVocab& v = *loaded.weights.vocab();
    const Batch batch = make_batch({"the cat sat on the zebra", "the mat"}, {}, &v);
    QCOMPARE(batch.vocab.words, kWords);  // the batch's vocabulary is the model's
    Keep rec;
    const Tensor out = forward(loaded.cfg, loaded.weights, batch, rec);
    // ids: the model's; the unknown "zebra" is [UNK]; padding is 0
    const Tensor& ids = rec.steps.at("encoder.token_ids");
    const std::vector<float> row0{2, 3, 4, 5, 2, 1}, row1{2, 6, 0, 0, 0, 0};
    QCOMPARE(std::vector<float>(ids.data(), ids.data() + 6), row0);
    QCOMPARE(std::vector<float>(ids.data() + 6, ids.data() + 12), row1);
    // embedding rows are the file's table rows
    const Tensor& table = loaded.weights.get("embedding.weight");
    const Tensor& emb = rec.steps.at("encoder.embedding");
    for (int64_t c = 0; c < 8; ++c) {
      QCOMPARE(emb.at({0, 5, c}), table.at({kUnkId, c}));
      QCOMPARE(emb.at({1, 1, c}), table.at({6, c}));
    }
    // logits: the naive x·Wᵀ + b over the last layer's output; probabilities sum to 1
    const Tensor& logits = rec.steps.at("encoder.output_head.logits");
    const Tensor& probs = rec.steps.at("encoder.output_head.probs");
    QCOMPARE(logits.shape(), (Shape{2, 6, 8}));
    const Tensor& hw = loaded.weights.get("output_head.weight");
    const Tensor& hb = loaded.weights.get("output_head.bias");
    for (int64_t b = 0; b < 2; ++b)
      for (int64_t s = 0; s < 6; ++s) {
        double sum = 0;
        for (int64_t k = 0; k < 8; ++k) {
          double ref = hb.at({k});
          for (int64_t c = 0; c < 8; ++c) ref += double(out.at({b, s, c})) * hw.at({k, c});
          QVERIFY(std::abs(logits.at({b, s, k}) - ref) <= 1e-5 + 1e-4 * std::abs(ref));
          sum += probs.at({b, s, k});
        }
        QVERIFY(std::abs(sum - 1.0) < 1e-5);
      }
  }

  void topPredictionsAreRankedAndSkipPadding() {
    const auto loaded = load(trained_file(vocab_json(), 8));
    const TrainedVocab& v = *loaded.weights.vocab();
    const Batch batch = make_batch({"the cat sat", "the"}, {}, &v);
    Keep rec;
    forward(loaded.cfg, loaded.weights, batch, rec);
    const Tensor& probs = rec.steps.at("encoder.output_head.probs");
    const auto top = top_predictions(probs, v, batch.text.lengths, 3);
    QCOMPARE(top.size(), size_t(2));
    QCOMPARE(top[0].size(), size_t(3));
    QCOMPARE(top[1].size(), size_t(1));  // [PAD] positions have no prediction
    for (int64_t s = 0; s < 3; ++s) {
      std::vector<std::pair<float, int>> all;
      for (int k = 0; k < 8; ++k) all.push_back({probs.at({0, s, k}), k});
      std::sort(all.begin(), all.end(), [](auto a, auto b) { return a.first > b.first; });
      for (size_t r = 0; r < 3; ++r) {
        QCOMPARE(top[0][s][r].id, all[r].second);
        QCOMPARE(top[0][s][r].prob, all[r].first);
        QCOMPARE(top[0][s][r].token, kWords[size_t(all[r].second)]);
      }
    }
  }

  void brokenProbabilitiesRankLast() {
    const auto v = TrainedVocab::from_metadata({{"vocab", R"(["[PAD]", "[UNK]", "a", "b"])"}}, "f");
    const Tensor probs = Tensor::from({1, 1, 4}, {0.1f, NAN, 0.5f, 0.5f});
    const auto top = top_predictions(probs, v, {1}, 4);
    std::vector<int> ids;
    for (const auto& p : top[0][0]) ids.push_back(p.id);
    QCOMPARE(ids, (std::vector<int>{2, 3, 0, 1}));  // ties by the lower id, NaN after every number
    QCOMPARE(top_predictions(probs, v, {1}, 9)[0][0].size(), size_t(4));  // k beyond V: all of them
  }

  void aBatchPreparedWithoutTheVocabularyIsRefused() {
    const auto loaded = load(trained_file(vocab_json(), 8));
    Keep rec;
    QVERIFY_THROWS_EXCEPTION(ConfigError, forward(loaded.cfg, loaded.weights, make_batch({"the cat"}, {}), rec));
  }

  void serialisedTrainedWeightsLoadAgain() {
    const auto loaded = load(trained_file(vocab_json(), 8));
    const auto again = load(parse_safetensors(serialize_weights(loaded.cfg, loaded.weights)));
    QVERIFY(again.weights.vocab());
    QCOMPARE(again.weights.vocab()->words(), kWords);
    QCOMPARE(again.weights.vocab()->examples(), (std::vector<std::string>{"the cat sat", "the dog"}));
    QVERIFY(again.cfg.mask == MaskKind::Causal);
    for (const auto& n : loaded.weights.names()) {
      const Tensor a = loaded.weights.get(n), b = again.weights.get(n);  // held: get() returns by value
      QVERIFY(std::equal(a.data(), a.data() + a.numel(), b.data()));
    }
  }
};

QTEST_GUILESS_MAIN(TestTrained)
#include "test_trained.moc"
