// Every gradient of the C++ backward pass against PyTorch 1.13's autograd (golden files written
// by gen_grad_golden.py, one npz per case listed in data_grad/cases.json). A gradient case is a
// forward case of data/cases.json (config, texts and weights built exactly as test_golden.cpp
// builds them) and a loss on the last layer's output (`sum` or `mse`; the mse target is the
// golden file's "loss/target"). Compared: the loss, within 1e-4 + 1e-4·|ref|; every
// "<step>.grad" and "grad/<parameter>" array of the golden file, element by element within
// |c − ref| ≤ 1e-4 + 1e-3·|ref| (a backward pass chains many float32 products: wider than the
// forward's 1e-5 + 1e-4·|ref|); equal shapes; no gradient array in the C++ result that the
// golden file lacks. A case with "faults" runs the C++ model with those faults planted, against
// the buggy PyTorch code's autograd (steps a detach cuts off are in neither). Also: every "<attn>.masked_scores.grad" of the C++ result is exactly 0 where
// the forward's mask (the step bound as `mask` to masked_scores) is 0.
//   B batch, H heads, Tq queries, Tk keys.
#include <QtTest>

#include <cmath>
#include <exception>
#include <fstream>
#include <map>
#include <sstream>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "golden_case.h"

#include "backward/loss.h"
#include "backward/model_backward.h"
#include "forward/model.h"
#include "io/npz.h"
#include "io/weights_file.h"
#include "model/config.h"
#include "model/trace.h"
#include "model/weights.h"

using namespace attnlab;
using golden::ends_with;
using golden::fmt;
using golden::Report;
using golden::Worst;
using golden::strings;
using json = nlohmann::json;

namespace {

constexpr double kAtol = 1e-4;  // gradients
constexpr double kRtol = 1e-3;
constexpr double kLossAtol = 1e-4;  // the loss's value
constexpr double kLossRtol = 1e-4;

std::string golden_dir() { return std::string(ATTNLAB_TEST_DATA) + "/golden/"; }

// One array, element by element (C order). c: the C++ tensor (any strides), ref: the golden one.
// A NaN or infinity anywhere fails (the golden gradients are finite).
void compare_array(const std::string& id, const Tensor& c, const Tensor& ref, Report& rep, Worst& worst) {
  if (c.shape() != ref.shape()) {
    rep.fail(id + ": shape " + shape_str(c.shape()) + ", golden " + shape_str(ref.shape()));
    return;
  }
  const std::vector<float> cv = c.to_vector(), rv = ref.to_vector();
  int64_t bad = 0;
  std::string first;
  for (size_t i = 0; i < cv.size(); ++i) {
    const double x = cv[i], y = rv[i];
    const double d = std::fabs(x - y), lim = kAtol + kRtol * std::fabs(y);
    const bool ok = d <= lim;  // false for NaN
    if (std::isfinite(d)) {
      const std::string at = id + "[" + std::to_string(i) + "]";
      if (d > worst.abs) worst.abs = d, worst.abs_at = at;
      if (d / lim > worst.ratio) worst.ratio = d / lim, worst.ratio_at = at;
    }
    if (!ok && bad++ == 0) first = "element " + std::to_string(i) + ": " + fmt(x) + " vs golden " + fmt(y);
  }
  if (bad)
    rep.fail(id + ": " + std::to_string(bad) + " of " + std::to_string(cv.size()) +
             " elements out of tolerance; first " + first);
}

// The step id bound as the non-weight variable `var` of the forward step `id`, or "".
std::string bound_step(const Trace& fwd, const std::string& id, const std::string& var) {
  const Step* s = fwd.find(id);
  if (!s) return "";
  for (const auto& b : s->info.bindings)
    if (!b.weight && b.var == var) return b.source;
  return "";
}

// grad (B, H, Tq, Tk) of "<attn>.masked_scores": exactly 0.0f wherever the forward's mask
// (B, Tq, Tk) is 0.
void check_masked_zero(const std::string& grad_id, const Tensor& grad, const Trace& fwd, Report& rep) {
  const std::string fwd_id = grad_id.substr(0, grad_id.size() - std::string(".grad").size());
  const std::string mask_id = bound_step(fwd, fwd_id, "mask");
  const Step* mask = mask_id.empty() ? nullptr : fwd.find(mask_id);
  if (!mask) {
    rep.fail(grad_id + ": the forward step " + fwd_id + " has no `mask` binding to a recorded step");
    return;
  }
  const Tensor& m = mask->tensor;
  if (grad.dim() != 4 || m.dim() != 3 || m.size(0) != grad.size(0) || m.size(1) != grad.size(2) ||
      m.size(2) != grad.size(3)) {
    rep.fail(grad_id + ": shape " + shape_str(grad.shape()) + " against mask " + mask_id + " " + shape_str(m.shape()));
    return;
  }
  const std::vector<float> gv = grad.to_vector(), mv = m.to_vector();
  const int64_t b = grad.size(0), h = grad.size(1), plane = grad.size(2) * grad.size(3);
  for (int64_t bi = 0; bi < b; ++bi)
    for (int64_t hi = 0; hi < h; ++hi)
      for (int64_t k = 0; k < plane; ++k) {
        const auto gi = static_cast<size_t>((bi * h + hi) * plane + k);
        if (mv[static_cast<size_t>(bi * plane + k)] == 0.0f && gv[gi] != 0.0f)
          rep.fail(grad_id + ": element " + std::to_string(gi) + " is " + fmt(gv[gi]) + " where " + mask_id +
                   " is 0 (must be exactly 0)");
      }
}

}  // namespace

