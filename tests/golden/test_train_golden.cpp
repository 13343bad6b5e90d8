// The training lab's trainer against PyTorch 1.13 training the same model on the same batches
// with the same optimiser for 50 steps (gen_train_golden.py, data_train/). Checked per case:
//   - every step's batch (ids and targets) equal to the golden's, element for element: the task
//     generator of tasks.cpp and its documented rules (docs/cli.md) agree with the mirror;
//   - every step's learning rate within 1e-6 relative;
//   - every step's loss and gradient norm, and every parameter after the last step, within the
//     float32 yardstick: |c − ref64| ≤ 2·max|ref32 − ref64| + floor, where ref64 is PyTorch's run
//     in float64, ref32 its run in float32, the max taken per series (the losses, the norms) or
//     per parameter tensor, and floor = 1e-5·max(1, max|ref64|) of that series or tensor.
// Why this tolerance: two float32 programs that sum in different orders (Eigen here, OpenBLAS
// or MKL there, whatever kernel the machine picks) drift apart over 50 steps of AdamW — whose
// update m/√v turns a rounding-sized gradient into a step of lr's size — by about as much as
// either drifts from float64; PyTorch's own float32 drift is that size, measured on the machine
// that wrote the golden. The floor covers tensors whose drift rounds to nothing.
// One exception, the attention's key bias (the middle third of in_proj_bias): its gradient is 0
// in exact arithmetic (adding q·b_k to every score of a row leaves the softmax unchanged), so
// under AdamW all it does is rounding noise that m/√v turns into steps of up to lr's size — in
// PyTorch's float32 run too (1e-3 after 50 steps, against 1e-7 for the query bias). It is
// checked as its own series against the most AdamW can move it: Σ_t lr_t·max(1, (1−β1)/√(1−β2)).
// The query and value thirds are checked as series of their own at the yardstick.
//   B batch, S positions.
#include <QtTest>

#include <algorithm>
#include <cmath>
#include <map>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "golden_case.h"
#include "io/npz.h"
#include "training/trainer.h"

using namespace attnlab;
using json = nlohmann::json;

namespace {

std::string golden_dir() { return std::string(ATTNLAB_TEST_DATA) + "/golden/data_train/"; }

TrainSetup setup_of(const json& c) {
  TrainSetup s;
  s.task = parse_train_task(c.at("task").get<std::string>());
  s.seed = c.at("seed").get<uint64_t>();
  s.steps = c.at("steps").get<int64_t>();
  s.batch = c.at("batch").get<int64_t>();
  const json& m = c.at("model");
  s.model.d_model = m.at("d_model");
  s.model.heads = m.at("heads");
  s.model.d_ff = m.at("d_ff");
  s.model.layers = m.at("layers");
  s.model.ffn = m.at("ffn");
  s.model.norm = parse_norm(m.at("norm").get<std::string>());
  s.model.activation = parse_activation(m.at("activation").get<std::string>());
  s.model.mask = parse_mask(m.at("mask").get<std::string>());
  s.model.eps = m.at("eps");
  const json& o = c.at("opt");
  s.opt.kind = parse_optimizer(o.at("kind").get<std::string>());
  s.opt.lr = o.at("lr");
  s.opt.beta1 = o.at("beta1");
  s.opt.beta2 = o.at("beta2");
  s.opt.eps = o.at("eps");
  s.opt.weight_decay = o.at("weight_decay");
  s.opt.momentum = o.at("momentum");
  s.opt.clip = o.at("clip");
  s.opt.warmup = o.at("warmup");
  s.opt.floor = o.at("floor");
  return s;
}

double max_abs(const std::vector<float>& v) {
  double m = 0;
  for (float x : v) m = std::max(m, std::abs(static_cast<double>(x)));
  return m;
}

struct Yardstick {
  double worst_ratio = 0;  // max over the compared series of |c − ref64| / allowed
  std::string worst;
};

// Fails (naming the series and its worst element) unless every |c − ref64| ≤ allowed: the
// yardstick, or `bound` when given.
void within(const std::string& what, const std::vector<double>& c, const std::vector<float>& ref32,
            const std::vector<float>& ref64, Yardstick& y, double bound = -1) {
  QCOMPARE(c.size(), ref64.size());
  double drift = 0;
  for (size_t i = 0; i < ref64.size(); ++i) drift = std::max(drift, std::abs(double(ref32[i]) - double(ref64[i])));
  const double allowed = bound >= 0 ? bound : 2 * drift + 1e-5 * std::max(1.0, max_abs(ref64));
  for (size_t i = 0; i < c.size(); ++i) {
    const double d = std::abs(c[i] - double(ref64[i]));
    if (!(d <= allowed))
      QFAIL(qPrintable(QString::fromStdString(what) + QStringLiteral(" element %1: C++ %2, PyTorch float64 %3, float32 %4; allowed %5")
                           .arg(i).arg(c[i], 0, 'g', 9).arg(ref64[i], 0, 'g', 9).arg(ref32[i], 0, 'g', 9).arg(allowed)));
    if (d / allowed > y.worst_ratio) y.worst_ratio = d / allowed, y.worst = what;
  }
}

std::vector<float> values(const std::map<std::string, Tensor>& arrays, const std::string& key) {
  const auto it = arrays.find(key);
  if (it == arrays.end()) throw std::runtime_error("the golden file lacks " + key);
  return it->second.to_vector();
}

}  // namespace

