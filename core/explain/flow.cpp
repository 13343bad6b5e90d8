// Attention flow: Dinic's max-flow on the graph of layers × tokens (relevance.h). The graph is
// built once per sentence; each (output, input) pair resets the flows and solves again.
#include <algorithm>
#include <cmath>
#include <limits>
#include <vector>

#include "explain/relevance.h"

namespace attnlab::explain {

namespace {

// A residual graph: edge e and its reverse e ^ 1 side by side.
class Dinic {
 public:
  explicit Dinic(int nodes) : first_(static_cast<size_t>(nodes)), level_(first_.size()), next_(first_.size()) {}

  void add_edge(int from, int to, double cap) {
    first_[static_cast<size_t>(from)].push_back(static_cast<int>(to_.size()));
    to_.push_back(to), cap_.push_back(cap);
    first_[static_cast<size_t>(to)].push_back(static_cast<int>(to_.size()));
    to_.push_back(from), cap_.push_back(0.0);
  }

  double max_flow(int source, int sink) {
    residual_ = cap_;
    double total = 0;
    while (levels(source, sink)) {
      std::fill(next_.begin(), next_.end(), 0);
      while (const double pushed = augment(source, sink, std::numeric_limits<double>::infinity())) total += pushed;
    }
    return total;
  }

 private:
  static constexpr double kEmpty = 1e-14;  // a residual below this carries nothing more

  bool levels(int source, int sink) {
    std::fill(level_.begin(), level_.end(), -1);
    std::vector<int> queue{source};
    level_[static_cast<size_t>(source)] = 0;
    for (size_t q = 0; q < queue.size(); ++q) {
      const int u = queue[q];
      for (int e : first_[static_cast<size_t>(u)]) {
        const int v = to_[static_cast<size_t>(e)];
        if (level_[static_cast<size_t>(v)] < 0 && residual_[static_cast<size_t>(e)] > kEmpty) {
          level_[static_cast<size_t>(v)] = level_[static_cast<size_t>(u)] + 1;
          queue.push_back(v);
        }
      }
    }
    return level_[static_cast<size_t>(sink)] >= 0;
  }

  // One augmenting path of the level graph from u (depth-first), at most `limit`; 0 when none.
  double augment(int u, int sink, double limit) {
    if (u == sink) return limit;
    auto& edges = first_[static_cast<size_t>(u)];
    for (int& i = next_[static_cast<size_t>(u)]; i < static_cast<int>(edges.size()); ++i) {
      const int e = edges[static_cast<size_t>(i)], v = to_[static_cast<size_t>(e)];
      if (level_[static_cast<size_t>(v)] != level_[static_cast<size_t>(u)] + 1 || residual_[static_cast<size_t>(e)] <= kEmpty)
        continue;
      if (const double pushed = augment(v, sink, std::min(limit, residual_[static_cast<size_t>(e)]))) {
        residual_[static_cast<size_t>(e)] -= pushed;
        residual_[static_cast<size_t>(e ^ 1)] += pushed;
        return pushed;
      }
    }
    return 0;
  }

  std::vector<std::vector<int>> first_;  // per node, its edges
  std::vector<int> to_;
  std::vector<double> cap_, residual_;
  std::vector<int> level_, next_;
};

}  // namespace

Mat attention_flow(const std::vector<Mat>& a_hat) {
  const int64_t s = a_hat.front().rows(), layers = static_cast<int64_t>(a_hat.size());
  Mat out(s, s);
  for (const Mat& a : a_hat)
    if (!a.allFinite()) return out.setConstant(std::numeric_limits<double>::quiet_NaN());
  // Node l·S + t: token t after layer l (layer 0: the input).
  Dinic g(static_cast<int>((layers + 1) * s));
  for (int64_t l = 1; l <= layers; ++l)
    for (int64_t i = 0; i < s; ++i)
      for (int64_t j = 0; j < s; ++j)
        if (const double cap = a_hat[static_cast<size_t>(l - 1)](i, j); cap > 0)
          g.add_edge(static_cast<int>((l - 1) * s + j), static_cast<int>(l * s + i), cap);
  for (int64_t i = 0; i < s; ++i) {
    for (int64_t j = 0; j < s; ++j) out(i, j) = g.max_flow(static_cast<int>(j), static_cast<int>(layers * s + i));
    if (const double sum = out.row(i).sum(); sum > 0) out.row(i) /= sum;
  }
  return out;
}

}  // namespace attnlab::explain
