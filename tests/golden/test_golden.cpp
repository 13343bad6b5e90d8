// Every recorded step of the C++ model against PyTorch 1.13's nn.TransformerEncoderLayer /
// nn.TransformerDecoderLayer (golden files written by gen_golden.py, one npz per case listed in
// data/cases.json). Tolerance: the contract's CPU one, |a − b| ≤ 1e-5 + 1e-4·|b| per element,
// infinities equal, NaN where NaN. Also: no missing or extra step, equal shapes, masked attention
// weights exactly 0, every softmax row summing to 1.
#include <QtTest>

#include <cmath>
#include <fstream>
#include <map>
#include <set>
#include <sstream>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "golden_case.h"

#include "forward/model.h"
#include "io/npz.h"
#include "io/weights_file.h"
#include "model/config.h"
#include "model/trace.h"
#include "model/weights.h"
#include "tensor/ops.h"

using namespace attnlab;
using golden::ends_with;
using golden::fmt;
using golden::Report;
using golden::Worst;
using golden::strings;
using json = nlohmann::json;

namespace {

constexpr double kAtol = 1e-5;  // the contract's CPU tolerance; never widen it
constexpr double kRtol = 1e-4;
constexpr double kRowSumTol = 1e-5;

std::string data_dir() { return std::string(ATTNLAB_TEST_DATA) + "/golden/data/"; }

// One step, element by element. a: the C++ tensor (any strides), b: the golden array.
void compare_step(const std::string& id, const Tensor& a, const Tensor& b, Report& rep, Worst& worst) {
  if (a.shape() != b.shape()) {
    rep.fail(id + ": shape " + shape_str(a.shape()) + ", golden " + shape_str(b.shape()));
    return;
  }
  const std::vector<float> av = a.to_vector(), bv = b.to_vector();
  int64_t bad = 0;
  std::string first;
  for (size_t i = 0; i < av.size(); ++i) {
    const double x = av[i], y = bv[i];
    bool ok;
    if (std::isnan(y) || std::isnan(x)) {
      ok = std::isnan(x) && std::isnan(y);
    } else if (std::isinf(y) || std::isinf(x)) {
      ok = x == y;
    } else {
      const double d = std::fabs(x - y), lim = kAtol + kRtol * std::fabs(y);
      ok = d <= lim;
      const std::string at = id + "[" + std::to_string(i) + "]";
      if (d > worst.abs) worst.abs = d, worst.abs_at = at;
      if (d / lim > worst.ratio) worst.ratio = d / lim, worst.ratio_at = at;
    }
    if (!ok && bad++ == 0) first = "element " + std::to_string(i) + ": " + fmt(x) + " vs golden " + fmt(y);
  }
  if (bad) rep.fail(id + ": " + std::to_string(bad) + " of " + std::to_string(av.size()) + " elements out of tolerance; first " + first);
}

// Attention weights (B, H, Tq, Tk): exactly 0 where the golden masked scores are −∞, rows sum to 1.
void check_softmax(const std::string& id, const Tensor& w, const Tensor& golden_masked, Report& rep) {
  if (w.shape() != golden_masked.shape() || w.dim() != 4) {
    rep.fail(id + ": weights shape " + shape_str(w.shape()) + " vs masked scores " + shape_str(golden_masked.shape()));
    return;
  }
  const std::vector<float> wv = w.to_vector(), mv = golden_masked.to_vector();
  const int64_t tk = w.size(-1), rows = w.numel() / tk;
  for (int64_t r = 0; r < rows; ++r) {
    double sum = 0;
    for (int64_t j = 0; j < tk; ++j) {
      const size_t i = static_cast<size_t>(r * tk + j);
      sum += wv[i];
      if (std::isinf(mv[i]) && mv[i] < 0) {
        if (wv[i] != 0.0f) rep.fail(id + ": masked weight at element " + std::to_string(i) + " is " + fmt(wv[i]) + ", not 0");
      }
    }
    if (!(std::fabs(sum - 1.0) <= kRowSumTol))
      rep.fail(id + ": row " + std::to_string(r) + " sums to " + fmt(sum));
  }
}

}  // namespace