class TestTrainGolden : public QObject {
  Q_OBJECT
 private slots:
  void cases_data() {
    QTest::addColumn<int>("index");
    const json cases = golden::load_json(golden_dir() + "cases.json");
    QVERIFY(cases.size() >= 3);
    for (size_t i = 0; i < cases.size(); ++i)
      QTest::newRow(cases[i].at("name").get<std::string>().c_str()) << static_cast<int>(i);
  }

  void cases() {
    QFETCH(int, index);
    const json c = golden::load_json(golden_dir() + "cases.json").at(static_cast<size_t>(index));
    std::map<std::string, Tensor> g;
    for (auto& [k, t] : read_npz(golden_dir() + c.at("name").get<std::string>() + ".npz")) g[k] = t;
    Trainer t(setup_of(c));
    const int64_t steps = t.setup().steps, b = t.setup().batch;
    const Tensor& ids = g.at("ids");
    const int64_t smax = ids.size(2);
    QCOMPARE(ids.size(0), steps);
    std::vector<double> loss, norm, lr;
    for (int64_t k = 0; k < steps; ++k) {
      // The batch first: equal, element for element, to the mirror's.
      const ExampleBatch eb = t.source().batch(k, b);
      const Tensor mine = eb.ids(), tg = eb.targets();
      for (int64_t r = 0; r < b; ++r)
        for (int64_t i = 0; i < smax; ++i) {
          const float want_id = ids.at({k, r, i}), want_t = g.at("targets").at({k, r, i});
          const float got_id = i < mine.size(1) ? mine.at({r, i}) : 0.0f, got_t = i < tg.size(1) ? tg.at({r, i}) : -1.0f;
          if (got_id != want_id || got_t != want_t)
            QFAIL(qPrintable(QStringLiteral("step %1 row %2 position %3: id %4 target %5, golden %6 %7")
                                 .arg(k).arg(r).arg(i).arg(got_id).arg(got_t).arg(want_id).arg(want_t)));
        }
      const StepStats st = t.step();
      loss.push_back(st.loss);
      norm.push_back(st.grad_norm);
      lr.push_back(st.lr);
    }
    const std::vector<float> glr = values(g, "lr");
    for (int64_t k = 0; k < steps; ++k) QVERIFY(std::abs(lr[size_t(k)] - glr[size_t(k)]) <= 1e-6 * glr[size_t(k)] + 1e-12);
    Yardstick y;
    within("loss", loss, values(g, "loss32"), values(g, "loss64"), y);
    within("gradient norm", norm, values(g, "norm32"), values(g, "norm64"), y);
    int params = 0;
    const OptimizerConfig& o = t.setup().opt;
    double adam_reach = 0;  // the most AdamW moves a parameter in these steps
    for (double r : lr) adam_reach += r * std::max(1.0, (1 - o.beta1) / std::sqrt(1 - o.beta2));
    for (const auto& name : t.weights().names()) {
      const std::vector<float> mine = t.weights().get(name).to_vector(), r32 = values(g, "final32/" + name),
                               r64 = values(g, "final64/" + name);
      if (!name.ends_with("in_proj_bias")) {
        within(name, std::vector<double>(mine.begin(), mine.end()), r32, r64, y);
      } else {
        const size_t d = mine.size() / 3;
        auto part = [&](const std::vector<float>& v, size_t i) { return std::vector<float>(v.begin() + long(i * d), v.begin() + long((i + 1) * d)); };
        for (size_t i = 0; i < 3; ++i) {
          const std::vector<float> m = part(mine, i);
          const bool noise = i == 1 && o.kind == OptimizerKind::AdamW;
          within(name + (i == 0 ? " (query)" : i == 1 ? " (key)" : " (value)"), std::vector<double>(m.begin(), m.end()),
                 part(r32, i), part(r64, i), y, noise ? adam_reach : -1);
        }
      }
      ++params;
    }
    QCOMPARE(static_cast<size_t>(params), static_cast<size_t>(std::count_if(g.begin(), g.end(), [](const auto& kv) {
               return kv.first.rfind("final64/", 0) == 0;
             })));
    qInfo("%s: worst |C++ − float64| / allowed = %.3f (%s); loss %.4f → %.4f", c.at("name").get<std::string>().c_str(),
          y.worst_ratio, y.worst.c_str(), loss.front(), loss.back());
    QVERIFY(loss.back() < loss.front());  // it learns
  }
};

QTEST_GUILESS_MAIN(TestTrainGolden)
#include "test_train_golden.moc"
