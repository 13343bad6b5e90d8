// BertViz's neuron view for one query row of one head: how q · k_j becomes a weight. One line
// per key j:
//   key token | k_j (Dh) | q ∘ k_j (Dh) | Σ = q · k_j | ÷ √Dh | softmax weight
// with q (Dh) above the k_j strips. Strips are colour cells with their numbers when there is
// room (tooltips otherwise); masked keys are hatched and marked.
//
// Sources (one sentence b, head h, query i): q[b,h,i,:] from `<block>.q` (B,H,Tq,Dh),
// k[b,h,j,:] from `<block>.k` (B,H,Tk,Dh), scores / masked_scores / weights [b,h,i,j] from the
// trace. The element-wise products and their sum are recomputed in double (the sum matches the
// trace's `<block>.qk` to float rounding); the scaled score and the weight are the trace's.
#pragma once

#include <QVector>
#include <QWidget>

#include <string>
#include <vector>

#include "window/selection.h"

class QComboBox;
class QLabel;
class QScrollArea;

namespace attnlab::ui {

// What one query row of one head shows; Dh = d_head, Tk = keys.
struct NeuronData {
  int dh = 0, tk = 0, query = 0;
  std::string queryToken;
  std::vector<std::string> keyTokens;  // (Tk)
  std::vector<float> q;                // (Dh)
  std::vector<float> k;                // (Tk, Dh)
  std::vector<double> products;        // (Tk, Dh): q[d] · k[j, d] in double
  std::vector<double> dots;            // (Tk): Σ_d products[j, d]
  std::vector<float> qk;               // (Tk): the trace's q · k_j
  std::vector<float> scores;           // (Tk): the trace's qk / √Dh
  std::vector<float> weights;          // (Tk): the trace's softmax
  std::vector<char> masked;            // (Tk): −∞ in masked_scores
};

class NeuronCanvas;

class NeuronView : public QWidget {
  Q_OBJECT
 public:
  explicit NeuronView(QWidget* parent = nullptr);
  void setSelection(const ViewSelection& sel);

  int rows() const { return data_.tk; }  // keys
  int dHead() const { return data_.dh; }
  int query() const { return data_.query; }
  QVector<float> queryVector() const { return {data_.q.begin(), data_.q.end()}; }
  double dotProduct(int key) const { return data_.dots.at(static_cast<size_t>(key)); }
  double scaledScore(int key) const { return data_.scores.at(static_cast<size_t>(key)); }
  double weight(int key) const { return data_.weights.at(static_cast<size_t>(key)); }
  bool keyMasked(int key) const { return data_.masked.at(static_cast<size_t>(key)) != 0; }
  QVector<double> product(int key) const;
  const NeuronData& data() const { return data_; }

 signals:
  void queryChosen(int query);

 private:
  void load();
  void fillChooser();
  void chooseQuery(int query);  // from the chooser

  ViewSelection sel_;
  NeuronData data_;
  QLabel* caption_ = nullptr;
  QComboBox* chooser_ = nullptr;
  QLabel* formula_ = nullptr;
  QScrollArea* scroll_ = nullptr;
  NeuronCanvas* canvas_ = nullptr;
  QLabel* note_ = nullptr;
};

}  // namespace attnlab::ui