class TestGolden : public QObject {
  Q_OBJECT

  json cases_;

 private slots:
  void initTestCase() {
    cases_ = golden::load_json(data_dir() + "cases.json");
    QVERIFY2(cases_.is_array() && !cases_.empty(), "cases.json lists no case");
  }

  void golden_data() {
    QTest::addColumn<int>("index");
    for (size_t i = 0; i < cases_.size(); ++i)
      QTest::newRow(cases_[i].at("name").get<std::string>().c_str()) << static_cast<int>(i);
  }

  void golden() {
    QFETCH(int, index);
    const json& c = cases_.at(static_cast<size_t>(index));
    const std::string name = c.at("name").get<std::string>();
    golden::Setup setup;
    try {
      setup = golden::setup_of(c, data_dir());
    } catch (const std::exception& e) {
      QFAIL(e.what());
    }
    ModelConfig& cfg = setup.cfg;
    const Batch& batch = setup.batch;
    const Weights& weights = setup.weights;

    QElapsedTimer timer;
    timer.start();
    Trace trace;
    forward(cfg, weights, batch, trace);
    const qint64 forward_ms = timer.elapsed();

    const auto golden_list = read_npz(data_dir() + name + ".npz");
    std::map<std::string, Tensor> golden;
    std::vector<std::string> golden_order;
    for (const auto& [id, t] : golden_list) {
      QVERIFY2(golden.emplace(id, t).second, ("golden step twice: " + id).c_str());
      golden_order.push_back(id);
    }

    Report rep;
    std::set<std::string> recorded;
    std::vector<std::string> recorded_order;
    for (const Step& s : trace.steps()) {
      if (!recorded.insert(s.info.id).second) rep.fail("step recorded twice: " + s.info.id);
      recorded_order.push_back(s.info.id);
      if (!golden.count(s.info.id)) rep.fail("extra step (not in the golden file): " + s.info.id);
    }
    for (const auto& id : golden_order)
      if (!recorded.count(id)) rep.fail("missing step (in the golden file, not recorded): " + id);
    if (recorded_order != golden_order)
      qWarning("%s: the recording order differs from the golden file's (docs/cli.md order)", name.c_str());

    Worst worst;
    int64_t elements = 0, identical = 0;  // identical: steps equal bit for bit (for information)
    for (const Step& s : trace.steps()) {
      auto it = golden.find(s.info.id);
      if (it == golden.end()) continue;
      compare_step(s.info.id, s.tensor, it->second, rep, worst);
      if (s.tensor.shape() == it->second.shape() && s.tensor.to_vector() == it->second.to_vector()) ++identical;
      // Token ids and masks are exact data, not arithmetic: they must match bit for bit.
      if (ends_with(s.info.id, ".token_ids") || ends_with(s.info.id, "mask"))
        if (s.tensor.shape() == it->second.shape() && s.tensor.to_vector() != it->second.to_vector())
          rep.fail(s.info.id + ": not identical to the golden file (ids and masks are exact)");
      elements += s.tensor.numel();
      if (ends_with(s.info.id, "attn.weights")) {
        const std::string masked_id = s.info.id.substr(0, s.info.id.size() - std::string("weights").size()) + "masked_scores";
        auto m = golden.find(masked_id);
        if (m == golden.end()) rep.fail(s.info.id + ": golden has no " + masked_id);
        else {
          check_softmax(s.info.id, s.tensor, m->second, rep);
          check_softmax(s.info.id + " (golden)", it->second, m->second, rep);
        }
      }
    }

    qInfo("%-32s %4zu steps (%lld bit-identical) %6lld elements  maxdiff %.3g at %s  worst |a-b|/tol %.3f at %s  forward %lld ms",
          name.c_str(), trace.steps().size(), static_cast<long long>(identical), static_cast<long long>(elements), worst.abs, worst.abs_at.c_str(),
          worst.ratio, worst.ratio_at.c_str(), static_cast<long long>(forward_ms));
    QVERIFY2(rep.errors.empty(), (name + ":" + rep.text()).c_str());
  }
};

QTEST_GUILESS_MAIN(TestGolden)
#include "test_golden.moc"