class TestGradGolden : public QObject {
  Q_OBJECT

  json cases_;                         // data_grad/cases.json
  std::map<std::string, json> forward_;  // data/cases.json by name

 private slots:
  void initTestCase() {
    cases_ = golden::load_json(golden_dir() + "data_grad/cases.json");
    QVERIFY2(cases_.is_array() && !cases_.empty(), "data_grad/cases.json lists no case");
    for (const auto& c : golden::load_json(golden_dir() + "data/cases.json")) forward_[c.at("name").get<std::string>()] = c;
  }

  void gradients_data() {
    QTest::addColumn<int>("index");
    for (size_t i = 0; i < cases_.size(); ++i)
      QTest::newRow(cases_[i].at("name").get<std::string>().c_str()) << static_cast<int>(i);
  }

  void gradients() {
    QFETCH(int, index);
    const json& g = cases_.at(static_cast<size_t>(index));
    const std::string name = g.at("name").get<std::string>(), golden_case = g.at("golden_case").get<std::string>();
    QVERIFY2(forward_.count(golden_case), (name + ": no forward case " + golden_case + " in data/cases.json").c_str());
    const json& c = forward_.at(golden_case);

    // Config, batch and weights exactly as test_golden.cpp.
    golden::Setup setup;
    try {
      setup = golden::setup_of(c, golden_dir() + "data/");
    } catch (const std::exception& e) {
      QFAIL(e.what());
    }
    ModelConfig& cfg = setup.cfg;
    for (const auto& f : g.value("faults", json::array())) cfg.faults.insert(parse_fault(f.get<std::string>()));
    const Batch& batch = setup.batch;
    const Weights& weights = setup.weights;

    // The golden arrays: gradients (in the file's order), the loss and its target.
    std::map<std::string, Tensor> golden;
    std::vector<std::string> golden_order;  // gradient arrays only
    for (const auto& [id, t] : read_npz(golden_dir() + "data_grad/" + name + ".npz")) {
      QVERIFY2(golden.emplace(id, t).second, (name + ": golden array twice: " + id).c_str());
      if (is_grad_step(id)) golden_order.push_back(id);
    }
    QVERIFY2(golden.count("loss/value"), (name + ": golden file has no loss/value").c_str());
    LossSpec loss{.kind = parse_loss(g.at("loss").get<std::string>()), .target = {}};
    if (loss.kind == LossKind::Mse) {
      QVERIFY2(golden.count("loss/target"), (name + ": mse case without loss/target").c_str());
      loss.target = golden.at("loss/target");
    }

    QElapsedTimer timer;
    timer.start();
    Trace trace;
    forward(cfg, weights, batch, trace);
    BackwardResult r;
    try {
      r = backward(cfg, weights, trace, loss);
    } catch (const std::exception& e) {
      QFAIL((name + ": backward threw: " + e.what()).c_str());
    }
    const qint64 ms = timer.elapsed();

    Report rep;
    const double ref_loss = golden.at("loss/value").to_vector().at(0);  // float64 in the file, read as float
    if (!(std::fabs(r.loss - ref_loss) <= kLossAtol + kLossRtol * std::fabs(ref_loss)))
      rep.fail("loss " + fmt(r.loss) + " vs golden " + fmt(ref_loss));

    std::map<std::string, const Tensor*> result;
    std::vector<std::string> result_order;
    for (const Step& s : r.steps.steps()) {
      if (!result.emplace(s.info.id, &s.tensor).second) rep.fail("gradient recorded twice: " + s.info.id);
      if (!is_grad_step(s.info.id)) continue;
      result_order.push_back(s.info.id);
      if (!golden.count(s.info.id)) rep.fail("extra gradient (not in the golden file): " + s.info.id);
    }
    Worst worst;
    int64_t elements = 0;
    for (const auto& id : golden_order) {
      const auto it = result.find(id);
      if (it == result.end()) {
        rep.fail("missing gradient (in the golden file, not in the C++ result): " + id);
        continue;
      }
      compare_array(id, *it->second, golden.at(id), rep, worst);
      elements += it->second->numel();
    }
    for (const auto& id : result_order)  // a mask filled with 0 is a constant, not −∞: its gradient is not 0
      if (ends_with(id, "masked_scores.grad") && !cfg.has(Fault::MaskFillZero)) check_masked_zero(id, *result.at(id), trace, rep);
    if (result_order != golden_order)
      qWarning("%s: the C++ gradient order differs from the golden file's (the forward's reverse, then parameters)",
               name.c_str());

    qInfo("%-36s %4zu arrays %7lld elements  loss %.6g (golden %.6g)  maxdiff %.3g at %s  worst |c-ref|/tol %.3f at %s  "
          "forward+backward %lld ms",
          name.c_str(), golden_order.size(), static_cast<long long>(elements), r.loss, ref_loss, worst.abs,
          worst.abs_at.c_str(), worst.ratio, worst.ratio_at.c_str(), static_cast<long long>(ms));
    QVERIFY2(rep.errors.empty(), (name + ":" + rep.text()).c_str());
  }
};

QTEST_GUILESS_MAIN(TestGradGolden)
#include "test_grad_golden.moc"
